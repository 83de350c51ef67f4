/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_xdr_file.c - the arguments and results of NFSv4.1's state and file operations (OPEN,
 * CLOSE, OPEN_DOWNGRADE, READ, WRITE, COMMIT, CREATE, REMOVE, RENAME, LINK, READDIR, READLINK,
 * SETATTR, VERIFY, NVERIFY, LOCK, LOCKT, LOCKU, TEST_STATEID, FREE_STATEID) and NFSv4.2's
 * (ALLOCATE, DEALLOCATE, SEEK, COPY, CLONE), both directions, as RFC 8881 §18 and RFC 7862
 * §15 lay them out. The operation table (nfs4_ops.c) names each routine.
 *
 * Decoder limits, beyond nfs4_xdr.h's: WRITE data NFS4_IO_DECODE_MAX bytes (the session's
 * ca_maxrequestsize is what really bounds it); linktext4 NFS_PATH_MAX; fattr4's attrlist4
 * NFS4_ATTRVALS_MAX; TEST_STATEID NFS4_TEST_STATEID_MAX stateids; owners NFS4_OPAQUE_LIMIT;
 * enums (createmode, claim, locktype, stable_how, createtype, data_content4) their defined
 * values; COPY's ca_source_server NFS4_NETLOC_MAX netloc4s of NFS4_OPAQUE_LIMIT strings. Decoding a
 * READDIR reply walks every entry4 (name and fattr4 limits as above) and keeps them as bytes.
 */
#include <string.h>

#include "nfs4_int.h"
#include "nfs_xdr_prim.h"

bool_t nfs4_xdr_stateid(XDR *x, struct nfs4_stateid *s)
{
	return x_u32(x, &s->seqid) && x_fixed(x, s->other, sizeof(s->other));
}

bool_t nfs4_xdr_fattr(XDR *x, struct nfs4_fattr *f)
{
	return nfs4_xdr_bitmap(x, &f->mask) && nfs4_xdr_ref(x, &f->vals, NFS4_ATTRVALS_MAX);
}

static bool_t x_cinfo(XDR *x, struct nfs4_cinfo *c)
{
	return x_bool(x, &c->atomic) && x_u64(x, &c->before) && x_u64(x, &c->after);
}

static bool_t x_name(XDR *x, struct nfs4_ref *r)
{
	return nfs4_xdr_ref(x, r, NFS4_NAME_DECODE_MAX);
}

static bool_t x_lock_owner(XDR *x, struct nfs4_lock_owner *o)
{
	return x_u64(x, &o->clientid) && nfs4_xdr_ref(x, &o->owner, NFS4_OPAQUE_LIMIT);
}

/* ---- arguments ---- */

/* openflag4 and createhow4 */
static bool_t x_openhow(XDR *x, struct nfs4_open_args *o)
{
	if (!x_enum(x, &o->opentype, OPEN4_CREATE))
		return FALSE;
	if (o->opentype == OPEN4_NOCREATE)
		return TRUE;
	if (!x_enum(x, &o->createmode, EXCLUSIVE4_1))
		return FALSE;
	switch (o->createmode) {
	case UNCHECKED4:
	case GUARDED4:
		return nfs4_xdr_fattr(x, &o->attrs);
	case EXCLUSIVE4:
		return x_fixed(x, o->verf, NFS4_VERIFIER_SIZE);
	default: /* creatverfattr */
		return x_fixed(x, o->verf, NFS4_VERIFIER_SIZE) && nfs4_xdr_fattr(x, &o->attrs);
	}
}

static bool_t x_claim(XDR *x, struct nfs4_open_args *o)
{
	if (!x_enum(x, &o->claim, CLAIM_DELEG_CUR_FH))
		return FALSE;
	switch (o->claim) {
	case CLAIM_NULL:
	case CLAIM_DELEGATE_PREV:
		return x_name(x, &o->name);
	case CLAIM_PREVIOUS:
		return x_enum(x, &o->deleg_type, OPEN_DELEGATE_NONE_EXT);
	case CLAIM_DELEGATE_CUR:
		return nfs4_xdr_stateid(x, &o->deleg_sid) && x_name(x, &o->name);
	case CLAIM_DELEG_CUR_FH:
		return nfs4_xdr_stateid(x, &o->deleg_sid);
	default: /* CLAIM_FH, CLAIM_DELEG_PREV_FH */
		return TRUE;
	}
}

bool_t nfs4_xdr_open_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_open_args *o = &a->open;

	return x_u32(x, &o->seqid) && x_u32(x, &o->share_access) && x_u32(x, &o->share_deny) &&
	       x_u64(x, &o->clientid) && nfs4_xdr_ref(x, &o->owner, NFS4_OPAQUE_LIMIT) &&
	       x_openhow(x, o) && x_claim(x, o);
}

bool_t nfs4_xdr_close_args(XDR *x, union nfs4_op_args *a)
{
	return x_u32(x, &a->close.seqid) && nfs4_xdr_stateid(x, &a->close.sid);
}

bool_t nfs4_xdr_downgrade_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_downgrade_args *d = &a->downgrade;

	return nfs4_xdr_stateid(x, &d->sid) && x_u32(x, &d->seqid) && x_u32(x, &d->share_access) &&
	       x_u32(x, &d->share_deny);
}

bool_t nfs4_xdr_read_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_stateid(x, &a->read.sid) && x_u64(x, &a->read.offset) &&
	       x_u32(x, &a->read.count);
}

bool_t nfs4_xdr_write_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_write_args *w = &a->write;

	return nfs4_xdr_stateid(x, &w->sid) && x_u64(x, &w->offset) &&
	       x_enum(x, &w->stable, NFS_FILE_SYNC) &&
	       nfs4_xdr_ref(x, &w->data, NFS4_IO_DECODE_MAX);
}

bool_t nfs4_xdr_commit_args(XDR *x, union nfs4_op_args *a)
{
	return x_u64(x, &a->commit.offset) && x_u32(x, &a->commit.count);
}

bool_t nfs4_xdr_create_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_create_args *c = &a->create;

	if (!x_u32(x, &c->type) || c->type < NFS_REG || c->type > NF4NAMEDATTR)
		return FALSE;
	switch (c->type) {
	case NFS_LNK:
		if (!nfs4_xdr_ref(x, &c->linkdata, NFS_PATH_MAX))
			return FALSE;
		break;
	case NFS_BLK:
	case NFS_CHR:
		if (!x_u32(x, &c->spec1) || !x_u32(x, &c->spec2))
			return FALSE;
		break;
	default:
		break;
	}
	return x_name(x, &c->name) && nfs4_xdr_fattr(x, &c->attrs);
}

bool_t nfs4_xdr_rename_args(XDR *x, union nfs4_op_args *a)
{
	return x_name(x, &a->rename.oldname) && x_name(x, &a->rename.newname);
}

bool_t nfs4_xdr_readdir_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_readdir_args *r = &a->readdir;

	return x_u64(x, &r->cookie) && x_fixed(x, r->verf, NFS4_VERIFIER_SIZE) &&
	       x_u32(x, &r->dircount) && x_u32(x, &r->maxcount) &&
	       nfs4_xdr_bitmap(x, &r->attr_request);
}

bool_t nfs4_xdr_setattr_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_stateid(x, &a->setattr.sid) && nfs4_xdr_fattr(x, &a->setattr.attrs);
}

bool_t nfs4_xdr_verify_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_fattr(x, &a->verify);
}

static bool_t x_locktype(XDR *x, uint32_t *t)
{
	return x_enum(x, t, WRITEW_LT) && *t >= READ_LT;
}

bool_t nfs4_xdr_lock_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_lock_args *l = &a->lock;

	if (!x_locktype(x, &l->type) || !x_bool(x, &l->reclaim) || !x_u64(x, &l->offset) ||
	    !x_u64(x, &l->length) || !x_bool(x, &l->new_owner))
		return FALSE;
	if (l->new_owner)
		return x_u32(x, &l->open_seqid) && nfs4_xdr_stateid(x, &l->open_sid) &&
		       x_u32(x, &l->lock_seqid) && x_lock_owner(x, &l->lock_owner);
	return nfs4_xdr_stateid(x, &l->lock_sid) && x_u32(x, &l->lock_seqid);
}

bool_t nfs4_xdr_lockt_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_lockt_args *l = &a->lockt;

	return x_locktype(x, &l->type) && x_u64(x, &l->offset) && x_u64(x, &l->length) &&
	       x_lock_owner(x, &l->owner);
}

bool_t nfs4_xdr_locku_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_locku_args *l = &a->locku;

	return x_locktype(x, &l->type) && x_u32(x, &l->seqid) && nfs4_xdr_stateid(x, &l->sid) &&
	       x_u64(x, &l->offset) && x_u64(x, &l->length);
}

bool_t nfs4_xdr_test_stateid_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_test_stateid_args *t = &a->test_stateid;

	if (!x_u32(x, &t->n) || t->n > NFS4_TEST_STATEID_MAX)
		return FALSE;
	if (x->x_op == XDR_ENCODE)
		return t->raw.len == t->n * 16u &&
		       xdr_opaque(x, (char *)(uintptr_t)t->raw.p, t->raw.len);
	/* n stateids, 16 bytes each, kept as bytes */
	t->raw.len = t->n * 16u;
	if (x->x_handy < t->raw.len)
		return FALSE;
	t->raw.p = (const uint8_t *)x->x_base + xdr_getpos(x);
	return xdr_setpos(x, xdr_getpos(x) + t->raw.len);
}

bool_t nfs4_xdr_stateid_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_stateid(x, &a->sid);
}

/* NFSv4.2 (RFC 7862 §15) */

bool_t nfs4_xdr_alloc_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_alloc_args *l = &a->alloc;

	return nfs4_xdr_stateid(x, &l->sid) && x_u64(x, &l->offset) && x_u64(x, &l->length);
}

bool_t nfs4_xdr_seek_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_seek_args *k = &a->seek;

	return nfs4_xdr_stateid(x, &k->sid) && x_u64(x, &k->offset) &&
	       x_enum(x, &k->what, NFS4_CONTENT_HOLE);
}

#define NL4_NAME 1u
#define NL4_URL 2u
#define NL4_NETADDR 3u

/* netloc4 (RFC 7862 §4.3): validated, not kept (inter-server copy is not served) */
static bool_t netloc_elem(XDR *x)
{
	struct nfs4_ref r = {0};
	uint32_t t;

	if (!x_u32(x, &t) || t < NL4_NAME || t > NL4_NETADDR)
		return FALSE;
	if (!nfs4_xdr_ref(x, &r, NFS4_OPAQUE_LIMIT))
		return FALSE;
	/* netaddr4: na_r_netid, then na_r_addr */
	return t != NL4_NETADDR || nfs4_xdr_ref(x, &r, NFS4_OPAQUE_LIMIT);
}

bool_t nfs4_xdr_copy_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_copy_args *k = &a->copy;

	return nfs4_xdr_stateid(x, &k->src_sid) && nfs4_xdr_stateid(x, &k->dst_sid) &&
	       x_u64(x, &k->src_offset) && x_u64(x, &k->dst_offset) && x_u64(x, &k->count) &&
	       x_bool(x, &k->consecutive) && x_bool(x, &k->synchronous) &&
	       nfs4_xdr_raw(x, &k->source_server, NFS4_NETLOC_MAX, netloc_elem);
}

bool_t nfs4_xdr_clone_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_clone_args *k = &a->clone;

	return nfs4_xdr_stateid(x, &k->src_sid) && nfs4_xdr_stateid(x, &k->dst_sid) &&
	       x_u64(x, &k->src_offset) && x_u64(x, &k->dst_offset) && x_u64(x, &k->count);
}

/* ---- results ---- */

bool_t nfs4_xdr_open_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_open_res *o = &r->open;

	if (!nfs4_xdr_stateid(x, &o->sid) || !x_cinfo(x, &o->cinfo) || !x_u32(x, &o->rflags) ||
	    !nfs4_xdr_bitmap(x, &o->attrset))
		return FALSE;
	if (!x_enum(x, &o->deleg_type, OPEN_DELEGATE_NONE_EXT))
		return FALSE;
	if (o->deleg_type == OPEN_DELEGATE_READ) {
		/* open_read_delegation4: stateid, recall, then an nfsace4 as Linux's nfsd sends
		 * it: ACCESS_ALLOWED (0), no flag, no mask, an empty who */
		uint32_t ace[3] = {0, 0, 0};
		struct nfs4_ref who = {NULL, 0};

		return nfs4_xdr_stateid(x, &o->deleg_sid) && x_bool(x, &o->recall) &&
		       x_u32(x, &ace[0]) && x_u32(x, &ace[1]) && x_u32(x, &ace[2]) &&
		       nfs4_xdr_ref(x, &who, NFS4_OPAQUE_LIMIT);
	}
	if (o->deleg_type == OPEN_DELEGATE_NONE_EXT) {
		bool b = false;

		if (!x_u32(x, &o->why_no_deleg))
			return FALSE;
		if (o->why_no_deleg == WND4_CONTENTION || o->why_no_deleg == WND4_RESOURCE)
			return x_bool(x, &b);
		return TRUE;
	}
	return o->deleg_type == OPEN_DELEGATE_NONE;
}

bool_t nfs4_xdr_stateid_res(XDR *x, union nfs4_op_resok *r)
{
	return nfs4_xdr_stateid(x, &r->sid);
}

bool_t nfs4_xdr_read_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_read_res *d = &r->read;

	if (!x_bool(x, &d->eof))
		return FALSE;
	/* placed data (RFC 8267 §4.2, READ's opaque is DDP-eligible): the length word alone,
	 * the content goes by the write chunk */
	if (x->x_op == XDR_ENCODE && d->placed)
		return x_u32(x, &d->data.len);
	return nfs4_xdr_ref(x, &d->data, NFS4_IO_DECODE_MAX);
}

bool_t nfs4_xdr_write_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_write_res *w = &r->write;

	return x_u32(x, &w->count) && x_enum(x, &w->committed, NFS_FILE_SYNC) &&
	       x_fixed(x, w->verf, NFS4_VERIFIER_SIZE);
}

bool_t nfs4_xdr_commit_res(XDR *x, union nfs4_op_resok *r)
{
	return x_fixed(x, r->verf, NFS4_VERIFIER_SIZE);
}

bool_t nfs4_xdr_create_res(XDR *x, union nfs4_op_resok *r)
{
	return x_cinfo(x, &r->create.cinfo) && nfs4_xdr_bitmap(x, &r->create.attrset);
}

bool_t nfs4_xdr_cinfo_res(XDR *x, union nfs4_op_resok *r)
{
	return x_cinfo(x, &r->cinfo);
}

bool_t nfs4_xdr_rename_res(XDR *x, union nfs4_op_resok *r)
{
	return x_cinfo(x, &r->rename.src) && x_cinfo(x, &r->rename.dst);
}

bool_t nfs4_xdr_readdir_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_readdir_res *d = &r->readdir;
	bool more = false;
	u_int start;

	if (!x_fixed(x, d->verf, NFS4_VERIFIER_SIZE))
		return FALSE;
	if (x->x_op == XDR_ENCODE) {
		/* the entries were encoded by the handler, each with its value-follows word */
		if (d->entries.len % 4 ||
		    !xdr_opaque(x, (char *)(uintptr_t)d->entries.p, d->entries.len))
			return FALSE;
		return x_bool(x, &more) && x_bool(x, &d->eof);
	}
	start = xdr_getpos(x);
	d->nentries = 0;
	for (;;) {
		struct nfs4_ref name;
		struct nfs4_fattr fa;
		uint64_t cookie;
		u_int pos = xdr_getpos(x);

		if (!x_bool(x, &more))
			return FALSE;
		if (!more) {
			d->entries.p = (const uint8_t *)x->x_base + start;
			d->entries.len = pos - start;
			break;
		}
		if (!x_u64(x, &cookie) || !x_name(x, &name) || !nfs4_xdr_fattr(x, &fa))
			return FALSE;
		d->nentries++;
	}
	return x_bool(x, &d->eof);
}

bool_t nfs4_xdr_readlink_res(XDR *x, union nfs4_op_resok *r)
{
	return nfs4_xdr_ref(x, &r->link, NFS_PATH_MAX);
}

bool_t nfs4_xdr_setattr_res(XDR *x, uint32_t status, union nfs4_op_resok *r)
{
	(void)status; /* SETATTR4res carries attrsset whatever the status (RFC 8881 §18.30) */
	return nfs4_xdr_bitmap(x, &r->attrsset);
}

bool_t nfs4_xdr_lock_denied(XDR *x, uint32_t status, union nfs4_op_resok *r)
{
	struct nfs4_lock_denied *d = &r->denied;

	if (status != NFS4ERR_DENIED)
		return TRUE;
	return x_u64(x, &d->offset) && x_u64(x, &d->length) && x_locktype(x, &d->type) &&
	       x_lock_owner(x, &d->owner);
}

bool_t nfs4_xdr_test_stateid_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_test_stateid_res *t = &r->test_stateid;

	if (!x_u32(x, &t->n) || t->n > NFS4_TEST_STATEID_MAX)
		return FALSE;
	for (uint32_t i = 0; i < t->n; i++)
		if (!x_u32(x, &t->status[i]))
			return FALSE;
	return TRUE;
}

bool_t nfs4_xdr_seek_res(XDR *x, union nfs4_op_resok *r)
{
	return x_bool(x, &r->seek.eof) && x_u64(x, &r->seek.offset);
}

bool_t nfs4_xdr_copy_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_copy_res *k = &r->copy;
	uint32_t n = x->x_op == XDR_ENCODE && k->has_callback_id ? 1u : 0u;

	/* write_response4: wr_callback_id<1>, wr_count, wr_committed, wr_writeverf */
	if (!x_u32(x, &n) || n > 1)
		return FALSE;
	k->has_callback_id = n == 1;
	if (n == 1 && !nfs4_xdr_stateid(x, &k->callback_id))
		return FALSE;
	return x_u64(x, &k->count) && x_enum(x, &k->committed, NFS_FILE_SYNC) &&
	       x_fixed(x, k->verf, NFS4_VERIFIER_SIZE) && x_bool(x, &k->consecutive) &&
	       x_bool(x, &k->synchronous);
}
