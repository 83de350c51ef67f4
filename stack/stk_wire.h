/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_wire.h - wire structs the stack needs that DPDK 22.11 does not define: IPv6 neighbour
 * discovery (RFC 4861 §4.3, §4.4, §4.6.1). Ethernet, 802.1Q, ARP, IPv4, IPv6 and UDP use
 * DPDK's rte_ether.h, rte_arp.h, rte_ip.h and rte_udp.h.
 */
#ifndef STK_WIRE_H
#define STK_WIRE_H

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#define STK_ND_ROUTER_SOLICIT 133
#define STK_ND_ROUTER_ADVERT 134
#define STK_ND_NEIGHBOR_SOLICIT 135
#define STK_ND_NEIGHBOR_ADVERT 136

#define STK_ND_OPT_SRC_LLADDR 1 /**< source link-layer address option */
#define STK_ND_OPT_TGT_LLADDR 2 /**< target link-layer address option */

/* NA flags, in the first byte of the reserved word (RFC 4861 §4.4) */
#define STK_ND_NA_ROUTER 0x80
#define STK_ND_NA_SOLICITED 0x40
#define STK_ND_NA_OVERRIDE 0x20

/** ICMPv6 neighbour solicitation or advertisement, without options. */
struct stk_nd_msg {
	uint8_t type;	    /**< 135 NS or 136 NA */
	uint8_t code;	    /**< 0 */
	rte_be16_t cksum;   /**< ICMPv6 checksum over the pseudo-header */
	uint8_t flags;	    /**< NA: R/S/O; NS: 0 */
	uint8_t rsvd[3];    /**< 0 */
	uint8_t target[16]; /**< target address */
} __rte_packed;
_Static_assert(sizeof(struct stk_nd_msg) == 24, "NS/NA body is 24 bytes");

/** Source / target link-layer address option for Ethernet (RFC 4861 §4.6.1). */
struct stk_nd_opt_lladdr {
	uint8_t type;			  /**< 1 source, 2 target */
	uint8_t len;			  /**< in units of 8 bytes: 1 */
	uint8_t addr[RTE_ETHER_ADDR_LEN]; /**< link-layer address */
} __rte_packed;
_Static_assert(sizeof(struct stk_nd_opt_lladdr) == 8, "lladdr option is 8 bytes");

#endif /* STK_WIRE_H */
