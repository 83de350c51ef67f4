/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_completer.c - responses in, send completions out (IBA 9.7.5.1, 10.8):
 *   - an ACK completes every WQE whose last PSN it covers, in order; READ responses and
 *     atomic ACKs also imply the ACK of everything before them (C9-?);
 *   - READ response data goes straight into the WQE's SGEs; atomic results into its one SGE;
 *   - NAK-sequence-error: fast retransmit, go-back-N from the NAKed PSN (a retry);
 *   - RNR NAK: wait the peer's RNR timer, then resend from that PSN; rnr_retry 7 is infinite;
 *   - remote access / invalid request / remote operational errors: the WQE completes with
 *     REM_ACCESS_ERR / REM_INV_REQ_ERR / REM_OP_ERR and the QP moves to ERR, flushing the rest;
 *   - one retransmission deadline per QP (4.096 us * 2^timeout), checked from the lcore loop:
 *     on expiry go back to the oldest unacknowledged PSN; after retry_cnt retries RETRY_EXC_ERR.
 */
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "roce_psn.h"

static bool is_rd_atomic(const struct roce_swqe *e)
{
	return e->wr.opcode == ROCE_WR_RDMA_READ || e->wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	       e->wr.opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD;
}

static enum roce_wc_opcode wc_opcode(enum roce_wr_opcode op)
{
	switch (op) {
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		return ROCE_WC_RDMA_WRITE;
	case ROCE_WR_RDMA_READ:
		return ROCE_WC_RDMA_READ;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
		return ROCE_WC_COMP_SWAP;
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		return ROCE_WC_FETCH_ADD;
	case ROCE_WR_LOCAL_INV:
		return ROCE_WC_LOCAL_INV;
	case ROCE_WR_REG_MR:
		return ROCE_WC_REG_MR;
	default:
		return ROCE_WC_SEND;
	}
}

static void complete_head(struct roce_qp *qp)
{
	struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);

	if (e->signaled) {
		struct roce_wc wc;

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = e->wr.wr_id;
		wc.status = ROCE_WC_SUCCESS;
		wc.opcode = wc_opcode(e->wr.opcode);
		wc.byte_len = e->length;
		if (e->wr.opcode == ROCE_WR_RDMA_READ && (e->wr.send_flags & ROCE_SEND_MBUF)) {
			/* a READ into mbufs: the chain goes to the consumer with the completion */
			wc.mbuf = e->wr.mbuf;
			e->wr.mbuf = NULL;
		}
		roce_qp_complete(qp, qp->init.send_cq, &wc);
	}
	roce_swqe_release(e); /* a SEND/WRITE's payload chain: the QP's reference */
	if (is_rd_atomic(e))
		roce_requester_rd_done(qp);
	qp->comp.psn = roce_psn_add(e->first_psn, e->npsn);
	qp->comp.read_off = 0;
	qp->comp.read_gap = 0;
	qp->comp.read_last = 0;
	qp->comp.read_hi = 0;
	if (qp->comp.ahead_n) {
		memset(qp->comp.ahead, 0, sizeof(qp->comp.ahead));
		qp->comp.ahead_n = 0;
	}
	qp->sq.tail++;
}

/*
 * Acknowledge everything up to PSN @psn: complete the WQEs it covers, in order, and move
 * comp.psn past it even inside a message (an ACK asked for mid-message). READ and atomic WQEs
 * need their own responses and stop the walk.
 * @return true when comp.psn moved forward: progress, which resets the retry counter.
 */
static void cwnd_acked(struct roce_qp *qp, uint32_t n);

static bool ack_until(struct roce_qp *qp, uint32_t psn)
{
	uint32_t before = qp->comp.psn;
	bool moved;

	/* only what was sent can be acknowledged */
	if (roce_psn_cmp(psn, qp->req.psn) >= 0)
		psn = roce_psn_add(qp->req.psn, ROCE_PSN_MASK);
	while (qp->sq.tail != qp->sq.head) {
		const struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);
		bool fully_sent = qp->sq.tail != qp->req.cur;

		if (!fully_sent && qp->req.off == 0)
			break;	    /* not started */
		if (e->npsn == 0) { /* local operation, already executed */
			if (e->local_status != ROCE_WC_SUCCESS)
				break; /* failed: roce_completer_tick() fails the QP with it */
			complete_head(qp);
			continue;
		}
		if (is_rd_atomic(e))
			break;
		if (!fully_sent || roce_psn_cmp(roce_psn_add(e->first_psn, e->npsn - 1), psn) > 0) {
			/* partly acknowledged: the rest starts after @psn */
			if (roce_psn_cmp(psn, qp->comp.psn) >= 0)
				qp->comp.psn = roce_psn_add(psn, 1);
			break;
		}
		complete_head(qp);
	}
	moved = roce_psn_cmp(qp->comp.psn, before) > 0;
	if (moved)
		cwnd_acked(qp, roce_psn_diff(qp->comp.psn, before));
	return moved;
}

/* Go-back-N: ask the requester to resume sending at @psn (never behind what is
 * acknowledged); a READ at the head it resumes awaits its first response again. */
static void go_back(struct roce_qp *qp, uint32_t psn)
{
	if (roce_psn_cmp(psn, qp->comp.psn) < 0)
		psn = qp->comp.psn;
	if (roce_requester_rewind(qp, psn, qp->comp.read_off) == qp->sq.tail &&
	    qp->sq.tail != qp->sq.head &&
	    roce_sq_at(&qp->sq, qp->sq.tail)->wr.opcode == ROCE_WR_RDMA_READ)
		qp->comp.read_gap = qp->comp.psn + 1;
}

/* Something sent is not yet acknowledged (also inside a partly sent head WQE). */
static bool outstanding(const struct roce_qp *qp)
{
	return roce_psn_cmp(qp->req.psn, qp->comp.psn) > 0 ||
	       (qp->sq.tail != qp->req.cur && qp->sq.tail != qp->sq.head);
}

/*
 * The retransmission timer (issue: loss robustness; IRN, Mittal et al. 2018, section 3.2).
 * The deadline is the adaptive RTO, srtt + 4 * rttvar from Karn samples (one PSN timed at a
 * time, never a resent one), floored at the device's rto_min and never longer than the QP's
 * configured timeout (4.096 us * 2^timeout). An expiry before the configured timeout has
 * passed since the last progress is an early retransmit: go back to the oldest
 * unacknowledged PSN, double the RTO, and do not spend retry_cnt. Only the configured timeout
 * counts as an IBA transport retry, so a slow peer is never declared dead sooner than the
 * QP's attributes say.
 */
/*
 * The configured timeout when no RTT sample stands in for it, spread per QP and per retry over
 * [T, 2T): QPs that posted together (a thousand connections each sending at once) would
 * otherwise all time out in the same instant and resend together, and the burst that lost
 * their packets the first time loses them again on every retry until retry_cnt runs out (found
 * with ucmatose -c 600 -C 10 over a veth: 6,000 SENDs at once overran the peer's 512-frame
 * af_packet ring; the same QPs lost the same round six times). NVIDIA's adaptive
 * retransmission randomizes its initial timeout for the same reason, and documents the timeout
 * a ConnectX applies as 4.096 us * 2^timeout times 1 to 2. A hash, not rte_rand(), so that a
 * test or a fuzz input replays the same way.
 */
static uint64_t cfg_spread(const struct roce_qp *qp, uint64_t cfg)
{
	uint32_t h = (qp->qpn ^ ((uint32_t)qp->comp.retry_left << 24)) * 2654435761u;

	return cfg + (cfg >> 16) * (h >> 16);
}

static uint64_t timer_len(const struct roce_qp *qp)
{
	uint64_t cfg = roce_timeout_tsc(qp->attr.timeout);
	uint64_t rto = qp->comp.rto;

	if (!qp->pd->dev->rto_min || !qp->comp.srtt)
		return cfg ? cfg_spread(qp, cfg) : UINT64_MAX / 4; /* timeout 0: infinite */
	if (cfg && rto > cfg)
		rto = cfg;
	return rto;
}

static void rtt_sample(struct roce_qp *qp, uint64_t now)
{
	struct roce_comp *c = &qp->comp;
	uint64_t r = now - c->sample_tsc;

	c->sample_tsc = 0;
	if (!c->srtt) {
		c->srtt = r;
		c->rttvar = r / 2;
	} else {
		uint64_t d = c->srtt > r ? c->srtt - r : r - c->srtt;

		c->rttvar = (3 * c->rttvar + d) / 4;
		c->srtt = (7 * c->srtt + r) / 8;
	}
	c->rto = RTE_MAX(c->srtt + 4 * c->rttvar, qp->pd->dev->rto_min);
}

void roce_completer_sample(struct roce_qp *qp, uint32_t psn, uint64_t now)
{
	if (!qp->comp.sample_tsc) {
		qp->comp.sample_tsc = now;
		qp->comp.sample_psn = psn;
	}
}

void roce_completer_arm(struct roce_qp *qp, uint64_t now)
{
	if (qp->comp.deadline == 0) {
		qp->comp.deadline = now + timer_len(qp);
		qp->comp.epoch = now;
		qp->comp.hold_from = now;
	}
}

/*
 * The in-flight window (issue 6: "a bounded in-flight window, so go-back-N does not resend a
 * huge tail"). Go-back-N resends everything after a loss, and a receiver that lost packets
 * because its ring overflowed loses them again if the whole window comes back at once. So the
 * window is AIMD in PSNs: it starts at ROCE_CWND_INIT, doubles per round trip up to ssthresh,
 * then grows by one per window acknowledged, up to ROCE_CWND_MAX; every retransmission (NAK,
 * early RTO) halves it, not below ROCE_CWND_MIN; a configured timeout restarts it at one
 * (cwnd_timeout()). On a clean link it sits at the maximum.
 */
static void cwnd_acked(struct roce_qp *qp, uint32_t n)
{
	struct roce_comp *r = &qp->comp;

	if (r->cwnd < r->ssthresh) {
		r->cwnd = RTE_MIN(r->cwnd + n, r->ssthresh);
		return;
	}
	qp->comp.acked += n;
	while (qp->comp.acked >= r->cwnd && r->cwnd < ROCE_CWND_MAX) {
		qp->comp.acked -= r->cwnd;
		r->cwnd++;
	}
}

/* One cut per window (as NewReno's recovery, RFC 6582): losses of PSNs sent before the cut
 * are the same congestion event, so they do not cut again until everything that was in
 * flight at the cut is acknowledged. Without this, at 1 % loss and a window of 100 or more
 * nearly every window holds a loss and the window halves every round trip to its floor. */
static void cwnd_loss(struct roce_qp *qp)
{
	struct roce_comp *c = &qp->comp;

	if (c->in_recovery && roce_psn_cmp(c->psn, c->recover) < 0) {
		qp->cnt[ROCE_QPC_cwnd_cut_skipped]++;
		return;
	}
	qp->comp.cwnd = RTE_MAX(qp->comp.cwnd / 2, ROCE_CWND_MIN);
	qp->comp.ssthresh = qp->comp.cwnd;
	c->acked = 0;
	c->in_recovery = true;
	c->recover = qp->req.high_psn;
}

/* A configured timeout: nothing at all came back for a whole timeout, the strongest sign of
 * congestion there is. As TCP after its retransmission timeout (RFC 5681 section 3.1), the
 * window restarts at one PSN and slow-starts back up to half of what it was. A thousand QPs
 * that lost the same burst then each resend one packet, not their whole window again (ucmatose
 * -c 1000 -C 10 over a veth: ten resends of every window kept overrunning the peer's ring). */
static void cwnd_timeout(struct roce_qp *qp)
{
	struct roce_comp *c = &qp->comp;

	qp->comp.ssthresh = RTE_MAX(qp->comp.cwnd / 2, ROCE_CWND_MIN);
	qp->comp.cwnd = 1;
	c->acked = 0;
	c->in_recovery = true;
	c->recover = qp->req.high_psn;
}

static void progress(struct roce_qp *qp, uint64_t now)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	if (qp->comp.sample_tsc && roce_psn_cmp(qp->comp.psn, qp->comp.sample_psn) > 0)
		rtt_sample(qp, now);
	else if (qp->comp.srtt) /* progress ends the backoff */
		qp->comp.rto = RTE_MAX(qp->comp.srtt + 4 * qp->comp.rttvar, qp->pd->dev->rto_min);
	qp->comp.epoch = now;
	qp->comp.hold_from = now;
	qp->comp.alive = false;
	qp->comp.deadline = outstanding(qp) ? now + timer_len(qp) : 0;
}

/*
 * The response at comp.psn against the READ at the head: its opcode and size must be those
 * the responder sends for the part still missing (IBA 9.7.4.1.3: FIRST and MIDDLE carry
 * exactly the path MTU, LAST and ONLY at most MTU bytes; a READ is answered FIRST, MIDDLE...,
 * LAST, or ONLY). A MIDDLE or LAST cannot start a READ; a FIRST or MIDDLE cannot reach its
 * end, a LAST or ONLY must end it exactly. A FIRST or ONLY further on is the answer to a READ
 * re-issued for the rest (IBA 9.7.4.1.5), and fits when its size does. Otherwise the WR fails
 * BAD_RESP_ERR (IBA's Bad Response Error: an unexpected opcode from the responder), as rxe's
 * check_ack() fails an out-of-sequence read response.
 */
static bool read_response_fits(const struct roce_qp *qp, const struct roce_swqe *e,
			       const struct roce_pkt *rp)
{
	uint32_t flags = rp->op->flags, mtu = roce_qp_mtu(qp);
	uint64_t end = (uint64_t)qp->comp.read_off + rp->payload_len;

	if (rp->payload_len > mtu)
		return false;
	if (!(flags & ROCE_OPF_START) && qp->comp.read_off == 0)
		return false;
	if (flags & ROCE_OPF_END)
		return end == e->length;
	return rp->payload_len == mtu && end < e->length;
}

/*
 * A READ response or atomic ACK that is not the one awaited: for a PSN already completed (the
 * responder replaying a request we re-issued: it executes a duplicate READ again from the PSN
 * asked, IBA 9.7.5.1.3, and rxe queues each one behind what it is already sending), or one
 * beyond a lost response (the rest of a stream whose re-issue waits behind it). It completes
 * nothing, but it shows the responder working through our requests in order, so the
 * retransmission timer starts again instead of re-issuing behind the stream (each re-issue of
 * a READ costs the responder the whole rest of it). rxe's completer does the same: it re-arms
 * its retransmit timer whenever it has drained a response with requests outstanding. The
 * retry count is not restored: once the responder falls silent, the timer runs. But the first
 * configured timeout after such answers is waited out (backlog_waits), neither re-issuing nor
 * spending a retry: a responder that paused in the middle of its backlog (rxe in a starved TCG
 * VM stops for 70-130 ms at a time) still has our re-issue queued behind it, and every copy
 * more of a 1 MiB READ is 1,024 responses more before it; ib_read_bw -a against rxe on a
 * loaded machine piled up 130,000 responses for 5,000 wanted and ran out of retries after 18
 * such timeouts. A responder that stays silent for a second timeout gets the re-issue.
 * Such answers hold the timer back for at most ROCE_STALE_HOLD configured timeouts since the
 * last progress or retry (counted stale_capped after that): a peer, or a duplicating network,
 * that sends stale answers without end would otherwise keep a QP waiting forever, neither
 * resending nor spending its retries (IBA 9.7.6.1.3 bounds a request's life by the timeout and
 * retry_cnt). Past the hold, the timer runs: a timeout spends a retry, and the next round may
 * be held again, so such a peer costs at most (retry_cnt + 1) holds before RETRY_EXC_ERR.
 * rxe's 0.46 s backlog above took 7 configured timeouts of 67 ms; the hold is 16.
 */
static void responder_alive(struct roce_qp *qp, uint64_t now)
{
	uint64_t cfg = roce_timeout_tsc(qp->attr.timeout);

	if (!outstanding(qp))
		return;
	if (cfg && now - qp->comp.hold_from >= ROCE_STALE_HOLD * cfg) {
		qp->cnt[ROCE_QPC_stale_capped]++;
		return;
	}
	qp->comp.alive = true;
	qp->comp.epoch = now;
	qp->comp.deadline = now + timer_len(qp);
}

/*
 * Early retransmit re-issues a READ or atomic at the head only once its responses have begun
 * (the tail of a READ was lost), and not again while an earlier re-issue still awaits its
 * first response. Until then the responder may still be finishing what came before it: rxe
 * in the lab takes 25-30 ms between one READ's last response and the next one's first, and a
 * re-issued READ is executed again for all of the rest, queued behind what is being sent. So
 * only the configured timeout re-issues it then; with timeout 0 (infinite) the early timer is
 * all there is.
 */
static bool early_ok(const struct roce_qp *qp, uint64_t cfg)
{
	if (!cfg || qp->sq.tail == qp->req.cur)
		return true;
	/* SENDs and WRITEs: not while the responder is answering older copies (on_ack()) */
	if (!is_rd_atomic(roce_sq_at(&qp->sq, qp->sq.tail)))
		return !qp->comp.alive;
	return qp->comp.read_off > 0 && qp->comp.read_gap != qp->comp.psn + 1;
}

/*
 * A READ into mbufs (ROCE_SEND_MBUF): keep the response's payload as its frame's own buffer at
 * the end of the WQE's chain. Without an mbuf to clone a shared frame into, the response is
 * dropped unplaced, as if lost: the next one shows the gap and the READ is re-issued for the
 * rest (counted, rx_mbuf_nomem). A chain that would pass rte_mbuf's segment limit fails the
 * WR with LOC_LEN_ERR. @return true when kept.
 */
static bool keep_payload(struct roce_qp *qp, struct roce_swqe *e, struct rte_mbuf **mp,
			 const struct roce_pkt *rp)
{
	int rc = roce_mbuf_keep(qp, mp, rp, &e->wr.mbuf, &e->mtail);

	if (rc == -E2BIG)
		roce_qp_fatal(qp, ROCE_WC_LOC_LEN_ERR);
	return rc == 0;
}

/*
 * Responses past a lost one (IRN's selective placement for READs, Mittal et al. 2018, 3.3):
 * every response of a READ has a fixed place, (PSN - first PSN) * MTU bytes into it (FIRST
 * and MIDDLE carry exactly the MTU), so one that arrives after a gap is placed at once and
 * remembered, within ROCE_READ_AHEAD PSNs of the gap and only for the READ at the head. The
 * READ is re-issued for the rest as before, and of the responder's replay only the PSNs still
 * missing are taken: a loss in the replay of what already arrived costs nothing. Go-back-N
 * alone took every response in order, so each loss in a replay of a 1 MiB READ re-issued it
 * again (ib_read_bw against rxe: 4 times the responses needed on an idle machine, and
 * RETRY_EXC_ERR on a loaded one). READs into mbufs keep in-order delivery (the chain grows in
 * order). A response placed before (a replay), one outside the window or the READ, one whose
 * shape does not fit its place, or one for a region gone is left alone: the caller treats it
 * as before, a response beyond the one awaited.
 */
static void read_ahead(struct roce_qp *qp, struct roce_swqe *e, const struct rte_mbuf *m,
		       const struct roce_pkt *rp)
{
	uint32_t mtu = roce_qp_mtu(qp), len = rp->payload_len;
	uint32_t k = roce_psn_diff(rp->psn, e->first_psn);
	uint64_t off = (uint64_t)k * mtu, mask;
	uint64_t *w = roce_comp_ahead_word(&qp->comp, rp->psn, &mask);

	if ((e->wr.send_flags & ROCE_SEND_MBUF) || k >= e->npsn ||
	    roce_psn_diff(rp->psn, qp->comp.psn) >= ROCE_READ_AHEAD || (*w & mask))
		return;
	if (k == e->npsn - 1 ? !(rp->op->flags & ROCE_OPF_END) || off + len != e->length
			     : (rp->op->flags & ROCE_OPF_END) || len != mtu)
		return;
	if (!roce_sge_writable(qp, e->sge, (uint32_t)e->wr.num_sge, (uint32_t)off, len))
		return;
	roce_sge_scatter(e->sge, (uint32_t)e->wr.num_sge, m, rp->payload_off, len, (uint32_t)off);
	*w |= mask;
	qp->comp.ahead_n++;
	qp->cnt[ROCE_QPC_read_ahead_placed]++;
}

/* A response to the READ at the head arrived (after the rules that look at the one before). */
static void read_seen(struct roce_qp *qp, uint32_t psn)
{
	qp->comp.read_last = psn + 1;
	if (!qp->comp.read_hi || roce_psn_cmp(psn, qp->comp.read_hi - 1) > 0)
		qp->comp.read_hi = psn + 1;
}

/*
 * A response past comp.psn from a stream that went over comp.psn without it: the response
 * before it was behind comp.psn (this stream stepped over it), or it is below the highest PSN
 * seen, so it belongs to a replay (a responder sends one stream at a time, each in PSN order,
 * and a replay starts at or before comp.psn). Either way the PSN awaited was lost again.
 */
static bool read_skipped(const struct roce_qp *qp, uint32_t psn)
{
	return !qp->comp.read_last || roce_psn_cmp(qp->comp.read_last - 1, qp->comp.psn) < 0 ||
	       (qp->comp.read_hi && roce_psn_cmp(psn, qp->comp.read_hi - 1) < 0);
}

/* After the response at comp.psn: move over those placed ahead of it. */
static void read_ahead_take(struct roce_qp *qp, const struct roce_swqe *e)
{
	uint32_t mtu = roce_qp_mtu(qp), n = 0;

	while (qp->comp.ahead_n &&
	       roce_psn_cmp(qp->comp.psn, roce_psn_add(e->first_psn, e->npsn)) < 0) {
		uint64_t mask;
		uint64_t *w = roce_comp_ahead_word(&qp->comp, qp->comp.psn, &mask);

		if (!(*w & mask))
			break;
		*w &= ~mask;
		qp->comp.ahead_n--;
		qp->comp.read_off = qp->comp.psn == roce_psn_add(e->first_psn, e->npsn - 1)
					    ? e->length
					    : qp->comp.read_off + mtu;
		qp->comp.psn = roce_psn_add(qp->comp.psn, 1);
		n++;
	}
	if (n)
		cwnd_acked(qp, n);
}

static void read_response(struct roce_qp *qp, struct rte_mbuf **mp, const struct roce_pkt *rp,
			  uint64_t now)
{
	struct roce_swqe *e;

	/* a response implies the ACK of every earlier request */
	ack_until(qp, roce_psn_add(rp->psn, ROCE_PSN_MASK));
	if (roce_psn_cmp(rp->psn, qp->comp.psn) < 0) {
		qp->cnt[ROCE_QPC_replays_rx]++;
		read_seen(qp, rp->psn);
		responder_alive(qp, now);
		return;
	}
	if (qp->sq.tail == qp->req.cur)
		return; /* nothing outstanding: a late duplicate */
	e = roce_sq_at(&qp->sq, qp->sq.tail);
	if (e->wr.opcode != ROCE_WR_RDMA_READ)
		return;
	if (rp->psn != qp->comp.psn) {
		/* A gap in the responses: one was lost. The requester has no NAK to send, so it
		 * asks again for the rest of the READ at once (IBA 9.7.4.1.5 allows re-issuing
		 * it), once per gap, instead of waiting for the timer. What arrives past the gap
		 * is placed (read_ahead()). Once the READ was re-issued (read_gap), a response
		 * past the gap re-issues it again only when its stream went over the gap
		 * (read_skipped()); the first stream still coming is covered by the re-issue,
		 * which goes to the end of the READ. */
		bool again = false;

		if (roce_psn_cmp(rp->psn, qp->comp.psn) > 0) {
			again = qp->comp.read_gap != qp->comp.psn + 1 &&
				(!qp->comp.read_gap || read_skipped(qp, rp->psn));
			read_ahead(qp, e, *mp, rp);
			read_seen(qp, rp->psn);
		}
		if (again) {
			qp->cnt[ROCE_QPC_retransmits]++;
			cwnd_loss(qp);
			go_back(qp, qp->comp.psn);
			qp->comp.sample_tsc = 0;
		}
		responder_alive(qp, now);
		/* the timer this re-issue armed runs from here, past the hold on stale answers
		 * too: what came before it is no sign of a backlog in front of it */
		if (again) {
			qp->comp.alive = false;
			qp->comp.epoch = now;
			qp->comp.deadline = now + timer_len(qp);
		}
		return;
	}
	if (!read_response_fits(qp, e, rp)) {
		qp->cnt[ROCE_QPC_bad_read_resp]++;
		roce_qp_fatal(qp, ROCE_WC_BAD_RESP_ERR);
		return;
	}
	if (e->wr.send_flags & ROCE_SEND_MBUF) {
		/* a READ into mbufs: the frame's buffer joins the response chain */
		if (rp->payload_len && !keep_payload(qp, e, mp, rp))
			return;
	} else if (!roce_sge_writable(qp, e->sge, (uint32_t)e->wr.num_sge, qp->comp.read_off,
				      rp->payload_len)) {
		/* the READ's local region was deregistered or invalidated since the post: not a
		 * byte of it is written (issue 11 item 1); as rxe's completer, LOC_PROT_ERR */
		qp->cnt[ROCE_QPC_local_mr_gone]++;
		roce_qp_fatal(qp, ROCE_WC_LOC_PROT_ERR);
		return;
	} else {
		roce_sge_scatter(e->sge, (uint32_t)e->wr.num_sge, *mp, rp->payload_off,
				 rp->payload_len, qp->comp.read_off);
	}
	qp->comp.read_off += rp->payload_len;
	qp->comp.psn = roce_psn_add(qp->comp.psn, 1);
	cwnd_acked(qp, 1);
	read_seen(qp, rp->psn);
	read_ahead_take(qp, e);
	if (qp->comp.psn == roce_psn_add(e->first_psn, e->npsn))
		complete_head(qp);
	progress(qp, now);
}

static void atomic_ack(struct roce_qp *qp, struct rte_mbuf **m, const struct roce_pkt *rp,
		       uint64_t now)
{
	(void)m; /* the value is in the AtomicAckETH */
	const struct roce_atomicacketh *a = roce_pkt_ext(rp, ROCE_EXT_ATOMICACKETH);
	struct roce_swqe *e;
	uint64_t orig;

	ack_until(qp, roce_psn_add(rp->psn, ROCE_PSN_MASK));
	if (roce_psn_cmp(rp->psn, qp->comp.psn) < 0) {
		qp->cnt[ROCE_QPC_replays_rx]++;
		responder_alive(qp, now);
		return;
	}
	if (qp->sq.tail == qp->req.cur)
		return;
	e = roce_sq_at(&qp->sq, qp->sq.tail);
	if ((e->wr.opcode != ROCE_WR_ATOMIC_CMP_AND_SWP &&
	     e->wr.opcode != ROCE_WR_ATOMIC_FETCH_AND_ADD) ||
	    rp->psn != e->first_psn)
		return;
	if (!roce_sge_writable(qp, e->sge, 1, 0, 8)) {
		qp->cnt[ROCE_QPC_local_mr_gone]++; /* as a READ's, read_response() */
		roce_qp_fatal(qp, ROCE_WC_LOC_PROT_ERR);
		return;
	}
	orig = roce_atomicacketh_orig(a);
	memcpy((void *)(uintptr_t)e->sge[0].addr, &orig, 8);
	complete_head(qp);
	progress(qp, now);
}

/*
 * An ACK or NAK for a PSN beyond the READ / atomic at the head means the responder finished
 * it and its responses were lost (IBA 9.7.5.1.3): resume that request, not the later PSN.
 */
static uint32_t resume_point(const struct roce_qp *qp, uint32_t psn)
{
	const struct roce_swqe *e;

	if (qp->sq.tail == qp->req.cur)
		return psn;
	e = roce_sq_at(&qp->sq, qp->sq.tail);
	if (is_rd_atomic(e) && roce_psn_cmp(psn, qp->comp.psn) > 0)
		return qp->comp.psn;
	return psn;
}

static void retry(struct roce_qp *qp, uint32_t psn, uint64_t now, bool timeout)
{
	if (qp->comp.retry_left == 0) {
		roce_qp_fatal(qp, ROCE_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left--;
	qp->cnt[ROCE_QPC_retransmits]++;
	if (timeout)
		cwnd_timeout(qp);
	else
		cwnd_loss(qp);
	go_back(qp, psn);
	qp->comp.sample_tsc = 0; /* Karn: a resent PSN gives no sample */
	qp->comp.epoch = now;
	qp->comp.hold_from = now;
	qp->comp.alive = false;
	qp->comp.deadline = now + timer_len(qp);
}

/* Classify a response packet for @qp (no state changes): the completer's state machine in
 * data, as the responder's outcome table (STYLE section 4). */
static enum roce_comp_outcome classify(const struct roce_qp *qp, const struct roce_pkt *rp)
{
	uint8_t syn;

	if (qp->type != ROCE_QPT_RC || qp->state != ROCE_QPS_RTS)
		return ROCE_COMP_IGNORED;
	/* an answer for a PSN we never sent (a peer confused about our starting PSN, or a
	 * stray frame) acknowledges nothing: completing work on it would lose data */
	if (roce_psn_cmp(rp->psn, qp->req.high_psn) >= 0)
		return ROCE_COMP_GHOST;
	switch (rp->opcode) {
	case ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_LAST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY:
		return ROCE_COMP_READ_RESPONSE;
	case ROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
		return ROCE_COMP_ATOMIC_ACK;
	case ROCE_OP_RC_ACKNOWLEDGE:
		break;
	default:
		return ROCE_COMP_IGNORED;
	}
	syn = roce_aeth_syndrome(roce_pkt_ext(rp, ROCE_EXT_AETH));
	/* A NAK for a PSN already acknowledged is stale (duplicated or overtaken): going back
	 * behind comp.psn would resend what the responder has. */
	if ((syn & ROCE_AETH_TYPE_MASK) != ROCE_AETH_ACK && roce_psn_cmp(rp->psn, qp->comp.psn) < 0)
		return ROCE_COMP_STALE_NAK;
	switch (syn & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		return ROCE_COMP_ACK;
	case ROCE_AETH_RNR_NAK:
		return ROCE_COMP_RNR_NAK;
	case ROCE_AETH_NAK:
		switch (syn & ROCE_AETH_VALUE_MASK) {
		case ROCE_NAK_PSN_SEQ_ERR:
			return ROCE_COMP_NAK_SEQ;
		case ROCE_NAK_REM_ACCESS_ERR:
			return ROCE_COMP_NAK_REM_ACCESS;
		case ROCE_NAK_REM_OP_ERR:
			return ROCE_COMP_NAK_REM_OP;
		default:
			return ROCE_COMP_NAK_INV_REQ;
		}
	default:
		return ROCE_COMP_RESERVED; /* reserved syndromes are ignored */
	}
}

/*
 * An ACK that acknowledges nothing new (its PSN is before the oldest unacknowledged one) is
 * the responder answering a duplicate of a request of ours (IBA 9.7.5.1.1: a duplicate SEND or
 * WRITE is acknowledged again): it is working through copies we resent earlier, and what we
 * resent last waits behind them. So, as for a READ's replays (responder_alive()), the timer
 * starts again, no early retransmit adds another copy while such answers come, and the first
 * configured timeout after them is waited out (backlog_waits); silence after that is a real
 * timeout. Found against rxe in a TCG VM on a loaded host (perftest interop, ib_send_bw with
 * 1 % of its ACKs lost): droce's go-back-N resends filled the VM's queue, rxe spent 0.46 s
 * answering about 800 duplicates with the same ACK while droce's one resend of the next PSN
 * sat behind them, and each configured timeout in that time spent a retry: seven of eight.
 */
static void on_ack(struct roce_qp *qp, struct rte_mbuf **m, const struct roce_pkt *rp, uint64_t now)
{
	(void)m;
	/* an ACK beyond an unfinished READ may just have overtaken its responses; if they were
	 * lost, the retransmission timer resumes the READ */
	if (ack_until(qp, rp->psn)) {
		progress(qp, now);
	} else if (roce_psn_cmp(rp->psn, qp->comp.psn) < 0) {
		qp->cnt[ROCE_QPC_dup_acks_rx]++;
		responder_alive(qp, now);
	}
}

static void on_rnr_nak(struct roce_qp *qp, struct rte_mbuf **m, const struct roce_pkt *rp,
		       uint64_t now)
{
	(void)m;
	ack_until(qp, roce_psn_add(rp->psn, ROCE_PSN_MASK));
	if (qp->attr.rnr_retry != 7) {
		if (qp->comp.rnr_left == 0) {
			roce_qp_fatal(qp, ROCE_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_left--;
	}
	qp->cnt[ROCE_QPC_rnr_nak_rx]++; /* not counted when it ends the QP (as before) */
	qp->comp.rnr_until =
		now + roce_rnr_tsc(roce_aeth_syndrome(roce_pkt_ext(rp, ROCE_EXT_AETH)));
	go_back(qp, rp->psn);
	qp->comp.deadline = 0;
	qp->comp.alive = false; /* answers before the RNR wait hold nothing back after it */
}

static void on_nak_seq(struct roce_qp *qp, struct rte_mbuf **m, const struct roce_pkt *rp,
		       uint64_t now)
{
	(void)m;
	/* everything before the NAKed PSN arrived: that much is progress */
	if (ack_until(qp, roce_psn_add(rp->psn, ROCE_PSN_MASK)))
		progress(qp, now);
	retry(qp, resume_point(qp, rp->psn), now, false);
}

/*
 * Every way the completer can take a response, and what it does: a handler (NULL: nothing
 * more), the QP counter it bumps (ROCE_QPC_NUM: none) and, for the fatal NAKs, the status the
 * head WQE completes with before the QP fails (everything before the NAKed PSN is
 * acknowledged first).
 */
static const struct {
	void (*fn)(struct roce_qp *qp, struct rte_mbuf **m, const struct roce_pkt *rp,
		   uint64_t now);
	enum roce_qp_counter counter;
	enum roce_wc_status fatal; /**< ROCE_WC_SUCCESS: not fatal */
} outcome_tab[ROCE_COMP_NUM] = {
	[ROCE_COMP_IGNORED] = {NULL, ROCE_QPC_NUM, ROCE_WC_SUCCESS},
	[ROCE_COMP_GHOST] = {NULL, ROCE_QPC_ghost_acks, ROCE_WC_SUCCESS},
	[ROCE_COMP_READ_RESPONSE] = {read_response, ROCE_QPC_NUM, ROCE_WC_SUCCESS},
	[ROCE_COMP_ATOMIC_ACK] = {atomic_ack, ROCE_QPC_NUM, ROCE_WC_SUCCESS},
	[ROCE_COMP_STALE_NAK] = {NULL, ROCE_QPC_NUM, ROCE_WC_SUCCESS},
	[ROCE_COMP_ACK] = {on_ack, ROCE_QPC_acks_rx, ROCE_WC_SUCCESS},
	[ROCE_COMP_RNR_NAK] = {on_rnr_nak, ROCE_QPC_NUM, ROCE_WC_SUCCESS}, /* counts itself */
	[ROCE_COMP_NAK_SEQ] = {on_nak_seq, ROCE_QPC_nak_seq_rx, ROCE_WC_SUCCESS},
	[ROCE_COMP_NAK_REM_ACCESS] = {NULL, ROCE_QPC_nak_fatal_rx, ROCE_WC_REM_ACCESS_ERR},
	[ROCE_COMP_NAK_REM_OP] = {NULL, ROCE_QPC_nak_fatal_rx, ROCE_WC_REM_OP_ERR},
	[ROCE_COMP_NAK_INV_REQ] = {NULL, ROCE_QPC_nak_fatal_rx, ROCE_WC_REM_INV_REQ_ERR},
	[ROCE_COMP_RESERVED] = {NULL, ROCE_QPC_NUM, ROCE_WC_SUCCESS},
};

void roce_completer_rx(struct roce_qp *qp, struct stk_lcore *lc, struct rte_mbuf *m,
		       const struct roce_pkt *rp)
{
	enum roce_comp_outcome o = classify(qp, rp);
	(void)lc;

	qp->comp.outcome[o]++;
	if (outcome_tab[o].counter != ROCE_QPC_NUM)
		qp->cnt[outcome_tab[o].counter]++;
	if (outcome_tab[o].fatal != ROCE_WC_SUCCESS) {
		ack_until(qp, roce_psn_add(rp->psn, ROCE_PSN_MASK));
		roce_qp_fatal(qp, outcome_tab[o].fatal);
	} else if (outcome_tab[o].fn) {
		outcome_tab[o].fn(qp, &m, rp, rte_get_tsc_cycles()); /* may take m */
	}
	rte_pktmbuf_free(m);
}

void roce_completer_tick(struct roce_qp *qp, struct stk_lcore *lc, uint64_t now)
{
	(void)lc;
	if (qp->type != ROCE_QPT_RC)
		return;
	/* local operations at the head complete without a response; a failed one, once
	 * everything before it has completed, fails the QP (see roce_requester.c run_local()) */
	if (qp->sq.tail != qp->req.cur && roce_sq_at(&qp->sq, qp->sq.tail)->npsn == 0) {
		const struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);

		if (e->local_status != ROCE_WC_SUCCESS) {
			roce_qp_fatal(qp, (enum roce_wc_status)e->local_status);
			return;
		}
		ack_until(qp, qp->comp.psn);
	}
	if (qp->comp.deadline && now >= qp->comp.deadline && outstanding(qp)) {
		uint64_t cfg = roce_timeout_tsc(qp->attr.timeout);

		if (qp->comp.srtt && qp->pd->dev->rto_min && (!cfg || now - qp->comp.epoch < cfg)) {
			if (!early_ok(qp, cfg)) {
				qp->comp.deadline = qp->comp.epoch + cfg;
				return;
			}
			/* early retransmit: the RTT says the tail was lost */
			qp->cnt[ROCE_QPC_rto_early]++;
			qp->cnt[ROCE_QPC_retransmits]++;
			cwnd_loss(qp);
			go_back(qp, qp->comp.psn);
			qp->comp.sample_tsc = 0;
			qp->comp.alive = false;
			qp->comp.rto = RTE_MIN(qp->comp.rto * 2, cfg ? cfg : UINT64_MAX / 4);
			qp->comp.deadline = now + timer_len(qp);
			if (cfg && qp->comp.deadline > qp->comp.epoch + cfg)
				qp->comp.deadline = qp->comp.epoch + cfg;
			return;
		}
		if (qp->comp.alive) {
			/* the responder is working through a backlog of older requests (answers
			 * not awaited came since the timer was armed): what we re-issued waits
			 * behind them, and issuing it again would only queue another copy */
			qp->cnt[ROCE_QPC_backlog_waits]++;
			qp->comp.alive = false;
			qp->comp.epoch = now;
			qp->comp.deadline = now + timer_len(qp);
			return;
		}
		qp->cnt[ROCE_QPC_timeouts]++;
		retry(qp, qp->comp.psn, now, true);
	} else if (!outstanding(qp))
		qp->comp.deadline = 0;
}
