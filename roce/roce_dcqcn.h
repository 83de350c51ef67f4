/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_dcqcn.h - DCQCN congestion control (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015): the reaction point's rate limiter per QP, and the
 * notification point's CNP pacing. Pure logic over an explicit clock (TSC cycles), so the
 * state machine is stepped by tests on a controlled clock and by the engine on the real one.
 *
 * Reaction point (RP), per QP:
 *   - CNP: RT <- RC, RC <- RC * (1 - alpha / 2), alpha <- (1 - g) alpha + g; the increase
 *     counters restart (stage FAST_RECOVERY);
 *   - alpha timer (K, 55 us): no CNP for K -> alpha <- (1 - g) alpha;
 *   - increase events: the rate timer (T, 55 us) and the byte counter (B, 150 KiB sent) each
 *     count up; while both counts are below F (5) it is fast recovery RC <- (RT + RC) / 2; once
 *     one reaches F, additive increase RT <- RT + R_AI; once both have, hyper increase
 *     RT <- RT + i R_HAI (i = min count - F + 1); each then RC <- (RT + RC) / 2;
 *   - RC never goes below the minimum rate; at line rate the limiter is off (no pacing cost).
 * Notification point (NP): at most one CNP per QP per cnp_interval (50 us).
 */
#ifndef ROCE_DCQCN_H
#define ROCE_DCQCN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Parameters (defaults: roce_dcqcn_params_default(), the published DCQCN values). */
struct roce_dcqcn_params {
	double line_gbps;	  /**< link rate the limiter starts at and returns to */
	double min_gbps;	  /**< floor of RC (default 0.001, 1 Mbit/s) */
	double ai_gbps;		  /**< additive increase step R_AI (0.005, 5 Mbit/s) */
	double hai_gbps;	  /**< hyper increase step R_HAI (0.05, 50 Mbit/s) */
	double g;		  /**< alpha gain (1/256) */
	uint32_t f;		  /**< fast recovery stages F (5) */
	uint32_t alpha_us;	  /**< alpha update period K (55) */
	uint32_t timer_us;	  /**< rate increase timer T (55) */
	uint64_t byte_counter;	  /**< rate increase byte counter B (150 KiB) */
	uint32_t cnp_interval_us; /**< NP: at least this between CNPs of one QP (50) */
};

void roce_dcqcn_params_default(struct roce_dcqcn_params *p, double line_gbps);

#define ROCE_DCQCN_STAGES(X)                                                                       \
	X(LINE)		 /* at line rate: no limiter */                                            \
	X(FAST_RECOVERY) /* after a cut: halve the distance to RT per event */                     \
	X(ADDITIVE)	 /* one counter reached F: RT grows by R_AI per event */                   \
	X(HYPER)	 /* both reached F: RT grows by i * R_HAI per event */

#define ROCE_DCQCN_STAGE_ENUM_(n) ROCE_DCQCN_##n,
enum roce_dcqcn_stage { ROCE_DCQCN_STAGES(ROCE_DCQCN_STAGE_ENUM_) ROCE_DCQCN_NUM_STAGES };
#undef ROCE_DCQCN_STAGE_ENUM_
const char *roce_dcqcn_stage_str(enum roce_dcqcn_stage s);

/** One reaction point (a QP's sender). Rates in Gbit/s; times in TSC cycles. */
struct roce_dcqcn_rp {
	const struct roce_dcqcn_params *p;
	uint64_t hz; /**< TSC cycles per second */
	enum roce_dcqcn_stage stage;
	double rc;	    /**< current rate */
	double rt;	    /**< target rate */
	double alpha;	    /**< congestion estimate, 0..1 */
	uint32_t t_count;   /**< rate timer expiries since the last cut */
	uint32_t bc_count;  /**< byte counter expiries since the last cut */
	uint64_t bytes;	    /**< bytes sent towards the next byte-counter event */
	uint64_t alpha_at;  /**< next alpha timer expiry */
	uint64_t timer_at;  /**< next rate timer expiry */
	uint64_t next_tx;   /**< pacing: earliest time of the next packet */
	uint64_t cnps;	    /**< CNPs reacted to */
	uint64_t increases; /**< increase events */
	uint64_t stage_cnt[ROCE_DCQCN_NUM_STAGES]; /**< entries per stage */
};

/** Start a reaction point at line rate at time @p now. */
void roce_dcqcn_rp_init(struct roce_dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t hz,
			uint64_t now);

/** A CNP arrived for this QP at @p now: cut the rate. */
void roce_dcqcn_rp_cnp(struct roce_dcqcn_rp *rp, uint64_t now);

/** Run the timers due by @p now (cheap when nothing is due; no-op at line rate). */
void roce_dcqcn_rp_tick(struct roce_dcqcn_rp *rp, uint64_t now);

/**
 * May a packet go at @p now? At line rate always. Otherwise only once the pacing time has
 * come; the caller then reports it with roce_dcqcn_rp_sent().
 */
static inline bool roce_dcqcn_rp_may_send(const struct roce_dcqcn_rp *rp, uint64_t now)
{
	return rp->stage == ROCE_DCQCN_LINE || now >= rp->next_tx;
}

/** @p bytes (on the wire) left at @p now: advance the pacing clock and the byte counter. */
void roce_dcqcn_rp_sent(struct roce_dcqcn_rp *rp, uint32_t bytes, uint64_t now);

/** Notification point: may this QP send a CNP at @p now (one per cnp_interval)? */
bool roce_dcqcn_np_may_cnp(uint64_t *last_cnp, const struct roce_dcqcn_params *p, uint64_t hz,
			   uint64_t now);

struct roce_dev;
struct roce_qp;

/**
 * Turn DCQCN on for @p dev with @p p (copied), or off with NULL. QPs that enter RTS afterwards
 * get a reaction point and send ECT(0) unless their path sets another ECN; the device answers
 * CE-marked requests with CNPs (at most one per QP per cnp_interval_us).
 * @return 0 or -EINVAL.
 */
int roce_dev_set_cc(struct roce_dev *dev, const struct roce_dcqcn_params *p);

/**
 * Read the [dcqcn] section of the INI file @p path: a section turns DCQCN on (enable = no
 * turns it off again) with the published defaults at line_gbps = 100, each key overriding one
 * parameter: line_gbps min_gbps ai_gbps hai_gbps g f alpha_us timer_us byte_counter
 * cnp_interval_us. No section: *enable = false, @p p the defaults.
 * @return 0; -ENOENT (cannot read the file) or -EINVAL with @p err naming the key to fix.
 */
int roce_dcqcn_config_load(const char *path, bool *enable, struct roce_dcqcn_params *p, char *err,
			   size_t errlen);

/** What a QP's congestion control shows (telemetry has the same). */
struct roce_qp_cc_info {
	bool on;
	enum roce_dcqcn_stage stage;
	double rate_gbps, target_gbps, alpha;
	uint64_t cnp_rx, cnp_tx;
};
void roce_qp_cc_info(const struct roce_qp *qp, struct roce_qp_cc_info *i);

#endif /* ROCE_DCQCN_H */
