/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench-int.h - private to rc-bench: the two sides, side B's control block, the options
 * and set-up (rc-bench.c defines them), and the helpers rc-bench.c lends the post-mode and
 * memory-placement runs of rc-bench-post.c.
 */
#ifndef RC_BENCH_INT_H
#define RC_BENCH_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "rc-bench.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define SIDE_BUF (8u << 20) /* registered memory per side */
#define SRC_OFF 0u	    /* sources: [0, 4 MiB) */
#define DST_OFF (4u << 20)  /* destinations: [4 MiB, 8 MiB) */
#define REGION (4u << 20)   /* size of each */
#define PP_RECVS 64u	    /* receives A keeps posted for ping-pong replies */
#define PP_MAX_SAMPLES 200000u
#define STALL_S 2 /* no completion for this long: the cell failed */

/** What side B's poll hook does with its completions (and the UDP sink with frames). */
enum b_mode {
	B_IDLE, /**< nothing expected: any completion is an error */
	B_SINK, /**< SEND cell: check each receive, repost it in the same slot */
	B_PONG, /**< ping-pong: repost the receive and answer with a 64 B SEND */
	B_RAW,	/**< UDP baseline: count the datagrams the sink gets */
	B_NUM_MODES
};

/** The virtual link between the two sides. */
enum link {
	LINK_RING,  /**< crossed net_ring ports */
	LINK_MEMIF, /**< net_memif server (A) and client (B) on one socket, copy mode */
	LINK_NUM
};

struct side {
	uint16_t port;
	uint16_t iface;
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	struct roce_qp *qp;
	uint8_t *buf;
};

/** rc-bench's options, its set-up and its results (rc-bench.c). */
struct rcb_globals {
	/* options */
	enum link link;
	uint32_t memif_ring; /**< slots per memif ring, a power of 2 */
	uint32_t memif_buf;  /**< bytes per memif buffer (one frame each, see rc-bench-link.c) */
	const char *json;
	double secs, warmup;
	uint32_t sizes[RCB_MAX_SIZES];
	unsigned nsizes;
	uint32_t mtus[RCB_MAX_MTUS];
	unsigned nmtus;
	bool ops[RCB_NUM_OPS];
	unsigned lcores_list[2];
	unsigned nlcores;
	uint32_t depth, rate_depth, inflight;
	uint32_t mbuf_room, ip_mtu;
	unsigned timeout_s;
	bool cells_only; /**< the matrix only: no baselines, message rate, ping-pong (profiling) */
	enum roce_post_mode post; /**< post mode of the cells and the message rate */
	enum roce_post_mode pp_post[RCB_PP_MODES]; /**< ping-pong: post modes compared */
	unsigned npp_post;
	unsigned pp_rounds;  /**< ping-pong rounds per mode, interleaved */
	uint32_t pp_busy_ns; /**< ping-pong: B's hook stands for other work this long per loop */
	bool region_mmap;    /**< --region mmap: the registered buffers are not DPDK memory */
	/* set-up */
	struct rte_mempool *pool;
	struct side s[2];
	struct stk_lcore *la, *lb; /**< lb == la with one lcore */
	unsigned lcore_b;	   /**< EAL lcore of side B (two lcores) */
	uint64_t hz;
	/* baselines and results */
	struct rcb_run run;
};
extern struct rcb_globals rcb_g;

/*
 * Side B's control block. A writes the mode and geometry while B is parked (two lcores) or
 * between its own polls (one lcore); B writes the counters and the first error it saw. The
 * three groups sit on their own cache lines, so that B's per-message counters do not bounce
 * the line A polls for errors, and A's rare writes do not bounce the line B polls.
 */
struct rcb_bctl {
	/* A -> B; the geometry changes only while B is parked */
	enum b_mode mode;
	uint32_t size;	   /**< SEND: expected byte_len */
	uint32_t stride;   /**< SEND: receive slot stride */
	uint32_t park_req; /**< A asks B to stop polling (atomic) */
	uint32_t quit;	   /**< B's loop ends (atomic) */
	uint32_t mark_seq; /**< A bumps it; B then notes its CPU time and busy cycles (atomic) */
	uint32_t probe;	   /**< B resolves A's MAC from its own lcore (atomic) */
	/* B -> A, rarely written */
	uint32_t parked __rte_cache_aligned; /**< B says it stopped (atomic) */
	uint32_t err; /**< first bad completion: status + 1000 * kind (atomic) */
	uint32_t mark_seen;
	double mark_cpu[2];
	uint64_t mark_tsc[2];
	uint64_t mark_busy[2]; /**< B's busy cycles at the marks (two lcores) */
	/* B -> A, per message or frame */
	uint64_t recvs __rte_cache_aligned; /**< SEND: receives completed and checked (atomic) */
	uint64_t raw_rcvd;
};
extern struct rcb_bctl rcb_bc;

/* ---- rc-bench.c ---- */

/** Post a receive of @p len bytes at @p addr on side @p sd's QP. @return roce_post_recv's */
int rcb_post_recv(struct side *sd, uint64_t id, uint8_t *addr, uint32_t len);
/** Post one send-queue WR on side @p sd's QP. @return roce_post_send's */
int rcb_post_send(struct side *sd, enum roce_wr_opcode op, uint64_t id, uint8_t *laddr,
		  uint32_t len, uint64_t raddr, uint32_t rkey, bool signaled);
/** Stop B's lcore between polls, so A may touch B's QP, CQ and memory. */
void rcb_park_b(void);
/** Let B's lcore poll again. */
void rcb_unpark_b(void);
/** Poll A (and B, with one lcore) for @p ms milliseconds. */
void rcb_settle(unsigned ms);
/** A connected RC QP pair at path MTU @p mtu_bytes. @return 0 or -errno */
int rcb_pair_create(uint32_t mtu_bytes);
/** Destroy the pair (B parked) and empty both CQs. */
void rcb_pair_destroy(void);

/* ---- rc-bench-post.c ---- */

/** "immediate", "doorbell", "queue" -> the mode. @return 0 or -1. */
int rcb_parse_post(const char *s, enum roce_post_mode *m);
/** Ping-pong at @p mtu in every post mode asked for (--pp-post), into r->pp. */
void rcb_run_pingpongs(struct rcb_mode *r, uint32_t mtu);
/** One side's SIDE_BUF of memory to register, placed as --region asks. @return NULL on failure */
uint8_t *rcb_side_buf(void);

#endif /* RC_BENCH_INT_H */
