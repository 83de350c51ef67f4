/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow.c - droce-gen's RC flows (gen_flow.h, docs/gen.md).
 *
 * The peer is any perftest server (ib_write_bw or ib_read_bw -q N on Linux, rxe or a
 * ConnectX; droce-perf): the control thread plays perftest's client on TCP (gen_pt.c) and
 * hands it the keys of droce's own N RC QPs, which the lcore then moves to RTS towards the
 * server's. The run, on the main lcore (an enum and step functions, STYLE section 4):
 *   KEYS   until the exchange is through, then the QPs to RTR and RTS (path MTU as agreed,
 *          the peer's address, DSCP/PCP/ECN of the profile);
 *   RUN    --seconds of posting: round robin over the QPs, each up to --depth WRs in flight,
 *          each WR's size drawn from the mix by weight, and at most --pps packets (a message
 *          of L bytes is ceil(L / MTU) packets) or --gbps of payload a second: a TSC deadline
 *          per post, with 1 ms of slack so a late loop round does not turn into a burst;
 *   DRAIN  up to 3 s for the WRs in flight;
 *   DONE   the control thread ends perftest's exchange, so the server exits 0.
 * Completions count messages and bytes per QP (the wr_id carries the QP and the size); an
 * error completion stops that QP. The transport's counters (roce_qp_query_stats()) give the
 * ACKs, NAKs and RNR NAKs received, the retransmissions and the timeouts.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "gen_flow.h"
#include "gen_pt.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define FLOW_BURST 32	      /* posts per loop round at most */
#define FLOW_DRAIN_S 3	      /* for the WRs in flight at the end */
#define FLOW_SLACK_US 1000    /* pacing: how far behind its deadline a post may be */
#define FLOW_TIMEOUT 14	      /* local ACK timeout: 67 ms */
#define FLOW_MAX_RD_ATOMIC 16 /* READs in flight per QP at most */

enum flow_state {
	FL_KEYS,  /**< the control thread is exchanging keys */
	FL_RUN,	  /**< posting */
	FL_DRAIN, /**< the WRs in flight */
	FL_DONE,  /**< over (or failed): the control thread closes the exchange */
	FL_NUM
};

static const char *const flow_state_names[FL_NUM] = {"keys", "run", "drain", "done"};
static const char *const verb_names[GEN_FLOW_NUM_VERBS] = {"write", "read"};

struct flow_qp {
	struct roce_qp *qp;
	struct perf_dest mine, theirs;
	uint32_t inflight;
	uint64_t posted, msgs, bytes, errors, flushed;
	uint64_t short_reads; /**< READ completions with fewer bytes than asked */
	enum roce_wc_status first_error;
	bool failed;
};

static struct {
	struct gen_flow_opts o;
	enum flow_state state;
	uint64_t state_count[FL_NUM];
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	uint8_t *buf;
	uint32_t max_size, wsum, mtu, rr;
	struct flow_qp q[GEN_FLOW_MAX_QPS];
	uint64_t t_start, t_end, t_stop, deadline;
	double next_tsc; /**< pacing: the next post's TSC (fractions kept) */
	struct gen_pt pt;
	pthread_t thread;
	bool thread_up;
	int keys_ready; /**< 1: through, -1: failed */
	int run_done;	/**< 1: the flows ran, -1: gave up (no end of the exchange) */
	int closed;	/**< the control thread is finished */
	char why[200];
} fl = {.pt.sock = -1};

/* the counting setter: every transition is counted (the report shows them) */
static void fl_set_state(enum flow_state s)
{
	fl.state = s;
	fl.state_count[s]++;
}

enum gen_flow_verb gen_flow_verb_parse(const char *s)
{
	for (int v = 0; v < GEN_FLOW_NUM_VERBS; v++)
		if (strcmp(s, verb_names[v]) == 0)
			return (enum gen_flow_verb)v;
	return GEN_FLOW_NUM_VERBS;
}

static int parse_size(const char *s, char **end, uint32_t *out)
{
	unsigned long long v;

	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || *end == s)
		return -1;
	if (v > GEN_FLOW_MAX_SIZE)
		return -1; /* before any shift can wrap */
	if (**end == 'k' || **end == 'K')
		v <<= 10, (*end)++;
	else if (**end == 'm' || **end == 'M')
		v <<= 20, (*end)++;
	if (v < 1 || v > GEN_FLOW_MAX_SIZE)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int gen_flow_parse_sizes(const char *s, struct gen_flow_opts *o)
{
	const char *p = s;

	o->nsizes = 0;
	while (*p) {
		char *end;
		uint32_t size, weight = 1;

		if (o->nsizes == GEN_FLOW_MAX_SIZES || parse_size(p, &end, &size) != 0)
			goto bad;
		if (*end == ':') {
			unsigned long w;

			errno = 0;
			w = strtoul(end + 1, &end, 10);
			if (errno || w < 1 || w > 1000)
				goto bad;
			weight = (uint32_t)w;
		}
		if (*end != ',' && *end != '\0')
			goto bad;
		o->size[o->nsizes] = size;
		o->weight[o->nsizes++] = weight;
		if (*end == ',' && end[1] == '\0')
			goto bad; /* a trailing comma: an empty item */
		p = *end ? end + 1 : end;
	}
	if (o->nsizes)
		return 0;
bad:
	fprintf(stderr,
		"droce-gen: --sizes %s: expected SIZE[:WEIGHT],... with at most %u sizes of 1 B "
		"to 1m (k and m suffixes) and weights of 1 to 1000\n",
		s, GEN_FLOW_MAX_SIZES);
	return -1;
}

/* ------------------------------------------------------------------ set-up */

static void *flow_control(void *arg)
{
	struct perf_dest theirs[GEN_FLOW_MAX_QPS];
	struct perf_dest mine[GEN_FLOW_MAX_QPS];
	(void)arg;

	for (uint32_t i = 0; i < fl.o.qps; i++)
		mine[i] = fl.q[i].mine;
	if (gen_pt_open(&fl.pt, fl.o.qps, mine, theirs) != 0) {
		snprintf(fl.why, sizeof(fl.why), "%s", fl.pt.why);
		__atomic_store_n(&fl.keys_ready, -1, __ATOMIC_RELEASE);
	} else {
		for (uint32_t i = 0; i < fl.o.qps; i++)
			fl.q[i].theirs = theirs[i];
		fl.mtu = fl.pt.mtu;
		__atomic_store_n(&fl.keys_ready, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&fl.run_done, __ATOMIC_ACQUIRE) && !stk_stopping())
			usleep(10000);
		if (__atomic_load_n(&fl.run_done, __ATOMIC_ACQUIRE) > 0) {
			uint64_t msgs = 0;

			for (uint32_t i = 0; i < fl.o.qps; i++)
				msgs += fl.q[i].msgs;
			gen_pt_close(&fl.pt, &mine[0], fl.max_size, msgs);
		} else {
			gen_pt_abort(&fl.pt);
		}
	}
	__atomic_store_n(&fl.closed, 1, __ATOMIC_RELEASE);
	return NULL;
}

int gen_flow_start(const struct gen_flow_opts *o)
{
	size_t len;
	int rc;

	fl.o = *o;
	fl.pt.server = o->server;
	fl.pt.port = o->port;
	fl.pt.iface = o->iface;
	{
		/* the largest path MTU a WRITE FIRST fits in the port's (IPv4, UDP, BTH, RETH,
		 * ICRC: 60 bytes), at most 4096; the server's may be smaller */
		uint32_t room = stk_iface_get(o->iface)->mtu - 60;

		fl.pt.mtu = room >= 4096   ? 4096
			    : room >= 2048 ? 2048
			    : room >= 1024 ? 1024
			    : room >= 512  ? 512
					   : 256;
	}
	fl.mtu = fl.pt.mtu;
	for (uint32_t k = 0; k < o->nsizes; k++) {
		fl.max_size = RTE_MAX(fl.max_size, o->size[k]);
		fl.wsum += o->weight[k];
	}
	srand48((long)rte_get_tsc_cycles());
	len = (size_t)fl.max_size * o->qps;
	fl.dev = roce_dev_open(o->iface);
	fl.pd = fl.dev ? roce_alloc_pd(fl.dev) : NULL;
	fl.cq = fl.dev ? roce_create_cq(fl.dev, (int)RTE_MIN(o->qps * o->depth * 2, 65536u)) : NULL;
	fl.buf = rte_zmalloc("gen_flow", len, 4096);
	fl.mr = fl.pd && fl.buf ? roce_reg_mr(fl.pd, fl.buf, len, (uintptr_t)fl.buf,
					      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
						      ROCE_ACCESS_REMOTE_READ)
				: NULL;
	if (!fl.mr || !fl.cq) {
		fprintf(stderr,
			"droce-gen: --flow: the RoCE device, its CQ or %zu bytes of "
			"registered memory: %s\n",
			len, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++)
		fl.buf[i] = (uint8_t)(i * 7 + 1);
	for (uint32_t i = 0; i < o->qps; i++) {
		struct roce_qp_init_attr ia = {
			.send_cq = fl.cq, .recv_cq = fl.cq, .qp_type = ROCE_QPT_RC};
		struct roce_qp_attr a;
		struct flow_qp *q = &fl.q[i];

		ia.cap.max_send_wr = o->depth;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		q->qp = roce_create_qp(fl.pd, &ia);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		if (!q->qp || roce_modify_qp(q->qp, &a,
					     ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						     ROCE_QP_ACCESS_FLAGS) != 0) {
			fprintf(stderr, "droce-gen: --flow: cannot create QP %u of %u\n", i,
				o->qps);
			return -ENOMEM;
		}
		q->mine.out_reads = FLOW_MAX_RD_ATOMIC;
		q->mine.qpn = roce_qp_num(q->qp);
		q->mine.psn = (uint32_t)lrand48() & 0xffffffu;
		q->mine.rkey = fl.mr->rkey;
		q->mine.vaddr = (uintptr_t)(fl.buf + (size_t)i * fl.max_size);
		gen_pt_gid(o->iface, q->mine.gid);
	}
	rc = stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, fl.dev);
	if (rc == 0)
		rc = -pthread_create(&fl.thread, NULL, flow_control, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-gen: --flow: cannot start: %s\n", strerror(-rc));
		return rc;
	}
	fl.thread_up = true;
	fl_set_state(FL_KEYS);
	return 0;
}

/* ------------------------------------------------------------------ the run */

static enum roce_mtu mtu_code(uint32_t bytes)
{
	return bytes >= 4096   ? ROCE_MTU_4096
	       : bytes >= 2048 ? ROCE_MTU_2048
	       : bytes >= 1024 ? ROCE_MTU_1024
	       : bytes >= 512  ? ROCE_MTU_512
			       : ROCE_MTU_256;
}

/* the QPs to RTR and RTS towards the server's */
static int connect_qps(void)
{
	for (uint32_t i = 0; i < fl.o.qps; i++) {
		struct flow_qp *q = &fl.q[i];
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = mtu_code(fl.mtu);
		a.dest_qp_num = q->theirs.qpn;
		a.rq_psn = q->theirs.psn;
		a.max_dest_rd_atomic = FLOW_MAX_RD_ATOMIC;
		a.min_rnr_timer = 12;
		a.ah_attr.dgid_ip = fl.o.server;
		a.ah_attr.ecn = fl.o.ecn;
		if (fl.o.dscp_set) {
			a.ah_attr.flags |= ROCE_PATH_DSCP;
			a.ah_attr.dscp = fl.o.dscp;
		}
		if (fl.o.pcp_set) {
			a.ah_attr.flags |= ROCE_PATH_PCP;
			a.ah_attr.pcp = fl.o.pcp;
		}
		if (roce_modify_qp(q->qp, &a,
				   ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					   ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER) != 0)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = q->mine.psn;
		a.timeout = FLOW_TIMEOUT;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = (uint8_t)RTE_MAX(
			1u, RTE_MIN(q->theirs.out_reads, (uint32_t)FLOW_MAX_RD_ATOMIC));
		if (roce_modify_qp(q->qp, &a,
				   ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					   ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					   ROCE_QP_MAX_QP_RD_ATOMIC) != 0)
			return -1;
	}
	return 0;
}

static uint32_t pick_size(void)
{
	uint32_t r = (uint32_t)(lrand48() % fl.wsum);

	for (uint32_t k = 0; k < fl.o.nsizes; k++) {
		if (r < fl.o.weight[k])
			return fl.o.size[k];
		r -= fl.o.weight[k];
	}
	return fl.o.size[0];
}

static int post_one(uint32_t i, uint32_t size)
{
	struct flow_qp *q = &fl.q[i];
	struct roce_sge sg = {.addr = q->mine.vaddr, .length = size, .lkey = fl.mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = (uint64_t)i << 32 | size;
	w.opcode = fl.o.verb == GEN_FLOW_READ ? ROCE_WR_RDMA_READ : ROCE_WR_RDMA_WRITE;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = q->theirs.vaddr;
	w.wr.rdma.rkey = q->theirs.rkey;
	return roce_post_send(q->qp, &w, &bad);
}

static void poll_cq(void)
{
	struct roce_wc wc[64];
	int n = roce_poll_cq(fl.cq, 64, wc);

	for (int k = 0; k < n; k++) {
		uint32_t i = (uint32_t)(wc[k].wr_id >> 32);
		struct flow_qp *q = i < fl.o.qps ? &fl.q[i] : NULL;

		if (!q)
			continue;
		if (q->inflight)
			q->inflight--;
		if (wc[k].status == ROCE_WC_SUCCESS) {
			uint32_t asked = (uint32_t)wc[k].wr_id;

			q->msgs++;
			if (fl.o.verb == GEN_FLOW_READ) { /* what arrived, as the completion says */
				q->bytes += wc[k].byte_len;
				q->short_reads += wc[k].byte_len != asked;
			} else {
				q->bytes += asked;
			}
			continue;
		}
		if (wc[k].status == ROCE_WC_WR_FLUSH_ERR) {
			q->flushed++; /* after the error that failed the QP: not one of its own */
			q->failed = true;
			continue;
		}
		if (!q->errors++)
			q->first_error = wc[k].status;
		q->failed = true; /* the QP is in error: its other WRs flush */
	}
}

/* Post what the depth and the pacing allow, round robin. */
static void post_some(uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz(), slack = FLOW_SLACK_US * hz / 1000000;
	bool paced = fl.o.pps > 0 || fl.o.gbps > 0;

	for (unsigned k = 0, tried = 0; k < FLOW_BURST && tried < fl.o.qps;) {
		uint32_t i, size;
		struct flow_qp *q;

		if (paced && (double)now < fl.next_tsc)
			return; /* before the turn moves on: every QP keeps its share */
		i = fl.rr++ % fl.o.qps;
		q = &fl.q[i];
		if (q->failed || q->inflight >= fl.o.depth) {
			tried++;
			continue;
		}
		size = pick_size();
		if (post_one(i, size) != 0) {
			tried++;
			continue;
		}
		q->inflight++;
		q->posted++;
		k++;
		tried = 0;
		if (paced) {
			double base = RTE_MAX(fl.next_tsc, (double)(now > slack ? now - slack : 0));
			double dt = fl.o.pps > 0
					    ? (double)((size + fl.mtu - 1) / fl.mtu) * (double)hz /
						      fl.o.pps
					    : (double)size * 8 * (double)hz / (fl.o.gbps * 1e9);

			fl.next_tsc = base + dt;
		}
	}
}

static uint32_t inflight(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < fl.o.qps; i++)
		n += fl.q[i].failed ? 0 : fl.q[i].inflight;
	return n;
}

static enum flow_state step_keys(uint64_t now)
{
	int k = __atomic_load_n(&fl.keys_ready, __ATOMIC_ACQUIRE);

	if (k == 0)
		return FL_KEYS;
	if (k > 0 && connect_qps() != 0)
		snprintf(fl.why, sizeof(fl.why), "the QPs could not be moved to RTS");
	if (k < 0 || fl.why[0]) {
		__atomic_store_n(&fl.run_done, -1, __ATOMIC_RELEASE);
		return FL_DONE;
	}
	fl.t_start = now;
	fl.next_tsc = (double)now;
	fl.t_end = now + (uint64_t)fl.o.seconds * rte_get_tsc_hz();
	if (!fl.o.json)
		printf("droce-gen: flow: %u QPs connected (path MTU %u), %s for %u s\n", fl.o.qps,
		       fl.mtu, verb_names[fl.o.verb], fl.o.seconds);
	return FL_RUN;
}

static enum flow_state step_run(uint64_t now)
{
	poll_cq();
	fl.t_stop = now;
	if (now >= fl.t_end) {
		fl.deadline = now + (uint64_t)FLOW_DRAIN_S * rte_get_tsc_hz();
		return FL_DRAIN;
	}
	post_some(now);
	return FL_RUN;
}

static enum flow_state step_drain(uint64_t now)
{
	poll_cq();
	if (inflight() && now < fl.deadline)
		return FL_DRAIN;
	if (inflight())
		snprintf(fl.why, sizeof(fl.why), "%u WRs still in flight %d s after the end",
			 inflight(), FLOW_DRAIN_S);
	__atomic_store_n(&fl.run_done, 1, __ATOMIC_RELEASE);
	return FL_DONE;
}

bool gen_flow_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	enum flow_state next;
	(void)lc, (void)ifc;

	switch (fl.state) {
	case FL_KEYS:
		next = step_keys(now);
		break;
	case FL_RUN:
		next = step_run(now);
		break;
	case FL_DRAIN:
		next = step_drain(now);
		break;
	case FL_DONE:
	default:
		return __atomic_load_n(&fl.closed, __ATOMIC_ACQUIRE) != 0;
	}
	if (next != fl.state)
		fl_set_state(next);
	return false;
}

/* ------------------------------------------------------------------ the report */

int gen_flow_finish(void)
{
	double secs = fl.t_stop > fl.t_start
			      ? (double)(fl.t_stop - fl.t_start) / (double)rte_get_tsc_hz()
			      : 0;
	uint64_t msgs = 0, bytes = 0, errors = 0;
	struct roce_qp_stats st[GEN_FLOW_MAX_QPS];
	bool all_ran = true;

	if (fl.thread_up)
		pthread_join(fl.thread, NULL);
	for (uint32_t i = 0; i < fl.o.qps; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		if (fl.q[i].qp)
			roce_qp_query_stats(fl.q[i].qp, &st[i]);
		msgs += fl.q[i].msgs;
		bytes += fl.q[i].bytes;
		errors += fl.q[i].errors + fl.q[i].short_reads;
		all_ran = all_ran && fl.q[i].msgs > 0;
	}
	if (fl.why[0])
		fprintf(stderr, "droce-gen: flow: %s\n", fl.why);
	if (fl.state != FL_DONE)
		fprintf(stderr, "droce-gen: flow: stopped in state %s\n",
			flow_state_names[fl.state]);
	if (fl.o.json) {
		printf("{\"mode\":\"flow\",\"verb\":\"%s\",\"qps\":%u,\"depth\":%u,\"path_mtu\":%u,"
		       "\"seconds\":%.3f,\"pps_limit\":%.1f,\"gbps_limit\":%.3f,\"per_qp\":[",
		       verb_names[fl.o.verb], fl.o.qps, fl.o.depth, fl.mtu, secs, fl.o.pps,
		       fl.o.gbps);
		for (uint32_t i = 0; i < fl.o.qps; i++) {
			const struct flow_qp *q = &fl.q[i];

			printf("%s{\"qpn\":%u,\"peer_qpn\":%u,\"posted\":%" PRIu64
			       ",\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"gbps\":%.4f,"
			       "\"tx_pkts\":%" PRIu64 ",\"acks_rx\":%" PRIu64
			       ",\"nak_seq_rx\":%" PRIu64 ",\"rnr_nak_rx\":%" PRIu64
			       ",\"nak_fatal_rx\":%" PRIu64 ",\"retransmits\":%" PRIu64
			       ",\"timeouts\":%" PRIu64 ",\"errors\":%" PRIu64
			       ",\"flushed\":%" PRIu64 ",\"short_reads\":%" PRIu64
			       ",\"first_error\":\"%s\"}",
			       i ? "," : "", q->mine.qpn, q->theirs.qpn, q->posted, q->msgs,
			       q->bytes, secs > 0 ? (double)q->bytes * 8 / secs / 1e9 : 0,
			       st[i].tx_pkts, st[i].acks_rx, st[i].nak_seq_rx, st[i].rnr_nak_rx,
			       st[i].nak_fatal_rx, st[i].retransmits, st[i].timeouts, q->errors,
			       q->flushed, q->short_reads,
			       q->errors ? roce_wc_status_str(q->first_error) : "");
		}
		printf("],\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"gbps\":%.4f,"
		       "\"errors\":%" PRIu64 "}\n",
		       msgs, bytes, secs > 0 ? (double)bytes * 8 / secs / 1e9 : 0, errors);
	} else {
		printf("%4s %8s %8s %10s %12s %9s %9s %7s %7s %7s %7s %7s %7s %6s\n", "qp", "qpn",
		       "peer", "messages", "bytes", "Gbit/s", "pkts/s", "ACKs", "NAKseq", "RNR",
		       "NAKerr", "resent", "tmo", "errors");
		for (uint32_t i = 0; i < fl.o.qps; i++) {
			const struct flow_qp *q = &fl.q[i];

			printf("%4u %#8x %#8x %10" PRIu64 " %12" PRIu64 " %9.3f %9.0f %7" PRIu64
			       " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			       " %6" PRIu64 "%s%s\n",
			       i, q->mine.qpn, q->theirs.qpn, q->msgs, q->bytes,
			       secs > 0 ? (double)q->bytes * 8 / secs / 1e9 : 0,
			       secs > 0 ? (double)st[i].tx_pkts / secs : 0, st[i].acks_rx,
			       st[i].nak_seq_rx, st[i].rnr_nak_rx, st[i].nak_fatal_rx,
			       st[i].retransmits, st[i].timeouts, q->errors, q->errors ? " " : "",
			       q->errors ? roce_wc_status_str(q->first_error) : "");
		}
		printf("droce-gen: flow: %s, %u QPs, %" PRIu64 " messages, %" PRIu64
		       " bytes in %.3f s: %.3f Gbit/s, %" PRIu64 " error completions\n",
		       verb_names[fl.o.verb], fl.o.qps, msgs, bytes, secs,
		       secs > 0 ? (double)bytes * 8 / secs / 1e9 : 0, errors);
	}
	fflush(stdout);
	return fl.why[0] || errors || !all_ran || fl.state != FL_DONE ? 1 : 0;
}
