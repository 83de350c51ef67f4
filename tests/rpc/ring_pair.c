/* SPDX-License-Identifier: BSD-3-Clause */
/* ring_pair.c - two droce devices back to back over crossed net_ring ports (ring_pair.h). */
#include <stdio.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ring_pair.h"
#include "stk_stack.h"

static int ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
		     struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	memset(&conf, 0, sizeof(conf));
	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)p, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)p) != 0)
		return -1;
	return p;
}

int ring_pair_up(struct ring_pair *rp, const char *tag, uint8_t net, uint16_t mtu)
{
	struct stk_neigh_params np;
	struct rte_ring *r[2];
	char name[64];

	memset(rp, 0, sizeof(*rp));
	snprintf(name, sizeof(name), "%s_pool", tag);
	rp->pool = rte_pktmbuf_pool_create(name, 32767, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s_r%d", tag, k);
		r[k] = rte_ring_create(name, 8192, 0, 0);
	}
	if (!rp->pool || !r[0] || !r[1]) {
		fprintf(stderr, "ring_pair: no pool or rings\n");
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;
		char ipbuf[32];
		int p;

		snprintf(name, sizeof(name), "%s_%c", tag, k ? 'b' : 'a');
		p = ring_port(name, r[k], r[1 - k], rp->pool);
		if (p < 0) {
			fprintf(stderr, "ring_pair: port %s\n", name);
			return -1;
		}
		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "%s%d", tag, k);
		ifc.port_id = (uint16_t)p;
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, net, (uint8_t)(1 + k)}};
		snprintf(ipbuf, sizeof(ipbuf), "10.%u.0.%d", net, k + 1);
		stk_ipaddr_parse(ipbuf, &ifc.ip4);
		rp->ip[k] = ifc.ip4;
		ifc.ip4_prefix = 24;
		ifc.mtu = mtu;
		ifc.nb_rxq = ifc.nb_txq = 1;
		if (stk_iface_add(&ifc) != k) {
			fprintf(stderr, "ring_pair: interface %d\n", k);
			return -1;
		}
	}
	stk_neigh_params_default(&np);
	rp->lc = stk_lcore_create(rte_lcore_id(), 0, true, rp->pool, &np);
	if (!rp->lc)
		return -1;
	for (int k = 0; k < 2; k++) {
		rp->lc->rxq[k].iface = (uint16_t)k;
		rp->lc->rxq[k].port_id = (uint16_t)k;
		rp->lc->rxq[k].queue = 0;
		rp->dev[k] = roce_dev_open((uint16_t)k);
		rp->cm[k] = rp->dev[k] ? roce_cm_open(rp->dev[k]) : NULL;
		rp->pd[k] = rp->dev[k] ? roce_alloc_pd(rp->dev[k]) : NULL;
		if (!rp->cm[k] || !rp->pd[k]) {
			fprintf(stderr, "ring_pair: device %d, its CM or PD\n", k);
			return -1;
		}
		stk_lcore_add_poll(rp->lc, roce_poll, rp->dev[k]);
	}
	rp->lc->nb_rxq = 2;
	return 0;
}

void ring_pair_poll(struct ring_pair *rp, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		stk_lcore_poll(rp->lc);
}

void ring_pair_down(struct ring_pair *rp)
{
	for (int k = 0; k < 2; k++) {
		if (rp->cm[k])
			roce_cm_close(rp->cm[k]);
		if (rp->pd[k])
			roce_dealloc_pd(rp->pd[k]);
	}
	for (int k = 0; k < 2; k++)
		if (rp->dev[k])
			roce_dev_close(rp->dev[k]);
	if (rp->lc) /* after the devices, as tests/roce/test_cm.c does; nothing polls now */
		stk_lcore_destroy(rp->lc);
}
