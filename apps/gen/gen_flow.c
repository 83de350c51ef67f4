/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow.c - droce-gen's RC and UD flows (gen_flow.h, docs/gen.md).
 *
 * The peer's keys come from a perftest server (ib_write_bw or ib_read_bw -q N on Linux, rxe or
 * a ConnectX; droce-perf: the control thread plays perftest's client on TCP, gen_pt.c), from
 * stdin (--manual: the control thread prints droce's keys per QP and reads the peer's, a line
 * per QP) or from the command line (--keys, UD), or the RDMA CM makes them (--cm: REQ, REP
 * and RTU for RC; SIDR_REQ and SIDR_REP for UD, which name the peer's QP and Q_Key). The run,
 * on the main lcore (an enum and step functions, STYLE section 4):
 *   KEYS   until the keys are in, then the QPs to RTR and RTS (RC: path MTU as agreed, the
 *          peer's address, DSCP/PCP/ECN of the profile; UD: an address handle, the peer's
 *          address resolved);
 *   RUN    --seconds of posting: round robin over the QPs, each up to --depth WRs in flight,
 *          each WR's operation drawn from the mix and its size from the size mix, by weight,
 *          and at most --pps packets (a message of L bytes is ceil(L / MTU) packets) or --gbps
 *          of payload a second: a TSC deadline per post, with 1 ms of slack so a late loop
 *          round does not turn into a burst;
 *   DRAIN  up to 3 s for the WRs in flight;
 *   DONE   the control thread ends perftest's exchange, so the server exits 0.
 * Completions count operations and bytes per QP (the wr_id carries the QP, the operation and
 * the size); an error completion stops that QP. The transport's counters
 * (roce_qp_query_stats()) give the ACKs, NAKs and RNR NAKs received, the retransmissions and
 * the timeouts.
 *
 * Each QP's slot of registered memory: the source of WRITEs and SENDs (byte j is j * 7 + 1,
 * which a peer can check), the sink of READs, then 8 bytes for the atomics' old values. In the
 * peer's region the atomics add 1 at va and the WRITEs and READs go to va, or to va + 64 when
 * the mix has atomics.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
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
#include "roce_cm.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define FLOW_BURST 32	      /* posts per loop round at most */
#define FLOW_DRAIN_S 3	      /* for the WRs in flight at the end */
#define FLOW_SLACK_US 1000    /* pacing: how far behind its deadline a post may be */
#define FLOW_TIMEOUT 14	      /* local ACK timeout: 67 ms */
#define FLOW_MAX_RD_ATOMIC 16 /* READs in flight per QP at most */
#define FLOW_ARP_S 3	      /* UD: how long the peer's address may take to resolve */
#define FLOW_QKEY 0x11111111u /* UD: our Q_Key, and the peer's unless it names one (perftest's) */
#define FLOW_KEYS_LINE 512    /* the longest line of keys read from stdin */

enum flow_state {
	FL_KEYS,  /**< the control thread is exchanging keys */
	FL_RUN,	  /**< posting */
	FL_DRAIN, /**< the WRs in flight */
	FL_DONE,  /**< over (or failed): the control thread closes the exchange */
	FL_NUM
};

static const char *const flow_state_names[FL_NUM] = {"keys", "run", "drain", "done"};
static const char *const xchg_names[GEN_XCHG_NUM] = {"perftest", "manual", "keys", "cm"};

struct flow_qp {
	struct roce_qp *qp;
	struct roce_ah *ah; /**< UD: the peer's address */
	struct perf_dest mine, theirs;
	uint32_t qkey;	  /**< UD: the peer's Q_Key */
	uint64_t rdma_va; /**< where WRITEs and READs go in the peer's region */
	uint8_t *slot;	  /**< ours: the source, the READ sink, the atomics' old values */
	uint32_t inflight;
	uint64_t posted, msgs, bytes, errors, flushed;
	uint64_t ops[GEN_FLOW_NUM_VERBS]; /**< completed, by operation */
	uint32_t write_max;		  /**< the largest WRITE completed */
	uint64_t short_reads;		  /**< READ completions with fewer bytes than asked */
	struct roce_cm_id *id;		  /**< --cm: its connection */
	bool up;			  /**< --cm: ESTABLISHED */
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
	struct roce_cm *cm; /**< --cm */
	uint32_t nup;	    /**< --cm: QPs connected */
	uint64_t done_at;   /**< --cm: DONE lingers for the DREQs to leave */
	uint8_t *buf;
	uint32_t max_size, wsum, mtu, rr, slot_len, sink_off, atomic_off;
	uint64_t post_fails; /**< posts the QP refused (the first one's error in post_err) */
	int post_err;
	struct flow_qp q[GEN_FLOW_MAX_QPS];
	uint64_t t_start, t_end, t_stop, deadline, probe_at;
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

/* ------------------------------------------------------------------ set-up */

/* The peer's keys from a manual exchange, or --keys, into the QP's. */
static void take_keys(struct flow_qp *q, const struct gen_keys *k)
{
	const uint64_t *v = k->v;

	q->theirs.qpn = (uint32_t)v[GEN_KEY_QPN];
	q->theirs.psn = (uint32_t)v[GEN_KEY_PSN];
	q->theirs.rkey = (uint32_t)v[GEN_KEY_RKEY];
	q->theirs.vaddr = v[GEN_KEY_VA];
	q->theirs.out_reads =
		k->have & (1u << GEN_KEY_RD_ATOMIC) ? (uint32_t)v[GEN_KEY_RD_ATOMIC] : 1;
	q->qkey = k->have & (1u << GEN_KEY_QKEY) ? (uint32_t)v[GEN_KEY_QKEY] : FLOW_QKEY;
	if ((k->have & (1u << GEN_KEY_MTU)) && v[GEN_KEY_MTU] < fl.mtu)
		fl.mtu = (uint32_t)v[GEN_KEY_MTU];
}

/* --manual: ours on stderr, then a line of the peer's keys per QP from stdin (lines without
 * keys skipped). @return 0, or -1 with fl.why set. */
static int manual_keys(void)
{
	char line[FLOW_KEYS_LINE], addr[INET6_ADDRSTRLEN];
	size_t used = 0;
	uint32_t got = 0;
	bool skipping = false;

	stk_ipaddr_str(&stk_iface_get(fl.o.iface)->ip4, addr, sizeof(addr));
	for (uint32_t i = 0; i < fl.o.qps; i++)
		fprintf(stderr,
			"droce-gen: local qp %u qpn=%#x psn=%#x ip=%s mtu=%u rd_atomic=%u%s\n", i,
			fl.q[i].mine.qpn, fl.q[i].mine.psn, addr, fl.mtu, FLOW_MAX_RD_ATOMIC,
			fl.o.mix.ud ? " qkey=0x11111111" : "");
	fprintf(stderr, "droce-gen: the peer's keys, a line per QP (%s):\n",
		fl.o.mix.ud ? "qpn= [qkey=]" : "qpn= psn= rkey= va= len= [mtu=] [rd_atomic=]");
	fflush(stderr);
	while (got < fl.o.qps) {
		struct pollfd pfd = {.fd = 0, .events = POLLIN};
		char *nl;
		ssize_t n;

		if (stk_stopping()) {
			snprintf(fl.why, sizeof(fl.why), "stopped waiting for the peer's keys");
			return -1;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(0, line + used, sizeof(line) - 1 - used);
		if (n > 0 && memchr(line + used, '\0', (size_t)n)) {
			snprintf(fl.why, sizeof(fl.why), "a NUL byte among the peer's keys");
			return -1;
		}
		if (n <= 0 && used && !skipping) {
			line[used++] = '\n'; /* the last line, without its newline */
			n = 0;
		} else if (n <= 0) {
			snprintf(fl.why, sizeof(fl.why),
				 "stdin ended with the keys of %u of %u peer QPs", got, fl.o.qps);
			return -1;
		}
		used += (size_t)n;
		line[used] = '\0';
		if (skipping) { /* the rest of a long line without keys */
			char *end = strchr(line, '\n');

			if (!end) {
				used = 0;
				continue;
			}
			used -= (size_t)(end + 1 - line);
			memmove(line, end + 1, used + 1);
			skipping = false;
		}
		while (got < fl.o.qps && (nl = strchr(line, '\n')) != NULL) {
			struct gen_keys k;
			char why[160];
			int rc;

			*nl = '\0';
			rc = gen_keys_parse(line, &k, why, sizeof(why));
			if (rc > 0 && gen_flow_keys_ok(&fl.o, &k, why, sizeof(why)) != 0)
				rc = -1;
			if (rc < 0) {
				snprintf(fl.why, sizeof(fl.why), "the peer's keys for QP %u: %s",
					 got, why);
				return -1;
			}
			if (rc > 0)
				take_keys(&fl.q[got++], &k);
			used -= (size_t)(nl + 1 - line);
			memmove(line, nl + 1, used + 1);
		}
		if (used == sizeof(line) - 1) {
			if (strchr(line, '=')) {
				snprintf(fl.why, sizeof(fl.why),
					 "a line of keys longer than %d bytes", FLOW_KEYS_LINE - 1);
				return -1;
			}
			used = 0; /* a long line without keys: skipped like a short one */
			skipping = true;
		}
	}
	return 0;
}

static void *flow_control(void *arg)
{
	struct perf_dest theirs[GEN_FLOW_MAX_QPS];
	struct perf_dest mine[GEN_FLOW_MAX_QPS];
	int rc = 0;
	(void)arg;

	for (uint32_t i = 0; i < fl.o.qps; i++)
		mine[i] = fl.q[i].mine;
	if (fl.o.xchg == GEN_XCHG_MANUAL) {
		rc = manual_keys();
	} else if (fl.o.xchg == GEN_XCHG_KEYS || fl.o.xchg == GEN_XCHG_CM) {
		for (uint32_t i = 0; i < fl.o.qps && fl.o.nkeys; i++)
			take_keys(&fl.q[i], &fl.o.keys[fl.o.nkeys == 1 ? 0 : i]);
	} else if ((rc = gen_pt_open(&fl.pt, fl.o.qps, mine, theirs)) != 0) {
		snprintf(fl.why, sizeof(fl.why), "%s", fl.pt.why);
	} else if (fl.o.mix.ud && fl.max_size > fl.pt.mtu) {
		/* ib_send_bw -c UD: a datagram is one packet of the MTU both sides agreed */
		snprintf(fl.why, sizeof(fl.why),
			 "--flow ud: --sizes up to %u bytes, but the MTU agreed with the perftest "
			 "server is %u",
			 fl.max_size, fl.pt.mtu);
		gen_pt_abort(&fl.pt);
		rc = -1;
	} else {
		for (uint32_t i = 0; i < fl.o.qps; i++) {
			fl.q[i].theirs = theirs[i];
			fl.q[i].qkey = FLOW_QKEY; /* perftest's DEF_QKEY */
		}
		fl.mtu = fl.pt.mtu;
	}
	__atomic_store_n(&fl.keys_ready, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
	if (rc == 0) {
		while (!__atomic_load_n(&fl.run_done, __ATOMIC_ACQUIRE) && !stk_stopping())
			usleep(10000);
		if (fl.o.xchg != GEN_XCHG_PERFTEST) {
			/* nothing to close: the peer was told nothing beyond the keys */
		} else if (__atomic_load_n(&fl.run_done, __ATOMIC_ACQUIRE) > 0) {
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

/* A QP of the flow, in INIT. @return 0 or -1. */
static int make_qp(struct flow_qp *q)
{
	struct roce_qp_init_attr ia = {.send_cq = fl.cq,
				       .recv_cq = fl.cq,
				       .qp_type = fl.o.mix.ud ? ROCE_QPT_UD : ROCE_QPT_RC};
	struct roce_qp_attr a;
	uint32_t mask = ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT;

	ia.cap.max_send_wr = fl.o.depth;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	q->qp = roce_create_qp(fl.pd, &ia);
	if (q->qp && fl.o.xchg == GEN_XCHG_CM)
		return 0; /* the CM takes it from RESET to RTS */
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	if (fl.o.mix.ud) {
		a.qkey = FLOW_QKEY;
		mask |= ROCE_QP_QKEY;
	} else {
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		mask |= ROCE_QP_ACCESS_FLAGS;
	}
	return q->qp && roce_modify_qp(q->qp, &a, mask) == 0 ? 0 : -1;
}

int gen_flow_start(const struct gen_flow_opts *o)
{
	size_t len;
	int rc;

	fl.o = *o;
	fl.pt.server = o->server;
	fl.pt.port = o->port;
	fl.pt.iface = o->iface;
	fl.pt.send = o->mix.weight[GEN_FLOW_SEND] != 0;
	fl.dev = roce_dev_open(o->iface);
	if (!fl.dev) {
		fprintf(stderr, "droce-gen: --flow: no RoCE device on interface %u: %s\n", o->iface,
			rte_strerror(rte_errno));
		return -ENODEV;
	}
	/* the largest path MTU the device's QPs take on this port (the peer's may be smaller) */
	fl.pt.mtu = fl.mtu = roce_dev_max_path_mtu(fl.dev);
	for (uint32_t k = 0; k < o->nsizes; k++) {
		fl.max_size = RTE_MAX(fl.max_size, o->size[k]);
		fl.wsum += o->weight[k];
	}
	if (o->mix.ud && fl.max_size > fl.mtu) {
		fprintf(stderr,
			"droce-gen: --flow ud: --sizes up to %u bytes, but a datagram is one packet "
			"and the path MTU of interface %u is %u\n",
			fl.max_size, o->iface, fl.mtu);
		return -EINVAL;
	}
	srand48((long)rte_get_tsc_cycles());
	/* a QP's slot: the source; the READ sink and the atomics' 8 bytes only when mixed in */
	fl.sink_off = RTE_ALIGN_CEIL(fl.max_size, 64u);
	fl.atomic_off = fl.sink_off + (o->mix.weight[GEN_FLOW_READ] ? fl.sink_off : 0);
	fl.slot_len = fl.atomic_off + (o->mix.weight[GEN_FLOW_ATOMIC] ? 64 : 0);
	len = (size_t)fl.slot_len * o->qps;
	fl.pd = roce_alloc_pd(fl.dev);
	if (o->xchg == GEN_XCHG_CM && !(fl.cm = roce_cm_open(fl.dev))) {
		fprintf(stderr, "droce-gen: --cm: the RDMA CM on interface %u: %s\n", o->iface,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	fl.cq = roce_create_cq(fl.dev, (int)RTE_MIN(o->qps * o->depth * 2, 65536u));
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
	for (uint32_t i = 0; i < o->qps; i++) {
		struct flow_qp *q = &fl.q[i];

		q->slot = fl.buf + (size_t)i * fl.slot_len;
		for (uint32_t j = 0; j < fl.max_size; j++)
			q->slot[j] = (uint8_t)(j * 7 + 1); /* the peer may check what arrives */
		if (make_qp(q) != 0) {
			fprintf(stderr, "droce-gen: --flow: cannot create QP %u of %u\n", i,
				o->qps);
			return -ENOMEM;
		}
		q->mine.out_reads = FLOW_MAX_RD_ATOMIC;
		q->mine.qpn = roce_qp_num(q->qp);
		q->mine.psn = (uint32_t)lrand48() & 0xffffffu;
		q->mine.rkey = fl.mr->rkey;
		q->mine.vaddr = (uintptr_t)q->slot;
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

static void fill_path(struct roce_path *p)
{
	p->dgid_ip = fl.o.server;
	p->ecn = fl.o.ecn;
	if (fl.o.dscp_set) {
		p->flags |= ROCE_PATH_DSCP;
		p->dscp = fl.o.dscp;
	}
	if (fl.o.pcp_set) {
		p->flags |= ROCE_PATH_PCP;
		p->pcp = fl.o.pcp;
	}
}

/* Where WRITEs and READs go in the peer's region: past the atomics' 64 bytes when the mix has
 * atomics (a perftest server's region has none) */
static uint64_t rdma_va_of(const struct flow_qp *q)
{
	return q->theirs.vaddr + (fl.o.mix.weight[GEN_FLOW_ATOMIC] && fl.o.xchg != GEN_XCHG_PERFTEST
					  ? GEN_FLOW_ATOMIC_ROOM
					  : 0);
}

/* UD: an address handle for the peer, with the profile's marking */
static struct roce_ah *peer_ah(void)
{
	struct roce_path path;

	memset(&path, 0, sizeof(path));
	fill_path(&path);
	return roce_create_ah(fl.pd, &path);
}

/* UD: the QPs to RTR and RTS, an address handle each */
static int connect_ud(void)
{
	for (uint32_t i = 0; i < fl.o.qps; i++) {
		struct flow_qp *q = &fl.q[i];
		struct roce_qp_attr a;

		q->ah = peer_ah();
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		if (!q->ah || roce_modify_qp(q->qp, &a, ROCE_QP_STATE) != 0)
			return -1;
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = q->mine.psn;
		if (roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN) != 0)
			return -1;
	}
	return 0;
}

/* RC: the QPs to RTR and RTS towards the peer's */
static int connect_rc(void)
{
	for (uint32_t i = 0; i < fl.o.qps; i++) {
		struct flow_qp *q = &fl.q[i];
		struct roce_qp_attr a;

		q->rdma_va = rdma_va_of(q);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = mtu_code(fl.mtu);
		a.dest_qp_num = q->theirs.qpn;
		a.rq_psn = q->theirs.psn;
		a.max_dest_rd_atomic = FLOW_MAX_RD_ATOMIC;
		a.min_rnr_timer = 12;
		fill_path(&a.ah_attr);
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

static enum gen_flow_verb pick_verb(void)
{
	uint32_t r = (uint32_t)(lrand48() % fl.o.mix.wsum);

	for (int v = 0; v < GEN_FLOW_NUM_VERBS; v++) {
		if (r < fl.o.mix.weight[v])
			return (enum gen_flow_verb)v;
		r -= fl.o.mix.weight[v];
	}
	return GEN_FLOW_WRITE;
}

/* the wr_id: the QP, the operation and the size (at most 1 MiB) */
static uint64_t wr_id(uint32_t i, enum gen_flow_verb v, uint32_t size)
{
	return (uint64_t)i << 32 | (uint64_t)v << 24 | size;
}

static int post_one(uint32_t i, enum gen_flow_verb v, uint32_t size)
{
	struct flow_qp *q = &fl.q[i];
	struct roce_sge sg = {.addr = (uintptr_t)q->slot, .length = size, .lkey = fl.mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id(i, v, size);
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	switch (v) {
	case GEN_FLOW_WRITE:
	case GEN_FLOW_READ:
		w.opcode = v == GEN_FLOW_READ ? ROCE_WR_RDMA_READ : ROCE_WR_RDMA_WRITE;
		if (v == GEN_FLOW_READ)
			sg.addr += fl.sink_off; /* not over the source */
		w.wr.rdma.remote_addr = q->rdma_va;
		w.wr.rdma.rkey = q->theirs.rkey;
		break;
	case GEN_FLOW_ATOMIC:
		w.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
		sg.addr += fl.atomic_off;
		sg.length = 8;
		w.wr_id = wr_id(i, v, 8);
		w.wr.atomic.remote_addr = q->theirs.vaddr;
		w.wr.atomic.rkey = q->theirs.rkey;
		w.wr.atomic.compare_add = 1;
		break;
	case GEN_FLOW_SEND:
	default:
		w.opcode = ROCE_WR_SEND;
		if (q->ah) {
			w.wr.ud.ah = q->ah;
			w.wr.ud.remote_qpn = q->theirs.qpn;
			w.wr.ud.remote_qkey = q->qkey;
		}
		break;
	}
	return roce_post_send(q->qp, &w, &bad);
}

static void poll_cq(void)
{
	struct roce_wc wc[64];
	int n = roce_poll_cq(fl.cq, 64, wc);

	for (int k = 0; k < n; k++) {
		uint32_t i = (uint32_t)(wc[k].wr_id >> 32);
		struct flow_qp *q = i < fl.o.qps ? &fl.q[i] : NULL;
		enum gen_flow_verb v = (enum gen_flow_verb)((wc[k].wr_id >> 24) & 0xff);
		uint32_t asked = (uint32_t)wc[k].wr_id & 0xffffff;

		if (!q || v >= GEN_FLOW_NUM_VERBS)
			continue;
		if (q->inflight)
			q->inflight--;
		if (wc[k].status == ROCE_WC_SUCCESS) {
			q->msgs++;
			q->ops[v]++;
			if (v == GEN_FLOW_READ) { /* what arrived, as the completion says */
				q->bytes += wc[k].byte_len;
				q->short_reads += wc[k].byte_len != asked;
			} else {
				q->bytes += asked;
			}
			if (v == GEN_FLOW_WRITE && asked > q->write_max)
				q->write_max = asked;
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
		int rc;
		enum gen_flow_verb v;
		struct flow_qp *q;

		if (paced && (double)now < fl.next_tsc)
			return; /* before the turn moves on: every QP keeps its share */
		i = fl.rr++ % fl.o.qps;
		q = &fl.q[i];
		if (q->failed || q->inflight >= fl.o.depth ||
		    (fl.o.iters && q->posted >= fl.o.iters)) {
			tried++;
			continue;
		}
		v = pick_verb();
		size = v == GEN_FLOW_ATOMIC ? 8 : pick_size();
		rc = post_one(i, v, size);
		if (rc != 0) {
			if (!fl.post_fails++)
				fl.post_err = rc;
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

static enum flow_state start_run(uint64_t now);

/* --cm, UD: SIDR_REP named the peer's QP and Q_Key (the CM moved ours to RTS with the UDP
 * port space's Q_Key); the datagrams go to its address. @return 0 or -1. */
static int sidr_resolved(struct flow_qp *q, const struct roce_cm_event *ev)
{
	q->theirs.qpn = ev->qp_num;
	q->qkey = ev->qkey;
	q->ah = peer_ah();
	return q->ah ? 0 : -1;
}

/* --cm: a REQ per QP to --peer ADDR:PORT (a SIDR_REQ for UD); RUN once every one is
 * ESTABLISHED (for UD: SIDR_REP came) */
static enum flow_state step_cm(uint64_t now)
{
	struct roce_cm_event ev;

	if (!fl.deadline) {
		struct roce_cm_conn_param p = {.responder_resources = FLOW_MAX_RD_ATOMIC,
					       .initiator_depth = FLOW_MAX_RD_ATOMIC,
					       .retry_count = 7,
					       .rnr_retry_count = 7,
					       .local_ack_timeout = FLOW_TIMEOUT};
		enum roce_cm_ps ps = fl.o.mix.ud ? ROCE_CM_PS_UDP : ROCE_CM_PS_TCP;

		fl.deadline = now + 20 * rte_get_tsc_hz();
		for (uint32_t i = 0; i < fl.o.qps; i++) {
			struct flow_qp *q = &fl.q[i];

			q->id = roce_cm_create_id(fl.cm, ps, q);
			if (!q->id ||
			    roce_cm_connect(q->id, &fl.o.server, fl.o.port, q->qp, &p) != 0) {
				snprintf(fl.why, sizeof(fl.why), "QP %u: the CM connect failed", i);
				return FL_DONE;
			}
		}
	}
	while (roce_cm_get_event(fl.cm, &ev) == 0) {
		struct flow_qp *q = ev.id ? ev.id->context : NULL;

		if (!q)
			continue;
		if (ev.event == ROCE_CM_EVENT_ESTABLISHED && !q->up) {
			if (fl.o.mix.ud && sidr_resolved(q, &ev) != 0) {
				snprintf(fl.why, sizeof(fl.why),
					 "QP %u: no address handle for the peer",
					 (uint32_t)(q - fl.q));
				return FL_DONE;
			}
			q->up = true;
			if (!fl.o.mix.ud) {
				q->theirs.qpn = ev.id->remote_qpn;
				q->theirs.out_reads = ev.responder_resources;
			}
			fl.nup++;
		} else if (ev.event == ROCE_CM_EVENT_REJECTED ||
			   ev.event == ROCE_CM_EVENT_UNREACHABLE ||
			   ev.event == ROCE_CM_EVENT_DISCONNECTED) {
			snprintf(fl.why, sizeof(fl.why), "QP %u: the CM said %s (status %d)",
				 (uint32_t)(q - fl.q), roce_cm_event_str(ev.event), ev.status);
			return FL_DONE;
		}
	}
	if (fl.nup < fl.o.qps) {
		if (now < fl.deadline)
			return FL_KEYS;
		snprintf(fl.why, sizeof(fl.why), "%u of %u QPs connected by the CM in 20 s", fl.nup,
			 fl.o.qps);
		return FL_DONE;
	}
	for (uint32_t i = 0; i < fl.o.qps; i++)
		fl.q[i].rdma_va = rdma_va_of(&fl.q[i]);
	fl.deadline = 0;
	return start_run(now);
}

static enum flow_state step_keys(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	int k = __atomic_load_n(&fl.keys_ready, __ATOMIC_ACQUIRE);

	if (k == 0)
		return FL_KEYS;
	if (k > 0 && fl.o.xchg == GEN_XCHG_CM) {
		enum flow_state next = step_cm(now);

		if (next == FL_DONE)
			__atomic_store_n(&fl.run_done, -1, __ATOMIC_RELEASE);
		return next;
	}
	if (k > 0 && fl.o.mix.ud && !fl.q[0].ah) {
		/* datagrams are not held back for ARP: resolve the peer first */
		uint64_t hz = rte_get_tsc_hz();

		if (!fl.deadline)
			fl.deadline = now + (uint64_t)FLOW_ARP_S * hz;
		if (now >= fl.probe_at) { /* ask, and again each half second */
			stk_neigh_probe(lc, ifc, &fl.o.server);
			fl.probe_at = now + hz / 2;
		}
		if (!stk_ip_ready(lc, ifc, &fl.o.server)) {
			if (now < fl.deadline)
				return FL_KEYS;
			snprintf(fl.why, sizeof(fl.why),
				 "the peer's address did not resolve in %d s", FLOW_ARP_S);
		} else if (connect_ud() != 0) {
			snprintf(fl.why, sizeof(fl.why), "the UD QPs could not be moved to RTS");
		}
	} else if (k > 0 && connect_rc() != 0) {
		snprintf(fl.why, sizeof(fl.why), "the QPs could not be moved to RTS");
	}
	if (k < 0 || fl.why[0]) {
		__atomic_store_n(&fl.run_done, -1, __ATOMIC_RELEASE);
		return FL_DONE;
	}
	return start_run(now);
}

/* RUN begins: the clock, the pacing, the banner */
static enum flow_state start_run(uint64_t now)
{
	fl.t_start = now;
	fl.next_tsc = (double)now;
	fl.t_end = now + (uint64_t)fl.o.seconds * rte_get_tsc_hz();
	if (!fl.o.json) {
		char mix[64];

		gen_flow_format_mix(&fl.o.mix, mix, sizeof(mix));
		printf("droce-gen: flow: %u %s QPs connected (path MTU %u, keys: %s), %s for %u s\n",
		       fl.o.qps, fl.o.mix.ud ? "UD" : "RC", fl.mtu, xchg_names[fl.o.xchg], mix,
		       fl.o.seconds);
	}
	return FL_RUN;
}

/* --iters: has every QP posted its messages (or failed)? */
static bool all_posted(void)
{
	for (uint32_t i = 0; i < fl.o.qps; i++)
		if (!fl.q[i].failed && fl.q[i].posted < fl.o.iters)
			return false;
	return true;
}

static enum flow_state step_run(uint64_t now)
{
	poll_cq();
	fl.t_stop = now;
	if (now >= fl.t_end || (fl.o.iters && all_posted())) {
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
	for (uint32_t i = 0; i < fl.o.qps && !fl.o.mix.ud; i++) /* UD: nothing to end */
		if (fl.q[i].up)
			roce_cm_disconnect(fl.q[i].id); /* DREQ: the peer sees the end */
	fl.done_at = now + rte_get_tsc_hz() / 5;
	return FL_DONE;
}

bool gen_flow_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	enum flow_state next;

	switch (fl.state) {
	case FL_KEYS:
		next = step_keys(lc, ifc, now);
		break;
	case FL_RUN:
		next = step_run(now);
		break;
	case FL_DRAIN:
		next = step_drain(now);
		break;
	case FL_DONE:
	default:
		return __atomic_load_n(&fl.closed, __ATOMIC_ACQUIRE) != 0 && now >= fl.done_at;
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
	char mix[64];

	gen_flow_format_mix(&fl.o.mix, mix, sizeof(mix));
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
		if (fl.o.iters && fl.q[i].msgs != fl.o.iters && !fl.why[0])
			snprintf(fl.why, sizeof(fl.why),
				 "QP %u completed %" PRIu64 " of its %u messages (--iters) in %u s",
				 i, fl.q[i].msgs, fl.o.iters, fl.o.seconds);
	}
	if (fl.post_fails && !fl.why[0])
		snprintf(fl.why, sizeof(fl.why),
			 "%" PRIu64 " posts refused by the QPs, the first: %s", fl.post_fails,
			 strerror(-fl.post_err));
	if (fl.why[0])
		fprintf(stderr, "droce-gen: flow: %s\n", fl.why);
	if (fl.state != FL_DONE)
		fprintf(stderr, "droce-gen: flow: stopped in state %s\n",
			flow_state_names[fl.state]);
	if (fl.o.json) {
		printf("{\"mode\":\"flow\",\"verb\":\"%s\",\"ud\":%s,\"keys\":\"%s\",\"qps\":%u,"
		       "\"depth\":%u,\"path_mtu\":%u,\"seconds\":%.3f,\"pps_limit\":%.1f,"
		       "\"gbps_limit\":%.3f,\"iters\":%u,\"per_qp\":[",
		       mix, fl.o.mix.ud ? "true" : "false", xchg_names[fl.o.xchg], fl.o.qps,
		       fl.o.depth, fl.mtu, secs, fl.o.pps, fl.o.gbps, fl.o.iters);
		for (uint32_t i = 0; i < fl.o.qps; i++) {
			const struct flow_qp *q = &fl.q[i];

			printf("%s{\"qpn\":%u,\"peer_qpn\":%u,\"posted\":%" PRIu64
			       ",\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"gbps\":%.4f,"
			       "\"tx_pkts\":%" PRIu64 ",\"acks_rx\":%" PRIu64
			       ",\"nak_seq_rx\":%" PRIu64 ",\"rnr_nak_rx\":%" PRIu64
			       ",\"nak_fatal_rx\":%" PRIu64 ",\"retransmits\":%" PRIu64
			       ",\"timeouts\":%" PRIu64 ",\"errors\":%" PRIu64
			       ",\"flushed\":%" PRIu64 ",\"short_reads\":%" PRIu64
			       ",\"first_error\":\"%s\",\"write\":%" PRIu64 ",\"read\":%" PRIu64
			       ",\"send\":%" PRIu64 ",\"atomic\":%" PRIu64 ",\"write_max\":%u,"
			       "\"peer_qkey\":%u}",
			       i ? "," : "", q->mine.qpn, q->theirs.qpn, q->posted, q->msgs,
			       q->bytes, secs > 0 ? (double)q->bytes * 8 / secs / 1e9 : 0,
			       st[i].tx_pkts, st[i].acks_rx, st[i].nak_seq_rx, st[i].rnr_nak_rx,
			       st[i].nak_fatal_rx, st[i].retransmits, st[i].timeouts, q->errors,
			       q->flushed, q->short_reads,
			       q->errors ? roce_wc_status_str(q->first_error) : "",
			       q->ops[GEN_FLOW_WRITE], q->ops[GEN_FLOW_READ], q->ops[GEN_FLOW_SEND],
			       q->ops[GEN_FLOW_ATOMIC], q->write_max, fl.o.mix.ud ? q->qkey : 0);
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
		for (uint32_t i = 0;
		     i < fl.o.qps && fl.o.mix.wsum != fl.o.mix.weight[GEN_FLOW_WRITE] &&
		     fl.o.mix.wsum != fl.o.mix.weight[GEN_FLOW_READ];
		     i++)
			printf("droce-gen: qp %u: %" PRIu64 " WRITEs (the largest %u B), %" PRIu64
			       " READs, %" PRIu64 " SENDs, %" PRIu64 " FETCH_ADDs\n",
			       i, fl.q[i].ops[GEN_FLOW_WRITE], fl.q[i].write_max,
			       fl.q[i].ops[GEN_FLOW_READ], fl.q[i].ops[GEN_FLOW_SEND],
			       fl.q[i].ops[GEN_FLOW_ATOMIC]);
		printf("droce-gen: flow: %s, %u QPs, %" PRIu64 " messages, %" PRIu64
		       " bytes in %.3f s: %.3f Gbit/s, %" PRIu64 " error completions\n",
		       mix, fl.o.qps, msgs, bytes, secs,
		       secs > 0 ? (double)bytes * 8 / secs / 1e9 : 0, errors);
	}
	fflush(stdout);
	return fl.why[0] || errors || !all_ran || fl.state != FL_DONE ? 1 : 0;
}
