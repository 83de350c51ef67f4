/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_job4.c - a droce-nfsperf job's NFSv4.1 calls (--nfs-version 4.1): the set-up
 * COMPOUNDs one at a time on a slot of their own (EXCHANGE_ID, CREATE_SESSION,
 * RECLAIM_COMPLETE, the export's root from PUTROOTFH, OPEN per file, COMMIT, CLOSE, REMOVE,
 * DESTROY_SESSION, DESTROY_CLIENTID) with their replies moving the job's state machine
 * (droce-nfsperf.c), and the workload's SEQUENCE, PUTFH, READ | WRITE | COMMIT on the call's own
 * slot. RFC 8881 §18 for each operation; the COMPOUNDs and the slot table are nfsperf_nfs4.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nfsperf_job.h"

static void count_ops(struct np_job *j, const struct np4_compound *c)
{
	j->res.calls4++;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->ops[i].op <= NFS4_OP_LAST)
			j->res.ops4[c->ops[i].op]++;
}

/* A set-up COMPOUND: with_seq starts it with SEQUENCE on a slot of its own.
 * @return 0 or np_conn_call's error (-EBUSY also when no slot is free) */
static int meta4_call(struct np_job *j, struct np4_compound *c, bool with_seq, np_done_t done)
{
	int slot = -1, rc;

	if (with_seq) {
		slot = np4_slot_get(&j->s4);
		if (slot < 0)
			return -EBUSY;
		np4_sequence_args(&j->s4, (uint32_t)slot, &c->ops[0].a.seq);
		c->ops[0].op = NFS4_OP_SEQUENCE;
	}
	rc = np_conn_call(&j->conn[0], NFS4_PROGRAM, NFS4_VERSION, NFS4_PROC_COMPOUND,
			  (xdrproc_t)np4_xdr_compound, c, 0, false, 0, done, j);
	if (rc) {
		if (slot >= 0)
			np4_slot_put(&j->s4, (uint32_t)slot);
		return rc;
	}
	j->meta_slot = slot;
	j->meta_busy = true;
	j->meta_start = np_now_ns();
	count_ops(j, c);
	return 0;
}

/* Count a failed COMPOUND by its first failed operation's status; the session errors end the
 * job. @return 0, or how long to wait before the same call goes again (NFS4ERR_DELAY, and
 * NFS4ERR_GRACE of a server just started: counted by name, not errors of the job) */
static uint64_t v4_failed(struct np_job *j, const struct np4_reply *r, const char *what)
{
	uint32_t st = r->status;
	uint32_t i = np4_reply_failed(r);

	if (i < r->n)
		st = r->r[i].status;
	np_err_count(&j->res.errs, np4_stat_name(st));
	if (st == NFS4ERR_DELAY)
		return NP4_DELAY_NS;
	if (st == NFS4ERR_GRACE)
		return NP4_GRACE_NS;
	if (!j->res.error)
		j->res.error = EIO;
	if (st == NFS4ERR_BADSESSION || st == NFS4ERR_DEADSESSION) {
		fprintf(stderr, "droce-nfsperf: job %u: %s: the session is gone (%s)\n", j->idx,
			what, np4_stat_name(st));
		np_job_set_state(j, JOB_FAILED);
	} else if (i < r->n) {
		fprintf(stderr, "droce-nfsperf: job %u: %s: %s failed: %s\n", j->idx, what,
			nfs4_op_name(r->r[i].op), np4_stat_name(st));
	}
	return 0;
}

/*
 * A set-up COMPOUND's reply: its slot moves on, transport and RPC errors are counted, the
 * results decoded into @p r. @return 1 (every operation succeeded), 0 (NFS4ERR_DELAY or
 * NFS4ERR_GRACE: the state's call goes again after a wait) or -1 (failed, counted)
 */
static int meta4_reply(struct np_job *j, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		       uint32_t len, struct np4_reply *r, const char *what)
{
	bool ok = np_job_rpc_ok(j, err, h, what);
	int drc = ok ? np4_reply_decode(p, len, r) : -EBADMSG;
	uint64_t wait;

	j->meta_busy = false;
	if (j->meta_slot >= 0)
		np4_slot_done(&j->s4, (uint32_t)j->meta_slot, ok ? r : NULL);
	j->meta_slot = -1;
	if (!ok)
		return -1;
	if (r->status == NFS4_OK && drc == 0 && np4_reply_failed(r) == r->n)
		return 1;
	if (r->status == NFS4_OK) {
		np_job_error(j, EBADMSG, "undecodable results");
		return -1;
	}
	wait = v4_failed(j, r, what);
	if (wait) {
		j->retry_at = np_now_ns() + wait;
		return 0;
	}
	return -1;
}

static void exid_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		      uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, "EXCHANGE_ID");

	if (rc < 0) {
		np_job_fail(j, "EXCHANGE_ID failed");
	} else if (rc > 0) {
		j->s4.clientid = r.r[0].u.exid.clientid;
		j->s4.cs_seq = r.r[0].u.exid.sequenceid;
		np_job_set_state(j, JOB_CREATE_SESSION);
	}
}

static void csess_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		       uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, "CREATE_SESSION");
	uint64_t clientid = j->s4.clientid;
	const struct nfs4_create_session_res *cs = &r.r[0].u.csess;

	if (rc < 0) {
		np_job_fail(j, "CREATE_SESSION failed");
	} else if (rc > 0) {
		if (!cs->fore.maxrequests) {
			np_job_fail(j, "CREATE_SESSION granted no slots");
			return;
		}
		/* a WRITE or READ of bs must fit the channel the server granted (else every
		 * one would fail with NFS4ERR_REQ_TOO_BIG / REP_TOO_BIG) */
		if (cs->fore.maxrequestsize < np_run.o->bs + 512 ||
		    cs->fore.maxresponsesize < np_run.o->bs + 512) {
			fprintf(stderr,
				"droce-nfsperf: job %u: the session takes requests of %u and replies "
				"of %u bytes: bs=%u does not fit\n",
				j->idx, cs->fore.maxrequestsize, cs->fore.maxresponsesize,
				np_run.o->bs);
			np_job_fail(j, "bs is larger than the session's channel");
			return;
		}
		/* the slots are what the server granted, at most iodepth + 1 (asked) */
		np4_sess_init(&j->s4, cs->fore.maxrequests);
		j->res.slots4 = j->s4.nslots;
		j->s4.clientid = clientid;
		memcpy(j->s4.sessionid, cs->sessionid, sizeof(j->s4.sessionid));
		np_job_set_state(j, JOB_RECLAIM);
	}
}

static void reclaim_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			 uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc;

	/* a server that has it from us already says COMPLETE_ALREADY: as good as done */
	if (!err && h && !h->denied && h->stat == SUCCESS && np4_reply_decode(p, len, &r) == 0 &&
	    r.status == NFS4ERR_COMPLETE_ALREADY) {
		j->meta_busy = false;
		np4_slot_done(&j->s4, (uint32_t)j->meta_slot, &r);
		j->meta_slot = -1;
		np_job_set_state(j, JOB_ROOTFH);
		return;
	}
	rc = meta4_reply(j, err, h, p, len, &r, "RECLAIM_COMPLETE");
	if (rc < 0)
		np_job_fail(j, "RECLAIM_COMPLETE failed");
	else if (rc > 0)
		np_job_set_state(j, JOB_ROOTFH);
}

static void rootfh_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, "LOOKUP of the export");
	const struct nfs4_op_res *fh;

	if (rc < 0) {
		np_job_fail(j, "the export's path does not resolve from the server's root");
		return;
	}
	if (rc == 0)
		return;
	fh = np4_reply_op(&r, NFS4_OP_GETFH);
	if (!fh || fh->u.fh.len > NFS4_FHSIZE) {
		np_job_fail(j, "GETFH of the export's root");
		return;
	}
	memcpy(j->dir4, fh->u.fh.p, fh->u.fh.len);
	j->dir4_len = fh->u.fh.len;
	j->comp = j->comp_next;
	if (!np_run.o->export[j->comp]) {
		j->fi = 0;
		np_job_set_state(j, JOB_OPEN);
	}
}

/* The export's path, up to NP4_MAX_OPS - 3 components a COMPOUND, from PUTROOTFH (the first)
 * or from the handle the previous one ended at: the pseudo-fs joins exports at their paths. */
static int rootfh_call(struct np_job *j)
{
	struct np4_compound c = {.n = 1};
	const char *e = np_run.o->export;
	uint32_t pos = j->comp;
	int rc;

	if (pos == 0)
		np4_op(&c, NFS4_OP_PUTROOTFH);
	else
		np4_op_putfh(&c, j->dir4, j->dir4_len);
	while (c.n < NP4_MAX_OPS - 1) {
		uint32_t start, end;

		while (e[pos] == '/')
			pos++;
		if (!e[pos])
			break;
		start = pos;
		while (e[pos] && e[pos] != '/')
			pos++;
		end = pos;
		np4_op(&c, NFS4_OP_LOOKUP);
		c.ops[c.n - 1].a.name = (struct nfs4_ref){(const uint8_t *)e + start, end - start};
	}
	while (e[pos] == '/')
		pos++;
	np4_op(&c, NFS4_OP_GETFH);
	rc = meta4_call(j, &c, true, rootfh_done);
	if (rc == 0)
		j->comp_next = pos; /* taken when the reply says the LOOKUPs succeeded */
	return rc;
}

static void open_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		      uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, "OPEN");
	const struct nfs4_op_res *op, *fh, *ga;
	struct np_file *f = &j->files[j->fi];
	uint32_t type = 0;
	uint64_t size = 0;

	if (rc < 0) {
		np_job_fail(j, "OPEN failed");
		return;
	}
	if (rc == 0)
		return;
	op = np4_reply_op(&r, NFS4_OP_OPEN);
	fh = np4_reply_op(&r, NFS4_OP_GETFH);
	ga = np4_reply_op(&r, NFS4_OP_GETATTR);
	if (!op || !fh || !ga || fh->u.fh.len > NFS4_FHSIZE ||
	    np4_attr_type_size(&ga->u.getattr, &type, &size) != 0) {
		np_job_fail(j, "OPEN's results are incomplete");
		return;
	}
	f->sid = op->u.open.sid;
	f->open = true;
	memcpy(f->fh4, fh->u.fh.p, fh->u.fh.len);
	f->fh4_len = fh->u.fh.len;
	if (type != NFS_REG) {
		np_job_fail(j, "a job's file name is taken by something not a regular file");
		return;
	}
	f->size = size;
	f->layout = np_run_reads() && f->size < np_run.fsize;
	if (++j->fi < np_run.o->nrfiles)
		return;
	j->lay_file = 0;
	j->lay_off = 0;
	np_job_set_state(j, JOB_LAYOUT);
}

static int open_call(struct np_job *j, char *name, size_t cap)
{
	static const uint8_t mode[4] = {0, 0, 0x01, 0xa4}; /* 0644 */
	struct np4_compound c = {.n = 1};
	struct nfs4_open_args *o;

	np_job_file_name(j, j->fi, name, cap);
	np4_op_putfh(&c, j->dir4, j->dir4_len);
	np4_op(&c, NFS4_OP_OPEN);
	o = &c.ops[c.n - 1].a.open;
	/* both ways (a reading job lays out short files); no delegation wanted: every call is
	 * droce-nfsperf's, and the server would only have to recall it */
	o->share_access = OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	o->share_deny = OPEN4_SHARE_DENY_NONE;
	o->clientid = j->s4.clientid;
	o->owner = (struct nfs4_ref){(const uint8_t *)j->owner, (uint32_t)strlen(j->owner)};
	/* NFSv3's LOOKUP, then CREATE UNCHECKED when NOENT, in one: an existing file is kept */
	o->opentype = OPEN4_CREATE;
	o->createmode = UNCHECKED4;
	nfs4_bit_set(&o->attrs.mask, NFS4_A_MODE);
	o->attrs.vals = (struct nfs4_ref){mode, sizeof(mode)};
	o->claim = CLAIM_NULL;
	o->name = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
	np4_op(&c, NFS4_OP_GETFH);
	np4_op(&c, NFS4_OP_GETATTR);
	nfs4_bit_set(&c.ops[c.n - 1].a.getattr, NFS4_A_TYPE);
	nfs4_bit_set(&c.ops[c.n - 1].a.getattr, NFS4_A_SIZE);
	return meta4_call(j, &c, true, open_done);
}

static void commit4_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			 uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, "COMMIT");

	if (rc == 0)
		return;
	if (rc > 0) {
		j->files[j->fi].dirty = false;
		j->res.sync_ios++;
		np_lat_add(&j->res.sync_lat, np_now_ns() - j->meta_start);
	}
	j->fi++;
}

/* CLOSE, REMOVE: the file moves on whatever the outcome (counted). */
static void next_file4_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			    uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	int rc = meta4_reply(j, err, h, p, len, &r, j->state == JOB_CLOSE ? "CLOSE" : "REMOVE");

	if (rc == 0)
		return;
	if (j->state == JOB_CLOSE)
		j->files[j->fi].open = false;
	j->fi++;
}

static void destroy_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
			 uint32_t len)
{
	struct np_job *j = ctx;
	struct np4_reply r;
	bool sess = j->state == JOB_DESTROY_SESSION;
	int rc = meta4_reply(j, err, h, p, len, &r, sess ? "DESTROY_SESSION" : "DESTROY_CLIENTID");

	if (rc == 0)
		return;
	np_job_set_state(j, sess ? JOB_DESTROY_CLIENTID : JOB_DONE);
}

/* The next set-up call of a 4.1 job's state, or 0 with nothing to send. */
int np4_job_step(struct np_job *j, char *name, size_t cap)
{
	struct np4_compound c = {.n = 1};
	struct np_file *f;

	switch (j->state) {
	case JOB_EXCHANGE_ID: {
		struct nfs4_exchange_id_args *e;

		c.n = 0;
		np4_op(&c, NFS4_OP_EXCHANGE_ID);
		e = &c.ops[0].a.exid;
		/* the verifier changes with every run: the server drops a previous run's state */
		memcpy(e->verifier, &np_run.t0_verf, sizeof(e->verifier));
		e->ownerid =
			(struct nfs4_ref){(const uint8_t *)j->owner, (uint32_t)strlen(j->owner)};
		e->flags = EXCHGID4_FLAG_USE_NON_PNFS;
		e->sp_how = SP4_NONE;
		return meta4_call(j, &c, false, exid_done);
	}
	case JOB_CREATE_SESSION: {
		static const uint8_t auth_none[4]; /* callback_sec_parms4: AUTH_NONE */
		struct nfs4_create_session_args *a;
		uint32_t max = np_run.o->bs + 4096;

		c.n = 0;
		np4_op(&c, NFS4_OP_CREATE_SESSION);
		a = &c.ops[0].a.csess;
		a->clientid = j->s4.clientid;
		a->sequence = j->s4.cs_seq;
		a->flags = 0; /* no persistence, no backchannel, no RDMA mode change */
		a->fore = (struct nfs4_chan_attrs){.maxrequestsize = max,
						   .maxresponsesize = max,
						   .maxresponsesize_cached = 1024,
						   .maxoperations = NP4_MAX_OPS,
						   .maxrequests = np_run.o->iodepth + 1};
		a->back = (struct nfs4_chan_attrs){.maxrequestsize = 4096,
						   .maxresponsesize = 4096,
						   .maxresponsesize_cached = 0,
						   .maxoperations = 2,
						   .maxrequests = 1};
		a->cb_program = 0x40000000u;
		a->sec_parms = (struct nfs4_raw){1, {auth_none, sizeof(auth_none)}};
		return meta4_call(j, &c, false, csess_done);
	}
	case JOB_RECLAIM:
		np4_op(&c, NFS4_OP_RECLAIM_COMPLETE);
		c.ops[1].a.one_fs = false;
		return meta4_call(j, &c, true, reclaim_done);
	case JOB_ROOTFH:
		return rootfh_call(j);
	case JOB_OPEN:
		return open_call(j, name, cap);
	case JOB_COMMIT:
		f = &j->files[j->fi];
		np4_op_putfh(&c, f->fh4, f->fh4_len);
		np4_op(&c, NFS4_OP_COMMIT); /* offset 0, count 0: the whole file */
		return meta4_call(j, &c, true, commit4_done);
	case JOB_CLOSE:
		f = &j->files[j->fi];
		np4_op_putfh(&c, f->fh4, f->fh4_len);
		np4_op(&c, NFS4_OP_CLOSE);
		c.ops[2].a.close.sid = f->sid;
		return meta4_call(j, &c, true, next_file4_done);
	case JOB_UNLINK:
		np_job_file_name(j, j->fi, name, cap);
		np4_op_putfh(&c, j->dir4, j->dir4_len);
		np4_op(&c, NFS4_OP_REMOVE);
		c.ops[2].a.name = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
		return meta4_call(j, &c, true, next_file4_done);
	case JOB_DESTROY_SESSION:
		/* alone in its COMPOUND, without SEQUENCE (RFC 8881 §18.37.3) */
		c.n = 0;
		np4_op(&c, NFS4_OP_DESTROY_SESSION);
		memcpy(c.ops[0].a.sessionid, j->s4.sessionid, NFS4_SESSIONID_SIZE);
		return meta4_call(j, &c, false, destroy_done);
	case JOB_DESTROY_CLIENTID:
		c.n = 0;
		np4_op(&c, NFS4_OP_DESTROY_CLIENTID);
		c.ops[0].a.clientid = j->s4.clientid;
		return meta4_call(j, &c, false, destroy_done);
	default:
		return 0;
	}
}

/* ---- NFSv4.1's workload calls: SEQUENCE on the call's own slot, PUTFH, READ/WRITE/COMMIT ---- */

int np4_io_start(struct np_job *j, struct np_conn *conn, struct np_io *io)
{
	struct np_file *f = &j->files[io->file];
	struct np4_compound c = {.n = 1};
	uint32_t ddp_len = 0;
	int slot = np4_slot_get(&j->s4), rc;

	if (slot < 0)
		return -EBUSY;
	np4_sequence_args(&j->s4, (uint32_t)slot, &c.ops[0].a.seq);
	c.ops[0].op = NFS4_OP_SEQUENCE;
	np4_op_putfh(&c, f->fh4, f->fh4_len);
	if (io->kind == IO_READ) {
		np4_op(&c, NFS4_OP_READ);
		c.ops[2].a.read = (struct nfs4_read_args){
			.sid = f->sid, .offset = io->off, .count = np_run.o->bs};
	} else if (io->kind == IO_WRITE) {
		np_block_fill(j->wbuf, np_run.o->bs, np_job_file_id(j, io->file), io->off,
			      np_run.o->verify, np_run.o->randseed, np_run.o->verify_interval);
		np4_op(&c, NFS4_OP_WRITE);
		/* WRITE ends the COMPOUND, so its data opaque ends the call: DDP-eligible */
		c.ops[2].a.write = (struct nfs4_write_args){.sid = f->sid,
							    .offset = io->off,
							    .stable = np_run.o->sync ? NFS_FILE_SYNC
										     : NFS_UNSTABLE,
							    .data = {j->wbuf, np_run.o->bs}};
		ddp_len = np_run.o->bs;
	} else {
		np4_op(&c, NFS4_OP_COMMIT);
	}
	rc = np_conn_call(conn, NFS4_PROGRAM, NFS4_VERSION, NFS4_PROC_COMPOUND,
			  (xdrproc_t)np4_xdr_compound, &c, ddp_len, io->kind == IO_READ, 0,
			  np_io_done, io);
	if (rc) {
		np4_slot_put(&j->s4, (uint32_t)slot);
		return rc;
	}
	io->slot = (uint32_t)slot;
	count_ops(j, &c);
	return 0;
}

/* A workload call's reply. @return true when it succeeded: *data (READ) then holds its data;
 * false, with *wait set when the same call should go again that much later */
bool np4_io_done(struct np_io *io, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		 uint32_t len, struct nfs4_ref *data, uint64_t *wait)
{
	static const char *const what[] = {"READ", "WRITE", "COMMIT"};
	struct np_job *j = io->job;
	struct np4_reply r;
	bool ok = np_job_rpc_ok(j, err, h, what[io->kind]);
	int drc = ok ? np4_reply_decode(p, len, &r) : -EBADMSG;
	const struct nfs4_op_res *o;

	*wait = 0;
	np4_slot_done(&j->s4, io->slot, ok ? &r : NULL);
	if (!ok)
		return false;
	if (r.status != NFS4_OK) {
		*wait = v4_failed(j, &r, what[io->kind]);
		return false;
	}
	o = drc == 0 && r.n == 3 ? &r.r[2] : NULL;
	if (!o) {
		np_job_error(j, EBADMSG, "undecodable results");
		return false;
	}
	if (io->kind == IO_READ) {
		*data = o->u.read.data;
	} else if (io->kind == IO_WRITE) {
		if (o->u.write.count != np_run.o->bs) {
			j->res.d[NP_WRITE].short_ios++;
			np_job_error(j, EIO, "short write");
			return false;
		}
		if (o->u.write.committed == NFS_UNSTABLE)
			j->files[io->file].dirty = true;
	}
	return true;
}
