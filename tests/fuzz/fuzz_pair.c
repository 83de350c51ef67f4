/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pair.c - the two-device lab of the stateful fuzz targets (see fuzz_pair.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "fuzz_pair.h"
#include "stk_ctrl.h"
#include "stk_neigh.h"
#include "stk_pfc_port.h"
#include "stk_stack.h"

static void die(const char *what)
{
	fprintf(stderr, "fuzz_pair: %s failed: %s\n", what, rte_strerror(rte_errno));
	abort();
}

/* A port on the rings: @ntxq TX queues (one per lcore), all onto @tx. */
static uint16_t ring_port(struct fuzz_pair *fp, const char *name, struct rte_ring *rx,
			  struct rte_ring *tx, uint16_t ntxq)
{
	struct rte_eth_conf conf = {0};
	struct rte_ring *txs[2] = {tx, tx};
	int p = rte_eth_from_rings(name, &rx, 1, txs, ntxq, 0);

	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, ntxq, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, 0, NULL, fp->pool) != 0)
		die("ring port");
	for (uint16_t q = 0; q < ntxq; q++)
		if (rte_eth_tx_queue_setup((uint16_t)p, q, 1024, 0, NULL) != 0)
			die("ring port TX queue");
	if (rte_eth_dev_start((uint16_t)p) != 0)
		die("ring port start");
	return (uint16_t)p;
}

void fuzz_pair_init(struct fuzz_pair *fp, const char *tag, uint8_t net)
{
	fuzz_pair_init_opts(fp, tag, net, NULL);
}

void fuzz_pair_init_opts(struct fuzz_pair *fp, const char *tag, uint8_t net,
			 const struct fuzz_pair_opts *o)
{
	/* the second lcore, when asked for, shares CPU 0: it is polled by hand from this
	 * thread, EAL only has to know it so that control messages reach it */
	static char a0[] = "fuzz", a1[] = "--no-huge", a2[] = "-m", a3[] = "256", a4[] = "--no-pci",
		    a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l", a8[] = "0",
		    a9[] = "--log-level=*:critical", a7b[] = "--lcores", a8b[] = "0,1@0";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
	const struct fuzz_pair_opts none = {0};
	struct stk_neigh_params np;
	uint16_t port[2], ntxq;
	char name[32];

	if (!o)
		o = &none;
	ntxq = o->two_lcores ? 2 : 1;
	memset(fp, 0, sizeof(*fp));
	if (o->two_lcores) {
		eal[7] = a7b;
		eal[8] = a8b;
	}
	if (rte_eal_init(10, eal) < 0)
		die("rte_eal_init");
	snprintf(name, sizeof(name), "%s_pool", tag);
	fp->pool = rte_pktmbuf_pool_create(name, 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s_r%d", tag, k);
		fp->ring[k] = rte_ring_create(name, 4096, 0, 0);
	}
	if (!fp->pool || !fp->ring[0] || !fp->ring[1])
		die("pool/rings");
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s_p%d", tag, k);
		port[k] = ring_port(fp, name, fp->ring[k], fp->ring[!k], ntxq);
	}
	if (o->neigh)
		np = *o->neigh;
	else
		stk_neigh_params_default(&np);
	fp->lc = stk_lcore_create(rte_lcore_id(), 0, true, fp->pool, &np);
	if (!fp->lc)
		die("lcore");
	if (o->two_lcores) {
		fp->lc2 = stk_lcore_create(rte_get_next_lcore(rte_lcore_id(), 1, 0), 1, false,
					   fp->pool, &np);
		if (!fp->lc2 || stk_ctrl_init(1024) != 0)
			die("second lcore");
	}
	fp->third =
		(struct stk_ipaddr){.family = 4, .v4 = rte_cpu_to_be_32(10u << 24 | net << 16 | 3)};
	fp->third_mac = (struct rte_ether_addr){{0x02, 0, 0, 0, net, 3}};
	if (o->ipv6) {
		static const uint8_t ula[16] = {0xfd, 0x00, 0, 0, 0, 0, 0, 0,
						0,    0,    0, 0, 0, 0, 0, 3};

		fp->third6 = (struct stk_ipaddr){.family = 6};
		memcpy(fp->third6.v6, ula, 16);
		fp->third6.v6[3] = net;
	}
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "%s%d", tag, k);
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, net, (uint8_t)(1 + k)}};
		ifc.ip4 = (struct stk_ipaddr){
			.family = 4,
			.v4 = rte_cpu_to_be_32(10u << 24 | net << 16 | (uint32_t)(1 + k))};
		ifc.ip4_prefix = 24;
		if (o->ipv6) {
			ifc.ip6 = fp->third6;
			ifc.ip6.v6[15] = (uint8_t)(1 + k);
			ifc.ip6_prefix = 64;
			stk_ipv6_link_local(&ifc.mac, &ifc.ip6_ll);
		}
		if (o->pfc) {
			ifc.pfc_mode = STK_PFC_MODE_SW; /* pfc_prios 0: the RoCE priority, 3 */
			ifc.pfc_xoff = o->pfc_xoff;
			ifc.pfc_xon = o->pfc_xon;
			ifc.pfc_wd_ms = o->pfc_wd_ms;
			ifc.link_bps = o->link_bps;
		}
		ifc.mtu = 1500;
		ifc.nb_rxq = 1;
		ifc.nb_txq = ntxq;
		if (stk_iface_add(&ifc) != k)
			die("iface");
		fp->ip[k] = ifc.ip4;
		fp->ip6[k] = ifc.ip6;
		fp->mac[k] = ifc.mac;
		fp->lc->rxq[k].iface = (uint16_t)k;
		fp->lc->rxq[k].port_id = port[k];
		fp->lc->rxq[k].queue = 0;
		fp->dev[k] = roce_dev_open((uint16_t)k);
		if (!fp->dev[k])
			die("roce_dev_open");
		/* the lcore that polls a device first owns it (roce_poll()) */
		stk_lcore_add_poll(k && fp->lc2 ? fp->lc2 : fp->lc, roce_poll, fp->dev[k]);
	}
	fp->lc->nb_rxq = 2;
	/* PFC state for the interfaces added since the lcores were made */
	if (stk_pfc_attach(fp->lc) != 0 || (fp->lc2 && stk_pfc_attach(fp->lc2) != 0))
		die("PFC state");
	fuzz_pair_pin_neigh(fp);
	fuzz_pair_settle(fp);
	fuzz_pair_mark(fp);
}

static void pin(struct stk_neigh_table *t, uint16_t iface, const struct stk_ipaddr *ip,
		const struct rte_ether_addr *mac, uint64_t now)
{
	if (ip->family)
		stk_neigh_update(t, iface, ip, mac, now, true, NULL, NULL);
}

void fuzz_pair_pin_neigh(struct fuzz_pair *fp)
{
	uint64_t now = rte_get_tsc_cycles();

	for (int l = 0; l < (fp->lc2 ? 2 : 1); l++) {
		struct stk_neigh_table *t = (l ? fp->lc2 : fp->lc)->neigh;

		for (uint16_t k = 0; k < 2; k++) {
			pin(t, k, &fp->ip[!k], &fp->mac[!k], now);
			pin(t, k, &fp->third, &fp->third_mac, now);
			pin(t, k, &fp->ip6[!k], &fp->mac[!k], now);
			pin(t, k, &fp->third6, &fp->third_mac, now);
		}
	}
}

void fuzz_pair_poll(struct fuzz_pair *fp, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		stk_lcore_poll(fp->lc);
		if (fp->lc2)
			stk_lcore_poll(fp->lc2);
	}
}

void fuzz_pair_flush(struct fuzz_pair *fp)
{
	stk_lcore_flush(fp->lc);
	if (fp->lc2)
		stk_lcore_flush(fp->lc2);
}

void fuzz_pair_wire(struct fuzz_pair *fp, int k, uint8_t how)
{
	struct rte_mbuf *m[64], *keep[65];
	unsigned n, out = 0;

	fuzz_pair_flush(fp);
	n = rte_ring_dequeue_burst(fp->ring[k], (void **)m, RTE_DIM(m), NULL);
	if (!n)
		return;
	switch (how % 5) {
	case 0: /* lose the first */
		rte_pktmbuf_free(m[0]);
		for (unsigned i = 1; i < n; i++)
			keep[out++] = m[i];
		break;
	case 1: /* the first twice */
		keep[out++] = m[0];
		keep[out] = rte_pktmbuf_copy(m[0], fp->pool, 0, UINT32_MAX);
		if (keep[out])
			out++;
		for (unsigned i = 1; i < n; i++)
			keep[out++] = m[i];
		break;
	case 2: /* the first overtaken by the rest */
		for (unsigned i = 1; i < n; i++)
			keep[out++] = m[i];
		keep[out++] = m[0];
		break;
	case 3: /* all lost */
		rte_pktmbuf_free_bulk(m, n);
		break;
	default: /* all reordered */
		for (unsigned i = 0; i < n; i++)
			keep[out++] = m[n - 1 - i];
		break;
	}
	for (unsigned i = 0; i < out; i++)
		if (rte_ring_enqueue(fp->ring[k], keep[i]) != 0)
			rte_pktmbuf_free(keep[i]);
}

void fuzz_pair_settle(struct fuzz_pair *fp)
{
	unsigned last = 0, still = 0;

	for (unsigned i = 0; i < 2000 && still < 8; i++) {
		unsigned now;

		fuzz_pair_flush(fp);
		fuzz_pair_poll(fp, 1);
		now = rte_mempool_in_use_count(fp->pool);
		if (now == last && !rte_ring_count(fp->ring[0]) && !rte_ring_count(fp->ring[1]))
			still++;
		else
			still = 0;
		last = now;
	}
}

static unsigned heap_allocs(void)
{
	struct rte_malloc_socket_stats st;
	unsigned n = 0;

	for (int sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &st) == 0)
			n += st.alloc_count;
	return n;
}

void fuzz_pair_mark(struct fuzz_pair *fp)
{
	fp->base_in_use = rte_mempool_in_use_count(fp->pool);
	fp->base_allocs = heap_allocs();
}

void fuzz_pair_check_leaks(struct fuzz_pair *fp, const char *who)
{
	unsigned n = rte_mempool_in_use_count(fp->pool), a = heap_allocs();

	if (n != fp->base_in_use) {
		fprintf(stderr, "%s: mbuf leak: %u in use, %u at start\n", who, n, fp->base_in_use);
		abort();
	}
	if (a != fp->base_allocs) {
		fprintf(stderr, "%s: rte_malloc leak: %u elements, %u at start\n", who, a,
			fp->base_allocs);
		abort();
	}
}
