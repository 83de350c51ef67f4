/* SPDX-License-Identifier: BSD-3-Clause */
/* roce_cq.c - completion queues: a ring of work completions per CQ, owned by one lcore. */
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
	dev->n.cqs++;
	return cq;
}

int roce_destroy_cq(struct roce_cq *cq)
{
	if (!cq)
		return -EINVAL;
	if (cq->users)
		return -EBUSY;
	cq->dev->n.cqs--;
	rte_free(cq->ring);
	rte_free(cq);
	return 0;
}

int roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc)
{
	if (cq->head - cq->tail >= cq->cqe) {
		cq->overflow = true;
		return -ENOSPC;
	}
	cq->ring[cq->head & cq->mask] = *wc;
	cq->head++;
	return 0;
}

int roce_poll_cq(struct roce_cq *cq, int n, struct roce_wc *wc)
{
	int k = 0;

	if (!cq || n < 0 || (n > 0 && !wc))
		return -EINVAL;
	while (k < n && cq->tail != cq->head) {
		wc[k++] = cq->ring[cq->tail & cq->mask];
		cq->tail++;
	}
	return k;
}
