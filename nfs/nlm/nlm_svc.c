/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nlm_svc.c - the NLM v4 program (XNFS §14: program 100021 version 4) as one table of rows
 * (XDR routines from nfs/xdr/nlm_xdr.c, a handler) and handlers that turn each request into a
 * lock manager message (nfs/lock) and its result into an nlm4_stats.
 *
 *   TEST, LOCK, CANCEL, UNLOCK   the synchronous procedures: what Linux's lockd client uses
 *                                (fs/lockd/clntproc.c calls them over TCP for v3 mounts,
 *                                over RDMA mounts too: nfs_start_lockd picks TCP)
 *   *_MSG                        the same, answered by a separate *_RES call to the client
 *   *_RES, GRANTED_MSG           counted and dropped (droce sends GRANTED synchronously)
 *   GRANTED                      droce holds no locks of others: NLM4_DENIED
 *   NM_LOCK                      LOCK without blocking and without monitoring the host
 *   FREE_ALL                     every lock and waiter of the named host goes
 *   SHARE / UNSHARE              DOS share reservations are not served: SHARE answers
 *                                NLM4_DENIED (NLM4_DENIED_GRACE_PERIOD in grace), UNSHARE
 *                                NLM4_GRANTED (there is nothing to remove)
 * Versions 1 and 3 are not served: orpc_svc answers PROG_MISMATCH 4..4.
 *
 * A file is named by its handle; the backend checks it as for GETATTR (MAC, export, the
 * caller's address listed) and gives the file's (dev, ino), the lock manager's key. A handle
 * that does not verify or is stale is NLM4_STALE_FH; another refusal is NLM4_FAILED.
 * That lookup (open_by_handle_at, fstat) is a system call that may wait for the disk, so a call
 * that names a file is deferred and a helper thread looks it up (key_defer); the call then runs
 * on, on the lcore, with the key (key_done). Over UDP the transport keeps the datagram while
 * it has room (orpc_tcp: ORPC_UDP_CALLS); a call it cannot keep, or one with no helper free,
 * is looked up by the lcore itself, counted in key_inline.
 * A host is its caller_name (the peer's address when empty). The first LOCK of a host puts
 * it on NSM's monitor list (nsm_svc.c), so it is told when droce-nfsd restarts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3_svc.h"
#include "nfs_pool.h"
#include "nlm_svc.h"

#define NLM_COOKIE_KEEP 64u /**< a blocked request's cookie kept for GRANTED */

static struct nlm_server *server_of(struct orpc_req *r)
{
	return r->svc->ctx;
}

void nlm_peer_str(const struct orpc_req *r, char *buf, size_t len)
{
	const struct sockaddr_storage *a = &r->peer->addr;

	buf[0] = '\0';
	if (a->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)len);
	else if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, buf,
			  (socklen_t)len);
}

static void make_ctx(struct orpc_req *r, struct nfs_ctx *c)
{
	nfs3_make_ctx(r, server_of(r)->fs, c);
}

/* the lock manager's answer in NLM's words */
static const uint32_t nlm_of[NFS_LOCK_STATUS_NUM] = {
	[NFS_LOCK_GRANTED] = NLM4_GRANTED,	  [NFS_LOCK_DENIED] = NLM4_DENIED,
	[NFS_LOCK_BLOCKED] = NLM4_BLOCKED,	  [NFS_LOCK_GRACE] = NLM4_DENIED_GRACE_PERIOD,
	[NFS_LOCK_NOLOCKS] = NLM4_DENIED_NOLOCKS, [NFS_LOCK_INVAL] = NLM4_FAILED,
};

static enum accept_stat answered(struct orpc_req *r, uint32_t stat)
{
	struct nlm_server *s = server_of(r);

	s->st.nlm_proc[r->call.proc < NLM4_NPROCS ? r->call.proc : 0]++;
	if (stat < NLM4_NSTATS)
		s->st.nlm_stat[stat]++;
	return SUCCESS;
}

/* A blocked request's tag: its cookie and file handle, what GRANTED must carry back. */
static uint32_t tag_pack(uint8_t *t, const struct nlm_obj *cookie, const struct nlm_obj *fh)
{
	uint32_t n = 0;

	t[n++] = (uint8_t)cookie->len;
	memcpy(t + n, cookie->b, cookie->len);
	n += cookie->len;
	t[n++] = (uint8_t)fh->len;
	memcpy(t + n, fh->b, fh->len);
	return n + fh->len;
}

static void tag_unpack(const uint8_t *t, uint32_t len, struct nlm_obj *cookie, struct nlm_obj *fh)
{
	cookie->len = len ? t[0] : 0;
	cookie->b = t + 1;
	fh->len = len > 1u + cookie->len ? t[1 + cookie->len] : 0;
	fh->b = t + 2 + cookie->len;
}

struct lock_call {
	enum nfs_lock_op op;
	const struct nlm_obj *cookie;
	const struct nlm4_lock *l;
	bool exclusive, block, reclaim, monitor;
	bool joined; /**< out: the call put its host on NSM's list (its write is under way) */
};

/* One lock manager message for an NLM request. @return the nlm4_stats to answer */
static uint32_t lock_op(struct orpc_req *r, struct lock_call *lc)
{
	struct nlm_server *s = server_of(r);
	const struct nlm4_lock *l = lc->l;
	uint8_t tag[NFS_LOCK_TAG_MAX];
	char peer[64], host[NFS_LOCK_HOST_MAX + 1];
	struct nfs_lock_req q;
	struct nfs_fh fh;
	struct nfs_ctx c;
	enum nfs_stat st;

	memset(&s->res, 0, sizeof(s->res));
	if (l->fh.len == 0 || l->fh.len > NFS_FH_MAX)
		return NLM4_STALE_FH;
	fh.len = l->fh.len;
	memcpy(fh.data, l->fh.b, fh.len);
	make_ctx(r, &c);
	memset(&q, 0, sizeof(q));
	if (s->cur_key) { /* a helper thread looked it up (key_done) */
		st = s->cur_key_st;
		memcpy(q.file.b, s->cur_key, 16);
	} else {
		st = nfs_fs_file_key(&c, &fh, q.file.b);
	}
	if (st == NFS_ERR_STALE || st == NFS_ERR_BADHANDLE)
		return NLM4_STALE_FH;
	if (st != NFS_OK)
		return NLM4_FAILED;
	q.file.len = 16;
	q.op = lc->op;
	nlm_peer_str(r, peer, sizeof(peer));
	if (l->caller_name.len) {
		q.owner.host = (const char *)l->caller_name.b;
		q.owner.host_len = l->caller_name.len;
	} else {
		q.owner.host = peer;
		q.owner.host_len = (uint32_t)strlen(peer);
	}
	q.owner.svid = l->svid;
	q.owner.oh = l->oh.b;
	q.owner.oh_len = l->oh.len;
	q.addr = r->peer->addr;
	q.off = l->l_offset;
	q.len = l->l_len;
	q.exclusive = lc->exclusive;
	q.block = lc->block;
	q.reclaim = lc->reclaim;
	if (lc->block) {
		if (lc->cookie->len > NLM_COOKIE_KEEP)
			return NLM4_DENIED_NOLOCKS;
		q.tag = tag;
		q.tag_len = tag_pack(tag, lc->cookie, &l->fh);
	}
	nfs_lock_process(&s->mgr, &q, &s->res);
	if (lc->monitor &&
	    (s->res.status == NFS_LOCK_GRANTED || s->res.status == NFS_LOCK_BLOCKED) &&
	    q.owner.host_len <= NFS_LOCK_HOST_MAX) {
		memcpy(host, q.owner.host, q.owner.host_len);
		host[q.owner.host_len] = '\0';
		lc->joined = nsm_monitor(s, peer, host, false) == 1;
	}
	return nlm_of[s->res.status];
}

/* ---- the helper threads' jobs ---- */

static void job_work(void *arg)
{
	struct nlm_job *j = arg;

	j->work(j);
}

static void job_done(void *arg)
{
	struct nlm_job *j = arg;

	j->done(j);
}

bool nlm_job_submit(struct nlm_server *s, struct nlm_job *j)
{
	j->next = NULL;
	if (s->pool && nfs_pool_submit(s->pool, j) == 0)
		return true;
	j->work(j); /* no helper, or its ring is full: here, now; done at the next poll */
	*s->ready_tail = j;
	s->ready_tail = &j->next;
	return false;
}

uint32_t nlm_jobs_poll(struct nlm_server *s)
{
	struct nlm_job *j = s->ready, *next;
	uint32_t n = 0;

	s->ready = NULL;
	s->ready_tail = &s->ready;
	for (; j; j = next, n++) {
		next = j->next;
		j->done(j);
	}
	if (s->pool)
		n += nfs_pool_poll(s->pool, job_done, 64);
	return n;
}

int nlm_server_event_fd(const struct nlm_server *s)
{
	return s->pool ? nfs_pool_event_fd(s->pool) : -1;
}

typedef enum accept_stat (*nlm_handler_t)(struct orpc_req *r, void *a, void *res);

/* a call waiting for its file's key */
struct key_job {
	struct nlm_job job; /**< first */
	struct nlm_server *s;
	struct orpc_pending *p;
	nlm_handler_t fn; /**< the handler, run again with the key */
	struct nfs_ctx ctx;
	struct nfs_fh fh;
	enum nfs_stat st;
	uint8_t key[16];
};

static void key_work(struct nlm_job *j)
{
	struct key_job *k = (struct key_job *)j;

	k->st = nfs_fs_file_key(&k->ctx, &k->fh, k->key);
}

/* on the lcore: the call runs on with its key, and is answered (or held for NSM's list) */
static void key_done(struct nlm_job *j)
{
	struct key_job *k = (struct key_job *)j;
	struct nlm_server *s = k->s;
	enum accept_stat st;

	s->cur_pending = k->p;
	s->cur_key = k->key;
	s->cur_key_st = k->st;
	st = k->fn(orpc_pending_req(k->p), orpc_pending_args(k->p), orpc_pending_res(k->p));
	s->cur_pending = NULL;
	s->cur_key = NULL;
	if (st != ORPC_DEFER)
		orpc_pending_done(k->p, st);
	free(k);
}

/* In a handler whose call names the file of l: defer the call, and a helper looks the file up.
 * @return true: deferred (answer ORPC_DEFER); false: go on here (the call runs on with its key
 * already, or cannot be deferred: counted) */
static bool key_defer(struct orpc_req *r, void *a, void *res, const struct nlm4_lock *l,
		      nlm_handler_t fn)
{
	struct nlm_server *s = server_of(r);
	struct key_job *k;

	if (s->cur_key || l->fh.len == 0 || l->fh.len > NFS_FH_MAX)
		return false;
	if (!s->pool || nfs_pool_stopping(s->pool) || nfs_pool_inflight(s->pool) >= NFS_POOL_RING)
		goto here;
	k = malloc(sizeof(*k));
	if (!k)
		goto here;
	k->p = orpc_svc_defer(r, a, res);
	if (!k->p) {
		free(k);
		goto here;
	}
	memset(&k->job, 0, sizeof(k->job));
	k->job.work = key_work;
	k->job.done = key_done;
	k->s = s;
	k->fn = fn;
	make_ctx(r, &k->ctx);
	k->fh.len = l->fh.len;
	memcpy(k->fh.data, l->fh.b, l->fh.len);
	if (nlm_job_submit(s, &k->job))
		s->st.key_deferred++;
	else
		s->st.key_inline++;
	return true;
here:
	s->st.key_inline++;
	return false;
}

static void holder_out(struct nlm_server *s, struct nlm4_testres *o)
{
	const struct nfs_lock_holder *h = &s->res.holder;

	o->holder.exclusive = h->exclusive;
	o->holder.svid = h->svid;
	o->holder.oh.b = h->oh;
	o->holder.oh.len = h->oh_len;
	o->holder.l_offset = h->off;
	o->holder.l_len = h->len;
}

static enum accept_stat p_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return answered(r, NLM4_NSTATS);
}

static void do_test(struct orpc_req *r, const struct nlm4_testargs *a, struct nlm4_testres *o)
{
	struct lock_call lc = {.op = NFS_LOCK_OP_TEST,
			       .cookie = &a->cookie,
			       .l = &a->alock,
			       .exclusive = a->exclusive};

	o->cookie = a->cookie;
	o->stat = lock_op(r, &lc);
	if (o->stat == NLM4_DENIED)
		holder_out(server_of(r), o);
}

/* @return true when the lock put its host on NSM's list: the reply waits for its write */
static bool do_lock(struct orpc_req *r, const struct nlm4_lockargs *a, struct nlm4_res *o,
		    bool monitor)
{
	struct lock_call lc = {.op = NFS_LOCK_OP_LOCK,
			       .cookie = &a->cookie,
			       .l = &a->alock,
			       .exclusive = a->exclusive,
			       .block = monitor && a->block,
			       .reclaim = a->reclaim,
			       .monitor = monitor};

	o->cookie = a->cookie;
	o->stat = lock_op(r, &lc);
	return lc.joined;
}

static void do_cancel(struct orpc_req *r, const struct nlm4_cancargs *a, struct nlm4_res *o)
{
	struct lock_call lc = {.op = NFS_LOCK_OP_CANCEL,
			       .cookie = &a->cookie,
			       .l = &a->alock,
			       .exclusive = a->exclusive};

	o->cookie = a->cookie;
	o->stat = lock_op(r, &lc);
}

static void do_unlock(struct orpc_req *r, const struct nlm4_unlockargs *a, struct nlm4_res *o)
{
	struct lock_call lc = {.op = NFS_LOCK_OP_UNLOCK, .cookie = &a->cookie, .l = &a->alock};

	o->cookie = a->cookie;
	o->stat = lock_op(r, &lc);
}

static enum accept_stat p_test(struct orpc_req *r, void *a, void *res)
{
	if (key_defer(r, a, res, &((struct nlm4_testargs *)a)->alock, p_test))
		return ORPC_DEFER;
	do_test(r, a, res);
	return answered(r, ((struct nlm4_testres *)res)->stat);
}

static enum accept_stat p_lock(struct orpc_req *r, void *a, void *res)
{
	bool joined;

	if (key_defer(r, a, res, &((struct nlm4_lockargs *)a)->alock, p_lock))
		return ORPC_DEFER;
	joined = do_lock(r, a, res, true);
	answered(r, ((struct nlm4_res *)res)->stat);
	/* granted (or blocked) once its host's entry is on disk (nsm_writer) */
	return joined && nsm_hold(server_of(r), r, a, res) ? ORPC_DEFER : SUCCESS;
}

static enum accept_stat p_nm_lock(struct orpc_req *r, void *a, void *res)
{
	if (key_defer(r, a, res, &((struct nlm4_lockargs *)a)->alock, p_nm_lock))
		return ORPC_DEFER;
	do_lock(r, a, res, false);
	return answered(r, ((struct nlm4_res *)res)->stat);
}

static enum accept_stat p_cancel(struct orpc_req *r, void *a, void *res)
{
	if (key_defer(r, a, res, &((struct nlm4_cancargs *)a)->alock, p_cancel))
		return ORPC_DEFER;
	do_cancel(r, a, res);
	return answered(r, ((struct nlm4_res *)res)->stat);
}

static enum accept_stat p_unlock(struct orpc_req *r, void *a, void *res)
{
	if (key_defer(r, a, res, &((struct nlm4_unlockargs *)a)->alock, p_unlock))
		return ORPC_DEFER;
	do_unlock(r, a, res);
	return answered(r, ((struct nlm4_res *)res)->stat);
}

/* droce is no lock client: nobody is waiting here for a grant */
static enum accept_stat p_granted(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_res *o = res;

	o->cookie = ((struct nlm4_testargs *)a)->cookie;
	o->stat = NLM4_DENIED;
	return answered(r, o->stat);
}

/* *_MSG: the result goes back as a call of the matching *_RES to the client's NLM */
static void send_res(struct orpc_req *r, uint32_t proc, xdrproc_t xres, const void *res)
{
	struct nlm_server *s = server_of(r);
	char peer[64];

	nlm_peer_str(r, peer, sizeof(peer));
	if (!peer[0] || !nlm_cb_queue(s, NLM_CB_RES, peer, NLM_PROG, NLM_VERS4, proc, xres, res))
		s->st.cb_dropped++;
}

static enum accept_stat p_test_msg(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_testres o = {0};

	if (key_defer(r, a, res, &((struct nlm4_testargs *)a)->alock, p_test_msg))
		return ORPC_DEFER;
	do_test(r, a, &o);
	send_res(r, NLM4_PROC_TEST_RES, (xdrproc_t)xdr_nlm4_testres, &o);
	return answered(r, o.stat);
}

static enum accept_stat p_lock_msg(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_res o = {0};

	if (key_defer(r, a, res, &((struct nlm4_lockargs *)a)->alock, p_lock_msg))
		return ORPC_DEFER;
	if (do_lock(r, a, &o, true)) /* its answer is a call of its own: it does not wait */
		server_of(r)->st.nsm_unheld++;
	send_res(r, NLM4_PROC_LOCK_RES, (xdrproc_t)xdr_nlm4_res, &o);
	return answered(r, o.stat);
}

static enum accept_stat p_cancel_msg(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_res o = {0};

	if (key_defer(r, a, res, &((struct nlm4_cancargs *)a)->alock, p_cancel_msg))
		return ORPC_DEFER;
	do_cancel(r, a, &o);
	send_res(r, NLM4_PROC_CANCEL_RES, (xdrproc_t)xdr_nlm4_res, &o);
	return answered(r, o.stat);
}

static enum accept_stat p_unlock_msg(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_res o = {0};

	if (key_defer(r, a, res, &((struct nlm4_unlockargs *)a)->alock, p_unlock_msg))
		return ORPC_DEFER;
	do_unlock(r, a, &o);
	send_res(r, NLM4_PROC_UNLOCK_RES, (xdrproc_t)xdr_nlm4_res, &o);
	return answered(r, o.stat);
}

static enum accept_stat p_granted_msg(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_res o = {.cookie = ((struct nlm4_testargs *)a)->cookie, .stat = NLM4_DENIED};

	(void)res;
	send_res(r, NLM4_PROC_GRANTED_RES, (xdrproc_t)xdr_nlm4_res, &o);
	return answered(r, o.stat);
}

/* answers to calls droce never makes asynchronously: counted, nothing else */
static enum accept_stat p_ignored(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return answered(r, NLM4_NSTATS);
}

static enum accept_stat p_share(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_shareargs *args = a;
	struct nlm4_shareres *o = res;

	o->cookie = args->cookie;
	o->sequence = 0;
	if (r->call.proc == NLM4_PROC_UNSHARE)
		o->stat = NLM4_GRANTED;
	else if (nfs_lock_in_grace(&server_of(r)->mgr) && !args->reclaim)
		o->stat = NLM4_DENIED_GRACE_PERIOD;
	else
		o->stat = NLM4_DENIED;
	return answered(r, o->stat);
}

uint32_t nlm_free_host(struct nlm_server *s, const char *name, uint32_t len)
{
	struct nfs_lock_req q = {.op = NFS_LOCK_OP_FREE_HOST};
	struct nfs_lock_res res;

	q.owner.host = name;
	q.owner.host_len = len;
	nfs_lock_process(&s->mgr, &q, &res);
	s->st.notify_dropped += res.removed;
	return res.removed;
}

static enum accept_stat p_free_all(struct orpc_req *r, void *a, void *res)
{
	struct nlm4_notify *n = a;

	(void)res;
	nlm_free_host(server_of(r), (const char *)n->name.b, n->name.len);
	return answered(r, NLM4_NSTATS);
}

/* A waiter was granted: tell its client with GRANTED (nlm4_testargs, XNFS §14.1). */
static void on_grant(void *ctx, const struct nfs_lock_grant *g)
{
	struct nlm_server *s = ctx;
	struct nlm4_testargs a;
	struct nlm_cb *cb;
	char ip[64] = "";

	memset(&a, 0, sizeof(a));
	tag_unpack(g->tag, g->tag_len, &a.cookie, &a.alock.fh);
	a.exclusive = g->exclusive;
	a.alock.caller_name.b = (const uint8_t *)g->host;
	a.alock.caller_name.len = g->host_len;
	a.alock.oh.b = g->oh;
	a.alock.oh.len = g->oh_len;
	a.alock.svid = g->svid;
	a.alock.l_offset = g->off;
	a.alock.l_len = g->len;
	if (g->addr->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)g->addr)->sin_addr, ip,
			  sizeof(ip));
	else if (g->addr->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)g->addr)->sin6_addr, ip,
			  sizeof(ip));
	/* without a callback the lock stays granted: the client's next retry of its blocked
	 * LOCK (Linux: every 30 s) is answered GRANTED, as the lock is its own */
	cb = ip[0] ? nlm_cb_queue(s, NLM_CB_GRANTED, ip, NLM_PROG, NLM_VERS4, NLM4_PROC_GRANTED,
				  (xdrproc_t)xdr_nlm4_testargs, &a)
		   : NULL;
	if (!cb) {
		s->st.cb_dropped++;
		return;
	}
	cb->file = *g->file;
	memcpy(cb->host, g->host, g->host_len);
	cb->host_len = g->host_len;
	cb->svid = g->svid;
	memcpy(cb->oh, g->oh, g->oh_len);
	cb->oh_len = g->oh_len;
	cb->off = g->off;
	cb->len = g->len;
	cb->exclusive = g->exclusive;
}

#define ARGS(t) (xdrproc_t) xdr_##t, sizeof(struct t)
#define VOIDRES (xdrproc_t) xdr_void, 0
#define NONE NULL, 0, NULL, 0, NULL, false

static const struct orpc_proc nlm4_procs[NLM4_NPROCS] = {
	[NLM4_PROC_NULL] = {"NULL", (xdrproc_t)xdr_void, 0, VOIDRES, p_null, false},
	[NLM4_PROC_TEST] = {"TEST", ARGS(nlm4_testargs), ARGS(nlm4_testres), p_test, false},
	[NLM4_PROC_LOCK] = {"LOCK", ARGS(nlm4_lockargs), ARGS(nlm4_res), p_lock, false},
	[NLM4_PROC_CANCEL] = {"CANCEL", ARGS(nlm4_cancargs), ARGS(nlm4_res), p_cancel, false},
	[NLM4_PROC_UNLOCK] = {"UNLOCK", ARGS(nlm4_unlockargs), ARGS(nlm4_res), p_unlock, false},
	[NLM4_PROC_GRANTED] = {"GRANTED", ARGS(nlm4_testargs), ARGS(nlm4_res), p_granted, false},
	[NLM4_PROC_TEST_MSG] = {"TEST_MSG", ARGS(nlm4_testargs), VOIDRES, p_test_msg, false},
	[NLM4_PROC_LOCK_MSG] = {"LOCK_MSG", ARGS(nlm4_lockargs), VOIDRES, p_lock_msg, false},
	[NLM4_PROC_CANCEL_MSG] = {"CANCEL_MSG", ARGS(nlm4_cancargs), VOIDRES, p_cancel_msg, false},
	[NLM4_PROC_UNLOCK_MSG] = {"UNLOCK_MSG", ARGS(nlm4_unlockargs), VOIDRES, p_unlock_msg,
				  false},
	[NLM4_PROC_GRANTED_MSG] = {"GRANTED_MSG", ARGS(nlm4_testargs), VOIDRES, p_granted_msg,
				   false},
	[NLM4_PROC_TEST_RES] = {"TEST_RES", ARGS(nlm4_testres), VOIDRES, p_ignored, false},
	[NLM4_PROC_LOCK_RES] = {"LOCK_RES", ARGS(nlm4_res), VOIDRES, p_ignored, false},
	[NLM4_PROC_CANCEL_RES] = {"CANCEL_RES", ARGS(nlm4_res), VOIDRES, p_ignored, false},
	[NLM4_PROC_UNLOCK_RES] = {"UNLOCK_RES", ARGS(nlm4_res), VOIDRES, p_ignored, false},
	[NLM4_PROC_GRANTED_RES] = {"GRANTED_RES", ARGS(nlm4_res), VOIDRES, p_ignored, false},
	[16] = {"16", NONE},
	[17] = {"17", NONE},
	[18] = {"18", NONE},
	[19] = {"19", NONE},
	[NLM4_PROC_SHARE] = {"SHARE", ARGS(nlm4_shareargs), ARGS(nlm4_shareres), p_share, false},
	[NLM4_PROC_UNSHARE] = {"UNSHARE", ARGS(nlm4_shareargs), ARGS(nlm4_shareres), p_share,
			       false},
	[NLM4_PROC_NM_LOCK] = {"NM_LOCK", ARGS(nlm4_lockargs), ARGS(nlm4_res), p_nm_lock, false},
	[NLM4_PROC_FREE_ALL] = {"FREE_ALL", ARGS(nlm4_notify), VOIDRES, p_free_all, false},
};

static const struct orpc_version nlm_versions[] = {{NLM_VERS4, NLM4_NPROCS, nlm4_procs}};

const struct orpc_program nlm_program = {
	.prog = NLM_PROG,
	.name = "nlockmgr",
	.nvers = 1,
	.vers = nlm_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS),
};

int nlm_server_init(struct nlm_server *s, struct nfs_fs *fs, const struct nlm_conf *conf, char *err,
		    size_t errlen)
{
	struct nfs_lock_conf lc = {0};

	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->conf = *conf;
	snprintf(s->my_name, sizeof(s->my_name), "%s", conf->my_name ? conf->my_name : "");
	lc.grace_ms = (uint64_t)conf->grace_s * 1000u;
	lc.on_grant = on_grant;
	lc.ctx = s;
	lc.now_ms = conf->now_ms;
	nfs_lock_mgr_init(&s->mgr, &lc);
	s->ready_tail = &s->ready;
	/* from the start (the event fd is known before serving); without them the work runs on
	 * the lcore, counted */
	s->pool = nfs_pool_create("nlm", NLM_HELPERS, job_work);
	return nsm_start(s, err, errlen);
}

void nlm_server_flush(struct nlm_server *s)
{
	nsm_flush(s);
}

void nlm_server_fini(struct nlm_server *s)
{
	nsm_flush(s);
	/* the helpers stop (a job still with one, a write that outlived the flush's bound, is
	 * handed to its done) before the write buffer goes */
	if (s->pool)
		nfs_pool_destroy(s->pool, job_done);
	s->pool = NULL;
	nsm_fini(s);
	for (uint32_t i = 0; i < NLM_CB_MAX; i++)
		if (s->cbs[i].clnt_up) {
			orpc_clnt_fini(&s->cbs[i].clnt);
			s->cbs[i].clnt_up = false;
		}
	nfs_lock_mgr_fini(&s->mgr);
}
