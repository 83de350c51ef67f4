/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_fixture.c - the RC tests' fixture (rc_fixture.h): two stack interfaces on crossed
 * net_ring ports, one lcore context, a device, PD, CQ and registered buffer per side; QP pair
 * set-up and teardown, work request and completion helpers, and the forged frames.
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
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rc_fixture.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "stk_stack.h"
#include "ut_common.h"

struct rte_mempool *rcf_pool;
struct stk_lcore *rcf_lc;
uint16_t rcf_port[2];
struct rcf_side rcf_s[2];
static unsigned base_in_use;

/* the QPs' local ACK timeout: 10 (4 ms) makes loss tests quick; lossless bulk tests use 14
 * (67 ms), so that a thread descheduled on a loaded machine (ASan, CI) is not taken for a
 * dead peer seven times over */
uint8_t rcf_qp_timeout = 10;
uint8_t rcf_responder_resources = 4; /* B's max_dest_rd_atomic; A always issues up to 4 */
struct roce_srq *rcf_b_srq;	     /* set: B's QP takes its receives from this SRQ */

void rcf_drive(unsigned iters)
{
	for (unsigned i = 0; i < iters; i++)
		stk_lcore_poll(rcf_lc);
}

/* Poll until @n completions arrive on side @k's CQ (bounded: 30 s). */
int rcf_wait_wc(int k, struct roce_wc *wc, int n)
{
	uint64_t end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	int got = 0;

	while (got < n && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(rcf_lc);
		got += roce_poll_cq(rcf_s[k].cq, n - got, wc + got);
	}
	return got;
}

void rcf_connect_pair(enum roce_mtu mtu, uint8_t rnr_retry, uint8_t min_rnr)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = rcf_s[k].cq, .recv_cq = rcf_s[k].cq, .qp_type = ROCE_QPT_RC};

		ia.cap.max_send_wr = 256;
		ia.cap.max_recv_wr = 256;
		ia.cap.max_send_sge = 4;
		ia.cap.max_recv_sge = 4;
		if (k == 1 && rcf_b_srq)
			ia.srq = rcf_b_srq;
		rcf_s[k].qp = roce_create_qp(rcf_s[k].pd, &ia);
		assert_non_null(rcf_s[k].qp);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				    ROCE_ACCESS_REMOTE_ATOMIC;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = roce_qp_num(rcf_s[!k].qp);
		a.rq_psn = k ? 0xfffff0 : 100; /* B's PSNs wrap around 2^24 */
		a.max_dest_rd_atomic = k ? rcf_responder_resources : 4;
		a.min_rnr_timer = min_rnr;
		stk_ipaddr_parse(k ? "10.77.0.1" : "10.77.0.2", &a.ah_attr.dgid_ip);
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
							ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
							ROCE_QP_MAX_DEST_RD_ATOMIC |
							ROCE_QP_MIN_RNR_TIMER),
				 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = k ? 100 : 0xfffff0; /* the peer's rq_psn */
		a.timeout = rcf_qp_timeout;    /* 4 ms unless a test asks */
		a.retry_cnt = 7;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = 4;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
							ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
							ROCE_QP_MAX_QP_RD_ATOMIC),
				 0);
	}
}

void rcf_disconnect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_wc wc[64];

		assert_int_equal(roce_destroy_qp(rcf_s[k].qp), 0);
		while (roce_poll_cq(rcf_s[k].cq, 64, wc) > 0)
			;
	}
	rcf_drive(50); /* let in-flight frames drain so the pool count is exact */
}

void rcf_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

void rcf_post_recv(int k, uint64_t id, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(rcf_s[k].buf + off), .length = len, .lkey = rcf_s[k].mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	assert_int_equal(roce_post_recv(rcf_s[k].qp, &r, &bad), 0);
}

void rcf_post(int k, enum roce_wr_opcode op, uint64_t id, uint32_t off, uint32_t len,
	      uint64_t raddr, uint32_t rkey)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(rcf_s[k].buf + off), .length = len, .lkey = rcf_s[k].mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.imm_data = rte_cpu_to_be_32(0xc0ffee00u + (uint32_t)id);
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	assert_int_equal(roce_post_send(rcf_s[k].qp, &w, &bad), 0);
}

void rcf_post_atomic(uint64_t id, enum roce_wr_opcode op, uint32_t result_off, uint64_t *target,
		     uint64_t add)
{
	struct roce_sge sg = {.addr = (uintptr_t)(rcf_s[0].buf + result_off),
			      .length = 8,
			      .lkey = rcf_s[0].mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.atomic.remote_addr = (uintptr_t)target;
	w.wr.atomic.rkey = rcf_s[1].mr->rkey;
	w.wr.atomic.compare_add = add;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
}

/* Send a request to B's QP from A's interface, as A's QP would (the tests' forged frames),
 * then poll @polls times. */
void rcf_inject_to_b_polls(struct roce_tx *t, const void *payload, uint32_t len, unsigned polls)
{
	struct roce_path to_b;
	struct rte_mbuf *m;

	memset(&to_b, 0, sizeof(to_b));
	stk_ipaddr_parse("10.77.0.2", &to_b.dgid_ip);
	t->path = &to_b;
	t->lqpn = roce_qp_num(rcf_s[0].qp);
	t->dqpn = roce_qp_num(rcf_s[1].qp);
	m = roce_tx_build(rcf_pool, stk_iface_get(0), t, payload, len, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(rcf_lc, stk_iface_get(0), m, &to_b.dgid_ip), 0);
	rcf_drive(polls);
}

void rcf_inject_to_b(struct roce_tx *t, const void *payload, uint32_t len)
{
	rcf_inject_to_b_polls(t, payload, len, 20);
}

void rcf_post_srq_recv(uint64_t id, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(rcf_s[1].buf + off), .length = len, .lkey = rcf_s[1].mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	assert_int_equal(roce_post_srq_recv(rcf_b_srq, &r, &bad), 0);
}

/* Two UC QPs in RTS, both sending from PSN 500. */
void rcf_connect_uc(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = rcf_s[k].cq, .recv_cq = rcf_s[k].cq, .qp_type = ROCE_QPT_UC};
		struct roce_qp_attr a;

		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		rcf_s[k].qp = roce_create_qp(rcf_s[k].pd, &ia);
		assert_non_null(rcf_s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(rcf_s[!k].qp);
		a.rq_psn = 500;
		stk_ipaddr_parse(k ? "10.77.0.1" : "10.77.0.2", &a.ah_attr.dgid_ip);
		/* UC INIT->RTR takes no responder resources or RNR timer (IBA 10.3.1) */
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
							ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN),
				 0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 500;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN),
				 0);
	}
}

static void forge_zc_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

static struct rte_mbuf_ext_shared_info forge_zc = {.free_cb = forge_zc_free, .refcnt = 1};

/* A forged READ response to A's QP from B's interface. */
void rcf_forge_read_resp_to_a(uint8_t opcode, uint32_t psn, const void *payload, uint32_t len)
{
	struct roce_path to_a;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&to_a, 0, sizeof(to_a));
	stk_ipaddr_parse("10.77.0.1", &to_a.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to_a;
	t.lqpn = roce_qp_num(rcf_s[1].qp);
	t.dqpn = roce_qp_num(rcf_s[0].qp);
	t.opcode = opcode;
	t.psn = psn & 0xffffff;
	t.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID;
	/* zero copy: a response longer than one mbuf's room (the out-of-size cases) fits too */
	m = roce_tx_build(rcf_pool, stk_iface_get(1), &t, payload, len, len ? &forge_zc : NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(rcf_lc, stk_iface_get(1), m, &to_a.dgid_ip), 0);
	rcf_drive(5);
}

/* A forged ACK/NAK to A's QP from B's interface, AETH syndrome @syn at @psn. */
void rcf_forge_ack_to_a(uint32_t psn, uint8_t syn)
{
	struct roce_path to_a;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&to_a, 0, sizeof(to_a));
	stk_ipaddr_parse("10.77.0.1", &to_a.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to_a;
	t.lqpn = roce_qp_num(rcf_s[1].qp);
	t.dqpn = roce_qp_num(rcf_s[0].qp);
	t.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	t.psn = psn & 0xffffff;
	t.syndrome = syn;
	m = roce_tx_build(rcf_pool, stk_iface_get(1), &t, NULL, 0, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(rcf_lc, stk_iface_get(1), m, &to_a.dgid_ip), 0);
	rcf_drive(20);
}

/*
 * Send from side @from to the other side's QP a packet built as opcode @built (which carries
 * payload) and relabelled as @as (which carries none), so that the bytes after @as's headers
 * are trailing payload; the ICRC is computed again for the new opcode.
 */
void rcf_inject_relabelled(int from, uint8_t built, uint8_t as, uint32_t psn, uint64_t va,
			   uint32_t rkey, const void *payload, uint32_t len)
{
	struct roce_path to;
	struct roce_tx t;
	struct rte_mbuf *m;
	uint8_t *f;

	memset(&to, 0, sizeof(to));
	stk_ipaddr_parse(from ? "10.77.0.1" : "10.77.0.2", &to.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to;
	t.lqpn = roce_qp_num(rcf_s[from].qp);
	t.dqpn = roce_qp_num(rcf_s[!from].qp);
	t.opcode = built;
	t.psn = psn & 0xffffff;
	t.va = va;
	t.rkey = rkey;
	m = roce_tx_build(rcf_pool, stk_iface_get((uint16_t)from), &t, payload, len, NULL);
	assert_non_null(m);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	assert_true(f[12] == 0x08 && f[13] == 0x00 &&
		    f[14] == 0x45); /* Ethernet, IPv4, no options */
	f[14 + 20 + 8] = as;
	roce_icrc_fill(m, 14, 14 + 20 + 8, rte_pktmbuf_pkt_len(m) - ROCE_ICRC_LEN);
	assert_int_equal(stk_ip_send(rcf_lc, stk_iface_get((uint16_t)from), m, &to.dgid_ip), 0);
	rcf_drive(20);
}

/*
 * A frame to side @to's QP, sent from the other side's interface as if from its QP, but with
 * IP source @src (NULL: the sender's interface address), BTH P_Key @pkey (0: the default
 * 0xffff) and ECN @ecn; then 20 polls.
 */
void rcf_forge_to(int to, const char *src, uint8_t opcode, uint32_t psn, uint16_t pkey, uint8_t ecn,
		  const void *payload, uint32_t len)
{
	struct roce_path path;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&path, 0, sizeof(path));
	stk_ipaddr_parse(to ? "10.77.0.2" : "10.77.0.1", &path.dgid_ip);
	if (src)
		stk_ipaddr_parse(src, &path.sgid_ip);
	path.ecn = ecn;
	memset(&t, 0, sizeof(t));
	t.path = &path;
	t.lqpn = roce_qp_num(rcf_s[!to].qp);
	t.dqpn = roce_qp_num(rcf_s[to].qp);
	t.opcode = opcode;
	t.psn = psn & 0xffffff;
	t.pkey = pkey;
	t.becn = opcode == ROCE_OP_CNP;
	m = roce_tx_build(rcf_pool, stk_iface_get((uint16_t)!to), &t, payload, len, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(rcf_lc, stk_iface_get((uint16_t)!to), m, &path.dgid_ip), 0);
	rcf_drive(20);
}

static uint16_t ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
	int p = ut_ring_port(name, rx, tx, rcf_pool);

	if (p < 0)
		abort();
	return (uint16_t)p;
}

int rcf_group_setup(void **st)
{
	struct rte_ring *r[2];
	struct stk_neigh_params np;
	(void)st;

	rcf_pool = rte_pktmbuf_pool_create("rc_pool", 32767, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	r[0] = rte_ring_create("rc_r0", 16384, 0, 0);
	r[1] = rte_ring_create("rc_r1", 16384, 0, 0);
	if (!rcf_pool || !r[0] || !r[1])
		return -1;
	rcf_port[0] = ring_port("rc_a", r[0], r[1]);
	rcf_port[1] = ring_port("rc_b", r[1], r[0]);
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "rc%d", k);
		ifc.port_id = rcf_port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x77, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.77.0.2" : "10.77.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 9000; /* jumbo: IB path MTUs up to 4096 fit */
		ifc.nb_rxq = ifc.nb_txq = 1;
		assert_int_equal(stk_iface_add(&ifc), k);
	}
	stk_neigh_params_default(&np);
	rcf_lc = stk_lcore_create(rte_lcore_id(), 0, true, rcf_pool, &np);
	if (!rcf_lc)
		return -1;
	for (int k = 0; k < 2; k++) {
		rcf_lc->rxq[k].iface = (uint16_t)k;
		rcf_lc->rxq[k].port_id = rcf_port[k];
		rcf_lc->rxq[k].queue = 0;
		rcf_s[k].dev = roce_dev_open((uint16_t)k);
		rcf_s[k].pd = rcf_s[k].dev ? roce_alloc_pd(rcf_s[k].dev) : NULL;
		rcf_s[k].cq = rcf_s[k].dev ? roce_create_cq(rcf_s[k].dev, 1024) : NULL;
		rcf_s[k].buf = rte_zmalloc("rc_buf", RCF_BUF, 64);
		if (!rcf_s[k].pd || !rcf_s[k].cq || !rcf_s[k].buf)
			return -1;
		rcf_s[k].mr =
			roce_reg_mr(rcf_s[k].pd, rcf_s[k].buf, RCF_BUF, (uintptr_t)rcf_s[k].buf,
				    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
		stk_lcore_add_poll(rcf_lc, roce_poll, rcf_s[k].dev);
	}
	rcf_lc->nb_rxq = 2;
	base_in_use = rte_mempool_in_use_count(rcf_pool);
	return 0;
}

int rcf_group_teardown(void **st)
{
	(void)st;
	rcf_drive(100);
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;

		assert_int_equal(roce_dereg_mr(rcf_s[k].mr), 0);
		assert_int_equal(roce_destroy_cq(rcf_s[k].cq), 0);
		assert_int_equal(roce_dealloc_pd(rcf_s[k].pd), 0);
		roce_dev_counts(rcf_s[k].dev, &c);
		assert_int_equal(c.pds + c.mrs + c.cqs + c.srqs + c.qps, 0);
		assert_int_equal(roce_dev_close(rcf_s[k].dev), 0);
		rte_free(rcf_s[k].buf);
	}
	stk_lcore_destroy(rcf_lc);
	assert_int_equal(rte_mempool_in_use_count(rcf_pool), base_in_use);
	stk_iface_reset();
	return 0;
}
int rcf_eal_init(const char *prog)
{
	/* two lcores, both on CPU 0: one test drives a second lcore context by hand */
	static char a0[64], a1[] = "--no-huge", a2[] = "-m", a3[] = "512", a4[] = "--no-pci",
			    a5[] = "--no-shconf", a6[] = "--no-telemetry",
			    a7[] = "--lcores=0@0,1@0", a8[] = "--main-lcore=0",
			    a9[] = "--log-level=*:error";
	static char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};

	snprintf(a0, sizeof(a0), "%s", prog);
	if (rte_eal_init(10, eal) < 0)
		return -1;
	if (getenv("DROCE_TEST_FILTER")) /* run only the tests matching this pattern */
		cmocka_set_test_filter(getenv("DROCE_TEST_FILTER"));
	return 0;
}
