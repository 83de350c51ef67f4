/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pfc_port.h - software PFC (IEEE 802.1Qbb) on an lcore's port paths, for interfaces in
 * STK_PFC_MODE_SW. stk_pfc.h is the codec and the pure logic; this is where it meets frames:
 *
 *   RX:  stk_input -> stk_classify (MAC Control) -> stk_pfc_input(): decode, apply to this
 *        lcore's pause state, and tell every other lcore (STK_CTRL_PFC on the ctrl ring)
 *   TX:  stk_tx_frame -> [impairment] -> tx_frame -> stk_pfc_tx_hold(): a frame of a paused
 *        priority, or of one with frames already waiting, goes into that priority's hold FIFO;
 *        the loop's stk_pfc_tx_release() sends them once the pause ends
 *   Gen: the loop's stk_pfc_generate(): backlog = max(RX queue fill, reported backlog), the
 *        XOFF/XON hysteresis, and a PFC frame straight onto the lcore's TX queue
 *   WD:  stk_pfc_tx_release() also runs the storm watchdog: a priority paused without a
 *        break for pfc_wd_ms stops honouring pauses until the peer has sent none for
 *        pfc_wd_restore_ms (counters pfc_storms, pfc_storm_ignored; one log per episode)
 *
 * Everything here is per lcore and per interface, written only by the owning lcore.
 * The public entry points (release, paused, report, generate) are declared in stk_lcore.h.
 */
#ifndef STK_PFC_PORT_H
#define STK_PFC_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_pfc.h"

#define STK_PFC_HOLD_MAX 4096	  /**< frames one priority's hold FIFO keeps (power of two) */
#define STK_PFC_RELEASE_BURST 32  /**< frames per priority one release call sends (one burst) */
#define STK_PFC_WD_DEFAULT_MS 200 /**< storm watchdog: continuous pause that makes a storm */
#define STK_PFC_WD_OFF UINT32_MAX /**< stk_iface.pfc_wd_ms: no watchdog */

/** Frames of one priority waiting for the peer's pause to end, oldest at head. */
struct stk_pfc_hold {
	uint32_t head;
	uint32_t count;
	struct rte_mbuf *q[STK_PFC_HOLD_MAX];
};

/** One lcore's software PFC on one interface. */
struct stk_pfc_port {
	struct stk_pfc_rx_state rx; /**< pauses the peer asked of our TX queue */
	struct stk_pfc_gen gen;	    /**< our XOFF/XON for our RX queue */
	uint64_t hz;		    /**< TSC frequency */
	uint64_t link_bps;	    /**< resolved: 0 in the interface means 100 Gbit/s */
	uint32_t reported;	    /**< last stk_pfc_report_backlog() value */
	int8_t rxq_count;	    /**< rte_eth_rx_queue_count(): 0 not probed, 1 used, -1 not */
	uint8_t prios;		    /**< priorities our PFC frames enable */
	uint8_t held;		    /**< bit p: hold[p] is not empty */
	uint8_t storm;		    /**< bit p: priority p is in a PFC storm, pauses ignored */
	uint64_t wd_detect;	    /**< TSC a pause may last without a break; 0 = no watchdog */
	uint64_t wd_restore;	    /**< TSC without XOFF that ends a storm */
	uint64_t paused_since[STK_PFC_PRIOS]; /**< TSC the current unbroken pause began; 0 */
	uint64_t last_xoff[STK_PFC_PRIOS];    /**< TSC of the last XOFF for the priority */
	struct stk_pfc_hold hold[STK_PFC_PRIOS];
};

/**
 * Give @p lc its PFC state for every interface in software mode that has none yet (called
 * by stk_lcore_create(): interfaces added later need a call of their own).
 * @return 0, or -ENOMEM.
 */
int stk_pfc_attach(struct stk_lcore *lc);

/** Free @p lc's PFC state; held frames are freed, not sent. */
void stk_pfc_detach(struct stk_lcore *lc);

/**
 * The priority of an outgoing frame: the PCP when VLAN-tagged (in the bytes or as a TX VLAN
 * offload), else qos.dscp_prio[DSCP] for IPv4/IPv6, else 0. Reads only the first segment.
 */
unsigned stk_pfc_frame_prio(const struct stk_iface *ifc, const struct rte_mbuf *m);

/**
 * TX honour: hold @p m when its priority is paused or has frames waiting.
 * @return true when this took @p m (held, or dropped as "pfc_hold_full"); false leaves it
 *         with the caller, to send now. MAC Control frames are never held.
 */
bool stk_pfc_tx_hold(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m);

/**
 * RX: a MAC Control frame (EtherType 0x8808) received on @p ifc. PFC is applied here and
 * sent to the other lcores; 802.3x PAUSE is counted ("pause_ignored") and dropped, a
 * malformed frame or PFC on an interface not in software mode is a counted drop.
 * Takes @p m in every case.
 */
void stk_pfc_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m);

/** Apply a decoded PFC frame received at @p tsc to @p lc's TX on @p ifc (ctrl messages). */
void stk_pfc_rx_apply(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_pfc *pfc,
		      uint64_t tsc);

#endif /* STK_PFC_PORT_H */
