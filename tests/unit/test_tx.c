/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_tx.c - the transmit-side builders of stack/stk_tx.c and the address helpers of
 * stack/stk_iface.c: stk_udp_encap() for IPv4 and IPv6 with and without 802.1Q, its error
 * returns, stk_arp_build(), stk_nd_build(), the RFC 4291 / RFC 2464 address mappings, and
 * round trips from a builder through stk_parse() / stk_classify().
 *
 * Expected bytes are written out from the RFCs' header layouts (RFC 791, RFC 8200, RFC 768,
 * RFC 826, RFC 4861, IEEE 802.1Q); checksums are verified with the tests' own RFC 1071 code
 * (ut_sum / ut_l4_csum), never with DPDK's or the stack's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "stk_iface.h"
#include "stk_pkt.h"
#include "stk_tx.h"
#include "ut_common.h"

static unsigned in_use_at_start;
static struct stk_iface ifc;
static const uint8_t zero6[6];
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

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

static struct stk_ipaddr addr4(const uint8_t *a)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 4;
	memcpy(&x.v4, a, 4);
	return x;
}

static struct stk_ipaddr addr6(const uint8_t *a)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 6;
	memcpy(x.v6, a, 16);
	return x;
}

/* An mbuf holding @len bytes of UDP payload, with the pool's default headroom. */
static struct rte_mbuf *payload_mbuf(const void *data, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(data, len);

	assert_non_null(m);
	return m;
}

static void flow_default(struct stk_flow *f, int family)
{
	memset(f, 0, sizeof(*f));
	f->dst = family == 4 ? addr4(ut_ip4_peer) : addr6(ut_ip6_peer);
	f->sport = 49152;
	f->dport = 4791;
	f->pcp = STK_PCP_DEFAULT;
	f->csum = STK_CSUM_FULL;
}

/* Check the IPv4 header at @h (RFC 791) and the UDP datagram after it (RFC 768). */
static void check_ipv4_udp(const uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t tos,
			   uint8_t ttl, uint16_t sport, uint16_t dport, const void *payload,
			   uint16_t plen, bool zero_csum)
{
	const uint8_t *u = h + 20;

	assert_int_equal(h[0], 0x45);
	assert_int_equal(h[1], tos);
	assert_int_equal(ut_get16(h + 2), 20 + 8 + plen);
	assert_int_equal(ut_get16(h + 4), 0);	   /* RFC 6864: atomic datagram, ID 0 */
	assert_int_equal(ut_get16(h + 6), 0x4000); /* DF, offset 0 */
	assert_int_equal(h[8], ttl);
	assert_int_equal(h[9], 17);
	assert_memory_equal(h + 12, src, 4);
	assert_memory_equal(h + 16, dst, 4);
	assert_int_equal(ut_fold(ut_sum(h, 20, 0)), 0); /* header checksum verifies */
	assert_int_equal(ut_get16(u), sport);
	assert_int_equal(ut_get16(u + 2), dport);
	assert_int_equal(ut_get16(u + 4), 8 + plen);
	if (zero_csum)
		assert_int_equal(ut_get16(u + 6), 0);
	else {
		assert_int_not_equal(ut_get16(u + 6), 0);
		assert_int_equal(ut_l4_csum(4, src, dst, 17, u, 8u + plen), 0);
	}
	assert_memory_equal(u + 8, payload, plen);
}

/* Check the IPv6 header at @h (RFC 8200) and the UDP datagram after it. */
static void check_ipv6_udp(const uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t tc,
			   uint32_t flow, uint8_t hop, uint16_t sport, uint16_t dport,
			   const void *payload, uint16_t plen, bool zero_csum)
{
	const uint8_t *u = h + 40;

	assert_int_equal(ut_get32(h), 6u << 28 | (uint32_t)tc << 20 | flow);
	assert_int_equal(ut_get16(h + 4), 8 + plen);
	assert_int_equal(h[6], 17);
	assert_int_equal(h[7], hop);
	assert_memory_equal(h + 8, src, 16);
	assert_memory_equal(h + 24, dst, 16);
	assert_int_equal(ut_get16(u), sport);
	assert_int_equal(ut_get16(u + 2), dport);
	assert_int_equal(ut_get16(u + 4), 8 + plen);
	if (zero_csum)
		assert_int_equal(ut_get16(u + 6), 0);
	else {
		assert_int_not_equal(ut_get16(u + 6), 0);
		assert_int_equal(ut_l4_csum(6, src, dst, 17, u, 8u + plen), 0);
	}
	assert_memory_equal(u + 8, payload, plen);
}

/* ---------------- stk_udp_encap ---------------- */

static void test_encap_ipv4(void **state)
{
	struct rte_mbuf *m = payload_mbuf("hello", 5);
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	flow_default(&f, 4);
	f.dscp = 26; /* AF31 */
	f.ecn = 2;   /* ECT(0) */
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 20 + 8 + 5);
	/* destination MAC left zero for the neighbour code to fill in */
	assert_memory_equal(b, zero6, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x0800);
	/* TOS = DSCP << 2 | ECN (RFC 2474, RFC 3168); TTL 0 in the flow means 64 */
	check_ipv4_udp(b + 14, ut_ip4_us, ut_ip4_peer, 26 << 2 | 2, 64, 49152, 4791, "hello", 5,
		       false);
	rte_pktmbuf_free(m);
}

static void test_encap_ipv4_tos_ttl(void **state)
{
	static const struct {
		uint8_t dscp, ecn, ttl, tos, want_ttl;
	} v[] = {{63, 3, 7, 0xff, 7}, {0, 0, 255, 0x00, 255}, {46, 1, 1, 0xb9, 1}};
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	for (unsigned i = 0; i < RTE_DIM(v); i++) {
		struct rte_mbuf *m = payload_mbuf("x", 1);

		flow_default(&f, 4);
		f.dscp = v[i].dscp;
		f.ecn = v[i].ecn;
		f.ttl = v[i].ttl;
		assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
		ut_mbuf_bytes(m, b, sizeof(b));
		check_ipv4_udp(b + 14, ut_ip4_us, ut_ip4_peer, v[i].tos, v[i].want_ttl, 49152, 4791,
			       "x", 1, false);
		rte_pktmbuf_free(m);
	}
}

static void test_encap_ipv4_vlan(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;
	struct rte_mbuf *m;

	ifc.vlan = true;
	ifc.vlan_id = 100;
	ifc.pcp = 5;
	assert_int_equal(stk_l2_len(&ifc), 18);

	/* the interface's PCP by default: TCI = 5 << 13 | 100 */
	m = payload_mbuf("abcd", 4);
	flow_default(&f, 4);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 18 + 20 + 8 + 4);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x8100);
	assert_int_equal(ut_get16(b + 14), 5 << 13 | 100);
	assert_int_equal(ut_get16(b + 16), 0x0800);
	check_ipv4_udp(b + 18, ut_ip4_us, ut_ip4_peer, 0, 64, 49152, 4791, "abcd", 4, false);
	rte_pktmbuf_free(m);

	/* the flow's own PCP */
	m = payload_mbuf("abcd", 4);
	f.pcp = 3;
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	ut_mbuf_bytes(m, b, sizeof(b));
	assert_int_equal(ut_get16(b + 14), 3 << 13 | 100);
	rte_pktmbuf_free(m);
}

static void test_encap_ipv6(void **state)
{
	struct rte_mbuf *m = payload_mbuf("hello6", 6);
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	assert_int_equal(stk_l2_len(&ifc), 14);
	flow_default(&f, 6);
	f.dscp = 46;
	f.ecn = 1;
	f.ttl = 32;
	f.flow_label = 0x12345;
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 40 + 8 + 6);
	assert_memory_equal(b, zero6, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x86dd);
	/* traffic class 46 << 2 | 1 = 0xb9, the flow label in the low 20 bits */
	assert_int_equal(ut_get32(b + 14), 0x6b912345);
	check_ipv6_udp(b + 14, ut_ip6_us, ut_ip6_peer, 0xb9, 0x12345, 32, 49152, 4791, "hello6", 6,
		       false);
	rte_pktmbuf_free(m);

	/* a flow label wider than 20 bits cannot reach the version or traffic class */
	m = payload_mbuf("z", 1);
	flow_default(&f, 6);
	f.flow_label = 0xfff00001;
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	ut_mbuf_bytes(m, b, sizeof(b));
	assert_int_equal(ut_get32(b + 14), 0x60000001);
	rte_pktmbuf_free(m);
}

static void test_encap_ipv6_link_local(void **state)
{
	struct rte_mbuf *m = payload_mbuf("ll", 2);
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	/* a link-local destination gets the link-local source */
	flow_default(&f, 6);
	f.dst = addr6(ut_ll_peer);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	ut_mbuf_bytes(m, b, sizeof(b));
	check_ipv6_udp(b + 14, ut_ll_us, ut_ll_peer, 0, 0, 64, 49152, 4791, "ll", 2, false);
	rte_pktmbuf_free(m);
}

static void test_encap_ipv6_vlan(void **state)
{
	struct rte_mbuf *m = payload_mbuf("v6", 2);
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	ifc.vlan = true;
	ifc.vlan_id = 4094;
	ifc.pcp = 0;
	flow_default(&f, 6);
	f.pcp = 7;
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 18 + 40 + 8 + 2);
	assert_int_equal(ut_get16(b + 12), 0x8100);
	assert_int_equal(ut_get16(b + 14), 7 << 13 | 4094);
	assert_int_equal(ut_get16(b + 16), 0x86dd);
	check_ipv6_udp(b + 18, ut_ip6_us, ut_ip6_peer, 0, 0, 64, 49152, 4791, "v6", 2, false);
	rte_pktmbuf_free(m);
}

static void test_encap_zero_csum(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	for (int family = 4; family <= 6; family += 2) {
		struct rte_mbuf *m = payload_mbuf("roce", 4);

		flow_default(&f, family);
		f.csum = STK_CSUM_ZERO;
		assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
		ut_mbuf_bytes(m, b, sizeof(b));
		if (family == 4)
			check_ipv4_udp(b + 14, ut_ip4_us, ut_ip4_peer, 0, 64, 49152, 4791, "roce",
				       4, true);
		else
			check_ipv6_udp(b + 14, ut_ip6_us, ut_ip6_peer, 0, 0, 64, 49152, 4791,
				       "roce", 4, true);
		rte_pktmbuf_free(m);
	}
}

static void test_encap_explicit_source(void **state)
{
	static const uint8_t alias[4] = {192, 0, 2, 9};
	struct rte_mbuf *m = payload_mbuf("s", 1);
	uint8_t b[UT_FRAME_MAX];
	struct stk_flow f;

	flow_default(&f, 4);
	f.src = addr4(alias);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	ut_mbuf_bytes(m, b, sizeof(b));
	check_ipv4_udp(b + 14, alias, ut_ip4_peer, 0, 64, 49152, 4791, "s", 1, false);
	rte_pktmbuf_free(m);
}

static void test_encap_chained_payload(void **state)
{
	/* payload in two segments of odd length: the checksum must still cover it right */
	uint8_t p1[101], p2[200], all[301], b[UT_FRAME_MAX];
	struct stk_flow f;

	for (unsigned i = 0; i < sizeof(all); i++)
		all[i] = (uint8_t)(i * 13 + 5);
	memcpy(p1, all, sizeof(p1));
	memcpy(p2, all + sizeof(p1), sizeof(p2));
	for (int family = 4; family <= 6; family += 2) {
		struct rte_mbuf *m = payload_mbuf(p1, sizeof(p1));
		struct rte_mbuf *m2 = payload_mbuf(p2, sizeof(p2));

		assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
		flow_default(&f, family);
		assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
		assert_int_equal(m->nb_segs, 2);
		assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)),
				 14 + (family == 4 ? 20 : 40) + 8 + sizeof(all));
		if (family == 4)
			check_ipv4_udp(b + 14, ut_ip4_us, ut_ip4_peer, 0, 64, 49152, 4791, all,
				       sizeof(all), false);
		else
			check_ipv6_udp(b + 14, ut_ip6_us, ut_ip6_peer, 0, 0, 64, 49152, 4791, all,
				       sizeof(all), false);
		rte_pktmbuf_free(m);
	}
}

/* stk_udp_encap() must fail with @err and leave @m as it was. */
static void expect_encap_error(const struct stk_iface *i, struct rte_mbuf *m,
			       const struct stk_flow *f, int err)
{
	uint8_t before[UT_FRAME_MAX], after[UT_FRAME_MAX];
	uint16_t off = m->data_off;
	uint16_t n = ut_mbuf_bytes(m, before, sizeof(before));

	assert_int_equal(stk_udp_encap(i, m, f), err);
	assert_int_equal(m->data_off, off);
	assert_int_equal(ut_mbuf_bytes(m, after, sizeof(after)), n);
	assert_memory_equal(before, after, n);
}

static void test_encap_einval(void **state)
{
	struct rte_mbuf *m = payload_mbuf("bad", 3);
	struct stk_flow f;

	flow_default(&f, 4);
	f.dscp = 64;
	expect_encap_error(&ifc, m, &f, -EINVAL);
	flow_default(&f, 4);
	f.ecn = 4;
	expect_encap_error(&ifc, m, &f, -EINVAL);
	flow_default(&f, 4);
	f.dst.family = 0;
	expect_encap_error(&ifc, m, &f, -EINVAL);
	f.dst.family = 5;
	expect_encap_error(&ifc, m, &f, -EINVAL);
	/* an explicit source of the other family */
	flow_default(&f, 6);
	f.src = addr4(ut_ip4_us);
	expect_encap_error(&ifc, m, &f, -EINVAL);
	/* and the edge values that are fine */
	flow_default(&f, 4);
	f.dscp = 63;
	f.ecn = 3;
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	rte_pktmbuf_free(m);
}

static void test_encap_emsgsize(void **state)
{
	static uint8_t big[1500];
	struct stk_flow f;
	struct rte_mbuf *m;

	/* IPv4: 1500 - 20 - 8 = 1472 bytes of payload fit */
	flow_default(&f, 4);
	m = payload_mbuf(big, 1473);
	expect_encap_error(&ifc, m, &f, -EMSGSIZE);
	rte_pktmbuf_free(m);
	m = payload_mbuf(big, 1472);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 1500);
	rte_pktmbuf_free(m);

	/* IPv6: 1500 - 40 - 8 = 1452 */
	flow_default(&f, 6);
	m = payload_mbuf(big, 1453);
	expect_encap_error(&ifc, m, &f, -EMSGSIZE);
	rte_pktmbuf_free(m);
	m = payload_mbuf(big, 1452);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	rte_pktmbuf_free(m);

	/* a smaller MTU */
	ifc.mtu = 576;
	flow_default(&f, 4);
	m = payload_mbuf(big, 549);
	expect_encap_error(&ifc, m, &f, -EMSGSIZE);
	rte_pktmbuf_free(m);
}

/* An mbuf with exactly @headroom bytes in front of a 4-byte payload. */
static struct rte_mbuf *short_headroom(uint16_t headroom)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(ut_pool());

	assert_non_null(m);
	m->data_off = headroom;
	memcpy(rte_pktmbuf_append(m, 4), "room", 4);
	assert_int_equal(rte_pktmbuf_headroom(m), headroom);
	return m;
}

static void test_encap_enospc(void **state)
{
	struct stk_flow f;
	struct rte_mbuf *m;

	/* IPv4 without a tag needs 14 + 20 + 8 = 42 bytes of headroom */
	flow_default(&f, 4);
	m = short_headroom(41);
	expect_encap_error(&ifc, m, &f, -ENOSPC);
	rte_pktmbuf_free(m);
	m = short_headroom(42);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	assert_int_equal(rte_pktmbuf_headroom(m), 0);
	rte_pktmbuf_free(m);

	/* with a tag, 46 */
	ifc.vlan = true;
	ifc.vlan_id = 9;
	m = short_headroom(45);
	expect_encap_error(&ifc, m, &f, -ENOSPC);
	rte_pktmbuf_free(m);
	m = short_headroom(46);
	assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
	rte_pktmbuf_free(m);

	/* IPv6 with a tag: 18 + 40 + 8 = 66 */
	flow_default(&f, 6);
	m = short_headroom(65);
	expect_encap_error(&ifc, m, &f, -ENOSPC);
	rte_pktmbuf_free(m);
}

static void test_encap_eaddrnotavail(void **state)
{
	struct rte_mbuf *m = payload_mbuf("none", 4);
	struct stk_flow f;

	/* no IPv4 address on the interface */
	memset(&ifc.ip4, 0, sizeof(ifc.ip4));
	flow_default(&f, 4);
	expect_encap_error(&ifc, m, &f, -EADDRNOTAVAIL);
	/* no IPv6 address at all, not even link-local */
	memset(&ifc.ip6, 0, sizeof(ifc.ip6));
	memset(&ifc.ip6_ll, 0, sizeof(ifc.ip6_ll));
	flow_default(&f, 6);
	expect_encap_error(&ifc, m, &f, -EADDRNOTAVAIL);
	f.dst = addr6(ut_ll_peer);
	expect_encap_error(&ifc, m, &f, -EADDRNOTAVAIL);
	rte_pktmbuf_free(m);
}

static void test_l2_encap(void **state)
{
	struct rte_mbuf *m = payload_mbuf("l3", 2);
	uint8_t b[64];

	assert_int_equal(stk_l2_encap(&ifc, m, 0x88b5, STK_PCP_DEFAULT, NULL), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 16);
	assert_memory_equal(b, zero6, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x88b5);
	assert_memory_equal(b + 14, "l3", 2);
	rte_pktmbuf_free(m);

	ifc.vlan = true;
	ifc.vlan_id = 0x123;
	ifc.pcp = 6;
	m = payload_mbuf("l3", 2);
	assert_int_equal(
		stk_l2_encap(&ifc, m, 0x0800, 2, (const struct rte_ether_addr *)ut_mac_peer), 0);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 20);
	assert_memory_equal(b, ut_mac_peer, 6);
	assert_int_equal(ut_get16(b + 12), 0x8100);
	assert_int_equal(ut_get16(b + 14), 2 << 13 | 0x123);
	assert_int_equal(ut_get16(b + 16), 0x0800);
	rte_pktmbuf_free(m);

	m = short_headroom(17);
	assert_int_equal(stk_l2_encap(&ifc, m, 0x0800, 2, NULL), -ENOSPC);
	assert_int_equal(rte_pktmbuf_headroom(m), 17);
	rte_pktmbuf_free(m);
}

/* ---------------- ARP ---------------- */

/* RFC 826 packet at @a: Ethernet/IPv4, opcode @op, then the four addresses. */
static void check_arp(const uint8_t *a, uint16_t op, const uint8_t *sha, const uint8_t *spa,
		      const uint8_t *tha, const uint8_t *tpa)
{
	assert_int_equal(ut_get16(a), 1);
	assert_int_equal(ut_get16(a + 2), 0x0800);
	assert_int_equal(a[4], 6);
	assert_int_equal(a[5], 4);
	assert_int_equal(ut_get16(a + 6), op);
	assert_memory_equal(a + 8, sha, 6);
	assert_memory_equal(a + 14, spa, 4);
	assert_memory_equal(a + 18, tha, 6);
	assert_memory_equal(a + 24, tpa, 4);
}

static void test_arp_build_request(void **state)
{
	struct rte_mbuf *m;
	uint8_t b[128];
	rte_be32_t tip;

	memcpy(&tip, ut_ip4_peer, 4);
	m = stk_arp_build(ut_pool(), &ifc, 1, NULL, tip);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 28);
	assert_memory_equal(b, bcast, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x0806);
	check_arp(b + 14, 1, ut_mac_us, ut_ip4_us, zero6, ut_ip4_peer);
	rte_pktmbuf_free(m);
}

static void test_arp_build_reply(void **state)
{
	struct rte_mbuf *m;
	uint8_t b[128];
	rte_be32_t tip;

	memcpy(&tip, ut_ip4_peer, 4);
	m = stk_arp_build(ut_pool(), &ifc, 2, (const struct rte_ether_addr *)ut_mac_peer, tip);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 28);
	assert_memory_equal(b, ut_mac_peer, 6); /* unicast to the asker */
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x0806);
	check_arp(b + 14, 2, ut_mac_us, ut_ip4_us, ut_mac_peer, ut_ip4_peer);
	rte_pktmbuf_free(m);
}

static void test_arp_build_vlan(void **state)
{
	struct rte_mbuf *m;
	uint8_t b[128];
	rte_be32_t tip;

	ifc.vlan = true;
	ifc.vlan_id = 200;
	ifc.pcp = 4;
	memcpy(&tip, ut_ip4_peer, 4);
	m = stk_arp_build(ut_pool(), &ifc, 1, NULL, tip);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 18 + 28);
	assert_memory_equal(b, bcast, 6);
	assert_int_equal(ut_get16(b + 12), 0x8100);
	assert_int_equal(ut_get16(b + 14), 4 << 13 | 200);
	assert_int_equal(ut_get16(b + 16), 0x0806);
	check_arp(b + 18, 1, ut_mac_us, ut_ip4_us, zero6, ut_ip4_peer);
	rte_pktmbuf_free(m);
}

/* ---------------- neighbour discovery ---------------- */

/* IPv6 + ICMPv6 NS/NA with a link-layer option at @h (RFC 4861 §4.3, §4.4, §4.6.1). */
static void check_nd(const uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t type,
		     uint8_t flags, const uint8_t *target, uint8_t opt_type)
{
	const uint8_t *icmp = h + 40;

	assert_int_equal(ut_get32(h), 6u << 28);
	assert_int_equal(ut_get16(h + 4), 32);
	assert_int_equal(h[6], 58);
	assert_int_equal(h[7], 255); /* §7.1.1: hop limit 255 or the receiver drops it */
	assert_memory_equal(h + 8, src, 16);
	assert_memory_equal(h + 24, dst, 16);
	assert_int_equal(icmp[0], type);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(icmp[4], flags);
	assert_int_equal(icmp[5] | icmp[6] | icmp[7], 0);
	assert_memory_equal(icmp + 8, target, 16);
	assert_int_equal(icmp[24], opt_type);
	assert_int_equal(icmp[25], 1);
	assert_memory_equal(icmp + 26, ut_mac_us, 6);
	assert_int_equal(ut_l4_csum(6, src, dst, 58, icmp, 32), 0);
}

static void test_nd_build_ns(void **state)
{
	/* solicited-node of 2001:db8::2: ff02::1:ff00:2; its MAC 33:33:ff:00:00:02 */
	static const uint8_t sn[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x02};
	static const uint8_t sn_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x02};
	struct stk_ipaddr src = addr6(ut_ip6_us), dst = addr6(sn);
	struct rte_mbuf *m;
	uint8_t b[128];

	m = stk_nd_build(ut_pool(), &ifc, 135, &src, &dst, ut_ip6_peer, 0xe0);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 40 + 32);
	assert_memory_equal(b, sn_mac, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(b + 12), 0x86dd);
	/* an NS has no flags even when asked for some; it carries the source option */
	check_nd(b + 14, ut_ip6_us, sn, 135, 0, ut_ip6_peer, 1);
	rte_pktmbuf_free(m);
}

static void test_nd_build_na(void **state)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
	static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
	struct stk_ipaddr src = addr6(ut_ip6_us), dst = addr6(ut_ip6_peer);
	struct rte_mbuf *m;
	uint8_t b[128];

	/* solicited NA, unicast: the destination MAC is the caller's to fill */
	m = stk_nd_build(ut_pool(), &ifc, 136, &src, &dst, ut_ip6_us, 0x60);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 14 + 40 + 32);
	assert_memory_equal(b, zero6, 6);
	assert_memory_equal(b + 6, ut_mac_us, 6);
	check_nd(b + 14, ut_ip6_us, ut_ip6_peer, 136, 0x60, ut_ip6_us, 2);
	rte_pktmbuf_free(m);

	/* unsolicited to all-nodes, with a VLAN tag */
	ifc.vlan = true;
	ifc.vlan_id = 5;
	dst = addr6(all_nodes);
	m = stk_nd_build(ut_pool(), &ifc, 136, &src, &dst, ut_ip6_us, 0x20);
	assert_non_null(m);
	assert_int_equal(ut_mbuf_bytes(m, b, sizeof(b)), 18 + 40 + 32);
	assert_memory_equal(b, all_nodes_mac, 6);
	assert_int_equal(ut_get16(b + 12), 0x8100);
	assert_int_equal(ut_get16(b + 14), 5);
	assert_int_equal(ut_get16(b + 16), 0x86dd);
	check_nd(b + 18, ut_ip6_us, all_nodes, 136, 0x20, ut_ip6_us, 2);
	rte_pktmbuf_free(m);
}

static void test_nd_build_bad_family(void **state)
{
	struct stk_ipaddr v4 = addr4(ut_ip4_us), v6 = addr6(ut_ip6_peer);

	rte_errno = 0;
	assert_null(stk_nd_build(ut_pool(), &ifc, 135, &v4, &v6, ut_ip6_peer, 0));
	assert_int_equal(rte_errno, EADDRNOTAVAIL);
	rte_errno = 0;
	assert_null(stk_nd_build(ut_pool(), &ifc, 135, &v6, &v4, ut_ip6_peer, 0));
	assert_int_equal(rte_errno, EADDRNOTAVAIL);
}

/* ---------------- address mappings ---------------- */

static void test_ipv6_link_local(void **state)
{
	/* RFC 4291 App. A: 34-56-78-9A-BC-DE -> interface ID 36-56-78-FF-FE-9A-BC-DE */
	static const struct rte_ether_addr mac = {{0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde}};
	static const uint8_t fe80[8] = {0xfe, 0x80};
	static const uint8_t iid[8] = {0x36, 0x56, 0x78, 0xff, 0xfe, 0x9a, 0xbc, 0xde};
	/* a locally administered MAC loses its U/L bit: 02:00:00:00:00:01 -> fe80::ff:fe00:1 */
	static const struct rte_ether_addr local = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}};
	struct stk_ipaddr ll;

	memset(&ll, 0xaa, sizeof(ll));
	stk_ipv6_link_local(&mac, &ll);
	assert_int_equal(ll.family, 6);
	assert_memory_equal(ll.v6, fe80, 8);
	assert_memory_equal(ll.v6 + 8, iid, 8);
	stk_ipv6_link_local(&local, &ll);
	assert_memory_equal(ll.v6, ut_ll_us, 16);
}

static void test_ipv6_solicited_node(void **state)
{
	/* RFC 4291 §2.7.1: 4037::01:800:200E:8C6C -> FF02::1:FF0E:8C6C */
	static const uint8_t a[16] = {0x40, 0x37, [9] = 0x01, 0x08, 0x00, 0x20, 0x0e, 0x8c, 0x6c};
	static const uint8_t want[16] = {0xff, 0x02, [11] = 0x01, 0xff, 0x0e, 0x8c, 0x6c};
	struct stk_ipaddr in = addr6(a), sn;

	memset(&sn, 0x55, sizeof(sn));
	stk_ipv6_solicited_node(&in, &sn);
	assert_int_equal(sn.family, 6);
	assert_memory_equal(sn.v6, want, 16);
}

static void test_ipv6_mcast_mac(void **state)
{
	/* RFC 2464 §7: 33-33 followed by the last four octets of the address */
	static const uint8_t sn[16] = {
		0xff, 0x02, [11] = 0x01, [12] = 0xff, [13] = 0x0e, [14] = 0x8c, [15] = 0x6c};
	static const uint8_t want[6] = {0x33, 0x33, 0xff, 0x0e, 0x8c, 0x6c};
	struct stk_ipaddr a = addr6(sn);
	struct rte_ether_addr mac;

	stk_ipv6_mcast_mac(&a, &mac);
	assert_memory_equal(mac.addr_bytes, want, 6);
}

/* ---------------- builder -> parser round trips ---------------- */

/* The peer's view: our frames arrive at an interface with the peer's addresses. */
static void peer_iface(struct stk_iface *p)
{
	ut_iface_default(p);
	memcpy(p->mac.addr_bytes, ut_mac_peer, 6);
	memcpy(&p->ip4.v4, ut_ip4_peer, 4);
	memcpy(p->ip6.v6, ut_ip6_peer, 16);
	memcpy(p->ip6_ll.v6, ut_ll_peer, 16);
}

static void test_round_trip_udp(void **state)
{
	static const uint8_t data[37] = "round trip through stk_parse, twice";
	struct stk_iface peer;
	struct stk_flow f;
	struct stk_pkt p;

	peer_iface(&peer);
	for (int family = 4; family <= 6; family += 2) {
		for (int vlan = 0; vlan <= 1; vlan++) {
			struct rte_mbuf *m = payload_mbuf(data, sizeof(data));

			ifc.vlan = peer.vlan = vlan;
			ifc.vlan_id = peer.vlan_id = 77;
			flow_default(&f, family);
			f.sport = 50001;
			f.dscp = 34;
			f.ecn = 2;
			assert_int_equal(stk_udp_encap(&ifc, m, &f), 0);
			memcpy(rte_pktmbuf_mtod(m, uint8_t *), ut_mac_peer, 6);
			assert_int_equal(stk_parse(m, &p), 0);
			assert_int_equal(stk_classify(&peer, m, &p), STK_CLS_ROCE);
			assert_int_equal(p.has_vlan, vlan);
			assert_int_equal(p.ether_type, family == 4 ? 0x0800 : 0x86dd);
			assert_int_equal(p.sport, 50001);
			assert_int_equal(p.dport, 4791);
			assert_int_equal(p.tos, 34 << 2 | 2);
			assert_int_equal(p.payload_len, sizeof(data));
			assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, p.payload_off),
					    data, sizeof(data));
			if (family == 4) {
				assert_memory_equal(&p.src.v4, ut_ip4_us, 4);
				assert_memory_equal(&p.dst.v4, ut_ip4_peer, 4);
			} else {
				assert_memory_equal(p.src.v6, ut_ip6_us, 16);
				assert_memory_equal(p.dst.v6, ut_ip6_peer, 16);
			}
			rte_pktmbuf_free(m);
		}
	}
}

static void test_round_trip_arp_nd(void **state)
{
	struct stk_ipaddr src = addr6(ut_ip6_us), sn;
	struct stk_iface peer;
	struct stk_pkt p;
	struct rte_mbuf *m;
	rte_be32_t tip;

	peer_iface(&peer);
	memcpy(&tip, ut_ip4_peer, 4);
	m = stk_arp_build(ut_pool(), &ifc, 1, NULL, tip);
	assert_non_null(m);
	assert_int_equal(stk_parse(m, &p), 0);
	assert_int_equal(stk_classify(&peer, m, &p), STK_CLS_ARP);
	rte_pktmbuf_free(m);

	stk_ipv6_solicited_node(&peer.ip6, &sn);
	m = stk_nd_build(ut_pool(), &ifc, 135, &src, &sn, ut_ip6_peer, 0);
	assert_non_null(m);
	assert_int_equal(stk_parse(m, &p), 0);
	assert_int_equal(p.icmp6_type, 135);
	assert_int_equal(stk_classify(&peer, m, &p), STK_CLS_ND);
	rte_pktmbuf_free(m);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_encap_ipv4),
		T(test_encap_ipv4_tos_ttl),
		T(test_encap_ipv4_vlan),
		T(test_encap_ipv6),
		T(test_encap_ipv6_link_local),
		T(test_encap_ipv6_vlan),
		T(test_encap_zero_csum),
		T(test_encap_explicit_source),
		T(test_encap_chained_payload),
		T(test_encap_einval),
		T(test_encap_emsgsize),
		T(test_encap_enospc),
		T(test_encap_eaddrnotavail),
		T(test_l2_encap),
		T(test_arp_build_request),
		T(test_arp_build_reply),
		T(test_arp_build_vlan),
		T(test_nd_build_ns),
		T(test_nd_build_na),
		T(test_nd_build_bad_family),
		T(test_ipv6_link_local),
		T(test_ipv6_solicited_node),
		T(test_ipv6_mcast_mac),
		T(test_round_trip_udp),
		T(test_round_trip_arp_nd),
	};
	int rc;

	if (ut_eal_init("test_tx", NULL) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("stk_tx builders", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
