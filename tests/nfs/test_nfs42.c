/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs42.c - the NFSv4.2 operations the server serves (RFC 7862 §15), without a network:
 * COMPOUNDs of minor version 2 through nfs4_compound() (nfs4_fixture.h), their results
 * checked, and the file on disk after them (st_blocks, holes by lseek, the bytes):
 * - ALLOCATE and DEALLOCATE: blocks reserved and freed, the size kept, the stateid rules
 *   (a read-only open is OPENMODE, an unknown stateid BAD_STATEID);
 * - SEEK: data and holes as the file has them, sr_eof at the end, NXIO past it, and the
 *   reply's resok bytes (RFC 7862 §15.11.2: sr_eof, then sr_offset);
 * - COPY: synchronous, the bytes equal, WRITE's verifier, a source server NOTSUPP, a range
 *   past the source's end INVAL, overlapping ranges of one file INVAL, no SAVED_FH
 *   NOFILEHANDLE;
 * - CLONE: OK with the bytes equal where the file system reflinks, NOTSUPP where it cannot
 *   (decided by trying FICLONERANGE here first);
 * - in minor version 1 they do not exist (OP_ILLEGAL).
 *
 * Needs root for the backend (open_by_handle_at): exits 77 (skipped) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs4_fixture.h"
#include "nfs_xdr_prim.h"

#define KIB 1024u

static const struct nfs4_stateid anon_sid = {0, {0}};

/* OPEN (CLAIM_NULL, UNCHECKED4 create) of name in the export's root: stateid and handle */
static void do_open(struct n4f_sess *s, const char *name, uint32_t access, struct nfs4_stateid *sid,
		    struct nfs_fh *fh)
{
	struct nfs_fh root = n4f_root_fh();
	union nfs4_op_args a;
	struct n4f_reply r;

	n4f_open_args(&a, "o42", name, access, OPEN4_CREATE);
	n4f_open_getfh(s, 2, &root, &a, &r);
	assert_int_equal(r.status, NFS4_OK);
	*sid = r.r[2].u.open.sid;
	n4f_fh_of(&r, 3, fh);
}

/* SEQUENCE, PUTFH, op (minor version 2): its status, the reply in *out */
static uint32_t one_op(struct n4f_sess *s, const struct nfs_fh *fh, uint32_t op,
		       union nfs4_op_args *a, struct n4f_reply *out)
{
	return n4f_fh_op_minor(s, 2, fh, op, a, out);
}

static uint32_t space(struct n4f_sess *s, const struct nfs_fh *fh, uint32_t op,
		      const struct nfs4_stateid *sid, uint64_t off, uint64_t len)
{
	union nfs4_op_args a = {.alloc = {*sid, off, len}};
	struct n4f_reply r;

	return one_op(s, fh, op, &a, &r);
}

static uint32_t seek(struct n4f_sess *s, const struct nfs_fh *fh, const struct nfs4_stateid *sid,
		     uint64_t off, uint32_t what, uint64_t *pos, bool *eof)
{
	union nfs4_op_args a = {.seek = {*sid, off, what}};
	struct n4f_reply r;
	uint32_t st = one_op(s, fh, NFS4_OP_SEEK, &a, &r);

	if (st == NFS4_OK) {
		assert_int_equal(r.n, 3);
		*pos = r.r[2].u.seek.offset;
		*eof = r.r[2].u.seek.eof;
		/* the resok is the reply's tail: sr_eof (bool), then sr_offset (hyper) */
		assert_true(r.len >= 12);
		assert_int_equal(r.bytes[r.len - 9], *eof ? 1 : 0);
		for (int i = 0; i < 8; i++)
			assert_int_equal(r.bytes[r.len - 8 + i], (uint8_t)(*pos >> (56 - 8 * i)));
	}
	return st;
}

static struct stat stat_of(const char *name)
{
	char p[300];
	struct stat st;

	n4f_path_of(p, sizeof(p), name);
	assert_int_equal(stat(p, &st), 0);
	return st;
}

static void fill(const char *name, uint64_t off, uint32_t len, char c)
{
	static char buf[256 * KIB];
	char p[300];
	int fd;

	assert_true(len <= sizeof(buf));
	memset(buf, c, len);
	n4f_path_of(p, sizeof(p), name);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, buf, len, (off_t)off), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

static void test_allocate_deallocate(void **state)
{
	struct nfs4_stateid wsid, rsid, bad;
	struct nfs_fh fh, rfh, root = n4f_root_fh();
	struct n4f_sess s;
	struct stat st;
	uint64_t pos = 0;
	bool eof = false;

	(void)state;
	n4f_open_session("alloc", &s);
	do_open(&s, "space", OPEN4_SHARE_ACCESS_BOTH, &wsid, &fh);
	/* ALLOCATE 256 KiB: the size grows, the blocks are there, all of it reads as a hole's
	 * zeros (unwritten extents) */
	assert_int_equal(space(&s, &fh, NFS4_OP_ALLOCATE, &wsid, 0, 256 * KIB), NFS4_OK);
	st = stat_of("space");
	assert_int_equal(st.st_size, 256 * KIB);
	assert_true((uint64_t)st.st_blocks * 512 >= 256 * KIB);
	/* data over all of it, then DEALLOCATE [64 KiB, 128 KiB): the size stays, blocks go */
	fill("space", 0, 256 * KIB, 'x');
	assert_int_equal(space(&s, &fh, NFS4_OP_DEALLOCATE, &wsid, 64 * KIB, 64 * KIB), NFS4_OK);
	st = stat_of("space");
	assert_int_equal(st.st_size, 256 * KIB);
	assert_true((uint64_t)st.st_blocks * 512 <= 192 * KIB + 16 * KIB);
	/* SEEK sees what the disk has: data at 0, the hole at 64 KiB, data again at 128 KiB */
	assert_int_equal(seek(&s, &fh, &wsid, 0, NFS4_CONTENT_DATA, &pos, &eof), NFS4_OK);
	assert_int_equal(pos, 0);
	assert_false(eof);
	assert_int_equal(seek(&s, &fh, &wsid, 0, NFS4_CONTENT_HOLE, &pos, &eof), NFS4_OK);
	assert_int_equal(pos, 64 * KIB);
	assert_false(eof);
	assert_int_equal(seek(&s, &fh, &wsid, 64 * KIB, NFS4_CONTENT_DATA, &pos, &eof), NFS4_OK);
	assert_int_equal(pos, 128 * KIB);
	/* no hole after 128 KiB but the one at the end: sr_eof */
	assert_int_equal(seek(&s, &fh, &wsid, 128 * KIB, NFS4_CONTENT_HOLE, &pos, &eof), NFS4_OK);
	assert_int_equal(pos, 256 * KIB);
	assert_true(eof);
	/* at and past the end: NXIO (RFC 7862 §15.11.3) */
	assert_int_equal(seek(&s, &fh, &wsid, 256 * KIB, NFS4_CONTENT_DATA, &pos, &eof),
			 NFS4ERR_NXIO);
	assert_int_equal(seek(&s, &fh, &wsid, 1u << 30, NFS4_CONTENT_HOLE, &pos, &eof),
			 NFS4ERR_NXIO);
	/* a trailing hole: no data from there to the end is NFS4_OK with sr_eof */
	assert_int_equal(space(&s, &fh, NFS4_OP_DEALLOCATE, &wsid, 192 * KIB, 64 * KIB), NFS4_OK);
	assert_int_equal(seek(&s, &fh, &wsid, 200 * KIB, NFS4_CONTENT_DATA, &pos, &eof), NFS4_OK);
	assert_true(eof);
	/* the anonymous stateid reads and writes without an open, as for READ and WRITE */
	assert_int_equal(seek(&s, &fh, &anon_sid, 0, NFS4_CONTENT_HOLE, &pos, &eof), NFS4_OK);
	assert_int_equal(pos, 64 * KIB);
	/* ALLOCATE beyond the end grows the file (mode 0) */
	assert_int_equal(space(&s, &fh, NFS4_OP_ALLOCATE, &wsid, 256 * KIB, 4 * KIB), NFS4_OK);
	assert_int_equal(stat_of("space").st_size, 260 * KIB);

	/* the stateid must allow writing: a read-only open is OPENMODE; SEEK only reads */
	do_open(&s, "ronly", OPEN4_SHARE_ACCESS_READ, &rsid, &rfh);
	assert_int_equal(space(&s, &rfh, NFS4_OP_ALLOCATE, &rsid, 0, 4 * KIB), NFS4ERR_OPENMODE);
	assert_int_equal(space(&s, &rfh, NFS4_OP_DEALLOCATE, &rsid, 0, 4 * KIB), NFS4ERR_OPENMODE);
	/* another file's stateid, an unknown one */
	assert_int_equal(space(&s, &rfh, NFS4_OP_ALLOCATE, &wsid, 0, 4 * KIB), NFS4ERR_BAD_STATEID);
	bad = wsid;
	bad.other[11] ^= 0x55;
	assert_int_equal(space(&s, &fh, NFS4_OP_ALLOCATE, &bad, 0, 4 * KIB), NFS4ERR_BAD_STATEID);
	assert_int_equal(seek(&s, &fh, &bad, 0, NFS4_CONTENT_DATA, &pos, &eof),
			 NFS4ERR_BAD_STATEID);
	/* a directory; a length of 0 (fallocate's EINVAL) */
	assert_int_equal(space(&s, &root, NFS4_OP_ALLOCATE, &anon_sid, 0, 4 * KIB), NFS4ERR_ISDIR);
	assert_int_equal(seek(&s, &root, &anon_sid, 0, NFS4_CONTENT_DATA, &pos, &eof),
			 NFS4ERR_ISDIR);
	assert_int_equal(space(&s, &fh, NFS4_OP_ALLOCATE, &wsid, 0, 0), NFS4ERR_INVAL);
	/* past the largest offset */
	assert_int_equal(space(&s, &fh, NFS4_OP_ALLOCATE, &wsid, UINT64_MAX - 10, 100),
			 NFS4ERR_FBIG);
}

/* SEQUENCE, PUTFH src, SAVEFH, PUTFH dst, op: the reply in *r */
static uint32_t xfer(struct n4f_sess *s, const struct nfs_fh *src, const struct nfs_fh *dst,
		     uint32_t op, union nfs4_op_args *a, struct n4f_reply *r)
{
	struct n4f_cb b;

	n4f_session_minor(&b, s, 2);
	n4f_putfh(&b, src);
	n4f_op(&b, NFS4_OP_SAVEFH, NULL);
	n4f_putfh(&b, dst);
	n4f_op(&b, op, a);
	n4f_run(&b, r);
	return r->status;
}

static void file_bytes(const char *name, uint8_t *buf, size_t cap, size_t *len)
{
	char p[300];
	ssize_t n;
	int fd;

	n4f_path_of(p, sizeof(p), name);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, cap);
	assert_true(n >= 0);
	*len = (size_t)n;
	close(fd);
}

static void test_copy(void **state)
{
	static uint8_t want[64 * KIB], got[64 * KIB];
	struct nfs4_stateid ssid, dsid, rsid;
	struct nfs_fh sfh, dfh, rfh;
	union nfs4_op_args a = {0};
	uint8_t verf[8], netloc[12];
	struct n4f_reply r;
	struct n4f_sess s;
	size_t wl, gl;

	(void)state;
	n4f_open_session("copy", &s);
	do_open(&s, "src", OPEN4_SHARE_ACCESS_BOTH, &ssid, &sfh);
	do_open(&s, "dst", OPEN4_SHARE_ACCESS_BOTH, &dsid, &dfh);
	for (uint32_t i = 0; i < 40 * KIB; i += 4 * KIB)
		fill("src", i, 4 * KIB, (char)('a' + i / (4 * KIB)));
	/* all of src (ca_count 0: to its end), asked asynchronous: answered synchronously */
	a.copy.src_sid = ssid;
	a.copy.dst_sid = dsid;
	a.copy.count = 0;
	a.copy.consecutive = true;
	a.copy.synchronous = false;
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_COPY, &a, &r), NFS4_OK);
	assert_int_equal(r.n, 5);
	assert_false(r.r[4].u.copy.has_callback_id);
	assert_int_equal(r.r[4].u.copy.count, 40 * KIB);
	assert_int_equal(r.r[4].u.copy.committed, NFS_UNSTABLE);
	assert_true(r.r[4].u.copy.consecutive);
	assert_true(r.r[4].u.copy.synchronous);
	nfs_fs_write_verf(n4f_fs, verf);
	assert_memory_equal(r.r[4].u.copy.verf, verf, 8);
	file_bytes("src", want, sizeof(want), &wl);
	file_bytes("dst", got, sizeof(got), &gl);
	assert_int_equal(wl, 40 * KIB);
	assert_int_equal(gl, 40 * KIB);
	assert_memory_equal(want, got, wl);
	/* a part of it to an offset: 4 KiB from 8 KiB to 44 KiB, past dst's end */
	a.copy.src_offset = 8 * KIB;
	a.copy.dst_offset = 44 * KIB;
	a.copy.count = 4 * KIB;
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_COPY, &a, &r), NFS4_OK);
	assert_int_equal(r.r[4].u.copy.count, 4 * KIB);
	file_bytes("dst", got, sizeof(got), &gl);
	assert_int_equal(gl, 48 * KIB);
	assert_memory_equal(got + 44 * KIB, want + 8 * KIB, 4 * KIB);
	assert_int_equal(got[40 * KIB], 0); /* the gap between */
	/* past the source's end: INVAL (RFC 7862 §15.2.3) */
	a.copy.src_offset = 39 * KIB;
	a.copy.count = 2 * KIB;
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_COPY, &a, &r), NFS4ERR_INVAL);
	a.copy.src_offset = 0;
	a.copy.count = 4 * KIB;
	/* within one file, ranges that overlap: INVAL (RFC 7862 §15.2.3); apart, they copy */
	a.copy.dst_sid = ssid;
	a.copy.dst_offset = 2 * KIB;
	assert_int_equal(xfer(&s, &sfh, &sfh, NFS4_OP_COPY, &a, &r), NFS4ERR_INVAL);
	a.copy.dst_offset = 40 * KIB;
	assert_int_equal(xfer(&s, &sfh, &sfh, NFS4_OP_COPY, &a, &r), NFS4_OK);
	assert_int_equal(stat_of("src").st_size, 44 * KIB);
	a.copy.dst_sid = dsid;
	a.copy.dst_offset = 0;
	/* from another server: NOTSUPP (one netloc4: NL4_NAME "srv") */
	memcpy(netloc, "\0\0\0\1\0\0\0\3srv\0", 12);
	a.copy.source_server = (struct nfs4_raw){1, {netloc, 12}};
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_COPY, &a, &r), NFS4ERR_NOTSUPP);
	a.copy.source_server = (struct nfs4_raw){0, {NULL, 0}};
	/* the destination's stateid must allow writing; the source's must be of the source */
	do_open(&s, "ronly", OPEN4_SHARE_ACCESS_READ, &rsid, &rfh);
	a.copy.dst_sid = rsid;
	assert_int_equal(xfer(&s, &sfh, &rfh, NFS4_OP_COPY, &a, &r), NFS4ERR_OPENMODE);
	a.copy.dst_sid = dsid;
	a.copy.src_sid = dsid;
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_COPY, &a, &r), NFS4ERR_BAD_STATEID);
	a.copy.src_sid = ssid;
	/* no SAVED_FH */
	assert_int_equal(one_op(&s, &dfh, NFS4_OP_COPY, &a, &r), NFS4ERR_NOFILEHANDLE);
}

/* Can the file system under the export share extents? (FICLONERANGE between two files) */
static bool fs_reflinks(void)
{
	char p1[300], p2[300];
	struct file_clone_range cr = {0};
	bool ok;
	int a, b;

	n4f_path_of(p1, sizeof(p1), ".probe1");
	n4f_path_of(p2, sizeof(p2), ".probe2");
	a = open(p1, O_CREAT | O_RDWR, 0600);
	b = open(p2, O_CREAT | O_RDWR, 0600);
	assert_true(a >= 0 && b >= 0);
	cr.src_fd = a;
	ok = ioctl(b, FICLONERANGE, &cr) == 0;
	close(a);
	close(b);
	unlink(p1);
	unlink(p2);
	return ok;
}

static void test_clone(void **state)
{
	static uint8_t want[64 * KIB], got[64 * KIB];
	struct nfs4_stateid ssid, dsid;
	struct nfs_fh sfh, dfh;
	union nfs4_op_args a = {0};
	bool reflinks = fs_reflinks();
	struct n4f_reply r;
	struct n4f_sess s;
	size_t wl, gl;

	(void)state;
	n4f_open_session("clone", &s);
	do_open(&s, "csrc", OPEN4_SHARE_ACCESS_BOTH, &ssid, &sfh);
	do_open(&s, "cdst", OPEN4_SHARE_ACCESS_BOTH, &dsid, &dfh);
	fill("csrc", 0, 64 * KIB, 'c');
	a.clone.src_sid = ssid;
	a.clone.dst_sid = dsid;
	a.clone.count = 0; /* all of it */
	if (!reflinks) {
		/* ext4, tmpfs: the file system cannot reflink */
		assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_CLONE, &a, &r), NFS4ERR_NOTSUPP);
		assert_int_equal(stat_of("cdst").st_size, 0);
		return;
	}
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_CLONE, &a, &r), NFS4_OK);
	file_bytes("csrc", want, sizeof(want), &wl);
	file_bytes("cdst", got, sizeof(got), &gl);
	assert_int_equal(gl, wl);
	assert_memory_equal(want, got, wl);
	/* past the source's end */
	a.clone.src_offset = 60 * KIB;
	a.clone.count = 8 * KIB;
	assert_int_equal(xfer(&s, &sfh, &dfh, NFS4_OP_CLONE, &a, &r), NFS4ERR_INVAL);
}

/* In minor version 1 the 4.2 operations do not exist: OP_ILLEGAL, the compound stops */
static void test_minor1_illegal(void **state)
{
	static const uint32_t ops[] = {NFS4_OP_ALLOCATE, NFS4_OP_DEALLOCATE, NFS4_OP_SEEK,
				       NFS4_OP_COPY, NFS4_OP_CLONE};
	union nfs4_op_args a;
	struct n4f_reply r;
	struct n4f_sess s;
	struct n4f_cb b;

	(void)state;
	memset(&a, 0, sizeof(a));
	n4f_open_session("minor1", &s);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n4f_session_minor(&b, &s, 1);
		n4f_op(&b, ops[i], &a);
		n4f_run(&b, &r);
		assert_int_equal(r.status, NFS4ERR_OP_ILLEGAL);
		assert_int_equal(r.n, 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_allocate_deallocate, n4f_fresh),
		cmocka_unit_test_setup(test_copy, n4f_fresh),
		cmocka_unit_test_setup(test_clone, n4f_fresh),
		cmocka_unit_test_setup(test_minor1_illegal, n4f_fresh),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, n4f_setup, n4f_teardown);
}
