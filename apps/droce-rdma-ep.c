/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-rdma-ep.c - rdma-core's librdmacm examples rdma_server and rdma_client on droce, one
 * source built twice: droce-rdma-server (RDMA_EP_SERVER=1) and droce-rdma-client. Either end
 * can be the Linux original.
 *
 * Usage: droce-rdma-server [EAL args --] [--config FILE] [-s bind_address] [-p port]
 *        droce-rdma-client [EAL args --] [--config FILE] [-s server_address] [-p port]
 * (the INI file comes with --config, or DROCE_CONF; -s and -p are the originals' only
 * options: server default 0.0.0.0, client default 127.0.0.1, port 7471 on both).
 *
 * The protocol, as rdma-core's rdma_server.c / rdma_client.c run it through rdma_create_ep():
 * - Both sides create an RC QP of one send and one receive WR, one SGE each, 16 bytes of
 *   inline data and every send signalled, register a 16-byte receive buffer and post it
 *   before connecting (client) or accepting (server). The send buffer is registered only when
 *   the QP has no room for 16 bytes inline ("device doesn't support IBV_SEND_INLINE, using
 *   sge sends"); droce grants it, so the SEND goes inline.
 * - The client connects with rdma_connect(id, NULL): librdmacm's defaults (retry 7, RNR
 *   retry 7, the device's read depths; droce's CM defaults are the same shape), no private
 *   data. The server answers one request with rdma_accept(id, NULL).
 * - The client SENDs its 16 bytes (all zero: a static buffer never written), waits for the
 *   send completion, then for the server's message. The server waits for the client's
 *   message, SENDs its own 16 zero bytes, waits for that completion. Then each disconnects.
 * - Output on stdout: "rdma_server: start", "rdma_server: end %d" (and rdma_client's); the
 *   exit status is the end value: 0, or -1 (255) for a failure, with perror()'s line naming
 *   the call ("rdma_connect: Connection refused"); a name that does not resolve prints
 *   "rdma_getaddrinfo: <gai_strerror>" and exits with getaddrinfo's code; a bad option prints
 *   the usage and exits 1.
 *
 * Where droce knowingly differs: the originals count a completion in error as done (they
 * never look at wc.status); droce reports it ("rdma_get_recv_comp: <status>") and ends -1.
 * The client gives up a connection after 20 s (librdmacm: by the CM's retries). The server
 * rejects requests beyond the first (the original leaves them unanswered). SIGINT/SIGTERM end
 * with 128+N. droce's own failures (no configuration, the stack did not start) exit 22/19.
 *
 * Threads: one lcore runs the stack, the device, the CM and this tool's step function as a
 * poll hook; nothing blocks.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_start.h"
#include "stk_stack.h"

#ifndef RDMA_EP_SERVER
#define RDMA_EP_SERVER 0
#endif
#if RDMA_EP_SERVER
#define EP_NAME "rdma_server"
#define EP_DEFAULT_ADDR "0.0.0.0"
#else
#define EP_NAME "rdma_client"
#define EP_DEFAULT_ADDR "127.0.0.1"
#endif
#define EP_PORT 7471
#define EP_MSG_LEN 16
#define EP_CONNECT_MS 20000 /* the client's bound on REQ to ESTABLISHED */
#define EP_DISC_WAIT_MS 1000
#define EP_LINGER_MS 300
#define EP_BACKLOG 8

enum ep_wr { WR_RECV = 1, WR_SEND };

/* X(name, comment): one machine for both roles (STYLE 4) */
#define EP_STATE_LIST(X)                                                                           \
	X(LISTEN, "server: waiting for a connection request")                                      \
	X(ACCEPTED, "server: REP sent, waiting for the client's message")                          \
	X(CONNECTING, "client: REQ sent, waiting for ESTABLISHED")                                 \
	X(WAIT_SEND, "our SEND posted, waiting for its completion")                                \
	X(WAIT_RECV, "client: waiting for the server's message")                                   \
	X(DISCONNECT, "done or failed while connected: DREQ to go")                                \
	X(WAIT_DISC, "DREQ sent, waiting for DISCONNECTED (bounded)")                              \
	X(LINGER, "finished: the last frames leave before the port stops")                         \
	X(DONE, "stopped")

#define EP_ST_ENUM_(n, c) ST_##n,
enum ep_state { EP_STATE_LIST(EP_ST_ENUM_) ST_NUM_STATES };
#undef EP_ST_ENUM_

static struct {
	struct app_start app;
	const char *addr_arg;
	struct stk_ipaddr addr;
	uint16_t port;
	enum ep_state state;
	uint64_t state_cnt[ST_NUM_STATES];
	struct roce_cm_id *listen_id, *id;
	struct roce_cq *cq;
	struct roce_qp *qp;
	uint8_t *recv_msg, *send_msg;
	struct roce_mr *recv_mr, *send_mr;
	uint32_t send_flags;
	bool connected, established, recv_done, send_done, peer_gone, failed;
	int ret; /**< the original's run() value: 0 or -1 */
	uint64_t deadline, linger_until;
	volatile sig_atomic_t signo;
} g = {.port = EP_PORT, .state = RDMA_EP_SERVER ? ST_LISTEN : ST_CONNECTING};

static void set_state(enum ep_state s)
{
	if (g.state != s)
		g.state_cnt[s]++;
	g.state = s;
}

/* ------------------------------------------------------------------ QP and buffers */

/* rdma_create_ep()'s QP and rdma_reg_msgs(): @return 0 or -1 with perror()'s line. */
static int setup_qp(void)
{
	struct roce_qp_init_attr ia;

	g.cq = roce_create_cq(g.app.dev, 2);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = g.cq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = EP_MSG_LEN;
	ia.sq_sig_all = true;
	g.qp = g.cq ? roce_create_qp(g.app.pd, &ia) : NULL;
	if (!g.qp) {
		fprintf(stderr, "rdma_create_ep: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (ia.cap.max_inline_data >= EP_MSG_LEN)
		g.send_flags = ROCE_SEND_INLINE;
	else
		printf(EP_NAME ": device doesn't support IBV_SEND_INLINE, using sge sends\n");
	g.recv_msg = rte_zmalloc("ep_recv", EP_MSG_LEN, 0);
	g.send_msg = rte_zmalloc("ep_send", EP_MSG_LEN, 0);
	g.recv_mr = g.recv_msg ? roce_reg_mr(g.app.pd, g.recv_msg, EP_MSG_LEN,
					     (uintptr_t)g.recv_msg, ROCE_ACCESS_LOCAL_WRITE)
			       : NULL;
	if (!g.recv_mr || !g.send_msg) {
		fprintf(stderr, "rdma_reg_msgs for recv_msg: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (!(g.send_flags & ROCE_SEND_INLINE)) {
		g.send_mr = roce_reg_mr(g.app.pd, g.send_msg, EP_MSG_LEN, (uintptr_t)g.send_msg,
					ROCE_ACCESS_LOCAL_WRITE);
		if (!g.send_mr) {
			fprintf(stderr, "rdma_reg_msgs for send_msg: %s\n", strerror(ENOMEM));
			return -1;
		}
	}
	return 0;
}

static void free_qp(void)
{
	struct roce_wc wc[4];

	if (g.id)
		roce_cm_destroy_id(g.id);
	g.id = NULL;
	if (g.cq)
		while (roce_poll_cq(g.cq, 4, wc) > 0)
			;
	if (g.qp)
		roce_destroy_qp(g.qp);
	if (g.cq)
		roce_destroy_cq(g.cq);
	if (g.recv_mr)
		roce_dereg_mr(g.recv_mr);
	if (g.send_mr)
		roce_dereg_mr(g.send_mr);
	rte_free(g.recv_msg);
	rte_free(g.send_msg);
	g.qp = NULL;
	g.cq = NULL;
	g.recv_mr = g.send_mr = NULL;
	g.recv_msg = g.send_msg = NULL;
}

static int post_recv(void)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)g.recv_msg, .length = EP_MSG_LEN, .lkey = g.recv_mr->lkey};
	struct roce_recv_wr wr = {.wr_id = WR_RECV, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = roce_post_recv(g.qp, &wr, &bad);

	if (rc)
		fprintf(stderr, "rdma_post_recv: %s\n", strerror(-rc));
	return rc;
}

static int post_send(void)
{
	struct roce_sge sge = {.addr = (uintptr_t)g.send_msg,
			       .length = EP_MSG_LEN,
			       .lkey = g.send_mr ? g.send_mr->lkey : 0};
	struct roce_send_wr wr, *bad;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = g.send_flags | ROCE_SEND_SIGNALED;
	rc = roce_post_send(g.qp, &wr, &bad);
	if (rc)
		fprintf(stderr, "rdma_post_send: %s\n", strerror(-rc));
	return rc;
}

static void poll_completions(void)
{
	struct roce_wc wc[4];
	int n = g.cq ? roce_poll_cq(g.cq, 4, wc) : 0;

	for (int i = 0; i < n; i++) {
		bool recv = wc[i].wr_id == WR_RECV;

		if (wc[i].status != ROCE_WC_SUCCESS) {
			if (!g.failed)
				fprintf(stderr, "%s: %s\n",
					recv ? "rdma_get_recv_comp" : "rdma_get_send_comp",
					roce_wc_status_str(wc[i].status));
			g.failed = true;
		} else if (recv) {
			g.recv_done = true;
		} else {
			g.send_done = true;
		}
	}
}

/* ------------------------------------------------------------------ CM events */

static void on_connect_request(const struct roce_cm_event *ev)
{
	int rc;

	if (g.id || g.state != ST_LISTEN) { /* rdma_get_request() is called once */
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		return;
	}
	g.id = ev->id;
	if (setup_qp() != 0) {
		roce_cm_reject(g.id, NULL, 0);
		g.ret = -1;
		set_state(ST_LINGER);
		return;
	}
	rc = roce_cm_accept(g.id, g.qp, NULL);
	if (rc) {
		fprintf(stderr, "rdma_accept: %s\n", strerror(-rc));
		g.ret = -1;
		set_state(ST_LINGER);
		return;
	}
	g.connected = true;
	/* droce takes receives from INIT on: the QP is in RTS now, and nothing arrives before
	 * this one is posted (one lcore) */
	if (post_recv() != 0) {
		g.ret = -1;
		set_state(ST_DISCONNECT);
		return;
	}
	set_state(ST_ACCEPTED);
}

static void on_cm_event(const struct roce_cm_event *ev)
{
	if (ev->event == ROCE_CM_EVENT_CONNECT_REQUEST) {
		on_connect_request(ev);
		return;
	}
	if (!g.id || ev->id != g.id)
		return;
	switch (ev->event) {
	case ROCE_CM_EVENT_ESTABLISHED:
		g.established = true;
		break;
	case ROCE_CM_EVENT_REJECTED:
		fprintf(stderr, "rdma_connect: %s\n", strerror(ECONNREFUSED));
		g.failed = true;
		break;
	case ROCE_CM_EVENT_UNREACHABLE:
		fprintf(stderr, "rdma_connect: %s\n",
			strerror(ev->status == -ETIMEDOUT ? ETIMEDOUT : ENETUNREACH));
		g.failed = true;
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		g.peer_gone = true;
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------ the steps */

static enum ep_state fail(void)
{
	g.ret = -1;
	return g.connected ? ST_DISCONNECT : ST_LINGER;
}

static enum ep_state step_connecting(void)
{
	if (g.failed)
		return fail();
	if (!g.established)
		return ST_CONNECTING;
	g.connected = true;
	return post_send() ? fail() : ST_WAIT_SEND;
}

static enum ep_state step_accepted(void)
{
	if (g.failed || (g.peer_gone && !g.recv_done))
		return fail();
	if (!g.recv_done)
		return ST_ACCEPTED;
	return post_send() ? fail() : ST_WAIT_SEND;
}

static enum ep_state step_wait_send(void)
{
	if (g.failed)
		return fail();
	if (!g.send_done)
		return ST_WAIT_SEND;
	return RDMA_EP_SERVER ? ST_DISCONNECT : ST_WAIT_RECV;
}

static enum ep_state step_wait_recv(void)
{
	if (g.failed || (g.peer_gone && !g.recv_done))
		return fail();
	return g.recv_done ? ST_DISCONNECT : ST_WAIT_RECV;
}

static enum ep_state step_disconnect(uint64_t now)
{
	/* rdma_disconnect(): the peer's DREQ may have crossed ours; either way one DISCONNECTED */
	if (g.peer_gone || roce_cm_disconnect(g.id) != 0)
		return ST_LINGER;
	g.deadline = now + app_ms(&g.app, EP_DISC_WAIT_MS);
	return ST_WAIT_DISC;
}

static enum ep_state step_wait_disc(uint64_t now)
{
	return g.peer_gone || now >= g.deadline ? ST_LINGER : ST_WAIT_DISC;
}

static enum ep_state step_linger(uint64_t now)
{
	if (!g.linger_until)
		g.linger_until = now + app_ms(&g.app, EP_LINGER_MS);
	if (now < g.linger_until)
		return ST_LINGER;
	stk_stop();
	return ST_DONE;
}

static void ep_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();
	enum ep_state prev;
	(void)lc;
	(void)arg;

	if (g.signo) {
		stk_stop();
		return;
	}
	while (roce_cm_get_event(g.app.cm, &ev) == 0)
		on_cm_event(&ev);
	poll_completions();
	if (!RDMA_EP_SERVER && g.state == ST_CONNECTING && now >= g.deadline && !g.failed) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(ETIMEDOUT));
		g.failed = true;
	}
	do {
		prev = g.state;
		switch (g.state) {
		case ST_CONNECTING:
			set_state(step_connecting());
			break;
		case ST_ACCEPTED:
			set_state(step_accepted());
			break;
		case ST_WAIT_SEND:
			set_state(step_wait_send());
			break;
		case ST_WAIT_RECV:
			set_state(step_wait_recv());
			break;
		case ST_DISCONNECT:
			set_state(step_disconnect(now));
			break;
		case ST_WAIT_DISC:
			set_state(step_wait_disc(now));
			break;
		case ST_LINGER:
			set_state(step_linger(now));
			break;
		case ST_LISTEN:
		case ST_DONE:
		default:
			break;
		}
	} while (g.state != prev);
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
	printf("\t[-s %s_address]\n", RDMA_EP_SERVER ? "bind" : "server");
	printf("\t[-p port_number]\n");
	printf("\t[--config FILE]\tdroce INI configuration (or DROCE_CONF)\n");
}

/* The listener or the connection. @return 0 or -1 with the original's message. */
static int start(void)
{
	struct roce_cm_conn_param p;
	int rc;

	if (RDMA_EP_SERVER) {
		g.listen_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
		if (!g.listen_id) {
			fprintf(stderr, "rdma_create_ep: %s\n", strerror(ENOMEM));
			return -1;
		}
		rc = roce_cm_listen(g.listen_id, g.port, EP_BACKLOG);
		if (rc) {
			fprintf(stderr, "rdma_listen: %s\n", strerror(-rc));
			return -1;
		}
		return 0;
	}
	g.id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
	if (!g.id) {
		fprintf(stderr, "rdma_create_ep: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (setup_qp() != 0)
		return -1;
	memset(&p, 0, sizeof(p));
	p.timeout_ms = EP_CONNECT_MS;
	rc = roce_cm_connect(g.id, &g.addr, g.port, g.qp, &p);
	if (rc) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(-rc));
		return -1;
	}
	/* the QP is in INIT now: the original posts its receive before connecting */
	if (post_recv() != 0)
		return -1;
	g.deadline = rte_get_tsc_cycles() + app_ms(&g.app, EP_CONNECT_MS + 1000);
	return 0;
}

static int run(int argc, char **argv, int eal_argc, char **eal_argv)
{
	int rc;

	rc = app_get_addr(g.addr_arg, &g.addr);
	if (rc) {
		printf("rdma_getaddrinfo: %s\n", gai_strerror(rc));
		return rc;
	}
	rc = app_start_stack(&g.app, argv[0], eal_argc, eal_argv);
	if (rc)
		return rc;
	rc = app_pick_iface(&g.app, RDMA_EP_SERVER ? &g.addr : NULL, &g.addr);
	if (rc) {
		fprintf(stderr, "rdma_create_ep: %s\n", strerror(-rc));
		return -1;
	}
	(void)argc;
	if (app_open_dev(&g.app) != 0 || start() != 0)
		return -1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), ep_poll, NULL);
	stk_run();
	if (g.signo)
		return 128 + g.signo;
	return g.ret;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, op, ret;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.app.prog = RDMA_EP_SERVER ? "droce-rdma-server" : "droce-rdma-client";
	g.addr_arg = EP_DEFAULT_ADDR;
	app_split_args(&g.app, argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((op = getopt(app_argc, app_argv, "s:p:")) != -1) {
		switch (op) {
		case 's':
			g.addr_arg = optarg;
			break;
		case 'p':
			g.port = (uint16_t)atoi(optarg);
			break;
		default:
			usage(argv[0]);
			exit(1);
		}
	}
	printf(EP_NAME ": start\n");
	ret = run(app_argc, app_argv, eal_argc, eal_argv);
	if (ret < 128 || ret > 128 + 64)
		printf(EP_NAME ": end %d\n", ret);
	free_qp();
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	app_stop(&g.app);
	return ret;
}
