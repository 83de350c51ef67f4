/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_xmit.c - what the engines share to send and place bytes: transmit one packet of a QP
 * (zero copy from a region under its lane's reference, roce_mr.zc), copy a frame's bytes out,
 * scatter them into an SGE list after checking the list may still be written.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "stk_stack.h"

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
