/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc.c - two RC QPs back to back over net_ring in one process (the fixture in
 * rc_fixture.c): the data path. Every data opcode at several sizes and path MTUs, byte for
 * byte, up to 16 MiB at every path MTU; WRITE with immediate; atomics; the access errors that
 * must end in REM_ACCESS_ERR (bad rkey, out of bounds, missing right); UC and UD pairs; a
 * second lcore handing frames to the device's owner; DCQCN reacting to CE marks end to end.
 * Loss recovery is in test_rc_recovery.c, memory regions in test_rc_mr.c and a peer's
 * protocol violations in test_rc_violations.c.
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
#include <rte_mbuf.h>

#include "rc_fixture.h"
#include "roce_dcqcn.h"
#include "roce_hdr.h"
#include "roce_int.h" /* the responder's outcome counters */
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"

static const uint32_t sizes[] = {0, 1, 3, 255, 256, 257, 1023, 1024, 1025, 4096, 65536, 300000};

static void send_all_sizes(enum roce_mtu mtu)
{
	rcf_connect_pair(mtu, 7, 1);
	for (unsigned i = 0; i < RTE_DIM(sizes); i++) {
		struct roce_wc wc[2];
		uint32_t n = sizes[i];

		rcf_fill(rcf_s[0].buf, n, i);
		memset(rcf_s[1].buf + 4096, 0xee, n + 64);
		rcf_post_recv(1, 500 + i, 4096, n + 64);
		rcf_post(0, ROCE_WR_SEND, 600 + i, 0, n, 0, 0);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_true(wc[0].wr_id == 600 + i && wc[0].opcode == ROCE_WC_SEND);
		assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_true(wc[0].wr_id == 500 + i && wc[0].opcode == ROCE_WC_RECV);
		assert_int_equal(wc[0].byte_len, n);
		assert_memory_equal(rcf_s[1].buf + 4096, rcf_s[0].buf, n);
		assert_int_equal(rcf_s[1].buf[4096 + n],
				 0xee); /* nothing written past the message */
	}
	rcf_disconnect_pair();
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
	rcf_connect_pair(ROCE_MTU_512, 7, 1);
	for (unsigned i = 0; i < RTE_DIM(sizes); i++) {
		struct roce_wc wc[2];
		uint32_t n = sizes[i];
		uint64_t dst = (uintptr_t)(rcf_s[1].buf + 8192); /* iova == address here */

		rcf_fill(rcf_s[0].buf, n, 40 + i);
		memset(rcf_s[1].buf + 8192, 0, n + 16);
		rcf_post(0, ROCE_WR_RDMA_WRITE, 700 + i, 0, n, dst, rcf_s[1].mr->rkey);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_WRITE);
		assert_memory_equal(rcf_s[1].buf + 8192, rcf_s[0].buf, n);
		assert_int_equal(rcf_s[1].buf[8192 + n], 0);
		/* and read it back into a clean area of A */
		memset(rcf_s[0].buf + RCF_BUF / 2, 0x5a, n + 16);
		rcf_post(0, ROCE_WR_RDMA_READ, 800 + i, RCF_BUF / 2, n, dst, rcf_s[1].mr->rkey);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_READ);
		assert_int_equal(wc[0].byte_len, n);
		assert_memory_equal(rcf_s[0].buf + RCF_BUF / 2, rcf_s[0].buf, n);
		assert_int_equal(rcf_s[0].buf[RCF_BUF / 2 + n], 0x5a);
	}
	rcf_disconnect_pair();
}

/*
 * A burst of requests gets one ACK (roce_responder.c defer_ack): A posts 8 WRITEs of 64 B at
 * once, each the last packet of its message (AckReq set); its requester sends all 8 in one
 * poll, B's port receives them in one RX burst, and B answers them with one ACK, for the 8th,
 * sent by the device poll after the burst: B counts 7 ACKs coalesced, A receives exactly one
 * ACK, and all 8 WRITEs complete in order with their bytes in place.
 */
static void burst_one_ack(void **st)
{
	struct roce_wc wc[8];
	uint64_t dst = (uintptr_t)(rcf_s[1].buf + 4096);
	uint64_t acks0, coal0;
	(void)st;

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	/* one WRITE first: both QPs past their first exchange (the RTT sample, slow start) */
	rcf_post(0, ROCE_WR_RDMA_WRITE, 1, 0, 64, dst, rcf_s[1].mr->rkey);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	acks0 = rcf_s[0].qp->cnt[ROCE_QPC_acks_rx];
	coal0 = rcf_s[1].qp->cnt[ROCE_QPC_acks_coalesced];
	rcf_fill(rcf_s[0].buf, 8 * 64, 77);
	memset(rcf_s[1].buf + 4096, 0, 8 * 64);
	for (uint32_t i = 0; i < 8; i++)
		rcf_post(0, ROCE_WR_RDMA_WRITE, 10 + i, 64 * i, 64, dst + 64 * i,
			 rcf_s[1].mr->rkey);
	assert_int_equal(rcf_wait_wc(0, wc, 8), 8);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
		assert_true(wc[i].wr_id == 10 + i);
	}
	assert_memory_equal(rcf_s[1].buf + 4096, rcf_s[0].buf, 8 * 64);
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_acks_coalesced] - coal0, 7);
	assert_int_equal(rcf_s[0].qp->cnt[ROCE_QPC_acks_rx] - acks0, 1);
	rcf_disconnect_pair();
}

static void write_with_imm(void **st)
{
	struct roce_wc wc[2];
	(void)st;

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[0].buf, 5000, 9);
	rcf_post_recv(1, 42, 0, 16); /* the immediate needs a receive WQE, not its buffer */
	rcf_post(0, ROCE_WR_RDMA_WRITE_WITH_IMM, 43, 0, 5000, (uintptr_t)(rcf_s[1].buf + 65536),
		 rcf_s[1].mr->rkey);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_IMM);
	assert_int_equal(rte_be_to_cpu_32(wc[0].imm_data), 0xc0ffee00u + 43);
	assert_memory_equal(rcf_s[1].buf + 65536, rcf_s[0].buf, 5000);
	rcf_disconnect_pair();
}

static void atomics(void **st)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)rcf_s[0].buf, .length = 8, .lkey = rcf_s[0].mr->lkey};
	struct roce_send_wr w, *bad;
	struct roce_wc wc[2];
	uint64_t *target = (uint64_t *)(rcf_s[1].buf + 128), v;
	(void)st;

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	*target = 1000;
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.atomic.remote_addr = (uintptr_t)target;
	w.wr.atomic.rkey = rcf_s[1].mr->rkey;
	w.wr.atomic.compare_add = 5;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_FETCH_ADD);
	memcpy(&v, rcf_s[0].buf, 8);
	assert_true(v == 1000 && *target == 1005);
	/* compare and swap: a miss leaves memory alone, a hit swaps */
	w.opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 1;
	w.wr.atomic.swap = 77;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	memcpy(&v, rcf_s[0].buf, 8);
	assert_true(v == 1005 && *target == 1005);
	w.wr.atomic.compare_add = 1005;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].opcode, ROCE_WC_COMP_SWAP);
	memcpy(&v, rcf_s[0].buf, 8);
	assert_true(v == 1005 && *target == 77);
	rcf_disconnect_pair();
}

/* An access violation must end in REM_ACCESS_ERR, never in endless retries (rxe's bug). */
static void access_errors(void **st)
{
	struct roce_wc wc[4];
	uint64_t dst = (uintptr_t)(rcf_s[1].buf + 8192);
	(void)st;

	/* bad rkey on a READ */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_post(0, ROCE_WR_RDMA_READ, 1, 0, 64, dst, rcf_s[1].mr->rkey ^ 0x100);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(roce_qp_state(rcf_s[0].qp), ROCE_QPS_ERR);
	assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
	rcf_disconnect_pair();
	/* out of bounds on a WRITE: one byte past the region */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_post(0, ROCE_WR_RDMA_WRITE, 2, 0, 16, (uintptr_t)(rcf_s[1].buf + RCF_BUF - 15),
		 rcf_s[1].mr->rkey);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	rcf_disconnect_pair();
}

static void missing_right(void **st)
{
	struct roce_mr *ro =
		roce_reg_mr(rcf_s[1].pd, rcf_s[1].buf, 4096, 0x10000, ROCE_ACCESS_REMOTE_READ);
	struct roce_wc wc[2];
	(void)st;

	assert_non_null(ro);
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_post(0, ROCE_WR_RDMA_WRITE, 3, 0, 16, 0x10000, ro->rkey); /* read-only region */
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	rcf_disconnect_pair();
	assert_int_equal(roce_dereg_mr(ro), 0);
}

/* IBA path MTUs 256..4096 and sizes around each, up to 16 MiB, for SEND, WRITE and READ. */
static void every_mtu_to_16mib(void **st)
{
	const uint32_t big = 16u << 20, dst = 17u << 20;
	(void)st;

	rcf_fill(rcf_s[0].buf, big, 77);
	rcf_qp_timeout = 14;
	for (enum roce_mtu mtu = ROCE_MTU_256; mtu <= ROCE_MTU_4096; mtu++) {
		uint32_t m = roce_mtu_bytes(mtu);
		const uint32_t sz[] = {0, 1, m - 1, m, m + 1, 3 * m + 7, big};

		rcf_connect_pair(mtu, 7, 1);
		for (unsigned i = 0; i < RTE_DIM(sz); i++) {
			struct roce_wc wc[2];
			uint32_t n = sz[i];
			uint64_t t0 = rte_get_tsc_cycles();

			/* SEND into a receive buffer at 17 MiB */
			rcf_post_recv(1, 1, dst, big);
			rcf_post(0, ROCE_WR_SEND, 2, 0, n, 0, 0);
			assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].byte_len, n);
			if (memcmp(rcf_s[1].buf + dst, rcf_s[0].buf, n) != 0)
				fail_msg("SEND of %u bytes at MTU %u differs", n, m);
			/* WRITE over it after scribbling, then READ it back into A at 17 MiB */
			memset(rcf_s[1].buf + dst, 0xa5, n);
			rcf_post(0, ROCE_WR_RDMA_WRITE, 3, 0, n, (uintptr_t)(rcf_s[1].buf + dst),
				 rcf_s[1].mr->rkey);
			assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			if (memcmp(rcf_s[1].buf + dst, rcf_s[0].buf, n) != 0)
				fail_msg("WRITE of %u bytes at MTU %u differs", n, m);
			memset(rcf_s[0].buf + dst, 0x3c, n);
			rcf_post(0, ROCE_WR_RDMA_READ, 4, dst, n, (uintptr_t)(rcf_s[1].buf + dst),
				 rcf_s[1].mr->rkey);
			assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			assert_int_equal(wc[0].byte_len, n);
			if (memcmp(rcf_s[0].buf + dst, rcf_s[0].buf, n) != 0)
				fail_msg("READ of %u bytes at MTU %u differs", n, m);
			if (n == big)
				print_message(
					"MTU %4u: 16 MiB SEND + WRITE + READ verified in %.0f ms\n",
					m,
					(double)(rte_get_tsc_cycles() - t0) * 1e3 /
						(double)rte_get_tsc_hz());
		}
		rcf_disconnect_pair();
	}
	rcf_qp_timeout = 10;
}

/* UC: SEND, SEND with immediate and WRITE (with immediate), no acknowledgements. */
static void uc_pair(void **st)
{
	const uint32_t sz[] = {0, 1, 1023, 1024, 1025, 100000};
	(void)st;

	rcf_connect_uc();
	for (unsigned i = 0; i < RTE_DIM(sz); i++) {
		struct roce_wc wc[2];
		uint32_t n = sz[i];

		rcf_fill(rcf_s[0].buf, n, 300 + i);
		rcf_post_recv(1, 10 + i, 1u << 20, 200000);
		rcf_post(0, i & 1 ? ROCE_WR_SEND_WITH_IMM : ROCE_WR_SEND, 20 + i, 0, n, 0, 0);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].byte_len, n);
		assert_int_equal(!!(wc[0].wc_flags & ROCE_WC_WITH_IMM), i & 1);
		assert_memory_equal(rcf_s[1].buf + (1u << 20), rcf_s[0].buf, n);
		/* WRITE, the odd ones with immediate (which consumes a receive) */
		if (i & 1)
			rcf_post_recv(1, 40 + i, 0, 16);
		rcf_post(0, i & 1 ? ROCE_WR_RDMA_WRITE_WITH_IMM : ROCE_WR_RDMA_WRITE, 30 + i, 0, n,
			 (uintptr_t)(rcf_s[1].buf + (3u << 20)), rcf_s[1].mr->rkey);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		if (i & 1) {
			assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
			assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		} else {
			rcf_drive(200); /* UC completes at the sender when sent: let it land */
		}
		assert_memory_equal(rcf_s[1].buf + (3u << 20), rcf_s[0].buf, n);
	}
	rcf_disconnect_pair();
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
			.send_cq = rcf_s[k].cq, .recv_cq = rcf_s[k].cq, .qp_type = ROCE_QPT_UD};
		struct roce_qp_attr a;

		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		rcf_s[k].qp = roce_create_qp(rcf_s[k].pd, &ia);
		assert_non_null(rcf_s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x11111111;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a,
						ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
							ROCE_QP_QKEY),
				 0);
		a.qp_state = ROCE_QPS_RTR;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a, ROCE_QP_STATE), 0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 7;
		assert_int_equal(roce_modify_qp(rcf_s[k].qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN),
				 0);
	}
	memset(&path, 0, sizeof(path));
	stk_ipaddr_parse("10.77.0.2", &path.dgid_ip);
	ah = roce_create_ah(rcf_s[0].pd, &path);
	assert_non_null(ah);
	for (unsigned i = 0; i < RTE_DIM(sz) * 2; i++) {
		struct roce_sge sg = {.addr = (uintptr_t)rcf_s[0].buf,
				      .length = sz[i % 4],
				      .lkey = rcf_s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc[2];
		uint32_t n = sz[i % 4];
		const uint8_t *grh = rcf_s[1].buf + (1u << 20);

		rcf_fill(rcf_s[0].buf, n, 500 + i);
		memset(rcf_s[1].buf + (1u << 20), 0xee, n + ROCE_GRH_LEN + 8);
		rcf_post_recv(1, 60 + i, 1u << 20, 8192);
		memset(&w, 0, sizeof(w));
		w.wr_id = 70 + i;
		w.opcode = i >= 4 ? ROCE_WR_SEND_WITH_IMM : ROCE_WR_SEND;
		w.imm_data = rte_cpu_to_be_32(0xabc00000u + i);
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = roce_qp_num(rcf_s[1].qp);
		/* the high bit: use the sending QP's own Q_Key (which equals the receiver's) */
		w.wr.ud.remote_qkey = i & 1 ? 0x80000000u : 0x11111111u;
		assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_RECV);
		assert_int_equal(wc[0].byte_len, ROCE_GRH_LEN + n);
		assert_int_equal(wc[0].src_qp, roce_qp_num(rcf_s[0].qp));
		assert_true(wc[0].wc_flags & ROCE_WC_GRH);
		assert_int_equal(!!(wc[0].wc_flags & ROCE_WC_WITH_IMM), i >= 4);
		/* GRH area: 20 zero bytes, then the sender's IPv4 header (source 10.77.0.1) */
		for (int b = 0; b < 20; b++)
			assert_int_equal(grh[b], 0);
		assert_int_equal(grh[20], 0x45);
		assert_memory_equal(grh + 20 + 12, "\x0a\x4d\x00\x01", 4);
		assert_memory_equal(grh + ROCE_GRH_LEN, rcf_s[0].buf, n);
	}
	/* a wrong Q_Key is dropped silently: the receive stays posted */
	{
		struct roce_sge sg = {
			.addr = (uintptr_t)rcf_s[0].buf, .length = 8, .lkey = rcf_s[0].mr->lkey};
		struct roce_send_wr w, *bad;
		struct roce_wc wc[2];

		memset(&w, 0, sizeof(w));
		w.opcode = ROCE_WR_SEND;
		w.sg_list = &sg;
		w.num_sge = 1;
		w.send_flags = ROCE_SEND_SIGNALED;
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = roce_qp_num(rcf_s[1].qp);
		w.wr.ud.remote_qkey = 0x22222222;
		rcf_post_recv(1, 99, 1u << 20, 8192);
		assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), 0);
		assert_int_equal(rcf_wait_wc(0, wc, 1), 1); /* sent */
		rcf_drive(500);
		assert_int_equal(roce_poll_cq(rcf_s[1].cq, 2, wc), 0);
		/* and a datagram larger than the path MTU is refused at post time */
		sg.length = 8192 + 1;
		w.wr.ud.remote_qkey = 0x11111111;
		assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	}
	assert_int_equal(roce_destroy_ah(ah), 0);
	rcf_disconnect_pair();
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
	lc2 = stk_lcore_create(1, 0, false, rcf_pool,
			       &np); /* same TX queue: one thread runs both */
	assert_non_null(lc2);
	lc2->rxq[0] = rcf_lc->rxq[1]; /* B's port moves to lcore 1 */
	lc2->nb_rxq = 1;
	rcf_lc->nb_rxq = 1;
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	roce_dev_counts(rcf_s[1].dev, &before);
	rcf_fill(rcf_s[0].buf, 200000, 17);
	rcf_post_recv(1, 1, 1u << 20, 200000);
	rcf_post(0, ROCE_WR_SEND, 2, 0, 200000, 0, 0);
	rcf_post(0, ROCE_WR_RDMA_READ, 3, RCF_BUF / 2, 100000,
		 (uintptr_t)(rcf_s[1].buf + (1u << 20)), rcf_s[1].mr->rkey);
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (got < 2 && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(lc2);
		stk_lcore_poll(rcf_lc);
		got += roce_poll_cq(rcf_s[0].cq, 2 - got, wc + got);
	}
	assert_int_equal(got, 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_poll_cq(rcf_s[1].cq, 2, wc), 1);
	assert_int_equal(wc[0].byte_len, 200000);
	assert_memory_equal(rcf_s[1].buf + (1u << 20), rcf_s[0].buf, 200000);
	assert_memory_equal(rcf_s[0].buf + RCF_BUF / 2, rcf_s[0].buf, 100000);
	roce_dev_counts(rcf_s[1].dev, &after);
	/* B received ~200 SEND packets and the READ request, all on lcore 1 */
	assert_true(after.rx_handoff - before.rx_handoff > 150);
	for (int i = 0; i < 50; i++) {
		stk_lcore_poll(lc2);
		stk_lcore_poll(rcf_lc);
	}
	rcf_lc->nb_rxq = 2;
	rcf_disconnect_pair();
	stk_lcore_destroy(lc2);
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
	lc2 = stk_lcore_create(1, 0, false, rcf_pool, &np);
	assert_non_null(lc2);
	lc2->rxq[0] = rcf_lc->rxq[1]; /* B's port on lcore 1, which never polls B's device */
	lc2->nb_rxq = 1;
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	/* one SEND first, so that both sides have resolved each other's address */
	rcf_post_recv(1, 4, 0, 4096);
	rcf_post(0, ROCE_WR_SEND, 4, 0, 10, 0, 0);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(rcf_wait_wc(1, &wc, 1), 1);
	rcf_post_recv(1, 5, 0, 4096);
	psn = rcf_s[1].qp->resp.psn;
	rcf_lc->nb_rxq = 1; /* lcore 0 polls A's port only */
	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_SEND_ONLY;
	t.psn = psn;
	rcf_fill(rcf_s[0].buf, 100, 9);
	rcf_inject_to_b_polls(&t, rcf_s[0].buf, 100, 0);
	{ /* out of A's port (drained on its TSC deadline), into B's RX ring */
		uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 200;

		while (rte_get_tsc_cycles() < end)
			stk_lcore_poll(rcf_lc);
	}
	/* as if no lcore had polled B's device yet */
	rcf_s[1].dev->lane[0].lcore = RTE_MAX_LCORE;
	rcf_s[1].dev->lane[0].live = false;
	rcf_s[1].dev->lane_of[rte_lcore_id()] = ROCE_LANE_NONE;
	roce_dev_counts(rcf_s[1].dev, &before);
	for (int i = 0; i < 5; i++)
		stk_lcore_poll(lc2);
	roce_dev_counts(rcf_s[1].dev, &after);
	assert_int_equal(after.rx_handoff - before.rx_handoff, 1);
	assert_int_equal(rcf_s[1].qp->resp.psn, psn); /* untouched by lcore 1 */
	assert_int_equal(roce_poll_cq(rcf_s[1].cq, 1, &wc), 0);
	assert_int_equal(rcf_s[1].dev->lane[0].lcore, RTE_MAX_LCORE);
	rcf_drive(2); /* lcore 0 polls B's device first: it owns it and receives the SEND */
	assert_int_equal(rcf_s[1].dev->lane[0].lcore, rte_lcore_id());
	assert_int_equal(roce_poll_cq(rcf_s[1].cq, 1, &wc), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 100);
	assert_memory_equal(rcf_s[1].buf, rcf_s[0].buf, 100);
	rcf_lc->nb_rxq = 2;
	rcf_disconnect_pair();
	stk_lcore_destroy(lc2);
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
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	stk_stats_sum(-1, &before);
	for (uint32_t i = 0; i < 16; i++) {
		struct roce_wc wc;

		rcf_fill(rcf_s[0].buf, 65536, i);
		rcf_post(0, ROCE_WR_RDMA_WRITE, i, 0, 65536,
			 (uintptr_t)(rcf_s[1].buf + (17u << 20)), rcf_s[1].mr->rkey);
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	}
	stk_stats_sum(-1, &after);
	assert_int_equal(after.c[STK_CNT_impair_ce_marked], before.c[STK_CNT_impair_ce_marked]);
	roce_qp_cc_info(rcf_s[0].qp, &ia);
	assert_false(ia.on);
	assert_int_equal(ia.cnp_rx, 0);
	rcf_disconnect_pair();

	roce_dcqcn_params_default(&p, 100.0);
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, &p), 0);
	assert_int_equal(roce_dev_set_cc(rcf_s[1].dev, &p), 0);
	p.g = 2; /* out of range */
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, &p), -EINVAL);
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	stk_stats_sum(-1, &before);
	t0 = rte_get_tsc_cycles();
	for (uint32_t i = 0; i < 64; i++) {
		struct roce_wc wc;

		rcf_fill(rcf_s[0].buf, 65536, i);
		rcf_post(0, ROCE_WR_RDMA_WRITE, i, 0, 65536,
			 (uintptr_t)(rcf_s[1].buf + (17u << 20)), rcf_s[1].mr->rkey);
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_int_equal(wc.status, ROCE_WC_SUCCESS);
		assert_memory_equal(rcf_s[1].buf + (17u << 20), rcf_s[0].buf, 65536);
	}
	secs = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	stk_stats_sum(-1, &after);
	roce_qp_cc_info(rcf_s[0].qp, &ia);
	roce_qp_cc_info(rcf_s[1].qp, &ib);
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
	rcf_disconnect_pair();
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, NULL), 0);
	assert_int_equal(roce_dev_set_cc(rcf_s[1].dev, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(send_mtu256),
		cmocka_unit_test(send_mtu1024),
		cmocka_unit_test(write_read_sizes),
		cmocka_unit_test(write_with_imm),
		cmocka_unit_test(burst_one_ack),
		cmocka_unit_test(atomics),
		cmocka_unit_test(access_errors),
		cmocka_unit_test(missing_right),
		cmocka_unit_test(every_mtu_to_16mib),
		cmocka_unit_test(uc_pair),
		cmocka_unit_test(ud_pair),
		cmocka_unit_test(second_lcore_hands_off),
		cmocka_unit_test(owner_claimed_by_first_poll),
		cmocka_unit_test(dcqcn_reacts_to_ce),
	};
	int rc;

	if (rcf_eal_init("test_rc") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, rcf_group_setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
