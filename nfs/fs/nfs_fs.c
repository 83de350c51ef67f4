/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs.c - the backend object and the steps every operation shares, then the operations on
 * one object (RFC 1813 §3.3: GETATTR, SETATTR, LOOKUP, ACCESS, READLINK, FSSTAT, FSINFO,
 * PATHCONF) and MOUNT's MNT. Data (READ, WRITE, COMMIT) is in nfs_fs_io.c, directory changes
 * and READDIR in nfs_fs_dir.c.
 *
 * Every operation: nfs_obj_get() unseals the handle (BADHANDLE when the MAC does not verify),
 * finds its export (STALE when gone), matches the caller's address (ACCES when not listed;
 * PERM from a port >= 1024 on a "secure" export, as knfsd), squashes the credential, and only
 * then looks the handle up in the descriptor cache (nfs_fdcache.c). On a miss it opens the
 * object with open_by_handle_at() as root (STALE when the inode is gone) and checks that it
 * lies in the export: its device is the export's (or a submount's, for crossmnt). On a hit
 * and a miss alike, an object with no link left is STALE (a cached descriptor keeps a removed
 * inode alive), and a directory must reach the export's root walking "..". A non-directory
 * cannot be walked up; for those the MAC is the guard: the server only seals handles of
 * objects it reached from an export's root by LOOKUP, READDIRPLUS or a create, never by a path
 * a client chose. Then the system calls run as the squashed caller (nfs_cred.c); on the
 * helper threads the caller's identity may stay until something privileged needs root.
 *
 * Mounts: each export's root is opened twice. Callers without crossmnt/nohide use a private,
 * non-recursive clone of the export's mount (open_tree(OPEN_TREE_CLONE)), which holds no
 * submounts, so a LOOKUP of a mount point answers the directory under it, as knfsd does.
 * crossmnt/nohide callers use the mount tree itself, and their handles carry the device of
 * the file system, so an object under a submount is opened through that submount.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "nfs_fs_int.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

#define DOTDOT_WALK_MAX 4096
#define SECURE_PORT_MAX 1023

/* ---- opening ---- */

static int open_root(struct nfs_export *e, struct nfs_export_rt *rt, char *err, size_t errlen)
{
	struct stat st;
	int tree = -1;

	rt->mnt_fd = rt->xmnt_fd = -1;
	rt->xmnt_fd = open(e->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rt->xmnt_fd < 0) {
		snprintf(err, errlen, "export %s: %s", e->path, strerror(errno));
		return -errno;
	}
#ifdef SYS_open_tree
	tree = (int)syscall(SYS_open_tree, AT_FDCWD, e->path, OPEN_TREE_CLONE | O_CLOEXEC);
#endif
	if (tree >= 0) {
		rt->cloned = true;
		e->root_fd = tree;
	} else {
		/* no private clone (no CAP_SYS_ADMIN): LOOKUP refuses to cross mount points */
		e->root_fd = open(e->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (e->root_fd >= 0)
		rt->mnt_fd = openat(e->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->root_fd < 0 || rt->mnt_fd < 0 || fstat(e->root_fd, &st) != 0) {
		snprintf(err, errlen, "export %s: %s", e->path, strerror(errno));
		return -errno;
	}
	rt->dev = st.st_dev;
	rt->ino = st.st_ino;
	if (!e->clients[0].opts.fsid_set) {
		bool set = false;

		for (uint32_t i = 0; i < e->nclients; i++)
			set |= e->clients[i].opts.fsid_set;
		if (!set)
			e->fsid = (uint64_t)st.st_dev;
	}
	return 0;
}

static int check_handles(const struct nfs_export *e, char *err, size_t errlen)
{
	struct {
		struct file_handle h;
		uint8_t b[MAX_HANDLE_SZ];
	} k;
	int mnt;

	k.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(e->root_fd, "", &k.h, &mnt, AT_EMPTY_PATH) != 0) {
		snprintf(err, errlen, "export %s: the file system gives no file handles (%s)",
			 e->path, strerror(errno));
		return -EOPNOTSUPP;
	}
	if (k.h.handle_bytes > NFS_KFH_MAX) {
		snprintf(err, errlen, "export %s: the file system's handles (%u bytes) do not fit",
			 e->path, k.h.handle_bytes);
		return -EOVERFLOW;
	}
	return 0;
}

static void tab_free(struct nfs_export_tab *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < NFS_EXPORT_MAX; i++) {
		if (t->exports[i].root_fd >= 0)
			close(t->exports[i].root_fd);
		if (t->rt[i].mnt_fd >= 0)
			close(t->rt[i].mnt_fd);
		if (t->rt[i].xmnt_fd >= 0)
			close(t->rt[i].xmnt_fd);
	}
	free(t);
}

/* A whole export table from exports(5) text: parsed, host names resolved, stable ids from the
 * state directory (new paths get new ids there), every root opened and its handles checked. */
static int tab_build(struct nfs_state *state, const char *text, struct nfs_export_tab **out,
		     char *err, size_t errlen)
{
	struct nfs_export_tab *t = calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < NFS_EXPORT_MAX; i++) {
		t->exports[i].root_fd = -1;
		t->rt[i].mnt_fd = t->rt[i].xmnt_fd = -1;
	}
	rc = nfs_exports_parse(text, t->exports, NFS_EXPORT_MAX, err, errlen);
	if (rc < 0)
		goto fail;
	t->n = (uint32_t)rc;
	for (uint32_t i = t->n; i < NFS_EXPORT_MAX; i++)
		t->exports[i].root_fd = -1;
	rc = nfs_exports_resolve(t->exports, t->n, err, errlen);
	if (!rc)
		rc = nfs_state_export_ids(state, t->exports, t->n, err, errlen);
	for (uint32_t i = 0; !rc && i < t->n; i++) {
		rc = open_root(&t->exports[i], &t->rt[i], err, errlen);
		if (!rc)
			rc = check_handles(&t->exports[i], err, errlen);
	}
	if (rc)
		goto fail;
	*out = t;
	return 0;
fail:
	tab_free(t);
	return rc;
}

static struct nfs_export_tab *tab_now(const struct nfs_fs *fs)
{
	return atomic_load_explicit(&((struct nfs_fs *)fs)->tab, memory_order_acquire);
}

/* Up to 3 descriptors per entry, and room left for everything else the process opens. */
static uint32_t fdcache_size(void)
{
	struct rlimit rl;
	uint64_t n = NFS_FDCACHE_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 8 < n)
		n = rl.rlim_cur / 8;
	return n < 16 ? 16 : (uint32_t)n;
}

int nfs_fs_open(struct nfs_fs **out, const char *exports_text, const char *statedir, char *err,
		size_t errlen)
{
	struct nfs_fs *fs = calloc(1, sizeof(*fs));
	struct nfs_export_tab *t = NULL;
	struct timespec now;
	int rc;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (!fs)
		return -ENOMEM;
	rc = nfs_state_open(&fs->state, statedir, err, errlen);
	if (!rc)
		rc = tab_build(&fs->state, exports_text, &t, err, errlen);
	if (rc) {
		free(fs);
		return rc;
	}
	fs->fdc = nfs_fdcache_create(fdcache_size());
	if (!fs->fdc) {
		tab_free(t);
		free(fs);
		return -ENOMEM;
	}
	atomic_store(&fs->tab, t);
	clock_gettime(CLOCK_REALTIME, &now);
	fs->boot_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	*out = fs;
	return 0;
}

int nfs_fs_reload_prepare(struct nfs_fs *fs, const char *exports_text, struct nfs_export_tab **next,
			  char *err, size_t errlen)
{
	if (errlen)
		err[0] = 0;
	return tab_build(&fs->state, exports_text, next, err, errlen);
}

static bool id_in(const uint32_t *ids, uint32_t n, uint32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool tab_has(const struct nfs_export_tab *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->exports[i].id == id)
			return true;
	return false;
}

void nfs_fs_reload_commit(struct nfs_fs *fs, struct nfs_export_tab *next,
			  struct nfs_reload_stats *st)
{
	struct nfs_export_tab *old = tab_now(fs);

	memset(st, 0, sizeof(*st));
	/* removed now, or earlier and not back: ACCES from now on */
	for (uint32_t i = 0; i < old->n + old->ngone; i++) {
		uint32_t id = i < old->n ? old->exports[i].id : old->gone[i - old->n];

		if (tab_has(next, id) || id_in(next->gone, next->ngone, id))
			continue;
		if (i < old->n) {
			st->removed++;
			/* its handles answer ACCES before the cache: let its descriptors go */
			nfs_fdcache_flush_export(fs, id);
		}
		if (next->ngone < NFS_GONE_MAX)
			next->gone[next->ngone++] = id;
	}
	for (uint32_t i = 0; i < next->n; i++) {
		if (tab_has(old, next->exports[i].id))
			st->kept++;
		else
			st->added++;
	}
	atomic_store_explicit(&fs->tab, next, memory_order_release);
	old->retired_next = fs->retired;
	fs->retired = old;
	st->exports = next->n;
}

void nfs_fs_reload_abort(struct nfs_export_tab *next)
{
	tab_free(next);
}

uint32_t nfs_fs_reclaim(struct nfs_fs *fs)
{
	uint32_t n = 0;

	while (fs->retired) {
		struct nfs_export_tab *t = fs->retired;

		fs->retired = t->retired_next;
		tab_free(t);
		n++;
	}
	return n;
}

int nfs_fs_sync(struct nfs_fs *fs, uint32_t *synced)
{
	struct nfs_export_tab *t = tab_now(fs);
	int rc = 0;

	*synced = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		bool seen = false;

		/* one syncfs per file system */
		for (uint32_t j = 0; j < i; j++)
			seen |= t->rt[j].dev == t->rt[i].dev;
		if (seen)
			continue;
		if (syncfs(t->rt[i].xmnt_fd) != 0) {
			rc = -errno;
			continue;
		}
		(*synced)++;
	}
	return rc;
}

void nfs_fs_close(struct nfs_fs *fs)
{
	if (!fs)
		return;
	nfs_fs_reclaim(fs);
	tab_free(atomic_load(&fs->tab));
	for (uint32_t i = 0; i < fs->nsub && i < NFS_SUBMOUNTS_MAX; i++)
		close(fs->sub[i].fd);
	nfs_fdcache_destroy(fs->fdc);
	free(fs);
}

void nfs_fs_write_verf(const struct nfs_fs *fs, uint8_t verf[8])
{
	uint64_t gen = atomic_load(&((struct nfs_fs *)fs)->verf_gen);
	uint32_t lo = (uint32_t)(fs->boot_ns / 1000u) + (uint32_t)gen * 0x9e3779b9u;

	/* the boot counter makes each open's verifier new even with a clock stepped back */
	verf[0] = (uint8_t)(fs->state.boot >> 24);
	verf[1] = (uint8_t)(fs->state.boot >> 16);
	verf[2] = (uint8_t)(fs->state.boot >> 8);
	verf[3] = (uint8_t)fs->state.boot;
	verf[4] = (uint8_t)(lo >> 24);
	verf[5] = (uint8_t)(lo >> 16);
	verf[6] = (uint8_t)(lo >> 8);
	verf[7] = (uint8_t)lo;
}

const struct nfs_export *nfs_fs_export(const struct nfs_fs *fs, uint32_t i)
{
	struct nfs_export_tab *t = tab_now(fs);

	return i < t->n ? &t->exports[i] : NULL;
}

void nfs_fs_stats(const struct nfs_fs *fs, struct nfs_fs_stats *st)
{
	struct nfs_fs *w = (struct nfs_fs *)fs;

	st->badhandle = atomic_load(&w->n_badhandle);
	st->stale = atomic_load(&w->n_stale);
	st->acces_client = atomic_load(&w->n_acces_client);
	st->rofs = atomic_load(&w->n_rofs);
	st->squashed = atomic_load(&w->n_squashed);
}

/* ---- submounts of crossmnt exports ---- */

/* mountinfo escapes ' ', '\t', '\n' and '\' as \ooo */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

static int submount_find(struct nfs_fs *fs, const struct nfs_export *e, uint32_t dev)
{
	char line[2 * NFS_PATH_MAX + 512];
	uint32_t n = atomic_load(&fs->nsub);
	size_t plen = strlen(e->path);
	int fd = -1;
	FILE *f;

	for (uint32_t i = 0; i < n; i++)
		if (fs->sub[i].dev == dev && fs->sub[i].export_id == e->id)
			return fs->sub[i].fd;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		unsigned ma, mi;
		char mp[NFS_PATH_MAX + 8];
		struct stat st;

		/* id parent major:minor root mount-point ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %1030s", &ma, &mi, mp) != 3)
			continue;
		unescape(mp);
		if (nfs_fh_dev_encode(makedev(ma, mi)) != dev)
			continue;
		if (strncmp(mp, e->path, plen) != 0 || (mp[plen] != '/' && plen > 1))
			continue;
		fd = open(mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) != 0 || nfs_fh_dev_encode(st.st_dev) != dev)) {
			close(fd);
			fd = -1;
		}
	}
	fclose(f);
	if (fd < 0)
		return -1;
	while (__atomic_exchange_n(&fs->sub_lock, 1, __ATOMIC_ACQUIRE))
		;
	n = atomic_load(&fs->nsub);
	if (n < NFS_SUBMOUNTS_MAX) {
		fs->sub[n] = (struct nfs_submount){.dev = dev, .export_id = e->id, .fd = fd};
		atomic_store(&fs->nsub, n + 1);
	} else {
		close(fd);
		fd = -1;
	}
	__atomic_store_n(&fs->sub_lock, 0, __ATOMIC_RELEASE);
	return fd;
}

/* ---- the steps every operation shares ---- */

static bool same_obj(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

bool nfs_obj_is_root(const struct nfs_obj *o, const struct stat *st)
{
	return st->st_dev == o->rt->dev && st->st_ino == o->rt->ino;
}

/* The caller's client entry, port check and credential, for export index i. */
static enum nfs_stat admit(struct nfs_ctx *ctx, struct nfs_export_tab *t, uint32_t i,
			   struct nfs_obj *o)
{
	struct nfs_fs *fs = ctx->fs;
	const struct nfs_export_client *c;
	uint16_t port = 0;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->fs = fs;
	o->exp = &t->exports[i];
	o->rt = &t->rt[i];
	c = nfs_export_match(o->exp, &ctx->peer);
	if (!c) {
		atomic_fetch_add(&fs->n_acces_client, 1);
		return NFS_ERR_ACCES;
	}
	if (ctx->peer.ss_family == AF_INET)
		port = ntohs(((const struct sockaddr_in *)&ctx->peer)->sin_port);
	else if (ctx->peer.ss_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6 *)&ctx->peer)->sin6_port);
	if (!c->opts.insecure && !ctx->rdma && port > SECURE_PORT_MAX) {
		atomic_fetch_add(&fs->n_acces_client, 1);
		return NFS_ERR_PERM; /* knfsd: "request from insecure port" */
	}
	o->client = c;
	o->xview = c->opts.crossmnt || c->opts.nohide;
	if (nfs_export_squash(&c->opts, &ctx->cred, &o->cred))
		atomic_fetch_add(&fs->n_squashed, 1);
	return NFS_OK;
}

/* A directory is inside the export when walking ".." reaches the export's root. */
static bool dir_inside(const struct nfs_obj *o)
{
	struct stat cur = o->st, up;
	int fd = -1;
	bool in = false;

	for (int i = 0; i < DOTDOT_WALK_MAX; i++) {
		int nfd;

		if (nfs_obj_is_root(o, &cur)) {
			in = true;
			break;
		}
		nfd = openat(fd >= 0 ? fd : o->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		/* the walk may run as the thread's last caller (nfs_cred_lazy): the same
		 * answer as root's whenever that caller may search, else ask as root */
		if (nfd < 0 && errno == EACCES && !nfs_cred_is_root() && nfs_cred_root() == 0)
			nfd = openat(fd >= 0 ? fd : o->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0)
			break;
		if (fstat(nfd, &up) != 0 || same_obj(&up, &cur)) {
			close(nfd);
			break; /* the top of the file system, or of a detached clone */
		}
		if (fd >= 0)
			close(fd);
		fd = nfd;
		cur = up;
	}
	if (fd >= 0)
		close(fd);
	return in;
}

/* The checks after a descriptor is had, cached or not: a removed inode (no link left: a cached
 * descriptor, or one another process holds open, keeps it alive) and, for a directory, the
 * walk to the export's root, every time (a directory can be moved out on the server). */
static bool still_valid(const struct nfs_obj *o)
{
	return o->st.st_nlink > 0 && (!S_ISDIR(o->st.st_mode) || dir_inside(o));
}

enum obj_how {
	OBJ_ANY,	 /**< nfs_obj_get */
	OBJ_CACHED,	 /**< nfs_obj_get_cached */
	OBJ_CACHED_LAZY, /**< nfs_obj_get_lazy */
};

/* OBJ_CACHED: a regular file whose descriptor is cached, or NFS_ERR_JUKEBOX with nothing
 * held; OBJ_CACHED_LAZY: the same, from what the cache last saw when it saw a regular file */
static enum nfs_stat obj_get(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o,
			     enum obj_how how)
{
	bool cached_only = how != OBJ_ANY;
	struct nfs_fs *fs = ctx->fs;
	struct nfs_export_tab *t;
	struct nfs_fh_parts p;
	struct {
		struct file_handle h;
		uint8_t b[NFS_KFH_MAX];
	} k;
	uint8_t key[NFS_FDC_KEY_MAX];
	struct nfs_fdc_ent *e;
	enum nfs_stat s;
	uint32_t i, klen;
	int mfd, fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->fs = fs;
	if (!fh || nfs_fh_unseal(fs->state.key, fh, &p) != 0) {
		atomic_fetch_add(&fs->n_badhandle, 1);
		return NFS_ERR_BADHANDLE;
	}
	t = tab_now(fs);
	for (i = 0; i < t->n; i++)
		if (t->exports[i].id == p.export_id)
			break;
	if (i == t->n && id_in(t->gone, t->ngone, p.export_id)) {
		atomic_fetch_add(&fs->n_acces_client, 1);
		return NFS_ERR_ACCES; /* a reload took the export away */
	}
	if (i == t->n)
		goto stale;
	s = admit(ctx, t, i, o);
	if (s != NFS_OK)
		return s;
	/* only now, with the handle verified, its export live and the caller admitted */
	key[0] = o->xview;
	memcpy(key + 1, fh->data, fh->len);
	klen = 1 + fh->len;
	e = nfs_fdcache_get(fs->fdc, key, klen);
	if (e) {
		uint64_t seen = atomic_load_explicit(&e->seen, memory_order_relaxed);

		o->ent = e;
		o->fd = e->pfd;
		if (how == OBJ_CACHED_LAZY && S_ISREG((mode_t)(seen >> 32))) {
			o->st.st_mode = (mode_t)(seen >> 32);
			o->st.st_uid = (uid_t)(uint32_t)seen;
			o->st.st_nlink = 1; /* the caller checks after */
			o->st.st_dev = e->dev;
			o->st.st_ino = e->ino;
			return NFS_OK;
		}
		if (fstat(o->fd, &o->st) != 0) {
			s = nfs_stat_from_errno(errno);
			nfs_obj_put(o);
			return s;
		}
		nfs_fdc_seen(e, &o->st);
		if (cached_only && (!S_ISREG(o->st.st_mode) || o->st.st_nlink == 0)) {
			nfs_obj_put(o);
			return NFS_ERR_JUKEBOX;
		}
		if (!still_valid(o)) {
			nfs_fdcache_evict(fs->fdc, e);
			goto stale;
		}
		return NFS_OK;
	}
	if (cached_only)
		return NFS_ERR_JUKEBOX;
	if (nfs_cred_root() != 0)
		return NFS_ERR_SERVERFAULT;
	if (p.dev == nfs_fh_dev_encode(o->rt->dev))
		mfd = o->xview ? o->rt->xmnt_fd : o->rt->mnt_fd;
	else if (o->xview)
		mfd = submount_find(fs, o->exp, p.dev);
	else
		goto stale;
	if (mfd < 0)
		goto stale;
	k.h.handle_bytes = p.klen;
	k.h.handle_type = p.handle_type;
	memcpy(k.h.f_handle, p.kfh, p.klen);
	o->fd = open_by_handle_at(mfd, &k.h, O_PATH | O_CLOEXEC);
	if (o->fd < 0) {
		if (errno == ESTALE || errno == ENOENT)
			goto stale;
		return nfs_stat_from_errno(errno);
	}
	if (fstat(o->fd, &o->st) != 0) {
		s = nfs_stat_from_errno(errno);
		nfs_obj_put(o);
		return s;
	}
	if (nfs_fh_dev_encode(o->st.st_dev) != p.dev || !still_valid(o))
		goto stale;
	/* when every slot is held, the object keeps its own descriptor */
	fd = o->fd;
	e = nfs_fdcache_add(fs->fdc, key, klen, o->exp->id, fd, &o->st);
	if (e) {
		o->ent = e;
		o->fd = e->pfd;
	}
	return NFS_OK;
stale:
	nfs_obj_put(o);
	atomic_fetch_add(&fs->n_stale, 1);
	return NFS_ERR_STALE;
}

enum nfs_stat nfs_obj_get(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o)
{
	return obj_get(ctx, fh, o, OBJ_ANY);
}

enum nfs_stat nfs_obj_get_cached(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o)
{
	return obj_get(ctx, fh, o, OBJ_CACHED);
}

enum nfs_stat nfs_obj_get_lazy(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o)
{
	return obj_get(ctx, fh, o, OBJ_CACHED_LAZY);
}

void nfs_obj_put(struct nfs_obj *o)
{
	if (o->ent)
		nfs_fdcache_put(o->fs->fdc, o->ent);
	else if (o->fd >= 0)
		close(o->fd);
	o->ent = NULL;
	o->fd = -1;
}

enum nfs_stat nfs_obj_root(const struct nfs_obj *o, struct nfs_obj *root)
{
	*root = *o;
	root->ent = NULL;
	if (nfs_cred_root() != 0)
		return NFS_ERR_SERVERFAULT;
	root->fd = openat(o->xview ? o->rt->xmnt_fd : o->rt->mnt_fd, ".",
			  O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root->fd < 0 || fstat(root->fd, &root->st) != 0) {
		nfs_obj_put(root);
		return nfs_stat_from_errno(errno);
	}
	return NFS_OK;
}

enum nfs_stat nfs_obj_fh(const struct nfs_obj *o, int fd, const struct stat *st, struct nfs_fh *fh)
{
	struct {
		struct file_handle h;
		uint8_t b[MAX_HANDLE_SZ];
	} k;
	struct nfs_fh_parts p;
	int mnt;

	k.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &k.h, &mnt, AT_EMPTY_PATH) != 0)
		return nfs_stat_from_errno(errno);
	if (k.h.handle_bytes > NFS_KFH_MAX)
		return NFS_ERR_SERVERFAULT;
	p.export_id = o->exp->id;
	p.dev = nfs_fh_dev_encode(st->st_dev);
	p.handle_type = k.h.handle_type;
	p.klen = k.h.handle_bytes;
	memcpy(p.kfh, k.h.f_handle, p.klen);
	return nfs_fh_seal(o->fs->state.key, &p, fh) ? NFS_ERR_SERVERFAULT : NFS_OK;
}

/* ---- attributes, names, wcc ---- */

static enum nfs_ftype ftype_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR:
		return NFS_DIR;
	case S_IFBLK:
		return NFS_BLK;
	case S_IFCHR:
		return NFS_CHR;
	case S_IFLNK:
		return NFS_LNK;
	case S_IFSOCK:
		return NFS_SOCK;
	case S_IFIFO:
		return NFS_FIFO;
	default:
		return NFS_REG;
	}
}

static struct nfs_time ntime(const struct timespec *t)
{
	return (struct nfs_time){.sec = (uint32_t)t->tv_sec, .nsec = (uint32_t)t->tv_nsec};
}

/* ---- the change counter (nfs_fs_int.h) ---- */

static uint32_t chg_slot(const struct stat *st)
{
	uint64_t h = ((uint64_t)st->st_ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)st->st_dev;

	return (uint32_t)(h >> 32) & (NFS_CHG_SLOTS - 1);
}

/* the file (20 bits of its inode) and its ctime (32 bits of nanoseconds) in the word's top 52
 * bits; the count in the low 12 */
static uint64_t chg_tag(const struct stat *st)
{
	uint64_t ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ull + (uint64_t)st->st_ctim.tv_nsec;

	return (((uint64_t)st->st_ino & 0xfffffu) << 44) | ((ns & 0xffffffffu) << 12);
}

void nfs_change_note(struct nfs_fs *fs, const struct stat *st)
{
	_Atomic uint64_t *e = &fs->chg[chg_slot(st)];
	uint64_t tag = chg_tag(st), old = atomic_load_explicit(e, memory_order_relaxed), nv;

	do {
		uint64_t n = old & NFS_CHG_MAX;

		if ((old & ~(uint64_t)NFS_CHG_MAX) == tag)
			nv = n < NFS_CHG_MAX ? old + 1 : old;
		else if ((old >> 44) == (tag >> 44) || !old)
			nv = tag | 1u; /* the file's first change at this ctime */
		else
			/* another file had the slot: go on from its count, so that this file, if it
			 * had the slot before at this ctime, never shows a count it showed then */
			nv = tag | (n < NFS_CHG_MAX ? n + 1 : n);
		if (nv == old)
			return;
	} while (!atomic_compare_exchange_weak_explicit(e, &old, nv, memory_order_relaxed,
							memory_order_relaxed));
}

uint32_t nfs_change_count(const struct nfs_fs *fs, const struct stat *st)
{
	uint64_t v = atomic_load_explicit(&((struct nfs_fs *)fs)->chg[chg_slot(st)],
					  memory_order_relaxed);

	return (v & ~(uint64_t)NFS_CHG_MAX) == chg_tag(st) ? (uint32_t)(v & NFS_CHG_MAX) : 0;
}

/* st's ctime with droce's changes at it added in nanoseconds (the change attribute's base) */
static struct nfs_time change_ctime(const struct nfs_fs *fs, const struct stat *st)
{
	struct nfs_time t = ntime(&st->st_ctim);
	uint32_t n = fs ? nfs_change_count(fs, st) : 0;

	t.nsec += n;
	if (t.nsec >= 1000000000u) {
		t.nsec -= 1000000000u;
		t.sec++;
	}
	return t;
}

void nfs_attr_from_stat(const struct nfs_obj *o, const struct stat *st, struct nfs_attr *a)
{
	a->type = ftype_of(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512u;
	a->rdev_major = major(st->st_rdev);
	a->rdev_minor = minor(st->st_rdev);
	/* a submount (crossmnt) is another file system to the client */
	a->fsid = st->st_dev == o->rt->dev ? o->exp->fsid : (uint64_t)st->st_dev;
	a->fileid = st->st_ino;
	a->atime = ntime(&st->st_atim);
	a->mtime = ntime(&st->st_mtim);
	a->ctime = change_ctime(o->fs, st);
}

enum nfs_stat nfs_obj_check_name(const char *name, uint32_t namelen, char *out)
{
	if (namelen > NFS_NAME_MAX)
		return NFS_ERR_NAMETOOLONG;
	/* as the kernel's lookup_one_len(): empty, '/' or NUL in a name is EACCES */
	if (!name || namelen == 0 || memchr(name, '/', namelen) || memchr(name, 0, namelen))
		return NFS_ERR_ACCES;
	memcpy(out, name, namelen);
	out[namelen] = 0;
	return NFS_OK;
}

enum nfs_stat nfs_obj_writable(struct nfs_ctx *ctx, const struct nfs_obj *o)
{
	if (o->client->opts.rw)
		return NFS_OK;
	atomic_fetch_add(&ctx->fs->n_rofs, 1);
	return NFS_ERR_ROFS;
}

void nfs_wcc_pre(const struct nfs_obj *o, struct nfs_wcc *w)
{
	if (!w)
		return;
	memset(w, 0, sizeof(*w));
	w->pre_valid = true;
	w->pre_size = (uint64_t)o->st.st_size;
	w->pre_mtime = ntime(&o->st.st_mtim);
	w->pre_ctime = change_ctime(o->fs, &o->st);
}

void nfs_wcc_end(const struct nfs_obj *o, struct nfs_wcc *w, bool changed)
{
	struct stat st;
	bool ok;

	if (!w && !changed)
		return;
	ok = fstat(o->fd, &st) == 0;
	if (ok && changed)
		nfs_change_note(o->fs, &st); /* droce changed it: count the change at this ctime */
	if (!w)
		return;
	w->post_valid = ok;
	if (ok)
		nfs_attr_from_stat(o, &st, &w->post);
}

void nfs_wcc_post(const struct nfs_obj *o, struct nfs_wcc *w)
{
	nfs_wcc_end(o, w, false);
}

void nfs_change_note_fd(struct nfs_fs *fs, int fd)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0)
		nfs_change_note(fs, &st);
}

/* post-operation attributes of o */
static void post_attr(const struct nfs_obj *o, bool *valid, struct nfs_attr *a)
{
	struct stat st;
	bool ok = o->fd >= 0 && fstat(o->fd, &st) == 0;

	if (ok && a)
		nfs_attr_from_stat(o, &st, a);
	if (valid)
		*valid = ok && a;
}

void nfs_fd_path(int fd, char buf[32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

int nfs_obj_reopen(const struct nfs_obj *o, int fd, const struct stat *st, int flags)
{
	char p[32];
	int r;

	nfs_fd_path(fd, p);
	/* the kernel checks the caller's permission on the inode when the magic link opens */
	r = open(p, flags | O_CLOEXEC | O_NOCTTY);
	if (r >= 0 || errno != EACCES || !S_ISREG(st->st_mode) || st->st_uid != o->cred.uid)
		return r >= 0 ? r : -errno;
	/* knfsd's owner override (NFSD_MAY_OWNER_OVERRIDE): the owner may read and write its own
	 * file whatever its mode, as a local process that opened it before a chmod could */
	r = nfs_cred_root() == 0 ? open(p, flags | O_CLOEXEC | O_NOCTTY) : -1;
	if (r < 0)
		r = -errno;
	if (nfs_cred_enter(&o->cred) != 0) {
		if (r >= 0)
			close(r);
		return -EPERM;
	}
	return r;
}

static struct timespec set_time(enum nfs_time_how how, const struct nfs_time *t)
{
	if (how == NFS_TIME_SERVER)
		return (struct timespec){.tv_nsec = UTIME_NOW};
	if (how == NFS_TIME_CLIENT)
		return (struct timespec){.tv_sec = t->sec, .tv_nsec = t->nsec % 1000000000u};
	return (struct timespec){.tv_nsec = UTIME_OMIT};
}

enum nfs_stat nfs_sattr_apply(const struct nfs_obj *o, int fd, const struct stat *st,
			      const struct nfs_sattr *sa)
{
	char p[32];

	nfs_fd_path(fd, p);
	if (sa->set_size) {
		int w;

		if (S_ISDIR(st->st_mode))
			return NFS_ERR_ISDIR;
		if (!S_ISREG(st->st_mode))
			return NFS_ERR_INVAL;
		w = nfs_obj_reopen(o, fd, st, O_WRONLY);
		if (w < 0)
			return nfs_stat_from_errno(w);
		if (ftruncate(w, (off_t)sa->size) != 0) {
			int e = errno;

			close(w);
			return nfs_stat_from_errno(e == EINVAL ? EFBIG : e);
		}
		close(w);
	}
	if ((sa->set_uid && sa->uid != st->st_uid) || (sa->set_gid && sa->gid != st->st_gid)) {
		if (fchownat(fd, "", sa->set_uid ? sa->uid : (uid_t)-1,
			     sa->set_gid ? sa->gid : (gid_t)-1, AT_EMPTY_PATH) != 0)
			return nfs_stat_from_errno(errno);
	}
	/* Linux has no modes on symlinks: ignored there, as knfsd does */
	if (sa->set_mode && !S_ISLNK(st->st_mode) && chmod(p, sa->mode & 07777) != 0)
		return nfs_stat_from_errno(errno);
	if (sa->atime_how != NFS_TIME_DONT || sa->mtime_how != NFS_TIME_DONT) {
		struct timespec ts[2] = {set_time(sa->atime_how, &sa->atime),
					 set_time(sa->mtime_how, &sa->mtime)};

		if (utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
			return nfs_stat_from_errno(errno);
	}
	return NFS_OK;
}

/* ---- MOUNT ---- */

enum nfs_stat nfs_fs_mount(struct nfs_ctx *ctx, const char *path, struct nfs_fh *fh)
{
	struct nfs_export_tab *t = tab_now(ctx->fs);
	const char *rest = NULL;
	struct nfs_obj o;
	enum nfs_stat s;
	size_t best = 0;
	uint32_t bi = 0;

	for (uint32_t i = 0; i < t->n; i++) {
		const char *ep = t->exports[i].path;
		size_t n = strlen(ep);

		if (n == 1 && path[0] == '/')
			n = 0; /* "/" is a prefix of everything */
		if (strncmp(path, ep, n) != 0 || (path[n] != 0 && path[n] != '/'))
			continue;
		if (!rest || n > best) {
			best = n;
			bi = i;
			rest = path + n;
		}
	}
	if (!rest)
		return NFS_ERR_NOENT;
	s = admit(ctx, t, bi, &o);
	if (s != NFS_OK)
		return s == NFS_ERR_PERM ? NFS_ERR_ACCES : s;
	while (*rest == '/')
		rest++;
	if (nfs_cred_root() != 0)
		return NFS_ERR_SERVERFAULT;
	if (!*rest) {
		s = nfs_obj_root(&o, &o);
	} else {
		/* a directory below the export's root: no "..", no symlink, no other mount */
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				   (o.xview ? 0 : RESOLVE_NO_XDEV),
		};
		o.fd = (int)syscall(SYS_openat2, o.xview ? o.rt->xmnt_fd : o.rt->mnt_fd, rest, &how,
				    sizeof(how));
		if (o.fd < 0)
			return errno == ELOOP || errno == EXDEV ? NFS_ERR_ACCES
								: nfs_stat_from_errno(errno);
		s = fstat(o.fd, &o.st) == 0 ? NFS_OK : nfs_stat_from_errno(errno);
	}
	if (s == NFS_OK)
		s = nfs_obj_fh(&o, o.fd, &o.st, fh);
	nfs_obj_put(&o);
	return s;
}

/* ---- one object ---- */

enum nfs_stat nfs_fs_getattr(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s = nfs_obj_get(ctx, fh, &o);

	if (s != NFS_OK)
		return s;
	nfs_attr_from_stat(&o, &o.st, attr);
	nfs_obj_put(&o);
	return NFS_OK;
}

enum nfs_stat nfs_fs_fh_export(struct nfs_ctx *ctx, const struct nfs_fh *fh, char *path, size_t cap,
			       bool *is_root, struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s = nfs_obj_get(ctx, fh, &o);

	if (s != NFS_OK)
		return s;
	if (path)
		snprintf(path, cap, "%s", o.exp->path);
	if (is_root)
		*is_root = nfs_obj_is_root(&o, &o.st);
	if (attr)
		nfs_attr_from_stat(&o, &o.st, attr);
	nfs_obj_put(&o);
	return NFS_OK;
}

enum nfs_stat nfs_fs_file_key(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint8_t key[16])
{
	struct nfs_obj o;
	enum nfs_stat s = nfs_obj_get(ctx, fh, &o);
	uint64_t dev, ino;

	if (s != NFS_OK)
		return s;
	dev = (uint64_t)o.st.st_dev;
	ino = (uint64_t)o.st.st_ino;
	memcpy(key, &dev, 8);
	memcpy(key + 8, &ino, 8);
	nfs_obj_put(&o);
	return NFS_OK;
}

const char *nfs_fs_state_dir(const struct nfs_fs *fs)
{
	return fs->state.dir;
}

/* the ctime the client saw (change_ctime) against its guard */
static bool ctime_eq(const struct nfs_obj *o, const struct nfs_time *n)
{
	struct nfs_time t = change_ctime(o->fs, &o->st);

	return t.sec == n->sec && t.nsec == n->nsec;
}

enum nfs_stat nfs_fs_setattr(struct nfs_ctx *ctx, const struct nfs_fh *fh,
			     const struct nfs_sattr *sa, const struct nfs_time *guard_ctime,
			     struct nfs_wcc *wcc)
{
	struct nfs_obj o;
	enum nfs_stat s = nfs_obj_get(ctx, fh, &o);

	if (wcc)
		memset(wcc, 0, sizeof(*wcc));
	if (s != NFS_OK)
		return s;
	nfs_wcc_pre(&o, wcc);
	s = nfs_obj_writable(ctx, &o);
	if (s == NFS_OK && guard_ctime && !ctime_eq(&o, guard_ctime))
		s = NFS_ERR_NOT_SYNC;
	if (s == NFS_OK) {
		if (nfs_cred_enter(&o.cred) != 0) {
			s = NFS_ERR_SERVERFAULT;
		} else {
			s = nfs_sattr_apply(&o, o.fd, &o.st, sa);
			nfs_cred_leave();
		}
	}
	nfs_wcc_end(&o, wcc, s == NFS_OK);
	nfs_obj_put(&o);
	return s;
}

/* Give fd (O_PATH, of st, reached from o's directory in the same mount view) to the cache
 * under its handle fh. @return true when the cache took it (fd is no longer the caller's) */
static bool cache_fd(const struct nfs_obj *o, const struct nfs_fh *fh, int fd,
		     const struct stat *st)
{
	uint8_t key[NFS_FDC_KEY_MAX];
	struct nfs_fdc_ent *e;

	key[0] = o->xview;
	memcpy(key + 1, fh->data, fh->len);
	e = nfs_fdcache_add(o->fs->fdc, key, 1 + fh->len, o->exp->id, fd, st);
	if (!e)
		return false;
	nfs_fdcache_put(o->fs->fdc, e);
	return true;
}

enum nfs_stat nfs_fs_lookup(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, struct nfs_fh *fh, struct nfs_attr *obj_attr,
			    bool *dir_valid, struct nfs_attr *dir_attr)
{
	char n[NFS_NAME_MAX + 1];
	struct nfs_obj o;
	struct stat st;
	enum nfs_stat s;
	int fd = -1;

	if (dir_valid)
		*dir_valid = false;
	s = nfs_obj_get(ctx, dir, &o);
	if (s != NFS_OK)
		return s;
	if (dir_attr) {
		nfs_attr_from_stat(&o, &o.st, dir_attr);
		if (dir_valid)
			*dir_valid = true;
	}
	if (!S_ISDIR(o.st.st_mode)) {
		s = NFS_ERR_NOTDIR;
		goto out;
	}
	s = nfs_obj_check_name(name, namelen, n);
	if (s != NFS_OK)
		goto out;
	if (nfs_cred_enter(&o.cred) != 0) {
		s = NFS_ERR_SERVERFAULT;
		goto out;
	}
	if (strcmp(n, "..") == 0 && nfs_obj_is_root(&o, &o.st))
		fd = openat(o.fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC); /* the root's ".." */
	else
		fd = openat(o.fd, n, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		s = nfs_stat_from_errno(errno);
	else if (faccessat(o.fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) != 0)
		s = nfs_stat_from_errno(errno); /* "." and ".." need search permission too */
	nfs_cred_leave();
	if (s != NFS_OK)
		goto out;
	if (fstat(fd, &st) != 0) {
		s = nfs_stat_from_errno(errno);
		goto out;
	}
	if (st.st_dev != o.st.st_dev && !o.xview && !o.rt->cloned) {
		/* a mount point seen without a private clone: do not step into it */
		s = NFS_ERR_ACCES;
		goto out;
	}
	s = nfs_obj_fh(&o, fd, &st, fh);
	if (s == NFS_OK && obj_attr)
		nfs_attr_from_stat(&o, &st, obj_attr);
	/* the client's next call is most often on what it looked up: keep the descriptor */
	if (s == NFS_OK && st.st_dev == o.st.st_dev && cache_fd(&o, fh, fd, &st))
		fd = -1;
out:
	if (fd >= 0)
		close(fd);
	/* a lookup changes nothing in the directory: the attributes from this call's fstat are
	 * its post-operation attributes (filled above) */
	nfs_obj_put(&o);
	return s;
}

/* ACCESS3 bits (RFC 1813 §3.3.4) */
#define ACCESS3_READ 0x01u
#define ACCESS3_LOOKUP 0x02u
#define ACCESS3_MODIFY 0x04u
#define ACCESS3_EXTEND 0x08u
#define ACCESS3_DELETE 0x10u
#define ACCESS3_EXECUTE 0x20u
#define ACCESS3_CHANGES (ACCESS3_MODIFY | ACCESS3_EXTEND | ACCESS3_DELETE)

/* What each ACCESS3 bit needs from the kernel, as knfsd's nfs3_diraccess/nfs3_regaccess. */
struct access_row {
	uint32_t bit;
	int dir_mode;	 /**< access(2) bits on a directory, 0: not asked of directories */
	int other_mode;	 /**< on anything else */
	bool owner_over; /**< the owner of a regular file always has it (owner override) */
};

static const struct access_row access_table[] = {
	{ACCESS3_READ, R_OK, R_OK, true},	   {ACCESS3_LOOKUP, X_OK, 0, false},
	{ACCESS3_MODIFY, W_OK | X_OK, W_OK, true}, {ACCESS3_EXTEND, W_OK | X_OK, W_OK, true},
	{ACCESS3_DELETE, W_OK | X_OK, 0, false},   {ACCESS3_EXECUTE, 0, X_OK, false},
};

enum nfs_stat nfs_fs_access(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint32_t want,
			    uint32_t *granted, bool *attr_valid, struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s;
	bool dir, owner;

	*granted = 0;
	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	dir = S_ISDIR(o.st.st_mode);
	owner = S_ISREG(o.st.st_mode) && o.st.st_uid == o.cred.uid;
	if (nfs_cred_enter(&o.cred) != 0) {
		nfs_obj_put(&o);
		return NFS_ERR_SERVERFAULT;
	}
	for (size_t i = 0; i < sizeof(access_table) / sizeof(access_table[0]); i++) {
		const struct access_row *r = &access_table[i];
		int m = dir ? r->dir_mode : r->other_mode;

		if (!(want & r->bit) || m == 0)
			continue;
		if ((r->owner_over && owner) ||
		    faccessat(o.fd, "", m, AT_EACCESS | AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
			*granted |= r->bit;
	}
	nfs_cred_leave();
	if (!o.client->opts.rw)
		*granted &= ~ACCESS3_CHANGES;
	/* access checks change nothing: this call's fstat gives the post-operation attributes */
	if (attr) {
		nfs_attr_from_stat(&o, &o.st, attr);
		if (attr_valid)
			*attr_valid = true;
	}
	nfs_obj_put(&o);
	return NFS_OK;
}

enum nfs_stat nfs_fs_readlink(struct nfs_ctx *ctx, const struct nfs_fh *fh, char *buf, uint32_t cap,
			      uint32_t *len, bool *attr_valid, struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s;
	ssize_t n;

	*len = 0;
	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	if (!S_ISLNK(o.st.st_mode)) {
		s = NFS_ERR_INVAL;
	} else {
		n = readlinkat(o.fd, "", buf, cap);
		if (n < 0)
			s = nfs_stat_from_errno(errno);
		else if ((size_t)n >= cap && (uint64_t)o.st.st_size >= cap)
			s = NFS_ERR_NAMETOOLONG; /* the target does not fit the caller's buffer */
		else
			*len = (uint32_t)n;
	}
	post_attr(&o, attr_valid, attr);
	nfs_obj_put(&o);
	return s;
}

/* ---- the file system ---- */

enum nfs_stat nfs_fs_fsstat(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_fsstat *st,
			    bool *attr_valid, struct nfs_attr *attr)
{
	struct statvfs v;
	struct nfs_obj o;
	enum nfs_stat s;

	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	if (fstatvfs(o.fd, &v) != 0) {
		s = nfs_stat_from_errno(errno);
	} else {
		st->tbytes = (uint64_t)v.f_blocks * v.f_frsize;
		st->fbytes = (uint64_t)v.f_bfree * v.f_frsize;
		st->abytes = (uint64_t)v.f_bavail * v.f_frsize;
		st->tfiles = v.f_files;
		st->ffiles = v.f_ffree;
		st->afiles = v.f_favail;
		st->invarsec = 0; /* the file system may change at any time */
	}
	post_attr(&o, attr_valid, attr);
	nfs_obj_put(&o);
	return s;
}

#define FSF3_LINK 0x1u
#define FSF3_SYMLINK 0x2u
#define FSF3_HOMOGENEOUS 0x8u
#define FSF3_CANSETTIME 0x10u
#define DTPREF 65536u

enum nfs_stat nfs_fs_fsinfo(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint32_t max_io,
			    struct nfs_fsinfo *fi, bool *attr_valid, struct nfs_attr *attr)
{
	struct nfs_obj o;
	enum nfs_stat s;
	long bits;

	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	memset(fi, 0, sizeof(*fi));
	fi->rtmax = fi->rtpref = fi->wtmax = fi->wtpref = max_io;
	fi->rtmult = fi->wtmult = 4096;
	fi->dtpref = max_io && max_io < DTPREF ? max_io : DTPREF;
	bits = fpathconf(o.fd, _PC_FILESIZEBITS);
	fi->maxfilesize = bits > 0 && bits < 64 ? (1ull << bits) - 1 : (uint64_t)INT64_MAX;
	fi->time_delta = (struct nfs_time){.sec = 0, .nsec = 1};
	fi->properties = FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME;
	post_attr(&o, attr_valid, attr);
	nfs_obj_put(&o);
	return NFS_OK;
}

enum nfs_stat nfs_fs_pathconf(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_pathconf *pc,
			      bool *attr_valid, struct nfs_attr *attr)
{
	struct nfs_obj o;
	struct statfs sf;
	enum nfs_stat s;
	long lm;

	if (attr_valid)
		*attr_valid = false;
	s = nfs_obj_get(ctx, fh, &o);
	if (s != NFS_OK)
		return s;
	memset(pc, 0, sizeof(*pc));
	lm = fpathconf(o.fd, _PC_LINK_MAX);
	pc->linkmax = lm > 0 && lm < (long)UINT32_MAX ? (uint32_t)lm : UINT32_MAX;
	pc->name_max =
		fstatfs(o.fd, &sf) == 0 && sf.f_namelen > 0 ? (uint32_t)sf.f_namelen : NFS_NAME_MAX;
	if (pc->name_max > NFS_NAME_MAX)
		pc->name_max = NFS_NAME_MAX;
	pc->no_trunc = true;
	pc->chown_restricted = true;
	pc->case_insensitive = false;
	pc->case_preserving = true;
	post_attr(&o, attr_valid, attr);
	nfs_obj_put(&o);
	return NFS_OK;
}
