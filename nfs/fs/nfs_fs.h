/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs.h - the NFS server's file-system backend: exports, sealed file handles, credentials,
 * and every file operation NFSv3 needs, in NFS terms (status codes, attributes, weak cache
 * consistency) but with no XDR in it. nfs3/ maps XDR to these calls; NFSv4 will too.
 *
 * Every operation takes a struct nfs_ctx: the caller's address and AUTH_SYS credential. The
 * backend finds the export from the handle, matches the caller against the export's client
 * list (NFS3ERR_ACCES when not listed), squashes the credential as the export says, refuses
 * changes on a read-only export (NFS3ERR_ROFS), and runs the system calls as the squashed
 * user (raw setfsuid/setfsgid/setgroups on the calling thread), so the kernel enforces modes,
 * ACLs, the sticky bit and setgid rules.
 *
 * Handles: NFSv3's 64 bytes at most: a version byte, the export's stable id, the kernel's
 * name_to_handle_at() handle, and a keyed MAC (SipHash) over all of it with a key kept in the
 * state directory. A handle whose MAC does not verify is NFS3ERR_BADHANDLE; one that verifies
 * but whose inode is gone is NFS3ERR_STALE; one whose export is gone is NFS3ERR_STALE.
 * No handle, name, ".." or symlink reaches outside its export: LOOKUP of ".." at an export's
 * root answers the root itself, and symlinks are never followed by the server.
 *
 * Threading: an nfs_fs is shared read-only after nfs_fs_open (the export table is swapped as a
 * whole on reload); the operations are blocking system calls, made on the calling thread.
 */
#ifndef NFS_FS_H
#define NFS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/** NFSv3 status codes (RFC 1813 §2.6), used by every operation here. */
enum nfs_stat {
	NFS_OK = 0,
	NFS_ERR_PERM = 1,
	NFS_ERR_NOENT = 2,
	NFS_ERR_IO = 5,
	NFS_ERR_NXIO = 6,
	NFS_ERR_ACCES = 13,
	NFS_ERR_EXIST = 17,
	NFS_ERR_XDEV = 18,
	NFS_ERR_NODEV = 19,
	NFS_ERR_NOTDIR = 20,
	NFS_ERR_ISDIR = 21,
	NFS_ERR_INVAL = 22,
	NFS_ERR_FBIG = 27,
	NFS_ERR_NOSPC = 28,
	NFS_ERR_ROFS = 30,
	NFS_ERR_MLINK = 31,
	NFS_ERR_NAMETOOLONG = 63,
	NFS_ERR_NOTEMPTY = 66,
	NFS_ERR_DQUOT = 69,
	NFS_ERR_STALE = 70,
	NFS_ERR_REMOTE = 71,
	NFS_ERR_BADHANDLE = 10001,
	NFS_ERR_NOT_SYNC = 10002,
	NFS_ERR_BAD_COOKIE = 10003,
	NFS_ERR_NOTSUPP = 10004,
	NFS_ERR_TOOSMALL = 10005,
	NFS_ERR_SERVERFAULT = 10006,
	NFS_ERR_BADTYPE = 10007,
	NFS_ERR_JUKEBOX = 10008,
};

/** errno -> NFSv3 status (EACCES -> ACCES, ENOSPC -> NOSPC, ESTALE -> STALE, ...). */
enum nfs_stat nfs_stat_from_errno(int err);
const char *nfs_stat_name(enum nfs_stat s);

/** Latency histograms' buckets (NFSv3 procedures, NFSv4 operations): bucket i counts what took
 * at most 2^i µs; the last, NFS_LAT_BUCKETS - 1, what took longer than 2^20 µs. */
#define NFS_LAT_BUCKETS 22u
/** The bucket of something that took @p ns nanoseconds: the smallest i with ns <= 2^i µs, or
 * NFS_LAT_BUCKETS - 1. */
uint32_t nfs_lat_bucket(uint64_t ns);

#define NFS_FH_MAX 64u	   /**< NFSv3's limit */
#define NFS_NAME_MAX 255u  /**< longer names: NFS3ERR_NAMETOOLONG */
#define NFS_PATH_MAX 1024u /**< MOUNT's dirpath and symlink targets */
#define NFS_MAX_GROUPS 16u

struct nfs_fh {
	uint32_t len;
	uint8_t data[NFS_FH_MAX];
};

/** File types as NFSv3 numbers them (ftype3). */
enum nfs_ftype {
	NFS_REG = 1,
	NFS_DIR = 2,
	NFS_BLK = 3,
	NFS_CHR = 4,
	NFS_LNK = 5,
	NFS_SOCK = 6,
	NFS_FIFO = 7,
};

struct nfs_time {
	uint32_t sec, nsec;
};

/** fattr3 */
struct nfs_attr {
	enum nfs_ftype type;
	uint32_t mode; /**< permission bits and setuid/setgid/sticky (07777), no type bits */
	uint32_t nlink, uid, gid;
	uint64_t size, used;
	uint32_t rdev_major, rdev_minor;
	uint64_t fsid, fileid;
	struct nfs_time atime, mtime, ctime;
};

/** wcc_data: attributes before (size, mtime, ctime) and after an operation. */
struct nfs_wcc {
	bool pre_valid;
	uint64_t pre_size;
	struct nfs_time pre_mtime, pre_ctime;
	bool post_valid;
	struct nfs_attr post;
};

/** How sattr3 sets a time. */
enum nfs_time_how { NFS_TIME_DONT = 0, NFS_TIME_SERVER = 1, NFS_TIME_CLIENT = 2 };

/** sattr3 */
struct nfs_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode, uid, gid;
	uint64_t size;
	enum nfs_time_how atime_how, mtime_how;
	struct nfs_time atime, mtime;
};

/** The caller: AUTH_SYS (or AUTH_NONE: flavor 0, squashed to the anonymous user). */
struct nfs_cred {
	uint32_t flavor; /**< 0 AUTH_NONE, 1 AUTH_SYS */
	uint32_t uid, gid;
	uint32_t ngroups;
	uint32_t groups[NFS_MAX_GROUPS];
};

/** One request's context. */
struct nfs_ctx {
	struct nfs_fs *fs;
	struct sockaddr_storage peer; /**< the client's address (its port decides "secure") */
	bool rdma;		      /**< over RDMA: counts as a secure port, as in knfsd */
	struct nfs_cred cred;
};

/* ---- exports (exports(5)) ---- */

#define NFS_EXPORT_MAX 64u
#define NFS_EXPORT_CLIENTS_MAX 32u
#define NFS_CLIENT_ADDRS_MAX 8u

/** Options of one client entry (exports(5)); defaults: ro, root_squash, secure, sync,
 * no_subtree_check, anonuid/anongid 65534, sec=sys. */
struct nfs_export_opts {
	bool rw, root_squash, all_squash, insecure, async, crossmnt, nohide, subtree_check;
	uint32_t anonuid, anongid;
	bool fsid_set;
	uint64_t fsid;
};

enum nfs_client_kind { NFS_CLIENT_ANY, NFS_CLIENT_CIDR4, NFS_CLIENT_CIDR6, NFS_CLIENT_HOST };

struct nfs_export_client {
	enum nfs_client_kind kind;
	uint8_t addr[16]; /**< network address (CIDR4: first 4 bytes) */
	uint8_t prefix;
	char host[256]; /**< NFS_CLIENT_HOST: a name, resolved at load time into addrs */
	uint32_t naddrs;
	uint8_t addrs[NFS_CLIENT_ADDRS_MAX]
		     [16]; /**< NFS_CLIENT_HOST: IPv6, IPv4 as ::ffff:a.b.c.d */
	struct nfs_export_opts opts;
};

struct nfs_export {
	uint32_t id; /**< stable across restarts and edits (state directory), never reused */
	char path[NFS_PATH_MAX];
	int root_fd; /**< O_PATH|O_DIRECTORY of the root */
	uint64_t fsid;
	uint32_t nclients;
	struct nfs_export_client clients[NFS_EXPORT_CLIENTS_MAX];
};

/**
 * Parse exports(5) text ("/path client(opts) client(opts) ...", '#' comments, '\' line
 * continuation, "-opts" default options before the clients, a quoted path).
 * @param err  on failure, a message naming the line, the word and what is accepted
 * @return number of exports, or -EINVAL (with err) / -ENOSPC
 */
int nfs_exports_parse(const char *text, struct nfs_export *out, uint32_t cap, char *err,
		      size_t errlen);

/* ---- the backend ---- */

struct nfs_fs;

/**
 * Open the backend: parse the exports, open each root, load or create the state directory
 * (the handle MAC key, export ids by path, the boot verifier's counter).
 * @param exports_text  exports(5) text
 * @param statedir      created 0700 when missing
 * @param err           why it failed, for the operator
 * @return 0 or -errno
 */
int nfs_fs_open(struct nfs_fs **fs, const char *exports_text, const char *statedir, char *err,
		size_t errlen);
void nfs_fs_close(struct nfs_fs *fs);

/* ---- reloading the exports (SIGHUP) ---- */

struct nfs_export_tab;

struct nfs_reload_stats {
	uint32_t exports, added, removed, kept;
};

/**
 * Reload, step 1: build a new export table from exports_text (parse, resolve host names, give
 * new paths their stable ids in the state directory, open the roots). Blocking; any thread,
 * one reload at a time. The running table is untouched, so a bad file changes nothing.
 * @return 0 with *next, or -errno with err naming what is wrong
 */
int nfs_fs_reload_prepare(struct nfs_fs *fs, const char *exports_text, struct nfs_export_tab **next,
			  char *err, size_t errlen);
/**
 * Step 2: put next in force. Operations that already loaded the old table end on it; every
 * later one sees next: a client no longer listed gets ACCES, and a handle of an export that
 * is gone gets ACCES too (it stays STALE only for ids this run never served). MOUNT sees the
 * new list at once. Call from the thread that calls nfs_fs_reclaim.
 */
void nfs_fs_reload_commit(struct nfs_fs *fs, struct nfs_export_tab *next,
			  struct nfs_reload_stats *st);
/** A prepared table that will not be committed. */
void nfs_fs_reload_abort(struct nfs_export_tab *next);
/**
 * Step 3: free the tables swapped out. Only when no operation that began before the last
 * commit can still run (droce-nfsd: no job with the helper threads, no call on the lcore).
 * @return tables freed
 */
uint32_t nfs_fs_reclaim(struct nfs_fs *fs);

/**
 * Flush every exported file system to stable storage (syncfs, once per file system): what
 * clients wrote UNSTABLE and did not COMMIT yet is on disk after it. Blocking; droce-nfsd
 * calls it when a drain has ended. @return 0, or the last -errno (*synced counts the rest)
 */
int nfs_fs_sync(struct nfs_fs *fs, uint32_t *synced);

/** The write verifier: new on every nfs_fs_open and after a write-back error. */
void nfs_fs_write_verf(const struct nfs_fs *fs, uint8_t verf[8]);

/** The exports, for MOUNT's EXPORT and DUMP: index i < count, NULL beyond. */
const struct nfs_export *nfs_fs_export(const struct nfs_fs *fs, uint32_t i);

/** MOUNT MNT: the root handle of the export at path (exactly, or a directory inside it),
 * if ctx's address is listed. NFS_ERR_ACCES when not listed, NFS_ERR_NOENT when no export. */
enum nfs_stat nfs_fs_mount(struct nfs_ctx *ctx, const char *path, struct nfs_fh *fh);

/** A file's identity for the lock manager (nfs/lock): its (st_dev, st_ino), the same whatever
 * export or handle reached it. The handle is checked as for GETATTR (MAC, export, the caller
 * listed): BADHANDLE, STALE, ACCES. */
enum nfs_stat nfs_fs_file_key(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint8_t key[16]);

/** NFSv4's namespace: the export a handle is in (its path, copied into path) and whether the
 * handle names that export's root, with its attributes. Checked as GETATTR (BADHANDLE, STALE,
 * ACCES). path, is_root and attr may be NULL. */
enum nfs_stat nfs_fs_fh_export(struct nfs_ctx *ctx, const struct nfs_fh *fh, char *path, size_t cap,
			       bool *is_root, struct nfs_attr *attr);

/** The state directory (what survives restarts; nfs/nlm keeps NSM's state there too). */
const char *nfs_fs_state_dir(const struct nfs_fs *fs);

/** statedir/name into buf, NUL-terminated. @return bytes read, -ENOENT, -EFBIG, -errno */
long nfs_state_read(const char *statedir, const char *name, char *buf, size_t cap);

/** Replace statedir/name with data atomically (temporary file, fsync, rename), mode 0600.
 * @return 0 or -errno */
int nfs_state_write(const char *statedir, const char *name, const void *data, size_t len);

enum nfs_stat nfs_fs_getattr(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_attr *attr);

/** guard_ctime: if not NULL, NFS_ERR_NOT_SYNC unless the object's ctime equals it. */
enum nfs_stat nfs_fs_setattr(struct nfs_ctx *ctx, const struct nfs_fh *fh,
			     const struct nfs_sattr *sa, const struct nfs_time *guard_ctime,
			     struct nfs_wcc *wcc);

/** name is not NUL-terminated (namelen ≤ NFS_NAME_MAX, else NAMETOOLONG). obj_attr and
 * dir_attr: filled when the call returns them valid (*_valid). */
enum nfs_stat nfs_fs_lookup(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, struct nfs_fh *fh, struct nfs_attr *obj_attr,
			    bool *dir_valid, struct nfs_attr *dir_attr);

/** ACCESS3 bits in, granted bits out (computed by the kernel: faccessat as the caller). */
enum nfs_stat nfs_fs_access(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint32_t want,
			    uint32_t *granted, bool *attr_valid, struct nfs_attr *attr);

enum nfs_stat nfs_fs_readlink(struct nfs_ctx *ctx, const struct nfs_fh *fh, char *buf, uint32_t cap,
			      uint32_t *len, bool *attr_valid, struct nfs_attr *attr);

enum nfs_stat nfs_fs_read(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			  uint32_t count, void *buf, uint32_t *got, bool *eof, bool *attr_valid,
			  struct nfs_attr *attr);

enum nfs_stable { NFS_UNSTABLE = 0, NFS_DATA_SYNC = 1, NFS_FILE_SYNC = 2 };

/** Writes len bytes; *committed says how stable they are (FILE_SYNC on a sync export when
 * asked for more than UNSTABLE; the export's "async" answers FILE_SYNC without syncing, as
 * knfsd does). */
enum nfs_stat nfs_fs_write(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			   const void *data, uint32_t len, enum nfs_stable stable,
			   uint32_t *written, enum nfs_stable *committed, struct nfs_wcc *wcc);

enum nfs_stat nfs_fs_commit(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			    uint32_t count, struct nfs_wcc *wcc);

/**
 * Reserve (fallocate mode 0) or, with punch, free (FALLOC_FL_PUNCH_HOLE | KEEP_SIZE) the
 * bytes [off, off + len) of a regular file, as the caller with WRITE's checks; a sync export
 * fsyncs after. NFSv4.2's ALLOCATE and DEALLOCATE. A reservation that certainly cannot fit
 * (len less what the range holds already, more than the free blocks) is NOSPC before fallocate
 * runs: ext4 keeps what a failed fallocate reserved. What might fit is left to fallocate.
 * @return NFS_OK, FBIG (off + len past INT64_MAX), ROFS, ACCES, ISDIR, INVAL (not a regular
 * file, len 0), NOSPC, DQUOT, NOTSUPP (the file system cannot), or another errno's status
 */
enum nfs_stat nfs_fs_allocate(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off,
			      uint64_t len, bool punch);

/**
 * Where the next data (or, with hole, the next hole) starts at or after off: lseek
 * SEEK_DATA / SEEK_HOLE as a reader. *eof when that is the file's end (a hole there always
 * is, RFC 7862 §15.11.3), or when no data follows off (then *pos is the size).
 * @return NFS_OK, NXIO (off at or beyond the end), ACCES, ISDIR, INVAL, ...
 */
enum nfs_stat nfs_fs_seek(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint64_t off, bool hole,
			  uint64_t *pos, bool *eof);

/**
 * Copy count bytes (0: to the source's end) from src at soff to dst at doff with
 * copy_file_range, at most max of them, as the caller: src as READ checks it, dst as WRITE.
 * *copied may be short (a copy of less than asked is a valid answer to NFSv4.2's COPY).
 * @return NFS_OK, INVAL (a range beyond the source's end, overlapping ranges in one file),
 * FBIG, XDEV (the kernel cannot copy between the two file systems), ROFS, ACCES, ISDIR, ...
 */
enum nfs_stat nfs_fs_copy(struct nfs_ctx *ctx, const struct nfs_fh *src, uint64_t soff,
			  const struct nfs_fh *dst, uint64_t doff, uint64_t count, uint64_t max,
			  uint64_t *copied);

/**
 * Share count bytes (0: to the source's end) of src at soff into dst at doff (FICLONERANGE),
 * with nfs_fs_copy's checks. @return NFS_OK, NOTSUPP (the file system cannot reflink),
 * INVAL (unaligned ranges, beyond the source's end), XDEV, ROFS, ACCES, ...
 */
enum nfs_stat nfs_fs_clone(struct nfs_ctx *ctx, const struct nfs_fh *src, uint64_t soff,
			   const struct nfs_fh *dst, uint64_t doff, uint64_t count);

enum nfs_createmode { NFS_CREATE_UNCHECKED = 0, NFS_CREATE_GUARDED = 1, NFS_CREATE_EXCLUSIVE = 2 };

/** CREATE3. EXCLUSIVE keeps verf in the file's atime/mtime as knfsd does, and answers a
 * retransmission with the same verifier with the file. */
enum nfs_stat nfs_fs_create(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, enum nfs_createmode how, const struct nfs_sattr *sa,
			    const uint8_t verf[8], struct nfs_fh *fh, struct nfs_attr *attr,
			    struct nfs_wcc *dir_wcc);

enum nfs_stat nfs_fs_mkdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, const struct nfs_sattr *sa, struct nfs_fh *fh,
			   struct nfs_attr *attr, struct nfs_wcc *dir_wcc);

/** target is not NUL-terminated. */
enum nfs_stat nfs_fs_symlink(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			     uint32_t namelen, const struct nfs_sattr *sa, const char *target,
			     uint32_t targetlen, struct nfs_fh *fh, struct nfs_attr *attr,
			     struct nfs_wcc *dir_wcc);

/** MKNOD3: type NFS_CHR/BLK (with rdev), NFS_SOCK, NFS_FIFO; others NFS_ERR_BADTYPE. */
enum nfs_stat nfs_fs_mknod(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, enum nfs_ftype type, const struct nfs_sattr *sa,
			   uint32_t rdev_major, uint32_t rdev_minor, struct nfs_fh *fh,
			   struct nfs_attr *attr, struct nfs_wcc *dir_wcc);

enum nfs_stat nfs_fs_remove(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			    uint32_t namelen, struct nfs_wcc *dir_wcc);
enum nfs_stat nfs_fs_rmdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, const char *name,
			   uint32_t namelen, struct nfs_wcc *dir_wcc);

/** Both directories must be in the same export (else NFS_ERR_XDEV). */
enum nfs_stat nfs_fs_rename(struct nfs_ctx *ctx, const struct nfs_fh *from_dir,
			    const char *from_name, uint32_t from_len, const struct nfs_fh *to_dir,
			    const char *to_name, uint32_t to_len, struct nfs_wcc *from_wcc,
			    struct nfs_wcc *to_wcc);

enum nfs_stat nfs_fs_link(struct nfs_ctx *ctx, const struct nfs_fh *fh, const struct nfs_fh *dir,
			  const char *name, uint32_t namelen, bool *attr_valid,
			  struct nfs_attr *attr, struct nfs_wcc *dir_wcc);

/** One directory entry for READDIR(PLUS); fh and attr are filled only for READDIRPLUS (and
 * fh_valid/attr_valid say so). Returns false to stop (the reply is full): that entry is not
 * counted as sent and the next call resumes at it. */
struct nfs_dirent {
	uint64_t fileid;
	const char *name;
	uint32_t namelen;
	uint64_t cookie; /**< where the entry after this one starts */
	bool fh_valid, attr_valid;
	struct nfs_fh fh;
	struct nfs_attr attr;
};
typedef bool (*nfs_dirent_fn)(void *arg, const struct nfs_dirent *e);

/** READDIR3/READDIRPLUS3 from cookie (0 = start; "." and ".." come first). cookieverf is
 * checked (NFS_ERR_BAD_COOKIE when it no longer matches) and returned. Cookies are the file
 * system's own directory offsets, so they stay stable. */
enum nfs_stat nfs_fs_readdir(struct nfs_ctx *ctx, const struct nfs_fh *dir, uint64_t cookie,
			     uint8_t cookieverf[8], bool plus, nfs_dirent_fn fn, void *arg,
			     bool *eof, bool *dir_valid, struct nfs_attr *dir_attr);

struct nfs_fsstat {
	uint64_t tbytes, fbytes, abytes, tfiles, ffiles, afiles;
	uint32_t invarsec;
};
enum nfs_stat nfs_fs_fsstat(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_fsstat *st,
			    bool *attr_valid, struct nfs_attr *attr);

struct nfs_fsinfo {
	uint32_t rtmax, rtpref, rtmult, wtmax, wtpref, wtmult, dtpref;
	uint64_t maxfilesize;
	struct nfs_time time_delta;
	uint32_t
		properties; /**< FSF3_LINK 1, FSF3_SYMLINK 2, FSF3_HOMOGENEOUS 8, FSF3_CANSETTIME 16 */
};
/** rtmax/wtmax come from the caller (the transport's limit); the rest from the file system. */
enum nfs_stat nfs_fs_fsinfo(struct nfs_ctx *ctx, const struct nfs_fh *fh, uint32_t max_io,
			    struct nfs_fsinfo *fi, bool *attr_valid, struct nfs_attr *attr);

struct nfs_pathconf {
	uint32_t linkmax, name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};
enum nfs_stat nfs_fs_pathconf(struct nfs_ctx *ctx, const struct nfs_fh *fh, struct nfs_pathconf *pc,
			      bool *attr_valid, struct nfs_attr *attr);

/** Counters, for telemetry. */
struct nfs_fs_stats {
	uint64_t badhandle, stale, acces_client, rofs, squashed;
};
void nfs_fs_stats(const struct nfs_fs *fs, struct nfs_fs_stats *st);

#endif /* NFS_FS_H */
