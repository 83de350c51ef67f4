/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf-script.c - each test's sequence of exchanges, as perftest's per-tool main()
 * runs it (write_bw.c, read_bw.c, send_bw.c, atomic_bw.c, write_lat.c, read_lat.c,
 * send_lat.c); the control thread's body. The peer is satisfied only if every exchange comes
 * in the same order and size, so each test's order is spelled out below. H is a key
 * handshake (ctx_hand_shake()), H(i) one per QP.
 *
 * All tests start alike: connect the channel, versions, page and cache line size, MTU
 * (perftest's establish_connection(), exchange_versions(), check_sys_data(), check_mtu());
 * with -R then H (of zeroed keys), the test connections through rdma_cm on the same port,
 * H again (create_rdma_cm_connection()). Then:
 *
 *   write_bw, read_bw, atomic_bw: info; H(i); [TCP: QPs up]; local lines; H(i) + remote
 *     lines; H. The server prints the table head, waits in H for the client's end, takes
 *     its report (xchg_bw_reports()) and prints it. The client runs each size and prints
 *     its line, then H, the reports, close.
 *   send_bw: info; H(i); [TCP: QPs up]; H; local; H(i) + remote; table head; per size:
 *     [server: receives posted]; H; run; line; [-a: H]. Then close. No reports exchanged.
 *   write_lat: info; H; H(i); [QPs up]; local; H(i) + remote; H; table head; the sizes,
 *     without syncs; no close.
 *   read_lat: as write_lat up to the last H; the server closes; the client runs and closes.
 *   send_lat: info; H(i); [QPs up]; H; local; H(i) + remote; table head; per size:
 *     receives posted; H; run; line. Then close.
 * "close" is ctx_close_connection(): H, then "done" on TCP. With -R the client then
 * disconnects the test connections (DREQ) and waits for DREP.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "droce-perf.h"
#include "roce_cm_wire.h"
#include "stk_stack.h"

static int cmd(enum perf_cmd c, const char *what)
{
	int rc = perf_lcore_cmd(c);

	if (rc) {
		if (perf.run.why[0])
			fprintf(stderr, "%s\n", perf.run.why);
		if (what)
			fprintf(stderr, "%s\n", what);
	}
	return rc;
}

static int hs(uint32_t i)
{
	return perf_hand_shake(&perf.my_dest[i], &perf.rem_dest[i]);
}

static int hs_all(void)
{
	for (uint32_t i = 0; i < perf.p.num_qps; i++)
		if (hs(i) != 0) {
			fprintf(stderr, " Failed to exchange data between server and clients\n");
			return -1;
		}
	return 0;
}

/* the remote lines come with their own handshake each */
static int hs_print_remote(void)
{
	for (uint32_t i = 0; i < perf.p.num_qps; i++) {
		if (hs(i) != 0) {
			fprintf(stderr, " Failed to exchange data between server and clients\n");
			return -1;
		}
		perf_print_dest(&perf.rem_dest[i], true);
	}
	return 0;
}

static void print_local(void)
{
	for (uint32_t i = 0; i < perf.p.num_qps; i++)
		perf_print_dest(&perf.my_dest[i], false);
}

/* the -R server address (perftest resolves it as IPv4) */
static int resolve_server(void)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
	int n = getaddrinfo(perf.p.servername, NULL, &hints, &res);

	if (n != 0) {
		fprintf(stderr, "%s for %s:%d\n", gai_strerror(n), perf.p.servername, perf.p.port);
		return -1;
	}
	memset(&perf.peer_ip, 0, sizeof(perf.peer_ip));
	perf.peer_ip.family = 4;
	{
		struct sockaddr_in sin;

		memcpy(&sin, res->ai_addr, sizeof(sin));
		perf.peer_ip.v4 = sin.sin_addr.s_addr;
	}
	freeaddrinfo(res);
	return 0;
}

/* set_up_connection(): our keys for each QP */
static void set_up_connection(void)
{
	for (uint32_t i = 0; i < perf.p.num_qps; i++) {
		struct perf_dest *d = &perf.my_dest[i];

		memset(d, 0, sizeof(*d));
		d->lid = 0; /* RoCE has no LIDs */
		d->out_reads = perf.p.out_reads;
		d->qpn = roce_qp_num(perf.qp[i]);
		d->psn = (uint32_t)lrand48() & 0xffffff;
		d->rkey = perf.mr->rkey;
		d->vaddr = (uintptr_t)perf_remote_area(i);
		memcpy(d->gid, perf.my_gid, 16);
	}
}

/* TCP: ctx_check_gid_compatibility() and ctx_connect() */
static int connect_qps(void)
{
	if (roce_gid_is_v4mapped(perf.my_gid) != roce_gid_is_v4mapped(perf.rem_dest[0].gid)) {
		fprintf(stderr, "\n Found Incompatibility issue with GID types.\n");
		fprintf(stderr, " Please Try to use a different IP version.\n\n");
		return -1;
	}
	memset(&perf.peer_ip, 0, sizeof(perf.peer_ip));
	if (roce_gid_is_v4mapped(perf.rem_dest[0].gid)) {
		perf.peer_ip.family = 4;
		memcpy(&perf.peer_ip.v4, perf.rem_dest[0].gid + 12, 4);
	} else {
		perf.peer_ip.family = 6;
		memcpy(perf.peer_ip.v6, perf.rem_dest[0].gid, 16);
	}
	return cmd(PERF_CMD_QP_CONNECT, " Unable to Connect the HCA's through the link");
}

static int prologue(void)
{
	if (!perf.p.servername)
		perf_print_waiting();
	if (perf.p.rdma_cm && perf.p.servername && resolve_server() != 0)
		return -1;
	if (perf_xchg_open() != 0) {
		if (perf.run.why[0])
			fprintf(stderr, "%s\n", perf.run.why);
		fprintf(stderr, " Unable to init the socket connection\n");
		return -1;
	}
	if (perf_exchange_versions() != 0 || perf_check_sys_data() != 0 || perf_check_mtu() != 0)
		return -1;
	if (perf_plan_layout() != 0) {
		fprintf(stderr, "Couldn't allocate context\n");
		return -1;
	}
	perf_fill_buffers();
	if (perf.p.rdma_cm) {
		struct perf_dest zero, ignored;

		/* create_rdma_cm_connection(): a handshake of the still empty keys on either
		 * side of the connecting */
		memset(&zero, 0, sizeof(zero));
		if (perf_hand_shake(&zero, &ignored) != 0 || cmd(PERF_CMD_CM_TEST, NULL) != 0 ||
		    perf_hand_shake(&zero, &ignored) != 0) {
			fprintf(stderr, "Failed to create RDMA CM connection with resources.\n");
			return -1;
		}
	}
	set_up_connection();
	return 0;
}

/* the connection part every test has: per-QP keys, the QPs up, our lines, theirs */
static int keys_and_connect(bool extra_hs_first, bool hs_after_connect)
{
	perf_print_test_info();
	if (extra_hs_first && hs(0) != 0)
		return -1;
	if (hs_all() != 0)
		return -1;
	if (!perf.p.rdma_cm && connect_qps() != 0)
		return -1;
	if (hs_after_connect && hs(0) != 0)
		return -1;
	print_local();
	return hs_print_remote();
}

static int run_size(uint64_t size)
{
	perf.p.size = size;
	return cmd(PERF_CMD_RUN, perf.p.bw ? " Failed to complete run_iter_bw function successfully"
					   : "Test exited with Error");
}

static int verify(void)
{
	return perf.p.verify ? cmd(PERF_CMD_VERIFY, "droce-perf: --droce-verify failed") : 0;
}

/* the sizes of a run: 2..2^23 with -a */
static uint64_t first_size(void)
{
	return perf.p.run_all ? 2 : perf.p.size;
}

static uint64_t next_size(uint64_t s)
{
	return perf.p.run_all && s < PERF_MAX_SIZE ? s * 2 : 0;
}

/* write_bw.c, read_bw.c, atomic_bw.c */
static int script_rdma_bw(void)
{
	struct perf_bw_report mine, theirs;

	memset(&mine, 0, sizeof(mine));
	if (keys_and_connect(false, false) != 0)
		return -1;
	/* "An additional handshake is required after moving qp to RTR" */
	if (hs(0) != 0)
		return -1;
	perf_print_result_header();
	if (!perf.p.servername) {
		/* the server waits for the client's end and prints the client's numbers */
		if (hs(0) != 0 || verify() != 0 || perf_xchg_bw_reports(&mine, &theirs) != 0)
			return -1;
		perf_print_bw(&theirs);
		if (perf_close_connection() != 0) {
			fprintf(stderr, "Failed to close connection between server and client\n");
			return -1;
		}
		perf_print_line();
		return 0;
	}
	for (uint64_t s = first_size(); s; s = next_size(s)) {
		if (run_size(s) != 0)
			return -1;
		perf_report_bw(&mine);
		if (verify() != 0)
			return -1;
	}
	perf_print_line();
	if (hs(0) != 0 || perf_xchg_bw_reports(&mine, &theirs) != 0)
		return -1;
	if (perf_close_connection() != 0) {
		fprintf(stderr, "Failed to close connection between server and client\n");
		return -1;
	}
	return 0;
}

/* send_bw.c */
static int script_send_bw(void)
{
	struct perf_bw_report mine;

	if (keys_and_connect(false, true) != 0)
		return -1;
	perf_print_result_header();
	for (uint64_t s = first_size(); s; s = next_size(s)) {
		perf.p.size = s;
		if (!perf.p.servername &&
		    cmd(PERF_CMD_POST_RECVS, " Failed to post receive recv_wqes") != 0)
			return -1;
		if (hs(0) != 0 || run_size(s) != 0)
			return -1;
		perf_report_bw(&mine);
		if (verify() != 0)
			return -1;
		if (perf.p.run_all && hs(0) != 0)
			return -1;
	}
	perf_print_line();
	if (perf_close_connection() != 0) {
		fprintf(stderr, " Failed to close connection between server and client\n");
		return -1;
	}
	return 0;
}

/* write_lat.c, read_lat.c, send_lat.c */
static int script_lat(void)
{
	enum perf_test t = perf.p.test;

	if (keys_and_connect(t != PERF_SEND_LAT, t == PERF_SEND_LAT) != 0)
		return -1;
	if (t != PERF_SEND_LAT && hs(0) != 0)
		return -1;
	if (t == PERF_READ_LAT && !perf.p.servername) {
		/* only the client posts READs */
		if (perf_close_connection() != 0) {
			fprintf(stderr, "Failed to close connection between server and client\n");
			return -1;
		}
		perf_print_line();
		return 0;
	}
	perf_print_result_header();
	for (uint64_t s = first_size(); s; s = next_size(s)) {
		perf.p.size = s;
		if (t == PERF_SEND_LAT &&
		    (cmd(PERF_CMD_POST_RECVS, " Failed to post receive recv_wqes") != 0 ||
		     hs(0) != 0))
			return -1;
		if (run_size(s) != 0)
			return -1;
		perf_report_lat();
		if (verify() != 0)
			return -1;
	}
	if (t == PERF_READ_LAT && perf_close_connection() != 0) {
		fprintf(stderr, "Failed to close connection between server and client\n");
		return -1;
	}
	perf_print_line();
	perf_print_percentiles();
	if (t == PERF_SEND_LAT && perf_close_connection() != 0) {
		fprintf(stderr, "Failed to close connection between server and client\n");
		return -1;
	}
	return 0;
}

int perf_script(void)
{
	int rc;

	rc = prologue();
	if (rc == 0) {
		switch (perf.p.test) {
		case PERF_SEND_BW:
			rc = script_send_bw();
			break;
		case PERF_WRITE_LAT:
		case PERF_READ_LAT:
		case PERF_SEND_LAT:
			rc = script_lat();
			break;
		default:
			rc = script_rdma_bw();
			break;
		}
	}
	if (perf.p.rdma_cm && perf.cm)
		cmd(PERF_CMD_CM_CLOSE, NULL);
	if (rc == 0 && perf.p.verify) {
		fprintf(stderr, "droce-perf: --droce-verify: %lu bytes checked, %lu differ\n",
			(unsigned long)perf.run.verified, (unsigned long)perf.run.mismatches);
		if (perf.run.mismatches)
			rc = -1;
	}
	fflush(stdout);
	return rc == 0 ? 0 : 1;
}
