/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_file.c - NFSv4.1's file operations (RFC 8881 §18): READ, WRITE, COMMIT, CREATE,
 * REMOVE, RENAME, LINK, READDIR, READLINK, SETATTR, VERIFY and NVERIFY, each on the backend
 * call NFSv3's procedure makes (nfs/fs), so both versions see one file system with one set of
 * rules (exports, squashing, read-only exports, the write verifier).
 *
 * Direct data placement (RFC 8267 §4.1): READ's data and READLINK's text are DDP-eligible.
 * When such an operation is the compound's last (as Linux sends them: SEQUENCE, PUTFH, READ),
 * READ reads straight into the transport's DDP sink if it has one large enough, and the
 * compound tells the transport the opaque's length (nfs4_io) so the data goes by the write
 * chunk; otherwise the data is encoded inline. WRITE's data needs nothing here: the transport
 * has already spliced the read chunk into the call at its XDR position.
 *
 * The pseudo file system is read-only: changes in it are ROFS; READ of it is ISDIR. REMOVE and
 * RENAME wait for the grace period's end (GRACE: nfs4_recover.h), as knfsd's do.
 */
#include <string.h>

#include "nfs4_int.h"
#include "nfs_xdr_prim.h"

#define NS_PER_S 1000000000ull

static uint64_t change_of(const struct nfs_time *t)
{
	return (uint64_t)t->sec * NS_PER_S + t->nsec;
}

static void cinfo_of(const struct nfs_wcc *w, struct nfs4_cinfo *ci)
{
	ci->atomic = false;
	ci->before = w->pre_valid ? change_of(&w->pre_ctime) : 0;
	ci->after = w->post_valid ? change_of(&w->post.ctime) : 0;
}

/* the current handle must be a backend object: the pseudo file system changes nothing */
static uint32_t need_real(const struct nfs4_compound *c, uint32_t pseudo_status)
{
	return c->cur.kind == NFS4_FH_REAL ? NFS4_OK : pseudo_status;
}

/* ---- READ, WRITE, COMMIT ---- */

/* the anonymous or READ-bypass stateid (RFC 8881 §8.2.3): a change made with one is covered by
 * no open of the caller, so no OPEN's share deny or delegation offer sees it while it would
 * wait: it runs on the lcore, its checks and its change at once */
static bool special_sid(const struct nfs4_stateid *s)
{
	bool zero = true, ones = true;

	for (unsigned i = 0; i < sizeof(s->other); i++) {
		zero &= s->other[i] == 0;
		ones &= s->other[i] == 0xff;
	}
	return zero || ones;
}

/* this operation's DDP-eligible data is the reply's tail (the compound's last operation) */
static bool ddp_tail(const struct nfs4_compound *c)
{
	return c->io && c->opidx + 1 == c->numops;
}

struct nfs4_work *nfs4_work_start(struct nfs4_compound *c, enum nfs4_work_kind k,
				  const struct nfs_fh *fh)
{
	struct nfs4_work *w = &c->work;

	memset(w, 0, sizeof(*w));
	w->kind = k;
	w->fh = *fh;
	return w;
}

/* Only READ and WRITE wait without helper threads (io_uring does them). */
uint32_t nfs4_work(struct nfs4_compound *c, union nfs4_op_resok *r)
{
	enum nfs4_work_kind k = c->work.kind;

	if (c->may_defer && (c->io->defer_pool || k == NFS4_WORK_READ || k == NFS4_WORK_WRITE))
		return NFS4_DEFER;
	nfs4_work_run(c);
	return nfs4_work_end(c, r);
}

uint32_t nfs4_op_read(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_read_args *ra = &a->read;
	uint32_t count = ra->count < c->s->conf.max_io ? ra->count : c->s->conf.max_io;
	struct nfs4_work *w = &c->work;
	uint32_t s = need_real(c, NFS4ERR_ISDIR);

	if (s != NFS4_OK)
		return s;
	s = nfs4_sid_check_io(c, &ra->sid, &c->cur.fh, false);
	if (s != NFS4_OK)
		return s;
	w = nfs4_work_start(c, NFS4_WORK_READ, &c->cur.fh);
	w->offset = ra->offset;
	w->count = count;
	/* a deferred READ not placed gets a buffer of its own (nfs4_compound.c) */
	w->dest = c->s->iobuf;
	if (ddp_tail(c) && c->io->sink && count <= c->io->sink_len) {
		w->dest = c->io->sink;
		w->placed = true;
	}
	return nfs4_work(c, r);
}

/* The work is run here, whatever may_defer says: its checks and its change stay together */
static uint32_t work_here(struct nfs4_compound *c, union nfs4_op_resok *r)
{
	bool may = c->may_defer;
	uint32_t s;

	c->may_defer = false;
	s = nfs4_work(c, r);
	c->may_defer = may;
	return s;
}

static void readdir_run(struct nfs4_compound *c, struct nfs4_work *w);

void nfs4_work_run(struct nfs4_compound *c)
{
	struct nfs4_work *w = &c->work;
	struct nfs_ctx *ctx = c->ctx;
	struct nfs_attr at, dir;
	struct nfs_wcc wcc;
	bool av;

	switch (w->kind) {
	case NFS4_WORK_READ:
		w->status = nfs_fs_read(ctx, &w->fh, w->offset, w->count, w->dest, &w->done,
					&w->eof, &av, &at);
		break;
	case NFS4_WORK_WRITE:
		w->status = nfs_fs_write(ctx, &w->fh, w->offset, w->data, w->count, w->stable,
					 &w->done, &w->committed, &wcc);
		break;
	case NFS4_WORK_COMMIT:
		w->status = nfs_fs_commit(ctx, &w->fh, w->offset, w->count, &wcc);
		break;
	case NFS4_WORK_CREATE:
		if (w->ftype == NFS_DIR)
			w->status = nfs_fs_mkdir(ctx, &w->fh, w->name, w->namelen, &w->sa,
						 &w->newfh, &at, &w->wcc);
		else if (w->ftype == NFS_LNK)
			w->status = nfs_fs_symlink(ctx, &w->fh, w->name, w->namelen, &w->sa,
						   w->name2, w->namelen2, &w->newfh, &at, &w->wcc);
		else
			w->status = nfs_fs_mknod(ctx, &w->fh, w->name, w->namelen, w->ftype, &w->sa,
						 w->spec1, w->spec2, &w->newfh, &at, &w->wcc);
		break;
	case NFS4_WORK_REMOVE:
		w->status = w->rmdir ? nfs_fs_rmdir(ctx, &w->fh, w->name, w->namelen, &w->wcc)
				     : nfs_fs_remove(ctx, &w->fh, w->name, w->namelen, &w->wcc);
		break;
	case NFS4_WORK_RENAME:
		w->status = nfs_fs_rename(ctx, &w->fh, w->name, w->namelen, &w->fh2, w->name2,
					  w->namelen2, &w->wcc, &w->wcc2);
		break;
	case NFS4_WORK_LINK:
		w->status =
			nfs_fs_link(ctx, &w->fh, &w->fh2, w->name, w->namelen, &av, &at, &w->wcc);
		break;
	case NFS4_WORK_SETATTR:
		w->status = nfs_fs_setattr(ctx, &w->fh, &w->sa, NULL, &w->wcc);
		break;
	case NFS4_WORK_LOOKUP:
		w->status = nfs_fs_lookup(ctx, &w->fh, w->name, w->namelen, &w->newfh, &at,
					  &w->dir_valid, &dir);
		if (w->dir_valid)
			w->dirtype = dir.type;
		break;
	case NFS4_WORK_READDIR:
		readdir_run(c, w);
		break;
	case NFS4_WORK_READLINK:
		w->status = nfs_fs_readlink(ctx, &w->fh, (char *)w->dest, NFS_PATH_MAX, &w->done,
					    &av, &at);
		break;
	case NFS4_WORK_OPEN:
		nfs4_open_run(c, w);
		break;
	case NFS4_WORK_SPACE:
		w->status = nfs_fs_allocate(ctx, &w->fh, w->offset, w->len64, w->flag);
		break;
	case NFS4_WORK_SEEK:
		w->status = nfs_fs_seek(ctx, &w->fh, w->offset, w->flag, &w->result64, &w->eof);
		break;
	case NFS4_WORK_COPY:
		w->status = nfs_fs_copy(ctx, &w->fh, w->offset, &w->fh2, w->offset2, w->len64,
					NFS4_COPY_SYNC_MAX, &w->result64);
		break;
	case NFS4_WORK_CLONE:
		w->status = nfs_fs_clone(ctx, &w->fh, w->offset, &w->fh2, w->offset2, w->len64);
		break;
	default:
		w->status = NFS_ERR_SERVERFAULT;
		break;
	}
}

/* the answer of a failed work: as nfs4_stat_from_nfs, but for what an operation says itself */
static uint32_t work_error(const struct nfs4_work *w)
{
	/* LOOKUP in a non-directory: NOTDIR, or SYMLINK for a symbolic link (RFC 8881
	 * §18.13.3) */
	if (w->kind == NFS4_WORK_LOOKUP && w->status == NFS_ERR_NOTDIR && w->dir_valid)
		return w->dirtype == NFS_LNK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	/* READLINK of something that is not a link */
	if (w->kind == NFS4_WORK_READLINK && w->status == NFS_ERR_INVAL)
		return NFS4ERR_INVAL;
	return nfs4_stat_from_nfs(w->status);
}

uint32_t nfs4_work_end(struct nfs4_compound *c, union nfs4_op_resok *r)
{
	const struct nfs4_work *w = &c->work;

	if (w->status != NFS_OK)
		return work_error(w);
	switch (w->kind) {
	case NFS4_WORK_READ:
		r->read.data = (struct nfs4_ref){w->dest, w->done};
		r->read.eof = w->eof;
		r->read.placed = w->placed;
		if (ddp_tail(c)) {
			c->ddp_op = (int32_t)c->opidx;
			c->ddp_len = w->done;
			c->ddp_placed = w->placed;
		}
		return NFS4_OK;
	case NFS4_WORK_WRITE:
		r->write.count = w->done;
		r->write.committed = w->committed;
		/* the verifier NFSv3's WRITE and COMMIT answer: one server, one restart story */
		nfs_fs_write_verf(c->s->fs, r->write.verf);
		return NFS4_OK;
	case NFS4_WORK_COMMIT:
		nfs_fs_write_verf(c->s->fs, r->verf);
		return NFS4_OK;
	case NFS4_WORK_CREATE:
		cinfo_of(&w->wcc, &r->create.cinfo);
		r->create.attrset = w->attrset;
		nfs4_set_cur_real(c, &w->newfh);
		return NFS4_OK;
	case NFS4_WORK_REMOVE:
	case NFS4_WORK_LINK:
		cinfo_of(&w->wcc, &r->cinfo);
		return NFS4_OK;
	case NFS4_WORK_RENAME:
		cinfo_of(&w->wcc, &r->rename.src);
		cinfo_of(&w->wcc2, &r->rename.dst);
		return NFS4_OK;
	case NFS4_WORK_SETATTR:
		r->attrsset = w->attrset;
		return NFS4_OK;
	case NFS4_WORK_LOOKUP:
		nfs4_set_cur_real(c, &w->newfh);
		return NFS4_OK;
	case NFS4_WORK_READDIR:
		memcpy(r->readdir.verf, w->verf, NFS4_VERIFIER_SIZE);
		r->readdir.entries = (struct nfs4_ref){w->dest, w->done};
		r->readdir.eof = w->eof && !w->full;
		r->readdir.nentries = w->nentries;
		return w->nentries == 0 && w->full ? NFS4ERR_TOOSMALL : NFS4_OK;
	case NFS4_WORK_READLINK:
		r->link = (struct nfs4_ref){w->dest, w->done};
		/* the link text is DDP-eligible too (RFC 8267 §4.1): a write chunk takes it,
		 * inline */
		if (ddp_tail(c)) {
			c->ddp_op = (int32_t)c->opidx;
			c->ddp_len = w->done;
			c->ddp_placed = false;
		}
		return NFS4_OK;
	case NFS4_WORK_OPEN:
		return nfs4_open_end(c, &r->open);
	case NFS4_WORK_SPACE:
	case NFS4_WORK_CLONE:
		return NFS4_OK;
	case NFS4_WORK_SEEK:
		r->seek.offset = w->result64;
		r->seek.eof = w->eof;
		return NFS4_OK;
	case NFS4_WORK_COPY:
		memset(&r->copy, 0, sizeof(r->copy));
		r->copy.count = w->result64;
		r->copy.has_callback_id = false;
		r->copy.committed = NFS_UNSTABLE;
		/* the verifier WRITE answers: a COMMIT after the copy compares against it */
		nfs_fs_write_verf(c->s->fs, r->copy.verf);
		r->copy.consecutive = true;
		r->copy.synchronous = true;
		return NFS4_OK;
	default:
		return NFS4ERR_SERVERFAULT;
	}
}

/* Another client's read delegations of fh (or of the name in dir) come back before it
 * changes: true while one is held (the operation answers DELAY) */
static bool deleg_held(struct nfs4_compound *c, const struct nfs_fh *fh)
{
	struct nfs_lock_key key;

	if (!nfs4_otab_delegs(c->s->ot))
		return false; /* WRITE's path: no key to compute while none is out */
	key.len = 16;
	if (nfs_fs_file_key(c->ctx, fh, key.b) != NFS_OK)
		return false;
	return nfs4_deleg_conflict(c->s, &key, c->sess ? c->sess->clp : NULL);
}

bool nfs4_deleg_held_name(struct nfs4_compound *c, const struct nfs_fh *dir,
			  const struct nfs4_ref *name)
{
	struct nfs_attr at, dat;
	struct nfs_fh fh;
	bool dv = false;

	if (!nfs4_otab_delegs(c->s->ot))
		return false;
	if (nfs_fs_lookup(c->ctx, dir, (const char *)name->p, name->len, &fh, &at, &dv, &dat) !=
	    NFS_OK)
		return false;
	return deleg_held(c, &fh);
}

uint32_t nfs4_op_write(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_write_args *wa = &a->write;
	struct nfs4_work *w = &c->work;
	uint32_t s = need_real(c, NFS4ERR_ISDIR);

	if (s != NFS4_OK)
		return s;
	s = nfs4_sid_check_io(c, &wa->sid, &c->cur.fh, true);
	if (s != NFS4_OK)
		return s;
	if (wa->data.len > c->s->conf.max_io)
		return NFS4ERR_INVAL;
	if (deleg_held(c, &c->cur.fh))
		return NFS4ERR_DELAY;
	w = nfs4_work_start(c, NFS4_WORK_WRITE, &c->cur.fh);
	w->offset = wa->offset;
	w->data = wa->data.p;
	w->count = wa->data.len;
	w->stable = (enum nfs_stable)wa->stable;
	return special_sid(&wa->sid) ? work_here(c, r) : nfs4_work(c, r);
}

uint32_t nfs4_op_commit(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_work *w = &c->work;
	uint32_t s = need_real(c, NFS4ERR_ISDIR);

	if (s != NFS4_OK)
		return s;
	w = nfs4_work_start(c, NFS4_WORK_COMMIT, &c->cur.fh);
	w->offset = a->commit.offset;
	w->count = a->commit.count;
	return nfs4_work(c, r);
}

/* ---- CREATE, REMOVE, RENAME, LINK ---- */

uint32_t nfs4_op_create(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_create_args *ca = &a->create;
	struct nfs4_work *w = &c->work;
	uint32_t s = need_real(c, NFS4ERR_ROFS);

	if (s != NFS4_OK)
		return s;
	s = nfs4_check_name(&ca->name);
	if (s != NFS4_OK)
		return s;
	memset(w, 0, sizeof(*w));
	s = nfs4_fattr_to_sattr(c->s, &ca->attrs, &w->sa);
	if (s != NFS4_OK)
		return s;
	switch (ca->type) {
	case NFS_DIR:
		if (!w->sa.set_mode) {
			w->sa.set_mode = true;
			w->sa.mode = 0755;
		}
		break;
	case NFS_LNK:
		if (ca->linkdata.len == 0)
			return NFS4ERR_INVAL;
		w->name2 = (const char *)ca->linkdata.p;
		w->namelen2 = ca->linkdata.len;
		break;
	case NFS_BLK:
	case NFS_CHR:
	case NFS_SOCK:
	case NFS_FIFO:
		/* as NFSv3's MKNOD: the file system (and the caller's rights) decide */
		if (!w->sa.set_mode) {
			w->sa.set_mode = true;
			w->sa.mode = 0644;
		}
		w->spec1 = ca->spec1;
		w->spec2 = ca->spec2;
		break;
	default:
		return NFS4ERR_BADTYPE; /* regular files come by OPEN; named attributes: none */
	}
	w->kind = NFS4_WORK_CREATE;
	w->ftype = (enum nfs_ftype)ca->type;
	w->fh = c->cur.fh;
	w->name = (const char *)ca->name.p;
	w->namelen = ca->name.len;
	w->attrset = ca->attrs.mask;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_remove(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const char *name = (const char *)a->name.p;
	struct nfs4_work *w = &c->work;
	struct nfs_attr obj, dir;
	bool dv = false;
	struct nfs_fh fh;
	enum nfs_stat st;
	uint32_t s = need_real(c, NFS4ERR_ROFS);

	if (s != NFS4_OK)
		return s;
	/* a file a client may still reclaim an open of stays (RFC 8881 §18.25.4, as knfsd) */
	if (nfs4_server_in_grace(c->s))
		return NFS4ERR_GRACE;
	s = nfs4_check_name(&a->name);
	if (s != NFS4_OK)
		return s;
	/* one operation for both: a directory goes by rmdir (RFC 8881 §18.25) */
	st = nfs_fs_lookup(c->ctx, &c->cur.fh, name, a->name.len, &fh, &obj, &dv, &dir);
	if (st != NFS_OK)
		return nfs4_stat_from_nfs(st);
	if (obj.type != NFS_DIR && deleg_held(c, &fh))
		return NFS4ERR_DELAY;
	w = nfs4_work_start(c, NFS4_WORK_REMOVE, &c->cur.fh);
	w->name = name;
	w->namelen = a->name.len;
	w->rmdir = obj.type == NFS_DIR;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_rename(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_rename_args *ra = &a->rename;
	struct nfs4_work *w = &c->work;
	uint32_t s;

	if (c->saved.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->saved.kind != NFS4_FH_REAL || c->cur.kind != NFS4_FH_REAL)
		return c->saved.kind == c->cur.kind ? NFS4ERR_ROFS : NFS4ERR_XDEV;
	if (nfs4_server_in_grace(c->s))
		return NFS4ERR_GRACE; /* as REMOVE */
	s = nfs4_check_name(&ra->oldname);
	if (s == NFS4_OK)
		s = nfs4_check_name(&ra->newname);
	if (s != NFS4_OK)
		return s;
	/* the file renamed, and one the new name replaces */
	if (nfs4_deleg_held_name(c, &c->saved.fh, &ra->oldname) ||
	    nfs4_deleg_held_name(c, &c->cur.fh, &ra->newname))
		return NFS4ERR_DELAY;
	w = nfs4_work_start(c, NFS4_WORK_RENAME, &c->saved.fh);
	w->name = (const char *)ra->oldname.p;
	w->namelen = ra->oldname.len;
	w->fh2 = c->cur.fh;
	w->name2 = (const char *)ra->newname.p;
	w->namelen2 = ra->newname.len;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_link(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_work *w = &c->work;
	uint32_t s;

	if (c->saved.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->saved.kind != NFS4_FH_REAL)
		return NFS4ERR_ISDIR;
	if (c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ROFS;
	s = nfs4_check_name(&a->name);
	if (s != NFS4_OK)
		return s;
	/* a new name changes the file's attributes (numlinks, ctime): as Linux's nfsd, LINK
	 * breaks read delegations */
	if (deleg_held(c, &c->saved.fh))
		return NFS4ERR_DELAY;
	w = nfs4_work_start(c, NFS4_WORK_LINK, &c->saved.fh);
	w->fh2 = c->cur.fh;
	w->name = (const char *)a->name.p;
	w->namelen = a->name.len;
	return nfs4_work(c, r);
}

/* ---- READDIR ---- */

struct rd_ctx {
	struct nfs4_compound *c;
	const struct nfs4_bitmap *want;
	XDR x;
	uint32_t limit; /**< entry bytes that fit in maxcount */
	uint32_t n;
	bool full;
};

static bool rd_entry(void *arg, const struct nfs_dirent *e)
{
	struct rd_ctx *d = arg;
	struct nfs4_ref name = {(const uint8_t *)e->name, e->namelen};
	u_int start = xdr_getpos(&d->x);
	uint64_t cookie = e->cookie;
	bool more = true;

	/* NFSv4 has no "." or ".." entries (RFC 8881 §18.23.4) */
	if ((e->namelen == 1 && e->name[0] == '.') ||
	    (e->namelen == 2 && e->name[0] == '.' && e->name[1] == '.'))
		return true;
	if (!x_bool(&d->x, &more) || !x_u64(&d->x, &cookie) ||
	    !nfs4_xdr_ref(&d->x, &name, NFS_NAME_MAX) ||
	    !nfs4_attr_entry(d->c, &e->fh, e->attr_valid && e->fh_valid ? &e->attr : NULL,
			     e->attr_valid && e->fh_valid ? NFS4_OK : NFS4ERR_SERVERFAULT, d->want,
			     &d->x) ||
	    xdr_getpos(&d->x) > d->limit) {
		xdr_setpos(&d->x, start);
		d->full = true;
		return false;
	}
	d->n++;
	return true;
}

uint32_t nfs4_op_readdir(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_readdir_args *ra = &a->readdir;
	uint32_t maxcount = ra->maxcount, limit, s;
	struct nfs4_work *w;

	/* cookies 1 and 2 are reserved (RFC 8881 §18.23.3) */
	if (ra->cookie == 1 || ra->cookie == 2)
		return NFS4ERR_BAD_COOKIE;
	if (nfs4_bit(&ra->attr_request, NFS4_A_TIME_ACCESS_SET) ||
	    nfs4_bit(&ra->attr_request, NFS4_A_TIME_MODIFY_SET))
		return NFS4ERR_INVAL;
	/* the reply within the session's limit (less its other operations' room) */
	if (c->sess && maxcount > c->sess->fore.maxresponsesize - 512)
		maxcount = c->sess->fore.maxresponsesize - 512;
	if (maxcount > c->s->conf.max_io)
		maxcount = c->s->conf.max_io;
	/* verifier, the list's end and eof take 16 bytes of maxcount */
	if (maxcount < 16 + 24)
		return NFS4ERR_TOOSMALL;
	limit = maxcount - 16;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return nfs4_readdir_pseudo(c, ra, limit, &r->readdir);
	s = need_real(c, NFS4ERR_NOTDIR);
	if (s != NFS4_OK)
		return s;
	w = nfs4_work_start(c, NFS4_WORK_READDIR, &c->cur.fh);
	w->offset = ra->cookie;
	if (ra->cookie != 0)
		memcpy(w->verf, ra->verf, NFS4_VERIFIER_SIZE);
	w->want = ra->attr_request;
	w->count = limit;
	/* a deferred READDIR gets a buffer of its own (nfs4_compound.c) */
	w->dest = c->s->iobuf;
	return nfs4_work(c, r);
}

/* the entries, encoded into w->dest as the reply's dirlist4 wants them (on any thread: the
 * attribute encoders read only the server's configuration) */
static void readdir_run(struct nfs4_compound *c, struct nfs4_work *w)
{
	struct rd_ctx d = {.c = c, .want = &w->want, .limit = w->count};
	struct nfs_attr dir;
	bool dv;

	xdrmem_create(&d.x, (char *)w->dest, w->count, XDR_ENCODE);
	w->status = nfs_fs_readdir(c->ctx, &w->fh, w->offset, w->verf, true, rd_entry, &d, &w->eof,
				   &dv, &dir);
	w->done = xdr_getpos(&d.x);
	xdr_destroy(&d.x);
	w->nentries = d.n;
	w->full = d.full;
}

/* ---- READLINK, SETATTR, VERIFY, NVERIFY ---- */

uint32_t nfs4_op_readlink(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	uint32_t s = need_real(c, NFS4ERR_INVAL);

	(void)a;
	if (s != NFS4_OK)
		return s;
	/* a deferred READLINK gets a buffer of its own (nfs4_compound.c) */
	nfs4_work_start(c, NFS4_WORK_READLINK, &c->cur.fh)->dest = c->s->iobuf;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_setattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_setattr_args *sa = &a->setattr;
	struct nfs4_work *w = &c->work;
	struct nfs_sattr set;
	uint32_t s;

	memset(&r->attrsset, 0, sizeof(r->attrsset));
	if (c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ROFS;
	s = nfs4_fattr_to_sattr(c->s, &sa->attrs, &set);
	if (s != NFS4_OK)
		return s;
	/* a size change is I/O: it needs a stateid that may write (RFC 8881 §18.30.3) */
	if (set.set_size) {
		s = nfs4_sid_check_io(c, &sa->sid, &c->cur.fh, true);
		if (s != NFS4_OK)
			return s;
		if (deleg_held(c, &c->cur.fh))
			return NFS4ERR_DELAY;
	}
	w = nfs4_work_start(c, NFS4_WORK_SETATTR, &c->cur.fh);
	w->sa = set;
	w->attrset = sa->attrs.mask;
	return set.set_size && special_sid(&sa->sid) ? work_here(c, r) : nfs4_work(c, r);
}

/* Do the current object's attributes equal what fattr4 f says? (VERIFY's comparison: the
 * attributes encoded as GETATTR would, byte for byte, as Linux's nfsd compares them) */
static uint32_t same_attrs(struct nfs4_compound *c, const struct nfs4_fattr *f, bool *same)
{
	struct nfs4_bitmap sup, mask;
	uint32_t len = 0, s;

	nfs4_supported_attrs(&sup);
	for (uint32_t w = 0; w < f->mask.n; w++)
		if (f->mask.w[w] & ~(w < sup.n ? sup.w[w] : 0))
			return NFS4ERR_ATTRNOTSUPP;
	if (nfs4_bit(&f->mask, NFS4_A_RDATTR_ERROR) || nfs4_bit(&f->mask, NFS4_A_TIME_ACCESS_SET) ||
	    nfs4_bit(&f->mask, NFS4_A_TIME_MODIFY_SET))
		return NFS4ERR_INVAL;
	s = nfs4_attr_encode(c, &f->mask, &mask, c->s->attrbuf, sizeof(c->s->attrbuf), &len);
	if (s != NFS4_OK)
		return s;
	*same = len == f->vals.len && memcmp(c->s->attrbuf, f->vals.p, len) == 0;
	return NFS4_OK;
}

uint32_t nfs4_op_verify(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	bool same = false;
	uint32_t s = same_attrs(c, &a->verify, &same);

	(void)r;
	if (s != NFS4_OK)
		return s;
	return same ? NFS4_OK : NFS4ERR_NOT_SAME;
}

uint32_t nfs4_op_nverify(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	bool same = false;
	uint32_t s = same_attrs(c, &a->verify, &same);

	(void)r;
	if (s != NFS4_OK)
		return s;
	return same ? NFS4ERR_SAME : NFS4_OK;
}
