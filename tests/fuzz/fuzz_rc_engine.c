/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_rc_engine.c - libFuzzer target for the RC engine (roce_requester.c, roce_responder.c,
 * roce_completer.c, roce_rx.c) with work in flight: a connected RC QP pair on the two devices
 * of the fuzz_pair.c lab, and a sequence of operations the input chooses byte by byte:
 * - application posts on either side: SEND, SEND with immediate, WRITE, WRITE with
 *   immediate, READ, compare-and-swap and fetch-and-add, of input-chosen sizes (atomics too),
 *   offsets, keys (the peer's live rkey, a stale one from before a re-registration, or
 *   garbage), one or two SGEs, signaled or not, inline or fenced; receive posts;
 * - frames forged from the peer's address (or a third one) with ICRC, whose PSN is chosen
 *   RELATIVE to the receiving QP's state (the responder's expected PSN, the completer's oldest
 *   unacknowledged one, the requester's next or highest) plus a small or a half-range offset,
 *   any RC opcode, RETH/AtomicETH aimed at the receiver's MR, AETH ACK/RNR/NAK syndromes and
 *   MSNs: multi-packet messages, READ responses, ACK coalescing, NAK-sequence go-back-N,
 *   duplicates, ghost ACKs;
 * - the wire losing, duplicating and reordering frames in flight (so the real pair goes
 *   through go-back-N and READ re-issue by itself), polls, and short real waits that let the
 *   8 us retransmission and RNR timers fire;
 * - MR deregistration and re-registration, QP destroy, QP to ERR, and a reconnect with new
 *   PSNs, at input-chosen points. Starting PSNs can sit just below 2^24, so PSN wrap comes
 *   within the first messages.
 *
 * Checks: each side's completions come in posting order (send and receive queues each), carry
 * a wr_id that was posted and a known status; after every operation, a QP in RTS keeps the
 * engine's own invariants (check_qp()). After each input both QPs are destroyed, the
 * wire settles, and MRs, QPs and mbufs must be back at their start counts: a leak aborts.
 *
 * Input: a header of 2 to 10 bytes (PSN modes, MTU, retry counts, READ/atomic depths, ACK
 * timeout; see connect_pair()), then records whose first byte is the operation (low 4 bits) and the side
 * (bit 4). Reads past the end are zeros, so every prefix is a valid input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fuzz_check.h"
#include "fuzz_pair.h"

#include "roce_hdr.h"
#include "roce_int.h" /* the QPs' PSN state, to forge frames relative to it */
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define MEM 65536u
#define IOVA 0x100000u
#define MAX_OPS 256
#define DEPTH 16 /* send and receive queue depth */

static struct fuzz_pair fp;
static struct {
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	uint32_t stale_rkey; /* the rkey before the last re-registration */
	uint8_t *mem;
	struct roce_qp *qp;
	uint32_t qpn;			   /* last QP's number, also once it is gone */
	uint64_t send_posted, recv_posted; /* wr_ids handed out: 1, 2, ... per queue */
	uint64_t send_done, recv_done;	   /* the last wr_id completed per queue */
	struct roce_dev_counts base;
} s[2];

/* With FUZZ_RC_ENGINE_STATS set: what the inputs reached, summed over both QPs of every
 * input and printed at exit (completion statuses, engine counters, responder outcomes). */
static bool stats_on;
static uint64_t wc_status[32], qp_cnt[ROCE_QPC_NUM], outcome[ROCE_RESP_NUM];

static void print_stats(void)
{
#define QPC_NAME_(n) #n,
#define OUT_NAME_(n) #n,
	static const char *const qpc[] = {ROCE_QP_COUNTERS(QPC_NAME_)};
	static const char *const out[] = {ROCE_RESP_OUTCOMES(OUT_NAME_)};

	for (unsigned i = 0; i < RTE_DIM(wc_status); i++)
		if (wc_status[i])
			fprintf(stderr, "wc %-20s %lu\n", roce_wc_status_str(i),
				(unsigned long)wc_status[i]);
	for (unsigned i = 0; i < ROCE_QPC_NUM; i++)
		fprintf(stderr, "qp %-20s %lu\n", qpc[i], (unsigned long)qp_cnt[i]);
	for (unsigned i = 0; i < ROCE_RESP_NUM; i++)
		fprintf(stderr, "resp %-22s %lu\n", out[i], (unsigned long)outcome[i]);
}

/* wr_id: queue in bit 63 (1 = receive), sequence below */
#define RECV_BIT (1ull << 63)

/* roce_dereg_mr answers -EBUSY while frames it sent from the region (zero copy) are still
 * queued: they leave as the lab polls, and then it must succeed (issue 11 item 1's contract) */
static void dereg(int k)
{
	int rc = roce_dereg_mr(s[k].mr);

	for (int i = 0; rc == -EBUSY && i < 4000; i++) {
		stk_lcore_flush(fp.lc);
		stk_lcore_poll(fp.lc);
		rc = roce_dereg_mr(s[k].mr);
	}
	CHECK(rc == 0);
}

static void reg_mr(int k)
{
	if (s[k].mr)
		s[k].stale_rkey = s[k].mr->rkey;
	s[k].mr = roce_reg_mr(s[k].pd, s[k].mem, MEM, IOVA, ROCE_ACCESS_ALL);
	CHECK(s[k].mr != NULL);
}

static uint32_t pick_psn_start(struct fuzz_in *in, unsigned mode)
{
	switch (mode & 3) {
	case 0:
		return 0;
	case 1: /* wraps within the first 16 PSNs */
		return (ROCE_PSN_MASK - (fuzz_u8(in) & 15u)) & ROCE_PSN_MASK;
	case 2:
		return fuzz_u32(in) & ROCE_PSN_MASK;
	default: /* half the PSN space ahead of 0 */
		return (0x800000u - (fuzz_u8(in) & 15u)) & ROCE_PSN_MASK;
	}
}

/*
 * Create and connect the pair. Header byte: bits 0-1 A's send PSN mode, 2-3 B's, bit 4 MTU
 * 256 (else 1024), bit 5 infinite RNR retry, bit 6 retry count 7 (else 1), bit 7 the
 * requesters issue more READ/atomics than the responders accept. Then the local ACK timeout
 * byte (1 + low 4 bits: 8 us, which fires between two polls under ASan, to 268 ms, which
 * never fires within an input), then the PSN bytes.
 */
static void connect_pair(struct fuzz_in *in)
{
	uint8_t h = fuzz_u8(in), timeout = (uint8_t)(1 + (fuzz_u8(in) & 15));
	uint32_t psn[2];

	psn[0] = pick_psn_start(in, h);
	psn[1] = pick_psn_start(in, h >> 2);
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia;
		struct roce_qp_attr a;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = s[k].cq;
		ia.qp_type = ROCE_QPT_RC;
		ia.cap.max_send_wr = DEPTH;
		ia.cap.max_recv_wr = DEPTH;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 2;
		ia.cap.max_inline_data = 64;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		CHECK(s[k].qp != NULL);
		s[k].qpn = roce_qp_num(s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				    ROCE_ACCESS_REMOTE_ATOMIC;
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					     ROCE_QP_ACCESS_FLAGS) == 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = (h & 0x10) ? ROCE_MTU_256 : ROCE_MTU_1024;
		a.dest_qp_num = s[!k].qpn;
		a.rq_psn = psn[!k];
		a.max_dest_rd_atomic = (h & 0x80) ? 1 : 4;
		a.min_rnr_timer = 1; /* 10 us */
		a.ah_attr.dgid_ip = fp.ip[!k];
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					     ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER) ==
		      0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = psn[k];
		a.timeout = timeout;
		a.retry_cnt = (h & 0x40) ? 7 : 1;
		a.rnr_retry = (h & 0x20) ? 7 : 1;
		a.max_rd_atomic = 4;
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					     ROCE_QP_MAX_QP_RD_ATOMIC) == 0);
	}
}

/* Completions: a posted wr_id, a known status, each queue in posting order. */
static void poll_cq(int k, unsigned max)
{
	struct roce_wc wc[16];
	int n;

	while (max-- && (n = roce_poll_cq(s[k].cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			uint64_t seq = wc[i].wr_id & ~RECV_BIT;

			CHECK(strcmp(roce_wc_status_str(wc[i].status), "?") != 0);
			wc_status[wc[i].status & 31]++;
			if (wc[i].wr_id & RECV_BIT) {
				CHECK(seq > s[k].recv_done && seq <= s[k].recv_posted);
				s[k].recv_done = seq;
			} else {
				CHECK(seq > s[k].send_done && seq <= s[k].send_posted);
				s[k].send_done = seq;
			}
		}
	}
}

static void destroy_qp(int k)
{
	if (!s[k].qp)
		return;
	for (unsigned i = 0; stats_on && i < ROCE_QPC_NUM; i++)
		qp_cnt[i] += s[k].qp->cnt[i];
	for (unsigned i = 0; stats_on && i < ROCE_RESP_NUM; i++)
		outcome[i] += s[k].qp->resp.outcome[i];
	CHECK(roce_destroy_qp(s[k].qp) == 0);
	s[k].qp = NULL;
	/* what is still in the CQ of it comes in order; what never completes is forgotten */
	poll_cq(k, ~0u);
	s[k].send_done = s[k].send_posted;
	s[k].recv_done = s[k].recv_posted;
}

/* A length: often around the MTUs and the queue's limits, else anything up to 8 KiB. */
static uint32_t pick_len(struct fuzz_in *in)
{
	static const uint32_t lens[] = {0,    1,    4,	  8,	255,  256,  257,  1023,
					1024, 1025, 2048, 3000, 4096, 5000, 8192, 12};
	uint8_t b = fuzz_u8(in);

	if (b < 0x80)
		return lens[b & 15];
	return (uint32_t)(b & 0x7f) << 6 | (fuzz_u8(in) & 63);
}

static uint32_t pick_rkey(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in);

	if (b < 0xc0)
		return s[k].mr ? s[k].mr->rkey : s[k].stale_rkey;
	if (b < 0xe0)
		return s[k].stale_rkey;
	return fuzz_u32(in);
}

/* A send WR on side @k, aimed at side !k's memory. */
static void post_send(struct fuzz_in *in, int k)
{
	static const enum roce_wr_opcode ops[] = {ROCE_WR_SEND,
						  ROCE_WR_SEND_WITH_IMM,
						  ROCE_WR_RDMA_WRITE,
						  ROCE_WR_RDMA_WRITE_WITH_IMM,
						  ROCE_WR_RDMA_READ,
						  ROCE_WR_ATOMIC_CMP_AND_SWP,
						  ROCE_WR_ATOMIC_FETCH_AND_ADD};
	uint8_t b = fuzz_u8(in), f = fuzz_u8(in);
	struct roce_send_wr wr, *bad;
	struct roce_sge sge[2];
	uint32_t lkey = s[k].mr ? s[k].mr->lkey : s[k].stale_rkey;
	uint32_t len = pick_len(in), off = (uint32_t)fuzz_u16(in) % MEM;
	uint64_t raddr = IOVA + (fuzz_u16(in) % MEM);
	int rc;

	if (!s[k].qp)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ops[b % RTE_DIM(ops)];
	if (wr.opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP) {
		if (!(f & 0x40))
			len = 8; /* else the input's size: refused, or not */
		raddr &= ~7ull;
		if (f & 0x20)
			raddr |= 4;
	}
	if (off + len > MEM)
		off = MEM - RTE_MIN(len, MEM);
	sge[0] = (struct roce_sge){.addr = (uintptr_t)s[k].mem + off, .length = len, .lkey = lkey};
	sge[1] = sge[0];
	if (f & 0x10) { /* two SGEs, the second half of the buffer */
		sge[0].length = len / 2;
		sge[1].addr += len / 2;
		sge[1].length = len - len / 2;
	}
	wr.sg_list = sge;
	wr.num_sge = (f & 0x10) ? 2 : 1;
	wr.send_flags = ((f & 1) ? ROCE_SEND_SIGNALED : 0) | ((f & 2) ? ROCE_SEND_FENCE : 0) |
			((f & 4) ? ROCE_SEND_SOLICITED : 0) | ((f & 8) ? ROCE_SEND_INLINE : 0);
	wr.imm_data = rte_cpu_to_be_32(0x1000 + (uint32_t)s[k].send_posted);
	if (wr.opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = pick_rkey(in, !k);
		wr.wr.atomic.compare_add = fuzz_u8(in);
		wr.wr.atomic.swap = fuzz_u8(in);
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = pick_rkey(in, !k);
	}
	wr.wr_id = s[k].send_posted + 1;
	rc = roce_post_send(s[k].qp, &wr, &bad);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == 0)
		s[k].send_posted++;
}

static void post_recv(struct fuzz_in *in, int k)
{
	uint32_t len = pick_len(in), off = (uint32_t)fuzz_u16(in) % MEM;
	struct roce_sge sge;
	struct roce_recv_wr wr = {.sg_list = &sge, .num_sge = 1}, *bad;
	int rc;

	if (!s[k].qp)
		return;
	if (off + len > MEM)
		off = MEM - RTE_MIN(len, MEM);
	sge = (struct roce_sge){.addr = (uintptr_t)s[k].mem + off,
				.length = len,
				.lkey = s[k].mr ? s[k].mr->lkey : s[k].stale_rkey};
	wr.wr_id = RECV_BIT | (s[k].recv_posted + 1);
	rc = roce_post_recv(s[k].qp, &wr, &bad);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == 0)
		s[k].recv_posted++;
}

/* A PSN relative to the state of side @k's QP. */
static uint32_t pick_psn(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in);
	const struct roce_qp *q = s[k].qp;
	uint32_t base;
	int32_t delta = (int8_t)fuzz_u8(in);

	switch (b & 7) {
	case 0:
	case 1:
		base = q ? q->resp.psn : 0; /* what the responder expects */
		break;
	case 2:
	case 3:
		base = q ? q->comp.psn : 0; /* the oldest unacknowledged request */
		break;
	case 4:
		base = q ? q->req.psn : 0; /* the next the requester sends */
		break;
	case 5:
		base = q ? q->req.high_psn : 0;
		break;
	case 6:
		base = fuzz_u32(in);
		break;
	default:
		base = q ? q->resp.psn : 0;
		delta += 0x800000; /* half the space away: ahead or behind? */
		break;
	}
	return (base + (uint32_t)delta) & ROCE_PSN_MASK;
}

/* An AETH syndrome: ACK (credits), RNR NAK (timer), NAK (codes 0-4 and reserved ones). */
static uint8_t pick_syndrome(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);

	switch (b >> 6) {
	case 0:
		return ROCE_AETH_ACK | (b & 0x1f);
	case 1:
		return ROCE_AETH_RNR_NAK | (b & 0x1f);
	case 2:
		return ROCE_AETH_NAK | (b & 3);
	default:
		return b;
	}
}

static bool has(uint8_t op, enum roce_opflag f)
{
	return roce_opinfo(op) && roce_op_has((enum roce_opcode)op, f);
}

/* A frame to side @k's QP from side !k's interface (or from the third address). */
static void inject(struct fuzz_in *in, int k)
{
	static const uint8_t rc_ops[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
		0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
		/* the responses again, so ACKs and READ responses are half the draws */
		0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x11, 0x11, 0x12, 0x10};
	uint8_t b = fuzz_u8(in), payload[4096 + 64];
	struct roce_path path;
	struct roce_tx t;
	struct rte_mbuf *m;
	uint32_t len;

	memset(&t, 0, sizeof(t));
	t.opcode = rc_ops[b % RTE_DIM(rc_ops)];
	t.psn = pick_psn(in, k);
	t.ackreq = (b & 0x40) != 0;
	t.dqpn = (b & 0x80) ? fuzz_u32(in) & ROCE_QPN_MASK : s[k].qpn;
	t.lqpn = s[!k].qpn;
	len = pick_len(in);
	if (len > 4096)
		len = 4096;
	memset(payload, 0xa5, len);
	if (has(t.opcode, ROCE_OPF_RETH)) {
		t.va = IOVA + fuzz_u16(in);
		t.rkey = pick_rkey(in, k);
		t.dmalen = pick_len(in);
	}
	if (has(t.opcode, ROCE_OPF_ATOMICETH)) {
		t.va = (IOVA + fuzz_u16(in)) & ~(uint64_t)((b & 0x20) ? 0 : 7);
		t.rkey = pick_rkey(in, k);
		t.swap_add = fuzz_u8(in);
		t.cmp = fuzz_u8(in);
	}
	if (has(t.opcode, ROCE_OPF_AETH)) {
		const struct roce_qp *q = s[k].qp;

		t.syndrome = pick_syndrome(in);
		t.msn = ((q ? q->resp.msn : 0) + (int8_t)fuzz_u8(in)) & 0xffffff;
	}
	if (has(t.opcode, ROCE_OPF_ATOMICACKETH))
		t.orig = fuzz_u32(in);
	t.imm = fuzz_u8(in);
	t.ieth_rkey = pick_rkey(in, k);
	memset(&path, 0, sizeof(path));
	path.dgid_ip = fp.ip[k];
	path.sgid_ip = (b & 0x20) && !(has(t.opcode, ROCE_OPF_ATOMICETH)) ? fp.third : fp.ip[!k];
	t.path = &path;
	/* payload only where the opcode carries one */
	if (!has(t.opcode, ROCE_OPF_PAYLOAD))
		len = 0;
	m = roce_tx_build(fp.pool, stk_iface_get((uint16_t)!k), &t, payload, len, NULL);
	if (!m)
		return; /* beyond the MTU, or not a frame the builder makes */
	if (stk_ip_send(fp.lc, stk_iface_get((uint16_t)!k), m, &fp.ip[k]) != 0)
		rte_pktmbuf_free(m);
}

/* Poll for up to 2^b microseconds of real time: retransmission and RNR timers fire. */
static void wait_us(uint8_t b)
{
	uint64_t end = rte_get_tsc_cycles() + (rte_get_tsc_hz() / 1000000 << (b % 8));

	do
		stk_lcore_poll(fp.lc);
	while (rte_get_tsc_cycles() < end);
}

/* What roce_int.h promises of a QP the engine runs: the requester's WQE cursor within the
 * send queue, nothing acknowledged that was not sent, READ/atomics within the negotiated
 * depth, the responder's READ queue within its ring. */
static void check_qp(int k)
{
	const struct roce_qp *q = s[k].qp;

	if (!q || q->state != ROCE_QPS_RTS)
		return;
	CHECK(q->sq.tail <= q->req.cur && q->req.cur <= q->sq.head);
	CHECK(roce_psn_cmp(q->comp.psn, q->req.psn) <= 0);
	CHECK(roce_psn_cmp(q->req.psn, q->req.high_psn) <= 0);
	CHECK(q->req.rd_out <= q->attr.max_rd_atomic);
	CHECK(q->resp.rq_count <= ROCE_MAX_RD_ATOMIC + 1);
	/* READ responses placed ahead: counted right, none at comp.psn (it would have been
	 * taken), and only while a READ heads the send queue */
	{
		uint32_t n = 0;
		uint64_t mask;

		for (unsigned w = 0; w < ROCE_READ_AHEAD / 64; w++)
			n += (uint32_t)__builtin_popcountll(q->comp.ahead[w]);
		CHECK(n == q->comp.ahead_n);
		CHECK(!(*roce_comp_ahead_word(&s[k].qp->comp, q->comp.psn, &mask) & mask));
		CHECK(!n || (q->sq.tail != q->req.cur &&
			     roce_sq_at(&q->sq, q->sq.tail)->wr.opcode == ROCE_WR_RDMA_READ));
	}
}

static void step(struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	int k = (op >> 4) & 1;

	switch (op & 15) {
	case 0:
	case 1:
		post_send(in, k);
		break;
	case 2:
		post_recv(in, k);
		break;
	case 3:
		fuzz_pair_poll(&fp, 1 + fuzz_u8(in) % 16);
		break;
	case 4:
		fuzz_pair_wire(&fp, k, fuzz_u8(in));
		break;
	case 5:
	case 6:
		inject(in, k);
		break;
	case 7: /* deregister (posted and in-flight work keeps the old keys) */
		if (s[k].mr) {
			s[k].stale_rkey = s[k].mr->rkey;
			dereg(k);
			s[k].mr = NULL;
		}
		break;
	case 8: /* register again: new keys */
		if (!s[k].mr)
			reg_mr(k);
		break;
	case 9:
		destroy_qp(k);
		break;
	case 10: { /* the application moves its QP to ERR: everything flushes */
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		if (s[k].qp)
			CHECK(roce_modify_qp(s[k].qp, &a, ROCE_QP_STATE) == 0);
		break;
	}
	case 11:
		poll_cq(k, 1 + fuzz_u8(in) % 4);
		break;
	case 12:
		wait_us(fuzz_u8(in));
		break;
	case 13: /* reconnect: a new pair, new PSNs */
		destroy_qp(0);
		destroy_qp(1);
		fuzz_pair_settle(&fp);
		connect_pair(in);
		break;
	default:
		fuzz_pair_poll(&fp, 16);
		poll_cq(0, ~0u);
		poll_cq(1, ~0u);
		break;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_pair_init(&fp, "rceng", 82);
	stats_on = getenv("FUZZ_RC_ENGINE_STATS") != NULL;
	if (stats_on)
		atexit(print_stats);
	for (int k = 0; k < 2; k++) {
		s[k].pd = roce_alloc_pd(fp.dev[k]);
		s[k].cq = s[k].pd ? roce_create_cq(fp.dev[k], 4096) : NULL;
		s[k].mem = calloc(1, MEM);
		CHECK(s[k].cq != NULL && s[k].mem != NULL);
		roce_dev_counts(fp.dev[k], &s[k].base);
	}
	fuzz_pair_mark(&fp);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {.p = data, .n = size};

	fuzz_pair_pin_neigh(&fp);
	for (int k = 0; k < 2; k++) {
		reg_mr(k);
		s[k].stale_rkey = s[k].mr->rkey ^ 0x100;
	}
	connect_pair(&in);
	for (unsigned n = 0; in.n && n < MAX_OPS; n++) {
		step(&in);
		check_qp(0);
		check_qp(1);
	}
	destroy_qp(0);
	destroy_qp(1);
	fuzz_pair_settle(&fp);
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;

		poll_cq(k, ~0u);
		if (s[k].mr)
			dereg(k);
		s[k].mr = NULL;
		roce_dev_counts(fp.dev[k], &c);
		CHECK(c.qps == s[k].base.qps && c.mrs == s[k].base.mrs);
	}
	fuzz_pair_check_leaks(&fp, "fuzz_rc_engine");
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
