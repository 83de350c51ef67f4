/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-gen.h - what droce-gen's files share: the modes' constants, the sender's states, and
 * the one global of the program (its options and each mode's state; main lcore only, but for
 * the per-lcore echo counters), which droce-gen.c runs and gen_args.c fills from the command
 * line.
 */
#ifndef DROCE_GEN_H
#define DROCE_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "gen_cat.h"
#include "gen_flow.h"
#include "gen_replay.h"
#include "stk_hist.h"
#include "stk_pkt.h"

#define GEN_MAGIC 0x4452474eu /* "DRGN" */
#define GEN_HDR 16
#define GEN_BURST 32
/* --template: bursts per loop round (the loop's own work is shared by this many) */
#define GEN_TPL_ROUNDS 4
#define GEN_RATE_WARMUP_MS 500
#define ROCE_OVERHEAD 58 /* Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4 */
#define UDP_OVERHEAD 42

enum gen_state {
	GEN_RESOLVE, /**< waiting for the peer's MAC (ARP / ND) */
	GEN_SEND,    /**< sending count datagrams, interval apart */
	GEN_DRAIN,   /**< all sent: waiting for the last echoes */
	GEN_LINGER,  /**< done sending: keep serving echo and exception path */
	GEN_DONE,    /**< stop the stack */
	GEN_NUM_STATES
};

struct gen_lstats {
	uint64_t echoed;		    /**< datagrams we echoed as a server */
	uint64_t verified;		    /**< echoes of ours that came back intact */
	uint64_t corrupt;		    /**< echoes whose header or pattern was wrong */
	uint64_t dup;			    /**< echoes of a sequence number already seen */
	uint64_t rtt_sum, rtt_min, rtt_max; /**< TSC cycles */
} __rte_cache_aligned;

struct gen_global {
	/* options */
	const char *config;
	uint16_t echo_port;
	bool has_peer;
	struct stk_ipaddr peer;
	uint16_t peer_port;
	uint16_t sport;
	uint32_t count, size, interval_us, wait_ms, resolve_ms;
	int linger_s;
	uint8_t dscp, ecn;
	uint16_t iface;
	bool json, quiet, hold;
	uint32_t rate_s;     /**< --rate: seconds measured, 0 = the echo-verifying sender */
	uint32_t frame_size; /**< --frame-size (rate mode) */
	bool roce;	     /**< --roce: RoCEv2 SEND ONLY frames (rate mode) */
	uint32_t roce_qpn;
	/* rate mode */
	uint64_t t_measure, t_end, opackets0, opackets1, t_measure_end;
	uint64_t built, build_fail;
	bool template; /**< --template: frames copied from one template */
	/* replay mode (--replay) */
	const char *replay;
	uint8_t *cap_buf;
	long cap_len;
	struct gen_pcap cap;
	struct gen_rewrite rw;
	uint32_t replay_pps, replay_loops, loop;
	bool replay_started, have_frame, cap_bad;
	struct gen_pcap_frame fr;
	uint64_t t0, ts0, nframe, frames_read, t_replay_start, loop_sent;
	uint64_t replayed, skipped[GEN_SKIP_NUM], rw_qpn, rw_rkey, rw_psn, rw_sqpn, t_replay_end;
	/* loopback mode (--loopback); the RX side runs on the lcore that polls --rx-iface */
	bool loopback;
	uint16_t rx_iface;
	uint32_t pps;
	bool rx_iface_set, lb_settle;
	uint32_t lb_max_seq; /**< the highest sequence number received, +1 (0: none yet) */
	uint64_t lb_rx, lb_unique, lb_dup, lb_reordered, lb_bad, lb_foreign;
	struct stk_hist *lb_lat; /**< one-way latency, TSC cycles */
	/* catalogue mode (--catalogue, gen_cat.c) */
	bool catalogue, cat_list, cat_qps;
	struct gen_cat_opts cat;
	/* flow mode (--flow, gen_flow.c) */
	bool flow;
	struct gen_flow_opts fo;
	double gbps;
	bool flow_opt; /**< --qps, --depth, --seconds or --sizes given */
	bool pcp_set, dscp_set;
	uint8_t pcp;
	uint64_t icrc_bad;  /**< templated RoCE frames whose ICRC did not check */
	uint64_t icrc_seen; /**< of those checked */
	/* sender state (main lcore only) */
	enum gen_state state;
	uint32_t next_seq;
	uint64_t next_tx, deadline, t_start, t_resolved, probe_at;
	uint64_t sent, send_fail;
	uint8_t *seen;
	struct rte_ether_addr peer_mac;
	bool resolved;
	struct gen_lstats ls[RTE_MAX_LCORE];
};

extern struct gen_global g;

/** Parse droce-gen's options (after the EAL's) into g, checking how they combine; --help and
 * the listing options print and exit. @return 0, or -1 after a message (exit status 2). */
int gen_parse_args(int argc, char **argv);

#endif /* DROCE_GEN_H */
