/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cq_events.c - completion dispatch, asynchronous events and context pointers (issue 12
 * items 1-3), on two RC QPs back to back over net_ring in one process (two stack interfaces
 * whose ring ports are crossed, one lcore running the stack and both devices), as
 * test_rc.c does:
 *   - roce_cq_process() calls each WR's wr_cqe->done once per completion, in order, with the
 *     completion's status and QP, within the budget; wr_id polling is unchanged;
 *   - a CQ overflow forced by a small CQ puts the CQ in error and its QP in ERR and raises
 *     exactly CQ_ERR then QP_FATAL, and every lost completion is counted;
 *   - a WRITE to a bad rkey raises QP_FATAL at the requester (queue) and QP_ACCESS_ERR at the
 *     responder (handler), a SEND with invalidate of a plain region QP_REQ_ERR;
 *   - the SRQ limit fires once when the SRQ drops below it, not again until re-armed;
 *   - a QP with an SRQ entering ERR raises QP_LAST_WQE_REACHED, after its own error;
 *   - qp_context, cq_context, srq_context round-trip and ride on events; wc.qp is the QP;
 *   - the event queue keeps the oldest and counts what it cannot hold; destroying an object
 *     removes its queued events;
 *   - link down/up of the port raise PORT_ERR/PORT_ACTIVE, a detached port DEVICE_FATAL.
 * Teardown checks that the mempool and every verbs object are back to empty.
 */
#include <errno.h>
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
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "roce_int.h" /* roce_event_raise() for the queue test */
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "ut_common.h"

#define BUF (1u << 20)

static struct stk_lcore *lc;
static uint16_t port[3]; /* A, B, and C: a port the device-fatal test detaches */
static unsigned base_in_use;

struct side {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	uint8_t *buf;
	struct roce_mr *mr;
};
static struct side s[2];
static struct roce_dev *dev_c;

/* what connect_pair() gives each side; tests set them before, reset_opts() after */
static struct roce_cq *opt_cq[2];   /* NULL: the side's own CQ */
static struct roce_srq *opt_srq[2]; /* B's SRQ */
static int qp_ctx[2];		    /* &qp_ctx[k] is side k's qp_context */

static void reset_opts(void)
{
	memset(opt_cq, 0, sizeof(opt_cq));
	memset(opt_srq, 0, sizeof(opt_srq));
}

static void drive(unsigned iters)
{
	for (unsigned i = 0; i < iters; i++)
		stk_lcore_poll(lc);
}

/* Poll for about @ms milliseconds. */
static void drive_ms(unsigned ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_get_tsc_cycles() < end)
		stk_lcore_poll(lc);
}

static struct roce_cq *cq_of(int k)
{
	return opt_cq[k] ? opt_cq[k] : s[k].cq;
}

static void connect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {.send_cq = cq_of(k),
					       .recv_cq = cq_of(k),
					       .srq = opt_srq[k],
					       .qp_type = ROCE_QPT_RC,
					       .qp_context = &qp_ctx[k]};

		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 2;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		assert_non_null(s[k].qp);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(s[!k].qp);
		a.rq_psn = 100;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		stk_ipaddr_parse(k ? "10.78.0.1" : "10.78.0.2", &a.ah_attr.dgid_ip);
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
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
		a.sq_psn = 100;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
							ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
							ROCE_QP_MAX_QP_RD_ATOMIC),
				 0);
	}
}

/* Destroy both QPs and drain their CQs; no event may be left queued on either device. */
static void disconnect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_wc wc[64];

		assert_int_equal(roce_destroy_qp(s[k].qp), 0);
		while (roce_poll_cq(s[k].cq, 64, wc) > 0)
			;
	}
	drive(50); /* in-flight frames drain so the pool count is exact */
	reset_opts();
}

/* Take every queued event of @dev into @ev (at most @max). @return how many. */
static int take_events(struct roce_dev *dev, struct roce_async_event *ev, int max)
{
	int n = 0;

	while (n < max && roce_get_async_event(dev, &ev[n]) == 0)
		n++;
	return n;
}

static void assert_no_events(void)
{
	struct roce_async_event ev;

	for (int k = 0; k < 2; k++)
		assert_int_equal(roce_get_async_event(s[k].dev, &ev), -EAGAIN);
}

static void post_send(int k, enum roce_wr_opcode op, uint64_t id, struct roce_cqe *cqe,
		      uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[k].buf + off), .length = len, .lkey = s[k].mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	if (cqe)
		w.wr_cqe = cqe;
	else
		w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	assert_int_equal(roce_post_send(s[k].qp, &w, &bad), 0);
}

static void post_recv_to(struct roce_qp *qp, struct roce_srq *srq, int k, uint64_t id,
			 struct roce_cqe *cqe, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[k].buf + off), .length = len, .lkey = s[k].mr->lkey};
	struct roce_recv_wr r = {.sg_list = &sg, .num_sge = 1}, *bad;

	if (cqe)
		r.wr_cqe = cqe;
	else
		r.wr_id = id;
	if (srq)
		assert_int_equal(roce_post_srq_recv(srq, &r, &bad), 0);
	else
		assert_int_equal(roce_post_recv(qp, &r, &bad), 0);
}

/* Poll side @k's CQ until @n completions came (bounded: 10 s). */
static int wait_wc(struct roce_cq *cq, struct roce_wc *wc, int n)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	int got = 0;

	while (got < n && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		got += roce_poll_cq(cq, n - got, wc + got);
	}
	return got;
}

/* ------------------------------------------------------------------ ib_cqe dispatch */

/* A consumer's request with its completion embedded, as an upper layer would keep it. */
struct req {
	int idx;
	struct roce_cqe cqe;
	int calls;
	enum roce_wc_status status;
	enum roce_wc_opcode opcode;
	uint32_t byte_len;
	struct roce_qp *qp;
	uint32_t qp_num;
};

static int done_order[64];
static int done_n;
static int nested_rc; /* what roce_cq_process() answered from inside a callback */

static void req_done(struct roce_cq *cq, struct roce_wc *wc)
{
	struct req *r = container_of(wc->wr_cqe, struct req, cqe);

	r->calls++;
	r->status = wc->status;
	r->opcode = wc->opcode;
	r->byte_len = wc->byte_len;
	r->qp = wc->qp;
	r->qp_num = wc->qp_num;
	if (done_n < (int)RTE_DIM(done_order))
		done_order[done_n++] = r->idx;
	nested_rc = roce_cq_process(cq, 4);
}

static void init_reqs(struct req *r, int n, int base)
{
	memset(r, 0, sizeof(*r) * (size_t)n);
	for (int i = 0; i < n; i++) {
		r[i].idx = base + i;
		r[i].cqe.done = req_done;
	}
}

/* Process @cq until @n callbacks ran in total (bounded: 10 s), @budget at a time. */
static void process_until(struct roce_cq *cq, int n, int budget)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (done_n < n && rte_get_tsc_cycles() < end) {
		int rc;

		stk_lcore_poll(lc);
		rc = roce_cq_process(cq, budget);
		assert_true(rc >= 0 && rc <= budget);
	}
	assert_int_equal(done_n, n);
}

static void done_callbacks_in_order(void **st)
{
	struct req w[6], rv[2], fl[3];
	struct roce_dev_counts c0, c1;
	struct roce_wc wc;
	(void)st;

	connect_pair();
	assert_int_equal(roce_cq_process(NULL, 1), -EINVAL);
	assert_int_equal(roce_cq_process(s[0].cq, 0), -EINVAL);
	done_n = 0;
	/* six WRITEs, then two SENDs into two receives: every one completes through its done
	 * callback, once, in posting order, with its status, opcode, length and QP */
	init_reqs(w, 6, 0);
	init_reqs(rv, 2, 100);
	post_recv_to(s[1].qp, NULL, 1, 0, &rv[0].cqe, 0, 4096);
	post_recv_to(s[1].qp, NULL, 1, 0, &rv[1].cqe, 4096, 4096);
	for (int i = 0; i < 4; i++)
		post_send(0, ROCE_WR_RDMA_WRITE, 0, &w[i].cqe, 0, 100u * (uint32_t)(i + 1),
			  (uintptr_t)s[1].buf + 65536, s[1].mr->rkey);
	post_send(0, ROCE_WR_SEND, 0, &w[4].cqe, 0, 300, 0, 0);
	post_send(0, ROCE_WR_SEND, 0, &w[5].cqe, 0, 2000, 0, 0);
	process_until(s[0].cq, 6, 2); /* a budget smaller than the work */
	for (int i = 0; i < 6; i++) {
		assert_int_equal(done_order[i], i);
		assert_int_equal(w[i].calls, 1);
		assert_int_equal(w[i].status, ROCE_WC_SUCCESS);
		assert_int_equal(w[i].opcode, i < 4 ? ROCE_WC_RDMA_WRITE : ROCE_WC_SEND);
		assert_int_equal(w[i].byte_len, i < 4	 ? 100u * (uint32_t)(i + 1)
						: i == 4 ? 300
							 : 2000);
		assert_ptr_equal(w[i].qp, s[0].qp);
		assert_int_equal(w[i].qp_num, roce_qp_num(s[0].qp));
	}
	/* a callback may not re-enter its own CQ */
	assert_int_equal(nested_rc, -EBUSY);
	done_n = 0;
	process_until(s[1].cq, 2, 8);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(done_order[i], 100 + i);
		assert_int_equal(rv[i].calls, 1);
		assert_int_equal(rv[i].status, ROCE_WC_SUCCESS);
		assert_int_equal(rv[i].opcode, ROCE_WC_RECV);
		assert_int_equal(rv[i].byte_len, i ? 2000 : 300);
		assert_ptr_equal(rv[i].qp, s[1].qp);
	}
	/* three WRs flushed by ERR complete through their callbacks with WR_FLUSH_ERR, in order */
	done_n = 0;
	init_reqs(fl, 3, 200);
	for (int i = 0; i < 3; i++)
		post_recv_to(s[1].qp, NULL, 1, 0, &fl[i].cqe, 0, 64);
	{
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		assert_int_equal(roce_modify_qp(s[1].qp, &a, ROCE_QP_STATE), 0);
	}
	assert_int_equal(roce_cq_process(s[1].cq, 64), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(done_order[i], 200 + i);
		assert_int_equal(fl[i].calls, 1);
		assert_int_equal(fl[i].status, ROCE_WC_WR_FLUSH_ERR);
		assert_ptr_equal(fl[i].qp, s[1].qp);
	}
	assert_int_equal(roce_cq_process(s[1].cq, 64), 0);
	/* a completion without a wr_cqe is skipped and counted, not called */
	roce_dev_counts(s[0].dev, &c0);
	post_send(0, ROCE_WR_RDMA_WRITE, 0, NULL, 0, 8, (uintptr_t)s[1].buf + 65536, s[1].mr->rkey);
	{
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		assert_int_equal(roce_modify_qp(s[0].qp, &a, ROCE_QP_STATE), 0);
	}
	assert_int_equal(roce_cq_process(s[0].cq, 8), 1);
	roce_dev_counts(s[0].dev, &c1);
	assert_int_equal(c1.wc_no_done, c0.wc_no_done + 1);
	assert_int_equal(roce_poll_cq(s[0].cq, 1, &wc), 0);
	assert_no_events(); /* modify to ERR by the consumer raises nothing without an SRQ */
	disconnect_pair();
}

/* wr_id polling is unchanged beside it, and each completion names its QP. */
static void wc_names_its_qp(void **st)
{
	struct roce_wc wc[2];
	(void)st;

	connect_pair();
	post_recv_to(s[1].qp, NULL, 1, 77, NULL, 0, 4096);
	post_send(0, ROCE_WR_SEND, 55, NULL, 0, 123, 0, 0);
	assert_int_equal(wait_wc(s[0].cq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 55);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_ptr_equal(wc[0].qp, s[0].qp);
	assert_int_equal(wc[0].qp_num, roce_qp_num(s[0].qp));
	assert_int_equal(wait_wc(s[1].cq, wc + 1, 1), 1);
	assert_int_equal(wc[1].wr_id, 77);
	assert_int_equal(wc[1].byte_len, 123);
	assert_ptr_equal(wc[1].qp, s[1].qp);
	assert_int_equal(wc[1].qp_num, roce_qp_num(s[1].qp));
	assert_ptr_equal(roce_qp_context(wc[1].qp), &qp_ctx[1]);
	assert_no_events();
	disconnect_pair();
}

/* ------------------------------------------------------------------ CQ overflow */

static void cq_overflow_errors_cq_and_qp(void **st)
{
	static int small_ctx;
	struct roce_cq *small = roce_create_cq_ctx(s[0].dev, 3, &small_ctx);
	struct roce_async_event ev[8];
	struct roce_dev_counts c0, c1;
	struct roce_wc wc[8];
	(void)st;

	assert_non_null(small);
	assert_false(roce_cq_in_error(small));
	opt_cq[0] = small; /* A's QP completes sends and receives on a 3-entry CQ */
	connect_pair();
	roce_dev_counts(s[0].dev, &c0);
	/* five signalled WRITEs, nobody polls: the fourth completion overflows the CQ */
	for (int i = 0; i < 5; i++)
		post_send(0, ROCE_WR_RDMA_WRITE, 10 + (uint64_t)i, NULL, 0, 64,
			  (uintptr_t)s[1].buf + 65536, s[1].mr->rkey);
	drive_ms(200);
	assert_true(roce_cq_in_error(small));
	assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_RTS); /* the peer knows nothing */
	/* exactly CQ_ERR, then the QP's QP_FATAL, with their contexts */
	assert_int_equal(take_events(s[0].dev, ev, 8), 2);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_CQ_ERR);
	assert_ptr_equal(ev[0].element.cq, small);
	assert_ptr_equal(ev[0].context, &small_ctx);
	assert_int_equal(ev[1].event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev[1].element.qp, s[0].qp);
	assert_ptr_equal(ev[1].context, &qp_ctx[0]);
	assert_no_events();
	/* the two completions the CQ could not take are counted, none silently gone */
	roce_dev_counts(s[0].dev, &c1);
	assert_int_equal(c1.cqe_lost - c0.cqe_lost, 2);
	assert_int_equal(c1.async_raised[ROCE_EVENT_CQ_ERR] - c0.async_raised[ROCE_EVENT_CQ_ERR],
			 1);
	assert_int_equal(
		c1.async_raised[ROCE_EVENT_QP_FATAL] - c0.async_raised[ROCE_EVENT_QP_FATAL], 1);
	/* the CQ gives back the three it holds, in order, then nothing; it takes no more */
	assert_int_equal(roce_poll_cq(small, 8, wc), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wc[i].wr_id, 10 + (uint64_t)i);
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
	}
	assert_int_equal(roce_poll_cq(small, 8, wc), 0);
	memset(wc, 0, sizeof(wc[0]));
	assert_int_equal(roce_cq_push(small, &wc[0]), -EIO);
	assert_int_equal(roce_poll_cq(small, 8, wc), 0);
	disconnect_pair();
	assert_int_equal(roce_destroy_cq(small), 0);
	assert_no_events();
}

/* ------------------------------------------------------------------ QP errors */

static struct roce_async_event hev[16];
static int hev_n;

static void record_event(const struct roce_async_event *ev, void *arg)
{
	assert_ptr_equal(arg, &hev_n);
	if (hev_n < (int)RTE_DIM(hev))
		hev[hev_n++] = *ev;
}

static void qp_fatal_on_remote_access_error(void **st)
{
	struct roce_async_event ev[4];
	struct roce_wc wc;
	(void)st;

	/* B delivers through a handler, A through its queue */
	assert_int_equal(roce_set_async_handler(NULL, record_event, NULL), -EINVAL);
	assert_int_equal(roce_set_async_handler(s[1].dev, record_event, &hev_n), 0);
	hev_n = 0;
	connect_pair();
	post_send(0, ROCE_WR_RDMA_WRITE, 1, NULL, 0, 64, (uintptr_t)s[1].buf,
		  s[1].mr->rkey ^ 0x100); /* another key's index: no such region */
	assert_int_equal(wait_wc(s[0].cq, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
	drive(20); /* B's handler runs at the end of a poll */
	assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	assert_int_equal(take_events(s[0].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_QP_FATAL);
	assert_ptr_equal(ev[0].element.qp, s[0].qp);
	assert_ptr_equal(ev[0].context, &qp_ctx[0]);
	assert_int_equal(hev_n, 1);
	assert_int_equal(hev[0].event_type, ROCE_EVENT_QP_ACCESS_ERR);
	assert_ptr_equal(hev[0].element.qp, s[1].qp);
	assert_ptr_equal(hev[0].context, &qp_ctx[1]);
	assert_no_events();
	disconnect_pair();

	/* a SEND with invalidate of a region that is not fast-registered: invalid request */
	hev_n = 0;
	connect_pair();
	post_recv_to(s[1].qp, NULL, 1, 5, NULL, 0, 4096);
	{
		struct roce_sge sg = {
			.addr = (uintptr_t)s[0].buf, .length = 16, .lkey = s[0].mr->lkey};
		struct roce_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.wr_id = 2;
		w.opcode = ROCE_WR_SEND_WITH_INV;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.invalidate_rkey = s[1].mr->rkey;
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
	}
	assert_int_equal(wait_wc(s[0].cq, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_INV_REQ_ERR);
	drive(20);
	assert_int_equal(take_events(s[0].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_QP_FATAL);
	assert_int_equal(hev_n, 1);
	assert_int_equal(hev[0].event_type, ROCE_EVENT_QP_REQ_ERR);
	assert_ptr_equal(hev[0].element.qp, s[1].qp);
	assert_int_equal(roce_set_async_handler(s[1].dev, NULL, NULL), 0);
	assert_no_events();
	disconnect_pair();
}

/* ------------------------------------------------------------------ SRQ */

static void srq_limit_once_until_rearmed(void **st)
{
	static int srq_ctx;
	struct roce_srq_init_attr si = {
		.max_wr = 16, .max_sge = 1, .srq_limit = 8, .srq_context = &srq_ctx};
	struct roce_srq *srq = roce_create_srq(s[1].pd, &si);
	struct roce_async_event ev[4];
	struct roce_srq_attr sa;
	struct roce_wc wc[2];
	(void)st;

	assert_non_null(srq);
	assert_ptr_equal(roce_srq_context(srq), &srq_ctx);
	assert_int_equal(roce_query_srq(srq, &sa), 0);
	assert_int_equal(sa.max_wr, 16);
	assert_int_equal(sa.srq_limit, 8); /* armed at creation */
	/* what modify refuses */
	sa.srq_limit = 17;
	assert_int_equal(roce_modify_srq(srq, &sa, ROCE_SRQ_LIMIT), -EINVAL);
	assert_int_equal(roce_modify_srq(srq, &sa, ROCE_SRQ_MAX_WR), -EINVAL);
	assert_int_equal(roce_modify_srq(srq, &sa, 1 << 5), -EINVAL);
	assert_int_equal(roce_modify_srq(NULL, &sa, ROCE_SRQ_LIMIT), -EINVAL);
	opt_srq[1] = srq;
	connect_pair();
	for (int i = 0; i < 10; i++)
		post_recv_to(NULL, srq, 1, 1000 + (uint64_t)i, NULL, (uint32_t)i * 1024, 1024);
	/* 10 -> 9 -> 8: not below the limit of 8 */
	for (int i = 0; i < 2; i++) {
		post_send(0, ROCE_WR_SEND, (uint64_t)i, NULL, 0, 32, 0, 0);
		assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
		assert_int_equal(wc[0].wr_id, 1000 + (uint64_t)i);
		assert_ptr_equal(wc[0].qp, s[1].qp);
	}
	assert_no_events();
	/* 8 -> 7: below: one event, and the limit disarms */
	post_send(0, ROCE_WR_SEND, 2, NULL, 0, 32, 0, 0);
	assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
	assert_int_equal(take_events(s[1].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev[0].element.srq, srq);
	assert_ptr_equal(ev[0].context, &srq_ctx);
	assert_int_equal(roce_query_srq(srq, &sa), 0);
	assert_int_equal(sa.srq_limit, 0);
	/* 7 -> 6 -> 5: disarmed, nothing more */
	for (int i = 3; i < 5; i++) {
		post_send(0, ROCE_WR_SEND, (uint64_t)i, NULL, 0, 32, 0, 0);
		assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
	}
	assert_no_events();
	/* re-armed at 4: 5 -> 4 nothing, 4 -> 3 one event */
	sa.srq_limit = 4;
	assert_int_equal(roce_modify_srq(srq, &sa, ROCE_SRQ_LIMIT), 0);
	post_send(0, ROCE_WR_SEND, 5, NULL, 0, 32, 0, 0);
	assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
	assert_no_events();
	post_send(0, ROCE_WR_SEND, 6, NULL, 0, 32, 0, 0);
	assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
	assert_int_equal(take_events(s[1].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev[0].element.srq, srq);
	/* disarmed by the consumer: nothing */
	sa.srq_limit = 3;
	assert_int_equal(roce_modify_srq(srq, &sa, ROCE_SRQ_LIMIT), 0);
	sa.srq_limit = 0;
	assert_int_equal(roce_modify_srq(srq, &sa, ROCE_SRQ_LIMIT), 0);
	post_send(0, ROCE_WR_SEND, 7, NULL, 0, 32, 0, 0);
	assert_int_equal(wait_wc(s[1].cq, wc, 1), 1);
	assert_int_equal(wait_wc(s[0].cq, wc, 1), 1); /* A's eight SENDs are all complete */
	drive(5);
	while (roce_poll_cq(s[0].cq, 2, wc) > 0)
		;
	assert_no_events();
	disconnect_pair();
	assert_int_equal(roce_destroy_srq(srq), 0);
}

static void last_wqe_reached(void **st)
{
	struct roce_srq_init_attr si = {.max_wr = 16, .max_sge = 1};
	struct roce_srq *srq = roce_create_srq(s[1].pd, &si);
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};
	struct roce_async_event ev[4];
	struct roce_wc wc;
	(void)st;

	assert_non_null(srq);
	opt_srq[1] = srq;
	connect_pair();
	for (int i = 0; i < 4; i++)
		post_recv_to(NULL, srq, 1, (uint64_t)i, NULL, (uint32_t)i * 1024, 1024);
	/* the consumer moves B's SRQ QP to ERR: Last WQE Reached, once; ERR again adds none */
	assert_int_equal(roce_modify_qp(s[1].qp, &a, ROCE_QP_STATE), 0);
	assert_int_equal(roce_modify_qp(s[1].qp, &a, ROCE_QP_STATE), 0);
	assert_int_equal(take_events(s[1].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev[0].element.qp, s[1].qp);
	assert_ptr_equal(ev[0].context, &qp_ctx[1]);
	assert_int_equal(roce_poll_cq(s[1].cq, 1, &wc), 0); /* the SRQ's WQEs are not its own */
	assert_no_events();
	disconnect_pair();

	/* the engine fails B's SRQ QP (a WRITE to a bad rkey): its own error first, then Last
	 * WQE Reached */
	opt_srq[1] = srq;
	connect_pair();
	post_send(0, ROCE_WR_RDMA_WRITE, 1, NULL, 0, 64, (uintptr_t)s[1].buf, 0x12345600u);
	assert_int_equal(wait_wc(s[0].cq, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(take_events(s[1].dev, ev, 4), 2);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_QP_ACCESS_ERR);
	assert_int_equal(ev[1].event_type, ROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev[1].element.qp, s[1].qp);
	assert_int_equal(take_events(s[0].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_QP_FATAL);
	assert_no_events();
	disconnect_pair();
	assert_int_equal(roce_destroy_srq(srq), 0);
}

/* ------------------------------------------------------------------ contexts, the queue */

static void contexts_round_trip(void **st)
{
	static int cctx;
	struct roce_cq *cq = roce_create_cq_ctx(s[0].dev, 8, &cctx);
	struct roce_qp_init_attr init;
	struct roce_qp_attr qa;
	(void)st;

	assert_non_null(cq);
	assert_ptr_equal(roce_cq_context(cq), &cctx);
	assert_null(roce_cq_context(s[0].cq)); /* roce_create_cq(): none */
	opt_cq[0] = cq;
	connect_pair();
	for (int k = 0; k < 2; k++) {
		assert_ptr_equal(roce_qp_context(s[k].qp), &qp_ctx[k]);
		assert_int_equal(roce_query_qp(s[k].qp, &qa, &init), 0);
		assert_ptr_equal(init.qp_context, &qp_ctx[k]);
	}
	disconnect_pair();
	assert_int_equal(roce_destroy_cq(cq), 0);
	assert_null(roce_create_cq_ctx(s[0].dev, 0, &cctx));
}

static void event_queue_keeps_oldest(void **st)
{
	struct roce_cq *cq = roce_create_cq(s[0].dev, 8);
	struct roce_dev_counts c0, c1;
	struct roce_async_event ev;
	(void)st;

	assert_non_null(cq);
	assert_int_equal(roce_get_async_event(NULL, &ev), -EINVAL);
	assert_int_equal(roce_get_async_event(s[0].dev, NULL), -EINVAL);
	assert_string_equal(roce_event_type_str(ROCE_EVENT_QP_LAST_WQE_REACHED),
			    "QP_LAST_WQE_REACHED");
	assert_string_equal(roce_event_type_str(ROCE_EVENT_NUM), "?");
	assert_int_equal(roce_event_type_elem(ROCE_EVENT_SRQ_LIMIT_REACHED), ROCE_ELEM_SRQ);
	assert_int_equal(ROCE_EVENT_GID_CHANGE, 18); /* ibv_event_type numbering */
	roce_dev_counts(s[0].dev, &c0);
	/* a full queue keeps the oldest: ROCE_ASYNC_QLEN + 6 raised, the last 6 counted */
	for (unsigned i = 0; i < ROCE_ASYNC_QLEN + 6; i++)
		roce_event_raise(s[0].dev, i % 2 ? ROCE_EVENT_PORT_ERR : ROCE_EVENT_PORT_ACTIVE,
				 NULL);
	roce_dev_counts(s[0].dev, &c1);
	assert_int_equal(c1.async_dropped - c0.async_dropped, 6);
	assert_int_equal(c1.async_raised[ROCE_EVENT_PORT_ACTIVE] -
				 c0.async_raised[ROCE_EVENT_PORT_ACTIVE],
			 ROCE_ASYNC_QLEN / 2 + 3);
	for (unsigned i = 0; i < ROCE_ASYNC_QLEN; i++) {
		assert_int_equal(roce_get_async_event(s[0].dev, &ev), 0);
		assert_int_equal(ev.event_type,
				 i % 2 ? ROCE_EVENT_PORT_ERR : ROCE_EVENT_PORT_ACTIVE);
		assert_int_equal(ev.element.port_num, 1);
		assert_null(ev.context);
	}
	assert_int_equal(roce_get_async_event(s[0].dev, &ev), -EAGAIN);
	/* destroying an object removes its queued events; the others stay, in order */
	roce_event_raise(s[0].dev, ROCE_EVENT_PORT_ERR, NULL);
	roce_event_raise(s[0].dev, ROCE_EVENT_CQ_ERR, cq);
	roce_event_raise(s[0].dev, ROCE_EVENT_PORT_ACTIVE, NULL);
	roce_event_raise(s[0].dev, ROCE_EVENT_CQ_ERR, cq);
	assert_int_equal(roce_destroy_cq(cq), 0);
	roce_dev_counts(s[0].dev, &c0);
	assert_int_equal(c0.async_purged - c1.async_purged, 2);
	assert_int_equal(roce_get_async_event(s[0].dev, &ev), 0);
	assert_int_equal(ev.event_type, ROCE_EVENT_PORT_ERR);
	assert_int_equal(roce_get_async_event(s[0].dev, &ev), 0);
	assert_int_equal(ev.event_type, ROCE_EVENT_PORT_ACTIVE);
	assert_int_equal(roce_get_async_event(s[0].dev, &ev), -EAGAIN);
}

/* ------------------------------------------------------------------ port and device */

static void port_events_from_link(void **st)
{
	struct roce_async_event ev[4];
	(void)st;

	drive_ms(150); /* the first reading of the link raises nothing */
	assert_no_events();
	assert_int_equal(rte_eth_dev_set_link_down(port[0]), 0);
	drive_ms(250);
	assert_int_equal(take_events(s[0].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_PORT_ERR);
	assert_int_equal(ev[0].element.port_num, 1);
	assert_int_equal(rte_eth_dev_set_link_up(port[0]), 0);
	drive_ms(250);
	assert_int_equal(take_events(s[0].dev, ev, 4), 1);
	assert_int_equal(ev[0].event_type, ROCE_EVENT_PORT_ACTIVE);
	assert_no_events(); /* B's port never changed */
}

static void device_fatal_when_port_gone(void **st)
{
	struct roce_pd *pd = roce_alloc_pd(dev_c);
	struct roce_cq *cq = roce_create_cq(dev_c, 8);
	struct roce_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = ROCE_QPT_RC};
	struct roce_qp_attr a;
	struct roce_async_event ev;
	struct roce_qp *qp;
	(void)st;

	assert_non_null(pd);
	assert_non_null(cq);
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	qp = roce_create_qp(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						ROCE_QP_ACCESS_FLAGS),
			 0);
	roce_poll(lc, dev_c); /* the link is read: up, no event */
	assert_int_equal(roce_get_async_event(dev_c, &ev), -EAGAIN);
	/* the port is detached (hot unplug) */
	assert_int_equal(rte_eth_dev_stop(port[2]), 0);
	assert_int_equal(rte_eth_dev_close(port[2]), 0);
	assert_false(rte_eth_dev_is_valid_port(port[2]));
	for (int i = 0; i < 3; i++) {
		drive_ms(120);
		roce_poll(lc, dev_c);
	}
	assert_int_equal(roce_get_async_event(dev_c, &ev), 0);
	assert_int_equal(ev.event_type, ROCE_EVENT_DEVICE_FATAL);
	assert_int_equal(roce_get_async_event(dev_c, &ev), -EAGAIN); /* once */
	assert_int_equal(roce_qp_state(qp), ROCE_QPS_ERR);
	assert_int_equal(roce_destroy_qp(qp), 0);
	assert_int_equal(roce_destroy_cq(cq), 0);
	assert_int_equal(roce_dealloc_pd(pd), 0);
}

/* ------------------------------------------------------------------ fixture */

static int group_setup(void **st)
{
	struct rte_ring *r[4];
	struct stk_neigh_params np;
	(void)st;

	r[0] = rte_ring_create("ce_r0", 1024, 0, 0);
	r[1] = rte_ring_create("ce_r1", 1024, 0, 0);
	r[2] = rte_ring_create("ce_r2", 64, 0, 0);
	r[3] = rte_ring_create("ce_r3", 64, 0, 0);
	if (!r[0] || !r[1] || !r[2] || !r[3])
		return -1;
	for (int k = 0; k < 3; k++) {
		int p = ut_ring_port(k == 0   ? "ce_a"
				     : k == 1 ? "ce_b"
					      : "ce_c",
				     k < 2 ? r[k] : r[2], k < 2 ? r[!k] : r[3], ut_pool());
		struct stk_iface ifc;

		if (p < 0)
			return -1;
		port[k] = (uint16_t)p;
		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "ce%d", k);
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x78, (uint8_t)(1 + k)}};
		if (k < 2) {
			stk_ipaddr_parse(k ? "10.78.0.2" : "10.78.0.1", &ifc.ip4);
			ifc.ip4_prefix = 24;
		}
		ifc.mtu = 1500;
		ifc.nb_rxq = ifc.nb_txq = 1;
		if (stk_iface_add(&ifc) != k)
			return -1;
	}
	stk_neigh_params_default(&np);
	lc = stk_lcore_create(rte_lcore_id(), 0, true, ut_pool(), &np);
	if (!lc)
		return -1;
	for (int k = 0; k < 2; k++) {
		lc->rxq[k].iface = (uint16_t)k;
		lc->rxq[k].port_id = port[k];
		lc->rxq[k].queue = 0;
		s[k].dev = roce_dev_open((uint16_t)k);
		s[k].pd = s[k].dev ? roce_alloc_pd(s[k].dev) : NULL;
		s[k].cq = s[k].dev ? roce_create_cq(s[k].dev, 256) : NULL;
		s[k].buf = rte_zmalloc("ce_buf", BUF, 64);
		if (!s[k].pd || !s[k].cq || !s[k].buf)
			return -1;
		s[k].mr = roce_reg_mr(s[k].pd, s[k].buf, BUF, (uintptr_t)s[k].buf,
				      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					      ROCE_ACCESS_REMOTE_READ);
		if (!s[k].mr)
			return -1;
		stk_lcore_add_poll(lc, roce_poll, s[k].dev);
	}
	lc->nb_rxq = 2;
	/* C has no lcore queue and no address: only its link is watched */
	dev_c = roce_dev_open(2);
	if (!dev_c)
		return -1;
	base_in_use = ut_in_use();
	return 0;
}

static int group_teardown(void **st)
{
	struct roce_dev_counts c;
	(void)st;
	drive(100);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(roce_dereg_mr(s[k].mr), 0);
		assert_int_equal(roce_destroy_cq(s[k].cq), 0);
		assert_int_equal(roce_dealloc_pd(s[k].pd), 0);
		roce_dev_counts(s[k].dev, &c);
		assert_int_equal(c.pds + c.mrs + c.cqs + c.srqs + c.qps, 0);
		assert_int_equal(roce_dev_close(s[k].dev), 0);
		rte_free(s[k].buf);
	}
	roce_dev_counts(dev_c, &c);
	assert_int_equal(c.pds + c.mrs + c.cqs + c.srqs + c.qps, 0);
	assert_int_equal(roce_dev_close(dev_c), 0);
	stk_lcore_destroy(lc);
	assert_int_equal(ut_in_use(), base_in_use);
	stk_iface_reset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(done_callbacks_in_order),
		cmocka_unit_test(wc_names_its_qp),
		cmocka_unit_test(cq_overflow_errors_cq_and_qp),
		cmocka_unit_test(qp_fatal_on_remote_access_error),
		cmocka_unit_test(srq_limit_once_until_rearmed),
		cmocka_unit_test(last_wqe_reached),
		cmocka_unit_test(contexts_round_trip),
		cmocka_unit_test(event_queue_keeps_oldest),
		cmocka_unit_test(port_events_from_link),
		cmocka_unit_test(device_fatal_when_port_gone),
	};
	int rc;

	if (ut_eal_init("test_cq_events", "0") != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	ut_eal_fini();
	return rc;
}
