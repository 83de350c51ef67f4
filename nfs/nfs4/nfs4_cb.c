/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_cb.c - the NFSv4.1 backchannel and read delegations (RFC 8881 §2.10.3.1, §10.2, §10.4,
 * §18.33, §18.36.3, §20.2, §20.9).
 *
 * A session whose CREATE_SESSION asked CONN_BACK_CHAN on a connection that can carry backward
 * calls (orpc_peer.bc_id, orpc_bc.h), or that BIND_CONN_TO_SESSION bound one to, keeps that
 * connection's id; a CB_NULL probes it (enum nfs4_cb_state). SEQUENCE reports a backchannel
 * gone (CB_PATH_DOWN_SESSION, CB_PATH_DOWN) and delegations revoked and not freed
 * (RECALLABLE_STATE_REVOKED).
 *
 * Read delegations are stateids (NFS4_STID_DELEG) with a life of their own (enum
 * nfs4_dlg_state): a conflicting change from another client, v4 or v3, recalls every one on
 * the file by CB_COMPOUND(CB_SEQUENCE, CB_RECALL) on one of the holder's backchannels, one call
 * at a time per session (slot 0, its sequence id counting), and is told DELAY until they are
 * returned. A delegation not returned within a lease of the recall, whose client has no
 * backchannel left, or whose CB_RECALL is answered with an error other than DELAY, is revoked.
 *
 * Backward calls in flight live in a table of the server's (struct nfs4_cb_calls): the
 * transport's done gets a pointer into it, and the reply looks the session and the delegation
 * up again by id, since either may have gone meanwhile. The transports never time a call out:
 * one unanswered for a lease is cancelled (orpc_bc_cancel) and taken as failed. A server
 * destroyed cancels its calls out; one the transport could not cancel keeps the table alive
 * until its done, which frees it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4_int.h"
#include "orpc_bc.h"

#define NS_PER_S 1000000000ull
#define CB_RETRY_NS 100000000ull /* a recall the client answered DELAY goes again after this */

_Static_assert(NFS4_CB_NUM_STATES == sizeof(((struct nfs4_stats *)0)->cb_state) / sizeof(uint64_t),
	       "cb_state counters");
_Static_assert(NFS4_DLG_NUM_STATES ==
		       sizeof(((struct nfs4_stats *)0)->dlg_state) / sizeof(uint64_t),
	       "dlg_state counters");

#define NAME_(n) #n,
static const char *const dlg_names[] = {NFS4_DLG_STATE_LIST(NAME_)};
_Static_assert(sizeof(dlg_names) / sizeof(dlg_names[0]) == NFS4_DLG_NUM_STATES, "names");

const char *nfs4_dlg_state_name(enum nfs4_dlg_state s)
{
	return s < NFS4_DLG_NUM_STATES ? dlg_names[s] : "?";
}

void nfs4_server_set_bc(struct nfs4_server *s, struct orpc_bc_table *t)
{
	s->bc = t;
}

/* the setters of both machines: each entry into a state counted */
static void cb_set_state(struct nfs4_server *s, struct nfs4_session *sess, enum nfs4_cb_state to)
{
	if (sess->cb_state != to)
		s->stats.cb_state[to]++;
	sess->cb_state = to;
}

static void dlg_set_state(struct nfs4_server *s, struct nfs4_stid *d, enum nfs4_dlg_state to)
{
	if (d->dlg == to)
		return;
	s->stats.dlg_state[to]++;
	if (to == NFS4_DLG_REVOKED) {
		d->clp->revoked++;
		s->stats.delegs_revoked++;
	}
	d->dlg = to;
}

static uint64_t lease_ns(const struct nfs4_server *s)
{
	return (uint64_t)s->conf.state.lease_s * NS_PER_S;
}

/* ---- backward calls ---- */

int nfs4_cb_init(struct nfs4_server *s)
{
	s->cb = calloc(1, sizeof(*s->cb));
	s->lkw = calloc(NFS4_LOCK_WAITERS, sizeof(*s->lkw));
	if (!s->cb || !s->lkw)
		return -ENOMEM;
	s->cb->s = s;
	return 0;
}

/* Give up on call k (orpc_bc_cancel): @return true when its done will not come */
static bool cancel_call(struct nfs4_server *s, struct nfs4_cb_call *k)
{
	uint32_t xid_net;

	memcpy(&xid_net, k->msg, 4); /* the call's first word, as it went */
	if (orpc_bc_cancel(s->bc, k->bc_id, xid_net) != 0)
		return false; /* it ends by its done (or already did) */
	k->busy = false;
	s->cb->busy--;
	return true;
}

void nfs4_cb_fini(struct nfs4_server *s)
{
	free(s->lkw);
	s->lkw = NULL;
	if (!s->cb)
		return;
	for (uint32_t i = 0; i < NFS4_CB_CALLS; i++)
		if (s->cb->c[i].busy)
			cancel_call(s, &s->cb->c[i]);
	if (s->cb->busy)
		s->cb->s = NULL; /* the transports still hold calls: their done frees it */
	else
		free(s->cb);
	s->cb = NULL;
}

static void cb_done(void *ctx, int err, const uint8_t *reply, uint32_t len);
static void time_calls_out(struct nfs4_server *s, uint64_t now);

static struct nfs4_cb_call *call_slot(struct nfs4_server *s)
{
	for (uint32_t i = 0; i < NFS4_CB_CALLS; i++)
		if (!s->cb->c[i].busy)
			return &s->cb->c[i];
	return NULL;
}

/* Send a CB_NULL (d and w NULL), a recall of d, or a CB_NOTIFY_LOCK to waiter w on sess's
 * backchannel. @return orpc_bc_call's */
static int cb_send(struct nfs4_server *s, struct nfs4_session *sess, struct nfs4_stid *d,
		   const struct nfs4_lock_waiter *w)
{
	struct nfs4_cb_call *k = call_slot(s);
	struct nfs4_cb_hdr h;
	int rc;

	if (!k)
		return -EBUSY;
	memset(k, 0, offsetof(struct nfs4_cb_call, msg));
	k->t = s->cb;
	k->xid = ++s->cb_xid;
	k->bc_id = sess->bc_id;
	k->sent_ns = s->now_ns();
	memcpy(k->sessionid, sess->id, NFS4_SESSIONID_SIZE);
	h = (struct nfs4_cb_hdr){k->xid, sess->cb_program, &sess->cb_cred,
				 sess->minor ? sess->minor : 1};
	if (d) {
		struct nfs4_cb_recall_args rc_args = {d->id, false, d->fh.len, d->fh.data};

		k->compound = true;
		k->serial = d->serial;
		memcpy(k->seq.sessionid, sess->id, NFS4_SESSIONID_SIZE);
		k->seq.sequenceid = sess->cb_seqid + 1;
		k->seq.slotid = 0;
		k->seq.highest_slotid = 0;
		k->len = nfs4_cb_encode_recall(k->msg, sizeof(k->msg), &h, 0, &k->seq, &rc_args);
	} else if (w) {
		struct nfs4_cb_notify_lock_args nl = {w->fh.len, w->fh.data, w->clientid,
						      w->ownerlen, w->owner};

		k->compound = k->notify = true;
		memcpy(k->seq.sessionid, sess->id, NFS4_SESSIONID_SIZE);
		k->seq.sequenceid = sess->cb_seqid + 1;
		k->len = nfs4_cb_encode_notify_lock(k->msg, sizeof(k->msg), &h, 0, &k->seq, &nl);
	} else {
		k->len = nfs4_cb_encode_null(k->msg, sizeof(k->msg), &h);
	}
	if (!k->len)
		return -E2BIG;
	k->busy = true;
	s->cb->busy++;
	sess->cb_busy |= k->compound;
	/* done may run inside the call (a transport that answers at once): k is not touched
	 * after a 0 */
	rc = orpc_bc_call(s->bc, sess->bc_id, k->msg, k->len, cb_done, k);
	if (rc) {
		k->busy = false;
		s->cb->busy--;
		if (k->compound)
			sess->cb_busy = false;
	}
	return rc;
}

void nfs4_cb_bind(struct nfs4_server *s, struct nfs4_session *sess, uint64_t bc_id)
{
	sess->bc_id = bc_id;
	/* a call out on the old connection ends by its own done; the slot is the new one's */
	sess->cb_busy = false;
	cb_set_state(s, sess, NFS4_CB_PROBING);
	s->stats.cb_probes++;
	if (cb_send(s, sess, NULL, NULL) != 0) {
		s->stats.cb_errors++;
		cb_set_state(s, sess, NFS4_CB_DOWN);
	}
}

/* is sess's backchannel usable (or about to be)? marks it DOWN when its connection went */
static bool cb_live(struct nfs4_server *s, struct nfs4_session *sess)
{
	if (sess->cb_state != NFS4_CB_UP && sess->cb_state != NFS4_CB_PROBING)
		return false;
	if (!orpc_bc_alive(s->bc, sess->bc_id)) {
		cb_set_state(s, sess, NFS4_CB_DOWN);
		return false;
	}
	return true;
}

uint32_t nfs4_cb_seq_flags(struct nfs4_server *s, struct nfs4_session *sess)
{
	bool asked = false, live = false;
	uint32_t f = 0;

	for (struct nfs4_session *o = sess->clp->sessions; o; o = o->next) {
		if (o->cb_state == NFS4_CB_NONE)
			continue;
		asked = true;
		live |= cb_live(s, o);
	}
	if (sess->cb_state == NFS4_CB_DOWN)
		f |= SEQ4_STATUS_CB_PATH_DOWN_SESSION;
	if (asked && !live)
		f |= SEQ4_STATUS_CB_PATH_DOWN;
	if (sess->clp->revoked)
		f |= SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
	return f;
}

/* ---- a delegation's life: step functions (house style §4) ---- */

struct dlg_ctx {
	struct nfs4_server *s;
	struct nfs4_stid *d;
	uint64_t now;
};

static bool past_lease(const struct dlg_ctx *k)
{
	return k->now > k->d->recall_ns + lease_ns(k->s);
}

static enum nfs4_dlg_state dlg_recall_wait(struct dlg_ctx *k)
{
	struct nfs4_session *up = NULL;
	bool probing = false;
	int rc;

	if (past_lease(k))
		return NFS4_DLG_REVOKED;
	for (struct nfs4_session *o = k->d->clp->sessions; o; o = o->next) {
		if (!cb_live(k->s, o))
			continue;
		if (o->cb_state == NFS4_CB_PROBING)
			probing = true;
		else if (!up || (up->cb_busy && !o->cb_busy))
			up = o;
	}
	if (!up)
		return probing ? NFS4_DLG_RECALL_WAIT : NFS4_DLG_REVOKED; /* nowhere to send it */
	if (up->cb_busy || k->now < k->d->retry_ns)
		return NFS4_DLG_RECALL_WAIT; /* its turn comes when the slot's call ends */
	/* RECALLING before the call: a transport may answer inside it, and the answer must find
	 * the delegation recalled (and not send it again) */
	dlg_set_state(k->s, k->d, NFS4_DLG_RECALLING);
	rc = cb_send(k->s, up, k->d, NULL);
	if (rc == -EBUSY)
		return NFS4_DLG_RECALL_WAIT;
	if (rc) {
		k->s->stats.cb_errors++;
		cb_set_state(k->s, up, NFS4_CB_DOWN);
		dlg_set_state(k->s, k->d, NFS4_DLG_RECALL_WAIT);
		/* another session's backchannel, or revoked: up is no longer live, so this ends */
		return dlg_recall_wait(k);
	}
	k->s->stats.recalls_sent++;
	return k->d->dlg; /* RECALLING, or where a reply inside the call moved it */
}

static enum nfs4_dlg_state dlg_waiting_return(struct dlg_ctx *k)
{
	return past_lease(k) ? NFS4_DLG_REVOKED : k->d->dlg;
}

static void dlg_run(struct nfs4_server *s, struct nfs4_stid *d, uint64_t now)
{
	struct dlg_ctx k = {s, d, now};
	enum nfs4_dlg_state prev;

	do {
		enum nfs4_dlg_state next = d->dlg;

		prev = d->dlg;
		switch (d->dlg) {
		case NFS4_DLG_RECALL_WAIT:
			next = dlg_recall_wait(&k);
			break;
		case NFS4_DLG_RECALLING:
		case NFS4_DLG_RECALLED:
			next = dlg_waiting_return(&k);
			break;
		default: /* GRANTED, REVOKED: nothing moves them here */
			break;
		}
		dlg_set_state(s, d, next);
	} while (d->dlg != prev);
}

/* the client's recalls waiting for a slot get one now */
static void notify_client(struct nfs4_server *s, struct nfs4_client *clp);

static void pump_client(struct nfs4_server *s, struct nfs4_client *clp, uint64_t now)
{
	struct nfs4_cstate *cs = clp->owners;

	for (struct nfs4_stid *st = cs ? cs->stids : NULL; st; st = st->cnext)
		if (st->type == NFS4_STID_DELEG && st->dlg == NFS4_DLG_RECALL_WAIT)
			dlg_run(s, st, now);
	notify_client(s, clp); /* recalls first: they hold other clients up */
}

static void sweep_one(void *arg, struct nfs4_stid *st)
{
	struct nfs4_server *s = arg;

	if (st->type == NFS4_STID_DELEG && st->dlg != NFS4_DLG_GRANTED &&
	    st->dlg != NFS4_DLG_REVOKED)
		dlg_run(s, st, s->now_ns());
}

static void sweep_waiters(struct nfs4_server *s, uint64_t now);

void nfs4_cb_sweep(struct nfs4_server *s, uint64_t now)
{
	time_calls_out(s, now);
	sweep_waiters(s, now);
	/* each step reads the server's clock: a reply may come in between */
	nfs4_stid_each(s, sweep_one, s);
}

/* ---- a backward call ended ---- */

static void recall_done(struct nfs4_server *s, const struct nfs4_cb_call *k, int err,
			const uint8_t *reply, uint32_t len, struct nfs4_session *sess)
{
	struct nfs4_stid *d = nfs4_stid_by_serial(s, k->serial);
	struct nfs4_cb_reply r;
	uint32_t st = NFS4_OK;
	bool revoke = false, again = false;

	if (sess)
		sess->cb_busy = false;
	if (err) {
		s->stats.cb_errors++;
		if (sess && err != -ETIMEDOUT && sess->bc_id == k->bc_id)
			cb_set_state(s, sess, NFS4_CB_DOWN);
		again = true; /* another backchannel, or revoked when there is none */
	} else if (nfs4_cb_decode_reply(reply, len, k->xid, true, &k->seq, &r) != 0) {
		s->stats.cb_bad_replies++;
		revoke = true;
	} else if (r.reply_stat != 0 || r.accept_stat != 0) {
		s->stats.cb_errors++;
		revoke = true;
	} else {
		s->stats.recalls_answered++;
		/* the slot's sequence moves on once the client has seen this one (RFC 8881
		 * §2.10.6.1): a call lost on the way is sent again with the same */
		if (sess && r.seq_ok)
			sess->cb_seqid = k->seq.sequenceid;
		/* the first failing result is the compound's status (RFC 8881 §20: it stops) */
		st = r.status;
		if (st == NFS4ERR_DELAY)
			again = true;
		else if (st != NFS4_OK || r.nres != 2 || !r.seq_ok)
			revoke = true;
	}
	if (!d || d->type != NFS4_STID_DELEG || d->dlg != NFS4_DLG_RECALLING)
		return; /* returned (or its client gone) meanwhile */
	if (revoke) {
		dlg_set_state(s, d, NFS4_DLG_REVOKED);
	} else if (again) {
		/* the client's DELAY is honoured: the recall goes again a moment later (on the
		 * next conflict check or sweep), never from inside this answer */
		if (!err)
			d->retry_ns = s->now_ns() + CB_RETRY_NS;
		dlg_set_state(s, d, NFS4_DLG_RECALL_WAIT);
	} else
		dlg_set_state(s, d, NFS4_DLG_RECALLED);
}

/* A call's outcome: its answer, its connection's end, or a lease without either. */
static void call_ended(struct nfs4_server *s, const struct nfs4_cb_call *k, int err,
		       const uint8_t *reply, uint32_t len)
{
	struct nfs4_session *sess = nfs4_session_find(s->st, k->sessionid);
	uint64_t now = s->now_ns();

	if (k->notify) {
		struct nfs4_cb_reply r;

		/* nothing hangs on the answer: the slot and its sequence move on */
		if (sess)
			sess->cb_busy = false;
		if (err)
			s->stats.cb_errors++;
		else if (nfs4_cb_decode_reply(reply, len, k->xid, true, &k->seq, &r) != 0)
			s->stats.cb_bad_replies++;
		else if (sess && r.seq_ok)
			sess->cb_seqid = k->seq.sequenceid;
	} else if (k->compound) {
		recall_done(s, k, err, reply, len, sess);
	} else if (sess && sess->cb_state == NFS4_CB_PROBING && sess->bc_id == k->bc_id) {
		struct nfs4_cb_reply r;
		bool up = false;

		if (err)
			s->stats.cb_errors++;
		else if (nfs4_cb_decode_reply(reply, len, k->xid, false, NULL, &r) != 0)
			s->stats.cb_bad_replies++;
		else if (r.reply_stat != 0 || r.accept_stat != 0)
			s->stats.cb_errors++;
		else
			up = true;
		cb_set_state(s, sess, up ? NFS4_CB_UP : NFS4_CB_DOWN);
	}
	if (sess)
		pump_client(s, sess->clp, now);
}

static void cb_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct nfs4_cb_call *k = ctx;
	struct nfs4_cb_calls *t = k->t;
	struct nfs4_server *s = t->s;
	struct nfs4_cb_call call = *k;

	/* free the slot first: what follows may send again */
	k->busy = false;
	t->busy--;
	if (!s) {
		if (!t->busy)
			free(t); /* the server went before its last call */
		return;
	}
	if (call.abandoned)
		return; /* its outcome was taken when the lease ran out */
	call_ended(s, &call, err, reply, len);
}

/* The transports never time a backward call out (orpc_bc.h): a call unanswered for a lease
 * is cancelled and ends here as -ETIMEDOUT (a probe: DOWN; a recall: revoked, its lease being
 * over too). One the transport cannot cancel keeps its slot until the transport ends it. */
static void time_calls_out(struct nfs4_server *s, uint64_t now)
{
	for (uint32_t i = 0; i < NFS4_CB_CALLS; i++) {
		struct nfs4_cb_call *k = &s->cb->c[i];

		if (!k->busy || k->abandoned || now <= k->sent_ns + lease_ns(s))
			continue;
		{
			struct nfs4_cb_call call = *k;

			if (!cancel_call(s, k))
				k->abandoned = true;
			call_ended(s, &call, -ETIMEDOUT, NULL, 0);
		}
	}
}

/* ---- conflicts and grants ---- */

static bool same_key(const struct nfs_lock_key *a, const struct nfs_lock_key *b)
{
	return a->len == b->len && memcmp(a->b, b->b, a->len) == 0;
}

/* ---- CB_NOTIFY_LOCK (RFC 8881 §20.11) ---- */

/* a session of clp whose backchannel is UP, free ones first; NULL: none */
static struct nfs4_session *cb_session(struct nfs4_server *s, struct nfs4_client *clp)
{
	struct nfs4_session *up = NULL;

	for (struct nfs4_session *o = clp->sessions; o; o = o->next)
		if (cb_live(s, o) && o->cb_state == NFS4_CB_UP &&
		    (!up || (up->cb_busy && !o->cb_busy)))
			up = o;
	return up;
}

bool nfs4_cb_may_notify(struct nfs4_server *s, struct nfs4_client *clp)
{
	return cb_session(s, clp) != NULL;
}

/* the client's due notifications go while its backchannel slot is free */
static void notify_client(struct nfs4_server *s, struct nfs4_client *clp)
{
	for (uint32_t i = 0; i < NFS4_LOCK_WAITERS; i++) {
		struct nfs4_lock_waiter *w = &s->lkw[i];
		struct nfs4_session *sess;
		int rc;

		if (!w->used || !w->pending || w->clientid != clp->clientid)
			continue;
		sess = cb_session(s, clp);
		if (!sess) {
			w->used = false; /* nowhere to tell it: it polls */
			continue;
		}
		if (sess->cb_busy)
			return;	 /* when the slot's call ends */
		w->used = false; /* once: a reply inside the call may pump again */
		rc = cb_send(s, sess, NULL, w);
		if (rc == -EBUSY) {
			w->used = true;
			return;
		}
		if (rc)
			s->stats.cb_errors++;
		else
			s->stats.lock_notifies++;
	}
}

void nfs4_lock_wait(struct nfs4_server *s, const struct nfs4_stid *l)
{
	struct nfs4_lock_waiter *w = NULL;

	if (!cb_session(s, l->clp))
		return; /* no backchannel: the client polls */
	for (uint32_t i = 0; i < NFS4_LOCK_WAITERS; i++) {
		struct nfs4_lock_waiter *o = &s->lkw[i];

		if (o->used && o->clientid == l->clp->clientid && o->ownerlen == l->owner->len &&
		    memcmp(o->owner, l->owner->name, o->ownerlen) == 0 &&
		    same_key(&o->key, &l->key)) {
			w = o; /* asked again: still one notification */
			break;
		}
		if (!o->used && !w)
			w = o;
	}
	if (!w)
		return; /* full: it polls */
	if (!w->used)
		s->stats.lock_waits++;
	w->used = true;
	w->pending = false;
	w->clientid = l->clp->clientid;
	w->since_ns = s->now_ns();
	w->fh = l->fh;
	w->key = l->key;
	w->ownerlen = l->owner->len;
	memcpy(w->owner, l->owner->name, l->owner->len);
}

/* every client with a notification due gets it (or loses it: gone, no backchannel) */
static void notify_due(struct nfs4_server *s)
{
	for (uint32_t i = 0; i < NFS4_LOCK_WAITERS; i++) {
		struct nfs4_client *clp;

		if (!s->lkw[i].used || !s->lkw[i].pending)
			continue;
		clp = nfs4_client_find(s->st, s->lkw[i].clientid);
		if (clp)
			notify_client(s, clp);
		else
			s->lkw[i].used = false;
	}
}

void nfs4_lock_released(struct nfs4_server *s, const struct nfs_lock_key *key, bool send)
{
	if (!s->lkw)
		return;
	for (uint32_t i = 0; i < NFS4_LOCK_WAITERS; i++) {
		struct nfs4_lock_waiter *w = &s->lkw[i];

		if (w->used && (!key || same_key(&w->key, key)))
			w->pending = true;
	}
	if (send)
		notify_due(s);
}

/* waiters older than a lease go (their clients poll); those due are sent */
static void sweep_waiters(struct nfs4_server *s, uint64_t now)
{
	for (uint32_t i = 0; i < NFS4_LOCK_WAITERS; i++)
		if (s->lkw[i].used && now > s->lkw[i].since_ns + lease_ns(s))
			s->lkw[i].used = false;
	notify_due(s);
}

struct conflict_ctx {
	struct nfs4_server *s;
	const struct nfs_lock_key *key;
	const struct nfs4_client *self;
	uint64_t now;
	bool held;
};

static void conflict_one(void *arg, struct nfs4_stid *d)
{
	struct conflict_ctx *k = arg;

	if (d->type != NFS4_STID_DELEG || d->clp == k->self || !same_key(&d->key, k->key))
		return;
	if (d->dlg == NFS4_DLG_GRANTED) {
		d->recall_ns = k->now;
		dlg_set_state(k->s, d, NFS4_DLG_RECALL_WAIT);
	}
	dlg_run(k->s, d, k->now);
	if (d->dlg != NFS4_DLG_REVOKED)
		k->held = true;
}

bool nfs4_deleg_conflict(struct nfs4_server *s, const struct nfs_lock_key *key,
			 const struct nfs4_client *self)
{
	struct conflict_ctx k = {s, key, self, 0, false};

	if (!nfs4_otab_delegs(s->ot))
		return false;
	k.now = s->now_ns();
	nfs4_stid_each(s, conflict_one, &k);
	if (k.held)
		s->stats.deleg_conflicts++;
	return k.held;
}

struct offer_ctx {
	const struct nfs_lock_key *key;
	const struct nfs4_client *clp;
	struct nfs4_stid *mine; /**< the client's delegation on the file */
	bool contention;	/**< a writer, or a recall running */
};

static void offer_one(void *arg, struct nfs4_stid *st)
{
	struct offer_ctx *k = arg;

	if (!same_key(&st->key, k->key))
		return;
	if (st->type == NFS4_STID_OPEN && (st->access & OPEN4_SHARE_ACCESS_WRITE))
		k->contention = true;
	else if (st->type == NFS4_STID_DELEG && st->clp == k->clp && st->dlg == NFS4_DLG_GRANTED)
		k->mine = st;
	else if (st->type == NFS4_STID_DELEG && st->dlg != NFS4_DLG_GRANTED &&
		 st->dlg != NFS4_DLG_REVOKED)
		k->contention = true;
}

/* A backchannel UP, or being probed: a session's connection is the client's own, so it is
 * taken as good until the probe says otherwise (as Linux's nfsd does for 4.1); a recall that
 * comes before the probe's answer waits for it. */
static bool client_cb_up(struct nfs4_server *s, struct nfs4_client *clp)
{
	for (struct nfs4_session *o = clp->sessions; o; o = o->next)
		if (cb_live(s, o))
			return true;
	return false;
}

static const uint8_t deleg_owner_name[1];

void nfs4_deleg_offer(struct nfs4_compound *c, struct nfs4_client *clp, const struct nfs_fh *fh,
		      const struct nfs_lock_key *key, const struct nfs4_open_args *o,
		      struct nfs4_open_res *res)
{
	uint32_t want = o->share_access & OPEN4_SHARE_ACCESS_WANT_MASK;
	uint32_t access = o->share_access & OPEN4_SHARE_ACCESS_BOTH;
	struct offer_ctx k = {key, clp, NULL, false};
	uint32_t why = WND4_RESOURCE;
	struct nfs4_owner *owner;
	struct nfs4_stid *d;

	res->deleg_type = OPEN_DELEGATE_NONE;
	if (want == OPEN4_SHARE_ACCESS_WANT_NO_DELEG) {
		why = WND4_NOT_WANTED;
		goto none;
	}
	if (want == OPEN4_SHARE_ACCESS_WANT_CANCEL) {
		why = WND4_CANCELLED;
		goto none;
	}
	/* read delegations only, for opens that only read, by plain claims */
	if (want == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG || access != OPEN4_SHARE_ACCESS_READ ||
	    (o->claim != CLAIM_NULL && o->claim != CLAIM_FH) || !client_cb_up(c->s, clp))
		goto none;
	/* none while the lock manager's grace period lasts: locks being reclaimed (NLM's too)
	 * must not meet a delegation (as Linux's nfsd) */
	if (nfs_lock_in_grace(c->s->mgr))
		goto none;
	/* a change whose delegation check is done waits for its file work: the file it changes
	 * could be this one (a delegation is always optional: none is the safe answer) */
	if (c->s->changes_waiting) {
		why = WND4_CONTENTION;
		goto none;
	}
	nfs4_stid_each(c->s, offer_one, &k);
	if (k.contention) {
		why = WND4_CONTENTION;
		goto none;
	}
	d = k.mine;
	if (!d) {
		owner = nfs4_owner_get(c->s, clp, false, &(struct nfs4_ref){deleg_owner_name, 0},
				       true);
		if (!owner)
			goto none;
		d = nfs4_stid_new(c->s, owner, NFS4_STID_DELEG, fh, key);
		if (!d) {
			nfs4_owner_forget(c->s, owner);
			goto none;
		}
		d->dlg = NFS4_DLG_GRANTED;
		c->s->stats.dlg_state[NFS4_DLG_GRANTED]++;
		c->s->stats.delegs_granted++;
	}
	res->deleg_type = OPEN_DELEGATE_READ;
	res->deleg_sid = d->id;
	res->recall = false;
	return;
none:
	if (want) {
		/* a client that said what it wants hears why it gets none (§18.16.3) */
		res->deleg_type = OPEN_DELEGATE_NONE_EXT;
		res->why_no_deleg = why;
	}
}

void nfs4_deleg_forget(struct nfs4_server *s, struct nfs4_stid *d)
{
	(void)s;
	if (d->dlg == NFS4_DLG_REVOKED && d->clp->revoked)
		d->clp->revoked--;
}

/* ---- DELEGRETURN, BACKCHANNEL_CTL ---- */

uint32_t nfs4_op_delegreturn(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_stid *d;
	uint32_t s = nfs4_sid_find(c, &a->sid, NFS4_SID_DELEG, &c->cur.fh, true, &d);

	(void)r;
	if (s != NFS4_OK)
		return s; /* a revoked one: DELEG_REVOKED, the client frees it */
	nfs4_stid_free(c->s, d);
	c->s->stats.delegs_returned++;
	return NFS4_OK;
}

uint32_t nfs4_op_backchannel_ctl(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r)
{
	struct nfs4_cb_cred cred;
	int rc;

	(void)r;
	rc = nfs4_cb_pick_cred(&a->bc_ctl.sec_parms, &cred);
	if (rc == -EBADMSG)
		return NFS4ERR_BADXDR;
	if (rc)
		return NFS4ERR_INVAL; /* RPCSEC_GSS alone: not done */
	c->sess->cb_program = a->bc_ctl.cb_program;
	c->sess->cb_cred = cred;
	return NFS4_OK;
}

/* ---- NFSv3's way in ---- */

bool nfs4_deleg_break(struct nfs4_server *s, struct nfs_ctx *ctx, const struct nfs_fh *fh)
{
	struct nfs_lock_key key;

	/* the NFSv3 WRITE path: nothing but a count read while no delegation is out */
	if (!s || !nfs4_otab_delegs(s->ot))
		return false;
	key.len = 16;
	if (nfs_fs_file_key(ctx, fh, key.b) != NFS_OK)
		return false;
	return nfs4_deleg_conflict(s, &key, NULL);
}

bool nfs4_deleg_break_name(struct nfs4_server *s, struct nfs_ctx *ctx, const struct nfs_fh *dir,
			   const char *name, uint32_t len)
{
	struct nfs_attr at, dat;
	struct nfs_fh fh;
	bool dv = false;

	if (!s || !nfs4_otab_delegs(s->ot))
		return false; /* no lookup for nothing */
	if (nfs_fs_lookup(ctx, dir, name, len, &fh, &at, &dv, &dat) != NFS_OK)
		return false;
	return nfs4_deleg_break(s, ctx, &fh);
}
