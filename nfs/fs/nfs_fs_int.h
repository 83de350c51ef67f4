/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_int.h - what the backend's files share and nfs_fs.h does not show: the backend
 * object, one export's run-time state, a resolved handle (struct nfs_obj), and the helpers of
 * each concept file (nfs_export.c, nfs_siphash.c, nfs_state.c, nfs_fh.c, nfs_cred.c). Unit
 * tests include it to reach those helpers.
 */
#ifndef NFS_FS_INT_H
#define NFS_FS_INT_H

#include <stdatomic.h>
#include <sys/stat.h>

#include "nfs_fs.h"

/* ---- exports (nfs_export.c) ---- */

/**
 * Resolve the host names of parsed exports (getaddrinfo) into each client's addrs.
 * @return 0, or -EHOSTUNREACH with err naming the host that does not resolve
 */
int nfs_exports_resolve(struct nfs_export *exp, uint32_t n, char *err, size_t errlen);

/** The first client entry of exp (in file order, as exportfs) that peer matches, or NULL. */
const struct nfs_export_client *nfs_export_match(const struct nfs_export *exp,
						 const struct sockaddr_storage *peer);

/**
 * The credential the operations run as: AUTH_NONE and all_squash map to anonuid/anongid with
 * no groups; root_squash maps uid 0, gid 0 and group 0 to anonuid/anongid (as knfsd's
 * nfsd_setuser). @return true when anything changed.
 */
bool nfs_export_squash(const struct nfs_export_opts *o, const struct nfs_cred *in,
		       struct nfs_cred *out);

/** The default options of a client entry (exports(5)). */
void nfs_export_opts_default(struct nfs_export_opts *o);

/* ---- SipHash-2-4 (nfs_siphash.c) ---- */

/** SipHash-2-4 (Aumasson, Bernstein 2012) of msg under the 128-bit key. */
uint64_t nfs_siphash24(const uint8_t key[16], const void *msg, size_t len);

/* ---- the state directory (nfs_state.c) ---- */

struct nfs_state {
	uint8_t key[16]; /**< the handle MAC key, statedir/fh.key */
	uint32_t boot;	 /**< statedir/boot.count after this open's increment */
	char dir[NFS_PATH_MAX];
};

/** Create statedir (0700) if missing; load or create fh.key (0600, getrandom); bump the
 * boot counter. @return 0 or -errno (with err) */
int nfs_state_open(struct nfs_state *st, const char *statedir, char *err, size_t errlen);

/** The stable id of each export path (statedir/exports.ids: "id path" lines, never removed,
 * new paths get the largest id ever given + 1). Fills exp[i].id. @return 0 or -errno */
int nfs_state_export_ids(struct nfs_state *st, struct nfs_export *exp, uint32_t n, char *err,
			 size_t errlen);

/* ---- sealed handles (nfs_fh.c) ---- */

#define NFS_FH_VERSION 1u
#define NFS_KFH_MAX 40u /**< kernel handle bytes that fit: 64 - 16 header - 8 MAC */

/** A handle's contents once its MAC verified. */
struct nfs_fh_parts {
	uint32_t export_id;
	uint32_t dev; /**< the object's st_dev (new_encode_dev form): which file system */
	int32_t handle_type;
	uint32_t klen;
	uint8_t kfh[NFS_KFH_MAX];
};

/** Seal parts into fh. @return 0, or -EOVERFLOW when the kernel handle does not fit */
int nfs_fh_seal(const uint8_t key[16], const struct nfs_fh_parts *p, struct nfs_fh *fh);

/** Check fh's length, version and MAC. @return 0, or -EBADMSG when it does not verify */
int nfs_fh_unseal(const uint8_t key[16], const struct nfs_fh *fh, struct nfs_fh_parts *p);

uint32_t nfs_fh_dev_encode(dev_t d);

/* ---- credentials (nfs_cred.c) ---- */

/** Switch the calling thread's fs uid, fs gid and groups to c (raw syscalls: this thread
 * only), making only the calls whose id differs from what the thread holds.
 * @return 0 or -EPERM (then the thread is back to root) */
int nfs_cred_enter(const struct nfs_cred *c);
/** The end of a caller's part: back to root now, or, on a thread that called
 * nfs_cred_lazy(true), keep the caller's identity until something needs root. */
void nfs_cred_leave(void);
/** Back to root now (fs uid, fs gid, the groups from before the thread's first switch): call
 * before anything privileged (open_by_handle_at, opening as root). @return 0 or -EPERM */
int nfs_cred_root(void);
/** Let this thread keep the last caller's identity between operations (the helper threads,
 * which do nothing else). false: back to root now and at every leave. */
void nfs_cred_lazy(bool on);
/** Whether the thread holds its own (root) identity now. */
bool nfs_cred_is_root(void);

/* ---- the descriptor cache (nfs_fdcache.c) ---- */

#define NFS_FDCACHE_MAX 4096u /**< entries, at most; fewer when RLIMIT_NOFILE is low */
#define NFS_FDC_KEY_MAX (1u + NFS_FH_MAX)
#define NFS_FDCACHE_IDLE_NS 5000000000ull /**< an entry unused this long is closed */

/** One cached object: its O_PATH descriptor from open_by_handle_at and the descriptors its
 * reads and writes use, opened on first need. Held (refs) by each nfs_obj using it. */
struct nfs_fdc_ent {
	uint8_t key[NFS_FDC_KEY_MAX]; /**< the mount view (xview), then the handle's bytes */
	uint32_t klen;
	uint32_t hash;
	uint32_t export_id;
	dev_t dev;
	ino_t ino;
	int pfd;	      /**< O_PATH, from open_by_handle_at */
	_Atomic int rfd, wfd; /**< O_RDONLY, O_WRONLY; -1 until a READ or WRITE needs them */
	/** (st_mode << 32) | st_uid from the last fstat of it (nfs_fdc_seen), for the READs that
	 * check after (nfs_obj_get_lazy) */
	_Atomic uint64_t seen;
	uint32_t refs;		 /**< nfs_obj holding it; closed only at 0 */
	uint64_t last_ns;	 /**< CLOCK_MONOTONIC_COARSE at its last release */
	int32_t next;		 /**< hash chain, -1: end; the free list when not used */
	bool used, dead, recent; /**< in a slot; out of the table, closed at refs 0; clock bit */
};

struct nfs_fdcache;

/** A cache of at most cap entries. @return it, or NULL (ENOMEM) */
struct nfs_fdcache *nfs_fdcache_create(uint32_t cap);
/** Close every descriptor and free it (no entry may be held). */
void nfs_fdcache_destroy(struct nfs_fdcache *c);
/** The entry of key, held, or NULL. */
struct nfs_fdc_ent *nfs_fdcache_get(struct nfs_fdcache *c, const uint8_t *key, uint32_t klen);
/**
 * Add key's O_PATH descriptor pfd (of st, in export export_id). On success the cache owns pfd
 * and the entry comes back held; when another thread added key first, pfd is closed and that
 * entry comes back held. NULL when every slot is held: the caller still owns pfd.
 */
struct nfs_fdc_ent *nfs_fdcache_add(struct nfs_fdcache *c, const uint8_t *key, uint32_t klen,
				    uint32_t export_id, int pfd, const struct stat *st);
/** What an fstat of e's file found: its type and owner, for nfs_obj_get_lazy. */
static inline void nfs_fdc_seen(struct nfs_fdc_ent *e, const struct stat *st)
{
	atomic_store_explicit(&e->seen, (uint64_t)st->st_mode << 32 | (uint32_t)st->st_uid,
			      memory_order_relaxed);
}
/** Release a hold; a dead entry's descriptors close with its last hold. */
void nfs_fdcache_put(struct nfs_fdcache *c, struct nfs_fdc_ent *e);
/** Take e out of the table (a STALE object): no new hits, closed at its last hold. */
void nfs_fdcache_evict(struct nfs_fdcache *c, struct nfs_fdc_ent *e);
/** Set e's O_RDONLY (flags O_RDONLY) or O_WRONLY descriptor to fd unless another thread did
 * first (then fd is closed). @return the descriptor e now has */
int nfs_fdcache_set_io(struct nfs_fdc_ent *e, int flags, int fd);
/** Evict every entry of inode (dev, ino): after the server removed its last name. */
void nfs_fdcache_forget_inode(struct nfs_fdcache *c, dev_t dev, ino_t ino);
/** Evict every entry of the export: call when an export is removed or changed (reload). */
void nfs_fdcache_flush_export(struct nfs_fs *fs, uint32_t export_id);
/** Close the entries no operation holds that were not used for idle_ns (lookups do this by
 * themselves once a second with NFS_FDCACHE_IDLE_NS). @return how many */
uint32_t nfs_fdcache_sweep(struct nfs_fdcache *c, uint64_t idle_ns);
/** Entries in the table now (for tests). */
uint32_t nfs_fdcache_count(struct nfs_fdcache *c);

/* ---- the backend object ---- */

#define NFS_SUBMOUNTS_MAX 16u

/** One export's run-time state. */
struct nfs_export_rt {
	int mnt_fd;  /**< O_RDONLY root in a clone of the mount without submounts (no crossmnt) */
	int xmnt_fd; /**< O_RDONLY root in the mount tree (crossmnt/nohide clients) */
	bool cloned; /**< mnt_fd is a private clone (open_tree); else the same tree as xmnt_fd */
	dev_t dev;
	ino_t ino;
};

struct nfs_submount {
	uint32_t dev;
	uint32_t export_id;
	int fd; /**< O_RDONLY root of the mounted file system, for open_by_handle_at */
};

#define NFS_GONE_MAX 256u

/**
 * The exports in force: built whole (nfs_fs_open, nfs_fs_reload_prepare) and swapped whole
 * (nfs_fs_reload_commit). An operation loads the table once and uses that one to its end; a
 * table swapped out is freed by nfs_fs_reclaim once no operation can still hold it.
 */
struct nfs_export_tab {
	uint32_t n;
	struct nfs_export exports[NFS_EXPORT_MAX];
	struct nfs_export_rt rt[NFS_EXPORT_MAX];
	/* ids of exports a reload removed during this run: their handles answer ACCES (the
	 * client lost access; the files are still there), where an id never seen is STALE */
	uint32_t ngone;
	uint32_t gone[NFS_GONE_MAX];
	struct nfs_export_tab *retired_next;
};

/*
 * The change attribute: a file's ctime, and a counter of droce's own changes within one tick of
 * it. The kernel's ctime moves at its clock's tick (a jiffy, 1-4 ms on a coarse clock), so two
 * WRITEs inside a tick leave ctime, and a client's cached change attribute (NFSv4 change, the
 * Linux v3 client's ctime), as it was. After every change droce makes (nfs_wcc_end with changed,
 * or nfs_change_note_fd for a file that is not the operation's object: LINK's and RENAME's) the
 * file's
 * slot counts it; every attribute droce reports (nfs_attr_from_stat, wcc) adds that count in
 * nanoseconds to the ctime while the kernel's ctime has not moved: it stays below the next tick,
 * and the count starts at 1, so a change is seen even by a client that read the ctime before.
 */
#define NFS_CHG_SLOTS 65536u
#define NFS_CHG_MAX 4095u /**< a count stops there (a tick of 4 ms is 4,000,000 ns) */

struct nfs_fs {
	_Atomic(struct nfs_export_tab *) tab;
	struct nfs_export_tab *retired; /**< swapped out, not yet freed (nfs_fs_reclaim) */
	struct nfs_state state;
	_Atomic uint64_t verf_gen; /**< bumped after a write-back error */
	uint64_t boot_ns;
	_Atomic uint64_t n_badhandle, n_stale, n_acces_client, n_rofs, n_squashed;
	/* submounts below crossmnt exports, found on demand (/proc/self/mountinfo) */
	_Atomic uint32_t nsub;
	struct nfs_submount sub[NFS_SUBMOUNTS_MAX];
	int sub_lock;		 /**< a spinning flag: submounts are rare */
	struct nfs_fdcache *fdc; /**< open descriptors by handle, shared by the helper threads */
	/** The change counter (nfs_change_note): per slot, a file's tag (inode, ctime) and the
	 * changes droce made to it at that ctime; one atomic word each, shared lock-free */
	_Atomic uint64_t chg[NFS_CHG_SLOTS];
};

/** A handle resolved for one request: open (O_PATH), inside its export, caller matched. */
struct nfs_obj {
	struct nfs_fs *fs;
	const struct nfs_export *exp;
	struct nfs_export_rt *rt;
	const struct nfs_export_client *client;
	struct nfs_cred cred;	 /**< squashed */
	bool xview;		 /**< the caller crosses mounts (crossmnt/nohide) */
	struct nfs_fdc_ent *ent; /**< the cache entry held, or NULL: then fd is the object's own */
	int fd;
	struct stat st;
};

/* nfs_fs.c: the shared steps of every operation */
enum nfs_stat nfs_obj_get(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o);

/** A WRITE's data did not go in (err: a positive errno): a new write verifier, unless err is
 * EAGAIN or ESTALE (knfsd's rule), so clients resend what they wrote UNSTABLE. */
void nfs_fs_write_failed(struct nfs_fs *fs, int err);
void nfs_obj_put(struct nfs_obj *o);
/** nfs_obj_get for the lcore: only a regular file with links whose descriptor is in the cache
 * (no open_by_handle_at, no walk: one fstat), else NFS_ERR_JUKEBOX with nothing held; any
 * other error is the handle's, as nfs_obj_get answers it. */
enum nfs_stat nfs_obj_get_cached(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o);
/** nfs_obj_get_cached without its fstat when the cache has seen the file: o->st then holds
 * only the type, owner, device and inode last seen, and st_nlink 1. The caller checks the file
 * after its operation (an fstat it makes anyway: nfs_aio's READ) and takes the synchronous
 * path, or answers STALE, when the check fails. */
enum nfs_stat nfs_obj_get_lazy(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o);
/** The export's root as an object for the same caller as o. */
enum nfs_stat nfs_obj_root(const struct nfs_obj *o, struct nfs_obj *root);
/** A handle for the object open at fd (O_PATH) in o's export. */
enum nfs_stat nfs_obj_fh(const struct nfs_obj *o, int fd, const struct stat *st, struct nfs_fh *fh);
void nfs_attr_from_stat(const struct nfs_obj *o, const struct stat *st, struct nfs_attr *a);
/** droce changed the file st describes (st: its stat after the change): count it. */
void nfs_change_note(struct nfs_fs *fs, const struct stat *st);
/** The changes counted at st's ctime (0 when none, or the ctime has moved since). */
uint32_t nfs_change_count(const struct nfs_fs *fs, const struct stat *st);
bool nfs_obj_is_root(const struct nfs_obj *o, const struct stat *st);
enum nfs_stat nfs_obj_check_name(const char *name, uint32_t namelen, char *out);
enum nfs_stat nfs_obj_writable(struct nfs_ctx *ctx, const struct nfs_obj *o);
void nfs_wcc_pre(const struct nfs_obj *o, struct nfs_wcc *w);
/** After an operation on o: its post-operation attributes into w (when not NULL), and when the
 * operation changed o (it succeeded and modified it), the change counted (nfs_change_note)
 * first, so the attributes include it. */
void nfs_wcc_end(const struct nfs_obj *o, struct nfs_wcc *w, bool changed);
/** nfs_wcc_end with nothing changed (COMMIT, a failure). */
void nfs_wcc_post(const struct nfs_obj *o, struct nfs_wcc *w);
/** droce changed the file open at fd: count it (nfs_change_note over its fstat). */
void nfs_change_note_fd(struct nfs_fs *fs, int fd);
/** Reopen the object at fd (O_PATH, stat st) for I/O as o's caller (flags O_RDONLY/O_WRONLY/
 * O_RDWR), with knfsd's owner override. Call with the caller's credential entered.
 * @return fd or -errno */
int nfs_obj_reopen(const struct nfs_obj *o, int fd, const struct stat *st, int flags);
/** "/proc/self/fd/N" */
void nfs_fd_path(int fd, char buf[32]);
/** Apply sattr to the object at fd (O_PATH) as the caller. */
enum nfs_stat nfs_sattr_apply(const struct nfs_obj *o, int fd, const struct stat *st,
			      const struct nfs_sattr *sa);

#endif /* NFS_FS_INT_H */
