/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_svc.h - the NFSv3 (100003 v3) and MOUNT (100005 v1, v3) programs: RPC procedure
 * tables whose handlers decode nothing themselves (nfs/xdr does) and call the backend
 * (nfs/fs/nfs_fs.h) with the caller's address and AUTH_SYS credential.
 *
 * A transport's orpc_svc carries a struct nfs3_server in its ctx (orpc_svc.ctx): the backend,
 * the largest READ/WRITE the transport takes, scratch space for READ data and directory
 * entries, and the counters. One nfs3_server per lcore; the backend is shared.
 *
 * NFS versions 2 and 4 are not served: orpc_svc answers PROG_MISMATCH 3..3, which makes a
 * Linux client that tried v4 first fall back to v3. NFSACL (100227) is not registered:
 * PROG_UNAVAIL, on purpose (the client then shows mode bits only).
 */
#ifndef NFS3_SVC_H
#define NFS3_SVC_H

#include <stdint.h>

#include "nfs3_xdr.h"
#include "nfs_fs.h"
#include "orpc_svc.h"

#define NFS3_PROG 100003u
#define NFS3_VERS 3u
#define MOUNT_PROG 100005u
#define NFS3_PORT 2049u
#define NFS3_RDMA_PORT 20049u
#define MOUNT_PORT 20048u
#define MOUNT_NPROCS 6u

extern const struct orpc_program nfs3_program;
extern const struct orpc_program mount_program;

/** Latency buckets: bucket i (0..20) counts calls that took at most 2^i µs, bucket 21 the
 * rest (+Inf). Not cumulative. */
#define NFS3_LAT_BUCKETS NFS_LAT_BUCKETS

/** Counters: per procedure, and per NFS status answered. Written only by the lcore that owns
 * the server (nfs3_count); other threads may read them, slightly stale, one aligned 64-bit
 * load per value. */
struct nfs3_stats {
	uint64_t proc[NFS3_NPROCS];
	/** per procedure, the time from the call's arrival at nfs3_entry (its arguments
	 * decoded) to its results handed back for the reply, helper-thread time included */
	uint64_t lat[NFS3_NPROCS][NFS3_LAT_BUCKETS];
	uint64_t lat_ns[NFS3_NPROCS]; /**< the sum of those times, in ns */
	uint64_t mount_proc[MOUNT_NPROCS];
	uint64_t status_ok, status_err;
	uint64_t status[32]; /**< by nfs3_stat_slot() */
	uint64_t read_bytes, write_bytes;
	uint64_t deferred;	/**< calls whose work ran on a helper thread */
	uint64_t sync_fallback; /**< calls run inline although a pool was there (no scratch set
				 *   and no room to wait for one, or the pool was stopping) */
	uint64_t parked;	/**< calls that waited for a scratch set (every one was with the
				 *   helper threads or io_uring), then went to the pool */
	uint64_t aio;		/**< READs and WRITEs whose data went through io_uring */
};

/** Scratch space of one call: READ data, READLINK path, READDIR entries and their names. */
struct nfs3_scratch {
	uint8_t *read_buf; /**< read_cap bytes (max_io, at least NFS_PATH_MAX) */
	uint32_t read_cap;
	struct nfs_dirent *dirents;
	uint32_t max_dirents;
	char *names;
	uint32_t names_cap;
	enum accept_stat stat; /**< what the work answered (deferred calls) */
	/** READ: where the data goes, chosen on the lcore when the call arrives: the transport's
	 * DDP sink (placed: registered memory the data is sent from, no copy into the reply) or
	 * read_buf (encoded inline) */
	uint8_t *dest;
	bool placed;
	uint64_t t0_ns; /**< the deferred call's arrival (CLOCK_MONOTONIC) */
	struct nfs3_scratch *next;
};

#define NFS3_MAX_SCRATCH 64u /**< deferred calls at once, per server (each ~3 MiB) */
/** Calls that may wait for a scratch set, per server: more than the credits of the few
 * connections a server takes, so that a burst waits rather than blocking the lcore */
#define NFS3_MAX_PARKED 1024u

/** A deferred call waiting for a scratch set, and when it arrived. */
struct nfs3_parked {
	struct orpc_pending *p;
	uint64_t t0_ns;
};

struct nfs4_server;

struct nfs3_server {
	struct nfs_fs *fs;
	uint32_t max_io;       /**< rtmax/wtmax announced by FSINFO (the transport's limit) */
	struct nfs_pool *pool; /**< helper threads for the file-system work; NULL: run inline */
	/** READ and WRITE data by io_uring on the lcore, when the backend can start them without
	 * blocking (nfs_aio.h); the rest goes to the pool. NULL: none. May be shared by the
	 * servers of one lcore: nfs_aio_poll(aio, nfs3_aio_done, n) finds each call's server. */
	struct nfs_aio *aio;
	/** NFSv4 (version 4 of the same RPC program, nfs4_svc.h), or NULL when not served */
	struct nfs4_server *v4;
	struct nfs3_scratch sync_scratch; /**< for calls run inline */
	struct nfs3_scratch *free_scratch;
	uint32_t nscratch;
	/** calls deferred while every scratch set was taken, in arrival order: each goes to the
	 * pool when a call ends and gives its set back (never run on the lcore while the pool
	 * takes jobs) */
	struct nfs3_parked parked[NFS3_MAX_PARKED];
	uint32_t park_head, park_tail;
	struct nfs3_stats st;
};

/** The pool's work and done functions (nfs_pool_create(..., nfs3_pool_work), and
 * nfs_pool_poll(pool, nfs3_pool_done, n) in the lcore's loop). */
void nfs3_pool_work(void *job);
void nfs3_pool_done(void *job);

struct nfs_aio_done;
/** The io_uring operations' done function: nfs_aio_poll(aio, nfs3_aio_done, n). */
void nfs3_aio_done(const struct nfs_aio_done *d);

/* MOUNT's MNT runs like an NFSv3 call (mount_svc.c): its file-system work (the path walk and
 * open_by_handle_at) on a helper thread, its end (the mount list, the counters) on the lcore. */
enum accept_stat mount_mnt_work(struct orpc_req *r, void *args, void *res);
void mount_mnt_end(struct orpc_req *r, void *args, void *res);
/** Defer the call to the server's pool (work there, end on the lcore); when every scratch set
 * is taken, defer it to wait for one (nfs3_server.parked). Run both at once when there is no
 * pool or no room in it, nowhere to wait, or the transport cannot defer (UDP). */
enum accept_stat nfs3_defer_or_run(struct orpc_req *r, void *args, void *res,
				   enum accept_stat (*work)(struct orpc_req *, void *, void *),
				   void (*end)(struct orpc_req *, void *, void *));

/** Set up a server's scratch space. @return 0 or -ENOMEM */
int nfs3_server_init(struct nfs3_server *s, struct nfs_fs *fs, uint32_t max_io);
void nfs3_server_fini(struct nfs3_server *s);

/** The backend's view of a call's caller: fs, address, transport, AUTH_SYS credential (uid,
 * gid, up to NFS_MAX_GROUPS groups); AUTH_NONE leaves the credential for the backend to
 * squash. Shared by the NFSv3, MOUNT and NLM programs. */
void nfs3_make_ctx(const struct orpc_req *r, struct nfs_fs *fs, struct nfs_ctx *c);

/** The latency bucket of a call that took @p ns nanoseconds: the smallest i with
 * ns <= 2^i µs, or NFS3_LAT_BUCKETS - 1 when longer than 2^20 µs. */
uint32_t nfs3_lat_bucket(uint64_t ns);

/** Index of an NFS status in nfs3_stats.status (0 = NFS3_OK). */
uint32_t nfs3_stat_slot(enum nfs_stat st);
/** The status counted in a slot (slot 31: any other). */
enum nfs_stat nfs3_stat_of_slot(uint32_t slot);

#endif /* NFS3_SVC_H */
