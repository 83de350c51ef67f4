/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_roce_rx.c - libFuzzer target for the transport's whole receive path: arbitrary RoCEv2
 * packets (BTH onwards) arrive at a connected RC QP pair and run through roce_rx(), the
 * responder and the completer, with the ICRC check switched off so that every byte reaches
 * them. The pair then exchanges whatever it answers. A QP that errors out is re-connected.
 * After each input every mbuf is back in the pool.
 *
 * Input: byte 0 selects the target (bit 0: QP B's responder, else QP A's completer) and
 * whether the BTH destination QP is forced to the real one (bit 1); the rest is the packet.
 * Keys are deterministic (first MR: rkey 0x15a, iova 0x100000), so seeds can be valid.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "roce_engine.h"
#include "roce_verbs.h"
#include "stk_stack.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM 65536

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static struct {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *mem;
} s[2];
static unsigned base_in_use;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_roce_rx: %s failed: %s\n", what, rte_strerror(rte_errno));
	abort();
}

static uint16_t ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
	struct rte_eth_conf conf = {0};
	int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)p, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)p) != 0)
		die("ring port");
	return (uint16_t)p;
}

static void connect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia = {
			.send_cq = s[k].cq, .recv_cq = s[k].cq, .qp_type = ROCE_QPT_RC};
		struct roce_qp_attr a;
		struct roce_sge sg = {
			.addr = (uintptr_t)s[k].mem, .length = 4096, .lkey = s[k].mr->lkey};
		struct roce_recv_wr r = {.sg_list = &sg, .num_sge = 1}, *bad;

		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		if (!s[k].qp)
			die("create_qp");
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				    ROCE_ACCESS_REMOTE_ATOMIC;
		roce_modify_qp(s[k].qp, &a,
			       ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
				       ROCE_QP_ACCESS_FLAGS);
		for (int i = 0; i < 4; i++)
			roce_post_recv(s[k].qp, &r, &bad);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = roce_qp_num(s[!k].qp);
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		stk_ipaddr_parse(k ? "10.66.0.1" : "10.66.0.2", &a.ah_attr.dgid_ip);
		roce_modify_qp(s[k].qp, &a,
			       ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				       ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				       ROCE_QP_MIN_RNR_TIMER);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 0;
		a.timeout = 1; /* 8 us: retries run out fast, keeping runs short */
		a.retry_cnt = 1;
		a.rnr_retry = 1;
		a.max_rd_atomic = 4;
		roce_modify_qp(s[k].qp, &a,
			       ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
				       ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				       ROCE_QP_MAX_QP_RD_ATOMIC);
	}
}

static void reset_pair(void)
{
	struct roce_wc wc[32];

	for (int k = 0; k < 2; k++) {
		roce_destroy_qp(s[k].qp);
		while (roce_poll_cq(s[k].cq, 32, wc) > 0)
			;
	}
	connect_pair();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char a0[] = "fuzz", a1[] = "--no-huge", a2[] = "-m", a3[] = "256", a4[] = "--no-pci",
		    a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l", a8[] = "0",
		    a9[] = "--log-level=*:critical";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
	struct stk_neigh_params np;
	struct rte_ring *r[2];
	uint16_t port[2];
	(void)argc;
	(void)argv;

	if (rte_eal_init(10, eal) < 0)
		die("rte_eal_init");
	pool = rte_pktmbuf_pool_create("fzrx", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	r[0] = rte_ring_create("fzrx0", 4096, 0, 0);
	r[1] = rte_ring_create("fzrx1", 4096, 0, 0);
	if (!pool || !r[0] || !r[1])
		die("pool/rings");
	port[0] = ring_port("fzrx_a", r[0], r[1]);
	port[1] = ring_port("fzrx_b", r[1], r[0]);
	stk_neigh_params_default(&np);
	lc = stk_lcore_create(rte_lcore_id(), 0, true, pool, &np);
	if (!lc)
		die("lcore");
	for (int k = 0; k < 2; k++) {
		struct stk_iface ifc;

		memset(&ifc, 0, sizeof(ifc));
		ifc.port_id = port[k];
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x66, (uint8_t)(1 + k)}};
		stk_ipaddr_parse(k ? "10.66.0.2" : "10.66.0.1", &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 1500;
		ifc.nb_rxq = ifc.nb_txq = 1;
		stk_iface_add(&ifc);
		lc->rxq[k].iface = (uint16_t)k;
		lc->rxq[k].port_id = port[k];
		s[k].dev = roce_dev_open((uint16_t)k);
		s[k].pd = s[k].dev ? roce_alloc_pd(s[k].dev) : NULL;
		s[k].cq = s[k].dev ? roce_create_cq(s[k].dev, 1024) : NULL;
		s[k].mem = calloc(1, MEM);
		s[k].mr = s[k].pd ? roce_reg_mr(s[k].pd, s[k].mem, MEM, 0x100000, ROCE_ACCESS_ALL)
				  : NULL;
		if (!s[k].mr || !s[k].cq)
			die("verbs objects");
		stk_lcore_add_poll(lc, roce_poll, s[k].dev);
	}
	lc->nb_rxq = 2;
	roce_icrc_enforce = false;
	connect_pair();
	/* resolve each other once, so answers are not parked in the neighbour table */
	for (int i = 0; i < 2; i++)
		stk_neigh_probe(lc, stk_iface_get((uint16_t)i),
				&(struct stk_ipaddr){.family = 4,
						     .v4 = i ? RTE_BE32(0x0a420001)
							     : RTE_BE32(0x0a420002)});
	for (int i = 0; i < 50; i++)
		stk_lcore_poll(lc);
	base_in_use = rte_mempool_in_use_count(pool);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int to_b, k;
	struct rte_mbuf *m;
	uint8_t *d;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;
	uint16_t plen;

	if (size < 2)
		return 0;
	to_b = data[0] & 1;
	k = to_b ? 1 : 0; /* receiving side */
	plen = (uint16_t)RTE_MIN(size - 1, 1400u);
	m = rte_pktmbuf_alloc(pool);
	if (!m)
		die("mbuf");
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(42 + plen));
	if (!d)
		die("append");
	memset(d, 0, 42);
	rte_ether_addr_copy(&stk_iface_get((uint16_t)k)->mac, (struct rte_ether_addr *)d);
	rte_ether_addr_copy(&stk_iface_get((uint16_t)!k)->mac, (struct rte_ether_addr *)(d + 6));
	d[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(d + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(28 + plen));
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	ip->src_addr = k ? RTE_BE32(0x0a420001) : RTE_BE32(0x0a420002);
	ip->dst_addr = k ? RTE_BE32(0x0a420002) : RTE_BE32(0x0a420001);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uh = (struct rte_udp_hdr *)(ip + 1);
	uh->src_port = RTE_BE16(49152);
	uh->dst_port = RTE_BE16(4791);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + plen));
	memcpy(d + 42, data + 1, plen);
	if ((data[0] & 2) && plen >= 12) {
		uint32_t q = roce_qp_num(s[k].qp);

		d[42 + 5] = (uint8_t)(q >> 16);
		d[42 + 6] = (uint8_t)(q >> 8);
		d[42 + 7] = (uint8_t)q;
	}
	stk_input(lc, stk_iface_get((uint16_t)k), m);
	for (int i = 0; i < 8; i++)
		stk_lcore_poll(lc);
	if (roce_qp_state(s[0].qp) != ROCE_QPS_RTS || roce_qp_state(s[1].qp) != ROCE_QPS_RTS)
		reset_pair();
	for (int i = 0; i < 4; i++)
		stk_lcore_poll(lc);
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
