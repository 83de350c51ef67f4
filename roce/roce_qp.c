/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_qp.c - queue pairs and shared receive queues: creation, the IBA QP state machine
 * (IBA 10.3.1; required and optional attributes per transition, as in Linux's
 * ib_modify_qp_is_ok table), and posting work requests with every check IBA asks of the
 * post verbs, SRQ limits and the context pointers. Entering ERR flushes the queues and, for a
 * QP with an SRQ, raises Last WQE Reached (roce_event.c).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_engine.h"
#include "roce_int.h"
#include "roce_psn.h"

#define ROCE_QPS_NAME_(n) #n,
static const char *const qps_names[ROCE_QPS_NUM_STATES] = {ROCE_QPS_LIST(ROCE_QPS_NAME_)};
#undef ROCE_QPS_NAME_

const char *roce_qp_state_str(enum roce_qp_state s)
{
	return (unsigned)s < ROCE_QPS_NUM_STATES ? qps_names[s] : "?";
}

/* ------------------------------------------------------------------ work queues */

int roce_wq_init(struct roce_wq *q, uint32_t max_wr, uint32_t max_sge, size_t esize)
{
	uint32_t n = rte_align32pow2(max_wr);

	memset(q, 0, sizeof(*q));
	q->e = rte_zmalloc("roce_wq", (size_t)n * esize, RTE_CACHE_LINE_SIZE);
	if (!q->e)
		return -ENOMEM;
	q->mask = n - 1;
	q->max_wr = max_wr;
	q->max_sge = max_sge;
	return 0;
}

void roce_wq_fini(struct roce_wq *q)
{
	rte_free(q->e);
	q->e = NULL;
}

/* Check an SGE list against the key table. Local access needed: @access (0 = just read). */
static int check_sges(struct roce_dev *dev, const struct roce_pd *pd, const struct roce_sge *sg,
		      int num, uint32_t access, uint32_t *total)
{
	uint64_t sum = 0;

	for (int i = 0; i < num; i++) {
		enum roce_key_err why;

		if (sg[i].length == 0)
			continue; /* a zero-length SGE names no memory (IBA 10.7.2.1) */
		if (!roce_mr_lookup(dev, sg[i].lkey, false, pd, sg[i].addr, sg[i].length, access,
				    &why))
			return -EINVAL;
		sum += sg[i].length;
	}
	if (sum > ROCE_MAX_MSG)
		return -EINVAL;
	*total = (uint32_t)sum;
	return 0;
}

int roce_rwqe_fill(struct roce_dev *dev, const struct roce_pd *pd, uint32_t max_sge,
		   const struct roce_recv_wr *wr, struct roce_rwqe *e)
{
	uint32_t total;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge || (wr->num_sge && !wr->sg_list) ||
	    (wr->flags & ~(uint32_t)ROCE_RECV_MBUF))
		return -EINVAL;
	if (wr->flags & ROCE_RECV_MBUF) {
		/* the payload arrives as the frames' mbufs: no SGE, a length limit */
		if (wr->num_sge != 0 || wr->max_len > ROCE_MAX_MSG)
			return -EINVAL;
		total = wr->max_len;
	} else if (check_sges(dev, pd, wr->sg_list, wr->num_sge, ROCE_ACCESS_LOCAL_WRITE, &total) !=
		   0) {
		/* receive buffers are written by the transport: local write access */
		return -EINVAL;
	}
	e->wr_id = wr->wr_id;
	e->num_sge = (uint32_t)wr->num_sge;
	e->length = total;
	e->flags = wr->flags;
	e->chain = e->ctail = NULL;
	if (wr->num_sge)
		memcpy(e->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(e->sge[0]));
	return 0;
}

/* ------------------------------------------------------------------ creation */

static int qpn_alloc(struct roce_dev *dev, struct roce_qp *qp)
{
	for (uint32_t k = 0; k < ROCE_MAX_QP; k++) {
		uint32_t i = (dev->qp_hint + k) % ROCE_MAX_QP;

		if (!dev->qps[i]) {
			qp->qpn = ROCE_FIRST_QPN + i;
			/* published last: other lanes look QPs up by number (roce_rx()) */
			__atomic_store_n(&dev->qps[i], qp, __ATOMIC_RELEASE);
			dev->qp_hint = (i + 1) % ROCE_MAX_QP;
			return 0;
		}
	}
	return -ENOSPC;
}

static int gsi_alloc(struct roce_dev *dev, struct roce_qp *qp)
{
	if (dev->gsi)
		return -EEXIST;
	qp->qpn = ROCE_GSI_QPN;
	__atomic_store_n(&dev->gsi, qp, __ATOMIC_RELEASE);
	return 0;
}

static bool cq_lane_ok(const struct roce_cq *cq, int lane)
{
	return !cq || cq->lane == ROCE_LANE_NONE || cq->lane == lane;
}

struct roce_qp *roce_create_qp(struct roce_pd *pd, struct roce_qp_init_attr *init)
{
	struct roce_qp_cap *cap;
	struct roce_qp *qp;
	struct roce_dev *dev;
	int home;

	if (!pd || !init || !init->send_cq || (!init->recv_cq && !init->srq)) {
		rte_errno = EINVAL;
		return NULL;
	}
	cap = &init->cap;
	if ((init->qp_type != ROCE_QPT_RC && init->qp_type != ROCE_QPT_UC &&
	     init->qp_type != ROCE_QPT_UD && init->qp_type != ROCE_QPT_GSI) ||
	    cap->max_send_wr == 0 || cap->max_send_wr > ROCE_MAX_QP_WR ||
	    cap->max_send_sge > ROCE_MAX_SGE || cap->max_inline_data > ROCE_MAX_INLINE ||
	    (!init->srq && (cap->max_recv_wr == 0 || cap->max_recv_wr > ROCE_MAX_QP_WR ||
			    cap->max_recv_sge > ROCE_MAX_SGE)) ||
	    (init->srq && init->srq->pd != pd)) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	home = roce_lane_place(dev, init);
	if (home < 0 || !cq_lane_ok(init->send_cq, home) || !cq_lane_ok(init->recv_cq, home) ||
	    (init->srq && init->srq->lane != ROCE_LANE_NONE && init->srq->lane != home)) {
		/* a CQ or SRQ belongs to one lane: the one of the QPs that use it */
		rte_errno = EINVAL;
		return NULL;
	}
	qp = rte_zmalloc("roce_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (!qp) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (cap->max_send_sge == 0)
		cap->max_send_sge = 1;
	if (!init->srq && cap->max_recv_sge == 0)
		cap->max_recv_sge = 1;
	if (roce_wq_init(&qp->sq, cap->max_send_wr, cap->max_send_sge, sizeof(struct roce_swqe)) ||
	    (!init->srq && roce_wq_init(&qp->rq, cap->max_recv_wr, cap->max_recv_sge,
					sizeof(struct roce_rwqe)))) {
		roce_wq_fini(&qp->sq);
		rte_free(qp);
		rte_errno = ENOMEM;
		return NULL;
	}
	/* every QP starts on the primary lane (the CM's) and runs on its home from RTS on */
	qp->lane = &dev->lane[0];
	qp->home = (uint8_t)home;
	qp->ran_on = RTE_MAX_LCORE;
	qp->gen = ++dev->qp_gen;
	qp->pd = pd;
	/* the GSI QP is a UD QP everywhere else; only its number and Q_Key are special */
	qp->type = init->qp_type == ROCE_QPT_GSI ? ROCE_QPT_UD : init->qp_type;
	qp->state = ROCE_QPS_RESET;
	if (init->qp_type == ROCE_QPT_GSI ? gsi_alloc(dev, qp) != 0 : qpn_alloc(dev, qp) != 0) {
		roce_wq_fini(&qp->sq);
		roce_wq_fini(&qp->rq);
		rte_free(qp);
		rte_errno = init->qp_type == ROCE_QPT_GSI ? EEXIST : ENOSPC;
		return NULL;
	}
	if (init->srq)
		cap->max_recv_wr = cap->max_recv_sge = 0;
	qp->init = *init;
	pd->users++;
	init->send_cq->users++;
	init->send_cq->lane = (uint8_t)home;
	if (init->recv_cq) {
		init->recv_cq->users++;
		init->recv_cq->lane = (uint8_t)home;
	}
	if (init->srq) {
		init->srq->users++;
		init->srq->lane = (uint8_t)home;
	}
	dev->lane[home].nqps++;
	dev->n.qps++;
	return qp;
}

/* Take @qp out of the QPN table. */
static void unpublish(struct roce_dev *dev, struct roce_qp *qp)
{
	if (qp->qpn == ROCE_GSI_QPN) {
		if (dev->gsi == qp)
			__atomic_store_n(&dev->gsi, NULL, __ATOMIC_RELEASE);
	} else if (dev->qps[qp->qpn - ROCE_FIRST_QPN] == qp) {
		__atomic_store_n(&dev->qps[qp->qpn - ROCE_FIRST_QPN], NULL, __ATOMIC_RELEASE);
	}
}

/*
 * May @qp's memory go? Only once no lane can hold a pointer to it: every other live lane has
 * started a poll since it left the QPN table (lanes look QPs up by number as frames arrive).
 * The first call records where the lanes stand; later calls answer once all have moved on.
 */
static bool grace_over(struct roce_dev *dev, struct roce_qp *qp)
{
	bool over = true;

	if (!qp->unpublished) {
		unpublish(dev, qp);
		qp->unpublished = true;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		for (unsigned i = 0; i < dev->nlanes; i++) {
			struct roce_lane *l = &dev->lane[i];

			qp->grace[i] = __atomic_load_n(&l->poll_epoch, __ATOMIC_ACQUIRE);
			if (__atomic_load_n(&l->live, __ATOMIC_ACQUIRE) && !roce_lane_here(l))
				over = false;
		}
		return over;
	}
	for (unsigned i = 0; i < dev->nlanes; i++) {
		struct roce_lane *l = &dev->lane[i];

		if (__atomic_load_n(&l->live, __ATOMIC_ACQUIRE) && !roce_lane_here(l) &&
		    __atomic_load_n(&l->poll_epoch, __ATOMIC_ACQUIRE) <= qp->grace[i])
			over = false;
	}
	return over;
}

static void drop_queues(struct roce_qp *qp);

int roce_destroy_qp(struct roce_qp *qp)
{
	struct roce_dev *dev;
	struct roce_lane *lane;

	if (!qp)
		return -EINVAL;
	dev = qp->pd->dev;
	lane = roce_qp_lane(qp);
	if (!roce_lane_here(lane) && !__atomic_load_n(&qp->released, __ATOMIC_ACQUIRE)) {
		/* its lane runs it: ask that lane to let go first */
		if (qp->release_asked != lane && roce_lane_cmd(qp, ROCE_LANE_CMD_RELEASE) == 0)
			qp->release_asked = lane; /* asked again if it moved lanes meanwhile */
		return -EBUSY;
	}
	if (!grace_over(dev, qp))
		return -EBUSY;
	/* issue 11 item 2: a connection's later DREP, DREQ or timer must not reach this memory */
	roce_cm_qp_destroyed(qp);
	if (!qp->released) {
		roce_qp_engine_stop(qp);
		roce_post_forget(qp);
		roce_lane_forget_move(qp);
	}
	roce_event_purge(dev, qp);
	unpublish(dev, qp);
	drop_queues(qp);
	qp->pd->users--;
	qp->init.send_cq->users--;
	if (qp->init.recv_cq)
		qp->init.recv_cq->users--;
	if (qp->init.srq)
		qp->init.srq->users--;
	roce_wq_fini(&qp->sq);
	roce_wq_fini(&qp->rq);
	dev->lane[qp->home].nqps--;
	dev->n.qps--;
	rte_free(qp);
	return 0;
}

uint32_t roce_qp_num(const struct roce_qp *qp)
{
	return qp->qpn;
}

enum roce_qp_state roce_qp_state(const struct roce_qp *qp)
{
	return qp->state;
}

void *roce_qp_context(const struct roce_qp *qp)
{
	return qp->init.qp_context;
}

/* ------------------------------------------------------------------ state machine */

#define M_(x) ROCE_QP_##x

/* Required / optional attribute masks of a transition, per QP type (RC, UC, UD). */
struct trans {
	bool valid;
	int req[3];
	int opt[3];
};

enum { T_RC, T_UC, T_UD };

static const struct trans trans_tab[ROCE_QPS_NUM_STATES][ROCE_QPS_NUM_STATES] = {
	[ROCE_QPS_RESET] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			[ROCE_QPS_INIT] =
				{.valid = true,
				 .req = {[T_RC] = M_(PKEY_INDEX) | M_(PORT) | M_(ACCESS_FLAGS),
					 [T_UC] = M_(PKEY_INDEX) | M_(PORT) | M_(ACCESS_FLAGS),
					 [T_UD] = M_(PKEY_INDEX) | M_(PORT) | M_(QKEY)}},
		},
	[ROCE_QPS_INIT] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			[ROCE_QPS_INIT] =
				{.valid = true,
				 .opt = {[T_RC] = M_(PKEY_INDEX) | M_(PORT) | M_(ACCESS_FLAGS),
					 [T_UC] = M_(PKEY_INDEX) | M_(PORT) | M_(ACCESS_FLAGS),
					 [T_UD] = M_(PKEY_INDEX) | M_(PORT) | M_(QKEY)}},
			[ROCE_QPS_RTR] = {.valid = true,
					  .req =
						  {[T_RC] = M_(AV) | M_(PATH_MTU) | M_(DEST_QPN) |
							    M_(RQ_PSN) | M_(MAX_DEST_RD_ATOMIC) |
							    M_(MIN_RNR_TIMER),
						   [T_UC] = M_(AV) | M_(PATH_MTU) | M_(DEST_QPN) |
							    M_(RQ_PSN)},
					  .opt =
						  {[T_RC] = M_(ACCESS_FLAGS) | M_(PKEY_INDEX),
						   [T_UC] = M_(ACCESS_FLAGS) | M_(PKEY_INDEX),
						   [T_UD] = M_(PKEY_INDEX) | M_(QKEY)}},
		},
	[ROCE_QPS_RTR] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			[ROCE_QPS_RTS] = {.valid = true,
					  .req = {[T_RC] = M_(SQ_PSN) | M_(TIMEOUT) |
							   M_(RETRY_CNT) | M_(RNR_RETRY) |
							   M_(MAX_QP_RD_ATOMIC),
						  [T_UC] = M_(SQ_PSN),
						  [T_UD] = M_(SQ_PSN)},
					  .opt = {[T_RC] = M_(CUR_STATE) |
							   M_(ACCESS_FLAGS) | M_(MIN_RNR_TIMER),
						  [T_UC] = M_(CUR_STATE) | M_(ACCESS_FLAGS),
						  [T_UD] = M_(CUR_STATE) | M_(QKEY)}},
		},
	[ROCE_QPS_RTS] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			[ROCE_QPS_RTS] = {.valid = true,
					  .opt = {[T_RC] = M_(CUR_STATE) | M_(ACCESS_FLAGS) |
							   M_(MIN_RNR_TIMER),
						  [T_UC] = M_(CUR_STATE) | M_(ACCESS_FLAGS),
						  [T_UD] = M_(CUR_STATE) | M_(QKEY)}},
			[ROCE_QPS_SQD] = {.valid = true,
					  .opt = {[T_RC] = M_(EN_SQD_ASYNC_NOTIFY),
						  [T_UC] = M_(EN_SQD_ASYNC_NOTIFY),
						  [T_UD] = M_(EN_SQD_ASYNC_NOTIFY)}},
		},
	[ROCE_QPS_SQD] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			[ROCE_QPS_RTS] = {.valid = true,
					  .opt = {[T_RC] = M_(CUR_STATE) | M_(ACCESS_FLAGS) |
							   M_(MIN_RNR_TIMER),
						  [T_UC] = M_(CUR_STATE) | M_(ACCESS_FLAGS),
						  [T_UD] = M_(CUR_STATE) | M_(QKEY)}},
			[ROCE_QPS_SQD] = {.valid = true,
					  .opt = {[T_RC] = M_(AV) | M_(ACCESS_FLAGS) |
							   M_(PKEY_INDEX) | M_(MIN_RNR_TIMER) |
							   M_(TIMEOUT) | M_(RETRY_CNT) |
							   M_(RNR_RETRY) | M_(MAX_QP_RD_ATOMIC) |
							   M_(MAX_DEST_RD_ATOMIC),
						  [T_UC] =
							  M_(AV) | M_(ACCESS_FLAGS) |
							  M_(PKEY_INDEX),
						  [T_UD] = M_(PKEY_INDEX) | M_(QKEY)}},
		},
	[ROCE_QPS_SQE] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
			/* only UC and UD reach SQE (IBA 10.3.1.8) */
			[ROCE_QPS_RTS] = {.valid = true,
					  .opt = {[T_UC] = M_(CUR_STATE) | M_(ACCESS_FLAGS),
						  [T_UD] = M_(CUR_STATE) | M_(QKEY)}},
		},
	[ROCE_QPS_ERR] =
		{
			[ROCE_QPS_RESET] = {.valid = true},
			[ROCE_QPS_ERR] = {.valid = true},
		},
};

static int type_index(enum roce_qp_type t)
{
	return t == ROCE_QPT_RC ? T_RC : t == ROCE_QPT_UC ? T_UC : T_UD;
}

static int check_values(const struct roce_qp *qp, const struct roce_qp_attr *a, int mask)
{
	const struct roce_dev *dev = qp->pd->dev;

	if ((mask & M_(PATH_MTU)) &&
	    (!roce_mtu_bytes(a->path_mtu) || roce_mtu_bytes(a->path_mtu) > dev->max_path_mtu))
		return -EINVAL;
	if ((mask & M_(PKEY_INDEX)) && a->pkey_index != 0)
		return -EINVAL; /* one partition: the default key 0xffff */
	if ((mask & M_(PORT)) && a->port_num != 1)
		return -EINVAL;
	if ((mask & M_(ACCESS_FLAGS)) && (a->qp_access_flags & ~(uint32_t)ROCE_ACCESS_ALL))
		return -EINVAL;
	if ((mask & M_(AV)) && a->ah_attr.dgid_ip.family != 4 && a->ah_attr.dgid_ip.family != 6)
		return -EINVAL;
	if ((mask & M_(AV)) && (a->ah_attr.dscp > 63 || a->ah_attr.ecn > 3 || a->ah_attr.pcp > 7 ||
				a->ah_attr.vlan_id > 4094 || a->ah_attr.flow_label > 0xfffff))
		return -EINVAL;
	if ((mask & M_(RQ_PSN)) && a->rq_psn > ROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & M_(SQ_PSN)) && a->sq_psn > ROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & M_(DEST_QPN)) && a->dest_qp_num > ROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & M_(TIMEOUT)) && a->timeout > 31)
		return -EINVAL;
	if ((mask & M_(RETRY_CNT)) && a->retry_cnt > 7)
		return -EINVAL;
	if ((mask & M_(RNR_RETRY)) && a->rnr_retry > 7)
		return -EINVAL;
	if ((mask & M_(MIN_RNR_TIMER)) && a->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & M_(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > ROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & M_(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > ROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	return 0;
}

/*
 * Complete every outstanding WR with WR_FLUSH_ERR (IBA 10.3.1.7: entering the error state).
 * That includes the receive WQE a multi-packet SEND took with its FIRST packet and never
 * finished (issue 11 item 7), or a UC QP kept from a message lost on the way (see
 * roce_responder.c uc_abandon()), also when it came from an SRQ: it belongs to this QP now and
 * is completed on its receive CQ, oldest first, so the application gets the buffer back.
 * The WQEs still on an SRQ are not this QP's and stay there for the others.
 */
static void flush_queues(struct roce_qp *qp)
{
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.status = ROCE_WC_WR_FLUSH_ERR;
	while (qp->sq.tail != qp->sq.head) {
		struct roce_swqe *e = roce_sq_at(&qp->sq, qp->sq.tail++);

		roce_swqe_release(e);
		wc.wr_id = e->wr.wr_id;
		wc.opcode = ROCE_WC_SEND;
		roce_qp_complete(qp, qp->init.send_cq, &wc);
	}
	wc.opcode = ROCE_WC_RECV;
	if (qp->resp.recv_active || qp->resp.rwqe_kept) {
		qp->resp.recv_active = qp->resp.rwqe_kept = false;
		roce_rwqe_release(&qp->resp.rwqe);
		wc.wr_id = qp->resp.rwqe.wr_id;
		if (qp->init.recv_cq)
			roce_qp_complete(qp, qp->init.recv_cq, &wc);
	}
	if (qp->init.srq)
		return;
	while (qp->rq.tail != qp->rq.head) {
		const struct roce_rwqe *e = roce_rq_at(&qp->rq, qp->rq.tail++);

		wc.wr_id = e->wr_id;
		roce_qp_complete(qp, qp->init.recv_cq, &wc);
	}
}

/* RESET or destroy: the WQEs still queued go without completions (IBA 10.3.1: RESET
 * discards them); the mbuf chains they hold are freed. */
static void drop_queues(struct roce_qp *qp)
{
	for (uint64_t i = qp->sq.tail; i != qp->sq.head; i++)
		roce_swqe_release(roce_sq_at(&qp->sq, i));
	roce_rwqe_release(&qp->resp.rwqe);
	qp->resp.recv_active = qp->resp.rwqe_kept = false;
}

static void apply(struct roce_qp *qp, const struct roce_qp_attr *a, int mask)
{
	struct roce_qp_attr *q = &qp->attr;

	if (mask & M_(QKEY))
		q->qkey = a->qkey;
	if (mask & M_(PATH_MTU))
		q->path_mtu = a->path_mtu;
	if (mask & M_(RQ_PSN))
		q->rq_psn = a->rq_psn;
	if (mask & M_(SQ_PSN))
		q->sq_psn = a->sq_psn;
	if (mask & M_(DEST_QPN))
		q->dest_qp_num = a->dest_qp_num;
	if (mask & M_(ACCESS_FLAGS))
		q->qp_access_flags = a->qp_access_flags;
	if (mask & M_(AV))
		q->ah_attr = a->ah_attr;
	if (mask & M_(PKEY_INDEX))
		q->pkey_index = a->pkey_index;
	if (mask & M_(PORT))
		q->port_num = a->port_num;
	if (mask & M_(MAX_QP_RD_ATOMIC))
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & M_(MAX_DEST_RD_ATOMIC))
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & M_(MIN_RNR_TIMER))
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & M_(TIMEOUT))
		q->timeout = a->timeout;
	if (mask & M_(RETRY_CNT))
		q->retry_cnt = a->retry_cnt;
	if (mask & M_(RNR_RETRY))
		q->rnr_retry = a->rnr_retry;
}

int roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *attr, int mask)
{
	enum roce_qp_state cur, next;
	const struct trans *t;
	int ti, allowed, rc;

	if (!qp || !attr)
		return -EINVAL;
	if (unlikely(!roce_lane_here(roce_qp_lane(qp)))) {
		/* another lane runs it: only a move to ERR (the CM's disconnect, a device
		 * failure) is taken, and that lane applies it at its next poll */
		if (mask == M_(STATE) && attr->qp_state == ROCE_QPS_ERR)
			return roce_lane_cmd(qp, ROCE_LANE_CMD_FAIL);
		roce_lane_mine(roce_qp_lane(qp));
		return -EXDEV;
	}
	cur = qp->state;
	if ((mask & M_(CUR_STATE)) && attr->cur_qp_state != cur)
		return -EINVAL;
	next = (mask & M_(STATE)) ? attr->qp_state : cur;
	if ((unsigned)next >= ROCE_QPS_NUM_STATES)
		return -EINVAL;
	t = &trans_tab[cur][next];
	if (!t->valid || (mask & (M_(ALT_PATH) | M_(PATH_MIG_STATE) | M_(CAP))))
		return -EINVAL;
	ti = type_index(qp->type);
	/* a QP type that never has a transition listed for it (RC into SQE ...) has none */
	if (next == ROCE_QPS_RTS && cur == ROCE_QPS_SQE && qp->type == ROCE_QPT_RC)
		return -EINVAL;
	allowed = t->req[ti] | t->opt[ti] | M_(STATE) | M_(CUR_STATE);
	if ((mask & t->req[ti]) != t->req[ti] || (mask & ~allowed))
		return -EINVAL;
	rc = check_values(qp, attr, mask);
	if (rc != 0)
		return rc;
	apply(qp, attr, mask);
	qp->state = next;
	if (next == ROCE_QPS_RTR && cur == ROCE_QPS_INIT)
		roce_qp_engine_rtr(qp);
	if (next == ROCE_QPS_RTS && cur == ROCE_QPS_RTR)
		roce_qp_engine_rts(qp);
	if (next == ROCE_QPS_ERR)
		flush_queues(qp);
	/* IBA 10.10.2 (affiliated event Last WQE Reached): a QP with an SRQ that enters ERR
	 * takes no more of its WQEs; raised after the flush, as rxe's flush_recv_queue() and
	 * rdmavt do, so the consumer that waits for it (ib_drain_qp on an SRQ) finds every
	 * completion of the QP queued */
	if (next == ROCE_QPS_ERR && cur != ROCE_QPS_ERR && qp->init.srq)
		roce_event_raise(qp->pd->dev, ROCE_EVENT_QP_LAST_WQE_REACHED, qp);
	if (next == ROCE_QPS_RESET) {
		drop_queues(qp);
		qp->sq.head = qp->sq.tail = 0;
		qp->rq.head = qp->rq.tail = 0;
	}
	return 0;
}

int roce_query_qp(const struct roce_qp *qp, struct roce_qp_attr *attr,
		  struct roce_qp_init_attr *init)
{
	if (!qp || !attr)
		return -EINVAL;
	*attr = qp->attr;
	attr->qp_state = attr->cur_qp_state = qp->state;
	if (init)
		*init = qp->init;
	return 0;
}

/* ------------------------------------------------------------------ posting */

static bool opcode_ok(enum roce_qp_type t, enum roce_wr_opcode op)
{
	switch (op) {
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_WITH_IMM:
		return true;
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		return t != ROCE_QPT_UD;
	case ROCE_WR_RDMA_READ:
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
	case ROCE_WR_SEND_WITH_INV:
	case ROCE_WR_LOCAL_INV:
	case ROCE_WR_REG_MR:
		return t == ROCE_QPT_RC;
	default:
		return false;
	}
}

/*
 * A WR with ROCE_SEND_MBUF (issue 12 item 5): a SEND or WRITE kind whose payload is the mbuf
 * chain it names, or a READ whose response data will be handed over as the frames' mbufs.
 * The chain is the QP's once the WR is queued (roce_swqe_release() frees it).
 */
/* The chain's segments add up to its pkt_len and number nb_segs: every frame can be built
 * from it (a chain shorter than it says would fail each frame, and the WR by retries). */
static bool chain_sane(const struct rte_mbuf *m)
{
	uint64_t sum = 0;
	uint32_t n = 0;

	for (const struct rte_mbuf *c = m; c; c = c->next, n++)
		sum += c->data_len;
	return sum == m->pkt_len && n == m->nb_segs;
}

static int fill_swqe_mbuf(struct roce_qp *qp, const struct roce_send_wr *wr, struct roce_swqe *e)
{
	uint32_t len;

	if (wr->num_sge != 0 || (wr->send_flags & ROCE_SEND_INLINE))
		return -EINVAL;
	switch (wr->opcode) {
	case ROCE_WR_RDMA_READ:
		/* the completion carries the chain: an unsignaled one would lose it */
		if (wr->mbuf || wr->wr.rdma.length > ROCE_MAX_MSG ||
		    !(qp->init.sq_sig_all || (wr->send_flags & ROCE_SEND_SIGNALED)))
			return -EINVAL;
		len = wr->wr.rdma.length;
		break;
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_WITH_IMM:
	case ROCE_WR_SEND_WITH_INV:
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		if (!wr->mbuf || rte_pktmbuf_pkt_len(wr->mbuf) > ROCE_MAX_MSG ||
		    !chain_sane(wr->mbuf))
			return -EINVAL;
		len = rte_pktmbuf_pkt_len(wr->mbuf);
		if (qp->type == ROCE_QPT_UD &&
		    (len > qp->pd->dev->max_path_mtu || !wr->wr.ud.ah ||
		     wr->wr.ud.ah->pd != qp->pd || wr->wr.ud.remote_qpn > ROCE_QPN_MASK))
			return -EINVAL;
		break;
	default:
		return -EINVAL; /* atomics and local operations carry no payload */
	}
	e->wr = *wr;
	e->wr.next = NULL;
	e->wr.sg_list = NULL;
	e->length = len;
	e->signaled = qp->init.sq_sig_all || (wr->send_flags & ROCE_SEND_SIGNALED);
	e->local_done = false;
	e->local_status = ROCE_WC_SUCCESS;
	e->walk = wr->opcode == ROCE_WR_RDMA_READ ? NULL : wr->mbuf;
	e->walk_off = 0;
	e->mtail = NULL;
	return 0;
}

static int fill_swqe(struct roce_qp *qp, const struct roce_send_wr *wr, struct roce_swqe *e)
{
	struct roce_dev *dev = qp->pd->dev;
	uint32_t total = 0, access = 0;
	bool is_inline = (wr->send_flags & ROCE_SEND_INLINE) != 0;

	if (!opcode_ok(qp->type, wr->opcode) ||
	    (wr->send_flags &
	     ~(uint32_t)(ROCE_SEND_FENCE | ROCE_SEND_SIGNALED | ROCE_SEND_SOLICITED |
			 ROCE_SEND_INLINE | ROCE_SEND_MBUF)) ||
	    wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	if (wr->send_flags & ROCE_SEND_MBUF)
		return fill_swqe_mbuf(qp, wr, e);
	switch (wr->opcode) {
	case ROCE_WR_RDMA_READ:
		access = ROCE_ACCESS_LOCAL_WRITE; /* the response lands in our buffer */
		if (is_inline)
			return -EINVAL;
		break;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		/* IBA 9.4.5: 8 bytes at an 8-byte aligned address, result into one 8-byte SGE */
		if ((wr->wr.atomic.remote_addr & 7) || wr->num_sge != 1 ||
		    wr->sg_list[0].length != 8 || is_inline)
			return -EINVAL;
		access = ROCE_ACCESS_LOCAL_WRITE;
		break;
	case ROCE_WR_LOCAL_INV:
	case ROCE_WR_REG_MR:
		if (wr->num_sge != 0 || is_inline)
			return -EINVAL;
		if (wr->opcode == ROCE_WR_REG_MR &&
		    (!wr->wr.reg.mr || !wr->wr.reg.mr->fast_reg || wr->wr.reg.mr->pd != qp->pd ||
		     wr->wr.reg.mr->state == ROCE_MR_DEAD ||
		     (wr->wr.reg.key >> 8) != wr->wr.reg.mr->index || !wr->wr.reg.addr ||
		     wr->wr.reg.length == 0 || wr->wr.reg.length > wr->wr.reg.mr->length ||
		     !roce_access_ok(wr->wr.reg.access)))
			return -EINVAL;
		break;
	default:
		break;
	}
	if (is_inline) {
		uint64_t sum = 0;

		for (int i = 0; i < wr->num_sge; i++)
			sum += wr->sg_list[i].length;
		if (sum > qp->init.cap.max_inline_data)
			return -EINVAL;
		total = 0;
		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(e->inline_data + total, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			total += wr->sg_list[i].length;
		}
	} else if (check_sges(dev, qp->pd, wr->sg_list, wr->num_sge, access, &total) != 0) {
		return -EINVAL;
	}
	if (qp->type == ROCE_QPT_UD &&
	    (total > dev->max_path_mtu || !wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->pd ||
	     wr->wr.ud.remote_qpn > ROCE_QPN_MASK))
		return -EINVAL; /* a UD message is one packet, to an address handle */
	e->wr = *wr;
	e->wr.next = NULL;
	e->wr.sg_list = NULL;
	if (wr->num_sge && !is_inline)
		memcpy(e->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(e->sge[0]));
	e->length = total;
	e->signaled = qp->init.sq_sig_all || (wr->send_flags & ROCE_SEND_SIGNALED);
	e->local_done = false;
	e->local_status = ROCE_WC_SUCCESS;
	return 0;
}

int roce_post_send(struct roce_qp *qp, struct roce_send_wr *wr, struct roce_send_wr **bad_wr)
{
	uint64_t head0;
	int rc = 0;

	if (!qp || !bad_wr)
		return -EINVAL;
	*bad_wr = NULL;
	head0 = qp->sq.head;
	for (; wr; wr = wr->next) {
		struct roce_swqe *e;

		/* IBA 10.8.2.3: posting before RTS is an error; in ERR WRs are flushed */
		if (qp->state == ROCE_QPS_RESET || qp->state == ROCE_QPS_INIT ||
		    qp->state == ROCE_QPS_RTR) {
			rc = -EINVAL;
			break;
		}
		if (roce_wq_count(&qp->sq) >= qp->sq.max_wr) {
			rc = -ENOMEM;
			break;
		}
		e = roce_sq_at(&qp->sq, qp->sq.head);
		rc = fill_swqe(qp, wr, e);
		if (rc != 0)
			break;
		qp->sq.head++;
	}
	if (rc != 0)
		*bad_wr = wr;
	if (qp->state == ROCE_QPS_ERR)
		flush_queues(qp);
	else if (qp->sq.head != head0 && qp->state == ROCE_QPS_RTS)
		roce_post_kick(qp); /* the WRs queued before a refused one go too */
	return rc;
}

/*
 * Queue receive WRs on @q (a QP's receive queue or an SRQ), each checked before it is queued.
 * @return 0 or -errno, with *bad_wr at the first WR not queued.
 */
static int post_rq(struct roce_wq *q, struct roce_pd *pd, bool ud, struct roce_recv_wr *wr,
		   struct roce_recv_wr **bad_wr)
{
	int rc = 0;

	for (; wr; wr = wr->next) {
		if (roce_wq_count(q) >= q->max_wr) {
			rc = -ENOMEM;
			break;
		}
		if (ud && (wr->flags & ROCE_RECV_MBUF)) {
			rc = -EINVAL; /* a datagram's GRH area needs a buffer: not into mbufs */
			break;
		}
		rc = roce_rwqe_fill(pd->dev, pd, q->max_sge, wr, roce_rq_at(q, q->head));
		if (rc != 0)
			break;
		q->head++;
	}
	*bad_wr = rc ? wr : NULL;
	return rc;
}

int roce_post_recv(struct roce_qp *qp, struct roce_recv_wr *wr, struct roce_recv_wr **bad_wr)
{
	int rc;

	if (!qp || !bad_wr)
		return -EINVAL;
	if (qp->init.srq || qp->state == ROCE_QPS_RESET) {
		*bad_wr = wr; /* its receives go to the SRQ; or not yet initialised */
		return -EINVAL;
	}
	rc = post_rq(&qp->rq, qp->pd, qp->type == ROCE_QPT_UD, wr, bad_wr);
	if (qp->state == ROCE_QPS_ERR)
		flush_queues(qp);
	return rc;
}

/* ------------------------------------------------------------------ SRQ */

struct roce_srq *roce_create_srq(struct roce_pd *pd, struct roce_srq_init_attr *init)
{
	struct roce_srq *srq;

	if (!pd || !init || init->max_wr == 0 || init->max_wr > ROCE_MAX_QP_WR ||
	    init->max_sge > ROCE_MAX_SGE || init->srq_limit > init->max_wr) {
		rte_errno = EINVAL;
		return NULL;
	}
	srq = rte_zmalloc("roce_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE);
	if (!srq || roce_wq_init(&srq->rq, init->max_wr, init->max_sge ? init->max_sge : 1,
				 sizeof(struct roce_rwqe)) != 0) {
		rte_free(srq);
		rte_errno = ENOMEM;
		return NULL;
	}
	srq->pd = pd;
	srq->srq_limit = init->srq_limit;
	srq->context = init->srq_context;
	srq->lane = ROCE_LANE_NONE;
	pd->users++;
	pd->dev->n.srqs++;
	return srq;
}

int roce_destroy_srq(struct roce_srq *srq)
{
	if (!srq)
		return -EINVAL;
	if (srq->users)
		return -EBUSY;
	roce_event_purge(srq->pd->dev, srq);
	srq->pd->users--;
	srq->pd->dev->n.srqs--;
	roce_wq_fini(&srq->rq);
	rte_free(srq);
	return 0;
}

int roce_post_srq_recv(struct roce_srq *srq, struct roce_recv_wr *wr, struct roce_recv_wr **bad_wr)
{
	if (!srq || !bad_wr)
		return -EINVAL;
	return post_rq(&srq->rq, srq->pd, false, wr, bad_wr);
}

void *roce_srq_context(const struct roce_srq *srq)
{
	return srq->context;
}

int roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr, int attr_mask)
{
	if (!srq || !attr || (attr_mask & ~(ROCE_SRQ_MAX_WR | ROCE_SRQ_LIMIT)) ||
	    (attr_mask & ROCE_SRQ_MAX_WR))
		return -EINVAL; /* no resizing */
	if (attr_mask & ROCE_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq.max_wr)
			return -EINVAL;
		srq->srq_limit = attr->srq_limit; /* > 0 arms, 0 disarms */
	}
	return 0;
}

int roce_query_srq(const struct roce_srq *srq, struct roce_srq_attr *attr)
{
	if (!srq || !attr)
		return -EINVAL;
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->srq_limit;
	return 0;
}
