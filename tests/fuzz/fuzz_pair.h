/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pair.h - the two-device lab of the stateful fuzz targets (fuzz_cm_sm, fuzz_rc_engine,
 * fuzz_roce_shapes, fuzz_stk_roce): one process, one lcore polled by hand, two interfaces on
 * crossed net_ring ports (what side 0 sends arrives at side 1 and back), a RoCE device on
 * each, and a third on-link address that a forger can send from. Neighbour entries are
 * pinned, so no frame ever waits for ARP and "every mbuf back in the pool" can be checked
 * right after each input.
 *
 * Options (fuzz_pair_init_opts()) add IPv6 addresses, software PFC, and a second lcore that
 * runs device 1 while the first polls every RX queue, as on a multi-lcore port: frames for
 * device 1 are handed over, and neighbour and PFC news cross on the control rings.
 */
#ifndef FUZZ_PAIR_H
#define FUZZ_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_pkt.h"

/** What fuzz_pair_init_opts() sets up beyond fuzz_pair_init() (all zero: nothing more). */
struct fuzz_pair_opts {
	bool ipv6;	    /**< also fd00:<net>::1 and ::2 (/64) and link-local addresses */
	bool two_lcores;    /**< a second lcore (EAL lcore 1, polled by hand) runs device 1 */
	bool pfc;	    /**< software PFC on both interfaces, RoCE priority 3 lossless */
	uint32_t pfc_xoff;  /**< backlog that sends XOFF (0: never) */
	uint32_t pfc_xon;   /**< ... and XON */
	uint32_t pfc_wd_ms; /**< storm watchdog (0: the default 200 ms) */
	uint64_t link_bps;  /**< for pause times (0: 100 Gbit/s) */
	const struct stk_neigh_params *neigh; /**< NULL: the defaults */
};

struct fuzz_pair {
	struct rte_mempool *pool;
	struct stk_lcore *lc;
	struct stk_lcore *lc2;	  /**< the second lcore (opts.two_lcores), else NULL */
	struct rte_ring *ring[2]; /**< ring[k]: frames on the wire towards side k */
	struct stk_ipaddr ip[2];
	struct rte_ether_addr mac[2];
	struct stk_ipaddr ip6[2]; /**< with opts.ipv6, else family 0 */
	struct stk_ipaddr third;  /**< an address on the link that no device owns */
	struct stk_ipaddr third6; /**< its IPv6 twin (opts.ipv6) */
	struct rte_ether_addr third_mac;
	struct roce_dev *dev[2];
	unsigned base_in_use; /**< mbufs in use once the lab is up */
	unsigned base_allocs; /**< rte_malloc elements then (fuzz_pair_mark()) */
};

/** The input as a bounded cursor: reads past the end give zeros, never overrun. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

/**
 * Start EAL and the lab: interfaces 10.<net>.0.1 and .2, the third address .3, both devices
 * opened and hooked into the lcore's poll. Aborts on failure (start-up only).
 */
void fuzz_pair_init(struct fuzz_pair *fp, const char *tag, uint8_t net);

/** fuzz_pair_init() with the additions of @p o (NULL: none). */
void fuzz_pair_init_opts(struct fuzz_pair *fp, const char *tag, uint8_t net,
			 const struct fuzz_pair_opts *o);

/** Pin the neighbour entries (each side's peer and the third address, IPv4 and IPv6, in every
 * lcore's table) as reachable. */
void fuzz_pair_pin_neigh(struct fuzz_pair *fp);

/** Poll the lcore (both lcores) @p n times. */
void fuzz_pair_poll(struct fuzz_pair *fp, unsigned n);

/** Flush the TX buffers of every lcore of the lab. */
void fuzz_pair_flush(struct fuzz_pair *fp);

/**
 * Tamper with the frames on the wire towards side @p k (TX buffers flushed first), as a
 * lossy, duplicating, reordering link would: @p how % 5 = drop the first, duplicate the
 * first, move the first to the end, drop all, reverse them.
 */
void fuzz_pair_wire(struct fuzz_pair *fp, int k, uint8_t how);

/** Poll until the wire is empty and nothing moves (bounded). */
void fuzz_pair_settle(struct fuzz_pair *fp);

/** Record the mbufs in use and the rte_malloc elements allocated, as the start counts. */
void fuzz_pair_mark(struct fuzz_pair *fp);

/**
 * Abort unless the pool's in-use count and the number of rte_malloc elements (CM ids, event
 * nodes, QPs, MRs: what LeakSanitizer does not see) are back to the marked counts.
 */
void fuzz_pair_check_leaks(struct fuzz_pair *fp, const char *who);

#endif /* FUZZ_PAIR_H */
