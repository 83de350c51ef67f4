/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_verbs.c - the verbs objects: device, PD, MR keys (byte-exact bounds, rights, PD,
 * stale keys, fast registration), CQ, the IBA QP state machine (required and optional
 * attributes per transition, value ranges), posting with every post-time check, flushing on
 * entry to ERR, SRQs, and that every object is released at the end.
 * Expected values come from the IBA spec and libibverbs' numbering, not from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "roce_int.h" /* roce_lane_enter(): what a poll does first */
#include "roce_verbs.h"
#include "stk_stack.h"
#include "ut_common.h"

static struct roce_dev *dev;
static struct roce_pd *pd;
static struct roce_cq *scq, *rcq;
static uint8_t buf[8192] __attribute__((aligned(64)));

static int setup(void **s)
{
	(void)s;
	dev = roce_dev_open(0);
	pd = dev ? roce_alloc_pd(dev) : NULL;
	scq = dev ? roce_create_cq(dev, 64) : NULL;
	rcq = dev ? roce_create_cq(dev, 64) : NULL;
	return dev && pd && scq && rcq ? 0 : -1;
}

static int teardown(void **s)
{
	struct roce_dev_counts c;
	(void)s;

	assert_int_equal(roce_destroy_cq(scq), 0);
	assert_int_equal(roce_destroy_cq(rcq), 0);
	assert_int_equal(roce_dealloc_pd(pd), 0);
	roce_dev_counts(dev, &c);
	assert_int_equal(c.pds + c.mrs + c.cqs + c.srqs + c.qps, 0);
	assert_int_equal(roce_dev_close(dev), 0);
	return 0;
}

static void wc_status_values(void **s)
{
	(void)s;
	/* libibverbs numbering */
	assert_int_equal(ROCE_WC_WR_FLUSH_ERR, 5);
	assert_int_equal(ROCE_WC_REM_ACCESS_ERR, 10);
	assert_int_equal(ROCE_WC_RETRY_EXC_ERR, 12);
	assert_int_equal(ROCE_WC_RNR_RETRY_EXC_ERR, 13);
	assert_string_equal(roce_wc_status_str(ROCE_WC_REM_INV_REQ_ERR), "REM_INV_REQ_ERR");
	assert_string_equal(roce_wc_status_str((enum roce_wc_status)99), "?");
	assert_int_equal(roce_mtu_bytes(ROCE_MTU_256), 256);
	assert_int_equal(roce_mtu_bytes(ROCE_MTU_4096), 4096);
	assert_int_equal(roce_mtu_bytes((enum roce_mtu)6), 0);
}

static void mr_register(void **s)
{
	struct roce_mr *mr;
	(void)s;

	assert_null(roce_reg_mr(pd, buf, 0, 0, ROCE_ACCESS_LOCAL_WRITE));
	assert_int_equal(rte_errno, EINVAL);
	/* remote write needs local write (IBA 10.6.3.1) */
	assert_null(roce_reg_mr(pd, buf, 64, 0, ROCE_ACCESS_REMOTE_WRITE));
	assert_null(roce_reg_mr(pd, buf, 64, 0, ROCE_ACCESS_REMOTE_ATOMIC));
	assert_null(roce_reg_mr(pd, buf, 64, 0, 0x100));
	assert_null(roce_reg_mr(pd, buf, 64, UINT64_MAX - 10, ROCE_ACCESS_REMOTE_READ));
	mr = roce_reg_mr(pd, buf, 64, 0, ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	assert_int_equal(mr->lkey, mr->rkey);
	assert_int_equal(roce_dealloc_pd(pd), -EBUSY);
	assert_int_equal(roce_dev_close(dev), -EBUSY);
	assert_int_equal(roce_dereg_mr(mr), 0);
}

static void mr_bounds_and_rights(void **s)
{
	const uint64_t iova = 0x7f0000001000ull;
	struct roce_mr *mr = roce_reg_mr(pd, buf + 100, 1000, iova,
					 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	struct roce_pd *other = roce_alloc_pd(dev);
	enum roce_key_err why;
	uint32_t rkey;
	(void)s;

	assert_non_null(mr);
	rkey = mr->rkey;
	/* the whole region, byte-exact */
	assert_ptr_equal(
		roce_mr_lookup(dev, rkey, true, pd, iova, 1000, ROCE_ACCESS_REMOTE_WRITE, &why),
		mr);
	assert_ptr_equal(
		roce_mr_lookup(dev, rkey, true, pd, iova + 999, 1, ROCE_ACCESS_REMOTE_WRITE, &why),
		mr);
	assert_null(
		roce_mr_lookup(dev, rkey, true, pd, iova, 1001, ROCE_ACCESS_REMOTE_WRITE, &why));
	assert_int_equal(why, ROCE_KEY_BOUNDS);
	assert_null(roce_mr_lookup(dev, rkey, true, pd, iova + 1000, 1, ROCE_ACCESS_REMOTE_WRITE,
				   &why));
	assert_int_equal(why, ROCE_KEY_BOUNDS);
	assert_null(
		roce_mr_lookup(dev, rkey, true, pd, iova - 1, 2, ROCE_ACCESS_REMOTE_WRITE, &why));
	assert_int_equal(why, ROCE_KEY_BOUNDS);
	/* a length that would wrap the address space */
	assert_null(roce_mr_lookup(dev, rkey, true, pd, iova + 10, UINT64_MAX - 5,
				   ROCE_ACCESS_REMOTE_WRITE, &why));
	assert_int_equal(why, ROCE_KEY_BOUNDS);
	/* rights, PD, key */
	assert_null(roce_mr_lookup(dev, rkey, true, pd, iova, 8, ROCE_ACCESS_REMOTE_READ, &why));
	assert_int_equal(why, ROCE_KEY_ACCESS);
	assert_null(
		roce_mr_lookup(dev, rkey, true, other, iova, 8, ROCE_ACCESS_REMOTE_WRITE, &why));
	assert_int_equal(why, ROCE_KEY_PD);
	assert_null(
		roce_mr_lookup(dev, rkey ^ 1, true, pd, iova, 8, ROCE_ACCESS_REMOTE_WRITE, &why));
	assert_int_equal(why, ROCE_KEY_UNKNOWN);
	assert_null(roce_mr_lookup(dev, 0, true, pd, iova, 8, 0, &why));
	assert_int_equal(why, ROCE_KEY_UNKNOWN);
	/* lkeys address our memory */
	assert_ptr_equal(roce_mr_lookup(dev, mr->lkey, false, pd, (uintptr_t)(buf + 100), 1000,
					ROCE_ACCESS_LOCAL_WRITE, &why),
			 mr);
	assert_null(roce_mr_lookup(dev, mr->lkey, false, pd, (uintptr_t)(buf + 99), 8, 0, &why));
	/* a key of a freed region does not name its successor in the same slot */
	assert_int_equal(roce_dereg_mr(mr), 0);
	assert_null(roce_mr_lookup(dev, rkey, true, pd, iova, 8, 0, &why));
	assert_int_equal(why, ROCE_KEY_UNKNOWN);
	assert_int_equal(roce_dealloc_pd(other), 0);
}

static void mr_fast_reg(void **s)
{
	struct roce_mr *fr = roce_alloc_mr(pd, 4096);
	struct roce_mr *plain = roce_reg_mr(pd, buf, 64, 0, ROCE_ACCESS_REMOTE_READ);
	enum roce_key_err why;
	(void)s;

	assert_non_null(fr);
	assert_true(fr->fast_reg);
	assert_null(roce_mr_lookup(dev, fr->rkey, true, pd, 0, 8, 0, &why));
	assert_int_equal(why, ROCE_KEY_STATE);
	/* only fast-registered regions may be invalidated (IBA 10.6.3.5) */
	assert_int_equal(roce_mr_invalidate(dev, plain->rkey, pd, false), -EINVAL);
	assert_int_equal(roce_mr_invalidate(dev, fr->rkey ^ 0x1, pd, false), -EINVAL);
	assert_int_equal(roce_mr_invalidate(dev, fr->rkey, pd, false), 0);
	assert_int_equal(fr->state, ROCE_MR_INVALID);
	assert_int_equal(roce_dereg_mr(fr), 0);
	assert_int_equal(roce_dereg_mr(plain), 0);
}

static void cq_ring(void **s)
{
	struct roce_cq *cq;
	struct roce_wc wc[8], w;
	(void)s;

	assert_null(roce_create_cq(dev, 0));
	assert_null(roce_create_cq(dev, ROCE_MAX_CQE + 1));
	cq = roce_create_cq(dev, 3);
	assert_non_null(cq);
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 3; i++) {
		w.wr_id = 100 + (uint64_t)i;
		assert_int_equal(roce_cq_push(cq, &w), 0);
	}
	w.wr_id = 999;
	assert_false(roce_cq_in_error(cq));
	assert_int_equal(roce_cq_push(cq, &w), -ENOSPC); /* 3 asked, 3 granted */
	/* the overflow put the CQ in error (IBA 10.10.2.3): it takes nothing more, says so once */
	assert_true(roce_cq_in_error(cq));
	assert_int_equal(roce_cq_push(cq, &w), -EIO);
	{
		struct roce_async_event ev;

		assert_int_equal(roce_get_async_event(dev, &ev), 0);
		assert_int_equal(ev.event_type, ROCE_EVENT_CQ_ERR);
		assert_ptr_equal(ev.element.cq, cq);
		assert_int_equal(roce_get_async_event(dev, &ev), -EAGAIN);
	}
	assert_int_equal(roce_poll_cq(cq, 2, wc), 2);
	assert_true(wc[0].wr_id == 100 && wc[1].wr_id == 101);
	assert_int_equal(roce_poll_cq(cq, 8, wc), 1);
	assert_true(wc[0].wr_id == 102);
	assert_int_equal(roce_poll_cq(cq, 8, wc), 0);
	assert_int_equal(roce_poll_cq(cq, -1, wc), -EINVAL);
	assert_int_equal(roce_destroy_cq(cq), 0);
}

static struct roce_qp *mk_qp(enum roce_qp_type t, uint32_t sq, uint32_t rq)
{
	struct roce_qp_init_attr ia = {.send_cq = scq, .recv_cq = rcq, .qp_type = t};

	ia.cap.max_send_wr = sq;
	ia.cap.max_recv_wr = rq;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 64;
	return roce_create_qp(pd, &ia);
}

static void rc_to_rts(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						ROCE_QP_ACCESS_FLAGS),
			 0);
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = ROCE_MTU_1024;
	a.dest_qp_num = 0x22;
	a.rq_psn = 0x123456;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	stk_ipaddr_parse("10.99.0.3", &a.ah_attr.dgid_ip);
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
						ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
						ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER),
			 0);
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = 0xfffffe;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
						ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
						ROCE_QP_MAX_QP_RD_ATOMIC),
			 0);
}

static void qp_state_machine(void **s)
{
	struct roce_qp *qp = mk_qp(ROCE_QPT_RC, 8, 8);
	struct roce_qp_attr a, q;
	const int init_mask =
		ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS;
	const int rtr_mask = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	(void)s;

	assert_non_null(qp);
	assert_true(roce_qp_num(qp) >= 0x11);
	assert_int_equal(roce_qp_state(qp), ROCE_QPS_RESET);
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	/* RESET -> RTS and RESET -> RTR skip states */
	a.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), -EINVAL);
	a.qp_state = ROCE_QPS_INIT;
	/* RC RESET->INIT requires PKEY_INDEX, PORT and ACCESS_FLAGS */
	assert_int_equal(roce_modify_qp(qp, &a, init_mask & ~ROCE_QP_ACCESS_FLAGS), -EINVAL);
	/* QKEY is not an RC attribute */
	assert_int_equal(roce_modify_qp(qp, &a, init_mask | ROCE_QP_QKEY), -EINVAL);
	a.port_num = 2;
	assert_int_equal(roce_modify_qp(qp, &a, init_mask), -EINVAL);
	a.port_num = 1;
	a.cur_qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, init_mask | ROCE_QP_CUR_STATE), -EINVAL);
	assert_int_equal(roce_modify_qp(qp, &a, init_mask), 0);
	assert_int_equal(roce_qp_state(qp), ROCE_QPS_INIT);
	/* INIT -> RTR: every required attribute, sane values */
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = ROCE_MTU_1024;
	a.dest_qp_num = 0x22;
	a.min_rnr_timer = 12;
	stk_ipaddr_parse("10.99.0.3", &a.ah_attr.dgid_ip);
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask & ~ROCE_QP_MIN_RNR_TIMER), -EINVAL);
	a.path_mtu = ROCE_MTU_4096; /* does not fit a 1500-byte Ethernet MTU */
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), -EINVAL);
	a.path_mtu = ROCE_MTU_1024;
	a.rq_psn = 0x1000000;
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), -EINVAL);
	a.rq_psn = 7;
	a.min_rnr_timer = 32;
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), -EINVAL);
	a.min_rnr_timer = 12;
	a.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC + 1;
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), -EINVAL);
	a.max_dest_rd_atomic = 4;
	a.ah_attr.dgid_ip.family = 0;
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), -EINVAL);
	stk_ipaddr_parse("10.99.0.3", &a.ah_attr.dgid_ip);
	assert_int_equal(roce_modify_qp(qp, &a, rtr_mask), 0);
	/* RTR -> RTS: RQ_PSN is not allowed here; timeout / retry ranges */
	a.qp_state = ROCE_QPS_RTS;
	a.timeout = 32;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 2;
	a.sq_psn = 0xabcdef;
	{
		const int rts_mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
				     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				     ROCE_QP_MAX_QP_RD_ATOMIC;

		assert_int_equal(roce_modify_qp(qp, &a, rts_mask), -EINVAL);
		a.timeout = 14;
		a.retry_cnt = 8;
		assert_int_equal(roce_modify_qp(qp, &a, rts_mask), -EINVAL);
		a.retry_cnt = 7;
		assert_int_equal(roce_modify_qp(qp, &a, rts_mask | ROCE_QP_RQ_PSN), -EINVAL);
		assert_int_equal(roce_modify_qp(qp, &a, rts_mask), 0);
	}
	assert_int_equal(roce_query_qp(qp, &q, NULL), 0);
	assert_int_equal(q.qp_state, ROCE_QPS_RTS);
	assert_int_equal(q.sq_psn, 0xabcdef);
	assert_int_equal(q.rq_psn, 7);
	assert_int_equal(q.dest_qp_num, 0x22);
	assert_int_equal(q.path_mtu, ROCE_MTU_1024);
	assert_int_equal(q.min_rnr_timer, 12);
	assert_int_equal(q.timeout, 14);
	/* RTS -> RTS with an optional attribute; RTS -> INIT is not a transition */
	a.min_rnr_timer = 5;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_MIN_RNR_TIMER), 0);
	a.qp_state = ROCE_QPS_INIT;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), -EINVAL);
	/* RTS -> SQD -> RTS, then any -> ERR, ERR -> RTS no, ERR -> RESET yes */
	a.qp_state = ROCE_QPS_SQD;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	a.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	a.qp_state = ROCE_QPS_ERR;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	a.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), -EINVAL);
	a.qp_state = ROCE_QPS_RESET;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	/* alternate paths are not supported */
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_ALT_PATH), -EINVAL);
	assert_int_equal(roce_destroy_cq(scq), -EBUSY);
	assert_int_equal(roce_destroy_qp(qp), 0);
}

static void ud_state_machine(void **s)
{
	struct roce_qp *qp = mk_qp(ROCE_QPT_UD, 4, 4);
	struct roce_qp_attr a;
	(void)s;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	/* UD RESET->INIT requires QKEY, and access flags are not a UD attribute */
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT),
			 -EINVAL);
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						ROCE_QP_QKEY | ROCE_QP_ACCESS_FLAGS),
			 -EINVAL);
	assert_int_equal(
		roce_modify_qp(qp, &a,
			       ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT | ROCE_QP_QKEY),
		0);
	a.qp_state = ROCE_QPS_RTR; /* UD needs nothing to reach RTR */
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	a.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), -EINVAL); /* SQ_PSN required */
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	assert_int_equal(roce_destroy_qp(qp), 0);
}

static void post_checks(void **s)
{
	struct roce_qp *qp = mk_qp(ROCE_QPT_RC, 4, 4);
	struct roce_mr *mr = roce_reg_mr(pd, buf, 4096, 0, ROCE_ACCESS_LOCAL_WRITE);
	struct roce_mr *ro = roce_reg_mr(pd, buf + 4096, 1024, 0, 0); /* no local write */
	struct roce_sge sg = {.addr = (uintptr_t)buf, .length = 4096, .lkey = mr->lkey};
	struct roce_sge over = {.addr = (uintptr_t)buf + 1, .length = 4096, .lkey = mr->lkey};
	struct roce_sge bad = {.addr = (uintptr_t)buf, .length = 16, .lkey = 0xdead00};
	struct roce_sge ro_sg = {.addr = (uintptr_t)buf + 4096, .length = 8, .lkey = ro->lkey};
	struct roce_sge big[5] = {sg, sg, sg, sg, sg};
	struct roce_send_wr w[3], *badwr;
	struct roce_recv_wr r = {0}, *badr;
	(void)s;

	memset(w, 0, sizeof(w));
	w[0].opcode = ROCE_WR_SEND;
	w[0].sg_list = &sg;
	w[0].num_sge = 1;
	/* not before RTS */
	assert_int_equal(roce_post_send(qp, &w[0], &badwr), -EINVAL);
	assert_ptr_equal(badwr, &w[0]);
	memset(&r, 0, sizeof(r));
	r.sg_list = &sg;
	r.num_sge = 1;
	assert_int_equal(roce_post_recv(qp, &r, &badr), -EINVAL); /* RESET */
	rc_to_rts(qp);
	/* a chain whose second WR has an unknown lkey: the first stays queued */
	w[0].wr_id = 1;
	w[0].next = &w[1];
	w[1] = w[0];
	w[1].wr_id = 2;
	w[1].next = NULL;
	w[1].sg_list = &bad;
	assert_int_equal(roce_post_send(qp, &w[0], &badwr), -EINVAL);
	assert_ptr_equal(badwr, &w[1]);
	/* one byte beyond the region */
	w[1].sg_list = &over;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	/* too many SGEs (4 granted) */
	w[1].sg_list = big;
	w[1].num_sge = 5;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	w[1].num_sge = 1;
	w[1].sg_list = &sg;
	/* inline beyond max_inline_data (64) */
	w[1].send_flags = ROCE_SEND_INLINE;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	/* unknown flag */
	w[1].send_flags = 1u << 7;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	w[1].send_flags = 0;
	/* atomics: 8-byte aligned target, one 8-byte SGE */
	w[1].opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	w[1].wr.atomic.remote_addr = 0x1004;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	w[1].wr.atomic.remote_addr = 0x1000;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL); /* SGE is 4096 bytes */
	/* READ into memory without local write */
	w[1].opcode = ROCE_WR_RDMA_READ;
	w[1].sg_list = &ro_sg;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	/* unknown opcode */
	w[1].opcode = (enum roce_wr_opcode)77;
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -EINVAL);
	/* fill the send queue: 1 queued already, 3 more fit, the 5th is -ENOMEM */
	w[1].opcode = ROCE_WR_RDMA_WRITE;
	w[1].sg_list = &sg;
	for (int i = 0; i < 3; i++)
		assert_int_equal(roce_post_send(qp, &w[1], &badwr), 0);
	assert_int_equal(roce_post_send(qp, &w[1], &badwr), -ENOMEM);
	/* receives: local write required */
	r.sg_list = &ro_sg;
	assert_int_equal(roce_post_recv(qp, &r, &badr), -EINVAL);
	r.sg_list = &sg;
	assert_int_equal(roce_post_recv(qp, &r, &badr), 0);
	assert_int_equal(roce_destroy_qp(qp), 0);
	assert_int_equal(roce_dereg_mr(mr), 0);
	assert_int_equal(roce_dereg_mr(ro), 0);
}

static void ud_rejects_rdma(void **s)
{
	struct roce_qp *qp = mk_qp(ROCE_QPT_UD, 4, 4);
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_INIT, .port_num = 1, .qkey = 1};
	struct roce_send_wr w, *badwr;
	(void)s;

	assert_int_equal(
		roce_modify_qp(qp, &a,
			       ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT | ROCE_QP_QKEY),
		0);
	a.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	a.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_RDMA_WRITE;
	assert_int_equal(roce_post_send(qp, &w, &badwr), -EINVAL);
	w.opcode = ROCE_WR_RDMA_READ;
	assert_int_equal(roce_post_send(qp, &w, &badwr), -EINVAL);
	w.opcode = ROCE_WR_SEND;
	/* a datagram needs an address handle */
	assert_int_equal(roce_post_send(qp, &w, &badwr), -EINVAL);
	{
		struct roce_path path;
		struct roce_ah *ah;

		memset(&path, 0, sizeof(path));
		assert_null(roce_create_ah(pd, &path)); /* no destination */
		stk_ipaddr_parse("10.99.0.3", &path.dgid_ip);
		ah = roce_create_ah(pd, &path);
		assert_non_null(ah);
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = 0x1000000; /* 25 bits */
		assert_int_equal(roce_post_send(qp, &w, &badwr), -EINVAL);
		w.wr.ud.remote_qpn = 0x1b;
		assert_int_equal(roce_post_send(qp, &w, &badwr), 0); /* a zero-length datagram */
		assert_int_equal(roce_destroy_qp(qp), 0);
		assert_int_equal(roce_destroy_ah(ah), 0);
	}
}

static void error_state_flushes(void **s)
{
	struct roce_qp *qp = mk_qp(ROCE_QPT_RC, 8, 8);
	struct roce_mr *mr = roce_reg_mr(pd, buf, 4096, 0, ROCE_ACCESS_LOCAL_WRITE);
	struct roce_sge sg = {.addr = (uintptr_t)buf, .length = 100, .lkey = mr->lkey};
	struct roce_send_wr w, *badwr;
	struct roce_recv_wr r = {0}, *badr;
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};
	struct roce_wc wc[16];
	int n;
	(void)s;

	rc_to_rts(qp);
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_SEND;
	w.sg_list = &sg;
	w.num_sge = 1;
	for (uint64_t i = 0; i < 3; i++) {
		w.wr_id = 10 + i;
		assert_int_equal(roce_post_send(qp, &w, &badwr), 0);
	}
	memset(&r, 0, sizeof(r));
	r.sg_list = &sg;
	r.num_sge = 1;
	for (uint64_t i = 0; i < 2; i++) {
		r.wr_id = 20 + i;
		assert_int_equal(roce_post_recv(qp, &r, &badr), 0);
	}
	assert_int_equal(roce_poll_cq(scq, 16, wc), 0); /* nothing runs them yet */
	assert_int_equal(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	n = roce_poll_cq(scq, 16, wc);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_WR_FLUSH_ERR);
		assert_true(wc[i].wr_id == 10 + (uint64_t)i);
		assert_int_equal(wc[i].qp_num, roce_qp_num(qp));
	}
	n = roce_poll_cq(rcq, 16, wc);
	assert_int_equal(n, 2);
	assert_true(wc[0].wr_id == 20 && wc[1].wr_id == 21);
	assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	/* in ERR, a posted WR completes at once with a flush error */
	w.wr_id = 77;
	assert_int_equal(roce_post_send(qp, &w, &badwr), 0);
	assert_int_equal(roce_poll_cq(scq, 16, wc), 1);
	assert_true(wc[0].wr_id == 77 && wc[0].status == ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(roce_destroy_qp(qp), 0);
	assert_int_equal(roce_dereg_mr(mr), 0);
}

static void srq_basics(void **s)
{
	struct roce_srq_init_attr si = {.max_wr = 2, .max_sge = 1};
	struct roce_srq *srq = roce_create_srq(pd, &si);
	struct roce_mr *mr = roce_reg_mr(pd, buf, 4096, 0, ROCE_ACCESS_LOCAL_WRITE);
	struct roce_sge sg = {.addr = (uintptr_t)buf, .length = 100, .lkey = mr->lkey};
	struct roce_recv_wr r = {.sg_list = &sg, .num_sge = 1}, *badr;
	struct roce_qp_init_attr ia = {.send_cq = scq, .srq = srq, .qp_type = ROCE_QPT_RC};
	struct roce_qp *qp;
	(void)s;

	assert_non_null(srq);
	si.srq_limit = 3;
	assert_null(roce_create_srq(pd, &si)); /* limit above max_wr */
	ia.cap.max_send_wr = 4;
	qp = roce_create_qp(pd, &ia);
	assert_non_null(qp);
	assert_int_equal(roce_post_recv(qp, &r, &badr), -EINVAL); /* its receives go to the SRQ */
	assert_int_equal(roce_post_srq_recv(srq, &r, &badr), 0);
	assert_int_equal(roce_post_srq_recv(srq, &r, &badr), 0);
	assert_int_equal(roce_post_srq_recv(srq, &r, &badr), -ENOMEM);
	assert_int_equal(roce_destroy_srq(srq), -EBUSY);
	assert_int_equal(roce_destroy_qp(qp), 0);
	assert_int_equal(roce_destroy_srq(srq), 0);
	assert_int_equal(roce_dereg_mr(mr), 0);
}

/*
 * roce_dev_release_lcores(): a device claimed by the first lcore that polled it is given up
 * once its QPs are gone, so another lcore may claim it (rc-bench moves its devices from one
 * lcore to two between placements), and roce_dev_set_lcores() works again.
 */
static void release_lcores(void **s)
{
	unsigned zero = 0;
	struct roce_qp *qp;
	(void)s;

	assert_non_null(roce_lane_enter(dev, 0)); /* the first poller claims it */
	assert_null(roce_lane_enter(dev, 5));	  /* another lcore: nothing to run */
	assert_int_equal(roce_dev_set_lcores(dev, &zero, 1), -EBUSY);
	qp = mk_qp(ROCE_QPT_RC, 4, 4);
	assert_int_equal(roce_dev_release_lcores(dev), -EBUSY); /* a QP remains */
	assert_int_equal(roce_destroy_qp(qp), 0);
	assert_int_equal(roce_dev_release_lcores(dev), 0);
	assert_non_null(roce_lane_enter(dev, 5)); /* now lcore 5 claims it */
	assert_null(roce_lane_enter(dev, 0));
	assert_int_equal(roce_dev_release_lcores(dev), 0);
	assert_int_equal(roce_dev_set_lcores(dev, &zero, 1), 0);
	assert_int_equal(roce_dev_release_lcores(dev), 0);
	assert_int_equal(roce_dev_release_lcores(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wc_status_values),
		cmocka_unit_test(mr_register),
		cmocka_unit_test(mr_bounds_and_rights),
		cmocka_unit_test(mr_fast_reg),
		cmocka_unit_test(cq_ring),
		cmocka_unit_test(qp_state_machine),
		cmocka_unit_test(ud_state_machine),
		cmocka_unit_test(post_checks),
		cmocka_unit_test(ud_rejects_rdma),
		cmocka_unit_test(error_state_flushes),
		cmocka_unit_test(srq_basics),
		cmocka_unit_test(release_lcores),
	};
	struct stk_iface ifc;
	int rc;

	if (ut_eal_init("test_verbs", "0") != 0)
		return 1;
	memset(&ifc, 0, sizeof(ifc));
	ifc.mtu = 1500;
	ifc.exc_port_id = STK_NO_PORT;
	stk_ipaddr_parse("10.99.0.2", &ifc.ip4);
	stk_iface_add(&ifc);
	rc = cmocka_run_group_tests(tests, setup, teardown);
	stk_iface_reset();
	ut_eal_fini();
	return rc;
}
