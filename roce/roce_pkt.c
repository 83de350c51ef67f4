/* SPDX-License-Identifier: BSD-3-Clause */
/* roce_pkt.c - bounded decoding of RoCEv2 packets (see roce_pkt.h). */
#include "roce_pkt.h"

#define ROCE_DROP_NAME_(n, s) [ROCE_DROP_##n] = s,
static const char *const drop_names[ROCE_DROP_NUM] = {ROCE_DROP_LIST(ROCE_DROP_NAME_)};
#undef ROCE_DROP_NAME_

const char *roce_drop_name(enum roce_drop d)
{
	return (unsigned)d < ROCE_DROP_NUM ? drop_names[d] : "?";
}

static int fail(struct roce_pkt *rp, enum roce_drop d)
{
	rp->drop = d;
	return -1;
}

int roce_pkt_parse(const struct rte_mbuf *m, const struct stk_pkt *p, struct roce_pkt *rp)
{
	uint32_t len = p->payload_len;
	struct roce_bth *bth;
	uint32_t fixed;

	rp->drop = ROCE_DROP_NONE;
	if (len < sizeof(*bth) + ROCE_ICRC_LEN)
		return fail(rp, ROCE_DROP_BTH_TRUNC);
	if ((uint32_t)p->payload_off + sizeof(*bth) > rte_pktmbuf_data_len(m))
		return fail(rp, ROCE_DROP_SEGMENTED);
	bth = rte_pktmbuf_mtod_offset(m, struct roce_bth *, p->payload_off);
	rp->opcode = roce_bth_opcode(bth);
	rp->op = roce_opinfo(rp->opcode);
	if (!rp->op)
		return fail(rp, ROCE_DROP_OPCODE);
	/* IBA C9-18: a packet with an unsupported TVer is silently dropped */
	if (roce_bth_tver(bth) != 0)
		return fail(rp, ROCE_DROP_TVER);
	rp->pad = roce_bth_padcnt(bth);
	/* pad only follows payload; a header-only opcode carries none (IBA 9.2.3) */
	if (rp->pad && !(rp->op->flags & ROCE_OPF_PAYLOAD))
		return fail(rp, ROCE_DROP_PAD);
	fixed = rp->op->hdr_len + rp->pad + ROCE_ICRC_LEN;
	if (len < fixed)
		return fail(rp, ROCE_DROP_HDR_TRUNC);
	/* the same rule for bytes: a header-only opcode is its headers and the ICRC, nothing
	 * more (IBA 9.2.3); extra bytes after a READ request, an atomic or an ACK are not
	 * ignored but make the packet malformed (issue 11, confirm list) */
	if (!(rp->op->flags & ROCE_OPF_PAYLOAD) && len != fixed)
		return fail(rp, ROCE_DROP_TRAILING);
	if ((uint32_t)p->payload_off + rp->op->hdr_len > rte_pktmbuf_data_len(m))
		return fail(rp, ROCE_DROP_SEGMENTED);
	rp->bth = bth;
	rp->l3_off = p->l3_off;
	rp->bth_off = p->payload_off;
	rp->payload_off = (uint16_t)(p->payload_off + rp->op->hdr_len);
	rp->payload_len = len - fixed;
	rp->psn = roce_bth_psn(bth);
	rp->dqpn = roce_bth_dqpn(bth);
	return 0;
}
