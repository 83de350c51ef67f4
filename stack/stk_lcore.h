/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_lcore.h - run-to-completion lcores.
 *
 * Each lcore owns RX queue i of every interface (i = its worker index), TX queue i of every
 * interface, its own neighbour table, counters, impairment state and a control ring. The loop
 * is:
 *   RX burst -> prefetch -> [RX impairment] -> parse/classify -> dispatch (RoCE handler, bound
 *   UDP port, ARP, ND, exception path) -> delayed/held impaired frames -> exception path ->
 *   control ring -> application poll hooks -> deferred one-shot work (stk_lcore_defer) ->
 *   flush TX -> timers.
 * Frames sent go through the TX impairment in stk_tx_frame() (stk_impair.h), then, on an
 * interface in software PFC mode, the PFC holds (stk_pfc_port.h). The loop also releases held
 * frames and sends PFC frames when the receive backlog asks for it.
 * Nothing in it blocks or takes a lock. Work reaches another lcore only through its rte_ring.
 * For latency profiling the loop can log TSC stamps of its stages (struct stk_stamps).
 *
 * The exception path: one lcore (the main one) owns every interface's TAP. Other lcores hand
 * it frames for the kernel through the interface's exc_ring; it writes them to the TAP, and
 * sends what the kernel writes into the TAP out of the port on its own TX queue.
 */
#ifndef STK_LCORE_H
#define STK_LCORE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "stk_iface.h"
#include "stk_impair.h"
#include "stk_neigh.h"
#include "stk_pkt.h"
#include "stk_stats.h"
#include "stk_tx.h"

#define STK_BURST 32
#define STK_MAX_POLL 8
#define STK_MAX_DEFER 16

struct stk_lcore;
struct stk_pfc_port;

/**
 * Receive hook for a bound UDP port (and for RoCE on 4791).
 * @param m    the whole frame; p tells where the UDP payload is
 * @return 0 when the hook took @p m; non-zero leaves it with the stack, which frees it and
 *         counts a "handler_refused" drop.
 */
typedef int (*stk_udp_rx_fn)(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
			     const struct stk_pkt *p, void *arg);

/** Application work run once per loop iteration on the lcore. */
typedef void (*stk_poll_fn)(struct stk_lcore *lc, void *arg);

struct stk_rxq {
	uint16_t iface;
	uint16_t port_id;
	uint16_t queue;
};

/** What a stamp marks (struct stk_stamps). */
enum stk_stamp_kind {
	STK_STAMP_RX_BURST, /**< an RX burst returned frames; arg: the interface */
	STK_STAMP_DELIVER,  /**< a UDP datagram (RoCE included) parsed and classified, handed to
			     *   its handler; arg: the interface */
	STK_STAMP_TX_START, /**< stk_lcore_flush() found frames buffered: before the TX burst */
	STK_STAMP_TX_END,   /**< after it; arg: frames sent */
	STK_STAMP_APP,	    /**< the application's own (stk_stamp()); arg: its code */
	STK_STAMP_NUM_KINDS
};

#define STK_STAMPS_MAX 64

/**
 * A log of TSC stamps of the stages frames pass on one lcore, for the latency profiler
 * (bench/droce-lat.c, docs/latency.md): point lc->stamps at one to turn it on, NULL (the
 * default) for off. The loop appends an entry at each event while there is room; the
 * application reads the log and empties it (n = 0), typically once per round trip, and may
 * add its own marks with stk_stamp(). Off, it costs one pointer test per non-empty RX burst,
 * per delivered datagram and per flush.
 */
struct stk_stamps {
	uint32_t n;	   /**< entries used */
	uint32_t overflow; /**< events lost because the log was full */
	struct {
		uint64_t tsc;
		uint16_t kind; /**< enum stk_stamp_kind */
		uint16_t arg;
	} ev[STK_STAMPS_MAX];
};

#define STK_MAX_STEPS 24

/**
 * What a thread did over a span of time, from getrusage(RUSAGE_THREAD): CPU time in user and
 * kernel mode, the times it gave up the CPU itself (it slept or blocked: a syscall, a page
 * fault's disk read), the times the kernel took the CPU from it (it waited for one), and its
 * page faults. tsc: when it was taken, or in a difference, the span's length.
 */
struct stk_usage {
	uint64_t tsc, user_us, sys_us, vcsw, ivcsw, minflt, majflt;
};

/** A part of the loop, by name, and how often it ran long (struct stk_lcore's steps). */
struct stk_step_stat {
	const char *name; /**< NULL: a free slot */
	uint64_t slow;	  /**< runs of STK_SLOW_STEP_MS or more */
	uint64_t max_tsc; /**< the longest of them */
};

/** The longest slow step an lcore had, and what its thread did around it. */
struct stk_stall {
	const char *step; /**< NULL: none yet */
	uint64_t tsc;	  /**< its length */
	/** usage from the sample before it began (at most one timer tick, 100 ms, earlier) to
	 *  its end; use.tsc is that window's length */
	struct stk_usage use;
};

/** A step of the loop that runs this long is slow: counted, and its thread's usage sampled. */
#define STK_SLOW_STEP_MS 10
/** One this long logs a WARNING (at most one a second per lcore). */
#define STK_STALL_WARN_MS 100

struct stk_lcore {
	unsigned lcore_id;
	unsigned index; /**< worker index: its RX/TX queue number */
	bool exc_owner; /**< owns the TAPs and the exception rings */
	uint16_t nb_rxq;
	struct stk_rxq rxq[STK_MAX_PORTS];
	struct rte_eth_dev_tx_buffer *txb[STK_MAX_PORTS];
	struct rte_eth_dev_tx_buffer *exc_txb[STK_MAX_PORTS];
	/** impairment per interface and direction; NULL = off (stk_impair_set()) */
	struct stk_impair *impair[STK_MAX_PORTS][STK_IMPAIR_NUM_DIRS];
	unsigned nb_impair; /**< non-NULL entries of impair[]: the loop looks when non-zero */
	/** software PFC per interface (stk_pfc_port.h); NULL = the interface is not in SW mode */
	struct stk_pfc_port *pfc[STK_MAX_PORTS];
	unsigned nb_pfc; /**< non-NULL entries of pfc[]: the loop looks when non-zero */
	struct stk_neigh_table *neigh;
	struct stk_neigh_stats neigh_seen; /**< its stats at the last tick (for the counters) */
	struct rte_ring *ctrl;		   /**< messages from other lcores */
	struct rte_mempool *pool;	   /**< mbufs for frames this lcore originates */
	uint64_t next_tick;		   /**< TSC of the next timer run */
	uint64_t tick_period;
	unsigned nb_poll;
	struct {
		stk_poll_fn fn;
		void *arg;
		const char *name; /**< its step's name (stk_lcore_add_poll_as) */
	} poll[STK_MAX_POLL];
	unsigned nb_defer; /**< one-shot work queued by stk_lcore_defer() */
	struct {
		stk_poll_fn fn;
		void *arg;
	} defer[STK_MAX_DEFER];
	struct stk_port_stats stats[STK_MAX_PORTS];
	/* idle back-off (stk_lcore_set_idle): 0 = spin */
	uint64_t idle_sleep_ns, idle_after_cycles;
	uint64_t last_busy, tx_seen;
	unsigned work;		   /**< stk_lcore_work() since the last look */
	uint64_t idle_sleeps;	   /**< sleeps taken (telemetry: /droce/lcores) */
	struct stk_stamps *stamps; /**< stage stamps for latency profiling; NULL = off */
	/* The slow-step meter (stk_lcore_step). Every part of the loop is a step: the RX burst
	 * and what it delivered, the exception path, the control ring, each poll hook and the
	 * parts a hook marks itself, the deferred work, the flush and the timers; and under
	 * stk_lcore_main, the time between two polls. A step of STK_SLOW_STEP_MS or more is
	 * counted under its name, so a stall points at the code that took it, and the thread's
	 * usage says whether that code ran, blocked or waited for a CPU. Telemetry:
	 * /droce/lcores. */
	uint64_t step_t0;	   /**< TSC the current step began; 0 = not timing */
	const char *step;	   /**< its name */
	uint64_t slow_tsc;	   /**< STK_SLOW_STEP_MS in TSC cycles */
	uint64_t slow_steps;	   /**< slow steps, all names */
	uint64_t warn_next;	   /**< no stall WARNING before this TSC */
	bool in_main;		   /**< stk_lcore_main runs this lcore */
	struct stk_usage use_base; /**< the last usage sample (each timer tick, each slow step) */
	struct stk_stall worst;	   /**< the longest slow step */
	struct stk_step_stat steps[STK_MAX_STEPS]; /**< the last slot takes every name past it */
};

/** Count a slow step (stk_lcore_step's slow path): the one running on @p lc ended at @p now. */
void stk_lcore_slow_step(struct stk_lcore *lc, uint64_t now);

/**
 * End the step running on @p lc and begin @p name (a string that lives as long as the lcore:
 * a literal). The loop marks its own parts; a poll hook marks the parts of its own work, so
 * a slow one is named (the part after a hook's last mark runs under that mark until the loop's
 * next). Costs one TSC read; a slow step (STK_SLOW_STEP_MS or more) costs a getrusage().
 * @return the TSC read (the step's start), for a caller that needs the time anyway.
 */
static inline uint64_t stk_lcore_step(struct stk_lcore *lc, const char *name)
{
	uint64_t now = rte_rdtsc();

	if (unlikely(lc->step_t0 != 0 && now - lc->step_t0 >= lc->slow_tsc))
		stk_lcore_slow_step(lc, now);
	lc->step_t0 = now;
	lc->step = name;
	return now;
}

/**
 * Idle back-off: once @p lc's loop has received nothing, sent nothing and heard of no work
 * (stk_lcore_work) for @p after_us, it sleeps @p sleep_us between rounds until something
 * happens, so an idle lcore gives its core back. The price: up to @p sleep_us more latency
 * for the first packet after a quiet spell. sleep_us 0 spins (the default).
 */
void stk_lcore_set_idle(struct stk_lcore *lc, uint32_t sleep_us, uint32_t after_us);

/** A poll hook did work that no frame shows (a helper thread's job came back, a socket was
 * read): keeps the lcore from backing off. */
static inline void stk_lcore_work(struct stk_lcore *lc, unsigned n)
{
	lc->work += n;
}

/** @return the stack's lcore context of EAL lcore @p lcore_id, or NULL. */
/** Append a stamp of @p kind to @p st now (nothing when it is full). */
static inline void stk_stamps_add(struct stk_stamps *st, enum stk_stamp_kind kind, uint16_t arg)
{
	if (st->n < STK_STAMPS_MAX) {
		st->ev[st->n].tsc = rte_rdtsc();
		st->ev[st->n].kind = (uint16_t)kind;
		st->ev[st->n].arg = arg;
		st->n++;
	} else {
		st->overflow++;
	}
}

/** The application's own mark @p code in @p lc's stamp log, when it has one. */
static inline void stk_stamp(struct stk_lcore *lc, uint16_t code)
{
	if (lc->stamps)
		stk_stamps_add(lc->stamps, STK_STAMP_APP, code);
}

struct stk_lcore *stk_lcore_get(unsigned lcore_id);

/** @return the calling lcore's context, or NULL when it runs none. */
struct stk_lcore *stk_lcore_self(void);

/**
 * Bind @p fn to UDP destination port @p port (STK_ROCE_UDP_PORT for the roce layer).
 * Call before stk_run(). Unbound ports go to the kernel.
 * @return 0; -EEXIST when already bound; -ENOSPC when the table is full; -EINVAL for port 0.
 */
int stk_udp_bind(uint16_t port, stk_udp_rx_fn fn, void *arg);

/** Remove a binding. @return 0 or -ENOENT. */
int stk_udp_unbind(uint16_t port);

/** Add an application poll hook to @p lc. @return 0 or -ENOSPC. */
int stk_lcore_add_poll(struct stk_lcore *lc, stk_poll_fn fn, void *arg);

/** stk_lcore_add_poll(), with the name its step is counted under when slow (a literal;
 *  stk_lcore_add_poll names it "hook N", N its place in the loop). */
int stk_lcore_add_poll_as(struct stk_lcore *lc, stk_poll_fn fn, void *arg, const char *name);

/**
 * Run @p fn(lc, arg) once, at the end of the current iteration of @p lc's loop: after every
 * poll hook, before the TX flush (a doorbell: work a hook started leaves in this iteration's
 * TX burst). A pair already queued is not queued twice. Work deferred while the deferred work
 * runs runs in the same pass. Call on @p lc's own lcore.
 * @return 0; -ENOSPC when STK_MAX_DEFER pairs are queued.
 */
int stk_lcore_defer(struct stk_lcore *lc, stk_poll_fn fn, void *arg);

/** Remove a queued stk_lcore_defer() pair (its @p arg is about to be freed). */
void stk_lcore_defer_cancel(struct stk_lcore *lc, stk_poll_fn fn, void *arg);

/**
 * Handle one received frame from @p ifc: through the interface's RX impairment when one is
 * set, then parse, classify and dispatch. Takes @p m in every case.
 */
void stk_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m);

/**
 * Queue a complete frame for transmission on @p ifc through this lcore's TX queue, after the
 * interface's TX impairment when one is set.
 * Takes @p m in every case (a full TX buffer is a counted drop).
 */
void stk_tx_frame(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m);

/**
 * stk_tx_frame() for @p n frames at once: the same impairment, PFC hold, counters and drops.
 * With neither set on @p ifc, the frames go to the TX queue in one burst, after what this
 * lcore's TX buffer already holds (order is kept); what the queue does not take is a counted
 * drop. For generators, whose per-frame buffering would cost more than the frame.
 * Takes every frame of @p ms.
 */
void stk_tx_frames(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf **ms,
		   unsigned n);

/**
 * Put @p m in this lcore's TX buffer for @p ifc, counted: no impairment, no PFC hold.
 * For the layers below stk_tx_frame() (impairment release, PFC release). Takes @p m.
 */
static inline void stk_tx_enqueue(struct stk_lcore *lc, const struct stk_iface *ifc,
				  struct rte_mbuf *m)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];

	st->c[STK_CNT_tx_pkts]++;
	st->c[STK_CNT_tx_bytes] += rte_pktmbuf_pkt_len(m);
	rte_eth_tx_buffer(ifc->port_id, (uint16_t)lc->index, lc->txb[ifc->idx], m);
}

/**
 * Frame the UDP payload in @p m per @p f and send it, resolving the next hop first (the frame
 * waits in the neighbour table while ARP/ND runs).
 * @return 0 when sent or queued (the stack owns @p m); -errno otherwise, and the caller
 *         still owns @p m: -EINVAL / -EADDRNOTAVAIL / -EMSGSIZE / -ENOSPC from
 *         stk_udp_encap(), -ENETUNREACH without a route, -ENOBUFS when the neighbour's
 *         pending queue or table is full.
 */
int stk_udp_send(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		 const struct stk_flow *f);

/**
 * @return true when a frame to @p dst on @p ifc would go to the TX buffer at once: @p dst is
 * ours or multicast, or its next hop's MAC is known on this lcore. False without a route, or
 * while ARP/ND runs (a frame would wait in the neighbour's short pending queue). Looks only:
 * starts no resolution and changes no entry.
 */
bool stk_ip_ready(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *dst);

/**
 * Send a frame whose headers are complete (IP header included) to @p dst, resolving the next
 * hop first; the destination MAC is filled in here. Used by the RoCE transport, which must
 * compute its ICRC over the final IP/UDP headers before the frame leaves.
 * @return 0 when sent or queued (the stack owns @p m); -ENETUNREACH without a route, or
 *         -ENOBUFS when the neighbour's queue or table is full: the caller still owns @p m.
 */
int stk_ip_send(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		const struct stk_ipaddr *dst);

/**
 * Send one frame to the kernel through the exception path. Takes @p m.
 */
void stk_to_kernel(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m);

/*
 * Software PFC on this lcore (stk_pfc_port.c), for interfaces with pfc_mode STK_PFC_MODE_SW.
 * Each lcore honours pauses for its own TX queue and generates them for its own RX queue.
 */

/**
 * Send the frames held for priorities that are no longer paused at @p now, in order (up to
 * STK_PFC_RELEASE_BURST per interface and priority per call). The loop calls it with the TSC.
 * @return the number of frames released.
 */
unsigned stk_pfc_tx_release(struct stk_lcore *lc, uint64_t now);

/**
 * @return true when priority @p prio of interface @p iface may not send from this lcore at
 *         @p now: the peer paused it, or frames for it are still held (a new one would wait
 *         behind them). Always false for an interface not in software PFC mode.
 */
bool stk_pfc_tx_paused(const struct stk_lcore *lc, uint16_t iface, unsigned prio, uint64_t now);

/**
 * Report this lcore's receive backlog on @p iface in frames (the latest value counts; the
 * RoCE responder reports its receive queue). Generation uses the larger of it and the RX
 * queue's fill. No effect on an interface not in software PFC mode.
 */
void stk_pfc_report_backlog(struct stk_lcore *lc, uint16_t iface, uint32_t frames);

/**
 * Run PFC generation at @p now: per interface, feed the backlog to the XOFF/XON hysteresis
 * and send the PFC frame it asks for straight to the port. The loop calls it with the TSC.
 * @return the number of PFC frames sent.
 */
unsigned stk_pfc_generate(struct stk_lcore *lc, uint64_t now);

/** Count a drop of reason @p d on @p ifc. */
static inline void stk_count_drop(struct stk_lcore *lc, uint16_t iface, enum stk_drop d)
{
	lc->stats[iface].drop[d]++;
	lc->stats[iface].c[STK_CNT_drops]++;
}

/**
 * One iteration of the loop. @return the number of frames received.
 * Exposed for unit tests, which drive an lcore by hand.
 */
unsigned stk_lcore_poll(struct stk_lcore *lc);

/** Flush this lcore's TX buffers. */
void stk_lcore_flush(struct stk_lcore *lc);

/** rte_eal_remote_launch() body: loop until stk_stop(). */
int stk_lcore_main(void *arg);

/**
 * Create an lcore context (done by stk_setup(); unit tests call it directly).
 * @return the context or NULL with rte_errno set.
 */
struct stk_lcore *stk_lcore_create(unsigned lcore_id, unsigned index, bool exc_owner,
				   struct rte_mempool *pool, const struct stk_neigh_params *np);

/** Free a context made by stk_lcore_create(); pending frames (TX buffers, neighbour queues,
 * delayed and held impaired frames) are freed. */
void stk_lcore_destroy(struct stk_lcore *lc);

/** Start resolving @p ip on @p ifc now (sends a probe when unknown). @return 0 or -errno. */
int stk_neigh_probe(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip);

#endif /* STK_LCORE_H */
