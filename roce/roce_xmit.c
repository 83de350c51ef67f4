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

static int xmit_built(struct roce_qp *qp, struct stk_lcore *lc, const struct stk_iface *ifc,
		      struct rte_mbuf *m, const struct roce_path *path);

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

	t->path = path;
	t->lqpn = qp->qpn;
	/* a small payload is copied into the header's mbuf: cheaper than two more mbufs (the
	 * attached one and the pad/ICRC tail), a reference on the region and a frame of three
	 * segments for every later step (bench/README.md, "Small payloads") */
	if (zc && len <= roce_copy_max &&
	    len + ROCE_COPY_ROOM + RTE_PKTMBUF_HEADROOM <= rte_pktmbuf_data_room_size(lc->pool))
		zc = NULL;
	/* the IOVA registration resolved; bytes across pages of non-contiguous IOVAs: copied */
	if (unlikely(roce_iova_per_packet)) {
		m = roce_tx_build(lc->pool, ifc, t, payload, len, zc ? &zc->zc[lane].s : NULL);
	} else {
		if (zc && len && !roce_mr_dma(zc, payload, len, &iova))
			zc = NULL;
		m = roce_tx_build_iova(lc->pool, ifc, t, payload, len, zc ? &zc->zc[lane].s : NULL,
				       iova);
	}
	return xmit_built(qp, lc, ifc, m, path);
}

int roce_qp_xmit_mbuf(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t,
		      struct roce_swqe *e, uint32_t off, uint32_t len, const struct roce_path *path)
{
	const struct stk_iface *ifc = stk_iface_get(qp->pd->dev->iface);
	struct rte_mbuf *s = e->walk;
	uint32_t base = e->walk_off;

	t->path = path;
	t->lqpn = qp->qpn;
	/* frames go forward through the chain: start at the segment the last one reached,
	 * from the head again after a rewind */
	if (!s || off < base) {
		s = e->wr.mbuf;
		base = 0;
	}
	while (s && off - base >= s->data_len && s->next) {
		base += s->data_len;
		s = s->next;
	}
	e->walk = s;
	e->walk_off = base;
	return xmit_built(qp, lc, ifc, roce_tx_build_mbuf(lc->pool, ifc, t, s, off - base, len),
			  path);
}

/* Send a frame built for @qp (NULL: it could not be built, counted). */
static int xmit_built(struct roce_qp *qp, struct stk_lcore *lc, const struct stk_iface *ifc,
		      struct rte_mbuf *m, const struct roce_path *path)
{
	int rc;

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

struct rte_mbuf *roce_mbuf_payload(struct rte_mbuf *m, uint32_t off, uint32_t len,
				   struct rte_mempool *mp)
{
	struct rte_mbuf *s, *head;
	uint32_t total = len;
	uint16_t nseg = 1;

	/* a segment someone else holds too (a clone, a capture, a duplicate) is not ours to
	 * cut: cut a clone of the frame instead (indirect mbufs, still no copy of the bytes) */
	for (s = m; s && rte_mbuf_refcnt_read(s) == 1; s = s->next)
		;
	if (s) {
		struct rte_mbuf *c = rte_pktmbuf_clone(m, mp);

		rte_pktmbuf_free(m);
		if (!c)
			return NULL;
		m = c;
	}
	/* the headers' segments go, then the headers' bytes of the first kept one */
	while (m && off >= m->data_len) {
		struct rte_mbuf *n = m->next;

		off -= m->data_len;
		m->next = NULL;
		rte_pktmbuf_free_seg(m);
		m = n;
	}
	if (!m || len == 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	head = m;
	head->data_off = (uint16_t)(head->data_off + off);
	head->data_len = (uint16_t)(head->data_len - off);
	/* then the pad and ICRC: the segment the payload ends in is cut, the rest freed */
	for (s = head; s->next && len > s->data_len; s = s->next) {
		len -= s->data_len;
		nseg++;
	}
	if (len > s->data_len) { /* the frame is shorter than its parse said: cannot happen */
		rte_pktmbuf_free(head);
		return NULL;
	}
	s->data_len = (uint16_t)len;
	rte_pktmbuf_free(s->next);
	s->next = NULL;
	head->nb_segs = nseg;
	head->pkt_len = total;
	return head;
}

/* Append chain @piece to the chain at *@head (NULL: it becomes the chain), whose last segment
 * is *@tail. @return false, nothing changed, past RTE_MBUF_MAX_NB_SEGS segments. */
static bool mbuf_append(struct rte_mbuf **head, struct rte_mbuf **tail, struct rte_mbuf *piece)
{
	if (!*head) {
		*head = piece;
	} else {
		if ((uint32_t)(*head)->nb_segs + piece->nb_segs > RTE_MBUF_MAX_NB_SEGS)
			return false;
		(*tail)->next = piece;
		(*head)->nb_segs = (uint16_t)((*head)->nb_segs + piece->nb_segs);
		(*head)->pkt_len += piece->pkt_len;
	}
	*tail = rte_pktmbuf_lastseg(piece);
	return true;
}

int roce_mbuf_keep(struct roce_qp *qp, struct rte_mbuf **mp, const struct roce_pkt *rp,
		   struct rte_mbuf **head, struct rte_mbuf **tail)
{
	struct rte_mbuf *p = roce_mbuf_payload(*mp, rp->payload_off, rp->payload_len, (*mp)->pool);

	*mp = NULL;
	if (!p) {
		qp->cnt[ROCE_QPC_rx_mbuf_nomem]++;
		return -ENOMEM;
	}
	if (!mbuf_append(head, tail, p)) {
		rte_pktmbuf_free(p);
		return -E2BIG;
	}
	return 0;
}
