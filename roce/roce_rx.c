/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_rx.c - the transport's entry from the stack (UDP 4791), on the lane whose RX queue got
 * the frame, and the handoff of frames between lanes.
 *
 * Receive path: stk_classify() -> roce_rx(): decode (roce_pkt.c), ICRC (IBA A17.3.3: a bad
 * ICRC is a silent drop, counted), find the QP by destination QPN, check the opcode suits the
 * QP type and state, then responder (requests) or completer (responses).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "roce_icrc.h"
#include "roce_psn.h"
#include "stk_stack.h"

/** One device per stack interface; the UDP 4791 hook finds it by interface index. */
struct roce_dev *roce_devs[STK_MAX_PORTS];
unsigned roce_nb_devs;

/** Set to false to reach the engines with arbitrary bytes (fuzzing). */
bool roce_icrc_enforce = true;

static void rx_qp(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		  const struct stk_pkt *p, const struct roce_pkt *rp, struct roce_qp *qp);

static void rx_frame(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		     const struct stk_pkt *p);

/* Hand @m to lane @to (with its parse results when @rp is set). Takes @m. */
static void handoff(struct roce_lane *from, struct roce_lane *to, struct rte_mbuf *m,
		    const struct stk_pkt *p, const struct roce_pkt *rp)
{
	struct roce_handoff h;

	h.m = m;
	h.p = *p;
	h.parsed = rp != NULL;
	if (rp)
		h.rp = *rp;
	if (rte_ring_mp_enqueue_elem(to->ring, &h, sizeof(h)) != 0) {
		if (from)
			from->drops[ROCE_RX_DROP_HANDOFF_FULL]++;
		else /* an lcore running no lane: a rare count, kept on the target */
			__atomic_fetch_add(&to->drops[ROCE_RX_DROP_HANDOFF_FULL], 1,
					   __ATOMIC_RELAXED);
		rte_pktmbuf_free(m);
		return;
	}
	if (from)
		from->drops[ROCE_RX_HANDOFF]++;
	else
		__atomic_fetch_add(&to->drops[ROCE_RX_HANDOFF], 1, __ATOMIC_RELAXED);
}

/* A frame another lane (or an lcore running none) handed to @lane. */
void roce_rx_handed(struct roce_lane *lane, struct stk_lcore *lc, struct roce_handoff *h)
{
	struct roce_qp *qp;

	if (!h->parsed) {
		rx_frame(lane, lc, h->m, &h->p);
		return;
	}
	/* looked up again by number: the QP may have been destroyed or moved meanwhile */
	qp = roce_qp_by_num(lane->dev, h->rp.dqpn);
	if (!qp) {
		lane->drops[ROCE_RX_DROP_NO_QP]++;
		rte_pktmbuf_free(h->m);
		return;
	}
	if (roce_qp_lane(qp) != lane) {
		handoff(lane, roce_qp_lane(qp), h->m, &h->p, &h->rp);
		return;
	}
	rx_qp(lane, lc, h->m, &h->p, &h->rp, qp);
}

int roce_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
	    const struct stk_pkt *p, void *arg)
{
	struct roce_dev *dev = roce_devs[ifc->idx];
	struct roce_lane *lane;
	(void)arg;

	if (!dev)
		return -1; /* the stack counts it */
	lane = roce_lane_of(dev, lc->lcore_id);
	if (unlikely(!lane)) {
		/* RSS put it on an lcore that runs none of the device's lanes: the primary
		 * decodes it. Before the first poll no lcore owns a one-lane device yet, and
		 * none may run the engines alongside the others: the frame waits in the ring for
		 * the first lcore that polls the device (issue 11, confirm list). */
		handoff(NULL, &dev->lane[0], m, p, NULL);
		return 0;
	}
	lane->in_engine = true;
	rx_frame(lane, lc, m, p);
	lane->in_engine = false;
	return 0;
}

/* DCQCN notification point: a request arrived with CE; tell its sender (Annex A17.9.3:
 * CNP to the sending QP, BECN set), at most once per cnp_interval per QP. */
static void send_cnp(struct roce_dev *dev, struct roce_qp *qp, struct stk_lcore *lc)
{
	struct roce_tx t;

	if (!roce_dcqcn_np_may_cnp(&qp->last_cnp, &dev->cc, rte_get_tsc_hz(), rte_get_tsc_cycles()))
		return;
	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_CNP;
	t.dqpn = qp->attr.dest_qp_num;
	t.becn = true;
	if (roce_qp_xmit(qp, lc, &t, NULL, 0, NULL) == 0)
		qp->cnt[ROCE_QPC_cnp_tx]++;
}

/*
 * P_Key matching (IBTA 10.9.3): the low 15 bits (the partition) are equal and at least one of
 * the two keys is a full member (bit 15); the invalid keys 0x0000 and 0x8000 never match.
 */
static bool pkey_match(uint16_t a, uint16_t b)
{
	if ((a & 0x7fff) == 0 || (a & 0x7fff) != (b & 0x7fff))
		return false;
	return ((a | b) & 0x8000) != 0;
}

/*
 * Is @rp for connected QP @qp from its peer? IBTA 9.6.1 (transport header validation): a
 * packet for an RC or UC QP whose source does not match the QP's destination address, or
 * whose P_Key does not match the QP's (droce's P_Key table holds only the default key, index
 * 0), is dropped silently. RoCEv2 puts the source GID in the IP source address (Annex A17.4), so that is what
 * is compared, as rxe's check_addr() does for IPv4 and IPv6 alike; rxe's check_keys() does the
 * P_Key. A QP before RTR has no peer yet, and UD and QP1 take any source (their Q_Key rule is
 * in the responder). Counts the drop by reason.
 */
static bool from_peer(const struct roce_qp *qp, const struct stk_pkt *p, const struct roce_pkt *rp,
		      struct roce_lane *lane)
{
	if ((qp->type != ROCE_QPT_RC && qp->type != ROCE_QPT_UC) || qp->state < ROCE_QPS_RTR)
		return true;
	if (!stk_ipaddr_eq(&p->src, &qp->attr.ah_attr.dgid_ip)) {
		lane->drops[ROCE_RX_DROP_PEER_ADDR]++;
		return false;
	}
	if (!pkey_match(roce_bth_pkey(rp->bth), ROCE_DEFAULT_PKEY)) {
		lane->drops[ROCE_RX_DROP_PKEY]++;
		return false;
	}
	return true;
}

/* A RoCE frame on lane @lane's lcore: decode, ICRC, find the QP; then process it here, or hand
 * it with the parse results to the lane that runs the QP. Takes @m. */
static void rx_frame(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		     const struct stk_pkt *p)
{
	struct roce_pkt rp;
	struct roce_lane *owner;
	struct roce_qp *qp;

	if (roce_pkt_parse(m, p, &rp) != 0) {
		lane->drops[ROCE_RX_DROP_DECODE]++;
		lane->decode_drops[rp.drop]++;
		goto drop;
	}
	if (roce_icrc_enforce &&
	    !roce_icrc_check(m, p->l3_off, rp.bth_off, rp.payload_off + rp.payload_len + rp.pad)) {
		lane->drops[ROCE_RX_DROP_ICRC]++;
		goto drop;
	}
	qp = roce_qp_by_num(lane->dev, rp.dqpn);
	if (!qp) {
		lane->drops[ROCE_RX_DROP_NO_QP]++;
		goto drop;
	}
	owner = roce_qp_lane(qp);
	if (owner != lane) {
		handoff(lane, owner, m, p, &rp);
		return;
	}
	rx_qp(lane, lc, m, p, &rp, qp);
	return;
drop:
	rte_pktmbuf_free(m);
}

/* A decoded frame for @qp, on the lane that runs it: checks against the QP, then the responder
 * (requests) or the completer (responses). Takes @m. */
static void rx_qp(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		  const struct stk_pkt *p, const struct roce_pkt *rp, struct roce_qp *qp)
{
	struct roce_dev *dev = lane->dev;

	/* a safe point between frames: a QP whose CQ went to error fails before it takes more */
	roce_lane_fail_pending(lane);
	if (unlikely(qp->released))
		goto drop; /* being destroyed from another lcore */
	if (!from_peer(qp, p, rp, lane))
		goto drop; /* before a CNP, a CE mark or a PSN can act on the QP */
	if (rp->opcode == ROCE_OP_CNP) {
		/* DCQCN reaction point: a notification point saw our packets marked */
		qp->cnt[ROCE_QPC_cnp_rx]++;
		if (qp->cc)
			roce_dcqcn_rp_cnp(&qp->rp, rte_get_tsc_cycles());
		goto drop;
	}
	if ((qp->type == ROCE_QPT_RC && !(rp->op->flags & ROCE_OPF_RC)) ||
	    (qp->type == ROCE_QPT_UC && !(rp->op->flags & ROCE_OPF_UC)) ||
	    (qp->type == ROCE_QPT_UD && !(rp->op->flags & ROCE_OPF_UD))) {
		lane->drops[ROCE_RX_DROP_QP_TYPE]++;
		goto drop;
	}
	/* IBA 10.3.1: RTR and later receive; RESET and INIT drop silently */
	if (qp->state < ROCE_QPS_RTR || qp->state == ROCE_QPS_ERR) {
		lane->drops[ROCE_RX_DROP_QP_STATE]++;
		goto drop;
	}
	qp->cnt[ROCE_QPC_rx_pkts]++;
	roce_qp_ran_on(qp, lc->lcore_id);
	if ((p->tos & 3) == 3 && dev->cc_on && qp->type != ROCE_QPT_UD &&
	    (rp->op->flags & ROCE_OPF_REQ))
		send_cnp(dev, qp, lc);
	if (rp->op->flags & ROCE_OPF_REQ)
		roce_responder_rx(qp, lc, m, rp);
	else
		roce_completer_rx(qp, lc, m, rp);
	return;
drop:
	rte_pktmbuf_free(m);
}
