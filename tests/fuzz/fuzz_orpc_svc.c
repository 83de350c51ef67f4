/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_orpc_svc.c - libFuzzer target for ONC RPC dispatch (rpc/svc/orpc_svc.c over
 * rpc/xdr/orpc_msg.c and libtirpc): the input is one call message, dispatched to the test
 * programs (tests/rpc/orpc_testprog.h) and the portmapper. It checks:
 * - the reply fits the buffer, and a reply that is sent decodes as a reply (xdr_replymsg)
 *   with the call's xid and the outcome's accept/reject status;
 * - DROP sends nothing, everything else sends something;
 * - the outcome counters add up to the calls.
 * Memory: libtirpc allocates while decoding arguments; dispatch frees them, which LeakSanitizer
 * checks at exit.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "orpc_pmap.h"
#include "orpc_svc.h"
#include "orpc_testprog.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static struct orpc_svc svc;
static struct orpc_pmap pm;

static void init(void)
{
	orpc_svc_add(&svc, &orpc_test_program);
	orpc_svc_add(&svc, &orpc_test_sys_program);
	orpc_svc_add(&svc, &orpc_pmap_program);
	orpc_pmap_attach(&pm);
	orpc_pmap_register(&pm, ORPC_TEST_PROG, 1, "tcp", "10.0.0.1", 2049);
	orpc_pmap_register(&pm, ORPC_TEST_PROG, 1, "rdma", "10.0.0.1", 20049);
	orpc_pmap_register(&pm, ORPC_TEST_PROG, 2, "udp6", "fe80::1", 2049);
	orpc_svc_drc_enable(&svc); /* BUMP and LATER are cached: replays come from it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[4096];
	static int ready;
	struct orpc_reply_hdr r;
	enum orpc_outcome o;
	uint64_t sum = 0;
	uint32_t n, off, cap;
	uint8_t *buf;

	if (!ready) {
		init();
		ready = 1;
	}
	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	/* a small reply buffer now and then, so "results do not fit" is reached too */
	cap = size && data[size - 1] == 0x5a ? 64 : sizeof(out);
	/* over UDP from one of two hosts (the first byte picks): a peer the cache keys on, and
	 * a transport that cannot defer */
	{
		struct orpc_peer peer = {.xprt = ORPC_XPRT_UDP};
		struct sockaddr_in *a = (struct sockaddr_in *)&peer.addr;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(size && (data[0] & 1) ? 0x0a000001u : 0x0a000002u);
		n = orpc_svc_dispatch_peer(&svc, buf, (uint32_t)size, NULL, &peer, out, cap, &o);
	}
	CHECK(n <= cap);
	CHECK(o < ORPC_OUT_NUM);
	CHECK((o == ORPC_OUT_DROP) == (n == 0));
	if (n) {
		CHECK(orpc_reply_decode(out, n, &r, &off) == 0);
		CHECK(off <= n);
		CHECK(r.xid == svc.req.call.xid);
		CHECK(r.denied == (o == ORPC_OUT_RPC_MISMATCH || o == ORPC_OUT_AUTH_BADCRED ||
				   o == ORPC_OUT_AUTH_BADVERF || o == ORPC_OUT_AUTH_TOOWEAK ||
				   o == ORPC_OUT_AUTH_REJECTEDCRED || o == ORPC_OUT_AUTH_OTHER));
		if (o == ORPC_OUT_SUCCESS)
			CHECK(!r.denied && r.stat == SUCCESS);
		if (o == ORPC_OUT_PROG_MISMATCH)
			CHECK(r.low <= r.high);
	}
	for (int i = 0; i < ORPC_OUT_NUM; i++)
		sum += svc.stats.outcome[i];
	CHECK(sum == svc.stats.calls);
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
