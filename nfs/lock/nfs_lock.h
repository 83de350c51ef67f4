/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_lock.h - the lock manager: POSIX byte-range locks per file, with queues of blocked
 * requests and a grace period after a restart. NLM v4 (nfs/nlm/) is its first user; it knows
 * nothing of NLM's XDR, only files, owners and ranges.
 *
 * Files are keys: opaque bytes (≤ NFS_LOCK_KEY_MAX) that name one file for as long as it
 * exists, whatever handle or export it was reached through. droce-nfsd uses the backend's
 * (dev, ino) (nfs_fs_file_key()); a handle works too if it is canonical.
 * Owners: (host, svid, oh) as NLM names them (RFC 1813 points to XNFS §10: caller_name, the
 * process id and the owner handle). A host is its caller_name; its address is kept for the
 * callbacks and for reboot notifications that name an address.
 * Ranges: 64-bit offset and length, length 0 = to the end of any file (also when offset +
 * length overflows). Locks are shared or exclusive; an owner's own locks never conflict with
 * each other: a new lock replaces the owner's overlapping ranges (upgrade, downgrade, split)
 * and merges with its adjacent and overlapping ranges of the same kind, as fcntl(F_SETLK).
 *
 * Blocking: a blocking request that conflicts is queued on its file (BLOCKED). Whenever locks
 * go away (UNLOCK, a downgrade, FREE_HOST) the file's queue is walked in arrival order and
 * every waiter that no longer conflicts is granted: its lock is taken at once, and the
 * manager's on_grant callback is told, with the tag the request carried (NLM keeps its cookie
 * and file handle there to send GRANTED). A repeated blocking request for the same owner,
 * range and kind stays one waiter (its tag is refreshed). There is no deadlock detection
 * (NLM4_DEADLCK is never answered): a waiter waits until the holder goes or it is cancelled.
 *
 * Grace: for grace_ms after nfs_lock_mgr_init (a restart), LOCK is served only with reclaim
 * set and TEST is refused (GRACE); UNLOCK and CANCEL are served (they only take away).
 * Reclaims are checked for conflicts like any lock.
 *
 * Messages: every operation is a request (struct nfs_lock_req) turned into a result by
 * nfs_lock_process(), with no pointer in the result into the manager. The manager belongs to
 * one lcore, its owner. Today droce-nfsd runs everything on one lcore and calls
 * nfs_lock_process() directly from the NLM handlers; with per-lcore servers (issue 14/15) the
 * requests travel to the owner through an rte_ring (one per lcore, multi-producer) and the
 * results come back on the caller's ring, and on_grant runs on the owner, which queues the
 * callback for whichever lcore sends it. Nothing in a request points at memory the caller
 * frees before the result: the strings are copied in (host, oh, tag).
 *
 * NFSv4 later: an open-owner or lock-owner is an owner here with host = the client id's name
 * and oh = the owner's bytes (svid 0); LOCK/LOCKT/LOCKU map onto LOCK/TEST/UNLOCK (LOCKT's
 * DENIED carries the holder as NLM's TEST does); v4 blocking locks (NFS4_BLKW_LT) are
 * BLOCKED waiters whose on_grant only notes that a retry will succeed (v4.1 CB_NOTIFY_LOCK
 * from there); a lease expiry or a new client incarnation is FREE_HOST; v4's grace is this
 * grace with reclaim = the v4 reclaim flag. Share reservations (OPEN's deny modes) would be a
 * second table on the same file entries (nfs_lock_file), not ranges.
 */
#ifndef NFS_LOCK_H
#define NFS_LOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define NFS_LOCK_KEY_MAX 64u   /**< file key bytes */
#define NFS_LOCK_HOST_MAX 255u /**< caller_name bytes kept (longer: NOLOCKS) */
#define NFS_LOCK_OH_MAX 128u   /**< owner handle bytes kept (longer: NOLOCKS) */
#define NFS_LOCK_TAG_MAX 192u  /**< bytes a blocking request carries back to on_grant */
#define NFS_LOCK_EOF UINT64_MAX

/** What a request asks. */
enum nfs_lock_op {
	NFS_LOCK_OP_TEST,      /**< would this lock be granted? DENIED names a holder */
	NFS_LOCK_OP_LOCK,      /**< take it; block = queue when it conflicts */
	NFS_LOCK_OP_CANCEL,    /**< withdraw a queued blocking request */
	NFS_LOCK_OP_UNLOCK,    /**< release the owner's locks in the range */
	NFS_LOCK_OP_FREE_HOST, /**< drop every lock and waiter of a host (FREE_ALL, reboot) */
	NFS_LOCK_OP_NUM
};

/** What a request got. */
enum nfs_lock_status {
	NFS_LOCK_GRANTED = 0, /**< done (TEST: no conflict) */
	NFS_LOCK_DENIED,      /**< conflicts (holder filled); not queued */
	NFS_LOCK_BLOCKED,     /**< conflicts; queued, on_grant will say when it is granted */
	NFS_LOCK_GRACE,	      /**< in the grace period and not a reclaim */
	NFS_LOCK_NOLOCKS,     /**< out of resources, or an owner/host/tag too long */
	NFS_LOCK_INVAL,	      /**< a bad request (key length, op) */
	NFS_LOCK_STATUS_NUM
};

const char *nfs_lock_status_name(enum nfs_lock_status s);

struct nfs_lock_key {
	uint32_t len;
	uint8_t b[NFS_LOCK_KEY_MAX];
};

/** An owner as a request names it (pointers valid only during nfs_lock_process). */
struct nfs_lock_owner {
	const char *host; /**< caller_name, not NUL-terminated */
	uint32_t host_len;
	int32_t svid;
	const uint8_t *oh;
	uint32_t oh_len;
};

/** A request (the message an lcore sends to the owner of the manager). */
struct nfs_lock_req {
	enum nfs_lock_op op;
	struct nfs_lock_key file;
	struct nfs_lock_owner owner;  /**< FREE_HOST: only host (and addr) */
	struct sockaddr_storage addr; /**< the caller's address (kept with its host) */
	uint64_t off, len;	      /**< len 0: to EOF */
	bool exclusive, block, reclaim;
	const uint8_t *tag; /**< LOCK with block: handed back to on_grant */
	uint32_t tag_len;
};

/** A conflicting lock (DENIED): its owner's svid and oh, its range and kind. */
struct nfs_lock_holder {
	bool exclusive;
	int32_t svid;
	uint32_t oh_len;
	uint8_t oh[NFS_LOCK_OH_MAX];
	uint64_t off, len; /**< len 0: to EOF */
};

/** A result. */
struct nfs_lock_res {
	enum nfs_lock_status status;
	struct nfs_lock_holder holder; /**< DENIED (and BLOCKED): the first conflicting lock */
	uint32_t removed;	       /**< CANCEL: waiters removed; FREE_HOST: locks + waiters */
};

/** A waiter just granted: its lock is held now. */
struct nfs_lock_grant {
	const struct nfs_lock_key *file;
	const char *host;
	uint32_t host_len;
	const struct sockaddr_storage *addr;
	int32_t svid;
	const uint8_t *oh;
	uint32_t oh_len;
	uint64_t off, len;
	bool exclusive;
	const uint8_t *tag;
	uint32_t tag_len;
};

typedef void (*nfs_lock_grant_cb_t)(void *ctx, const struct nfs_lock_grant *g);
typedef uint64_t (*nfs_lock_clock_t)(void);

struct nfs_lock_conf {
	uint64_t grace_ms;	      /**< 0: no grace period */
	uint32_t max_locks;	      /**< locks + waiters (0: 65536) */
	nfs_lock_grant_cb_t on_grant; /**< optional */
	void *ctx;
	nfs_lock_clock_t now_ms; /**< NULL: CLOCK_MONOTONIC */
};

struct nfs_lock_stats {
	uint64_t op[NFS_LOCK_OP_NUM];
	uint64_t status[NFS_LOCK_STATUS_NUM];
	uint64_t reclaims, granted_waiters, splits;
};

struct nfs_lock_file;
struct nfs_lock_host;

#define NFS_LOCK_BUCKETS 1024u

struct nfs_lock_mgr {
	struct nfs_lock_conf conf;
	uint64_t grace_end_ms;
	uint32_t nlocks; /**< locks + waiters */
	uint32_t nfiles;
	struct nfs_lock_file *buckets[NFS_LOCK_BUCKETS];
	struct nfs_lock_host *hosts;
	struct nfs_lock_stats st;
};

/** Start a manager (and its grace period). @return 0 */
int nfs_lock_mgr_init(struct nfs_lock_mgr *m, const struct nfs_lock_conf *conf);

/** Free every lock, waiter and host. */
void nfs_lock_mgr_fini(struct nfs_lock_mgr *m);

/**
 * Process one request (what the owner lcore does with each message).
 * on_grant may run inside it (UNLOCK, a downgrade, FREE_HOST grant waiters).
 * @return res->status
 */
enum nfs_lock_status nfs_lock_process(struct nfs_lock_mgr *m, const struct nfs_lock_req *req,
				      struct nfs_lock_res *res);

/** True while the grace period lasts. */
bool nfs_lock_in_grace(const struct nfs_lock_mgr *m);

/** Does owner o (host, svid, oh) hold any lock on file? (NFSv4's FREE_STATEID and
 * RELEASE_LOCKOWNER ask: LOCKS_HELD) */
bool nfs_lock_owner_holds(struct nfs_lock_mgr *m, const struct nfs_lock_key *file,
			  const struct nfs_lock_owner *o);

/** Locks (not waiters) held, and waiters queued, in all. */
void nfs_lock_count(const struct nfs_lock_mgr *m, uint32_t *locks, uint32_t *waiters);

/** Hosts known (holding or waiting), and whether a host name or address is one of them.
 * @param name  a caller_name, or an address literal */
bool nfs_lock_host_known(const struct nfs_lock_mgr *m, const char *name, uint32_t len);

#endif /* NFS_LOCK_H */
