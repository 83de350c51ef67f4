/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_peer.c - one side of a two-process RC test over a real link (tests/integration/rc_veth.sh).
 * The two processes exchange QPN, PSN, rkey and buffer address through files in a directory
 * (the out-of-band step perftest does over TCP), connect an RC QP pair and then:
 *   client: SENDs, RDMA WRITEs into the server's buffer and RDMA READs it back, for sizes from
 *           0 B to 1 MiB, checking every completion and every byte it reads, then SENDs "done";
 *   server: posts receives, checks every SEND byte for byte, and on "done" checks the bytes the
 *           client wrote into its buffer.
 * Usage: rc_peer -c FILE --role client|server --dir DIR --peer IP [--linger SEC]
 * Exit 0 = all verified.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "roce_verbs.h"
#include "stk_config.h"
#include "stk_stack.h"

#define BUF (4u << 20)
#define RECV_AT (2u << 20) /* the server receives SENDs here; the client WRITEs below it */

static const uint32_t sizes[] = {0, 1, 1000, 1024, 1025, 4096, 65536, 300000, 1048576};
enum { N = sizeof(sizes) / sizeof(sizes[0]) };

enum step {
	ST_SEND,  /**< client: SEND sizes[i] */
	ST_WRITE, /**< client: WRITE sizes[i] into the server */
	ST_READ,  /**< client: READ it back */
	ST_DONE,  /**< client: SEND "done" */
	ST_EXIT,
};

static struct {
	bool server;
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint32_t peer_qpn, peer_psn, peer_rkey;
	uint64_t peer_va;
	struct stk_ipaddr peer_ip;
	enum step step;
	unsigned i;
	bool waiting;
	int status;
	unsigned recvs;
	uint64_t deadline;
	int linger_s; /**< keep serving this long after the result (telemetry checks) */
	uint64_t linger_until;
} g;

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		p[k] = (uint8_t)(k * 7 + seed * 13 + (k >> 10));
}

static bool check(const uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k] != (uint8_t)(k * 7 + seed * 13 + (k >> 10)))
			return false;
	return true;
}

static void finish(int status, const char *why)
{
	if (status)
		fprintf(stderr, "rc_peer %s: FAIL: %s\n", g.server ? "server" : "client", why);
	else
		printf("rc_peer %s: %s\n", g.server ? "server" : "client", why);
	fflush(stdout);
	g.status = status;
	g.step = ST_EXIT;
	if (g.linger_s > 0)
		g.linger_until = rte_get_tsc_cycles() + (uint64_t)g.linger_s * rte_get_tsc_hz();
	else
		stk_stop();
}

static void post_send(enum roce_wr_opcode op, uint32_t off, uint32_t len, uint64_t raddr)
{
	struct roce_sge sg = {.addr = (uintptr_t)(g.buf + off), .length = len, .lkey = g.mr->lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = g.i;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = g.peer_rkey;
	if (roce_post_send(g.qp, &w, &bad) != 0)
		finish(1, "post_send refused");
}

static void post_recv(void)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)(g.buf + RECV_AT), .length = BUF - RECV_AT, .lkey = g.mr->lkey};
	struct roce_recv_wr r = {.sg_list = &sg, .num_sge = 1}, *bad;

	if (roce_post_recv(g.qp, &r, &bad) != 0)
		finish(1, "post_recv refused");
}

static void server_poll(void)
{
	struct roce_wc wc;

	if (roce_poll_cq(g.cq, 1, &wc) != 1)
		return;
	if (wc.status != ROCE_WC_SUCCESS || wc.opcode != ROCE_WC_RECV) {
		finish(1, roce_wc_status_str(wc.status));
		return;
	}
	if (wc.byte_len == 4 && !memcmp(g.buf + RECV_AT, "done", 4)) {
		/* RC ordering: the last WRITE (1 MiB at offset 0) is in place before this SEND */
		if (!check(g.buf, sizes[N - 1], 900 + N - 1)) {
			finish(1, "the bytes the client wrote differ");
			return;
		}
		finish(0, "all SENDs and the WRITEs verified");
		return;
	}
	if (g.recvs >= N || wc.byte_len != sizes[g.recvs] ||
	    !check(g.buf + RECV_AT, wc.byte_len, g.recvs)) {
		finish(1, "a SEND differs");
		return;
	}
	g.recvs++;
	post_recv();
}

static void client_poll(void)
{
	struct roce_wc wc;

	if (g.waiting) {
		if (roce_poll_cq(g.cq, 1, &wc) != 1)
			return;
		if (wc.status != ROCE_WC_SUCCESS) {
			finish(1, roce_wc_status_str(wc.status));
			return;
		}
		g.waiting = false;
		if (g.step == ST_READ) {
			if (!check(g.buf + RECV_AT, sizes[g.i], 900 + g.i)) {
				finish(1, "READ data differs");
				return;
			}
			g.step = ST_SEND;
			if (++g.i == N)
				g.step = ST_DONE;
		} else if (g.step == ST_SEND) {
			g.step = ST_WRITE;
		} else if (g.step == ST_WRITE) {
			g.step = ST_READ;
		} else if (g.step == ST_DONE) {
			finish(0, "all SENDs, WRITEs and READs verified");
		}
		return;
	}
	switch (g.step) {
	case ST_SEND:
		fill(g.buf, sizes[g.i], g.i);
		post_send(ROCE_WR_SEND, 0, sizes[g.i], 0);
		break;
	case ST_WRITE:
		fill(g.buf, sizes[g.i], 900 + g.i);
		post_send(ROCE_WR_RDMA_WRITE, 0, sizes[g.i], g.peer_va);
		break;
	case ST_READ:
		memset(g.buf + RECV_AT, 0, sizes[g.i] + 1);
		post_send(ROCE_WR_RDMA_READ, RECV_AT, sizes[g.i], g.peer_va);
		break;
	case ST_DONE:
		memcpy(g.buf, "done", 4);
		post_send(ROCE_WR_SEND, 0, 4, 0);
		break;
	default:
		return;
	}
	g.waiting = true;
}

static void peer_poll(struct stk_lcore *lc, void *arg)
{
	(void)lc;
	(void)arg;
	if (g.step == ST_EXIT) {
		if (g.linger_until && rte_get_tsc_cycles() > g.linger_until)
			stk_stop();
		return;
	}
	if (rte_get_tsc_cycles() > g.deadline) {
		finish(1, "timed out");
		return;
	}
	if (g.server)
		server_poll();
	else
		client_poll();
}

static int exchange(const char *dir)
{
	char mine[512], theirs[512], tmp[520];
	FILE *f;

	snprintf(mine, sizeof(mine), "%s/%s.info", dir, g.server ? "server" : "client");
	snprintf(theirs, sizeof(theirs), "%s/%s.info", dir, g.server ? "client" : "server");
	snprintf(tmp, sizeof(tmp), "%s.tmp", mine);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%u %u %u %" PRIu64 "\n", roce_qp_num(g.qp), 100u, g.mr->rkey,
		(uint64_t)(uintptr_t)g.buf);
	fclose(f);
	rename(tmp, mine); /* appears whole */
	for (int t = 0; t < 300; t++) {
		f = fopen(theirs, "r");
		if (f) {
			int n = fscanf(f, "%u %u %u %" SCNu64, &g.peer_qpn, &g.peer_psn,
				       &g.peer_rkey, &g.peer_va);

			fclose(f);
			return n == 4 ? 0 : -EINVAL;
		}
		usleep(100000);
	}
	return -ETIMEDOUT;
}

static int connect_qp(void)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	if (roce_modify_qp(g.qp, &a,
			   ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
				   ROCE_QP_ACCESS_FLAGS))
		return -1;
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = ROCE_MTU_1024;
	a.dest_qp_num = g.peer_qpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.dgid_ip = g.peer_ip;
	a.ah_attr.dscp = 26;
	if (roce_modify_qp(g.qp, &a,
			   ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				   ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				   ROCE_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = g.peer_psn;
	a.timeout = 14; /* 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return roce_modify_qp(g.qp, &a,
			      ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

static void on_signal(int sig)
{
	(void)sig;
	stk_stop();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'}, {"role", required_argument, NULL, 'r'},
		{"dir", required_argument, NULL, 'd'},	  {"peer", required_argument, NULL, 'p'},
		{"linger", required_argument, NULL, 'l'}, {NULL, 0, NULL, 0},
	};
	const char *config = NULL, *dir = NULL, *role = NULL, *peer = NULL;
	int eal_argc, app_argc, c;
	char **eal_argv, **app_argv, err[512];
	struct stk_config cfg;
	struct roce_qp_init_attr ia;

	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((c = getopt_long(app_argc, app_argv, "c:r:d:p:l:", opts, NULL)) != -1) {
		if (c == 'c')
			config = optarg;
		else if (c == 'r')
			role = optarg;
		else if (c == 'd')
			dir = optarg;
		else if (c == 'p')
			peer = optarg;
		else if (c == 'l')
			g.linger_s = atoi(optarg);
		else
			return 2;
	}
	if (!config || !dir || !role || !peer || stk_ipaddr_parse(peer, &g.peer_ip) != 0 ||
	    (strcmp(role, "client") && strcmp(role, "server"))) {
		fprintf(stderr,
			"usage: rc_peer -c FILE --role client|server --dir DIR --peer IP\n");
		return 2;
	}
	g.server = !strcmp(role, "server");
	stk_config_default(&cfg);
	if (stk_config_load(config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "rc_peer: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0 || stk_setup(&cfg) != 0)
		return 3;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	g.dev = roce_dev_open(0);
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	g.cq = g.dev ? roce_create_cq(g.dev, 256) : NULL;
	g.buf = rte_zmalloc("rc_peer", BUF, 4096);
	g.mr = g.pd && g.buf ? roce_reg_mr(g.pd, g.buf, BUF, (uintptr_t)g.buf, ROCE_ACCESS_ALL)
			     : NULL;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = g.cq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	g.qp = g.mr ? roce_create_qp(g.pd, &ia) : NULL;
	if (!g.qp || exchange(dir) != 0 || connect_qp() != 0) {
		fprintf(stderr, "rc_peer: set-up or exchange failed\n");
		return 3;
	}
	if (g.server)
		for (int k = 0; k < 8; k++)
			post_recv();
	g.deadline = rte_get_tsc_cycles() + 60 * rte_get_tsc_hz();
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, g.dev);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), peer_poll, NULL);
	printf("rc_peer %s: connected, QP 0x%x -> 0x%x\n", role, roce_qp_num(g.qp), g.peer_qpn);
	fflush(stdout);
	g.status = 1;
	stk_run();
	/* let the last ACKs leave before the port closes */
	return g.status;
}
