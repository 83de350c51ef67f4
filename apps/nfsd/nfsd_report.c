/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_report.c - what droce-nfsd tells about itself: who is connected (/droce/nfs/clients,
 * from a snapshot the main lcore takes), the counters at exit, rte_telemetry's /droce/nfs,
 * /droce/nfs/latency and /droce/nlm, and the Prometheus /metrics endpoint. Every counter is
 * read as written by its owning lcore (one aligned 64-bit load; a reader may see it one
 * call old); the lanes' servers are summed with lane 0's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "app_metrics.h"
#include "app_start.h"
#include "mount_xdr.h"
#include "nfsd_server.h"
#include "nfsd_tel.h"
#include "stk_iface.h"
#include "stk_stack.h"

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
void nfsd_clients_snapshot(void)
{
	uint32_t w = (atomic_load_explicit(&snap.seq, memory_order_relaxed) + 1) & 1, n = 0;
	struct orpc_peer peers[64];
	uint64_t now = nfsd_now_ns();

	if (now < snap.next_ns)
		return;
	snap.next_ns = now + 500000000ull;
	for (uint32_t k = 0; k < NFSD_CONNS_MAX && n < CLIENT_ROWS; k++) {
		struct client_row *c = &snap.rows[w][n];
		const struct rpcrdma_ep_stats *es;
		struct rpcrdma_ep_info info;
		char ip[INET6_ADDRSTRLEN];

		if (!nfsd.conns[k].ep || !nfsd.conns[k].id || nfsd.conns[k].closing)
			continue;
		rpcrdma_ep_info(nfsd.conns[k].ep, &info);
		es = rpcrdma_ep_stats(nfsd.conns[k].ep);
		stk_ipaddr_str(&nfsd.conns[k].id->remote_ip, ip, sizeof(ip));
		*c = (struct client_row){.rdma = true,
					 .calls = es->rx_msgs,
					 .credits = info.credits,
					 .in_use = info.calls_waiting + info.calls_serving,
					 .overruns = es->credit_overrun,
					 .ddp_read_bytes = es->ddp_read_bytes,
					 .ddp_write_bytes = es->ddp_write_bytes,
					 .lane = nfsd.conns[k].lane,
					 .lcore = nfsd.conns[k].lane
							  ? nfsd.lanes[nfsd.conns[k].lane].lcore
							  : rte_get_main_lcore()};
		snprintf(c->addr, sizeof(c->addr), "%s:%u", ip, nfsd.conns[k].id->remote_port);
		n++;
	}
	for (int srv = 0; srv < 2; srv++) {
		const struct orpc_tcp_srv *t = srv ? &nfsd.lock_tcp : &nfsd.tcp;
		uint32_t np = (srv ? nfsd.lock_tcp_up : nfsd.tcp_up)
				      ? orpc_tcp_srv_peers(t, peers, 64)
				      : 0;

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

/* Each port's losses (app_port_drops: the stack's drops by reason, the port's missed and
 * no-mbuf counts; then its TX errors) and the RoCE device's lane handoffs and lost
 * completions, as "port N: ..." and "roce: ...": a run that lost frames says where. Nothing
 * for a port that lost nothing. */
static void print_losses(void)
{
	for (int i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get((uint16_t)i);
		struct rte_eth_stats es;
		char line[1024];
		size_t n = app_port_drops(i, line, sizeof(line));

		if (ifc && rte_eth_stats_get(ifc->port_id, &es) == 0 && es.oerrors)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " tx_errors %llu",
					      (unsigned long long)es.oerrors);
		if (n)
			printf("port %d: dropped:%s\n", i, line);
	}
	if (nfsd.dev) {
		struct roce_dev_counts c;

		roce_dev_counts(nfsd.dev, &c);
		printf("roce: frames handed between lanes %llu, completions lost %llu, events "
		       "undelivered %llu\n",
		       (unsigned long long)c.rx_handoff, (unsigned long long)c.cqe_lost,
		       (unsigned long long)c.async_dropped);
	}
}

void nfsd_print_stats(void)
{
	struct nfs_fs_stats fst;
	struct orpc_drc_stats drc[2];
	struct nfsd_metrics_src src;
	struct orpc_svc_stats rsv;
	/* the RDMA servers of every lane, summed (lane 0's alone when there is one) */
	static struct nfs3_stats rst;

	print_losses();
	printf("tcp: accepted %llu, records %llu, udp calls %llu, closed %llu (garbage %llu)\n",
	       (unsigned long long)nfsd.tcp.stats.accepted,
	       (unsigned long long)nfsd.tcp.stats.records,
	       (unsigned long long)nfsd.tcp.stats.udp_calls,
	       (unsigned long long)nfsd.tcp.stats.closed,
	       (unsigned long long)nfsd.tcp.stats.closed_garbage);
	nfsd_metrics_src(&src);
	src.nfs[0] = NULL; /* the RDMA ones only */
	src.svc[0] = NULL;
	nfsd_metrics_nfs_total(&src, &rst);
	nfsd_metrics_rpc_total(&src, &rsv, &drc[1]);
	printf("rdma: accepted %llu, rejected %llu, closed %llu, calls %llu; staging regions "
	       "allocated %llu, reused %llu\n",
	       (unsigned long long)nfsd.accepted, (unsigned long long)nfsd.rejected,
	       (unsigned long long)nfsd.closed, (unsigned long long)rsv.calls,
	       (unsigned long long)src.rdma_regions_allocated,
	       (unsigned long long)src.rdma_regions_reused);
	for (unsigned i = 0; nfsd.nlanes > 1 && i < nfsd.nlanes; i++) {
		const struct nfs3_stats *ls = i ? &nfsd.lanes[i].nfs.st : &nfsd.rdma_nfs.st;
		uint64_t calls = 0;

		for (uint32_t p = 0; p < NFS3_NPROCS; p++)
			calls += ls->proc[p];
		printf("rdma: lane %u on lcore %u: connections %llu, NFSv3 calls %llu, read %llu "
		       "bytes, written %llu bytes\n",
		       i, i ? nfsd.lanes[i].lcore : rte_get_main_lcore(),
		       (unsigned long long)nfsd.lane_accepted[i], (unsigned long long)calls,
		       (unsigned long long)ls->read_bytes, (unsigned long long)ls->write_bytes);
	}
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		if (nfsd.svc.stats.outcome[k] + rsv.outcome[k] + nfsd.lock_svc.stats.outcome[k])
			printf("rpc: %s tcp %llu rdma %llu nlm/nsm %llu\n",
			       orpc_outcome_name((enum orpc_outcome)k),
			       (unsigned long long)nfsd.svc.stats.outcome[k],
			       (unsigned long long)rsv.outcome[k],
			       (unsigned long long)nfsd.lock_svc.stats.outcome[k]);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		if (nfsd.tcp_nfs.st.proc[p] + rst.proc[p])
			printf("nfs3: %s tcp %llu rdma %llu\n", nfs3_proc_name(p),
			       (unsigned long long)nfsd.tcp_nfs.st.proc[p],
			       (unsigned long long)rst.proc[p]);
	for (uint32_t p = 0; p < MOUNT_NPROCS; p++)
		if (nfsd.tcp_nfs.st.mount_proc[p])
			printf("mount: %s %llu\n", nfs_mnt_proc_name(p),
			       (unsigned long long)nfsd.tcp_nfs.st.mount_proc[p]);
	printf("nfs3: calls on helper threads %llu (waited for scratch %llu), run inline for want "
	       "of scratch %llu, READs and WRITEs by io_uring %llu\n",
	       (unsigned long long)(nfsd.tcp_nfs.st.deferred + rst.deferred),
	       (unsigned long long)(nfsd.tcp_nfs.st.parked + rst.parked),
	       (unsigned long long)(nfsd.tcp_nfs.st.sync_fallback + rst.sync_fallback),
	       (unsigned long long)(nfsd.tcp_nfs.st.aio + rst.aio));
	printf("nfs3: status ok %llu, errors %llu; read %llu bytes, written %llu bytes\n",
	       (unsigned long long)(nfsd.tcp_nfs.st.status_ok + rst.status_ok),
	       (unsigned long long)(nfsd.tcp_nfs.st.status_err + rst.status_err),
	       (unsigned long long)(nfsd.tcp_nfs.st.read_bytes + rst.read_bytes),
	       (unsigned long long)(nfsd.tcp_nfs.st.write_bytes + rst.write_bytes));
	if (nfsd.v4) {
		struct nfs4_state_stats vs;
		struct nfs4_stats v4;

		nfs4_server_stats(nfsd.v4, &v4);
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
		       "%llu (session gone %llu); READs io_uring handed back to run again %llu\n",
		       (unsigned long long)v4.io_deferred, (unsigned long long)v4.io_aio,
		       (unsigned long long)v4.io_pool, (unsigned long long)v4.io_inline,
		       (unsigned long long)v4.io_resumed, (unsigned long long)v4.io_session_gone,
		       (unsigned long long)v4.io_rerun);
		nfs4_state_stats(nfs4_server_state(nfsd.v4), &vs);
		printf("nfs4: clients %llu, sessions %llu; expired %llu, destroyed %llu; kept for a "
		       "compound in flight: DELAY %llu, expiry put off %llu\n",
		       (unsigned long long)vs.clients, (unsigned long long)vs.sessions,
		       (unsigned long long)vs.clients_expired,
		       (unsigned long long)vs.clients_destroyed,
		       (unsigned long long)vs.destroy_busy, (unsigned long long)vs.expiry_held);
	}
	if (nfsd.nlm_up) {
		uint32_t locks, waiters;

		for (uint32_t p = 0; p < NLM4_NPROCS; p++)
			if (nfsd.nlm.st.nlm_proc[p])
				printf("nlm: %s %llu\n", nlm4_proc_name(p),
				       (unsigned long long)nfsd.nlm.st.nlm_proc[p]);
		for (uint32_t k = 0; k < NLM4_NSTATS; k++)
			if (nfsd.nlm.st.nlm_stat[k])
				printf("nlm: answered %s %llu\n", nlm4_stat_name(k),
				       (unsigned long long)nfsd.nlm.st.nlm_stat[k]);
		for (uint32_t p = 0; p < NSM_NPROCS; p++)
			if (nfsd.nlm.st.nsm_proc[p])
				printf("nsm: %s %llu\n", nsm_proc_name(p),
				       (unsigned long long)nfsd.nlm.st.nsm_proc[p]);
		for (uint32_t k = 1; k < NLM_CB_NUM_STATES; k++)
			if (nfsd.nlm.st.cb_state[k])
				printf("callbacks: %s %llu\n",
				       nlm_cb_state_name((enum nlm_cb_state)k),
				       (unsigned long long)nfsd.nlm.st.cb_state[k]);
		nfs_lock_count(&nfsd.nlm.mgr, &locks, &waiters);
		printf("locks: held %u, waiting %u, reclaims %llu, waiters granted %llu, "
		       "refused grants %llu, dropped by notify/free_all %llu, callbacks dropped "
		       "%llu\n",
		       locks, waiters, (unsigned long long)nfsd.nlm.mgr.st.reclaims,
		       (unsigned long long)nfsd.nlm.mgr.st.granted_waiters,
		       (unsigned long long)nfsd.nlm.st.granted_refused,
		       (unsigned long long)nfsd.nlm.st.notify_dropped,
		       (unsigned long long)nfsd.nlm.st.cb_dropped);
		printf("nsm: monitor list writes %llu (on the lcore %llu, failed %llu), lock "
		       "replies held for them %llu, unheld %llu\n",
		       (unsigned long long)nfsd.nlm.st.nsm_writes,
		       (unsigned long long)nfsd.nlm.st.nsm_sync_writes,
		       (unsigned long long)nfsd.nlm.st.nsm_write_errors,
		       (unsigned long long)nfsd.nlm.st.nsm_held,
		       (unsigned long long)nfsd.nlm.st.nsm_unheld);
	}
	orpc_svc_drc_stats(&nfsd.svc, &drc[0]);
	printf("drc: kept %llu, replayed %llu, dropped in progress %llu, evicted %llu, too big "
	       "%llu\n",
	       (unsigned long long)(drc[0].inserted + drc[1].inserted),
	       (unsigned long long)(drc[0].replayed + drc[1].replayed),
	       (unsigned long long)(drc[0].in_progress_drops + drc[1].in_progress_drops),
	       (unsigned long long)(drc[0].evicted + drc[1].evicted),
	       (unsigned long long)(drc[0].too_big + drc[1].too_big));
	nfs_fs_stats(nfsd.fs, &fst);
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
		if (nfsd.nlm.st.nlm_proc[i])
			rte_tel_data_add_dict_u64(p, nlm4_proc_name(i), nfsd.nlm.st.nlm_proc[i]);
	rte_tel_data_add_dict_container(d, "nlm_calls", p, 0);
	for (uint32_t k = 0; k < NLM4_NSTATS; k++)
		rte_tel_data_add_dict_u64(d, nlm4_stat_name(k), nfsd.nlm.st.nlm_stat[k]);
	if (nfsd.nlm_up)
		nfs_lock_count(&nfsd.nlm.mgr, &locks, &waiters);
	rte_tel_data_add_dict_u64(d, "locks_held", locks);
	rte_tel_data_add_dict_u64(d, "waiters", waiters);
	rte_tel_data_add_dict_u64(d, "in_grace", nfsd.nlm_up && nfs_lock_in_grace(&nfsd.nlm.mgr));
	rte_tel_data_add_dict_u64(d, "reclaims", nfsd.nlm.mgr.st.reclaims);
	rte_tel_data_add_dict_u64(d, "waiters_granted", nfsd.nlm.mgr.st.granted_waiters);
	rte_tel_data_add_dict_u64(d, "grants_refused", nfsd.nlm.st.granted_refused);
	rte_tel_data_add_dict_u64(d, "callbacks_done", nfsd.nlm.st.cb_state[NLM_CB_DONE]);
	rte_tel_data_add_dict_u64(d, "callbacks_failed",
				  nfsd.nlm.st.cb_state[NLM_CB_ERR_NOPORT] +
					  nfsd.nlm.st.cb_state[NLM_CB_ERR_CALL]);
	rte_tel_data_add_dict_u64(d, "callbacks_dropped", nfsd.nlm.st.cb_dropped);
	rte_tel_data_add_dict_u64(d, "dropped_by_notify", nfsd.nlm.st.notify_dropped);
	rte_tel_data_add_dict_u64(d, "sm_notify_received", nfsd.nlm.st.nsm_proc[NSM_PROC_NOTIFY]);
	rte_tel_data_add_dict_u64(d, "nsm_state", (uint64_t)nfsd.nlm.nsm_state);
	rte_tel_data_add_dict_u64(d, "monitored_hosts", nfsd.nlm.nhosts);
	rte_tel_data_add_dict_u64(d, "nsm_list_writes", nfsd.nlm.st.nsm_writes);
	rte_tel_data_add_dict_u64(d, "nsm_list_sync_writes", nfsd.nlm.st.nsm_sync_writes);
	rte_tel_data_add_dict_u64(d, "nsm_list_write_errors", nfsd.nlm.st.nsm_write_errors);
	rte_tel_data_add_dict_u64(d, "replies_held", nfsd.nlm.st.nsm_held);
	rte_tel_data_add_dict_u64(d, "replies_unheld", nfsd.nlm.st.nsm_unheld);
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
	nfsd_metrics_src(&s);
	nfsd_metrics_nfs_total(&s, t);
	rc = nfsd_tel_latency(d, t, nfsd.v4);
	free(t);
	return rc;
}

/* What the counters are read from, for /metrics and rte_telemetry's /droce/nfs */
void nfsd_metrics_src(struct nfsd_metrics_src *out)
{
	bool rdma = !nfsd.listen_ip;
	struct nfsd_metrics_src s = {
		.nfs = {&nfsd.tcp_nfs, rdma ? &nfsd.rdma_nfs : NULL},
		.svc = {&nfsd.svc, rdma ? &nfsd.rdma_svc : NULL},
		.svc_name = {"tcp", "rdma"},
		.lock_svc = nfsd.nlm_up ? &nfsd.lock_svc : NULL,
		.tcp = nfsd.tcp_up ? &nfsd.tcp : NULL,
		.lock_tcp = nfsd.lock_tcp_up ? &nfsd.lock_tcp : NULL,
		.bc = &nfsd.bc,
		.nlm = nfsd.nlm_up ? &nfsd.nlm : NULL,
		.pool = {nfsd.pool},
		.aio = {nfsd.aio},
		.threads = nfsd.conf.threads,
		.fs = nfsd.fs,
		.v4 = nfsd.v4,
		.rdma = rdma,
		.rdma_accepted = nfsd.accepted,
		.rdma_rejected = nfsd.rejected,
		.rdma_closed = nfsd.closed,
		.start_time = nfsd_metrics_start_time(),
	};
	struct rpcrdma_regions_stats rst;

	rpcrdma_regions_stats(nfsd.regions, &rst);
	s.rdma_regions_allocated = rst.allocated;
	s.rdma_regions_reused = rst.reused;

	/* [nfs] lcores: the other lanes' RDMA servers, summed with lane 0's as "rdma" */
	for (unsigned i = 0; rdma && i < nfsd.nlanes; i++) {
		s.nlanes = nfsd.nlanes;
		s.lane_lcore[i] = i ? nfsd.lanes[i].lcore : rte_get_main_lcore();
		s.lane_accepted[i] = nfsd.lane_accepted[i];
		s.lane_nfs[i] = i ? &nfsd.lanes[i].nfs : &nfsd.rdma_nfs;
		if (i) {
			s.pool[i] = nfsd.lanes[i].pool;
			s.aio[i] = nfsd.lanes[i].aio;
			s.nfs[1 + i] = &nfsd.lanes[i].nfs;
			s.svc[1 + i] = &nfsd.lanes[i].svc;
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
	nfsd_metrics_src(&s);
	return nfsd_tel_nfs(d, &s);
}

/* GET /metrics (--metrics): the counters above for Prometheus, written on this lcore */
static void write_metrics(struct app_buf *b, void *arg)
{
	struct nfsd_metrics_src s;

	(void)arg;
	nfsd_metrics_src(&s);
	nfsd_metrics_write(b, &s);
}

/* [nfs] metrics / --metrics: the listener, once droce's address exists.
 * @return 0 or -1 (said why) */
int nfsd_metrics_start(void)
{
	char err[256];

	if (!nfsd.conf.metrics[0])
		return 0;
	nfsd.metrics = app_metrics_open(nfsd.conf.metrics, write_metrics, NULL, err, sizeof(err));
	if (!nfsd.metrics) {
		fprintf(stderr, "droce-nfsd: %s\n", err);
		return -1;
	}
	printf("metrics at %s port %u: GET /metrics\n", nfsd.conf.metrics,
	       app_metrics_port(nfsd.metrics));
	return 0;
}

/* rte_telemetry's commands */
void nfsd_tel_register(void)
{
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
}
