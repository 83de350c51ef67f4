/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nlm.c - the lock manager (nfs/lock) as NLM uses it: conflicts between owners over
 * 64-bit ranges, shared and exclusive, POSIX replacement (split, merge, upgrade, downgrade),
 * ranges to EOF, TEST's holder, blocked requests granted in arrival order when the conflict
 * goes (and on_grant's tag), CANCEL, FREE_HOST (FREE_ALL, SM_NOTIFY) by name and by address,
 * the grace period, and the NLM v4 / NSM XDR against words written from XNFS §14 / §11.
 * Every test ends with nothing held and no host left (nothing leaked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "nfs_lock.h"
#include "nlm_xdr.h"

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* what on_grant was told, in order */
static struct {
	char host[32];
	int32_t svid;
	uint64_t off, len;
	bool excl;
	char tag[32];
} grants[16];
static int ngrants;

static void on_grant(void *ctx, const struct nfs_lock_grant *g)
{
	(void)ctx;
	assert_true(ngrants < 16);
	memcpy(grants[ngrants].host, g->host, g->host_len);
	grants[ngrants].host[g->host_len] = '\0';
	grants[ngrants].svid = g->svid;
	grants[ngrants].off = g->off;
	grants[ngrants].len = g->len;
	grants[ngrants].excl = g->exclusive;
	memcpy(grants[ngrants].tag, g->tag, g->tag_len);
	grants[ngrants].tag[g->tag_len] = '\0';
	ngrants++;
}

static struct nfs_lock_mgr mgr;

static int setup_grace(uint64_t grace_ms)
{
	struct nfs_lock_conf c = {.grace_ms = grace_ms, .on_grant = on_grant, .now_ms = fake_clock};

	fake_now = 1000;
	ngrants = 0;
	memset(grants, 0, sizeof(grants));
	return nfs_lock_mgr_init(&mgr, &c);
}

static int setup(void **st)
{
	(void)st;
	return setup_grace(0);
}

static int teardown(void **st)
{
	uint32_t l, w;

	(void)st;
	nfs_lock_count(&mgr, &l, &w);
	nfs_lock_mgr_fini(&mgr);
	/* each test releases what it took: nothing may be left */
	assert_int_equal(l, 0);
	assert_int_equal(w, 0);
	assert_int_equal(mgr.nlocks, 0);
	assert_null(mgr.hosts);
	return 0;
}

struct who {
	const char *host;
	int32_t svid;
	const char *oh;
};

static const struct who A = {"alpha", 101, "101@alpha"}, B = {"beta", 202, "202@beta"},
			C = {"gamma", 303, "303@gamma"}, A2 = {"alpha", 102, "102@alpha"};

static enum nfs_lock_status op(enum nfs_lock_op o, int file, const struct who *w, uint64_t off,
			       uint64_t len, bool excl, bool block, const char *tag,
			       struct nfs_lock_res *res)
{
	struct nfs_lock_req q;
	struct nfs_lock_res r;
	struct sockaddr_in *sin = (struct sockaddr_in *)&q.addr;

	memset(&q, 0, sizeof(q));
	q.op = o;
	q.file.len = 16;
	memset(q.file.b, file, 16);
	q.owner.host = w->host;
	q.owner.host_len = (uint32_t)strlen(w->host);
	q.owner.svid = w->svid;
	q.owner.oh = (const uint8_t *)w->oh;
	q.owner.oh_len = (uint32_t)strlen(w->oh);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x0a4f0000u + (uint32_t)w->host[0]);
	q.off = off;
	q.len = len;
	q.exclusive = excl;
	q.block = block;
	q.tag = (const uint8_t *)tag;
	q.tag_len = tag ? (uint32_t)strlen(tag) : 0;
	return nfs_lock_process(&mgr, &q, res ? res : &r);
}

#define LOCK(f, w, off, len, x) op(NFS_LOCK_OP_LOCK, f, &(w), off, len, x, false, NULL, NULL)
#define BLOCK(f, w, off, len, x, tag) op(NFS_LOCK_OP_LOCK, f, &(w), off, len, x, true, tag, NULL)
#define UNLOCK(f, w, off, len) op(NFS_LOCK_OP_UNLOCK, f, &(w), off, len, false, false, NULL, NULL)
#define TEST(f, w, off, len, x, res) op(NFS_LOCK_OP_TEST, f, &(w), off, len, x, false, NULL, res)

static uint32_t nlocks(void)
{
	uint32_t l, w;

	nfs_lock_count(&mgr, &l, &w);
	return l;
}

static uint32_t nwaiters(void)
{
	uint32_t l, w;

	nfs_lock_count(&mgr, &l, &w);
	return w;
}

static void free_host(const char *name)
{
	struct nfs_lock_req q = {.op = NFS_LOCK_OP_FREE_HOST};
	struct nfs_lock_res r;

	q.owner.host = name;
	q.owner.host_len = (uint32_t)strlen(name);
	nfs_lock_process(&mgr, &q, &r);
}

/* exclusive locks conflict where they overlap, not where they do not; files are apart */
static void test_overlap(void **st)
{
	(void)st;
	assert_int_equal(LOCK(1, A, 100, 100, true), NFS_LOCK_GRANTED); /* [100, 199] */
	assert_int_equal(LOCK(1, B, 0, 100, true), NFS_LOCK_GRANTED);	/* [0, 99] touches */
	assert_int_equal(LOCK(1, B, 199, 1, true), NFS_LOCK_DENIED);	/* last byte */
	assert_int_equal(LOCK(1, B, 150, 10, false), NFS_LOCK_DENIED);	/* inside, shared */
	assert_int_equal(LOCK(1, B, 50, 1000, true), NFS_LOCK_DENIED);	/* around */
	assert_int_equal(LOCK(1, B, 200, 1, true), NFS_LOCK_GRANTED);	/* after */
	assert_int_equal(LOCK(2, B, 150, 10, true), NFS_LOCK_GRANTED);	/* another file */
	/* another process of the same host is another owner */
	assert_int_equal(LOCK(1, A2, 150, 1, false), NFS_LOCK_DENIED);
	assert_int_equal(UNLOCK(1, A, 0, 0), NFS_LOCK_GRANTED);
	assert_int_equal(UNLOCK(1, B, 0, 0), NFS_LOCK_GRANTED);
	assert_int_equal(UNLOCK(2, B, 0, 0), NFS_LOCK_GRANTED);
}

static void test_shared(void **st)
{
	(void)st;
	assert_int_equal(LOCK(1, A, 0, 10, false), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, B, 5, 10, false), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, C, 0, 1, false), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, C, 9, 1, true), NFS_LOCK_DENIED);
	assert_int_equal(LOCK(1, C, 15, 1, true), NFS_LOCK_GRANTED);
	/* C's own shared [0] does not stop C's exclusive there... but A's does */
	assert_int_equal(LOCK(1, C, 0, 1, true), NFS_LOCK_DENIED);
	UNLOCK(1, A, 0, 0);
	UNLOCK(1, B, 0, 0);
	assert_int_equal(LOCK(1, C, 0, 1, true), NFS_LOCK_GRANTED); /* upgrade */
	UNLOCK(1, C, 0, 0);
}

/* POSIX: unlocking the middle splits; adjacent same-kind ranges merge */
static void test_split_merge(void **st)
{
	struct nfs_lock_res r;

	(void)st;
	LOCK(1, A, 0, 100, true);
	assert_int_equal(nlocks(), 1);
	assert_int_equal(UNLOCK(1, A, 40, 20), NFS_LOCK_GRANTED); /* [0,39] [60,99] */
	assert_int_equal(nlocks(), 2);
	assert_int_equal(mgr.st.splits, 1);
	assert_int_equal(LOCK(1, B, 40, 20, true), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, C, 39, 1, false), NFS_LOCK_DENIED);
	assert_int_equal(LOCK(1, C, 60, 1, false), NFS_LOCK_DENIED);
	assert_int_equal(TEST(1, C, 30, 50, true, &r), NFS_LOCK_DENIED);
	/* one of the two holders in the range: A's [0, 39] or B's [40, 59] */
	assert_true((r.holder.svid == A.svid && r.holder.off == 0 && r.holder.len == 40) ||
		    (r.holder.svid == B.svid && r.holder.off == 40 && r.holder.len == 20));
	UNLOCK(1, B, 0, 0);
	/* A fills the hole: one range again */
	LOCK(1, A, 40, 20, true);
	assert_int_equal(nlocks(), 1);
	assert_int_equal(TEST(1, C, 0, 0, false, &r), NFS_LOCK_DENIED);
	assert_int_equal(r.holder.off, 0);
	assert_int_equal(r.holder.len, 100);
	/* touching ranges merge, a different kind does not */
	LOCK(1, A, 100, 10, true);
	assert_int_equal(nlocks(), 1);
	LOCK(1, A, 110, 10, false);
	assert_int_equal(nlocks(), 2);
	/* a shared lock inside an exclusive one splits it in three */
	LOCK(1, A, 10, 10, false);
	assert_int_equal(nlocks(), 4);
	assert_int_equal(LOCK(1, B, 12, 2, false), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, B, 9, 2, false), NFS_LOCK_DENIED);
	UNLOCK(1, B, 0, 0);
	UNLOCK(1, A, 0, 0);
	assert_int_equal(nlocks(), 0);
}

/* length 0: to EOF, whatever the offset; an offset + length past 2^64 too; 64-bit offsets */
static void test_eof_64bit(void **st)
{
	struct nfs_lock_res r;

	(void)st;
	assert_int_equal(LOCK(1, A, 1ull << 40, 0, true), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, B, UINT64_MAX, 1, true), NFS_LOCK_DENIED);
	assert_int_equal(LOCK(1, B, 0, 1ull << 40, true), NFS_LOCK_GRANTED);
	assert_int_equal(TEST(1, C, 1ull << 62, 1, false, &r), NFS_LOCK_DENIED);
	assert_true(r.holder.exclusive);
	assert_int_equal(r.holder.off, 1ull << 40);
	assert_int_equal(r.holder.len, 0); /* to EOF */
	UNLOCK(1, A, 0, 0);
	/* beyond 2^63 (NLM4's offsets are unsigned) and an overflowing length */
	assert_int_equal(LOCK(1, A, 1ull << 63, UINT64_MAX, true), NFS_LOCK_GRANTED);
	assert_int_equal(TEST(1, C, UINT64_MAX - 1, 1, false, &r), NFS_LOCK_DENIED);
	assert_int_equal(r.holder.len, 0);
	assert_int_equal(LOCK(1, C, (1ull << 63) - 1, 1, true), NFS_LOCK_GRANTED);
	UNLOCK(1, A, 1ull << 63, 0);
	UNLOCK(1, B, 0, 0);
	UNLOCK(1, C, 0, 0);
}

/* an owner upgrades and downgrades its own lock; a downgrade lets shared waiters in */
static void test_upgrade(void **st)
{
	(void)st;
	assert_int_equal(LOCK(1, A, 0, 100, false), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, A, 0, 100, true), NFS_LOCK_GRANTED);
	assert_int_equal(nlocks(), 1);
	assert_int_equal(LOCK(1, B, 50, 1, false), NFS_LOCK_DENIED);
	assert_int_equal(BLOCK(1, B, 50, 1, false, "b1"), NFS_LOCK_BLOCKED);
	assert_int_equal(ngrants, 0);
	assert_int_equal(LOCK(1, A, 0, 100, false), NFS_LOCK_GRANTED); /* downgrade */
	assert_int_equal(ngrants, 1);
	assert_string_equal(grants[0].host, "beta");
	assert_string_equal(grants[0].tag, "b1");
	/* now A cannot upgrade over B's shared byte */
	assert_int_equal(LOCK(1, A, 0, 100, true), NFS_LOCK_DENIED);
	UNLOCK(1, A, 0, 0);
	UNLOCK(1, B, 0, 0);
}

/* TEST names a holder: exclusive, svid, oh, range; and takes nothing */
static void test_test_holder(void **st)
{
	struct nfs_lock_res r;

	(void)st;
	assert_int_equal(TEST(1, A, 0, 0, true, &r), NFS_LOCK_GRANTED);
	assert_int_equal(nlocks(), 0);
	LOCK(1, B, 4096, 512, false);
	assert_int_equal(TEST(1, A, 0, 0, false, &r), NFS_LOCK_GRANTED);
	assert_int_equal(TEST(1, A, 0, 0, true, &r), NFS_LOCK_DENIED);
	assert_false(r.holder.exclusive);
	assert_int_equal(r.holder.svid, 202);
	assert_int_equal(r.holder.oh_len, strlen(B.oh));
	assert_memory_equal(r.holder.oh, B.oh, r.holder.oh_len);
	assert_int_equal(r.holder.off, 4096);
	assert_int_equal(r.holder.len, 512);
	assert_int_equal(TEST(1, B, 0, 0, true, &r), NFS_LOCK_GRANTED); /* its own */
	UNLOCK(1, B, 0, 0);
}

/* waiters are granted in arrival order once the conflict goes; each gets its tag back */
static void test_waiters_in_order(void **st)
{
	(void)st;
	LOCK(1, A, 0, 10, true);
	assert_int_equal(BLOCK(1, B, 0, 10, true, "first"), NFS_LOCK_BLOCKED);
	assert_int_equal(BLOCK(1, C, 5, 1, true, "second"), NFS_LOCK_BLOCKED);
	assert_int_equal(BLOCK(1, B, 0, 10, true, "first-again"), NFS_LOCK_BLOCKED); /* retry */
	assert_int_equal(nwaiters(), 2);
	assert_int_equal(UNLOCK(1, A, 0, 0), NFS_LOCK_GRANTED);
	assert_int_equal(ngrants, 1); /* B got it; C still conflicts with B */
	assert_string_equal(grants[0].host, "beta");
	assert_string_equal(grants[0].tag, "first-again");
	assert_true(grants[0].excl);
	assert_int_equal(grants[0].off, 0);
	assert_int_equal(grants[0].len, 10);
	assert_int_equal(LOCK(1, A, 0, 1, true), NFS_LOCK_DENIED); /* B holds it now */
	assert_int_equal(nwaiters(), 1);
	UNLOCK(1, B, 0, 5); /* not yet: C wants byte 5 */
	assert_int_equal(ngrants, 1);
	UNLOCK(1, B, 5, 1);
	assert_int_equal(ngrants, 2);
	assert_string_equal(grants[1].host, "gamma");
	assert_string_equal(grants[1].tag, "second");
	assert_int_equal(nwaiters(), 0);
	/* shared waiters behind one exclusive lock all go at once */
	UNLOCK(1, B, 0, 0);
	UNLOCK(1, C, 0, 0);
	LOCK(1, C, 0, 0, true);
	BLOCK(1, A, 0, 1, false, "a");
	BLOCK(1, B, 0, 1, false, "b");
	UNLOCK(1, C, 0, 0);
	assert_int_equal(ngrants, 4);
	assert_string_equal(grants[2].tag, "a");
	assert_string_equal(grants[3].tag, "b");
	UNLOCK(1, A, 0, 0);
	UNLOCK(1, B, 0, 0);
	assert_int_equal(mgr.st.granted_waiters, 4);
}

/* a waiter granted by a retry of its LOCK is not granted again later */
static void test_granted_on_retry(void **st)
{
	(void)st;
	LOCK(1, A, 0, 1, true);
	BLOCK(1, B, 0, 1, true, "t");
	/* B is granted at once; say its GRANTED callback never arrived: the client's periodic
	 * retry of its blocked LOCK finds the lock its own */
	UNLOCK(1, A, 0, 0);
	assert_int_equal(ngrants, 1);
	assert_int_equal(BLOCK(1, B, 0, 1, true, "t"), NFS_LOCK_GRANTED); /* already its own */
	assert_int_equal(nwaiters(), 0);
	UNLOCK(1, B, 0, 0);
	assert_int_equal(ngrants, 1);
}

static void test_cancel(void **st)
{
	struct nfs_lock_res r;

	(void)st;
	LOCK(1, A, 0, 0, true);
	BLOCK(1, B, 0, 0, true, "b");
	BLOCK(1, C, 0, 0, false, "c");
	assert_int_equal(nwaiters(), 2);
	/* a cancel must name the same range and kind */
	assert_int_equal(op(NFS_LOCK_OP_CANCEL, 1, &B, 0, 0, false, true, NULL, &r),
			 NFS_LOCK_GRANTED);
	assert_int_equal(r.removed, 0);
	assert_int_equal(op(NFS_LOCK_OP_CANCEL, 1, &B, 0, 0, true, true, NULL, &r),
			 NFS_LOCK_GRANTED);
	assert_int_equal(r.removed, 1);
	assert_int_equal(nwaiters(), 1);
	UNLOCK(1, A, 0, 0);
	assert_int_equal(ngrants, 1);
	assert_string_equal(grants[0].tag, "c");
	UNLOCK(1, C, 0, 0);
}

/* FREE_ALL / a reboot notification: every lock and waiter of the host goes, by name or by
 * address, and what waited behind them is granted */
static void test_free_host(void **st)
{
	struct nfs_lock_res r;

	(void)st;
	LOCK(1, A, 0, 10, true);
	LOCK(2, A, 0, 10, true);
	LOCK(2, A2, 20, 10, false);
	LOCK(3, B, 0, 10, true);
	BLOCK(3, A, 0, 1, true, "a-waits");
	BLOCK(1, C, 0, 1, true, "c-waits");
	assert_int_equal(nlocks(), 4);
	assert_int_equal(nwaiters(), 2);
	assert_true(nfs_lock_host_known(&mgr, "ALPHA", 5));
	struct nfs_lock_req q = {.op = NFS_LOCK_OP_FREE_HOST};
	q.owner.host = "alpha";
	q.owner.host_len = 5;
	nfs_lock_process(&mgr, &q, &r);
	assert_int_equal(r.removed, 4); /* three locks, one waiter */
	assert_int_equal(ngrants, 1);
	assert_string_equal(grants[0].tag, "c-waits");
	assert_false(nfs_lock_host_known(&mgr, "alpha", 5));
	assert_int_equal(LOCK(2, C, 0, 100, true), NFS_LOCK_GRANTED);
	/* by address: beta's locks came from 10.79.0.98 ('b') */
	assert_true(nfs_lock_host_known(&mgr, "10.79.0.98", 10));
	free_host("10.79.0.98");
	assert_int_equal(LOCK(3, C, 0, 100, true), NFS_LOCK_GRANTED);
	free_host("gamma");
	assert_int_equal(nlocks(), 0);
}

/* after a restart: only reclaims until the grace period ends */
static void test_grace(void **st)
{
	struct nfs_lock_req q;
	struct nfs_lock_res r;

	(void)st;
	nfs_lock_mgr_fini(&mgr);
	setup_grace(15000);
	assert_true(nfs_lock_in_grace(&mgr));
	assert_int_equal(LOCK(1, A, 0, 10, true), NFS_LOCK_GRACE);
	assert_int_equal(BLOCK(1, A, 0, 10, true, "x"), NFS_LOCK_GRACE);
	assert_int_equal(TEST(1, A, 0, 10, true, &r), NFS_LOCK_GRACE);
	memset(&q, 0, sizeof(q));
	q.op = NFS_LOCK_OP_LOCK;
	q.file.len = 16;
	memset(q.file.b, 1, 16);
	q.owner.host = "alpha";
	q.owner.host_len = 5;
	q.owner.svid = 101;
	q.owner.oh = (const uint8_t *)"101@alpha";
	q.owner.oh_len = 9;
	q.len = 10;
	q.exclusive = true;
	q.reclaim = true;
	assert_int_equal(nfs_lock_process(&mgr, &q, &r), NFS_LOCK_GRANTED);
	assert_int_equal(mgr.st.reclaims, 1);
	/* a reclaim that conflicts with another is denied like any lock */
	q.owner.host = "beta";
	q.owner.host_len = 4;
	assert_int_equal(nfs_lock_process(&mgr, &q, &r), NFS_LOCK_DENIED);
	/* unlocking is allowed in grace */
	fake_now += 14999;
	assert_true(nfs_lock_in_grace(&mgr));
	fake_now += 1;
	assert_false(nfs_lock_in_grace(&mgr));
	assert_int_equal(LOCK(1, B, 0, 10, true), NFS_LOCK_DENIED); /* the reclaimed lock */
	assert_int_equal(LOCK(1, B, 10, 10, true), NFS_LOCK_GRANTED);
	assert_int_equal(UNLOCK(1, A, 0, 0), NFS_LOCK_GRANTED);
	UNLOCK(1, B, 0, 0);
}

/* bad requests: no key, names and owners too long, a full table */
static void test_limits(void **st)
{
	struct nfs_lock_req q = {.op = NFS_LOCK_OP_LOCK};
	struct nfs_lock_res r;
	uint8_t big[NFS_LOCK_OH_MAX + 1] = {0};
	struct nfs_lock_conf c = {.max_locks = 4, .now_ms = fake_clock};

	(void)st;
	assert_int_equal(nfs_lock_process(&mgr, &q, &r), NFS_LOCK_INVAL);
	q.file.len = 16;
	q.owner.host = "h";
	q.owner.host_len = 1;
	q.owner.oh = big;
	q.owner.oh_len = sizeof(big);
	assert_int_equal(nfs_lock_process(&mgr, &q, &r), NFS_LOCK_NOLOCKS);
	q.op = (enum nfs_lock_op)99;
	assert_int_equal(nfs_lock_process(&mgr, &q, &r), NFS_LOCK_INVAL);
	nfs_lock_mgr_fini(&mgr);
	nfs_lock_mgr_init(&mgr, &c);
	assert_int_equal(LOCK(1, A, 0, 1, true), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, A, 10, 1, true), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, A, 20, 1, true), NFS_LOCK_GRANTED);
	assert_int_equal(LOCK(1, A, 30, 1, true), NFS_LOCK_NOLOCKS); /* room for a split kept */
	UNLOCK(1, A, 0, 0);
}

/* ---- XDR: words written from XNFS §14 (NLM v4) and §11 (NSM) ---- */

static uint32_t put_words(uint8_t *b, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = htonl(w[i]);

		memcpy(b + 4 * i, &v, 4);
	}
	return (uint32_t)(4 * n);
}

/* nlm4_lockargs: cookie<4>, block, exclusive, nlm4_lock {caller_name "vm1", fh<8>, oh<5>,
 * svid, l_offset, l_len}, reclaim, state */
static void test_xdr_lockargs(void **st)
{
	static const uint32_t w[] = {4,		 0xdeadbeef, 1,		 1,	     3,
				     0x766d3100, 8,	     0x01020304, 0x05060708, 5,
				     0x31323340, 0x76000000, 1234,	 0,	     0x1000,
				     0xffffffff, 0xffffffff, 0,		 3};
	uint8_t buf[sizeof(w)], out[sizeof(w)];
	struct nlm4_lockargs a;
	uint32_t len = put_words(buf, w, sizeof(w) / 4);
	XDR x;

	(void)st;
	memset(&a, 0, sizeof(a));
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_true(xdr_nlm4_lockargs(&x, &a));
	assert_int_equal(xdr_getpos(&x), len);
	xdr_destroy(&x);
	assert_int_equal(a.cookie.len, 4);
	assert_true(a.block);
	assert_true(a.exclusive);
	assert_int_equal(a.alock.caller_name.len, 3);
	assert_memory_equal(a.alock.caller_name.b, "vm1", 3);
	assert_int_equal(a.alock.fh.len, 8);
	assert_int_equal(a.alock.oh.len, 5);
	assert_int_equal(a.alock.svid, 1234);
	assert_int_equal(a.alock.l_offset, 0x1000);
	assert_int_equal(a.alock.l_len, UINT64_MAX);
	assert_false(a.reclaim);
	assert_int_equal(a.state, 3);
	xdrmem_create(&x, (char *)out, sizeof(out), XDR_ENCODE);
	assert_true(xdr_nlm4_lockargs(&x, &a));
	assert_int_equal(xdr_getpos(&x), len);
	xdr_destroy(&x);
	assert_memory_equal(out, buf, len);
	/* every prefix fails; a bool of 2 fails */
	for (uint32_t n = 0; n < len; n += 4) {
		xdrmem_create(&x, (char *)buf, n, XDR_DECODE);
		assert_false(xdr_nlm4_lockargs(&x, &a));
		xdr_destroy(&x);
	}
	buf[11] = 2;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_false(xdr_nlm4_lockargs(&x, &a));
	xdr_destroy(&x);
}

/* nlm4_testres: DENIED carries the holder; GRANTED does not */
static void test_xdr_testres(void **st)
{
	static const uint32_t denied[] = {0, 1, 1, 42, 2, 0x61620000, 0, 100, 0, 0};
	static const uint32_t granted[] = {0, 0};
	uint8_t buf[64], out[64];
	struct nlm4_testres r;
	uint32_t len = put_words(buf, denied, 10);
	XDR x;

	(void)st;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_true(xdr_nlm4_testres(&x, &r));
	xdr_destroy(&x);
	assert_int_equal(r.stat, NLM4_DENIED);
	assert_true(r.holder.exclusive);
	assert_int_equal(r.holder.svid, 42);
	assert_int_equal(r.holder.oh.len, 2);
	assert_int_equal(r.holder.l_offset, 100);
	xdrmem_create(&x, (char *)out, sizeof(out), XDR_ENCODE);
	assert_true(xdr_nlm4_testres(&x, &r));
	assert_int_equal(xdr_getpos(&x), len);
	xdr_destroy(&x);
	assert_memory_equal(out, buf, len);
	len = put_words(buf, granted, 2);
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_true(xdr_nlm4_testres(&x, &r));
	assert_int_equal(xdr_getpos(&x), 8);
	xdr_destroy(&x);
	/* a status past NLM4_FAILED does not decode */
	buf[7] = 10;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_false(xdr_nlm4_testres(&x, &r));
	xdr_destroy(&x);
}

/* SM_MON's mon: mon_id {mon_name, my_id {my_name, prog, vers, proc}}, priv[16] */
static void test_xdr_nsm(void **st)
{
	static const uint32_t w[] = {10,	 0x31302e37, 0x392e302e, 0x31310000, 9,
				     0x3132372e, 0x302e302e, 0x31000000, 100021,     4,
				     16,	 1,	     2,		 3,	     4};
	uint8_t buf[sizeof(w)], out[sizeof(w)];
	struct nsm_mon m;
	uint32_t len = put_words(buf, w, sizeof(w) / 4);
	XDR x;

	(void)st;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	assert_true(xdr_nsm_mon(&x, &m));
	assert_int_equal(xdr_getpos(&x), len);
	xdr_destroy(&x);
	assert_int_equal(m.mon_id.mon_name.len, 10);
	assert_memory_equal(m.mon_id.mon_name.b, "10.79.0.11", 10);
	assert_int_equal(m.mon_id.my_id.my_prog, 100021);
	assert_int_equal(m.mon_id.my_id.my_proc, 16);
	assert_int_equal(m.priv[3], 1);
	xdrmem_create(&x, (char *)out, sizeof(out), XDR_ENCODE);
	assert_true(xdr_nsm_mon(&x, &m));
	xdr_destroy(&x);
	assert_memory_equal(out, buf, len);
	assert_string_equal(nlm4_proc_name(NLM4_PROC_FREE_ALL), "FREE_ALL");
	assert_string_equal(nlm4_proc_name(17), "unknown");
	assert_string_equal(nlm4_stat_name(NLM4_DENIED_GRACE_PERIOD), "NLM4_DENIED_GRACE_PERIOD");
	assert_string_equal(nsm_proc_name(NSM_PROC_NOTIFY), "SM_NOTIFY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_64bit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_test_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiters_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_granted_on_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test(test_xdr_lockargs),
		cmocka_unit_test(test_xdr_testres),
		cmocka_unit_test(test_xdr_nsm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
