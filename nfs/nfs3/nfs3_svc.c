/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_svc.c - the NFSv3 program (RFC 1813): each procedure's row (XDR routines from
 * nfs/xdr, its handler) and handlers that map arguments onto the backend (nfs/fs) and its
 * answers onto results. Handlers always answer SUCCESS at the RPC level: NFS errors travel in
 * the results' status, as the RFC says. Undecodable arguments never reach a handler
 * (orpc_svc answers GARBAGE_ARGS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3_svc.h"
#include "nfs3_xdr.h"

#define NFS3_MAX_DIRENTS 16384u
#define NFS3_NAMES_CAP (NFS3_MAX_DIRENTS * 64u)

static struct nfs3_server *server_of(struct orpc_req *r)
{
	return r->svc->ctx;
}

/* The backend's view of the caller: address, transport, AUTH_SYS credential. */
static void make_ctx(struct orpc_req *r, struct nfs_ctx *c)
{
	const struct orpc_authsys *sys = &r->call.sys;

	memset(c, 0, sizeof(*c));
	c->fs = server_of(r)->fs;
	memcpy(&c->peer, &r->peer->addr, sizeof(c->peer));
	c->rdma = r->peer->xprt == ORPC_XPRT_RDMA;
	c->cred.flavor = r->call.cred_flavor;
	if (r->call.cred_flavor == AUTH_SYS) {
		c->cred.uid = sys->uid;
		c->cred.gid = sys->gid;
		c->cred.ngroups = sys->ngids < NFS_MAX_GROUPS ? sys->ngids : NFS_MAX_GROUPS;
		memcpy(c->cred.groups, sys->gids, c->cred.ngroups * sizeof(c->cred.groups[0]));
	}
}

uint32_t nfs3_stat_slot(enum nfs_stat st)
{
	static const enum nfs_stat slots[] = {NFS_OK,
					      NFS_ERR_PERM,
					      NFS_ERR_NOENT,
					      NFS_ERR_IO,
					      NFS_ERR_NXIO,
					      NFS_ERR_ACCES,
					      NFS_ERR_EXIST,
					      NFS_ERR_XDEV,
					      NFS_ERR_NODEV,
					      NFS_ERR_NOTDIR,
					      NFS_ERR_ISDIR,
					      NFS_ERR_INVAL,
					      NFS_ERR_FBIG,
					      NFS_ERR_NOSPC,
					      NFS_ERR_ROFS,
					      NFS_ERR_MLINK,
					      NFS_ERR_NAMETOOLONG,
					      NFS_ERR_NOTEMPTY,
					      NFS_ERR_DQUOT,
					      NFS_ERR_STALE,
					      NFS_ERR_REMOTE,
					      NFS_ERR_BADHANDLE,
					      NFS_ERR_NOT_SYNC,
					      NFS_ERR_BAD_COOKIE,
					      NFS_ERR_NOTSUPP,
					      NFS_ERR_TOOSMALL,
					      NFS_ERR_SERVERFAULT,
					      NFS_ERR_BADTYPE,
					      NFS_ERR_JUKEBOX};

	for (uint32_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		if (slots[i] == st)
			return i;
	return 31;
}

/* Every handler ends here: count the procedure and the status it answers. */
static enum accept_stat answered(struct orpc_req *r, enum nfs_stat st)
{
	struct nfs3_server *s = server_of(r);

	s->st.proc[r->call.proc < NFS3_NPROCS ? r->call.proc : 0]++;
	s->st.status[nfs3_stat_slot(st)]++;
	if (st == NFS_OK)
		s->st.status_ok++;
	else
		s->st.status_err++;
	return SUCCESS;
}

static enum accept_stat p_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return answered(r, NFS_OK);
}

static enum accept_stat p_getattr(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_getattr_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_getattr(&c, &args->fh, &o->attr);
	return answered(r, o->status);
}

static enum accept_stat p_setattr(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_setattr_args *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_setattr(&c, &args->fh, &args->sattr,
				   args->guard ? &args->guard_ctime : NULL, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_lookup(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_lookup_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_lookup(&c, &args->dir, args->name, args->namelen, &o->fh,
				  &o->obj_attr.attr, &o->dir_attr.valid, &o->dir_attr.attr);
	o->obj_attr.valid = o->status == NFS_OK;
	return answered(r, o->status);
}

static enum accept_stat p_access(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_access_args *args = a;
	struct nfs3_access_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_access(&c, &args->fh, args->access, &o->access, &o->attr.valid,
				  &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_readlink(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_readlink_res *o = res;
	struct nfs3_server *s = server_of(r);
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_readlink(&c, &args->fh, (char *)s->read_buf, NFS_PATH_MAX, &o->pathlen,
				    &o->attr.valid, &o->attr.attr);
	o->path = (const char *)s->read_buf;
	return answered(r, o->status);
}

static enum accept_stat p_read(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_read_args *args = a;
	struct nfs3_read_res *o = res;
	struct nfs3_server *s = server_of(r);
	uint32_t count = args->count < s->max_io ? args->count : s->max_io;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_read(&c, &args->fh, args->offset, count, s->read_buf, &o->count, &o->eof,
				&o->attr.valid, &o->attr.attr);
	if (o->status == NFS_OK) {
		o->data = s->read_buf;
		o->data_len = o->count;
		r->ddp_len = o->count;
		s->st.read_bytes += o->count;
	}
	return answered(r, o->status);
}

static enum accept_stat p_write(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_write_args *args = a;
	struct nfs3_write_res *o = res;
	struct nfs3_server *s = server_of(r);
	struct nfs_ctx c;

	make_ctx(r, &c);
	/* RFC 1813 §3.3.7: count bytes of data; less data than count is the client's error
	 * (knfsd refuses it too) */
	if (args->data_len < args->count) {
		o->status = NFS_ERR_INVAL;
		return answered(r, o->status);
	}
	o->status = nfs_fs_write(&c, &args->fh, args->offset, args->data, args->count, args->stable,
				 &o->count, &o->committed, &o->wcc);
	nfs_fs_write_verf(s->fs, o->verf);
	if (o->status == NFS_OK)
		s->st.write_bytes += o->count;
	return answered(r, o->status);
}

/* CREATE, MKDIR, SYMLINK and MKNOD answer the same shape: the new object's handle and
 * attributes, and the directory's wcc. */
static enum accept_stat created(struct orpc_req *r, struct nfs3_create_res *o)
{
	o->fh.valid = o->status == NFS_OK;
	o->attr.valid = o->status == NFS_OK;
	return answered(r, o->status);
}

static enum accept_stat p_create(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_create_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_create(&c, &args->where.dir, args->where.name, args->where.namelen,
				  args->mode, &args->sattr, args->verf, &o->fh.fh, &o->attr.attr,
				  &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_mkdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_mkdir_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_mkdir(&c, &args->where.dir, args->where.name, args->where.namelen,
				 &args->sattr, &o->fh.fh, &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_symlink(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_symlink_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_symlink(&c, &args->where.dir, args->where.name, args->where.namelen,
				   &args->sattr, args->path, args->pathlen, &o->fh.fh,
				   &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_mknod(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_mknod_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_mknod(&c, &args->where.dir, args->where.name, args->where.namelen,
				 args->type, &args->sattr, args->rdev_major, args->rdev_minor,
				 &o->fh.fh, &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_remove(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_remove(&c, &args->dir, args->name, args->namelen, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_rmdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_rmdir(&c, &args->dir, args->name, args->namelen, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_rename(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_rename_args *args = a;
	struct nfs3_rename_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_rename(&c, &args->from.dir, args->from.name, args->from.namelen,
				  &args->to.dir, args->to.name, args->to.namelen, &o->from_wcc,
				  &o->to_wcc);
	return answered(r, o->status);
}

static enum accept_stat p_link(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_link_args *args = a;
	struct nfs3_link_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_link(&c, &args->fh, &args->link.dir, args->link.name, args->link.namelen,
				&o->attr.valid, &o->attr.attr, &o->dir_wcc);
	return answered(r, o->status);
}

/* READDIR(PLUS): entries are gathered into the server's scratch until the next one would
 * make the reply larger than the client asked for (count, or maxcount for PLUS). */
struct dir_fill {
	struct nfs3_server *s;
	struct nfs3_readdir_res *o;
	bool plus;
	uint32_t room; /* bytes left for entries */
	uint32_t names_used;
};

static bool dir_take(void *arg, const struct nfs_dirent *e)
{
	struct dir_fill *f = arg;
	struct nfs3_server *s = f->s;
	uint32_t sz = f->plus ? nfs3_readdirplus_entry_xdr_size(e->namelen, e->fh_valid, e->fh.len,
								e->attr_valid)
			      : nfs3_readdir_entry_xdr_size(e->namelen);
	struct nfs_dirent *d;

	if (sz > f->room || f->o->count >= s->max_dirents ||
	    f->names_used + e->namelen > s->names_cap)
		return false;
	d = &s->dirents[f->o->count++];
	*d = *e;
	memcpy(s->names + f->names_used, e->name, e->namelen);
	d->name = s->names + f->names_used;
	f->names_used += e->namelen;
	f->room -= sz;
	return true;
}

static enum accept_stat readdir_common(struct orpc_req *r, const struct nfs_fh *dir,
				       uint64_t cookie, const uint8_t verf[8], uint32_t count,
				       bool plus, struct nfs3_readdir_res *o)
{
	struct nfs3_server *s = server_of(r);
	struct dir_fill f = {.s = s, .o = o, .plus = plus};
	uint32_t overhead = nfs3_readdir_resok_overhead(true);
	struct nfs_ctx c;

	make_ctx(r, &c);
	if (count > s->max_io)
		count = s->max_io;
	memcpy(o->cookieverf, verf, NFS3_VERF_SIZE);
	o->entries = s->dirents;
	o->count = 0;
	f.room = count > overhead ? count - overhead : 0;
	o->status = nfs_fs_readdir(&c, dir, cookie, o->cookieverf, plus, dir_take, &f, &o->eof,
				   &o->dir_attr.valid, &o->dir_attr.attr);
	/* not even one entry fits, and the directory has more: the client's buffer is too
	 * small (RFC 1813 §3.3.16) */
	if (o->status == NFS_OK && o->count == 0 && !o->eof)
		o->status = NFS_ERR_TOOSMALL;
	return answered(r, o->status);
}

static enum accept_stat p_readdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_readdir_args *args = a;

	return readdir_common(r, &args->dir, args->cookie, args->cookieverf, args->count, false,
			      res);
}

static enum accept_stat p_readdirplus(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_readdirplus_args *args = a;

	return readdir_common(r, &args->dir, args->cookie, args->cookieverf, args->maxcount, true,
			      res);
}

static enum accept_stat p_fsstat(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_fsstat_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_fsstat(&c, &args->fh, &o->st, &o->attr.valid, &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_fsinfo(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_fsinfo_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_fsinfo(&c, &args->fh, server_of(r)->max_io, &o->fi, &o->attr.valid,
				  &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_pathconf(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_pathconf_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_pathconf(&c, &args->fh, &o->pc, &o->attr.valid, &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_commit(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_commit_args *args = a;
	struct nfs3_commit_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_commit(&c, &args->fh, args->offset, args->count, &o->wcc);
	nfs_fs_write_verf(server_of(r)->fs, o->verf);
	return answered(r, o->status);
}

/* One row per procedure: name, arguments, results, handler, DDP-eligible results. */
#define ROW(name, args_t, xargs, res_t, xres, fn, ddp)                                             \
	{                                                                                          \
		name, (xdrproc_t)(xargs), sizeof(args_t), (xdrproc_t)(xres), sizeof(res_t), fn,    \
			ddp                                                                        \
	}

static const struct orpc_proc nfs3_procs[NFS3_NPROCS] = {
	{"NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, p_null, false},
	ROW("GETATTR", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_getattr_res,
	    xdr_nfs3_getattr_res, p_getattr, false),
	ROW("SETATTR", struct nfs3_setattr_args, xdr_nfs3_setattr_args, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, p_setattr, false),
	ROW("LOOKUP", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_lookup_res,
	    xdr_nfs3_lookup_res, p_lookup, false),
	ROW("ACCESS", struct nfs3_access_args, xdr_nfs3_access_args, struct nfs3_access_res,
	    xdr_nfs3_access_res, p_access, false),
	ROW("READLINK", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_readlink_res,
	    xdr_nfs3_readlink_res, p_readlink, false),
	ROW("READ", struct nfs3_read_args, xdr_nfs3_read_args, struct nfs3_read_res,
	    xdr_nfs3_read_res, p_read, true),
	ROW("WRITE", struct nfs3_write_args, xdr_nfs3_write_args, struct nfs3_write_res,
	    xdr_nfs3_write_res, p_write, false),
	ROW("CREATE", struct nfs3_create_args, xdr_nfs3_create_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, p_create, false),
	ROW("MKDIR", struct nfs3_mkdir_args, xdr_nfs3_mkdir_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, p_mkdir, false),
	ROW("SYMLINK", struct nfs3_symlink_args, xdr_nfs3_symlink_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, p_symlink, false),
	ROW("MKNOD", struct nfs3_mknod_args, xdr_nfs3_mknod_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, p_mknod, false),
	ROW("REMOVE", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, p_remove, false),
	ROW("RMDIR", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, p_rmdir, false),
	ROW("RENAME", struct nfs3_rename_args, xdr_nfs3_rename_args, struct nfs3_rename_res,
	    xdr_nfs3_rename_res, p_rename, false),
	ROW("LINK", struct nfs3_link_args, xdr_nfs3_link_args, struct nfs3_link_res,
	    xdr_nfs3_link_res, p_link, false),
	ROW("READDIR", struct nfs3_readdir_args, xdr_nfs3_readdir_args, struct nfs3_readdir_res,
	    xdr_nfs3_readdir_res, p_readdir, false),
	ROW("READDIRPLUS", struct nfs3_readdirplus_args, xdr_nfs3_readdirplus_args,
	    struct nfs3_readdir_res, xdr_nfs3_readdirplus_res, p_readdirplus, false),
	ROW("FSSTAT", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_fsstat_res,
	    xdr_nfs3_fsstat_res, p_fsstat, false),
	ROW("FSINFO", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_fsinfo_res,
	    xdr_nfs3_fsinfo_res, p_fsinfo, false),
	ROW("PATHCONF", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_pathconf_res,
	    xdr_nfs3_pathconf_res, p_pathconf, false),
	ROW("COMMIT", struct nfs3_commit_args, xdr_nfs3_commit_args, struct nfs3_commit_res,
	    xdr_nfs3_commit_res, p_commit, false),
};

static const struct orpc_version nfs3_versions[] = {{NFS3_VERS, NFS3_NPROCS, nfs3_procs}};

const struct orpc_program nfs3_program = {
	.prog = NFS3_PROG,
	.name = "nfs",
	.nvers = 1,
	.vers = nfs3_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS),
};

int nfs3_server_init(struct nfs3_server *s, struct nfs_fs *fs, uint32_t max_io)
{
	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->max_io = max_io;
	s->max_dirents = NFS3_MAX_DIRENTS;
	s->names_cap = NFS3_NAMES_CAP;
	s->read_buf = malloc(max_io > NFS_PATH_MAX ? max_io : NFS_PATH_MAX);
	s->dirents = calloc(s->max_dirents, sizeof(*s->dirents));
	s->names = malloc(s->names_cap);
	if (!s->read_buf || !s->dirents || !s->names) {
		nfs3_server_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void nfs3_server_fini(struct nfs3_server *s)
{
	free(s->read_buf);
	free(s->dirents);
	free(s->names);
	s->read_buf = NULL;
	s->dirents = NULL;
	s->names = NULL;
}
