/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsd_lane.c - droce-nfsd's RDMA lanes (nfsd_lane.h says how they work). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "nfs_aio.h"
#include "nfs_pool.h"
#include "nfsd_lane.h"
#include "rpcrdma_ep.h"
#include "stk_lcore.h"

#define LANE_RING_SIZE (4 * NFSD_CONNS_MAX)

int nfsd_lane_init(struct nfsd_lane *l, unsigned idx, unsigned lcore, struct nfs_fs *fs,
		   const struct nfsd_conf *c, const struct orpc_program *prog, char *err,
		   size_t errlen)
{
	char name[RTE_RING_NAMESIZE];

	memset(l, 0, sizeof(*l));
	l->idx = idx;
	l->lcore = lcore;
	if (nfs3_server_init(&l->nfs, fs, c->max_io) != 0) {
		snprintf(err, errlen, "lane %u: out of memory for its NFS server", idx);
		return -ENOMEM;
	}
	l->nfs_up = true;
	if (c->threads) {
		snprintf(name, sizeof(name), "nfsd-l%u", idx);
		l->pool = nfs_pool_create(name, c->threads, nfs3_pool_work);
		if (!l->pool) {
			snprintf(err, errlen, "lane %u: cannot start %u helper threads: %s", idx,
				 c->threads, strerror(errno));
			return -errno;
		}
		l->nfs.pool = l->pool;
	}
	if (c->uring_depth) {
		l->aio = nfs_aio_create(fs, c->uring_depth);
		if (l->aio)
			l->nfs.aio = l->aio;
		else
			printf("lane %u: io_uring unavailable (%s): READ and WRITE go to the "
			       "helper threads\n",
			       idx, strerror(errno));
	}
	l->svc.ctx = &l->nfs;
	if (orpc_svc_drc_enable_n(&l->svc, c->drc_entries) != 0) {
		snprintf(err, errlen, "lane %u: out of memory for its duplicate request cache",
			 idx);
		return -ENOMEM;
	}
	orpc_svc_add(&l->svc, prog);
	snprintf(name, sizeof(name), "nfsd_in%u", idx);
	l->to_lane = rte_ring_create_elem(name, sizeof(struct nfsd_lane_msg), LANE_RING_SIZE,
					  (int)rte_lcore_to_socket_id(lcore),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "nfsd_out%u", idx);
	l->to_main = rte_ring_create_elem(name, sizeof(struct nfsd_lane_msg), LANE_RING_SIZE,
					  (int)rte_lcore_to_socket_id(lcore),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (!l->to_lane || !l->to_main) {
		snprintf(err, errlen, "lane %u: cannot make its rings: %s", idx,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static int ring_put_msg(struct rte_ring *r, struct nfsd_lane_msg *m)
{
	return rte_ring_sp_enqueue_elem(r, m, sizeof(*m)) == 0 ? 0 : -ENOBUFS;
}

static int ring_put(struct rte_ring *r, enum nfsd_lane_op op, uint32_t k, struct rpcrdma_ep *ep)
{
	struct nfsd_lane_msg m = {.op = op, .k = k, .ep = ep};

	return ring_put_msg(r, &m);
}

int nfsd_lane_send(struct nfsd_lane *l, enum nfsd_lane_op op, uint32_t k, struct rpcrdma_ep *ep)
{
	return ring_put(l->to_lane, op, k, ep);
}

bool nfsd_lane_recv(struct nfsd_lane *l, struct nfsd_lane_msg *m)
{
	return rte_ring_sc_dequeue_elem(l->to_main, m, sizeof(*m)) == 0;
}

/* one message from the main lcore */
static void lane_cmd(struct nfsd_lane *l, const struct nfsd_lane_msg *m)
{
	if (m->op != NFSD_LANE_QUIESCE && m->k >= NFSD_CONNS_MAX)
		return;
	switch ((enum nfsd_lane_op)m->op) {
	case NFSD_LANE_ADOPT:
		l->ep[m->k] = m->ep;
		l->conn[m->k] = NFSD_LC_SERVING;
		if (l->quiesced)
			rpcrdma_ep_quiesce(m->ep);
		break;
	case NFSD_LANE_END:
		if (l->conn[m->k] != NFSD_LC_NONE)
			l->conn[m->k] = NFSD_LC_CLOSING;
		else /* ended before the lane served it: nothing of it is here */
			(void)ring_put(l->to_main, NFSD_LANE_RELEASED, m->k, NULL);
		break;
	case NFSD_LANE_QUIESCE:
		l->quiesced = true;
		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
			if (l->conn[k] == NFSD_LC_SERVING || l->conn[k] == NFSD_LC_FAILED)
				rpcrdma_ep_quiesce(l->ep[k]);
		/* the rings are sized so that this never fails (nfsd_lane.h) */
		(void)ring_put(l->to_main, NFSD_LANE_QUIESCED, 0, NULL);
		break;
	default:
		break;
	}
}

void nfsd_lane_poll(struct stk_lcore *lc, void *arg)
{
	struct nfsd_lane *l = arg;
	struct nfsd_lane_msg m;
	unsigned work = 0;
	bool busy = false;

	stk_lcore_step(lc, "nfsd lane: messages");
	while (rte_ring_sc_dequeue_elem(l->to_lane, &m, sizeof(m)) == 0) {
		lane_cmd(l, &m);
		work++;
	}
	if (l->pool) {
		stk_lcore_step(lc, "nfsd lane: helper replies");
		work += nfs_pool_poll(l->pool, nfs3_pool_done, 64);
	}
	stk_lcore_step(lc, "nfsd lane: rdma connections");
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
		struct rpcrdma_ep_info info;

		switch (l->conn[k]) {
		case NFSD_LC_NONE:
			continue;
		case NFSD_LC_CLOSING:
			/* a deferred call's end comes back here (its helpers, its io_uring): the
			 * endpoint stays until none is left, then goes back to the main lcore,
			 * which destroys it (the control path: the device's counts, the CM) */
			work += (unsigned)rpcrdma_ep_poll(l->ep[k]);
			if (!rpcrdma_ep_deferred(l->ep[k]) &&
			    ring_put(l->to_main, NFSD_LANE_RELEASED, k, NULL) == 0) {
				l->ep[k] = NULL;
				l->conn[k] = NFSD_LC_NONE;
			}
			continue;
		case NFSD_LC_SERVING:
		case NFSD_LC_FAILED:
			work += (unsigned)rpcrdma_ep_poll(l->ep[k]);
			busy |= rpcrdma_ep_busy(l->ep[k]);
			rpcrdma_ep_info(l->ep[k], &info);
			/* an RDMA error or a flush ends the connection: the main lcore disconnects
			 * it (the CM is there) and sends END */
			if (info.failed && l->conn[k] == NFSD_LC_SERVING) {
				struct nfsd_lane_msg f = {.op = NFSD_LANE_FAILED,
							  .k = k,
							  .fail_status = info.fail_status,
							  .fail_wr = info.fail_wr};

				if (ring_put_msg(l->to_main, &f) == 0)
					l->conn[k] = NFSD_LC_FAILED;
			}
			break;
		}
	}
	/* after the endpoints: the READs and WRITEs they started are submitted in this pass */
	if (l->aio) {
		stk_lcore_step(lc, "nfsd lane: io_uring");
		work += nfs_aio_poll(l->aio, nfs3_aio_done, 64);
	}
	{
		uint32_t pooled = l->pool ? nfs_pool_inflight(l->pool) : 0;

		busy |= pooled > 0 || (l->aio && nfs_aio_inflight(l->aio) > 0);
		atomic_store_explicit(&l->pool_inflight, pooled, memory_order_relaxed);
	}
	atomic_store_explicit(&l->busy, busy, memory_order_release);
	/* seq_cst, as the main lcore's exports swap and its reading of quiet_seq: a bump it sees
	 * comes after the swap, so the next call here loads the new table (nfsd_lane.h) */
	if (!busy)
		atomic_fetch_add_explicit(&l->quiet_seq, 1, memory_order_seq_cst);
	/* a call with the helpers: stay awake for its end (the idle back-off) */
	stk_lcore_work(lc, work + busy);
}

void nfsd_lane_stop_io(struct nfsd_lane *l)
{
	nfs_aio_destroy(l->aio, nfs3_aio_done);
	l->aio = l->nfs.aio = NULL;
	nfs_pool_destroy(l->pool, nfs3_pool_done);
	l->pool = l->nfs.pool = NULL;
}

void nfsd_lane_fini(struct nfsd_lane *l)
{
	nfsd_lane_stop_io(l);
	rte_ring_free(l->to_lane);
	rte_ring_free(l->to_main);
	l->to_lane = l->to_main = NULL;
	orpc_svc_drc_disable(&l->svc);
	if (l->nfs_up)
		nfs3_server_fini(&l->nfs);
	l->nfs_up = false;
}
