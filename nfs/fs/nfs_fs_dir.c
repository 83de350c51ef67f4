/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_dir.c - operations on directories: CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR,
 * RENAME, LINK (RFC 1813 §3.3.8-§3.3.15) and READDIR/READDIRPLUS (§3.3.16, §3.3.17).
 *
 * Each change runs as the squashed caller on the directory's O_PATH descriptor (mkdirat,
 * unlinkat, renameat, ...), so the kernel applies the directory's mode, the sticky bit and
 * setgid inheritance. New objects get the mode the client asked for exactly (a chmod after the
 * create undoes the server's umask) and no mode bits when it asked for none, as knfsd.
 *
 * EXCLUSIVE create keeps the client's verifier in the new file's mtime and atime seconds
 * (31 bits each, as knfsd), so a retransmitted CREATE finds its own file and succeeds.
 *
 * READDIR: cookies are the file system's own d_off values (getdents64), so they stay valid
 * across calls; a call resumes with lseek() to the cookie. The cookie verifier is 8 zero bytes,
 * as knfsd sends, and any verifier is accepted. READDIRPLUS opens each entry without following
 * symlinks to make its handle, exactly as LOOKUP does. At an export's root ".." is the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nfs_fs_int.h"

/* Start a directory operation: the directory, its pre-operation attributes, the name. On
 * failure the object is released and wcc has what could be filled. */
static enum nfs_stat dir_begin(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			       uint32_t namelen, char *n, struct nfs_obj *o, struct nfs_wcc *wcc)
{
	enum nfs_stat s;

	if (wcc)
		memset(wcc, 0, sizeof(*wcc));
	s = nfs_obj_get(ctx, dir, o);
	if (s != NFS_OK)
		return s;
	nfs_wcc_pre(o, wcc);
	if (!S_ISDIR(o->st.st_mode))
		s = NFS_ERR_NOTDIR;
	if (s == NFS_OK)
		s = nfs_obj_check_name(name, namelen, n);
	if (s == NFS_OK)
		s = nfs_obj_writable(ctx, o);
	if (s == NFS_OK && nfs_cred_enter(&o->cred) != 0)
		s = NFS_ERR_SERVERFAULT;
	if (s != NFS_OK) {
		nfs_wcc_post(o, wcc);
		nfs_obj_put(o);
	}
	return s;
}

/* End it: back to root, post-operation attributes (changed: the directory was changed, the
 * operation succeeded), release. */
static void dir_end(struct nfs_obj *o, struct nfs_wcc *wcc, bool changed)
{
	nfs_cred_leave();
	nfs_wcc_end(o, wcc, changed);
	nfs_obj_put(o);
}

/* The new object open at fd: apply the rest of sattr (as the caller), its handle and attrs. */
static enum nfs_stat made(struct nfs_obj *o, int fd, const struct nfs_sattr *sa, struct nfs_fh *fh,
			  struct nfs_attr *attr)
{
	struct stat st;
	enum nfs_stat s;

	if (fstat(fd, &st) != 0)
		return nfs_stat_from_errno(errno);
	if (sa) {
		s = nfs_sattr_apply(o, fd, &st, sa);
		if (s != NFS_OK)
			return s;
		if (fstat(fd, &st) != 0)
			return nfs_stat_from_errno(errno);
		/* attributes set (an UNCHECKED create's size on a file that was there, a new
		 * file's owner or times): a change of the object */
		if (sa->set_mode || sa->set_uid || sa->set_gid || sa->set_size ||
		    sa->atime_how != NFS_TIME_DONT || sa->mtime_how != NFS_TIME_DONT)
			nfs_change_note(o->fs, &st);
	}
	s = fh ? nfs_obj_fh(o, fd, &st, fh) : NFS_OK;
	if (s == NFS_OK && attr)
		nfs_attr_from_stat(o, &st, attr);
	return s;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* sattr without what the create already set */
static struct nfs_sattr rest_of(const struct nfs_sattr *sa, bool keep_size)
{
	struct nfs_sattr r = {0};

	if (sa) {
		r = *sa;
		r.set_size = keep_size && sa->set_size;
	}
	return r;
}

enum nfs_stat nfs_fs_create(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, enum nfs_createmode how, const struct nfs_sattr *sa,
			    const uint8_t verf[8], struct nfs_fh *fh, struct nfs_attr *attr,
			    struct nfs_wcc *dir_wcc)
{
	mode_t mode = sa && sa->set_mode ? sa->mode & 07777 : 0;
	char n[NFS_NAME_MAX + 1];
	struct nfs_sattr rest;
	struct nfs_obj o;
	enum nfs_stat s;
	struct stat st;
	bool created = false; /* a new name in the directory (not an existing file taken) */
	int fd;

	if (how > NFS_CREATE_EXCLUSIVE)
		return NFS_ERR_INVAL;
	s = dir_begin(ctx, dir, name, namelen, n, &o, dir_wcc);
	if (s != NFS_OK)
		return s;
	/* A name removed between the failed O_EXCL create and the open of what is there is
	 * created again, so UNCHECKED and EXCLUSIVE never answer NOENT for the name they create.
	 * Bounded, as a remover and a creator could alternate for ever. */
	for (unsigned tries = 0;; tries++) {
		fd = openat(o.fd, n,
			    O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			    how == NFS_CREATE_EXCLUSIVE ? 0 : mode);
		if (fd >= 0) {
			created = true;
			if (how == NFS_CREATE_EXCLUSIVE) {
				/* the verifier in the times, until the client's SETATTR replaces
				 * them */
				rest = (struct nfs_sattr){
					.atime_how = NFS_TIME_CLIENT,
					.mtime_how = NFS_TIME_CLIENT,
					.mtime = {.sec = be32(verf) & 0x7fffffffu},
					.atime = {.sec = be32(verf + 4) & 0x7fffffffu},
				};
			} else {
				rest = rest_of(sa, true);
			}
			s = made(&o, fd, &rest, fh, attr);
			goto out;
		}
		if (errno != EEXIST || how == NFS_CREATE_GUARDED) {
			s = nfs_stat_from_errno(errno);
			goto out;
		}
		/* it exists: UNCHECKED takes a regular file (and only its size), EXCLUSIVE its
		 * own */
		fd = openat(o.fd, n, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != ENOENT || tries == 8) {
			s = nfs_stat_from_errno(errno);
			goto out;
		}
	}
	if (fstat(fd, &st) != 0) {
		s = nfs_stat_from_errno(errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		s = NFS_ERR_EXIST;
	} else if (how == NFS_CREATE_EXCLUSIVE) {
		bool mine = (uint32_t)st.st_mtim.tv_sec == (be32(verf) & 0x7fffffffu) &&
			    (uint32_t)st.st_atim.tv_sec == (be32(verf + 4) & 0x7fffffffu) &&
			    st.st_size == 0;

		s = mine ? made(&o, fd, NULL, fh, attr) : NFS_ERR_EXIST;
	} else {
		rest = (struct nfs_sattr){.set_size = sa && sa->set_size,
					  .size = sa ? sa->size : 0};
		s = made(&o, fd, &rest, fh, attr);
	}
out:
	if (fd >= 0)
		close(fd);
	dir_end(&o, dir_wcc, s == NFS_OK && created);
	return s;
}

/* The end of MKDIR, SYMLINK and MKNOD: rc is the create call's result (errno holds its error);
 * the new object is opened without following it (extra: O_DIRECTORY for MKDIR), given the
 * rest of its attributes, and answered; the directory's wcc closes it all. */
static enum nfs_stat new_done(struct nfs_obj *o, const char *n, int rc, int extra,
			      const struct nfs_sattr *rest, struct nfs_fh *fh,
			      struct nfs_attr *attr, struct nfs_wcc *dir_wcc)
{
	enum nfs_stat s;
	int fd = -1;

	if (rc != 0) {
		s = nfs_stat_from_errno(errno);
	} else {
		fd = openat(o->fd, n, O_PATH | O_NOFOLLOW | O_CLOEXEC | extra);
		s = fd < 0 ? nfs_stat_from_errno(errno) : made(o, fd, rest, fh, attr);
	}
	if (fd >= 0)
		close(fd);
	dir_end(o, dir_wcc, rc == 0);
	return s;
}

enum nfs_stat nfs_fs_mkdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, const struct nfs_sattr *sa, struct nfs_fh *fh,
			   struct nfs_attr *attr, struct nfs_wcc *dir_wcc)
{
	char n[NFS_NAME_MAX + 1];
	struct nfs_sattr rest = rest_of(sa, false);
	struct nfs_obj o;
	enum nfs_stat s;

	s = dir_begin(ctx, dir, name, namelen, n, &o, dir_wcc);
	if (s != NFS_OK)
		return s;
	return new_done(&o, n, mkdirat(o.fd, n, rest.set_mode ? rest.mode & 07777 : 0), O_DIRECTORY,
			&rest, fh, attr, dir_wcc);
}

enum nfs_stat nfs_fs_symlink(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			     uint32_t namelen, const struct nfs_sattr *sa, const char *target,
			     uint32_t targetlen, struct nfs_fh *fh, struct nfs_attr *attr,
			     struct nfs_wcc *dir_wcc)
{
	char n[NFS_NAME_MAX + 1], t[NFS_PATH_MAX + 1];
	struct nfs_sattr rest = rest_of(sa, false);
	struct nfs_obj o;
	enum nfs_stat s;

	if (targetlen > NFS_PATH_MAX)
		return NFS_ERR_NAMETOOLONG;
	if (targetlen == 0 || !target || memchr(target, 0, targetlen))
		return NFS_ERR_INVAL;
	memcpy(t, target, targetlen);
	t[targetlen] = 0;
	rest.set_mode = false;
	s = dir_begin(ctx, dir, name, namelen, n, &o, dir_wcc);
	if (s != NFS_OK)
		return s;
	return new_done(&o, n, symlinkat(t, o.fd, n), 0, &rest, fh, attr, dir_wcc);
}

enum nfs_stat nfs_fs_mknod(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, enum nfs_ftype type, const struct nfs_sattr *sa,
			   uint32_t rdev_major, uint32_t rdev_minor, struct nfs_fh *fh,
			   struct nfs_attr *attr, struct nfs_wcc *dir_wcc)
{
	char n[NFS_NAME_MAX + 1];
	struct nfs_sattr rest = rest_of(sa, false);
	mode_t mode = rest.set_mode ? rest.mode & 07777 : 0;
	dev_t rdev = 0;
	struct nfs_obj o;
	enum nfs_stat s;

	switch (type) {
	case NFS_CHR:
		mode |= S_IFCHR;
		rdev = makedev(rdev_major, rdev_minor);
		break;
	case NFS_BLK:
		mode |= S_IFBLK;
		rdev = makedev(rdev_major, rdev_minor);
		break;
	case NFS_SOCK:
		mode |= S_IFSOCK;
		break;
	case NFS_FIFO:
		mode |= S_IFIFO;
		break;
	default:
		return NFS_ERR_BADTYPE;
	}
	s = dir_begin(ctx, dir, name, namelen, n, &o, dir_wcc);
	if (s != NFS_OK)
		return s;
	return new_done(&o, n, mknodat(o.fd, n, mode, rdev), 0, &rest, fh, attr, dir_wcc);
}

/* The server removed a name of st: with its last link gone, close the inode's cached
 * descriptors now rather than keep its space until the cache evicts them (a use in between
 * would see no link and answer STALE anyway). */
static void forget_removed(const struct nfs_obj *o, const struct stat *st)
{
	if (st->st_nlink <= 1 || S_ISDIR(st->st_mode))
		nfs_fdcache_forget_inode(o->fs->fdc, st->st_dev, st->st_ino);
}

static enum nfs_stat unlink_name(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
				 uint32_t namelen, int flags, struct nfs_wcc *dir_wcc)
{
	char n[NFS_NAME_MAX + 1];
	struct nfs_obj o;
	enum nfs_stat s;
	struct stat st;
	bool known;

	s = dir_begin(ctx, dir, name, namelen, n, &o, dir_wcc);
	if (s != NFS_OK)
		return s;
	known = fstatat(o.fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (unlinkat(o.fd, n, flags) != 0)
		s = errno == EEXIST ? NFS_ERR_NOTEMPTY : nfs_stat_from_errno(errno);
	else if (known)
		forget_removed(&o, &st);
	dir_end(&o, dir_wcc, s == NFS_OK);
	return s;
}

enum nfs_stat nfs_fs_remove(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, struct nfs_wcc *dir_wcc)
{
	return unlink_name(ctx, dir, name, namelen, 0, dir_wcc);
}

enum nfs_stat nfs_fs_rmdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, struct nfs_wcc *dir_wcc)
{
	return unlink_name(ctx, dir, name, namelen, AT_REMOVEDIR, dir_wcc);
}

enum nfs_stat nfs_fs_rename(struct nfs_ctx *ctx, const struct nfs_fh *from_dir,
			    const char *from_name, uint32_t from_len, const struct nfs_fh *to_dir,
			    const char *to_name, uint32_t to_len, struct nfs_wcc *from_wcc,
			    struct nfs_wcc *to_wcc)
{
	char tn[NFS_NAME_MAX + 1];
	char fn[NFS_NAME_MAX + 1];
	struct nfs_obj f, t;
	struct stat over, from;
	enum nfs_stat s;
	bool known, noop = false;

	if (to_wcc)
		memset(to_wcc, 0, sizeof(*to_wcc));
	s = dir_begin(ctx, from_dir, from_name, from_len, fn, &f, from_wcc);
	if (s != NFS_OK)
		return s;
	nfs_cred_leave(); /* the second handle opens as root */
	s = nfs_obj_get(ctx, to_dir, &t);
	if (s != NFS_OK)
		goto out_f;
	nfs_wcc_pre(&t, to_wcc);
	if (t.exp != f.exp)
		s = NFS_ERR_XDEV;
	else if (!S_ISDIR(t.st.st_mode))
		s = NFS_ERR_NOTDIR;
	else
		s = nfs_obj_check_name(to_name, to_len, tn);
	if (s == NFS_OK && nfs_cred_enter(&f.cred) != 0)
		s = NFS_ERR_SERVERFAULT;
	if (s == NFS_OK) {
		bool both = fstatat(t.fd, tn, &over, AT_SYMLINK_NOFOLLOW) == 0 &&
			    fstatat(f.fd, fn, &from, AT_SYMLINK_NOFOLLOW) == 0;

		/* a name renamed over loses its inode's link, as a REMOVE; a rename onto the same
		 * inode (itself, a hard link of it) does nothing (rename(2)), and changes nothing
		 * (pynfs RNM18-20 check the change info) */
		known = both && (over.st_dev != from.st_dev || over.st_ino != from.st_ino);
		noop = both && !known;
		if (renameat(f.fd, fn, t.fd, tn) != 0)
			s = errno == EEXIST ? NFS_ERR_NOTEMPTY : nfs_stat_from_errno(errno);
		else if (known)
			forget_removed(&t, &over);
		nfs_cred_leave();
		if (s == NFS_OK && !noop) {
			/* the object renamed changes too (its ctime, a directory's "..") */
			struct stat moved;

			if (fstatat(t.fd, tn, &moved, AT_SYMLINK_NOFOLLOW) == 0)
				nfs_change_note(ctx->fs, &moved);
		}
	}
	nfs_wcc_end(&t, to_wcc, s == NFS_OK && !noop);
	nfs_obj_put(&t);
out_f:
	nfs_wcc_end(&f, from_wcc, s == NFS_OK && !noop);
	nfs_obj_put(&f);
	return s;
}

enum nfs_stat nfs_fs_link(struct nfs_ctx *ctx, const struct nfs_fh *fh, const struct nfs_fh *dir,
			  const char *name, uint32_t namelen, bool *attr_valid,
			  struct nfs_attr *attr, struct nfs_wcc *dir_wcc)
{
	char n[NFS_NAME_MAX + 1], p[32];
	struct nfs_obj f, d;
	enum nfs_stat s;
	struct stat st;

	if (attr_valid)
		*attr_valid = false;
	s = dir_begin(ctx, dir, name, namelen, n, &d, dir_wcc);
	if (s != NFS_OK)
		return s;
	nfs_cred_leave(); /* the file's handle opens as root */
	s = nfs_obj_get(ctx, fh, &f);
	if (s != NFS_OK)
		goto out_d;
	if (f.exp != d.exp)
		s = NFS_ERR_XDEV;
	else if (S_ISDIR(f.st.st_mode))
		s = NFS_ERR_ISDIR;
	if (s == NFS_OK && nfs_cred_enter(&d.cred) != 0)
		s = NFS_ERR_SERVERFAULT;
	if (s == NFS_OK) {
		/* through the magic link: AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH */
		nfs_fd_path(f.fd, p);
		if (linkat(AT_FDCWD, p, d.fd, n, AT_SYMLINK_FOLLOW) != 0)
			s = nfs_stat_from_errno(errno);
		nfs_cred_leave();
	}
	if (s == NFS_OK)
		nfs_change_note_fd(ctx->fs, f.fd); /* a new link: the file's ctime and nlink */
	if (attr_valid && attr && fstat(f.fd, &st) == 0) {
		nfs_attr_from_stat(&f, &st, attr);
		*attr_valid = true;
	}
	nfs_obj_put(&f);
out_d:
	nfs_wcc_end(&d, dir_wcc, s == NFS_OK);
	nfs_obj_put(&d);
	return s;
}

/* ---- READDIR ---- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DIRBUF 16384u

/* READDIRPLUS's handle and attributes of one entry, as LOOKUP would answer */
static void entry_plus(struct nfs_obj *o, int dfd, struct nfs_dirent *e)
{
	struct stat st;
	int fd;

	if (strcmp(e->name, "..") == 0 && nfs_obj_is_root(o, &o->st))
		fd = openat(o->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else
		fd = openat(dfd, e->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && (st.st_dev == o->st.st_dev || o->xview || o->rt->cloned)) {
		e->fh_valid = nfs_obj_fh(o, fd, &st, &e->fh) == NFS_OK;
		nfs_attr_from_stat(o, &st, &e->attr);
		e->attr_valid = true;
	}
	close(fd);
}

enum nfs_stat nfs_fs_readdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, uint64_t cookie,
			     uint8_t cookieverf[8], bool plus, nfs_dirent_fn fn, void *arg,
			     bool *eof, bool *dir_valid, struct nfs_attr *dir_attr)
{
	static _Thread_local uint8_t buf[DIRBUF];
	struct nfs_obj o;
	enum nfs_stat s;
	bool search = false, stop = false;
	int dfd;

	*eof = false;
	if (dir_valid)
		*dir_valid = false;
	s = nfs_obj_get(ctx, dir, &o);
	if (s != NFS_OK)
		return s;
	memset(cookieverf, 0, 8);
	if (!S_ISDIR(o.st.st_mode)) {
		s = NFS_ERR_NOTDIR;
		goto out;
	}
	if (nfs_cred_enter(&o.cred) != 0) {
		s = NFS_ERR_SERVERFAULT;
		goto out;
	}
	dfd = nfs_obj_reopen(&o, o.fd, &o.st, O_RDONLY | O_DIRECTORY);
	/* READDIRPLUS looks entries up as root below: only when the caller may search */
	search = plus && faccessat(o.fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0;
	nfs_cred_leave();
	if (search && nfs_cred_root() != 0)
		search = false;
	if (dfd < 0) {
		s = nfs_stat_from_errno(dfd);
		goto out;
	}
	if (cookie && lseek(dfd, (off_t)cookie, SEEK_SET) < 0) {
		s = NFS_ERR_BAD_COOKIE;
		goto out_dfd;
	}
	while (!stop) {
		long got = syscall(SYS_getdents64, dfd, buf, sizeof(buf));

		if (got < 0) {
			s = nfs_stat_from_errno(errno);
			break;
		}
		if (got == 0) {
			*eof = true;
			break;
		}
		for (long at = 0; at < got;) {
			const struct linux_dirent64 *d = (const void *)(buf + at);
			struct nfs_dirent e = {
				.fileid = d->d_ino,
				.name = d->d_name,
				.namelen = (uint32_t)strlen(d->d_name),
				.cookie = (uint64_t)d->d_off,
			};

			at += d->d_reclen;
			if (strcmp(e.name, "..") == 0 && nfs_obj_is_root(&o, &o.st))
				e.fileid = o.st.st_ino;
			if (search)
				entry_plus(&o, dfd, &e);
			if (!fn(arg, &e)) {
				stop = true;
				break;
			}
		}
	}
out_dfd:
	close(dfd);
out:
	if (dir_valid && dir_attr) {
		struct stat st;

		if (fstat(o.fd, &st) == 0) {
			nfs_attr_from_stat(&o, &st, dir_attr);
			*dir_valid = true;
		}
	}
	nfs_obj_put(&o);
	return s;
}
