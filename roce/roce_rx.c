/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_rx.c - the transport's entry from the stack (UDP 4791) and the helpers its engines
 * share: transmit one packet, fatal errors, IBA timer values, the per-device poll.
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

/* Zero-copy payloads point into the application's registered memory, which it owns: nothing
 * to free when the last packet referencing it is gone. */
void roce_zc_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

void roce_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst)
{
	uint8_t *d = dst;

	for (; m && len; m = m->next) {
		uint32_t n;

		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		n = RTE_MIN(len, (uint32_t)m->data_len - off);
		memcpy(d, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		d += n;
		len -= n;
		off = 0;
	}
}

void roce_sge_scatter(const struct roce_sge *sge, uint32_t nsge, const struct rte_mbuf *m,
		      uint32_t off, uint32_t len, uint32_t at)
{
	for (uint32_t i = 0; i < nsge && len; i++) {
		uint32_t n;

		if (at >= sge[i].length) {
			at -= sge[i].length;
			continue;
		}
		n = RTE_MIN(len, sge[i].length - at);
		roce_mbuf_copy_out(m, off, n, (void *)(uintptr_t)(sge[i].addr + at));
		off += n;
		len -= n;
		at = 0;
	}
}

bool roce_sge_writable(const struct roce_qp *qp, const struct roce_sge *sge, uint32_t nsge,
		       uint32_t at, uint32_t len)
{
	for (uint32_t i = 0; i < nsge && len; i++) {
		enum roce_key_err why;
		uint32_t n;

		if (at >= sge[i].length) {
			at -= sge[i].length;
			continue;
		}
		n = RTE_MIN(len, sge[i].length - at);
		if (!roce_mr_lookup(qp->pd->dev, sge[i].lkey, false, qp->pd, sge[i].addr + at, n,
				    ROCE_ACCESS_LOCAL_WRITE, &why))
			return false;
		len -= n;
		at = 0;
	}
	return true;
}

uint64_t roce_exp_tsc(unsigned exp)
{
	return (uint64_t)((double)rte_get_tsc_hz() * 4.096e-6 *
			  (double)(1ull << (exp > 31 ? 31 : exp)));
}

uint64_t roce_timeout_tsc(uint8_t timeout)
{
	return timeout ? roce_exp_tsc(timeout) : 0; /* 0: infinite */
}

uint64_t roce_rnr_tsc(uint8_t code)
{
	/* IBA Table 45 "RNR NAK timer field encoding", in units of 10 us: code 1 is 0.01 ms,
	 * code 12 is 0.64 ms, code 31 is 491.52 ms, and code 0 means 655.36 ms */
	static const uint32_t units[32] = {
		65536, 1,    2,	   3,	 4,    6,     8,     12,    16,	   24,	  32,
		48,    64,   96,   128,	 192,  256,   384,   512,   768,   1024,  1536,
		2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)units[code & 31] * rte_get_tsc_hz() / 100000;
}

int roce_qp_xmit(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t, const void *payload,
		 uint32_t len, struct roce_mr *zc)
{
	return roce_qp_xmit_to(qp, lc, t, payload, len, zc, &qp->attr.ah_attr);
}

int roce_qp_xmit_to(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t,
		    const void *payload, uint32_t len, struct roce_mr *zc,
		    const struct roce_path *path)
{
	const struct stk_iface *ifc = stk_iface_get(qp->pd->dev->iface);
	unsigned lane = roce_qp_lane(qp)->idx; /* whose count on the region the frame holds */
	uint64_t iova = 0;
	struct rte_mbuf *m;
	int rc;

	t->path = path;
	t->lqpn = qp->qpn;
	/* the IOVA registration resolved; bytes across pages of non-contiguous IOVAs: copied */
	if (unlikely(roce_iova_per_packet)) {
		m = roce_tx_build(lc->pool, ifc, t, payload, len, zc ? &zc->zc[lane].s : NULL);
	} else {
		if (zc && len && !roce_mr_dma(zc, payload, len, &iova))
			zc = NULL;
		m = roce_tx_build_iova(lc->pool, ifc, t, payload, len, zc ? &zc->zc[lane].s : NULL,
				       iova);
	}
	if (!m) {
		qp->cnt[ROCE_QPC_tx_failed]++; /* no mbuf: go-back-N or a timeout resends it */
		return -ENOMEM;
	}
	rc = stk_ip_send(lc, ifc, m, &path->dgid_ip);
	if (rc != 0) {
		/* no route, or the neighbour's pending queue is full while ARP/ND runs */
		rte_pktmbuf_free(m);
		qp->cnt[ROCE_QPC_tx_failed]++;
	} else {
		qp->cnt[ROCE_QPC_tx_pkts]++;
	}
	return rc;
}

void roce_qp_fatal(struct roce_qp *qp, enum roce_wc_status status)
{
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

	if (qp->sq.tail != qp->sq.head) {
		const struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);
		struct roce_wc wc = {.wr_id = e->wr.wr_id, .status = status};

		roce_qp_complete(qp, qp->init.send_cq, &wc);
		qp->sq.tail++;
	}
	/* the completion carries the cause; the event tells an event-driven consumer (svcrdma's
	 * QP event handler closes the transport on it) without its polling every status.
	 * IBA 10.10.2.3 asks an affiliated error only where no completion can carry one; droce
	 * raises it for every engine failure, as the issue asks */
	if (qp->state != ROCE_QPS_ERR)
		roce_event_raise(qp->pd->dev, ROCE_EVENT_QP_FATAL, qp);
	roce_modify_qp(qp, &a, ROCE_QP_STATE); /* flushes what is left */
}

void roce_qp_engine_rtr(struct roce_qp *qp)
{
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.psn = qp->attr.rq_psn;
	/* polled from RTR on: a responder answers READs before its QP reaches RTS */
	roce_lane_link(qp);
}

void roce_qp_engine_rts(struct roce_qp *qp)
{
	struct roce_dev *dev = qp->pd->dev;

	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	qp->req.psn = qp->attr.sq_psn;
	qp->req.high_psn = qp->attr.sq_psn;
	qp->req.cwnd = ROCE_CWND_INIT;
	qp->req.ssthresh = ROCE_CWND_MAX;
	qp->cc = dev->cc_on && qp->type != ROCE_QPT_UD;
	if (qp->cc) {
		roce_dcqcn_rp_init(&qp->rp, &dev->cc, rte_get_tsc_hz(), rte_get_tsc_cycles());
		if (qp->attr.ah_attr.ecn == 0)
			qp->attr.ah_attr.ecn =
				2; /* ECT(0): switches may mark it instead of dropping */
	}
	qp->req.cur = qp->sq.tail;
	qp->comp.psn = qp->attr.sq_psn;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	roce_lane_link(qp);
	/* set up on the primary lane (the CM's); from here on it runs on its home lane */
	roce_lane_go_home(qp);
}

void roce_qp_engine_stop(struct roce_qp *qp)
{
	roce_lane_unlink(qp);
}

static void rx_qp(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		  const struct stk_pkt *p, const struct roce_pkt *rp, struct roce_qp *qp);
static void rx_frame(struct roce_lane *lane, struct stk_lcore *lc, struct rte_mbuf *m,
		     const struct stk_pkt *p);

static struct roce_qp *find_qp(struct roce_dev *dev, uint32_t qpn)
{
	if (qpn == ROCE_GSI_QPN)
		return __atomic_load_n(&dev->gsi, __ATOMIC_ACQUIRE);
	if (qpn < ROCE_FIRST_QPN || qpn >= ROCE_FIRST_QPN + ROCE_MAX_QP)
		return NULL;
	return __atomic_load_n(&dev->qps[qpn - ROCE_FIRST_QPN], __ATOMIC_ACQUIRE);
}

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
static void rx_handed(struct roce_lane *lane, struct stk_lcore *lc, struct roce_handoff *h)
{
	struct roce_qp *qp;

	if (!h->parsed) {
		rx_frame(lane, lc, h->m, &h->p);
		return;
	}
	/* looked up again by number: the QP may have been destroyed or moved meanwhile */
	qp = find_qp(lane->dev, h->rp.dqpn);
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

void roce_dev_poll(struct roce_dev *dev, struct stk_lcore *lc)
{
	uint64_t now = rte_get_tsc_cycles();
	struct roce_handoff in[32];
	struct roce_lane *lane;
	unsigned n;

	/* the lane this lcore runs; an lcore that runs none of the device's touches nothing */
	lane = roce_lane_enter(dev, lc->lcore_id);
	if (!lane)
		return;
	/* from here to the event handler the engines and the CM run: a post made meanwhile (a
	 * CM event handler's) rings the doorbell instead of running the requester inside them */
	lane->in_engine = true;
	/* every QP's requester gets a new burst; other lanes read it (destroy's grace period) */
	__atomic_store_n(&lane->poll_epoch, lane->poll_epoch + 1, __ATOMIC_RELEASE);
	if (unlikely(!rte_ring_empty(lane->cmd)))
		roce_lane_run_cmds(lane);
	n = rte_ring_sc_dequeue_burst_elem(lane->ring, in, sizeof(in[0]), RTE_DIM(in), NULL);
	/* the responder's receive backlog (frames other lcores handed over, not yet processed)
	 * drives PFC XOFF/XON generation on a software-PFC port, with the RX queue's fill */
	if (unlikely(stk_iface_get(dev->iface)->pfc_mode == STK_PFC_MODE_SW))
		stk_pfc_report_backlog(lc, dev->iface, n + rte_ring_count(lane->ring));
	for (unsigned i = 0; i < n; i++)
		rx_handed(lane, lc, &in[i]);
	if (lane->idx == 0 && unlikely(now >= dev->link_next))
		roce_dev_link_check(dev, now);
	/* safe points: QPs whose CQ went to error (control-path flushes, the last poll) fail
	 * here, and again between one QP's engines (a completion lost by the responder or
	 * completer stops the requester before it sends more) */
	roce_lane_fail_pending(lane);
	for (struct roce_qp *qp = lane->polled; qp; qp = qp->next_polled) {
		roce_qp_ran_on(qp, lc->lcore_id);
		if (qp->resp.rq_count && qp->state >= ROCE_QPS_RTR && qp->state != ROCE_QPS_ERR)
			roce_responder_run(qp, lc);
		if (qp->state != ROCE_QPS_RTS)
			continue;
		if (qp->cc)
			roce_dcqcn_rp_tick(&qp->rp, now);
		roce_completer_tick(qp, lc, now);
		roce_lane_fail_pending(lane);
		if (qp->state == ROCE_QPS_RTS)
			roce_requester_run(qp, lc, now);
	}
	roce_lane_fail_pending(lane);
	if (lane->idx == 0 && dev->cm)
		roce_cm_tick(dev->cm, now);
	lane->in_engine = false;
	/* the consumer's handler runs last, outside every engine */
	if (dev->ev_fn && lane->ev_tail != lane->ev_head)
		roce_event_dispatch(lane);
	/* QPs that reached RTS here (the CM's, the handler's) go home once all are done */
	if (unlikely(lane->moving != NULL))
		roce_lane_run_moves(lane);
}

void roce_poll(struct stk_lcore *lc, void *dev)
{
	roce_dev_poll(dev, lc);
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
	qp = find_qp(lane->dev, rp.dqpn);
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
		  const struct stk_pkt *p, const struct roce_pkt *rpp, struct roce_qp *qp)
{
	struct roce_dev *dev = lane->dev;
	struct roce_pkt rp = *rpp;

	/* a safe point between frames: a QP whose CQ went to error fails before it takes more */
	roce_lane_fail_pending(lane);
	if (unlikely(qp->released))
		goto drop; /* being destroyed from another lcore */
	if (!from_peer(qp, p, &rp, lane))
		goto drop; /* before a CNP, a CE mark or a PSN can act on the QP */
	if (rp.opcode == ROCE_OP_CNP) {
		/* DCQCN reaction point: a notification point saw our packets marked */
		qp->cnt[ROCE_QPC_cnp_rx]++;
		if (qp->cc)
			roce_dcqcn_rp_cnp(&qp->rp, rte_get_tsc_cycles());
		goto drop;
	}
	if ((qp->type == ROCE_QPT_RC && !(rp.op->flags & ROCE_OPF_RC)) ||
	    (qp->type == ROCE_QPT_UC && !(rp.op->flags & ROCE_OPF_UC)) ||
	    (qp->type == ROCE_QPT_UD && !(rp.op->flags & ROCE_OPF_UD))) {
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
	    (rp.op->flags & ROCE_OPF_REQ))
		send_cnp(dev, qp, lc);
	if (rp.op->flags & ROCE_OPF_REQ)
		roce_responder_rx(qp, lc, m, &rp);
	else
		roce_completer_rx(qp, lc, m, &rp);
	return;
drop:
	rte_pktmbuf_free(m);
}

int roce_dev_set_cc(struct roce_dev *dev, const struct roce_dcqcn_params *p)
{
	if (!dev || (p && (p->line_gbps <= 0 || p->min_gbps <= 0 || p->min_gbps > p->line_gbps ||
			   p->g <= 0 || p->g >= 1 || p->f == 0 || p->timer_us == 0 ||
			   p->alpha_us == 0 || p->byte_counter == 0)))
		return -EINVAL;
	dev->cc_on = p != NULL;
	if (p)
		dev->cc = *p;
	return 0;
}

void roce_qp_cc_info(const struct roce_qp *qp, struct roce_qp_cc_info *i)
{
	memset(i, 0, sizeof(*i));
	i->on = qp->cc;
	i->cnp_rx = qp->cnt[ROCE_QPC_cnp_rx];
	i->cnp_tx = qp->cnt[ROCE_QPC_cnp_tx];
	if (qp->cc) {
		i->stage = qp->rp.stage;
		i->rate_gbps = qp->rp.rc;
		i->target_gbps = qp->rp.rt;
		i->alpha = qp->rp.alpha;
	}
}
