/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cm.c - the connection manager end to end, on the two-device fixture of cm_fixture.h.
 * Connect, accept, private data both ways, data over the connected QPs, disconnect and
 * TimeWait; a REQ to a port with no listener (REJ, invalid service ID); a consumer reject; lost
 * REP and lost RTU recovered by retransmission (the stack's impairment layer drops them); every
 * MAD duplicated; stray and out-of-order MADs; a peer that vanishes (DREQ unanswered ->
 * DISCONNECTED, TIMEWAIT_EXIT, QP flushed); a destroyed QP detached from its identifier; a REQ
 * flood against a small backlog (bounded, with the rejects counted); SIDR for UD services;
 * MADs matched to their peer. The churn and half-open tests are in test_cm_churn.c.
 */
#include "cm_fixture.h"
#include "roce_cm_int.h" /* comm IDs and states, to forge what a third host would guess */

/* A SEND, an RDMA WRITE and an RDMA READ over the connection, byte for byte. */
static void move_data(struct conn *c)
{
	struct roce_sge sge = {.addr = (uintptr_t)s[0].buf, .length = 5000, .lkey = s[0].mr->lkey};
	struct roce_sge rsge = {.addr = (uintptr_t)s[1].buf, .length = 8192, .lkey = s[1].mr->lkey};
	struct roce_recv_wr rwr = {.wr_id = 9, .sg_list = &rsge, .num_sge = 1}, *rbad;
	struct roce_send_wr wr, *bad;
	struct roce_wc wc;

	for (unsigned i = 0; i < 5000; i++)
		s[0].buf[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(roce_post_recv(c->qb, &rwr, &rbad), 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	assert_int_equal(roce_post_send(c->qa, &wr, &bad), 0);
	assert_int_equal(wait_wc(0, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 5000);
	assert_memory_equal(s[1].buf, s[0].buf, 5000);

	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf + 65536;
	wr.wr.rdma.rkey = s[1].mr->rkey;
	assert_int_equal(roce_post_send(c->qa, &wr, &bad), 0);
	assert_int_equal(wait_wc(0, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_memory_equal(s[1].buf + 65536, s[0].buf, 5000);

	for (unsigned i = 0; i < 5000; i++)
		s[1].buf[131072 + i] = (uint8_t)(i * 13 + 5);
	sge.addr = (uintptr_t)s[0].buf + 131072;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf + 131072;
	assert_int_equal(roce_post_send(c->qa, &wr, &bad), 0);
	assert_int_equal(wait_wc(0, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_memory_equal(s[0].buf + 131072, s[1].buf + 131072, 5000);
}

/* ------------------------------------------------------------------ tests */

static void connect_data_disconnect(void **st)
{
	struct roce_cm_event ev;
	struct conn c;
	(void)st;

	establish(&c, NULL);
	move_data(&c);
	disconnect_both(&c);
	/* both leave TimeWait on their own */
	expect_event(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	expect_event(1, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	/* disconnecting twice is refused */
	assert_int_equal(roce_cm_disconnect(c.a), -EINVAL);
	teardown_conn(&c);
}

static void connect_without_qp(void **st)
{
	struct roce_cm_event ev;
	struct roce_cm_conn_param p = fast;
	struct conn c;
	(void)st;

	memset(&c, 0, sizeof(c));
	c.l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c.l, PORT, 8), 0);
	c.a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	c.qa = make_qp(0, ROCE_QPT_RC);
	c.qb = make_qp(1, ROCE_QPT_RC);
	/* without a QP the REQ must still name one */
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, NULL, &p), -EINVAL);
	p.qp_num = roce_qp_num(c.qa);
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, NULL, &p), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c.b = ev.id;
	assert_int_equal(roce_cm_accept(c.b, c.qb, &p), 0);
	expect_event(0, ROCE_CM_EVENT_CONNECT_RESPONSE, &ev);
	assert_int_equal(ev.qp_num, roce_qp_num(c.qb));
	assert_int_equal(roce_cm_accept(c.a, c.qb, &p), -EINVAL); /* not the announced QP */
	assert_int_equal(roce_cm_accept(c.a, c.qa, &p), 0);
	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	expect_event(1, ROCE_CM_EVENT_ESTABLISHED, &ev);
	move_data(&c);
	disconnect_both(&c);
	teardown_conn(&c);
}

static void no_listener_is_rejected(void **st)
{
	struct roce_cm_event ev;
	struct roce_cm_stats before, after;
	struct roce_cm_id *a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	struct roce_qp *qa = make_qp(0, ROCE_QPT_RC);
	(void)st;

	stats(1, &before);
	assert_int_equal(roce_cm_connect(a, &ip[1], 9999, qa, &fast), 0);
	expect_event(0, ROCE_CM_EVENT_REJECTED, &ev);
	assert_int_equal(ev.status, ROCE_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(roce_qp_state(qa), ROCE_QPS_ERR);
	stats(1, &after);
	assert_int_equal(after.rej_no_listener - before.rej_no_listener, 1);
	assert_int_equal(roce_cm_destroy_id(a), 0);
	drain_cq(0);
	assert_int_equal(roce_destroy_qp(qa), 0);
}

/* nobody answers ARP for the address: connect's timeout_ms ends it, not 15 REQ retries */
static void connect_timeout(void **st)
{
	struct roce_cm_conn_param p = fast;
	struct roce_cm_event ev;
	struct stk_ipaddr nobody;
	struct roce_cm_id *a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	struct roce_qp *qa = make_qp(0, ROCE_QPT_RC);
	uint64_t t0 = rte_get_tsc_cycles();
	double secs;
	(void)st;

	p.cm_response_timeout = 20; /* 4.3 s per try: only the deadline can end it early */
	p.timeout_ms = 300;
	stk_ipaddr_parse("10.79.0.9", &nobody);
	assert_int_equal(roce_cm_connect(a, &nobody, PORT, qa, &p), 0);
	expect_event(0, ROCE_CM_EVENT_UNREACHABLE, &ev);
	assert_int_equal(ev.status, -ETIMEDOUT);
	secs = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	assert_true(secs >= 0.29 && secs < 4.0);
	assert_int_equal(roce_qp_state(qa), ROCE_QPS_ERR);
	assert_int_equal(roce_cm_destroy_id(a), 0);
	drain_cq(0);
	assert_int_equal(roce_destroy_qp(qa), 0);
}

static void consumer_reject(void **st)
{
	static const char why[] = "go away";
	struct roce_cm_event ev;
	struct conn c;
	(void)st;

	memset(&c, 0, sizeof(c));
	c.l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c.l, PORT, 8), 0);
	c.a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	c.qa = make_qp(0, ROCE_QPT_RC);
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, c.qa, &fast), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c.b = ev.id;
	assert_int_equal(roce_cm_reject(c.b, why, sizeof(why)), 0);
	expect_event(0, ROCE_CM_EVENT_REJECTED, &ev);
	assert_int_equal(ev.status, ROCE_CM_REJ_CONSUMER_DEFINED);
	assert_memory_equal(ev.private_data, why, sizeof(why));
	/* a second listener on the same port is refused while the first lives */
	{
		struct roce_cm_id *l2 = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);

		assert_int_equal(roce_cm_listen(l2, PORT, 1), -EADDRINUSE);
		assert_int_equal(roce_cm_destroy_id(l2), 0);
	}
	teardown_conn(&c);
}

static void set_drop(int k, bool on)
{
	struct stk_impair_conf ic = {.drop_ppm = 1000000, .roce_only = true, .seed = 1};

	assert_int_equal(stk_impair_set((uint16_t)k, STK_IMPAIR_TX, on ? &ic : NULL), 0);
}

static void lost_rep_is_resent(void **st)
{
	struct roce_cm_event ev;
	struct roce_cm_stats a0, a1, b0, b1;
	struct conn c;
	(void)st;

	memset(&c, 0, sizeof(c));
	c.l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c.l, PORT, 8), 0);
	c.a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	c.qa = make_qp(0, ROCE_QPT_RC);
	c.qb = make_qp(1, ROCE_QPT_RC);
	stats(0, &a0);
	stats(1, &b0);
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, c.qa, &fast), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c.b = ev.id;
	set_drop(1, true); /* B's REP goes nowhere */
	assert_int_equal(roce_cm_accept(c.b, c.qb, &fast), 0);
	drive(100);
	set_drop(1, false);
	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	expect_event(1, ROCE_CM_EVENT_ESTABLISHED, &ev);
	stats(0, &a1);
	stats(1, &b1);
	/* recovered by a timer: A resent its REQ (answered with the REP) or B resent the REP */
	assert_true(a1.retransmits + b1.retransmits > a0.retransmits + b0.retransmits);
	move_data(&c);
	disconnect_both(&c);
	teardown_conn(&c);
}

static void lost_rtu_is_recovered(void **st)
{
	struct roce_cm_event ev;
	struct roce_cm_stats b0, b1;
	struct conn c;
	(void)st;

	memset(&c, 0, sizeof(c));
	c.l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c.l, PORT, 8), 0);
	c.a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	c.qa = make_qp(0, ROCE_QPT_RC);
	c.qb = make_qp(1, ROCE_QPT_RC);
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, c.qa, &fast), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c.b = ev.id;
	stats(1, &b0);
	set_drop(0, true); /* A's RTU goes nowhere */
	assert_int_equal(roce_cm_accept(c.b, c.qb, &fast), 0);
	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	drive(100);
	set_drop(0, false);
	/* B resends REP on its timer; A answers the repeated REP with RTU again */
	expect_event(1, ROCE_CM_EVENT_ESTABLISHED, &ev);
	stats(1, &b1);
	assert_true(b1.retransmits > b0.retransmits);
	move_data(&c);
	disconnect_both(&c);
	teardown_conn(&c);
}

static void every_mad_duplicated(void **st)
{
	struct stk_impair_conf ic = {.dup_ppm = 1000000, .roce_only = true, .seed = 5};
	struct roce_cm_stats a0, a1, b0, b1;
	struct roce_cm_event ev;
	struct conn c;
	(void)st;

	stats(0, &a0);
	stats(1, &b0);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &ic), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, &ic), 0);
	establish(&c, NULL);
	disconnect_both(&c);
	expect_quiet(0, 50); /* no second ESTABLISHED or DISCONNECTED from the copies */
	expect_quiet(1, 50);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, NULL), 0);
	stats(0, &a1);
	stats(1, &b1);
	assert_true(a1.rx_dup > a0.rx_dup);
	assert_true(b1.rx_dup > b0.rx_dup);
	expect_event(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	expect_event(1, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	teardown_conn(&c);
}

/* MADs a test-owned UD QP sends to B's QP1: stray, out of order, other classes */
static void stray_and_unknown_mads(void **st)
{
	struct roce_cm_stats b0, b1, a0, a1;
	struct roce_ah *ah;
	struct roce_qp *ud;
	struct roce_cm_msg m;
	uint8_t mad[ROCE_MAD_LEN];
	int rc;
	(void)st;

	raw_sender_open(&ud, &ah);

	stats(1, &b0);
	stats(0, &a0);
	/* an RTU, a DREP and an MRA for comm IDs B never gave out */
	memset(&m, 0, sizeof(m));
	m.method = ROCE_MAD_METHOD_SEND;
	m.tid = 77;
	m.attr_id = ROCE_CM_ATTR_RTU;
	m.u.rtu.local_comm_id = 0x1234;
	m.u.rtu.remote_comm_id = 0xdead0001;
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	raw_send(ud, ah, mad);
	m.attr_id = ROCE_CM_ATTR_DREP;
	memset(&m.u, 0, sizeof(m.u));
	m.u.drep.local_comm_id = 0x1234;
	m.u.drep.remote_comm_id = 0xdead0002;
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	raw_send(ud, ah, mad);
	/* a DREQ for an unknown connection is still answered with DREP (to A's QP1 here) */
	m.attr_id = ROCE_CM_ATTR_DREQ;
	memset(&m.u, 0, sizeof(m.u));
	m.u.dreq.local_comm_id = 0x1234;
	m.u.dreq.remote_comm_id = 0xdead0003;
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	raw_send(ud, ah, mad);
	stats(1, &b1);
	assert_int_equal(b1.rx_drop_nomatch - b0.rx_drop_nomatch, 3);
	assert_int_equal(b1.tx_mads - b0.tx_mads, 1); /* the DREP */
	stats(0, &a1);
	assert_int_equal(a1.rx_drop_nomatch - a0.rx_drop_nomatch, 1); /* ... unknown to A */

	/* another management class, a bad class version, garbage: dropped and counted */
	stats(1, &b0);
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = 0x04; /* performance management */
	mad[2] = 1;
	mad[3] = ROCE_MAD_METHOD_SEND;
	raw_send(ud, ah, mad);
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	mad[2] = 9; /* class version */
	raw_send(ud, ah, mad);
	memset(mad, 0xa5, sizeof(mad));
	raw_send(ud, ah, mad);
	stats(1, &b1);
	assert_int_equal(b1.rx_drop_bad - b0.rx_drop_bad, 3);

	rc = roce_destroy_ah(ah);
	assert_int_equal(rc, 0);
	drain_cq(0);
	assert_int_equal(roce_destroy_qp(ud), 0);
}

/*
 * The PSN convention Linux uses (ib_cm; nfs_rdma_full.pcap frames 1-6: the active side's first
 * SEND carries the REP's starting PSN): a REQ's starting PSN is what the passive side sends
 * from, and what it announces in its REP is what it expects to receive. A REQ built here with
 * a known PSN, as a Linux client would send it, pins it down for droce's passive side.
 */
static void starting_psn_convention(void **st)
{
	struct roce_qp_attr got;
	struct roce_cma_hdr h;
	struct roce_cm_event ev;
	struct roce_cm_msg m;
	struct roce_ah *ah;
	struct roce_qp *ud, *qb;
	struct roce_cm_id *l;
	uint8_t mad[ROCE_MAD_LEN];
	const uint32_t req_psn = 0xe3d38f, fake_qpn = 0x77;
	(void)st;

	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(l, PORT, 4), 0);
	raw_sender_open(&ud, &ah);

	/* a REQ as Linux's rdma_cm sends it (cm_msgs.pcap values), with our PSN */
	memset(&m, 0, sizeof(m));
	m.method = ROCE_MAD_METHOD_SEND;
	m.tid = 0x0000000212345678ull;
	m.attr_id = ROCE_CM_ATTR_REQ;
	m.u.req.local_comm_id = 0x78563412;
	m.u.req.service_id = roce_cma_service_id(ROCE_RDMA_PS_TCP, PORT);
	m.u.req.local_qpn = fake_qpn;
	m.u.req.responder_resources = 1;
	m.u.req.initiator_depth = 1;
	m.u.req.remote_cm_resp_timeout = 20;
	m.u.req.starting_psn = req_psn;
	m.u.req.local_cm_resp_timeout = 20;
	m.u.req.retry_count = 7;
	m.u.req.pkey = 0xffff;
	m.u.req.path_mtu = ROCE_MTU_1024;
	m.u.req.rnr_retry_count = 7;
	m.u.req.max_cm_retries = 15;
	m.u.req.prim.local_lid = m.u.req.prim.remote_lid = 0xffff;
	roce_gid_from_ip(&ip[0], m.u.req.prim.local_gid);
	roce_gid_from_ip(&ip[1], m.u.req.prim.remote_gid);
	m.u.req.prim.hop_limit = 64;
	m.u.req.prim.local_ack_timeout = 19;
	memset(&h, 0, sizeof(h));
	h.src_port = 40000;
	h.src = ip[0];
	h.dst = ip[1];
	assert_int_equal(
		roce_cma_hdr_encode(&h, m.u.req.private_data, sizeof(m.u.req.private_data)),
		ROCE_CMA_HDR_LEN);
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	raw_send(ud, ah, mad);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	assert_int_equal(ev.qp_num, fake_qpn);
	qb = make_qp(1, ROCE_QPT_RC);
	assert_int_equal(roce_cm_accept(ev.id, qb, &fast), 0);
	assert_int_equal(roce_query_qp(qb, &got, NULL), 0);
	assert_int_equal(got.sq_psn, req_psn); /* we send from the REQ's PSN */
	assert_int_equal(got.dest_qp_num, fake_qpn);
	assert_int_equal(got.path_mtu, ROCE_MTU_1024);
	assert_int_equal(got.timeout, 19); /* the REQ's local ACK timeout */
	assert_int_equal(roce_cm_destroy_id(ev.id), 0);
	assert_int_equal(roce_cm_destroy_id(l), 0);
	drive(50);
	drain_cq(0);
	drain_cq(1);
	assert_int_equal(roce_destroy_ah(ah), 0);
	assert_int_equal(roce_destroy_qp(ud), 0);
	assert_int_equal(roce_destroy_qp(qb), 0);
}

static void peer_vanishes(void **st)
{
	struct stk_impair_conf ic = {.drop_ppm = 1000000, .seed = 3};
	struct roce_cm_event ev;
	struct roce_send_wr wr, *bad;
	struct roce_sge sge = {.addr = (uintptr_t)s[0].buf, .length = 100, .lkey = s[0].mr->lkey};
	struct roce_wc wc;
	struct conn c;
	bool flushed = false;
	(void)st;

	establish(&c, NULL);
	/* B stops hearing anything: the peer is gone */
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &ic), 0);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr_id = 1;
	assert_int_equal(roce_post_send(c.qa, &wr, &bad), 0);
	wr.wr_id = 2;
	assert_int_equal(roce_post_send(c.qa, &wr, &bad), 0);
	assert_int_equal(wait_wc(0, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_RETRY_EXC_ERR);
	assert_int_equal(wait_wc(0, &wc), 1);
	flushed = wc.status == ROCE_WC_WR_FLUSH_ERR && wc.wr_id == 2;
	assert_true(flushed);
	/* the user's reaction: disconnect; DREQ goes unanswered */
	assert_int_equal(roce_cm_disconnect(c.a), 0);
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(ev.status, -ETIMEDOUT);
	expect_event(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	assert_int_equal(roce_qp_state(c.qa), ROCE_QPS_ERR);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	/* B never heard the DREQ; its user tears down on its own */
	teardown_conn(&c);
}

/* A QP in INIT on side @k: the state a new QP has before the application connects it. */
static struct roce_qp *make_init_qp(int k)
{
	struct roce_qp *qp = make_qp(k, ROCE_QPT_RC);
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						ROCE_QP_ACCESS_FLAGS),
			 0);
	return qp;
}

/*
 * Issue 11 item 2: destroying a QP detaches it from its CM identifier, as rdma_destroy_qp
 * does, so nothing the CM does later for the old connection (leaving for TimeWait on a DREP,
 * on a DREQ from the peer, or when its own DREQ's retries run out) touches the QP: not the
 * freed one, and not a new QP the allocator hands out in the same memory. Each case destroys
 * the connection's QP, creates a new one (INIT) in its place, then lets the CM finish the
 * disconnection; the new QP must still be in INIT and the id's qp NULL.
 */
static void destroyed_qp_is_detached(void **st)
{
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 3};
	struct roce_cm_event ev;
	struct roce_wc wc[16];
	struct roce_qp *old, *nq;
	struct conn c;
	(void)st;

	/* 1. the peer's DREP arrives after our QP was destroyed */
	establish(&c, NULL);
	assert_int_equal(roce_cm_disconnect(c.a), 0); /* DREQ out, answered on the next poll */
	while (roce_poll_cq(s[0].cq, 16, wc) > 0)
		;
	old = c.qa;
	assert_int_equal(roce_destroy_qp(c.qa), 0);
	assert_null(c.a->qp);
	c.qa = nq = make_init_qp(0);
	print_message("DREP case: the new QP %s the old one's memory\n",
		      nq == old ? "reuses" : "does not reuse");
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(ev.status, 0); /* by DREP */
	expect_event(1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(roce_qp_state(nq), ROCE_QPS_INIT);
	expect_event(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev);
	assert_int_equal(roce_qp_state(nq), ROCE_QPS_INIT);
	teardown_conn(&c);

	/* 2. the passive side destroyed its QP while connected; then the peer's DREQ comes */
	establish(&c, NULL);
	old = c.qb;
	assert_int_equal(roce_destroy_qp(c.qb), 0);
	assert_null(c.b->qp);
	c.qb = nq = make_init_qp(1);
	print_message("DREQ case: the new QP %s the old one's memory\n",
		      nq == old ? "reuses" : "does not reuse");
	assert_int_equal(roce_cm_disconnect(c.a), 0);
	expect_event(1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(roce_qp_state(nq), ROCE_QPS_INIT);
	teardown_conn(&c);

	/* 3. our DREQ goes unanswered and its retries run out after the QP was destroyed */
	establish(&c, NULL);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
	assert_int_equal(roce_cm_disconnect(c.a), 0);
	drain_cq(0);
	old = c.qa;
	assert_int_equal(roce_destroy_qp(c.qa), 0);
	assert_null(c.a->qp);
	c.qa = nq = make_init_qp(0);
	print_message("DREQ timeout case: the new QP %s the old one's memory\n",
		      nq == old ? "reuses" : "does not reuse");
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(ev.status, -ETIMEDOUT);
	assert_int_equal(roce_qp_state(nq), ROCE_QPS_INIT);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	teardown_conn(&c);
}

/* A CM MAD of type @attr with the message @u, encoded into @mad. */
static void cm_mad(uint8_t *mad, uint16_t attr, const void *u, size_t len)
{
	struct roce_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.method = ROCE_MAD_METHOD_SEND;
	m.tid = 0x4242;
	m.attr_id = attr;
	memcpy(&m.u, u, len);
	assert_int_equal(roce_cm_encode(&m, mad, ROCE_MAD_LEN), ROCE_MAD_LEN);
}

/*
 * Issue 11 item 8: REJ was matched by our comm ID alone and tore down ESTABLISHED
 * connections; REP, MRA and SIDR_REP were not checked against their source either, and comm
 * IDs counted up (generation << 12 | index), so they were easy to guess. Here a third host
 * (10.79.0.3) knows both comm IDs, as an on-link guesser of today's IDs would, and sends each
 * message; the real peer's address with a wrong comm ID is refused too. Nothing it sends may
 * move a connection: no event, no state change, the QPs as they were. The controls: the same
 * REJ from the peer with both comm IDs right is taken (as Linux's cm_rej_handler takes it in
 * ESTABLISHED), and a genuine REP/SIDR_REP still connects with the peer's QP.
 */
static void cm_messages_matched_to_peer(void **st)
{
	struct roce_cm_stats a0, a1, b0, b1;
	struct roce_cm_event ev;
	struct roce_ah *ah3, *ahb, *aha;
	struct roce_qp *ud3, *udb, *uda;
	struct cm_conn *ca, *cb;
	uint8_t mad[ROCE_MAD_LEN];
	struct conn c;
	(void)st;

	raw_open_from(1, "10.79.0.3", &udb, &ahb); /* "from 10.79.0.3" to A */
	raw_open_from(0, "10.79.0.3", &ud3, &ah3); /* "from 10.79.0.3" to B */
	raw_open_from(0, NULL, &uda, &aha);	   /* from A's address to B */
	stats(0, &a0);
	stats(1, &b0);

	/* 1. A's REQ is out, B has not answered: a third host's MRA and REP change nothing */
	memset(&c, 0, sizeof(c));
	c.l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c.l, PORT, 8), 0);
	c.a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
	c.qa = make_qp(0, ROCE_QPT_RC);
	c.qb = make_qp(1, ROCE_QPT_RC);
	assert_int_equal(roce_cm_connect(c.a, &ip[1], PORT, c.qa, &fast), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c.b = ev.id;
	ca = roce_cmi_conn_of(c.a);
	cb = roce_cmi_conn_of(c.b);
	{
		struct roce_cm_mra mra = {.local_comm_id = cb->local_comm_id,
					  .remote_comm_id = ca->local_comm_id,
					  .msg_mraed = ROCE_CM_MRA_MSG_REQ,
					  .service_timeout = 31};
		struct roce_cm_rep rep = {.local_comm_id = cb->local_comm_id,
					  .remote_comm_id = ca->local_comm_id,
					  .local_qpn = 0x99,
					  .starting_psn = 0x123,
					  .responder_resources = 1,
					  .initiator_depth = 1,
					  .rnr_retry_count = 7};

		cm_mad(mad, ROCE_CM_ATTR_MRA, &mra, sizeof(mra));
		raw_send_from(1, udb, ahb, mad);
		assert_int_equal(ca->state, CM_REQ_SENT);
		cm_mad(mad, ROCE_CM_ATTR_REP, &rep, sizeof(rep));
		raw_send_from(1, udb, ahb, mad);
		expect_quiet(0, 20);
		assert_int_equal(ca->state, CM_REQ_SENT);
		assert_int_equal(roce_qp_state(c.qa), ROCE_QPS_INIT);
	}
	/* B's real REP connects A with B's QP */
	assert_int_equal(roce_cm_accept(c.b, c.qb, &fast), 0);
	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_int_equal(ev.qp_num, roce_qp_num(c.qb));
	expect_event(1, ROCE_CM_EVENT_ESTABLISHED, &ev);

	/* 2. ESTABLISHED: a REJ from the third host with both comm IDs right, from A's address
	 * with a wrong comm ID of A's, and one "rejecting a REQ" B never sent */
	{
		struct roce_cm_rej rej = {.local_comm_id = ca->local_comm_id,
					  .remote_comm_id = cb->local_comm_id,
					  .msg_rejected = ROCE_CM_REJ_MSG_OTHER,
					  .reason = ROCE_CM_REJ_STALE_CONN};

		cm_mad(mad, ROCE_CM_ATTR_REJ, &rej, sizeof(rej));
		raw_send_from(0, ud3, ah3, mad);
		rej.local_comm_id = ca->local_comm_id ^ 0x5000;
		cm_mad(mad, ROCE_CM_ATTR_REJ, &rej, sizeof(rej));
		raw_send_from(0, uda, aha, mad);
		rej.local_comm_id = 0;
		rej.msg_rejected = ROCE_CM_REJ_MSG_REQ;
		cm_mad(mad, ROCE_CM_ATTR_REJ, &rej, sizeof(rej));
		raw_send_from(0, uda, aha, mad);
		/* a DREQ from the third host with both comm IDs right */
		{
			struct roce_cm_dreq dreq = {.local_comm_id = ca->local_comm_id,
						    .remote_comm_id = cb->local_comm_id,
						    .remote_qpn = roce_qp_num(c.qb)};

			cm_mad(mad, ROCE_CM_ATTR_DREQ, &dreq, sizeof(dreq));
			raw_send_from(0, ud3, ah3, mad);
		}
		expect_quiet(1, 20);
		assert_int_equal(cb->state, CM_ESTABLISHED);
		assert_int_equal(roce_qp_state(c.qb), ROCE_QPS_RTS);
		move_data(&c);
		/* the control: from A's address, both comm IDs right, it is taken */
		rej.local_comm_id = ca->local_comm_id;
		rej.msg_rejected = ROCE_CM_REJ_MSG_OTHER;
		cm_mad(mad, ROCE_CM_ATTR_REJ, &rej, sizeof(rej));
		raw_send_from(0, uda, aha, mad);
		expect_event(1, ROCE_CM_EVENT_REJECTED, &ev);
		assert_int_equal(ev.status, ROCE_CM_REJ_STALE_CONN);
		assert_int_equal(roce_qp_state(c.qb), ROCE_QPS_ERR);
	}
	teardown_conn(&c);

	/* 3. SIDR: a third host's SIDR_REP for A's request changes nothing */
	{
		struct roce_cm_id *l, *a, *b;
		struct roce_qp *qa, *qb;
		struct roce_cm_sidr_rep rep;

		l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_UDP, NULL);
		assert_int_equal(roce_cm_listen(l, PORT, 4), 0);
		a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_UDP, NULL);
		qa = make_qp(0, ROCE_QPT_UD);
		qb = make_qp(1, ROCE_QPT_UD);
		assert_int_equal(roce_cm_connect(a, &ip[1], PORT, qa, &fast), 0);
		expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
		b = ev.id;
		memset(&rep, 0, sizeof(rep));
		rep.request_id = roce_cmi_conn_of(a)->local_comm_id;
		rep.status = ROCE_CM_SIDR_SUCCESS;
		rep.qpn = 0x99;
		rep.qkey = 0x1111;
		cm_mad(mad, ROCE_CM_ATTR_SIDR_REP, &rep, sizeof(rep));
		raw_send_from(1, udb, ahb, mad);
		expect_quiet(0, 20);
		assert_int_equal(roce_cmi_conn_of(a)->state, CM_SIDR_REQ_SENT);
		assert_int_equal(roce_cm_accept(b, qb, &fast), 0);
		expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
		assert_int_equal(ev.qp_num, roce_qp_num(qb));
		assert_int_equal(roce_cm_destroy_id(a), 0);
		assert_int_equal(roce_cm_destroy_id(b), 0);
		assert_int_equal(roce_cm_destroy_id(l), 0);
		drive(20);
		drain_cq(0);
		drain_cq(1);
		assert_int_equal(roce_destroy_qp(qa), 0);
		assert_int_equal(roce_destroy_qp(qb), 0);
	}

	/* 4. comm IDs carry random generation bits: 64 in a row do not count up */
	{
		struct roce_cm_id *ids[64];
		unsigned steps = 0;

		for (unsigned i = 0; i < 64; i++) {
			ids[i] = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
			assert_non_null(ids[i]);
			assert_true(roce_cmi_conn_of(ids[i])->local_comm_id >> CM_IDX_BITS != 0);
		}
		for (unsigned i = 1; i < 64; i++) {
			uint32_t g0 = roce_cmi_conn_of(ids[i - 1])->local_comm_id >> CM_IDX_BITS;
			uint32_t g1 = roce_cmi_conn_of(ids[i])->local_comm_id >> CM_IDX_BITS;

			steps += g1 == g0 + 1;
		}
		assert_true(steps < 4);
		for (unsigned i = 0; i < 64; i++)
			assert_int_equal(roce_cm_destroy_id(ids[i]), 0);
	}

	/* A refused the third host's MRA, REP and SIDR_REP; B its REJ and DREQ, and A's
	 * address's two REJs with a wrong comm ID */
	stats(0, &a1);
	stats(1, &b1);
	assert_int_equal(a1.rx_drop_peer_addr - a0.rx_drop_peer_addr, 3);
	assert_int_equal(b1.rx_drop_peer_addr - b0.rx_drop_peer_addr, 2);
	assert_int_equal(b1.rx_drop_comm_id - b0.rx_drop_comm_id, 2);
	drain_cq(0);
	drain_cq(1);
	assert_int_equal(roce_destroy_ah(ah3), 0);
	assert_int_equal(roce_destroy_ah(aha), 0);
	assert_int_equal(roce_destroy_ah(ahb), 0);
	assert_int_equal(roce_destroy_qp(ud3), 0);
	assert_int_equal(roce_destroy_qp(uda), 0);
	assert_int_equal(roce_destroy_qp(udb), 0);
}

/*
 * A DREP names the connection by both comm IDs, as Linux's cm_drep_handler() matches it
 * (cm_acquire_id() with the DREP's remote and local comm IDs), and as the REJ, RTU and DREQ
 * handlers here do: one from the peer's address with our comm ID right and the peer's wrong
 * is not the answer to our DREQ. It was taken (roce_cmi_on_drep() checked ours alone), ending
 * DREQ_SENT early; found by review while writing fuzz_cm_sm. Here B's DREP is lost, a DREP
 * with B's comm ID wrong comes from B's address (nothing happens, rx_drop_comm_id counts
 * it), then the right one (DISCONNECTED).
 */
static void drep_matched_to_peer(void **st)
{
	struct roce_cm_stats a0, a1;
	struct roce_cm_event ev;
	struct roce_cm_drep drep;
	struct cm_conn *ca, *cb;
	uint8_t mad[ROCE_MAD_LEN];
	struct roce_qp *udb;
	struct roce_ah *ahb;
	struct conn c;
	(void)st;

	raw_open_from(1, NULL, &udb, &ahb); /* from B's address to A */
	establish(&c, NULL);
	ca = roce_cmi_conn_of(c.a);
	cb = roce_cmi_conn_of(c.b);
	set_drop(1, true); /* B's DREP is lost */
	assert_int_equal(roce_cm_disconnect(c.a), 0);
	expect_event(1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	drive(20); /* the DREP leaves B's TX buffer while the drop is on */
	set_drop(1, false);
	assert_int_equal(ca->state, CM_DREQ_SENT);
	stats(0, &a0);

	memset(&drep, 0, sizeof(drep));
	drep.local_comm_id = cb->local_comm_id ^ 0x5000;
	drep.remote_comm_id = ca->local_comm_id;
	cm_mad(mad, ROCE_CM_ATTR_DREP, &drep, sizeof(drep));
	raw_send_from(1, udb, ahb, mad);
	expect_quiet(0, 20);
	assert_int_equal(ca->state, CM_DREQ_SENT);
	stats(0, &a1);
	assert_int_equal(a1.rx_drop_comm_id - a0.rx_drop_comm_id, 1);

	/* the control: both comm IDs right */
	drep.local_comm_id = cb->local_comm_id;
	cm_mad(mad, ROCE_CM_ATTR_DREP, &drep, sizeof(drep));
	raw_send_from(1, udb, ahb, mad);
	expect_event(0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_ptr_equal(ev.id, c.a);
	assert_int_equal(ev.status, 0);
	assert_int_equal(ca->state, CM_TIMEWAIT);
	teardown_conn(&c);
	drain_cq(1);
	assert_int_equal(roce_destroy_ah(ahb), 0);
	assert_int_equal(roce_destroy_qp(udb), 0);
}

static void req_flood_is_bounded(void **st)
{
	enum { N = 200, BACKLOG = 16 };
	static struct roce_cm_id *a[N];
	static struct roce_qp *q[N];
	struct roce_cm_stats b0, b1;
	struct roce_cm_event ev;
	struct roce_cm_id *l, *pending[BACKLOG];
	unsigned requests = 0, rejected = 0;
	(void)st;

	stats(1, &b0);
	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(l, PORT, BACKLOG), 0);
	for (unsigned i = 0; i < N; i++) {
		a[i] = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
		assert_non_null(a[i]);
		q[i] = make_qp(0, ROCE_QPT_RC);
		assert_int_equal(roce_cm_connect(a[i], &ip[1], PORT, q[i], &fast), 0);
		assert_true(a[i]->local_port != 0);
		drive(2);
	}
	while (requests < BACKLOG) {
		expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
		pending[requests++] = ev.id;
	}
	while (rejected < N - BACKLOG) {
		expect_event(0, ROCE_CM_EVENT_REJECTED, &ev);
		assert_int_equal(ev.status, ROCE_CM_REJ_NO_RESOURCES);
		rejected++;
	}
	expect_quiet(1, 20);
	stats(1, &b1);
	assert_int_equal(b1.rej_backlog - b0.rej_backlog, N - BACKLOG);
	assert_int_equal(b1.ids, b0.ids + 1 + BACKLOG); /* bounded: the listener + backlog */
	for (unsigned i = 0; i < BACKLOG; i++)
		assert_int_equal(roce_cm_reject(pending[i], NULL, 0), 0);
	for (unsigned i = 0; i < BACKLOG; i++) {
		expect_event(0, ROCE_CM_EVENT_REJECTED, &ev);
		assert_int_equal(ev.status, ROCE_CM_REJ_CONSUMER_DEFINED);
	}
	for (unsigned i = 0; i < BACKLOG; i++)
		assert_int_equal(roce_cm_destroy_id(pending[i]), 0);
	assert_int_equal(roce_cm_destroy_id(l), 0);
	drive(50);
	drain_cq(0);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(roce_cm_destroy_id(a[i]), 0);
		assert_int_equal(roce_destroy_qp(q[i]), 0);
	}
}

static void sidr_ud_service(void **st)
{
	struct roce_cm_conn_param p = fast;
	struct roce_cm_event ev;
	struct roce_cm_id *l, *a, *b, *x;
	struct roce_qp *qa, *qb;
	static const char req[] = "which QP?";
	(void)st;

	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_UDP, NULL);
	assert_int_equal(roce_cm_listen(l, PORT, 4), 0);
	a = roce_cm_create_id(s[0].cm, ROCE_CM_PS_UDP, NULL);
	qa = make_qp(0, ROCE_QPT_UD);
	qb = make_qp(1, ROCE_QPT_UD);
	p.private_data = req;
	p.private_data_len = sizeof(req);
	assert_int_equal(roce_cm_connect(a, &ip[1], PORT, qa, &p), 0);
	expect_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	assert_memory_equal(ev.private_data, req, sizeof(req));
	b = ev.id;
	p.private_data = NULL;
	p.private_data_len = 0;
	p.qkey = 0x11223344;
	assert_int_equal(roce_cm_accept(b, qb, &p), 0);
	expect_event(0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_int_equal(ev.qp_num, roce_qp_num(qb));
	assert_int_equal(ev.qkey, 0x11223344);
	assert_int_equal(roce_qp_state(qb), ROCE_QPS_RTS);

	/* a datagram with what SIDR told us lands in B's QP */
	{
		struct roce_path path = {.dgid_ip = ip[1]};
		struct roce_ah *ah = roce_create_ah(s[0].pd, &path);
		struct roce_sge g = {
			.addr = (uintptr_t)s[0].buf, .length = 64, .lkey = s[0].mr->lkey};
		struct roce_sge rg = {
			.addr = (uintptr_t)s[1].buf, .length = 200, .lkey = s[1].mr->lkey};
		struct roce_recv_wr rw = {.wr_id = 5, .sg_list = &rg, .num_sge = 1}, *rbad;
		struct roce_send_wr w, *bad;
		struct roce_wc wc;

		memset(s[0].buf, 0x5a, 64);
		assert_int_equal(roce_post_recv(qb, &rw, &rbad), 0);
		memset(&w, 0, sizeof(w));
		w.sg_list = &g;
		w.num_sge = 1;
		w.opcode = ROCE_WR_SEND;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = ev.qp_num;
		w.wr.ud.remote_qkey = ev.qkey;
		assert_int_equal(roce_post_send(qa, &w, &bad), 0);
		assert_int_equal(wait_wc(0, &wc), 1);
		assert_int_equal(wait_wc(1, &wc), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_int_equal(wc.byte_len, 40 + 64);
		assert_memory_equal(s[1].buf + 40, s[0].buf, 64);
		assert_int_equal(roce_destroy_ah(ah), 0);
	}

	/* no listener on that UDP port: SIDR_REP "service ID not supported" */
	x = roce_cm_create_id(s[0].cm, ROCE_CM_PS_UDP, NULL);
	assert_int_equal(roce_cm_connect(x, &ip[1], PORT + 1, qa, &fast), 0);
	expect_event(0, ROCE_CM_EVENT_UNREACHABLE, &ev);
	assert_int_equal(ev.status, ROCE_CM_SIDR_UNSUPPORTED);

	assert_int_equal(roce_cm_destroy_id(x), 0);
	assert_int_equal(roce_cm_destroy_id(a), 0);
	assert_int_equal(roce_cm_destroy_id(b), 0);
	assert_int_equal(roce_cm_destroy_id(l), 0);
	drive(20);
	drain_cq(0);
	drain_cq(1);
	assert_int_equal(roce_destroy_qp(qa), 0);
	assert_int_equal(roce_destroy_qp(qb), 0);
}

int main(void)
{
	static char a0[] = "test_cm", a1[] = "--no-huge", a2[] = "-m", a3[] = "256",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(connect_data_disconnect, next_port),
		cmocka_unit_test_setup(connect_without_qp, next_port),
		cmocka_unit_test_setup(no_listener_is_rejected, next_port),
		cmocka_unit_test_setup(connect_timeout, next_port),
		cmocka_unit_test_setup(consumer_reject, next_port),
		cmocka_unit_test_setup(lost_rep_is_resent, next_port),
		cmocka_unit_test_setup(lost_rtu_is_recovered, next_port),
		cmocka_unit_test_setup(every_mad_duplicated, next_port),
		cmocka_unit_test_setup(stray_and_unknown_mads, next_port),
		cmocka_unit_test_setup(starting_psn_convention, next_port),
		cmocka_unit_test_setup(peer_vanishes, next_port),
		cmocka_unit_test_setup(destroyed_qp_is_detached, next_port),
		cmocka_unit_test_setup(req_flood_is_bounded, next_port),
		cmocka_unit_test_setup(sidr_ud_service, next_port),
		cmocka_unit_test_setup(cm_messages_matched_to_peer, next_port),
		cmocka_unit_test_setup(drep_matched_to_peer, next_port),
	};
	int rc;

	if (rte_eal_init(10, eal) < 0)
		return 1;
	if (getenv("DROCE_TEST_FILTER")) /* run only the tests matching this pattern */
		cmocka_set_test_filter(getenv("DROCE_TEST_FILTER"));
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	rte_eal_cleanup();
	return rc;
}
