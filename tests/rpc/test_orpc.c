/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_orpc.c - ONC RPC in rpc/: the dispatch table's every outcome against reply words
 * written by hand from RFC 5531 §9 (and call words from its §8-9 and Appendix A), record
 * marking (RFC 5531 §11) in any split, and the TCP/UDP server with the client over the
 * kernel's loopback: large arguments and results, 32 calls in flight, AUTH_SYS, garbage that
 * closes only its own connection, deferred calls over TCP and UDP, timeouts, retransmission and
 * reconnection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "orpc_bc.h"
#include "orpc_clnt.h"
#include "orpc_pmap.h"
#include "orpc_rm.h"
#include "orpc_tcp.h"
#include "orpc_testprog.h"
#include "xdr_words.h"

#define XID 0x65f7a710u

/* xid CALL rpcvers prog vers proc, then a credential and a verifier */
static void call(struct wb *x, uint32_t rpcvers, uint32_t prog, uint32_t vers, uint32_t proc)
{
	x->n = 0;
	w(x, XID), w(x, 0), w(x, rpcvers), w(x, prog), w(x, vers), w(x, proc);
}

static void auth_none(struct wb *x)
{
	w(x, 0), w(x, 0);
}

/* AUTH_SYS body (RFC 5531 App. A): stamp, machinename<255>, uid, gid, gids<16> */
static void auth_sys(struct wb *x, uint32_t uid, uint32_t ngids, uint32_t namelen)
{
	uint32_t body = 4 + 4 + ((namelen + 3) & ~3u) + 4 + 4 + 4 + 4 * ngids;

	w(x, 1), w(x, body);
	w(x, 0x12345678), w(x, namelen);
	for (uint32_t i = 0; i < (namelen + 3) / 4; i++)
		w(x, 0x61616161);
	w(x, uid), w(x, 100), w(x, ngids);
	for (uint32_t i = 0; i < ngids; i++)
		w(x, 1000 + i);
}

static struct orpc_svc svc;
static uint8_t out[1 << 16];

static uint32_t dispatch(const struct wb *x, enum orpc_outcome *o)
{
	return orpc_svc_dispatch(&svc, x->b, x->n, NULL, out, sizeof(out), o);
}

/* the reply must be exactly these words */
static void expect_words(uint32_t n, const uint32_t *want, uint32_t nw, int line)
{
	if (n != nw * 4)
		fail_msg("line %d: reply of %u bytes, want %u", line, n, nw * 4);
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t v = (uint32_t)out[4 * i] << 24 | (uint32_t)out[4 * i + 1] << 16 |
			     (uint32_t)out[4 * i + 2] << 8 | out[4 * i + 3];

		if (v != want[i])
			fail_msg("line %d: reply word %u is %#x, want %#x", line, i, v, want[i]);
	}
}

#define EXPECT(n, ...)                                                                             \
	do {                                                                                       \
		const uint32_t want_[] = {__VA_ARGS__};                                            \
		expect_words(n, want_, sizeof(want_) / sizeof(want_[0]), __LINE__);                \
	} while (0)

/* accepted: xid REPLY MSG_ACCEPTED verf(AUTH_NONE, 0) stat; denied: xid REPLY MSG_DENIED ... */
#define ACC(stat) XID, 1, 0, 0, 0, stat
#define DEN_AUTH(why) XID, 1, 1, 1, why

static int setup(void **st)
{
	(void)st;
	memset(&svc, 0, sizeof(svc));
	assert_int_equal(orpc_svc_add(&svc, &orpc_test_program), 0);
	assert_int_equal(orpc_svc_add(&svc, &orpc_test_sys_program), 0);
	assert_int_equal(orpc_svc_add(&svc, &orpc_test_program), -EEXIST);
	return 0;
}

static void test_success_and_mismatches(void **st)
{
	enum orpc_outcome o;
	struct wb x;

	(void)st;
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(SUCCESS));
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	/* RPC_MISMATCH: xid REPLY MSG_DENIED RPC_MISMATCH low high */
	call(&x, 3, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), XID, 1, 1, 0, 2, 2);
	assert_int_equal(o, ORPC_OUT_RPC_MISMATCH);
	call(&x, 2, 0x20000001, 1, 0), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(PROG_UNAVAIL));
	/* PROG_MISMATCH with the program's lowest and highest version */
	call(&x, 2, ORPC_TEST_PROG, 7, 0), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(PROG_MISMATCH), 1, 2);
	call(&x, 2, ORPC_TEST_PROG, 2, ORPC_TEST_UNSERVED), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(PROC_UNAVAIL));
	call(&x, 2, ORPC_TEST_PROG, 2, 99), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(PROC_UNAVAIL));
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_FAIL), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(SYSTEM_ERR));
	assert_int_equal(svc.stats.outcome[ORPC_OUT_PROC_UNAVAIL], 2);
}

static void test_echo_and_garbage_args(void **st)
{
	enum orpc_outcome o;
	struct wb x;
	uint32_t n;

	(void)st;
	/* ECHO of 5 bytes: length 5, data, 3 bytes of XDR padding */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO), auth_none(&x), auth_none(&x);
	w(&x, 5), w(&x, 0x68656c6c), w(&x, 0x6f000000);
	n = dispatch(&x, &o);
	EXPECT(n, ACC(SUCCESS), 5, 0x68656c6c, 0x6f000000);
	/* its length says 9 but 8 bytes follow */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO), auth_none(&x), auth_none(&x);
	w(&x, 9), w(&x, 1), w(&x, 2);
	EXPECT(dispatch(&x, &o), ACC(GARBAGE_ARGS));
	assert_int_equal(o, ORPC_OUT_GARBAGE_ARGS);
	/* over the procedure's limit */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO), auth_none(&x), auth_none(&x);
	w(&x, ORPC_TEST_ECHO_MAX + 1);
	EXPECT(dispatch(&x, &o), ACC(GARBAGE_ARGS));
	/* results that do not fit the reply buffer: SYSTEM_ERR, not a cut reply */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO), auth_none(&x), auth_none(&x);
	w(&x, 64);
	for (int i = 0; i < 16; i++)
		w(&x, (uint32_t)i);
	n = orpc_svc_dispatch(&svc, x.b, x.n, NULL, out, 60, &o);
	assert_int_equal(o, ORPC_OUT_SYSTEM_ERR);
	EXPECT(n, ACC(SYSTEM_ERR));
}

static void test_auth(void **st)
{
	enum orpc_outcome o;
	struct wb x;

	(void)st;
	/* RPCSEC_GSS (6) and an unknown flavor: AUTH_BADCRED */
	call(&x, 2, ORPC_TEST_PROG, 1, 0), w(&x, 6), w(&x, 4), w(&x, 0), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	call(&x, 2, ORPC_TEST_PROG, 1, 0), w(&x, 99), w(&x, 0), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	/* a credential of 401 bytes, a verifier of 401 bytes */
	call(&x, 2, ORPC_TEST_PROG, 1, 0), w(&x, 1), w(&x, 401);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), w(&x, 0), w(&x, 401);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADVERF));
	/* AUTH_SYS: 16 groups pass, 17 do not; a 255-byte name passes, 256 does not */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_WHOAMI), auth_sys(&x, 1000, 16, 255),
		auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(SUCCESS), AUTH_SYS, 1000, 100, 16);
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_WHOAMI), auth_sys(&x, 1000, 17, 8), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_WHOAMI), auth_sys(&x, 1000, 1, 256), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	/* a body that says it is longer than what it holds: 4 bytes left over */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_WHOAMI), w(&x, 1), w(&x, 24);
	w(&x, 1), w(&x, 0), w(&x, 5), w(&x, 6), w(&x, 0), w(&x, 0xdead), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADCRED));
	/* AUTH_SYS with an AUTH_SYS verifier: AUTH_BADVERF */
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_WHOAMI), auth_sys(&x, 1000, 0, 4);
	w(&x, 1), w(&x, 0);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_BADVERF));
	/* the AUTH_SYS-only program: AUTH_NONE is too weak, except for NULL */
	call(&x, 2, ORPC_TEST_SYS_PROG, 1, 1), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_TOOWEAK));
	call(&x, 2, ORPC_TEST_SYS_PROG, 1, 0), auth_none(&x), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(SUCCESS));
	/* its check refuses uid 666 */
	call(&x, 2, ORPC_TEST_SYS_PROG, 1, 1), auth_sys(&x, 666, 0, 4), auth_none(&x);
	EXPECT(dispatch(&x, &o), DEN_AUTH(AUTH_REJECTEDCRED));
	call(&x, 2, ORPC_TEST_SYS_PROG, 1, 1), auth_sys(&x, 0, 2, 4), auth_none(&x);
	EXPECT(dispatch(&x, &o), ACC(SUCCESS), AUTH_SYS, 0, 100, 2);
}

static void test_drops(void **st)
{
	enum orpc_outcome o;
	struct wb x;
	uint64_t before = svc.stats.outcome[ORPC_OUT_DROP];

	(void)st;
	/* a REPLY is not a call */
	x.n = 0;
	w(&x, XID), w(&x, 1), w(&x, 0), w(&x, 0), w(&x, 0), w(&x, 0);
	assert_int_equal(dispatch(&x, &o), 0);
	assert_int_equal(o, ORPC_OUT_DROP);
	/* every prefix of a good call shorter than its verifier's end: nothing to answer */
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_sys(&x, 1, 1, 4), auth_none(&x);
	for (uint32_t n = 0; n < x.n; n++) {
		struct wb y = x;

		y.n = n;
		assert_int_equal(dispatch(&y, &o), 0);
		assert_int_equal(o, ORPC_OUT_DROP);
	}
	assert_int_equal(svc.stats.outcome[ORPC_OUT_DROP], before + 1 + x.n);
}

/* ---- record marking ---- */
static void feed_all(struct orpc_rm *rm, const uint8_t *b, uint32_t n, uint32_t step)
{
	for (uint32_t off = 0; off < n;) {
		uint32_t k = n - off < step ? n - off : step;
		uint32_t took = orpc_rm_feed(rm, b + off, k);

		assert_true(took <= k);
		off += took;
		if (rm->state == ORPC_RM_RECORD)
			return;
		assert_int_equal(took, k);
	}
}

static void test_record_marking(void **st)
{
	struct orpc_rm rm;
	uint8_t b[64];
	uint32_t n = 0, took;

	(void)st;
	/* three fragments: "ab" "" "cdefg", fed 1, 3 and 100 bytes at a time */
	orpc_rm_mark(b, 2, false), memcpy(b + 4, "ab", 2), n = 6;
	orpc_rm_mark(b + n, 0, false), n += 4;
	orpc_rm_mark(b + n, 5, true), memcpy(b + n + 4, "cdefg", 5), n += 9;
	for (int k = 0; k < 3; k++) {
		static const uint32_t steps[] = {1, 3, 100};
		uint32_t step = steps[k];

		assert_int_equal(orpc_rm_init(&rm, 0), 0);
		feed_all(&rm, b, n, step);
		assert_int_equal(rm.state, ORPC_RM_RECORD);
		assert_int_equal(rm.rec_len, 7);
		assert_memory_equal(rm.rec, "abcdefg", 7);
		assert_int_equal(rm.frags, 3);
		orpc_rm_fini(&rm);
	}
	/* two records in one read: the feed stops after the first */
	assert_int_equal(orpc_rm_init(&rm, 0), 0);
	orpc_rm_mark(b, 1, true), b[4] = 'x';
	orpc_rm_mark(b + 5, 1, true), b[9] = 'y';
	took = orpc_rm_feed(&rm, b, 10);
	assert_int_equal(took, 5);
	assert_int_equal(rm.state, ORPC_RM_RECORD);
	orpc_rm_consume(&rm);
	assert_int_equal(orpc_rm_feed(&rm, b + 5, 5), 5);
	assert_int_equal(rm.state, ORPC_RM_RECORD);
	assert_int_equal(rm.rec[0], 'y');
	orpc_rm_fini(&rm);
	/* the bound: 1000 bytes pass, 1001 do not, also across fragments; told at the mark */
	assert_int_equal(orpc_rm_init(&rm, 1000), 0);
	orpc_rm_mark(b, 1001, true);
	assert_int_equal(orpc_rm_feed(&rm, b, 4), 4);
	assert_int_equal(rm.state, ORPC_RM_TOO_BIG);
	orpc_rm_fini(&rm);
	assert_int_equal(orpc_rm_init(&rm, 1000), 0);
	orpc_rm_mark(b, 0x7fffffff, false); /* a hostile length: refused, nothing allocated */
	orpc_rm_feed(&rm, b, 4);
	assert_int_equal(rm.state, ORPC_RM_TOO_BIG);
	assert_true(rm.rec_cap <= 1000);
	orpc_rm_fini(&rm);
	assert_int_equal(orpc_rm_init(&rm, 1000), 0);
	{
		static uint8_t big[1100];

		orpc_rm_mark(big, 600, false);
		orpc_rm_mark(big + 604, 401, true);
		orpc_rm_feed(&rm, big, sizeof(big));
		assert_int_equal(rm.state, ORPC_RM_TOO_BIG);
	}
	orpc_rm_fini(&rm);
	/* an empty record */
	assert_int_equal(orpc_rm_init(&rm, 0), 0);
	orpc_rm_mark(b, 0, true);
	orpc_rm_feed(&rm, b, 4);
	assert_int_equal(rm.state, ORPC_RM_EMPTY);
	assert_int_equal(rm.state_cnt[ORPC_RM_EMPTY], 1);
	orpc_rm_fini(&rm);
}

/* ---- TCP and UDP over loopback ---- */
static struct orpc_tcp_srv srv;
static struct orpc_pmap pmap;
static struct orpc_bc_table bct;
static uint16_t port, uport;

struct waiter {
	int done, err;
	struct orpc_reply_hdr h;
	uint8_t *res;
	uint32_t res_len;
};

static void on_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		    uint32_t res_len)
{
	struct waiter *wt = ctx;

	wt->done++;
	wt->err = err;
	if (h)
		wt->h = *h;
	if (res_len) {
		wt->res = malloc(res_len);
		memcpy(wt->res, res, res_len);
		wt->res_len = res_len;
	}
}

/* poll client and server until every waiter is done, at most 10 s */
static void run(struct orpc_clnt *c, struct waiter *wt, int n, int poll_server)
{
	time_t end = time(NULL) + 10;

	for (;;) {
		int all = 1;

		for (int i = 0; i < n; i++)
			all &= wt[i].done > 0;
		if (all)
			return;
		assert_true(time(NULL) < end);
		if (poll_server)
			orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(c);
	}
}

static int tcp_setup(void **st)
{
	(void)st;
	setup(NULL);
	assert_int_equal(orpc_svc_add(&svc, &orpc_pmap_program), 0);
	orpc_pmap_attach(&pmap);
	orpc_bc_table_init(&bct);
	svc.bc = &bct; /* the connections offer backchannels */
	assert_int_equal(orpc_tcp_srv_init(&srv, &svc, 0), 0);
	assert_int_equal(orpc_tcp_srv_listen(&srv, "127.0.0.1", 0, 0, &port), 0);
	assert_int_equal(orpc_tcp_srv_listen(&srv, "127.0.0.1", 0, 1, &uport), 0);
	assert_int_equal(orpc_tcp_srv_listen(&srv, "not-an-ip", 0, 0, NULL), -EINVAL);
	return 0;
}

static int tcp_teardown(void **st)
{
	(void)st;
	orpc_tcp_srv_fini(&srv);
	return 0;
}

static void test_tcp_echo_large(void **st)
{
	static const uint32_t sizes[] = {0, 1, 3, 4, 4093, 65536, ORPC_TEST_ECHO_MAX};
	struct orpc_clnt c;

	(void)st;
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 5000, 0), 0);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct orpc_test_blob a = {sizes[k], malloc(sizes[k] + 1)}, r = {0, NULL};
		struct waiter wt = {0};
		XDR x;

		for (uint32_t i = 0; i < a.len; i++)
			a.data[i] = (char)(i * 7 + k);
		assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO, NULL,
						(xdrproc_t)orpc_test_xdr_blob, &a, on_done, &wt),
				 0);
		run(&c, &wt, 1, 1);
		assert_int_equal(wt.err, 0);
		assert_false(wt.h.denied);
		assert_int_equal(wt.h.stat, SUCCESS);
		xdrmem_create(&x, (char *)wt.res, wt.res_len, XDR_DECODE);
		assert_true(orpc_test_xdr_blob(&x, &r));
		assert_int_equal(r.len, a.len);
		if (a.len)
			assert_memory_equal(r.data, a.data, a.len);
		xdr_free((xdrproc_t)orpc_test_xdr_blob, (char *)&r);
		free(wt.res);
		free(a.data);
	}
	assert_int_equal(c.stats.replies, sizeof(sizes) / sizeof(sizes[0]));
	/* both ends write whole records: Nagle is off on the client's socket and on the one the
	 * server accepted (found here as this process's socket whose peer is the client) */
	{
		struct sockaddr_in me, peer;
		socklen_t sl = sizeof(me);
		int on = 0, found = 0;
		socklen_t ol = sizeof(on);

		assert_int_equal(getsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &on, &ol), 0);
		assert_int_equal(on, 1);
		assert_int_equal(getsockname(c.fd, (struct sockaddr *)&me, &sl), 0);
		for (int fd = 3; fd < 1024; fd++) {
			sl = sizeof(peer);
			if (fd == c.fd || getpeername(fd, (struct sockaddr *)&peer, &sl) != 0 ||
			    peer.sin_family != AF_INET || peer.sin_port != me.sin_port)
				continue;
			on = 0;
			ol = sizeof(on);
			assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &ol), 0);
			assert_int_equal(on, 1);
			found++;
		}
		assert_int_equal(found, 1);
	}
	orpc_clnt_fini(&c);
}

static void test_tcp_many_in_flight_and_auth(void **st)
{
	struct orpc_authsys sys = {.stamp = 1,
				   .machname = "droce",
				   .uid = 1000,
				   .gid = 1000,
				   .ngids = 3,
				   .gids = {1, 2, 3}};
	struct waiter wt[32] = {{0}};
	struct orpc_test_who who;
	struct orpc_clnt c;
	XDR x;

	(void)st;
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 5000, 0), 0);
	for (int i = 0; i < 32; i++)
		assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 2,
						i % 2 ? ORPC_TEST_WHOAMI : ORPC_TEST_FAIL,
						i % 4 == 1 ? &sys : NULL, NULL, NULL, on_done,
						&wt[i]),
				 0);
	run(&c, wt, 32, 1);
	for (int i = 0; i < 32; i++) {
		assert_int_equal(wt[i].err, 0);
		assert_int_equal(wt[i].h.stat, i % 2 ? SUCCESS : SYSTEM_ERR);
		if (i % 2) {
			xdrmem_create(&x, (char *)wt[i].res, wt[i].res_len, XDR_DECODE);
			assert_true(orpc_test_xdr_who(&x, &who));
			assert_int_equal(who.flavor, i % 4 == 1 ? AUTH_SYS : AUTH_NONE);
			if (i % 4 == 1)
				assert_int_equal(who.ngids, 3);
		}
		free(wt[i].res);
	}
	/* the client's error paths: PROG_MISMATCH through the client, AUTH_TOOWEAK */
	memset(wt, 0, sizeof(wt));
	orpc_clnt_call(&c, ORPC_TEST_PROG, 9, 0, NULL, NULL, NULL, on_done, &wt[0]);
	orpc_clnt_call(&c, ORPC_TEST_SYS_PROG, 1, 1, NULL, NULL, NULL, on_done, &wt[1]);
	run(&c, wt, 2, 1);
	assert_int_equal(wt[0].h.stat, PROG_MISMATCH);
	assert_int_equal(wt[0].h.low, 1);
	assert_int_equal(wt[0].h.high, 2);
	assert_true(wt[1].h.denied);
	assert_int_equal(wt[1].h.why, AUTH_TOOWEAK);
	orpc_clnt_fini(&c);
}

/* A deferred call (LATER) holds its connection's later calls until it ends, in order; another
 * connection is served meanwhile; a connection closed while its call is deferred is freed when
 * the call ends. */
static void test_tcp_deferred_calls(void **st)
{
	static const char a_data[] = "first, deferred", b_data[] = "second, behind it";
	struct orpc_test_blob a = {.data = (char *)a_data, .len = sizeof(a_data)};
	struct orpc_test_blob b = {.data = (char *)b_data, .len = sizeof(b_data)};
	struct waiter wt[3] = {{0}}, other = {0};
	struct orpc_test_blob got = {0};
	struct orpc_clnt c, c2;
	uint64_t deferred0 = srv.stats.deferred;
	time_t end;
	XDR x;

	(void)st;
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 5000, 0), 0);
	assert_int_equal(orpc_clnt_init(&c2, "127.0.0.1", port, 5000, 0), 0);
	assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL,
					(xdrproc_t)orpc_test_xdr_blob, &a, on_done, &wt[0]),
			 0);
	assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO, NULL,
					(xdrproc_t)orpc_test_xdr_blob, &b, on_done, &wt[1]),
			 0);
	assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL,
					(xdrproc_t)orpc_test_xdr_blob, &b, on_done, &wt[2]),
			 0);
	/* both LATERs are deferred and the ECHO between them is answered meanwhile (replies go
	 * out as calls end); the other connection is answered too */
	end = time(NULL) + 5;
	while ((orpc_test_later_waiting() < 2 || !wt[1].done) && time(NULL) < end) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	assert_int_equal(orpc_test_later_waiting(), 2);
	assert_int_equal(wt[1].done, 1);
	assert_int_equal(
		orpc_clnt_call(&c2, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &other), 0);
	run(&c2, &other, 1, 1);
	assert_int_equal(other.h.stat, SUCCESS);
	for (int i = 0; i < 200; i++) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	assert_int_equal(wt[0].done + wt[2].done, 0);
	/* they end: their replies */
	assert_int_equal(orpc_test_later_run(), 2);
	run(&c, wt, 3, 1);
	for (int i = 0; i < 3; i++) {
		const struct orpc_test_blob *want = i ? &b : &a;

		assert_int_equal(wt[i].err, 0);
		assert_int_equal(wt[i].h.stat, SUCCESS);
		xdrmem_create(&x, (char *)wt[i].res, wt[i].res_len, XDR_DECODE);
		assert_true(orpc_test_xdr_blob(&x, &got));
		assert_int_equal(got.len, want->len);
		assert_memory_equal(got.data, want->data, want->len);
		xdr_free((xdrproc_t)orpc_test_xdr_blob, (char *)&got);
		got.data = NULL;
		free(wt[i].res);
	}
	assert_int_equal(srv.stats.deferred, deferred0 + 2);
	/* closed while deferred: the connection goes when the call ends (ASan sees any misuse) */
	memset(wt, 0, sizeof(wt));
	assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL,
					(xdrproc_t)orpc_test_xdr_blob, &a, on_done, &wt[0]),
			 0);
	end = time(NULL) + 5;
	while (orpc_test_later_waiting() < 1 && time(NULL) < end) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	assert_int_equal(orpc_test_later_waiting(), 1);
	orpc_clnt_fini(&c);
	free(other.res);
	orpc_clnt_fini(&c2);
	/* the server notices the close only once the call ends and it reads again */
	assert_int_equal(orpc_test_later_run(), 1);
	end = time(NULL) + 2;
	while (orpc_tcp_srv_nconns(&srv) > 0 && time(NULL) < end)
		orpc_tcp_srv_poll(&srv);
	assert_int_equal(orpc_tcp_srv_nconns(&srv), 0);
}

/* ORPC_TCP_CONN_CALLS + 1 deferred calls on one connection: the connection stops reading at
 * ORPC_TCP_CONN_CALLS (the last call waits in the socket or the stash, undispatched) and goes
 * on when one ends; each reply carries its own call's data. */
static void test_tcp_calls_at_once(void **st)
{
	enum { N = ORPC_TCP_CONN_CALLS + 1 };
	static char data[N][32];
	struct orpc_test_blob blob[N], got = {0};
	struct waiter wt[N];
	struct orpc_clnt c;
	time_t end;
	XDR x;

	(void)st;
	memset(wt, 0, sizeof(wt));
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 5000, 0), 0);
	for (int i = 0; i < N; i++) {
		snprintf(data[i], sizeof(data[i]), "call %d of %d", i, N);
		blob[i] = (struct orpc_test_blob){.data = data[i], .len = (u_int)strlen(data[i])};
		assert_int_equal(orpc_clnt_call(&c, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL,
						(xdrproc_t)orpc_test_xdr_blob, &blob[i], on_done,
						&wt[i]),
				 0);
	}
	end = time(NULL) + 5;
	while (orpc_test_later_waiting() < ORPC_TCP_CONN_CALLS && time(NULL) < end) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	for (int i = 0; i < 200; i++) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	assert_int_equal(orpc_test_later_waiting(), ORPC_TCP_CONN_CALLS); /* the last waits */
	assert_int_equal(srv.stats.max_calls_at_once, ORPC_TCP_CONN_CALLS);
	assert_int_equal(orpc_test_later_run(), ORPC_TCP_CONN_CALLS);
	end = time(NULL) + 5;
	while (orpc_test_later_waiting() < 1 && time(NULL) < end) {
		orpc_tcp_srv_poll(&srv);
		orpc_clnt_poll(&c);
	}
	assert_int_equal(orpc_test_later_run(), 1);
	run(&c, wt, N, 1);
	for (int i = 0; i < N; i++) {
		assert_int_equal(wt[i].err, 0);
		assert_int_equal(wt[i].h.stat, SUCCESS);
		xdrmem_create(&x, (char *)wt[i].res, wt[i].res_len, XDR_DECODE);
		assert_true(orpc_test_xdr_blob(&x, &got));
		assert_int_equal(got.len, blob[i].len);
		assert_memory_equal(got.data, blob[i].data, blob[i].len);
		xdr_free((xdrproc_t)orpc_test_xdr_blob, (char *)&got);
		got.data = NULL;
		free(wt[i].res);
	}
	orpc_clnt_fini(&c);
}

static struct orpc_peer peer_at(const char *ip, uint16_t pport, enum orpc_xprt xprt)
{
	struct orpc_peer p = {.xprt = xprt};
	struct sockaddr_in *a = (struct sockaddr_in *)&p.addr;

	a->sin_family = AF_INET;
	a->sin_port = htons(pport);
	inet_pton(AF_INET, ip, &a->sin_addr);
	return p;
}

/* BUMP call with xid and delta */
static void bump_call(struct wb *x, uint32_t xid, uint32_t delta)
{
	x->n = 0;
	w(x, xid), w(x, 0), w(x, 2), w(x, ORPC_TEST_PROG), w(x, 1), w(x, ORPC_TEST_BUMP);
	auth_none(x), auth_none(x);
	w(x, delta);
}

/* The cache's size is the one asked (droce-nfsd's [nfs] drc): 64 entries in sets of 8 keep
 * only recent calls. Of 200 distinct BUMPs from one host, the first one's retransmission runs
 * again (evicted) while the last one's is answered from the cache; 136 or more were evicted. A
 * size outside 64..1048576 or not a multiple of 8 is refused and leaves the cache as it was. */
static void test_drc_size(void **st)
{
	static struct orpc_svc d;
	static uint8_t rep[256];
	struct orpc_peer a = peer_at("10.0.0.1", 801, ORPC_XPRT_TCP);
	struct orpc_drc_stats ds;
	enum orpc_outcome o;
	uint32_t v0;
	struct wb x;

	(void)st;
	memset(&d, 0, sizeof(d));
	assert_int_equal(orpc_svc_add(&d, &orpc_test_program), 0);
	assert_int_equal(orpc_svc_drc_enable_n(&d, 63), -EINVAL);
	assert_int_equal(orpc_svc_drc_enable_n(&d, 68), -EINVAL);
	assert_int_equal(orpc_svc_drc_enable_n(&d, ORPC_DRC_MAX + 8), -EINVAL);
	assert_int_equal(orpc_svc_drc_entries(&d), 0);
	assert_int_equal(orpc_svc_drc_enable_n(&d, 64), 0);
	assert_int_equal(orpc_svc_drc_entries(&d), 64);
	assert_int_equal(orpc_svc_drc_enable(&d), 0); /* kept as it is */
	assert_int_equal(orpc_svc_drc_entries(&d), 64);
	for (uint32_t i = 0; i < 200; i++) {
		bump_call(&x, 0x5000 + i, 1);
		orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a, rep, sizeof(rep), &o);
		assert_int_equal(o, ORPC_OUT_SUCCESS);
	}
	orpc_svc_drc_stats(&d, &ds);
	assert_int_equal(ds.inserted, 200);
	assert_true(ds.evicted >= 200 - 64);
	v0 = orpc_test_bump_value();
	bump_call(&x, 0x5000 + 199, 1);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a, rep, sizeof(rep), &o);
	assert_int_equal(o, ORPC_OUT_DRC_REPLAY);
	assert_int_equal(orpc_test_bump_value(), v0);
	bump_call(&x, 0x5000, 1);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a, rep, sizeof(rep), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	assert_int_equal(orpc_test_bump_value(), v0 + 1);
	assert_int_equal(orpc_svc_drc_enable_n(&d, 4096), 0);
	assert_int_equal(orpc_svc_drc_entries(&d), 4096);
	orpc_svc_drc_disable(&d);
	assert_int_equal(orpc_svc_drc_entries(&d), 0);
}

/* The duplicate request cache: a retransmission of a non-idempotent call (BUMP) from the same
 * address, even from another port (a reconnect), gets the first reply and does not run again;
 * another address, other arguments or another xid run it; a retransmission while the call is
 * deferred is dropped, and after it ends gets its reply; idempotent calls are not cached. */
static void test_duplicate_request_cache(void **st)
{
	static struct orpc_svc d;
	static uint8_t first[256], again[256];
	struct orpc_peer a1 = peer_at("10.0.0.1", 801, ORPC_XPRT_TCP);
	struct orpc_peer a2 = peer_at("10.0.0.1", 40000, ORPC_XPRT_TCP);
	struct orpc_peer b = peer_at("10.0.0.2", 801, ORPC_XPRT_TCP);
	struct orpc_drc_stats ds;
	enum orpc_outcome o;
	uint32_t n1, n2, v0;
	struct wb x;

	(void)st;
	memset(&d, 0, sizeof(d));
	assert_int_equal(orpc_svc_add(&d, &orpc_test_program), 0);
	assert_int_equal(orpc_svc_drc_enable(&d), 0);
	v0 = orpc_test_bump_value();
	bump_call(&x, 0x1001, 5);
	n1 = orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, first, sizeof(first), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	assert_int_equal(orpc_test_bump_value(), v0 + 5);
	/* the same call from the same host, a new port: the same reply, not run again */
	n2 = orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a2, again, sizeof(again), &o);
	assert_int_equal(o, ORPC_OUT_DRC_REPLAY);
	assert_int_equal(n2, n1);
	assert_memory_equal(again, first, n1);
	assert_int_equal(orpc_test_bump_value(), v0 + 5);
	/* another host, other arguments, another xid: each runs */
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &b, again, sizeof(again), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	bump_call(&x, 0x1001, 7);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	bump_call(&x, 0x1002, 5);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	assert_int_equal(orpc_test_bump_value(), v0 + 5 + 5 + 7 + 5);
	/* idempotent calls are never cached: NULL twice runs twice */
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	assert_int_equal(o, ORPC_OUT_SUCCESS);
	/* a deferred call (LATER): its retransmission is dropped while it runs */
	{
		static const char data[] = "deferred and cached";
		struct orpc_test_blob blob = {.data = (char *)data, .len = sizeof(data)};
		static uint8_t msg[256];
		struct orpc_pending *p;
		XDR xe;
		uint32_t len;

		xdrmem_create(&xe, (char *)msg, sizeof(msg), XDR_ENCODE);
		assert_true(
			orpc_call_encode(&xe, 0x2001, ORPC_TEST_PROG, 1, ORPC_TEST_LATER, NULL));
		assert_true(orpc_test_xdr_blob(&xe, &blob));
		len = xdr_getpos(&xe);
		n1 = orpc_svc_dispatch_peer(&d, msg, len, NULL, &a1, first, sizeof(first), &o);
		assert_int_equal(o, ORPC_OUT_DEFERRED);
		assert_int_equal(n1, 0);
		p = orpc_svc_take_deferred(&d, NULL, NULL);
		assert_non_null(p);
		n2 = orpc_svc_dispatch_peer(&d, msg, len, NULL, &a2, again, sizeof(again), &o);
		assert_int_equal(o, ORPC_OUT_DRC_IN_PROGRESS);
		assert_int_equal(n2, 0);
		/* it ends (the test program's queue holds it; end it by hand) */
		assert_int_equal(orpc_test_later_waiting(), 1);
		{
			struct orpc_test_blob *in = orpc_pending_args(p);

			*(struct orpc_test_blob *)orpc_pending_res(p) = *in;
		}
		orpc_test_later_forget();
		n1 = orpc_svc_finish(&d, p, first, sizeof(first), &o);
		assert_int_equal(o, ORPC_OUT_SUCCESS);
		n2 = orpc_svc_dispatch_peer(&d, msg, len, NULL, &b, again, sizeof(again), &o);
		assert_int_equal(o, ORPC_OUT_DEFERRED); /* another host: a call of its own */
		orpc_svc_finish(&d, orpc_svc_take_deferred(&d, NULL, NULL), NULL, 0, NULL);
		orpc_test_later_forget();
		n2 = orpc_svc_dispatch_peer(&d, msg, len, NULL, &a2, again, sizeof(again), &o);
		assert_int_equal(o, ORPC_OUT_DRC_REPLAY);
		assert_int_equal(n2, n1);
		assert_memory_equal(again, first, n1);
	}
	orpc_svc_drc_stats(&d, &ds);
	assert_int_equal(ds.replayed, 2);
	assert_int_equal(ds.in_progress_drops, 1);
	assert_int_equal(d.stats.outcome[ORPC_OUT_DRC_REPLAY], 2);
	/* without the cache, the retransmission runs again */
	orpc_svc_drc_disable(&d);
	v0 = orpc_test_bump_value();
	bump_call(&x, 0x1001, 5);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	orpc_svc_dispatch_peer(&d, x.b, x.n, NULL, &a1, again, sizeof(again), &o);
	assert_int_equal(orpc_test_bump_value(), v0 + 10);
}

static int raw_connect(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* let the server see what was sent, up to 2 s */
static void settle(uint64_t *counter, uint64_t want)
{
	time_t end = time(NULL) + 2;

	while (*counter < want && time(NULL) < end)
		orpc_tcp_srv_poll(&srv);
}

static void test_tcp_garbage_closes_one_connection(void **st)
{
	struct orpc_clnt c;
	struct waiter wt = {0};
	uint8_t b[64];
	struct wb x;
	int g;

	(void)st;
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 5000, 0), 0);
	orpc_clnt_call(&c, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &wt);
	run(&c, &wt, 1, 1);
	/* a record that is no RPC call */
	g = raw_connect();
	orpc_rm_mark(b, 8, true), memset(b + 4, 0xff, 8);
	assert_int_equal(send(g, b, 12, 0), 12);
	settle(&srv.stats.closed_garbage, 1);
	assert_int_equal(srv.stats.closed_garbage, 1);
	assert_int_equal(recv(g, b, sizeof(b), 0), 0); /* closed by the server */
	close(g);
	/* a record over the bound */
	g = raw_connect();
	orpc_rm_mark(b, ORPC_RM_DEFAULT_MAX + 1, true);
	assert_int_equal(send(g, b, 4, 0), 4);
	settle(&srv.stats.closed_too_big, 1);
	assert_int_equal(srv.stats.closed_too_big, 1);
	close(g);
	/* an empty record */
	g = raw_connect();
	orpc_rm_mark(b, 0, true);
	assert_int_equal(send(g, b, 4, 0), 4);
	settle(&srv.stats.closed_empty, 1);
	assert_int_equal(srv.stats.closed_empty, 1);
	close(g);
	/* a good call in three fragments on a raw connection is answered */
	g = raw_connect();
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	orpc_rm_mark(b, 10, false), memcpy(b + 4, x.b, 10);
	orpc_rm_mark(b + 14, 10, false), memcpy(b + 18, x.b + 10, 10);
	orpc_rm_mark(b + 28, x.n - 20, true), memcpy(b + 32, x.b + 20, x.n - 20);
	assert_int_equal(send(g, b, 32 + x.n - 20, 0), (ssize_t)(32 + x.n - 20));
	settle(&srv.stats.replies, srv.stats.replies + 1);
	assert_int_equal(recv(g, b, sizeof(b), 0), 28);
	assert_int_equal(b[0], 0x80);
	assert_int_equal(b[3], 24);
	close(g);
	/* the first client's connection was not disturbed */
	wt.done = 0;
	orpc_clnt_call(&c, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &wt);
	run(&c, &wt, 1, 1);
	assert_int_equal(wt.err, 0);
	assert_int_equal(c.stats.reconnects, 0);
	orpc_clnt_fini(&c);
}

/* backward calls (orpc_bc.h) on a raw TCP connection */
struct bc_waiter {
	int done, err;
	uint8_t reply[64];
	uint32_t len;
};

static void on_bc_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct bc_waiter *bw = ctx;

	bw->done++;
	bw->err = err;
	bw->len = len;
	if (reply && len <= sizeof(bw->reply))
		memcpy(bw->reply, reply, len);
}

static uint32_t word(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A NULL call on g, answered: the server has registered the connection by then. */
static void raw_null(int g)
{
	uint8_t b[64];
	struct wb x;

	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	orpc_rm_mark(b, x.n, true), memcpy(b + 4, x.b, x.n);
	assert_int_equal(send(g, b, 4 + x.n, 0), (ssize_t)(4 + x.n));
	settle(&srv.stats.replies, srv.stats.replies + 1);
	assert_int_equal(recv(g, b, sizeof(b), 0), 28);
	assert_int_equal(word(b + 4), XID);
	assert_int_equal(word(b + 8), 1);
}

/* read one whole record (mark + message) from g */
static uint32_t raw_record(int g, uint8_t *b, uint32_t cap)
{
	uint32_t got = 0, want = 4;

	while (got < want) {
		ssize_t n = recv(g, b + got, want - got, 0);

		assert_true(n > 0);
		got += (uint32_t)n;
		if (got == 4) {
			assert_true(b[0] & 0x80); /* one fragment */
			want = 4 + (word(b) & 0x7fffffff);
			assert_true(want <= cap);
		}
	}
	return want;
}

static void test_tcp_backchannel(void **st)
{
	const uint32_t bxid = 0x0bc0ffeeu, prog = 0x40000000u, vers = 1, proc = 4;
	struct bc_waiter bw = {0}, bw2 = {0}, many[ORPC_TCP_BC_CALLS] = {{0}};
	uint64_t stray0 = srv.stats.bc_stray, replies0 = srv.stats.bc_replies;
	uint8_t b[128];
	struct wb x, r;
	uint32_t xid0;
	uint64_t id;
	uint32_t n;
	int g;

	(void)st;
	g = raw_connect();
	orpc_test_last_bc_id = 0;
	raw_null(g);
	id = orpc_test_last_bc_id;
	assert_true(id != 0);
	assert_true(orpc_bc_alive(&bct, id));
	/* the server's backward call: one record, xid CALL 2 prog vers proc and AUTH_NONE */
	x.n = 0;
	w(&x, bxid), w(&x, 0), w(&x, 2), w(&x, prog), w(&x, vers), w(&x, proc);
	auth_none(&x), auth_none(&x);
	assert_int_equal(orpc_bc_call(&bct, id, x.b, x.n, on_bc_done, &bw), 0);
	n = raw_record(g, b, sizeof(b));
	assert_int_equal(n, 4 + x.n);
	assert_int_equal(word(b + 4), bxid);
	assert_int_equal(word(b + 8), 0); /* CALL */
	assert_int_equal(word(b + 12), 2);
	assert_int_equal(word(b + 16), prog);
	assert_int_equal(word(b + 20), vers);
	assert_int_equal(word(b + 24), proc);
	/* a forward call in between is still answered */
	raw_null(g);
	assert_int_equal(bw.done, 0);
	/* a stray REPLY is counted and dropped; the connection stays */
	r.n = 0;
	w(&r, 0x7777u), w(&r, 1), w(&r, 0), w(&r, 0), w(&r, 0), w(&r, 0);
	orpc_rm_mark(b, r.n, true), memcpy(b + 4, r.b, r.n);
	assert_int_equal(send(g, b, 4 + r.n, 0), (ssize_t)(4 + r.n));
	settle(&srv.stats.bc_stray, stray0 + 1);
	assert_int_equal(srv.stats.bc_stray, stray0 + 1);
	assert_int_equal(bw.done, 0);
	/* its reply: xid REPLY MSG_ACCEPTED verf(AUTH_NONE) SUCCESS, then a result word */
	r.n = 0;
	w(&r, bxid), w(&r, 1), w(&r, 0), w(&r, 0), w(&r, 0), w(&r, 0), w(&r, 42);
	orpc_rm_mark(b, r.n, true), memcpy(b + 4, r.b, r.n);
	assert_int_equal(send(g, b, 4 + r.n, 0), (ssize_t)(4 + r.n));
	settle(&srv.stats.bc_replies, replies0 + 1);
	assert_int_equal(bw.done, 1);
	assert_int_equal(bw.err, 0);
	assert_int_equal(bw.len, r.n);
	assert_memory_equal(bw.reply, r.b, r.n);
	raw_null(g);
	assert_true(orpc_bc_alive(&bct, id));
	/* ORPC_TCP_BC_CALLS at once, then -EBUSY; closing ends each once with -ENOTCONN */
	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS; i++) {
		x.b[3] = (uint8_t)i;
		assert_int_equal(orpc_bc_call(&bct, id, x.b, x.n, on_bc_done, &many[i]), 0);
	}
	assert_int_equal(orpc_bc_call(&bct, id, x.b, x.n, on_bc_done, &bw2), -EBUSY);
	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS; i++)
		raw_record(g, b, sizeof(b));
	/* the upper layer gives up on the first: no done for it, and its slot is free again */
	x.b[3] = 0;
	memcpy(&xid0, x.b, 4);
	assert_int_equal(orpc_bc_cancel(&bct, id, xid0), 0);
	assert_int_equal(orpc_bc_cancel(&bct, id, xid0), -ENOENT);
	close(g);
	settle(&srv.stats.closed, srv.stats.closed + 1);
	assert_int_equal(many[0].done, 0);
	for (uint32_t i = 1; i < ORPC_TCP_BC_CALLS; i++) {
		assert_int_equal(many[i].done, 1);
		assert_int_equal(many[i].err, -ENOTCONN);
	}
	assert_int_equal(bw2.done, 0);
	assert_false(orpc_bc_alive(&bct, id));
	assert_int_equal(orpc_bc_call(&bct, id, x.b, x.n, on_bc_done, &bw2), -ENOTCONN);
	assert_int_equal(orpc_bc_cancel(&bct, id, xid0), -ENOTCONN);
	assert_int_equal(bw2.done, 0);
	assert_int_equal(bw.done, 1);
}

/* A backward call while large replies are still being written goes out after the last reply's
 * last byte, as a record of its own: ECHOs of 1 MB are sent, unread, until the server's
 * socket is full and a reply waits in part (out_queued); then the backward call; the stream
 * read back is whole replies, then the call. */
static void test_tcp_backchannel_behind_reply(void **st)
{
	const uint32_t dlen = 1000000, bxid = 0x0bc0beefu, rlen = 4 + 28 + dlen;
	uint64_t queued0 = srv.stats.out_queued, records0 = srv.stats.records;
	uint32_t got = 0, total, ncalls = 0, cap;
	struct bc_waiter bw = {0};
	int g, small = 4096;
	uint8_t *big, *in;
	struct wb x;
	uint64_t id;

	(void)st;
	{
		/* a small receive window from the start */
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

		g = socket(AF_INET, SOCK_STREAM, 0);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		setsockopt(g, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		assert_int_equal(connect(g, (struct sockaddr *)&a, sizeof(a)), 0);
	}
	orpc_test_last_bc_id = 0;
	raw_null(g);
	id = orpc_test_last_bc_id;
	assert_true(id != 0);
	records0 = srv.stats.records;
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_ECHO), auth_none(&x), auth_none(&x), w(&x, dlen);
	total = 4 + x.n + dlen;
	big = calloc(1, total);
	assert_non_null(big);
	orpc_rm_mark(big, x.n + dlen, true);
	memcpy(big + 4, x.b, x.n);
	while (srv.stats.out_queued == queued0 && ncalls < 16) {
		uint32_t n = 0;

		while (n < total) {
			ssize_t k = send(g, big + n, total - n, MSG_DONTWAIT);

			if (k > 0)
				n += (uint32_t)k;
			orpc_tcp_srv_poll(&srv);
		}
		ncalls++;
		settle(&srv.stats.records, records0 + ncalls);
		assert_int_equal(srv.stats.records, records0 + ncalls);
	}
	assert_true(srv.stats.out_queued > queued0); /* a reply waits in part */
	/* the backward call, queued behind it */
	x.n = 0;
	w(&x, bxid), w(&x, 0), w(&x, 2), w(&x, 0x40000000u), w(&x, 1), w(&x, 0);
	auth_none(&x), auth_none(&x);
	assert_int_equal(orpc_bc_call(&bct, id, x.b, x.n, on_bc_done, &bw), 0);
	/* read it all, polling the server as the socket drains */
	cap = ncalls * rlen + 4 + x.n;
	in = malloc(cap + 64);
	assert_non_null(in);
	for (time_t end = time(NULL) + 20; time(NULL) < end && got < cap;) {
		ssize_t k = recv(g, in + got, cap + 64 - got, MSG_DONTWAIT);

		if (k > 0)
			got += (uint32_t)k;
		orpc_tcp_srv_poll(&srv);
	}
	assert_int_equal(got, cap);
	for (uint32_t i = 0; i < ncalls; i++) { /* whole replies, one record each */
		const uint8_t *r = in + i * rlen;

		assert_int_equal(word(r), 0x80000000u | (rlen - 4));
		assert_int_equal(word(r + 4), XID);
		assert_int_equal(word(r + 8), 1);
		assert_int_equal(word(r + 28), dlen);
	}
	assert_int_equal(word(in + ncalls * rlen), 0x80000000u | x.n); /* then the call */
	assert_memory_equal(in + ncalls * rlen + 4, x.b, x.n);
	close(g);
	settle(&srv.stats.closed, srv.stats.closed + 1);
	assert_int_equal(bw.done, 1);
	assert_int_equal(bw.err, -ENOTCONN);
	free(big);
	free(in);
}

static void test_udp_null(void **st)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(uport)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint64_t before = srv.stats.udp_replies;
	struct wb x;
	uint8_t b[64];

	(void)st;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	orpc_test_last_bc_id = 99;
	assert_int_equal(sendto(fd, x.b, x.n, 0, (struct sockaddr *)&a, sizeof(a)), (ssize_t)x.n);
	settle(&srv.stats.udp_replies, before + 1);
	assert_int_equal(recv(fd, b, sizeof(b), 0), 24);
	assert_int_equal(orpc_test_last_bc_id, 0); /* UDP: no backchannel */
	assert_int_equal(b[3], XID & 0xff);
	close(fd);
}

/* LATER over UDP: the call is deferred, its datagram kept while later datagrams are read, and
 * its reply goes to the address it came from when it ends. ORPC_UDP_CALLS of them from two
 * sockets, then one more that finds every slot taken: that one is answered at dispatch (echoed
 * at once), and so is a NULL while the others wait. Replies: xid, REPLY, MSG_ACCEPTED, AUTH_NONE
 * verifier, SUCCESS, then the echoed opaque (RFC 5531 §9). */
static void test_udp_deferred(void **st)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(uport)};
	struct timeval tv = {.tv_sec = 2};
	int fd[2] = {socket(AF_INET, SOCK_DGRAM, 0), socket(AF_INET, SOCK_DGRAM, 0)};
	uint64_t calls0 = srv.stats.udp_calls, rep0 = srv.stats.udp_replies;
	uint64_t def0 = srv.stats.udp_deferred, noslot0 = srv.stats.udp_no_slot;
	uint32_t waiting0 = orpc_test_later_waiting(), i, seen = 0;
	uint8_t b[128], sent[ORPC_UDP_CALLS][64];
	struct wb x;

	(void)st;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 2; i++)
		assert_int_equal(setsockopt(fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	for (i = 0; i <= ORPC_UDP_CALLS; i++) {
		call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_LATER), auth_none(&x), auth_none(&x);
		w(&x, 4), w(&x, 0xab000000u | i);
		x.b[3] = (uint8_t)(XID + i); /* xid XID + i (XID's low byte is 0x10) */
		assert_true(x.n <= sizeof(sent[0]));
		if (i < ORPC_UDP_CALLS)
			memcpy(sent[i], x.b, x.n);
		assert_int_equal(sendto(fd[i % 2], x.b, x.n, 0, (struct sockaddr *)&a, sizeof(a)),
				 (ssize_t)x.n);
		settle(&srv.stats.udp_calls, calls0 + i + 1);
	}
	assert_int_equal(srv.stats.udp_calls, calls0 + ORPC_UDP_CALLS + 1);
	assert_int_equal(srv.stats.udp_deferred, def0 + ORPC_UDP_CALLS);
	assert_int_equal(srv.stats.udp_no_slot, noslot0 + 1);
	assert_int_equal(srv.udp_ncalls, ORPC_UDP_CALLS);
	assert_int_equal(orpc_test_later_waiting(), waiting0 + ORPC_UDP_CALLS);
	/* each slot kept its own datagram, whole, though later ones were read meanwhile (a
	 * handler's arguments may point into it) */
	for (uint32_t k = 0; k < ORPC_UDP_CALLS; k++) {
		const struct orpc_udp_call *u = &srv.udp[k];

		assert_true(u->used);
		i = word(u->msg) - XID;
		assert_true(i < ORPC_UDP_CALLS);
		assert_memory_equal(u->msg, sent[i], x.n);
		seen |= 1u << i;
	}
	assert_int_equal(seen, (1u << ORPC_UDP_CALLS) - 1);
	/* the one without a slot was echoed at once, to fd[ORPC_UDP_CALLS % 2] */
	assert_int_equal(srv.stats.udp_replies, rep0 + 1);
	assert_int_equal(recv(fd[ORPC_UDP_CALLS % 2], b, sizeof(b), 0), 32);
	assert_int_equal(word(b), XID + ORPC_UDP_CALLS);
	assert_int_equal(word(b + 24), 4);
	assert_int_equal(word(b + 28), 0xab000000u | ORPC_UDP_CALLS);
	/* a NULL while they wait: answered */
	call(&x, 2, ORPC_TEST_PROG, 1, 0), auth_none(&x), auth_none(&x);
	x.b[3] = 0x80; /* an xid of its own */
	assert_int_equal(sendto(fd[1], x.b, x.n, 0, (struct sockaddr *)&a, sizeof(a)),
			 (ssize_t)x.n);
	settle(&srv.stats.udp_replies, rep0 + 2);
	assert_int_equal(recv(fd[1], b, sizeof(b), 0), 24);
	assert_int_equal(word(b), (XID & ~0xffu) | 0x80);
	/* they end: each socket gets its own calls' replies, in the order they were sent, each
	 * echoing what its datagram carried (kept while 2 more were read into new buffers) */
	assert_int_equal(orpc_test_later_run(), waiting0 + ORPC_UDP_CALLS);
	assert_int_equal(srv.stats.udp_replies, rep0 + 2 + ORPC_UDP_CALLS);
	assert_int_equal(srv.udp_ncalls, 0);
	for (i = 0; i < ORPC_UDP_CALLS; i++) {
		assert_int_equal(recv(fd[i % 2], b, sizeof(b), 0), 32);
		assert_int_equal(word(b), XID + i);
		assert_int_equal(word(b + 4), 1);  /* REPLY */
		assert_int_equal(word(b + 8), 0);  /* MSG_ACCEPTED */
		assert_int_equal(word(b + 20), 0); /* SUCCESS */
		assert_int_equal(word(b + 28), 0xab000000u | i);
	}
	close(fd[0]);
	close(fd[1]);
}

/* A draining server (orpc_tcp_srv_quiesce) keeps no new UDP call: LATER is echoed at once.
 * Last of its group: quiesce closes the TCP listener. */
static void test_udp_quiesced(void **st)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(uport)};
	struct timeval tv = {.tv_sec = 2};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint64_t def0 = srv.stats.udp_deferred, rep0 = srv.stats.udp_replies;
	uint32_t waiting0 = orpc_test_later_waiting();
	uint8_t b[128];
	struct wb x;

	(void)st;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	orpc_tcp_srv_quiesce(&srv);
	call(&x, 2, ORPC_TEST_PROG, 1, ORPC_TEST_LATER), auth_none(&x), auth_none(&x);
	w(&x, 4), w(&x, 0xcd000001u);
	assert_int_equal(sendto(fd, x.b, x.n, 0, (struct sockaddr *)&a, sizeof(a)), (ssize_t)x.n);
	settle(&srv.stats.udp_replies, rep0 + 1);
	assert_int_equal(recv(fd, b, sizeof(b), 0), 32);
	assert_int_equal(word(b + 28), 0xcd000001u);
	assert_int_equal(srv.stats.udp_deferred, def0);
	assert_int_equal(orpc_test_later_waiting(), waiting0);
	close(fd);
}

static void test_client_timeout_retransmit(void **st)
{
	struct orpc_clnt c;
	struct waiter wt = {0};

	(void)st;
	/* the server is not polled: the call and its one retransmission go unanswered */
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 100, 1), 0);
	orpc_clnt_call(&c, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &wt);
	run(&c, &wt, 1, 0);
	assert_int_equal(wt.err, -ETIMEDOUT);
	assert_int_equal(c.stats.retransmits, 1);
	assert_int_equal(c.stats.timeouts, 1);
	/* now the server answers both copies: late answers are counted, not delivered */
	{
		time_t end = time(NULL) + 2;

		while (c.stats.stray_replies < 2 && time(NULL) < end) {
			orpc_tcp_srv_poll(&srv);
			orpc_clnt_poll(&c);
		}
	}
	assert_int_equal(c.stats.stray_replies, 2);
	assert_int_equal(wt.done, 1);
	orpc_clnt_fini(&c);
}

static void test_client_reconnects(void **st)
{
	struct orpc_clnt c;
	struct waiter wt = {0};

	(void)st;
	assert_int_equal(orpc_clnt_init(&c, "127.0.0.1", port, 300, 5), 0);
	orpc_clnt_call(&c, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &wt);
	run(&c, &wt, 1, 1);
	/* the server goes away and comes back on the same port */
	orpc_tcp_srv_fini(&srv);
	assert_int_equal(orpc_tcp_srv_init(&srv, &svc, 0), 0);
	assert_int_equal(orpc_tcp_srv_listen(&srv, "127.0.0.1", port, 0, NULL), 0);
	assert_int_equal(orpc_tcp_srv_listen(&srv, "127.0.0.1", uport, 1, NULL), 0);
	wt.done = 0;
	orpc_clnt_call(&c, ORPC_TEST_PROG, 1, 0, NULL, NULL, NULL, on_done, &wt);
	run(&c, &wt, 1, 1);
	assert_int_equal(wt.err, 0);
	assert_int_equal(wt.h.stat, SUCCESS);
	assert_true(c.stats.reconnects >= 1);
	orpc_clnt_fini(&c);
}

int main(void)
{
	const struct CMUnitTest dispatch_tests[] = {
		cmocka_unit_test(test_success_and_mismatches),
		cmocka_unit_test(test_echo_and_garbage_args),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_record_marking),
		cmocka_unit_test(test_duplicate_request_cache),
		cmocka_unit_test(test_drc_size),
	};
	const struct CMUnitTest tcp_tests[] = {
		cmocka_unit_test(test_tcp_echo_large),
		cmocka_unit_test(test_tcp_many_in_flight_and_auth),
		cmocka_unit_test(test_tcp_deferred_calls),
		cmocka_unit_test(test_tcp_calls_at_once),
		cmocka_unit_test(test_tcp_garbage_closes_one_connection),
		cmocka_unit_test(test_tcp_backchannel),
		cmocka_unit_test(test_tcp_backchannel_behind_reply),
		cmocka_unit_test(test_udp_null),
		cmocka_unit_test(test_udp_deferred),
		cmocka_unit_test(test_client_timeout_retransmit),
		cmocka_unit_test(test_client_reconnects),
		cmocka_unit_test(test_udp_quiesced),
	};
	int rc = cmocka_run_group_tests(dispatch_tests, setup, NULL);

	return rc | cmocka_run_group_tests(tcp_tests, tcp_setup, tcp_teardown);
}
