/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_arp.h - address resolution: ARP (RFC 826) for IPv4 and neighbour discovery
 * (RFC 4861) for IPv6, on top of the per-lcore neighbour table.
 *
 * The stack answers ARP requests and neighbour solicitations for its own addresses itself
 * (the kernel behind the TAP has the same addresses and would answer twice otherwise), learns
 * from replies, and passes replies and everything else on to the kernel so that the kernel's
 * own resolution works through the exception path.
 */
#ifndef STK_ARP_H
#define STK_ARP_H

#include "stk_lcore.h"

/** Handle an ARP frame from @p ifc. Takes @p m. */
void stk_arp_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p);

/** Handle an ICMPv6 NS or NA from @p ifc. Takes @p m. */
void stk_nd_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		  const struct stk_pkt *p);

/** Send an ARP request or NS for @p ip on @p ifc. @return 0 or -ENOMEM / -EADDRNOTAVAIL. */
int stk_send_probe(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip);

/** stk_neigh_update() flush callback: sends a frame that waited for @p mac. @p ctx: lcore. */
void stk_neigh_flush_cb(void *ctx, uint16_t iface, struct rte_mbuf *m,
			const struct rte_ether_addr *mac);

/** stk_neigh_tick() probe callback; @p ctx is the lcore. */
void stk_neigh_probe_cb(void *ctx, const struct stk_neigh *n);

/**
 * Record a mapping learnt from the wire on this lcore's table, send what was waiting for it,
 * and tell the other lcores.
 */
void stk_neigh_learn(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip,
		     const struct rte_ether_addr *mac, bool create, bool answer);

#endif /* STK_ARP_H */
