/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs4_grace.c - NFSv4.1 across a server restart (RFC 8881 §8.4.2, §8.4.3, §9.11,
 * §18.51; nfs4_recover.h), without a network: COMPOUNDs through nfs4_compound()
 * (nfs4_fixture.h). A client opens, writes and locks; the server and its backend are torn down
 * and started again on the same state directory and export; the old session is BADSESSION, the
 * old client id STALE_CLIENTID, the old stateid STALE_STATEID; the client reclaims its open
 * (CLAIM_PREVIOUS) and its lock (reclaim) and sends RECLAIM_COMPLETE, which ends grace early;
 * a client the records do not name gets NO_GRACE on a reclaim and GRACE on new state while
 * grace lasts; the reclaimed lock conflicts as before and the data is there. A client is
 * recorded at its RECLAIM_COMPLETE (as knfsd), so after a restart grace waits for one that had
 * no state as well (pynfs REBT2a-4a). Grace ending by time drops the owners that did not come
 * back; DESTROY_CLIENTID and lease expiry remove a record; the records file's parser ignores
 * (and counts) a file that does not parse.
 *
 * Needs root for the backend (open_by_handle_at): exits 77 (skipped) otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs4_fixture.h"
#include "nfs_xdr_prim.h"

#define GRACE_S 30u
#define NS_PER_S 1000000000ull

/* the server and its backend stop, and start again on the same state directory and export;
 * next_second: the clock's second moved on (else the restart is within the same second) */
static void restart_at(uint32_t grace_s, bool next_second)
{
	char exports[1024], err[256];

	nfs4_server_destroy(n4f_srv);
	nfs_fs_close(n4f_fs);
	snprintf(exports, sizeof(exports), "%s *(rw,no_root_squash,insecure)\n", n4f_exp_a);
	assert_int_equal(nfs_fs_open(&n4f_fs, exports, n4f_statedir, err, sizeof(err)), 0);
	n4f_ctx.fs = n4f_fs;
	if (next_second)
		n4f_conf.state.boot++;
	n4f_conf.grace_s = grace_s;
	n4f_srv = nfs4_server_create(n4f_fs, &n4f_conf);
	assert_non_null(n4f_srv);
	nfs4_server_set_clock(n4f_srv, n4f_clock);
}

static void restart(uint32_t grace_s)
{
	restart_at(grace_s, true);
}

static void records_path(char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", n4f_statedir, NFS4_RECORDS_FILE);
}

/* every test starts with no records, on a server with a grace period and a lease longer than
 * it (so that time can pass it without a SEQUENCE) */
static int first_start(void **state)
{
	char p[256];

	(void)state;
	/* the last test's server writes its last changes first (they would land after the
	 * unlink otherwise) */
	if (n4f_srv)
		nfs4_server_flush(n4f_srv);
	records_path(p, sizeof(p));
	unlink(p);
	n4f_conf.state.lease_s = 90;
	restart(GRACE_S);
	return 0;
}

static struct nfs4_stats stats(void)
{
	struct nfs4_stats st;

	nfs4_server_stats(n4f_srv, &st);
	return st;
}

static union nfs4_op_args open_args(const char *owner, const char *name, uint32_t access,
				    uint32_t claim)
{
	union nfs4_op_args a = {0};

	a.open.share_access = access;
	a.open.owner = (struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	a.open.opentype = OPEN4_NOCREATE;
	a.open.claim = claim;
	a.open.name = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
	a.open.deleg_type = OPEN_DELEGATE_NONE;
	return a;
}

/* OPEN "file" in export A's root (CLAIM_NULL): the stateid and the file's handle */
static uint32_t open_file(struct n4f_sess *s, const char *owner, uint32_t access,
			  struct nfs4_stateid *sid, struct nfs_fh *fh)
{
	struct nfs_fh root = n4f_root_fh();
	union nfs4_op_args a = open_args(owner, "file", access, CLAIM_NULL);
	struct n4f_reply r;
	struct n4f_cb b;

	n4f_session(&b, s);
	n4f_putfh(&b, &root);
	n4f_op(&b, NFS4_OP_OPEN, &a);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	if (r.status == NFS4_OK) {
		if (sid)
			*sid = r.r[2].u.open.sid;
		if (fh) {
			fh->len = r.r[3].u.fh.len;
			memcpy(fh->data, r.r[3].u.fh.p, fh->len);
		}
	}
	return r.status;
}

/* OPEN CLAIM_PREVIOUS of the current file fh (RFC 8881 §18.16.3) */
static uint32_t reclaim_open(struct n4f_sess *s, const struct nfs_fh *fh, const char *owner,
			     uint32_t access, struct nfs4_stateid *sid)
{
	union nfs4_op_args a = open_args(owner, "", access, CLAIM_PREVIOUS);
	struct n4f_reply r;
	uint32_t st = n4f_fh_op(s, fh, NFS4_OP_OPEN, &a, &r);

	if (st == NFS4_OK) {
		assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_NONE);
		if (sid)
			*sid = r.r[2].u.open.sid;
	}
	return st;
}

static union nfs4_op_args lock_new(uint32_t type, uint64_t off, uint64_t len,
				   const struct nfs4_stateid *open, const char *owner, bool reclaim)
{
	union nfs4_op_args a = {0};

	a.lock.type = type;
	a.lock.reclaim = reclaim;
	a.lock.offset = off;
	a.lock.length = len;
	a.lock.new_owner = true;
	a.lock.open_sid = *open;
	a.lock.lock_owner.owner =
		(struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	return a;
}

static uint32_t write_at(struct n4f_sess *s, const struct nfs_fh *fh,
			 const struct nfs4_stateid *sid, uint64_t off, const char *data)
{
	union nfs4_op_args a = {0};

	a.write.sid = *sid;
	a.write.offset = off;
	a.write.stable = NFS_FILE_SYNC;
	a.write.data = (struct nfs4_ref){(const uint8_t *)data, (uint32_t)strlen(data)};
	return n4f_fh_op(s, fh, NFS4_OP_WRITE, &a, NULL);
}

static uint32_t read_at(struct n4f_sess *s, const struct nfs_fh *fh, const struct nfs4_stateid *sid,
			uint64_t off, uint32_t count, struct n4f_reply *out)
{
	union nfs4_op_args a = {0};

	a.read.sid = *sid;
	a.read.offset = off;
	a.read.count = count;
	return n4f_fh_op(s, fh, NFS4_OP_READ, &a, out);
}

/* the records file's text once the writes so far ended, or "" without one */
static void records_text(char *buf, size_t cap)
{
	long n;

	nfs4_server_flush(n4f_srv);
	n = nfs_state_read(n4f_statedir, NFS4_RECORDS_FILE, buf, cap);

	if (n < 0)
		buf[0] = 0;
}

static void destroy_session_and_client(struct n4f_sess *s)
{
	struct n4f_reply r;
	struct n4f_cb b;

	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_SESSION, &(union nfs4_op_args){0});
	memcpy(b.buf + xdr_getpos(&b.x) - NFS4_SESSIONID_SIZE, s->id, NFS4_SESSIONID_SIZE);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = s->clientid});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
}

/* ---- a restart with a client holding an open and a lock ---- */

static void test_restart_reclaim(void **state)
{
	struct nfs4_stateid oa, oa2, ob, la;
	struct n4f_sess A, A2, B;
	struct nfs_fh fh, root;
	union nfs4_op_args a;
	struct n4f_reply r;
	struct n4f_cb b;
	char text[256];

	(void)state;
	/* nothing was recorded: no grace to wait for, the first client goes at once */
	assert_false(nfs4_server_in_grace(n4f_srv));
	n4f_new_session("client-A", &A);
	records_text(text, sizeof(text));
	assert_string_equal(text, ""); /* a session alone records nothing */
	/* RECLAIM_COMPLETE recorded the owner, as knfsd does: "client-A" in hex */
	n4f_reclaim_complete(&A);
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 1\n636c69656e742d41\n");
	assert_int_equal(open_file(&A, "oa", OPEN4_SHARE_ACCESS_BOTH, &oa, &fh), NFS4_OK);
	/* its OPEN adds nothing */
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 1\n636c69656e742d41\n");
	assert_int_equal(write_at(&A, &fh, &oa, 0, "kept across restart"), NFS4_OK);
	a = lock_new(WRITE_LT, 0, 100, &oa, "lockowner-a", false);
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_LOCK, &a, &r), NFS4_OK);
	la = r.r[2].u.sid;
	assert_int_equal(stats().records, 1);

	restart(GRACE_S);
	assert_int_equal(stats().records_loaded, 1);
	assert_true(nfs4_server_in_grace(n4f_srv));
	/* the old session and client id are another run's */
	n4f_session(&b, &A);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADSESSION);
	assert_int_equal(n4f_create_session(A.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);
	/* the client comes back: a new client id, a new session */
	n4f_new_session("client-A", &A2);
	assert_true(A2.clientid != A.clientid);
	/* the old stateids are STALE */
	assert_int_equal(read_at(&A2, &fh, &oa, 0, 4, NULL), NFS4ERR_STALE_STATEID);
	a = (union nfs4_op_args){0};
	a.locku = (struct nfs4_locku_args){WRITE_LT, 0, la, 0, 100};
	assert_int_equal(n4f_fh_op(&A2, &fh, NFS4_OP_LOCKU, &a, NULL), NFS4ERR_STALE_STATEID);
	/* before RECLAIM_COMPLETE: reclaims go, new state does not */
	assert_int_equal(open_file(&A2, "oa-new", OPEN4_SHARE_ACCESS_READ, NULL, NULL),
			 NFS4ERR_GRACE);
	assert_int_equal(reclaim_open(&A2, &fh, "oa", OPEN4_SHARE_ACCESS_BOTH, &oa2), NFS4_OK);
	a = lock_new(WRITE_LT, 0, 100, &oa2, "lockowner-a", true);
	assert_int_equal(n4f_fh_op(&A2, &fh, NFS4_OP_LOCK, &a, NULL), NFS4_OK);
	a = lock_new(WRITE_LT, 0, 100, &oa2, "lockowner-a2", false);
	assert_int_equal(n4f_fh_op(&A2, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_GRACE);
	assert_int_equal(stats().reclaims, 2);

	/* a client the records do not name: no reclaim, and no new state during grace */
	n4f_new_session("client-B", &B);
	assert_int_equal(reclaim_open(&B, &fh, "ob", OPEN4_SHARE_ACCESS_READ, NULL),
			 NFS4ERR_NO_GRACE);
	n4f_reclaim_complete(&B);
	assert_int_equal(open_file(&B, "ob", OPEN4_SHARE_ACCESS_BOTH, NULL, NULL), NFS4ERR_GRACE);
	a.lockt = (struct nfs4_lockt_args){READ_LT, 0, 1, {0, {(const uint8_t *)"t", 1}}};
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCKT, &a, NULL), NFS4ERR_GRACE);
	/* nor may a file A could still reclaim go (REMOVE and RENAME wait, as knfsd) */
	root = n4f_root_fh();
	a = (union nfs4_op_args){.name = {(const uint8_t *)"file", 4}};
	assert_int_equal(n4f_fh_op(&B, &root, NFS4_OP_REMOVE, &a, NULL), NFS4ERR_GRACE);
	assert_true(nfs4_server_in_grace(n4f_srv));

	/* A's RECLAIM_COMPLETE: every loaded client is back, grace ends early (B, recorded at its
	 * own RECLAIM_COMPLETE in this run, is not waited for) */
	n4f_reclaim_complete(&A2);
	assert_false(nfs4_server_in_grace(n4f_srv));
	assert_int_equal(reclaim_open(&A2, &fh, "oa", OPEN4_SHARE_ACCESS_BOTH, NULL),
			 NFS4ERR_NO_GRACE);
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 2\n636c69656e742d41\n636c69656e742d42\n");

	/* B opens now; A's reclaimed lock holds as before, and the data is there */
	assert_int_equal(open_file(&B, "ob", OPEN4_SHARE_ACCESS_BOTH, &ob, NULL), NFS4_OK);
	a = lock_new(READ_LT, 50, 10, &ob, "lockowner-b", false);
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, &r), NFS4ERR_DENIED);
	assert_true(r.r[2].u.denied.offset == 0 && r.r[2].u.denied.length == 100);
	assert_true(r.r[2].u.denied.owner.clientid == A2.clientid);
	assert_int_equal(r.r[2].u.denied.owner.owner.len, 11);
	assert_memory_equal(r.r[2].u.denied.owner.owner.p, "lockowner-a", 11);
	a = lock_new(READ_LT, 100, 10, &ob, "lockowner-b", false);
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4_OK);
	assert_int_equal(read_at(&B, &fh, &ob, 0, 64, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.read.data.len, 19);
	assert_memory_equal(r.r[2].u.read.data.p, "kept across restart", 19);
	/* both are recorded now */
	assert_int_equal(stats().records, 2);
}

/* ---- a client recorded by RECLAIM_COMPLETE alone holds grace open after a restart ---- */

static void test_grace_waits_for_completed_client(void **state)
{
	struct n4f_sess A, B, C;
	struct nfs_fh fh;

	(void)state;
	/* A holds an open; B only mounted (RECLAIM_COMPLETE, no state) */
	n4f_open_session("client-A", &A);
	assert_int_equal(open_file(&A, "oa", OPEN4_SHARE_ACCESS_READ, NULL, &fh), NFS4_OK);
	n4f_open_session("client-B", &B);
	assert_int_equal(stats().records, 2);
	restart(GRACE_S);
	assert_int_equal(stats().records_loaded, 2);
	/* A reclaims and completes: B is still to come, so grace lasts and C's new OPEN waits */
	n4f_new_session("client-A", &A);
	assert_int_equal(reclaim_open(&A, &fh, "oa", OPEN4_SHARE_ACCESS_READ, NULL), NFS4_OK);
	n4f_reclaim_complete(&A);
	assert_true(nfs4_server_in_grace(n4f_srv));
	n4f_open_session("client-C", &C);
	assert_int_equal(open_file(&C, "oc", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4ERR_GRACE);
	assert_int_equal(open_file(&A, "oa2", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4ERR_GRACE);
	/* B comes back with nothing to reclaim: its RECLAIM_COMPLETE ends grace */
	n4f_open_session("client-B", &B);
	assert_false(nfs4_server_in_grace(n4f_srv));
	assert_int_equal(open_file(&C, "oc", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().records, 3);
}

/* ---- grace ends by time: the owners that did not come back are dropped ---- */

static void test_grace_ends_by_time(void **state)
{
	struct n4f_sess A, B;
	struct nfs_fh fh;
	char text[256];

	(void)state;
	n4f_open_session("client-A", &A);
	assert_int_equal(open_file(&A, "oa", OPEN4_SHARE_ACCESS_READ, NULL, &fh), NFS4_OK);
	restart(GRACE_S);
	assert_true(nfs4_server_in_grace(n4f_srv));
	n4f_open_session("client-B", &B);
	assert_int_equal(open_file(&B, "ob", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4ERR_GRACE);
	assert_int_equal(stats().grace_refused, 1);
	n4f_now_ns += (GRACE_S - 1) * NS_PER_S;
	assert_true(nfs4_server_in_grace(n4f_srv));
	n4f_now_ns += 2 * NS_PER_S;
	/* after grace: a normal OPEN goes; A, late, cannot reclaim any more */
	assert_int_equal(open_file(&B, "ob", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4_OK);
	assert_false(nfs4_server_in_grace(n4f_srv));
	n4f_new_session("client-A", &A);
	assert_int_equal(reclaim_open(&A, &fh, "oa", OPEN4_SHARE_ACCESS_READ, NULL),
			 NFS4ERR_NO_GRACE);
	assert_int_equal(stats().no_grace, 1);
	/* A's record went at grace's end; B's is there */
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 1\n636c69656e742d42\n");
	/* a restart with grace 0: nothing to reclaim in either */
	restart(0);
	assert_false(nfs4_server_in_grace(n4f_srv));
	n4f_new_session("client-B", &B);
	assert_int_equal(reclaim_open(&B, &fh, "ob", OPEN4_SHARE_ACCESS_READ, NULL),
			 NFS4ERR_NO_GRACE);
}

/* ---- DESTROY_CLIENTID and lease expiry remove a record ---- */

static void test_records_removed(void **state)
{
	struct nfs4_stateid sid;
	struct n4f_sess A, C, D;
	struct nfs_fh fh;
	union nfs4_op_args a = {0};
	char text[256];

	(void)state;
	n4f_open_session("client-A", &A);
	assert_int_equal(open_file(&A, "oa", OPEN4_SHARE_ACCESS_READ, &sid, &fh), NFS4_OK);
	n4f_open_session("client-C", &C);
	assert_int_equal(open_file(&C, "oc", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().records, 2);
	/* A unmounts: CLOSE, DESTROY_SESSION, DESTROY_CLIENTID; its record goes */
	a.close.sid = sid;
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_CLOSE, &a, NULL), NFS4_OK);
	destroy_session_and_client(&A);
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 1\n636c69656e742d43\n");
	/* C's lease runs out: a later EXCHANGE_ID's sweep frees it, and its record */
	n4f_now_ns += (uint64_t)(n4f_conf.state.lease_s + 2) * NS_PER_S;
	n4f_new_session("client-D", &D);
	records_text(text, sizeof(text));
	assert_string_equal(text, "droce-nfs4-clients 1 0\n");
	assert_int_equal(stats().records, 0);
	/* nothing loaded next time: no grace, A's reclaim is NO_GRACE */
	restart(GRACE_S);
	assert_int_equal(stats().records_loaded, 0);
	assert_false(nfs4_server_in_grace(n4f_srv));
	n4f_new_session("client-A", &A);
	assert_int_equal(reclaim_open(&A, &fh, "oa", OPEN4_SHARE_ACCESS_READ, NULL),
			 NFS4ERR_NO_GRACE);
}

/* ---- the records file's parser ---- */

static void test_records_parse(void **state)
{
	static const char *const bad[] = {
		"",
		"droce-nfs4-clients 1 1\n6161",		/* truncated: no newline */
		"droce-nfs4-clients 1 2\n6161\n",	/* fewer lines than it says */
		"droce-nfs4-clients 1 1\n6161\n6262\n", /* more */
		"droce-nfs4-clients 1 1\n616\n",	/* an odd digit count */
		"droce-nfs4-clients 1 1\n6G61\n",	/* not hex */
		"droce-nfs4-clients 1 1\n6A61\n",	/* upper case */
		"droce-nfs4-clients 1 1\n\n",		/* an empty owner */
		"droce-nfs4-clients 2 1\n6161\n",	/* another version */
		"droce-nfs4-clients 1 99999\n",		/* more than the table holds */
		"droce-nfs4-clients 1 \n",		/* no count */
		"droce-nfs4-clients 1 1",		/* no newline after it */
		"garbage\xff\x01 text\n",
	};
	struct nfs4_recov *r = calloc(1, sizeof(*r));
	const char *good;
	char *big;
	size_t n;

	(void)state;
	assert_non_null(r);
	nfs4_recov_init(r, NULL, 10 * NS_PER_S, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(nfs4_recov_parse(r, bad[i], strlen(bad[i])), -EINVAL);
		assert_int_equal(r->n, 0);
	}
	assert_int_equal(r->st.files_ignored, sizeof(bad) / sizeof(bad[0]));
	/* an owner one byte too long */
	n = sizeof("droce-nfs4-clients 1 1\n") - 1;
	big = malloc(n + 2 * (NFS4_OPAQUE_LIMIT + 1) + 1);
	assert_non_null(big);
	memcpy(big, "droce-nfs4-clients 1 1\n", n);
	memset(big + n, 'a', 2 * (NFS4_OPAQUE_LIMIT + 1));
	big[n + 2 * (NFS4_OPAQUE_LIMIT + 1)] = '\n';
	assert_int_equal(nfs4_recov_parse(r, big, n + 2 * (NFS4_OPAQUE_LIMIT + 1) + 1), -EINVAL);
	/* ... and one of the limit exactly */
	big[n + 2 * NFS4_OPAQUE_LIMIT] = '\n';
	assert_int_equal(nfs4_recov_parse(r, big, n + 2 * NFS4_OPAQUE_LIMIT + 1), 1);
	assert_int_equal(r->rec[0]->len, NFS4_OPAQUE_LIMIT);
	free(big);
	nfs4_recov_fini(r);
	/* good ones; a duplicate is loaded once */
	good = "droce-nfs4-clients 1 3\n6161\n00ff\n6161\n";
	assert_int_equal(nfs4_recov_parse(r, good, strlen(good)), 2);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->rec[1]->len, 2);
	assert_memory_equal(r->rec[1]->owner, "\x00\xff", 2);
	assert_int_equal(r->rec[1]->state, NFS4_REC_PREV);
	good = "droce-nfs4-clients 1 0\n";
	assert_int_equal(nfs4_recov_parse(r, good, strlen(good)), 0);
	/* grace: a loaded owner reclaims, another cannot; its RECLAIM_COMPLETE, then the
	 * other's, end grace before its time */
	assert_int_equal(nfs4_recov_check(r, (const uint8_t *)"aa", 2, false, true, 1), NFS4_OK);
	assert_int_equal(nfs4_recov_check(r, (const uint8_t *)"bb", 2, false, true, 1),
			 NFS4ERR_NO_GRACE);
	assert_int_equal(nfs4_recov_check(r, (const uint8_t *)"bb", 2, true, false, 1),
			 NFS4ERR_GRACE);
	assert_true(nfs4_recov_complete(r, (const uint8_t *)"aa", 2, 2));
	assert_int_equal(r->grace, NFS4_GRACE_RECLAIM);
	assert_true(nfs4_recov_complete(r, (const uint8_t *)"\x00\xff", 2, 3));
	assert_int_equal(r->grace, NFS4_GRACE_OVER);
	assert_int_equal(r->st.grace_state[NFS4_GRACE_OVER], 1);
	assert_int_equal(nfs4_recov_check(r, (const uint8_t *)"bb", 2, true, false, 4), NFS4_OK);
	nfs4_recov_fini(r);
	free(r);
}

/* a server started on a records file that does not parse: nothing loaded, counted, no grace */
static void test_records_garbage_file(void **state)
{
	static const char junk[] = "droce-nfs4-clients 1 3\n6161\n62";

	(void)state;
	assert_int_equal(nfs_state_write(n4f_statedir, NFS4_RECORDS_FILE, junk, sizeof(junk) - 1),
			 0);
	restart(GRACE_S);
	assert_int_equal(stats().records_loaded, 0);
	assert_int_equal(stats().records_files_ignored, 1);
	assert_false(nfs4_server_in_grace(n4f_srv));
}

/* ---- the boot epoch: restarts within one second still get new ids ---- */

static void test_epoch_same_second(void **state)
{
	uint32_t e0, e1, e2;
	struct n4f_sess A, A1;
	struct nfs4_recov *r;
	char text[128];

	(void)state;
	n4f_open_session("client-A", &A);
	e0 = stats().boot;
	assert_true(e0 >= n4f_conf.state.boot);
	/* two restarts in the clock's same second: the epoch still moves on */
	restart_at(GRACE_S, false);
	e1 = stats().boot;
	assert_int_equal(e1, e0 + 1);
	/* the first run's client id is another run's: STALE_CLIENTID, not accepted */
	assert_int_equal(n4f_create_session(A.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);
	n4f_new_session("client-A", &A1);
	assert_true(A1.clientid != A.clientid);
	assert_true(A1.clientid >> 32 == e1);
	restart_at(GRACE_S, false);
	e2 = stats().boot;
	assert_int_equal(e2, e1 + 1);
	assert_int_equal(n4f_create_session(A.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);
	assert_int_equal(n4f_create_session(A1.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);
	/* the file holds this run's epoch */
	snprintf(text, sizeof(text), "droce-nfs4-epoch 1 %u\n", e2);
	{
		char got[128];

		assert_true(nfs_state_read(n4f_statedir, NFS4_EPOCH_FILE, got, sizeof(got)) > 0);
		assert_string_equal(got, text);
	}
	/* a clock ahead of the file wins */
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	nfs4_recov_init(r, n4f_statedir, 0, 0);
	assert_int_equal(nfs4_recov_epoch(r, e2 + 100), e2 + 100);
	/* a file that does not parse is counted and replaced; the floor is taken */
	assert_int_equal(
		nfs_state_write(n4f_statedir, NFS4_EPOCH_FILE, "droce-nfs4-epoch 1 x\n", 21), 0);
	assert_int_equal(nfs4_recov_epoch(r, 7), 7);
	assert_int_equal(r->st.epoch_files_ignored, 1);
	assert_int_equal(nfs4_recov_epoch(r, 7), 8);
	nfs4_recov_fini(r);
	/* without a state directory: the floor (the clock's second), never 0 */
	nfs4_recov_init(r, NULL, 0, 0);
	assert_int_equal(nfs4_recov_epoch(r, 5), 5);
	assert_int_equal(nfs4_recov_epoch(r, 0), 1);
	nfs4_recov_fini(r);
	free(r);
}

/* ---- the records are written by a helper thread; OPEN's reply waits for the write ---- */

static void test_records_written_async(void **state)
{
	struct n4f_sess A, B, C;
	char text[256];
	long n;

	(void)state;
	n4f_new_session("client-A", &A);
	n4f_new_session("client-B", &B);
	n4f_new_session("client-C", &C);
	assert_false(nfs4_server_busy(n4f_srv));
	/* A's RECLAIM_COMPLETE records it: the write is with the helper, and the reply waits */
	n4f_reclaim_complete(&A);
	assert_true(nfs4_server_reply_waits(n4f_srv));
	assert_true(nfs4_server_busy(n4f_srv));
	/* an OPEN of A before the write ended waits too (no state ahead of the record) */
	assert_int_equal(open_file(&A, "oa", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4_OK);
	assert_true(nfs4_server_reply_waits(n4f_srv));
	/* B and C while A's write is in flight: coalesced into one more write */
	n4f_reclaim_complete(&B);
	assert_true(nfs4_server_reply_waits(n4f_srv));
	n4f_reclaim_complete(&C);
	assert_true(nfs4_server_reply_waits(n4f_srv));
	/* the lcore's loop: poll until the writes ended */
	for (int i = 0; i < 5000 && nfs4_server_busy(n4f_srv); i++) {
		nfs4_server_poll(n4f_srv);
		usleep(1000);
	}
	assert_false(nfs4_server_busy(n4f_srv));
	assert_false(nfs4_server_reply_waits(n4f_srv));
	assert_int_equal(stats().records_writes, 2);
	assert_int_equal(stats().records_sync_writes, 0);
	n = nfs_state_read(n4f_statedir, NFS4_RECORDS_FILE, text, sizeof(text));
	assert_true(n > 0);
	assert_string_equal(text, "droce-nfs4-clients 1 3\n636c69656e742d41\n636c69656e742d42\n"
				  "636c69656e742d43\n");
	/* a recorded client's later OPENs do not wait */
	assert_int_equal(open_file(&B, "ob2", OPEN4_SHARE_ACCESS_READ, NULL, NULL), NFS4_OK);
	assert_false(nfs4_server_reply_waits(n4f_srv));
	assert_false(nfs4_server_busy(n4f_srv));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_parse),
		cmocka_unit_test_setup(test_restart_reclaim, first_start),
		cmocka_unit_test_setup(test_grace_waits_for_completed_client, first_start),
		cmocka_unit_test_setup(test_grace_ends_by_time, first_start),
		cmocka_unit_test_setup(test_records_removed, first_start),
		cmocka_unit_test_setup(test_records_garbage_file, first_start),
		cmocka_unit_test_setup(test_epoch_same_second, first_start),
		cmocka_unit_test_setup(test_records_written_async, first_start),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, n4f_setup, n4f_teardown);
}
