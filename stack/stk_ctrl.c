/* SPDX-License-Identifier: BSD-3-Clause */
/* stk_ctrl.c - inter-lcore control messages (see stk_ctrl.h). */
#include <errno.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "stk_arp.h"
#include "stk_ctrl.h"
#include "stk_pfc_port.h"
#include "stk_stack.h"

static struct rte_mempool *ctrl_pool;

int stk_ctrl_init(unsigned nb_msgs)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	if (ctrl_pool)
		return 0;
	snprintf(name, sizeof(name), "stk_ctrl_%d", (int)getpid());
	ctrl_pool = rte_mempool_create(name, nb_msgs, sizeof(struct stk_ctrl_msg), 0, 0, NULL, NULL,
				       NULL, NULL, SOCKET_ID_ANY, 0);
	return ctrl_pool ? 0 : -ENOMEM;
}

void stk_ctrl_fini(void)
{
	rte_mempool_free(ctrl_pool);
	ctrl_pool = NULL;
}

void stk_ctrl_msg_free(void *msg)
{
	rte_mempool_put(ctrl_pool, msg);
}

/* A copy of @tmpl to every other lcore (only those with PFC state on its interface when
 * @pfc_only); @return how many were told. A lcore whose ring is full misses it; an empty pool
 * ends the round: the next event (ARP/NA, PFC frame or its refresh) tells them again. */
static unsigned publish(const struct stk_lcore *self, const struct stk_ctrl_msg *tmpl,
			bool pfc_only)
{
	unsigned told = 0, id;

	if (!ctrl_pool)
		return 0;
	RTE_LCORE_FOREACH (id) {
		struct stk_lcore *lc = stk_lcore_get(id);
		struct stk_ctrl_msg *msg;

		if (!lc || lc == self || (pfc_only && !lc->pfc[tmpl->iface]))
			continue;
		if (rte_mempool_get(ctrl_pool, (void **)&msg) != 0)
			break;
		*msg = *tmpl;
		if (rte_ring_mp_enqueue(lc->ctrl, msg) != 0) {
			rte_mempool_put(ctrl_pool, msg);
			continue;
		}
		told++;
	}
	return told;
}

unsigned stk_ctrl_publish_neigh(const struct stk_lcore *self, uint16_t iface,
				const struct stk_ipaddr *ip, const struct rte_ether_addr *mac)
{
	struct stk_ctrl_msg m = {.type = STK_CTRL_NEIGH, .iface = iface, .ip = *ip, .mac = *mac};

	return publish(self, &m, false);
}

unsigned stk_ctrl_publish_pfc(const struct stk_lcore *self, uint16_t iface,
			      const struct stk_pfc *pfc, uint64_t tsc)
{
	struct stk_ctrl_msg m = {.type = STK_CTRL_PFC, .iface = iface, .pfc = *pfc, .tsc = tsc};

	return publish(self, &m, true);
}

unsigned stk_ctrl_poll(struct stk_lcore *lc)
{
	void *msgs[16];
	unsigned n = rte_ring_sc_dequeue_burst(lc->ctrl, msgs, RTE_DIM(msgs), NULL);

	for (unsigned i = 0; i < n; i++) {
		struct stk_ctrl_msg *msg = msgs[i];

		if (msg->type == STK_CTRL_NEIGH && msg->iface < stk_iface_count()) {
			const struct stk_iface *ifc = stk_iface_get(msg->iface);

			lc->stats[ifc->idx].c[STK_CNT_ctrl_msgs]++;
			/* only refresh: an lcore that never talked to it needs no entry, but one
			 * waiting on it gets its queued frames out */
			stk_neigh_update(lc->neigh, msg->iface, &msg->ip, &msg->mac,
					 rte_get_tsc_cycles(), false, stk_neigh_flush_cb, lc);
		} else if (msg->type == STK_CTRL_PFC && msg->iface < stk_iface_count()) {
			lc->stats[msg->iface].c[STK_CNT_ctrl_msgs]++;
			stk_pfc_rx_apply(lc, stk_iface_get(msg->iface), &msg->pfc, msg->tsc);
		}
		rte_mempool_put(ctrl_pool, msg);
	}
	return n;
}
