/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_io.c - data: READ, WRITE and COMMIT (RFC 1813 §3.3.6, §3.3.7, §3.3.21), and NFSv4.2's
 * ALLOCATE, DEALLOCATE, SEEK, COPY and CLONE (RFC 7862 §15): fallocate, lseek SEEK_DATA and
 * SEEK_HOLE, copy_file_range and FICLONERANGE, with READ's and WRITE's permission checks.
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
 * §3.3.7); so does a failed write (but EAGAIN and ESTALE), as knfsd's: it may be the first sign
 * that earlier UNSTABLE data will not reach the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

void nfs_fs_write_failed(struct nfs_fs *fs, int err)
{
	/* as knfsd's commit_reset_write_verifier: every failed write or sync but these, which
	 * say nothing about what the disk holds (EINTR: knfsd answers a COMMIT NOT_SYNC) */
	if (err != EAGAIN && err != ESTALE && err != EINTR)
		verf_rotate(fs);
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

/* o's descriptor for writing, the caller's identity in force (nfs_cred_enter) on success:
 * the export writable, o a regular file, the caller allowed to write (may_io). The caller
 * calls nfs_cred_leave, and closes fd when *own. On failure nothing is held. */
static enum nfs_stat write_fd(struct nfs_ctx *ctx, struct nfs_obj *o, int *fd, bool *own)
{
	enum nfs_stat s = nfs_obj_writable(ctx, o);

	*fd = -1;
	*own = false;
	if (s == NFS_OK)
		s = need_regular(&o->st);
	if (s != NFS_OK)
		return s;
	if (nfs_cred_enter(&o->cred) != 0)
		return NFS_ERR_SERVERFAULT;
	s = may_io(o, W_OK);
	if (s == NFS_OK && (!o->ent || atomic_load(&o->ent->wfd) < 0)) {
		/* the first write of this object opens its descriptor as root */
		*fd = io_fd(o, O_WRONLY, own);
		if (*fd < 0)
			s = nfs_stat_from_errno(*fd);
		else if (nfs_cred_enter(&o->cred) != 0)
			s = NFS_ERR_SERVERFAULT;
	} else if (s == NFS_OK) {
		*fd = atomic_load(&o->ent->wfd);
	}
	if (s != NFS_OK) {
		nfs_cred_leave();
		if (*own)
			close(*fd);
		*own = false;
		*fd = -1;
	}
	return s;
}

/* o's descriptor for reading, once the caller may read it (the owner always may).
 * The caller closes fd when *own. */
static enum nfs_stat read_fd(struct nfs_obj *o, int *fd, bool *own)
{
	enum nfs_stat s = need_regular(&o->st);

	*fd = -1;
	*own = false;
	if (s != NFS_OK)
		return s;
	if (!owner_override(o)) {
		if (nfs_cred_enter(&o->cred) != 0)
			return NFS_ERR_SERVERFAULT;
		s = may_io(o, R_OK);
		nfs_cred_leave();
		if (s != NFS_OK)
			return s;
	}
	*fd = io_fd(o, O_RDONLY, own);
	return *fd < 0 ? nfs_stat_from_errno(*fd) : NFS_OK;
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
	if (off + len < off) {
		s = NFS_ERR_FBIG;
		goto out;
	}
	s = write_fd(ctx, &o, &fd, &own);
	if (s != NFS_OK)
		goto out;
	/* the write runs as the caller: the kernel clears setuid and setgid on a write by a
	 * non-root fs uid */
	while (n < len) {
		ssize_t w = pwrite(fd, (const char *)data + n, len - n, (off_t)(off + n));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int err = errno;

			if (n == 0) { /* a short WRITE is not a failed one (knfsd: no error) */
				nfs_fs_write_failed(ctx->fs, err);
				s = nfs_stat_from_errno(err);
			}
			break;
		}
		n += (uint32_t)w;
	}
	nfs_cred_leave();
	if (s == NFS_OK && stable != NFS_UNSTABLE) {
		if (!o.client->opts.async && fsync(fd) != 0) {
			nfs_fs_write_failed(ctx->fs, errno);
			s = nfs_stat_from_errno(errno);
		} else {
			*committed = NFS_FILE_SYNC;
		}
	}
	if (s == NFS_OK)
		*written = n;
	if (own)
		close(fd);
out:
	nfs_wcc_end(&o, wcc, n > 0); /* bytes written change the file, whatever the sync did */
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
		nfs_fs_write_failed(ctx->fs, errno);
		s = nfs_stat_from_errno(errno);
	}
	if (own)
		close(fd);
out:
	nfs_wcc_post(&o, wcc);
	nfs_obj_put(&o);
	return s;
}

/* ---- space and server-side copies (NFSv4.2: RFC 7862 §15.1, §15.4, §15.2, §15.13) ---- */

/* Bytes of [off, end) the file has blocks for, by FIEMAP (written and unwritten extents alike);
 * when the file system has no FIEMAP, or the range has more extents than are read here, the
 * file's whole allocation (@have), which bounds it from above either way. */
static uint64_t held_in_range(int fd, uint64_t off, uint64_t end, uint64_t have)
{
	union { /* a union may hold a struct with a flexible array member (C11 6.7.2.1) */
		struct fiemap m;
		uint8_t b[sizeof(struct fiemap) + 32 * sizeof(struct fiemap_extent)];
	} f;
	uint64_t held = 0, pos = off;

	for (int round = 0; round < 64 && pos < end; round++) {
		memset(&f, 0, sizeof(f));
		f.m.fm_start = pos;
		f.m.fm_length = end - pos;
		f.m.fm_extent_count = 32;
		if (ioctl(fd, FS_IOC_FIEMAP, &f.m) != 0)
			return have;
		if (f.m.fm_mapped_extents == 0)
			return held;
		for (uint32_t i = 0; i < f.m.fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &f.m.fm_extents[i];
			uint64_t lo = e->fe_logical > pos ? e->fe_logical : pos;
			uint64_t hi = e->fe_logical + e->fe_length < end
					      ? e->fe_logical + e->fe_length
					      : end;

			held += hi > lo ? hi - lo : 0;
			pos = e->fe_logical + e->fe_length;
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				return held;
		}
	}
	return pos >= end ? held : have;
}

/* A reservation that certainly cannot fit is refused before it starts: a failed fallocate on
 * ext4 keeps the blocks it reserved, so an ALLOCATE past the free space would leave the file
 * system full for every client and still fail. The range needs at least len minus the blocks it
 * holds already; more than the free blocks cannot succeed. f_bfree, not f_bavail: the caller's
 * fs uid changes, not the server's CAP_SYS_RESOURCE, so every caller may use ext4's reserve. A
 * file system that reports no size (tmpfs without a limit) is left to fallocate, and so is
 * anything that might fit: two racing ALLOCATEs, a quota (EDQUOT), or extent-tree blocks can
 * still make a checked one fail part-way. */
static bool cannot_fit(int fd, uint64_t off, uint64_t len)
{
	struct statvfs v;
	struct stat st;
	uint64_t held, avail;

	if (fstat(fd, &st) != 0 || fstatvfs(fd, &v) != 0)
		return false; /* fallocate decides */
	if (v.f_blocks == 0)
		return false; /* no size reported */
	avail = (uint64_t)v.f_bfree * v.f_frsize;
	if (len <= avail)
		return false;
	held = held_in_range(fd, off, off + len, (uint64_t)st.st_blocks * 512u);
	return held < len && len - held > avail;
}

enum nfs_stat nfs_fs_allocate(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			      uint64_t len, bool punch)
{
	struct nfs_obj o;
	enum nfs_stat s;
	bool own = false;
	int fd = -1;

	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return NFS_ERR_FBIG;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	s = write_fd(ctx, &o, &fd, &own);
	if (s != NFS_OK)
		goto out;
	/* as the caller, like a write: the caller's quota and the kernel's rules */
	if (!punch && cannot_fit(fd, off, len))
		s = NFS_ERR_NOSPC;
	else if (fallocate(fd, punch ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE : 0, (off_t)off,
			   (off_t)len) != 0)
		s = nfs_stat_from_errno(errno);
	nfs_cred_leave();
	if (s == NFS_OK)
		nfs_change_note_fd(ctx->fs, fd);
	/* a sync export makes the new extents durable before it answers, as a stable WRITE */
	if (s == NFS_OK && !o.client->opts.async && fsync(fd) != 0) {
		nfs_fs_write_failed(ctx->fs, errno);
		s = nfs_stat_from_errno(errno);
	}
	if (own)
		close(fd);
out:
	nfs_obj_put(&o);
	return s;
}

enum nfs_stat nfs_fs_seek(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off, bool hole,
			  uint64_t *pos, bool *eof)
{
	struct nfs_obj o;
	enum nfs_stat s;
	struct stat st;
	bool own = false;
	off_t r;
	int fd = -1;

	*pos = 0;
	*eof = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	s = read_fd(&o, &fd, &own);
	if (s != NFS_OK)
		goto out;
	if (fstat(fd, &st) != 0) {
		s = nfs_stat_from_errno(errno);
		goto out_fd;
	}
	/* an offset at or beyond the end is NXIO (RFC 7862 §15.11.3), as lseek says */
	if (off >= (uint64_t)st.st_size) {
		s = NFS_ERR_NXIO;
		goto out_fd;
	}
	/* the shared descriptor's position moves; nothing reads it (pread and pwrite only) */
	r = lseek(fd, (off_t)off, hole ? SEEK_HOLE : SEEK_DATA);
	if (r < 0 && errno == ENXIO) {
		/* no data from off to the end (a trailing hole): NFS4_OK with sr_eof */
		*pos = (uint64_t)st.st_size;
		*eof = true;
	} else if (r < 0) {
		s = nfs_stat_from_errno(errno);
	} else {
		*pos = (uint64_t)r;
		*eof = (uint64_t)r >= (uint64_t)st.st_size;
	}
out_fd:
	if (own)
		close(fd);
out:
	nfs_obj_put(&o);
	return s;
}

/* The source's read and the destination's write descriptors for COPY and CLONE, with the
 * caller's identity in force on success (nfs_cred_leave after). Ranges beyond the source's
 * end are INVAL (RFC 7862 §15.2.3); *count 0 (to the end) becomes the bytes up to it. */
struct xfer {
	struct nfs_obj so, dobj;
	int sfd, dfd;
	bool sown, down;
};

static enum nfs_stat xfer_open(struct nfs_ctx *ctx, const struct nfs_fh *src, uint64_t soff,
			       const struct nfs_fh *dst, uint64_t *count, struct xfer *x)
{
	enum nfs_stat s;
	struct stat st;

	x->sfd = x->dfd = -1;
	x->sown = x->down = false;
	s = nfs_obj_get(ctx, src, &x->so);
	if (s != NFS_OK)
		return s;
	s = nfs_obj_get(ctx, dst, &x->dobj);
	if (s != NFS_OK)
		goto put_src;
	s = read_fd(&x->so, &x->sfd, &x->sown);
	if (s != NFS_OK)
		goto put_dst;
	if (fstat(x->sfd, &st) != 0) {
		s = nfs_stat_from_errno(errno);
		goto close_src;
	}
	if (soff > (uint64_t)st.st_size || *count > (uint64_t)st.st_size - soff) {
		s = NFS_ERR_INVAL;
		goto close_src;
	}
	if (*count == 0)
		*count = (uint64_t)st.st_size - soff;
	s = write_fd(ctx, &x->dobj, &x->dfd, &x->down);
	if (s == NFS_OK)
		return NFS_OK;
close_src:
	if (x->sown)
		close(x->sfd);
put_dst:
	nfs_obj_put(&x->dobj);
put_src:
	nfs_obj_put(&x->so);
	return s;
}

static void xfer_close(struct xfer *x)
{
	nfs_cred_leave();
	if (x->down)
		close(x->dfd);
	if (x->sown)
		close(x->sfd);
	nfs_obj_put(&x->dobj);
	nfs_obj_put(&x->so);
}

enum nfs_stat nfs_fs_copy(struct nfs_ctx *ctx, const struct nfs_fh *src, uint64_t soff,
			  const struct nfs_fh *dst, uint64_t doff, uint64_t count, uint64_t max,
			  uint64_t *copied)
{
	struct xfer x;
	enum nfs_stat s;
	uint64_t done = 0;

	*copied = 0;
	if (soff > (uint64_t)INT64_MAX || doff > (uint64_t)INT64_MAX)
		return NFS_ERR_INVAL;
	s = xfer_open(ctx, src, soff, dst, &count, &x);
	if (s != NFS_OK)
		return s;
	if (count > max)
		count = max;
	if (doff + count < doff || doff + count > (uint64_t)INT64_MAX) {
		s = NFS_ERR_FBIG;
		goto out;
	}
	/* as the caller: the kernel clears setuid and setgid as on a write */
	while (done < count) {
		off_t si = (off_t)(soff + done), di = (off_t)(doff + done);
		ssize_t n = copy_file_range(x.sfd, &si, x.dfd, &di, count - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (done == 0)
				s = nfs_stat_from_errno(errno);
			break;
		}
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	*copied = done;
	if (done)
		nfs_change_note_fd(ctx->fs, x.dfd);
out:
	xfer_close(&x);
	return s;
}

enum nfs_stat nfs_fs_clone(struct nfs_ctx *ctx, const struct nfs_fh *src, uint64_t soff,
			   const struct nfs_fh *dst, uint64_t doff, uint64_t count)
{
	struct file_clone_range r;
	bool to_end = count == 0;
	struct xfer x;
	enum nfs_stat s;

	if (soff > (uint64_t)INT64_MAX || doff > (uint64_t)INT64_MAX)
		return NFS_ERR_INVAL;
	s = xfer_open(ctx, src, soff, dst, &count, &x);
	if (s != NFS_OK)
		return s;
	r.src_fd = x.sfd;
	r.src_offset = soff;
	r.src_length = to_end ? 0 : count; /* 0: to the source's end, which may be unaligned */
	r.dest_offset = doff;
	/* a file system that cannot share extents says EOPNOTSUPP (or ENOTTY): NOTSUPP */
	if (ioctl(x.dfd, FICLONERANGE, &r) != 0)
		s = nfs_stat_from_errno(errno);
	else
		nfs_change_note_fd(ctx->fs, x.dfd);
	xfer_close(&x);
	return s;
}
