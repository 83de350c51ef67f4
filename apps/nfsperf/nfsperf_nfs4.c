/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_nfs4.c - droce-nfsperf's NFSv4.1 client side (--nfs-version 4.1): COMPOUND calls
 * built from nfs/nfs4's operation routines (they work both ways, RFC 8881 §16.2 and §18), their
 * replies decoded into per-operation results, and the session's slot table (RFC 8881 §2.10.6):
 * one slot per call in flight, a sequenceid per slot, highest_slotid, and the server's
 * target_highest_slotid obeyed. No transport here: droce-nfsperf.c hands the encoder and the
 * reply bytes to nfsperf_xprt.c like any NFSv3 call, so the pieces are unit-tested alone.
 *
 * The COMPOUNDs droce-nfsperf sends (every one after CREATE_SESSION starts with SEQUENCE):
 *   EXCHANGE_ID | CREATE_SESSION | SEQUENCE, RECLAIM_COMPLETE
 *   SEQUENCE, PUTROOTFH, LOOKUP x each component of the export, GETFH
 *   SEQUENCE, PUTFH(dir), OPEN(CLAIM_NULL, OPEN4_CREATE UNCHECKED4), GETFH, GETATTR(type,size)
 *   SEQUENCE, PUTFH(file), READ | WRITE | COMMIT | CLOSE
 *   SEQUENCE, PUTFH(dir), REMOVE | DESTROY_SESSION | DESTROY_CLIENTID
 * READ and WRITE are the last operations of theirs, so the opaque that ends WRITE's arguments
 * ends the call and READ's data ends the results: the RDMA client's read chunk and write chunk
 * carry them (RFC 8267 §4.2), as for NFSv3.
 */
#include <errno.h>
#include <string.h>

#include "nfsperf.h"

static const char empty_tag[1];

bool_t np4_xdr_compound(XDR *x, struct np4_compound *c)
{
	struct nfs4_compound_hdr h = {
		.tag = {(const uint8_t *)empty_tag, 0}, .minorversion = 1, .numops = c->n};

	if (c->n > NP4_MAX_OPS || !nfs4_xdr_compound_hdr(x, &h))
		return FALSE;
	for (uint32_t i = 0; i < c->n; i++) {
		bool known;

		if (!nfs4_xdr_argop(x, &c->ops[i].op, &c->ops[i].a, &known))
			return FALSE;
	}
	return TRUE;
}

int np4_reply_decode(const uint8_t *p, uint32_t len, struct np4_reply *r)
{
	struct nfs4_compound_res_hdr h = {0};
	int rc = 0;
	XDR x;

	memset(r, 0, sizeof(*r));
	xdrmem_create(&x, (char *)(uintptr_t)p, len, XDR_DECODE);
	if (!nfs4_xdr_compound_res_hdr(&x, &h) || h.numres > NP4_MAX_OPS) {
		rc = -EBADMSG;
		goto out;
	}
	r->status = h.status;
	for (r->n = 0; r->n < h.numres; r->n++)
		if (!nfs4_xdr_resop(&x, &r->r[r->n])) {
			rc = -EBADMSG;
			break;
		}
out:
	xdr_destroy(&x);
	return rc;
}

uint32_t np4_reply_failed(const struct np4_reply *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->r[i].status != NFS4_OK)
			return i;
	return r->n;
}

const struct nfs4_op_res *np4_reply_op(const struct np4_reply *r, uint32_t op)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->r[i].op == op && r->r[i].status == NFS4_OK)
			return &r->r[i];
	return NULL;
}

/* Attribute values: fattr4's attrlist4 holds them in the order of their numbers (§5.5). Only
 * the fixed-size ones droce-nfsperf asks for are walked. */
int np4_attr_type_size(const struct nfs4_getattr_res *g, uint32_t *type, uint64_t *size)
{
	const uint8_t *p = g->vals.p;
	uint32_t off = 0, n = g->vals.len;
	bool have_type = false, have_size = false;

	for (uint32_t bit = 0; bit < 32 * g->mask.n; bit++) {
		if (!nfs4_bit(&g->mask, bit))
			continue;
		if (bit == NFS4_A_TYPE) {
			if (off + 4 > n)
				return -EBADMSG;
			*type = (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 |
				(uint32_t)p[off + 2] << 8 | p[off + 3];
			off += 4;
			have_type = true;
		} else if (bit == NFS4_A_SIZE) {
			if (off + 8 > n)
				return -EBADMSG;
			*size = 0;
			for (int i = 0; i < 8; i++)
				*size = *size << 8 | p[off + i];
			off += 8;
			have_size = true;
		} else {
			return -EBADMSG; /* not asked for: its length is unknown here */
		}
	}
	return have_type && have_size ? 0 : -EBADMSG;
}

/* ---- the slot table ---- */

void np4_sess_init(struct np4_sess *s, uint32_t nslots)
{
	memset(s, 0, sizeof(*s));
	s->nslots = nslots > NP4_MAX_SLOTS ? NP4_MAX_SLOTS : nslots;
	if (!s->nslots)
		s->nslots = 1;
	s->target = s->nslots - 1;
	/* a slot's first request carries sequenceid 1 (RFC 8881 §2.10.6.1) */
	for (uint32_t i = 0; i < NP4_MAX_SLOTS; i++)
		s->slot[i].seqid = 1;
}

int np4_slot_get(struct np4_sess *s)
{
	uint32_t lim = s->target < s->nslots - 1 ? s->target : s->nslots - 1;

	for (uint32_t i = 0; i <= lim; i++)
		if (!s->slot[i].busy) {
			s->slot[i].busy = true;
			return (int)i;
		}
	return -1;
}

void np4_slot_put(struct np4_sess *s, uint32_t slot)
{
	if (slot < NP4_MAX_SLOTS)
		s->slot[slot].busy = false;
}

void np4_sequence_args(const struct np4_sess *s, uint32_t slot, struct nfs4_sequence_args *a)
{
	uint32_t hi = slot;

	/* the highest slot the client has in use, this one included (RFC 8881 §18.46.3) */
	for (uint32_t i = slot + 1; i < s->nslots; i++)
		if (s->slot[i].busy)
			hi = i;
	memset(a, 0, sizeof(*a));
	memcpy(a->sessionid, s->sessionid, sizeof(a->sessionid));
	a->sequenceid = s->slot[slot].seqid;
	a->slotid = slot;
	a->highest_slotid = hi;
	a->cachethis = false;
}

void np4_slot_done(struct np4_sess *s, uint32_t slot, const struct np4_reply *r)
{
	if (slot >= NP4_MAX_SLOTS)
		return;
	/* the server moved the slot on only when SEQUENCE itself succeeded (§2.10.6.1): any
	 * other outcome leaves the same sequenceid for the slot's next request */
	if (r && r->n && r->r[0].op == NFS4_OP_SEQUENCE && r->r[0].status == NFS4_OK) {
		const struct nfs4_sequence_res *q = &r->r[0].u.seq;

		s->slot[slot].seqid++;
		s->target = q->target_highest_slotid;
		if (q->highest_slotid < s->target)
			s->target = q->highest_slotid;
	}
	s->slot[slot].busy = false;
}

void np4_op_seq(struct np4_compound *c, const struct np4_sess *s, uint32_t slot)
{
	struct np4_op *o = &c->ops[c->n++];

	o->op = NFS4_OP_SEQUENCE;
	np4_sequence_args(s, slot, &o->a.seq);
}

void np4_op_putfh(struct np4_compound *c, const uint8_t *fh, uint32_t len)
{
	struct np4_op *o = &c->ops[c->n++];

	o->op = NFS4_OP_PUTFH;
	o->a.fh = (struct nfs4_ref){fh, len};
}

void np4_op(struct np4_compound *c, uint32_t op)
{
	c->ops[c->n++] = (struct np4_op){.op = op};
}

#define NP4_STAT_CASE_(n, v)                                                                       \
	case v:                                                                                    \
		return "NFS4ERR_" #n;

const char *np4_stat_name(uint32_t st)
{
	switch (st) {
		NFS4_STATUS_LIST(NP4_STAT_CASE_)
	default:
		return "NFS4ERR_?";
	}
}
