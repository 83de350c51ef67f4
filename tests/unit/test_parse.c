/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_parse.c - stk_parse() and stk_classify() (stack/stk_pkt.c): every valid frame shape
 * they accept, every drop reason they can produce, and where each class of frame goes.
 *
 * Test vectors: built by hand per IEEE 802.3/802.1Q, RFC 791, RFC 8200, RFC 768, RFC 826 and
 * RFC 4861 in ut_common.c, checksums by an independent RFC 1071 implementation (ut_sum). A
 * malformed frame is a valid one with one field changed; where the change would also break a
 * checksum that is checked earlier, the checksum is recomputed so only the named fault
 * remains.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "stk_iface.h"
#include "stk_pkt.h"
#include "ut_common.h"

static unsigned in_use_at_start;
static struct stk_iface ifc;
static const uint8_t payload16[16] = "0123456789abcdef";

static int setup(void **state)
{
	in_use_at_start = ut_in_use();
	ut_iface_default(&ifc);
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(ut_in_use(), in_use_at_start);
	return 0;
}

/* A valid UDP datagram from the peer to us with 16 bytes of payload. */
static uint16_t udp_frame(uint8_t *b, int family, uint16_t dport, struct ut_ip *ip,
			  struct ut_off *o)
{
	ut_ip_default(ip, family, 17);
	return ut_frame_udp(b, ip, 40000, dport, payload16, sizeof(payload16), false, o);
}

/* stk_parse() on a copy of @b; the mbuf is freed before returning. */
static int parse_bytes(const uint8_t *b, uint16_t len, struct stk_pkt *p)
{
	struct rte_mbuf *m = ut_mbuf(b, len);
	int rc;

	assert_non_null(m);
	rc = stk_parse(m, p);
	rte_pktmbuf_free(m);
	return rc;
}

/* Parse and classify on @i. A parse failure returns STK_CLS_DROP. */
static enum stk_class classify_mbuf(const struct stk_iface *i, struct rte_mbuf *m,
				    struct stk_pkt *p)
{
	enum stk_class c;

	if (stk_parse(m, p) != 0)
		c = STK_CLS_DROP;
	else
		c = stk_classify(i, m, p);
	rte_pktmbuf_free(m);
	return c;
}

static enum stk_class classify_bytes(const struct stk_iface *i, const uint8_t *b, uint16_t len,
				     struct stk_pkt *p)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	return classify_mbuf(i, m, p);
}

static void expect_parse_drop(const uint8_t *b, uint16_t len, enum stk_drop d)
{
	struct stk_pkt p;

	assert_int_equal(parse_bytes(b, len, &p), -1);
	assert_string_equal(stk_drop_name(p.drop), stk_drop_name(d));
}

/* Parses fine, then stk_classify() refuses it for @d. */
static void expect_classify_drop(const struct stk_iface *i, const uint8_t *b, uint16_t len,
				 enum stk_drop d)
{
	struct stk_pkt p;
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	assert_int_equal(stk_parse(m, &p), 0);
	assert_int_equal(stk_classify(i, m, &p), STK_CLS_DROP);
	rte_pktmbuf_free(m);
	assert_string_equal(stk_drop_name(p.drop), stk_drop_name(d));
}

static void expect_class(const struct stk_iface *i, const uint8_t *b, uint16_t len,
			 enum stk_class c)
{
	struct stk_pkt p;

	assert_int_equal(classify_bytes(i, b, len, &p), c);
	assert_int_equal(p.drop, STK_DROP_NONE);
}

/* ---------------- valid frames ---------------- */

static void test_ipv4_udp(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	ip.tos = 0xb9; /* DSCP 46, ECT(1) */
	len = ut_frame_udp(b, &ip, 40000, 5000, payload16, sizeof(payload16), false, &o);
	assert_int_equal(len, 14 + 20 + 8 + 16);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.drop, STK_DROP_NONE);
	assert_int_equal(p.ether_type, 0x0800);
	assert_false(p.has_vlan);
	assert_int_equal(p.l2_len, 14);
	assert_int_equal(p.l3_off, 14);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.l3_len, 20 + 8 + 16);
	assert_int_equal(p.payload_off, 42);
	assert_int_equal(p.payload_len, 16);
	assert_int_equal(p.sport, 40000);
	assert_int_equal(p.dport, 5000);
	assert_int_equal(p.tos, 0xb9);
	assert_false(p.ip_frag);
	assert_int_equal(p.src.family, 4);
	assert_memory_equal(&p.src.v4, ut_ip4_peer, 4);
	assert_int_equal(p.dst.family, 4);
	assert_memory_equal(&p.dst.v4, ut_ip4_us, 4);
	expect_class(&ifc, b, len, STK_CLS_UDP);
}

static void test_ipv4_roce(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_ipv6_udp(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	ut_ip_default(&ip, 6, 17);
	ip.tos = 0x62; /* DSCP 24, ECT(0) */
	len = ut_frame_udp(b, &ip, 40001, 5001, payload16, sizeof(payload16), false, &o);
	assert_int_equal(len, 14 + 40 + 8 + 16);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.ether_type, 0x86dd);
	assert_int_equal(p.l3_off, 14);
	assert_int_equal(p.l4_off, 54);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.l3_len, 40 + 8 + 16);
	assert_int_equal(p.payload_off, 62);
	assert_int_equal(p.payload_len, 16);
	assert_int_equal(p.sport, 40001);
	assert_int_equal(p.dport, 5001);
	assert_int_equal(p.tos, 0x62);
	assert_int_equal(p.src.family, 6);
	assert_memory_equal(p.src.v6, ut_ip6_peer, 16);
	assert_memory_equal(p.dst.v6, ut_ip6_us, 16);
	expect_class(&ifc, b, len, STK_CLS_UDP);
}

static void test_ipv6_roce(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 6, 4791, &ip, &o);

	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_ipv6_link_local_dst(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 6, 17);
	memcpy(ip.src, ut_ll_peer, 16);
	memcpy(ip.dst, ut_ll_us, 16);
	len = ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_vlan_tagged(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	ip.tci = 3 << 13 | 100;
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), false, &o);
	assert_int_equal(len, 18 + 20 + 8 + 16);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_true(p.has_vlan);
	assert_int_equal(p.vlan_tci, 3 << 13 | 100);
	assert_int_equal(p.ether_type, 0x0800);
	assert_int_equal(p.l2_len, 18);
	assert_int_equal(p.l3_off, 18);
	assert_int_equal(p.l4_off, 38);
	assert_int_equal(p.payload_off, 46);
	assert_int_equal(p.payload_len, 16);

	ifc.vlan = true;
	ifc.vlan_id = 100;
	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_vlan_ipv6(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	ut_ip_default(&ip, 6, 17);
	ip.tci = 4094;
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), false, &o);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.vlan_tci, 4094);
	assert_int_equal(p.ether_type, 0x86dd);
	assert_int_equal(p.payload_off, 18 + 40 + 8);
	ifc.vlan = true;
	ifc.vlan_id = 4094;
	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_vlan_mismatch(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* tagged 100 on an untagged interface */
	ut_ip_default(&ip, 4, 17);
	ip.tci = 100;
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_VLAN_MISMATCH);

	/* tagged 100 on VLAN 101 */
	ifc.vlan = true;
	ifc.vlan_id = 101;
	expect_classify_drop(&ifc, b, len, STK_DROP_VLAN_MISMATCH);

	/* untagged on VLAN 101 */
	len = udp_frame(b, 4, 4791, &ip, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_VLAN_MISMATCH);
}

static void test_vlan_priority_tag(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* 802.1Q priority tag: VID 0 with a PCP, accepted on an untagged interface */
	ut_ip_default(&ip, 4, 17);
	ip.tci = 5 << 13;
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), false, &o);
	expect_class(&ifc, b, len, STK_CLS_ROCE);
}

static void test_vlan_stripped_by_pmd(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);
	struct rte_mbuf *m = ut_mbuf(b, len);

	/* the NIC removed the tag and left it in the mbuf */
	assert_non_null(m);
	m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	m->vlan_tci = 2 << 13 | 42;
	ifc.vlan = true;
	ifc.vlan_id = 42;
	assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_ROCE);
	assert_true(p.has_vlan);
	assert_int_equal(p.vlan_tci, 2 << 13 | 42);
	assert_int_equal(p.l2_len, 14);
}

static void test_arp(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t zero[6];
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero, ut_ip4_us,
			   &o);
	assert_int_equal(len, 42);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.ether_type, 0x0806);
	assert_int_equal(p.l3_off, 14);
	expect_class(&ifc, b, len, STK_CLS_ARP);

	/* tagged, to a VLAN interface */
	len = ut_frame_arp(b, bcast, ut_mac_peer, 7, 1, ut_mac_peer, ut_ip4_peer, zero, ut_ip4_us,
			   &o);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.l3_off, 18);
	ifc.vlan = true;
	ifc.vlan_id = 7;
	expect_class(&ifc, b, len, STK_CLS_ARP);
}

static void test_nd_ns(void **state)
{
	/* solicited-node multicast of 2001:db8::1 is ff02::1:ff00:1 (RFC 4291 §2.7.1), its MAC
	 * 33:33:ff:00:00:01 (RFC 2464 §7) */
	static const uint8_t sn[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
	static const uint8_t sn_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	len = ut_frame_nd(b, sn_mac, ut_mac_peer, -1, ut_ip6_peer, sn, 255, 135, 0, ut_ip6_us, 1,
			  ut_mac_peer, &o);
	assert_int_equal(len, 14 + 40 + 32);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.l4_proto, 58);
	assert_int_equal(p.icmp6_type, 135);
	assert_int_equal(p.payload_off, 54);
	assert_int_equal(p.payload_len, 32);
	expect_class(&ifc, b, len, STK_CLS_ND);
}

static void test_nd_na(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	assert_int_equal(parse_bytes(b, len, &p), 0);
	assert_int_equal(p.icmp6_type, 136);
	assert_int_equal(p.payload_len, 32);
	expect_class(&ifc, b, len, STK_CLS_ND);
}

static void test_ipv4_options(void **state)
{
	uint8_t b[UT_FRAME_MAX], opt[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len = udp_frame(b, 4, 5000, &ip, &o);

	/* IHL 6: four NOP options (RFC 791 §3.1, type 1) between the header and UDP. The UDP
	 * checksum does not cover IP options, so it stays valid. */
	memcpy(opt, b, 34);
	memset(opt + 34, 1, 4);
	memcpy(opt + 38, b + 34, (size_t)(len - 34));
	opt[14] = 0x46;
	ut_put16(opt + 16, (uint16_t)(len - 14 + 4));
	ut_fix_ip4_csum(opt, &o);
	assert_int_equal(parse_bytes(opt, (uint16_t)(len + 4), &p), 0);
	assert_int_equal(p.l4_off, 38);
	assert_int_equal(p.payload_off, 46);
	assert_int_equal(p.payload_len, 16);
	assert_int_equal(p.l3_len, 24 + 8 + 16);
	expect_class(&ifc, opt, (uint16_t)(len + 4), STK_CLS_UDP);
}

static void test_ethernet_padding_ignored(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	/* 2 bytes of payload make a 44-byte frame; the sender pads to the 60-byte minimum
	 * (IEEE 802.3). Non-zero padding must not enter the UDP checksum. */
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 7, 5000, "hi", 2, false, &o);
	assert_int_equal(len, 44);
	memset(b + len, 0xa5, 60 - len);
	assert_int_equal(parse_bytes(b, 60, &p), 0);
	assert_int_equal(p.l3_len, 30);
	assert_int_equal(p.payload_len, 2);
	expect_class(&ifc, b, 60, STK_CLS_UDP);

	/* the same for IPv6 with a trailer after the datagram */
	ut_ip_default(&ip, 6, 17);
	len = ut_frame_udp(b, &ip, 7, 5000, "hi", 2, false, &o);
	memset(b + len, 0x5a, 8);
	assert_int_equal(parse_bytes(b, (uint16_t)(len + 8), &p), 0);
	assert_int_equal(p.l3_len, 50);
	assert_int_equal(p.payload_len, 2);
}

static void test_chained_mbuf_valid(void **state)
{
	/* where the second segment starts, relative to the UDP payload: even and odd splits
	 * (an odd one used to break DPDK 22.11's rte_raw_cksum_mbuf) */
	static const uint16_t cuts[] = {0, 1, 12, 13, 199};
	uint8_t b[UT_FRAME_MAX], big[200];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	struct rte_mbuf *m;
	uint16_t len;

	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	for (int family = 4; family <= 6; family += 2) {
		for (unsigned c = 0; c < RTE_DIM(cuts); c++) {
			ut_ip_default(&ip, family, 17);
			len = ut_frame_udp(b, &ip, 40000, 4791, big, sizeof(big), false, &o);
			/* headers in the first segment, the payload split across both */
			m = ut_mbuf_chain(b, len, (uint16_t)(o.pay + cuts[c]));
			assert_non_null(m);
			assert_int_equal(m->nb_segs, 2);
			assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_ROCE);
			assert_int_equal(p.payload_len, sizeof(big));

			/* a bit flipped in the second segment fails the checksum */
			b[len - 3] ^= 0x10;
			m = ut_mbuf_chain(b, len, (uint16_t)(o.pay + cuts[c]));
			assert_non_null(m);
			assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_DROP);
			assert_int_equal(p.drop, STK_DROP_UDP_CSUM);
		}
	}
}

/* ---------------- drop reasons of stk_parse() ---------------- */

static void test_drop_eth_truncated(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;

	udp_frame(b, 4, 4791, &ip, &o);
	expect_parse_drop(b, 13, STK_DROP_ETH_TRUNC);
	expect_parse_drop(b, 0, STK_DROP_ETH_TRUNC);
}

static void test_drop_vlan_truncated(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;

	ut_ip_default(&ip, 4, 17);
	ip.tci = 100;
	ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
	expect_parse_drop(b, 17, STK_DROP_VLAN_TRUNC);
	expect_parse_drop(b, 15, STK_DROP_VLAN_TRUNC);
}

static void test_drop_unknown_ethertype(void **state)
{
	uint8_t b[64] = {0};

	/* 0x88b5: IEEE 802 local experimental EtherType */
	ut_put_eth(b, ut_mac_us, ut_mac_peer, -1, 0x88b5);
	expect_parse_drop(b, 60, STK_DROP_ETHERTYPE);
	/* 802.1ad outer tag: only one 802.1Q tag is understood */
	ut_put_eth(b, ut_mac_us, ut_mac_peer, -1, 0x88a8);
	expect_parse_drop(b, 60, STK_DROP_ETHERTYPE);
	/* 802.1Q tag with an unknown inner type */
	ut_put_eth(b, ut_mac_us, ut_mac_peer, 100, 0x88b5);
	expect_parse_drop(b, 60, STK_DROP_ETHERTYPE);
}

static void test_drop_arp_truncated(void **state)
{
	static const uint8_t zero[6];
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero,
			   ut_ip4_us, &o);
	expect_parse_drop(b, (uint16_t)(len - 1), STK_DROP_ARP_BAD);
	expect_parse_drop(b, 14, STK_DROP_ARP_BAD);
}

static void test_drop_ip4_truncated(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;

	udp_frame(b, 4, 4791, &ip, &o);
	expect_parse_drop(b, 14 + 19, STK_DROP_IP4_TRUNC);
	expect_parse_drop(b, 14, STK_DROP_IP4_TRUNC);
}

static void test_drop_ip4_bad_version(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	b[o.l3] = 0x65; /* version 6 in an IPv4 EtherType */
	ut_fix_ip4_csum(b, &o);
	expect_parse_drop(b, len, STK_DROP_IP4_VERSION);
	b[o.l3] = 0x55;
	ut_fix_ip4_csum(b, &o);
	expect_parse_drop(b, len, STK_DROP_IP4_VERSION);
}

static void test_drop_ip4_bad_ihl(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	b[o.l3] = 0x44; /* 16 bytes: shorter than the fixed header */
	ut_fix_ip4_csum(b, &o);
	expect_parse_drop(b, len, STK_DROP_IP4_IHL);
	b[o.l3] = 0x40;
	expect_parse_drop(b, len, STK_DROP_IP4_IHL);
	/* 60 bytes of header in a 44-byte datagram */
	b[o.l3] = 0x4f;
	expect_parse_drop(b, len, STK_DROP_IP4_IHL);
}

static void test_drop_ip4_bad_length(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	/* one byte more than the frame holds */
	ut_put16(b + o.l3 + 2, (uint16_t)(len - 14 + 1));
	ut_fix_ip4_csum(b, &o);
	expect_parse_drop(b, len, STK_DROP_IP4_LEN);
	/* shorter than its own header */
	ut_put16(b + o.l3 + 2, 19);
	ut_fix_ip4_csum(b, &o);
	expect_parse_drop(b, len, STK_DROP_IP4_LEN);
}

static void test_drop_ip4_bad_checksum(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	b[o.l3 + 10] ^= 0x01;
	expect_parse_drop(b, len, STK_DROP_IP4_CSUM);
	/* checksum intact, a header byte changed */
	b[o.l3 + 10] ^= 0x01;
	b[o.l3 + 8] = 63; /* TTL */
	expect_parse_drop(b, len, STK_DROP_IP4_CSUM);
}

static void test_drop_ip4_bad_source(void **state)
{
	/* RFC 1122 §3.2.1.3: multicast and limited broadcast are never sources */
	static const uint8_t srcs[][4] = {
		{224, 0, 0, 5}, {239, 255, 255, 250}, {255, 255, 255, 255}};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	for (unsigned i = 0; i < RTE_DIM(srcs); i++) {
		ut_ip_default(&ip, 4, 17);
		memcpy(ip.src, srcs[i], 4);
		len = ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
		expect_parse_drop(b, len, STK_DROP_IP4_SRC);
	}
}

static void test_drop_ip6_truncated(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;

	udp_frame(b, 6, 4791, &ip, &o);
	expect_parse_drop(b, 14 + 39, STK_DROP_IP6_TRUNC);
	expect_parse_drop(b, 14, STK_DROP_IP6_TRUNC);
}

static void test_drop_ip6_bad_version(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 6, 4791, &ip, &o);

	b[o.l3] = (uint8_t)((b[o.l3] & 0x0f) | 0x40);
	expect_parse_drop(b, len, STK_DROP_IP6_VERSION);
}

static void test_drop_ip6_bad_length(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len = udp_frame(b, 6, 4791, &ip, &o);

	ut_put16(b + o.l3 + 4, (uint16_t)(len - 14 - 40 + 1));
	expect_parse_drop(b, len, STK_DROP_IP6_LEN);
	ut_put16(b + o.l3 + 4, 0xffff);
	expect_parse_drop(b, len, STK_DROP_IP6_LEN);
}

static void test_drop_udp_truncated(void **state)
{
	static const uint8_t seven[7] = {0x9c, 0x40, 0x12, 0xb7, 0x00, 0x08, 0x00};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* an IP datagram of protocol 17 that holds only 7 bytes */
	for (int family = 4; family <= 6; family += 2) {
		ut_ip_default(&ip, family, 17);
		len = ut_frame_ip(b, &ip, seven, sizeof(seven), &o);
		expect_parse_drop(b, len, STK_DROP_UDP_TRUNC);
	}
}

static void test_drop_udp_bad_length(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	for (int family = 4; family <= 6; family += 2) {
		len = udp_frame(b, family, 4791, &ip, &o);
		ut_put16(b + o.l4 + 4, 7); /* below the header size */
		expect_parse_drop(b, len, STK_DROP_UDP_LEN);
		ut_put16(b + o.l4 + 4, 8 + 16 + 1); /* past the IP payload */
		expect_parse_drop(b, len, STK_DROP_UDP_LEN);
	}
}

static void test_drop_udp_bad_checksum(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	for (int family = 4; family <= 6; family += 2) {
		len = udp_frame(b, family, 4791, &ip, &o);
		b[o.pay + 5] ^= 0x80;
		expect_parse_drop(b, len, STK_DROP_UDP_CSUM);
		b[o.pay + 5] ^= 0x80;
		ut_put16(b + o.l4 + 6, (uint16_t)(ut_get16(b + o.l4 + 6) + 1));
		expect_parse_drop(b, len, STK_DROP_UDP_CSUM);
	}
}

static void test_udp_zero_checksum(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* RFC 8200 §8.1: zero is invalid over IPv6 ... */
	ut_ip_default(&ip, 6, 17);
	len = ut_frame_udp(b, &ip, 40000, 5000, payload16, sizeof(payload16), true, &o);
	assert_int_equal(ut_get16(b + o.l4 + 6), 0);
	expect_parse_drop(b, len, STK_DROP_UDP_CSUM_ZERO6);
	/* ... except where the protocol allows it (RFC 6935), as RoCEv2 does on 4791 */
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), true, &o);
	expect_class(&ifc, b, len, STK_CLS_ROCE);
	/* RFC 768: zero means "no checksum" over IPv4, on any port */
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 40000, 5000, payload16, sizeof(payload16), true, &o);
	expect_class(&ifc, b, len, STK_CLS_UDP);
}

static void test_drop_icmp6_truncated(void **state)
{
	static const uint8_t three[3] = {128, 0, 0};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 6, 58);
	len = ut_frame_ip(b, &ip, three, sizeof(three), &o);
	expect_parse_drop(b, len, STK_DROP_ICMP6_BAD);
}

static void test_drop_headers_not_contiguous(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	struct rte_mbuf *m;
	uint16_t len;
	/* first segment ends inside: Ethernet, the IPv4 header, the UDP header */
	static const uint16_t cut4[] = {10, 14 + 10, 14 + 20 + 4};
	static const uint16_t cut6[] = {14 + 30, 14 + 40 + 4};

	len = udp_frame(b, 4, 4791, &ip, &o);
	for (unsigned i = 0; i < RTE_DIM(cut4); i++) {
		m = ut_mbuf_chain(b, len, cut4[i]);
		assert_non_null(m);
		assert_int_equal(stk_parse(m, &p), -1);
		assert_string_equal(stk_drop_name(p.drop), "headers_not_contiguous");
		rte_pktmbuf_free(m);
	}
	/* a tag or an ARP body cut by the segment end: the frame is whole, only split */
	ut_ip_default(&ip, 4, 17);
	ip.tci = 100;
	len = ut_frame_udp(b, &ip, 40000, 4791, payload16, sizeof(payload16), false, &o);
	m = ut_mbuf_chain(b, len, 16);
	assert_non_null(m);
	assert_int_equal(stk_parse(m, &p), -1);
	assert_string_equal(stk_drop_name(p.drop), "headers_not_contiguous");
	rte_pktmbuf_free(m);
	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, ut_mac_peer,
			   ut_ip4_us, &o);
	m = ut_mbuf_chain(b, len, 14 + 20);
	assert_non_null(m);
	assert_int_equal(stk_parse(m, &p), -1);
	assert_string_equal(stk_drop_name(p.drop), "headers_not_contiguous");
	rte_pktmbuf_free(m);

	len = udp_frame(b, 6, 4791, &ip, &o);
	for (unsigned i = 0; i < RTE_DIM(cut6); i++) {
		m = ut_mbuf_chain(b, len, cut6[i]);
		assert_non_null(m);
		assert_int_equal(stk_parse(m, &p), -1);
		assert_int_equal(p.drop, STK_DROP_SEGMENTED);
		rte_pktmbuf_free(m);
	}
}

static void test_offload_flags(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	struct rte_mbuf *m;
	uint16_t len = udp_frame(b, 4, 4791, &ip, &o);

	/* the PMD's verdict wins over the bytes, both ways */
	m = ut_mbuf(b, len);
	assert_non_null(m);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_DROP);
	assert_int_equal(p.drop, STK_DROP_IP4_CSUM);

	m = ut_mbuf(b, len);
	assert_non_null(m);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
	assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_DROP);
	assert_int_equal(p.drop, STK_DROP_UDP_CSUM);

	b[o.l3 + 10] ^= 0xff;
	b[o.l4 + 6] ^= 0xff;
	m = ut_mbuf(b, len);
	assert_non_null(m);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	assert_int_equal(classify_mbuf(&ifc, m, &p), STK_CLS_ROCE);
}

/* ---------------- drop reasons of stk_classify() ---------------- */

static void test_drop_not_for_us(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	memcpy(ip.dmac, ut_mac_other, 6);
	len = ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_NOT_FOR_US);
}

static void test_drop_oversize(void **state)
{
	uint8_t b[UT_FRAME_MAX], big[1500] = {0};
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* IPv4: 20 + 8 + 1472 = 1500 fits the MTU, one byte more does not */
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 1, 4791, big, 1472, false, &o);
	expect_class(&ifc, b, len, STK_CLS_ROCE);
	len = ut_frame_udp(b, &ip, 1, 4791, big, 1473, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_OVERSIZE);
	/* IPv6: 40 + 8 + 1452 = 1500 */
	ut_ip_default(&ip, 6, 17);
	len = ut_frame_udp(b, &ip, 1, 4791, big, 1452, false, &o);
	expect_class(&ifc, b, len, STK_CLS_ROCE);
	len = ut_frame_udp(b, &ip, 1, 4791, big, 1453, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_OVERSIZE);
	/* a smaller MTU */
	ifc.mtu = 1000;
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 1, 4791, big, 973, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_OVERSIZE);
}

static void test_drop_ip_not_ours(void **state)
{
	static const uint8_t other4[4] = {192, 0, 2, 77};
	static const uint8_t other6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x77};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	memcpy(ip.dst, other4, 4);
	len = ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_IP_NOT_OURS);
	ut_ip_default(&ip, 6, 17);
	memcpy(ip.dst, other6, 16);
	len = ut_frame_udp(b, &ip, 1, 4791, payload16, 4, false, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_IP_NOT_OURS);
	/* an interface without IPv4 owns no IPv4 address */
	memset(&ifc.ip4, 0, sizeof(ifc.ip4));
	len = udp_frame(b, 4, 4791, &ip, &o);
	expect_classify_drop(&ifc, b, len, STK_DROP_IP_NOT_OURS);
}

/* ---------------- classification ---------------- */

static void test_class_icmp_to_kernel(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);

	expect_class(&ifc, b, len, STK_CLS_KERNEL);
}

static void test_class_other_l4_to_kernel(void **state)
{
	static const uint8_t tcp[20] = {0x9c, 0x40, 0x00, 0x16, [12] = 0x50, [13] = 0x02};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	/* TCP is the kernel's */
	ut_ip_default(&ip, 4, 6);
	len = ut_frame_ip(b, &ip, tcp, sizeof(tcp), &o);
	expect_class(&ifc, b, len, STK_CLS_KERNEL);
	/* an IPv6 hop-by-hop header (next header 0) is left to the kernel */
	ut_ip_default(&ip, 6, 0);
	len = ut_frame_ip(b, &ip, tcp, sizeof(tcp), &o);
	expect_class(&ifc, b, len, STK_CLS_KERNEL);
}

static void test_class_ipv4_fragment(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	/* first fragment (MF), even of a RoCE datagram: the kernel reassembles */
	ut_ip_default(&ip, 4, 17);
	ip.frag = 0x2000;
	len = ut_frame_udp(b, &ip, 1, 4791, payload16, 16, false, &o);
	assert_int_equal(classify_bytes(&ifc, b, len, &p), STK_CLS_KERNEL);
	assert_true(p.ip_frag);
	/* a later fragment (offset 185 x 8 bytes): its bytes are not a UDP header at all */
	ip.frag = 185;
	len = ut_frame_ip(b, &ip, payload16, 16, &o);
	assert_int_equal(classify_bytes(&ifc, b, len, &p), STK_CLS_KERNEL);
	assert_true(p.ip_frag);
}

static void test_class_ipv6_fragment(void **state)
{
	/* RFC 8200 §4.5 fragment header: next header 17, offset 0, M=1, id 1 */
	static const uint8_t frag[8 + 16] = {17, 0, 0x00, 0x01, 0, 0, 0, 1};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct stk_pkt p;
	uint16_t len;

	ut_ip_default(&ip, 6, 44);
	len = ut_frame_ip(b, &ip, frag, sizeof(frag), &o);
	assert_int_equal(classify_bytes(&ifc, b, len, &p), STK_CLS_KERNEL);
	assert_true(p.ip_frag);
}

static void test_class_multicast_to_kernel(void **state)
{
	static const uint8_t mdns4[4] = {224, 0, 0, 251};
	static const uint8_t mdns4_mac[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
	static const uint8_t bcast4[4] = {255, 255, 255, 255};
	static const uint8_t bcast_mac[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t mdns6[16] = {0xff, 0x02, [15] = 0xfb};
	static const uint8_t mdns6_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0xfb};
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	memcpy(ip.dst, mdns4, 4);
	memcpy(ip.dmac, mdns4_mac, 6);
	len = ut_frame_udp(b, &ip, 5353, 5353, payload16, 4, false, &o);
	expect_class(&ifc, b, len, STK_CLS_KERNEL);

	/* DHCP-style limited broadcast */
	memcpy(ip.dst, bcast4, 4);
	memcpy(ip.dmac, bcast_mac, 6);
	len = ut_frame_udp(b, &ip, 68, 67, payload16, 4, false, &o);
	expect_class(&ifc, b, len, STK_CLS_KERNEL);

	ut_ip_default(&ip, 6, 17);
	memcpy(ip.dst, mdns6, 16);
	memcpy(ip.dmac, mdns6_mac, 6);
	len = ut_frame_udp(b, &ip, 5353, 5353, payload16, 4, false, &o);
	expect_class(&ifc, b, len, STK_CLS_KERNEL);
}

/* ---------------- names and addresses ---------------- */

static void test_drop_names(void **state)
{
	assert_string_equal(stk_drop_name(STK_DROP_NONE), "none");
	assert_string_equal(stk_drop_name(STK_DROP_ETH_TRUNC), "eth_truncated");
	assert_string_equal(stk_drop_name(STK_DROP_UDP_CSUM_ZERO6), "udp6_zero_checksum");
	assert_string_equal(stk_drop_name(STK_DROP_NO_MBUF), "no_mbuf");
	assert_string_equal(stk_drop_name(STK_DROP_NUM), "?");
	assert_string_equal(stk_drop_name((enum stk_drop) - 1), "?");
	/* every reason has its own name */
	for (unsigned i = 0; i < STK_DROP_NUM; i++) {
		assert_non_null(stk_drop_name((enum stk_drop)i));
		assert_true(strlen(stk_drop_name((enum stk_drop)i)) > 1);
		for (unsigned k = 0; k < i; k++)
			assert_string_not_equal(stk_drop_name((enum stk_drop)i),
						stk_drop_name((enum stk_drop)k));
	}
}

static void test_ipaddr(void **state)
{
	struct stk_ipaddr a, b6;
	char buf[64];

	assert_int_equal(stk_ipaddr_parse("192.0.2.1", &a), 0);
	assert_int_equal(a.family, 4);
	assert_memory_equal(&a.v4, ut_ip4_us, 4);
	assert_string_equal(stk_ipaddr_str(&a, buf, sizeof(buf)), "192.0.2.1");

	assert_int_equal(stk_ipaddr_parse("2001:db8::1", &b6), 0);
	assert_int_equal(b6.family, 6);
	assert_memory_equal(b6.v6, ut_ip6_us, 16);
	assert_string_equal(stk_ipaddr_str(&b6, buf, sizeof(buf)), "2001:db8::1");

	assert_int_equal(stk_ipaddr_parse("192.0.2", &a), -EINVAL);
	assert_int_equal(a.family, 0);
	assert_int_equal(stk_ipaddr_parse("2001:db8:::1", &a), -EINVAL);
	assert_int_equal(stk_ipaddr_parse("", &a), -EINVAL);
	assert_string_equal(stk_ipaddr_str(&a, buf, sizeof(buf)), "-");

	/* equality needs the same family: 192.0.2.1 is not 2001:db8::1's first word */
	assert_int_equal(stk_ipaddr_parse("192.0.2.1", &a), 0);
	memset(&b6, 0, sizeof(b6));
	b6.family = 6;
	memcpy(b6.v6, ut_ip4_us, 4);
	assert_false(stk_ipaddr_eq(&a, &b6));
	assert_true(stk_ipaddr_eq(&a, &a));
	memset(&a, 0, sizeof(a));
	assert_false(stk_ipaddr_eq(&a, &a)); /* unset is equal to nothing */
}

static void test_iface_predicates(void **state)
{
	struct stk_ipaddr a, src;

	assert_int_equal(stk_ipaddr_parse("192.0.2.1", &a), 0);
	assert_true(stk_iface_is_local(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("fe80::ff:fe00:1", &a), 0);
	assert_true(stk_iface_is_local(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("192.0.2.254", &a), 0);
	assert_false(stk_iface_is_local(&ifc, &a));
	assert_true(stk_iface_on_link(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("192.0.3.1", &a), 0);
	assert_false(stk_iface_on_link(&ifc, &a));
	ifc.ip4_prefix = 23; /* 192.0.2.0/23 holds 192.0.3.x */
	assert_true(stk_iface_on_link(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("2001:db8::ffff", &a), 0);
	assert_true(stk_iface_on_link(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("2001:db8:0:1::1", &a), 0);
	assert_false(stk_iface_on_link(&ifc, &a));
	assert_int_equal(stk_ipaddr_parse("fe80::1234", &a), 0);
	assert_true(stk_iface_on_link(&ifc, &a));

	/* source selection: global for global, link-local for link-local */
	assert_int_equal(stk_iface_src_for(&ifc, &a, &src), 0);
	assert_memory_equal(src.v6, ut_ll_us, 16);
	assert_int_equal(stk_ipaddr_parse("2001:db8::2", &a), 0);
	assert_int_equal(stk_iface_src_for(&ifc, &a, &src), 0);
	assert_memory_equal(src.v6, ut_ip6_us, 16);
	assert_int_equal(stk_ipaddr_parse("192.0.2.2", &a), 0);
	assert_int_equal(stk_iface_src_for(&ifc, &a, &src), 0);
	assert_memory_equal(&src.v4, ut_ip4_us, 4);
	memset(&ifc.ip4, 0, sizeof(ifc.ip4));
	assert_int_equal(stk_iface_src_for(&ifc, &a, &src), -EADDRNOTAVAIL);
	/* no IPv6 address at all, not even link-local */
	memset(&ifc.ip6, 0, sizeof(ifc.ip6));
	memset(&ifc.ip6_ll, 0, sizeof(ifc.ip6_ll));
	assert_int_equal(stk_ipaddr_parse("2001:db8::2", &a), 0);
	assert_int_equal(stk_iface_src_for(&ifc, &a, &src), -EADDRNOTAVAIL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_ipv4_udp),
		T(test_ipv4_roce),
		T(test_ipv6_udp),
		T(test_ipv6_roce),
		T(test_ipv6_link_local_dst),
		T(test_vlan_tagged),
		T(test_vlan_ipv6),
		T(test_vlan_mismatch),
		T(test_vlan_priority_tag),
		T(test_vlan_stripped_by_pmd),
		T(test_arp),
		T(test_nd_ns),
		T(test_nd_na),
		T(test_ipv4_options),
		T(test_ethernet_padding_ignored),
		T(test_chained_mbuf_valid),
		T(test_drop_eth_truncated),
		T(test_drop_vlan_truncated),
		T(test_drop_unknown_ethertype),
		T(test_drop_arp_truncated),
		T(test_drop_ip4_truncated),
		T(test_drop_ip4_bad_version),
		T(test_drop_ip4_bad_ihl),
		T(test_drop_ip4_bad_length),
		T(test_drop_ip4_bad_checksum),
		T(test_drop_ip4_bad_source),
		T(test_drop_ip6_truncated),
		T(test_drop_ip6_bad_version),
		T(test_drop_ip6_bad_length),
		T(test_drop_udp_truncated),
		T(test_drop_udp_bad_length),
		T(test_drop_udp_bad_checksum),
		T(test_udp_zero_checksum),
		T(test_drop_icmp6_truncated),
		T(test_drop_headers_not_contiguous),
		T(test_offload_flags),
		T(test_drop_not_for_us),
		T(test_drop_oversize),
		T(test_drop_ip_not_ours),
		T(test_class_icmp_to_kernel),
		T(test_class_other_l4_to_kernel),
		T(test_class_ipv4_fragment),
		T(test_class_ipv6_fragment),
		T(test_class_multicast_to_kernel),
		T(test_drop_names),
		T(test_ipaddr),
		T(test_iface_predicates),
	};
	int rc;

	(void)argc;
	if (ut_eal_init("test_parse", NULL) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("stk_parse / stk_classify", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
