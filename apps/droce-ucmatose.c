/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-ucmatose - rdma-core's ucmatose (librdmacm/examples/cmatose.c) on droce: many RC
 * connections through the RDMA CM at once, messages each way on each, then all disconnected.
 * Either end can be ucmatose on Linux.
 *
 * Usage: droce-ucmatose [EAL args --] [--config FILE] [-s server_address] [-b bind_address]
 *        [-f address_format] [-P port_space] [-c connections] [-C message_count]
 *        [-S message_size] [-t type_of_service] [-p port_number] [-m] [-a ack_timeout]
 * Without -s it is the server. Defaults as the original's: -c 1, -C 10, -S 100, -p 7471.
 *
 * The protocol, as cmatose.c runs it:
 * - Each connection ("node") has a PD, a send CQ and a receive CQ of message_count entries
 *   (1 if none), an RC QP of message_count send and receive WRs, one SGE, every send
 *   signalled, and one buffer of message_size bytes (LOCAL_WRITE) that every WR uses.
 * - Client: for each node, resolve, then post message_count receives and connect with
 *   responder_resources 1, initiator_depth 1, retry_count 5 (no private data for IP). All
 *   connections are started at once; the client waits until each is ESTABLISHED or failed.
 * - Server: listens; each CONNECT_REQUEST takes the next node (beyond -c: rejected, "cmatose:
 *   failing connection request"), gets its QP, posts its receives and is accepted with
 *   rdma_accept(NULL). When all -c are ESTABLISHED it SENDs message_count messages on each,
 *   waits for their completions, then for message_count messages from each client, then
 *   disconnects every connection and waits for each DISCONNECTED.
 * - Client, once connected: waits for message_count messages on each connection, then SENDs
 *   message_count replies on each, then waits for the server's disconnects.
 * - Messages carry the buffer as it is (the original never fills it in: here, zeros).
 * - Output on stdout, as the original's: "cmatose: starting server|client", "cmatose:
 *   connecting", "initiating data transfers", "completing sends", "receiving data transfers",
 *   "sending replies", "data transfers complete", "cmatose: disconnecting", "disconnected",
 *   "test complete", "return status %d"; a failed connection prints "cmatose: event:
 *   RDMA_CM_EVENT_<name>, error: <status>" and its status is the return status (REJECTED: the
 *   reject reason; UNREACHABLE: -110), which is also the exit status (mod 256); a bad option:
 *   the usage, exit 1.
 *
 * droce adds, on stderr: the live QPs, CQs, MRs, CM identifiers and in-use mbufs when the
 * device is open ("resources at start") and after every node was destroyed and the last
 * frames left ("resources at end"); -r makes a difference between the two an error (return
 * status -1). The 1,000-connection test asserts them equal.
 *
 * Where droce knowingly differs: -t (TOS) is accepted and not applied (droce's CM takes the
 * interface's DSCP); -P ib and -f gid are refused (RoCE has only the IP port spaces); -m only
 * prints the original's line (one lcore owns every id: there is no channel to migrate); a
 * completion in error fails the run (the original counts it as done); SIGINT/SIGTERM end with
 * 128+N. droce's own failures (no configuration, the stack did not start) exit 22/19.
 *
 * Threads: one lcore runs the stack, the device, the CM and the phases below as a poll hook.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_start.h"
#include "stk_stack.h"

#define CMT_PORT 7471
#define CMT_BACKLOG 4096     /* rdma_listen(0): as many as the CM holds */
#define CMT_CONNECT_MS 20000 /* each connection's bound on REQ to ESTABLISHED */
#define CMT_LINGER_MS 300
#define CMT_WC_BATCH 8

/* X(name, comment): the run's phases, in order (STYLE 4) */
#define CMT_PHASE_LIST(X)                                                                          \
	X(CONNECT, "waiting until every connection is ESTABLISHED or failed")                      \
	X(SEND, "server: post each node's sends")                                                  \
	X(SEND_COMP, "server: wait for the send completions")                                      \
	X(RECV, "wait for message_count receives on each node")                                    \
	X(REPLY, "client: post each node's replies")                                               \
	X(DISCONNECT, "server: disconnect every node")                                             \
	X(WAIT_DISC, "wait for each node's DISCONNECTED")                                          \
	X(DESTROY, "destroy the nodes; the last frames leave")                                     \
	X(DONE, "resources counted; stopped")

#define CMT_PH_ENUM_(n, c) PH_##n,
enum cmt_phase { CMT_PHASE_LIST(CMT_PH_ENUM_) PH_NUM_STATES };
#undef CMT_PH_ENUM_

/** One connection (cmatose's struct cmatest_node). */
struct cmt_node {
	int id;
	struct roce_cm_id *cma_id;
	bool connected;
	struct roce_cq *cq[2]; /**< send, receive */
	struct roce_qp *qp;
	struct roce_mr *mr;
	void *mem;
	int done[2]; /**< completions taken from each CQ in this phase */
};

enum { SEND_CQ, RECV_CQ };

static struct {
	struct app_start app;
	/* options */
	int connections, message_count, message_size;
	const char *dst_arg, *src_arg;
	struct stk_ipaddr dst, src;
	uint16_t port;
	bool set_timeout, migrate, check_resources;
	uint8_t timeout;
	/* the test */
	struct cmt_node *nodes;
	int conn_index, connects_left, disconnects_left;
	struct roce_cm_id *listen_id;
	enum cmt_phase phase;
	uint64_t phase_cnt[PH_NUM_STATES];
	int ret;
	bool destroyed;
	uint64_t until;
	struct app_counts start;
	volatile sig_atomic_t signo;
} g = {
	.connections = 1,
	.message_count = 10,
	.message_size = 100,
	.port = CMT_PORT,
};

static bool is_server(void)
{
	return g.dst_arg == NULL;
}

static void set_phase(enum cmt_phase p)
{
	if (g.phase != p)
		g.phase_cnt[p]++;
	g.phase = p;
}

/* ------------------------------------------------------------------ nodes */

/* init_node(): CQs, QP and message buffer. @return 0 or -ENOMEM with the original's line. */
static int init_node(struct cmt_node *n)
{
	struct roce_qp_init_attr ia;
	int cqe = g.message_count ? g.message_count : 1;

	n->cq[SEND_CQ] = roce_create_cq(g.app.dev, (uint32_t)cqe);
	n->cq[RECV_CQ] = roce_create_cq(g.app.dev, (uint32_t)cqe);
	if (!n->cq[SEND_CQ] || !n->cq[RECV_CQ]) {
		printf("cmatose: unable to create CQ\n");
		return -ENOMEM;
	}
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = ia.cap.max_recv_wr = (uint32_t)cqe;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = true;
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = n->cq[SEND_CQ];
	ia.recv_cq = n->cq[RECV_CQ];
	n->qp = roce_create_qp(g.app.pd, &ia);
	if (!n->qp) {
		fprintf(stderr, "cmatose: unable to create QP: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (!g.message_count)
		return 0;
	n->mem = rte_zmalloc("cmt_msg", (size_t)g.message_size, 0);
	n->mr = n->mem ? roce_reg_mr(g.app.pd, n->mem, (uint64_t)g.message_size, (uintptr_t)n->mem,
				     ROCE_ACCESS_LOCAL_WRITE)
		       : NULL;
	if (!n->mr) {
		printf("failed to reg MR\n");
		printf("cmatose: failed to create messages: %d\n", -1);
		return -ENOMEM;
	}
	return 0;
}

static void destroy_node(struct cmt_node *n)
{
	struct roce_wc wc[CMT_WC_BATCH];

	if (n->cma_id)
		roce_cm_destroy_id(n->cma_id);
	for (int i = 0; i < 2; i++)
		if (n->cq[i])
			while (roce_poll_cq(n->cq[i], CMT_WC_BATCH, wc) > 0)
				;
	if (n->qp)
		roce_destroy_qp(n->qp);
	for (int i = 0; i < 2; i++)
		if (n->cq[i])
			roce_destroy_cq(n->cq[i]);
	if (n->mr && roce_dereg_mr(n->mr) == -EBUSY)
		fprintf(stderr,
			"droce-ucmatose: node %d: a frame still points into its buffer; "
			"the buffer is left allocated\n",
			n->id);
	else
		rte_free(n->mem);
	memset(n, 0, sizeof(*n));
}

static int post_recvs(struct cmt_node *n)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)n->mem, .length = (uint32_t)g.message_size, .lkey = 0};
	struct roce_recv_wr wr = {.wr_id = (uintptr_t)n, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = 0;

	if (!g.message_count)
		return 0;
	sge.lkey = n->mr->lkey;
	for (int i = 0; i < g.message_count && !rc; i++) {
		rc = roce_post_recv(n->qp, &wr, &bad);
		if (rc)
			printf("failed to post receives: %d\n", rc);
	}
	return rc;
}

static int post_sends(struct cmt_node *n)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)n->mem, .length = (uint32_t)g.message_size, .lkey = 0};
	struct roce_send_wr wr, *bad;
	int rc = 0;

	if (!n->connected || !g.message_count)
		return 0;
	sge.lkey = n->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	for (int i = 0; i < g.message_count && !rc; i++) {
		rc = roce_post_send(n->qp, &wr, &bad);
		if (rc)
			printf("failed to post sends: %d\n", rc);
	}
	return rc;
}

/* poll_cqs() without blocking: @return 1 when every connected node has message_count
 * completions on CQ @p which, 0 while some wait, or -1 for a completion in error. */
static int poll_cqs(int which)
{
	struct roce_wc wc[CMT_WC_BATCH];
	int waiting = 0;

	for (int i = 0; i < g.connections; i++) {
		struct cmt_node *n = &g.nodes[i];

		if (!n->connected || n->done[which] >= g.message_count)
			continue;
		int got = roce_poll_cq(n->cq[which], CMT_WC_BATCH, wc);

		for (int k = 0; k < got; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS) {
				struct roce_qp_stats qs;

				printf("cmatose: failed polling CQ: %d\n", -1);
				fprintf(stderr, "droce-ucmatose: node %d: a %s completed with %s\n",
					n->id, which == SEND_CQ ? "send" : "receive",
					roce_wc_status_str(wc[k].status));
				/* what its transport saw: a lost link or a storm of resends */
				roce_qp_query_stats(n->qp, &qs);
				fprintf(stderr,
					"droce-ucmatose: node %d: qp 0x%x sent %" PRIu64
					" packets, go-backs %" PRIu64 ", timeouts %" PRIu64
					", early %" PRIu64 ", NAK-seq rx %" PRIu64 " tx %" PRIu64
					", cwnd %u, srtt %.0f us, rto %.0f us\n",
					n->id, roce_qp_num(n->qp), qs.tx_pkts, qs.retransmits,
					qs.timeouts, qs.rto_early, qs.nak_seq_rx, qs.nak_seq_tx,
					qs.cwnd, qs.srtt_us, qs.rto_us);
				return -1;
			}
		}
		n->done[which] += got;
		if (n->done[which] < g.message_count)
			waiting++;
	}
	return waiting == 0;
}

/* ------------------------------------------------------------------ CM events */

static void connect_error(void)
{
	g.connects_left--;
}

/* connect_handler(): the server's next node for a new request. */
static int on_connect_request(struct roce_cm_id *id)
{
	struct roce_cm_conn_param p;
	struct cmt_node *n;
	int rc;

	if (g.conn_index == g.connections) {
		rc = -ENOMEM;
		goto err1;
	}
	n = &g.nodes[g.conn_index++];
	n->cma_id = id;
	id->context = n;
	rc = init_node(n);
	if (rc)
		goto err2;
	memset(&p, 0, sizeof(p));
	if (g.set_timeout)
		p.local_ack_timeout = g.timeout;
	rc = roce_cm_accept(id, n->qp, &p);
	if (rc) {
		fprintf(stderr, "cmatose: failure accepting: %s\n", strerror(-rc));
		goto err2;
	}
	/* droce takes receives from INIT on; the QP is in RTS now and nothing arrives before
	 * these are posted (one lcore) */
	rc = post_recvs(n);
	if (rc)
		goto err2;
	return 0;
err2:
	n->cma_id = NULL;
	destroy_node(n);
	connect_error();
err1:
	printf("cmatose: failing connection request\n");
	roce_cm_reject(id, NULL, 0);
	roce_cm_destroy_id(id);
	return rc;
}

/* cma_handler(): @return the original's value (0, or an error status) */
static int on_cm_event(const struct roce_cm_event *ev)
{
	struct cmt_node *n = ev->id->context;

	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		return on_connect_request(ev->id);
	case ROCE_CM_EVENT_ESTABLISHED:
		if (!n)
			return 0;
		n->connected = true;
		g.connects_left--;
		g.disconnects_left++;
		return 0;
	case ROCE_CM_EVENT_UNREACHABLE:
	case ROCE_CM_EVENT_REJECTED:
		printf("cmatose: event: RDMA_CM_EVENT_%s, error: %d\n",
		       roce_cm_event_str(ev->event), ev->status);
		connect_error();
		return ev->status;
	case ROCE_CM_EVENT_DISCONNECTED:
		/* rdma_disconnect() on the DREQ: droce's CM has answered it with DREP already */
		if (n && n->connected) {
			n->connected = false;
			g.disconnects_left--;
		}
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ phases */

static void end_with(int ret)
{
	if (!g.ret)
		g.ret = ret;
}

/* connect_events(): until no connection is pending, or the first error. */
static enum cmt_phase step_connect(int ev_ret, uint64_t now)
{
	if (ev_ret) {
		end_with(ev_ret);
		return is_server() ? PH_DESTROY : PH_WAIT_DISC;
	}
	if (g.connects_left > 0 && now < g.until)
		return PH_CONNECT;
	if (g.connects_left > 0) {
		printf("cmatose: event: RDMA_CM_EVENT_UNREACHABLE, error: %d\n", -ETIMEDOUT);
		end_with(-ETIMEDOUT);
		return is_server() ? PH_DESTROY : PH_WAIT_DISC;
	}
	if (!g.message_count)
		return is_server() ? PH_DISCONNECT : PH_WAIT_DISC;
	if (is_server()) {
		printf("initiating data transfers\n");
		return PH_SEND;
	}
	printf("receiving data transfers\n");
	return PH_RECV;
}

static enum cmt_phase step_send(void)
{
	for (int i = 0; i < g.connections; i++) {
		if (post_sends(&g.nodes[i])) {
			end_with(-1);
			return PH_DESTROY;
		}
	}
	printf("completing sends\n");
	return PH_SEND_COMP;
}

static enum cmt_phase step_send_comp(void)
{
	int rc = poll_cqs(SEND_CQ);

	if (rc < 0) {
		end_with(-1);
		return PH_DESTROY;
	}
	if (!rc)
		return PH_SEND_COMP;
	printf("receiving data transfers\n");
	return PH_RECV;
}

static enum cmt_phase step_recv(void)
{
	int rc = poll_cqs(RECV_CQ);

	if (rc < 0) {
		end_with(-1);
		return is_server() ? PH_DESTROY : PH_WAIT_DISC;
	}
	if (!rc)
		return PH_RECV;
	if (!is_server()) {
		printf("sending replies\n");
		return PH_REPLY;
	}
	printf("data transfers complete\n");
	if (g.migrate)
		printf("migrating to new event channel\n");
	return PH_DISCONNECT;
}

static enum cmt_phase step_reply(void)
{
	for (int i = 0; i < g.connections; i++) {
		if (post_sends(&g.nodes[i])) {
			end_with(-1);
			return PH_WAIT_DISC;
		}
	}
	printf("data transfers complete\n");
	if (g.migrate)
		printf("migrating to new event channel\n");
	return PH_WAIT_DISC;
}

static enum cmt_phase step_disconnect(void)
{
	printf("cmatose: disconnecting\n");
	for (int i = 0; i < g.connections; i++) {
		struct cmt_node *n = &g.nodes[i];

		if (!n->connected)
			continue;
		/* our DREQ; its DREP (or the timeout) gives DISCONNECTED */
		if (roce_cm_disconnect(n->cma_id) != 0) {
			n->connected = false;
			g.disconnects_left--;
		}
	}
	return PH_WAIT_DISC;
}

static enum cmt_phase step_wait_disc(void)
{
	if (g.disconnects_left > 0)
		return PH_WAIT_DISC;
	if (is_server())
		printf("disconnected\n");
	return PH_DESTROY;
}

static void print_counts(const char *when, const struct app_counts *c)
{
	fprintf(stderr,
		"droce-ucmatose: resources at %s: qps %" PRIu32 " cqs %" PRIu32 " mrs %" PRIu32
		" cm_ids %" PRIu64 " mbufs %u\n",
		when, c->qps, c->cqs, c->mrs, c->cm_ids, c->mbufs);
}

/* The original's end ("test complete", destroy_nodes), then droce's count once the last
 * frames (DREPs, ACKs) have left and the CM's queued MADs are gone. */
static enum cmt_phase step_destroy(uint64_t now)
{
	struct app_counts end;

	if (!g.destroyed) {
		if (g.listen_id)
			roce_cm_destroy_id(g.listen_id);
		g.listen_id = NULL;
		printf("test complete\n");
		for (int i = 0; i < g.connections; i++)
			destroy_node(&g.nodes[i]);
		g.until = now + app_ms(&g.app, CMT_LINGER_MS);
		g.destroyed = true;
	}
	if (now < g.until)
		return PH_DESTROY;
	app_counts(&g.app, &end);
	print_counts("end", &end);
	if (g.check_resources && memcmp(&end, &g.start, sizeof(end)) != 0) {
		fprintf(stderr, "droce-ucmatose: the run left resources behind\n");
		end_with(-1);
	}
	stk_stop();
	return PH_DONE;
}

static void cmt_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();
	enum cmt_phase prev;
	int ev_ret = 0;
	(void)lc;
	(void)arg;

	if (g.signo) {
		stk_stop();
		return;
	}
	while (roce_cm_get_event(g.app.cm, &ev) == 0) {
		int r = on_cm_event(&ev);

		/* connect_events() stops at the first error; later ones are still handled */
		if (r && !ev_ret && g.phase == PH_CONNECT)
			ev_ret = r;
	}
	do {
		prev = g.phase;
		switch (g.phase) {
		case PH_CONNECT:
			set_phase(step_connect(ev_ret, now));
			break;
		case PH_SEND:
			set_phase(step_send());
			break;
		case PH_SEND_COMP:
			set_phase(step_send_comp());
			break;
		case PH_RECV:
			set_phase(step_recv());
			break;
		case PH_REPLY:
			set_phase(step_reply());
			break;
		case PH_DISCONNECT:
			set_phase(step_disconnect());
			break;
		case PH_WAIT_DISC:
			set_phase(step_wait_disc());
			break;
		case PH_DESTROY:
			set_phase(step_destroy(now));
			break;
		case PH_DONE:
		default:
			break;
		}
	} while (g.phase != prev);
}

/* ------------------------------------------------------------------ start */

static void on_signal(int sig)
{
	g.signo = sig;
	stk_stop();
}

static void usage(const char *argv0)
{
	printf("usage: %s\n", argv0);
	printf("\t[-s server_address]\n");
	printf("\t[-b bind_address]\n");
	printf("\t[-f address_format]\n");
	printf("\t    name, ip, ipv6, or gid\n");
	printf("\t[-P port_space]\n");
	printf("\t    tcp or ib\n");
	printf("\t[-c connections]\n");
	printf("\t[-C message_count]\n");
	printf("\t[-S message_size]\n");
	printf("\t[-t type_of_service]\n");
	printf("\t[-p port_number]\n");
	printf("\t[-m(igrate)]\n");
	printf("\t[-a ack_timeout]\n");
	printf("\t[-r]\tdroce: fail unless the resources at the end are those at the start\n");
	printf("\t[--config FILE]\tdroce INI configuration (or DROCE_CONF)\n");
}

static int parse_args(int argc, char **argv, const char *argv0)
{
	int op;

	while ((op = getopt(argc, argv, "s:b:f:P:c:C:S:t:p:a:mr")) != -1) {
		switch (op) {
		case 's':
			g.dst_arg = optarg;
			break;
		case 'b':
			g.src_arg = optarg;
			break;
		case 'f':
			if (!strncasecmp("gid", optarg, 3)) {
				fprintf(stderr, "droce-ucmatose: -f gid: RoCE addresses are IP\n");
				return 1;
			}
			if (strncasecmp("ip", optarg, 2) && strncasecmp("name", optarg, 4))
				fprintf(stderr, "Warning: unknown address format\n");
			break;
		case 'P':
			if (!strncasecmp("ib", optarg, 2)) {
				fprintf(stderr, "droce-ucmatose: -P ib: droce has the TCP port "
						"space only\n");
				return 1;
			}
			if (strncasecmp("tcp", optarg, 3))
				fprintf(stderr, "Warning: unknown port space format\n");
			break;
		case 'c':
			g.connections = atoi(optarg);
			break;
		case 'C':
			g.message_count = atoi(optarg);
			break;
		case 'S':
			g.message_size = atoi(optarg);
			break;
		case 't':
			break; /* accepted, not applied: see the file's comment */
		case 'p':
			g.port = (uint16_t)atoi(optarg);
			break;
		case 'm':
			g.migrate = true;
			break;
		case 'a':
			g.set_timeout = true;
			g.timeout = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			g.check_resources = true;
			break;
		default:
			usage(argv0);
			return 1;
		}
	}
	if (g.connections < 1 || g.connections > 4000 || g.message_count < 0 ||
	    g.message_size < 0) {
		fprintf(stderr, "droce-ucmatose: -c is 1..4000, -C and -S are not negative\n");
		return 1;
	}
	if (!g.message_size)
		g.message_count = 0; /* create_message() */
	return 0;
}

/* run_server() / run_client() up to the point where the poll hook takes over.
 * @return 0, or the return status. */
static int start(void)
{
	struct roce_cm_conn_param p;
	int rc;

	g.nodes = calloc((size_t)g.connections, sizeof(*g.nodes));
	if (!g.nodes) {
		printf("cmatose: unable to allocate memory for test nodes\n");
		return -ENOMEM;
	}
	for (int i = 0; i < g.connections; i++)
		g.nodes[i].id = i;
	g.connects_left = g.connections;
	if (is_server()) {
		printf("cmatose: starting server\n");
		g.listen_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
		if (!g.listen_id) {
			fprintf(stderr, "cmatose: listen request failed: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		rc = roce_cm_listen(g.listen_id, g.port, CMT_BACKLOG);
		if (rc) {
			fprintf(stderr, "cmatose: failure trying to listen: %s\n", strerror(-rc));
			return rc;
		}
		g.until = UINT64_MAX; /* the server waits for its clients as long as it takes */
		return 0;
	}
	printf("cmatose: starting client\n");
	printf("cmatose: connecting\n");
	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 5;
	p.timeout_ms = CMT_CONNECT_MS;
	if (g.set_timeout)
		p.local_ack_timeout = g.timeout;
	for (int i = 0; i < g.connections; i++) {
		struct cmt_node *n = &g.nodes[i];

		n->cma_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, n);
		if (!n->cma_id) {
			fprintf(stderr, "cmatose: failure getting addr: %s\n", strerror(ENOSPC));
			return -ENOSPC;
		}
		rc = init_node(n);
		if (rc)
			return rc;
		rc = roce_cm_connect(n->cma_id, &g.dst, g.port, n->qp, &p);
		if (rc) {
			fprintf(stderr, "cmatose: failure connecting: %s\n", strerror(-rc));
			return rc;
		}
		/* the QP is in INIT: the original posts before connecting */
		rc = post_recvs(n);
		if (rc)
			return rc;
	}
	g.until = rte_get_tsc_cycles() + app_ms(&g.app, CMT_CONNECT_MS + 2000);
	return 0;
}

static int run(char *argv0, int eal_argc, char **eal_argv)
{
	int rc;

	if (g.src_arg && (rc = app_get_addr(g.src_arg, &g.src)) != 0) {
		printf("rdma_getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	if (g.dst_arg && (rc = app_get_addr(g.dst_arg, &g.dst)) != 0) {
		printf("rdma_getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	rc = app_start_stack(&g.app, argv0, eal_argc, eal_argv);
	if (rc)
		return rc;
	rc = app_pick_iface(&g.app, g.src_arg ? &g.src : NULL, g.dst_arg ? &g.dst : NULL);
	if (rc) {
		fprintf(stderr, "cmatose: bind address failed: %s\n", strerror(-rc));
		return rc;
	}
	if (app_open_dev(&g.app) != 0)
		return -1;
	app_counts(&g.app, &g.start);
	print_counts("start", &g.start);
	rc = start();
	if (rc) {
		g.ret = rc;
		g.phase = PH_DESTROY;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), cmt_poll, NULL);
	stk_run();
	if (g.signo)
		return 128 + g.signo;
	return g.ret;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, ret;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.app.prog = "droce-ucmatose";
	app_split_args(&g.app, argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv, argv[0]))
		exit(1);
	ret = run(argv[0], eal_argc, eal_argv);
	if (ret < 128 || ret > 128 + 64)
		printf("return status %d\n", ret);
	if (g.nodes)
		for (int i = 0; i < g.connections; i++)
			destroy_node(&g.nodes[i]);
	free(g.nodes);
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	app_print_drops(&g.app);
	app_stop(&g.app);
	return ret;
}
