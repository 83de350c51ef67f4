/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_neigh.c - the neighbour table of stack/stk_neigh.c: the entry life cycle of
 * stk_neigh.h (a small RFC 4861 §7.3.2), pending queues and their flush, probe retries and
 * giving up, capacity limits, and the open-addressing table itself (deletion must keep every
 * other entry findable, also across the wrap-around at the end of the array).
 *
 * Time is driven by hand: every call gets a TSC value computed from rte_get_tsc_hz(), so no
 * test sleeps or depends on the machine's speed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>

#include "stk_neigh.h"
#include "ut_common.h"

static unsigned in_use_at_start;
static struct stk_neigh_table *tbl;
static uint64_t ms; /* TSC ticks per millisecond */
static uint64_t t0; /* an arbitrary start time */

/* Small numbers so that time arithmetic stays readable. */
#define REACHABLE_MS 1000
#define RETRANS_MS 100
#define MAX_PROBES 3
#define MAX_PENDING 4
#define ENTRIES 16
#define MAX_PENDING_TOTAL 64
#define CAP 6 /* test_pending_total_cap's table */

static void params(struct stk_neigh_params *p)
{
	p->entries = ENTRIES;
	p->reachable_ms = REACHABLE_MS;
	p->retrans_ms = RETRANS_MS;
	p->max_probes = MAX_PROBES;
	p->max_pending = MAX_PENDING;
	p->max_pending_total = MAX_PENDING_TOTAL;
}

static int setup(void **state)
{
	struct stk_neigh_params p;

	in_use_at_start = ut_in_use();
	ms = rte_get_tsc_hz() / 1000;
	t0 = 1000000 * ms;
	params(&p);
	tbl = stk_neigh_create(&p, SOCKET_ID_ANY);
	return tbl ? 0 : -1;
}

static int teardown(void **state)
{
	/* frees whatever is still pending: the pool must be whole again */
	stk_neigh_free(tbl);
	tbl = NULL;
	assert_int_equal(ut_in_use(), in_use_at_start);
	return 0;
}

static struct stk_ipaddr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 4;
	((uint8_t *)&x.v4)[0] = a;
	((uint8_t *)&x.v4)[1] = b;
	((uint8_t *)&x.v4)[2] = c;
	((uint8_t *)&x.v4)[3] = d;
	return x;
}

static struct stk_ipaddr v6(const uint8_t *a)
{
	struct stk_ipaddr x;

	memset(&x, 0, sizeof(x));
	x.family = 6;
	memcpy(x.v6, a, 16);
	return x;
}

static struct rte_ether_addr mac_n(uint8_t n)
{
	struct rte_ether_addr m = {{0x02, 0x11, 0x22, 0x33, 0x44, n}};

	return m;
}

static struct rte_mbuf *new_mbuf(uint8_t tag)
{
	struct rte_mbuf *m = ut_mbuf(&tag, 1);

	assert_non_null(m);
	return m;
}

/* What the flush callback saw. */
static struct {
	unsigned n;
	uint16_t iface[32];
	struct rte_mbuf *m[32];
	struct rte_ether_addr mac[32];
} flushed;

static void flush_cb(void *ctx, uint16_t iface, struct rte_mbuf *m,
		     const struct rte_ether_addr *mac)
{
	assert_ptr_equal(ctx, &flushed);
	assert_true(flushed.n < RTE_DIM(flushed.m));
	flushed.iface[flushed.n] = iface;
	flushed.m[flushed.n] = m;
	flushed.mac[flushed.n] = *mac;
	flushed.n++;
}

static void flushed_free(void)
{
	for (unsigned i = 0; i < flushed.n; i++)
		rte_pktmbuf_free(flushed.m[i]);
	memset(&flushed, 0, sizeof(flushed));
}

/* What the probe callback saw. */
static struct {
	unsigned n;
	struct stk_ipaddr ip[64];
	uint16_t iface[64];
} probed;

static void probe_cb(void *ctx, const struct stk_neigh *n)
{
	assert_ptr_equal(ctx, &probed);
	if (probed.n < RTE_DIM(probed.ip)) {
		probed.ip[probed.n] = n->ip;
		probed.iface[probed.n] = n->iface;
	}
	probed.n++;
}

/* ---------------- create ---------------- */

static void test_create_rejects_bad_params(void **state)
{
	struct stk_neigh_params p;
	struct stk_neigh_table *t;

#define BAD(field, value)                                                                          \
	do {                                                                                       \
		params(&p);                                                                        \
		p.field = value;                                                                   \
		rte_errno = 0;                                                                     \
		assert_null(stk_neigh_create(&p, SOCKET_ID_ANY));                                  \
		assert_int_equal(rte_errno, EINVAL);                                               \
	} while (0)
	BAD(entries, 0);
	BAD(entries, (1u << 20) + 1);
	BAD(reachable_ms, 0);
	BAD(retrans_ms, 0);
	BAD(max_probes, 0);
	BAD(max_pending, 0);
	BAD(max_pending_total, 0);
	BAD(max_pending, STK_NEIGH_MAX_PENDING + 1);
#undef BAD

	/* the defaults and the extremes of the valid ranges */
	stk_neigh_params_default(&p);
	assert_int_equal(p.entries, 1024);
	assert_int_equal(p.reachable_ms, 30000);
	assert_int_equal(p.retrans_ms, 1000);
	assert_int_equal(p.max_probes, 3);
	assert_int_equal(p.max_pending, 4);
	t = stk_neigh_create(&p, SOCKET_ID_ANY);
	assert_non_null(t);
	assert_int_equal(stk_neigh_count(t), 0);
	stk_neigh_free(t);
	params(&p);
	p.entries = 1;
	p.max_pending = STK_NEIGH_MAX_PENDING;
	t = stk_neigh_create(&p, SOCKET_ID_ANY);
	assert_non_null(t);
	stk_neigh_free(t);
	stk_neigh_free(NULL);
}

static void test_state_names(void **state)
{
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_FREE), "free");
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_INCOMPLETE), "incomplete");
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_REACHABLE), "reachable");
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_STALE), "stale");
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_PROBE), "probe");
	assert_string_equal(stk_neigh_state_name(STK_NEIGH_NUM_STATES), "?");
}

/* ---------------- resolution and the pending queue ---------------- */

static void test_resolve_unknown_queues(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac;
	struct stk_neigh *n;

	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	/* the first packet creates the entry and asks for a probe */
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0, new_mbuf(1), &mac),
			 STK_NEIGH_RES_QUEUED_PROBE);
	n = stk_neigh_lookup(tbl, 0, &ip);
	assert_non_null(n);
	assert_int_equal(n->state, STK_NEIGH_INCOMPLETE);
	assert_int_equal(n->nb_pending, 1);
	assert_int_equal(n->probes, 1);
	assert_int_equal(stk_neigh_count(tbl), 1);
	/* later ones just wait: the probe is already out */
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + ms, new_mbuf(2), &mac),
			 STK_NEIGH_RES_QUEUED);
	assert_int_equal(n->nb_pending, 2);
	/* a look-up without a packet queues nothing */
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + ms, NULL, &mac), STK_NEIGH_RES_QUEUED);
	assert_int_equal(n->nb_pending, 2);
	/* a look-up without a packet also starts resolution of a new address */
	ip = v4(192, 0, 2, 3);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0, NULL, &mac),
			 STK_NEIGH_RES_QUEUED_PROBE);
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->nb_pending, 0);
	assert_int_equal(stk_neigh_count(tbl), 2);
}

static void test_pending_limit(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac;
	struct rte_mbuf *m;

	for (unsigned i = 0; i < MAX_PENDING; i++)
		assert_int_not_equal(stk_neigh_resolve(tbl, 0, &ip, t0, new_mbuf((uint8_t)i), &mac),
				     STK_NEIGH_RES_FULL);
	m = new_mbuf(99);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0, m, &mac), STK_NEIGH_RES_FULL);
	/* the caller still owns it */
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->nb_pending, MAX_PENDING);
	rte_pktmbuf_free(m);
}

static void test_update_flushes_pending(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac = mac_n(2), got;
	struct rte_mbuf *m[3];
	struct stk_neigh *n;

	for (unsigned i = 0; i < 3; i++) {
		m[i] = new_mbuf((uint8_t)i);
		stk_neigh_resolve(tbl, 3, &ip, t0, m[i], &got);
	}
	memset(&flushed, 0, sizeof(flushed));
	assert_int_equal(stk_neigh_update(tbl, 3, &ip, &mac, t0 + ms, false, flush_cb, &flushed),
			 1);
	/* each queued packet once, in order, with the new MAC and its interface */
	assert_int_equal(flushed.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_ptr_equal(flushed.m[i], m[i]);
		assert_int_equal(flushed.iface[i], 3);
		assert_true(rte_is_same_ether_addr(&flushed.mac[i], &mac));
	}
	flushed_free();
	n = stk_neigh_lookup(tbl, 3, &ip);
	assert_non_null(n);
	assert_int_equal(n->state, STK_NEIGH_REACHABLE);
	assert_int_equal(n->nb_pending, 0);

	/* now known: sent at once */
	memset(&got, 0, sizeof(got));
	assert_int_equal(stk_neigh_resolve(tbl, 3, &ip, t0 + 2 * ms, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &mac));
	/* the same MAC again is a refresh; another MAC is a change */
	assert_int_equal(
		stk_neigh_update(tbl, 3, &ip, &mac, t0 + 3 * ms, false, flush_cb, &flushed), 0);
	mac = mac_n(7);
	assert_int_equal(
		stk_neigh_update(tbl, 3, &ip, &mac, t0 + 3 * ms, false, flush_cb, &flushed), 1);
	assert_int_equal(stk_neigh_resolve(tbl, 3, &ip, t0 + 4 * ms, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &mac));
	assert_int_equal(flushed.n, 0);
}

static void test_update_without_flush_frees(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac = mac_n(2);

	stk_neigh_resolve(tbl, 0, &ip, t0, new_mbuf(1), &mac);
	stk_neigh_resolve(tbl, 0, &ip, t0, new_mbuf(2), &mac);
	/* no callback: the packets are freed (the teardown counts them) */
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, false, NULL, NULL), 1);
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->nb_pending, 0);
}

static void test_update_create(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 9);
	struct rte_ether_addr mac = mac_n(9), got;

	/* RFC 826 merge: a mapping is only added when asked to */
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, false, NULL, NULL), 0);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	assert_int_equal(stk_neigh_count(tbl), 0);
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL), 1);
	assert_int_equal(stk_neigh_count(tbl), 1);
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->state, STK_NEIGH_REACHABLE);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &mac));
}

/* ---------------- timers ---------------- */

static void test_reachable_stale_probe(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac = mac_n(2), got;
	struct stk_neigh *n;

	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL), 1);
	n = stk_neigh_lookup(tbl, 0, &ip);
	/* just before reachable_ms nothing happens */
	assert_int_equal(stk_neigh_tick(tbl, t0 + (REACHABLE_MS - 1) * ms, probe_cb, &probed), 0);
	assert_int_equal(n->state, STK_NEIGH_REACHABLE);
	/* after it, the entry is stale but still used */
	memset(&probed, 0, sizeof(probed));
	assert_int_equal(stk_neigh_tick(tbl, t0 + (REACHABLE_MS + 1) * ms, probe_cb, &probed), 0);
	assert_int_equal(n->state, STK_NEIGH_STALE);
	assert_int_equal(probed.n, 0);
	/* using a stale entry sends at once and asks for a probe */
	memset(&got, 0, sizeof(got));
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + (REACHABLE_MS + 2) * ms, NULL, &got),
			 STK_NEIGH_RES_OK_PROBE);
	assert_true(rte_is_same_ether_addr(&got, &mac));
	assert_int_equal(n->state, STK_NEIGH_PROBE);
	/* while probing it is still used, without another probe request */
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + (REACHABLE_MS + 3) * ms, NULL, &got),
			 STK_NEIGH_RES_OK);
	/* a confirmation makes it reachable again */
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0 + (REACHABLE_MS + 4) * ms, false,
					  NULL, NULL),
			 0);
	assert_int_equal(n->state, STK_NEIGH_REACHABLE);
}

static void test_stale_unused_removed(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac = mac_n(2);
	uint64_t stale_at = t0 + (REACHABLE_MS + 1) * ms;

	stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL);
	stk_neigh_tick(tbl, stale_at, NULL, NULL);
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->state, STK_NEIGH_STALE);
	/* garbage collection another reachable_ms later */
	stk_neigh_tick(tbl, stale_at + (REACHABLE_MS - 1) * ms, NULL, NULL);
	assert_non_null(stk_neigh_lookup(tbl, 0, &ip));
	stk_neigh_tick(tbl, stale_at + (REACHABLE_MS + 1) * ms, NULL, NULL);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	assert_int_equal(stk_neigh_count(tbl), 0);
}

static void test_probe_retries_then_gives_up(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac;
	uint64_t now = t0;

	/* the caller sent probe 1 (QUEUED_PROBE); tick sends the rest */
	assert_int_equal(stk_neigh_resolve(tbl, 5, &ip, now, new_mbuf(1), &mac),
			 STK_NEIGH_RES_QUEUED_PROBE);
	stk_neigh_resolve(tbl, 5, &ip, now, new_mbuf(2), &mac);
	memset(&probed, 0, sizeof(probed));
	assert_int_equal(stk_neigh_tick(tbl, now + (RETRANS_MS - 1) * ms, probe_cb, &probed), 0);
	assert_int_equal(probed.n, 0);
	for (unsigned k = 2; k <= MAX_PROBES; k++) {
		now += (RETRANS_MS + 1) * ms;
		assert_int_equal(stk_neigh_tick(tbl, now, probe_cb, &probed), 0);
		assert_int_equal(probed.n, k - 1);
		assert_true(stk_ipaddr_eq(&probed.ip[k - 2], &ip));
		assert_int_equal(probed.iface[k - 2], 5);
		assert_int_equal(stk_neigh_lookup(tbl, 5, &ip)->probes, k);
	}
	/* max_probes went unanswered: the entry goes, its two packets are dropped */
	now += (RETRANS_MS + 1) * ms;
	assert_int_equal(stk_neigh_tick(tbl, now, probe_cb, &probed), 2);
	assert_int_equal(probed.n, MAX_PROBES - 1);
	assert_null(stk_neigh_lookup(tbl, 5, &ip));
	assert_int_equal(stk_neigh_count(tbl), 0);
	/* the next packet starts over */
	assert_int_equal(stk_neigh_resolve(tbl, 5, &ip, now, NULL, &mac),
			 STK_NEIGH_RES_QUEUED_PROBE);
}

static void test_probe_state_gives_up(void **state)
{
	struct stk_ipaddr ip = v4(192, 0, 2, 2);
	struct rte_ether_addr mac = mac_n(2), got;
	uint64_t now = t0 + (REACHABLE_MS + 1) * ms;

	stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL);
	stk_neigh_tick(tbl, now, NULL, NULL);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, now, NULL, &got), STK_NEIGH_RES_OK_PROBE);
	memset(&probed, 0, sizeof(probed));
	for (unsigned k = 2; k <= MAX_PROBES; k++) {
		now += (RETRANS_MS + 1) * ms;
		assert_int_equal(stk_neigh_tick(tbl, now, probe_cb, &probed), 0);
		assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->state, STK_NEIGH_PROBE);
	}
	assert_int_equal(probed.n, MAX_PROBES - 1);
	now += (RETRANS_MS + 1) * ms;
	assert_int_equal(stk_neigh_tick(tbl, now, probe_cb, &probed), 0);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
}

/* ---------------- capacity ---------------- */

/*
 * A table full of confirmed (REACHABLE) neighbours refuses a new address: those are never
 * evicted. Once they age to STALE, a new address takes the place of the least recently used.
 */
static void test_table_full(void **state)
{
	struct stk_ipaddr ip;
	struct rte_ether_addr mac = mac_n(1);
	struct rte_mbuf *m;

	for (uint8_t i = 0; i < ENTRIES; i++) {
		ip = v4(10, 0, 0, i);
		assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL), 1);
	}
	assert_int_equal(stk_neigh_count(tbl), ENTRIES);
	ip = v4(10, 0, 1, 0);
	m = new_mbuf(1);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0, m, &mac), STK_NEIGH_RES_NOSPACE);
	rte_pktmbuf_free(m); /* not taken */
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL), -ENOSPC);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	assert_int_equal(stk_neigh_count(tbl), ENTRIES);
	/* existing entries still resolve */
	ip = v4(10, 0, 0, 3);
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, false, NULL, NULL), 0);
	/* all of them go STALE; 10.0.0.3 is used then (and probed), the rest are not */
	stk_neigh_tick(tbl, t0 + (REACHABLE_MS + 1) * ms, NULL, NULL);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + (REACHABLE_MS + 2) * ms, NULL, &mac),
			 STK_NEIGH_RES_OK_PROBE);
	ip = v4(10, 0, 1, 0);
	assert_int_equal(
		stk_neigh_update(tbl, 0, &ip, &mac, t0 + (REACHABLE_MS + 3) * ms, true, NULL, NULL),
		1);
	assert_int_equal(stk_neigh_count(tbl), ENTRIES);
	ip = v4(10, 0, 0, 3);
	assert_non_null(stk_neigh_lookup(tbl, 0, &ip)); /* in use: kept */
}

/*
 * Issue 11 item 10: the table filled from the network and never evicted, so addresses that
 * never answer (INCOMPLETE) or that nobody uses (STALE) locked everyone else out. A new
 * address now takes the slot of the least recently used STALE or INCOMPLETE entry (RFC 4861
 * §7.3.2 leaves the policy open; Linux's neighbour GC also forgets unused entries first);
 * REACHABLE and PROBE entries stay. An evicted INCOMPLETE entry's waiting packets are freed
 * (the teardown checks the pool).
 */
static void test_lru_eviction(void **state)
{
	struct rte_ether_addr mac = mac_n(1);
	struct stk_ipaddr ip;

	/* 8 confirmed, 8 unresolved with a packet each, used at t0 + 1..8 ms */
	for (uint8_t i = 0; i < ENTRIES / 2; i++) {
		ip = v4(10, 0, 0, i);
		assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0, true, NULL, NULL), 1);
	}
	for (uint8_t i = 0; i < ENTRIES / 2; i++) {
		ip = v4(10, 0, 2, i);
		assert_int_equal(
			stk_neigh_resolve(tbl, 0, &ip, t0 + (1u + i) * ms, new_mbuf(i), &mac),
			STK_NEIGH_RES_QUEUED_PROBE);
	}
	/* 10.0.2.0 is used again (another packet): 10.0.2.1 is now the least recently used */
	ip = v4(10, 0, 2, 0);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + 20 * ms, new_mbuf(50), &mac),
			 STK_NEIGH_RES_QUEUED);
	ip = v4(10, 0, 3, 0);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip, t0 + 21 * ms, NULL, &mac),
			 STK_NEIGH_RES_QUEUED_PROBE);
	assert_int_equal(stk_neigh_count(tbl), ENTRIES);
	ip = v4(10, 0, 2, 1);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	ip = v4(10, 0, 2, 0);
	assert_non_null(stk_neigh_lookup(tbl, 0, &ip));
	assert_int_equal(stk_neigh_lookup(tbl, 0, &ip)->nb_pending, 2);
	/* learning from the wire evicts the same way: 10.0.2.2 goes next */
	ip = v4(10, 0, 3, 1);
	assert_int_equal(stk_neigh_update(tbl, 0, &ip, &mac, t0 + 22 * ms, true, NULL, NULL), 1);
	ip = v4(10, 0, 2, 2);
	assert_null(stk_neigh_lookup(tbl, 0, &ip));
	{
		struct stk_neigh_stats st;

		stk_neigh_stats(tbl, &st);
		assert_int_equal(st.evicted, 2);
		assert_int_equal(st.evicted_pending, 2);
	}
	/* the confirmed ones were never candidates */
	for (uint8_t i = 0; i < ENTRIES / 2; i++) {
		ip = v4(10, 0, 0, i);
		assert_non_null(stk_neigh_lookup(tbl, 0, &ip));
	}
}

/*
 * Issue 11 item 10: packets parked for unresolved addresses are capped in the whole table,
 * not only per address (4 each x 1024 addresses was 4096 mbufs). With 6 in total: A takes
 * 4, B 2, then B is refused though it holds only 2; once A resolves, B may park again.
 */
static void test_pending_total_cap(void **state)
{
	struct stk_ipaddr a = v4(10, 0, 0, 1), b = v4(10, 0, 0, 2);
	struct rte_ether_addr mac, am = mac_n(1);
	struct stk_neigh_stats st;
	struct stk_neigh_params p;
	struct rte_mbuf *m;

	params(&p);
	p.max_pending_total = CAP;
	stk_neigh_free(tbl);
	tbl = stk_neigh_create(&p, SOCKET_ID_ANY); /* the teardown frees it */
	assert_non_null(tbl);
	for (unsigned i = 0; i < MAX_PENDING; i++)
		assert_int_not_equal(stk_neigh_resolve(tbl, 0, &a, t0, new_mbuf((uint8_t)i), &mac),
				     STK_NEIGH_RES_FULL);
	for (unsigned i = 0; i < CAP - MAX_PENDING; i++)
		assert_int_not_equal(stk_neigh_resolve(tbl, 0, &b, t0, new_mbuf((uint8_t)i), &mac),
				     STK_NEIGH_RES_FULL);
	m = new_mbuf(99);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &b, t0, m, &mac), STK_NEIGH_RES_FULL);
	stk_neigh_stats(tbl, &st);
	assert_int_equal(st.pending_cap, 1);
	assert_int_equal(st.pending, CAP);
	assert_int_equal(stk_neigh_update(tbl, 0, &a, &am, t0, false, NULL, NULL), 1);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &b, t0, m, &mac), STK_NEIGH_RES_QUEUED);
	stk_neigh_stats(tbl, &st);
	assert_int_equal(st.pending, CAP - MAX_PENDING + 1);
	/* eviction counts what it freed (test_lru_eviction's set-up, shortened) */
	assert_int_equal(st.evicted, 0);
}

/* ---------------- the hash table ---------------- */

/*
 * IPv4 addresses whose hash has the low 10 bits all set: they share one home slot, the last
 * one, in any table of up to 1024 slots, so their probe chain wraps around the array end. The
 * table hashes IPv4 keys with rte_jhash_1word(address, iface); if that changes, the test
 * still checks correctness, only less pointedly.
 */
static unsigned colliding_keys(struct stk_ipaddr *out, unsigned n)
{
	unsigned found = 0;

	for (uint32_t x = 1; found < n && x < (1u << 24); x++) {
		struct stk_ipaddr ip = v4(10, (uint8_t)(x >> 16), (uint8_t)(x >> 8), (uint8_t)x);

		if ((rte_jhash_1word(ip.v4, 0) & 0x3ff) == 0x3ff)
			out[found++] = ip;
	}
	return found;
}

static void test_delete_keeps_chain(void **state)
{
	struct stk_ipaddr k[6];
	struct rte_ether_addr mac, got;
	uint64_t r = REACHABLE_MS * ms;

	assert_int_equal(colliding_keys(k, 6), 6);
	/* even keys learnt at t0, odd ones half a reachable time later, interleaved in the
	 * one chain */
	for (unsigned i = 0; i < 6; i++) {
		mac = mac_n((uint8_t)i);
		assert_int_equal(stk_neigh_update(tbl, 0, &k[i], &mac, i % 2 ? t0 + r / 2 : t0,
						  true, NULL, NULL),
				 1);
	}
	for (unsigned i = 0; i < 6; i++)
		assert_non_null(stk_neigh_lookup(tbl, 0, &k[i]));
	stk_neigh_tick(tbl, t0 + r + ms, NULL, NULL);	      /* evens stale */
	stk_neigh_tick(tbl, t0 + r + r / 2 + ms, NULL, NULL); /* odds stale */
	stk_neigh_tick(tbl, t0 + 2 * r + 2 * ms, NULL, NULL); /* evens collected */
	assert_int_equal(stk_neigh_count(tbl), 3);
	for (unsigned i = 0; i < 6; i++) {
		struct stk_neigh *n = stk_neigh_lookup(tbl, 0, &k[i]);

		if (i % 2 == 0) {
			assert_null(n);
			continue;
		}
		/* every survivor is still found, with its own MAC and state */
		assert_non_null(n);
		assert_int_equal(n->state, STK_NEIGH_STALE);
		mac = mac_n((uint8_t)i);
		assert_true(rte_is_same_ether_addr(&n->mac, &mac));
		assert_int_equal(stk_neigh_resolve(tbl, 0, &k[i], t0 + 2 * r + 3 * ms, NULL, &got),
				 STK_NEIGH_RES_OK_PROBE);
		assert_true(rte_is_same_ether_addr(&got, &mac));
	}
}

static void test_delete_moves_pending(void **state)
{
	struct stk_ipaddr k[8];
	struct rte_mbuf *queued[8];
	struct rte_ether_addr mac;
	uint64_t half = RETRANS_MS / 2 * ms, now;

	/* even keys start resolving at t0, odd ones half a retransmission later; each holds
	 * one packet */
	assert_int_equal(colliding_keys(k, 8), 8);
	for (unsigned i = 0; i < 8; i++) {
		queued[i] = new_mbuf((uint8_t)i);
		assert_int_equal(
			stk_neigh_resolve(tbl, 0, &k[i], i % 2 ? t0 + half : t0, queued[i], &mac),
			STK_NEIGH_RES_QUEUED_PROBE);
	}
	/* tick every half retransmission until the evens have given up */
	for (now = t0 + ms; stk_neigh_count(tbl) == 8 && now < t0 + 100 * RETRANS_MS * ms;
	     now += half)
		stk_neigh_tick(tbl, now, NULL, NULL);
	assert_int_equal(stk_neigh_count(tbl), 4);
	/* the odds, possibly shifted, still own their own packet */
	for (unsigned i = 1; i < 8; i += 2) {
		mac = mac_n((uint8_t)i);
		memset(&flushed, 0, sizeof(flushed));
		assert_int_equal(
			stk_neigh_update(tbl, 0, &k[i], &mac, now, false, flush_cb, &flushed), 1);
		assert_int_equal(flushed.n, 1);
		assert_ptr_equal(flushed.m[0], queued[i]);
		flushed_free();
	}
	for (unsigned i = 0; i < 8; i += 2)
		assert_null(stk_neigh_lookup(tbl, 0, &k[i]));
}

static void test_families_and_ifaces_distinct(void **state)
{
	/* 192.0.2.2 and the IPv6 address whose first four bytes are the same */
	static const uint8_t a6[16] = {192, 0, 2, 2};
	struct stk_ipaddr ip4 = v4(192, 0, 2, 2), ip6 = v6(a6);
	struct rte_ether_addr m4 = mac_n(4), m6 = mac_n(6), m1 = mac_n(1), got;

	assert_int_equal(stk_neigh_update(tbl, 0, &ip4, &m4, t0, true, NULL, NULL), 1);
	assert_int_equal(stk_neigh_update(tbl, 0, &ip6, &m6, t0, true, NULL, NULL), 1);
	assert_int_equal(stk_neigh_update(tbl, 1, &ip4, &m1, t0, true, NULL, NULL), 1);
	assert_int_equal(stk_neigh_count(tbl), 3);
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip4, t0, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &m4));
	assert_int_equal(stk_neigh_resolve(tbl, 0, &ip6, t0, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &m6));
	assert_int_equal(stk_neigh_resolve(tbl, 1, &ip4, t0, NULL, &got), STK_NEIGH_RES_OK);
	assert_true(rte_is_same_ether_addr(&got, &m1));
	assert_null(stk_neigh_lookup(tbl, 1, &ip6));
}

struct walk_ctx {
	struct stk_neigh_table *t;
	unsigned n;
};

static void walk_check(void *ctx, const struct stk_neigh *n)
{
	struct walk_ctx *w = ctx;

	/* every entry in the table can be found from its key */
	assert_int_not_equal(n->state, STK_NEIGH_FREE);
	assert_ptr_equal(stk_neigh_lookup(w->t, n->iface, &n->ip), n);
	w->n++;
}

static void test_random_invariants(void **state)
{
	struct stk_neigh_params p;
	struct stk_neigh_table *t;
	uint64_t now = t0;
	uint32_t rnd = 12345;

	/* a bigger table, driven at random; after each step every entry walk_check() sees is
	 * findable, and the count matches */
	params(&p);
	p.entries = 64;
	t = stk_neigh_create(&p, SOCKET_ID_ANY);
	assert_non_null(t);
	for (unsigned step = 0; step < 5000; step++) {
		struct stk_ipaddr ip;
		struct rte_ether_addr mac;
		struct walk_ctx w = {.t = t};
		unsigned op;

		rnd = rnd * 1103515245u + 12345u;
		op = (rnd >> 16) % 10;
		if ((rnd >> 8) & 1) {
			ip = v4(10, 0, (uint8_t)(rnd >> 20 & 1), (uint8_t)(rnd >> 24));
		} else {
			uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = (uint8_t)(rnd >> 24)};

			ip = v6(a);
		}
		mac = mac_n((uint8_t)rnd);
		if (op < 5) {
			int rc = stk_neigh_update(t, 0, &ip, &mac, now, true, NULL, NULL);

			if (rc >= 0) {
				struct stk_neigh *n = stk_neigh_lookup(t, 0, &ip);

				assert_non_null(n);
				assert_true(rte_is_same_ether_addr(&n->mac, &mac));
			} else {
				assert_int_equal(rc, -ENOSPC);
				assert_int_equal(stk_neigh_count(t), 64);
			}
		} else if (op < 8) {
			stk_neigh_resolve(t, 0, &ip, now, NULL, &mac);
		} else {
			now += ((rnd >> 4) % (2 * REACHABLE_MS)) * ms;
			stk_neigh_tick(t, now, NULL, NULL);
		}
		stk_neigh_walk(t, walk_check, &w);
		assert_int_equal(w.n, stk_neigh_count(t));
		assert_true(w.n <= 64);
	}
	stk_neigh_free(t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_create_rejects_bad_params),
		T(test_state_names),
		T(test_resolve_unknown_queues),
		T(test_pending_limit),
		T(test_update_flushes_pending),
		T(test_update_without_flush_frees),
		T(test_update_create),
		T(test_reachable_stale_probe),
		T(test_stale_unused_removed),
		T(test_probe_retries_then_gives_up),
		T(test_probe_state_gives_up),
		T(test_table_full),
		T(test_lru_eviction),
		T(test_pending_total_cap),
		T(test_delete_keeps_chain),
		T(test_delete_moves_pending),
		T(test_families_and_ifaces_distinct),
		T(test_random_invariants),
	};
	int rc;

	if (ut_eal_init("test_neigh", NULL) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("stk_neigh", tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
