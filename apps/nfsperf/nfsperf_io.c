/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_io.c - droce-nfsperf's workload calls: READ, WRITE and COMMIT started iodepth deep
 * (fio's rw=, rwmixread, fsync=, runtime and size), the layout of short files, the read-back
 * of a write-only job with verify, and their completions (latency, bytes, verify, errors).
 * Each runs on the lane that owns its job (droce-nfsperf.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfsperf_job.h"

#define NS 1000000000ull

static bool random_rw(void)
{
	return np_run.o->rw == NP_RW_RANDREAD || np_run.o->rw == NP_RW_RANDWRITE ||
	       np_run.o->rw == NP_RW_RANDRW;
}

static uint64_t rnd(struct np_job *j)
{
	/* xorshift64*: cheap, and the same sequence for the same randseed */
	j->rnd ^= j->rnd >> 12;
	j->rnd ^= j->rnd << 25;
	j->rnd ^= j->rnd >> 27;
	return j->rnd * 0x2545f4914f6cdd1dull;
}

/* ---- the workload's calls ---- */

/* A READ's data: the whole block, and (verify=) what np_block_fill wrote there. */
static bool read_check(struct np_job *j, const struct np_io *io, uint32_t count,
		       const uint8_t *data, uint32_t data_len)
{
	struct np_dirstats *ds = &j->res.d[NP_READ];
	char why[512], fname[96];

	if (count != np_run.o->bs || data_len != np_run.o->bs) {
		ds->short_ios++;
		np_job_error(j, EIO, "short read");
		return false;
	}
	if (np_run.o->verify == NP_VERIFY_NONE)
		return true;
	if (np_block_check(data, data_len, np_job_file_id(j, io->file), io->off, np_run.o->verify,
			   np_run.o->randseed, np_run.o->verify_interval, why, sizeof(why)))
		return true;
	ds->verify_errors++;
	np_job_error(j, EILSEQ, "verify");
	if (__atomic_fetch_add(&np_run.verify_printed, 1, __ATOMIC_RELAXED) <
	    np_run.o->verify_print) {
		np_job_file_name(j, io->file, fname, sizeof(fname));
		fprintf(stderr, "verify: %s: %s\n", fname, why);
	}
	return false;
}

/* A whole WRITE: what the verify phase reads back. */
static void write_mark(struct np_job *j, const struct np_io *io)
{
	if (j->files[io->file].written && !io->layout) {
		uint64_t b = io->off / np_run.o->bs;

		j->files[io->file].written[b / 8] |= (uint8_t)(1u << (b % 8));
	}
}

void np_io_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p, uint32_t len)
{
	struct np_io *io = ctx;
	struct np_job *j = io->job;
	uint64_t lat = np_now_ns() - io->start;
	enum np_dir d = io->kind == IO_READ ? NP_READ : NP_WRITE;
	struct np_dirstats *ds = &j->res.d[d];
	bool ok = false;

	io->busy = false;
	if (j->inflight)
		j->inflight--;
	if (np_run.o->v41) {
		struct nfs4_ref data = {0};
		uint64_t wait;

		ok = np4_io_done(io, err, h, p, len, &data, &wait);
		if (wait) {
			/* NFS4ERR_DELAY: the same call again shortly, still counted in flight */
			io->busy = true;
			io->delayed = true;
			io->retry_at = np_now_ns() + wait;
			j->inflight++;
			return;
		}
		if (ok && io->kind == IO_READ)
			ok = read_check(j, io, data.len, data.p, data.len);
		else if (ok && io->kind == IO_WRITE)
			write_mark(j, io);
		if (io->kind == IO_COMMIT) {
			if (ok) {
				j->res.sync_ios++;
				np_lat_add(&j->res.sync_lat, lat);
			}
			return;
		}
	} else if (io->kind == IO_COMMIT) {
		struct nfs3_commit_res r = {0};

		if (np_job_rpc_ok(j, err, h, "COMMIT") &&
		    np_decode(j, (xdrproc_t)xdr_nfs3_commit_res, &r, p, len) &&
		    np_nfs_ok(j, r.status)) {
			j->res.sync_ios++;
			np_lat_add(&j->res.sync_lat, lat);
		}
		return;
	} else if (io->kind == IO_READ) {
		struct nfs3_read_res r = {0};

		if (np_job_rpc_ok(j, err, h, "READ") &&
		    np_decode(j, (xdrproc_t)xdr_nfs3_read_res, &r, p, len) &&
		    np_nfs_ok(j, r.status))
			ok = read_check(j, io, r.count, r.data, r.data_len);
	} else {
		struct nfs3_write_res r = {0};

		if (np_job_rpc_ok(j, err, h, "WRITE") &&
		    np_decode(j, (xdrproc_t)xdr_nfs3_write_res, &r, p, len) &&
		    np_nfs_ok(j, r.status)) {
			if (r.count != np_run.o->bs) {
				ds->short_ios++;
				np_job_error(j, EIO, "short write");
			} else {
				ok = true;
				if (r.committed == NFS_UNSTABLE)
					j->files[io->file].dirty = true;
				write_mark(j, io);
			}
		}
	}
	if (!ok) {
		ds->errors++;
		return;
	}
	if (io->layout || io->reread)
		return;
	ds->ios++;
	ds->bytes += np_run.o->bs;
	np_lat_add(&ds->clat, lat);
}

static struct np_io *io_get(struct np_job *j)
{
	for (uint32_t i = 0; i < np_run.o->iodepth; i++)
		if (!j->io[i].busy)
			return &j->io[i];
	return NULL;
}

/* Start one READ, WRITE or COMMIT. @return 0 or np_conn_call's error */
static int io_start(struct np_job *j, struct np_io *io)
{
	struct np_file *f = &j->files[io->file];
	struct np_conn *c = np_job_conn(j);
	int rc;

	if (!c)
		return -EBUSY;
	io->job = j;
	io->start = np_now_ns();
	io->delayed = false;
	if (np_run.o->v41) {
		rc = np4_io_start(j, c, io);
	} else if (io->kind == IO_READ) {
		struct nfs3_read_args a = {.fh = f->fh, .offset = io->off, .count = np_run.o->bs};

		rc = np_conn_call(c, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_READ,
				  (xdrproc_t)xdr_nfs3_read_args, &a, 0, true, 0, np_io_done, io);
		if (!rc)
			j->res.calls[NFS3_PROC_READ]++;
	} else if (io->kind == IO_WRITE) {
		struct nfs3_write_args a = {.fh = f->fh,
					    .offset = io->off,
					    .count = np_run.o->bs,
					    .stable = np_run.o->sync ? NFS_FILE_SYNC : NFS_UNSTABLE,
					    .data = j->wbuf,
					    .data_len = np_run.o->bs};

		np_block_fill(j->wbuf, np_run.o->bs, np_job_file_id(j, io->file), io->off,
			      np_run.o->verify, np_run.o->randseed, np_run.o->verify_interval);
		rc = np_conn_call(c, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_WRITE,
				  (xdrproc_t)xdr_nfs3_write_args, &a, np_run.o->bs, false, 0,
				  np_io_done, io);
		if (!rc)
			j->res.calls[NFS3_PROC_WRITE]++;
	} else {
		struct nfs3_commit_args a = {.fh = f->fh};

		rc = np_conn_call(c, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_COMMIT,
				  (xdrproc_t)xdr_nfs3_commit_args, &a, 0, false, 0, np_io_done, io);
		if (!rc)
			j->res.calls[NFS3_PROC_COMMIT]++;
	}
	if (!rc) {
		io->busy = true;
		j->inflight++;
	} else if (rc != -EBUSY) {
		np_job_error(j, -rc, np_errno_name(-rc));
	}
	return rc;
}

/* The workload's next call, or false when it is over (size done, runtime passed, stopped). */
static bool next_io(struct np_job *j, struct np_io *io, uint64_t now)
{
	bool rd;

	if (np_run.stopping ||
	    (np_run.o->runtime > 0 && now >= j->run_start + (uint64_t)(np_run.o->runtime * NS)))
		return false;
	if ((!np_run.o->time_based || np_run.o->runtime <= 0) && j->issued >= np_run.o->size)
		return false;
	if (np_run.o->fsync && !np_run.o->sync && j->writes_since_commit >= np_run.o->fsync) {
		j->writes_since_commit = 0;
		io->kind = IO_COMMIT;
		io->file = j->last_write_file; /* the whole file: count 0 */
		io->off = 0;
		io->layout = false;
		return true;
	}
	switch (np_run.o->rw) {
	case NP_RW_READ:
	case NP_RW_RANDREAD:
		rd = true;
		break;
	case NP_RW_WRITE:
	case NP_RW_RANDWRITE:
		rd = false;
		break;
	default:
		rd = rnd(j) % 100 < np_run.o->rwmixread;
		break;
	}
	io->kind = rd ? IO_READ : IO_WRITE;
	io->layout = false;
	if (random_rw()) {
		io->file = (uint32_t)(rnd(j) % np_run.o->nrfiles);
		io->off = (rnd(j) % np_run.nblocks) * np_run.o->bs;
	} else {
		io->file = j->seq_file;
		io->off = j->seq_off;
		j->seq_off += np_run.o->bs;
		if (j->seq_off >= np_run.fsize) {
			j->seq_off = 0;
			j->seq_file = (j->seq_file + 1) % np_run.o->nrfiles;
		}
	}
	return true;
}

void np_io_run(struct np_job *j, uint64_t now)
{
	struct np_io *io;

	while (np_job_conn(j) && (io = io_get(j)) != NULL) {
		struct np_io want;

		if (!next_io(j, &want, now)) {
			np_job_set_state(j, JOB_DRAIN);
			return;
		}
		io->kind = want.kind;
		io->file = want.file;
		io->off = want.off;
		io->layout = false;
		io->reread = false;
		if (io_start(j, io) != 0)
			return; /* the same offset is not retried: the next call takes another */
		if (io->kind != IO_COMMIT) {
			j->issued += np_run.o->bs;
			if (io->kind == IO_WRITE) {
				j->writes_since_commit++;
				j->last_write_file = io->file;
			}
		}
	}
}

/* The layout: sequential WRITEs of every block of the files marked short, iodepth deep. */
bool np_io_layout(struct np_job *j)
{
	struct np_io *io;

	while (np_job_conn(j) && (io = io_get(j)) != NULL) {
		while (j->lay_file < np_run.o->nrfiles &&
		       (!j->files[j->lay_file].layout || j->lay_off >= np_run.fsize)) {
			j->lay_file++;
			j->lay_off = 0;
		}
		if (j->lay_file >= np_run.o->nrfiles)
			return j->inflight == 0;
		io->kind = IO_WRITE;
		io->layout = true;
		io->reread = false;
		io->file = (uint32_t)j->lay_file;
		io->off = j->lay_off;
		if (io_start(j, io) != 0)
			return false;
		j->lay_off += np_run.o->bs;
	}
	return false;
}

/* The read-back of a write-only job with verify (fio's verify phase): a READ of every block
 * it wrote, iodepth deep. @return true once all have completed */
bool np_io_reread(struct np_job *j)
{
	struct np_io *io;

	while (np_job_conn(j) && (io = io_get(j)) != NULL) {
		const struct np_file *f;

		for (;;) {
			if (j->lay_file >= np_run.o->nrfiles)
				return j->inflight == 0;
			f = &j->files[j->lay_file];
			if (j->lay_off < np_run.nblocks &&
			    f->written[j->lay_off / 8] & (1u << (j->lay_off % 8)))
				break;
			if (++j->lay_off >= np_run.nblocks) {
				j->lay_file++;
				j->lay_off = 0;
			}
		}
		io->kind = IO_READ;
		io->layout = false;
		io->reread = true;
		io->file = (uint32_t)j->lay_file;
		io->off = j->lay_off * np_run.o->bs;
		if (io_start(j, io) != 0)
			return false;
		j->lay_off++;
	}
	return false;
}

/* NFSv4.1: the workload's calls NFS4ERR_DELAY sent back go again once their wait is over. */
void np_io_retry_delayed(struct np_job *j, uint64_t now)
{
	for (uint32_t i = 0; i < np_run.o->iodepth; i++) {
		struct np_io *io = &j->io[i];

		if (!io->delayed || now < io->retry_at)
			continue;
		io->busy = false;
		j->inflight--;
		if (io_start(j, io) != 0) {
			io->busy = true;
			io->delayed = true;
			io->retry_at = now + NP4_DELAY_NS;
			j->inflight++;
			return;
		}
	}
}
