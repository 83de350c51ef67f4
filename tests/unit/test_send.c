/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_send.c - the send path end to end (stack/stk_lcore.c, stack/stk_arp.c): datagrams
 * framed and sent with neighbour resolution over IPv4 and IPv6, via a gateway, errors that
 * leave the caller its mbuf, the pending queue, neighbour timers, mappings shared between
 * lcores, a VLAN interface, a full TX queue and the counters. Split from test_input.c; the
 * shared fixture is ut_input_fixture.h. Vectors are built by hand in ut_common.c; checksums
 * of what the stack sends are verified with the tests' own RFC 1071 code.
 */
#include "ut_input_fixture.h"

/* ---------------- sending, with neighbour resolution ---------------- */

static struct rte_mbuf *payload(const char *s)
{
	struct rte_mbuf *m = ut_mbuf((const uint8_t *)s, (uint16_t)strlen(s));

	assert_non_null(m);
	return m;
}

static void flow(struct stk_flow *f, const struct stk_ipaddr *dst)
{
	memset(f, 0, sizeof(*f));
	f->dst = *dst;
	f->sport = 50000;
	f->dport = 4791;
	f->pcp = STK_PCP_DEFAULT;
}

/* A UDP datagram from us at @f (Ethernet at 0), checksum verified independently. */
static void check_udp_out(const uint8_t *f, uint16_t flen, const uint8_t *dmac, int family,
			  const uint8_t *src, const uint8_t *dst, const char *data)
{
	uint16_t n = (uint16_t)strlen(data);
	uint16_t l3 = 14, l4 = (uint16_t)(l3 + (family == 4 ? 20 : 40));

	assert_int_equal(flen, l4 + 8 + n);
	assert_memory_equal(f, dmac, 6);
	assert_memory_equal(f + 6, ut_mac_us, 6);
	assert_int_equal(ut_get16(f + 12), family == 4 ? 0x0800 : 0x86dd);
	if (family == 4) {
		assert_memory_equal(f + l3 + 12, src, 4);
		assert_memory_equal(f + l3 + 16, dst, 4);
		assert_int_equal(ut_fold(ut_sum(f + l3, 20, 0)), 0);
	} else {
		assert_memory_equal(f + l3 + 8, src, 16);
		assert_memory_equal(f + l3 + 24, dst, 16);
	}
	assert_int_equal(ut_get16(f + l4 + 2), 4791);
	assert_int_equal(ut_l4_csum(family, src, dst, 17, f + l4, 8u + n), 0);
	assert_memory_equal(f + l4 + 8, data, n);
}

static void test_send_resolves_ipv4(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct stk_flow f;
	struct ut_off o;
	uint16_t len, olen = 0;

	flow(&f, &peer);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("queued"), &f), 0);
	/* the datagram waits; an ARP request goes out */
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_memory_equal(out, bcast, 6);
	assert_int_equal(ut_get16(out + 12), 0x0806);
	check_arp(out + 14, 1, ut_mac_us, ut_ip4_us, zero6, ut_ip4_peer);
	assert_int_equal(cnt(STK_CNT_neigh_queued), 1);
	assert_int_equal(cnt(STK_CNT_arp_request_tx), 1);
	assert_int_equal(neigh(&peer)->state, STK_NEIGH_INCOMPLETE);

	/* the reply releases it, addressed to the peer's MAC */
	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 2, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	receive(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, ut_mac_peer, 4, ut_ip4_us, ut_ip4_peer, "queued");
	assert_int_equal(neigh(&peer)->state, STK_NEIGH_REACHABLE);
	assert_int_equal(cnt(STK_CNT_neigh_learned), 1);
	/* the reply itself is also the kernel's */
	assert_int_equal(take(exc_tx, NULL, NULL), 1);

	/* now known: the next datagram goes straight out */
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("direct"), &f), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, ut_mac_peer, 4, ut_ip4_us, ut_ip4_peer, "direct");
	assert_int_equal(cnt(STK_CNT_arp_request_tx), 1);
}

static void test_send_resolves_ipv6(void **state)
{
	struct stk_ipaddr peer = addr6(ut_ip6_peer);
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct stk_flow f;
	struct ut_off o;
	uint16_t len, olen = 0;
	const uint8_t *icmp;

	flow(&f, &peer);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("queued6"), &f), 0);
	/* an NS to the solicited-node address (RFC 4861 §7.2.2) */
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_int_equal(olen, 14 + 40 + 32);
	assert_memory_equal(out, sn_peer_mac, 6);
	assert_int_equal(out[14 + 7], 255);
	assert_memory_equal(out + 14 + 8, ut_ip6_us, 16);
	assert_memory_equal(out + 14 + 24, sn_peer, 16);
	icmp = out + 14 + 40;
	assert_int_equal(icmp[0], 135);
	assert_memory_equal(icmp + 8, ut_ip6_peer, 16);
	assert_int_equal(icmp[24], 1); /* source link-layer address */
	assert_memory_equal(icmp + 26, ut_mac_us, 6);
	assert_int_equal(ut_l4_csum(6, ut_ip6_us, sn_peer, 58, icmp, 32), 0);
	assert_int_equal(cnt(STK_CNT_nd_solicit_tx), 1);

	/* the solicited NA releases it */
	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	receive(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, ut_mac_peer, 6, ut_ip6_us, ut_ip6_peer, "queued6");
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
}

static void test_send_via_gateway(void **state)
{
	static const uint8_t far[4] = {198, 51, 100, 7};
	static const uint8_t gw[4] = {192, 0, 2, 254};
	static const uint8_t gw_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0xfe};
	struct stk_ipaddr dst = addr4(far);
	struct stk_iface ifc = *fx.ifc;
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct stk_flow f;
	struct ut_off o;
	uint16_t len, olen = 0;

	/* give the registered interface a gateway */
	stk_iface_reset();
	ifc.gw4 = addr4(gw);
	assert_int_equal(stk_iface_add(&ifc), 0);
	fx.ifc = stk_iface_get(0);

	flow(&f, &dst);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("far"), &f), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_arp(out + 14, 1, ut_mac_us, ut_ip4_us, zero6, gw); /* resolves the gateway */
	len = ut_frame_arp(b, ut_mac_us, gw_mac, -1, 2, gw_mac, gw, ut_mac_us, ut_ip4_us, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, gw_mac, 4, ut_ip4_us, far, "far");
}

static void test_send_errors_leave_mbuf(void **state)
{
	static const uint8_t far[4] = {198, 51, 100, 7};
	struct stk_ipaddr dst = addr4(far), peer = addr4(ut_ip4_peer);
	struct rte_mbuf *m = payload("mine");
	struct stk_flow f;
	uint8_t out[64];

	/* off-link without a gateway */
	flow(&f, &dst);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, m, &f), -ENETUNREACH);
	/* a bad flow */
	flow(&f, &peer);
	f.dscp = 64;
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, m, &f), -EINVAL);
	/* the caller still owns it, as it was */
	assert_int_equal(ut_mbuf_bytes(m, out, sizeof(out)), 4);
	assert_memory_equal(out, "mine", 4);
	rte_pktmbuf_free(m);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
}

static void test_send_pending_full(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	struct stk_neigh_params np;
	struct stk_flow f;
	struct rte_mbuf *m;
	uint8_t out[64];

	stk_neigh_params_default(&np);
	flow(&f, &peer);
	for (unsigned i = 0; i < np.max_pending; i++)
		assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("wait"), &f), 0);
	m = payload("one too many");
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, m, &f), -ENOBUFS);
	/* given back as it came: only the payload */
	assert_int_equal(ut_mbuf_bytes(m, out, sizeof(out)), 12);
	assert_memory_equal(out, "one too many", 12);
	rte_pktmbuf_free(m);
	assert_int_equal(cnt(STK_CNT_neigh_queued), np.max_pending);
	/* one ARP request for all of them */
	assert_int_equal(take(wire_tx, NULL, NULL), 1);
	/* the teardown frees the four still waiting */
}

static void test_send_to_self_and_multicast(void **state)
{
	struct stk_ipaddr self = addr4(ut_ip4_us), mc = addr6(all_nodes);
	uint8_t out[UT_FRAME_MAX];
	struct stk_flow f;
	uint16_t olen = 0;

	/* to our own address: no resolution, our MAC */
	flow(&f, &self);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("me"), &f), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, ut_mac_us, 4, ut_ip4_us, ut_ip4_us, "me");
	/* IPv6 multicast: RFC 2464 mapping, no ND; the source is one of ours */
	flow(&f, &mc);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("all"), &f), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_true(!memcmp(out + 14 + 8, ut_ip6_us, 16) || !memcmp(out + 14 + 8, ut_ll_us, 16));
	check_udp_out(out, olen, all_nodes_mac, 6, out + 14 + 8, all_nodes, "all");
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 0);
}

static void test_neigh_probe(void **state)
{
	struct stk_ipaddr peer4 = addr4(ut_ip4_peer), peer6 = addr6(ut_ip6_peer);
	uint8_t out[UT_FRAME_MAX];
	uint16_t olen = 0;

	assert_int_equal(stk_neigh_probe(fx.lc, fx.ifc, &peer4), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_arp(out + 14, 1, ut_mac_us, ut_ip4_us, zero6, ut_ip4_peer);
	/* already resolving: no second probe */
	assert_int_equal(stk_neigh_probe(fx.lc, fx.ifc, &peer4), 0);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(stk_neigh_probe(fx.lc, fx.ifc, &peer6), 0);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_memory_equal(out, sn_peer_mac, 6);
}

/* A small table: 16 entries, 16 parked datagrams in all. */
static int setup_small_neigh(void **state)
{
	struct stk_neigh_params np;

	stk_neigh_params_default(&np);
	np.entries = 16;
	np.max_pending_total = 16;
	np.retrans_ms = 600000;
	return fx_up(0, EXC_PORT, &np, wire_port);
}

/*
 * Issue 11 item 10, through the lcore: 16 unresolved addresses with a datagram each fill
 * the table and the cap; a 17th address evicts the least recently used one (its datagram is
 * a counted drop) and its own datagram then fits; a second one to it finds the table-wide cap
 * (16) and is given back. The lcore's timer exports what the table did as counters.
 */
static void test_neigh_bounds_counted(void **state)
{
	struct stk_ipaddr ip = addr4(ut_ip4_peer);
	struct stk_flow f;
	struct rte_mbuf *m;

	for (uint8_t i = 0; i < 16; i++) {
		((uint8_t *)&ip.v4)[3] = (uint8_t)(10 + i);
		flow(&f, &ip);
		assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("wait"), &f), 0);
	}
	((uint8_t *)&ip.v4)[3] = 100;
	flow(&f, &ip);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("new"), &f), 0);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 16);
	((uint8_t *)&ip.v4)[3] = 10;
	assert_null(neigh(&ip)); /* the oldest went */
	((uint8_t *)&ip.v4)[3] = 100;
	m = payload("capped");
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, m, &f), -ENOBUFS);
	rte_pktmbuf_free(m);
	take(wire_tx, NULL, NULL); /* the probes */
	fx.lc->next_tick = 0;	   /* run the timers on this iteration */
	stk_lcore_poll(fx.lc);
	assert_int_equal(cnt(STK_CNT_neigh_evicted), 1);
	assert_int_equal(cnt(STK_CNT_neigh_pending_cap), 1);
	assert_int_equal(drops(STK_DROP_NEIGH_EVICTED), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
	/* counted once, not again on the next tick */
	fx.lc->next_tick = 0;
	stk_lcore_poll(fx.lc);
	assert_int_equal(cnt(STK_CNT_neigh_evicted), 1);
	assert_int_equal(drops(STK_DROP_NEIGH_EVICTED), 1);
}

static void test_unresolved_dropped_by_timer(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	struct stk_flow f;

	/* retrans 10 ms, one probe: after it the datagram is dropped by the loop's timer */
	flow(&f, &peer);
	assert_int_equal(stk_udp_send(fx.lc, fx.ifc, payload("lost"), &f), 0);
	assert_int_equal(take(wire_tx, NULL, NULL), 1);
	rte_delay_ms(30);
	fx.lc->next_tick = 0; /* run the timers on this iteration */
	stk_lcore_poll(fx.lc);
	assert_null(neigh(&peer));
	assert_int_equal(drops(STK_DROP_NEIGH_FAILED), 1);
	assert_int_equal(cnt(STK_CNT_drops), 1);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
}

static void test_neigh_shared_between_lcores(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	struct stk_neigh_params np;
	struct stk_lcore *other;
	uint8_t b[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct stk_flow f;
	struct ut_off o;
	uint16_t len, olen = 0;

	/* a second lcore context, driven by hand, waits for the peer */
	assert_int_equal(stk_ctrl_init(64), 0);
	stk_neigh_params_default(&np);
	np.retrans_ms = 600000;
	other = stk_lcore_create(OTHER_LCORE, 0, false, ut_pool(), &np);
	assert_non_null(other);
	flow(&f, &peer);
	assert_int_equal(stk_udp_send(other, fx.ifc, payload("other lcore"), &f), 0);
	stk_lcore_flush(other);
	assert_int_equal(take(wire_tx, NULL, NULL), 1); /* its ARP request */

	/* the reply lands on the first lcore, which tells the other one */
	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 2, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	input(b, len);
	assert_int_equal(rte_ring_count(other->ctrl), 1);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);

	/* its next loop iteration sends what was waiting, to the peer's MAC */
	stk_lcore_poll(other);
	assert_int_equal(other->stats[fx.ifc->idx].c[STK_CNT_ctrl_msgs], 1);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	check_udp_out(out, olen, ut_mac_peer, 4, ut_ip4_us, ut_ip4_peer, "other lcore");
	assert_non_null(stk_neigh_lookup(other->neigh, fx.ifc->idx, &peer));
	stk_lcore_destroy(other);
	stk_ctrl_fini();
}

/*
 * Issue 11 item 10: every ARP packet seen (requests for other hosts, repeats) was copied to
 * every other lcore's control ring. Now only what changed this lcore's table, or answers a
 * probe (perhaps the other lcore's, as in test_neigh_shared_between_lcores), is told.
 */
static void test_ctrl_only_on_change(void **state)
{
	static const uint8_t other_ip[4] = {192, 0, 2, 77};
	struct stk_neigh_params np;
	struct stk_lcore *other;
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	assert_int_equal(stk_ctrl_init(64), 0);
	stk_neigh_params_default(&np);
	other = stk_lcore_create(OTHER_LCORE, 0, false, ut_pool(), &np);
	assert_non_null(other);
	/* requests for another host, ten times: nothing to tell */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, other_ip,
			   &o);
	for (unsigned i = 0; i < 10; i++)
		input(b, len);
	assert_int_equal(rte_ring_count(other->ctrl), 0);
	/* a request for us: the peer is learnt here, and the others hear of it once */
	len = ut_frame_arp(b, bcast, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, zero6, ut_ip4_us,
			   &o);
	input(b, len);
	input(b, len);
	assert_int_equal(rte_ring_count(other->ctrl), 1);
	take(wire_tx, NULL, NULL); /* our two replies */
	stk_lcore_poll(other);
	stk_lcore_destroy(other);
	stk_ctrl_fini();
}

/* ---------------- VLAN interface ---------------- */

static void test_vlan_interface(void **state)
{
	uint8_t b[UT_FRAME_MAX], plain[UT_FRAME_MAX], out[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	uint16_t len, plen, olen = 0;

	/* to the kernel: the TAP is untagged, so the tag comes off and nothing else changes */
	len = ut_frame_icmp4_echo(b, 5 << 13 | 100, &o);
	plen = ut_frame_icmp4_echo(plain, -1, &o);
	input(b, len);
	assert_int_equal(take(exc_tx, out, &olen), 1);
	assert_int_equal(olen, plen);
	assert_memory_equal(out, plain, plen);

	/* an ARP reply goes out tagged with the interface's PCP and VID */
	len = ut_frame_arp(b, bcast, ut_mac_peer, 100, 1, ut_mac_peer, ut_ip4_peer, zero6,
			   ut_ip4_us, &o);
	input(b, len);
	assert_int_equal(take(wire_tx, out, &olen), 1);
	assert_int_equal(olen, 18 + 28);
	assert_int_equal(ut_get16(out + 12), 0x8100);
	assert_int_equal(ut_get16(out + 14), 5 << 13 | 100);
	assert_int_equal(ut_get16(out + 16), 0x0806);
	check_arp(out + 18, 2, ut_mac_us, ut_ip4_us, ut_mac_peer, ut_ip4_peer);

	/* UDP payload offsets account for the tag */
	bind_port(5000);
	ut_ip_default(&ip, 4, 17);
	ip.tci = 100;
	len = ut_frame_udp(b, &ip, 1, 5000, "tagged", 6, false, &o);
	input(b, len);
	assert_int_equal(rx.calls, 1);
	assert_int_equal(rx.payload_off, 18 + 20 + 8);
	assert_memory_equal(rx.payload, "tagged", 6);

	/* untagged frames are not this interface's */
	len = ut_frame_icmp4_echo(b, -1, &o);
	input(b, len);
	assert_int_equal(drops(STK_DROP_VLAN_MISMATCH), 1);

	/* from the kernel: tagged on the way out */
	{
		struct rte_mbuf *m = ut_mbuf(plain, plen);

		assert_non_null(m);
		assert_int_equal(rte_ring_enqueue(exc_rx, m), 0);
		stk_lcore_poll(fx.lc);
		assert_int_equal(take(wire_tx, out, &olen), 1);
		assert_int_equal(olen, plen + 4);
		assert_memory_equal(out, plain, 12);
		assert_int_equal(ut_get16(out + 12), 0x8100);
		assert_int_equal(ut_get16(out + 14), 5 << 13 | 100);
		assert_memory_equal(out + 16, plain + 12, plen - 12);
	}
}

/* ---------------- TX queue full ---------------- */

static void test_tx_full(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);

	/* the PMD queue holds 3: two of five are dropped at the flush and counted */
	for (unsigned i = 0; i < 5; i++) {
		struct rte_mbuf *m = ut_mbuf(b, len);

		assert_non_null(m);
		stk_tx_frame(fx.lc, fx.ifc, m);
	}
	assert_int_equal(cnt(STK_CNT_tx_pkts), 5);
	stk_lcore_flush(fx.lc);
	assert_int_equal(rte_ring_count(small_tx), 3);
	assert_int_equal(drops(STK_DROP_TX_FULL), 2);
	assert_int_equal(cnt(STK_CNT_drops), 2);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 3);
	assert_int_equal(cnt(STK_CNT_tx_bytes), 3u * len);
}

/* ---------------- counters ---------------- */

static void test_stats_sum_and_names(void **state)
{
	struct stk_port_stats s;
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len = ut_frame_icmp4_echo(b, -1, &o);

	input(b, len);
	input(b, 5); /* truncated */
	stk_stats_sum(fx.ifc->idx, &s);
	assert_int_equal(s.c[STK_CNT_rx_pkts], 2);
	assert_int_equal(s.c[STK_CNT_rx_bytes], len + 5u);
	assert_int_equal(s.c[STK_CNT_to_kernel], 1);
	assert_int_equal(s.drop[STK_DROP_ETH_TRUNC], 1);
	stk_stats_sum(-1, &s);
	assert_int_equal(s.c[STK_CNT_rx_pkts], 2);
	stk_stats_sum(fx.ifc->idx + 1, &s);
	assert_int_equal(s.c[STK_CNT_rx_pkts], 0);
	assert_string_equal(stk_counter_name(STK_CNT_rx_pkts), "rx_pkts");
	assert_string_equal(stk_counter_name(STK_CNT_drops), "drops");
	assert_string_equal(stk_counter_name(STK_CNT_NUM), "?");
	assert_ptr_equal(stk_lcore_get(rte_lcore_id()), fx.lc);
	assert_ptr_equal(stk_lcore_self(), fx.lc);
	/* a second context on the same lcore is refused */
	{
		struct stk_neigh_params np;

		stk_neigh_params_default(&np);
		assert_null(stk_lcore_create(rte_lcore_id(), 1, false, ut_pool(), &np));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_send_resolves_ipv4),
		T(test_send_resolves_ipv6),
		T(test_send_via_gateway),
		T(test_send_errors_leave_mbuf),
		T(test_send_pending_full),
		T(test_send_to_self_and_multicast),
		T(test_neigh_probe),
		TS(test_unresolved_dropped_by_timer, setup_fast_neigh),
		T(test_neigh_shared_between_lcores),
		T(test_ctrl_only_on_change),
		TS(test_neigh_bounds_counted, setup_small_neigh),
		TS(test_vlan_interface, setup_vlan),
		TS(test_tx_full, setup_small_port),
		T(test_stats_sum_and_names),
	};

	return ut_input_main("stk_input (send)", tests, RTE_DIM(tests));
}
