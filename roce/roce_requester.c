/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_requester.c - turns the send queue into request packets (IBA 9.7.1-9.7.4):
 * segmentation of SEND and RDMA WRITE at the path MTU into FIRST/MIDDLE/LAST/ONLY, READ and
 * atomic requests limited by max_rd_atomic, the fence rule, PSN assignment, AckReq on the last
 * packet of every message (and periodically inside long ones), and a bounded window so that
 * go-back-N never resends a huge tail. Payload from a single SGE goes out zero-copy.
 *
 * The completer moves req.cur/req.off/req.psn back for go-back-N; this file only moves
 * forward from wherever they are.
 */
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "roce_psn.h"

#define REQ_BURST 32	     /* packets per poll and QP, posts included: the rest waits */
#define REQ_WINDOW 1024	     /* PSNs in flight before we wait for ACKs */
#define REQ_ACKREQ_EVERY 64  /* AckReq inside long messages, so the window moves */
#define REQ_WIRE_OVERHEAD 78 /* Ethernet + IPv4 + UDP + BTH + RETH + ICRC + FCS, for pacing */

/* Opcode for a packet of a SEND / WRITE message: [position][with imm/inv]. */
enum pos { P_FIRST, P_MIDDLE, P_LAST, P_ONLY };

static uint8_t data_opcode(enum roce_qp_type t, enum roce_wr_opcode op, enum pos p)
{
	static const uint8_t send[4] = {ROCE_OP_RC_SEND_FIRST, ROCE_OP_RC_SEND_MIDDLE,
					ROCE_OP_RC_SEND_LAST, ROCE_OP_RC_SEND_ONLY};
	static const uint8_t write[4] = {ROCE_OP_RC_RDMA_WRITE_FIRST, ROCE_OP_RC_RDMA_WRITE_MIDDLE,
					 ROCE_OP_RC_RDMA_WRITE_LAST, ROCE_OP_RC_RDMA_WRITE_ONLY};
	uint8_t base = t == ROCE_QPT_UC ? 0x20 : 0x00; /* UC opcodes mirror RC's at 0x20 */
	uint8_t o;

	switch (op) {
	case ROCE_WR_SEND_WITH_IMM:
		o = p == P_LAST	  ? ROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE
		    : p == P_ONLY ? ROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE
				  : send[p];
		break;
	case ROCE_WR_SEND_WITH_INV:
		o = p == P_LAST	  ? ROCE_OP_RC_SEND_LAST_WITH_INVALIDATE
		    : p == P_ONLY ? ROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE
				  : send[p];
		return o; /* RC only */
	case ROCE_WR_RDMA_WRITE:
		o = write[p];
		break;
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		o = p == P_LAST	  ? ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE
		    : p == P_ONLY ? ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
				  : write[p];
		break;
	default:
		o = send[p];
		break;
	}
	return (uint8_t)(o + base);
}

/*
 * Find the bytes [off, off+len) of a WQE's payload: a pointer when they lie in one SGE (or in
 * the inline copy), else gathered into @tmp. *zc is set to the region a pointer into one SGE
 * lies in, which the frame may attach (zero copy). Every SGE's lkey is looked up again on
 * each use, as rxe's copy_data() does: a region deregistered or invalidated since the post is
 * never read (issue 11 item 1). @return the bytes, or NULL: an SGE's region is gone.
 */
static const void *payload_at(struct roce_qp *qp, const struct roce_swqe *e, uint32_t off,
			      uint32_t len, uint8_t *tmp, struct roce_mr **zc)
{
	uint32_t done = 0;

	*zc = NULL;
	if (e->wr.send_flags & ROCE_SEND_INLINE)
		return e->inline_data + off;
	for (int i = 0; i < e->wr.num_sge && done < len; i++) {
		const struct roce_sge *s = &e->sge[i];
		enum roce_key_err why;
		struct roce_mr *mr;
		uint32_t n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = RTE_MIN(len - done, s->length - off);
		mr = roce_mr_lookup(qp->pd->dev, s->lkey, false, qp->pd, s->addr + off, n, 0, &why);
		if (!mr)
			return NULL;
		if (done == 0 && n == len) {
			*zc = mr;
			return (const void *)(uintptr_t)(s->addr + off);
		}
		memcpy(tmp + done, (const void *)(uintptr_t)(s->addr + off), n);
		done += n;
		off = 0;
	}
	return tmp;
}

static bool is_rd_atomic(enum roce_wr_opcode op)
{
	return op == ROCE_WR_RDMA_READ || op == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	       op == ROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Local operations run when the requester reaches them, once (go-back-N walks over them again
 * without running them again); the completer completes them in order. A LOCAL_INV that
 * cannot be done completes with LOC_QP_OP_ERR and takes the QP to ERR, as rxe's
 * rxe_do_local_ops() does (IBA names no status for it): nothing after it is sent.
 */
static void run_local(struct roce_qp *qp, struct roce_swqe *e)
{
	struct roce_dev *dev = qp->pd->dev;

	if (e->local_done) {
		qp->req.halted = e->local_status != ROCE_WC_SUCCESS;
		return;
	}
	e->local_done = true;
	if (e->wr.opcode == ROCE_WR_LOCAL_INV) {
		if (roce_mr_invalidate(dev, e->wr.invalidate_rkey, qp->pd, false) != 0) {
			e->local_status = ROCE_WC_LOC_QP_OP_ERR;
			qp->req.halted = true;
		}
	} else if (e->wr.opcode == ROCE_WR_REG_MR) {
		struct roce_mr *mr = e->wr.wr.reg.mr;

		if (mr->state == ROCE_MR_DEAD) {
			/* deregistered since the post: never brought back to life */
			e->local_status = ROCE_WC_LOC_QP_OP_ERR;
			qp->req.halted = true;
			return;
		}
		mr->addr = e->wr.wr.reg.addr;
		mr->iova = e->wr.wr.reg.iova;
		mr->length = e->wr.wr.reg.length;
		mr->access = e->wr.wr.reg.access;
		mr->lkey = mr->rkey = e->wr.wr.reg.key;
		/* registration: its IOVAs are resolved now, not per packet */
		if (roce_mr_dma_resolve(mr) != 0) {
			e->local_status = ROCE_WC_LOC_QP_OP_ERR;
			qp->req.halted = true;
			mr->state = ROCE_MR_FREE;
			return;
		}
		mr->state = ROCE_MR_VALID;
	}
}

/*
 * UD: every WQE is one datagram to its address handle (IBA 9.8); it completes once sent.
 * A Q_Key with the high bit set means "use the QP's own" (IBA 10.2.5).
 */
static void ud_run(struct roce_qp *qp, struct stk_lcore *lc, unsigned budget)
{
	unsigned sent = 0;
	uint8_t tmp[4096];

	while (qp->req.cur != qp->sq.head && sent < budget) {
		struct roce_swqe *e = roce_sq_at(&qp->sq, qp->req.cur);
		const struct roce_ah *ah = e->wr.wr.ud.ah;
		struct roce_tx t;
		const void *pl = NULL;
		struct roce_mr *zc = NULL;

		memset(&t, 0, sizeof(t));
		t.opcode = e->wr.opcode == ROCE_WR_SEND_WITH_IMM
				   ? ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE
				   : ROCE_OP_UD_SEND_ONLY;
		t.dqpn = e->wr.wr.ud.remote_qpn;
		t.psn = qp->req.psn;
		t.se = (e->wr.send_flags & ROCE_SEND_SOLICITED) != 0;
		t.qkey = (e->wr.wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey
								 : e->wr.wr.ud.remote_qkey;
		t.sqpn = qp->qpn;
		t.imm = rte_be_to_cpu_32(e->wr.imm_data);
		if (e->wr.send_flags & ROCE_SEND_MBUF) {
			roce_qp_xmit_mbuf(qp, lc, &t, e, 0, e->length, &ah->path);
		} else {
			if (e->length) {
				pl = payload_at(qp, e, 0, e->length, tmp, &zc);
				if (!pl) {
					roce_qp_fatal(qp, ROCE_WC_LOC_PROT_ERR);
					return;
				}
			}
			roce_qp_xmit_to(qp, lc, &t, pl, e->length, zc, &ah->path);
		}
		qp->req.psn = roce_psn_add(qp->req.psn, 1);
		qp->req.cur++;
		sent++;
		if (e->signaled) {
			struct roce_wc wc = {.wr_id = e->wr.wr_id,
					     .opcode = ROCE_WC_SEND,
					     .byte_len = e->length};

			roce_qp_complete(qp, qp->init.send_cq, &wc);
		}
		roce_swqe_release(e);
		qp->sq.tail++;
	}
	qp->req.burst_sent += sent;
}

/* Time a new (never sent) PSN that asks for an answer, one at a time (Karn), for the RTO. */
static void sample_start(struct roce_qp *qp, bool answered, uint32_t npsn, uint64_t now)
{
	uint32_t psn = qp->req.psn;

	if (roce_psn_cmp(psn, qp->req.high_psn) < 0)
		return; /* a resent PSN */
	qp->req.high_psn = roce_psn_add(psn, npsn);
	if (answered && qp->type == ROCE_QPT_RC)
		roce_completer_sample(qp, psn, now); /* the completer times it */
}

uint64_t roce_requester_rewind(struct roce_qp *qp, uint32_t psn, uint32_t read_off)
{
	uint32_t mtu = roce_qp_mtu(qp);
	/* the WQE being sent counts too when part of it is out (a window or a poll's burst
	 * ended inside it) */
	uint64_t end = qp->req.cur + (qp->req.off && qp->req.cur != qp->sq.head ? 1 : 0);

	for (uint64_t i = qp->sq.tail; i != end; i++) {
		struct roce_swqe *e = roce_sq_at(&qp->sq, i);

		if (e->npsn == 0 || roce_psn_cmp(psn, e->first_psn) < 0 ||
		    roce_psn_cmp(psn, roce_psn_add(e->first_psn, e->npsn - 1)) > 0)
			continue;
		/* READ/atomic requests between here and the old position are re-issued */
		for (uint64_t k = i; k != qp->req.cur; k++)
			if (is_rd_atomic(roce_sq_at(&qp->sq, k)->wr.opcode) && qp->req.rd_out)
				qp->req.rd_out--;
		qp->req.cur = i;
		qp->req.halted = false; /* a failed local operation ahead halts it again */
		qp->req.off = e->wr.opcode == ROCE_WR_RDMA_READ
				      ? (i == qp->sq.tail ? read_off : 0)
				      : roce_psn_diff(psn, e->first_psn) * mtu;
		if (e->wr.opcode == ROCE_WR_RDMA_READ && qp->req.off) {
			psn = roce_psn_add(e->first_psn, qp->req.off / mtu);
			qp->req.rd_out++; /* a resumed READ stays outstanding */
		} else if (is_rd_atomic(e->wr.opcode)) {
			psn = e->first_psn;
		}
		qp->req.psn = psn;
		return i;
	}
	return UINT64_MAX;
}

void roce_requester_rd_done(struct roce_qp *qp)
{
	if (qp->req.rd_out)
		qp->req.rd_out--;
}

void roce_requester_run(struct roce_qp *qp, struct stk_lcore *lc, uint64_t now)
{
	uint64_t epoch = roce_qp_lane(qp)->poll_epoch;
	uint32_t mtu = roce_qp_mtu(qp);
	unsigned sent = 0, budget;
	uint8_t tmp[4096];

	/* one burst per QP per poll, shared by the posts made until the next poll (roce_post.c):
	 * a consumer posting many WRs in one loop iteration sends no more at once than the poll
	 * did before, so a switch's PFC headroom sized for it still holds */
	if (qp->req.burst_epoch != epoch) {
		qp->req.burst_epoch = epoch;
		qp->req.burst_sent = 0;
	}
	budget = qp->req.burst_sent < REQ_BURST ? REQ_BURST - qp->req.burst_sent : 0;
	if (qp->type == ROCE_QPT_UD) {
		ud_run(qp, lc, budget);
		return;
	}
	if (now < qp->comp.rnr_until)
		return;
	while (qp->req.cur != qp->sq.head && sent < budget && qp->state == ROCE_QPS_RTS &&
	       !qp->req.halted) {
		struct roce_swqe *e = roce_sq_at(&qp->sq, qp->req.cur);
		struct roce_tx t;
		uint32_t len = 0;
		const void *pl = NULL;
		struct roce_mr *zc = NULL;

		if (roce_psn_cmp(qp->req.psn, qp->comp.psn) > 0 &&
		    roce_psn_diff(qp->req.psn, qp->comp.psn) >= qp->comp.cwnd)
			break;
		/* DCQCN pacing: free at line rate, one check of the TSC otherwise */
		if (qp->cc && !roce_dcqcn_rp_may_send(&qp->rp, now))
			break;
		if (qp->req.off == 0 && qp->req.cur != qp->sq.tail) {
			/* IBA 10.8.3.3: a fenced WR waits for earlier READs and atomics */
			if ((e->wr.send_flags & ROCE_SEND_FENCE) && qp->req.rd_out)
				break;
		}
		if (qp->req.off == 0 && is_rd_atomic(e->wr.opcode) &&
		    qp->req.rd_out >= RTE_MAX(qp->attr.max_rd_atomic, 1))
			break;
		memset(&t, 0, sizeof(t));
		t.dqpn = qp->attr.dest_qp_num;
		t.psn = qp->req.psn;
		switch (e->wr.opcode) {
		case ROCE_WR_LOCAL_INV:
		case ROCE_WR_REG_MR:
			e->first_psn = qp->req.psn;
			e->npsn = 0;
			run_local(qp, e);
			qp->req.cur++;
			continue;
		case ROCE_WR_RDMA_READ:
			/* a resumed READ asks only for what has not arrived (IBA 9.7.4.1.5) */
			if (qp->req.off == 0) {
				e->first_psn = qp->req.psn;
				e->npsn = RTE_MAX(1u, (e->length + mtu - 1) / mtu);
			}
			t.opcode = ROCE_OP_RC_RDMA_READ_REQUEST;
			t.va = e->wr.wr.rdma.remote_addr + qp->req.off;
			t.rkey = e->wr.wr.rdma.rkey;
			t.dmalen = e->length - qp->req.off;
			if (qp->req.off == 0)
				qp->req.rd_out++;
			roce_qp_xmit(qp, lc, &t, NULL, 0, NULL);
			sample_start(qp, true, RTE_MAX(1u, (t.dmalen + mtu - 1) / mtu), now);
			qp->req.psn =
				roce_psn_add(qp->req.psn, RTE_MAX(1u, (t.dmalen + mtu - 1) / mtu));
			qp->req.cur++;
			qp->req.off = 0;
			sent++;
			break;
		case ROCE_WR_ATOMIC_CMP_AND_SWP:
		case ROCE_WR_ATOMIC_FETCH_AND_ADD:
			e->first_psn = qp->req.psn;
			e->npsn = 1;
			t.opcode = e->wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP
					   ? ROCE_OP_RC_COMPARE_SWAP
					   : ROCE_OP_RC_FETCH_ADD;
			t.va = e->wr.wr.atomic.remote_addr;
			t.rkey = e->wr.wr.atomic.rkey;
			t.swap_add = e->wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP
					     ? e->wr.wr.atomic.swap
					     : e->wr.wr.atomic.compare_add;
			t.cmp = e->wr.wr.atomic.compare_add;
			qp->req.rd_out++;
			roce_qp_xmit(qp, lc, &t, NULL, 0, NULL);
			sample_start(qp, true, 1, now);
			qp->req.psn = roce_psn_add(qp->req.psn, 1);
			qp->req.cur++;
			sent++;
			break;
		default: { /* SEND, WRITE (with IMM / INV) */
			enum pos p;
			bool first = qp->req.off == 0, last;

			if (first) {
				e->first_psn = qp->req.psn;
				e->npsn = RTE_MAX(1u, (e->length + mtu - 1) / mtu);
			}
			len = RTE_MIN(mtu, e->length - qp->req.off);
			last = qp->req.off + len == e->length;
			p = first && last ? P_ONLY : first ? P_FIRST : last ? P_LAST : P_MIDDLE;
			t.opcode = data_opcode(qp->type, e->wr.opcode, p);
			if (first && (e->wr.opcode == ROCE_WR_RDMA_WRITE ||
				      e->wr.opcode == ROCE_WR_RDMA_WRITE_WITH_IMM)) {
				t.va = e->wr.wr.rdma.remote_addr;
				t.rkey = e->wr.wr.rdma.rkey;
				t.dmalen = e->length;
			}
			t.imm = rte_be_to_cpu_32(e->wr.imm_data);
			t.ieth_rkey = e->wr.invalidate_rkey;
			t.se = last && (e->wr.send_flags & ROCE_SEND_SOLICITED);
			/* ask for an ACK at the end of a message, every REQ_ACKREQ_EVERY PSNs, and
			 * at half and all of the window, so that a small window keeps moving */
			{
				uint32_t out =
					roce_psn_diff(roce_psn_add(qp->req.psn, 1), qp->comp.psn);

				t.ackreq = qp->type == ROCE_QPT_RC &&
					   (last || ((qp->req.psn + 1) % REQ_ACKREQ_EVERY) == 0 ||
					    out == qp->comp.cwnd / 2 || out >= qp->comp.cwnd);
			}
			if (e->wr.send_flags & ROCE_SEND_MBUF) {
				/* the payload is an mbuf chain: frames point into it */
				roce_qp_xmit_mbuf(qp, lc, &t, e, qp->req.off, len,
						  &qp->attr.ah_attr);
			} else {
				if (len) {
					pl = payload_at(qp, e, qp->req.off, len, tmp, &zc);
					if (!pl) {
						/* its region is gone (rxe: LOC_PROT_ERR, QP to
						 * ERR); the oldest WQE completes with it, the
						 * rest flush */
						roce_qp_fatal(qp, ROCE_WC_LOC_PROT_ERR);
						return;
					}
				}
				roce_qp_xmit(qp, lc, &t, pl, len, zc);
			}
			if (qp->cc)
				roce_dcqcn_rp_sent(&qp->rp, len + REQ_WIRE_OVERHEAD, now);
			sample_start(qp, t.ackreq, 1, now);
			qp->req.psn = roce_psn_add(qp->req.psn, 1);
			qp->req.off += len;
			if (last) {
				qp->req.cur++;
				qp->req.off = 0;
			}
			sent++;
			break;
		}
		}
		if (qp->type == ROCE_QPT_RC)
			roce_completer_arm(qp, now);
	}
	qp->req.burst_sent += sent;
	/* UC has no acknowledgements: a WQE completes once its last packet is out */
	if (qp->type == ROCE_QPT_UC) {
		while (qp->sq.tail != qp->req.cur) {
			struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail);

			if (e->signaled) {
				struct roce_wc wc = {
					.wr_id = e->wr.wr_id,
					.byte_len = e->length,
					.opcode = e->wr.opcode == ROCE_WR_SEND ||
								  e->wr.opcode ==
									  ROCE_WR_SEND_WITH_IMM
							  ? ROCE_WC_SEND
							  : ROCE_WC_RDMA_WRITE};

				roce_qp_complete(qp, qp->init.send_cq, &wc);
			}
			roce_swqe_release(e);
			qp->sq.tail++;
		}
		qp->comp.psn = qp->req.psn;
	}
}
