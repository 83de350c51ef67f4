/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs_fs_cred.c - the NFS backend (nfs/fs) acting as its callers, on a real file system:
 * squashing on CREATE, the kernel's own permission checks as the squashed caller (modes, the
 * sticky bit, the owner override), the per-thread credential switches (what the kernel holds
 * after each, an id it refuses), and the descriptor cache (a hit reads what a miss reads,
 * each caller's permission checked on every hit, also on a thread that keeps the last
 * caller's identity, removed and renamed-over inodes STALE, the cache and the open
 * descriptors bounded, four threads reading, writing, removing and flushing on a 4-entry
 * cache).
 *
 * Needs root (credential switching, open_by_handle_at): exits 77 (skipped) otherwise. The
 * export trees live under a fresh directory in /tmp (nfs_fs_fixture.c; the fixture checks
 * that the file system gives handles and skips if not).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs_fs.h"
#include "nfs_fs_fixture.h"
#include "nfs_fs_int.h"

/* ---- squashing and the kernel's permission checks ---- */

static void test_squash_create(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx trusted = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx squashed = nfsf_ctx_of(fs, "10.1.2.3", 0, 0);
	struct nfs_ctx user = nfsf_ctx_of(fs, "127.0.0.1", 1000, 1000);
	struct nfs_fh a = nfsf_mount_of(&trusted, "a"), sq = nfsf_mount_of(&trusted, "sq"), tmp;
	struct nfs_attr at;
	struct nfs_fs_stats st0, st1;

	(void)state;
	nfs_fs_stats(fs, &st0);
	/* squashed root is nobody: root's 0755 directory is closed to it, 1777 is not */
	assert_int_equal(
		nfsf_create(&squashed, &a, "nope", NFS_CREATE_GUARDED, 0644, NULL, NULL, &at),
		NFS_ERR_ACCES);
	assert_int_equal(nfsf_lookup(&squashed, &a, "tmp", &tmp, &at), NFS_OK);
	assert_int_equal(nfsf_create(&squashed, &tmp, "by_squashed_root", NFS_CREATE_GUARDED, 0644,
				     NULL, NULL, &at),
			 NFS_OK);
	assert_int_equal(at.uid, 65534);
	assert_int_equal(at.gid, 65534);
	assert_int_equal(at.mode, 0644);
	nfs_fs_stats(fs, &st1);
	assert_true(st1.squashed > st0.squashed);
	assert_int_equal(
		nfsf_create(&trusted, &tmp, "by_root", NFS_CREATE_GUARDED, 0600, NULL, NULL, &at),
		NFS_OK);
	assert_int_equal(at.uid, 0);
	assert_int_equal(at.gid, 0);
	assert_int_equal(at.mode, 0600);
	/* all_squash with anonuid=1234: uid 1000 too */
	assert_int_equal(
		nfsf_create(&user, &sq, "by_user", NFS_CREATE_GUARDED, 0640, NULL, NULL, &at),
		NFS_OK);
	assert_int_equal(at.uid, 1234);
	assert_int_equal(at.gid, 1234);
	nfs_fs_close(fs);
}

static void test_kernel_permissions(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx root = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx u1000 = nfsf_ctx_of(fs, "127.0.0.1", 1000, 1000);
	struct nfs_ctx u1001 = nfsf_ctx_of(fs, "127.0.0.1", 1001, 1001);
	struct nfs_fh a = nfsf_mount_of(&root, "a"), fh, tmp, own;
	struct nfs_sattr sa = {.set_mode = true, .mode = 0444};
	struct nfs_attr at;
	struct nfs_wcc w;
	uint32_t granted, got;
	char buf[32];
	bool v, eof;

	(void)state;
	/* uid 1000 may read but not write root's 0644 file */
	assert_int_equal(nfsf_lookup(&u1000, &a, "file", &fh, &at), NFS_OK);
	assert_int_equal(nfsf_write_at(&u1000, &fh, 0, "no"), NFS_ERR_ACCES);
	assert_int_equal(nfs_fs_read(&u1000, &fh, 0, sizeof(buf), buf, &got, &eof, &v, &at),
			 NFS_OK);
	assert_int_equal(nfs_fs_access(&u1000, &fh, 0x3f, &granted, &v, &at), NFS_OK);
	assert_int_equal(granted, 0x01);
	assert_int_equal(nfs_fs_setattr(&u1000, &fh, &sa, NULL, &w), NFS_ERR_PERM);
	/* nor create in root's 0755 directory */
	assert_int_equal(
		nfsf_create(&u1000, &a, "nope", NFS_CREATE_GUARDED, 0644, NULL, NULL, NULL),
		NFS_ERR_ACCES);

	/* the sticky bit in a 1777 directory: 1001 cannot remove 1000's file */
	assert_int_equal(nfsf_lookup(&root, &a, "tmp", &tmp, &at), NFS_OK);
	assert_int_equal(at.mode, 01777);
	assert_int_equal(
		nfsf_create(&u1000, &tmp, "mine", NFS_CREATE_GUARDED, 0666, NULL, NULL, &at),
		NFS_OK);
	assert_int_equal(at.uid, 1000);
	assert_int_equal(nfs_fs_remove(&u1001, &tmp, "mine", 4, &w), NFS_ERR_PERM);
	assert_true(w.pre_valid && w.post_valid);
	assert_int_equal(nfs_fs_rename(&u1001, &tmp, "mine", 4, &tmp, "theirs", 6, &w, &w),
			 NFS_ERR_PERM);
	assert_int_equal(nfs_fs_remove(&u1000, &tmp, "mine", 4, &w), NFS_OK);

	/* the owner override: the owner writes its own 0444 file (open(O_CREAT, 0444), write) */
	assert_int_equal(
		nfsf_create(&u1000, &tmp, "ro_mine", NFS_CREATE_GUARDED, 0444, NULL, &own, &at),
		NFS_OK);
	assert_int_equal(at.mode, 0444);
	assert_int_equal(nfsf_write_at(&u1000, &own, 0, "owner"), NFS_OK);
	assert_int_equal(nfs_fs_read(&u1000, &own, 0, sizeof(buf), buf, &got, &eof, &v, &at),
			 NFS_OK);
	assert_int_equal(got, 5);
	assert_true(eof);
	assert_memory_equal(buf, "owner", 5);
	assert_int_equal(nfs_fs_access(&u1000, &own, 0x2d, &granted, &v, &at), NFS_OK);
	assert_int_equal(granted, 0x0d);
	/* ... but not someone else */
	assert_int_equal(nfsf_write_at(&u1001, &own, 0, "other"), NFS_ERR_ACCES);
	nfs_fs_close(fs);
}

/* ---- credentials ---- */

static uint32_t fsuid_now(void)
{
	return (uint32_t)syscall(SYS_setfsuid, -1);
}

static uint32_t fsgid_now(void)
{
	return (uint32_t)syscall(SYS_setfsgid, -1);
}

/* The ids and groups the kernel holds for this thread after each switch. */
static void cred_switches(bool lazy)
{
	struct nfs_cred u = {.flavor = 1, .uid = 1000, .gid = 1001, .ngroups = 2, .groups = {5, 6}};
	struct nfs_cred v = {.flavor = 1, .uid = 1002, .gid = 1001};
	struct nfs_cred bad = {.flavor = 1, .uid = UINT32_MAX, .gid = 1001};
	gid_t g0[64], g[64];
	int n0 = getgroups(64, g0);

	assert_true(n0 >= 0);
	nfs_cred_lazy(lazy);
	assert_int_equal(nfs_cred_enter(&u), 0);
	assert_int_equal(fsuid_now(), 1000);
	assert_int_equal(fsgid_now(), 1001);
	assert_int_equal(syscall(SYS_getgroups, 64, g), 2);
	assert_true(g[0] == 5 && g[1] == 6);
	nfs_cred_leave();
	/* a lazy thread keeps the caller; another thread is root again */
	assert_int_equal(fsuid_now(), lazy ? 1000 : 0);
	assert_int_equal(nfs_cred_is_root(), !lazy);
	/* only the uid and the groups change from u to v */
	assert_int_equal(nfs_cred_enter(&v), 0);
	assert_int_equal(fsuid_now(), 1002);
	assert_int_equal(fsgid_now(), 1001);
	assert_int_equal(syscall(SYS_getgroups, 64, g), 0);
	/* an id the kernel will not take ((uid_t)-1 is invalid): EPERM, and back to root */
	assert_int_equal(nfs_cred_enter(&bad), -EPERM);
	assert_int_equal(fsuid_now(), 0);
	assert_int_equal(fsgid_now(), 0);
	assert_true(nfs_cred_is_root());
	assert_int_equal(nfs_cred_enter(&u), 0);
	assert_int_equal(nfs_cred_root(), 0);
	assert_int_equal(fsuid_now(), 0);
	assert_int_equal(fsgid_now(), 0);
	assert_int_equal(syscall(SYS_getgroups, 64, g), n0);
	assert_memory_equal(g, g0, (size_t)n0 * sizeof(gid_t));
	nfs_cred_lazy(false);
}

static void *cred_thread(void *arg)
{
	(void)arg;
	cred_switches(true);
	return NULL;
}

static void test_cred_switches(void **state)
{
	pthread_t t;

	(void)state;
	cred_switches(false);
	assert_int_equal(pthread_create(&t, NULL, cred_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* the other thread's switches were its own */
	assert_int_equal(fsuid_now(), 0);
}

/* ---- the descriptor cache and per-thread credentials ---- */

static enum nfs_stat read_str(struct nfs_ctx *c, const struct nfs_fh *fh, char *buf, size_t cap)
{
	struct nfs_attr at;
	uint32_t got = 0;
	bool eof, v;
	enum nfs_stat s = nfs_fs_read(c, fh, 0, (uint32_t)cap - 1, buf, &got, &eof, &v, &at);

	buf[got] = 0;
	return s;
}

static unsigned open_fds(void)
{
	unsigned n = 0;

	for (int fd = 0; fd < 65536; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

static void test_fdcache_hits(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), f;
	struct nfs_attr at;
	struct nfs_obj o;
	char hit[64], miss[64];
	uint32_t n0;

	(void)state;
	nfsf_mkfile("a/cached", 0644, 0, "cached data\n");
	n0 = nfs_fdcache_count(fs->fdc);
	assert_int_equal(nfsf_lookup(&c, &a, "cached", &f, &at), NFS_OK);
	assert_true(nfs_fdcache_count(fs->fdc) > n0); /* LOOKUP keeps what it opened */
	assert_int_equal(read_str(&c, &f, hit, sizeof(hit)), NFS_OK);
	assert_int_equal(read_str(&c, &f, hit, sizeof(hit)), NFS_OK);
	/* the same READ with the cache emptied: open_by_handle_at again */
	nfs_fdcache_flush_export(fs, nfs_fs_export(fs, 0)->id);
	assert_int_equal(nfs_fdcache_count(fs->fdc), 0);
	assert_int_equal(read_str(&c, &f, miss, sizeof(miss)), NFS_OK);
	assert_string_equal(hit, "cached data\n");
	assert_string_equal(hit, miss);
	assert_int_equal(nfsf_write_at(&c, &f, 0, "CACHED"), NFS_OK);
	assert_int_equal(read_str(&c, &f, hit, sizeof(hit)), NFS_OK);
	assert_string_equal(hit, "CACHED data\n");

	/* idle entries close, but not one in use */
	assert_int_equal(nfs_obj_get(&c, &f, &o), NFS_OK);
	assert_non_null(o.ent);
	nfs_fdcache_sweep(fs->fdc, 0);
	assert_int_equal(nfs_fdcache_count(fs->fdc), 1);
	nfs_obj_put(&o);
	assert_int_equal(nfs_fdcache_sweep(fs->fdc, NFS_FDCACHE_IDLE_NS), 0); /* just used */
	assert_int_equal(nfs_fdcache_sweep(fs->fdc, 0), 1);
	assert_int_equal(nfs_fdcache_count(fs->fdc), 0);

	/* an entry in use outlives a flush of its export, and closes at its release */
	assert_int_equal(nfs_obj_get(&c, &f, &o), NFS_OK);
	assert_non_null(o.ent);
	nfs_fdcache_flush_export(fs, o.exp->id);
	assert_int_equal(fcntl(o.fd, F_GETFD) >= 0, 1);
	assert_int_equal(nfs_fdcache_count(fs->fdc), 0);
	{
		int fd = o.fd;

		nfs_obj_put(&o);
		assert_true(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
	}
	nfs_fs_close(fs);
}

/* Each caller's permission is checked on every call, also on an entry another opened. */
static void permissions_on_cached(struct nfs_fs *fs)
{
	struct nfs_ctx root = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx u1000 = nfsf_ctx_of(fs, "127.0.0.1", 1000, 1000);
	struct nfs_ctx u1001 = nfsf_ctx_of(fs, "127.0.0.1", 1001, 1001);
	struct nfs_fh a = nfsf_mount_of(&root, "a"), priv, pub, ro;
	struct nfs_sattr sa = {.set_mode = true, .mode = 0444};
	struct nfs_attr at;
	struct nfs_wcc w;
	char buf[64], p[512];

	nfsf_mkfile("a/priv", 0600, 1000, "1000's secret\n");
	nfsf_mkfile("a/pub", 0644, 0, "root's public\n");
	nfsf_mkfile("a/ro1000", 0644, 1000, "mine\n");
	assert_int_equal(nfsf_lookup(&root, &a, "priv", &priv, &at), NFS_OK);
	assert_int_equal(nfsf_lookup(&root, &a, "pub", &pub, &at), NFS_OK);
	assert_int_equal(nfsf_lookup(&root, &a, "ro1000", &ro, &at), NFS_OK);
	for (int round = 0; round < 2; round++) {
		/* the owner reads (the entry gets its read descriptor), then another user, who
		 * may not, hits that entry: ACCES every time; then the owner again */
		assert_int_equal(read_str(&u1000, &priv, buf, sizeof(buf)), NFS_OK);
		assert_string_equal(buf, "1000's secret\n");
		assert_int_equal(read_str(&u1001, &priv, buf, sizeof(buf)), NFS_ERR_ACCES);
		assert_int_equal(nfsf_write_at(&u1001, &priv, 0, "x"), NFS_ERR_ACCES);
		assert_int_equal(read_str(&u1000, &priv, buf, sizeof(buf)), NFS_OK);
		assert_int_equal(nfsf_write_at(&u1000, &priv, 0, "1"), NFS_OK);
		assert_int_equal(read_str(&root, &priv, buf, sizeof(buf)), NFS_OK);
		/* root writes the public file (write descriptor cached), 1000 still may not */
		assert_int_equal(nfsf_write_at(&root, &pub, 0, "R"), NFS_OK);
		assert_int_equal(nfsf_write_at(&u1000, &pub, 0, "x"), NFS_ERR_ACCES);
		assert_int_equal(read_str(&u1001, &pub, buf, sizeof(buf)), NFS_OK);
		assert_string_equal(buf, "Root's public\n");
	}
	/* a mode change on the server is seen by the next call on the cached entry (the test's
	 * own chmod as root: a lazy thread still holds the last caller's fs ids) */
	nfsf_pathf(p, sizeof(p), "a/pub");
	assert_int_equal(nfs_cred_root(), 0);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(read_str(&u1001, &pub, buf, sizeof(buf)), NFS_ERR_ACCES);
	assert_int_equal(nfs_cred_root(), 0);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(read_str(&u1001, &pub, buf, sizeof(buf)), NFS_OK);
	/* the owner override through the cache: 1000 writes its file made 0444 */
	assert_int_equal(nfsf_write_at(&u1000, &ro, 0, "MINE"), NFS_OK);
	assert_int_equal(nfs_fs_setattr(&u1000, &ro, &sa, NULL, &w), NFS_OK);
	assert_int_equal(nfsf_write_at(&u1000, &ro, 0, "mine"), NFS_OK);
	assert_int_equal(read_str(&u1000, &ro, buf, sizeof(buf)), NFS_OK);
	assert_string_equal(buf, "mine\n");
	assert_int_equal(nfsf_write_at(&u1001, &ro, 0, "x"), NFS_ERR_ACCES);
}

static void *lazy_thread(void *arg)
{
	nfs_cred_lazy(true);
	permissions_on_cached(arg);
	/* the thread kept some caller's identity; root comes back on demand */
	assert_int_equal(nfs_cred_root(), 0);
	assert_true(nfs_cred_is_root());
	nfs_cred_lazy(false);
	return NULL;
}

static void test_fdcache_permissions(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx u1001 = nfsf_ctx_of(fs, "127.0.0.1", 1001, 1001);
	struct nfs_fh a = nfsf_mount_of(&u1001, "a"), sq;
	struct nfs_attr at;
	pthread_t t;
	char p[512];

	(void)state;
	/* on this thread (back to root after each operation), then on a helper-like thread
	 * that keeps the last caller's identity between operations */
	permissions_on_cached(fs);
	assert_true(nfs_cred_is_root());
	assert_int_equal(pthread_create(&t, NULL, lazy_thread, fs), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* a write by another user clears setuid, as the kernel does for a non-root writer */
	nfsf_mkfile("a/suid", 0777, 1000, "suid\n");
	nfsf_pathf(p, sizeof(p), "a/suid");
	assert_int_equal(chmod(p, 04777), 0); /* after mkfile's chown, which clears it */
	assert_int_equal(nfsf_lookup(&u1001, &a, "suid", &sq, &at), NFS_OK);
	assert_int_equal(at.mode, 04777);
	assert_int_equal(nfsf_write_at(&u1001, &sq, 0, "S"), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&u1001, &sq, &at), NFS_OK);
	assert_int_equal(at.mode, 0777);
	unlink(p);
	nfs_fs_close(fs);
}

static void test_fdcache_stale(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), f, g, h, again;
	struct nfs_attr at;
	struct nfs_wcc w;
	char buf[64], p[512];

	(void)state;
	/* removed through the server, while cached with read and write descriptors */
	nfsf_mkfile("a/gone", 0644, 0, "gone\n");
	assert_int_equal(nfsf_lookup(&c, &a, "gone", &f, &at), NFS_OK);
	assert_int_equal(read_str(&c, &f, buf, sizeof(buf)), NFS_OK);
	assert_int_equal(nfsf_write_at(&c, &f, 0, "G"), NFS_OK);
	assert_int_equal(nfs_fs_remove(&c, &a, "gone", 4, &w), NFS_OK);
	assert_int_equal(read_str(&c, &f, buf, sizeof(buf)), NFS_ERR_STALE);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_ERR_STALE);
	assert_int_equal(nfsf_write_at(&c, &f, 0, "x"), NFS_ERR_STALE);

	/* removed on the server's own file system (no REMOVE seen): the cached descriptor
	 * shows no link left, so STALE too; a new file of the same name is not the old one */
	nfsf_mkfile("a/swap", 0644, 0, "old contents\n");
	assert_int_equal(nfsf_lookup(&c, &a, "swap", &g, &at), NFS_OK);
	assert_int_equal(read_str(&c, &g, buf, sizeof(buf)), NFS_OK);
	nfsf_pathf(p, sizeof(p), "a/swap");
	assert_int_equal(unlink(p), 0);
	nfsf_mkfile("a/swap", 0644, 0, "new\n");
	assert_int_equal(read_str(&c, &g, buf, sizeof(buf)), NFS_ERR_STALE);
	assert_int_equal(nfs_fs_getattr(&c, &g, &at), NFS_ERR_STALE);
	assert_int_equal(nfsf_lookup(&c, &a, "swap", &again, &at), NFS_OK);
	assert_false(nfsf_fh_eq(&again, &g));
	assert_int_equal(read_str(&c, &again, buf, sizeof(buf)), NFS_OK);
	assert_string_equal(buf, "new\n");

	/* renamed over through the server: the old target is STALE, the moved file serves */
	nfsf_mkfile("a/src", 0644, 0, "src\n");
	assert_int_equal(nfsf_lookup(&c, &a, "src", &h, &at), NFS_OK);
	assert_int_equal(read_str(&c, &again, buf, sizeof(buf)), NFS_OK);
	assert_int_equal(nfs_fs_rename(&c, &a, "src", 3, &a, "swap", 4, &w, &w), NFS_OK);
	assert_int_equal(read_str(&c, &again, buf, sizeof(buf)), NFS_ERR_STALE);
	assert_int_equal(read_str(&c, &h, buf, sizeof(buf)), NFS_OK);
	assert_string_equal(buf, "src\n");

	/* a removed directory */
	nfsf_mkdir_rel("a/dgone", 0755);
	assert_int_equal(nfsf_lookup(&c, &a, "dgone", &f, &at), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_OK);
	assert_int_equal(nfs_fs_rmdir(&c, &a, "dgone", 5, &w), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &f, &at), NFS_ERR_STALE);
	nfsf_pathf(p, sizeof(p), "a/swap");
	unlink(p);
	nfs_fs_close(fs);
}

#define SMALL_CACHE 32u
#define MANY_FILES 200

static void test_fdcache_bounded(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx u1000 = nfsf_ctx_of(fs, "127.0.0.1", 1000, 1000);
	struct nfs_fh a = nfsf_mount_of(&c, "a"), d;
	static struct nfs_fh fh[MANY_FILES];
	struct nfs_attr at;
	char name[64], want[64], buf[64];
	unsigned fds0, fds;

	(void)state;
	nfs_fdcache_destroy(fs->fdc);
	fs->fdc = nfs_fdcache_create(SMALL_CACHE);
	assert_non_null(fs->fdc);
	fds0 = open_fds();
	nfsf_mkdir_rel("a/many", 0755);
	assert_int_equal(nfsf_lookup(&c, &a, "many", &d, &at), NFS_OK);
	for (int i = 0; i < MANY_FILES; i++) {
		snprintf(name, sizeof(name), "a/many/f%d", i);
		snprintf(want, sizeof(want), "file %d\n", i);
		nfsf_mkfile(name, 0644, 0, want);
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(nfsf_lookup(&c, &d, name, &fh[i], &at), NFS_OK);
	}
	/* two passes, every file read (and every 3rd written) past the capacity */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < MANY_FILES; i++) {
			snprintf(want, sizeof(want), "file %d\n", i);
			if (i % 3 == 0)
				assert_int_equal(nfsf_write_at(&c, &fh[i], 0, "f"), NFS_OK);
			assert_int_equal(read_str(i % 2 ? &c : &u1000, &fh[i], buf, sizeof(buf)),
					 NFS_OK);
			assert_string_equal(buf, want);
			assert_true(nfs_fdcache_count(fs->fdc) <= SMALL_CACHE);
		}
	/* each entry holds at most three descriptors */
	fds = open_fds();
	assert_true(fds <= fds0 + 3 * SMALL_CACHE);
	nfs_fdcache_flush_export(fs, nfs_fs_export(fs, 0)->id);
	assert_int_equal(open_fds(), fds0);
	nfs_fs_close(fs);
}

/* Helper-like threads on a small cache: READs, WRITEs, REMOVEs and re-creates of the same few
 * names at once, so entries are evicted, flushed and removed while others hold them. Each
 * answer must be OK, or STALE/NOENT for a name just removed, and READ data one of the file's
 * two contents. */
#define RACE_THREADS 4
#define RACE_FILES 6
#define RACE_ROUNDS 300

struct race {
	struct nfs_fs *fs;
	struct nfs_fh dir;
	unsigned id;
	_Atomic unsigned *bad;
};

static void race_bad(struct race *r, const char *what, unsigned i, enum nfs_stat s)
{
	fprintf(stderr, "# thread %u round %u: %s answered %s\n", r->id, i, what, nfs_stat_name(s));
	(*r->bad)++;
}

static void *race_thread(void *arg)
{
	struct race *r = arg;
	struct nfs_ctx c =
		nfsf_ctx_of(r->fs, "127.0.0.1", r->id % 2 ? 1000 : 0, r->id % 2 ? 1000 : 0);
	char name[16], buf[64];
	struct nfs_attr at;
	struct nfs_wcc w;
	struct nfs_fh fh;
	enum nfs_stat s;

	nfs_cred_lazy(true);
	for (unsigned i = 0; i < RACE_ROUNDS; i++) {
		unsigned k = (i * 7 + r->id) % RACE_FILES;

		snprintf(name, sizeof(name), "r%u", k);
		s = nfsf_lookup(&c, &r->dir, name, &fh, &at);
		if (s == NFS_ERR_NOENT) {
			s = nfsf_create(&c, &r->dir, name, NFS_CREATE_UNCHECKED, 0666, NULL, &fh,
					&at);
			if (s != NFS_OK)
				race_bad(r, "CREATE", i, s);
			continue;
		}
		if (s != NFS_OK) {
			race_bad(r, "LOOKUP", i, s);
			continue;
		}
		if (i % 5 == 0)
			s = nfsf_write_at(&c, &fh, 0, "abc");
		else if (i % 11 == 0)
			s = nfs_fs_remove(&c, &r->dir, name, (uint32_t)strlen(name), &w);
		else if (i % 13 == 0)
			nfs_fdcache_flush_export(r->fs, nfs_fs_export(r->fs, 0)->id);
		else
			s = read_str(&c, &fh, buf, sizeof(buf));
		if (s != NFS_OK && s != NFS_ERR_STALE && s != NFS_ERR_NOENT)
			race_bad(r, i % 5 == 0 ? "WRITE" : i % 11 == 0 ? "REMOVE" : "READ", i, s);
		else if (s == NFS_OK && i % 5 && i % 11 && i % 13 && buf[0] && strcmp(buf, "abc"))
			race_bad(r, "READ's data", i, s);
	}
	nfs_cred_lazy(false);
	return NULL;
}

static void test_fdcache_threads(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh a = nfsf_mount_of(&c, "a");
	struct race r[RACE_THREADS];
	pthread_t t[RACE_THREADS];
	_Atomic unsigned bad = 0;
	struct nfs_attr at;
	unsigned fds0;
	mode_t old_mask;

	(void)state;
	nfs_fdcache_destroy(fs->fdc);
	fs->fdc = nfs_fdcache_create(4);
	fds0 = open_fds();
	nfsf_mkdir_rel("a/race", 0777); /* not sticky: anyone removes anyone's */
	/* CREATE makes the file under the umask, then sets the mode asked: with the test's umask,
	 * a WRITE by uid 1000 between the two would be refused */
	old_mask = umask(0);
	for (unsigned i = 0; i < RACE_THREADS; i++) {
		r[i] = (struct race){.fs = fs, .id = i, .bad = &bad};
		assert_int_equal(nfsf_lookup(&c, &a, "race", &r[i].dir, &at), NFS_OK);
		assert_int_equal(pthread_create(&t[i], NULL, race_thread, &r[i]), 0);
	}
	for (unsigned i = 0; i < RACE_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	umask(old_mask);
	assert_int_equal(bad, 0);
	assert_true(nfs_fdcache_count(fs->fdc) <= 4);
	assert_true(open_fds() <= fds0 + 3 * 4);
	nfs_fs_close(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_squash_create),
		cmocka_unit_test(test_kernel_permissions),
		cmocka_unit_test(test_cred_switches),
		cmocka_unit_test(test_fdcache_hits),
		cmocka_unit_test(test_fdcache_permissions),
		cmocka_unit_test(test_fdcache_stale),
		cmocka_unit_test(test_fdcache_bounded),
		cmocka_unit_test(test_fdcache_threads),
	};
	int rc = nfsf_up(false);

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	nfsf_down();
	return rc;
}
