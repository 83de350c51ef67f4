/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_pt.c - droce-gen as a perftest client (gen_pt.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "app_sock.h"
#include "gen_pt.h"
#include "stk_stack.h"

#define PT_VERSION "6.06"
#define PT_VERSION_LEN 16

/* ctx_xchg_data(): the client writes first */
static int pt_xchg(struct gen_pt *pt, const void *mine, void *theirs, size_t len)
{
	int rc = app_write_full(pt->sock, mine, len);

	return rc ? rc : app_read_full(pt->sock, theirs, len, 60000);
}

static int pt_connect(struct gen_pt *pt)
{
	struct sockaddr_in dst = {.sin_family = AF_INET}, src = {.sin_family = AF_INET};
	const struct stk_iface *ifc = stk_iface_get(pt->iface);
	uint64_t until = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();

	dst.sin_port = htons(pt->port);
	dst.sin_addr.s_addr = pt->server.v4;
	src.sin_addr.s_addr = ifc->ip4.v4;
	while (!stk_stopping() && rte_get_tsc_cycles() < until) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (fd >= 0 && bind(fd, (struct sockaddr *)&src, sizeof(src)) == 0 &&
		    app_connect_bounded(fd, (struct sockaddr *)&dst, sizeof(dst), 2000) == 0) {
			pt->sock = fd;
			return 0;
		}
		if (fd >= 0)
			close(fd);
		usleep(200000);
	}
	return -ECONNREFUSED;
}

void gen_pt_gid(uint16_t iface, uint8_t gid[16])
{
	const struct stk_iface *ifc = stk_iface_get(iface);

	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff; /* IPv4-mapped: our RoCEv2 GID */
	memcpy(&gid[12], &ifc->ip4.v4, 4);
}

static int pt_keys(struct gen_pt *pt, const struct perf_dest *mine, struct perf_dest *theirs)
{
	char out[APP_PT_KEYS_LEN], in[APP_PT_KEYS_LEN];
	int rc;

	app_pt_format_keys(mine, out);
	rc = pt_xchg(pt, out, in, sizeof(in));
	if (rc)
		return rc;
	in[APP_PT_KEYS_LEN - 1] = '\0';
	return app_pt_parse_keys(in, theirs);
}

void gen_pt_abort(struct gen_pt *pt)
{
	if (pt->sock >= 0)
		close(pt->sock);
	pt->sock = -1;
}

int gen_pt_open(struct gen_pt *pt, uint32_t n, const struct perf_dest *mine,
		struct perf_dest *theirs)
{
	char vmine[PT_VERSION_LEN] = PT_VERSION, vtheirs[PT_VERSION_LEN + 1] = {0};
	int rc;

	uint32_t offer = pt->mtu ? pt->mtu : 1024;
	long mine_code = offer >= 4096	 ? 5
			 : offer >= 2048 ? 4
			 : offer >= 1024 ? 3
			 : offer >= 512	 ? 2
					 : 1;

	pt->sock = -1;
	pt->mtu = 128u << mine_code;
	if (pt_connect(pt) != 0) {
		snprintf(pt->why, sizeof(pt->why), "cannot connect to the perftest server on %u",
			 pt->port);
		return -1;
	}
	if ((rc = pt_xchg(pt, vmine, vtheirs, PT_VERSION_LEN)) != 0)
		goto fail;
	if (atof(vtheirs) < 5.70) {
		snprintf(pt->why, sizeof(pt->why), "the server speaks perftest %.16s (< 5.70)",
			 vtheirs);
		gen_pt_abort(pt);
		return -1;
	}
	{
		rte_be32_t m4 = rte_cpu_to_be_32(4096), r4;

		if ((rc = pt_xchg(pt, &m4, &r4, 4)) != 0)
			goto fail;
		m4 = rte_cpu_to_be_32(64);
		if ((rc = pt_xchg(pt, &m4, &r4, 4)) != 0)
			goto fail;
	}
	{
		char cur[4] = {(char)('0' + mine_code)}, rem[5] = {0}; /* ibv_mtu's code */
		long code;

		if ((rc = pt_xchg(pt, cur, rem, 2)) != 0)
			goto fail;
		code = strtol(rem, NULL, 10);
		if (code >= 1 && code < mine_code)
			pt->mtu = 128u << code; /* the smaller wins: 1 is 256 ... 5 is 4096 */
	}
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < n; i++)
			if ((rc = pt_keys(pt, &mine[i], &theirs[i])) != 0)
				goto fail;
		if (round == 0 && pt->send) {
			/* send_bw: the handshake after its QPs are up comes before the second
			 * round (the remote lines) */
			struct perf_dest d;

			if ((rc = pt_keys(pt, &mine[0], &d)) != 0)
				goto fail;
		}
	}
	{
		/* write_bw: "An additional handshake is required after moving qp to RTR";
		 * send_bw: the size's handshake, once the server has posted its receives */
		struct perf_dest d;

		if ((rc = pt_keys(pt, &mine[0], &d)) != 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(pt->why, sizeof(pt->why), "perftest's exchange failed: %s", strerror(-rc));
	gen_pt_abort(pt);
	return -1;
}

void gen_pt_close(struct gen_pt *pt, const struct perf_dest *mine0, uint64_t size, uint64_t iters)
{
	struct perf_dest d;
	uint64_t m[5] = {rte_cpu_to_be_64(size), rte_cpu_to_be_64(iters), 0, 0, 0}, r;
	bool ok = pt->sock >= 0 && pt_keys(pt, mine0, &d) == 0;

	if (!pt->send) { /* send_bw exchanges no reports: that handshake was the close's */
		for (int i = 0; ok && i < 5; i++)
			ok = pt_xchg(pt, &m[i], &r, 8) == 0;
		ok = ok && pt_keys(pt, mine0, &d) == 0;
	}
	if (ok && app_write_full(pt->sock, "done", 5) == 0 &&
	    app_wait_fd(pt->sock, POLLIN, 500) == 0) {
		char done[5];
		ssize_t k = read(pt->sock, done, sizeof(done));

		(void)k;
	}
	gen_pt_abort(pt);
}
