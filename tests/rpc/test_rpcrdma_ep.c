/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rpcrdma_ep.c - droce's RPC-over-RDMA client against droce's RPC-over-RDMA server: two
 * devices back to back over crossed net_ring ports in one process (as tests/roce/test_cm.c),
 * connected by the CM on port 20049 with RFC 8797 private data (or without), then RPC calls
 * to the test programs (tests/rpc/orpc_testprog.h):
 * - NULL, and ECHO of sizes that use every chunk kind in both directions: inline, a long call
 *   (position-zero read chunk), a long reply (reply chunk), DDP arguments (a read chunk at its
 *   XDR position) and DDP results (a write chunk), up to 1 MiB, byte for byte;
 * - inline sizes 1024, 4096 and 65536, with and without private data;
 * - several calls in flight within the server's credits;
 * - errors: a header of version 2 (ERR_VERS), a reply too long for inline with no reply chunk
 *   (ERR_CHUNK), and a write chunk with a key that is not the client's (the RDMA WRITE fails,
 *   no reply is sent, the connection ends);
 * - the loss of frames by the stack's impairment layer, recovered by the transport.
 * Teardown checks QPs, MRs and mbufs are back where they started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "orpc_bc.h"
#include "orpc_msg.h"
#include "orpc_testprog.h"
#include "ring_pair.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static struct stk_ipaddr ip[2];
static unsigned base_in_use;
static struct roce_dev_counts base[2]; /* the CM's own QP1, its CQ and MR */
static struct orpc_svc svc;

struct side {
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
};
static struct side s[2];

struct conn {
	struct roce_cm_id *l, *a, *b;
	struct rpcrdma_ep *c, *sv; /* client (side 0), server (side 1) */
};

static uint16_t port_no = RPCRDMA_NFS_PORT;
static struct orpc_svc *client_bc; /* the client's backchannel programs, when a test sets it */

static void poll_all(struct conn *c)
{
	stk_lcore_poll(lc);
	if (c->c)
		rpcrdma_ep_poll(c->c);
	if (c->sv)
		rpcrdma_ep_poll(c->sv);
}

static void expect_event(struct conn *c, int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (roce_cm_get_event(s[k].cm, ev) == 0) {
			if (ev->event != t)
				fail_msg("side %d: event %s, expected %s", k,
					 roce_cm_event_str(ev->event), roce_cm_event_str(t));
			return;
		}
		poll_all(c);
	}
	fail_msg("side %d: no %s", k, roce_cm_event_str(t));
}

/* connect a client endpoint to a server endpoint listening on a fresh port */
/* when set, the client's private data says it receives at most this much inline */
static uint32_t client_max_recv;

static void rr_connect(struct conn *c, const struct rpcrdma_ep_conf *cc,
		       const struct rpcrdma_ep_conf *sc)
{
	struct roce_cm_conn_param p = {.cm_response_timeout = 14, .max_cm_retries = 4};
	struct roce_cm_event ev;
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];

	memset(c, 0, sizeof(*c));
	c->c = rpcrdma_ep_create(s[0].dev, s[0].pd, RPCRDMA_CLIENT, cc, client_bc);
	c->sv = rpcrdma_ep_create(s[1].dev, s[1].pd, RPCRDMA_SERVER, sc, &svc);
	assert_non_null(c->c);
	assert_non_null(c->sv);
	c->l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c->l, ++port_no, 4), 0);
	c->a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(c->c, priv);
	if (client_max_recv) {
		/* a client that receives less than it sends (RFC 8797 allows it) */
		struct rpcrdma_cm_priv cp;

		rpcrdma_cm_priv_decode(priv, p.private_data_len, &cp);
		cp.max_recv = client_max_recv;
		rpcrdma_cm_priv_encode(&cp, priv);
	}
	assert_int_equal(roce_cm_connect(c->a, &ip[1], port_no, rpcrdma_ep_qp(c->c), &p), 0);
	expect_event(c, 1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c->b = ev.id;
	p.private_data_len = rpcrdma_ep_private_data(c->sv, priv);
	assert_int_equal(roce_cm_accept(c->b, rpcrdma_ep_qp(c->sv), &p), 0);
	/* receives can be posted once the QP has left RESET, before any call can arrive */
	assert_int_equal(rpcrdma_ep_start(c->sv, ev.private_data, ev.private_data_len), 0);
	expect_event(c, 0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_int_equal(rpcrdma_ep_start(c->c, ev.private_data, ev.private_data_len), 0);
	expect_event(c, 1, ROCE_CM_EVENT_ESTABLISHED, &ev);
}

/* an endpoint whose regions queued frames still use is destroyed once they have left */
static void destroy_ep(struct rpcrdma_ep *ep)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rpcrdma_ep_destroy(ep) == -EBUSY) {
		if (rte_get_tsc_cycles() > end)
			fail_msg("an endpoint's regions stay busy for 10 s");
		stk_lcore_poll(lc);
	}
}

static void rr_disconnect(struct conn *c)
{
	struct roce_cm_event ev;

	roce_cm_disconnect(c->a);
	expect_event(c, 1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	expect_event(c, 0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(roce_cm_destroy_id(c->a), 0);
	assert_int_equal(roce_cm_destroy_id(c->b), 0);
	assert_int_equal(roce_cm_destroy_id(c->l), 0);
	for (int i = 0; i < 100; i++)
		poll_all(c);
	destroy_ep(c->c);
	destroy_ep(c->sv);
	c->c = c->sv = NULL;
	/* nothing of the connection is left on either device */
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts dc;

		roce_dev_counts(s[k].dev, &dc);
		if (dc.mrs != base[k].mrs || dc.cqs != base[k].cqs || dc.qps != base[k].qps)
			fail_msg("side %d: %u MRs %u CQs %u QPs, started with %u %u %u", k, dc.mrs,
				 dc.cqs, dc.qps, base[k].mrs, base[k].cqs, base[k].qps);
	}
}

struct result {
	int done, err;
	uint8_t *reply;
	uint32_t len;
};

static void on_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct result *r = ctx;

	r->done++;
	r->err = err;
	r->len = len;
	if (len) {
		r->reply = malloc(len);
		memcpy(r->reply, reply, len);
	}
}

static void wait_done(struct conn *c, struct result *r, int n)
{
	uint64_t end = rte_get_tsc_cycles() + 20 * rte_get_tsc_hz();

	for (;;) {
		int all = 1;

		for (int i = 0; i < n; i++)
			all &= r[i].done > 0;
		if (all)
			return;
		if (rte_get_tsc_cycles() > end)
			fail_msg("calls not done in 20 s");
		poll_all(c);
	}
}

static uint32_t next_xid = 0x10000;

/* an ECHO call of len bytes of pattern k; *ddp_off = where the opaque's content starts */
static uint32_t echo_call(uint8_t *buf, uint32_t cap, uint32_t len, int k, uint32_t *ddp_off)
{
	struct orpc_test_blob b = {len, malloc(len + 1)};
	uint32_t n;
	XDR x;

	for (uint32_t i = 0; i < len; i++)
		b.data[i] = (char)(i * 13 + k);
	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	assert_true(orpc_call_encode(&x, next_xid++, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO, NULL));
	*ddp_off = xdr_getpos(&x) + 4;
	assert_true(orpc_test_xdr_blob(&x, &b));
	n = xdr_getpos(&x);
	free(b.data);
	return n;
}

/* the reply is a SUCCESS with ECHO results equal to pattern k of len bytes */
static void check_echo(const struct result *r, uint32_t len, int k)
{
	struct orpc_test_blob b = {0, NULL};
	struct orpc_reply_hdr h;
	uint32_t off;
	XDR x;

	assert_int_equal(r->err, 0);
	assert_int_equal(orpc_reply_decode(r->reply, r->len, &h, &off), 0);
	assert_false(h.denied);
	assert_int_equal(h.stat, SUCCESS);
	xdrmem_create(&x, (char *)r->reply + off, r->len - off, XDR_DECODE);
	assert_true(orpc_test_xdr_blob(&x, &b));
	assert_int_equal(b.len, len);
	for (uint32_t i = 0; i < len; i++)
		if ((uint8_t)b.data[i] != (uint8_t)(i * 13 + k))
			fail_msg("echo of %u bytes differs at byte %u", len, i);
	xdr_free((xdrproc_t)orpc_test_xdr_blob, (char *)&b);
}

static void echo(struct conn *c, uint32_t len, int k, bool ddp_args, bool ddp_res,
		 uint32_t reply_max)
{
	static uint8_t msg[(1u << 20) + 4096];
	struct rpcrdma_call call = {.msg = msg};
	struct result r = {0};
	uint32_t off;

	call.len = echo_call(msg, sizeof(msg), len, k, &off);
	if (ddp_args) {
		call.ddp_off = off;
		call.ddp_len = len;
	}
	call.ddp_reply = ddp_res;
	call.reply_max = reply_max;
	assert_int_equal(rpcrdma_clnt_call(c->c, &call, on_done, &r), 0);
	wait_done(c, &r, 1);
	if (r.err)
		fail_msg("ECHO of %u bytes (ddp args %d, ddp results %d, reply_max %u): error %d",
			 len, ddp_args, ddp_res, reply_max, r.err);
	check_echo(&r, len, k);
	free(r.reply);
}

static void test_null_and_private_data(void **st)
{
	static uint8_t msg[128];
	struct rpcrdma_call call = {.msg = msg};
	struct rpcrdma_ep_info ci, si;
	struct orpc_reply_hdr h;
	struct result r = {0};
	struct conn c;
	uint32_t off;
	XDR x;

	(void)st;
	rr_connect(&c, NULL, NULL);
	rpcrdma_ep_info(c.c, &ci);
	rpcrdma_ep_info(c.sv, &si);
	assert_true(ci.peer_priv && si.peer_priv);
	assert_int_equal(ci.inline_send, 4096);
	assert_int_equal(si.inline_send, 4096);
	assert_int_equal(si.credits, RPCRDMA_DEFAULT_CREDITS);
	assert_int_equal(ci.credits, 1); /* RFC 8166 §3.3.1: one until the server says more */
	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, 0xabcd, ORPC_TEST_PROG, 2, 0, NULL));
	call.len = xdr_getpos(&x);
	assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r), 0);
	/* one credit: a second call has to wait */
	assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r), -EBUSY);
	wait_done(&c, &r, 1);
	assert_int_equal(r.err, 0);
	assert_int_equal(orpc_reply_decode(r.reply, r.len, &h, &off), 0);
	assert_int_equal(h.xid, 0xabcd);
	assert_int_equal(h.stat, SUCCESS);
	assert_int_equal(off, r.len);
	free(r.reply);
	rpcrdma_ep_info(c.c, &ci);
	assert_int_equal(ci.credits, RPCRDMA_CLNT_SLOTS); /* the grant, clamped to our slots */
	rr_disconnect(&c);
}

/* one NULL call over @c, answered */
static void null_call(struct conn *c)
{
	static uint8_t msg[128];
	struct rpcrdma_call call = {.msg = msg};
	struct orpc_reply_hdr h;
	struct result r = {0};
	uint32_t off;
	XDR x;

	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, 0x5151, ORPC_TEST_PROG, 2, 0, NULL));
	call.len = xdr_getpos(&x);
	assert_int_equal(rpcrdma_clnt_call(c->c, &call, on_done, &r), 0);
	wait_done(c, &r, 1);
	assert_int_equal(r.err, 0);
	assert_int_equal(orpc_reply_decode(r.reply, r.len, &h, &off), 0);
	assert_int_equal(h.xid, 0x5151);
	assert_int_equal(h.stat, SUCCESS);
	free(r.reply);
}

static void expect_regions(const struct rpcrdma_regions *rs, uint64_t allocated, uint64_t reused,
			   uint64_t freed, unsigned kept)
{
	struct rpcrdma_regions_stats st;

	rpcrdma_regions_stats(rs, &st);
	assert_int_equal(st.allocated, allocated);
	assert_int_equal(st.reused, reused);
	assert_int_equal(st.freed, freed);
	assert_int_equal(st.kept, kept);
}

/* A server's regions kept across connections (rpcrdma_regions): a destroyed endpoint's region
 * serves the next endpoint of its size, which works on it; one of another size allocates;
 * beyond the cache's room a region is freed; destroying the cache frees what it kept */
static void test_regions_reused(void **st)
{
	struct rpcrdma_regions *rs = rpcrdma_regions_create(1);
	struct rpcrdma_ep_conf sc = {.regions = rs};
	struct rpcrdma_ep_conf big = {.regions = rs, .server_calls = 2};
	struct rpcrdma_ep *extra;
	struct conn c;

	(void)st;
	assert_null(rpcrdma_regions_create(0));
	assert_non_null(rs);
	rr_connect(&c, NULL, &sc);
	expect_regions(rs, 1, 0, 0, 0);
	null_call(&c);
	rr_disconnect(&c);
	expect_regions(rs, 1, 0, 0, 1); /* kept, not freed */
	rr_connect(&c, NULL, &sc);
	expect_regions(rs, 1, 1, 0, 0); /* the kept one, no allocation */
	null_call(&c);
	null_call(&c);
	/* another size at the same time: allocated, not the one in use */
	extra = rpcrdma_ep_create(s[1].dev, s[1].pd, RPCRDMA_SERVER, &big, &svc);
	assert_non_null(extra);
	expect_regions(rs, 2, 1, 0, 0);
	destroy_ep(extra);
	expect_regions(rs, 2, 1, 0, 1); /* kept: the bigger one */
	rr_disconnect(&c);
	expect_regions(rs, 2, 1, 1, 1); /* the cache holds one: this one is freed */
	/* the kept region is of the other size: a connection of the first allocates */
	rr_connect(&c, NULL, &sc);
	expect_regions(rs, 3, 1, 1, 1);
	null_call(&c);
	rr_disconnect(&c);
	expect_regions(rs, 3, 1, 2, 1);
	/* and one of its size takes it, and works on it */
	rr_connect(&c, NULL, &big);
	expect_regions(rs, 3, 2, 2, 0);
	null_call(&c);
	rr_disconnect(&c);
	expect_regions(rs, 3, 2, 2, 1);
	rpcrdma_regions_destroy(rs); /* frees the one kept (ASan: no leak) */
}

static void test_every_chunk_kind(void **st)
{
	static const uint32_t inl[] = {1024, 4096, 65536};
	struct conn c;

	(void)st;
	for (size_t i = 0; i < 3; i++) {
		struct rpcrdma_ep_conf conf = {.inline_max = inl[i]};
		const struct rpcrdma_ep_stats *cs, *ss;

		rr_connect(&c, &conf, &conf);
		cs = rpcrdma_ep_stats(c.c);
		ss = rpcrdma_ep_stats(c.sv);
		echo(&c, 0, 1, false, false, 0);
		echo(&c, 5, 2, false, false, 0);
		echo(&c, inl[i] / 2, 3, false, false, 0); /* inline both ways */
		assert_int_equal(ss->long_calls + ss->long_replies, 0);
		/* a long call and a long reply */
		echo(&c, inl[i] + 1000, 4, false, false, inl[i] + 2000);
		assert_int_equal(ss->long_calls, 1);
		assert_int_equal(ss->long_replies, 1);
		assert_int_equal(cs->long_replies, 1);
		/* DDP both ways: the data by read chunk and by write chunk, 1 MiB */
		echo(&c, 1u << 20, 5, true, false, (1u << 20) + 64); /* the reply by reply chunk */
		echo(&c, 1u << 20, 6, false, true, 0);
		echo(&c, 4093, 7, true, false, 8192); /* not a multiple of 4: round-up not sent */
		echo(&c, 4093, 8, false, true, 0);
		assert_true(ss->ddp_reads >= 2);
		assert_true(ss->ddp_write_bytes >= (1u << 20) + 4093);
		/* both read chunks landed where the rebuilt call has them (the long call's
		 * position-zero chunk is the whole call: rebuilt from stage_in) */
		assert_int_equal(ss->in_place_calls, 2);
		assert_int_equal(ss->err_chunk_sent + ss->err_vers_sent + ss->rdma_errors, 0);
		rr_disconnect(&c);
	}
}

/* PLACE of len bytes: FILL's pattern, (i * 7 + 3) mod 251 */
static void place(struct conn *c, uint32_t len, bool ddp_res, uint32_t reply_max)
{
	static uint8_t msg[256];
	struct rpcrdma_call call = {.msg = msg, .ddp_reply = ddp_res, .reply_max = reply_max};
	struct orpc_test_blob b = {0, NULL};
	struct orpc_reply_hdr h;
	struct result r = {0};
	uint32_t off;
	u_int n = len;
	XDR x;

	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, next_xid++, ORPC_TEST_PROG, 1, ORPC_TEST_PLACE, NULL));
	assert_true(xdr_u_int(&x, &n));
	call.len = xdr_getpos(&x);
	assert_int_equal(rpcrdma_clnt_call(c->c, &call, on_done, &r), 0);
	wait_done(c, &r, 1);
	assert_int_equal(r.err, 0);
	assert_int_equal(orpc_reply_decode(r.reply, r.len, &h, &off), 0);
	assert_int_equal(h.stat, SUCCESS);
	xdrmem_create(&x, (char *)r.reply + off, r.len - off, XDR_DECODE);
	assert_true(orpc_test_xdr_blob(&x, &b));
	assert_int_equal(b.len, len);
	for (uint32_t i = 0; i < len; i++)
		if ((uint8_t)b.data[i] != (uint8_t)((i * 7u + 3u) % 251u))
			fail_msg("PLACE of %u bytes differs at byte %u", len, i);
	xdr_free((xdrproc_t)orpc_test_xdr_blob, (char *)&b);
	free(r.reply);
}

/* Results a handler put straight into the server's DDP sink (orpc_peer.ddp_sink) go out by
 * write chunk from there, byte for byte; without a write chunk there is no sink and the
 * results go inline or by reply chunk. */
static void test_placed_results(void **st)
{
	const struct rpcrdma_ep_stats *ss;
	struct conn c;

	(void)st;
	rr_connect(&c, NULL, NULL);
	ss = rpcrdma_ep_stats(c.sv);
	place(&c, 1u << 20, true, 0);
	assert_int_equal(ss->ddp_placed, 1);
	place(&c, 4093, true, 0); /* not a multiple of 4: no round-up on the wire */
	place(&c, 0, true, 0);
	assert_int_equal(ss->ddp_placed, 2);	 /* nothing to place in an empty opaque */
	place(&c, 100, false, 0);		 /* no write chunk: no sink, inline */
	place(&c, 200000, false, 200000 + 1024); /* no write chunk: by reply chunk */
	assert_int_equal(ss->ddp_placed, 2);
	assert_int_equal(ss->long_replies, 1);
	assert_int_equal(ss->err_chunk_sent + ss->err_vers_sent + ss->rdma_errors, 0);
	rr_disconnect(&c);
}

static void test_without_private_data(void **st)
{
	struct rpcrdma_ep_conf quiet = {.no_private_data = true, .inline_max = 8192};
	struct rpcrdma_ep_conf big = {.inline_max = 8192};
	struct rpcrdma_ep_info ci, si;
	struct conn c;

	(void)st;
	/* the client says nothing: the server sends it 1024 bytes inline at most (RFC 8797 §7) */
	rr_connect(&c, &quiet, &big);
	rpcrdma_ep_info(c.sv, &si);
	rpcrdma_ep_info(c.c, &ci);
	assert_false(si.peer_priv);
	assert_int_equal(si.inline_send, 1024);
	assert_true(ci.peer_priv);
	assert_int_equal(ci.inline_send, 8192);
	echo(&c, 3000, 9, false, false, 8192); /* inline call, reply by reply chunk */
	assert_int_equal(rpcrdma_ep_stats(c.sv)->long_replies, 1);
	/* results of 3000 bytes fit the client's 8 KiB receive, but the server may send it only
	 * 1024: the client must offer a reply chunk for them */
	assert_int_equal(ci.inline_recv, 1024);
	echo(&c, 3000, 10, false, false, 3100);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->long_replies, 2);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->long_calls, 0);
	rr_disconnect(&c);
}

static void test_calls_in_flight(void **st)
{
	static uint8_t msgs[RPCRDMA_CLNT_SLOTS][8192];
	struct result r[RPCRDMA_CLNT_SLOTS] = {{0}};
	struct conn c;
	uint32_t off;

	(void)st;
	rr_connect(&c, NULL, NULL);
	echo(&c, 1, 0, false, false, 0); /* learn the grant */
	for (uint32_t i = 0; i < RPCRDMA_CLNT_SLOTS; i++) {
		struct rpcrdma_call call = {.msg = msgs[i], .reply_max = 8192};

		call.len = echo_call(msgs[i], sizeof(msgs[i]), 3000 + i * 1000, (int)i, &off);
		assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r[i]), 0);
	}
	assert_int_equal(rpcrdma_clnt_room(c.c), 0);
	wait_done(&c, r, RPCRDMA_CLNT_SLOTS);
	for (uint32_t i = 0; i < RPCRDMA_CLNT_SLOTS; i++) {
		check_echo(&r[i], 3000 + i * 1000, (int)i);
		free(r[i].reply);
	}
	rr_disconnect(&c);
}

/* A call the server's upper layer finishes later (orpc_svc_defer): its request waits in
 * HANDLING while the endpoint's other requests serve the calls behind it (server_calls; with
 * one, they wait for it); 1 MiB by read chunk in and reply chunk out.
 * An endpoint destroyed while a call is deferred answers -EBUSY until the call ends. */
static void deferred_with(uint32_t server_calls)
{
	static uint8_t msg[2][(1u << 20) + 4096];
	struct rpcrdma_call call[2] = {{.msg = msg[0]}, {.msg = msg[1]}};
	struct result r[2] = {{0}};
	const struct rpcrdma_ep_stats *ss;
	struct orpc_test_blob b = {1u << 20, malloc((1u << 20) + 1)};
	struct conn c;
	uint32_t off;
	XDR x;

	struct rpcrdma_ep_conf sconf = {.server_calls = server_calls};

	rr_connect(&c, NULL, &sconf);
	ss = rpcrdma_ep_stats(c.sv);
	echo(&c, 1, 0, false, false, 0); /* learn the grant */
	for (uint32_t i = 0; i < b.len; i++)
		b.data[i] = (char)(i * 13 + 21);
	xdrmem_create(&x, (char *)msg[0], sizeof(msg[0]), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, next_xid++, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL));
	off = xdr_getpos(&x) + 4;
	assert_true(orpc_test_xdr_blob(&x, &b));
	call[0].len = xdr_getpos(&x);
	call[0].ddp_off = off;
	call[0].ddp_len = b.len;
	call[0].reply_max = (1u << 20) + 64; /* the results by reply chunk */
	free(b.data);
	call[1].len = echo_call(msg[1], sizeof(msg[1]), 3000, 22, &off);
	call[1].reply_max = 8192;
	assert_int_equal(rpcrdma_clnt_call(c.c, &call[0], on_done, &r[0]), 0);
	assert_int_equal(rpcrdma_clnt_call(c.c, &call[1], on_done, &r[1]), 0);
	for (int i = 0; i < 20000 && !orpc_test_later_waiting(); i++)
		poll_all(&c);
	assert_int_equal(orpc_test_later_waiting(), 1);
	for (int i = 0; i < 2000; i++)
		poll_all(&c);
	assert_int_equal(r[0].done, 0);
	/* the ECHO is answered while the deferred call waits; with one request, it waits */
	assert_int_equal(r[1].done, server_calls != 1 ? 1 : 0);
	assert_int_equal(ss->deferred, 1);
	{
		struct rpcrdma_ep_info si;

		/* the credits in use: the deferred call, and with one request the ECHO waiting */
		rpcrdma_ep_info(c.sv, &si);
		assert_int_equal(si.calls_serving, 1);
		assert_int_equal(si.calls_waiting, server_calls != 1 ? 0 : 1);
	}
	assert_int_equal(orpc_test_later_run(), 1);
	wait_done(&c, r, 2);
	{
		struct rpcrdma_ep_info si;

		for (int i = 0; i < 1000; i++)
			poll_all(&c);
		rpcrdma_ep_info(c.sv, &si);
		assert_int_equal(si.calls_serving + si.calls_waiting, 0);
	}
	check_echo(&r[0], 1u << 20, 21);
	check_echo(&r[1], 3000, 22);
	free(r[0].reply);
	free(r[1].reply);
	assert_true(ss->ddp_reads >= 1);
	assert_true(ss->ddp_write_bytes >= (1u << 20));
	assert_int_equal(ss->req_state[RPCRDMA_REQ_HANDLING], 1);
	/* the server's endpoint goes while a call is deferred: -EBUSY until the call ends */
	memset(r, 0, sizeof(r));
	call[1].len = echo_call(msg[1], sizeof(msg[1]), 100, 23, &off);
	msg[1][23] = ORPC_TEST_LATER; /* the procedure word's low byte: ECHO -> LATER */
	assert_int_equal(rpcrdma_clnt_call(c.c, &call[1], on_done, &r[1]), 0);
	for (int i = 0; i < 20000 && !orpc_test_later_waiting(); i++)
		poll_all(&c);
	assert_int_equal(orpc_test_later_waiting(), 1);
	{
		struct roce_cm_event ev;

		roce_cm_disconnect(c.a);
		expect_event(&c, 1, ROCE_CM_EVENT_DISCONNECTED, &ev);
		expect_event(&c, 0, ROCE_CM_EVENT_DISCONNECTED, &ev);
		assert_int_equal(roce_cm_destroy_id(c.a), 0);
		assert_int_equal(roce_cm_destroy_id(c.b), 0);
		assert_int_equal(roce_cm_destroy_id(c.l), 0);
	}
	for (int i = 0; i < 100; i++)
		poll_all(&c);
	assert_int_equal(rpcrdma_ep_destroy(c.sv), -EBUSY);
	assert_int_equal(rpcrdma_ep_destroy(c.sv), -EBUSY);
	assert_int_equal(orpc_test_later_run(), 1); /* nothing is sent: the QP is gone */
	destroy_ep(c.sv);
	destroy_ep(c.c);
	assert_int_equal(r[1].done, 1);
	assert_int_not_equal(r[1].err, 0);
	free(r[1].reply);
}

static void test_deferred(void **st)
{
	(void)st;
	deferred_with(0); /* the default: RPCRDMA_SRV_CALLS */
	deferred_with(1);
}

/* RPCRDMA_CLNT_SLOTS calls deferred at once, each with 256 KiB by read chunk in and by reply
 * chunk out: each request has staging of its own, so every reply is its own call's data */
static void test_concurrent_deferred(void **st)
{
	static uint8_t msg[RPCRDMA_CLNT_SLOTS][(256u << 10) + 4096];
	struct result r[RPCRDMA_CLNT_SLOTS] = {{0}};
	const struct rpcrdma_ep_stats *ss;
	struct conn c;

	(void)st;
	rr_connect(&c, NULL, NULL);
	ss = rpcrdma_ep_stats(c.sv);
	echo(&c, 1, 0, false, false, 0); /* learn the grant */
	for (uint32_t i = 0; i < RPCRDMA_CLNT_SLOTS; i++) {
		struct rpcrdma_call call = {.msg = msg[i], .reply_max = (256u << 10) + 64};
		uint32_t off;

		call.len = echo_call(msg[i], sizeof(msg[i]), (256u << 10) - i, (int)i + 40, &off);
		msg[i][23] = ORPC_TEST_LATER; /* the procedure word's low byte: ECHO -> LATER */
		call.ddp_off = off;
		call.ddp_len = (256u << 10) - i;
		assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r[i]), 0);
	}
	for (int i = 0; i < 200000 && orpc_test_later_waiting() < RPCRDMA_CLNT_SLOTS; i++)
		poll_all(&c);
	assert_int_equal(orpc_test_later_waiting(), RPCRDMA_CLNT_SLOTS);
	assert_int_equal(ss->in_place_calls, RPCRDMA_CLNT_SLOTS);
	assert_int_equal(orpc_test_later_run(), RPCRDMA_CLNT_SLOTS);
	wait_done(&c, r, RPCRDMA_CLNT_SLOTS);
	for (uint32_t i = 0; i < RPCRDMA_CLNT_SLOTS; i++) {
		check_echo(&r[i], (256u << 10) - i, (int)i + 40);
		free(r[i].reply);
	}
	assert_int_equal(ss->long_replies, RPCRDMA_CLNT_SLOTS);
	rr_disconnect(&c);
}

static void test_errors(void **st)
{
	static uint8_t msg[16384];
	struct rpcrdma_call call = {.msg = msg};
	struct result r = {0};
	struct conn c;
	uint32_t off;

	(void)st;
	rr_connect(&c, NULL, NULL);
	echo(&c, 1, 0, false, false, 0);
	/* a reply too long for inline and no reply chunk: ERR_CHUNK (RFC 8166 §4.5.2) */
	call.len = echo_call(msg, sizeof(msg), 6000, 1, &off);
	assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r), 0);
	wait_done(&c, &r, 1);
	assert_int_equal(r.err, -EPROTO);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_chunk_sent, 1);
	assert_int_equal(rpcrdma_ep_stats(c.c)->err_chunk_rx, 1);
	/* the connection goes on */
	echo(&c, 100, 2, false, false, 0);
	/* a DDP range outside the call is refused before anything is sent */
	call.ddp_off = call.len;
	call.ddp_len = 8;
	assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r), -EINVAL);
	rr_disconnect(&c);
}

/* 2 % of RoCE frames lost and 2 % reordered both ways: the transport recovers, every call
 * completes and every byte is right */
static void test_loss(void **st)
{
	struct stk_impair_conf ic = {
		.drop_ppm = 20000, .reorder_ppm = 20000, .roce_only = true, .seed = 7};
	struct conn c;

	(void)st;
	rr_connect(&c, NULL, NULL);
	echo(&c, 1, 0, false, false, 0);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &ic), 0);
	ic.seed = 8;
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, &ic), 0);
	for (int i = 0; i < 4; i++) {
		echo(&c, 200000 + 1000 * (uint32_t)i, 10 + i, true, false, (1u << 20));
		echo(&c, 300000 + 1000 * (uint32_t)i, 20 + i, false, true, 0);
		echo(&c, 9000, 30 + i, false, false, 16384);
	}
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rdma_errors, 0);
	{ /* the loss was real: the server, which sends most (READ requests answered by the
	   * client, WRITEs, replies), had to go back */
		struct roce_qp_stats qa, qb;

		roce_qp_query_stats(rpcrdma_ep_qp(c.c), &qa);
		roce_qp_query_stats(rpcrdma_ep_qp(c.sv), &qb);
		print_message("loss: client QP %llu resends, server QP %llu resends\n",
			      (unsigned long long)qa.retransmits,
			      (unsigned long long)qb.retransmits);
		assert_true(qb.retransmits > 0);
	}
	rr_disconnect(&c);
}

static void spin(struct conn *c, unsigned ms)
{
	uint64_t end = rte_get_tsc_cycles() + ms * rte_get_tsc_hz() / 1000;

	while (rte_get_tsc_cycles() < end)
		poll_all(c);
}

/* FRWR: every call with chunks registers its staging under a key of its own; the server
 * invalidates it with Send With Invalidate when the client offers that (RFC 8797), else the
 * client does a LOCAL_INV before it hands the reply over. Afterwards the key is dead: the
 * server's RDMA WRITE with it fails. */
static void frwr_round(struct conn *c)
{
	echo(c, 5, 1, false, false, 0);			    /* no chunks: nothing registered */
	echo(c, 9000, 2, false, false, 16384);		    /* long call and long reply */
	echo(c, 1u << 20, 3, true, false, (1u << 20) + 64); /* read chunk, reply chunk */
	echo(c, 4093, 4, false, true, 0);		    /* write chunk */
}

static void test_frwr(void **st)
{
	struct rpcrdma_ep_conf frwr = {.frwr = true}, local = {.frwr = true, .no_remote_inv = true};
	const struct rpcrdma_ep_stats *cs, *ss;
	struct rpcrdma_ep_info si;
	struct conn c;

	(void)st;
	rr_connect(&c, &frwr, NULL);
	rpcrdma_ep_info(c.sv, &si);
	assert_true(si.peer_remote_inv);
	frwr_round(&c);
	cs = rpcrdma_ep_stats(c.c);
	ss = rpcrdma_ep_stats(c.sv);
	assert_int_equal(cs->frwr_regs, 3);
	assert_int_equal(ss->send_inv, 3);
	assert_int_equal(cs->remote_inv, 3);
	assert_int_equal(cs->local_invs, 0);
	{
		/* the last call's key, now invalidated: a WRITE with it must fail */
		static uint8_t junk[64];
		struct roce_mr *mr = roce_reg_mr(s[1].pd, junk, sizeof(junk), (uintptr_t)junk,
						 ROCE_ACCESS_LOCAL_WRITE);
		struct roce_sge sge = {(uintptr_t)junk, sizeof(junk), mr->lkey};
		struct roce_send_wr wr, *bad;
		struct rpcrdma_ep_info ci;

		rpcrdma_ep_info(c.c, &ci);
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = ci.last_frwr_iova;
		wr.wr.rdma.rkey = ci.last_frwr_key;
		assert_int_not_equal(ci.last_frwr_key, 0);
		assert_int_equal(roce_post_send(rpcrdma_ep_qp(c.sv), &wr, &bad), 0);
		spin(&c, 200);
		assert_true(rpcrdma_ep_stats(c.sv)->rdma_errors >= 1);
		rpcrdma_ep_info(c.sv, &ci);
		assert_true(ci.failed);
		assert_int_equal(roce_dereg_mr(mr), 0);
		rr_disconnect(&c);
	}
	/* without Send With Invalidate: the client invalidates before the reply is used */
	rr_connect(&c, &local, NULL);
	rpcrdma_ep_info(c.sv, &si);
	assert_false(si.peer_remote_inv);
	frwr_round(&c);
	cs = rpcrdma_ep_stats(c.c);
	ss = rpcrdma_ep_stats(c.sv);
	assert_int_equal(cs->frwr_regs, 3);
	assert_int_equal(cs->local_invs, 3);
	assert_int_equal(ss->send_inv, 0);
	rr_disconnect(&c);
}

/* RFC 8167: the server calls the client on the same connection; the client serves the call
 * through its backchannel programs and the reply is matched by xid, with forward calls going
 * on at the same time. A client without backchannel programs drops the call and counts it. */
static void test_backchannel(void **st)
{
	static struct orpc_svc bc_svc;
	uint8_t msg[8192];
	struct result r[3] = {{0}};
	struct orpc_reply_hdr h;
	struct conn c;
	uint32_t off, n;
	XDR x;

	(void)st;
	memset(&bc_svc, 0, sizeof(bc_svc));
	orpc_svc_add(&bc_svc, &orpc_test_program);
	client_bc = &bc_svc;
	rr_connect(&c, NULL, NULL);
	client_bc = NULL;
	echo(&c, 10, 1, false, false, 0);
	/* a reverse NULL, a reverse ECHO of 100 bytes, and a forward ECHO, all in flight */
	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, 0xbc000001, ORPC_TEST_PROG, 1, 0, NULL));
	assert_int_equal(rpcrdma_ep_bc_call(c.sv, msg, xdr_getpos(&x), on_done, &r[0]), 0);
	n = echo_call(msg, sizeof(msg), 100, 5, &off);
	assert_int_equal(rpcrdma_ep_bc_call(c.sv, msg, n, on_done, &r[1]), 0);
	{
		struct rpcrdma_call call = {.msg = msg};

		call.len = echo_call(msg, sizeof(msg), 200, 6, &off);
		assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r[2]), 0);
	}
	wait_done(&c, r, 3);
	assert_int_equal(r[0].err, 0);
	assert_int_equal(orpc_reply_decode(r[0].reply, r[0].len, &h, &off), 0);
	assert_int_equal(h.xid, 0xbc000001);
	assert_int_equal(h.stat, SUCCESS);
	check_echo(&r[1], 100, 5);
	check_echo(&r[2], 200, 6);
	for (int i = 0; i < 3; i++)
		free(r[i].reply);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->bc_calls_sent, 2);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->bc_replies_rx, 2);
	assert_int_equal(rpcrdma_ep_stats(c.c)->bc_replies_sent, 2);
	/* a backchannel call longer than the client's inline receive is refused at once */
	n = echo_call(msg, sizeof(msg), 5000, 7, &off);
	assert_int_equal(rpcrdma_ep_bc_call(c.sv, msg, n, on_done, &r[0]), -E2BIG);
	/* a reply is not a call; the client side cannot call backwards */
	{
		static const uint8_t reply[24] = {0xbc, 0, 0, 3, 0, 0, 0, 1};

		assert_int_equal(rpcrdma_ep_bc_call(c.sv, reply, sizeof(reply), on_done, NULL),
				 -EINVAL);
	}
	assert_int_equal(rpcrdma_ep_bc_call(c.c, msg, n, on_done, NULL), -EINVAL);
	rr_disconnect(&c);

	/* no backchannel programs: the call is dropped and counted, forward calls go on */
	rr_connect(&c, NULL, NULL);
	echo(&c, 10, 1, false, false, 0);
	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, 0xbc000002, ORPC_TEST_PROG, 1, 0, NULL));
	assert_int_equal(rpcrdma_ep_bc_call(c.sv, msg, xdr_getpos(&x), NULL, NULL), 0);
	echo(&c, 20, 2, false, false, 0);
	assert_int_equal(rpcrdma_ep_stats(c.c)->bc_calls_rx, 1);
	assert_int_equal(rpcrdma_ep_stats(c.c)->bc_dropped, 1);
	rr_disconnect(&c);
}

/* A NULL call from the client; the server's handler records the call's bc_id. */
static uint64_t null_bc_id(struct conn *c)
{
	uint8_t msg[256];
	struct rpcrdma_call call = {.msg = msg};
	struct result r = {0};
	XDR x;

	xdrmem_create(&x, (char *)msg, sizeof(msg), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, next_xid++, ORPC_TEST_PROG, 1, 0, NULL));
	call.len = xdr_getpos(&x);
	orpc_test_last_bc_id = 0;
	assert_int_equal(rpcrdma_clnt_call(c->c, &call, on_done, &r), 0);
	wait_done(c, &r, 1);
	assert_int_equal(r.err, 0);
	free(r.reply);
	return orpc_test_last_bc_id;
}

/* Backward calls through the svc's table (orpc_bc.h): a server endpoint registers when it
 * starts and its calls carry the id; orpc_bc_call reaches droce's client, which serves it; the
 * backward replies come in receives posted beyond the credits (RFC 8167 §4), so a server
 * granting 4 credits, all held by deferred forward calls, still takes the replies of 4
 * backward calls (no RNR NAK, no overrun); a
 * backward call still waiting when the endpoint fails, or is destroyed, ends -ENOTCONN once,
 * and the id is stale from then on. */
static void test_backchannel_table(void **st)
{
	static struct orpc_svc bc_svc;
	static struct orpc_bc_table t;
	static uint8_t msg[RPCRDMA_BC_SLOTS + 4][512];
	struct rpcrdma_ep_conf sc = {.credits = 4}, cc = {.slots = 4};
	struct result r[RPCRDMA_BC_SLOTS + 4] = {{0}}, w = {0};
	struct conn c;
	uint64_t id, id2;
	uint32_t xid;
	uint32_t off;
	XDR x;

	(void)st;
	orpc_bc_table_init(&t);
	svc.bc = &t;
	memset(&bc_svc, 0, sizeof(bc_svc));
	orpc_svc_add(&bc_svc, &orpc_test_program);
	client_bc = &bc_svc;
	rr_connect(&c, &cc, &sc);
	client_bc = NULL;
	id = null_bc_id(&c);
	assert_true(id != 0);
	assert_true(orpc_bc_alive(&t, id));
	assert_int_equal(t.live, 1);
	/* 4 forward calls deferred (LATER) hold every receive the 4 credits count on; the
	 * RPCRDMA_BC_SLOTS backward ECHOs still get their replies, in the receives beyond */
	for (uint32_t i = RPCRDMA_BC_SLOTS; i < RPCRDMA_BC_SLOTS + 4; i++) {
		struct rpcrdma_call call = {.msg = msg[i]};

		call.len = echo_call(msg[i], sizeof(msg[i]), 32 + i, (int)i, &off);
		msg[i][23] = ORPC_TEST_LATER; /* the procedure word's low byte: ECHO -> LATER */
		assert_int_equal(rpcrdma_clnt_call(c.c, &call, on_done, &r[i]), 0);
	}
	for (int i = 0; i < 200000 && orpc_test_later_waiting() < 4; i++)
		poll_all(&c);
	assert_int_equal(orpc_test_later_waiting(), 4);
	for (uint32_t i = 0; i < RPCRDMA_BC_SLOTS; i++) {
		uint32_t n = echo_call(msg[i], sizeof(msg[i]), 64 + i, (int)i, &off);

		assert_int_equal(orpc_bc_call(&t, id, msg[i], n, on_done, &r[i]), 0);
	}
	assert_int_equal(orpc_bc_call(&t, id, msg[0], 64, on_done, &w), -EBUSY);
	wait_done(&c, r, RPCRDMA_BC_SLOTS);
	assert_int_equal(orpc_test_later_waiting(), 4);
	assert_int_equal(orpc_test_later_run(), 4);
	wait_done(&c, r, RPCRDMA_BC_SLOTS + 4);
	for (uint32_t i = 0; i < RPCRDMA_BC_SLOTS + 4; i++) {
		check_echo(&r[i], i < RPCRDMA_BC_SLOTS ? 64 + i : 32 + i, (int)i);
		free(r[i].reply);
	}
	assert_int_equal(rpcrdma_ep_stats(c.sv)->credit_overrun, 0);
	{
		/* the backward replies found receives of their own: no SEND waited for one */
		struct roce_qp_stats qs;

		roce_qp_query_stats(rpcrdma_ep_qp(c.sv), &qs);
		assert_int_equal(qs.rnr_nak_tx, 0);
	}
	assert_int_equal(rpcrdma_ep_stats(c.sv)->bc_replies_rx, RPCRDMA_BC_SLOTS);
	assert_int_equal(t.st.calls, RPCRDMA_BC_SLOTS);
	/* the client goes away with a backward call waiting (a call cut short: the client
	 * drops it): the server endpoint fails, ends it -ENOTCONN once and leaves the table */
	memset(&w, 0, sizeof(w));
	xdrmem_create(&x, (char *)msg[0], sizeof(msg[0]), XDR_ENCODE);
	assert_true(orpc_call_encode(&x, 0xbc0000f1, ORPC_TEST_PROG, 1, 0, NULL));
	assert_int_equal(orpc_bc_call(&t, id, msg[0], 12, on_done, &w), 0);
	for (int i = 0; i < 100000 && !rpcrdma_ep_stats(c.c)->bc_dropped; i++)
		poll_all(&c);
	assert_int_equal(rpcrdma_ep_stats(c.c)->bc_dropped, 1);
	assert_int_equal(w.done, 0);
	rr_disconnect(&c);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.err, -ENOTCONN);
	assert_false(orpc_bc_alive(&t, id));
	assert_int_equal(orpc_bc_call(&t, id, msg[0], 12, on_done, &w), -ENOTCONN);
	assert_int_equal(w.done, 1);

	/* destroyed with a backward call waiting: -ENOTCONN once, the id stale, a new id; one
	 * cancelled before does not end */
	rr_connect(&c, NULL, NULL);
	id2 = null_bc_id(&c);
	assert_true(id2 != 0 && id2 != id);
	memset(&w, 0, sizeof(w));
	memset(&r[0], 0, sizeof(r[0]));
	assert_int_equal(orpc_bc_call(&t, id2, msg[0], 12, on_done, &w), 0);
	msg[1][0] = 0xbc, msg[1][1] = 0, msg[1][2] = 0, msg[1][3] = 0xf2;
	memcpy(msg[1] + 4, msg[0] + 4, 8);
	assert_int_equal(orpc_bc_call(&t, id2, msg[1], 12, on_done, &r[0]), 0);
	memcpy(&xid, msg[1], 4);
	assert_int_equal(orpc_bc_cancel(&t, id2, xid), 0);
	assert_int_equal(orpc_bc_cancel(&t, id2, xid), -ENOENT);
	destroy_ep(c.sv);
	c.sv = NULL;
	assert_int_equal(r[0].done, 0);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.err, -ENOTCONN);
	assert_false(orpc_bc_alive(&t, id2));
	assert_int_equal(t.live, 0);
	rr_disconnect(&c);
	assert_int_equal(w.done, 1);
	svc.bc = NULL;
}

/* Raw messages on the client's QP, past the client's own checks. */
struct raw {
	struct roce_mr *mr;
	uint8_t *buf;
};

static void raw_send(struct raw *r, struct rpcrdma_ep *ep, const uint8_t *msg, uint32_t len)
{
	struct roce_sge sge = {(uintptr_t)r->buf, len, r->mr->lkey};
	struct roce_send_wr wr, *bad;

	memcpy(r->buf, msg, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0; /* an id the endpoint does not know: its completion is ignored */
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	assert_int_equal(roce_post_send(rpcrdma_ep_qp(ep), &wr, &bad), 0);
}

static void test_bad_headers_and_keys(void **st)
{
	struct rpcrdma_seg bogus = {0xdead0001, 4096, 0x1000};
	struct rpcrdma_chunk wch = {1, &bogus};
	struct rpcrdma_hdr_out o = {
		.xid = 0x01020304, .vers = 2, .credits = 1, .proc = RPCRDMA_MSG};
	uint8_t msg[1024];
	uint32_t off, n;
	struct raw r;
	struct conn c;
	int h;

	(void)st;
	r.buf = rte_zmalloc("raw", 4096, 64);
	r.mr = roce_reg_mr(s[0].pd, r.buf, 4096, (uintptr_t)r.buf, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(r.mr);
	rr_connect(&c, NULL, NULL);
	echo(&c, 1, 0, false, false, 0);
	/* version 2: RDMA_ERROR ERR_VERS, with our xid, which the client does not know */
	h = rpcrdma_hdr_encode(&o, msg, sizeof(msg));
	o.vers = 1;
	raw_send(&r, c.c, msg, (uint32_t)h);
	spin(&c, 100);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_vers_sent, 1);
	assert_int_equal(rpcrdma_ep_stats(c.c)->stray_replies, 1);
	/* a read position that is not a multiple of 4: ERR_CHUNK */
	{
		struct rpcrdma_rseg rs = {6, {0x1234, 8, 0x1000}};
		struct rpcrdma_hdr_out bad = {.xid = 0x01020305,
					      .vers = 1,
					      .credits = 1,
					      .proc = RPCRDMA_MSG,
					      .nr_rsegs = 1,
					      .rsegs = &rs};

		h = rpcrdma_hdr_encode(&bad, msg, sizeof(msg));
		assert_int_equal(h, 52);
		raw_send(&r, c.c, msg, (uint32_t)h);
	}
	spin(&c, 100);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_chunk_sent, 1);
	assert_int_equal(rpcrdma_ep_stats(c.c)->stray_replies, 2);
	/* too short to answer: dropped and counted */
	raw_send(&r, c.c, msg, 12);
	spin(&c, 100);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rx_drop, 1);
	echo(&c, 2, 1, false, false, 0); /* the connection is still good */
	/* an ECHO whose write chunk names a key the client never gave: the server's RDMA WRITE
	 * fails, no reply is sent (no partial one either) and the connection ends */
	o.nr_wchunks = 1;
	o.wchunks = &wch;
	h = rpcrdma_hdr_encode(&o, msg, sizeof(msg));
	n = echo_call(msg + h, sizeof(msg) - (uint32_t)h, 100, 3, &off);
	raw_send(&r, c.c, msg, (uint32_t)h + n);
	spin(&c, 300);
	assert_true(rpcrdma_ep_stats(c.sv)->rdma_errors >= 1);
	assert_int_equal(rpcrdma_ep_stats(c.c)->stray_replies, 2); /* only the two errors */
	/* what reached the client: 2 echo replies, ERR_VERS, ERR_CHUNK; the failed call's reply
	 * was posted behind its WRITE and flushed with it */
	assert_int_equal(rpcrdma_ep_stats(c.c)->rx_msgs, 4);
	assert_int_equal(roce_dereg_mr(r.mr), 0);
	rte_free(r.buf);
	rr_disconnect(&c);
	/* a new connection is not disturbed */
	rr_connect(&c, NULL, NULL);
	echo(&c, 5000, 4, false, false, 8192);
	rr_disconnect(&c);
}

/* A message longer than the inline size the server announced (its receive buffers): the
 * receive fails with LOC_LEN_ERR, nothing is dispatched and no RDMA_ERROR can answer it (it is
 * not in any buffer); the server counts it, its endpoint fails, the client's SEND fails with a
 * NAK; a new connection works. RFC 8166 leaves this to the transport (a receive too small ends
 * the connection); ERR_CHUNK answers what a header says, not a message that never arrived. */
static void test_oversized_inline(void **st)
{
	struct rpcrdma_hdr_out o = {
		.xid = 0x0a0b0c0d, .vers = 1, .credits = 1, .proc = RPCRDMA_MSG};
	static uint8_t msg[8192];
	struct rpcrdma_ep_info si;
	uint32_t off, n;
	struct raw r;
	struct conn c;
	int h;

	(void)st;
	r.buf = rte_zmalloc("raw", sizeof(msg), 64);
	r.mr = roce_reg_mr(s[0].pd, r.buf, sizeof(msg), (uintptr_t)r.buf, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(r.mr);
	rr_connect(&c, NULL, NULL);
	echo(&c, 1, 0, false, false, 0);
	rpcrdma_ep_info(c.sv, &si);
	h = rpcrdma_hdr_encode(&o, msg, sizeof(msg));
	n = echo_call(msg + h, sizeof(msg) - (uint32_t)h, si.inline_recv + 100, 9, &off);
	assert_true((uint32_t)h + n > si.inline_recv);
	raw_send(&r, c.c, msg, (uint32_t)h + n);
	spin(&c, 300);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rx_too_long, 1);
	assert_true(rpcrdma_ep_stats(c.sv)->rdma_errors >= 1);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_chunk_sent, 0);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rx_msgs, 1); /* only the first ECHO arrived */
	rpcrdma_ep_info(c.sv, &si);
	assert_true(si.failed);
	/* what failed it, for droce-nfsd's "endpoint failed: LOC_LEN_ERR on its receive" */
	assert_int_equal(si.fail_status, ROCE_WC_LOC_LEN_ERR);
	assert_string_equal(si.fail_wr, "receive");
	{
		char what[64];

		assert_string_equal(rpcrdma_ep_fail_str(&si, what, sizeof(what)),
				    "LOC_LEN_ERR on its receive");
	}
	assert_int_equal(roce_dereg_mr(r.mr), 0);
	rte_free(r.buf);
	rr_disconnect(&c);
	rr_connect(&c, NULL, NULL);
	echo(&c, 3000, 10, false, false, 0);
	rr_disconnect(&c);
}

/* Read chunks whose rebuilt call would be longer than the server's max_chunk: ECHO's data
 * (max_chunk - 47 bytes at position 44) ends the call exactly at max_chunk once rounded up,
 * and a second chunk sits at position max_chunk. The server must refuse it with ERR_CHUNK and
 * never dispatch it; the room check before each chunk's copy once wrapped when the call had
 * reached max_chunk, and the chunk was copied past the end of the request's stage_call (found
 * with tests/fuzz/fuzz_rpcrdma_srv.c, seed read_chunks_past_max_chunk). */
static void test_read_chunks_past_max_chunk(void **st)
{
	struct rpcrdma_ep_conf sconf = {.max_chunk = 8192};
	struct rpcrdma_rseg rs[2];
	struct rpcrdma_hdr_out o = {.xid = 0x01020399,
				    .vers = 1,
				    .credits = 1,
				    .proc = RPCRDMA_MSG,
				    .nr_rsegs = 2,
				    .rsegs = rs};
	uint8_t msg[1024];
	uint64_t calls;
	uint32_t off, n;
	struct raw r;
	struct conn c;
	int h;

	(void)st;
	r.buf = rte_zmalloc("raw", 16384, 64);
	assert_non_null(r.buf);
	r.mr = roce_reg_mr(s[0].pd, r.buf, 16384, (uintptr_t)r.buf,
			   ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ);
	assert_non_null(r.mr);
	rr_connect(&c, NULL, &sconf);
	echo(&c, 1, 0, false, false, 0);
	/* the message goes from r.buf's first KiB; the chunks are read from above it */
	rs[0] = (struct rpcrdma_rseg){44, {r.mr->rkey, 8192 - 47, (uintptr_t)r.buf + 8192}};
	rs[1] = (struct rpcrdma_rseg){8192, {r.mr->rkey, 44, (uintptr_t)r.buf + 4096}};
	h = rpcrdma_hdr_encode(&o, msg, sizeof(msg));
	assert_true(h > 0);
	n = echo_call(msg + h, sizeof(msg) - (uint32_t)h, 8, 1, &off);
	assert_int_equal(off, 44);
	calls = svc.stats.calls;
	raw_send(&r, c.c, msg, (uint32_t)h + n);
	spin(&c, 100);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_chunk_sent, 1);
	assert_int_equal(svc.stats.calls, calls); /* never dispatched */
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rdma_errors, 0);
	echo(&c, 2, 1, false, false, 0); /* the connection goes on */
	assert_int_equal(roce_dereg_mr(r.mr), 0);
	rte_free(r.buf);
	rr_disconnect(&c);
}

/* A client that receives 1024 bytes inline but sends 4096 names a write list and a reply
 * chunk whose echo alone (the reply's transport header) is longer than 1024 bytes. The server
 * cannot convey that reply: it answers ERR_CHUNK (RFC 8166 §4.5.2), and the connection goes
 * on. It used to fail the send with -E2BIG and end the connection. */
static void test_reply_header_too_long(void **st)
{
	enum { NCH = 4, NSEG = RPCRDMA_MAX_CHUNK_SEGS };
	struct rpcrdma_seg wseg[NCH][NSEG], rseg[NSEG];
	struct rpcrdma_chunk wch[NCH], rch = {NSEG, rseg};
	struct rpcrdma_hdr_out o = {.xid = 0x010203a0,
				    .vers = 1,
				    .credits = 1,
				    .proc = RPCRDMA_MSG,
				    .nr_wchunks = NCH,
				    .wchunks = wch,
				    .reply = &rch};
	static uint8_t msg[4096];
	uint32_t off, n;
	struct raw r;
	struct conn c;
	int h;

	(void)st;
	r.buf = rte_zmalloc("raw", 65536, 64);
	assert_non_null(r.buf);
	r.mr = roce_reg_mr(s[0].pd, r.buf, 65536, (uintptr_t)r.buf,
			   ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	assert_non_null(r.mr);
	client_max_recv = 1024;
	rr_connect(&c, NULL, NULL);
	client_max_recv = 0;
	echo(&c, 1, 0, false, false, 0);
	/* every segment is 64 bytes of the raw buffer above its first 4 KiB */
	for (uint32_t k = 0; k < NCH; k++) {
		for (uint32_t i = 0; i < NSEG; i++)
			wseg[k][i] = (struct rpcrdma_seg){
				r.mr->rkey, 64, (uintptr_t)r.buf + 4096 + (k * NSEG + i) * 64};
		wch[k] = (struct rpcrdma_chunk){NSEG, wseg[k]};
	}
	for (uint32_t i = 0; i < NSEG; i++)
		rseg[i] = (struct rpcrdma_seg){r.mr->rkey, 64,
					       (uintptr_t)r.buf + 4096 + (NCH * NSEG + i) * 64};
	h = rpcrdma_hdr_encode(&o, msg, sizeof(msg));
	assert_true(h > 1024 && h < 4096 - 64);
	n = echo_call(msg + h, sizeof(msg) - (uint32_t)h, 8, 1, &off);
	raw_send(&r, c.c, msg, (uint32_t)h + n);
	spin(&c, 300);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->err_chunk_sent, 1);
	assert_int_equal(rpcrdma_ep_stats(c.sv)->rdma_errors, 0);
	assert_int_equal(rpcrdma_ep_stats(c.c)->stray_replies, 1); /* the raw xid's ERR_CHUNK */
	echo(&c, 2, 1, false, false, 0);			   /* the connection goes on */
	assert_int_equal(roce_dereg_mr(r.mr), 0);
	rte_free(r.buf);
	rr_disconnect(&c);
}

int main(void)
{
	static char a0[] = "test_rpcrdma_ep", a1[] = "--no-huge", a2[] = "-m", a3[] = "512",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_and_private_data),
		cmocka_unit_test(test_every_chunk_kind),
		cmocka_unit_test(test_regions_reused),
		cmocka_unit_test(test_placed_results),
		cmocka_unit_test(test_without_private_data),
		cmocka_unit_test(test_calls_in_flight),
		cmocka_unit_test(test_deferred),
		cmocka_unit_test(test_concurrent_deferred),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_backchannel),
		cmocka_unit_test(test_backchannel_table),
		cmocka_unit_test(test_frwr),
		cmocka_unit_test(test_bad_headers_and_keys),
		cmocka_unit_test(test_oversized_inline),
		cmocka_unit_test(test_read_chunks_past_max_chunk),
		cmocka_unit_test(test_reply_header_too_long),
	};
	static struct ring_pair rp;
	int rc;

	if (rte_eal_init(10, eal) < 0 || ring_pair_up(&rp, "rr", 80, 1500) != 0)
		return 1;
	pool = rp.pool;
	lc = rp.lc;
	for (int k = 0; k < 2; k++) {
		ip[k] = rp.ip[k];
		s[k].dev = rp.dev[k];
		s[k].cm = rp.cm[k];
		s[k].pd = rp.pd[k];
	}
	orpc_svc_add(&svc, &orpc_test_program);
	orpc_svc_add(&svc, &orpc_test_sys_program);
	base_in_use = rte_mempool_in_use_count(pool);
	roce_dev_counts(s[0].dev, &base[0]);
	roce_dev_counts(s[1].dev, &base[1]);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	for (int i = 0; i < 1000; i++)
		stk_lcore_poll(lc);
	if (rte_mempool_in_use_count(pool) > base_in_use) {
		fprintf(stderr, "%u mbufs more in use than at the start\n",
			rte_mempool_in_use_count(pool) - base_in_use);
		rc = 1;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts dc;

		roce_cm_close(s[k].cm);
		rp.cm[k] = NULL;
		roce_dev_counts(s[k].dev, &dc);
		if (dc.mrs + dc.cqs + dc.qps) {
			fprintf(stderr, "side %d: %u MRs %u CQs %u QPs left\n", k, dc.mrs, dc.cqs,
				dc.qps);
			rc = 1;
		}
	}
	ring_pair_down(&rp);
	rte_eal_cleanup();
	return rc;
}
