/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_post.c - starting transmission from a post (issue 12 item 4): where a send WR that
 * roce_post_send() queued meets the requester.
 *
 * Before, a post only queued: the requester ran at the owner's next roce_poll(), so a reply a
 * consumer posted from its hook (a completion callback, the RPC layer's receive handler) left
 * one loop iteration later, behind the next RX burst. Now, on the lcore that owns the device
 * (enum roce_post_mode):
 *   IMMEDIATE (default)  the post runs the QP's requester in the call, up to its burst
 *                        (at most 32 packets per QP between two polls, shared with the poll), and flushes the lcore's TX buffers: the frames
 *                        are on the port when roce_post_send() returns;
 *   DOORBELL             the post rings the device's doorbell: the requester runs once at the
 *                        end of the current stk_lcore_poll() iteration, after every poll hook,
 *                        and the frames leave in that iteration's TX flush;
 *   QUEUE                only queue (the behaviour before), for measuring against.
 * A post made while the device's engines run (received frames, roce_poll()'s walk of the QPs,
 * the CM) rings the doorbell instead of running the requester inside them.
 *
 * What stays as before: the requester itself decides what leaves, so the window, the fence
 * and max_rd_atomic, DCQCN pacing and the RNR wait hold for a post as for the poll, and the
 * burst a QP may send between two polls (32 packets) is shared by the poll and the posts: a
 * consumer posting many WRs in one iteration puts no more on the wire at once than the poll
 * alone did (the cc lab's PFC headroom is sized for that). Two
 * checks keep a post from piling frames where the poll would not send them: a peer's PFC
 * pause of the QP's priority (software PFC would only hold them) and a next hop whose MAC is
 * still being resolved (its pending queue holds a few frames only). Then, and for a post from
 * any thread but the owner's, the WR waits for the owner's next poll, as before: only the
 * owner lcore runs the engines and its TX queue.
 */
#include <errno.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "roce_engine.h"
#include "stk_stack.h"

/* Would the QP's next frame go to the TX buffer now? (see the file comment) */
static bool tx_ready(const struct roce_qp *qp, struct stk_lcore *lc)
{
	const struct roce_dev *dev = qp->pd->dev;
	const struct stk_iface *ifc = stk_iface_get(dev->iface);
	const struct roce_path *path = &qp->attr.ah_attr;
	unsigned prio;

	if (qp->type == ROCE_QPT_UD)
		return true; /* each WR has its own address; datagrams may be lost anyway */
	prio = path->flags & ROCE_PATH_PCP ? path->pcp : ifc->qos.roce_prio;
	if (unlikely(ifc->pfc_mode == STK_PFC_MODE_SW) &&
	    stk_pfc_tx_paused(lc, dev->iface, prio, rte_get_tsc_cycles()))
		return false;
	return stk_ip_ready(lc, ifc, &path->dgid_ip);
}

/* Run the requester of @p qp on its lane's lcore @p lc, outside every engine.
 * @return whether it put a frame in the TX buffer. */
static bool run_requester(struct roce_lane *lane, struct roce_qp *qp, struct stk_lcore *lc)
{
	uint64_t tx0 = qp->cnt[ROCE_QPC_tx_pkts];

	if (qp->state != ROCE_QPS_RTS || qp->fail_pending || !tx_ready(qp, lc)) {
		lane->cnt[ROCE_LNC_post_deferred]++;
		return false;
	}
	lane->in_engine = true;
	roce_qp_ran_on(qp, lc->lcore_id);
	roce_requester_run(qp, lc, rte_get_tsc_cycles());
	lane->in_engine = false;
	if (qp->cnt[ROCE_QPC_tx_pkts] != tx0)
		return true;
	if (qp->req.cur != qp->sq.head)
		lane->cnt[ROCE_LNC_post_deferred]++; /* the window, pacing, or the burst is used */
	return false;
}

/* The doorbell (stk_lcore_defer()): every QP posted to since it was rung, once. */
static void doorbell_run(struct stk_lcore *lc, void *arg)
{
	struct roce_lane *lane = arg;
	struct roce_qp *qp;

	roce_lane_fail_pending(lane); /* a safe point, as at the start of a poll */
	while ((qp = lane->rung) != NULL) {
		lane->rung = qp->next_rung;
		qp->rung = false;
		qp->next_rung = NULL;
		run_requester(lane, qp, lc);
	}
	/* the frames leave in the TX flush that follows in stk_lcore_poll() */
}

static void ring(struct roce_lane *lane, struct roce_qp *qp, struct stk_lcore *lc)
{
	lane->cnt[ROCE_LNC_post_doorbell]++;
	if (!qp->rung) {
		qp->rung = true;
		qp->next_rung = lane->rung;
		lane->rung = qp;
	}
	/* queued once per lcore iteration (stk_lcore_defer() ignores a pair already queued); no
	 * room: the QP stays rung, and the next poll sends anyway */
	stk_lcore_defer(lc, doorbell_run, lane);
}

void roce_post_kick(struct roce_qp *qp)
{
	struct roce_dev *dev = qp->pd->dev;
	struct roce_lane *lane;
	struct stk_lcore *lc;

	if (dev->post_mode == ROCE_POST_QUEUE)
		return;
	/* another thread: the lane's next poll sends it (and nothing here touches the lane's
	 * counters or lists). The loop context is looked up, not kept: an application may
	 * destroy an lcore context and make another for the same lcore. */
	lc = stk_lcore_self();
	lane = roce_qp_lane(qp);
	if (!lc || lc->lcore_id != __atomic_load_n(&lane->lcore, __ATOMIC_ACQUIRE) || !lane->live)
		return;
	if (dev->post_mode == ROCE_POST_DOORBELL || lane->in_engine) {
		ring(lane, qp, lc);
		return;
	}
	if (run_requester(lane, qp, lc)) {
		lane->cnt[ROCE_LNC_post_tx_now]++;
		stk_lcore_flush(lc);
	}
}

void roce_post_forget(struct roce_qp *qp)
{
	struct roce_lane *lane = roce_qp_lane(qp);

	if (!qp->rung)
		return;
	for (struct roce_qp **pp = &lane->rung; *pp; pp = &(*pp)->next_rung) {
		if (*pp == qp) {
			*pp = qp->next_rung;
			break;
		}
	}
	qp->rung = false;
	qp->next_rung = NULL;
}

void roce_post_lane_close(struct roce_lane *lane)
{
	unsigned owner = __atomic_load_n(&lane->lcore, __ATOMIC_ACQUIRE);
	struct stk_lcore *lc = owner < RTE_MAX_LCORE ? stk_lcore_get(owner) : NULL;

	if (lc)
		stk_lcore_defer_cancel(lc, doorbell_run, lane);
	lane->rung = NULL;
}

int roce_dev_set_post_mode(struct roce_dev *dev, enum roce_post_mode mode)
{
	if (!dev || (unsigned)mode >= ROCE_POST_NUM_MODES)
		return -EINVAL;
	dev->post_mode = (uint8_t)mode;
	return 0;
}

enum roce_post_mode roce_dev_post_mode(const struct roce_dev *dev)
{
	return (enum roce_post_mode)dev->post_mode;
}
