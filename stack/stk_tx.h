/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_tx.h - transmit-side builders: Ethernet/802.1Q, IPv4/IPv6 + UDP encapsulation with
 * per-flow DSCP and ECN, and the ARP and neighbour-discovery frames the stack originates.
 *
 * The builders only write headers; sending (neighbour resolution, TX queue) is
 * stk_udp_send() and stk_tx_frame() in stk_lcore.h.
 */
#ifndef STK_TX_H
#define STK_TX_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "stk_iface.h"

/** UDP checksum policy of a flow. */
enum stk_udp_csum {
	STK_CSUM_FULL, /**< compute the UDP checksum (default) */
	STK_CSUM_ZERO, /**< send zero, as RoCEv2 does (IBTA A17.4.3; RFC 6935 for IPv6) */
};

/** Everything that decides how a UDP datagram is framed. */
struct stk_flow {
	struct stk_ipaddr src; /**< family 0: the interface's address for dst */
	struct stk_ipaddr dst; /**< destination, IPv4 or IPv6 */
	uint16_t sport;	       /**< UDP source port, host order */
	uint16_t dport;	       /**< UDP destination port, host order */
	uint8_t dscp;	       /**< 0..63 */
	uint8_t ecn;	       /**< 0..3: Not-ECT, ECT(1), ECT(0), CE */
	uint8_t ttl;	       /**< 0 means 64 */
	uint8_t pcp;	       /**< 802.1Q priority; STK_PCP_DEFAULT = the interface's */
	uint32_t flow_label;   /**< IPv6 flow label, 20 bits */
	enum stk_udp_csum csum;
};

#define STK_PCP_DEFAULT 0xff

/**
 * Prepend Ethernet (with an 802.1Q tag when the interface has a VLAN) to @p m.
 * The destination MAC is @p dst, or zero when NULL (filled in after resolution).
 * @return 0, or -ENOSPC when the mbuf lacks headroom.
 */
int stk_l2_encap(const struct stk_iface *ifc, struct rte_mbuf *m, uint16_t ether_type, uint8_t pcp,
		 const struct rte_ether_addr *dst);

/**
 * Prepend L2 / IP / UDP headers in front of the UDP payload held in @p m. IPv4 has DF set
 * and ID 0 (RFC 6864 atomic datagram); nothing is fragmented.
 *
 * @return 0; -EINVAL for a bad flow (no destination, DSCP > 63, ECN > 3); -EADDRNOTAVAIL when
 *         the interface has no source of the destination's family; -EMSGSIZE when the datagram
 *         exceeds the MTU; -ENOSPC when headroom is short. On error @p m is unchanged.
 */
int stk_udp_encap(const struct stk_iface *ifc, struct rte_mbuf *m, const struct stk_flow *f);

/** Byte offset of the IP header in a frame built for @p ifc. */
uint16_t stk_l2_len(const struct stk_iface *ifc);

/**
 * Build an ARP packet (RFC 826) from @p ifc: @p op is RTE_ARP_OP_REQUEST or _REPLY.
 * Requests go to broadcast; replies to @p tha.
 * @return the mbuf, or NULL with rte_errno = ENOMEM.
 */
struct rte_mbuf *stk_arp_build(struct rte_mempool *mp, const struct stk_iface *ifc, uint16_t op,
			       const struct rte_ether_addr *tha, rte_be32_t tip);

/**
 * Build an ICMPv6 neighbour solicitation (@p type 135) or advertisement (136), with the
 * source (NS) or target (NA) link-layer address option. NS to @p dst = solicited-node
 * multicast; NA to @p dst unicast, or all-nodes when unsolicited.
 * @return the mbuf, or NULL with rte_errno = ENOMEM or EADDRNOTAVAIL.
 */
struct rte_mbuf *stk_nd_build(struct rte_mempool *mp, const struct stk_iface *ifc, uint8_t type,
			      const struct stk_ipaddr *src, const struct stk_ipaddr *dst,
			      const uint8_t target[16], uint8_t na_flags);

/** Ethernet multicast address of an IPv6 multicast address (RFC 2464 §7). */
void stk_ipv6_mcast_mac(const struct stk_ipaddr *a, struct rte_ether_addr *mac);

#endif /* STK_TX_H */
