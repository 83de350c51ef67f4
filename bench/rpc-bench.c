/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpc-bench.c - RPC-over-RDMA (rpc/rpcrdma) against the raw transport it stands on, in one run:
 * two devices in one process, over crossed net_ring ports or a net_memif pair (--link), the
 * client (side 0) on the main lcore and the server (side 1) on the second lcore (--lcores 2,
 * the default with two EAL lcores) or both on one (--lcores 1), connected by the CM.
 *
 *   null     NULL calls per second at 1 and 16 calls in flight, with p50/p99 latency
 *            baseline: a raw SEND answered by a raw SEND (the two messages an RPC needs)
 *   fill     1 MiB results by write chunk (FILL: a READ-shaped call), goodput
 *            baseline: raw 1 MiB RDMA WRITEs on the same devices
 * With two lcores each row also gives the server lcore's busy share and the rate per busy
 * server core.
 *
 * It prints a table and writes JSON; it asserts nothing about speed.
 * Usage: rpc-bench [EAL args --] [--json FILE] [--seconds S] [--link ring|memif]
 *        [--lcores 1|2]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "orpc_msg.h"
#include "orpc_testprog.h"
#include "rc-bench.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define MAX_LAT (1u << 22)
#define POOL_SIZE 16383
#define MBUF_ROOM 10240 /* a whole 4 KiB-MTU frame in one memif buffer (rc-bench-link.c) */
#define RB_IP_MTU 4200	/* RoCE path MTU 4096 */

/* side 0: the client (and the raw baselines' requester) on the main lcore; side 1: the server
 * (and the raw answerer / WRITE source), on the second lcore with --lcores 2 */
static struct {
	const char *link; /* ring | memif */
	unsigned nlc;	  /* 1 or 2 */
	struct rte_mempool *pool;
	struct stk_lcore *la, *lb;
	unsigned lcore_b;
	uint16_t port[2];
} w = {.link = "ring"};
static struct stk_ipaddr ip[2];
static struct roce_dev *dev[2];
static struct roce_cm *cm[2];
static struct roce_pd *pd[2];
static struct orpc_svc svc;
static uint64_t hz;
static double seconds = 2.0;
static uint16_t next_port = 30000;

/*
 * Side 1's lcore. Everything touching side 1's device (its QPs, CQs, regions, CM events, the
 * server endpoint) runs there, as a poll hook of that lcore, because a device is only ever
 * driven from the lcore that polls it (docs/roce.md, "Threading"): the main lcore hands B a
 * function through a one-slot mailbox and waits, polling its own side meanwhile. B's steady
 * work during a case (answering, posting WRITEs, serving RPCs) is a function B runs every
 * iteration. With one lcore the same hook runs in the main lcore's loop, and a mailbox call is
 * a direct call.
 */
static struct {
	void (*fn)(void *);
	void *arg;
	int state; /* 0 idle, 1 posted, 2 done (atomics) */
	int quit;
	int (*work)(void); /* B's steady work; set and cleared through the mailbox */
	int last_work;
	uint64_t busy_tsc; /* B's cycles in iterations that received, sent or did work */
} bx;

static void b_hook(struct stk_lcore *lc, void *arg)
{
	(void)lc;
	(void)arg;
	if (__atomic_load_n(&bx.state, __ATOMIC_ACQUIRE) == 1) {
		bx.fn(bx.arg);
		__atomic_store_n(&bx.state, 2, __ATOMIC_RELEASE);
	}
	bx.last_work = bx.work ? bx.work() : 0;
}

/* B's loop; an iteration that received or sent a frame, or did work of its own, is busy */
static int b_main(void *arg)
{
	uint64_t last_tx = rcb_lcore_tx(w.lb);

	(void)arg;
	while (!__atomic_load_n(&bx.quit, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = rte_get_tsc_cycles(), t1, tx;
		unsigned n = stk_lcore_poll(w.lb);

		t1 = rte_get_tsc_cycles();
		tx = rcb_lcore_tx(w.lb);
		if (n || tx != last_tx || bx.last_work)
			__atomic_store_n(&bx.busy_tsc, bx.busy_tsc + (t1 - t0), __ATOMIC_RELAXED);
		last_tx = tx;
	}
	stk_lcore_flush(w.lb);
	return 0;
}

static void poll_a(void)
{
	stk_lcore_poll(w.la);
}

/* Run fn(arg) on side 1's lcore and wait for it. */
static void run_on_b(void (*fn)(void *), void *arg)
{
	if (w.nlc == 1) {
		fn(arg);
		return;
	}
	bx.fn = fn;
	bx.arg = arg;
	__atomic_store_n(&bx.state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&bx.state, __ATOMIC_ACQUIRE) != 2)
		poll_a();
	__atomic_store_n(&bx.state, 0, __ATOMIC_RELAXED);
}

static void set_work_fn(void *arg)
{
	bx.work = (int (*)(void))arg;
}

/* B's steady work: @p fn every iteration from now on (NULL: none) */
static void b_work(int (*fn)(void))
{
	run_on_b(set_work_fn, (void *)fn);
}

static uint64_t b_busy(void)
{
	return __atomic_load_n(&bx.busy_tsc, __ATOMIC_RELAXED);
}

struct ev_req {
	int rc;
	struct roce_cm_event ev;
};

static void get_event1(void *arg)
{
	struct ev_req *r = arg;

	r->rc = roce_cm_get_event(cm[1], &r->ev);
}

static int wait_event(int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * hz;

	while (rte_get_tsc_cycles() < end) {
		struct ev_req r = {.rc = -EAGAIN};

		if (k == 0)
			r.rc = roce_cm_get_event(cm[0], &r.ev);
		else
			run_on_b(get_event1, &r);
		if (r.rc == 0) {
			*ev = r.ev;
			return ev->event == t ? 0 : -1;
		}
		poll_a();
	}
	return -1;
}

struct listen_req {
	uint16_t port;
	int rc;
};

static void listen1(void *arg)
{
	struct listen_req *r = arg;
	struct roce_cm_id *l = roce_cm_create_id(cm[1], ROCE_CM_PS_TCP, NULL);

	r->rc = l ? roce_cm_listen(l, r->port, 4) : -ENOMEM;
}

struct accept_req {
	struct roce_cm_id *id;
	struct roce_qp *qp;
	const struct roce_cm_conn_param *p;
	int rc;
};

static void accept1(void *arg)
{
	struct accept_req *r = arg;

	r->rc = roce_cm_accept(r->id, r->qp, r->p);
}

/* connect QP a (side 0) to QP b (side 1); private data both ways */
static int cm_pair(struct roce_qp *a, struct roce_qp *b, const uint8_t *pa, uint8_t la,
		   const uint8_t *pb, uint8_t lb, struct roce_cm_event *ev_b,
		   struct roce_cm_event *ev_a)
{
	struct roce_cm_conn_param p = {.cm_response_timeout = 14};
	struct roce_cm_id *c = roce_cm_create_id(cm[0], ROCE_CM_PS_TCP, NULL);
	struct listen_req l = {.port = next_port++};
	struct accept_req ar;

	run_on_b(listen1, &l);
	if (!c || l.rc != 0)
		return -1;
	p.private_data = pa;
	p.private_data_len = la;
	if (roce_cm_connect(c, &ip[1], l.port, a, &p) != 0 ||
	    wait_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, ev_b) != 0)
		return -1;
	p.private_data = pb;
	p.private_data_len = lb;
	ar = (struct accept_req){.id = ev_b->id, .qp = b, .p = &p};
	run_on_b(accept1, &ar);
	if (ar.rc != 0)
		return -1;
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
	double busy_b;	       /* side 1's lcore: busy share of the window (2 lcores; else 0) */
	const char *unit;
};

static struct result results[16];

static int nresults;

static void add_result(const char *name, double rate, const char *unit, uint64_t *lat, uint64_t n,
		       uint64_t busy, uint64_t window)
{
	struct result *r = &results[nresults++];

	r->name = name;
	r->rate = rate;
	r->unit = unit;
	r->busy_b = w.nlc == 2 && window ? (double)busy / (double)window : 0;
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
	uint32_t len;
	int k; /* the side raw_make() and raw_free() work on */
	int rc;
};

static void raw_make(void *arg)
{
	struct raw *r = arg;
	int k = r->k;
	struct roce_qp_init_attr a;

	r->cq[k] = roce_create_cq(dev[k], 4096);
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = r->cq[k];
	a.qp_type = ROCE_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 256;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	r->qp[k] = r->cq[k] ? roce_create_qp(pd[k], &a) : NULL;
	r->buf[k] = rte_zmalloc("rawbuf", r->len * 32 + 4096, 4096);
	r->mr[k] = r->buf[k]
			   ? roce_reg_mr(pd[k], r->buf[k], r->len * 32 + 4096, (uintptr_t)r->buf[k],
					 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE)
			   : NULL;
	r->rc = r->qp[k] && r->mr[k] ? 0 : -1;
}

static int raw_setup(struct raw *r, uint32_t len)
{
	struct roce_cm_event ea, eb;

	r->len = len;
	r->k = 0;
	raw_make(r);
	if (r->rc)
		return -1;
	r->k = 1;
	run_on_b(raw_make, r);
	if (r->rc)
		return -1;
	return cm_pair(r->qp[0], r->qp[1], NULL, 0, NULL, 0, &eb, &ea);
}

/* side k's QP goes, its CQ is emptied; its region once no frame points into it (rc -EBUSY:
 * call again after a poll) */
static void raw_free(void *arg)
{
	struct raw *r = arg;
	int k = r->k;
	struct roce_wc wc[32];

	if (r->qp[k]) {
		roce_destroy_qp(r->qp[k]);
		r->qp[k] = NULL;
	}
	while (roce_poll_cq(r->cq[k], 32, wc) > 0)
		;
	r->rc = r->mr[k] ? roce_dereg_mr(r->mr[k]) : 0;
	if (r->rc == -EBUSY)
		return;
	r->mr[k] = NULL;
	roce_destroy_cq(r->cq[k]);
	rte_free(r->buf[k]);
}

static void raw_teardown(struct raw *r)
{
	for (int k = 0; k < 2; k++) {
		r->k = k;
		for (int i = 0; i < 100000; i++) {
			if (k == 0)
				raw_free(r);
			else
				run_on_b(raw_free, r);
			if (r->rc != -EBUSY)
				break;
			poll_a();
		}
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

/* side 1's part of a case, run on its lcore */
static struct raw *b_raw;
static uint64_t b_writes; /* raw WRITEs completed (side 1, atomics) */
static bool b_write_out;

static void raw_recvs1(void *arg)
{
	struct raw *r = arg;

	for (uint32_t i = 0; i < 32; i++)
		raw_recv(r, 1, i, r->len);
	b_raw = r;
}

/* the answerer: every SEND received is answered by a SEND */
static int echo_work(void)
{
	struct roce_wc wc[32];
	int m = roce_poll_cq(b_raw->cq[1], 32, wc);

	for (int j = 0; j < m; j++) {
		if (wc[j].opcode != ROCE_WC_RECV)
			continue;
		raw_recv(b_raw, 1, (uint32_t)wc[j].wr_id, b_raw->len);
		raw_send(b_raw, 1, 0, b_raw->len);
	}
	return m;
}

/* the WRITE source: one WRITE into side 0 at a time, the next when it completes */
static int write_work(void)
{
	struct raw *r = b_raw;
	struct roce_wc wc[32];
	int m, posted = 0;

	if (!b_write_out) {
		struct roce_sge sge = {(uintptr_t)r->buf[1], r->len, r->mr[1]->lkey};
		struct roce_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->mr[0]->iova;
		wr.wr.rdma.rkey = r->mr[0]->rkey;
		b_write_out = roce_post_send(r->qp[1], &wr, &bad) == 0;
		posted = b_write_out;
	}
	m = roce_poll_cq(r->cq[1], 32, wc);
	if (m > 0) {
		b_write_out = false;
		__atomic_store_n(&b_writes, b_writes + (uint64_t)m, __ATOMIC_RELAXED);
	}
	return posted + RTE_MAX(m, 0);
}

/* after a case: B's steady work stops, then the lcores settle */
static void settle(void)
{
	b_work(NULL);
	for (int i = 0; i < 2000; i++)
		poll_a();
}

/* a SEND of len bytes from side 0, answered by a SEND from side 1, qd in flight */
static void bench_raw_pingpong(uint32_t qd, uint32_t len, const char *name, uint64_t *lat)
{
	struct raw r;
	uint64_t start[64], n = 0, t0, end, busy0;
	struct roce_wc wc[32];

	memset(&r, 0, sizeof(r));
	if (raw_setup(&r, len) != 0) {
		fprintf(stderr, "rpc-bench: raw setup failed\n");
		return;
	}
	for (uint32_t i = 0; i < 32; i++)
		raw_recv(&r, 0, i, len);
	run_on_b(raw_recvs1, &r);
	b_work(echo_work);
	busy0 = b_busy();
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(seconds * (double)hz);
	for (uint32_t i = 0; i < qd; i++) {
		start[i] = rte_get_tsc_cycles();
		raw_send(&r, 0, i, len);
	}
	while (rte_get_tsc_cycles() < end) {
		int m;

		poll_a();
		m = roce_poll_cq(r.cq[0], 32, wc);
		for (int j = 0; j < m; j++) {
			uint64_t now;
			uint32_t slot;

			if (wc[j].opcode != ROCE_WC_RECV)
				continue;
			raw_recv(&r, 0, (uint32_t)wc[j].wr_id, len);
			/* an answer came back: one round trip done, start the next */
			now = rte_get_tsc_cycles();
			slot = (uint32_t)(n % qd);
			if (n < MAX_LAT)
				lat[n] = now - start[slot];
			n++;
			start[slot] = now;
			raw_send(&r, 0, slot, len);
		}
	}
	add_result(name, (double)n * (double)hz / (double)(rte_get_tsc_cycles() - t0), "ops/s", lat,
		   n < MAX_LAT ? n : MAX_LAT, b_busy() - busy0, rte_get_tsc_cycles() - t0);
	settle();
	raw_teardown(&r);
}

/* raw RDMA WRITEs of len bytes from side 1 into side 0, one at a time */
static void bench_raw_write(uint32_t len, const char *name)
{
	struct raw r;
	uint64_t n0, t0, end, busy0;

	memset(&r, 0, sizeof(r));
	if (raw_setup(&r, len) != 0)
		return;
	b_raw = &r;
	b_write_out = false;
	n0 = __atomic_load_n(&b_writes, __ATOMIC_RELAXED);
	busy0 = b_busy();
	t0 = rte_get_tsc_cycles();
	b_work(write_work);
	end = t0 + (uint64_t)(seconds * (double)hz);
	while (rte_get_tsc_cycles() < end)
		poll_a();
	b_work(NULL);
	add_result(name,
		   (double)(__atomic_load_n(&b_writes, __ATOMIC_RELAXED) - n0) * len * 8 *
			   (double)hz / (double)(rte_get_tsc_cycles() - t0) / 1e9,
		   "Gbit/s", NULL, 0, b_busy() - busy0, rte_get_tsc_cycles() - t0);
	settle();
	raw_teardown(&r);
}

/* ---- RPC-over-RDMA ---- */

struct rpc_pair {
	struct rpcrdma_ep *c, *s;
	struct rpcrdma_ep_conf sc;
	struct roce_cm_event eb;
	int rc;
};

static bool use_frwr;
static struct rpcrdma_ep *b_server; /* side 1's endpoint during an RPC case */

static void server_make(void *arg)
{
	struct rpc_pair *p = arg;

	p->s = rpcrdma_ep_create(dev[1], pd[1], RPCRDMA_SERVER, &p->sc, &svc);
}

static void server_start(void *arg)
{
	struct rpc_pair *p = arg;

	p->rc = rpcrdma_ep_start(p->s, p->eb.private_data, p->eb.private_data_len);
	b_server = p->s;
}

static int serve_work(void)
{
	return rpcrdma_ep_poll(b_server);
}

static void server_destroy(void *arg)
{
	struct rpc_pair *p = arg;

	p->rc = rpcrdma_ep_destroy(p->s);
}

static int rpc_setup(struct rpc_pair *p, uint32_t slots, uint32_t max_chunk)
{
	struct rpcrdma_ep_conf cc = {.slots = slots, .max_chunk = max_chunk, .frwr = use_frwr};
	uint8_t pc[RPCRDMA_CM_PRIV_LEN], ps[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_event ea;

	p->sc = (struct rpcrdma_ep_conf){.max_chunk = max_chunk};
	p->c = rpcrdma_ep_create(dev[0], pd[0], RPCRDMA_CLIENT, &cc, NULL);
	run_on_b(server_make, p);
	if (!p->c || !p->s) {
		fprintf(stderr, "rpc-bench: endpoints: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (cm_pair(rpcrdma_ep_qp(p->c), rpcrdma_ep_qp(p->s), pc, rpcrdma_ep_private_data(p->c, pc),
		    ps, rpcrdma_ep_private_data(p->s, ps), &p->eb, &ea) != 0) {
		fprintf(stderr, "rpc-bench: the CM did not connect the endpoints\n");
		return -1;
	}
	run_on_b(server_start, p);
	if (p->rc != 0 || rpcrdma_ep_start(p->c, ea.private_data, ea.private_data_len) != 0)
		return -1;
	b_work(serve_work);
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
	uint64_t t0, end, busy0, busy, window;
	struct rpcrdma_call c = {.msg = msg};

	memset(&p, 0, sizeof(p));

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
		poll_a();
		rpcrdma_ep_poll(p.c);
	}
	done_n = 0;
	bytes_in = 0;
	busy0 = b_busy();
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
		poll_a();
		rpcrdma_ep_poll(p.c);
	}
	busy = b_busy() - busy0;
	window = rte_get_tsc_cycles() - t0;
	if (proc == ORPC_TEST_FILL)
		add_result(name,
			   (double)arg * (double)done_n * 8 * (double)hz / (double)window / 1e9,
			   "Gbit/s", NULL, 0, busy, window);
	else
		add_result(name, (double)done_n * (double)hz / (double)window, "ops/s", lat,
			   done_n < MAX_LAT ? done_n : MAX_LAT, busy, window);
	/* drain what is in flight, then close */
	for (int i = 0; i < 200000 && rpcrdma_clnt_room(p.c) < qd; i++) {
		poll_a();
		rpcrdma_ep_poll(p.c);
	}
	lat_buf = NULL;
	b_work(NULL);
	while (rpcrdma_ep_destroy(p.c) == -EBUSY)
		poll_a();
	for (p.rc = -EBUSY; p.rc == -EBUSY;) {
		run_on_b(server_destroy, &p);
		poll_a();
	}
	for (int i = 0; i < 2000; i++)
		poll_a();
}

/* Two interfaces joined by the link (crossed net_ring ports, or a net_memif server and client
 * on one socket, rc-bench-link.c), a roce device with its CM and PD on each; the lcores. */
static int setup(void)
{
	struct stk_neigh_params np;
	unsigned main_id = rte_get_main_lcore();

	w.pool = rte_pktmbuf_pool_create("rb_pool", POOL_SIZE, 256, 0,
					 MBUF_ROOM + RTE_PKTMBUF_HEADROOM, (int)rte_socket_id());
	if (!w.pool)
		return -1;
	rcb_pool_pretouch(w.pool, POOL_SIZE);
	if (!strcmp(w.link, "memif")) {
		const struct rcb_link_conf lc = {.pool = w.pool,
						 .memif_ring = 1024,
						 .memif_buf = 9216,
						 .ip_mtu = RB_IP_MTU,
						 .mbuf_room = MBUF_ROOM};

		rcb_memif_ports(&lc, &w.port[0], &w.port[1]);
	} else {
		struct rte_ring *r[2];

		r[0] = rte_ring_create("rb_r0", 8192, (int)rte_socket_id(), 0);
		r[1] = rte_ring_create("rb_r1", 8192, (int)rte_socket_id(), 0);
		if (!r[0] || !r[1])
			return -1;
		w.port[0] = rcb_ring_port("rb_a", r[0], r[1], w.pool);
		w.port[1] = rcb_ring_port("rb_b", r[1], r[0], w.pool);
	}
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "rb%d", k);
		ifc.port_id = w.port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 81, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.81.0.2" : "10.81.0.1", &ifc.ip4);
		ip[k] = ifc.ip4;
		ifc.ip4_prefix = 24;
		ifc.mtu = RB_IP_MTU;
		ifc.nb_rxq = ifc.nb_txq = 1;
		if (stk_iface_add(&ifc) != k)
			return -1;
		dev[k] = roce_dev_open((uint16_t)k);
		cm[k] = dev[k] ? roce_cm_open(dev[k]) : NULL;
		pd[k] = dev[k] ? roce_alloc_pd(dev[k]) : NULL;
		if (!cm[k] || !pd[k])
			return -1;
	}
	orpc_svc_add(&svc, &orpc_test_program);
	stk_neigh_params_default(&np);
	w.la = stk_lcore_create(main_id, 0, true, w.pool, &np);
	if (!w.la)
		return -1;
	w.la->rxq[0] = (struct stk_rxq){.iface = 0, .port_id = w.port[0]};
	w.la->nb_rxq = 1;
	stk_lcore_add_poll(w.la, roce_poll, dev[0]);
	if (w.nlc == 1) {
		w.lb = w.la;
	} else {
		w.lcore_b = rte_get_next_lcore(main_id, 1, 0);
		if (w.lcore_b >= RTE_MAX_LCORE) {
			fprintf(stderr, "rpc-bench: --lcores 2 needs two EAL lcores (-l 0,1)\n");
			return -1;
		}
		w.lb = stk_lcore_create(w.lcore_b, 0, false, w.pool, &np);
		if (!w.lb)
			return -1;
		w.lb->nb_rxq = 0;
	}
	w.lb->rxq[w.lb->nb_rxq++] = (struct stk_rxq){.iface = 1, .port_id = w.port[1]};
	stk_lcore_add_poll(w.lb, roce_poll, dev[1]);
	stk_lcore_add_poll(w.lb, b_hook, NULL);
	if (w.nlc == 2 && rte_eal_remote_launch(b_main, NULL, w.lcore_b) != 0)
		return -1;
	return 0;
}

static void teardown(void)
{
	if (w.nlc == 2) {
		__atomic_store_n(&bx.quit, 1, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(w.lcore_b);
	}
}

static const char *placement(void)
{
	return w.nlc == 2 ? "client and server on two lcores" : "client and server on one lcore";
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"json", 1, NULL, 'j'},
					     {"seconds", 1, NULL, 's'},
					     {"link", 1, NULL, 'L'},
					     {"lcores", 1, NULL, 'c'},
					     {NULL, 0, NULL, 0}};
	const char *json = NULL;
	uint64_t *lat;
	int n, o;
	FILE *f;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	w.nlc = rte_lcore_count() >= 2 ? 2 : 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'j') {
			json = optarg;
		} else if (o == 's') {
			seconds = atof(optarg);
		} else if (o == 'L' && (!strcmp(optarg, "ring") || !strcmp(optarg, "memif"))) {
			w.link = optarg;
		} else if (o == 'c' && (!strcmp(optarg, "1") || !strcmp(optarg, "2"))) {
			w.nlc = (unsigned)atoi(optarg);
		} else {
			fprintf(stderr,
				"usage: rpc-bench [EAL args --] [--json FILE] [--seconds S] "
				"[--link ring|memif] [--lcores 1|2]\n");
			return 2;
		}
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
	teardown();

	printf("\nrpc-bench: %s, net_%s, MTU %u (RoCE 4096)\n", placement(), w.link, RB_IP_MTU);
	printf("%-34s %14s %10s %10s %8s %16s\n", "case", "rate", "p50 us", "p99 us", "srv busy",
	       "per busy srv core");
	for (int i = 0; i < nresults; i++) {
		const struct result *r = &results[i];
		bool gb = r->unit[0] == 'G';

		printf("%-34s %11.3f %-6s %8.2f %10.2f", r->name, gb ? r->rate : r->rate / 1e6,
		       gb ? "Gb/s" : "M/s", r->p50_us, r->p99_us);
		if (r->busy_b > 0)
			printf(" %7.0f%% %11.3f %-6s\n", r->busy_b * 100,
			       (gb ? r->rate : r->rate / 1e6) / r->busy_b, gb ? "Gb/s" : "M/s");
		else
			printf(" %8s %16s\n", "-", "-");
	}
	printf("ratios (same run): NULL/raw at 1 in flight %.2f, at 16 %.2f; FILL/raw WRITE %.2f; "
	       "FRWR/persistent 1 MiB %.2f, 4 KiB x16 %.2f\n",
	       results[1].rate / results[0].rate, results[3].rate / results[2].rate,
	       results[5].rate / results[4].rate, results[6].rate / results[5].rate,
	       results[7].rate / results[8].rate);
	if (w.nlc == 2)
		printf("srv busy: the server lcore's share of the window spent in loop iterations "
		       "that received, sent or served something; per busy srv core = rate / that "
		       "share (the rate one fully busy server core would give at this cost per "
		       "call)\n");
	else
		printf("per server core: client and server share one core here, so the server's own "
		       "rate is at least this\n");
	if (json) {
		f = fopen(json, "w");
		if (f) {
			fprintf(f,
				"{\"bench\": \"rpc\", \"link\": \"%s\", \"lcores\": %u, \"cases\": [",
				w.link, w.nlc);
			for (int i = 0; i < nresults; i++)
				fprintf(f,
					"%s{\"name\": \"%s\", \"rate\": %.3f, \"unit\": \"%s\", "
					"\"p50_us\": %.3f, \"p99_us\": %.3f, \"server_busy\": %.4f}",
					i ? ", " : "", results[i].name, results[i].rate,
					results[i].unit, results[i].p50_us, results[i].p99_us,
					results[i].busy_b);
			fprintf(f, "]}\n");
			fclose(f);
		}
	}
	free(lat);
	return 0;
}
