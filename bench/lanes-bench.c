/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanes-bench - one device on two lcores against two devices, one per lcore (issue 12 item 7).
 *
 * Two lcores each run one RC QP pair (its requester on side A, its responder on side B),
 * moving RDMA WRITEs with a deep queue for a fixed time, in three placements:
 *   split    the baseline: four net_ring ports, a device on each; lcore l polls ports A_l and
 *            B_l, whose devices have one lane each - two independent transports;
 *   shared   two net_ring ports with two queue pairs each (queue i reaches queue i), one device
 *            on each port running on both lcores (roce_dev_set_lcores()); pair l's QPs live
 *            on lane l of both devices, so each frame arrives on the lane that runs its QP;
 *   crossed  as shared, but B's QP of pair l lives on lane 1 - l: every frame arrives on the
 *            other lane and is handed over through its ring (the cost of not steering).
 * It prints per-lcore and aggregate message rates (64 B) and goodput (64 KiB), the ratio of
 * shared and crossed to split (target: shared >= 0.9 of split, like for like: two lcores
 * against two lcores), and JSON. Every destination slot is compared after each cell: a cell
 * that moved wrong data prints FAIL. It asserts nothing about speed.
 *
 * --one-region: both pairs send from and write into one region per side (one per pair's buffer
 * half by default), to show what a region shared by lanes costs.
 *
 * Usage: lanes-bench [EAL args, two lcores] -- [--seconds S] [--depth N] [--json FILE]
 *        [--one-region]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_int.h" /* lane counters, for LANES_BENCH_DEBUG */
#include "roce_verbs.h"
#include "stk_stack.h"

#define MAX_DEPTH 256u
#define SLOT (64u << 10)
#define BUF_LEN (2u * SLOT)

enum place { SPLIT, SHARED, CROSSED, NPLACE };
static const char *const place_name[NPLACE] = {"split", "shared", "crossed"};

struct side {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_mr *whole; /* --one-region: one region over both halves, for both pairs */
	struct roce_mr *mr[2]; /* one region per pair's half: a region's zero-copy reference
				* count is written per frame, so a shared one bounces between cores */
	uint8_t *buf;
	struct roce_cq *cq[2];
};

/* one lcore's pair */
struct pair {
	struct roce_qp *qa, *qb;
	struct roce_cq *cqa, *cqb;
	struct side *a, *b;
	uint32_t size;
	uint32_t base; /* its half of the buffers: the pairs never touch each other's lines */
	uint64_t done; /* completions in the window */
	uint64_t left; /* completions still missing when the cell gave up */
	uint64_t posted;
	bool ok;
};

static struct {
	double seconds;
	unsigned depth;
	const char *json;
	bool one_region;
	struct rte_mempool *pool;
	unsigned lcore[2];
	uint16_t port[6]; /* 0,1: shared A, B (two queues); 2..5: split A0, B0, A1, B1 */
	struct stk_lcore *lc[2];
	struct side sh[2];    /* shared devices */
	struct side sp[2][2]; /* split devices: [pair][A/B] */
	struct pair pr[2];
	volatile int go, stop;
	unsigned finished; /* lanes whose pair is done (each keeps polling for the other) */
	uint64_t t0, t1;
} g = {.seconds = 2.0, .depth = 128};

/* Crossed net_ring pair: A's TX queue q is B's RX queue q. */
static void ring_pair(const char *na, const char *nb, unsigned nq, uint16_t *pa, uint16_t *pb)
{
	struct rte_ring *ab[2], *ba[2];
	struct rte_eth_conf conf;
	int a, b;

	for (unsigned q = 0; q < nq; q++) {
		char n[32];

		snprintf(n, sizeof(n), "%s%u", na, q);
		ab[q] = rte_ring_create(n, 16384, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(n, sizeof(n), "%s%u", nb, q);
		ba[q] = rte_ring_create(n, 16384, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!ab[q] || !ba[q])
			abort();
	}
	a = rte_eth_from_rings(na, ba, nq, ab, nq, 0);
	b = rte_eth_from_rings(nb, ab, nq, ba, nq, 0);
	memset(&conf, 0, sizeof(conf));
	if (a < 0 || b < 0)
		abort();
	for (int k = 0; k < 2; k++) {
		uint16_t p = (uint16_t)(k ? b : a);

		if (rte_eth_dev_configure(p, (uint16_t)nq, (uint16_t)nq, &conf) != 0)
			abort();
		for (uint16_t q = 0; q < nq; q++)
			if (rte_eth_rx_queue_setup(p, q, 1024, 0, NULL, g.pool) != 0 ||
			    rte_eth_tx_queue_setup(p, q, 1024, 0, NULL) != 0)
				abort();
		if (rte_eth_dev_start(p) != 0)
			abort();
	}
	*pa = (uint16_t)a;
	*pb = (uint16_t)b;
}

static void add_iface(int idx, uint16_t port, const char *ip, unsigned nq)
{
	struct stk_iface ifc;

	memset(&ifc, 0, sizeof(ifc));
	snprintf(ifc.name, sizeof(ifc.name), "lb%d", idx);
	ifc.port_id = port;
	ifc.exc_port_id = STK_NO_PORT;
	ifc.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x79, (uint8_t)(1 + idx)}};
	stk_ipaddr_parse(ip, &ifc.ip4);
	ifc.ip4_prefix = 24;
	ifc.mtu = 9000;
	ifc.nb_rxq = ifc.nb_txq = (uint16_t)nq;
	if (stk_iface_add(&ifc) != idx) {
		fprintf(stderr, "lanes-bench: stk_iface_add %d failed\n", idx);
		exit(1);
	}
}

static void side_open(struct side *s, uint16_t iface, bool lanes)
{
	s->dev = roce_dev_open(iface);
	if (!s->dev || (lanes && roce_dev_set_lcores(s->dev, g.lcore, 2) != 0))
		goto fail;
	s->pd = roce_alloc_pd(s->dev);
	s->buf = rte_zmalloc("lb_buf", BUF_LEN, 4096);
	if (!s->pd || !s->buf)
		goto fail;
	for (int h = 0; h < 2; h++)
		s->mr[h] =
			roce_reg_mr(s->pd, s->buf + h * SLOT, SLOT, (uintptr_t)(s->buf + h * SLOT),
				    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	for (int l = 0; l < 2; l++)
		s->cq[l] = roce_create_cq(s->dev, 4 * MAX_DEPTH);
	s->whole = roce_reg_mr(s->pd, s->buf, BUF_LEN, (uintptr_t)s->buf,
			       ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	if (!s->mr[0] || !s->mr[1] || !s->whole || !s->cq[0] || !s->cq[1])
		goto fail;
	return;
fail:
	fprintf(stderr, "lanes-bench: device on interface %u: %s\n", iface,
		rte_strerror(rte_errno));
	exit(1);
}

static struct roce_qp *qp_make(struct side *s, int lane, bool placed)
{
	struct roce_qp_init_attr ia;
	struct roce_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = MAX_DEPTH;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.send_cq = ia.recv_cq = s->cq[lane];
	ia.on_lcore = placed;
	ia.lcore = g.lcore[lane];
	qp = roce_create_qp(s->pd, &ia);
	if (!qp) {
		fprintf(stderr, "lanes-bench: create QP: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	return qp;
}

static void qp_connect(struct roce_qp *q[2], const char *ipa, const char *ipb)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE;
		if (roce_modify_qp(q[k], &a,
				   ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					   ROCE_QP_ACCESS_FLAGS) != 0)
			goto fail;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_4096;
		a.dest_qp_num = roce_qp_num(q[!k]);
		a.rq_psn = 100;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		stk_ipaddr_parse(k ? ipa : ipb, &a.ah_attr.dgid_ip);
		if (roce_modify_qp(q[k], &a,
				   ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					   ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER) != 0)
			goto fail;
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = 100;
		a.timeout =
			18; /* 1.07 s: busy-polling lcores on an oversubscribed machine (CI runs tests side by side) are descheduled for tens of ms */
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		if (roce_modify_qp(q[k], &a,
				   ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					   ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					   ROCE_QP_MAX_QP_RD_ATOMIC) != 0)
			goto fail;
	}
	return;
fail:
	fprintf(stderr, "lanes-bench: QP bring-up failed\n");
	exit(1);
}

static int post_one(struct pair *p, uint64_t i)
{
	uint32_t off = p->size < SLOT ? (uint32_t)(i % (SLOT / p->size)) * p->size : 0;
	struct roce_sge sge = {
		.addr = (uintptr_t)p->a->buf + p->base + off,
		.length = p->size,
		.lkey = (g.one_region ? p->a->whole : p->a->mr[p->base / SLOT])->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = i;
	w.sg_list = &sge;
	w.num_sge = 1;
	w.opcode = ROCE_WR_RDMA_WRITE;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = (uintptr_t)p->b->buf + p->base + off;
	w.wr.rdma.rkey = (g.one_region ? p->b->whole : p->b->mr[p->base / SLOT])->rkey;
	return roce_post_send(p->qa, &w, &bad);
}

/* Lane @l's loop: keep depth WRITEs in flight, count completions inside the window; lane 0
 * (the main lcore) ends it. */
static int run_lane(void *arg)
{
	int l = (int)(uintptr_t)arg;
	struct pair *p = &g.pr[l];
	struct stk_lcore *lc = g.lc[l];
	uint64_t inflight = 0;
	struct roce_wc wc[64];

	while (!g.go)
		;
	while (!g.stop || inflight) {
		int n;

		if (l == 0 && !g.stop && rte_get_tsc_cycles() >= g.t1)
			g.stop = 1;

		while (!g.stop && inflight < g.depth) {
			if (post_one(p, p->posted) != 0)
				break;
			p->posted++;
			inflight++;
		}
		stk_lcore_poll(lc);
		n = roce_poll_cq(p->cqa, (int)RTE_DIM(wc), wc);
		for (int i = 0; i < n; i++) {
			uint64_t now;

			inflight--;
			if (wc[i].status != ROCE_WC_SUCCESS) {
				if (p->ok && getenv("LANES_BENCH_DEBUG"))
					fprintf(stderr, "lane %d: %s\n", l,
						roce_wc_status_str(wc[i].status));
				p->ok = false;
			}
			now = rte_get_tsc_cycles();
			if (now >= g.t0 && now < g.t1)
				p->done++;
		}
		if (g.stop && rte_get_tsc_cycles() > g.t1 + 5 * rte_get_tsc_hz())
			break; /* a lost completion: reported as FAIL */
	}
	p->left = inflight;
	if (inflight)
		p->ok = false;
	/* this lane also runs the other pair's peer QP or hands its frames over (shared,
	 * crossed): keep polling until both lanes are done, then let the last frames settle */
	__atomic_fetch_add(&g.finished, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&g.finished, __ATOMIC_ACQUIRE) < 2 &&
	       rte_get_tsc_cycles() < g.t1 + 6 * rte_get_tsc_hz())
		stk_lcore_poll(lc);
	for (int i = 0; i < 2000; i++)
		stk_lcore_poll(lc);
	return 0;
}

struct cell {
	double mps[2], gbps[2];
	bool ok;
	const char *why; /* a FAIL's reason */
};

static void stop_lcore_ctx(void)
{
	for (int l = 0; l < 2; l++) {
		stk_lcore_destroy(g.lc[l]);
		g.lc[l] = NULL;
	}
}

static void make_lcore_ctx(enum place pl)
{
	struct stk_neigh_params np;

	stk_neigh_params_default(&np);
	for (int l = 0; l < 2; l++) {
		/* the TX queue index: split ports have one queue each, and the lcores none in
		 * common */
		struct stk_lcore *lc = stk_lcore_create(g.lcore[l], pl == SPLIT ? 0 : (unsigned)l,
							l == 0, g.pool, &np);

		if (!lc)
			abort();
		if (pl == SPLIT) {
			/* lcore l: ports A_l (iface 2 + 2l) and B_l (iface 3 + 2l), queue 0 */
			for (int k = 0; k < 2; k++) {
				lc->rxq[k].iface = (uint16_t)(2 + 2 * l + k);
				lc->rxq[k].port_id = g.port[2 + 2 * l + k];
				lc->rxq[k].queue = 0;
				stk_lcore_add_poll(lc, roce_poll, g.sp[l][k].dev);
			}
		} else {
			for (int k = 0; k < 2; k++) {
				lc->rxq[k].iface = (uint16_t)k;
				lc->rxq[k].port_id = g.port[k];
				lc->rxq[k].queue = (uint16_t)l;
				stk_lcore_add_poll(lc, roce_poll, g.sh[k].dev);
			}
		}
		lc->nb_rxq = 2;
		g.lc[l] = lc;
	}
}

static void run_cell(enum place pl, uint32_t size, struct cell *c)
{
	uint64_t hz = rte_get_tsc_hz();

	make_lcore_ctx(pl);
	for (int l = 0; l < 2; l++) {
		struct pair *p = &g.pr[l];
		struct roce_qp *q[2];

		memset(p, 0, sizeof(*p));
		p->ok = true;
		p->size = size;
		if (pl == SPLIT) {
			static const char *const ip[2][2] = {{"10.81.0.1", "10.81.0.2"},
							     {"10.82.0.1", "10.82.0.2"}};

			p->a = &g.sp[l][0];
			p->b = &g.sp[l][1];
			p->qa = q[0] = qp_make(p->a, 0, false);
			p->qb = q[1] = qp_make(p->b, 0, false);
			p->cqa = p->a->cq[0];
			qp_connect(q, ip[l][0], ip[l][1]);
		} else {
			int lb = pl == SHARED ? l : 1 - l;

			p->a = &g.sh[0];
			p->b = &g.sh[1];
			p->qa = q[0] = qp_make(p->a, l, true);
			p->qb = q[1] = qp_make(p->b, lb, true);
			p->cqa = p->a->cq[l];
			qp_connect(q, "10.80.0.1", "10.80.0.2");
		}
		p->base = (uint32_t)l * SLOT;
		memset(p->b->buf + p->base, 0, SLOT);
		for (uint32_t i = 0; i < SLOT; i++)
			p->a->buf[p->base + i] = (uint8_t)(i * 7 + (uint32_t)l * 13 + 1);
	}
	g.go = g.stop = 0;
	g.finished = 0;
	g.t0 = rte_get_tsc_cycles() + hz / 5; /* a warm-up, then the window */
	g.t1 = g.t0 + (uint64_t)(g.seconds * (double)hz);
	if (rte_eal_remote_launch(run_lane, (void *)(uintptr_t)1, g.lcore[1]) != 0)
		abort();
	g.go = 1;
	run_lane((void *)(uintptr_t)0);
	rte_eal_wait_lcore(g.lcore[1]);
	if (getenv("LANES_BENCH_DEBUG")) /* what each lane did */
		for (int l = 0; l < 2; l++)
			fprintf(stderr, "lane %d: posted %lu done %lu ok %d state %d/%d\n", l,
				(unsigned long)g.pr[l].posted, (unsigned long)g.pr[l].done,
				g.pr[l].ok, roce_qp_state(g.pr[l].qa), roce_qp_state(g.pr[l].qb));
	if (getenv("LANES_BENCH_DEBUG"))
		for (int k = 0; k < 2; k++) {
			struct roce_dev_counts n;
			struct roce_qp_stats qs;

			roce_dev_counts(g.pr[0].a->dev, &n);
			roce_qp_query_stats(k ? g.pr[1].qa : g.pr[0].qa, &qs);
			fprintf(stderr,
				"dev A handoff %lu full %lu/%lu; qp A%d retransmits %lu timeouts %lu "
				"nak_seq_rx %lu\n",
				(unsigned long)n.rx_handoff,
				(unsigned long)g.pr[0]
					.a->dev->lane[0]
					.drops[ROCE_RX_DROP_HANDOFF_FULL],
				(unsigned long)g.pr[0]
					.a->dev->lane[1]
					.drops[ROCE_RX_DROP_HANDOFF_FULL],
				k, (unsigned long)qs.retransmits, (unsigned long)qs.timeouts,
				(unsigned long)qs.nak_seq_rx);
		}
	c->ok = true;
	c->why = NULL;
	for (int l = 0; l < 2; l++) {
		struct pair *p = &g.pr[l];
		uint32_t span = size < SLOT ? SLOT : size;

		c->mps[l] = (double)p->done / g.seconds / 1e6;
		c->gbps[l] = (double)p->done * size * 8 / g.seconds / 1e9;
		/* every WRITE went to the same offsets in B's buffer as in A's */
		if (!p->ok)
			c->why = p->left ? "completions missing after 5 s" : "a WR failed";
		else if (p->done == 0)
			c->why = "no completion in the window";
		else if (memcmp(p->a->buf + p->base, p->b->buf + p->base, span) != 0)
			c->why = "data differ";
		if (!p->ok || p->done == 0 ||
		    memcmp(p->a->buf + p->base, p->b->buf + p->base, span) != 0)
			c->ok = false;
	}
	for (int l = 0; l < 2; l++) {
		/* the lanes' lcores have returned: tear down from here */
		while (roce_destroy_qp(g.pr[l].qa) == -EBUSY)
			;
		while (roce_destroy_qp(g.pr[l].qb) == -EBUSY)
			;
	}
	stop_lcore_ctx();
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[2] = {64, 65536};
	struct cell cells[2][NPLACE];
	FILE *js = NULL;
	int n = rte_eal_init(argc, argv), opt;
	static const struct option lo[] = {{"seconds", 1, NULL, 's'},
					   {"depth", 1, NULL, 'd'},
					   {"json", 1, NULL, 'j'},
					   {"one-region", 0, NULL, 'o'},
					   {NULL, 0, NULL, 0}};

	if (n < 0) {
		fprintf(stderr, "lanes-bench: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			g.seconds = atof(optarg);
			break;
		case 'd':
			g.depth = (unsigned)atoi(optarg);
			break;
		case 'j':
			g.json = optarg;
			break;
		case 'o':
			g.one_region = true;
			break;
		default:
			fprintf(stderr, "usage: lanes-bench [EAL] -- [--seconds S] [--depth N] "
					"[--json FILE] [--one-region]\n");
			return 2;
		}
	}
	if (g.seconds <= 0 || g.depth == 0 || g.depth > MAX_DEPTH) {
		fprintf(stderr, "lanes-bench: --seconds > 0 and 1 <= --depth <= %u\n", MAX_DEPTH);
		return 2;
	}
	g.lcore[0] = rte_lcore_id();
	g.lcore[1] = rte_get_next_lcore(g.lcore[0], 1, 0);
	if (g.lcore[1] >= RTE_MAX_LCORE) {
		fprintf(stderr, "lanes-bench: needs two lcores (-l 0,1)\n");
		return 2;
	}
	g.pool = rte_pktmbuf_pool_create("lb_pool", 32767, 256, 0, 10240, 0);
	if (!g.pool) {
		fprintf(stderr, "lanes-bench: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ring_pair("lb_a", "lb_b", 2, &g.port[0], &g.port[1]);
	ring_pair("lb_a0", "lb_b0", 1, &g.port[2], &g.port[3]);
	ring_pair("lb_a1", "lb_b1", 1, &g.port[4], &g.port[5]);
	add_iface(0, g.port[0], "10.80.0.1", 2);
	add_iface(1, g.port[1], "10.80.0.2", 2);
	add_iface(2, g.port[2], "10.81.0.1", 1);
	add_iface(3, g.port[3], "10.81.0.2", 1);
	add_iface(4, g.port[4], "10.82.0.1", 1);
	add_iface(5, g.port[5], "10.82.0.2", 1);
	for (int k = 0; k < 2; k++)
		side_open(&g.sh[k], (uint16_t)k, true);
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < 2; k++)
			side_open(&g.sp[l][k], (uint16_t)(2 + 2 * l + k), false);
	printf("lanes-bench: RDMA WRITE, depth %u, %.1f s per cell, lcores %u and %u, %s\n",
	       g.depth, g.seconds, g.lcore[0], g.lcore[1],
	       g.one_region ? "one region per side" : "a region per pair and side");
	printf("%-8s %-8s %12s %12s %12s %8s\n", "size", "place", "lcore0", "lcore1", "total",
	       "vs split");
	for (int z = 0; z < 2; z++) {
		for (int pl = 0; pl < NPLACE; pl++) {
			struct cell *c = &cells[z][pl];
			double tot, base;
			bool rate = sizes[z] <= 64;

			run_cell((enum place)pl, sizes[z], c);
			tot = rate ? c->mps[0] + c->mps[1] : c->gbps[0] + c->gbps[1];
			base = rate ? cells[z][0].mps[0] + cells[z][0].mps[1]
				    : cells[z][0].gbps[0] + cells[z][0].gbps[1];
			if (!c->ok) {
				printf("%-8u %-8s %12s (%s)\n", sizes[z], place_name[pl], "FAIL",
				       c->why ? c->why : "?");
				continue;
			}
			printf("%-8u %-8s %9.3f %s %9.3f %s %9.3f %s %8.2f\n", sizes[z],
			       place_name[pl], rate ? c->mps[0] : c->gbps[0], rate ? "M/s" : "Gb",
			       rate ? c->mps[1] : c->gbps[1], rate ? "M/s" : "Gb", tot,
			       rate ? "M/s" : "Gb", base > 0 ? tot / base : 0);
		}
	}
	{
		double sh = cells[0][SHARED].mps[0] + cells[0][SHARED].mps[1];
		double sp = cells[0][SPLIT].mps[0] + cells[0][SPLIT].mps[1];
		double r = sp > 0 ? sh / sp : 0;

		printf("target: 64 B WRITE rate, one device on two lcores >= 0.9 x two devices on "
		       "two lcores (same lcores): %.2f -> %s\n",
		       r, r >= 0.9 ? "met" : "not met");
	}
	if (g.json && (js = fopen(g.json, "w")) != NULL) {
		fprintf(js, "{\"bench\": \"lanes\", \"depth\": %u, \"seconds\": %.2f, \"cells\": [",
			g.depth, g.seconds);
		for (int z = 0; z < 2; z++)
			for (int pl = 0; pl < NPLACE; pl++) {
				struct cell *c = &cells[z][pl];

				fprintf(js,
					"%s{\"size\": %u, \"place\": \"%s\", \"ok\": %s, "
					"\"mps\": [%.4f, %.4f], \"gbps\": [%.4f, %.4f]}",
					z || pl ? ", " : "", sizes[z], place_name[pl],
					c->ok ? "true" : "false", c->mps[0], c->mps[1], c->gbps[0],
					c->gbps[1]);
			}
		fprintf(js, "]}\n");
		fclose(js);
	}
	for (int z = 0; z < 2; z++)
		for (int pl = 0; pl < NPLACE; pl++)
			if (!cells[z][pl].ok)
				return 1;
	return 0;
}
