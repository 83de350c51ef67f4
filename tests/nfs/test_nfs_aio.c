/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs_aio.c - READ and WRITE through io_uring (nfs/fs/nfs_aio.c) on a real file system:
 *  - a READ by io_uring answers the bytes, count, end of file and attributes the synchronous
 *    READ answers;
 *  - what the lcore must not do is left to the synchronous path, and counted by reason: a
 *    descriptor not yet cached, a caller who is not the owner, a stable WRITE on a sync export,
 *    a read-only export, every slot taken;
 *  - a WRITE runs as the caller: the kernel clears setuid and setgid when uid 1000 writes its
 *    own 06755 file, and keeps setuid when root writes root's 04755 file (so the clearing is
 *    the kernel's, under the caller's personality, not droce's);
 *  - an async export's FILE_SYNC WRITE is started and answers FILE_SYNC;
 *  - 40 identities through a 32-entry personality table: every WRITE lands, as its writer;
 *  - destroy hands every submitted operation to done.
 *
 * Needs root (open_by_handle_at, credential switches) and io_uring: exits 77 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs_aio.h"
#include "nfs_fs.h"

static char base[256];
static char statedir[300];
static char exports[2048];

static struct nfs_fs *fs;
static struct nfs_aio *aio;
static struct nfs_aio_done got[64];
static int ngot;
static bool have_ns;   /* a mount namespace of our own */
static bool have_full; /* base/full: a 16 MiB ext4, loop-mounted in it */

static void pathf(char *out, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(out, cap, "%s/", base);

	va_start(ap, fmt);
	vsnprintf(out + n, cap - (size_t)n, fmt, ap);
	va_end(ap);
}

static void mkfile(const char *rel, mode_t mode, uid_t uid, const void *data, size_t len)
{
	char p[512];
	int fd;

	pathf(p, sizeof(p), "%s", rel);
	fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	if (len)
		assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchown(fd, uid, uid), 0);
	assert_int_equal(fchmod(fd, mode), 0); /* after the chown, which clears setuid */
	close(fd);
}

static struct stat stat_rel(const char *rel)
{
	struct stat st;
	char p[512];

	pathf(p, sizeof(p), "%s", rel);
	assert_int_equal(stat(p, &st), 0);
	return st;
}

static struct nfs_ctx ctx_of(uint32_t uid)
{
	struct nfs_ctx c = {.fs = fs};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&c.peer;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(700);
	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &s4->sin_addr), 1);
	c.cred.flavor = 1;
	c.cred.uid = uid;
	c.cred.gid = uid;
	return c;
}

/* the handle of rel (DIR/NAME) as caller c sees it */
static struct nfs_fh fh_of(struct nfs_ctx *c, const char *dir, const char *name)
{
	struct nfs_fh root, fh;
	struct nfs_attr a, da;
	char p[512];
	bool dv;

	pathf(p, sizeof(p), "%s", dir);
	assert_int_equal(nfs_fs_mount(c, p, &root), NFS_OK);
	assert_int_equal(nfs_fs_lookup(c, &root, name, (uint32_t)strlen(name), &fh, &a, &dv, &da),
			 NFS_OK);
	return fh;
}

static void on_done(const struct nfs_aio_done *d)
{
	assert_true(ngot < (int)(sizeof(got) / sizeof(got[0])));
	got[ngot++] = *d;
}

/* poll until n operations ended (bounded: 5 s) */
static void wait_done(int n)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ngot < n) {
		nfs_aio_poll(aio, on_done, 64);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			break;
		if (ngot < n)
			usleep(100);
	}
	assert_int_equal(ngot, n);
}

static void pattern(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)((i * 131u + seed) >> 3);
}

static int setup(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(nfs_fs_open(&fs, exports, statedir, err, sizeof(err)), 0);
	aio = nfs_aio_create(fs, 64);
	assert_non_null(aio);
	ngot = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nfs_aio_destroy(aio, on_done);
	aio = NULL;
	nfs_fs_close(fs);
	fs = NULL;
	return 0;
}

static void test_read_matches_sync(void **state)
{
	static uint8_t data[10000], sync_buf[8192], aio_buf[8192];
	struct nfs_ctx c = ctx_of(0);
	struct nfs_aio_stats st;
	struct nfs_aio_op *op;
	struct nfs_attr sa;
	struct nfs_fh fh;
	uint32_t n;
	bool eof, av;

	(void)state;
	pattern(data, sizeof(data), 7);
	mkfile("sync/r", 0644, 0, data, sizeof(data));
	fh = fh_of(&c, "sync", "r");
	/* no READ descriptor yet: the synchronous path opens it */
	assert_null(nfs_aio_read(aio, &c, &fh, 0, 4096, aio_buf));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.miss, 1);
	assert_int_equal(nfs_fs_read(&c, &fh, 4096, 8192, sync_buf, &n, &eof, &av, &sa), NFS_OK);
	assert_int_equal(n, 10000 - 4096);
	assert_true(eof);
	op = nfs_aio_read(aio, &c, &fh, 4096, 8192, aio_buf);
	assert_non_null(op);
	nfs_aio_submit(op, (void *)0x1234);
	wait_done(1);
	assert_ptr_equal(got[0].cookie, (void *)0x1234);
	assert_false(got[0].write);
	assert_int_equal(got[0].status, NFS_OK);
	assert_int_equal(got[0].count, 10000 - 4096);
	assert_true(got[0].eof);
	assert_memory_equal(aio_buf, data + 4096, 10000 - 4096);
	assert_memory_equal(aio_buf, sync_buf, 10000 - 4096);
	assert_true(got[0].attr_valid);
	assert_int_equal(got[0].attr.size, 10000);
	assert_int_equal(got[0].attr.fileid, sa.fileid);
	assert_int_equal(got[0].attr.mode, sa.mode);
	/* not at the end: eof false; past it: 0 bytes and eof */
	op = nfs_aio_read(aio, &c, &fh, 0, 100, aio_buf);
	nfs_aio_submit(op, NULL);
	op = nfs_aio_read(aio, &c, &fh, 20000, 100, aio_buf + 4096);
	nfs_aio_submit(op, NULL);
	wait_done(3);
	assert_int_equal(got[1].count, 100);
	assert_false(got[1].eof);
	assert_int_equal(got[2].status, NFS_OK);
	assert_int_equal(got[2].count, 0);
	assert_true(got[2].eof);
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.reads, 3);
}

static void test_left_to_sync_path(void **state)
{
	static uint8_t buf[4096];
	struct nfs_ctx root = ctx_of(0), user = ctx_of(1000);
	struct nfs_wcc w;
	struct nfs_aio_stats st;
	struct nfs_aio_op *op[2];
	enum nfs_stable how;
	struct nfs_fh fh, rofh;
	struct nfs_attr a;
	uint32_t n;
	bool eof, av;

	(void)state;
	mkfile("sync/theirs", 0666, 1000, "abc", 3);
	fh = fh_of(&root, "sync", "theirs");
	assert_int_equal(nfs_fs_read(&root, &fh, 0, 3, buf, &n, &eof, &av, &a), NFS_OK);
	/* root is not the owner: the kernel must be asked, off the lcore */
	assert_null(nfs_aio_read(aio, &root, &fh, 0, 3, buf));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.not_owner, 1);
	/* the owner: started */
	op[0] = nfs_aio_read(aio, &user, &fh, 0, 3, buf);
	assert_non_null(op[0]);
	nfs_aio_cancel(op[0]);
	/* a stable WRITE on a sync export needs its fsync where a trace sees it */
	assert_int_equal(nfs_fs_write(&user, &fh, 0, "xyz", 3, NFS_UNSTABLE, &n, &how, &w), NFS_OK);
	assert_null(nfs_aio_write(aio, &user, &fh, 0, "xyz", 3, NFS_FILE_SYNC));
	assert_null(nfs_aio_write(aio, &user, &fh, 0, "xyz", 3, NFS_DATA_SYNC));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.needs_sync, 2);
	/* a read-only export: the synchronous path answers ROFS */
	mkfile("ro/f", 0644, 1000, "abc", 3);
	rofh = fh_of(&user, "ro", "f");
	assert_null(nfs_aio_write(aio, &user, &rofh, 0, "x", 1, NFS_UNSTABLE));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.other, 1);
	assert_int_equal(nfs_fs_write(&user, &rofh, 0, "x", 1, NFS_UNSTABLE, &n, &how, &w),
			 NFS_ERR_ROFS);
	/* a forged handle: not started (the synchronous path answers BADHANDLE) */
	rofh.data[rofh.len - 1] ^= 1;
	assert_null(nfs_aio_read(aio, &user, &rofh, 0, 1, buf));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.other, 2);
}

/* A READ checks its file after the read (nfs_aio.h): one removed meanwhile answers STALE, as
 * the synchronous path does; one whose owner changed comes back to run again. */
static void test_read_checks_after(void **state)
{
	static uint8_t buf[64];
	struct nfs_ctx user = ctx_of(1000);
	struct nfs_aio_stats st;
	struct nfs_aio_op *op;
	struct nfs_attr a;
	struct nfs_fh fh;
	char p[512];
	uint32_t n;
	bool eof, av;

	(void)state;
	mkfile("sync/gone", 0644, 1000, "abcdef", 6);
	fh = fh_of(&user, "sync", "gone");
	assert_int_equal(nfs_fs_read(&user, &fh, 0, 6, buf, &n, &eof, &av, &a), NFS_OK);
	/* the owner changes between the start and the end: handed back, nothing answered */
	op = nfs_aio_read(aio, &user, &fh, 0, 6, buf);
	assert_non_null(op);
	pathf(p, sizeof(p), "sync/gone");
	assert_int_equal(chown(p, 1001, 1001), 0);
	nfs_aio_submit(op, NULL);
	wait_done(1);
	assert_true(got[0].rerun);
	assert_false(got[0].attr_valid);
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.rechecked, 1);
	/* the cache saw the new owner: the next one is left to the synchronous path */
	assert_null(nfs_aio_read(aio, &user, &fh, 0, 6, buf));
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.not_owner, 1);
	/* back to its owner, then removed between the start and the end: STALE */
	assert_int_equal(chown(p, 1000, 1000), 0);
	assert_int_equal(nfs_fs_read(&user, &fh, 0, 6, buf, &n, &eof, &av, &a), NFS_OK);
	op = nfs_aio_read(aio, &user, &fh, 0, 6, buf);
	assert_non_null(op);
	assert_int_equal(unlink(p), 0);
	nfs_aio_submit(op, NULL);
	wait_done(2);
	assert_false(got[1].rerun);
	assert_int_equal(got[1].status, NFS_ERR_STALE);
	assert_int_equal(got[1].count, 0);
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.stale, 1);
	assert_int_equal(nfs_fs_read(&user, &fh, 0, 6, buf, &n, &eof, &av, &a), NFS_ERR_STALE);
}

static void test_slots_bounded(void **state)
{
	static uint8_t buf[3][16];
	struct nfs_ctx c = ctx_of(0);
	struct nfs_aio *small;
	struct nfs_aio_stats st;
	struct nfs_aio_op *op[3];
	struct nfs_fh fh;
	struct nfs_attr a;
	uint32_t n;
	bool eof, av;

	(void)state;
	mkfile("sync/s", 0644, 0, "0123456789abcdef", 16);
	fh = fh_of(&c, "sync", "s");
	assert_int_equal(nfs_fs_read(&c, &fh, 0, 16, buf[0], &n, &eof, &av, &a), NFS_OK);
	small = nfs_aio_create(fs, 2);
	assert_non_null(small);
	op[0] = nfs_aio_read(small, &c, &fh, 0, 16, buf[0]);
	op[1] = nfs_aio_read(small, &c, &fh, 0, 16, buf[1]);
	assert_non_null(op[0]);
	assert_non_null(op[1]);
	assert_null(nfs_aio_read(small, &c, &fh, 0, 16, buf[2]));
	nfs_aio_stats(small, &st);
	assert_int_equal(st.busy, 1);
	assert_int_equal(nfs_aio_inflight(small), 2);
	nfs_aio_cancel(op[1]);
	op[2] = nfs_aio_read(small, &c, &fh, 4, 4, buf[2]);
	assert_non_null(op[2]);
	nfs_aio_submit(op[0], (void *)1);
	nfs_aio_submit(op[2], (void *)3);
	/* destroy waits for both and hands them over */
	nfs_aio_destroy(small, on_done);
	assert_int_equal(ngot, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(got[i].status, NFS_OK);
		assert_true(got[i].cookie == (void *)1 || got[i].cookie == (void *)3);
	}
	assert_memory_equal(buf[0], "0123456789abcdef", 16);
	assert_memory_equal(buf[2], "4567", 4);
}

/* write "xyz" at 0 through io_uring as uid, to rel, after a synchronous WRITE opened its
 * descriptor and the mode was set (again) to mode */
static void aio_write_as(uint32_t uid, const char *dir, const char *name, mode_t mode,
			 enum nfs_stable stable)
{
	struct nfs_ctx c = ctx_of(uid);
	struct nfs_fh fh = fh_of(&c, dir, name);
	struct nfs_aio_op *op;
	enum nfs_stable how;
	struct nfs_wcc w;
	char p[512];
	uint32_t n;

	assert_int_equal(nfs_fs_write(&c, &fh, 100, "o", 1, NFS_UNSTABLE, &n, &how, &w), NFS_OK);
	pathf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(chmod(p, mode), 0);
	op = nfs_aio_write(aio, &c, &fh, 0, "xyz", 3, stable);
	assert_non_null(op);
	nfs_aio_submit(op, NULL);
}

static void test_write_as_caller(void **state)
{
	char p[512], buf[4];
	struct nfs_aio_stats st;
	struct stat s;

	(void)state;
	mkfile("sync/suid", 06755, 1000, NULL, 0);
	mkfile("sync/rootsuid", 04755, 0, NULL, 0);
	aio_write_as(1000, "sync", "suid", 06755, NFS_UNSTABLE);
	wait_done(1);
	assert_int_equal(got[0].status, NFS_OK);
	assert_int_equal(got[0].count, 3);
	assert_int_equal(got[0].committed, NFS_UNSTABLE);
	assert_true(got[0].wcc.pre_valid && got[0].wcc.post_valid);
	assert_int_equal(got[0].wcc.pre_size, 101);
	assert_int_equal(got[0].wcc.post.size, 101);
	s = stat_rel("sync/suid");
	assert_int_equal(s.st_mode & 07777, 0755); /* the kernel cleared setuid and setgid */
	assert_int_equal(s.st_uid, 1000);
	aio_write_as(0, "sync", "rootsuid", 04755, NFS_UNSTABLE);
	wait_done(2);
	assert_int_equal(got[1].status, NFS_OK);
	s = stat_rel("sync/rootsuid");
	assert_int_equal(s.st_mode & 07777, 04755); /* root may keep it: CAP_FSETID */
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.personalities, 1); /* uid 1000's; root writes as the lcore */
	/* an async export answers FILE_SYNC without a sync, as knfsd does */
	mkfile("async/f", 0644, 1000, NULL, 0);
	aio_write_as(1000, "async", "f", 0644, NFS_FILE_SYNC);
	wait_done(3);
	assert_int_equal(got[2].status, NFS_OK);
	assert_int_equal(got[2].committed, NFS_FILE_SYNC);
	pathf(p, sizeof(p), "async/f");
	{
		int fd = open(p, O_RDONLY);

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, buf, 3, 0), 3);
		close(fd);
	}
	assert_memory_equal(buf, "xyz", 3);
}

/* A WRITE that io_uring fails changes the write verifier, as the synchronous path's does
 * (knfsd's rule: any write error but EAGAIN and ESTALE): 1 MiB UNSTABLE writes into the 16 MiB
 * ext4 keep one verifier until one fails with NOSPC, which leaves a new one. */
static void test_write_error_new_verifier(void **state)
{
	static uint8_t chunk[1u << 20];
	struct nfs_ctx c = ctx_of(0);
	struct nfs_aio_stats st;
	enum nfs_stable how;
	struct nfs_wcc w;
	uint8_t v0[8], v1[8];
	struct nfs_fh fh;
	uint32_t n, i;
	int last = -1;

	(void)state;
	if (!have_ns)
		skip(); /* as test_nfs_fs_ops: no mount namespace, no private file systems */
	if (!have_full) {
		if (getenv("DROCE_CI"))
			fail_msg("CI must run this: a loop-mounted ext4 is needed");
		skip();
	}
	mkfile("full/f", 0644, 0, NULL, 0);
	fh = fh_of(&c, "full", "f");
	/* a synchronous write first: it opens the descriptor io_uring writes through */
	assert_int_equal(nfs_fs_write(&c, &fh, 0, "o", 1, NFS_UNSTABLE, &n, &how, &w), NFS_OK);
	nfs_fs_write_verf(fs, v0);
	memset(chunk, 0x3c, sizeof(chunk));
	for (i = 1; i < 32; i++) {
		struct nfs_aio_op *op = nfs_aio_write(aio, &c, &fh, (uint64_t)i << 20, chunk,
						      sizeof(chunk), NFS_UNSTABLE);

		assert_non_null(op);
		nfs_aio_submit(op, NULL);
		last = ngot;
		wait_done(ngot + 1);
		if (got[last].status != NFS_OK)
			break;
		nfs_fs_write_verf(fs, v1);
		assert_memory_equal(v0, v1, 8);
	}
	printf("# %u MiB by io_uring, then %s\n", i - 1, nfs_stat_name(got[last].status));
	assert_true(i > 4 && i < 32);
	assert_int_equal(got[last].status, NFS_ERR_NOSPC);
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.errors, 1);
	nfs_fs_write_verf(fs, v1);
	assert_memory_not_equal(v0, v1, 8);
}

static void unmount_full(void)
{
	char p[512];

	if (have_full) {
		pathf(p, sizeof(p), "full");
		umount2(p, MNT_DETACH);
	}
}

static void test_many_identities(void **state)
{
	struct nfs_aio_stats st;
	char name[32], rel[48];

	(void)state;
	for (uint32_t i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "u%u", i);
		snprintf(rel, sizeof(rel), "sync/u%u", i);
		mkfile(rel, 0600, 2000 + i, NULL, 0);
		aio_write_as(2000 + i, "sync", name, 0600, NFS_UNSTABLE);
		wait_done((int)i + 1);
		assert_int_equal(got[i].status, NFS_OK);
		assert_int_equal(got[i].count, 3);
	}
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.personalities, 40);
	assert_int_equal(st.writes, 40);
	for (uint32_t i = 0; i < 40; i++) {
		struct stat s;

		snprintf(name, sizeof(name), "sync/u%u", i);
		s = stat_rel(name);
		assert_int_equal(s.st_uid, 2000 + i);
		assert_int_equal(s.st_size, 101);
	}
	/* a first identity again, its personality long evicted: registered anew */
	aio_write_as(2000, "sync", "u0", 0600, NFS_UNSTABLE);
	wait_done(41);
	assert_int_equal(got[40].status, NFS_OK);
	nfs_aio_stats(aio, &st);
	assert_int_equal(st.personalities, 41);
}

static int rm_cb(const char *p, const struct stat *s, int f, struct FTW *w)
{
	(void)s, (void)f, (void)w;
	return remove(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_matches_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_to_sync_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_checks_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slots_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_as_caller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_identities, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_new_verifier, setup, teardown),
	};
	char p[512];
	struct nfs_fs *probe_fs;
	struct nfs_aio *probe;
	char err[512];
	int rc;

	if (geteuid() != 0) {
		printf("SKIP: needs root (fs uid switching, open_by_handle_at)\n");
		return 77;
	}
	snprintf(base, sizeof(base), "/tmp/test_nfs_aio.XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(base, 0755);
	snprintf(statedir, sizeof(statedir), "%s/state", base);
	for (int i = 0; i < 3; i++) {
		pathf(p, sizeof(p), "%s", (const char *[]){"sync", "async", "ro"}[i]);
		mkdir(p, 0777);
		chmod(p, 0777);
	}
	/* a small file system of our own for write errors, in a mount namespace of our own (gone
	 * with the process) */
	pathf(p, sizeof(p), "full");
	mkdir(p, 0777);
	have_ns =
		unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	if (have_ns) {
		char cmd[1400];

		snprintf(cmd, sizeof(cmd),
			 "truncate -s 16M %s/full.img && mkfs.ext4 -q -F -O ^has_journal "
			 "%s/full.img && mount -o loop %s/full.img %s/full",
			 base, base, base, base);
		have_full = system(cmd) == 0;
	}
	snprintf(
		exports, sizeof(exports),
		"%s/sync 127.0.0.1(rw,no_root_squash)\n%s/async 127.0.0.1(rw,async,no_root_squash)\n"
		"%s/ro 127.0.0.1(ro,no_root_squash)\n%s/full 127.0.0.1(rw,no_root_squash)\n",
		base, base, base, base);
	if (nfs_fs_open(&probe_fs, exports, statedir, err, sizeof(err)) != 0) {
		printf("SKIP: %s gives no usable file handles: %s\n", base, err);
		unmount_full();
		nftw(base, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
		return 77;
	}
	probe = nfs_aio_create(probe_fs, 4);
	if (!probe) {
		printf("SKIP: io_uring unavailable: %s\n", strerror(errno));
		nfs_fs_close(probe_fs);
		unmount_full();
		nftw(base, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
		return 77;
	}
	nfs_aio_destroy(probe, NULL);
	nfs_fs_close(probe_fs);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unmount_full();
	nftw(base, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
