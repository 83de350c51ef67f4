/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_tx.c - RoCEv2 packet framing (see roce_tx.h). Specs: IBTA 9.2-9.5 (headers), A17.3
 * (ICRC), A17.4 (UDP: destination 4791, checksum zero; source port from the flow label).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_memory.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_tx.h"
#include "stk_tx.h"

uint16_t roce_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn)
{
	if ((fl & 0xfffff) == 0) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
	}
	fl &= 0xfffff;
	return (uint16_t)(((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000);
}

static void write_headers(uint8_t *h, const struct roce_opinfo *op, const struct roce_tx *t,
			  uint8_t pad)
{
	struct roce_bth *bth = (struct roce_bth *)h;

	/* the BTH's four words at once (FECN, TVer and the reserved bits 0); MigReq is set on
	 * send and ignored on receive (IBA A17). Field by field, after a memset of the header's
	 * variable length, this was 8 % of a 64 B RDMA WRITE's CPU (rc-bench). */
	bth->opcode = t->opcode;
	bth->flags = (uint8_t)((t->se ? ROCE_BTH_SE : 0) | ROCE_BTH_MIGREQ |
			       ((pad << ROCE_BTH_PAD_SHIFT) & ROCE_BTH_PAD_MASK));
	bth->pkey = rte_cpu_to_be_16(t->pkey ? t->pkey : ROCE_DEFAULT_PKEY);
	bth->dqpn = rte_cpu_to_be_32((t->becn ? ROCE_BTH_BECN : 0) | (t->dqpn & ROCE_QPN_MASK));
	bth->apsn = rte_cpu_to_be_32((t->ackreq ? ROCE_BTH_ACKREQ : 0) | (t->psn & ROCE_PSN_MASK));
	/* the extension headers' reserved bytes (DETH's, a CNP's) are 0; the setters below
	 * write every other byte */
	if (op->hdr_len > sizeof(*bth))
		memset(h + sizeof(*bth), 0, op->hdr_len - sizeof(*bth));
	if (op->off[ROCE_EXT_DETH]) {
		struct roce_deth *d = (struct roce_deth *)(h + op->off[ROCE_EXT_DETH]);

		roce_deth_set_qkey(d, t->qkey);
		roce_deth_set_sqpn(d, t->sqpn);
	}
	if (op->off[ROCE_EXT_RETH])
		roce_reth_set((struct roce_reth *)(h + op->off[ROCE_EXT_RETH]), t->va, t->rkey,
			      t->dmalen);
	if (op->off[ROCE_EXT_ATOMICETH])
		roce_atomiceth_set((struct roce_atomiceth *)(h + op->off[ROCE_EXT_ATOMICETH]),
				   t->va, t->rkey, t->swap_add, t->cmp);
	if (op->off[ROCE_EXT_AETH])
		roce_aeth_set((struct roce_aeth *)(h + op->off[ROCE_EXT_AETH]), t->syndrome,
			      t->msn);
	if (op->off[ROCE_EXT_ATOMICACKETH])
		roce_atomicacketh_set_orig(
			(struct roce_atomicacketh *)(h + op->off[ROCE_EXT_ATOMICACKETH]), t->orig);
	if (op->off[ROCE_EXT_IMMDT])
		roce_immdt_set((struct roce_immdt *)(h + op->off[ROCE_EXT_IMMDT]), t->imm);
	if (op->off[ROCE_EXT_IETH])
		roce_ieth_set_rkey((struct roce_ieth *)(h + op->off[ROCE_EXT_IETH]), t->ieth_rkey);
}

uint64_t roce_tx_iova_lookups;
bool roce_iova_per_packet;
uint32_t roce_copy_max = ROCE_COPY_MAX_DEFAULT;

/*
 * IOVA of payload memory, for roce_tx_build() callers that know no region (tools, tests): in
 * IOVA-as-VA mode it is the address itself; in PA mode DPDK memory is looked up in its memsegs,
 * and memory DPDK does not know through rte_mem_virt2iova() (/proc/self/pagemap). The
 * transport's own frames never come here: a region's IOVAs are resolved at registration
 * (roce_mr_dma()) and passed to roce_tx_build_iova().
 */
static rte_iova_t payload_iova(const void *p)
{
	const struct rte_memseg *ms;

	roce_tx_iova_lookups++;
	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return (rte_iova_t)(uintptr_t)p;
	ms = rte_mem_virt2memseg(p, NULL);
	if (ms && ms->iova != RTE_BAD_IOVA)
		return ms->iova + (rte_iova_t)((uintptr_t)p - (uintptr_t)ms->addr);
	return rte_mem_virt2iova(p);
}

static struct rte_mbuf *fail(struct rte_mbuf *m, int err)
{
	rte_pktmbuf_free(m);
	rte_errno = err;
	return NULL;
}

struct rte_mbuf *roce_tx_build(struct rte_mempool *mp, const struct stk_iface *ifc,
			       const struct roce_tx *t, const void *payload, uint32_t len,
			       struct rte_mbuf_ext_shared_info *zc)
{
	return roce_tx_build_iova(mp, ifc, t, payload, len, zc,
				  zc && len ? payload_iova(payload) : RTE_BAD_IOVA);
}

/* The packet's first segment: its headers (BTH and what the opcode carries), room for the
 * stack's encapsulation in front. *pad is the payload's pad to a 4-byte boundary. */
static struct rte_mbuf *tx_head(struct rte_mempool *mp, const struct roce_tx *t, uint32_t len,
				uint8_t *pad)
{
	const struct roce_opinfo *op = roce_opinfo(t->opcode);
	struct rte_mbuf *m;
	uint8_t *h;

	if (!op || !t->path || (len && !(op->flags & ROCE_OPF_PAYLOAD)) || len > UINT16_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	*pad = op->flags & ROCE_OPF_PAYLOAD ? (uint8_t)((4 - (len & 3)) & 3) : 0;
	m = rte_pktmbuf_alloc(mp);
	if (!m) {
		rte_errno = ENOMEM;
		return NULL;
	}
	h = (uint8_t *)rte_pktmbuf_append(m, op->hdr_len);
	if (!h)
		return fail(m, ENOMEM);
	write_headers(h, op, t, *pad);
	return m;
}

/* After the payload: pad and ICRC (in a segment of their own when @own_tail: the payload's
 * last segment is not ours to write), the UDP/IP/Ethernet encapsulation, the ICRC. */
static struct rte_mbuf *tx_finish(struct rte_mempool *mp, const struct stk_iface *ifc,
				  const struct roce_tx *t, struct rte_mbuf *m, uint8_t pad,
				  bool own_tail)
{
	const struct roce_path *path = t->path;
	struct stk_flow f;
	uint16_t l2, l3;
	uint8_t *p;

	if (own_tail) {
		struct rte_mbuf *tail = rte_pktmbuf_alloc(mp);

		if (!tail || rte_pktmbuf_chain(m, tail) != 0) {
			rte_pktmbuf_free(tail);
			return fail(m, ENOMEM);
		}
	}
	/* appends to the last segment: after the header, or the tail after the payload's */
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(pad + ROCE_ICRC_LEN));
	if (!p)
		return fail(m, ENOMEM);
	memset(p, 0, pad + ROCE_ICRC_LEN);
	memset(&f, 0, sizeof(f));
	f.src = path->sgid_ip;
	f.dst = path->dgid_ip;
	f.dport = STK_ROCE_UDP_PORT;
	f.sport = roce_udp_sport(path->flow_label, t->lqpn, t->dqpn);
	if (t->opcode == ROCE_OP_CNP) { /* the port's CNP class, never ECN-capable */
		f.dscp = ifc->qos.cnp_dscp;
		f.pcp = ifc->qos.cnp_prio;
	} else {
		f.dscp = path->flags & ROCE_PATH_DSCP ? path->dscp : ifc->qos.roce_dscp;
		f.pcp = path->flags & ROCE_PATH_PCP ? path->pcp : ifc->qos.roce_prio;
		f.ecn = path->ecn;
	}
	f.ttl = path->hop_limit;
	f.flow_label = path->flow_label;
	f.csum = STK_CSUM_ZERO;
	{
		int rc = stk_udp_encap(ifc, m, &f);

		if (rc != 0)
			return fail(m, -rc);
	}
	l2 = stk_l2_len(ifc);
	l3 = f.dst.family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	roce_icrc_fill(m, l2, (uint16_t)(l2 + l3 + 8), rte_pktmbuf_pkt_len(m) - ROCE_ICRC_LEN);
	return m;
}

struct rte_mbuf *roce_tx_build_iova(struct rte_mempool *mp, const struct stk_iface *ifc,
				    const struct roce_tx *t, const void *payload, uint32_t len,
				    struct rte_mbuf_ext_shared_info *zc, uint64_t iova)
{
	struct rte_mbuf *m;
	uint8_t pad;

	if (len && !payload) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = tx_head(mp, t, len, &pad);
	if (!m)
		return NULL;
	if (len && !zc) {
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);

		if (!d)
			return fail(m, EMSGSIZE);
		memcpy(d, payload, len);
	} else if (len) {
		/* zero copy: the payload mbuf points into the registered memory */
		struct rte_mbuf *p = rte_pktmbuf_alloc(mp);

		if (!p)
			return fail(m, ENOMEM);
		rte_mbuf_ext_refcnt_update(zc, 1);
		rte_pktmbuf_attach_extbuf(p, (void *)(uintptr_t)payload, iova, (uint16_t)len, zc);
		rte_pktmbuf_append(p, (uint16_t)len);
		if (rte_pktmbuf_chain(m, p) != 0) {
			rte_pktmbuf_free(p);
			return fail(m, EMSGSIZE);
		}
	}
	return tx_finish(mp, ifc, t, m, pad, len && zc);
}

uint64_t roce_tx_mbuf_gathered;

/* Gather [off, off+len) of the chain from segment @s into @m's own segments (copied). */
static int gather(struct rte_mempool *mp, struct rte_mbuf *m, const struct rte_mbuf *s,
		  uint32_t off, uint32_t len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);

	while (len) {
		uint32_t k = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(last));
		uint8_t *d;

		if (k == 0) {
			struct rte_mbuf *n = rte_pktmbuf_alloc(mp);

			if (!n || rte_pktmbuf_chain(m, n) != 0) {
				rte_pktmbuf_free(n);
				return -ENOMEM;
			}
			last = n;
			continue;
		}
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)k);
		len -= k;
		while (k) {
			uint32_t n = RTE_MIN(k, (uint32_t)s->data_len - off);

			memcpy(d, rte_pktmbuf_mtod_offset(s, const uint8_t *, off), n);
			d += n;
			k -= n;
			off += n;
			if (off == s->data_len) {
				s = s->next;
				off = 0;
			}
		}
	}
	return 0;
}

struct rte_mbuf *roce_tx_build_mbuf(struct rte_mempool *mp, const struct stk_iface *ifc,
				    const struct roce_tx *t, const struct rte_mbuf *src,
				    uint32_t off, uint32_t len)
{
	const struct rte_mbuf *s;
	struct rte_mbuf *m;
	uint32_t left = len, at;
	unsigned pieces = 0;
	uint8_t pad;

	m = tx_head(mp, t, len, &pad);
	if (!m)
		return NULL;
	if (!len)
		return tx_finish(mp, ifc, t, m, pad, false);
	for (s = src; s && off >= s->data_len; s = s->next)
		off -= s->data_len;
	at = off;
	for (const struct rte_mbuf *c = s; c && left; c = c->next) {
		uint32_t n = RTE_MIN(left, (uint32_t)c->data_len - at);

		left -= n;
		at = 0;
		pieces += n != 0; /* an empty segment gives the frame nothing */
	}
	if (left)
		return fail(m, EINVAL); /* the chain is shorter than off + len */
	if (pieces > ROCE_TX_MAX_PIECES) {
		/* a frame of many small segments: more than a NIC's gather list may take */
		roce_tx_mbuf_gathered++;
		if (gather(mp, m, s, off, len) != 0)
			return fail(m, ENOMEM);
		return tx_finish(mp, ifc, t, m, pad, true);
	}
	left = len;
	at = off;
	for (const struct rte_mbuf *c = s; left; c = c->next) {
		uint32_t n = RTE_MIN(left, (uint32_t)c->data_len - at);
		struct rte_mbuf *p;

		if (n == 0) {
			at = 0;
			continue;
		}
		p = rte_pktmbuf_alloc(mp);
		if (!p)
			return fail(m, ENOMEM);
		/* an indirect mbuf over the segment's buffer (or a share of its external one) */
		rte_pktmbuf_attach(p, (struct rte_mbuf *)(uintptr_t)c);
		p->data_off = (uint16_t)(c->data_off + at);
		p->data_len = (uint16_t)n;
		p->pkt_len = n;
		if (rte_pktmbuf_chain(m, p) != 0) {
			rte_pktmbuf_free(p);
			return fail(m, EMSGSIZE);
		}
		left -= n;
		at = 0;
	}
	return tx_finish(mp, ifc, t, m, pad, true);
}
