/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs4.c - the NFSv4.1 server (nfs/nfs4) without a network: COMPOUNDs built with the
 * server's own XDR routines (by the operation table), run through nfs4_compound(), their
 * replies decoded. Covers the dispatcher's rules (BADXDR, MINOR_VERS_MISMATCH, OP_ILLEGAL,
 * NOTSUPP, OP_NOT_IN_SESSION, NOT_ONLY_OP, SEQUENCE_POS, NOFILEHANDLE, the stop at the first
 * failure, the echoed tag), SEQUENCE (BADSESSION, BADSLOT, SEQ_MISORDERED, SEQ_FALSE_RETRY, a
 * replay answered byte for byte from the slot without running again), EXCHANGE_ID's cases
 * (RFC 8881 §18.35.5), CREATE_SESSION's sequence and retry, channel attribute negotiation,
 * leases (a test clock), DESTROY_SESSION/DESTROY_CLIENTID/RECLAIM_COMPLETE, and the namespace:
 * GETATTR of the pseudo root and of a file in an export (values against stat()), LOOKUP from
 * the pseudo root into an export and LOOKUPP back, and NFSv3's handle for the same file.
 *
 * Needs root for the backend (open_by_handle_at): exits 77 (skipped) otherwise.
 */
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs4_fixture.h"
#include "nfs_xdr_prim.h"

/* ---- the dispatcher's rules ---- */

static void test_header_rules(void **state)
{
	static const uint8_t junk[3] = {1, 2, 3};
	struct n4f_reply r;
	struct n4f_cb b;
	uint32_t len;

	(void)state;
	/* minor version 0 is not served; 3 does not exist */
	for (uint32_t minor = 0; minor <= 3; minor += 3) {
		n4f_start(&b, minor, "mytag");
		n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
		n4f_run_raw(b.buf, n4f_end(&b, 5), &r);
		assert_int_equal(r.status, NFS4ERR_MINOR_VERS_MISMATCH);
		assert_int_equal(r.n, 0);
		assert_int_equal(r.h.tag.len, 5);
		assert_memory_equal(r.h.tag.p, "mytag", 5);
	}
	/* undecodable: too short for a header, and an opcode word missing */
	n4f_run_raw(junk, sizeof(junk), &r);
	assert_int_equal(r.status, NFS4ERR_BADXDR);
	assert_int_equal(r.n, 0);
	n4f_start(&b, 1, "t");
	n4f_op(&b, NFS4_OP_EXCHANGE_ID,
	       &(union nfs4_op_args){.exid.ownerid = {(const uint8_t *)"o", 1}});
	len = n4f_end(&b, 1);
	b.buf[4 + 4 + 4 + 3] = 2; /* numops 2, one op present */
	n4f_run_raw(b.buf, len, &r);
	assert_int_equal(r.status, NFS4ERR_BADXDR);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.h.tag.len, 1);
}

static void test_op_rules(void **state)
{
	struct n4f_reply r;
	struct n4f_cb b;
	struct n4f_sess s;

	(void)state;
	/* undefined opcodes: OP_ILLEGAL, as opcode OP_ILLEGAL */
	for (uint32_t op = 0; op < 3; op++) {
		n4f_start(&b, 1, "");
		n4f_op(&b, op, NULL);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_OP_ILLEGAL);
		assert_int_equal(r.n, 1);
		assert_int_equal(r.r[0].op, NFS4_OP_ILLEGAL);
	}
	/* a 4.2 operation in a 4.1 compound is undefined there */
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_ALLOCATE, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_OP_ILLEGAL);
	/* without SEQUENCE: only the session-less operations, and alone */
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_OP_NOT_IN_SESSION);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.r[0].op, NFS4_OP_PUTROOTFH);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_READ, NULL); /* not served, and not session-less */
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_OP_NOT_IN_SESSION);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = 7});
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOT_ONLY_OP);
	assert_int_equal(r.n, 1);

	n4f_new_session("op-rules", &s);
	/* SEQUENCE anywhere but first */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	{
		union nfs4_op_args a = {0};

		memcpy(a.seq.sessionid, s.id, NFS4_SESSIONID_SIZE);
		a.seq.sequenceid = 1;
		n4f_op(&b, NFS4_OP_SEQUENCE, &a);
	}
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_SEQUENCE_POS);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.r[0].status, NFS4_OK);
	assert_int_equal(r.r[1].status, NFS4_OK);
	assert_int_equal(r.r[2].op, NFS4_OP_SEQUENCE);
	/* no current file handle */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOFILEHANDLE);
	assert_int_equal(r.n, 2);
	/* defined but not served: NOTSUPP, the compound stops there */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_OPENATTR, NULL);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOTSUPP);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.r[2].op, NFS4_OP_OPENATTR);
	/* 4.2 operations not served in a 4.2 compound: NOTSUPP (those served: test_nfs42.c) */
	n4f_seq(&b, &s, 0, s.seq[0]++, false);
	xdr_setpos(&b.x, 4); /* minor version 2 */
	assert_true(x_u32(&b.x, &(uint32_t){2}));
	xdr_setpos(&b.x, 12 + 4 + 32);
	n4f_op(&b, NFS4_OP_READ_PLUS, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOTSUPP);
	assert_int_equal(r.r[1].op, NFS4_OP_READ_PLUS);
	/* arguments that do not decode: that op gets BADXDR, the ones before it ran */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	assert_true(x_u32(&b.x, &(uint32_t){NFS4_OP_LOOKUP}));
	assert_true(x_u32(&b.x, &(uint32_t){200})); /* a 200-byte name with 4 bytes present */
	assert_true(x_u32(&b.x, &(uint32_t){0x61616161}));
	b.nops++;
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADXDR);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.r[1].status, NFS4_OK);
	assert_int_equal(r.r[2].op, NFS4_OP_LOOKUP);
}

/* ---- SEQUENCE and the reply cache ---- */

static void test_sequence(void **state)
{
	struct nfs4_stats before, after;
	struct n4f_reply r, r2;
	uint8_t first[8192];
	uint32_t first_len;
	struct n4f_sess s, bad;
	struct n4f_cb b;

	(void)state;
	n4f_new_session("seq", &s);
	/* unknown session */
	bad = s;
	bad.id[15] ^= 0xff;
	n4f_session(&b, &bad);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADSESSION);
	/* slot beyond the table (8 slots) */
	n4f_seq(&b, &s, 8, 1, false);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADSLOT);
	/* a gap */
	n4f_seq(&b, &s, 1, 2, false);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_MISORDERED);
	/* a new request, then its retry: the same bytes, and nothing runs again */
	n4f_seq(&b, &s, 1, 1, false);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[0].u.seq.slotid, 1);
	assert_int_equal(r.r[0].u.seq.sequenceid, 1);
	assert_int_equal(r.r[0].u.seq.highest_slotid, 7);
	memcpy(first, r.bytes, r.len);
	first_len = r.len;
	nfs4_server_stats(n4f_srv, &before);
	n4f_run(&b, &r2); /* the same arguments again */
	nfs4_server_stats(n4f_srv, &after);
	assert_int_equal(r2.len, first_len);
	assert_memory_equal(r2.bytes, first, first_len);
	assert_int_equal(after.op[NFS4_OP_PUTROOTFH], before.op[NFS4_OP_PUTROOTFH]);
	assert_int_equal(after.op[NFS4_OP_GETFH], before.op[NFS4_OP_GETFH]);
	/* the same slot and sequence id with another request: a false retry */
	n4f_seq(&b, &s, 1, 1, false);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_FALSE_RETRY);
	/* the next one is served */
	n4f_seq(&b, &s, 1, 2, false);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	/* an old sequence id */
	n4f_seq(&b, &s, 1, 1, false);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_MISORDERED);
	/* too many operations for the session (16 negotiated) */
	n4f_seq(&b, &s, 2, 1, false);
	for (int i = 0; i < 16; i++)
		n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_TOO_MANY_OPS);
	assert_int_equal(r.n, 1);
}

static void test_reply_too_big_to_cache(void **state)
{
	struct nfs4_create_session_res c;
	struct nfs4_exchange_id_res e;
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;

	(void)state;
	assert_int_equal(n4f_exchange_id("small-cache", "verf0001", 0, &e), NFS4_OK);
	a.csess.clientid = e.clientid;
	a.csess.sequence = e.sequenceid;
	n4f_default_attrs(&a.csess.fore);
	a.csess.fore.maxresponsesize_cached = 100;
	n4f_default_attrs(&a.csess.back);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	c = r.r[0].u.csess;
	assert_int_equal(c.fore.maxresponsesize_cached, 100);
	memset(&s, 0, sizeof(s));
	memcpy(s.id, c.sessionid, NFS4_SESSIONID_SIZE);
	/* sa_cachethis: a reply that outgrows 100 bytes is refused at the op that did it */
	n4f_seq(&b, &s, 0, 1, true);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_op(&b, NFS4_OP_GETATTR,
	       &(union nfs4_op_args){.getattr = {2, {0xffffffff, ALL_READABLE_W1}}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(r.r[r.n - 1].op, NFS4_OP_GETATTR);
	/* without it the reply goes out but is not kept: its retry is RETRY_UNCACHED_REP */
	n4f_seq(&b, &s, 0, 2, false);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_GETATTR,
	       &(union nfs4_op_args){.getattr = {2, {0xffffffff, ALL_READABLE_W1}}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(r.len > 100);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_RETRY_UNCACHED_REP);
	assert_int_equal(r.n, 1);
}

/* ---- EXCHANGE_ID and CREATE_SESSION ---- */

static void test_exchange_id_cases(void **state)
{
	struct nfs4_exchange_id_res e1, e2, e3;
	struct nfs4_create_session_res c;

	(void)state;
	/* case 1: a new owner gets an unconfirmed record, CREATE_SESSION's sequence 1 */
	assert_int_equal(n4f_exchange_id("client-A", "verf0001", 0, &e1), NFS4_OK);
	assert_int_equal(e1.sequenceid, 1);
	assert_false(e1.flags & EXCHGID4_FLAG_CONFIRMED_R);
	assert_true(e1.flags & EXCHGID4_FLAG_USE_NON_PNFS);
	assert_int_equal(e1.sp_how, SP4_NONE);
	assert_int_equal(e1.so_major_id.len, strlen("droce-nfsd"));
	/* case 4: again while unconfirmed: the record is replaced (a new client id) */
	assert_int_equal(n4f_exchange_id("client-A", "verf0001", 0, &e2), NFS4_OK);
	assert_true(e2.clientid != e1.clientid);
	assert_int_equal(n4f_create_session(e1.clientid, 1, NULL), NFS4ERR_STALE_CLIENTID);
	assert_int_equal(n4f_create_session(e2.clientid, 1, &c), NFS4_OK);
	/* case 2: confirmed, same verifier and principal: the same record, CONFIRMED_R */
	assert_int_equal(n4f_exchange_id("client-A", "verf0001", 0, &e3), NFS4_OK);
	assert_true(e3.clientid == e2.clientid);
	assert_true(e3.flags & EXCHGID4_FLAG_CONFIRMED_R);
	assert_int_equal(e3.sequenceid, 2);
	/* case 6: an update of the confirmed record; 7: an update of nothing; NOT_SAME, PERM */
	assert_int_equal(
		n4f_exchange_id("client-A", "verf0001", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &e3),
		NFS4_OK);
	assert_true(e3.clientid == e2.clientid);
	assert_int_equal(
		n4f_exchange_id("client-Z", "verf0001", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, NULL),
		NFS4ERR_NOENT);
	assert_int_equal(
		n4f_exchange_id("client-A", "verf0002", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, NULL),
		NFS4ERR_NOT_SAME);
	n4f_ctx.cred.uid = 42;
	assert_int_equal(
		n4f_exchange_id("client-A", "verf0001", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, NULL),
		NFS4ERR_PERM);
	/* case 3: another principal while the record has a session: CLID_INUSE */
	assert_int_equal(n4f_exchange_id("client-A", "verf0001", 0, NULL), NFS4ERR_CLID_INUSE);
	n4f_ctx.cred.uid = 0;
	/* case 5: a new verifier (the client restarted): a new unconfirmed record; the old
	 * one lives until the new one is confirmed */
	assert_int_equal(n4f_exchange_id("client-A", "verf0002", 0, &e3), NFS4_OK);
	assert_true(e3.clientid != e2.clientid);
	assert_false(e3.flags & EXCHGID4_FLAG_CONFIRMED_R);
	assert_non_null(nfs4_client_find(nfs4_server_state(n4f_srv), e2.clientid));
	assert_int_equal(n4f_create_session(e3.clientid, e3.sequenceid, NULL), NFS4_OK);
	assert_null(nfs4_client_find(nfs4_server_state(n4f_srv), e2.clientid));
	assert_int_equal(n4f_create_session(e2.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);
	/* flags a client may not send, and state protection AUTH_SYS cannot give */
	assert_int_equal(n4f_exchange_id("client-B", "verf0001", EXCHGID4_FLAG_CONFIRMED_R, NULL),
			 NFS4ERR_INVAL);
	{
		union nfs4_op_args a = {0};
		struct n4f_reply r;
		struct n4f_cb b;

		memcpy(a.exid.verifier, "verf0001", 8);
		a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)"client-C", 8};
		a.exid.sp_how = SP4_MACH_CRED;
		n4f_start(&b, 1, "");
		n4f_op(&b, NFS4_OP_EXCHANGE_ID, &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_INVAL);
	}
}

static void test_create_session(void **state)
{
	struct nfs4_create_session_res c1, c2;
	struct nfs4_exchange_id_res e;
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_cb b;

	(void)state;
	assert_int_equal(n4f_create_session(0x1234, 1, NULL), NFS4ERR_STALE_CLIENTID);
	assert_int_equal(n4f_exchange_id("cs", "verf0001", 0, &e), NFS4_OK);
	/* unconfirmed: only the next sequence id; nothing to replay yet */
	assert_int_equal(n4f_create_session(e.clientid, 0, NULL), NFS4ERR_SEQ_MISORDERED);
	assert_int_equal(n4f_create_session(e.clientid, 3, NULL), NFS4ERR_SEQ_MISORDERED);
	assert_int_equal(n4f_create_session(e.clientid, 1, &c1), NFS4_OK);
	assert_int_equal(c1.sequence, 1);
	/* CREATE_SESSION4_FLAG_CONN_BACK_CHAN asked, no backchannel given */
	assert_int_equal(c1.flags, 0);
	/* the retry: the same session, not a second one */
	assert_int_equal(n4f_create_session(e.clientid, 1, &c2), NFS4_OK);
	assert_memory_equal(c1.sessionid, c2.sessionid, NFS4_SESSIONID_SIZE);
	assert_int_equal(nfs4_client_find(nfs4_server_state(n4f_srv), e.clientid)->nsessions, 1);
	assert_int_equal(n4f_create_session(e.clientid, 3, NULL), NFS4ERR_SEQ_MISORDERED);
	assert_int_equal(n4f_create_session(e.clientid, 2, &c2), NFS4_OK);
	assert_memory_not_equal(c1.sessionid, c2.sessionid, NFS4_SESSIONID_SIZE);

	/* negotiation: everything asked beyond the server's limits comes down to them */
	a.csess.clientid = e.clientid;
	a.csess.sequence = 3;
	a.csess.fore =
		(struct nfs4_chan_attrs){512, 64u << 20, 64u << 20, 1u << 20, 1000, 1000, true, 4};
	n4f_default_attrs(&a.csess.back);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	c1 = r.r[0].u.csess;
	assert_int_equal(c1.fore.headerpadsize, 0);
	assert_int_equal(c1.fore.maxrequestsize, n4f_conf.state.max_req);
	assert_int_equal(c1.fore.maxresponsesize, n4f_conf.state.max_resp);
	assert_int_equal(c1.fore.maxresponsesize_cached, n4f_conf.state.max_resp_cached);
	assert_int_equal(c1.fore.maxoperations, n4f_conf.state.max_ops);
	assert_int_equal(c1.fore.maxrequests, n4f_conf.state.slots);
	assert_false(c1.fore.has_rdma_ird);
	/* ... and what is asked below them is kept */
	a.csess.sequence = 4;
	a.csess.fore = (struct nfs4_chan_attrs){0, 4096, 8192, 1024, 4, 2, false, 0};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	c1 = r.r[0].u.csess;
	assert_int_equal(c1.fore.maxrequestsize, 4096);
	assert_int_equal(c1.fore.maxresponsesize, 8192);
	assert_int_equal(c1.fore.maxresponsesize_cached, 1024);
	assert_int_equal(c1.fore.maxoperations, 4);
	assert_int_equal(c1.fore.maxrequests, 2);
	/* too small to carry a SEQUENCE: TOOSMALL, and the sequence does not advance */
	a.csess.sequence = 5;
	a.csess.fore.maxrequestsize = 20;
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_TOOSMALL);
	/* a back channel that could carry no call: TOOSMALL too (pynfs CSESS29), though no
	 * backchannel is granted */
	a.csess.fore.maxrequestsize = 4096;
	a.csess.back.maxrequestsize = 10;
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_TOOSMALL);
	n4f_default_attrs(&a.csess.back);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
}

static void test_lease_and_destroy(void **state)
{
	struct nfs4_exchange_id_res e;
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;

	(void)state;
	n4f_new_session("lease", &s);
	/* SEQUENCE renews: three half-leases with a SEQUENCE between them */
	for (int i = 0; i < 3; i++) {
		n4f_now_ns += 10ull * 1000000000ull;
		n4f_session(&b, &s);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
	}
	/* RECLAIM_COMPLETE once per client */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_COMPLETE_ALREADY);
	/* past the lease: the session is gone, and so is the client */
	n4f_now_ns += 21ull * 1000000000ull;
	n4f_session(&b, &s);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADSESSION);
	assert_int_equal(n4f_create_session(s.clientid, 2, NULL), NFS4ERR_STALE_CLIENTID);

	/* DESTROY_CLIENTID while a session exists: CLIENTID_BUSY; DESTROY_SESSION, then it */
	n4f_new_session("destroy", &s);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = s.clientid});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_CLIENTID_BUSY);
	/* destroying the compound's own session must be its last operation */
	n4f_session(&b, &s);
	{
		union nfs4_op_args a;

		memcpy(a.sessionid, s.id, NFS4_SESSIONID_SIZE);
		n4f_op(&b, NFS4_OP_DESTROY_SESSION, &a);
		n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_NOT_ONLY_OP);
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_DESTROY_SESSION, &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
		n4f_start(&b, 1, "");
		n4f_op(&b, NFS4_OP_DESTROY_SESSION, &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_BADSESSION);
	}
	n4f_session(&b, &s);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADSESSION);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = s.clientid});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_STALE_CLIENTID);
	/* an unconfirmed record expires too */
	assert_int_equal(n4f_exchange_id("unconf", "verf0001", 0, &e), NFS4_OK);
	n4f_now_ns += 21ull * 1000000000ull;
	assert_int_equal(n4f_create_session(e.clientid, 1, NULL), NFS4ERR_STALE_CLIENTID);
}

/* ---- the namespace ---- */

/* attributes asked in the tests, in bit order */
static const uint32_t want_bits[] = {NFS4_A_TYPE,	 NFS4_A_CHANGE,
				     NFS4_A_SIZE,	 NFS4_A_FSID,
				     NFS4_A_FILEID,	 NFS4_A_MODE,
				     NFS4_A_NUMLINKS,	 NFS4_A_OWNER,
				     NFS4_A_OWNER_GROUP, NFS4_A_SPACE_USED,
				     NFS4_A_TIME_ACCESS, NFS4_A_TIME_METADATA,
				     NFS4_A_TIME_MODIFY, NFS4_A_MOUNTED_ON_FILEID};

struct vals {
	uint32_t type, mode, nlink;
	uint64_t change, size, fsid_major, fsid_minor, fileid, used, mounted_on;
	char owner[16], group[16];
	struct nfs4_time atime, ctime, mtime;
};

static union nfs4_op_args want_args(void)
{
	union nfs4_op_args a = {0};

	for (size_t i = 0; i < sizeof(want_bits) / sizeof(want_bits[0]); i++)
		nfs4_bit_set(&a.getattr, want_bits[i]);
	return a;
}

static void decode_vals(const struct nfs4_getattr_res *g, struct vals *v)
{
	struct nfs4_ref o, gr;
	XDR x;

	for (size_t i = 0; i < sizeof(want_bits) / sizeof(want_bits[0]); i++)
		assert_true(nfs4_bit(&g->mask, want_bits[i]));
	memset(v, 0, sizeof(*v));
	xdrmem_create(&x, (char *)(uintptr_t)g->vals.p, g->vals.len, XDR_DECODE);
	assert_true(x_u32(&x, &v->type) && x_u64(&x, &v->change) && x_u64(&x, &v->size) &&
		    x_u64(&x, &v->fsid_major) && x_u64(&x, &v->fsid_minor) &&
		    x_u64(&x, &v->fileid) && x_u32(&x, &v->mode) && x_u32(&x, &v->nlink));
	assert_true(nfs4_xdr_ref(&x, &o, 15) && nfs4_xdr_ref(&x, &gr, 15));
	memcpy(v->owner, o.p, o.len);
	memcpy(v->group, gr.p, gr.len);
	assert_true(x_u64(&x, &v->used) && nfs4_xdr_time(&x, &v->atime) &&
		    nfs4_xdr_time(&x, &v->ctime) && nfs4_xdr_time(&x, &v->mtime) &&
		    x_u64(&x, &v->mounted_on));
	assert_int_equal(xdr_getpos(&x), g->vals.len);
	xdr_destroy(&x);
}

/* SEQUENCE, PUTROOTFH, LOOKUP each component of path, then GETFH and GETATTR */
static void walk(struct n4f_sess *s, const char *path, struct n4f_reply *r)
{
	union nfs4_op_args ga = want_args();
	char comp[NFS_PATH_MAX];
	const char *p = path;
	struct n4f_cb b;

	n4f_session(&b, s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	while (*p) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		e = e ? e : p + strlen(p);
		memcpy(comp, p, (size_t)(e - p));
		n4f_op(&b, NFS4_OP_LOOKUP,
		       &(union nfs4_op_args){.name = {(const uint8_t *)comp, (uint32_t)(e - p)}});
		/* the op is encoded now: comp may be reused */
		p = e;
	}
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_op(&b, NFS4_OP_GETATTR, &ga);
	n4f_run(&b, r);
}

static void test_namespace(void **state)
{
	union nfs4_op_args ga = want_args();
	struct nfs4_bitmap sup;
	struct n4f_reply r, r2;
	struct vals v, root;
	char path[300];
	struct stat st;
	struct n4f_sess s;
	struct nfs_fh v3;
	struct n4f_cb b;

	(void)state;
	n4f_new_session("ns", &s);
	/* the pseudo root: a directory of the pseudo file system */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_GETATTR, &ga);
	n4f_op(&b, NFS4_OP_GETATTR,
	       &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SUPPORTED_ATTRS}}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	decode_vals(&r.r[2].u.getattr, &root);
	assert_int_equal(root.type, NFS_DIR);
	assert_true(root.fsid_major == NFS4_PSEUDO_FSID_MAJOR);
	assert_int_equal(root.mode, 0555);
	assert_string_equal(root.owner, "0");
	{
		XDR x;

		xdrmem_create(&x, (char *)(uintptr_t)r.r[3].u.getattr.vals.p,
			      r.r[3].u.getattr.vals.len, XDR_DECODE);
		assert_true(nfs4_xdr_bitmap(&x, &sup));
		xdr_destroy(&x);
	}
	{
		static const uint32_t required[] = {0,	1,  2,	3,  4,	5,  6,	7,  8,
						    9,	10, 11, 19, 20, 27, 30, 31, 33,
						    35, 36, 37, 45, 47, 52, 53, 55, 75};

		for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
			assert_true(nfs4_bit(&sup, required[i]));
	}
	/* a file in the export, reached from the pseudo root */
	snprintf(path, sizeof(path), "%s/file", n4f_exp_a);
	walk(&s, path, &r);
	assert_int_equal(r.status, NFS4_OK);
	decode_vals(&r.r[r.n - 1].u.getattr, &v);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(v.type, NFS_REG);
	assert_true(v.size == (uint64_t)st.st_size);
	assert_int_equal(v.mode, st.st_mode & 07777);
	assert_int_equal(v.nlink, st.st_nlink);
	assert_true(v.fileid == st.st_ino);
	assert_true(v.mounted_on == st.st_ino);
	assert_true(v.used == (uint64_t)st.st_blocks * 512);
	assert_string_equal(v.owner, "1234");
	assert_string_equal(v.group, "5678");
	assert_true(v.mtime.sec == st.st_mtim.tv_sec && v.mtime.nsec == st.st_mtim.tv_nsec);
	assert_true(v.ctime.sec == st.st_ctim.tv_sec && v.ctime.nsec == st.st_ctim.tv_nsec);
	assert_true(v.atime.sec == st.st_atim.tv_sec && v.atime.nsec == st.st_atim.tv_nsec);
	assert_true(v.change ==
		    (uint64_t)st.st_ctim.tv_sec * 1000000000ull + (uint64_t)st.st_ctim.tv_nsec);
	assert_true(v.fsid_major != NFS4_PSEUDO_FSID_MAJOR);
	/* the same handle NFSv3 gives for it */
	assert_int_equal(nfs_fs_mount(&n4f_ctx, n4f_exp_a, &v3), NFS_OK);
	{
		struct nfs_attr oa, da;
		struct nfs_fh f3;
		bool dv;

		assert_int_equal(nfs_fs_lookup(&n4f_ctx, &v3, "file", 4, &f3, &oa, &dv, &da),
				 NFS_OK);
		assert_int_equal(r.r[r.n - 2].u.fh.len, f3.len);
		assert_memory_equal(r.r[r.n - 2].u.fh.p, f3.data, f3.len);
	}
	/* the export's root: mounted on its pseudo directory */
	walk(&s, n4f_exp_a, &r);
	assert_int_equal(r.status, NFS4_OK);
	decode_vals(&r.r[r.n - 1].u.getattr, &v);
	assert_int_equal(stat(n4f_exp_a, &st), 0);
	assert_true(v.fileid == st.st_ino);
	assert_true(v.mounted_on != st.st_ino);
	assert_int_equal(r.r[r.n - 2].u.fh.len, v3.len);
	assert_memory_equal(r.r[r.n - 2].u.fh.p, v3.data, v3.len);
	/* LOOKUPP out of the export: the pseudo directory "srv" */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {v3.data, v3.len}});
	n4f_op(&b, NFS4_OP_LOOKUPP, NULL);
	n4f_op(&b, NFS4_OP_GETATTR, &ga);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	decode_vals(&r.r[3].u.getattr, &v);
	assert_true(v.fsid_major == NFS4_PSEUDO_FSID_MAJOR);
	snprintf(path, sizeof(path), "%s/srv", n4f_base);
	walk(&s, path, &r2);
	assert_int_equal(r2.status, NFS4_OK);
	assert_int_equal(r2.r[r2.n - 2].u.fh.len, NFS4_PFH_LEN);
	assert_memory_equal(r2.r[r2.n - 2].u.fh.p, r.r[4].u.fh.p, NFS4_PFH_LEN);
	/* ... and on up to the root, which has no parent */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = r.r[4].u.fh});
	for (const char *q = path; *q; q++)
		if (*q == '/')
			n4f_op(&b, NFS4_OP_LOOKUPP, NULL);
	n4f_op(&b, NFS4_OP_GETATTR, &ga);
	n4f_op(&b, NFS4_OP_LOOKUPP, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOENT);
	decode_vals(&r.r[r.n - 2].u.getattr, &v);
	assert_true(v.fileid == root.fileid);
	/* names: missing, ".", "..", too long, with a slash; a file is not a directory */
	{
		static const struct {
			const char *name;
			uint32_t status;
		} names[] = {{"nothere", NFS4ERR_NOENT},
			     {".", NFS4ERR_BADNAME},
			     {"..", NFS4ERR_BADNAME},
			     {"a/b", NFS4ERR_BADNAME},
			     {"", NFS4ERR_INVAL}};

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			n4f_session(&b, &s);
			n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {v3.data, v3.len}});
			n4f_op(&b, NFS4_OP_LOOKUP,
			       &(union nfs4_op_args){.name = {(const uint8_t *)names[i].name,
							      (uint32_t)strlen(names[i].name)}});
			n4f_run(&b, &r);
			assert_int_equal(r.status, names[i].status);
		}
	}
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {v3.data, v3.len}});
	n4f_op(&b, NFS4_OP_LOOKUP, &(union nfs4_op_args){.name = {(const uint8_t *)"file", 4}});
	n4f_op(&b, NFS4_OP_SAVEFH, NULL);
	n4f_op(&b, NFS4_OP_LOOKUP, &(union nfs4_op_args){.name = {(const uint8_t *)"x", 1}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOTDIR);
	/* a forged handle, a stale pseudo handle */
	v3.data[v3.len - 1] ^= 1;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {v3.data, v3.len}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_BADHANDLE);
	v3.data[v3.len - 1] ^= 1;
	{
		uint8_t pfh[NFS4_PFH_LEN] = {0x80, 'p', '4', 0, 1, 2, 3, 4, 5, 6, 7, 8};

		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {pfh, sizeof(pfh)}});
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_STALE);
	}
	/* SAVEFH/RESTOREFH, ACCESS, SECINFO_NO_NAME (which consumes the handle) */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RESTOREFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_RESTOREFH);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	n4f_op(&b, NFS4_OP_SAVEFH, NULL);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {v3.data, v3.len}});
	n4f_op(&b, NFS4_OP_ACCESS, &(union nfs4_op_args){.access = ACCESS4_ALL | 0x100});
	n4f_op(&b, NFS4_OP_RESTOREFH, NULL);
	n4f_op(&b, NFS4_OP_ACCESS, &(union nfs4_op_args){.access = ACCESS4_ALL});
	n4f_op(&b, NFS4_OP_SECINFO_NO_NAME,
	       &(union nfs4_op_args){.secinfo_style = SECINFO_STYLE4_CURRENT_FH});
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_NOFILEHANDLE);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.r[4].u.access.supported, ACCESS4_ALL);
	/* root on an rw, no_root_squash export; the file is 0640: no execute, even for root */
	assert_int_equal(r.r[4].u.access.access, ACCESS4_ALL & ~ACCESS4_EXECUTE);
	assert_int_equal(r.r[6].u.access.access, ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_EXECUTE);
	assert_int_equal(r.r[7].u.secinfo.n, 1);
	assert_int_equal(r.r[7].u.secinfo.flavor[0], AUTH_SYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_header_rules, n4f_fresh),
		cmocka_unit_test_setup(test_op_rules, n4f_fresh),
		cmocka_unit_test_setup(test_sequence, n4f_fresh),
		cmocka_unit_test_setup(test_reply_too_big_to_cache, n4f_fresh),
		cmocka_unit_test_setup(test_exchange_id_cases, n4f_fresh),
		cmocka_unit_test_setup(test_create_session, n4f_fresh),
		cmocka_unit_test_setup(test_lease_and_destroy, n4f_fresh),
		cmocka_unit_test_setup(test_namespace, n4f_fresh),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, n4f_setup, n4f_teardown);
}
