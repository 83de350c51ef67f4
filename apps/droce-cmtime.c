/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-cmtime - rdma-core's cmtime (librdmacm/examples/cmtime.c) on droce: times each RDMA CM
 * step over -c connections and prints cmtime's table. Either end can be cmtime on Linux.
 *
 * Usage: droce-cmtime [EAL args --] [--config FILE] [-s server_address] [-b bind_address]
 *        [-c connections] [-p port_number] [-r retries] [-t timeout_ms]
 * Without -s it is the server, which serves until it is stopped (as the original). Defaults
 * as the original's: -c 100, -p 7471, -r 2, -t 2000.
 *
 * The client's steps, each over all connections before the next, as cmtime runs them:
 *   create id      roce_cm_create_id() per connection
 *   bind addr      (-b only) the address must be droce's
 *   resolve addr   the server's MAC through the stack's ARP/ND (rdma_resolve_addr's work;
 *                  the first connection pays for it, the others find it in the table)
 *   resolve route  nothing to do on RoCE without an SA: rdma_resolve_route() only reports it
 *   create qp      rdma_create_qp(id, NULL, ...): a send and a receive CQ and an RC QP of one
 *                  WR and one SGE each way, per connection
 *   connect        REQ -> REP -> RTU for every connection at once (responder resources 1,
 *                  initiator depth 1, retry count -r), until each is ESTABLISHED or failed
 *   disconnect     DREQ on every connection and its QP destroyed, until each DISCONNECTED
 *   destroy        the ids (and here the CQs)
 * Each step's start and end are taken per connection and for the whole step; the table is
 * cmtime's: "step total ms, max ms, min us, us / conn" (total: the whole step; max/min: the
 * slowest and fastest connection; us / conn: total over -c).
 * The server: each CONNECT_REQUEST gets a QP (and CQs) and is accepted; on DISCONNECTED the
 * connection is disconnected and destroyed.
 * Output on stdout, as the original's: "creating id", "binding source address", "resolving
 * address", "resolving route", "creating qp", "connecting", "disconnecting", "destroying id",
 * then the table; a failed connection prints "event: RDMA_CM_EVENT_<name>, error: <status>".
 * The exit status is 0 (the original returns the last call's status, 0 when they succeed).
 *
 * Where droce knowingly differs: resolve addr gives up after -t ms times (-r + 1) and prints
 * "RDMA_CM_EVENT_ADDR_ERROR, error: -110" for each connection; the server stops on
 * SIGINT/SIGTERM (exit 128+N), the original only by being killed.
 *
 * Threads: one lcore runs the stack, the device, the CM and the steps below as a poll hook.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "app_start.h"
#include "stk_lcore.h"
#include "stk_neigh.h"
#include "stk_stack.h"

#define CT_PORT 7471
#define CT_BACKLOG 4096
#define CT_LINGER_MS 300

/* X(name, the original's line when it starts, the table's name): the client's steps */
#define CT_STEP_LIST(X)                                                                            \
	X(CREATE_ID, "creating id", "create id")                                                   \
	X(BIND, "binding source address", "bind addr")                                             \
	X(RESOLVE_ADDR, "resolving address", "resolve addr")                                       \
	X(RESOLVE_ROUTE, "resolving route", "resolve route")                                       \
	X(CREATE_QP, "creating qp", "create qp")                                                   \
	X(CONNECT, "connecting", "connect")                                                        \
	X(DISCONNECT, "disconnecting", "disconnect")                                               \
	X(DESTROY, "destroying id", "destroy")

#define CT_STEP_ENUM_(n, l, t) STEP_##n,
enum ct_step { CT_STEP_LIST(CT_STEP_ENUM_) STEP_CNT };
#undef CT_STEP_ENUM_
#define CT_STEP_LINE_(n, l, t) l,
static const char *const step_line[] = {CT_STEP_LIST(CT_STEP_LINE_)};
#undef CT_STEP_LINE_
#define CT_STEP_STR_(n, l, t) t,
static const char *const step_str[] = {CT_STEP_LIST(CT_STEP_STR_)};
#undef CT_STEP_STR_

/** One connection: its id, QP and CQs, and when each of its steps started and ended. */
struct ct_node {
	struct roce_cm_id *id;
	struct roce_qp *qp;
	struct roce_cq *cq[2];
	uint64_t times[STEP_CNT][2]; /**< TSC; 0 = not taken */
	bool error, done;
	LIST_ENTRY(ct_node) link; /**< server: on the list of accepted connections */
};

static struct {
	struct app_start app;
	const char *dst_arg, *src_arg;
	struct stk_ipaddr dst, src;
	uint16_t port;
	int connections, retries, timeout_ms;
	struct ct_node *nodes;
	uint64_t times[STEP_CNT][2];
	enum ct_step step;
	bool step_started;
	int started, completed; /**< of the asynchronous step under way */
	int tries;		/**< resolve addr: attempts made */
	uint64_t deadline, probe_at, linger_until;
	struct roce_cm_id *listen_id;
	LIST_HEAD(, ct_node) accepted; /**< server: connections not yet torn down */
	volatile sig_atomic_t signo;
} g = {
	.port = CT_PORT,
	.connections = 100,
	.retries = 2,
	.timeout_ms = 2000,
};

/* ------------------------------------------------------------------ QPs */

/* rdma_create_qp(id, NULL, attr): librdmacm makes a send and a receive CQ for the id. */
static int create_qp(struct ct_node *n)
{
	struct roce_qp_init_attr ia;

	n->cq[0] = roce_create_cq(g.app.dev, 1);
	n->cq[1] = roce_create_cq(g.app.dev, 1);
	if (!n->cq[0] || !n->cq[1])
		return -ENOMEM;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = n->cq[0];
	ia.recv_cq = n->cq[1];
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	n->qp = roce_create_qp(g.app.pd, &ia);
	return n->qp ? 0 : -ENOMEM;
}

static void destroy_qp(struct ct_node *n)
{
	struct roce_wc wc[2];

	for (int i = 0; i < 2; i++)
		if (n->cq[i])
			while (roce_poll_cq(n->cq[i], 2, wc) > 0)
				;
	if (n->qp)
		roce_destroy_qp(n->qp);
	for (int i = 0; i < 2; i++)
		if (n->cq[i])
			roce_destroy_cq(n->cq[i]);
	n->qp = NULL;
	n->cq[0] = n->cq[1] = NULL;
}

/* ------------------------------------------------------------------ the server */

/* A server's connection: its id, QP and CQs gone. */
static void server_free(struct ct_node *n)
{
	LIST_REMOVE(n, link);
	roce_cm_destroy_id(n->id);
	destroy_qp(n);
	free(n);
}

/* The server's nodes are its accepted connections: the id's context. */
static void server_event(const struct roce_cm_event *ev)
{
	struct ct_node *n = ev->id->context;

	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		n = calloc(1, sizeof(*n));
		if (!n || create_qp(n) != 0) {
			fprintf(stderr, "failure creating qp: %s\n", strerror(ENOMEM));
			goto fail;
		}
		n->id = ev->id;
		ev->id->context = n;
		if (roce_cm_accept(ev->id, n->qp, NULL) != 0) {
			fprintf(stderr, "failure accepting: %s\n", strerror(EINVAL));
			goto fail;
		}
		LIST_INSERT_HEAD(&g.accepted, n, link);
		return;
	fail:
		printf("failing connection request\n");
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		if (n)
			destroy_qp(n);
		free(n);
		return;
	case ROCE_CM_EVENT_DISCONNECTED:
	case ROCE_CM_EVENT_REJECTED:
	case ROCE_CM_EVENT_UNREACHABLE:
		/* disc_handler_thread: rdma_disconnect, rdma_destroy_qp, rdma_destroy_id */
		if (n)
			server_free(n);
		return;
	default:
		return;
	}
}

/* ------------------------------------------------------------------ the client's steps */

static void end_perf(struct ct_node *n, enum ct_step s)
{
	n->times[s][1] = rte_get_tsc_cycles();
}

static void client_event(const struct roce_cm_event *ev)
{
	struct ct_node *n = ev->id->context;

	if (!n)
		return;
	switch (ev->event) {
	case ROCE_CM_EVENT_ESTABLISHED:
		if (!n->done) {
			end_perf(n, STEP_CONNECT);
			n->done = true;
			g.completed++;
		}
		break;
	case ROCE_CM_EVENT_REJECTED:
	case ROCE_CM_EVENT_UNREACHABLE:
		printf("event: RDMA_CM_EVENT_%s, error: %d\n", roce_cm_event_str(ev->event),
		       ev->status);
		if (!n->done) {
			end_perf(n, STEP_CONNECT);
			n->done = true;
			g.completed++;
		}
		n->error = true;
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		if (g.step == STEP_DISCONNECT && !n->done) {
			end_perf(n, STEP_DISCONNECT);
			n->done = true;
			g.completed++;
		}
		break;
	default:
		break;
	}
}

/* resolve addr: the MAC of the server (or of the gateway towards it) in the stack's table. */
static int neigh_state(struct stk_lcore *lc, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(g.app.iface);
	const struct stk_ipaddr *hop = &g.dst;
	const struct stk_neigh *nb;

	if (!stk_iface_on_link(ifc, &g.dst))
		hop = g.dst.family == 4 ? &ifc->gw4 : &ifc->gw6;
	if (!hop->family)
		return -ENETUNREACH;
	nb = stk_neigh_lookup(lc->neigh, ifc->idx, hop);
	if (nb && nb->state != STK_NEIGH_INCOMPLETE)
		return 1;
	if (now >= g.probe_at) {
		stk_neigh_probe(lc, ifc, hop);
		g.probe_at = now + app_ms(&g.app, 200);
	}
	return 0;
}

/* Start step @p s: its line, its clock, the work for each connection. @return true when the
 * step is done at once (synchronous steps). */
static bool step_start(enum ct_step s, uint64_t now)
{
	struct roce_cm_conn_param p;

	if (s == STEP_BIND && !g.src_arg)
		return true;
	printf("%s\n", step_line[s]);
	g.times[s][0] = rte_get_tsc_cycles();
	g.started = g.completed = 0;
	for (int i = 0; i < g.connections; i++) {
		struct ct_node *n = &g.nodes[i];

		n->done = false;
		if (n->error && s != STEP_DESTROY)
			continue;
		n->times[s][0] = rte_get_tsc_cycles();
		switch (s) {
		case STEP_CREATE_ID:
			n->id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, n);
			if (!n->id) {
				fprintf(stderr, "rdma_create_id: %s\n", strerror(ENOSPC));
				n->error = true;
				continue;
			}
			break;
		case STEP_BIND:
			if (!stk_iface_is_local(stk_iface_get(g.app.iface), &g.src)) {
				fprintf(stderr, "failure bind addr: %s\n", strerror(EADDRNOTAVAIL));
				n->error = true;
				continue;
			}
			break;
		case STEP_RESOLVE_ADDR:
			g.started++;
			continue; /* ends when the neighbour is known */
		case STEP_RESOLVE_ROUTE:
			break;
		case STEP_CREATE_QP:
			if (create_qp(n) != 0) {
				fprintf(stderr, "failure creating qp: %s\n", strerror(ENOMEM));
				n->error = true;
				continue;
			}
			break;
		case STEP_CONNECT:
			memset(&p, 0, sizeof(p));
			p.responder_resources = 1;
			p.initiator_depth = 1;
			p.retry_count = (uint8_t)RTE_MAX(1, RTE_MIN(g.retries, 7));
			if (roce_cm_connect(n->id, &g.dst, g.port, n->qp, &p) != 0) {
				fprintf(stderr, "failure rconnecting: %s\n", strerror(EINVAL));
				n->error = true;
				continue;
			}
			g.started++;
			continue;
		case STEP_DISCONNECT:
			if (roce_cm_disconnect(n->id) == 0)
				g.started++;
			else
				n->done = true;
			destroy_qp(n);
			continue;
		case STEP_DESTROY:
			if (n->id)
				roce_cm_destroy_id(n->id);
			n->id = NULL;
			destroy_qp(n);
			break;
		default:
			break;
		}
		end_perf(n, s);
	}
	if (s == STEP_RESOLVE_ADDR) {
		g.tries = 1;
		g.deadline = now + app_ms(&g.app, (uint64_t)g.timeout_ms);
	}
	return g.started == 0;
}

/* The asynchronous steps: @return true when every connection has its answer. */
static bool step_done(struct stk_lcore *lc, uint64_t now)
{
	if (g.step == STEP_RESOLVE_ADDR) {
		int st = neigh_state(lc, now);

		if (st == 0 && now >= g.deadline && g.tries <= g.retries) {
			g.tries++;
			g.deadline = now + app_ms(&g.app, (uint64_t)g.timeout_ms);
		} else if (st == 0 && now >= g.deadline) {
			st = -ETIMEDOUT;
		}
		if (st == 0)
			return false;
		for (int i = 0; i < g.connections; i++) {
			struct ct_node *n = &g.nodes[i];

			if (n->error)
				continue;
			end_perf(n, STEP_RESOLVE_ADDR);
			if (st < 0) {
				printf("RDMA_CM_EVENT_ADDR_ERROR, error: %d\n", st);
				n->error = true;
			}
		}
		return true;
	}
	return g.completed >= g.started;
}

static void step_end(enum ct_step s)
{
	if (s == STEP_BIND && !g.src_arg)
		return;
	g.times[s][1] = rte_get_tsc_cycles();
}

static double tsc_us(uint64_t d)
{
	return (double)d * 1e6 / (double)g.app.hz;
}

/* cmtime's show_perf(): the same columns and formats. */
static void show_perf(void)
{
	printf("step              total ms     max ms     min us  us / conn\n");
	for (int s = 0; s < STEP_CNT; s++) {
		double max = 0, min = 999999999., us;

		if (s == STEP_BIND && !g.src_arg)
			continue;
		for (int c = 0; c < g.connections; c++) {
			const uint64_t *t = g.nodes[c].times[s];

			if (!t[0] || !t[1])
				continue;
			us = tsc_us(t[1] - t[0]);
			max = us > max ? us : max;
			min = us < min ? us : min;
		}
		us = tsc_us(g.times[s][1] - g.times[s][0]);
		printf("%-13s: %11.2f%11.2f%11.2f%11.2f\n", step_str[s], us / 1000., max / 1000.,
		       min, us / g.connections);
	}
}

static void ct_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();
	(void)arg;

	if (g.signo) {
		stk_stop();
		return;
	}
	while (roce_cm_get_event(g.app.cm, &ev) == 0) {
		if (g.dst_arg)
			client_event(&ev);
		else
			server_event(&ev);
	}
	if (!g.dst_arg)
		return;
	while (g.step < STEP_CNT) {
		if (!g.step_started) {
			g.step_started = true;
			if (!step_start(g.step, now) && !step_done(lc, now))
				return;
		} else if (!step_done(lc, now)) {
			return;
		}
		step_end(g.step);
		g.step++;
		g.step_started = false;
	}
	if (!g.linger_until)
		g.linger_until = now + app_ms(&g.app, CT_LINGER_MS);
	if (now >= g.linger_until)
		stk_stop();
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
	printf("\t[-c connections]\n");
	printf("\t[-p port_number]\n");
	printf("\t[-r retries]\n");
	printf("\t[-t timeout_ms]\n");
	printf("\t[--config FILE]\tdroce INI configuration (or DROCE_CONF)\n");
}

static int run(char *argv0, int eal_argc, char **eal_argv)
{
	int rc;

	if (g.src_arg && (rc = app_get_addr(g.src_arg, &g.src)) != 0) {
		printf("getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	if (g.dst_arg && (rc = app_get_addr(g.dst_arg, &g.dst)) != 0) {
		printf("getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	rc = app_start_stack(&g.app, argv0, eal_argc, eal_argv);
	if (rc)
		return rc;
	rc = app_pick_iface(&g.app, g.dst_arg ? NULL : (g.src_arg ? &g.src : NULL),
			    g.dst_arg ? &g.dst : NULL);
	if (rc) {
		fprintf(stderr, "bind address failed: %s\n", strerror(-rc));
		return rc;
	}
	if (app_open_dev(&g.app) != 0)
		return -1;
	if (g.dst_arg) {
		g.nodes = calloc((size_t)g.connections, sizeof(*g.nodes));
		if (!g.nodes)
			return -ENOMEM;
	} else {
		g.listen_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
		rc = g.listen_id ? roce_cm_listen(g.listen_id, g.port, CT_BACKLOG) : -ENOMEM;
		if (rc) {
			fprintf(stderr, "failure trying to listen: %s\n", strerror(-rc));
			return rc;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), ct_poll, NULL);
	stk_run();
	if (g.signo)
		return 128 + g.signo;
	if (g.dst_arg)
		show_perf();
	return 0;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, op, ret;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.app.prog = "droce-cmtime";
	app_split_args(&g.app, argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((op = getopt(app_argc, app_argv, "s:b:c:p:r:t:")) != -1) {
		switch (op) {
		case 's':
			g.dst_arg = optarg;
			break;
		case 'b':
			g.src_arg = optarg;
			break;
		case 'c':
			g.connections = atoi(optarg);
			break;
		case 'p':
			g.port = (uint16_t)atoi(optarg);
			break;
		case 'r':
			g.retries = atoi(optarg);
			break;
		case 't':
			g.timeout_ms = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			exit(1);
		}
	}
	if (g.connections < 1 || g.connections > 4000) {
		fprintf(stderr, "droce-cmtime: -c is 1..4000\n");
		exit(1);
	}
	ret = run(argv[0], eal_argc, eal_argv);
	if (g.nodes)
		for (int i = 0; i < g.connections; i++) {
			if (g.nodes[i].id)
				roce_cm_destroy_id(g.nodes[i].id);
			destroy_qp(&g.nodes[i]);
		}
	free(g.nodes);
	while (!LIST_EMPTY(&g.accepted))
		server_free(LIST_FIRST(&g.accepted));
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	app_stop(&g.app);
	return ret;
}
