/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_input.c - the receive path end to end (stack/stk_lcore.c, stack/stk_arp.c) - ARP, ND,
 * the exception path, UDP delivery and malformed frames by reason; the send path is in
 * test_send.c and the shared fixture in ut_input_fixture.h:
 * frames go in at the bottom, through a net_ring port (rte_eth_from_rings) or stk_input(), and
 * the tests look at what comes out at the top: frames on the wire port's TX ring, frames on
 * the fake exception TAP (a second ring port), calls of a bound UDP handler, the neighbour
 * table, and the per-interface counters and drop reasons.
 *
 *   wire_rx --> [ring port "wire"] --> stk_lcore_poll / stk_input --> handler, neighbour table
 *   wire_tx <-- [ring port "wire"] <-- replies, resolved datagrams
 *   exc_tx  <-- [ring port "exc"]  <-- frames for the kernel (the TAP's TX)
 *   exc_rx  --> [ring port "exc"]  --> frames from the kernel, out on the wire
 *
 * Test vectors are built by hand in ut_common.c per RFC 826, RFC 791/8200/768, RFC 792 and
 * RFC 4861; checksums of what the stack sends are verified with the tests' own RFC 1071 code.
 * Every teardown destroys the lcore context and the interface, unbinds the ports it bound,
 * drains every ring and checks that the mbuf pool is back to its starting in-use count.
 */
#include "ut_input_fixture.h"

/* ---------------- ARP ---------------- */

static void test_arp_request_answered(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;
	const struct stk_neigh *n;

	/* a broadcast "who has 192.0.2.1" from the peer, through the port */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	receive(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_int_equal(olen, 42);
	assert_memory_equal(out, ut_mac_peer, 6);
	assert_memory_equal(out + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(out + 12), 0x0806);
	check_arp(out + 14, 2, ut_mac_us, ut_ip4_us, ut_mac_peer, ut_ip4_peer);
	/* answered here, not by the kernel as well */
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
	/* the asker is learnt */
	n = neigh(&peer);
	assert_non_null(n);
	assert_int_equal(n->state, STK_NEIGH_REACHABLE);
	assert_memory_equal(n->mac.addr_bytes, ut_mac_peer, 6);
	assert_int_equal(cnt(STK_CNT_rx_pkts), 1);
	assert_int_equal(cnt(STK_CNT_rx_bytes), 42);
	assert_int_equal(cnt(STK_CNT_rx_arp), 1);
	assert_int_equal(cnt(STK_CNT_arp_reply_tx), 1);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 1);
	assert_int_equal(cnt(STK_CNT_neigh_learned), 1);
	assert_int_equal(cnt(STK_CNT_drops), 0);
}

static void test_arp_request_for_other(void **state)
{
	static const uint8_t other[4] = {192, 0, 2, 77};
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, other,
			   &o);
	input(b, len);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	/* the kernel sees it unchanged; the sender is not added (not aimed at us) */
	assert_int_equal(take(exc_tx, out, &olen), 1);
	assert_int_equal(olen, len);
	assert_memory_equal(out, b, len);
	assert_null(neigh(&peer));
	assert_int_equal(cnt(STK_CNT_to_kernel), 1);
}

/*
 * Issue 11 item 10: an ARP reply completes the entry our request made, and is passed to the
 * kernel; one nobody asked for (unsolicited) creates no entry, as Linux with its default
 * arp_accept=0 (RFC 826 leaves it open; RFC 4861 §7.2.5 says the same for NAs).
 */
static void test_arp_reply_learnt_and_to_kernel(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 2, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	input(b, len);
	assert_null(neigh(&peer)); /* unsolicited */
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	/* we ask, the reply answers */
	assert_int_equal(stk_neigh_probe(fx.lc, fx.ifc, &peer), 0);
	assert_int_equal(take(wire_tx, NULL, NULL), 1);
	assert_int_equal(neigh(&peer)->state, STK_NEIGH_INCOMPLETE);
	input(b, len);
	assert_non_null(neigh(&peer));
	assert_int_equal(neigh(&peer)->state, STK_NEIGH_REACHABLE);
	assert_memory_equal(neigh(&peer)->mac.addr_bytes, ut_mac_peer, 6);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
}

/*
 * Issue 11 item 10: ARP from senders that are not on our subnet, or that are no unicast
 * address at all. A request aimed at us from off the subnet is answered (straight to its
 * MAC, as Linux answers it) but teaches nothing: entries are for on-link neighbours only.
 * A multicast, limited-broadcast, subnet-broadcast or loopback sender is refused outright
 * (no entry and no answer: we never send to a multicast or broadcast source; Linux's
 * arp_process() drops multicast and loopback ones too), counted as arp_bad_sender.
 */
static void test_arp_offlink_and_bad_senders(void **state)
{
	static const uint8_t offlink[4] = {198, 51, 100, 7};
	static const uint8_t bad[][4] = {{224, 0, 0, 5},
					 {239, 1, 2, 3},
					 {255, 255, 255, 255},
					 {192, 0, 2, 255},
					 {127, 0, 0, 1}};
	struct stk_ipaddr ip = addr4(offlink);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, offlink, zero6, ut_ip4_us,
			   &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_arp(out + 14, 2, ut_mac_us, ut_ip4_us, ut_mac_peer, offlink);
	assert_null(neigh(&ip));
	for (unsigned i = 0; i < RTE_DIM(bad); i++) {
		ip = addr4(bad[i]);
		len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, bad[i], zero6,
				   ut_ip4_us, &o);
		input(b, len);
		assert_int_equal(take(wire_tx, NULL, NULL), 0); /* not answered */
		assert_null(neigh(&ip));
	}
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
	assert_int_equal(drops(STK_DROP_ARP_BAD), 0);
}

static void test_arp_probe_teaches_nothing(void **state)
{
	static const uint8_t any[4];
	struct stk_ipaddr zero = addr4(any);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	/* RFC 5227 probe for our address: sender 0.0.0.0. Answered, not learnt. */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, any, zero6, ut_ip4_us, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_arp(out + 14, 2, ut_mac_us, ut_ip4_us, ut_mac_peer, any);
	assert_null(neigh(&zero));
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

static void test_arp_malformed(void **state)
{
	static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;
	unsigned k = 0;

	/* hardware length 5 */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	b[o.l3 + 4] = 5;
	input(b, len);
	assert_int_equal(drops(STK_DROP_ARP_BAD), ++k);
	/* opcode 3 (RARP request) */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 3, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ARP_BAD), ++k);
	/* protocol other than IPv4 */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	ut_put16(b + o.l3 + 2, 0x86dd);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ARP_BAD), ++k);
	/* a multicast sender hardware address */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, mcast, ut_ip4_peer, zero6, ut_ip4_us, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ARP_BAD), ++k);
	assert_int_equal(cnt(STK_CNT_drops), k);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

/* ---------------- neighbour discovery ---------------- */

/* An NA at @f (after Ethernet at 0, IPv6 at @l3) per RFC 4861 §4.4, checksum verified. */
static void check_na(const uint8_t *f, uint16_t l3, const uint8_t *src, const uint8_t *dst,
		     uint8_t flags, const uint8_t *target)
{
	const uint8_t *h = f + l3, *icmp = h + 40;

	assert_int_equal(ut_get16(f + l3 - 2), 0x86dd);
	assert_int_equal(ut_get32(h) >> 28, 6);
	assert_int_equal(ut_get16(h + 4), 32);
	assert_int_equal(h[6], 58);
	assert_int_equal(h[7], 255);
	assert_memory_equal(h + 8, src, 16);
	assert_memory_equal(h + 24, dst, 16);
	assert_int_equal(icmp[0], 136);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(icmp[4], flags);
	assert_memory_equal(icmp + 8, target, 16);
	assert_int_equal(icmp[24], 2); /* target link-layer address */
	assert_int_equal(icmp[25], 1);
	assert_memory_equal(icmp + 26, ut_mac_us, 6);
	assert_int_equal(ut_l4_csum(6, src, dst, 58, icmp, 32), 0);
}

static void test_ns_answered(void **state)
{
	struct stk_ipaddr peer = addr6(ut_ip6_peer);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;
	const struct stk_neigh *n;

	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	receive(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_int_equal(olen, 14 + 40 + 32);
	/* solicited, unicast back to the asker's link-layer address */
	assert_memory_equal(out, ut_mac_peer, 6);
	assert_memory_equal(out + 6, ut_mac_us, 6);
	check_na(out, 14, ut_ip6_us, ut_ip6_peer, 0x60 /* S | O */, ut_ip6_us);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
	n = neigh(&peer);
	assert_non_null(n);
	assert_memory_equal(n->mac.addr_bytes, ut_mac_peer, 6);
	assert_int_equal(cnt(STK_CNT_rx_nd), 1);
	assert_int_equal(cnt(STK_CNT_nd_advert_tx), 1);
	assert_int_equal(cnt(STK_CNT_rx_ipv6), 1);
}

static void test_ns_link_local(void **state)
{
	static const uint8_t sn_ll[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ll_peer, sn_ll, 255, 135, 0, ut_ll_us,
			  1, ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_na(out, 14, ut_ll_us, ut_ll_peer, 0x60, ut_ll_us);
}

static void test_ns_dad(void **state)
{
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	/* RFC 4862 DAD probe: from ::, no source option; the answer goes to all-nodes
	 * (RFC 4861 §7.2.4) without the S flag */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, unspec, sn_us, 255, 135, 0, ut_ip6_us, 0,
			  NULL, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_memory_equal(out, all_nodes_mac, 6);
	check_na(out, 14, ut_ip6_us, all_nodes, 0x20 /* O */, ut_ip6_us);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

static void test_ns_without_option(void **state)
{
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len, olen = 0;

	/* no source link-layer option: answer to the frame's source MAC, learn nothing */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  0, NULL, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_memory_equal(out, ut_mac_peer, 6);
	check_na(out, 14, ut_ip6_us, ut_ip6_peer, 0x60, ut_ip6_us);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

static void test_ns_for_other_to_kernel(void **state)
{
	static const uint8_t other[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x77};
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, other, 1,
			  ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
}

static void test_na_learnt_and_to_kernel(void **state)
{
	struct stk_ipaddr peer = addr6(ut_ip6_peer);
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	/* unsolicited: never creates an entry */
	len = ut_frame_nd(b, all_nodes_mac, ut_mac_peer, -1, ut_ip6_peer, all_nodes, 255, 136, 0x20,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	input(b, len);
	assert_null(neigh(&peer));
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	/* S=1 without our solicitation: RFC 4861 §7.2.5, no entry, nothing is created (issue
	 * 11 item 10) */
	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	input(b, len);
	assert_null(neigh(&peer));
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	/* we solicit; the answer completes the entry */
	assert_int_equal(stk_neigh_probe(fx.lc, fx.ifc, &peer), 0);
	assert_int_equal(take(wire_tx, NULL, NULL), 1);
	input(b, len);
	assert_non_null(neigh(&peer));
	assert_int_equal(neigh(&peer)->state, STK_NEIGH_REACHABLE);
	assert_memory_equal(neigh(&peer)->mac.addr_bytes, ut_mac_peer, 6);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
}

/*
 * Issue 11 item 10: IPv6 packets from a multicast source are dropped as RFC 4291 §2.7 asks
 * (Linux's ip6_rcv_core() does the same); nothing answers them or learns from them: an NS
 * "from" the all-nodes group gets no NA, a UDP datagram never reaches a handler.
 */
static void test_ipv6_multicast_source_dropped(void **state)
{
	struct stk_ipaddr grp = addr6(all_nodes);
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, all_nodes, sn_us, 255, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_null(neigh(&grp));
	bind_port(5000);
	ut_ip_default(&ip, 6, 17);
	memcpy(ip.src, all_nodes, 16);
	len = ut_frame_udp(b, &ip, 1, 5000, "mcast", 5, false, &o);
	input(b, len);
	assert_int_equal(rx.calls, 0);
	assert_int_equal(cnt(STK_CNT_drops), 2);
}

static void test_nd_malformed(void **state)
{
	static const uint8_t mcast_target[16] = {0xff, 0x02, [15] = 0x01};
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;
	unsigned k = 0;

	/* RFC 4861 §7.1.1: hop limit not 255 */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 64, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* bad ICMPv6 checksum */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	b[o.l4 + 2] ^= 0x01;
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* code not 0 (checksum fixed up so only the code is wrong) */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	b[o.l4 + 1] = 1;
	ut_put16(b + o.l4 + 2, 0);
	ut_put16(b + o.l4 + 2, ut_l4_csum(6, ut_ip6_peer, sn_us, 58, b + o.l4, 32));
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* multicast target */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0,
			  mcast_target, 1, ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* DAD with a source link-layer option */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, unspec, sn_us, 255, 135, 0, ut_ip6_us, 1,
			  ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* option length 0 (§4.6) */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  1, ut_mac_peer, &o);
	b[o.l4 + 25] = 0;
	ut_put16(b + o.l4 + 2, 0);
	ut_put16(b + o.l4 + 2, ut_l4_csum(6, ut_ip6_peer, sn_us, 58, b + o.l4, 32));
	input(b, len);
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);
	/* shorter than an NS */
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, ut_ip6_us,
			  0, NULL, &o);
	ut_put16(b + o.l3 + 4, 20);
	ut_put16(b + o.l4 + 2, 0);
	ut_put16(b + o.l4 + 2, ut_l4_csum(6, ut_ip6_peer, sn_us, 58, b + o.l4, 20));
	input(b, (uint16_t)(o.l4 + 20));
	assert_int_equal(drops(STK_DROP_ND_BAD), ++k);

	assert_int_equal(cnt(STK_CNT_drops), k);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

/* ---------------- the exception path ---------------- */

static void test_icmp_to_kernel(void **state)
{
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o), olen = 0;

	receive(b, len);
	assert_int_equal(take(exc_tx, out, &olen), 1);
	assert_int_equal(olen, len);
	assert_memory_equal(out, b, len);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(cnt(STK_CNT_to_kernel), 1);
	assert_int_equal(cnt(STK_CNT_rx_ipv4), 1);
}

static void test_no_exception_path(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);

	input(b, len);
	assert_int_equal(drops(STK_DROP_NO_EXCEPTION), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
	assert_int_equal(cnt(STK_CNT_to_kernel), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
}

static void test_no_exception_path_consumes(void **state)
{
	static const uint8_t other6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x77};
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	/* what the stack has used (an ARP reply, an NA, an NS for someone else) would go on to
	 * the kernel; without an exception path it is consumed, not counted as a drop */
	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 2, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	input(b, len);
	assert_null(neigh(&peer)); /* unsolicited: teaches nothing (issue 11 item 10) */
	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	input(b, len);
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, other6, 1,
			  ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(cnt(STK_CNT_drops), 0);
	assert_int_equal(drops(STK_DROP_NO_EXCEPTION), 0);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0); /* neither was asked for */
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
}

static void test_exception_ring(void **state)
{
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);
	struct rte_mbuf *m = NULL;

	/* an lcore that does not own the TAP hands the frame to the owner's ring */
	input(b, len);
	assert_int_equal(rte_ring_count(exc_ring), 1);
	assert_int_equal(rte_ring_dequeue(exc_ring, (void **)&m), 0);
	assert_int_equal(ut_mbuf_bytes(m, out, sizeof(out)), len);
	assert_memory_equal(out, b, len);
	rte_pktmbuf_free(m);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
	assert_int_equal(cnt(STK_CNT_to_kernel), 1);
}

static void test_exception_ring_full(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);

	input(b, len);
	input(b, len);
	assert_int_equal(rte_ring_count(exc_ring_tiny), 1);
	assert_int_equal(cnt(STK_CNT_to_kernel), 1);
	assert_int_equal(drops(STK_DROP_EXC_RING_FULL), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
}

static void test_from_kernel(void **state)
{
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct rte_mbuf *m;
	uint16_t len, olen = 0;

	/* what the kernel writes into the TAP leaves through the wire port unchanged */
	ut_ip_default(&ip, 4, 17);
	memcpy(ip.dmac, ut_mac_peer, 6);
	memcpy(ip.smac, ut_mac_us, 6);
	memcpy(ip.src, ut_ip4_us, 4);
	memcpy(ip.dst, ut_ip4_peer, 4);
	len = ut_frame_udp(b, &ip, 53, 53, "dns?", 4, false, &o);
	m = ut_mbuf(b, len);
	assert_non_null(m);
	assert_int_equal(rte_ring_enqueue(exc_rx, m), 0);
	assert_int_equal(stk_lcore_poll(fx.lc), 1);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_int_equal(olen, len);
	assert_memory_equal(out, b, len);
	assert_int_equal(cnt(STK_CNT_from_kernel), 1);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 1);
}

/* ---------------- UDP delivery ---------------- */

static void test_udp_to_bound_port(void **state)
{
	static const char msg[] = "hello handler";
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	bind_port(5000);
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 40000, 5000, msg, sizeof(msg) - 1, false, &o);
	receive(b, len);
	assert_int_equal(rx.calls, 1);
	assert_int_equal(rx.payload_off, 14 + 20 + 8);
	assert_int_equal(rx.payload_len, sizeof(msg) - 1);
	assert_memory_equal(rx.payload, msg, sizeof(msg) - 1);
	assert_int_equal(rx.dport, 5000);
	assert_int_equal(rx.sport, 40000);
	assert_memory_equal(&rx.src.v4, ut_ip4_peer, 4);
	assert_ptr_equal(rx.ifc, fx.ifc);
	assert_ptr_equal(rx.lc, fx.lc);
	assert_ptr_equal(rx.arg, &rx);
	assert_int_equal(cnt(STK_CNT_rx_udp), 1);
	assert_int_equal(cnt(STK_CNT_udp_delivered), 1);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);

	/* the same over IPv6 */
	ut_ip_default(&ip, 6, 17);
	len = ut_frame_udp(b, &ip, 40001, 5000, msg, 5, false, &o);
	input(b, len);
	assert_int_equal(rx.calls, 2);
	assert_int_equal(rx.payload_off, 14 + 40 + 8);
	assert_int_equal(rx.payload_len, 5);
	assert_memory_equal(rx.payload, msg, 5);
	assert_int_equal(rx.src.family, 6);
}

static void test_udp_handler_refuses(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	bind_port(5000);
	rx.ret = -1; /* the stack keeps the frame, frees it and counts it */
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 40000, 5000, "no", 2, false, &o);
	input(b, len);
	assert_int_equal(rx.calls, 1);
	assert_int_equal(drops(STK_DROP_HANDLER), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
	assert_int_equal(cnt(STK_CNT_udp_delivered), 0);
}

static void test_udp_unbound_to_kernel(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	bind_port(5000);
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 40000, 5001, "k", 1, false, &o);
	input(b, len);
	assert_int_equal(rx.calls, 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	assert_int_equal(cnt(STK_CNT_rx_udp), 1);
	assert_int_equal(cnt(STK_CNT_to_kernel), 1);
}

static void test_roce_without_handler(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;

	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 49152, 4791, "bth.", 4, true, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_NO_HANDLER), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
	assert_int_equal(cnt(STK_CNT_rx_roce), 1);
	assert_int_equal(take(exc_tx, NULL, NULL), 0); /* not the kernel's either */

	/* with the RoCE layer bound it is delivered */
	bind_port(STK_ROCE_UDP_PORT);
	input(b, len);
	assert_int_equal(rx.calls, 1);
	assert_int_equal(rx.dport, 4791);
	assert_int_equal(drops(STK_DROP_NO_HANDLER), 1);
	assert_int_equal(cnt(STK_CNT_rx_roce), 2);
}

static void test_udp_bind_errors(void **state)
{
	assert_int_equal(stk_udp_bind(0, udp_handler, NULL), -EINVAL);
	assert_int_equal(stk_udp_bind(5000, NULL, NULL), -EINVAL);
	assert_int_equal(stk_udp_unbind(5000), -ENOENT);
	bind_port(5000);
	assert_int_equal(stk_udp_bind(5000, udp_handler, NULL), -EEXIST);
	/* 32 bindings fit */
	for (uint16_t p = 6000; p < 6000 + 31; p++)
		bind_port(p);
	assert_int_equal(stk_udp_bind(7000, udp_handler, NULL), -ENOSPC);
	/* unbinding frees a slot */
	assert_int_equal(stk_udp_unbind(6000), 0);
	assert_int_equal(stk_udp_unbind(6000), -ENOENT);
	assert_int_equal(stk_udp_bind(7000, udp_handler, NULL), 0);
	fx.bound[fx.nb_bound++] = 7000;
}

/* ---------------- malformed frames, counted by reason ---------------- */

/* Feed @m; exactly one more drop of reason @d, and nothing leaves. */
static void expect_drop_mbuf(struct rte_mbuf *m, enum stk_drop d)
{
	uint64_t before = drops(d), all = cnt(STK_CNT_drops), rxp = cnt(STK_CNT_rx_pkts);

	assert_non_null(m);
	stk_input(fx.lc, fx.ifc, m);
	if (drops(d) != before + 1)
		fail_msg("expected a %s drop", stk_drop_name(d));
	assert_int_equal(cnt(STK_CNT_drops), all + 1);
	assert_int_equal(cnt(STK_CNT_rx_pkts), rxp + 1);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 0);
}

static void expect_drop(const uint8_t *b, uint16_t len, enum stk_drop d)
{
	expect_drop_mbuf(ut_mbuf(b, len), d);
}

static uint16_t udp4(uint8_t *b, struct ut_ip *ip, struct ut_off *o)
{
	ut_ip_default(ip, 4, 17);
	return ut_frame_udp(b, ip, 1000, 5000, "0123456789abcdef", 16, false, o);
}

static uint16_t udp6(uint8_t *b, struct ut_ip *ip, struct ut_off *o)
{
	ut_ip_default(ip, 6, 17);
	return ut_frame_udp(b, ip, 1000, 5000, "0123456789abcdef", 16, false, o);
}

static void test_malformed_counted(void **state)
{
	static const uint8_t other4[4] = {192, 0, 2, 77};
	static const uint8_t mcast4[4] = {224, 0, 0, 1};
	static const uint8_t seven[7] = {0x03, 0xe8, 0x13, 0x88, 0x00, 0x08, 0x00};
	uint8_t b[UT_FRAME_MAX], big[1500] = {0};
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len;
	unsigned total = 0;

	bind_port(5000); /* so that a frame that got through would be visible */

	len = udp4(b, &ip, &o);
	expect_drop(b, 13, STK_DROP_ETH_TRUNC), total++;
	ip.tci = 100;
	ut_frame_udp(b, &ip, 1000, 5000, "x", 1, false, &o);
	expect_drop(b, 16, STK_DROP_VLAN_TRUNC), total++;
	len = udp4(b, &ip, &o);
	ut_put16(b + 12, 0x88b5);
	expect_drop(b, len, STK_DROP_ETHERTYPE), total++;
	len = udp4(b, &ip, &o);
	memcpy(b, ut_mac_other, 6);
	expect_drop(b, len, STK_DROP_NOT_FOR_US), total++;
	ut_ip_default(&ip, 4, 17);
	ip.tci = 100;
	len = ut_frame_udp(b, &ip, 1000, 5000, "x", 1, false, &o);
	expect_drop(b, len, STK_DROP_VLAN_MISMATCH), total++;
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 1000, 5000, big, 1473, false, &o);
	expect_drop(b, len, STK_DROP_OVERSIZE), total++;
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	expect_drop(b, (uint16_t)(len - 4), STK_DROP_ARP_BAD), total++;
	len = udp4(b, &ip, &o);
	expect_drop(b, 14 + 19, STK_DROP_IP4_TRUNC), total++;
	b[o.l3] = 0x55;
	ut_fix_ip4_csum(b, &o);
	expect_drop(b, len, STK_DROP_IP4_VERSION), total++;
	b[o.l3] = 0x44;
	ut_fix_ip4_csum(b, &o);
	expect_drop(b, len, STK_DROP_IP4_IHL), total++;
	len = udp4(b, &ip, &o);
	ut_put16(b + o.l3 + 2, 200);
	ut_fix_ip4_csum(b, &o);
	expect_drop(b, len, STK_DROP_IP4_LEN), total++;
	len = udp4(b, &ip, &o);
	b[o.l3 + 10] ^= 0x40;
	expect_drop(b, len, STK_DROP_IP4_CSUM), total++;
	ut_ip_default(&ip, 4, 17);
	memcpy(ip.src, mcast4, 4);
	len = ut_frame_udp(b, &ip, 1000, 5000, "x", 1, false, &o);
	expect_drop(b, len, STK_DROP_IP4_SRC), total++;
	len = udp6(b, &ip, &o);
	expect_drop(b, 14 + 39, STK_DROP_IP6_TRUNC), total++;
	b[o.l3] = 0x40;
	expect_drop(b, len, STK_DROP_IP6_VERSION), total++;
	len = udp6(b, &ip, &o);
	ut_put16(b + o.l3 + 4, 100);
	expect_drop(b, len, STK_DROP_IP6_LEN), total++;
	ut_ip_default(&ip, 4, 17);
	memcpy(ip.dst, other4, 4);
	len = ut_frame_udp(b, &ip, 1000, 5000, "x", 1, false, &o);
	expect_drop(b, len, STK_DROP_IP_NOT_OURS), total++;
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_ip(b, &ip, seven, sizeof(seven), &o);
	expect_drop(b, len, STK_DROP_UDP_TRUNC), total++;
	len = udp4(b, &ip, &o);
	ut_put16(b + o.l4 + 4, 7);
	expect_drop(b, len, STK_DROP_UDP_LEN), total++;
	len = udp4(b, &ip, &o);
	b[o.pay] ^= 0x01;
	expect_drop(b, len, STK_DROP_UDP_CSUM), total++;
	len = udp6(b, &ip, &o);
	b[o.pay] ^= 0x01;
	expect_drop(b, len, STK_DROP_UDP_CSUM), total++;
	ut_ip_default(&ip, 6, 17);
	len = ut_frame_udp(b, &ip, 1000, 5000, "x", 1, true, &o);
	expect_drop(b, len, STK_DROP_UDP_CSUM_ZERO6), total++;
	ut_ip_default(&ip, 6, 58);
	len = ut_frame_ip(b, &ip, seven, 3, &o);
	expect_drop(b, len, STK_DROP_ICMP6_BAD), total++;
	len = udp4(b, &ip, &o);
	expect_drop_mbuf(ut_mbuf_chain(b, len, 14 + 10), STK_DROP_SEGMENTED), total++;

	assert_int_equal(rx.calls, 0);
	assert_int_equal(cnt(STK_CNT_drops), total);
	assert_int_equal(cnt(STK_CNT_rx_pkts), total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_arp_request_answered),
		T(test_arp_request_for_other),
		T(test_arp_reply_learnt_and_to_kernel),
		T(test_arp_offlink_and_bad_senders),
		T(test_arp_probe_teaches_nothing),
		T(test_arp_malformed),
		T(test_ns_answered),
		T(test_ns_link_local),
		T(test_ns_dad),
		T(test_ns_without_option),
		T(test_ns_for_other_to_kernel),
		T(test_na_learnt_and_to_kernel),
		T(test_ipv6_multicast_source_dropped),
		T(test_nd_malformed),
		T(test_icmp_to_kernel),
		TS(test_no_exception_path, setup_no_exc),
		TS(test_no_exception_path_consumes, setup_no_exc),
		TS(test_exception_ring, setup_exc_ring),
		TS(test_exception_ring_full, setup_exc_ring_tiny),
		T(test_from_kernel),
		T(test_udp_to_bound_port),
		T(test_udp_handler_refuses),
		T(test_udp_unbound_to_kernel),
		T(test_roce_without_handler),
		T(test_udp_bind_errors),
		T(test_malformed_counted),
	};

	return ut_input_main("stk_input (receive)", tests, RTE_DIM(tests));
}
