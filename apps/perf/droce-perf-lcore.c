/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf-lcore.c - the lcore side of droce-perf: everything that touches the verbs or
 * the CM, as a poll hook that never blocks.
 *
 * Each call: drain the CM's events (accept, establish, retry, disconnect), serve the comm QP
 * (-R: receives into a FIFO the control thread reads, its queued message out as a SEND),
 * then step the command the control thread handed over (perf_lcore_cmd()) until its state
 * stops changing. Commands: connect the comm QP or the test QPs through the CM, bring the
 * test QPs to RTS from the exchanged keys (and resolve the peer's MAC), post receives, run
 * the traffic of one message size, check data, and release the connections.
 *
 * The traffic is perftest's (perftest_resources.c):
 *   BW client (run_iter_bw): up to -t WRs outstanding per QP, every -Q'th and the last
 *     signalled; local and remote addresses step by INC(size) through the page-sized cycle
 *     buffer when size <= page/2; atomics are 8 bytes with FETCH_AND_ADD adding 1 and
 *     CMP_AND_SWAP comparing with 0 and swapping in 0; a time stamp per posted and completed
 *     WR for the peak unless -N (or more than 20000 iterations, or -D);
 *   send_bw server (run_iter_bw_server): -r receives per QP, reposted while more are due,
 *     timed from the first receive;
 *   write_lat (run_iter_lat_write): the server writes first; each side waits until the last
 *     byte of its buffer holds the iteration number, then writes the peer's;
 *   read_lat (run_iter_lat): the client READs and waits, -n times;
 *   send_lat (run_iter_lat_send): the client sends first; each side receives, then sends.
 * In duration mode (-D) the run has perftest's phases: a margin, the sample window (counted),
 * a margin, end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "droce-perf.h"
#include "stk_stack.h"

#define LC_STALL_MS 60000   /* no progress for this long fails the run (perftest: 60 s) */
#define LC_RESOLVE_MS 5000  /* the peer's MAC */
#define LC_CM_TEST_MS 30000 /* passive: the test connections after the first handshake */
#define LC_CM_COMM_MS 30000 /* active: the comm connection (the server may be starting) */
#define LC_CM_RETRY_MS 100  /* perftest's rdma_cm_client_connection(): 10 x 100 ms */
#define LC_CM_TEST_TRIES 10
#define LC_CM_COMM_RETRY_MS 200
#define LC_CM_CLOSE_MS 2000 /* DREQ/DREP of the test connections */
#define LC_LINGER_MS 300    /* the last ACKs and DREQs leave before the port stops */
#define LC_BURST 32

/* X(name): the lcore's command states */
#define LC_STATE_LIST(X)                                                                           \
	X(IDLE)	      /**< no command: only CM events and the comm QP are served */                \
	X(CM_CONNECT) /**< -R active: REQs out, waiting for ESTABLISHED (REJECTED: retry) */       \
	X(CM_WAIT)    /**< -R passive: waiting until the requests are accepted */                  \
	X(RESOLVE)    /**< waiting for the peer's MAC before traffic */                            \
	X(RUN)	      /**< the traffic of one message size */                                      \
	X(CM_CLOSE)   /**< -R: DREQ/DREP of the test connections, then release */                  \
	X(FAILED)     /**< the command failed: its error goes back to the control thread */        \
	X(DONE)	      /**< the command succeeded */

#define LC_STATE_ENUM_(n) LC_##n,
enum lc_state { LC_STATE_LIST(LC_STATE_ENUM_) LC_NUM_STATES };
#undef LC_STATE_ENUM_

/* perftest's DurationStates */
enum dur_phase { DUR_START, DUR_SAMPLE, DUR_STOP_SAMPLE, DUR_END };

/* the steps of one latency iteration */
enum lat_phase {
	LAT_TOP, /**< decide: receive first, or send */
	LAT_RX,	 /**< waiting for the peer's message (or the polled byte) */
	LAT_TX,	 /**< post ours */
	LAT_CQ,	 /**< waiting for our send's completion */
};

/** A connection the CM makes for us: [0] the comm QP, [1 + i] test QP i. */
struct lc_conn {
	struct roce_cm_id *id;
	struct roce_qp *qp;
	bool connecting;   /**< active side: REQ out */
	bool established;  /**< ESTABLISHED, or (passive) accepted */
	bool disconnected; /**< DISCONNECTED (or given up) */
	unsigned tries;
	uint64_t retry_at; /**< a new REQ is due at this TSC (0: none) */
};

/** One run's counters (perftest's scnt/ccnt/rcnt). */
struct lc_traffic {
	uint64_t scnt[PERF_MAX_QPS];	  /**< WRs posted per QP */
	uint64_t ccnt[PERF_MAX_QPS];	  /**< WRs completed per QP */
	uint64_t rcnt_qp[PERF_MAX_QPS];	  /**< receives completed per QP */
	uint64_t posted_qp[PERF_MAX_QPS]; /**< receives posted per QP */
	uint64_t laddr[PERF_MAX_QPS];	  /**< next local address per QP */
	uint64_t raddr[PERF_MAX_QPS];	  /**< next remote address per QP */
	uint64_t totscnt, totccnt, rcnt, n;
	uint64_t inc, slots;
	enum lat_phase lat;
	bool first_rx;
	enum dur_phase dur;
	uint64_t dur_next;
	uint64_t last_progress;
};

static struct {
	enum lc_state state;
	uint64_t state_cnt[LC_NUM_STATES];
	enum perf_cmd cmd;
	uint64_t deadline;
	uint64_t probe_at;
	uint64_t linger_until;
	struct stk_lcore *lc;
	struct lc_conn conn[1 + PERF_MAX_QPS];
	uint32_t accepted; /**< passive: test connections accepted */
	bool tx_busy;
	uint32_t tx_seq;
	struct lc_traffic t;
} lc;

static void set_state(enum lc_state s)
{
	if (lc.state != s)
		lc.state_cnt[s]++;
	lc.state = s;
}

static enum lc_state fail(const char *fmt, ...) __rte_format_printf(1, 2);

static enum lc_state fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(perf.run.why, sizeof(perf.run.why), fmt, ap);
	va_end(ap);
	return LC_FAILED;
}

static uint64_t tsc_hz(void)
{
	return rte_get_tsc_hz();
}

/* ------------------------------------------------------------------ the comm QP */

static int post_comm_recvs(void)
{
	for (uint32_t s = 0; s < PERF_COMM_RX; s++) {
		struct roce_sge sge = {.addr = (uintptr_t)(perf.comm_buf + s * PERF_COMM_MSG),
				       .length = PERF_COMM_MSG,
				       .lkey = perf.comm_mr->lkey};
		struct roce_recv_wr wr = {.wr_id = s, .sg_list = &sge, .num_sge = 1}, *bad;

		if (roce_post_recv(perf.comm_qp, &wr, &bad) != 0)
			return -EIO;
	}
	return 0;
}

static void comm_down(void)
{
	__atomic_store_n(&perf.comm_up, -1, __ATOMIC_RELEASE);
}

/* Receives go to the FIFO the control thread reads (and the buffer is posted again); the
 * message the control thread queued goes out as one SEND. */
static void serve_comm(void)
{
	struct roce_wc wc[8];
	uint32_t req;
	int n;

	if (!perf.comm_qp || __atomic_load_n(&perf.comm_up, __ATOMIC_RELAXED) == 0)
		return;
	n = roce_poll_cq(perf.comm_cq, 8, wc);
	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id == PERF_COMM_RX) { /* our SEND */
			lc.tx_busy = false;
			__atomic_store_n(&perf.tx_rc, wc[i].status == ROCE_WC_SUCCESS ? 0 : -EIO,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&perf.tx_done, lc.tx_seq, __ATOMIC_RELEASE);
			continue;
		}
		if (wc[i].status != ROCE_WC_SUCCESS || wc[i].wr_id >= PERF_COMM_RX) {
			comm_down();
			continue;
		}
		{
			uint32_t head = perf.rx_head, s = (uint32_t)wc[i].wr_id;
			struct roce_sge sge = {
				.addr = (uintptr_t)(perf.comm_buf + s * PERF_COMM_MSG),
				.length = PERF_COMM_MSG,
				.lkey = perf.comm_mr->lkey};
			struct roce_recv_wr wr = {.wr_id = s, .sg_list = &sge, .num_sge = 1}, *bad;

			/* perftest's exchange is lock-step: one message each way at a time */
			if (head - __atomic_load_n(&perf.rx_tail, __ATOMIC_ACQUIRE) >=
			    PERF_COMM_RX) {
				comm_down();
				continue;
			}
			perf.rx[head % PERF_COMM_RX].len = wc[i].byte_len;
			memcpy(perf.rx[head % PERF_COMM_RX].data, perf.comm_buf + s * PERF_COMM_MSG,
			       RTE_MIN(wc[i].byte_len, (uint32_t)PERF_COMM_MSG));
			__atomic_store_n(&perf.rx_head, head + 1, __ATOMIC_RELEASE);
			if (roce_post_recv(perf.comm_qp, &wr, &bad) != 0)
				comm_down();
		}
	}
	req = __atomic_load_n(&perf.tx_req, __ATOMIC_ACQUIRE);
	if (!lc.tx_busy && req != __atomic_load_n(&perf.tx_done, __ATOMIC_RELAXED)) {
		uint8_t *slot = perf.comm_buf + PERF_COMM_RX * PERF_COMM_MSG;
		struct roce_sge sge = {
			.addr = (uintptr_t)slot, .length = perf.tx_len, .lkey = perf.comm_mr->lkey};
		struct roce_send_wr wr, *bad;

		memcpy(slot, perf.tx_data, perf.tx_len);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = PERF_COMM_RX;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ROCE_WR_SEND;
		wr.send_flags = ROCE_SEND_SIGNALED;
		lc.tx_seq = req;
		if (roce_post_send(perf.comm_qp, &wr, &bad) != 0) {
			__atomic_store_n(&perf.tx_rc, -EIO, __ATOMIC_RELAXED);
			__atomic_store_n(&perf.tx_done, req, __ATOMIC_RELEASE);
		} else {
			lc.tx_busy = true;
		}
	}
}

/* ------------------------------------------------------------------ rdma_cm */

/* rdma_client_connect() / rdma_cm_route_handler() / rdma_cm_connection_request_handler():
 * the READ/atomic depth only for those tests, retries 7 (perftest's -retry_count default),
 * RNR retries 7, and the RNR timer perftest sets after accepting (MIN_RNR_TIMER 12) */
static void conn_param(struct roce_cm_conn_param *cp, bool test)
{
	memset(cp, 0, sizeof(*cp));
	if (test && (perf.p.verb == PERF_VERB_READ || perf.p.verb == PERF_VERB_ATOMIC)) {
		cp->responder_resources = (uint8_t)perf.p.out_reads;
		cp->initiator_depth = (uint8_t)perf.p.out_reads;
	}
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	cp->min_rnr_timer = 12;
}

static struct lc_conn *conn_of(const struct roce_cm_id *id)
{
	for (uint32_t i = 0; i <= perf.p.num_qps; i++)
		if (lc.conn[i].id && lc.conn[i].id == id)
			return &lc.conn[i];
	return NULL;
}

static int qp_reset(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE);
}

/* active side: a new identifier and a REQ for connection @p c */
static int cm_start(struct lc_conn *c, bool test)
{
	struct roce_cm_conn_param cp;
	int rc;

	conn_param(&cp, test);
	c->id = roce_cm_create_id(perf.cm, ROCE_CM_PS_TCP, NULL);
	if (!c->id)
		return -ENOSPC;
	rc = roce_cm_connect(c->id, &perf.peer_ip, perf.p.port, c->qp, &cp);
	if (rc) {
		roce_cm_destroy_id(c->id);
		c->id = NULL;
		return rc;
	}
	c->connecting = true;
	c->tries++;
	c->retry_at = 0;
	return 0;
}

/* a REQ was refused (perftest's server listens only once it is ready): try again later */
static void cm_retry(struct lc_conn *c, uint64_t now, int status)
{
	roce_cm_destroy_id(c->id);
	c->id = NULL;
	c->connecting = false;
	if (qp_reset(c->qp) != 0) {
		c->disconnected = true;
		return;
	}
	c->retry_at = now + perf_ms_to_tsc(c == &lc.conn[0] ? LC_CM_COMM_RETRY_MS : LC_CM_RETRY_MS);
	if (c != &lc.conn[0] && c->tries >= LC_CM_TEST_TRIES) {
		snprintf(perf.run.why, sizeof(perf.run.why),
			 "Failed to connect RDMA CM client, tried %d times (last status %d).",
			 LC_CM_TEST_TRIES, status);
		c->disconnected = true;
	}
}

/* passive side: the first request is the comm connection, the next num_qps the tests */
static void on_connect_request(struct roce_cm_id *id)
{
	struct roce_cm_conn_param cp;
	struct lc_conn *c = NULL;
	bool test = false;

	/* the client's test REQs may come before the control thread asks for them (it sends
	 * them as soon as our handshake message arrives): accept them whenever they come */
	if (!perf.p.servername && !lc.conn[0].id) {
		c = &lc.conn[0];
		c->qp = perf.comm_qp;
	} else if (!perf.p.servername && lc.accepted < perf.p.num_qps) {
		c = &lc.conn[1 + lc.accepted];
		c->qp = perf.qp[lc.accepted];
		test = true;
	}
	if (!c) {
		roce_cm_reject(id, NULL, 0);
		roce_cm_destroy_id(id);
		return;
	}
	conn_param(&cp, test);
	if (roce_cm_accept(id, c->qp, &cp) != 0) {
		roce_cm_reject(id, NULL, 0);
		roce_cm_destroy_id(id);
		return;
	}
	c->id = id;
	c->established = true;
	if (test) {
		lc.accepted++;
	} else if (post_comm_recvs() == 0) {
		__atomic_store_n(&perf.comm_up, 1, __ATOMIC_RELEASE);
	} else {
		comm_down();
	}
}

static void on_cm_event(const struct roce_cm_event *ev, uint64_t now)
{
	struct lc_conn *c;

	if (ev->event == ROCE_CM_EVENT_CONNECT_REQUEST) {
		on_connect_request(ev->id);
		return;
	}
	c = conn_of(ev->id);
	if (!c)
		return;
	switch (ev->event) {
	case ROCE_CM_EVENT_ESTABLISHED:
		c->established = true;
		c->connecting = false;
		if (c == &lc.conn[0] && perf.p.servername) {
			if (post_comm_recvs() == 0)
				__atomic_store_n(&perf.comm_up, 1, __ATOMIC_RELEASE);
			else
				comm_down();
		}
		break;
	case ROCE_CM_EVENT_REJECTED:
	case ROCE_CM_EVENT_UNREACHABLE:
		if (c->connecting && !c->established) {
			cm_retry(c, now, ev->status);
			break;
		}
		c->disconnected = true;
		if (c == &lc.conn[0])
			comm_down();
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		if (c == &lc.conn[0])
			comm_down();
		break;
	default:
		break;
	}
}

static void drain_cm(uint64_t now)
{
	struct roce_cm_event ev;

	if (!perf.cm)
		return;
	while (roce_cm_get_event(perf.cm, &ev) == 0)
		on_cm_event(&ev, now);
}

static enum lc_state step_cm_connect(uint64_t now)
{
	uint32_t first = lc.cmd == PERF_CMD_CM_COMM ? 0 : 1;
	uint32_t last = lc.cmd == PERF_CMD_CM_COMM ? 0 : perf.p.num_qps, up = 0;

	for (uint32_t i = first; i <= last; i++) {
		struct lc_conn *c = &lc.conn[i];

		if (c->disconnected)
			return perf.run.why[0] ? LC_FAILED
					       : fail("the rdma_cm connection %u went away", i);
		if (c->established) {
			up++;
			continue;
		}
		if (c->retry_at && now >= c->retry_at && cm_start(c, i > 0) != 0)
			return fail("rdma_connect failed");
	}
	if (up == last - first + 1)
		return LC_DONE;
	if (now > lc.deadline)
		return fail("no rdma_cm connection to %s:%u (the server does not answer or "
			    "rejects)",
			    perf.p.servername, perf.p.port);
	return LC_CM_CONNECT;
}

static enum lc_state step_cm_wait(uint64_t now)
{
	if (lc.cmd == PERF_CMD_CM_COMM ? lc.conn[0].established : lc.accepted == perf.p.num_qps)
		return LC_DONE;
	if (lc.deadline && now > lc.deadline)
		return fail("the client did not connect its rdma_cm QPs");
	return LC_CM_WAIT;
}

static void release_conns(void)
{
	for (uint32_t i = 0; i <= PERF_MAX_QPS; i++) {
		if (lc.conn[i].id)
			roce_cm_destroy_id(lc.conn[i].id);
		lc.conn[i].id = NULL;
	}
	if (perf.listen_id) {
		roce_cm_destroy_id(perf.listen_id);
		perf.listen_id = NULL;
	}
}

/* perftest's client disconnects its test connections and waits for DISCONNECTED
 * (rdma_cm_disconnect_nodes()); its server does not. Either way the comm connection ends
 * with the process: destroying it sends DREQ. */
static enum lc_state step_cm_close(uint64_t now)
{
	for (uint32_t i = 1; i <= perf.p.num_qps; i++)
		if (lc.conn[i].id && !lc.conn[i].disconnected && now < lc.deadline)
			return LC_CM_CLOSE;
	release_conns();
	comm_down();
	return LC_DONE;
}

/* ------------------------------------------------------------------ QP bring-up (TCP) */

/* ctx_connect(): RTR from the peer's keys, then RTS */
static int connect_qp(uint32_t i)
{
	const struct perf_dest *rem = &perf.rem_dest[i];
	struct roce_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = perf.p.curr_mtu;
	a.dest_qp_num = rem->qpn;
	a.rq_psn = rem->psn;
	a.max_dest_rd_atomic = (uint8_t)perf.p.out_reads;
	a.min_rnr_timer = 12; /* MIN_RNR_TIMER */
	a.ah_attr.dgid_ip = perf.peer_ip;
	if (perf.my_ip.family == perf.peer_ip.family)
		a.ah_attr.sgid_ip = perf.my_ip;
	/* perftest asks for hop limit 255; for RoCE ib_core takes the route's instead and
	 * rxe sends 64: so do we (0 = 64) */
	a.ah_attr.hop_limit = 0;
	a.ah_attr.pcp = (uint8_t)(perf.p.sl & 7);
	if (perf.p.sl)
		a.ah_attr.flags |= ROCE_PATH_PCP;
	rc = roce_modify_qp(perf.qp[i], &a,
			    ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				    ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				    ROCE_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = perf.my_dest[i].psn;
	a.timeout = perf.p.qp_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = (uint8_t)RTE_MIN(rem->out_reads, (uint32_t)ROCE_MAX_RD_ATOMIC);
	return roce_modify_qp(perf.qp[i], &a,
			      ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

static enum lc_state step_resolve(uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(perf.p.iface);
	const struct stk_neigh *n;

	if (!stk_iface_on_link(ifc, &perf.peer_ip))
		return LC_DONE; /* via a gateway: the transport resolves it */
	n = stk_neigh_lookup(lc.lc->neigh, ifc->idx, &perf.peer_ip);
	if (n && n->state != STK_NEIGH_INCOMPLETE)
		return LC_DONE;
	if (now >= lc.deadline)
		return fail("the peer does not answer ARP/ND");
	if (now >= lc.probe_at) {
		stk_neigh_probe(lc.lc, ifc, &perf.peer_ip);
		lc.probe_at = now + perf_ms_to_tsc(200);
	}
	return LC_RESOLVE;
}

/* ------------------------------------------------------------------ receives */

static int post_recv_at(uint32_t q, uint64_t addr)
{
	struct roce_sge sge = {
		.addr = addr, .length = (uint32_t)perf.p.size, .lkey = perf.mr->lkey};
	struct roce_recv_wr wr = {.wr_id = q, .sg_list = &sge, .num_sge = 1}, *bad;

	return roce_post_recv(perf.qp[q], &wr, &bad);
}

/* where receive number @p r of QP @p q lands: BW tests cycle through the slots, latency
 * tests use one place (ctx_set_recv_wqes()) */
static uint64_t recv_addr(uint32_t q, uint64_t r)
{
	uint64_t base = (uintptr_t)perf_recv_area(q);

	if (!perf.p.bw)
		return base;
	return base + (r % lc.t.slots) * lc.t.inc;
}

/* ctx_set_recv_wqes(): rx_depth receives per QP for the current size */
static enum lc_state post_recvs(void)
{
	lc.t.inc = perf_inc(perf.p.size);
	lc.t.slots = perf_slots(perf.p.size);
	for (uint32_t q = 0; q < perf.p.num_qps; q++) {
		lc.t.posted_qp[q] = 0;
		lc.t.rcnt_qp[q] = 0;
		for (uint32_t j = 0; j < perf.p.rx_depth; j++) {
			if (post_recv_at(q, recv_addr(q, j)) != 0)
				return fail("Couldn't post recv Qp = %u: counter=%u", q, j);
			lc.t.posted_qp[q]++;
		}
	}
	return LC_DONE;
}

/* --droce-verify of a received message: the sender sent its pattern from the slot of the
 * same number */
static void check_received(uint32_t q, uint64_t r, uint32_t byte_len)
{
	const uint8_t *got = (const uint8_t *)(uintptr_t)recv_addr(q, r);
	uint64_t base = perf.p.bw ? (r % lc.t.slots) * lc.t.inc : 0;

	if (!perf.p.verify)
		return;
	if (byte_len != perf.p.size) {
		perf.run.mismatches += perf.p.size;
		return;
	}
	for (uint64_t k = 0; k < perf.p.size; k++)
		perf.run.mismatches += got[k] != perf_pattern(q, base + k);
	perf.run.verified += perf.p.size;
}

/* ------------------------------------------------------------------ duration */

static void dur_begin(uint64_t now)
{
	lc.t.dur = DUR_START;
	lc.t.dur_next = now + (uint64_t)perf.p.margin * tsc_hz();
}

/* catch_alarm(): margin, sample window (its edges are the time stamps), margin, end */
static void dur_tick(uint64_t now)
{
	while (lc.t.dur != DUR_END && now >= lc.t.dur_next) {
		switch (lc.t.dur) {
		case DUR_START:
			lc.t.dur = DUR_SAMPLE;
			perf.run.tposted[0] = now;
			lc.t.dur_next =
				now + (uint64_t)(perf.p.duration - 2 * perf.p.margin) * tsc_hz();
			break;
		case DUR_SAMPLE:
			lc.t.dur = DUR_STOP_SAMPLE;
			perf.run.tcompleted[0] = now;
			lc.t.dur_next = now + (uint64_t)perf.p.margin * tsc_hz();
			break;
		default:
			lc.t.dur = DUR_END;
			break;
		}
	}
}

static bool dur_sampling(void)
{
	return perf.p.duration_mode && lc.t.dur == DUR_SAMPLE;
}

static bool dur_ended(void)
{
	return perf.p.duration_mode && lc.t.dur == DUR_END;
}

/* ------------------------------------------------------------------ traffic */

static enum lc_state wc_error(const struct roce_wc *wc, const char *side)
{
	return fail(" Completion with error at %s:\n Failed status %d: wr_id %d syndrom 0x%x (%s)\n"
		    " scnt=%lu, ccnt=%lu, rcnt=%lu",
		    side, (int)wc->status, (int)(wc->wr_id & 0xffff), wc->vendor_err,
		    roce_wc_status_str(wc->status), (unsigned long)lc.t.totscnt,
		    (unsigned long)lc.t.totccnt, (unsigned long)lc.t.rcnt);
}

/* One WR of the BW client or a latency sender, from (laddr, raddr) of QP @p q. */
static int post_one(uint32_t q, bool signaled)
{
	const struct perf_params *p = &perf.p;
	struct roce_sge sge = {
		.addr = lc.t.laddr[q], .length = (uint32_t)p->size, .lkey = perf.mr->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	/* the WR's number within its QP rides in wr_id: a completion tells how many are done */
	wr.wr_id = ((lc.t.scnt[q] + 1) << 16) | q;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = signaled ? ROCE_SEND_SIGNALED : 0;
	switch (p->verb) {
	case PERF_VERB_SEND:
		wr.opcode = ROCE_WR_SEND;
		break;
	case PERF_VERB_WRITE:
		wr.opcode = ROCE_WR_RDMA_WRITE;
		break;
	case PERF_VERB_READ:
		wr.opcode = ROCE_WR_RDMA_READ;
		break;
	case PERF_VERB_ATOMIC:
		wr.opcode = p->atomic_type == PERF_FETCH_AND_ADD ? ROCE_WR_ATOMIC_FETCH_AND_ADD
								 : ROCE_WR_ATOMIC_CMP_AND_SWP;
		break;
	}
	if (p->verb == PERF_VERB_ATOMIC) {
		wr.wr.atomic.remote_addr = lc.t.raddr[q];
		wr.wr.atomic.rkey = perf.rem_dest[q].rkey;
		/* ATOMIC_ADD_VALUE 1; CMP_AND_SWAP compares with 0, ATOMIC_SWAP_VALUE 0 */
		wr.wr.atomic.compare_add = p->atomic_type == PERF_FETCH_AND_ADD ? 1 : 0;
		wr.wr.atomic.swap = 0;
	} else if (p->verb != PERF_VERB_SEND) {
		wr.wr.rdma.remote_addr = lc.t.raddr[q];
		wr.wr.rdma.rkey = perf.rem_dest[q].rkey;
	}
	if ((p->verb == PERF_VERB_SEND || p->verb == PERF_VERB_WRITE) &&
	    p->size <= (uint64_t)p->inline_size)
		wr.send_flags |= ROCE_SEND_INLINE;
	return roce_post_send(perf.qp[q], &wr, &bad);
}

/* increase_loc_addr()/increase_rem_addr(): the next slot of the cycle buffer */
static void advance_addrs(uint32_t q)
{
	if (perf.p.size > perf.p.cycle_buffer / 2)
		return;
	lc.t.laddr[q] += lc.t.inc;
	lc.t.raddr[q] += lc.t.inc;
	if ((lc.t.scnt[q] + 1) % lc.t.slots == 0) {
		lc.t.laddr[q] = (uintptr_t)perf_local_area(q);
		lc.t.raddr[q] = perf.rem_dest[q].vaddr;
	}
}

static void init_run(uint64_t now)
{
	const struct perf_params *p = &perf.p;

	memset(lc.t.scnt, 0, sizeof(lc.t.scnt));
	memset(lc.t.ccnt, 0, sizeof(lc.t.ccnt));
	lc.t.totscnt = lc.t.totccnt = lc.t.rcnt = 0;
	lc.t.inc = perf_inc(p->size);
	lc.t.slots = perf_slots(p->size);
	lc.t.n = (uint64_t)p->iters * p->num_qps;
	lc.t.lat = LAT_TOP;
	lc.t.first_rx = true;
	lc.t.last_progress = now;
	perf.run.iters = 0;
	for (uint32_t q = 0; q < p->num_qps; q++) {
		lc.t.laddr[q] = (uintptr_t)perf_local_area(q);
		lc.t.raddr[q] = perf.rem_dest[q].vaddr;
		lc.t.rcnt_qp[q] = 0;
	}
	if (p->duration_mode)
		dur_begin(now);
	else if (p->bw && p->no_peak)
		perf.run.tposted[0] = rte_rdtsc();
}

/* run_iter_bw(): the BW client */
static enum lc_state run_bw_client(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	struct roce_wc wc[LC_BURST];
	int n;

	if (p->duration_mode)
		dur_tick(now);
	for (uint32_t q = 0; q < p->num_qps; q++) {
		for (int b = 0; b < LC_BURST; b++) {
			uint64_t s = lc.t.scnt[q];
			bool sig;

			if ((p->duration_mode ? dur_ended() : s >= p->iters) ||
			    s - lc.t.ccnt[q] >= p->tx_depth)
				break;
			sig = (s + 1) % p->cq_mod == 0 || (!p->duration_mode && s == p->iters - 1);
			if (!p->no_peak)
				perf.run.tposted[lc.t.totscnt] = rte_rdtsc();
			if (post_one(q, sig) != 0)
				return fail("Couldn't post send: qp %u scnt=%lu", q,
					    (unsigned long)s);
			advance_addrs(q);
			lc.t.scnt[q]++;
			lc.t.totscnt++;
		}
	}
	n = roce_poll_cq(perf.send_cq, LC_BURST, wc);
	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)(wc[i].wr_id & 0xffff);
		uint64_t k = wc[i].wr_id >> 16, covered;

		if (wc[i].status != ROCE_WC_SUCCESS)
			return wc_error(&wc[i], "client");
		if (q >= p->num_qps || k < lc.t.ccnt[q])
			return fail("completion for an unknown WR (wr_id %#lx)",
				    (unsigned long)wc[i].wr_id);
		covered = k - lc.t.ccnt[q];
		lc.t.ccnt[q] = k;
		if (!p->no_peak)
			for (uint64_t j = lc.t.totccnt; j < lc.t.totccnt + covered && j < lc.t.n;
			     j++)
				perf.run.tcompleted[j] = now;
		lc.t.totccnt += covered;
		if (dur_sampling())
			perf.run.iters += covered;
		lc.t.last_progress = now;
	}
	if (p->duration_mode ? dur_ended() : lc.t.totccnt >= lc.t.n) {
		if (!p->duration_mode && p->no_peak)
			perf.run.tcompleted[0] = rte_rdtsc();
		return LC_DONE;
	}
	return LC_RUN;
}

/* run_iter_bw_server(): the send_bw receiver */
static enum lc_state run_bw_recv(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	struct roce_wc wc[LC_BURST];
	int n;

	if (p->duration_mode && !lc.t.first_rx)
		dur_tick(now);
	n = roce_poll_cq(perf.recv_cq, LC_BURST, wc);
	if (n > 0 && lc.t.first_rx) {
		lc.t.first_rx = false;
		if (p->duration_mode)
			dur_begin(now);
		else
			perf.run.tposted[0] = rte_rdtsc();
	}
	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)wc[i].wr_id;
		uint64_t r;

		if (wc[i].status != ROCE_WC_SUCCESS)
			return wc_error(&wc[i], "server");
		if (q >= p->num_qps)
			return fail("receive completion for an unknown QP");
		r = lc.t.rcnt_qp[q]++;
		lc.t.rcnt++;
		if (dur_sampling())
			perf.run.iters++;
		check_received(q, r, wc[i].byte_len);
		if (p->duration_mode || lc.t.posted_qp[q] + 1 <= p->iters) {
			if (post_recv_at(q, recv_addr(q, lc.t.posted_qp[q])) != 0)
				return fail("Couldn't post recv Qp=%u rcnt=%lu", q,
					    (unsigned long)lc.t.rcnt_qp[q]);
			lc.t.posted_qp[q]++;
		}
		lc.t.last_progress = now;
	}
	if (p->duration_mode ? dur_ended() : lc.t.rcnt >= lc.t.n) {
		if (!p->duration_mode)
			perf.run.tcompleted[0] = rte_rdtsc();
		return LC_DONE;
	}
	return LC_RUN;
}

/* wait for one completion of our latency send: 1 done, 0 not yet, <0 failed */
static int lat_send_done(enum lc_state *err)
{
	struct roce_wc wc;
	int n = roce_poll_cq(perf.send_cq, 1, &wc);

	if (n <= 0)
		return n;
	if (wc.status != ROCE_WC_SUCCESS) {
		*err = wc_error(&wc, perf.p.servername ? "client" : "server");
		return -1;
	}
	return 1;
}

/* run_iter_lat_write(): the server writes first; each side polls the last byte of its
 * buffer for the iteration number, then writes the peer's */
static enum lc_state run_lat_write(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	volatile uint8_t *poll_buf = perf_remote_area(0) + p->size - 1;
	uint8_t *post_buf = perf_local_area(0) + p->size - 1;
	bool server = !p->servername;
	enum lc_state err = LC_FAILED;

	if (p->duration_mode)
		dur_tick(now);
	for (;;) {
		switch (lc.t.lat) {
		case LAT_TOP:
			if (!(lc.t.scnt[0] < p->iters || lc.t.ccnt[0] < p->iters ||
			      lc.t.rcnt < p->iters || (p->duration_mode && !dur_ended())))
				goto done;
			if ((lc.t.rcnt < p->iters || p->duration_mode) &&
			    !(lc.t.scnt[0] < 1 && server)) {
				lc.t.rcnt++;
				lc.t.lat = LAT_RX;
			} else {
				lc.t.lat = LAT_TX;
			}
			break;
		case LAT_RX:
			if (*poll_buf != (uint8_t)lc.t.rcnt && !dur_ended())
				goto wait;
			lc.t.last_progress = now;
			lc.t.lat = LAT_TX;
			break;
		case LAT_TX:
			if (lc.t.scnt[0] < p->iters || p->duration_mode) {
				if (!p->duration_mode)
					perf.run.tposted[lc.t.scnt[0]] = rte_rdtsc();
				*post_buf = (uint8_t)(lc.t.scnt[0] + 1);
				if (post_one(0, true) != 0)
					return fail("Couldn't post send: scnt=%lu",
						    (unsigned long)lc.t.scnt[0]);
				lc.t.scnt[0]++;
			}
			if (dur_ended())
				goto done;
			lc.t.lat = LAT_CQ;
			break;
		case LAT_CQ:
			if (lc.t.ccnt[0] < p->iters || p->duration_mode) {
				int d = lat_send_done(&err);

				if (d < 0)
					return err;
				if (d == 0)
					goto wait;
				lc.t.ccnt[0]++;
				if (dur_sampling())
					perf.run.iters++;
				lc.t.last_progress = now;
			}
			lc.t.lat = LAT_TOP;
			break;
		}
	}
wait:
	return LC_RUN;
done:
	/* the next size's payload covers this one's counter byte: with --droce-verify it must
	 * be the pattern again */
	if (p->verify)
		*post_buf = perf_pattern(0, p->size - 1);
	return LC_DONE;
}

/* run_iter_lat(): the read_lat client */
static enum lc_state run_lat_read(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	enum lc_state err = LC_FAILED;

	if (p->duration_mode)
		dur_tick(now);
	for (;;) {
		switch (lc.t.lat) {
		case LAT_TOP:
		case LAT_RX:
		case LAT_TX:
			if (!(lc.t.scnt[0] < p->iters || (p->duration_mode && !dur_ended())))
				return LC_DONE;
			if (!p->duration_mode)
				perf.run.tposted[lc.t.scnt[0]] = rte_rdtsc();
			if (post_one(0, true) != 0)
				return fail("Couldn't post send: scnt=%lu",
					    (unsigned long)lc.t.scnt[0]);
			lc.t.scnt[0]++;
			if (dur_ended())
				return LC_DONE;
			lc.t.lat = LAT_CQ;
			break;
		case LAT_CQ: {
			int d = lat_send_done(&err);

			if (d < 0)
				return err;
			if (d == 0)
				return LC_RUN;
			if (dur_sampling())
				perf.run.iters++;
			lc.t.last_progress = now;
			lc.t.lat = LAT_TX;
			break;
		}
		}
	}
}

/* run_iter_lat_send(): the client sends first; each side receives, then sends */
static enum lc_state run_lat_send(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	bool client = p->servername != NULL;
	enum lc_state err = LC_FAILED;

	if (p->duration_mode && !lc.t.first_rx)
		dur_tick(now);
	for (;;) {
		switch (lc.t.lat) {
		case LAT_TOP:
			if (!(lc.t.scnt[0] < p->iters || lc.t.rcnt < p->iters ||
			      (p->duration_mode && !dur_ended())))
				return LC_DONE;
			if ((lc.t.rcnt < p->iters || p->duration_mode) &&
			    !(lc.t.scnt[0] < 1 && client))
				lc.t.lat = LAT_RX;
			else
				lc.t.lat = LAT_TX;
			break;
		case LAT_RX: {
			struct roce_wc wc;
			int n = roce_poll_cq(perf.recv_cq, 1, &wc);

			if (n <= 0) {
				if (dur_ended()) {
					lc.t.lat = LAT_TX;
					break;
				}
				return LC_RUN;
			}
			if (lc.t.first_rx) {
				lc.t.first_rx = false;
				if (p->duration_mode)
					dur_begin(now);
			}
			if (wc.status != ROCE_WC_SUCCESS)
				return wc_error(&wc, client ? "client" : "server");
			check_received(0, lc.t.rcnt, wc.byte_len);
			lc.t.rcnt++;
			if (dur_sampling())
				perf.run.iters++;
			if (p->duration_mode || lc.t.rcnt + p->rx_depth <= p->iters) {
				if (post_recv_at(0, recv_addr(0, 0)) != 0)
					return fail("Couldn't post recv: rcnt=%lu",
						    (unsigned long)lc.t.rcnt);
			}
			lc.t.last_progress = now;
			lc.t.lat = LAT_TX;
			break;
		}
		case LAT_TX: {
			bool sig;

			if (!(lc.t.scnt[0] < p->iters || (p->duration_mode && !dur_ended()))) {
				lc.t.lat = LAT_TOP;
				break;
			}
			if (!p->duration_mode)
				perf.run.tposted[lc.t.scnt[0]] = rte_rdtsc();
			sig = (lc.t.scnt[0] + 1) % p->cq_mod == 0 ||
			      (!p->duration_mode && lc.t.scnt[0] + 1 == p->iters);
			if (post_one(0, sig) != 0)
				return fail("Couldn't post send: scnt=%lu",
					    (unsigned long)lc.t.scnt[0]);
			lc.t.scnt[0]++;
			lc.t.lat = sig ? LAT_CQ : LAT_TOP;
			break;
		}
		case LAT_CQ: {
			int d = lat_send_done(&err);

			if (d < 0)
				return err;
			if (d == 0)
				return LC_RUN;
			lc.t.lat = LAT_TOP;
			break;
		}
		}
	}
}

static enum lc_state step_run(uint64_t now)
{
	const struct perf_params *p = &perf.p;
	enum lc_state s;

	switch (p->test) {
	case PERF_SEND_BW:
		s = p->servername ? run_bw_client(now) : run_bw_recv(now);
		break;
	case PERF_WRITE_LAT:
		s = run_lat_write(now);
		break;
	case PERF_READ_LAT:
		s = run_lat_read(now);
		break;
	case PERF_SEND_LAT:
		s = run_lat_send(now);
		break;
	default:
		s = run_bw_client(now);
		break;
	}
	if (s == LC_RUN && now - lc.t.last_progress > perf_ms_to_tsc(LC_STALL_MS))
		return fail("no progress for %d s (scnt %lu, ccnt %lu, rcnt %lu)",
			    LC_STALL_MS / 1000, (unsigned long)lc.t.totscnt + lc.t.scnt[0],
			    (unsigned long)lc.t.totccnt + lc.t.ccnt[0], (unsigned long)lc.t.rcnt);
	return s;
}

/* ------------------------------------------------------------------ --droce-verify */

static void verify_range(const uint8_t *got, uint32_t q, uint64_t pat_off, uint64_t len)
{
	for (uint64_t k = 0; k < len; k++)
		perf.run.mismatches += got[k] != perf_pattern(q, pat_off + k);
	perf.run.verified += len;
}

/* what a BW test's cycling left in an area: slot k holds what the sender's slot k had */
static void verify_slots(const uint8_t *area, uint32_t q)
{
	uint64_t size = perf.p.size, inc = perf_inc(size), slots = perf_slots(size);
	uint64_t used = RTE_MIN(slots, (uint64_t)perf.p.iters);

	for (uint64_t k = 0; k < used; k++)
		verify_range(area + k * inc, q, k * inc, size);
}

/* atomics: each 8-byte target was hit count_k times; FETCH_AND_ADD adds 1 each time and the
 * requester's slot holds the value before the last add; CMP_AND_SWAP of 0 with 0 leaves 0 */
static void verify_atomics(bool server)
{
	uint64_t inc = perf_inc(8), slots = perf_slots(8), it = perf.p.iters;
	bool faa = perf.p.atomic_type == PERF_FETCH_AND_ADD;

	for (uint32_t q = 0; q < perf.p.num_qps; q++) {
		const uint8_t *area = server ? perf_remote_area(q) : perf_local_area(q);

		for (uint64_t k = 0; k < RTE_MIN(slots, it); k++) {
			uint64_t count = it / slots + (k < it % slots), v, want;

			memcpy(&v, area + k * inc, 8);
			want = faa ? (server ? count : count - 1) : 0;
			perf.run.mismatches += v != want ? 8 : 0;
			perf.run.verified += 8;
		}
	}
}

static enum lc_state verify(void)
{
	const struct perf_params *p = &perf.p;
	bool server = !p->servername;

	if (!p->verify)
		return LC_DONE;
	switch (p->test) {
	case PERF_WRITE_BW:
		if (server)
			for (uint32_t q = 0; q < p->num_qps; q++)
				verify_slots(perf_remote_area(q), q);
		break;
	case PERF_READ_BW:
		if (!server)
			for (uint32_t q = 0; q < p->num_qps; q++)
				verify_slots(perf_local_area(q), q);
		break;
	case PERF_ATOMIC_BW:
		verify_atomics(server);
		break;
	case PERF_WRITE_LAT:
		verify_range(perf_remote_area(0), 0, 0, p->size - 1);
		break;
	case PERF_READ_LAT:
		if (!server)
			verify_range(perf_local_area(0), 0, 0, p->size);
		break;
	default:
		break; /* SEND tests check each message as it arrives */
	}
	return LC_DONE;
}

/* ------------------------------------------------------------------ commands */

static enum lc_state start_cmd(enum perf_cmd cmd, uint64_t now)
{
	lc.cmd = cmd;
	switch (cmd) {
	case PERF_CMD_CM_COMM:
		lc.conn[0].qp = perf.comm_qp;
		if (!perf.p.servername) {
			lc.deadline = 0;
			return LC_CM_WAIT;
		}
		lc.deadline = now + perf_ms_to_tsc(LC_CM_COMM_MS);
		if (cm_start(&lc.conn[0], false) != 0)
			return fail("rdma_connect failed");
		return LC_CM_CONNECT;
	case PERF_CMD_CM_TEST:
		for (uint32_t i = 0; i < perf.p.num_qps; i++)
			lc.conn[1 + i].qp = perf.qp[i];
		if (!perf.p.servername) {
			lc.deadline = now + perf_ms_to_tsc(LC_CM_TEST_MS);
			return LC_CM_WAIT;
		}
		lc.deadline = now + perf_ms_to_tsc(LC_CM_TEST_MS);
		for (uint32_t i = 0; i < perf.p.num_qps; i++)
			if (cm_start(&lc.conn[1 + i], true) != 0)
				return fail("Failed to resolve RDMA CM address.");
		return LC_CM_CONNECT;
	case PERF_CMD_QP_CONNECT:
		for (uint32_t i = 0; i < perf.p.num_qps; i++)
			if (connect_qp(i) != 0)
				return fail("Failed to modify QP %u to RTR/RTS",
					    roce_qp_num(perf.qp[i]));
		lc.deadline = now + perf_ms_to_tsc(LC_RESOLVE_MS);
		lc.probe_at = 0;
		return LC_RESOLVE;
	case PERF_CMD_POST_RECVS:
		return post_recvs();
	case PERF_CMD_RUN:
		init_run(now);
		return LC_RUN;
	case PERF_CMD_VERIFY:
		return verify();
	case PERF_CMD_CM_CLOSE:
		if (perf.p.servername)
			for (uint32_t i = 1; i <= perf.p.num_qps; i++)
				if (lc.conn[i].id && lc.conn[i].established &&
				    !lc.conn[i].disconnected &&
				    roce_cm_disconnect(lc.conn[i].id) != 0)
					lc.conn[i].disconnected = true;
		lc.deadline = now + perf_ms_to_tsc(LC_CM_CLOSE_MS);
		return LC_CM_CLOSE;
	default:
		return fail("unknown command %d", (int)cmd);
	}
}

static void finish_cmd(int rc)
{
	perf.cmd_rc = rc;
	__atomic_store_n(&perf.cmd_done, 1, __ATOMIC_RELEASE);
	lc.cmd = PERF_CMD_NONE;
}

int perf_lcore_cmd(enum perf_cmd cmd)
{
	perf.run.why[0] = '\0';
	__atomic_store_n(&perf.cmd_done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&perf.cmd, (int)cmd, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&perf.cmd_done, __ATOMIC_ACQUIRE)) {
		if (stk_stopping())
			return -EINTR;
		usleep(50);
	}
	return perf.cmd_rc;
}

void perf_lcore_poll(struct stk_lcore *l, void *arg)
{
	uint64_t now = rte_get_tsc_cycles();
	enum lc_state prev;
	(void)arg;

	lc.lc = l;
	drain_cm(now);
	serve_comm();
	do {
		prev = lc.state;
		switch (lc.state) {
		case LC_IDLE: {
			int c = __atomic_load_n(&perf.cmd, __ATOMIC_ACQUIRE);

			if (c != PERF_CMD_NONE) {
				__atomic_store_n(&perf.cmd, PERF_CMD_NONE, __ATOMIC_RELAXED);
				set_state(start_cmd((enum perf_cmd)c, now));
			}
			break;
		}
		case LC_CM_CONNECT:
			set_state(step_cm_connect(now));
			break;
		case LC_CM_WAIT:
			set_state(step_cm_wait(now));
			break;
		case LC_RESOLVE:
			set_state(step_resolve(now));
			break;
		case LC_RUN:
			set_state(step_run(now));
			break;
		case LC_CM_CLOSE:
			set_state(step_cm_close(now));
			break;
		case LC_FAILED:
			finish_cmd(-EIO);
			set_state(LC_IDLE);
			break;
		case LC_DONE:
			finish_cmd(0);
			set_state(LC_IDLE);
			break;
		default:
			set_state(LC_IDLE);
			break;
		}
	} while (lc.state != prev && lc.state != LC_IDLE);
	if (__atomic_load_n(&perf.ctl_finished, __ATOMIC_ACQUIRE)) {
		if (!lc.linger_until)
			lc.linger_until = now + perf_ms_to_tsc(LC_LINGER_MS);
		else if (now >= lc.linger_until)
			stk_stop();
	}
}

void perf_lcore_release(void)
{
	release_conns(); /* the CM itself closes in app_stop() */
}
