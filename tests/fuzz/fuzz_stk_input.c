/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_stk_input.c - libFuzzer target for the stack's receive path: stk_parse, stk_classify
 * and everything stk_input dispatches to (ARP, ND, UDP delivery, exception path), on an
 * untagged and a VLAN interface. After each input every mbuf must be back in the pool.
 *
 * Built two ways: with -Dfuzz=true (clang, -fsanitize=fuzzer) as a fuzzer, and always as a
 * replay program (DROCE_FUZZ_REPLAY) that runs the corpus files given on its command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "stk_lcore.h"
#include "stk_stack.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static struct rte_ring *wire_tx, *kern_tx;
static unsigned base_in_use;

static int udp_sink(struct stk_lcore *l, const struct stk_iface *ifc, struct rte_mbuf *m,
		    const struct stk_pkt *p, void *arg)
{
	(void)l;
	(void)ifc;
	(void)arg;
	/* touch the payload the stack says is there: ASan catches a wrong bound */
	if (p->payload_len && p->payload_off + p->payload_len <= rte_pktmbuf_data_len(m)) {
		volatile uint8_t x =
			*rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off + p->payload_len - 1);
		(void)x;
	}
	rte_pktmbuf_free(m);
	return 0;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_stk_input: %s failed: %s\n", what, rte_strerror(rte_errno));
	abort();
}

static uint16_t ring_port(const char *name, struct rte_ring **tx)
{
	struct rte_eth_conf conf = {0};
	struct rte_ring *rx;
	char rn[64];
	int port;

	snprintf(rn, sizeof(rn), "%s_rx", name);
	rx = rte_ring_create(rn, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rn, sizeof(rn), "%s_tx", name);
	*tx = rte_ring_create(rn, 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (!rx || !*tx)
		die("rte_ring_create");
	port = rte_eth_from_rings(name, &rx, 1, tx, 1, 0);
	if (port < 0)
		die("rte_eth_from_rings");
	if (rte_eth_dev_configure((uint16_t)port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)port, 0, 1024, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)port, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)port) != 0)
		die("ring port start");
	return (uint16_t)port;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char a0[] = "fuzz", a1[] = "--no-huge", a2[] = "-m", a3[] = "256", a4[] = "--no-pci",
		    a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l", a8[] = "0",
		    a9[] = "--log-level=*:critical";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
	struct stk_neigh_params np;
	struct stk_iface ifc;
	uint16_t wire, kern;
	(void)argc;
	(void)argv;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		die("rte_eal_init");
	pool = rte_pktmbuf_pool_create("fuzz_pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool)
		die("mbuf pool");
	wire = ring_port("fz_wire", &wire_tx);
	kern = ring_port("fz_kern", &kern_tx);

	/* interface 0: VM A of shared/captures, so captured RoCE frames are "ours" */
	memset(&ifc, 0, sizeof(ifc));
	snprintf(ifc.name, sizeof(ifc.name), "fz0");
	ifc.port_id = wire;
	ifc.exc_port_id = kern;
	ifc.mac = (struct rte_ether_addr){{0x52, 0x54, 0x00, 0x99, 0x00, 0x02}};
	stk_ipaddr_parse("10.99.0.2", &ifc.ip4);
	ifc.ip4_prefix = 24;
	stk_ipaddr_parse("fd99::2", &ifc.ip6);
	ifc.ip6_prefix = 64;
	stk_ipv6_link_local(&ifc.mac, &ifc.ip6_ll);
	ifc.mtu = 1500;
	ifc.nb_rxq = ifc.nb_txq = 1;
	ifc.exc_ring = rte_ring_create("fz_exc0", 1024, 0, RING_F_SC_DEQ);
	stk_iface_add(&ifc);
	/* interface 1: the same on VLAN 100 */
	ifc.vlan = true;
	ifc.vlan_id = 100;
	ifc.pcp = 3;
	ifc.exc_ring = rte_ring_create("fz_exc1", 1024, 0, RING_F_SC_DEQ);
	stk_iface_add(&ifc);

	stk_neigh_params_default(&np);
	np.entries = 64;
	lc = stk_lcore_create(rte_lcore_id(), 0, true, pool, &np);
	if (!lc || stk_udp_bind(7000, udp_sink, NULL) != 0)
		die("lcore context");
	base_in_use = rte_mempool_in_use_count(pool);
	return 0;
}

static void drain(struct rte_ring *r)
{
	void *m;

	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m;
	uint16_t room;

	if (size < 1)
		return 0;
	m = rte_pktmbuf_alloc(pool);
	if (!m)
		die("mbuf alloc");
	room = rte_pktmbuf_tailroom(m);
	size--;
	if (size > room)
		size = room;
	memcpy(rte_pktmbuf_append(m, (uint16_t)size), data + 1, size);
	/* first byte: which interface, and whether the "PMD" claims checksums good or bad */
	if (data[0] & 2)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	else if (data[0] & 4)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	stk_input(lc, stk_iface_get(data[0] & 1), m);
	stk_lcore_flush(lc);
	drain(wire_tx);
	drain(kern_tx);
	for (uint16_t i = 0; i < stk_iface_count(); i++)
		drain(stk_iface_get(i)->exc_ring);
	if (rte_mempool_in_use_count(pool) != base_in_use) {
		fprintf(stderr, "mbuf leak: %u in use, %u at start\n",
			rte_mempool_in_use_count(pool), base_in_use);
		abort();
	}
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
