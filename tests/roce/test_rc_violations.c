/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc_violations.c - what an RC QP must refuse from its peer or a third host, two QPs back
 * to back over net_ring (rc_fixture.c): more READs or atomics than the responder resources
 * granted, READ and WRITE lengths beyond 2^31, READ responses out of order or out of size,
 * header-only opcodes with trailing payload, and packets from a foreign source address or with
 * a P_Key of another partition. Each ends in the exact NAK, completion status or counter.
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
#include "roce_dcqcn.h"
#include "roce_hdr.h"
#include "roce_int.h" /* the responder's outcome counters */
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"

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

	rcf_responder_resources = 1;
	/* 67 ms, not 4: a timeout after a descheduled moment halves A's window, which then holds
	 * the next request back until the READ is done (no overlap, nothing to refuse) */
	rcf_qp_timeout = 14;
	rcf_connect_pair(ROCE_MTU_256, 7, 1);
	rcf_responder_resources = 4;
	rcf_qp_timeout = 10;
	/* four 64 KiB READs at MTU 256: 256 responses each, paced, so they overlap */
	for (uint64_t i = 0; i < 4; i++)
		rcf_post(0, ROCE_WR_RDMA_READ, 90 + i, RCF_BUF / 2 + (uint32_t)i * 65536, 65536,
			 (uintptr_t)rcf_s[1].buf, rcf_s[1].mr->rkey);
	while (got < 4) {
		int n = rcf_wait_wc(0, wc + got, 1);

		if (n == 0)
			break;
		errs += wc[got].status == ROCE_WC_REM_INV_REQ_ERR;
		got++;
	}
	assert_int_equal(got, 4); /* nothing hangs: every WR completes */
	assert_int_equal(errs, 1);
	assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
	rcf_disconnect_pair();
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
	uint64_t *target = (uint64_t *)(rcf_s[1].buf + 256);
	struct roce_wc wc[4];
	int got = 0, inv = 0;
	(void)st;

	rcf_responder_resources = 1;
	/* 67 ms, not 4: a timeout after a descheduled moment halves A's window, which then holds
	 * the next request back until the READ is done (no overlap, nothing to refuse) */
	rcf_qp_timeout = 14;
	rcf_connect_pair(ROCE_MTU_256, 7, 1);
	rcf_responder_resources = 4;
	rcf_qp_timeout = 10;
	*target = 500;
	/* a 64 KiB READ at MTU 256: 256 paced responses keep it queued at B */
	rcf_post(0, ROCE_WR_RDMA_READ, 1, RCF_BUF / 2, 65536, (uintptr_t)rcf_s[1].buf,
		 rcf_s[1].mr->rkey);
	rcf_post_atomic(2, ROCE_WR_ATOMIC_FETCH_AND_ADD, 64, target, 1);
	while (got < 2) {
		if (rcf_wait_wc(0, wc + got, 1) == 0)
			break;
		inv += wc[got].status == ROCE_WC_REM_INV_REQ_ERR;
		got++;
	}
	assert_int_equal(got, 2);    /* nothing hangs */
	assert_true(*target == 500); /* not executed */
	assert_int_equal(inv, 1);
	assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_RESOURCES], 1);
	assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
	rcf_disconnect_pair();
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

		rcf_connect_pair(ROCE_MTU_1024, 7, 1);
		big = roce_reg_mr(rcf_s[1].pd, rcf_s[1].buf, 1ull << 33, iova,
				  ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ |
					  ROCE_ACCESS_REMOTE_WRITE);
		assert_non_null(big);
		assert_int_equal(roce_query_qp(rcf_s[1].qp, &qb, NULL), 0);
		t0 = rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts];
		memset(&t, 0, sizeof(t));
		t.opcode = write ? ROCE_OP_RC_RDMA_WRITE_FIRST : ROCE_OP_RC_RDMA_READ_REQUEST;
		t.psn = qb.rq_psn;
		t.va = iova;
		t.rkey = big->rkey;
		t.dmalen = lens[k % RTE_DIM(lens)];
		rcf_inject_to_b_polls(&t, rcf_s[0].buf, write ? 1024 : 0, 5);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_LENGTH], 1);
		assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts] - t0, 1); /* the NAK only */
		assert_int_equal(rcf_s[1].qp->resp.rq_count, 0);
		assert_false(rcf_s[1].qp->resp.write_active);
		assert_int_equal(roce_qp_state(rcf_s[1].qp), ROCE_QPS_ERR);
		rcf_disconnect_pair();
		assert_int_equal(roce_dereg_mr(big), 0);
	}
}

/*
 * A READ or an atomic to a QP whose access flags enable RDMA WRITE only, and a WRITE to one
 * that enables atomics only (droce-gen --catalogue's write-not-enabled, which showed droce
 * answering remote access error): an operation the QP does not take is an invalid request,
 * answered before any rkey is looked at (rxe's check_op_valid() the same), and fatal. The
 * region has every right, so only the QP's flags refuse. The control: a WRITE ONLY on a QP
 * that enables WRITE is placed.
 */
static void op_not_enabled_on_qp(void **st)
{
	static const struct {
		uint8_t op;
		uint32_t qp_access;
		bool placed;
	} cases[] = {
		{ROCE_OP_RC_RDMA_READ_REQUEST, ROCE_ACCESS_REMOTE_WRITE, false},
		{ROCE_OP_RC_FETCH_ADD, ROCE_ACCESS_REMOTE_WRITE, false},
		{ROCE_OP_RC_RDMA_WRITE_ONLY, ROCE_ACCESS_REMOTE_ATOMIC, false},
		{ROCE_OP_RC_RDMA_WRITE_ONLY, ROCE_ACCESS_REMOTE_WRITE, true},
	};
	(void)st;

	for (unsigned k = 0; k < RTE_DIM(cases); k++) {
		struct roce_qp_attr a, qb;
		struct roce_tx t;
		uint64_t t0;
		uint8_t op = cases[k].op;
		bool write = op == ROCE_OP_RC_RDMA_WRITE_ONLY, placed = cases[k].placed;

		rcf_connect_pair(ROCE_MTU_1024, 7, 1);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.qp_access_flags = cases[k].qp_access;
		assert_int_equal(
			roce_modify_qp(rcf_s[1].qp, &a, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS), 0);
		assert_int_equal(roce_query_qp(rcf_s[1].qp, &qb, NULL), 0);
		t0 = rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts];
		memset(&t, 0, sizeof(t));
		t.opcode = op;
		t.psn = qb.rq_psn;
		t.ackreq = true;
		t.va = (uintptr_t)rcf_s[1].buf;
		t.rkey = rcf_s[1].mr->rkey;
		t.dmalen = op == ROCE_OP_RC_FETCH_ADD ? 0 : 64;
		t.swap_add = 1;
		rcf_inject_to_b_polls(&t, rcf_s[0].buf, write ? 64 : 0, 5);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_RKEY], 0);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_ERR_OPCODE], placed ? 0 : 1);
		assert_int_equal(rcf_s[1].qp->resp.outcome[ROCE_RESP_PLACED], placed ? 1 : 0);
		assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts] - t0, 1); /* the NAK, or ACK */
		assert_int_equal(roce_qp_state(rcf_s[1].qp), placed ? ROCE_QPS_RTS : ROCE_QPS_ERR);
		rcf_disconnect_pair();
	}
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

	rcf_qp_timeout = 14; /* the forged responses come long before A's timer */
	rcf_fill(rcf_s[1].buf, 4096, 55);
	for (unsigned i = 0; i < RTE_DIM(c); i++) {
		struct roce_qp_attr qa;
		struct roce_wc wc;
		uint32_t at = 0;
		uint64_t bad0;

		rcf_connect_pair(ROCE_MTU_1024, 7, 1);
		assert_int_equal(roce_query_qp(rcf_s[0].qp, &qa, NULL), 0);
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
		bad0 = rcf_s[0].qp->cnt[ROCE_QPC_bad_read_resp];
		memset(rcf_s[0].buf + 8192, 0, 4096);
		rcf_post(0, ROCE_WR_RDMA_READ, 60 + i, 8192, 3000, 0x1000, 0x1234);
		rcf_drive(5);
		for (unsigned k = 0; k < c[i].n; k++) {
			rcf_forge_read_resp_to_a(c[i].op[k], qa.sq_psn + k, rcf_s[1].buf + at,
						 c[i].len[k]);
			at += c[i].len[k];
		}
		assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
		assert_true(wc.wr_id == 60 + i);
		if (c[i].ok) {
			assert_int_equal(wc.status, ROCE_WC_SUCCESS);
			assert_memory_equal(rcf_s[0].buf + 8192, rcf_s[1].buf, 3000);
			assert_int_equal(roce_qp_state(rcf_s[0].qp), ROCE_QPS_RTS);
		} else {
			assert_int_equal(wc.status, ROCE_WC_BAD_RESP_ERR);
			assert_int_equal(rcf_s[0].qp->cnt[ROCE_QPC_bad_read_resp] - bad0, 1);
			assert_int_equal(roce_qp_state(rcf_s[0].qp), ROCE_QPS_ERR);
		}
		assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
		rcf_disconnect_pair();
	}
	rcf_qp_timeout = 10;
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
	uint64_t *target = (uint64_t *)(rcf_s[1].buf + 256), t0, d0;
	uint8_t body[64];
	struct roce_qp_attr qa, qb;
	struct roce_wc wc;
	(void)st;

	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(rcf_s[0].qp, &qa, NULL), 0);
	assert_int_equal(roce_query_qp(rcf_s[1].qp, &qb, NULL), 0);
	t0 = rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts];
	d0 = roce_dev_decode_drops(rcf_s[1].dev, ROCE_DROP_TRAILING);
	/* a READ request (RETH from a WRITE_ONLY) with 8 bytes after the RETH */
	memset(body, 0xab, sizeof(body));
	rcf_inject_relabelled(0, ROCE_OP_RC_RDMA_WRITE_ONLY, ROCE_OP_RC_RDMA_READ_REQUEST,
			      qb.rq_psn, (uintptr_t)rcf_s[1].buf, rcf_s[1].mr->rkey, body, 8);
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts], t0); /* not answered */
	assert_int_equal(roce_dev_decode_drops(rcf_s[1].dev, ROCE_DROP_TRAILING), d0 + 1);
	/* a FETCH_ADD (its AtomicETH as a SEND_ONLY's payload) with 8 more bytes */
	*target = 7;
	{
		uint64_t va = rte_cpu_to_be_64((uintptr_t)target), add = rte_cpu_to_be_64(1);
		uint32_t rkey = rte_cpu_to_be_32(rcf_s[1].mr->rkey);

		memset(body, 0, sizeof(body));
		memcpy(body, &va, 8);
		memcpy(body + 8, &rkey, 4);
		memcpy(body + 12, &add, 8);
	}
	rcf_inject_relabelled(0, ROCE_OP_RC_SEND_ONLY, ROCE_OP_RC_FETCH_ADD, qb.rq_psn, 0, 0, body,
			      28 + 8);
	assert_true(*target == 7); /* not executed */
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts], t0);
	assert_int_equal(roce_dev_decode_drops(rcf_s[1].dev, ROCE_DROP_TRAILING), d0 + 2);
	/* a remote-access-error NAK (its AETH as payload) with 8 more bytes, for A's SEND */
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, &deaf), 0);
	rcf_fill(rcf_s[0].buf, 100, 1);
	rcf_post(0, ROCE_WR_SEND, 9, 0, 100, 0, 0);
	rcf_drive(20);
	memset(body, 0, sizeof(body));
	body[0] = 0x62; /* NAK, remote access error; MSN 0 */
	rcf_inject_relabelled(1, ROCE_OP_RC_SEND_ONLY, ROCE_OP_RC_ACKNOWLEDGE, qa.sq_psn, 0, 0,
			      body, 4 + 8);
	assert_int_equal(roce_dev_decode_drops(rcf_s[0].dev, ROCE_DROP_TRAILING), 1);
	assert_int_equal(roce_qp_state(rcf_s[0].qp), ROCE_QPS_RTS);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_RX, NULL), 0);
	rcf_post_recv(1, 10, 65536, 4096);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(rcf_wait_wc(1, &wc, 1), 1);
	assert_int_equal(wc.byte_len, 100);
	rcf_disconnect_pair();
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
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, &p), 0);
	assert_int_equal(roce_dev_set_cc(rcf_s[1].dev, &p), 0);
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_query_qp(rcf_s[1].qp, &qb, NULL), 0);
	roce_qp_cc_info(rcf_s[0].qp, &ia);
	roce_qp_cc_info(rcf_s[1].qp, &ib);
	b_tx = rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts];
	b_nak = rcf_s[1].qp->cnt[ROCE_QPC_nak_seq_tx];
	cuts = rcf_s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY];
	a_addr = roce_dev_rx_drops(rcf_s[0].dev, ROCE_RX_DROP_PEER_ADDR);
	a_pkey = roce_dev_rx_drops(rcf_s[0].dev, ROCE_RX_DROP_PKEY);
	b_addr = roce_dev_rx_drops(rcf_s[1].dev, ROCE_RX_DROP_PEER_ADDR);
	b_pkey = roce_dev_rx_drops(rcf_s[1].dev, ROCE_RX_DROP_PKEY);
	memset(body, 0x5a, sizeof(body));

	/* a CNP to A from the third host, and one from B's address with a foreign P_Key */
	rcf_forge_to(0, "10.77.0.3", ROCE_OP_CNP, 0, 0, 0, NULL, 0);
	rcf_forge_to(0, NULL, ROCE_OP_CNP, 0, 0x1234, 0, NULL, 0);
	roce_qp_cc_info(rcf_s[0].qp, &ia2);
	assert_int_equal(ia2.cnp_rx, ia.cnp_rx);
	assert_true(ia2.rate_gbps == ia.rate_gbps); /* no rate cut */
	assert_int_equal(rcf_s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY], cuts);
	assert_int_equal(roce_dev_rx_drops(rcf_s[0].dev, ROCE_RX_DROP_PEER_ADDR), a_addr + 1);
	assert_int_equal(roce_dev_rx_drops(rcf_s[0].dev, ROCE_RX_DROP_PKEY), a_pkey + 1);
	/* a CE-marked SEND from the third host, with a PSN from B's future */
	rcf_forge_to(1, "10.77.0.3", ROCE_OP_RC_SEND_ONLY, qb.rq_psn + 100, 0, 3, body, 64);
	/* the same at B's expected PSN, and from B's peer's address with a foreign P_Key */
	rcf_post_recv(1, 77, 65536, 4096);
	rcf_forge_to(1, "10.77.0.3", ROCE_OP_RC_SEND_ONLY, qb.rq_psn, 0, 3, body, 64);
	rcf_forge_to(1, NULL, ROCE_OP_RC_SEND_ONLY, qb.rq_psn, 0x1234, 3, body, 64);
	rcf_forge_to(1, NULL, ROCE_OP_RC_SEND_ONLY, qb.rq_psn + 100, 0x0001, 3, body, 64);
	roce_qp_cc_info(rcf_s[1].qp, &ib2);
	assert_int_equal(ib2.cnp_tx, ib.cnp_tx);			/* no CNP */
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_nak_seq_tx], b_nak); /* no NAK */
	assert_int_equal(rcf_s[1].qp->cnt[ROCE_QPC_tx_pkts], b_tx);	/* nothing sent */
	assert_int_equal(roce_poll_cq(rcf_s[1].cq, 1, &wc), 0);		/* nothing delivered */
	assert_int_equal(rcf_s[1].qp->resp.psn, qb.rq_psn);		/* PSN unmoved */
	assert_int_equal(roce_dev_rx_drops(rcf_s[1].dev, ROCE_RX_DROP_PEER_ADDR), b_addr + 2);
	assert_int_equal(roce_dev_rx_drops(rcf_s[1].dev, ROCE_RX_DROP_PKEY), b_pkey + 2);

	/* the connection is untouched: A's SEND lands in the receive posted above */
	rcf_fill(rcf_s[0].buf, 100, 3);
	rcf_post(0, ROCE_WR_SEND, 78, 0, 100, 0, 0);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(rcf_wait_wc(1, &wc, 1), 1);
	assert_true(wc.wr_id == 77 && wc.byte_len == 100);
	assert_memory_equal(rcf_s[1].buf + 65536, rcf_s[0].buf, 100);

	/* the controls: a CNP from B's address with the default P_Key, or with the limited
	 * member form of it (IBTA 10.9.3: the low 15 bits match and one side is a full member),
	 * cuts A's rate */
	roce_qp_cc_info(rcf_s[0].qp, &ia);
	cuts = rcf_s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY];
	rcf_forge_to(0, NULL, ROCE_OP_CNP, 0, 0, 0, NULL, 0);
	rcf_forge_to(0, NULL, ROCE_OP_CNP, 0, 0x7fff, 0, NULL, 0);
	roce_qp_cc_info(rcf_s[0].qp, &ia2);
	assert_int_equal(ia2.cnp_rx, ia.cnp_rx + 2);
	assert_true(rcf_s[0].qp->rp.stage_cnt[ROCE_DCQCN_FAST_RECOVERY] > cuts);
	rcf_disconnect_pair();
	assert_int_equal(roce_dev_set_cc(rcf_s[0].dev, NULL), 0);
	assert_int_equal(roce_dev_set_cc(rcf_s[1].dev, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(too_many_reads),
		cmocka_unit_test(atomic_counts_as_responder_resource),
		cmocka_unit_test(read_len_beyond_2_31),
		cmocka_unit_test(op_not_enabled_on_qp),
		cmocka_unit_test(read_response_order),
		cmocka_unit_test(trailing_payload_dropped),
		cmocka_unit_test(foreign_source_dropped),
	};
	int rc;

	if (rcf_eal_init("test_rc_violations") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, rcf_group_setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
