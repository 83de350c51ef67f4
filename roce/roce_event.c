/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_event.c - asynchronous events (IBA 10.10.2: affiliated events and errors, and the
 * unaffiliated port and device ones), delivered as libibverbs and the kernel verbs do: a
 * per-device queue read by roce_get_async_event(), or handed to a handler at the end of each
 * roce_poll(). Also the sources the engines do not own: a CQ error's QPs failed at a safe
 * point, and the port's link state read from DPDK.
 *
 * Position: raised from the engines (roce_cq.c, roce_rx.c, roce_responder.c, roce_qp.c) on
 * the lcore that owns the device, or from control-path calls; never delivered from inside an
 * engine, so a handler may destroy what the event names.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "roce_engine.h"
#include "stk_stack.h"

#define LINK_CHECK_MS 100 /* how often the port's link is read */

/* The event types as data: the element each names decides the union member filled and the
 * context carried (STYLE section 3). */
#define ROCE_EVENT_ROW_(n, v, e, r) [v] = {#n, ROCE_ELEM_##e, r},
static const struct {
	const char *name;
	enum roce_event_elem elem;
	bool raised; /**< droce raises it (telemetry lists those) */
} ev_tab[ROCE_EVENT_NUM] = {ROCE_EVENT_LIST(ROCE_EVENT_ROW_)};
#undef ROCE_EVENT_ROW_

const char *roce_event_type_str(enum roce_event_type t)
{
	return (unsigned)t < ROCE_EVENT_NUM && ev_tab[t].name ? ev_tab[t].name : "?";
}

enum roce_event_elem roce_event_type_elem(enum roce_event_type t)
{
	return (unsigned)t < ROCE_EVENT_NUM ? ev_tab[t].elem : ROCE_ELEM_DEV;
}

/** @return whether droce raises events of type @p t (for telemetry). */
bool roce_event_type_raised(enum roce_event_type t)
{
	return (unsigned)t < ROCE_EVENT_NUM && ev_tab[t].raised;
}

/* The lane whose queue takes an event of kind @p elem on @p obj: its object's lane; port and
 * device events go to the primary lane (it reads the link). */
static struct roce_lane *ev_lane(struct roce_dev *dev, enum roce_event_elem elem, void *obj)
{
	uint8_t i = 0;

	switch (elem) {
	case ROCE_ELEM_CQ:
		i = ((struct roce_cq *)obj)->lane;
		break;
	case ROCE_ELEM_QP:
		return roce_qp_lane(obj);
	case ROCE_ELEM_SRQ:
		i = ((struct roce_srq *)obj)->lane;
		break;
	default:
		break;
	}
	return &dev->lane[i == ROCE_LANE_NONE ? 0 : i];
}

void roce_event_raise(struct roce_dev *dev, enum roce_event_type t, void *obj)
{
	struct roce_lane *lane = ev_lane(dev, ev_tab[t].elem, obj);
	struct roce_async_event *ev;

	lane->async_raised[t]++;
	if (lane->ev_head - lane->ev_tail >= ROCE_ASYNC_QLEN) {
		lane->cnt[ROCE_LNC_async_dropped]++; /* the oldest are kept: they are the causes */
		return;
	}
	ev = &lane->ev[lane->ev_head++ % ROCE_ASYNC_QLEN];
	memset(ev, 0, sizeof(*ev));
	ev->event_type = t;
	switch (ev_tab[t].elem) {
	case ROCE_ELEM_CQ:
		ev->element.cq = obj;
		ev->context = ev->element.cq->context;
		break;
	case ROCE_ELEM_QP:
		ev->element.qp = obj;
		ev->context = ev->element.qp->init.qp_context;
		break;
	case ROCE_ELEM_SRQ:
		ev->element.srq = obj;
		ev->context = ev->element.srq->context;
		break;
	case ROCE_ELEM_PORT:
		ev->element.port_num = 1;
		break;
	case ROCE_ELEM_DEV:
		break;
	}
}

/* The object an event names, whatever its kind (NULL for port and device events). */
static const void *ev_obj(const struct roce_async_event *ev)
{
	switch (ev_tab[ev->event_type].elem) {
	case ROCE_ELEM_CQ:
		return ev->element.cq;
	case ROCE_ELEM_QP:
		return ev->element.qp;
	case ROCE_ELEM_SRQ:
		return ev->element.srq;
	default:
		return NULL;
	}
}

void roce_event_purge(struct roce_dev *dev, const void *obj)
{
	for (unsigned l = 0; l < dev->nlanes; l++) {
		struct roce_lane *lane = &dev->lane[l];
		uint32_t keep = lane->ev_tail;

		/* compact in place, oldest first: the order of the others stays */
		for (uint32_t i = lane->ev_tail; i != lane->ev_head; i++) {
			const struct roce_async_event *ev = &lane->ev[i % ROCE_ASYNC_QLEN];

			if (ev_obj(ev) == obj) {
				lane->cnt[ROCE_LNC_async_purged]++;
				continue;
			}
			if (keep != i)
				lane->ev[keep % ROCE_ASYNC_QLEN] = *ev;
			keep++;
		}
		lane->ev_head = keep;
	}
}

static int lane_get_event(struct roce_lane *lane, struct roce_async_event *ev)
{
	if (lane->ev_tail == lane->ev_head)
		return -EAGAIN;
	*ev = lane->ev[lane->ev_tail++ % ROCE_ASYNC_QLEN];
	return 0;
}

int roce_get_async_event(struct roce_dev *dev, struct roce_async_event *ev)
{
	struct roce_lane *lane;

	if (!dev || !ev)
		return -EINVAL;
	/* the calling lcore's lane; a thread that runs none reads the primary's */
	lane = roce_lane_of(dev, rte_lcore_id());
	return lane_get_event(lane ? lane : &dev->lane[0], ev);
}

int roce_set_async_handler(struct roce_dev *dev, roce_async_fn fn, void *arg)
{
	if (!dev)
		return -EINVAL;
	dev->ev_fn = fn;
	dev->ev_arg = arg;
	return 0;
}

void roce_event_dispatch(struct roce_lane *lane)
{
	struct roce_dev *dev = lane->dev;
	struct roce_async_event ev;

	/* one at a time: the handler may raise more (they are delivered in this loop too) or
	 * destroy an object whose later events the purge then removes */
	while (dev->ev_fn && lane_get_event(lane, &ev) == 0)
		dev->ev_fn(&ev, dev->ev_arg);
}

/* Move @qp to ERR because its CQ or its device failed; with @event, raise QP_FATAL first. */
static void qp_fail(struct roce_qp *qp, bool event)
{
	struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

	qp->fail_pending = false;
	if (qp->state == ROCE_QPS_ERR)
		return;
	if (event)
		roce_event_raise(qp->pd->dev, ROCE_EVENT_QP_FATAL, qp);
	roce_modify_qp(qp, &a, ROCE_QP_STATE); /* flushes; LAST_WQE_REACHED with an SRQ */
}

void roce_lane_fail_qps(struct roce_lane *lane)
{
	struct roce_dev *dev = lane->dev;

	lane->fail_pending = false;
	for (uint32_t i = 0; i <= ROCE_MAX_QP; i++) {
		struct roce_qp *qp = i < ROCE_MAX_QP ? dev->qps[i] : dev->gsi;

		if (qp && qp->fail_pending && roce_qp_lane(qp) == lane)
			qp_fail(qp, true);
	}
}

void roce_dev_link_check(struct roce_dev *dev, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(dev->iface);
	struct rte_eth_link link;
	int rc;

	dev->link_next = now + rte_get_tsc_hz() / 1000 * LINK_CHECK_MS;
	memset(&link, 0, sizeof(link));
	rc = rte_eth_dev_is_valid_port(ifc->port_id) ? rte_eth_link_get_nowait(ifc->port_id, &link)
						     : -ENODEV;
	if (rc == -ENODEV) {
		/* the port was detached (hot unplug): a local catastrophic error. Every QP fails;
		 * the consumer closes the device (ibv's DEVICE_FATAL contract). */
		dev->link_next = UINT64_MAX; /* raised once */
		roce_event_raise(dev, ROCE_EVENT_DEVICE_FATAL, NULL);
		for (uint32_t i = 0; i <= ROCE_MAX_QP; i++) {
			struct roce_qp *qp = i < ROCE_MAX_QP ? dev->qps[i] : dev->gsi;

			if (qp && qp->state != ROCE_QPS_RESET)
				qp_fail(qp, false);
		}
		return;
	}
	if (rc != 0) {
		dev->link_next = UINT64_MAX; /* the PMD cannot tell: no port events */
		return;
	}
	/* the first reading is the state the consumer found at open: no event for it */
	if (dev->link_up >= 0 && link.link_status != (unsigned)dev->link_up)
		roce_event_raise(
			dev, link.link_status ? ROCE_EVENT_PORT_ACTIVE : ROCE_EVENT_PORT_ERR, NULL);
	dev->link_up = (int8_t)link.link_status;
}
