/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench - RoCE RC transport throughput and latency over net_ring or net_memif, in one
 * process. The link's ports are in rc-bench-link.c, the memcpy/ICRC baselines in
 * rc-bench-baseline.c, the tables and JSON in rc-bench-report.c, the post-mode ping-pong and
 * the registered memory's placement in rc-bench-post.c (shared state: rc-bench-int.h).
 *
 * Two stack interfaces joined by a virtual link, one roce device on each, and one RC QP pair
 * between them, as in tests/roce/rc_fixture.c. The link (--link):
 *   ring    two net_ring ports whose rings are crossed (A's TX ring is B's RX ring): frames
 *           pass by pointer, and B frees the mbufs A allocated;
 *   memif   a net_memif server (A) and a net_memif client (B) on one socket file in a fresh
 *           temporary directory, both in this process (memif allows one id in both roles on
 *           one socket): in its default copy mode the sender copies each frame into the
 *           shared rings and frees its mbufs, the receiver copies it out into a new mbuf.
 * Side A posts the work; side B is the responder (and, for SEND, the receiver). Two
 * placements:
 *   --lcores 2   side A (stack RX queue of port A, device A, QP A) on the main lcore, side B
 *                (port B, device B, QP B) on the second lcore: each lcore owns one interface
 *                queue and one device, as in production, and the frames cross cores.
 *   --lcores 1   one lcore polls both ports and runs both devices: one core pays for the
 *                sender's and the receiver's work.
 *
 * What it measures, for each placement:
 *   - goodput (payload bits/s) and messages/s of RDMA WRITE, RDMA READ and SEND, for each
 *     path MTU and message size, with a bounded number of WRs in flight (reposted on each
 *     completion) for a fixed time after a warm-up; every cell runs on a fresh QP pair;
 *   - the 64 B message rate of WRITE and SEND with a deep queue;
 *   - SEND ping-pong round trips (A sends 64 B, B answers on receipt), timed with the TSC;
 *   - baselines in the same run: the stack's own UDP packet rate between the two interfaces
 *     (stk_udp_send on A, a stk_udp_bind sink on B, payload never touched), memcpy and ICRC
 *     bandwidth; and the ratios of the transport's rates to them.
 * After each cell the destination slots are compared byte for byte with their sources (the
 * destinations were zeroed before the cell): a cell that moved wrong or no data reports
 * FAIL instead of a speed. It asserts nothing about speed; it prints tables and JSON.
 *
 * Usage: rc-bench [EAL args] -- [--link ring|memif] [--json FILE] [--seconds S]
 *        [--warmup S] [--sizes LIST] [--mtu LIST] [--ops LIST] [--lcores LIST] [--depth N]
 *        [--inflight-kib N] [--rate-depth N] [--mbuf-room N] [--ip-mtu N] [--memif-ring N]
 *        [--memif-buf N] [--timeout S] [--cells-only]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "rc-bench-int.h"
#include "rc-bench.h"
#include "roce_icrc.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define MAX_SEND_WR 256u /* per QP */
#define MAX_RECV_WR 512u
#define MAX_RATE_DEPTH 128u
#define RING_SIZE 16384u    /* frames per direction (net_ring) */
#define MEMIF_RING 1024u    /* default slots per memif ring (--memif-ring) */
#define MEMIF_BUF 9216u	    /* default bytes per memif buffer (--memif-buf); see rc-bench-link.c */
#define POOL_SIZE 16383u    /* mbufs */
#define RAW_INFLIGHT 1024u  /* frames the UDP baseline keeps in flight */
#define SINK_PORT 9u	    /* UDP port of the baseline's sink */
#define START_PSN 0xffff00u /* PSNs wrap early in every cell */

static const char *const link_names[LINK_NUM] = {"ring", "memif"};

struct rcb_globals rcb_g = {
	.secs = 0.3,
	.warmup = 0.05,
	.sizes = {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576},
	.nsizes = 8,
	.mtus = {1024, 4096},
	.nmtus = 2,
	.ops = {true, true, true, true},
	.depth = 16,
	.rate_depth = 128,
	.inflight = 2u << 20,
	.mbuf_room = 10240,
	.ip_mtu = 9000,
	.timeout_s = 900,
	.memif_ring = MEMIF_RING,
	.memif_buf = MEMIF_BUF,
	.post = ROCE_POST_IMMEDIATE,
	.pp_post = {ROCE_POST_IMMEDIATE, ROCE_POST_QUEUE, ROCE_POST_DOORBELL},
	.npp_post = 3,
	.pp_rounds = 2,
};

struct rcb_bctl rcb_bc;

/* B's loop accounting (two lcores): cycles of iterations that received or sent frames. */
static struct {
	uint64_t busy;
} bstat __rte_cache_aligned;

static void on_alarm(int sig)
{
	static const char msg[] = "rc-bench: --timeout reached, aborting\n";
	(void)sig;

	rcb_memif_cleanup();
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Deterministic bytes for a slot: seeded per cell and slot, so a stale copy never matches. */
void rcb_fill(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)(x >> (8 * (i & 7)));
}

/* ------------------------------------------------------------------ side B */

static void b_error(uint32_t code)
{
	uint32_t none = 0;

	__atomic_compare_exchange_n(&rcb_bc.err, &none, code, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

int rcb_post_recv(struct side *sd, uint64_t id, uint8_t *addr, uint32_t len)
{
	struct roce_sge sg = {.addr = (uintptr_t)addr, .length = len, .lkey = sd->mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	return roce_post_recv(sd->qp, &r, &bad);
}

int rcb_post_send(struct side *sd, enum roce_wr_opcode op, uint64_t id, uint8_t *laddr,
		  uint32_t len, uint64_t raddr, uint32_t rkey, bool signaled)
{
	struct roce_sge sg = {.addr = (uintptr_t)laddr, .length = len, .lkey = sd->mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = signaled ? ROCE_SEND_SIGNALED : 0;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return roce_post_send(sd->qp, &w, &bad);
}

/*
 * Side B's poll hook, run once per loop iteration on B's lcore: the receive side of SEND
 * cells, the echo of ping-pong, and the CPU-time marks A asks for.
 */
static void b_poll(struct stk_lcore *lc, void *arg)
{
	uint64_t busy_end = 0;
	struct side *b = &rcb_g.s[1];
	struct roce_wc wc[32];
	uint32_t seq = __atomic_load_n(&rcb_bc.mark_seq, __ATOMIC_ACQUIRE);
	int n;
	(void)arg;

	if (seq != rcb_bc.mark_seen) {
		rcb_bc.mark_seen = seq;
		rcb_bc.mark_cpu[seq & 1] = thread_cpu_s();
		rcb_bc.mark_tsc[seq & 1] = rte_rdtsc();
		rcb_bc.mark_busy[seq & 1] = bstat.busy;
	}
	if (__atomic_load_n(&rcb_bc.probe, __ATOMIC_ACQUIRE)) {
		const struct stk_iface *ifb = stk_iface_get(rcb_g.s[1].iface);

		stk_neigh_probe(lc, ifb, &stk_iface_get(rcb_g.s[0].iface)->ip4);
		__atomic_store_n(&rcb_bc.probe, 0, __ATOMIC_RELEASE);
	}
	if (!b->qp)
		return;
	n = roce_poll_cq(b->cq, 32, wc);
	for (int k = 0; k < n; k++) {
		const struct roce_wc *w = &wc[k];

		if (w->status != ROCE_WC_SUCCESS) {
			b_error(1000 + w->status);
			continue;
		}
		if (w->opcode == ROCE_WC_SEND)
			continue; /* a signalled reply would land here; they are unsignalled */
		if (w->opcode != ROCE_WC_RECV) {
			b_error(2000 + w->opcode);
			continue;
		}
		switch (rcb_bc.mode) {
		case B_SINK:
			if (w->byte_len != rcb_bc.size)
				b_error(3000);
			/* the next message for this slot comes only after this repost */
			if (rcb_post_recv(b, w->wr_id, b->buf + DST_OFF + w->wr_id * rcb_bc.stride,
					  rcb_bc.stride) != 0)
				b_error(4000);
			__atomic_store_n(&rcb_bc.recvs, rcb_bc.recvs + 1, __ATOMIC_RELEASE);
			break;
		case B_PONG:
			if (w->byte_len != 64)
				b_error(3000);
			if (rcb_post_recv(b, w->wr_id, b->buf + DST_OFF + w->wr_id * 64, 64) != 0 ||
			    rcb_post_send(b, ROCE_WR_SEND, 0, b->buf + SRC_OFF, 64, 0, 0, false) !=
				    0)
				b_error(4000);
			__atomic_store_n(&rcb_bc.recvs, rcb_bc.recvs + 1, __ATOMIC_RELEASE);
			break;
		default:
			b_error(5000);
			break;
		}
	}
	/* other work of the lcore's consumers (--pp-busy-ns), after the answer was posted: a
	 * reply only queued waits for it and for the next iteration's poll */
	if (rcb_bc.mode == B_PONG && rcb_g.pp_busy_ns) {
		busy_end = rte_rdtsc() + rcb_g.pp_busy_ns * rcb_g.hz / 1000000000u;
		while (rte_rdtsc() < busy_end)
			rte_pause();
	}
}

/* UDP sink of the baseline (port SINK_PORT, on B): count and free. Takes @p m. */
static int sink_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	(void)lc;
	(void)ifc;
	(void)p;
	(void)arg;
	__atomic_store_n(&rcb_bc.raw_rcvd, rcb_bc.raw_rcvd + 1, __ATOMIC_RELEASE);
	rte_pktmbuf_free(m);
	return 0;
}

/* Side B's lcore (two lcores): the stack loop, parked on request while A reconfigures. An
 * iteration that received or sent a frame counts as busy. */
static int b_main(void *arg)
{
	uint64_t last_tx = rcb_lcore_tx(rcb_g.lb);
	(void)arg;

	while (!__atomic_load_n(&rcb_bc.quit, __ATOMIC_ACQUIRE)) {
		uint64_t t0, tx;
		unsigned rx;

		if (__atomic_load_n(&rcb_bc.park_req, __ATOMIC_ACQUIRE)) {
			stk_lcore_flush(rcb_g.lb);
			__atomic_store_n(&rcb_bc.parked, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&rcb_bc.park_req, __ATOMIC_ACQUIRE) &&
			       !__atomic_load_n(&rcb_bc.quit, __ATOMIC_ACQUIRE))
				rte_pause();
			__atomic_store_n(&rcb_bc.parked, 0, __ATOMIC_RELEASE);
			last_tx = rcb_lcore_tx(rcb_g.lb);
			continue;
		}
		t0 = rte_rdtsc();
		rx = stk_lcore_poll(rcb_g.lb);
		tx = rcb_lcore_tx(rcb_g.lb);
		if (rx || tx != last_tx)
			bstat.busy += rte_rdtsc() - t0;
		last_tx = tx;
	}
	stk_lcore_flush(rcb_g.lb);
	return 0;
}

/* One cache line the two lcores hand back and forth: A writes odd values, B even ones. */
static volatile uint64_t line_token __rte_cache_aligned;
#define LINE_ROUNDS 100000u

static int line_pong(void *arg)
{
	uint64_t lim = rte_rdtsc() + 2 * rcb_g.hz;
	(void)arg;

	for (uint64_t i = 0; i < LINE_ROUNDS && rte_rdtsc() < lim; i++) {
		while (line_token != 2 * i + 1 && rte_rdtsc() < lim)
			rte_pause();
		line_token = 2 * i + 2;
	}
	return 0;
}

/*
 * Round trip of a cache line between the main lcore and B's lcore: what every line the two
 * sides share (mbufs, ring slots, the zero-copy reference count, packet bytes) costs to
 * move. @return nanoseconds per round trip, 0 when it did not complete.
 */
static double line_rtt(unsigned lcore)
{
	uint64_t t0, t1, lim, i;

	line_token = 0;
	if (rte_eal_remote_launch(line_pong, NULL, lcore) != 0)
		return 0;
	t0 = rte_rdtsc();
	lim = t0 + 2 * rcb_g.hz;
	for (i = 0; i < LINE_ROUNDS && rte_rdtsc() < lim; i++) {
		line_token = 2 * i + 1;
		while (line_token != 2 * i + 2 && rte_rdtsc() < lim)
			;
	}
	t1 = rte_rdtsc();
	rte_eal_wait_lcore(lcore);
	return i == LINE_ROUNDS ? (double)(t1 - t0) * 1e9 / (double)rcb_g.hz / LINE_ROUNDS : 0;
}

/* Stop B's lcore between polls, so A may touch B's QP, CQ and memory. */
void rcb_park_b(void)
{
	if (rcb_g.la == rcb_g.lb)
		return;
	__atomic_store_n(&rcb_bc.park_req, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&rcb_bc.parked, __ATOMIC_ACQUIRE))
		rte_pause();
}

void rcb_unpark_b(void)
{
	if (rcb_g.la == rcb_g.lb)
		return;
	__atomic_store_n(&rcb_bc.park_req, 0, __ATOMIC_RELEASE);
	while (__atomic_load_n(&rcb_bc.parked, __ATOMIC_ACQUIRE))
		rte_pause();
}

/* Poll A (and B, with one lcore) for @p ms milliseconds. */
void rcb_settle(unsigned ms)
{
	uint64_t end = rte_rdtsc() + rcb_g.hz * ms / 1000;

	while (rte_rdtsc() < end)
		stk_lcore_poll(rcb_g.la);
}

/* ------------------------------------------------------------------ QP pair */

int rcb_pair_create(uint32_t mtu_bytes)
{
	enum roce_mtu mtu = mtu_bytes == 4096	? ROCE_MTU_4096
			    : mtu_bytes == 2048 ? ROCE_MTU_2048
			    : mtu_bytes == 1024 ? ROCE_MTU_1024
			    : mtu_bytes == 512	? ROCE_MTU_512
						: ROCE_MTU_256;

	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = rcb_g.s[k].cq, .recv_cq = rcb_g.s[k].cq, .qp_type = ROCE_QPT_RC};

		ia.cap.max_send_wr = MAX_SEND_WR;
		ia.cap.max_recv_wr = MAX_RECV_WR;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		rcb_g.s[k].qp = roce_create_qp(rcb_g.s[k].pd, &ia);
		if (!rcb_g.s[k].qp)
			return -rte_errno;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;
		int rc;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		rc = roce_modify_qp(rcb_g.s[k].qp, &a,
				    ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					    ROCE_QP_ACCESS_FLAGS);
		if (rc != 0)
			return rc;
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = roce_qp_num(rcb_g.s[!k].qp);
		a.rq_psn = START_PSN;
		a.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
		a.min_rnr_timer = 1;
		a.ah_attr.dgid_ip = stk_iface_get(rcb_g.s[!k].iface)->ip4;
		rc = roce_modify_qp(rcb_g.s[k].qp, &a,
				    ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					    ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					    ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER);
		if (rc != 0)
			return rc;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;
		int rc;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = START_PSN;
		/* 16.8 ms: long enough that a descheduled core is not a timeout, short enough
		 * that a lost tail shows as 'resent' rather than as a stall */
		a.timeout = 12;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = ROCE_MAX_RD_ATOMIC;
		rc = roce_modify_qp(rcb_g.s[k].qp, &a,
				    ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					    ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					    ROCE_QP_MAX_QP_RD_ATOMIC);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Destroy the pair (B parked) and empty both CQs. Frames still in flight to it are dropped
 * by the receiver as "no QP"; callers drain first, see rcb_settle(). */
void rcb_pair_destroy(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_wc wc[64];

		if (!rcb_g.s[k].qp)
			continue;
		roce_destroy_qp(rcb_g.s[k].qp);
		rcb_g.s[k].qp = NULL;
		while (roce_poll_cq(rcb_g.s[k].cq, 64, wc) > 0)
			;
	}
}

/* Frames dropped so far: the stack's drop counters, and the ports' (memif's RX copy can run
 * out of mbufs, its TX out of ring slots). */
static uint64_t stack_drops(void)
{
	struct stk_port_stats st;
	uint64_t n;

	stk_stats_sum(-1, &st);
	n = st.c[STK_CNT_drops];
	for (int k = 0; k < 2; k++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(rcb_g.s[k].port, &es) == 0)
			n += es.imissed + es.ierrors + es.oerrors + es.rx_nombuf;
	}
	return n;
}

static uint64_t tx_pkts(uint16_t iface)
{
	struct stk_port_stats st;

	stk_stats_sum(iface, &st);
	return st.c[STK_CNT_tx_pkts];
}

/* ------------------------------------------------------------------ one cell */

static uint32_t depth_for(uint32_t size)
{
	uint32_t d = rcb_g.inflight / size;

	return RTE_MAX(2u, RTE_MIN(d, rcb_g.depth));
}

/* Post WR number @p i of a cell on A. */
static int post_cell_wr(const struct rcb_cell *c, uint64_t i, uint32_t stride)
{
	struct side *a = &rcb_g.s[0], *b = &rcb_g.s[1];
	uint32_t slot = (uint32_t)(i % c->depth);

	switch (c->op) {
	case RCB_WRITE:
		return rcb_post_send(a, ROCE_WR_RDMA_WRITE, i, a->buf + SRC_OFF + slot * stride,
				     c->size, (uintptr_t)(b->buf + DST_OFF + slot * stride),
				     b->mr->rkey, true);
	case RCB_READ:
		return rcb_post_send(a, ROCE_WR_RDMA_READ, i, a->buf + DST_OFF + slot * stride,
				     c->size, (uintptr_t)(b->buf + SRC_OFF + slot * stride),
				     b->mr->rkey, true);
	case RCB_READ_MBUF: {
		struct roce_send_wr w, *bad;

		memset(&w, 0, sizeof(w));
		w.wr_id = i;
		w.opcode = ROCE_WR_RDMA_READ;
		w.send_flags = ROCE_SEND_SIGNALED | ROCE_SEND_MBUF;
		w.wr.rdma.remote_addr = (uintptr_t)(b->buf + SRC_OFF + slot * stride);
		w.wr.rdma.rkey = b->mr->rkey;
		w.wr.rdma.length = c->size;
		return roce_post_send(a->qp, &w, &bad);
	}
	case RCB_SEND:
	default:
		return rcb_post_send(a, ROCE_WR_SEND, i, a->buf + SRC_OFF + slot * stride, c->size,
				     0, 0, true);
	}
}

/* The chains of completions not taken (a failed cell stops reading them). */
static void free_chains(struct roce_wc *wc, int n)
{
	for (int i = 0; i < n; i++)
		rte_pktmbuf_free(wc[i].mbuf);
}

/* READ_MBUF cells: each slot's last response chain, compared with its source at the end */
static struct rte_mbuf *keep_chain[MAX_SEND_WR];

static bool is_read(enum rcb_op op)
{
	return op == RCB_READ || op == RCB_READ_MBUF;
}

/* @return whether chain @m holds exactly the @len bytes at @src. */
static bool chain_is(const struct rte_mbuf *m, const uint8_t *src, uint32_t len)
{
	uint32_t at = 0;

	if (!m || rte_pktmbuf_pkt_len(m) != len)
		return false;
	for (; m; m = m->next) {
		if (memcmp(rte_pktmbuf_mtod(m, const uint8_t *), src + at, m->data_len) != 0)
			return false;
		at += m->data_len;
	}
	return at == len;
}

static void cell_fail(struct rcb_cell *c, const char *fmt, ...) __rte_format_printf(2, 3);

static void cell_fail(struct rcb_cell *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->ok)
		return; /* keep the first reason */
	c->ok = false;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/*
 * Compare every destination slot the cell wrote with its source. Slot j of a SEND cell's
 * receive ring holds the message from source slot j % depth (the ring is a multiple of
 * depth long); WRITE and READ use the same slot on both sides.
 */
static void cell_verify(struct rcb_cell *c, uint32_t stride, uint32_t rqd)
{
	const struct side *a = &rcb_g.s[0], *b = &rcb_g.s[1];
	uint32_t nslots = c->op == RCB_SEND ? rqd : c->depth;

	if (c->total < nslots)
		nslots = (uint32_t)c->total;
	for (uint32_t j = 0; j < nslots; j++) {
		const uint8_t *dst, *src;

		if (c->op == RCB_READ_MBUF) {
			if (!chain_is(keep_chain[j], b->buf + SRC_OFF + j * stride, c->size)) {
				cell_fail(c, "data: slot %u's chain differs from its source", j);
				return;
			}
			c->verified++;
			continue;
		}
		switch (c->op) {
		case RCB_WRITE:
			dst = b->buf + DST_OFF + j * stride;
			src = a->buf + SRC_OFF + j * stride;
			break;
		case RCB_READ:
			dst = a->buf + DST_OFF + j * stride;
			src = b->buf + SRC_OFF + j * stride;
			break;
		case RCB_SEND:
		default:
			dst = b->buf + DST_OFF + j * stride;
			src = a->buf + SRC_OFF + (j % c->depth) * stride;
			break;
		}
		if (memcmp(dst, src, c->size) != 0) {
			cell_fail(c, "data: slot %u differs from its source", j);
			return;
		}
		c->verified++;
	}
	if (c->verified == 0)
		cell_fail(c, "data: nothing to verify");
}

/*
 * Run one cell: a fresh QP pair, @p c->depth WRs in flight, each completion reposted until
 * warm-up + measured time are over, then drain, verify and tear down.
 */
static void run_cell(struct rcb_cell *c, uint64_t seed)
{
	struct side *a = &rcb_g.s[0], *b = &rcb_g.s[1];
	uint32_t stride = RTE_ALIGN(c->size, 64), rqd = 0;
	uint32_t pkts_per_msg = (c->size + c->mtu - 1) / c->mtu;
	uint64_t posted = 0, done = 0, d0 = 0, d1 = 0, t0 = 0, t1 = 0, start, warm_end, end;
	uint64_t last, drops0, tx0, prev, last_tx, busy = 0;
	double cpu0 = 0, cpu1 = 0;
	bool measuring = false, stopped = false;
	uint32_t seq1 = 0;
	int rc;

	c->ok = true;
	c->why[0] = '\0';
	rcb_park_b();
	rc = rcb_pair_create(c->mtu);
	if (rc != 0) {
		cell_fail(c, "QP pair: %s", strerror(-rc));
		rcb_pair_destroy();
		rcb_unpark_b();
		return;
	}
	for (uint32_t i = 0; i < c->depth; i++) {
		if (is_read(c->op))
			rcb_fill(b->buf + SRC_OFF + i * stride, c->size, seed * 1000 + i);
		else
			rcb_fill(a->buf + SRC_OFF + i * stride, c->size, seed * 1000 + i);
	}
	if (c->op == RCB_SEND) {
		/* twice the depth of receives: B reposts as it goes and never runs dry */
		rqd = RTE_MIN(2 * c->depth, RTE_MIN(MAX_RECV_WR, REGION / stride));
		rqd -= rqd % c->depth;
		memset(b->buf + DST_OFF, 0, (size_t)rqd * stride);
		for (uint32_t j = 0; j < rqd; j++)
			if (rcb_post_recv(b, j, b->buf + DST_OFF + j * stride, stride) != 0)
				cell_fail(c, "posting receive %u", j);
		rcb_bc.mode = B_SINK;
		rcb_bc.size = c->size;
		rcb_bc.stride = stride;
	} else {
		memset((is_read(c->op) ? a : b)->buf + DST_OFF, 0, (size_t)c->depth * stride);
		rcb_bc.mode = B_IDLE;
	}
	rcb_bc.recvs = 0;
	rcb_bc.err = 0;
	drops0 = stack_drops();
	tx0 = tx_pkts(is_read(c->op) ? b->iface : a->iface);
	rcb_unpark_b();

	for (uint32_t i = 0; i < c->depth && c->ok; i++) {
		rc = post_cell_wr(c, posted, stride);
		if (rc != 0)
			cell_fail(c, "post_send: %s", strerror(-rc));
		else
			posted++;
	}
	start = last = rte_rdtsc();
	warm_end = start + (uint64_t)(rcb_g.warmup * (double)rcb_g.hz);
	end = warm_end + (uint64_t)(rcb_g.secs * (double)rcb_g.hz);
	prev = start;
	last_tx = rcb_lcore_tx(rcb_g.la);
	while (c->ok && done < posted) {
		struct roce_wc wc[32];
		uint64_t now, tx;
		unsigned rx;
		int n;

		rx = stk_lcore_poll(rcb_g.la);
		n = roce_poll_cq(a->cq, 32, wc);
		now = rte_rdtsc();
		tx = rcb_lcore_tx(rcb_g.la);
		if (measuring && !stopped && (rx || n || tx != last_tx))
			busy += now - prev;
		prev = now;
		last_tx = tx;
		for (int k = 0; k < n; k++) {
			static const enum roce_wc_opcode want[RCB_NUM_OPS] = {
				ROCE_WC_RDMA_WRITE, ROCE_WC_RDMA_READ, ROCE_WC_SEND,
				ROCE_WC_RDMA_READ};

			if (wc[k].status != ROCE_WC_SUCCESS) {
				cell_fail(c, "completion %" PRIu64 ": %s", wc[k].wr_id,
					  roce_wc_status_str(wc[k].status));
				free_chains(wc + k, n - k);
				break;
			}
			if (wc[k].opcode != want[c->op] || wc[k].wr_id != done) {
				cell_fail(c, "completion %" PRIu64 " out of order or wrong opcode",
					  wc[k].wr_id);
				free_chains(wc + k, n - k);
				break;
			}
			if (wc[k].mbuf) {
				/* the data is the chain: kept per slot until the next lap */
				uint32_t slot = (uint32_t)(wc[k].wr_id % c->depth);

				if (slot < RTE_DIM(keep_chain)) {
					rte_pktmbuf_free(keep_chain[slot]);
					keep_chain[slot] = wc[k].mbuf;
				} else {
					rte_pktmbuf_free(wc[k].mbuf);
				}
			}
			done++;
			if (!stopped) {
				rc = post_cell_wr(c, posted, stride);
				if (rc != 0)
					cell_fail(c, "post_send: %s", strerror(-rc));
				else
					posted++;
			}
		}
		if (n > 0)
			last = now;
		if (!measuring && now >= warm_end) {
			measuring = true;
			d0 = done;
			t0 = now;
			cpu0 = thread_cpu_s();
			__atomic_fetch_add(&rcb_bc.mark_seq, 1, __ATOMIC_RELEASE);
		}
		if (!stopped && now >= end) {
			stopped = true;
			d1 = done;
			t1 = now;
			cpu1 = thread_cpu_s();
			seq1 = __atomic_add_fetch(&rcb_bc.mark_seq, 1, __ATOMIC_RELEASE);
		}
		if (now - last > STALL_S * rcb_g.hz)
			cell_fail(c, "stalled: %" PRIu64 " of %" PRIu64 " completed", done, posted);
		if (__atomic_load_n(&rcb_bc.err, __ATOMIC_ACQUIRE))
			cell_fail(c, "side B: error code %u", rcb_bc.err);
	}
	/* B has seen every receive before the last ACK left it; give it time to poll them */
	if (c->ok && c->op == RCB_SEND) {
		uint64_t lim = rte_rdtsc() + STALL_S * rcb_g.hz;

		while (__atomic_load_n(&rcb_bc.recvs, __ATOMIC_ACQUIRE) < posted &&
		       rte_rdtsc() < lim)
			stk_lcore_poll(rcb_g.la);
		if (rcb_bc.recvs != posted)
			cell_fail(c, "B completed %" PRIu64 " of %" PRIu64 " receives",
				  rcb_bc.recvs, posted);
	}
	if (!c->ok)
		rcb_settle(20); /* let both sides drop what is still in flight before the QPs go */
	rcb_park_b();
	if (c->ok && rcb_bc.err)
		cell_fail(c, "side B: error code %u", rcb_bc.err);
	c->total = done;
	c->drops = stack_drops() - drops0;
	{
		uint64_t tx = tx_pkts(is_read(c->op) ? b->iface : a->iface) - tx0;
		uint64_t need = done * pkts_per_msg;

		/* A sends only data packets (READ: B sends only responses); ARP is ignored */
		c->resent = tx > need + 2 ? tx - need : 0;
	}
	if (c->ok && stopped && t1 > t0) {
		c->msgs = d1 - d0;
		c->secs = (double)(t1 - t0) / (double)rcb_g.hz;
		c->mps = (double)c->msgs / c->secs;
		c->gbps = c->mps * c->size * 8 / 1e9;
		c->data_mpps = c->mps * pkts_per_msg / 1e6;
		c->cpu_a = (cpu1 - cpu0) / c->secs;
		c->busy_a = (double)busy / (double)(t1 - t0);
		if (rcb_g.la != rcb_g.lb && rcb_bc.mark_seen == seq1) {
			unsigned e = seq1 & 1, s0 = !e;
			double wall = (double)(rcb_bc.mark_tsc[e] - rcb_bc.mark_tsc[s0]);

			c->cpu_b = (rcb_bc.mark_cpu[e] - rcb_bc.mark_cpu[s0]) * (double)rcb_g.hz /
				   wall;
			c->busy_b = (double)(rcb_bc.mark_busy[e] - rcb_bc.mark_busy[s0]) / wall;
		}
		cell_verify(c, stride, rqd);
	} else if (c->ok) {
		cell_fail(c, "no measured window");
	}
	for (uint32_t j = 0; j < RTE_DIM(keep_chain); j++) {
		rte_pktmbuf_free(keep_chain[j]);
		keep_chain[j] = NULL;
	}
	rcb_pair_destroy();
	rcb_bc.mode = B_IDLE;
	rcb_unpark_b();
}

/* ------------------------------------------------------------------ UDP baseline */

/*
 * The stack's own packet rate between the two interfaces: A allocates a frame per datagram
 * (payload not written, as if it were zero-copy), frames it with stk_udp_send (zero UDP
 * checksum, as RoCEv2), B's bound sink counts and frees. Up to RAW_INFLIGHT frames in flight.
 */
static void run_raw(struct rcb_raw *r)
{
	const struct stk_iface *ifa = stk_iface_get(rcb_g.s[0].iface);
	struct stk_flow f = {
		.dst = stk_iface_get(rcb_g.s[1].iface)->ip4,
		.sport = SINK_PORT,
		.dport = SINK_PORT,
		.pcp = STK_PCP_DEFAULT,
		.csum = STK_CSUM_ZERO,
	};
	uint64_t sent = 0, r0 = 0, r1 = 0, t0 = 0, t1 = 0, start, warm_end, end, drops0, lim;
	bool measuring = false;

	r->ok = true;
	if (r->payload + 64 > rcb_g.mbuf_room) {
		r->ok = false;
		return;
	}
	rcb_park_b();
	rcb_bc.mode = B_RAW;
	rcb_bc.raw_rcvd = 0;
	rcb_unpark_b();
	/* resolve B's MAC first: frames sent meanwhile would wait in a short neighbour queue */
	stk_neigh_probe(rcb_g.la, ifa, &f.dst);
	rcb_settle(5);
	drops0 = stack_drops();
	start = rte_rdtsc();
	warm_end = start + (uint64_t)(rcb_g.warmup * (double)rcb_g.hz);
	end = warm_end + (uint64_t)(rcb_g.secs * (double)rcb_g.hz);
	for (;;) {
		uint64_t now = rte_rdtsc(),
			 rcvd = __atomic_load_n(&rcb_bc.raw_rcvd, __ATOMIC_ACQUIRE);
		unsigned burst = sent - rcvd < RAW_INFLIGHT ? STK_BURST : 0;

		if (!measuring && now >= warm_end) {
			measuring = true;
			r0 = rcvd;
			t0 = now;
		}
		if (now >= end) {
			r1 = rcvd;
			t1 = now;
			break;
		}
		for (unsigned k = 0; k < burst; k++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(rcb_g.pool);

			if (!m)
				break;
			if (!rte_pktmbuf_append(m, (uint16_t)r->payload) ||
			    stk_udp_send(rcb_g.la, ifa, m, &f) != 0) {
				rte_pktmbuf_free(m);
				r->send_failed++;
				break;
			}
			sent++;
		}
		stk_lcore_poll(rcb_g.la);
	}
	lim = rte_rdtsc() + rcb_g.hz;
	while (__atomic_load_n(&rcb_bc.raw_rcvd, __ATOMIC_ACQUIRE) < sent && rte_rdtsc() < lim)
		stk_lcore_poll(rcb_g.la);
	rcb_park_b();
	r->drops = stack_drops() - drops0;
	r->mpps = t1 > t0 ? (double)(r1 - r0) * (double)rcb_g.hz / (double)(t1 - t0) / 1e6 : 0;
	rcb_bc.mode = B_IDLE;
	rcb_unpark_b();
}

/* ------------------------------------------------------------------ set-up */

/* Ports, interfaces, devices, PDs, CQs and registered memory: kept for the whole run. */
static void setup(void)
{
	rcb_g.pool = rte_pktmbuf_pool_create("rcb_pool", POOL_SIZE, 256, 0,
					     (uint16_t)(rcb_g.mbuf_room + RTE_PKTMBUF_HEADROOM),
					     (int)rte_socket_id());
	if (!rcb_g.pool)
		rte_exit(EXIT_FAILURE, "rc-bench: pool: %s\n", rte_strerror(rte_errno));
	rcb_pool_pretouch(rcb_g.pool, POOL_SIZE);
	if (rcb_g.link == LINK_MEMIF) {
		const struct rcb_link_conf lc = {.pool = rcb_g.pool,
						 .memif_ring = rcb_g.memif_ring,
						 .memif_buf = rcb_g.memif_buf,
						 .ip_mtu = rcb_g.ip_mtu,
						 .mbuf_room = rcb_g.mbuf_room};

		rcb_memif_ports(&lc, &rcb_g.s[0].port, &rcb_g.s[1].port);
	} else {
		struct rte_ring *r[2];

		r[0] = rte_ring_create("rcb_r0", RING_SIZE, (int)rte_socket_id(), 0);
		r[1] = rte_ring_create("rcb_r1", RING_SIZE, (int)rte_socket_id(), 0);
		if (!r[0] || !r[1])
			rte_exit(EXIT_FAILURE, "rc-bench: rings: %s\n", rte_strerror(rte_errno));
		rcb_g.s[0].port = rcb_ring_port("rcb_a", r[0], r[1], rcb_g.pool);
		rcb_g.s[1].port = rcb_ring_port("rcb_b", r[1], r[0], rcb_g.pool);
	}
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;
		int idx;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "rcb%d", k);
		ifc.port_id = rcb_g.s[k].port;
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x78, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.78.0.2" : "10.78.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = (uint16_t)rcb_g.ip_mtu;
		ifc.nb_rxq = ifc.nb_txq = 1;
		idx = stk_iface_add(&ifc);
		if (idx < 0)
			rte_exit(EXIT_FAILURE, "rc-bench: stk_iface_add failed\n");
		rcb_g.s[k].iface = (uint16_t)idx;
		rcb_g.s[k].dev = roce_dev_open(rcb_g.s[k].iface);
		rcb_g.s[k].pd = rcb_g.s[k].dev ? roce_alloc_pd(rcb_g.s[k].dev) : NULL;
		rcb_g.s[k].cq = rcb_g.s[k].dev ? roce_create_cq(rcb_g.s[k].dev, 4096) : NULL;
		if (rcb_g.s[k].dev)
			roce_dev_set_post_mode(rcb_g.s[k].dev, rcb_g.post);
		rcb_g.s[k].buf = rcb_side_buf();
		if (!rcb_g.s[k].pd || !rcb_g.s[k].cq || !rcb_g.s[k].buf)
			rte_exit(EXIT_FAILURE, "rc-bench: roce device %d: %s\n", k,
				 rte_strerror(rte_errno));
		rcb_g.s[k].mr = roce_reg_mr(rcb_g.s[k].pd, rcb_g.s[k].buf, SIDE_BUF,
					    (uintptr_t)rcb_g.s[k].buf,
					    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
						    ROCE_ACCESS_REMOTE_READ);
		if (!rcb_g.s[k].mr)
			rte_exit(EXIT_FAILURE, "rc-bench: reg_mr: %s\n", rte_strerror(rte_errno));
	}
	if (stk_udp_bind(SINK_PORT, sink_rx, NULL) != 0)
		rte_exit(EXIT_FAILURE, "rc-bench: cannot bind the UDP sink\n");
}

/*
 * Stack lcore contexts for a placement. One lcore: the main lcore polls both ports and runs
 * both devices and B's hook. Two: the main lcore has port A and device A; the next EAL lcore
 * has port B, device B and B's hook. Each uses TX queue 0 of its own port only.
 */
static int lcores_create(struct rcb_mode *r)
{
	unsigned n = r->lcores;
	struct stk_neigh_params np;
	unsigned main_id = rte_get_main_lcore();

	stk_neigh_params_default(&np);
	rcb_g.la = stk_lcore_create(main_id, 0, true, rcb_g.pool, &np);
	if (!rcb_g.la)
		return -rte_errno;
	rcb_g.la->rxq[0] = (struct stk_rxq){.iface = rcb_g.s[0].iface, .port_id = rcb_g.s[0].port};
	rcb_g.la->nb_rxq = 1;
	stk_lcore_add_poll(rcb_g.la, roce_poll, rcb_g.s[0].dev);
	if (n == 1) {
		rcb_g.lb = rcb_g.la;
	} else {
		rcb_g.lcore_b = rte_get_next_lcore(main_id, 1, 0);
		if (rcb_g.lcore_b >= RTE_MAX_LCORE)
			return -ENODEV;
		r->line_rtt_ns = line_rtt(rcb_g.lcore_b);
		rcb_g.lb = stk_lcore_create(rcb_g.lcore_b, 0, false, rcb_g.pool, &np);
		if (!rcb_g.lb)
			return -rte_errno;
		rcb_g.lb->nb_rxq = 0;
	}
	rcb_g.lb->rxq[rcb_g.lb->nb_rxq++] =
		(struct stk_rxq){.iface = rcb_g.s[1].iface, .port_id = rcb_g.s[1].port};
	stk_lcore_add_poll(rcb_g.lb, roce_poll, rcb_g.s[1].dev);
	stk_lcore_add_poll(rcb_g.lb, b_poll, NULL);
	memset(&rcb_bc, 0, sizeof(rcb_bc));
	if (n == 2) {
		rcb_bc.park_req = 1; /* B starts parked */
		if (rte_eal_remote_launch(b_main, NULL, rcb_g.lcore_b) != 0)
			return -EBUSY;
		while (!__atomic_load_n(&rcb_bc.parked, __ATOMIC_ACQUIRE))
			rte_pause();
		rcb_unpark_b();
	}
	return 0;
}

static void lcores_destroy(void)
{
	if (rcb_g.lb != rcb_g.la) {
		__atomic_store_n(&rcb_bc.quit, 1, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(rcb_g.lcore_b);
		stk_lcore_destroy(rcb_g.lb);
	}
	stk_lcore_destroy(rcb_g.la);
	rcb_g.la = rcb_g.lb = NULL;
	/* the next placement runs the devices on other lcores: each claims its device anew
	 * (without this, a device stays with the lcore that polled it first, and the 2-lcore
	 * placement after the 1-lcore one never ran side B: every cell RETRY_EXC_ERR) */
	for (int k = 0; k < 2; k++)
		if (roce_dev_release_lcores(rcb_g.s[k].dev) != 0)
			fprintf(stderr, "rc-bench: releasing device %d's lcores: QPs remain\n", k);
}

/* ------------------------------------------------------------------ main */

static unsigned parse_list(const char *s, uint32_t *out, unsigned max)
{
	unsigned n = 0;

	while (*s && n < max) {
		char *end;
		unsigned long v = strtoul(s, &end, 0);

		if (end == s)
			return 0;
		if (*end == 'k' || *end == 'K') {
			v <<= 10;
			end++;
		} else if (*end == 'm' || *end == 'M') {
			v <<= 20;
			end++;
		}
		out[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rc-bench [EAL args] -- [--link ring|memif] [--json FILE]\n"
		"       [--seconds S] [--warmup S] [--sizes 64,256,...,1M] [--mtu 1024,4096]\n"
		"       [--ops write,read,send,readmbuf] [--lcores 1,2] [--depth N] [--inflight-kib N]\n"
		"       [--rate-depth N] [--mbuf-room N] [--ip-mtu N] [--memif-ring N] [--memif-buf N]\n"
		"       [--timeout S] [--cells-only] [--post immediate|doorbell|queue]\n"
		"       [--pp-post immediate,doorbell,queue] [--pp-rounds N] [--pp-busy-ns N]\n"
		"       [--region heap|mmap] [--iova region|packet]\n");
	exit(2);
}

/* --ops: a comma-separated list of write, read, send, readmbuf. */
static void parse_ops(const char *arg)
{
	static const char *const names[RCB_NUM_OPS] = {"write", "read", "send", "readmbuf"};
	char buf[128], *save = NULL;

	memset(rcb_g.ops, 0, sizeof(rcb_g.ops));
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int op = 0;

		while (op < RCB_NUM_OPS && strcmp(t, names[op]) != 0)
			op++;
		if (op == RCB_NUM_OPS) {
			fprintf(stderr,
				"rc-bench: --ops: '%s' is not write, read, send or readmbuf\n", t);
			exit(2);
		}
		rcb_g.ops[op] = true;
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"link", required_argument, NULL, 'k'},
		{"memif-ring", required_argument, NULL, 'R'},
		{"memif-buf", required_argument, NULL, 'B'},
		{"json", required_argument, NULL, 'j'},
		{"seconds", required_argument, NULL, 's'},
		{"warmup", required_argument, NULL, 'w'},
		{"sizes", required_argument, NULL, 'z'},
		{"mtu", required_argument, NULL, 'm'},
		{"ops", required_argument, NULL, 'o'},
		{"lcores", required_argument, NULL, 'l'},
		{"depth", required_argument, NULL, 'd'},
		{"inflight-kib", required_argument, NULL, 'i'},
		{"rate-depth", required_argument, NULL, 'r'},
		{"mbuf-room", required_argument, NULL, 'b'},
		{"ip-mtu", required_argument, NULL, 'u'},
		{"timeout", required_argument, NULL, 't'},
		{"cells-only", no_argument, NULL, 'n'},
		{"post", required_argument, NULL, 'P'},
		{"pp-post", required_argument, NULL, 'Q'},
		{"pp-rounds", required_argument, NULL, 'N'},
		{"pp-busy-ns", required_argument, NULL, 'y'},
		{"region", required_argument, NULL, 'g'},
		{"iova", required_argument, NULL, 'v'},
		{"copy-max", required_argument, NULL, 'Z'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint32_t tmp[2];
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			for (rcb_g.link = 0; rcb_g.link < LINK_NUM; rcb_g.link++)
				if (!strcmp(optarg, link_names[rcb_g.link]))
					break;
			if (rcb_g.link == LINK_NUM)
				usage();
			break;
		case 'R':
			rcb_g.memif_ring = (uint32_t)atoi(optarg);
			break;
		case 'B':
			rcb_g.memif_buf = (uint32_t)atoi(optarg);
			break;
		case 'j':
			rcb_g.json = optarg;
			break;
		case 's':
			rcb_g.secs = atof(optarg);
			break;
		case 'w':
			rcb_g.warmup = atof(optarg);
			break;
		case 'z':
			rcb_g.nsizes = parse_list(optarg, rcb_g.sizes, RCB_MAX_SIZES);
			break;
		case 'm':
			rcb_g.nmtus = parse_list(optarg, rcb_g.mtus, RCB_MAX_MTUS);
			break;
		case 'o':
			parse_ops(optarg);
			break;
		case 'l':
			rcb_g.nlcores = parse_list(optarg, tmp, 2);
			for (unsigned i = 0; i < rcb_g.nlcores; i++)
				rcb_g.lcores_list[i] = tmp[i];
			break;
		case 'd':
			rcb_g.depth = (uint32_t)atoi(optarg);
			break;
		case 'i':
			rcb_g.inflight = (uint32_t)atoi(optarg) << 10;
			break;
		case 'r':
			rcb_g.rate_depth = (uint32_t)atoi(optarg);
			break;
		case 'b':
			rcb_g.mbuf_room = (uint32_t)atoi(optarg);
			break;
		case 'u':
			rcb_g.ip_mtu = (uint32_t)atoi(optarg);
			break;
		case 't':
			rcb_g.timeout_s = (unsigned)atoi(optarg);
			break;
		case 'n':
			rcb_g.cells_only = true;
			break;
		case 'P':
			if (rcb_parse_post(optarg, &rcb_g.post) != 0)
				usage();
			break;
		case 'Q': {
			char *save = NULL, *tok, *list = strdup(optarg);

			rcb_g.npp_post = 0;
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (rcb_g.npp_post >= RCB_PP_MODES ||
				    rcb_parse_post(tok, &rcb_g.pp_post[rcb_g.npp_post++]) != 0)
					usage();
			free(list);
			break;
		}
		case 'N':
			rcb_g.pp_rounds = (unsigned)atoi(optarg);
			break;
		case 'y':
			rcb_g.pp_busy_ns = (uint32_t)atoi(optarg);
			break;
		case 'g':
			if (strcmp(optarg, "heap") && strcmp(optarg, "mmap"))
				usage();
			rcb_g.region_mmap = !strcmp(optarg, "mmap");
			break;
		case 'v':
			if (strcmp(optarg, "region") && strcmp(optarg, "packet"))
				usage();
			roce_iova_per_packet = !strcmp(optarg, "packet");
			break;
		case 'Z':
			roce_copy_max = (uint32_t)atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (rcb_g.nsizes == 0 || rcb_g.nmtus == 0 || rcb_g.secs <= 0 || rcb_g.warmup < 0 ||
	    rcb_g.depth == 0 || rcb_g.depth > MAX_SEND_WR / 2 || rcb_g.rate_depth == 0 ||
	    rcb_g.rate_depth > MAX_RATE_DEPTH || rcb_g.inflight == 0 || rcb_g.ip_mtu < 576 ||
	    rcb_g.ip_mtu > 9216 || rcb_g.mbuf_room + RTE_PKTMBUF_HEADROOM > UINT16_MAX ||
	    rcb_g.memif_ring < 256 || rcb_g.memif_ring > 16384 ||
	    (rcb_g.memif_ring & (rcb_g.memif_ring - 1)) || rcb_g.memif_buf < 128 ||
	    rcb_g.memif_buf > UINT16_MAX || rcb_g.npp_post == 0 || rcb_g.pp_rounds == 0)
		usage();
	for (unsigned i = 0; i < rcb_g.nsizes; i++)
		if (rcb_g.sizes[i] == 0 || (uint64_t)rcb_g.sizes[i] * 2 > REGION)
			usage();
	for (unsigned i = 0; i < rcb_g.nmtus; i++)
		if (rcb_g.mtus[i] < 256 || rcb_g.mtus[i] > 4096 ||
		    (rcb_g.mtus[i] & (rcb_g.mtus[i] - 1)))
			usage();
	for (unsigned i = 0; i < rcb_g.nlcores; i++)
		if (rcb_g.lcores_list[i] != 1 && rcb_g.lcores_list[i] != 2)
			usage();
}

/* Name the link in the JSON rcb_write_json() wrote: "link" as the object's first member. */
static void json_add_link(const char *path)
{
	FILE *f = fopen(path, "r+");
	char *buf = NULL;
	long n;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 1 && (buf = malloc((size_t)n)) &&
	    fseek(f, 0, SEEK_SET) == 0 && fread(buf, 1, (size_t)n, f) == (size_t)n &&
	    buf[0] == '{' && fseek(f, 0, SEEK_SET) == 0)
		fprintf(f, "{\n  \"link\":\"%s\",%.*s", link_names[rcb_g.link], (int)(n - 1),
			buf + 1);
	free(buf);
	fclose(f);
}

/* What the report shows of the options. */
static void report_params(void)
{
	rcb_g.run.secs = rcb_g.secs;
	rcb_g.run.warmup = rcb_g.warmup;
	memcpy(rcb_g.run.mtus, rcb_g.mtus, sizeof(rcb_g.mtus));
	rcb_g.run.nmtus = rcb_g.nmtus;
	rcb_g.run.depth = rcb_g.depth;
	rcb_g.run.rate_depth = rcb_g.rate_depth;
	rcb_g.run.inflight = rcb_g.inflight;
	rcb_g.run.mbuf_room = rcb_g.mbuf_room;
	rcb_g.run.ip_mtu = rcb_g.ip_mtu;
	rcb_g.run.ring = rcb_g.link == LINK_MEMIF ? rcb_g.memif_ring : RING_SIZE;
	rcb_g.run.pool = POOL_SIZE;
	rcb_g.run.post = (int)rcb_g.post;
}

/* Everything for one placement, in the order: baseline, matrix, message rate, ping-pong. */
static void run_mode(struct rcb_mode *r)
{
	uint64_t seed = 1 + r->lcores * 100000ull;

	if (!rcb_g.cells_only) {
		r->raw[r->nraw++].payload = 64;
		for (unsigned m = 0; m < rcb_g.nmtus;
		     m++) /* a data packet's BTH + payload + ICRC */
			r->raw[r->nraw++].payload = rcb_g.mtus[m] + 16;
	}
	for (unsigned i = 0; i < r->nraw; i++) {
		run_raw(&r->raw[i]);
		fprintf(stderr, "rc-bench: %u lcore(s): UDP %u B: %.2f Mpps\n", r->lcores,
			r->raw[i].payload, r->raw[i].mpps);
	}
	for (unsigned m = 0; m < rcb_g.nmtus; m++) {
		for (int op = 0; op < RCB_NUM_OPS; op++) {
			if (!rcb_g.ops[op])
				continue;
			for (unsigned z = 0; z < rcb_g.nsizes; z++) {
				struct rcb_cell *c = &r->cells[r->ncells++];

				c->op = (enum rcb_op)op;
				c->mtu = rcb_g.mtus[m];
				c->size = rcb_g.sizes[z];
				c->depth = depth_for(c->size);
				run_cell(c, seed++);
				fprintf(stderr, "rc-bench: %u lcore(s): %s %u %u: %s %.2f Gbit/s\n",
					r->lcores, rcb_op_names[op], c->mtu, c->size,
					c->ok ? "ok" : c->why, c->gbps);
			}
		}
		if (rcb_g.cells_only)
			continue;
		for (int op = 0; op < RCB_NUM_OPS; op++) {
			struct rcb_cell *c;

			if (op == RCB_READ || op == RCB_READ_MBUF || !rcb_g.ops[op])
				continue; /* READ is held to max_rd_atomic (16) outstanding */
			c = &r->rate[r->nrate++];
			c->op = (enum rcb_op)op;
			c->mtu = rcb_g.mtus[m];
			c->size = 64;
			c->depth = rcb_g.rate_depth;
			run_cell(c, seed++);
		}
		rcb_run_pingpongs(r, rcb_g.mtus[m]);
	}
}

int main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		rte_exit(EXIT_FAILURE, "rc-bench: EAL init failed\n");
	argc -= ret;
	argv += ret;
	parse_args(argc, argv);
	signal(SIGALRM, on_alarm);
	alarm(rcb_g.timeout_s);
	rcb_g.hz = rte_get_tsc_hz();
	if (rcb_g.nlcores == 0) {
		rcb_g.lcores_list[rcb_g.nlcores++] = 1;
		if (rte_lcore_count() >= 2)
			rcb_g.lcores_list[rcb_g.nlcores++] = 2;
	}
	setup();
	if (!rcb_g.cells_only) {
		rcb_g.run.memcpy_gbs[0] = rcb_memcpy_rate(
			rcb_g.s[0].buf + SRC_OFF, rcb_g.s[0].buf + DST_OFF, 4096, rcb_g.secs);
		rcb_g.run.memcpy_gbs[1] = rcb_memcpy_rate(
			rcb_g.s[0].buf + SRC_OFF, rcb_g.s[0].buf + DST_OFF, 65536, rcb_g.secs);
		for (unsigned m = 0; m < rcb_g.nmtus; m++)
			rcb_g.run.icrc_gbs[m] =
				rcb_icrc_rate(rcb_g.pool, rcb_g.s[0].iface, rcb_g.s[1].iface,
					      rcb_g.s[0].buf + SRC_OFF, rcb_g.mtus[m], rcb_g.secs);
	}
	if (rcb_g.link == LINK_MEMIF)
		printf("rc-bench: net_memif A (server) <-> B (client) in one process, socket %s, "
		       "%u slots per ring, %u B buffers, copy mode",
		       rcb_memif_sock(), rcb_g.memif_ring, rcb_g.memif_buf);
	else
		printf("rc-bench: net_ring A<->B in one process");
	printf(", IP MTU %u, %.2f s per cell after %.2f s warm-up, ICRC engine %s, %s\n",
	       rcb_g.ip_mtu, rcb_g.secs, rcb_g.warmup,
	       roce_icrc_impl() == ROCE_CRC_ISAL ? "isa-l" : "table",
	       rte_eal_has_hugepages() ? "hugepages" : "no hugepages");
	printf("baselines: memcpy %.1f GB/s (4 KiB pieces), %.1f GB/s (64 KiB pieces), 2 MiB "
	       "span",
	       rcb_g.run.memcpy_gbs[0], rcb_g.run.memcpy_gbs[1]);
	for (unsigned m = 0; m < rcb_g.nmtus; m++)
		printf("; ICRC check %.1f GB/s (%u B frames, in L2)", rcb_g.run.icrc_gbs[m],
		       rcb_g.mtus[m]);
	printf("\n");
	for (unsigned m = 0; m < rcb_g.nmtus; m++) {
		double cp = rcb_g.run.memcpy_gbs[0], crc = rcb_g.run.icrc_gbs[m];

		if (cp > 0 && crc > 0)
			printf("byte-cost bound @%u (ICRC on TX and on RX + one memcpy per byte at "
			       "the rates above, no per-packet cost): one core %.1f Gbit/s; with "
			       "two, the receiver's core %.1f Gbit/s\n",
			       rcb_g.mtus[m], 8 / (2 / crc + 1 / cp), 8 / (1 / crc + 1 / cp));
	}
	fflush(stdout);
	for (unsigned i = 0; i < rcb_g.nlcores; i++) {
		struct rcb_mode *r = &rcb_g.run.res[rcb_g.run.nres++];
		int rc;

		r->lcores = rcb_g.lcores_list[i];
		rc = lcores_create(r);
		if (rc != 0) {
			fprintf(stderr, "rc-bench: %u lcore(s): %s (give EAL -l 0,1)\n", r->lcores,
				strerror(-rc));
			lcores_destroy();
			rcb_g.run.nres--;
			continue;
		}
		/* resolve both MACs before any cell: frames sent while ARP runs wait in a short
		 * neighbour queue, and the ones beyond it are lost and resent */
		__atomic_store_n(&rcb_bc.probe, 1, __ATOMIC_RELEASE);
		stk_neigh_probe(rcb_g.la, stk_iface_get(rcb_g.s[0].iface),
				&stk_iface_get(rcb_g.s[1].iface)->ip4);
		rcb_settle(10);
		run_mode(r);
		lcores_destroy();
		report_params();
		rcb_print_mode(r);
		rcb_print_ratios(&rcb_g.run, r);
		fflush(stdout);
	}
	if (rcb_g.json) {
		report_params();
		if (rcb_write_json(&rcb_g.run, rcb_g.json) == 0)
			json_add_link(rcb_g.json);
	}
	if (rcb_g.link == LINK_MEMIF) {
		/*
		 * No teardown: with both memif ends in one process, EAL's interrupt thread runs
		 * the memif control-channel handlers of one end while the other end, or EAL
		 * cleanup, frees their memory, and DPDK 22.11 then crashes in that thread about
		 * one exit in three (removing the client first and waiting for the server to see
		 * the link go down did not help). Exit leaves everything to the kernel; the socket
		 * file and its directory go in rcb_memif_cleanup() (atexit).
		 */
		fflush(stdout);
		return 0;
	}
	for (int k = 0; k < 2; k++) {
		rte_eth_dev_stop(rcb_g.s[k].port);
		rte_eth_dev_close(rcb_g.s[k].port);
	}
	rte_eal_cleanup();
	return 0;
}
