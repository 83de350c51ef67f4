/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_lane.c - one device, several lcores (issue 12 item 7).
 *
 * A device's lanes are the lcores that run it (roce_dev_set_lcores()); lane 0, the primary,
 * runs the CM, QP1 and the link. Each QP belongs to one lane at a time, and only that lane's
 * lcore touches it: its engines run in that lane's poll, its frames are processed there, its
 * completions go to CQs of that lane. A QP starts on the primary lane, where the CM (or the
 * consumer) brings it up, and moves to its home lane when it reaches RTS (roce_lane_go_home()):
 * the home is named at creation (roce_qp_init_attr.on_lcore) or chosen by the device's
 * placement (primary, round-robin, least-loaded).
 *
 * Work crosses lanes only through rte_rings, never a lock:
 *   - frames: a lane decodes and checks a frame once (roce_rx()), finds the QP, and hands the
 *     frame with its parse results to the QP's lane (struct roce_handoff);
 *   - QP commands (roce_lane_cmd()): JOIN links a QP into a live lane's polled list, FAIL
 *     moves it to ERR (the CM's disconnect), RELEASE makes its lane let it go before another
 *     lcore destroys it.
 * A QP is freed only after every live lane has passed a poll since it was taken out of the
 * QPN table (roce_destroy_qp()'s grace period), so no lane can hold a pointer to it.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "roce_engine.h"
#include "stk_stack.h"

/* a command: type (3 bits) | the QP's generation (16 bits) | QPN (13 bits: QPNs < 8192), so
 * a command for a destroyed QP never acts on a new one that took its number */
#define CMD_QPN_BITS 13
#define CMD_QPN_MASK ((1u << CMD_QPN_BITS) - 1)
#define CMD_GEN_SHIFT CMD_QPN_BITS
#define CMD_SHIFT 29

extern int roce_logtype;

bool roce_lane_here(const struct roce_lane *lane)
{
	unsigned lc = lane->lcore;

	/* a device on one lane keeps the rules it had before lanes: the control path may use
	 * its objects from any thread (it knows when the lcore is quiet) */
	if (lane->dev->nlanes == 1)
		return true;
	if (!__atomic_load_n(&lane->live, __ATOMIC_ACQUIRE) || lc == rte_lcore_id())
		return true;
	/* a worker lcore whose function returned runs nothing any more (the control thread
	 * tears down after rte_eal_mp_wait_lcore()); the main lcore is taken to run while live */
	return lc != rte_get_main_lcore() && rte_eal_get_lcore_state(lc) != RUNNING;
}

#ifdef ROCE_DEBUG
bool roce_wrong_lcore_panics = true;
#else
bool roce_wrong_lcore_panics;
#endif

bool roce_dev_others_run(struct roce_dev *dev)
{
	for (unsigned i = 0; i < dev->nlanes; i++)
		if (!roce_lane_here(&dev->lane[i]))
			return true;
	return false;
}

bool roce_lane_mine_check(struct roce_lane *lane)
{
	if (likely(roce_lane_here(lane)))
		return true;
	/* a thread running no lane of the device counts on the primary: a rare error count */
	__atomic_fetch_add(&lane->cnt[ROCE_LNC_wrong_lcore], 1, __ATOMIC_RELAXED);
	if (roce_wrong_lcore_panics)
		rte_panic("roce: lcore %u used an object of lane %u (lcore %u)\n", rte_lcore_id(),
			  lane->idx, lane->lcore);
	return false;
}

int roce_lane_init(struct roce_dev *dev, unsigned i)
{
	struct roce_lane *lane = &dev->lane[i];
	char rn[RTE_RING_NAMESIZE];

	lane->dev = dev;
	lane->idx = (uint8_t)i;
	if (!lane->ring) {
		snprintf(rn, sizeof(rn), "roce_rx_%u_%u_%d", dev->iface, i, (int)getpid());
		lane->ring = rte_ring_create_elem(rn, sizeof(struct roce_handoff), ROCE_LANE_RING,
						  SOCKET_ID_ANY, RING_F_SC_DEQ);
	}
	if (!lane->cmd) {
		snprintf(rn, sizeof(rn), "roce_cmd_%u_%u_%d", dev->iface, i, (int)getpid());
		lane->cmd = rte_ring_create_elem(rn, sizeof(uint32_t), ROCE_LANE_CMDS,
						 SOCKET_ID_ANY, RING_F_SC_DEQ);
	}
	return lane->ring && lane->cmd ? 0 : -ENOMEM;
}

void roce_lane_fini(struct roce_dev *dev, unsigned i)
{
	struct roce_lane *lane = &dev->lane[i];
	struct roce_handoff h;

	if (lane->ring) {
		while (rte_ring_dequeue_elem(lane->ring, &h, sizeof(h)) == 0)
			rte_pktmbuf_free(h.m);
		rte_ring_free(lane->ring);
		lane->ring = NULL;
	}
	rte_ring_free(lane->cmd);
	lane->cmd = NULL;
}

int roce_dev_set_lcores(struct roce_dev *dev, const unsigned *lcores, unsigned n)
{
	if (!dev || !lcores || n == 0 || n > ROCE_MAX_LANES)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (lcores[i] >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcores[i]))
			return -EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (lcores[j] == lcores[i])
				return -EINVAL;
	}
	for (unsigned i = 0; i < dev->nlanes; i++)
		if (dev->lane[i].live)
			return -EBUSY;
	if (dev->n.qps)
		return -EBUSY;
	for (unsigned i = 0; i < n; i++)
		if (roce_lane_init(dev, i) != 0)
			return -ENOMEM;
	for (unsigned i = n; i < dev->nlanes; i++)
		roce_lane_fini(dev, i);
	memset(dev->lane_of, ROCE_LANE_NONE, sizeof(dev->lane_of));
	for (unsigned i = 0; i < n; i++) {
		dev->lane[i].lcore = lcores[i];
		dev->lane_of[lcores[i]] = (uint8_t)i;
	}
	dev->nlanes = (uint8_t)n;
	dev->rr_next = 0;
	return 0;
}

int roce_dev_release_lcores(struct roce_dev *dev)
{
	if (!dev)
		return -EINVAL;
	/* QPs name their lane; so do CQs and SRQs once a QP of a lane past the first used them
	 * (they would point at a lane that is gone) */
	if (dev->n.qps || (dev->nlanes > 1 && (dev->n.cqs || dev->n.srqs)))
		return -EBUSY;
	for (unsigned i = 0; i < dev->nlanes; i++) {
		struct roce_lane *lane = &dev->lane[i];

		/* not live first: a late roce_lane_enter() then claims a lane that is not live */
		__atomic_store_n(&lane->live, false, __ATOMIC_RELEASE);
		roce_post_lane_close(lane);
		lane->in_engine = false;
		lane->fail_pending = false;
		lane->last_poll_tsc = 0;
		__atomic_store_n(&lane->lcore, RTE_MAX_LCORE, __ATOMIC_RELEASE);
		if (i > 0)
			roce_lane_fini(dev, i);
	}
	memset(dev->lane_of, ROCE_LANE_NONE, sizeof(dev->lane_of));
	dev->nlanes = 1;
	dev->rr_next = 0;
	return 0;
}

int roce_dev_set_placement(struct roce_dev *dev, enum roce_place policy)
{
	if (!dev || (unsigned)policy >= ROCE_PLACE_NUM)
		return -EINVAL;
	dev->place = (uint8_t)policy;
	return 0;
}

unsigned roce_dev_pick_lcore(struct roce_dev *dev)
{
	struct roce_qp_init_attr ia = {.qp_type = ROCE_QPT_RC};

	return dev->lane[roce_lane_place(dev, &ia)].lcore;
}

unsigned roce_qp_lcore(const struct roce_qp *qp)
{
	return qp->pd->dev->lane[qp->home].lcore;
}

int roce_lane_place(struct roce_dev *dev, const struct roce_qp_init_attr *init)
{
	unsigned best = 0;

	if (init->qp_type == ROCE_QPT_GSI)
		return 0; /* the CM's */
	if (init->on_lcore) {
		struct roce_lane *lane = roce_lane_of(dev, init->lcore);

		if (lane)
			return lane->idx;
		/* a one-lane device not yet claimed: its lane will be whoever polls */
		if (dev->nlanes == 1 && dev->lane[0].lcore == RTE_MAX_LCORE)
			return 0;
		return -EINVAL;
	}
	switch ((enum roce_place)dev->place) {
	case ROCE_PLACE_ROUND_ROBIN:
		best = dev->rr_next;
		dev->rr_next = (uint8_t)((dev->rr_next + 1) % dev->nlanes);
		break;
	case ROCE_PLACE_LEAST_LOADED:
		for (unsigned i = 1; i < dev->nlanes; i++)
			if (dev->lane[i].nqps < dev->lane[best].nqps)
				best = i;
		break;
	default:
		break;
	}
	return (int)best;
}

/* Link @qp into @lane's polled list: on the lane's lcore, or while the lane is not live. */
static void link_here(struct roce_lane *lane, struct roce_qp *qp)
{
	if (qp->polled)
		return;
	qp->polled = true;
	qp->next_polled = lane->polled;
	lane->polled = qp;
}

void roce_lane_link(struct roce_qp *qp)
{
	struct roce_lane *lane = roce_qp_lane(qp);

	if (roce_lane_here(lane))
		link_here(lane, qp);
	else
		roce_lane_cmd(qp, ROCE_LANE_CMD_JOIN); /* full: counted; the QP is not run */
}

void roce_lane_unlink(struct roce_qp *qp)
{
	struct roce_lane *lane = roce_qp_lane(qp);

	if (!qp->polled)
		return;
	for (struct roce_qp **pp = &lane->polled; *pp; pp = &(*pp)->next_polled) {
		if (*pp == qp) {
			*pp = qp->next_polled;
			break;
		}
	}
	qp->polled = false;
	qp->next_polled = NULL;
}

static int lane_cmd_to(struct roce_lane *lane, struct roce_qp *qp, enum roce_lane_cmd_type t);

/* Move @qp from the lane that runs it to its home: it stops running it, then the pointer
 * moves (frames the old lane still holds for it are forwarded), then the home links it - at
 * once while that lane is not running, else through its command ring. @return false when the
 * home's command ring has no room (the QP stays, and is moved later). */
static bool move_home(struct roce_qp *qp)
{
	struct roce_dev *dev = qp->pd->dev;
	struct roce_lane *home = &dev->lane[qp->home];
	struct roce_lane *mine = roce_lane_of(dev, rte_lcore_id());
	/* linked here only while no lane runs the home and the caller runs none (set-up);
	 * else the home links it itself, from its command ring */
	bool direct = !__atomic_load_n(&home->live, __ATOMIC_ACQUIRE) &&
		      !(mine && __atomic_load_n(&mine->live, __ATOMIC_ACQUIRE));

	roce_lane_unlink(qp);
	roce_post_forget(qp);
	if (direct) {
		__atomic_store_n(&qp->lane, home, __ATOMIC_RELEASE);
		link_here(home, qp);
		home->cnt[ROCE_LNC_qp_joined]++;
		return true;
	}
	/* the JOIN is queued before the QP is handed over: when the ring is full nothing has
	 * moved yet (the QP stays, relinked, and is moved at a later poll); a JOIN the home
	 * takes before the pointer moved waits for it (joining) */
	qp->joining = true;
	if (lane_cmd_to(home, qp, ROCE_LANE_CMD_JOIN) != 0) {
		qp->joining = false;
		link_here(roce_qp_lane(qp), qp);
		return false;
	}
	__atomic_store_n(&qp->lane, home, __ATOMIC_RELEASE);
	return true;
}

void roce_lane_go_home(struct roce_qp *qp)
{
	struct roce_lane *from = roce_qp_lane(qp);

	if (from == &qp->pd->dev->lane[qp->home] || qp->move_pending)
		return;
	/* on the running lane's lcore (the CM's modify, a consumer's call): moved at the end of
	 * that lane's poll, once the CM and the caller are done with the QP; during set-up before
	 * the lanes run, now */
	if (__atomic_load_n(&from->live, __ATOMIC_ACQUIRE) && from->lcore == rte_lcore_id()) {
		qp->move_pending = true;
		qp->next_moving = from->moving;
		from->moving = qp;
		return;
	}
	move_home(qp);
}

void roce_lane_run_moves(struct roce_lane *lane)
{
	struct roce_qp *qp = lane->moving, *stay = NULL;

	lane->moving = NULL;
	while (qp) {
		struct roce_qp *next = qp->next_moving;

		if (roce_qp_lane(qp) == lane && !move_home(qp)) {
			qp->next_moving = stay; /* no room in its home's ring: the next poll */
			stay = qp;
		} else {
			qp->move_pending = false;
			qp->next_moving = NULL;
		}
		qp = next;
	}
	lane->moving = stay;
}

void roce_lane_forget_move(struct roce_qp *qp)
{
	struct roce_lane *lane = roce_qp_lane(qp);

	if (!qp->move_pending)
		return;
	for (struct roce_qp **pp = &lane->moving; *pp; pp = &(*pp)->next_moving) {
		if (*pp == qp) {
			*pp = qp->next_moving;
			break;
		}
	}
	qp->move_pending = false;
	qp->next_moving = NULL;
}

static int lane_cmd_to(struct roce_lane *lane, struct roce_qp *qp, enum roce_lane_cmd_type t)
{
	uint32_t c = ((uint32_t)t << CMD_SHIFT) | ((uint32_t)qp->gen << CMD_GEN_SHIFT) | qp->qpn;

	if (rte_ring_mp_enqueue_elem(lane->cmd, &c, sizeof(c)) != 0) {
		__atomic_fetch_add(&lane->cnt[ROCE_LNC_cmd_full], 1, __ATOMIC_RELAXED);
		rte_log(RTE_LOG_ERR, roce_logtype, "roce: QP %u: lane %u's command ring is full\n",
			qp->qpn, lane->idx);
		return -ENOBUFS;
	}
	return 0;
}

int roce_lane_cmd(struct roce_qp *qp, enum roce_lane_cmd_type t)
{
	return lane_cmd_to(roce_qp_lane(qp), qp, t);
}

/* RELEASE: this lane stops running @qp so another lcore may destroy it. */
static void release(struct roce_lane *lane, struct roce_qp *qp)
{
	struct roce_dev *dev = lane->dev;

	roce_lane_unlink(qp);
	roce_post_forget(qp);
	roce_lane_forget_move(qp);
	roce_event_purge(dev, qp); /* this lane's queue: the destroyer cannot reach it */
	__atomic_store_n(&qp->released, true, __ATOMIC_RELEASE);
}

void roce_lane_run_cmds(struct roce_lane *lane)
{
	uint32_t c[32];
	unsigned n = rte_ring_sc_dequeue_burst_elem(lane->cmd, c, sizeof(c[0]), RTE_DIM(c), NULL);

	for (unsigned i = 0; i < n; i++) {
		struct roce_qp *qp = roce_qp_by_num(lane->dev, c[i] & CMD_QPN_MASK);
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		if (!qp || qp->gen != (uint16_t)(c[i] >> CMD_GEN_SHIFT))
			continue; /* destroyed (its number taken again) */
		if ((enum roce_lane_cmd_type)(c[i] >> CMD_SHIFT) == ROCE_LANE_CMD_JOIN &&
		    __atomic_load_n(&qp->joining, __ATOMIC_ACQUIRE) && roce_qp_lane(qp) != lane) {
			/* its old lane is about to hand it over: take it at the next poll */
			lane_cmd_to(lane, qp, ROCE_LANE_CMD_JOIN);
			continue;
		}
		if (roce_qp_lane(qp) != lane || qp->released)
			continue; /* moved on since */
		switch ((enum roce_lane_cmd_type)(c[i] >> CMD_SHIFT)) {
		case ROCE_LANE_CMD_JOIN:
			qp->joining = false;
			if (qp->state >= ROCE_QPS_RTR && !qp->polled) {
				link_here(lane, qp);
				lane->cnt[ROCE_LNC_qp_joined]++;
			}
			break;
		case ROCE_LANE_CMD_FAIL:
			if (qp->state != ROCE_QPS_RESET && qp->state != ROCE_QPS_ERR)
				roce_modify_qp(qp, &a, ROCE_QP_STATE);
			break;
		case ROCE_LANE_CMD_RELEASE:
			release(lane, qp);
			break;
		}
	}
}

struct roce_lane *roce_lane_enter(struct roce_dev *dev, unsigned lcore)
{
	struct roce_lane *lane = roce_lane_of(dev, lcore);

	if (likely(lane)) {
		if (unlikely(!lane->live))
			__atomic_store_n(&lane->live, true, __ATOMIC_RELEASE);
		return lane;
	}
	/* one lane not named by roce_dev_set_lcores(): the first lcore to poll claims it */
	if (dev->nlanes == 1 && lcore < RTE_MAX_LCORE) {
		unsigned none = RTE_MAX_LCORE;

		lane = &dev->lane[0];
		if (!__atomic_compare_exchange_n(&lane->lcore, &none, lcore, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return NULL; /* another lcore polls it */
		dev->lane_of[lcore] = 0;
		__atomic_store_n(&lane->live, true, __ATOMIC_RELEASE);
		return lane;
	}
	return NULL;
}
