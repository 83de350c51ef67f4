/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_metrics.h - droce-nfsd's counters as Prometheus metrics (names droce_nfsd_*, listed
 * in docs/observability.md): NFSv3 calls and latency histograms per procedure, bytes, NFS
 * statuses, NFSv4.1/4.2 compounds and operations (counts, latency histograms, statuses, bytes,
 * clients and sessions, delegations), RPC outcomes, the duplicate request cache, RDMA and TCP connections, the helper
 * threads, NLM/NSM and the lock manager, the backend's refusals, the process' start time.
 *
 * droce-nfsd fills a struct nfsd_metrics_src with pointers to what it owns and calls
 * nfsd_metrics_write from its /metrics callback (app_metrics.h), on the lcore that owns the
 * counters. A pointer left NULL leaves its metrics out.
 */
#ifndef NFSD_METRICS_H
#define NFSD_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "app_prom.h"
#include "nfs3_svc.h"
#include "nfs4_svc.h"
#include "nfs_aio.h"
#include "nfs_pool.h"
#include "nlm_svc.h"
#include "orpc_bc.h"
#include "orpc_tcp.h"

/** the TCP/UDP and the RDMA NFSv3 servers, and the RDMA servers of up to 7 more lanes
 * ([nfs] lcores: nfsd_lane.h); servers of one name are summed under it */
#define NFSD_METRICS_NSERVERS 9

struct nfsd_metrics_src {
	const struct nfs3_server *nfs[NFSD_METRICS_NSERVERS]; /**< summed; NULL: none */
	const struct orpc_svc *svc[NFSD_METRICS_NSERVERS];    /**< their RPC servers */
	const char *svc_name[NFSD_METRICS_NSERVERS];	      /**< label: "tcp", "rdma" */
	/** per lane (0: the main lcore): its lcore and its RDMA connections accepted; nlanes 0
	 * leaves the lane metrics out */
	uint32_t nlanes;
	uint32_t lane_lcore[NFSD_METRICS_NSERVERS - 1];
	uint64_t lane_accepted[NFSD_METRICS_NSERVERS - 1];
	const struct nfs3_server *lane_nfs[NFSD_METRICS_NSERVERS - 1];
	const struct orpc_svc *lock_svc;     /**< NLM and NSM's */
	const struct orpc_tcp_srv *tcp;	     /**< NFS, MOUNT, portmapper */
	const struct orpc_tcp_srv *lock_tcp; /**< NLM and NSM */
	const struct orpc_bc_table *bc;	     /**< the connections' backchannels; NULL: none */
	const struct nlm_server *nlm;	     /**< NULL: not up */
	/** per lane (0: the main lcore's): its helper threads' pool (NULL: none) and its io_uring
	 * (NULL: none); the gauges and counters are their sums */
	const struct nfs_pool *pool[NFSD_METRICS_NSERVERS - 1];
	const struct nfs_aio *aio[NFSD_METRICS_NSERVERS - 1];
	uint32_t threads; /**< helper threads of each pool ([nfs] threads) */
	const struct nfs_fs *fs;
	struct nfs4_server *v4; /**< NULL: NFSv4 not served (no nfs4_* metrics) */
	bool rdma;		/**< RDMA served: the rdma_* metrics below mean something */
	uint64_t rdma_accepted, rdma_rejected, rdma_closed;
	uint64_t rdma_regions_allocated, rdma_regions_reused; /**< connections' staging regions */
	double start_time; /**< the process' start, Unix seconds (nfsd_metrics_start_time) */
};

/** The process' start time in Unix seconds, from /proc (its start after boot, and boot's
 * time), or now when /proc does not say. */
double nfsd_metrics_start_time(void);

/** The NFSv3 servers' counters summed into @p t. */
void nfsd_metrics_nfs_total(const struct nfsd_metrics_src *src, struct nfs3_stats *t);
/** The RPC servers' calls and outcomes (without the lock server's), and their DRCs, summed. */
void nfsd_metrics_rpc_total(const struct nfsd_metrics_src *src, struct orpc_svc_stats *sv,
			    struct orpc_drc_stats *drc);

/** What the lanes' helper threads and io_uring hold and did, summed. */
struct nfsd_metrics_io {
	uint32_t helper_queue; /**< calls with the helper threads now */
	uint32_t helper_threads;
	bool aio;	       /**< some lane has io_uring (the io_uring figures mean something) */
	uint32_t aio_inflight; /**< READs and WRITEs in io_uring now */
	struct nfs_aio_stats aio_st;
};

/** The lanes' pools and io_urings of @p src summed into @p t. */
void nfsd_metrics_io_total(const struct nfsd_metrics_src *src, struct nfsd_metrics_io *t);

/** Write every metric of @p src into @p b (Prometheus text format 0.0.4). */
void nfsd_metrics_write(struct app_buf *b, const struct nfsd_metrics_src *src);

#endif /* NFSD_METRICS_H */
