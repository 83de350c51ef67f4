/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_xdr.c - NFSv4.1 COMPOUND arguments and results (nfs4_xdr.h), both directions. The
 * primitives (words, strict bools, opaques by reference) are nfs/xdr's (nfs_xdr_prim.h);
 * RFC 8881 §16.2.3 and §18 give every layout below. Which routine an opcode uses is the
 * operation table's business (nfs4_ops.c): nfs4_xdr_argop and nfs4_xdr_resop ask it.
 */
#include <string.h>

#include "nfs4_int.h"
#include "nfs_xdr_prim.h"

#define IMPL_STR_MAX 1024u
#define OID_MAX 1024u
#define MACHNAME_MAX 255u
#define GSS_HANDLE_MAX 1024u
#define AUTH_SYS_GIDS_MAX 16u
#define RPCSEC_GSS_FLAVOR 6u

bool_t nfs4_xdr_ref(XDR *x, struct nfs4_ref *r, uint32_t max)
{
	const void *p = r->p;

	if (!x_ref(x, &p, &r->len, max))
		return FALSE;
	r->p = p;
	return TRUE;
}

static bool_t x_fixed4(XDR *x, uint8_t *b, uint32_t n)
{
	return x_fixed(x, b, n);
}

bool_t nfs4_xdr_bitmap(XDR *x, struct nfs4_bitmap *b)
{
	if (!x_u32(x, &b->n) || b->n > NFS4_BITMAP_DECODE_MAX)
		return FALSE;
	for (uint32_t i = 0; i < b->n; i++)
		if (!x_u32(x, &b->w[i]))
			return FALSE;
	return TRUE;
}

bool_t nfs4_xdr_time(XDR *x, struct nfs4_time *t)
{
	/* nfstime4: int64 seconds, uint32 nanoseconds (RFC 8881 §3.3.1) */
	uint64_t s = (uint64_t)t->sec;

	if (!x_u64(x, &s) || !x_u32(x, &t->nsec))
		return FALSE;
	t->sec = (int64_t)s;
	return TRUE;
}

/* an array of at most one element: present or not */
static bool_t x_opt(XDR *x, bool *present)
{
	/* *present is read only to encode: decoding, it may hold anything (as x_bool) */
	uint32_t n = x->x_op == XDR_ENCODE && *present ? 1u : 0u;

	if (!x_u32(x, &n) || n > 1)
		return FALSE;
	*present = n == 1;
	return TRUE;
}

bool_t nfs4_xdr_chan_attrs(XDR *x, struct nfs4_chan_attrs *c)
{
	return x_u32(x, &c->headerpadsize) && x_u32(x, &c->maxrequestsize) &&
	       x_u32(x, &c->maxresponsesize) && x_u32(x, &c->maxresponsesize_cached) &&
	       x_u32(x, &c->maxoperations) && x_u32(x, &c->maxrequests) &&
	       x_opt(x, &c->has_rdma_ird) && (!c->has_rdma_ird || x_u32(x, &c->rdma_ird));
}

static bool_t x_impl_id(XDR *x, bool *present, struct nfs4_impl_id *id)
{
	if (!x_opt(x, present))
		return FALSE;
	if (!*present)
		return TRUE;
	return nfs4_xdr_ref(x, &id->domain, IMPL_STR_MAX) &&
	       nfs4_xdr_ref(x, &id->name, IMPL_STR_MAX) && nfs4_xdr_time(x, &id->date);
}

/*
 * (nfs4_xdr.h) A raw array: decoding walks each element with elem() to validate it and to find where the
 * array ends, and keeps count and the elements' bytes; encoding writes them back as they were.
 */
bool_t nfs4_xdr_raw(XDR *x, struct nfs4_raw *r, uint32_t max, bool_t (*elem)(XDR *x))
{
	u_int start;

	if (!x_u32(x, &r->count) || r->count > max)
		return FALSE;
	if (x->x_op == XDR_ENCODE)
		return r->bytes.len % 4 == 0 &&
		       xdr_opaque(x, (char *)(uintptr_t)r->bytes.p, r->bytes.len);
	start = xdr_getpos(x);
	for (uint32_t i = 0; i < r->count; i++)
		if (!elem(x))
			return FALSE;
	r->bytes.len = xdr_getpos(x) - start;
	/* xdrmem keeps x_base at the buffer's start (x_ref relies on the same) */
	r->bytes.p = (const uint8_t *)x->x_base + start;
	return TRUE;
}

static bool_t skip_opaque(XDR *x, uint32_t max)
{
	struct nfs4_ref r = {0};

	return nfs4_xdr_ref(x, &r, max);
}

static bool_t oid_elem(XDR *x)
{
	return skip_opaque(x, OID_MAX);
}

/* callback_sec_parms4 (RFC 8881 §18.36.1) */
static bool_t cb_sec_elem(XDR *x)
{
	uint32_t flavor, w, n;

	if (!x_u32(x, &flavor))
		return FALSE;
	switch (flavor) {
	case AUTH_NONE:
		return TRUE;
	case AUTH_SYS: /* authsys_parms: stamp, machinename<255>, uid, gid, gids<16> */
		if (!x_u32(x, &w) || !skip_opaque(x, MACHNAME_MAX) || !x_u32(x, &w) ||
		    !x_u32(x, &w) || !x_u32(x, &n) || n > AUTH_SYS_GIDS_MAX)
			return FALSE;
		for (uint32_t i = 0; i < n; i++)
			if (!x_u32(x, &w))
				return FALSE;
		return TRUE;
	case RPCSEC_GSS_FLAVOR: /* gss_cb_handles4: service, two handles */
		return x_enum(x, &w, 3) && w >= 1 && skip_opaque(x, GSS_HANDLE_MAX) &&
		       skip_opaque(x, GSS_HANDLE_MAX);
	default:
		return FALSE;
	}
}

/* ---- arguments ---- */

bool_t nfs4_xdr_access_args(XDR *x, union nfs4_op_args *a)
{
	return x_u32(x, &a->access);
}

bool_t nfs4_xdr_getattr_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_bitmap(x, &a->getattr);
}

bool_t nfs4_xdr_lookup_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_ref(x, &a->name, NFS4_NAME_DECODE_MAX);
}

bool_t nfs4_xdr_putfh_args(XDR *x, union nfs4_op_args *a)
{
	return nfs4_xdr_ref(x, &a->fh, NFS4_FHSIZE);
}

bool_t nfs4_xdr_secinfo_no_name_args(XDR *x, union nfs4_op_args *a)
{
	return x_enum(x, &a->secinfo_style, SECINFO_STYLE4_PARENT);
}

bool_t nfs4_xdr_exchange_id_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_exchange_id_args *e = &a->exid;

	if (!x_fixed4(x, e->verifier, NFS4_VERIFIER_SIZE) ||
	    !nfs4_xdr_ref(x, &e->ownerid, NFS4_OPAQUE_LIMIT) || !x_u32(x, &e->flags) ||
	    !x_enum(x, &e->sp_how, SP4_SSV))
		return FALSE;
	switch (e->sp_how) {
	case SP4_NONE:
		break;
	case SP4_MACH_CRED:
		if (!nfs4_xdr_bitmap(x, &e->must_enforce) || !nfs4_xdr_bitmap(x, &e->must_allow))
			return FALSE;
		break;
	default: /* ssv_sp_parms4 */
		if (!nfs4_xdr_bitmap(x, &e->must_enforce) || !nfs4_xdr_bitmap(x, &e->must_allow) ||
		    !nfs4_xdr_raw(x, &e->ssv_hash_algs, NFS4_SSV_ALGS_MAX, oid_elem) ||
		    !nfs4_xdr_raw(x, &e->ssv_encr_algs, NFS4_SSV_ALGS_MAX, oid_elem) ||
		    !x_u32(x, &e->ssv_window) || !x_u32(x, &e->ssv_num_gss_handles))
			return FALSE;
		break;
	}
	return x_impl_id(x, &e->has_impl_id, &e->impl_id);
}

bool_t nfs4_xdr_create_session_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_create_session_args *c = &a->csess;

	return x_u64(x, &c->clientid) && x_u32(x, &c->sequence) && x_u32(x, &c->flags) &&
	       nfs4_xdr_chan_attrs(x, &c->fore) && nfs4_xdr_chan_attrs(x, &c->back) &&
	       x_u32(x, &c->cb_program) &&
	       nfs4_xdr_raw(x, &c->sec_parms, NFS4_CB_SEC_MAX, cb_sec_elem);
}

bool_t nfs4_xdr_bc_ctl_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_bc_ctl_args *b = &a->bc_ctl;

	return x_u32(x, &b->cb_program) &&
	       nfs4_xdr_raw(x, &b->sec_parms, NFS4_CB_SEC_MAX, cb_sec_elem);
}

bool_t nfs4_xdr_sessionid_args(XDR *x, union nfs4_op_args *a)
{
	return x_fixed4(x, a->sessionid, NFS4_SESSIONID_SIZE);
}

bool_t nfs4_xdr_sequence_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_sequence_args *s = &a->seq;

	return x_fixed4(x, s->sessionid, NFS4_SESSIONID_SIZE) && x_u32(x, &s->sequenceid) &&
	       x_u32(x, &s->slotid) && x_u32(x, &s->highest_slotid) && x_bool(x, &s->cachethis);
}

bool_t nfs4_xdr_clientid_args(XDR *x, union nfs4_op_args *a)
{
	return x_u64(x, &a->clientid);
}

bool_t nfs4_xdr_reclaim_complete_args(XDR *x, union nfs4_op_args *a)
{
	return x_bool(x, &a->one_fs);
}

static bool_t x_cdfc(XDR *x, uint32_t *d)
{
	if (!x_u32(x, d))
		return FALSE;
	return *d == CDFC4_FORE || *d == CDFC4_BACK || *d == CDFC4_FORE_OR_BOTH ||
	       *d == CDFC4_BACK_OR_BOTH;
}

bool_t nfs4_xdr_bind_conn_args(XDR *x, union nfs4_op_args *a)
{
	struct nfs4_bind_conn_args *b = &a->bind;

	return x_fixed4(x, b->sessionid, NFS4_SESSIONID_SIZE) && x_cdfc(x, &b->dir) &&
	       x_bool(x, &b->rdma_mode);
}

/* ---- results ---- */

bool_t nfs4_xdr_exchange_id_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_exchange_id_res *e = &r->exid;

	if (!x_u64(x, &e->clientid) || !x_u32(x, &e->sequenceid) || !x_u32(x, &e->flags) ||
	    !x_enum(x, &e->sp_how, SP4_MACH_CRED))
		return FALSE;
	if (e->sp_how == SP4_MACH_CRED &&
	    (!nfs4_xdr_bitmap(x, &e->must_enforce) || !nfs4_xdr_bitmap(x, &e->must_allow)))
		return FALSE;
	return x_u64(x, &e->so_minor_id) && nfs4_xdr_ref(x, &e->so_major_id, NFS4_OPAQUE_LIMIT) &&
	       nfs4_xdr_ref(x, &e->server_scope, NFS4_OPAQUE_LIMIT) &&
	       x_impl_id(x, &e->has_impl_id, &e->impl_id);
}

bool_t nfs4_xdr_create_session_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_create_session_res *c = &r->csess;

	return x_fixed4(x, c->sessionid, NFS4_SESSIONID_SIZE) && x_u32(x, &c->sequence) &&
	       x_u32(x, &c->flags) && nfs4_xdr_chan_attrs(x, &c->fore) &&
	       nfs4_xdr_chan_attrs(x, &c->back);
}

bool_t nfs4_xdr_sequence_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_sequence_res *s = &r->seq;

	return x_fixed4(x, s->sessionid, NFS4_SESSIONID_SIZE) && x_u32(x, &s->sequenceid) &&
	       x_u32(x, &s->slotid) && x_u32(x, &s->highest_slotid) &&
	       x_u32(x, &s->target_highest_slotid) && x_u32(x, &s->status_flags);
}

bool_t nfs4_xdr_getattr_res(XDR *x, union nfs4_op_resok *r)
{
	return nfs4_xdr_bitmap(x, &r->getattr.mask) &&
	       nfs4_xdr_ref(x, &r->getattr.vals, NFS4_ATTRVALS_MAX);
}

bool_t nfs4_xdr_getfh_res(XDR *x, union nfs4_op_resok *r)
{
	return nfs4_xdr_ref(x, &r->fh, NFS4_FHSIZE);
}

bool_t nfs4_xdr_access_res(XDR *x, union nfs4_op_resok *r)
{
	return x_u32(x, &r->access.supported) && x_u32(x, &r->access.access);
}

bool_t nfs4_xdr_secinfo_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_secinfo_res *s = &r->secinfo;

	if (!x_u32(x, &s->n) || s->n > NFS4_SECINFO_MAX)
		return FALSE;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t w;

		if (!x_u32(x, &s->flavor[i]))
			return FALSE;
		/* rpcsec_gss_info: oid, qop, service (the server never sends it) */
		if (s->flavor[i] == RPCSEC_GSS_FLAVOR &&
		    (x->x_op == XDR_ENCODE || !oid_elem(x) || !x_u32(x, &w) || !x_u32(x, &w)))
			return FALSE;
	}
	return TRUE;
}

bool_t nfs4_xdr_bind_conn_res(XDR *x, union nfs4_op_resok *r)
{
	struct nfs4_bind_conn_res *b = &r->bind;

	if (!x_fixed4(x, b->sessionid, NFS4_SESSIONID_SIZE) || !x_u32(x, &b->dir))
		return FALSE;
	return b->dir >= CDFS4_FORE && b->dir <= CDFS4_BOTH && x_bool(x, &b->rdma_mode);
}

/* ---- COMPOUND ---- */

bool_t nfs4_xdr_compound_hdr(XDR *x, struct nfs4_compound_hdr *h)
{
	return nfs4_xdr_ref(x, &h->tag, NFS4_TAG_MAX) && x_u32(x, &h->minorversion) &&
	       x_u32(x, &h->numops);
}

bool_t nfs4_xdr_compound_res_hdr(XDR *x, struct nfs4_compound_res_hdr *h)
{
	return x_u32(x, &h->status) && nfs4_xdr_ref(x, &h->tag, NFS4_TAG_MAX) &&
	       x_u32(x, &h->numres);
}

bool_t nfs4_xdr_argop(XDR *x, uint32_t *op, union nfs4_op_args *a, bool *known)
{
	const struct nfs4_op_desc *d;

	*known = false;
	if (!x_u32(x, op))
		return FALSE;
	d = nfs4_op_desc(*op);
	if (!d || !d->xargs)
		return TRUE;
	*known = true;
	return d->xargs(x, a);
}

bool_t nfs4_xdr_resop(XDR *x, struct nfs4_op_res *r)
{
	const struct nfs4_op_desc *d;

	if (!x_u32(x, &r->op) || !x_u32(x, &r->status))
		return FALSE;
	d = nfs4_op_desc(r->op);
	if (!d)
		return TRUE;
	if (r->status != NFS4_OK)
		return !d->xerr || d->xerr(x, r->status, &r->u);
	/* SETATTR's one result goes whatever the status */
	if (!d->xres)
		return !d->xerr || d->xerr(x, r->status, &r->u);
	return d->xres(x, &r->u);
}
