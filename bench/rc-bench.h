/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench.h - the results rc-bench collects (bench/rc-bench.c measures them) and the report
 * made from them: the tables and ratios on stdout and the JSON (bench/rc-bench-report.c).
 */
#ifndef RC_BENCH_H
#define RC_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#define RCB_MAX_SIZES 16
#define RCB_MAX_MTUS 2

enum rcb_op { RCB_WRITE, RCB_READ, RCB_SEND, RCB_NUM_OPS };
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

struct rcb_pingpong {
	uint32_t mtu;
	bool ok;
	char why[96];
	uint32_t n;
	double min_us, p50_us, p99_us, p999_us, mean_us;
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
	struct rcb_pingpong pp[RCB_MAX_MTUS];
	struct rcb_raw raw[1 + RCB_MAX_MTUS];
};

/** The whole run: the parameters the report shows, the baselines, and each placement. */
struct rcb_run {
	double secs, warmup;
	uint32_t mtus[RCB_MAX_MTUS];
	unsigned nmtus;
	uint32_t depth, rate_depth, inflight, mbuf_room, ip_mtu, ring, pool;
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

#endif /* RC_BENCH_H */
