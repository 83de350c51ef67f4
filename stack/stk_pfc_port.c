/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pfc_port.c - software PFC on an lcore's port paths (stk_pfc_port.h): honouring received
 * PFC frames on TX with per-priority hold FIFOs, sharing them with the other lcores, and
 * generating XOFF/XON from the receive backlog. IEEE 802.1Qbb clause 36.
 *
 * Multi-lcore: each lcore owns one TX queue and one RX queue of the port. A received pause
 * applies to the port, so the lcore that received it tells the others (ctrl ring, with the
 * receive TSC, common to all lcores). Generation is per lcore: each lcore watches only its own
 * RX queue and its own reported backlog and sends its own XOFF/XON; the peer sees the port's
 * PFC state as the last frame any lcore sent, so one lcore's XON can lift a pause another
 * still wants until that one's next refresh (at most half the pause time later).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "stk_ctrl.h"
#include "stk_log.h"
#include "stk_pfc_port.h"
#include "stk_stack.h"

#define LINK_BPS_DEFAULT 100000000000ull /* 100 Gbit/s: virtual PMDs report no speed */

_Static_assert((STK_PFC_HOLD_MAX & (STK_PFC_HOLD_MAX - 1)) == 0, "hold FIFO size: power of 2");

int stk_pfc_attach(struct stk_lcore *lc)
{
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);

	for (uint16_t i = 0; i < stk_iface_count() && i < STK_MAX_PORTS; i++) {
		const struct stk_iface *ifc = stk_iface_get(i);
		struct stk_pfc_port *pp;
		uint16_t quanta;

		if (ifc->pfc_mode != STK_PFC_MODE_SW || lc->pfc[i])
			continue;
		pp = rte_zmalloc_socket("stk_pfc", sizeof(*pp), RTE_CACHE_LINE_SIZE, socket);
		if (!pp)
			return -ENOMEM;
		pp->hz = rte_get_tsc_hz();
		pp->link_bps = ifc->link_bps ? ifc->link_bps : LINK_BPS_DEFAULT;
		pp->prios = ifc->pfc_prios ? ifc->pfc_prios : (uint8_t)(1u << ifc->qos.roce_prio);
		quanta = ifc->pfc_quanta ? ifc->pfc_quanta : UINT16_MAX;
		pp->gen.xoff_at = ifc->pfc_xoff;
		/* hysteresis needs xon < xoff; the config checks it, hand-built ifaces may not */
		pp->gen.xon_at = ifc->pfc_xon < ifc->pfc_xoff
					 ? ifc->pfc_xon
					 : (ifc->pfc_xoff ? ifc->pfc_xoff - 1 : 0);
		pp->gen.quanta = quanta;
		pp->gen.refresh = stk_pfc_refresh_tsc(quanta, pp->hz, pp->link_bps);
		if (ifc->pfc_wd_ms != STK_PFC_WD_OFF) {
			uint32_t d = ifc->pfc_wd_ms ? ifc->pfc_wd_ms : STK_PFC_WD_DEFAULT_MS;
			uint32_t r = ifc->pfc_wd_restore_ms ? ifc->pfc_wd_restore_ms : d;

			pp->wd_detect = (uint64_t)d * pp->hz / 1000;
			pp->wd_restore = (uint64_t)r * pp->hz / 1000;
		}
		lc->pfc[i] = pp;
		lc->nb_pfc++;
	}
	return 0;
}

void stk_pfc_detach(struct stk_lcore *lc)
{
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		struct stk_pfc_port *pp = lc->pfc[i];

		if (!pp)
			continue;
		for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
			struct stk_pfc_hold *h = &pp->hold[p];

			for (uint32_t k = 0; k < h->count; k++)
				rte_pktmbuf_free(h->q[(h->head + k) & (STK_PFC_HOLD_MAX - 1)]);
		}
		rte_free(pp);
		lc->pfc[i] = NULL;
	}
	lc->nb_pfc = 0;
}

unsigned stk_pfc_frame_prio(const struct stk_iface *ifc, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t len = rte_pktmbuf_data_len(m), off = sizeof(*eh);
	rte_be16_t et;

	if (m->ol_flags & RTE_MBUF_F_TX_VLAN)
		return m->vlan_tci >> 13;
	if (len < sizeof(*eh))
		return 0;
	et = eh->ether_type;
	if (et == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eh + 1);

		if (len < sizeof(*eh) + sizeof(*vh))
			return 0;
		return rte_be_to_cpu_16(vh->vlan_tci) >> 13; /* 802.1Q 9.6: PCP, DEI, VID */
	}
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= off + sizeof(struct rte_ipv4_hdr)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);

		return ifc->qos.dscp_prio[ip->type_of_service >> 2];
	}
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV6) && len >= off + sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eh + 1);
		uint32_t tc = (rte_be_to_cpu_32(ip->vtc_flow) >> 20) & 0xff;

		return ifc->qos.dscp_prio[tc >> 2];
	}
	return 0;
}

bool stk_pfc_tx_hold(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_pfc_port *pp = lc->pfc[ifc->idx];
	unsigned prio = stk_pfc_frame_prio(ifc, m);
	struct stk_pfc_hold *h = &pp->hold[prio];

	/* order within a priority is kept: once one waits, the ones after it wait too */
	if (h->count == 0 && (pp->rx.paused_until[prio] == 0 ||
			      !stk_pfc_paused(&pp->rx, prio, rte_get_tsc_cycles())))
		return false;
	if (rte_pktmbuf_data_len(m) >= sizeof(struct rte_ether_hdr) &&
	    rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		    RTE_BE16(STK_PFC_ETHERTYPE))
		return false; /* MAC Control is not subject to PFC */
	if (h->count >= STK_PFC_HOLD_MAX) {
		stk_count_drop(lc, ifc->idx, STK_DROP_PFC_HOLD_FULL);
		rte_pktmbuf_free(m);
		return true;
	}
	h->q[(h->head + h->count) & (STK_PFC_HOLD_MAX - 1)] = m;
	h->count++;
	pp->held |= (uint8_t)(1u << prio);
	lc->stats[ifc->idx].c[STK_CNT_pfc_held]++;
	return true;
}

/* bit p of [iface]: a storm on priority p has been logged and not yet ended (one log line per
 * episode, though every lcore's TX queue sees the storm) */
static uint8_t storm_logged[STK_MAX_PORTS];

/*
 * The PFC storm watchdog, as NICs have it (mlx5's PFC stall prevention, SONiC's pfcwd; IEEE
 * 802.1Qbb defines none): a peer that keeps a priority paused without a break for wd_detect
 * (XOFF refreshed before it runs out, forever) would stop it forever. Then the priority is in
 * a storm: its pause ends now, so held frames go out, and pauses on it are ignored
 * (stk_pfc_rx_apply()) until the peer has sent no XOFF for wd_restore. One counter and one
 * log line per episode.
 */
static void watchdog(struct stk_lcore *lc, uint16_t iface, struct stk_pfc_port *pp, uint64_t now)
{
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
		uint8_t bit = (uint8_t)(1u << p);

		if (pp->storm & bit) {
			if (now - pp->last_xoff[p] >= pp->wd_restore) {
				pp->storm &= (uint8_t)~bit;
				pp->paused_since[p] = 0;
				__atomic_fetch_and(&storm_logged[iface], (uint8_t)~bit,
						   __ATOMIC_RELAXED);
			}
			continue;
		}
		if (!pp->paused_since[p])
			continue;
		if (!stk_pfc_paused(&pp->rx, p, now)) {
			pp->paused_since[p] = 0; /* the pause ended: no storm */
			continue;
		}
		if (now - pp->paused_since[p] < pp->wd_detect)
			continue;
		pp->storm |= bit;
		pp->rx.paused_until[p] = 0;
		lc->stats[iface].c[STK_CNT_pfc_storms]++;
		if (!(__atomic_fetch_or(&storm_logged[iface], bit, __ATOMIC_RELAXED) & bit))
			STK_LOG(WARNING,
				"%s: PFC storm on priority %u: paused for %lu ms without a break; "
				"pauses on it are ignored until the peer stops for %lu ms",
				stk_iface_get(iface)->name, p,
				(unsigned long)((now - pp->paused_since[p]) * 1000 / pp->hz),
				(unsigned long)(pp->wd_restore * 1000 / pp->hz));
	}
}

unsigned stk_pfc_tx_release(struct stk_lcore *lc, uint64_t now)
{
	unsigned released = 0;

	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		struct stk_pfc_port *pp = lc->pfc[i];
		const struct stk_iface *ifc;

		if (!pp)
			continue;
		if (pp->wd_detect)
			watchdog(lc, i, pp, now);
		/* an expired pause is forgotten, so that stk_pfc_tx_hold() skips the clock */
		for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
			if (pp->rx.paused_until[p] && now >= pp->rx.paused_until[p])
				pp->rx.paused_until[p] = 0;
		if (!pp->held)
			continue;
		ifc = stk_iface_get(i);
		for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
			struct stk_pfc_hold *h = &pp->hold[p];
			unsigned n;

			if (!(pp->held & (1u << p)) || stk_pfc_paused(&pp->rx, p, now))
				continue;
			n = RTE_MIN(h->count, (uint32_t)STK_PFC_RELEASE_BURST);
			for (unsigned k = 0; k < n; k++) {
				struct rte_mbuf *m = h->q[h->head];

				h->head = (h->head + 1) & (STK_PFC_HOLD_MAX - 1);
				h->count--;
				stk_tx_enqueue(lc, ifc, m);
			}
			if (h->count == 0)
				pp->held &= (uint8_t) ~(1u << p);
			released += n;
		}
	}
	return released;
}

bool stk_pfc_tx_paused(const struct stk_lcore *lc, uint16_t iface, unsigned prio, uint64_t now)
{
	const struct stk_pfc_port *pp = iface < STK_MAX_PORTS ? lc->pfc[iface] : NULL;

	if (!pp || prio >= STK_PFC_PRIOS)
		return false;
	return stk_pfc_paused(&pp->rx, prio, now) || pp->hold[prio].count != 0;
}

void stk_pfc_report_backlog(struct stk_lcore *lc, uint16_t iface, uint32_t frames)
{
	if (iface < STK_MAX_PORTS && lc->pfc[iface])
		lc->pfc[iface]->reported = frames;
}

void stk_pfc_rx_apply(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_pfc *pfc,
		      uint64_t tsc)
{
	struct stk_pfc_port *pp = lc->pfc[ifc->idx];

	if (!pp)
		return;
	stk_pfc_apply(&pp->rx, pfc, tsc, pp->hz, pp->link_bps);
	if (!pp->wd_detect)
		return;
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
		if (!(pfc->class_enable & (1u << p)))
			continue;
		if (!pfc->quanta[p]) {
			pp->paused_since[p] = 0; /* XON: the pause has a break */
			continue;
		}
		pp->last_xoff[p] = tsc;
		if (pp->storm & (1u << p)) {
			pp->rx.paused_until[p] = 0; /* the watchdog's storm: not honoured */
			lc->stats[ifc->idx].c[STK_CNT_pfc_storm_ignored]++;
		} else if (!pp->paused_since[p]) {
			pp->paused_since[p] = tsc;
		}
	}
}

void stk_pfc_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];
	uint8_t buf[sizeof(struct rte_ether_hdr) + sizeof(struct stk_pfc_body)];
	const uint8_t *d = rte_pktmbuf_read(m, 0, sizeof(buf), buf);
	uint64_t now = rte_get_tsc_cycles();
	struct stk_pfc pfc;
	bool xoff = false, xon = false;
	int rc;

	rc = d ? stk_pfc_decode(d, sizeof(buf), &pfc) : -EMSGSIZE;
	if (rc == -EPROTO &&
	    ((const struct rte_ether_hdr *)d)->ether_type == RTE_BE16(STK_PFC_ETHERTYPE) &&
	    ((const struct stk_pfc_body *)(d + sizeof(struct rte_ether_hdr)))->opcode ==
		    RTE_BE16(STK_PAUSE_OPCODE)) {
		/* 802.3x pauses every priority, lossless or not: RoCE setups run PFC instead */
		st->c[STK_CNT_pause_ignored]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (rc != 0) {
		stk_count_drop(lc, ifc->idx, STK_DROP_PFC_BAD);
		STK_LOG_RL(DEBUG, "port %u: malformed MAC Control frame (%d)", ifc->port_id, rc);
		rte_pktmbuf_free(m);
		return;
	}
	if (!lc->pfc[ifc->idx]) {
		stk_count_drop(lc, ifc->idx, STK_DROP_PFC_OFF);
		rte_pktmbuf_free(m);
		return;
	}
	stk_pfc_rx_apply(lc, ifc, &pfc, now);
	stk_ctrl_publish_pfc(lc, ifc->idx, &pfc, now);
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
		if (!(pfc.class_enable & (1u << p)))
			continue;
		if (pfc.quanta[p])
			xoff = true;
		else
			xon = true;
	}
	st->c[STK_CNT_pfc_rx]++;
	st->c[STK_CNT_pfc_rx_xoff] += xoff;
	st->c[STK_CNT_pfc_rx_xon] += xon;
	rte_pktmbuf_free(m);
}

/* One PFC frame, straight onto this lcore's TX queue: not held, not impaired, not buffered
 * behind data. @return 0 or -ENOBUFS (no mbuf, or the queue is full). */
static int send_pfc(struct stk_lcore *lc, const struct stk_iface *ifc,
		    const struct stk_pfc_port *pp, bool xoff)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];
	struct stk_pfc pfc = {.class_enable = pp->prios};
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);
	void *buf;

	if (!m) {
		stk_count_drop(lc, ifc->idx, STK_DROP_NO_MBUF);
		return -ENOBUFS;
	}
	buf = rte_pktmbuf_append(m, STK_PFC_FRAME_LEN);
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
		pfc.quanta[p] = xoff ? pp->gen.quanta : 0;
	if (!buf || stk_pfc_encode(&ifc->mac, &pfc, buf, STK_PFC_FRAME_LEN) < 0) {
		rte_pktmbuf_free(m);
		stk_count_drop(lc, ifc->idx, STK_DROP_NO_MBUF);
		return -ENOBUFS;
	}
	if (rte_eth_tx_burst(ifc->port_id, (uint16_t)lc->index, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		stk_count_drop(lc, ifc->idx, STK_DROP_TX_FULL);
		return -ENOBUFS;
	}
	st->c[STK_CNT_tx_pkts]++;
	st->c[STK_CNT_tx_bytes] += STK_PFC_FRAME_LEN;
	st->c[xoff ? STK_CNT_pfc_tx_xoff : STK_CNT_pfc_tx_xon]++;
	return 0;
}

/* The backlog of @lc's RX queue on @ifc and the reported one, whichever is larger. */
static uint32_t backlog(struct stk_lcore *lc, const struct stk_iface *ifc, struct stk_pfc_port *pp)
{
	uint32_t b = pp->reported;
	int n;

	if (pp->rxq_count < 0)
		return b;
	n = rte_eth_rx_queue_count(ifc->port_id, (uint16_t)lc->index);
	if (n >= 0) {
		pp->rxq_count = 1;
		return RTE_MAX(b, (uint32_t)n);
	}
	if (pp->rxq_count == 0) {
		/* probed once: -ENOTSUP (most virtual PMDs) means only reports count */
		pp->rxq_count = -1;
		STK_LOG(INFO,
			"%s: lcore %u: RX queue fill not available (%s): PFC uses the "
			"reported backlog only",
			ifc->name, lc->lcore_id, rte_strerror(-n));
	}
	return b;
}

unsigned stk_pfc_generate(struct stk_lcore *lc, uint64_t now)
{
	unsigned sent = 0;

	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		struct stk_pfc_port *pp = lc->pfc[i];
		const struct stk_iface *ifc;
		struct stk_pfc_gen *g;
		enum stk_pfc_action a;
		bool was_sent;

		if (!pp || pp->gen.xoff_at == 0)
			continue;
		ifc = stk_iface_get(i);
		g = &pp->gen;
		was_sent = g->xoff_sent;
		a = stk_pfc_gen_step(g, backlog(lc, ifc, pp), now);
		if (a == STK_PFC_NONE)
			continue;
		if (send_pfc(lc, ifc, pp, a == STK_PFC_SEND_XOFF) == 0) {
			sent++;
			continue;
		}
		/* not sent: undo the step so that the next iteration tries again */
		if (a == STK_PFC_SEND_XOFF) {
			g->xoff_frames--;
			g->xoff_sent = was_sent;
			g->last_xoff = now - g->refresh;
		} else {
			g->xon_frames--;
			g->xoff_sent = true;
		}
	}
	return sent;
}
