/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-gen - a UDP datagram endpoint on the droce stack: it echoes datagrams that arrive on
 * a port, and/or sends a counted stream of patterned datagrams to a peer, verifies the echoes
 * byte for byte and reports round-trip times. While it runs, the stack also answers ARP/ND
 * and carries the kernel's traffic through the exception TAP, so `ping` works against it.
 *
 * Usage: droce-gen [EAL args] -- -c FILE [options]      (droce-gen -- --help)
 *
 * The sender is a state machine driven from the main lcore's poll hook:
 *   RESOLVE -> SEND -> DRAIN -> LINGER -> DONE
 * Echo verification may run on any lcore; its counters are per lcore.
 *
 * Rate mode (--rate SECONDS): the sender sends as fast as it can instead, a burst of 32 frames
 * per loop round, for half a second of warm-up and then SECONDS measured, and reports the
 * frames per second the port transmitted (its own opackets counter, as testpmd's Tx-pps is):
 * UDP datagrams with a zero checksum, or with --roce RoCEv2 RC SEND ONLY packets to QP
 * --roce-qpn (BTH, payload, ICRC: roce_tx_build()), both of --frame-size bytes. Each payload
 * starts with the magic, the sequence number and the TSC; the rest is not written.
 * With --template the frames are instead copied from one built that way at the start, as
 * packet generators do: only the sequence number (and the PSN) change, and the ICRC is updated
 * from per-byte tables (CRC-32 is linear: a changed byte at a given distance from the end
 * changes the CRC by a fixed value), then each frame goes to stk_tx_frame(). The TSC is not
 * written there. The templated frames come from a pool of their own whose mbufs were all
 * stamped with the template at the start; a frame's bytes are copied again only when its
 * first 16 bytes or its magic are not the template's (the PMD or a receiver wrote them), so
 * most frames cost the few bytes that change, as testpmd's txonly frames cost their headers.
 * Every 4093rd templated RoCE frame's ICRC is checked in full.
 * bench/gen-rate.py sets it against dpdk-testpmd --forward-mode=txonly on the same vdev.
 *
 * Replay mode (--replay FILE): the RoCEv2 frames of a pcap or pcapng capture, rewritten for
 * --peer (our MAC and IPv4 address to the peer's, destination QPs and rkeys through --qpn-map
 * and --rkey-map, each destination QP's PSNs moved to start at --psn-base, the ICRC computed
 * again: gen_replay.h) and sent at their recorded pace, or --replay-pps frames a second,
 * --replay-loops times. Frames that are not RoCEv2 over IPv4 are skipped and counted by reason.
 *
 * Loopback mode (--loopback, issue 18 item 3): TX on --iface, RX on --rx-iface of the same
 * process, the two ports joined by a cable (a veth pair, memif, a real link). -n frames of
 * RoCEv2 RC SEND ONLY to the RX port's address (UDP 4791, bound here: no RoCE device runs),
 * --pps a second; each payload carries the magic, the sequence number and the TSC. The RX side
 * checks each frame's ICRC and counts what arrived once, twice (duplicated), after a later one
 * (reordered), with a bad ICRC or header (bad; it is also lost: lost = sent - arrived intact),
 * and the one-way latency from the shared TSC (a
 * histogram). The stack's impairment ([portN] impair_tx = ...,roce_only) can be turned on to see
 * the tool count what was injected; the run prints the TX port's impair_* counters beside.
 *
 * Catalogue mode (--catalogue write|atomic, issue 18 item 2; gen_cat.c): malformed and
 * adversarial RoCEv2 frames, one entry per QP of a perftest server at --peer (ib_write_bw or
 * ib_atomic_bw -q N, connected with made-up keys over perftest's TCP exchange); each entry's
 * reaction (NAK by syndrome, ACK, nothing) and a follow-up probe are checked against the spec.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "gen_cat.h"
#include "gen_flow.h"
#include "gen_replay.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_tx.h"
#include "stk_arp.h"
#include "stk_config.h"
#include "stk_hist.h"
#include "stk_stack.h"
#include "stk_stats.h"

#define GEN_MAGIC 0x4452474eu /* "DRGN" */
#define GEN_HDR 16
#define GEN_BURST 32
#define GEN_RATE_WARMUP_MS 500
#define ROCE_OVERHEAD 58 /* Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4 */
#define UDP_OVERHEAD 42

enum gen_state {
	GEN_RESOLVE, /**< waiting for the peer's MAC (ARP / ND) */
	GEN_SEND,    /**< sending count datagrams, interval apart */
	GEN_DRAIN,   /**< all sent: waiting for the last echoes */
	GEN_LINGER,  /**< done sending: keep serving echo and exception path */
	GEN_DONE,    /**< stop the stack */
	GEN_NUM_STATES
};

static const char *const gen_state_names[GEN_NUM_STATES] = {
	"resolve", "send", "drain", "linger", "done",
};

struct gen_lstats {
	uint64_t echoed;		    /**< datagrams we echoed as a server */
	uint64_t verified;		    /**< echoes of ours that came back intact */
	uint64_t corrupt;		    /**< echoes whose header or pattern was wrong */
	uint64_t dup;			    /**< echoes of a sequence number already seen */
	uint64_t rtt_sum, rtt_min, rtt_max; /**< TSC cycles */
} __rte_cache_aligned;

static struct {
	/* options */
	const char *config;
	uint16_t echo_port;
	bool has_peer;
	struct stk_ipaddr peer;
	uint16_t peer_port;
	uint16_t sport;
	uint32_t count, size, interval_us, wait_ms, resolve_ms;
	int linger_s;
	uint8_t dscp, ecn;
	uint16_t iface;
	bool json, quiet, hold;
	uint32_t rate_s;     /**< --rate: seconds measured, 0 = the echo-verifying sender */
	uint32_t frame_size; /**< --frame-size (rate mode) */
	bool roce;	     /**< --roce: RoCEv2 SEND ONLY frames (rate mode) */
	uint32_t roce_qpn;
	/* rate mode */
	uint64_t t_measure, t_end, opackets0, opackets1, t_measure_end;
	uint64_t built, build_fail;
	bool template; /**< --template: frames copied from one template */
	/* replay mode (--replay) */
	const char *replay;
	uint8_t *cap_buf;
	long cap_len;
	struct gen_pcap cap;
	struct gen_rewrite rw;
	uint32_t replay_pps, replay_loops, loop;
	bool replay_started, have_frame, cap_bad;
	struct gen_pcap_frame fr;
	uint64_t t0, ts0, nframe, frames_read, t_replay_start, loop_sent;
	uint64_t replayed, skipped[GEN_SKIP_NUM], rw_qpn, rw_rkey, rw_psn, t_replay_end;
	/* loopback mode (--loopback); the RX side runs on the lcore that polls --rx-iface */
	bool loopback;
	uint16_t rx_iface;
	uint32_t pps;
	bool rx_iface_set, lb_settle;
	uint32_t lb_max_seq; /**< the highest sequence number received, +1 (0: none yet) */
	uint64_t lb_rx, lb_unique, lb_dup, lb_reordered, lb_bad, lb_foreign;
	struct stk_hist *lb_lat; /**< one-way latency, TSC cycles */
	/* catalogue mode (--catalogue, gen_cat.c) */
	bool catalogue, cat_list, cat_qps;
	struct gen_cat_opts cat;
	/* flow mode (--flow, gen_flow.c) */
	bool flow;
	struct gen_flow_opts fo;
	double gbps;
	bool flow_opt; /**< --qps, --depth, --seconds or --sizes given */
	bool pcp_set, dscp_set;
	uint8_t pcp;
	uint64_t icrc_bad;  /**< templated RoCE frames whose ICRC did not check */
	uint64_t icrc_seen; /**< of those checked */
	/* sender state (main lcore only) */
	enum gen_state state;
	uint32_t next_seq;
	uint64_t next_tx, deadline, t_start, t_resolved, probe_at;
	uint64_t sent, send_fail;
	uint8_t *seen;
	struct rte_ether_addr peer_mac;
	bool resolved;
	struct gen_lstats ls[RTE_MAX_LCORE];
} g = {
	.sport = 40000,
	.count = 10,
	.size = 64,
	.interval_us = 1000,
	.wait_ms = 2000,
	.resolve_ms = 10000,
	.linger_s = -2, /* unset */
	.frame_size = 64,
	.roce_qpn = 0x11,
	.cat = {.verb = GEN_CAT_NUM_VERBS, .wait_ms = 200},
	.fo = {.verb = GEN_FLOW_NUM_VERBS,
	       .qps = 1,
	       .depth = 16,
	       .seconds = 5,
	       .nsizes = 1,
	       .size = {65536},
	       .weight = {1}},
};

static volatile sig_atomic_t g_signals; /* SIGINT/SIGTERM seen */

static void on_signal(int sig)
{
	(void)sig;
	g_signals++;
	stk_stop();
}

/* --hold: the lcores have stopped; keep the ports open, touching none of them, until the next
 * SIGINT/SIGTERM (any thread may take it, so this sleeps and looks rather than sigsuspend()). A
 * memif peer can then disconnect safely: DPDK 22.11's net_memif unmaps the shared regions from
 * its interrupt thread when the peer goes, under an RX burst that may be running (docs/stack.md). */
static void hold_until_signal(sig_atomic_t seen)
{
	if (!g.quiet) {
		printf("droce-gen: holding the ports open, not polling, until SIGINT/SIGTERM\n");
		fflush(stdout);
	}
	while (g_signals == seen)
		usleep(10000);
}

static uint8_t pattern(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31u + i * 7u + 1u);
}

/* Echo server: send the payload back to where it came from, reusing the mbuf. */
static int echo_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	struct stk_flow f = {.dst = p->src,
			     .sport = p->dport,
			     .dport = p->sport,
			     .dscp = (uint8_t)(p->tos >> 2),
			     .pcp = STK_PCP_DEFAULT};
	(void)arg;

	/* keep only the UDP payload: drop headers in front and Ethernet padding behind */
	rte_pktmbuf_adj(m, p->payload_off);
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - p->payload_len));
	if (stk_udp_send(lc, ifc, m, &f) != 0)
		return -1; /* the stack frees and counts it */
	g.ls[lc->lcore_id].echoed++;
	return 0;
}

/* Our echoes coming back: verify every byte. */
static int reply_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		    const struct stk_pkt *p, void *arg)
{
	struct gen_lstats *ls = &g.ls[lc->lcore_id];
	uint8_t buf[GEN_HDR];
	const uint8_t *d;
	uint32_t magic, seq, len;
	uint64_t tx_tsc, rtt;
	(void)ifc;
	(void)arg;

	if (p->payload_len < GEN_HDR)
		goto corrupt;
	d = rte_pktmbuf_read(m, p->payload_off, GEN_HDR, buf);
	memcpy(&magic, d, 4);
	memcpy(&seq, d + 4, 4);
	memcpy(&tx_tsc, d + 8, 8);
	len = p->payload_len;
	if (magic != GEN_MAGIC || seq >= g.count || len != g.size)
		goto corrupt;
	for (uint32_t i = GEN_HDR; i < len; i++) {
		uint8_t b;
		const uint8_t *x = rte_pktmbuf_read(m, p->payload_off + i, 1, &b);

		if (*x != pattern(seq, i))
			goto corrupt;
	}
	/* seen[] is written here and read only after the run: each seq is one byte */
	if (__atomic_exchange_n(&g.seen[seq], 1, __ATOMIC_RELAXED)) {
		ls->dup++;
	} else {
		rtt = rte_get_tsc_cycles() - tx_tsc;
		ls->verified++;
		ls->rtt_sum += rtt;
		if (!ls->rtt_min || rtt < ls->rtt_min)
			ls->rtt_min = rtt;
		if (rtt > ls->rtt_max)
			ls->rtt_max = rtt;
	}
	rte_pktmbuf_free(m);
	return 0;
corrupt:
	ls->corrupt++;
	rte_pktmbuf_free(m);
	return 0;
}

/* Loopback's receiver: a RoCEv2 frame of ours on --rx-iface (UDP 4791; BTH, magic, sequence,
 * TSC, ICRC). Runs on the one lcore that polls that port's queue. */
static int loop_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	uint8_t buf[sizeof(struct roce_bth) + GEN_HDR];
	uint32_t magic, seq, bth_off = p->payload_off;
	const uint8_t *d;
	uint64_t tsc, now = rte_get_tsc_cycles();
	(void)lc, (void)arg;

	if (ifc->idx != g.rx_iface) {
		g.lb_foreign++;
		goto out;
	}
	g.lb_rx++;
	d = p->payload_len >= sizeof(buf) + 4 ? rte_pktmbuf_read(m, bth_off, sizeof(buf), buf)
					      : NULL;
	if (!d || d[0] != 0x04 ||
	    !roce_icrc_check(m, p->l3_off, (uint16_t)bth_off, bth_off + p->payload_len - 4u)) {
		g.lb_bad++;
		goto out;
	}
	memcpy(&magic, d + sizeof(struct roce_bth), 4);
	memcpy(&seq, d + sizeof(struct roce_bth) + 4, 4);
	memcpy(&tsc, d + sizeof(struct roce_bth) + 8, 8);
	if (magic != GEN_MAGIC || seq >= g.count) {
		g.lb_bad++;
		goto out;
	}
	if (g.seen[seq]) {
		g.lb_dup++; /* a copy of one seen already: a duplicate, not also a reordering */
		goto out;
	}
	g.seen[seq] = 1;
	g.lb_unique++;
	if (seq + 1 < g.lb_max_seq)
		g.lb_reordered++; /* a later frame came first */
	else
		g.lb_max_seq = seq + 1;
	stk_hist_record(g.lb_lat, now >= tsc ? now - tsc : 0);
out:
	rte_pktmbuf_free(m);
	return 0;
}

static uint64_t verified_total(void)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < RTE_MAX_LCORE; i++)
		v += __atomic_load_n(&g.ls[i].verified, __ATOMIC_RELAXED);
	return v;
}

static uint64_t ms_to_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

static int send_one(struct stk_lcore *lc, const struct stk_iface *ifc, uint32_t seq)
{
	struct stk_flow f = {.dst = g.peer,
			     .sport = g.sport,
			     .dport = g.peer_port,
			     .dscp = g.dscp,
			     .ecn = g.ecn,
			     .pcp = STK_PCP_DEFAULT};
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);
	uint8_t *d;
	uint64_t now;
	int rc;

	if (!m)
		return -ENOMEM;
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)g.size);
	if (!d) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	now = rte_get_tsc_cycles();
	memcpy(d, &(uint32_t){GEN_MAGIC}, 4);
	memcpy(d + 4, &seq, 4);
	memcpy(d + 8, &now, 8);
	for (uint32_t i = GEN_HDR; i < g.size; i++)
		d[i] = pattern(seq, i);
	rc = stk_udp_send(lc, ifc, m, &f);
	if (rc != 0)
		rte_pktmbuf_free(m);
	return rc;
}

static enum gen_state step_resolve(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	const struct stk_neigh *n;

	if (stk_iface_is_local(ifc, &g.peer) || !stk_iface_on_link(ifc, &g.peer))
		return GEN_SEND; /* ourselves, or via a gateway: stk_udp_send resolves that */
	n = stk_neigh_lookup(lc->neigh, ifc->idx, &g.peer);
	if (n && n->state != STK_NEIGH_INCOMPLETE) {
		char a[64];

		g.resolved = true;
		g.peer_mac = n->mac;
		g.t_resolved = now;
		if (!g.quiet)
			printf("droce-gen: resolved %s -> " RTE_ETHER_ADDR_PRT_FMT " in %.1f ms\n",
			       stk_ipaddr_str(&g.peer, a, sizeof(a)), RTE_ETHER_ADDR_BYTES(&n->mac),
			       (double)(now - g.t_start) * 1e3 / rte_get_tsc_hz());
		return GEN_SEND;
	}
	if (now >= g.deadline) {
		fprintf(stderr, "droce-gen: no answer to ARP/ND for the peer within %u ms\n",
			g.resolve_ms);
		return g.linger_s != 0 ? GEN_LINGER : GEN_DONE;
	}
	if (now >= g.probe_at) {
		/* an unanswered entry is dropped after max_probes; keep asking until deadline */
		stk_neigh_probe(lc, ifc, &g.peer);
		g.probe_at = now + ms_to_tsc(200);
	}
	return GEN_RESOLVE;
}

static enum gen_state step_send(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	if (g.next_seq >= g.count) {
		g.deadline = now + ms_to_tsc(g.wait_ms);
		return GEN_DRAIN;
	}
	if (now < g.next_tx)
		return GEN_SEND;
	if (send_one(lc, ifc, g.next_seq) == 0)
		g.sent++;
	else
		g.send_fail++;
	g.next_seq++;
	g.next_tx = now + g.interval_us * rte_get_tsc_hz() / 1000000;
	return GEN_SEND;
}

/* Rate mode: one frame of --frame-size for @p seq, or NULL. */
static struct rte_mbuf *rate_frame(struct stk_lcore *lc, const struct stk_iface *ifc,
				   const struct roce_path *path, uint32_t seq, uint64_t now)
{
	static uint8_t payload[9216];
	struct rte_mbuf *m;
	uint8_t *d;

	if (g.roce) {
		struct roce_tx t = {.path = path,
				    .lqpn = g.roce_qpn + 1,
				    .dqpn = g.roce_qpn,
				    .opcode = 0x04, /* RC SEND ONLY */
				    .psn = seq & 0xffffff};
		uint32_t len = (g.frame_size - ROCE_OVERHEAD) & ~3u;

		memcpy(payload, &(uint32_t){GEN_MAGIC}, 4);
		memcpy(payload + 4, &seq, 4);
		memcpy(payload + 8, &now, 8);
		return roce_tx_build(lc->pool, ifc, &t, payload, len, NULL);
	}
	m = rte_pktmbuf_alloc(lc->pool);
	if (!m)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(g.frame_size - UDP_OVERHEAD));
	if (!d) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(d, &(uint32_t){GEN_MAGIC}, 4);
	memcpy(d + 4, &seq, 4);
	memcpy(d + 8, &now, 8);
	return m;
}

static uint64_t port_opackets(const struct stk_iface *ifc)
{
	struct rte_eth_stats st;

	return rte_eth_stats_get(ifc->port_id, &st) == 0 ? st.opackets : 0;
}

/* --template: one frame's bytes, where the changing bytes are, and the ICRC's tables */
#define TPL_POS 7 /* at most: the PSN's three bytes, then the sequence number's four */
static struct {
	bool ready;
	uint8_t frame[9216];
	uint32_t len;
	uint16_t l3_off, bth_off;
	uint16_t pos[TPL_POS];	  /**< offsets in the frame of the bytes that change */
	unsigned npos;		  /**< 3 + the sequence number's bytes that fit the payload */
	uint32_t icrc;		  /**< the template's ICRC (PSN 0, sequence number 0) */
	uint16_t pay;		  /**< offset of the payload (the magic) */
	struct rte_mempool *pool; /**< the generated frames' own mbufs, stamped once */
	uint64_t restamped;	  /**< frames whose bytes had to be copied again */
	uint32_t tab[TPL_POS][256];
} tpl;

/*
 * The ICRC change a byte of value v at frame offset pos makes, for every v: the CRC's linear
 * part of v followed by the zeros up to the ICRC (leading bytes, the masked pseudo-header
 * included, cancel out). Linear in v too, so 8 CRCs per position.
 */
static void tpl_tables(void)
{
	static uint8_t z[9216];
	uint32_t icrc_off = tpl.len - 4;

	for (unsigned k = 0; k < tpl.npos; k++) {
		uint32_t n = icrc_off - tpl.pos[k], bit[8];
		uint32_t zero = roce_crc32(0, z, n);

		for (unsigned b = 0; b < 8; b++) {
			z[0] = (uint8_t)(1u << b);
			bit[b] = roce_crc32(0, z, n) ^ zero;
			z[0] = 0;
		}
		for (unsigned v = 0; v < 256; v++) {
			uint32_t t = 0;

			for (unsigned b = 0; b < 8; b++)
				if (v & (1u << b))
					t ^= bit[b];
			tpl.tab[k][v] = t;
		}
	}
}

static struct rte_mbuf *rate_frame(struct stk_lcore *lc, const struct stk_iface *ifc,
				   const struct roce_path *path, uint32_t seq, uint64_t now);

/* --template: the frames' own pool, every mbuf stamped with the template once. @return 0/-1. */
static int tpl_pool(struct stk_lcore *lc)
{
	unsigned n = 0, size = 8191;
	struct rte_mbuf **all = calloc(size, sizeof(*all));
	uint16_t room = (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
					  tpl.len + RTE_PKTMBUF_HEADROOM);

	tpl.pool = all ? rte_pktmbuf_pool_create("gen_tpl", size, 256, 0, room,
						 (int)rte_lcore_to_socket_id(lc->lcore_id))
		       : NULL;
	if (!tpl.pool) {
		fprintf(stderr, "droce-gen: --template: no pool for the frames\n");
		free(all);
		return -1;
	}
	while (n < size && (all[n] = rte_pktmbuf_alloc(tpl.pool)) != NULL) {
		rte_memcpy(rte_pktmbuf_mtod(all[n], void *), tpl.frame, tpl.len);
		n++;
	}
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(all[i]);
	free(all);
	tpl.ready = true;
	return 0;
}

/* --template: build the template once (the destination MAC as the stack would resolve it).
 * @return 0, or -1 with a message. */
static int tpl_build(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_flow *f,
		     const struct roce_path *path)
{
	struct rte_mbuf *m = rate_frame(lc, ifc, path, 0, 0);
	const struct rte_ether_addr *dmac = NULL;
	const void *src;
	uint16_t pay;

	if (stk_iface_is_local(ifc, &g.peer))
		dmac = &ifc->mac;
	else if (g.resolved)
		dmac = &g.peer_mac;
	if (!m || !dmac || (!g.roce && stk_udp_encap(ifc, m, f) != 0) ||
	    rte_pktmbuf_pkt_len(m) > sizeof(tpl.frame)) {
		fprintf(stderr, "droce-gen: --template: cannot build the template (the peer must "
				"be on-link or ourselves)\n");
		rte_pktmbuf_free(m);
		return -1;
	}
	tpl.len = rte_pktmbuf_pkt_len(m);
	src = rte_pktmbuf_read(m, 0, tpl.len, tpl.frame); /* copies only a chained frame */
	if (src != tpl.frame)
		memcpy(tpl.frame, src, tpl.len);
	rte_pktmbuf_free(m);
	rte_ether_addr_copy(dmac, &((struct rte_ether_hdr *)tpl.frame)->dst_addr);
	tpl.l3_off = stk_l2_len(ifc);
	tpl.bth_off = (uint16_t)(tpl.l3_off + (g.peer.family == 4 ? 20 : 40) + 8);
	pay = g.roce ? (uint16_t)(tpl.bth_off + sizeof(struct roce_bth)) : tpl.bth_off;
	for (unsigned k = 0; k < 3; k++)
		tpl.pos[k] = (uint16_t)(tpl.bth_off + 9 + k);
	/* the sequence number follows the 4-byte magic, as far as the payload goes (a 62-byte
	 * RoCE frame has room for the magic only) */
	tpl.npos = 3;
	for (unsigned k = 0; k < 4 && pay + 4 + k < tpl.len - (g.roce ? 4u : 0u); k++)
		tpl.pos[tpl.npos++] = (uint16_t)(pay + 4 + k);
	tpl.pay = pay;
	if (g.roce) {
		memcpy(&tpl.icrc, tpl.frame + tpl.len - 4, 4); /* little-endian, as on x86 */
		tpl_tables();
	}
	return tpl_pool(lc);
}

/* --template: a burst of frames copied from the template. @return frames handed on. */
static unsigned tpl_burst(struct stk_lcore *lc, const struct stk_iface *ifc)
{
	struct rte_mbuf *ms[GEN_BURST];

	if (rte_pktmbuf_alloc_bulk(tpl.pool, ms, GEN_BURST) != 0) {
		g.build_fail++;
		return 0;
	}
	for (unsigned k = 0; k < GEN_BURST; k++) {
		struct rte_mbuf *m = ms[k];
		uint32_t seq = g.next_seq++, psn = seq & 0xffffff;
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)tpl.len);

		/* stamped at the start; copied again only when something wrote over it */
		if (memcmp(d, tpl.frame, 16) != 0 || memcmp(d + tpl.pay, tpl.frame + tpl.pay, 4)) {
			rte_memcpy(d, tpl.frame, tpl.len);
			tpl.restamped++;
		}
		if (!g.roce)
			memcpy(d + tpl.pos[3], &seq, tpl.npos - 3);
		if (g.roce) {
			uint8_t b[TPL_POS] = {(uint8_t)(psn >> 16), (uint8_t)(psn >> 8),
					      (uint8_t)psn,	    (uint8_t)seq,
					      (uint8_t)(seq >> 8),  (uint8_t)(seq >> 16),
					      (uint8_t)(seq >> 24)};
			uint32_t icrc = tpl.icrc;

			for (unsigned i = 0; i < tpl.npos; i++) {
				d[tpl.pos[i]] = b[i];
				icrc ^= tpl.tab[i][b[i]];
			}
			memcpy(d + tpl.len - 4, &icrc, 4);
			if (seq % 4093 == 7) {
				g.icrc_seen++;
				if (!roce_icrc_check(m, tpl.l3_off, tpl.bth_off, tpl.len - 4))
					g.icrc_bad++;
			}
		}
		stk_tx_frame(lc, ifc, m);
		g.sent++;
	}
	return GEN_BURST;
}

/* Rate mode: a burst per loop round until the end of the measured window. */
static enum gen_state step_rate(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	struct stk_flow f = {.dst = g.peer,
			     .sport = g.sport,
			     .dport = g.peer_port,
			     .dscp = g.dscp,
			     .ecn = g.ecn,
			     .pcp = STK_PCP_DEFAULT,
			     .csum = STK_CSUM_ZERO};
	struct roce_path path = {.dgid_ip = g.peer, .dscp = g.dscp, .ecn = g.ecn};

	if (!g.t_measure) {
		g.t_measure = now + ms_to_tsc(GEN_RATE_WARMUP_MS);
		g.t_end = g.t_measure + ms_to_tsc((uint64_t)g.rate_s * 1000);
	} else if (!g.opackets0 && now >= g.t_measure) {
		stk_lcore_flush(lc);
		g.opackets0 = port_opackets(ifc);
		g.t_measure = rte_get_tsc_cycles();
	}
	if (now >= g.t_end) {
		stk_lcore_flush(lc);
		g.opackets1 = port_opackets(ifc);
		g.t_measure_end = rte_get_tsc_cycles();
		return GEN_DONE;
	}
	if (g.template) {
		if (!tpl.ready && tpl_build(lc, ifc, &f, &path) != 0)
			return GEN_DONE;
		tpl_burst(lc, ifc);
		return GEN_SEND;
	}
	for (unsigned k = 0; k < GEN_BURST; k++) {
		struct rte_mbuf *m = rate_frame(lc, ifc, &path, g.next_seq, now);
		int rc;

		if (!m) {
			g.build_fail++;
			continue;
		}
		rc = g.roce ? stk_ip_send(lc, ifc, m, &g.peer) : stk_udp_send(lc, ifc, m, &f);
		if (rc != 0) {
			rte_pktmbuf_free(m);
			g.send_fail++;
			continue;
		}
		g.next_seq++;
		g.sent++;
	}
	return GEN_SEND;
}

/* Loopback's sender: -n frames to the RX port, --pps a second (0: a burst every round). */
static enum gen_state step_loop(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	struct roce_path path = {.dgid_ip = g.peer, .dscp = g.dscp, .ecn = g.ecn};

	if (!g.t_measure)
		g.t_measure = now;
	for (unsigned k = 0; k < GEN_BURST && g.next_seq < g.count; k++) {
		struct rte_mbuf *m;

		if (g.pps &&
		    now < g.t_measure + (uint64_t)((double)g.next_seq * rte_get_tsc_hz() / g.pps))
			break;
		m = rate_frame(lc, ifc, &path, g.next_seq, rte_get_tsc_cycles());
		if (!m && rte_errno != ENOMEM) {
			fprintf(stderr, "droce-gen: --loopback: cannot build a %u-byte frame: %s\n",
				g.frame_size, rte_strerror(rte_errno));
			return GEN_DONE;
		}
		if (!m) {
			g.build_fail++;
			break; /* the pool is empty for now: again next round */
		}
		if (stk_ip_send(lc, ifc, m, &g.peer) != 0) {
			rte_pktmbuf_free(m);
			g.send_fail++;
		} else {
			g.sent++;
		}
		g.next_seq++;
	}
	if (g.next_seq < g.count)
		return GEN_SEND;
	stk_lcore_flush(lc);
	g.t_measure_end = rte_get_tsc_cycles();
	g.deadline = now + ms_to_tsc(g.wait_ms);
	return GEN_DRAIN;
}

static enum gen_state step_drain(uint64_t now)
{
	if (g.loopback) {
		/* all arrived (or the wait is over): 50 ms more for copies and late frames */
		if (!g.lb_settle && (g.lb_unique >= g.sent || now >= g.deadline)) {
			g.lb_settle = true;
			g.deadline = now + ms_to_tsc(50);
		}
		return g.lb_settle && now >= g.deadline ? GEN_DONE : GEN_DRAIN;
	}
	if (verified_total() >= g.sent || now >= g.deadline) {
		if (!g.quiet) {
			printf("droce-gen: stream complete: %" PRIu64 "/%u verified\n",
			       verified_total(), g.count);
			fflush(stdout);
		}
		if (g.linger_s < 0)
			return GEN_LINGER;
		g.deadline = now + ms_to_tsc((uint64_t)g.linger_s * 1000);
		return GEN_LINGER;
	}
	return GEN_DRAIN;
}

static enum gen_state step_linger(uint64_t now)
{
	if (g.linger_s < 0)
		return GEN_LINGER; /* until a signal */
	return now >= g.deadline ? GEN_DONE : GEN_LINGER;
}

/* Replay: the next frame of the capture, starting it again for another loop. @return 1, or 0
 * when every loop is done (or the capture is malformed past this point: cap_bad) */
static int replay_fetch(uint64_t now)
{
	for (;;) {
		int rc = gen_pcap_next(&g.cap, &g.fr);

		if (rc == 1)
			return 1;
		if (rc < 0)
			g.cap_bad = true;
		if (rc < 0 || ++g.loop >= g.replay_loops)
			return 0;
		gen_pcap_open(&g.cap, g.cap_buf, (uint64_t)g.cap_len);
		g.t0 = now; /* each loop at its own recorded pace */
		g.nframe = 0;
		g.loop_sent = 0;
	}
}

/* Replay mode: send the frames that are due, a burst at most per loop round. */
static enum gen_state step_replay(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	double hz = (double)rte_get_tsc_hz();

	if (!g.replay_started) {
		g.replay_started = true;
		g.rw.src_mac = ifc->mac;
		g.rw.dst_mac = stk_iface_is_local(ifc, &g.peer) ? ifc->mac : g.peer_mac;
		g.rw.src_ip = ifc->ip4.v4;
		g.rw.dst_ip = g.peer.v4;
		g.t0 = now;
		g.t_replay_start = now;
		if (!stk_iface_is_local(ifc, &g.peer) && !g.resolved) {
			fprintf(stderr,
				"droce-gen: --replay: the peer must be on-link (resolved by "
				"ARP) or ourselves\n");
			return GEN_DONE;
		}
	}
	for (unsigned k = 0; k < GEN_BURST; k++) {
		struct gen_rewrite_res res;
		enum gen_skip why;
		struct rte_mbuf *m;
		uint64_t due;
		uint8_t *d;

		if (!g.have_frame) {
			if (!replay_fetch(now)) {
				stk_lcore_flush(lc);
				g.t_replay_end = rte_get_tsc_cycles();
				return GEN_DONE;
			}
			g.have_frame = true;
			if (g.nframe == 0)
				g.ts0 = g.fr.ts_ns;
		}
		if (g.replay_pps) /* frames sent, not those skipped, take the rate's slots */
			due = g.t0 + (uint64_t)((double)g.loop_sent * hz / g.replay_pps);
		else
			due = g.t0 +
			      (uint64_t)((double)(g.fr.ts_ns >= g.ts0 ? g.fr.ts_ns - g.ts0 : 0) *
					 hz / 1e9);
		if (now < due)
			return GEN_SEND;
		m = rte_pktmbuf_alloc(lc->pool);
		d = m ? (uint8_t *)rte_pktmbuf_mtod(m, uint8_t *) : NULL;
		if (!m) {
			g.build_fail++;
			return GEN_SEND; /* the pool is empty for now: again next round */
		}
		why = gen_replay_rewrite(&g.rw, &g.fr, d, rte_pktmbuf_tailroom(m), &res);
		g.have_frame = false;
		g.nframe++;
		g.frames_read++;
		if (why != GEN_OK) {
			g.skipped[why]++;
			rte_pktmbuf_free(m);
			continue;
		}
		rte_pktmbuf_append(m, (uint16_t)res.len);
		g.rw_qpn += res.qpn;
		g.rw_rkey += res.rkey;
		g.rw_psn += res.psn;
		stk_tx_frame(lc, ifc, m);
		g.replayed++;
		g.loop_sent++;
	}
	return GEN_SEND;
}

static void gen_poll(struct stk_lcore *lc, void *arg)
{
	const struct stk_iface *ifc = stk_iface_get(g.iface);
	uint64_t now = rte_get_tsc_cycles();
	enum gen_state prev;
	(void)arg;

	if (g.catalogue) {
		if (gen_cat_step(lc, ifc, now))
			stk_stop();
		return;
	}
	if (g.flow) {
		if (gen_flow_step(lc, ifc, now))
			stk_stop();
		return;
	}
	do {
		prev = g.state;
		switch (g.state) {
		case GEN_RESOLVE:
			g.state = step_resolve(lc, ifc, now);
			break;
		case GEN_SEND:
			g.state = g.loopback ? step_loop(lc, ifc, now)
				  : g.replay ? step_replay(lc, ifc, now)
				  : g.rate_s ? step_rate(lc, ifc, now)
					     : step_send(lc, ifc, now);
			break;
		case GEN_DRAIN:
			g.state = step_drain(now);
			break;
		case GEN_LINGER:
			g.state = step_linger(now);
			break;
		case GEN_DONE:
		default:
			stk_stop();
			break;
		}
	} while (g.state != prev && g.state != GEN_SEND);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL args] -- -c FILE [options]\n"
		"UDP datagram endpoint on the droce stack: echo server and/or verifying sender.\n"
		"  -c, --config FILE     droce INI configuration (see docs/config.md); required\n"
		"  -e, --echo PORT       echo datagrams that arrive on UDP PORT\n"
		"  -p, --peer ADDR:PORT  send datagrams to ADDR:PORT ([v6addr]:PORT for IPv6)\n"
		"  -n, --count N         datagrams to send (default 10, max 10000000)\n"
		"  -s, --size BYTES      payload size, 16..MTU-48 (default 64)\n"
		"  -i, --interval-us US  gap between datagrams (default 1000)\n"
		"  -w, --wait-ms MS      wait for echoes after the last send (default 2000)\n"
		"  -r, --resolve-ms MS   give up resolving the peer after MS (default 10000)\n"
		"  -l, --linger SEC      keep serving after sending; -1 = until SIGINT/SIGTERM\n"
		"                        (default 0 with --peer, -1 without)\n"
		"      --sport PORT      our UDP source port; echoes come back to it (40000)\n"
		"      --dscp N          DSCP 0..63 of what we send (default 0)\n"
		"      --ecn N           ECN codepoint 0..3 of what we send (default 0)\n"
		"      --iface N         interface index (default 0)\n"
		"      --rate SECONDS    rate mode: send to --peer as fast as possible for SECONDS\n"
		"                        (after 0.5 s warm-up) and report frames/s; no echoes\n"
		"      --frame-size N    rate mode: Ethernet frame bytes without FCS (default 64)\n"
		"      --roce            rate mode: RoCEv2 RC SEND ONLY frames (BTH, ICRC) instead\n"
		"                        of UDP datagrams; the payload rounded down to 4 bytes\n"
		"      --roce-qpn N      rate mode: their destination QP (default 0x11)\n"
		"      --template        rate mode: copy every frame from one built at the start,\n"
		"                        changing the sequence number, the PSN and the ICRC\n"
		"      --replay FILE     replay mode: send the RoCEv2 frames of a pcap/pcapng capture\n"
		"                        to --peer (IPv4), rewritten: our MAC and address as the\n"
		"                        source, the peer's as the destination, the ICRC again\n"
		"      --replay-pps N    at N frames a second (default 0: the capture's own pace)\n"
		"      --replay-loops N  the capture N times (default 1)\n"
		"      --qpn-map A:B     destination QP A becomes B (up to 16)\n"
		"      --rkey-map A:B    RETH/AtomicETH rkey A becomes B (up to 16)\n"
		"      --psn-base N      each destination QP's first PSN becomes N, the rest follow\n"
		"      --loopback        loopback mode: -n RoCEv2 frames from --iface to the address\n"
		"                        of --rx-iface (the other end of a cable), counted there:\n"
		"                        lost, duplicated, reordered, bad, one-way latency\n"
		"      --rx-iface N      loopback: the receiving interface (default 1)\n"
		"      --pps N           loopback: frames a second (default 0: as fast as it can)\n"
		"      --catalogue VERB  catalogue mode: malformed and adversarial frames to the QPs\n"
		"                        of a perftest server at --peer ADDR:PORT (VERB write:\n"
		"                        ib_write_bw -q N; atomic: ib_atomic_bw -q N), each entry's\n"
		"                        reaction and a probe checked against the spec (docs/gen.md)\n"
		"      --cat-qps         print the server's -q for --catalogue VERB and exit\n"
		"      --cat-list        print the catalogue and exit\n"
		"      --cat-only LIST   only these entries (comma-separated names)\n"
		"      --cat-wait MS     how long to watch for replies, per phase (default 200)\n"
		"      --cat-peer KIND   droce or rxe: whose known deviations are accepted\n"
		"      --flow VERB       flow mode: droce's RC QPs as the requester towards a perftest\n"
		"                        server at --peer ADDR:PORT (VERB write: ib_write_bw -q N;\n"
		"                        read: ib_read_bw -q N; -s at least the largest size)\n"
		"      --qps N           flow: QPs, the server's -q (default 1)\n"
		"      --depth N         flow: WRs in flight per QP (default 16)\n"
		"      --seconds N       flow: how long (default 5)\n"
		"      --sizes LIST      flow: SIZE[:WEIGHT],... message sizes by weight (64k)\n"
		"      --pps N           flow: at most N packets a second (loopback: frames)\n"
		"      --gbps G          flow: at most G Gbit/s of payload\n"
		"      --pcp N           flow: 802.1Q priority 0..7 (with --dscp: the QPs' own\n"
		"                        marking instead of the port's RoCE class)\n"
		"      --hold            when done, stop polling but keep the ports open until\n"
		"                        SIGINT/SIGTERM (a memif peer may then leave safely)\n"
		"  -j, --json            print the result as one JSON line\n"
		"  -q, --quiet           only the result\n"
		"  -h, --help            this text\n"
		"Exit status: 0 all echoes verified (or server only), 1 loss or corruption,\n"
		"2 bad arguments or configuration, 3 stack start-up failed.\n",
		prog);
}

static int parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || x < min || x > max) {
		fprintf(stderr, "droce-gen: %s %s: expected an integer from %u to %u\n", opt, v,
			min, max);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

static int parse_peer(const char *v)
{
	char buf[80];
	char *colon;
	uint32_t port;

	if (strlen(v) >= sizeof(buf))
		goto bad;
	strcpy(buf, v);
	if (buf[0] == '[') {
		char *close = strchr(buf, ']');

		if (!close || close[1] != ':')
			goto bad;
		*close = '\0';
		colon = close + 1; /* the port follows; only the address moves below */
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	} else {
		colon = strrchr(buf, ':');
		if (!colon)
			goto bad;
	}
	*colon = '\0';
	if (stk_ipaddr_parse(buf, &g.peer) != 0 ||
	    parse_u32("--peer port", colon + 1, 1, 65535, &port) != 0)
		goto bad;
	g.peer_port = (uint16_t)port;
	g.has_peer = true;
	return 0;
bad:
	fprintf(stderr, "droce-gen: --peer %s: expected A.B.C.D:PORT or [IPv6]:PORT\n", v);
	return -1;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"echo", required_argument, NULL, 'e'},
		{"peer", required_argument, NULL, 'p'},
		{"count", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 's'},
		{"interval-us", required_argument, NULL, 'i'},
		{"wait-ms", required_argument, NULL, 'w'},
		{"resolve-ms", required_argument, NULL, 'r'},
		{"linger", required_argument, NULL, 'l'},
		{"sport", required_argument, NULL, 1},
		{"dscp", required_argument, NULL, 2},
		{"ecn", required_argument, NULL, 3},
		{"iface", required_argument, NULL, 4},
		{"hold", no_argument, NULL, 5},
		{"rate", required_argument, NULL, 6},
		{"frame-size", required_argument, NULL, 7},
		{"roce", no_argument, NULL, 8},
		{"roce-qpn", required_argument, NULL, 9},
		{"template", no_argument, NULL, 10},
		{"replay", required_argument, NULL, 11},
		{"replay-pps", required_argument, NULL, 12},
		{"replay-loops", required_argument, NULL, 13},
		{"qpn-map", required_argument, NULL, 14},
		{"rkey-map", required_argument, NULL, 15},
		{"psn-base", required_argument, NULL, 16},
		{"loopback", no_argument, NULL, 17},
		{"rx-iface", required_argument, NULL, 18},
		{"pps", required_argument, NULL, 19},
		{"catalogue", required_argument, NULL, 20},
		{"cat-qps", no_argument, NULL, 21},
		{"cat-list", no_argument, NULL, 22},
		{"cat-only", required_argument, NULL, 23},
		{"cat-wait", required_argument, NULL, 24},
		{"cat-peer", required_argument, NULL, 25},
		{"flow", required_argument, NULL, 26},
		{"qps", required_argument, NULL, 27},
		{"depth", required_argument, NULL, 28},
		{"seconds", required_argument, NULL, 29},
		{"sizes", required_argument, NULL, 30},
		{"gbps", required_argument, NULL, 31},
		{"pcp", required_argument, NULL, 32},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint32_t x;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:e:p:n:s:i:w:r:l:jqh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			g.config = optarg;
			break;
		case 'e':
			if (parse_u32("--echo", optarg, 1, 65535, &x))
				return -1;
			g.echo_port = (uint16_t)x;
			break;
		case 'p':
			if (parse_peer(optarg))
				return -1;
			break;
		case 'n':
			if (parse_u32("--count", optarg, 1, 10000000, &g.count))
				return -1;
			break;
		case 's':
			if (parse_u32("--size", optarg, GEN_HDR, 9000, &g.size))
				return -1;
			break;
		case 'i':
			if (parse_u32("--interval-us", optarg, 0, 10000000, &g.interval_us))
				return -1;
			break;
		case 'w':
			if (parse_u32("--wait-ms", optarg, 0, 600000, &g.wait_ms))
				return -1;
			break;
		case 'r':
			if (parse_u32("--resolve-ms", optarg, 1, 600000, &g.resolve_ms))
				return -1;
			break;
		case 'l':
			if (!strcmp(optarg, "-1")) {
				g.linger_s = -1;
			} else {
				if (parse_u32("--linger", optarg, 0, 86400, &x))
					return -1;
				g.linger_s = (int)x;
			}
			break;
		case 1:
			if (parse_u32("--sport", optarg, 1, 65535, &x))
				return -1;
			g.sport = (uint16_t)x;
			break;
		case 2:
			if (parse_u32("--dscp", optarg, 0, 63, &x))
				return -1;
			g.dscp = (uint8_t)x;
			g.dscp_set = true;
			break;
		case 3:
			if (parse_u32("--ecn", optarg, 0, 3, &x))
				return -1;
			g.ecn = (uint8_t)x;
			break;
		case 4:
			if (parse_u32("--iface", optarg, 0, STK_MAX_PORTS - 1, &x))
				return -1;
			g.iface = (uint16_t)x;
			break;
		case 5:
			g.hold = true;
			break;
		case 6:
			if (parse_u32("--rate", optarg, 1, 3600, &g.rate_s))
				return -1;
			break;
		case 7:
			if (parse_u32("--frame-size", optarg, 60, 9018, &g.frame_size))
				return -1;
			break;
		case 8:
			g.roce = true;
			break;
		case 9:
			if (parse_u32("--roce-qpn", optarg, 1, 0xffffff, &g.roce_qpn))
				return -1;
			break;
		case 10:
			g.template = true;
			break;
		case 11:
			g.replay = optarg;
			break;
		case 12:
			if (parse_u32("--replay-pps", optarg, 0, 100000000, &g.replay_pps))
				return -1;
			break;
		case 13:
			if (parse_u32("--replay-loops", optarg, 1, 1000000, &g.replay_loops))
				return -1;
			break;
		case 14:
		case 15:
			if (gen_map_add(c == 14 ? &g.rw.qpn : &g.rw.rkey, optarg,
					c == 14 ? 0xffffffu : 0xffffffffu) != 0) {
				fprintf(stderr,
					"droce-gen: --%s %s: expected FROM:TO (decimal or 0x hex, "
					"%s), at most %u of them\n",
					c == 14 ? "qpn-map" : "rkey-map", optarg,
					c == 14 ? "24-bit QP numbers" : "32-bit keys", GEN_MAP_MAX);
				return -1;
			}
			break;
		case 16:
			if (parse_u32("--psn-base", optarg, 0, 0xffffff, &g.rw.psn_base))
				return -1;
			g.rw.psn_rebase = true;
			break;
		case 17:
			g.loopback = true;
			break;
		case 18:
			if (parse_u32("--rx-iface", optarg, 0, STK_MAX_PORTS - 1, &x))
				return -1;
			g.rx_iface = (uint16_t)x;
			g.rx_iface_set = true;
			break;
		case 19:
			if (parse_u32("--pps", optarg, 0, 100000000, &g.pps))
				return -1;
			break;
		case 20:
			g.catalogue = true;
			g.cat.verb = gen_cat_verb_parse(optarg);
			if (g.cat.verb == GEN_CAT_NUM_VERBS) {
				fprintf(stderr,
					"droce-gen: --catalogue %s: expected write (an ib_write_bw "
					"server) or atomic (ib_atomic_bw)\n",
					optarg);
				return -1;
			}
			break;
		case 21:
			g.cat_qps = true;
			break;
		case 22:
			g.cat_list = true;
			break;
		case 23:
			g.cat.only = optarg;
			break;
		case 24:
			if (parse_u32("--cat-wait", optarg, 10, 60000, &g.cat.wait_ms))
				return -1;
			break;
		case 25:
			if (strcmp(optarg, "droce") != 0 && strcmp(optarg, "rxe") != 0) {
				fprintf(stderr, "droce-gen: --cat-peer %s: expected droce or rxe\n",
					optarg);
				return -1;
			}
			g.cat.peer = optarg;
			break;
		case 26:
			g.flow = true;
			g.fo.verb = gen_flow_verb_parse(optarg);
			if (g.fo.verb == GEN_FLOW_NUM_VERBS) {
				fprintf(stderr,
					"droce-gen: --flow %s: expected write (an ib_write_bw server) "
					"or read (ib_read_bw)\n",
					optarg);
				return -1;
			}
			break;
		case 27:
			g.flow_opt = true;
			if (parse_u32("--qps", optarg, 1, GEN_FLOW_MAX_QPS, &g.fo.qps))
				return -1;
			break;
		case 28:
			g.flow_opt = true;
			if (parse_u32("--depth", optarg, 1, 1024, &g.fo.depth))
				return -1;
			break;
		case 29:
			g.flow_opt = true;
			if (parse_u32("--seconds", optarg, 1, 3600, &g.fo.seconds))
				return -1;
			break;
		case 30:
			g.flow_opt = true;
			if (gen_flow_parse_sizes(optarg, &g.fo) != 0)
				return -1;
			break;
		case 31: {
			char *end;

			g.gbps = strtod(optarg, &end);
			if (*end || !(g.gbps >= 0.001 && g.gbps <= 1000)) {
				fprintf(stderr, "droce-gen: --gbps %s: expected 0.001 to 1000\n",
					optarg);
				return -1;
			}
			break;
		}
		case 32:
			if (parse_u32("--pcp", optarg, 0, 7, &x))
				return -1;
			g.pcp = (uint8_t)x;
			g.pcp_set = true;
			break;
		case 'j':
			g.json = true;
			break;
		case 'q':
			g.quiet = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "droce-gen: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (g.cat_list) {
		gen_cat_list(stdout);
		exit(0);
	}
	if (g.cat_qps || g.cat.only || g.cat.peer) {
		int n;

		if (!g.catalogue) {
			fprintf(stderr, "droce-gen: --cat-qps, --cat-only and --cat-peer go with "
					"--catalogue VERB\n");
			return -1;
		}
		n = gen_cat_qps(g.cat.verb, g.cat.only);
		if (n < 0)
			return -1;
		if (g.cat_qps) {
			printf("%d\n", n);
			exit(0);
		}
	}
	if (!g.config) {
		fprintf(stderr, "droce-gen: -c/--config FILE is required (see conf/example.ini)\n");
		return -1;
	}
	if (g.flow) {
		if (!g.has_peer || g.peer.family != 4 || g.loopback || g.rate_s || g.replay ||
		    g.echo_port || g.catalogue) {
			fprintf(stderr, "droce-gen: --flow needs --peer A.B.C.D:PORT (the perftest "
					"server's IPv4 address and port, 18515 by default) and no "
					"other mode\n");
			return -1;
		}
		if (g.pps && g.gbps > 0) {
			fprintf(stderr, "droce-gen: --flow: --pps or --gbps, not both\n");
			return -1;
		}
		if (g.rx_iface_set) {
			fprintf(stderr, "droce-gen: --flow: --rx-iface goes with --loopback\n");
			return -1;
		}
		g.fo.pps = g.pps;
		g.fo.gbps = g.gbps;
		g.fo.dscp = g.dscp;
		g.fo.dscp_set = g.dscp_set;
		g.fo.ecn = g.ecn;
		g.fo.pcp = g.pcp;
		g.fo.pcp_set = g.pcp_set;
		g.fo.server = g.peer;
		g.fo.port = g.peer_port;
		g.fo.iface = g.iface;
		g.fo.json = g.json;
		return 0;
	}
	if ((g.pcp_set || g.gbps > 0 || g.flow_opt) && !g.flow) {
		fprintf(stderr,
			"droce-gen: --qps, --depth, --seconds, --sizes, --pcp and --gbps go "
			"with --flow\n");
		return -1;
	}
	if (g.catalogue) {
		if (!g.has_peer || g.peer.family != 4 || g.loopback || g.rate_s || g.replay ||
		    g.echo_port) {
			fprintf(stderr,
				"droce-gen: --catalogue needs --peer A.B.C.D:PORT (the perftest "
				"server's IPv4 address and port, 18515 by default) and no "
				"other mode\n");
			return -1;
		}
		g.cat.server = g.peer;
		g.cat.port = g.peer_port;
		g.cat.iface = g.iface;
		g.cat.json = g.json;
		return 0;
	}
	if (g.loopback) {
		if (g.has_peer || g.rate_s || g.replay || g.echo_port) {
			fprintf(stderr,
				"droce-gen: --loopback sends to --rx-iface's own address: no "
				"--peer, --echo, --rate or --replay with it\n");
			return -1;
		}
		if (!g.rx_iface_set)
			g.rx_iface = 1;
		if (g.rx_iface == g.iface) {
			fprintf(stderr,
				"droce-gen: --loopback: --rx-iface must differ from --iface\n");
			return -1;
		}
		if (g.frame_size < ROCE_OVERHEAD + GEN_HDR)
			g.frame_size = 128; /* room for the magic, the sequence and the TSC */
		g.roce = true;
		if (g.linger_s == -2)
			g.linger_s = 0;
		return 0;
	}
	if ((g.rx_iface_set || g.pps) && !g.loopback) {
		fprintf(stderr, "droce-gen: --rx-iface and --pps go with --loopback\n");
		return -1;
	}
	if (!g.has_peer && !g.echo_port) {
		fprintf(stderr, "droce-gen: nothing to do: give --echo PORT and/or --peer "
				"ADDR:PORT\n");
		return -1;
	}
	if (g.has_peer && g.echo_port == g.sport) {
		fprintf(stderr, "droce-gen: --sport must differ from --echo\n");
		return -1;
	}
	if (g.rate_s && !g.has_peer) {
		fprintf(stderr, "droce-gen: --rate needs --peer ADDR:PORT\n");
		return -1;
	}
	if (g.replay && (!g.has_peer || g.peer.family != 4 || g.rate_s)) {
		fprintf(stderr, "droce-gen: --replay needs --peer A.B.C.D:PORT (IPv4; the port is "
				"not used: RoCEv2 goes to 4791) and no --rate\n");
		return -1;
	}
	if (!g.replay &&
	    (g.replay_pps || g.replay_loops || g.rw.qpn.n || g.rw.rkey.n || g.rw.psn_rebase)) {
		fprintf(stderr, "droce-gen: --replay-pps, --replay-loops, --qpn-map, --rkey-map "
				"and --psn-base go with --replay FILE\n");
		return -1;
	}
	if (g.replay) {
		FILE *f = fopen(g.replay, "rb");

		if (!g.replay_loops)
			g.replay_loops = 1;
		if (f && fseek(f, 0, SEEK_END) == 0 && (g.cap_len = ftell(f)) > 0 &&
		    fseek(f, 0, SEEK_SET) == 0 && (g.cap_buf = malloc((size_t)g.cap_len)) &&
		    fread(g.cap_buf, 1, (size_t)g.cap_len, f) == (size_t)g.cap_len &&
		    gen_pcap_open(&g.cap, g.cap_buf, (uint64_t)g.cap_len) == 0) {
			fclose(f);
		} else {
			fprintf(stderr, "droce-gen: --replay %s: %s\n", g.replay,
				!f ? strerror(errno) : "not a pcap or pcapng capture");
			if (f)
				fclose(f);
			return -1;
		}
	}
	if (g.linger_s == -2)
		g.linger_s = g.has_peer ? 0 : -1;
	return 0;
}

/* Rate mode's result: frames per second the port sent in the measured window. */
static void report_rate(void)
{
	double secs = (double)(g.t_measure_end - g.t_measure) / (double)rte_get_tsc_hz();
	uint64_t frames = g.opackets1 - g.opackets0;
	double fps = secs > 0 && g.opackets1 ? (double)frames / secs : 0;
	uint32_t size =
		g.roce ? ROCE_OVERHEAD + ((g.frame_size - ROCE_OVERHEAD) & ~3u) : g.frame_size;

	if (g.json)
		printf("{\"mode\":\"rate\",\"frames\":\"%s\",\"frame_size\":%u,"
		       "\"seconds\":%.3f,\"tx_frames\":%" PRIu64 ",\"fps\":%.0f,"
		       "\"sent\":%" PRIu64 ",\"send_failed\":%" PRIu64 ",\"build_failed\":%" PRIu64
		       ",\"template\":%s,\"restamped\":%" PRIu64 ",\"icrc_checked\":%" PRIu64
		       ",\"icrc_bad\":%" PRIu64 "}\n",
		       g.roce ? "roce" : "udp", size, secs, frames, fps, g.sent, g.send_fail,
		       g.build_fail, g.template ? "true" : "false", tpl.restamped, g.icrc_seen,
		       g.icrc_bad);
	else
		printf("droce-gen: rate: %.2f Mfps of %u B %s frames%s (%" PRIu64
		       " in %.2f s; %" PRIu64 " handed to the stack, %" PRIu64 " refused, %" PRIu64
		       " not built; %" PRIu64 " restamped; ICRC checked %" PRIu64 ", bad %" PRIu64
		       ")\n",
		       fps / 1e6, size, g.roce ? "RoCEv2 SEND ONLY" : "UDP",
		       g.template ? " from a template" : "", frames, secs, g.sent, g.send_fail,
		       g.build_fail, tpl.restamped, g.icrc_seen, g.icrc_bad);
	fflush(stdout);
}

static void report_loop(void)
{
	double ns = 1e9 / (double)rte_get_tsc_hz();
	struct stk_port_stats tx;
	uint64_t lost = g.sent > g.lb_unique ? g.sent - g.lb_unique : 0;
	double secs = g.t_measure_end > g.t_measure
			      ? (double)(g.t_measure_end - g.t_measure) / (double)rte_get_tsc_hz()
			      : 0.0;

	stk_stats_sum(g.iface, &tx);
	if (g.json) {
		printf("{\"mode\":\"loopback\",\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		       ",\"unique\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"duplicated\":%" PRIu64
		       ",\"reordered\":%" PRIu64 ",\"bad\":%" PRIu64 ",\"send_failed\":%" PRIu64
		       ",\"seconds\":%.3f,\"one_way_ns\":{\"min\":%.0f,\"p50\":%.0f,\"p99\":%.0f,"
		       "\"max\":%.0f},\"impair_tx\":{\"dropped\":%" PRIu64
		       ",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64
		       ",\"corrupted\":%" PRIu64 ",\"delayed\":%" PRIu64 ",\"delay_full\":%" PRIu64
		       "}}\n",
		       g.sent, g.lb_rx, g.lb_unique, lost, g.lb_dup, g.lb_reordered, g.lb_bad,
		       g.send_fail, secs, (double)stk_hist_min(g.lb_lat) * ns,
		       (double)stk_hist_percentile(g.lb_lat, 50) * ns,
		       (double)stk_hist_percentile(g.lb_lat, 99) * ns,
		       (double)stk_hist_max(g.lb_lat) * ns, tx.c[STK_CNT_impair_dropped],
		       tx.c[STK_CNT_impair_duplicated], tx.c[STK_CNT_impair_reordered],
		       tx.c[STK_CNT_impair_corrupted], tx.c[STK_CNT_impair_delayed],
		       tx.c[STK_CNT_impair_delay_full]);
	} else {
		printf("droce-gen: loopback: sent %" PRIu64 " in %.3f s, received %" PRIu64
		       " (unique %" PRIu64 "): lost %" PRIu64 ", duplicated %" PRIu64
		       ", reordered %" PRIu64 ", bad %" PRIu64 "; one-way min/p50/p99/max "
		       "%.1f/%.1f/%.1f/%.1f us\n",
		       g.sent, secs, g.lb_rx, g.lb_unique, lost, g.lb_dup, g.lb_reordered, g.lb_bad,
		       (double)stk_hist_min(g.lb_lat) * ns / 1e3,
		       (double)stk_hist_percentile(g.lb_lat, 50) * ns / 1e3,
		       (double)stk_hist_percentile(g.lb_lat, 99) * ns / 1e3,
		       (double)stk_hist_max(g.lb_lat) * ns / 1e3);
		printf("droce-gen: the TX port's impairment: dropped %" PRIu64
		       ", duplicated %" PRIu64 ", reordered %" PRIu64 ", corrupted %" PRIu64
		       ", delayed %" PRIu64 "\n",
		       tx.c[STK_CNT_impair_dropped], tx.c[STK_CNT_impair_duplicated],
		       tx.c[STK_CNT_impair_reordered], tx.c[STK_CNT_impair_corrupted],
		       tx.c[STK_CNT_impair_delayed]);
	}
	fflush(stdout);
}

static void report_replay(void)
{
	uint64_t skipped = 0;

	for (int i = 1; i < GEN_SKIP_NUM; i++)
		skipped += g.skipped[i];
	if (g.json) {
		printf("{\"mode\":\"replay\",\"frames\":%" PRIu64 ",\"sent\":%" PRIu64
		       ",\"skipped\":%" PRIu64,
		       g.frames_read, g.replayed, skipped);
		for (int i = 1; i < GEN_SKIP_NUM; i++)
			printf(",\"skipped_%s\":%" PRIu64, gen_skip_name((enum gen_skip)i),
			       g.skipped[i]);
		printf(",\"qpn_rewritten\":%" PRIu64 ",\"rkey_rewritten\":%" PRIu64
		       ",\"psn_rewritten\":%" PRIu64 ",\"loops\":%u,\"capture_malformed\":%s,"
		       "\"seconds\":%.3f}\n",
		       g.rw_qpn, g.rw_rkey, g.rw_psn, g.replay_loops, g.cap_bad ? "true" : "false",
		       g.t_replay_end > g.t_replay_start
			       ? (double)(g.t_replay_end - g.t_replay_start) / rte_get_tsc_hz()
			       : 0.0);
	} else {
		printf("droce-gen: replay: %" PRIu64 " frames sent, %" PRIu64 " skipped",
		       g.replayed, skipped);
		for (int i = 1; i < GEN_SKIP_NUM; i++)
			if (g.skipped[i])
				printf(" (%s %" PRIu64 ")", gen_skip_name((enum gen_skip)i),
				       g.skipped[i]);
		printf("; QPN rewritten %" PRIu64 ", rkey %" PRIu64 ", PSN %" PRIu64 "%s\n",
		       g.rw_qpn, g.rw_rkey, g.rw_psn,
		       g.cap_bad ? "; the capture is malformed past the last frame sent" : "");
	}
	fflush(stdout);
}

static void report(void)
{
	struct gen_lstats t = {0};
	double hz = (double)rte_get_tsc_hz();
	uint64_t lost;

	for (unsigned i = 0; i < RTE_MAX_LCORE; i++) {
		t.echoed += g.ls[i].echoed;
		t.verified += g.ls[i].verified;
		t.corrupt += g.ls[i].corrupt;
		t.dup += g.ls[i].dup;
		t.rtt_sum += g.ls[i].rtt_sum;
		if (g.ls[i].rtt_min && (!t.rtt_min || g.ls[i].rtt_min < t.rtt_min))
			t.rtt_min = g.ls[i].rtt_min;
		if (g.ls[i].rtt_max > t.rtt_max)
			t.rtt_max = g.ls[i].rtt_max;
	}
	lost = g.sent > t.verified ? g.sent - t.verified : 0;
	if (g.json) {
		printf("{\"sent\":%" PRIu64 ",\"send_failed\":%" PRIu64 ",\"verified\":%" PRIu64
		       ",\"corrupt\":%" PRIu64 ",\"duplicate\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"echoed\":%" PRIu64 ",\"resolved\":%s,\"rtt_us\":{\"min\":%.1f,"
		       "\"avg\":%.1f,\"max\":%.1f}}\n",
		       g.sent, g.send_fail, t.verified, t.corrupt, t.dup, lost, t.echoed,
		       g.resolved ? "true" : "false", t.rtt_min * 1e6 / hz,
		       t.verified ? t.rtt_sum * 1e6 / hz / (double)t.verified : 0.0,
		       t.rtt_max * 1e6 / hz);
	} else {
		if (g.has_peer)
			printf("droce-gen: sent %" PRIu64 ", verified %" PRIu64 ", corrupt %" PRIu64
			       ", duplicate %" PRIu64 ", lost %" PRIu64 "; rtt min/avg/max = "
			       "%.1f/%.1f/%.1f us\n",
			       g.sent, t.verified, t.corrupt, t.dup, lost, t.rtt_min * 1e6 / hz,
			       t.verified ? t.rtt_sum * 1e6 / hz / (double)t.verified : 0.0,
			       t.rtt_max * 1e6 / hz);
		printf("droce-gen: echoed %" PRIu64 " datagrams\n", t.echoed);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct stk_config cfg;
	char err[512];
	int eal_argc, app_argc, rc, status;
	char **eal_argv, **app_argv;
	uint64_t verified;

	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv) != 0)
		return 2;
	stk_config_default(&cfg);
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "droce-gen: %s\n", err);
		return 2;
	}
	if (g.iface >= cfg.nb_ports) {
		fprintf(stderr, "droce-gen: --iface %u: the configuration has %u port(s)\n",
			g.iface, cfg.nb_ports);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0)
		return 3;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (stk_setup(&cfg) != 0) {
		fprintf(stderr, "droce-gen: stack set-up failed (see the messages above)\n");
		rte_eal_cleanup();
		return 3;
	}
	if (g.loopback) {
		const struct stk_iface *rx =
			g.rx_iface < cfg.nb_ports ? stk_iface_get(g.rx_iface) : NULL;

		if (!rx || !rx->ip4.family) {
			fprintf(stderr,
				"droce-gen: --loopback: --rx-iface %u needs a port with an "
				"IPv4 address in the configuration\n",
				g.rx_iface);
			status = 2;
			goto out;
		}
		g.peer = rx->ip4;
		g.has_peer = true;
		g.lb_lat = stk_hist_create(STK_HIST_SUB_BITS_DEFAULT);
		if (!g.lb_lat || (rc = stk_udp_bind(4791, loop_rx, NULL)) != 0) {
			fprintf(stderr, "droce-gen: --loopback: cannot bind UDP 4791\n");
			status = 2;
			goto out;
		}
	}
	if (g.catalogue) {
		const struct stk_iface *ifc = stk_iface_get(g.iface);

		if (rte_lcore_count() != 1) {
			/* the replies are judged where the state machine runs: one lcore polls */
			fprintf(stderr, "droce-gen: --catalogue runs on one lcore: set lcores = N "
					"(a single core) in [eal]\n");
			status = 2;
			goto out;
		}
		if (!ifc->ip4.family || gen_cat_start(&g.cat) != 0) {
			if (!ifc->ip4.family)
				fprintf(stderr,
					"droce-gen: --catalogue: interface %u has no IPv4 "
					"address\n",
					g.iface);
			status = 2;
			goto out;
		}
		stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), gen_poll, NULL);
		stk_run();
		status = gen_cat_finish();
		goto out;
	}
	if (g.flow) {
		const struct stk_iface *ifc = stk_iface_get(g.iface);

		if (!ifc->ip4.family || gen_flow_start(&g.fo) != 0) {
			if (!ifc->ip4.family)
				fprintf(stderr,
					"droce-gen: --flow: interface %u has no IPv4 address\n",
					g.iface);
			status = 2;
			goto out;
		}
		stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), gen_poll, NULL);
		stk_run();
		status = gen_flow_finish();
		goto out;
	}
	if (g.echo_port && (rc = stk_udp_bind(g.echo_port, echo_rx, NULL)) != 0) {
		fprintf(stderr, "droce-gen: cannot bind UDP %u: %s\n", g.echo_port, strerror(-rc));
		status = 2;
		goto out;
	}
	if (g.has_peer) {
		g.seen = calloc(g.count, 1);
		if (!g.seen || stk_udp_bind(g.sport, reply_rx, NULL) != 0) {
			fprintf(stderr, "droce-gen: cannot bind UDP source port %u\n", g.sport);
			status = 2;
			goto out;
		}
		g.t_start = rte_get_tsc_cycles();
		g.deadline = g.t_start + ms_to_tsc(g.resolve_ms);
		g.state = GEN_RESOLVE;
	} else {
		g.state = GEN_LINGER;
		g.deadline = rte_get_tsc_cycles() +
			     ms_to_tsc((uint64_t)(g.linger_s > 0 ? g.linger_s : 0) * 1000);
	}
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), gen_poll, NULL);
	if (!g.quiet) {
		printf("droce-gen: ready (%s%s%s)\n", g.echo_port ? "echo" : "",
		       g.echo_port && g.has_peer ? ", " : "", g.has_peer ? "sender" : "");
		fflush(stdout);
	}
	stk_run();
	if (!g.quiet && g.state != GEN_DONE)
		printf("droce-gen: stopped in state %s\n", gen_state_names[g.state]);
	if (g.loopback)
		report_loop();
	else if (g.replay)
		report_replay();
	else if (g.rate_s)
		report_rate();
	else
		report();
	fflush(stdout); /* before teardown: what was done is on record whatever happens next */
	if (g.hold)
		hold_until_signal(g_signals);
	verified = verified_total();
	status = 0;
	if (g.loopback)
		status = g.state == GEN_DONE && g.sent == g.count ? 0 : 1;
	else if (g.replay)
		status = g.state == GEN_DONE && g.replayed > 0 && !g.cap_bad ? 0 : 1;
	else if (g.rate_s)
		status = g.state == GEN_DONE && g.opackets1 > g.opackets0 && !g.icrc_bad ? 0 : 1;
	else if (g.has_peer && (verified != g.count || g.sent != g.count))
		status = 1;
out:
	stk_teardown();
	free(g.seen);
	free(g.cap_buf);
	stk_hist_free(g.lb_lat);
	rte_eal_cleanup();
	return status;
}
