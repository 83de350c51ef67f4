/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_pool.h - helper threads that run the file-system work of NFS calls, so that an lcore
 * never blocks in a system call. Jobs go to the pool through one rte_ring and come back
 * through another, which the owning lcore drains in its poll loop (nfs_pool_poll); a worker
 * sleeps on a semaphore when there is nothing to do. Each worker thread switches its own
 * file-system credentials (nfs/fs/nfs_cred.c uses raw per-thread system calls).
 *
 * Threading: submit and poll from one lcore (the rings are single-producer for jobs and
 * single-consumer for results); the workers are plain pthreads.
 */
#ifndef NFS_POOL_H
#define NFS_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct nfs_pool;

/** The work of one job, run on a worker thread. */
typedef void (*nfs_pool_work_t)(void *job);
/** A job's end, on the polling lcore. */
typedef void (*nfs_pool_done_t)(void *job);

#define NFS_POOL_MAX_THREADS 64u
#define NFS_POOL_RING 1024u /**< jobs in flight at most */

/**
 * Start nthreads workers (1..NFS_POOL_MAX_THREADS).
 * @return the pool, or NULL (errno set)
 */
struct nfs_pool *nfs_pool_create(const char *name, uint32_t nthreads, nfs_pool_work_t work);

/** Queue a job. @return 0, -ENOBUFS when NFS_POOL_RING jobs are in flight, or -ESHUTDOWN
 * once nfs_pool_destroy() began (a done function it calls may try) */
int nfs_pool_submit(struct nfs_pool *p, void *job);

/** Hand up to max finished jobs to done. @return how many */
uint32_t nfs_pool_poll(struct nfs_pool *p, nfs_pool_done_t done, uint32_t max);

/** Has nfs_pool_destroy() begun? Then nfs_pool_submit() refuses: a caller that must not
 * fail to submit (a call it defers) asks first and runs the work itself. */
bool nfs_pool_stopping(const struct nfs_pool *p);

/** Jobs submitted and not yet handed back by nfs_pool_poll. */
uint32_t nfs_pool_inflight(const struct nfs_pool *p);

/** CPU time the workers have used so far, user and system (each thread's
 * CLOCK_THREAD_CPUTIME_ID through pthread_getcpuclockid), in nanoseconds: what a benchmark
 * charges the helper hop. A clock that cannot be read counts 0. */
uint64_t nfs_pool_cpu_ns(const struct nfs_pool *p);

/** An fd that becomes readable when a job has finished (for a caller that sleeps in epoll). */
int nfs_pool_event_fd(const struct nfs_pool *p);

/** Stop the workers (after the jobs already queued) and free the pool; jobs not yet polled are
 * handed to done first. */
void nfs_pool_destroy(struct nfs_pool *p, nfs_pool_done_t done);

#endif /* NFS_POOL_H */
