/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pfc.c - IEEE 802.1Qbb PFC frames: encode, decode, honour and generate (stk_pfc.h).
 */
#include <errno.h>
#include <string.h>

#include "stk_pfc.h"

static const struct rte_ether_addr pfc_dst = {{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}};

int stk_pfc_encode(const struct rte_ether_addr *src, const struct stk_pfc *pfc, void *buf,
		   size_t len)
{
	struct rte_ether_hdr *eh = buf;
	struct stk_pfc_body *b;

	if (!src || !pfc || !buf || len < STK_PFC_FRAME_LEN)
		return -EINVAL;
	memset(buf, 0, STK_PFC_FRAME_LEN);
	eh->dst_addr = pfc_dst;
	eh->src_addr = *src;
	eh->ether_type = rte_cpu_to_be_16(STK_PFC_ETHERTYPE);
	b = (struct stk_pfc_body *)(eh + 1);
	b->opcode = rte_cpu_to_be_16(STK_PFC_OPCODE);
	b->class_enable = rte_cpu_to_be_16(pfc->class_enable);
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
		b->quanta[p] = rte_cpu_to_be_16(pfc->class_enable & (1u << p) ? pfc->quanta[p] : 0);
	return STK_PFC_FRAME_LEN;
}

int stk_pfc_decode(const void *frame, size_t len, struct stk_pfc *out)
{
	const struct rte_ether_hdr *eh = frame;
	struct stk_pfc_body b;

	if (!frame || !out)
		return -EINVAL;
	if (len < sizeof(*eh) + sizeof(b))
		return -EMSGSIZE;
	if (eh->ether_type != RTE_BE16(STK_PFC_ETHERTYPE))
		return -EPROTO;
	memcpy(&b, eh + 1, sizeof(b));
	if (b.opcode != RTE_BE16(STK_PFC_OPCODE))
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	/* 802.1Qbb: only the low 8 bits of the class-enable vector are defined */
	out->class_enable = (uint8_t)rte_be_to_cpu_16(b.class_enable);
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
		if (out->class_enable & (1u << p))
			out->quanta[p] = rte_be_to_cpu_16(b.quanta[p]);
	return 0;
}

void stk_pfc_apply(struct stk_pfc_rx_state *st, const struct stk_pfc *pfc, uint64_t now,
		   uint64_t hz, uint64_t link_bps)
{
	st->frames++;
	for (unsigned p = 0; p < STK_PFC_PRIOS; p++) {
		if (!(pfc->class_enable & (1u << p)))
			continue;
		if (pfc->quanta[p] == 0) {
			if (st->paused_until[p] > now)
				st->xon[p]++;
			st->paused_until[p] = 0;
			continue;
		}
		/* one quantum is 512 bit times (802.3 31B.3.3) */
		st->paused_until[p] = now + (uint64_t)((double)pfc->quanta[p] * 512.0 /
						       (double)link_bps * (double)hz);
		st->xoff[p]++;
	}
}

uint64_t stk_pfc_refresh_tsc(uint16_t quanta, uint64_t hz, uint64_t link_bps)
{
	return (uint64_t)((double)quanta * 512.0 / (double)link_bps * (double)hz / 2.0);
}

enum stk_pfc_action stk_pfc_gen_step(struct stk_pfc_gen *g, uint32_t backlog, uint64_t now)
{
	if (!g->xoff_sent) {
		if (backlog < g->xoff_at)
			return STK_PFC_NONE;
		g->xoff_sent = true;
		g->last_xoff = now;
		g->xoff_frames++;
		return STK_PFC_SEND_XOFF;
	}
	if (backlog <= g->xon_at) {
		g->xoff_sent = false;
		g->xon_frames++;
		return STK_PFC_SEND_XON;
	}
	if (g->refresh && now - g->last_xoff >= g->refresh) {
		g->last_xoff = now;
		g->xoff_frames++;
		return STK_PFC_SEND_XOFF;
	}
	return STK_PFC_NONE;
}
