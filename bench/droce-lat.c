/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-lat - the latency profiler: round trips through droce, as percentiles (stk_hist.h),
 * with where the time goes inside droce from the stack's TSC stamps (struct stk_stamps).
 * bench/lat.py runs it beside dpdk-testpmd and reports droce against testpmd's round trip;
 * docs/latency.md says how to read the output.
 *
 * Modes (--mode), one per run, one message in flight:
 *   raw    the baseline's other half: no stack. A frame (Ethernet/IPv4/UDP, --size bytes of
 *          payload) goes out of --port with rte_eth_tx_burst() and is waited for with
 *          rte_eth_rx_burst(). With testpmd in 5tswap mode on the far side of a memif, this is
 *          the round trip of the device and the reflector alone.
 *   udp    the same datagram through the stack: stk_udp_send() (framing, checksums, the TX
 *          buffer), the reflector, then the stack's receive path (RX burst, parse, classify,
 *          the bound port's handler). Our own address both ways, so 5tswap's swap leaves the
 *          datagram addressed to us.
 *   echo   droce as the reflector: the stack's UDP echo on --port (a memif server, say), in
 *          place of testpmd, for a raw client in another process; it runs until SIGINT or
 *          SIGTERM. Its figures are per echo, inside droce: from the RX burst that got the
 *          datagram to the end of the TX burst of the answer, by stage, and DPDK's own
 *          rte_latencystats (RX callback to TX callback of the same mbuf: the echo reuses it),
 *          which DPDK's tools read too (dpdk-proc-info --metrics).
 *   send, write, read
 *          RC ping-pong between two droce interfaces in this process (A and B, one QP each,
 *          as bench/rc-bench.c), over a net_memif server/client pair (--link memif) or crossed
 *          net_ring ports (--link ring), both sides on one lcore, or with --lcores 2 side B
 *          (its port, device and consumer) on the second EAL lcore, as two hosts would be.
 *          send: A SENDs, B's consumer
 *          answers with a SEND on the receive completion. write: perftest's write_lat; A
 *          WRITEs, B's consumer polls its memory for the new sequence number and WRITEs it
 *          back; A polls its own. read: A READs from B; B's transport answers, no consumer.
 *
 * One sample is from A's post (or send) to A seeing the answer. The stage table comes from
 * the lcore's stamp log of each round trip, matched in order against the milestones of the
 * mode (post, TX burst start and end, RX burst, delivery to the UDP handler after parse and
 * classify, the consumer seeing the message, its answer posted, ... the answer seen), each
 * stage a histogram of its own. A round trip whose log does not show the milestones in order
 * (an ACK timer's frame in between, say) counts in the RTT but not in the stages.
 *
 * Output: the tables on stdout; with --json, one JSON object (parameters, RTT percentiles,
 * stages, the CDF from the histogram's buckets).
 *
 * Usage: droce-lat [EAL args] -- --mode raw|udp|send|write|read [options]   (-- --help)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_latencystats.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_metrics.h>
#include <rte_ring.h>
#include <rte_udp.h>
#include <rte_version.h>

#include "rc-bench.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "stk_config.h"
#include "stk_hist.h"
#include "stk_impair.h"
#include "stk_stack.h"

#define HDRS 42 /* Ethernet, IPv4, UDP */
#define UDP_PORT 7
#define SIDE_BUF (1u << 20)
#define SRC_OFF 0u
#define DST_OFF (512u << 10)
#define RECVS 64u
#define LOAD_SIZE (64u << 10) /* --load: each bulk WRITE */
#define LOAD_SRC (256u << 10) /* from A's buffer here */
#define LOAD_DST (768u << 10) /* to B's buffer here */
#define LOAD_TAG (1ull << 63) /* in a bulk WRITE's wr_id */
#define START_PSN 0xfff000u
#define POOL_SIZE 8191u
#define STALL_S 10   /* RC: no answer by then fails the run (the transport retries first) */
#define LOSS_MS 200  /* raw/udp: an answer this late is counted lost and the next one sent */
#define MAX_LOST 100 /* raw/udp: give up after this many */
#define MAX_STAGES 12
#define PCTS 5

/* the application's marks in the stamp log */
enum lat_mark {
	MARK_POST = 1, /**< A posted the request (or handed the datagram to the stack) */
	MARK_SEEN,     /**< B's consumer saw it */
	MARK_REPLY,    /**< B's consumer posted the answer */
	MARK_DONE,     /**< A saw the answer */
};

enum lat_mode { MODE_RAW, MODE_UDP, MODE_ECHO, MODE_SEND, MODE_WRITE, MODE_READ, MODE_NUM };
static const char *const mode_names[MODE_NUM] = {"raw", "udp", "echo", "send", "write", "read"};

/** One milestone in a round trip's stamp log, and the stage that ends at it. */
struct milestone {
	enum stk_stamp_kind kind;
	uint16_t mark;	      /**< for STK_STAMP_APP */
	const char *stage;    /**< the stage from the previous milestone to this one */
	const char *category; /**< rx-burst, parse, transport, consumer, tx-burst, wire */
};

#define M_POST                                                                                     \
	{                                                                                          \
		STK_STAMP_APP, MARK_POST, NULL, NULL                                               \
	}
#define M(kind, mark, stage, cat)                                                                  \
	{                                                                                          \
		kind, mark, stage, cat                                                             \
	}

static const struct milestone ms_udp[] = {
	M_POST,
	M(STK_STAMP_TX_START, 0, "A: stk_udp_send -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "A: TX burst", "tx-burst"),
	M(STK_STAMP_RX_BURST, 0, "device + reflector + RX burst", "wire+rx-burst"),
	M(STK_STAMP_DELIVER, 0, "A: parse + classify", "parse"),
	M(STK_STAMP_APP, MARK_DONE, "A: handler (consumer)", "consumer"),
};

static const struct milestone ms_pingpong[] = {
	M_POST,
	M(STK_STAMP_TX_START, 0, "A: post -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "A: TX burst", "tx-burst"),
	M(STK_STAMP_RX_BURST, 0, "link A->B + RX burst", "wire+rx-burst"),
	M(STK_STAMP_DELIVER, 0, "B: parse + classify", "parse"),
	M(STK_STAMP_APP, MARK_SEEN, "B: transport -> consumer", "transport"),
	M(STK_STAMP_APP, MARK_REPLY, "B: consumer answers", "consumer"),
	M(STK_STAMP_TX_START, 0, "B: post -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "B: TX burst", "tx-burst"),
	M(STK_STAMP_RX_BURST, 0, "link B->A + RX burst", "wire+rx-burst"),
	M(STK_STAMP_DELIVER, 0, "A: parse + classify", "parse"),
	M(STK_STAMP_APP, MARK_DONE, "A: transport -> consumer", "transport"),
};

/* echo: the server's side only, from the RX burst */
static const struct milestone ms_echo[] = {
	{STK_STAMP_RX_BURST, 0, NULL, NULL},
	M(STK_STAMP_DELIVER, 0, "B: parse + classify", "parse"),
	M(STK_STAMP_APP, MARK_SEEN, "B: dispatch -> echo handler", "consumer"),
	M(STK_STAMP_APP, MARK_REPLY, "B: echo (stk_udp_send)", "transport"),
	M(STK_STAMP_TX_START, 0, "B: -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "B: TX burst", "tx-burst"),
};

static const struct milestone ms_read[] = {
	M_POST,
	M(STK_STAMP_TX_START, 0, "A: post -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "A: TX burst", "tx-burst"),
	M(STK_STAMP_RX_BURST, 0, "link A->B + RX burst", "wire+rx-burst"),
	M(STK_STAMP_DELIVER, 0, "B: parse + classify", "parse"),
	M(STK_STAMP_TX_START, 0, "B: responder -> TX burst", "transport"),
	M(STK_STAMP_TX_END, 0, "B: TX burst", "tx-burst"),
	M(STK_STAMP_RX_BURST, 0, "link B->A + RX burst", "wire+rx-burst"),
	M(STK_STAMP_DELIVER, 0, "A: parse + classify", "parse"),
	M(STK_STAMP_APP, MARK_DONE, "A: transport -> consumer", "transport"),
};

static const double pcts[PCTS] = {50, 90, 99, 99.9, 99.99};
static const char *const pct_names[PCTS] = {"p50", "p90", "p99", "p99.9", "p99.99"};

struct side {
	uint16_t port, iface;
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	struct roce_qp *qp;
	struct roce_qp *lqp; /**< --load: the background bulk flow's QP */
	uint8_t *buf;
};

static struct {
	/* options */
	enum lat_mode mode;
	const char *port;
	const char *link;
	const char *json;
	uint32_t size, iters, warmup, timeout_s;
	unsigned lcores;   /**< RC: 1, or 2 with side B on its own lcore */
	int post;	   /**< RC: enum roce_post_mode of both devices */
	uint64_t dump;	   /**< --dump: the round trip whose stamp log is printed (0: none) */
	uint32_t load;	   /**< --load: 64 KiB WRITEs kept in flight on a second QP pair */
	double dcqcn_gbps; /**< --dcqcn: DCQCN on both devices at this line rate (0: off) */
	uint32_t ce_ppm;   /**< --ce: side A's RoCE frames CE-marked, per million */
	uint64_t load_done, load_t0, load_t1; /**< bulk WRITEs completed, and when */
	/* set-up */
	struct rte_mempool *pool;
	struct side s[2];
	struct stk_lcore *lc;
	uint64_t hz;
	struct stk_stamps stamps;
	/* --lcores 2: side B's lcore, its stamp log, and the hand-over of that log to A */
	struct stk_lcore *lb;
	unsigned lcore_b;
	struct stk_stamps stamps_b, snap, merged;
	uint32_t snap_req, snap_ready, b_quit; /**< atomics */
	/* one round trip */
	uint64_t seq;		/**< the sequence number in flight */
	volatile uint64_t done; /**< the last sequence number A saw come back */
	uint64_t bad;		/**< answers that were not the one in flight */
	uint64_t lost;		/**< raw/udp: requests not answered within LOSS_MS */
	volatile int stop;	/**< echo: SIGINT/SIGTERM seen */
	unsigned nlstat;	/**< echo: rte_latencystats values */
	struct rte_metric_name lnames[8];
	struct rte_metric_value lvals[8];
	char lstat_why[80]; /**< echo: why there are none */
	/* results */
	const struct milestone *ms;
	unsigned nms;
	unsigned split; /**< milestones from here on are matched backward (0: none) */
	struct stk_hist *rtt, *stage[MAX_STAGES];
	uint64_t unmatched; /**< round trips whose log did not show the milestones */
	uint64_t samples;
	char why[160];
} g = {
	.link = "memif",
	.size = 64,
	.iters = 100000,
	.warmup = 2000,
	.timeout_s = 120,
	.lcores = 1,
	.post = ROCE_POST_IMMEDIATE,
};

static void on_alarm(int sig)
{
	static const char msg[] = "droce-lat: --timeout reached, aborting\n";
	(void)sig;

	rcb_memif_cleanup();
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static double us(uint64_t cycles)
{
	return (double)cycles * 1e6 / (double)g.hz;
}

/* ------------------------------------------------------------------ stages */

/* Match the log against the milestones in order; record each stage. @return matched. */
static bool is_milestone(const struct stk_stamps *st, uint32_t pos, const struct milestone *m)
{
	return st->ev[pos].kind == m->kind &&
	       (m->kind != STK_STAMP_APP || st->ev[pos].arg == m->mark);
}

/*
 * Match the log against the milestones and record each stage. @return matched.
 * The milestones before g.split are matched forward from the start (the first of each after
 * the previous one), those from g.split on backward from the end (the last of each before the
 * next one): the way back is found from the event that ended the round trip, so frames in
 * between (an ACK sent before the answer, the requester's own ACK) are not taken for it.
 */
static bool attribute(const struct stk_stamps *st)
{
	uint32_t at[MAX_STAGES + 1], pos = 0, split = g.split ? g.split : g.nms;
	int64_t back = (int64_t)st->n - 1;

	for (unsigned k = 0; k < split; k++) {
		while (pos < st->n && !is_milestone(st, pos, &g.ms[k]))
			pos++;
		if (pos >= st->n)
			return false;
		at[k] = pos++;
	}
	for (unsigned k = g.nms; k-- > split;) {
		while (back >= (int64_t)pos && !is_milestone(st, (uint32_t)back, &g.ms[k]))
			back--;
		if (back < (int64_t)pos)
			return false;
		at[k] = (uint32_t)back--;
	}
	for (unsigned k = 1; k < g.nms; k++)
		stk_hist_record(g.stage[k - 1], st->ev[at[k]].tsc - st->ev[at[k - 1]].tsc);
	return true;
}

/* One round trip done (A saw the answer at @p t1, posted at @p t0): record it. */
/* --dump N: round trip N's stamp log on stderr, relative to its first entry */
static void dump_log(uint64_t i, const struct stk_stamps *log)
{
	static const char *const kinds[STK_STAMP_NUM_KINDS] = {"RX_BURST", "DELIVER", "TX_START",
							       "TX_END", "APP"};
	static const char *const marks[] = {"", "POST", "SEEN", "REPLY", "DONE"};

	fprintf(stderr, "droce-lat: round trip %" PRIu64 ", %u stamps:\n", i, log->n);
	for (uint32_t k = 0; k < log->n; k++)
		fprintf(stderr, "  %8.3f us  %-8s %s%u\n", us(log->ev[k].tsc - log->ev[0].tsc),
			kinds[log->ev[k].kind],
			log->ev[k].kind == STK_STAMP_APP && log->ev[k].arg < RTE_DIM(marks)
				? marks[log->ev[k].arg]
				: "arg ",
			log->ev[k].kind == STK_STAMP_APP ? 0u : log->ev[k].arg);
}

static void sample_log(uint64_t i, uint64_t t0, uint64_t t1, const struct stk_stamps *log)
{
	if (g.dump && i == g.dump)
		dump_log(i, log);
	if (i < g.warmup)
		return;
	stk_hist_record(g.rtt, t1 - t0);
	g.samples++;
	if (g.ms && !attribute(log))
		g.unmatched++;
}

static void sample(uint64_t i, uint64_t t0, uint64_t t1)
{
	sample_log(i, t0, t1, &g.stamps);
}

/* ------------------------------------------------------------------ raw */

static struct rte_mbuf *raw_frame(uint16_t port, uint64_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g.pool);
	uint16_t len = (uint16_t)(HDRS + g.size);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;
	uint8_t *d;

	if (!m)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, len < 60 ? 60 : len);
	if (!d) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(d, 0, rte_pktmbuf_data_len(m));
	eh = (struct rte_ether_hdr *)d;
	rte_eth_macaddr_get(port, &eh->src_addr);
	/* to the broadcast MAC and to 10.99.0.1, which is also the echo mode's own address: a
	 * droce echo server takes it without ARP, and 5tswap does not look at addresses */
	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = ip->dst_addr = rte_cpu_to_be_32(0x0a630001); /* 10.99.0.1 */
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uh = (struct rte_udp_hdr *)(ip + 1);
	uh->src_port = uh->dst_port = rte_cpu_to_be_16(UDP_PORT);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + g.size));
	memcpy(uh + 1, &seq, g.size >= 8 ? 8 : g.size);
	return m;
}

/* The raw baseline: no stack, the port's own bursts. */
static int run_raw(void)
{
	uint16_t port = stk_iface_get(0)->port_id;

	for (uint64_t i = 0; i < (uint64_t)g.warmup + g.iters; i++) {
		struct rte_mbuf *m = raw_frame(port, i + 1), *rx[32];
		uint64_t t0, lim;
		bool got = false;

		if (!m)
			return snprintf(g.why, sizeof(g.why), "no mbufs"), -ENOMEM;
		t0 = rte_rdtsc();
		lim = t0 + LOSS_MS * g.hz / 1000;
		while (m && rte_eth_tx_burst(port, 0, &m, 1) == 0) {
			if (rte_rdtsc() > lim) {
				/* the port took nothing for LOSS_MS (a memif peer gone for a
				 * while): a lost request like an unanswered one */
				rte_pktmbuf_free(m);
				m = NULL;
			}
		}
		while (!got && rte_rdtsc() < lim) {
			uint16_t n = rte_eth_rx_burst(port, 0, rx, 32);

			for (uint16_t k = 0; k < n; k++) {
				uint64_t seq = 0;

				if (rte_pktmbuf_data_len(rx[k]) >= HDRS + 8)
					memcpy(&seq,
					       rte_pktmbuf_mtod_offset(rx[k], uint8_t *, HDRS), 8);
				if (seq == i + 1)
					got = true;
				else
					g.bad++;
				rte_pktmbuf_free(rx[k]);
			}
			if (got)
				sample(i, t0, rte_rdtsc());
		}
		if (!got && ++g.lost >= MAX_LOST)
			return snprintf(g.why, sizeof(g.why),
					"%" PRIu64 " requests unanswered (is the reflector up?)",
					g.lost),
			       -ETIMEDOUT;
	}
	return 0;
}

/* ------------------------------------------------------------------ udp */

/* The datagram came back: note its sequence number. Takes @p m. */
static int udp_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		  const struct stk_pkt *p, void *arg)
{
	uint64_t seq = 0;
	(void)ifc;
	(void)arg;

	stk_stamp(lc, MARK_DONE);
	if (p->payload_len >= 8)
		memcpy(&seq, rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off), 8);
	if (seq == g.seq)
		g.done = seq;
	else
		g.bad++;
	rte_pktmbuf_free(m);
	return 0;
}

/* When A saw the answer: its DONE mark (the loop may stamp more after it in the same round). */
static uint64_t done_tsc(void)
{
	for (uint32_t k = g.stamps.n; k-- > 0;)
		if (g.stamps.ev[k].kind == STK_STAMP_APP && g.stamps.ev[k].arg == MARK_DONE)
			return g.stamps.ev[k].tsc;
	return rte_rdtsc();
}

static int run_udp(void)
{
	const struct stk_iface *ifc = stk_iface_get(0);
	struct stk_flow f = {
		.src = ifc->ip4,
		.dst = ifc->ip4,
		.sport = UDP_PORT,
		.dport = UDP_PORT,
		.pcp = STK_PCP_DEFAULT,
		.csum = STK_CSUM_FULL,
	};

	for (uint64_t i = 0; i < (uint64_t)g.warmup + g.iters; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(g.lc->pool);
		uint64_t t0, lim;
		uint8_t *d;

		if (!m || !(d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)g.size))) {
			rte_pktmbuf_free(m);
			return snprintf(g.why, sizeof(g.why), "no mbufs"), -ENOMEM;
		}
		g.seq = i + 1;
		memset(d, 0, g.size);
		memcpy(d, &g.seq, g.size >= 8 ? 8 : g.size);
		g.stamps.n = 0;
		t0 = rte_rdtsc();
		stk_stamp(g.lc, MARK_POST);
		if (stk_udp_send(g.lc, ifc, m, &f) != 0) {
			rte_pktmbuf_free(m);
			return snprintf(g.why, sizeof(g.why), "stk_udp_send refused"), -EIO;
		}
		lim = t0 + LOSS_MS * g.hz / 1000;
		while (g.done != g.seq && rte_rdtsc() < lim)
			stk_lcore_poll(g.lc);
		if (g.done != g.seq) {
			if (++g.lost >= MAX_LOST)
				return snprintf(g.why, sizeof(g.why),
						"%" PRIu64
						" datagrams unanswered (is the reflector up?)",
						g.lost),
				       -ETIMEDOUT;
			continue;
		}
		sample(i, t0, done_tsc());
	}
	return 0;
}

/* ------------------------------------------------------------------ echo */

static void on_stop(int sig)
{
	(void)sig;
	g.stop = 1;
}

/* The echo: the payload back to where it came from, in the same mbuf (as droce-gen's echo
 * server). Ownership: on 0 the stack owns @p m; on non-zero it frees it. */
static int echo_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	struct stk_flow f = {.src = p->dst,
			     .dst = p->src,
			     .sport = p->dport,
			     .dport = p->sport,
			     .pcp = STK_PCP_DEFAULT,
			     .csum = STK_CSUM_FULL};
	int rc;
	(void)arg;

	stk_stamp(lc, MARK_SEEN);
	if (!rte_pktmbuf_adj(m, p->payload_off) ||
	    rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - p->payload_len)) != 0)
		return -1;
	rc = stk_udp_send(lc, ifc, m, &f);
	stk_stamp(lc, MARK_REPLY);
	return rc;
}

/* rte_latencystats on every port, sampling every frame. @return 0, or -1 (why in lstat_why). */
static int lstats_start(void)
{
	rte_metrics_init((int)rte_socket_id());
	if (rte_latencystats_init(1, NULL) != 0) {
		snprintf(g.lstat_why, sizeof(g.lstat_why), "rte_latencystats_init failed");
		return -1;
	}
	return 0;
}

static void lstats_read(void)
{
	int n;

	rte_latencystats_update();
	n = rte_latencystats_get_names(g.lnames, RTE_DIM(g.lnames));
	if (n <= 0 || n > (int)RTE_DIM(g.lnames) ||
	    rte_latencystats_get(g.lvals, RTE_DIM(g.lvals)) != n) {
		snprintf(g.lstat_why, sizeof(g.lstat_why), "rte_latencystats_get failed");
		return;
	}
	g.nlstat = (unsigned)n;
}

/* Serve echoes until stopped; each echo's log is matched once it shows the TX burst's end. */
static int run_echo(void)
{
	uint64_t next_update = 0;

	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	lstats_start();
	while (!g.stop) {
		uint64_t now;

		stk_lcore_poll(g.lc);
		if (g.stamps.n && g.stamps.ev[g.stamps.n - 1].kind == STK_STAMP_TX_END) {
			uint64_t t0 = 0, t1 = g.stamps.ev[g.stamps.n - 1].tsc;

			for (uint32_t k = 0; k < g.stamps.n; k++)
				if (g.stamps.ev[k].kind == STK_STAMP_RX_BURST) {
					t0 = g.stamps.ev[k].tsc;
					break;
				}
			if (t0)
				sample(UINT64_MAX, t0, t1);
			g.stamps.n = 0;
		} else if (g.stamps.n > STK_STAMPS_MAX / 2) {
			g.stamps.n = 0; /* frames that were not echoes (ARP, ...) */
		}
		now = rte_rdtsc();
		if (now >= next_update) {
			rte_latencystats_update();
			next_update = now + g.hz / 10;
		}
	}
	if (!g.lstat_why[0])
		lstats_read();
	return 0;
}

/* ------------------------------------------------------------------ RC */

static int post_recv(struct side *sd, uint64_t id)
{
	struct roce_sge sg = {.addr = (uintptr_t)(sd->buf + DST_OFF + id * g.size),
			      .length = g.size,
			      .lkey = sd->mr->lkey};
	struct roce_recv_wr r = {.wr_id = id, .sg_list = &sg, .num_sge = 1}, *bad;

	return roce_post_recv(sd->qp, &r, &bad);
}

/* @p sd posts @p op of g.size bytes from its source slot to the peer's destination slot (READ:
 * the peer's source into its own destination). */
static int post_op(struct side *sd, const struct side *peer, enum roce_wr_opcode op, bool signaled)
{
	bool rd = op == ROCE_WR_RDMA_READ;
	struct roce_sge sg = {.addr = (uintptr_t)(sd->buf + (rd ? DST_OFF : SRC_OFF)),
			      .length = g.size,
			      .lkey = sd->mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = signaled ? ROCE_SEND_SIGNALED : 0;
	w.wr.rdma.remote_addr = (uintptr_t)(peer->buf + (rd ? SRC_OFF : DST_OFF));
	w.wr.rdma.rkey = peer->mr->rkey;
	return roce_post_send(sd->qp, &w, &bad);
}

/* the sequence number in the last 8 bytes of a slot */
static uint64_t slot_seq(const uint8_t *slot)
{
	uint64_t v;

	memcpy(&v, (const void *)(slot + g.size - 8), 8);
	return v;
}

static void set_seq(uint8_t *slot, uint64_t v)
{
	memcpy(slot + g.size - 8, &v, 8);
}

/* B's consumer (a poll hook): SEND answers each receive, WRITE each new sequence number. */
static void b_poll(struct stk_lcore *lc, void *arg)
{
	struct side *a = &g.s[0], *b = &g.s[1];
	static uint64_t seen;
	struct roce_wc wc[8];
	int n;
	(void)arg;

	if (!b->qp)
		return;
	if (g.mode == MODE_WRITE) {
		volatile uint8_t *slot = b->buf + DST_OFF;
		uint64_t v = slot_seq((const uint8_t *)slot);

		if (v != seen) {
			seen = v;
			stk_stamp(lc, MARK_SEEN);
			set_seq(b->buf + SRC_OFF, v);
			/* marked before the post: an immediate post ends in the TX burst */
			stk_stamp(lc, MARK_REPLY);
			if (post_op(b, a, ROCE_WR_RDMA_WRITE, false) != 0)
				__atomic_fetch_add(&g.bad, 1, __ATOMIC_RELAXED);
		}
	}
	n = roce_poll_cq(b->cq, 8, wc);
	for (int k = 0; k < n; k++) {
		if (wc[k].status != ROCE_WC_SUCCESS) {
			__atomic_fetch_add(&g.bad, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (wc[k].opcode != ROCE_WC_RECV)
			continue;
		stk_stamp(lc, MARK_SEEN);
		set_seq(b->buf + SRC_OFF, slot_seq(b->buf + DST_OFF + wc[k].wr_id * g.size));
		if (post_recv(b, wc[k].wr_id) != 0)
			__atomic_fetch_add(&g.bad, 1, __ATOMIC_RELAXED);
		stk_stamp(lc,
			  MARK_REPLY); /* before the post: an immediate post ends in the burst */
		if (post_op(b, a, ROCE_WR_SEND, false) != 0)
			__atomic_fetch_add(&g.bad, 1, __ATOMIC_RELAXED);
	}
}

/* --load: one more 64 KiB RDMA WRITE of the background flow, on A's second QP. */
static int post_load(void)
{
	struct side *a = &g.s[0], *b = &g.s[1];
	struct roce_sge sg = {
		.addr = (uintptr_t)(a->buf + LOAD_SRC), .length = LOAD_SIZE, .lkey = a->mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = LOAD_TAG;
	w.opcode = ROCE_WR_RDMA_WRITE;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uintptr_t)(b->buf + LOAD_DST);
	w.wr.rdma.rkey = b->mr->rkey;
	return roce_post_send(a->lqp, &w, &bad);
}

/* A bulk WRITE completed: count it and keep the flow going. */
static void load_done(const struct roce_wc *wc)
{
	if (wc->status != ROCE_WC_SUCCESS || post_load() != 0)
		g.bad++;
	if (g.load_done++ == 0)
		g.load_t0 = rte_rdtsc();
	g.load_t1 = rte_rdtsc();
}

/* Has A seen the answer to g.seq? (SEND/READ: a completion; WRITE: its memory) */
static bool a_done(void)
{
	struct side *a = &g.s[0];
	struct roce_wc wc;

	if (g.mode == MODE_WRITE) {
		while (g.load && roce_poll_cq(a->cq, 1, &wc) == 1)
			load_done(&wc);
		return slot_seq(a->buf + DST_OFF) == g.seq;
	}
	while (roce_poll_cq(a->cq, 1, &wc) == 1) {
		if (wc.wr_id & LOAD_TAG) {
			load_done(&wc);
			continue;
		}
		if (wc.status != ROCE_WC_SUCCESS) {
			g.bad++;
			continue;
		}
		if (wc.opcode == ROCE_WC_RECV) {
			if (post_recv(a, wc.wr_id) != 0)
				g.bad++;
			if (slot_seq(a->buf + DST_OFF + wc.wr_id * g.size) == g.seq)
				return true;
			g.bad++;
		} else if (wc.opcode == ROCE_WC_RDMA_READ) {
			return slot_seq(a->buf + DST_OFF) == g.seq;
		}
	}
	return false;
}

/* Connect side A's and side B's QPs of the ping-pong (@p load false) or of the background
 * bulk flow (true). */
static int pair_create(bool load)
{
#define QP(k) (*(load ? &g.s[k].lqp : &g.s[k].qp))
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = g.s[k].cq, .recv_cq = g.s[k].cq, .qp_type = ROCE_QPT_RC};

		ia.cap.max_send_wr = 256;
		ia.cap.max_recv_wr = 256;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		QP(k) = roce_create_qp(g.s[k].pd, &ia);
		if (!QP(k))
			return -rte_errno;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;
		int rc;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		rc = roce_modify_qp(QP(k), &a,
				    ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					    ROCE_QP_ACCESS_FLAGS);
		if (rc != 0)
			return rc;
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(QP(!k));
		a.rq_psn = START_PSN;
		a.max_dest_rd_atomic = ROCE_MAX_RD_ATOMIC;
		a.min_rnr_timer = 1;
		a.ah_attr.dgid_ip = stk_iface_get(g.s[!k].iface)->ip4;
		rc = roce_modify_qp(QP(k), &a,
				    ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					    ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					    ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER);
		if (rc != 0)
			return rc;
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = START_PSN;
		/* 0.54 s: a side descheduled on a busy machine is not a lost packet (7 retries
		 * of 67 ms were exhausted there, with the QP in error) */
		a.timeout = 17;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = ROCE_MAX_RD_ATOMIC;
		rc = roce_modify_qp(QP(k), &a,
				    ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					    ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					    ROCE_QP_MAX_QP_RD_ATOMIC);
		if (rc != 0)
			return rc;
	}
	return 0;
#undef QP
}

/* --lcores 2: side B's lcore. It resolves A's MAC from its own neighbour table, then polls;
 * when A asks (after each round trip), it hands over its stamp log at the end of a round. */
static int b_main(void *arg)
{
	(void)arg;
	stk_neigh_probe(g.lb, stk_iface_get(g.s[1].iface), &stk_iface_get(g.s[0].iface)->ip4);
	while (!__atomic_load_n(&g.b_quit, __ATOMIC_ACQUIRE)) {
		stk_lcore_poll(g.lb);
		if (__atomic_load_n(&g.snap_req, __ATOMIC_ACQUIRE)) {
			g.snap = g.stamps_b;
			g.stamps_b.n = 0;
			__atomic_store_n(&g.snap_req, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&g.snap_ready, 1, __ATOMIC_RELEASE);
		}
	}
	stk_lcore_flush(g.lb);
	return 0;
}

/* --lcores 2: B's log since the last round trip, merged with A's by TSC (one clock). */
static const struct stk_stamps *both_logs(void)
{
	const struct stk_stamps *a = &g.stamps, *b = &g.snap;
	uint64_t lim = rte_rdtsc() + g.hz / 10;
	uint32_t i = 0, j = 0;

	__atomic_store_n(&g.snap_ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g.snap_req, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g.snap_ready, __ATOMIC_ACQUIRE))
		if (rte_rdtsc() > lim)
			return a; /* B is descheduled: A's log alone will not match; counted */
	g.merged.n = 0;
	while ((i < a->n || j < b->n) && g.merged.n < STK_STAMPS_MAX) {
		bool take_a = j >= b->n || (i < a->n && a->ev[i].tsc <= b->ev[j].tsc);

		g.merged.ev[g.merged.n++] = take_a ? a->ev[i++] : b->ev[j++];
	}
	return &g.merged;
}

static int run_rc(void)
{
	struct side *a = &g.s[0], *b = &g.s[1];
	enum roce_wr_opcode op = g.mode == MODE_SEND	? ROCE_WR_SEND
				 : g.mode == MODE_WRITE ? ROCE_WR_RDMA_WRITE
							: ROCE_WR_RDMA_READ;
	int rc = pair_create(false);

	if (rc == 0 && g.load)
		rc = pair_create(true);
	if (rc != 0)
		return snprintf(g.why, sizeof(g.why), "QP pair: %s", strerror(-rc)), rc;
	for (uint32_t j = 0; j < g.load; j++)
		if (post_load() != 0)
			return snprintf(g.why, sizeof(g.why), "posting the bulk flow"), -EIO;
	if (g.mode == MODE_SEND)
		for (uint32_t j = 0; j < RECVS; j++)
			if (post_recv(a, j) != 0 || post_recv(b, j) != 0)
				return snprintf(g.why, sizeof(g.why), "posting receives"), -EIO;
	if (g.lb) {
		/* B's QP, CQ and memory are B's lcore's from here on */
		g.lb->stamps = g.ms ? &g.stamps_b : NULL;
		if (rte_eal_remote_launch(b_main, NULL, g.lcore_b) != 0)
			return snprintf(g.why, sizeof(g.why), "cannot launch lcore %u", g.lcore_b),
			       -EBUSY;
		for (uint64_t end = rte_rdtsc() + g.hz / 50; rte_rdtsc() < end;)
			stk_lcore_poll(g.lc);
	}
	for (uint64_t i = 0; i < (uint64_t)g.warmup + g.iters; i++) {
		uint64_t t0, t1, lim;
		bool got = false;

		g.seq = i + 1;
		/* READ: B holds the number A reads; SEND/WRITE: A's request carries it */
		set_seq((g.mode == MODE_READ ? b : a)->buf + SRC_OFF, g.seq);
		g.stamps.n = 0;
		t0 = rte_rdtsc();
		stk_stamp(g.lc, MARK_POST);
		if (post_op(a, b, op, g.mode == MODE_READ) != 0)
			return snprintf(g.why, sizeof(g.why), "post #%" PRIu64, i), -EIO;
		lim = t0 + STALL_S * g.hz;
		while (!got && rte_rdtsc() < lim) {
			stk_lcore_poll(g.lc);
			got = a_done();
		}
		if (!got)
			return snprintf(g.why, sizeof(g.why),
					"no answer to #%" PRIu64 " within %d s (%" PRIu64
					" bad completions)",
					i, STALL_S, g.bad),
			       -ETIMEDOUT;
		stk_stamp(g.lc, MARK_DONE);
		t1 = g.stamps.ev[g.stamps.n ? g.stamps.n - 1 : 0].tsc;
		/* B's log is taken every time, warm-up too, so that it never fills up */
		sample_log(i, t0, t1, g.lb ? both_logs() : &g.stamps);
	}
	return 0;
}

/* Two interfaces joined by the link, a roce device on each, one lcore polling both. */
static void setup_rc(void)
{
	struct stk_neigh_params np;

	g.pool = rte_pktmbuf_pool_create("lat_pool", POOL_SIZE, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE + 2048, (int)rte_socket_id());
	if (!g.pool)
		rte_exit(EXIT_FAILURE, "droce-lat: pool: %s\n", rte_strerror(rte_errno));
	rcb_pool_pretouch(g.pool, POOL_SIZE);
	if (!strcmp(g.link, "memif")) {
		const struct rcb_link_conf lc = {.pool = g.pool,
						 .memif_ring = 1024,
						 .memif_buf = 2048,
						 .ip_mtu = 1500,
						 .mbuf_room = RTE_MBUF_DEFAULT_BUF_SIZE + 2048 -
							      RTE_PKTMBUF_HEADROOM};

		rcb_memif_ports(&lc, &g.s[0].port, &g.s[1].port);
	} else {
		struct rte_ring *r[2];

		r[0] = rte_ring_create("lat_r0", 4096, (int)rte_socket_id(), 0);
		r[1] = rte_ring_create("lat_r1", 4096, (int)rte_socket_id(), 0);
		if (!r[0] || !r[1])
			rte_exit(EXIT_FAILURE, "droce-lat: rings: %s\n", rte_strerror(rte_errno));
		g.s[0].port = rcb_ring_port("lat_a", r[0], r[1], g.pool);
		g.s[1].port = rcb_ring_port("lat_b", r[1], r[0], g.pool);
	}
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;
		int idx;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "lat%d", k);
		ifc.port_id = g.s[k].port;
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x79, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.79.0.2" : "10.79.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 1500;
		ifc.nb_rxq = ifc.nb_txq = 1;
		idx = stk_iface_add(&ifc);
		if (idx < 0)
			rte_exit(EXIT_FAILURE, "droce-lat: stk_iface_add failed\n");
		g.s[k].iface = (uint16_t)idx;
		g.s[k].dev = roce_dev_open(g.s[k].iface);
		g.s[k].pd = g.s[k].dev ? roce_alloc_pd(g.s[k].dev) : NULL;
		g.s[k].cq = g.s[k].dev ? roce_create_cq(g.s[k].dev, 1024) : NULL;
		if (g.s[k].dev)
			roce_dev_set_post_mode(g.s[k].dev, (enum roce_post_mode)g.post);
		if (g.s[k].dev && g.dcqcn_gbps > 0) {
			struct roce_dcqcn_params cc;

			roce_dcqcn_params_default(&cc, g.dcqcn_gbps);
			if (roce_dev_set_cc(g.s[k].dev, &cc) != 0)
				rte_exit(EXIT_FAILURE, "droce-lat: DCQCN parameters refused\n");
		}
		if (k == 0 && g.ce_ppm) {
			/* A's RoCE frames marked CE as a congested switch would: B, the notification
			 * point, answers with CNPs, and A's QPs (the bulk flow's above all) slow down */
			struct stk_impair_conf ic = {.roce_only = true, .ce_ppm = g.ce_ppm};

			if (stk_impair_set(g.s[0].iface, STK_IMPAIR_TX, &ic) != 0)
				rte_exit(EXIT_FAILURE, "droce-lat: --ce: impairment refused\n");
		}
		g.s[k].buf = rte_zmalloc("lat_buf", SIDE_BUF, 4096);
		if (!g.s[k].pd || !g.s[k].cq || !g.s[k].buf)
			rte_exit(EXIT_FAILURE, "droce-lat: roce device %d: %s\n", k,
				 rte_strerror(rte_errno));
		g.s[k].mr = roce_reg_mr(g.s[k].pd, g.s[k].buf, SIDE_BUF, (uintptr_t)g.s[k].buf,
					ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
						ROCE_ACCESS_REMOTE_READ);
		if (!g.s[k].mr)
			rte_exit(EXIT_FAILURE, "droce-lat: reg_mr: %s\n", rte_strerror(rte_errno));
	}
	stk_neigh_params_default(&np);
	g.lc = stk_lcore_create(rte_get_main_lcore(), 0, true, g.pool, &np);
	if (!g.lc)
		rte_exit(EXIT_FAILURE, "droce-lat: lcore: %s\n", rte_strerror(rte_errno));
	g.lc->rxq[0] = (struct stk_rxq){.iface = g.s[0].iface, .port_id = g.s[0].port};
	g.lc->nb_rxq = 1;
	stk_lcore_add_poll(g.lc, roce_poll, g.s[0].dev);
	if (g.lcores == 2) {
		g.lcore_b = rte_get_next_lcore(rte_get_main_lcore(), 1, 0);
		if (g.lcore_b >= RTE_MAX_LCORE)
			rte_exit(EXIT_FAILURE, "droce-lat: --lcores 2 needs two EAL lcores (-l)\n");
		g.lb = stk_lcore_create(g.lcore_b, 0, false, g.pool, &np);
		if (!g.lb)
			rte_exit(EXIT_FAILURE, "droce-lat: lcore B: %s\n", rte_strerror(rte_errno));
		g.lb->nb_rxq = 0;
	}
	{
		struct stk_lcore *lb = g.lb ? g.lb : g.lc;

		lb->rxq[lb->nb_rxq++] =
			(struct stk_rxq){.iface = g.s[1].iface, .port_id = g.s[1].port};
		stk_lcore_add_poll(lb, roce_poll, g.s[1].dev);
		stk_lcore_add_poll(lb, b_poll, NULL);
	}
	/* both MACs before the first sample (B's, from its own lcore, in b_main) */
	stk_neigh_probe(g.lc, stk_iface_get(g.s[0].iface), &stk_iface_get(g.s[1].iface)->ip4);
	if (!g.lb)
		stk_neigh_probe(g.lc, stk_iface_get(g.s[1].iface),
				&stk_iface_get(g.s[0].iface)->ip4);
	for (uint64_t end = rte_rdtsc() + g.hz / 50; rte_rdtsc() < end;)
		stk_lcore_poll(g.lc);
}

/* The stack on --port (raw, udp, echo): the same configuration droce-bench-echo uses. */
static int setup_port(int eal_argc, char **eal_argv, const char *prog)
{
	struct stk_config cfg;
	struct stk_port_conf *pc;
	struct rte_eth_link link;
	int rc;

	stk_config_default(&cfg);
	cfg.nb_ports = 1;
	pc = &cfg.ports[0];
	snprintf(pc->name, sizeof(pc->name), "port0");
	snprintf(pc->vdev, sizeof(pc->vdev), "%s", g.port);
	stk_ipaddr_parse("10.99.0.1", &pc->ip4);
	pc->ip4_prefix = 24;
	pc->mtu = 1500;
	pc->rx_desc = pc->tx_desc = 1024;
	pc->promisc = true;
	rc = stk_eal_init(&cfg, prog, eal_argc, eal_argv);
	if (rc != 0)
		return rc;
	rc = stk_setup(&cfg);
	if (rc != 0)
		return rc;
	g.lc = stk_lcore_get(rte_get_main_lcore());
	g.pool = g.lc->pool;
	g.hz = rte_get_tsc_hz();
	if (g.mode == MODE_ECHO) /* a server: its link comes up when the client connects */
		return stk_udp_bind(UDP_PORT, echo_rx, NULL);
	for (uint64_t end = rte_rdtsc() + 10 * g.hz; rte_rdtsc() < end;) {
		if (rte_eth_link_get_nowait(stk_iface_get(0)->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			break;
		rte_delay_ms(1);
	}
	/* a memif link is up slightly before the peer forwards: let it settle */
	rte_delay_ms(200);
	return stk_udp_bind(UDP_PORT, udp_rx, NULL);
}

/* ------------------------------------------------------------------ report */

static double load_gbps(void)
{
	return g.load_t1 > g.load_t0 ? (double)(g.load_done - 1) * LOAD_SIZE * 8 * (double)g.hz /
					       (double)(g.load_t1 - g.load_t0) / 1e9
				     : 0;
}

static void print_report(void)
{
	double mean = stk_hist_mean(g.rtt);

	if (g.mode == MODE_ECHO)
		printf("droce-lat echo: %" PRIu64 " datagrams echoed, %s\n", g.samples, g.port);
	else
		printf("droce-lat %s: %" PRIu64 " round trips after %u warm-up, %u B, %s%s\n",
		       mode_names[g.mode], g.samples, g.warmup, g.size,
		       g.mode >= MODE_SEND ? g.link : g.port,
		       g.mode >= MODE_SEND ? (g.lb ? ", 2 lcores" : ", 1 lcore") : "");
	if (g.mode == MODE_ECHO)
		printf("  (echo: time inside droce per echo, from the RX burst that got the datagram "
		       "to the end of the answer's TX burst)\n");
	printf("  %s usec: min %.2f  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  p99.99 %.2f  "
	       "max %.2f  mean %.2f  stdev %.2f\n",
	       g.mode == MODE_ECHO ? "in droce" : "RTT", us(stk_hist_min(g.rtt)),
	       us(stk_hist_percentile(g.rtt, 50)), us(stk_hist_percentile(g.rtt, 90)),
	       us(stk_hist_percentile(g.rtt, 99)), us(stk_hist_percentile(g.rtt, 99.9)),
	       us(stk_hist_percentile(g.rtt, 99.99)), us(stk_hist_max(g.rtt)), us((uint64_t)mean),
	       us((uint64_t)stk_hist_stdev(g.rtt)));
	if (g.load)
		printf("  under load: %u x 64 KiB RDMA WRITEs in flight on a second QP pair, %" PRIu64
		       " done, %.2f Gbit/s\n",
		       g.load, g.load_done, load_gbps());
	if (g.dcqcn_gbps > 0) {
		struct roce_qp_cc_info ci = {0};

		if (g.s[0].lqp)
			roce_qp_cc_info(g.s[0].lqp, &ci);
		printf("  DCQCN on (line %.1f Gbit/s), CE marks %u ppm: the bulk flow got %" PRIu64
		       " CNPs, its rate now %.2f Gbit/s\n",
		       g.dcqcn_gbps, g.ce_ppm, ci.cnp_rx, ci.rate_gbps);
	}
	if (g.mode == MODE_ECHO) {
		if (g.nlstat)
			printf("  rte_latencystats (RX callback to TX callback, ns):");
		else
			printf("  rte_latencystats: %s", g.lstat_why);
		for (unsigned k = 0; k < g.nlstat; k++)
			printf(" %s %" PRIu64, g.lnames[g.lvals[k].key].name, g.lvals[k].value);
		printf("\n");
	}
	if (!g.ms)
		return;
	printf("  where the time goes (%" PRIu64 " of %" PRIu64
	       " round trips matched the stamps):\n",
	       g.samples - g.unmatched, g.samples);
	printf("    %-32s %-14s %9s %9s %9s %7s\n", "stage", "category", "p50 us", "p99 us",
	       "mean us", "share");
	for (unsigned k = 0; k + 1 < g.nms; k++) {
		const struct stk_hist *h = g.stage[k];

		printf("    %-32s %-14s %9.3f %9.3f %9.3f %6.1f%%\n", g.ms[k + 1].stage,
		       g.ms[k + 1].category, us(stk_hist_percentile(h, 50)),
		       us(stk_hist_percentile(h, 99)), us((uint64_t)stk_hist_mean(h)),
		       mean > 0 ? 100 * stk_hist_mean(h) / mean : 0);
	}
}

static void json_hist(FILE *f, const struct stk_hist *h)
{
	fprintf(f, "{\"count\": %" PRIu64 ", \"min\": %.4f, \"mean\": %.4f, \"stdev\": %.4f",
		stk_hist_count(h), us(stk_hist_min(h)), us((uint64_t)stk_hist_mean(h)),
		us((uint64_t)stk_hist_stdev(h)));
	for (int k = 0; k < PCTS; k++)
		fprintf(f, ", \"%s\": %.4f", pct_names[k], us(stk_hist_percentile(h, pcts[k])));
	fprintf(f, ", \"max\": %.4f}", us(stk_hist_max(h)));
}

static int write_json(const char *path, int status)
{
	FILE *f = fopen(path, "w");
	uint64_t cum = 0, n = stk_hist_count(g.rtt), lo, hi;
	bool first = true;

	if (!f)
		return -errno;
	fprintf(f, "{\"tool\": \"droce-lat\", \"mode\": \"%s\", \"device\": \"%s\", ",
		mode_names[g.mode], g.mode >= MODE_SEND ? g.link : g.port);
	fprintf(f, "\"lcores\": %u, \"post\": \"%s\", ", g.lb ? 2u : 1u,
		g.post == ROCE_POST_QUEUE      ? "queue"
		: g.post == ROCE_POST_DOORBELL ? "doorbell"
					       : "immediate");
	fprintf(f,
		"\"load\": {\"depth\": %u, \"size\": %u, \"done\": %" PRIu64 ", \"gbps\": %.3f}, ",
		g.load, LOAD_SIZE, g.load_done, load_gbps());
	{
		struct roce_qp_cc_info ci = {0};

		if (g.s[0].lqp)
			roce_qp_cc_info(g.s[0].lqp, &ci);
		fprintf(f,
			"\"dcqcn\": {\"line_gbps\": %.3f, \"ce_ppm\": %u, \"load_cnp_rx\": %" PRIu64
			", \"load_rate_gbps\": %.3f}, ",
			g.dcqcn_gbps, g.ce_ppm, ci.cnp_rx, ci.rate_gbps);
	}
	fprintf(f, "\"size\": %u, \"iters\": %u, \"warmup\": %u, \"dpdk\": \"%s\", ", g.size,
		g.iters, g.warmup, rte_version());
	fprintf(f,
		"\"tsc_hz\": %" PRIu64 ", \"ok\": %s, \"bad_answers\": %" PRIu64
		", \"lost\": %" PRIu64 ", ",
		g.hz, status == 0 ? "true" : "false", g.bad, g.lost);
	if (status != 0)
		fprintf(f, "\"error\": \"%s\", ", g.why);
	if (g.mode == MODE_ECHO) {
		fprintf(f, "\"latencystats_ns\": {");
		for (unsigned k = 0; k < g.nlstat; k++)
			fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "",
				g.lnames[g.lvals[k].key].name, g.lvals[k].value);
		fprintf(f, "}, ");
	}
	fprintf(f, "\"units\": \"usec\", \"rtt\": ");
	json_hist(f, g.rtt);
	fprintf(f, ", \"stages_matched\": %" PRIu64 ", \"stages\": [", g.samples - g.unmatched);
	for (unsigned k = 0; g.ms && k + 1 < g.nms; k++) {
		fprintf(f, "%s{\"stage\": \"%s\", \"category\": \"%s\", \"hist\": ", k ? ", " : "",
			g.ms[k + 1].stage, g.ms[k + 1].category);
		json_hist(f, g.stage[k]);
		fprintf(f, "}");
	}
	/* the CDF: upper bound of each non-empty bucket, and the share at or below it */
	fprintf(f, "], \"cdf\": [");
	for (unsigned i = 0; i < stk_hist_nbuckets(g.rtt) && cum < n; i++) {
		uint64_t c = stk_hist_bucket(g.rtt, i, &lo, &hi);

		if (!c)
			continue;
		cum += c;
		fprintf(f, "%s[%.4f, %.6f]", first ? "" : ", ", us(hi), (double)cum / (double)n);
		first = false;
	}
	fprintf(f, "]}\n");
	return fclose(f) == 0 ? 0 : -errno;
}

/* ------------------------------------------------------------------ main */

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [EAL args] -- --mode raw|udp|echo|send|write|read [options]\n"
		"  --mode M        raw: bare bursts on --port (the baseline's half); udp: the\n"
		"                  stack's UDP send and receive on --port; echo: the stack's UDP\n"
		"                  echo on --port until SIGINT/SIGTERM (time inside droce per echo,\n"
		"                  rte_latencystats); send|write|read: RC ping-pong between two\n"
		"                  droce interfaces over --link\n"
		"  --port VDEV     raw/udp: the port's --vdev (net_memif0,role=client,socket=...)\n"
		"  --link L        RC: memif (default) or ring\n"
		"  --lcores N      RC: 1 (default; both sides on one lcore) or 2 (side B on the\n"
		"                  second EAL lcore)\n"
		"  --size N        payload bytes (default 64; RC needs at least 8)\n"
		"  --iters N       round trips measured (default 100000)\n"
		"  --warmup N      round trips before (default 2000)\n"
		"  --json FILE     write the results (percentiles, stages, CDF) as JSON\n"
		"  --timeout S     abort after S seconds (default 120)\n"
		"  --dump N        print round trip N's stamp log on stderr\n"
		"  --load N        RC: a background bulk flow on a second QP pair, N RDMA WRITEs\n"
		"                  of 64 KiB from A to B kept in flight (0..64, default 0)\n"
		"  --dcqcn GBPS    RC: DCQCN on both sides, line rate GBPS (docs/cc.md)\n"
		"  --ce PPM        RC: side A's RoCE frames CE-marked, PPM per million (the\n"
		"                  stack's impairment), so B sends CNPs and A slows down\n"
		"  --post P        RC: immediate (default: a post sends), doorbell (at the end of\n"
		"                  the loop iteration) or queue (at the next poll)\n"
		"One EAL lcore. Exit: 0 done, 1 failed, 2 bad usage.\n",
		prog);
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},	  {"port", required_argument, NULL, 'p'},
		{"link", required_argument, NULL, 'l'},	  {"size", required_argument, NULL, 's'},
		{"iters", required_argument, NULL, 'n'},  {"warmup", required_argument, NULL, 'w'},
		{"json", required_argument, NULL, 'j'},	  {"timeout", required_argument, NULL, 't'},
		{"lcores", required_argument, NULL, 'L'}, {"dump", required_argument, NULL, 'D'},
		{"load", required_argument, NULL, 'W'},	  {"post", required_argument, NULL, 'P'},
		{"dcqcn", required_argument, NULL, 'Q'},  {"ce", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	int c, mode = -1;
	char *end;
	unsigned long v;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (int k = 0; k < MODE_NUM; k++)
				if (!strcmp(optarg, mode_names[k]))
					mode = k;
			break;
		case 'p':
			g.port = optarg;
			break;
		case 'D':
			g.dump = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			g.load = (uint32_t)strtoul(optarg, NULL, 0);
			if (g.load > 64)
				return -EINVAL;
			break;
		case 'Q':
			g.dcqcn_gbps = strtod(optarg, &end);
			if (*end || !(g.dcqcn_gbps >= 0.001 && g.dcqcn_gbps <= 1000))
				return -EINVAL;
			break;
		case 'C':
			v = strtoul(optarg, &end, 0);
			if (*end || v > 1000000)
				return -EINVAL;
			g.ce_ppm = (uint32_t)v;
			break;
		case 'P':
			if (!strcmp(optarg, "queue"))
				g.post = ROCE_POST_QUEUE;
			else if (!strcmp(optarg, "doorbell"))
				g.post = ROCE_POST_DOORBELL;
			else if (!strcmp(optarg, "immediate"))
				g.post = ROCE_POST_IMMEDIATE;
			else
				return -EINVAL;
			break;
		case 'L':
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return -EINVAL;
			g.lcores = (unsigned)atoi(optarg);
			break;
		case 'l':
			if (strcmp(optarg, "memif") && strcmp(optarg, "ring"))
				return -EINVAL;
			g.link = optarg;
			break;
		case 'j':
			g.json = optarg;
			break;
		case 's':
		case 'n':
		case 'w':
		case 't':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg || v > 100000000)
				return -EINVAL;
			if (c == 's')
				g.size = (uint32_t)v;
			else if (c == 'n')
				g.iters = (uint32_t)v;
			else if (c == 'w')
				g.warmup = (uint32_t)v;
			else
				g.timeout_s = (uint32_t)v;
			break;
		default:
			return -EINVAL;
		}
	}
	if (mode < 0 || g.iters == 0 || g.size < 8 || g.size > 1024)
		return -EINVAL;
	if ((g.dcqcn_gbps > 0 || g.ce_ppm) && mode < MODE_SEND) {
		fprintf(stderr, "droce-lat: --dcqcn and --ce go with the RC modes\n");
		return -EINVAL;
	}
	g.mode = (enum lat_mode)mode;
	if (g.mode <= MODE_ECHO && !g.port) {
		fprintf(stderr, "droce-lat: --mode %s needs --port VDEV\n", mode_names[g.mode]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, rc;
	char **eal_argv, **app_argv;

	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv) != 0) {
		usage(argv[0]);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm(g.timeout_s);
	if (g.mode <= MODE_ECHO) {
		rc = setup_port(eal_argc, eal_argv, argv[0]);
		if (rc != 0) {
			fprintf(stderr, "droce-lat: stack set-up on %s failed: %s\n", g.port,
				strerror(-rc));
			return 1;
		}
	} else {
		rc = rte_eal_init(eal_argc, eal_argv);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "droce-lat: EAL init failed\n");
		g.hz = rte_get_tsc_hz();
		setup_rc();
	}
	g.rtt = stk_hist_create(0);
	g.ms = g.mode == MODE_ECHO   ? ms_echo
	       : g.mode == MODE_UDP  ? ms_udp
	       : g.mode == MODE_READ ? ms_read
	       : g.mode == MODE_RAW  ? NULL
				     : ms_pingpong;
	/* SEND/WRITE: from B's answer on, READ: from B's response on, found from the end */
	g.split = g.mode == MODE_READ ? 5 : g.mode >= MODE_SEND ? 7 : 0;
	g.nms = g.mode == MODE_ECHO   ? RTE_DIM(ms_echo)
		: g.mode == MODE_UDP  ? RTE_DIM(ms_udp)
		: g.mode == MODE_READ ? RTE_DIM(ms_read)
		: g.mode == MODE_RAW  ? 0
				      : RTE_DIM(ms_pingpong);
	for (unsigned k = 0; k + 1 < g.nms; k++)
		if (!(g.stage[k] = stk_hist_create(0)))
			rte_exit(EXIT_FAILURE, "droce-lat: no memory\n");
	if (!g.rtt)
		rte_exit(EXIT_FAILURE, "droce-lat: no memory\n");
	if (g.ms)
		g.lc->stamps = &g.stamps;
	rc = g.mode == MODE_RAW	   ? run_raw()
	     : g.mode == MODE_UDP  ? run_udp()
	     : g.mode == MODE_ECHO ? run_echo()
				   : run_rc();
	g.lc->stamps = NULL;
	if (g.lb) {
		__atomic_store_n(&g.b_quit, 1, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(g.lcore_b);
	}
	if (rc != 0)
		fprintf(stderr, "droce-lat: %s failed: %s\n", mode_names[g.mode], g.why);
	print_report();
	if (g.bad || g.lost)
		printf("  %" PRIu64 " answers were not the one in flight, %" PRIu64
		       " requests lost (no answer within %d ms)\n",
		       g.bad, g.lost, LOSS_MS);
	if (g.json && write_json(g.json, rc) != 0)
		fprintf(stderr, "droce-lat: cannot write %s\n", g.json);
	fflush(stdout);
	/* memif with both ends in this process: no teardown (see rc-bench.c's main) */
	_exit(rc == 0 ? 0 : 1);
}
