/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpc-bench.c - RPC-over-RDMA (rpc/rpcrdma) against the raw transport it stands on, in one run:
 * two devices over crossed net_ring ports in one process, client and server on one lcore (the
 * "both sides on one lcore" case of rc-bench), connected by the CM.
 *
 *   null     NULL calls per second at 1 and 16 calls in flight, with p50/p99 latency
 *            baseline: a raw SEND answered by a raw SEND (the two messages an RPC needs)
 *   fill     1 MiB results by write chunk (FILL: a READ-shaped call), goodput
 *            baseline: raw 1 MiB RDMA WRITEs on the same devices
 *
 * It prints a table and writes JSON; it asserts nothing about speed.
 * Usage: rpc-bench [EAL args --] [--json FILE] [--seconds S]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "orpc_msg.h"
#include "orpc_testprog.h"
#include "ring_pair.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define MAX_LAT (1u << 22)

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static struct stk_ipaddr ip[2];
static struct roce_dev *dev[2];
static struct roce_cm *cm[2];
static struct roce_pd *pd[2];
static struct orpc_svc svc;
static uint64_t hz;
static double seconds = 2.0;
static uint16_t next_port = 30000;

static int wait_event(int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * hz;

	while (rte_get_tsc_cycles() < end) {
		if (roce_cm_get_event(cm[k], ev) == 0)
			return ev->event == t ? 0 : -1;
		stk_lcore_poll(lc);
	}
	return -1;
}

/* connect QP a (side 0) to QP b (side 1); private data both ways */
static int cm_pair(struct roce_qp *a, struct roce_qp *b, const uint8_t *pa, uint8_t la,
		   const uint8_t *pb, uint8_t lb, struct roce_cm_event *ev_b,
		   struct roce_cm_event *ev_a, void (*before_accept)(void *), void *arg)
{
	struct roce_cm_conn_param p = {.cm_response_timeout = 14};
	struct roce_cm_id *l = roce_cm_create_id(cm[1], ROCE_CM_PS_TCP, NULL);
	struct roce_cm_id *c = roce_cm_create_id(cm[0], ROCE_CM_PS_TCP, NULL);
	uint16_t port = next_port++;

	if (!l || !c || roce_cm_listen(l, port, 4) != 0)
		return -1;
	p.private_data = pa;
	p.private_data_len = la;
	if (roce_cm_connect(c, &ip[1], port, a, &p) != 0 ||
	    wait_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, ev_b) != 0)
		return -1;
	p.private_data = pb;
	p.private_data_len = lb;
	if (roce_cm_accept(ev_b->id, b, &p) != 0)
		return -1;
	if (before_accept)
		before_accept(arg);
	if (wait_event(0, ROCE_CM_EVENT_ESTABLISHED, ev_a) != 0)
		return -1;
	/* the passive side's ESTABLISHED too, so the next connection starts from a clean queue */
	{
		struct roce_cm_event e;

		if (wait_event(1, ROCE_CM_EVENT_ESTABLISHED, &e) != 0)
			return -1;
	}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

struct result {
	const char *name;
	double rate;	       /* operations/s, or Gbit/s for goodput */
	double p50_us, p99_us; /* 0: not measured */
	const char *unit;
};

static struct result results[16];

static int nresults;

static void add_result(const char *name, double rate, const char *unit, uint64_t *lat, uint64_t n)
{
	struct result *r = &results[nresults++];

	r->name = name;
	r->rate = rate;
	r->unit = unit;
	if (lat && n) {
		qsort(lat, n, sizeof(*lat), cmp_u64);
		r->p50_us = (double)lat[n / 2] * 1e6 / (double)hz;
		r->p99_us = (double)lat[n * 99 / 100] * 1e6 / (double)hz;
	}
}

/* ---- raw transport baselines ---- */

struct raw {
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
};

static int raw_setup(struct raw *r, uint32_t len)
{
	struct roce_cm_event ea, eb;

	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr a;

		r->cq[k] = roce_create_cq(dev[k], 4096);
		memset(&a, 0, sizeof(a));
		a.send_cq = a.recv_cq = r->cq[k];
		a.qp_type = ROCE_QPT_RC;
		a.cap.max_send_wr = a.cap.max_recv_wr = 256;
		a.cap.max_send_sge = a.cap.max_recv_sge = 1;
		r->qp[k] = r->cq[k] ? roce_create_qp(pd[k], &a) : NULL;
		r->buf[k] = rte_zmalloc("rawbuf", len * 32 + 4096, 4096);
		r->mr[k] = r->buf[k]
				   ? roce_reg_mr(pd[k], r->buf[k], len * 32 + 4096,
						 (uintptr_t)r->buf[k],
						 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE)
				   : NULL;
		if (!r->qp[k] || !r->mr[k])
			return -1;
	}
	return cm_pair(r->qp[0], r->qp[1], NULL, 0, NULL, 0, &eb, &ea, NULL, NULL);
}

static void raw_teardown(struct raw *r)
{
	struct roce_wc wc[32];

	for (int k = 0; k < 2; k++) {
		roce_destroy_qp(r->qp[k]);
		while (roce_poll_cq(r->cq[k], 32, wc) > 0)
			;
		roce_dereg_mr_drain(r->mr[k], lc, 100000);
		roce_destroy_cq(r->cq[k]);
		rte_free(r->buf[k]);
	}
}

static void raw_recv(struct raw *r, int k, uint32_t slot, uint32_t len)
{
	struct roce_sge sge = {(uintptr_t)(r->buf[k] + slot * len), len, r->mr[k]->lkey};
	struct roce_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;

	roce_post_recv(r->qp[k], &wr, &bad);
}

static void raw_send(struct raw *r, int k, uint64_t id, uint32_t len)
{
	struct roce_sge sge = {(uintptr_t)r->buf[k], len, r->mr[k]->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	roce_post_send(r->qp[k], &wr, &bad);
}

/* a SEND of len bytes from side 0, answered by a SEND from side 1, qd in flight */
static void bench_raw_pingpong(uint32_t qd, uint32_t len, const char *name, uint64_t *lat)
{
	struct raw r;
	uint64_t start[64], n = 0, t0, end;
	struct roce_wc wc[32];

	memset(&r, 0, sizeof(r));
	if (raw_setup(&r, len) != 0) {
		fprintf(stderr, "rpc-bench: raw setup failed\n");
		return;
	}
	for (uint32_t i = 0; i < 32; i++) {
		raw_recv(&r, 0, i, len);
		raw_recv(&r, 1, i, len);
	}
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(seconds * (double)hz);
	for (uint32_t i = 0; i < qd; i++) {
		start[i] = rte_get_tsc_cycles();
		raw_send(&r, 0, i, len);
	}
	while (rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		for (int k = 1; k >= 0; k--) {
			int m = roce_poll_cq(r.cq[k], 32, wc);

			for (int j = 0; j < m; j++) {
				if (wc[j].opcode != ROCE_WC_RECV)
					continue;
				raw_recv(&r, k, (uint32_t)wc[j].wr_id, len);
				if (k == 1) {
					raw_send(&r, 1, 0, len); /* the answer */
					continue;
				}
				/* an answer came back: one round trip done, start the next */
				{
					uint64_t now = rte_get_tsc_cycles();
					uint32_t slot = (uint32_t)(n % qd);

					if (n < MAX_LAT)
						lat[n] = now - start[slot];
					n++;
					start[slot] = now;
					raw_send(&r, 0, slot, len);
				}
			}
		}
	}
	add_result(name, (double)n * (double)hz / (double)(rte_get_tsc_cycles() - t0), "ops/s", lat,
		   n < MAX_LAT ? n : MAX_LAT);
	for (int i = 0; i < 2000; i++)
		stk_lcore_poll(lc);
	raw_teardown(&r);
}

/* raw RDMA WRITEs of len bytes from side 1 into side 0, one at a time */
static void bench_raw_write(uint32_t len, const char *name)
{
	struct raw r;
	struct roce_wc wc[32];
	uint64_t n = 0, t0, end;
	struct roce_sge sge;
	struct roce_send_wr wr, *bad;

	memset(&r, 0, sizeof(r));
	if (raw_setup(&r, len) != 0)
		return;
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(seconds * (double)hz);
	while (rte_get_tsc_cycles() < end) {
		sge = (struct roce_sge){(uintptr_t)r.buf[1], len, r.mr[1]->lkey};
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r.mr[0]->iova;
		wr.wr.rdma.rkey = r.mr[0]->rkey;
		roce_post_send(r.qp[1], &wr, &bad);
		for (;;) {
			stk_lcore_poll(lc);
			if (roce_poll_cq(r.cq[1], 32, wc) > 0)
				break;
		}
		n++;
	}
	add_result(name,
		   (double)n * len * 8 * (double)hz / (double)(rte_get_tsc_cycles() - t0) / 1e9,
		   "Gbit/s", NULL, 0);
	raw_teardown(&r);
}

/* ---- RPC-over-RDMA ---- */

struct rpc_pair {
	struct rpcrdma_ep *c, *s;
};

static void start_server(void *arg)
{
	struct rpc_pair *p = arg;

	(void)p;
}

static bool use_frwr;

static int rpc_setup(struct rpc_pair *p, uint32_t slots, uint32_t max_chunk)
{
	struct rpcrdma_ep_conf cc = {.slots = slots, .max_chunk = max_chunk, .frwr = use_frwr};
	struct rpcrdma_ep_conf sc = {.max_chunk = max_chunk};
	uint8_t pc[RPCRDMA_CM_PRIV_LEN], ps[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_event ea, eb;

	p->c = rpcrdma_ep_create(dev[0], pd[0], RPCRDMA_CLIENT, &cc, NULL);
	p->s = rpcrdma_ep_create(dev[1], pd[1], RPCRDMA_SERVER, &sc, &svc);
	if (!p->c || !p->s) {
		fprintf(stderr, "rpc-bench: endpoints: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (cm_pair(rpcrdma_ep_qp(p->c), rpcrdma_ep_qp(p->s), pc, rpcrdma_ep_private_data(p->c, pc),
		    ps, rpcrdma_ep_private_data(p->s, ps), &eb, &ea, start_server, p) != 0) {
		fprintf(stderr, "rpc-bench: the CM did not connect the endpoints\n");
		return -1;
	}
	if (rpcrdma_ep_start(p->s, eb.private_data, eb.private_data_len) != 0 ||
	    rpcrdma_ep_start(p->c, ea.private_data, ea.private_data_len) != 0)
		return -1;
	return 0;
}

static uint64_t done_n, *lat_buf;
static uint64_t call_start[RPCRDMA_CLNT_MAX_SLOTS];
static uint64_t bytes_in;

static void on_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	uint64_t now = rte_get_tsc_cycles();
	uintptr_t slot = (uintptr_t)ctx;

	(void)reply;
	if (err)
		fprintf(stderr, "rpc-bench: call failed: %d\n", err);
	if (lat_buf && done_n < MAX_LAT)
		lat_buf[done_n] = now - call_start[slot];
	done_n++;
	bytes_in += len;
	call_start[slot] = 0;
}

static uint32_t encode_call(uint8_t *buf, uint32_t proc, uint32_t arg)
{
	XDR x;

	xdrmem_create(&x, (char *)buf, 256, XDR_ENCODE);
	orpc_call_encode(&x, (uint32_t)rte_rdtsc(), ORPC_TEST_PROG, 1, proc, NULL);
	if (proc == ORPC_TEST_FILL)
		xdr_u_int(&x, &arg);
	return xdr_getpos(&x);
}

static void bench_rpc(uint32_t qd, uint32_t proc, uint32_t arg, const char *name, uint64_t *lat)
{
	struct rpc_pair p;
	uint8_t msg[256];
	uint64_t t0, end;
	struct rpcrdma_call c = {.msg = msg};

	if (rpc_setup(&p, qd, proc == ORPC_TEST_FILL && arg > 16384 ? (1u << 20) + 8192 : 16384) !=
	    0) {
		fprintf(stderr, "rpc-bench: RPC setup failed\n");
		return;
	}
	c.ddp_reply = proc == ORPC_TEST_FILL;
	done_n = 0;
	bytes_in = 0;
	lat_buf = lat;
	memset(call_start, 0, sizeof(call_start));
	/* warm up: the first reply raises the client's credits from 1 */
	c.len = encode_call(msg, proc, arg);
	rpcrdma_clnt_call(p.c, &c, on_done, (void *)(uintptr_t)0);
	while (done_n == 0) {
		stk_lcore_poll(lc);
		rpcrdma_ep_poll(p.s);
		rpcrdma_ep_poll(p.c);
	}
	done_n = 0;
	bytes_in = 0;
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(seconds * (double)hz);
	while (rte_get_tsc_cycles() < end) {
		for (uint32_t s = 0; s < qd && rpcrdma_clnt_room(p.c); s++) {
			if (call_start[s])
				continue;
			c.len = encode_call(msg, proc, arg);
			call_start[s] = rte_get_tsc_cycles();
			if (rpcrdma_clnt_call(p.c, &c, on_done, (void *)(uintptr_t)s) != 0)
				call_start[s] = 0;
		}
		stk_lcore_poll(lc);
		rpcrdma_ep_poll(p.s);
		rpcrdma_ep_poll(p.c);
	}
	if (proc == ORPC_TEST_FILL)
		add_result(name,
			   (double)arg * (double)done_n * 8 * (double)hz /
				   (double)(rte_get_tsc_cycles() - t0) / 1e9,
			   "Gbit/s", NULL, 0);
	else
		add_result(name, (double)done_n * (double)hz / (double)(rte_get_tsc_cycles() - t0),
			   "ops/s", lat, done_n < MAX_LAT ? done_n : MAX_LAT);
	/* drain what is in flight, then close */
	for (int i = 0; i < 200000 && rpcrdma_clnt_room(p.c) < qd; i++) {
		stk_lcore_poll(lc);
		rpcrdma_ep_poll(p.s);
		rpcrdma_ep_poll(p.c);
	}
	lat_buf = NULL;
	while (rpcrdma_ep_destroy(p.c) == -EBUSY)
		stk_lcore_poll(lc);
	while (rpcrdma_ep_destroy(p.s) == -EBUSY)
		stk_lcore_poll(lc);
	for (int i = 0; i < 2000; i++)
		stk_lcore_poll(lc);
}

static struct ring_pair rp;

static int setup(void)
{
	if (ring_pair_up(&rp, "rb", 81, 4200) != 0)
		return -1;
	pool = rp.pool;
	lc = rp.lc;
	for (int k = 0; k < 2; k++) {
		ip[k] = rp.ip[k];
		dev[k] = rp.dev[k];
		cm[k] = rp.cm[k];
		pd[k] = rp.pd[k];
	}
	orpc_svc_add(&svc, &orpc_test_program);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", 1, NULL, 'j'}, {"seconds", 1, NULL, 's'}, {NULL, 0, NULL, 0}};
	const char *json = NULL;
	uint64_t *lat;
	int n, o;
	FILE *f;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'j')
			json = optarg;
		else if (o == 's')
			seconds = atof(optarg);
		else
			return 2;
	}
	hz = rte_get_tsc_hz();
	lat = malloc(MAX_LAT * sizeof(*lat));
	if (!lat || setup() != 0) {
		fprintf(stderr, "rpc-bench: setup failed\n");
		return 1;
	}
	bench_raw_pingpong(1, 68, "raw SEND+SEND, 1 in flight", lat);
	bench_rpc(1, 0, 0, "RPC NULL, 1 in flight", lat);
	bench_raw_pingpong(16, 68, "raw SEND+SEND, 16 in flight", lat);
	bench_rpc(16, 0, 0, "RPC NULL, 16 in flight", lat);
	bench_raw_write(1u << 20, "raw RDMA WRITE 1 MiB");
	bench_rpc(1, ORPC_TEST_FILL, 1u << 20, "RPC FILL 1 MiB (write chunk)", NULL);
	use_frwr = true;
	bench_rpc(1, ORPC_TEST_FILL, 1u << 20, "RPC FILL 1 MiB, FRWR per call", NULL);
	bench_rpc(16, ORPC_TEST_FILL, 4096, "RPC FILL 4 KiB x16, FRWR", NULL);
	use_frwr = false;
	bench_rpc(16, ORPC_TEST_FILL, 4096, "RPC FILL 4 KiB x16, persistent", NULL);

	printf("\nrpc-bench: client and server on one lcore, net_ring, MTU 4200 (RoCE 4096)\n");
	printf("%-34s %14s %10s %10s\n", "case", "rate", "p50 us", "p99 us");
	for (int i = 0; i < nresults; i++)
		printf("%-34s %11.3f %-6s %8.2f %10.2f\n", results[i].name,
		       results[i].unit[0] == 'G' ? results[i].rate : results[i].rate / 1e6,
		       results[i].unit[0] == 'G' ? "Gb/s" : "M/s", results[i].p50_us,
		       results[i].p99_us);
	printf("ratios (same run): NULL/raw at 1 in flight %.2f, at 16 %.2f; FILL/raw WRITE %.2f; "
	       "FRWR/persistent 1 MiB %.2f, 4 KiB x16 %.2f\n",
	       results[1].rate / results[0].rate, results[3].rate / results[2].rate,
	       results[5].rate / results[4].rate, results[6].rate / results[5].rate,
	       results[7].rate / results[8].rate);
	printf("per server core: client and server share one core here, so the server's own "
	       "rate is at least this\n");
	if (json) {
		f = fopen(json, "w");
		if (f) {
			fprintf(f, "{\"bench\": \"rpc\", \"cases\": [");
			for (int i = 0; i < nresults; i++)
				fprintf(f,
					"%s{\"name\": \"%s\", \"rate\": %.3f, \"unit\": \"%s\", "
					"\"p50_us\": %.3f, \"p99_us\": %.3f}",
					i ? ", " : "", results[i].name, results[i].rate,
					results[i].unit, results[i].p50_us, results[i].p99_us);
			fprintf(f, "]}\n");
			fclose(f);
		}
	}
	free(lat);
	return 0;
}
