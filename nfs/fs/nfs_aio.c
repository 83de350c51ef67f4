/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_aio.c - READ and WRITE through io_uring (nfs_aio.h).
 *
 * Each operation is a slot with a state:
 *   FREE -> PREPARED (object held, checks done) -> QUEUED (its SQE written; submitted by the
 *        next poll, or a later one if the kernel took fewer) -> FREE (its CQE reaped, handed
 *        to done)
 * PREPARED -> FREE by nfs_aio_cancel. The slot's index is the SQE's user_data.
 *
 * WRITE personalities: io_uring_register_personality records the registering thread's
 * credentials. The lcore enters the caller's squashed identity (nfs_cred_enter: fs uid, fs
 * gid, groups; the kernel drops CAP_FSETID and the other file-system capabilities with a
 * non-zero fs uid), registers, and goes back to root. Identities are kept in a small table,
 * the least recently used one unregistered when it is full. Root callers (fs uid 0) write
 * with the lcore's own credentials.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs_aio.h"
#include "nfs_fs_int.h"

#define AIO_STATE_LIST(X)                                                                          \
	X(FREE)	    /**< on the free list */                                                       \
	X(PREPARED) /**< object held, checks passed; to submit or cancel */                        \
	X(QUEUED)   /**< its SQE is in the ring (submitted or about to be); its CQE awaited */

enum aio_state {
#define AIO_ENUM(s) AIO_##s,
	AIO_STATE_LIST(AIO_ENUM)
#undef AIO_ENUM
		AIO_NUM_STATES
};

#define AIO_PERS_MAX 32u

struct nfs_aio_op {
	struct nfs_aio *a;
	enum aio_state state;
	bool write; /**< else READ, whose object is checked after the read (nfs_obj_get_lazy) */
	enum nfs_stable stable;
	struct nfs_obj o;
	int fd;
	uint64_t off;
	uint32_t len;
	void *buf;     /**< READ: where the data goes; WRITE: the data */
	uint16_t pers; /**< WRITE: personality id, 0 for the lcore's own */
	void *cookie;
	struct nfs_wcc wcc; /**< WRITE: pre-operation attributes from prepare */
	uint32_t next_free;
};

struct aio_pers {
	uint32_t uid, gid, ngroups;
	uint32_t groups[NFS_MAX_GROUPS];
	uint16_t id;
	uint64_t last; /**< use clock, for LRU */
};

struct nfs_aio {
	struct io_uring ring;
	struct nfs_fs *fs;
	uint32_t depth;
	uint32_t free_head; /**< UINT32_MAX: none */
	uint32_t inflight;  /**< not FREE */
	uint32_t queued;    /**< SQEs written since the last submit took them */
	int efd;
	struct aio_pers pers[AIO_PERS_MAX];
	uint32_t npers;
	uint64_t clock;
	uint64_t state_cnt[AIO_NUM_STATES];
	struct nfs_aio_stats st;
	struct nfs_aio_op ops[];
};

static void set_state(struct nfs_aio_op *op, enum aio_state s)
{
	op->state = s;
	op->a->state_cnt[s]++;
}

struct nfs_aio *nfs_aio_create(struct nfs_fs *fs, uint32_t depth)
{
	struct nfs_aio *a;
	int rc;

	if (depth == 0 || depth > 4096) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a) + depth * sizeof(a->ops[0]));
	if (!a)
		return NULL;
	rc = io_uring_queue_init(depth, &a->ring, 0);
	if (rc < 0) {
		free(a);
		errno = -rc;
		return NULL;
	}
	a->fs = fs;
	a->depth = depth;
	a->efd = -1;
	for (uint32_t i = 0; i < depth; i++) {
		a->ops[i].a = a;
		a->ops[i].state = AIO_FREE;
		a->ops[i].next_free = i + 1 < depth ? i + 1 : UINT32_MAX;
	}
	a->free_head = 0;
	return a;
}

static struct nfs_aio_op *op_get(struct nfs_aio *a)
{
	struct nfs_aio_op *op;

	if (a->free_head == UINT32_MAX) {
		a->st.busy++;
		return NULL;
	}
	op = &a->ops[a->free_head];
	a->free_head = op->next_free;
	a->inflight++;
	memset(&op->o, 0, sizeof(op->o));
	op->o.fd = -1;
	op->cookie = NULL;
	op->pers = 0;
	set_state(op, AIO_PREPARED);
	return op;
}

static void op_put(struct nfs_aio_op *op)
{
	struct nfs_aio *a = op->a;

	nfs_obj_put(&op->o);
	set_state(op, AIO_FREE);
	op->next_free = a->free_head;
	a->free_head = (uint32_t)(op - a->ops);
	a->inflight--;
}

/* The lookup and the checks every operation shares: a cached regular file the caller owns
 * (a READ: as the cache last saw it; finish checks it again). */
static bool prepare_obj(struct nfs_aio_op *op, struct nfs_ctx *ctx, const struct nfs_fh *fh)
{
	struct nfs_aio *a = op->a;
	enum nfs_stat s =
		op->write ? nfs_obj_get_cached(ctx, fh, &op->o) : nfs_obj_get_lazy(ctx, fh, &op->o);

	if (s != NFS_OK) {
		if (s == NFS_ERR_JUKEBOX)
			a->st.miss++;
		else
			a->st.other++;
		return false;
	}
	/* knfsd's owner override (nfs_fs_io.c): the owner of a regular file needs no check */
	if (op->o.st.st_uid != op->o.cred.uid) {
		a->st.not_owner++;
		return false;
	}
	return true;
}

struct nfs_aio_op *nfs_aio_read(struct nfs_aio *a, struct nfs_ctx *ctx, const struct nfs_fh *fh,
				uint64_t off, uint32_t count, void *buf)
{
	struct nfs_aio_op *op = op_get(a);

	if (!op)
		return NULL;
	op->write = false;
	if (!prepare_obj(op, ctx, fh))
		goto no;
	if (off > (uint64_t)INT64_MAX) {
		a->st.other++;
		goto no;
	}
	op->fd = atomic_load(&op->o.ent->rfd);
	if (op->fd < 0) {
		a->st.miss++; /* the first READ opens it, on the synchronous path */
		goto no;
	}
	op->off = off;
	op->len = count;
	op->buf = buf;
	return op;
no:
	op_put(op);
	return NULL;
}

static bool same_cred(const struct aio_pers *p, const struct nfs_cred *c)
{
	return p->uid == c->uid && p->gid == c->gid && p->ngroups == c->ngroups &&
	       memcmp(p->groups, c->groups, c->ngroups * sizeof(c->groups[0])) == 0;
}

/* The personality of cred: found, or registered now (the least recently used one goes when
 * the table is full). @return its id (> 0), or -errno */
static int personality_of(struct nfs_aio *a, const struct nfs_cred *c)
{
	struct aio_pers *p = NULL;
	int id;

	for (uint32_t i = 0; i < a->npers; i++) {
		if (same_cred(&a->pers[i], c)) {
			a->pers[i].last = ++a->clock;
			return a->pers[i].id;
		}
	}
	if (a->npers < AIO_PERS_MAX) {
		p = &a->pers[a->npers];
	} else {
		p = &a->pers[0];
		for (uint32_t i = 1; i < AIO_PERS_MAX; i++)
			if (a->pers[i].last < p->last)
				p = &a->pers[i];
		/* no operation in flight may still name it: only PREPARED and QUEUED writes do, and
		 * an id that is reused while they run would change whose write it is */
		for (uint32_t i = 0; i < a->depth; i++)
			if (a->ops[i].state != AIO_FREE && a->ops[i].pers == p->id)
				return -EBUSY;
		io_uring_unregister_personality(&a->ring, p->id);
		a->npers--;
		*p = a->pers[a->npers];
		p = &a->pers[a->npers];
	}
	if (nfs_cred_enter(c) != 0)
		return -EPERM;
	id = io_uring_register_personality(&a->ring);
	nfs_cred_root();
	if (id <= 0)
		return id < 0 ? id : -EINVAL;
	p->uid = c->uid;
	p->gid = c->gid;
	p->ngroups = c->ngroups;
	memcpy(p->groups, c->groups, c->ngroups * sizeof(c->groups[0]));
	p->id = (uint16_t)id;
	p->last = ++a->clock;
	a->npers++;
	a->st.personalities++;
	return id;
}

struct nfs_aio_op *nfs_aio_write(struct nfs_aio *a, struct nfs_ctx *ctx, const struct nfs_fh *fh,
				 uint64_t off, const void *data, uint32_t len,
				 enum nfs_stable stable)
{
	struct nfs_aio_op *op = op_get(a);
	int id;

	if (!op)
		return NULL;
	op->write = true;
	if (!prepare_obj(op, ctx, fh))
		goto no;
	if (nfs_obj_writable(ctx, &op->o) != NFS_OK || off + len < off ||
	    off > (uint64_t)INT64_MAX) {
		a->st.other++; /* ROFS and FBIG: the synchronous path answers and counts them */
		goto no;
	}
	if (stable != NFS_UNSTABLE && !op->o.client->opts.async) {
		a->st.needs_sync++;
		goto no;
	}
	op->fd = atomic_load(&op->o.ent->wfd);
	if (op->fd < 0) {
		a->st.miss++;
		goto no;
	}
	if (op->o.cred.uid != 0) {
		id = personality_of(a, &op->o.cred);
		if (id < 0) {
			a->st.other++;
			goto no;
		}
		op->pers = (uint16_t)id;
	}
	op->off = off;
	op->len = len;
	op->buf = (void *)(uintptr_t)data;
	op->stable = stable;
	nfs_wcc_pre(&op->o, &op->wcc);
	return op;
no:
	op_put(op);
	return NULL;
}

void nfs_aio_submit(struct nfs_aio_op *op, void *cookie)
{
	struct nfs_aio *a = op->a;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&a->ring);

	/* the submission queue has depth entries and each operation takes one: never full */
	if (op->write)
		io_uring_prep_write(sqe, op->fd, op->buf, op->len, op->off);
	else
		io_uring_prep_read(sqe, op->fd, op->buf, op->len, op->off);
	sqe->personality = op->pers;
	io_uring_sqe_set_data64(sqe, (uint64_t)(op - a->ops));
	op->cookie = cookie;
	a->queued++;
	if (op->write)
		a->st.writes++;
	else
		a->st.reads++;
	set_state(op, AIO_QUEUED);
}

void nfs_aio_cancel(struct nfs_aio_op *op)
{
	op_put(op);
}

/* The operation's end on the lcore: status, the attributes after it, and its hand-over. */
static void finish(struct nfs_aio_op *op, int res, nfs_aio_done_t done)
{
	struct nfs_aio_done d = {.cookie = op->cookie, .write = op->write};
	struct stat st;

	if (res < 0) {
		op->a->st.errors++;
		d.status = nfs_stat_from_errno(-res);
		if (op->write)
			nfs_fs_write_failed(op->a->fs, -res);
	} else {
		d.status = NFS_OK;
		d.count = (uint32_t)res;
	}
	if (op->write) {
		d.wcc = op->wcc;
		d.committed = op->stable == NFS_UNSTABLE ? NFS_UNSTABLE : NFS_FILE_SYNC;
		if (d.status != NFS_OK)
			d.count = 0;
		nfs_wcc_end(&op->o, &d.wcc, d.count > 0);
	} else if (fstat(op->fd, &st) == 0) {
		/* one fstat after the read: end of file, the post-operation attributes, and the
		 * checks the READ started without (its owner, its links) */
		nfs_fdc_seen(op->o.ent, &st);
		if (st.st_uid != op->o.cred.uid) {
			/* the owner changed since the cache saw it: the synchronous path checks */
			op->a->st.rechecked++;
			d.rerun = true;
		} else if (st.st_nlink == 0) {
			/* removed: as nfs_obj_get answers a handle whose file has no links */
			nfs_fdcache_evict(op->a->fs->fdc, op->o.ent);
			atomic_fetch_add(&op->a->fs->n_stale, 1);
			op->a->st.stale++;
			d.status = NFS_ERR_STALE;
			d.count = 0;
		} else {
			if (d.status == NFS_OK)
				d.eof = op->off + d.count >= (uint64_t)st.st_size;
			nfs_attr_from_stat(&op->o, &st, &d.attr);
			d.attr_valid = true;
		}
	} else {
		op->a->st.rechecked++;
		d.rerun = true; /* no check made: the synchronous path answers */
	}
	op_put(op);
	done(&d);
}

uint32_t nfs_aio_poll(struct nfs_aio *a, nfs_aio_done_t done, uint32_t max)
{
	struct io_uring_cqe *cqe;
	uint32_t n = 0;

	if (a->queued) {
		/* SQEs the kernel did not take (EAGAIN, EBUSY) stay in the ring for the next */
		int rc = io_uring_submit(&a->ring);

		a->st.submits++;
		if (rc > 0)
			a->queued -= (uint32_t)rc < a->queued ? (uint32_t)rc : a->queued;
	}
	while (n < max && io_uring_peek_cqe(&a->ring, &cqe) == 0) {
		uint64_t i = io_uring_cqe_get_data64(cqe);
		int res = cqe->res;

		io_uring_cqe_seen(&a->ring, cqe);
		if (i >= a->depth || a->ops[i].state == AIO_FREE)
			continue; /* cannot happen: every SQE names a live slot */
		finish(&a->ops[i], res, done);
		n++;
	}
	if (a->efd >= 0 && n) {
		uint64_t v;

		/* a read resets the counter; the next completion sets it again */
		if (read(a->efd, &v, sizeof(v)) < 0)
			v = 0;
	}
	return n;
}

uint32_t nfs_aio_inflight(const struct nfs_aio *a)
{
	return a->inflight;
}

int nfs_aio_event_fd(struct nfs_aio *a)
{
	int rc;

	if (a->efd >= 0)
		return a->efd;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->efd < 0)
		return -errno;
	rc = io_uring_register_eventfd(&a->ring, a->efd);
	if (rc < 0) {
		close(a->efd);
		a->efd = -1;
		return rc;
	}
	return a->efd;
}

void nfs_aio_stats(const struct nfs_aio *a, struct nfs_aio_stats *st)
{
	*st = a->st;
}

void nfs_aio_destroy(struct nfs_aio *a, nfs_aio_done_t done)
{
	if (!a)
		return;
	/* prepared ones were never submitted; the rest end through done */
	for (uint32_t i = 0; i < a->depth; i++)
		if (a->ops[i].state == AIO_PREPARED)
			op_put(&a->ops[i]);
	while (a->inflight) {
		struct io_uring_cqe *cqe;

		nfs_aio_poll(a, done, a->depth);
		if (a->inflight && io_uring_wait_cqe(&a->ring, &cqe) < 0)
			break;
	}
	if (a->efd >= 0)
		close(a->efd);
	io_uring_queue_exit(&a->ring);
	free(a);
}
