/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_int.h - internals of the verbs objects, shared by roce/ files only (not installed).
 */
#ifndef ROCE_INT_H
#define ROCE_INT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_cm_wire.h" /* ROCE_GSI_QPN, ROCE_GSI_QKEY */
#include "roce_dcqcn.h"
#include "roce_pkt.h" /* ROCE_DROP_NUM */
#include "roce_verbs.h"

#define ROCE_FIRST_QPN 0x11 /* like rxe: 0 and 1 are the special QPs, then a small gap */

/* X(enum suffix, telemetry name): what roce_rx.c refuses after decoding, and the handoffs. */
#define ROCE_RX_COUNTERS(X)                                                                        \
	X(DROP_DECODE, "drop_decode")                                                              \
	X(DROP_ICRC, "drop_bad_icrc")                                                              \
	X(DROP_NO_QP, "drop_no_qp")                                                                \
	X(DROP_QP_TYPE, "drop_qp_type")                                                            \
	X(DROP_QP_STATE, "drop_qp_state")                                                          \
	X(DROP_HANDOFF_FULL, "drop_handoff_full")                                                  \
	X(HANDOFF, "rx_handoff_to_owner")                                                          \
	X(DROP_PEER_ADDR, "drop_peer_addr") /* RC/UC: not from the QP's peer (IBTA 9.6.1) */       \
	X(DROP_PKEY, "drop_pkey")	    /* RC/UC: P_Key does not match (IBTA 10.9.3) */

#define ROCE_RX_ENUM_(n, s) ROCE_RX_##n,
enum roce_rx_counter { ROCE_RX_COUNTERS(ROCE_RX_ENUM_) ROCE_RX_NUM };
#undef ROCE_RX_ENUM_

#define ROCE_MAX_LANES 8    /* lcores one device can run on */
#define ROCE_LANE_RING 4096 /* frames handed to one lane by the others */
#define ROCE_LANE_CMDS 1024 /* QP commands queued for one lane */
#define ROCE_LANE_NONE UINT8_MAX

/* X(name): per-lane counters of the fast path (summed in roce_dev_counts()) */
#define ROCE_LANE_COUNTERS(X)                                                                      \
	X(cqe_lost)                                                                                \
	X(wc_no_done)                                                                              \
	X(post_tx_now)                                                                             \
	X(post_doorbell)                                                                           \
	X(post_deferred)                                                                           \
	X(async_dropped)                                                                           \
	X(async_purged)                                                                            \
	X(wrong_lcore) /* a QP, CQ or SRQ used from an lcore that is not its lane's: refused */    \
	X(qp_joined)   /* QPs this lane took over (placement after RTS, or joined while live) */   \
	X(cmd_full)    /* a QP command could not be queued for this lane */

#define ROCE_LNC_ENUM_(n) ROCE_LNC_##n,
enum roce_lane_counter { ROCE_LANE_COUNTERS(ROCE_LNC_ENUM_) ROCE_LNC_NUM };
#undef ROCE_LNC_ENUM_

/** A frame one lane received for a QP of another, with its parse results (not parsed again). */
struct roce_handoff {
	struct rte_mbuf *m;
	uint32_t parsed; /**< 0: only stk_parse()d (from an lcore that runs no lane): decode it */
	struct stk_pkt p;
	struct roce_pkt rp;
} __rte_aligned(8);

/**
 * One lcore's share of a device (issue 12 item 7): the QPs it runs, its doorbell, its event
 * queue and counters. Only that lcore writes it; other lcores reach it through its two rings.
 */
struct roce_lane {
	struct roce_dev *dev;
	uint8_t idx;
	unsigned lcore;		/**< EAL lcore that runs it; RTE_MAX_LCORE: the first to poll */
	bool live;		/**< its lcore has polled: other lcores may not touch its objects */
	struct rte_ring *ring;	/**< struct roce_handoff: frames other lanes received for it */
	struct rte_ring *cmd;	/**< QP commands (roce_lane_cmd()): join, fail, release */
	struct roce_qp *polled; /**< QPs in RTR..ERR this lane runs */
	uint32_t nqps;		/**< QPs whose home is this lane (least-loaded placement) */
	uint64_t poll_epoch;	/**< its polls (read by other lanes: QP destroy's grace period) */
	/* how long its lcore went without polling it (descheduled, blocked, a long hook): the
	 * peers' retransmission timers see a stall like this as loss */
	uint64_t last_poll_tsc; /**< TSC at its last poll; 0 before the first */
	uint64_t max_gap_tsc;	/**< longest time between two polls */
	uint64_t gaps_10ms;	/**< polls that came 10 ms or more after the one before */
	/* starting transmission from a post (roce_post.c) */
	bool in_engine;		/**< an engine or the CM runs: a post rings the doorbell */
	struct roce_qp *rung;	/**< QPs posted to since the doorbell was rung */
	struct roce_qp *moving; /**< QPs that reached RTS here, to move home at the poll's end */
	bool fail_pending;	/**< some QP's CQ went to error: fail them at the next safe point */
	uint64_t drops[ROCE_RX_NUM];	      /**< receive-side refusals (enum roce_rx_counter) */
	uint64_t decode_drops[ROCE_DROP_NUM]; /**< drops[decode] by decoder reason */
	uint64_t cnt[ROCE_LNC_NUM];	      /**< enum roce_lane_counter */
	uint64_t async_raised[ROCE_EVENT_NUM];
	/* asynchronous events of its objects (roce_event.c): a ring that keeps the oldest */
	struct roce_async_event ev[ROCE_ASYNC_QLEN];
	uint32_t ev_head, ev_tail; /**< next to fill, next to take (free-running) */
} __rte_cache_aligned;

struct roce_dev {
	uint16_t iface;
	struct roce_lane lane[ROCE_MAX_LANES]; /**< lane 0 (primary) runs the CM and QP1 */
	uint8_t nlanes;
	uint8_t place;			/**< enum roce_place */
	uint8_t rr_next;		/**< round-robin placement: next lane */
	uint8_t lane_of[RTE_MAX_LCORE]; /**< lcore -> lane index, ROCE_LANE_NONE */
	uint32_t max_path_mtu;		/**< largest IB MTU (bytes) that fits the interface MTU */
	struct roce_mr **mrs;		/**< key table: index = key >> 8; slot 0 unused */
	uint32_t mr_hint;		/**< where to look for a free slot next */
	uint8_t key_seq;		/**< variable low byte of new keys */
	struct roce_qp **qps;		/**< QPN - ROCE_FIRST_QPN -> QP */
	struct roce_qp *gsi;		/**< QP1, if created */
	struct roce_cm *cm;		/**< its connection manager (roce_cm.c), if started */
	uint64_t rto_min; /**< floor of the adaptive RTO (TSC); 0 = IBA timeout only */
	uint64_t gap_tsc; /**< 10 ms of TSC: a lane's poll gap this long is counted */
	bool cc_on;	  /**< DCQCN: QPs entering RTS get a reaction point, CE gets CNPs */
	struct roce_dcqcn_params cc;
	uint32_t qp_hint;
	uint16_t qp_gen; /**< generations of created QPs (lane commands name QPN + generation) */
	struct roce_dev_counts n; /**< live objects and control-path counters */
	roce_async_fn ev_fn;	  /**< roce_set_async_handler() */
	void *ev_arg;
	int8_t link_up;	    /**< last link state seen: 1 up, 0 down, -1 not read yet */
	uint64_t link_next; /**< TSC of the next link check; UINT64_MAX: no more */
	/** ROCE_RESERVED_LKEY's region: DPDK's memory, local only (roce_mr_lookup()) */
	struct roce_mr dma_mr;
	uint8_t post_mode; /**< enum roce_post_mode */
};

struct roce_pd {
	struct roce_dev *dev;
	uint32_t users; /**< MRs, QPs, SRQs, AHs on it */
};

struct roce_ah {
	struct roce_pd *pd;
	struct roce_path path;
};

struct roce_cq {
	struct roce_dev *dev;
	uint32_t mask;	 /**< ring size - 1 */
	uint32_t cqe;	 /**< capacity granted */
	uint64_t head;	 /**< next slot to fill */
	uint64_t tail;	 /**< next slot to poll */
	bool error;	 /**< it overflowed: in error, takes no more (IBA 10.10.2.3, CQ Error) */
	bool in_process; /**< roce_cq_process() is dispatching its callbacks */
	uint32_t users;
	struct roce_wc *ring;
	void *context; /**< cq_context */
	uint8_t lane;  /**< the lane of the QPs that use it (ROCE_LANE_NONE: none yet) */
};

/** A queued send WR, with its SGEs (and inline data) copied at post time. */
struct roce_swqe {
	struct roce_send_wr wr; /**< sg_list / next not valid: use sge[] */
	struct roce_sge sge[ROCE_MAX_SGE];
	uint32_t length; /**< total bytes of the message */
	bool signaled;
	uint32_t first_psn;   /**< set when the requester starts the WQE */
	uint32_t npsn;	      /**< PSNs it consumes (READ: one per response packet) */
	bool local_done;      /**< local operation: executed (once, not again after go-back-N) */
	uint8_t local_status; /**< its outcome: ROCE_WC_SUCCESS or the error to complete with */
	/* ROCE_SEND_MBUF (the chain is wr.mbuf, the QP's until the WQE leaves the queue,
	 * roce_swqe_release()): a SEND/WRITE's segment the next frame starts looking from, and
	 * the chain offset it begins at (frames go forward; a rewind looks from the head again);
	 * a READ's last segment of the response chain, for appending */
	struct rte_mbuf *walk;
	uint32_t walk_off;
	struct rte_mbuf *mtail;
	uint8_t inline_data[ROCE_MAX_INLINE];
};

struct roce_rwqe {
	union {
		uint64_t wr_id;
		struct roce_cqe *wr_cqe;
	};
	uint32_t num_sge;
	uint32_t length; /**< bytes it takes (ROCE_RECV_MBUF: max_len) */
	uint32_t flags;	 /**< enum roce_recv_flags */
	/* ROCE_RECV_MBUF: the message so far, frames' buffers chained (roce_rwqe_release()) */
	struct rte_mbuf *chain, *ctail;
	struct roce_sge sge[ROCE_MAX_SGE];
};

/** A single-producer single-consumer ring of work queue entries. */
struct roce_wq {
	uint32_t mask;
	uint32_t max_wr;
	uint32_t max_sge;
	uint64_t head; /**< next to post */
	uint64_t tail; /**< next to consume */
	void *e;       /**< struct roce_swqe[] or struct roce_rwqe[] */
};

struct roce_srq {
	struct roce_pd *pd;
	struct roce_wq rq;
	uint32_t srq_limit; /**< armed limit; 0: not armed (it disarms when it fires) */
	uint32_t users;
	void *context; /**< srq_context */
	uint8_t lane;  /**< as roce_cq.lane */
};

#define ROCE_ATOMIC_CACHE 16 /* replies kept for duplicate atomics, >= max_dest_rd_atomic */
#define ROCE_READ_REPLAY 16  /* READ requests kept for duplicate replay */

/* X(name): how the completer took a response packet (ACK, NAK, READ response, atomic ACK);
 * each has its row in roce_completer.c's outcome table, and a counter in telemetry */
#define ROCE_COMP_OUTCOMES(X)                                                                      \
	X(IGNORED)	  /* not an RC QP in RTS, or an opcode that is no response: dropped */     \
	X(GHOST)	  /* an answer for a PSN never sent: acknowledges nothing */               \
	X(READ_RESPONSE)  /* READ response data, placed or refused by read_response() */           \
	X(ATOMIC_ACK)	  /* atomic ACK with its original value */                                 \
	X(STALE_NAK)	  /* a NAK behind what is acknowledged (duplicated or overtaken) */        \
	X(ACK)		  /* acknowledges up to its PSN */                                         \
	X(RNR_NAK)	  /* receiver not ready: acknowledged before it, resend after its timer */ \
	X(NAK_SEQ)	  /* PSN sequence error: acknowledged before it, go back to it */          \
	X(NAK_REM_ACCESS) /* remote access error: fatal */                                         \
	X(NAK_REM_OP)	  /* remote operational error: fatal */                                    \
	X(NAK_INV_REQ)	  /* invalid request (and unknown NAK codes): fatal */                     \
	X(RESERVED)	  /* a reserved AETH syndrome: ignored */

#define ROCE_COMP_ENUM_(n) ROCE_COMP_##n,
enum roce_comp_outcome { ROCE_COMP_OUTCOMES(ROCE_COMP_ENUM_) ROCE_COMP_NUM };
#undef ROCE_COMP_ENUM_

/** Requester: where segmentation of the send queue stands. */
struct roce_req {
	uint32_t psn;	      /**< next PSN to send */
	uint64_t cur;	      /**< WQE being sent (sq.tail <= cur <= sq.head) */
	uint32_t off;	      /**< bytes of it already sent */
	uint32_t rd_out;      /**< READ / atomic requests awaiting responses */
	uint32_t high_psn;    /**< one past the highest PSN sent so far (new vs. resent) */
	bool halted;	      /**< a local operation failed: nothing more is sent (the QP fails) */
	uint64_t burst_epoch; /**< the device's poll count when burst_sent was last reset */
	uint32_t burst_sent;  /**< packets sent since then: the poll and posts share one burst */
};

/** PSNs past the oldest missing one whose READ responses the completer places at once. */
#define ROCE_READ_AHEAD 8192

/** Completer: acknowledgement and retry state (one deadline per QP). */
struct roce_comp {
	uint32_t psn;	    /**< oldest unacknowledged PSN */
	uint32_t cwnd;	    /**< PSNs we may have unacknowledged (AIMD; the requester reads it) */
	uint32_t ssthresh;  /**< below it cwnd doubles per round trip, above it grows by one */
	uint32_t read_off;  /**< bytes of the READ at sq.tail already placed */
	uint64_t deadline;  /**< TSC of the retransmission timeout; 0 = none armed */
	uint64_t rnr_until; /**< TSC before which nothing is resent after an RNR NAK */
	uint8_t retry_left;
	uint8_t rnr_left;
	/* the adaptive retransmission timer (RFC 6298 estimator over Karn samples) */
	uint64_t epoch;	     /**< TSC the configured timeout counts from (progress or retry) */
	uint64_t srtt;	     /**< smoothed RTT in TSC cycles; 0 = no sample yet */
	uint64_t rttvar;     /**< its mean deviation */
	uint64_t rto;	     /**< the adaptive timeout now (backed off on expiry) */
	uint64_t sample_tsc; /**< when sample_psn left; 0 = no sample running */
	uint32_t sample_psn;
	uint32_t read_gap; /**< 1 + the PSN the head READ was last re-issued from (0: never) */
	uint32_t acked;	   /**< PSNs acknowledged towards the next additive cwnd step */
	uint32_t recover;  /**< in recovery until psn passes this (the window's end at the cut) */
	bool in_recovery;  /**< the window was cut for a loss in the current window */
	/* READ responses placed ahead of comp.psn (a gap before them): bit PSN % ROCE_READ_AHEAD,
	 * for PSNs of the head READ within ROCE_READ_AHEAD after comp.psn */
	uint64_t ahead[ROCE_READ_AHEAD / 64];
	uint32_t ahead_n;   /**< bits set in ahead[] */
	uint32_t read_last; /**< 1 + the PSN of the last response to the head READ (0: none) */
	uint32_t read_hi;   /**< 1 + the highest PSN of a response to it (0: none) */
	bool alive;	    /**< the responder sent responses to older requests since the timer
			    *   was last armed by a (re)issue or a wait (responder_alive()) */
	uint64_t hold_from; /**< TSC of the last progress, retry or arming from idle: answers
			     *   to older requests re-arm the timer only within
			     *   ROCE_STALE_HOLD configured timeouts of it */
	uint64_t outcome[ROCE_COMP_NUM]; /**< responses by outcome (telemetry) */
};

/** The word of comp.ahead[] that holds @psn's bit, and the bit's mask in *mask. */
static inline uint64_t *roce_comp_ahead_word(struct roce_comp *c, uint32_t psn, uint64_t *mask)
{
	uint32_t bit = psn & (ROCE_READ_AHEAD - 1);

	*mask = 1ull << (bit % 64);
	return &c->ahead[bit / 64];
}

/* X(name): how the responder finished with a request; each has its answer in
 * roce_responder.c's outcome table, and a counter in telemetry. */
#define ROCE_RESP_OUTCOMES(X)                                                                      \
	X(PLACED)	     /* data placed or nothing to place; ACK if AckReq */                  \
	X(ANSWERED)	     /* READ / atomic: the responses are the answer */                     \
	X(DUPLICATE)	     /* re-ACKed, READ replayed or atomic answered from the cache */       \
	X(ERR_PSN_SEQ)	     /* a gap: NAK-sequence-error with the expected PSN */                 \
	X(ERR_PSN_SEQ_QUIET) /* the same gap again: already NAKed, dropped */                      \
	X(ERR_RNR)	     /* no receive WQE: RNR NAK, PSN not consumed */                       \
	X(ERR_RKEY)	     /* rkey, bounds or rights: remote access error, fatal */              \
	X(ERR_MR_GONE)	     /* region gone mid-WRITE/READ: remote access error, fatal */          \
	X(ERR_OPCODE_SEQ)    /* out-of-sequence opcode: invalid request, fatal */                  \
	X(ERR_LENGTH)	     /* packet or message length: invalid request, fatal */                \
	X(ERR_RESOURCES)     /* beyond max_dest_rd_atomic: invalid request, fatal */               \
	X(ERR_INVALIDATE)    /* SEND with invalidate of a key that cannot be: invalid request */   \
	X(ERR_ALIGNMENT)     /* misaligned atomic: invalid request, fatal */                       \
	X(ERR_OPCODE)	     /* an opcode the QP does not take: invalid request, fatal */          \
	X(DROP_UC_BEHIND)    /* UC: PSN behind the expected one (a replay): dropped */             \
	X(DROP_UC_RESYNC)    /* UC: PSN ahead, not a FIRST/ONLY: the message is lost, dropped */   \
	X(DROP_DUP_READ_UNKNOWN)  /* duplicate READ at a PSN no READ we received holds */          \
	X(DROP_DUP_READ_MISMATCH) /* duplicate READ not the rest of that READ from its PSN */      \
	X(ERR_LOCAL_WQE) /* the receive WQE's region is gone: remote operational error, fatal */   \
	X(DROP_NOMEM)	 /* ROCE_RECV_MBUF: no mbuf to keep the payload in: dropped, resent */

#define ROCE_RESP_ENUM_(n) ROCE_RESP_##n,
enum roce_resp_outcome { ROCE_RESP_OUTCOMES(ROCE_RESP_ENUM_) ROCE_RESP_NUM };
#undef ROCE_RESP_ENUM_

/** A READ being answered: responses for [va + off, va + len) under rkey from PSN psn on.
 * No pointer is kept: each response looks the rkey up again (issue 11 item 1). */
struct roce_read_job {
	uint64_t va;
	uint32_t rkey;
	uint32_t len, off, psn;
};

/** Responder: receive-side sequence state and the message in progress. */
struct roce_resp {
	uint32_t psn;	       /**< expected PSN */
	uint32_t msn;	       /**< messages completed (AETH MSN) */
	bool nak_sent;	       /**< one NAK per sequence gap (IBA 9.7.5.2.2) */
	bool recv_active;      /**< a multi-packet SEND is being placed */
	struct roce_rwqe rwqe; /**< its receive WQE */
	bool rwqe_kept;	       /**< UC: rwqe is a lost message's, for the next SEND */
	uint32_t recv_off;
	bool write_active;   /**< a multi-packet WRITE is being placed */
	uint32_t write_rkey; /**< its rkey, looked up again for every packet (issue 11 item 1) */
	uint64_t write_va;   /**< where its next payload byte goes (iova) */
	uint32_t write_left;
	bool write_imm_pending; /**< WRITE_LAST_WITH_IMM needs a receive WQE */
	struct {
		uint32_t psn;
		uint64_t orig;
		bool valid;
	} atomic[ROCE_ATOMIC_CACHE];
	struct {
		uint32_t psn, npsn, rkey, len;
		uint64_t va;
		bool valid;
	} read[ROCE_READ_REPLAY];
	uint8_t atomic_next, read_next;
	uint8_t atomic_live, read_live; /**< valid entries of atomic[] and read[] */
	/* READ responses still to send, oldest first: sent at most RESP_READ_BURST per poll so a
	 * 16 MiB READ never floods the TX ring or the mbuf pool */
	struct roce_read_job rq[ROCE_MAX_RD_ATOMIC + 1];
	uint64_t outcome[ROCE_RESP_NUM]; /**< requests by outcome (telemetry) */
	uint8_t rq_head, rq_count;
	/* the ACK AckReq asked for, held until the receive burst is through (the device poll
	 * sends it, roce_responder_flush_ack): one ACK for every request of a burst */
	bool ack_pending;
	uint32_t ack_psn, ack_msn; /**< the newest AckReq'd request placed, and its MSN */
};

/* X(name): per-QP engine counters, exported by /droce/roce (written by the owning lcore). */
#define ROCE_QP_COUNTERS(X)                                                                        \
	X(tx_pkts)                                                                                 \
	X(tx_failed)                                                                               \
	X(acks_coalesced) /* AckReq'd requests answered by the burst's one ACK, not their own */   \
	X(rx_pkts)                                                                                 \
	X(retransmits)                                                                             \
	X(timeouts)                                                                                \
	X(rto_early)                                                                               \
	X(backlog_waits) /* configured timeouts waited out: the responder was still replaying */   \
	X(stale_capped)	 /* answers to older requests that no longer re-armed the timer */         \
	X(cwnd_cut_skipped)                                                                        \
	X(nak_seq_tx)                                                                              \
	X(nak_seq_rx)                                                                              \
	X(rnr_nak_tx)                                                                              \
	X(rnr_nak_rx)                                                                              \
	X(acks_rx)	/* ACKs (AETH syndrome ACK) received */                                    \
	X(nak_fatal_rx) /* NAKs that end the QP received: invalid request, access, operational */  \
	X(nak_fatal_tx)                                                                            \
	X(duplicates_rx)                                                                           \
	X(ghost_acks)                                                                              \
	X(replays_rx)  /* READ responses / atomic ACKs for PSNs already completed */               \
	X(dup_acks_rx) /* ACKs for PSNs already acknowledged: answers to duplicates of ours */     \
	X(read_ahead_placed) /* READ responses placed past a lost one (not resent for it) */       \
	X(bad_read_resp)     /* READ response out of FIRST/MIDDLE/LAST order or size: BAD_RESP */  \
	X(local_mr_gone) /* data for a local region deregistered or invalidated since the post */  \
	X(rx_mbuf_nomem) /* payload for an mbuf chain dropped: no mbuf to clone a shared frame */  \
	X(cnp_tx)                                                                                  \
	X(cnp_rx)                                                                                  \
	X(lcore_moves) /* times its engines ran on another lcore than the time before (1: one) */

#define ROCE_QPC_ENUM_(n) ROCE_QPC_##n,
enum roce_qp_counter { ROCE_QP_COUNTERS(ROCE_QPC_ENUM_) ROCE_QPC_NUM };
#undef ROCE_QPC_ENUM_

struct stk_lcore;

struct roce_qp {
	struct roce_pd *pd;
	uint32_t qpn;
	enum roce_qp_type type;
	enum roce_qp_state state;
	struct roce_qp_attr attr;      /**< as last set by roce_modify_qp() */
	struct roce_qp_init_attr init; /**< with granted caps */
	struct roce_wq sq;
	struct roce_wq rq; /**< unused with an SRQ */
	struct roce_req req;
	struct roce_comp comp;
	struct roce_resp resp;
	uint64_t cnt[ROCE_QPC_NUM];  /**< enum roce_qp_counter */
	struct roce_qp *next_polled; /**< the lcore's list of QPs it runs */
	bool cc;		     /**< DCQCN reaction point active (rp) */
	struct roce_dcqcn_rp rp;
	uint64_t last_cnp; /**< NP: when this QP last sent a CNP */
	bool polled;
	bool fail_pending;	   /**< its CQ went to error: to ERR at the next safe point */
	bool rung;		   /**< on dev->rung: the doorbell runs its requester */
	struct roce_qp *next_rung; /**< lane->rung list */
	struct roce_lane *lane;	   /**< the lane that runs it now (read by other lanes: atomic) */
	uint8_t home;		   /**< the lane it runs on from RTS on (placement) */
	bool released;		   /**< its lane let it go (roce_destroy_qp() from another lcore) */
	struct roce_lane *release_asked; /**< the lane RELEASE was queued for */
	uint16_t gen;			 /**< the device's QP generation at its creation */
	bool move_pending;		 /**< on lane->moving: goes home at the poll's end */
	bool joining;			 /**< a JOIN is queued for its home (move_home()) */
	struct roce_qp *next_moving;
	bool unpublished;		/**< out of the QPN table: the grace period runs */
	unsigned ran_on;		/**< lcore its engines last ran on (lcore_moves) */
	uint64_t grace[ROCE_MAX_LANES]; /**< lanes' poll_epoch at the release */
};

/** @p qp's engines run on @p lcore: count a change of lcore (one lane runs a QP at a time, so
 * a QP that changes more than once after its move home shows a threading bug). */
static inline void roce_qp_ran_on(struct roce_qp *qp, unsigned lcore)
{
	if (unlikely(qp->ran_on != lcore)) {
		qp->ran_on = lcore;
		qp->cnt[ROCE_QPC_lcore_moves]++;
	}
}

/** Number of entries in a work queue. */
static inline uint32_t roce_wq_count(const struct roce_wq *q)
{
	return (uint32_t)(q->head - q->tail);
}

static inline struct roce_swqe *roce_sq_at(const struct roce_wq *q, uint64_t i)
{
	return &((struct roce_swqe *)q->e)[i & q->mask];
}

static inline struct roce_rwqe *roce_rq_at(const struct roce_wq *q, uint64_t i)
{
	return &((struct roce_rwqe *)q->e)[i & q->mask];
}

/** A send WQE leaves its queue (completed, flushed, dropped): free its ROCE_SEND_MBUF chain
 * (the payload the QP took at post, or a READ's responses not handed over). */
static inline void roce_swqe_release(struct roce_swqe *e)
{
	if (unlikely(e->wr.send_flags & ROCE_SEND_MBUF) && e->wr.mbuf) {
		rte_pktmbuf_free(e->wr.mbuf);
		e->wr.mbuf = NULL;
	}
}

/** A receive WQE leaves (completed with an error, flushed, reset): free the chain it holds. */
static inline void roce_rwqe_release(struct roce_rwqe *w)
{
	if (unlikely(w->chain != NULL)) {
		rte_pktmbuf_free(w->chain);
		w->chain = w->ctail = NULL;
	}
}

/** @return true for a valid combination of enum roce_access bits. */
bool roce_access_ok(uint32_t access);

/** Create / free a work queue with entries of @p esize bytes. */
int roce_wq_init(struct roce_wq *q, uint32_t max_wr, uint32_t max_sge, size_t esize);
void roce_wq_fini(struct roce_wq *q);

/**
 * The IOVA of [@p p, @p p + @p len) in region @p mr (ROCE_RESERVED_LKEY's included), from
 * what registration resolved: no system call, no table walk beyond one index.
 * @return true with *iova set, or false when the bytes cross pages whose IOVAs are not
 * contiguous (attach them as one buffer and a NIC would read the wrong bytes: copy them).
 */
bool roce_mr_dma(const struct roce_mr *mr, const void *p, uint32_t len, uint64_t *iova);

/** Resolve the IOVAs of @p mr's [addr, addr+length) (registration, REG_MR). @return 0 or
 * -ENOMEM. */
int roce_mr_dma_resolve(struct roce_mr *mr);

/** Check one receive WR against @p pd and copy it into @p e. @return 0 or -EINVAL. */
int roce_rwqe_fill(struct roce_dev *dev, const struct roce_pd *pd, uint32_t max_sge,
		   const struct roce_recv_wr *wr, struct roce_rwqe *e);

/* ------------------------------------------------------------------ events (roce_event.c) */

/**
 * Queue an asynchronous event of type @p t naming @p obj (a struct roce_cq, roce_qp or
 * roce_srq as roce_event_type_elem(t) says; ignored for port and device events), with the
 * object's context. Never calls the handler (roce_event_dispatch() does, at a safe point);
 * counts it in async_raised[t], or in async_dropped when the queue is full.
 */
void roce_event_raise(struct roce_dev *dev, enum roce_event_type t, void *obj);

/** @return whether droce raises events of type @p t (telemetry lists those). */
bool roce_event_type_raised(enum roce_event_type t);

/** The object @p obj (QP, CQ or SRQ) is being destroyed: remove its queued events. */
void roce_event_purge(struct roce_dev *dev, const void *obj);

/** Hand @p lane's queued events to the handler, if one is set (end of its poll). */
void roce_event_dispatch(struct roce_lane *lane);

/** Read the port's link: raise PORT_ACTIVE / PORT_ERR on a change, DEVICE_FATAL when the
 * port is gone (every QP to ERR). Called from roce_dev_poll() when @p now passes link_next. */
void roce_dev_link_check(struct roce_dev *dev, uint64_t now);

/**
 * Add a completion of @p qp's to @p cq (its send or receive CQ): sets wc->qp and wc->qp_num.
 * When the CQ cannot take it (overflow, or already in error), the completion is lost and
 * counted, and the QP is marked to go to ERR at the next safe point (roce_dev_fail_pending()):
 * not at once, because the caller is in the middle of its queues.
 */
void roce_qp_complete(struct roce_qp *qp, struct roce_cq *cq, struct roce_wc *wc);

/** Move every QP of @p lane marked by a CQ error to ERR with QP_FATAL. */
void roce_lane_fail_qps(struct roce_lane *lane);

/** A safe point (no engine is in the middle of a QP's queues): fail the QPs a CQ error marked.
 * One load and a branch when nothing is marked. */
static inline void roce_lane_fail_pending(struct roce_lane *lane)
{
	if (unlikely(lane->fail_pending))
		roce_lane_fail_qps(lane);
}

/** A receive WQE was taken from @p srq: raise SRQ_LIMIT_REACHED (and disarm) when fewer than
 * the armed limit are left. */
static inline void roce_srq_taken(struct roce_srq *srq)
{
	if (unlikely(srq->srq_limit) && roce_wq_count(&srq->rq) < srq->srq_limit) {
		srq->srq_limit = 0;
		roce_event_raise(srq->pd->dev, ROCE_EVENT_SRQ_LIMIT_REACHED, srq);
	}
}

/* ------------------------------------------------------------------ lanes (roce_lane.c) */

/** @return the lane @p lcore runs for @p dev, or NULL. */
static inline struct roce_lane *roce_lane_of(struct roce_dev *dev, unsigned lcore)
{
	uint8_t i = lcore < RTE_MAX_LCORE ? dev->lane_of[lcore] : ROCE_LANE_NONE;

	return i == ROCE_LANE_NONE ? NULL : &dev->lane[i];
}

/** @return the QP numbered @p qpn, or NULL (other lanes look QPs up as frames arrive: the
 * table's entries are published and cleared atomically, roce_qp.c). */
static inline struct roce_qp *roce_qp_by_num(struct roce_dev *dev, uint32_t qpn)
{
	if (qpn == ROCE_GSI_QPN)
		return __atomic_load_n(&dev->gsi, __ATOMIC_ACQUIRE);
	if (qpn < ROCE_FIRST_QPN || qpn >= ROCE_FIRST_QPN + ROCE_MAX_QP)
		return NULL;
	return __atomic_load_n(&dev->qps[qpn - ROCE_FIRST_QPN], __ATOMIC_ACQUIRE);
}

/** @return the lane that runs @p qp now (another lane may read it while it moves). */
static inline struct roce_lane *roce_qp_lane(const struct roce_qp *qp)
{
	return __atomic_load_n(&qp->lane, __ATOMIC_ACQUIRE);
}

/** A receive counter (enum roce_rx_counter) / a decoder drop reason, summed over the lanes. */
uint64_t roce_dev_rx_drops(const struct roce_dev *dev, unsigned k);
uint64_t roce_dev_decode_drops(const struct roce_dev *dev, unsigned k);

/** @return whether a lane of @p dev other than the caller's runs (its lcore polls it). */
bool roce_dev_others_run(struct roce_dev *dev);

/** Is the calling thread @p lane's lcore, or does no lcore run the lane yet? */
bool roce_lane_here(const struct roce_lane *lane);

/** The lane @p lcore runs for @p dev at the start of its poll (claiming the only lane of a
 * device without roce_dev_set_lcores()), or NULL: it runs none. */
struct roce_lane *roce_lane_enter(struct roce_dev *dev, unsigned lcore);

/**
 * May the calling thread use an object of @p lane (post, poll, modify)? Yes on the lane's
 * lcore, and on any thread while no lcore runs the lane yet (set-up). Another lcore is
 * refused: counted in wrong_lcore, and a panic in debug builds (ROCE_DEBUG).
 */
bool roce_lane_mine_check(struct roce_lane *lane);
static inline bool roce_lane_mine(struct roce_lane *lane)
{
	/* a one-lane device (every device before issue 12 item 7): no call out, no TLS read */
	return likely(lane->dev->nlanes == 1) || roce_lane_mine_check(lane);
}
/** Debug builds: roce_lane_mine() panics on a refusal (a test of the refusal turns it off). */
extern bool roce_wrong_lcore_panics;

/** Set up lane @p i of @p dev (its rings). @return 0 or -ENOMEM. */
int roce_lane_init(struct roce_dev *dev, unsigned i);
/** Free lane @p i's rings and the frames still in them. */
void roce_lane_fini(struct roce_dev *dev, unsigned i);

/** The lane a new QP will run on from RTS on (the device's placement, or @p init's lcore).
 * @return its index, or -EINVAL when @p init names an lcore that runs no lane. */
int roce_lane_place(struct roce_dev *dev, const struct roce_qp_init_attr *init);

/** Link @p qp into its lane's polled list: directly on the lane's lcore or while the lane is
 * not live, else through the lane's command ring. */
void roce_lane_link(struct roce_qp *qp);
/** Take @p qp off its lane's polled list (the lane's lcore, or while it is not live). */
void roce_lane_unlink(struct roce_qp *qp);
/** @p qp reached RTS: move it to its home lane, if it is not there - at the end of the
 * running lane's poll when called on its lcore, else at once. */
void roce_lane_go_home(struct roce_qp *qp);
/** End of @p lane's poll: move the QPs that reached RTS on it to their home lanes. */
void roce_lane_run_moves(struct roce_lane *lane);
/** @p qp is being destroyed or released: take it off its lane's moving list. */
void roce_lane_forget_move(struct roce_qp *qp);

/** QP commands another lcore queues for a QP's lane. */
enum roce_lane_cmd_type {
	ROCE_LANE_CMD_JOIN,    /**< link the QP into the lane's polled list */
	ROCE_LANE_CMD_FAIL,    /**< modify it to ERR (the CM's disconnect) */
	ROCE_LANE_CMD_RELEASE, /**< stop running it: roce_destroy_qp() from another lcore */
};
/** Queue command @p t for @p qp on its lane. @return 0 or -ENOBUFS. */
int roce_lane_cmd(struct roce_qp *qp, enum roce_lane_cmd_type t);

/** Run @p lane's queued commands (start of its poll). */
void roce_lane_run_cmds(struct roce_lane *lane);

/* ------------------------------------------------------------------ posting (roce_post.c) */

/**
 * Send WRs were queued on @p qp (roce_post_send()): start them per the device's post mode -
 * on the owner lcore, run the requester now and flush the TX buffers, or ring the doorbell
 * (inside the engines, or in DOORBELL mode); from another thread, nothing (the owner's poll).
 */
void roce_post_kick(struct roce_qp *qp);

/** @p qp is being destroyed: take it off the doorbell's list. */
void roce_post_forget(struct roce_qp *qp);

/** @p lane's device is being closed: cancel its queued doorbell. */
void roce_post_lane_close(struct roce_lane *lane);

struct roce_cm;
/** Run the CM of a device: its QP1 completions and timers (from roce_dev_poll). */
void roce_cm_tick(struct roce_cm *cm, uint64_t now);
/**
 * A QP is being destroyed: detach it from every CM identifier that holds it, as
 * rdma_destroy_qp() does, so the CM never touches it (or a QP later created in its memory)
 * again.
 */
void roce_cm_qp_destroyed(const struct roce_qp *qp);
struct rte_tel_data;
/** Fill @p d with the CM's counters (for /droce/roce). */
void roce_cm_telemetry(const struct roce_cm *cm, struct rte_tel_data *d);

#endif /* ROCE_INT_H */
