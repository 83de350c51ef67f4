/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs4_open.c - the NFSv4.1 server's open state and file operations, without a network:
 * COMPOUNDs through nfs4_compound() (nfs4_fixture.h). OPEN's claims and creates (one compound
 * built by hand, byte for byte, per RFC 8881 §18.16.1, and its reply checked at its offsets),
 * share reservations, the stateid rules (special stateids, the current stateid, BAD, OLD and
 * STALE_STATEID with their counters), CLOSE, OPEN_DOWNGRADE, TEST_STATEID, FREE_STATEID; READ,
 * WRITE and COMMIT against NFSv3's verifier; READ's data placed for a write chunk (nfs4_io);
 * CREATE, REMOVE, RENAME, LINK, READDIR, READLINK, SETATTR, VERIFY, NVERIFY; LOCK, LOCKT and
 * LOCKU, with an NLM lock in the same manager conflicting; the v4.2 operations not served
 * NOTSUPP; and the
 * state of a client freed with it (lease expiry), nothing left in the table or the manager;
 * an unmount as Linux does it (CLOSE, FREE_STATEID, DESTROY_SESSION, DESTROY_CLIENTID).
 *
 * Needs root for the backend (open_by_handle_at): exits 77 (skipped) otherwise.
 */
#include <fcntl.h>
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

/* a fattr4 with mode alone: bitmap {0, 1 << (33 - 32)}, attrlist4 the mode */
static struct nfs4_fattr fattr_mode(uint8_t buf[4], uint32_t mode)
{
	struct nfs4_fattr f = {{2, {0, 1u << (NFS4_A_MODE - 32)}}, {buf, 4}};

	buf[0] = (uint8_t)(mode >> 24);
	buf[1] = (uint8_t)(mode >> 16);
	buf[2] = (uint8_t)(mode >> 8);
	buf[3] = (uint8_t)mode;
	return f;
}

#define NOCREATE (-1)

static union nfs4_op_args open_args(const char *owner, const char *name, uint32_t access,
				    uint32_t deny, int create, struct nfs4_fattr attrs)
{
	union nfs4_op_args a = {0};

	a.open.share_access = access;
	a.open.share_deny = deny;
	a.open.owner = (struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	a.open.opentype = create == NOCREATE ? OPEN4_NOCREATE : OPEN4_CREATE;
	a.open.createmode = create == NOCREATE ? 0 : (uint32_t)create;
	a.open.attrs = attrs;
	memcpy(a.open.verf, "exclverf", 8);
	a.open.claim = CLAIM_NULL;
	a.open.name = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
	return a;
}

/* SEQUENCE, PUTFH(export root), OPEN, GETFH: the stateid and the file's handle */
static uint32_t do_open(struct n4f_sess *s, const char *owner, const char *name, uint32_t access,
			uint32_t deny, int create, struct nfs4_stateid *sid, struct nfs_fh *fh)
{
	struct nfs_fh root = n4f_root_fh();
	uint8_t mb[4];
	union nfs4_op_args a = open_args(owner, name, access, deny, create, fattr_mode(mb, 0600));
	struct n4f_reply r;

	if (n4f_open_getfh(s, 1, &root, &a, &r) == NFS4_OK) {
		assert_int_equal(r.n, 4);
		assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_NONE);
		assert_int_equal(r.r[2].u.open.rflags, OPEN4_RESULT_LOCKTYPE_POSIX);
		if (sid)
			*sid = r.r[2].u.open.sid;
		if (fh)
			n4f_fh_of(&r, 3, fh);
	}
	return r.status;
}

static uint32_t write_at(struct n4f_sess *s, const struct nfs_fh *fh,
			 const struct nfs4_stateid *sid, uint64_t off, const char *data,
			 uint32_t stable, struct n4f_reply *out)
{
	union nfs4_op_args a = {0};

	a.write.sid = *sid;
	a.write.offset = off;
	a.write.stable = stable;
	a.write.data = (struct nfs4_ref){(const uint8_t *)data, (uint32_t)strlen(data)};
	return n4f_fh_op(s, fh, NFS4_OP_WRITE, &a, out);
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

static uint32_t close_sid(struct n4f_sess *s, const struct nfs_fh *fh,
			  const struct nfs4_stateid *sid)
{
	union nfs4_op_args a = {0};

	a.close.sid = *sid;
	return n4f_fh_op(s, fh, NFS4_OP_CLOSE, &a, NULL);
}

static const struct nfs4_stateid anon_sid;

/* ---- OPEN ---- */

/*
 * One OPEN compound built by hand (RFC 8881 §16.2.3 and §18.16.1), as Linux 6.1 sends an
 * open(O_CREAT) of "bytes" with mode 0644: SEQUENCE, PUTFH, OPEN (share BOTH, deny NONE,
 * UNCHECKED4 with mode, CLAIM_NULL), GETFH; its reply checked word by word.
 */
static void test_open_bytes(void **state)
{
	static const uint8_t open_op[] = {
		0x00, 0x00, 0x00, 0x12,				/* OPEN */
		0x00, 0x00, 0x00, 0x00,				/* seqid (4.1: 0) */
		0x00, 0x00, 0x00, 0x03,				/* share_access BOTH */
		0x00, 0x00, 0x00, 0x00,				/* share_deny NONE */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* clientid (the session's) */
		0x00, 0x00, 0x00, 0x08, 'o',  'w',  'n',  'e',	/* owner<> */
		'r',  '-',  'b',  'y',				/* */
		0x00, 0x00, 0x00, 0x01,				/* OPEN4_CREATE */
		0x00, 0x00, 0x00, 0x00,				/* UNCHECKED4 */
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, /* bitmap4: 2 words, 0 */
		0x00, 0x00, 0x00, 0x02,				/* word 1: MODE (33) */
		0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0xa4, /* attrlist4: 0644 */
		0x00, 0x00, 0x00, 0x00,				/* CLAIM_NULL */
		0x00, 0x00, 0x00, 0x05, 'b',  'y',  't',  'e',	/* file */
		's',  0x00, 0x00, 0x00,				/* */
		0x00, 0x00, 0x00, 0x0a,				/* GETFH */
	};
	struct nfs_fh root = n4f_root_fh();
	const uint8_t *rep, *p;
	uint8_t call[512];
	struct n4f_sess s;
	struct n4f_cb b;
	struct stat st;
	char path[300];
	uint32_t len, n, off;

	(void)state;
	n4f_open_session("bytes", &s);
	n4f_session(&b, &s);
	n4f_putfh(&b, &root);
	len = xdr_getpos(&b.x);
	memcpy(call, b.buf, len);
	memcpy(call + len, open_op, sizeof(open_op));
	len += sizeof(open_op);
	call[11] = 4; /* numops: SEQUENCE, PUTFH, OPEN, GETFH */
	xdr_destroy(&b.x);
	n = nfs4_compound(n4f_srv, &n4f_ctx, call, len, &rep);
	/* status 0, empty tag, 4 results; SEQUENCE's is 8 + 16 + 5 * 4 bytes */
	assert_true(n > 12);
	assert_memory_equal(rep, "\0\0\0\0\0\0\0\0\0\0\0\4", 12);
	off = 12 + 8 + 16 + 20;
	assert_memory_equal(rep + off, "\0\0\0\x16\0\0\0\0", 8); /* PUTFH OK */
	off += 8;
	p = rep + off;
	assert_memory_equal(p, "\0\0\0\x12\0\0\0\0", 8); /* OPEN OK */
	assert_memory_equal(p + 8, "\0\0\0\1", 4);	 /* stateid seqid 1 */
	off += 8 + 16 + 4 + 8 + 8;			 /* stateid, cinfo */
	assert_memory_equal(rep + off, "\0\0\0\4", 4);	 /* rflags: LOCKTYPE_POSIX */
	assert_memory_equal(rep + off + 4, "\0\0\0\2\0\0\0\0\0\0\0\2", 12); /* attrset: mode */
	assert_memory_equal(rep + off + 16, "\0\0\0\0", 4);		    /* OPEN_DELEGATE_NONE */
	off += 20;
	assert_memory_equal(rep + off, "\0\0\0\x0a\0\0\0\0", 8); /* GETFH OK */
	assert_int_equal(n, off + 8 + 4 + root.len);
	n4f_path_of(path, sizeof(path), "bytes");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_true(S_ISREG(st.st_mode));
}

static void test_open_create_close(void **state)
{
	struct nfs4_stateid sid, sid2;
	struct nfs_fh fh, root = n4f_root_fh();
	struct nfs4_stats st0, st1;
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;
	struct stat st;
	char path[300];

	(void)state;
	nfs4_server_stats(n4f_srv, &st0);
	n4f_open_session("occ", &s);
	assert_int_equal(
		do_open(&s, "o1", "new", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4, &sid, &fh),
		NFS4_OK);
	assert_int_equal(sid.seqid, 1);
	n4f_path_of(path, sizeof(path), "new");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* WRITE with the open's stateid, READ it back with the current stateid (seqid 1,
	 * other 0) right after an OPEN of the same compound (RFC 8881 §16.2.3.1.2) */
	assert_int_equal(write_at(&s, &fh, &sid, 0, "hello v4", NFS_FILE_SYNC, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.write.count, 8);
	assert_int_equal(r.r[2].u.write.committed, NFS_FILE_SYNC);
	{
		union nfs4_op_args o = open_args("o1", "new", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE,
						 (struct nfs4_fattr){0});
		union nfs4_op_args rd = {.read = {{1, {0}}, 0, 100}};

		n4f_session(&b, &s);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_OPEN, &o);
		n4f_op(&b, NFS4_OP_READ, &rd);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
		/* the same open-owner on the same file: one stateid, its seqid bumped */
		sid2 = r.r[2].u.open.sid;
		assert_memory_equal(sid2.other, sid.other, 12);
		assert_int_equal(sid2.seqid, 2);
		assert_true(r.r[3].u.read.eof);
		assert_int_equal(r.r[3].u.read.data.len, 8);
		assert_memory_equal(r.r[3].u.read.data.p, "hello v4", 8);
	}
	/* the older seqid is OLD_STATEID now; seqid 0 means "the latest" */
	assert_int_equal(read_at(&s, &fh, &sid, 0, 10, NULL), NFS4ERR_OLD_STATEID);
	sid.seqid = 0;
	assert_int_equal(read_at(&s, &fh, &sid, 0, 10, NULL), NFS4_OK);
	/* CLOSE: the invalid stateid comes back; the open's stateid is BAD_STATEID after */
	n4f_session(&b, &s);
	n4f_putfh(&b, &fh);
	n4f_op(&b, NFS4_OP_CLOSE, &(union nfs4_op_args){.close = {0, sid2}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[2].u.sid.seqid, UINT32_MAX);
	assert_int_equal(read_at(&s, &fh, &sid2, 0, 10, NULL), NFS4ERR_BAD_STATEID);
	assert_int_equal(close_sid(&s, &fh, &sid2), NFS4ERR_BAD_STATEID);
	nfs4_server_stats(n4f_srv, &st1);
	assert_true(st1.opens - st0.opens == 2);
	assert_true(st1.closes - st0.closes == 1);
	assert_true(st1.bad_stateid - st0.bad_stateid == 2);
	assert_true(st1.old_stateid - st0.old_stateid == 1);
	/* EXCLUSIVE4_1 twice with the same verifier: the same file (a retry) */
	assert_int_equal(
		do_open(&s, "o1", "excl", OPEN4_SHARE_ACCESS_WRITE, 0, EXCLUSIVE4_1, &sid, &fh),
		NFS4_OK);
	assert_int_equal(
		do_open(&s, "o2", "excl", OPEN4_SHARE_ACCESS_WRITE, 0, EXCLUSIVE4_1, &sid2, NULL),
		NFS4_OK);
	assert_memory_not_equal(sid.other, sid2.other, 12);
	/* as Linux sends an OPEN: sa_cachethis, then GETFH, ACCESS and GETATTR of every
	 * attribute; the reply fits the slot's cache (2 KiB: REP_TOO_BIG_TO_CACHE otherwise) */
	{
		union nfs4_op_args o = open_args("o3", "cached", OPEN4_SHARE_ACCESS_BOTH, 0,
						 UNCHECKED4, (struct nfs4_fattr){0});

		n4f_seq(&b, &s, 1, s.seq[1]++, true);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_OPEN, &o);
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		n4f_op(&b, NFS4_OP_ACCESS, &(union nfs4_op_args){.access = ACCESS4_ALL});
		n4f_op(&b, NFS4_OP_GETATTR,
		       &(union nfs4_op_args){.getattr = {3, {0xffffffff, ALL_READABLE_W1, 0xff}}});
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_true(r.len <= 2048);
	}
	/* GUARDED4 on a name that exists */
	assert_int_equal(
		do_open(&s, "o1", "excl", OPEN4_SHARE_ACCESS_WRITE, 0, GUARDED4, NULL, NULL),
		NFS4ERR_EXIST);
}

static void test_open_errors(void **state)
{
	struct nfs_fh root = n4f_root_fh(), fh;
	union nfs4_op_args a;
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;

	(void)state;
	n4f_open_session("oerr", &s);
	assert_int_equal(
		do_open(&s, "o", "nothere", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, NULL, NULL),
		NFS4ERR_NOENT);
	assert_int_equal(do_open(&s, "o", "dir", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, NULL, NULL),
			 NFS4ERR_ISDIR);
	assert_int_equal(do_open(&s, "o", "file", 0, 0, NOCREATE, NULL, NULL), NFS4ERR_INVAL);
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_READ, 4, NOCREATE, NULL, NULL),
			 NFS4ERR_INVAL);
	assert_int_equal(do_open(&s, "o", "..", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, NULL, NULL),
			 NFS4ERR_BADNAME);
	/* another user (file is 0640, 1234:5678): no open for reading, not even by an
	 * UNCHECKED4 create of the existing name */
	n4f_ctx.cred.uid = 4242;
	n4f_ctx.cred.gid = 4242;
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, NULL, NULL),
			 NFS4ERR_ACCESS);
	assert_int_equal(
		do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4, NULL, NULL),
		NFS4ERR_ACCESS);
	n4f_ctx.cred.uid = 0;
	n4f_ctx.cred.gid = 0;
	/* a client that has not said RECLAIM_COMPLETE makes no new state (RFC 8881 §18.51.3) */
	{
		struct nfs4_stateid osid;
		struct n4f_sess early;

		n4f_new_session("early", &early);
		assert_int_equal(do_open(&early, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE,
					 NULL, NULL),
				 NFS4ERR_GRACE);
		n4f_reclaim_complete(&early);
		assert_int_equal(do_open(&early, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE,
					 &osid, NULL),
				 NFS4_OK);
	}
	/* CLAIM_PREVIOUS: no grace period to reclaim in (test_nfs4_grace.c has one); the
	 * claims of a delegation held before a client's restart: none survives one */
	a = open_args("o", "", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, (struct nfs4_fattr){0});
	a.open.claim = CLAIM_PREVIOUS;
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_NO_GRACE);
	a.open.claim = CLAIM_DELEG_PREV_FH;
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_NOTSUPP);
	/* no delegation, and the reason when the client says what it wants */
	a = open_args("o", "file", OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, 0,
		      NOCREATE, (struct nfs4_fattr){0});
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(r.r[2].u.open.why_no_deleg, WND4_NOT_WANTED);
	a.open.share_access = OPEN4_SHARE_ACCESS_READ | 0x0100; /* WANT_READ_DELEG */
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(r.r[2].u.open.why_no_deleg, WND4_RESOURCE);
	/* CLAIM_FH: the current file itself */
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, NULL, &fh),
			 NFS4_OK);
	a.open.claim = CLAIM_FH;
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_OPEN, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.open.sid.seqid, 4); /* the fourth open of o on file */
	/* the pseudo root: read-only */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	a = open_args("o", "x", OPEN4_SHARE_ACCESS_READ, 0, UNCHECKED4, (struct nfs4_fattr){0});
	n4f_op(&b, NFS4_OP_OPEN, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_ROFS);
	/* a mode that does not decode as its mask says: BADXDR; a read-only attribute: INVAL */
	{
		uint8_t two[8] = {0};

		a = open_args("o", "y", OPEN4_SHARE_ACCESS_READ, 0, UNCHECKED4,
			      (struct nfs4_fattr){{2, {0, 2}}, {two, 8}});
		assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_BADXDR);
		a.open.attrs = (struct nfs4_fattr){{1, {1u << NFS4_A_TYPE}}, {two, 4}};
		assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_INVAL);
		a.open.attrs = (struct nfs4_fattr){{1, {1u << 12}}, {two, 4}}; /* acl */
		assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_ATTRNOTSUPP);
		/* EXCLUSIVE4_1 with a size: not one of suppattr_exclcreat's */
		a.open.createmode = EXCLUSIVE4_1;
		a.open.attrs = (struct nfs4_fattr){{1, {1u << NFS4_A_SIZE}}, {two, 8}};
		assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_OPEN, &a, NULL), NFS4ERR_INVAL);
	}
}

static void test_share_reservations(void **state)
{
	struct nfs4_stateid a1, b1, b2;
	struct nfs_fh fh;
	struct n4f_sess A, B;
	struct n4f_reply r;
	union nfs4_op_args d = {0};

	(void)state;
	n4f_open_session("shareA", &A);
	n4f_open_session("shareB", &B);
	/* A reads and denies writers */
	assert_int_equal(do_open(&A, "oa", "file", OPEN4_SHARE_ACCESS_BOTH,
				 OPEN4_SHARE_ACCESS_WRITE, NOCREATE, &a1, &fh),
			 NFS4_OK);
	assert_int_equal(
		do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_WRITE, 0, NOCREATE, NULL, NULL),
		NFS4ERR_SHARE_DENIED);
	/* B may read, but not deny A's reading */
	assert_int_equal(do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_ACCESS_READ,
				 NOCREATE, NULL, NULL),
			 NFS4ERR_SHARE_DENIED);
	assert_int_equal(do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, &b1, NULL),
			 NFS4_OK);
	/* I/O without an open: reading is fine, writing meets the deny (LOCKED); B's read-only
	 * open cannot write (OPENMODE) */
	assert_int_equal(read_at(&B, &fh, &anon_sid, 0, 5, NULL), NFS4_OK);
	assert_int_equal(write_at(&B, &fh, &anon_sid, 0, "x", NFS_UNSTABLE, NULL), NFS4ERR_LOCKED);
	assert_int_equal(write_at(&B, &fh, &b1, 0, "x", NFS_UNSTABLE, NULL), NFS4ERR_OPENMODE);
	/* A's stateid is not B's to use */
	assert_int_equal(read_at(&B, &fh, &a1, 0, 5, NULL), NFS4ERR_BAD_STATEID);
	/* OPEN_DOWNGRADE: more than A has is INVAL; down to read / deny none lets B write */
	d.downgrade =
		(struct nfs4_downgrade_args){a1, 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_BOTH};
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_OPEN_DOWNGRADE, &d, NULL), NFS4ERR_INVAL);
	d.downgrade.share_deny = 0;
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_OPEN_DOWNGRADE, &d, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.sid.seqid, 2);
	assert_int_equal(
		do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_WRITE, 0, NOCREATE, &b2, NULL),
		NFS4_OK);
	assert_memory_equal(b1.other, b2.other, 12); /* the upgrade of B's open */
	assert_int_equal(write_at(&B, &fh, &b2, 0, "h", NFS_UNSTABLE, NULL), NFS4_OK);
	/* A (now read-only) cannot write with its stateid */
	a1.seqid = 0;
	assert_int_equal(write_at(&A, &fh, &a1, 0, "h", NFS_UNSTABLE, NULL), NFS4ERR_OPENMODE);
}

/* ---- stateids ---- */

static void test_stateid_rules(void **state)
{
	struct nfs4_stateid sid, bad;
	struct nfs4_stats st0, st1;
	struct nfs_fh fh;
	union nfs4_op_args a = {0};
	uint8_t raw[5 * 16];
	struct n4f_reply r;
	struct n4f_sess s;

	(void)state;
	n4f_open_session("sids", &s);
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, &sid, &fh),
			 NFS4_OK);
	nfs4_server_stats(n4f_srv, &st0);
	/* the READ bypass stateid (all ones) reads; the current one without one is BAD */
	memset(&bad, 0xff, sizeof(bad));
	assert_int_equal(read_at(&s, &fh, &bad, 0, 5, NULL), NFS4_OK);
	assert_int_equal(read_at(&s, &fh, &(struct nfs4_stateid){1, {0}}, 0, 5, NULL),
			 NFS4ERR_BAD_STATEID);
	/* a seqid ahead: BAD; another boot epoch: STALE; an unknown serial: BAD */
	bad = sid;
	bad.seqid = 7;
	assert_int_equal(read_at(&s, &fh, &bad, 0, 5, NULL), NFS4ERR_BAD_STATEID);
	bad = sid;
	bad.other[0] ^= 0x5a;
	assert_int_equal(read_at(&s, &fh, &bad, 0, 5, NULL), NFS4ERR_STALE_STATEID);
	bad = sid;
	bad.other[11] ^= 0x5a;
	assert_int_equal(read_at(&s, &fh, &bad, 0, 5, NULL), NFS4ERR_BAD_STATEID);
	/* the stateid of another file */
	{
		struct nfs_fh root = n4f_root_fh();

		assert_int_equal(read_at(&s, &root, &sid, 0, 5, NULL), NFS4ERR_BAD_STATEID);
	}
	nfs4_server_stats(n4f_srv, &st1);
	assert_true(st1.bad_stateid - st0.bad_stateid == 4);
	assert_true(st1.stale_stateid - st0.stale_stateid == 1);
	/* the check is a state machine whose every state is counted */
	{
		struct nfs4_otab_stats ot;

		nfs4_otab_stats(n4f_srv->ot, &ot);
		assert_true(ot.sid_state[NFS4_SID_ERR_STALE] == 1);
		assert_true(ot.sid_state[NFS4_SID_CHECK_FILE] >= 1);
		assert_true(ot.sid_state[NFS4_SID_START] >=
			    ot.sid_state[NFS4_SID_VALID] + ot.sid_state[NFS4_SID_ERR_BAD]);
		assert_string_equal(nfs4_sid_state_name(NFS4_SID_ERR_OLD), "ERR_OLD");
	}
	/* TEST_STATEID: each one's status, in order */
	{
		struct nfs4_stateid t[5] = {sid, sid, sid, {0}, {1, {0}}};

		t[1].seqid = 9;
		t[2].other[0] ^= 1;
		for (int i = 0; i < 5; i++) {
			uint8_t *p = raw + 16 * i;

			p[0] = (uint8_t)(t[i].seqid >> 24);
			p[1] = (uint8_t)(t[i].seqid >> 16);
			p[2] = (uint8_t)(t[i].seqid >> 8);
			p[3] = (uint8_t)t[i].seqid;
			memcpy(p + 4, t[i].other, 12);
		}
		a.test_stateid = (struct nfs4_test_stateid_args){5, {raw, sizeof(raw)}};
		assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_TEST_STATEID, &a, &r), NFS4_OK);
		assert_int_equal(r.r[2].u.test_stateid.n, 5);
		assert_int_equal(r.r[2].u.test_stateid.status[0], NFS4_OK);
		assert_int_equal(r.r[2].u.test_stateid.status[1], NFS4ERR_BAD_STATEID);
		assert_int_equal(r.r[2].u.test_stateid.status[2], NFS4ERR_STALE_STATEID);
		assert_int_equal(r.r[2].u.test_stateid.status[3], NFS4ERR_BAD_STATEID);
		assert_int_equal(r.r[2].u.test_stateid.status[4], NFS4ERR_BAD_STATEID);
	}
	/* the current stateid: PUTFH clears it (even of the same file); SAVEFH and RESTOREFH
	 * carry it with the handle */
	{
		union nfs4_op_args o = open_args("o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE,
						 (struct nfs4_fattr){0});
		union nfs4_op_args rd = {.read = {{1, {0}}, 0, 4}};
		struct nfs_fh root = n4f_root_fh();
		struct n4f_cb b;

		n4f_session(&b, &s);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_OPEN, &o);
		n4f_putfh(&b, &fh);
		n4f_op(&b, NFS4_OP_READ, &rd);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_BAD_STATEID);
		assert_int_equal(r.n, 5);
		n4f_session(&b, &s);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_OPEN, &o);
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_RESTOREFH, NULL);
		n4f_op(&b, NFS4_OP_READ, &rd);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
		sid = r.r[2].u.open.sid;
	}
	/* FREE_STATEID of an open: LOCKS_HELD (CLOSE frees it) */
	a.sid = sid;
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_FREE_STATEID, &a, NULL), NFS4ERR_LOCKS_HELD);
	assert_int_equal(close_sid(&s, &fh, &sid), NFS4_OK);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_FREE_STATEID, &a, NULL), NFS4ERR_BAD_STATEID);
}

/* ---- I/O ---- */

static void test_read_write_commit(void **state)
{
	uint8_t verf[8], wverf[8];
	struct nfs4_stateid sid;
	struct n4f_reply r;
	struct n4f_sess s;
	struct nfs_fh fh;
	union nfs4_op_args a = {0};

	(void)state;
	n4f_open_session("rwc", &s);
	assert_int_equal(do_open(&s, "o", "rw", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4, &sid, &fh),
			 NFS4_OK);
	assert_int_equal(write_at(&s, &fh, &sid, 4, "data", NFS_UNSTABLE, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.write.count, 4);
	memcpy(wverf, r.r[2].u.write.verf, 8);
	/* the verifier is NFSv3's: the same server, the same restart story */
	nfs_fs_write_verf(n4f_fs, verf);
	assert_memory_equal(wverf, verf, 8);
	a.commit = (struct nfs4_commit_args){0, 0};
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_COMMIT, &a, &r), NFS4_OK);
	assert_memory_equal(r.r[2].u.verf, verf, 8);
	/* a hole then the data; reading past the end: eof, nothing */
	assert_int_equal(read_at(&s, &fh, &sid, 0, 100, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.read.data.len, 8);
	assert_memory_equal(r.r[2].u.read.data.p, "\0\0\0\0data", 8);
	assert_true(r.r[2].u.read.eof);
	assert_int_equal(read_at(&s, &fh, &sid, 100, 10, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.read.data.len, 0);
	assert_true(r.r[2].u.read.eof);
	/* READ of a directory */
	{
		struct nfs_fh root = n4f_root_fh();

		assert_int_equal(read_at(&s, &root, &anon_sid, 0, 10, NULL), NFS4ERR_ISDIR);
	}
}

/* READ's data for a write chunk (RFC 8267 §4.1): placed in the transport's sink when READ is
 * the compound's last operation, inline otherwise; READLINK's text is the reply's tail */
static void test_read_ddp(void **state)
{
	static uint8_t sink[4096];
	struct nfs4_io io = {.sink = sink, .sink_len = sizeof(sink)};
	struct nfs4_stateid sid;
	const uint8_t *rep;
	struct n4f_reply r;
	struct n4f_sess s;
	struct nfs_fh fh;
	struct n4f_cb b;
	uint32_t n, len;

	(void)state;
	n4f_open_session("ddp", &s);
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, &sid, &fh),
			 NFS4_OK);
	memset(sink, 0, sizeof(sink));
	n4f_session(&b, &s);
	n4f_putfh(&b, &fh);
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 0, 100}});
	len = n4f_end(&b, 0);
	n = nfs4_compound_io(n4f_srv, &n4f_ctx, b.buf, len, &io, &rep);
	assert_int_equal(io.ddp_len, 12);
	assert_true(io.placed);
	assert_memory_equal(sink, "hello, nfs4\n", 12);
	/* the reply ends with READ's eof and the opaque's length: no data */
	assert_memory_equal(rep + n - 16, "\0\0\0\x19\0\0\0\0\0\0\0\1\0\0\0\x0c", 16);
	/* a retry of it is not answered from the cache (the data is not in it) */
	n = nfs4_compound_io(n4f_srv, &n4f_ctx, b.buf, len, &io, &rep);
	n4f_parse(rep, n, &r);
	assert_int_equal(r.status, NFS4ERR_RETRY_UNCACHED_REP);
	/* READ then GETATTR: the data goes inline, nothing for the write chunk */
	n4f_session(&b, &s);
	n4f_putfh(&b, &fh);
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 0, 100}});
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	n = nfs4_compound_io(n4f_srv, &n4f_ctx, b.buf, n4f_end(&b, 0), &io, &rep);
	n4f_parse(rep, n, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(io.ddp_len, 0);
	assert_memory_equal(r.r[2].u.read.data.p, "hello, nfs4\n", 12);
	/* a sink too small: inline, but still the tail for the write chunk (not placed) */
	io.sink_len = 4;
	n4f_session(&b, &s);
	n4f_putfh(&b, &fh);
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 0, 100}});
	n = nfs4_compound_io(n4f_srv, &n4f_ctx, b.buf, n4f_end(&b, 0), &io, &rep);
	assert_int_equal(io.ddp_len, 12);
	assert_false(io.placed);
	assert_memory_equal(rep + n - 12, "hello, nfs4\n", 12);
}

/* ---- directories ---- */

struct dent {
	char name[64];
	uint64_t cookie;
	uint32_t type;
};

/* the entries of a READDIR reply (type asked for alone) */
static uint32_t entries(const struct nfs4_readdir_res *d, struct dent *out, uint32_t cap)
{
	uint32_t n = 0;
	XDR x;

	xdrmem_create(&x, (char *)(uintptr_t)d->entries.p, d->entries.len, XDR_DECODE);
	for (;;) {
		struct nfs4_ref name;
		struct nfs4_fattr fa;
		bool more;

		if (xdr_getpos(&x) == d->entries.len)
			break;
		assert_true(x_bool(&x, &more) && more);
		assert_true(n < cap);
		assert_true(x_u64(&x, &out[n].cookie));
		assert_true(nfs4_xdr_ref(&x, &name, 255));
		memcpy(out[n].name, name.p, name.len);
		out[n].name[name.len] = 0;
		assert_true(nfs4_xdr_fattr(&x, &fa));
		assert_true(nfs4_bit(&fa.mask, NFS4_A_TYPE));
		out[n].type = (uint32_t)fa.vals.p[0] << 24 | (uint32_t)fa.vals.p[1] << 16 |
			      (uint32_t)fa.vals.p[2] << 8 | fa.vals.p[3];
		n++;
	}
	xdr_destroy(&x);
	return n;
}

static int find(const struct dent *d, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void test_dir_ops(void **state)
{
	struct nfs_fh root = n4f_root_fh(), sub;
	union nfs4_op_args a = {0};
	struct dent d[32];
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;
	struct stat st;
	char path[300], link[64];
	uint32_t n;
	int i;

	(void)state;
	n4f_open_session("dirs", &s);
	/* CREATE a directory: the current handle becomes it */
	n4f_session(&b, &s);
	n4f_putfh(&b, &root);
	a.create = (struct nfs4_create_args){NFS_DIR,	{0}, 0, 0, {(const uint8_t *)"sub", 3},
					     {{0}, {0}}};
	n4f_op(&b, NFS4_OP_CREATE, &a);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(r.r[2].u.create.cinfo.after != r.r[2].u.create.cinfo.before);
	n4f_fh_of(&r, 3, &sub);
	n4f_path_of(path, sizeof(path), "sub");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* a symbolic link, READLINK of it; a regular file by CREATE is BADTYPE */
	n4f_session(&b, &s);
	n4f_putfh(&b, &sub);
	a.create = (struct nfs4_create_args){NFS_LNK, {(const uint8_t *)"../file", 7}, 0,
					     0,	      {(const uint8_t *)"ln", 2},      {{0}, {0}}};
	n4f_op(&b, NFS4_OP_CREATE, &a);
	n4f_op(&b, NFS4_OP_READLINK, NULL);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[3].u.link.len, 7);
	assert_memory_equal(r.r[3].u.link.p, "../file", 7);
	n4f_path_of(path, sizeof(path), "sub/ln");
	assert_int_equal(readlink(path, link, sizeof(link)), 7);
	a.create.type = NFS_REG;
	a.create.name = (struct nfs4_ref){(const uint8_t *)"reg", 3};
	assert_int_equal(n4f_fh_op(&s, &sub, NFS4_OP_CREATE, &a, NULL), NFS4ERR_BADTYPE);
	/* LINK: SAVEFH the file, PUTFH the directory */
	n4f_session(&b, &s);
	n4f_putfh(&b, &root);
	n4f_op(&b, NFS4_OP_LOOKUP, &(union nfs4_op_args){.name = {(const uint8_t *)"file", 4}});
	n4f_op(&b, NFS4_OP_SAVEFH, NULL);
	n4f_putfh(&b, &sub);
	n4f_op(&b, NFS4_OP_LINK, &(union nfs4_op_args){.name = {(const uint8_t *)"hard", 4}});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_path_of(path, sizeof(path), "file");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 2);
	/* RENAME sub/hard -> hard2 (SAVEFH the source directory) */
	n4f_session(&b, &s);
	n4f_putfh(&b, &sub);
	n4f_op(&b, NFS4_OP_SAVEFH, NULL);
	n4f_putfh(&b, &root);
	a.rename = (struct nfs4_rename_args){{(const uint8_t *)"hard", 4},
					     {(const uint8_t *)"hard2", 5}};
	n4f_op(&b, NFS4_OP_RENAME, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_path_of(path, sizeof(path), "hard2");
	assert_int_equal(stat(path, &st), 0);
	/* RENAME over a file this client holds open: its CLOSE still goes through (the handle is
	 * stale, but the state is there), anything else on it is STALE */
	{
		struct nfs4_stateid osid;
		struct nfs_fh ofh;

		assert_int_equal(do_open(&s, "o", "victim", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4,
					 &osid, &ofh),
				 NFS4_OK);
		n4f_session(&b, &s);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		a.rename = (struct nfs4_rename_args){{(const uint8_t *)"hard2", 5},
						     {(const uint8_t *)"victim", 6}};
		n4f_op(&b, NFS4_OP_RENAME, &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
		a.getattr = (struct nfs4_bitmap){1, {1u << NFS4_A_SIZE}};
		assert_int_equal(n4f_fh_op(&s, &ofh, NFS4_OP_GETATTR, &a, NULL), NFS4ERR_STALE);
		assert_int_equal(close_sid(&s, &ofh, &osid), NFS4_OK);
		assert_int_equal(n4f_fh_op(&s, &ofh, NFS4_OP_GETATTR, &a, NULL), NFS4ERR_STALE);
		a.rename = (struct nfs4_rename_args){{(const uint8_t *)"victim", 6},
						     {(const uint8_t *)"hard2", 5}};
		n4f_session(&b, &s);
		n4f_putfh(&b, &root);
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		n4f_op(&b, NFS4_OP_RENAME, &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4_OK);
	}
	/* RENAME without a saved handle */
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_RENAME, &a, NULL), NFS4ERR_NOFILEHANDLE);
	/* READDIR of the export's root: no "." or "..", the types asked for */
	a.readdir = (struct nfs4_readdir_args){0, {0}, 4096, 8192, {1, {1u << NFS4_A_TYPE}}};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_READDIR, &a, &r), NFS4_OK);
	assert_true(r.r[2].u.readdir.eof);
	n = entries(&r.r[2].u.readdir, d, 32);
	assert_int_equal(n, r.r[2].u.readdir.nentries);
	assert_int_equal(find(d, n, "."), -1);
	assert_int_equal(find(d, n, ".."), -1);
	i = find(d, n, "sub");
	assert_true(i >= 0);
	assert_int_equal(d[i].type, NFS_DIR);
	i = find(d, n, "file");
	assert_true(i >= 0);
	assert_int_equal(d[i].type, NFS_REG);
	assert_true(find(d, n, "hard2") >= 0);
	/* one entry at a time: maxcount just over one entry, resume at its cookie */
	{
		uint32_t seen = 0;
		uint64_t cookie = 0;
		bool eof = false;

		while (!eof) {
			struct dent one[2];

			a.readdir = (struct nfs4_readdir_args){
				cookie, {0}, 100, 16 + 40, {1, {1u << NFS4_A_TYPE}}};
			assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_READDIR, &a, &r), NFS4_OK);
			assert_true(entries(&r.r[2].u.readdir, one, 2) <= 1);
			if (r.r[2].u.readdir.nentries) {
				assert_true(find(d, n, one[0].name) >= 0);
				cookie = one[0].cookie;
				seen++;
			}
			eof = r.r[2].u.readdir.eof;
			assert_true(seen <= n);
		}
		assert_int_equal(seen, n);
	}
	a.readdir = (struct nfs4_readdir_args){0, {0}, 10, 20, {1, {1u << NFS4_A_TYPE}}};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_READDIR, &a, NULL), NFS4ERR_TOOSMALL);
	/* REMOVE a file, and a directory (not empty first) */
	a.name = (struct nfs4_ref){(const uint8_t *)"sub", 3};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_REMOVE, &a, NULL), NFS4ERR_NOTEMPTY);
	a.name = (struct nfs4_ref){(const uint8_t *)"ln", 2};
	assert_int_equal(n4f_fh_op(&s, &sub, NFS4_OP_REMOVE, &a, &r), NFS4_OK);
	a.name = (struct nfs4_ref){(const uint8_t *)"sub", 3};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_REMOVE, &a, NULL), NFS4_OK);
	a.name = (struct nfs4_ref){(const uint8_t *)"hard2", 5};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_REMOVE, &a, NULL), NFS4_OK);
	a.name = (struct nfs4_ref){(const uint8_t *)"hard2", 5};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_REMOVE, &a, NULL), NFS4ERR_NOENT);
	/* READDIR of the pseudo root: "tmp", a directory on the way to the export */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTROOTFH, NULL);
	a.readdir = (struct nfs4_readdir_args){0, {0}, 4096, 8192, {1, {1u << NFS4_A_TYPE}}};
	n4f_op(&b, NFS4_OP_READDIR, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(r.r[2].u.readdir.eof);
	n = entries(&r.r[2].u.readdir, d, 32);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "tmp");
	assert_int_equal(d[0].type, NFS_DIR);
	assert_true(d[0].cookie > 2);
	/* SECINFO names AUTH_SYS for a name that is there */
	a.name = (struct nfs4_ref){(const uint8_t *)"file", 4};
	assert_int_equal(n4f_fh_op(&s, &root, NFS4_OP_SECINFO, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.secinfo.flavor[0], AUTH_SYS);
}

/* ---- attributes ---- */

/* a fattr4 of owner and owner_group strings */
static struct nfs4_fattr fattr_owner(uint8_t *buf, const char *owner, const char *group)
{
	struct nfs4_ref o = {(const uint8_t *)owner, (uint32_t)strlen(owner)};
	struct nfs4_ref g = {(const uint8_t *)group, (uint32_t)strlen(group)};
	struct nfs4_fattr f = {
		{2, {0, 1u << (NFS4_A_OWNER - 32) | 1u << (NFS4_A_OWNER_GROUP - 32)}}, {buf, 0}};
	XDR x;

	xdrmem_create(&x, (char *)buf, 256, XDR_ENCODE);
	assert_true(nfs4_xdr_ref(&x, &o, 64) && nfs4_xdr_ref(&x, &g, 64));
	f.vals.len = xdr_getpos(&x);
	xdr_destroy(&x);
	return f;
}

static void test_setattr_verify(void **state)
{
	uint8_t buf[256], mb[4];
	struct nfs4_stateid sid;
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_sess s;
	struct nfs_fh fh;
	struct stat st;
	char path[300];

	(void)state;
	n4f_open_session("attrs", &s);
	assert_int_equal(do_open(&s, "o", "sa", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4, &sid, &fh),
			 NFS4_OK);
	n4f_path_of(path, sizeof(path), "sa");
	/* mode */
	a.setattr.sid = anon_sid;
	a.setattr.attrs = fattr_mode(mb, 0640);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.attrsset.w[1], 1u << (NFS4_A_MODE - 32));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* owners as numbers, and number@domain */
	a.setattr.attrs = fattr_owner(buf, "4321", "8765@example.org");
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, NULL), NFS4_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 4321);
	assert_int_equal(st.st_gid, 8765);
	/* a name we cannot map: BADOWNER, and attrsset (empty) goes with the error */
	a.setattr.attrs = fattr_owner(buf, "bob", "0");
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, &r), NFS4ERR_BADOWNER);
	assert_int_equal(r.r[2].u.attrsset.n, 0);
	/* size needs a stateid that may write: the open's */
	{
		uint8_t sz[8] = {0, 0, 0, 0, 0, 0, 0x10, 0};

		a.setattr.sid = sid;
		a.setattr.attrs = (struct nfs4_fattr){{1, {1u << NFS4_A_SIZE}}, {sz, 8}};
		assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, NULL), NFS4_OK);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 4096);
		a.setattr.sid.other[11] ^= 1;
		assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, NULL),
				 NFS4ERR_BAD_STATEID);
	}
	/* times: the client's for mtime, the server's for atime */
	{
		uint8_t t[4 + 12 + 4] = {0,    0,    0, 1, 0, 0, 0, 0, 0x3b, 0x9a,
					 0xca, 0x00, 0, 0, 0, 7, 0, 0, 0,    0};

		a.setattr.sid = anon_sid;
		a.setattr.attrs =
			(struct nfs4_fattr){{2,
					     {0, 1u << (NFS4_A_TIME_ACCESS_SET - 32) |
							 1u << (NFS4_A_TIME_MODIFY_SET - 32)}},
					    {t, sizeof(t)}};
		/* atime: SET_TO_SERVER_TIME4 comes first (bit 48 < 54) */
		memmove(t + 4, t, 16);
		t[0] = t[1] = t[2] = t[3] = 0;
		assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_SETATTR, &a, NULL), NFS4_OK);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mtim.tv_sec, 1000000000);
		assert_int_equal(st.st_mtim.tv_nsec, 7);
		assert_true(st.st_atim.tv_sec > 1000000000);
	}
	/* VERIFY / NVERIFY: mode 0640 is so, 0600 is not */
	a.verify = fattr_mode(mb, 0640);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_VERIFY, &a, NULL), NFS4_OK);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_NVERIFY, &a, NULL), NFS4ERR_SAME);
	a.verify = fattr_mode(mb, 0600);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_VERIFY, &a, NULL), NFS4ERR_NOT_SAME);
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_NVERIFY, &a, NULL), NFS4_OK);
	a.verify.mask = (struct nfs4_bitmap){1, {1u << 12}}; /* acl: not served */
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_VERIFY, &a, NULL), NFS4ERR_ATTRNOTSUPP);
	/* GETATTR of a write-only attribute */
	a.getattr = (struct nfs4_bitmap){2, {0, 1u << (NFS4_A_TIME_MODIFY_SET - 32)}};
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_GETATTR, &a, NULL), NFS4ERR_INVAL);
	/* space and files come from the file system */
	a.getattr = (struct nfs4_bitmap){
		2, {1u << NFS4_A_FILES_TOTAL, 1u << (NFS4_A_SPACE_TOTAL - 32)}};
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_GETATTR, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.getattr.vals.len, 16);
	assert_true(nfs4_bit(&r.r[2].u.getattr.mask, NFS4_A_SPACE_TOTAL));
}

/* ---- locks ---- */

static union nfs4_op_args lock_new(uint32_t type, uint64_t off, uint64_t len,
				   const struct nfs4_stateid *open, const char *owner)
{
	union nfs4_op_args a = {0};

	a.lock.type = type;
	a.lock.offset = off;
	a.lock.length = len;
	a.lock.new_owner = true;
	a.lock.open_sid = *open;
	a.lock.lock_owner.owner =
		(struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	return a;
}

static void test_locks(void **state)
{
	struct nfs4_stateid oa, ob, la, lb;
	struct nfs_lock_mgr mgr;
	struct nfs_fh fh;
	struct n4f_sess A, B;
	union nfs4_op_args a;
	struct n4f_reply r;
	uint32_t locks, waiters;

	(void)state;
	/* NLM's manager: the server takes it before its first compound */
	nfs_lock_mgr_init(&mgr, &(struct nfs_lock_conf){0});
	nfs4_server_set_lock_mgr(n4f_srv, &mgr);
	n4f_open_session("lockA", &A);
	n4f_open_session("lockB", &B);
	assert_int_equal(do_open(&A, "oa", "file", OPEN4_SHARE_ACCESS_BOTH, 0, NOCREATE, &oa, &fh),
			 NFS4_OK);
	assert_int_equal(do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_BOTH, 0, NOCREATE, &ob, NULL),
			 NFS4_OK);
	/* A write-locks 0..99 */
	a = lock_new(WRITE_LT, 0, 100, &oa, "lockowner-a");
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_LOCK, &a, &r), NFS4_OK);
	la = r.r[2].u.sid;
	assert_int_equal(la.seqid, 1); /* a new lock state's first stateid (RFC 8881 §8.2.2) */
	/* B's overlapping read lock: DENIED, naming A's lock and owner */
	a = lock_new(READ_LT, 50, 10, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, &r), NFS4ERR_DENIED);
	assert_true(r.r[2].u.denied.offset == 0 && r.r[2].u.denied.length == 100);
	assert_int_equal(r.r[2].u.denied.type, WRITE_LT);
	assert_true(r.r[2].u.denied.owner.clientid == A.clientid);
	assert_int_equal(r.r[2].u.denied.owner.owner.len, 11);
	assert_memory_equal(r.r[2].u.denied.owner.owner.p, "lockowner-a", 11);
	/* NLM (an NFSv3 client) asking for an overlapping lock meets A's v4 lock */
	{
		struct nfs_lock_req req = {.op = NFS_LOCK_OP_TEST, .off = 10, .len = 1};
		struct nfs_lock_res res;

		req.file.len = 16;
		assert_int_equal(nfs_fs_file_key(&n4f_ctx, &fh, req.file.b), NFS_OK);
		req.owner = (struct nfs_lock_owner){"v3host", 6, 7, (const uint8_t *)"nlm-oh", 6};
		assert_int_equal(nfs_lock_process(&mgr, &req, &res), NFS_LOCK_DENIED);
		assert_true(res.holder.exclusive && res.holder.off == 0 && res.holder.len == 100);
	}
	/* LOCKT says the same; past A's range it is free */
	a.lockt =
		(struct nfs4_lockt_args){WRITE_LT, 10, UINT64_MAX, {0, {(const uint8_t *)"t", 1}}};
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCKT, &a, NULL), NFS4ERR_DENIED);
	a.lockt.offset = 100;
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCKT, &a, NULL), NFS4_OK);
	/* bad ranges */
	a = lock_new(READ_LT, 0, 0, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_INVAL);
	a = lock_new(READ_LT, UINT64_MAX - 1, 10, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_INVAL);
	a = lock_new(READ_LT, 0, 1, &ob, "lockowner-b");
	a.lock.reclaim = true;
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_NO_GRACE);
	/* an NLM lock (NFSv3's client "v3host") on 1000..1009 in the same manager */
	{
		struct nfs_lock_req req = {
			.op = NFS_LOCK_OP_LOCK, .off = 1000, .len = 10, .exclusive = true};
		struct nfs_lock_res res;

		req.file.len = 16;
		assert_int_equal(nfs_fs_file_key(&n4f_ctx, &fh, req.file.b), NFS_OK);
		req.owner = (struct nfs_lock_owner){"v3host", 6, 42, (const uint8_t *)"nlm-oh", 6};
		assert_int_equal(nfs_lock_process(&mgr, &req, &res), NFS_LOCK_GRANTED);
	}
	a = lock_new(READ_LT, 1005, UINT64_MAX, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, &r), NFS4ERR_DENIED);
	assert_true(r.r[2].u.denied.offset == 1000 && r.r[2].u.denied.length == 10);
	/* LOCKU A's range: B's lock goes through now, by its existing lock state after */
	a.locku = (struct nfs4_locku_args){WRITE_LT, 0, la, 0, 100};
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_LOCKU, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.sid.seqid, 2);
	a = lock_new(WRITE_LT, 0, 100, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, &r), NFS4_OK);
	lb = r.r[2].u.sid;
	a = (union nfs4_op_args){0};
	a.lock.type = WRITE_LT;
	a.lock.offset = 200;
	a.lock.length = 1;
	a.lock.lock_sid = lb;
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, &r), NFS4_OK);
	assert_int_equal(r.r[2].u.sid.seqid, lb.seqid + 1);
	/* an old lock stateid */
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_OLD_STATEID);
	/* FREE_STATEID: A's lock state holds nothing now; CLOSE of B drops its locks */
	a.sid = la;
	a.sid.seqid = 0;
	assert_int_equal(n4f_fh_op(&A, &fh, NFS4_OP_FREE_STATEID, &a, NULL), NFS4_OK);
	nfs_lock_count(&mgr, &locks, &waiters);
	assert_int_equal(locks, 3); /* B's two and the NLM lock */
	ob.seqid = 0;
	assert_int_equal(close_sid(&B, &fh, &ob), NFS4_OK);
	nfs_lock_count(&mgr, &locks, &waiters);
	assert_int_equal(locks, 1);
	/* a write lock on a read-only open: OPENMODE */
	assert_int_equal(do_open(&B, "ob", "file", OPEN4_SHARE_ACCESS_READ, 0, NOCREATE, &ob, NULL),
			 NFS4_OK);
	a = lock_new(WRITE_LT, 0, 1, &ob, "lockowner-b");
	assert_int_equal(n4f_fh_op(&B, &fh, NFS4_OP_LOCK, &a, NULL), NFS4ERR_OPENMODE);
	nfs4_server_destroy(n4f_srv);
	n4f_srv = NULL;
	nfs_lock_count(&mgr, &locks, &waiters);
	assert_int_equal(locks, 1); /* the clients went with the server: only NLM's is left */
	nfs_lock_mgr_fini(&mgr);
	n4f_fresh(NULL);
}

/* ---- a client's state goes with it ---- */

static void test_state_freed_with_client(void **state)
{
	struct nfs4_stateid sid;
	struct nfs4_otab_stats ot;
	struct nfs_fh fh;
	union nfs4_op_args a;
	struct n4f_reply r;
	struct n4f_sess s, other;
	struct n4f_cb b;
	uint32_t locks, waiters;

	(void)state;
	n4f_open_session("gone", &s);
	assert_int_equal(do_open(&s, "o1", "file", OPEN4_SHARE_ACCESS_BOTH, 0, NOCREATE, &sid, &fh),
			 NFS4_OK);
	assert_int_equal(do_open(&s, "o2", "g2", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_BOTH,
				 UNCHECKED4, NULL, NULL),
			 NFS4_OK);
	a = lock_new(WRITE_LT, 0, UINT64_MAX, &sid, "lo");
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_LOCK, &a, NULL), NFS4_OK);
	nfs4_otab_stats(n4f_srv->ot, &ot);
	assert_int_equal(ot.stids, 3);
	assert_int_equal(ot.owners, 3);
	/* DESTROY_CLIENTID with state: CLIENTID_BUSY */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = s.clientid});
	n4f_run(&b, &r);
	assert_int_equal(r.r[1].status, NFS4ERR_CLIENTID_BUSY);
	/* the lease runs out: the next compound's sweep frees the client and all of it */
	n4f_now_ns += (uint64_t)(n4f_conf.state.lease_s + 2) * 1000000000ull;
	n4f_open_session("after", &other);
	nfs4_otab_stats(n4f_srv->ot, &ot);
	assert_int_equal(ot.stids, 0);
	assert_int_equal(ot.owners, 0);
	assert_true(ot.stids_created == ot.stids_freed);
	nfs_lock_count(n4f_srv->mgr, &locks, &waiters);
	assert_int_equal(locks, 0);
	/* the file is free for another client, deny modes and lock gone */
	assert_int_equal(
		do_open(&other, "x", "g2", OPEN4_SHARE_ACCESS_WRITE, 0, NOCREATE, NULL, NULL),
		NFS4_OK);
	/* its stateid means nothing now */
	assert_int_equal(read_at(&other, &fh, &sid, 0, 1, NULL), NFS4ERR_BAD_STATEID);
}

/* as Linux unmounts: its opens closed, its lock states freed, then DESTROY_SESSION and
 * DESTROY_CLIENTID succeed and nothing is left */
static void test_unmount(void **state)
{
	struct nfs4_stateid sid, lsid;
	struct nfs4_otab_stats ot;
	union nfs4_op_args a;
	struct n4f_reply r;
	struct n4f_sess s;
	struct nfs_fh fh;
	struct n4f_cb b;

	(void)state;
	n4f_open_session("umount", &s);
	assert_int_equal(do_open(&s, "o", "file", OPEN4_SHARE_ACCESS_BOTH, 0, NOCREATE, &sid, &fh),
			 NFS4_OK);
	a = lock_new(WRITE_LT, 0, 10, &sid, "lo");
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_LOCK, &a, &r), NFS4_OK);
	lsid = r.r[2].u.sid;
	a.locku = (struct nfs4_locku_args){WRITE_LT, 0, lsid, 0, 10};
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_LOCKU, &a, &r), NFS4_OK);
	a.sid = r.r[2].u.sid;
	assert_int_equal(n4f_fh_op(&s, &fh, NFS4_OP_FREE_STATEID, &a, NULL), NFS4_OK);
	assert_int_equal(close_sid(&s, &fh, &sid), NFS4_OK);
	nfs4_otab_stats(n4f_srv->ot, &ot);
	assert_int_equal(ot.stids, 0);
	assert_int_equal(ot.owners, 0);
	assert_null(nfs4_client_find(nfs4_server_state(n4f_srv), s.clientid)->owners);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_SESSION, &(union nfs4_op_args){0});
	memcpy(b.buf + xdr_getpos(&b.x) - NFS4_SESSIONID_SIZE, s.id, NFS4_SESSIONID_SIZE);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_DESTROY_CLIENTID, &(union nfs4_op_args){.clientid = s.clientid});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_null(nfs4_client_find(nfs4_server_state(n4f_srv), s.clientid));
}

/* ---- what is not served ---- */

static void test_v42_notsupp(void **state)
{
	/* those served are test_nfs42.c's */
	static const uint32_t v42[] = {NFS4_OP_READ_PLUS,  NFS4_OP_GETXATTR,	NFS4_OP_SETXATTR,
				       NFS4_OP_LISTXATTRS, NFS4_OP_REMOVEXATTR, NFS4_OP_WRITE_SAME,
				       NFS4_OP_IO_ADVISE};
	struct nfs_fh root = n4f_root_fh();
	struct nfs4_bitmap sup;
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;

	(void)state;
	n4f_open_session("v42", &s);
	for (size_t i = 0; i < sizeof(v42) / sizeof(v42[0]); i++) {
		/* minor version 2: NOTSUPP, well formed, the compound stops there */
		n4f_seq(&b, &s, 0, s.seq[0]++, false);
		xdr_setpos(&b.x, 4);
		assert_true(x_u32(&b.x, &(uint32_t){2}));
		xdr_setpos(&b.x, 12 + 4 + 32);
		n4f_putfh(&b, &root);
		n4f_op(&b, v42[i], NULL);
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_NOTSUPP);
		assert_int_equal(r.n, 3);
		assert_int_equal(r.r[2].op, v42[i]);
		/* minor version 1: they do not exist */
		n4f_session(&b, &s);
		n4f_op(&b, v42[i], NULL);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_OP_ILLEGAL);
	}
	/* supported_attrs: nothing of 4.2's (word 2 holds only suppattr_exclcreat) */
	nfs4_supported_attrs(&sup);
	assert_int_equal(sup.w[2], 1u << (NFS4_A_SUPPATTR_EXCLCREAT - 64));
	assert_false(nfs4_bit(&sup, NFS4_A_FS_LOCATIONS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_bytes, n4f_fresh),
		cmocka_unit_test_setup(test_open_create_close, n4f_fresh),
		cmocka_unit_test_setup(test_open_errors, n4f_fresh),
		cmocka_unit_test_setup(test_share_reservations, n4f_fresh),
		cmocka_unit_test_setup(test_stateid_rules, n4f_fresh),
		cmocka_unit_test_setup(test_read_write_commit, n4f_fresh),
		cmocka_unit_test_setup(test_read_ddp, n4f_fresh),
		cmocka_unit_test_setup(test_dir_ops, n4f_fresh),
		cmocka_unit_test_setup(test_setattr_verify, n4f_fresh),
		cmocka_unit_test_setup(test_locks, n4f_fresh),
		cmocka_unit_test_setup(test_state_freed_with_client, n4f_fresh),
		cmocka_unit_test_setup(test_unmount, n4f_fresh),
		cmocka_unit_test_setup(test_v42_notsupp, n4f_fresh),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, n4f_setup, n4f_teardown);
}
