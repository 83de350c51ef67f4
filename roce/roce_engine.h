/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_engine.h - the RC/UC/UD engines, internal to roce/:
 *   roce_rx.c         UDP 4791 hook: decode, ICRC, QP lookup, handoff to the QP's lane, dispatch
 *   roce_poll.c       the device poll of each lane
 *   roce_engine.c     engine life cycle (RTR, RTS, stop, fatal), DCQCN parameters
 *   roce_xmit.c       transmit one packet, copy and scatter payload bytes
 *   roce_timer.c      IBA timer encodings
 *   roce_requester.c  send queue -> request packets (segmentation, PSNs, READ/atomic limits)
 *   roce_responder.c  request packets -> placement, receive completions, ACK/NAK/responses
 *   roce_completer.c  ACK/NAK/responses -> send completions; retransmission and RNR timers
 * All of it runs on the lcore of the lane that runs the QP, without locks.
 */
#ifndef ROCE_ENGINE_H
#define ROCE_ENGINE_H

#include "roce_int.h"
#include "roce_pkt.h"
#include "roce_tx.h"
#include "stk_lcore.h"

/** Devices by stack interface index, and how many are open. */
extern struct roce_dev *roce_devs[STK_MAX_PORTS];
extern unsigned roce_nb_devs;

/** false: skip the ICRC check so fuzzers reach the engines (never in production). */
extern bool roce_icrc_enforce;

/** Free callback of a region's zero-copy shared info: the memory is the application's. */
void roce_zc_free(void *addr, void *opaque);

/** Register /droce/roce (once). @return 0 or a telemetry error. */
int roce_telemetry_register(void);

/** Receive hook bound to UDP 4791 (stk_udp_bind). */
int roce_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
	    const struct stk_pkt *p, void *arg);

/** Send what the send queue allows. */
void roce_requester_run(struct roce_qp *qp, struct stk_lcore *lc, uint64_t now);

/**
 * Go-back-N, asked by the completer: resume sending at PSN @p psn (not behind the oldest
 * unacknowledged one), inside the WQE that holds it; a READ at the head resumes @p read_off
 * bytes in (what its responses already placed). The requester's state is its own: only it
 * moves its position, its PSN and its count of outstanding READs and atomics.
 * @return the index of the WQE it resumes, or UINT64_MAX when no sent WQE holds @p psn.
 */
uint64_t roce_requester_rewind(struct roce_qp *qp, uint32_t psn, uint32_t read_off);

/** A READ or atomic WQE completed: one less outstanding (the completer tells the requester). */
void roce_requester_rd_done(struct roce_qp *qp);

/** A new PSN @p psn that asks for an answer left at @p now: the completer times one at a time
 * (Karn) for the adaptive retransmission timeout. */
void roce_completer_sample(struct roce_qp *qp, uint32_t psn, uint64_t now);

/** Handle a request packet addressed to @p qp. Takes @p m. */
void roce_responder_rx(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
		       const struct roce_pkt *rp);

/** Send pending READ responses (a bounded burst). */
void roce_responder_run(struct roce_qp *qp, struct stk_lcore *lc);

/** Send the ACK held for the requests of a receive burst (qp->resp.ack_pending), if any: from
 * the device poll after the burst, and before anything else the responder sends, so that
 * answers leave in PSN order. */
void roce_responder_flush_ack(struct roce_qp *qp, struct stk_lcore *lc);

/** Handle an ACK, NAK, READ response or atomic ACK for @p qp. Takes @p m. */
void roce_completer_rx(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
		       const struct roce_pkt *rp);

/** Timers: retransmission and RNR. */
void roce_completer_tick(struct roce_qp *qp, struct stk_lcore *lc, uint64_t now);

/**
 * Frame and transmit one packet of @p qp. @p zc: the region @p payload lies in, attached
 * zero-copy under the region's reference (roce_dereg_mr() waits for it); NULL: copied.
 * @return 0 or -errno (the packet is dropped).
 */
int roce_qp_xmit(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t, const void *payload,
		 uint32_t len, struct roce_mr *zc);

/** The same to an explicit destination (UD address handles). */
int roce_qp_xmit_to(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t,
		    const void *payload, uint32_t len, struct roce_mr *zc,
		    const struct roce_path *path);

/**
 * roce_qp_xmit_to() of [@p off, @p off + @p len) of send WQE @p e's mbuf chain
 * (ROCE_SEND_MBUF): the frame points into the chain's segments (roce_tx_build_mbuf()).
 */
int roce_qp_xmit_mbuf(struct roce_qp *qp, struct stk_lcore *lc, struct roce_tx *t,
		      struct roce_swqe *e, uint32_t off, uint32_t len,
		      const struct roce_path *path);

/**
 * Keep a received frame's payload, [@p off, @p off + @p len), as an mbuf chain: the frame's
 * own segments, the headers' cut off the front and pad and ICRC off the back, nothing copied
 * (a frame whose segments are shared is cloned first, from @p mp). Takes @p m in every case.
 * @return the chain, or NULL (no mbuf for the clone; @p len 0).
 */
struct rte_mbuf *roce_mbuf_payload(struct rte_mbuf *m, uint32_t off, uint32_t len,
				   struct rte_mempool *mp);

/**
 * Keep a received frame's payload (@p rp's) at the end of the chain *@p head / *@p tail
 * (roce_mbuf_payload(), then appended). Takes *@p mp in every case (set to NULL).
 * @return 0; -ENOMEM, no mbuf to clone a shared frame (counted rx_mbuf_nomem: the packet is
 * lost, as dropped); -E2BIG, the chain would pass RTE_MBUF_MAX_NB_SEGS segments.
 */
int roce_mbuf_keep(struct roce_qp *qp, struct rte_mbuf **mp, const struct roce_pkt *rp,
		   struct rte_mbuf **head, struct rte_mbuf **tail);

/** Move @p qp to ERR after a fatal error: complete the WQE at the head with @p status, flush
 * the rest (IBA 10.3.1.7). */
void roce_qp_fatal(struct roce_qp *qp, enum roce_wc_status status);

/** Copy @p len bytes at @p off of a frame out to @p dst. */
void roce_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst);

/**
 * Copy @p len bytes at frame offset @p off into an SGE list, starting @p at bytes into it
 * (receive WQEs and READ responses both place data this way). Bytes beyond the list are not
 * written; callers check the length first.
 */
void roce_sge_scatter(const struct roce_sge *sge, uint32_t nsge, const struct rte_mbuf *m,
		      uint32_t off, uint32_t len, uint32_t at);

/**
 * May bytes [@p at, @p at + @p len) of @p qp's SGE list be written now? Every SGE they touch
 * is looked up again by its lkey (local write, on the QP's PD): the region it was posted
 * under may have been deregistered or invalidated since (issue 11 item 1; rxe's copy_data()
 * looks the lkey up at every copy). Call before roce_sge_scatter() or any other write.
 * @return true when all of them may be written.
 */
bool roce_sge_writable(const struct roce_qp *qp, const struct roce_sge *sge, uint32_t nsge,
		       uint32_t at, uint32_t len);

/** Path MTU of @p qp in bytes. */
static inline uint32_t roce_qp_mtu(const struct roce_qp *qp)
{
	return roce_mtu_bytes(qp->attr.path_mtu);
}

/** IBA 9.7.6.1.3: local ACK timeout 4.096 us * 2^timeout, in TSC cycles; 0 = none. */
uint64_t roce_timeout_tsc(uint8_t timeout);

/** IBA's time code: 4.096 us * 2^exp in TSC cycles (exp clamped to 31), for the QP's and the
 * CM's timeouts alike. */
uint64_t roce_exp_tsc(unsigned exp);

/** In-flight window (PSNs): the most, the start, the least after losses. */
#define ROCE_CWND_MAX 1024
#define ROCE_CWND_INIT 128
#define ROCE_CWND_MIN 16

/** Configured timeouts since the last progress or retry within which answers to older
 * requests (duplicate ACKs, replayed READ responses) still re-arm the retransmission timer
 * (roce_completer.c responder_alive()). */
#define ROCE_STALE_HOLD 16

/** Default floor of the adaptive retransmission timeout (roce_dev_set_rto_min()). */
#define ROCE_RTO_MIN_US 500

/** Arm the QP's retransmission deadline from @p now if it is not armed (requester). */
void roce_completer_arm(struct roce_qp *qp, uint64_t now);

/** IBA Table 45: RNR timer code -> TSC cycles. */
uint64_t roce_rnr_tsc(uint8_t code);

/** Entering RTR: the responder starts at rq_psn. */
void roce_qp_engine_rtr(struct roce_qp *qp);

/** Entering RTS: the requester and completer start at sq_psn; the device polls the QP. */
void roce_qp_engine_rts(struct roce_qp *qp);

/** The QP is destroyed: the device stops polling it. */
void roce_qp_engine_stop(struct roce_qp *qp);

/** Run every started QP of @p dev once: requester, timers. Called from the lcore loop. */
void roce_dev_poll(struct roce_dev *dev, struct stk_lcore *lc);

/** A frame another lane (or an lcore running none) handed to @p lane (roce_poll.c). */
void roce_rx_handed(struct roce_lane *lane, struct stk_lcore *lc, struct roce_handoff *h);

#endif /* ROCE_ENGINE_H */
