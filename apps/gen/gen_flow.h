/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow.h - droce-gen as the requester of RC and UD flows (issue 18 item 1): N QPs of
 * droce's own transport (roce/, retransmissions and all) posting a mix of operations (RDMA
 * WRITE, RDMA READ, SEND, FETCH_ADD) of a size mix, paced in packets or bits per second,
 * marked with DSCP/ECN/PCP, for a duration; reported per QP: throughput, the operations done,
 * the ACKs, NAKs and RNR NAKs received, retransmissions and timeouts.
 * Where the peer's keys come from:
 * - perftest: a perftest server's TCP exchange (gen_pt.h), for one operation: write, read,
 *   atomic (FETCH_ADD at the start of its region), or send with --iters (ib_send_bw's server
 *   counts its receives to its -n);
 * - manual: droce-gen prints its own keys (QPN, PSN, address, path MTU) per QP on stderr and
 *   reads the peer's, a line per QP, from stdin (a peer without perftest or a CM);
 * - keys: on the command line (UD: the peer's QPN and Q_Key are all a datagram needs);
 * - cm: the RDMA CM connects each RC QP to a listener (REQ, REP, RTU: QPNs, PSNs, the path),
 *   and --keys gives the region the one-sided operations go to.
 */
#ifndef GEN_FLOW_H
#define GEN_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "gen_flow_text.h"
#include "stk_iface.h"
#include "stk_lcore.h"

#define GEN_FLOW_MAX_QPS 64

/** Where the peer's keys come from. */
enum gen_flow_xchg {
	GEN_XCHG_PERFTEST, /**< perftest's TCP exchange with a server at --peer ADDR:PORT */
	GEN_XCHG_MANUAL,   /**< ours on stderr, theirs a line per QP on stdin */
	GEN_XCHG_KEYS,	   /**< theirs on the command line (--keys) */
	GEN_XCHG_CM,	   /**< RC: the RDMA CM connects each QP to --peer ADDR:PORT (QPNs, PSNs,
			      path); a region's rkey, va and len from --keys */
	GEN_XCHG_NUM
};

/** A flow profile and its peer. */
struct gen_flow_opts {
	struct gen_flow_mix mix; /**< the operations, by weight */
	enum gen_flow_xchg xchg; /**< where the keys come from */
	uint32_t nkeys;		 /**< --keys given (1: for every QP) */
	struct gen_keys keys[GEN_FLOW_MAX_QPS];
	uint32_t qps;			     /**< QPs (the server's -q) */
	uint32_t depth;			     /**< WRs in flight per QP */
	uint32_t seconds;		     /**< how long it posts (with iters: at most) */
	uint32_t iters;			     /**< exactly this many messages per QP (0: by time) */
	uint32_t nsizes;		     /**< the size mix: */
	uint32_t size[GEN_FLOW_MAX_SIZES];   /**< message bytes, */
	uint32_t weight[GEN_FLOW_MAX_SIZES]; /**< each with its weight */
	double pps;			     /**< pacing in packets a second (0: none) */
	double gbps;			     /**< or in Gbit/s of payload (0: none) */
	bool dscp_set, pcp_set;
	uint8_t dscp, pcp, ecn;
	struct stk_ipaddr server; /**< the peer (IPv4) */
	uint16_t port;		  /**< perftest's TCP port */
	uint16_t iface;
	bool json;
};

/** The profile's consistency, before anything starts: which exchange takes which mix, the
 * keys each operation needs, UD's sizes. @return 0, or -1 with a message saying what to fix. */
int gen_flow_check(const struct gen_flow_opts *o);

/** The keys the peer must give for @p o's mix (1 << enum gen_key). */
uint32_t gen_flow_keys_needed(const struct gen_flow_opts *o);

/** Check one peer's keys against what @p o's mix needs: the keys there, the region large enough
 * for the largest size (plus the atomics' 64 bytes), an atomic target 8-byte aligned.
 * @return 0, or -1 with the reason in @p why. */
int gen_flow_keys_ok(const struct gen_flow_opts *o, const struct gen_keys *k, char *why,
		     size_t whylen);

/** Start the mode after stk_setup(): the RoCE device on o->iface, its QPs, the control thread
 * (perftest's exchange, or the manual one). @return 0 or -errno (with a message). */
int gen_flow_start(const struct gen_flow_opts *o);

/** The main lcore's poll hook step. @return true when the run is over. */
bool gen_flow_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now);

/** After the stack stopped: join the control thread, print the per-QP report (or JSON).
 * @return the exit status: 0 when every QP ran its flow without an error completion. */
int gen_flow_finish(void);

#endif /* GEN_FLOW_H */
