/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_impair.h - fault injection ("impairment") between the port and the stack: frames are
 * dropped, duplicated, reordered, corrupted and delayed at configured rates, reproducibly from
 * a seed. droce's own netem, for the transport loss tests, the interop lab and benchmarks.
 *
 * Position in the packet path, per interface and direction:
 *   RX: rte_eth_rx_burst -> stk_input() -> [impair RX] -> parse / classify / dispatch
 *   TX: stk_tx_frame()   -> [impair TX] -> TX buffer -> rte_eth_tx_burst
 * So the stack's rx_pkts counts frames that came out of the RX impairment, and tx_pkts frames
 * that came out of the TX one; what the impairment does shows in the impair_* counters
 * (stk_stats.h), never as a stack drop reason.
 *
 * Per frame, in this order (each at its own rate, in parts per million):
 *   drop     the frame is freed (impair_dropped)
 *   dup      a deep copy (rte_pktmbuf_copy) follows the original (impair_duplicated); from
 *            here on the two are impaired independently
 *   corrupt  one random bit is flipped at a random offset after the Ethernet header (and its
 *            802.1Q tags), so the IPv4 header checksum, the UDP checksum or the RoCE ICRC
 *            catches it (impair_corrupted). A frame whose buffer is shared (a clone kept for
 *            retransmission, say) is copied first: the bit flips in the copy only. RX checksum
 *            flags a PMD set are cleared, so the stack verifies the checksums itself.
 *   delay    the frame waits delay_us in a queue of STK_IMPAIR_DELAY_SLOTS frames
 *            (impair_delayed); frames not delayed overtake it. When the queue is full the frame
 *            goes on undelayed (impair_delay_full).
 *   reorder  the frame is held back and passed on right after the next frame to reach this
 *            point (impair_reordered): the two swap places. A held frame with no follower
 *            within STK_IMPAIR_HOLD_US is passed on by the loop, late but in order. The frame
 *            right after a held one is never held itself, so with rate p the share of frames
 *            held is p / (1 + p).
 * Delayed and held frames are passed on by stk_lcore_poll(). Frames still waiting when the
 * impairment is changed or the lcore destroyed are freed and counted in impair_dropped.
 *
 * The random numbers come from one xorshift64* generator per lcore, interface and direction,
 * seeded from the configured seed and the lcore's worker index, the interface index and the
 * direction: a run with the same seed, lcores and traffic makes the same decisions.
 *
 * Cost when an interface's impairment for a direction is off: stk_input() / stk_tx_frame()
 * test one pointer of the lcore context, and the loop tests one counter per iteration.
 */
#ifndef STK_IMPAIR_H
#define STK_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;
struct stk_lcore;
struct stk_port_stats;

/** Frames a delay queue holds. */
#define STK_IMPAIR_DELAY_SLOTS 512
/** Longest configurable delay, in microseconds. */
#define STK_IMPAIR_MAX_DELAY_US 1000000
/** A held (reordered) frame is passed on by the loop after this long without a follower. */
#define STK_IMPAIR_HOLD_US 1000
/** Rates are in parts per million: 1 % is 10000. */
#define STK_IMPAIR_PPM 1000000
/** Most frames stk_impair_frame() passes on for one frame: it, its copy, a held one. */
#define STK_IMPAIR_MAX_OUT 3

/** What the configuration syntax of stk_impair_parse() accepts, for error messages. */
#define STK_IMPAIR_SYNTAX                                                                          \
	"comma-separated drop=R, dup=R, reorder=R, corrupt=R, delay=R:T, seed=N, roce_only; "      \
	"R is 0-100% (0.0001% steps, e.g. 0.5%) or 0-1000000ppm, T is 1us-1s (e.g. 200us, "        \
	"2ms); empty or off disables"

/** Which way the impaired frames go. */
enum stk_impair_dir {
	STK_IMPAIR_RX, /**< received frames, before the stack parses them */
	STK_IMPAIR_TX, /**< frames the stack sends, before the TX buffer */
	STK_IMPAIR_NUM_DIRS
};

/** One direction's impairment. All rates zero means off. */
struct stk_impair_conf {
	uint32_t drop_ppm;    /**< frames dropped, parts per million */
	uint32_t dup_ppm;     /**< frames duplicated */
	uint32_t reorder_ppm; /**< frames swapped with the next one */
	uint32_t corrupt_ppm; /**< frames with one bit flipped */
	uint32_t delay_ppm;   /**< frames delayed by delay_us */
	uint32_t delay_us;    /**< 1..STK_IMPAIR_MAX_DELAY_US when delay_ppm is set */
	uint32_t ce_ppm;      /**< ECN-capable frames marked Congestion Experienced */
	uint64_t seed;	      /**< same seed, same decisions */
	bool roce_only;	      /**< impair only UDP to port 4791; ARP, ND and the rest pass */
};

/** Per lcore, interface and direction state; see stk_impair.c. */
struct stk_impair;

/** @return true when @p c is non-NULL and has a non-zero rate. */
bool stk_impair_conf_on(const struct stk_impair_conf *c);

/**
 * Set the impairment of interface @p iface in direction @p dir, for every lcore context that
 * exists now and every one created later. Frames the previous setting still held or delayed
 * are freed and counted in impair_dropped. Each lcore's generator restarts from the seed.
 *
 * Not safe while the lcores run their loop: it changes their contexts without telling them.
 * Call it before stk_run() (stk_setup() does, from the [portN] impair_rx / impair_tx keys), or
 * while no lcore polls (unit tests).
 *
 * @param iface  interface index, below STK_MAX_PORTS (it need not exist yet)
 * @param c      the setting, copied; NULL or all rates zero turns it off
 * @return 0; -EINVAL for a bad @p iface or @p dir, a rate above 1000000 ppm, or a delay rate
 *         with delay_us outside 1..STK_IMPAIR_MAX_DELAY_US; -ENOMEM when an lcore's state
 *         cannot be allocated (the impairment is then off everywhere).
 */
int stk_impair_set(uint16_t iface, enum stk_impair_dir dir, const struct stk_impair_conf *c);

/**
 * Parse the configuration syntax (STK_IMPAIR_SYNTAX), e.g.
 * "drop=1%,dup=1%,reorder=1%,corrupt=0.1%,delay=1%:200us,seed=42,roce_only".
 * Keys may come in any order, each at most once; spaces around items are ignored. Omitted
 * rates are zero, the seed defaults to 0.
 * @param why  receives what is wrong, naming the offending item
 * @return 0 or -EINVAL; @p c is zeroed first in both cases.
 */
int stk_impair_parse(const char *s, struct stk_impair_conf *c, char *why, size_t whylen);

/**
 * Format @p c in the configuration syntax (for logs), "off" when it is off.
 * @return @p buf.
 */
const char *stk_impair_str(const struct stk_impair_conf *c, char *buf, size_t len);

/* ---- for stk_lcore.c ---- */

/**
 * Give a new lcore context the state of every impairment set so far.
 * @return 0 or -ENOMEM (what was made is left for stk_impair_detach()).
 */
int stk_impair_attach(struct stk_lcore *lc);

/** Free an lcore context's impairment state and the frames it still holds. */
void stk_impair_detach(struct stk_lcore *lc);

/**
 * Run one frame through an impairment.
 * @param m    takes it in every case
 * @param out  receives the frames to pass on now, in order: @p m and/or its copy (perhaps
 *             corrupted, perhaps a private copy of @p m), and a frame held back before
 * @return the number of frames in @p out, 0..STK_IMPAIR_MAX_OUT
 */
unsigned stk_impair_frame(struct stk_impair *s, struct rte_mbuf *m, struct rte_mbuf **out);

/**
 * Take the delayed frames due at TSC @p now, then a held frame past its bound.
 * @return the number of frames in @p out (at most @p max); call again while it is @p max.
 */
unsigned stk_impair_due(struct stk_impair *s, uint64_t now, struct rte_mbuf **out, unsigned max);

#endif /* STK_IMPAIR_H */
