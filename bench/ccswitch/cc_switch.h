/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_switch.h - a software switch for congestion tests and benchmarks: N ports, each joined to
 * one endpoint by a pair of rte_rings (the endpoint's net_ring port transmits into in[k], the
 * switch dequeues it; the switch enqueues into out[k], the endpoint's port receives it).
 *
 * It sits between the endpoints' TX and RX, in the same process, and is polled with an explicit
 * TSC so tests can drive its clock. Per egress port it has one FIFO bottleneck queue:
 *   - service at a configured rate (token bucket on the TSC; 0 = as fast as out[k] accepts),
 *     a byte capacity with tail drop;
 *   - RED-style ECN marking of ECT frames on enqueue, on the instantaneous queue depth:
 *     probability 0 below Kmin, linear up to Pmax at Kmax, 1 above (DCQCN, Zhu et al.,
 *     SIGCOMM 2015 §5: Kmin 5 KB, Kmax 200 KB, Pmax 1 %); CE is set and the IPv4 header
 *     checksum recomputed (the RoCEv2 ICRC masks the ToS byte, IBA A17.8.3);
 *   - PFC (IEEE 802.1Qbb): at or above an XOFF threshold the ports that fed the queue get a PFC
 *     frame pausing the configured priority, refreshed while still over, XON at or below the
 *     XON threshold; PFC frames from an endpoint pause that endpoint's egress queue;
 *   - optional random loss (seeded PRNG), after RED and before enqueue.
 * Forwarding is by destination MAC, learned from source MACs (or configured per port);
 * broadcast, multicast and unknown unicast are flooded as copies.
 *
 * A frame's "wire bytes" are its length plus 24 (FCS 4, preamble 8, inter-frame gap 12): the
 * service rate is a line rate. Queue depths and thresholds are in frame bytes (no overhead).
 *
 * Mbuf ownership: frames taken from in[k] belong to the switch until enqueued into some out[j]
 * (then to the endpoint) or dropped (freed, counted). ccs_destroy() frees what is queued.
 */
#ifndef CC_SWITCH_H
#define CC_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#define CCS_MAX_PORTS 8
#define CCS_WIRE_OVERHEAD 24 /**< FCS + preamble + IFG, added to a frame's length for pacing */

struct rte_mempool;
struct rte_ring;
struct ccs;

/** One egress port's bottleneck queue and what it does to frames. */
struct ccs_egress_conf {
	uint64_t rate_bps;  /**< service rate in bit/s on the wire; 0 = unlimited */
	uint32_t burst;	    /**< token bucket depth in bytes (0: 2 x 9216); keep it above one frame
			     * plus what accrues between two polls, or the cap loses tokens */
	uint32_t capacity;  /**< queue capacity in bytes; a frame that does not fit is dropped */
	bool ecn;	    /**< RED-mark ECT frames */
	uint32_t kmin;	    /**< bytes: no marking below (default 5 KB) */
	uint32_t kmax;	    /**< bytes: mark with probability 1 above (default 200 KB) */
	double pmax;	    /**< marking probability at kmax (default 0.01) */
	bool pfc;	    /**< send PFC XOFF/XON to the ports feeding this queue */
	uint32_t pfc_xoff;  /**< bytes: XOFF at or above */
	uint32_t pfc_xon;   /**< bytes: XON at or below (< pfc_xoff) */
	double loss;	    /**< random drop probability of unicast frames, 0..1 */
	bool honour_pfc;    /**< PFC frames received from this port's endpoint pause this queue */
	bool pfc_all_ports; /**< XOFF to every other port, not only the ones that fed the queue */
};

/** The switch. */
struct ccs_conf {
	unsigned nports;
	struct rte_ring *in[CCS_MAX_PORTS];  /**< endpoint k's TX: the switch dequeues */
	struct rte_ring *out[CCS_MAX_PORTS]; /**< endpoint k's RX: the switch enqueues */
	struct rte_mempool *pool;	     /**< for PFC frames and flooded copies */
	struct rte_ether_addr mac;	     /**< source MAC of the PFC frames the switch sends */
	struct ccs_egress_conf eg[CCS_MAX_PORTS];
	uint8_t pfc_prio;	/**< the lossless priority PFC pauses (default 3, RoCE) */
	uint16_t pfc_quanta;	/**< pause time per XOFF, 512-bit units (default 0xffff) */
	uint64_t pfc_link_bps;	/**< link speed the quanta are counted at (default 10 Gbit/s) */
	uint64_t hz;		/**< TSC cycles per second */
	uint64_t sample_cycles; /**< time series period (TSC); 0 = no time series */
	uint32_t max_samples;	/**< time series capacity (older samples kept, newer dropped) */
	uint64_t seed;		/**< PRNG seed for RED and loss */
};

/**
 * Fill @p c with the defaults: no rate limit, 1 MiB capacity, ECN off with the DCQCN paper's
 * Kmin/Kmax/Pmax, PFC off with XOFF 64 KiB / XON 32 KiB, priority 3, quanta 0xffff at
 * 10 Gbit/s, no loss, honour PFC, 100 us samples (up to 200000). Ports, rings, pool and hz are
 * left for the caller.
 */
void ccs_conf_default(struct ccs_conf *c);

/**
 * Make a switch.
 * @return the switch, or NULL with rte_errno EINVAL (bad configuration) or ENOMEM.
 */
struct ccs *ccs_create(const struct ccs_conf *c, uint64_t now);

/** Free the switch and every frame it still holds. */
void ccs_destroy(struct ccs *sw);

/** Bind MAC @p mac to port @p port (instead of learning it). @return 0 or -EINVAL. */
int ccs_set_mac(struct ccs *sw, unsigned port, const struct rte_ether_addr *mac);

/** Change egress port @p port's queue settings on the fly. @return 0 or -EINVAL. */
int ccs_set_egress(struct ccs *sw, unsigned port, const struct ccs_egress_conf *e);

/**
 * One pass at time @p now: take every frame waiting in the in[] rings, classify and queue it,
 * run PFC generation, serve each egress queue as far as its tokens allow, take a sample when
 * one is due. @return frames moved (received + sent).
 */
unsigned ccs_poll(struct ccs *sw, uint64_t now);

/** Counters of one port (ingress = what its endpoint sent, egress = towards its endpoint). */
struct ccs_port_stats {
	uint64_t rx_frames, rx_bytes;	  /**< taken from in[k] */
	uint64_t tx_frames, tx_bytes;	  /**< put into out[k] (data frames) */
	uint64_t drop_tail;		  /**< egress: did not fit the queue capacity */
	uint64_t drop_loss;		  /**< egress: random loss */
	uint64_t drop_out;		  /**< egress: out[k] refused a PFC frame or a copy */
	uint64_t drop_other;		  /**< ingress: runt, no buffer for a copy */
	uint64_t marks;			  /**< egress: CE set */
	uint64_t ect;			  /**< egress: ECT frames seen at enqueue */
	uint64_t pfc_xoff_tx, pfc_xon_tx; /**< PFC frames sent to this port's endpoint */
	uint64_t pfc_rx;		  /**< PFC frames from this port's endpoint */
	uint64_t paused_cycles;		  /**< egress: time spent paused by the endpoint */
	uint64_t flooded;		  /**< ingress: frames flooded */
	uint32_t q_bytes, q_frames;	  /**< egress queue now */
	uint32_t q_max_bytes;		  /**< egress queue high-water mark */
};

/** Copy port @p port's counters into @p out. @return 0 or -EINVAL. */
int ccs_port_stats(const struct ccs *sw, unsigned port, struct ccs_port_stats *out);

/** Sums over all ports. */
struct ccs_totals {
	uint64_t drops; /**< tail + loss + out + other */
	uint64_t drop_tail, drop_loss;
	uint64_t marks;	 /**< CE marks */
	uint64_t pauses; /**< PFC XOFF frames sent */
	uint64_t xons;	 /**< PFC XON frames sent */
	uint64_t pfc_rx; /**< PFC frames received from endpoints */
	uint64_t fwd_frames, fwd_bytes;
};
void ccs_totals(const struct ccs *sw, struct ccs_totals *t);

/** One time-series sample: taken every sample_cycles. */
struct ccs_sample {
	uint64_t tsc;			   /**< when (TSC) */
	uint32_t q_bytes[CCS_MAX_PORTS];   /**< egress queue depth */
	uint32_t q_frames[CCS_MAX_PORTS];  /**< egress queue frames */
	uint64_t in_bytes[CCS_MAX_PORTS];  /**< bytes received per ingress port in the period */
	uint64_t out_bytes[CCS_MAX_PORTS]; /**< bytes sent per egress port in the period */
	uint64_t marks, pauses, drops;	   /**< cumulative */
};

/** The samples so far: @p *n of them. The pointer stays valid until ccs_destroy(). */
const struct ccs_sample *ccs_samples(const struct ccs *sw, uint32_t *n);

/** Forget the samples (and restart the period at @p now). */
void ccs_samples_reset(struct ccs *sw, uint64_t now);

/**
 * Write the configuration, the counters and the time series as one JSON object to @p f.
 * @return 0, or -EIO when writing failed.
 */
int ccs_write_json(const struct ccs *sw, FILE *f);

/* ---- the pieces, exposed for unit tests ---- */

/** RED marking probability at queue depth @p q bytes. */
double ccs_red_prob(const struct ccs_egress_conf *e, uint32_t q);

/** Token bucket of one egress port. */
struct ccs_bucket {
	uint64_t rate_bps; /**< 0 = unlimited */
	double tokens;	   /**< bytes */
	double burst;	   /**< cap of tokens, bytes */
	uint64_t last;	   /**< TSC of the last refill */
	uint64_t hz;
};
void ccs_bucket_init(struct ccs_bucket *b, uint64_t rate_bps, uint32_t burst, uint64_t hz,
		     uint64_t now);
/** Refill to @p now; @return true when @p bytes may go (and take them). */
bool ccs_bucket_take(struct ccs_bucket *b, uint32_t bytes, uint64_t now);

#endif /* CC_SWITCH_H */
