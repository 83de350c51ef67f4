/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_v42.c - the NFSv4.2 operations served (RFC 7862 §15), on the backend's space and copy
 * calls (nfs/fs/nfs_fs_io.c), reached only in compounds of minor version 2:
 * - ALLOCATE (§15.1) and DEALLOCATE (§15.4): fallocate, mode 0 and PUNCH_HOLE | KEEP_SIZE;
 *   the stateid must allow writing, as WRITE's.
 * - SEEK (§15.11): the next data or hole by lseek SEEK_DATA / SEEK_HOLE; the stateid must
 *   allow reading; an offset at or past the end is NXIO.
 * - COPY (§15.2): intra-server only (a ca_source_server is NOTSUPP), always synchronous
 *   (wr_callback_id empty, cr_consecutive and cr_synchronous true, whatever ca_synchronous
 *   asks: §15.2.3 lets the server choose), by copy_file_range from SAVED_FH (read by
 *   ca_src_stateid) to CURRENT_FH (written by ca_dst_stateid), UNSTABLE4 with WRITE's verifier.
 *   One COPY copies at most NFS4_COPY_SYNC_MAX bytes, as Linux's nfsd caps synchronous copies
 *   so one does not hold a server thread for long: a short count is a valid answer, and the
 *   client copies the rest with another COPY.
 * - CLONE (§15.13): FICLONERANGE, NOTSUPP where the file system cannot reflink.
 * No attribute of 4.2's is served, so supported_attrs is unchanged.
 */
#include "nfs4_int.h"

/* the current handle names a file of an export: the pseudo file system has directories only */
static uint32_t need_real(const struct nfs4_compound *c)
{
	return c->cur.kind == NFS4_FH_REAL ? NFS4_OK : NFS4ERR_ISDIR;
}

static uint32_t space(struct nfs4_compound *c, const struct nfs4_alloc_args *l, bool punch,
		      union nfs4_op_resok *r)
{
	struct nfs4_work *w;
	uint32_t s = need_real(c);

	if (s != NFS4_OK)
		return s;
	s = nfs4_sid_check_io(c, &l->sid, &c->cur.fh, true);
	if (s != NFS4_OK)
		return s;
	w = nfs4_work_start(c, NFS4_WORK_SPACE, &c->cur.fh);
	w->offset = l->offset;
	w->len64 = l->length;
	w->flag = punch;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_allocate(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	return space(c, &a->alloc, false, r);
}

uint32_t nfs4_op_deallocate(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	return space(c, &a->alloc, true, r);
}

uint32_t nfs4_op_seek(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_seek_args *k = &a->seek;
	struct nfs4_work *w;
	uint32_t s = need_real(c);

	if (s != NFS4_OK)
		return s;
	s = nfs4_sid_check_io(c, &k->sid, &c->cur.fh, false);
	if (s != NFS4_OK)
		return s;
	w = nfs4_work_start(c, NFS4_WORK_SEEK, &c->cur.fh);
	w->offset = k->offset;
	w->flag = k->what == NFS4_CONTENT_HOLE;
	return nfs4_work(c, r);
}

/* COPY's and CLONE's handles and stateids: the source is SAVED_FH, read by src; the
 * destination CURRENT_FH, written by dst (RFC 7862 §15.2.3, §15.13.3) */
static uint32_t xfer_check(struct nfs4_compound *c, const struct nfs4_stateid *src,
			   const struct nfs4_stateid *dst)
{
	uint32_t s;

	if (c->saved.kind != NFS4_FH_REAL || c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ISDIR;
	s = nfs4_sid_check_io(c, src, &c->saved.fh, false);
	if (s == NFS4_OK)
		s = nfs4_sid_check_io(c, dst, &c->cur.fh, true);
	return s;
}

/* COPY's or CLONE's file work: count bytes from SAVED_FH at src to CURRENT_FH at dst */
static uint32_t xfer_work(struct nfs4_compound *c, enum nfs4_work_kind kind, uint64_t src,
			  uint64_t dst, uint64_t count, union nfs4_op_resok *r)
{
	struct nfs4_work *w = nfs4_work_start(c, kind, &c->saved.fh);

	w->offset = src;
	w->fh2 = c->cur.fh;
	w->offset2 = dst;
	w->len64 = count;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_copy(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_copy_args *k = &a->copy;
	uint32_t s;

	/* an inter-server copy (§4) would need COPY_NOTIFY and a client of the source server */
	if (k->source_server.count != 0)
		return NFS4ERR_NOTSUPP;
	s = xfer_check(c, &k->src_sid, &k->dst_sid);
	if (s != NFS4_OK)
		return s;
	return xfer_work(c, NFS4_WORK_COPY, k->src_offset, k->dst_offset, k->count, r);
}

uint32_t nfs4_op_clone(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_clone_args *k = &a->clone;
	uint32_t s;

	s = xfer_check(c, &k->src_sid, &k->dst_sid);
	if (s != NFS4_OK)
		return s;
	return xfer_work(c, NFS4_WORK_CLONE, k->src_offset, k->dst_offset, k->count, r);
}
