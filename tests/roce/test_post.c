/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_post.c - posting sends without waiting a loop (issue 12 item 4), on the RC fixture
 * (two stack interfaces over crossed net_ring ports, one lcore context running both devices;
 * rc_fixture.h). "On the wire" is observed at the bottom: a frame is in the peer's RX ring
 * (net_ring's TX is an enqueue there), with its BTH opcode read from the bytes.
 *   - IMMEDIATE: a reply B posts from a completion callback (roce_cq_process() in a poll hook
 *     after roce_poll) is in A's RX ring before the callback returns;
 *   - DOORBELL: the same reply is not on the wire inside the callback, but is when the loop
 *     iteration that ran the hook returns, before the next iteration's RX burst;
 *   - QUEUE (the behaviour before): it leaves only in the next iteration;
 *   - a post from another EAL lcore than the device's owner transmits nothing and touches no
 *     counter; the owner's next poll sends it;
 *   - the requester's limits hold for a post: one burst (32 packets) per QP between two polls,
 *     shared by all the posts, the in-flight window, DCQCN pacing; a next hop being resolved gets no frame from a post
 *     (nothing is queued in the neighbour table), the poll sends as before;
 *   - a post made while the device's engines run rings the doorbell.
 * Teardown checks that the mempool and every verbs object are back to empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rc_fixture.h"
#include "roce_dcqcn.h"
#include "roce_int.h" /* the requester's window, the engine flag */
#include "roce_opcode.h"
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define BTH_OFF (14 + 20 + 8) /* Ethernet, IPv4, UDP: the fixture's frames */

/* net_ring's rings (rc_fixture.c): "rc_r1" is A's TX and B's RX, "rc_r0" the other way */
static struct rte_ring *to_b, *to_a;

/* Frames in @p r whose BTH opcode is @p op. Looks by dequeuing and enqueuing every frame in
 * order (one thread owns both ends here). */
static unsigned ring_count_op(struct rte_ring *r, uint8_t op)
{
	void *m[512];
	unsigned n = rte_ring_dequeue_burst(r, m, RTE_DIM(m), NULL), k = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct rte_mbuf *f = m[i];

		if (rte_pktmbuf_data_len(f) > BTH_OFF &&
		    *rte_pktmbuf_mtod_offset(f, const uint8_t *, BTH_OFF) == op)
			k++;
	}
	assert_int_equal(rte_ring_enqueue_bulk(r, m, n, NULL), n);
	return k;
}

static uint64_t dev_count(int k, size_t off)
{
	struct roce_dev_counts c;

	roce_dev_counts(rcf_s[k].dev, &c);
	return *(const uint64_t *)((const uint8_t *)&c + off);
}
#define DEVC(k, field) dev_count(k, offsetof(struct roce_dev_counts, field))

/* Connect the pair and resolve both sides' MACs (a post to a peer being resolved is left to
 * the poll), with no frame left in flight. */
static void connect_resolved(void)
{
	const struct stk_ipaddr *ip[2] = {&stk_iface_get(0)->ip4, &stk_iface_get(1)->ip4};

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	for (int k = 0; k < 2; k++)
		stk_neigh_probe(rcf_lc, stk_iface_get((uint16_t)k), ip[!k]);
	rcf_drive(20);
	for (int k = 0; k < 2; k++) {
		const struct stk_neigh *n = stk_neigh_lookup(rcf_lc->neigh, (uint16_t)k, ip[!k]);

		assert_non_null(n);
		assert_int_equal(n->state, STK_NEIGH_REACHABLE);
	}
	assert_int_equal(rte_ring_count(to_b) + rte_ring_count(to_a), 0);
}

/* ------------------------------------------------------------------ B answers from a hook */

struct pong {
	struct roce_cqe cqe;
	int calls;
	unsigned sends_in_cb; /**< SEND frames in A's RX ring just before the reply was posted */
	unsigned sends_after; /**< ... and right after it, still inside the callback */
	unsigned after_iter;  /**< ... when the loop iteration that ran the callback returned */
};
static struct pong pong;
static bool hook_on;

static void b_recv_done(struct roce_cq *cq, struct roce_wc *wc)
{
	struct pong *p = container_of(wc->wr_cqe, struct pong, cqe);
	struct roce_sge sg = {
		.addr = (uintptr_t)(rcf_s[1].buf + 4096), .length = 64, .lkey = rcf_s[1].mr->lkey};
	struct roce_send_wr w, *bad;
	(void)cq;

	assert_int_equal(wc->status, ROCE_WC_SUCCESS);
	assert_int_equal(wc->opcode, ROCE_WC_RECV);
	p->calls++;
	p->sends_in_cb = ring_count_op(to_a, ROCE_OP_RC_SEND_ONLY);
	memset(&w, 0, sizeof(w));
	w.wr_id = 77;
	w.opcode = ROCE_WR_SEND;
	w.sg_list = &sg;
	w.num_sge = 1;
	assert_int_equal(roce_post_send(rcf_s[1].qp, &w, &bad), 0); /* unsignalled */
	p->sends_after = ring_count_op(to_a, ROCE_OP_RC_SEND_ONLY);
}

/* B's consumer hook, after both roce_poll hooks: its CQ's callbacks */
static void b_hook(struct stk_lcore *lc, void *arg)
{
	(void)lc;
	(void)arg;
	if (hook_on)
		roce_cq_process(rcf_s[1].cq, 16);
}

/* A sends 64 B to B; B's callback answers with 64 B in post mode @p mode. Runs the loop one
 * iteration at a time and records what is on the wire when. */
static void ping_once(enum roce_post_mode mode)
{
	struct roce_recv_wr r = {.num_sge = 1}, *rbad;
	struct roce_sge rsg;
	struct roce_wc wc;
	unsigned iters = 0;

	connect_resolved();
	assert_int_equal(roce_dev_set_post_mode(rcf_s[1].dev, mode), 0);
	assert_int_equal(roce_dev_post_mode(rcf_s[1].dev), mode);
	memset(&pong, 0, sizeof(pong));
	pong.cqe.done = b_recv_done;
	rsg = (struct roce_sge){
		.addr = (uintptr_t)rcf_s[1].buf, .length = 64, .lkey = rcf_s[1].mr->lkey};
	r.wr_cqe = &pong.cqe;
	r.sg_list = &rsg;
	assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &rbad), 0);
	rcf_post_recv(0, 5, 8192, 64);
	rcf_fill(rcf_s[1].buf + 4096, 64, 3);
	hook_on = true;
	rcf_post(0, ROCE_WR_SEND, 1, 0, 64, 0, 0);
	while (pong.calls == 0 && iters++ < 100000)
		stk_lcore_poll(rcf_lc);
	assert_int_equal(pong.calls, 1);
	/* the iteration that ran the callback has returned; the next one has not begun */
	pong.after_iter = ring_count_op(to_a, ROCE_OP_RC_SEND_ONLY);
	hook_on = false;
	/* A gets its own SEND's completion and the reply */
	for (int got = 0; got < 2;) {
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		if (wc.opcode == ROCE_WC_RECV) {
			assert_int_equal(wc.byte_len, 64);
			assert_memory_equal(rcf_s[0].buf + 8192, rcf_s[1].buf + 4096, 64);
		}
		got++;
	}
	rcf_disconnect_pair();
	roce_dev_set_post_mode(rcf_s[1].dev, ROCE_POST_IMMEDIATE);
}

/* The default: the reply is on the wire before the callback returns. */
static void reply_from_callback_immediate(void **st)
{
	uint64_t now0 = DEVC(1, post_tx_now);
	(void)st;

	ping_once(ROCE_POST_IMMEDIATE);
	assert_int_equal(pong.sends_in_cb, 0);
	assert_int_equal(pong.sends_after, 1);
	assert_int_equal(DEVC(1, post_tx_now) - now0, 1);
}

/* DOORBELL: not inside the callback, but within the same loop iteration. */
static void reply_from_callback_doorbell(void **st)
{
	uint64_t bell0 = DEVC(1, post_doorbell);
	(void)st;

	ping_once(ROCE_POST_DOORBELL);
	assert_int_equal(pong.sends_after, 0);
	assert_int_equal(pong.after_iter, 1);
	assert_int_equal(DEVC(1, post_doorbell) - bell0, 1);
}

/* QUEUE (the behaviour before issue 12 item 4): one loop iteration later. */
static void reply_from_callback_queue(void **st)
{
	uint64_t now0 = DEVC(1, post_tx_now), bell0 = DEVC(1, post_doorbell);
	(void)st;

	ping_once(ROCE_POST_QUEUE);
	assert_int_equal(pong.sends_after, 0);
	assert_int_equal(pong.after_iter, 0);
	assert_int_equal(DEVC(1, post_tx_now), now0);
	assert_int_equal(DEVC(1, post_doorbell), bell0);
}

/* ------------------------------------------------------------------ not the owner */

static int post_elsewhere(void *arg)
{
	(void)arg;
	rcf_post(0, ROCE_WR_RDMA_WRITE, 9, 0, 64, (uintptr_t)(rcf_s[1].buf + 4096),
		 rcf_s[1].mr->rkey);
	return 0;
}

/* A post from lcore 1 on A's QP (owned by this lcore): queued, not sent, nothing counted;
 * the owner's next poll sends it. */
static void non_owner_post_does_not_transmit(void **st)
{
	unsigned other = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	uint64_t tx0, now0, bell0, def0;
	struct roce_wc wc;
	(void)st;

	assert_true(other < RTE_MAX_LCORE);
	connect_resolved();
	assert_int_equal(rcf_s[0].dev->lane[0].lcore, rte_lcore_id());
	tx0 = rcf_s[0].qp->cnt[ROCE_QPC_tx_pkts];
	now0 = DEVC(0, post_tx_now);
	bell0 = DEVC(0, post_doorbell);
	def0 = DEVC(0, post_deferred);
	assert_int_equal(rte_ring_count(to_b), 0);
	assert_int_equal(rte_eal_remote_launch(post_elsewhere, NULL, other), 0);
	assert_int_equal(rte_eal_wait_lcore(other), 0);
	assert_int_equal(rte_ring_count(to_b), 0);
	assert_int_equal(rcf_s[0].qp->cnt[ROCE_QPC_tx_pkts], tx0);
	assert_int_equal(roce_wq_count(&rcf_s[0].qp->sq), 1);
	assert_int_equal(DEVC(0, post_tx_now), now0);
	assert_int_equal(DEVC(0, post_doorbell), bell0);
	assert_int_equal(DEVC(0, post_deferred), def0);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1); /* the owner's poll sent it */
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 9);
	rcf_disconnect_pair();
}

/* ------------------------------------------------------------------ the requester's limits */

/* One post of a 48-packet SEND puts one burst (32) on the wire in the call, the poll the
 * rest; 40 one-packet WRITEs posted between two polls put 32 (one burst, shared); then 40
 * against a window of 16 put 16 on the wire. */
static void burst_and_window(void **st)
{
	struct roce_wc wc[41];
	(void)st;

	connect_resolved();
	rcf_post_recv(1, 1, 1u << 20, 48 * 1024);
	rcf_post(0, ROCE_WR_SEND, 1, 0, 48 * 1024, 0, 0);
	assert_int_equal(rte_ring_count(to_b), 32);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].byte_len, 48 * 1024);
	assert_memory_equal(rcf_s[1].buf + (1u << 20), rcf_s[0].buf, 48 * 1024);
	rcf_drive(20);
	assert_int_equal(rte_ring_count(to_b), 0);

	/* posts between two polls share the QP's burst: 40 WRITEs, 32 on the wire (the cc lab's
	 * PFC headroom lost frames when each post had a burst of its own) */
	for (int i = 0; i < 40; i++)
		rcf_post(0, ROCE_WR_RDMA_WRITE, 50 + (uint64_t)i, (uint32_t)i * 64, 64,
			 (uintptr_t)(rcf_s[1].buf + (2u << 20) + (uint32_t)i * 64),
			 rcf_s[1].mr->rkey);
	assert_int_equal(rte_ring_count(to_b), 32);
	assert_int_equal(rcf_wait_wc(0, wc, 40), 40);
	for (int i = 0; i < 40; i++)
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
	rcf_drive(20);
	assert_int_equal(rte_ring_count(to_b), 0);

	rcf_s[0].qp->comp.cwnd = 16;
	rcf_s[0].qp->comp.ssthresh = 16;
	for (int i = 0; i < 40; i++)
		rcf_post(0, ROCE_WR_RDMA_WRITE, 100 + (uint64_t)i, (uint32_t)i * 64, 64,
			 (uintptr_t)(rcf_s[1].buf + (2u << 20) + (uint32_t)i * 64),
			 rcf_s[1].mr->rkey);
	assert_int_equal(rte_ring_count(to_b), 16);
	assert_int_equal(rcf_wait_wc(0, wc, 40), 40);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, 100 + (uint64_t)i);
	}
	assert_memory_equal(rcf_s[1].buf + (2u << 20), rcf_s[0].buf, 40 * 64);
	rcf_disconnect_pair();
}

/* DCQCN at its floor rate (1 Mbit/s): five posts put one frame on the wire, the pacer the
 * rest, in order. */
static void dcqcn_paces_posts(void **st)
{
	struct roce_dcqcn_params p;
	struct roce_wc wc[5];
	(void)st;

	roce_dcqcn_params_default(&p, 10);
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, &p), 0);
	connect_resolved();
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, NULL), 0); /* only this QP has it */
	assert_true(rcf_s[0].qp->cc);
	for (int i = 0; i < 200; i++) /* congestion notifications cut it to the floor */
		roce_dcqcn_rp_cnp(&rcf_s[0].qp->rp, rte_get_tsc_cycles());
	assert_true(rcf_s[0].qp->rp.rc < 0.01);
	for (int i = 0; i < 5; i++)
		rcf_post(0, ROCE_WR_RDMA_WRITE, 200 + (uint64_t)i, (uint32_t)i * 1024, 1024,
			 (uintptr_t)(rcf_s[1].buf + (3u << 20) + (uint32_t)i * 1024),
			 rcf_s[1].mr->rkey);
	assert_int_equal(rte_ring_count(to_b), 1);
	assert_int_equal(rcf_wait_wc(0, wc, 5), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, 200 + (uint64_t)i);
	}
	assert_memory_equal(rcf_s[1].buf + (3u << 20), rcf_s[0].buf, 5 * 1024);
	rcf_disconnect_pair();
}

/* A peer whose MAC is unknown: the post queues nothing in the neighbour table and sends no
 * probe; the WR waits for the poll (which queues and probes, as it always did). */
static void unresolved_next_hop_left_to_the_poll(void **st)
{
	struct roce_qp_attr a;
	struct stk_ipaddr ghost;
	struct roce_wc wc;
	uint64_t def0;
	(void)st;

	connect_resolved();
	stk_ipaddr_parse("10.77.0.9", &ghost);
	/* point A's QP elsewhere on the link (a white-box edit of its path) */
	a = rcf_s[0].qp->attr;
	rcf_s[0].qp->attr.ah_attr.dgid_ip = ghost;
	assert_null(stk_neigh_lookup(rcf_lc->neigh, 0, &ghost));
	def0 = DEVC(0, post_deferred);
	rcf_post(0, ROCE_WR_RDMA_WRITE, 1, 0, 64, (uintptr_t)(rcf_s[1].buf + 4096),
		 rcf_s[1].mr->rkey);
	assert_int_equal(DEVC(0, post_deferred) - def0, 1);
	assert_null(stk_neigh_lookup(rcf_lc->neigh, 0, &ghost));
	assert_int_equal(rcf_s[0].qp->cnt[ROCE_QPC_tx_pkts], 0);
	assert_int_equal(roce_wq_count(&rcf_s[0].qp->sq), 1);
	rcf_s[0].qp->attr = a; /* back to B: the poll sends it there */
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	rcf_disconnect_pair();
}

/* A post made while the device's engines run rings the doorbell: sent at the end of the next
 * iteration, never from inside them. */
static void post_inside_the_engine_rings(void **st)
{
	uint64_t bell0, now0;
	struct roce_wc wc;
	(void)st;

	connect_resolved();
	bell0 = DEVC(0, post_doorbell);
	now0 = DEVC(0, post_tx_now);
	rcf_s[0].dev->lane[0].in_engine = true; /* as inside roce_poll() or a received frame */
	rcf_post(0, ROCE_WR_RDMA_WRITE, 3, 0, 64, (uintptr_t)(rcf_s[1].buf + 4096),
		 rcf_s[1].mr->rkey);
	rcf_s[0].dev->lane[0].in_engine = false;
	assert_int_equal(DEVC(0, post_doorbell) - bell0, 1);
	assert_int_equal(DEVC(0, post_tx_now), now0);
	assert_int_equal(rte_ring_count(to_b), 0);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_dev_set_post_mode(rcf_s[0].dev, ROCE_POST_NUM_MODES), -EINVAL);
	assert_int_equal(roce_dev_set_post_mode(NULL, ROCE_POST_QUEUE), -EINVAL);
	rcf_disconnect_pair();
}

static int setup(void **st)
{
	if (rcf_group_setup(st) != 0)
		return -1;
	to_b = rte_ring_lookup("rc_r1");
	to_a = rte_ring_lookup("rc_r0");
	if (!to_b || !to_a)
		return -1;
	return stk_lcore_add_poll(rcf_lc, b_hook, NULL); /* after both roce_poll hooks */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reply_from_callback_immediate),
		cmocka_unit_test(reply_from_callback_doorbell),
		cmocka_unit_test(reply_from_callback_queue),
		cmocka_unit_test(non_owner_post_does_not_transmit),
		cmocka_unit_test(burst_and_window),
		cmocka_unit_test(dcqcn_paces_posts),
		cmocka_unit_test(unresolved_next_hop_left_to_the_poll),
		cmocka_unit_test(post_inside_the_engine_rings),
	};
	int rc;

	if (rcf_eal_init("test_post") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
