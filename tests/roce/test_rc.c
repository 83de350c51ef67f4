/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc.c - two RC QPs back to back over net_ring in one process: two stack interfaces
 * whose ring ports are crossed (A's TX ring is B's RX ring), one lcore running the stack and
 * both transport devices. Every data opcode at several sizes and path MTUs, byte for byte;
 * atomics; and the error paths that must end in the exact completion status: bad rkey
 * (REM_ACCESS_ERR), out of bounds, missing right, RNR with rnr_retry 0 (RNR_RETRY_EXC_ERR)
 * and with infinite retry (success once a receive is posted). Teardown checks that the
 * mempool and every verbs object are back to empty.
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
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_dcqcn.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_int.h" /* the responder's outcome counters */
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "ut_common.h"

#define BUF (34u << 20) /* a 16 MiB source, and a 16 MiB target from 17 MiB */

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static uint16_t port[2];
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

static void drive(unsigned iters)
{
	for (unsigned i = 0; i < iters; i++)
		stk_lcore_poll(lc);
}

/* Poll until @n completions arrive on side @k's CQ (bounded: 30 s). */
static int wait_wc(int k, struct roce_wc *wc, int n)
{
	uint64_t end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	int got = 0;

	while (got < n && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		got += roce_poll_cq(s[k].cq, n - got, wc + got);
	}
	return got;
}

/* the QPs' local ACK timeout: 10 (4 ms) makes loss tests quick; lossless bulk tests use 14
 * (67 ms), so that a thread descheduled on a loaded machine (ASan, CI) is not taken for a
 * dead peer seven times over */
static uint8_t qp_timeout = 10;
static uint8_t responder_resources = 4; /* B's max_dest_rd_atomic; A always issues up to 4 */
static struct roce_srq *b_srq;		/* set: B's QP takes its receives from this SRQ */

static void connect_pair(enum roce_mtu mtu, uint8_t rnr_retry, uint8_t min_rnr)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = s[k].cq, .recv_cq = s[k].cq, .qp_type = ROCE_QPT_RC};

		ia.cap.max_send_wr = 256;
		ia.cap.max_recv_wr = 256;
		ia.cap.max_send_sge = 4;
		ia.cap.max_recv_sge = 4;
		if (k == 1 && b_srq)
			ia.srq = b_srq;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		assert_non_null(s[k].qp);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				    ROCE_ACCESS_REMOTE_ATOMIC;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = roce_qp_num(s[!k].qp);
		a.rq_psn = k ? 0xfffff0 : 100; /* B's PSNs wrap around 2^24 */
		a.max_dest_rd_atomic = k ? responder_resources : 4;
		a.min_rnr_timer = min_rnr;
		stk_ipaddr_parse(k ? "10.77.0.1" : "10.77.0.2", &a.ah_attr.dgid_ip);
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
		a.sq_psn = k ? 100 : 0xfffff0; /* the peer's rq_psn */
		a.timeout = qp_timeout;	       /* 4 ms unless a test asks */
		a.retry_cnt = 7;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = 4;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
							ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
							ROCE_QP_MAX_QP_RD_ATOMIC),
				 0);
	}
}

static void disconnect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_wc wc[64];

		assert_int_equal(roce_destroy_qp(s[k].qp), 0);
		while (roce_poll_cq(s[k].cq, 64, wc) > 0)
			;
	}
	drive(50); /* let in-flight frames drain so the pool count is exact */
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

static void post_recv(int k, uint64_t id, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[k].buf + off), .length = len, .lkey = s[k].mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	assert_int_equal(roce_post_recv(s[k].qp, &r, &bad), 0);
}

static void post(int k, enum roce_wr_opcode op, uint64_t id, uint32_t off, uint32_t len,
		 uint64_t raddr, uint32_t rkey)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[k].buf + off), .length = len, .lkey = s[k].mr->lkey};
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
	assert_int_equal(roce_post_send(s[k].qp, &w, &bad), 0);
}

static const uint32_t sizes[] = {0, 1, 3, 255, 256, 257, 1023, 1024, 1025, 4096, 65536, 300000};

static void send_all_sizes(enum roce_mtu mtu)
{
	connect_pair(mtu, 7, 1);
	for (unsigned i = 0; i < RTE_DIM(sizes); i++) {
		struct roce_wc wc[2];
		uint32_t n = sizes[i];

		fill(s[0].buf, n, i);
		memset(s[1].buf + 4096, 0xee, n + 64);
		post_recv(1, 500 + i, 4096, n + 64);
		post(0, ROCE_WR_SEND, 600 + i, 0, n, 0, 0);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_true(wc[0].wr_id == 600 + i && wc[0].opcode == ROCE_WC_SEND);
		assert_int_equal(wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_true(wc[0].wr_id == 500 + i && wc[0].opcode == ROCE_WC_RECV);
		assert_int_equal(wc[0].byte_len, n);
		assert_memory_equal(s[1].buf + 4096, s[0].buf, n);
		assert_int_equal(s[1].buf[4096 + n], 0xee); /* nothing written past the message */
	}
	disconnect_pair();
}

static void send_mtu256(void **st)
{
	(void)st;
	send_all_sizes(ROCE_MTU_256);
}

static void send_mtu1024(void **st)
{
	(void)st;
	send_all_sizes(ROCE_MTU_1024);
}

static void write_read_sizes(void **st)
{
	(void)st;
	connect_pair(ROCE_MTU_512, 7, 1);
	for (unsigned i = 0; i < RTE_DIM(sizes); i++) {
		struct roce_wc wc[2];
		uint32_t n = sizes[i];
		uint64_t dst = (uintptr_t)(s[1].buf + 8192); /* iova == address here */

		fill(s[0].buf, n, 40 + i);
		memset(s[1].buf + 8192, 0, n + 16);
		post(0, ROCE_WR_RDMA_WRITE, 700 + i, 0, n, dst, s[1].mr->rkey);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_WRITE);
		assert_memory_equal(s[1].buf + 8192, s[0].buf, n);
		assert_int_equal(s[1].buf[8192 + n], 0);
		/* and read it back into a clean area of A */
		memset(s[0].buf + BUF / 2, 0x5a, n + 16);
		post(0, ROCE_WR_RDMA_READ, 800 + i, BUF / 2, n, dst, s[1].mr->rkey);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_READ);
		assert_int_equal(wc[0].byte_len, n);
		assert_memory_equal(s[0].buf + BUF / 2, s[0].buf, n);
		assert_int_equal(s[0].buf[BUF / 2 + n], 0x5a);
	}
	disconnect_pair();
}

static void write_with_imm(void **st)
{
	struct roce_wc wc[2];
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	fill(s[0].buf, 5000, 9);
	post_recv(1, 42, 0, 16); /* the immediate needs a receive WQE, not its buffer */
	post(0, ROCE_WR_RDMA_WRITE_WITH_IMM, 43, 0, 5000, (uintptr_t)(s[1].buf + 65536),
	     s[1].mr->rkey);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_IMM);
	assert_int_equal(rte_be_to_cpu_32(wc[0].imm_data), 0xc0ffee00u + 43);
	assert_memory_equal(s[1].buf + 65536, s[0].buf, 5000);
	disconnect_pair();
}

static void atomics(void **st)
{
	struct roce_sge sg = {.addr = (uintptr_t)s[0].buf, .length = 8, .lkey = s[0].mr->lkey};
	struct roce_send_wr w, *bad;
	struct roce_wc wc[2];
	uint64_t *target = (uint64_t *)(s[1].buf + 128), v;
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	*target = 1000;
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.atomic.remote_addr = (uintptr_t)target;
	w.wr.atomic.rkey = s[1].mr->rkey;
	w.wr.atomic.compare_add = 5;
	assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_FETCH_ADD);
	memcpy(&v, s[0].buf, 8);
	assert_true(v == 1000 && *target == 1005);
	/* compare and swap: a miss leaves memory alone, a hit swaps */
	w.opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 1;
	w.wr.atomic.swap = 77;
	assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	memcpy(&v, s[0].buf, 8);
	assert_true(v == 1005 && *target == 1005);
	w.wr.atomic.compare_add = 1005;
	assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].opcode, ROCE_WC_COMP_SWAP);
	memcpy(&v, s[0].buf, 8);
	assert_true(v == 1005 && *target == 77);
	disconnect_pair();
}

/* An access violation must end in REM_ACCESS_ERR, never in endless retries (rxe's bug). */
static void access_errors(void **st)
{
	struct roce_wc wc[4];
	uint64_t dst = (uintptr_t)(s[1].buf + 8192);
	(void)st;

	/* bad rkey on a READ */
	connect_pair(ROCE_MTU_1024, 7, 1);
	post(0, ROCE_WR_RDMA_READ, 1, 0, 64, dst, s[1].mr->rkey ^ 0x100);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	disconnect_pair();
	/* out of bounds on a WRITE: one byte past the region */
	connect_pair(ROCE_MTU_1024, 7, 1);
	post(0, ROCE_WR_RDMA_WRITE, 2, 0, 16, (uintptr_t)(s[1].buf + BUF - 15), s[1].mr->rkey);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	disconnect_pair();
}

static void missing_right(void **st)
{
	struct roce_mr *ro = roce_reg_mr(s[1].pd, s[1].buf, 4096, 0x10000, ROCE_ACCESS_REMOTE_READ);
	struct roce_wc wc[2];
	(void)st;

	assert_non_null(ro);
	connect_pair(ROCE_MTU_1024, 7, 1);
	post(0, ROCE_WR_RDMA_WRITE, 3, 0, 16, 0x10000, ro->rkey); /* read-only region */
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	disconnect_pair();
	assert_int_equal(roce_dereg_mr(ro), 0);
}

static void rnr(void **st)
{
	struct roce_wc wc[2];
	(void)st;

	/* no receive posted and no RNR retries: RNR_RETRY_EXC_ERR */
	connect_pair(ROCE_MTU_1024, 0, 1);
	post(0, ROCE_WR_SEND, 4, 0, 100, 0, 0);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_RNR_RETRY_EXC_ERR);
	disconnect_pair();
	/* infinite RNR retry: succeeds once the receive shows up */
	connect_pair(ROCE_MTU_1024, 7, 1);
	fill(s[0].buf, 100, 3);
	post(0, ROCE_WR_SEND, 5, 0, 100, 0, 0);
	drive(2000);
	assert_int_equal(roce_poll_cq(s[0].cq, 2, wc), 0);
	post_recv(1, 6, 0, 128);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].byte_len, 100);
	assert_memory_equal(s[1].buf, s[0].buf, 100);
	disconnect_pair();
}

/*
 * Issue 11 item 6: an RNR NAK on a WRITE with immediate (IBA 9.7.5.2.8: the RNR NAK consumes
 * no PSN and changes no responder state, so the requester's retry of the same PSN must be
 * taken as new). One packet (WRITE_ONLY_WITH_IMMEDIATE, where the RETH opens the WRITE) and
 * several (the LAST_WITH_IMMEDIATE packet is the one NAKed): no receive is posted at first,
 * rnr_retry 7 keeps retrying, and once a receive shows up the WRITE completes successfully on
 * both sides, byte-exact, with both QPs still in RTS.
 */
static void rnr_write_with_imm(void **st)
{
	const uint32_t sz[] = {0, 100, 5000};
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	for (unsigned i = 0; i < RTE_DIM(sz); i++) {
		struct roce_wc wc[2];
		uint32_t n = sz[i];

		fill(s[0].buf, n, 90 + i);
		memset(s[1].buf + 65536, 0, n + 16);
		post(0, ROCE_WR_RDMA_WRITE_WITH_IMM, 50 + i, 0, n, (uintptr_t)(s[1].buf + 65536),
		     s[1].mr->rkey);
		drive(2000); /* RNR NAKs and retries, nothing completes */
		assert_int_equal(roce_poll_cq(s[0].cq, 2, wc), 0);
		assert_int_equal(roce_poll_cq(s[1].cq, 2, wc), 0);
		post_recv(1, 60 + i, 0, 16);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_true(wc[0].wr_id == 50 + i);
		assert_int_equal(wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		assert_true(wc[0].wr_id == 60 + i);
		assert_int_equal(rte_be_to_cpu_32(wc[0].imm_data), 0xc0ffee00u + 50 + i);
		assert_memory_equal(s[1].buf + 65536, s[0].buf, n);
		assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_RTS);
		assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_RTS);
	}
	disconnect_pair();
}

static void post_atomic(uint64_t id, enum roce_wr_opcode op, uint32_t result_off, uint64_t *target,
			uint64_t add)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[0].buf + result_off), .length = 8, .lkey = s[0].mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.atomic.remote_addr = (uintptr_t)target;
	w.wr.atomic.rkey = s[1].mr->rkey;
	w.wr.atomic.compare_add = add;
	assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
}

/* B holds a cached atomic result for PSN @psn */
static bool atomic_cached(uint32_t psn)
{
	const struct roce_resp *r = &s[1].qp->resp;

	for (int i = 0; i < ROCE_ATOMIC_CACHE; i++)
		if (r->atomic[i].valid && r->atomic[i].psn == psn)
			return true;
	return false;
}

/*
 * Issue 11 item 5: the atomic replay cache across a 2^24 PSN wrap. A FETCH_ADD at PSN P, then
 * 2^24 - 1 PSNs of READ responses (256 READs at MTU 256), so the next FETCH_ADD has PSN P
 * again. The first result must have left the cache once its PSN left the duplicate window
 * (IBA 9.7.5.1.1: a duplicate is at most 2^23 PSNs behind; older PSNs are new ones of a later
 * lap). The second FETCH_ADD's answer is lost, so A resends it: B must answer that duplicate
 * from the cache with the result of the atomic at this PSN in this lap (1005), not the one
 * from the previous lap (1000), and must not execute it again (IBA 9.7.5.1.5.3).
 */
static void atomic_cache_psn_wrap(void **st)
{
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 6};
	uint64_t *target = (uint64_t *)(s[1].buf + (33u << 20)), got;
	const uint32_t chunk = 16u << 20, dst = 17u << 20;
	struct roce_qp_attr qa;
	struct roce_wc wc;
	uint64_t answered;
	uint32_t p0;
	(void)st;

	qp_timeout = 14;
	connect_pair(ROCE_MTU_256, 7, 1);
	assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
	p0 = qa.sq_psn;
	*target = 1000;
	post_atomic(1, ROCE_WR_ATOMIC_FETCH_AND_ADD, 0, target, 5);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_true(atomic_cached(p0));
	/* 2^24 - 1 PSNs: 255 READs of 65536 responses and one of 65535 */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t len = i < 255 ? chunk : chunk - 256;

		post(0, ROCE_WR_RDMA_READ, 100 + i, dst, len, (uintptr_t)s[1].buf, s[1].mr->rkey);
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		if (i == 128) /* 2^23 + 1 PSNs on: P left the window */
			assert_false(atomic_cached(p0));
	}
	assert_false(atomic_cached(p0));
	assert_int_equal(s[1].qp->resp.psn, p0); /* the next request has PSN P again */

	/* the second FETCH_ADD at P: executed, its answer lost, A resends it */
	answered = s[1].qp->resp.outcome[ROCE_RESP_ANSWERED];
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, &deaf), 0);
	post_atomic(2, ROCE_WR_ATOMIC_FETCH_AND_ADD, 8, target, 5);
	for (int i = 0; i < 100000 && s[1].qp->resp.outcome[ROCE_RESP_ANSWERED] == answered; i++)
		drive(1);
	assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ANSWERED], answered + 1);
	assert_true(*target == 1010);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_true(wc.wr_id == 2);
	assert_true(s[1].qp->resp.outcome[ROCE_RESP_DUPLICATE] > 0); /* answered as a replay */
	memcpy(&got, s[0].buf + 8, 8);
	assert_true(got == 1005);     /* this lap's result */
	assert_true(*target == 1010); /* executed once */
	disconnect_pair();
	qp_timeout = 10;
}

/* Send a request to B's QP from A's interface, as A's QP would (the tests' forged frames),
 * then poll @polls times. */
static void inject_to_b_polls(struct roce_tx *t, const void *payload, uint32_t len, unsigned polls)
{
	struct roce_path to_b;
	struct rte_mbuf *m;

	memset(&to_b, 0, sizeof(to_b));
	stk_ipaddr_parse("10.77.0.2", &to_b.dgid_ip);
	t->path = &to_b;
	t->lqpn = roce_qp_num(s[0].qp);
	t->dqpn = roce_qp_num(s[1].qp);
	m = roce_tx_build(pool, stk_iface_get(0), t, payload, len, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(lc, stk_iface_get(0), m, &to_b.dgid_ip), 0);
	drive(polls);
}

static void inject_to_b(struct roce_tx *t, const void *payload, uint32_t len)
{
	inject_to_b_polls(t, payload, len, 20);
}

static void post_srq_recv(uint64_t id, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(s[1].buf + off), .length = len, .lkey = s[1].mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	assert_int_equal(roce_post_srq_recv(b_srq, &r, &bad), 0);
}

/*
 * Issue 11 item 7: a multi-packet SEND took a receive WQE with its FIRST packet, then B's QP
 * entered ERR before the LAST: the WQE must complete with WR_FLUSH_ERR like every other
 * outstanding WR (IBA 10.3.1.7), so the application gets its buffer back. On B's own receive
 * queue the QP fails on the wire (a second SEND_FIRST: opcode-sequence error, fatal) and the
 * WQE behind it is flushed too, in order. With an SRQ the application moves the QP to ERR;
 * the WQE the QP took comes back flushed, and the one still on the SRQ stays there for the
 * next QP (a fresh pair receives into it).
 */
static void err_mid_send_flushes_rwqe(void **st)
{
	struct roce_srq_init_attr si = {.max_wr = 16, .max_sge = 1};
	(void)st;

	for (int with_srq = 0; with_srq < 2; with_srq++) {
		struct roce_qp_attr qb;
		struct roce_wc wc[4];
		struct roce_tx t;

		if (with_srq) {
			b_srq = roce_create_srq(s[1].pd, &si);
			assert_non_null(b_srq);
		}
		connect_pair(ROCE_MTU_1024, 7, 1);
		if (with_srq) {
			post_srq_recv(70, 0, 8192);
			post_srq_recv(71, 8192, 8192);
		} else {
			post_recv(1, 70, 0, 8192);
			post_recv(1, 71, 8192, 8192);
		}
		assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
		fill(s[0].buf, 1024, 7);
		memset(&t, 0, sizeof(t));
		t.opcode = ROCE_OP_RC_SEND_FIRST;
		t.psn = qb.rq_psn;
		inject_to_b(&t, s[0].buf, 1024);
		assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 0); /* the message is open */
		if (with_srq) {
			struct roce_qp_attr e = {.qp_state = ROCE_QPS_ERR};

			assert_int_equal(roce_modify_qp(s[1].qp, &e, ROCE_QP_STATE), 0);
		} else {
			t.psn = (qb.rq_psn + 1) & 0xffffff; /* FIRST again: fatal */
			inject_to_b(&t, s[0].buf, 1024);
		}
		assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
		assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), with_srq ? 1 : 2);
		assert_true(wc[0].wr_id == 70);
		assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
		assert_int_equal(wc[0].opcode, ROCE_WC_RECV);
		assert_int_equal(wc[0].qp_num, roce_qp_num(s[1].qp));
		if (!with_srq) {
			assert_true(wc[1].wr_id == 71);
			assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
		}
		/* ERR again flushes nothing twice */
		{
			struct roce_qp_attr e = {.qp_state = ROCE_QPS_ERR};

			assert_int_equal(roce_modify_qp(s[1].qp, &e, ROCE_QP_STATE), 0);
			assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 0);
		}
		disconnect_pair();
		if (with_srq) {
			/* 71 is still on the SRQ: a new QP receives into it */
			connect_pair(ROCE_MTU_1024, 7, 1);
			fill(s[0].buf, 3000, 8);
			post(0, ROCE_WR_SEND, 72, 0, 3000, 0, 0);
			assert_int_equal(wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_int_equal(wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_true(wc[0].wr_id == 71 && wc[0].byte_len == 3000);
			assert_memory_equal(s[1].buf + 8192, s[0].buf, 3000);
			disconnect_pair();
			assert_int_equal(roce_destroy_srq(b_srq), 0);
			b_srq = NULL;
		}
	}
}

/*
 * Bounded soak: 1 % loss, 1 % duplication and 1 % reordering on both directions. A mix of
 * SEND (64 KiB), RDMA WRITE (96 KiB) and RDMA READ (48 KiB), each stamped with its sequence
 * number, two in flight. Every message must complete successfully, in posting order, and
 * arrive byte-exact; the total is DROCE_SOAK_MB (default 128) MiB of payload.
 */
static void lossy_soak(void **st)
{
	const uint32_t sz[3] = {65536, 98304, 49152};
	struct stk_impair_conf c = {
		.drop_ppm = 10000, .dup_ppm = 10000, .reorder_ppm = 10000, .roce_only = true};
	const char *env = getenv("DROCE_SOAK_MB");
	uint64_t target = (uint64_t)(env ? strtoul(env, NULL, 0) : 128) << 20, moved = 0;
	uint64_t t0, posted = 0, done = 0, recvs = 0;
	struct stk_port_stats before, after;
	double secs;
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	c.seed = 11;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	c.seed = 12;
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, &c), 0);
	stk_stats_sum(-1, &before);
	t0 = rte_get_tsc_cycles();
	while (moved < target) {
		struct roce_wc wc[4];
		int n;

		while (posted - done < 2) {
			uint32_t kind = (uint32_t)(posted % 3), len = sz[kind];
			uint32_t slot = (uint32_t)(posted & 1) * 262144;

			fill(s[0].buf + slot, len, (uint32_t)posted);
			memcpy(s[0].buf + slot, &posted, 8);
			if (kind == 0) {
				post_recv(1, posted, 524288 + slot, len);
				post(0, ROCE_WR_SEND, posted, slot, len, 0, 0);
			} else if (kind == 1) {
				post(0, ROCE_WR_RDMA_WRITE, posted, slot, len,
				     (uintptr_t)(s[1].buf + 1048576 + slot), s[1].mr->rkey);
			} else {
				/* READ what B holds at that slot: B's copy is stamped too */
				fill(s[1].buf + 1048576 + slot, len, (uint32_t)posted);
				memcpy(s[1].buf + 1048576 + slot, &posted, 8);
				post(0, ROCE_WR_RDMA_READ, posted, 1572864 - 262144 + slot / 2, len,
				     (uintptr_t)(s[1].buf + 1048576 + slot), s[1].mr->rkey);
			}
			posted++;
		}
		n = wait_wc(0, wc, 1);
		assert_int_equal(n, 1);
		if (wc[0].status != ROCE_WC_SUCCESS)
			fail_msg("message %lu: %s", (unsigned long)wc[0].wr_id,
				 roce_wc_status_str(wc[0].status));
		assert_true(wc[0].wr_id == done); /* in order */
		{
			uint32_t kind = (uint32_t)(done % 3), len = sz[kind];
			uint32_t slot = (uint32_t)(done & 1) * 262144;
			const uint8_t *got = kind == 0	 ? s[1].buf + 524288 + slot
					     : kind == 1 ? s[1].buf + 1048576 + slot
							 : s[0].buf + 1572864 - 262144 + slot / 2;
			const uint8_t *want =
				kind == 2 ? s[1].buf + 1048576 + slot : s[0].buf + slot;

			if (kind == 0) {
				struct roce_wc rw;

				assert_int_equal(wait_wc(1, &rw, 1), 1);
				assert_int_equal(rw.status, ROCE_WC_SUCCESS);
				assert_true(rw.wr_id == done && rw.byte_len == len);
				recvs++;
			}
			if (memcmp(got, want, len) != 0)
				fail_msg("message %lu (kind %u) differs", (unsigned long)done,
					 kind);
			moved += len;
		}
		done++;
	}
	secs = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	stk_stats_sum(-1, &after);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, NULL), 0);
	/* the impairment really happened */
	assert_true(after.c[STK_CNT_impair_dropped] > before.c[STK_CNT_impair_dropped]);
	assert_true(after.c[STK_CNT_impair_duplicated] > before.c[STK_CNT_impair_duplicated]);
	assert_true(after.c[STK_CNT_impair_reordered] > before.c[STK_CNT_impair_reordered]);
	print_message(
		"soak: %lu messages, %.0f MiB in %.1f s (%.2f Gbit/s goodput) with "
		"%lu drops, %lu duplicates, %lu reorders\n",
		(unsigned long)done, (double)moved / 1048576.0, secs,
		(double)moved * 8 / secs / 1e9,
		(unsigned long)(after.c[STK_CNT_impair_dropped] - before.c[STK_CNT_impair_dropped]),
		(unsigned long)(after.c[STK_CNT_impair_duplicated] -
				before.c[STK_CNT_impair_duplicated]),
		(unsigned long)(after.c[STK_CNT_impair_reordered] -
				before.c[STK_CNT_impair_reordered]));
	(void)recvs;
	disconnect_pair();
}

/* Two UC QPs in RTS, both sending from PSN 500. */
static void connect_uc(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = s[k].cq, .recv_cq = s[k].cq, .qp_type = ROCE_QPT_UC};
		struct roce_qp_attr a;

		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		assert_non_null(s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_ACCESS_FLAGS),
				 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(s[!k].qp);
		a.rq_psn = 500;
		stk_ipaddr_parse(k ? "10.77.0.1" : "10.77.0.2", &a.ah_attr.dgid_ip);
		/* UC INIT->RTR takes no responder resources or RNR timer (IBA 10.3.1) */
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
							ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN),
				 0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 500;
		assert_int_equal(roce_modify_qp(s[k].qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	}
}

/* UC: SEND, SEND with immediate and WRITE (with immediate), no acknowledgements. */
static void uc_pair(void **st)
{
	const uint32_t sz[] = {0, 1, 1023, 1024, 1025, 100000};
	(void)st;

	connect_uc();
	for (unsigned i = 0; i < RTE_DIM(sz); i++) {
		struct roce_wc wc[2];
		uint32_t n = sz[i];

		fill(s[0].buf, n, 300 + i);
		post_recv(1, 10 + i, 1u << 20, 200000);
		post(0, i & 1 ? ROCE_WR_SEND_WITH_IMM : ROCE_WR_SEND, 20 + i, 0, n, 0, 0);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].byte_len, n);
		assert_int_equal(!!(wc[0].wc_flags & ROCE_WC_WITH_IMM), i & 1);
		assert_memory_equal(s[1].buf + (1u << 20), s[0].buf, n);
		/* WRITE, the odd ones with immediate (which consumes a receive) */
		if (i & 1)
			post_recv(1, 40 + i, 0, 16);
		post(0, i & 1 ? ROCE_WR_RDMA_WRITE_WITH_IMM : ROCE_WR_RDMA_WRITE, 30 + i, 0, n,
		     (uintptr_t)(s[1].buf + (3u << 20)), s[1].mr->rkey);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		if (i & 1) {
			assert_int_equal(wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		} else {
			drive(200); /* UC completes at the sender when sent: let it land */
		}
		assert_memory_equal(s[1].buf + (3u << 20), s[0].buf, n);
	}
	disconnect_pair();
}

static void inject_read(uint32_t psn, uint64_t va, uint32_t len, uint32_t rkey, unsigned polls)
{
	struct roce_tx t;

	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_RDMA_READ_REQUEST;
	t.psn = psn & 0xffffff;
	t.va = va;
	t.rkey = rkey;
	t.dmalen = len;
	inject_to_b_polls(&t, NULL, 0, polls);
}

/* READ responses B has sent since @since (its tx_pkts counter; B sends nothing else here) */
static uint64_t b_sent(uint64_t since)
{
	return s[1].qp->cnt[ROCE_QPC_tx_pkts] - since;
}

/*
 * Issue 11 item 4: a duplicate READ request is matched against the READs B received
 * (IBA 9.7.5.1: a duplicate READ is re-executed from its PSN, which must lie inside an
 * earlier READ; the requester adjusts the VA and length to that PSN). Only such a duplicate
 * replays, from that PSN's offset; a "duplicate" at a PSN that held no READ, or whose RETH
 * is not the part of the original READ from that PSN on (another rkey, another offset, past
 * its end), is dropped silently and counted (resp_DROP_DUP_READ_UNKNOWN / _MISMATCH), and
 * it leaves the READ responses still queued alone.
 */
static void duplicate_read_history(void **st)
{
	const uint64_t va = (uintptr_t)s[1].buf;
	const struct roce_resp *r;
	struct roce_qp_attr qb;
	uint32_t e0, rkey = s[1].mr->rkey;
	uint64_t t0;
	(void)st;

	connect_pair(ROCE_MTU_256, 7, 1);
	r = &s[1].qp->resp;
	assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
	e0 = qb.rq_psn; /* 0xfffff0: the READs straddle the PSN wrap */
	t0 = s[1].qp->cnt[ROCE_QPC_tx_pkts];
	inject_read(e0, va, 1024, rkey, 20); /* PSNs e0 .. e0+3 */
	assert_int_equal(b_sent(t0), 4);
	inject_read(e0 + 4, va + 4096, 8 * 256, rkey, 20); /* PSNs e0+4 .. e0+11, across 2^24 */
	assert_int_equal(b_sent(t0), 12);

	/* a real duplicate from the middle of each: replayed from that PSN */
	inject_read(e0 + 2, va + 512, 512, rkey, 20);
	assert_int_equal(b_sent(t0), 14);
	inject_read(e0 + 10, va + 4096 + 6 * 256, 2 * 256, rkey, 20);
	assert_int_equal(b_sent(t0), 16);
	assert_int_equal(r->outcome[ROCE_RESP_DUPLICATE], 2);

	/* not the part from its PSN on: the whole READ again, past its end, another rkey */
	inject_read(e0 + 2, va, 1024, rkey, 20);
	inject_read(e0 + 2, va + 512, 1024, rkey, 20);
	inject_read(e0 + 2, va + 512, 512, rkey ^ 0x100, 20);
	assert_int_equal(b_sent(t0), 16);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_DUP_READ_MISMATCH], 3);
	/* a PSN that held no READ: before the first one */
	inject_read(e0 - 1, va, 256, rkey, 20);
	assert_int_equal(b_sent(t0), 16);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_DUP_READ_UNKNOWN], 1);

	/* a 1 MiB READ (4096 responses, 64 per poll) is being answered when a bogus duplicate
	 * arrives: every response still goes out */
	inject_read(e0 + 12, va, 1u << 20, rkey, 2);
	assert_true(r->rq_count > 0);
	inject_read(e0 + 3, va + 4096, 256, rkey, 2); /* PSN of the first READ, wrong VA */
	assert_int_equal(r->outcome[ROCE_RESP_DROP_DUP_READ_MISMATCH], 4);
	assert_true(r->rq_count > 0);
	drive(2000);
	assert_int_equal(b_sent(t0), 16 + 4096);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_RTS);
	disconnect_pair();
}

static void inject_uc(uint8_t opcode, uint32_t psn, const void *payload, uint32_t len)
{
	struct roce_tx t;

	memset(&t, 0, sizeof(t));
	t.opcode = opcode;
	t.psn = psn;
	inject_to_b(&t, payload, len);
}

/*
 * Issue 11 item 11: a UC responder must not take a packet whose PSN is behind the expected
 * one for a new message. A replayed SEND_ONLY (the PSN of a message already delivered) and a
 * stale MIDDLE inside an open message are dropped and counted (resp_DROP_UC_BEHIND); the open
 * message goes on. A packet ahead of the expected PSN means packets were lost: a LAST or
 * MIDDLE is dropped with the message it belonged to (resp_DROP_UC_RESYNC), and the next FIRST
 * or ONLY starts over at its own PSN, into the receive WQE the lost message had taken.
 */
static void uc_replay_dropped(void **st)
{
	const struct roce_resp *r;
	struct roce_wc wc[4];
	(void)st;

	connect_uc();
	r = &s[1].qp->resp;
	fill(s[0].buf, 4096, 21);
	post_recv(1, 1, 1u << 20, 8192);
	post(0, ROCE_WR_SEND, 2, 0, 100, 0, 0); /* the real message, PSN 500 */
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_true(wc[0].wr_id == 1 && wc[0].status == ROCE_WC_SUCCESS && wc[0].byte_len == 100);

	/* a) its replay: not a new message */
	post_recv(1, 3, 2u << 20, 8192);
	inject_uc(ROCE_OP_UC_SEND_ONLY, 500, s[0].buf + 1000, 100);
	assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 0);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_UC_BEHIND], 1);

	/* b) a stale MIDDLE inside an open message is dropped; the message completes */
	inject_uc(ROCE_OP_UC_SEND_FIRST, 501, s[0].buf, 1024);
	inject_uc(ROCE_OP_UC_SEND_MIDDLE, 500, s[0].buf + 2048, 1024);
	inject_uc(ROCE_OP_UC_SEND_LAST, 502, s[0].buf + 1024, 10);
	assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 1);
	assert_true(wc[0].wr_id == 3 && wc[0].status == ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 1034);
	assert_memory_equal(s[1].buf + (2u << 20), s[0].buf, 1034);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_UC_BEHIND], 2);

	/* c) the MIDDLE at 504 is lost: the LAST is dropped with its message, nothing completes;
	 * the next ONLY (ahead) starts over in the same receive WQE */
	post_recv(1, 4, 3u << 20, 8192);
	inject_uc(ROCE_OP_UC_SEND_FIRST, 503, s[0].buf + 3000, 1024);
	inject_uc(ROCE_OP_UC_SEND_LAST, 505, s[0].buf, 10);
	assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 0);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_UC_RESYNC], 1);
	inject_uc(ROCE_OP_UC_SEND_ONLY, 506, s[0].buf + 200, 50);
	assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 1);
	assert_true(wc[0].wr_id == 4 && wc[0].status == ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 50);
	assert_memory_equal(s[1].buf + (3u << 20), s[0].buf + 200, 50);
	/* and it is not delivered twice either */
	post_recv(1, 5, 3u << 20, 8192);
	inject_uc(ROCE_OP_UC_SEND_ONLY, 506, s[0].buf + 200, 50);
	assert_int_equal(roce_poll_cq(s[1].cq, 4, wc), 0);
	assert_int_equal(r->outcome[ROCE_RESP_DROP_UC_BEHIND], 3);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_RTS);
	disconnect_pair();
}

/* UD: datagrams through address handles, the GRH area, Q_Keys (IBA 9.8, 10.2.5, 11.4.1.2). */
static void ud_pair(void **st)
{
	const uint32_t sz[] = {0, 1, 100, 4096};
	struct roce_ah *ah;
	struct roce_path path;
	(void)st;

	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = s[k].cq, .recv_cq = s[k].cq, .qp_type = ROCE_QPT_UD};
		struct roce_qp_attr a;

		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		assert_non_null(s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x11111111;
		assert_int_equal(roce_modify_qp(s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_QKEY),
				 0);
		a.qp_state = ROCE_QPS_RTR;
		assert_int_equal(roce_modify_qp(s[k].qp, &a, ROCE_QP_STATE), 0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 7;
		assert_int_equal(roce_modify_qp(s[k].qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	}
	memset(&path, 0, sizeof(path));
	stk_ipaddr_parse("10.77.0.2", &path.dgid_ip);
	ah = roce_create_ah(s[0].pd, &path);
	assert_non_null(ah);
	for (unsigned i = 0; i < RTE_DIM(sz) * 2; i++) {
		struct roce_sge sg = {
			.addr = (uintptr_t)s[0].buf, .length = sz[i % 4], .lkey = s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc[2];
		uint32_t n = sz[i % 4];
		const uint8_t *grh = s[1].buf + (1u << 20);

		fill(s[0].buf, n, 500 + i);
		memset(s[1].buf + (1u << 20), 0xee, n + ROCE_GRH_LEN + 8);
		post_recv(1, 60 + i, 1u << 20, 8192);
		memset(&w, 0, sizeof(w));
		w.wr_id = 70 + i;
		w.opcode = i >= 4 ? ROCE_WR_SEND_WITH_IMM : ROCE_WR_SEND;
		w.imm_data = rte_cpu_to_be_32(0xabc00000u + i);
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = roce_qp_num(s[1].qp);
		/* the high bit: use the sending QP's own Q_Key (which equals the receiver's) */
		w.wr.ud.remote_qkey = i & 1 ? 0x80000000u : 0x11111111u;
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
		assert_int_equal(wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RECV);
		assert_int_equal(wc[0].byte_len, ROCE_GRH_LEN + n);
		assert_int_equal(wc[0].src_qp, roce_qp_num(s[0].qp));
		assert_true(wc[0].wc_flags & ROCE_WC_GRH);
		assert_int_equal(!!(wc[0].wc_flags & ROCE_WC_WITH_IMM), i >= 4);
		/* GRH area: 20 zero bytes, then the sender's IPv4 header (source 10.77.0.1) */
		for (int b = 0; b < 20; b++)
			assert_int_equal(grh[b], 0);
		assert_int_equal(grh[20], 0x45);
		assert_memory_equal(grh + 20 + 12, "\x0a\x4d\x00\x01", 4);
		assert_memory_equal(grh + ROCE_GRH_LEN, s[0].buf, n);
	}
	/* a wrong Q_Key is dropped silently: the receive stays posted */
	{
		struct roce_sge sg = {
			.addr = (uintptr_t)s[0].buf, .length = 8, .lkey = s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc[2];

		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = roce_qp_num(s[1].qp);
		w.wr.ud.remote_qkey = 0x22222222;
		post_recv(1, 99, 1u << 20, 8192);
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
		assert_int_equal(wait_wc(0, wc, 1), 1); /* sent */
		drive(500);
		assert_int_equal(roce_poll_cq(s[1].cq, 2, wc), 0);
		/* and a datagram larger than the path MTU is refused at post time */
		sg.length = 8192 + 1;
		w.wr.ud.remote_qkey = 0x11111111;
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), -EINVAL);
	}
	assert_int_equal(roce_destroy_ah(ah), 0);
	disconnect_pair();
}

static void post_local(int k, enum roce_wr_opcode op, uint64_t id, struct roce_mr *fr, uint32_t key)
{
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.invalidate_rkey = key;
	w.wr.reg.mr = fr;
	w.wr.reg.key = key;
	w.wr.reg.access =
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	w.wr.reg.iova = 0xdead0000;
	w.wr.reg.length = 65536;
	w.wr.reg.addr = s[k].buf + (5u << 20);
	assert_int_equal(roce_post_send(s[k].qp, &w, &bad), 0);
}

/*
 * Fast registration as the Linux NFS client uses it: B maps a region with a REG_MR work
 * request under a new key, A writes through that key, then A's SEND with invalidate retires it
 * (IBA 10.6.3.5), after which the key is refused. Then the same with a local invalidate.
 */
static void frwr_and_invalidate(void **st)
{
	struct roce_mr *fr = roce_alloc_mr(s[1].pd, 65536);
	struct roce_wc wc[2];
	uint32_t key;
	(void)st;

	assert_non_null(fr);
	key = (fr->rkey & ~0xffu) | 0x77;
	connect_pair(ROCE_MTU_1024, 7, 1);
	post_local(1, ROCE_WR_REG_MR, 1, fr, key);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_REG_MR);
	/* A writes through the new key into B's mapped region */
	fill(s[0].buf, 1000, 61);
	post(0, ROCE_WR_RDMA_WRITE, 2, 0, 1000, 0xdead0000 + 100, key);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(s[1].buf + (5u << 20) + 100, s[0].buf, 1000);
	/* SEND with invalidate: B's receive completes WITH_INV and the key dies */
	{
		struct roce_sge sg = {
			.addr = (uintptr_t)s[0].buf, .length = 16, .lkey = s[0].mr->lkey};
		struct roce_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND_WITH_INV;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.invalidate_rkey = key;
		post_recv(1, 3, 0, 64);
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
	}
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_INV);
	assert_int_equal(wc[0].invalidated_rkey, key);
	assert_int_equal(fr->state, ROCE_MR_INVALID);
	post(0, ROCE_WR_RDMA_WRITE, 4, 0, 8, 0xdead0000, key);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	disconnect_pair();

	/* re-register under the next key, invalidate it locally: A is refused again */
	connect_pair(ROCE_MTU_1024, 7, 1);
	key = (fr->rkey & ~0xffu) | 0x78;
	post_local(1, ROCE_WR_REG_MR, 5, fr, key);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	post(0, ROCE_WR_RDMA_READ, 6, BUF / 2, 64, 0xdead0000, key);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	post_local(1, ROCE_WR_LOCAL_INV, 7, fr, key);
	assert_int_equal(wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_LOCAL_INV);
	post(0, ROCE_WR_RDMA_READ, 8, BUF / 2, 64, 0xdead0000, key);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	disconnect_pair();
	assert_int_equal(roce_dereg_mr(fr), 0);
}

#if defined(__SANITIZE_ADDRESS__)
#define RC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RC_ASAN 1
#endif
#endif
#ifndef RC_ASAN
#define RC_ASAN 0
#endif

/*
 * Issue 11 item 1: a region deregistered (or invalidated) while a WRITE into it is half
 * placed. A WRITEs 1 MiB (MTU 1024) into a malloc'ed region of B's; once B has placed the
 * FIRST and is inside the message, B deregisters the region, poisons the buffer and (under
 * ASan) frees it. No byte of it may be written again: the rest of the WRITE gets a
 * remote-access NAK, A's WR completes REM_ACCESS_ERR, B's QP fails (resp_ERR_MR_GONE), and
 * without ASan the poison is intact. Then the same with a fast-registered region
 * invalidated mid-WRITE (what LOCAL_INV and SEND_WITH_INV do) at MTU 256.
 */
static void dereg_mid_write(void **st)
{
	const uint32_t len = 1u << 20;
	const uint64_t iova = 0x700000000000ull;
	(void)st;

	qp_timeout = 14;
	for (int inval = 0; inval < 2; inval++) {
		uint32_t n = inval ? 65536 : len;
		uint8_t *mem = malloc(n);
		struct roce_mr *mr;
		struct roce_wc wc;
		uint32_t key;

		assert_non_null(mem);
		memset(mem, 0, n);
		connect_pair(inval ? ROCE_MTU_256 : ROCE_MTU_1024, 7, 1);
		if (inval) {
			struct roce_send_wr w, *bad;

			mr = roce_alloc_mr(s[1].pd, n);
			assert_non_null(mr);
			key = (mr->rkey & ~0xffu) | 0x42;
			memset(&w, 0, sizeof(w));
			w.opcode = ROCE_WR_REG_MR;
			w.send_flags = ROCE_SEND_SIGNALED;
			w.wr.reg.mr = mr;
			w.wr.reg.key = key;
			w.wr.reg.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE;
			w.wr.reg.iova = iova;
			w.wr.reg.length = n;
			w.wr.reg.addr = mem;
			assert_int_equal(roce_post_send(s[1].qp, &w, &bad), 0);
			assert_int_equal(wait_wc(1, &wc, 1), 1);
			assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		} else {
			mr = roce_reg_mr(s[1].pd, mem, n, iova,
					 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
			assert_non_null(mr);
			key = mr->rkey;
		}
		fill(s[0].buf, n, 91);
		post(0, ROCE_WR_RDMA_WRITE, 1, 0, n, iova, key);
		for (int i = 0; i < 100000 && !s[1].qp->resp.write_active; i++)
			drive(1);
		assert_true(s[1].qp->resp.write_active); /* FIRST placed, LAST not yet */
		if (inval) {
			assert_int_equal(roce_mr_invalidate(s[1].dev, key, s[1].pd, false), 0);
		} else {
			/* a WRITE is inbound: no frame points into the region, done at once */
			assert_int_equal(roce_dereg_mr(mr), 0);
			mr = NULL;
		}
		memset(mem, 0x5a, n);
		if (RC_ASAN && !inval) {
			free(mem); /* any later write is a heap-use-after-free */
			mem = NULL;
		}
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 1);
		assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
		assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_MR_GONE], 1);
		assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
		drive(200);
		if (mem) {
			for (uint32_t i = 0; i < n; i++)
				if (mem[i] != 0x5a)
					fail_msg("byte %u of the dead region written", i);
		}
		disconnect_pair();
		if (mr)
			assert_int_equal(roce_dereg_mr(mr), 0);
		free(mem);
	}
	qp_timeout = 10;
}

/*
 * Issue 11 item 1: a 16 MiB READ (16384 responses at MTU 1024) whose region B deregisters
 * half-way. From the first roce_dereg_mr() call on B sends no response from the region, only
 * the remote-access NAK at the next response's PSN (A's READ completes REM_ACCESS_ERR). The
 * responses already built point into the region (zero copy) and wait in the ring: while they
 * do, roce_dereg_mr() answers -EBUSY (counted, mr_dereg_busy) and the region stays; once A
 * has taken them it returns 0. B's buffer is poisoned then, and no poison byte reaches A.
 */
static void dereg_mid_read(void **st)
{
	const uint32_t len = 16u << 20, dst = 17u << 20;
	const uint64_t iova = 0x600000000000ull;
	struct roce_dev_counts c0, c1;
	struct roce_mr *mr;
	struct roce_wc wc;
	uint64_t t0;
	int rc, busy = 0;
	(void)st;

	qp_timeout = 14;
	connect_pair(ROCE_MTU_1024, 7, 1);
	fill(s[1].buf, len, 93);
	memset(s[0].buf + dst, 0, len);
	mr = roce_reg_mr(s[1].pd, s[1].buf, len, iova, ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	post(0, ROCE_WR_RDMA_READ, 1, dst, len, iova, mr->rkey);
	for (int i = 0; i < 1000000 && s[0].qp->comp.read_off < len / 2; i++)
		drive(1);
	assert_true(s[0].qp->comp.read_off >= len / 2 && s[0].qp->comp.read_off < len);
	roce_dev_counts(s[1].dev, &c0);
	t0 = s[1].qp->cnt[ROCE_QPC_tx_pkts];
	while ((rc = roce_dereg_mr(mr)) == -EBUSY && busy < 1000) {
		busy++;
		drive(1);
	}
	assert_int_equal(rc, 0);
	assert_true(busy > 0); /* B's last burst was still in the ring */
	roce_dev_counts(s[1].dev, &c1);
	assert_int_equal(c1.mr_dereg_busy - c0.mr_dereg_busy, busy);
	memset(s[1].buf, 0xa5, len);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(s[1].qp->cnt[ROCE_QPC_tx_pkts] - t0, 1); /* the NAK, nothing else */
	assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_MR_GONE], 1);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	fill(s[1].buf, len, 93); /* what A may have: the pattern, or nothing (0) */
	for (uint32_t i = 0; i < len; i++) {
		uint8_t got = s[0].buf[dst + i];

		if (got != s[1].buf[i] && got != 0)
			fail_msg("byte %u of the READ is 0x%02x", i, got);
	}
	assert_memory_equal(s[0].buf + dst, s[1].buf, len / 2);
	disconnect_pair();
	qp_timeout = 10;
}

/*
 * Issue 11 item 1, the local side (found by fuzz_roce_shapes): the memory a receive WQE, a READ
 * or an atomic will write into is named by an lkey that was checked when the WR was posted.
 * When its region is deregistered or invalidated before the data arrives, no byte of it may be
 * written: the lkey is looked up again when the data is placed, as rxe's copy_data() does.
 * - a SEND into a receive whose region B deregistered (and, under ASan, freed), then one whose
 *   fast-registered region B invalidated with LOCAL_INV: rxe's "malformed WQE" (IBA class A):
 *   B NAKs remote operational error (A's SEND completes REM_OP_ERR), the receive completes
 *   LOC_QP_OP_ERR, B's QP enters ERR (outcome ERR_LOCAL_WQE);
 * - a READ and a fetch-and-add whose local region A deregistered right after posting: the
 *   response finds it gone, the WR completes LOC_PROT_ERR (rxe's completer copy_data()) and
 *   A's QP enters ERR.
 * Without ASan the dead memory's poison must be intact.
 */
static void dead_local_region(void **st)
{
	const uint32_t n = 4096;
	(void)st;

	for (int c = 0; c < 4; c++) {
		uint8_t *mem = malloc(n);
		struct roce_mr *mr;
		struct roce_wc wc[2];
		struct roce_sge sg;
		uint32_t key;

		assert_non_null(mem);
		memset(mem, 0, n);
		connect_pair(ROCE_MTU_1024, 7, 1);
		if (c == 1) {
			mr = roce_alloc_mr(s[1].pd, n);
			assert_non_null(mr);
			key = (mr->rkey & ~0xffu) | 0x31;
			{
				struct roce_send_wr w, *bad;

				memset(&w, 0, sizeof(w));
				w.opcode = ROCE_WR_REG_MR;
				w.send_flags = ROCE_SEND_SIGNALED;
				w.wr.reg.mr = mr;
				w.wr.reg.key = key;
				w.wr.reg.access = ROCE_ACCESS_LOCAL_WRITE;
				w.wr.reg.length = n;
				w.wr.reg.addr = mem;
				assert_int_equal(roce_post_send(s[1].qp, &w, &bad), 0);
			}
			assert_int_equal(wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		} else {
			mr = roce_reg_mr(s[c ? 0 : 1].pd, mem, n, (uintptr_t)mem,
					 ROCE_ACCESS_LOCAL_WRITE);
			assert_non_null(mr);
			key = mr->lkey;
		}
		sg = (struct roce_sge){
			.addr = (uintptr_t)mem, .length = c == 3 ? 8 : 64, .lkey = key};
		if (c < 2) { /* B's receive into the region, then the region goes */
			struct roce_recv_wr r = {.wr_id = 40, .sg_list = &sg, .num_sge = 1}, *bad;

			assert_int_equal(roce_post_recv(s[1].qp, &r, &bad), 0);
			if (c == 1)
				assert_int_equal(roce_mr_invalidate(s[1].dev, key, s[1].pd, false),
						 0);
			post(0, ROCE_WR_SEND, 41, 0, 32, 0, 0);
		} else { /* A's READ or fetch-and-add into it */
			struct roce_send_wr w, *bad;

			memset(&w, 0, sizeof(w));
			w.wr_id = 42;
			w.opcode = c == 2 ? ROCE_WR_RDMA_READ : ROCE_WR_ATOMIC_FETCH_AND_ADD;
			w.sg_list = &sg;
			w.num_sge = 1;
			w.send_flags = ROCE_SEND_SIGNALED;
			w.wr.atomic.remote_addr = (uintptr_t)s[1].buf;
			w.wr.atomic.compare_add = 1;
			w.wr.atomic.rkey = s[1].mr->rkey;
			if (c == 2) {
				w.wr.rdma.remote_addr = (uintptr_t)s[1].buf;
				w.wr.rdma.rkey = s[1].mr->rkey;
			}
			assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
		}
		if (c != 1) {
			assert_int_equal(roce_dereg_mr(mr), 0); /* nothing is queued from it */
			mr = NULL;
		}
		memset(mem, 0x5a, n);
		if (RC_ASAN && c != 1) {
			free(mem); /* any write is a heap-use-after-free */
			mem = NULL;
		}
		assert_int_equal(wait_wc(0, wc, 1), 1);
		if (c < 2) {
			assert_true(wc[0].wr_id == 41);
			assert_int_equal(wc[0].status, ROCE_WC_REM_OP_ERR);
			assert_int_equal(wait_wc(1, wc, 1), 1);
			assert_true(wc[0].wr_id == 40);
			assert_int_equal(wc[0].status, ROCE_WC_LOC_QP_OP_ERR);
			assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_LOCAL_WQE], 1);
			assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
		} else {
			assert_true(wc[0].wr_id == 42);
			assert_int_equal(wc[0].status, ROCE_WC_LOC_PROT_ERR);
			assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
		}
		drive(100);
		for (uint32_t i = 0; mem && i < n; i++)
			if (mem[i] != 0x5a)
				fail_msg("case %d: byte %u of the dead region written", c, i);
		disconnect_pair();
		if (mr)
			assert_int_equal(roce_dereg_mr(mr), 0);
		free(mem);
	}
}

/*
 * Issue 11, "confirm": a LOCAL_INV that cannot be done (here of a key that names a region
 * registered with reg_mr, which only fast-registered regions may be invalidated in, IBA
 * 10.6.3.5) used to complete with SUCCESS while nothing was invalidated. IBA gives no
 * completion status for it; like rxe (rxe_do_local_ops(): IB_WC_LOC_QP_OP_ERR, and the QP
 * goes to the error state), the WR completes LOC_QP_OP_ERR after the WRs before it, the QP
 * enters ERR and the WRs behind it are flushed. The key stays valid.
 */
static void local_inv_failure(void **st)
{
	struct roce_wc wc[4];
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	fill(s[1].buf, 64, 3);
	post(1, ROCE_WR_RDMA_WRITE, 1, 0, 64, (uintptr_t)(s[0].buf + 4096), s[0].mr->rkey);
	post_local(1, ROCE_WR_LOCAL_INV, 2, NULL, s[1].mr->rkey);
	post(1, ROCE_WR_RDMA_WRITE, 3, 0, 64, (uintptr_t)(s[0].buf + 8192), s[0].mr->rkey);
	assert_int_equal(wait_wc(1, wc, 3), 3);
	assert_true(wc[0].wr_id == 1 && wc[0].status == ROCE_WC_SUCCESS);
	assert_true(wc[1].wr_id == 2);
	assert_int_equal(wc[1].status, ROCE_WC_LOC_QP_OP_ERR);
	assert_true(wc[2].wr_id == 3 && wc[2].status == ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	disconnect_pair();
	/* the region was not invalidated: A still reads through its key */
	connect_pair(ROCE_MTU_1024, 7, 1);
	post(0, ROCE_WR_RDMA_READ, 4, BUF / 2, 64, (uintptr_t)s[1].buf, s[1].mr->rkey);
	assert_int_equal(wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	disconnect_pair();
}

/*
 * A requester that issues more READs than the responder resources it was given (4 against 1):
 * the responder answers with invalid-request instead of ignoring them (which would leave the
 * requester retrying), and the requester completes with REM_INV_REQ_ERR.
 */
static void too_many_reads(void **st)
{
	struct roce_wc wc[8];
	int got = 0, errs = 0;
	(void)st;

	responder_resources = 1;
	connect_pair(ROCE_MTU_256, 7, 1);
	responder_resources = 4;
	/* four 64 KiB READs at MTU 256: 256 responses each, paced, so they overlap */
	for (uint64_t i = 0; i < 4; i++)
		post(0, ROCE_WR_RDMA_READ, 90 + i, BUF / 2 + (uint32_t)i * 65536, 65536,
		     (uintptr_t)s[1].buf, s[1].mr->rkey);
	while (got < 4) {
		int n = wait_wc(0, wc + got, 1);

		if (n == 0)
			break;
		errs += wc[got].status == ROCE_WC_REM_INV_REQ_ERR;
		got++;
	}
	assert_int_equal(got, 4); /* nothing hangs: every WR completes */
	assert_int_equal(errs, 1);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	disconnect_pair();
}

/*
 * Issue 11, "confirm": atomics did not count against max_dest_rd_atomic. Confirmed: B took an
 * atomic while queued READ responses already used every responder resource it granted (1).
 * The responder resources (max_dest_rd_atomic) bound the RDMA READ and atomic requests
 * outstanding at the responder together, so such an atomic is as much a violation as a
 * second READ (too_many_reads). It is now refused the same way (invalid request, fatal),
 * and it does not execute. A conforming requester never sees this: it counts a READ until
 * its last response arrives, the responder only until it sends it.
 */
static void atomic_counts_as_responder_resource(void **st)
{
	uint64_t *target = (uint64_t *)(s[1].buf + 256);
	struct roce_wc wc[4];
	int got = 0, inv = 0;
	(void)st;

	responder_resources = 1;
	connect_pair(ROCE_MTU_256, 7, 1);
	responder_resources = 4;
	*target = 500;
	/* a 64 KiB READ at MTU 256: 256 paced responses keep it queued at B */
	post(0, ROCE_WR_RDMA_READ, 1, BUF / 2, 65536, (uintptr_t)s[1].buf, s[1].mr->rkey);
	post_atomic(2, ROCE_WR_ATOMIC_FETCH_AND_ADD, 64, target, 1);
	while (got < 2) {
		if (wait_wc(0, wc + got, 1) == 0)
			break;
		inv += wc[got].status == ROCE_WC_REM_INV_REQ_ERR;
		got++;
	}
	assert_int_equal(got, 2);    /* nothing hangs */
	assert_true(*target == 500); /* not executed */
	assert_int_equal(inv, 1);
	assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_RESOURCES], 1);
	assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
	disconnect_pair();
}

/*
 * Issue 11, "confirm": a READ length near 2^32. Confirmed: a RETH length beyond 2^31 (the
 * message size limit) was taken, and at 0xfffffc01 or more the PSN count of the READ wrapped
 * to 1 while its responses went on for 4 GiB. B has a region whose bounds let such lengths
 * through (its 8 GiB are never read), so only the length rule stops them: each READ, and a
 * WRITE_FIRST with such a length, gets one invalid-request NAK (resp_ERR_LENGTH), no response
 * and no placement, and B's QP fails, as rxe's check_length() does.
 */
static void read_len_beyond_2_31(void **st)
{
	const uint32_t lens[] = {0x80000001u, 0xfffffc01u, 0xffffffffu};
	const uint64_t iova = 0x500000000000ull;
	(void)st;

	for (unsigned k = 0; k < 2 * RTE_DIM(lens); k++) {
		bool write = k >= RTE_DIM(lens);
		struct roce_mr *big;
		struct roce_qp_attr qb;
		struct roce_tx t;
		uint64_t t0;

		connect_pair(ROCE_MTU_1024, 7, 1);
		big = roce_reg_mr(s[1].pd, s[1].buf, 1ull << 33, iova,
				  ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ |
					  ROCE_ACCESS_REMOTE_WRITE);
		assert_non_null(big);
		assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
		t0 = s[1].qp->cnt[ROCE_QPC_tx_pkts];
		memset(&t, 0, sizeof(t));
		t.opcode = write ? ROCE_OP_RC_RDMA_WRITE_FIRST : ROCE_OP_RC_RDMA_READ_REQUEST;
		t.psn = qb.rq_psn;
		t.va = iova;
		t.rkey = big->rkey;
		t.dmalen = lens[k % RTE_DIM(lens)];
		inject_to_b_polls(&t, s[0].buf, write ? 1024 : 0, 5);
		assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_LENGTH], 1);
		assert_int_equal(s[1].qp->cnt[ROCE_QPC_tx_pkts] - t0, 1); /* the NAK only */
		assert_int_equal(s[1].qp->resp.rq_count, 0);
		assert_false(s[1].qp->resp.write_active);
		assert_int_equal(roce_qp_state(s[1].qp), ROCE_QPS_ERR);
		disconnect_pair();
		assert_int_equal(roce_dereg_mr(big), 0);
	}
}

static void forge_zc_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

static struct rte_mbuf_ext_shared_info forge_zc = {.free_cb = forge_zc_free, .refcnt = 1};

/* A forged READ response to A's QP from B's interface. */
static void forge_read_resp_to_a(uint8_t opcode, uint32_t psn, const void *payload, uint32_t len)
{
	struct roce_path to_a;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&to_a, 0, sizeof(to_a));
	stk_ipaddr_parse("10.77.0.1", &to_a.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to_a;
	t.lqpn = roce_qp_num(s[1].qp);
	t.dqpn = roce_qp_num(s[0].qp);
	t.opcode = opcode;
	t.psn = psn & 0xffffff;
	t.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID;
	/* zero copy: a response longer than one mbuf's room (the out-of-size cases) fits too */
	m = roce_tx_build(pool, stk_iface_get(1), &t, payload, len, len ? &forge_zc : NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(lc, stk_iface_get(1), m, &to_a.dgid_ip), 0);
	drive(5);
}

/*
 * Issue 11, "confirm": READ responses were checked for their total length only. Confirmed: a
 * MIDDLE could start a READ, a FIRST or MIDDLE be short, a LAST or ONLY be longer than the
 * path MTU, and the READ completed. B is deaf and the responses to A's 3000-byte READ (MTU
 * 1024: PSNs p, p+1, p+2) are forged. Out of order or out of size, the READ fails
 * BAD_RESP_ERR (bad_read_resp counts it); the real shape passes byte for byte, and so does a
 * FIRST further on (the answer to a READ re-issued for the rest, IBA 9.7.4.1.5).
 */
static void read_response_order(void **st)
{
	static const struct {
		uint8_t op[3];
		uint16_t len[3];
		unsigned n;
		bool ok;
	} c[] = {
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE}, {1024}, 1, false},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST}, {500}, 1, false},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		  ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE},
		 {1024, 1024, 952},
		 3,
		 false},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST},
		 {1024, 1976},
		 2,
		 false},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY}, {3000}, 1, false},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		  ROCE_OP_RC_RDMA_READ_RESPONSE_LAST},
		 {1024, 1024, 952},
		 3,
		 true},
		{{ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		  ROCE_OP_RC_RDMA_READ_RESPONSE_LAST},
		 {1024, 1024, 952},
		 3,
		 true},
	};
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 5};
	(void)st;

	qp_timeout = 14; /* the forged responses come long before A's timer */
	fill(s[1].buf, 4096, 55);
	for (unsigned i = 0; i < RTE_DIM(c); i++) {
		struct roce_qp_attr qa;
		struct roce_wc wc;
		uint32_t at = 0;
		uint64_t bad0;

		connect_pair(ROCE_MTU_1024, 7, 1);
		assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
		bad0 = s[0].qp->cnt[ROCE_QPC_bad_read_resp];
		memset(s[0].buf + 8192, 0, 4096);
		post(0, ROCE_WR_RDMA_READ, 60 + i, 8192, 3000, 0x1000, 0x1234);
		drive(5);
		for (unsigned k = 0; k < c[i].n; k++) {
			forge_read_resp_to_a(c[i].op[k], qa.sq_psn + k, s[1].buf + at, c[i].len[k]);
			at += c[i].len[k];
		}
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 60 + i);
		if (c[i].ok) {
			assert_int_equal(wc.status, ROCE_WC_SUCCESS);
			assert_memory_equal(s[0].buf + 8192, s[1].buf, 3000);
			assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_RTS);
		} else {
			assert_int_equal(wc.status, ROCE_WC_BAD_RESP_ERR);
			assert_int_equal(s[0].qp->cnt[ROCE_QPC_bad_read_resp] - bad0, 1);
			assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
		}
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
		disconnect_pair();
	}
	qp_timeout = 10;
}

/* Fast-register @fr on side @k's QP under @key over @len bytes at @addr with @access. */
static void post_reg(int k, struct roce_mr *fr, uint32_t key, uint32_t access, void *addr,
		     uint64_t iova, uint32_t len)
{
	struct roce_send_wr w, *bad;
	struct roce_wc wc;

	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_REG_MR;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.reg.mr = fr;
	w.wr.reg.key = key;
	w.wr.reg.access = access;
	w.wr.reg.iova = iova;
	w.wr.reg.length = len;
	w.wr.reg.addr = addr;
	assert_int_equal(roce_post_send(s[k].qp, &w, &bad), 0);
	assert_int_equal(wait_wc(k, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
}

/*
 * Issue 11, "confirm": SEND_WITH_INV could invalidate a fast-registered region that was
 * never granted remote access. Confirmed: B maps a region for local writes only, and A's SEND
 * with invalidate naming its key retired it. Now such a key is refused like any key that
 * cannot be invalidated (resp_ERR_INVALIDATE: invalid request; A's WR completes
 * REM_INV_REQ_ERR) and the region stays valid; a region with a remote right still can be.
 */
static void send_inv_needs_remote_right(void **st)
{
	struct roce_mr *fr = roce_alloc_mr(s[1].pd, 65536);
	(void)st;

	assert_non_null(fr);
	for (int remote = 0; remote < 2; remote++) {
		uint32_t key = (fr->rkey & ~0xffu) | (uint32_t)(0x50 + remote);
		struct roce_sge sg = {
			.addr = (uintptr_t)s[0].buf, .length = 16, .lkey = s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc;

		connect_pair(ROCE_MTU_1024, 7, 1);
		post_reg(1, fr, key,
			 ROCE_ACCESS_LOCAL_WRITE | (remote ? ROCE_ACCESS_REMOTE_READ : 0),
			 s[1].buf + (6u << 20), 0xbeef0000, 65536);
		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND_WITH_INV;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.invalidate_rkey = key;
		post_recv(1, 3, 0, 64);
		assert_int_equal(roce_post_send(s[0].qp, &w, &bad), 0);
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, remote ? ROCE_WC_SUCCESS : ROCE_WC_REM_INV_REQ_ERR);
		assert_int_equal(fr->state, remote ? ROCE_MR_INVALID : ROCE_MR_VALID);
		assert_int_equal(s[1].qp->resp.outcome[ROCE_RESP_ERR_INVALIDATE], remote ? 0 : 1);
		disconnect_pair();
	}
	assert_int_equal(roce_dereg_mr(fr), 0);
}

/*
 * Issue 11, "confirm": before the owner lcore's first poll any lcore ran rx_local(), so two
 * lcores could work on the same QPs at once. Confirmed: B's device is set back to "never
 * polled", and a SEND for it arrives on lcore 1, which does not poll the device; lcore 1
 * placed it itself. Now a device no lcore has polled yet takes nothing in place: the frame
 * waits in the device's ring (rx_handoff_to_owner) and is received by the first lcore that
 * polls the device, which then owns it.
 */
static void owner_claimed_by_first_poll(void **st)
{
	struct stk_neigh_params np;
	struct stk_lcore *lc2;
	struct roce_dev_counts before, after;
	uint32_t psn;
	struct roce_wc wc;
	struct roce_tx t;
	(void)st;

	stk_neigh_params_default(&np);
	lc2 = stk_lcore_create(1, 0, false, pool, &np);
	assert_non_null(lc2);
	lc2->rxq[0] = lc->rxq[1]; /* B's port on lcore 1, which never polls B's device */
	lc2->nb_rxq = 1;
	connect_pair(ROCE_MTU_1024, 7, 1);
	/* one SEND first, so that both sides have resolved each other's address */
	post_recv(1, 4, 0, 4096);
	post(0, ROCE_WR_SEND, 4, 0, 10, 0, 0);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wait_wc(1, &wc, 1), 1);
	post_recv(1, 5, 0, 4096);
	psn = s[1].qp->resp.psn;
	lc->nb_rxq = 1; /* lcore 0 polls A's port only */
	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_SEND_ONLY;
	t.psn = psn;
	fill(s[0].buf, 100, 9);
	inject_to_b_polls(&t, s[0].buf, 100, 0);
	{ /* out of A's port (drained on its TSC deadline), into B's RX ring */
		uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 200;

		while (rte_get_tsc_cycles() < end)
			stk_lcore_poll(lc);
	}
	s[1].dev->owner = RTE_MAX_LCORE; /* as if no lcore had polled B's device yet */
	roce_dev_counts(s[1].dev, &before);
	for (int i = 0; i < 5; i++)
		stk_lcore_poll(lc2);
	roce_dev_counts(s[1].dev, &after);
	assert_int_equal(after.rx_handoff - before.rx_handoff, 1);
	assert_int_equal(s[1].qp->resp.psn, psn); /* untouched by lcore 1 */
	assert_int_equal(roce_poll_cq(s[1].cq, 1, &wc), 0);
	assert_int_equal(s[1].dev->owner, RTE_MAX_LCORE);
	drive(2); /* lcore 0 polls B's device first: it owns it and receives the SEND */
	assert_int_equal(s[1].dev->owner, rte_lcore_id());
	assert_int_equal(roce_poll_cq(s[1].cq, 1, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 100);
	assert_memory_equal(s[1].buf, s[0].buf, 100);
	lc->nb_rxq = 2;
	disconnect_pair();
	stk_lcore_destroy(lc2);
}

/*
 * Two lcores: lcore 0 polls A's port and runs both devices (it polled them first, so it owns
 * them); lcore 1 polls B's port. Every frame for B's QP arrives on lcore 1, which must hand it
 * to lcore 0 through the device's ring instead of touching the QP itself.
 */
static void second_lcore_hands_off(void **st)
{
	struct stk_neigh_params np;
	struct stk_lcore *lc2;
	struct roce_dev_counts before, after;
	struct roce_wc wc[2];
	uint64_t end;
	int got = 0;
	(void)st;

	stk_neigh_params_default(&np);
	lc2 = stk_lcore_create(1, 0, false, pool, &np); /* same TX queue: one thread runs both */
	assert_non_null(lc2);
	lc2->rxq[0] = lc->rxq[1]; /* B's port moves to lcore 1 */
	lc2->nb_rxq = 1;
	lc->nb_rxq = 1;
	connect_pair(ROCE_MTU_1024, 7, 1);
	roce_dev_counts(s[1].dev, &before);
	fill(s[0].buf, 200000, 17);
	post_recv(1, 1, 1u << 20, 200000);
	post(0, ROCE_WR_SEND, 2, 0, 200000, 0, 0);
	post(0, ROCE_WR_RDMA_READ, 3, BUF / 2, 100000, (uintptr_t)(s[1].buf + (1u << 20)),
	     s[1].mr->rkey);
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (got < 2 && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc2);
		stk_lcore_poll(lc);
		got += roce_poll_cq(s[0].cq, 2 - got, wc + got);
	}
	assert_int_equal(got, 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_poll_cq(s[1].cq, 2, wc), 1);
	assert_int_equal(wc[0].byte_len, 200000);
	assert_memory_equal(s[1].buf + (1u << 20), s[0].buf, 200000);
	assert_memory_equal(s[0].buf + BUF / 2, s[0].buf, 100000);
	roce_dev_counts(s[1].dev, &after);
	/* B received ~200 SEND packets and the READ request, all on lcore 1 */
	assert_true(after.rx_handoff - before.rx_handoff > 150);
	for (int i = 0; i < 50; i++) {
		stk_lcore_poll(lc2);
		stk_lcore_poll(lc);
	}
	lc->nb_rxq = 2;
	disconnect_pair();
	stk_lcore_destroy(lc2);
}

/* IBA path MTUs 256..4096 and sizes around each, up to 16 MiB, for SEND, WRITE and READ. */
static void every_mtu_to_16mib(void **st)
{
	const uint32_t big = 16u << 20, dst = 17u << 20;
	(void)st;

	fill(s[0].buf, big, 77);
	qp_timeout = 14;
	for (enum roce_mtu mtu = ROCE_MTU_256; mtu <= ROCE_MTU_4096; mtu++) {
		uint32_t m = roce_mtu_bytes(mtu);
		const uint32_t sz[] = {0, 1, m - 1, m, m + 1, 3 * m + 7, big};

		connect_pair(mtu, 7, 1);
		for (unsigned i = 0; i < RTE_DIM(sz); i++) {
			struct roce_wc wc[2];
			uint32_t n = sz[i];
			uint64_t t0 = rte_get_tsc_cycles();

			/* SEND into a receive buffer at 17 MiB */
			post_recv(1, 1, dst, big);
			post(0, ROCE_WR_SEND, 2, 0, n, 0, 0);
			assert_int_equal(wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_int_equal(wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].byte_len, n);
			if (memcmp(s[1].buf + dst, s[0].buf, n) != 0)
				fail_msg("SEND of %u bytes at MTU %u differs", n, m);
			/* WRITE over it after scribbling, then READ it back into A at 17 MiB */
			memset(s[1].buf + dst, 0xa5, n);
			post(0, ROCE_WR_RDMA_WRITE, 3, 0, n, (uintptr_t)(s[1].buf + dst),
			     s[1].mr->rkey);
			assert_int_equal(wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			if (memcmp(s[1].buf + dst, s[0].buf, n) != 0)
				fail_msg("WRITE of %u bytes at MTU %u differs", n, m);
			memset(s[0].buf + dst, 0x3c, n);
			post(0, ROCE_WR_RDMA_READ, 4, dst, n, (uintptr_t)(s[1].buf + dst),
			     s[1].mr->rkey);
			assert_int_equal(wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_int_equal(wc[0].byte_len, n);
			if (memcmp(s[0].buf + dst, s[0].buf, n) != 0)
				fail_msg("READ of %u bytes at MTU %u differs", n, m);
			if (n == big)
				print_message(
					"MTU %4u: 16 MiB SEND + WRITE + READ verified in %.0f ms\n",
					m,
					(double)(rte_get_tsc_cycles() - t0) * 1e3 /
						(double)rte_get_tsc_hz());
		}
		disconnect_pair();
	}
	qp_timeout = 10;
}

/* DCQCN end to end: a "switch" (the impairment layer) marks every ECN-capable frame A sends
 * with CE; B's notification point answers with CNPs, paced to one per 50 us per QP; A's
 * reaction point cuts its rate. Without congestion control nothing is ECN-capable, so
 * nothing is marked and no CNP flows. Data stays intact either way. */
static void dcqcn_reacts_to_ce(void **st)
{
	struct stk_impair_conf ce = {.ce_ppm = 1000000, .roce_only = true, .seed = 9};
	struct roce_dcqcn_params p;
	struct roce_qp_cc_info ia, ib;
	struct stk_port_stats before, after;
	uint64_t t0;
	double secs;
	(void)st;

	/* congestion control off: no ECT, no marks, no CNPs */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &ce), 0);
	connect_pair(ROCE_MTU_1024, 7, 1);
	stk_stats_sum(-1, &before);
	for (uint32_t i = 0; i < 16; i++) {
		struct roce_wc wc;

		fill(s[0].buf, 65536, i);
		post(0, ROCE_WR_RDMA_WRITE, i, 0, 65536, (uintptr_t)(s[1].buf + (17u << 20)),
		     s[1].mr->rkey);
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	}
	stk_stats_sum(-1, &after);
	assert_int_equal(after.c[STK_CNT_impair_ce_marked], before.c[STK_CNT_impair_ce_marked]);
	roce_qp_cc_info(s[0].qp, &ia);
	assert_false(ia.on);
	assert_int_equal(ia.cnp_rx, 0);
	disconnect_pair();

	roce_dcqcn_params_default(&p, 100.0);
	assert_int_equal(roce_dev_set_cc(s[0].dev, &p), 0);
	assert_int_equal(roce_dev_set_cc(s[1].dev, &p), 0);
	p.g = 2; /* out of range */
	assert_int_equal(roce_dev_set_cc(s[0].dev, &p), -EINVAL);
	connect_pair(ROCE_MTU_1024, 7, 1);
	stk_stats_sum(-1, &before);
	t0 = rte_get_tsc_cycles();
	for (uint32_t i = 0; i < 64; i++) {
		struct roce_wc wc;

		fill(s[0].buf, 65536, i);
		post(0, ROCE_WR_RDMA_WRITE, i, 0, 65536, (uintptr_t)(s[1].buf + (17u << 20)),
		     s[1].mr->rkey);
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_memory_equal(s[1].buf + (17u << 20), s[0].buf, 65536);
	}
	secs = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	stk_stats_sum(-1, &after);
	roce_qp_cc_info(s[0].qp, &ia);
	roce_qp_cc_info(s[1].qp, &ib);
	assert_true(after.c[STK_CNT_impair_ce_marked] > before.c[STK_CNT_impair_ce_marked]);
	assert_true(ia.on && ib.on);
	assert_true(ib.cnp_tx > 0);
	assert_int_equal(ia.cnp_rx, ib.cnp_tx);
	/* the NP's pacing: never more than one CNP per 50 us */
	assert_true((double)ib.cnp_tx <= secs / 50e-6 + 1);
	/* the RP cut its rate and has not recovered to line rate under constant marking */
	assert_true(ia.rate_gbps < 100.0);
	print_message("dcqcn: %lu CNPs in %.3f s, A's rate %.2f Gbit/s (target %.2f, alpha %.3f, "
		      "stage %s)\n",
		      (unsigned long)ib.cnp_tx, secs, ia.rate_gbps, ia.target_gbps, ia.alpha,
		      roce_dcqcn_stage_str(ia.stage));
	disconnect_pair();
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(roce_dev_set_cc(s[0].dev, NULL), 0);
	assert_int_equal(roce_dev_set_cc(s[1].dev, NULL), 0);
}

/* An ACK for a PSN A never sent (seen from Linux rxe when it was confused about our starting
 * PSN: ACK PSN 0xffffff) must complete nothing; the SEND it would have "acknowledged" is
 * still delivered later by retransmission. */
static void ghost_ack_completes_nothing(void **st)
{
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 4};
	struct roce_qp_attr qa, qb;
	struct roce_path to_a;
	struct roce_tx t;
	struct rte_mbuf *m;
	struct roce_wc wc;
	uint64_t end;
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
	assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
	/* B hears nothing for now; A's SEND stays unacknowledged */
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
	fill(s[0].buf, 3000, 5);
	post(0, ROCE_WR_SEND, 42, 0, 3000, 0, 0);
	drive(20);
	/* a forged ACK from B's interface, far beyond anything A sent */
	memset(&to_a, 0, sizeof(to_a));
	stk_ipaddr_parse("10.77.0.1", &to_a.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to_a;
	t.lqpn = roce_qp_num(s[1].qp);
	t.dqpn = roce_qp_num(s[0].qp);
	t.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	t.psn = (qa.sq_psn + 0x1000) & 0xffffff;
	t.syndrome = 0x1f;
	m = roce_tx_build(pool, stk_iface_get(1), &t, NULL, 0, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(lc, stk_iface_get(1), m, &to_a.dgid_ip), 0);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 50; /* 20 ms */
	while (rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		assert_int_equal(roce_poll_cq(s[0].cq, 1, &wc), 0); /* nothing completed */
	}
	/* B hears again and has a buffer: the retransmitted SEND arrives and completes */
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	post_recv(1, 7, 65536, 4096);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_true(wc.wr_id == 42);
	assert_int_equal(wait_wc(1, &wc, 1), 1);
	assert_int_equal(wc.byte_len, 3000);
	assert_memory_equal(s[1].buf + 65536, s[0].buf, 3000);
	(void)qb;
	disconnect_pair();
}

/* A forged ACK/NAK to A's QP from B's interface, AETH syndrome @syn at @psn. */
static void forge_ack_to_a(uint32_t psn, uint8_t syn)
{
	struct roce_path to_a;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&to_a, 0, sizeof(to_a));
	stk_ipaddr_parse("10.77.0.1", &to_a.dgid_ip);
	memset(&t, 0, sizeof(t));
	t.path = &to_a;
	t.lqpn = roce_qp_num(s[1].qp);
	t.dqpn = roce_qp_num(s[0].qp);
	t.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	t.psn = psn & 0xffffff;
	t.syndrome = syn;
	m = roce_tx_build(pool, stk_iface_get(1), &t, NULL, 0, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(lc, stk_iface_get(1), m, &to_a.dgid_ip), 0);
	drive(20);
}

/*
 * Issue 11, "confirm": reserved NAK codes (5..31 of IBA Table 44's NAK codes; 4, invalid RD
 * request, belongs to RD, which droce has not) end the WQE they name with an error and move
 * the QP to ERR, as Linux rxe does (rxe_comp.c check_ack(): an unexpected NAK code completes
 * the WQE with an error). Checked, and kept: such a NAK can only come from the peer (or a
 * forger, which issue 11 item 3's address checks are for). What does not end the QP: a
 * reserved NAK for a PSN already acknowledged (stale, like every NAK behind comp.psn), and a
 * reserved AETH type (syndrome bits 6:5 = 10), which is ignored.
 */
static void reserved_nak_codes(void **st)
{
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 4};
	struct roce_qp_attr qa;
	struct roce_wc wc;
	uint64_t end;
	(void)st;

	/* a reserved AETH type and a stale reserved NAK change nothing */
	connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
	fill(s[0].buf, 3000, 5);
	post(0, ROCE_WR_SEND, 42, 0, 3000, 0, 0);
	drive(20);
	forge_ack_to_a(qa.sq_psn, 0x40 | 5);		     /* type 10: reserved */
	forge_ack_to_a(qa.sq_psn - 1, 0x60 | 5);	     /* behind comp.psn: stale */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 100; /* 10 ms */
	while (rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc);
		assert_int_equal(roce_poll_cq(s[0].cq, 1, &wc), 0);
	}
	assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_RTS);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	post_recv(1, 7, 65536, 4096);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, &wc, 1), 1);
	disconnect_pair();

	/* a reserved NAK code for an outstanding PSN: the WQE fails and the QP with it */
	for (uint8_t code = 4; code <= 31; code += 27) {
		connect_pair(ROCE_MTU_1024, 7, 1);
		assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
		post(0, ROCE_WR_SEND, 43, 0, 3000, 0, 0);
		post(0, ROCE_WR_SEND, 44, 0, 3000, 0, 0);
		drive(20);
		forge_ack_to_a(qa.sq_psn, (uint8_t)(0x60 | code));
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 43);
		assert_int_equal(wc.status, ROCE_WC_REM_INV_REQ_ERR);
		assert_int_equal(wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 44 && wc.status == ROCE_WC_WR_FLUSH_ERR);
		assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_ERR);
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
		disconnect_pair();
	}
}

/*
 * Send from side @from to the other side's QP a packet built as opcode @built (which carries
 * payload) and relabelled as @as (which carries none), so that the bytes after @as's headers
 * are trailing payload; the ICRC is computed again for the new opcode.
 */
static void inject_relabelled(int from, uint8_t built, uint8_t as, uint32_t psn, uint64_t va,
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
	t.lqpn = roce_qp_num(s[from].qp);
	t.dqpn = roce_qp_num(s[!from].qp);
	t.opcode = built;
	t.psn = psn & 0xffffff;
	t.va = va;
	t.rkey = rkey;
	m = roce_tx_build(pool, stk_iface_get((uint16_t)from), &t, payload, len, NULL);
	assert_non_null(m);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	assert_true(f[12] == 0x08 && f[13] == 0x00 &&
		    f[14] == 0x45); /* Ethernet, IPv4, no options */
	f[14 + 20 + 8] = as;
	roce_icrc_fill(m, 14, 14 + 20 + 8, rte_pktmbuf_pkt_len(m) - ROCE_ICRC_LEN);
	assert_int_equal(stk_ip_send(lc, stk_iface_get((uint16_t)from), m, &to.dgid_ip), 0);
	drive(20);
}

/*
 * Issue 11, "confirm": READ requests, atomics and ACKs that carry bytes after their headers
 * were accepted (the decoder refused pad on them, not payload). Now they are malformed and
 * dropped by the decoder (IBA 9.2.3), counted as drop_decode_payload_on_header_only. Each
 * packet below would act if it were taken: the READ would be answered, the FETCH_ADD would
 * add, the remote-access NAK would end A's QP.
 */
static void trailing_payload_dropped(void **st)
{
	struct stk_impair_conf deaf = {.drop_ppm = 1000000, .roce_only = true, .seed = 4};
	uint64_t *target = (uint64_t *)(s[1].buf + 256), t0, d0;
	uint8_t body[64];
	struct roce_qp_attr qa, qb;
	struct roce_wc wc;
	(void)st;

	connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(s[0].qp, &qa, NULL), 0);
	assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
	t0 = s[1].qp->cnt[ROCE_QPC_tx_pkts];
	d0 = s[1].dev->decode_drops[ROCE_DROP_TRAILING];
	/* a READ request (RETH from a WRITE_ONLY) with 8 bytes after the RETH */
	memset(body, 0xab, sizeof(body));
	inject_relabelled(0, ROCE_OP_RC_RDMA_WRITE_ONLY, ROCE_OP_RC_RDMA_READ_REQUEST, qb.rq_psn,
			  (uintptr_t)s[1].buf, s[1].mr->rkey, body, 8);
	assert_int_equal(s[1].qp->cnt[ROCE_QPC_tx_pkts], t0); /* not answered */
	assert_int_equal(s[1].dev->decode_drops[ROCE_DROP_TRAILING], d0 + 1);
	/* a FETCH_ADD (its AtomicETH as a SEND_ONLY's payload) with 8 more bytes */
	*target = 7;
	{
		uint64_t va = rte_cpu_to_be_64((uintptr_t)target), add = rte_cpu_to_be_64(1);
		uint32_t rkey = rte_cpu_to_be_32(s[1].mr->rkey);

		memset(body, 0, sizeof(body));
		memcpy(body, &va, 8);
		memcpy(body + 8, &rkey, 4);
		memcpy(body + 12, &add, 8);
	}
	inject_relabelled(0, ROCE_OP_RC_SEND_ONLY, ROCE_OP_RC_FETCH_ADD, qb.rq_psn, 0, 0, body,
			  28 + 8);
	assert_true(*target == 7); /* not executed */
	assert_int_equal(s[1].qp->cnt[ROCE_QPC_tx_pkts], t0);
	assert_int_equal(s[1].dev->decode_drops[ROCE_DROP_TRAILING], d0 + 2);
	/* a remote-access-error NAK (its AETH as payload) with 8 more bytes, for A's SEND */
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
	fill(s[0].buf, 100, 1);
	post(0, ROCE_WR_SEND, 9, 0, 100, 0, 0);
	drive(20);
	memset(body, 0, sizeof(body));
	body[0] = 0x62; /* NAK, remote access error; MSN 0 */
	inject_relabelled(1, ROCE_OP_RC_SEND_ONLY, ROCE_OP_RC_ACKNOWLEDGE, qa.sq_psn, 0, 0, body,
			  4 + 8);
	assert_int_equal(s[0].dev->decode_drops[ROCE_DROP_TRAILING], 1);
	assert_int_equal(roce_qp_state(s[0].qp), ROCE_QPS_RTS);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	post_recv(1, 10, 65536, 4096);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, &wc, 1), 1);
	assert_int_equal(wc.byte_len, 100);
	disconnect_pair();
}

/*
 * A frame to side @to's QP, sent from the other side's interface as if from its QP, but with
 * IP source @src (NULL: the sender's interface address), BTH P_Key @pkey (0: the default
 * 0xffff) and ECN @ecn; then 20 polls.
 */
static void forge_to(int to, const char *src, uint8_t opcode, uint32_t psn, uint16_t pkey,
		     uint8_t ecn, const void *payload, uint32_t len)
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
	t.lqpn = roce_qp_num(s[!to].qp);
	t.dqpn = roce_qp_num(s[to].qp);
	t.opcode = opcode;
	t.psn = psn & 0xffffff;
	t.pkey = pkey;
	t.becn = opcode == ROCE_OP_CNP;
	m = roce_tx_build(pool, stk_iface_get((uint16_t)!to), &t, payload, len, NULL);
	assert_non_null(m);
	assert_int_equal(stk_ip_send(lc, stk_iface_get((uint16_t)!to), m, &path.dgid_ip), 0);
	drive(20);
}

/*
 * Issue 11 item 3: RC/UC packets were matched by destination QPN alone. A third host
 * (10.77.0.3, on the link) that guesses the QPN could cut A's DCQCN rate with a CNP, make B
 * send CNPs with a CE-marked request, and make B NAK the real peer with a PSN from the
 * future. Now every packet for a connected QP must come from its peer's address (IBTA 9.6.1
 * checks the source GID, rxe's check_addr the source IP) and carry a P_Key that matches the
 * QP's partition (IBTA 9.6.1.1, rxe's check_keys); the others are dropped and counted by
 * reason. The same frames from the real peer's address do act (the controls).
 */
static void foreign_source_dropped(void **st)
{
	struct roce_dcqcn_params p;
	struct roce_qp_cc_info ia, ib, ia2, ib2;
	struct roce_qp_attr qb;
	struct roce_wc wc;
	uint64_t b_tx, b_nak, cuts, a_addr, a_pkey, b_addr, b_pkey;
	uint8_t body[64];
	(void)st;

	roce_dcqcn_params_default(&p, 100.0);
	assert_int_equal(roce_dev_set_cc(s[0].dev, &p), 0);
	assert_int_equal(roce_dev_set_cc(s[1].dev, &p), 0);
	connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(s[1].qp, &qb, NULL), 0);
	roce_qp_cc_info(s[0].qp, &ia);
	roce_qp_cc_info(s[1].qp, &ib);
	b_tx = s[1].qp->cnt[ROCE_QPC_tx_pkts];
	b_nak = s[1].qp->cnt[ROCE_QPC_nak_seq_tx];
	cuts = s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY];
	a_addr = s[0].dev->drops[ROCE_RX_DROP_PEER_ADDR];
	a_pkey = s[0].dev->drops[ROCE_RX_DROP_PKEY];
	b_addr = s[1].dev->drops[ROCE_RX_DROP_PEER_ADDR];
	b_pkey = s[1].dev->drops[ROCE_RX_DROP_PKEY];
	memset(body, 0x5a, sizeof(body));

	/* a CNP to A from the third host, and one from B's address with a foreign P_Key */
	forge_to(0, "10.77.0.3", ROCE_OP_CNP, 0, 0, 0, NULL, 0);
	forge_to(0, NULL, ROCE_OP_CNP, 0, 0x1234, 0, NULL, 0);
	roce_qp_cc_info(s[0].qp, &ia2);
	assert_int_equal(ia2.cnp_rx, ia.cnp_rx);
	assert_true(ia2.rate_gbps == ia.rate_gbps); /* no rate cut */
	assert_int_equal(s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY], cuts);
	assert_int_equal(s[0].dev->drops[ROCE_RX_DROP_PEER_ADDR], a_addr + 1);
	assert_int_equal(s[0].dev->drops[ROCE_RX_DROP_PKEY], a_pkey + 1);
	/* a CE-marked SEND from the third host, with a PSN from B's future */
	forge_to(1, "10.77.0.3", ROCE_OP_RC_SEND_ONLY, qb.rq_psn + 100, 0, 3, body, 64);
	/* the same at B's expected PSN, and from B's peer's address with a foreign P_Key */
	post_recv(1, 77, 65536, 4096);
	forge_to(1, "10.77.0.3", ROCE_OP_RC_SEND_ONLY, qb.rq_psn, 0, 3, body, 64);
	forge_to(1, NULL, ROCE_OP_RC_SEND_ONLY, qb.rq_psn, 0x1234, 3, body, 64);
	forge_to(1, NULL, ROCE_OP_RC_SEND_ONLY, qb.rq_psn + 100, 0x0001, 3, body, 64);
	roce_qp_cc_info(s[1].qp, &ib2);
	assert_int_equal(ib2.cnp_tx, ib.cnp_tx);		    /* no CNP */
	assert_int_equal(s[1].qp->cnt[ROCE_QPC_nak_seq_tx], b_nak); /* no NAK */
	assert_int_equal(s[1].qp->cnt[ROCE_QPC_tx_pkts], b_tx);	    /* nothing sent */
	assert_int_equal(roce_poll_cq(s[1].cq, 1, &wc), 0);	    /* nothing delivered */
	assert_int_equal(s[1].qp->resp.psn, qb.rq_psn);		    /* PSN unmoved */
	assert_int_equal(s[1].dev->drops[ROCE_RX_DROP_PEER_ADDR], b_addr + 2);
	assert_int_equal(s[1].dev->drops[ROCE_RX_DROP_PKEY], b_pkey + 2);

	/* the connection is untouched: A's SEND lands in the receive posted above */
	fill(s[0].buf, 100, 3);
	post(0, ROCE_WR_SEND, 78, 0, 100, 0, 0);
	assert_int_equal(wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wait_wc(1, &wc, 1), 1);
	assert_true(wc.wr_id == 77 && wc.byte_len == 100);
	assert_memory_equal(s[1].buf + 65536, s[0].buf, 100);

	/* the controls: a CNP from B's address with the default P_Key, or with the limited
	 * member form of it (IBTA 10.9.3: the low 15 bits match and one side is a full member),
	 * cuts A's rate */
	roce_qp_cc_info(s[0].qp, &ia);
	cuts = s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY];
	forge_to(0, NULL, ROCE_OP_CNP, 0, 0, 0, NULL, 0);
	forge_to(0, NULL, ROCE_OP_CNP, 0, 0x7fff, 0, NULL, 0);
	roce_qp_cc_info(s[0].qp, &ia2);
	assert_int_equal(ia2.cnp_rx, ia.cnp_rx + 2);
	assert_true(s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY] > cuts);
	disconnect_pair();
	assert_int_equal(roce_dev_set_cc(s[0].dev, NULL), 0);
	assert_int_equal(roce_dev_set_cc(s[1].dev, NULL), 0);
}

static uint16_t ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
	int p = ut_ring_port(name, rx, tx, pool);

	if (p < 0)
		abort();
	return (uint16_t)p;
}

static int group_setup(void **st)
{
	struct rte_ring *r[2];
	struct stk_neigh_params np;
	(void)st;

	pool = rte_pktmbuf_pool_create("rc_pool", 32767, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	r[0] = rte_ring_create("rc_r0", 16384, 0, 0);
	r[1] = rte_ring_create("rc_r1", 16384, 0, 0);
	if (!pool || !r[0] || !r[1])
		return -1;
	port[0] = ring_port("rc_a", r[0], r[1]);
	port[1] = ring_port("rc_b", r[1], r[0]);
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "rc%d", k);
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x77, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.77.0.2" : "10.77.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 9000; /* jumbo: IB path MTUs up to 4096 fit */
		ifc.nb_rxq = ifc.nb_txq = 1;
		assert_int_equal(stk_iface_add(&ifc), k);
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
		s[k].pd = s[k].dev ? roce_alloc_pd(s[k].dev) : NULL;
		s[k].cq = s[k].dev ? roce_create_cq(s[k].dev, 1024) : NULL;
		s[k].buf = rte_zmalloc("rc_buf", BUF, 64);
		if (!s[k].pd || !s[k].cq || !s[k].buf)
			return -1;
		s[k].mr = roce_reg_mr(s[k].pd, s[k].buf, BUF, (uintptr_t)s[k].buf,
				      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					      ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC);
		stk_lcore_add_poll(lc, roce_poll, s[k].dev);
	}
	lc->nb_rxq = 2;
	base_in_use = rte_mempool_in_use_count(pool);
	return 0;
}

static int group_teardown(void **st)
{
	(void)st;
	drive(100);
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;

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

int main(void)
{
	/* two lcores, both on CPU 0: one test drives a second lcore context by hand */
	static char a0[] = "test_rc", a1[] = "--no-huge", a2[] = "-m", a3[] = "512",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry",
		    a7[] = "--lcores=0@0,1@0", a8[] = "--main-lcore=0",
		    a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(send_mtu256),
		cmocka_unit_test(send_mtu1024),
		cmocka_unit_test(write_read_sizes),
		cmocka_unit_test(write_with_imm),
		cmocka_unit_test(atomics),
		cmocka_unit_test(access_errors),
		cmocka_unit_test(missing_right),
		cmocka_unit_test(rnr),
		cmocka_unit_test(rnr_write_with_imm),
		cmocka_unit_test(err_mid_send_flushes_rwqe),
		cmocka_unit_test(lossy_soak),
		cmocka_unit_test(every_mtu_to_16mib),
		cmocka_unit_test(uc_pair),
		cmocka_unit_test(uc_replay_dropped),
		cmocka_unit_test(atomic_cache_psn_wrap),
		cmocka_unit_test(duplicate_read_history),
		cmocka_unit_test(ud_pair),
		cmocka_unit_test(frwr_and_invalidate),
		cmocka_unit_test(dereg_mid_write),
		cmocka_unit_test(dereg_mid_read),
		cmocka_unit_test(dead_local_region),
		cmocka_unit_test(local_inv_failure),
		cmocka_unit_test(too_many_reads),
		cmocka_unit_test(atomic_counts_as_responder_resource),
		cmocka_unit_test(second_lcore_hands_off),
		cmocka_unit_test(read_len_beyond_2_31),
		cmocka_unit_test(read_response_order),
		cmocka_unit_test(send_inv_needs_remote_right),
		cmocka_unit_test(owner_claimed_by_first_poll),
		cmocka_unit_test(dcqcn_reacts_to_ce),
		cmocka_unit_test(ghost_ack_completes_nothing),
		cmocka_unit_test(reserved_nak_codes),
		cmocka_unit_test(trailing_payload_dropped),
		cmocka_unit_test(foreign_source_dropped),
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
