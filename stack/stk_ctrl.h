/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_ctrl.h - messages between lcores. The only way work crosses lcores: a message is
 * allocated from a shared mempool and enqueued on the target lcore's control ring, which
 * that lcore drains in its loop.
 */
#ifndef STK_CTRL_H
#define STK_CTRL_H

#include "stk_lcore.h"

enum stk_ctrl_type {
	STK_CTRL_NEIGH, /**< a neighbour mapping learnt on another lcore */
	STK_CTRL_PFC,	/**< a PFC frame another lcore received: apply it to our TX */
};

struct stk_ctrl_msg {
	enum stk_ctrl_type type;
	uint16_t iface;
	struct stk_ipaddr ip;	   /**< NEIGH */
	struct rte_ether_addr mac; /**< NEIGH */
	struct stk_pfc pfc;	   /**< PFC: the decoded frame */
	uint64_t tsc;		   /**< PFC: when it was received (the TSC is common to lcores) */
};

/** Create the message pool (once, at start-up). @return 0 or -ENOMEM. */
int stk_ctrl_init(unsigned nb_msgs);

/** Free the message pool. */
void stk_ctrl_fini(void);

/** Return a message to the pool. */
void stk_ctrl_msg_free(void *msg);

/** Send a neighbour update to every lcore but @p self. @return the number of lcores told. */
unsigned stk_ctrl_publish_neigh(const struct stk_lcore *self, uint16_t iface,
				const struct stk_ipaddr *ip, const struct rte_ether_addr *mac);

/**
 * Send a received PFC frame to every lcore but @p self, to apply as if received at @p tsc.
 * @return the number of lcores told (a full ring or pool skips an lcore: its TX keeps
 *         flowing until the peer's next PFC frame, which it refreshes while paused).
 */
unsigned stk_ctrl_publish_pfc(const struct stk_lcore *self, uint16_t iface,
			      const struct stk_pfc *pfc, uint64_t tsc);

/** Handle the messages waiting on @p lc's control ring. @return how many. */
unsigned stk_ctrl_poll(struct stk_lcore *lc);

#endif /* STK_CTRL_H */
