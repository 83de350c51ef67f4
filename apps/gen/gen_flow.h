/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow.h - droce-gen as the requester of RC flows (issue 18 item 1): N QPs of droce's own
 * transport (roce/, retransmissions and all) connected to a perftest server's N QPs through
 * perftest's TCP exchange (gen_pt.h), posting RDMA WRITEs or READs of a size mix, paced in
 * packets or bits per second, marked with DSCP/ECN/PCP, for a duration; reported per QP:
 * throughput, the ACKs, NAKs and RNR NAKs received, retransmissions and timeouts.
 */
#ifndef GEN_FLOW_H
#define GEN_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "stk_iface.h"
#include "stk_lcore.h"

#define GEN_FLOW_MAX_QPS 64
#define GEN_FLOW_MAX_SIZES 8
#define GEN_FLOW_MAX_SIZE (1u << 20)

/** The operation of a flow: what the perftest server's QPs take. */
enum gen_flow_verb {
	GEN_FLOW_WRITE, /**< against ib_write_bw */
	GEN_FLOW_READ,	/**< against ib_read_bw */
	GEN_FLOW_NUM_VERBS
};

/** A flow profile and its peer. */
struct gen_flow_opts {
	enum gen_flow_verb verb;
	uint32_t qps;			     /**< QPs (the server's -q) */
	uint32_t depth;			     /**< WRs in flight per QP */
	uint32_t seconds;		     /**< how long it posts */
	uint32_t nsizes;		     /**< the size mix: */
	uint32_t size[GEN_FLOW_MAX_SIZES];   /**< message bytes, */
	uint32_t weight[GEN_FLOW_MAX_SIZES]; /**< each with its weight */
	double pps;			     /**< pacing in packets a second (0: none) */
	double gbps;			     /**< or in Gbit/s of payload (0: none) */
	bool dscp_set, pcp_set;
	uint8_t dscp, pcp, ecn;
	struct stk_ipaddr server; /**< the perftest server (IPv4) */
	uint16_t port;
	uint16_t iface;
	bool json;
};

/** @return the verb named @p s ("write", "read"), or GEN_FLOW_NUM_VERBS. */
enum gen_flow_verb gen_flow_verb_parse(const char *s);

/** Parse a size mix "SIZE[:WEIGHT],..." (sizes 1..1 MiB with k/m suffixes, weights 1..1000,
 * at most 8) into @p o. @return 0, or -1 with a message naming what is wrong. */
int gen_flow_parse_sizes(const char *s, struct gen_flow_opts *o);

/** Start the mode after stk_setup(): the RoCE device on o->iface, its QPs, the control thread
 * running perftest's exchange. @return 0 or -errno (with a message). */
int gen_flow_start(const struct gen_flow_opts *o);

/** The main lcore's poll hook step. @return true when the run is over. */
bool gen_flow_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now);

/** After the stack stopped: join the control thread, print the per-QP report (or JSON).
 * @return the exit status: 0 when every QP ran its flow without an error completion. */
int gen_flow_finish(void);

#endif /* GEN_FLOW_H */
