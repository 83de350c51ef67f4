/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fdcache.c - open descriptors by file handle, shared by the helper threads, so that an
 * operation on a handle seen recently costs no open_by_handle_at, no reopen and no close.
 *
 * nfs_obj_get() (nfs_fs.c) consults it only after the handle's MAC verified, its export was
 * found and the caller was matched against the export's clients: the cache answers "which
 * descriptor", never "may this caller". The key is the handle's bytes (which include the
 * export id and the MAC) behind one byte for the mount view (crossmnt callers open through
 * the mount tree, the others through a private clone). An entry holds the O_PATH descriptor
 * from open_by_handle_at, and the O_RDONLY and O_WRONLY descriptors READ, WRITE and COMMIT
 * use, opened as root on first need; the caller's permission is checked on every call
 * (nfs_fs_io.c), never cached.
 *
 * Bounded: at most cap entries (NFS_FDCACHE_MAX, fewer when RLIMIT_NOFILE is low), replaced
 * by the clock algorithm (an entry used since the hand last passed gets a second chance). An
 * entry is held by each operation using it (refs) and never closed under one: eviction skips
 * held entries, and an entry taken out of the table while held ("dead": STALE, a removed
 * inode, a flushed export) closes at its last release.
 *
 * Idle entries close: an entry nobody used for NFS_FDCACHE_IDLE_NS (5 s) is closed by the
 * next lookup after it (lookups look for them once a second), so a cached write descriptor
 * does not keep an `execve` of its file on the server failing with ETXTBSY, nor a file deleted
 * on the server itself its space, for longer than that while the server is in use. A server
 * that gets no call at all closes nothing until its next call.
 *
 * One mutex covers the table; it is held for a hash probe, a clock step or the once-a-second
 * look for idle entries (a pass over cap slots), and for the close() of evicted descriptors
 * (which defers the file's release to the task's return to user space, so it is short).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nfs_fs_int.h"

#define BUCKETS_PER_ENTRY 2u
#define SWEEP_EVERY_NS 1000000000ull

struct nfs_fdcache {
	pthread_mutex_t lock;
	uint32_t cap, nbuckets; /**< nbuckets: a power of two */
	uint32_t hand;		/**< the clock's hand */
	uint32_t count;		/**< entries in the table */
	uint64_t next_sweep_ns; /**< when get looks for idle entries next */
	int32_t free_head;	/**< unused slots, chained by next */
	int32_t *buckets;
	struct nfs_fdc_ent ent[];
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t); /* the vDSO: no system call */
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* FNV-1a: the key ends in a keyed MAC, so it cannot be steered into one chain */
static uint32_t key_hash(const uint8_t *k, uint32_t n)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 16777619u;
	return h;
}

struct nfs_fdcache *nfs_fdcache_create(uint32_t cap)
{
	struct nfs_fdcache *c;
	uint32_t nb = 16;

	if (cap == 0)
		cap = 1;
	while (nb < cap * BUCKETS_PER_ENTRY)
		nb <<= 1;
	c = calloc(1, sizeof(*c) + cap * sizeof(c->ent[0]));
	if (!c)
		return NULL;
	c->buckets = malloc(nb * sizeof(c->buckets[0]));
	if (!c->buckets || pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c->buckets);
		free(c);
		return NULL;
	}
	c->cap = cap;
	c->nbuckets = nb;
	for (uint32_t i = 0; i < nb; i++)
		c->buckets[i] = -1;
	for (uint32_t i = 0; i < cap; i++) {
		c->ent[i].pfd = -1;
		atomic_init(&c->ent[i].rfd, -1);
		atomic_init(&c->ent[i].wfd, -1);
		c->ent[i].next = i + 1 < cap ? (int32_t)(i + 1) : -1;
	}
	c->free_head = 0;
	return c;
}

static void close_ent(struct nfs_fdcache *c, struct nfs_fdc_ent *e)
{
	int fd;

	if (e->pfd >= 0)
		close(e->pfd);
	fd = atomic_exchange(&e->rfd, -1);
	if (fd >= 0)
		close(fd);
	fd = atomic_exchange(&e->wfd, -1);
	if (fd >= 0)
		close(fd);
	e->pfd = -1;
	e->used = e->dead = e->recent = false;
	e->refs = 0;
	e->next = c->free_head;
	c->free_head = (int32_t)(e - c->ent);
}

void nfs_fdcache_destroy(struct nfs_fdcache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->cap; i++)
		if (c->ent[i].used)
			close_ent(c, &c->ent[i]);
	pthread_mutex_destroy(&c->lock);
	free(c->buckets);
	free(c);
}

/* Take e out of its chain (locked; e in the table). */
static void unlink_ent(struct nfs_fdcache *c, struct nfs_fdc_ent *e)
{
	int32_t *pp = &c->buckets[e->hash & (c->nbuckets - 1)];
	int32_t self = (int32_t)(e - c->ent);

	while (*pp >= 0 && *pp != self)
		pp = &c->ent[*pp].next;
	if (*pp == self)
		*pp = e->next;
	e->next = -1;
	c->count--;
}

/* Out of the table; closed now when unheld, else at the last put (locked). */
static void kill_ent(struct nfs_fdcache *c, struct nfs_fdc_ent *e)
{
	if (!e->used || e->dead)
		return;
	unlink_ent(c, e);
	e->dead = true;
	if (e->refs == 0)
		close_ent(c, e);
}

static struct nfs_fdc_ent *find(struct nfs_fdcache *c, const uint8_t *key, uint32_t klen,
				uint32_t h)
{
	for (int32_t i = c->buckets[h & (c->nbuckets - 1)]; i >= 0; i = c->ent[i].next) {
		struct nfs_fdc_ent *e = &c->ent[i];

		if (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
	}
	return NULL;
}

/* Close the unheld entries nobody used for idle_ns (locked). */
static uint32_t sweep(struct nfs_fdcache *c, uint64_t now, uint64_t idle_ns)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->cap; i++) {
		struct nfs_fdc_ent *e = &c->ent[i];

		if (e->used && !e->dead && e->refs == 0 && now - e->last_ns >= idle_ns) {
			kill_ent(c, e);
			n++;
		}
	}
	return n;
}

uint32_t nfs_fdcache_sweep(struct nfs_fdcache *c, uint64_t idle_ns)
{
	uint32_t n;

	pthread_mutex_lock(&c->lock);
	n = sweep(c, now_ns(), idle_ns);
	pthread_mutex_unlock(&c->lock);
	return n;
}

struct nfs_fdc_ent *nfs_fdcache_get(struct nfs_fdcache *c, const uint8_t *key, uint32_t klen)
{
	uint32_t h = key_hash(key, klen);
	struct nfs_fdc_ent *e;
	uint64_t now = now_ns();

	pthread_mutex_lock(&c->lock);
	if (now >= c->next_sweep_ns) {
		c->next_sweep_ns = now + SWEEP_EVERY_NS;
		sweep(c, now, NFS_FDCACHE_IDLE_NS);
	}
	e = find(c, key, klen, h);
	if (e) {
		e->refs++;
		e->recent = true;
	}
	pthread_mutex_unlock(&c->lock);
	return e;
}

/* A free slot, evicting by the clock if none (locked). -1: every slot is held. */
static int32_t take_slot(struct nfs_fdcache *c)
{
	int32_t i = c->free_head;

	if (i >= 0) {
		c->free_head = c->ent[i].next;
		return i;
	}
	/* two turns: the first may only clear the recent bits */
	for (uint32_t step = 0; step < 2 * c->cap; step++) {
		struct nfs_fdc_ent *e = &c->ent[c->hand];

		c->hand = c->hand + 1 == c->cap ? 0 : c->hand + 1;
		if (!e->used || e->dead || e->refs)
			continue;
		if (e->recent) {
			e->recent = false;
			continue;
		}
		kill_ent(c, e);
		i = c->free_head;
		c->free_head = c->ent[i].next;
		return i;
	}
	return -1;
}

struct nfs_fdc_ent *nfs_fdcache_add(struct nfs_fdcache *c, const uint8_t *key, uint32_t klen,
				    uint32_t export_id, int pfd, const struct stat *st)
{
	uint32_t h = key_hash(key, klen);
	struct nfs_fdc_ent *e;
	int32_t i;

	if (klen > NFS_FDC_KEY_MAX)
		return NULL;
	pthread_mutex_lock(&c->lock);
	e = find(c, key, klen, h);
	if (e) {
		e->refs++;
		e->recent = true;
		pthread_mutex_unlock(&c->lock);
		close(pfd);
		return e;
	}
	i = take_slot(c);
	if (i < 0) {
		pthread_mutex_unlock(&c->lock);
		return NULL;
	}
	e = &c->ent[i];
	memcpy(e->key, key, klen);
	e->klen = klen;
	e->hash = h;
	e->export_id = export_id;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->pfd = pfd;
	nfs_fdc_seen(e, st);
	e->refs = 1;
	e->used = true;
	e->dead = false;
	e->recent = true;
	e->next = c->buckets[h & (c->nbuckets - 1)];
	c->buckets[h & (c->nbuckets - 1)] = i;
	c->count++;
	pthread_mutex_unlock(&c->lock);
	return e;
}

void nfs_fdcache_put(struct nfs_fdcache *c, struct nfs_fdc_ent *e)
{
	uint64_t now = now_ns();

	pthread_mutex_lock(&c->lock);
	e->last_ns = now;
	if (--e->refs == 0 && e->dead)
		close_ent(c, e);
	pthread_mutex_unlock(&c->lock);
}

void nfs_fdcache_evict(struct nfs_fdcache *c, struct nfs_fdc_ent *e)
{
	pthread_mutex_lock(&c->lock);
	kill_ent(c, e);
	pthread_mutex_unlock(&c->lock);
}

int nfs_fdcache_set_io(struct nfs_fdc_ent *e, int flags, int fd)
{
	_Atomic int *slot = (flags & O_ACCMODE) == O_RDONLY ? &e->rfd : &e->wfd;
	int none = -1;

	if (atomic_compare_exchange_strong(slot, &none, fd))
		return fd;
	close(fd);
	return none; /* the other thread's */
}

void nfs_fdcache_forget_inode(struct nfs_fdcache *c, dev_t dev, ino_t ino)
{
	pthread_mutex_lock(&c->lock);
	for (uint32_t i = 0; i < c->cap; i++)
		if (c->ent[i].used && c->ent[i].dev == dev && c->ent[i].ino == ino)
			kill_ent(c, &c->ent[i]);
	pthread_mutex_unlock(&c->lock);
}

void nfs_fdcache_flush_export(struct nfs_fs *fs, uint32_t export_id)
{
	struct nfs_fdcache *c = fs->fdc;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	for (uint32_t i = 0; i < c->cap; i++)
		if (c->ent[i].used && c->ent[i].export_id == export_id)
			kill_ent(c, &c->ent[i]);
	pthread_mutex_unlock(&c->lock);
}

uint32_t nfs_fdcache_count(struct nfs_fdcache *c)
{
	uint32_t n;

	pthread_mutex_lock(&c->lock);
	n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}
