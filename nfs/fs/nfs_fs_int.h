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
 * only). @return 0 or -EPERM (then the thread is back to root) */
int nfs_cred_enter(const struct nfs_cred *c);
/** Back to root (fs uid 0, fs gid 0, the thread's groups from before the first enter). */
void nfs_cred_leave(void);

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
	int sub_lock; /**< a spinning flag: submounts are rare */
};

/** A handle resolved for one request: open (O_PATH), inside its export, caller matched. */
struct nfs_obj {
	struct nfs_fs *fs;
	const struct nfs_export *exp;
	struct nfs_export_rt *rt;
	const struct nfs_export_client *client;
	struct nfs_cred cred; /**< squashed */
	bool xview;	      /**< the caller crosses mounts (crossmnt/nohide) */
	int fd;
	struct stat st;
};

/* nfs_fs.c: the shared steps of every operation */
enum nfs_stat nfs_obj_get(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_obj *o);
void nfs_obj_put(struct nfs_obj *o);
/** The export's root as an object for the same caller as o. */
enum nfs_stat nfs_obj_root(const struct nfs_obj *o, struct nfs_obj *root);
/** A handle for the object open at fd (O_PATH) in o's export. */
enum nfs_stat nfs_obj_fh(const struct nfs_obj *o, int fd, const struct stat *st, struct nfs_fh *fh);
void nfs_attr_from_stat(const struct nfs_obj *o, const struct stat *st, struct nfs_attr *a);
bool nfs_obj_is_root(const struct nfs_obj *o, const struct stat *st);
enum nfs_stat nfs_obj_check_name(const char *name, uint32_t namelen, char *out);
enum nfs_stat nfs_obj_writable(struct nfs_ctx *ctx, const struct nfs_obj *o);
void nfs_wcc_pre(const struct nfs_obj *o, struct nfs_wcc *w);
void nfs_wcc_post(const struct nfs_obj *o, struct nfs_wcc *w);
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
