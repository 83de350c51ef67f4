/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_metrics.c - droce-nfsd's counters written as Prometheus metrics (app_prom.h). Every
 * counter is the owner lcore's own (nfs3_stats, orpc_svc_stats, orpc_tcp_stats, nlm_stats,
 * ...); this runs on that lcore, from the /metrics poll, so it reads them without a race.
 * The two NFSv3 servers (TCP/UDP and RDMA) are summed: a procedure is one series.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mount_xdr.h"
#include "nfsd_metrics.h"

#define P "droce_nfsd_"

double nfsd_metrics_start_time(void)
{
	static double cached;
	char buf[1024], *rp;
	unsigned long long ticks = 0, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n = 0;
	FILE *f;

	if (cached)
		return cached;
	f = fopen("/proc/self/stat", "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	/* field 22, starttime; the command name (field 2) may hold spaces, so count from ')' */
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 2,
			  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			  "%*d %*d %*d %*d %llu",
			  &ticks) != 1)
		ticks = 0;
	f = fopen("/proc/stat", "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	if (f)
		fclose(f);
	if (!btime || !ticks || hz <= 0)
		cached = (double)time(NULL);
	else
		cached = (double)btime + (double)ticks / (double)hz;
	return cached;
}

static void counter(struct app_buf *b, const char *name, const char *help, uint64_t v)
{
	app_prom_family(b, name, "counter", help);
	app_prom_sample(b, name, NULL, v);
}

static void gauge(struct app_buf *b, const char *name, const char *help, uint64_t v)
{
	app_prom_family(b, name, "gauge", help);
	app_prom_sample(b, name, NULL, v);
}

void nfsd_metrics_nfs_total(const struct nfsd_metrics_src *s, struct nfs3_stats *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < NFSD_METRICS_NSERVERS; i++) {
		const struct nfs3_stats *st = s->nfs[i] ? &s->nfs[i]->st : NULL;

		if (!st)
			continue;
		for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
			t->proc[p] += st->proc[p];
			t->lat_ns[p] += st->lat_ns[p];
			for (uint32_t k = 0; k < NFS3_LAT_BUCKETS; k++)
				t->lat[p][k] += st->lat[p][k];
		}
		for (uint32_t k = 0; k < 32; k++)
			t->status[k] += st->status[k];
		t->status_ok += st->status_ok;
		t->status_err += st->status_err;
		t->read_bytes += st->read_bytes;
		t->write_bytes += st->write_bytes;
		for (uint32_t p = 0; p < MOUNT_NPROCS; p++)
			t->mount_proc[p] += st->mount_proc[p];
		t->deferred += st->deferred;
		t->sync_fallback += st->sync_fallback;
		t->parked += st->parked;
		t->aio += st->aio;
	}
}

static void write_nfs3(struct app_buf *b, const struct nfsd_metrics_src *s)
{
	double le[NFS3_LAT_BUCKETS - 1];
	struct nfsd_metrics_io io;
	struct nfs3_stats t;
	char lab[64];

	nfsd_metrics_nfs_total(s, &t);
	app_prom_family(b, P "nfs3_calls_total", "counter",
			"NFSv3 calls answered, by procedure (TCP, UDP and RDMA)");
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		snprintf(lab, sizeof(lab), "proc=\"%s\"", nfs3_proc_name(p));
		app_prom_sample(b, P "nfs3_calls_total", lab, t.proc[p]);
	}
	for (uint32_t i = 0; i + 1 < NFS3_LAT_BUCKETS; i++)
		le[i] = (double)(1u << i) * 1e-6;
	app_prom_family(b, P "nfs3_call_duration_seconds", "histogram",
			"NFSv3 call latency, from the dispatcher to the reply handed to the "
			"transport (helper-thread time included), by procedure");
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		snprintf(lab, sizeof(lab), "proc=\"%s\"", nfs3_proc_name(p));
		app_prom_histogram(b, P "nfs3_call_duration_seconds", lab, le, t.lat[p],
				   NFS3_LAT_BUCKETS, (double)t.lat_ns[p] * 1e-9);
	}
	app_prom_family(b, P "nfs3_replies_total", "counter",
			"NFSv3 replies by NFS status (NFS3_OK and errors; other: not listed)");
	for (uint32_t k = 0; k < 32; k++) {
		enum nfs_stat st = nfs3_stat_of_slot(k);

		if (k == 31)
			snprintf(lab, sizeof(lab), "status=\"other\"");
		else if (nfs3_stat_slot(st) == k)
			snprintf(lab, sizeof(lab), "status=\"%s\"", nfs_stat_name(st));
		else
			continue; /* an unused slot */
		app_prom_sample(b, P "nfs3_replies_total", lab, t.status[k]);
	}
	app_prom_family(b, P "mount_calls_total", "counter",
			"MOUNT v1/v3 calls, by procedure (TCP and UDP)");
	for (uint32_t p = 0; p < MOUNT_NPROCS; p++) {
		snprintf(lab, sizeof(lab), "proc=\"%s\"", nfs_mnt_proc_name(p));
		app_prom_sample(b, P "mount_calls_total", lab, t.mount_proc[p]);
	}
	counter(b, P "nfs3_errors_total", "NFSv3 replies with a status other than NFS3_OK",
		t.status_err);
	counter(b, P "nfs3_read_bytes_total", "bytes returned by successful NFSv3 READs",
		t.read_bytes);
	counter(b, P "nfs3_written_bytes_total", "bytes written by successful NFSv3 WRITEs",
		t.write_bytes);
	counter(b, P "helper_calls_total",
		"calls (NFSv3 but NULL, and MOUNT's MNT) whose file-system work ran on a helper "
		"thread",
		t.deferred);
	counter(b, P "helper_inline_total",
		"such calls run on the loop although helper threads exist (over UDP, or no "
		"scratch space and no room to wait for it)",
		t.sync_fallback);
	counter(b, P "helper_parked_total",
		"such calls that waited for scratch space (every set was with a running call) "
		"before they went to a helper thread",
		t.parked);
	nfsd_metrics_io_total(s, &io);
	gauge(b, P "helper_queue_depth", "NFSv3 calls with the helper threads now",
	      io.helper_queue);
	if (io.aio) {
		const struct nfs_aio_stats a = io.aio_st;

		counter(b, P "io_uring_calls_total",
			"NFSv3 READs and WRITEs whose data went through io_uring on the loop",
			t.aio);
		counter(b, P "io_uring_fallback_total",
			"READs and WRITEs io_uring left to the helper threads (descriptor not "
			"cached, not the owner's, a sync needed, no slot, an error)",
			a.miss + a.not_owner + a.needs_sync + a.busy + a.other);
		counter(b, P "io_uring_rerun_total",
			"READs io_uring read whose file changed owner since the descriptor cache "
			"saw it: run again by the helper threads, checked",
			a.rechecked);
		counter(b, P "io_uring_submits_total", "io_uring_submit calls", a.submits);
		gauge(b, P "io_uring_queue_depth", "READs and WRITEs in io_uring now",
		      io.aio_inflight);
	}
	gauge(b, P "helper_threads", "helper threads for the file-system work", io.helper_threads);
}

static void write_nfs4(struct app_buf *b, struct nfs4_server *v4)
{
	static struct nfs4_stats t; /* 14 KiB: off the stack; one lcore writes /metrics */
	double le[NFS_LAT_BUCKETS - 1];
	struct nfs4_state_stats ss;
	char lab[64];

	nfs4_server_stats(v4, &t);
	nfs4_state_stats(nfs4_server_state(v4), &ss);
	for (uint32_t i = 0; i + 1 < NFS_LAT_BUCKETS; i++)
		le[i] = (double)(1u << i) * 1e-6;
	counter(b, P "nfs4_compounds_total", "NFSv4.1/4.2 COMPOUNDs answered (TCP and RDMA)",
		t.compounds);
	counter(b, P "nfs4_compound_errors_total",
		"COMPOUNDs that ended on a failing operation (its status is the compound's)",
		t.status_err);
	app_prom_family(b, P "nfs4_compound_duration_seconds", "histogram",
			"COMPOUND latency, from its decoding to its reply (file work off the lcore "
			"included)");
	app_prom_histogram(b, P "nfs4_compound_duration_seconds", NULL, le, t.compound_lat,
			   NFS_LAT_BUCKETS, (double)t.compound_lat_ns * 1e-9);
	/* the operations served (a name for the opcode); ILLEGAL counts undefined opcodes */
	app_prom_family(b, P "nfs4_ops_total", "counter", "NFSv4 operations run, by operation");
	for (uint32_t op = 0; op <= NFS4_OP_LAST; op++) {
		if (op && strcmp(nfs4_op_name(op), "ILLEGAL") == 0)
			continue;
		snprintf(lab, sizeof(lab), "op=\"%s\"", nfs4_op_name(op));
		app_prom_sample(b, P "nfs4_ops_total", lab, t.op[op]);
	}
	app_prom_family(b, P "nfs4_op_errors_total", "counter",
			"NFSv4 operations that failed, by operation");
	for (uint32_t op = 0; op <= NFS4_OP_LAST; op++) {
		if (op && strcmp(nfs4_op_name(op), "ILLEGAL") == 0)
			continue;
		snprintf(lab, sizeof(lab), "op=\"%s\"", nfs4_op_name(op));
		app_prom_sample(b, P "nfs4_op_errors_total", lab, t.op_err[op]);
	}
	app_prom_family(b, P "nfs4_op_duration_seconds", "histogram",
			"NFSv4 operation latency, from its start to its result (file work off the "
			"lcore included), by operation");
	for (uint32_t op = 0; op <= NFS4_OP_LAST; op++) {
		if (op && strcmp(nfs4_op_name(op), "ILLEGAL") == 0)
			continue;
		snprintf(lab, sizeof(lab), "op=\"%s\"", nfs4_op_name(op));
		app_prom_histogram(b, P "nfs4_op_duration_seconds", lab, le, t.op_lat[op],
				   NFS_LAT_BUCKETS, (double)t.op_lat_ns[op] * 1e-9);
	}
	app_prom_family(b, P "nfs4_op_status_total", "counter",
			"failed NFSv4 operations by status (other: a status not listed)");
	for (uint32_t k = 1; k <= NFS4_NSTATUS; k++) {
		if (k == NFS4_NSTATUS)
			snprintf(lab, sizeof(lab), "status=\"other\"");
		else
			snprintf(lab, sizeof(lab), "status=\"NFS4ERR_%s\"",
				 nfs4_stat_name(nfs4_stat_of_slot(k)));
		app_prom_sample(b, P "nfs4_op_status_total", lab, t.status[k]);
	}
	counter(b, P "nfs4_read_bytes_total", "bytes returned by successful NFSv4 READs",
		t.read_bytes);
	counter(b, P "nfs4_written_bytes_total", "bytes written by successful NFSv4 WRITEs",
		t.write_bytes);
	gauge(b, P "nfs4_clients", "NFSv4 client IDs held", ss.clients);
	gauge(b, P "nfs4_sessions", "NFSv4.1 sessions open", ss.sessions);
	counter(b, P "nfs4_clients_expired_total", "client IDs whose lease expired",
		ss.clients_expired);
	counter(b, P "nfs4_opens_total", "successful OPENs", t.opens);
	counter(b, P "nfs4_closes_total", "CLOSEs", t.closes);
	counter(b, P "nfs4_delegations_granted_total", "read delegations granted",
		t.delegs_granted);
	counter(b, P "nfs4_delegations_recalled_total", "CB_RECALLs sent", t.recalls_sent);
	counter(b, P "nfs4_delegations_revoked_total", "delegations revoked", t.delegs_revoked);
	gauge(b, P "nfs4_in_grace", "1 during the grace period after start (reclaims only)",
	      t.in_grace);
	counter(b, P "nfs4_waited_total",
		"COMPOUNDs that waited for an operation's file work off the lcore", t.io_deferred);
	counter(b, P "nfs4_ran_inline_total",
		"COMPOUNDs that ran such file work on the lcore (no memory to wait)", t.io_inline);
}

void nfsd_metrics_io_total(const struct nfsd_metrics_src *s, struct nfsd_metrics_io *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < NFSD_METRICS_NSERVERS - 1; i++) {
		if (s->pool[i]) {
			t->helper_queue += nfs_pool_inflight(s->pool[i]);
			t->helper_threads += s->threads;
		}
		if (s->aio[i]) {
			struct nfs_aio_stats a;

			nfs_aio_stats(s->aio[i], &a);
			t->aio = true;
			t->aio_inflight += nfs_aio_inflight(s->aio[i]);
			t->aio_st.reads += a.reads;
			t->aio_st.writes += a.writes;
			t->aio_st.miss += a.miss;
			t->aio_st.not_owner += a.not_owner;
			t->aio_st.needs_sync += a.needs_sync;
			t->aio_st.busy += a.busy;
			t->aio_st.other += a.other;
			t->aio_st.submits += a.submits;
			t->aio_st.personalities += a.personalities;
			t->aio_st.errors += a.errors;
			t->aio_st.rechecked += a.rechecked;
			t->aio_st.stale += a.stale;
		}
	}
}

void nfsd_metrics_rpc_total(const struct nfsd_metrics_src *s, struct orpc_svc_stats *sv,
			    struct orpc_drc_stats *d)
{
	if (sv)
		memset(sv, 0, sizeof(*sv));
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < NFSD_METRICS_NSERVERS; i++) {
		struct orpc_drc_stats one;

		if (!s->svc[i])
			continue;
		if (sv) {
			sv->calls += s->svc[i]->stats.calls;
			for (int k = 0; k < ORPC_OUT_NUM; k++)
				sv->outcome[k] += s->svc[i]->stats.outcome[k];
		}
		orpc_svc_drc_stats(s->svc[i], &one);
		d->inserted += one.inserted;
		d->replayed += one.replayed;
		d->in_progress_drops += one.in_progress_drops;
		d->evicted += one.evicted;
		d->too_big += one.too_big;
	}
}

static void write_rpc(struct app_buf *b, const struct nfsd_metrics_src *s)
{
	struct orpc_drc_stats d = {0};
	char lab[96];

	app_prom_family(b, P "rpc_outcomes_total", "counter",
			"RPC calls by outcome, by server (tcp: NFS, MOUNT and the portmapper over "
			"TCP/UDP; rdma: NFS over RPC-over-RDMA; lock: NLM and NSM)");
	for (int i = 0; i <= NFSD_METRICS_NSERVERS; i++) {
		const struct orpc_svc *v = i < NFSD_METRICS_NSERVERS ? s->svc[i] : s->lock_svc;
		const char *name = i < NFSD_METRICS_NSERVERS ? s->svc_name[i] : "lock";
		uint64_t out[ORPC_OUT_NUM];
		bool seen = false;

		if (!v)
			continue;
		/* the lanes' RDMA servers are one "rdma": summed at the first of the name */
		for (int j = 0; j < i && j < NFSD_METRICS_NSERVERS; j++)
			seen |= s->svc[j] && !strcmp(s->svc_name[j], name);
		if (seen)
			continue;
		for (int k = 0; k < ORPC_OUT_NUM; k++)
			out[k] = v->stats.outcome[k];
		for (int j = i + 1; i < NFSD_METRICS_NSERVERS && j < NFSD_METRICS_NSERVERS; j++)
			for (int k = 0;
			     s->svc[j] && !strcmp(s->svc_name[j], name) && k < ORPC_OUT_NUM; k++)
				out[k] += s->svc[j]->stats.outcome[k];
		for (int k = 0; k < ORPC_OUT_NUM; k++) {
			snprintf(lab, sizeof(lab), "svc=\"%s\",outcome=\"%s\"", name,
				 orpc_outcome_name((enum orpc_outcome)k));
			app_prom_sample(b, P "rpc_outcomes_total", lab, out[k]);
		}
	}
	nfsd_metrics_rpc_total(s, NULL, &d);
	gauge(b, P "drc_entries", "the duplicate request cache's size per server ([nfs] drc)",
	      s->svc[0] ? orpc_svc_drc_entries(s->svc[0]) : 0);
	counter(b, P "drc_inserted_total", "replies kept by the duplicate request cache",
		d.inserted);
	counter(b, P "drc_replayed_total",
		"retransmissions answered from the duplicate request cache", d.replayed);
	counter(b, P "drc_in_progress_drops_total",
		"retransmissions dropped because the call still ran", d.in_progress_drops);
	counter(b, P "drc_evicted_total", "cached replies evicted for newer ones", d.evicted);
	counter(b, P "drc_too_big_total", "replies too long to be cached", d.too_big);
}

static void write_conns(struct app_buf *b, const struct nfsd_metrics_src *s)
{
	char lab[32];

	if (s->rdma) {
		gauge(b, P "rdma_connections", "RPC-over-RDMA connections open",
		      s->rdma_accepted - s->rdma_closed);
		counter(b, P "rdma_accepted_total", "RPC-over-RDMA connections accepted",
			s->rdma_accepted);
		counter(b, P "rdma_rejected_total",
			"RPC-over-RDMA connection requests rejected (full, or setup failed)",
			s->rdma_rejected);
		counter(b, P "rdma_closed_total", "RPC-over-RDMA connections closed",
			s->rdma_closed);
		counter(b, P "rdma_regions_allocated_total",
			"connections' staging regions allocated (none kept for reuse)",
			s->rdma_regions_allocated);
		counter(b, P "rdma_regions_reused_total",
			"connections' staging regions taken from those earlier connections left",
			s->rdma_regions_reused);
	}
	app_prom_family(b, P "tcp_connections", "gauge",
			"TCP connections open (svc: nfs for NFS, MOUNT and the portmapper; lock "
			"for NLM and NSM)");
	for (int i = 0; i < 2; i++) {
		const struct orpc_tcp_srv *t = i ? s->lock_tcp : s->tcp;

		snprintf(lab, sizeof(lab), "svc=\"%s\"", i ? "lock" : "nfs");
		if (t)
			app_prom_sample(b, P "tcp_connections", lab, orpc_tcp_srv_nconns(t));
	}
	app_prom_family(b, P "tcp_accepted_total", "counter", "TCP connections accepted");
	for (int i = 0; i < 2; i++) {
		const struct orpc_tcp_srv *t = i ? s->lock_tcp : s->tcp;

		snprintf(lab, sizeof(lab), "svc=\"%s\"", i ? "lock" : "nfs");
		if (t)
			app_prom_sample(b, P "tcp_accepted_total", lab, t->stats.accepted);
	}
	app_prom_family(b, P "tcp_closed_total", "counter",
			"TCP connections closed (reason: peer, garbage, too_big, empty, error)");
	for (int i = 0; i < 2; i++) {
		const struct orpc_tcp_srv *t = i ? s->lock_tcp : s->tcp;
		const struct {
			const char *why;
			uint64_t n;
		} r[] = {{"peer", t ? t->stats.closed_peer : 0},
			 {"garbage", t ? t->stats.closed_garbage : 0},
			 {"too_big", t ? t->stats.closed_too_big : 0},
			 {"empty", t ? t->stats.closed_empty : 0},
			 {"error", t ? t->stats.closed_error : 0}};

		if (!t)
			continue;
		for (size_t k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
			char l2[64];

			snprintf(l2, sizeof(l2), "svc=\"%s\",reason=\"%s\"", i ? "lock" : "nfs",
				 r[k].why);
			app_prom_sample(b, P "tcp_closed_total", l2, r[k].n);
		}
	}
	app_prom_family(b, P "tcp_records_total", "counter", "RPC records read over TCP");
	app_prom_family(b, P "udp_calls_total", "counter", "RPC calls read over UDP");
	app_prom_family(b, P "udp_deferred_total", "counter",
			"UDP calls kept while their work ran off the loop, answered when it ended");
	app_prom_family(
		b, P "udp_no_slot_total", "counter",
		"UDP calls read with every deferral slot taken (those that would wait ran on the loop)");
	for (int i = 0; i < 2; i++) {
		const struct orpc_tcp_srv *t = i ? s->lock_tcp : s->tcp;

		snprintf(lab, sizeof(lab), "svc=\"%s\"", i ? "lock" : "nfs");
		if (t) {
			app_prom_sample(b, P "tcp_records_total", lab, t->stats.records);
			app_prom_sample(b, P "udp_calls_total", lab, t->stats.udp_calls);
			app_prom_sample(b, P "udp_deferred_total", lab, t->stats.udp_deferred);
			app_prom_sample(b, P "udp_no_slot_total", lab, t->stats.udp_no_slot);
		}
	}
	if (s->bc) {
		gauge(b, P "backchannels", "Connections that can carry backward calls (TCP, RDMA)",
		      s->bc->live);
		counter(b, P "backchannel_calls_total", "Backward calls sent to clients",
			s->bc->st.calls);
	}
}

static void write_nlm(struct app_buf *b, const struct nlm_server *n)
{
	uint32_t locks, waiters;
	char lab[64];

	app_prom_family(b, P "nlm_calls_total", "counter", "NLM v4 calls, by procedure");
	for (uint32_t p = 0; p < NLM4_NPROCS; p++) {
		const char *name = nlm4_proc_name(p);

		if (strcmp(name, "unknown") == 0)
			continue;
		snprintf(lab, sizeof(lab), "proc=\"%s\"", name);
		app_prom_sample(b, P "nlm_calls_total", lab, n->st.nlm_proc[p]);
	}
	app_prom_family(b, P "nlm_replies_total", "counter", "NLM v4 answers, by status");
	for (uint32_t k = 0; k < NLM4_NSTATS; k++) {
		snprintf(lab, sizeof(lab), "status=\"%s\"", nlm4_stat_name(k));
		app_prom_sample(b, P "nlm_replies_total", lab, n->st.nlm_stat[k]);
	}
	app_prom_family(b, P "nsm_calls_total", "counter", "NSM calls, by procedure");
	for (uint32_t p = 0; p < NSM_NPROCS; p++) {
		snprintf(lab, sizeof(lab), "proc=\"%s\"", nsm_proc_name(p));
		app_prom_sample(b, P "nsm_calls_total", lab, n->st.nsm_proc[p]);
	}
	app_prom_family(b, P "nlm_callbacks_total", "counter",
			"the lock manager's calls to clients (GRANTED, SM_NOTIFY): entries into "
			"each state");
	for (uint32_t k = 1; k < NLM_CB_NUM_STATES; k++) {
		snprintf(lab, sizeof(lab), "state=\"%s\"", nlm_cb_state_name((enum nlm_cb_state)k));
		app_prom_sample(b, P "nlm_callbacks_total", lab, n->st.cb_state[k]);
	}
	nfs_lock_count(&n->mgr, &locks, &waiters);
	gauge(b, P "locks_held", "byte-range locks held", locks);
	gauge(b, P "lock_waiters", "blocked lock requests waiting", waiters);
	gauge(b, P "lock_in_grace", "1 during the grace period after start (reclaims only)",
	      nfs_lock_in_grace(&n->mgr));
	counter(b, P "lock_reclaims_total", "locks reclaimed during the grace period",
		n->mgr.st.reclaims);
	counter(b, P "lock_waiters_granted_total", "blocked requests granted later",
		n->mgr.st.granted_waiters);
	counter(b, P "nlm_grants_refused_total",
		"GRANTED callbacks the client answered DENIED (lock taken back)",
		n->st.granted_refused);
	counter(b, P "nlm_callbacks_dropped_total", "callbacks dropped: no free slot",
		n->st.cb_dropped);
	counter(b, P "nlm_notify_dropped_total",
		"locks and waiters dropped by SM_NOTIFY or FREE_ALL", n->st.notify_dropped);
	gauge(b, P "nsm_state", "NSM state number (odd while up)", (uint64_t)n->nsm_state);
	gauge(b, P "nsm_monitored_hosts", "hosts NSM monitors", n->nhosts);
	counter(b, P "nsm_list_writes_total",
		"monitor list writes (write, fsync, rename) by NSM's helper thread",
		n->st.nsm_writes);
	counter(b, P "nsm_list_sync_writes_total",
		"monitor list writes on the lcore (no helper thread)", n->st.nsm_sync_writes);
	counter(b, P "nsm_list_write_errors_total", "monitor list writes that failed",
		n->st.nsm_write_errors);
	counter(b, P "nlm_replies_held_total",
		"lock replies held until their host's monitor entry was on disk", n->st.nsm_held);
	counter(b, P "nlm_replies_unheld_total",
		"lock replies that could not wait for the monitor list (UDP, LOCK_MSG, no memory)",
		n->st.nsm_unheld);
}

/* [nfs] lcores: each lane's RDMA connections accepted and NFSv3 calls answered */
static void write_lanes(struct app_buf *b, const struct nfsd_metrics_src *s)
{
	char lab[64];

	if (!s->nlanes)
		return;
	app_prom_family(b, P "lane_rdma_accepted_total", "counter",
			"RPC-over-RDMA connections accepted, by the lane (lcore) that serves them "
			"([nfs] lcores)");
	for (uint32_t i = 0; i < s->nlanes && i < NFSD_METRICS_NSERVERS - 1; i++) {
		snprintf(lab, sizeof(lab), "lane=\"%u\",lcore=\"%u\"", i, s->lane_lcore[i]);
		app_prom_sample(b, P "lane_rdma_accepted_total", lab, s->lane_accepted[i]);
	}
	app_prom_family(b, P "lane_nfs3_calls_total", "counter",
			"NFSv3 calls answered over RPC-over-RDMA, by lane");
	for (uint32_t i = 0; i < s->nlanes && i < NFSD_METRICS_NSERVERS - 1; i++) {
		uint64_t n = 0;

		for (uint32_t p = 0; s->lane_nfs[i] && p < NFS3_NPROCS; p++)
			n += s->lane_nfs[i]->st.proc[p];
		snprintf(lab, sizeof(lab), "lane=\"%u\",lcore=\"%u\"", i, s->lane_lcore[i]);
		app_prom_sample(b, P "lane_nfs3_calls_total", lab, n);
	}
}

void nfsd_metrics_write(struct app_buf *b, const struct nfsd_metrics_src *s)
{
	struct nfs_fs_stats f;

	app_prom_family(b, P "start_time_seconds", "gauge",
			"start time of the process since the Unix epoch, in seconds");
	app_prom_sample_f(b, P "start_time_seconds", NULL, s->start_time);
	write_nfs3(b, s);
	if (s->v4)
		write_nfs4(b, s->v4);
	write_rpc(b, s);
	write_conns(b, s);
	write_lanes(b, s);
	if (s->nlm)
		write_nlm(b, s->nlm);
	if (s->fs) {
		nfs_fs_stats(s->fs, &f);
		counter(b, P "fs_badhandle_total",
			"NFS3ERR_BADHANDLE answers: handles that fail "
			"their seal",
			f.badhandle);
		counter(b, P "fs_stale_total", "NFS3ERR_STALE answers", f.stale);
		counter(b, P "fs_client_refused_total",
			"calls refused: the client is not in the export's list", f.acces_client);
		counter(b, P "fs_rofs_total", "changes refused by a read-only export", f.rofs);
		counter(b, P "fs_squashed_total", "credentials squashed to the anonymous user",
			f.squashed);
	}
}
