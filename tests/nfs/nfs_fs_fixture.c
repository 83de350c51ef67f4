/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_fixture.c - the backend tests' fixture (nfs_fs_fixture.h): the export trees in /tmp,
 * the private mount namespace with its tmpfs, and the helpers the tests share.
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
#include <unistd.h>

#include <cmocka.h>

#include "nfs_fs.h"
#include "nfs_fs_fixture.h"
#include "nfs_fs_int.h"

char nfsf_base[256];
char nfsf_statedir[300];
char nfsf_exports[4096];
bool nfsf_have_ns;

void nfsf_pathf(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(out, cap, "%s/", nfsf_base);

	va_start(ap, fmt);
	vsnprintf(out + n, cap - (size_t)n, fmt, ap);
	va_end(ap);
}

void nfsf_mkfile(const char *rel, mode_t mode, uid_t uid, const char *data)
{
	char p[512];
	int fd;

	nfsf_pathf(p, sizeof(p), "%s", rel);
	fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, mode);
	assert_true(fd >= 0);
	if (data)
		assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(fchown(fd, uid, uid), 0);
	close(fd);
}

void nfsf_mkdir_rel(const char *rel, mode_t mode)
{
	char p[512];

	nfsf_pathf(p, sizeof(p), "%s", rel);
	assert_true(mkdir(p, mode) == 0 || errno == EEXIST);
	assert_int_equal(chmod(p, mode), 0);
}

struct nfs_fs *nfsf_open_fs(const char *text)
{
	struct nfs_fs *fs = NULL;
	char err[512];
	int rc = nfs_fs_open(&fs, text, nfsf_statedir, err, sizeof(err));

	if (rc)
		fail_msg("nfs_fs_open: %d %s", rc, err);
	return fs;
}

struct nfs_ctx nfsf_ctx_of(struct nfs_fs *fs, const char *ip, uint32_t uid, uint32_t gid)
{
	struct nfs_ctx c = {.fs = fs};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&c.peer;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&c.peer;

	if (strchr(ip, ':')) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(700);
		assert_int_equal(inet_pton(AF_INET6, ip, &s6->sin6_addr), 1);
	} else {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(700); /* a privileged port: "secure" */
		assert_int_equal(inet_pton(AF_INET, ip, &s4->sin_addr), 1);
	}
	c.cred.flavor = 1;
	c.cred.uid = uid;
	c.cred.gid = gid;
	return c;
}

struct nfs_fh nfsf_mount_of(struct nfs_ctx *c, const char *rel)
{
	struct nfs_fh fh;
	char p[512];

	nfsf_pathf(p, sizeof(p), "%s", rel);
	assert_int_equal(nfs_fs_mount(c, p, &fh), NFS_OK);
	return fh;
}

enum nfs_stat nfsf_lookup(struct nfs_ctx *c, const struct nfs_fh *dir, const char *name,
			  struct nfs_fh *fh, struct nfs_attr *a)
{
	struct nfs_attr da, oa;
	bool dv;

	return nfs_fs_lookup(c, dir, name, (uint32_t)strlen(name), fh, a ? a : &oa, &dv, &da);
}

bool nfsf_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

enum nfs_stat nfsf_create(struct nfs_ctx *c, const struct nfs_fh *dir, const char *name,
			  enum nfs_createmode how, uint32_t mode, const uint8_t *verf,
			  struct nfs_fh *fh, struct nfs_attr *a)
{
	struct nfs_sattr sa = {.set_mode = true, .mode = mode};
	uint8_t zero[8] = {0};
	struct nfs_attr oa;
	struct nfs_fh ofh;
	struct nfs_wcc w;

	return nfs_fs_create(c, dir, name, (uint32_t)strlen(name), how, &sa, verf ? verf : zero,
			     fh ? fh : &ofh, a ? a : &oa, &w);
}

enum nfs_stat nfsf_write_at(struct nfs_ctx *c, const struct nfs_fh *fh, uint64_t off,
			    const char *data)
{
	enum nfs_stable committed;
	struct nfs_wcc w;
	uint32_t n;
	enum nfs_stat s = nfs_fs_write(c, fh, off, data, (uint32_t)strlen(data), NFS_FILE_SYNC, &n,
				       &committed, &w);

	if (s == NFS_OK)
		assert_int_equal(n, strlen(data));
	return s;
}

/* ---- the tree ---- */

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void make_tree(void)
{
	char p[512], t[600];

	nfsf_mkdir_rel("a", 0755);
	nfsf_mkdir_rel("a/sub", 0755);
	nfsf_mkdir_rel("a/tmp", 01777);
	nfsf_mkdir_rel("a/big", 0755);
	nfsf_mkdir_rel("a/mnt", 0755);
	nfsf_mkdir_rel("b", 0755);
	nfsf_mkdir_rel("new", 0755);
	nfsf_mkdir_rel("ro", 0755);
	nfsf_mkdir_rel("sq", 0777);
	nfsf_mkfile("a/file", 0644, 0, "root's file\n");
	nfsf_mkfile("ro/file", 0644, 0, "read only\n");
	nfsf_pathf(p, sizeof(p), "a/etclink");
	assert_int_equal(symlink("/etc", p), 0);
	for (int i = 0; i < NFSF_NENTRIES; i++) {
		snprintf(t, sizeof(t), "a/big/e%d", i);
		nfsf_mkfile(t, 0644, 0, NULL);
	}
	snprintf(nfsf_exports, sizeof(nfsf_exports),
		 "# the test's exports\n"
		 "%s/a 127.0.0.1(rw,no_root_squash) 10.0.0.0/8(rw)\n"
		 "%s/b 127.0.0.1(rw,no_root_squash)\n"
		 "%s/ro 127.0.0.1(ro,no_root_squash)\n"
		 "%s/sq 127.0.0.1(rw,all_squash,anonuid=1234,anongid=1234)\n",
		 nfsf_base, nfsf_base, nfsf_base, nfsf_base);
}

/* A private mount namespace and a tmpfs on a/mnt, for the mount-point test. */
static void make_mount(void)
{
	char p[512];
	int fd;

	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return;
	nfsf_pathf(p, sizeof(p), "a/mnt");
	if (mount("nfsfs_test", p, "tmpfs", 0, "size=1m") != 0)
		return;
	nfsf_pathf(p, sizeof(p), "a/mnt/on_tmpfs");
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "abc", 3) != 3)
		return;
	close(fd);
	nfsf_have_ns = true;
}

static bool handles_work(const char *dir)
{
	struct {
		struct file_handle h;
		uint8_t b[MAX_HANDLE_SZ];
	} k;
	int mnt, m, fd;

	k.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, dir, &k.h, &mnt, 0) != 0)
		return false;
	m = open(dir, O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(m, &k.h, O_PATH);
	close(m);
	if (fd < 0)
		return false;
	close(fd);
	return k.h.handle_bytes <= NFS_KFH_MAX;
}

int nfsf_up(bool mount_ns)
{
	if (geteuid() != 0) {
		printf("SKIP: needs root (fs uid switching, open_by_handle_at)\n");
		return 77;
	}
	snprintf(nfsf_base, sizeof(nfsf_base), "/tmp/test_nfs_fs.XXXXXX");
	if (!mkdtemp(nfsf_base)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(nfsf_base, 0755);
	if (!handles_work(nfsf_base)) {
		printf("SKIP: %s gives no usable file handles\n", nfsf_base);
		rmdir(nfsf_base);
		return 77;
	}
	snprintf(nfsf_statedir, sizeof(nfsf_statedir), "%s/state", nfsf_base);
	make_tree();
	if (mount_ns) {
		make_mount();
		printf("# export trees under %s; mount-point test %s\n", nfsf_base,
		       nfsf_have_ns ? "on a tmpfs in a private mount namespace"
				    : "skipped (no namespace)");
	} else {
		printf("# export trees under %s\n", nfsf_base);
	}
	return 0;
}

void nfsf_down(void)
{
	if (nfsf_have_ns) {
		char p[512];

		/* the mount point, and test_nfs_fs_ops's file systems left mounted by a failed
		 * assertion (innermost first) */
		static const char *const mounts[] = {"a/mnt", "e4", "t0", "wb/m", "wb", "small"};

		for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
			nfsf_pathf(p, sizeof(p), "%s", mounts[i]);
			umount2(p, MNT_DETACH);
		}
	}
	nftw(nfsf_base, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}
