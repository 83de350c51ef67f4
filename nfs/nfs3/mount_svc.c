/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mount_svc.c - the MOUNT program (100005), versions 1 and 3 (RFC 1813 Appendix I, RFC 1094
 * Appendix A): MNT hands out an export's root handle to a listed client; DUMP lists who
 * mounted what (kept in memory, as a hint, like rmtab); UMNT and UMNTALL take entries out;
 * EXPORT lists the exports and their client entries (what `showmount -e` prints).
 * MNT v1 carries a 32-byte handle: droce's handles are longer only for file systems with
 * large kernel handles, and then v1's MNT answers EIO (v3 is what Linux mounts with).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mount_xdr.h"
#include "nfs3_svc.h"

#define MOUNT_MAX_LIST 64u
#define MOUNT_MAX_GROUPS (NFS_EXPORT_MAX * NFS_EXPORT_CLIENTS_MAX)

/* Who mounted what: a small table, per process (the DUMP list is advisory, RFC 1813 §5.2.2) */
static struct {
	char host[INET6_ADDRSTRLEN];
	char dir[NFS_MNT_PATH_MAX + 1];
} mounted[MOUNT_MAX_LIST];
static uint32_t nmounted;

/* Scratch for DUMP and EXPORT replies (encoded before the handler's caller returns). */
static struct nfs_mnt_mount dump_rows[MOUNT_MAX_LIST];
static struct nfs_mnt_export export_rows[NFS_EXPORT_MAX];
static struct nfs_mnt_str export_groups[MOUNT_MAX_GROUPS];
static char group_names[MOUNT_MAX_GROUPS][NFS_MNT_NAME_MAX + 1];

static struct nfs3_server *server_of(struct orpc_req *r)
{
	return r->svc->ctx;
}

static void peer_str(const struct orpc_req *r, char *buf, size_t len)
{
	const struct sockaddr_storage *a = &r->peer->addr;

	buf[0] = '\0';
	if (a->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)len);
	else if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, buf,
			  (socklen_t)len);
}

static void make_ctx(struct orpc_req *r, struct nfs_ctx *c)
{
	nfs3_make_ctx(r, server_of(r)->fs, c);
}

static enum accept_stat counted(struct orpc_req *r)
{
	server_of(r)->st.mount_proc[r->call.proc < MOUNT_NPROCS ? r->call.proc : 0]++;
	return SUCCESS;
}

static enum accept_stat m_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return counted(r);
}

static void remember(struct orpc_req *r, const char *dir)
{
	char host[INET6_ADDRSTRLEN];
	uint32_t i;

	peer_str(r, host, sizeof(host));
	for (i = 0; i < nmounted; i++)
		if (!strcmp(mounted[i].host, host) && !strcmp(mounted[i].dir, dir))
			return;
	if (nmounted == MOUNT_MAX_LIST)
		return; /* the list is a hint; a full one only stops growing */
	memcpy(mounted[nmounted].host, host, sizeof(host));
	memcpy(mounted[nmounted].dir, dir, strnlen(dir, NFS_MNT_PATH_MAX) + 1);
	nmounted++;
}

/* MNT: the path as a C string, then the backend's answer in MOUNT's status numbers (which
 * are errno values in both versions). */
static enum nfs_stat do_mnt(struct orpc_req *r, const struct nfs_mnt_dirpath *a, struct nfs_fh *fh,
			    char path[NFS_MNT_PATH_MAX + 1])
{
	struct nfs_ctx c;
	enum nfs_stat st;

	path[0] = '\0';
	if (a->path.len > NFS_MNT_PATH_MAX)
		return NFS_ERR_NAMETOOLONG;
	memcpy(path, a->path.s, a->path.len);
	path[a->path.len] = '\0';
	if (memchr(path, '\0', a->path.len))
		return NFS_ERR_NOENT;
	make_ctx(r, &c);
	st = nfs_fs_mount(&c, path, fh);
	return st;
}

static uint32_t mnt_status(enum nfs_stat st)
{
	switch (st) {
	case NFS_OK:
		return NFS_MNT3_OK;
	case NFS_ERR_PERM:
		return NFS_MNT3_ERR_PERM;
	case NFS_ERR_NOENT:
	case NFS_ERR_STALE:
		return NFS_MNT3_ERR_NOENT;
	case NFS_ERR_ACCES:
		return NFS_MNT3_ERR_ACCES;
	case NFS_ERR_NOTDIR:
		return NFS_MNT3_ERR_NOTDIR;
	case NFS_ERR_INVAL:
		return NFS_MNT3_ERR_INVAL;
	case NFS_ERR_NAMETOOLONG:
		return NFS_MNT3_ERR_NAMETOOLONG;
	case NFS_ERR_NOTSUPP:
		return NFS_MNT3_ERR_NOTSUPP;
	case NFS_ERR_IO:
		return NFS_MNT3_ERR_IO;
	default:
		return NFS_MNT3_ERR_SERVERFAULT;
	}
}

/* MNT's file-system work (any thread): the path walk and the root's handle. It touches
 * nothing shared but the backend. */
enum accept_stat mount_mnt_work(struct orpc_req *r, void *a, void *res)
{
	char path[NFS_MNT_PATH_MAX + 1];

	if (r->call.vers == 3) {
		struct nfs_mnt_res3 *o = res;

		o->status = mnt_status(do_mnt(r, a, &o->fh, path));
		if (o->status == NFS_MNT3_OK) {
			o->nflavors = 1;
			o->flavors[0] = AUTH_SYS;
		}
	} else {
		struct nfs_mnt_res1 *o = res;

		o->status = mnt_status(do_mnt(r, a, &o->fh, path));
		if (o->status == NFS_MNT3_OK && o->fh.len > NFS_MNT_V1_FHSIZE)
			o->status = NFS_MNT3_ERR_IO; /* a handle v1 cannot carry */
		else if (o->status > NFS_MNT3_ERR_NAMETOOLONG)
			o->status =
				NFS_MNT3_ERR_IO; /* v1's status is a Unix errno: no v3-only codes */
	}
	return SUCCESS;
}

/* MNT's end, on the lcore: the mount list (the path again from the arguments) and the count. */
void mount_mnt_end(struct orpc_req *r, void *a, void *res)
{
	const struct nfs_mnt_dirpath *d = a;
	uint32_t status = r->call.vers == 3 ? ((struct nfs_mnt_res3 *)res)->status
					    : ((struct nfs_mnt_res1 *)res)->status;
	char path[NFS_MNT_PATH_MAX + 1];

	if (status == NFS_MNT3_OK && d->path.len <= NFS_MNT_PATH_MAX) {
		memcpy(path, d->path.s, d->path.len);
		path[d->path.len] = '\0';
		remember(r, path);
	}
	counted(r);
}

static enum accept_stat m_mnt(struct orpc_req *r, void *a, void *res)
{
	return nfs3_defer_or_run(r, a, res, mount_mnt_work, mount_mnt_end);
}

static enum accept_stat m_dump(struct orpc_req *r, void *a, void *res)
{
	struct nfs_mnt_dump_res *o = res;

	(void)a;
	for (uint32_t i = 0; i < nmounted; i++) {
		dump_rows[i].host.s = mounted[i].host;
		dump_rows[i].host.len = (uint32_t)strlen(mounted[i].host);
		dump_rows[i].dir.s = mounted[i].dir;
		dump_rows[i].dir.len = (uint32_t)strlen(mounted[i].dir);
	}
	o->mounts = dump_rows;
	o->count = nmounted;
	return counted(r);
}

static void forget(struct orpc_req *r, const char *dir, size_t dirlen)
{
	char host[INET6_ADDRSTRLEN];

	peer_str(r, host, sizeof(host));
	for (uint32_t i = 0; i < nmounted;) {
		if (!strcmp(mounted[i].host, host) &&
		    (!dir ||
		     (strlen(mounted[i].dir) == dirlen && !memcmp(mounted[i].dir, dir, dirlen)))) {
			mounted[i] = mounted[--nmounted];
			continue;
		}
		i++;
	}
}

static enum accept_stat m_umnt(struct orpc_req *r, void *a, void *res)
{
	const struct nfs_mnt_dirpath *p = a;

	(void)res;
	forget(r, p->path.s, p->path.len);
	return counted(r);
}

static enum accept_stat m_umntall(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	forget(r, NULL, 0);
	return counted(r);
}

/* One client entry as showmount prints it: "*", an address, a network/prefix, a name. */
static void client_name(const struct nfs_export_client *c, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "";

	switch (c->kind) {
	case NFS_CLIENT_ANY:
		snprintf(buf, len, "*");
		break;
	case NFS_CLIENT_HOST:
		snprintf(buf, len, "%s", c->host);
		break;
	case NFS_CLIENT_CIDR4:
		inet_ntop(AF_INET, c->addr, ip, sizeof(ip));
		snprintf(buf, len, c->prefix == 32 ? "%s" : "%s/%u", ip, c->prefix);
		break;
	case NFS_CLIENT_CIDR6:
		inet_ntop(AF_INET6, c->addr, ip, sizeof(ip));
		snprintf(buf, len, c->prefix == 128 ? "%s" : "%s/%u", ip, c->prefix);
		break;
	}
}

static enum accept_stat m_export(struct orpc_req *r, void *a, void *res)
{
	struct nfs_mnt_export_res *o = res;
	struct nfs_fs *fs = server_of(r)->fs;
	const struct nfs_export *e;
	uint32_t n = 0, g = 0;

	(void)a;
	for (uint32_t i = 0; (e = nfs_fs_export(fs, i)) && n < NFS_EXPORT_MAX; i++) {
		export_rows[n].dir.s = e->path;
		export_rows[n].dir.len = (uint32_t)strlen(e->path);
		export_rows[n].groups = &export_groups[g];
		export_rows[n].ngroups = 0;
		for (uint32_t k = 0; k < e->nclients && g < MOUNT_MAX_GROUPS; k++, g++) {
			client_name(&e->clients[k], group_names[g], sizeof(group_names[g]));
			export_groups[g].s = group_names[g];
			export_groups[g].len = (uint32_t)strlen(group_names[g]);
			export_rows[n].ngroups++;
		}
		n++;
	}
	o->exports = export_rows;
	o->count = n;
	return counted(r);
}

#define NOARGS (xdrproc_t) xdr_void, 0
#define DIRPATH (xdrproc_t) xdr_nfs_mnt_dirpath, sizeof(struct nfs_mnt_dirpath)

static const struct orpc_proc mount3_procs[MOUNT_NPROCS] = {
	{"NULL", NOARGS, (xdrproc_t)xdr_void, 0, m_null, false},
	{"MNT", DIRPATH, (xdrproc_t)xdr_nfs_mnt_res3, sizeof(struct nfs_mnt_res3), m_mnt, false},
	{"DUMP", NOARGS, (xdrproc_t)xdr_nfs_mnt_dump_res, sizeof(struct nfs_mnt_dump_res), m_dump,
	 false},
	{"UMNT", DIRPATH, (xdrproc_t)xdr_void, 0, m_umnt, false},
	{"UMNTALL", NOARGS, (xdrproc_t)xdr_void, 0, m_umntall, false},
	{"EXPORT", NOARGS, (xdrproc_t)xdr_nfs_mnt_export_res, sizeof(struct nfs_mnt_export_res),
	 m_export, false},
};

static const struct orpc_proc mount1_procs[MOUNT_NPROCS] = {
	{"NULL", NOARGS, (xdrproc_t)xdr_void, 0, m_null, false},
	{"MNT", DIRPATH, (xdrproc_t)xdr_nfs_mnt_res1, sizeof(struct nfs_mnt_res1), m_mnt, false},
	{"DUMP", NOARGS, (xdrproc_t)xdr_nfs_mnt_dump_res, sizeof(struct nfs_mnt_dump_res), m_dump,
	 false},
	{"UMNT", DIRPATH, (xdrproc_t)xdr_void, 0, m_umnt, false},
	{"UMNTALL", NOARGS, (xdrproc_t)xdr_void, 0, m_umntall, false},
	{"EXPORT", NOARGS, (xdrproc_t)xdr_nfs_mnt_export_res, sizeof(struct nfs_mnt_export_res),
	 m_export, false},
};

static const struct orpc_version mount_versions[] = {{1, MOUNT_NPROCS, mount1_procs},
						     {3, MOUNT_NPROCS, mount3_procs}};

const struct orpc_program mount_program = {
	.prog = MOUNT_PROG,
	.name = "mountd",
	.nvers = 2,
	.vers = mount_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS),
};
