/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_engine.c - the engines' life cycle on a QP: entering RTR (the responder starts) and RTS
 * (requester and completer start, DCQCN's reaction point, the move to the QP's home lane),
 * stopping, a fatal error; and the device's DCQCN parameters.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "stk_stack.h"

void roce_qp_fatal(struct roce_qp *qp, enum roce_wc_status status)
{
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

	if (qp->sq.tail != qp->sq.head) {
		struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);
		struct roce_wc wc = {.wr_id = e->wr.wr_id, .status = status};

		roce_swqe_release(e);
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
	qp->comp.cwnd = ROCE_CWND_INIT;
	qp->comp.ssthresh = ROCE_CWND_MAX;
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
