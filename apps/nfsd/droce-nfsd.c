/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-nfsd - the NFS server: NFSv3, and NFSv4.1/4.2 with [nfs] versions = 3,4.1, over
 * RPC-over-RDMA (port 20049, droce's RoCE stack and CM; [dcqcn] for its QPs) and over TCP (2049), MOUNT v1/v3 over TCP and UDP (20048), NLM v4 (locks, 4045) and NSM
 * (status, 4046) over TCP and UDP, and droce's portmapper on 111 listing them. TCP and UDP
 * use the kernel's sockets bound to droce's address: they reach the wire through droce's
 * exception TAP, so every service speaks from one address.
 *
 * Usage: droce-nfsd [EAL args --] --config FILE [--exports FILE] [--state DIR] [--grace S]
 *                   [--threads N] [--seconds N] [--metrics IP:PORT]
 *        droce-nfsd --listen IP [--config FILE] [--exports FILE] [...]
 *        droce-nfsd --check [--config FILE] [--exports FILE] [--listen IP]
 *   --config   the INI file (docs/config.md): the stack's sections, [nfs], and the exports as
 *              [export NAME] sections or "exports = FILE"
 *   --check    read and judge the configuration and the exports, and exit: 0 when right, 2
 *              with a message naming what is wrong; nothing is started or written
 *   --listen   no RoCE stack: serve NFSv3, MOUNT and the portmapper over the kernel's TCP and
 *              UDP at IP only (for tests in a namespace and user-space clients); only [nfs]
 *              and [export NAME] are read from --config
 *   --exports  exports(5) text (nfs/fs/nfs_fs.h says what is accepted); wins over the config
 *   --state, --grace, --threads, --metrics   as [nfs] state, grace, threads and metrics,
 *              and win over them
 *   --metrics  IP:PORT: serve Prometheus metrics at http://IP:PORT/metrics (a kernel TCP
 *              socket polled from the loop; off by default; droce-nfsstat reads them;
 *              docs/observability.md lists them)
 * Prints "serving ..." when ready, and its counters when it stops.
 * Signals: SIGHUP reloads the exports (from the same place) without dropping anyone;
 * SIGTERM/SIGINT drain: no new connections, the calls in flight are answered (for at most
 * [nfs] drain seconds), the exported file systems are synced, then it exits; a second
 * SIGTERM/SIGINT cuts the drain short. Everything is polled from the main lcore's loop, but the
 * RDMA connections of further lanes ([nfs] lcores, nfsd_lane.h). Its state is nfsd_server.h's;
 * what it reports (counters, telemetry, /metrics) is nfsd_report.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "app_metrics.h"
#include "mount_xdr.h"
#include "nfs3_svc.h"
#include "nfs4_svc.h"
#include "nfs_aio.h"
#include "nfs_fs.h"
#include "nfs_pool.h"
#include "nfsd_conf.h"
#include "nfsd_lane.h"
#include "nfsd_log.h"
#include "nfsd_metrics.h"
#include "nfsd_tel.h"
#include "nlm_svc.h"
#include "orpc_bc.h"
#include "orpc_pmap.h"
#include "orpc_tcp.h"
#include "roce_cm.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#include "nfsd_server.h"

#define NFSD_ST_NAME_(n) #n,
static const char *const nfsd_state_names[] = {NFSD_STATE_LIST(NFSD_ST_NAME_)};

#define SETTLE_NS 200000000ull /* after the last call: time for its reply to leave */

struct nfsd_server nfsd;

static volatile sig_atomic_t stop, hup;

/* A second SIGTERM/SIGINT this soon after the first is timeout(1)'s copy of it (to the process
 * group), not an operator's second signal */
#define SIGNAL_COPY_NS 500000000ull

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup = 1;
	else
		stop++;
}

uint64_t nfsd_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void set_state(enum nfsd_state s)
{
	if (nfsd.state != s) {
		nfsd.state_cnt[s]++;
		printf("state: %s -> %s\n", nfsd_state_names[nfsd.state], nfsd_state_names[s]);
	}
	nfsd.state = s;
}

/* The lane a new connection goes to: placement = client hashes the client's address, so that
 * every connection of one client (and its retransmissions after a reconnect, which its lane's
 * DRC must see) lands on one lane; round_robin spreads one client's connections too. */
static unsigned pick_lane(const struct stk_ipaddr *peer)
{
	uint32_t h = 2166136261u;

	if (nfsd.nlanes <= 1)
		return 0;
	if (nfsd.conf.place_rr)
		return nfsd.place_next++ % nfsd.nlanes;
	for (size_t i = 0; i < sizeof(*peer); i++)
		h = (h ^ ((const uint8_t *)peer)[i]) * 16777619u;
	return h % nfsd.nlanes;
}

/* "endpoint failed", with the completion that failed it when one did (@info: the endpoint's) */
static const char *fail_why(const struct rpcrdma_ep_info *info, char *buf, size_t len)
{
	char what[64];

	if (!rpcrdma_ep_fail_str(info, what, sizeof(what)))
		return "endpoint failed";
	snprintf(buf, len, "endpoint failed: %s", what);
	return buf;
}

/* A connection is over: its CM id goes now (why NULL: it never got going, nothing is logged),
 * its endpoint once the stack has let go of its regions: here (serve_poll), or on its lane,
 * which is told to (END) and lets go of it (RELEASED) for this lcore to destroy. */
static void conn_end(uint32_t k, const char *why)
{
	if (nfsd.conns[k].id)
		roce_cm_destroy_id(nfsd.conns[k].id);
	nfsd.conns[k].id = NULL;
	nfsd.conns[k].closing = true;
	if (nfsd.conns[k].lane && nfsd.lanes_run && !nfsd.conns[k].lane_ended &&
	    nfsd_lane_send(&nfsd.lanes[nfsd.conns[k].lane], NFSD_LANE_END, k, nfsd.conns[k].ep) ==
		    0)
		nfsd.conns[k].lane_ended = true;
	if (!why)
		return;
	nfsd.closed++;
	nfsd_log_rl(&nfsd.conn_rl, NFSD_LOG_INFO, "rdma: connection %u closed (%s)", k, why);
}

static void on_connect_request(const struct roce_cm_event *ev)
{
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_conn_param p = {0};
	struct rpcrdma_ep_conf conf = {.credits = nfsd.conf.credits,
				       .inline_max = nfsd.conf.inline_max,
				       .max_chunk = nfsd.conf.max_io + 8192,
				       .server_calls = nfsd.conf.conn_calls,
				       .regions = nfsd.regions};
	unsigned lane = pick_lane(&ev->id->remote_ip);
	uint32_t k;

	if (lane) { /* its QP and CQ live on that lane's lcore, its calls go to its server */
		conf.on_lcore = true;
		conf.lcore = nfsd.lanes[lane].lcore;
	}
	for (k = 0; k < nfsd.conf.connections && (nfsd.conns[k].id || nfsd.conns[k].ep); k++)
		;
	if (k == nfsd.conf.connections || nfsd.state != NFSD_SERVING ||
	    !(nfsd.conns[k].ep =
		      rpcrdma_ep_create(nfsd.dev, nfsd.pd, RPCRDMA_SERVER, &conf,
					lane ? &nfsd.lanes[lane].svc : &nfsd.rdma_svc))) {
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		nfsd.rejected++;
		nfsd_log_rl(&nfsd.conn_rl, NFSD_LOG_WARN, "rdma: connection refused (%s)",
			    nfsd.state != NFSD_SERVING	 ? "draining"
			    : k == nfsd.conf.connections ? "[nfs] connections are all in use"
							 : "no memory for its endpoint");
		return;
	}
	nfsd.conns[k].id = ev->id;
	nfsd.conns[k].lane = (uint8_t)lane;
	rpcrdma_ep_set_peer(nfsd.conns[k].ep, &ev->id->remote_ip, ev->id->remote_port);
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(nfsd.conns[k].ep, priv);
	if (roce_cm_accept(ev->id, rpcrdma_ep_qp(nfsd.conns[k].ep), &p) != 0 ||
	    rpcrdma_ep_start(nfsd.conns[k].ep, ev->private_data, ev->private_data_len) != 0) {
		conn_end(k, NULL);
		nfsd.rejected++;
		return;
	}
	nfsd.accepted++;
	nfsd.lane_accepted[lane]++;
	nfsd_log_rl(&nfsd.conn_rl, NFSD_LOG_INFO,
		    "rdma: connection %u accepted (lane %u, lcore %u)", k, lane,
		    lane ? nfsd.lanes[lane].lcore : rte_lcore_id());
}

static void on_cm_event(const struct roce_cm_event *ev)
{
	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		on_connect_request(ev);
		break;
	case ROCE_CM_EVENT_ESTABLISHED:
		/* the QP is at RTS and has moved to its home lane: that lane serves it from now
		 * on */
		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
			if (nfsd.conns[k].id != ev->id || !nfsd.conns[k].id ||
			    !nfsd.conns[k].lane || nfsd.conns[k].adopted || nfsd.conns[k].closing)
				continue;
			if (nfsd_lane_send(&nfsd.lanes[nfsd.conns[k].lane], NFSD_LANE_ADOPT, k,
					   nfsd.conns[k].ep) == 0)
				nfsd.conns[k].adopted = true;
		}
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
	case ROCE_CM_EVENT_REJECTED:	/* the peer gave up on an accepted connection (REJ) */
	case ROCE_CM_EVENT_UNREACHABLE: /* our REP went unanswered */
		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
			if (!nfsd.conns[k].id || nfsd.conns[k].id != ev->id)
				continue;
			conn_end(k, roce_cm_event_str(ev->event));
		}
		break;
	default:
		break;
	}
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

/* ---- the exports: where they come from, and SIGHUP ---- */

/* The exports text in force: --exports FILE, else [nfs] exports = FILE, else the config's
 * [export NAME] sections. reread: read the config file again (a reload picks up edits to it).
 * @return malloc'd text, or NULL with err */
static char *exports_text(bool reread, char *err, size_t errlen)
{
	struct nfsd_conf fresh, *c = &nfsd.conf;
	const char *file = nfsd.exports;
	char *text = NULL;

	if (!file && reread && nfsd.config) {
		nfsd_conf_default(&fresh);
		if (nfsd_conf_load(nfsd.config, &fresh, err, errlen) != 0) {
			nfsd_conf_free(&fresh);
			return NULL;
		}
		c = &fresh;
	}
	if (!file && c->exports_file[0])
		file = c->exports_file;
	if (file) {
		text = read_file(file);
		if (!text)
			snprintf(err, errlen, "cannot read the exports file %s: %s", file,
				 strerror(errno ? errno : EIO));
	} else if (c->exports_text) {
		text = strdup(c->exports_text);
		if (!text)
			snprintf(err, errlen, "out of memory");
	} else {
		snprintf(err, errlen,
			 "no exports: give --exports FILE, or in --config [nfs] exports = FILE or "
			 "[export NAME] sections (docs/config.md)");
	}
	if (c == &fresh)
		nfsd_conf_free(&fresh);
	return text;
}

/* where the exports come from, for messages */
static const char *exports_from(void)
{
	static char what[600];

	if (nfsd.exports)
		return nfsd.exports;
	if (nfsd.conf.exports_file[0])
		return nfsd.conf.exports_file;
	snprintf(what, sizeof(what), "%s [export] sections", nfsd.config ? nfsd.config : "?");
	return what;
}

/* An export asking subtree_check gets a warning: droce does not enforce it (docs/nfs.md) */
static void warn_subtree_check(const struct nfs_export *ex, int n)
{
	for (int i = 0; i < n; i++)
		for (uint32_t k = 0; k < ex[i].nclients; k++)
			if (ex[i].clients[k].opts.subtree_check) {
				nfsd_log(
					NFSD_LOG_WARN,
					"%s: export %s: subtree_check is not enforced: handles are "
					"sealed to their export and directories checked to be inside "
					"it, but a file renamed out of it stays reachable by a handle "
					"given before (docs/nfs.md); say no_subtree_check to silence "
					"this",
					exports_from(), ex[i].path);
				break;
			}
}

static void warn_exports(const char *text)
{
	static struct nfs_export ex[NFS_EXPORT_MAX];
	char err[256];
	int n = nfs_exports_parse(text, ex, NFS_EXPORT_MAX, err, sizeof(err));

	if (n > 0)
		warn_subtree_check(ex, n);
}

static void *reload_main(void *arg)
{
	char *text = exports_text(true, nfsd.reload_err, sizeof(nfsd.reload_err));

	(void)arg;
	nfsd.reload_next = NULL;
	nfsd.reload_rc = text ? nfs_fs_reload_prepare(nfsd.fs, text, &nfsd.reload_next,
						      nfsd.reload_err, sizeof(nfsd.reload_err))
			      : -EINVAL;
	if (nfsd.reload_rc == 0)
		warn_exports(text);
	free(text);
	atomic_store(&nfsd.reload_phase, RELOAD_READY);
	return NULL;
}

/* Calls with the helper threads: the main lcore's pool's now, and each other lane's as its last
 * poll ended (for the drain's messages; calls_in_flight() decides) */
static uint32_t pooled_calls(void)
{
	uint32_t n = nfsd.pool ? nfs_pool_inflight(nfsd.pool) : 0;

	for (unsigned i = 1; nfsd.lanes_run && i < nfsd.nlanes; i++)
		n += atomic_load_explicit(&nfsd.lanes[i].pool_inflight, memory_order_relaxed);
	return n;
}

/* Calls still running: jobs with the helper threads, or RDMA calls not yet answered to the
 * end (their reply SEND not completed). The lcore's own calls end within its poll. No call
 * that began before a reload's swap can hold the old table once this is false. */
static bool calls_in_flight(void)
{
	if (nfsd.pool && nfs_pool_inflight(nfsd.pool) > 0)
		return true;
	if (nfsd.aio && nfs_aio_inflight(nfsd.aio) > 0)
		return true;
	if (nfsd.v4 && nfs4_server_busy(nfsd.v4))
		return true; /* a stable records write, or a reply held for it */
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (nfsd.conns[k].ep && !nfsd.conns[k].closing && !nfsd.conns[k].lane &&
		    rpcrdma_ep_busy(nfsd.conns[k].ep))
			return true;
	/* the other lanes: busy as their last poll ended; while draining, a lane that has not
	 * applied the QUIESCE yet may still start calls */
	for (unsigned i = 1; nfsd.lanes_run && i < nfsd.nlanes; i++)
		if (atomic_load_explicit(&nfsd.lanes[i].busy, memory_order_acquire) ||
		    (nfsd.state != NFSD_SERVING && !nfsd.lane_quiesced[i]))
			return true;
	return false;
}

/* Has every other lane ended a poll with nothing in flight since the last exports swap? Then
 * none of its calls holds the table the swap replaced. */
static bool lanes_past_swap(void)
{
	for (unsigned i = 1; nfsd.lanes_run && i < nfsd.nlanes; i++)
		if (atomic_load_explicit(&nfsd.lanes[i].quiet_seq, memory_order_acquire) ==
		    nfsd.reclaim_seq[i])
			return false;
	return true;
}

/* SIGHUP: build the new table off the lcore, swap it in here, free the old one once no call
 * holds it. Clients stay connected; from the swap on they are judged by the new exports. */
static void reload_poll(void)
{
	struct nfs_reload_stats rs;

	/* the drain's sync thread walks the export table: no swap, no reclaim under it */
	if (atomic_load(&nfsd.sync_phase) == 1)
		return;

	if (hup && nfsd.state == NFSD_SERVING && atomic_load(&nfsd.reload_phase) == RELOAD_IDLE) {
		hup = 0;
		atomic_store(&nfsd.reload_phase, RELOAD_BUILDING);
		if (pthread_create(&nfsd.reload_thread, NULL, reload_main, NULL) != 0) {
			atomic_store(&nfsd.reload_phase, RELOAD_IDLE);
			nfsd.reload_failures++;
			nfsd_log(NFSD_LOG_ERR,
				 "exports not reloaded: no thread to read them (%s); the running "
				 "exports stay",
				 strerror(errno));
		}
	}
	if (atomic_load(&nfsd.reload_phase) == RELOAD_READY) {
		pthread_join(nfsd.reload_thread, NULL);
		atomic_store(&nfsd.reload_phase, RELOAD_IDLE);
		if (nfsd.reload_rc == 0) {
			nfs_fs_reload_commit(nfsd.fs, nfsd.reload_next, &rs);
			/* seq_cst against the swap's store (a store then a load: the lanes'
			 * bumps read here must come after the swap; nfsd_lane.h) */
			atomic_thread_fence(memory_order_seq_cst);
			for (unsigned i = 1; i < nfsd.nlanes; i++)
				nfsd.reclaim_seq[i] = atomic_load_explicit(&nfsd.lanes[i].quiet_seq,
									   memory_order_seq_cst);
			nfsd.reloads++;
			nfsd_log(NFSD_LOG_INFO,
				 "exports reloaded: %u export(s): %u added, %u removed, %u kept",
				 rs.exports, rs.added, rs.removed, rs.kept);
		} else {
			nfsd.reload_failures++;
			nfsd_log(NFSD_LOG_ERR, "exports not reloaded: %s; the running exports stay",
				 nfsd.reload_err);
		}
		nfsd.reload_next = NULL;
	}
	if (!calls_in_flight() && lanes_past_swap())
		nfs_fs_reclaim(nfsd.fs);
}

/* a reload still building when the server stops: wait for it and drop its table */
static void reload_fini(void)
{
	if (atomic_load(&nfsd.reload_phase) != RELOAD_IDLE) {
		pthread_join(nfsd.reload_thread, NULL);
		nfs_fs_reload_abort(nfsd.reload_next);
		nfsd.reload_next = NULL;
		atomic_store(&nfsd.reload_phase, RELOAD_IDLE);
	}
}

/* ---- SIGTERM: the drain ---- */

static void quiesce_all(void)
{
	if (nfsd.listen)
		roce_cm_destroy_id(nfsd.listen);
	nfsd.listen = NULL;
	if (nfsd.tcp_up)
		orpc_tcp_srv_quiesce(&nfsd.tcp);
	if (nfsd.lock_tcp_up)
		orpc_tcp_srv_quiesce(&nfsd.lock_tcp);
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (nfsd.conns[k].ep && !nfsd.conns[k].closing && !nfsd.conns[k].lane)
			rpcrdma_ep_quiesce(nfsd.conns[k].ep);
	/* the other lanes quiesce theirs (and those they adopt from now on) and say so; a
	 * connection not adopted yet starts no call before its lane has it */
	for (unsigned i = 1; nfsd.lanes_run && i < nfsd.nlanes; i++)
		if (nfsd_lane_send(&nfsd.lanes[i], NFSD_LANE_QUIESCE, 0, NULL) != 0)
			nfsd.lane_quiesced[i] = true; /* cannot happen (nfsd_lane.h) */
}

/* The drain's sync, off the lcore: syncfs of every exported file system waits for writeback. */
static void *sync_main(void *arg)
{
	(void)arg;
	nfsd.sync_rc = nfs_fs_sync(nfsd.fs, &nfsd.synced);
	atomic_store(&nfsd.sync_phase, 2);
	return NULL;
}

/* One step of the server's life (STYLE §4); the loops call it every round. @return true when
 * the loop should end */
static bool life_step(bool time_up)
{
	uint64_t now = nfsd_now_ns();
	int rc;

	switch (nfsd.state) {
	case NFSD_SERVING:
		if (!stop && !time_up)
			return false;
		quiesce_all();
		/* one signal so far: a copy of the first (timeout(1) sends its TERM to the child
		 * and again to its process group) must not read as a second one */
		stop = 1;
		nfsd.drain_start_ns = now;
		nfsd.drain_end_ns = now + (uint64_t)nfsd.conf.drain_s * 1000000000ull;
		printf("draining: no new connections; %u call(s) with the helper threads, at most "
		       "%u s\n",
		       pooled_calls(), nfsd.conf.drain_s);
		set_state(NFSD_DRAINING);
		return false;
	case NFSD_DRAINING:
		/* the copy can also come after this loop saw the first and began the drain (the
		 * kernel delivers the two kill()s microseconds apart): one within SIGNAL_COPY_NS of
		 * the first is that copy, not an operator's second signal */
		if (stop > 1 && now - nfsd.drain_start_ns < SIGNAL_COPY_NS)
			stop = 1;
		if (stop > 1 || now >= nfsd.drain_end_ns) {
			nfsd.drain_cut = true;
			printf("drain cut short (%s) with %u call(s) in flight\n",
			       stop > 1 ? "a second signal" : "its bound passed", pooled_calls());
			set_state(NFSD_SYNCING);
		} else if (!calls_in_flight()) {
			nfsd.settle_end_ns = now + SETTLE_NS;
			set_state(NFSD_SETTLING);
		}
		return false;
	case NFSD_SETTLING:
		if (stop > 1 && now - nfsd.drain_start_ns < SIGNAL_COPY_NS)
			stop = 1; /* timeout(1)'s copy, as above */
		if (calls_in_flight())
			set_state(NFSD_DRAINING); /* a call that was queued in a connection */
		else if (now >= nfsd.settle_end_ns || stop > 1)
			set_state(NFSD_SYNCING);
		return false;
	case NFSD_SYNCING:
		/* the lcore keeps polling while a thread syncs (its connections stay served);
		 * with no thread to be had, the sync runs here */
		if (atomic_load(&nfsd.sync_phase) == 0) {
			atomic_store(&nfsd.sync_phase, 1);
			nfsd.sync_threaded =
				pthread_create(&nfsd.sync_thread, NULL, sync_main, NULL) == 0;
			if (!nfsd.sync_threaded)
				sync_main(NULL);
		}
		if (atomic_load(&nfsd.sync_phase) != 2)
			return false;
		if (nfsd.sync_threaded)
			pthread_join(nfsd.sync_thread, NULL);
		nfsd.sync_threaded = false;
		rc = nfsd.sync_rc;
		printf("drained: %s; synced %u file system(s)%s%s\n",
		       nfsd.drain_cut ? "calls were still in flight" : "every call answered",
		       nfsd.synced, rc ? ", one failed: " : "", rc ? strerror(-rc) : "");
		set_state(NFSD_STOPPED);
		return true;
	case NFSD_STOPPED:
	case NFSD_NUM_STATES:
		break;
	}
	return true;
}

/* The other lanes' messages: a failed endpoint is disconnected here (the CM is here), a
 * destroyed one frees its slot. @return messages handled */
static unsigned lanes_poll(void)
{
	struct nfsd_lane_msg m;
	unsigned n = 0;

	for (unsigned i = 1; i < nfsd.nlanes; i++) {
		if (!nfsd.lanes[i].to_main) /* its start failed part way */
			continue;
		while (nfsd_lane_recv(&nfsd.lanes[i], &m)) {
			n++;
			if (m.op == NFSD_LANE_QUIESCED) {
				nfsd.lane_quiesced[i] = true;
				continue;
			}
			if (m.k >= NFSD_CONNS_MAX || nfsd.conns[m.k].lane != i)
				continue;
			if (m.op == NFSD_LANE_FAILED && nfsd.conns[m.k].id) {
				/* the lane still polls its endpoint: what failed it came in the
				 * message */
				struct rpcrdma_ep_info info = {.fail_status = m.fail_status,
							       .fail_wr = m.fail_wr};
				char why[96];

				roce_cm_disconnect(nfsd.conns[m.k].id);
				conn_end(m.k, fail_why(&info, why, sizeof(why)));
			} else if (m.op == NFSD_LANE_RELEASED) {
				nfsd.conns[m.k].released = true; /* serve_poll destroys it */
			}
		}
	}
	return n;
}

static void serve_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	unsigned work = 0;

	(void)arg;
	/* each part a step of its own (stk_lcore_step): a stall is counted under its name */
	if (nfsd.pool) {
		stk_lcore_step(lc, "nfsd: helper replies");
		work += nfs_pool_poll(nfsd.pool, nfs3_pool_done, 64);
	}
	if (nfsd.v4) { /* NFSv4's stable records: writes ended, replies held for them */
		stk_lcore_step(lc, "nfsd: v4 records");
		work += nfs4_server_poll(nfsd.v4);
	}
	stk_lcore_step(lc, "nfsd: cm events");
	while (roce_cm_get_event(nfsd.cm, &ev) == 0) {
		on_cm_event(&ev);
		work++;
	}
	stk_lcore_step(lc, "nfsd: lane messages");
	work += lanes_poll();
	stk_lcore_step(lc, "nfsd: rdma connections");
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
		struct rpcrdma_ep_info info;

		/* another lane's, while the lanes run and until it let go: that lane serves it */
		if (nfsd.conns[k].lane && nfsd.lanes_run && !nfsd.conns[k].released)
			continue;
		if (nfsd.conns[k].closing && rpcrdma_ep_destroy(nfsd.conns[k].ep) == 0) {
			memset(&nfsd.conns[k], 0, sizeof(nfsd.conns[k]));
			continue;
		}
		if (!nfsd.conns[k].ep || nfsd.conns[k].closing)
			continue;
		work += (unsigned)rpcrdma_ep_poll(nfsd.conns[k].ep);
		/* an RDMA error or a flush ends the connection: the client reconnects */
		rpcrdma_ep_info(nfsd.conns[k].ep, &info);
		if (info.failed && nfsd.conns[k].id) {
			char why[96];

			roce_cm_disconnect(nfsd.conns[k].id);
			conn_end(k, fail_why(&info, why, sizeof(why)));
		}
	}
	if (nfsd.tcp_up) {
		stk_lcore_step(lc, "nfsd: tcp");
		work += (unsigned)orpc_tcp_srv_poll(&nfsd.tcp);
	}
	/* after the servers: the READs and WRITEs they started are submitted in this pass */
	if (nfsd.aio) {
		stk_lcore_step(lc, "nfsd: io_uring");
		work += nfs_aio_poll(nfsd.aio, nfs3_aio_done, 64);
	}
	stk_lcore_step(lc, "nfsd: locks");
	if (nfsd.lock_tcp_up)
		work += (unsigned)orpc_tcp_srv_poll(&nfsd.lock_tcp);
	if (nfsd.nlm_up) /* callbacks in flight, on sockets of their own */
		work += nlm_server_poll(&nfsd.nlm);
	if (nfsd.metrics) { /* a scrape being answered keeps the lcore awake too */
		stk_lcore_step(lc, "nfsd: metrics");
		work += app_metrics_poll(nfsd.metrics);
	}
	stk_lcore_step(lc, "nfsd: clients, reload");
	/* a call with the helpers: stay awake for its end (the idle back-off, [stack]) */
	work += calls_in_flight() || atomic_load(&nfsd.reload_phase) != RELOAD_IDLE;
	stk_lcore_work(lc, work);
	nfsd_clients_snapshot();
	reload_poll();
	/* the drain's last state syncs the file systems here, once, as the server stops */
	stk_lcore_step(lc, "nfsd: life (drain, sync)");
	if (life_step(nfsd.end && rte_get_tsc_cycles() > nfsd.end))
		stk_stop();
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
	int rc = orpc_tcp_srv_init(&nfsd.tcp, &nfsd.svc, 0);

	nfsd.tcp_up = rc == 0;

	for (size_t i = 0; !rc && i < sizeof(socks) / sizeof(socks[0]); i++) {
		rc = orpc_tcp_srv_listen(&nfsd.tcp, ip, socks[i].port, socks[i].udp, NULL);
		if (rc)
			fprintf(stderr, "droce-nfsd: cannot bind %s %s port %u: %s\n", ip,
				socks[i].udp ? "udp" : "tcp", socks[i].port, strerror(-rc));
	}
	if (rc)
		return rc;
	/* NLM and NSM on their fixed ports, served by the lock server's own svc */
	rc = orpc_tcp_srv_init(&nfsd.lock_tcp, &nfsd.lock_svc, 0);
	nfsd.lock_tcp_up = rc == 0;
	for (int i = 0; !rc && i < 4; i++) {
		uint16_t port = i < 2 ? NLM_PORT : NSM_PORT;

		rc = orpc_tcp_srv_listen(&nfsd.lock_tcp, ip, port, i & 1, NULL);
		if (rc)
			fprintf(stderr, "droce-nfsd: cannot bind %s %s port %u: %s\n", ip,
				i & 1 ? "udp" : "tcp", port, strerror(-rc));
	}
	return rc;
}

/* the lock server: grace period, NSM state, SM_NOTIFY to the hosts that held locks */
static int lock_init(const char *ip)
{
	struct nlm_conf c = {.grace_s = nfsd.conf.grace_s, .my_name = ip, .cb_timeout_ms = 3000};
	char err[256];
	int rc = nlm_server_init(&nfsd.nlm, nfsd.fs, &c, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "droce-nfsd: the lock manager did not start: %s\n", err);
		return rc;
	}
	nfsd.nlm_up = true;
	if (nfsd.v4)
		nfs4_server_set_lock_mgr(nfsd.v4, &nfsd.nlm.mgr);
	nfsd.lock_svc.ctx = &nfsd.nlm;
	orpc_svc_add(&nfsd.lock_svc, &nlm_program);
	orpc_svc_add(&nfsd.lock_svc, &nsm_program);
	printf("locks: NSM state %d, %u monitored host(s) notified, grace %u s\n",
	       nfsd.nlm.nsm_state, nfsd.nlm.nhosts, nfsd.conf.grace_s);
	return 0;
}

static void register_all(const char *ip, bool rdma)
{
	orpc_pmap_attach(&nfsd.pm);
	for (uint32_t v = 2; v <= 4; v++) {
		orpc_pmap_register(&nfsd.pm, ORPC_PMAP_PROG, v, "tcp", ip, ORPC_PMAP_PORT);
		orpc_pmap_register(&nfsd.pm, ORPC_PMAP_PROG, v, "udp", ip, ORPC_PMAP_PORT);
	}
	/* NFSv4 (4.1 and 4.2) beside v3 when served, on the same ports */
	for (uint32_t v = 3; v <= (nfsd.v4 ? 4u : 3u); v++) {
		orpc_pmap_register(&nfsd.pm, NFS3_PROG, v, "tcp", ip, NFS3_PORT);
		if (rdma)
			orpc_pmap_register(&nfsd.pm, NFS3_PROG, v, "rdma", ip, NFS3_RDMA_PORT);
	}
	for (uint32_t v = 1; v <= 3; v += 2) {
		orpc_pmap_register(&nfsd.pm, MOUNT_PROG, v, "tcp", ip, MOUNT_PORT);
		orpc_pmap_register(&nfsd.pm, MOUNT_PROG, v, "udp", ip, MOUNT_PORT);
	}
	orpc_pmap_register(&nfsd.pm, NLM_PROG, NLM_VERS4, "tcp", ip, NLM_PORT);
	orpc_pmap_register(&nfsd.pm, NLM_PROG, NLM_VERS4, "udp", ip, NLM_PORT);
	orpc_pmap_register(&nfsd.pm, NSM_PROG, NSM_VERS, "tcp", ip, NSM_PORT);
	orpc_pmap_register(&nfsd.pm, NSM_PROG, NSM_VERS, "udp", ip, NSM_PORT);
}

/* The helper threads, shared by the servers of every transport. */
static int start_pool(void)
{
	if (!nfsd.conf.threads)
		return 0;
	nfsd.pool = nfs_pool_create("nfsd", nfsd.conf.threads, nfs3_pool_work);
	if (!nfsd.pool) {
		fprintf(stderr, "droce-nfsd: cannot start %u helper threads: %s\n",
			nfsd.conf.threads, strerror(errno));
		return -1;
	}
	nfsd.tcp_nfs.pool = nfsd.pool;
	nfsd.rdma_nfs.pool = nfsd.pool;
	return 0;
}

/* io_uring for READ and WRITE data, shared by the servers of every transport. Without it
 * (a kernel or a seccomp policy that refuses io_uring) the helper threads do everything. */
static void start_aio(void)
{
	if (!nfsd.conf.uring_depth)
		return;
	nfsd.aio = nfs_aio_create(nfsd.fs, nfsd.conf.uring_depth);
	if (!nfsd.aio) {
		printf("io_uring unavailable (%s): READ and WRITE go to the helper threads\n",
		       strerror(errno));
		return;
	}
	nfsd.tcp_nfs.aio = nfsd.aio;
	nfsd.rdma_nfs.aio = nfsd.aio;
}

/* [nfs] lcores = N: the device runs on the main lcore and the next N - 1 EAL lcores, each a
 * lane with its own NFSv3 server for the RDMA connections placed there (nfsd_lane.h). Before
 * the CM opens (a device with QPs keeps its lanes). @return 0 or -1 (said why) */
static int start_lanes(void)
{
	unsigned lcores[NFSD_LANES_MAX], n = 0, lc;
	char err[256];
	int rc;

	nfsd.nlanes = 1;
	if (nfsd.conf.lcores <= 1)
		return 0;
	if (nfsd.conf.lcores > rte_lcore_count()) {
		fprintf(stderr,
			"droce-nfsd: [nfs] lcores = %u but the EAL runs %u lcore(s): list at least "
			"%u in [eal] lcores (or -l), or lower [nfs] lcores\n",
			nfsd.conf.lcores, rte_lcore_count(), nfsd.conf.lcores);
		return -1;
	}
	lcores[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER (lc) {
		if (n < nfsd.conf.lcores)
			lcores[n++] = lc;
	}
	rc = roce_dev_set_lcores(nfsd.dev, lcores, n);
	if (rc != 0) {
		fprintf(stderr, "droce-nfsd: cannot run the RoCE device on %u lcores: %s\n", n,
			strerror(-rc));
		return -1;
	}
	for (unsigned i = 1; i < n; i++) {
		if (nfsd_lane_init(&nfsd.lanes[i], i, lcores[i], nfsd.fs, &nfsd.conf, &nfs3_program,
				   err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			nfsd.nlanes = i + 1; /* what was made is freed */
			return -1;
		}
		nfsd.nlanes = i + 1;
	}
	printf("lanes: RPC-over-RDMA connections served on %u lcores (", n);
	for (unsigned i = 0; i < n; i++)
		printf("%s%u", i ? " " : "", lcores[i]);
	printf("), placed by %s\n", nfsd.conf.place_rr ? "round robin" : "the client's address");
	return 0;
}

/* the NFS versions program 100003 answers, for the "serving" line */
static const char *nfs_versions_served(void)
{
	return nfsd.conf.v41 ? "NFSv3, NFSv4.1 and 4.2" : "NFSv3";
}

/* --listen: the kernel's sockets only, waiting in epoll (nothing else to poll) */
/* Program 100003 as configured: version 3 alone (PROG_MISMATCH 3..3 for v4, so a Linux
 * mount without vers= falls back to v3), or versions 3 and 4 with the NFSv4.1 server given to
 * the NFS servers' contexts. Call after nfs3_server_init. NULL: out of memory. */
static const struct orpc_program *nfs_program(void)
{
	struct nfs4_server_conf c;

	if (!nfsd.conf.v41)
		return &nfs3_program;
	if (!nfsd.v4) {
		nfs4_server_conf_default(&c);
		c.state.lease_s = nfsd.conf.v4_lease_s;
		c.state.slots = nfsd.conf.v4_slots;
		c.max_io = nfsd.conf.max_io;
		/* the clients of the records in --state reclaim for [nfs] grace after a start */
		c.grace_s = nfsd.conf.grace_s;
		snprintf(c.domain, sizeof(c.domain), "%s", nfsd.conf.v4_domain);
		nfsd.v4 = nfs4_server_create(nfsd.fs, &c);
		if (!nfsd.v4)
			return NULL;
		/* one lock manager: NLM's locks and NFSv4's conflict (and share its grace) */
		if (nfsd.nlm_up)
			nfs4_server_set_lock_mgr(nfsd.v4, &nfsd.nlm.mgr);
		nfs4_program_v3_v4(&nfsd.nfs_prog, nfsd.nfs_vers);
	}
	nfsd.tcp_nfs.v4 = nfsd.v4;
	nfsd.rdma_nfs.v4 = nfsd.v4;
	return &nfsd.nfs_prog;
}

static int serve_tcp_only(long secs)
{
	time_t end = secs > 0 ? time(NULL) + secs : 0;
	struct epoll_event ev;
	int rc = 1, wait_fd = -1;
	uint32_t cb_active = 0;
	bool served = false;

	if (nfs3_server_init(&nfsd.tcp_nfs, nfsd.fs, nfsd.conf.max_io) != 0 || start_pool() != 0)
		goto out;
	start_aio();
	nfsd.svc.ctx = &nfsd.tcp_nfs;
	orpc_bc_table_init(&nfsd.bc);
	nfsd.svc.bc = &nfsd.bc;
	if (orpc_svc_drc_enable_n(&nfsd.svc, nfsd.conf.drc_entries) != 0 || !nfs_program())
		goto out;
	orpc_svc_add(&nfsd.svc, &orpc_pmap_program);
	orpc_svc_add(&nfsd.svc, nfs_program());
	orpc_svc_add(&nfsd.svc, &mount_program);
	register_all(nfsd.listen_ip, false);
	if (lock_init(nfsd.listen_ip) != 0 || listen_all(nfsd.listen_ip) != 0 ||
	    nfsd_metrics_start() != 0)
		goto out;
	printf("serving at %s: %s on tcp %u, MOUNT v1/v3 on tcp/udp %u, NLM v4 on tcp/udp %u, "
	       "NSM on tcp/udp %u, portmapper on tcp/udp %u\n",
	       nfsd.listen_ip, nfs_versions_served(), NFS3_PORT, MOUNT_PORT, NLM_PORT, NSM_PORT,
	       ORPC_PMAP_PORT);
	/* sleep until a socket or a helper thread has something */
	wait_fd = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfsd.tcp.ep, &ev);
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfsd.lock_tcp.ep, &ev);
	if (nfsd.pool)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs_pool_event_fd(nfsd.pool), &ev);
	if (nfsd.aio && nfs_aio_event_fd(nfsd.aio) >= 0)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs_aio_event_fd(nfsd.aio), &ev);
	if (nfsd.metrics)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, app_metrics_fd(nfsd.metrics), &ev);
	if (nfsd.v4 && nfs4_server_event_fd(nfsd.v4) >= 0)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs4_server_event_fd(nfsd.v4), &ev);
	if (nfsd.nlm_up && nlm_server_event_fd(&nfsd.nlm) >= 0)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nlm_server_event_fd(&nfsd.nlm), &ev);
	for (;;) {
		/* callbacks in flight have sockets of their own, outside the epoll set */
		epoll_wait(wait_fd, &ev, 1, cb_active || nfsd.state != NFSD_SERVING ? 10 : 100);
		if (nfsd.pool)
			nfs_pool_poll(nfsd.pool, nfs3_pool_done, 64);
		if (nfsd.v4)
			nfs4_server_poll(nfsd.v4);
		orpc_tcp_srv_poll(&nfsd.tcp);
		if (nfsd.aio)
			nfs_aio_poll(nfsd.aio, nfs3_aio_done, 64);
		orpc_tcp_srv_poll(&nfsd.lock_tcp);
		cb_active = nlm_server_poll(&nfsd.nlm);
		if (nfsd.metrics)
			app_metrics_poll(nfsd.metrics);
		reload_poll();
		if (life_step(end && time(NULL) >= end))
			break;
	}
	served = true; /* the counters are printed once the file work in flight ended */
	rc = 0;
out:
	if (wait_fd >= 0)
		close(wait_fd);
	app_metrics_close(nfsd.metrics);
	nfsd.metrics = NULL;
	reload_fini();
	/* the calls still with io_uring and the helpers end first: their connections wait for
	 * them */
	nfs_aio_destroy(nfsd.aio, nfs3_aio_done);
	nfsd.aio = NULL;
	nfs_pool_destroy(nfsd.pool, nfs3_pool_done);
	nfsd.pool = NULL;
	/* NFSv4's records written and the replies held for them sent, while their connections
	 * are there (after the file work: a compound that waited for it may hold its reply) */
	if (nfsd.v4)
		nfs4_server_flush(nfsd.v4);
	/* NSM's monitor list written, and the lock replies held for it sent */
	if (nfsd.nlm_up)
		nlm_server_flush(&nfsd.nlm);
	if (served)
		nfsd_print_stats();
	if (nfsd.tcp_up)
		orpc_tcp_srv_fini(&nfsd.tcp);
	if (nfsd.lock_tcp_up)
		orpc_tcp_srv_fini(&nfsd.lock_tcp);
	/* NFSv4's clients free their locks in NLM's manager: before it goes */
	nfs4_server_destroy(nfsd.v4);
	nfsd.v4 = NULL;
	if (nfsd.nlm_up)
		nlm_server_fini(&nfsd.nlm);
	nfs3_server_fini(&nfsd.tcp_nfs);
	orpc_svc_drc_disable(&nfsd.svc);
	orpc_svc_drc_disable(&nfsd.rdma_svc);
	nfs_fs_close(nfsd.fs);
	return rc;
}

/* How many lcores an EAL -l list names ("0,1", "0-3", "0-1,4"); 0 when it is something else
 * (the EAL judges it, and droce-nfsd counts again once the EAL runs). */
static unsigned count_lcores(const char *list)
{
	unsigned n = 0;
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return 0;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return 0;
			p = end;
		}
		n += (unsigned)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return n;
}

/* --check: the configuration and the exports are read and judged, nothing is started and
 * nothing is written (not even the state directory). */
static int check_files(void)
{
	static struct nfs_export ex[NFS_EXPORT_MAX];
	struct stk_config cfg;
	char err[1024], *text;
	unsigned nl;
	int n;

	text = exports_text(false, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	n = nfs_exports_parse(text, ex, NFS_EXPORT_MAX, err, sizeof(err));
	free(text);
	if (n < 0) {
		fprintf(stderr, "droce-nfsd: %s: %s\n", exports_from(),
			n == -ENOSPC ? "more exports than droce serves (64)" : err);
		return 2;
	}
	warn_subtree_check(ex, n);
	for (int i = 0; i < n; i++) {
		struct stat st;

		if (stat(ex[i].path, &st) != 0) {
			fprintf(stderr, "droce-nfsd: %s: export %s: %s\n", exports_from(),
				ex[i].path, strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "droce-nfsd: %s: export %s: not a directory\n",
				exports_from(), ex[i].path);
			return 2;
		}
	}
	/* the stack's sections and [dcqcn], unless there is no stack (--listen) */
	if (nfsd.config && !nfsd.listen_ip) {
		struct roce_dcqcn_params cc;
		bool cc_on;

		stk_config_default(&cfg);
		cfg.upper_sections = nfsd_conf_sections;
		if (stk_config_load(nfsd.config, &cfg, err, sizeof(err)) != 0 ||
		    roce_dcqcn_config_load(nfsd.config, &cc_on, &cc, err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			return 2;
		}
		nl = count_lcores(cfg.lcores);
		if (nl > 0 && nfsd.conf.lcores > nl) {
			fprintf(stderr,
				"droce-nfsd: %s: [nfs] lcores = %u but [eal] lcores = %s names %u "
				"lcore%s: list at least %u there, or lower [nfs] lcores\n",
				nfsd.config, nfsd.conf.lcores, cfg.lcores, nl, nl == 1 ? "" : "s",
				nfsd.conf.lcores);
			return 2;
		}
	}
	printf("droce-nfsd: %s: %d export(s) ok%s%s\n", exports_from(), n, nfsd.config ? "; " : "",
	       nfsd.config ? nfsd.config : "");
	return 0;
}

/* The backend's descriptor cache sizes itself from RLIMIT_NOFILE (up to three descriptors per
 * entry, docs/nfs.md): take the hard limit, at most 65536, when the soft one is lower. */
static void raise_nofile(void)
{
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			/* the cache is then smaller, nothing more */
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", 1, NULL, 'c'},  {"exports", 1, NULL, 'e'}, {"state", 1, NULL, 'S'},
		{"seconds", 1, NULL, 's'}, {"listen", 1, NULL, 'l'},  {"grace", 1, NULL, 'g'},
		{"threads", 1, NULL, 't'}, {"check", 0, NULL, 'k'},   {"metrics", 1, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	/* the command line's [nfs] keys, applied after the file so that they win */
	const char *over[4][2] = {
		{"state", NULL}, {"grace", NULL}, {"threads", NULL}, {"metrics", NULL}};
	int eal_argc, app_argc, o, rc = 1;
	bool served = false;
	char **eal_argv, **app_argv, *text;
	struct stk_config cfg;
	struct roce_dcqcn_params cc;
	bool cc_on = false;
	const struct stk_iface *ifc;
	char err[1024], ip[64];
	long secs = 0;
	bool check_only = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* under systemd, every line (ours, the stack's, DPDK's) with its priority for journald */
	if (nfsd_log_journal() < 0)
		fprintf(stderr,
			"droce-nfsd: JOURNAL_STREAM is set but the log streams could not be "
			"made: lines go out without priorities\n");
	nfsd_conf_default(&nfsd.conf);
	nfsd.conn_rl = (struct nfsd_ratelimit){.burst = 20, .interval_s = 10};
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((o = getopt_long(app_argc, app_argv, "", opts, NULL)) != -1) {
		if (o == 'c')
			nfsd.config = optarg;
		else if (o == 'e')
			nfsd.exports = optarg;
		else if (o == 'S')
			over[0][1] = optarg;
		else if (o == 's')
			secs = strtol(optarg, NULL, 0);
		else if (o == 'l')
			nfsd.listen_ip = optarg;
		else if (o == 'g')
			over[1][1] = optarg;
		else if (o == 't')
			over[2][1] = optarg;
		else if (o == 'k')
			check_only = true;
		else if (o == 'm')
			over[3][1] = optarg;
		else
			return 2;
	}
	if (nfsd.config && nfsd_conf_load(nfsd.config, &nfsd.conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	for (int i = 0; i < 4; i++) {
		if (over[i][1] && nfsd_conf_set(&nfsd.conf, "the command line", over[i][0],
						over[i][1], err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			return 2;
		}
	}
	if (check_only) {
		rc = check_files();
		nfsd_conf_free(&nfsd.conf);
		return rc;
	}
	if (!nfsd.config && !nfsd.listen_ip) {
		fprintf(stderr, "usage: droce-nfsd [EAL --] --config FILE [--exports FILE] "
				"[--state DIR] [--grace S] [--threads N] [--seconds N] "
				"[--metrics IP:PORT]\n"
				"       droce-nfsd --listen IP [--config FILE] [--exports FILE] "
				"[--state DIR] [--grace S] [--threads N] [--seconds N] "
				"[--metrics IP:PORT]\n"
				"       droce-nfsd --check [--config FILE] [--exports FILE]\n");
		return 2;
	}
	text = exports_text(false, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	raise_nofile();
	rc = nfs_fs_open(&nfsd.fs, text, nfsd.conf.state, err, sizeof(err));
	if (rc == 0)
		warn_exports(text);
	free(text);
	if (rc) {
		fprintf(stderr, "droce-nfsd: %s: %s\n", exports_from(), err);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (nfsd.listen_ip) {
		rc = serve_tcp_only(secs);
		nfsd_conf_free(&nfsd.conf);
		return rc;
	}
	stk_config_default(&cfg);
	cfg.upper_sections = nfsd_conf_sections;
	if (stk_config_load(nfsd.config, &cfg, err, sizeof(err)) != 0 ||
	    roce_dcqcn_config_load(nfsd.config, &cc_on, &cc, err, sizeof(err)) != 0) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0 || stk_setup(&cfg) != 0) {
		fprintf(stderr, "droce-nfsd: the stack did not start\n");
		return 1;
	}
	rc = 1;
	ifc = stk_iface_get(0);
	stk_ipaddr_str(&ifc->ip4, ip, sizeof(ip));
	nfsd.dev = roce_dev_open(0);
	/* [dcqcn]: every QP of the device (the RDMA connections) reacts to CNPs from then on */
	if (nfsd.dev && cc_on) {
		if (roce_dev_set_cc(nfsd.dev, &cc) != 0) {
			fprintf(stderr, "droce-nfsd: the [dcqcn] parameters were refused\n");
			goto out;
		}
		printf("dcqcn: on, line %.0f Gbit/s, min %.1f Gbit/s\n", cc.line_gbps, cc.min_gbps);
	}
	if (nfsd.dev && start_lanes() != 0)
		goto out;
	nfsd.cm = nfsd.dev ? roce_cm_open(nfsd.dev) : NULL;
	nfsd.pd = nfsd.dev ? roce_alloc_pd(nfsd.dev) : NULL;
	/* a connection's staging region is kept for the next (rpcrdma_regions_create()): at most
	 * [nfs] connections of them exist at once either way */
	nfsd.regions = rpcrdma_regions_create(nfsd.conf.connections);
	nfsd.listen = nfsd.cm ? roce_cm_create_id(nfsd.cm, ROCE_CM_PS_TCP, NULL) : NULL;
	if (!nfsd.listen || !nfsd.pd || !nfsd.regions ||
	    roce_cm_listen(nfsd.listen, NFS3_RDMA_PORT, 16) != 0) {
		fprintf(stderr, "droce-nfsd: no RoCE device, CM or listener: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (nfs3_server_init(&nfsd.tcp_nfs, nfsd.fs, nfsd.conf.max_io) != 0 ||
	    nfs3_server_init(&nfsd.rdma_nfs, nfsd.fs, nfsd.conf.max_io) != 0 || start_pool() != 0) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	start_aio();
	nfsd.svc.ctx = &nfsd.tcp_nfs;
	nfsd.rdma_svc.ctx = &nfsd.rdma_nfs;
	orpc_bc_table_init(&nfsd.bc);
	nfsd.svc.bc = nfsd.rdma_svc.bc = &nfsd.bc;
	if (orpc_svc_drc_enable_n(&nfsd.svc, nfsd.conf.drc_entries) != 0 ||
	    orpc_svc_drc_enable_n(&nfsd.rdma_svc, nfsd.conf.drc_entries) != 0 || !nfs_program()) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	orpc_svc_add(&nfsd.svc, &orpc_pmap_program);
	orpc_svc_add(&nfsd.svc, nfs_program());
	orpc_svc_add(&nfsd.svc, &mount_program);
	orpc_svc_add(&nfsd.rdma_svc, nfs_program());
	register_all(ip, true);
	nfsd_tel_register();
	if (lock_init(ip) != 0 || listen_all(ip) != 0 || nfsd_metrics_start() != 0)
		goto out;
	nfsd.end = secs > 0 ? rte_get_tsc_cycles() + (uint64_t)secs * rte_get_tsc_hz() : 0;
	stk_lcore_add_poll_as(stk_lcore_get(rte_get_main_lcore()), roce_poll, nfsd.dev, "roce");
	stk_lcore_add_poll_as(stk_lcore_get(rte_get_main_lcore()), serve_poll, NULL, "nfsd");
	for (unsigned i = 1; i < nfsd.nlanes; i++) {
		struct stk_lcore *lc = stk_lcore_get(nfsd.lanes[i].lcore);

		if (!lc || stk_lcore_add_poll_as(lc, roce_poll, nfsd.dev, "roce") != 0 ||
		    stk_lcore_add_poll_as(lc, nfsd_lane_poll, &nfsd.lanes[i], "nfsd lane") != 0) {
			fprintf(stderr, "droce-nfsd: lcore %u runs no stack loop\n",
				nfsd.lanes[i].lcore);
			goto out;
		}
	}
	nfsd.lanes_run = nfsd.nlanes > 1;
	printf("serving at %s: %s on rdma %u and tcp %u, MOUNT v1/v3 on tcp/udp %u, NLM v4 on "
	       "tcp/udp %u, NSM on tcp/udp %u, portmapper on tcp/udp %u\n",
	       ip, nfs_versions_served(), NFS3_RDMA_PORT, NFS3_PORT, MOUNT_PORT, NLM_PORT, NSM_PORT,
	       ORPC_PMAP_PORT);
	stk_run();
	served = true; /* the counters are printed once the file work in flight ended */
	rc = 0;
out:
	/* the other lanes' lcores have returned: their last messages, then their file work ends
	 * (its replies go out or fail), and this lcore destroys what they served */
	lanes_poll();
	nfsd.lanes_run = false;
	for (unsigned i = 1; i < nfsd.nlanes; i++)
		nfsd_lane_stop_io(&nfsd.lanes[i]);
	/* no new connections, then every connection ends and its endpoint is destroyed once the
	 * stack has let go of its regions (serve_poll does that while we poll) */
	if (nfsd.listen)
		roce_cm_destroy_id(nfsd.listen);
	nfsd.listen = NULL;
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (nfsd.conns[k].id)
			conn_end(k, "server stopping");
	for (int i = 0; i < 1000000 && nfsd.dev; i++) {
		int busy = 0;

		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
			busy += nfsd.conns[k].ep != NULL;
		if (!busy)
			break;
		stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	}
	reload_fini();
	nfs_aio_destroy(nfsd.aio, nfs3_aio_done);
	nfsd.aio = NULL;
	nfs_pool_destroy(nfsd.pool, nfs3_pool_done);
	nfsd.pool = NULL;
	/* NFSv4's records written and the replies held for them sent, while their connections
	 * are there (after the file work: a compound that waited for it may hold its reply) */
	if (nfsd.v4)
		nfs4_server_flush(nfsd.v4);
	if (nfsd.nlm_up)
		nlm_server_flush(&nfsd.nlm);
	if (served)
		nfsd_print_stats();
	if (nfsd.tcp_up)
		orpc_tcp_srv_fini(&nfsd.tcp);
	nfsd.tcp_up = false;
	if (nfsd.lock_tcp_up)
		orpc_tcp_srv_fini(&nfsd.lock_tcp);
	nfsd.lock_tcp_up = false;
	app_metrics_close(nfsd.metrics);
	nfsd.metrics = NULL;
	/* NFSv4's clients free their locks in NLM's manager: before it goes */
	nfs4_server_destroy(nfsd.v4);
	nfsd.v4 = NULL;
	if (nfsd.nlm_up)
		nlm_server_fini(&nfsd.nlm);
	nfsd.nlm_up = false;
	if (nfsd.cm)
		roce_cm_close(nfsd.cm);
	rpcrdma_regions_destroy(nfsd.regions); /* the endpoints are gone */
	nfsd.regions = NULL;
	if (nfsd.pd)
		roce_dealloc_pd(nfsd.pd);
	stk_teardown();
	if (nfsd.dev)
		roce_dev_close(nfsd.dev);
	nfs3_server_fini(&nfsd.tcp_nfs);
	orpc_svc_drc_disable(&nfsd.svc);
	orpc_svc_drc_disable(&nfsd.rdma_svc);
	nfs3_server_fini(&nfsd.rdma_nfs);
	for (unsigned i = 1; i < nfsd.nlanes; i++)
		nfsd_lane_fini(&nfsd.lanes[i]);
	nfs_fs_close(nfsd.fs);
	nfsd_conf_free(&nfsd.conf);
	rte_eal_cleanup();
	return rc;
}
