/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_lab.c - the congestion lab (cc_lab.h): endpoints on net_ring ports around a cc_switch,
 * RC flows driven from one lcore, data checked message by message.
 *
 * Checking: each flow has a golden pattern per slot; message m goes from slot m % depth with
 * its number stamped in its first and last 8 bytes, so a stale, short or corrupted copy cannot
 * pass. WRITE is checked at the target when the sender's completion arrives (the responder
 * placed it before acknowledging; the slot is reused only after the check); SEND is checked
 * in the receive buffer when the receive completes (RC delivers in order, so receive r holds
 * message r).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "cc_lab.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define NPORTS (CCL_MAX_SENDERS + 1)
#define MAX_DEPTH 64u
#define RING_SLOTS 8192u
#define POOL_MBUFS 65535u
#define LAT_CAP (1u << 18)
#define DRAIN_S 5
#define LOSSLESS_PRIO 3
#define LINK_BPS 10000000000ull /* the endpoints' nominal link: PFC quanta are timed at it */

struct flow {
	struct roce_qp *sq, *rq; /**< sender's and receiver's QP */
	struct roce_cq *rcq;	 /**< the receiver QP's CQ */
	struct roce_mr *smr;
	uint8_t *src, *dst, *gold;
	uint32_t stride;
	uint64_t next_msg, recvd, outstanding;
	uint64_t tx0;  /**< the sender interface's tx_pkts at the start of the run */
	uint64_t pfc0; /**< and its pfc_rx (the lab's endpoints outlive a run) */
	uint64_t slot_msg[MAX_DEPTH];
	uint64_t post_tsc[MAX_DEPTH];
	float *lat;
	uint32_t nlat;
	struct ccl_flow_res r;
};

struct ep {
	uint16_t port, iface;
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq; /**< senders: their QP's CQ */
};

struct ccl {
	unsigned nep;
	struct rte_mempool *pool;
	struct rte_ring *in[NPORTS], *out[NPORTS];
	struct ep ep[NPORTS];
	struct stk_lcore *lc;
	struct ccs *sw;
	struct flow fl[CCL_MAX_SENDERS];
	struct roce_mr *rmr;
	uint8_t *rbuf;
	const struct ccl_scenario *s;
	bool posting;
	uint64_t win0, win1; /**< measured window (TSC) */
	uint64_t hz;
};

void ccl_scenario_default(struct ccl_scenario *s)
{
	struct ccs_conf c;

	memset(s, 0, sizeof(*s));
	s->name = "default";
	s->op = CCL_WRITE;
	s->nsenders = 2;
	s->msg_size = 64u << 10;
	s->depth = 16;
	s->mtu = 1024;
	s->line_gbps = 10;
	s->qp_timeout = 12;
	s->warmup = 0.2;
	s->secs = 0.5;
	ccs_conf_default(&c);
	s->bottle = c.eg[0];
	s->bottle.rate_bps = 2000000000ull;
	s->sample_us = 100;
	s->seed = 1;
}

static uint16_t ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
			  struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, (unsigned)rte_socket_id());

	memset(&conf, 0, sizeof(conf));
	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)p, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)p) != 0)
		return STK_NO_PORT;
	return (uint16_t)p;
}

static struct rte_ether_addr ep_mac(unsigned k)
{
	return (struct rte_ether_addr){{0x02, 0, 0, 0, 0x79, (uint8_t)(1 + k)}};
}

static void ep_ip(unsigned k, struct stk_ipaddr *ip)
{
	char s[32];

	snprintf(s, sizeof(s), "10.79.0.%u", k + 1);
	stk_ipaddr_parse(s, ip);
}

struct ccl *ccl_create(unsigned max_senders)
{
	struct stk_neigh_params np;
	struct ccl *l;
	int err = ENOMEM;

	if (max_senders == 0 || max_senders > CCL_MAX_SENDERS) {
		rte_errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		goto fail;
	l->nep = max_senders + 1;
	l->hz = rte_get_tsc_hz();
	l->pool = rte_pktmbuf_pool_create("ccl_pool", POOL_MBUFS, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  (int)rte_socket_id());
	if (!l->pool)
		goto fail;
	for (unsigned k = 0; k < l->nep; k++) {
		char n[32];
		struct stk_iface ifc;
		int idx;

		snprintf(n, sizeof(n), "ccl_in%u", k);
		l->in[k] = rte_ring_create(n, RING_SLOTS, (int)rte_socket_id(),
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(n, sizeof(n), "ccl_out%u", k);
		l->out[k] = rte_ring_create(n, RING_SLOTS, (int)rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!l->in[k] || !l->out[k])
			goto fail;
		snprintf(n, sizeof(n), "ccl_ep%u", k);
		/* the endpoint receives what the switch puts out, transmits into the switch */
		l->ep[k].port = ring_port(n, l->out[k], l->in[k], l->pool);
		if (l->ep[k].port == STK_NO_PORT) {
			err = ENODEV;
			goto fail;
		}
		memset(&ifc, 0, sizeof(ifc));
		snprintf(ifc.name, sizeof(ifc.name), "ccl%u", k);
		ifc.port_id = l->ep[k].port;
		ifc.exc_port_id = STK_NO_PORT;
		ifc.mac = ep_mac(k);
		ep_ip(k, &ifc.ip4);
		ifc.ip4_prefix = 24;
		ifc.mtu = 9000;
		ifc.nb_rxq = ifc.nb_txq = 1;
		/* the stack's software PFC: hold paused TX frames of the lossless priority and
		 * honour the switch's PFC frames; quanta are timed at the nominal link speed the
		 * switch also uses */
		ifc.pfc_mode = STK_PFC_MODE_SW;
		ifc.pfc_prios = 1u << LOSSLESS_PRIO;
		ifc.link_bps = LINK_BPS;
		ifc.pfc_quanta = 0xffff;
		ifc.pfc_xoff = 0; /* 0: the endpoint never asks the switch to pause */
		ifc.pfc_xon = 0;
		idx = stk_iface_add(&ifc);
		if (idx < 0) {
			err = -idx;
			goto fail;
		}
		l->ep[k].iface = (uint16_t)idx;
		l->ep[k].dev = roce_dev_open(l->ep[k].iface);
		l->ep[k].pd = l->ep[k].dev ? roce_alloc_pd(l->ep[k].dev) : NULL;
		l->ep[k].cq = l->ep[k].dev ? roce_create_cq(l->ep[k].dev, 4096) : NULL;
		if (!l->ep[k].cq) {
			err = rte_errno;
			goto fail;
		}
	}
	for (unsigned f = 0; f < max_senders; f++) {
		l->fl[f].rcq = roce_create_cq(l->ep[0].dev, 4096);
		l->fl[f].lat = malloc(LAT_CAP * sizeof(float));
		if (!l->fl[f].rcq || !l->fl[f].lat)
			goto fail;
	}
	stk_neigh_params_default(&np);
	l->lc = stk_lcore_create(rte_lcore_id(), 0, true, l->pool, &np);
	if (!l->lc) {
		err = rte_errno;
		goto fail;
	}
	for (unsigned k = 0; k < l->nep; k++) {
		l->lc->rxq[k] = (struct stk_rxq){.iface = l->ep[k].iface, .port_id = l->ep[k].port};
		stk_lcore_add_poll(l->lc, roce_poll, l->ep[k].dev);
	}
	l->lc->nb_rxq = (uint16_t)l->nep;
	return l;
fail:
	ccl_destroy(l);
	rte_errno = err;
	return NULL;
}

/* ------------------------------------------------------------------ messages */

static void xfill(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;

	for (size_t i = 0; i < len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, RTE_MIN((size_t)8, len - i));
	}
}

static uint64_t stamp_of(unsigned f, uint64_t msg)
{
	return msg ^ ((uint64_t)(f + 1) << 56) ^ 0x5a5a000000000000ull;
}

static bool msg_ok(const struct ccl *l, const struct flow *fl, unsigned f, const uint8_t *p,
		   uint64_t msg)
{
	uint32_t size = l->s->msg_size;
	uint64_t want = stamp_of(f, msg), a, b;

	memcpy(&a, p, 8);
	memcpy(&b, p + size - 8, 8);
	return a == want && b == want &&
	       memcmp(p + 8, fl->gold + (msg % l->s->depth) * fl->stride + 8, size - 16) == 0;
}

static int post_msg(struct ccl *l, unsigned f, uint64_t now)
{
	struct flow *fl = &l->fl[f];
	uint32_t size = l->s->msg_size, slot = (uint32_t)(fl->next_msg % l->s->depth);
	uint8_t *p = fl->src + slot * fl->stride;
	uint64_t st = stamp_of(f, fl->next_msg);
	struct roce_sge sg = {.addr = (uintptr_t)p, .length = size, .lkey = fl->smr->lkey};
	struct roce_send_wr w, *bad;
	int rc;

	memcpy(p, &st, 8);
	memcpy(p + size - 8, &st, 8);
	memset(&w, 0, sizeof(w));
	w.wr_id = slot;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	if (l->s->op == CCL_WRITE) {
		w.opcode = ROCE_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = (uintptr_t)(fl->dst + slot * fl->stride);
		w.wr.rdma.rkey = l->rmr->rkey;
	} else {
		w.opcode = ROCE_WR_SEND;
	}
	rc = roce_post_send(fl->sq, &w, &bad);
	if (rc != 0)
		return rc;
	fl->slot_msg[slot] = fl->next_msg++;
	fl->post_tsc[slot] = now;
	fl->outstanding++;
	return 0;
}

static int post_recv(struct ccl *l, unsigned f, uint64_t slot)
{
	struct flow *fl = &l->fl[f];
	struct roce_sge sg = {.addr = (uintptr_t)(fl->dst + slot * fl->stride),
			      .length = fl->stride,
			      .lkey = l->rmr->lkey};
	struct roce_recv_wr r = {.wr_id = slot, .sg_list = &sg, .num_sge = 1}, *bad;

	return roce_post_recv(fl->rq, &r, &bad);
}

static void flow_error(struct flow *fl, int status)
{
	if (fl->r.errors++ == 0)
		fl->r.first_status = status;
}

/* The completions of flow @p f at @p now: check, account, repost. */
static void flow_poll(struct ccl *l, unsigned f, uint64_t now)
{
	struct flow *fl = &l->fl[f];
	struct roce_wc wc[32];
	int n;

	n = roce_poll_cq(l->ep[f + 1].cq, 32, wc);
	for (int i = 0; i < n; i++) {
		uint64_t slot = wc[i].wr_id, msg;

		if (slot >= l->s->depth) {
			flow_error(fl, wc[i].status);
			continue;
		}
		fl->outstanding--; /* flushed ones too: after an error every WR completes */
		if (wc[i].status != ROCE_WC_SUCCESS) {
			flow_error(fl, wc[i].status);
			continue;
		}
		msg = fl->slot_msg[slot];
		fl->r.total++;
		if (l->s->op == CCL_WRITE) {
			if (msg_ok(l, fl, f, fl->dst + slot * fl->stride, msg))
				fl->r.verified++;
			else
				fl->r.bad_data++;
		}
		if (fl->post_tsc[slot] >= l->win0 && now <= l->win1) {
			fl->r.msgs++;
			if (fl->nlat < LAT_CAP)
				fl->lat[fl->nlat++] = (float)((double)(now - fl->post_tsc[slot]) *
							      1e6 / (double)l->hz);
		}
		if (l->posting && post_msg(l, f, now) != 0)
			flow_error(fl, -1);
	}
	if (l->s->op != CCL_SEND)
		return;
	n = roce_poll_cq(fl->rcq, 32, wc);
	for (int i = 0; i < n; i++) {
		uint64_t slot = wc[i].wr_id;

		if (wc[i].status != ROCE_WC_SUCCESS || wc[i].opcode != ROCE_WC_RECV) {
			flow_error(fl, wc[i].status);
			continue;
		}
		if (wc[i].byte_len == l->s->msg_size &&
		    msg_ok(l, fl, f, fl->dst + slot * fl->stride, fl->recvd))
			fl->r.verified++;
		else
			fl->r.bad_data++;
		fl->recvd++;
		if (post_recv(l, f, slot) != 0)
			flow_error(fl, -2);
	}
}

static void step(struct ccl *l)
{
	uint64_t now;

	stk_lcore_poll(l->lc);
	now = rte_rdtsc();
	ccs_poll(l->sw, now);
	for (unsigned f = 0; f < l->s->nsenders; f++)
		flow_poll(l, f, now);
}

/* ------------------------------------------------------------------ QPs */

static enum roce_mtu mtu_enum(uint32_t b)
{
	return b >= 4096   ? ROCE_MTU_4096
	       : b >= 2048 ? ROCE_MTU_2048
	       : b >= 1024 ? ROCE_MTU_1024
	       : b >= 512  ? ROCE_MTU_512
			   : ROCE_MTU_256;
}

static int qp_to_rts(struct roce_qp *qp, struct roce_qp *peer, unsigned peer_ep,
		     const struct ccl_scenario *s)
{
	struct roce_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE;
	rc = roce_modify_qp(
		qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
	if (rc != 0)
		return rc;
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = mtu_enum(s->mtu);
	a.dest_qp_num = roce_qp_num(peer);
	a.rq_psn = 0xfff000;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	ep_ip(peer_ep, &a.ah_attr.dgid_ip);
	rc = roce_modify_qp(qp, &a,
			    ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				    ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				    ROCE_QP_MIN_RNR_TIMER);
	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = 0xfff000;
	a.timeout = s->qp_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return roce_modify_qp(qp, &a,
			      ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

static int flows_create(struct ccl *l, const struct ccl_scenario *s)
{
	uint32_t stride = RTE_ALIGN(s->msg_size, 64);
	size_t per_flow = (size_t)2 * s->depth * stride;

	l->rbuf = rte_zmalloc("ccl_rbuf", per_flow * s->nsenders, 4096);
	if (!l->rbuf)
		return -ENOMEM;
	l->rmr = roce_reg_mr(l->ep[0].pd, l->rbuf, per_flow * s->nsenders, (uintptr_t)l->rbuf,
			     ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE);
	if (!l->rmr)
		return -rte_errno;
	for (unsigned f = 0; f < s->nsenders; f++) {
		struct flow *fl = &l->fl[f];
		struct ep *e = &l->ep[f + 1];
		struct roce_qp_init_attr ia = {.qp_type = ROCE_QPT_RC};
		int rc;

		memset(&fl->r, 0, sizeof(fl->r));
		fl->stride = stride;
		fl->next_msg = fl->recvd = fl->outstanding = 0;
		fl->nlat = 0;
		fl->dst = l->rbuf + f * per_flow;
		fl->src = rte_zmalloc("ccl_src", (size_t)s->depth * stride, 4096);
		fl->gold = malloc((size_t)s->depth * stride);
		if (!fl->src || !fl->gold)
			return -ENOMEM;
		for (uint32_t j = 0; j < s->depth; j++)
			xfill(fl->gold + j * stride, stride, s->seed * 1000003 + f * 1009 + j);
		memcpy(fl->src, fl->gold, (size_t)s->depth * stride);
		fl->smr = roce_reg_mr(e->pd, fl->src, (size_t)s->depth * stride, (uintptr_t)fl->src,
				      ROCE_ACCESS_LOCAL_WRITE);
		if (!fl->smr)
			return -rte_errno;
		ia.cap.max_send_wr = 2 * MAX_DEPTH;
		ia.cap.max_recv_wr = 2 * MAX_DEPTH;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.send_cq = ia.recv_cq = e->cq;
		fl->sq = roce_create_qp(e->pd, &ia);
		ia.send_cq = ia.recv_cq = fl->rcq;
		fl->rq = roce_create_qp(l->ep[0].pd, &ia);
		if (!fl->sq || !fl->rq)
			return -rte_errno;
		rc = qp_to_rts(fl->sq, fl->rq, 0, s);
		if (rc == 0)
			rc = qp_to_rts(fl->rq, fl->sq, f + 1, s);
		if (rc != 0)
			return rc;
		if (s->op == CCL_SEND)
			for (uint64_t j = 0; j < 2 * s->depth; j++)
				if (post_recv(l, f, j) != 0)
					return -EIO;
	}
	return 0;
}

static void flows_destroy(struct ccl *l, unsigned n)
{
	for (unsigned f = 0; f < n; f++) {
		struct flow *fl = &l->fl[f];
		struct roce_wc wc[64];

		if (fl->sq)
			roce_destroy_qp(fl->sq);
		if (fl->rq)
			roce_destroy_qp(fl->rq);
		fl->sq = fl->rq = NULL;
		while (roce_poll_cq(l->ep[f + 1].cq, 64, wc) > 0)
			;
		while (roce_poll_cq(fl->rcq, 64, wc) > 0)
			;
	}
	/* frames of the dead QPs still in rings: let the stack drop them */
	for (unsigned i = 0; i < 2000; i++) {
		stk_lcore_poll(l->lc);
		if (l->sw)
			ccs_poll(l->sw, rte_rdtsc());
	}
	for (unsigned f = 0; f < n; f++) {
		struct flow *fl = &l->fl[f];

		if (fl->smr)
			roce_dereg_mr_drain(fl->smr, l->lc, 100000);
		fl->smr = NULL;
		rte_free(fl->src);
		free(fl->gold);
		fl->src = fl->gold = NULL;
	}
	if (l->rmr)
		roce_dereg_mr_drain(l->rmr, l->lc, 100000);
	l->rmr = NULL;
	rte_free(l->rbuf);
	l->rbuf = NULL;
}

/* ------------------------------------------------------------------ a run */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void fail(struct ccl_result *r, const char *why)
{
	if (r->ok)
		snprintf(r->why, sizeof(r->why), "%s", why);
	r->ok = false;
}

static void queue_stats(struct ccl *l, struct ccl_result *r)
{
	uint32_t n, m = 0, below = 0;
	const struct ccs_sample *s = ccs_samples(l->sw, &n);
	uint32_t *q = n ? malloc(n * sizeof(*q)) : NULL;
	double sum = 0;

	if (!q)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].tsc < l->win0 || s[i].tsc > l->win1)
			continue;
		q[m++] = s[i].q_bytes[0];
		sum += s[i].q_bytes[0];
		if (s[i].q_bytes[0] < l->s->bottle.kmax)
			below++;
	}
	r->nsamples = m;
	if (m) {
		qsort(q, m, sizeof(*q), cmp_u32);
		r->q_mean = sum / m;
		r->q_p99 = q[(size_t)(0.99 * (m - 1))];
		r->q_max = q[m - 1];
		r->q_below_kmax = (double)below / m;
	}
	free(q);
}

static int switch_create(struct ccl *l, const struct ccl_scenario *s)
{
	struct ccs_conf c;

	ccs_destroy(l->sw);
	ccs_conf_default(&c);
	c.nports = s->nsenders + 1;
	for (unsigned k = 0; k < c.nports; k++) {
		c.in[k] = l->in[k];
		c.out[k] = l->out[k];
	}
	c.pool = l->pool;
	c.eg[0] = s->bottle;
	c.pfc_prio = LOSSLESS_PRIO;
	c.pfc_link_bps = LINK_BPS;
	c.hz = l->hz;
	c.sample_cycles = s->sample_us * l->hz / 1000000;
	c.max_samples = (uint32_t)RTE_MIN(
		1000000.0, (s->warmup + s->secs + 2 * DRAIN_S) * 1e6 /
					   (double)RTE_MAX(s->sample_us, (uint64_t)1) +
				   16);
	c.seed = s->seed;
	l->sw = ccs_create(&c, rte_rdtsc());
	if (!l->sw)
		return -rte_errno;
	for (unsigned k = 0; k < c.nports; k++)
		ccs_set_mac(l->sw, k, &stk_iface_get(l->ep[k].iface)->mac);
	return 0;
}

int ccl_run(struct ccl *l, const struct ccl_scenario *s, struct ccl_result *r)
{
	struct roce_dcqcn_params p;
	uint64_t t0, end, lim;
	int rc;

	memset(r, 0, sizeof(*r));
	r->ok = true;
	if (s->nsenders == 0 || s->nsenders + 1 > l->nep || s->depth == 0 || s->depth > MAX_DEPTH ||
	    s->msg_size < 16)
		return -EINVAL;
	l->s = s;
	l->posting = false;
	l->win0 = l->win1 = UINT64_MAX;
	rc = switch_create(l, s);
	if (rc != 0)
		return rc;
	roce_dcqcn_params_default(&p, s->line_gbps);
	for (unsigned k = 0; k <= s->nsenders; k++)
		roce_dev_set_cc(l->ep[k].dev, s->dcqcn ? &p : NULL);
	/* resolve every sender <-> receiver pair before the data starts */
	for (unsigned k = 1; k <= s->nsenders; k++) {
		struct stk_ipaddr a;

		ep_ip(0, &a);
		stk_neigh_probe(l->lc, stk_iface_get(l->ep[k].iface), &a);
		ep_ip(k, &a);
		stk_neigh_probe(l->lc, stk_iface_get(l->ep[0].iface), &a);
	}
	lim = rte_rdtsc() + l->hz / 50;
	while (rte_rdtsc() < lim) {
		stk_lcore_poll(l->lc);
		ccs_poll(l->sw, rte_rdtsc());
	}
	rc = flows_create(l, s);
	if (rc != 0) {
		flows_destroy(l, s->nsenders);
		return rc;
	}
	for (unsigned f = 0; f < s->nsenders; f++) {
		struct stk_port_stats st;

		stk_stats_sum(l->ep[f + 1].iface, &st);
		l->fl[f].tx0 = st.c[STK_CNT_tx_pkts];
		l->fl[f].pfc0 = st.c[STK_CNT_pfc_rx];
	}
	t0 = rte_rdtsc();
	l->win0 = t0 + (uint64_t)(s->warmup * (double)l->hz);
	l->win1 = l->win0 + (uint64_t)(s->secs * (double)l->hz);
	l->posting = true;
	for (unsigned f = 0; f < s->nsenders; f++)
		for (uint32_t j = 0; j < s->depth; j++)
			if (post_msg(l, f, t0) != 0)
				fail(r, "posting failed");
	ccs_samples_reset(l->sw, t0);
	while (rte_rdtsc() < l->win1)
		step(l);
	l->posting = false;
	/* drain: what is in flight completes (retransmissions included), bounded */
	end = rte_rdtsc() + DRAIN_S * l->hz;
	for (;;) {
		uint64_t out = 0;

		for (unsigned f = 0; f < s->nsenders; f++)
			out += l->fl[f].outstanding;
		if (out == 0 || rte_rdtsc() >= end)
			break;
		step(l);
	}
	r->secs = (double)(l->win1 - l->win0) / (double)l->hz;
	for (unsigned f = 0; f < s->nsenders; f++) {
		struct flow *fl = &l->fl[f];
		struct ccl_flow_res *fr = &fl->r;
		struct roce_qp_cc_info ci;
		struct stk_port_stats st;

		if (s->op == CCL_SEND) {
			/* every receive has its check; wait briefly for the last ones */
			lim = rte_rdtsc() + l->hz;
			while (fl->recvd < fl->next_msg && rte_rdtsc() < lim)
				step(l);
		}
		fr->gbps = (double)fr->msgs * s->msg_size * 8 / r->secs / 1e9;
		r->gbps += fr->gbps;
		if (fl->nlat) {
			qsort(fl->lat, fl->nlat, sizeof(float), cmp_float);
			fr->p50_us = fl->lat[fl->nlat / 2];
			fr->p99_us = fl->lat[(size_t)(0.99 * (fl->nlat - 1))];
			fr->max_us = fl->lat[fl->nlat - 1];
		}
		roce_qp_query_stats(fl->sq, &fr->qs);
		roce_qp_cc_info(fl->sq, &ci);
		fr->cnp_rx = ci.cnp_rx;
		fr->rate_gbps = ci.rate_gbps;
		roce_qp_cc_info(fl->rq, &ci);
		r->cnp_tx += ci.cnp_tx;
		stk_stats_sum(l->ep[f + 1].iface, &st);
		fr->tx_pkts = st.c[STK_CNT_tx_pkts] - fl->tx0;
		fr->pfc_rx = st.c[STK_CNT_pfc_rx] - fl->pfc0;
		r->f[f] = *fr;
		if (fl->outstanding)
			fail(r, "messages still outstanding after the drain");
		if (fr->errors)
			fail(r, "error completion");
		if (fr->bad_data)
			fail(r, "data differed");
		if (fr->verified == 0)
			fail(r, "nothing verified");
		if (s->op == CCL_SEND && fl->recvd != fl->next_msg)
			fail(r, "receives missing");
	}
	ccs_totals(l->sw, &r->sw);
	ccs_port_stats(l->sw, 0, &r->bottle);
	queue_stats(l, r);
	/* empty the switch (no rate, no loss, no pauses) before the QPs and memory go */
	{
		struct ccs_egress_conf e = s->bottle;

		e.rate_bps = 0;
		e.loss = 0;
		e.pfc = false;
		e.honour_pfc = false;
		ccs_set_egress(l->sw, 0, &e);
	}
	flows_destroy(l, s->nsenders);
	return 0;
}

struct ccs *ccl_switch(struct ccl *l)
{
	return l->sw;
}

uint64_t ccl_window_start(const struct ccl *l)
{
	return l->win0;
}

void ccl_destroy(struct ccl *l)
{
	if (!l)
		return;
	if (l->lc)
		stk_lcore_destroy(l->lc);
	ccs_destroy(l->sw);
	for (unsigned f = 0; f < CCL_MAX_SENDERS; f++) {
		if (l->fl[f].rcq)
			roce_destroy_cq(l->fl[f].rcq);
		free(l->fl[f].lat);
	}
	for (unsigned k = 0; k < NPORTS; k++) {
		if (l->ep[k].cq)
			roce_destroy_cq(l->ep[k].cq);
		if (l->ep[k].pd)
			roce_dealloc_pd(l->ep[k].pd);
		if (l->ep[k].dev)
			roce_dev_close(l->ep[k].dev);
	}
	stk_iface_reset();
	free(l);
}
