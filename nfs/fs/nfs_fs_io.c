/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_io.c - data: READ, WRITE and COMMIT (RFC 1813 §3.3.6, §3.3.7, §3.3.21).
 *
 * The file is reopened from its O_PATH descriptor through /proc/self/fd as the caller, so the
 * kernel checks the caller's permission, with knfsd's owner override (nfs_obj_reopen). A sync
 * export makes a stable WRITE durable before it answers (fsync) and answers FILE_SYNC; an
 * async export answers FILE_SYNC without syncing, as knfsd does. A failed fsync changes the
 * write verifier, so clients resend what they had written UNSTABLE (RFC 1813 §3.3.7).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs_fs_int.h"

/* READ and WRITE need a regular file: a directory is ISDIR, anything else INVAL (knfsd's
 * nfsd_mode_check) */
static enum nfs_stat need_regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return NFS_OK;
	return S_ISDIR(st->st_mode) ? NFS_ERR_ISDIR : NFS_ERR_INVAL;
}

static void verf_rotate(struct nfs_fs *fs)
{
	atomic_fetch_add(&fs->verf_gen, 1);
}

enum nfs_stat nfs_fs_read(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			  uint32_t count, void *buf, uint32_t *got, bool *eof, bool *attr_valid,
			  struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s;
	struct stat st;
	uint32_t n = 0;
	int fd;

	*got = 0;
	*eof = false;
	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	s = need_regular(&o.st);
	if (s != NFS_OK)
		goto out;
	if (off > (uint64_t)INT64_MAX) {
		s = NFS_ERR_INVAL;
		goto out;
	}
	if (nfs_cred_enter(&o.cred) != 0) {
		s = NFS_ERR_SERVERFAULT;
		goto out;
	}
	fd = nfs_obj_reopen(&o, o.fd, &o.st, O_RDONLY);
	nfs_cred_leave();
	if (fd < 0) {
		s = nfs_stat_from_errno(fd);
		goto out;
	}
	while (n < count) {
		ssize_t r = pread(fd, (char *)buf + n, count - n, (off_t)(off + n));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			if (n == 0)
				s = nfs_stat_from_errno(errno);
			break;
		}
		if (r == 0)
			break;
		n += (uint32_t)r;
	}
	if (s == NFS_OK) {
		*got = n;
		*eof = fstat(fd, &st) == 0 && off + n >= (uint64_t)st.st_size;
	}
	close(fd);
out:
	if (attr_valid && attr && fstat(o.fd, &st) == 0) {
		nfs_attr_from_stat(&o, &st, attr);
		*attr_valid = true;
	}
	nfs_obj_put(&o);
	return s;
}

enum nfs_stat nfs_fs_write(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			   const void *data, uint32_t len, enum nfs_stable stable,
			   uint32_t *written, enum nfs_stable *committed, struct nfs_wcc *wcc)
{
	struct nfs_obj o;
	enum nfs_stat s;
	uint32_t n = 0;
	int fd;

	*written = 0;
	*committed = NFS_UNSTABLE;
	if (wcc)
		memset(wcc, 0, sizeof(*wcc));
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	nfs_wcc_pre(&o, wcc);
	s = nfs_obj_writable(ctx, &o);
	if (s == NFS_OK)
		s = need_regular(&o.st);
	if (s == NFS_OK && off + len < off)
		s = NFS_ERR_FBIG;
	if (s != NFS_OK)
		goto out;
	if (nfs_cred_enter(&o.cred) != 0) {
		s = NFS_ERR_SERVERFAULT;
		goto out;
	}
	/* the write runs as the caller too: the kernel clears setuid and setgid on a write by a
	 * non-root fs uid */
	fd = nfs_obj_reopen(&o, o.fd, &o.st, O_WRONLY);
	if (fd < 0) {
		nfs_cred_leave();
		s = nfs_stat_from_errno(fd);
		goto out;
	}
	while (n < len) {
		ssize_t w = pwrite(fd, (const char *)data + n, len - n, (off_t)(off + n));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (n == 0)
				s = nfs_stat_from_errno(errno);
			break;
		}
		n += (uint32_t)w;
	}
	nfs_cred_leave();
	if (s == NFS_OK && stable != NFS_UNSTABLE) {
		if (!o.client->opts.async && fsync(fd) != 0) {
			verf_rotate(ctx->fs);
			s = nfs_stat_from_errno(errno);
		} else {
			*committed = NFS_FILE_SYNC;
		}
	}
	close(fd);
	if (s == NFS_OK)
		*written = n;
out:
	nfs_wcc_post(&o, wcc);
	nfs_obj_put(&o);
	return s;
}

enum nfs_stat nfs_fs_commit(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			    uint32_t count, struct nfs_wcc *wcc)
{
	struct nfs_obj o;
	enum nfs_stat s;
	char p[32];
	int fd;

	(void)off, (void)count; /* the whole file: fsync has no range */
	if (wcc)
		memset(wcc, 0, sizeof(*wcc));
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	nfs_wcc_pre(&o, wcc);
	s = need_regular(&o.st);
	if (s != NFS_OK)
		goto out;
	/* flushing needs no permission: open as root, read-only */
	nfs_fd_path(o.fd, p);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		s = nfs_stat_from_errno(errno);
		goto out;
	}
	if (fsync(fd) != 0) {
		verf_rotate(ctx->fs);
		s = nfs_stat_from_errno(errno);
	}
	close(fd);
out:
	nfs_wcc_post(&o, wcc);
	nfs_obj_put(&o);
	return s;
}
