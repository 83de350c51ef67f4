/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-nfsd - the NFS server: NFSv3 over RPC-over-RDMA (port 20049, droce's RoCE stack and
 * CM) and over TCP (2049), MOUNT v1/v3 over TCP and UDP (20048), NLM v4 (locks, 4045) and NSM
 * (status, 4046) over TCP and UDP, and droce's portmapper on 111 listing them. TCP and UDP
 * use the kernel's sockets bound to droce's address: they reach the wire through droce's
 * exception TAP, so every service speaks from one address.
 *
 * Usage: droce-nfsd [EAL args --] --config FILE --exports FILE [--state DIR] [--grace S]
 *                   [--seconds N]
 *        droce-nfsd --listen IP --exports FILE [--state DIR] [--grace S] [--seconds N]
 *   (either form also takes [--threads N] [--metrics IP:PORT])
 *   --check    read and judge --exports (and --config) and exit: 0 when both are right,
 *              2 with a message naming what is wrong; nothing is started or written
 *   --config   the stack's INI (docs/config.md)
 *   --listen   no RoCE stack: serve NFSv3, MOUNT and the portmapper over the kernel's TCP and
 *              UDP at IP only (for tests in a namespace and user-space clients)
 *   --exports  exports(5) text (nfs/fs/nfs_fs.h says what is accepted)
 *   --state    the state directory (handle key, export ids, NSM state and monitored hosts);
 *              default /var/lib/droce-nfsd
 *   --grace    the lock grace period after start, in seconds (default 90): only reclaims
 *   --threads  helper threads that make the file-system calls (default 4; 0: the lcore makes
 *              them itself, blocking)
 *   --metrics  serve Prometheus metrics at http://IP:PORT/metrics (kernel TCP; off by
 *              default; droce-nfsstat reads them; docs/observability.md lists them)
 * Prints "serving ..." when ready, and its counters when it stops (SIGINT/SIGTERM, or N s).
 * Everything is polled from the main lcore's loop.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "app_metrics.h"
#include "nfs3_svc.h"
#include "nfs_fs.h"
#include "nfs_pool.h"
#include "nfsd_metrics.h"
#include "nlm_svc.h"
#include "orpc_pmap.h"
#include "orpc_tcp.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define MAX_CONNS 16
#define MAX_IO (1u << 20)

static struct {
	const char *config, *exports, *state, *listen_ip;
	uint64_t end;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cm_id *listen;
	struct nfs_fs *fs;
	struct nfs_pool *pool;
	long threads;
	struct nfs3_server tcp_nfs, rdma_nfs;
	struct orpc_svc svc, rdma_svc;
	struct orpc_pmap pm;
	struct orpc_tcp_srv tcp;
	bool tcp_up; /* orpc_tcp_srv_init succeeded */
	/* NLM and NSM: their own svc (its ctx is the lock server) on their own ports */
	struct nlm_server nlm;
	bool nlm_up;
	struct orpc_svc lock_svc;
	struct orpc_tcp_srv lock_tcp;
	bool lock_tcp_up;
	uint32_t grace_s;
	struct {
		struct roce_cm_id *id;
		struct rpcrdma_ep *ep;
		bool closing; /* destroyed once the stack has let go of its regions */
	} conns[MAX_CONNS];
	uint64_t accepted, rejected, closed;
	const char *metrics_at; /* --metrics IP:PORT */
	struct app_metrics *metrics;
} g;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_connect_request(const struct roce_cm_event *ev)
{
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_conn_param p = {0};
	struct rpcrdma_ep_conf conf = {.max_chunk = MAX_IO + 8192};
	int k;

	for (k = 0; k < MAX_CONNS && (g.conns[k].id || g.conns[k].ep); k++)
		;
	if (k == MAX_CONNS ||
	    !(g.conns[k].ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_SERVER, &conf, &g.rdma_svc))) {
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		g.rejected++;
		return;
	}
	g.conns[k].id = ev->id;
	rpcrdma_ep_set_peer(g.conns[k].ep, &ev->id->remote_ip, ev->id->remote_port);
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(g.conns[k].ep, priv);
	if (roce_cm_accept(ev->id, rpcrdma_ep_qp(g.conns[k].ep), &p) != 0 ||
	    rpcrdma_ep_start(g.conns[k].ep, ev->private_data, ev->private_data_len) != 0) {
		roce_cm_destroy_id(ev->id);
		g.conns[k].id = NULL;
		g.conns[k].closing = true;
		g.rejected++;
		return;
	}
	g.accepted++;
	printf("rdma: connection %d accepted\n", k);
}

/* A connection is over: its CM id goes now, its endpoint once the stack has let go of its
 * regions (serve_poll). */
static void conn_end(int k, const char *why)
{
	roce_cm_destroy_id(g.conns[k].id);
	g.conns[k].id = NULL;
	g.conns[k].closing = true;
	g.closed++;
	printf("rdma: connection %d closed (%s)\n", k, why);
}

static void on_cm_event(const struct roce_cm_event *ev)
{
	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		on_connect_request(ev);
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
	case ROCE_CM_EVENT_REJECTED:	/* the peer gave up on an accepted connection (REJ) */
	case ROCE_CM_EVENT_UNREACHABLE: /* our REP went unanswered */
		for (int k = 0; k < MAX_CONNS; k++) {
			if (!g.conns[k].id || g.conns[k].id != ev->id)
				continue;
			conn_end(k, roce_cm_event_str(ev->event));
		}
		break;
	default:
		break;
	}
}

static void serve_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;

	(void)lc, (void)arg;
	if (g.pool)
		nfs_pool_poll(g.pool, nfs3_pool_done, 64);
	while (roce_cm_get_event(g.cm, &ev) == 0)
		on_cm_event(&ev);
	for (int k = 0; k < MAX_CONNS; k++) {
		struct rpcrdma_ep_info info;

		if (g.conns[k].closing && rpcrdma_ep_destroy(g.conns[k].ep) == 0) {
			memset(&g.conns[k], 0, sizeof(g.conns[k]));
			continue;
		}
		if (!g.conns[k].ep || g.conns[k].closing)
			continue;
		rpcrdma_ep_poll(g.conns[k].ep);
		/* an RDMA error or a flush ends the connection: the client reconnects */
		rpcrdma_ep_info(g.conns[k].ep, &info);
		if (info.failed && g.conns[k].id) {
			roce_cm_disconnect(g.conns[k].id);
			conn_end(k, "endpoint failed");
		}
	}
	if (g.tcp_up)
		orpc_tcp_srv_poll(&g.tcp);
	if (g.lock_tcp_up)
		orpc_tcp_srv_poll(&g.lock_tcp);
	if (g.nlm_up)
		nlm_server_poll(&g.nlm);
	if (g.metrics)
		app_metrics_poll(g.metrics);
	if (stop || (g.end && rte_get_tsc_cycles() > g.end))
		stk_stop();
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (1 << 20) &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = calloc(1, (size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int listen_all(const char *ip)
{
	static const struct {
		uint16_t port;
		int udp;
	} socks[] = {{ORPC_PMAP_PORT, 0},
		     {ORPC_PMAP_PORT, 1},
		     {NFS3_PORT, 0},
		     {MOUNT_PORT, 0},
		     {MOUNT_PORT, 1}};
	int rc = orpc_tcp_srv_init(&g.tcp, &g.svc, 0);

	g.tcp_up = rc == 0;

	for (size_t i = 0; !rc && i < sizeof(socks) / sizeof(socks[0]); i++) {
		rc = orpc_tcp_srv_listen(&g.tcp, ip, socks[i].port, socks[i].udp, NULL);
		if (rc)
			fprintf(stderr, "droce-nfsd: cannot bind %s %s port %u: %s\n", ip,
				socks[i].udp ? "udp" : "tcp", socks[i].port, strerror(-rc));
	}
	if (rc)
		return rc;
	/* NLM and NSM on their fixed ports, served by the lock server's own svc */
	rc = orpc_tcp_srv_init(&g.lock_tcp, &g.lock_svc, 0);
	g.lock_tcp_up = rc == 0;
	for (int i = 0; !rc && i < 4; i++) {
		uint16_t port = i < 2 ? NLM_PORT : NSM_PORT;

		rc = orpc_tcp_srv_listen(&g.lock_tcp, ip, port, i & 1, NULL);
		if (rc)
			fprintf(stderr, "droce-nfsd: cannot bind %s %s port %u: %s\n", ip,
				i & 1 ? "udp" : "tcp", port, strerror(-rc));
	}
	return rc;
}

/* the lock server: grace period, NSM state, SM_NOTIFY to the hosts that held locks */
static int lock_init(const char *ip)
{
	struct nlm_conf c = {.grace_s = g.grace_s, .my_name = ip, .cb_timeout_ms = 3000};
	char err[256];
	int rc = nlm_server_init(&g.nlm, g.fs, &c, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "droce-nfsd: the lock manager did not start: %s\n", err);
		return rc;
	}
	g.nlm_up = true;
	g.lock_svc.ctx = &g.nlm;
	orpc_svc_add(&g.lock_svc, &nlm_program);
	orpc_svc_add(&g.lock_svc, &nsm_program);
	printf("locks: NSM state %d, %u monitored host(s) notified, grace %u s\n", g.nlm.nsm_state,
	       g.nlm.nhosts, g.grace_s);
	return 0;
}

static void register_all(const char *ip, bool rdma)
{
	orpc_pmap_attach(&g.pm);
	for (uint32_t v = 2; v <= 4; v++) {
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "tcp", ip, ORPC_PMAP_PORT);
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "udp", ip, ORPC_PMAP_PORT);
	}
	orpc_pmap_register(&g.pm, NFS3_PROG, 3, "tcp", ip, NFS3_PORT);
	if (rdma)
		orpc_pmap_register(&g.pm, NFS3_PROG, 3, "rdma", ip, NFS3_RDMA_PORT);
	for (uint32_t v = 1; v <= 3; v += 2) {
		orpc_pmap_register(&g.pm, MOUNT_PROG, v, "tcp", ip, MOUNT_PORT);
		orpc_pmap_register(&g.pm, MOUNT_PROG, v, "udp", ip, MOUNT_PORT);
	}
	orpc_pmap_register(&g.pm, NLM_PROG, NLM_VERS4, "tcp", ip, NLM_PORT);
	orpc_pmap_register(&g.pm, NLM_PROG, NLM_VERS4, "udp", ip, NLM_PORT);
	orpc_pmap_register(&g.pm, NSM_PROG, NSM_VERS, "tcp", ip, NSM_PORT);
	orpc_pmap_register(&g.pm, NSM_PROG, NSM_VERS, "udp", ip, NSM_PORT);
}

static void print_stats(void)
{
	static const char *const names[NFS3_NPROCS] = {
		"NULL",	  "GETATTR", "SETATTR",	 "LOOKUP", "ACCESS",  "READLINK",
		"READ",	  "WRITE",   "CREATE",	 "MKDIR",  "SYMLINK", "MKNOD",
		"REMOVE", "RMDIR",   "RENAME",	 "LINK",   "READDIR", "READDIRPLUS",
		"FSSTAT", "FSINFO",  "PATHCONF", "COMMIT"};
	struct nfs_fs_stats fst;
	struct orpc_drc_stats drc[2];

	printf("tcp: accepted %llu, records %llu, udp calls %llu, closed %llu (garbage %llu)\n",
	       (unsigned long long)g.tcp.stats.accepted, (unsigned long long)g.tcp.stats.records,
	       (unsigned long long)g.tcp.stats.udp_calls, (unsigned long long)g.tcp.stats.closed,
	       (unsigned long long)g.tcp.stats.closed_garbage);
	printf("rdma: accepted %llu, rejected %llu, closed %llu, calls %llu\n",
	       (unsigned long long)g.accepted, (unsigned long long)g.rejected,
	       (unsigned long long)g.closed, (unsigned long long)g.rdma_svc.stats.calls);
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		if (g.svc.stats.outcome[k] + g.rdma_svc.stats.outcome[k] +
		    g.lock_svc.stats.outcome[k])
			printf("rpc: %s tcp %llu rdma %llu nlm/nsm %llu\n",
			       orpc_outcome_name((enum orpc_outcome)k),
			       (unsigned long long)g.svc.stats.outcome[k],
			       (unsigned long long)g.rdma_svc.stats.outcome[k],
			       (unsigned long long)g.lock_svc.stats.outcome[k]);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		if (g.tcp_nfs.st.proc[p] + g.rdma_nfs.st.proc[p])
			printf("nfs3: %s tcp %llu rdma %llu\n", names[p],
			       (unsigned long long)g.tcp_nfs.st.proc[p],
			       (unsigned long long)g.rdma_nfs.st.proc[p]);
	printf("nfs3: calls on helper threads %llu, run inline for want of scratch %llu\n",
	       (unsigned long long)(g.tcp_nfs.st.deferred + g.rdma_nfs.st.deferred),
	       (unsigned long long)(g.tcp_nfs.st.sync_fallback + g.rdma_nfs.st.sync_fallback));
	printf("nfs3: status ok %llu, errors %llu; read %llu bytes, written %llu bytes\n",
	       (unsigned long long)(g.tcp_nfs.st.status_ok + g.rdma_nfs.st.status_ok),
	       (unsigned long long)(g.tcp_nfs.st.status_err + g.rdma_nfs.st.status_err),
	       (unsigned long long)(g.tcp_nfs.st.read_bytes + g.rdma_nfs.st.read_bytes),
	       (unsigned long long)(g.tcp_nfs.st.write_bytes + g.rdma_nfs.st.write_bytes));
	if (g.nlm_up) {
		uint32_t locks, waiters;

		for (uint32_t p = 0; p < NLM4_NPROCS; p++)
			if (g.nlm.st.nlm_proc[p])
				printf("nlm: %s %llu\n", nlm4_proc_name(p),
				       (unsigned long long)g.nlm.st.nlm_proc[p]);
		for (uint32_t k = 0; k < NLM4_NSTATS; k++)
			if (g.nlm.st.nlm_stat[k])
				printf("nlm: answered %s %llu\n", nlm4_stat_name(k),
				       (unsigned long long)g.nlm.st.nlm_stat[k]);
		for (uint32_t p = 0; p < NSM_NPROCS; p++)
			if (g.nlm.st.nsm_proc[p])
				printf("nsm: %s %llu\n", nsm_proc_name(p),
				       (unsigned long long)g.nlm.st.nsm_proc[p]);
		for (uint32_t k = 1; k < NLM_CB_NUM_STATES; k++)
			if (g.nlm.st.cb_state[k])
				printf("callbacks: %s %llu\n",
				       nlm_cb_state_name((enum nlm_cb_state)k),
				       (unsigned long long)g.nlm.st.cb_state[k]);
		nfs_lock_count(&g.nlm.mgr, &locks, &waiters);
		printf("locks: held %u, waiting %u, reclaims %llu, waiters granted %llu, "
		       "refused grants %llu, dropped by notify/free_all %llu, callbacks dropped "
		       "%llu\n",
		       locks, waiters, (unsigned long long)g.nlm.mgr.st.reclaims,
		       (unsigned long long)g.nlm.mgr.st.granted_waiters,
		       (unsigned long long)g.nlm.st.granted_refused,
		       (unsigned long long)g.nlm.st.notify_dropped,
		       (unsigned long long)g.nlm.st.cb_dropped);
	}
	orpc_svc_drc_stats(&g.svc, &drc[0]);
	orpc_svc_drc_stats(&g.rdma_svc, &drc[1]);
	printf("drc: kept %llu, replayed %llu, dropped in progress %llu, evicted %llu, too big "
	       "%llu\n",
	       (unsigned long long)(drc[0].inserted + drc[1].inserted),
	       (unsigned long long)(drc[0].replayed + drc[1].replayed),
	       (unsigned long long)(drc[0].in_progress_drops + drc[1].in_progress_drops),
	       (unsigned long long)(drc[0].evicted + drc[1].evicted),
	       (unsigned long long)(drc[0].too_big + drc[1].too_big));
	nfs_fs_stats(g.fs, &fst);
	printf("fs: badhandle %llu, stale %llu, client refused %llu, rofs %llu, squashed %llu\n",
	       (unsigned long long)fst.badhandle, (unsigned long long)fst.stale,
	       (unsigned long long)fst.acces_client, (unsigned long long)fst.rofs,
	       (unsigned long long)fst.squashed);
}

/* /droce/nfs: the NFS server's counters for rte_telemetry (dpdk-telemetry.py). Read from the
 * telemetry thread while the lcore counts: each value is one aligned 64-bit load. */
/* /droce/nlm: the lock manager's and NLM/NSM's counters (read on the telemetry thread: plain
 * counters of the lcore, as /droce/nfs reads them) */
static int tel_nlm(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *p = rte_tel_data_alloc();
	uint32_t locks = 0, waiters = 0;

	(void)cmd, (void)params;
	if (!p)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	rte_tel_data_start_dict(p);
	for (uint32_t i = 0; i < NLM4_NPROCS; i++)
		if (g.nlm.st.nlm_proc[i])
			rte_tel_data_add_dict_u64(p, nlm4_proc_name(i), g.nlm.st.nlm_proc[i]);
	rte_tel_data_add_dict_container(d, "nlm_calls", p, 0);
	for (uint32_t k = 0; k < NLM4_NSTATS; k++)
		rte_tel_data_add_dict_u64(d, nlm4_stat_name(k), g.nlm.st.nlm_stat[k]);
	if (g.nlm_up)
		nfs_lock_count(&g.nlm.mgr, &locks, &waiters);
	rte_tel_data_add_dict_u64(d, "locks_held", locks);
	rte_tel_data_add_dict_u64(d, "waiters", waiters);
	rte_tel_data_add_dict_u64(d, "in_grace", g.nlm_up && nfs_lock_in_grace(&g.nlm.mgr));
	rte_tel_data_add_dict_u64(d, "reclaims", g.nlm.mgr.st.reclaims);
	rte_tel_data_add_dict_u64(d, "waiters_granted", g.nlm.mgr.st.granted_waiters);
	rte_tel_data_add_dict_u64(d, "grants_refused", g.nlm.st.granted_refused);
	rte_tel_data_add_dict_u64(d, "callbacks_done", g.nlm.st.cb_state[NLM_CB_DONE]);
	rte_tel_data_add_dict_u64(d, "callbacks_failed",
				  g.nlm.st.cb_state[NLM_CB_ERR_NOPORT] +
					  g.nlm.st.cb_state[NLM_CB_ERR_CALL]);
	rte_tel_data_add_dict_u64(d, "callbacks_dropped", g.nlm.st.cb_dropped);
	rte_tel_data_add_dict_u64(d, "dropped_by_notify", g.nlm.st.notify_dropped);
	rte_tel_data_add_dict_u64(d, "sm_notify_received", g.nlm.st.nsm_proc[NSM_PROC_NOTIFY]);
	rte_tel_data_add_dict_u64(d, "nsm_state", (uint64_t)g.nlm.nsm_state);
	rte_tel_data_add_dict_u64(d, "monitored_hosts", g.nlm.nhosts);
	return 0;
}

static int tel_nfs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const procs[NFS3_NPROCS] = {
		"NULL",	  "GETATTR", "SETATTR",	 "LOOKUP", "ACCESS",  "READLINK",
		"READ",	  "WRITE",   "CREATE",	 "MKDIR",  "SYMLINK", "MKNOD",
		"REMOVE", "RMDIR",   "RENAME",	 "LINK",   "READDIR", "READDIRPLUS",
		"FSSTAT", "FSINFO",  "PATHCONF", "COMMIT"};
	const struct nfs3_server *sv[2] = {&g.tcp_nfs, &g.rdma_nfs};
	struct orpc_drc_stats drc[2];
	struct nfs_fs_stats fst;
	struct rte_tel_data *p = rte_tel_data_alloc(), *o = rte_tel_data_alloc();

	(void)cmd, (void)params;
	if (!p || !o) {
		rte_tel_data_free(p);
		rte_tel_data_free(o);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_start_dict(p);
	for (uint32_t i = 0; i < NFS3_NPROCS; i++)
		rte_tel_data_add_dict_u64(p, procs[i], sv[0]->st.proc[i] + sv[1]->st.proc[i]);
	rte_tel_data_add_dict_container(d, "nfs3_calls", p, 0);
	rte_tel_data_start_dict(o);
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		rte_tel_data_add_dict_u64(o, orpc_outcome_name((enum orpc_outcome)k),
					  g.svc.stats.outcome[k] + g.rdma_svc.stats.outcome[k]);
	rte_tel_data_add_dict_container(d, "rpc_outcomes", o, 0);
	for (uint32_t i = 0; i < 32; i++)
		if (sv[0]->st.status[i] + sv[1]->st.status[i] && i)
			rte_tel_data_add_dict_u64(d, nfs_stat_name(nfs3_stat_of_slot(i)),
						  sv[0]->st.status[i] + sv[1]->st.status[i]);
	rte_tel_data_add_dict_u64(d, "status_ok", sv[0]->st.status_ok + sv[1]->st.status_ok);
	rte_tel_data_add_dict_u64(d, "status_err", sv[0]->st.status_err + sv[1]->st.status_err);
	rte_tel_data_add_dict_u64(d, "read_bytes", sv[0]->st.read_bytes + sv[1]->st.read_bytes);
	rte_tel_data_add_dict_u64(d, "write_bytes", sv[0]->st.write_bytes + sv[1]->st.write_bytes);
	rte_tel_data_add_dict_u64(d, "on_helper_threads", sv[0]->st.deferred + sv[1]->st.deferred);
	rte_tel_data_add_dict_u64(d, "helper_queue", g.pool ? nfs_pool_inflight(g.pool) : 0);
	orpc_svc_drc_stats(&g.svc, &drc[0]);
	orpc_svc_drc_stats(&g.rdma_svc, &drc[1]);
	rte_tel_data_add_dict_u64(d, "drc_replayed", drc[0].replayed + drc[1].replayed);
	rte_tel_data_add_dict_u64(d, "drc_in_progress_drops",
				  drc[0].in_progress_drops + drc[1].in_progress_drops);
	nfs_fs_stats(g.fs, &fst);
	rte_tel_data_add_dict_u64(d, "badhandle", fst.badhandle);
	rte_tel_data_add_dict_u64(d, "stale", fst.stale);
	rte_tel_data_add_dict_u64(d, "client_refused", fst.acces_client);
	rte_tel_data_add_dict_u64(d, "rofs", fst.rofs);
	rte_tel_data_add_dict_u64(d, "rdma_connections", g.accepted - g.closed);
	rte_tel_data_add_dict_u64(d, "tcp_connections", orpc_tcp_srv_nconns(&g.tcp));
	return 0;
}

/* GET /metrics (--metrics): the counters above for Prometheus, written on this lcore */
static void write_metrics(struct app_buf *b, void *arg)
{
	bool rdma = !g.listen_ip;
	struct nfsd_metrics_src s = {
		.nfs = {&g.tcp_nfs, rdma ? &g.rdma_nfs : NULL},
		.svc = {&g.svc, rdma ? &g.rdma_svc : NULL},
		.svc_name = {"tcp", "rdma"},
		.lock_svc = g.nlm_up ? &g.lock_svc : NULL,
		.tcp = g.tcp_up ? &g.tcp : NULL,
		.lock_tcp = g.lock_tcp_up ? &g.lock_tcp : NULL,
		.nlm = g.nlm_up ? &g.nlm : NULL,
		.pool = g.pool,
		.threads = (uint32_t)g.threads,
		.fs = g.fs,
		.rdma = rdma,
		.rdma_accepted = g.accepted,
		.rdma_rejected = g.rejected,
		.rdma_closed = g.closed,
		.start_time = nfsd_metrics_start_time(),
	};

	(void)arg;
	nfsd_metrics_write(b, &s);
}

/* --metrics: the listener, once droce's address exists. @return 0 or -1 (said why) */
static int metrics_start(void)
{
	char err[256];

	if (!g.metrics_at)
		return 0;
	g.metrics = app_metrics_open(g.metrics_at, write_metrics, NULL, err, sizeof(err));
	if (!g.metrics) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return -1;
	}
	printf("metrics at %s port %u: GET /metrics\n", g.metrics_at, app_metrics_port(g.metrics));
	return 0;
}

/* The helper threads, shared by the servers of every transport. */
static int start_pool(void)
{
	if (!g.threads)
		return 0;
	g.pool = nfs_pool_create("nfsd", (uint32_t)g.threads, nfs3_pool_work);
	if (!g.pool) {
		fprintf(stderr, "droce-nfsd: cannot start %ld helper threads: %s\n", g.threads,
			strerror(errno));
		return -1;
	}
	g.tcp_nfs.pool = g.pool;
	g.rdma_nfs.pool = g.pool;
	return 0;
}

/* --listen: the kernel's sockets only, waiting in epoll (nothing else to poll) */
static int serve_tcp_only(long secs)
{
	time_t end = secs > 0 ? time(NULL) + secs : 0;
	struct epoll_event ev;
	int rc = 1, wait_fd = -1;
	uint32_t cb_active = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (nfs3_server_init(&g.tcp_nfs, g.fs, MAX_IO) != 0 || start_pool() != 0)
		goto out;
	g.svc.ctx = &g.tcp_nfs;
	if (orpc_svc_drc_enable(&g.svc) != 0)
		goto out;
	orpc_svc_add(&g.svc, &orpc_pmap_program);
	orpc_svc_add(&g.svc, &nfs3_program);
	orpc_svc_add(&g.svc, &mount_program);
	register_all(g.listen_ip, false);
	if (lock_init(g.listen_ip) != 0 || listen_all(g.listen_ip) != 0 || metrics_start() != 0)
		goto out;
	printf("serving at %s: NFSv3 on tcp %u, MOUNT v1/v3 on tcp/udp %u, NLM v4 on tcp/udp %u, "
	       "NSM on tcp/udp %u, portmapper on tcp/udp %u\n",
	       g.listen_ip, NFS3_PORT, MOUNT_PORT, NLM_PORT, NSM_PORT, ORPC_PMAP_PORT);
	/* sleep until a socket or a helper thread has something */
	wait_fd = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, g.tcp.ep, &ev);
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, g.lock_tcp.ep, &ev);
	if (g.pool)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs_pool_event_fd(g.pool), &ev);
	if (g.metrics)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, app_metrics_fd(g.metrics), &ev);
	while (!stop && (!end || time(NULL) < end)) {
		/* callbacks in flight have sockets of their own, outside the epoll set */
		epoll_wait(wait_fd, &ev, 1, cb_active ? 10 : 100);
		if (g.pool)
			nfs_pool_poll(g.pool, nfs3_pool_done, 64);
		orpc_tcp_srv_poll(&g.tcp);
		orpc_tcp_srv_poll(&g.lock_tcp);
		cb_active = nlm_server_poll(&g.nlm);
		if (g.metrics)
			app_metrics_poll(g.metrics);
	}
	print_stats();
	rc = 0;
out:
	if (wait_fd >= 0)
		close(wait_fd);
	app_metrics_close(g.metrics);
	/* the calls still with the helpers end first: their connections wait for them */
	nfs_pool_destroy(g.pool, nfs3_pool_done);
	g.pool = NULL;
	if (g.tcp_up)
		orpc_tcp_srv_fini(&g.tcp);
	if (g.lock_tcp_up)
		orpc_tcp_srv_fini(&g.lock_tcp);
	if (g.nlm_up)
		nlm_server_fini(&g.nlm);
	nfs3_server_fini(&g.tcp_nfs);
	orpc_svc_drc_disable(&g.svc);
	orpc_svc_drc_disable(&g.rdma_svc);
	nfs_fs_close(g.fs);
	return rc;
}

/* --check: the exports (and the stack's config, when given) are read and judged, nothing is
 * started and nothing is written (not even the state directory). */
static int check_files(void)
{
	static struct nfs_export ex[NFS_EXPORT_MAX];
	struct stk_config cfg;
	char err[512], *text;
	int n;

	if (!g.exports) {
		fprintf(stderr, "droce-nfsd: --check needs --exports FILE (and --config FILE to "
				"check the stack's too)\n");
		return 2;
	}
	text = read_file(g.exports);
	if (!text) {
		fprintf(stderr, "droce-nfsd: cannot read the exports file %s: %s\n", g.exports,
			strerror(errno));
		return 2;
	}
	n = nfs_exports_parse(text, ex, NFS_EXPORT_MAX, err, sizeof(err));
	free(text);
	if (n < 0) {
		fprintf(stderr, "droce-nfsd: %s: %s\n", g.exports,
			n == -ENOSPC ? "more exports than droce serves (64)" : err);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct stat st;

		if (stat(ex[i].path, &st) != 0) {
			fprintf(stderr, "droce-nfsd: %s: export %s: %s\n", g.exports, ex[i].path,
				strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "droce-nfsd: %s: export %s: not a directory\n", g.exports,
				ex[i].path);
			return 2;
		}
	}
	if (g.config) {
		stk_config_default(&cfg);
		if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			return 2;
		}
	}
	printf("droce-nfsd: %s: %d export(s) ok%s%s\n", g.exports, n, g.config ? "; " : "",
	       g.config ? g.config : "");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", 1, NULL, 'c'},  {"exports", 1, NULL, 'e'}, {"state", 1, NULL, 'S'},
		{"seconds", 1, NULL, 's'}, {"listen", 1, NULL, 'l'},  {"grace", 1, NULL, 'g'},
		{"threads", 1, NULL, 't'}, {"check", 0, NULL, 'k'},   {"metrics", 1, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	int eal_argc, app_argc, o, rc = 1;
	char **eal_argv, **app_argv, *text;
	struct stk_config cfg;
	const struct stk_iface *ifc;
	char err[512], ip[64];
	long secs = 0;
	bool check_only = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.state = "/var/lib/droce-nfsd";
	g.grace_s = NLM_GRACE_DEFAULT_S;
	g.threads = 4;
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((o = getopt_long(app_argc, app_argv, "", opts, NULL)) != -1) {
		if (o == 'c')
			g.config = optarg;
		else if (o == 'e')
			g.exports = optarg;
		else if (o == 'S')
			g.state = optarg;
		else if (o == 's')
			secs = strtol(optarg, NULL, 0);
		else if (o == 'l')
			g.listen_ip = optarg;
		else if (o == 'g')
			g.grace_s = (uint32_t)strtoul(optarg, NULL, 0);
		else if (o == 't')
			g.threads = strtol(optarg, NULL, 0);
		else if (o == 'k')
			check_only = true;
		else if (o == 'm')
			g.metrics_at = optarg;
		else
			return 2;
	}
	if (check_only)
		return check_files();
	if ((!g.config && !g.listen_ip) || !g.exports) {
		fprintf(stderr, "usage: droce-nfsd [EAL --] --config FILE --exports FILE "
				"[--state DIR] [--grace S] [--threads N] [--seconds N] "
				"[--metrics IP:PORT]\n"
				"       droce-nfsd --listen IP --exports FILE [--state DIR] "
				"[--grace S] [--threads N] [--seconds N] [--metrics IP:PORT]\n");
		return 2;
	}
	if (g.threads < 0 || g.threads > (long)NFS_POOL_MAX_THREADS) {
		fprintf(stderr, "droce-nfsd: --threads %ld: give 0 (no helper threads) to %u\n",
			g.threads, NFS_POOL_MAX_THREADS);
		return 2;
	}
	text = read_file(g.exports);
	if (!text) {
		fprintf(stderr, "droce-nfsd: cannot read the exports file %s: %s\n", g.exports,
			strerror(errno));
		return 2;
	}
	rc = nfs_fs_open(&g.fs, text, g.state, err, sizeof(err));
	free(text);
	if (rc) {
		fprintf(stderr, "droce-nfsd: %s: %s\n", g.exports, err);
		return 2;
	}
	if (g.listen_ip)
		return serve_tcp_only(secs);
	stk_config_default(&cfg);
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0 || stk_setup(&cfg) != 0) {
		fprintf(stderr, "droce-nfsd: the stack did not start\n");
		return 1;
	}
	rc = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ifc = stk_iface_get(0);
	stk_ipaddr_str(&ifc->ip4, ip, sizeof(ip));
	g.dev = roce_dev_open(0);
	g.cm = g.dev ? roce_cm_open(g.dev) : NULL;
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	g.listen = g.cm ? roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL) : NULL;
	if (!g.listen || !g.pd || roce_cm_listen(g.listen, NFS3_RDMA_PORT, 16) != 0) {
		fprintf(stderr, "droce-nfsd: no RoCE device, CM or listener: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (nfs3_server_init(&g.tcp_nfs, g.fs, MAX_IO) != 0 ||
	    nfs3_server_init(&g.rdma_nfs, g.fs, MAX_IO) != 0 || start_pool() != 0) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	g.svc.ctx = &g.tcp_nfs;
	g.rdma_svc.ctx = &g.rdma_nfs;
	if (orpc_svc_drc_enable(&g.svc) != 0 || orpc_svc_drc_enable(&g.rdma_svc) != 0) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	orpc_svc_add(&g.svc, &orpc_pmap_program);
	orpc_svc_add(&g.svc, &nfs3_program);
	orpc_svc_add(&g.svc, &mount_program);
	orpc_svc_add(&g.rdma_svc, &nfs3_program);
	register_all(ip, true);
	/* the help text must stay under RTE_TEL_MAX_STRING_LEN (128), or registration fails */
	if (rte_telemetry_register_cmd("/droce/nfs", tel_nfs,
				       "NFS server counters: calls, outcomes, errors, bytes, DRC. "
				       "No params") != 0)
		fprintf(stderr, "droce-nfsd: /droce/nfs not registered with telemetry\n");
	if (rte_telemetry_register_cmd(
		    "/droce/nlm", tel_nlm,
		    "Lock counters: NLM calls and answers, locks, waiters, grace, "
		    "callbacks, NSM. No params") != 0)
		fprintf(stderr, "droce-nfsd: /droce/nlm not registered with telemetry\n");
	if (lock_init(ip) != 0 || listen_all(ip) != 0 || metrics_start() != 0)
		goto out;
	g.end = secs > 0 ? rte_get_tsc_cycles() + (uint64_t)secs * rte_get_tsc_hz() : 0;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, g.dev);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), serve_poll, NULL);
	printf("serving at %s: NFSv3 on rdma %u and tcp %u, MOUNT v1/v3 on tcp/udp %u, NLM v4 on "
	       "tcp/udp %u, NSM on tcp/udp %u, portmapper on tcp/udp %u\n",
	       ip, NFS3_RDMA_PORT, NFS3_PORT, MOUNT_PORT, NLM_PORT, NSM_PORT, ORPC_PMAP_PORT);
	stk_run();
	print_stats();
	rc = 0;
out:
	/* no new connections, then every connection ends and its endpoint is destroyed once the
	 * stack has let go of its regions (serve_poll does that while we poll) */
	if (g.listen)
		roce_cm_destroy_id(g.listen);
	g.listen = NULL;
	for (int k = 0; k < MAX_CONNS; k++)
		if (g.conns[k].id)
			conn_end(k, "server stopping");
	for (int i = 0; i < 1000000 && g.dev; i++) {
		int busy = 0;

		for (int k = 0; k < MAX_CONNS; k++)
			busy += g.conns[k].ep != NULL;
		if (!busy)
			break;
		stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	}
	nfs_pool_destroy(g.pool, nfs3_pool_done);
	g.pool = NULL;
	if (g.tcp_up)
		orpc_tcp_srv_fini(&g.tcp);
	g.tcp_up = false;
	if (g.lock_tcp_up)
		orpc_tcp_srv_fini(&g.lock_tcp);
	g.lock_tcp_up = false;
	app_metrics_close(g.metrics);
	g.metrics = NULL;
	if (g.nlm_up)
		nlm_server_fini(&g.nlm);
	g.nlm_up = false;
	if (g.cm)
		roce_cm_close(g.cm);
	if (g.pd)
		roce_dealloc_pd(g.pd);
	stk_teardown();
	if (g.dev)
		roce_dev_close(g.dev);
	nfs3_server_fini(&g.tcp_nfs);
	orpc_svc_drc_disable(&g.svc);
	orpc_svc_drc_disable(&g.rdma_svc);
	nfs3_server_fini(&g.rdma_nfs);
	nfs_fs_close(g.fs);
	rte_eal_cleanup();
	return rc;
}
