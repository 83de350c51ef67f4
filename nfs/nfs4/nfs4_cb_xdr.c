/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_cb_xdr.c - the callback program's messages (nfs4_cb_xdr.h): RPC CALL headers (RFC 5531
 * §9, AUTH_SYS per §A of RFC 5531), CB_COMPOUND4args with CB_SEQUENCE4args (RFC 8881 §20.9)
 * and CB_RECALL4args (§20.2), and the reply's decoding, all through two small bounded cursors.
 */
#include <errno.h>
#include <string.h>

#include "nfs4_cb_xdr.h"

#define RPC_CALL 0u
#define RPC_REPLY 1u
#define RPC_VERSION 2u
#define MSG_ACCEPTED 0u
#define MSG_DENIED 1u
#define ACCEPT_SUCCESS 0u
#define ACCEPT_PROG_MISMATCH 2u
#define REJECT_RPC_MISMATCH 0u
#define CB_MAX_AUTH_BYTES 400u
#define FLAVOR_NONE 0u
#define FLAVOR_SYS 1u
#define FLAVOR_GSS 6u

/* ---- writing ---- */

struct wcur {
	uint8_t *p;
	uint32_t cap, pos;
	bool ok;
};

static void put32(struct wcur *w, uint32_t v)
{
	if (!w->ok || w->cap - w->pos < 4) {
		w->ok = false;
		return;
	}
	w->p[w->pos] = (uint8_t)(v >> 24);
	w->p[w->pos + 1] = (uint8_t)(v >> 16);
	w->p[w->pos + 2] = (uint8_t)(v >> 8);
	w->p[w->pos + 3] = (uint8_t)v;
	w->pos += 4;
}

/* fixed-length opaque: the bytes, zero padding to four */
static void put_fixed(struct wcur *w, const uint8_t *b, uint32_t n)
{
	uint32_t padded = (n + 3u) & ~3u;

	if (!w->ok || w->cap - w->pos < padded) {
		w->ok = false;
		return;
	}
	if (n)
		memcpy(w->p + w->pos, b, n);
	memset(w->p + w->pos + n, 0, padded - n);
	w->pos += padded;
}

static void put_opaque(struct wcur *w, const uint8_t *b, uint32_t n)
{
	put32(w, n);
	put_fixed(w, b, n);
}

/* xid, CALL, RPC version 2, program, version 1, procedure, credential, AUTH_NONE verifier */
static void put_call_hdr(struct wcur *w, const struct nfs4_cb_hdr *h, uint32_t proc)
{
	const struct nfs4_cb_cred *c = h->cred;

	put32(w, h->xid);
	put32(w, RPC_CALL);
	put32(w, RPC_VERSION);
	put32(w, h->program);
	put32(w, NFS4_CALLBACK_VERSION);
	put32(w, proc);
	if (c && c->flavor == FLAVOR_SYS) {
		uint32_t ngids = c->ngids < NFS4_CB_GIDS_MAX ? c->ngids : NFS4_CB_GIDS_MAX;
		uint32_t mlen = c->machlen < NFS4_CB_MACH_MAX ? c->machlen : NFS4_CB_MACH_MAX;

		put32(w, FLAVOR_SYS);
		/* authsys_parms: stamp, machinename<255>, uid, gid, gids<16> */
		put32(w, 4 + 4 + ((mlen + 3u) & ~3u) + 4 + 4 + 4 + 4 * ngids);
		put32(w, c->stamp);
		put_opaque(w, c->mach, mlen);
		put32(w, c->uid);
		put32(w, c->gid);
		put32(w, ngids);
		for (uint32_t i = 0; i < ngids; i++)
			put32(w, c->gids[i]);
	} else {
		put32(w, FLAVOR_NONE);
		put32(w, 0);
	}
	put32(w, FLAVOR_NONE);
	put32(w, 0);
}

uint32_t nfs4_cb_encode_null(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h)
{
	struct wcur w = {buf, cap, 0, true};

	put_call_hdr(&w, h, NFS4_CB_PROC_NULL);
	return w.ok ? w.pos : 0;
}

/* the RPC header, CB_COMPOUND4args' head (tag "", minorversion, ident, two operations) and
 * CB_SEQUENCE4args: what every CB_COMPOUND the server sends starts with */
static void put_compound_seq(struct wcur *w, const struct nfs4_cb_hdr *h, uint32_t ident,
			     const struct nfs4_cb_seq_args *seq)
{
	put_call_hdr(w, h, NFS4_CB_PROC_COMPOUND);
	put_opaque(w, NULL, 0);
	put32(w, h->minor);
	put32(w, ident);
	put32(w, 2);
	put32(w, NFS4_CB_OP_SEQUENCE);
	put_fixed(w, seq->sessionid, NFS4_SESSIONID_SIZE);
	put32(w, seq->sequenceid);
	put32(w, seq->slotid);
	put32(w, seq->highest_slotid);
	put32(w, 0); /* csa_cachethis: false */
	put32(w, 0); /* csa_referring_call_lists: none */
}

uint32_t nfs4_cb_encode_notify_lock(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h,
				    uint32_t ident, const struct nfs4_cb_seq_args *seq,
				    const struct nfs4_cb_notify_lock_args *nl)
{
	struct wcur w = {buf, cap, 0, true};

	if (nl->fhlen > NFS4_FHSIZE || nl->ownerlen > NFS4_OPAQUE_LIMIT)
		return 0;
	put_compound_seq(&w, h, ident, seq);
	put32(&w, NFS4_CB_OP_NOTIFY_LOCK);
	put_opaque(&w, nl->fh, nl->fhlen);
	put32(&w, (uint32_t)(nl->clientid >> 32));
	put32(&w, (uint32_t)nl->clientid);
	put_opaque(&w, nl->owner, nl->ownerlen);
	return w.ok ? w.pos : 0;
}

uint32_t nfs4_cb_encode_recall(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h,
			       uint32_t ident, const struct nfs4_cb_seq_args *seq,
			       const struct nfs4_cb_recall_args *rc)
{
	struct wcur w = {buf, cap, 0, true};

	if (rc->fhlen > NFS4_FHSIZE)
		return 0;
	put_compound_seq(&w, h, ident, seq);
	put32(&w, NFS4_CB_OP_RECALL);
	put32(&w, rc->sid.seqid);
	put_fixed(&w, rc->sid.other, 12);
	put32(&w, rc->truncate ? 1 : 0);
	put_opaque(&w, rc->fh, rc->fhlen);
	return w.ok ? w.pos : 0;
}

/* ---- reading ---- */

struct rcur {
	const uint8_t *p;
	uint32_t len, pos;
	bool ok;
};

static uint32_t get32(struct rcur *r)
{
	uint32_t v;

	if (!r->ok || r->len - r->pos < 4) {
		r->ok = false;
		return 0;
	}
	v = (uint32_t)r->p[r->pos] << 24 | (uint32_t)r->p[r->pos + 1] << 16 |
	    (uint32_t)r->p[r->pos + 2] << 8 | r->p[r->pos + 3];
	r->pos += 4;
	return v;
}

/* n bytes and their padding: where they are, or NULL (and the cursor failed) */
static const uint8_t *get_fixed(struct rcur *r, uint32_t n)
{
	uint32_t padded = (n + 3u) & ~3u;
	const uint8_t *at;

	if (!r->ok || n > UINT32_MAX - 3 || r->len - r->pos < padded) {
		r->ok = false;
		return NULL;
	}
	at = r->p + r->pos;
	r->pos += padded;
	return at;
}

static void skip_opaque(struct rcur *r, uint32_t max)
{
	uint32_t n = get32(r);

	if (n > max)
		r->ok = false;
	get_fixed(r, n);
}

int nfs4_cb_pick_cred(const struct nfs4_raw *sec_parms, struct nfs4_cb_cred *out)
{
	struct rcur r = {sec_parms->bytes.p, sec_parms->bytes.len, 0, true};

	for (uint32_t i = 0; i < sec_parms->count && r.ok; i++) {
		uint32_t flavor = get32(&r);

		if (flavor == FLAVOR_NONE) {
			memset(out, 0, sizeof(*out));
			return 0;
		}
		if (flavor == FLAVOR_SYS) {
			uint32_t n;
			const uint8_t *m;

			memset(out, 0, sizeof(*out));
			out->flavor = FLAVOR_SYS;
			out->stamp = get32(&r);
			n = get32(&r);
			if (n > NFS4_CB_MACH_MAX)
				return -EBADMSG;
			m = get_fixed(&r, n);
			if (m)
				memcpy(out->mach, m, n);
			out->machlen = n;
			out->uid = get32(&r);
			out->gid = get32(&r);
			out->ngids = get32(&r);
			if (out->ngids > NFS4_CB_GIDS_MAX)
				return -EBADMSG;
			for (uint32_t g = 0; g < out->ngids; g++)
				out->gids[g] = get32(&r);
			return r.ok ? 0 : -EBADMSG;
		}
		if (flavor != FLAVOR_GSS)
			return -EBADMSG;
		/* gss_cb_handles4: service, two handles */
		get32(&r);
		skip_opaque(&r, 1024);
		skip_opaque(&r, 1024);
	}
	return r.ok ? -ENOTSUP : -EBADMSG;
}

static bool sent_op(uint32_t op)
{
	return op == NFS4_CB_OP_SEQUENCE || op == NFS4_CB_OP_RECALL ||
	       op == NFS4_CB_OP_NOTIFY_LOCK || op == NFS4_CB_OP_ILLEGAL;
}

int nfs4_cb_decode_reply(const uint8_t *p, uint32_t len, uint32_t xid, bool compound,
			 const struct nfs4_cb_seq_args *seq, struct nfs4_cb_reply *out)
{
	struct rcur r = {p, len, 0, true};
	uint32_t n;

	memset(out, 0, sizeof(*out));
	if (get32(&r) != xid || get32(&r) != RPC_REPLY || !r.ok)
		return -EBADMSG;
	out->reply_stat = get32(&r);
	if (out->reply_stat == MSG_DENIED) {
		/* rejected_reply: RPC_MISMATCH (low, high) or AUTH_ERROR (its stat) */
		if (get32(&r) == REJECT_RPC_MISMATCH)
			get32(&r);
		get32(&r);
		return r.ok ? 0 : -EBADMSG;
	}
	if (out->reply_stat != MSG_ACCEPTED)
		return -EBADMSG;
	get32(&r); /* the verifier's flavor */
	skip_opaque(&r, CB_MAX_AUTH_BYTES);
	out->accept_stat = get32(&r);
	if (!r.ok)
		return -EBADMSG;
	if (out->accept_stat != ACCEPT_SUCCESS) {
		if (out->accept_stat == ACCEPT_PROG_MISMATCH) {
			get32(&r);
			get32(&r);
		}
		return r.ok ? 0 : -EBADMSG;
	}
	if (!compound)
		return 0; /* CB_NULL: void */
	/* CB_COMPOUND4res: status, tag, resarray */
	out->status = get32(&r);
	skip_opaque(&r, NFS4_CB_TAG_MAX);
	n = get32(&r);
	if (!r.ok || n > NFS4_CB_RES_MAX)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = get32(&r), st = get32(&r);

		if (!r.ok || !sent_op(op))
			return -EBADMSG;
		out->op[i] = op;
		out->op_status[i] = st;
		out->nres = i + 1;
		if (op == NFS4_CB_OP_SEQUENCE && st == 0) {
			/* CB_SEQUENCE4resok: sessionid, sequenceid, slotid, highest, target */
			const uint8_t *sid = get_fixed(&r, NFS4_SESSIONID_SIZE);
			uint32_t sq = get32(&r), sl = get32(&r);

			out->seq_highest_slotid = get32(&r);
			out->seq_target_highest_slotid = get32(&r);
			if (!r.ok || !seq ||
			    memcmp(sid, seq->sessionid, NFS4_SESSIONID_SIZE) != 0 ||
			    sq != seq->sequenceid || sl != seq->slotid)
				return -EBADMSG;
			out->seq_ok = true;
		}
	}
	return r.ok ? 0 : -EBADMSG;
}
