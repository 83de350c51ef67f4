/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs4_deleg.c - the NFSv4.1 backchannel and read delegations (nfs/nfs4/nfs4_cb.c,
 * nfs4_cb_xdr.c) without a network: the callback messages against words written here by hand
 * from RFC 8881 §20, §20.2, §20.9 and RFC 5531 §9 (and replies written the same way); then
 * COMPOUNDs through the server (nfs4_fixture.h) on "connections" that are entries of an
 * orpc_bc_table with a fake transport, which keeps each backward call until the test answers
 * it: CREATE_SESSION's CB_NULL probe, OPEN's read delegation, a second client's conflicting
 * OPEN (DELAY, and a CB_RECALL carrying the delegation's stateid and the file's handle),
 * DELEGRETURN, an NFSv3 WRITE through the RPC program (JUKEBOX, then success), revocation
 * after a lease (RECALLABLE_STATE_REVOKED until FREE_STATEID), a connection gone
 * (CB_PATH_DOWN_SESSION until BIND_CONN_TO_SESSION), and bad callback replies.
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

#include "nfs3_svc.h"
#include "nfs4_cb_xdr.h"
#include "nfs4_fixture.h"
#include "orpc_bc.h"
#include "orpc_svc.h"

#define CB_PROG 0x40000000u

/* ---- words ---- */

static uint32_t word(const uint8_t *p, uint32_t i)
{
	p += 4 * i;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put(uint8_t *p, uint32_t i, uint32_t v)
{
	p += 4 * i;
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* words w[0..n) into bytes */
static uint32_t words(uint8_t *out, const uint32_t *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		put(out, i, w[i]);
	return 4 * n;
}

/* ---- the callback XDR, by hand ---- */

static void test_cb_null_words(void **state)
{
	struct nfs4_cb_cred none = {0};
	struct nfs4_cb_hdr h = {0x01020304, CB_PROG, &none, 1};
	uint8_t buf[256];
	/* RFC 5531 §9: xid, CALL (0), rpcvers 2, prog, vers 1 (NFS4_CALLBACK, RFC 8881 §20),
	 * proc 0 (CB_NULL), cred AUTH_NONE {0, 0}, verf AUTH_NONE {0, 0} */
	const uint32_t want[] = {0x01020304, 0, 2, CB_PROG, 1, 0, 0, 0, 0, 0};
	uint32_t n = nfs4_cb_encode_null(buf, sizeof(buf), &h);

	(void)state;
	assert_int_equal(n, sizeof(want));
	for (uint32_t i = 0; i < n / 4; i++)
		assert_int_equal(word(buf, i), want[i]);
	assert_int_equal(nfs4_cb_encode_null(buf, 36, &h), 0); /* does not fit */
}

static void test_cb_recall_words(void **state)
{
	struct nfs4_cb_cred sys = {1, 7, 1000, 100, 1, {100}, 2, "ab"};
	struct nfs4_cb_hdr h = {0x11, CB_PROG, &sys, 1};
	struct nfs4_cb_seq_args seq = {{0}, 5, 0, 0};
	const uint8_t fh[6] = {1, 2, 3, 4, 5, 6};
	struct nfs4_cb_recall_args rc = {
		{9, {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab}},
		false,
		6,
		fh};
	uint8_t buf[512];
	uint32_t n, i = 0;

	(void)state;
	for (uint32_t k = 0; k < NFS4_SESSIONID_SIZE; k++)
		seq.sessionid[k] = (uint8_t)(0x10 + k);
	n = nfs4_cb_encode_recall(buf, sizeof(buf), &h, 0, &seq, &rc);
	/* the RPC header: proc 1 (CB_COMPOUND) and AUTH_SYS (flavor 1) whose body is
	 * stamp, machinename<255> "ab" (length 2, padded), uid, gid, gids<16> {100}: 28 bytes */
	const uint32_t hdr[] = {0x11, 0,	  2,	CB_PROG, 1, 1,	 1, 28, 7,
				2,    0x61620000, 1000, 100,	 1, 100, 0, 0};
	for (; i < sizeof(hdr) / 4; i++)
		assert_int_equal(word(buf, i), hdr[i]);
	/* CB_COMPOUND4args (§20): tag "" (0), minorversion 1, callback_ident 0, two ops */
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 1);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 2);
	/* CB_SEQUENCE (op 11, §20.9): sessionid (16 bytes), sequenceid, slotid, highest_slotid,
	 * cachethis false, no referring call lists */
	assert_int_equal(word(buf, i++), 11);
	assert_int_equal(word(buf, i++), 0x10111213);
	assert_int_equal(word(buf, i++), 0x14151617);
	assert_int_equal(word(buf, i++), 0x18191a1b);
	assert_int_equal(word(buf, i++), 0x1c1d1e1f);
	assert_int_equal(word(buf, i++), 5);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 0);
	/* CB_RECALL (op 4, §20.2): stateid (seqid, other), truncate false, fh<> */
	assert_int_equal(word(buf, i++), 4);
	assert_int_equal(word(buf, i++), 9);
	assert_int_equal(word(buf, i++), 0xa0a1a2a3);
	assert_int_equal(word(buf, i++), 0xa4a5a6a7);
	assert_int_equal(word(buf, i++), 0xa8a9aaab);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 6);
	assert_int_equal(word(buf, i++), 0x01020304);
	assert_int_equal(word(buf, i++), 0x05060000);
	assert_int_equal(n, 4 * i);
	for (uint32_t cap = 0; cap < n; cap += 4)
		assert_int_equal(nfs4_cb_encode_recall(buf, cap, &h, 0, &seq, &rc), 0);
}

/* a CB_COMPOUND reply: CB_SEQUENCE's resok for seq, then CB_RECALL's status */
static uint32_t recall_reply(uint8_t *out, uint32_t xid, const struct nfs4_cb_seq_args *seq,
			     uint32_t seq_status, uint32_t recall_status)
{
	uint32_t w[40], n = 0;

	/* xid, REPLY (1), MSG_ACCEPTED (0), verf AUTH_NONE, SUCCESS (0) */
	w[n++] = xid, w[n++] = 1, w[n++] = 0, w[n++] = 0, w[n++] = 0, w[n++] = 0;
	/* CB_COMPOUND4res: status, tag "", results */
	w[n++] = seq_status ? seq_status : recall_status;
	w[n++] = 0;
	w[n++] = seq_status ? 1 : 2;
	w[n++] = 11, w[n++] = seq_status;
	if (!seq_status) {
		for (int k = 0; k < 4; k++)
			w[n++] = word(seq->sessionid, (uint32_t)k);
		w[n++] = seq->sequenceid, w[n++] = seq->slotid, w[n++] = 0, w[n++] = 0;
		w[n++] = 4, w[n++] = recall_status;
	}
	return words(out, w, n);
}

static void test_cb_notify_lock_words(void **state)
{
	struct nfs4_cb_hdr h = {0x21, CB_PROG, NULL, 2};
	struct nfs4_cb_seq_args seq = {{0}, 2, 0, 0};
	const uint8_t fh[4] = {9, 8, 7, 6};
	struct nfs4_cb_notify_lock_args nl = {4, fh, 0x0102030405060708ull, 5,
					      (const uint8_t *)"owner"};
	uint8_t buf[512];
	uint32_t n, i = 0;

	(void)state;
	n = nfs4_cb_encode_notify_lock(buf, sizeof(buf), &h, 0, &seq, &nl);
	/* RPC header with AUTH_NONE (cred h.cred NULL): proc 1 */
	const uint32_t hdr[] = {0x21, 0, 2, CB_PROG, 1, 1, 0, 0, 0, 0};
	for (; i < 10; i++)
		assert_int_equal(word(buf, i), hdr[i]);
	/* tag "", minor 2 (the session's, h.minor), ident 0, two ops; CB_SEQUENCE (11) of session
	 * zeros, sequence 2 */
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 2);
	assert_int_equal(word(buf, i++), 0);
	assert_int_equal(word(buf, i++), 2);
	assert_int_equal(word(buf, i++), 11);
	i += 4;
	assert_int_equal(word(buf, i++), 2);
	i += 4; /* slot, highest, cachethis, no referring lists */
	/* CB_NOTIFY_LOCK (13, RFC 8881 §20.11): cnla_fh<>, lock_owner4 {clientid, owner<>} */
	assert_int_equal(word(buf, i++), 13);
	assert_int_equal(word(buf, i++), 4);
	assert_int_equal(word(buf, i++), 0x09080706);
	assert_int_equal(word(buf, i++), 0x01020304);
	assert_int_equal(word(buf, i++), 0x05060708);
	assert_int_equal(word(buf, i++), 5);
	assert_int_equal(word(buf, i++), 0x6f776e65);
	assert_int_equal(word(buf, i++), 0x72000000);
	assert_int_equal(n, 4 * i);
}

static void test_cb_reply_decode(void **state)
{
	struct nfs4_cb_seq_args seq = {{0}, 3, 0, 0};
	struct nfs4_cb_reply r;
	uint8_t b[256];
	uint32_t n;

	(void)state;
	memset(seq.sessionid, 0x5a, sizeof(seq.sessionid));
	/* CB_NULL: accepted, SUCCESS */
	n = words(b, (const uint32_t[]){7, 1, 0, 0, 0, 0}, 6);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 7, false, NULL, &r), 0);
	assert_int_equal(r.reply_stat, 0);
	assert_int_equal(r.accept_stat, 0);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 8, false, NULL, &r), -EBADMSG); /* xid */
	/* PROG_UNAVAIL (1) */
	n = words(b, (const uint32_t[]){7, 1, 0, 0, 0, 1}, 6);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 7, false, NULL, &r), 0);
	assert_int_equal(r.accept_stat, 1);
	/* MSG_DENIED, AUTH_ERROR (1), AUTH_BADCRED (1) */
	n = words(b, (const uint32_t[]){7, 1, 1, 1, 1}, 5);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 7, false, NULL, &r), 0);
	assert_int_equal(r.reply_stat, 1);
	/* a CB_COMPOUND: both results, and every shorter prefix fails */
	n = recall_reply(b, 9, &seq, 0, 0);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 9, true, &seq, &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nres, 2);
	assert_true(r.seq_ok);
	assert_int_equal(r.op[1], 4);
	for (uint32_t k = 0; k < n; k++)
		assert_int_equal(nfs4_cb_decode_reply(b, k, 9, true, &seq, &r), -EBADMSG);
	/* CB_RECALL said DELAY */
	n = recall_reply(b, 9, &seq, 0, NFS4ERR_DELAY);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 9, true, &seq, &r), 0);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	assert_int_equal(r.op_status[1], NFS4ERR_DELAY);
	/* CB_SEQUENCE failed: one result */
	n = recall_reply(b, 9, &seq, NFS4ERR_BADSESSION, 0);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 9, true, &seq, &r), 0);
	assert_int_equal(r.nres, 1);
	assert_false(r.seq_ok);
	/* another sequence id in the resok */
	n = recall_reply(b, 9, &seq, 0, 0);
	put(b, 15, 4);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 9, true, &seq, &r), -EBADMSG);
	/* an operation never sent (CB_GETATTR, 3) */
	n = recall_reply(b, 9, &seq, 0, 0);
	put(b, 19, 3);
	assert_int_equal(nfs4_cb_decode_reply(b, n, 9, true, &seq, &r), -EBADMSG);
}

static void test_cb_pick_cred(void **state)
{
	/* callback_sec_parms4<>: RPCSEC_GSS (6) {service 1, handles "", ""}, then AUTH_SYS */
	const uint32_t w[] = {6, 1, 0, 0, 1, 3, 1, 0x78000000, 10, 20, 2, 30, 40};
	uint8_t b[64];
	struct nfs4_raw raw = {2, {b, words(b, w, 13)}};
	struct nfs4_cb_cred c;

	(void)state;
	assert_int_equal(nfs4_cb_pick_cred(&raw, &c), 0);
	assert_int_equal(c.flavor, 1);
	assert_int_equal(c.stamp, 3);
	assert_int_equal(c.machlen, 1);
	assert_int_equal(c.mach[0], 'x');
	assert_int_equal(c.uid, 10);
	assert_int_equal(c.gid, 20);
	assert_int_equal(c.ngids, 2);
	assert_int_equal(c.gids[1], 40);
	raw.count = 1; /* GSS alone */
	assert_int_equal(nfs4_cb_pick_cred(&raw, &c), -ENOTSUP);
	raw.count = 0;
	assert_int_equal(nfs4_cb_pick_cred(&raw, &c), -ENOTSUP);
}

/* ---- a fake transport: keeps each call until the test answers it ---- */

#define FAKE_MAX 16

struct fake_call {
	int conn;
	uint8_t msg[1024];
	uint32_t len;
	orpc_bc_done_t done;
	void *ctx;
	bool answered;
};

static struct fake_call calls[FAKE_MAX];
static uint32_t ncalls;
static int conn_a = 1, conn_a2 = 2, conn_b = 3;
static struct orpc_bc_table bct;

static int fake_send(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx)
{
	struct fake_call *k;

	if (ncalls == FAKE_MAX)
		return -EBUSY;
	k = &calls[ncalls++];
	k->conn = *(int *)conn;
	assert_true(len <= sizeof(k->msg));
	memcpy(k->msg, msg, len);
	k->len = len;
	k->done = done;
	k->ctx = ctx;
	k->answered = false;
	return 0;
}

static uint32_t ncancelled;

/* orpc_bc_cancel: the call of that xid (network order) is forgotten: its done never comes */
static int fake_cancel(void *conn, uint32_t xid_net)
{
	for (uint32_t i = 0; i < ncalls; i++)
		if (!calls[i].answered && calls[i].conn == *(int *)conn &&
		    memcmp(calls[i].msg, &xid_net, 4) == 0) {
			calls[i].answered = true;
			ncancelled++;
			return 0;
		}
	return -ENOENT;
}

static const struct orpc_bc_ops fake_ops = {
	.call = fake_send, .cancel = fake_cancel, .name = "fake"};

static void answer(uint32_t i, int err, const uint8_t *reply, uint32_t len)
{
	assert_true(i < ncalls);
	assert_false(calls[i].answered);
	calls[i].answered = true;
	calls[i].done(calls[i].ctx, err, reply, len);
}

/* the accepted, SUCCESS reply to call i, void results (CB_NULL) */
static void answer_null(uint32_t i)
{
	uint8_t b[24];

	answer(i, 0, b, words(b, (const uint32_t[]){word(calls[i].msg, 0), 1, 0, 0, 0, 0}, 6));
}

/* the reply to call i, a recall: its CB_SEQUENCE read back from the call's own words */
static void answer_recall(uint32_t i, uint32_t seq_status, uint32_t recall_status)
{
	struct nfs4_cb_seq_args seq;
	uint8_t b[256];
	/* the words of a call with AUTH_NONE: 10 of header, 4 of the compound's head, op */
	uint32_t at = 15;

	if (word(calls[i].msg, 6) == 1) /* AUTH_SYS: skip its body */
		at += word(calls[i].msg, 7) / 4;
	memcpy(seq.sessionid, calls[i].msg + 4 * at, NFS4_SESSIONID_SIZE);
	seq.sequenceid = word(calls[i].msg, at + 4);
	seq.slotid = word(calls[i].msg, at + 5);
	answer(i, 0, b, recall_reply(b, word(calls[i].msg, 0), &seq, seq_status, recall_status));
}

/* ---- sessions with a backchannel ---- */

/* the minor version of session_on's CREATE_SESSION compound */
static uint32_t session_minor = 1;

static struct nfs3_server v3;
static struct orpc_svc svc;
static struct orpc_program prog;
static struct orpc_version vers[2];

static int fresh(void **state)
{
	/* the previous test's transport goes first, as droce-nfsd's do: its calls end */
	for (uint32_t i = 0; i < ncalls; i++)
		if (!calls[i].answered)
			answer(i, -ENOTCONN, NULL, 0);
	n4f_fresh(state);
	orpc_bc_table_init(&bct);
	nfs4_server_set_bc(n4f_srv, &bct);
	v3.v4 = n4f_srv;
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	ncancelled = 0;
	n4f_bc_id = 0;
	session_minor = 1;
	return 0;
}

/* AUTH_SYS {stamp 1, machine "m", uid 0, gid 0, no gids} as callback_sec_parms4<1> */
static const uint32_t sec_sys[] = {1, 1, 1, 0x6d000000, 0, 0, 0};

/* EXCHANGE_ID, CREATE_SESSION asking CONN_BACK_CHAN with AUTH_SYS, RECLAIM_COMPLETE, on the
 * connection id (0: one that carries no backward call). @return csr_flags */
static uint32_t session_on(const char *owner, uint64_t id, struct n4f_sess *s)
{
	union nfs4_op_args a = {0};
	uint8_t sec[sizeof(sec_sys)];

	n4f_bc_id = id;
	a.csess.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	a.csess.cb_program = CB_PROG;
	a.csess.sec_parms = (struct nfs4_raw){1, {sec, words(sec, sec_sys, 7)}};
	return n4f_open_session_with(owner, session_minor, &a, s);
}

/* SEQUENCE alone: its sr_status_flags */
static uint32_t seq_flags(struct n4f_sess *s)
{
	struct n4f_reply r;
	struct n4f_cb b;

	n4f_session(&b, s);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	return r.r[0].u.seq.status_flags;
}

static struct nfs4_session *sess_of(struct n4f_sess *s)
{
	return nfs4_session_find(nfs4_server_state(n4f_srv), s->id);
}

static struct nfs4_stats stats(void)
{
	struct nfs4_stats st;

	nfs4_server_stats(n4f_srv, &st);
	return st;
}

/* OPEN of "file" (no create) with owner and access: status, the result into *o */
static uint32_t open_file(struct n4f_sess *s, const char *owner, uint32_t access,
			  struct nfs4_open_res *o, struct nfs_fh *fh)
{
	struct nfs_fh root = n4f_root_fh();
	union nfs4_op_args a;
	struct n4f_reply r;

	n4f_open_args(&a, owner, "file", access, OPEN4_NOCREATE);
	if (n4f_open_getfh(s, 1, &root, &a, &r) == NFS4_OK) {
		if (o)
			*o = r.r[2].u.open;
		if (fh)
			n4f_fh_of(&r, 3, fh);
	}
	return r.status;
}

/* SEQUENCE, PUTFH fh, one operation taking a stateid (DELEGRETURN, FREE_STATEID) */
static uint32_t sid_op(struct n4f_sess *s, const struct nfs_fh *fh, uint32_t op,
		       const struct nfs4_stateid *sid)
{
	return n4f_fh_op(s, fh, op, &(union nfs4_op_args){.sid = *sid}, NULL);
}

static uint64_t id_a;

/* client A on connection A with its backchannel up (probe answered) */
static void client_a(struct n4f_sess *a)
{
	id_a = orpc_bc_register(&bct, &fake_ops, &conn_a);
	assert_int_equal(session_on("client-a", id_a, a) & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			 CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].conn, conn_a);
	/* the probe: CB_NULL (proc 0) to the client's program with its AUTH_SYS credential */
	assert_int_equal(word(calls[0].msg, 1), 0);
	assert_int_equal(word(calls[0].msg, 3), CB_PROG);
	assert_int_equal(word(calls[0].msg, 4), 1);
	assert_int_equal(word(calls[0].msg, 5), 0);
	assert_int_equal(word(calls[0].msg, 6), 1);
	assert_int_equal(sess_of(a)->cb_state, NFS4_CB_PROBING);
	answer_null(0);
	assert_int_equal(sess_of(a)->cb_state, NFS4_CB_UP);
	assert_int_equal(seq_flags(a), 0);
}

static void test_backchannel_probe(void **state)
{
	struct n4f_sess a, c;

	(void)state;
	client_a(&a);
	assert_int_equal(stats().cb_probes, 1);
	assert_int_equal(stats().cb_state[NFS4_CB_UP], 1);
	/* on a connection that carries no backward call: the flag is not echoed, no probe */
	assert_int_equal(session_on("client-c", 0, &c) & CREATE_SESSION4_FLAG_CONN_BACK_CHAN, 0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(sess_of(&c)->cb_state, NFS4_CB_NONE);
	assert_int_equal(seq_flags(&c), 0);
	/* a probe that fails: the path is down */
	{
		struct n4f_sess d;
		uint64_t id = orpc_bc_register(&bct, &fake_ops, &conn_b);

		session_on("client-d", id, &d);
		assert_int_equal(ncalls, 2);
		answer(1, -ENOTCONN, NULL, 0);
		assert_int_equal(sess_of(&d)->cb_state, NFS4_CB_DOWN);
		assert_int_equal(seq_flags(&d),
				 SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN);
	}
}

static void test_deleg_grant_and_recall(void **state)
{
	struct nfs4_open_res o, o2;
	struct n4f_sess a, b;
	struct nfs_fh fh;
	uint32_t at;

	(void)state;
	client_a(&a);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	assert_false(o.recall);
	assert_int_equal(o.deleg_sid.seqid, 1);
	assert_memory_not_equal(o.deleg_sid.other, o.sid.other, 12);
	assert_int_equal(stats().delegs_granted, 1);
	/* the same client again (another owner): the delegation it has */
	assert_int_equal(open_file(&a, "oa2", OPEN4_SHARE_ACCESS_READ, &o2, NULL), NFS4_OK);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_READ);
	assert_memory_equal(o2.deleg_sid.other, o.deleg_sid.other, 12);
	assert_int_equal(stats().delegs_granted, 1);
	/* WANT_NO_DELEG: none, and why */
	assert_int_equal(open_file(&a, "oa3",
				   OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, &o2,
				   NULL),
			 NFS4_OK);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(o2.why_no_deleg, WND4_NOT_WANTED);
	/* client B has no backchannel: no delegation for its reads */
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_READ, &o2, NULL), NFS4_OK);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_NONE);
	/* B opens for writing: DELAY, and A is sent CB_RECALL */
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_BOTH, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].conn, conn_a);
	assert_int_equal(word(calls[1].msg, 5), 1);	 /* CB_COMPOUND */
	at = 10 + word(calls[1].msg, 7) / 4;		 /* past the AUTH_SYS body */
	assert_int_equal(word(calls[1].msg, at), 0);	 /* tag */
	assert_int_equal(word(calls[1].msg, at + 1), 1); /* minor version */
	assert_int_equal(word(calls[1].msg, at + 3), 2); /* two operations */
	assert_int_equal(word(calls[1].msg, at + 4), 11);
	assert_memory_equal(calls[1].msg + 4 * (at + 5), a.id, NFS4_SESSIONID_SIZE);
	assert_int_equal(word(calls[1].msg, at + 9), 1);  /* the slot's first sequence */
	assert_int_equal(word(calls[1].msg, at + 10), 0); /* slot 0 */
	assert_int_equal(word(calls[1].msg, at + 14), 4); /* CB_RECALL */
	assert_int_equal(word(calls[1].msg, at + 15), o.deleg_sid.seqid);
	assert_memory_equal(calls[1].msg + 4 * (at + 16), o.deleg_sid.other, 12);
	assert_int_equal(word(calls[1].msg, at + 19), 0); /* truncate false */
	assert_int_equal(word(calls[1].msg, at + 20), fh.len);
	assert_memory_equal(calls[1].msg + 4 * (at + 21), fh.data, fh.len);
	assert_int_equal(calls[1].len, 4 * (at + 21) + ((fh.len + 3) & ~3u));
	assert_int_equal(stats().recalls_sent, 1);
	/* B again: still DELAY, no second recall while the first is out */
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_BOTH, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	/* a conflict of the holder's own never recalls: A opens for writing */
	answer_recall(1, 0, 0);
	assert_int_equal(stats().recalls_answered, 1);
	/* A returns it; B's retry goes through */
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4_OK);
	assert_int_equal(stats().delegs_returned, 1);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4ERR_BAD_STATEID);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_BOTH, NULL, NULL), NFS4_OK);
	/* now B writes it: A's next read open gets no delegation (contention) */
	assert_int_equal(open_file(&a, "oa4",
				   OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
				   &o2, NULL),
			 NFS4_OK);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(o2.why_no_deleg, WND4_CONTENTION);
	assert_int_equal(stats().delegs_revoked, 0);
}

static void test_deleg_holder_writes(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a;

	(void)state;
	client_a(&a);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	assert_int_equal(open_file(&a, "ob", OPEN4_SHARE_ACCESS_BOTH, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_NONE);
	assert_int_equal(ncalls, 1); /* the probe only */
	assert_int_equal(stats().recalls_sent, 0);
}

/* an NFSv3 call of proc with args (the words after the credential) as root, through the RPC
 * program (RFC 5531 call: xid, CALL, 2, NFS (100003), 3, proc, AUTH_SYS {stamp, "", 0, 0, no
 * gids}, AUTH_NONE verf): the result's nfsstat3 */
static uint32_t v3_call(uint32_t proc, const uint8_t *args, uint32_t alen)
{
	const uint32_t hdr[] = {78, 0, 2, 100003, 3, proc, 1, 20, 0, 0, 0, 0, 0, 0, 0};
	uint8_t msg[1024], out[1024];
	struct orpc_peer peer = {0};
	enum orpc_outcome oc;
	uint32_t len = words(msg, hdr, 15);

	memcpy(msg + len, args, alen);
	len += alen;
	peer.xprt = ORPC_XPRT_TCP;
	len = orpc_svc_dispatch_peer(&svc, msg, len, NULL, &peer, out, sizeof(out), &oc);
	assert_true(len >= 28);
	assert_int_equal(word(out, 0), 78);
	assert_int_equal(word(out, 5), 0); /* SUCCESS */
	return word(out, 6);
}

/* nfs_fh3 or filename3 (opaque<>) at p: its length */
static uint32_t opaque(uint8_t *p, const uint8_t *b, uint32_t n)
{
	put(p, 0, n);
	memcpy(p + 4, b, n);
	memset(p + 4 + n, 0, ((n + 3) & ~3u) - n);
	return 4 + ((n + 3) & ~3u);
}

/* an NFSv3 WRITE of 4 bytes at 0 as root, through the RPC program: its nfsstat3 */
static uint32_t v3_write(const struct nfs_fh *fh)
{
	uint32_t w[64], n = 0;
	uint8_t msg[512], out[1024];
	enum orpc_outcome oc;
	struct orpc_peer peer = {0};
	uint32_t len;

	/* RFC 5531 call: xid, CALL, 2, NFS (100003), 3, WRITE (7), AUTH_SYS {stamp, "", 0, 0,
	 * no gids}, AUTH_NONE verf; WRITE3args (RFC 1813 §3.3.7): fh, offset, count, FILE_SYNC,
	 * data<> */
	w[n++] = 77, w[n++] = 0, w[n++] = 2, w[n++] = 100003, w[n++] = 3, w[n++] = 7;
	w[n++] = 1, w[n++] = 20, w[n++] = 0, w[n++] = 0, w[n++] = 0, w[n++] = 0, w[n++] = 0;
	w[n++] = 0, w[n++] = 0;
	w[n++] = fh->len;
	len = words(msg, w, n);
	memcpy(msg + len, fh->data, fh->len);
	memset(msg + len + fh->len, 0, ((fh->len + 3) & ~3u) - fh->len);
	len += (fh->len + 3) & ~3u;
	n = 0;
	w[n++] = 0, w[n++] = 0, w[n++] = 4, w[n++] = 2, w[n++] = 4, w[n++] = 0x76337633;
	len += words(msg + len, w, n);
	peer.xprt = ORPC_XPRT_TCP;
	len = orpc_svc_dispatch_peer(&svc, msg, len, NULL, &peer, out, sizeof(out), &oc);
	assert_true(len >= 28);
	/* xid, REPLY, MSG_ACCEPTED, verf {0, 0}, SUCCESS, then WRITE3res's status */
	assert_int_equal(word(out, 0), 77);
	assert_int_equal(word(out, 5), 0);
	return word(out, 6);
}

static void test_deleg_v3_write(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a;
	struct nfs_fh fh;

	(void)state;
	client_a(&a);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	assert_int_equal(v3_write(&fh), 10008); /* NFS3ERR_JUKEBOX */
	assert_int_equal(ncalls, 2);
	assert_int_equal(word(calls[1].msg, 5), 1); /* the recall */
	assert_int_equal(v3_write(&fh), 10008);
	assert_int_equal(ncalls, 2);
	answer_recall(1, 0, 0);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4_OK);
	assert_int_equal(v3_write(&fh), 0);
}

static void test_deleg_revoked_after_lease(void **state)
{
	uint64_t half = (uint64_t)n4f_conf.state.lease_s * 1000000000ull / 2;
	struct nfs4_open_res o;
	struct n4f_sess a, b;
	struct nfs_fh fh;
	union nfs4_op_args t = {0};
	struct n4f_reply r;
	uint8_t raw[16];

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	answer_recall(1, 0, 0); /* A says yes, but never returns it */
	/* A and B keep their leases; the recall's lease runs out */
	n4f_now_ns += half;
	assert_int_equal(seq_flags(&a), 0);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	n4f_now_ns += half + 2000000000ull;
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	/* TEST_STATEID and DELEGRETURN say it is revoked; FREE_STATEID lets it go */
	put(raw, 0, o.deleg_sid.seqid);
	memcpy(raw + 4, o.deleg_sid.other, 12);
	t.test_stateid.n = 1;
	t.test_stateid.raw = (struct nfs4_ref){raw, 16};
	n4f_fh_op(&a, NULL, NFS4_OP_TEST_STATEID, &t, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[1].u.test_stateid.status[0], NFS4ERR_DELEG_REVOKED);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_FREE_STATEID, &o.deleg_sid), NFS4_OK);
	assert_int_equal(seq_flags(&a), 0);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_FREE_STATEID, &o.deleg_sid), NFS4ERR_BAD_STATEID);
}

static void test_path_down_and_rebind(void **state)
{
	union nfs4_op_args bind = {0};
	struct nfs4_open_res o;
	struct n4f_sess a, b;
	struct n4f_reply r;
	struct n4f_cb cb;
	struct nfs_fh fh;
	uint64_t id2;

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	/* A's connection goes: SEQUENCE says so */
	orpc_bc_unregister(&bct, id_a);
	n4f_bc_id = 0;
	assert_int_equal(seq_flags(&a),
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN);
	/* no delegation without a backchannel */
	assert_int_equal(open_file(&a, "oa2", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_NONE);
	/* A binds a new connection: BACK_OR_BOTH is answered BOTH, and probed */
	id2 = orpc_bc_register(&bct, &fake_ops, &conn_a2);
	n4f_bc_id = id2;
	memcpy(bind.bind.sessionid, a.id, NFS4_SESSIONID_SIZE);
	bind.bind.dir = CDFC4_BACK_OR_BOTH;
	n4f_start(&cb, 1, "");
	n4f_op(&cb, NFS4_OP_BIND_CONN_TO_SESSION, &bind);
	n4f_run(&cb, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[0].u.bind.dir, CDFS4_BOTH);
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].conn, conn_a2);
	assert_int_equal(word(calls[1].msg, 5), 0); /* CB_NULL */
	answer_null(1);
	assert_int_equal(seq_flags(&a), 0);
	/* the old delegation is recalled on the new connection */
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 3);
	assert_int_equal(calls[2].conn, conn_a2);
	/* and its connection goes before the answer: the recall ends -ENOTCONN, the delegation
	 * is revoked (nowhere to send it), B goes on */
	orpc_bc_unregister(&bct, id2);
	answer(2, -ENOTCONN, NULL, 0);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_CB_PATH_DOWN_SESSION |
						SEQ4_STATUS_CB_PATH_DOWN |
						SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	/* FORE alone binds no backchannel; BACK on a connection that carries none is INVAL */
	n4f_bc_id = 0;
	bind.bind.dir = CDFC4_BACK;
	n4f_start(&cb, 1, "");
	n4f_op(&cb, NFS4_OP_BIND_CONN_TO_SESSION, &bind);
	n4f_run(&cb, &r);
	assert_int_equal(r.status, NFS4ERR_INVAL);
}

static void test_bad_cb_replies(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b, d;
	uint8_t junk[64];
	uint64_t id;

	(void)state;
	/* a probe answered with garbage: counted, the path is down */
	id = orpc_bc_register(&bct, &fake_ops, &conn_b);
	session_on("client-d", id, &d);
	memset(junk, 0xee, sizeof(junk));
	answer(0, 0, junk, sizeof(junk));
	assert_int_equal(stats().cb_bad_replies, 1);
	assert_int_equal(sess_of(&d)->cb_state, NFS4_CB_DOWN);
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	/* the recall answered with a reply cut short: counted, the delegation revoked */
	{
		uint8_t rep[256];
		struct nfs4_cb_seq_args seq = {{0}, 1, 0, 0};
		uint32_t n;

		memcpy(seq.sessionid, a.id, NFS4_SESSIONID_SIZE);
		n = recall_reply(rep, word(calls[1].msg, 0), &seq, 0, 0);
		answer(1, 0, rep, n - 6);
	}
	assert_int_equal(stats().cb_bad_replies, 2);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
}

/* a CB_RECALL whose CB_SEQUENCE the client refuses (BADSESSION), or that CB_RECALL itself
 * refuses (BAD_STATEID): an error other than DELAY revokes (RFC 8881 §10.4.5's server choice) */
static void test_recall_refused(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b;
	char p[300];

	(void)state;
	n4f_path_of(p, sizeof(p), "file3");
	n4f_mkfile(p, "three\n");
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	answer_recall(1, NFS4ERR_BADSESSION, 0);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	/* the slot's sequence did not move (the client did not take the call): the next
	 * CB_SEQUENCE says 1 again */
	assert_int_equal(sess_of(&a)->cb_seqid, 0);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	/* CB_RECALL refused on its own: revoked too */
	{
		struct nfs_fh root = n4f_root_fh();
		union nfs4_op_args oa = {0};
		struct n4f_reply r;

		n4f_open_args(&oa, "oa", "file3", OPEN4_SHARE_ACCESS_READ, OPEN4_NOCREATE);
		n4f_fh_op(&a, &root, NFS4_OP_OPEN, &oa, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_READ);
		oa.open.owner = (struct nfs4_ref){(const uint8_t *)"ob", 2};
		oa.open.share_access = OPEN4_SHARE_ACCESS_WRITE;
		n4f_fh_op(&b, &root, NFS4_OP_OPEN, &oa, &r);
		assert_int_equal(r.status, NFS4ERR_DELAY);
	}
	assert_int_equal(ncalls, 3);
	assert_int_equal(word(calls[2].msg, 10 + word(calls[2].msg, 7) / 4 + 9), 1);
	answer_recall(2, 0, NFS4ERR_BAD_STATEID);
	assert_int_equal(stats().delegs_revoked, 2);
	assert_int_equal(sess_of(&a)->cb_seqid, 1); /* this one the client took */
}

static void test_recall_delay_then_retry(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b;
	struct nfs_fh fh;

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	/* the client says DELAY: the recall goes again on B's next try a moment later (not at
	 * once), sequence id 2 */
	answer_recall(1, 0, NFS4ERR_DELAY);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	n4f_now_ns += 200000000ull;
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 3);
	assert_int_equal(word(calls[2].msg, 10 + word(calls[2].msg, 7) / 4 + 9), 2);
	answer_recall(2, 0, 0);
	assert_int_equal(sid_op(&a, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().delegs_revoked, 0);
	assert_int_equal(stats().recalls_sent, 2);
}

static void test_lease_expiry_drops_delegs(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b;

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	/* A goes silent for two leases; B stays */
	for (int k = 0; k < 4; k++) {
		n4f_now_ns += (uint64_t)n4f_conf.state.lease_s * 500000000ull;
		seq_flags(&b);
	}
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(ncalls, 1); /* nothing to recall: A's state went with its lease */
}

/* OPEN with CLAIM_DELEG_CUR_FH (the current file) under the delegation d */
static uint32_t open_deleg_cur_fh(struct n4f_sess *s, const struct nfs_fh *fh,
				  const struct nfs4_stateid *d, struct nfs4_open_res *o)
{
	union nfs4_op_args a = {0};
	struct n4f_reply r;

	a.open.share_access = OPEN4_SHARE_ACCESS_READ;
	a.open.owner = (struct nfs4_ref){(const uint8_t *)"oc", 2};
	a.open.opentype = OPEN4_NOCREATE;
	a.open.claim = CLAIM_DELEG_CUR_FH;
	a.open.deleg_sid = *d;
	n4f_fh_op(s, fh, NFS4_OP_OPEN, &a, &r);
	if (r.status == NFS4_OK && o)
		*o = r.r[2].u.open;
	return r.status;
}

static void test_claim_deleg_cur(void **state)
{
	struct nfs4_open_res o, o2;
	struct n4f_sess a, c;
	struct nfs4_stateid bogus;
	struct nfs_fh fh;

	(void)state;
	client_a(&a);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	/* an open under the delegation (as Linux sends while returning one): a new open
	 * stateid, no new delegation */
	assert_int_equal(open_deleg_cur_fh(&a, &fh, &o.deleg_sid, &o2), NFS4_OK);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_NONE);
	assert_memory_not_equal(o2.sid.other, o.sid.other, 12);
	assert_int_equal(stats().delegs_granted, 1);
	/* an open stateid is not a delegation's; another client's delegation is not its own */
	assert_int_equal(open_deleg_cur_fh(&a, &fh, &o.sid, NULL), NFS4ERR_BAD_STATEID);
	session_on("client-c", 0, &c);
	assert_int_equal(open_deleg_cur_fh(&c, &fh, &o.deleg_sid, NULL), NFS4ERR_BAD_STATEID);
	bogus = o.deleg_sid;
	bogus.other[11] ^= 0xff;
	assert_int_equal(open_deleg_cur_fh(&a, &fh, &bogus, NULL), NFS4ERR_BAD_STATEID);
}

static void test_backchannel_ctl(void **state)
{
	union nfs4_op_args a = {0};
	uint8_t sec[16];
	struct nfs4_open_res o;
	struct n4f_sess s, b;
	struct n4f_reply r;

	(void)state;
	client_a(&s);
	/* a new program, and AUTH_NONE from now on */
	a.bc_ctl.cb_program = 0x40000123;
	a.bc_ctl.sec_parms = (struct nfs4_raw){1, {sec, words(sec, (const uint32_t[]){0}, 1)}};
	n4f_fh_op(&s, NULL, NFS4_OP_BACKCHANNEL_CTL, &a, &r);
	assert_int_equal(r.status, NFS4_OK);
	/* RPCSEC_GSS alone cannot be done */
	a.bc_ctl.sec_parms =
		(struct nfs4_raw){1, {sec, words(sec, (const uint32_t[]){6, 1, 0, 0}, 4)}};
	n4f_fh_op(&s, NULL, NFS4_OP_BACKCHANNEL_CTL, &a, &r);
	assert_int_equal(r.status, NFS4ERR_INVAL);
	/* the recall goes to the new program with AUTH_NONE */
	assert_int_equal(open_file(&s, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	assert_int_equal(word(calls[1].msg, 3), 0x40000123);
	assert_int_equal(word(calls[1].msg, 6), 0); /* AUTH_NONE */
	assert_int_equal(word(calls[1].msg, 7), 0);
	answer_recall(1, 0, 0);
}

/* REMOVE of name in the export's root by s: its status */
static uint32_t remove_name(struct n4f_sess *s, const char *name)
{
	struct nfs_fh root = n4f_root_fh();

	return n4f_fh_op(
		s, &root, NFS4_OP_REMOVE,
		&(union nfs4_op_args){.name = {(const uint8_t *)name, (uint32_t)strlen(name)}},
		NULL);
}

static void test_two_recalls_one_slot(void **state)
{
	struct nfs4_open_res o1, o2;
	struct n4f_sess a, b;
	struct nfs_fh fh1, fh2;
	union nfs4_op_args oa = {0};
	struct nfs_fh root = n4f_root_fh();
	struct n4f_reply r;
	char p[300];

	(void)state;
	n4f_path_of(p, sizeof(p), "file2");
	n4f_mkfile(p, "two\n");
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o1, &fh1), NFS4_OK);
	n4f_open_args(&oa, "oa", "file2", OPEN4_SHARE_ACCESS_READ, OPEN4_NOCREATE);
	n4f_open_getfh(&a, 1, &root, &oa, &r);
	assert_int_equal(r.status, NFS4_OK);
	o2 = r.r[2].u.open;
	n4f_fh_of(&r, 3, &fh2);
	assert_int_equal(o2.deleg_type, OPEN_DELEGATE_READ);
	/* B removes file2 and writes file: two recalls, one backchannel slot */
	assert_int_equal(remove_name(&b, "file2"), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2); /* the second waits for the slot */
	answer_recall(1, 0, 0);
	assert_int_equal(ncalls, 3); /* sent as the slot freed, with the next sequence id */
	assert_int_equal(word(calls[2].msg, 10 + word(calls[2].msg, 7) / 4 + 9), 2);
	answer_recall(2, 0, 0);
	assert_int_equal(sid_op(&a, &fh2, NFS4_OP_DELEGRETURN, &o2.deleg_sid), NFS4_OK);
	assert_int_equal(remove_name(&b, "file2"), NFS4_OK);
	assert_int_equal(sid_op(&a, &fh1, NFS4_OP_DELEGRETURN, &o1.deleg_sid), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().recalls_sent, 2);
	assert_int_equal(stats().recalls_answered, 2);
	assert_int_equal(stats().delegs_returned, 2);
}

/* the server goes with a call out: the call's end (the transport's, later) touches only the
 * table the server left behind, and frees it (ASan and LeakSanitizer watch) */
static const struct orpc_bc_ops nocancel_ops = {.call = fake_send, .name = "fake-nocancel"};

static void server_again(void)
{
	nfs4_server_destroy(n4f_srv);
	n4f_srv = nfs4_server_create(n4f_fs, &n4f_conf);
	assert_non_null(n4f_srv);
	nfs4_server_set_clock(n4f_srv, n4f_clock);
	nfs4_server_set_bc(n4f_srv, &bct);
	v3.v4 = n4f_srv;
}

static void test_server_gone_call_out(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b;
	uint64_t id;

	(void)state;
	/* the server cancels its calls out as it goes: their done never comes */
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	server_again();
	assert_int_equal(ncancelled, 1);
	assert_true(calls[1].answered);
	/* a transport that cannot cancel: the call's end (later) touches only the table the
	 * server left behind, and frees it (ASan and LeakSanitizer watch) */
	id = orpc_bc_register(&bct, &nocancel_ops, &conn_b);
	session_on("client-d", id, &b);
	assert_int_equal(ncalls, 3);
	server_again();
	assert_int_equal(ncancelled, 1);
	answer_null(2);
}

/* every change that recalls, by another v4 client and by NFSv3, while the recall is out */
static void test_conflicting_changes(void **state)
{
	struct nfs_fh root = n4f_root_fh();
	union nfs4_op_args a = {0};
	struct nfs4_open_res o;
	struct n4f_sess da, b;
	struct n4f_reply r;
	struct n4f_cb cb;
	struct nfs_fh fh;
	uint8_t sz[8] = {0}, args[512];
	uint32_t n;

	(void)state;
	client_a(&da);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&da, "oa", OPEN4_SHARE_ACCESS_READ, &o, &fh), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	/* v4 SETATTR of the size (anonymous stateid): DELAY, and the recall goes */
	a.setattr.attrs = (struct nfs4_fattr){{1, {1u << NFS4_A_SIZE}}, {sz, 8}};
	n4f_fh_op(&b, &fh, NFS4_OP_SETATTR, &a, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	/* v4 RENAME of it, v4 RENAME onto it, v4 LINK of it: DELAY, no second recall */
	memset(&a, 0, sizeof(a));
	a.rename.oldname = (struct nfs4_ref){(const uint8_t *)"file", 4};
	a.rename.newname = (struct nfs4_ref){(const uint8_t *)"file9", 5};
	n4f_session(&cb, &b);
	n4f_putfh(&cb, &root);
	n4f_op(&cb, NFS4_OP_SAVEFH, NULL);
	n4f_op(&cb, NFS4_OP_RENAME, &a);
	n4f_run(&cb, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	a.rename.oldname = (struct nfs4_ref){(const uint8_t *)"dir", 3};
	a.rename.newname = (struct nfs4_ref){(const uint8_t *)"file", 4};
	n4f_session(&cb, &b);
	n4f_putfh(&cb, &root);
	n4f_op(&cb, NFS4_OP_SAVEFH, NULL);
	n4f_op(&cb, NFS4_OP_RENAME, &a);
	n4f_run(&cb, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	n4f_session(&cb, &b);
	n4f_putfh(&cb, &fh);
	n4f_op(&cb, NFS4_OP_SAVEFH, NULL);
	n4f_putfh(&cb, &root);
	n4f_op(&cb, NFS4_OP_LINK, &(union nfs4_op_args){.name = {(const uint8_t *)"file-link", 9}});
	n4f_run(&cb, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	/* NFSv3 (RFC 1813): SETATTR of the size (proc 2: fh, sattr3 {no mode, uid, gid; size 0;
	 * times unchanged}, no guard), REMOVE (12: dir, name), RENAME (14: from, to): JUKEBOX */
	n = opaque(args, fh.data, fh.len);
	n += words(args + n, (const uint32_t[]){0, 0, 0, 1, 0, 0, 0, 0, 0}, 9);
	assert_int_equal(v3_call(2, args, n), 10008);
	n = opaque(args, fh.data, fh.len);
	/* the mode alone changes no data: no conflict */
	n += words(args + n, (const uint32_t[]){1, 0640, 0, 0, 0, 0, 0, 0}, 8);
	assert_int_equal(v3_call(2, args, n), NFS_OK);
	n = opaque(args, root.data, root.len);
	n += opaque(args + n, (const uint8_t *)"file", 4);
	assert_int_equal(v3_call(12, args, n), 10008);
	n = opaque(args, root.data, root.len);
	n += opaque(args + n, (const uint8_t *)"file", 4);
	n += opaque(args + n, root.data, root.len);
	n += opaque(args + n, (const uint8_t *)"file9", 5);
	assert_int_equal(v3_call(14, args, n), 10008);
	assert_int_equal(ncalls, 2);
	assert_true(stats().deleg_conflicts >= 7);
	/* returned: the v3 SETATTR of the size goes through (the file is cut to 12 bytes, its
	 * own length, so that the other tests read what they wrote) */
	answer_recall(1, 0, 0);
	assert_int_equal(sid_op(&da, &fh, NFS4_OP_DELEGRETURN, &o.deleg_sid), NFS4_OK);
	n = opaque(args, fh.data, fh.len);
	n += words(args + n, (const uint32_t[]){0, 0, 0, 1, 0, 12, 0, 0, 0}, 9);
	assert_int_equal(v3_call(2, args, n), NFS_OK);
}

/* the transports never time a backward call out: a lease without an answer is the server's,
 * which cancels the call */
static void test_calls_time_out(void **state)
{
	uint64_t lease = (uint64_t)n4f_conf.state.lease_s * 1000000000ull;
	struct nfs4_open_res o;
	struct n4f_sess a, b, d;
	uint64_t id;

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	/* a probe nobody answers (call 1), a recall nobody answers (call 2) */
	id = orpc_bc_register(&bct, &fake_ops, &conn_b);
	session_on("client-d", id, &d);
	assert_int_equal(sess_of(&d)->cb_state, NFS4_CB_PROBING);
	n4f_bc_id = 0;
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 3);
	n4f_now_ns += lease / 2;
	assert_int_equal(seq_flags(&a), 0);
	assert_int_equal(seq_flags(&b), 0);
	assert_int_equal(seq_flags(&d), 0);
	n4f_now_ns += lease / 2 + 2000000000ull;
	/* after a lease: the probe failed, the recall too, and the delegation is revoked */
	assert_int_equal(seq_flags(&d),
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4_OK);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(seq_flags(&a), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	/* both calls were cancelled (orpc_bc_cancel): the transport forgets them */
	assert_int_equal(ncancelled, 2);
	assert_true(calls[1].answered && calls[2].answered);
	assert_int_equal(sess_of(&a)->cb_state, NFS4_CB_UP);
	assert_int_equal(stats().delegs_revoked, 1);
	assert_int_equal(ncalls, 3);
}

/* the RPC program's glue (nfs4_compound_proc): the call's orpc_peer.bc_id and its svc's table
 * are what a real transport hands over */
static void test_rpc_glue(void **state)
{
	const uint32_t hdr[] = {79, 0, 2, 100003, 4, 1, 1, 20, 0, 0, 0, 0, 0, 0, 0};
	struct nfs4_exchange_id_res e;
	union nfs4_op_args a = {0};
	uint8_t msg[2048], out[2048], sec[sizeof(sec_sys)];
	struct orpc_peer peer = {0};
	enum orpc_outcome oc;
	struct n4f_reply r;
	struct n4f_cb b;
	uint32_t len, n;

	(void)state;
	nfs4_server_set_bc(n4f_srv, NULL);
	svc.bc = &bct;
	assert_int_equal(n4f_exchange_id("client-rpc", "verf0001", 0, &e), NFS4_OK);
	a.csess.clientid = e.clientid;
	a.csess.sequence = e.sequenceid;
	a.csess.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	a.csess.cb_program = CB_PROG;
	a.csess.sec_parms = (struct nfs4_raw){1, {sec, words(sec, sec_sys, 7)}};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n = n4f_end(&b, 0);
	len = words(msg, hdr, 15);
	memcpy(msg + len, b.buf, n);
	len += n;
	peer.xprt = ORPC_XPRT_TCP;
	peer.bc_id = orpc_bc_register(&bct, &fake_ops, &conn_a);
	n = orpc_svc_dispatch_peer(&svc, msg, len, NULL, &peer, out, sizeof(out), &oc);
	svc.bc = NULL;
	assert_true(n > 24);
	assert_int_equal(word(out, 5), 0); /* SUCCESS */
	n4f_parse(out + 24, n - 24, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[0].u.csess.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			 CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	/* probed on the call's connection, through the svc's table */
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].conn, conn_a);
	assert_int_equal(word(calls[0].msg, 5), 0);
	answer_null(0);
	assert_int_equal(
		nfs4_session_find(nfs4_server_state(n4f_srv), r.r[0].u.csess.sessionid)->cb_state,
		NFS4_CB_UP);
}

/* no delegation while the lock manager's grace period lasts (NLM and v4 reclaims) */
static void test_no_deleg_in_grace(void **state)
{
	struct nfs_lock_mgr m;
	struct nfs4_open_res o;
	struct n4f_sess a;

	(void)state;
	client_a(&a);
	nfs_lock_mgr_init(&m, &(struct nfs_lock_conf){.grace_ms = 3600000});
	nfs4_server_set_lock_mgr(n4f_srv, &m);
	assert_int_equal(open_file(&a, "oa",
				   OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG, &o,
				   NULL),
			 NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_NONE_EXT);
	nfs4_server_set_lock_mgr(n4f_srv, NULL);
	assert_int_equal(open_file(&a, "ob", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(o.deleg_type, OPEN_DELEGATE_READ);
	nfs_lock_mgr_fini(&m);
}

/* SEQUENCE, PUTFH fh, LOCK (new lock-owner from the open): its status, the stateid in *lsid */
static uint32_t lock_new(struct n4f_sess *s, const struct nfs_fh *fh,
			 const struct nfs4_stateid *open, const char *owner, uint32_t type,
			 struct nfs4_stateid *lsid)
{
	union nfs4_op_args a = {0};
	struct n4f_reply r;

	a.lock.type = type;
	a.lock.offset = 0;
	a.lock.length = 10;
	a.lock.new_owner = true;
	a.lock.open_sid = *open;
	a.lock.lock_owner.clientid = s->clientid;
	a.lock.lock_owner.owner =
		(struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	n4f_fh_op(s, fh, NFS4_OP_LOCK, &a, &r);
	if (r.status == NFS4_OK && lsid)
		*lsid = r.r[2].u.sid;
	return r.status;
}

/* a blocking LOCK denied to a client with a backchannel: CB_NOTIFY_LOCK when the lock goes */
static void test_notify_lock(void **state)
{
	struct nfs4_open_res oa, ob;
	struct nfs4_stateid lb;
	union nfs4_op_args u = {0};
	struct n4f_sess a, b;
	struct n4f_reply r;
	struct nfs_fh fh;
	uint32_t at;

	(void)state;
	client_a(&a);
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_BOTH, &ob, &fh), NFS4_OK);
	assert_int_equal(ob.rflags, OPEN4_RESULT_LOCKTYPE_POSIX); /* B: no backchannel */
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_BOTH, &oa, NULL), NFS4_OK);
	assert_int_equal(oa.rflags, OPEN4_RESULT_LOCKTYPE_POSIX | OPEN4_RESULT_MAY_NOTIFY_LOCK);
	assert_int_equal(lock_new(&b, &fh, &ob.sid, "lo-b", WRITE_LT, &lb), NFS4_OK);
	assert_int_equal(lock_new(&a, &fh, &oa.sid, "lo-a", WRITEW_LT, NULL), NFS4ERR_DENIED);
	assert_int_equal(stats().lock_waits, 1);
	assert_int_equal(ncalls, 1);
	/* B unlocks: A is told */
	u.locku.type = WRITE_LT;
	u.locku.sid = lb;
	u.locku.offset = 0;
	u.locku.length = 10;
	n4f_fh_op(&b, &fh, NFS4_OP_LOCKU, &u, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].conn, conn_a);
	at = 10 + word(calls[1].msg, 7) / 4;
	assert_int_equal(word(calls[1].msg, at + 14), 13); /* CB_NOTIFY_LOCK */
	assert_int_equal(word(calls[1].msg, at + 15), fh.len);
	assert_memory_equal(calls[1].msg + 4 * (at + 16), fh.data, fh.len);
	at += 16 + (fh.len + 3) / 4;
	assert_int_equal(word(calls[1].msg, at), (uint32_t)(a.clientid >> 32));
	assert_int_equal(word(calls[1].msg, at + 1), (uint32_t)a.clientid);
	assert_int_equal(word(calls[1].msg, at + 2), 4);
	assert_memory_equal(calls[1].msg + 4 * (at + 3), "lo-a", 4);
	assert_int_equal(stats().lock_notifies, 1);
	/* once: another unlock tells nobody; A's lock now goes through */
	answer_recall(1, 0, 0);
	assert_int_equal(lock_new(&a, &fh, &oa.sid, "lo-a", WRITEW_LT, NULL), NFS4_OK);
	assert_int_equal(ncalls, 2);
}

/* a client speaking 4.2 gets its CB_COMPOUNDs in minor version 2 (pynfs answers another with
 * MINOR_VERS_MISMATCH) */
static void test_cb_minor_of_session(void **state)
{
	struct nfs4_open_res o;
	struct n4f_sess a, b;

	(void)state;
	session_minor = 2;
	client_a(&a);
	session_minor = 1;
	session_on("client-b", 0, &b);
	assert_int_equal(open_file(&a, "oa", OPEN4_SHARE_ACCESS_READ, &o, NULL), NFS4_OK);
	assert_int_equal(open_file(&b, "ob", OPEN4_SHARE_ACCESS_WRITE, NULL, NULL), NFS4ERR_DELAY);
	assert_int_equal(ncalls, 2);
	assert_int_equal(word(calls[1].msg, 10 + word(calls[1].msg, 7) / 4 + 1), 2);
	answer_recall(1, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cb_null_words),
		cmocka_unit_test(test_cb_recall_words),
		cmocka_unit_test(test_cb_notify_lock_words),
		cmocka_unit_test(test_cb_reply_decode),
		cmocka_unit_test(test_cb_pick_cred),
		cmocka_unit_test_setup(test_backchannel_probe, fresh),
		cmocka_unit_test_setup(test_deleg_grant_and_recall, fresh),
		cmocka_unit_test_setup(test_deleg_holder_writes, fresh),
		cmocka_unit_test_setup(test_deleg_v3_write, fresh),
		cmocka_unit_test_setup(test_deleg_revoked_after_lease, fresh),
		cmocka_unit_test_setup(test_path_down_and_rebind, fresh),
		cmocka_unit_test_setup(test_bad_cb_replies, fresh),
		cmocka_unit_test_setup(test_recall_delay_then_retry, fresh),
		cmocka_unit_test_setup(test_recall_refused, fresh),
		cmocka_unit_test_setup(test_lease_expiry_drops_delegs, fresh),
		cmocka_unit_test_setup(test_claim_deleg_cur, fresh),
		cmocka_unit_test_setup(test_backchannel_ctl, fresh),
		cmocka_unit_test_setup(test_two_recalls_one_slot, fresh),
		cmocka_unit_test_setup(test_server_gone_call_out, fresh),
		cmocka_unit_test_setup(test_conflicting_changes, fresh),
		cmocka_unit_test_setup(test_calls_time_out, fresh),
		cmocka_unit_test_setup(test_rpc_glue, fresh),
		cmocka_unit_test_setup(test_no_deleg_in_grace, fresh),
		cmocka_unit_test_setup(test_notify_lock, fresh),
		cmocka_unit_test_setup(test_cb_minor_of_session, fresh),
	};
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_nfs4_deleg: needs root (open_by_handle_at); skipped\n");
		return 77;
	}
	if (n4f_setup_rpc(&v3, &svc, &prog, vers) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	n4f_teardown_rpc(&v3);
	return rc;
}
