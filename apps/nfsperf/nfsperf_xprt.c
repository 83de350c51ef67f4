/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_xprt.c - one droce-nfsperf connection to the NFS server, over either transport:
 *   RDMA  an RPC-over-RDMA v1 client endpoint (rpc/rpcrdma_ep, RFC 8166) on an RC QP that the
 *         RDMA CM connects to port 20049 with RFC 8797 private data; WRITE data by read
 *         chunk, READ data by write chunk, long results by reply chunk; the endpoint obeys
 *         the server's credit grant (rpcrdma_clnt_room);
 *   TCP   the ONC RPC client on a kernel socket (rpc/clnt/orpc_clnt: record marking, RFC 5531
 *         §11), through droce's exception TAP when droce's stack runs.
 * Calls are encoded with nfs/xdr's routines and complete through one callback shape
 * (np_done_t) whatever the transport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "nfsperf.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_neigh.h"
#include "stk_stack.h"

#define NP_CONNECT_NS (20ull * 1000000000ull)
#define NP_RESOLVE_NS (10ull * 1000000000ull)

#define NP_CONN_NAME_(n) #n,
static const char *const conn_state_names[] = {NP_CONN_STATE_LIST(NP_CONN_NAME_)};

const char *np_conn_state_name(enum np_conn_state s)
{
	return s < NP_CONN_NUM_STATES ? conn_state_names[s] : "?";
}

static enum np_conn_state conn_fail(struct np_conn *c, const char *why)
{
	c->why = why;
	return NP_CONN_FAILED;
}

int np_conn_open(struct np_conn *c, const struct np_env *env, uint32_t depth, uint32_t max_io,
		 int lcore)
{
	const struct np_opts *o = env->o;

	memset(c, 0, sizeof(*c));
	c->env = env;
	c->kind = o->xprt;
	c->depth = depth;
	c->xid = (uint32_t)np_now_ns() * 2654435761u;
	if (c->kind == NP_XPRT_TCP) {
		int rc = orpc_clnt_init(&c->tcp, o->server, o->port, o->timeout_ms, 2);

		if (rc)
			return rc;
		c->tcp_open = true;
		c->state = NP_CONN_CONNECTING;
		c->deadline = np_now_ns() + NP_CONNECT_NS;
		return 0;
	}
	if (!env->dev)
		return -ENODEV;
	/* a call is its RPC header, the arguments and at most one block of data */
	c->msg_cap = max_io + 8192;
	c->msg = rte_zmalloc("nfsperf_msg", c->msg_cap, 64);
	if (!c->msg)
		return -ENOMEM;
	{
		struct rpcrdma_ep_conf conf = {
			.inline_max = o->inline_max,
			/* one block, or READDIRPLUS's reply chunk, whichever is more */
			.max_chunk = (max_io > 65536 ? max_io : 65536) + 8192,
			.slots = depth < RPCRDMA_CLNT_MAX_SLOTS ? depth : RPCRDMA_CLNT_MAX_SLOTS,
			.on_lcore = lcore >= 0,
			.lcore = lcore >= 0 ? (unsigned)lcore : 0,
		};

		c->ep = rpcrdma_ep_create(env->dev, env->pd, RPCRDMA_CLIENT, &conf, NULL);
	}
	c->id = c->ep ? roce_cm_create_id(env->cm, ROCE_CM_PS_TCP, c) : NULL;
	if (!c->ep || !c->id) {
		int rc = -(rte_errno ? rte_errno : ENOMEM);

		np_conn_destroy(c);
		return rc;
	}
	c->state = NP_CONN_RESOLVE;
	c->deadline = np_now_ns() + NP_RESOLVE_NS;
	return 0;
}

static enum np_conn_state step_resolve(struct np_conn *c, uint64_t now)
{
	struct stk_lcore *lc = stk_lcore_self();
	const struct stk_iface *ifc = stk_iface_get(c->env->iface);
	const struct stk_ipaddr *hop = &c->env->o->server_ip;
	const struct stk_neigh *n;

	if (!stk_iface_on_link(ifc, hop))
		hop = hop->family == 4 ? &ifc->gw4 : &ifc->gw6;
	if (!hop->family)
		return conn_fail(c, "no route to the server");
	n = stk_neigh_lookup(lc->neigh, ifc->idx, hop);
	if (n && n->state != STK_NEIGH_INCOMPLETE)
		return NP_CONN_CONNECT;
	if (now > c->deadline)
		return conn_fail(c, "the server (or its gateway) does not answer ARP/ND");
	if (now >= c->probe_at) {
		stk_neigh_probe(lc, ifc, hop);
		c->probe_at = now + 200000000ull;
	}
	return NP_CONN_RESOLVE;
}

static enum np_conn_state step_connect(struct np_conn *c, uint64_t now)
{
	struct roce_cm_conn_param p = {0};
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];

	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(c->ep, priv);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	/* by default the Local ACK Timeout Linux's rdma_cm puts in a RoCE REQ (its packet
	 * lifetime 18, plus one: 19, 2.1 s; ../shared/captures' REQs from xprtrdma and rping
	 * carry 0x13), not the CM's 14 (67 ms): a server's lcores share CPUs with other work,
	 * and QPs that give up after 8 timeouts of 67 ms fail over a stall of half a second.
	 * The server's QP takes it from the REQ too. Loss is still resent early: the adaptive
	 * RTO (rto_min) runs under this bound */
	p.local_ack_timeout = c->env->o->ack_timeout;
	if (roce_cm_connect(c->id, &c->env->o->server_ip, c->env->o->port, rpcrdma_ep_qp(c->ep),
			    &p) != 0)
		return conn_fail(c, "CM connect");
	c->deadline = now + NP_CONNECT_NS;
	return NP_CONN_CONNECTING;
}

void np_conn_cm_event(struct np_conn *c, const void *arg)
{
	const struct roce_cm_event *ev = arg;

	if (ev->event == ROCE_CM_EVENT_ESTABLISHED && c->state == NP_CONN_CONNECTING) {
		if (rpcrdma_ep_start(c->ep, ev->private_data, ev->private_data_len) != 0) {
			c->state = conn_fail(c, "receives posted");
		} else {
			c->started = true;
			c->state = NP_CONN_UP;
		}
		return;
	}
	if (ev->event == ROCE_CM_EVENT_DISCONNECTED) {
		if (c->state != NP_CONN_CLOSED)
			c->state = conn_fail(c, "the server disconnected");
		return;
	}
	if (c->state == NP_CONN_CONNECTING) {
		fprintf(stderr, "droce-nfsperf: CM event %s, status %d\n",
			roce_cm_event_str(ev->event), ev->status);
		c->state = conn_fail(c, "the RDMA CM connection was refused or timed out");
	}
}

int np_conn_poll(struct np_conn *c, uint64_t now)
{
	enum np_conn_state prev;
	int work = 0;

	do {
		prev = c->state;
		switch (c->state) {
		case NP_CONN_RESOLVE:
			c->state = step_resolve(c, now);
			break;
		case NP_CONN_CONNECT:
			c->state = step_connect(c, now);
			break;
		case NP_CONN_CONNECTING:
			if (c->kind == NP_XPRT_TCP && c->tcp.connected)
				c->state = NP_CONN_UP;
			else if (now > c->deadline)
				c->state = conn_fail(c, "connecting timed out");
			break;
		case NP_CONN_UP:
			if (c->kind == NP_XPRT_RDMA) {
				struct rpcrdma_ep_info i;
				char what[64];

				rpcrdma_ep_info(c->ep, &i);
				if (i.failed && rpcrdma_ep_fail_str(&i, what, sizeof(what))) {
					snprintf(c->why_buf, sizeof(c->why_buf),
						 "the RDMA connection failed: %s", what);
					c->state = conn_fail(c, c->why_buf);
				} else if (i.failed) {
					c->state = conn_fail(c, "the RDMA connection failed");
				} else if (c->outstanding &&
					   now > c->last_progress +
							   (uint64_t)c->env->o->timeout_ms *
								   1000000ull) {
					c->state = conn_fail(c, "no reply within timeout-ms: the "
								"connection is stuck");
				}
			}
			break;
		default:
			break;
		}
	} while (c->state != prev);
	/* its CQ is its QP's home lane's: polled there, once it can hold completions */
	if (c->ep && c->started) {
		int n = rpcrdma_ep_poll(c->ep);

		work += n > 0 ? n : 0;
	}
	if (c->tcp_open)
		work += orpc_clnt_poll(&c->tcp);
	return work;
}

uint32_t np_conn_room(const struct np_conn *c)
{
	uint32_t room;

	if (c->state != NP_CONN_UP)
		return 0;
	if (c->kind == NP_XPRT_RDMA)
		room = rpcrdma_clnt_room(c->ep);
	else
		room = ORPC_CLNT_MAX_CALLS - c->tcp.outstanding;
	return c->outstanding >= c->depth ? 0 : room;
}

static struct np_pend *pend_get(struct np_conn *c)
{
	for (uint32_t i = 0; i < RTE_DIM(c->pend); i++)
		if (!c->pend[i].used)
			return &c->pend[i];
	return NULL;
}

/* Every completion passes here: the connection's count of calls in flight follows it. */
static void pend_finish(struct np_conn *c, struct np_pend *p, int err,
			const struct orpc_reply_hdr *h, const uint8_t *res, uint32_t len)
{
	np_done_t done = p->done;
	void *ctx = p->ctx;

	p->used = false;
	c->outstanding--;
	c->last_progress = np_now_ns();
	done(ctx, err, h, res, len);
}

/* The RDMA completion: the whole RPC reply, its header decoded here. */
static void rdma_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct np_pend *p = ctx;
	struct np_conn *c = p->conn;
	struct orpc_reply_hdr h = {0};
	uint32_t off = 0;

	if (!err && orpc_reply_decode(reply, len, &h, &off) != 0)
		err = -EBADMSG;
	if (err)
		pend_finish(c, p, err, NULL, NULL, 0);
	else
		pend_finish(c, p, 0, &h, reply + off, len - off);
}

static void tcp_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		     uint32_t len)
{
	struct np_pend *p = ctx;

	pend_finish(p->conn, p, err, err ? NULL : h, res, len);
}

/* orpc_clnt encodes the arguments with an xdrproc_t of its own choosing; this one hands the
 * call's (proc, args) pair through. */
struct tcp_args {
	xdrproc_t x;
	void *args;
};

static bool_t xdr_tcp_args(XDR *x, struct tcp_args *a)
{
	return a->x ? a->x(x, a->args, 0) : TRUE;
}

int np_conn_call(struct np_conn *c, uint32_t prog, uint32_t vers, uint32_t proc, xdrproc_t xargs,
		 void *args, uint32_t ddp_data_len, bool ddp_reply, uint32_t reply_max,
		 np_done_t done, void *ctx)
{
	struct np_pend *p;
	int rc;

	if (c->state != NP_CONN_UP)
		return -ENOTCONN;
	if (!np_conn_room(c))
		return -EBUSY;
	p = pend_get(c);
	if (!p)
		return -EBUSY;
	*p = (struct np_pend){.used = true, .conn = c, .done = done, .ctx = ctx};
	if (c->kind == NP_XPRT_TCP) {
		struct tcp_args ta = {xargs, args};

		rc = orpc_clnt_call(&c->tcp, prog, vers, proc, &c->env->sys,
				    (xdrproc_t)xdr_tcp_args, &ta, tcp_done, p);
	} else {
		struct rpcrdma_call rc_call = {
			.msg = c->msg, .ddp_reply = ddp_reply, .reply_max = reply_max};
		XDR x;

		xdrmem_create(&x, (char *)c->msg, c->msg_cap, XDR_ENCODE);
		if (!orpc_call_encode(&x, c->xid++, prog, vers, proc, &c->env->sys) ||
		    (xargs && !xargs(&x, args, 0))) {
			p->used = false;
			return -E2BIG;
		}
		rc_call.len = xdr_getpos(&x);
		if (ddp_data_len) {
			/* the data opaque ends the call: its content starts after its length word
			 * and stops before its round-up */
			rc_call.ddp_len = ddp_data_len;
			rc_call.ddp_off = rc_call.len - ((ddp_data_len + 3u) & ~3u);
		}
		rc = rpcrdma_clnt_call(c->ep, &rc_call, rdma_done, p);
	}
	if (rc) {
		p->used = false;
		return rc;
	}
	c->outstanding++;
	c->calls++;
	c->last_progress = np_now_ns();
	return 0;
}

void np_conn_close(struct np_conn *c)
{
	if (c->kind == NP_XPRT_RDMA) {
		if (c->id && (c->state == NP_CONN_UP || c->state == NP_CONN_FAILED))
			roce_cm_disconnect(c->id);
	} else if (c->tcp_open) {
		orpc_clnt_fini(&c->tcp);
		c->tcp_open = false;
	}
	c->state = NP_CONN_CLOSED;
}

void np_conn_close_local(struct np_conn *c)
{
	if (c->tcp_open) {
		orpc_clnt_fini(&c->tcp);
		c->tcp_open = false;
	}
	c->state = NP_CONN_CLOSED;
}

int np_conn_destroy(struct np_conn *c)
{
	if (c->tcp_open) {
		orpc_clnt_fini(&c->tcp);
		c->tcp_open = false;
	}
	if (c->id) {
		roce_cm_destroy_id(c->id);
		c->id = NULL;
	}
	if (c->ep) {
		if (rpcrdma_ep_destroy(c->ep) == -EBUSY)
			return -EBUSY;
		c->ep = NULL;
	}
	rte_free(c->msg);
	c->msg = NULL;
	return 0;
}

/* The lcore the connection's QP ran on: its home lane's (a device of one lane runs where it
 * is first polled: the main lcore) */
static unsigned qp_lcore(const struct np_conn *c)
{
	unsigned l = roce_qp_lcore(rpcrdma_ep_qp(c->ep));

	return l < RTE_MAX_LCORE ? l : rte_get_main_lcore();
}

void np_conn_stats(const struct np_conn *c, char *buf, size_t cap)
{
	if (c->ep) {
		const struct rpcrdma_ep_stats *s = rpcrdma_ep_stats(c->ep);
		struct rpcrdma_ep_info i;

		rpcrdma_ep_info(c->ep, &i);
		snprintf(
			buf, cap,
			"rdma: calls %llu replies %llu credits %u inline %u/%u long calls %llu "
			"long replies %llu ddp reads %llu writes %llu rdma errors %llu qp lcore %u",
			(unsigned long long)s->tx_msgs, (unsigned long long)s->rx_msgs, i.credits,
			i.inline_send, i.inline_recv, (unsigned long long)s->long_calls,
			(unsigned long long)s->long_replies, (unsigned long long)s->ddp_reads,
			(unsigned long long)s->ddp_writes, (unsigned long long)s->rdma_errors,
			qp_lcore(c));
	} else {
		const struct orpc_clnt_stats *s = &c->tcp.stats;

		snprintf(buf, cap,
			 "tcp: calls %llu replies %llu retransmits %llu reconnects %llu timeouts "
			 "%llu",
			 (unsigned long long)s->calls, (unsigned long long)s->replies,
			 (unsigned long long)s->retransmits, (unsigned long long)s->reconnects,
			 (unsigned long long)s->timeouts);
	}
}
