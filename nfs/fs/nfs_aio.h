/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_aio.h - READ and WRITE data through io_uring on the lcore, so the common calls need no
 * hop to a helper thread and the lcore never blocks in them.
 *
 * An operation is started only when everything before the data can be done on the lcore
 * without blocking (nfs_aio_read, nfs_aio_write):
 *  - the handle's descriptor is in the descriptor cache (no open_by_handle_at);
 *  - it is a regular file, and its READ or WRITE descriptor is open already;
 *  - no permission check as another identity is needed: the caller owns the file (knfsd's
 *    owner override, as nfs_fs_io.c), so the kernel is not asked per call;
 * A WRITE checks these with an fstat first (its pre-operation attributes come from it). A
 * READ checks them from what the cache last saw, and again after the read, from the fstat
 * that gives its end of file and attributes: one system call fewer per READ. A READ whose
 * owner changed in between comes back with nfs_aio_done.rerun, to run again on the
 * synchronous path; one whose file lost its last link answers STALE.
 *  - a WRITE needs no sync before its reply (UNSTABLE, or an async export).
 * Anything else returns NULL and the caller takes the synchronous path (the helper threads):
 * cache misses, non-owners, errors (the synchronous path answers them), COMMIT and stable
 * WRITEs on a sync export (their fsync stays where a trace of the backend sees it).
 *
 * The data moves by IORING_OP_READ / IORING_OP_WRITE. A WRITE runs under an io_uring
 * personality registered with the caller's squashed fs uid, fs gid and groups, so the kernel
 * applies the caller's rules (setuid and setgid cleared by a non-root writer). Page-cache reads
 * and writes complete during the submission, in the same poll; the rest complete in the
 * kernel's io-wq workers and are reaped by a later poll.
 *
 * Threading: one nfs_aio per lcore; every call from that lcore. The nfs_fs is shared.
 */
#ifndef NFS_AIO_H
#define NFS_AIO_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs_fs.h"

struct nfs_aio;
struct nfs_aio_op;

/** What an operation answered, handed to the done function. */
struct nfs_aio_done {
	void *cookie; /**< from nfs_aio_submit */
	bool write;   /**< WRITE, else READ */
	enum nfs_stat status;
	uint32_t count;	 /**< bytes read or written */
	bool eof;	 /**< READ */
	bool attr_valid; /**< READ: post-operation attributes */
	struct nfs_attr attr;
	enum nfs_stable committed; /**< WRITE */
	struct nfs_wcc wcc;	   /**< WRITE */
	/** READ: its file failed the checks made after the read (its owner changed since the
	 * descriptor cache saw it): nothing else here holds, and the caller runs the call again
	 * on the synchronous path, which makes the checks as another identity would need */
	bool rerun;
};

typedef void (*nfs_aio_done_t)(const struct nfs_aio_done *d);

/** Counters (read by other threads slightly stale). */
struct nfs_aio_stats {
	uint64_t reads, writes; /**< started */
	uint64_t miss;		/**< not started: descriptor not cached, or not a file */
	uint64_t not_owner;	/**< not started: a permission check was needed */
	uint64_t needs_sync;	/**< not started: a stable WRITE on a sync export */
	uint64_t busy;		/**< not started: every operation slot taken */
	uint64_t other;		/**< not started: an error the synchronous path answers */
	uint64_t submits;	/**< io_uring_submit calls */
	uint64_t personalities; /**< registered (each identity once, LRU beyond the table) */
	uint64_t errors;	/**< completions with an error */
	uint64_t rechecked;	/**< READs handed back to run again (nfs_aio_done.rerun) */
	uint64_t stale;		/**< READs whose file had no links after the read: STALE */
};

/**
 * An io_uring of depth operations for fs.
 * @return it, or NULL with errno set (io_uring unavailable: ENOSYS, EPERM...)
 */
struct nfs_aio *nfs_aio_create(struct nfs_fs *fs, uint32_t depth);

/** Wait for every operation in flight, hand each to done, and free everything. */
void nfs_aio_destroy(struct nfs_aio *a, nfs_aio_done_t done);

/**
 * Prepare a READ of count bytes at off into buf.
 * @return the operation, to submit or cancel; NULL: take the synchronous path
 */
struct nfs_aio_op *nfs_aio_read(struct nfs_aio *a, struct nfs_ctx *ctx, const struct nfs_fh *fh,
				uint64_t off, uint32_t count, void *buf);

/**
 * Prepare a WRITE of len bytes of data at off (data stays valid until done).
 * @return the operation; NULL: take the synchronous path
 */
struct nfs_aio_op *nfs_aio_write(struct nfs_aio *a, struct nfs_ctx *ctx, const struct nfs_fh *fh,
				 uint64_t off, const void *data, uint32_t len,
				 enum nfs_stable stable);

/** Queue a prepared operation; the next nfs_aio_poll submits it. */
void nfs_aio_submit(struct nfs_aio_op *op, void *cookie);

/** Give back a prepared operation that will not be submitted. */
void nfs_aio_cancel(struct nfs_aio_op *op);

/** Submit what is queued, then hand up to max finished operations to done.
 * @return how many were handed */
uint32_t nfs_aio_poll(struct nfs_aio *a, nfs_aio_done_t done, uint32_t max);

/** Operations prepared or in flight, not yet handed to done. */
uint32_t nfs_aio_inflight(const struct nfs_aio *a);

/** An fd that becomes readable when an operation completes (for a loop that sleeps in epoll;
 * registered on first call). @return the fd, or -errno */
int nfs_aio_event_fd(struct nfs_aio *a);

void nfs_aio_stats(const struct nfs_aio *a, struct nfs_aio_stats *st);

#endif /* NFS_AIO_H */
