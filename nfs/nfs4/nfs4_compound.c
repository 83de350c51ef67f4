/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_compound.c - COMPOUND (RFC 8881 §16.2, §2.10.6): decode every operation first, check
 * their order (SEQUENCE first, or one session-less operation alone), run them in order until
 * one fails, and encode each result as it is produced. The server object and the RPC program's
 * glue (NULL, COMPOUND) are here too.
 *
 *   header undecodable, or an opcode word missing  -> NFS4ERR_BADXDR, no results
 *   minorversion not 1 or 2 (4.0 is not served)     -> NFS4ERR_MINOR_VERS_MISMATCH, no results
 *   an undefined opcode (4.2's in a 4.1 compound)    -> that op: OP_ILLEGAL (as opcode OP_ILLEGAL)
 *   a defined opcode not served                     -> that op: NFS4ERR_NOTSUPP
 *   arguments that do not decode                    -> that op: NFS4ERR_BADXDR
 *   first op neither SEQUENCE nor session-less      -> first op: OP_NOT_IN_SESSION
 *   a session-less op first, but not alone           -> first op: NOT_ONLY_OP
 *   SEQUENCE after the first op                     -> that op: SEQUENCE_POS
 *   an op needing a current file handle without one -> that op: NOFILEHANDLE
 *   a reply past the session's maxresponsesize     -> that op: REP_TOO_BIG (its results dropped)
 *   ... past maxresponsesize_cached with sa_cachethis -> that op: REP_TOO_BIG_TO_CACHE
 * The operations decoded before a failing decode still run, as Linux's nfsd does. A SEQUENCE
 * that replays answers the slot's cached bytes as they are.
 *
 * The operations with file work (enum nfs4_work_kind: READ, WRITE, COMMIT, CREATE, REMOVE,
 * RENAME, LINK, SETATTR, LOOKUP, READDIR, READLINK, OPEN and the 4.2 ones) may leave it to
 * io_uring or the helper threads (nfs4_io.defer): the loop stops there, its state goes into a
 * struct nfs4_cont, and nfs4_cont_resume goes on from that operation when the work ended
 * (docs/nfs.md, "Where a compound runs").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nfs3_svc.h"
#include "nfs4_int.h"
#include "nfs_aio.h"
#include "nfs_pool.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void nfs4_server_conf_default(struct nfs4_server_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->state.max_clients = 1024;
	c->state.slots = 32;
	c->state.lease_s = 90;
	c->state.max_req = (1u << 20) + 4096;
	c->state.max_resp = (1u << 20) + 4096;
	c->state.max_resp_cached = 2048;
	c->state.max_ops = NFS4_MAX_OPS;
	c->state.boot = (uint32_t)time(NULL);
	c->max_io = 1u << 20;
}

/* a recorded client went for good: its stable record goes */
static void forget_client(void *arg, struct nfs4_client *c)
{
	struct nfs4_server *s = arg;

	nfs4_recov_forget(&s->rec, c->owner, c->ownerlen);
	c->recorded = false;
}

/* a client record is going: its opens, lock states and locks go first */
static void release_client(void *arg, struct nfs4_client *c)
{
	struct nfs4_server *s = arg;

	nfs4_otab_release_client(s->ot, s->mgr, c);
	/* its locks went: those waiting are told by the next sweep (not from inside the
	 * client table's own work) */
	nfs4_lock_released(s, NULL, false);
}

struct nfs4_server *nfs4_server_create(struct nfs_fs *fs, const struct nfs4_server_conf *conf)
{
	struct nfs4_server *s;

	if (conf->state.max_ops > NFS4_MAX_OPS) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fs = fs;
	s->conf = *conf;
	s->now_ns = mono_ns;
	s->boot_sec = (int64_t)time(NULL);
	s->waiters_tail = &s->waiters;
	/* the owners that may reclaim: the records of the last run (RFC 8881 §8.4.3) */
	nfs4_recov_init(&s->rec, fs ? nfs_fs_state_dir(fs) : NULL,
			(uint64_t)conf->grace_s * 1000000000ull, s->now_ns());
	nfs4_recov_load(&s->rec);
	/* this run's epoch, past the last run's even within its second: the ids it hands out
	 * (client ids, session ids, stateids) are never an earlier run's */
	s->conf.state.boot = nfs4_recov_epoch(&s->rec, conf->state.boot);
	s->st = nfs4_state_create(&s->conf.state);
	s->reply = malloc(conf->state.max_resp);
	s->iobuf = malloc(conf->max_io > NFS_PATH_MAX ? conf->max_io : NFS_PATH_MAX);
	s->ot = nfs4_otab_create(s->conf.state.boot);
	/* a manager of its own until droce-nfsd hands it NLM's (nfs4_server_set_lock_mgr) */
	nfs_lock_mgr_init(&s->own_mgr, &(struct nfs_lock_conf){0});
	s->mgr = &s->own_mgr;
	if (s->st) {
		nfs4_state_set_release(s->st, release_client, s);
		nfs4_state_set_forget(s->st, forget_client, s);
	}
	if (!s->st || !s->reply || !s->iobuf || !s->ot || nfs4_cb_init(s) != 0) {
		int e = errno ? errno : ENOMEM;

		nfs4_server_destroy(s);
		errno = e;
		return NULL;
	}
	return s;
}

void nfs4_server_destroy(struct nfs4_server *s)
{
	if (!s)
		return;
	/* the clients' state first: their opens and locks go with them */
	nfs4_state_destroy(s->st);
	nfs4_otab_destroy(s->ot);
	nfs4_cb_fini(s);
	/* the last changes are written, and held replies let go (droce-nfsd flushes before its
	 * transports go, so that none are left here) */
	nfs4_server_flush(s);
	nfs4_recov_fini(&s->rec);
	nfs_lock_mgr_fini(&s->own_mgr);
	while (s->nrbuf)
		free(s->rbuf[--s->nrbuf]);
	free(s->iobuf);
	free(s->reply);
	free(s);
}

void nfs4_server_set_lock_mgr(struct nfs4_server *s, struct nfs_lock_mgr *m)
{
	s->mgr = m ? m : &s->own_mgr;
}

void nfs4_server_set_clock(struct nfs4_server *s, uint64_t (*now_ns)(void))
{
	s->now_ns = now_ns;
	/* the grace period counts on the new clock */
	s->rec.grace_end_ns = now_ns() + s->rec.grace_ns;
}

bool nfs4_server_in_grace(struct nfs4_server *s)
{
	nfs4_recov_step(&s->rec, s->now_ns());
	return s->rec.grace == NFS4_GRACE_RECLAIM;
}

uint32_t nfs4_grace_check(struct nfs4_compound *c, bool reclaim)
{
	struct nfs4_client *clp = c->sess ? c->sess->clp : NULL;

	if (!clp)
		return NFS4ERR_SERVERFAULT;
	return nfs4_recov_check(&c->s->rec, clp->owner, clp->ownerlen, clp->reclaim_complete,
				reclaim, c->s->now_ns());
}

/* the compound's reply waits until the client's record is written */
static void wait_for_record(struct nfs4_server *s, const struct nfs4_client *clp)
{
	if (clp->recorded && clp->rec_gen > s->rec.gen_done && clp->rec_gen > s->rec_wait)
		s->rec_wait = clp->rec_gen;
}

void nfs4_client_opened(struct nfs4_server *s, struct nfs4_client *clp)
{
	if (!clp->recorded) {
		clp->recorded = nfs4_recov_opened(&s->rec, clp->owner, clp->ownerlen);
		clp->rec_gen = s->rec.gen; /* the set with it (or a later one) */
	}
	/* every OPEN until the record is written: state is never granted ahead of it */
	wait_for_record(s, clp);
}

void nfs4_client_reclaimed(struct nfs4_server *s, struct nfs4_client *clp)
{
	if (clp->recorded) {
		nfs4_recov_step(&s->rec, s->now_ns());
		return;
	}
	/* a loaded owner's record is in the file already: nothing to wait for */
	clp->recorded = nfs4_recov_complete(&s->rec, clp->owner, clp->ownerlen, s->now_ns());
	clp->rec_gen = 0;
	/* any other client is recorded now, state or not, as knfsd records a 4.1 client at its
	 * RECLAIM_COMPLETE: after a restart the grace period then waits for it too, so a client
	 * that completed its reclaims before a second restart (RFC 8881 §8.4.3's edge cases,
	 * pynfs REBT2-4) is not overtaken by new state from others; its reply waits for the write
	 * like a first OPEN's */
	if (!clp->recorded) {
		clp->recorded = nfs4_recov_opened(&s->rec, clp->owner, clp->ownerlen);
		clp->rec_gen = s->rec.gen;
		wait_for_record(s, clp);
	}
}

/* a COMPOUND reply held until the records' write of generation gen has ended */
struct nfs4_rec_waiter {
	struct nfs4_rec_waiter *next;
	struct orpc_pending *p;
	uint64_t gen;
	uint32_t len;
	uint8_t reply[]; /**< the reply's bytes (the server's buffer is the next call's) */
};

/* the held replies whose write ended go. The list is taken whole first: a transport that
 * sends one may run the connection's next call at once, which may hold its reply anew (on the
 * list as it is then); one connection holds one call at a time, so order does not matter. */
static uint32_t release_waiters(struct nfs4_server *s)
{
	struct nfs4_rec_waiter *w = s->waiters, *next;
	uint32_t n = 0;

	if (!w)
		return 0;
	s->waiters = NULL;
	s->waiters_tail = &s->waiters;
	for (; w; w = next) {
		next = w->next;
		if (w->gen > s->rec.gen_done) {
			w->next = NULL;
			*s->waiters_tail = w;
			s->waiters_tail = &w->next;
			continue;
		}
		/* the transport encodes the reply (from w->reply) and sends it, now */
		orpc_pending_done(w->p, SUCCESS);
		free(w);
		n++;
	}
	return n;
}

uint32_t nfs4_server_poll(struct nfs4_server *s)
{
	return nfs4_recov_poll(&s->rec) + release_waiters(s);
}

void nfs4_server_flush(struct nfs4_server *s)
{
	nfs4_recov_flush(&s->rec);
	release_waiters(s);
}

bool nfs4_server_busy(const struct nfs4_server *s)
{
	return s->waiters || nfs4_recov_busy(&s->rec);
}

int nfs4_server_event_fd(const struct nfs4_server *s)
{
	return nfs4_recov_event_fd(&s->rec);
}

bool nfs4_server_reply_waits(const struct nfs4_server *s)
{
	return s->rec_wait > s->rec.gen_done;
}

struct nfs4_state *nfs4_server_state(struct nfs4_server *s)
{
	return s->st;
}

void nfs4_server_stats(const struct nfs4_server *s, struct nfs4_stats *st)
{
	struct nfs4_otab_stats o;

	*st = s->stats;
	/* the stateid check's answers are its terminal states' counts */
	nfs4_otab_stats(s->ot, &o);
	st->bad_stateid = o.sid_state[NFS4_SID_ERR_BAD];
	st->old_stateid = o.sid_state[NFS4_SID_ERR_OLD];
	st->stale_stateid = o.sid_state[NFS4_SID_ERR_STALE];
	st->expired_stateid = o.sid_state[NFS4_SID_ERR_EXPIRED];
	st->records = s->rec.st.records;
	st->records_loaded = s->rec.st.loaded;
	st->records_files_ignored = s->rec.st.files_ignored;
	st->records_writes = s->rec.st.writes;
	st->records_write_errors = s->rec.st.write_errors;
	st->reclaims = s->rec.st.reclaims;
	st->no_grace = s->rec.st.no_grace;
	st->grace_refused = s->rec.st.grace_refused;
	st->records_sync_writes = s->rec.st.sync_writes;
	st->boot = s->conf.state.boot;
	st->in_grace = s->rec.grace == NFS4_GRACE_RECLAIM;
}

struct nfs4_pseudo *nfs4_compound_pseudo(struct nfs4_compound *c)
{
	if (!c->pseudo_built) {
		nfs4_pseudo_build(&c->s->pseudo, c->s->fs);
		c->pseudo_built = true;
	}
	return &c->s->pseudo;
}

/* FNV-1a: which request a slot last served, to tell a retry from a false one */
/* What a slot remembers of a request, to tell a retry from a false one (SEQ_FALSE_RETRY): its
 * length and its first REQ_HASH_BYTES (the operations and their arguments up to there), as
 * the RPC layer's duplicate request cache keys calls. Hashing the whole request cost 63 % of the
 * server's samples on 1 MiB WRITEs (droce-nfsperf 4.1, bench/README.md). */
#define REQ_HASH_BYTES 512u

static uint64_t req_hash(const uint8_t *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;
	uint32_t n = len < REQ_HASH_BYTES ? len : REQ_HASH_BYTES;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* a reply with no results: status and tag */
static uint32_t bare_reply(struct nfs4_server *s, uint32_t status, struct nfs4_ref tag)
{
	struct nfs4_compound_res_hdr h = {status, tag, 0};
	uint32_t n = 0;
	XDR x;

	xdrmem_create(&x, (char *)s->reply, s->conf.state.max_resp, XDR_ENCODE);
	if (nfs4_xdr_compound_res_hdr(&x, &h))
		n = xdr_getpos(&x);
	xdr_destroy(&x);
	return n;
}

/* The status an operation gets before its handler runs (0: run it). */
static uint32_t precheck(struct nfs4_compound *c, uint32_t i, uint32_t pre)
{
	uint32_t op = c->s->ops[i];
	const struct nfs4_op_desc *d = nfs4_op_desc(op);

	if (i == 0 && pre != NFS4ERR_OP_ILLEGAL && op != NFS4_OP_SEQUENCE) {
		if (!d || !(d->flags & NFS4_OPF_NO_SEQ))
			return NFS4ERR_OP_NOT_IN_SESSION;
		if (c->numops > 1)
			return NFS4ERR_NOT_ONLY_OP;
	}
	if (pre)
		return pre;
	if (i > 0 && op == NFS4_OP_SEQUENCE)
		return NFS4ERR_SEQUENCE_POS;
	if ((d->flags & NFS4_OPF_CURFH) && c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if ((d->flags & NFS4_OPF_SAVEDFH) && c->saved.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	return NFS4_OK;
}

/* Encode one result at the end of x, within the session's limits. @return its status */
static uint32_t put_result(struct nfs4_compound *c, XDR *x, struct nfs4_op_res *res, bool cachethis)
{
	u_int start = xdr_getpos(x);
	bool ok = nfs4_xdr_resop(x, res);
	u_int end = xdr_getpos(x);

	if (c->sess && ok && end > c->sess->fore.maxresponsesize)
		ok = false;
	else if (c->sess && ok && cachethis && end > c->sess->fore.maxresponsesize_cached &&
		 res->status == NFS4_OK) {
		xdr_setpos(x, start);
		res->status = NFS4ERR_REP_TOO_BIG_TO_CACHE;
		return nfs4_xdr_resop(x, res) ? res->status : NFS4ERR_SERVERFAULT;
	}
	if (!ok) {
		xdr_setpos(x, start);
		res->status = NFS4ERR_REP_TOO_BIG;
		if (!nfs4_xdr_resop(x, res))
			return NFS4ERR_SERVERFAULT;
	}
	return res->status;
}

/*
 * The current stateid after an operation (RFC 8881 §16.2.3.1.2), by the table's flags: an
 * operation that sets the current file handle (PUTFH, LOOKUP, ...) and no stateid clears it;
 * SAVEFH and RESTOREFH carry it along with the handle.
 */
static void track_sid(struct nfs4_compound *c, uint32_t op)
{
	const struct nfs4_op_desc *d = nfs4_op_desc(op);

	if (op == NFS4_OP_SAVEFH) {
		c->saved_sid = c->cur_sid;
		c->has_saved_sid = c->has_cur_sid;
	} else if (op == NFS4_OP_RESTOREFH) {
		c->cur_sid = c->saved_sid;
		c->has_cur_sid = c->has_saved_sid;
	} else if ((d->flags & NFS4_OPF_SETS_FH) && !(d->flags & NFS4_OPF_SETS_SID)) {
		c->has_cur_sid = false;
	}
}

uint32_t nfs4_compound(struct nfs4_server *s, struct nfs_ctx *ctx, const uint8_t *args,
		       uint32_t len, const uint8_t **reply)
{
	return nfs4_compound_io(s, ctx, args, len, NULL, reply);
}

/* What the loop over a compound's operations carries: on the stack while it runs, in a
 * struct nfs4_cont while an operation's file work runs elsewhere. */
struct nfs4_run {
	struct nfs4_compound c;
	const uint8_t *args; /**< the COMPOUND4args (SEQUENCE's request hash) */
	uint32_t len;
	uint32_t numops; /**< as the header said */
	uint32_t ndec;	 /**< decoded: s->ops[] and s->args[] */
	uint32_t pre[NFS4_MAX_OPS];
	uint32_t status, nres, numres_pos;
	bool cachethis;
	uint64_t now;
	uint64_t op_t0; /**< when the operation now running started (the previous one ended) */
};

/*
 * A compound waiting for the file work of one operation (READ, WRITE, COMMIT, CREATE, REMOVE,
 * RENAME, LINK or SETATTR): the loop's state, its decoded operations and the results encoded so
 * far. On the lcore the work ends with nfs4_cont_resume, which puts them back into the server
 * and goes on from that operation.
 * The session is kept by id, not pointer: it (and its client) may go meanwhile.
 */
struct nfs4_cont {
	struct nfs4_server *s;
	struct orpc_pending *p; /**< the RPC call deferred for it (nfs4_compound_proc) */
	struct nfs4_run k;	/**< k.c.ctx and k.c.io point at ctx and io */
	struct nfs_ctx ctx;
	struct nfs4_io io;
	uint64_t rec_wait; /**< s->rec_wait so far */
	bool has_sess;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t slotid, seqid;
	uint8_t *buf; /**< a READ's data when it is not placed in the sink, READDIR's entries,
		       * READLINK's text */
	bool bufbig;  /**< buf is max_io long (kept for the next in s->rbuf) */
	bool change;  /**< counted in s->changes_waiting until it resumes */
	uint32_t replen;
	uint8_t *reply; /**< the results before the waiting operation */
	uint32_t ops[NFS4_MAX_OPS];
	union nfs4_op_args args[]; /**< k.ndec */
};

enum run_end { RUN_DONE, RUN_REPLAY, RUN_WAIT };

/* count an operation's failure by kind */
static void count_status(struct nfs4_server *s, uint32_t st)
{
	if (st == NFS4ERR_OP_ILLEGAL)
		s->stats.illegal++;
	else if (st == NFS4ERR_NOTSUPP)
		s->stats.notsupp++;
	else if (st == NFS4ERR_BADXDR)
		s->stats.badxdr++;
	else if (st == NFS4ERR_OP_NOT_IN_SESSION)
		s->stats.not_in_session++;
}

/* An operation's result, encoded with its final status: its counters. ns: since it started */
static void count_op(struct nfs4_server *s, const struct nfs4_op_res *res, uint32_t status,
		     uint64_t ns)
{
	uint32_t op = res->op <= NFS4_OP_LAST ? res->op : 0;

	s->stats.op_lat[op][nfs_lat_bucket(ns)]++;
	s->stats.op_lat_ns[op] += ns;
	if (status != NFS4_OK) {
		s->stats.op_err[op]++;
		s->stats.status[nfs4_stat_slot(status)]++;
	} else if (op == NFS4_OP_READ) {
		s->stats.read_bytes += res->u.read.data.len;
	} else if (op == NFS4_OP_WRITE) {
		s->stats.write_bytes += res->u.write.count;
	}
}

/*
 * Run the operations from `from` on, encoding each result into out, until one fails or all
 * ran. first: op `from`'s results, made already (a resumed operation).
 * @return RUN_WAIT: op k->c.opidx answered NFS4_DEFER (nothing of it encoded); RUN_REPLAY:
 * SEQUENCE found a retry, *replay is its slot's cached reply (*rlen bytes)
 */
static enum run_end run_ops(struct nfs4_server *s, struct nfs4_run *k, XDR *out, uint32_t from,
			    struct nfs4_op_res *first, const uint8_t **replay, uint32_t *rlen)
{
	struct nfs4_compound *c = &k->c;
	struct nfs4_op_res res;

	if (!first)
		k->op_t0 = s->now_ns();
	for (uint32_t i = from; i < k->ndec; i++) {
		uint32_t op = s->ops[i];
		const struct nfs4_op_desc *d = nfs4_op_desc(op);
		uint64_t end;

		c->opidx = i;
		if (first && i == from) {
			res = *first;
			count_status(s, res.status);
			goto put;
		}
		memset(&res, 0, sizeof(res));
		res.op = op;
		s->stats.ops++;
		s->stats.op[op <= NFS4_OP_LAST ? op : 0]++;
		res.status = precheck(c, i, k->pre[i]);
		if (res.status == NFS4_OK && op == NFS4_OP_SEQUENCE) {
			struct nfs4_seq_outcome so;

			nfs4_sequence(s->st, &s->args[0].seq, k->numops, k->len,
				      req_hash(k->args, k->len), k->now, &res.u.seq, &so);
			if (so.state == NFS4_SEQ_REPLAY) {
				*replay = so.slot->reply;
				*rlen = so.slot->len;
				return RUN_REPLAY;
			}
			res.status = so.status;
			if (so.state == NFS4_SEQ_NEW) {
				res.u.seq.status_flags |= nfs4_cb_seq_flags(s, so.sess);
				c->sess = so.sess;
				c->slot = so.slot;
				k->cachethis = s->args[0].seq.cachethis;
			}
		} else if (res.status == NFS4_OK) {
			res.status = d->fn(c, &s->args[i], &res.u);
			if (res.status == NFS4_DEFER)
				return RUN_WAIT;
		}
		count_status(s, res.status);
	put:
		if (res.status == NFS4_OK)
			track_sid(c, op);
		k->status = put_result(c, out, &res, k->cachethis);
		k->nres++;
		end = s->now_ns();
		count_op(s, &res, k->status, end - k->op_t0);
		k->op_t0 = end;
		if (k->status != NFS4_OK)
			break;
	}
	return RUN_DONE;
}

/* The reply's head patched (status, count of results), DDP's tail noted, the slot's reply
 * kept. @return the reply's length */
static uint32_t run_finish(struct nfs4_server *s, struct nfs4_run *k, XDR *out, struct nfs4_io *io)
{
	struct nfs4_compound *c = &k->c;
	uint32_t n = xdr_getpos(out);

	uint64_t ns = s->now_ns() - k->now;

	if (k->status != NFS4_OK)
		s->stats.status_err++;
	s->stats.compound_lat[nfs_lat_bucket(ns)]++;
	s->stats.compound_lat_ns += ns;
	xdr_setpos(out, 0);
	xdr_uint32_t(out, &k->status);
	xdr_setpos(out, k->numres_pos);
	xdr_uint32_t(out, &k->nres);
	xdr_destroy(out);
	/* the last result is READ's or READLINK's, its data the reply's tail: the transport may
	 * send it by the write chunk (RFC 8267 §4.1) */
	if (io && c->ddp_op >= 0 && (uint32_t)c->ddp_op + 1 == k->nres && k->status == NFS4_OK &&
	    c->ddp_len) {
		io->ddp_len = c->ddp_len;
		io->placed = c->ddp_placed;
		/* a sink: the call brought a write chunk, the data goes by it */
		s->stats.ddp_reads += io->sink != NULL;
		s->stats.ddp_placed += c->ddp_placed;
	}
	if (c->sess)
		nfs4_sequence_done(s->st, c->sess, c->slot, s->reply, n, !(io && io->ddp_len));
	return n;
}

/* The work changes the file system before the compound's end: no delegation is granted
 * meanwhile (a grant's check could not see the change: a REMOVE's recall check is done before
 * its work, an OPEN that creates makes its open state after it) */
static bool is_change(const struct nfs4_work *w)
{
	switch (w->kind) {
	case NFS4_WORK_WRITE:
	case NFS4_WORK_CREATE:
	case NFS4_WORK_REMOVE:
	case NFS4_WORK_RENAME:
	case NFS4_WORK_LINK:
	case NFS4_WORK_SETATTR:
	case NFS4_WORK_SPACE:
	case NFS4_WORK_COPY:
	case NFS4_WORK_CLONE:
		return true;
	case NFS4_WORK_OPEN:
		return w->open_how == NFS4_OPENW_CREATE;
	default:
		return false;
	}
}

/* The loop stopped at an operation whose file work is to run elsewhere: keep what it had.
 * @return NULL when memory is short (the caller runs the work at once) */
static struct nfs4_cont *cont_make(struct nfs4_server *s, struct nfs4_run *k, XDR *out)
{
	struct nfs4_compound *c = &k->c;
	struct nfs4_work *w = &c->work;
	struct nfs4_cont *t = calloc(1, sizeof(*t) + k->ndec * sizeof(t->args[0]));
	uint32_t need;
	bool own;

	if (!t)
		return NULL;
	t->replen = xdr_getpos(out);
	t->reply = malloc(t->replen);
	/* the results' own buffer: their size when small (the heap's bins), else one of max_io
	 * kept for the next (1 MiB from the heap's top each time made glibc grow and trim it per
	 * READ) */
	need = w->kind == NFS4_WORK_READLINK ? NFS_PATH_MAX : w->count;
	own = (w->kind == NFS4_WORK_READ && !w->placed) || w->kind == NFS4_WORK_READDIR ||
	      w->kind == NFS4_WORK_READLINK;
	if (own && need <= NFS4_RBUF_SMALL) {
		t->buf = malloc(need ? need : 1);
	} else if (own) {
		t->buf = s->nrbuf ? s->rbuf[--s->nrbuf] : malloc(s->conf.max_io);
		t->bufbig = true;
	}
	t->s = s;
	if (!t->reply || (own && !t->buf)) {
		nfs4_cont_free(t);
		return NULL;
	}
	memcpy(t->reply, s->reply, t->replen);
	if (t->buf)
		w->dest = t->buf;
	t->k = *k;
	t->ctx = *c->ctx;
	t->io = *c->io;
	t->io.cont = NULL;
	t->k.c.ctx = &t->ctx;
	t->k.c.io = &t->io;
	t->k.c.may_defer = false; /* one wait per compound */
	t->k.c.pseudo_built = false;
	t->rec_wait = s->rec_wait;
	memcpy(t->ops, s->ops, k->ndec * sizeof(t->ops[0]));
	memcpy(t->args, s->args, k->ndec * sizeof(t->args[0]));
	if (c->sess) {
		/* a retry meanwhile is DELAY; nfs4_sequence_done ends it */
		c->slot->state = NFS4_SLOT_IN_PROGRESS;
		t->has_sess = true;
		memcpy(t->sessionid, c->sess->id, NFS4_SESSIONID_SIZE);
		t->slotid = s->args[0].seq.slotid;
		t->seqid = s->args[0].seq.sequenceid;
	}
	t->k.c.sess = NULL; /* found again by id */
	t->k.c.slot = NULL;
	if (is_change(w)) {
		t->change = true;
		s->changes_waiting++;
	}
	return t;
}

void nfs4_cont_work(struct nfs4_cont *t)
{
	nfs4_work_run(&t->k.c);
}

const struct nfs4_io *nfs4_cont_io(const struct nfs4_cont *t)
{
	return &t->io;
}

void nfs4_cont_free(struct nfs4_cont *t)
{
	if (!t)
		return;
	if (t->buf && t->bufbig && t->s->nrbuf < NFS4_RBUF_KEEP)
		t->s->rbuf[t->s->nrbuf++] = t->buf;
	else
		free(t->buf);
	free(t->reply);
	free(t);
}

uint32_t nfs4_cont_resume(struct nfs4_cont *t, const uint8_t **reply)
{
	struct nfs4_server *s = t->s;
	struct nfs4_run *k = &t->k;
	struct nfs4_compound *c = &k->c;
	uint32_t i = c->opidx, rlen = 0;
	struct nfs4_op_res res;
	XDR out;

	*reply = s->reply;
	if (t->change) {
		t->change = false;
		s->changes_waiting--;
	}
	memcpy(s->ops, t->ops, k->ndec * sizeof(t->ops[0]));
	memcpy(s->args, t->args, k->ndec * sizeof(t->args[0]));
	memcpy(s->reply, t->reply, t->replen);
	s->rec_wait = t->rec_wait;
	if (t->has_sess) {
		struct nfs4_session *sess = nfs4_session_find(s->st, t->sessionid);
		struct nfs4_slot *slot =
			sess && t->slotid < sess->fore.maxrequests ? &sess->slots[t->slotid] : NULL;

		if (slot && slot->state == NFS4_SLOT_IN_PROGRESS && slot->seqid == t->seqid) {
			c->sess = sess;
			c->slot = slot;
		}
	}
	memset(&res, 0, sizeof(res));
	res.op = s->ops[i];
	res.status = nfs4_work_end(c, &res.u);
	xdrmem_create(&out, (char *)s->reply, s->conf.state.max_resp, XDR_ENCODE);
	xdr_setpos(&out, t->replen);
	if (t->has_sess && !c->sess) {
		/* the session went while the work ran. DESTROY_SESSION, the lease's expiry and a
		 * restarted client's CREATE_SESSION wait for a compound in flight (nfs4_state.c), so
		 * this is a defence: this result is the last one run */
		s->stats.io_session_gone++;
		if (res.status == NFS4_OK)
			track_sid(c, res.op);
		k->status = put_result(c, &out, &res, false);
		k->nres++;
		count_op(s, &res, k->status, s->now_ns() - k->op_t0);
		if (k->status == NFS4_OK && i + 1 < k->ndec) {
			memset(&res, 0, sizeof(res));
			res.op = s->ops[++i];
			res.status = NFS4ERR_BADSESSION;
			c->opidx = i;
			s->stats.ops++;
			s->stats.op[res.op <= NFS4_OP_LAST ? res.op : 0]++;
			k->status = put_result(c, &out, &res, false);
			k->nres++;
			count_op(s, &res, k->status, 0);
		}
		return run_finish(s, k, &out, &t->io);
	}
	/* RUN_REPLAY and RUN_WAIT cannot happen past SEQUENCE with may_defer off; were they to,
	 * the reply is what ran, and the slot is let go all the same */
	run_ops(s, k, &out, i, &res, reply, &rlen);
	*reply = s->reply;
	return run_finish(s, k, &out, &t->io);
}

uint32_t nfs4_compound_io(struct nfs4_server *s, struct nfs_ctx *ctx, const uint8_t *args,
			  uint32_t len, struct nfs4_io *io, const uint8_t **reply)
{
	struct nfs4_run k = {.c = {.s = s,
				   .ctx = ctx,
				   .io = io,
				   .ddp_op = -1,
				   .bc_id = io ? io->bc_id : 0,
				   .may_defer = io && io->defer},
			     .args = args,
			     .len = len};
	struct nfs4_compound_hdr h = {0};
	uint32_t rlen = 0;
	bool ok = true;
	enum run_end e;
	XDR x, out;

	k.now = s->now_ns();
	*reply = s->reply;
	s->rec_wait = 0;
	if (io) {
		io->ddp_len = 0;
		io->placed = false;
		io->cont = NULL;
	}
	s->stats.compounds++;
	if (k.now - s->last_sweep_ns > 1000000000ull) {
		nfs4_state_expire(s->st, k.now);
		nfs4_cb_sweep(s, k.now);
		s->last_sweep_ns = k.now;
	}
	xdrmem_create(&x, (char *)(uintptr_t)args, len, XDR_DECODE);
	if (!nfs4_xdr_compound_hdr(&x, &h)) {
		xdr_destroy(&x);
		s->stats.badxdr++;
		return bare_reply(s, NFS4ERR_BADXDR, (struct nfs4_ref){NULL, 0});
	}
	/* minor version 0 (RFC 7530) is not served: 4.0's clients fall back or fail */
	if (h.minorversion != 1 && h.minorversion != 2) {
		xdr_destroy(&x);
		s->stats.minor_mismatch++;
		return bare_reply(s, NFS4ERR_MINOR_VERS_MISMATCH, h.tag);
	}
	k.c.minor = h.minorversion;
	k.c.numops = k.numops = h.numops;
	/* decode first: a compound cut short runs nothing */
	while (k.ndec < h.numops && k.ndec < NFS4_MAX_OPS) {
		union nfs4_op_args *a = &s->args[k.ndec];
		const struct nfs4_op_desc *d;
		bool known;

		memset(a, 0, sizeof(*a));
		if (!nfs4_xdr_argop(&x, &s->ops[k.ndec], a, &known)) {
			if (!known) {
				ok = false; /* the opcode word is missing */
				break;
			}
			k.pre[k.ndec++] = NFS4ERR_BADXDR;
			break;
		}
		d = nfs4_op_desc(s->ops[k.ndec]);
		if (!d || ((d->flags & NFS4_OPF_MINOR2) && k.c.minor < 2)) {
			s->ops[k.ndec] = NFS4_OP_ILLEGAL;
			k.pre[k.ndec++] = NFS4ERR_OP_ILLEGAL;
			break;
		}
		if (!known) {
			k.pre[k.ndec++] = NFS4ERR_NOTSUPP;
			break;
		}
		k.ndec++;
	}
	xdr_destroy(&x);
	if (!ok) {
		s->stats.badxdr++;
		return bare_reply(s, NFS4ERR_BADXDR, h.tag);
	}

	xdrmem_create(&out, (char *)s->reply, s->conf.state.max_resp, XDR_ENCODE);
	{
		struct nfs4_compound_res_hdr rh = {NFS4_OK, h.tag, 0};

		if (!nfs4_xdr_compound_res_hdr(&out, &rh)) {
			xdr_destroy(&out);
			return 0;
		}
		k.numres_pos = xdr_getpos(&out) - 4;
	}
	e = run_ops(s, &k, &out, 0, NULL, reply, &rlen);
	if (e == RUN_REPLAY) {
		uint64_t ns = s->now_ns() - k.now;

		/* a retry answered from its slot: a compound of the histogram too */
		s->stats.compound_lat[nfs_lat_bucket(ns)]++;
		s->stats.compound_lat_ns += ns;
		xdr_destroy(&out);
		return rlen;
	}
	if (e == RUN_WAIT) {
		struct nfs4_op_res res;

		io->cont = cont_make(s, &k, &out);
		if (io->cont) {
			xdr_destroy(&out);
			return 0;
		}
		/* no memory to wait: the work runs here, into the server's buffer */
		s->stats.io_inline++;
		nfs4_work_run(&k.c);
		memset(&res, 0, sizeof(res));
		res.op = s->ops[k.c.opidx];
		res.status = nfs4_work_end(&k.c, &res.u);
		k.c.may_defer = false;
		e = run_ops(s, &k, &out, k.c.opidx, &res, reply, &rlen);
	}
	return run_finish(s, &k, &out, io);
}

/* ---- the RPC program ---- */

struct compound_args {
	const uint8_t *p;
	uint32_t len;
};

struct compound_res {
	const uint8_t *p;
	uint32_t len;
};

/* COMPOUND4args as bytes: the dispatcher decodes them itself */
static bool_t xdr_compound_args(XDR *x, struct compound_args *a)
{
	if (x->x_op != XDR_DECODE)
		return TRUE;
	a->len = x->x_handy;
	a->p = (const uint8_t *)x->x_base + xdr_getpos(x);
	return TRUE;
}

static bool_t xdr_compound_res(XDR *x, struct compound_res *r)
{
	if (x->x_op != XDR_ENCODE)
		return TRUE;
	return r->len % 4 == 0 && xdr_opaque(x, (char *)(uintptr_t)r->p, r->len);
}

static enum accept_stat nfs4_null(struct orpc_req *r, void *args, void *res)
{
	(void)r, (void)args, (void)res;
	return SUCCESS;
}

/* The compound recorded its client (RECLAIM_COMPLETE) or granted state to a client whose stable
 * record is not written yet: its reply waits for the write (nfs4_server_poll lets it go), so
 * that a client never holds state, or a completed reclaim, that a crash would forget. p: the
 * call, deferred already (a compound that waited for file work), or NULL: deferred here. Not
 * held (and counted): a reply with data placed by DDP, over UDP, or without memory. */
static bool hold_reply(struct nfs4_server *s, struct orpc_req *r, struct orpc_pending *p,
		       void *args, void *res)
{
	struct compound_res *o = res;
	const uint8_t *own = o->p;
	struct nfs4_rec_waiter *w;

	if (r->ddp_len)
		goto unheld;
	w = malloc(sizeof(*w) + o->len);
	if (!w)
		goto unheld;
	memcpy(w->reply, o->p, o->len);
	w->len = o->len;
	w->gen = s->rec_wait;
	w->next = NULL;
	o->p = w->reply; /* what the pending call's copy of res points at */
	w->p = p ? p : orpc_svc_defer(r, args, res);
	if (!w->p) {
		o->p = own;
		free(w);
		goto unheld;
	}
	*s->waiters_tail = w;
	s->waiters_tail = &w->next;
	s->stats.records_held++;
	return true;
unheld:
	s->stats.records_unheld++;
	return false;
}

/* A compound that waited for its file work goes on (on the lcore) and its reply goes. */
static void resume_pending(struct nfs4_cont *t, struct orpc_pending *p)
{
	struct orpc_req *r = orpc_pending_req(p);
	struct compound_res *o = orpc_pending_res(p);
	const struct nfs3_server *v3 = r->svc->ctx;
	struct nfs4_server *s = v3->v4;
	struct nfs4_io *io = &t->io;

	s->stats.io_resumed++;
	o->len = nfs4_cont_resume(t, &o->p);
	r->ddp_len = io->ddp_len;
	r->ddp_placed = io->placed;
	if (o->len && nfs4_server_reply_waits(s) && hold_reply(s, r, p, orpc_pending_args(p), o)) {
		nfs4_cont_free(t);
		return;
	}
	/* the transport encodes the reply now: it is in the server's buffer, READ's data in it
	 * or in the sink */
	orpc_pending_done(p, o->len ? SUCCESS : SYSTEM_ERR);
	nfs4_cont_free(t);
}

bool nfs4_is_call(const struct orpc_req *r)
{
	return r->call.prog == NFS3_PROG && r->call.vers == NFS4_VERSION;
}

void nfs4_pool_work(void *job)
{
	nfs4_cont_work(orpc_pending_req(job)->user);
}

void nfs4_pool_done(void *job)
{
	resume_pending(orpc_pending_req(job)->user, job);
}

void nfs4_aio_done(const struct nfs_aio_done *d)
{
	struct orpc_pending *p = d->cookie;
	struct nfs4_cont *t = orpc_pending_req(p)->user;
	struct nfs4_work *w = &t->k.c.work;
	const struct nfs3_server *v3 = orpc_pending_req(p)->svc->ctx;

	if (d->rerun) {
		/* the file changed owner since the READ started: run it again, checked (here when
		 * the helpers take no more: stopping or full) */
		v3->v4->stats.io_rerun++;
		if (v3->pool && nfs_pool_submit(v3->pool, p) == 0)
			return;
		nfs4_cont_work(t);
		resume_pending(t, p);
		return;
	}
	w->status = d->status;
	w->done = d->count;
	w->eof = d->eof;
	w->committed = d->committed;
	resume_pending(t, p);
}

/*
 * The compound waits for a READ's, WRITE's or COMMIT's file work: io_uring on the lcore when
 * the backend can start it without blocking (nfs_aio.h), else the helper threads. The call is
 * deferred until it ends (nfs4_aio_done, nfs4_pool_done). With neither, or when the transport
 * cannot defer, the work runs here and the reply goes at once.
 */
static enum accept_stat start_work(struct nfs3_server *v3, struct orpc_req *r, void *args,
				   void *res, struct nfs4_cont *t)
{
	struct nfs4_work *w = &t->k.c.work;
	struct nfs4_server *s = v3->v4;
	struct compound_res *o = res;
	struct nfs_aio_op *op = NULL;
	struct orpc_pending *p = NULL;
	bool pool = false;

	if (v3->aio && w->kind == NFS4_WORK_READ)
		op = nfs_aio_read(v3->aio, &t->ctx, &w->fh, w->offset, w->count, w->dest);
	else if (v3->aio && w->kind == NFS4_WORK_WRITE)
		op = nfs_aio_write(v3->aio, &t->ctx, &w->fh, w->offset, w->data, w->count,
				   w->stable);
	if (!op)
		pool = v3->pool && nfs_pool_inflight(v3->pool) < NFS_POOL_RING &&
		       !nfs_pool_stopping(v3->pool);
	if (op || pool)
		p = orpc_svc_defer(r, args, res);
	if (p) {
		orpc_pending_req(p)->user = t;
		s->stats.io_deferred++;
		if (op) {
			nfs_aio_submit(op, p);
			s->stats.io_aio++;
		} else {
			nfs_pool_submit(v3->pool, p); /* cannot fail: the ring has room */
			s->stats.io_pool++;
		}
		return ORPC_DEFER;
	}
	if (op)
		nfs_aio_cancel(op);
	s->stats.io_inline++;
	nfs4_cont_work(t);
	o->len = nfs4_cont_resume(t, &o->p);
	r->ddp_len = t->io.ddp_len;
	r->ddp_placed = t->io.placed;
	nfs4_cont_free(t);
	if (o->len && nfs4_server_reply_waits(s) && hold_reply(s, r, NULL, args, res))
		return ORPC_DEFER;
	return o->len ? SUCCESS : SYSTEM_ERR;
}

static enum accept_stat nfs4_compound_proc(struct orpc_req *r, void *args, void *res)
{
	struct nfs3_server *v3 = r->svc->ctx;
	struct compound_args *a = args;
	struct compound_res *o = res;
	struct nfs_ctx ctx;
	struct nfs4_io io = {.sink = r->peer->ddp_sink,
			     .sink_len = r->peer->ddp_sink_len,
			     .bc_id = r->peer->bc_id};

	if (!v3 || !v3->v4)
		return SYSTEM_ERR;
	/* one lcore serves NFSv4 today: its table is the server's */
	if (!v3->v4->bc && r->svc->bc)
		nfs4_server_set_bc(v3->v4, r->svc->bc);
	/* the operations with file work (enum nfs4_work_kind) wait off the lcore when
	 * something can run them (not over UDP: orpc_svc_defer would refuse, and the work runs at
	 * once) */
	io.defer = (v3->aio || v3->pool) && r->peer->xprt != ORPC_XPRT_UDP;
	io.defer_pool = v3->pool != NULL;
	nfs3_make_ctx(r, v3->fs, &ctx);
	o->len = nfs4_compound_io(v3->v4, &ctx, a->p, a->len, &io, &o->p);
	if (io.cont)
		return start_work(v3, r, args, res, io.cont);
	/* READ's data or READLINK's text at the reply's end goes by the write chunk */
	r->ddp_len = io.ddp_len;
	r->ddp_placed = io.placed;
	if (o->len && nfs4_server_reply_waits(v3->v4) && hold_reply(v3->v4, r, NULL, args, res))
		return ORPC_DEFER;
	return o->len ? SUCCESS : SYSTEM_ERR;
}

static const struct orpc_proc nfs4_procs[] = {
	{"NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, nfs4_null, false},
	{"COMPOUND", (xdrproc_t)xdr_compound_args, sizeof(struct compound_args),
	 (xdrproc_t)xdr_compound_res, sizeof(struct compound_res), nfs4_compound_proc, true},
};

const struct orpc_version nfs4_version = {NFS4_VERSION, 2, nfs4_procs};

void nfs4_program_v3_v4(struct orpc_program *prog, struct orpc_version vers[2])
{
	*prog = nfs3_program;
	vers[0] = nfs3_program.vers[0];
	vers[1] = nfs4_version;
	prog->vers = vers;
	prog->nvers = 2;
}
