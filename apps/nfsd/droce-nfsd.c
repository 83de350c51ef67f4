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
 * SIGTERM/SIGINT cuts the drain short. Everything is polled from the main lcore's loop.
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

/* the server's life after start (STYLE §4): a SIGTERM moves it down the list */
#define NFSD_STATE_LIST(X)                                                                         \
	X(SERVING)  /* accepting connections and calls */                                          \
	X(DRAINING) /* no new connections; the calls in flight end and are answered */             \
	X(SETTLING) /* none in flight: the last replies leave */                                   \
	X(SYNCING)  /* the exported file systems go to disk */                                     \
	X(STOPPED)  /* the loop ends; teardown follows */
#define NFSD_ST_ENUM_(n) NFSD_##n,
enum nfsd_state { NFSD_STATE_LIST(NFSD_ST_ENUM_) NFSD_NUM_STATES };
#define NFSD_ST_NAME_(n) #n,
static const char *const nfsd_state_names[] = {NFSD_STATE_LIST(NFSD_ST_NAME_)};

#define SETTLE_NS 200000000ull /* after the last call: time for its reply to leave */

/* an export reload (SIGHUP): the new table is built on a thread of its own, then swapped in by
 * the loop */
enum reload_phase { RELOAD_IDLE, RELOAD_BUILDING, RELOAD_READY };

static struct {
	const char *config, *exports, *listen_ip;
	struct nfsd_conf conf;
	uint64_t end;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
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
	/* reload */
	_Atomic int reload_phase;
	pthread_t reload_thread;
	int reload_rc;
	struct nfs_export_tab *reload_next;
	char reload_err[1024];
	uint64_t reloads, reload_failures;
	struct app_metrics *metrics; /* [nfs] metrics, --metrics */
} g;

/* Who is connected, for /droce/nfs/clients: the lcore writes a snapshot twice a second into
 * the buffer readers are not on, then bumps seq; the telemetry thread copies the other one and
 * checks seq did not move meanwhile (the endpoints themselves are never read off the lcore). */
#define CLIENT_ROWS (NFSD_CONNS_MAX + 64)
struct client_row {
	bool rdma;
	char addr[INET6_ADDRSTRLEN + 8];
	uint64_t calls, credits, overruns, ddp_read_bytes, ddp_write_bytes;
	uint64_t in_use;      /**< credits in use: calls received and not answered yet */
	unsigned lane, lcore; /**< RDMA: the lane that serves it, and its lcore */
};
static struct {
	_Atomic uint32_t seq;
	uint32_t n[2];
	struct client_row rows[2][CLIENT_ROWS];
	uint64_t next_ns;
} snap;

static volatile sig_atomic_t stop, hup;

static void metrics_src(struct nfsd_metrics_src *out);

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

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void set_state(enum nfsd_state s)
{
	if (g.state != s) {
		g.state_cnt[s]++;
		printf("state: %s -> %s\n", nfsd_state_names[g.state], nfsd_state_names[s]);
	}
	g.state = s;
}

/* The lane a new connection goes to: placement = client hashes the client's address, so that
 * every connection of one client (and its retransmissions after a reconnect, which its lane's
 * DRC must see) lands on one lane; round_robin spreads one client's connections too. */
static unsigned pick_lane(const struct stk_ipaddr *peer)
{
	uint32_t h = 2166136261u;

	if (g.nlanes <= 1)
		return 0;
	if (g.conf.place_rr)
		return g.place_next++ % g.nlanes;
	for (size_t i = 0; i < sizeof(*peer); i++)
		h = (h ^ ((const uint8_t *)peer)[i]) * 16777619u;
	return h % g.nlanes;
}

/* A connection is over: its CM id goes now (why NULL: it never got going, nothing is logged),
 * its endpoint once the stack has let go of its regions: here (serve_poll), or on its lane,
 * which is told to (END) and lets go of it (RELEASED) for this lcore to destroy. */
static void conn_end(uint32_t k, const char *why)
{
	if (g.conns[k].id)
		roce_cm_destroy_id(g.conns[k].id);
	g.conns[k].id = NULL;
	g.conns[k].closing = true;
	if (g.conns[k].lane && g.lanes_run && !g.conns[k].lane_ended &&
	    nfsd_lane_send(&g.lanes[g.conns[k].lane], NFSD_LANE_END, k, g.conns[k].ep) == 0)
		g.conns[k].lane_ended = true;
	if (!why)
		return;
	g.closed++;
	nfsd_log_rl(&g.conn_rl, NFSD_LOG_INFO, "rdma: connection %u closed (%s)", k, why);
}

static void on_connect_request(const struct roce_cm_event *ev)
{
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_conn_param p = {0};
	struct rpcrdma_ep_conf conf = {.credits = g.conf.credits,
				       .inline_max = g.conf.inline_max,
				       .max_chunk = g.conf.max_io + 8192,
				       .server_calls = g.conf.conn_calls};
	unsigned lane = pick_lane(&ev->id->remote_ip);
	uint32_t k;

	if (lane) { /* its QP and CQ live on that lane's lcore, its calls go to its server */
		conf.on_lcore = true;
		conf.lcore = g.lanes[lane].lcore;
	}
	for (k = 0; k < g.conf.connections && (g.conns[k].id || g.conns[k].ep); k++)
		;
	if (k == g.conf.connections || g.state != NFSD_SERVING ||
	    !(g.conns[k].ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_SERVER, &conf,
						lane ? &g.lanes[lane].svc : &g.rdma_svc))) {
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		g.rejected++;
		nfsd_log_rl(&g.conn_rl, NFSD_LOG_WARN, "rdma: connection refused (%s)",
			    g.state != NFSD_SERVING   ? "draining"
			    : k == g.conf.connections ? "[nfs] connections are all in use"
						      : "no memory for its endpoint");
		return;
	}
	g.conns[k].id = ev->id;
	g.conns[k].lane = (uint8_t)lane;
	rpcrdma_ep_set_peer(g.conns[k].ep, &ev->id->remote_ip, ev->id->remote_port);
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(g.conns[k].ep, priv);
	if (roce_cm_accept(ev->id, rpcrdma_ep_qp(g.conns[k].ep), &p) != 0 ||
	    rpcrdma_ep_start(g.conns[k].ep, ev->private_data, ev->private_data_len) != 0) {
		conn_end(k, NULL);
		g.rejected++;
		return;
	}
	g.accepted++;
	g.lane_accepted[lane]++;
	nfsd_log_rl(&g.conn_rl, NFSD_LOG_INFO, "rdma: connection %u accepted (lane %u, lcore %u)",
		    k, lane, lane ? g.lanes[lane].lcore : rte_lcore_id());
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
			if (g.conns[k].id != ev->id || !g.conns[k].id || !g.conns[k].lane ||
			    g.conns[k].adopted || g.conns[k].closing)
				continue;
			if (nfsd_lane_send(&g.lanes[g.conns[k].lane], NFSD_LANE_ADOPT, k,
					   g.conns[k].ep) == 0)
				g.conns[k].adopted = true;
		}
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
	case ROCE_CM_EVENT_REJECTED:	/* the peer gave up on an accepted connection (REJ) */
	case ROCE_CM_EVENT_UNREACHABLE: /* our REP went unanswered */
		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
			if (!g.conns[k].id || g.conns[k].id != ev->id)
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

/* ---- who is connected ---- */

static void peer_addr(const struct sockaddr_storage *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(((const struct sockaddr_in *)a)->sin_port));
	} else if (a->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip,
			 ntohs(((const struct sockaddr_in6 *)a)->sin6_port));
	} else {
		snprintf(buf, len, "?");
	}
}

/* On the lcore, twice a second: the connections as they are now. */
static void clients_snapshot(void)
{
	uint32_t w = (atomic_load_explicit(&snap.seq, memory_order_relaxed) + 1) & 1, n = 0;
	struct orpc_peer peers[64];
	uint64_t now = now_ns();

	if (now < snap.next_ns)
		return;
	snap.next_ns = now + 500000000ull;
	for (uint32_t k = 0; k < NFSD_CONNS_MAX && n < CLIENT_ROWS; k++) {
		struct client_row *c = &snap.rows[w][n];
		const struct rpcrdma_ep_stats *es;
		struct rpcrdma_ep_info info;
		char ip[INET6_ADDRSTRLEN];

		if (!g.conns[k].ep || !g.conns[k].id || g.conns[k].closing)
			continue;
		rpcrdma_ep_info(g.conns[k].ep, &info);
		es = rpcrdma_ep_stats(g.conns[k].ep);
		stk_ipaddr_str(&g.conns[k].id->remote_ip, ip, sizeof(ip));
		*c = (struct client_row){.rdma = true,
					 .calls = es->rx_msgs,
					 .credits = info.credits,
					 .in_use = info.calls_waiting + info.calls_serving,
					 .overruns = es->credit_overrun,
					 .ddp_read_bytes = es->ddp_read_bytes,
					 .ddp_write_bytes = es->ddp_write_bytes,
					 .lane = g.conns[k].lane,
					 .lcore = g.conns[k].lane ? g.lanes[g.conns[k].lane].lcore
								  : rte_get_main_lcore()};
		snprintf(c->addr, sizeof(c->addr), "%s:%u", ip, g.conns[k].id->remote_port);
		n++;
	}
	for (int srv = 0; srv < 2; srv++) {
		const struct orpc_tcp_srv *t = srv ? &g.lock_tcp : &g.tcp;
		uint32_t np =
			(srv ? g.lock_tcp_up : g.tcp_up) ? orpc_tcp_srv_peers(t, peers, 64) : 0;

		for (uint32_t i = 0; i < np && n < CLIENT_ROWS; i++, n++) {
			snap.rows[w][n] = (struct client_row){.rdma = false};
			peer_addr(&peers[i].addr, snap.rows[w][n].addr,
				  sizeof(snap.rows[w][n].addr));
		}
	}
	snap.n[w] = n;
	atomic_fetch_add_explicit(&snap.seq, 1, memory_order_release);
}

/* /droce/nfs/clients: one entry per connection ("connN": transport, peer ADDR:PORT, and the
 * RDMA ones' counters) */
static int tel_clients(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct client_row rows[CLIENT_ROWS];
	uint32_t n = 0;

	(void)cmd, (void)params;
	for (int tries = 0; tries < 5; tries++) {
		uint32_t s1 = atomic_load_explicit(&snap.seq, memory_order_acquire);

		n = snap.n[s1 & 1];
		memcpy(rows, snap.rows[s1 & 1], sizeof(rows[0]) * n);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&snap.seq, memory_order_relaxed) == s1)
			break;
		n = 0;
	}
	rte_tel_data_start_dict(d);
	for (uint32_t i = 0; i < n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char key[RTE_TEL_MAX_STRING_LEN];

		if (!c)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "transport", rows[i].rdma ? "rdma" : "tcp");
		rte_tel_data_add_dict_string(c, "peer", rows[i].addr);
		if (rows[i].rdma) {
			rte_tel_data_add_dict_u64(c, "calls", rows[i].calls);
			rte_tel_data_add_dict_u64(c, "credits", rows[i].credits);
			rte_tel_data_add_dict_u64(c, "credits_in_use", rows[i].in_use);
			rte_tel_data_add_dict_u64(c, "credit_overruns", rows[i].overruns);
			rte_tel_data_add_dict_u64(c, "ddp_read_bytes", rows[i].ddp_read_bytes);
			rte_tel_data_add_dict_u64(c, "ddp_write_bytes", rows[i].ddp_write_bytes);
			rte_tel_data_add_dict_u64(c, "lane", rows[i].lane);
			rte_tel_data_add_dict_u64(c, "lcore", rows[i].lcore);
		}
		/* telemetry's names take letters, digits, '_' and '/' only: the address is a value */
		snprintf(key, sizeof(key), "conn%u", i);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/* ---- the exports: where they come from, and SIGHUP ---- */

/* The exports text in force: --exports FILE, else [nfs] exports = FILE, else the config's
 * [export NAME] sections. reread: read the config file again (a reload picks up edits to it).
 * @return malloc'd text, or NULL with err */
static char *exports_text(bool reread, char *err, size_t errlen)
{
	struct nfsd_conf fresh, *c = &g.conf;
	const char *file = g.exports;
	char *text = NULL;

	if (!file && reread && g.config) {
		nfsd_conf_default(&fresh);
		if (nfsd_conf_load(g.config, &fresh, err, errlen) != 0) {
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

	if (g.exports)
		return g.exports;
	if (g.conf.exports_file[0])
		return g.conf.exports_file;
	snprintf(what, sizeof(what), "%s [export] sections", g.config ? g.config : "?");
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
	char *text = exports_text(true, g.reload_err, sizeof(g.reload_err));

	(void)arg;
	g.reload_next = NULL;
	g.reload_rc = text ? nfs_fs_reload_prepare(g.fs, text, &g.reload_next, g.reload_err,
						   sizeof(g.reload_err))
			   : -EINVAL;
	if (g.reload_rc == 0)
		warn_exports(text);
	free(text);
	atomic_store(&g.reload_phase, RELOAD_READY);
	return NULL;
}

/* Calls still running: jobs with the helper threads, or RDMA calls not yet answered to the
 * end (their reply SEND not completed). The lcore's own calls end within its poll. No call
 * that began before a reload's swap can hold the old table once this is false. */
static bool calls_in_flight(void)
{
	if (g.pool && nfs_pool_inflight(g.pool) > 0)
		return true;
	if (g.aio && nfs_aio_inflight(g.aio) > 0)
		return true;
	if (g.v4 && nfs4_server_busy(g.v4))
		return true; /* a stable records write, or a reply held for it */
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (g.conns[k].ep && !g.conns[k].closing && !g.conns[k].lane &&
		    rpcrdma_ep_busy(g.conns[k].ep))
			return true;
	/* the other lanes: busy as their last poll ended; while draining, a lane that has not
	 * applied the QUIESCE yet may still start calls */
	for (unsigned i = 1; g.lanes_run && i < g.nlanes; i++)
		if (atomic_load_explicit(&g.lanes[i].busy, memory_order_acquire) ||
		    (g.state != NFSD_SERVING && !g.lane_quiesced[i]))
			return true;
	return false;
}

/* Has every other lane ended a poll with nothing in flight since the last exports swap? Then
 * none of its calls holds the table the swap replaced. */
static bool lanes_past_swap(void)
{
	for (unsigned i = 1; g.lanes_run && i < g.nlanes; i++)
		if (atomic_load_explicit(&g.lanes[i].quiet_seq, memory_order_acquire) ==
		    g.reclaim_seq[i])
			return false;
	return true;
}

/* SIGHUP: build the new table off the lcore, swap it in here, free the old one once no call
 * holds it. Clients stay connected; from the swap on they are judged by the new exports. */
static void reload_poll(void)
{
	struct nfs_reload_stats rs;

	if (hup && g.state == NFSD_SERVING && atomic_load(&g.reload_phase) == RELOAD_IDLE) {
		hup = 0;
		atomic_store(&g.reload_phase, RELOAD_BUILDING);
		if (pthread_create(&g.reload_thread, NULL, reload_main, NULL) != 0) {
			atomic_store(&g.reload_phase, RELOAD_IDLE);
			g.reload_failures++;
			nfsd_log(NFSD_LOG_ERR,
				 "exports not reloaded: no thread to read them (%s); the running "
				 "exports stay",
				 strerror(errno));
		}
	}
	if (atomic_load(&g.reload_phase) == RELOAD_READY) {
		pthread_join(g.reload_thread, NULL);
		atomic_store(&g.reload_phase, RELOAD_IDLE);
		if (g.reload_rc == 0) {
			nfs_fs_reload_commit(g.fs, g.reload_next, &rs);
			/* seq_cst against the swap's store (a store then a load: the lanes'
			 * bumps read here must come after the swap; nfsd_lane.h) */
			atomic_thread_fence(memory_order_seq_cst);
			for (unsigned i = 1; i < g.nlanes; i++)
				g.reclaim_seq[i] = atomic_load_explicit(&g.lanes[i].quiet_seq,
									memory_order_seq_cst);
			g.reloads++;
			nfsd_log(NFSD_LOG_INFO,
				 "exports reloaded: %u export(s): %u added, %u removed, %u kept",
				 rs.exports, rs.added, rs.removed, rs.kept);
		} else {
			g.reload_failures++;
			nfsd_log(NFSD_LOG_ERR, "exports not reloaded: %s; the running exports stay",
				 g.reload_err);
		}
		g.reload_next = NULL;
	}
	if (!calls_in_flight() && lanes_past_swap())
		nfs_fs_reclaim(g.fs);
}

/* a reload still building when the server stops: wait for it and drop its table */
static void reload_fini(void)
{
	if (atomic_load(&g.reload_phase) != RELOAD_IDLE) {
		pthread_join(g.reload_thread, NULL);
		nfs_fs_reload_abort(g.reload_next);
		g.reload_next = NULL;
		atomic_store(&g.reload_phase, RELOAD_IDLE);
	}
}

/* ---- SIGTERM: the drain ---- */

static void quiesce_all(void)
{
	if (g.listen)
		roce_cm_destroy_id(g.listen);
	g.listen = NULL;
	if (g.tcp_up)
		orpc_tcp_srv_quiesce(&g.tcp);
	if (g.lock_tcp_up)
		orpc_tcp_srv_quiesce(&g.lock_tcp);
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (g.conns[k].ep && !g.conns[k].closing && !g.conns[k].lane)
			rpcrdma_ep_quiesce(g.conns[k].ep);
	/* the other lanes quiesce theirs (and those they adopt from now on) and say so; a
	 * connection not adopted yet starts no call before its lane has it */
	for (unsigned i = 1; g.lanes_run && i < g.nlanes; i++)
		if (nfsd_lane_send(&g.lanes[i], NFSD_LANE_QUIESCE, 0, NULL) != 0)
			g.lane_quiesced[i] = true; /* cannot happen (nfsd_lane.h) */
}

/* One step of the server's life (STYLE §4); the loops call it every round. @return true when
 * the loop should end */
static bool life_step(bool time_up)
{
	uint64_t now = now_ns();
	uint32_t synced = 0;
	int rc;

	switch (g.state) {
	case NFSD_SERVING:
		if (!stop && !time_up)
			return false;
		quiesce_all();
		/* one signal so far: a copy of the first (timeout(1) sends its TERM to the child
		 * and again to its process group) must not read as a second one */
		stop = 1;
		g.drain_start_ns = now;
		g.drain_end_ns = now + (uint64_t)g.conf.drain_s * 1000000000ull;
		printf("draining: no new connections; %u call(s) with the helper threads, at most "
		       "%u s\n",
		       g.pool ? nfs_pool_inflight(g.pool) : 0, g.conf.drain_s);
		set_state(NFSD_DRAINING);
		return false;
	case NFSD_DRAINING:
		/* the copy can also come after this loop saw the first and began the drain (the
		 * kernel delivers the two kill()s microseconds apart): one within SIGNAL_COPY_NS of
		 * the first is that copy, not an operator's second signal */
		if (stop > 1 && now - g.drain_start_ns < SIGNAL_COPY_NS)
			stop = 1;
		if (stop > 1 || now >= g.drain_end_ns) {
			g.drain_cut = true;
			printf("drain cut short (%s) with %u call(s) in flight\n",
			       stop > 1 ? "a second signal" : "its bound passed",
			       g.pool ? nfs_pool_inflight(g.pool) : 0);
			set_state(NFSD_SYNCING);
		} else if (!calls_in_flight()) {
			g.settle_end_ns = now + SETTLE_NS;
			set_state(NFSD_SETTLING);
		}
		return false;
	case NFSD_SETTLING:
		if (stop > 1 && now - g.drain_start_ns < SIGNAL_COPY_NS)
			stop = 1; /* timeout(1)'s copy, as above */
		if (calls_in_flight())
			set_state(NFSD_DRAINING); /* a call that was queued in a connection */
		else if (now >= g.settle_end_ns || stop > 1)
			set_state(NFSD_SYNCING);
		return false;
	case NFSD_SYNCING:
		rc = nfs_fs_sync(g.fs, &synced);
		printf("drained: %s; synced %u file system(s)%s%s\n",
		       g.drain_cut ? "calls were still in flight" : "every call answered", synced,
		       rc ? ", one failed: " : "", rc ? strerror(-rc) : "");
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

	for (unsigned i = 1; i < g.nlanes; i++) {
		if (!g.lanes[i].to_main) /* its start failed part way */
			continue;
		while (nfsd_lane_recv(&g.lanes[i], &m)) {
			n++;
			if (m.op == NFSD_LANE_QUIESCED) {
				g.lane_quiesced[i] = true;
				continue;
			}
			if (m.k >= NFSD_CONNS_MAX || g.conns[m.k].lane != i)
				continue;
			if (m.op == NFSD_LANE_FAILED && g.conns[m.k].id) {
				roce_cm_disconnect(g.conns[m.k].id);
				conn_end(m.k, "endpoint failed");
			} else if (m.op == NFSD_LANE_RELEASED) {
				g.conns[m.k].released = true; /* serve_poll destroys it */
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
	if (g.pool)
		work += nfs_pool_poll(g.pool, nfs3_pool_done, 64);
	if (g.v4) /* NFSv4's stable records: writes ended, replies held for them */
		work += nfs4_server_poll(g.v4);
	while (roce_cm_get_event(g.cm, &ev) == 0) {
		on_cm_event(&ev);
		work++;
	}
	work += lanes_poll();
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++) {
		struct rpcrdma_ep_info info;

		/* another lane's, while the lanes run and until it let go: that lane serves it */
		if (g.conns[k].lane && g.lanes_run && !g.conns[k].released)
			continue;
		if (g.conns[k].closing && rpcrdma_ep_destroy(g.conns[k].ep) == 0) {
			memset(&g.conns[k], 0, sizeof(g.conns[k]));
			continue;
		}
		if (!g.conns[k].ep || g.conns[k].closing)
			continue;
		work += (unsigned)rpcrdma_ep_poll(g.conns[k].ep);
		/* an RDMA error or a flush ends the connection: the client reconnects */
		rpcrdma_ep_info(g.conns[k].ep, &info);
		if (info.failed && g.conns[k].id) {
			roce_cm_disconnect(g.conns[k].id);
			conn_end(k, "endpoint failed");
		}
	}
	if (g.tcp_up)
		work += (unsigned)orpc_tcp_srv_poll(&g.tcp);
	/* after the servers: the READs and WRITEs they started are submitted in this pass */
	if (g.aio)
		work += nfs_aio_poll(g.aio, nfs3_aio_done, 64);
	if (g.lock_tcp_up)
		work += (unsigned)orpc_tcp_srv_poll(&g.lock_tcp);
	if (g.nlm_up)
		work += nlm_server_poll(&g.nlm); /* callbacks in flight, on sockets of their own */
	if (g.metrics) /* a scrape being answered keeps the lcore awake too */
		work += app_metrics_poll(g.metrics);
	/* a call with the helpers: stay awake for its end (the idle back-off, [stack]) */
	work += calls_in_flight() || atomic_load(&g.reload_phase) != RELOAD_IDLE;
	stk_lcore_work(lc, work);
	clients_snapshot();
	reload_poll();
	if (life_step(g.end && rte_get_tsc_cycles() > g.end))
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
	struct nlm_conf c = {.grace_s = g.conf.grace_s, .my_name = ip, .cb_timeout_ms = 3000};
	char err[256];
	int rc = nlm_server_init(&g.nlm, g.fs, &c, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "droce-nfsd: the lock manager did not start: %s\n", err);
		return rc;
	}
	g.nlm_up = true;
	if (g.v4)
		nfs4_server_set_lock_mgr(g.v4, &g.nlm.mgr);
	g.lock_svc.ctx = &g.nlm;
	orpc_svc_add(&g.lock_svc, &nlm_program);
	orpc_svc_add(&g.lock_svc, &nsm_program);
	printf("locks: NSM state %d, %u monitored host(s) notified, grace %u s\n", g.nlm.nsm_state,
	       g.nlm.nhosts, g.conf.grace_s);
	return 0;
}

static void register_all(const char *ip, bool rdma)
{
	orpc_pmap_attach(&g.pm);
	for (uint32_t v = 2; v <= 4; v++) {
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "tcp", ip, ORPC_PMAP_PORT);
		orpc_pmap_register(&g.pm, ORPC_PMAP_PROG, v, "udp", ip, ORPC_PMAP_PORT);
	}
	/* NFSv4 (4.1 and 4.2) beside v3 when served, on the same ports */
	for (uint32_t v = 3; v <= (g.v4 ? 4u : 3u); v++) {
		orpc_pmap_register(&g.pm, NFS3_PROG, v, "tcp", ip, NFS3_PORT);
		if (rdma)
			orpc_pmap_register(&g.pm, NFS3_PROG, v, "rdma", ip, NFS3_RDMA_PORT);
	}
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
	struct nfs_fs_stats fst;
	struct orpc_drc_stats drc[2];
	struct nfsd_metrics_src src;
	struct orpc_svc_stats rsv;
	/* the RDMA servers of every lane, summed (lane 0's alone when there is one) */
	static struct nfs3_stats rst;
	const struct nfs3_server *keep_tcp;

	printf("tcp: accepted %llu, records %llu, udp calls %llu, closed %llu (garbage %llu)\n",
	       (unsigned long long)g.tcp.stats.accepted, (unsigned long long)g.tcp.stats.records,
	       (unsigned long long)g.tcp.stats.udp_calls, (unsigned long long)g.tcp.stats.closed,
	       (unsigned long long)g.tcp.stats.closed_garbage);
	metrics_src(&src);
	keep_tcp = src.nfs[0];
	src.nfs[0] = NULL; /* the RDMA ones only */
	src.svc[0] = NULL;
	nfsd_metrics_nfs_total(&src, &rst);
	nfsd_metrics_rpc_total(&src, &rsv, &drc[1]);
	src.nfs[0] = keep_tcp;
	printf("rdma: accepted %llu, rejected %llu, closed %llu, calls %llu\n",
	       (unsigned long long)g.accepted, (unsigned long long)g.rejected,
	       (unsigned long long)g.closed, (unsigned long long)rsv.calls);
	for (unsigned i = 0; g.nlanes > 1 && i < g.nlanes; i++) {
		const struct nfs3_stats *ls = i ? &g.lanes[i].nfs.st : &g.rdma_nfs.st;
		uint64_t calls = 0;

		for (uint32_t p = 0; p < NFS3_NPROCS; p++)
			calls += ls->proc[p];
		printf("rdma: lane %u on lcore %u: connections %llu, NFSv3 calls %llu, read %llu "
		       "bytes, written %llu bytes\n",
		       i, i ? g.lanes[i].lcore : rte_get_main_lcore(),
		       (unsigned long long)g.lane_accepted[i], (unsigned long long)calls,
		       (unsigned long long)ls->read_bytes, (unsigned long long)ls->write_bytes);
	}
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		if (g.svc.stats.outcome[k] + rsv.outcome[k] + g.lock_svc.stats.outcome[k])
			printf("rpc: %s tcp %llu rdma %llu nlm/nsm %llu\n",
			       orpc_outcome_name((enum orpc_outcome)k),
			       (unsigned long long)g.svc.stats.outcome[k],
			       (unsigned long long)rsv.outcome[k],
			       (unsigned long long)g.lock_svc.stats.outcome[k]);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		if (g.tcp_nfs.st.proc[p] + rst.proc[p])
			printf("nfs3: %s tcp %llu rdma %llu\n", nfs3_proc_name(p),
			       (unsigned long long)g.tcp_nfs.st.proc[p],
			       (unsigned long long)rst.proc[p]);
	for (uint32_t p = 0; p < MOUNT_NPROCS; p++)
		if (g.tcp_nfs.st.mount_proc[p])
			printf("mount: %s %llu\n", nfs_mnt_proc_name(p),
			       (unsigned long long)g.tcp_nfs.st.mount_proc[p]);
	printf("nfs3: calls on helper threads %llu, run inline for want of scratch %llu, READs and "
	       "WRITEs by io_uring %llu\n",
	       (unsigned long long)(g.tcp_nfs.st.deferred + rst.deferred),
	       (unsigned long long)(g.tcp_nfs.st.sync_fallback + rst.sync_fallback),
	       (unsigned long long)(g.tcp_nfs.st.aio + rst.aio));
	printf("nfs3: status ok %llu, errors %llu; read %llu bytes, written %llu bytes\n",
	       (unsigned long long)(g.tcp_nfs.st.status_ok + rst.status_ok),
	       (unsigned long long)(g.tcp_nfs.st.status_err + rst.status_err),
	       (unsigned long long)(g.tcp_nfs.st.read_bytes + rst.read_bytes),
	       (unsigned long long)(g.tcp_nfs.st.write_bytes + rst.write_bytes));
	if (g.v4) {
		struct nfs4_state_stats vs;
		struct nfs4_stats v4;

		nfs4_server_stats(g.v4, &v4);
		for (uint32_t op = 0; op <= NFS4_OP_LAST; op++)
			if (v4.op[op])
				printf("nfs4: %s %llu\n", nfs4_op_name(op),
				       (unsigned long long)v4.op[op]);
		printf("nfs4: compounds %llu (failed %llu), opens %llu, closes %llu, "
		       "stateids bad %llu old %llu stale %llu expired %llu, share denied %llu, "
		       "locks denied %llu, READ/READLINK data by write chunk %llu (placed %llu)\n",
		       (unsigned long long)v4.compounds, (unsigned long long)v4.status_err,
		       (unsigned long long)v4.opens, (unsigned long long)v4.closes,
		       (unsigned long long)v4.bad_stateid, (unsigned long long)v4.old_stateid,
		       (unsigned long long)v4.stale_stateid, (unsigned long long)v4.expired_stateid,
		       (unsigned long long)v4.share_denied, (unsigned long long)v4.locks_denied,
		       (unsigned long long)v4.ddp_reads, (unsigned long long)v4.ddp_placed);
		printf("nfs4: delegations granted %llu, returned %llu, revoked %llu; recalls sent "
		       "%llu, answered %llu; conflicts delayed %llu; backchannel probes %llu, "
		       "callback errors %llu, bad callback replies %llu; blocked locks %llu, "
		       "CB_NOTIFY_LOCK sent %llu\n",
		       (unsigned long long)v4.delegs_granted,
		       (unsigned long long)v4.delegs_returned,
		       (unsigned long long)v4.delegs_revoked, (unsigned long long)v4.recalls_sent,
		       (unsigned long long)v4.recalls_answered,
		       (unsigned long long)v4.deleg_conflicts, (unsigned long long)v4.cb_probes,
		       (unsigned long long)v4.cb_errors, (unsigned long long)v4.cb_bad_replies,
		       (unsigned long long)v4.lock_waits, (unsigned long long)v4.lock_notifies);
		printf("nfs4: client records %llu (loaded %llu, files ignored %llu, written %llu, "
		       "write errors %llu); reclaims %llu, NO_GRACE %llu, GRACE %llu; in grace %d\n",
		       (unsigned long long)v4.records, (unsigned long long)v4.records_loaded,
		       (unsigned long long)v4.records_files_ignored,
		       (unsigned long long)v4.records_writes,
		       (unsigned long long)v4.records_write_errors, (unsigned long long)v4.reclaims,
		       (unsigned long long)v4.no_grace, (unsigned long long)v4.grace_refused,
		       (int)v4.in_grace);
		printf("nfs4: boot epoch %u; replies held for a records write %llu (not held %llu), "
		       "records written on the lcore %llu\n",
		       v4.boot, (unsigned long long)v4.records_held,
		       (unsigned long long)v4.records_unheld,
		       (unsigned long long)v4.records_sync_writes);
		printf("nfs4: compounds that waited for file work off the lcore "
		       "%llu (io_uring %llu, helper threads %llu), ran it on the lcore %llu, went on "
		       "%llu (session gone %llu)\n",
		       (unsigned long long)v4.io_deferred, (unsigned long long)v4.io_aio,
		       (unsigned long long)v4.io_pool, (unsigned long long)v4.io_inline,
		       (unsigned long long)v4.io_resumed, (unsigned long long)v4.io_session_gone);
		nfs4_state_stats(nfs4_server_state(g.v4), &vs);
		printf("nfs4: clients %llu, sessions %llu; expired %llu, destroyed %llu; kept for a "
		       "compound in flight: DELAY %llu, expiry put off %llu\n",
		       (unsigned long long)vs.clients, (unsigned long long)vs.sessions,
		       (unsigned long long)vs.clients_expired,
		       (unsigned long long)vs.clients_destroyed,
		       (unsigned long long)vs.destroy_busy, (unsigned long long)vs.expiry_held);
	}
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

/* /droce/nfs/latency (nfsd_tel.c) */
static int tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct nfs3_stats *t = malloc(sizeof(*t));
	struct nfsd_metrics_src s;
	int rc;

	(void)cmd, (void)params;
	if (!t)
		return -ENOMEM;
	metrics_src(&s);
	nfsd_metrics_nfs_total(&s, t);
	rc = nfsd_tel_latency(d, t, g.v4);
	free(t);
	return rc;
}

/* What the counters are read from, for /metrics and rte_telemetry's /droce/nfs */
static void metrics_src(struct nfsd_metrics_src *out)
{
	bool rdma = !g.listen_ip;
	struct nfsd_metrics_src s = {
		.nfs = {&g.tcp_nfs, rdma ? &g.rdma_nfs : NULL},
		.svc = {&g.svc, rdma ? &g.rdma_svc : NULL},
		.svc_name = {"tcp", "rdma"},
		.lock_svc = g.nlm_up ? &g.lock_svc : NULL,
		.tcp = g.tcp_up ? &g.tcp : NULL,
		.lock_tcp = g.lock_tcp_up ? &g.lock_tcp : NULL,
		.bc = &g.bc,
		.nlm = g.nlm_up ? &g.nlm : NULL,
		.pool = g.pool,
		.aio = g.aio,
		.threads = g.conf.threads,
		.fs = g.fs,
		.v4 = g.v4,
		.rdma = rdma,
		.rdma_accepted = g.accepted,
		.rdma_rejected = g.rejected,
		.rdma_closed = g.closed,
		.start_time = nfsd_metrics_start_time(),
	};

	/* [nfs] lcores: the other lanes' RDMA servers, summed with lane 0's as "rdma" */
	for (unsigned i = 0; rdma && i < g.nlanes; i++) {
		s.nlanes = g.nlanes;
		s.lane_lcore[i] = i ? g.lanes[i].lcore : rte_get_main_lcore();
		s.lane_accepted[i] = g.lane_accepted[i];
		s.lane_nfs[i] = i ? &g.lanes[i].nfs : &g.rdma_nfs;
		if (i) {
			s.nfs[1 + i] = &g.lanes[i].nfs;
			s.svc[1 + i] = &g.lanes[i].svc;
			s.svc_name[1 + i] = "rdma";
		}
	}
	*out = s;
}

/* /droce/nfs (nfsd_tel.c; stack mode: both servers are there) */
static int tel_nfs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct nfsd_metrics_src s;

	(void)cmd, (void)params;
	metrics_src(&s);
	return nfsd_tel_nfs(d, &s);
}

/* GET /metrics (--metrics): the counters above for Prometheus, written on this lcore */
static void write_metrics(struct app_buf *b, void *arg)
{
	struct nfsd_metrics_src s;

	(void)arg;
	metrics_src(&s);
	nfsd_metrics_write(b, &s);
}

/* [nfs] metrics / --metrics: the listener, once droce's address exists.
 * @return 0 or -1 (said why) */
static int metrics_start(void)
{
	char err[256];

	if (!g.conf.metrics[0])
		return 0;
	g.metrics = app_metrics_open(g.conf.metrics, write_metrics, NULL, err, sizeof(err));
	if (!g.metrics) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return -1;
	}
	printf("metrics at %s port %u: GET /metrics\n", g.conf.metrics,
	       app_metrics_port(g.metrics));
	return 0;
}

/* The helper threads, shared by the servers of every transport. */
static int start_pool(void)
{
	if (!g.conf.threads)
		return 0;
	g.pool = nfs_pool_create("nfsd", g.conf.threads, nfs3_pool_work);
	if (!g.pool) {
		fprintf(stderr, "droce-nfsd: cannot start %u helper threads: %s\n", g.conf.threads,
			strerror(errno));
		return -1;
	}
	g.tcp_nfs.pool = g.pool;
	g.rdma_nfs.pool = g.pool;
	return 0;
}

/* io_uring for READ and WRITE data, shared by the servers of every transport. Without it
 * (a kernel or a seccomp policy that refuses io_uring) the helper threads do everything. */
static void start_aio(void)
{
	if (!g.conf.uring_depth)
		return;
	g.aio = nfs_aio_create(g.fs, g.conf.uring_depth);
	if (!g.aio) {
		printf("io_uring unavailable (%s): READ and WRITE go to the helper threads\n",
		       strerror(errno));
		return;
	}
	g.tcp_nfs.aio = g.aio;
	g.rdma_nfs.aio = g.aio;
}

/* [nfs] lcores = N: the device runs on the main lcore and the next N - 1 EAL lcores, each a
 * lane with its own NFSv3 server for the RDMA connections placed there (nfsd_lane.h). Before
 * the CM opens (a device with QPs keeps its lanes). @return 0 or -1 (said why) */
static int start_lanes(void)
{
	unsigned lcores[NFSD_LANES_MAX], n = 0, lc;
	char err[256];
	int rc;

	g.nlanes = 1;
	if (g.conf.lcores <= 1)
		return 0;
	if (g.conf.lcores > rte_lcore_count()) {
		fprintf(stderr,
			"droce-nfsd: [nfs] lcores = %u but the EAL runs %u lcore(s): list at least "
			"%u in [eal] lcores (or -l), or lower [nfs] lcores\n",
			g.conf.lcores, rte_lcore_count(), g.conf.lcores);
		return -1;
	}
	lcores[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER (lc) {
		if (n < g.conf.lcores)
			lcores[n++] = lc;
	}
	rc = roce_dev_set_lcores(g.dev, lcores, n);
	if (rc != 0) {
		fprintf(stderr, "droce-nfsd: cannot run the RoCE device on %u lcores: %s\n", n,
			strerror(-rc));
		return -1;
	}
	for (unsigned i = 1; i < n; i++) {
		if (nfsd_lane_init(&g.lanes[i], i, lcores[i], g.fs, &g.conf, &nfs3_program, err,
				   sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			g.nlanes = i + 1; /* what was made is freed */
			return -1;
		}
		g.nlanes = i + 1;
	}
	printf("lanes: RPC-over-RDMA connections served on %u lcores (", n);
	for (unsigned i = 0; i < n; i++)
		printf("%s%u", i ? " " : "", lcores[i]);
	printf("), placed by %s\n", g.conf.place_rr ? "round robin" : "the client's address");
	return 0;
}

/* the NFS versions program 100003 answers, for the "serving" line */
static const char *nfs_versions_served(void)
{
	return g.conf.v41 ? "NFSv3, NFSv4.1 and 4.2" : "NFSv3";
}

/* --listen: the kernel's sockets only, waiting in epoll (nothing else to poll) */
/* Program 100003 as configured: version 3 alone (PROG_MISMATCH 3..3 for v4, so a Linux
 * mount without vers= falls back to v3), or versions 3 and 4 with the NFSv4.1 server given to
 * the NFS servers' contexts. Call after nfs3_server_init. NULL: out of memory. */
static const struct orpc_program *nfs_program(void)
{
	struct nfs4_server_conf c;

	if (!g.conf.v41)
		return &nfs3_program;
	if (!g.v4) {
		nfs4_server_conf_default(&c);
		c.state.lease_s = g.conf.v4_lease_s;
		c.state.slots = g.conf.v4_slots;
		c.max_io = g.conf.max_io;
		/* the clients of the records in --state reclaim for [nfs] grace after a start */
		c.grace_s = g.conf.grace_s;
		snprintf(c.domain, sizeof(c.domain), "%s", g.conf.v4_domain);
		g.v4 = nfs4_server_create(g.fs, &c);
		if (!g.v4)
			return NULL;
		/* one lock manager: NLM's locks and NFSv4's conflict (and share its grace) */
		if (g.nlm_up)
			nfs4_server_set_lock_mgr(g.v4, &g.nlm.mgr);
		nfs4_program_v3_v4(&g.nfs_prog, g.nfs_vers);
	}
	g.tcp_nfs.v4 = g.v4;
	g.rdma_nfs.v4 = g.v4;
	return &g.nfs_prog;
}

static int serve_tcp_only(long secs)
{
	time_t end = secs > 0 ? time(NULL) + secs : 0;
	struct epoll_event ev;
	int rc = 1, wait_fd = -1;
	uint32_t cb_active = 0;
	bool served = false;

	if (nfs3_server_init(&g.tcp_nfs, g.fs, g.conf.max_io) != 0 || start_pool() != 0)
		goto out;
	start_aio();
	g.svc.ctx = &g.tcp_nfs;
	orpc_bc_table_init(&g.bc);
	g.svc.bc = &g.bc;
	if (orpc_svc_drc_enable_n(&g.svc, g.conf.drc_entries) != 0 || !nfs_program())
		goto out;
	orpc_svc_add(&g.svc, &orpc_pmap_program);
	orpc_svc_add(&g.svc, nfs_program());
	orpc_svc_add(&g.svc, &mount_program);
	register_all(g.listen_ip, false);
	if (lock_init(g.listen_ip) != 0 || listen_all(g.listen_ip) != 0 || metrics_start() != 0)
		goto out;
	printf("serving at %s: %s on tcp %u, MOUNT v1/v3 on tcp/udp %u, NLM v4 on tcp/udp %u, "
	       "NSM on tcp/udp %u, portmapper on tcp/udp %u\n",
	       g.listen_ip, nfs_versions_served(), NFS3_PORT, MOUNT_PORT, NLM_PORT, NSM_PORT,
	       ORPC_PMAP_PORT);
	/* sleep until a socket or a helper thread has something */
	wait_fd = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, g.tcp.ep, &ev);
	epoll_ctl(wait_fd, EPOLL_CTL_ADD, g.lock_tcp.ep, &ev);
	if (g.pool)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs_pool_event_fd(g.pool), &ev);
	if (g.aio && nfs_aio_event_fd(g.aio) >= 0)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs_aio_event_fd(g.aio), &ev);
	if (g.metrics)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, app_metrics_fd(g.metrics), &ev);
	if (g.v4 && nfs4_server_event_fd(g.v4) >= 0)
		epoll_ctl(wait_fd, EPOLL_CTL_ADD, nfs4_server_event_fd(g.v4), &ev);
	for (;;) {
		/* callbacks in flight have sockets of their own, outside the epoll set */
		epoll_wait(wait_fd, &ev, 1, cb_active || g.state != NFSD_SERVING ? 10 : 100);
		if (g.pool)
			nfs_pool_poll(g.pool, nfs3_pool_done, 64);
		if (g.v4)
			nfs4_server_poll(g.v4);
		orpc_tcp_srv_poll(&g.tcp);
		if (g.aio)
			nfs_aio_poll(g.aio, nfs3_aio_done, 64);
		orpc_tcp_srv_poll(&g.lock_tcp);
		cb_active = nlm_server_poll(&g.nlm);
		if (g.metrics)
			app_metrics_poll(g.metrics);
		reload_poll();
		if (life_step(end && time(NULL) >= end))
			break;
	}
	served = true; /* the counters are printed once the file work in flight ended */
	rc = 0;
out:
	if (wait_fd >= 0)
		close(wait_fd);
	app_metrics_close(g.metrics);
	g.metrics = NULL;
	reload_fini();
	/* the calls still with io_uring and the helpers end first: their connections wait for
	 * them */
	nfs_aio_destroy(g.aio, nfs3_aio_done);
	g.aio = NULL;
	nfs_pool_destroy(g.pool, nfs3_pool_done);
	g.pool = NULL;
	/* NFSv4's records written and the replies held for them sent, while their connections
	 * are there (after the file work: a compound that waited for it may hold its reply) */
	if (g.v4)
		nfs4_server_flush(g.v4);
	if (served)
		print_stats();
	if (g.tcp_up)
		orpc_tcp_srv_fini(&g.tcp);
	if (g.lock_tcp_up)
		orpc_tcp_srv_fini(&g.lock_tcp);
	/* NFSv4's clients free their locks in NLM's manager: before it goes */
	nfs4_server_destroy(g.v4);
	g.v4 = NULL;
	if (g.nlm_up)
		nlm_server_fini(&g.nlm);
	nfs3_server_fini(&g.tcp_nfs);
	orpc_svc_drc_disable(&g.svc);
	orpc_svc_drc_disable(&g.rdma_svc);
	nfs_fs_close(g.fs);
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
	if (g.config && !g.listen_ip) {
		struct roce_dcqcn_params cc;
		bool cc_on;

		stk_config_default(&cfg);
		cfg.upper_sections = nfsd_conf_sections;
		if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0 ||
		    roce_dcqcn_config_load(g.config, &cc_on, &cc, err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			return 2;
		}
		nl = count_lcores(cfg.lcores);
		if (nl > 0 && g.conf.lcores > nl) {
			fprintf(stderr,
				"droce-nfsd: %s: [nfs] lcores = %u but [eal] lcores = %s names %u "
				"lcore%s: list at least %u there, or lower [nfs] lcores\n",
				g.config, g.conf.lcores, cfg.lcores, nl, nl == 1 ? "" : "s",
				g.conf.lcores);
			return 2;
		}
	}
	printf("droce-nfsd: %s: %d export(s) ok%s%s\n", exports_from(), n, g.config ? "; " : "",
	       g.config ? g.config : "");
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
	nfsd_conf_default(&g.conf);
	g.conn_rl = (struct nfsd_ratelimit){.burst = 20, .interval_s = 10};
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	while ((o = getopt_long(app_argc, app_argv, "", opts, NULL)) != -1) {
		if (o == 'c')
			g.config = optarg;
		else if (o == 'e')
			g.exports = optarg;
		else if (o == 'S')
			over[0][1] = optarg;
		else if (o == 's')
			secs = strtol(optarg, NULL, 0);
		else if (o == 'l')
			g.listen_ip = optarg;
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
	if (g.config && nfsd_conf_load(g.config, &g.conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return 2;
	}
	for (int i = 0; i < 4; i++) {
		if (over[i][1] && nfsd_conf_set(&g.conf, "the command line", over[i][0], over[i][1],
						err, sizeof(err)) != 0) {
			fprintf(stderr, "droce-nfsd: %s\n", err);
			return 2;
		}
	}
	if (check_only) {
		rc = check_files();
		nfsd_conf_free(&g.conf);
		return rc;
	}
	if (!g.config && !g.listen_ip) {
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
	rc = nfs_fs_open(&g.fs, text, g.conf.state, err, sizeof(err));
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
	if (g.listen_ip) {
		rc = serve_tcp_only(secs);
		nfsd_conf_free(&g.conf);
		return rc;
	}
	stk_config_default(&cfg);
	cfg.upper_sections = nfsd_conf_sections;
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0 ||
	    roce_dcqcn_config_load(g.config, &cc_on, &cc, err, sizeof(err)) != 0) {
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
	g.dev = roce_dev_open(0);
	/* [dcqcn]: every QP of the device (the RDMA connections) reacts to CNPs from then on */
	if (g.dev && cc_on) {
		if (roce_dev_set_cc(g.dev, &cc) != 0) {
			fprintf(stderr, "droce-nfsd: the [dcqcn] parameters were refused\n");
			goto out;
		}
		printf("dcqcn: on, line %.0f Gbit/s, min %.1f Gbit/s\n", cc.line_gbps, cc.min_gbps);
	}
	if (g.dev && start_lanes() != 0)
		goto out;
	g.cm = g.dev ? roce_cm_open(g.dev) : NULL;
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	g.listen = g.cm ? roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL) : NULL;
	if (!g.listen || !g.pd || roce_cm_listen(g.listen, NFS3_RDMA_PORT, 16) != 0) {
		fprintf(stderr, "droce-nfsd: no RoCE device, CM or listener: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (nfs3_server_init(&g.tcp_nfs, g.fs, g.conf.max_io) != 0 ||
	    nfs3_server_init(&g.rdma_nfs, g.fs, g.conf.max_io) != 0 || start_pool() != 0) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	start_aio();
	g.svc.ctx = &g.tcp_nfs;
	g.rdma_svc.ctx = &g.rdma_nfs;
	orpc_bc_table_init(&g.bc);
	g.svc.bc = g.rdma_svc.bc = &g.bc;
	if (orpc_svc_drc_enable_n(&g.svc, g.conf.drc_entries) != 0 ||
	    orpc_svc_drc_enable_n(&g.rdma_svc, g.conf.drc_entries) != 0 || !nfs_program()) {
		fprintf(stderr, "droce-nfsd: out of memory\n");
		goto out;
	}
	orpc_svc_add(&g.svc, &orpc_pmap_program);
	orpc_svc_add(&g.svc, nfs_program());
	orpc_svc_add(&g.svc, &mount_program);
	orpc_svc_add(&g.rdma_svc, nfs_program());
	register_all(ip, true);
	/* the help text must stay under RTE_TEL_MAX_STRING_LEN (128), or registration fails */
	if (rte_telemetry_register_cmd("/droce/nfs", tel_nfs,
				       "NFS server counters: calls, outcomes, errors, bytes, DRC. "
				       "No params") != 0)
		fprintf(stderr, "droce-nfsd: /droce/nfs not registered with telemetry\n");
	if (rte_telemetry_register_cmd("/droce/nfs/latency", tel_latency,
				       "Latency histograms per NFSv3 procedure and NFSv4 operation "
				       "(buckets: at most bucket_le_us[i] us). No params") != 0)
		fprintf(stderr, "droce-nfsd: /droce/nfs/latency not registered with telemetry\n");
	if (rte_telemetry_register_cmd("/droce/nfs/clients", tel_clients,
				       "Connections: transport, peer, calls, credits granted, "
				       "overruns, DDP bytes. No params") != 0)
		fprintf(stderr, "droce-nfsd: /droce/nfs/clients not registered with telemetry\n");
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
	for (unsigned i = 1; i < g.nlanes; i++) {
		struct stk_lcore *lc = stk_lcore_get(g.lanes[i].lcore);

		if (!lc || stk_lcore_add_poll(lc, roce_poll, g.dev) != 0 ||
		    stk_lcore_add_poll(lc, nfsd_lane_poll, &g.lanes[i]) != 0) {
			fprintf(stderr, "droce-nfsd: lcore %u runs no stack loop\n",
				g.lanes[i].lcore);
			goto out;
		}
	}
	g.lanes_run = g.nlanes > 1;
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
	g.lanes_run = false;
	for (unsigned i = 1; i < g.nlanes; i++)
		nfsd_lane_stop_io(&g.lanes[i]);
	/* no new connections, then every connection ends and its endpoint is destroyed once the
	 * stack has let go of its regions (serve_poll does that while we poll) */
	if (g.listen)
		roce_cm_destroy_id(g.listen);
	g.listen = NULL;
	for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
		if (g.conns[k].id)
			conn_end(k, "server stopping");
	for (int i = 0; i < 1000000 && g.dev; i++) {
		int busy = 0;

		for (uint32_t k = 0; k < NFSD_CONNS_MAX; k++)
			busy += g.conns[k].ep != NULL;
		if (!busy)
			break;
		stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	}
	reload_fini();
	nfs_aio_destroy(g.aio, nfs3_aio_done);
	g.aio = NULL;
	nfs_pool_destroy(g.pool, nfs3_pool_done);
	g.pool = NULL;
	/* NFSv4's records written and the replies held for them sent, while their connections
	 * are there (after the file work: a compound that waited for it may hold its reply) */
	if (g.v4)
		nfs4_server_flush(g.v4);
	if (served)
		print_stats();
	if (g.tcp_up)
		orpc_tcp_srv_fini(&g.tcp);
	g.tcp_up = false;
	if (g.lock_tcp_up)
		orpc_tcp_srv_fini(&g.lock_tcp);
	g.lock_tcp_up = false;
	app_metrics_close(g.metrics);
	g.metrics = NULL;
	/* NFSv4's clients free their locks in NLM's manager: before it goes */
	nfs4_server_destroy(g.v4);
	g.v4 = NULL;
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
	for (unsigned i = 1; i < g.nlanes; i++)
		nfsd_lane_fini(&g.lanes[i]);
	nfs_fs_close(g.fs);
	nfsd_conf_free(&g.conf);
	rte_eal_cleanup();
	return rc;
}
