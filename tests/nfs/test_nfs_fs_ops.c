/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs_fs_ops.c - the NFS backend's (nfs/fs) operations on a real file system: CREATE's
 * three modes, READDIR(PLUS) in pieces, the data and directory operations with their weak
 * cache consistency data, mount points (with and without crossmnt, across a restart), and
 * ALLOCATE past the free space of a loop-mounted ext4 (refused, nothing reserved) and on a
 * tmpfs that reports no size (served).
 *
 * Needs root (credential switching, open_by_handle_at): exits 77 (skipped) otherwise. The
 * export trees live under a fresh directory in /tmp (nfs_fs_fixture.c; the fixture checks
 * that the file system gives handles and skips if not). The mount-point test runs in the test's
 * own mount namespace (unshare(CLONE_NEWNS)) with a tmpfs mounted under an export.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs_fs.h"
#include "nfs_fs_fixture.h"
#include "nfs_fs_int.h"

/* ---- CREATE ---- */

static void test_create_modes(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), f1, f2;
	const uint8_t v1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, v2[8] = {8, 7, 6, 5, 4, 3, 2, 1};
	struct nfs_attr at;

	(void)state;
	assert_int_equal(nfsf_create(&c, &a, "excl", NFS_CREATE_EXCLUSIVE, 0, v1, &f1, &at),
			 NFS_OK);
	assert_int_equal(at.size, 0);
	/* a retransmission with the same verifier: the same file */
	assert_int_equal(nfsf_create(&c, &a, "excl", NFS_CREATE_EXCLUSIVE, 0, v1, &f2, &at),
			 NFS_OK);
	assert_true(nfsf_fh_eq(&f1, &f2));
	/* another verifier: someone else's file */
	assert_int_equal(nfsf_create(&c, &a, "excl", NFS_CREATE_EXCLUSIVE, 0, v2, &f2, &at),
			 NFS_ERR_EXIST);
	/* GUARDED on an existing name */
	assert_int_equal(nfsf_create(&c, &a, "excl", NFS_CREATE_GUARDED, 0644, NULL, &f2, &at),
			 NFS_ERR_EXIST);
	assert_int_equal(nfsf_create(&c, &a, "sub", NFS_CREATE_UNCHECKED, 0644, NULL, &f2, &at),
			 NFS_ERR_EXIST); /* a directory is never "the file" */
	/* UNCHECKED on an existing file: that file, its mode untouched */
	assert_int_equal(nfsf_create(&c, &a, "excl", NFS_CREATE_UNCHECKED, 0600, NULL, &f2, &at),
			 NFS_OK);
	assert_true(nfsf_fh_eq(&f1, &f2));
	nfs_fs_close(fs);
}

/* ---- READDIR ---- */
struct collect {
	unsigned stop_after; /* entries accepted per call */
	unsigned taken;
	uint64_t last_cookie;
	unsigned seen[NFSF_NENTRIES];
	unsigned dots;
	uint64_t cookies[NFSF_NENTRIES + 2];
	unsigned ncookies;
	struct nfs_fh fhs[NFSF_NENTRIES];
	bool plus_ok;
};

static bool collect_fn(void *arg, const struct nfs_dirent *e)
{
	struct collect *c = arg;
	char name[300];
	unsigned idx;

	if (c->taken == c->stop_after)
		return false;
	c->taken++;
	c->last_cookie = e->cookie;
	memcpy(name, e->name, e->namelen);
	name[e->namelen] = 0;
	if (c->ncookies < NFSF_NENTRIES + 2)
		c->cookies[c->ncookies++] = e->cookie;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		c->dots++;
		return true;
	}
	if (sscanf(name, "e%u", &idx) == 1 && idx < NFSF_NENTRIES) {
		c->seen[idx]++;
		if (e->fh_valid)
			c->fhs[idx] = e->fh;
		else
			c->plus_ok = false;
	}
	return true;
}

static void readdir_all(struct nfs_ctx *ctx, const struct nfs_fh *dir, bool plus, unsigned k,
			struct collect *c)
{
	uint64_t cookie = 0;
	uint8_t verf[8] = {0};
	bool eof = false, dv;
	struct nfs_attr da;

	memset(c, 0, sizeof(*c));
	c->plus_ok = true;
	c->stop_after = k;
	for (int calls = 0; !eof && calls < 10000; calls++) {
		c->taken = 0;
		c->last_cookie = cookie;
		assert_int_equal(
			nfs_fs_readdir(ctx, dir, cookie, verf, plus, collect_fn, c, &eof, &dv, &da),
			NFS_OK);
		assert_true(dv);
		assert_int_equal(da.type, NFS_DIR);
		assert_memory_equal(verf, "\0\0\0\0\0\0\0\0", 8);
		cookie = c->last_cookie;
	}
	assert_true(eof);
}

struct rootdots {
	struct nfs_fh dotdot;
	bool found;
};

static bool rootdots_fn(void *arg, const struct nfs_dirent *e)
{
	struct rootdots *rd = arg;

	if (e->namelen == 2 && memcmp(e->name, "..", 2) == 0 && e->fh_valid) {
		rd->dotdot = e->fh;
		rd->found = true;
	}
	return true;
}

static void test_readdir(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), big;
	static struct collect c1, c2, c3;
	struct nfs_attr at;

	(void)state;
	assert_int_equal(nfsf_lookup(&c, &a, "big", &big, &at), NFS_OK);
	readdir_all(&c, &big, false, 37, &c1);
	assert_int_equal(c1.dots, 2);
	for (unsigned i = 0; i < NFSF_NENTRIES; i++)
		if (c1.seen[i] != 1)
			fail_msg("e%u seen %u times", i, c1.seen[i]);
	/* a second pass, in other pieces: the same cookies in the same order */
	readdir_all(&c, &big, false, 101, &c2);
	assert_int_equal(c1.ncookies, c2.ncookies);
	assert_memory_equal(c1.cookies, c2.cookies, c1.ncookies * sizeof(uint64_t));
	/* READDIRPLUS: each entry's handle is LOOKUP's */
	readdir_all(&c, &big, true, 64, &c3);
	assert_true(c3.plus_ok);
	for (unsigned i = 0; i < NFSF_NENTRIES; i += 7) {
		char name[16];
		struct nfs_fh fh;

		snprintf(name, sizeof(name), "e%u", i);
		assert_int_equal(c3.seen[i], 1);
		assert_int_equal(nfsf_lookup(&c, &big, name, &fh, &at), NFS_OK);
		assert_true(nfsf_fh_eq(&fh, &c3.fhs[i]));
	}
	/* at the export's root, READDIRPLUS's ".." is the root itself */
	struct rootdots rd = {0};
	bool eof, dv;
	uint8_t verf[8];

	assert_int_equal(nfs_fs_readdir(&c, &a, 0, verf, true, rootdots_fn, &rd, &eof, &dv, &at),
			 NFS_OK);
	assert_true(rd.found);
	assert_true(nfsf_fh_eq(&rd.dotdot, &a));
	/* READDIR of a file */
	assert_int_equal(nfsf_lookup(&c, &a, "file", &big, &at), NFS_OK);
	assert_int_equal(nfs_fs_readdir(&c, &big, 0, verf, false, rootdots_fn, &rd, &eof, &dv, &at),
			 NFS_ERR_NOTDIR);
	nfs_fs_close(fs);
}

/* ---- the change attribute (ctime and droce's changes within a tick) ---- */

static int64_t ns_of(const struct nfs_time *t)
{
	return (int64_t)t->sec * 1000000000 + t->nsec;
}

/* The counter alone: a change at a ctime counts 1, 2, ...; another ctime reads 0; a change at
 * a new ctime starts again at 1; the count stops at its maximum; another file in the same slot
 * makes the first read 0, and goes on from the slot's count, so the first file's next change
 * at the same ctime shows a count it never showed. */
static void test_change_counter(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct stat st = {.st_ino = 4242, .st_dev = 7}, later;

	(void)state;
	st.st_ctim.tv_sec = 1700000000;
	st.st_ctim.tv_nsec = 4000000;
	later = st;
	later.st_ctim.tv_nsec += 4000000;
	assert_int_equal(nfs_change_count(fs, &st), 0);
	nfs_change_note(fs, &st);
	assert_int_equal(nfs_change_count(fs, &st), 1);
	nfs_change_note(fs, &st);
	assert_int_equal(nfs_change_count(fs, &st), 2);
	assert_int_equal(nfs_change_count(fs, &later), 0);
	nfs_change_note(fs, &later);
	assert_int_equal(nfs_change_count(fs, &later), 1);
	assert_int_equal(nfs_change_count(fs, &st), 0); /* the slot follows the file's ctime */
	for (uint32_t i = 0; i < NFS_CHG_MAX + 10; i++)
		nfs_change_note(fs, &later);
	assert_int_equal(nfs_change_count(fs, &later), NFS_CHG_MAX);
	/* another file that takes a slot goes on from the count there: a file that had the slot
	 * before, at the same ctime, never sees a count again */
	{
		struct stat a = st, b;
		uint32_t first;

		a.st_ino = 777;
		a.st_ctim.tv_nsec = 12000000;
		b = a;
		nfs_change_note(fs, &a);
		first = nfs_change_count(fs, &a);
		assert_int_equal(first, 1);
		for (uint64_t ino = 778; ino < 778 + (1u << 22); ino++) { /* a file in a's slot */
			b.st_ino = ino;
			nfs_change_note(fs, &b);
			if (!nfs_change_count(fs, &a))
				break;
		}
		assert_int_equal(nfs_change_count(fs, &a), 0);
		assert_int_equal(nfs_change_count(fs, &b), first + 1);
		nfs_change_note(fs, &a); /* a again, same ctime */
		assert_int_equal(nfs_change_count(fs, &a), first + 2);
	}
	nfs_fs_close(fs);
}

/* WRITEs and a SETATTR in a row: each one's post-op ctime is later than the one before (the
 * change attribute moves for every change), each pre-op ctime is the previous post-op one (wcc
 * chains), a COMMIT, a SETATTR its guard refuses and a rename onto itself leave it as it was,
 * GETATTR reports the last, and a SETATTR guarded by that ctime is accepted while one
 * guarded by the kernel's own ctime is NOT_SYNC when they differ. On a kernel with coarse
 * ctimes (Debian 12's 6.1) the writes share a tick and the counter moves the ctime; a kernel
 * with multigrain timestamps (6.13 and later) moves it itself, and test_change_counter is what
 * tests the counter there. The test says which happened. */
static void test_change_every_write(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), f;
	struct nfs_sattr sa = {.set_mode = true, .mode = 0600};
	struct nfs_attr at;
	struct nfs_wcc w[8];
	enum nfs_stable committed;
	struct nfs_time kernel;
	uint32_t wr, counted = 0;

	(void)state;
	assert_int_equal(nfsf_create(&c, &a, "chg", NFS_CREATE_GUARDED, 0644, NULL, &f, &at),
			 NFS_OK);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(nfs_fs_write(&c, &f, (uint64_t)i, "x", 1, NFS_UNSTABLE, &wr,
					      &committed, &w[i]),
				 NFS_OK);
		assert_true(w[i].pre_valid && w[i].post_valid);
		assert_true(ns_of(&w[i].post.ctime) > ns_of(&w[i].pre_ctime));
		if (i)
			assert_int_equal(ns_of(&w[i].pre_ctime), ns_of(&w[i - 1].post.ctime));
	}
	/* what changes nothing moves nothing: a COMMIT, a SETATTR refused by its guard */
	assert_int_equal(nfs_fs_commit(&c, &f, 0, 0, &w[1]), NFS_OK);
	assert_int_equal(ns_of(&w[1].post.ctime), ns_of(&w[7].post.ctime));
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, &(struct nfs_time){1, 1}, &w[1]),
			 NFS_ERR_NOT_SYNC);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_OK);
	assert_int_equal(ns_of(&at.ctime), ns_of(&w[7].post.ctime));
	/* the guard the client sends is the ctime it was told, not the kernel's */
	{
		struct stat st;
		char path[512];

		nfsf_pathf(path, sizeof(path), "a/chg");
		assert_int_equal(stat(path, &st), 0);
		kernel.sec = (uint32_t)st.st_ctim.tv_sec;
		kernel.nsec = (uint32_t)st.st_ctim.tv_nsec;
		counted = nfs_change_count(fs, &st);
		if (counted > 1)
			assert_int_equal(nfs_fs_setattr(&c, &f, &sa, &kernel, NULL),
					 NFS_ERR_NOT_SYNC);
	}
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, &at.ctime, &w[0]), NFS_OK);
	assert_true(ns_of(&w[0].post.ctime) > ns_of(&at.ctime));
	/* a rename onto itself does nothing (rename(2)), and the directory's change info says so
	 * (pynfs RNM18-20); a real one moves it */
	assert_int_equal(nfs_fs_rename(&c, &a, "chg", 3, &a, "chg", 3, &w[2], &w[3]), NFS_OK);
	assert_int_equal(ns_of(&w[2].pre_ctime), ns_of(&w[2].post.ctime));
	assert_int_equal(ns_of(&w[3].pre_ctime), ns_of(&w[3].post.ctime));
	assert_int_equal(nfs_fs_rename(&c, &a, "chg", 3, &a, "chg2", 4, &w[2], &w[3]), NFS_OK);
	assert_true(ns_of(&w[3].post.ctime) > ns_of(&w[3].pre_ctime));
	print_message("# 8 writes: the last %u at the kernel's last ctime (%s)\n", counted,
		      counted > 1 ? "the counter told them apart"
				  : "the kernel moved ctime at each: multigrain timestamps");
	nfs_fs_close(fs);
}

/* ---- data and directory operations ---- */

static void test_data_and_dirs(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), b = nfsf_mount_of(&c, "b"), f, d, l, n;
	struct nfs_sattr sa = {0};
	struct nfs_attr at, before;
	struct nfs_wcc w, w2;
	enum nfs_stable committed;
	char buf[64];
	uint32_t got, wr;
	bool eof, v;

	(void)state;
	/* write at offsets, read back */
	assert_int_equal(nfsf_create(&c, &a, "data", NFS_CREATE_GUARDED, 0644, NULL, &f, &at),
			 NFS_OK);
	assert_int_equal(nfs_fs_write(&c, &f, 10, "world", 5, NFS_UNSTABLE, &wr, &committed, &w),
			 NFS_OK);
	assert_int_equal(committed, NFS_UNSTABLE);
	assert_true(w.pre_valid && w.post_valid);
	assert_int_equal(w.pre_size, 0);
	assert_int_equal(w.post.size, 15);
	assert_int_equal(nfs_fs_write(&c, &f, 0, "hello", 5, NFS_DATA_SYNC, &wr, &committed, &w),
			 NFS_OK);
	assert_int_equal(committed, NFS_FILE_SYNC);
	assert_int_equal(nfs_fs_commit(&c, &f, 0, 0, &w), NFS_OK);
	assert_int_equal(nfs_fs_read(&c, &f, 0, sizeof(buf), buf, &got, &eof, &v, &at), NFS_OK);
	assert_int_equal(got, 15);
	assert_true(eof && v);
	assert_memory_equal(buf, "hello\0\0\0\0\0world", 15);
	assert_int_equal(nfs_fs_read(&c, &f, 12, 2, buf, &got, &eof, &v, &at), NFS_OK);
	assert_int_equal(got, 2);
	assert_false(eof);
	assert_memory_equal(buf, "rl", 2);
	assert_int_equal(nfs_fs_read(&c, &f, 100, 2, buf, &got, &eof, &v, &at), NFS_OK);
	assert_int_equal(got, 0);
	assert_true(eof);
	/* READ and WRITE need a regular file */
	assert_int_equal(nfs_fs_read(&c, &a, 0, 2, buf, &got, &eof, &v, &at), NFS_ERR_ISDIR);
	assert_int_equal(nfsf_write_at(&c, &a, 0, "x"), NFS_ERR_ISDIR);

	/* SETATTR: size, then a guard that does not match, then one that does */
	assert_int_equal(nfs_fs_getattr(&c, &f, &before), NFS_OK);
	sa.set_size = true;
	sa.size = 3;
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, NULL, &w), NFS_OK);
	assert_true(w.pre_valid && w.post_valid);
	assert_int_equal(w.pre_size, 15);
	assert_int_equal(w.post.size, 3);
	struct nfs_time old = before.ctime;

	sa.size = 1;
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, &old, &w), NFS_ERR_NOT_SYNC);
	assert_int_equal(w.post.size, 3);
	old = w.post.ctime; /* (w is cleared when the call starts) */
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, &old, &w), NFS_OK);
	assert_int_equal(w.post.size, 1);
	sa = (struct nfs_sattr){.set_mode = true,
				.mode = 04751,
				.mtime_how = NFS_TIME_CLIENT,
				.mtime = {.sec = 1000000, .nsec = 5},
				.atime_how = NFS_TIME_SERVER};
	assert_int_equal(nfs_fs_setattr(&c, &f, &sa, NULL, &w), NFS_OK);
	assert_int_equal(w.post.mode, 04751);
	assert_int_equal(w.post.mtime.sec, 1000000);
	assert_int_equal(w.post.mtime.nsec, 5);
	assert_true(w.post.atime.sec > 1000000);
	assert_int_equal(w.post.fileid, before.fileid);
	assert_int_equal(w.post.fsid, nfs_fs_export(fs, 0)->fsid);

	/* MKDIR, RMDIR of a non-empty directory, RENAME, LINK, SYMLINK, MKNOD */
	sa = (struct nfs_sattr){.set_mode = true, .mode = 0750};
	assert_int_equal(nfs_fs_mkdir(&c, &a, "dir", 3, &sa, &d, &at, &w), NFS_OK);
	assert_int_equal(at.type, NFS_DIR);
	assert_int_equal(at.mode, 0750);
	assert_true(w.pre_valid && w.post_valid);
	assert_int_equal(nfs_fs_mkdir(&c, &a, "dir", 3, &sa, &d, &at, &w), NFS_ERR_EXIST);
	assert_int_equal(nfs_fs_rename(&c, &a, "data", 4, &d, "moved", 5, &w, &w2), NFS_OK);
	assert_true(w.pre_valid && w.post_valid && w2.pre_valid && w2.post_valid);
	assert_int_equal(nfs_fs_rmdir(&c, &a, "dir", 3, &w), NFS_ERR_NOTEMPTY);
	assert_int_equal(nfs_fs_link(&c, &f, &a, "hard", 4, &v, &at, &w), NFS_OK);
	assert_true(v);
	assert_int_equal(at.nlink, 2);
	assert_int_equal(nfs_fs_link(&c, &d, &a, "dirlink", 7, &v, &at, &w), NFS_ERR_ISDIR);
	assert_int_equal(nfs_fs_symlink(&c, &d, "sl", 2, NULL, "../hard", 7, &l, &at, &w), NFS_OK);
	assert_int_equal(at.type, NFS_LNK);
	assert_int_equal(nfs_fs_readlink(&c, &l, buf, sizeof(buf), &got, &v, &at), NFS_OK);
	assert_memory_equal(buf, "../hard", 7);
	assert_int_equal(nfs_fs_readlink(&c, &f, buf, sizeof(buf), &got, &v, &at), NFS_ERR_INVAL);
	sa = (struct nfs_sattr){.set_mode = true, .mode = 0600};
	assert_int_equal(nfs_fs_mknod(&c, &d, "fifo", 4, NFS_FIFO, &sa, 0, 0, &n, &at, &w), NFS_OK);
	assert_int_equal(at.type, NFS_FIFO);
	assert_int_equal(nfs_fs_mknod(&c, &d, "chr", 3, NFS_CHR, &sa, 1, 3, &n, &at, &w), NFS_OK);
	assert_int_equal(at.type, NFS_CHR);
	assert_int_equal(at.rdev_major, 1);
	assert_int_equal(at.rdev_minor, 3);
	assert_int_equal(nfs_fs_mknod(&c, &d, "reg", 3, NFS_REG, &sa, 0, 0, &n, &at, &w),
			 NFS_ERR_BADTYPE);
	/* across exports: XDEV */
	assert_int_equal(nfs_fs_rename(&c, &a, "hard", 4, &b, "hard", 4, &w, &w2), NFS_ERR_XDEV);
	assert_int_equal(nfs_fs_link(&c, &f, &b, "hard", 4, &v, &at, &w), NFS_ERR_XDEV);
	/* a 256-byte name */
	char longname[256];

	memset(longname, 'x', sizeof(longname));
	assert_int_equal(nfs_fs_mkdir(&c, &a, longname, 256, &sa, &n, &at, &w),
			 NFS_ERR_NAMETOOLONG);
	assert_int_equal(nfs_fs_remove(&c, &a, longname, 256, &w), NFS_ERR_NAMETOOLONG);
	assert_int_equal(nfs_fs_remove(&c, &a, "nothere", 7, &w), NFS_ERR_NOENT);
	assert_int_equal(nfs_fs_remove(&c, &a, "sub", 3, &w), NFS_ERR_ISDIR);
	/* cleaned up: the directory empties and goes */
	assert_int_equal(nfs_fs_remove(&c, &d, "moved", 5, &w), NFS_OK);
	assert_int_equal(nfs_fs_remove(&c, &d, "sl", 2, &w), NFS_OK);
	assert_int_equal(nfs_fs_remove(&c, &d, "fifo", 4, &w), NFS_OK);
	assert_int_equal(nfs_fs_remove(&c, &d, "chr", 3, &w), NFS_OK);
	assert_int_equal(nfs_fs_rmdir(&c, &a, "dir", 3, &w), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &d, &at), NFS_ERR_STALE);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_OK); /* still linked as "hard" */

	/* FSSTAT, FSINFO, PATHCONF */
	struct nfs_fsstat fst;
	struct nfs_fsinfo fi;
	struct nfs_pathconf pc;

	assert_int_equal(nfs_fs_fsstat(&c, &a, &fst, &v, &at), NFS_OK);
	assert_true(v && fst.tbytes > 0 && fst.tbytes >= fst.fbytes && fst.fbytes >= fst.abytes);
	assert_int_equal(nfs_fs_fsinfo(&c, &a, 1u << 20, &fi, &v, &at), NFS_OK);
	assert_int_equal(fi.rtmax, 1u << 20);
	assert_int_equal(fi.wtpref, 1u << 20);
	assert_int_equal(fi.dtpref, 65536);
	assert_int_equal(fi.time_delta.nsec, 1);
	assert_int_equal(fi.properties, 0x1b);
	assert_true(fi.maxfilesize > (1ull << 40));
	assert_int_equal(nfs_fs_pathconf(&c, &a, &pc, &v, &at), NFS_OK);
	assert_int_equal(pc.name_max, 255);
	assert_true(pc.linkmax > 1 && pc.no_trunc && pc.case_preserving);
	nfs_fs_close(fs);
}

/* ---- mount points ---- */

static void test_mount_points(void **state)
{
	struct nfs_fs *fs;
	struct nfs_ctx c;
	struct nfs_fh a, mp, f;
	struct nfs_attr ra, at;
	char text[1200];

	(void)state;
	if (!nfsf_have_ns)
		skip();
	/* without crossmnt: the directory under the mount point (empty here) */
	fs = nfsf_open_fs(nfsf_exports);
	c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	a = nfsf_mount_of(&c, "a");
	assert_int_equal(nfs_fs_getattr(&c, &a, &ra), NFS_OK);
	assert_int_equal(nfsf_lookup(&c, &a, "mnt", &mp, &at), NFS_OK);
	assert_true(at.fsid == ra.fsid);
	assert_int_equal(nfsf_lookup(&c, &mp, "on_tmpfs", &f, &at), NFS_ERR_NOENT);
	nfs_fs_close(fs);
	/* with crossmnt: the tmpfs, another fsid, and its files; ".." leads back */
	snprintf(text, sizeof(text), "%s/a 127.0.0.1(rw,no_root_squash,crossmnt)\n", nfsf_base);
	fs = nfsf_open_fs(text);
	c.fs = fs;
	a = nfsf_mount_of(&c, "a");
	assert_int_equal(nfsf_lookup(&c, &a, "mnt", &mp, &at), NFS_OK);
	assert_true(at.fsid != ra.fsid);
	assert_int_equal(nfsf_lookup(&c, &mp, "on_tmpfs", &f, &at), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_OK);
	assert_int_equal(at.size, 3);
	assert_int_equal(nfsf_lookup(&c, &mp, "..", &f, &at), NFS_OK);
	assert_true(nfsf_fh_eq(&f, &a));
	nfs_fs_close(fs);
	/* the same handle after a restart (the submount is found again) */
	fs = nfsf_open_fs(text);
	c.fs = fs;
	assert_int_equal(nfsf_lookup(&c, &mp, "on_tmpfs", &f, &at), NFS_OK);
	nfs_fs_close(fs);
}

/* ---- ALLOCATE past the free space, on ext4 ---- */

static uint64_t free_bytes(const char *dir)
{
	struct statvfs v;

	assert_int_equal(statvfs(dir, &v), 0);
	return (uint64_t)v.f_bfree * v.f_frsize;
}

/* the backend exporting @dir (the tree's @rel) alone to 127.0.0.1 as root, with a file f
 * created in it: its handle in @f, the caller in @c */
/* An ext4 image (size, mkfs.ext4 options) at img_rel, loop-mounted (mount options) at dir_rel,
 * made here, in the test's own mount namespace; its path in dir. false: no loop-mounted ext4
 * here, which fails the test under CI (DROCE_CI); elsewhere the caller undoes what it set up
 * and skips. */
static bool loop_ext4(const char *img_rel, const char *dir_rel, const char *size,
		      const char *mkfs_opts, const char *mount_opts, char *dir, size_t dircap)
{
	char img[512], cmd[2400];

	nfsf_pathf(img, sizeof(img), "%s", img_rel);
	nfsf_pathf(dir, dircap, "%s", dir_rel);
	nfsf_mkdir_rel(dir_rel, 0755);
	snprintf(cmd, sizeof(cmd),
		 "truncate -s %s %s && mkfs.ext4 -q -F %s %s && mount -o loop%s %s %s", size, img,
		 mkfs_opts, img, mount_opts, img, dir);
	if (system(cmd) == 0)
		return true;
	printf("# no loop-mounted ext4 here (truncate, mkfs.ext4, mount -o loop)\n");
	if (getenv("DROCE_CI"))
		fail_msg("CI must run this: a loop-mounted ext4 is needed");
	return false;
}

static struct nfs_fs *serve_with_file(const char *dir, const char *rel, struct nfs_ctx *c,
				      struct nfs_fh *f)
{
	struct nfs_fh root;
	struct nfs_fs *fs;
	char text[600];

	snprintf(text, sizeof(text), "%s 127.0.0.1(rw,no_root_squash)\n", dir);
	fs = nfsf_open_fs(text);
	*c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	root = nfsf_mount_of(c, rel);
	assert_int_equal(nfsf_create(c, &root, "f", NFS_CREATE_UNCHECKED, 0644, NULL, f, NULL),
			 NFS_OK);
	return fs;
}

/* ext4 keeps what a failed fallocate reserved: ALLOCATE of more than the free space must be
 * NOSPC without filling the file system (a fuzzed ALLOCATE once filled CI's disk), and one that
 * fits only because the range is allocated already must still go. A 64 MiB ext4 image, loop
 * mounted in the test's own mount namespace (gone with it). */
static void test_allocate_past_free(void **state)
{
	char dir[512], cmd[2200];
	struct nfs_fh f;
	struct nfs_fs *fs;
	struct nfs_ctx c;
	struct stat st;
	uint64_t before, after, len;

	(void)state;
	if (!nfsf_have_ns)
		skip();
	if (!loop_ext4("ext4.img", "e4", "64M", "", "", dir, sizeof(dir)))
		skip();
	fs = serve_with_file(dir, "e4", &c, &f);
	/* 1 GiB on a 64 MiB file system: NOSPC, and the free space is as it was */
	before = free_bytes(dir);
	assert_int_equal(nfs_fs_allocate(&c, &f, 0, 1ull << 30, false), NFS_ERR_NOSPC);
	after = free_bytes(dir);
	assert_true(after + (64u << 10) >= before);
	/* 8 MiB fits and is reserved */
	assert_int_equal(nfs_fs_allocate(&c, &f, 0, 8u << 20, false), NFS_OK);
	nfsf_pathf(cmd, sizeof(cmd), "e4/f");
	assert_int_equal(stat(cmd, &st), 0);
	assert_true((uint64_t)st.st_blocks * 512 >= 8u << 20);
	/* more than the free space over a range whose first 8 MiB are reserved: it needs less
	 * than it asks, fits, and is not refused */
	len = free_bytes(dir) + (4u << 20);
	assert_int_equal(nfs_fs_allocate(&c, &f, 0, len, false), NFS_OK);
	assert_int_equal(stat(cmd, &st), 0);
	assert_true((uint64_t)st.st_size == len);
	/* and past that, refused again without a block taken */
	before = free_bytes(dir);
	assert_int_equal(nfs_fs_allocate(&c, &f, len, before + (1u << 20), false), NFS_ERR_NOSPC);
	assert_true(free_bytes(dir) + (64u << 10) >= before);
	nfs_fs_close(fs);
	assert_int_equal(umount(dir), 0);
}

/* A write-back error changes the write verifier (RFC 1813 §3.3.7; knfsd's
 * nfsd_reset_write_verifier): what a client wrote UNSTABLE and the disk then failed to take must
 * be sent again, and the client learns that only from a verifier it has not seen before. A real
 * write-back error, not a simulated one: an ext4 image (64 MiB, sparse, no journal) on a 12 MiB
 * tmpfs, loop-mounted in the test's own mount namespace. ext4 takes 24 MiB of UNSTABLE writes
 * into the page cache; COMMIT's fsync makes the loop device write them, the tmpfs fills, the
 * writes fail, and fsync reports it. Then a FILE_SYNC WRITE whose own fsync fails. */
static void test_verifier_after_writeback_error(void **state)
{
	static uint8_t chunk[1u << 20];
	char tdir[512], mnt[512];
	uint8_t v0[8], v1[8], v2[8], v3[8];
	enum nfs_stable committed;
	struct nfs_fh f;
	struct nfs_fs *fs;
	struct nfs_ctx c;
	struct nfs_wcc w;
	enum nfs_stat st;
	uint32_t wr;

	(void)state;
	if (!nfsf_have_ns)
		skip();
	nfsf_mkdir_rel("wb", 0755);
	nfsf_pathf(tdir, sizeof(tdir), "wb");
	assert_int_equal(mount("nfsfs_wb", tdir, "tmpfs", 0, "size=12m"), 0);
	if (!loop_ext4("wb/ext4.img", "wb/m", "64M", "-O ^has_journal -E lazy_itable_init=1",
		       ",errors=continue", mnt, sizeof(mnt))) {
		umount(tdir);
		skip();
	}
	fs = serve_with_file(mnt, "wb/m", &c, &f);
	nfs_fs_write_verf(fs, v0);
	memset(chunk, 0x5a, sizeof(chunk));
	for (uint32_t i = 0; i < 24; i++) {
		assert_int_equal(nfs_fs_write(&c, &f, (uint64_t)i << 20, chunk, sizeof(chunk),
					      NFS_UNSTABLE, &wr, &committed, &w),
				 NFS_OK);
		assert_int_equal(wr, sizeof(chunk));
	}
	/* the writes went into the page cache: nothing failed, the verifier is the same */
	nfs_fs_write_verf(fs, v1);
	assert_memory_equal(v0, v1, 8);
	st = nfs_fs_commit(&c, &f, 0, 0, &w);
	printf("# COMMIT of 24 MiB that the 12 MiB under the image cannot hold: %s\n",
	       nfs_stat_name(st));
	assert_int_not_equal(st, NFS_OK);
	nfs_fs_write_verf(fs, v2);
	assert_memory_not_equal(v1, v2, 8);
	/* the new verifier holds until the next error: a read does not change it */
	{
		char buf[16];
		uint32_t got;
		bool eof, v;
		struct nfs_attr at;

		(void)nfs_fs_read(&c, &f, 0, sizeof(buf), buf, &got, &eof, &v, &at);
	}
	nfs_fs_write_verf(fs, v3);
	assert_memory_equal(v2, v3, 8);
	/* a FILE_SYNC WRITE whose own fsync fails (the tmpfs is still full) changes it again */
	st = nfs_fs_write(&c, &f, 32u << 20, chunk, sizeof(chunk), NFS_FILE_SYNC, &wr, &committed,
			  &w);
	printf("# FILE_SYNC WRITE of 1 MiB more: %s\n", nfs_stat_name(st));
	assert_int_not_equal(st, NFS_OK);
	nfs_fs_write_verf(fs, v3);
	assert_memory_not_equal(v2, v3, 8);
	nfs_fs_close(fs);
	umount2(mnt, MNT_DETACH);
	umount2(tdir, MNT_DETACH);
}

/* A failed WRITE changes the write verifier too (knfsd's commit_reset_write_verifier: any write
 * error but EAGAIN and ESTALE): a 16 MiB ext4 image, loop-mounted, takes UNSTABLE 1 MiB writes
 * with one verifier until it is full; the WRITE that fails (NOSPC) leaves a new one. */
static void test_verifier_after_write_error(void **state)
{
	static uint8_t chunk[1u << 20];
	char mnt[512];
	uint8_t v0[8], v1[8];
	enum nfs_stable committed;
	enum nfs_stat st = NFS_OK;
	struct nfs_fh f;
	struct nfs_fs *fs;
	struct nfs_ctx c;
	struct nfs_wcc w;
	uint32_t wr, i;

	(void)state;
	if (!nfsf_have_ns)
		skip();
	if (!loop_ext4("small.img", "small", "16M", "-O ^has_journal", "", mnt, sizeof(mnt)))
		skip();
	fs = serve_with_file(mnt, "small", &c, &f);
	nfs_fs_write_verf(fs, v0);
	memset(chunk, 0xa5, sizeof(chunk));
	for (i = 0; i < 32; i++) {
		st = nfs_fs_write(&c, &f, (uint64_t)i << 20, chunk, sizeof(chunk), NFS_UNSTABLE,
				  &wr, &committed, &w);
		if (st != NFS_OK)
			break;
		nfs_fs_write_verf(fs, v1);
		assert_memory_equal(v0, v1, 8); /* written: the same verifier */
	}
	printf("# %u MiB written, then %s\n", i, nfs_stat_name(st));
	assert_true(i > 4 && i < 32);
	assert_int_equal(st, NFS_ERR_NOSPC);
	nfs_fs_write_verf(fs, v1);
	assert_memory_not_equal(v0, v1, 8);
	nfs_fs_close(fs);
	assert_int_equal(umount(mnt), 0);
}

/* a tmpfs without a size limit reports no blocks at all: an ALLOCATE there is fallocate's to
 * decide, not refused for want of free blocks that statvfs cannot show */
static void test_allocate_unsized_tmpfs(void **state)
{
	char dir[512];
	struct nfs_fh f;
	struct nfs_fs *fs;
	struct nfs_ctx c;
	struct statvfs v;

	(void)state;
	if (!nfsf_have_ns)
		skip();
	nfsf_pathf(dir, sizeof(dir), "t0");
	nfsf_mkdir_rel("t0", 0755);
	assert_int_equal(mount("nfsfs_t0", dir, "tmpfs", 0, "size=0"), 0);
	assert_int_equal(statvfs(dir, &v), 0);
	assert_true(v.f_blocks == 0 && v.f_bfree == 0);
	fs = serve_with_file(dir, "t0", &c, &f);
	assert_int_equal(nfs_fs_allocate(&c, &f, 0, 1u << 20, false), NFS_OK);
	nfs_fs_close(fs);
	assert_int_equal(umount(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_modes),
		cmocka_unit_test(test_readdir),
		cmocka_unit_test(test_data_and_dirs),
		cmocka_unit_test(test_change_counter),
		cmocka_unit_test(test_change_every_write),
		cmocka_unit_test(test_mount_points),
		cmocka_unit_test(test_allocate_past_free),
		cmocka_unit_test(test_allocate_unsized_tmpfs),
		cmocka_unit_test(test_verifier_after_writeback_error),
		cmocka_unit_test(test_verifier_after_write_error),
	};
	int rc = nfsf_up(true);

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	nfsf_down();
	return rc;
}
