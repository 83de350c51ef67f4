/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_neigh.h - the neighbour table: IPv4 (ARP) and IPv6 (ND) address -> MAC.
 *
 * Each lcore owns one table and is the only one to touch it (no locks); what one lcore learns
 * reaches the others as messages on their control rings (stk_lcore.c).
 *
 * Entry life (a small version of RFC 4861 §7.3.2, used for ARP too):
 *   FREE -> INCOMPLETE   first packet to an unknown address: queued, a probe is sent
 *   INCOMPLETE -> REACHABLE  a reply arrives: queued packets are sent
 *   INCOMPLETE -> FREE   max_probes probes unanswered: queued packets are dropped
 *   REACHABLE -> STALE   reachable_ms without confirmation; still used for sending
 *   STALE -> PROBE       used while stale: sent at once, and a probe goes out
 *   PROBE -> REACHABLE   confirmed; PROBE -> FREE after max_probes unanswered
 *   STALE -> FREE        not used for another reachable_ms (garbage collection)
 *   STALE/INCOMPLETE -> FREE  the table is full and a new address needs a slot: the least
 *                        recently used one goes (REACHABLE and PROBE entries never do)
 *
 * Bounds: entries; max_pending packets per address and max_pending_total in the table.
 */
#ifndef STK_NEIGH_H
#define STK_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "stk_pkt.h"

#define STK_NEIGH_MAX_PENDING 16

enum stk_neigh_state {
	STK_NEIGH_FREE,	      /**< slot unused */
	STK_NEIGH_INCOMPLETE, /**< resolving; packets wait in the pending queue */
	STK_NEIGH_REACHABLE,  /**< confirmed within reachable_ms */
	STK_NEIGH_STALE,      /**< unconfirmed, still usable */
	STK_NEIGH_PROBE,      /**< stale and in use: re-resolving */
	STK_NEIGH_NUM_STATES
};

/** @return "free", "incomplete", ... */
const char *stk_neigh_state_name(enum stk_neigh_state s);

struct stk_neigh_params {
	uint32_t entries;	    /**< capacity, rounded up to a power of two (default 1024) */
	uint32_t reachable_ms;	    /**< default 30000 */
	uint32_t retrans_ms;	    /**< time between probes, default 1000 */
	uint8_t max_probes;	    /**< default 3 */
	uint8_t max_pending;	    /**< packets held per unresolved address, <= 16, default 4 */
	uint32_t max_pending_total; /**< packets held in the whole table, default 256 */
};

struct stk_neigh {
	struct stk_ipaddr ip;
	uint16_t iface;
	uint8_t state;	/**< enum stk_neigh_state */
	uint8_t probes; /**< probes sent in this round */
	uint8_t nb_pending;
	struct rte_ether_addr mac;
	uint64_t deadline; /**< TSC: next state change or probe */
	uint64_t used;	   /**< TSC: created or last resolved for sending (LRU eviction) */
	struct rte_mbuf *pending[STK_NEIGH_MAX_PENDING];
};

struct stk_neigh_table;

/** Fill @p p with the defaults above. */
void stk_neigh_params_default(struct stk_neigh_params *p);

/**
 * @return a table, or NULL with rte_errno = EINVAL (bad params) or ENOMEM.
 */
struct stk_neigh_table *stk_neigh_create(const struct stk_neigh_params *p, int socket);

/** Free the table and every packet still pending in it. NULL is a no-op. */
void stk_neigh_free(struct stk_neigh_table *t);

/** @return the entry for (iface, ip), or NULL. */
struct stk_neigh *stk_neigh_lookup(struct stk_neigh_table *t, uint16_t iface,
				   const struct stk_ipaddr *ip);

/** Outcome of stk_neigh_resolve(). */
enum stk_neigh_res {
	STK_NEIGH_RES_OK,	/**< mac is valid: send now */
	STK_NEIGH_RES_OK_PROBE, /**< mac is valid; also send a probe (entry went STALE->PROBE) */
	STK_NEIGH_RES_QUEUED,	/**< packet taken into the pending queue */
	STK_NEIGH_RES_QUEUED_PROBE, /**< queued, and this is a new entry: send the first probe */
	STK_NEIGH_RES_FULL,	    /**< pending queue full: caller still owns the packet */
	STK_NEIGH_RES_NOSPACE,	    /**< table full: caller still owns the packet */
};

/**
 * Find the MAC for @p ip, or queue @p m until it is known.
 * @param m  may be NULL to only look up / start resolution
 */
enum stk_neigh_res stk_neigh_resolve(struct stk_neigh_table *t, uint16_t iface,
				     const struct stk_ipaddr *ip, uint64_t now, struct rte_mbuf *m,
				     struct rte_ether_addr *mac);

/** Called for each pending packet once its neighbour is known; it takes the mbuf. */
typedef void (*stk_neigh_flush_fn)(void *ctx, uint16_t iface, struct rte_mbuf *m,
				   const struct rte_ether_addr *mac);

/**
 * Record that @p ip is at @p mac (an ARP packet or NA was seen).
 * @param create  make a new entry if none exists (true for replies/solicitations aimed at us)
 * @return 1 when an entry was created or changed from unresolved/another MAC, 0 when merely
 *         refreshed or ignored, -ENOSPC when the table is full.
 */
int stk_neigh_update(struct stk_neigh_table *t, uint16_t iface, const struct stk_ipaddr *ip,
		     const struct rte_ether_addr *mac, uint64_t now, bool create,
		     stk_neigh_flush_fn flush, void *ctx);

/** Called by stk_neigh_tick() for each entry that needs a probe now. */
typedef void (*stk_neigh_probe_fn)(void *ctx, const struct stk_neigh *n);

/**
 * Run timers: age entries, send due probes, give up on unresolved ones.
 * @return the number of pending packets dropped because their neighbour never answered.
 */
unsigned stk_neigh_tick(struct stk_neigh_table *t, uint64_t now, stk_neigh_probe_fn probe,
			void *ctx);

/** Visit every used entry (for telemetry and tests). */
void stk_neigh_walk(struct stk_neigh_table *t, void (*fn)(void *ctx, const struct stk_neigh *n),
		    void *ctx);

/** @return the number of used entries. */
uint32_t stk_neigh_count(const struct stk_neigh_table *t);

/** What the table did to stay within its bounds (issue 11 item 10). */
struct stk_neigh_stats {
	uint64_t evicted;	  /**< STALE/INCOMPLETE entries forgotten for a new one */
	uint64_t evicted_pending; /**< packets that waited in evicted entries, freed */
	uint64_t pending_cap;	  /**< packets refused: max_pending_total reached */
	uint64_t pending;	  /**< packets waiting now */
};
void stk_neigh_stats(const struct stk_neigh_table *t, struct stk_neigh_stats *s);

#endif /* STK_NEIGH_H */
