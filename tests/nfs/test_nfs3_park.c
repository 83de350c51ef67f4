/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs3_park.c - NFSv3 calls beyond the server's scratch sets wait for one; they are not
 * run on the lcore (nfs/nfs3/nfs3_svc.c, nfs3_defer_or_run and unpark). Through the RPC
 * program over a TCP peer, with one helper thread, GETATTRs of the export's root:
 *   - NFS3_MAX_SCRATCH + 40 calls are all deferred: the first NFS3_MAX_SCRATCH go to the pool,
 *     the other 40 wait (parked 40, none run inline, none answered before the pool is polled);
 *     polling the pool answers every one, NFS3_OK with its own xid, in arrival order (one
 *     helper thread), all of them on the helper;
 *   - a pool that stops with calls waiting (nfs_pool_destroy): each waiting call is run on
 *     the lcore when its turn comes (counted inline) and answered; none is lost; and a call
 *     that arrives meanwhile (dispatched from a resume) is answered at once, not deferred into
 *     the stopping pool;
 *   - with the wait list full too (NFS3_MAX_PARKED), the next calls are answered at once, run
 *     inline (counted), and the waiting ones are still answered afterwards.
 * Needs root (open_by_handle_at): 77 otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs3_svc.h"
#include "nfs4_fixture.h"
#include "nfs_pool.h"
#include "orpc_svc.h"

static struct nfs3_server v3;
static struct orpc_svc svc;
static struct orpc_program prog;
static struct orpc_version vers[2];
static struct nfs_fh root;

#define MAXCALLS (NFS3_MAX_SCRATCH + NFS3_MAX_PARKED + 4)

struct slot {
	uint8_t msg[256];
	uint8_t out[512];
	uint32_t out_len;
	bool done;
	uint32_t order; /**< its place among the answers */
};
static struct slot *slots;
static uint32_t ndone;
/* a call that arrives while the pool stops (a transport that dispatches the next call from
 * its resume): its slot, and whether dispatch answered it at once */
static uint32_t late_slot = UINT32_MAX;
static uint32_t late_answer;
static uint32_t getattr(uint32_t i);

static uint32_t word(const uint8_t *p, uint32_t i)
{
	return (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
	       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
}

static void put(uint8_t *p, uint32_t i, uint32_t v)
{
	p[4 * i] = (uint8_t)(v >> 24);
	p[4 * i + 1] = (uint8_t)(v >> 16);
	p[4 * i + 2] = (uint8_t)(v >> 8);
	p[4 * i + 3] = (uint8_t)v;
}

/* the transport's resume: the reply encoded, in the order replies come */
static void resume(struct orpc_pending *p, void *arg)
{
	struct slot *k = arg;
	enum orpc_outcome oc;

	k->out_len = orpc_svc_finish(&svc, p, k->out, sizeof(k->out), &oc);
	assert_int_equal(oc, ORPC_OUT_SUCCESS);
	k->done = true;
	k->order = ndone++;
	if (late_slot != UINT32_MAX && !slots[late_slot].done)
		late_answer = getattr(late_slot);
}

/* GETATTR of the root with xid i + 1 (RFC 5531 call: xid, CALL, 2, NFS (100003), 3, GETATTR
 * (1), AUTH_SYS {stamp, "", 0, 0, no gids}, AUTH_NONE verf; GETATTR3args: the fh) into slot
 * i. @return what dispatch answered at once (0: deferred, and taken with resume) */
static uint32_t getattr(uint32_t i)
{
	const uint32_t hdr[] = {i + 1, 0, 2, 100003, 3, 1, 1, 20, 0, 0, 0, 0, 0, 0, 0};
	struct slot *k = &slots[i];
	struct orpc_peer peer = {0};
	enum orpc_outcome oc;
	uint32_t len, n;

	memset(k, 0, sizeof(*k));
	for (uint32_t w = 0; w < 15; w++)
		put(k->msg, w, hdr[w]);
	put(k->msg, 15, root.len);
	memcpy(k->msg + 64, root.data, root.len);
	len = 64 + ((root.len + 3) & ~3u);
	peer.xprt = ORPC_XPRT_TCP;
	n = orpc_svc_dispatch_peer(&svc, k->msg, len, NULL, &peer, k->out, sizeof(k->out), &oc);
	if (n == 0) {
		assert_int_equal(oc, ORPC_OUT_DEFERRED);
		assert_non_null(orpc_svc_take_deferred(&svc, resume, k));
	} else {
		k->out_len = n;
		k->done = true;
		k->order = ndone++;
	}
	return n;
}

/* the answer in slot i: xid i + 1, accepted, SUCCESS, NFS3_OK */
static void answered_ok(uint32_t i)
{
	const struct slot *k = &slots[i];

	assert_true(k->done);
	assert_true(k->out_len >= 28);
	assert_int_equal(word(k->out, 0), i + 1);
	assert_int_equal(word(k->out, 5), 0); /* SUCCESS */
	assert_int_equal(word(k->out, 6), 0); /* NFS3_OK */
}

/* poll the pool until n answers are in (bounded: 10 s) */
static void poll_until(uint32_t n)
{
	for (int t = 0; t < 10000 && ndone < n; t++) {
		if (!nfs_pool_poll(v3.pool, nfs3_pool_done, 64))
			usleep(1000);
	}
	assert_int_equal(ndone, n);
}

static int fresh(void **state)
{
	(void)state;
	memset(&v3.st, 0, sizeof(v3.st));
	ndone = 0;
	v3.pool = nfs_pool_create("park", 1, nfs3_pool_work);
	return v3.pool ? 0 : -1;
}

static int stop_pool(void **state)
{
	(void)state;
	nfs_pool_destroy(v3.pool, nfs3_pool_done);
	v3.pool = NULL;
	return 0;
}

static void test_wait_for_scratch(void **state)
{
	const uint32_t n = NFS3_MAX_SCRATCH + 40;

	(void)state;
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(getattr(i), 0);
	assert_int_equal(v3.st.parked, 40);
	assert_int_equal(v3.st.sync_fallback, 0);
	assert_int_equal(v3.st.deferred, NFS3_MAX_SCRATCH);
	assert_int_equal(ndone, 0);
	poll_until(n);
	for (uint32_t i = 0; i < n; i++) {
		answered_ok(i);
		assert_int_equal(slots[i].order, i);
	}
	assert_int_equal(v3.st.deferred, n);
	assert_int_equal(v3.st.sync_fallback, 0);
	assert_int_equal(v3.st.proc[NFS3_PROC_GETATTR], n);
	assert_int_equal(v3.park_head, v3.park_tail);
}

static void test_pool_stops_with_calls_waiting(void **state)
{
	const uint32_t n = NFS3_MAX_SCRATCH + 10;

	(void)state;
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(getattr(i), 0);
	assert_int_equal(v3.st.parked, 10);
	late_slot = n;
	memset(&slots[n], 0, sizeof(slots[n]));
	nfs_pool_destroy(v3.pool, nfs3_pool_done);
	v3.pool = NULL;
	late_slot = UINT32_MAX;
	/* the late call was answered at once, on the lcore, not deferred into the stopped pool */
	assert_true(late_answer > 0);
	assert_int_equal(ndone, n + 1);
	for (uint32_t i = 0; i <= n; i++)
		answered_ok(i);
	assert_int_equal(v3.st.sync_fallback, 10 + 1);
	assert_int_equal(v3.st.deferred, NFS3_MAX_SCRATCH);
	assert_int_equal(v3.park_head, v3.park_tail);
}

static void test_wait_list_full(void **state)
{
	const uint32_t waiting = NFS3_MAX_SCRATCH + NFS3_MAX_PARKED;

	(void)state;
	for (uint32_t i = 0; i < waiting; i++)
		assert_int_equal(getattr(i), 0);
	assert_int_equal(v3.st.parked, NFS3_MAX_PARKED);
	/* nowhere to wait: answered at once, on the lcore */
	for (uint32_t i = waiting; i < MAXCALLS; i++) {
		assert_true(getattr(i) > 0);
		answered_ok(i);
	}
	assert_int_equal(v3.st.sync_fallback, MAXCALLS - waiting);
	poll_until(MAXCALLS);
	for (uint32_t i = 0; i < waiting; i++)
		answered_ok(i);
	assert_int_equal(v3.st.sync_fallback, MAXCALLS - waiting);
	assert_int_equal(v3.st.deferred, waiting);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_for_scratch, fresh, stop_pool),
		cmocka_unit_test_setup_teardown(test_pool_stops_with_calls_waiting, fresh, NULL),
		cmocka_unit_test_setup_teardown(test_wait_list_full, fresh, stop_pool),
	};
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_nfs3_park: needs root (open_by_handle_at); skipped\n");
		return 77;
	}
	slots = calloc(MAXCALLS, sizeof(*slots));
	if (!slots || n4f_setup_rpc(&v3, &svc, &prog, vers) != 0)
		return 1;
	root = n4f_root_fh();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	n4f_teardown_rpc(&v3);
	free(slots);
	return rc;
}
