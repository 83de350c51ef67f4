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
 * changes the CRC by a fixed value); each burst of 32 goes to stk_tx_frames() at once, four
 * bursts per loop round. The TSC is not written there. The templated frames come from a pool of their own whose mbufs were all
 * stamped with the template at the start; a frame's bytes are copied again only when its
 * first 16 bytes or its magic are not the template's (the PMD or a receiver wrote them), so
 * most frames cost the few bytes that change, as testpmd's txonly frames cost their headers.
 * Every 4093rd templated RoCE frame's ICRC is checked in full.
 * bench/gen-rate.py sets it against dpdk-testpmd --forward-mode=txonly on the same vdev.
 *
 * Replay mode (--replay FILE): the RoCEv2 frames of a pcap or pcapng capture, rewritten for
 * --peer (our MAC and address to the peer's, in the peer's address family whatever the
 * capture's, destination QPs and rkeys through --qpn-map
 * and --rkey-map, each destination QP's PSNs moved to start at --psn-base, the ICRC computed
 * again: gen_replay.h) and sent at their recorded pace, or --replay-pps frames a second,
 * --replay-loops times. Frames that are not RoCEv2 are skipped and counted by reason.
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

#include "droce-gen.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_tx.h"
#include "stk_arp.h"
#include "stk_config.h"
#include "stk_hist.h"
#include "stk_stack.h"
#include "stk_stats.h"

static const char *const gen_state_names[GEN_NUM_STATES] = {
	"resolve", "send", "drain", "linger", "done",
};

struct gen_global g = {
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
	.fo = {.xchg = GEN_XCHG_PERFTEST,
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
	const uint32_t len = tpl.len, npos = tpl.npos, pay = tpl.pay, icrc0 = tpl.icrc;
	const uint16_t psn_at = (uint16_t)(tpl.bth_off + 8); /* BTH bytes 8-11: A, rsvd, PSN */
	const uint32_t byte8 = (uint32_t)tpl.frame[psn_at] << 24;
	uint16_t pos[TPL_POS];

	if (rte_pktmbuf_alloc_bulk(tpl.pool, ms, GEN_BURST) != 0) {
		g.build_fail++;
		return 0;
	}
	memcpy(pos, tpl.pos, sizeof(pos));
	for (unsigned k = 0; k < GEN_BURST; k++) {
		struct rte_mbuf *m = ms[k];
		uint32_t seq = g.next_seq + k, psn = seq & 0xffffff, icrc = icrc0;
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
		rte_be32_t w = rte_cpu_to_be_32(byte8 | psn);

		/* stamped at the start; copied again only when something wrote over it */
		if (memcmp(d, tpl.frame, 16) != 0 || memcmp(d + pay, tpl.frame + pay, 4)) {
			rte_memcpy(d, tpl.frame, len);
			tpl.restamped++;
		}
		if (!g.roce) {
			memcpy(d + pos[3], &seq, npos - 3);
			continue;
		}
		/* the PSN in one store; each changed byte changes the ICRC by its table's value */
		memcpy(d + psn_at, &w, 4);
		icrc ^= tpl.tab[0][(uint8_t)(psn >> 16)] ^ tpl.tab[1][(uint8_t)(psn >> 8)] ^
			tpl.tab[2][(uint8_t)psn];
		for (uint32_t i = 3; i < npos; i++) {
			uint8_t v = (uint8_t)(seq >> (8 * (i - 3)));

			d[pos[i]] = v;
			icrc ^= tpl.tab[i][v];
		}
		memcpy(d + len - 4, &icrc, 4);
	}
	if (g.roce) /* every 4093rd frame's ICRC checked in full */
		for (unsigned k = 0; k < GEN_BURST; k++)
			if ((g.next_seq + k) % 4093 == 7) {
				g.icrc_seen++;
				if (!roce_icrc_check(ms[k], tpl.l3_off, tpl.bth_off, len - 4))
					g.icrc_bad++;
			}
	g.next_seq += GEN_BURST;
	g.sent += GEN_BURST;
	stk_tx_frames(lc, ifc, ms, GEN_BURST);
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
		for (unsigned r = 0; r < GEN_TPL_ROUNDS; r++)
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
		struct stk_ipaddr src;

		g.replay_started = true;
		/* an IPv6 peer that is not link-local needs our global address (the
		 * link-local one, always there, would be the wrong source) */
		if (stk_iface_src_for(ifc, &g.peer, &src) != 0 ||
		    (g.peer.family == 6 && !stk_ipv6_is_link_local(&g.peer) &&
		     ifc->ip6.family != 6)) {
			fprintf(stderr,
				"droce-gen: --replay: interface %u has no IPv%u address to "
				"send from: set ipv%s in its [port] section\n",
				g.iface, g.peer.family, g.peer.family == 4 ? "4" : "6");
			return GEN_DONE;
		}
		g.rw.src_mac = ifc->mac;
		g.rw.dst_mac = stk_iface_is_local(ifc, &g.peer) ? ifc->mac : g.peer_mac;
		g.rw.family = g.peer.family;
		if (g.peer.family == 4) {
			g.rw.src_ip = src.v4;
			g.rw.dst_ip = g.peer.v4;
		} else {
			memcpy(g.rw.src_ip6, src.v6, 16);
			memcpy(g.rw.dst_ip6, g.peer.v6, 16);
		}
		g.t0 = now;
		g.t_replay_start = now;
		if (!stk_iface_is_local(ifc, &g.peer) && !g.resolved) {
			fprintf(stderr,
				"droce-gen: --replay: the peer must be on-link (resolved by "
				"ARP or ND) or ourselves\n");
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
		g.rw_sqpn += res.sqpn;
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
		       ",\"psn_rewritten\":%" PRIu64 ",\"sqpn_rewritten\":%" PRIu64
		       ",\"loops\":%u,\"capture_malformed\":%s,\"seconds\":%.3f}\n",
		       g.rw_qpn, g.rw_rkey, g.rw_psn, g.rw_sqpn, g.replay_loops,
		       g.cap_bad ? "true" : "false",
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
		printf("; QPN rewritten %" PRIu64 ", rkey %" PRIu64 ", PSN %" PRIu64
		       ", UD source QP %" PRIu64 "%s\n",
		       g.rw_qpn, g.rw_rkey, g.rw_psn, g.rw_sqpn,
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
	if (gen_parse_args(app_argc, app_argv) != 0)
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
