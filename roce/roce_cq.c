/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cq.c - completion queues: a ring of work completions per CQ, owned by one lcore. The
 * engines add completions (roce_qp_complete() -> roce_cq_push()); consumers take them by
 * polling (roce_poll_cq(), wr_id) or have them dispatched to the WRs' done callbacks
 * (roce_cq_process(), wr_cqe, Linux's ib_cqe).
 *
 * Overflow (IBA 10.10.2.3, affiliated asynchronous errors): a completion that finds the CQ
 * full puts the CQ in error (CQ Error): it takes no more, and the QPs that use it go to ERR
 * (Local Work Queue Catastrophic Error, ROCE_EVENT_QP_FATAL). rxe raises IB_EVENT_CQ_ERR the
 * same way (rxe_cq_post()) and its responder fails the QP ("All - Class G"); its completer
 * drops the completion without failing the QP, which droce does not follow: here every QP of
 * the CQ fails, at the next safe point of the engine, since none can complete work on it.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_int.h"

#define ROCE_WC_NAME_(n, v) [v] = #n,
static const char *const wc_names[] = {ROCE_WC_STATUS_LIST(ROCE_WC_NAME_)};
#undef ROCE_WC_NAME_

const char *roce_wc_status_str(enum roce_wc_status s)
{
	return (unsigned)s < RTE_DIM(wc_names) && wc_names[s] ? wc_names[s] : "?";
}

struct roce_cq *roce_create_cq(struct roce_dev *dev, uint32_t cqe)
{
	return roce_create_cq_ctx(dev, cqe, NULL);
}

struct roce_cq *roce_create_cq_ctx(struct roce_dev *dev, uint32_t cqe, void *cq_context)
{
	struct roce_cq *cq;
	uint32_t n;

	if (!dev || cqe == 0 || cqe > ROCE_MAX_CQE) {
		rte_errno = EINVAL;
		return NULL;
	}
	n = rte_align32pow2(cqe + 1);
	cq = rte_zmalloc("roce_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE);
	if (cq)
		cq->ring = rte_zmalloc("roce_cq_ring", n * sizeof(*cq->ring), RTE_CACHE_LINE_SIZE);
	if (!cq || !cq->ring) {
		rte_free(cq);
		rte_errno = ENOMEM;
		return NULL;
	}
	cq->dev = dev;
	cq->mask = n - 1;
	cq->cqe = n - 1;
	cq->context = cq_context;
	cq->lane = ROCE_LANE_NONE;
	dev->n.cqs++;
	return cq;
}

void *roce_cq_context(const struct roce_cq *cq)
{
	return cq->context;
}

bool roce_cq_in_error(const struct roce_cq *cq)
{
	return cq->error;
}

int roce_destroy_cq(struct roce_cq *cq)
{
	if (!cq)
		return -EINVAL;
	if (cq->users)
		return -EBUSY;
	roce_event_purge(cq->dev, cq);
	/* completions never polled: the mbuf chains they carry are freed with them */
	for (; cq->tail != cq->head; cq->tail++)
		rte_pktmbuf_free(cq->ring[cq->tail & cq->mask].mbuf);
	cq->dev->n.cqs--;
	rte_free(cq->ring);
	rte_free(cq);
	return 0;
}

/* The CQ overflowed: mark the QPs that use it (past RESET, not yet in ERR) to fail. A QP in
 * RESET fails later, on its first completion (roce_qp_complete()). */
static void cq_fail_qps(struct roce_cq *cq)
{
	struct roce_dev *dev = cq->dev;

	for (uint32_t i = 0; i <= ROCE_MAX_QP; i++) {
		struct roce_qp *qp = i < ROCE_MAX_QP ? dev->qps[i] : dev->gsi;

		if (!qp || (qp->init.send_cq != cq && qp->init.recv_cq != cq) ||
		    qp->state == ROCE_QPS_RESET || qp->state == ROCE_QPS_ERR)
			continue;
		qp->fail_pending = true;
		roce_qp_lane(qp)->fail_pending = true;
	}
}

/* The lane whose counters a CQ's events go to. */
static struct roce_lane *cq_lane(struct roce_cq *cq)
{
	return &cq->dev->lane[cq->lane == ROCE_LANE_NONE ? 0 : cq->lane];
}

int roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc)
{
	if (unlikely(cq->error)) {
		cq_lane(cq)->cnt[ROCE_LNC_cqe_lost]++;
		rte_pktmbuf_free(wc->mbuf); /* a lost completion's chain: nobody will take it */
		return -EIO;
	}
	if (unlikely(cq->head - cq->tail >= cq->cqe)) {
		cq->error = true;
		cq_lane(cq)->cnt[ROCE_LNC_cqe_lost]++;
		rte_pktmbuf_free(wc->mbuf);
		roce_event_raise(cq->dev, ROCE_EVENT_CQ_ERR, cq);
		cq_fail_qps(cq);
		return -ENOSPC;
	}
	cq->ring[cq->head & cq->mask] = *wc;
	cq->head++;
	return 0;
}

void roce_qp_complete(struct roce_qp *qp, struct roce_cq *cq, struct roce_wc *wc)
{
	wc->qp = qp;
	wc->qp_num = qp->qpn;
	if (unlikely(roce_cq_push(cq, wc) != 0) && qp->state != ROCE_QPS_ERR) {
		qp->fail_pending = true;
		roce_qp_lane(qp)->fail_pending = true;
	}
}

int roce_poll_cq(struct roce_cq *cq, int n, struct roce_wc *wc)
{
	int k = 0;

	if (!cq || n < 0 || (n > 0 && !wc))
		return -EINVAL;
	if (unlikely(!roce_lane_mine(cq_lane(cq))))
		return -EXDEV;
	while (k < n && cq->tail != cq->head) {
		wc[k++] = cq->ring[cq->tail & cq->mask];
		cq->tail++;
	}
	return k;
}

int roce_cq_process(struct roce_cq *cq, int budget)
{
	int k = 0;

	if (!cq || budget < 1)
		return -EINVAL;
	if (unlikely(!roce_lane_mine(cq_lane(cq))))
		return -EXDEV;
	if (cq->in_process)
		return -EBUSY;
	cq->in_process = true;
	while (k < budget && cq->tail != cq->head) {
		/* a copy: the callback may post work whose completions reuse the slot */
		struct roce_wc wc = cq->ring[cq->tail & cq->mask];

		cq->tail++;
		k++;
		if (likely(wc.wr_cqe && wc.wr_cqe->done)) {
			wc.wr_cqe->done(cq, &wc);
		} else {
			cq_lane(cq)->cnt[ROCE_LNC_wc_no_done]++;
			rte_pktmbuf_free(wc.mbuf); /* nobody to hand the chain to */
		}
	}
	cq->in_process = false;
	return k;
}
