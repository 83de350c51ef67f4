/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_responder.c - request packets in, placement and answers out (IBA 9.7.5):
 *   - PSN check: the expected PSN is processed; an earlier one is a duplicate (re-ACKed, a
 *     READ re-executed for the range it asks, an atomic answered from the result cache and
 *     never re-executed); a later one is a gap, answered with one NAK-sequence-error until the
 *     expected PSN arrives (C9-111);
 *   - SEND into the next receive WQE (RNR NAK with min_rnr_timer when there is none),
 *     WRITE into the region its RETH names, READ answered from the region, atomics executed
 *     on it: payload goes straight from the packet to its place;
 *   - an rkey, bounds or rights violation is NAKed remote-access-error, a malformed or
 *     unsupported request invalid-request, and for RC both move the QP to ERR (C9-114...):
 *     nothing is dropped silently in a way that leaves the requester retrying forever;
 *   - a receive WQE whose region is gone since the post (deregistered, invalidated) is never
 *     written: remote operational error, and the QP fails whatever its type (rxe's class A);
 *   - ACKs carry the MSN and go out when AckReq asks, one for a receive burst (defer_ack):
 *     requests without AckReq, and AckReq'd ones of the same burst, are coalesced into it.
 */
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "roce_psn.h"

static void xmit_ack(struct roce_qp *qp, struct stk_lcore *lc, uint8_t syndrome, uint32_t psn,
		     uint32_t msn)
{
	struct roce_tx t;

	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_ACKNOWLEDGE;
	t.dqpn = qp->attr.dest_qp_num;
	t.psn = psn;
	t.syndrome = syndrome;
	t.msn = msn;
	roce_qp_xmit(qp, lc, &t, NULL, 0, NULL);
}

void roce_responder_flush_ack(struct roce_qp *qp, struct stk_lcore *lc)
{
	if (!qp->resp.ack_pending)
		return;
	qp->resp.ack_pending = false;
	if (qp->state == ROCE_QPS_ERR || qp->state == ROCE_QPS_RESET)
		return;
	xmit_ack(qp, lc, ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID, qp->resp.ack_psn,
		 qp->resp.ack_msn);
}

/* An ACK or NAK now: the ACK held for the burst goes first (answers in PSN order). */
static void send_ack(struct roce_qp *qp, struct stk_lcore *lc, uint8_t syndrome, uint32_t psn)
{
	if (qp->type != ROCE_QPT_RC)
		return; /* UC and UD are never acknowledged */
	roce_responder_flush_ack(qp, lc);
	xmit_ack(qp, lc, syndrome, psn, qp->resp.msn);
}

/*
 * The ACK a request's AckReq asks for (IBA 9.7.5.1.2: one ACK may acknowledge every request
 * up to its PSN, "coalesced"): held while the receive burst goes on, and sent once by the
 * device poll after it (the same loop round, so the same TX burst), or before anything else
 * this responder sends. A burst of 32 small requests is answered by one ACK, not 32: their
 * ACKs cost the responder a frame and an ICRC each and the requester the same again.
 */
static void defer_ack(struct roce_qp *qp, uint32_t psn)
{
	if (qp->type != ROCE_QPT_RC)
		return;
	if (qp->resp.ack_pending)
		qp->cnt[ROCE_QPC_acks_coalesced]++; /* this request's ACK is the held one's */
	qp->resp.ack_pending = true;
	qp->resp.ack_psn = psn;
	qp->resp.ack_msn = qp->resp.msn;
}

/*
 * Every way the responder can finish with a request, and the answer each one gets: this list
 * is the responder's state machine in data (STYLE section 4): one place sends the answer and
 * counts the outcome (roce_resp_outcome_counts(), exported by /droce/roce).
 */
#define ACC_ ROCE_EVENT_QP_ACCESS_ERR
#define REQ_ ROCE_EVENT_QP_REQ_ERR
static const struct {
	uint8_t syndrome; /**< AETH to send; 0 = none (or the ACK AckReq asks for) */
	bool fatal;	  /**< RC: the QP moves to ERR after the NAK */
	/** fatal only: the affiliated asynchronous error raised at the responder (IBA C9-222.1.1,
	 * 10.10.2.3: Local Access Violation / Invalid Request Local WQ Error; rxe raises
	 * QP_ACCESS_ERR for rkey violations the same way) */
	enum roce_event_type event;
	bool local; /**< the fault is our own WQE's: UC and UD move to ERR too (class A) */
} outcome_tab[ROCE_RESP_NUM] = {
	[ROCE_RESP_PLACED] = {0, false},
	[ROCE_RESP_ANSWERED] = {0, false},
	[ROCE_RESP_DUPLICATE] = {0, false},
	[ROCE_RESP_ERR_PSN_SEQ] = {ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR, false},
	[ROCE_RESP_ERR_PSN_SEQ_QUIET] = {0, false},
	[ROCE_RESP_ERR_RNR] = {ROCE_AETH_RNR_NAK, false},
	[ROCE_RESP_ERR_RKEY] = {ROCE_AETH_NAK | ROCE_NAK_REM_ACCESS_ERR, true, ACC_},
	[ROCE_RESP_ERR_MR_GONE] = {ROCE_AETH_NAK | ROCE_NAK_REM_ACCESS_ERR, true, ACC_},
	[ROCE_RESP_ERR_OPCODE_SEQ] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_ERR_LENGTH] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_ERR_RESOURCES] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_ERR_INVALIDATE] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_ERR_ALIGNMENT] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_ERR_OPCODE] = {ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ, true, REQ_},
	[ROCE_RESP_DROP_UC_BEHIND] = {0, false},
	[ROCE_RESP_DROP_UC_RESYNC] = {0, false},
	[ROCE_RESP_DROP_DUP_READ_UNKNOWN] = {0, false},
	[ROCE_RESP_DROP_DUP_READ_MISMATCH] = {0, false},
	[ROCE_RESP_ERR_LOCAL_WQE] = {ROCE_AETH_NAK | ROCE_NAK_REM_OP_ERR, true, ROCE_EVENT_QP_FATAL,
				     true},
	[ROCE_RESP_DROP_NOMEM] = {0, false},
};
#undef ACC_
#undef REQ_

/* A fatal outcome on an RC QP: the affiliated error its table entry names, then ERR. */
static void resp_fail(struct roce_qp *qp, enum roce_resp_outcome o)
{
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

	if (qp->state != ROCE_QPS_ERR)
		roce_event_raise(qp->pd->dev, outcome_tab[o].event, qp);
	roce_modify_qp(qp, &a, ROCE_QP_STATE);
}

static void answer(struct roce_qp *qp, struct stk_lcore *lc, const struct roce_pkt *rp,
		   enum roce_resp_outcome o)
{
	uint8_t syn = outcome_tab[o].syndrome;

	qp->resp.outcome[o]++;
	if (o == ROCE_RESP_PLACED) {
		if (roce_bth_ackreq(rp->bth))
			defer_ack(qp, rp->psn);
		return;
	}
	if (o == ROCE_RESP_ERR_PSN_SEQ) {
		/* the NAK names the PSN we expect, not the one that arrived (IBA 9.7.5.2.1) */
		send_ack(qp, lc, syn, qp->resp.psn);
		qp->cnt[ROCE_QPC_nak_seq_tx]++;
		return;
	}
	if (o == ROCE_RESP_ERR_RNR) {
		/* the PSN is not consumed; the requester retries after our timer (9.7.5.2.8) */
		send_ack(qp, lc, (uint8_t)(syn | (qp->attr.min_rnr_timer & 31)), rp->psn);
		qp->cnt[ROCE_QPC_rnr_nak_tx]++;
		return;
	}
	if (!syn)
		return;
	send_ack(qp, lc, syn, rp->psn);
	qp->cnt[ROCE_QPC_nak_fatal_tx]++;
	if (outcome_tab[o].fatal && (qp->type == ROCE_QPT_RC || outcome_tab[o].local))
		resp_fail(qp, o);
}

/* A receive WQE is there to take: one a lost UC message left (claim_rwqe()), or one on the
 * QP's receive queue or its SRQ. */
static bool rwqe_ready(const struct roce_qp *qp)
{
	const struct roce_wq *rq = qp->init.srq ? &qp->init.srq->rq : &qp->rq;

	return qp->resp.rwqe_kept || rq->tail != rq->head;
}

static bool take_rwqe(struct roce_qp *qp, struct roce_rwqe *out)
{
	struct roce_wq *rq = qp->init.srq ? &qp->init.srq->rq : &qp->rq;

	if (rq->tail == rq->head)
		return false;
	*out = *roce_rq_at(rq, rq->tail);
	rq->tail++;
	if (qp->init.srq)
		roce_srq_taken(qp->init.srq);
	return true;
}

/*
 * The receive WQE of a new message that consumes one (a SEND, a WRITE with immediate), into
 * resp.rwqe: the one a UC message lost on the way left there (uc_abandon()), else the next one
 * queued. Every kind of message takes the kept WQE first, as in rxe, whose UC responder leaves
 * a dropped message's WQE at the head of the queue for whatever message comes next. (A WRITE
 * with immediate took the next queued WQE into resp.rwqe over the kept one, so that the next
 * SEND completed the WRITE's WQE a second time and the kept one never: found by
 * fuzz_roce_shapes.) @return false when there is none (RNR).
 */
static bool claim_rwqe(struct roce_qp *qp)
{
	if (qp->resp.rwqe_kept) {
		qp->resp.rwqe_kept = false;
		return true;
	}
	return take_rwqe(qp, &qp->resp.rwqe);
}

static void complete_recv(struct roce_qp *qp, struct roce_rwqe *w, enum roce_wc_status st,
			  enum roce_wc_opcode op, uint32_t len, const struct roce_pkt *rp)
{
	struct roce_wc wc;
	const struct roce_immdt *imm = roce_pkt_ext(rp, ROCE_EXT_IMMDT);
	const struct roce_ieth *ieth = roce_pkt_ext(rp, ROCE_EXT_IETH);

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = len;
	wc.src_qp = qp->attr.dest_qp_num;
	if (st == ROCE_WC_SUCCESS) {
		/* ROCE_RECV_MBUF: the message's chain is the consumer's now */
		wc.mbuf = w->chain;
		w->chain = w->ctail = NULL;
	} else {
		roce_rwqe_release(w);
	}
	if (imm) {
		wc.imm_data = imm->imm;
		wc.wc_flags |= ROCE_WC_WITH_IMM;
	} else if (ieth) {
		wc.invalidated_rkey = roce_ieth_rkey(ieth);
		wc.wc_flags |= ROCE_WC_WITH_INV;
	}
	roce_qp_complete(qp, qp->init.recv_cq, &wc);
}

/* The region an rkey names for [va, va+len) with @right, after every check. NULL: access
 * error. Looked up for every packet that touches memory, never kept across packets: a region
 * deregistered or invalidated in the middle of a message is not touched again (issue 11
 * item 1; rxe re-checks its rkey per packet too, rxe_recheck_mr()). */
static struct roce_mr *remote_mr(struct roce_qp *qp, uint32_t rkey, uint64_t va, uint64_t len,
				 uint32_t right)
{
	enum roce_key_err why;

	/* the QP must grant the right too (qp_access_flags, IBA 10.2.3) */
	if (!(qp->attr.qp_access_flags & right))
		return NULL;
	return roce_mr_lookup(qp->pd->dev, rkey, true, qp->pd, va, len, right, &why);
}

/* Does the QP take this kind of request at all (its access flags, IBA 10.2.3)? A WRITE, READ
 * or atomic the QP is not enabled for is an operation it does not support: NAK invalid
 * request, before any rkey is looked at (rxe's check_op_valid() the same); a region without
 * the right, on a QP that has it, is a remote access error (remote_mr()). */
static bool qp_enables(const struct roce_qp *qp, uint32_t flags)
{
	uint32_t need = flags & ROCE_OPF_WRITE	  ? ROCE_ACCESS_REMOTE_WRITE
			: flags & ROCE_OPF_READ	  ? ROCE_ACCESS_REMOTE_READ
			: flags & ROCE_OPF_ATOMIC ? ROCE_ACCESS_REMOTE_ATOMIC
						  : 0;

	return (qp->attr.qp_access_flags & need) == need;
}

static uint8_t *mr_ptr(const struct roce_mr *mr, uint64_t va)
{
	return (uint8_t *)mr->addr + (va - mr->iova);
}

#define RESP_READ_BURST 32 /* no more than the peer drains per RX burst */

/* Queue the READ responses for [va, va+len) under @rkey starting at @psn (also for replays). */
static void read_reply(struct roce_qp *qp, struct stk_lcore *lc, uint32_t rkey, uint64_t va,
		       uint32_t len, uint32_t psn)
{
	struct roce_resp *r = &qp->resp;
	unsigned slot;

	if (r->rq_count == RTE_DIM(r->rq))
		return; /* cannot happen: do_read() refuses beyond max_dest_rd_atomic */
	slot = (r->rq_head + r->rq_count) % RTE_DIM(r->rq);
	r->rq[slot].rkey = rkey;
	r->rq[slot].va = va;
	r->rq[slot].len = len;
	r->rq[slot].off = 0;
	r->rq[slot].psn = psn;
	r->rq_count++;
	roce_responder_run(qp, lc);
}

/*
 * The region a queued READ reads from was deregistered or invalidated: its remaining
 * responses are never sent. In their place goes a remote-access NAK with the PSN of the next
 * response (IBA 9.7.5.2.3: the responder may end a READ with a NAK at any response; rxe
 * answers a failed re-check the same way, RESPST_ERR_RKEY), which completes the READ with
 * REM_ACCESS_ERR at the requester; the QP fails, so the READs queued behind it are dropped.
 */
static void read_gone(struct roce_qp *qp, struct stk_lcore *lc, uint32_t psn)
{
	qp->resp.rq_count = 0;
	qp->resp.outcome[ROCE_RESP_ERR_MR_GONE]++;
	send_ack(qp, lc, outcome_tab[ROCE_RESP_ERR_MR_GONE].syndrome, psn);
	qp->cnt[ROCE_QPC_nak_fatal_tx]++;
	resp_fail(qp, ROCE_RESP_ERR_MR_GONE);
}

void roce_responder_run(struct roce_qp *qp, struct stk_lcore *lc)
{
	struct roce_resp *r = &qp->resp;
	uint32_t mtu = roce_qp_mtu(qp);
	unsigned sent = 0;

	roce_responder_flush_ack(qp, lc);
	while (r->rq_count && sent < RESP_READ_BURST) {
		struct roce_read_job *q = &r->rq[r->rq_head];
		uint32_t n = RTE_MIN(mtu, q->len - q->off);
		bool first = q->off == 0, last = q->off + n == q->len;
		struct roce_mr *mr = NULL;
		struct roce_tx t;

		if (n) {
			mr = remote_mr(qp, q->rkey, q->va + q->off, n, ROCE_ACCESS_REMOTE_READ);
			if (!mr) {
				read_gone(qp, lc, q->psn);
				return;
			}
		}
		memset(&t, 0, sizeof(t));
		t.opcode = first && last ? ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY
			   : first	 ? ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST
			   : last	 ? ROCE_OP_RC_RDMA_READ_RESPONSE_LAST
					 : ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		t.dqpn = qp->attr.dest_qp_num;
		t.psn = q->psn;
		t.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID;
		t.msn = r->msn;
		roce_qp_xmit(qp, lc, &t, n ? mr_ptr(mr, q->va + q->off) : NULL, n, mr);
		q->psn = roce_psn_add(q->psn, 1);
		q->off += n;
		sent++;
		if (last) {
			r->rq_head = (uint8_t)((r->rq_head + 1) % RTE_DIM(r->rq));
			r->rq_count--;
		}
	}
}

/*
 * The expected PSN moves on by @n. Replay history (the atomic results) only answers
 * duplicates, and a duplicate is at most 2^23 PSNs behind the expected PSN (IBA 9.7.5.1.1:
 * the other half of the PSN space is "invalid", i.e. ahead). An entry whose PSN falls out of
 * that window leaves the history at once; kept any longer, it would answer a request of a
 * later lap that reuses the PSN after the 2^24 wrap (issue 11 item 5). Entries are in PSN
 * order from the slot written next, so the scan stops at the first one still inside. A step
 * of 2^23 or more takes every entry out; smaller steps cannot carry an entry past a whole
 * lap between two scans.
 */
static void advance_psn(struct roce_resp *r, uint32_t n)
{
	r->psn = roce_psn_add(r->psn, n);
	for (unsigned k = 0; r->atomic_live && k < ROCE_ATOMIC_CACHE; k++) {
		unsigned i = (r->atomic_next + k) % ROCE_ATOMIC_CACHE;

		if (!r->atomic[i].valid)
			continue;
		if (n < (1u << 23) && roce_psn_cmp(r->atomic[i].psn, r->psn) < 0)
			break;
		r->atomic[i].valid = false;
		r->atomic_live--;
	}
	/* a READ stays while its last PSN is inside (a duplicate may ask for its tail) */
	for (unsigned k = 0; r->read_live && k < ROCE_READ_REPLAY; k++) {
		unsigned i = (r->read_next + k) % ROCE_READ_REPLAY;

		if (!r->read[i].valid)
			continue;
		if (n < (1u << 23) &&
		    roce_psn_cmp(roce_psn_add(r->read[i].psn, r->read[i].npsn - 1), r->psn) < 0)
			break;
		r->read[i].valid = false;
		r->read_live--;
	}
}

/*
 * A duplicate READ request (IBA 9.7.5.1): the requester lost responses and asks again from
 * the PSN of the first one it misses, with the RETH moved to that PSN's offset in the
 * original READ. Only a PSN inside a READ we received replays, and only when the RETH names
 * a part of that READ from its PSN's offset on under the same rkey (rxe's duplicate_request()
 * checks the rkey and that the range is a subset; we also pin the start to the PSN, so the
 * responses carry the bytes their PSNs stand for). Anything else is dropped silently and
 * counted (rxe: a class D error, dropped), and the READ responses still queued stay queued:
 * only a real replay supersedes them, because the requester asks again for every later READ.
 */
static enum roce_resp_outcome duplicate_read(struct roce_qp *qp, struct stk_lcore *lc,
					     const struct roce_pkt *rp)
{
	const struct roce_reth *reth = roce_pkt_ext(rp, ROCE_EXT_RETH);
	uint32_t len = roce_reth_len(reth), mtu = roce_qp_mtu(qp);
	struct roce_resp *r = &qp->resp;

	for (unsigned i = 0; i < ROCE_READ_REPLAY; i++) {
		uint32_t at = roce_psn_diff(rp->psn, r->read[i].psn);
		uint64_t off = (uint64_t)at * mtu;

		if (!r->read[i].valid || at >= r->read[i].npsn)
			continue;
		if (roce_reth_rkey(reth) != r->read[i].rkey ||
		    roce_reth_va(reth) != r->read[i].va + off || len > r->read[i].len - off)
			return ROCE_RESP_DROP_DUP_READ_MISMATCH;
		/* IBA 9.7.5.1.5.2: re-executed, so the access is checked again */
		if (len && !remote_mr(qp, r->read[i].rkey, roce_reth_va(reth), len,
				      ROCE_ACCESS_REMOTE_READ))
			return ROCE_RESP_DROP_DUP_READ_MISMATCH;
		r->rq_count = 0;
		read_reply(qp, lc, r->read[i].rkey, roce_reth_va(reth), len, rp->psn);
		return ROCE_RESP_DUPLICATE;
	}
	return ROCE_RESP_DROP_DUP_READ_UNKNOWN;
}

static enum roce_resp_outcome duplicate(struct roce_qp *qp, struct stk_lcore *lc,
					const struct roce_pkt *rp)
{
	if (rp->opcode == ROCE_OP_RC_RDMA_READ_REQUEST)
		return duplicate_read(qp, lc, rp);
	if (rp->op->flags & ROCE_OPF_ATOMIC) {
		/* IBA 9.7.5.1.5.3: never execute twice; answer from the cache, whose entries are
		 * all inside the duplicate window, so at most one has this PSN */
		for (int i = 0; i < ROCE_ATOMIC_CACHE; i++) {
			if (qp->resp.atomic[i].valid && qp->resp.atomic[i].psn == rp->psn) {
				struct roce_tx t;

				memset(&t, 0, sizeof(t));
				t.opcode = ROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
				t.dqpn = qp->attr.dest_qp_num;
				t.psn = rp->psn;
				t.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID;
				t.msn = qp->resp.msn;
				t.orig = qp->resp.atomic[i].orig;
				roce_responder_flush_ack(qp, lc);
				roce_qp_xmit(qp, lc, &t, NULL, 0, NULL);
				return ROCE_RESP_DUPLICATE;
			}
		}
		/* older than the cache: the requester has its answer already */
		return ROCE_RESP_DUPLICATE;
	}
	/* SEND / WRITE: coalesced ACK of everything up to the last PSN we processed */
	send_ack(qp, lc, ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID,
		 roce_psn_add(qp->resp.psn, ROCE_PSN_MASK));
	return ROCE_RESP_DUPLICATE;
}

/* A packet's parse with its BTH and extension headers in a copy of their own. */
struct roce_pkt_copy {
	struct roce_pkt rp;
	uint8_t hdr[64];
};

/*
 * A receive WQE with ROCE_RECV_MBUF: the frame's payload joins the message's chain, the frame's
 * own buffer (the responder does not free it). The frame's header segment may go back to the
 * pool with it, or the whole frame with a completion the CQ had no room for, before the answer
 * reads the AckReq bit and the receive's completion the ImmDt or IETH: those read a copy of
 * the headers, made here, and *rpp points at it from then on.
 * @return PLACED; DROP_NOMEM when a shared frame could not be cloned (nothing consumed: the
 * requester resends it); ERR_LENGTH when the chain would pass rte_mbuf's segment limit (the
 * receive completes LOC_LEN_ERR).
 */
static enum roce_resp_outcome keep_payload(struct roce_qp *qp, struct rte_mbuf **mp,
					   const struct roce_pkt **rpp, struct roce_pkt_copy *local)
{
	const struct roce_pkt *rp = *rpp;
	int rc;

	if (rp->payload_len == 0)
		return ROCE_RESP_PLACED;
	local->rp = *rp;
	memcpy(local->hdr, rp->bth, RTE_MIN((size_t)rp->op->hdr_len, sizeof(local->hdr)));
	local->rp.bth = (struct roce_bth *)local->hdr;
	*rpp = &local->rp;
	rc = roce_mbuf_keep(qp, mp, rp, &qp->resp.rwqe.chain, &qp->resp.rwqe.ctail);
	return rc == 0	       ? ROCE_RESP_PLACED
	       : rc == -ENOMEM ? ROCE_RESP_DROP_NOMEM
			       : ROCE_RESP_ERR_LENGTH;
}

static enum roce_resp_outcome do_send(struct roce_qp *qp, struct rte_mbuf **mp,
				      const struct roce_pkt **rpp, struct roce_pkt_copy *local)
{
	const struct roce_pkt *rp = *rpp;
	struct roce_resp *r = &qp->resp;
	uint32_t flags = rp->op->flags;

	if (flags & ROCE_OPF_START) {
		if (r->recv_active || r->write_active)
			return ROCE_RESP_ERR_OPCODE_SEQ;
		if (!claim_rwqe(qp))
			return ROCE_RESP_ERR_RNR;
		r->recv_active = true;
		r->recv_off = 0;
	} else if (!r->recv_active) {
		return ROCE_RESP_ERR_OPCODE_SEQ;
	}
	if (r->recv_off + rp->payload_len > r->rwqe.length) {
		/* IBA 9.7.5.2.4: too long for the receive buffer */
		complete_recv(qp, &r->rwqe, ROCE_WC_LOC_LEN_ERR, ROCE_WC_RECV, r->recv_off, rp);
		r->recv_active = false;
		return ROCE_RESP_ERR_LENGTH;
	}
	if (r->rwqe.flags & ROCE_RECV_MBUF) {
		enum roce_resp_outcome o = keep_payload(qp, mp, rpp, local);

		rp = *rpp; /* the frame may be gone: its headers' copy */
		if (o == ROCE_RESP_DROP_NOMEM && (flags & ROCE_OPF_START)) {
			/* not started after all: the resent FIRST takes the same WQE */
			r->recv_active = false;
			r->rwqe_kept = true;
		}
		if (o == ROCE_RESP_ERR_LENGTH) {
			complete_recv(qp, &r->rwqe, ROCE_WC_LOC_LEN_ERR, ROCE_WC_RECV, r->recv_off,
				      rp);
			r->recv_active = false;
		}
		if (o != ROCE_RESP_PLACED)
			return o;
	} else if (!roce_sge_writable(qp, r->rwqe.sge, r->rwqe.num_sge, r->recv_off,
				      rp->payload_len)) {
		/* the WQE's region was deregistered or invalidated since it was posted: nothing
		 * of it is written (issue 11 item 1). rxe's "malformed WQE" (IBA class A): the
		 * receive completes LOC_QP_OP_ERR, the requester gets a remote operational error
		 * and the QP fails, whatever its type. */
		qp->cnt[ROCE_QPC_local_mr_gone]++;
		complete_recv(qp, &r->rwqe, ROCE_WC_LOC_QP_OP_ERR, ROCE_WC_RECV, r->recv_off, rp);
		r->recv_active = false;
		return ROCE_RESP_ERR_LOCAL_WQE;
	} else {
		roce_sge_scatter(r->rwqe.sge, r->rwqe.num_sge, *mp, rp->payload_off,
				 rp->payload_len, r->recv_off);
	}
	r->recv_off += rp->payload_len;
	advance_psn(r, 1);
	if (flags & ROCE_OPF_END) {
		const struct roce_ieth *ieth = roce_pkt_ext(rp, ROCE_EXT_IETH);

		if (ieth &&
		    roce_mr_invalidate(qp->pd->dev, roce_ieth_rkey(ieth), qp->pd, true) != 0) {
			complete_recv(qp, &r->rwqe, ROCE_WC_REM_INV_REQ_ERR, ROCE_WC_RECV,
				      r->recv_off, rp);
			r->recv_active = false;
			return ROCE_RESP_ERR_INVALIDATE;
		}
		complete_recv(qp, &r->rwqe, ROCE_WC_SUCCESS, ROCE_WC_RECV, r->recv_off, rp);
		r->recv_active = false;
		r->msn = roce_psn_add(r->msn, 1);
	}
	return ROCE_RESP_PLACED;
}

static enum roce_resp_outcome do_write(struct roce_qp *qp, struct rte_mbuf *m,
				       const struct roce_pkt *rp)
{
	struct roce_resp *r = &qp->resp;
	uint32_t flags = rp->op->flags;
	struct roce_mr *mr = NULL;

	/*
	 * WRITE with immediate consumes a receive WQE. Without one the answer is an RNR NAK,
	 * given before any responder state changes: the NAKed PSN is not consumed and the
	 * requester resends that very packet after the RNR timer (IBA 9.7.5.2.8), so a
	 * WRITE_ONLY_WITH_IMMEDIATE must not leave a WRITE open behind it (its retry would then
	 * look like a second FIRST, an opcode-sequence error that kills the QP: issue 11
	 * item 6). Linux rxe checks the receive queue before it places anything too
	 * (check_resource()).
	 */
	if ((flags & ROCE_OPF_END) && (flags & ROCE_OPF_RWQE) && !rwqe_ready(qp) &&
	    ((flags & ROCE_OPF_START) ? !r->recv_active && !r->write_active : r->write_active))
		return ROCE_RESP_ERR_RNR;
	if (flags & ROCE_OPF_START) {
		const struct roce_reth *reth = roce_pkt_ext(rp, ROCE_EXT_RETH);
		uint32_t dmalen = roce_reth_len(reth);

		if (r->recv_active || r->write_active)
			return ROCE_RESP_ERR_OPCODE_SEQ;
		/* the whole range is checked once here; each packet checks its part again */
		if (dmalen && !remote_mr(qp, roce_reth_rkey(reth), roce_reth_va(reth), dmalen,
					 ROCE_ACCESS_REMOTE_WRITE))
			return ROCE_RESP_ERR_RKEY;
		r->write_rkey = roce_reth_rkey(reth);
		r->write_va = roce_reth_va(reth);
		r->write_left = dmalen;
		r->write_active = true;
	} else if (!r->write_active) {
		return ROCE_RESP_ERR_OPCODE_SEQ;
	}
	if (rp->payload_len > r->write_left ||
	    ((flags & ROCE_OPF_END) && rp->payload_len != r->write_left)) {
		r->write_active = false;
		return ROCE_RESP_ERR_LENGTH; /* more or less data than the RETH said */
	}
	if (rp->payload_len) {
		mr = remote_mr(qp, r->write_rkey, r->write_va, rp->payload_len,
			       ROCE_ACCESS_REMOTE_WRITE);
		if (!mr) {
			/* deregistered or invalidated since the FIRST: nothing more is placed */
			r->write_active = false;
			return ROCE_RESP_ERR_MR_GONE;
		}
	}
	if ((flags & ROCE_OPF_END) && (flags & ROCE_OPF_RWQE) && !claim_rwqe(qp))
		return ROCE_RESP_ERR_RNR; /* not reached: rwqe_ready() was checked above */
	if (rp->payload_len) {
		roce_mbuf_copy_out(m, rp->payload_off, rp->payload_len, mr_ptr(mr, r->write_va));
		r->write_va += rp->payload_len;
		r->write_left -= rp->payload_len;
	}
	advance_psn(r, 1);
	if (flags & ROCE_OPF_END) {
		if (flags & ROCE_OPF_RWQE)
			complete_recv(qp, &r->rwqe, ROCE_WC_SUCCESS, ROCE_WC_RECV_RDMA_WITH_IMM, 0,
				      rp);
		r->write_active = false;
		r->msn = roce_psn_add(r->msn, 1);
	}
	return ROCE_RESP_PLACED;
}

static enum roce_resp_outcome do_read(struct roce_qp *qp, struct stk_lcore *lc,
				      const struct roce_pkt *rp)
{
	const struct roce_reth *reth = roce_pkt_ext(rp, ROCE_EXT_RETH);
	uint32_t len = roce_reth_len(reth), mtu = roce_qp_mtu(qp);
	/* one PSN per response packet, as roce_responder_run() sends them (64-bit: no wrap) */
	uint32_t npsn = (uint32_t)RTE_MAX(1ull, ((uint64_t)len + mtu - 1) / mtu);
	struct roce_resp *r = &qp->resp;

	if (r->recv_active || r->write_active)
		return ROCE_RESP_ERR_OPCODE_SEQ;
	if (len &&
	    !remote_mr(qp, roce_reth_rkey(reth), roce_reth_va(reth), len, ROCE_ACCESS_REMOTE_READ))
		return ROCE_RESP_ERR_RKEY; /* never silent: rxe once dropped these, forever */
	if (r->rq_count >= RTE_MAX(qp->attr.max_dest_rd_atomic, 1u)) {
		/* more READs in flight than the responder resources agreed at connection time:
		 * a protocol violation, answered, not ignored (IBA 9.7.5.2.4 invalid request) */
		return ROCE_RESP_ERR_RESOURCES;
	}
	if (!r->read[r->read_next].valid)
		r->read_live++;
	r->read[r->read_next].psn = rp->psn;
	r->read[r->read_next].npsn = npsn;
	r->read[r->read_next].rkey = roce_reth_rkey(reth);
	r->read[r->read_next].va = roce_reth_va(reth);
	r->read[r->read_next].len = len;
	r->read[r->read_next].valid = true;
	r->read_next = (uint8_t)((r->read_next + 1) % ROCE_READ_REPLAY);
	r->msn = roce_psn_add(r->msn, 1);
	advance_psn(r, npsn);
	read_reply(qp, lc, roce_reth_rkey(reth), roce_reth_va(reth), len, rp->psn);
	return ROCE_RESP_ANSWERED;
}

static enum roce_resp_outcome do_atomic(struct roce_qp *qp, struct stk_lcore *lc,
					const struct roce_pkt *rp)
{
	const struct roce_atomiceth *a = roce_pkt_ext(rp, ROCE_EXT_ATOMICETH);
	uint64_t va = roce_atomiceth_va(a), orig;
	uint64_t *p;
	struct roce_mr *mr;
	struct roce_tx t;
	struct roce_resp *r = &qp->resp;

	if (va & 7)
		return ROCE_RESP_ERR_ALIGNMENT; /* IBA 9.4.5: 8-byte aligned targets only */
	mr = remote_mr(qp, roce_atomiceth_rkey(a), va, 8, ROCE_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return ROCE_RESP_ERR_RKEY;
	p = (uint64_t *)mr_ptr(mr, va);
	/* the responder resources (max_dest_rd_atomic) bound READs and atomics outstanding
	 * together: an atomic while queued READ responses hold them all is one too many, as a
	 * READ would be in do_read() (issue 11, confirm list). Answered at once, an atomic holds
	 * none itself. The same floor of 1 as do_read(); rxe refuses both at 0. */
	if (r->rq_count >= RTE_MAX(qp->attr.max_dest_rd_atomic, 1u))
		return ROCE_RESP_ERR_RESOURCES;
	orig = *p;
	if (rp->opcode == ROCE_OP_RC_FETCH_ADD)
		*p = orig + roce_atomiceth_swap_add(a);
	else if (orig == roce_atomiceth_cmp(a))
		*p = roce_atomiceth_swap_add(a);
	if (!r->atomic[r->atomic_next].valid)
		r->atomic_live++;
	r->atomic[r->atomic_next].psn = rp->psn;
	r->atomic[r->atomic_next].orig = orig;
	r->atomic[r->atomic_next].valid = true;
	r->atomic_next = (uint8_t)((r->atomic_next + 1) % ROCE_ATOMIC_CACHE);
	r->msn = roce_psn_add(r->msn, 1);
	advance_psn(r, 1);
	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
	t.dqpn = qp->attr.dest_qp_num;
	t.psn = rp->psn;
	t.syndrome = ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID;
	t.msn = r->msn;
	t.orig = orig;
	roce_responder_flush_ack(qp, lc);
	roce_qp_xmit(qp, lc, &t, NULL, 0, NULL);
	return ROCE_RESP_ANSWERED;
}

/*
 * UD receive (IBA 9.8, 11.4.1.2): no PSN check and no answer. The Q_Key must match the QP's;
 * the message goes into the next receive WQE behind a 40-byte GRH area, which for RoCEv2 holds
 * the IPv6 header, or for IPv4 twenty zero bytes and the IPv4 header (rdma-core's layout).
 */
static void ud_recv(struct roce_qp *qp, struct rte_mbuf *m, const struct roce_pkt *rp)
{
	const struct roce_deth *deth = roce_pkt_ext(rp, ROCE_EXT_DETH);
	uint8_t grh[ROCE_GRH_LEN];
	struct roce_rwqe w;
	struct roce_wc wc;
	uint8_t ver;

	if (roce_deth_qkey(deth) != qp->attr.qkey || !take_rwqe(qp, &w))
		return; /* silently dropped, as UD allows */
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w.wr_id;
	wc.opcode = ROCE_WC_RECV;
	wc.src_qp = roce_deth_sqpn(deth);
	wc.wc_flags = ROCE_WC_GRH;
	if (ROCE_GRH_LEN + rp->payload_len > w.length) {
		wc.status = ROCE_WC_LOC_LEN_ERR;
		roce_qp_complete(qp, qp->init.recv_cq, &wc);
		return;
	}
	if ((w.flags & ROCE_RECV_MBUF) ||
	    !roce_sge_writable(qp, w.sge, w.num_sge, 0, ROCE_GRH_LEN + rp->payload_len)) {
		/* (an mbuf WQE from an SRQ: a datagram needs a GRH buffer, a malformed WQE here) */
		/* its region is gone since the post: not a byte written, and as for RC and UC
		 * (do_send()) the receive completes LOC_QP_OP_ERR and the QP fails: rxe takes UD
		 * through the same class A error */
		qp->cnt[ROCE_QPC_local_mr_gone]++;
		qp->resp.outcome[ROCE_RESP_ERR_LOCAL_WQE]++;
		wc.status = ROCE_WC_LOC_QP_OP_ERR;
		roce_qp_complete(qp, qp->init.recv_cq, &wc);
		resp_fail(qp, ROCE_RESP_ERR_LOCAL_WQE);
		return;
	}
	memset(grh, 0, sizeof(grh));
	roce_mbuf_copy_out(m, rp->l3_off, 1, &ver);
	if ((ver >> 4) == 4)
		roce_mbuf_copy_out(m, rp->l3_off, 20, grh + 20);
	else
		roce_mbuf_copy_out(m, rp->l3_off, 40, grh);
	/* GRH area first, then the payload, both through the SGE list */
	{
		uint32_t at = 0;

		for (uint32_t i = 0; i < w.num_sge && at < ROCE_GRH_LEN; i++) {
			uint32_t n = RTE_MIN(w.sge[i].length, ROCE_GRH_LEN - at);

			memcpy((void *)(uintptr_t)w.sge[i].addr, grh + at, n);
			at += n;
		}
	}
	roce_sge_scatter(w.sge, w.num_sge, m, rp->payload_off, rp->payload_len, ROCE_GRH_LEN);
	wc.byte_len = ROCE_GRH_LEN + rp->payload_len;
	if (roce_pkt_ext(rp, ROCE_EXT_IMMDT)) {
		wc.imm_data = ((const struct roce_immdt *)roce_pkt_ext(rp, ROCE_EXT_IMMDT))->imm;
		wc.wc_flags |= ROCE_WC_WITH_IMM;
	}
	roce_qp_complete(qp, qp->init.recv_cq, &wc);
}

static void responder_rc(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
			 const struct roce_pkt *rp);

/*
 * UC: give up the message being received after a lost packet. A SEND's receive WQE is kept
 * for the next message rather than completed or lost, as rxe does (it only consumes the WQE
 * when a message completes); entering ERR flushes it (roce_qp.c flush_queues()).
 */
static void uc_abandon(struct roce_qp *qp)
{
	if (qp->resp.recv_active) {
		qp->resp.rwqe_kept = true;
		roce_rwqe_release(&qp->resp.rwqe); /* the next message starts it empty */
	}
	qp->resp.recv_active = qp->resp.write_active = false;
}

void roce_responder_rx(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
		       const struct roce_pkt *rp)
{
	if (qp->type == ROCE_QPT_UD) {
		ud_recv(qp, m, rp);
		rte_pktmbuf_free(m);
		return;
	}
	responder_rc(qp, lc, m, rp);
}

/*
 * A message is at most 2^31 bytes (ROCE_MAX_MSG, the IBA message size limit), so a RETH may ask
 * for no more: the rest of the 32-bit field is invalid, answered as a length error (rxe's
 * check_length() does the same, RESPST_ERR_LENGTH). Left unchecked, a READ near 2^32 made the
 * PSN count of do_read() wrap to 1 while its responses went on for 4 GiB (issue 11, confirm
 * list).
 */
static bool reth_too_long(const struct roce_pkt *rp)
{
	const struct roce_reth *reth = roce_pkt_ext(rp, ROCE_EXT_RETH);

	return reth && roce_reth_len(reth) > ROCE_MAX_MSG;
}

/* RC and UC requests. Takes @m. */
static void responder_rc(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
			 const struct roce_pkt *rp)
{
	int32_t d = roce_psn_cmp(rp->psn, qp->resp.psn);
	uint32_t mtu = roce_qp_mtu(qp), flags = rp->op->flags;
	struct roce_pkt_copy local;
	enum roce_resp_outcome o;

	if (qp->type == ROCE_QPT_RC && d < 0) {
		qp->cnt[ROCE_QPC_duplicates_rx]++;
		o = duplicate(qp, lc, rp);
	} else if (d > 0 && qp->type == ROCE_QPT_RC) {
		/* one NAK per gap until the expected PSN arrives (C9-111) */
		o = qp->resp.nak_sent ? ROCE_RESP_ERR_PSN_SEQ_QUIET : ROCE_RESP_ERR_PSN_SEQ;
		qp->resp.nak_sent = true;
	} else if (d < 0) {
		/*
		 * UC, PSN behind the expected one: a replay or a duplicate from the network, never
		 * something the requester sent anew (a UC requester never goes back). IBA's UC
		 * rules let a FIRST or ONLY after a PSN error restart the receive at its own PSN,
		 * and rxe (check_psn) does so for any PSN, which delivers a replayed SEND_ONLY
		 * twice (issue 11 item 11). We take a restart only from PSNs ahead (packets were
		 * lost) and treat the half of the PSN space behind as RC's duplicate region
		 * (IBA 9.7.5.1.1): dropped, counted, and the open message, if any, goes on.
		 */
		o = ROCE_RESP_DROP_UC_BEHIND;
	} else if (d > 0 && !(flags & ROCE_OPF_START)) {
		/* UC, packets lost: the message they belonged to is lost too; drop until the
		 * next FIRST or ONLY (IBA's UC resynchronisation; rxe's drop_msg) */
		uc_abandon(qp);
		o = ROCE_RESP_DROP_UC_RESYNC;
	} else {
		if (d > 0) {
			/* UC, packets lost, then a FIRST or ONLY: start over at its PSN */
			uc_abandon(qp);
			qp->resp.psn = rp->psn;
		}
		qp->resp.nak_sent = false;
		/* IBA 9.7.4.1.3: FIRST and MIDDLE packets are full MTU; none is longer */
		if (rp->payload_len > mtu ||
		    ((flags & ROCE_OPF_MIDDLE) && rp->payload_len != mtu) ||
		    ((flags & ROCE_OPF_START) && !(flags & ROCE_OPF_END) && rp->payload_len != mtu))
			o = ROCE_RESP_ERR_LENGTH;
		else if (reth_too_long(rp))
			o = ROCE_RESP_ERR_LENGTH;
		else if (!qp_enables(qp, flags))
			o = ROCE_RESP_ERR_OPCODE;
		else if (flags & ROCE_OPF_SEND)
			o = do_send(qp, &m, &rp, &local); /* may take m (ROCE_RECV_MBUF) */
		else if (flags & ROCE_OPF_WRITE)
			o = do_write(qp, m, rp);
		else if (flags & ROCE_OPF_READ)
			o = do_read(qp, lc, rp);
		else if (flags & ROCE_OPF_ATOMIC)
			o = do_atomic(qp, lc, rp);
		else
			o = ROCE_RESP_ERR_OPCODE;
	}
	answer(qp, lc, rp, o);
	rte_pktmbuf_free(m);
}
