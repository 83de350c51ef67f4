/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-nfsperf.c - an NFSv3 load generator with fio's options and fio's JSON, over
 * RPC-over-RDMA (droce's own stack: RDMA CM to port 20049, RFC 8166 chunks) or over TCP
 * (a kernel socket, through droce's exception TAP when droce's stack runs), against any NFSv3
 * server: droce-nfsd, Linux knfsd, nfs-ganesha (docs/nfsperf.md).
 *
 * A run:
 *   1. MOUNT v3 MNT over TCP (RFC 1813 appendix I) for the export's root handle;
 *   2. each job (numjobs) opens one connection and, one call at a time: READDIRPLUS of the
 *      root (every page), LOOKUP of each of its files NAME.JOB.FILE (CREATE UNCHECKED when
 *      NOENT), GETATTR for its size; files a reading workload finds short are laid out with
 *      their pattern (WRITE UNSTABLE, then COMMIT);
 *   3. the workload (rw=...) with iodepth calls in flight: READ (data by write chunk over
 *      RDMA), WRITE (data by read chunk; FILE_SYNC with sync=1, else UNSTABLE), COMMIT every
 *      fsync=N writes, until size bytes are done or runtime has passed;
 *   4. COMMIT of every file written UNSTABLE, REMOVE with unlink=1, UMNT, then the report.
 * With --nfs-version 4.1 there is no MOUNT: each job's connection gets a session, and the
 * set-up, workload and end calls are COMPOUNDs (nfsperf_job4.c, nfsperf_nfs4.c; docs/nfsperf.md).
 * Every NFS status, RPC reply error and transport error is counted by its name; verify=
 * failures print the offset and the expected and found bytes. The exit status is 0 only when
 * no call failed and no block failed verification.
 *
 * Threading: one thread. With droce's stack, everything runs in a poll hook of the main
 * lcore; without it (TCP only), a plain loop waits in poll(2) when there is nothing to do.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "app_start.h"
#include "mount_xdr.h"
#include "nfsperf_job.h"
#include "roce_cm.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define READDIR_MAXCOUNT 8192u
#define READDIR_ENTRIES 256u
#define READDIR_PAGES 64u
#define NS 1000000000ull

static const char *const job_state_names[] = {JOB_STATE_LIST(JOB_NAME_)};

static struct {
	struct np_opts o;
	struct app_start app;
	bool stack;
	struct np_env env;
	/* MOUNT */
	struct orpc_clnt mnt;
	bool mnt_open, mnt_sent, mnt_done, umnt_sent, umnt_done;
	struct nfs_fh root;
	int phase; /**< 0 mount, 1 jobs, 2 umount, 3 disconnecting, 4 done */
	uint64_t phase_deadline;
	struct np_job *jobs;
	uint64_t t0, next_tick;
	int signals;
	uint64_t signal_at; /**< ns: the first SIGINT/SIGTERM */
	bool finished, failed;
	struct rusage ru0;
	uint64_t last_lat_n[NP_NDIRS];
	double last_lat_sum[NP_NDIRS];
	bool progress_shown;
	FILE *plot; /**< PREFIX.dat: a line a second for gnuplot */
	/* --lanes: lane 0 is the main lcore (the CM's, MOUNT's, the progress line's); lane l > 0
	 * runs the jobs handed to it through ring[l] */
	uint32_t nlanes;
	unsigned lane_lcore[NP_MAX_LANES];
	struct rte_ring *ring[NP_MAX_LANES];
	struct np_job *lane_jobs[NP_MAX_LANES][NP_MAX_JOBS]; /**< [l]: lane l's own list */
	uint32_t lane_njobs[NP_MAX_LANES];
} g = {
	.o = {.export = "/export",
	      .name = "nfsperf",
	      .xprt = NP_XPRT_RDMA,
	      .mount_port = 20048,
	      .rw = NP_RW_READ,
	      .rwmixread = 50,
	      .bs = 4096,
	      .iodepth = 1,
	      .numjobs = 1,
	      .nrfiles = 1,
	      .size = 16u << 20,
	      .eta = 0,
	      .randseed = 0x6e66737065726631ull,
	      .timeout_ms = 10000,
	      .ack_timeout = 19,
	      .lanes = 1,
	      .nconnect = 1,
	      .verify_print = 10},
};

/** What the main lcore sends a lane: a job to take, with the CM event that hands it over
 * (ESTABLISHED) or one that comes later (DISCONNECTED); TCP's jobs come with none. */
struct lane_msg {
	uint32_t job;
	uint32_t has_ev;
	struct roce_cm_event ev;
};

struct np_run np_run;

_Static_assert(NP_MAX_LANES == ROCE_MAX_LANES, "--lanes runs a device's lanes");

/* ---- errors by name ---- */

const char *np_errno_name(int err)
{
	switch (err) {
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case EIO:
		return "EIO";
	case EPROTO:
		return "EPROTO";
	case ECANCELED:
		return "ECANCELED";
	case EBADMSG:
		return "EBADMSG";
	case ENOTCONN:
		return "ENOTCONN";
	case E2BIG:
		return "E2BIG";
	case ENOMEM:
		return "ENOMEM";
	default:
		return "ERRNO";
	}
}

void np_job_error(struct np_job *j, int errnum, const char *name)
{
	np_err_count(&j->res.errs, name);
	if (!j->res.error)
		j->res.error = errnum ? errnum : EIO;
}

/*
 * The reply of one call, judged: NULL when it is an accepted SUCCESS whose results start with
 * NFS3_OK... left to the caller; this only counts transport and RPC errors.
 * @return true when the results are there to decode.
 */
bool np_job_rpc_ok(struct np_job *j, int err, const struct orpc_reply_hdr *h, const char *proc)
{
	if (err) {
		np_job_error(j, -err, np_errno_name(-err));
		fprintf(stderr, "droce-nfsperf: job %u: %s: %s\n", j->idx, proc, strerror(-err));
		return false;
	}
	if (h->denied) {
		np_job_error(j, EACCES, orpc_auth_stat_name(h->why));
		return false;
	}
	if (h->stat != SUCCESS) {
		np_job_error(j, EPROTO, orpc_accept_stat_name(h->stat));
		return false;
	}
	return true;
}

bool np_nfs_ok(struct np_job *j, enum nfs_stat st)
{
	if (st == NFS_OK)
		return true;
	np_job_error(j, EIO, nfs_stat_name(st));
	return false;
}

bool np_decode(struct np_job *j, xdrproc_t xres, void *res, const uint8_t *p, uint32_t len)
{
	XDR x;
	bool ok;

	xdrmem_create(&x, (char *)(uintptr_t)p, len, XDR_DECODE);
	ok = xres(&x, res, 0);
	xdr_destroy(&x);
	if (!ok)
		np_job_error(j, EBADMSG, "undecodable results");
	return ok;
}

/* ---- the job's files ---- */

void np_job_file_name(const struct np_job *j, uint32_t f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s.%u.%u", g.o.name, j->idx, f);
}

uint32_t np_job_file_id(const struct np_job *j, uint32_t f)
{
	return j->idx << 16 | f;
}

void np_job_set_state(struct np_job *j, enum job_state s)
{
	if (j->state != s)
		j->state_cnt[s]++;
	/* the main lcore reads it for the run's end (jobs_over): what the job did comes before */
	__atomic_store_n(&j->state, s, __ATOMIC_RELEASE);
}

bool np_run_reads(void)
{
	return g.o.rw != NP_RW_WRITE && g.o.rw != NP_RW_RANDWRITE;
}

/* ---- set-up calls: one at a time, ctx = the job ---- */

static int meta_call(struct np_job *j, uint32_t proc, xdrproc_t xargs, void *args,
		     uint32_t reply_max, np_done_t done)
{
	int rc = np_conn_call(&j->conn[0], NFS3_PROGRAM, NFS3_VERSION, proc, xargs, args, 0, false,
			      reply_max, done, j);

	if (rc == 0) {
		j->meta_busy = true;
		j->meta_start = np_now_ns();
		j->res.calls[proc]++;
	}
	return rc;
}

void np_job_fail(struct np_job *j, const char *why)
{
	fprintf(stderr, "droce-nfsperf: job %u, in %s: %s\n", j->idx, job_state_names[j->state],
		why);
	if (!j->res.error)
		j->res.error = EIO;
	np_job_set_state(j, JOB_FAILED);
}

static void readdir_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			 uint32_t len)
{
	static _Thread_local struct nfs_dirent ents[READDIR_ENTRIES]; /* each lane its own */
	struct np_job *j = ctx;
	struct nfs3_readdir_res r = {.entries = ents, .cap = READDIR_ENTRIES};

	j->meta_busy = false;
	if (!np_job_rpc_ok(j, err, h, "READDIRPLUS") ||
	    !np_decode(j, (xdrproc_t)xdr_nfs3_readdirplus_res, &r, p, len) ||
	    !np_nfs_ok(j, r.status)) {
		np_job_fail(j, "READDIRPLUS of the export's root failed");
		return;
	}
	j->pages++;
	j->entries += r.count;
	for (uint32_t i = 0; i < r.count; i++) {
		for (uint32_t f = 0; f < g.o.nrfiles; f++) {
			char n[96];

			np_job_file_name(j, f, n, sizeof(n));
			if (strlen(n) == ents[i].namelen &&
			    !memcmp(n, ents[i].name, ents[i].namelen))
				j->files[f].seen = true;
		}
		j->cookie = ents[i].cookie;
	}
	memcpy(j->verf, r.cookieverf, sizeof(j->verf));
	if (r.eof || !r.count || j->pages >= READDIR_PAGES) {
		j->fi = 0;
		np_job_set_state(j, JOB_LOOKUP);
	}
}

static void lookup_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			uint32_t len)
{
	struct np_job *j = ctx;
	struct nfs3_lookup_res r = {0};

	j->meta_busy = false;
	if (!np_job_rpc_ok(j, err, h, "LOOKUP") ||
	    !np_decode(j, (xdrproc_t)xdr_nfs3_lookup_res, &r, p, len)) {
		np_job_fail(j, "LOOKUP failed");
		return;
	}
	if (r.status == NFS_ERR_NOENT) {
		np_job_set_state(j, JOB_CREATE);
		return;
	}
	if (!np_nfs_ok(j, r.status)) {
		np_job_fail(j, "LOOKUP failed");
		return;
	}
	j->files[j->fi].fh = r.fh;
	np_job_set_state(j, JOB_GETATTR);
}

static void create_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			uint32_t len)
{
	struct np_job *j = ctx;
	struct nfs3_create_res r = {0};

	j->meta_busy = false;
	if (!np_job_rpc_ok(j, err, h, "CREATE") ||
	    !np_decode(j, (xdrproc_t)xdr_nfs3_create_res, &r, p, len) || !np_nfs_ok(j, r.status) ||
	    !r.fh.valid) {
		np_job_fail(j, "CREATE failed");
		return;
	}
	j->files[j->fi].fh = r.fh.fh;
	np_job_set_state(j, JOB_GETATTR);
}

static void getattr_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			 uint32_t len)
{
	struct np_job *j = ctx;
	struct nfs3_getattr_res r = {0};
	struct np_file *f = &j->files[j->fi];

	j->meta_busy = false;
	if (!np_job_rpc_ok(j, err, h, "GETATTR") ||
	    !np_decode(j, (xdrproc_t)xdr_nfs3_getattr_res, &r, p, len) || !np_nfs_ok(j, r.status)) {
		np_job_fail(j, "GETATTR failed");
		return;
	}
	if (r.attr.type != NFS_REG) {
		np_job_fail(j, "a job's file name is taken by something not a regular file");
		return;
	}
	f->size = r.attr.size;
	/* reads need the whole file there, in its pattern: lay out what is short */
	f->layout = np_run_reads() && f->size < np_run.fsize;
	if (++j->fi < g.o.nrfiles) {
		np_job_set_state(j, JOB_LOOKUP);
		return;
	}
	j->lay_file = 0;
	j->lay_off = 0;
	np_job_set_state(j, JOB_LAYOUT);
}

static void commit_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			uint32_t len)
{
	struct np_job *j = ctx;
	struct nfs3_commit_res r = {0};

	j->meta_busy = false;
	if (np_job_rpc_ok(j, err, h, "COMMIT") &&
	    np_decode(j, (xdrproc_t)xdr_nfs3_commit_res, &r, p, len) && np_nfs_ok(j, r.status)) {
		j->files[j->fi].dirty = false;
		j->res.sync_ios++;
		np_lat_add(&j->res.sync_lat, np_now_ns() - j->meta_start);
	}
	j->fi++;
}

static void remove_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			uint32_t len)
{
	struct np_job *j = ctx;
	struct nfs3_wcc_res r = {0};

	j->meta_busy = false;
	if (np_job_rpc_ok(j, err, h, "REMOVE") &&
	    np_decode(j, (xdrproc_t)xdr_nfs3_wcc_res, &r, p, len))
		np_nfs_ok(j, r.status);
	j->fi++;
}

static bool v4(void)
{
	return g.o.v41;
}

/* ---- the job's machine ---- */

/* After the COMMITs and the read-back: 4.1 CLOSEs its files, then REMOVE (unlink=1). */
static enum job_state after_verify(struct np_job *j)
{
	j->fi = 0;
	if (v4())
		return JOB_CLOSE;
	return g.o.unlink ? JOB_UNLINK : JOB_DONE;
}

/* Every connection of the job is up (--nconnect: the workload starts on all of them). */
static bool job_conns_up(const struct np_job *j)
{
	for (uint32_t k = 0; k < j->nconn; k++)
		if (j->conn[k].state != NP_CONN_UP)
			return false;
	return true;
}

/* The job's connection whose CM id is @p id, or NULL. */
static struct np_conn *job_conn_of(struct np_job *j, const struct roce_cm_id *id)
{
	for (uint32_t k = 0; k < j->nconn; k++)
		if (j->conn[k].id == id)
			return &j->conn[k];
	return NULL;
}

/* Poll every connection of the job. @return work done */
static int job_conns_poll(struct np_job *j, uint64_t now)
{
	int work = 0;

	for (uint32_t k = 0; k < j->nconn; k++) {
		int n = np_conn_poll(&j->conn[k], now);

		work += n > 0 ? n : 0;
	}
	return work;
}

static void job_step(struct np_job *j, uint64_t now)
{
	enum job_state prev;
	char name[96];
	int rc = 0;

	for (uint32_t k = 0; k < j->nconn; k++) {
		const struct np_conn *c = &j->conn[k];

		if (j->state != JOB_DONE && j->state != JOB_FAILED && c->state == NP_CONN_FAILED)
			np_job_fail(j, c->why ? c->why : "the connection failed");
	}
	if (v4() && j->inflight)
		np_io_retry_delayed(j, now);
	do {
		prev = j->state;
		if (j->meta_busy || now < j->retry_at)
			break;
		switch (j->state) {
		case JOB_CONNECT:
			if (job_conns_up(j))
				np_job_set_state(j, v4() ? JOB_EXCHANGE_ID : JOB_READDIR);
			break;
		case JOB_EXCHANGE_ID:
		case JOB_CREATE_SESSION:
		case JOB_RECLAIM:
		case JOB_ROOTFH:
		case JOB_OPEN:
		case JOB_DESTROY_SESSION:
		case JOB_DESTROY_CLIENTID:
			rc = np4_job_step(j, name, sizeof(name));
			break;
		case JOB_CLOSE:
			while (j->fi < g.o.nrfiles && !j->files[j->fi].open)
				j->fi++;
			if (j->fi >= g.o.nrfiles) {
				j->fi = 0;
				np_job_set_state(j, g.o.unlink ? JOB_UNLINK : JOB_DESTROY_SESSION);
				break;
			}
			rc = np4_job_step(j, name, sizeof(name));
			break;
		case JOB_READDIR: {
			struct nfs3_readdirplus_args a = {.dir = g.root,
							  .cookie = j->cookie,
							  .dircount = READDIR_MAXCOUNT,
							  .maxcount = READDIR_MAXCOUNT};

			memcpy(a.cookieverf, j->verf, sizeof(a.cookieverf));
			rc = meta_call(j, NFS3_PROC_READDIRPLUS,
				       (xdrproc_t)xdr_nfs3_readdirplus_args, &a,
				       READDIR_MAXCOUNT + 512, readdir_done);
			break;
		}
		case JOB_LOOKUP: {
			struct nfs3_diropargs a = {.dir = g.root, .name = name};

			np_job_file_name(j, j->fi, name, sizeof(name));
			a.namelen = (uint32_t)strlen(name);
			rc = meta_call(j, NFS3_PROC_LOOKUP, (xdrproc_t)xdr_nfs3_diropargs, &a, 0,
				       lookup_done);
			break;
		}
		case JOB_CREATE: {
			struct nfs3_create_args a = {.where = {.dir = g.root, .name = name},
						     .mode = NFS_CREATE_UNCHECKED,
						     .sattr = {.set_mode = true, .mode = 0644}};

			np_job_file_name(j, j->fi, name, sizeof(name));
			a.where.namelen = (uint32_t)strlen(name);
			rc = meta_call(j, NFS3_PROC_CREATE, (xdrproc_t)xdr_nfs3_create_args, &a, 0,
				       create_done);
			break;
		}
		case JOB_GETATTR: {
			struct nfs3_fh_args a = {.fh = j->files[j->fi].fh};

			rc = meta_call(j, NFS3_PROC_GETATTR, (xdrproc_t)xdr_nfs3_fh_args, &a, 0,
				       getattr_done);
			break;
		}
		case JOB_LAYOUT:
			if (np_io_layout(j)) {
				/* the layout's UNSTABLE writes are committed at the end with the
				 * workload's: a COMMIT now would be timed with nothing */
				j->run_start = now;
				np_job_set_state(j, JOB_RUN);
			}
			break;
		case JOB_RUN:
			np_io_run(j, now);
			break;
		case JOB_DRAIN:
			if (j->inflight == 0) {
				j->run_end = now;
				j->fi = 0;
				np_job_set_state(j, JOB_COMMIT);
			}
			break;
		case JOB_COMMIT:
			while (j->fi < g.o.nrfiles && !j->files[j->fi].dirty)
				j->fi++;
			if (j->fi >= g.o.nrfiles) {
				j->fi = 0;
				j->lay_file = 0;
				j->lay_off = 0;
				if (j->files[0].written)
					np_job_set_state(j, JOB_VERIFY);
				else
					np_job_set_state(j, after_verify(j));
				break;
			}
			if (v4()) {
				rc = np4_job_step(j, name, sizeof(name));
			} else {
				struct nfs3_commit_args a = {.fh = j->files[j->fi].fh};

				rc = meta_call(j, NFS3_PROC_COMMIT, (xdrproc_t)xdr_nfs3_commit_args,
					       &a, 0, commit_done);
			}
			break;
		case JOB_VERIFY:
			if (np_io_reread(j))
				np_job_set_state(j, after_verify(j));
			break;
		case JOB_UNLINK:
			if (j->fi >= g.o.nrfiles) {
				np_job_set_state(j, v4() ? JOB_DESTROY_SESSION : JOB_DONE);
				break;
			}
			if (v4()) {
				rc = np4_job_step(j, name, sizeof(name));
			} else {
				struct nfs3_diropargs a = {.dir = g.root, .name = name};

				np_job_file_name(j, j->fi, name, sizeof(name));
				a.namelen = (uint32_t)strlen(name);
				rc = meta_call(j, NFS3_PROC_REMOVE, (xdrproc_t)xdr_nfs3_diropargs,
					       &a, 0, remove_done);
			}
			break;
		default:
			break;
		}
		if (rc && rc != -EBUSY) {
			np_job_fail(j, strerror(-rc));
			rc = 0;
		}
	} while (j->state != prev);
	if ((j->state == JOB_DONE || j->state == JOB_FAILED) && !j->run_end)
		j->run_end = now;
}

/* ---- MOUNT ---- */

static void mnt_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		     uint32_t len)
{
	struct nfs_mnt_res3 r = {0};
	XDR x;

	(void)ctx;
	g.mnt_done = true;
	if (err || h->denied || h->stat != SUCCESS) {
		fprintf(stderr, "droce-nfsperf: MOUNT MNT of %s: %s\n", g.o.export,
			err	    ? strerror(-err)
			: h->denied ? orpc_auth_stat_name(h->why)
				    : orpc_accept_stat_name(h->stat));
		g.failed = true;
		return;
	}
	xdrmem_create(&x, (char *)(uintptr_t)p, len, XDR_DECODE);
	if (!xdr_nfs_mnt_res3(&x, &r) || r.status != NFS_MNT3_OK) {
		fprintf(stderr, "droce-nfsperf: MOUNT MNT of %s: status %u\n", g.o.export,
			r.status);
		g.failed = true;
		return;
	}
	g.root = r.fh;
}

static void umnt_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		      uint32_t len)
{
	(void)ctx, (void)err, (void)h, (void)p, (void)len;
	g.umnt_done = true;
}

static int mount_call(uint32_t proc, orpc_clnt_done_t done)
{
	struct nfs_mnt_dirpath d = {.path = {g.o.export, (uint32_t)strlen(g.o.export)}};

	return orpc_clnt_call(&g.mnt, NFS_MNT_PROGRAM, NFS_MNT_V3, proc, &g.env.sys,
			      (xdrproc_t)xdr_nfs_mnt_dirpath, &d, done, NULL);
}

/* ---- progress and samples ---- */

static void fmt_rate(double bytes_s, char *buf, size_t cap)
{
	if (bytes_s >= 1024.0 * 1024 * 1024)
		snprintf(buf, cap, "%.2fGiB/s", bytes_s / (1024.0 * 1024 * 1024));
	else if (bytes_s >= 1024.0 * 1024)
		snprintf(buf, cap, "%.1fMiB/s", bytes_s / (1024.0 * 1024));
	else
		snprintf(buf, cap, "%.0fKiB/s", bytes_s / 1024.0);
}

static void tick(uint64_t now)
{
	uint64_t ios[NP_NDIRS] = {0}, bytes[NP_NDIRS] = {0}, lat_n[NP_NDIRS] = {0};
	double lat_sum[NP_NDIRS] = {0}, dt = 1.0;
	uint32_t running = 0;

	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		struct np_job *j = &g.jobs[i];

		enum job_state st = np_job_state(j); /* another lane's, maybe */

		if (st == JOB_RUN || st == JOB_DRAIN)
			running++;
		for (int d = 0; d < NP_NDIRS; d++) {
			struct np_dirstats *s = &j->res.d[d];
			uint64_t di = s->ios - s->last_ios, db = s->bytes - s->last_bytes;

			if (st == JOB_RUN) {
				uint64_t ln = s->clat.n - s->last_lat_n;
				uint64_t ms = (now - j->run_start) / 1000000;

				np_series_add(&s->iops_s, (double)di / dt);
				np_series_add(&s->bw_s, (double)db / 1024.0 / dt);
				/* fio's log lines: msec, value, direction, block size, offset */
				if (j->iops_log && di)
					fprintf(j->iops_log,
						"%" PRIu64 ", %" PRIu64 ", %d, %u, 0\n", ms, di, d,
						g.o.bs);
				if (j->lat_log && ln)
					fprintf(j->lat_log, "%" PRIu64 ", %.0f, %d, %u, 0\n", ms,
						(s->clat.sum - s->last_lat_sum) / (double)ln, d,
						g.o.bs);
			}
			s->last_lat_n = s->clat.n;
			s->last_lat_sum = s->clat.sum;
			s->last_ios = s->ios;
			s->last_bytes = s->bytes;
			ios[d] += di;
			bytes[d] += db;
			lat_n[d] += s->clat.n;
			lat_sum[d] += s->clat.sum;
		}
	}
	if (g.o.eta > 0 || (g.o.eta == 0 && isatty(STDERR_FILENO))) {
		char rb[32], wb[32];
		double lat[NP_NDIRS];

		for (int d = 0; d < NP_NDIRS; d++) {
			uint64_t n = lat_n[d] - g.last_lat_n[d];

			lat[d] = n ? (lat_sum[d] - g.last_lat_sum[d]) / (double)n / 1e3 : 0;
		}
		fmt_rate((double)bytes[NP_READ], rb, sizeof(rb));
		fmt_rate((double)bytes[NP_WRITE], wb, sizeof(wb));
		fprintf(stderr,
			"\rJobs: %u (%s): [r=%s,w=%s][r=%" PRIu64 ",w=%" PRIu64
			" IOPS][lat r=%.0fus,w=%.0fus][%.0fs]   ",
			running, g.o.xprt == NP_XPRT_RDMA ? "rdma" : "tcp", rb, wb, ios[NP_READ],
			ios[NP_WRITE], lat[NP_READ], lat[NP_WRITE], (double)(now - g.t0) / NS);
		g.progress_shown = true;
	}
	if (g.plot && running) {
		double lat[NP_NDIRS];

		for (int d = 0; d < NP_NDIRS; d++) {
			uint64_t n = lat_n[d] - g.last_lat_n[d];

			lat[d] = n ? (lat_sum[d] - g.last_lat_sum[d]) / (double)n / 1e3 : 0;
		}
		fprintf(g.plot, "%.0f %" PRIu64 " %" PRIu64 " %.1f %.1f\n",
			(double)(now - g.t0) / NS, ios[NP_READ], ios[NP_WRITE], lat[NP_READ],
			lat[NP_WRITE]);
	}
	for (int d = 0; d < NP_NDIRS; d++) {
		g.last_lat_n[d] = lat_n[d];
		g.last_lat_sum[d] = lat_sum[d];
	}
}

/* gnuplot's PNGs of the per-second series (PREFIX.dat): IOPS, and mean latency. */
static void plot(void)
{
	FILE *gp;

	fclose(g.plot);
	g.plot = NULL;
	gp = popen("gnuplot 2>/dev/null", "w");
	if (!gp) {
		fprintf(stderr, "droce-nfsperf: no gnuplot: %s.dat is left as it is\n", g.o.plot);
		return;
	}
	fprintf(gp,
		"set terminal png size 900,400\n"
		"set xlabel 'seconds'\nset grid\nset key top left\n"
		"set output '%1$s_iops.png'\nset ylabel 'IOPS'\n"
		"set title 'droce-nfsperf %2$s: IOPS'\n"
		"plot '%1$s.dat' using 1:2 with lines title 'read', '' using 1:3 with lines "
		"title 'write'\n"
		"set output '%1$s_lat.png'\nset ylabel 'mean completion latency (us)'\n"
		"set title 'droce-nfsperf %2$s: latency'\n"
		"plot '%1$s.dat' using 1:4 with lines title 'read', '' using 1:5 with lines "
		"title 'write'\n",
		g.o.plot, g.o.name);
	if (pclose(gp) != 0)
		fprintf(stderr, "droce-nfsperf: gnuplot failed: %s.dat is left as it is\n",
			g.o.plot);
}

/* ---- the whole run ---- */

/* Give job j to its lane (the main lcore touches it no more), with CM event ev or none. */
static void hand_over(struct np_job *j, const struct roce_cm_event *ev)
{
	struct lane_msg m = {.job = j->idx, .has_ev = ev != NULL};

	if (ev)
		m.ev = *ev;
	/* the ring has room for four messages of every job; a job has one or two */
	if (rte_ring_mp_enqueue_elem(g.ring[j->lane], &m, sizeof(m)) != 0) {
		if (!j->handed)
			np_job_fail(j, "its lane's ring is full");
		else
			fprintf(stderr,
				"droce-nfsperf: job %u: its lane's ring is full: CM event %s "
				"not passed on\n",
				j->idx, roce_cm_event_str(ev->event));
		return;
	}
	j->handed = true;
}

static void start_jobs(void)
{
	uint32_t max_io = g.o.bs > READDIR_MAXCOUNT ? g.o.bs : READDIR_MAXCOUNT;

	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		struct np_job *j = &g.jobs[i];
		int rc = 0;

		j->idx = i;
		j->lane = i % g.nlanes;
		j->lcore = g.lane_lcore[j->lane];
		j->res.lcore = j->lcore;
		j->wbuf = malloc(g.o.bs);
		if (!j->wbuf) {
			np_job_fail(j, "no memory for its write buffer");
			continue;
		}
		j->rnd = g.o.randseed ^ (0x9e3779b97f4a7c15ull * (i + 1));
		snprintf(j->res.name, sizeof(j->res.name), "%s", g.o.name);
		j->res.jobid = i;
		j->meta_slot = -1;
		/* a client owner unique per run and job: hostname, pid, the run's start */
		{
			char host[64] = "";

			gethostname(host, sizeof(host) - 1);
			snprintf(j->owner, sizeof(j->owner), "droce-nfsperf:%s:%d:%" PRIx64 ":%u",
				 host, (int)getpid(), np_run.t0_verf, i);
		}
		np4_sess_init(&j->s4, 1);
		np_job_set_state(j, JOB_CONNECT);
		if (g.o.iops_log || g.o.lat_log) {
			char path[512];

			/* fio's names: PREFIX_iops.N.log, PREFIX_clat.N.log, N from 1 */
			if (g.o.iops_log) {
				snprintf(path, sizeof(path), "%s_iops.%u.log", g.o.iops_log, i + 1);
				j->iops_log = fopen(path, "w");
			}
			if (g.o.lat_log) {
				snprintf(path, sizeof(path), "%s_clat.%u.log", g.o.lat_log, i + 1);
				j->lat_log = fopen(path, "w");
			}
		}
		if (g.o.verify != NP_VERIFY_NONE && !np_run_reads())
			for (uint32_t f = 0; f < g.o.nrfiles; f++)
				j->files[f].written = calloc(np_run.nblocks / 8 + 1, 1);
		/* one more than iodepth: a set-up call never waits for the workload's. --nconnect:
		 * each connection may carry the whole depth (the job's slots bound the total) */
		j->nconn = g.o.nconnect;
		for (uint32_t k = 0; k < j->nconn && rc == 0; k++)
			rc = np_conn_open(&j->conn[k], &g.env, g.o.iodepth + 1, max_io,
					  g.nlanes > 1 ? (int)j->lcore : -1);
		if (rc) {
			fprintf(stderr, "droce-nfsperf: job %u: connection: %s\n", i,
				strerror(-rc));
			np_job_fail(j, "no connection");
		} else if (j->lane && g.o.xprt == NP_XPRT_TCP) {
			hand_over(j, NULL); /* a socket: its lane connects it */
		}
	}
}

/* The job's connections in its result: calls started on each, and their transports'
 * counters, conn[0]'s first. */
static void job_conns_report(struct np_job *j)
{
	size_t off = 0;

	j->res.nconn = j->nconn;
	for (uint32_t k = 0; k < j->nconn; k++) {
		char one[256];
		int n;

		j->res.conn_calls[k] = j->conn[k].calls;
		np_conn_stats(&j->conn[k], one, sizeof(one));
		n = snprintf(j->res.xprt_stats + off, sizeof(j->res.xprt_stats) - off, "%s%s",
			     k ? "; " : "", one);
		if (n > 0)
			off += RTE_MIN((size_t)n, sizeof(j->res.xprt_stats) - 1 - off);
	}
}

static bool jobs_over(void)
{
	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		enum job_state s = np_job_state(&g.jobs[i]);

		if (s != JOB_DONE && s != JOB_FAILED)
			return false;
	}
	return true;
}

/* Does the main lcore run this job (its own lane's, or one not handed over yet)? */
static bool main_owns(const struct np_job *j)
{
	return j->lane == 0 || !j->handed;
}

/* Stopped (SIGINT, SIGTERM): calls in flight get 5 s to end, then the job ends without them.
 * Its owner's call. */
static void job_interrupt(struct np_job *j, uint64_t now)
{
	if (g.signals && now > g.signal_at + 5 * NS && j->state != JOB_DONE &&
	    j->state != JOB_FAILED)
		np_job_fail(j, "interrupted");
}

/* A CM event of job j's connection, on the main lcore (the CM's): applied here while the main
 * lcore owns the job, else passed to its lane. An RDMA job goes to its lane with its
 * ESTABLISHED: from then on its QP runs there (np_conn_open gave it that home). */
static void cm_event_for(struct np_job *j, struct np_conn *c, const struct roce_cm_event *ev)
{
	if (j->lane == 0)
		np_conn_cm_event(c, ev);
	else if (j->handed)
		hand_over(j, ev);
	else if (ev->event == ROCE_CM_EVENT_ESTABLISHED && c->state == NP_CONN_CONNECTING)
		hand_over(j, ev); /* the first of its connections up: the rest follow it there */
	else
		np_conn_cm_event(c, ev);
}

static int run_poll(uint64_t now)
{
	int work = 0;

	if (g.env.cm) {
		struct roce_cm_event ev;

		while (roce_cm_get_event(g.env.cm, &ev) == 0) {
			for (uint32_t i = 0; i < g.o.numjobs; i++) {
				struct np_conn *c = job_conn_of(&g.jobs[i], ev.id);

				if (c)
					cm_event_for(&g.jobs[i], c, &ev);
			}
			work++;
		}
	}
	if (g.mnt_open)
		work += orpc_clnt_poll(&g.mnt);
	switch (g.phase) {
	case 0: /* MOUNT (NFSv3 only: 4.1 finds the export through the server's pseudo-fs) */
		if (v4() && !g.mnt_sent) {
			g.mnt_sent = true;
			g.mnt_done = true;
		}
		if (!g.mnt_sent) {
			int rc = orpc_clnt_init(&g.mnt, g.o.server, g.o.mount_port, 3000, 3);

			g.mnt_open = rc == 0;
			if (rc == 0)
				rc = mount_call(NFS_MNT_PROC_MNT, mnt_done);
			if (rc) {
				fprintf(stderr, "droce-nfsperf: MOUNT: %s\n", strerror(-rc));
				g.failed = true;
				g.phase = 4;
				break;
			}
			g.mnt_sent = true;
		}
		if (g.mnt_done) {
			if (g.failed) {
				g.phase = 4;
				break;
			}
			start_jobs();
			g.t0 = now;
			g.next_tick = now + NS;
			g.phase = 1;
		}
		break;
	case 1: /* the jobs (those of the other lanes once handed over: lane_poll) */
		for (uint32_t i = 0; i < g.o.numjobs; i++) {
			if (!main_owns(&g.jobs[i]))
				continue;
			work += job_conns_poll(&g.jobs[i], now);
			job_step(&g.jobs[i], now);
			job_interrupt(&g.jobs[i], now);
		}
		if (now >= g.next_tick) {
			tick(now);
			g.next_tick += NS;
		}
		if (jobs_over()) {
			for (uint32_t i = 0; i < g.o.numjobs; i++) {
				struct np_job *j = &g.jobs[i];

				for (uint32_t k = 0; k < j->nconn; k++) {
					if (main_owns(j))
						np_conn_close(&j->conn[k]);
					else if (j->conn[k].id) /* its lane marked it closed */
						roce_cm_disconnect(j->conn[k].id);
				}
			}
			g.phase = 2;
			g.phase_deadline = now + 5 * NS;
		}
		break;
	case 2: /* UMNT, best effort */
		if (!g.umnt_sent) {
			g.umnt_sent = true;
			if (v4() || mount_call(NFS_MNT_PROC_UMNT, umnt_done) != 0)
				g.umnt_done = true;
		}
		for (uint32_t i = 0; i < g.o.numjobs; i++)
			if (main_owns(&g.jobs[i]))
				work += job_conns_poll(&g.jobs[i], now);
		if (g.umnt_done || now > g.phase_deadline) {
			g.phase = 3;
			g.phase_deadline = now + NS / 2;
		}
		break;
	case 3: /* let the DREQs go out */
		for (uint32_t i = 0; i < g.o.numjobs; i++)
			if (main_owns(&g.jobs[i]))
				work += job_conns_poll(&g.jobs[i], now);
		if (!g.stack || now > g.phase_deadline)
			g.phase = 4;
		break;
	default:
		g.finished = true;
		break;
	}
	return work;
}

static void lcore_poll(struct stk_lcore *lc, void *arg)
{
	(void)lc, (void)arg;
	run_poll(np_now_ns());
	if (g.finished && !stk_stopping())
		stk_stop();
}

/* Lane l > 0 (--lanes): the jobs the main lcore handed over, with their CM events; each is
 * stepped and its connection polled here until the run ends. A job that is over closes its
 * connection (the main lcore sends the DREQ once every job is over). */
static void lane_poll(struct stk_lcore *lc, void *arg)
{
	uint32_t l = (uint32_t)(uintptr_t)arg;
	uint64_t now = np_now_ns();
	struct lane_msg m;
	unsigned work = 0;

	while (rte_ring_sc_dequeue_elem(g.ring[l], &m, sizeof(m)) == 0) {
		struct np_job *j = &g.jobs[m.job];

		if (!j->lane_owned) {
			j->lane_owned = true;
			g.lane_jobs[l][g.lane_njobs[l]++] = j;
		}
		if (m.has_ev) {
			struct np_conn *c = job_conn_of(j, m.ev.id);

			if (c)
				np_conn_cm_event(c, &m.ev);
		}
		work++;
	}
	for (uint32_t k = 0; k < g.lane_njobs[l]; k++) {
		struct np_job *j = g.lane_jobs[l][k];

		work += (unsigned)job_conns_poll(j, now);
		job_step(j, now);
		job_interrupt(j, now);
		for (uint32_t c = 0; c < j->nconn; c++)
			if ((j->state == JOB_DONE || j->state == JOB_FAILED) &&
			    j->conn[c].state != NP_CONN_CLOSED)
				np_conn_close_local(&j->conn[c]);
	}
	stk_lcore_work(lc, work);
}

/* Without droce's stack: TCP only; sleep in poll(2) on the sockets when nothing moved. */
static void plain_loop(void)
{
	struct pollfd pf[NP_MAX_JOBS * NP_MAX_NCONNECT + 1];

	while (!g.finished) {
		nfds_t n = 0;

		if (run_poll(np_now_ns()) > 0)
			continue;
		if (g.mnt_open && g.mnt.fd >= 0)
			pf[n++] = (struct pollfd){.fd = g.mnt.fd, .events = POLLIN};
		for (uint32_t i = 0; g.jobs && i < g.o.numjobs; i++) {
			for (uint32_t k = 0; k < g.jobs[i].nconn; k++) {
				const struct orpc_clnt *c = &g.jobs[i].conn[k].tcp;

				if (g.jobs[i].conn[k].tcp_open && c->fd >= 0)
					pf[n++] = (struct pollfd){
						.fd = c->fd,
						.events =
							(short)(POLLIN |
								(!c->connected || c->out_len >
											  c->out_off
									 ? POLLOUT
									 : 0))};
			}
		}
		poll(pf, n, 1);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	if (!g.signals)
		g.signal_at = np_now_ns();
	np_run.stopping = 1;
	if (++g.signals > 1 && g.stack)
		stk_stop();
	else if (g.signals > 1)
		exit(130);
}

/* --lanes N: the main lcore and the next N - 1 EAL lcores run the jobs, job i on lane
 * i % N; over RDMA the device runs on those lcores too (roce_dev_set_lcores through app_start),
 * each job's QP at home on its lane. @return 0, or -1 with the reason printed */
static int lanes_setup(void)
{
	unsigned id, n = 0;

	g.nlanes = g.o.lanes;
	g.lane_lcore[n++] = rte_get_main_lcore();
	if (g.nlanes <= 1) {
		g.nlanes = 1;
		return 0;
	}
	if (g.nlanes > rte_lcore_count()) {
		fprintf(stderr,
			"droce-nfsperf: --lanes %u: the stack runs %u lcore(s); give [eal] lcores "
			"(or -l) at least %u\n",
			g.nlanes, rte_lcore_count(), g.nlanes);
		return -1;
	}
	RTE_LCORE_FOREACH_WORKER (id)
		if (n < g.nlanes)
			g.lane_lcore[n++] = id;
	for (uint32_t l = 1; l < g.nlanes; l++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "np_lane_%u_%d", l, (int)getpid());
		g.ring[l] = rte_ring_create_elem(name, sizeof(struct lane_msg),
						 rte_align32pow2(NP_MAX_JOBS * 4),
						 (int)rte_socket_id(), RING_F_SC_DEQ);
		if (!g.ring[l]) {
			fprintf(stderr, "droce-nfsperf: cannot create lane %u's ring: %s\n", l,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	if (g.o.xprt == NP_XPRT_RDMA) {
		g.app.nlanes = g.nlanes;
		memcpy(g.app.lane_lcores, g.lane_lcore, sizeof(g.lane_lcore));
	}
	return 0;
}

/* ---- the report ---- */

static double tv_s(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static int report(void)
{
	struct np_result *res = calloc(g.o.numjobs, sizeof(*res));
	struct np_report r = {.o = &g.o, .res = res};
	struct rusage ru;
	double wall = (double)(np_now_ns() - g.t0) / NS;
	FILE *f = stdout;
	int rc = 0;

	if (!res)
		return 1;
	getrusage(RUSAGE_SELF, &ru);
	if (wall > 0) {
		r.usr_cpu = (tv_s(&ru.ru_utime) - tv_s(&g.ru0.ru_utime)) / wall * 100;
		r.sys_cpu = (tv_s(&ru.ru_stime) - tv_s(&g.ru0.ru_stime)) / wall * 100;
	}
	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		struct np_job *j = &g.jobs[i];
		struct np_result *x = &res[r.nres];

		j->res.runtime_s = j->run_end > j->run_start && j->run_start
					   ? (double)(j->run_end - j->run_start) / NS
					   : 0;
		job_conns_report(j);
		if (j->res.error || j->state != JOB_DONE)
			rc = 1;
		if (g.o.group_reporting && r.nres == 1) {
			np_result_merge(&res[0], &j->res);
			continue;
		}
		*x = j->res;
		r.nres++;
	}
	if (g.o.output && !(f = fopen(g.o.output, "w"))) {
		perror(g.o.output);
		f = stdout;
	}
	if (g.o.json)
		np_report_json(f, &r);
	else
		np_report_text(f, &r);
	if (f != stdout)
		fclose(f);
	free(res);
	return rc;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, status;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	app_split_args(&g.app, argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	status = np_opts_parse(&g.o, app_argc, app_argv);
	if (status)
		return status;
	np_run.o = &g.o;
	np_run.fsize = g.o.size / g.o.nrfiles / g.o.bs * g.o.bs;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		np_run.t0_verf = (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
	}
	np_run.nblocks = np_run.fsize / g.o.bs;
	g.env.o = &g.o;
	g.env.sys.uid = g.o.uid;
	g.env.sys.gid = g.o.gid;
	snprintf(g.env.sys.machname, sizeof(g.env.sys.machname), "droce-nfsperf");
	g.jobs = calloc(g.o.numjobs, sizeof(*g.jobs));
	if (!g.jobs)
		return 1;
	/* RDMA needs droce's stack; TCP uses it when a configuration is given (the exception
	 * TAP carries the kernel's TCP), and runs on the host's network otherwise */
	g.stack = g.o.xprt == NP_XPRT_RDMA || (g.app.config && *g.app.config);
	if (!g.stack && g.o.lanes > 1) {
		fprintf(stderr, "droce-nfsperf: --lanes runs jobs on droce's lcores: give --config "
				"(TCP without it is one thread)\n");
		return APP_EXIT_CONFIG;
	}
	g.lane_lcore[0] = 0;
	g.nlanes = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	getrusage(RUSAGE_SELF, &g.ru0);
	if (g.o.plot) {
		char path[512];

		snprintf(path, sizeof(path), "%s.dat", g.o.plot);
		g.plot = fopen(path, "w");
		if (!g.plot) {
			perror(path);
			return APP_EXIT_CONFIG;
		}
		fprintf(g.plot, "# seconds read_iops write_iops read_lat_us write_lat_us\n");
	}
	if (g.stack) {
		g.app.prog = "droce-nfsperf";
		status = app_start_stack(&g.app, argv[0], eal_argc, eal_argv);
		if (status) {
			app_stop(&g.app);
			return status;
		}
		app_pick_iface(&g.app, NULL, &g.o.server_ip);
		if (lanes_setup() != 0) {
			app_stop(&g.app);
			return APP_EXIT_CONFIG;
		}
		if (g.o.xprt == NP_XPRT_RDMA && app_open_dev(&g.app) != 0) {
			app_stop(&g.app);
			return APP_EXIT_NODEV;
		}
		g.env.dev = g.app.dev;
		g.env.cm = g.app.cm;
		g.env.pd = g.app.pd;
		g.env.iface = g.app.iface;
		stk_lcore_add_poll_as(stk_lcore_get(rte_get_main_lcore()), lcore_poll, NULL,
				      "nfsperf");
		for (uint32_t l = 1; l < g.nlanes; l++)
			if (stk_lcore_add_poll_as(stk_lcore_get(g.lane_lcore[l]), lane_poll,
						  (void *)(uintptr_t)l, "nfsperf lane") != 0) {
				fprintf(stderr, "droce-nfsperf: lcore %u runs no stack loop\n",
					g.lane_lcore[l]);
				app_stop(&g.app);
				return APP_EXIT_CONFIG;
			}
		stk_run();
	} else {
		plain_loop();
	}
	if (g.progress_shown)
		fprintf(stderr, "\n");
	if (g.plot)
		plot();
	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		if (g.jobs[i].iops_log)
			fclose(g.jobs[i].iops_log);
		if (g.jobs[i].lat_log)
			fclose(g.jobs[i].lat_log);
	}
	status = g.failed ? 1 : report();
	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		for (uint32_t c = 0; c < g.jobs[i].nconn; c++)
			for (int k = 0;
			     k < 1000000 && np_conn_destroy(&g.jobs[i].conn[c]) == -EBUSY; k++)
				stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	}
	if (g.mnt_open)
		orpc_clnt_fini(&g.mnt);
	for (uint32_t l = 1; l < g.nlanes; l++)
		rte_ring_free(g.ring[l]);
	if (g.stack)
		app_stop(&g.app);
	for (uint32_t i = 0; i < g.o.numjobs; i++) {
		for (uint32_t f = 0; f < g.o.nrfiles; f++)
			free(g.jobs[i].files[f].written);
		free(g.jobs[i].wbuf);
	}
	free(g.jobs);
	return status;
}
