/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_server.h - droce-nfsd's state (struct nfsd_server, one: nfsd), shared by its main file
 * (droce-nfsd.c: start, connections, the loop, signals, --check) and its reporting
 * (nfsd_report.c: who is connected, the final counters, rte_telemetry and /metrics).
 */
#ifndef NFSD_SERVER_H
#define NFSD_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "app_metrics.h"
#include "nfs3_svc.h"
#include "nfs4_svc.h"
#include "nfs_aio.h"
#include "nfs_fs.h"
#include "nfs_pool.h"
#include "nfsd_conf.h"
#include "nfsd_lane.h"
#include "nfsd_log.h"
#include "nfsd_metrics.h"
#include "nlm_svc.h"
#include "orpc_bc.h"
#include "orpc_pmap.h"
#include "orpc_tcp.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"

/* the server's life after start (STYLE §4): a SIGTERM moves it down the list */
#define NFSD_STATE_LIST(X)                                                                         \
	X(SERVING)  /* accepting connections and calls */                                          \
	X(DRAINING) /* no new connections; the calls in flight end and are answered */             \
	X(SETTLING) /* none in flight: the last replies leave */                                   \
	X(SYNCING)  /* the exported file systems go to disk */                                     \
	X(STOPPED)  /* the loop ends; teardown follows */
#define NFSD_ST_ENUM_(n) NFSD_##n,
enum nfsd_state { NFSD_STATE_LIST(NFSD_ST_ENUM_) NFSD_NUM_STATES };

/* an export reload (SIGHUP): the new table is built on a thread of its own, then swapped in by
 * the loop */
enum reload_phase { RELOAD_IDLE, RELOAD_BUILDING, RELOAD_READY };

/* droce-nfsd's state: one, on the main lcore (the other lanes own only their nfsd_lane) */
struct nfsd_server {
	const char *config, *exports, *listen_ip;
	struct nfsd_conf conf;
	uint64_t end;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct rpcrdma_regions *regions; /* the connections' staging, kept across connections */
	struct roce_cm_id *listen;
	struct nfs_fs *fs;
	struct nfs_pool *pool;
	struct nfs_aio *aio;
	struct nfs3_server tcp_nfs, rdma_nfs;
	/* NFSv4.1 ([nfs] versions = 3,4.1): one server for both transports, so a client's
	 * sessions and reply caches are the same whichever connection a call takes */
	struct nfs4_server *v4;
	struct orpc_program nfs_prog; /* program 100003 with versions 3 and 4 */
	struct orpc_version nfs_vers[2];
	struct orpc_svc svc, rdma_svc;
	/* the backchannels of this lcore's NFS connections, TCP and RDMA (orpc_bc.h): both
	 * svcs point at it; it lives as long as they do */
	struct orpc_bc_table bc;
	struct orpc_pmap pm;
	struct orpc_tcp_srv tcp;
	bool tcp_up; /* orpc_tcp_srv_init succeeded */
	/* NLM and NSM: their own svc (its ctx is the lock server) on their own ports */
	struct nlm_server nlm;
	bool nlm_up;
	struct orpc_svc lock_svc;
	struct orpc_tcp_srv lock_tcp;
	bool lock_tcp_up;
	struct {
		struct roce_cm_id *id;
		struct rpcrdma_ep *ep;
		bool closing;	 /* destroyed once the stack has let go of its regions */
		uint8_t lane;	 /* 0: served here; else by lanes[lane] (from ESTABLISHED on) */
		bool adopted;	 /* the lane was given it (ADOPT) */
		bool lane_ended; /* END sent: the lane lets go of it and answers RELEASED */
		bool released;	 /* RELEASED came: this lcore destroys it */
	} conns[NFSD_CONNS_MAX];
	/* [nfs] lcores: lane 0 is this lcore (rdma_nfs, rdma_svc above), lanes[1..] the others
	 * (nfsd_lane.h); lanes_run: their lcores poll them (after stk_run they do not) */
	struct nfsd_lane lanes[NFSD_LANES_MAX];
	unsigned nlanes;
	bool lanes_run;
	uint32_t place_next; /* placement = round_robin */
	uint64_t lane_accepted[NFSD_LANES_MAX];
	bool lane_quiesced[NFSD_LANES_MAX];   /* QUIESCED came back */
	uint64_t reclaim_seq[NFSD_LANES_MAX]; /* their quiet_seq at the last exports swap */
	uint64_t accepted, rejected, closed;
	struct nfsd_ratelimit conn_rl; /* connection messages: a client can cause them */
	/* lifecycle */
	enum nfsd_state state;
	uint64_t state_cnt[NFSD_NUM_STATES];
	uint64_t drain_end_ns, settle_end_ns;
	bool drain_cut;		 /* the bound passed, or a second signal */
	uint64_t drain_start_ns; /* the first signal seen (the drain began) */
	/* SYNCING: the syncfs runs on a thread of its own (it blocks for as long as writeback
	 * takes); 0 not started, 1 running, 2 done */
	_Atomic int sync_phase;
	pthread_t sync_thread;
	bool sync_threaded; /* sync_thread runs it (else it ran on the lcore) */
	int sync_rc;
	uint32_t synced;
	/* reload */
	_Atomic int reload_phase;
	pthread_t reload_thread;
	int reload_rc;
	struct nfs_export_tab *reload_next;
	char reload_err[1024];
	uint64_t reloads, reload_failures;
	struct app_metrics *metrics; /* [nfs] metrics, --metrics */
};
extern struct nfsd_server nfsd;

/* droce-nfsd.c */
/** CLOCK_MONOTONIC in ns. */
uint64_t nfsd_now_ns(void);

/* nfsd_report.c */
/** On the main lcore, twice a second: the connections as they are now, for
 * /droce/nfs/clients. */
void nfsd_clients_snapshot(void);
/** The counters at exit (stdout). */
void nfsd_print_stats(void);
/** What the counters are read from, for /metrics and /droce/nfs. */
void nfsd_metrics_src(struct nfsd_metrics_src *out);
/** Register /droce/nfs, /droce/nfs/latency, /droce/nfs/clients and /droce/nlm (a failure is
 * said on stderr and serving goes on). */
void nfsd_tel_register(void);
/** [nfs] metrics / --metrics: the listener, once droce's address exists. @return 0 or -1 (said
 * why) */
int nfsd_metrics_start(void);

#endif /* NFSD_SERVER_H */
