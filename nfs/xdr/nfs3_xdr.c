/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_xdr.c - NFSv3 arguments and results (RFC 1813 §2.5, §2.6 and §3.3) through libtirpc's
 * XDR primitives. See nfs3_xdr.h for the structs, the limits and what "no allocation" means.
 *
 * Where it sits: orpc_svc_dispatch (rpc/svc) decodes a call's arguments with the xdr_args
 * routine of the procedure's row, the nfs3/ handler fills the results, and dispatch encodes
 * them with xdr_res into the reply buffer; droce's client does the reverse.
 *
 * Every routine works in both directions: the shared pieces (x_bool, x_ref, ...) read or
 * write according to x->x_op, so one function body describes one RFC structure.
 */
#include <string.h>

#include "nfs3_xdr.h"
#include "nfs_xdr_prim.h"

/* the structs stay within what orpc_svc_dispatch gives a procedure */
_Static_assert(sizeof(struct nfs3_create_res) <= 1024, "CREATE3res fits ORPC_MAX_RES");
_Static_assert(sizeof(struct nfs3_rename_res) <= 1024, "RENAME3res fits ORPC_MAX_RES");
_Static_assert(sizeof(struct nfs3_lookup_res) <= 1024, "LOOKUP3res fits ORPC_MAX_RES");
_Static_assert(sizeof(struct nfs3_rename_args) <= 1024, "RENAME3args fit ORPC_MAX_ARGS");
_Static_assert(sizeof(struct nfs3_symlink_args) <= 1024, "SYMLINK3args fit ORPC_MAX_ARGS");
_Static_assert(sizeof(struct nfs3_link_args) <= 1024, "LINK3args fit ORPC_MAX_ARGS");

static const char *const proc_names[] = {
#define NFS3_PROC_NAME_(n) #n,
	NFS3_PROC_LIST(NFS3_PROC_NAME_)
#undef NFS3_PROC_NAME_
};

const char *nfs3_proc_name(uint32_t proc)
{
	return proc < NFS3_NPROCS ? proc_names[proc] : "unknown";
}

static bool_t x_verf(XDR *x, uint8_t v[NFS3_VERF_SIZE])
{
	return x_fixed(x, v, NFS3_VERF_SIZE);
}

/* ---- shared structures (RFC 1813 §2.5, §2.6) ---- */

bool_t xdr_nfs3_fh(XDR *x, struct nfs_fh *fh)
{
	FREE_IS_NOOP(x);
	if (x->x_op == XDR_ENCODE && fh->len > NFS_FH_MAX)
		return FALSE;
	if (!x_u32(x, &fh->len) || fh->len > NFS_FH_MAX)
		return FALSE;
	return xdr_opaque(x, (char *)fh->data, fh->len);
}

/* fattr3: 21 words */
bool_t xdr_nfs3_fattr(XDR *x, struct nfs_attr *a)
{
	FREE_IS_NOOP(x);
	/* ftype3 decodes as any number: a client reports what the server said */
	X_ENUM(x, a->type, UINT32_MAX);
	return x_u32(x, &a->mode) && x_u32(x, &a->nlink) && x_u32(x, &a->uid) &&
	       x_u32(x, &a->gid) && x_u64(x, &a->size) && x_u64(x, &a->used) &&
	       x_u32(x, &a->rdev_major) && x_u32(x, &a->rdev_minor) && x_u64(x, &a->fsid) &&
	       x_u64(x, &a->fileid) && x_time(x, &a->atime) && x_time(x, &a->mtime) &&
	       x_time(x, &a->ctime);
}

bool_t xdr_nfs3_post_attr(XDR *x, struct nfs3_post_attr *p)
{
	FREE_IS_NOOP(x);
	if (!x_bool(x, &p->valid))
		return FALSE;
	return !p->valid || xdr_nfs3_fattr(x, &p->attr);
}

bool_t xdr_nfs3_post_fh(XDR *x, struct nfs3_post_fh *p)
{
	FREE_IS_NOOP(x);
	if (!x_bool(x, &p->valid))
		return FALSE;
	return !p->valid || xdr_nfs3_fh(x, &p->fh);
}

/* wcc_data: pre_op_attr (wcc_attr: size, mtime, ctime), post_op_attr */
bool_t xdr_nfs3_wcc(XDR *x, struct nfs_wcc *w)
{
	FREE_IS_NOOP(x);
	if (!x_bool(x, &w->pre_valid))
		return FALSE;
	if (w->pre_valid &&
	    !(x_u64(x, &w->pre_size) && x_time(x, &w->pre_mtime) && x_time(x, &w->pre_ctime)))
		return FALSE;
	if (!x_bool(x, &w->post_valid))
		return FALSE;
	return !w->post_valid || xdr_nfs3_fattr(x, &w->post);
}

/* set_atime / set_mtime: time_how, and nfstime3 for SET_TO_CLIENT_TIME (no default arm) */
static bool_t x_set_time(XDR *x, enum nfs_time_how *how, struct nfs_time *t)
{
	X_ENUM(x, *how, NFS_TIME_CLIENT);
	return *how != NFS_TIME_CLIENT || x_time(x, t);
}

/* sattr3 */
bool_t xdr_nfs3_sattr(XDR *x, struct nfs_sattr *s)
{
	FREE_IS_NOOP(x);
	if (!x_bool(x, &s->set_mode) || (s->set_mode && !x_u32(x, &s->mode)))
		return FALSE;
	if (!x_bool(x, &s->set_uid) || (s->set_uid && !x_u32(x, &s->uid)))
		return FALSE;
	if (!x_bool(x, &s->set_gid) || (s->set_gid && !x_u32(x, &s->gid)))
		return FALSE;
	if (!x_bool(x, &s->set_size) || (s->set_size && !x_u64(x, &s->size)))
		return FALSE;
	return x_set_time(x, &s->atime_how, &s->atime) && x_set_time(x, &s->mtime_how, &s->mtime);
}

bool_t xdr_nfs3_diropargs(XDR *x, struct nfs3_diropargs *d)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &d->dir) && x_str(x, &d->name, &d->namelen, NFS3_NAME_DECODE_MAX);
}

/* ---- arguments (RFC 1813 §3.3.x, "ARGUMENTS") ---- */

bool_t xdr_nfs3_fh_args(XDR *x, struct nfs3_fh_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->fh);
}

bool_t xdr_nfs3_setattr_args(XDR *x, struct nfs3_setattr_args *p)
{
	FREE_IS_NOOP(x);
	if (!xdr_nfs3_fh(x, &p->fh) || !xdr_nfs3_sattr(x, &p->sattr) || !x_bool(x, &p->guard))
		return FALSE;
	return !p->guard || x_time(x, &p->guard_ctime);
}

bool_t xdr_nfs3_access_args(XDR *x, struct nfs3_access_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->fh) && x_u32(x, &p->access);
}

bool_t xdr_nfs3_read_args(XDR *x, struct nfs3_read_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->fh) && x_u64(x, &p->offset) && x_u32(x, &p->count);
}

bool_t xdr_nfs3_write_args(XDR *x, struct nfs3_write_args *p)
{
	FREE_IS_NOOP(x);
	if (!xdr_nfs3_fh(x, &p->fh) || !x_u64(x, &p->offset) || !x_u32(x, &p->count))
		return FALSE;
	X_ENUM(x, p->stable, NFS_FILE_SYNC);
	return x_bytes(x, &p->data, &p->data_len, NFS3_DATA_MAX);
}

/* createhow3: UNCHECKED and GUARDED carry sattr3, EXCLUSIVE a createverf3 (no default arm) */
bool_t xdr_nfs3_create_args(XDR *x, struct nfs3_create_args *p)
{
	FREE_IS_NOOP(x);
	if (!xdr_nfs3_diropargs(x, &p->where))
		return FALSE;
	X_ENUM(x, p->mode, NFS_CREATE_EXCLUSIVE);
	if (p->mode == NFS_CREATE_EXCLUSIVE)
		return x_verf(x, p->verf);
	return xdr_nfs3_sattr(x, &p->sattr);
}

bool_t xdr_nfs3_mkdir_args(XDR *x, struct nfs3_mkdir_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_diropargs(x, &p->where) && xdr_nfs3_sattr(x, &p->sattr);
}

bool_t xdr_nfs3_symlink_args(XDR *x, struct nfs3_symlink_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_diropargs(x, &p->where) && xdr_nfs3_sattr(x, &p->sattr) &&
	       x_str(x, &p->path, &p->pathlen, NFS3_NAME_DECODE_MAX);
}

/* mknoddata3: CHR/BLK devicedata3, SOCK/FIFO sattr3, default void */
bool_t xdr_nfs3_mknod_args(XDR *x, struct nfs3_mknod_args *p)
{
	FREE_IS_NOOP(x);
	if (!xdr_nfs3_diropargs(x, &p->where))
		return FALSE;
	X_ENUM(x, p->type, UINT32_MAX);
	switch (p->type) {
	case NFS_CHR:
	case NFS_BLK:
		return xdr_nfs3_sattr(x, &p->sattr) && x_u32(x, &p->rdev_major) &&
		       x_u32(x, &p->rdev_minor);
	case NFS_SOCK:
	case NFS_FIFO:
		return xdr_nfs3_sattr(x, &p->sattr);
	default:
		return TRUE;
	}
}

bool_t xdr_nfs3_rename_args(XDR *x, struct nfs3_rename_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_diropargs(x, &p->from) && xdr_nfs3_diropargs(x, &p->to);
}

bool_t xdr_nfs3_link_args(XDR *x, struct nfs3_link_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->fh) && xdr_nfs3_diropargs(x, &p->link);
}

bool_t xdr_nfs3_readdir_args(XDR *x, struct nfs3_readdir_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->dir) && x_u64(x, &p->cookie) && x_verf(x, p->cookieverf) &&
	       x_u32(x, &p->count);
}

bool_t xdr_nfs3_readdirplus_args(XDR *x, struct nfs3_readdirplus_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->dir) && x_u64(x, &p->cookie) && x_verf(x, p->cookieverf) &&
	       x_u32(x, &p->dircount) && x_u32(x, &p->maxcount);
}

bool_t xdr_nfs3_commit_args(XDR *x, struct nfs3_commit_args *p)
{
	FREE_IS_NOOP(x);
	return xdr_nfs3_fh(x, &p->fh) && x_u64(x, &p->offset) && x_u32(x, &p->count);
}

/* ---- results (RFC 1813 §3.3.x, "RESULTS"): the status picks resok or resfail ---- */

/* nfsstat3 as a word: any value (every value but NFS3_OK selects resfail) */
static bool_t x_stat(XDR *x, enum nfs_stat *s)
{
	X_ENUM(x, *s, UINT32_MAX);
	return TRUE;
}

bool_t xdr_nfs3_getattr_res(XDR *x, struct nfs3_getattr_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status))
		return FALSE;
	return p->status != NFS_OK || xdr_nfs3_fattr(x, &p->attr);
}

bool_t xdr_nfs3_wcc_res(XDR *x, struct nfs3_wcc_res *p)
{
	FREE_IS_NOOP(x);
	return x_stat(x, &p->status) && xdr_nfs3_wcc(x, &p->wcc);
}

bool_t xdr_nfs3_lookup_res(XDR *x, struct nfs3_lookup_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status))
		return FALSE;
	if (p->status == NFS_OK && !(xdr_nfs3_fh(x, &p->fh) && xdr_nfs3_post_attr(x, &p->obj_attr)))
		return FALSE;
	return xdr_nfs3_post_attr(x, &p->dir_attr);
}

bool_t xdr_nfs3_access_res(XDR *x, struct nfs3_access_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	return p->status != NFS_OK || x_u32(x, &p->access);
}

bool_t xdr_nfs3_readlink_res(XDR *x, struct nfs3_readlink_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	return p->status != NFS_OK || x_str(x, &p->path, &p->pathlen, NFS3_NAME_DECODE_MAX);
}

bool_t xdr_nfs3_read_res(XDR *x, struct nfs3_read_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	if (p->status != NFS_OK)
		return TRUE;
	/* the data opaque last: the DDP-eligible tail (docs/rpc.md) */
	if (!x_u32(x, &p->count) || !x_bool(x, &p->eof))
		return FALSE;
	if (x->x_op == XDR_ENCODE && p->placed)
		return p->data_len <= NFS3_DATA_MAX && x_u32(x, &p->data_len);
	return x_bytes(x, &p->data, &p->data_len, NFS3_DATA_MAX);
}

bool_t xdr_nfs3_write_res(XDR *x, struct nfs3_write_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_wcc(x, &p->wcc))
		return FALSE;
	if (p->status != NFS_OK)
		return TRUE;
	if (!x_u32(x, &p->count))
		return FALSE;
	X_ENUM(x, p->committed, NFS_FILE_SYNC);
	return x_verf(x, p->verf);
}

bool_t xdr_nfs3_create_res(XDR *x, struct nfs3_create_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status))
		return FALSE;
	if (p->status == NFS_OK &&
	    !(xdr_nfs3_post_fh(x, &p->fh) && xdr_nfs3_post_attr(x, &p->attr)))
		return FALSE;
	return xdr_nfs3_wcc(x, &p->dir_wcc);
}

bool_t xdr_nfs3_rename_res(XDR *x, struct nfs3_rename_res *p)
{
	FREE_IS_NOOP(x);
	return x_stat(x, &p->status) && xdr_nfs3_wcc(x, &p->from_wcc) &&
	       xdr_nfs3_wcc(x, &p->to_wcc);
}

bool_t xdr_nfs3_link_res(XDR *x, struct nfs3_link_res *p)
{
	FREE_IS_NOOP(x);
	return x_stat(x, &p->status) && xdr_nfs3_post_attr(x, &p->attr) &&
	       xdr_nfs3_wcc(x, &p->dir_wcc);
}

/* entry3 / entryplus3 after its value_follows word */
static bool_t x_dirent(XDR *x, struct nfs_dirent *e, bool plus)
{
	if (!x_u64(x, &e->fileid) || !x_str(x, &e->name, &e->namelen, NFS3_NAME_DECODE_MAX) ||
	    !x_u64(x, &e->cookie))
		return FALSE;
	if (!plus) {
		if (x->x_op == XDR_DECODE)
			e->fh_valid = e->attr_valid = false;
		return TRUE;
	}
	/* struct nfs_dirent keeps the flags apart from the values: only the words move here */
	if (!x_bool(x, &e->attr_valid))
		return FALSE;
	if (e->attr_valid && !xdr_nfs3_fattr(x, &e->attr))
		return FALSE;
	if (!x_bool(x, &e->fh_valid))
		return FALSE;
	return !e->fh_valid || xdr_nfs3_fh(x, &e->fh);
}

/*
 * READDIR3res / READDIRPLUS3res. The entry list is XDR's linked list (a value_follows word
 * before each entry, FALSE after the last); on encode it comes from entries[0..count), on
 * decode it goes into entries[0..cap).
 */
static bool_t x_readdir_res(XDR *x, struct nfs3_readdir_res *p, bool plus)
{
	bool more;

	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->dir_attr))
		return FALSE;
	if (p->status != NFS_OK)
		return TRUE;
	if (!x_verf(x, p->cookieverf))
		return FALSE;
	if (x->x_op == XDR_ENCODE) {
		if (p->count && !p->entries)
			return FALSE;
		for (uint32_t i = 0; i < p->count; i++) {
			more = true;
			if (!x_bool(x, &more) || !x_dirent(x, &p->entries[i], plus))
				return FALSE;
		}
		more = false;
		if (!x_bool(x, &more))
			return FALSE;
	} else {
		p->count = 0;
		for (;;) {
			if (!x_bool(x, &more))
				return FALSE;
			if (!more)
				break;
			if (p->count >= p->cap || !p->entries)
				return FALSE;
			if (!x_dirent(x, &p->entries[p->count], plus))
				return FALSE;
			p->count++;
		}
	}
	return x_bool(x, &p->eof);
}

bool_t xdr_nfs3_readdir_res(XDR *x, struct nfs3_readdir_res *p)
{
	FREE_IS_NOOP(x);
	return x_readdir_res(x, p, false);
}

bool_t xdr_nfs3_readdirplus_res(XDR *x, struct nfs3_readdir_res *p)
{
	FREE_IS_NOOP(x);
	return x_readdir_res(x, p, true);
}

bool_t xdr_nfs3_fsstat_res(XDR *x, struct nfs3_fsstat_res *p)
{
	struct nfs_fsstat *s = &p->st;

	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	return p->status != NFS_OK ||
	       (x_u64(x, &s->tbytes) && x_u64(x, &s->fbytes) && x_u64(x, &s->abytes) &&
		x_u64(x, &s->tfiles) && x_u64(x, &s->ffiles) && x_u64(x, &s->afiles) &&
		x_u32(x, &s->invarsec));
}

bool_t xdr_nfs3_fsinfo_res(XDR *x, struct nfs3_fsinfo_res *p)
{
	struct nfs_fsinfo *f = &p->fi;

	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	return p->status != NFS_OK ||
	       (x_u32(x, &f->rtmax) && x_u32(x, &f->rtpref) && x_u32(x, &f->rtmult) &&
		x_u32(x, &f->wtmax) && x_u32(x, &f->wtpref) && x_u32(x, &f->wtmult) &&
		x_u32(x, &f->dtpref) && x_u64(x, &f->maxfilesize) && x_time(x, &f->time_delta) &&
		x_u32(x, &f->properties));
}

bool_t xdr_nfs3_pathconf_res(XDR *x, struct nfs3_pathconf_res *p)
{
	struct nfs_pathconf *c = &p->pc;

	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_post_attr(x, &p->attr))
		return FALSE;
	return p->status != NFS_OK ||
	       (x_u32(x, &c->linkmax) && x_u32(x, &c->name_max) && x_bool(x, &c->no_trunc) &&
		x_bool(x, &c->chown_restricted) && x_bool(x, &c->case_insensitive) &&
		x_bool(x, &c->case_preserving));
}

bool_t xdr_nfs3_commit_res(XDR *x, struct nfs3_commit_res *p)
{
	FREE_IS_NOOP(x);
	if (!x_stat(x, &p->status) || !xdr_nfs3_wcc(x, &p->wcc))
		return FALSE;
	return p->status != NFS_OK || x_verf(x, p->verf);
}

/* ---- the procedures as data ---- */

#define ARGS(t) (xdrproc_t) xdr_nfs3_##t, sizeof(struct nfs3_##t)
#define RES(t) (xdrproc_t) xdr_nfs3_##t, sizeof(struct nfs3_##t)
#define VOID (xdrproc_t) xdr_void, 0

const struct nfs3_xdr_proc nfs3_xdr_procs[NFS3_NPROCS] = {
	[NFS3_PROC_NULL] = {"NULL", VOID, VOID, false},
	[NFS3_PROC_GETATTR] = {"GETATTR", ARGS(fh_args), RES(getattr_res), false},
	[NFS3_PROC_SETATTR] = {"SETATTR", ARGS(setattr_args), RES(wcc_res), false},
	[NFS3_PROC_LOOKUP] = {"LOOKUP", ARGS(diropargs), RES(lookup_res), false},
	[NFS3_PROC_ACCESS] = {"ACCESS", ARGS(access_args), RES(access_res), false},
	[NFS3_PROC_READLINK] = {"READLINK", ARGS(fh_args), RES(readlink_res), true},
	[NFS3_PROC_READ] = {"READ", ARGS(read_args), RES(read_res), true},
	[NFS3_PROC_WRITE] = {"WRITE", ARGS(write_args), RES(write_res), false},
	[NFS3_PROC_CREATE] = {"CREATE", ARGS(create_args), RES(create_res), false},
	[NFS3_PROC_MKDIR] = {"MKDIR", ARGS(mkdir_args), RES(create_res), false},
	[NFS3_PROC_SYMLINK] = {"SYMLINK", ARGS(symlink_args), RES(create_res), false},
	[NFS3_PROC_MKNOD] = {"MKNOD", ARGS(mknod_args), RES(create_res), false},
	[NFS3_PROC_REMOVE] = {"REMOVE", ARGS(diropargs), RES(wcc_res), false},
	[NFS3_PROC_RMDIR] = {"RMDIR", ARGS(diropargs), RES(wcc_res), false},
	[NFS3_PROC_RENAME] = {"RENAME", ARGS(rename_args), RES(rename_res), false},
	[NFS3_PROC_LINK] = {"LINK", ARGS(link_args), RES(link_res), false},
	[NFS3_PROC_READDIR] = {"READDIR", ARGS(readdir_args), RES(readdir_res), false},
	[NFS3_PROC_READDIRPLUS] = {"READDIRPLUS", ARGS(readdirplus_args),
				   (xdrproc_t)xdr_nfs3_readdirplus_res,
				   sizeof(struct nfs3_readdir_res), false},
	[NFS3_PROC_FSSTAT] = {"FSSTAT", ARGS(fh_args), RES(fsstat_res), false},
	[NFS3_PROC_FSINFO] = {"FSINFO", ARGS(fh_args), RES(fsinfo_res), false},
	[NFS3_PROC_PATHCONF] = {"PATHCONF", ARGS(fh_args), RES(pathconf_res), false},
	[NFS3_PROC_COMMIT] = {"COMMIT", ARGS(commit_args), RES(commit_res), false},
};

/* ---- encoded sizes ---- */

uint32_t nfs3_readdir_entry_xdr_size(uint32_t namelen)
{
	/* value_follows, fileid3, filename3 (length + bytes + padding), cookie3 */
	return 4u + 8u + 4u + RNDUP4(namelen) + 8u;
}

uint32_t nfs3_readdirplus_entry_xdr_size(uint32_t namelen, bool fh_valid, uint32_t fh_len,
					 bool attr_valid)
{
	return nfs3_readdir_entry_xdr_size(namelen) + nfs3_post_attr_xdr_size(attr_valid) + 4u +
	       (fh_valid ? 4u + RNDUP4(fh_len) : 0u);
}

uint32_t nfs3_readdir_resok_xdr_size(const struct nfs3_readdir_res *r, bool plus)
{
	uint32_t n = nfs3_readdir_resok_overhead(r->dir_attr.valid);

	for (uint32_t i = 0; i < r->count; i++) {
		const struct nfs_dirent *e = &r->entries[i];

		n += plus ? nfs3_readdirplus_entry_xdr_size(e->namelen, e->fh_valid, e->fh.len,
							    e->attr_valid)
			  : nfs3_readdir_entry_xdr_size(e->namelen);
	}
	return n;
}
