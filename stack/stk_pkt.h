/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pkt.h - receive-side parsing and classification of Ethernet frames.
 *
 * Position in the packet path: the first thing an lcore does with a received mbuf.
 * stk_parse() validates the wire format (Ethernet, 802.1Q, ARP, IPv4, IPv6, UDP, ICMPv6) and
 * records offsets; stk_classify() then decides where the frame goes: the RoCE handler
 * (UDP 4791), another bound UDP port, the stack's own ARP / neighbour-discovery code, or the
 * exception path to the kernel; MAC Control frames (PFC, 802.3x PAUSE) go to the PFC code and
 * never to the kernel. Every way a frame can be refused is one enum stk_drop value,
 * counted per port and exported to telemetry.
 *
 * Specs: IEEE 802.1Q, RFC 826 (ARP), RFC 791/1071 (IPv4, checksum), RFC 8200 (IPv6),
 * RFC 768 (UDP), RFC 6935/6936 (zero UDP checksum over IPv6, as RoCEv2 uses it), RFC 4861 (ND).
 */
#ifndef STK_PKT_H
#define STK_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

/** UDP destination port of RoCEv2 (IBTA Annex A17.2). */
#define STK_ROCE_UDP_PORT 4791

/*
 * Every reason the stack drops a frame: X(enum suffix, telemetry name).
 * The enum and the names come from this one list, so they cannot drift apart.
 */
#define STK_DROP_LIST(X)                                                                           \
	X(NONE, "none")                                                                            \
	X(ETH_TRUNC, "eth_truncated")                                                              \
	X(VLAN_TRUNC, "vlan_truncated")                                                            \
	X(VLAN_MISMATCH, "vlan_mismatch")                                                          \
	X(ETHERTYPE, "unknown_ethertype")                                                          \
	X(NOT_FOR_US, "l2_not_for_us")                                                             \
	X(OVERSIZE, "oversize")                                                                    \
	X(SEGMENTED, "headers_not_contiguous")                                                     \
	X(ARP_BAD, "arp_malformed")                                                                \
	X(ARP_SRC, "arp_bad_sender")                                                               \
	X(IP4_TRUNC, "ipv4_truncated")                                                             \
	X(IP4_VERSION, "ipv4_bad_version")                                                         \
	X(IP4_IHL, "ipv4_bad_ihl")                                                                 \
	X(IP4_LEN, "ipv4_bad_length")                                                              \
	X(IP4_CSUM, "ipv4_bad_checksum")                                                           \
	X(IP4_SRC, "ipv4_bad_source")                                                              \
	X(IP6_SRC, "ipv6_bad_source")                                                              \
	X(IP6_TRUNC, "ipv6_truncated")                                                             \
	X(IP6_VERSION, "ipv6_bad_version")                                                         \
	X(IP6_LEN, "ipv6_bad_length")                                                              \
	X(IP_NOT_OURS, "ip_not_ours")                                                              \
	X(UDP_TRUNC, "udp_truncated")                                                              \
	X(UDP_LEN, "udp_bad_length")                                                               \
	X(UDP_CSUM, "udp_bad_checksum")                                                            \
	X(UDP_CSUM_ZERO6, "udp6_zero_checksum")                                                    \
	X(ICMP6_BAD, "icmp6_malformed")                                                            \
	X(ND_BAD, "nd_malformed")                                                                  \
	X(ROCE_FRAG, "roce_fragment")                                                              \
	X(NO_HANDLER, "no_roce_handler")                                                           \
	X(HANDLER, "handler_refused")                                                              \
	X(NO_EXCEPTION, "no_exception_path")                                                       \
	X(EXC_RING_FULL, "exception_ring_full")                                                    \
	X(TX_FULL, "tx_full")                                                                      \
	X(NEIGH_FAILED, "neigh_unresolved")                                                        \
	X(NEIGH_QUEUE_FULL, "neigh_queue_full")                                                    \
	X(NEIGH_EVICTED, "neigh_evicted_pending")                                                  \
	X(NO_ROUTE, "no_route")                                                                    \
	X(NO_MBUF, "no_mbuf")                                                                      \
	X(PFC_BAD, "pfc_malformed")                                                                \
	X(PFC_OFF, "pfc_not_honoured")                                                             \
	X(PFC_HOLD_FULL, "pfc_hold_full")

#define STK_DROP_ENUM_(name, str) STK_DROP_##name,
/** Why a frame was dropped. */
enum stk_drop { STK_DROP_LIST(STK_DROP_ENUM_) STK_DROP_NUM };
#undef STK_DROP_ENUM_

/** @return the telemetry name of a drop reason ("?" when out of range). */
const char *stk_drop_name(enum stk_drop d);

/** Where a parsed frame goes. */
enum stk_class {
	STK_CLS_DROP,	  /**< refused: see stk_pkt.drop */
	STK_CLS_ROCE,	  /**< UDP/4791 to one of our addresses */
	STK_CLS_UDP,	  /**< another UDP port to our address: a bound handler or the kernel */
	STK_CLS_ARP,	  /**< ARP, handled by stk_arp_input() */
	STK_CLS_ND,	  /**< ICMPv6 neighbour solicitation/advertisement, stk_nd_input() */
	STK_CLS_KERNEL,	  /**< everything else: the exception path */
	STK_CLS_MAC_CTRL, /**< MAC Control (EtherType 0x8808: PFC, PAUSE): never the kernel's */
};

/** IP address of either family, in network byte order. */
struct stk_ipaddr {
	uint8_t family; /**< 4 or 6; 0 = unset */
	union {
		rte_be32_t v4;
		uint8_t v6[16];
	};
};

/** What stk_parse() found in a frame. Offsets are from the start of the frame. */
struct stk_pkt {
	uint16_t ether_type; /**< inner EtherType, host order */
	uint16_t vlan_tci;   /**< host order; valid when has_vlan */
	bool has_vlan;
	uint8_t l2_len;	  /**< 14, or 18 with a VLAN tag */
	uint8_t l4_proto; /**< IP protocol / IPv6 next header of the L4 header */
	uint8_t tos;	  /**< IPv4 TOS or IPv6 traffic class (DSCP << 2 | ECN) */
	bool ip_frag;	  /**< IPv4 fragment or IPv6 fragment header */
	uint16_t l3_off;
	uint16_t l4_off;      /**< valid when l4_proto is set */
	uint16_t l3_len;      /**< IP total length (v4) or header + payload length (v6) */
	uint16_t payload_off; /**< UDP payload / ICMPv6 body offset */
	uint16_t payload_len;
	uint16_t sport; /**< UDP source port, host order */
	uint16_t dport; /**< UDP destination port, host order */
	uint8_t icmp6_type;
	struct stk_ipaddr src, dst;
	enum stk_drop drop; /**< set when stk_parse() fails */
};

/**
 * Validate a received frame and fill @p p.
 *
 * Limits and checks: the Ethernet header, one optional 802.1Q tag, and the L3/L4 headers must
 * sit in the first segment (PMD receive buffers always satisfy this). IPv4: version 4,
 * 5 <= IHL, header inside the frame, total length inside the frame and >= IHL*4, header
 * checksum (unless the PMD already marked it good or bad). IPv6: version 6, payload length
 * inside the frame; extension headers other than a fragment header leave l4_proto as the
 * extension's number. UDP: 8 <= length <= the IP payload, checksum verified over the whole
 * datagram when non-zero; zero is accepted for IPv4 and, for IPv6, only on RoCEv2's port
 * (RFC 6935). Ethernet padding after the IP datagram is ignored. MAC Control frames
 * (EtherType 0x8808) pass with only the Ethernet header checked: stk_classify() sends them to
 * the PFC code, whose stk_pfc_decode() checks the body.
 *
 * @param m  frame; not modified, ownership unchanged
 * @param p  result
 * @return 0 on success, or -1 with p->drop set to the reason.
 */
int stk_parse(const struct rte_mbuf *m, struct stk_pkt *p);

/**
 * One's complement sum (RFC 1071) of the IPv4 / IPv6 pseudo-header and the L4 datagram of a
 * possibly chained mbuf, folded to 16 bits and not complemented: 0xffff when a received
 * checksum verifies; the checksum to send is its complement. Segments of any length, odd
 * included, are summed correctly.
 *
 * @param l3      the contiguous IP header; its length fields give the datagram length
 * @param family  4 or 6
 * @param l4_off  offset of the L4 header from the start of @p m's data
 */
uint16_t stk_l4_cksum_mbuf(const struct rte_mbuf *m, const void *l3, int family, uint32_t l4_off);

/**
 * One's complement sum (RFC 1071) of an IPv4 header of @p len bytes (its IHL x 4: a multiple
 * of 4), folded to 16 bits and not complemented, as rte_raw_cksum() gives it: 0xffff when the
 * header's checksum verifies; the checksum to send (with the field zeroed) is its complement.
 * Four bytes at a time into a 64-bit sum (DPDK 22.11's rte_raw_cksum() adds 16-bit words one by
 * one, a dependency chain that cost 4 % of a 64 B RDMA WRITE's CPU, two headers per message).
 * The header needs no alignment.
 */
static inline uint16_t stk_ip4_hdr_sum(const void *hdr, unsigned len)
{
	const uint8_t *p = (const uint8_t *)hdr;
	uint64_t s = 0;

	for (unsigned i = 0; i + 4 <= len; i += 4) {
		uint32_t w;

		memcpy(&w, p + i, 4);
		s += w;
	}
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

struct stk_iface;

/**
 * Decide where a frame parsed by stk_parse() goes on interface @p ifc: L2 destination
 * (our MAC, broadcast, multicast), VLAN membership, frame size against the MTU, IP
 * destination, then protocol.
 *
 * @return the class; STK_CLS_DROP with p->drop set when the frame is refused.
 */
enum stk_class stk_classify(const struct stk_iface *ifc, const struct rte_mbuf *m,
			    struct stk_pkt *p);

/** @return true when the two addresses are of the same family and equal. */
bool stk_ipaddr_eq(const struct stk_ipaddr *a, const struct stk_ipaddr *b);

/**
 * Parse "a.b.c.d" or an IPv6 literal into @p out.
 * @return 0, or -EINVAL when it is neither.
 */
int stk_ipaddr_parse(const char *s, struct stk_ipaddr *out);

/** Format @p a into @p buf (at least 46 bytes). @return buf. */
const char *stk_ipaddr_str(const struct stk_ipaddr *a, char *buf, size_t len);

#endif /* STK_PKT_H */
