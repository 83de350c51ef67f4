/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_lab.h - a congestion lab in one process, shared by tests/cc and bench/cc-bench: one
 * receiver endpoint and N sender endpoints (each a net_ring port, a stack interface and a roce
 * device), all joined to one cc_switch, one stack lcore context polling them, and one RC flow
 * per sender: a stream of RDMA WRITEs or SENDs to the receiver with a fixed number in flight,
 * every message checked byte for byte where it landed.
 *
 * Switch port 0 is the receiver, port k (1..N) sender k; the bottleneck is egress port 0.
 * The ports, interfaces and devices live as long as the lab; each ccl_run() makes a fresh
 * switch and fresh QPs with the scenario's settings.
 *
 * Stack PFC: every endpoint interface is added in STK_PFC_MODE_SW for the lossless priority,
 * so it holds paused TX frames and honours the switch's PFC frames.
 */
#ifndef CC_LAB_H
#define CC_LAB_H

#include <stdbool.h>
#include <stdint.h>

#include "cc_switch.h"
#include "roce_verbs.h"

#define CCL_MAX_SENDERS 4

enum ccl_op { CCL_WRITE, CCL_SEND };

/** One scenario. */
struct ccl_scenario {
	const char *name;
	enum ccl_op op;
	unsigned nsenders;	       /**< flows, 1..CCL_MAX_SENDERS */
	uint32_t msg_size;	       /**< bytes per message (>= 16) */
	uint32_t depth;		       /**< messages in flight per flow */
	uint32_t mtu;		       /**< path MTU in bytes: 256..4096 */
	bool dcqcn;		       /**< congestion control on every device */
	double line_gbps;	       /**< DCQCN line rate */
	uint8_t qp_timeout;	       /**< IBA local ACK timeout exponent */
	double warmup, secs;	       /**< warm-up then measured window (seconds) */
	struct ccs_egress_conf bottle; /**< egress port 0 (towards the receiver) */
	uint64_t sample_us;	       /**< switch time series period (0: none) */
	uint64_t seed;
};

/** What one flow did. */
struct ccl_flow_res {
	uint64_t msgs;		       /**< completed in the measured window */
	uint64_t total;		       /**< completed in the whole run */
	uint64_t verified;	       /**< messages checked byte for byte */
	uint64_t bad_data;	       /**< messages that differed */
	uint64_t errors;	       /**< completions with an error status */
	int first_status;	       /**< status of the first error completion */
	double gbps;		       /**< payload goodput in the measured window */
	double p50_us, p99_us, max_us; /**< post-to-completion latency in the window */
	uint64_t cnp_rx;	       /**< CNPs the sender's QP took */
	double rate_gbps;	       /**< DCQCN rate at the end */
	uint64_t pfc_rx;  /**< PFC frames the sender's stack received (0 without stack PFC) */
	uint64_t tx_pkts; /**< frames its interface sent during the run */
	struct roce_qp_stats qs; /**< the sender QP's counters at the end (whole run) */
};

struct ccl_result {
	bool ok; /**< every flow drained, no error, no bad data */
	char why[128];
	double secs; /**< measured window actually run */
	double gbps; /**< sum over flows */
	struct ccl_flow_res f[CCL_MAX_SENDERS];
	struct ccs_totals sw;
	struct ccs_port_stats bottle;
	uint64_t cnp_tx;      /**< CNPs the receiver sent */
	double q_mean, q_p99; /**< bottleneck depth over the window's samples (bytes) */
	uint32_t q_max;
	double q_below_kmax; /**< share of the window's samples below Kmax */
	uint32_t nsamples;
};

struct ccl;

/** Fill @p s with defaults: 2 WRITE flows of 64 KiB x 16, MTU 1024, no CC, 2 Gbit/s
 * bottleneck with a 1 MiB buffer, 0.2 s + 0.5 s, 100 us samples. */
void ccl_scenario_default(struct ccl_scenario *s);

/** Make the lab (EAL must be up). @return the lab or NULL with rte_errno set. */
struct ccl *ccl_create(unsigned max_senders);

/**
 * Run @p s: fresh switch and QPs, warm-up, measured window, stop posting and drain (bounded),
 * check, tear the QPs down. The switch is kept until the next run (ccl_switch()).
 * @return 0, or -errno when the scenario could not be set up; @p r->ok says how it went.
 */
int ccl_run(struct ccl *l, const struct ccl_scenario *s, struct ccl_result *r);

/** The switch of the last run (its counters and time series), or NULL. */
struct ccs *ccl_switch(struct ccl *l);

/** TSC of the start of the last run's measured window. */
uint64_t ccl_window_start(const struct ccl *l);

/** Free everything. */
void ccl_destroy(struct ccl *l);

#endif /* CC_LAB_H */
