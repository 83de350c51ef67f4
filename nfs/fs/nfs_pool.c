/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_pool.c - the helper threads of nfs_pool.h: a job ring in, a result ring out, a
 * semaphore to sleep on and an eventfd to wake a sleeping lcore.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_ring.h>

#include "nfs_fs_int.h"
#include "nfs_pool.h"

struct nfs_pool {
	struct rte_ring *jobs, *results;
	sem_t ready; /* one post per job queued, one per worker at stop */
	int efd;
	atomic_bool stop;
	nfs_pool_work_t work;
	uint32_t nthreads, inflight;
	pthread_t threads[NFS_POOL_MAX_THREADS];
};

/* The rings live in ordinary memory (rte_ring_init), so the pool works without the EAL too
 * (droce-nfsd --listen). */
static struct rte_ring *ring_new(const char *name, unsigned int flags)
{
	ssize_t sz = rte_ring_get_memsize(NFS_POOL_RING);
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	r = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE));
	if (r && rte_ring_init(r, name, NFS_POOL_RING, flags) != 0) {
		free(r);
		r = NULL;
	}
	return r;
}

static void *worker(void *arg)
{
	struct nfs_pool *p = arg;
	uint64_t one = 1;
	void *job;

	/* a helper thread runs nothing but backend operations: it may keep the last caller's
	 * identity between them (nfs_cred.c) */
	nfs_cred_lazy(true);
	/* a umask of its own, 0: a file is created with the mode the client asked for at once,
	 * not narrowed by the process's umask until the chmod after it, which other callers could
	 * see in between (knfsd creates with the client's mode); the lcore's umask is untouched */
	if (unshare(CLONE_FS) == 0)
		umask(0);
	for (;;) {
		while (sem_wait(&p->ready) != 0 && errno == EINTR)
			;
		if (rte_ring_mc_dequeue(p->jobs, &job) != 0) {
			if (atomic_load(&p->stop))
				return NULL;
			continue;
		}
		p->work(job);
		/* the result ring holds as many as the job ring: it never fills */
		while (rte_ring_mp_enqueue(p->results, job) != 0)
			;
		if (write(p->efd, &one, sizeof(one)) < 0) {
			/* the eventfd only wakes a sleeper; the result is in the ring either way */
		}
	}
}

struct nfs_pool *nfs_pool_create(const char *name, uint32_t nthreads, nfs_pool_work_t work)
{
	struct nfs_pool *p;
	char rn[RTE_RING_NAMESIZE];

	if (nthreads == 0 || nthreads > NFS_POOL_MAX_THREADS) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->work = work;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	snprintf(rn, sizeof(rn), "%.20s_jobs", name);
	p->jobs = ring_new(rn, RING_F_SP_ENQ);
	snprintf(rn, sizeof(rn), "%.20s_done", name);
	p->results = ring_new(rn, RING_F_SC_DEQ);
	if (p->efd < 0 || !p->jobs || !p->results || sem_init(&p->ready, 0, 0) != 0)
		goto fail;
	for (; p->nthreads < nthreads; p->nthreads++)
		if (pthread_create(&p->threads[p->nthreads], NULL, worker, p) != 0)
			goto fail;
	return p;
fail:
	nfs_pool_destroy(p, NULL);
	errno = ENOMEM;
	return NULL;
}

int nfs_pool_submit(struct nfs_pool *p, void *job)
{
	if (atomic_load(&p->stop))
		return -ESHUTDOWN; /* its workers are gone or going: nothing would run the job */
	if (rte_ring_sp_enqueue(p->jobs, job) != 0)
		return -ENOBUFS;
	p->inflight++;
	sem_post(&p->ready);
	return 0;
}

uint32_t nfs_pool_poll(struct nfs_pool *p, nfs_pool_done_t done, uint32_t max)
{
	void *jobs[32];
	uint32_t n, total = 0;
	uint64_t v;

	if (!p->inflight)
		return 0;
	while (total < max) {
		n = rte_ring_sc_dequeue_burst(p->results, jobs, max - total < 32 ? max - total : 32,
					      NULL);
		if (!n)
			break;
		p->inflight -= n;
		for (uint32_t i = 0; i < n; i++)
			done(jobs[i]);
		total += n;
	}
	if (total && read(p->efd, &v, sizeof(v)) < 0) {
		/* nothing to clear */
	}
	return total;
}

bool nfs_pool_stopping(const struct nfs_pool *p)
{
	return atomic_load(&p->stop);
}

uint32_t nfs_pool_inflight(const struct nfs_pool *p)
{
	return p->inflight;
}

uint64_t nfs_pool_cpu_ns(const struct nfs_pool *p)
{
	uint64_t ns = 0;

	for (uint32_t i = 0; i < p->nthreads; i++) {
		struct timespec ts;
		clockid_t clk;

		if (pthread_getcpuclockid(p->threads[i], &clk) == 0 && clock_gettime(clk, &ts) == 0)
			ns += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return ns;
}

int nfs_pool_event_fd(const struct nfs_pool *p)
{
	return p->efd;
}

void nfs_pool_destroy(struct nfs_pool *p, nfs_pool_done_t done)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	for (uint32_t i = 0; i < p->nthreads; i++)
		sem_post(&p->ready);
	for (uint32_t i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	if (done && p->results)
		while (nfs_pool_poll(p, done, UINT32_MAX))
			;
	free(p->jobs);
	free(p->results);
	if (p->efd >= 0)
		close(p->efd);
	if (p->nthreads || p->jobs)
		sem_destroy(&p->ready);
	free(p);
}
