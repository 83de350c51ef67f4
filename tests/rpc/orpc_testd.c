/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_testd.c - droce's RPC server on kernel sockets, for tests against real RPC clients
 * (Linux's rpcinfo): the portmapper (PMAP v2, RPCBIND v3/v4) on port 111 over TCP and UDP, and
 * the test programs of orpc_testprog.h on a second port, registered with the portmapper.
 *
 *   orpc_testd ADDRESS [SECONDS]   serve until SIGTERM/SIGINT, or for SECONDS
 *
 * It prints "ready" once every socket is bound, and its counters when it stops.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orpc_pmap.h"
#include "orpc_tcp.h"
#include "orpc_testprog.h"

#define TEST_PORT 20050

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static struct orpc_tcp_srv srv;
	static struct orpc_pmap pm;
	static struct orpc_svc svc;
	struct timespec nap = {0, 200000};
	const char *ip;
	time_t end;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s ADDRESS [SECONDS]\n", argv[0]);
		return 2;
	}
	ip = argv[1];
	end = argc > 2 ? time(NULL) + atoi(argv[2]) : 0;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	orpc_svc_add(&svc, &orpc_pmap_program);
	orpc_svc_add(&svc, &orpc_test_program);
	orpc_svc_add(&svc, &orpc_test_sys_program);
	orpc_pmap_attach(&pm);
	for (uint32_t v = 2; v <= 4; v++) {
		orpc_pmap_register(&pm, ORPC_PMAP_PROG, v, "tcp", ip, ORPC_PMAP_PORT);
		orpc_pmap_register(&pm, ORPC_PMAP_PROG, v, "udp", ip, ORPC_PMAP_PORT);
	}
	for (uint32_t v = 1; v <= 2; v++) {
		orpc_pmap_register(&pm, ORPC_TEST_PROG, v, "tcp", ip, TEST_PORT);
		orpc_pmap_register(&pm, ORPC_TEST_PROG, v, "udp", ip, TEST_PORT);
	}
	orpc_pmap_register(&pm, ORPC_TEST_SYS_PROG, 1, "tcp", ip, TEST_PORT);
	/* RFC 5665: RPC-over-RDMA is listed with netid rdma (no server behind it here) */
	orpc_pmap_register(&pm, ORPC_TEST_PROG, 1, "rdma", ip, 20049);
	rc = orpc_tcp_srv_init(&srv, &svc, 0);
	if (!rc)
		rc = orpc_tcp_srv_listen(&srv, ip, ORPC_PMAP_PORT, 0, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&srv, ip, ORPC_PMAP_PORT, 1, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&srv, ip, TEST_PORT, 0, NULL);
	if (!rc)
		rc = orpc_tcp_srv_listen(&srv, ip, TEST_PORT, 1, NULL);
	if (rc) {
		fprintf(stderr, "orpc_testd: cannot serve on %s: %s\n", ip, strerror(-rc));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop && (!end || time(NULL) < end))
		if (orpc_tcp_srv_poll(&srv) == 0)
			nanosleep(&nap, NULL);
	printf("calls %llu records %llu udp %llu accepted %llu closed %llu garbage %llu\n",
	       (unsigned long long)svc.stats.calls, (unsigned long long)srv.stats.records,
	       (unsigned long long)srv.stats.udp_calls, (unsigned long long)srv.stats.accepted,
	       (unsigned long long)srv.stats.closed, (unsigned long long)srv.stats.closed_garbage);
	for (int o = 0; o < ORPC_OUT_NUM; o++)
		if (svc.stats.outcome[o])
			printf("  %s %llu\n", orpc_outcome_name((enum orpc_outcome)o),
			       (unsigned long long)svc.stats.outcome[o]);
	orpc_tcp_srv_fini(&srv);
	return 0;
}
