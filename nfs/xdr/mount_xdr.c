/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mount_xdr.c - MOUNT v3 (RFC 1813 Appendix I) and v1 (RFC 1094 Appendix A) arguments and
 * results through libtirpc's XDR primitives. See mount_xdr.h for the structs and limits.
 *
 * Where it sits: the MOUNT program's rows (nfs3/) name these routines; orpc_svc_dispatch
 * decodes MNT/UMNT's dirpath with them and encodes the replies (droce's client does the
 * reverse). The protocol's linked lists (mountlist, exports, groups) are XDR "optional-data"
 * chains: a TRUE word before each element, FALSE after the last; here they are arrays.
 */
#include <string.h>

#include "mount_xdr.h"
#include "nfs_xdr_prim.h"

_Static_assert(sizeof(struct nfs_mnt_res3) <= 1024, "mountres3 fits ORPC_MAX_RES");
_Static_assert(sizeof(struct nfs_mnt_export_res) <= 1024, "exports fit ORPC_MAX_RES");

static const char *const proc_names[] = {
#define NFS_MNT_PROC_NAME_(n) #n,
	NFS_MNT_PROC_LIST(NFS_MNT_PROC_NAME_)
#undef NFS_MNT_PROC_NAME_
};

const char *nfs_mnt_proc_name(uint32_t proc)
{
	return proc < NFS_MNT_NPROCS ? proc_names[proc] : "unknown";
}

static bool_t x_mstr(XDR *x, struct nfs_mnt_str *s, uint32_t max)
{
	return x_str(x, &s->s, &s->len, max);
}

bool_t xdr_nfs_mnt_dirpath(XDR *x, struct nfs_mnt_dirpath *p)
{
	FREE_IS_NOOP(x);
	return x_mstr(x, &p->path, NFS_MNT_PATH_MAX);
}

/* mountres3: status; MNT3_OK: fhandle3 and auth_flavors<> (int, kept as words) */
bool_t xdr_nfs_mnt_res3(XDR *x, struct nfs_mnt_res3 *p)
{
	FREE_IS_NOOP(x);
	if (!x_u32(x, &p->status))
		return FALSE;
	if (p->status != NFS_MNT3_OK)
		return TRUE;
	if (x->x_op == XDR_ENCODE && p->fh.len > NFS_FH_MAX)
		return FALSE;
	if (!x_u32(x, &p->fh.len) || p->fh.len > NFS_FH_MAX || !x_fixed(x, p->fh.data, p->fh.len))
		return FALSE;
	if (x->x_op == XDR_ENCODE && p->nflavors > NFS_MNT_FLAVORS_MAX)
		return FALSE;
	if (!x_u32(x, &p->nflavors) || p->nflavors > NFS_MNT_FLAVORS_MAX)
		return FALSE;
	for (uint32_t i = 0; i < p->nflavors; i++)
		if (!x_u32(x, &p->flavors[i]))
			return FALSE;
	return TRUE;
}

/* fhstatus: status; 0: fhandle, opaque[32] */
bool_t xdr_nfs_mnt_res1(XDR *x, struct nfs_mnt_res1 *p)
{
	FREE_IS_NOOP(x);
	if (!x_u32(x, &p->status))
		return FALSE;
	if (p->status != 0)
		return TRUE;
	if (x->x_op == XDR_ENCODE) {
		uint8_t fh[NFS_MNT_V1_FHSIZE] = {0};

		if (p->fh.len > NFS_MNT_V1_FHSIZE)
			return FALSE;
		memcpy(fh, p->fh.data, p->fh.len);
		return x_fixed(x, fh, NFS_MNT_V1_FHSIZE);
	}
	p->fh.len = NFS_MNT_V1_FHSIZE;
	return x_fixed(x, p->fh.data, NFS_MNT_V1_FHSIZE);
}

/* the word before each list element and after the last */
static bool_t x_follows(XDR *x, bool more, bool *got)
{
	*got = more;
	return x_bool(x, got);
}

/* mountlist: mountbody {ml_hostname, ml_directory, ml_next} */
bool_t xdr_nfs_mnt_dump_res(XDR *x, struct nfs_mnt_dump_res *p)
{
	bool more;

	FREE_IS_NOOP(x);
	if (x->x_op == XDR_ENCODE) {
		if (p->count && !p->mounts)
			return FALSE;
		for (uint32_t i = 0; i < p->count; i++)
			if (!x_follows(x, true, &more) ||
			    !x_mstr(x, &p->mounts[i].host, NFS_MNT_NAME_MAX) ||
			    !x_mstr(x, &p->mounts[i].dir, NFS_MNT_PATH_MAX))
				return FALSE;
		return x_follows(x, false, &more);
	}
	for (p->count = 0;; p->count++) {
		if (!x_follows(x, false, &more))
			return FALSE;
		if (!more)
			return TRUE;
		if (p->count >= p->cap || !p->mounts)
			return FALSE;
		if (!x_mstr(x, &p->mounts[p->count].host, NFS_MNT_NAME_MAX) ||
		    !x_mstr(x, &p->mounts[p->count].dir, NFS_MNT_PATH_MAX))
			return FALSE;
	}
}

/* groups: groupnode {gr_name, gr_next}, into the shared groups array on decode */
static bool_t x_groups(XDR *x, struct nfs_mnt_export_res *r, struct nfs_mnt_export *e)
{
	bool more;

	if (x->x_op == XDR_ENCODE) {
		if (e->ngroups && !e->groups)
			return FALSE;
		for (uint32_t i = 0; i < e->ngroups; i++)
			if (!x_follows(x, true, &more) ||
			    !x_mstr(x, &e->groups[i], NFS_MNT_NAME_MAX))
				return FALSE;
		return x_follows(x, false, &more);
	}
	e->groups = r->groups ? r->groups + r->ngroups_total : NULL;
	for (e->ngroups = 0;; e->ngroups++) {
		if (!x_follows(x, false, &more))
			return FALSE;
		if (!more)
			return TRUE;
		if (r->ngroups_total >= r->groups_cap || !r->groups)
			return FALSE;
		if (!x_mstr(x, &r->groups[r->ngroups_total], NFS_MNT_NAME_MAX))
			return FALSE;
		r->ngroups_total++;
	}
}

/* exports: exportnode {ex_dir, ex_groups, ex_next} */
bool_t xdr_nfs_mnt_export_res(XDR *x, struct nfs_mnt_export_res *p)
{
	bool more;

	FREE_IS_NOOP(x);
	if (x->x_op == XDR_ENCODE) {
		if (p->count && !p->exports)
			return FALSE;
		for (uint32_t i = 0; i < p->count; i++)
			if (!x_follows(x, true, &more) ||
			    !x_mstr(x, &p->exports[i].dir, NFS_MNT_PATH_MAX) ||
			    !x_groups(x, p, &p->exports[i]))
				return FALSE;
		return x_follows(x, false, &more);
	}
	p->ngroups_total = 0;
	for (p->count = 0;; p->count++) {
		if (!x_follows(x, false, &more))
			return FALSE;
		if (!more)
			return TRUE;
		if (p->count >= p->cap || !p->exports)
			return FALSE;
		if (!x_mstr(x, &p->exports[p->count].dir, NFS_MNT_PATH_MAX) ||
		    !x_groups(x, p, &p->exports[p->count]))
			return FALSE;
	}
}

/* ---- the procedures as data ---- */

#define VOID (xdrproc_t) xdr_void, 0
#define DIRPATH (xdrproc_t) xdr_nfs_mnt_dirpath, sizeof(struct nfs_mnt_dirpath)
#define RES(t) (xdrproc_t) xdr_nfs_mnt_##t, sizeof(struct nfs_mnt_##t)

const struct nfs_mnt_xdr_proc nfs_mnt_xdr_procs_v3[NFS_MNT_NPROCS] = {
	[NFS_MNT_PROC_NULL] = {"NULL", VOID, VOID},
	[NFS_MNT_PROC_MNT] = {"MNT", DIRPATH, RES(res3)},
	[NFS_MNT_PROC_DUMP] = {"DUMP", VOID, RES(dump_res)},
	[NFS_MNT_PROC_UMNT] = {"UMNT", DIRPATH, VOID},
	[NFS_MNT_PROC_UMNTALL] = {"UMNTALL", VOID, VOID},
	[NFS_MNT_PROC_EXPORT] = {"EXPORT", VOID, RES(export_res)},
};

const struct nfs_mnt_xdr_proc nfs_mnt_xdr_procs_v1[NFS_MNT_NPROCS] = {
	[NFS_MNT_PROC_NULL] = {"NULL", VOID, VOID},
	[NFS_MNT_PROC_MNT] = {"MNT", DIRPATH, RES(res1)},
	[NFS_MNT_PROC_DUMP] = {"DUMP", VOID, RES(dump_res)},
	[NFS_MNT_PROC_UMNT] = {"UMNT", DIRPATH, VOID},
	[NFS_MNT_PROC_UMNTALL] = {"UMNTALL", VOID, VOID},
	[NFS_MNT_PROC_EXPORT] = {"EXPORT", VOID, RES(export_res)},
};
