/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_lane.h - droce-nfsd's RDMA lanes ([nfs] lcores = N): lcores besides the main one that
 * serve RPC-over-RDMA connections, run to completion, with nothing shared on the fast path.
 *
 * The main lcore is lane 0: it runs the CM, accepts every connection, and serves its own share
 * of them, TCP, MOUNT, NLM and NSM. Each further lane has its own NFSv3 server (scratch and
 * counters), its own RPC server with its own duplicate request cache, its own helper threads
 * and its own io_uring. The backend (nfs_fs: exports, handles, descriptor cache) is shared,
 * as it is with the helper threads.
 *
 * A connection of lane L is made on the main lcore: its QP is created with its home on L's
 * lcore (its CQ is L's), accepted, and its receives posted; once the CM says ESTABLISHED (the
 * QP is at RTS and has moved home) the main lcore hands the endpoint over (ADOPT) and never
 * touches it again but to read its counters. Work crosses lcores through two rte_rings per
 * lane and nothing else:
 *   main -> lane: ADOPT k (serve endpoint k from now on), END k (its CM id is gone: let go of
 *                 the endpoint once no deferred call of it is left), QUIESCE (the drain: no
 *                 endpoint starts a new call)
 *   lane -> main: FAILED k (the endpoint failed: the main lcore disconnects it), RELEASED k
 *                 (the lane has let go: the main lcore destroys the endpoint, as the control
 *                 path it is: roce_destroy_qp asks the lane's roce poll to release the QP,
 *                 then waits out the grace period), QUIESCED (QUIESCE applied)
 * A slot has at most ADOPT, END and one FAILED and one RELEASED outstanding, and QUIESCE is
 * sent once, so rings of 4 x NFSD_CONNS_MAX never fill (a lane lets go of an endpoint only once
 * RELEASED is queued).
 *
 * The lane publishes three words for the main lcore: busy (at the end of each poll: a call with
 * its helpers or io_uring, or an endpoint with a call or a reply not completed), pool_inflight
 * (its calls with its helper threads then, for the drain's messages) and quiet_seq,
 * bumped at the end of every poll that ended with nothing in flight. An export table replaced
 * by SIGHUP is freed only after every lane's quiet_seq has moved since the swap: no call of
 * that lane can still hold the old one.
 */
#ifndef NFSD_LANE_H
#define NFSD_LANE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs3_svc.h"
#include "nfsd_conf.h"
#include "orpc_svc.h"
#include "roce_verbs.h"

struct rte_ring;
struct rpcrdma_ep;
struct stk_lcore;
struct nfs_pool;
struct nfs_aio;

enum nfsd_lane_op {
	NFSD_LANE_ADOPT,
	NFSD_LANE_END,
	NFSD_LANE_QUIESCE,
	NFSD_LANE_FAILED,
	NFSD_LANE_RELEASED,
	NFSD_LANE_QUIESCED,
};

struct nfsd_lane_msg {
	uint32_t op; /**< enum nfsd_lane_op */
	uint32_t k;  /**< the connection slot */
	struct rpcrdma_ep *ep;
	/** FAILED: the completion that failed the endpoint, as rpcrdma_ep_info() gives it
	 * (fail_wr a static string, "" when none did): the main lcore names it in its log */
	enum roce_wc_status fail_status;
	const char *fail_wr;
};

/* a connection slot as the lane sees it */
enum nfsd_lane_conn { NFSD_LC_NONE, NFSD_LC_SERVING, NFSD_LC_FAILED, NFSD_LC_CLOSING };

struct nfsd_lane {
	unsigned idx, lcore;
	struct nfs3_server nfs;
	struct orpc_svc svc;
	struct nfs_pool *pool; /**< NULL: [nfs] threads = 0 */
	struct nfs_aio *aio;   /**< NULL: [nfs] io_uring = 0, or none in the kernel */
	struct rte_ring *to_lane, *to_main;
	bool nfs_up;
	/* the lane's own (only its lcore touches them while it runs) */
	struct rpcrdma_ep *ep[NFSD_CONNS_MAX];
	uint8_t conn[NFSD_CONNS_MAX]; /**< enum nfsd_lane_conn */
	bool quiesced;
	/* published for the main lcore */
	_Atomic bool busy;
	_Atomic uint32_t pool_inflight;
	_Atomic uint64_t quiet_seq;
};

/**
 * Set up lane @p idx (>= 1) on @p lcore: its NFSv3 server over @p fs, its RPC server serving
 * @p prog with a DRC of c->drc_entries, c->threads helper threads, io_uring of
 * c->uring_depth (none when the kernel refuses it: said on stdout), and its rings.
 * @return 0, or -errno with err saying what failed
 */
int nfsd_lane_init(struct nfsd_lane *l, unsigned idx, unsigned lcore, struct nfs_fs *fs,
		   const struct nfsd_conf *c, const struct orpc_program *prog, char *err,
		   size_t errlen);

/** The lane's loop, registered with stk_lcore_add_poll on its lcore after roce_poll. */
void nfsd_lane_poll(struct stk_lcore *lc, void *arg);

/** Main lcore: send a message to the lane. @return 0, or -ENOBUFS (cannot happen: see the
 * ring sizes above) */
int nfsd_lane_send(struct nfsd_lane *l, enum nfsd_lane_op op, uint32_t k, struct rpcrdma_ep *ep);

/** Main lcore: the lane's next message. @return true with *m, false when none */
bool nfsd_lane_recv(struct nfsd_lane *l, struct nfsd_lane_msg *m);

/** The file work still with the lane's helpers and io_uring, once the lanes stopped: wait for
 * it (its calls end, their replies go out or fail), then stop them. Control path. */
void nfsd_lane_stop_io(struct nfsd_lane *l);

/** Free what nfsd_lane_init made (the endpoints are the caller's). Control path. */
void nfsd_lane_fini(struct nfsd_lane *l);

#endif /* NFSD_LANE_H */
