/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_io.c - data: READ, WRITE and COMMIT (RFC 1813 §3.3.6, §3.3.7, §3.3.21).
 *
 * I/O goes through the descriptor cache (nfs_fdcache.c): an O_RDONLY or O_WRONLY descriptor
 * per object, opened as root through /proc/self/fd from the object's O_PATH descriptor on
 * first need, and shared by every caller. So the kernel's check at open time no longer speaks
 * for the caller, and each READ and WRITE asks the kernel itself, as knfsd's nfsd_permission
 * does per call: faccessat2(fd, "", R_OK or W_OK, AT_EMPTY_PATH | AT_EACCESS) under the
 * caller's fs ids and groups (Linux 5.8+; AT_EACCESS makes it use the fs ids rather than the
 * real ids). Modes, ACLs, a read-only mount and the immutable flag are the kernel's to judge;
 * nothing here reimplements them. knfsd's owner override (NFSD_MAY_OWNER_OVERRIDE): the owner
 * of a regular file may read and write it whatever its mode, as a local process that opened it
 * before a chmod could, so for the owner no check is asked. A kernel without faccessat2 gets
 * the former way: open as the caller through /proc/self/fd, then close.
 *
 * The write itself runs as the caller: the kernel clears setuid and setgid on a write by a
 * non-root fs uid. A sync export makes a stable WRITE durable before it answers (fsync) and
 * answers FILE_SYNC; an async export answers FILE_SYNC without syncing, as knfsd does. A failed
 * fsync changes the write verifier, so clients resend what they had written UNSTABLE (RFC 1813
 * §3.3.7).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nfs_fs_int.h"

#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

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

static bool owner_override(const struct nfs_obj *o)
{
	return S_ISREG(o->st.st_mode) && o->st.st_uid == o->cred.uid;
}

/* May o's caller read (R_OK) or write (W_OK) it? Call as the caller (nfs_cred_enter). */
static enum nfs_stat may_io(const struct nfs_obj *o, int mode)
{
	int fd;

	if (owner_override(o))
		return NFS_OK;
	if (syscall(SYS_faccessat2, o->fd, "", mode, AT_EMPTY_PATH | AT_EACCESS) == 0)
		return NFS_OK;
	if (errno != ENOSYS)
		return nfs_stat_from_errno(errno);
	fd = nfs_obj_reopen(o, o->fd, &o->st, mode == R_OK ? O_RDONLY : O_WRONLY);
	if (fd < 0)
		return nfs_stat_from_errno(fd);
	close(fd);
	return NFS_OK;
}

/* o's descriptor for flags (O_RDONLY or O_WRONLY): the cached one, or opened as root now
 * (the caller's permission is may_io's). *own: the caller closes it (o is not cached).
 * @return fd or -errno; the thread may be root afterwards */
static int io_fd(struct nfs_obj *o, int flags, bool *own)
{
	char p[32];
	int fd;

	*own = false;
	if (o->ent) {
		fd = atomic_load(flags == O_RDONLY ? &o->ent->rfd : &o->ent->wfd);
		if (fd >= 0)
			return fd;
	}
	if (nfs_cred_root() != 0)
		return -EPERM;
	nfs_fd_path(o->fd, p);
	fd = open(p, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (o->ent)
		return nfs_fdcache_set_io(o->ent, flags, fd);
	*own = true;
	return fd;
}

enum nfs_stat nfs_fs_read(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			  uint32_t count, void *buf, uint32_t *got, bool *eof, bool *attr_valid,
			  struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s;
	struct stat st;
	uint32_t n = 0;
	bool own = false;
	int fd = -1;

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
	/* the owner needs no check, so no switch to its identity either */
	if (!owner_override(&o)) {
		if (nfs_cred_enter(&o.cred) != 0) {
			s = NFS_ERR_SERVERFAULT;
			goto out;
		}
		s = may_io(&o, R_OK);
		nfs_cred_leave();
		if (s != NFS_OK)
			goto out;
	}
	fd = io_fd(&o, O_RDONLY, &own);
	if (fd < 0) {
		s = nfs_stat_from_errno(fd);
		goto out;
	}
	/* reading needs no identity: the descriptor is open, and the check was made above */
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
out:
	/* one fstat after the read: end of file, and the post-operation attributes (atime) */
	if (fstat(fd >= 0 ? fd : o.fd, &st) == 0) {
		if (s == NFS_OK)
			*eof = off + n >= (uint64_t)st.st_size;
		if (attr_valid && attr) {
			nfs_attr_from_stat(&o, &st, attr);
			*attr_valid = true;
		}
	}
	if (s == NFS_OK)
		*got = n;
	if (own)
		close(fd);
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
	bool own = false;
	int fd = -1;

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
	s = may_io(&o, W_OK);
	if (s == NFS_OK && (!o.ent || atomic_load(&o.ent->wfd) < 0)) {
		/* the first WRITE of this object opens its descriptor as root */
		fd = io_fd(&o, O_WRONLY, &own);
		if (fd < 0)
			s = nfs_stat_from_errno(fd);
		else if (nfs_cred_enter(&o.cred) != 0)
			s = NFS_ERR_SERVERFAULT;
	} else if (s == NFS_OK) {
		fd = atomic_load(&o.ent->wfd);
	}
	if (s != NFS_OK) {
		nfs_cred_leave();
		goto out_fd;
	}
	/* the write runs as the caller: the kernel clears setuid and setgid on a write by a
	 * non-root fs uid */
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
	if (s == NFS_OK)
		*written = n;
out_fd:
	if (own)
		close(fd);
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
	bool own = false;
	int fd = -1;

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
	/* flushing needs no permission: any open descriptor of the file, else one opened as
	 * root, read-only */
	if (o.ent)
		fd = atomic_load(&o.ent->wfd);
	if (fd < 0)
		fd = io_fd(&o, O_RDONLY, &own);
	if (fd < 0) {
		s = nfs_stat_from_errno(fd);
		goto out;
	}
	if (fsync(fd) != 0) {
		verf_rotate(ctx->fs);
		s = nfs_stat_from_errno(errno);
	}
	if (own)
		close(fd);
out:
	nfs_wcc_post(&o, wcc);
	nfs_obj_put(&o);
	return s;
}
