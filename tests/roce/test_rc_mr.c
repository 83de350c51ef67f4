/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc_mr.c - memory regions under RC traffic, two QPs back to back over net_ring
 * (rc_fixture.c): fast registration and invalidation (SEND with invalidate, LOCAL_INV) as the
 * Linux NFS client uses them; a region deregistered or invalidated while a WRITE into it or a
 * READ from it is half done (no byte of it touched after); a receive, READ or atomic whose own
 * region died before its data came; a LOCAL_INV that cannot be done;
 * SEND with invalidate of a region never granted a remote right.
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
#include <rte_mbuf.h>

#include "rc_fixture.h"
#include "roce_hdr.h"
#include "roce_int.h" /* the responder's outcome counters */
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"

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
	w.wr.reg.addr = rcf_s[k].buf + (5u << 20);
	assert_int_equal(roce_post_send(rcf_s[k].qp, &w, &bad), 0);
}

/*
 * Fast registration as the Linux NFS client uses it: B maps a region with a REG_MR work
 * request under a new key, A writes through that key, then A's SEND with invalidate retires it
 * (IBA 10.6.3.5), after which the key is refused. Then the same with a local invalidate.
 */
static void frwr_and_invalidate(void **st)
{
	struct roce_mr *fr = roce_alloc_mr(rcf_s[1].pd, 65536);
	struct roce_wc wc[2];
	uint32_t key;
	(void)st;

	assert_non_null(fr);
	key = (fr->rkey & ~0xffu) | 0x77;
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	post_local(1, ROCE_WR_REG_MR, 1, fr, key);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_REG_MR);
	/* A writes through the new key into B's mapped region */
	rcf_fill(rcf_s[0].buf, 1000, 61);
	rcf_post(0, ROCE_WR_RDMA_WRITE, 2, 0, 1000, 0xdead0000 + 100, key);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(rcf_s[1].buf + (5u << 20) + 100, rcf_s[0].buf, 1000);
	/* SEND with invalidate: B's receive completes WITH_INV and the key dies */
	{
		struct roce_sge sg = {
			.addr = (uintptr_t)rcf_s[0].buf, .length = 16, .lkey = rcf_s[0].mr->lkey};
		struct roce_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND_WITH_INV;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.invalidate_rkey = key;
		rcf_post_recv(1, 3, 0, 64);
		assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
	}
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_INV);
	assert_int_equal(wc[0].invalidated_rkey, key);
	assert_int_equal(fr->state, ROCE_MR_INVALID);
	rcf_post(0, ROCE_WR_RDMA_WRITE, 4, 0, 8, 0xdead0000, key);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	rcf_disconnect_pair();

	/* re-register under the next key, invalidate it locally: A is refused again */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	key = (fr->rkey & ~0xffu) | 0x78;
	post_local(1, ROCE_WR_REG_MR, 5, fr, key);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	rcf_post(0, ROCE_WR_RDMA_READ, 6, RCF_BUF / 2, 64, 0xdead0000, key);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	post_local(1, ROCE_WR_LOCAL_INV, 7, fr, key);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_LOCAL_INV);
	rcf_post(0, ROCE_WR_RDMA_READ, 8, RCF_BUF / 2, 64, 0xdead0000, key);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	rcf_disconnect_pair();
	assert_int_equal(roce_dereg_mr(fr), 0);
}

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

	rcf_qp_timeout = 14;
	for (int inval = 0; inval < 2; inval++) {
		uint32_t n = inval ? 65536 : len;
		uint8_t *mem = malloc(n);
		struct roce_mr *mr;
		struct roce_wc wc;
		uint32_t key;

		assert_non_null(mem);
		memset(mem, 0, n);
		rcf_connect_pair(inval ? ROCE_MTU_256 : ROCE_MTU_1024, 7, 1);
		if (inval) {
			struct roce_send_wr w, *bad;

			mr = roce_alloc_mr(rcf_s[1].pd, n);
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
			assert_int_equal(roce_post_send(rcf_s[1].qp, &w, &bad), 0);
			assert_int_equal(rcf_wait_wc(1, &wc, 1), 1);
			assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		} else {
			mr = roce_reg_mr(rcf_s[1].pd, mem, n, iova,
					 ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
			assert_non_null(mr);
			key = mr->rkey;
		}
		rcf_fill(rcf_s[0].buf, n, 91);
		rcf_post(0, ROCE_WR_RDMA_WRITE, 1, 0, n, iova, key);
		for (int i = 0; i < 100000 && !rcf_s[1].qp->resp.write_active; i++)
			rcf_drive(1);
		assert_true(rcf_s[1].qp->resp.write_active); /* FIRST placed, LAST not yet */
		if (inval) {
			assert_int_equal(roce_mr_invalidate(rcf_s[1].dev, key, rcf_s[1].pd, false),
					 0);
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
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 1);
		assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_MR_GONE], 1);
		assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
		rcf_drive(200);
		if (mem) {
			for (uint32_t i = 0; i < n; i++)
				if (mem[i] != 0x5a)
					fail_msg("byte %u of the dead region written", i);
		}
		rcf_disconnect_pair();
		if (mr)
			assert_int_equal(roce_dereg_mr(mr), 0);
		free(mem);
	}
	rcf_qp_timeout = 10;
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

	rcf_qp_timeout = 14;
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[1].buf, len, 93);
	memset(rcf_s[0].buf + dst, 0, len);
	mr = roce_reg_mr(rcf_s[1].pd, rcf_s[1].buf, len, iova, ROCE_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	rcf_post(0, ROCE_WR_RDMA_READ, 1, dst, len, iova, mr->rkey);
	for (int i = 0; i < 1000000 && rcf_s[0].qp->comp.read_off < len / 2; i++)
		rcf_drive(1);
	assert_true(rcf_s[0].qp->comp.read_off >= len / 2 && rcf_s[0].qp->comp.read_off < len);
	roce_dev_counts(rcf_s[1].dev, &c0);
	t0 = rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts];
	while ((rc = roce_dereg_mr(mr)) == -EBUSY && busy < 1000) {
		busy++;
		rcf_drive(1);
	}
	assert_int_equal(rc, 0);
	assert_true(busy > 0); /* B's last burst was still in the ring */
	roce_dev_counts(rcf_s[1].dev, &c1);
	assert_int_equal(c1.mr_dereg_busy - c0.mr_dereg_busy, busy);
	memset(rcf_s[1].buf, 0xa5, len);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts] - t0, 1); /* the NAK, nothing else */
	assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_MR_GONE], 1);
	assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
	rcf_fill(rcf_s[1].buf, len, 93); /* what A may have: the pattern, or nothing (0) */
	for (uint32_t i = 0; i < len; i++) {
		uint8_t got = rcf_s[0].buf[dst + i];

		if (got != rcf_s[1].buf[i] && got != 0)
			fail_msg("byte %u of the READ is 0x%02x", i, got);
	}
	assert_memory_equal(rcf_s[0].buf + dst, rcf_s[1].buf, len / 2);
	rcf_disconnect_pair();
	rcf_qp_timeout = 10;
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

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[1].buf, 64, 3);
	rcf_post(1, ROCE_WR_RDMA_WRITE, 1, 0, 64, (uintptr_t)(rcf_s[0].buf + 4096),
		 rcf_s[0].mr->rkey);
	post_local(1, ROCE_WR_LOCAL_INV, 2, NULL, rcf_s[1].mr->rkey);
	rcf_post(1, ROCE_WR_RDMA_WRITE, 3, 0, 64, (uintptr_t)(rcf_s[0].buf + 8192),
		 rcf_s[0].mr->rkey);
	assert_int_equal(rcf_wait_wc(1, wc, 3), 3);
	assert_true(wc[0].wr_id == 1 && wc[0].status == ROCE_WC_SUCCESS);
	assert_true(wc[1].wr_id == 2);
	assert_int_equal(wc[1].status, ROCE_WC_LOC_QP_OP_ERR);
	assert_true(wc[2].wr_id == 3 && wc[2].status == ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
	rcf_disconnect_pair();
	/* the region was not invalidated: A still reads through its key */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_post(0, ROCE_WR_RDMA_READ, 4, RCF_BUF / 2, 64, (uintptr_t)rcf_s[1].buf,
		 rcf_s[1].mr->rkey);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	rcf_disconnect_pair();
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
	assert_int_equal(roce_post_send(rcf_s[k].qp, &w, &bad), 0);
	assert_int_equal(rcf_wait_wc(k, &wc, 1), 1);
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
	struct roce_mr *fr = roce_alloc_mr(rcf_s[1].pd, 65536);
	(void)st;

	assert_non_null(fr);
	for (int remote = 0; remote < 2; remote++) {
		uint32_t key = (fr->rkey & ~0xffu) | (uint32_t)(0x50 + remote);
		struct roce_sge sg = {
			.addr = (uintptr_t)rcf_s[0].buf, .length = 16, .lkey = rcf_s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc;

		rcf_connect_pair(ROCE_MTU_1024, 7, 1);
		post_reg(1, fr, key,
			 ROCE_ACCESS_LOCAL_WRITE | (remote ? ROCE_ACCESS_REMOTE_READ : 0),
			 rcf_s[1].buf + (6u << 20), 0xbeef0000, 65536);
		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND_WITH_INV;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.invalidate_rkey = key;
		rcf_post_recv(1, 3, 0, 64);
		assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, remote ? ROCE_WC_SUCCESS : ROCE_WC_REM_INV_REQ_ERR);
		assert_int_equal(fr->state, remote ? ROCE_MR_INVALID : ROCE_MR_VALID);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_INVALIDATE],
				 remote ? 0 : 1);
		rcf_disconnect_pair();
	}
	assert_int_equal(roce_dereg_mr(fr), 0);
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
		rcf_connect_pair(ROCE_MTU_1024, 7, 1);
		if (c == 1) {
			mr = roce_alloc_mr(rcf_s[1].pd, n);
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
				assert_int_equal(roce_post_send(rcf_s[1].qp, &w, &bad), 0);
			}
			assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		} else {
			mr = roce_reg_mr(rcf_s[c ? 0 : 1].pd, mem, n, (uintptr_t)mem,
					 ROCE_ACCESS_LOCAL_WRITE);
			assert_non_null(mr);
			key = mr->lkey;
		}
		sg = (struct roce_sge){
			.addr = (uintptr_t)mem, .length = c == 3 ? 8 : 64, .lkey = key};
		if (c < 2) { /* B's receive into the region, then the region goes */
			struct roce_recv_wr r = {.wr_id = 40, .sg_list = &sg, .num_sge = 1}, *bad;

			assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &bad), 0);
			if (c == 1)
				assert_int_equal(
					roce_mr_invalidate(rcf_s[1].dev, key, rcf_s[1].pd, false),
					0);
			rcf_post(0, ROCE_WR_SEND, 41, 0, 32, 0, 0);
		} else { /* A's READ or fetch-and-add into it */
			struct roce_send_wr w, *bad;

			memset(&w, 0, sizeof(w));
			w.wr_id = 42;
			w.opcode = c == 2 ? ROCE_WR_RDMA_READ : ROCE_WR_ATOMIC_FETCH_AND_ADD;
			w.sg_list = &sg;
			w.num_sge = 1;
			w.send_flags = ROCE_SEND_SIGNALED;
			w.wr.atomic.remote_addr = (uintptr_t)rcf_s[1].buf;
			w.wr.atomic.compare_add = 1;
			w.wr.atomic.rkey = rcf_s[1].mr->rkey;
			if (c == 2) {
				w.wr.rdma.remote_addr = (uintptr_t)rcf_s[1].buf;
				w.wr.rdma.rkey = rcf_s[1].mr->rkey;
			}
			assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
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
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		if (c < 2) {
			assert_true(wc[0].wr_id == 41);
			assert_int_equal(wc[0].status, ROCE_WC_REM_OP_ERR);
			assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
			assert_true(wc[0].wr_id == 40);
			assert_int_equal(wc[0].status, ROCE_WC_LOC_QP_OP_ERR);
			assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_LOCAL_WQE], 1);
			assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
		} else {
			assert_true(wc[0].wr_id == 42);
			assert_int_equal(wc[0].status, ROCE_WC_LOC_PROT_ERR);
			assert_int_equal(roce_qp_state(rcf_s[0].qp), ROCE_QPS_ERR);
		}
		rcf_drive(100);
		for (uint32_t i = 0; mem && i < n; i++)
			if (mem[i] != 0x5a)
				fail_msg("case %d: byte %u of the dead region written", c, i);
		rcf_disconnect_pair();
		if (mr)
			assert_int_equal(roce_dereg_mr(mr), 0);
		free(mem);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frwr_and_invalidate),
		cmocka_unit_test(dereg_mid_write),
		cmocka_unit_test(dereg_mid_read),
		cmocka_unit_test(dead_local_region),
		cmocka_unit_test(local_inv_failure),
		cmocka_unit_test(send_inv_needs_remote_right),
	};
	int rc;

	if (rcf_eal_init("test_rc_mr") < 0)
		return 1;
	/* these tests are about frames that point into regions: every payload attached, none
	 * copied (the transport copies payloads of up to 1 KiB by default, roce_copy_max) */
	roce_copy_max = 0;
	rc = cmocka_run_group_tests(tests, rcf_group_setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
