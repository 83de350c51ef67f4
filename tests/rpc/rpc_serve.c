/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpc_serve.c - droce serving RPC at its own address, for tests with real peers: the stack and
 * the RoCE device from an INI file; the portmapper (PMAP v2, RPCBIND v3/v4) and the test
 * programs (tests/rpc/orpc_testprog.h) on the kernel's TCP and UDP sockets bound to droce's
 * IPv4 address (they reach the wire through droce's exception TAP, so they speak from droce's
 * address); and the test programs over RPC-over-RDMA on port 20049 (RDMA CM, RFC 8797), one
 * endpoint per connection. Everything is polled from the main lcore's loop; nothing blocks.
 *
 * Usage: rpc_serve [EAL args --] --config FILE [--seconds N]
 * Prints "serving" when ready and its counters when it stops (SIGINT/SIGTERM, or N seconds).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "orpc_pmap.h"
#include "orpc_tcp.h"
#include "orpc_testprog.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define TEST_PORT 20050
#define MAX_CONNS 8

static struct {
	const char *config;
	uint64_t end;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cm_id *listen;
	struct orpc_svc svc, rdma_svc;
	struct orpc_pmap pm;
	struct orpc_tcp_srv tcp;
	struct {
		struct roce_cm_id *id;
		struct rpcrdma_ep *ep;
		bool closing; /* destroyed once the stack has let go of its regions */
	} conns[MAX_CONNS];
	uint64_t accepted, rejected, closed;
} g;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_cm_event(const struct roce_cm_event *ev)
{
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_conn_param p = {0};
	int k;

	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		for (k = 0; k < MAX_CONNS && g.conns[k].id; k++)
			;
		if (k == MAX_CONNS) {
			roce_cm_reject(ev->id, NULL, 0);
			roce_cm_destroy_id(ev->id);
			g.rejected++;
			return;
		}
		g.conns[k].ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_SERVER, NULL, &g.rdma_svc);
		if (!g.conns[k].ep) {
			roce_cm_reject(ev->id, NULL, 0);
			roce_cm_destroy_id(ev->id);
			g.rejected++;
			return;
		}
		g.conns[k].id = ev->id;
		p.private_data = priv;
		p.private_data_len = rpcrdma_ep_private_data(g.conns[k].ep, priv);
		if (roce_cm_accept(ev->id, rpcrdma_ep_qp(g.conns[k].ep), &p) != 0 ||
		    rpcrdma_ep_start(g.conns[k].ep, ev->private_data, ev->private_data_len) != 0) {
			roce_cm_destroy_id(ev->id);
			g.conns[k].closing = true;
			g.rejected++;
			return;
		}
		g.accepted++;
		printf("rdma: connection %d accepted\n", k);
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		for (k = 0; k < MAX_CONNS; k++) {
			if (g.conns[k].id != ev->id)
				continue;
			roce_cm_destroy_id(g.conns[k].id);
			g.conns[k].closing = true;
			g.closed++;
			printf("rdma: connection %d closed\n", k);
		}
		break;
	default:
		break;
	}
}

static void serve_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;

	(void)lc, (void)arg;
	while (roce_cm_get_event(g.cm, &ev) == 0)
		on_cm_event(&ev);
	for (int k = 0; k < MAX_CONNS; k++) {
		if (g.conns[k].closing && rpcrdma_ep_destroy(g.conns[k].ep) == 0)
			memset(&g.conns[k], 0, sizeof(g.conns[k]));
		else if (g.conns[k].ep && !g.conns[k].closing)
			rpcrdma_ep_poll(g.conns[k].ep);
	}
	orpc_tcp_srv_poll(&g.tcp);
	if (stop || (g.end && rte_get_tsc_cycles() > g.end))
		stk_stop();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", 1, NULL, 'c'}, {"seconds", 1, NULL, 's'}, {NULL, 0, NULL, 0}};
	int eal_argc, app_argc, o, rc = 1;
	char **eal_argv, **app_argv;
	struct stk_config cfg;
	const struct stk_iface *ifc;
	char err[512], ip[64];
	long secs = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((o = getopt_long(app_argc, app_argv, "", opts, NULL)) != -1) {
		if (o == 'c')
			g.config = optarg;
		else if (o == 's')
			secs = strtol(optarg, NULL, 0);
		else
			return 2;
	}
	if (!g.config) {
		fprintf(stderr, "usage: rpc_serve [EAL --] --config FILE [--seconds N]\n");
		return 2;
	}
	stk_config_default(&cfg);
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "rpc_serve: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0 || stk_setup(&cfg) != 0) {
		fprintf(stderr, "rpc_serve: the stack did not start\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ifc = stk_iface_get(0);
	stk_ipaddr_str(&ifc->ip4, ip, sizeof(ip));
	g.dev = roce_dev_open(0);
	g.cm = g.dev ? roce_cm_open(g.dev) : NULL;
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	g.listen = g.cm ? roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL) : NULL;
	if (!g.listen || !g.pd || roce_cm_listen(g.listen, RPCRDMA_NFS_PORT, 8) != 0) {
		fprintf(stderr, "rpc_serve: no RoCE device, CM or listener: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	orpc_svc_add(&g.svc, &orpc_pmap_program);
	orpc_svc_add(&g.svc, &orpc_test_program);
	orpc_svc_add(&g.svc, &orpc_test_sys_program);
	orpc_svc_add(&g.rdma_svc, &orpc_test_program);
	orpc_svc_add(&g.rdma_svc, &orpc_test_sys_program);
	orpc_pmap_attach(&g.pm);
	for (uint32_t v = 2; v <= 4; v++) {
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "tcp", ip, ORPC_PMAP_PORT);
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "udp", ip, ORPC_PMAP_PORT);
	}
	for (uint32_t v = 1; v <= 2; v++) {
		orpc_pmap_register(&g.pm, ORPC_TEST_PROG, v, "tcp", ip, TEST_PORT);
		orpc_pmap_register(&g.pm, ORPC_TEST_PROG, v, "udp", ip, TEST_PORT);
		orpc_pmap_register(&g.pm, ORPC_TEST_PROG, v, "rdma", ip, RPCRDMA_NFS_PORT);
	}
	orpc_pmap_register(&g.pm, ORPC_TEST_SYS_PROG, 1, "tcp", ip, TEST_PORT);
	rc = orpc_tcp_srv_init(&g.tcp, &g.svc, 0);
	if (!rc)
		rc = orpc_tcp_srv_listen(&g.tcp, ip, ORPC_PMAP_PORT, 0, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&g.tcp, ip, ORPC_PMAP_PORT, 1, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&g.tcp, ip, TEST_PORT, 0, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&g.tcp, ip, TEST_PORT, 1, NULL);
	if (rc) {
		fprintf(stderr, "rpc_serve: cannot bind %s: %s\n", ip, strerror(-rc));
		rc = 1;
		goto out;
	}
	g.end = secs > 0 ? rte_get_tsc_cycles() + (uint64_t)secs * rte_get_tsc_hz() : 0;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, g.dev);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), serve_poll, NULL);
	printf("serving at %s: portmapper on tcp/udp %u, test programs on tcp/udp %u and rdma %u\n",
	       ip, ORPC_PMAP_PORT, TEST_PORT, RPCRDMA_NFS_PORT);
	stk_run();
	printf("tcp: accepted %llu, records %llu, udp calls %llu, closed %llu (garbage %llu)\n",
	       (unsigned long long)g.tcp.stats.accepted, (unsigned long long)g.tcp.stats.records,
	       (unsigned long long)g.tcp.stats.udp_calls, (unsigned long long)g.tcp.stats.closed,
	       (unsigned long long)g.tcp.stats.closed_garbage);
	printf("rdma: accepted %llu, rejected %llu, closed %llu, calls %llu\n",
	       (unsigned long long)g.accepted, (unsigned long long)g.rejected,
	       (unsigned long long)g.closed, (unsigned long long)g.rdma_svc.stats.calls);
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		if (g.svc.stats.outcome[k] + g.rdma_svc.stats.outcome[k])
			printf("  %s %llu\n", orpc_outcome_name((enum orpc_outcome)k),
			       (unsigned long long)(g.svc.stats.outcome[k] +
						    g.rdma_svc.stats.outcome[k]));
	rc = 0;
out:
	orpc_tcp_srv_fini(&g.tcp);
	for (int k = 0; k < MAX_CONNS; k++) {
		if (g.conns[k].id && !g.conns[k].closing)
			roce_cm_destroy_id(g.conns[k].id);
		for (int i = 0;
		     g.conns[k].ep && rpcrdma_ep_destroy(g.conns[k].ep) == -EBUSY && i < 1000000;
		     i++)
			stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	}
	if (g.listen)
		roce_cm_destroy_id(g.listen);
	if (g.cm)
		roce_cm_close(g.cm);
	if (g.pd)
		roce_dealloc_pd(g.pd);
	stk_teardown();
	if (g.dev)
		roce_dev_close(g.dev);
	rte_eal_cleanup();
	return rc;
}
