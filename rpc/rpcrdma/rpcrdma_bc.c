/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_bc.c - the backchannel of an RPC-over-RDMA v1 endpoint (RFC 8167): calls in the
 * reverse direction on the same connection, inline only, told from forward traffic by the RPC
 * direction word.
 *
 * Operation (server): the connection registers itself in the upper layer's backchannel table
 * (orpc_bc) at start; a backward call takes one of RPCRDMA_BC_SLOTS slots and goes out as an
 * RDMA_MSG with no chunks. Its reply lands in one of the RPCRDMA_BC_SLOTS receives posted
 * beyond the credits, is matched to its slot by xid, handed over, and the receive is posted
 * again at once. A call the upper layer cancels frees its slot (a late reply is a stray); when
 * the connection fails or is destroyed, every call still waiting ends with an error and the
 * connection leaves the table.
 *
 * Operation (client): a call from the server is dispatched through the client's backchannel
 * programs and answered inline; one that cannot be is dropped and counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "orpc_bc.h"
#include "rpcrdma_int.h"

/* The RPC direction of an inline message: 0 CALL, 1 REPLY, or -1 when too short (RFC 8167 §4:
 * a receiver tells backchannel traffic from forward traffic by this word). */
static int msg_direction(const uint8_t *m, uint32_t len)
{
	if (len < 8)
		return -1;
	return m[4] == 0 && m[5] == 0 && m[6] == 0 && m[7] <= 1 ? m[7] : -1;
}

/* The backchannel call in flight with this xid (network order), or NULL. */
static struct bcslot *bc_slot_of(struct rpcrdma_ep *ep, uint32_t xid)
{
	for (uint32_t i = 0; i < RPCRDMA_BC_SLOTS; i++)
		if (ep->bc[i].used && ep->bc[i].xid == xid)
			return &ep->bc[i];
	return NULL;
}

static int rdma_bc_call(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done,
			void *ctx)
{
	return rpcrdma_ep_bc_call(conn, msg, len, done, ctx);
}

/* The upper layer gave up on a backward call: its slot is free, a late reply is a stray. */
static int rdma_bc_cancel(void *conn, uint32_t xid)
{
	struct bcslot *b = bc_slot_of(conn, xid);

	if (!b)
		return -ENOENT;
	memset(b, 0, sizeof(*b));
	return 0;
}

static const struct orpc_bc_ops rdma_bc_ops = {
	.call = rdma_bc_call, .cancel = rdma_bc_cancel, .name = "rdma"};

void rpcrdma_bc_register(struct rpcrdma_ep *ep)
{
	if (ep->role == RPCRDMA_SERVER && ep->svc->bc && !ep->bc_id)
		ep->bc_id = orpc_bc_register(ep->svc->bc, &rdma_bc_ops, ep);
	ep->peer_addr.bc_id = ep->bc_id;
}

/* ---- server ---- */

/* A reply to one of our backchannel calls: hand it over. */
static void bc_reply(struct rpcrdma_ep *ep, const uint8_t *m, uint32_t len)
{
	struct bcslot *b;
	rpcrdma_done_t done;
	uint32_t xid;
	void *ctx;

	memcpy(&xid, m, 4);
	b = bc_slot_of(ep, xid);
	if (!b) {
		ep->st.stray_replies++;
		return;
	}
	done = b->done;
	ctx = b->ctx;
	b->used = false;
	ep->st.bc_replies_rx++;
	if (done)
		done(ctx, 0, m, len);
}

/* Server, a receive completed: when it is a reply on the backchannel (RFC 8167: an RDMA_MSG
 * with no chunks whose RPC direction word says REPLY), hand it over and post the receive again
 * at once. It came in one of the RPCRDMA_BC_SLOTS receives posted beyond the credits, so it
 * neither counts as a forward call in flight nor waits behind them. @return true when taken */
bool rpcrdma_bc_server_recv(struct rpcrdma_ep *ep, uint32_t idx, uint32_t len)
{
	struct rpcrdma_hdr h;
	const uint8_t *b = recv_buf(ep, idx);
	uint32_t w[9];

	/* a glance first, so a forward call is not decoded twice: RDMA_MSG, three empty chunk
	 * lists (28 bytes of header), then xid and a direction word of REPLY */
	if (len < sizeof(w))
		return false;
	memcpy(w, b, sizeof(w));
	if (ntohl(w[3]) != RPCRDMA_MSG || w[4] || w[5] || w[6] || ntohl(w[8]) != 1)
		return false;
	if (rpcrdma_hdr_decode(b, len, &h) != RPCRDMA_DEC_OK || h.proc != RPCRDMA_MSG ||
	    h.nr_rsegs || h.nr_wchunks || h.has_reply ||
	    msg_direction(b + h.hdr_len, len - h.hdr_len) != 1)
		return false;
	bc_reply(ep, b + h.hdr_len, len - h.hdr_len);
	if (!ep->failed && rpcrdma_post_recv(ep, idx) != 0)
		ep->failed = true;
	return true;
}

/* End every backchannel call still waiting (each done once: its slot is freed first) and
 * leave the table: the connection can carry no more. */
void rpcrdma_bc_fail_all(struct rpcrdma_ep *ep, int err)
{
	if (ep->bc_id && ep->svc && ep->svc->bc)
		orpc_bc_unregister(ep->svc->bc, ep->bc_id);
	ep->bc_id = 0;
	ep->peer_addr.bc_id = 0;
	for (uint32_t i = 0; i < RPCRDMA_BC_SLOTS; i++) {
		if (ep->bc[i].used) {
			rpcrdma_done_t done = ep->bc[i].done;
			void *ctx = ep->bc[i].ctx;

			ep->bc[i].used = false;
			if (done)
				done(ctx, err, NULL, 0);
		}
	}
}

int rpcrdma_ep_bc_call(struct rpcrdma_ep *ep, const uint8_t *msg, uint32_t len, rpcrdma_done_t done,
		       void *ctx)
{
	struct rpcrdma_hdr_out o = {
		.vers = RPCRDMA_VERSION, .credits = ep->credits, .proc = RPCRDMA_MSG};
	uint32_t i;
	int rc;

	if (ep->role != RPCRDMA_SERVER)
		return -EINVAL;
	if (!ep->started || ep->failed || ep->closing)
		return -ENOTCONN;
	if (msg_direction(msg, len) != 0)
		return -EINVAL;
	for (i = 0; i < RPCRDMA_BC_SLOTS && ep->bc[i].used; i++)
		;
	if (i == RPCRDMA_BC_SLOTS)
		return -EBUSY;
	memcpy(&o.xid, msg, 4);
	/* RFC 8167 §4: backchannel messages are inline only, no chunks */
	rc = rpcrdma_prim_send(ep, &o, msg, len, 0, NULL);
	if (rc)
		return rc;
	ep->bc[i].used = true;
	memcpy(&ep->bc[i].xid, msg, 4);
	ep->bc[i].done = done;
	ep->bc[i].ctx = ctx;
	ep->st.bc_calls_sent++;
	return 0;
}

/* ---- client ---- */

/* A call from the server on the backchannel (RFC 8167): dispatched through the client's
 * backchannel programs, answered inline. Without programs, or when the reply does not fit
 * inline, it is dropped and counted (the server's RPC layer times it out). */
static void client_bc_call(struct rpcrdma_ep *ep, const struct rpcrdma_hdr *h, const uint8_t *m,
			   uint32_t len)
{
	struct rpcrdma_hdr_out o = {
		.xid = h->xid, .vers = RPCRDMA_VERSION, .credits = ep->nslots, .proc = RPCRDMA_MSG};
	uint32_t n;

	ep->st.bc_calls_rx++;
	if (!ep->svc || h->nr_rsegs || h->nr_wchunks || h->has_reply) {
		ep->st.bc_dropped++;
		return;
	}
	n = orpc_svc_dispatch_peer(ep->svc, m, len, ep, &ep->peer_addr, ep->scratch,
				   ep->conf.inline_max, NULL);
	if (!n || rpcrdma_prim_send(ep, &o, ep->scratch, n, 0, NULL) != 0) {
		ep->st.bc_dropped++;
		return;
	}
	ep->st.bc_replies_sent++;
}

bool rpcrdma_bc_client_recv(struct rpcrdma_ep *ep, const struct rpcrdma_hdr *h, const uint8_t *m,
			    uint32_t len)
{
	if (h->proc != RPCRDMA_MSG || msg_direction(m, len) != 0)
		return false;
	client_bc_call(ep, h, m, len);
	return true;
}
