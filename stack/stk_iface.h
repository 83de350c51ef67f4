/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_iface.h - one network interface of the stack: a DPDK data port with its addresses,
 * VLAN, MTU and its exception path (a net_tap carrying the same MAC and IP).
 *
 * An interface is filled in at start-up and read-only afterwards, so every lcore may read it
 * without locks.
 */
#ifndef STK_IFACE_H
#define STK_IFACE_H

#include <stdbool.h>
#include <stdint.h>

#include <net/if.h>
#include <rte_ether.h>
#include <rte_ring.h>

#include "stk_pfc.h"
#include "stk_pkt.h"

#define STK_MAX_PORTS 8
#define STK_NO_PORT UINT16_MAX

/**
 * How RoCE traffic is classified on an interface (the DCB view). A priority is an 802.1p
 * class 0..7: the PCP on VLAN-tagged frames, and through dscp_prio[] the class an untagged
 * frame belongs to (for PFC, which pauses classes). Defaults follow common lossless setups:
 * RoCE data DSCP 26 (AF31) priority 3, CNPs DSCP 48 (CS6) priority 6, and the "trust DSCP"
 * map priority = DSCP >> 3. A QP's path attributes override the DSCP and PCP per QP.
 */
struct stk_qos {
	bool set;	       /**< false: stk_iface_add() fills in the defaults */
	uint8_t roce_dscp;     /**< RoCE data and ACKs (default 26) */
	uint8_t roce_prio;     /**< their priority (default 3) */
	uint8_t cnp_dscp;      /**< congestion notification packets (default 48) */
	uint8_t cnp_prio;      /**< their priority (default 6) */
	uint8_t dscp_prio[64]; /**< DSCP -> priority (default DSCP >> 3) */
};

#define STK_QOS_ROCE_DSCP 26
#define STK_QOS_ROCE_PRIO 3
#define STK_QOS_CNP_DSCP 48
#define STK_QOS_CNP_PRIO 6

/** Fill @p q with the defaults above (set = true). */
void stk_qos_default(struct stk_qos *q);

struct stk_iface {
	char name[32];		      /**< config section, e.g. "port0" */
	uint16_t idx;		      /**< index in the stack's interface array */
	uint16_t port_id;	      /**< DPDK port of the wire */
	uint16_t exc_port_id;	      /**< DPDK port of the exception TAP, or STK_NO_PORT */
	char exc_ifname[IF_NAMESIZE]; /**< kernel name of the exception TAP */
	struct rte_ether_addr mac;    /**< our MAC, shared with the TAP */
	struct stk_ipaddr ip4;	      /**< our IPv4 address (family 0 when none) */
	uint8_t ip4_prefix;	      /**< IPv4 prefix length */
	struct stk_ipaddr gw4;	      /**< IPv4 gateway (family 0 when none) */
	struct stk_ipaddr ip6;	      /**< our global IPv6 address (family 0 when none) */
	uint8_t ip6_prefix;
	struct stk_ipaddr ip6_ll; /**< our link-local address, EUI-64 of the MAC */
	struct stk_ipaddr gw6;
	uint16_t vlan_id; /**< 802.1Q VLAN (when vlan is set) */
	bool vlan;
	uint8_t pcp;	    /**< default priority code point on tagged frames */
	uint8_t dscp;	    /**< default DSCP of frames we originate */
	struct stk_qos qos; /**< RoCE DSCP/priority defaults and the DSCP->priority map */
	uint16_t mtu;	    /**< IP MTU */
	uint16_t nb_rxq;
	uint16_t nb_txq;
	struct rte_ring *exc_ring; /**< frames for the kernel, from any lcore to the TAP owner */
	/* PFC (802.1Qbb), resolved at port start; interfaces built by hand set them directly */
	enum stk_pfc_mode pfc_mode; /**< OFF, SW or HW (never AUTO here) */
	uint8_t pfc_prios;	    /**< lossless priorities (bitmask); 0 in SW = qos.roce_prio */
	uint32_t pfc_xoff;	    /**< backlog (frames) at which we send XOFF; 0 = never */
	uint32_t pfc_xon;	    /**< backlog at or below which we send XON (< pfc_xoff) */
	uint16_t pfc_quanta;	    /**< pause time our XOFF asks for; 0 = 65535 */
	/** PFC storm watchdog (SW mode): a priority paused without a break this long stops
	 * honouring pauses; 0 = STK_PFC_WD_DEFAULT_MS, STK_PFC_WD_OFF = no watchdog */
	uint32_t pfc_wd_ms;
	uint32_t pfc_wd_restore_ms; /**< ... until no XOFF came for this long; 0 = pfc_wd_ms */
	uint64_t link_bps;	    /**< link speed for pause times; 0 = 100 Gbit/s */
};

/** @return true when @p a is one of @p ifc's own addresses. */
bool stk_iface_is_local(const struct stk_iface *ifc, const struct stk_ipaddr *a);

/** @return true when @p a is on one of @p ifc's connected prefixes. */
bool stk_iface_on_link(const struct stk_iface *ifc, const struct stk_ipaddr *a);
/** @return whether IPv4 @p a is the directed broadcast address of @p ifc's subnet. */
bool stk_iface_subnet_bcast(const struct stk_iface *ifc, rte_be32_t a);

/**
 * Pick our source address for talking to @p dst: the global address of its family, or the
 * link-local one for an IPv6 link-local destination.
 * @return 0, or -EADDRNOTAVAIL when the interface has no address of that family.
 */
int stk_iface_src_for(const struct stk_iface *ifc, const struct stk_ipaddr *dst,
		      struct stk_ipaddr *src);

/** Fill @p ll with the EUI-64 link-local address of @p mac (RFC 4291 App. A). */
void stk_ipv6_link_local(const struct rte_ether_addr *mac, struct stk_ipaddr *ll);

/** @return true when @p a is an IPv6 link-local unicast address (fe80::/10, RFC 4291 2.5.6). */
static inline bool stk_ipv6_is_link_local(const struct stk_ipaddr *a)
{
	return a->family == 6 && a->v6[0] == 0xfe && (a->v6[1] & 0xc0) == 0x80;
}

/** Fill @p sn with the solicited-node multicast address of @p a (RFC 4291 §2.7.1). */
void stk_ipv6_solicited_node(const struct stk_ipaddr *a, struct stk_ipaddr *sn);

#endif /* STK_IFACE_H */
