/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_fixture.h - the fixture of the CM tests (test_cm.c, test_cm_churn.c): two devices back to
 * back over crossed net_ring ports in one process (as test_rc.c), each with its CM on QP1, a PD,
 * a CQ and a registered buffer (s[0] is A, the active side; s[1] is B, the passive side);
 * one lcore context polls both. Helpers to poll, wait for CM events and completions, make
 * QPs, connect and disconnect a pair (establish, disconnect_both, teardown_conn), and send raw
 * MADs to the other side's QP1 from a test-owned UD QP (raw_open_from, raw_send_from,
 * raw_req). Teardown checks that identifiers, QPs, MRs and mbufs are all back to zero.
 * Included by each test program; everything is static to each (as tests/unit/
 * ut_input_fixture.h).
 *
 *   A  10.79.0.1/16  tx --> wire[1] --> rx  B  10.79.0.2/16
 *                    rx <-- wire[0] <-- tx
 *
 * A test may put frames of its own on a wire (rte_ring_enqueue on wire[k]): side k receives
 * them as if from the link.
 */
#ifndef CM_FIXTURE_H
#define CM_FIXTURE_H

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
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_cm.h"
#include "roce_cm_wire.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "ut_common.h"

#define BUF (1u << 20)

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static uint16_t port[2];
static struct rte_ring *wire[2]; /* what side k receives */
static unsigned base_in_use;

struct side {
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cq *cq;
	uint8_t *buf;
	struct roce_mr *mr;
};
static struct side s[2];
static struct stk_ipaddr ip[2];
/* each test listens on a port of its own, so one failure does not cascade into the next */
static uint16_t PORT = 7470;

static inline int next_port(void **st)
{
	(void)st;
	PORT++;
	return 0;
}

/* short CM timers so that retransmission tests take a fraction of a second per try */
static const struct roce_cm_conn_param fast = {
	.cm_response_timeout = 14, .max_cm_retries = 4, .local_ack_timeout = 12, .retry_count = 2};

static inline void drive(unsigned iters)
{
	for (unsigned i = 0; i < iters; i++)
		stk_lcore_poll(lc);
}

static inline void count_pending(void *ctx, const struct stk_neigh *n)
{
	*(unsigned *)ctx += n->nb_pending;
}

/* Poll until nothing is in flight: no frame waits for ARP in the neighbour table and the
 * pool's in-use count has not changed for 20 ms and 200 polls (bounded: 10 s, longer than
 * ARP gives up after: 3 probes, 1 s apart). A count taken then does not depend on how fast
 * this machine runs: a frame of an earlier test left waiting for an address that never
 * answers is dropped after about a second, which a slow run (valgrind, ASan, a busy machine)
 * would otherwise see happen in the middle of a test. @return the settled in-use count. */
static inline unsigned settle(void)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_get_tsc_cycles() + 10 * hz, since;
	unsigned n = rte_mempool_in_use_count(pool), polls = 0;

	since = rte_get_tsc_cycles();
	while (rte_get_tsc_cycles() < end) {
		unsigned now, pending = 0;

		stk_lcore_poll(lc);
		stk_neigh_walk(lc->neigh, count_pending, &pending);
		now = rte_mempool_in_use_count(pool);
		if (now != n || pending) {
			n = now;
			polls = 0;
			since = rte_get_tsc_cycles();
		} else if (++polls >= 200 && rte_get_tsc_cycles() - since >= hz / 50) {
			break;
		}
	}
	return n;
}

/* Poll until side @k has a CM event (bounded: 10 s). @return 0, or -1 on timeout. */
static inline int wait_event(int k, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (roce_cm_get_event(s[k].cm, ev) == 0)
			return 0;
		stk_lcore_poll(lc);
	}
	return -1;
}

static inline void expect_event(int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	if (wait_event(k, ev) != 0)
		fail_msg("side %d: no event, expected %s", k, roce_cm_event_str(t));
	if (ev->event != t)
		fail_msg("side %d: event %s (status %d), expected %s", k,
			 roce_cm_event_str(ev->event), ev->status, roce_cm_event_str(t));
}

/* no event shows up on side @k within @ms of polling */
static inline void expect_quiet(int k, unsigned ms)
{
	struct roce_cm_event ev;
	uint64_t end = rte_get_tsc_cycles() + ms * rte_get_tsc_hz() / 1000;

	while (rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		if (roce_cm_get_event(s[k].cm, &ev) == 0)
			fail_msg("side %d: unexpected event %s", k, roce_cm_event_str(ev.event));
	}
}

static struct roce_qp *make_qp(int k, enum roce_qp_type t)
{
	struct roce_qp_init_attr a;
	struct roce_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = s[k].cq;
	a.qp_type = t;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = 64;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	qp = roce_create_qp(s[k].pd, &a);
	assert_non_null(qp);
	return qp;
}

static inline int wait_wc(int k, struct roce_wc *wc)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (roce_poll_cq(s[k].cq, 1, wc) == 1)
			return 1;
		stk_lcore_poll(lc);
	}
	return 0;
}

static inline void drain_cq(int k)
{
	struct roce_wc wc[16];

	drive(10);
	while (roce_poll_cq(s[k].cq, 16, wc) > 0)
		;
}

struct conn {
	struct roce_cm_id *a, *b, *l; /* active, passive, listener */
	struct roce_qp *qa, *qb;
};

/* A connects to B's listener; both end ESTABLISHED. Private data checked both ways. */
static inline void establish(struct conn *c, const struct roce_cm_conn_param *pa)
{
	struct roce_cm_conn_param p = pa ? *pa : fast;
	struct roce_cm_event ev;
	static const char hello[] = "hello from A", reply[] = "welcome, A";

	c->l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, (void *)0xb);
	assert_non_null(c->l);
	assert_int_equal(roce_cm_listen(c->l, PORT, 8), 0);
	c->a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, (void *)0xa);
	c->qa = make_qp(0, ROCE_QPT_RC);
	c->qb = make_qp(1, ROCE_QPT_RC);
	p.private_data = hello;
	p.private_data_len = sizeof(hello);
	assert_int_equal(roce_cm_connect(c->a, &ip[1], PORT, c->qa, &p), 0);

	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	assert_ptr_equal(ev.listen_id, c->l);
	assert_ptr_equal(ev.id->context, (void *)0xb); /* inherited from the listener */
	assert_memory_equal(ev.private_data, hello, sizeof(hello));
	assert_int_equal(ev.qp_num, roce_qp_num(c->qa));
	assert_int_equal(ev.id->remote_port, c->a->local_port);
	assert_int_equal(ev.id->remote_ip.v4, ip[0].v4);
	c->b = ev.id;
	p.private_data = reply;
	p.private_data_len = sizeof(reply);
	assert_int_equal(roce_cm_accept(c->b, c->qb, &p), 0);

	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_ptr_equal(ev.id, c->a);
	assert_memory_equal(ev.private_data, reply, sizeof(reply));
	assert_int_equal(ev.qp_num, roce_qp_num(c->qb));
	expect_event(1, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_ptr_equal(ev.id, c->b);
	assert_int_equal(roce_qp_state(c->qa), ROCE_QPS_RTS);
	assert_int_equal(roce_qp_state(c->qb), ROCE_QPS_RTS);
}

static inline void teardown_conn(struct conn *c)
{
	if (c->a)
		assert_int_equal(roce_cm_destroy_id(c->a), 0);
	if (c->b)
		assert_int_equal(roce_cm_destroy_id(c->b), 0);
	if (c->l)
		assert_int_equal(roce_cm_destroy_id(c->l), 0);
	drive(50);
	drain_cq(0);
	drain_cq(1);
	if (c->qa)
		assert_int_equal(roce_destroy_qp(c->qa), 0);
	if (c->qb)
		assert_int_equal(roce_destroy_qp(c->qb), 0);
	memset(c, 0, sizeof(*c));
}

static inline void disconnect_both(struct conn *c)
{
	struct roce_cm_event ev;

	assert_int_equal(roce_cm_disconnect(c->a), 0);
	assert_int_equal(roce_qp_state(c->qa), ROCE_QPS_ERR);
	expect_event(1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_ptr_equal(ev.id, c->b);
	assert_int_equal(roce_qp_state(c->qb), ROCE_QPS_ERR);
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_ptr_equal(ev.id, c->a);
	assert_int_equal(ev.status, 0); /* answered by DREP, not timed out */
}

static inline void stats(int k, struct roce_cm_stats *st)
{
	roce_cm_stats(s[k].cm, st);
}

/* A raw UD QP on side @k that sends MADs to the other side's QP1 with IP source @src (NULL:
 * side @k's own address), as another host's CM would. */
static inline void raw_open_from(int k, const char *src, struct roce_qp **ud, struct roce_ah **ah)
{
	struct roce_qp_init_attr ia;
	struct roce_qp_attr qa;
	struct roce_path path;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = s[k].cq;
	ia.qp_type = ROCE_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 16;
	ia.cap.max_inline_data = ROCE_MAD_LEN;
	*ud = roce_create_qp(s[k].pd, &ia);
	assert_non_null(*ud);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = ROCE_QPS_INIT;
	qa.qkey = ROCE_GSI_QKEY;
	qa.port_num = 1;
	assert_int_equal(
		roce_modify_qp(*ud, &qa,
			       ROCE_QP_STATE | ROCE_QP_QKEY | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT),
		0);
	qa.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(*ud, &qa, ROCE_QP_STATE), 0);
	qa.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(*ud, &qa, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	memset(&path, 0, sizeof(path));
	path.dgid_ip = ip[!k];
	if (src)
		stk_ipaddr_parse(src, &path.sgid_ip);
	*ah = roce_create_ah(s[k].pd, &path);
	assert_non_null(*ah);
}

/* A raw UD QP on side A that sends MADs to B's QP1, as another host's CM would. */
static inline void raw_sender_open(struct roce_qp **ud, struct roce_ah **ah)
{
	raw_open_from(0, NULL, ud, ah);
}

/* Send one MAD from side @k's raw QP and let both sides process it. */
static inline void raw_send_from(int k, struct roce_qp *ud, struct roce_ah *ah, const uint8_t *mad)
{
	struct roce_sge g = {.addr = (uintptr_t)mad, .length = ROCE_MAD_LEN};
	struct roce_send_wr w, *bad;
	struct roce_wc wc;

	memset(&w, 0, sizeof(w));
	w.sg_list = &g;
	w.num_sge = 1;
	w.opcode = ROCE_WR_SEND;
	w.send_flags = ROCE_SEND_INLINE | ROCE_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = ROCE_GSI_QPN;
	w.wr.ud.remote_qkey = ROCE_GSI_QKEY;
	assert_int_equal(roce_post_send(ud, &w, &bad), 0);
	assert_int_equal(wait_wc(k, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	drive(20);
}

/* Send one MAD from the raw QP to B's QP1 and let both sides process it. */
static inline void raw_send(struct roce_qp *ud, struct roce_ah *ah, const uint8_t *mad)
{
	raw_send_from(0, ud, ah, mad);
}

/* A REQ as Linux's rdma_cm sends it from the host at @src to B's listener on PORT, encoded
 * into @mad: comm ID @comm, QPN @qpn, and the timeouts that bound how long the active side
 * waits for us. */
static inline void req_mad(uint8_t *mad, const struct stk_ipaddr *src, uint32_t comm, uint32_t qpn,
			   uint8_t resp_timeout, uint8_t retries)
{
	struct roce_cma_hdr h;
	struct roce_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.method = ROCE_MAD_METHOD_SEND;
	m.tid = 0x0000000300000000ull | comm;
	m.attr_id = ROCE_CM_ATTR_REQ;
	m.u.req.local_comm_id = comm;
	m.u.req.service_id = roce_cma_service_id(ROCE_RDMA_PS_TCP, PORT);
	m.u.req.local_qpn = qpn;
	m.u.req.responder_resources = 1;
	m.u.req.initiator_depth = 1;
	m.u.req.remote_cm_resp_timeout = resp_timeout;
	m.u.req.starting_psn = 1;
	m.u.req.local_cm_resp_timeout = resp_timeout;
	m.u.req.retry_count = 7;
	m.u.req.pkey = 0xffff;
	m.u.req.path_mtu = ROCE_MTU_1024;
	m.u.req.rnr_retry_count = 7;
	m.u.req.max_cm_retries = retries;
	m.u.req.prim.local_lid = m.u.req.prim.remote_lid = 0xffff;
	roce_gid_from_ip(src, m.u.req.prim.local_gid);
	roce_gid_from_ip(&ip[1], m.u.req.prim.remote_gid);
	m.u.req.prim.hop_limit = 64;
	m.u.req.prim.local_ack_timeout = 14;
	memset(&h, 0, sizeof(h));
	h.src_port = (uint16_t)(40000 + (comm & 0x3fff));
	h.src = *src;
	h.dst = ip[1];
	assert_int_equal(
		roce_cma_hdr_encode(&h, m.u.req.private_data, sizeof(m.u.req.private_data)),
		ROCE_CMA_HDR_LEN);
	assert_int_equal(roce_cm_encode(&m, mad, ROCE_MAD_LEN), ROCE_MAD_LEN);
}

/* A REQ from the raw QP @ud (side A's address) to B's listener on PORT; see req_mad(). */
static inline void raw_req(struct roce_qp *ud, struct roce_ah *ah, uint32_t comm, uint32_t qpn,
			   uint8_t resp_timeout, uint8_t retries)
{
	uint8_t mad[ROCE_MAD_LEN];

	req_mad(mad, &ip[0], comm, qpn, resp_timeout, retries);
	raw_send(ud, ah, mad);
}

/* ------------------------------------------------------------------ set-up and teardown */

static inline uint16_t ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
	int p = ut_ring_port(name, rx, tx, pool);

	if (p < 0)
		abort();
	return (uint16_t)p;
}

static inline int group_setup(void **st)
{
	struct rte_ring **r = wire;
	struct stk_neigh_params np;
	(void)st;

	pool = rte_pktmbuf_pool_create("cm_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	r[0] = rte_ring_create("cm_r0", 4096, 0, 0);
	r[1] = rte_ring_create("cm_r1", 4096, 0, 0);
	if (!pool || !r[0] || !r[1])
		return -1;
	port[0] = ring_port("cm_a", r[0], r[1]);
	port[1] = ring_port("cm_b", r[1], r[0]);
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "cm%d", k);
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x79, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.79.0.2" : "10.79.0.1", &ifc.ip4);
		ip[k] = ifc.ip4;
		ifc.ip4_prefix = 16; /* room on the link for test_cm_churn's 1,000 spoofed hosts */
		ifc.mtu = 1500;
		ifc.nb_rxq = ifc.nb_txq = 1;
		if (stk_iface_add(&ifc) != k)
			return -1;
	}
	stk_neigh_params_default(&np);
	lc = stk_lcore_create(rte_lcore_id(), 0, true, pool, &np);
	if (!lc)
		return -1;
	for (int k = 0; k < 2; k++) {
		lc->rxq[k].iface = (uint16_t)k;
		lc->rxq[k].port_id = port[k];
		lc->rxq[k].queue = 0;
		s[k].dev = roce_dev_open((uint16_t)k);
		s[k].cm = s[k].dev ? roce_cm_open(s[k].dev) : NULL;
		s[k].pd = s[k].dev ? roce_alloc_pd(s[k].dev) : NULL;
		s[k].cq = s[k].dev ? roce_create_cq(s[k].dev, 8192) : NULL;
		s[k].buf = rte_zmalloc("cm_buf", BUF, 64);
		if (!s[k].cm || !s[k].pd || !s[k].cq || !s[k].buf)
			return -1;
		s[k].mr = roce_reg_mr(s[k].pd, s[k].buf, BUF, (uintptr_t)s[k].buf,
				      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					      ROCE_ACCESS_REMOTE_READ);
		if (!s[k].mr)
			return -1;
		stk_lcore_add_poll(lc, roce_poll, s[k].dev);
	}
	lc->nb_rxq = 2;
	/* a second CM on a device is refused */
	if (roce_cm_open(s[0].dev) != NULL)
		return -1;
	base_in_use = rte_mempool_in_use_count(pool);
	return 0;
}

static inline int group_teardown(void **st)
{
	(void)st;
	drive(100);
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;
		struct roce_cm_stats cs;

		roce_cm_stats(s[k].cm, &cs);
		assert_int_equal(cs.ids, 0);
		assert_int_equal(roce_cm_close(s[k].cm), 0);
		assert_int_equal(roce_dereg_mr(s[k].mr), 0);
		assert_int_equal(roce_destroy_cq(s[k].cq), 0);
		assert_int_equal(roce_dealloc_pd(s[k].pd), 0);
		roce_dev_counts(s[k].dev, &c);
		assert_int_equal(c.pds + c.mrs + c.cqs + c.srqs + c.qps, 0);
		assert_int_equal(roce_dev_close(s[k].dev), 0);
		rte_free(s[k].buf);
	}
	stk_lcore_destroy(lc);
	assert_int_equal(rte_mempool_in_use_count(pool), base_in_use);
	stk_iface_reset();
	return 0;
}

#endif /* CM_FIXTURE_H */
