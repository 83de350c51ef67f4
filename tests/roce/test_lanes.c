/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_lanes.c - one device, several lcores (issue 12 item 7), on two real lcores (threads).
 *
 * Two net_ring ports with two queue pairs each, crossed (A's TX queue i is B's RX queue i);
 * lcore 0 owns RX/TX queue 0 of both ports, lcore 1 queue 1. Each port has one roce device
 * running on both lcores (roce_dev_set_lcores()), one CQ per lane.
 *
 *   spread:   64 RC QP pairs. A's QP j lives on lane j % 2, B's on lane (j / 2) % 2, so half
 *             the pairs send frames that arrive on the lane that does not run the QP and are
 *             handed over. Each pair moves a 32 KiB WRITE, a 4 KiB SEND and a 16 KiB READ
 *             (path MTU 1024) while both lcores poll; every byte is compared. No QP is ever
 *             run by two lcores: each QP's engines ran on exactly one lcore (lcore_moves 1,
 *             its home's), and no call was refused for the wrong lcore.
 *   live:     while both lanes run, the primary lane brings up 8 more pairs placed
 *             round-robin: each QP reaches its home lane through that lane's command ring
 *             (qp_joined), and moves data there.
 *   refusals: a CQ of lane 1 polled from lcore 0 answers -EXDEV (counted); modify to ERR of a
 *             lane-1 QP from lcore 0 is queued and applied by lane 1; destroying a lane-1 QP
 *             from lcore 0 answers -EBUSY until lane 1 let it go and every lane polled since.
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
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "roce_cm.h"
#include "roce_engine.h"
#include "stk_stack.h"

#define NPAIRS 64
#define NLIVE 8
#define NQP (NPAIRS + NLIVE)
#define SLOT (64u << 10)
#define WR_OFF 0u
#define WR_LEN (32u << 10)
#define SND_OFF (32u << 10)
#define SND_LEN (4u << 10)
#define RD_OFF (40u << 10)
#define RD_LEN (16u << 10)

struct side {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_mr *mr;
	uint8_t *buf;
	struct roce_cq *cq[2]; /* one per lane */
	struct roce_qp *qp[NQP];
};

static struct side S[2];
static struct stk_lcore *LC[2];
static struct rte_mempool *pool;
static unsigned lcore_of[2]; /* lane -> lcore */
static volatile int stop;
static int npairs_live; /* pairs [0, npairs_live) take part */
static volatile int posted[NQP];
static int want[2], got[2]; /* per lane: completions expected / seen (written by the lane) */
static int bad_wc[2];
/* the CM test's passive QPs: a CQ each, polled by the lane the QP went home to */
#define NCM 8
static struct roce_qp *cm_qp[NCM];
static struct roce_cq *cm_cq[NCM];
static volatile int ncm;

static uint16_t ring_port(const char *name, struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_eth_conf conf;
	int p = rte_eth_from_rings(name, rx, 2, tx, 2, 0);

	memset(&conf, 0, sizeof(conf));
	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 2, 2, &conf) != 0)
		abort();
	for (uint16_t q = 0; q < 2; q++)
		if (rte_eth_rx_queue_setup((uint16_t)p, q, 1024, 0, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup((uint16_t)p, q, 1024, 0, NULL) != 0)
			abort();
	if (rte_eth_dev_start((uint16_t)p) != 0)
		abort();
	return (uint16_t)p;
}

static int lane_of_qp(int k, int j)
{
	return k == 0 ? j % 2 : (j / 2) % 2;
}

static void qp_up(int j, bool placed)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia;

		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		if (placed || k == 0) {
			int l = lane_of_qp(k, j);

			ia.on_lcore = true;
			ia.lcore = lcore_of[l];
			ia.send_cq = ia.recv_cq = S[k].cq[l];
		} else {
			/* round-robin on B: the test knows the order, so it picks the right CQ */
			ia.send_cq = ia.recv_cq = S[k].cq[(j - NPAIRS) % 2];
		}
		S[k].qp[j] = roce_create_qp(S[k].pd, &ia);
		assert_non_null(S[k].qp[j]);
		if (!placed && k == 1)
			assert_int_equal(roce_qp_lcore(S[k].qp[j]), lcore_of[(j - NPAIRS) % 2]);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		assert_int_equal(roce_modify_qp(S[k].qp[j], &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
		if (k == 1) { /* B's receive for A's SEND, posted where the QP lives now */
			struct roce_sge sge = {.addr = (uintptr_t)S[1].buf + j * SLOT + SND_OFF,
					       .length = SND_LEN,
					       .lkey = S[1].mr->lkey};
			struct roce_recv_wr rw = {
				.wr_id = (uint64_t)j, .sg_list = &sge, .num_sge = 1};
			struct roce_recv_wr *bad;

			assert_int_equal(roce_post_recv(S[1].qp[j], &rw, &bad), 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(S[!k].qp[j]);
		a.rq_psn = 1000u * (unsigned)j + 7u * (unsigned)k;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		stk_ipaddr_parse(k ? "10.78.0.1" : "10.78.0.2", &a.ah_attr.dgid_ip);
		assert_int_equal(roce_modify_qp(S[k].qp[j], &a,
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
		a.sq_psn = 1000u * (unsigned)j + 7u * (unsigned)!k;
		a.timeout =
			18; /* 1.07 s: busy-polling lcores on an oversubscribed machine (CI runs tests side by side) are descheduled for tens of ms */
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		assert_int_equal(roce_modify_qp(S[k].qp[j], &a,
						ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
							ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
							ROCE_QP_MAX_QP_RD_ATOMIC),
				 0);
	}
}

/* A's three WRs of pair @j (on its lane's lcore). */
static void post_pair(int j)
{
	uint8_t *a = S[0].buf + (size_t)j * SLOT, *b = S[1].buf + (size_t)j * SLOT;
	uint32_t lk = S[0].mr->lkey, rk = S[1].mr->rkey;
	struct roce_sge sg[3] = {
		{.addr = (uintptr_t)a + WR_OFF, .length = WR_LEN, .lkey = lk},
		{.addr = (uintptr_t)a + SND_OFF, .length = SND_LEN, .lkey = lk},
		{.addr = (uintptr_t)a + RD_OFF, .length = RD_LEN, .lkey = lk},
	};
	struct roce_send_wr wr[3];
	struct roce_send_wr *bad;

	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)j;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = ROCE_SEND_SIGNALED;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[0].opcode = ROCE_WR_RDMA_WRITE;
	wr[0].wr.rdma.remote_addr = (uintptr_t)b + WR_OFF;
	wr[0].wr.rdma.rkey = rk;
	wr[1].opcode = ROCE_WR_SEND;
	wr[2].opcode = ROCE_WR_RDMA_READ;
	wr[2].wr.rdma.remote_addr = (uintptr_t)b + RD_OFF;
	wr[2].wr.rdma.rkey = rk;
	if (roce_post_send(S[0].qp[j], wr, &bad) != 0)
		bad_wc[lane_of_qp(0, j)]++;
}

/* One pass of lane @l's work on its lcore: post what is due, reap its CQs. */
static void lane_step(int l)
{
	struct roce_wc wc[32];

	stk_lcore_poll(LC[l]);
	for (int j = 0; j < npairs_live; j++) {
		if (!posted[j] && S[0].qp[j] && roce_qp_lcore(S[0].qp[j]) == lcore_of[l] &&
		    roce_qp_state(S[0].qp[j]) == ROCE_QPS_RTS) {
			posted[j] = 1;
			post_pair(j);
		}
	}
	for (int k = 0; k < 2; k++) {
		int n = roce_poll_cq(S[k].cq[l], 32, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != ROCE_WC_SUCCESS ||
			    roce_qp_lcore(wc[i].qp) != lcore_of[l])
				bad_wc[l]++;
			got[l]++;
		}
		if (n < 0)
			bad_wc[l]++;
	}
	for (int i = 0; i < ncm; i++) {
		int n;

		if (roce_qp_lcore(cm_qp[i]) != lcore_of[l] || roce_qp_lane(cm_qp[i])->idx != l)
			continue; /* not home yet: lane 0 runs it until the end of its poll */
		n = roce_poll_cq(cm_cq[i], 32, wc);
		for (int k = 0; k < n; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS || wc[k].qp != cm_qp[i])
				bad_wc[l]++;
			got[l]++;
		}
		if (n < 0)
			bad_wc[l]++;
	}
}

static uint64_t l1_iters; /* lane 1's passes (the test waits for it to pass over a change) */

static int lane1_main(void *arg)
{
	(void)arg;
	while (!stop) {
		lane_step(1);
		__atomic_fetch_add(&l1_iters, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Poll lane 0 (this lcore) until both lanes saw what they expect, or 30 s. */
static bool run_until_done(void)
{
	uint64_t end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		lane_step(0);
		if (__atomic_load_n(&got[0], __ATOMIC_ACQUIRE) >= want[0] &&
		    __atomic_load_n(&got[1], __ATOMIC_ACQUIRE) >= want[1])
			return true;
	}
	return false;
}

static void expect(int j)
{
	want[lane_of_qp(0, j)] += 3; /* A: WRITE, SEND, READ */
}

static void check_bytes(int j)
{
	const uint8_t *a = S[0].buf + (size_t)j * SLOT, *b = S[1].buf + (size_t)j * SLOT;

	assert_memory_equal(b + WR_OFF, a + WR_OFF, WR_LEN);
	assert_memory_equal(b + SND_OFF, a + SND_OFF, SND_LEN);
	assert_memory_equal(a + RD_OFF, b + RD_OFF, RD_LEN);
}

static void spread_and_live(void **st)
{
	struct roce_dev_counts c[2];
	uint64_t joined[2];
	(void)st;

	/* B's receive completions land on B's lanes */
	for (int j = 0; j < NPAIRS; j++) {
		qp_up(j, true);
		expect(j);
		want[lane_of_qp(1, j)] += 1;
	}
	npairs_live = NPAIRS;
	/* both lanes idle until now: each QP went home at RTS without a command */
	assert_int_equal(rte_eal_remote_launch(lane1_main, NULL, lcore_of[1]), 0);
	assert_true(run_until_done());
	/* the first phase's lane-1 QPs went home directly (lane 1 was not running yet) */
	for (int k = 0; k < 2; k++) {
		joined[k] = S[k].dev->lane[1].cnt[ROCE_LNC_qp_joined];
		assert_int_equal(joined[k], NPAIRS / 2);
	}
	/* live: pairs brought up by lane 0 while lane 1 runs; B's go round-robin */
	assert_int_equal(roce_dev_set_placement(S[1].dev, ROCE_PLACE_ROUND_ROBIN), 0);
	for (int j = NPAIRS; j < NQP; j++) {
		qp_up(j, false);
		expect(j);
		__atomic_fetch_add(&want[(j - NPAIRS) % 2], 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&npairs_live, NQP, __ATOMIC_RELEASE);
	assert_true(run_until_done());
	stop = 1;
	assert_int_equal(rte_eal_wait_lcore(lcore_of[1]), 0);
	stop = 0;
	assert_int_equal(bad_wc[0] + bad_wc[1], 0);
	assert_int_equal(got[0], want[0]);
	assert_int_equal(got[1], want[1]);
	for (int j = 0; j < NQP; j++) {
		check_bytes(j);
		for (int k = 0; k < 2; k++) {
			struct roce_qp *qp = S[k].qp[j];

			/* run by its home's lcore only; a live pair's QP ran on the primary lane until
			 * the end of the poll it reached RTS in (the CM's lane), then moved once */
			if (j < NPAIRS || roce_qp_lcore(qp) == lcore_of[0])
				assert_int_equal(qp->cnt[ROCE_QPC_lcore_moves], 1);
			else
				assert_in_range(qp->cnt[ROCE_QPC_lcore_moves], 1, 2);
			assert_int_equal(qp->ran_on, roce_qp_lcore(qp));
		}
	}
	for (int k = 0; k < 2; k++) {
		roce_dev_counts(S[k].dev, &c[k]);
		assert_int_equal(c[k].wrong_lcore, 0);
	}
	/* crossing pairs were handed over between B's lanes (and A's, for B's replies) */
	assert_true(c[1].rx_handoff > 0);
	assert_true(c[0].rx_handoff > 0);
	/* the policy, asked first (a consumer with CQs per lane): round-robin goes on */
	{
		unsigned a = roce_dev_pick_lcore(S[1].dev), b = roce_dev_pick_lcore(S[1].dev);

		assert_true(a != b);
		assert_true(a == lcore_of[0] || a == lcore_of[1]);
		assert_true(b == lcore_of[0] || b == lcore_of[1]);
	}
	/* the live pairs' lane-1 QPs joined through the ring: B's odd round-robin ones and
	 * A's odd ones */
	for (int k = 0; k < 2; k++)
		assert_int_equal(S[k].dev->lane[1].cnt[ROCE_LNC_qp_joined] - joined[k], NLIVE / 2);
}

/* Lane 1 runs; lcore 0 uses its objects. */
static void refusals(void **st)
{
	struct roce_qp *qp = NULL;
	struct roce_dev_counts c0, c1;
	struct roce_wc wc;
	int j, rc, tries = 0;
	bool saved_panics = roce_wrong_lcore_panics;
	(void)st;

	for (j = 0; j < NQP && !qp; j++)
		if (roce_qp_lcore(S[1].qp[j]) == lcore_of[1])
			qp = S[1].qp[j];
	assert_non_null(qp);
	j--;
	assert_int_equal(rte_eal_remote_launch(lane1_main, NULL, lcore_of[1]), 0);
	roce_wrong_lcore_panics = false; /* debug builds panic: the refusal is what is tested */
	roce_dev_counts(S[1].dev, &c0);
	assert_int_equal(roce_poll_cq(S[1].cq[1], 1, &wc), -EXDEV);
	roce_dev_counts(S[1].dev, &c1);
	assert_int_equal(c1.wrong_lcore, c0.wrong_lcore + 1);
	/* a move other than to ERR is refused; ERR is queued for lane 1 */
	{
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_SQD};

		assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), -EXDEV);
		a.qp_state = ROCE_QPS_ERR;
		assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	}
	roce_wrong_lcore_panics = saved_panics;
	for (uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	     roce_qp_state(qp) != ROCE_QPS_ERR && rte_get_tsc_cycles() < end;)
		lane_step(0);
	assert_int_equal(roce_qp_state(qp), ROCE_QPS_ERR);
	/* destroy from lcore 0: -EBUSY until lane 1 let it go and both lanes polled since */
	while ((rc = roce_destroy_qp(qp)) == -EBUSY && tries < 1000000) {
		tries++;
		lane_step(0);
	}
	assert_int_equal(rc, 0);
	assert_true(tries >= 2); /* the release, then the grace period */
	S[1].qp[j] = NULL;
	stop = 1;
	assert_int_equal(rte_eal_wait_lcore(lcore_of[1]), 0);
	stop = 0;
}

/* Destroy @qp from lane 0 while lane 1 runs: -EBUSY until it may go. */
static void destroy_running(struct roce_qp *qp)
{
	int rc, t = 0;

	while ((rc = roce_destroy_qp(qp)) == -EBUSY && t++ < 1000000)
		lane_step(0);
	assert_int_equal(rc, 0);
	assert_true(t >= 1);
}

/*
 * cm: B listens with round-robin placement; A opens NCM connections through the CMs, which
 * run on lane 0. B's consumer creates each QP (with a CQ of its own) at CONNECT_REQUEST and
 * accepts on lane 0; each QP then goes to its home lane: half to lane 1. A SEND on every
 * connection arrives where its QP lives; A's disconnect moves B's lane-1 QPs to ERR through
 * lane 1's command ring; their destroy from lane 0 waits for the release.
 */
static void cm_round_robin(void **st)
{
	static const struct roce_cm_conn_param prm = {.cm_response_timeout = 16,
						      .max_cm_retries = 4,
						      .local_ack_timeout = 18,
						      .retry_count = 7,
						      .rnr_retry_count = 7};
	struct roce_cm *cm[2];
	struct roce_cm_id *lid, *aid[NCM], *bid[NCM];
	struct roce_qp *aqp[NCM];
	struct stk_ipaddr bip;
	int est_a = 0, est_b = 0, disc = 0, per_lane[2] = {0, 0}, got0[2];
	uint64_t end;
	(void)st;

	for (int k = 0; k < 2; k++) {
		cm[k] = roce_cm_open(S[k].dev);
		assert_non_null(cm[k]);
	}
	assert_int_equal(roce_dev_set_placement(S[1].dev, ROCE_PLACE_ROUND_ROBIN), 0);
	S[1].dev->rr_next = 0;
	stk_ipaddr_parse("10.78.0.2", &bip);
	lid = roce_cm_create_id(cm[1], ROCE_CM_PS_TCP, NULL);
	assert_non_null(lid);
	assert_int_equal(roce_cm_listen(lid, 7600, 16), 0);
	got0[0] = got[0];
	got0[1] = got[1];
	assert_int_equal(rte_eal_remote_launch(lane1_main, NULL, lcore_of[1]), 0);
	for (int i = 0; i < NCM; i++) {
		struct roce_qp_init_attr ia;

		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
		ia.send_cq = ia.recv_cq = S[0].cq[0];
		ia.on_lcore = true;
		ia.lcore = lcore_of[0];
		aqp[i] = roce_create_qp(S[0].pd, &ia);
		aid[i] = roce_cm_create_id(cm[0], ROCE_CM_PS_TCP, NULL);
		assert_non_null(aqp[i]);
		assert_non_null(aid[i]);
		assert_int_equal(roce_cm_connect(aid[i], &bip, 7600, aqp[i], &prm), 0);
	}
	end = rte_get_tsc_cycles() + 20 * rte_get_tsc_hz();
	while ((est_a < NCM || est_b < NCM || got[1] - got0[1] + got[0] - got0[0] < 2 * NCM) &&
	       rte_get_tsc_cycles() < end) {
		struct roce_cm_event ev;

		lane_step(0);
		while (roce_cm_get_event(cm[1], &ev) == 0) {
			if (ev.event == ROCE_CM_EVENT_CONNECT_REQUEST) {
				struct roce_qp_init_attr ia;
				struct roce_sge sge;
				struct roce_recv_wr rw, *bad;
				int n = ncm;

				memset(&ia, 0, sizeof(ia));
				ia.qp_type = ROCE_QPT_RC;
				ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
				cm_cq[n] = roce_create_cq(S[1].dev, 16);
				assert_non_null(cm_cq[n]);
				ia.send_cq = ia.recv_cq = cm_cq[n];
				cm_qp[n] = roce_create_qp(S[1].pd, &ia); /* placed by the policy */
				assert_non_null(cm_qp[n]);
				per_lane[roce_qp_lcore(cm_qp[n]) == lcore_of[1]]++;
				bid[n] = ev.id;
				assert_int_equal(roce_cm_accept(ev.id, cm_qp[n], &prm), 0);
				/* still on lane 0 (this lcore) until the end of its next poll */
				sge = (struct roce_sge){.addr = (uintptr_t)S[1].buf +
								(size_t)n * SLOT + SND_OFF,
							.length = SND_LEN,
							.lkey = S[1].mr->lkey};
				rw = (struct roce_recv_wr){
					.wr_id = (uint64_t)n, .sg_list = &sge, .num_sge = 1};
				assert_int_equal(roce_post_recv(cm_qp[n], &rw, &bad), 0);
				__atomic_store_n(&ncm, n + 1, __ATOMIC_RELEASE);
			} else if (ev.event == ROCE_CM_EVENT_ESTABLISHED) {
				est_b++;
			} else {
				fail_msg("B: CM event %s", roce_cm_event_str(ev.event));
			}
		}
		while (roce_cm_get_event(cm[0], &ev) == 0) {
			struct roce_sge sge;
			struct roce_send_wr w, *bad;
			int i;

			if (ev.event != ROCE_CM_EVENT_ESTABLISHED)
				fail_msg("A: CM event %s", roce_cm_event_str(ev.event));
			for (i = 0; i < NCM && aid[i] != ev.id; i++)
				;
			assert_true(i < NCM);
			est_a++;
			sge = (struct roce_sge){.addr = (uintptr_t)S[0].buf + (size_t)i * SLOT + 1,
						.length = 100,
						.lkey = S[0].mr->lkey};
			memset(&w, 0, sizeof(w));
			w.wr_id = (uint64_t)i;
			w.sg_list = &sge;
			w.num_sge = 1;
			w.opcode = ROCE_WR_SEND;
			w.send_flags = ROCE_SEND_SIGNALED;
			assert_int_equal(roce_post_send(aqp[i], &w, &bad), 0);
		}
	}
	assert_int_equal(est_a, NCM);
	assert_int_equal(est_b, NCM);
	/* round-robin: half on each lane; each SEND completed on A (lane 0) and was received on
	 * the lane its B QP went home to */
	assert_int_equal(per_lane[0], NCM / 2);
	assert_int_equal(per_lane[1], NCM / 2);
	assert_int_equal(got[0] - got0[0], NCM + NCM / 2);
	assert_int_equal(got[1] - got0[1], NCM / 2);
	assert_int_equal(bad_wc[0] + bad_wc[1], 0);
	for (int i = 0; i < NCM; i++) {
		/* which SEND went where: B's connection n is not A's connection n */
		int n;

		for (n = 0; n < NCM && roce_qp_num(cm_qp[n]) != aqp[i]->attr.dest_qp_num; n++)
			;
		assert_true(n < NCM);
		assert_memory_equal(S[1].buf + (size_t)n * SLOT + SND_OFF,
				    S[0].buf + (size_t)i * SLOT + 1, 100);
		assert_int_equal(roce_qp_lane(cm_qp[n])->lcore, roce_qp_lcore(cm_qp[n]));
		assert_int_equal(cm_qp[n]->ran_on, roce_qp_lcore(cm_qp[n]));
	}
	/* A disconnects: B's CM (lane 0) moves each QP to ERR, through lane 1's ring for half */
	for (int i = 0; i < NCM; i++)
		assert_int_equal(roce_cm_disconnect(aid[i]), 0);
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (disc < 2 * NCM && rte_get_tsc_cycles() < end) {
		struct roce_cm_event ev;

		lane_step(0);
		for (int k = 0; k < 2; k++)
			while (roce_cm_get_event(cm[k], &ev) == 0)
				disc += ev.event == ROCE_CM_EVENT_DISCONNECTED;
	}
	assert_int_equal(disc, 2 * NCM);
	for (int n = 0; n < NCM; n++) {
		for (int t = 0; roce_qp_state(cm_qp[n]) != ROCE_QPS_ERR && t < 100000; t++)
			lane_step(0);
		assert_int_equal(roce_qp_state(cm_qp[n]), ROCE_QPS_ERR);
	}
	/* lane 1 stops looking at B's QPs (the test's loop, not the transport) before they go */
	{
		uint64_t it = __atomic_load_n(&l1_iters, __ATOMIC_ACQUIRE);

		__atomic_store_n(&ncm, 0, __ATOMIC_RELEASE);
		while (__atomic_load_n(&l1_iters, __ATOMIC_ACQUIRE) < it + 2)
			lane_step(0);
	}
	for (int i = 0; i < NCM; i++) {
		assert_int_equal(roce_cm_destroy_id(aid[i]), 0);
		assert_int_equal(roce_cm_destroy_id(bid[i]), 0);
		/* lane 1 runs: a QP goes after a grace period (and, on lane 1, its release) */
		destroy_running(aqp[i]);
		destroy_running(cm_qp[i]);
	}
	/* the CM (QP1) closes once the other lanes have stopped */
	assert_int_equal(roce_cm_close(cm[0]), -EBUSY);
	stop = 1;
	assert_int_equal(rte_eal_wait_lcore(lcore_of[1]), 0);
	stop = 0;
	for (int i = 0; i < NCM; i++)
		assert_int_equal(roce_destroy_cq(cm_cq[i]), 0);
	assert_int_equal(roce_cm_destroy_id(lid), 0);
	for (int k = 0; k < 2; k++) {
		for (int t = 0; t < 100; t++)
			lane_step(0);
		assert_int_equal(roce_cm_close(cm[k]), 0);
	}
}

static int setup(void **st)
{
	struct rte_ring *ab[2], *ba[2];
	struct stk_neigh_params np;
	uint16_t port[2];
	(void)st;

	lcore_of[0] = rte_lcore_id();
	lcore_of[1] = rte_get_next_lcore(lcore_of[0], 1, 0);
	if (lcore_of[1] >= RTE_MAX_LCORE)
		return -1;
	pool = rte_pktmbuf_pool_create("ln_pool", 32767, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	for (int q = 0; q < 2; q++) {
		char n[32];

		snprintf(n, sizeof(n), "ln_ab%d", q);
		ab[q] = rte_ring_create(n, 16384, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(n, sizeof(n), "ln_ba%d", q);
		ba[q] = rte_ring_create(n, 16384, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!ab[q] || !ba[q])
			return -1;
	}
	if (!pool)
		return -1;
	port[0] = ring_port("ln_a", ba, ab);
	port[1] = ring_port("ln_b", ab, ba);
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "ln%d", k);
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x78, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.78.0.2" : "10.78.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 9000;
		ifc.nb_rxq = ifc.nb_txq = 2;
		if (stk_iface_add(&ifc) != k)
			return -1;
	}
	stk_neigh_params_default(&np);
	for (int l = 0; l < 2; l++) {
		LC[l] = stk_lcore_create(lcore_of[l], (unsigned)l, l == 0, pool, &np);
		if (!LC[l])
			return -1;
		for (int k = 0; k < 2; k++) {
			LC[l]->rxq[k].iface = (uint16_t)k;
			LC[l]->rxq[k].port_id = port[k];
			LC[l]->rxq[k].queue = (uint16_t)l;
		}
		LC[l]->nb_rxq = 2;
	}
	for (int k = 0; k < 2; k++) {
		S[k].dev = roce_dev_open((uint16_t)k);
		if (!S[k].dev || roce_dev_set_lcores(S[k].dev, lcore_of, 2) != 0)
			return -1;
		S[k].pd = roce_alloc_pd(S[k].dev);
		S[k].buf = rte_zmalloc("ln_buf", (size_t)NQP * SLOT, 4096);
		if (!S[k].pd || !S[k].buf)
			return -1;
		for (size_t i = 0; i < (size_t)NQP * SLOT; i++)
			S[k].buf[i] = k == 0 ? (uint8_t)rte_rand() : 0;
		for (int j = 0; j < NQP; j++) /* B's READ source */
			for (uint32_t i = 0; k == 1 && i < RD_LEN; i++)
				S[1].buf[(size_t)j * SLOT + RD_OFF + i] = (uint8_t)rte_rand();
		S[k].mr = roce_reg_mr(S[k].pd, S[k].buf, (size_t)NQP * SLOT, (uintptr_t)S[k].buf,
				      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					      ROCE_ACCESS_REMOTE_READ);
		for (int l = 0; l < 2; l++)
			S[k].cq[l] = roce_create_cq(S[k].dev, 1024);
		if (!S[k].mr || !S[k].cq[0] || !S[k].cq[1])
			return -1;
		for (int l = 0; l < 2; l++)
			stk_lcore_add_poll(LC[l], roce_poll, S[k].dev);
	}
	/* a lane set only before any lcore polls: the lanes are claimed now */
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	if (rte_eal_get_lcore_state(lcore_of[1]) == RUNNING) { /* a test failed midway */
		stop = 1;
		rte_eal_wait_lcore(lcore_of[1]);
	}
	/* lane 1's lcore has returned: lcore 0 may tear its objects down. First the frames
	 * still in flight (rings, TX buffers) finish, as they hold references to the regions */
	for (int i = 0; i < 200; i++)
		for (int l = 0; l < 2; l++)
			stk_lcore_poll(LC[l]);
	for (int k = 0; k < 2; k++) {
		for (int j = 0; j < NQP; j++)
			if (S[k].qp[j])
				assert_int_equal(roce_destroy_qp(S[k].qp[j]), 0);
		assert_int_equal(roce_dereg_mr(S[k].mr), 0);
		for (int l = 0; l < 2; l++)
			assert_int_equal(roce_destroy_cq(S[k].cq[l]), 0);
		assert_int_equal(roce_dealloc_pd(S[k].pd), 0);
		assert_int_equal(roce_dev_close(S[k].dev), 0);
		rte_free(S[k].buf);
	}
	for (int l = 0; l < 2; l++)
		stk_lcore_destroy(LC[l]);
	stk_iface_reset();
	return 0;
}

static void set_lcores_refused(void **st)
{
	unsigned twice[2] = {lcore_of[0], lcore_of[0]};
	(void)st;

	assert_int_equal(roce_dev_set_lcores(S[0].dev, twice, 2), -EINVAL);
	assert_int_equal(roce_dev_set_lcores(S[0].dev, lcore_of, 0), -EINVAL);
	assert_int_equal(roce_dev_set_lcores(S[0].dev, lcore_of, ROCE_MAX_LANES + 1), -EINVAL);
	/* it has QPs and its lanes have run */
	assert_int_equal(roce_dev_set_lcores(S[0].dev, lcore_of, 2), -EBUSY);
	assert_int_equal(roce_dev_release_lcores(S[0].dev), -EBUSY);
	assert_int_equal(roce_dev_set_placement(S[0].dev, ROCE_PLACE_NUM), -EINVAL);
}

int main(int argc, char **argv)
{
	static char a1[] = "--no-huge", a2[] = "-m", a3[] = "512", a4[] = "--no-pci",
		    a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "--lcores=0,1",
		    a8[] = "--main-lcore=0", a9[] = "--log-level=*:error";
	char *eal[] = {argv[0], a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spread_and_live),
		cmocka_unit_test(refusals),
		cmocka_unit_test(cm_round_robin),
		cmocka_unit_test(set_lcores_refused),
	};
	int rc;

	(void)argc;
	if (rte_eal_init(RTE_DIM(eal), eal) < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, teardown);
	rte_eal_cleanup();
	return rc;
}
