/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_pair.h - two droce devices back to back in one process: two interfaces on crossed
 * net_ring ports (10.N.0.1 and 10.N.0.2), one lcore context polling both, a RoCE device, its
 * CM and a PD on each. What tests/rpc/test_rpcrdma_ep.c and bench/rpc-bench.c stand on.
 */
#ifndef RING_PAIR_H
#define RING_PAIR_H

#include <stdint.h>

#include "roce_cm.h"
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_pkt.h"

struct ring_pair {
	struct rte_mempool *pool;
	struct stk_lcore *lc;
	struct stk_ipaddr ip[2];
	struct roce_dev *dev[2];
	struct roce_cm *cm[2];
	struct roce_pd *pd[2];
};

/**
 * Bring the pair up on the EAL already initialised (no hugepages needed).
 * @param tag   names the pool, rings and ports (a few letters)
 * @param net   the second octet of the addresses: 10.net.0.1 / 10.net.0.2
 * @param mtu   the interfaces' MTU
 * @return 0, or -1 with a message on stderr
 */
int ring_pair_up(struct ring_pair *rp, const char *tag, uint8_t net, uint16_t mtu);

/** Poll the lcore context n times. */
void ring_pair_poll(struct ring_pair *rp, unsigned n);

/** Close the CMs, PDs and devices; the lcore context last. */
void ring_pair_down(struct ring_pair *rp);

#endif /* RING_PAIR_H */
