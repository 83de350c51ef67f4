/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ut_common.h - shared helpers of the stack/ unit tests: EAL bring-up without hugepages, the
 * mbuf pool whose in-use count every teardown checks, and a frame builder that writes
 * Ethernet / 802.1Q / IPv4 / IPv6 / UDP / ICMP / ARP / ND bytes by hand.
 *
 * The builder deliberately uses none of the code under test and none of DPDK's checksum
 * helpers: checksums come from ut_sum() / ut_fold(), a plain RFC 1071 implementation, so a
 * frame the stack accepts was checked against an independent reading of the RFCs.
 */
#ifndef UT_COMMON_H
#define UT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "stk_iface.h"

/* Addresses of the interface under test and of its peer. 192.0.2.0/24 and 198.51.100.0/24
 * are documentation prefixes (RFC 5737), 2001:db8::/32 likewise (RFC 3849). */
extern const uint8_t ut_mac_us[6];    /* 02:00:00:00:00:01 */
extern const uint8_t ut_mac_peer[6];  /* 02:00:00:00:00:02 */
extern const uint8_t ut_mac_other[6]; /* 02:00:00:00:00:99: neither of us */
extern const uint8_t ut_ip4_us[4];    /* 192.0.2.1/24 */
extern const uint8_t ut_ip4_peer[4];  /* 192.0.2.2 */
extern const uint8_t ut_ip6_us[16];   /* 2001:db8::1/64 */
extern const uint8_t ut_ip6_peer[16]; /* 2001:db8::2 */
extern const uint8_t ut_ll_us[16];    /* fe80::ff:fe00:1, EUI-64 of ut_mac_us by hand */
extern const uint8_t ut_ll_peer[16];  /* fe80::ff:fe00:2 */

#define UT_FRAME_MAX 2048

/**
 * Initialise the EAL without hugepages, PCI or telemetry (works as a normal user and under
 * ASan), and create the test mbuf pool (no per-lcore cache, so in-use counts are exact).
 * @param lcores  EAL --lcores value; NULL for lcore 0 alone
 * @return 0 or -1.
 */
int ut_eal_init(const char *name, const char *lcores);

/** Free the pool and clean the EAL up. */
void ut_eal_fini(void);

/** @return the test mbuf pool. */
struct rte_mempool *ut_pool(void);

/**
 * A started net_ring port with one RX queue on @p rx and one TX queue on @p tx (1024
 * descriptors each, mbufs from @p mp): cross two of them for a wire between two endpoints.
 * @return the port id, or -1.
 */
int ut_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
		 struct rte_mempool *mp);

/** @return mbufs of the test pool currently allocated. */
unsigned ut_in_use(void);

/* ---- RFC 1071 Internet checksum, written independently of the code under test ---- */

/** Add @p len bytes at @p buf to the 32-bit one's complement accumulator @p acc. */
uint32_t ut_sum(const void *buf, size_t len, uint32_t acc);

/** Fold @p acc to 16 bits and complement it: the value to store in a checksum field. */
uint16_t ut_fold(uint32_t acc);

/**
 * UDP / ICMPv6 checksum with the pseudo-header of RFC 768 / RFC 8200 §8.1, over @p l4 of
 * @p l4_len bytes (its checksum field included as it stands).
 * @return the folded complement: 0 when a received datagram verifies.
 */
uint16_t ut_l4_csum(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
		    const uint8_t *l4, size_t l4_len);

/* ---- big-endian field access ---- */
void ut_put16(uint8_t *p, uint16_t v);
void ut_put32(uint8_t *p, uint32_t v);
uint16_t ut_get16(const uint8_t *p);
uint32_t ut_get32(const uint8_t *p);

/* ---- frame builder ---- */

/** IP-level description of a frame. */
struct ut_ip {
	uint8_t dmac[6], smac[6];
	int tci;		  /**< 802.1Q TCI, or -1 for an untagged frame */
	int family;		  /**< 4 or 6 */
	uint8_t src[16], dst[16]; /**< IPv4 uses the first 4 bytes */
	uint8_t proto;		  /**< IPv4 protocol / IPv6 next header */
	uint8_t tos;		  /**< TOS / traffic class */
	uint8_t ttl;		  /**< TTL / hop limit */
	uint16_t frag;		  /**< IPv4 flags and fragment offset, host order */
};

/** Where the builder put things, as offsets from the start of the frame. */
struct ut_off {
	uint16_t len; /**< frame length */
	uint16_t l3;  /**< IP / ARP header */
	uint16_t l4;  /**< L4 header */
	uint16_t pay; /**< UDP payload */
};

/** Frame from the peer to us: our MAC and address as destination, TTL 64, DF for IPv4. */
void ut_ip_default(struct ut_ip *ip, int family, uint8_t proto);

/** Write an Ethernet header (with a tag when @p tci >= 0). @return its length. */
uint16_t ut_put_eth(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		    uint16_t type);

/**
 * Ethernet + IPv4 (RFC 791, IHL 5, header checksum filled in) or IPv6 (RFC 8200) around the
 * @p l4_len bytes at @p l4, copied as they are. @return the frame length.
 */
uint16_t ut_frame_ip(uint8_t *b, const struct ut_ip *ip, const uint8_t *l4, uint16_t l4_len,
		     struct ut_off *o);

/** Recompute the IPv4 header checksum of a built frame (after a deliberate mutation). */
void ut_fix_ip4_csum(uint8_t *b, const struct ut_off *o);

/**
 * A UDP datagram (RFC 768) from @p ip->src:sport to @p ip->dst:dport carrying @p payload.
 * The checksum is computed unless @p zero_csum. @return the frame length.
 */
uint16_t ut_frame_udp(uint8_t *b, const struct ut_ip *ip, uint16_t sport, uint16_t dport,
		      const void *payload, uint16_t len, bool zero_csum, struct ut_off *o);

/** Recompute the UDP checksum (IPv4 or IPv6) of a frame built by ut_frame_udp(). */
void ut_fix_udp_csum(uint8_t *b, const struct ut_ip *ip, const struct ut_off *o);

/** An ICMP echo request (RFC 792) from the peer to us. @return the frame length. */
uint16_t ut_frame_icmp4_echo(uint8_t *b, int tci, struct ut_off *o);

/**
 * An ARP packet (RFC 826) for Ethernet/IPv4: @p op 1 request, 2 reply.
 * @return the frame length (no padding to 60 bytes).
 */
uint16_t ut_frame_arp(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		      uint16_t op, const uint8_t sha[6], const uint8_t spa[4], const uint8_t tha[6],
		      const uint8_t tpa[4], struct ut_off *o);

/**
 * An ICMPv6 NS (135) or NA (136) per RFC 4861 §4.3/§4.4 with hop limit @p hop, the
 * flags byte @p flags, and a link-layer address option of type @p opt_type (0: none) carrying
 * @p opt_mac. The ICMPv6 checksum is computed. @return the frame length.
 */
uint16_t ut_frame_nd(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		     const uint8_t src[16], const uint8_t dst[16], uint8_t hop, uint8_t type,
		     uint8_t flags, const uint8_t target[16], uint8_t opt_type,
		     const uint8_t opt_mac[6], struct ut_off *o);

/** An mbuf of the test pool holding a copy of @p len bytes. */
struct rte_mbuf *ut_mbuf(const uint8_t *b, uint16_t len);

/** The same as two chained segments, the first holding @p first bytes. */
struct rte_mbuf *ut_mbuf_chain(const uint8_t *b, uint16_t len, uint16_t first);

/** Copy a (possibly chained) mbuf's bytes to @p out. @return its length. */
uint16_t ut_mbuf_bytes(const struct rte_mbuf *m, uint8_t *out, size_t cap);

/**
 * The interface the tests talk to: ut_mac_us, 192.0.2.1/24, 2001:db8::1/64, link-local
 * fe80::ff:fe00:1, MTU 1500, no VLAN, no gateway, no exception port.
 */
void ut_iface_default(struct stk_iface *ifc);

/**
 * Let tshark read @p n Ethernet frames: they are written to a temporary pcap, and
 * `tshark -r <pcap> -T fields -E separator=, <fields>` runs over it (e.g. fields
 * "-e macc.opcode -e macc.cbfc.enbv"). One output line per frame, in @p out.
 * @return 0; 1 when tshark is not installed (the caller skips); -1 on an I/O error.
 */
int ut_tshark_fields(const uint8_t *const *frames, const uint16_t *lens, unsigned n,
		     const char *fields, char *out, size_t cap);

#endif /* UT_COMMON_H */
