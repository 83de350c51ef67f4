/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_int.h - private to rpc/rpcrdma/: the endpoint's state (struct rpcrdma_ep, its server
 * requests and client call slots) and what rpcrdma_ep.c (buffers, primitives, the server's
 * request state machine, the client's calls) and rpcrdma_bc.c (the backchannel, RFC 8167) both
 * use. Not for other layers or folders: they see rpcrdma_ep.h only.
 */
#ifndef RPCRDMA_INT_H
#define RPCRDMA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpcrdma_ep.h"

struct rpcrdma_ep;

struct sreq { /* a server request being worked on: one of the endpoint's calls served at once */
	struct rpcrdma_ep *ep;
	uint32_t idx; /* in ep->reqs */
	enum rpcrdma_req_state state;
	/* its staging: read chunks (or the DDP sink), the rebuilt call, the reply */
	uint8_t *stage_in, *stage_call, *stage_out;
	bool stage_busy;    /* its chunk WRITEs and reply SEND are not complete yet */
	uint32_t rbuf, len; /* receive buffer and bytes in it */
	struct rpcrdma_hdr h;
	enum rpcrdma_dec dec;
	uint32_t reads_pending;
	uint32_t chunk_off[RPCRDMA_MAX_READ_SEGS]; /* where each read segment lands in chunks */
	/* where the read segments land: stage_in, or stage_call at the chunk's XDR position when
	 * the call has one read chunk in its inline body (in place: no copy to rebuild it) */
	uint8_t *chunks;
	bool in_place;
	struct orpc_pending *pending; /* HANDLING: the deferred call */
	bool resumed;		      /* HANDLING: it has ended */
};

struct bcslot { /* server: a backchannel call in flight (RFC 8167) */
	bool used;
	uint32_t xid;
	rpcrdma_done_t done;
	void *ctx;
};

struct cslot { /* a client call in flight */
	bool used;
	uint32_t xid;		       /* network order */
	uint8_t *call, *reply, *wdata; /* staging: long call / DDP args, reply chunk, write chunk */
	bool has_reply_chunk, has_wchunk;
	rpcrdma_done_t done;
	void *ctx;
	/* FRWR: this slot's fast-registration region over its staging */
	struct roce_mr *frmr;
	uint32_t key;	  /* the key of the current registration */
	uint8_t gen;	  /* its low byte, new for every registration */
	bool registered;  /* the key is valid: invalidate before the reply is used */
	bool inv_pending; /* a LOCAL_INV is on its way; the reply waits in held_rbuf */
	uint32_t held_rbuf, held_len;
};

struct rpcrdma_ep {
	enum rpcrdma_role role;
	struct rpcrdma_ep_conf conf;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	struct orpc_svc *svc;
	struct orpc_peer peer_addr; /* who is at the other end, for the upper layer */
	uint8_t *region;
	uint64_t region_len;
	uint32_t nrecv, nsend;
	uint8_t *recv_bufs, *send_bufs;
	uint32_t *send_free, nsend_free;
	/* server */
	uint32_t *fifo, fifo_head, fifo_n; /* received buffers in arrival order */
	uint32_t *fifo_len;
	struct sreq reqs[RPCRDMA_SRV_MAX_CALLS];
	uint32_t nreqs;
	/* the request whose staging a send buffer's SEND frees (the reply SEND behind its chunk
	 * WRITEs), or -1: a reply that used no staging must not free it, since the request may
	 * have taken its staging again for a later call before that SEND completes */
	int16_t send_req[RPCRDMA_MAX_SENDS];
	uint32_t inflight;
	struct rpcrdma_seg wsegs[RPCRDMA_MAX_WRITE_CHUNKS]
				[RPCRDMA_MAX_CHUNK_SEGS]; /* the reply's */
	struct rpcrdma_seg rsegs[RPCRDMA_MAX_CHUNK_SEGS];
	/* client */
	struct cslot slots[RPCRDMA_CLNT_MAX_SLOTS];
	uint32_t nslots;
	/* server: backchannel calls in flight (RFC 8167) */
	struct bcslot bc[RPCRDMA_BC_SLOTS];
	uint64_t bc_id; /* server: its registration in svc->bc, 0 when none */
	uint32_t outstanding;
	uint8_t *scratch; /* a reply rebuilt with its write-chunk data */
	/* negotiated */
	struct rpcrdma_cm_priv peer;
	uint32_t inline_send, credits;
	uint32_t inline_recv; /* what the peer may send us inline: RFC 8797 §7, both sides' words */
	bool started, failed, closing;
	/* the first completion that failed it (not a flush): what, and on which work request */
	enum roce_wc_status fail_status;
	uint8_t fail_wr; /* WR_RECV ... WR_LINV (rpcrdma_ep.c); 0: none */
	bool qp_gone;	 /* rpcrdma_ep_destroy destroyed the QP */
	bool quiesced;	 /* rpcrdma_ep_quiesce: calls received from now on wait unserved */
	uint32_t last_key;
	uint64_t last_iova;
	struct rpcrdma_ep_stats st;
};

static inline uint8_t *recv_buf(struct rpcrdma_ep *ep, uint32_t i)
{
	return ep->recv_bufs + (size_t)i * ep->conf.inline_max;
}

/* ---- in rpcrdma_ep.c ---- */

/** Post receive buffer i again. @return 0, or -errno from roce_post_recv */
int rpcrdma_post_recv(struct rpcrdma_ep *ep, uint32_t i);

/**
 * The send primitive: a header and an inline body from a send buffer; inv_rkey != 0 asks the
 * peer to invalidate; r: the server request whose staging the SEND's completion frees (NULL:
 * none). @return 0, -EBUSY (no send buffer), -E2BIG (longer than the peer's inline receive),
 * or -errno from roce_post_send
 */
int rpcrdma_prim_send(struct rpcrdma_ep *ep, const struct rpcrdma_hdr_out *o, const uint8_t *body,
		      uint32_t blen, uint32_t inv_rkey, const struct sreq *r);

/* ---- in rpcrdma_bc.c ---- */

/** Server, at start: register the connection's backchannel in svc->bc (once; none without a
 * table) and give its id to the upper layer through peer_addr. */
void rpcrdma_bc_register(struct rpcrdma_ep *ep);

/**
 * Server, a receive completed: when it is a reply on the backchannel, hand it over and post
 * the receive again at once.
 * @return true when taken (the buffer is posted again), false for a forward call
 */
bool rpcrdma_bc_server_recv(struct rpcrdma_ep *ep, uint32_t idx, uint32_t len);

/**
 * Client, a receive decoded: when it is a call from the server on the backchannel (an
 * RDMA_MSG whose RPC direction word says CALL), serve it.
 * @return true when it was one (the caller posts the buffer again), false for a reply
 */
bool rpcrdma_bc_client_recv(struct rpcrdma_ep *ep, const struct rpcrdma_hdr *h, const uint8_t *m,
			    uint32_t len);

/** End every backchannel call still waiting with err and leave svc->bc. */
void rpcrdma_bc_fail_all(struct rpcrdma_ep *ep, int err);

#endif /* RPCRDMA_INT_H */
