/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_neigh.c - open-addressed neighbour table (linear probing, backward-shift deletion),
 * owned by one lcore. See stk_neigh.h for the entry life cycle.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "stk_neigh.h"

struct stk_neigh_table {
	uint32_t mask;
	uint32_t count;
	uint32_t limit; /**< keep the load factor under 3/4 */
	uint64_t reachable;
	uint64_t retrans;
	uint8_t max_probes;
	uint8_t max_pending;
	uint32_t max_pending_total; /**< packets waiting in the whole table, at most */
	uint32_t pending_total;
	struct stk_neigh_stats st;
	struct stk_neigh e[];
};

static const char *const state_names[STK_NEIGH_NUM_STATES] = {
	[STK_NEIGH_FREE] = "free",	     [STK_NEIGH_INCOMPLETE] = "incomplete",
	[STK_NEIGH_REACHABLE] = "reachable", [STK_NEIGH_STALE] = "stale",
	[STK_NEIGH_PROBE] = "probe",
};

const char *stk_neigh_state_name(enum stk_neigh_state s)
{
	return (unsigned)s < STK_NEIGH_NUM_STATES ? state_names[s] : "?";
}

void stk_neigh_params_default(struct stk_neigh_params *p)
{
	p->entries = 1024;
	p->reachable_ms = 30000;
	p->retrans_ms = 1000;
	p->max_probes = 3;
	p->max_pending = 4;
	p->max_pending_total = 256;
}

struct stk_neigh_table *stk_neigh_create(const struct stk_neigh_params *p, int socket)
{
	struct stk_neigh_table *t;
	uint32_t n;

	if (p->entries == 0 || p->entries > (1u << 20) || p->max_probes == 0 ||
	    p->max_pending == 0 || p->max_pending > STK_NEIGH_MAX_PENDING || p->retrans_ms == 0 ||
	    p->reachable_ms == 0 || p->max_pending_total == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	n = rte_align32pow2(p->entries + p->entries / 3 + 1);
	t = rte_zmalloc_socket("stk_neigh", sizeof(*t) + n * sizeof(t->e[0]), RTE_CACHE_LINE_SIZE,
			       socket);
	if (!t) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->mask = n - 1;
	t->limit = p->entries;
	t->reachable = (uint64_t)p->reachable_ms * rte_get_tsc_hz() / 1000;
	t->retrans = (uint64_t)p->retrans_ms * rte_get_tsc_hz() / 1000;
	t->max_probes = p->max_probes;
	t->max_pending = p->max_pending;
	t->max_pending_total = p->max_pending_total;
	return t;
}

static void drop_pending(struct stk_neigh_table *t, struct stk_neigh *n)
{
	for (unsigned i = 0; i < n->nb_pending; i++)
		rte_pktmbuf_free(n->pending[i]);
	t->pending_total -= n->nb_pending;
	n->nb_pending = 0;
}

void stk_neigh_free(struct stk_neigh_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->e[i].state != STK_NEIGH_FREE)
			drop_pending(t, &t->e[i]);
	rte_free(t);
}

static uint32_t hash(uint16_t iface, const struct stk_ipaddr *ip)
{
	if (ip->family == 4)
		return rte_jhash_1word(ip->v4, iface);
	return rte_jhash_32b((const uint32_t *)ip->v6, 4, iface + 6u);
}

static bool match(const struct stk_neigh *n, uint16_t iface, const struct stk_ipaddr *ip)
{
	return n->state != STK_NEIGH_FREE && n->iface == iface && stk_ipaddr_eq(&n->ip, ip);
}

/* Index of the entry, or of the free slot where it would go. */
static uint32_t slot(const struct stk_neigh_table *t, uint16_t iface, const struct stk_ipaddr *ip)
{
	uint32_t i = hash(iface, ip) & t->mask;

	while (t->e[i].state != STK_NEIGH_FREE && !match(&t->e[i], iface, ip))
		i = (i + 1) & t->mask;
	return i;
}

struct stk_neigh *stk_neigh_lookup(struct stk_neigh_table *t, uint16_t iface,
				   const struct stk_ipaddr *ip)
{
	struct stk_neigh *n = &t->e[slot(t, iface, ip)];

	return n->state == STK_NEIGH_FREE ? NULL : n;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void remove_at(struct stk_neigh_table *t, uint32_t i)
{
	uint32_t j = i;

	drop_pending(t, &t->e[i]);
	t->e[i].state = STK_NEIGH_FREE;
	t->count--;
	for (;;) {
		uint32_t home;

		j = (j + 1) & t->mask;
		if (t->e[j].state == STK_NEIGH_FREE)
			return;
		home = hash(t->e[j].iface, &t->e[j].ip) & t->mask;
		/* move e[j] into the hole at i unless its home lies cyclically in (i, j] */
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->e[i] = t->e[j];
			t->e[j].state = STK_NEIGH_FREE;
			t->e[j].nb_pending = 0;
			i = j;
		}
	}
}

/*
 * Make room for one more entry: forget the least recently used STALE or INCOMPLETE one
 * (issue 11 item 10). Entries the network fills the table with (addresses that never answer,
 * neighbours nobody sends to any more) go first; REACHABLE and PROBE entries are in use and
 * stay. RFC 4861 §7.3.2 leaves the policy to the implementation; Linux's neighbour GC also
 * drops unused entries first. An INCOMPLETE entry's waiting packets are freed and counted.
 * One pass over the table, and only when it is full. @return false if nothing can go.
 */
static bool evict_lru(struct stk_neigh_table *t)
{
	uint32_t victim = UINT32_MAX;
	uint64_t oldest = UINT64_MAX;

	for (uint32_t i = 0; i <= t->mask; i++) {
		const struct stk_neigh *n = &t->e[i];

		if ((n->state == STK_NEIGH_STALE || n->state == STK_NEIGH_INCOMPLETE) &&
		    n->used < oldest) {
			oldest = n->used;
			victim = i;
		}
	}
	if (victim == UINT32_MAX)
		return false;
	t->st.evicted++;
	t->st.evicted_pending += t->e[victim].nb_pending;
	remove_at(t, victim);
	return true;
}

/* A new entry for (iface, ip), whose free slot was @i; evicts one if the table is full, which
 * may move the slot. @return the entry, or NULL when the table is full of entries in use. */
static struct stk_neigh *insert(struct stk_neigh_table *t, uint32_t i, uint16_t iface,
				const struct stk_ipaddr *ip, uint64_t now)
{
	struct stk_neigh *n;

	if (t->count >= t->limit) {
		if (!evict_lru(t))
			return NULL;
		i = slot(t, iface, ip); /* the backward shift may have moved the chain */
	}
	n = &t->e[i];
	memset(n, 0, sizeof(*n));
	n->ip = *ip;
	n->iface = iface;
	n->used = now;
	t->count++;
	return n;
}

enum stk_neigh_res stk_neigh_resolve(struct stk_neigh_table *t, uint16_t iface,
				     const struct stk_ipaddr *ip, uint64_t now, struct rte_mbuf *m,
				     struct rte_ether_addr *mac)
{
	uint32_t i = slot(t, iface, ip);
	struct stk_neigh *n = &t->e[i];
	bool fresh = false;

	if (n->state != STK_NEIGH_FREE)
		n->used = now;
	switch (n->state) {
	case STK_NEIGH_REACHABLE:
	case STK_NEIGH_PROBE:
		*mac = n->mac;
		return STK_NEIGH_RES_OK;
	case STK_NEIGH_STALE:
		*mac = n->mac;
		n->state = STK_NEIGH_PROBE;
		n->probes = 1;
		n->deadline = now + t->retrans;
		return STK_NEIGH_RES_OK_PROBE;
	case STK_NEIGH_FREE:
		n = insert(t, i, iface, ip, now);
		if (!n)
			return STK_NEIGH_RES_NOSPACE;
		n->state = STK_NEIGH_INCOMPLETE;
		n->probes = 1;
		n->deadline = now + t->retrans;
		fresh = true;
		break;
	default: /* INCOMPLETE */
		break;
	}
	if (m) {
		if (n->nb_pending >= t->max_pending)
			return STK_NEIGH_RES_FULL;
		if (t->pending_total >= t->max_pending_total) {
			/* the cap on parked packets in the whole table (issue 11 item 10): many
			 * unresolved addresses must not hold the mbuf pool either */
			t->st.pending_cap++;
			return STK_NEIGH_RES_FULL;
		}
		n->pending[n->nb_pending++] = m;
		t->pending_total++;
	}
	return fresh ? STK_NEIGH_RES_QUEUED_PROBE : STK_NEIGH_RES_QUEUED;
}

int stk_neigh_update(struct stk_neigh_table *t, uint16_t iface, const struct stk_ipaddr *ip,
		     const struct rte_ether_addr *mac, uint64_t now, bool create,
		     stk_neigh_flush_fn flush, void *ctx)
{
	uint32_t i = slot(t, iface, ip);
	struct stk_neigh *n = &t->e[i];
	int changed;

	if (n->state == STK_NEIGH_FREE) {
		if (!create)
			return 0;
		n = insert(t, i, iface, ip, now);
		if (!n)
			return -ENOSPC;
		changed = 1;
	} else {
		changed = n->state == STK_NEIGH_INCOMPLETE || !rte_is_same_ether_addr(&n->mac, mac);
	}
	n->mac = *mac;
	n->state = STK_NEIGH_REACHABLE;
	n->probes = 0;
	n->deadline = now + t->reachable;
	for (unsigned k = 0; k < n->nb_pending; k++) {
		if (flush)
			flush(ctx, iface, n->pending[k], mac);
		else
			rte_pktmbuf_free(n->pending[k]);
	}
	t->pending_total -= n->nb_pending;
	n->nb_pending = 0;
	return changed;
}

unsigned stk_neigh_tick(struct stk_neigh_table *t, uint64_t now, stk_neigh_probe_fn probe,
			void *ctx)
{
	unsigned dropped = 0;
	uint32_t i = 0;

	while (i <= t->mask) {
		struct stk_neigh *n = &t->e[i];

		if (n->state == STK_NEIGH_FREE || now < n->deadline) {
			i++;
			continue;
		}
		switch (n->state) {
		case STK_NEIGH_INCOMPLETE:
		case STK_NEIGH_PROBE:
			if (n->probes >= t->max_probes) {
				dropped += n->nb_pending;
				remove_at(t, i);
				continue; /* a shifted entry may now sit at i */
			}
			n->probes++;
			n->deadline = now + t->retrans;
			if (probe)
				probe(ctx, n);
			break;
		case STK_NEIGH_REACHABLE:
			n->state = STK_NEIGH_STALE;
			n->deadline = now + t->reachable;
			break;
		case STK_NEIGH_STALE:
			remove_at(t, i);
			continue;
		default:
			break;
		}
		i++;
	}
	return dropped;
}

void stk_neigh_walk(struct stk_neigh_table *t, void (*fn)(void *ctx, const struct stk_neigh *n),
		    void *ctx)
{
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->e[i].state != STK_NEIGH_FREE)
			fn(ctx, &t->e[i]);
}

uint32_t stk_neigh_count(const struct stk_neigh_table *t)
{
	return t->count;
}

void stk_neigh_stats(const struct stk_neigh_table *t, struct stk_neigh_stats *s)
{
	*s = t->st;
	s->pending = t->pending_total;
}
