/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench.h - the results rc-bench collects (bench/rc-bench.c measures them) and the report
 * made from them: the tables and ratios on stdout and the JSON (bench/rc-bench-report.c).
 */
#ifndef RC_BENCH_H
#define RC_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RCB_MAX_SIZES 16
#define RCB_MAX_MTUS 2
#define RCB_PP_MODES 3 /* ping-pong post modes compared (enum roce_post_mode) */

/* READ_MBUF: an RDMA READ whose response data is taken as the frames' mbufs
 * (ROCE_SEND_MBUF), against READ into a registered region */
enum rcb_op { RCB_WRITE, RCB_READ, RCB_SEND, RCB_READ_MBUF, RCB_NUM_OPS };
/** "WRITE", "READ", "SEND" */
extern const char *const rcb_op_names[RCB_NUM_OPS];

/** One measured cell of the matrix, or a message-rate row. */
struct rcb_cell {
	enum rcb_op op;
	uint32_t mtu;
	uint32_t size;
	uint32_t depth;
	bool ok;
	char why[96];	   /**< failure reason */
	uint64_t msgs;	   /**< completed in the measured window */
	double secs;	   /**< length of the measured window */
	double gbps;	   /**< payload Gbit/s */
	double mps;	   /**< messages/s */
	double data_mpps;  /**< data packets/s (messages/s x packets per message), millions */
	double cpu_a;	   /**< CPU share of side A's thread in the window */
	double cpu_b;	   /**< of side B's (2 lcores) */
	double busy_a;	   /**< share of A's loop time in iterations that received or sent */
	double busy_b;	   /**< the same for B (2 lcores) */
	uint64_t total;	   /**< messages completed in the whole cell (warm-up and drain too) */
	uint64_t resent;   /**< data packets sent beyond what the messages need */
	uint64_t drops;	   /**< stack drops during the cell (tx_full ...) */
	uint32_t verified; /**< destination slots compared byte for byte */
};

/** "queue", "doorbell", "immediate", by enum roce_post_mode (rc-bench-report.c) */
extern const char *const rcb_post_names[RCB_PP_MODES];

struct rcb_pingpong {
	uint32_t mtu;
	int post; /**< enum roce_post_mode of both devices */
	bool ok;
	char why[96];
	uint32_t n;
	double min_us, p50_us, p99_us, p999_us, mean_us;
	/** posts of side A [0] and B [1]: sent in the call, by the doorbell, left to the poll
	 * (roce_dev_counts) */
	uint64_t tx_now[2], doorbell[2], deferred[2];
	uint32_t busy_ns; /**< B's hook worked this long per loop iteration (--pp-busy-ns) */
};

struct rcb_raw {
	uint32_t payload; /**< UDP payload bytes */
	bool ok;
	double mpps;
	uint64_t drops;
	uint64_t send_failed; /**< stk_udp_send refusals (the frame was not counted) */
};

/** Results of one placement (1 or 2 lcores). */
struct rcb_mode {
	unsigned lcores;
	double line_rtt_ns; /**< a cache line to the other lcore and back (two lcores) */
	unsigned ncells, nrate, npp, nraw;
	struct rcb_cell cells[RCB_NUM_OPS * RCB_MAX_MTUS * RCB_MAX_SIZES];
	struct rcb_cell rate[2 * RCB_MAX_MTUS];
	struct rcb_pingpong pp[RCB_MAX_MTUS * RCB_PP_MODES];
	struct rcb_raw raw[1 + RCB_MAX_MTUS];
};

/** The whole run: the parameters the report shows, the baselines, and each placement. */
struct rcb_run {
	double secs, warmup;
	uint32_t mtus[RCB_MAX_MTUS];
	unsigned nmtus;
	uint32_t depth, rate_depth, inflight, mbuf_room, ip_mtu, ring, pool;
	int post;		       /**< enum roce_post_mode of the cells and the message rate */
	double memcpy_gbs[2];	       /**< 4 KiB and 64 KiB pieces */
	double icrc_gbs[RCB_MAX_MTUS]; /**< ICRC check of frames of each MTU */
	struct rcb_mode res[2];
	unsigned nres;
};

/** Print the tables of one placement: cells, message rate, ping-pong, UDP baseline. */
void rcb_print_mode(const struct rcb_mode *r);

/** Print the ratios to the baselines, and the 50 Gbit/s target line. */
void rcb_print_ratios(const struct rcb_run *run, const struct rcb_mode *r);

/** Write everything as JSON to @p path. @return 0 or -errno. */
int rcb_write_json(const struct rcb_run *run, const char *path);

/* ---- shared by rc-bench's files ---- */
struct rte_mempool;
struct rte_ring;

/** Deterministic bytes for a slot, seeded, so a stale copy never matches (rc-bench.c). */
void rcb_fill(uint8_t *p, size_t len, uint64_t seed);

/** What the memif link needs (rc-bench-link.c). */
struct rcb_link_conf {
	struct rte_mempool *pool;
	uint32_t memif_ring; /**< slots per ring, a power of 2 */
	uint32_t memif_buf;  /**< bytes per buffer: one whole frame, less than the mbuf room */
	uint32_t ip_mtu;
	uint32_t mbuf_room;
};
/** A started net_ring port on @p rx / @p tx; exits on failure. */
uint16_t rcb_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
		       struct rte_mempool *pool);
/** A memif server (@p a) and client (@p b) on a fresh socket, both links up; exits on failure. */
void rcb_memif_ports(const struct rcb_link_conf *c, uint16_t *a, uint16_t *b);
/** The memif socket's path ("" before rcb_memif_ports()). */
const char *rcb_memif_sock(void);
/** Remove the socket and its directory (async-signal-safe). */
void rcb_memif_cleanup(void);
struct stk_lcore;
/** Frames @p lc queued for transmission so far, all interfaces (a busy-loop test: an
 * iteration that sent something moved it). */
uint64_t rcb_lcore_tx(const struct stk_lcore *lc);
/** Write every mbuf's data room once, so page faults stay out of the measurements. */
void rcb_pool_pretouch(struct rte_mempool *pool, unsigned size);

/** memcpy GB/s in @p chunk pieces over 2 MiB for @p secs; 0 if the copy was wrong. */
double rcb_memcpy_rate(uint8_t *src, uint8_t *dst, uint32_t chunk, double secs);
/** ICRC check GB/s over 64 RDMA WRITE MIDDLE frames of @p mtu from @p buf; 0 on a failure. */
double rcb_icrc_rate(struct rte_mempool *pool, uint16_t ifa_idx, uint16_t ifb_idx, uint8_t *buf,
		     uint32_t mtu, double secs);

#endif /* RC_BENCH_H */
