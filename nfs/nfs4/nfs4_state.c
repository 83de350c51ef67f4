/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_state.c - NFSv4.1 client records and sessions (nfs4_state.h): EXCHANGE_ID's cases
 * (RFC 8881 §18.35.5), CREATE_SESSION's own sequence and retry (§18.36.4), the slot table and
 * reply cache that SEQUENCE evaluates (§2.10.6.1), DESTROY_SESSION, DESTROY_CLIENTID,
 * BIND_CONN_TO_SESSION's answer (which channels a connection binds; nfs4_cb.c binds the back
 * one), RECLAIM_COMPLETE, and lease expiry. Stable records and grace are nfs4_recover.c's: the
 * forget hook tells the server of each client that goes for good. The backchannel's calls
 * and delegations are nfs4_cb.c's; CREATE_SESSION grants CONN_BACK_CHAN when its caller says
 * the connection can carry backward calls.
 *
 * Clients are kept in a flat table of max_clients pointers, searched linearly (by id, or by
 * owner for EXCHANGE_ID): a server has tens of clients, not thousands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4_state.h"

/* the smallest request and reply a session can carry: a COMPOUND with an empty tag and one
 * SEQUENCE, with the RPC header of an AUTH_NONE call or reply (Linux's nfsd uses the same) */
#define MIN_REQ_SIZE 68u
#define MIN_RESP_SIZE 80u

#define NS_PER_S 1000000000ull

struct nfs4_state {
	struct nfs4_state_conf conf;
	struct nfs4_client **clients; /**< conf.max_clients entries, NULL: free */
	uint32_t next_id;	      /**< the low word of the next client id */
	uint32_t next_sess;	      /**< a counter in each session id */
	struct nfs4_state_stats st;
	nfs4_release_fn release;
	void *release_arg;
	nfs4_forget_fn forget;
	void *forget_arg;
	bool closing; /**< nfs4_state_destroy: the clients go, their stable records stay */
};

#define NAME_(n) #n,
static const char *const sess_names[] = {NFS4_SESS_STATE_LIST(NAME_)};
static const char *const seq_names[] = {NFS4_SEQ_STATE_LIST(NAME_)};
static const char *const cb_names[] = {NFS4_CB_STATE_LIST(NAME_)};
_Static_assert(sizeof(cb_names) / sizeof(cb_names[0]) == NFS4_CB_NUM_STATES, "names");

const char *nfs4_cb_state_name(enum nfs4_cb_state s)
{
	return s < NFS4_CB_NUM_STATES ? cb_names[s] : "?";
}
_Static_assert(sizeof(sess_names) / sizeof(sess_names[0]) == NFS4_SESS_NUM_STATES, "names");
_Static_assert(sizeof(seq_names) / sizeof(seq_names[0]) == NFS4_SEQ_NUM_STATES, "names");

const char *nfs4_sess_state_name(enum nfs4_sess_state s)
{
	return s < NFS4_SESS_NUM_STATES ? sess_names[s] : "?";
}

const char *nfs4_seq_state_name(enum nfs4_seq_state s)
{
	return s < NFS4_SEQ_NUM_STATES ? seq_names[s] : "?";
}

/* the one setter of each machine: counts every entry into a state */
static void sess_set_state(struct nfs4_state *st, struct nfs4_session *s, enum nfs4_sess_state to)
{
	if (s->state != to)
		st->st.sess_state[to]++;
	s->state = to;
}

static void seq_set_state(struct nfs4_state *st, struct nfs4_seq_outcome *o, enum nfs4_seq_state to)
{
	if (o->state != to)
		st->st.seq_state[to]++;
	o->state = to;
}

struct nfs4_state *nfs4_state_create(const struct nfs4_state_conf *conf)
{
	struct nfs4_state *st;

	if (!conf->max_clients || !conf->slots || conf->slots > NFS4_SLOTS_MAX || !conf->lease_s ||
	    conf->max_req < MIN_REQ_SIZE || conf->max_resp < MIN_RESP_SIZE ||
	    conf->max_resp_cached < MIN_RESP_SIZE || !conf->max_ops) {
		errno = EINVAL;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->conf = *conf;
	st->clients = calloc(conf->max_clients, sizeof(st->clients[0]));
	if (!st->clients) {
		free(st);
		return NULL;
	}
	st->next_id = 1;
	return st;
}

static void session_free(struct nfs4_state *st, struct nfs4_session *s)
{
	sess_set_state(st, s, NFS4_SESS_DEAD);
	st->st.sessions--;
	st->st.sessions_destroyed++;
	free(s->slots);
	free(s->cache);
	free(s);
}

static void session_unlink(struct nfs4_session *s)
{
	struct nfs4_session **pp = &s->clp->sessions;

	while (*pp && *pp != s)
		pp = &(*pp)->next;
	if (*pp)
		*pp = s->next;
	s->clp->nsessions--;
}

static void client_free(struct nfs4_state *st, uint32_t i)
{
	struct nfs4_client *c = st->clients[i];

	if (c->recorded && st->forget && !st->closing)
		st->forget(st->forget_arg, c);
	if (c->owners && st->release)
		st->release(st->release_arg, c);
	while (c->sessions) {
		struct nfs4_session *s = c->sessions;

		session_unlink(s);
		session_free(st, s);
	}
	st->clients[i] = NULL;
	st->st.clients--;
	free(c);
}

void nfs4_state_destroy(struct nfs4_state *st)
{
	if (!st)
		return;
	st->closing = true;
	for (uint32_t i = 0; i < st->conf.max_clients; i++)
		if (st->clients[i])
			client_free(st, i);
	free(st->clients);
	free(st);
}

const struct nfs4_state_conf *nfs4_state_conf(const struct nfs4_state *st)
{
	return &st->conf;
}

void nfs4_state_stats(const struct nfs4_state *st, struct nfs4_state_stats *out)
{
	*out = st->st;
}

static uint32_t client_index(const struct nfs4_state *st, uint64_t id)
{
	for (uint32_t i = 0; i < st->conf.max_clients; i++)
		if (st->clients[i] && st->clients[i]->clientid == id)
			return i;
	return UINT32_MAX;
}

void nfs4_state_set_release(struct nfs4_state *st, nfs4_release_fn fn, void *arg)
{
	st->release = fn;
	st->release_arg = arg;
}

void nfs4_state_set_forget(struct nfs4_state *st, nfs4_forget_fn fn, void *arg)
{
	st->forget = fn;
	st->forget_arg = arg;
}

struct nfs4_client *nfs4_client_find(struct nfs4_state *st, uint64_t clientid)
{
	uint32_t i = client_index(st, clientid);

	return i == UINT32_MAX ? NULL : st->clients[i];
}

static uint32_t owner_index(const struct nfs4_state *st, const struct nfs4_ref *owner,
			    enum nfs4_client_state want)
{
	for (uint32_t i = 0; i < st->conf.max_clients; i++) {
		const struct nfs4_client *c = st->clients[i];

		if (c && c->state == want && c->ownerlen == owner->len &&
		    memcmp(c->owner, owner->p, owner->len) == 0)
			return i;
	}
	return UINT32_MAX;
}

/* a compound of the session waits for its file work (its slot is IN_PROGRESS); own: the
 * asking compound's slot (a compound that waited keeps its slot IN_PROGRESS to its end) */
static bool session_busy(const struct nfs4_session *s, const struct nfs4_slot *own)
{
	for (uint32_t i = 0; i < s->fore.maxrequests; i++)
		if (s->slots[i].state == NFS4_SLOT_IN_PROGRESS && &s->slots[i] != own)
			return true;
	return false;
}

static bool client_busy(const struct nfs4_client *c)
{
	for (const struct nfs4_session *s = c->sessions; s; s = s->next)
		if (session_busy(s, NULL))
			return true;
	return false;
}

/* The lease ran out. A client with a compound still waiting for its file work is not expired
 * under it (knfsd keeps a client in use too): the next sweep or SEQUENCE after the compound
 * ended does it. */
static bool expired(struct nfs4_state *st, const struct nfs4_client *c, uint64_t now)
{
	if (now <= c->expire_ns)
		return false;
	if (client_busy(c)) {
		st->st.expiry_held++;
		return false;
	}
	return true;
}

static void renew(const struct nfs4_state *st, struct nfs4_client *c, uint64_t now)
{
	c->expire_ns = now + (uint64_t)st->conf.lease_s * NS_PER_S;
}

uint32_t nfs4_state_expire(struct nfs4_state *st, uint64_t now)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < st->conf.max_clients; i++)
		if (st->clients[i] && expired(st, st->clients[i], now)) {
			client_free(st, i);
			st->st.clients_expired++;
			n++;
		}
	return n;
}

static bool same_princ(const struct nfs4_principal *a, const struct nfs4_principal *b)
{
	return a->flavor == b->flavor && a->uid == b->uid && a->gid == b->gid;
}

/* ---- EXCHANGE_ID ---- */

static uint32_t new_client(struct nfs4_state *st, const struct nfs4_principal *who,
			   const struct nfs4_exchange_id_args *a, uint64_t now,
			   struct nfs4_client **out)
{
	uint32_t free_i = UINT32_MAX;
	struct nfs4_client *c;

	for (uint32_t i = 0; i < st->conf.max_clients && free_i == UINT32_MAX; i++)
		if (!st->clients[i])
			free_i = i;
	if (free_i == UINT32_MAX) {
		/* make room from the clients whose lease ran out, then give up for now */
		if (!nfs4_state_expire(st, now))
			return NFS4ERR_DELAY;
		return new_client(st, who, a, now, out);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NFS4ERR_SERVERFAULT;
	/* the boot epoch in the high word: an id from an earlier run is never found, so it is
	 * STALE_CLIENTID */
	c->clientid = (uint64_t)st->conf.boot << 32 | st->next_id++;
	if (st->next_id == 0)
		st->next_id = 1;
	c->state = NFS4_CLIENT_UNCONFIRMED;
	memcpy(c->verifier, a->verifier, NFS4_VERIFIER_SIZE);
	c->ownerlen = a->ownerid.len;
	memcpy(c->owner, a->ownerid.p, a->ownerid.len);
	c->princ = *who;
	c->cs_seqid = 0; /* eir_sequenceid 1: the first CREATE_SESSION's */
	renew(st, c, now);
	st->clients[free_i] = c;
	st->st.clients++;
	st->st.clients_created++;
	*out = c;
	return NFS4_OK;
}

static bool has_state(const struct nfs4_client *c)
{
	return c->sessions != NULL || c->owners != NULL;
}

uint32_t nfs4_exchange_id(struct nfs4_state *st, const struct nfs4_principal *who,
			  const struct nfs4_exchange_id_args *a, struct nfs4_exchange_id_res *res,
			  uint64_t now)
{
	bool update = a->flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
	struct nfs4_client *c = NULL;
	uint32_t ci, ui, s;

	if (a->flags & ~EXCHGID4_FLAG_MASK_A)
		return NFS4ERR_INVAL;
	/* AUTH_SYS cannot protect state with the machine credential; SSV needs GSS */
	if (a->sp_how == SP4_MACH_CRED)
		return NFS4ERR_INVAL;
	if (a->sp_how == SP4_SSV)
		return NFS4ERR_ENCR_ALG_UNSUPP;
	if (a->ownerid.len == 0)
		return NFS4ERR_INVAL;
	nfs4_state_expire(st, now);
	ci = owner_index(st, &a->ownerid, NFS4_CLIENT_CONFIRMED);
	if (ci != UINT32_MAX) {
		struct nfs4_client *conf = st->clients[ci];
		bool princ_ok = same_princ(&conf->princ, who);
		bool verf_ok = memcmp(conf->verifier, a->verifier, NFS4_VERIFIER_SIZE) == 0;

		if (update) {
			if (!princ_ok)
				return NFS4ERR_PERM;
			if (!verf_ok)
				return NFS4ERR_NOT_SAME;
			c = conf; /* case 6: an update of the confirmed record */
		} else if (!princ_ok) {
			/* case 3: another principal claims the owner */
			if (has_state(conf))
				return NFS4ERR_CLID_INUSE;
			client_free(st, ci);
			st->st.clients_destroyed++;
		} else if (verf_ok) {
			c = conf; /* case 2: a retry of what created the confirmed record */
		}
		/* else case 5: the client restarted; the confirmed record stays until
		 * CREATE_SESSION confirms the new one */
	} else if (update) {
		return NFS4ERR_NOENT; /* case 7 */
	}
	if (!c) {
		/* cases 1 and 4: a new owner, or one whose unconfirmed record is replaced */
		ui = owner_index(st, &a->ownerid, NFS4_CLIENT_UNCONFIRMED);
		if (ui != UINT32_MAX) {
			client_free(st, ui);
			st->st.clients_destroyed++;
		}
		s = new_client(st, who, a, now, &c);
		if (s != NFS4_OK)
			return s;
	}
	res->clientid = c->clientid;
	res->sequenceid = c->cs_seqid + 1;
	res->flags = EXCHGID4_FLAG_USE_NON_PNFS |
		     (c->state == NFS4_CLIENT_CONFIRMED ? EXCHGID4_FLAG_CONFIRMED_R : 0);
	res->sp_how = SP4_NONE;
	return NFS4_OK;
}

/* ---- CREATE_SESSION ---- */

static uint32_t fore_attrs(const struct nfs4_state *st, const struct nfs4_chan_attrs *in,
			   struct nfs4_chan_attrs *out)
{
	const struct nfs4_state_conf *c = &st->conf;

	if (in->maxrequestsize < MIN_REQ_SIZE || in->maxresponsesize < MIN_RESP_SIZE)
		return NFS4ERR_TOOSMALL;
	memset(out, 0, sizeof(*out));
	out->headerpadsize = 0;
	out->maxrequestsize = in->maxrequestsize < c->max_req ? in->maxrequestsize : c->max_req;
	out->maxresponsesize =
		in->maxresponsesize < c->max_resp ? in->maxresponsesize : c->max_resp;
	out->maxresponsesize_cached = in->maxresponsesize_cached < c->max_resp_cached
					      ? in->maxresponsesize_cached
					      : c->max_resp_cached;
	if (out->maxresponsesize_cached > out->maxresponsesize)
		out->maxresponsesize_cached = out->maxresponsesize;
	out->maxoperations = in->maxoperations < c->max_ops ? in->maxoperations : c->max_ops;
	if (out->maxoperations == 0)
		return NFS4ERR_TOOSMALL;
	out->maxrequests = in->maxrequests < c->slots ? in->maxrequests : c->slots;
	if (out->maxrequests == 0)
		out->maxrequests = 1;
	return NFS4_OK;
}

static void back_attrs(const struct nfs4_chan_attrs *in, struct nfs4_chan_attrs *out)
{
	/* the client's numbers, as Linux answers them (the server sends one call at a time on
	 * slot 0, within them), nothing cached: CB_SEQUENCE's cachethis is always false */
	*out = *in;
	out->headerpadsize = 0;
	out->maxresponsesize_cached = 0;
	out->has_rdma_ird = false;
	out->rdma_ird = 0;
}

static uint32_t session_new(struct nfs4_state *st, struct nfs4_client *c,
			    const struct nfs4_create_session_args *a,
			    const struct nfs4_chan_attrs *fore, bool back_ok,
			    struct nfs4_create_session_res *res)
{
	struct nfs4_session *s;
	uint32_t n = fore->maxrequests, cap = fore->maxresponsesize_cached;

	if (c->nsessions >= NFS4_SESSIONS_PER_CLIENT)
		return NFS4ERR_RESOURCE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NFS4ERR_SERVERFAULT;
	s->slots = calloc(n, sizeof(s->slots[0]));
	s->cache = malloc((size_t)n * cap);
	if (!s->slots || !s->cache) {
		free(s->slots);
		free(s->cache);
		free(s);
		return NFS4ERR_SERVERFAULT;
	}
	for (uint32_t i = 0; i < n; i++)
		s->slots[i].reply = s->cache + (size_t)i * cap;
	/* clientid, this run's epoch, a counter: unique in this run, unknown in the next */
	for (int i = 0; i < 8; i++)
		s->id[i] = (uint8_t)(c->clientid >> (56 - 8 * i));
	for (int i = 0; i < 4; i++) {
		s->id[8 + i] = (uint8_t)(st->conf.boot >> (24 - 8 * i));
		s->id[12 + i] = (uint8_t)(st->next_sess >> (24 - 8 * i));
	}
	st->next_sess++;
	s->clp = c;
	s->fore = *fore;
	back_attrs(&a->back, &s->back);
	/* no persistence, no RDMA-mode switch; the backchannel when the connection can carry
	 * it (RFC 8881 §18.36.3: the flag echoed says it is bound) */
	s->flags = back_ok ? a->flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0;
	s->cb_program = a->cb_program;
	s->state = NFS4_SESS_DEAD; /* so that the setter counts ACTIVE */
	sess_set_state(st, s, NFS4_SESS_ACTIVE);
	s->next = c->sessions;
	c->sessions = s;
	c->nsessions++;
	st->st.sessions++;
	st->st.sessions_created++;
	memcpy(res->sessionid, s->id, NFS4_SESSIONID_SIZE);
	res->flags = s->flags;
	res->fore = s->fore;
	res->back = s->back;
	return NFS4_OK;
}

uint32_t nfs4_create_session(struct nfs4_state *st, const struct nfs4_principal *who,
			     const struct nfs4_create_session_args *a,
			     struct nfs4_create_session_res *res, const struct nfs4_session *cur,
			     bool back_ok, uint64_t now)
{
	uint32_t i = client_index(st, a->clientid), s;
	struct nfs4_chan_attrs fore;
	struct nfs4_client *c;

	if (i == UINT32_MAX)
		return NFS4ERR_STALE_CLIENTID;
	c = st->clients[i];
	if (expired(st, c, now)) {
		client_free(st, i);
		st->st.clients_expired++;
		return NFS4ERR_STALE_CLIENTID;
	}
	if (c->state == NFS4_CLIENT_CONFIRMED) {
		if (a->sequence == c->cs_seqid) {
			/* a retry: the answer it had (RFC 8881 §18.36.4, the CREATE_SESSION slot) */
			st->st.replays++;
			*res = c->cs_res;
			return c->cs_status;
		}
		if (a->sequence != c->cs_seqid + 1)
			return NFS4ERR_SEQ_MISORDERED;
	} else {
		if (!same_princ(&c->princ, who))
			return NFS4ERR_CLID_INUSE;
		/* nothing to replay before the first success: anything but the next is out of
		 * order */
		if (a->sequence != c->cs_seqid + 1)
			return NFS4ERR_SEQ_MISORDERED;
	}
	if (a->flags & ~(CREATE_SESSION4_FLAG_PERSIST | CREATE_SESSION4_FLAG_CONN_BACK_CHAN |
			 CREATE_SESSION4_FLAG_CONN_RDMA))
		return NFS4ERR_INVAL;
	s = fore_attrs(st, &a->fore, &fore);
	/* no backchannel is granted, but one that could carry no call is the client's error
	 * all the same (RFC 8881 §18.36.3, as Linux's nfsd checks it) */
	if (s == NFS4_OK && (a->back.maxrequestsize < MIN_REQ_SIZE ||
			     a->back.maxresponsesize < MIN_RESP_SIZE || !a->back.maxrequests))
		s = NFS4ERR_TOOSMALL;
	if (s != NFS4_OK)
		return s; /* not cached: the slot did not advance */
	if (c->state == NFS4_CLIENT_UNCONFIRMED) {
		/* confirming: the owner's earlier incarnation goes (§18.35.5 case 5) */
		struct nfs4_ref owner = {c->owner, c->ownerlen};
		uint32_t old = owner_index(st, &owner, NFS4_CLIENT_CONFIRMED);

		if (old != UINT32_MAX && cur && cur->clp == st->clients[old])
			return NFS4ERR_DELAY; /* it is running this compound */
		if (old != UINT32_MAX && client_busy(st->clients[old])) {
			/* a compound of it waits for its file work (knfsd: the client is in use) */
			st->st.destroy_busy++;
			return NFS4ERR_DELAY;
		}
		s = session_new(st, c, a, &fore, back_ok, res);
		if (s != NFS4_OK)
			return s;
		if (old != UINT32_MAX) {
			client_free(st, old);
			st->st.clients_destroyed++;
		}
		c->state = NFS4_CLIENT_CONFIRMED;
		st->st.clients_confirmed++;
	} else {
		s = session_new(st, c, a, &fore, back_ok, res);
		if (s != NFS4_OK)
			return s;
	}
	c->cs_seqid++;
	res->sequence = c->cs_seqid;
	c->cs_status = NFS4_OK;
	c->cs_res = *res;
	renew(st, c, now);
	return NFS4_OK;
}

/* ---- SEQUENCE ---- */

static struct nfs4_session *session_find(struct nfs4_state *st,
					 const uint8_t id[NFS4_SESSIONID_SIZE], uint32_t *ci)
{
	uint64_t clientid = 0;

	for (int i = 0; i < 8; i++)
		clientid = clientid << 8 | id[i];
	*ci = client_index(st, clientid);
	if (*ci == UINT32_MAX)
		return NULL;
	for (struct nfs4_session *s = st->clients[*ci]->sessions; s; s = s->next)
		if (memcmp(s->id, id, NFS4_SESSIONID_SIZE) == 0 && s->state == NFS4_SESS_ACTIVE)
			return s;
	return NULL;
}

struct nfs4_session *nfs4_session_find(struct nfs4_state *st, const uint8_t id[NFS4_SESSIONID_SIZE])
{
	uint32_t ci;

	return session_find(st, id, &ci);
}

struct seq_ctx {
	struct nfs4_state *st;
	const struct nfs4_sequence_args *a;
	uint32_t numops, req_len;
	uint64_t req_hash, now;
	uint32_t ci;
	struct nfs4_seq_outcome *o;
};

static enum nfs4_seq_state seq_start(struct seq_ctx *c)
{
	c->o->sess = session_find(c->st, c->a->sessionid, &c->ci);
	return c->o->sess ? NFS4_SEQ_CHECK_LEASE : NFS4_SEQ_ERR_BADSESSION;
}

static enum nfs4_seq_state seq_check_lease(struct seq_ctx *c)
{
	if (expired(c->st, c->o->sess->clp, c->now)) {
		client_free(c->st, c->ci);
		c->st->st.clients_expired++;
		c->o->sess = NULL;
		return NFS4_SEQ_ERR_BADSESSION;
	}
	renew(c->st, c->o->sess->clp, c->now); /* RFC 8881 §8.3: SEQUENCE renews the lease */
	return NFS4_SEQ_CHECK_SLOT;
}

static enum nfs4_seq_state seq_check_slot(struct seq_ctx *c)
{
	if (c->a->slotid >= c->o->sess->fore.maxrequests)
		return NFS4_SEQ_ERR_BADSLOT;
	c->o->slot = &c->o->sess->slots[c->a->slotid];
	return NFS4_SEQ_CHECK_SEQID;
}

static enum nfs4_seq_state seq_check_seqid(struct seq_ctx *c)
{
	const struct nfs4_slot *sl = c->o->slot;

	if (sl->state == NFS4_SLOT_IN_PROGRESS)
		return NFS4_SEQ_ERR_DELAY;
	if (c->a->sequenceid == sl->seqid + 1)
		return NFS4_SEQ_CHECK_LIMITS;
	if (sl->state == NFS4_SLOT_FRESH || c->a->sequenceid != sl->seqid)
		return NFS4_SEQ_ERR_MISORDERED;
	if (sl->req_hash != c->req_hash)
		return NFS4_SEQ_ERR_FALSE_RETRY;
	return sl->state == NFS4_SLOT_CACHED ? NFS4_SEQ_REPLAY : NFS4_SEQ_ERR_RETRY_UNCACHED;
}

static enum nfs4_seq_state seq_check_limits(struct seq_ctx *c)
{
	if (c->numops > c->o->sess->fore.maxoperations)
		return NFS4_SEQ_ERR_TOO_MANY_OPS;
	if (c->req_len > c->o->sess->fore.maxrequestsize)
		return NFS4_SEQ_ERR_REQ_TOO_BIG;
	return NFS4_SEQ_NEW;
}

static const uint32_t seq_status[NFS4_SEQ_NUM_STATES] = {
	[NFS4_SEQ_NEW] = NFS4_OK,
	[NFS4_SEQ_REPLAY] = NFS4_OK,
	[NFS4_SEQ_ERR_DELAY] = NFS4ERR_DELAY,
	[NFS4_SEQ_ERR_BADSESSION] = NFS4ERR_BADSESSION,
	[NFS4_SEQ_ERR_BADSLOT] = NFS4ERR_BADSLOT,
	[NFS4_SEQ_ERR_MISORDERED] = NFS4ERR_SEQ_MISORDERED,
	[NFS4_SEQ_ERR_FALSE_RETRY] = NFS4ERR_SEQ_FALSE_RETRY,
	[NFS4_SEQ_ERR_RETRY_UNCACHED] = NFS4ERR_RETRY_UNCACHED_REP,
	[NFS4_SEQ_ERR_TOO_MANY_OPS] = NFS4ERR_TOO_MANY_OPS,
	[NFS4_SEQ_ERR_REQ_TOO_BIG] = NFS4ERR_REQ_TOO_BIG,
};

void nfs4_sequence(struct nfs4_state *st, const struct nfs4_sequence_args *a, uint32_t numops,
		   uint32_t req_len, uint64_t req_hash, uint64_t now, struct nfs4_sequence_res *res,
		   struct nfs4_seq_outcome *out)
{
	struct seq_ctx c = {st, a, numops, req_len, req_hash, now, 0, out};
	enum nfs4_seq_state prev;

	memset(out, 0, sizeof(*out));
	out->state = NFS4_SEQ_NUM_STATES; /* so that the setter counts START */
	seq_set_state(st, out, NFS4_SEQ_START);
	do {
		enum nfs4_seq_state next = out->state;

		prev = out->state;
		switch (out->state) {
		case NFS4_SEQ_START:
			next = seq_start(&c);
			break;
		case NFS4_SEQ_CHECK_LEASE:
			next = seq_check_lease(&c);
			break;
		case NFS4_SEQ_CHECK_SLOT:
			next = seq_check_slot(&c);
			break;
		case NFS4_SEQ_CHECK_SEQID:
			next = seq_check_seqid(&c);
			break;
		case NFS4_SEQ_CHECK_LIMITS:
			next = seq_check_limits(&c);
			break;
		default: /* NEW, REPLAY and the errors are answers */
			break;
		}
		seq_set_state(st, out, next);
	} while (out->state != prev);
	out->status = seq_status[out->state];
	if (out->state == NFS4_SEQ_REPLAY)
		st->st.replays++;
	if (out->state != NFS4_SEQ_NEW)
		return;
	/* the slot now holds this request until nfs4_sequence_done keeps its reply */
	out->slot->seqid = a->sequenceid;
	out->slot->req_hash = req_hash;
	out->slot->state = NFS4_SLOT_UNCACHED;
	out->slot->len = 0;
	memcpy(res->sessionid, a->sessionid, NFS4_SESSIONID_SIZE);
	res->sequenceid = a->sequenceid;
	res->slotid = a->slotid;
	res->highest_slotid = out->sess->fore.maxrequests - 1;
	res->target_highest_slotid = out->sess->fore.maxrequests - 1;
	res->status_flags = 0;
}

void nfs4_sequence_done(struct nfs4_state *st, struct nfs4_session *sess, struct nfs4_slot *slot,
			const uint8_t *reply, uint32_t len, bool keep)
{
	if (sess->state == NFS4_SESS_DESTROYING) {
		session_unlink(sess);
		session_free(st, sess);
		return;
	}
	if (keep && len <= sess->fore.maxresponsesize_cached) {
		memcpy(slot->reply, reply, len);
		slot->len = len;
		slot->state = NFS4_SLOT_CACHED;
		st->st.cached++;
	} else {
		slot->state = NFS4_SLOT_UNCACHED;
		st->st.uncached++;
	}
}

/* ---- DESTROY_SESSION, DESTROY_CLIENTID, BIND_CONN_TO_SESSION, RECLAIM_COMPLETE ---- */

uint32_t nfs4_destroy_session(struct nfs4_state *st, const uint8_t id[NFS4_SESSIONID_SIZE],
			      struct nfs4_session *cur, const struct nfs4_slot *own, bool last)
{
	uint32_t ci;
	struct nfs4_session *s = session_find(st, id, &ci);

	if (!s)
		return NFS4ERR_BADSESSION;
	/* a compound of it still waits for its file work: DELAY until it ended, as knfsd answers
	 * for a session in use (RFC 8881 §18.37.3 leaves it to the server) */
	if (session_busy(s, s == cur ? own : NULL)) {
		st->st.destroy_busy++;
		return NFS4ERR_DELAY;
	}
	if (s == cur) {
		/* RFC 8881 §18.37.3: destroying the compound's own session must end it */
		if (!last)
			return NFS4ERR_NOT_ONLY_OP;
		sess_set_state(st, s, NFS4_SESS_DESTROYING);
		return NFS4_OK;
	}
	session_unlink(s);
	session_free(st, s);
	return NFS4_OK;
}

uint32_t nfs4_destroy_clientid(struct nfs4_state *st, uint64_t clientid)
{
	uint32_t i = client_index(st, clientid);

	if (i == UINT32_MAX)
		return NFS4ERR_STALE_CLIENTID;
	if (has_state(st->clients[i]))
		return NFS4ERR_CLIENTID_BUSY;
	client_free(st, i);
	st->st.clients_destroyed++;
	return NFS4_OK;
}

uint32_t nfs4_bind_conn(struct nfs4_state *st, const struct nfs4_bind_conn_args *a,
			struct nfs4_bind_conn_res *res, bool back_ok, bool *bind_back)
{
	uint32_t ci;
	struct nfs4_session *s = session_find(st, a->sessionid, &ci);

	*bind_back = false;
	if (!s)
		return NFS4ERR_BADSESSION;
	/* every connection serves the fore channel of any session (nothing is bound to one);
	 * RFC 8881 §18.34.3: BACK binds the back channel alone, FORE_OR_BOTH and BACK_OR_BOTH
	 * both when the server can, and a connection that carries no backward call binds the
	 * fore channel only (BACK alone then cannot be done) */
	switch (a->dir) {
	case CDFC4_FORE:
		res->dir = CDFS4_FORE;
		break;
	case CDFC4_BACK:
		if (!back_ok)
			return NFS4ERR_INVAL;
		res->dir = CDFS4_BACK;
		break;
	default: /* FORE_OR_BOTH, BACK_OR_BOTH (the decoder admits no other) */
		res->dir = back_ok ? CDFS4_BOTH : CDFS4_FORE;
		break;
	}
	*bind_back = res->dir != CDFS4_FORE;
	memcpy(res->sessionid, a->sessionid, NFS4_SESSIONID_SIZE);
	res->rdma_mode = false;
	return NFS4_OK;
}

uint32_t nfs4_reclaim_complete(struct nfs4_state *st, struct nfs4_session *cur, bool one_fs)
{
	(void)st;
	if (one_fs)
		return NFS4_OK; /* per file system: nothing to reclaim, nothing to track */
	if (cur->clp->reclaim_complete)
		return NFS4ERR_COMPLETE_ALREADY;
	cur->clp->reclaim_complete = true;
	return NFS4_OK;
}
