/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_input.c - the receive and send paths end to end (stack/stk_lcore.c, stack/stk_arp.c):
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
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "stk_arp.h"
#include "stk_ctrl.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "stk_stats.h"
#include "ut_common.h"

/* ---------------- ports and rings, made once ---------------- */

static struct rte_ring *wire_rx, *wire_tx, *exc_rx, *exc_tx, *small_rx, *small_tx;
static struct rte_ring *exc_ring, *exc_ring_tiny;
static uint16_t wire_port, exc_port, small_port;

static struct rte_ring *ring(const char *name, unsigned size)
{
	struct rte_ring *r = rte_ring_create(name, size, (int)rte_socket_id(), 0);

	if (!r)
		fprintf(stderr, "cannot create ring %s\n", name);
	return r;
}

static int ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx, uint16_t *port)
{
	struct rte_eth_conf conf;
	int id = rte_eth_from_rings(name, &rx, 1, &tx, 1, rte_socket_id());

	if (id < 0)
		return -1;
	*port = (uint16_t)id;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(*port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(*port, 0, 64, rte_socket_id(), NULL, ut_pool()) != 0 ||
	    rte_eth_tx_queue_setup(*port, 0, 64, rte_socket_id(), NULL) != 0 ||
	    rte_eth_dev_start(*port) != 0)
		return -1;
	return 0;
}

static int make_ports(void)
{
	wire_rx = ring("ut_wire_rx", 256);
	wire_tx = ring("ut_wire_tx", 256);
	exc_rx = ring("ut_exc_rx", 256);
	exc_tx = ring("ut_exc_tx", 256);
	/* room for 3 frames: a PMD queue that fills up */
	small_rx = ring("ut_small_rx", 4);
	small_tx = ring("ut_small_tx", 4);
	exc_ring = ring("ut_exc_ring", 64);
	exc_ring_tiny = ring("ut_exc_tiny", 2); /* room for 1 */
	if (!wire_rx || !wire_tx || !exc_rx || !exc_tx || !small_rx || !small_tx || !exc_ring ||
	    !exc_ring_tiny)
		return -1;
	if (ring_port("ut_wire", wire_rx, wire_tx, &wire_port) != 0 ||
	    ring_port("ut_exc", exc_rx, exc_tx, &exc_port) != 0 ||
	    ring_port("ut_small", small_rx, small_tx, &small_port) != 0) {
		fprintf(stderr, "cannot set up the net_ring ports\n");
		return -1;
	}
	return 0;
}

static void free_ports(void)
{
	uint16_t ports[] = {wire_port, exc_port, small_port};
	struct rte_ring *rings[] = {
		wire_rx, wire_tx, exc_rx, exc_tx, small_rx, small_tx, exc_ring, exc_ring_tiny,
	};

	for (unsigned i = 0; i < RTE_DIM(ports); i++) {
		rte_eth_dev_stop(ports[i]);
		rte_eth_dev_close(ports[i]);
	}
	for (unsigned i = 0; i < RTE_DIM(rings); i++)
		rte_ring_free(rings[i]);
}

/* ---------------- per-test fixture ---------------- */

/* The EAL runs lcores 0 and 1 (both on CPU 0); lcore 1 only ever gets a context driven by
 * hand from the main thread. */
#define OTHER_LCORE 1

static struct {
	unsigned in_use;
	struct stk_lcore *lc;
	const struct stk_iface *ifc;
	uint16_t bound[40];
	unsigned nb_bound;
} fx;

enum { EXC_PORT, EXC_NONE, EXC_RING, EXC_RING_TINY };

/* Bring up one interface and the lcore context. */
static int fx_up(int vlan, int exc, const struct stk_neigh_params *np_in, uint16_t port)
{
	struct stk_neigh_params np;
	struct stk_iface ifc;
	int idx;

	memset(&fx, 0, sizeof(fx));
	fx.in_use = ut_in_use();
	ut_iface_default(&ifc);
	ifc.port_id = port;
	if (vlan > 0) {
		ifc.vlan = true;
		ifc.vlan_id = (uint16_t)vlan;
		ifc.pcp = 5;
	}
	if (exc != EXC_NONE) {
		ifc.exc_port_id = exc_port;
		ifc.exc_ring = exc == EXC_RING_TINY ? exc_ring_tiny : exc_ring;
	}
	idx = stk_iface_add(&ifc);
	if (idx < 0)
		return -1;
	fx.ifc = stk_iface_get((uint16_t)idx);
	if (np_in) {
		np = *np_in;
	} else {
		/* neighbour timers far away: no test sees a retry it did not ask for */
		stk_neigh_params_default(&np);
		np.retrans_ms = 600000;
		np.reachable_ms = 3600000;
	}
	fx.lc = stk_lcore_create(rte_lcore_id(), 0, exc == EXC_PORT || exc == EXC_NONE, ut_pool(),
				 &np);
	if (!fx.lc)
		return -1;
	fx.lc->rxq[0].iface = (uint16_t)idx;
	fx.lc->rxq[0].port_id = port;
	fx.lc->rxq[0].queue = 0;
	fx.lc->nb_rxq = 1;
	return 0;
}

static int setup(void **state)
{
	return fx_up(0, EXC_PORT, NULL, wire_port);
}

static int setup_vlan(void **state)
{
	return fx_up(100, EXC_PORT, NULL, wire_port);
}

static int setup_no_exc(void **state)
{
	return fx_up(0, EXC_NONE, NULL, wire_port);
}

static int setup_exc_ring(void **state)
{
	return fx_up(0, EXC_RING, NULL, wire_port);
}

static int setup_exc_ring_tiny(void **state)
{
	return fx_up(0, EXC_RING_TINY, NULL, wire_port);
}

static int setup_small_port(void **state)
{
	return fx_up(0, EXC_PORT, NULL, small_port);
}

static int setup_fast_neigh(void **state)
{
	struct stk_neigh_params np;

	stk_neigh_params_default(&np);
	np.retrans_ms = 10;
	np.max_probes = 1;
	return fx_up(0, EXC_PORT, &np, wire_port);
}

static void drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static int teardown(void **state)
{
	stk_lcore_destroy(fx.lc);
	assert_null(stk_lcore_get(rte_lcore_id()));
	/* the second context of test_neigh_shared_between_lcores, should it have failed */
	stk_lcore_destroy(stk_lcore_get(OTHER_LCORE));
	stk_ctrl_fini();
	stk_iface_reset();
	assert_int_equal(stk_iface_count(), 0);
	for (unsigned i = 0; i < fx.nb_bound; i++)
		stk_udp_unbind(fx.bound[i]);
	drain(wire_rx);
	drain(wire_tx);
	drain(exc_rx);
	drain(exc_tx);
	drain(small_rx);
	drain(small_tx);
	drain(exc_ring);
	drain(exc_ring_tiny);
	assert_int_equal(ut_in_use(), fx.in_use);
	return 0;
}

/* ---------------- helpers ---------------- */

static uint64_t cnt(enum stk_counter c)
{
	return fx.lc->stats[fx.ifc->idx].c[c];
}

static uint64_t drops(enum stk_drop d)
{
	return fx.lc->stats[fx.ifc->idx].drop[d];
}

/* Hand a frame to stk_input() and flush the TX buffers. */
static void input(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	stk_input(fx.lc, fx.ifc, m);
	stk_lcore_flush(fx.lc);
}

/* Put a frame on the wire port's RX ring and run one loop iteration. */
static void receive(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	assert_int_equal(rte_ring_enqueue(wire_rx, m), 0);
	assert_int_equal(stk_lcore_poll(fx.lc), 1);
}

/* Take the frames that came out of @r, copy the first one to @out. @return how many. */
static unsigned take(struct rte_ring *r, uint8_t *out, uint16_t *len)
{
	struct rte_mbuf *m;
	unsigned n = 0;

	stk_lcore_flush(fx.lc);
	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		if (n == 0 && out)
			*len = ut_mbuf_bytes(m, out, UT_FRAME_MAX);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
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

static const struct stk_neigh *neigh(const struct stk_ipaddr *ip)
{
	return stk_neigh_lookup(fx.lc->neigh, fx.ifc->idx, ip);
}

static const uint8_t zero6[6];
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
/* solicited-node multicast of 2001:db8::1 / ::2 and their MACs (RFC 4291 §2.7.1, 2464 §7) */
static const uint8_t sn_us[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
static const uint8_t sn_us_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
static const uint8_t sn_peer[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x02};
static const uint8_t sn_peer_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x02};
static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
static const uint8_t unspec[16];

/* ---------------- ARP ---------------- */

static void check_arp(const uint8_t *a, uint16_t op, const uint8_t *sha, const uint8_t *spa,
		      const uint8_t *tha, const uint8_t *tpa)
{
	/* RFC 826 layout */
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

static void test_arp_reply_learnt_and_to_kernel(void **state)
{
	struct stk_ipaddr peer = addr4(ut_ip4_peer);
	uint8_t b[UT_FRAME_MAX];
	struct ut_off o;
	uint16_t len;

	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 2, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	input(b, len);
	assert_non_null(neigh(&peer));
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
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
	/* solicited: creates it */
	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	input(b, len);
	assert_non_null(neigh(&peer));
	assert_memory_equal(neigh(&peer)->mac.addr_bytes, ut_mac_peer, 6);
	assert_int_equal(take(exc_tx, NULL, NULL), 1);
	assert_int_equal(take(wire_tx, NULL, NULL), 0);
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
	assert_non_null(neigh(&peer));
	len = ut_frame_nd(b, ut_mac_us, ut_mac_peer, -1, ut_ip6_peer, ut_ip6_us, 255, 136, 0x60,
			  ut_ip6_peer, 2, ut_mac_peer, &o);
	input(b, len);
	len = ut_frame_nd(b, sn_us_mac, ut_mac_peer, -1, ut_ip6_peer, sn_us, 255, 135, 0, other6, 1,
			  ut_mac_peer, &o);
	input(b, len);
	assert_int_equal(cnt(STK_CNT_drops), 0);
	assert_int_equal(drops(STK_DROP_NO_EXCEPTION), 0);
	assert_int_equal(stk_neigh_count(fx.lc->neigh), 2);
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

static struct {
	unsigned calls;
	int ret;
	uint16_t payload_off, payload_len, dport, sport;
	uint8_t payload[64];
	struct stk_ipaddr src;
	const struct stk_iface *ifc;
	struct stk_lcore *lc;
	void *arg;
} rx;

static int udp_handler(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		       const struct stk_pkt *p, void *arg)
{
	rx.calls++;
	rx.payload_off = p->payload_off;
	rx.payload_len = p->payload_len;
	rx.dport = p->dport;
	rx.sport = p->sport;
	rx.src = p->src;
	rx.ifc = ifc;
	rx.lc = lc;
	rx.arg = arg;
	if (p->payload_len <= sizeof(rx.payload)) {
		const void *d = rte_pktmbuf_read(m, p->payload_off, p->payload_len, rx.payload);

		assert_non_null(d);
		memmove(rx.payload, d, p->payload_len); /* d may point into m itself */
	}
	if (rx.ret == 0)
		rte_pktmbuf_free(m);
	return rx.ret;
}

static void bind_port(uint16_t port)
{
	assert_int_equal(stk_udp_bind(port, udp_handler, &rx), 0);
	fx.bound[fx.nb_bound++] = port;
	memset(&rx, 0, sizeof(rx));
}

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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define TS(f, s) cmocka_unit_test_setup_teardown(f, s, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_arp_request_answered),
		T(test_arp_request_for_other),
		T(test_arp_reply_learnt_and_to_kernel),
		T(test_arp_probe_teaches_nothing),
		T(test_arp_malformed),
		T(test_ns_answered),
		T(test_ns_link_local),
		T(test_ns_dad),
		T(test_ns_without_option),
		T(test_ns_for_other_to_kernel),
		T(test_na_learnt_and_to_kernel),
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
		T(test_send_resolves_ipv4),
		T(test_send_resolves_ipv6),
		T(test_send_via_gateway),
		T(test_send_errors_leave_mbuf),
		T(test_send_pending_full),
		T(test_send_to_self_and_multicast),
		T(test_neigh_probe),
		TS(test_unresolved_dropped_by_timer, setup_fast_neigh),
		T(test_neigh_shared_between_lcores),
		TS(test_vlan_interface, setup_vlan),
		TS(test_tx_full, setup_small_port),
		T(test_stats_sum_and_names),
	};
	int rc;

	if (ut_eal_init("test_input", "0@0,1@0") != 0)
		return 1;
	if (make_ports() != 0) {
		ut_eal_fini();
		return 1;
	}
	rc = cmocka_run_group_tests_name("stk_input / stk_lcore / stk_arp", tests, NULL, NULL);
	free_ports();
	ut_eal_fini();
	return rc;
}
