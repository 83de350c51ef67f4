/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_rpcrdma_srv.c - libFuzzer target for the RPC-over-RDMA server's request state machine
 * (rpc/rpcrdma/rpcrdma_ep.c: RECEIVED, READING, DISPATCH, HANDLING, REPLYING, ERR_HDR,
 * ERR_RDMA, DONE) with several calls served at once. The two-device lab of fuzz_pair.c:
 * - side 1: an rpcrdma_ep in RPCRDMA_SERVER role over an orpc_svc serving the test programs
 *   of tests/rpc/orpc_testprog.c (ECHO, FILL, LATER deferred until orpc_test_later_run(),
 *   PLACE into the DDP sink, BUMP in the duplicate request cache, which is enabled), with
 *   conf.server_calls, credits, inline size and the client's RFC 8797 private data chosen by
 *   the input;
 * - side 0: a raw RC QP connected to the endpoint's QP by roce_modify_qp, with a region
 *   registered for remote read and write that chunks point into.
 * The input is a sequence of operations: RPC-over-RDMA messages built from input bytes
 * (xid new, repeated or any; version mostly 1; credits; MSG, NOMSG, ERROR, MSGP, DONE or a
 * garbage procedure; a read list that carries the whole call (position zero), the DDP data
 * of an ECHO or LATER at its XDR position, or arbitrary segments; write chunks; a reply chunk;
 * each list with one optional defect: a wrong or garbage key, an offset outside the region, a
 * zero, short, long or huge length, a position moved or odd), whose body is mostly a
 * well-formed call to the test programs with input-chosen procedure and arguments, sometimes
 * raw bytes; the same message again (duplicate request cache: replayed, or dropped while its
 * first copy is deferred); the deferred LATER calls run; polls; the wire losing, duplicating
 * and reordering frames; either QP moved to ERR (a disconnect); the endpoint quiesced; short
 * real waits for the retransmission and RNR timers; backward calls (RFC 8167) through the
 * svc's backchannel table (orpc_bc.h), and the raw side's replies to them, or stray ones.
 *
 * Checks: every message the server sends decodes with rpcrdma_hdr_decode as RDMA_MSG, NOMSG or
 * ERROR, with no read list, the credits the server grants (> 0), a NOMSG only with a reply
 * chunk, and an xid the raw side sent, never answered more often than it was sent; the
 * server's counters never show more messages sent than received (backward calls aside). A
 * backward call the server sends is a CALL with one of the xids orpc_bc_call was given; each
 * call orpc_bc_call took ends exactly once (0 with a reply, or -ENOTCONN) unless cancelled
 * (orpc_bc_cancel: never), and the table is
 * empty once the endpoint is gone. At the end of each input the
 * deferred calls are run (before or after a first rpcrdma_ep_destroy, which must answer -EBUSY
 * while one waits), the endpoint and the raw QP are destroyed, the wire settles, and QPs, MRs,
 * rte_malloc elements and mbufs must be back at their start counts: a leak aborts.
 *
 * Input: a header of 3 bytes (see connect_pair()), then records whose first byte is the
 * operation (low 4 bits) and a side or flag (bit 4); see step(). Reads past the end are zeros,
 * so every prefix is a valid input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "fuzz_check.h"
#include "fuzz_pair.h"

#include "orpc_bc.h"
#include "orpc_testprog.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "rpcrdma_hdr.h"

#define MEM (128u << 10)      /* the raw side's chunk region */
#define IOVA 0x200000u	      /* and its address as the server sees it */
#define SLOT 8192u	      /* a raw send slot, and a raw receive */
#define NSLOT 16u	      /* raw sends in flight */
#define NRECV 64u	      /* raw receives posted */
#define MAX_CHUNK (32u << 10) /* the server's conf.max_chunk: 3 x this per call served */
#define MAX_OPS 128u	      /* operations per input */
#define MAX_XIDS 256u	      /* distinct xids per input */
#define MAX_BODY (48u << 10)  /* an RPC call built by the raw side */
#define WR_SEND_TAG (1ull << 32)
#define WR_RECV_TAG (2ull << 32)

static struct fuzz_pair fp;
static struct orpc_svc svc;
static struct orpc_bc_table bct; /* svc.bc: the endpoint registers in it when it starts */

static struct {
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;  /* the chunk region: remote read and write */
	struct roce_mr *bmr; /* send slots and receives: local only */
	uint8_t *mem, *bufs;
	bool busy[NSLOT];
	struct roce_dev_counts base;
} raw;

static struct {
	struct roce_pd *pd;
	struct rpcrdma_ep *ep;
	bool closing; /* rpcrdma_ep_destroy said -EBUSY: no more polls */
	uint32_t credits;
	struct roce_dev_counts base;
} srv;

/* xids the raw side sent in this input, and how often each was answered */
static struct {
	uint32_t xid; /* network order, as on the wire */
	uint32_t sent, answered;
} xids[MAX_XIDS];
static uint32_t nxids, next_xid;
static uint32_t sent_msgs, answers;
static uint8_t last_msg[SLOT]; /* the last message sent, for a duplicate */
static uint32_t last_len;
/* backward calls: taken by orpc_bc_call, seen on the wire, ended (done), and the last xid
 * seen (network order), for the raw side's reply */
static uint32_t bc_taken, bc_seen, bc_ended, bc_cancelled, bc_last_xid;
#define BC_XID 0xbc000000u

/* With FUZZ_RPCRDMA_SRV_STATS set: the request states entered and a few counters, summed over
 * every input and printed at exit. */
static bool stats_on;
static uint64_t states[RPCRDMA_REQ_NUM_STATES], st_deferred, st_err_chunk, st_err_vers, st_rdma_err,
	st_placed, st_in_place, st_long_calls, st_long_replies, st_ddp_writes, st_overrun,
	st_bc_sent, st_bc_replies, st_stray;

static void print_stats(void)
{
	for (unsigned i = 0; i < RPCRDMA_REQ_NUM_STATES; i++)
		fprintf(stderr, "entered %-10s %lu\n", rpcrdma_req_state_name(i),
			(unsigned long)states[i]);
	fprintf(stderr,
		"deferred %lu err_chunk %lu err_vers %lu rdma_errors %lu placed %lu in_place %lu "
		"long_calls %lu long_replies %lu ddp_writes %lu credit_overrun %lu\n",
		(unsigned long)st_deferred, (unsigned long)st_err_chunk, (unsigned long)st_err_vers,
		(unsigned long)st_rdma_err, (unsigned long)st_placed, (unsigned long)st_in_place,
		(unsigned long)st_long_calls, (unsigned long)st_long_replies,
		(unsigned long)st_ddp_writes, (unsigned long)st_overrun);
	fprintf(stderr, "bc_calls_sent %lu bc_replies_rx %lu stray_replies %lu\n",
		(unsigned long)st_bc_sent, (unsigned long)st_bc_replies, (unsigned long)st_stray);
}

static void add_stats(const struct rpcrdma_ep_stats *st)
{
	if (!stats_on)
		return;
	for (unsigned i = 0; i < RPCRDMA_REQ_NUM_STATES; i++)
		states[i] += st->req_state[i];
	st_deferred += st->deferred;
	st_err_chunk += st->err_chunk_sent;
	st_err_vers += st->err_vers_sent;
	st_rdma_err += st->rdma_errors;
	st_placed += st->ddp_placed;
	st_in_place += st->in_place_calls;
	st_bc_sent += st->bc_calls_sent;
	st_bc_replies += st->bc_replies_rx;
	st_stray += st->stray_replies;
	st_long_calls += st->long_calls;
	st_long_replies += st->long_replies;
	st_ddp_writes += st->ddp_writes;
	st_overrun += st->credit_overrun;
}

static uint8_t *slot_buf(uint32_t i)
{
	return raw.bufs + (size_t)i * SLOT;
}

static uint8_t *recv_buf(uint32_t i)
{
	return raw.bufs + (size_t)(NSLOT + i) * SLOT;
}

static void raw_post_recv(uint32_t i)
{
	struct roce_sge sge = {(uintptr_t)recv_buf(i), SLOT, raw.bmr->lkey};
	struct roce_recv_wr wr = {.wr_id = WR_RECV_TAG | i, .sg_list = &sge, .num_sge = 1}, *bad;

	/* a QP in ERR flushes it at once, or refuses it: either is fine */
	(void)roce_post_recv(raw.qp, &wr, &bad);
}

/* What the server sent: an answer to one of our messages. */
static void check_answer(const uint8_t *b, uint32_t len)
{
	struct rpcrdma_hdr h;
	uint32_t i;

	CHECK(rpcrdma_hdr_decode(b, len, &h) == RPCRDMA_DEC_OK);
	CHECK(h.proc == RPCRDMA_MSG || h.proc == RPCRDMA_NOMSG || h.proc == RPCRDMA_ERROR);
	CHECK(h.credits > 0 && h.credits == srv.credits);
	if (h.proc != RPCRDMA_ERROR) {
		CHECK(h.nr_rsegs == 0); /* a server never asks the client to be read */
		CHECK(h.proc != RPCRDMA_NOMSG || h.has_reply);
	}
	if (h.proc == RPCRDMA_MSG && len >= h.hdr_len + 8 && b[h.hdr_len + 7] == 0 &&
	    (rte_be_to_cpu_32(h.xid) & 0xff000000u) == BC_XID) {
		/* a backward call (RFC 8167): inline, one of ours */
		CHECK(h.nr_wchunks == 0 && !h.has_reply);
		CHECK(rte_be_to_cpu_32(h.xid) - BC_XID < bc_taken && bc_seen < bc_taken);
		bc_seen++;
		bc_last_xid = h.xid;
		return;
	}
	for (i = 0; i < nxids && xids[i].xid != h.xid; i++)
		;
	CHECK(i < nxids);
	CHECK(xids[i].answered < xids[i].sent);
	xids[i].answered++;
	answers++;
}

static void raw_drain(void)
{
	struct roce_wc wc[16];
	int n;

	while ((n = roce_poll_cq(raw.cq, 16, wc)) > 0) {
		for (int j = 0; j < n; j++) {
			uint32_t idx = (uint32_t)wc[j].wr_id;

			if ((wc[j].wr_id & ~0xffffffffull) == WR_SEND_TAG) {
				CHECK(idx < NSLOT && raw.busy[idx]);
				raw.busy[idx] = false;
				continue;
			}
			CHECK((wc[j].wr_id & ~0xffffffffull) == WR_RECV_TAG && idx < NRECV);
			if (wc[j].status != ROCE_WC_SUCCESS)
				continue; /* flushed: the QP is in ERR, no new receive */
			check_answer(recv_buf(idx), wc[j].byte_len);
			raw_post_recv(idx);
		}
	}
}

static void check_counters(void)
{
	const struct rpcrdma_ep_stats *st;

	if (!srv.ep)
		return;
	st = rpcrdma_ep_stats(srv.ep);
	/* one answer per message at most, besides the backward calls */
	CHECK(st->tx_msgs - st->bc_calls_sent <= st->rx_msgs);
	CHECK(bc_ended + bc_cancelled <= bc_taken);
	CHECK(answers <= sent_msgs);
}

static void poll_once(void)
{
	stk_lcore_poll(fp.lc);
	if (srv.ep && !srv.closing)
		rpcrdma_ep_poll(srv.ep);
	raw_drain();
	check_counters();
}

static void poll_n(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		poll_once();
}

/* Work that only a timer can move on now (an ACK timeout, an RNR wait): a raw send not yet
 * acknowledged while the server has a receive for it (not every credit held by a call that
 * waits: deferred, or behind a quiesce), or a request between RECEIVED and FREE that is not a
 * deferred LATER call. */
static bool waiting_on_timers(void)
{
	const struct rpcrdma_ep_stats *st;
	struct rpcrdma_ep_info info;

	if (!srv.ep || srv.closing || roce_qp_state(raw.qp) == ROCE_QPS_ERR)
		return false;
	rpcrdma_ep_info(srv.ep, &info);
	if (info.failed)
		return false;
	st = rpcrdma_ep_stats(srv.ep);
	for (uint32_t i = 0; i < NSLOT; i++)
		if (raw.busy[i] && st->rx_msgs - st->bc_replies_rx - st->stray_replies -
						   st->req_state[RPCRDMA_REQ_DONE] <
					   srv.credits + RPCRDMA_BC_SLOTS)
			return true;
	return st->req_state[RPCRDMA_REQ_RECEIVED] - st->req_state[RPCRDMA_REQ_FREE] >
	       orpc_test_later_waiting();
}

/* Poll until the wire is empty and nothing moves (at most max_polls polls a round: an RNR
 * exchange with a server whose credits are all held never stops moving), and for up to 500 us
 * of real time more while timers still have work to move on (the ACK timeout is at most
 * 262 us). */
static void settle_max(unsigned max_polls)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2000;

	do {
		unsigned last = 0, still = 0;

		for (unsigned i = 0; i < max_polls && still < 8; i++) {
			unsigned now;

			stk_lcore_flush(fp.lc);
			poll_once();
			now = rte_mempool_in_use_count(fp.pool);
			if (now == last && !rte_ring_count(fp.ring[0]) &&
			    !rte_ring_count(fp.ring[1]))
				still++;
			else
				still = 0;
			last = now;
		}
	} while (waiting_on_timers() && rte_get_tsc_cycles() < end);
}

/* What the end of an input does: settle thoroughly. */
static void settle(void)
{
	settle_max(2000);
}

/* Poll for up to 2^b microseconds of real time: retransmission and RNR timers fire. */
static void wait_us(uint8_t b)
{
	uint64_t end = rte_get_tsc_cycles() + (rte_get_tsc_hz() / 1000000 << (b % 8));

	do
		poll_once();
	while (rte_get_tsc_cycles() < end);
}

/*
 * The endpoint and the raw QP, connected. Header bytes:
 * h0: bits 0-4 server_calls (0-15: 1-16; 16-31: 0, the default of 4), bit 5 inline_max 1024
 *     (else 4096), bit 6 MTU 256 (else 1024), bit 7 end with rpcrdma_ep_destroy before the
 *     deferred calls are run;
 * h1: bits 0-4 credits - 1, bits 5-7 the private data the raw side "sent" (see privs[]);
 * h2: bit 0 PSNs just below 2^24 (they wrap within the first messages), bits 4-5 the local
 *     ACK timeout - 1 (8 us to 66 us; 262 us with bit 6).
 */
static bool destroy_first;

static void connect_pair(struct fuzz_in *in)
{
	/* max_send, max_recv (what the raw side sends at most, receives at most), flags; a
	 * max_send of 0: no private data; 1: 8 bytes that are not RFC 8797's */
	static const uint32_t privs[8][3] = {{4096, 4096, 0}, {4096, 4096, 0}, {1024, 1024, 0},
					     {1024, 8192, 0}, {4096, 4096, 1}, {1, 0, 0},
					     {0, 0, 0},	      {8192, 8192, 0}};
	uint8_t h0 = fuzz_u8(in), h1 = fuzz_u8(in), h2 = fuzz_u8(in);
	struct rpcrdma_ep_conf conf = {0};
	const uint32_t *pv = privs[h1 >> 5];
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	uint32_t priv_len = 0, psn = (h2 & 1) ? 0xfffff0u : 0;
	struct roce_qp_init_attr ia;
	struct roce_qp *q[2];

	conf.server_calls = (h0 & 0x1f) < 16 ? (h0 & 15u) + 1 : 0;
	conf.inline_max = (h0 & 0x20) ? 1024 : 4096;
	conf.max_chunk = MAX_CHUNK;
	conf.credits = (h1 & 31u) + 1;
	destroy_first = (h0 & 0x80) != 0;
	srv.credits = conf.credits;
	srv.closing = false;
	srv.ep = rpcrdma_ep_create(fp.dev[1], srv.pd, RPCRDMA_SERVER, &conf, &svc);
	CHECK(srv.ep != NULL);

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = raw.cq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = NSLOT;
	ia.cap.max_recv_wr = NRECV;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	raw.qp = roce_create_qp(raw.pd, &ia);
	CHECK(raw.qp != NULL);
	q[0] = raw.qp;
	q[1] = rpcrdma_ep_qp(srv.ep);
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		/* the raw side's region is read and written by the server; the server exposes
		 * nothing */
		a.qp_access_flags = k == 0 ? ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ : 0;
		CHECK(roce_modify_qp(q[k], &a,
				     ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					     ROCE_QP_ACCESS_FLAGS) == 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = (h0 & 0x40) ? ROCE_MTU_256 : ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(q[!k]);
		a.rq_psn = psn;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		a.ah_attr.dgid_ip = fp.ip[!k];
		CHECK(roce_modify_qp(q[k], &a,
				     ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					     ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER) ==
		      0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = psn;
		a.timeout = (uint8_t)((h2 & 0x40) ? 6 : 1 + ((h2 >> 4) & 3));
		a.retry_cnt = 3;
		a.rnr_retry = 7; /* the raw side may send beyond the credits: it waits */
		a.max_rd_atomic = 4;
		CHECK(roce_modify_qp(q[k], &a,
				     ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					     ROCE_QP_MAX_QP_RD_ATOMIC) == 0);
	}
	for (uint32_t i = 0; i < NRECV; i++)
		raw_post_recv(i);
	if (pv[0] == 1) {
		memset(priv, 0x5a, sizeof(priv));
		priv_len = sizeof(priv);
	} else if (pv[0]) {
		struct rpcrdma_cm_priv p = {.present = true,
					    .remote_inv_ok = pv[2] != 0,
					    .max_send = pv[0],
					    .max_recv = pv[1]};

		rpcrdma_cm_priv_encode(&p, priv);
		priv_len = sizeof(priv);
	}
	rpcrdma_ep_set_peer(srv.ep, &fp.ip[0], 700);
	CHECK(rpcrdma_ep_start(srv.ep, priv_len ? priv : NULL, priv_len) == 0);
}

/* A length: often around the limits (the inline sizes, the server's max_chunk and what is
 * left of it after an ECHO's header, the region), else anything up to 64 KiB. */
static uint32_t pick_len(struct fuzz_in *in)
{
	static const uint32_t lens[32] = {
		/* small, and around the inline sizes */
		0, 1, 4, 8, 12, 16, 20, 36, 44, 100, 1000, 1023, 1024, 3000, 4093, 4096, 4097, 8192,
		/* around max_chunk (and what is left of it after an ECHO's 44 bytes), the region */
		MAX_CHUNK - 64, MAX_CHUNK - 52, MAX_CHUNK - 48, MAX_CHUNK - 44, MAX_CHUNK - 8,
		MAX_CHUNK - 4, MAX_CHUNK - 1, MAX_CHUNK, MAX_CHUNK + 1, MAX_CHUNK + 4,
		MAX_CHUNK / 2, 2 * MAX_CHUNK, MEM, MEM + 1};
	uint8_t b = fuzz_u8(in);

	if (b < 0x80)
		return lens[b & 31];
	return (uint32_t)(b & 0x7f) << 9 | (fuzz_u16(in) & 0x1ff);
}

/* A valid segment of len bytes in the raw region, at an input-chosen offset. */
static struct rpcrdma_seg pick_seg(struct fuzz_in *in, uint32_t len)
{
	uint32_t off = (uint32_t)fuzz_u8(in) * 512u;

	if (len > MEM)
		len = MEM;
	if (off + len > MEM)
		off = MEM - len;
	return (struct rpcrdma_seg){raw.mr->rkey, len, IOVA + off};
}

static uint8_t *seg_mem(const struct rpcrdma_seg *s)
{
	return raw.mem + (s->offset - IOVA);
}

/*
 * One defect in a segment of a list (byte d: bits 0-3 what, bits 4-7 which segment):
 * 0 a key off by one generation, 1 a garbage key, 2 past the region's end, 3 before its
 * start, 4 zero length, 5 longer by up to 255 bytes, 6 a huge length, 7 shorter by up to 255,
 * 8 position + 4, 9 position + 2 (not XDR-aligned), 10 position 0, 11 position + 4096,
 * 12 the offset's high bits set, 13 swapped with the next segment, 14-15 none.
 */
static void defect(struct fuzz_in *in, struct rpcrdma_seg *const *segs, uint32_t *const *pos,
		   uint32_t n)
{
	uint8_t d = fuzz_u8(in), v = fuzz_u8(in);
	uint32_t i = n ? (uint32_t)(d >> 4) % n : 0;
	struct rpcrdma_seg *g;
	uint32_t *p;

	if (!n)
		return;
	g = segs[i];
	p = pos ? pos[i] : NULL;
	switch (d & 15) {
	case 0:
		g->handle += 1; /* the MR's index with another key byte */
		break;
	case 1:
		g->handle = (uint32_t)v << 24 | 0x1234;
		break;
	case 2:
		g->offset = IOVA + MEM - g->length / 2 - (g->length ? 0 : 1) + 1;
		break;
	case 3:
		g->offset = IOVA - 64 + (v & 63);
		break;
	case 4:
		g->length = 0;
		break;
	case 5:
		g->length += 1u + v;
		break;
	case 6:
		g->length = v & 1 ? 0xffffffffu : MAX_CHUNK + 1 + v;
		break;
	case 7:
		g->length = g->length > v ? g->length - v : 0;
		break;
	case 8:
		if (p)
			*p += 4;
		break;
	case 9:
		if (p)
			*p += 2;
		break;
	case 10:
		if (p)
			*p = 0;
		break;
	case 11:
		if (p)
			*p += 4096;
		break;
	case 12:
		g->offset |= (uint64_t)v << 56 | 1ull << 63;
		break;
	case 13:
		if (i + 1 < n) { /* the segments only: the positions stay */
			struct rpcrdma_seg t = *g;

			*g = *segs[i + 1];
			*segs[i + 1] = t;
		}
		break;
	default:
		break;
	}
}

static uint32_t put32(uint8_t *b, uint32_t v)
{
	uint32_t be = rte_cpu_to_be_32(v);

	memcpy(b, &be, 4);
	return 4;
}

/*
 * The RPC call: byte c: bits 0-1 3 = raw bytes (length byte, then the bytes), else a call;
 * bits 2-5 procedure (0-8 the test program's, 9-15 not served), bit 6 version 2 (else 1),
 * bit 7 a program byte follows (0: the AUTH_SYS program, 1: an unknown one, 2: version 3,
 * 3: RPC version 3, else the test program with AUTH_SYS credentials). Arguments: ECHO and
 * LATER an opaque of pick_len() bytes (at most 40 KiB), FILL, PLACE and BUMP a word of
 * pick_len(). *ddp_pos: where the trailing opaque's content starts (ECHO, LATER), or the
 * arguments' offset, or 0. @return the call's length
 */
static uint32_t build_call(struct fuzz_in *in, uint8_t *b, uint32_t xid, uint32_t *ddp_pos,
			   uint32_t *ddp_len)
{
	uint8_t c = fuzz_u8(in);
	uint32_t proc = (c >> 2) & 15, prog = ORPC_TEST_PROG, vers = (c & 0x40) ? 2 : 1,
		 rpcvers = 2, n = 0, len;
	bool sys = false;

	*ddp_pos = *ddp_len = 0;
	if ((c & 3) == 3) {
		len = fuzz_u8(in);
		for (uint32_t i = 0; i < len; i++)
			b[i] = fuzz_u8(in);
		*ddp_pos = len & ~3u;
		*ddp_len = len - *ddp_pos;
		return len;
	}
	if (c & 0x80) {
		switch (fuzz_u8(in) & 7) {
		case 0:
			prog = ORPC_TEST_SYS_PROG;
			vers = 1;
			sys = true;
			break;
		case 1:
			prog = 0x20000097;
			break;
		case 2:
			vers = 3;
			break;
		case 3:
			rpcvers = 3;
			break;
		default:
			sys = true;
			break;
		}
	}
	n += put32(b + n, xid);
	n += put32(b + n, 0); /* CALL */
	n += put32(b + n, rpcvers);
	n += put32(b + n, prog);
	n += put32(b + n, vers);
	n += put32(b + n, proc);
	if (sys) { /* AUTH_SYS: stamp, "fz", uid 1000 (666 is refused by the SYS program) */
		uint32_t uid = fuzz_u8(in) & 1 ? 666 : 1000;

		n += put32(b + n, 1);
		n += put32(b + n, 24);
		n += put32(b + n, 7);
		n += put32(b + n, 2);
		memcpy(b + n, "fz\0\0", 4);
		n += 4;
		n += put32(b + n, uid);
		n += put32(b + n, 100);
		n += put32(b + n, 0);
	} else {
		n += put32(b + n, 0);
		n += put32(b + n, 0);
	}
	n += put32(b + n, 0); /* verifier */
	n += put32(b + n, 0);
	switch (proc) {
	case ORPC_TEST_ECHO:
	case ORPC_TEST_LATER: {
		uint32_t dl = pick_len(in), k = fuzz_u8(in);

		if (dl > 40u << 10)
			dl = 40u << 10;
		n += put32(b + n, dl);
		*ddp_pos = n;
		*ddp_len = dl;
		for (uint32_t i = 0; i < dl; i++)
			b[n + i] = (uint8_t)(i * 13 + k);
		n += dl;
		while (n & 3)
			b[n++] = 0;
		break;
	}
	case ORPC_TEST_FILL:
	case ORPC_TEST_PLACE:
	case ORPC_TEST_BUMP:
		*ddp_pos = n;
		*ddp_len = 4;
		n += put32(b + n, pick_len(in));
		break;
	default:
		break;
	}
	return n;
}

/* The header's xid (network order): byte bits 6-7: 0-1 a new one, 2 one sent before, 3 any. */
static uint32_t pick_xid(struct fuzz_in *in, uint8_t a)
{
	if (a >> 6 == 3)
		return fuzz_u32(in);
	if (a >> 6 == 2 && nxids)
		return xids[fuzz_u8(in) % nxids].xid;
	return rte_cpu_to_be_32(0x10000 + next_xid++);
}

static void raw_post(const uint8_t *msg, uint32_t len)
{
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	uint32_t s, xid, i;

	for (unsigned tries = 0; tries < 64; tries++) {
		for (s = 0; s < NSLOT && raw.busy[s]; s++)
			;
		if (s < NSLOT)
			break;
		poll_once();
	}
	if (s == NSLOT)
		return; /* every slot is stuck (the server is gone): no send */
	memcpy(slot_buf(s), msg, len);
	sge = (struct roce_sge){(uintptr_t)slot_buf(s), len, raw.bmr->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_SEND_TAG | s;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	if (roce_post_send(raw.qp, &wr, &bad) != 0)
		return;
	raw.busy[s] = true;
	memcpy(&xid, msg, 4);
	for (i = 0; i < nxids && xids[i].xid != xid; i++)
		;
	if (i == nxids) {
		if (nxids == MAX_XIDS)
			return; /* not reached: MAX_OPS < MAX_XIDS */
		xids[nxids].xid = xid;
		xids[nxids].sent = xids[nxids].answered = 0;
		nxids++;
	}
	xids[i].sent++;
	sent_msgs++;
}

/*
 * A message (see the header comment): bytes a (procedure bits 0-2, version bits 4-5, xid
 * bits 6-7), credits, the call (build_call), the read plan r, the write/reply plan w, then
 * each list's segments and defects.
 * r: bits 0-1: 0 no read list, 1 the whole call by position-zero chunk, 2 the DDP data at its
 *    position, 3 arbitrary segments; bits 2-3 segments - 1; bit 4 keep the inline body anyway
 *    (1) / send the round-up inline (2); bit 5 a defect follows; bits 6-7 the truncation of
 *    the inline body (0: none).
 * w: bits 0-1 write chunks (0, 1, 1, 2), bits 2-3 segments per chunk - 1, bit 4 a reply chunk,
 *    bits 5-6 its segments - 1, bit 7 a defect in each list follows.
 */
static void send_msg(struct fuzz_in *in)
{
	static const uint32_t procs[8] = {RPCRDMA_MSG,	 RPCRDMA_MSG,	RPCRDMA_MSG,  RPCRDMA_MSG,
					  RPCRDMA_NOMSG, RPCRDMA_ERROR, RPCRDMA_MSGP, RPCRDMA_DONE};
	static uint8_t call[MAX_BODY], msg[SLOT + MAX_BODY];
	struct rpcrdma_rseg rsegs[4];
	struct rpcrdma_seg wsegs[2][4], rpl[4];
	struct rpcrdma_chunk wch[2], rch;
	struct rpcrdma_hdr_out o = {0};
	uint8_t a = fuzz_u8(in), cr = fuzz_u8(in), r, w;
	uint32_t clen, dpos, dlen, ilen, nseg;
	const uint8_t *inl = call;
	bool long_call = false;
	int h;

	o.xid = pick_xid(in, a);
	o.vers = ((a >> 4) & 3) == 3 ? fuzz_u8(in) : RPCRDMA_VERSION;
	o.credits = cr;
	o.proc = procs[a & 7];
	if ((a & 7) == 7 && (a & 8))
		o.proc = 5 + fuzz_u8(in); /* not a procedure */
	clen = build_call(in, call, rte_be_to_cpu_32(o.xid), &dpos, &dlen);
	ilen = clen;
	r = fuzz_u8(in);
	w = fuzz_u8(in);
	nseg = 1 + ((r >> 2) & 3);
	switch (r & 3) {
	case 1: { /* the whole call by read chunk at position zero, split in nseg */
		uint32_t done = 0;

		o.nr_rsegs = nseg;
		for (uint32_t i = 0; i < nseg; i++) {
			uint32_t part = i + 1 < nseg ? (clen / nseg) & ~3u : clen - done;

			rsegs[i] = (struct rpcrdma_rseg){0, pick_seg(in, part)};
			memcpy(seg_mem(&rsegs[i].seg), call + done, rsegs[i].seg.length);
			done += part;
		}
		long_call = true;
		if (!(r & 0x10))
			ilen = 0;
		break;
	}
	case 2: { /* the DDP data at its position, the inline stream around it */
		uint32_t done = 0, pad = (4 - (dlen & 3)) & 3;

		o.nr_rsegs = nseg;
		for (uint32_t i = 0; i < nseg; i++) {
			uint32_t part = i + 1 < nseg ? dlen / nseg : dlen - done;

			rsegs[i] = (struct rpcrdma_rseg){dpos, pick_seg(in, part)};
			memcpy(seg_mem(&rsegs[i].seg), call + dpos + done, rsegs[i].seg.length);
			done += part;
		}
		/* the inline stream: the call without the data (and without its round-up,
		 * unless bit 4 says to send it, as RFC 8166 §3.4.5 allows) */
		memcpy(msg + SLOT, call, dpos); /* staging for the inline body */
		ilen = dpos;
		if (r & 0x10) {
			memset(msg + SLOT + ilen, 0, pad);
			ilen += pad;
		}
		if (dpos + dlen + pad <= clen) {
			memcpy(msg + SLOT + ilen, call + dpos + dlen + pad,
			       clen - dpos - dlen - pad);
			ilen += clen - dpos - dlen - pad;
		}
		inl = msg + SLOT;
		break;
	}
	case 3: /* arbitrary segments: a position byte and a length each */
		o.nr_rsegs = nseg;
		for (uint32_t i = 0; i < nseg; i++) {
			uint8_t pb = fuzz_u8(in);
			/* x 4, or around the server's max_chunk: where the rebuilt call ends */
			uint32_t pos = pb < 0xf0 ? pb * 4u : MAX_CHUNK - 32 + (pb - 0xf0u) * 4;

			rsegs[i] = (struct rpcrdma_rseg){pos, pick_seg(in, pick_len(in))};
		}
		break;
	default:
		break;
	}
	if (r & 0x20) {
		struct rpcrdma_seg *gs[4];
		uint32_t *ps[4];

		for (uint32_t i = 0; i < o.nr_rsegs; i++) {
			gs[i] = &rsegs[i].seg;
			ps[i] = &rsegs[i].position;
		}
		defect(in, gs, ps, o.nr_rsegs);
	}
	if (r >> 6)
		ilen = ilen * (r >> 6) / 4;
	o.rsegs = rsegs;
	/* the write list and the reply chunk: segments of pick_len() each */
	o.nr_wchunks = ((w & 3) + 1) / 2;
	for (uint32_t c = 0; c < o.nr_wchunks; c++) {
		uint32_t ns = 1 + ((w >> 2) & 3);
		struct rpcrdma_seg *gs[4];

		for (uint32_t i = 0; i < ns; i++) {
			wsegs[c][i] = pick_seg(in, pick_len(in));
			gs[i] = &wsegs[c][i];
		}
		if (w & 0x80)
			defect(in, gs, NULL, ns);
		wch[c] = (struct rpcrdma_chunk){ns, wsegs[c]};
	}
	o.wchunks = wch;
	if (w & 0x10) {
		uint32_t ns = 1 + ((w >> 5) & 3);
		struct rpcrdma_seg *gs[4];

		for (uint32_t i = 0; i < ns; i++) {
			rpl[i] = pick_seg(in, pick_len(in));
			gs[i] = &rpl[i];
		}
		if (w & 0x80)
			defect(in, gs, NULL, ns);
		rch = (struct rpcrdma_chunk){ns, rpl};
		o.reply = &rch;
	}
	if ((a & 7) < 4 && long_call)
		o.proc = RPCRDMA_NOMSG; /* the usual procedure of a long call */
	else if ((a & 7) == 4 && long_call)
		o.proc = RPCRDMA_MSG;
	if (o.proc > RPCRDMA_ERROR || o.proc == RPCRDMA_MSGP || o.proc == RPCRDMA_DONE) {
		/* the encoder refuses what is not a procedure: write MSG, then overwrite it */
		uint32_t p = o.proc;

		o.proc = RPCRDMA_MSG;
		h = rpcrdma_hdr_encode(&o, msg, SLOT);
		if (h > 0)
			put32(msg + 12, p);
	} else {
		o.err = RPCRDMA_ERR_CHUNK;
		h = rpcrdma_hdr_encode(&o, msg, SLOT);
	}
	if (h <= 0)
		return;
	if ((uint32_t)h + ilen > SLOT)
		ilen = SLOT - (uint32_t)h;
	memmove(msg + h, inl, ilen);
	last_len = (uint32_t)h + ilen;
	memcpy(last_msg, msg, last_len);
	raw_post(msg, last_len);
}

/* Run the deferred LATER calls, and the ones their replies let start (bounded). */
static void run_later(void)
{
	for (int i = 0; i < 64 && orpc_test_later_waiting(); i++) {
		orpc_test_later_run();
		poll_n(4);
	}
}

static void bc_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	(void)ctx;
	CHECK(err == 0 || err == -ENOTCONN);
	CHECK(err != 0 || (reply && len >= 8));
	bc_ended++;
}

/* The registration of the endpoint in the table, or 0 (not started, failed, gone). */
static uint64_t bc_id(void)
{
	for (uint32_t i = 0; i < ORPC_BC_MAX; i++)
		if (bct.e[i].id)
			return bct.e[i].id;
	return 0;
}

/* Byte b: bit 0 clear: the server sends a backward NULL call (through the table); set: the
 * raw side sends a reply (an RDMA_MSG with no chunks, REPLY, accepted, SUCCESS) to the last
 * backward call seen (bit 1 clear), or with a stray xid (set); bits 0 and 2 set: the upper
 * layer cancels the last call taken instead. */
static void backchannel(uint8_t b)
{
	static const uint32_t call_words[10] = {0, 0, 2, ORPC_TEST_PROG, 1, 0, 0, 0, 0, 0};
	uint8_t m[64];
	uint32_t xid;
	int rc;

	if (!(b & 1)) {
		xid = rte_cpu_to_be_32(BC_XID + bc_taken);
		for (int i = 0; i < 10; i++) {
			uint32_t v = rte_cpu_to_be_32(call_words[i]);

			memcpy(m + 4 * i, i ? &v : &xid, 4);
		}
		rc = orpc_bc_call(&bct, bc_id(), m, 40, bc_done, NULL);
		CHECK(rc <= 0); /* -ENOTCONN, -EBUSY, or the post's error */
		bc_taken += rc == 0;
		return;
	}
	if (b & 4) {
		xid = rte_cpu_to_be_32(BC_XID + bc_taken - 1);
		rc = bc_taken ? orpc_bc_cancel(&bct, bc_id(), xid) : -ENOENT;
		CHECK(rc == 0 || rc == -ENOENT || rc == -ENOTCONN);
		bc_cancelled += rc == 0;
		return;
	}
	xid = (b & 2) || !bc_last_xid ? rte_cpu_to_be_32(0xbcff0000u | b) : bc_last_xid;
	{
		const uint32_t words[13] = {0, 1, 1, RPCRDMA_MSG, 0, 0, 0, 0, 1, 0, 0, 0, 0};

		for (int i = 0; i < 13; i++) {
			uint32_t v = rte_cpu_to_be_32(words[i]);

			memcpy(m + 4 * i, i == 0 || i == 7 ? &xid : &v, 4);
		}
	}
	raw_post(m, 52);
}

static void qp_to_err(struct roce_qp *qp)
{
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

	(void)roce_modify_qp(qp, &a, ROCE_QP_STATE);
}

static void step(struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	int k = (op >> 4) & 1;

	switch (op & 15) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
		send_msg(in);
		break;
	case 5: /* the last message again: a retransmission after a reconnect, or a replay */
		if (last_len)
			raw_post(last_msg, last_len);
		break;
	case 6:
		if (!srv.closing)
			orpc_test_later_run();
		break;
	case 7:
		poll_n(1 + fuzz_u8(in) % 32);
		break;
	case 8:
		fuzz_pair_wire(&fp, k, fuzz_u8(in));
		break;
	case 9: /* a disconnect: the raw QP (k = 0) or the endpoint's (k = 1) to ERR */
		qp_to_err(k ? rpcrdma_ep_qp(srv.ep) : raw.qp);
		break;
	case 10:
		wait_us(fuzz_u8(in));
		break;
	case 11:
		if (k)
			rpcrdma_ep_quiesce(srv.ep);
		else if (!srv.closing)
			backchannel(fuzz_u8(in));
		break;
	case 12:
	case 13:
	case 14:
		poll_n(16);
		break;
	default: /* an operation's settle is bounded tighter: inputs have many */
		settle_max(256);
		break;
	}
}

/* Destroy the endpoint: -EBUSY while a call is deferred or frames point into its region. */
static void destroy_ep(void)
{
	int rc = rpcrdma_ep_destroy(srv.ep);

	srv.closing = true;
	for (int i = 0; rc == -EBUSY && i < 4000; i++) {
		CHECK(!orpc_test_later_waiting());
		stk_lcore_flush(fp.lc);
		stk_lcore_poll(fp.lc);
		raw_drain();
		rc = rpcrdma_ep_destroy(srv.ep);
	}
	CHECK(rc == 0);
	srv.ep = NULL;
}

static void teardown(void)
{
	settle();
	if (destroy_first && orpc_test_later_waiting()) {
		/* a deferred call still reads its arguments from the endpoint's buffers */
		add_stats(rpcrdma_ep_stats(srv.ep));
		CHECK(rpcrdma_ep_destroy(srv.ep) == -EBUSY);
		srv.closing = true;
		CHECK(rpcrdma_ep_destroy(srv.ep) == -EBUSY);
		run_later(); /* each ends with nothing sent: the QP is gone */
	} else {
		/* a settle may start more calls (behind the ones just ended, or sends the RNR
		 * timer held back), and some may be LATER calls again */
		for (int i = 0; i < 64; i++) {
			run_later();
			settle();
			if (!orpc_test_later_waiting())
				break;
		}
		add_stats(rpcrdma_ep_stats(srv.ep));
	}
	CHECK(!orpc_test_later_waiting());
	destroy_ep();
	/* every backward call taken has ended, once; the endpoint left the table */
	CHECK(bc_ended + bc_cancelled == bc_taken);
	CHECK(bct.live == 0);
	CHECK(roce_destroy_qp(raw.qp) == 0);
	raw.qp = NULL;
	settle();
	raw_drain();
	CHECK(roce_dereg_mr_drain(raw.mr, fp.lc, 4000) == 0);
	CHECK(roce_dereg_mr_drain(raw.bmr, fp.lc, 4000) == 0);
	for (uint32_t i = 0; i < NSLOT; i++)
		raw.busy[i] = false;
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;

		roce_dev_counts(fp.dev[k], &c);
		CHECK(c.qps == (k ? srv.base.qps : raw.base.qps));
		CHECK(c.mrs == (k ? srv.base.mrs : raw.base.mrs));
		CHECK(c.cqs == (k ? srv.base.cqs : raw.base.cqs));
	}
	orpc_svc_drc_disable(&svc);
	fuzz_pair_check_leaks(&fp, "fuzz_rpcrdma_srv");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_pair_init(&fp, "rrsrv", 83);
	stats_on = getenv("FUZZ_RPCRDMA_SRV_STATS") != NULL;
	if (stats_on)
		atexit(print_stats);
	CHECK(orpc_svc_add(&svc, &orpc_test_program) == 0);
	CHECK(orpc_svc_add(&svc, &orpc_test_sys_program) == 0);
	orpc_bc_table_init(&bct);
	svc.bc = &bct;
	raw.pd = roce_alloc_pd(fp.dev[0]);
	raw.cq = raw.pd ? roce_create_cq(fp.dev[0], 1024) : NULL;
	raw.mem = calloc(1, MEM);
	raw.bufs = calloc(NSLOT + NRECV, SLOT);
	srv.pd = roce_alloc_pd(fp.dev[1]);
	CHECK(raw.cq && raw.mem && raw.bufs && srv.pd);
	roce_dev_counts(fp.dev[0], &raw.base);
	roce_dev_counts(fp.dev[1], &srv.base);
	fuzz_pair_mark(&fp);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {.p = data, .n = size};

	fuzz_pair_pin_neigh(&fp);
	nxids = next_xid = sent_msgs = answers = last_len = 0;
	bc_taken = bc_seen = bc_ended = bc_cancelled = bc_last_xid = 0;
	CHECK(!orpc_test_later_waiting());
	CHECK(orpc_svc_drc_enable(&svc) == 0);
	raw.mr = roce_reg_mr(raw.pd, raw.mem, MEM, IOVA,
			     ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ |
				     ROCE_ACCESS_REMOTE_WRITE);
	raw.bmr = roce_reg_mr(raw.pd, raw.bufs, (uint64_t)(NSLOT + NRECV) * SLOT,
			      (uintptr_t)raw.bufs, ROCE_ACCESS_LOCAL_WRITE);
	CHECK(raw.mr && raw.bmr);
	connect_pair(&in);
	for (unsigned n = 0; in.n && n < MAX_OPS; n++)
		step(&in);
	teardown();
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
