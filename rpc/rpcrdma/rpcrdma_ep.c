/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_ep.c - the RPC-over-RDMA v1 endpoint (rpcrdma_ep.h): buffers and credits, the four
 * primitives on the QP, the server's request state machine and the client's call slots. The
 * backchannel (RFC 8167) is in rpcrdma_bc.c; the state both share is in rpcrdma_int.h.
 *
 * Operation (server): a receive completion queues its buffer. Requests are taken in arrival
 * order: the header is decoded (a refusal answers RDMA_ERROR); read chunks are fetched with
 * RDMA READ into staging and spliced into the call at their XDR positions (RFC 8166 §3.5.3);
 * the call is dispatched; the DDP-eligible tail of the results is written into the client's
 * write chunk, the rest goes inline or, when too long, into the reply chunk; then the reply's
 * SEND. The receive buffer is posted again once its call has been dispatched, so the credits
 * granted are always receives posted; RPCRDMA_BC_SLOTS more are posted for the replies to
 * backchannel calls (RFC 8167), taken as they complete and posted again at once. While WRITEs from staging are in flight (until the
 * reply's SEND completes, RC ordering covers the WRITEs before it), the next request waits.
 *
 * Operation (client): a call takes a slot with its own staging (long call, write chunk, reply
 * chunk); the reply is matched by xid, rebuilt (reply chunk, write-chunk data appended at the
 * end of the results) and handed to the caller's done function.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rpcrdma_int.h"

#define WR_RECV 1ull
#define WR_SEND 2ull
#define WR_READ 3ull
#define WR_WRITE 4ull
#define WR_REG 5ull
#define WR_LINV 6ull
#define WR_ID(type, idx) ((type) << 32 | (uint32_t)(idx))
#define WR_TYPE(id) ((id) >> 32)
#define WR_IDX(id) ((uint32_t)(id))
#define NO_SLOT UINT32_MAX
#define PAD4(n) ((4u - ((n)&3u)) & 3u)

#define NAME_(n) #n,
static const char *const req_names[] = {RPCRDMA_REQ_STATE_LIST(NAME_)};

const char *rpcrdma_req_state_name(enum rpcrdma_req_state s)
{
	return s < RPCRDMA_REQ_NUM_STATES ? req_names[s] : "unknown";
}

static void set_state(struct sreq *r, enum rpcrdma_req_state s)
{
	r->state = s;
	r->ep->st.req_state[s]++;
}

static uint8_t *send_buf(struct rpcrdma_ep *ep, uint32_t i)
{
	return ep->send_bufs + (size_t)i * ep->conf.inline_max;
}

static uint64_t iova(const struct rpcrdma_ep *ep, const void *p)
{
	return ep->mr->iova + (uint64_t)((const uint8_t *)p - ep->region);
}

static int conf_check(struct rpcrdma_ep_conf *c)
{
	if (!c->credits)
		c->credits = RPCRDMA_DEFAULT_CREDITS;
	if (!c->inline_max)
		c->inline_max = 4096;
	if (!c->max_chunk)
		c->max_chunk = RPCRDMA_DEFAULT_MAX_CHUNK;
	if (!c->slots)
		c->slots = RPCRDMA_CLNT_SLOTS;
	if (c->slots > RPCRDMA_CLNT_MAX_SLOTS)
		return -EINVAL;
	if (!c->server_calls)
		c->server_calls = RPCRDMA_SRV_CALLS;
	if (c->server_calls > RPCRDMA_SRV_MAX_CALLS)
		return -EINVAL;
	if (c->credits > 1024 || c->inline_max < RPCRDMA_INLINE_MIN || c->inline_max > 65536 ||
	    c->inline_max % 1024 || c->max_chunk < c->inline_max || c->max_chunk > (64u << 20))
		return -EINVAL;
	return 0;
}

struct rpcrdma_regions {
	unsigned max, n;
	struct rpcrdma_regions_stats st;
	struct {
		uint8_t *p;
		uint64_t len;
	} r[];
};

struct rpcrdma_regions *rpcrdma_regions_create(unsigned max)
{
	struct rpcrdma_regions *rs;

	if (max == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	rs = calloc(1, sizeof(*rs) + (size_t)max * sizeof(rs->r[0]));
	if (!rs) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rs->max = max;
	return rs;
}

void rpcrdma_regions_destroy(struct rpcrdma_regions *rs)
{
	if (!rs)
		return;
	for (unsigned i = 0; i < rs->n; i++)
		rte_free(rs->r[i].p);
	free(rs);
}

void rpcrdma_regions_stats(const struct rpcrdma_regions *rs, struct rpcrdma_regions_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (rs) {
		*st = rs->st;
		st->kept = rs->n;
	}
}

/* @p ep's region: a kept one of its length (its inline buffers zeroed, as rte_zmalloc's
 * would be), else a new one */
static uint8_t *region_get(struct rpcrdma_ep *ep, uint64_t inline_len)
{
	struct rpcrdma_regions *rs = ep->conf.regions;

	if (rs) {
		for (unsigned i = rs->n; i-- > 0;) {
			uint8_t *p = rs->r[i].p;

			if (rs->r[i].len != ep->region_len)
				continue;
			rs->r[i] = rs->r[--rs->n];
			rs->st.reused++;
			memset(p, 0, inline_len);
			return p;
		}
		rs->st.allocated++;
	}
	return rte_zmalloc("rpcrdma_region", ep->region_len, 4096);
}

static void region_put(struct rpcrdma_ep *ep)
{
	struct rpcrdma_regions *rs = ep->conf.regions;

	if (!ep->region)
		return;
	if (rs && rs->n < rs->max) {
		rs->r[rs->n].p = ep->region;
		rs->r[rs->n++].len = ep->region_len;
	} else {
		if (rs)
			rs->st.freed++;
		rte_free(ep->region);
	}
	ep->region = NULL;
}

struct rpcrdma_ep *rpcrdma_ep_create(struct roce_dev *dev, struct roce_pd *pd,
				     enum rpcrdma_role role, const struct rpcrdma_ep_conf *conf,
				     struct orpc_svc *svc)
{
	struct roce_qp_init_attr qa;
	struct rpcrdma_ep *ep;
	uint8_t *p;
	uint32_t access;

	ep = rte_zmalloc("rpcrdma_ep", sizeof(*ep), 0);
	if (!ep) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* the client keeps its backchannel programs in svc */
	ep->conf = conf ? *conf : (struct rpcrdma_ep_conf){0};
	if (conf_check(&ep->conf) != 0 || (role == RPCRDMA_SERVER && !svc)) {
		rte_free(ep);
		rte_errno = EINVAL;
		return NULL;
	}
	ep->role = role;
	ep->pd = pd;
	ep->svc = svc;
	ep->peer_addr.xprt = ORPC_XPRT_RDMA; /* the address itself: rpcrdma_ep_set_peer */
	/* the server posts one receive per credit, and one per backchannel call it may have in
	 * flight (RFC 8167 §4: a backward reply must not take a receive a forward call counts
	 * on); the client one per possible reply, plus the server's extra grants it may see */
	ep->nslots = ep->conf.slots;
	ep->nrecv = role == RPCRDMA_SERVER ? ep->conf.credits + RPCRDMA_BC_SLOTS : ep->nslots + 4;
	ep->nsend = role == RPCRDMA_SERVER ? ep->conf.credits + 8 : ep->nslots + 4;
	ep->nreqs = ep->conf.server_calls;
	ep->region_len = (uint64_t)(ep->nrecv + ep->nsend) * ep->conf.inline_max +
			 (uint64_t)(role == RPCRDMA_SERVER ? 3 * ep->nreqs : 3 * ep->nslots + 2) *
				 ep->conf.max_chunk;
	ep->region = region_get(ep, (uint64_t)(ep->nrecv + ep->nsend) * ep->conf.inline_max);
	ep->send_free = rte_zmalloc("rpcrdma_sfree", ep->nsend * sizeof(uint32_t), 0);
	ep->fifo = rte_zmalloc("rpcrdma_fifo", ep->nrecv * sizeof(uint32_t) * 2, 0);
	ep->cq = roce_create_cq(dev, 4 * (ep->nrecv + ep->nsend) + 256);
	if (!ep->region || !ep->send_free || !ep->fifo || !ep->cq)
		goto fail;
	ep->fifo_len = ep->fifo + ep->nrecv;
	/* the server exposes nothing to the peer; the client exposes its staging for chunks
	 * (a persistent registration: one key for every call) */
	access = ROCE_ACCESS_LOCAL_WRITE;
	if (role == RPCRDMA_CLIENT && !ep->conf.frwr)
		access |= ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	ep->mr = roce_reg_mr(pd, ep->region, ep->region_len, (uintptr_t)ep->region, access);
	if (!ep->mr)
		goto fail;
	p = ep->region;
	ep->recv_bufs = p;
	p += (size_t)ep->nrecv * ep->conf.inline_max;
	ep->send_bufs = p;
	p += (size_t)ep->nsend * ep->conf.inline_max;
	if (role == RPCRDMA_SERVER) {
		for (uint32_t i = 0; i < ep->nreqs; i++, p += 3 * (size_t)ep->conf.max_chunk) {
			ep->reqs[i].ep = ep;
			ep->reqs[i].idx = i;
			ep->reqs[i].state = RPCRDMA_REQ_FREE;
			ep->reqs[i].stage_in = p;
			ep->reqs[i].stage_call = p + ep->conf.max_chunk;
			ep->reqs[i].stage_out = p + 2 * (size_t)ep->conf.max_chunk;
		}
	} else {
		for (uint32_t i = 0; i < ep->nslots; i++, p += 3 * (size_t)ep->conf.max_chunk) {
			ep->slots[i].call = p;
			ep->slots[i].reply = p + ep->conf.max_chunk;
			ep->slots[i].wdata = p + 2 * (size_t)ep->conf.max_chunk;
			if (ep->conf.frwr) {
				ep->slots[i].frmr =
					roce_alloc_mr(pd, 3 * (uint64_t)ep->conf.max_chunk);
				if (!ep->slots[i].frmr)
					goto fail;
			}
		}
		ep->scratch = p;
	}
	for (uint32_t i = 0; i < ep->nsend; i++)
		ep->send_free[i] = ep->nsend - 1 - i;
	ep->nsend_free = ep->nsend;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = ep->cq;
	qa.qp_type = ROCE_QPT_RC;
	/* every send buffer's SEND, and each request served at once may have all its read
	 * segments' READs and its write and reply chunks' WRITEs posted */
	qa.cap.max_send_wr = 2 * ep->nsend + 64 +
			     (role == RPCRDMA_SERVER ? ep->nreqs : 1) *
				     (RPCRDMA_MAX_READ_SEGS + 2 * RPCRDMA_MAX_CHUNK_SEGS);
	qa.cap.max_recv_wr = ep->nrecv;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.on_lcore = ep->conf.on_lcore;
	qa.lcore = ep->conf.lcore;
	ep->qp = roce_create_qp(pd, &qa);
	if (!ep->qp)
		goto fail;
	ep->credits = role == RPCRDMA_SERVER ? ep->conf.credits : 1; /* RFC 8166 §3.3.1 */
	ep->inline_send = ep->inline_recv = RPCRDMA_INLINE_DEFAULT;
	for (uint32_t i = 0; i < RPCRDMA_MAX_SENDS; i++)
		ep->send_req[i] = -1;
	return ep;
fail:
	for (uint32_t i = 0; i < RPCRDMA_CLNT_MAX_SLOTS; i++)
		if (ep->slots[i].frmr)
			roce_dereg_mr(ep->slots[i].frmr);
	if (ep->mr)
		roce_dereg_mr(ep->mr);
	if (ep->cq)
		roce_destroy_cq(ep->cq);
	region_put(ep);
	rte_free(ep->send_free);
	rte_free(ep->fifo);
	rte_free(ep);
	rte_errno = ENOMEM;
	return NULL;
}

struct roce_qp *rpcrdma_ep_qp(const struct rpcrdma_ep *ep)
{
	return ep->qp;
}

uint8_t rpcrdma_ep_private_data(const struct rpcrdma_ep *ep, uint8_t out[RPCRDMA_CM_PRIV_LEN])
{
	/* Send With Invalidate only with FRWR: with one persistent registration, a remote
	 * invalidation would revoke the key of every later call */
	struct rpcrdma_cm_priv p = {.present = true,
				    .remote_inv_ok = ep->role == RPCRDMA_CLIENT && ep->conf.frwr &&
						     !ep->conf.no_remote_inv,
				    .max_send = ep->conf.inline_max,
				    .max_recv = ep->conf.inline_max};

	if (ep->conf.no_private_data)
		return 0;
	rpcrdma_cm_priv_encode(&p, out);
	return RPCRDMA_CM_PRIV_LEN;
}

int rpcrdma_post_recv(struct rpcrdma_ep *ep, uint32_t i)
{
	struct roce_sge sge = {(uintptr_t)recv_buf(ep, i), ep->conf.inline_max, ep->mr->lkey};
	struct roce_recv_wr wr = {.wr_id = WR_ID(WR_RECV, i), .sg_list = &sge, .num_sge = 1};
	struct roce_recv_wr *bad;

	return roce_post_recv(ep->qp, &wr, &bad);
}

int rpcrdma_ep_start(struct rpcrdma_ep *ep, const uint8_t *peer_priv, uint32_t len)
{
	int rc;

	rpcrdma_cm_priv_decode(peer_priv, len, &ep->peer);
	/* RFC 8797 §7: we send at most what the peer receives, and what we said we send */
	ep->inline_send =
		ep->peer.max_recv < ep->conf.inline_max ? ep->peer.max_recv : ep->conf.inline_max;
	/* the peer sends us at most what it said it sends, and at most what we said we receive:
	 * 1024 when we said nothing (RFC 8797 §7, RFC 8166 §3.3.2) */
	ep->inline_recv = ep->conf.no_private_data ? RPCRDMA_INLINE_DEFAULT : ep->conf.inline_max;
	if (ep->peer.max_send < ep->inline_recv)
		ep->inline_recv = ep->peer.max_send;
	for (uint32_t i = 0; i < ep->nrecv; i++) {
		rc = rpcrdma_post_recv(ep, i);
		if (rc)
			return rc;
	}
	ep->started = true;
	/* the calls of this connection carry its backchannel's id to the upper layer */
	rpcrdma_bc_register(ep);
	return 0;
}

/* ---- the primitives ---- */

/* send: a header and a body from a send buffer; inv_rkey != 0 asks the peer to invalidate */
int rpcrdma_prim_send(struct rpcrdma_ep *ep, const struct rpcrdma_hdr_out *o, const uint8_t *body,
		      uint32_t blen, uint32_t inv_rkey, const struct sreq *r)
{
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	uint32_t i;
	uint8_t *b;
	int n, rc;

	if (!ep->nsend_free)
		return -EBUSY;
	i = ep->send_free[--ep->nsend_free];
	b = send_buf(ep, i);
	n = rpcrdma_hdr_encode(o, b, ep->inline_send);
	if (n < 0 || (uint32_t)n + blen > ep->inline_send) {
		ep->send_free[ep->nsend_free++] = i;
		return -E2BIG;
	}
	if (blen)
		memcpy(b + n, body, blen);
	ep->send_req[i] = r && r->stage_busy ? (int16_t)r->idx : -1;
	sge = (struct roce_sge){(uintptr_t)b, (uint32_t)n + blen, ep->mr->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ID(WR_SEND, i);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = inv_rkey ? ROCE_WR_SEND_WITH_INV : ROCE_WR_SEND;
	wr.invalidate_rkey = inv_rkey;
	wr.send_flags = ROCE_SEND_SIGNALED;
	rc = roce_post_send(ep->qp, &wr, &bad);
	if (rc) {
		ep->send_free[ep->nsend_free++] = i;
		return rc;
	}
	ep->st.tx_msgs++;
	ep->st.send_inv += inv_rkey != 0;
	return 0;
}

/* ddp-write: len bytes from local (in the region) across a chunk's segments, unsignaled; the
 * reply's SEND that follows completes after them (RC ordering). lens[] gets what each segment
 * received. @return 0, or -ENOSPC when the chunk is too small */
static int prim_ddp_write(struct rpcrdma_ep *ep, const struct rpcrdma_seg *segs, uint32_t nsegs,
			  const uint8_t *local, uint32_t len, uint32_t *lens)
{
	uint32_t cap = 0, done = 0;

	for (uint32_t s = 0; s < nsegs; s++)
		cap += segs[s].length;
	if (cap < len)
		return -ENOSPC;
	for (uint32_t s = 0; s < nsegs; s++) {
		uint32_t n = len - done < segs[s].length ? len - done : segs[s].length;
		struct roce_sge sge = {(uintptr_t)(local + done), n, ep->mr->lkey};
		struct roce_send_wr wr, *bad;
		int rc;

		lens[s] = n;
		if (!n)
			continue;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = WR_ID(WR_WRITE, s);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = segs[s].offset;
		wr.wr.rdma.rkey = segs[s].handle;
		rc = roce_post_send(ep->qp, &wr, &bad);
		if (rc)
			return rc;
		done += n;
		ep->st.ddp_writes++;
		ep->st.ddp_write_bytes += n;
	}
	return 0;
}

/* ddp-read: one RDMA READ of a segment into local, signaled (the request waits for all) */
static int prim_ddp_read(struct rpcrdma_ep *ep, const struct rpcrdma_seg *seg, uint8_t *local,
			 uint32_t req)
{
	struct roce_sge sge = {(uintptr_t)local, seg->length, ep->mr->lkey};
	struct roce_send_wr wr, *bad;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ID(WR_READ, req);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = seg->offset;
	wr.wr.rdma.rkey = seg->handle;
	rc = roce_post_send(ep->qp, &wr, &bad);
	if (!rc) {
		ep->st.ddp_reads++;
		ep->st.ddp_read_bytes += seg->length;
	}
	return rc;
}

/* ---- server ---- */

static void send_error(struct rpcrdma_ep *ep, const struct rpcrdma_hdr *h, enum rpcrdma_dec d)
{
	struct rpcrdma_hdr_out o = {.xid = h->xid,
				    .vers = RPCRDMA_VERSION,
				    .credits = ep->credits,
				    .proc = RPCRDMA_ERROR};

	if (d == RPCRDMA_DEC_ERR_VERS) {
		o.err = RPCRDMA_ERR_VERS;
		o.vers_low = o.vers_high = RPCRDMA_VERSION;
		ep->st.err_vers_sent++;
	} else {
		o.err = RPCRDMA_ERR_CHUNK;
		ep->st.err_chunk_sent++;
	}
	rpcrdma_prim_send(ep, &o, NULL, 0, 0, NULL);
}

static uint32_t first_position(const struct rpcrdma_hdr *h)
{
	struct rpcrdma_rseg s;

	rpcrdma_read_seg(h, 0, &s);
	return s.position;
}

/* Can the read chunk land where the rebuilt call wants it? One chunk (every segment at one
 * position) of an RDMA_MSG, its position inside the inline body, and the whole call (the body
 * before it, the chunk and its round-up, the body after it) within stage_call. Then the RDMA
 * READs write the data where the call's XDR has it, and only the inline body is copied around
 * it: a WRITE's data is never copied on its way to the file. */
static bool in_place(const struct sreq *r, uint32_t clen)
{
	const struct rpcrdma_ep *ep = r->ep;
	uint32_t blen = r->len - r->h.hdr_len, pos = first_position(&r->h);
	struct rpcrdma_rseg s;

	if (r->h.proc != RPCRDMA_MSG || pos == 0 || pos > blen || pos & 3)
		return false;
	for (uint32_t i = 1; i < r->h.nr_rsegs; i++) {
		rpcrdma_read_seg(&r->h, i, &s);
		if (s.position != pos)
			return false;
	}
	return (uint64_t)pos + clen + 3 + (blen - pos) <= ep->conf.max_chunk;
}

/* Post the READs of every read segment into stage_in, each chunk at its own offset (or into
 * stage_call at the chunk's position: in_place). */
static enum rpcrdma_req_state step_received(struct sreq *r)
{
	struct rpcrdma_ep *ep = r->ep;
	uint32_t off = 0;

	r->dec = rpcrdma_hdr_decode(recv_buf(ep, r->rbuf), r->len, &r->h);
	if (r->dec == RPCRDMA_DEC_OK && r->h.proc == RPCRDMA_ERROR) {
		ep->st.rx_drop++; /* a client does not send RDMA_ERROR to a server's call */
		return RPCRDMA_REQ_DONE;
	}
	if (r->dec == RPCRDMA_DEC_DROP) {
		ep->st.rx_drop++;
		return RPCRDMA_REQ_DONE;
	}
	if (r->dec != RPCRDMA_DEC_OK)
		return RPCRDMA_REQ_ERR_HDR;
	if (r->h.proc == RPCRDMA_NOMSG && r->h.nr_rsegs == 0)
		return RPCRDMA_REQ_ERR_HDR; /* a call with no message anywhere */
	if (r->h.nr_rsegs == 0)
		return RPCRDMA_REQ_DISPATCH;
	r->reads_pending = 0;
	for (uint32_t i = 0; i < r->h.nr_rsegs; i++) {
		struct rpcrdma_rseg s;

		rpcrdma_read_seg(&r->h, i, &s);
		if (s.seg.length > ep->conf.max_chunk - off)
			return RPCRDMA_REQ_ERR_HDR; /* more than we can take: ERR_CHUNK */
		r->chunk_off[i] = off;
		off += s.seg.length;
	}
	r->in_place = in_place(r, off);
	r->chunks = r->in_place ? r->stage_call + first_position(&r->h) : r->stage_in;
	for (uint32_t i = 0; i < r->h.nr_rsegs; i++) {
		struct rpcrdma_rseg s;

		rpcrdma_read_seg(&r->h, i, &s);
		if (!s.seg.length)
			continue;
		if (prim_ddp_read(ep, &s.seg, r->chunks + r->chunk_off[i], r->idx) != 0)
			return RPCRDMA_REQ_ERR_RDMA;
		r->reads_pending++;
	}
	return r->reads_pending ? RPCRDMA_REQ_READING : RPCRDMA_REQ_DISPATCH;
}

/* Rebuild the call in stage_call: the inline body (or the position-zero chunk) with every other
 * read chunk spliced in at its XDR position, each padded to 4 bytes whether or not the peer
 * sent the round-up (RFC 8166 §3.4.5). @return its length, 0 when positions do not fit */
static uint32_t assemble_call(struct sreq *r)
{
	struct rpcrdma_ep *ep = r->ep;
	const uint8_t *base = recv_buf(ep, r->rbuf) + r->h.hdr_len;
	uint32_t blen = r->len - r->h.hdr_len, bpos = 0, out = 0, i = 0;
	uint8_t *dst = r->stage_call;
	uint32_t cap = ep->conf.max_chunk;

	if (r->in_place) {
		/* the chunk is at its position already: the body around it, and its round-up */
		struct rpcrdma_rseg s;
		uint32_t pos = first_position(&r->h), clen = 0;

		for (i = 0; i < r->h.nr_rsegs; i++) {
			rpcrdma_read_seg(&r->h, i, &s);
			clen += s.seg.length;
		}
		memcpy(dst, base, pos);
		out = pos + clen;
		while (out & 3)
			dst[out++] = 0;
		memcpy(dst + out, base + pos, blen - pos);
		ep->st.in_place_calls++;
		return out + (blen - pos);
	}
	if (r->h.proc == RPCRDMA_NOMSG) { /* the call is the position-zero chunk */
		struct rpcrdma_rseg s;

		base = r->stage_in;
		blen = 0;
		for (; i < r->h.nr_rsegs; i++) {
			rpcrdma_read_seg(&r->h, i, &s);
			if (s.position != 0)
				break;
			blen += s.seg.length;
		}
		if (blen == 0)
			return 0;
	}
	while (i < r->h.nr_rsegs) {
		struct rpcrdma_rseg s;
		uint32_t pos, clen = 0, first = i;

		rpcrdma_read_seg(&r->h, i, &s);
		pos = s.position;
		for (; i < r->h.nr_rsegs; i++) {
			rpcrdma_read_seg(&r->h, i, &s);
			if (s.position != pos)
				break;
			clen += s.seg.length;
		}
		/* the inline stream up to this chunk's position */
		if (pos < out || pos - out > blen - bpos || pos > cap)
			return 0;
		memcpy(dst + out, base + bpos, pos - out);
		bpos += pos - out;
		out = pos;
		/* the chunk and its round-up within cap (out may be cap already: no wrap) */
		if (cap - out < 3 || clen > cap - out - 3)
			return 0;
		memcpy(dst + out, r->chunks + r->chunk_off[first], clen);
		out += clen;
		while (out & 3)
			dst[out++] = 0;
	}
	if (blen - bpos > cap - out)
		return 0;
	memcpy(dst + out, base + bpos, blen - bpos);
	return out + (blen - bpos);
}

/* the one rkey of the call's chunks, or 0 when there are none or several (RFC 8797 §4.3: Send
 * With Invalidate only when exactly one key is involved) */
static uint32_t single_rkey(const struct rpcrdma_hdr *h)
{
	uint32_t key = 0;
	struct rpcrdma_seg s;
	struct rpcrdma_rseg rs;

#define ONE(k)                                                                                     \
	do {                                                                                       \
		if (key && (k) != key)                                                             \
			return 0;                                                                  \
		key = (k);                                                                         \
	} while (0)
	for (uint32_t i = 0; i < h->nr_rsegs; i++) {
		rpcrdma_read_seg(h, i, &rs);
		ONE(rs.seg.handle);
	}
	for (uint32_t c = 0; c < h->nr_wchunks; c++)
		for (uint32_t i = 0; i < h->wchunk_nsegs[c]; i++) {
			rpcrdma_write_seg(h, c, i, &s);
			ONE(s.handle);
		}
	for (uint32_t i = 0; h->has_reply && i < h->reply_nsegs; i++) {
		rpcrdma_reply_seg(h, i, &s);
		ONE(s.handle);
	}
#undef ONE
	return key;
}

static enum rpcrdma_req_state reply_out(struct sreq *r, uint32_t n, enum orpc_outcome oc);
static void ep_resume(struct orpc_pending *p, void *arg);

static enum rpcrdma_req_state step_dispatch(struct sreq *r)
{
	struct rpcrdma_ep *ep = r->ep;
	const uint8_t *call;
	uint32_t clen, n;
	enum orpc_outcome oc;

	if (r->h.nr_rsegs) {
		clen = assemble_call(r);
		if (!clen)
			return RPCRDMA_REQ_ERR_HDR;
		call = r->stage_call;
		if (r->h.proc == RPCRDMA_NOMSG)
			ep->st.long_calls++;
	} else {
		call = recv_buf(ep, r->rbuf) + r->h.hdr_len;
		clen = r->len - r->h.hdr_len;
	}
	/* DDP results may be placed straight into stage_in when the call offers a write chunk
	 * and brought no read chunk (stage_in is then unused until this reply's sends end) */
	ep->peer_addr.ddp_sink = NULL;
	ep->peer_addr.ddp_sink_len = 0;
	if (r->h.nr_wchunks && !r->h.nr_rsegs) {
		uint32_t cap = 0;

		for (uint32_t s = 0; s < r->h.wchunk_nsegs[0]; s++) {
			struct rpcrdma_seg seg;

			rpcrdma_write_seg(&r->h, 0, s, &seg);
			cap += seg.length;
		}
		ep->peer_addr.ddp_sink = r->stage_in;
		ep->peer_addr.ddp_sink_len = cap < ep->conf.max_chunk ? cap : ep->conf.max_chunk;
	}
	n = orpc_svc_dispatch_peer(ep->svc, call, clen, ep, &ep->peer_addr, r->stage_out,
				   ep->conf.max_chunk, &oc);
	if (oc == ORPC_OUT_DEFERRED) {
		/* the call (in its receive buffer or stage_call) stays until the upper layer is done */
		r->pending = orpc_svc_take_deferred(ep->svc, ep_resume, r);
		r->resumed = false;
		ep->st.deferred++;
		return RPCRDMA_REQ_HANDLING;
	}
	return reply_out(r, n, oc);
}

/* HANDLING: once the deferred call has ended, its reply goes out as dispatch's would. */
static enum rpcrdma_req_state step_handling(struct sreq *r)
{
	struct rpcrdma_ep *ep = r->ep;
	enum orpc_outcome oc;
	uint32_t n;

	if (!r->resumed)
		return RPCRDMA_REQ_HANDLING;
	n = orpc_svc_finish(ep->svc, r->pending, r->stage_out, ep->conf.max_chunk, &oc);
	r->pending = NULL;
	return reply_out(r, n, oc);
}

/* RDMA_ERROR ERR_CHUNK in place of a reply that cannot be conveyed in what the requester
 * provided (RFC 8166 §4.5.2): too long for inline without a reply chunk, a reply chunk that
 * cannot take it, or a transport header (the echoed write list and reply chunk) longer than
 * the peer receives inline. */
static enum rpcrdma_req_state err_chunk(struct rpcrdma_ep *ep, struct rpcrdma_hdr_out *o,
					struct sreq *r)
{
	ep->st.err_chunk_sent++;
	o->proc = RPCRDMA_ERROR;
	o->err = RPCRDMA_ERR_CHUNK;
	rpcrdma_prim_send(ep, o, NULL, 0, 0, r);
	return RPCRDMA_REQ_REPLYING;
}

/* The reply of n bytes in stage_out (outcome oc): DDP data into write chunk 0, a long reply
 * into the reply chunk, then the SEND. */
static enum rpcrdma_req_state reply_out(struct sreq *r, uint32_t n, enum orpc_outcome oc)
{
	struct rpcrdma_ep *ep = r->ep;
	struct rpcrdma_seg(*wsegs)[RPCRDMA_MAX_CHUNK_SEGS] = ep->wsegs;
	struct rpcrdma_seg *rsegs = ep->rsegs;
	struct rpcrdma_chunk wch[RPCRDMA_MAX_WRITE_CHUNKS], rch;
	struct rpcrdma_hdr_out o = {.xid = r->h.xid,
				    .vers = RPCRDMA_VERSION,
				    .credits = ep->credits,
				    .proc = RPCRDMA_MSG};
	uint32_t body, lens[RPCRDMA_MAX_CHUNK_SEGS];
	int hlen;

	if (!n)
		return RPCRDMA_REQ_DONE;
	body = n;
	/* the write list goes back with the bytes written in each segment */
	for (uint32_t c = 0; c < r->h.nr_wchunks; c++) {
		for (uint32_t s = 0; s < r->h.wchunk_nsegs[c]; s++) {
			rpcrdma_write_seg(&r->h, c, s, &wsegs[c][s]);
			wsegs[c][s].length = 0;
		}
		wch[c] = (struct rpcrdma_chunk){r->h.wchunk_nsegs[c], wsegs[c]};
	}
	o.nr_wchunks = r->h.nr_wchunks;
	o.wchunks = wch;
	if (oc == ORPC_OUT_SUCCESS && ep->svc->req.proc && ep->svc->req.proc->ddp_res &&
	    r->h.nr_wchunks && ep->svc->req.ddp_len) {
		uint32_t dlen = ep->svc->req.ddp_len, start;
		bool placed = ep->svc->req.ddp_placed;
		struct rpcrdma_seg segs[RPCRDMA_MAX_CHUNK_SEGS];
		const uint8_t *src;

		if (placed) {
			/* the handler put the data in stage_in (peer.ddp_sink): the encoded
			 * results end with the opaque's length */
			if (dlen > ep->conf.max_chunk)
				return RPCRDMA_REQ_ERR_HDR;
			start = n;
			src = r->stage_in;
		} else {
			if (dlen + PAD4(dlen) > n)
				return RPCRDMA_REQ_ERR_HDR;
			start = n - PAD4(dlen) - dlen;
			src = r->stage_out + start;
		}
		for (uint32_t s = 0; s < r->h.wchunk_nsegs[0]; s++)
			rpcrdma_write_seg(&r->h, 0, s, &segs[s]);
		if (prim_ddp_write(ep, segs, r->h.wchunk_nsegs[0], src, dlen, lens) == 0) {
			for (uint32_t s = 0; s < r->h.wchunk_nsegs[0]; s++)
				wsegs[0][s].length = lens[s];
			body = start; /* the data and its round-up leave the inline stream */
			r->stage_busy = true;
			ep->st.ddp_placed += placed;
		} else if (placed) {
			/* the data cannot go inline (the results were encoded without it); the
			 * sink's length was the chunk's, so only a failed post lands here */
			return RPCRDMA_REQ_ERR_RDMA;
		}
	}
	hlen = (int)rpcrdma_hdr_size(&o);
	if ((uint32_t)hlen + body > ep->inline_send) {
		/* a long reply: the body goes into the reply chunk (RFC 8166 §3.5.5) */
		if (!r->h.has_reply)
			return err_chunk(ep, &o, r);
		for (uint32_t s = 0; s < r->h.reply_nsegs; s++)
			rpcrdma_reply_seg(&r->h, s, &rsegs[s]);
		if (prim_ddp_write(ep, rsegs, r->h.reply_nsegs, r->stage_out, body, lens) != 0)
			return err_chunk(ep, &o, r);
		for (uint32_t s = 0; s < r->h.reply_nsegs; s++)
			rsegs[s].length = lens[s];
		rch = (struct rpcrdma_chunk){r->h.reply_nsegs, rsegs};
		o.reply = &rch;
		o.proc = RPCRDMA_NOMSG;
		r->stage_busy = true;
		ep->st.long_replies++;
		body = 0;
	}
	/* the chunk lists alone can outgrow a peer that receives less than it sends */
	if (rpcrdma_hdr_size(&o) + body > ep->inline_send)
		return err_chunk(ep, &o, r);
	if (rpcrdma_prim_send(ep, &o, r->stage_out, body,
			      ep->peer.remote_inv_ok ? single_rkey(&r->h) : 0, r) != 0)
		return RPCRDMA_REQ_ERR_RDMA;
	return RPCRDMA_REQ_REPLYING;
}

/* Run one request as far as it goes. */
static void run_req(struct sreq *r)
{
	struct rpcrdma_ep *ep = r->ep;
	enum rpcrdma_req_state prev, next;

	do {
		prev = r->state;
		switch (r->state) {
		case RPCRDMA_REQ_RECEIVED:
			next = step_received(r);
			break;
		case RPCRDMA_REQ_READING:
			next = r->reads_pending ? RPCRDMA_REQ_READING : RPCRDMA_REQ_DISPATCH;
			break;
		case RPCRDMA_REQ_DISPATCH:
			next = step_dispatch(r);
			break;
		case RPCRDMA_REQ_HANDLING:
			next = step_handling(r);
			break;
		case RPCRDMA_REQ_ERR_HDR:
			send_error(ep, &r->h,
				   r->dec == RPCRDMA_DEC_ERR_VERS ? RPCRDMA_DEC_ERR_VERS
								  : RPCRDMA_DEC_ERR_CHUNK);
			next = RPCRDMA_REQ_DONE;
			break;
		case RPCRDMA_REQ_REPLYING:
			next = RPCRDMA_REQ_DONE;
			break;
		case RPCRDMA_REQ_ERR_RDMA:
			ep->failed = true;
			next = RPCRDMA_REQ_DONE;
			break;
		case RPCRDMA_REQ_DONE:
			/* the call is consumed: its receive goes back, keeping credits = receives */
			if (!ep->failed && rpcrdma_post_recv(ep, r->rbuf) != 0)
				ep->failed = true;
			ep->inflight--;
			next = RPCRDMA_REQ_FREE;
			break;
		default:
			next = r->state;
			break;
		}
		if (next != prev)
			set_state(r, next);
	} while (r->state != prev);
}

/* A request that may take the next call: free, and its staging no longer read by frames. */
static struct sreq *idle_req(struct rpcrdma_ep *ep)
{
	for (uint32_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].state == RPCRDMA_REQ_FREE && !ep->reqs[i].stage_busy)
			return &ep->reqs[i];
	return NULL;
}

/* Start the calls received, in arrival order, as requests become idle (up to nreqs at once:
 * a call deferred to the upper layer no longer holds up the ones behind it); move on the
 * requests whose READs have all completed. */
static void server_progress(struct rpcrdma_ep *ep)
{
	struct sreq *r;

	while (ep->fifo_n && ep->nsend_free && !ep->quiesced && (r = idle_req(ep))) {
		r->rbuf = ep->fifo[ep->fifo_head];
		r->len = ep->fifo_len[ep->fifo_head];
		ep->fifo_head = (ep->fifo_head + 1) % ep->nrecv;
		ep->fifo_n--;
		set_state(r, RPCRDMA_REQ_RECEIVED);
		run_req(r);
	}
	for (uint32_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].state == RPCRDMA_REQ_READING && !ep->reqs[i].reads_pending)
			run_req(&ep->reqs[i]);
}

/* The upper layer ended the deferred call (on this endpoint's lcore). */
static void ep_resume(struct orpc_pending *p, void *arg)
{
	struct sreq *r = arg;
	struct rpcrdma_ep *ep = r->ep;

	if (ep->closing) {
		/* the QP is gone: nothing to answer; rpcrdma_ep_destroy can finish now */
		orpc_svc_finish(ep->svc, p, NULL, 0, NULL);
		r->pending = NULL;
		r->state = RPCRDMA_REQ_FREE;
		return;
	}
	r->resumed = true;
	run_req(r);
	server_progress(ep);
}

/* ---- client ---- */

static int post_local(struct rpcrdma_ep *ep, struct roce_send_wr *wr)
{
	struct roce_send_wr *bad;

	return roce_post_send(ep->qp, wr, &bad);
}

static int frwr_register(struct rpcrdma_ep *ep, struct cslot *k, uint32_t key)
{
	struct roce_send_wr wr;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ID(WR_REG, k - ep->slots);
	wr.opcode = ROCE_WR_REG_MR;
	wr.wr.reg.mr = k->frmr;
	wr.wr.reg.key = key;
	wr.wr.reg.access =
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_WRITE;
	wr.wr.reg.addr = k->call;
	wr.wr.reg.iova = (uintptr_t)k->call;
	wr.wr.reg.length = 3 * (uint64_t)ep->conf.max_chunk;
	rc = post_local(ep, &wr);
	if (rc)
		return rc;
	k->gen++;
	k->key = key;
	k->registered = true;
	ep->last_key = key;
	ep->last_iova = (uintptr_t)k->call;
	ep->st.frwr_regs++;
	return 0;
}

/* The reply came without invalidating the call's key: invalidate it ourselves, and hand the
 * reply over only once that is done (RFC 8166 §3.4.? : the server must not reach the
 * staging once the upper layer has the data). */
static int frwr_local_inv(struct rpcrdma_ep *ep, struct cslot *k, uint32_t rbuf, uint32_t len)
{
	struct roce_send_wr wr;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ID(WR_LINV, k - ep->slots);
	wr.opcode = ROCE_WR_LOCAL_INV;
	wr.invalidate_rkey = k->key;
	wr.send_flags = ROCE_SEND_SIGNALED;
	rc = post_local(ep, &wr);
	if (rc)
		return rc;
	k->inv_pending = true;
	k->held_rbuf = rbuf;
	k->held_len = len;
	ep->st.local_invs++;
	return 0;
}

uint32_t rpcrdma_clnt_room(const struct rpcrdma_ep *ep)
{
	uint32_t room = ep->credits > ep->outstanding ? ep->credits - ep->outstanding : 0;
	uint32_t slots = ep->nslots - ep->outstanding;

	if (!ep->started || ep->failed)
		return 0;
	return room < slots ? room : slots;
}

int rpcrdma_clnt_call(struct rpcrdma_ep *ep, const struct rpcrdma_call *c, rpcrdma_done_t done,
		      void *ctx)
{
	struct rpcrdma_hdr_out o = {
		.vers = RPCRDMA_VERSION, .credits = ep->nslots, .proc = RPCRDMA_MSG};
	struct rpcrdma_seg wseg, rseg;
	struct rpcrdma_rseg rd;
	struct rpcrdma_chunk wch, rch;
	struct cslot *k = NULL;
	uint32_t tail, pad, ilen, key;
	const uint8_t *inl = c->msg;
	int rc;

	if (!ep->started || ep->failed)
		return -ENOTCONN;
	if (!rpcrdma_clnt_room(ep))
		return -EBUSY;
	if (c->len < 4 || c->len > ep->conf.max_chunk || c->reply_max > ep->conf.max_chunk)
		return -E2BIG;
	if (c->ddp_len &&
	    (c->ddp_off > c->len || c->ddp_len > c->len - c->ddp_off || c->ddp_off & 3))
		return -EINVAL;
	for (uint32_t i = 0; i < ep->nslots && !k; i++)
		if (!ep->slots[i].used)
			k = &ep->slots[i];
	k->has_reply_chunk = false; /* a refused call before may have left it set */
	/* the key the chunks name: the slot's next fast-registration key, or the persistent one */
	key = ep->conf.frwr ? (k->frmr->index << 8) | (uint8_t)(k->gen + 1) : ep->mr->rkey;
	memcpy(&o.xid, c->msg, 4);
	ilen = c->len;
	if (c->ddp_len) {
		/* the opaque's content goes by read chunk at its position; the inline stream keeps
		 * everything else (RFC 8166 §3.5.3), without the content's round-up */
		pad = PAD4(c->ddp_len);
		tail = c->len - c->ddp_off - c->ddp_len;
		tail = tail >= pad ? tail - pad : 0;
		memcpy(k->call, c->msg, c->ddp_off);
		memcpy(k->call + c->ddp_off, c->msg + c->len - tail, tail);
		memcpy(k->wdata, c->msg + c->ddp_off, c->ddp_len); /* the content, to be read */
		rd = (struct rpcrdma_rseg){c->ddp_off, {key, c->ddp_len, iova(ep, k->wdata)}};
		o.nr_rsegs = 1;
		o.rsegs = &rd;
		inl = k->call;
		ilen = c->ddp_off + tail;
	}
	if (c->ddp_reply) {
		if (c->ddp_len)
			return -EINVAL; /* one staging area for DDP in either direction */
		wseg = (struct rpcrdma_seg){key, ep->conf.max_chunk, iova(ep, k->wdata)};
		wch = (struct rpcrdma_chunk){1, &wseg};
		o.nr_wchunks = 1;
		o.wchunks = &wch;
	}
	if (c->reply_max + 64 > ep->inline_recv) {
		rseg = (struct rpcrdma_seg){key, c->reply_max, iova(ep, k->reply)};
		rch = (struct rpcrdma_chunk){1, &rseg};
		o.reply = &rch;
		k->has_reply_chunk = true;
	}
	if (rpcrdma_hdr_size(&o) + ilen > ep->inline_send) {
		/* a long call: all of it by a position-zero read chunk (RFC 8166 §3.5.4) */
		if (c->ddp_len)
			return -E2BIG;
		memcpy(k->call, c->msg, c->len);
		rd = (struct rpcrdma_rseg){0, {key, c->len, iova(ep, k->call)}};
		o.nr_rsegs = 1;
		o.rsegs = &rd;
		o.proc = RPCRDMA_NOMSG;
		ilen = 0;
		ep->st.long_calls++;
	}
	if (ep->conf.frwr && (o.nr_rsegs || o.nr_wchunks || o.reply)) {
		/* FRWR: the staging this call exposes gets a key of its own, registered ahead of
		 * the SEND on the same queue (the server's READs and WRITEs follow the SEND) */
		rc = frwr_register(ep, k, key);
		if (rc)
			return rc;
	}
	rc = rpcrdma_prim_send(ep, &o, inl, ilen, 0, NULL);
	if (rc)
		return rc;
	k->used = true;
	k->xid = o.xid;
	k->has_wchunk = c->ddp_reply;
	k->done = done;
	k->ctx = ctx;
	ep->outstanding++;
	return 0;
}

static void slot_finish(struct rpcrdma_ep *ep, struct cslot *k, int err, const uint8_t *reply,
			uint32_t len)
{
	rpcrdma_done_t done = k->done;
	void *ctx = k->ctx;

	k->used = false;
	k->has_reply_chunk = k->has_wchunk = false;
	k->inv_pending = false;
	ep->outstanding--;
	if (done)
		done(ctx, err, reply, len);
}

static void client_recv(struct rpcrdma_ep *ep, uint32_t i, uint32_t len, uint32_t inv_key)
{
	const uint8_t *b = recv_buf(ep, i);
	struct cslot *k = NULL;
	struct rpcrdma_hdr h;
	enum rpcrdma_dec d = rpcrdma_hdr_decode(b, len, &h);
	const uint8_t *reply;
	uint32_t rlen, wlen = 0;

	if (d != RPCRDMA_DEC_OK) {
		ep->st.rx_drop++;
		goto repost;
	}
	if (rpcrdma_bc_client_recv(ep, &h, b + h.hdr_len, len - h.hdr_len))
		goto repost;
	for (uint32_t s = 0; s < ep->nslots && !k; s++)
		if (ep->slots[s].used && ep->slots[s].xid == h.xid)
			k = &ep->slots[s];
	if (!k) {
		ep->st.stray_replies++;
		goto repost;
	}
	if (k->registered) {
		if (inv_key == k->key) {
			k->registered = false; /* the server's Send With Invalidate did it */
		} else {
			if (frwr_local_inv(ep, k, i, len) != 0) {
				ep->failed = true;
				goto repost;
			}
			return; /* the buffer is held until the LOCAL_INV completes */
		}
	}
	if (h.credits) /* a grant of 0 is never honoured: it would stop us for good */
		ep->credits = h.credits < ep->nslots ? h.credits : ep->nslots;
	if (h.proc == RPCRDMA_ERROR) {
		if (h.err == RPCRDMA_ERR_VERS)
			ep->st.err_vers_rx++;
		else
			ep->st.err_chunk_rx++;
		slot_finish(ep, k, -EPROTO, NULL, 0);
		goto repost;
	}
	if (h.proc == RPCRDMA_NOMSG) {
		struct rpcrdma_seg s;

		if (!k->has_reply_chunk || !h.has_reply) {
			slot_finish(ep, k, -EPROTO, NULL, 0);
			goto repost;
		}
		rlen = 0;
		for (uint32_t j = 0; j < h.reply_nsegs; j++) {
			rpcrdma_reply_seg(&h, j, &s);
			rlen += s.length;
		}
		reply = k->reply;
		if (rlen > ep->conf.max_chunk)
			rlen = ep->conf.max_chunk;
	} else {
		reply = b + h.hdr_len;
		rlen = len - h.hdr_len;
	}
	if (k->has_wchunk && h.nr_wchunks) {
		struct rpcrdma_seg s;

		for (uint32_t j = 0; j < h.wchunk_nsegs[0]; j++) {
			rpcrdma_write_seg(&h, 0, j, &s);
			wlen += s.length;
		}
	}
	if (wlen) {
		/* the results' trailing opaque came by write chunk: append it and its round-up */
		if (wlen > ep->conf.max_chunk || rlen > ep->conf.max_chunk) {
			slot_finish(ep, k, -EPROTO, NULL, 0);
			goto repost;
		}
		memmove(ep->scratch, reply, rlen);
		memcpy(ep->scratch + rlen, k->wdata, wlen);
		memset(ep->scratch + rlen + wlen, 0, PAD4(wlen));
		reply = ep->scratch;
		rlen += wlen + PAD4(wlen);
		ep->st.ddp_replies++;
	}
	ep->st.long_replies += h.proc == RPCRDMA_NOMSG;
	slot_finish(ep, k, 0, reply, rlen);
repost:
	if (rpcrdma_post_recv(ep, i) != 0)
		ep->failed = true;
}

static void fail_all(struct rpcrdma_ep *ep, int err)
{
	for (uint32_t i = 0; i < ep->nslots; i++)
		if (ep->slots[i].used)
			slot_finish(ep, &ep->slots[i], err, NULL, 0);
}

/* ---- completions ---- */

/* A SEND completed (or was flushed): its buffer is free, and when it was a request's reply,
 * the WRITEs posted before it are done too (RC completes in order): its staging is free. */
static void send_done(struct rpcrdma_ep *ep, uint32_t i)
{
	if (i >= ep->nsend)
		return;
	ep->send_free[ep->nsend_free++] = i;
	/* droce-nfsperf's randrw verify over RDMA caught the stage freed by an earlier reply's
	 * SEND: the next call's read chunk landed under a READ reply's WRITEs still going out */
	if (ep->send_req[i] >= 0 && (uint32_t)ep->send_req[i] < ep->nreqs)
		ep->reqs[ep->send_req[i]].stage_busy = false;
	ep->send_req[i] = -1;
}

int rpcrdma_ep_poll(struct rpcrdma_ep *ep)
{
	struct roce_wc wc[32];
	int n = roce_poll_cq(ep->cq, 32, wc);

	for (int j = 0; j < n; j++) {
		uint64_t type = WR_TYPE(wc[j].wr_id);
		uint32_t idx = WR_IDX(wc[j].wr_id);

		if (wc[j].status != ROCE_WC_SUCCESS) {
			/* a flush is the QP going to ERR (a disconnect, or the error that
			 * caused it, counted then): not an error of its own */
			if (wc[j].status == ROCE_WC_WR_FLUSH_ERR)
				ep->st.flushed++;
			else
				ep->st.rdma_errors++;
			if (wc[j].status != ROCE_WC_WR_FLUSH_ERR && !ep->fail_wr) {
				ep->fail_status = wc[j].status;
				ep->fail_wr = (uint8_t)type;
			}
			ep->st.rx_too_long +=
				type == WR_RECV && wc[j].status == ROCE_WC_LOC_LEN_ERR;
			ep->failed = true;
			if (type == WR_SEND)
				send_done(ep, idx);
			if (type == WR_READ && idx < ep->nreqs && ep->reqs[idx].reads_pending)
				ep->reqs[idx].reads_pending--;
			continue;
		}
		switch (type) {
		case WR_RECV:
			ep->st.rx_msgs++;
			if (wc[j].wc_flags & ROCE_WC_WITH_INV)
				ep->st.remote_inv++;
			if (ep->role == RPCRDMA_CLIENT) {
				client_recv(ep, idx, wc[j].byte_len,
					    wc[j].wc_flags & ROCE_WC_WITH_INV
						    ? wc[j].invalidated_rkey
						    : 0);
				break;
			}
			if (rpcrdma_bc_server_recv(ep, idx, wc[j].byte_len))
				break;
			if (ep->inflight >= ep->credits)
				ep->st.credit_overrun++;
			ep->inflight++;
			ep->fifo[(ep->fifo_head + ep->fifo_n) % ep->nrecv] = idx;
			ep->fifo_len[(ep->fifo_head + ep->fifo_n) % ep->nrecv] = wc[j].byte_len;
			ep->fifo_n++;
			break;
		case WR_SEND:
			send_done(ep, idx);
			break;
		case WR_READ:
			if (idx < ep->nreqs && ep->reqs[idx].reads_pending)
				ep->reqs[idx].reads_pending--;
			break;
		case WR_LINV:
			/* the call's key is gone: now its reply may be used */
			if (idx < ep->nslots && ep->slots[idx].inv_pending) {
				struct cslot *k = &ep->slots[idx];

				k->inv_pending = false;
				k->registered = false;
				client_recv(ep, k->held_rbuf, k->held_len, 0);
			}
			break;
		default:
			break;
		}
	}
	if (ep->failed) {
		if (ep->role == RPCRDMA_CLIENT) {
			fail_all(ep, -EIO);
			return n;
		}
		rpcrdma_bc_fail_all(ep, -ENOTCONN);
		for (uint32_t i = 0; i < ep->nreqs; i++) {
			if (ep->reqs[i].state != RPCRDMA_REQ_READING)
				continue;
			set_state(&ep->reqs[i], RPCRDMA_REQ_ERR_RDMA);
			run_req(&ep->reqs[i]);
		}
		return n;
	}
	if (ep->role == RPCRDMA_SERVER)
		server_progress(ep);
	return n;
}

void rpcrdma_ep_quiesce(struct rpcrdma_ep *ep)
{
	ep->quiesced = true;
}

bool rpcrdma_ep_deferred(const struct rpcrdma_ep *ep)
{
	for (uint32_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].pending)
			return true;
	return false;
}

bool rpcrdma_ep_busy(const struct rpcrdma_ep *ep)
{
	/* a call being served, or a SEND (a reply, with the WRITEs before it) not completed */
	if (ep->failed)
		return false;
	for (uint32_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].state != RPCRDMA_REQ_FREE)
			return true;
	return ep->nsend_free < ep->nsend;
}

void rpcrdma_ep_info(const struct rpcrdma_ep *ep, struct rpcrdma_ep_info *i)
{
	i->peer_priv = ep->peer.present;
	i->peer_remote_inv = ep->peer.remote_inv_ok;
	i->inline_send = ep->inline_send;
	i->inline_recv = ep->inline_recv;
	i->credits = ep->credits;
	i->calls_waiting = ep->role == RPCRDMA_SERVER ? ep->fifo_n : 0;
	i->calls_serving = 0;
	for (uint32_t k = 0; ep->role == RPCRDMA_SERVER && k < ep->nreqs; k++)
		i->calls_serving += ep->reqs[k].state != RPCRDMA_REQ_FREE;
	i->failed = ep->failed;
	i->fail_status = ep->fail_status;
	{
		static const char *const wr_names[] = {"",	    "receive",	  "SEND",
						       "RDMA READ", "RDMA WRITE", "registration",
						       "LOCAL_INV"};

		i->fail_wr = ep->fail_wr < sizeof(wr_names) / sizeof(wr_names[0])
				     ? wr_names[ep->fail_wr]
				     : "";
	}
	i->last_frwr_key = ep->last_key;
	i->last_frwr_iova = ep->last_iova;
}

const char *rpcrdma_ep_fail_str(const struct rpcrdma_ep_info *i, char *buf, size_t len)
{
	if (!i->fail_wr || !i->fail_wr[0])
		return NULL;
	snprintf(buf, len, "%s on its %s", roce_wc_status_str(i->fail_status), i->fail_wr);
	return buf;
}

const struct rpcrdma_ep_stats *rpcrdma_ep_stats(const struct rpcrdma_ep *ep)
{
	return &ep->st;
}

int rpcrdma_ep_destroy(struct rpcrdma_ep *ep)
{
	bool busy = false;

	if (!ep)
		return 0;
	if (!ep->closing) {
		ep->closing = true;
		fail_all(ep, -ECANCELED);
		rpcrdma_bc_fail_all(ep, -ENOTCONN);
	}
	if (!ep->qp_gone) {
		/* on a device with several lanes the QP goes after its lane let go of it and a
		 * grace period (roce_destroy_qp's -EBUSY): until then nothing else can go */
		if (roce_destroy_qp(ep->qp) == -EBUSY)
			return -EBUSY;
		ep->qp_gone = true;
		/* the completions left in the CQ go with it (roce_destroy_cq frees their mbufs):
		 * no poll here, which on a device with lanes may be another lane's CQ */
	}
	/* a deferred call still reads its arguments from our buffers: wait for it to end */
	for (uint32_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].pending)
			busy = true;
	/* a region that queued frames still point into cannot go yet (roce_dereg_mr: -EBUSY);
	 * its memory stays until it can */
	for (uint32_t i = 0; i < RPCRDMA_CLNT_MAX_SLOTS; i++) {
		if (ep->slots[i].frmr && roce_dereg_mr(ep->slots[i].frmr) == -EBUSY)
			busy = true;
		else
			ep->slots[i].frmr = NULL;
	}
	if (ep->mr && roce_dereg_mr(ep->mr) == -EBUSY)
		busy = true;
	else
		ep->mr = NULL;
	if (busy)
		return -EBUSY;
	roce_destroy_cq(ep->cq);
	region_put(ep);
	rte_free(ep->send_free);
	rte_free(ep->fifo);
	rte_free(ep);
	return 0;
}

void rpcrdma_ep_set_peer(struct rpcrdma_ep *ep, const struct stk_ipaddr *ip, uint16_t port)
{
	memset(&ep->peer_addr, 0, sizeof(ep->peer_addr));
	ep->peer_addr.xprt = ORPC_XPRT_RDMA;
	ep->peer_addr.bc_id = ep->bc_id;
	if (ip->family == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ep->peer_addr.addr;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = ip->v4;
		a->sin_port = htons(port);
	} else if (ip->family == 6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ep->peer_addr.addr;

		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, ip->v6, 16);
		a->sin6_port = htons(port);
	}
}
