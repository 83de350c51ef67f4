/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ut_input_fixture.h - the fixture shared by test_input.c (receive side) and test_send.c
 * (send side): two net_ring ports made once (the wire and a fake exception TAP), a per-test
 * interface and lcore context (fx_up() and the setup_* variants), a teardown that checks the
 * mbuf pool is back to its starting in-use count, frame helpers, an ARP layout check and a
 * recording UDP handler. Included by those two files and test_pfc_port.c (which brings its
 * interface up in PFC mode itself); everything is static to each.
 *
 *   wire_rx --> [ring port "wire"] --> stk_lcore_poll / stk_input --> handler, neighbour table
 *   wire_tx <-- [ring port "wire"] <-- replies, resolved datagrams
 *   exc_tx  <-- [ring port "exc"]  <-- frames for the kernel (the TAP's TX)
 *   exc_rx  --> [ring port "exc"]  --> frames from the kernel, out on the wire
 */
#ifndef UT_INPUT_FIXTURE_H
#define UT_INPUT_FIXTURE_H

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

static inline struct rte_ring *ring(const char *name, unsigned size)
{
	struct rte_ring *r = rte_ring_create(name, size, (int)rte_socket_id(), 0);

	if (!r)
		fprintf(stderr, "cannot create ring %s\n", name);
	return r;
}

static inline int ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
			    uint16_t *port)
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

static inline int make_ports(void)
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

static inline void free_ports(void)
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

/* Register @ifc and make the lcore context polling its port (queue 0); neighbour timers from
 * @np_in, or far away. */
static inline int fx_start(const struct stk_iface *ifc, bool exc_owner,
			   const struct stk_neigh_params *np_in)
{
	struct stk_neigh_params np;
	int idx = stk_iface_add(ifc);

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
	fx.lc = stk_lcore_create(rte_lcore_id(), 0, exc_owner, ut_pool(), &np);
	if (!fx.lc)
		return -1;
	fx.lc->rxq[0].iface = (uint16_t)idx;
	fx.lc->rxq[0].port_id = ifc->port_id;
	fx.lc->rxq[0].queue = 0;
	fx.lc->nb_rxq = 1;
	return 0;
}

/* Bring up one interface and the lcore context. */
static inline int fx_up(int vlan, int exc, const struct stk_neigh_params *np_in, uint16_t port)
{
	struct stk_iface ifc;

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
	return fx_start(&ifc, exc == EXC_PORT || exc == EXC_NONE, np_in);
}

static inline int setup(void **state)
{
	return fx_up(0, EXC_PORT, NULL, wire_port);
}

static inline int setup_vlan(void **state)
{
	return fx_up(100, EXC_PORT, NULL, wire_port);
}

static inline int setup_no_exc(void **state)
{
	return fx_up(0, EXC_NONE, NULL, wire_port);
}

static inline int setup_exc_ring(void **state)
{
	return fx_up(0, EXC_RING, NULL, wire_port);
}

static inline int setup_exc_ring_tiny(void **state)
{
	return fx_up(0, EXC_RING_TINY, NULL, wire_port);
}

static inline int setup_small_port(void **state)
{
	return fx_up(0, EXC_PORT, NULL, small_port);
}

static inline int setup_fast_neigh(void **state)
{
	struct stk_neigh_params np;

	stk_neigh_params_default(&np);
	np.retrans_ms = 10;
	np.max_probes = 1;
	return fx_up(0, EXC_PORT, &np, wire_port);
}

static inline void drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static inline int teardown(void **state)
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

static inline uint64_t cnt(enum stk_counter c)
{
	return fx.lc->stats[fx.ifc->idx].c[c];
}

static inline uint64_t drops(enum stk_drop d)
{
	return fx.lc->stats[fx.ifc->idx].drop[d];
}

/* Hand a frame to stk_input() and flush the TX buffers. */
static inline void input(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	stk_input(fx.lc, fx.ifc, m);
	stk_lcore_flush(fx.lc);
}

/* Put a frame on the wire port's RX ring and run one loop iteration. */
static inline void receive(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	assert_int_equal(rte_ring_enqueue(wire_rx, m), 0);
	assert_int_equal(stk_lcore_poll(fx.lc), 1);
}

/* Take the frames that came out of @r, copy the first one to @out. @return how many. */
static inline unsigned take(struct rte_ring *r, uint8_t *out, uint16_t *len)
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

static inline struct stk_ipaddr addr4(const uint8_t *a)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 4;
	memcpy(&x.v4, a, 4);
	return x;
}

static inline struct stk_ipaddr addr6(const uint8_t *a)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 6;
	memcpy(x.v6, a, 16);
	return x;
}

static inline const struct stk_neigh *neigh(const struct stk_ipaddr *ip)
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

/* ---------------- shared with both files: ARP check, UDP handler ---------------- */

static inline void check_arp(const uint8_t *a, uint16_t op, const uint8_t *sha, const uint8_t *spa,
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

static inline int udp_handler(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
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

static inline void bind_port(uint16_t port)
{
	assert_int_equal(stk_udp_bind(port, udp_handler, &rx), 0);
	fx.bound[fx.nb_bound++] = port;
	memset(&rx, 0, sizeof(rx));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define TS(f, s) cmocka_unit_test_setup_teardown(f, s, teardown)

/* Run @tests with the ports made once around them. */
static inline int ut_input_main(const char *name, const struct CMUnitTest *tests, size_t n)
{
	int rc;

	if (ut_eal_init(name, "0@0,1@0") != 0)
		return 1;
	if (make_ports() != 0) {
		ut_eal_fini();
		return 1;
	}
	rc = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
	free_ports();
	ut_eal_fini();
	return rc;
}

#endif /* UT_INPUT_FIXTURE_H */
