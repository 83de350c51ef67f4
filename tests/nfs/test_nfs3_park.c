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
 * And READs through io_uring, which check the file's owner after the read (nfs_aio.h): a READ
 * that started while the descriptor cache still knew its caller as the owner, of a file given
 * to another user with mode 0600 meanwhile, is run again on the helper thread and answered
 * NFS3ERR_ACCES, its data not sent.
 * Needs root (open_by_handle_at): 77 otherwise.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs3_svc.h"
#include "nfs4_fixture.h"
#include "nfs_aio.h"
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

/* NFSv3 call proc on fh as uid, with xid i + 1 (RFC 5531 call: xid, CALL, 2, NFS (100003), 3,
 * proc, AUTH_SYS {stamp, "", uid, gid uid, no gids}, AUTH_NONE verf; the fh, then ntail words)
 * into slot i. @return what dispatch answered at once (0: deferred, and taken with resume) */
static uint32_t call3(uint32_t i, uint32_t proc, uint32_t uid, const struct nfs_fh *fh,
		      const uint32_t *tail, uint32_t ntail)
{
	const uint32_t hdr[] = {i + 1, 0, 2, 100003, 3, proc, 1, 20, 0, 0, uid, uid, 0, 0, 0};
	struct slot *k = &slots[i];
	struct orpc_peer peer = {0};
	enum orpc_outcome oc;
	uint32_t len, n;

	memset(k, 0, sizeof(*k));
	for (uint32_t w = 0; w < 15; w++)
		put(k->msg, w, hdr[w]);
	put(k->msg, 15, fh->len);
	memcpy(k->msg + 64, fh->data, fh->len);
	len = 64 + ((fh->len + 3) & ~3u);
	for (uint32_t w = 0; w < ntail; w++, len += 4)
		put(k->msg + len, 0, tail[w]);
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

/* GETATTR (1) of the root as root into slot i */
static uint32_t getattr(uint32_t i)
{
	return call3(i, 1, 0, &root, NULL, 0);
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

/* poll io_uring and the pool until n answers are in (bounded: 10 s) */
static void poll_both(uint32_t n)
{
	for (int t = 0; t < 10000 && ndone < n; t++) {
		uint32_t got = nfs_aio_poll(v3.aio, nfs3_aio_done, 64);

		got += nfs_pool_poll(v3.pool, nfs3_pool_done, 64);
		if (!got)
			usleep(1000);
	}
	assert_int_equal(ndone, n);
}

/* READ (6) of 16 bytes at 0 of fh as uid into slot i, answered: @return its NFS status, and
 * with NFS3_OK its data is checked against want */
static uint32_t read16(uint32_t i, const struct nfs_fh *fh, uint32_t uid, const uint8_t *want)
{
	const uint32_t args[] = {0, 0, 16};
	const struct slot *k = &slots[i];

	call3(i, 6, uid, fh, args, 3);
	poll_both(i + 1);
	assert_int_equal(word(k->out, 0), i + 1);
	assert_int_equal(word(k->out, 5), 0); /* SUCCESS */
	if (word(k->out, 6) == 0) {
		/* READ3resok: post_op_attr (1, fattr3: 21 words), count, eof, data<16> */
		assert_int_equal(word(k->out, 7), 1);
		assert_int_equal(word(k->out, 29), 16);
		assert_int_equal(word(k->out, 31), 16);
		assert_memory_equal(k->out + 128, want, 16);
	}
	return word(k->out, 6);
}

static void test_read_checked_after_aio(void **state)
{
	const uint8_t data[16] = "0123456789abcdef";
	struct nfs_aio_stats st;
	struct nfs_attr a, da;
	struct nfs_fh fh;
	char path[256];
	bool dv;
	int fd;

	(void)state;
	v3.aio = nfs_aio_create(n4f_fs, 16);
	if (!v3.aio)
		skip(); /* no io_uring here: the pool does it all, nothing to check after */
	snprintf(path, sizeof(path), "%s/checked", n4f_exp_a);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, 16), 16);
	assert_int_equal(fchown(fd, 1000, 1000), 0);
	close(fd);
	assert_int_equal(nfs_fs_lookup(&n4f_ctx, &root, "checked", 7, &fh, &a, &dv, &da), NFS_OK);
	/* the first READ opens the file's READ descriptor, on the helper */
	assert_int_equal(read16(0, &fh, 1000, data), 0);
	assert_int_equal(v3.st.aio, 0);
	/* the owner's next READ goes through io_uring */
	assert_int_equal(read16(1, &fh, 1000, data), 0);
	assert_int_equal(v3.st.aio, 1);
	/* given away and closed to others: the READ starts from what the cache saw, and the check
	 * after it sends it to the helper, which answers ACCES */
	assert_int_equal(chown(path, 1001, 1001), 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(read16(2, &fh, 1000, data), 13); /* NFS3ERR_ACCES */
	assert_int_equal(v3.st.aio, 2);
	nfs_aio_stats(v3.aio, &st);
	assert_int_equal(st.rechecked, 1);
	/* the cache knows the new owner now: not started through io_uring */
	assert_int_equal(read16(3, &fh, 1000, data), 13);
	assert_int_equal(v3.st.aio, 2);
	nfs_aio_stats(v3.aio, &st);
	assert_int_equal(st.not_owner, 1);
	/* open to others again: the non-owner reads, checked by the kernel on the helper */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(read16(4, &fh, 1000, data), 0);
	assert_int_equal(v3.st.proc[NFS3_PROC_READ], 5);
	nfs_aio_destroy(v3.aio, nfs3_aio_done);
	v3.aio = NULL;
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
		cmocka_unit_test_setup_teardown(test_read_checked_after_aio, fresh, stop_pool),
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
