/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_stats.h - the stack's counters: per lcore and per interface, written only by the owning
 * lcore (no atomics on the fast path), summed when telemetry asks.
 */
#ifndef STK_STATS_H
#define STK_STATS_H

#include <stdint.h>

#include <rte_common.h>

#include "stk_pkt.h"

/* X(name): every counter, in telemetry order. neigh_offlink: entries not created because the
 * address is not on the interface's subnet; neigh_evicted: STALE/INCOMPLETE entries forgotten
 * for a new one (their parked packets are drops, neigh_evicted_pending); neigh_pending_cap:
 * packets refused by the table-wide cap on parked packets. The impair_* ones count what the impairment
 * layer did (stk_impair.h); its drops are not stack drops and do not move "drops".
 * PFC (stk_pfc_port.c): pfc_rx PFC frames honoured; pfc_rx_xoff / pfc_rx_xon those of them
 * that paused / resumed at least one priority; pfc_held frames that waited in a hold FIFO;
 * pfc_tx_xoff / pfc_tx_xon PFC frames we sent; pause_ignored 802.3x PAUSE frames dropped;
 * pfc_storms storm episodes the PFC watchdog declared (per TX queue, so per lcore);
 * pfc_storm_ignored pauses not honoured during one. */
#define STK_COUNTER_LIST(X)                                                                        \
	X(rx_pkts)                                                                                 \
	X(rx_bytes)                                                                                \
	X(tx_pkts)                                                                                 \
	X(tx_bytes)                                                                                \
	X(rx_arp)                                                                                  \
	X(rx_ipv4)                                                                                 \
	X(rx_ipv6)                                                                                 \
	X(rx_udp)                                                                                  \
	X(rx_roce)                                                                                 \
	X(rx_nd)                                                                                   \
	X(udp_delivered)                                                                           \
	X(to_kernel)                                                                               \
	X(from_kernel)                                                                             \
	X(arp_request_tx)                                                                          \
	X(arp_reply_tx)                                                                            \
	X(nd_solicit_tx)                                                                           \
	X(nd_advert_tx)                                                                            \
	X(neigh_learned)                                                                           \
	X(neigh_queued)                                                                            \
	X(neigh_offlink)                                                                           \
	X(neigh_evicted)                                                                           \
	X(neigh_pending_cap)                                                                       \
	X(ctrl_msgs)                                                                               \
	X(impair_dropped)                                                                          \
	X(impair_duplicated)                                                                       \
	X(impair_reordered)                                                                        \
	X(impair_corrupted)                                                                        \
	X(impair_delayed)                                                                          \
	X(impair_delay_full)                                                                       \
	X(impair_ce_marked)                                                                        \
	X(pfc_rx)                                                                                  \
	X(pfc_rx_xoff)                                                                             \
	X(pfc_rx_xon)                                                                              \
	X(pfc_held)                                                                                \
	X(pfc_tx_xoff)                                                                             \
	X(pfc_tx_xon)                                                                              \
	X(pause_ignored)                                                                           \
	X(pfc_storms)                                                                              \
	X(pfc_storm_ignored)                                                                       \
	X(drops)

#define STK_CNT_ENUM_(n) STK_CNT_##n,
enum stk_counter { STK_COUNTER_LIST(STK_CNT_ENUM_) STK_CNT_NUM };
#undef STK_CNT_ENUM_

/** @return the telemetry name of a counter. */
const char *stk_counter_name(enum stk_counter c);

/** Counters of one interface as seen by one lcore. */
struct stk_port_stats {
	uint64_t c[STK_CNT_NUM];
	uint64_t drop[STK_DROP_NUM];
} __rte_cache_aligned;

/**
 * Sum the counters of interface @p iface over all lcores (or over all interfaces when
 * @p iface is negative) into @p out. Safe from any thread; values may lag by a burst.
 */
void stk_stats_sum(int iface, struct stk_port_stats *out);

/** Register the /droce/... telemetry commands. @return 0 or -errno. */
int stk_telemetry_register(void);

#endif /* STK_STATS_H */
