/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_lock.c - the lock manager (nfs_lock.h): files in a hash table, each with its granted
 * locks (a list of inclusive [start, end] ranges) and its queue of blocked requests (arrival
 * order); hosts with a reference count per lock and waiter. The rules are POSIX fcntl's
 * (IEEE 1003.1 F_SETLK: an owner's new lock replaces what it held in the range) and XNFS
 * NLM v4's (§10: TEST answers a holder, blocking requests are granted later by callback,
 * the grace period admits only reclaims).
 *
 * Each operation is a step function over one request; nothing here blocks or does I/O.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nfs_lock.h"

struct nfs_lock_host {
	struct nfs_lock_host *next;
	char name[NFS_LOCK_HOST_MAX + 1];
	uint32_t name_len;
	char addr_str[64]; /**< the address as a literal, for notifications naming it */
	struct sockaddr_storage addr;
	uint32_t refs; /**< locks and waiters */
};

/* one granted lock, or one waiter (then tag is what on_grant gets back) */
struct ent {
	struct ent *next;
	struct nfs_lock_host *host;
	int32_t svid;
	uint32_t oh_len;
	uint8_t oh[NFS_LOCK_OH_MAX];
	uint64_t start, end; /**< inclusive; end NFS_LOCK_EOF: to EOF */
	bool excl;
	uint32_t tag_len;
	uint8_t tag[NFS_LOCK_TAG_MAX];
};

struct nfs_lock_file {
	struct nfs_lock_file *next; /**< in its bucket */
	struct nfs_lock_key key;
	struct ent *locks;
	struct ent *waiters; /**< arrival order */
};

static const char *const status_names[NFS_LOCK_STATUS_NUM] = {
	[NFS_LOCK_GRANTED] = "GRANTED", [NFS_LOCK_DENIED] = "DENIED",
	[NFS_LOCK_BLOCKED] = "BLOCKED", [NFS_LOCK_GRACE] = "GRACE",
	[NFS_LOCK_NOLOCKS] = "NOLOCKS", [NFS_LOCK_INVAL] = "INVAL"};

const char *nfs_lock_status_name(enum nfs_lock_status s)
{
	return s < NFS_LOCK_STATUS_NUM ? status_names[s] : "unknown";
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_ms(const struct nfs_lock_mgr *m)
{
	return m->conf.now_ms ? m->conf.now_ms() : mono_ms();
}

int nfs_lock_mgr_init(struct nfs_lock_mgr *m, const struct nfs_lock_conf *conf)
{
	memset(m, 0, sizeof(*m));
	m->conf = *conf;
	if (!m->conf.max_locks)
		m->conf.max_locks = 65536;
	m->grace_end_ms = now_ms(m) + m->conf.grace_ms;
	return 0;
}

bool nfs_lock_in_grace(const struct nfs_lock_mgr *m)
{
	return m->conf.grace_ms && now_ms(m) < m->grace_end_ms;
}

/* ---- ranges ---- */

/* XNFS: length 0 locks to the end of the file, whatever it grows to; an offset + length past
 * 2^64 does the same (there is nothing beyond) */
static uint64_t range_end(uint64_t off, uint64_t len)
{
	if (len == 0 || len - 1 > NFS_LOCK_EOF - off)
		return NFS_LOCK_EOF;
	return off + len - 1;
}

static uint64_t range_len(uint64_t start, uint64_t end)
{
	return end == NFS_LOCK_EOF ? 0 : end - start + 1;
}

static bool overlap(const struct ent *e, uint64_t s, uint64_t end)
{
	return e->start <= end && s <= e->end;
}

/* touching without overlapping: [a..b][b+1..] */
static bool adjacent(const struct ent *e, uint64_t s, uint64_t end)
{
	return (e->end != NFS_LOCK_EOF && e->end + 1 == s) ||
	       (end != NFS_LOCK_EOF && end + 1 == e->start);
}

/* ---- hosts ---- */

static bool name_eq(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	if (alen != blen)
		return false;
	for (uint32_t i = 0; i < alen; i++) {
		char x = a[i], y = b[i];

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

/* a notification names a host by its caller_name, or by its address */
static bool host_matches(const struct nfs_lock_host *h, const char *name, uint32_t len)
{
	return name_eq(h->name, h->name_len, name, len) ||
	       (h->addr_str[0] && name_eq(h->addr_str, (uint32_t)strlen(h->addr_str), name, len));
}

static void addr_literal(const struct sockaddr_storage *a, char *buf, size_t len)
{
	buf[0] = '\0';
	if (a->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)len);
	else if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, buf,
			  (socklen_t)len);
}

/* find or make the host named name (exactly, ignoring case); its address is the latest seen */
static struct nfs_lock_host *host_get(struct nfs_lock_mgr *m, const char *name, uint32_t len,
				      const struct sockaddr_storage *addr)
{
	struct nfs_lock_host *h;

	for (h = m->hosts; h; h = h->next)
		if (name_eq(h->name, h->name_len, name, len))
			break;
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return NULL;
		memcpy(h->name, name, len);
		h->name_len = len;
		h->next = m->hosts;
		m->hosts = h;
	}
	if (addr && addr->ss_family != AF_UNSPEC) {
		h->addr = *addr;
		addr_literal(addr, h->addr_str, sizeof(h->addr_str));
	}
	return h;
}

static void host_put(struct nfs_lock_mgr *m, struct nfs_lock_host *h)
{
	struct nfs_lock_host **p;

	if (--h->refs)
		return;
	for (p = &m->hosts; *p != h; p = &(*p)->next)
		;
	*p = h->next;
	free(h);
}

bool nfs_lock_host_known(const struct nfs_lock_mgr *m, const char *name, uint32_t len)
{
	for (const struct nfs_lock_host *h = m->hosts; h; h = h->next)
		if (host_matches(h, name, len))
			return true;
	return false;
}

/* ---- files ---- */

static uint32_t key_hash(const struct nfs_lock_key *k)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (uint32_t i = 0; i < k->len; i++)
		h = (h ^ k->b[i]) * 16777619u;
	return h % NFS_LOCK_BUCKETS;
}

static struct nfs_lock_file *file_find(struct nfs_lock_mgr *m, const struct nfs_lock_key *k,
				       bool create)
{
	struct nfs_lock_file **b = &m->buckets[key_hash(k)], *f;

	for (f = *b; f; f = f->next)
		if (f->key.len == k->len && !memcmp(f->key.b, k->b, k->len))
			return f;
	if (!create || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->key = *k;
	f->next = *b;
	*b = f;
	m->nfiles++;
	return f;
}

static void file_put(struct nfs_lock_mgr *m, struct nfs_lock_file *f)
{
	struct nfs_lock_file **p;

	if (f->locks || f->waiters)
		return;
	for (p = &m->buckets[key_hash(&f->key)]; *p != f; p = &(*p)->next)
		;
	*p = f->next;
	m->nfiles--;
	free(f);
}

/* ---- entries ---- */

static bool same_owner(const struct ent *e, const struct nfs_lock_host *h, int32_t svid,
		       const uint8_t *oh, uint32_t oh_len)
{
	return e->host == h && e->svid == svid && e->oh_len == oh_len && !memcmp(e->oh, oh, oh_len);
}

static struct ent *ent_new(struct nfs_lock_mgr *m, struct nfs_lock_host *h, int32_t svid,
			   const uint8_t *oh, uint32_t oh_len, uint64_t s, uint64_t end, bool excl)
{
	struct ent *e = malloc(sizeof(*e));

	if (!e)
		return NULL;
	e->next = NULL;
	e->host = h;
	h->refs++;
	e->svid = svid;
	e->oh_len = oh_len;
	memcpy(e->oh, oh, oh_len);
	e->start = s;
	e->end = end;
	e->excl = excl;
	e->tag_len = 0;
	m->nlocks++;
	return e;
}

static struct ent *ent_copy(struct nfs_lock_mgr *m, const struct ent *o, uint64_t s, uint64_t end)
{
	return ent_new(m, o->host, o->svid, o->oh, o->oh_len, s, end, o->excl);
}

static void ent_free(struct nfs_lock_mgr *m, struct ent *e)
{
	m->nlocks--;
	host_put(m, e->host);
	free(e);
}

static void holder_of(const struct ent *e, struct nfs_lock_holder *h)
{
	h->exclusive = e->excl;
	h->svid = e->svid;
	h->oh_len = e->oh_len;
	memcpy(h->oh, e->oh, e->oh_len);
	h->off = e->start;
	h->len = range_len(e->start, e->end);
}

/* the first lock of another owner that [s, end] conflicts with (one of them exclusive) */
static const struct ent *conflict(const struct nfs_lock_file *f, const struct nfs_lock_host *h,
				  int32_t svid, const uint8_t *oh, uint32_t oh_len, uint64_t s,
				  uint64_t end, bool excl)
{
	for (const struct ent *e = f->locks; e; e = e->next)
		if (overlap(e, s, end) && (excl || e->excl) && !same_owner(e, h, svid, oh, oh_len))
			return e;
	return NULL;
}

/* Take the owner's parts of [s, end] away (UNLOCK, and the first half of LOCK). A lock cut
 * in the middle leaves two: the copy may fail for memory, and then the right part is lost
 * (an unlock never fails). @return whether an exclusive range went (waiters may now fit) */
static bool cut(struct nfs_lock_mgr *m, struct nfs_lock_file *f, struct nfs_lock_host *h,
		int32_t svid, const uint8_t *oh, uint32_t oh_len, uint64_t s, uint64_t end)
{
	struct ent **p = &f->locks, *e;
	bool freed = false;

	while ((e = *p)) {
		if (!same_owner(e, h, svid, oh, oh_len) || !overlap(e, s, end)) {
			p = &e->next;
			continue;
		}
		freed = true;
		if (e->start < s && e->end > end) { /* split: [start, s-1] and [end+1, e->end] */
			struct ent *r = ent_copy(m, e, end + 1, e->end);

			m->st.splits++;
			e->end = s - 1;
			if (r) {
				r->next = e->next;
				e->next = r;
				p = &r->next;
			} else {
				p = &e->next;
			}
		} else if (e->start < s) {
			e->end = s - 1;
			p = &e->next;
		} else if (e->end > end) {
			e->start = end + 1;
			p = &e->next;
		} else {
			*p = e->next;
			ent_free(m, e);
		}
	}
	return freed;
}

/* POSIX F_SETLK for an owner with no conflict: its overlapping ranges are replaced, and
 * ranges of the same kind that overlap or touch are merged into the new one.
 * @return 0 or -ENOMEM */
static int apply(struct nfs_lock_mgr *m, struct nfs_lock_file *f, struct nfs_lock_host *h,
		 int32_t svid, const uint8_t *oh, uint32_t oh_len, uint64_t s, uint64_t end,
		 bool excl)
{
	struct ent **p = &f->locks, *e, *n;

	/* the new lock first, so that a failure changes nothing */
	n = ent_new(m, h, svid, oh, oh_len, s, end, excl);
	if (!n)
		return -ENOMEM;
	/* same kind, overlapping or touching: absorbed into the new range */
	while ((e = *p)) {
		if (same_owner(e, h, svid, oh, oh_len) && e->excl == excl &&
		    (overlap(e, n->start, n->end) || adjacent(e, n->start, n->end))) {
			if (e->start < n->start)
				n->start = e->start;
			if (e->end > n->end)
				n->end = e->end;
			*p = e->next;
			ent_free(m, e);
			continue;
		}
		p = &e->next;
	}
	/* the other kind: the part under the new range goes (split when inside) */
	cut(m, f, h, svid, oh, oh_len, n->start, n->end);
	n->next = f->locks;
	f->locks = n;
	return 0;
}

/* Grant every waiter that fits now, in arrival order. */
static void wake(struct nfs_lock_mgr *m, struct nfs_lock_file *f)
{
	struct ent **p = &f->waiters, *w;

	while ((w = *p)) {
		struct nfs_lock_grant g;

		if (conflict(f, w->host, w->svid, w->oh, w->oh_len, w->start, w->end, w->excl) ||
		    apply(m, f, w->host, w->svid, w->oh, w->oh_len, w->start, w->end, w->excl)) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		m->st.granted_waiters++;
		if (m->conf.on_grant) {
			g = (struct nfs_lock_grant){.file = &f->key,
						    .host = w->host->name,
						    .host_len = w->host->name_len,
						    .addr = &w->host->addr,
						    .svid = w->svid,
						    .oh = w->oh,
						    .oh_len = w->oh_len,
						    .off = w->start,
						    .len = range_len(w->start, w->end),
						    .exclusive = w->excl,
						    .tag = w->tag,
						    .tag_len = w->tag_len};
			m->conf.on_grant(m->conf.ctx, &g);
		}
		ent_free(m, w);
	}
}

/* the owner's queued request for exactly this range and kind */
static struct ent **waiter_find(struct nfs_lock_file *f, const struct nfs_lock_host *h,
				int32_t svid, const uint8_t *oh, uint32_t oh_len, uint64_t s,
				uint64_t end, bool excl)
{
	struct ent **p;

	for (p = &f->waiters; *p; p = &(*p)->next)
		if (same_owner(*p, h, svid, oh, oh_len) && (*p)->start == s && (*p)->end == end &&
		    (*p)->excl == excl)
			return p;
	return NULL;
}

/* ---- the operations: one step function each ---- */

struct op_ctx {
	struct nfs_lock_mgr *m;
	const struct nfs_lock_req *q;
	struct nfs_lock_res *r;
	struct nfs_lock_host *h;
	uint64_t s, end;
};

static enum nfs_lock_status op_test(struct op_ctx *c)
{
	struct nfs_lock_file *f = file_find(c->m, &c->q->file, false);
	const struct ent *e;

	if (nfs_lock_in_grace(c->m))
		return NFS_LOCK_GRACE;
	if (!f)
		return NFS_LOCK_GRANTED;
	e = conflict(f, c->h, c->q->owner.svid, c->q->owner.oh, c->q->owner.oh_len, c->s, c->end,
		     c->q->exclusive);
	if (!e)
		return NFS_LOCK_GRANTED;
	holder_of(e, &c->r->holder);
	return NFS_LOCK_DENIED;
}

static enum nfs_lock_status queue_waiter(struct op_ctx *c, struct nfs_lock_file *f)
{
	const struct nfs_lock_req *q = c->q;
	struct ent **p = waiter_find(f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s,
				     c->end, q->exclusive);
	struct ent *w;

	if (p) {
		w = *p; /* a retransmission or the client's periodic retry: one waiter */
	} else {
		if (c->m->nlocks >= c->m->conf.max_locks)
			return NFS_LOCK_NOLOCKS;
		w = ent_new(c->m, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end,
			    q->exclusive);
		if (!w)
			return NFS_LOCK_NOLOCKS;
		for (p = &f->waiters; *p; p = &(*p)->next)
			;
		*p = w;
	}
	w->tag_len = q->tag_len;
	if (q->tag_len)
		memcpy(w->tag, q->tag, q->tag_len);
	return NFS_LOCK_BLOCKED;
}

static enum nfs_lock_status op_lock(struct op_ctx *c)
{
	const struct nfs_lock_req *q = c->q;
	struct nfs_lock_file *f;
	const struct ent *e;
	struct ent **p;
	enum nfs_lock_status st;

	if (nfs_lock_in_grace(c->m) && !q->reclaim)
		return NFS_LOCK_GRACE;
	if (q->block && q->tag_len > NFS_LOCK_TAG_MAX)
		return NFS_LOCK_NOLOCKS;
	/* room for the lock and a split it may cause */
	if (c->m->nlocks + 2 > c->m->conf.max_locks)
		return NFS_LOCK_NOLOCKS;
	f = file_find(c->m, &q->file, true);
	if (!f)
		return NFS_LOCK_NOLOCKS;
	e = conflict(f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end,
		     q->exclusive);
	if (e) {
		holder_of(e, &c->r->holder);
		st = q->block ? queue_waiter(c, f) : NFS_LOCK_DENIED;
		file_put(c->m, f);
		return st;
	}
	if (apply(c->m, f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end,
		  q->exclusive)) {
		file_put(c->m, f);
		return NFS_LOCK_NOLOCKS;
	}
	if (q->reclaim)
		c->m->st.reclaims++;
	/* granted on a retry while still queued: the waiter must not be granted again */
	p = waiter_find(f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end,
			q->exclusive);
	if (p) {
		struct ent *w = *p;

		*p = w->next;
		ent_free(c->m, w);
	}
	wake(c->m, f); /* a downgrade may let waiters in */
	return NFS_LOCK_GRANTED;
}

static enum nfs_lock_status op_cancel(struct op_ctx *c)
{
	const struct nfs_lock_req *q = c->q;
	struct nfs_lock_file *f = file_find(c->m, &q->file, false);
	struct ent **p, *w;

	if (!f)
		return NFS_LOCK_GRANTED;
	p = waiter_find(f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end,
			q->exclusive);
	if (p) {
		w = *p;
		*p = w->next;
		ent_free(c->m, w);
		c->r->removed = 1;
	}
	file_put(c->m, f);
	return NFS_LOCK_GRANTED;
}

static enum nfs_lock_status op_unlock(struct op_ctx *c)
{
	const struct nfs_lock_req *q = c->q;
	struct nfs_lock_file *f = file_find(c->m, &q->file, false);

	if (!f)
		return NFS_LOCK_GRANTED;
	if (cut(c->m, f, c->h, q->owner.svid, q->owner.oh, q->owner.oh_len, c->s, c->end))
		wake(c->m, f);
	file_put(c->m, f);
	return NFS_LOCK_GRANTED;
}

/* drop the entries of hosts matching name from a list; @return how many */
static uint32_t drop_host(struct nfs_lock_mgr *m, struct ent **p, const char *name, uint32_t len)
{
	uint32_t n = 0;
	struct ent *e;

	while ((e = *p)) {
		if (host_matches(e->host, name, len)) {
			*p = e->next;
			ent_free(m, e);
			n++;
			continue;
		}
		p = &e->next;
	}
	return n;
}

static enum nfs_lock_status op_free_host(struct op_ctx *c)
{
	const struct nfs_lock_owner *o = &c->q->owner;

	for (uint32_t b = 0; b < NFS_LOCK_BUCKETS; b++) {
		struct nfs_lock_file *f = c->m->buckets[b], *next;

		for (; f; f = next) {
			uint32_t gone;

			next = f->next;
			c->r->removed += drop_host(c->m, &f->waiters, o->host, o->host_len);
			gone = drop_host(c->m, &f->locks, o->host, o->host_len);
			c->r->removed += gone;
			if (gone)
				wake(c->m, f);
			file_put(c->m, f);
		}
	}
	return NFS_LOCK_GRANTED;
}

typedef enum nfs_lock_status (*op_fn)(struct op_ctx *c);

static const struct {
	op_fn fn;
	bool needs_file;  /**< a key is required */
	bool makes_owner; /**< the request names an owner (a host entry is made) */
} ops[NFS_LOCK_OP_NUM] = {
	[NFS_LOCK_OP_TEST] = {op_test, true, true},
	[NFS_LOCK_OP_LOCK] = {op_lock, true, true},
	[NFS_LOCK_OP_CANCEL] = {op_cancel, true, true},
	[NFS_LOCK_OP_UNLOCK] = {op_unlock, true, true},
	[NFS_LOCK_OP_FREE_HOST] = {op_free_host, false, false},
};

enum nfs_lock_status nfs_lock_process(struct nfs_lock_mgr *m, const struct nfs_lock_req *q,
				      struct nfs_lock_res *r)
{
	struct op_ctx c = {.m = m, .q = q, .r = r};

	memset(r, 0, sizeof(*r));
	if ((unsigned)q->op >= NFS_LOCK_OP_NUM) {
		r->status = NFS_LOCK_INVAL;
		return r->status;
	}
	m->st.op[q->op]++;
	if (ops[q->op].needs_file && (q->file.len == 0 || q->file.len > NFS_LOCK_KEY_MAX)) {
		r->status = NFS_LOCK_INVAL;
	} else if (q->owner.host_len > NFS_LOCK_HOST_MAX || q->owner.oh_len > NFS_LOCK_OH_MAX ||
		   (q->owner.host_len && !q->owner.host) || (q->owner.oh_len && !q->owner.oh)) {
		r->status = NFS_LOCK_NOLOCKS;
	} else if (ops[q->op].makes_owner && !(c.h = host_get(m, q->owner.host ? q->owner.host : "",
							      q->owner.host_len, &q->addr))) {
		r->status = NFS_LOCK_NOLOCKS;
	} else {
		c.s = q->off;
		c.end = range_end(q->off, q->len);
		/* the host is held across the step so that it is not freed under it */
		if (c.h)
			c.h->refs++;
		r->status = ops[q->op].fn(&c);
		if (c.h)
			host_put(m, c.h);
	}
	m->st.status[r->status]++;
	return r->status;
}

bool nfs_lock_owner_holds(struct nfs_lock_mgr *m, const struct nfs_lock_key *file,
			  const struct nfs_lock_owner *o)
{
	const struct nfs_lock_file *f = file_find(m, file, false);

	for (const struct ent *e = f ? f->locks : NULL; e; e = e->next)
		if (host_matches(e->host, o->host, o->host_len) && e->svid == o->svid &&
		    e->oh_len == o->oh_len && !memcmp(e->oh, o->oh, o->oh_len))
			return true;
	return false;
}

void nfs_lock_count(const struct nfs_lock_mgr *m, uint32_t *locks, uint32_t *waiters)
{
	uint32_t l = 0, w = 0;

	for (uint32_t b = 0; b < NFS_LOCK_BUCKETS; b++)
		for (const struct nfs_lock_file *f = m->buckets[b]; f; f = f->next) {
			for (const struct ent *e = f->locks; e; e = e->next)
				l++;
			for (const struct ent *e = f->waiters; e; e = e->next)
				w++;
		}
	*locks = l;
	*waiters = w;
}

void nfs_lock_mgr_fini(struct nfs_lock_mgr *m)
{
	for (uint32_t b = 0; b < NFS_LOCK_BUCKETS; b++) {
		struct nfs_lock_file *f, *nf;

		for (f = m->buckets[b]; f; f = nf) {
			struct ent *e, *n;

			nf = f->next;
			for (e = f->locks; e; e = n) {
				n = e->next;
				ent_free(m, e);
			}
			for (e = f->waiters; e; e = n) {
				n = e->next;
				ent_free(m, e);
			}
			free(f);
		}
		m->buckets[b] = NULL;
	}
	m->nfiles = 0;
}
