/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_poll.c - the device poll, once per lcore loop on each lane: queued commands, the frames
 * other lanes handed over, the link (primary), every QP the lane runs (responder backlog,
 * DCQCN, timers, requester), the CM (primary), the event handler, then the QPs that go home.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "stk_stack.h"

extern int roce_logtype;

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
	if (likely(lane->last_poll_tsc != 0)) {
		uint64_t gap = now - lane->last_poll_tsc;

		if (unlikely(gap >= dev->gap_tsc))
			lane->gaps_10ms++;
		if (unlikely(gap > lane->max_gap_tsc)) {
			lane->max_gap_tsc = gap;
			/* a new longest stall past 100 ms is worth a line: at most a few */
			if (gap >= 10 * dev->gap_tsc)
				rte_log(RTE_LOG_WARNING, roce_logtype,
					"roce: lane %u (lcore %u) went %llu ms without a poll: its "
					"QPs' peers see that as loss\n",
					lane->idx, lane->lcore,
					(unsigned long long)(gap * 1000 / rte_get_tsc_hz()));
		}
	}
	lane->last_poll_tsc = now;
	if (unlikely(!rte_ring_empty(lane->cmd)))
		roce_lane_run_cmds(lane);
	n = rte_ring_sc_dequeue_burst_elem(lane->ring, in, sizeof(in[0]), RTE_DIM(in), NULL);
	/* the responder's receive backlog (frames other lcores handed over, not yet processed)
	 * drives PFC XOFF/XON generation on a software-PFC port, with the RX queue's fill */
	if (unlikely(stk_iface_get(dev->iface)->pfc_mode == STK_PFC_MODE_SW))
		stk_pfc_report_backlog(lc, dev->iface, n + rte_ring_count(lane->ring));
	for (unsigned i = 0; i < n; i++)
		roce_rx_handed(lane, lc, &in[i]);
	if (lane->idx == 0 && unlikely(now >= dev->link_next))
		roce_dev_link_check(dev, now);
	/* safe points: QPs whose CQ went to error (control-path flushes, the last poll) fail
	 * here, and again between one QP's engines (a completion lost by the responder or
	 * completer stops the requester before it sends more) */
	roce_lane_fail_pending(lane);
	stk_lcore_step(lc, "roce: qps");
	for (struct roce_qp *qp = lane->polled; qp; qp = qp->next_polled) {
		roce_qp_ran_on(qp, lc->lcore_id);
		/* the ACK of the receive burst's requests (the stack's burst and the handed
		 * frames above), in this round's TX burst */
		roce_responder_flush_ack(qp, lc);
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
	stk_lcore_step(lc, "roce: cm, events, moves");
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
