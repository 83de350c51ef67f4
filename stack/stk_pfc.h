/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pfc.h - IEEE 802.1Qbb priority-based flow control: the PFC frame (a MAC Control frame,
 * EtherType 0x8808, opcode 0x0101, a class-enable vector and eight pause quanta), what a
 * receiver does with it (stop exactly the paused priorities for quanta x 512 bit times at the
 * link speed, or until XON), and when a receiver asks its peer to pause (XOFF above a
 * backlog threshold, XON once below the resume threshold, XOFF refreshed before it expires).
 * Pure logic over an explicit clock, so tests drive it on a controlled one.
 */
#ifndef STK_PFC_H
#define STK_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#define STK_PFC_ETHERTYPE 0x8808 /**< MAC Control */
#define STK_PFC_OPCODE 0x0101	 /**< priority-based flow control (802.1Qbb 36.1.3) */
#define STK_PFC_FRAME_LEN 60	 /**< minimum Ethernet frame without FCS */
#define STK_PFC_PRIOS 8
#define STK_PAUSE_OPCODE 0x0001 /**< 802.3x PAUSE (802.3 Annex 31B), not honoured */

/** How an interface does PFC. */
enum stk_pfc_mode {
	STK_PFC_MODE_OFF,  /**< neither honoured nor generated; PFC frames are dropped */
	STK_PFC_MODE_SW,   /**< the stack honours and generates them (stk_pfc_port.c) */
	STK_PFC_MODE_HW,   /**< the NIC does (rte_eth_dev_priority_flow_ctrl_set) */
	STK_PFC_MODE_AUTO, /**< configuration only: HW when the PMD can, else SW */
};

/** The MAC Control PFC body after the Ethernet header (802.1Qbb Figure 36-3). */
struct stk_pfc_body {
	rte_be16_t opcode;		  /**< STK_PFC_OPCODE */
	rte_be16_t class_enable;	  /**< bit p: quanta[p] is valid */
	rte_be16_t quanta[STK_PFC_PRIOS]; /**< pause time per priority, in 512 bit times */
} __rte_packed;
_Static_assert(sizeof(struct stk_pfc_body) == 20, "PFC body is 20 bytes");

/** A decoded PFC frame. */
struct stk_pfc {
	uint8_t class_enable; /**< bit p set: priority p's quanta applies */
	uint16_t quanta[STK_PFC_PRIOS];
};

/**
 * Build a PFC frame from @p src into @p buf (at least STK_PFC_FRAME_LEN bytes): destination
 * 01:80:C2:00:00:01, EtherType 0x8808, the body, zero padding to 60 bytes.
 * @return STK_PFC_FRAME_LEN, or -EINVAL (NULL, @p len too small).
 */
int stk_pfc_encode(const struct rte_ether_addr *src, const struct stk_pfc *pfc, void *buf,
		   size_t len);

/**
 * Decode a PFC frame (untagged, Ethernet header first). Limits: reads at most the first
 * 14 + 20 bytes, after checking @p len. Quanta of priorities not enabled are reported as 0.
 * @return 0; -EINVAL (NULL), -EMSGSIZE (shorter than header + body), -EPROTO (not MAC
 * Control, or another opcode such as 802.3x PAUSE 0x0001).
 */
int stk_pfc_decode(const void *frame, size_t len, struct stk_pfc *out);

/** What a port's TX honours: per priority, until when it is paused (TSC, 0 = flowing). */
struct stk_pfc_rx_state {
	uint64_t paused_until[STK_PFC_PRIOS];
	uint64_t frames;	      /**< PFC frames honoured */
	uint64_t xoff[STK_PFC_PRIOS]; /**< pauses started or extended, per priority */
	uint64_t xon[STK_PFC_PRIOS];  /**< pauses ended by quanta 0, per priority */
};

/**
 * Apply a received PFC frame at @p now: each enabled priority pauses for quanta x 512 bit
 * times at @p link_bps (replacing any earlier pause), quanta 0 resumes it at once.
 */
void stk_pfc_apply(struct stk_pfc_rx_state *st, const struct stk_pfc *pfc, uint64_t now,
		   uint64_t hz, uint64_t link_bps);

/** @return true while priority @p prio may not transmit at @p now. */
static inline bool stk_pfc_paused(const struct stk_pfc_rx_state *st, unsigned prio, uint64_t now)
{
	return prio < STK_PFC_PRIOS && now < st->paused_until[prio];
}

/** Generation: when to ask the peer to pause one priority. */
struct stk_pfc_gen {
	uint32_t xoff_at;     /**< backlog (frames, or any unit) at which to send XOFF */
	uint32_t xon_at;      /**< backlog at or below which to send XON (< xoff_at) */
	uint16_t quanta;      /**< pause time XOFF asks for (default 0xffff) */
	uint64_t refresh;     /**< TSC: resend XOFF this long after the last one while over */
	bool xoff_sent;	      /**< we told the peer to stop */
	uint64_t last_xoff;   /**< TSC of the last XOFF */
	uint64_t xoff_frames; /**< XOFFs sent */
	uint64_t xon_frames;  /**< XONs sent */
};

/** What stk_pfc_gen_step() asks the caller to send. */
enum stk_pfc_action { STK_PFC_NONE, STK_PFC_SEND_XOFF, STK_PFC_SEND_XON };

/**
 * Feed the current @p backlog at @p now. Hysteresis: XOFF once it reaches xoff_at (and again
 * every refresh while it stays above xon_at, so the peer's pause never lapses while we are
 * still full), XON once it falls to xon_at.
 */
enum stk_pfc_action stk_pfc_gen_step(struct stk_pfc_gen *g, uint32_t backlog, uint64_t now);

/** The refresh period for @p quanta at @p link_bps: half the pause it asks for. */
uint64_t stk_pfc_refresh_tsc(uint16_t quanta, uint64_t hz, uint64_t link_bps);

#endif /* STK_PFC_H */
