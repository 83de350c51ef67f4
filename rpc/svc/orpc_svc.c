/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_svc.c - ONC RPC dispatch (RFC 5531 §9, §10). See orpc_svc.h for the order of checks.
 * Every outcome is a row of the outcome table below: what the reply says and which counter
 * goes up. A reader sees every error the server can answer in that table.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "orpc_svc.h"

/* The reply of each outcome (RFC 5531 §9: accept_stat, reject_stat, auth_stat). */
static const struct {
	const char *name;
	bool send;   /* anything to answer at all */
	bool denied; /* MSG_DENIED, else MSG_ACCEPTED */
	uint32_t stat;
	uint32_t why;
} outcomes[ORPC_OUT_NUM] = {
	[ORPC_OUT_SUCCESS] = {"SUCCESS", true, false, SUCCESS, 0},
	[ORPC_OUT_DROP] = {"DROP", false, false, 0, 0},
	[ORPC_OUT_RPC_MISMATCH] = {"RPC_MISMATCH", true, true, RPC_MISMATCH, 0},
	[ORPC_OUT_AUTH_BADCRED] = {"AUTH_BADCRED", true, true, AUTH_ERROR, AUTH_BADCRED},
	[ORPC_OUT_AUTH_BADVERF] = {"AUTH_BADVERF", true, true, AUTH_ERROR, AUTH_BADVERF},
	[ORPC_OUT_AUTH_TOOWEAK] = {"AUTH_TOOWEAK", true, true, AUTH_ERROR, AUTH_TOOWEAK},
	[ORPC_OUT_AUTH_REJECTEDCRED] = {"AUTH_REJECTEDCRED", true, true, AUTH_ERROR,
					AUTH_REJECTEDCRED},
	[ORPC_OUT_AUTH_OTHER] = {"AUTH_OTHER", true, true, AUTH_ERROR, 0 /* the check's */},
	[ORPC_OUT_PROG_UNAVAIL] = {"PROG_UNAVAIL", true, false, PROG_UNAVAIL, 0},
	[ORPC_OUT_PROG_MISMATCH] = {"PROG_MISMATCH", true, false, PROG_MISMATCH, 0},
	[ORPC_OUT_PROC_UNAVAIL] = {"PROC_UNAVAIL", true, false, PROC_UNAVAIL, 0},
	[ORPC_OUT_GARBAGE_ARGS] = {"GARBAGE_ARGS", true, false, GARBAGE_ARGS, 0},
	[ORPC_OUT_SYSTEM_ERR] = {"SYSTEM_ERR", true, false, SYSTEM_ERR, 0},
	[ORPC_OUT_DEFERRED] = {"DEFERRED", false, false, 0, 0},
	[ORPC_OUT_DRC_REPLAY] = {"DRC_REPLAY", true, false, SUCCESS, 0 /* the cached reply */},
	[ORPC_OUT_DRC_IN_PROGRESS] = {"DRC_IN_PROGRESS", false, false, 0, 0},
};

/* ---- the duplicate request cache (orpc_svc.h) ---- */

enum drc_state { DRC_FREE = 0, DRC_RUNNING, DRC_DONE };

struct orpc_drc_entry {
	enum drc_state state;
	int family;
	uint8_t addr[16];
	uint32_t xid, prog, vers, proc, csum, arglen;
	uint64_t used; /* LRU clock */
	uint32_t len;
	uint8_t reply[ORPC_DRC_MAX_REPLY];
};

struct orpc_drc {
	uint64_t clock;
	struct orpc_drc_stats st;
	uint32_t nsets; /**< sets of ORPC_DRC_WAYS entries */
	struct orpc_drc_entry e[];
};

int orpc_svc_drc_enable_n(struct orpc_svc *s, uint32_t entries)
{
	if (entries < ORPC_DRC_MIN || entries > ORPC_DRC_MAX || entries % ORPC_DRC_WAYS)
		return -EINVAL;
	if (s->drc && s->drc->nsets * ORPC_DRC_WAYS == entries)
		return 0;
	free(s->drc);
	s->drc = calloc(1, sizeof(*s->drc) + (size_t)entries * sizeof(s->drc->e[0]));
	if (!s->drc)
		return -ENOMEM;
	s->drc->nsets = entries / ORPC_DRC_WAYS;
	return 0;
}

int orpc_svc_drc_enable(struct orpc_svc *s)
{
	return s->drc ? 0 : orpc_svc_drc_enable_n(s, ORPC_DRC_ENTRIES);
}

uint32_t orpc_svc_drc_entries(const struct orpc_svc *s)
{
	return s->drc ? s->drc->nsets * ORPC_DRC_WAYS : 0;
}

void orpc_svc_drc_disable(struct orpc_svc *s)
{
	free(s->drc);
	s->drc = NULL;
}

void orpc_svc_drc_stats(const struct orpc_svc *s, struct orpc_drc_stats *st)
{
	if (s->drc)
		*st = s->drc->st;
	else
		memset(st, 0, sizeof(*st));
}

/* FNV-1a over the first 256 bytes of the arguments (knfsd sums as many) */
static uint32_t drc_csum(const uint8_t *a, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < len && i < 256; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

/* The caller's address without its port: 0 when the transport gave none. */
static int drc_addr(const struct orpc_peer *p, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (p->addr.ss_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)&p->addr)->sin_addr, 4);
		return AF_INET;
	}
	if (p->addr.ss_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)&p->addr)->sin6_addr, 16);
		return AF_INET6;
	}
	return 0;
}

/* Look the call up: a matching entry (running or done), or a new running one in its set
 * (the least recently used entry that is not running), or NULL when the set is all running. */
static struct orpc_drc_entry *drc_lookup(struct orpc_drc *d, const struct orpc_req *r,
					 const uint8_t *args, uint32_t arglen, bool *found)
{
	struct orpc_drc_entry k = {.xid = r->call.xid,
				   .prog = r->call.prog,
				   .vers = r->call.vers,
				   .proc = r->call.proc,
				   .arglen = arglen};
	uint32_t set;
	struct orpc_drc_entry *victim = NULL, *e;

	*found = false;
	k.family = drc_addr(r->peer, k.addr);
	if (!k.family)
		return NULL;
	k.csum = drc_csum(args, arglen);
	set = ((k.xid ^ k.csum) * 2654435761u) % d->nsets;
	e = &d->e[set * ORPC_DRC_WAYS];
	for (uint32_t w = 0; w < ORPC_DRC_WAYS; w++, e++) {
		if (e->state != DRC_FREE && e->xid == k.xid && e->csum == k.csum &&
		    e->arglen == k.arglen && e->proc == k.proc && e->prog == k.prog &&
		    e->vers == k.vers && e->family == k.family && !memcmp(e->addr, k.addr, 16)) {
			*found = true;
			e->used = ++d->clock;
			return e;
		}
		if (e->state != DRC_RUNNING && (!victim || e->used < victim->used))
			victim = e;
	}
	if (!victim)
		return NULL;
	if (victim->state == DRC_DONE)
		d->st.evicted++;
	memcpy(victim, &k, offsetof(struct orpc_drc_entry, used));
	victim->state = DRC_RUNNING;
	victim->used = ++d->clock;
	victim->len = 0;
	d->st.inserted++;
	return victim;
}

/* The call ended: keep its reply (n bytes at out), or forget it when there is none. */
static void drc_settle(struct orpc_drc *d, struct orpc_drc_entry *e, const uint8_t *out, uint32_t n)
{
	if (!n || n > ORPC_DRC_MAX_REPLY) {
		if (n)
			d->st.too_big++;
		e->state = DRC_FREE;
		return;
	}
	memcpy(e->reply, out, n);
	e->len = n;
	e->state = DRC_DONE;
}

/* A call taken out of dispatch (orpc_svc_defer): its request, arguments and results. */
struct orpc_pending {
	struct orpc_req req;
	struct orpc_peer peer; /* a copy: the transport's may go with its connection */
	orpc_resume_t resume;
	void *resume_arg;
	enum accept_stat stat;
	_Alignas(16) uint8_t args[ORPC_MAX_ARGS];
	_Alignas(16) uint8_t res[ORPC_MAX_RES];
};

static const struct orpc_peer no_peer = {.xprt = ORPC_XPRT_NONE};

const char *orpc_outcome_name(enum orpc_outcome o)
{
	return o < ORPC_OUT_NUM ? outcomes[o].name : "unknown";
}

int orpc_svc_add(struct orpc_svc *s, const struct orpc_program *p)
{
	for (uint32_t i = 0; i < s->nprogs; i++)
		if (s->progs[i]->prog == p->prog)
			return -EEXIST;
	if (s->nprogs == ORPC_MAX_PROGRAMS)
		return -ENOSPC;
	s->progs[s->nprogs++] = p;
	return 0;
}

static const struct orpc_program *find_prog(const struct orpc_svc *s, uint32_t prog)
{
	for (uint32_t i = 0; i < s->nprogs; i++)
		if (s->progs[i]->prog == prog)
			return s->progs[i];
	return NULL;
}

/* The credential's flavor and body: AUTH_NONE and AUTH_SYS are served. RPCSEC_GSS and every
 * other flavor get AUTH_BADCRED, which is what Linux's svc_authenticate answers for a flavor
 * it has no handler for. */
static enum orpc_outcome check_cred(struct orpc_req *r)
{
	struct orpc_call *c = &r->call;

	switch (c->cred_flavor) {
	case AUTH_NONE:
		return ORPC_OUT_SUCCESS;
	case AUTH_SYS:
		if (orpc_authsys_decode(c) != AUTH_OK)
			return ORPC_OUT_AUTH_BADCRED;
		/* RFC 5531 App. A: the verifier of an AUTH_SYS call is AUTH_NONE */
		if (c->verf_flavor != AUTH_NONE || c->verf_len != 0)
			return ORPC_OUT_AUTH_BADVERF;
		return ORPC_OUT_SUCCESS;
	default:
		return ORPC_OUT_AUTH_BADCRED;
	}
}

/* program, version, procedure and the program's policy; sets r->prog and r->proc */
static enum orpc_outcome route(struct orpc_svc *s, struct orpc_req *r, uint32_t *low,
			       uint32_t *high, enum auth_stat *why)
{
	const struct orpc_version *v = NULL;
	const struct orpc_program *p;
	uint32_t flavors;

	p = find_prog(s, r->call.prog);
	if (!p)
		return ORPC_OUT_PROG_UNAVAIL;
	r->prog = p;
	*low = UINT32_MAX;
	*high = 0;
	for (uint32_t i = 0; i < p->nvers; i++) {
		if (p->vers[i].vers == r->call.vers)
			v = &p->vers[i];
		*low = p->vers[i].vers < *low ? p->vers[i].vers : *low;
		*high = p->vers[i].vers > *high ? p->vers[i].vers : *high;
	}
	if (!v)
		return ORPC_OUT_PROG_MISMATCH;
	if (r->call.proc >= v->nprocs || !v->procs[r->call.proc].fn)
		return ORPC_OUT_PROC_UNAVAIL;
	r->proc = &v->procs[r->call.proc];
	/* procedure 0 (NULL) answers any flavor: clients probe with it (RFC 5531 §12.1) */
	if (r->call.proc == 0)
		return ORPC_OUT_SUCCESS;
	flavors = p->flavors ? p->flavors : ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS);
	if (r->call.cred_flavor >= 32 || !(flavors & ORPC_FLAVOR_BIT(r->call.cred_flavor)))
		return ORPC_OUT_AUTH_TOOWEAK;
	if (p->auth_check) {
		*why = p->auth_check(r);
		if (*why == AUTH_REJECTEDCRED)
			return ORPC_OUT_AUTH_REJECTEDCRED;
		if (*why == AUTH_TOOWEAK)
			return ORPC_OUT_AUTH_TOOWEAK;
		if (*why != AUTH_OK)
			return ORPC_OUT_AUTH_OTHER;
	}
	return ORPC_OUT_SUCCESS;
}

static uint32_t encode_reply(struct orpc_req *r, enum orpc_outcome o, uint32_t low, uint32_t high,
			     enum auth_stat why, uint8_t *out, uint32_t cap)
{
	struct orpc_reply_hdr h = {
		.xid = r->call.xid,
		.denied = outcomes[o].denied,
		.stat = outcomes[o].stat,
		.low = low,
		.high = high,
		.why = o == ORPC_OUT_AUTH_OTHER ? (uint32_t)why : outcomes[o].why,
	};
	uint32_t n;
	XDR x;

	xdrmem_create(&x, (char *)out, cap, XDR_ENCODE);
	n = orpc_reply_encode(&x, &h) ? xdr_getpos(&x) : 0;
	xdr_destroy(&x);
	return n;
}

uint32_t orpc_svc_dispatch(struct orpc_svc *s, const uint8_t *msg, uint32_t len, void *conn,
			   uint8_t *out, uint32_t cap, enum orpc_outcome *outcome)
{
	return orpc_svc_dispatch_peer(s, msg, len, conn, NULL, out, cap, outcome);
}

uint32_t orpc_svc_dispatch_peer(struct orpc_svc *s, const uint8_t *msg, uint32_t len, void *conn,
				const struct orpc_peer *peer, uint8_t *out, uint32_t cap,
				enum orpc_outcome *outcome)
{
	struct orpc_req *r = &s->req;
	_Alignas(16) uint8_t args[ORPC_MAX_ARGS], res[ORPC_MAX_RES];
	enum auth_stat why = AUTH_OK;
	uint32_t low = 0, high = 0, n = 0;
	enum orpc_outcome o;
	bool args_live = false;
	XDR x;

	memset(r, 0, offsetof(struct orpc_req, call));
	r->svc = s;
	r->conn = conn;
	r->peer = peer ? peer : &no_peer;
	s->stats.calls++;
	switch (orpc_call_decode(msg, len, &r->call)) {
	case ORPC_CALL_OK:
		o = check_cred(r);
		if (o == ORPC_OUT_SUCCESS)
			o = route(s, r, &low, &high, &why);
		break;
	case ORPC_CALL_RPC_MISMATCH:
		o = ORPC_OUT_RPC_MISMATCH;
		low = high = ORPC_RPCVERS;
		break;
	case ORPC_CALL_BADCRED:
		o = ORPC_OUT_AUTH_BADCRED;
		break;
	case ORPC_CALL_BADVERF:
		o = ORPC_OUT_AUTH_BADVERF;
		break;
	default:
		o = ORPC_OUT_DROP;
		break;
	}
	if (o == ORPC_OUT_SUCCESS &&
	    (r->proc->args_size > sizeof(args) || r->proc->res_size > sizeof(res)))
		o = ORPC_OUT_SYSTEM_ERR;
	r->drc = NULL;
	if (o == ORPC_OUT_SUCCESS && s->drc && r->call.proc < 64 &&
	    (r->prog->drc_procs >> r->call.proc & 1)) {
		bool found;
		struct orpc_drc_entry *e = drc_lookup(s->drc, r, msg + r->call.args_off,
						      len - r->call.args_off, &found);

		if (found && e->state == DRC_RUNNING) {
			s->drc->st.in_progress_drops++;
			o = ORPC_OUT_DRC_IN_PROGRESS;
		} else if (found && e->len <= cap) {
			s->drc->st.replayed++;
			memcpy(out, e->reply, e->len);
			n = e->len;
			o = ORPC_OUT_DRC_REPLAY;
		} else if (found) {
			o = ORPC_OUT_SYSTEM_ERR; /* the reply buffer is smaller than the cached reply */
		} else {
			r->drc = e;
		}
	}
	if (o == ORPC_OUT_SUCCESS) {
		memset(args, 0, r->proc->args_size);
		memset(res, 0, r->proc->res_size);
		xdrmem_create(&x, (char *)(uintptr_t)msg + r->call.args_off, len - r->call.args_off,
			      XDR_DECODE);
		args_live = true;
		if (!r->proc->xdr_args(&x, args, 0))
			o = ORPC_OUT_GARBAGE_ARGS;
		xdr_destroy(&x);
	}
	if (o == ORPC_OUT_SUCCESS) {
		enum accept_stat st;

		s->deferred = NULL;
		r->user = NULL;
		st = r->proc->fn(r, args, res);
		if (st == ORPC_DEFER && s->deferred) {
			/* the pending call owns the arguments now: they are freed when it finishes */
			r->outcome = ORPC_OUT_DEFERRED;
			s->stats.outcome[ORPC_OUT_DEFERRED]++;
			if (outcome)
				*outcome = ORPC_OUT_DEFERRED;
			return 0;
		}
		if (st == GARBAGE_ARGS)
			o = ORPC_OUT_GARBAGE_ARGS;
		else if (st != SUCCESS)
			o = ORPC_OUT_SYSTEM_ERR;
	}
	if (o == ORPC_OUT_SUCCESS) {
		struct orpc_reply_hdr h = {.xid = r->call.xid, .stat = SUCCESS};

		xdrmem_create(&x, (char *)out, cap, XDR_ENCODE);
		if (orpc_reply_encode(&x, &h) && r->proc->xdr_res(&x, res, 0))
			n = xdr_getpos(&x);
		else
			o = ORPC_OUT_SYSTEM_ERR; /* the results do not fit the reply buffer */
		xdr_destroy(&x);
	}
	if (args_live)
		xdr_free(r->proc->xdr_args, (char *)args);
	if (o != ORPC_OUT_SUCCESS && o != ORPC_OUT_DRC_REPLAY && outcomes[o].send)
		n = encode_reply(r, o, low, high, why, out, cap);
	if (r->drc)
		drc_settle(s->drc, r->drc, out, n);
	r->drc = NULL;
	r->outcome = o;
	s->stats.outcome[o]++;
	if (outcome)
		*outcome = o;
	return n;
}

struct orpc_pending *orpc_svc_defer(struct orpc_req *r, void *args, void *res)
{
	struct orpc_pending *p;

	if (r->peer->xprt != ORPC_XPRT_TCP && r->peer->xprt != ORPC_XPRT_RDMA &&
	    !(r->peer->xprt == ORPC_XPRT_UDP && r->peer->defer_ok))
		return NULL; /* a UDP server without room, or a test harness, holds nothing */
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->req = *r;
	p->peer = *r->peer;
	p->req.peer = &p->peer;
	memcpy(p->args, args, r->proc->args_size);
	memcpy(p->res, res, r->proc->res_size);
	r->svc->deferred = p;
	return p;
}

struct orpc_req *orpc_pending_req(struct orpc_pending *p)
{
	return &p->req;
}

void *orpc_pending_args(struct orpc_pending *p)
{
	return p->args;
}

void *orpc_pending_res(struct orpc_pending *p)
{
	return p->res;
}

struct orpc_pending *orpc_svc_take_deferred(struct orpc_svc *s, orpc_resume_t resume, void *arg)
{
	struct orpc_pending *p = s->deferred;

	s->deferred = NULL;
	if (p) {
		p->resume = resume;
		p->resume_arg = arg;
	}
	return p;
}

void orpc_pending_done(struct orpc_pending *p, enum accept_stat stat)
{
	p->stat = stat;
	p->resume(p, p->resume_arg);
}

uint32_t orpc_svc_finish(struct orpc_svc *s, struct orpc_pending *p, uint8_t *out, uint32_t cap,
			 enum orpc_outcome *outcome)
{
	enum orpc_outcome o = ORPC_OUT_SUCCESS;
	uint8_t *keep = NULL;
	uint32_t n = 0;
	XDR x;

	if (!out && p->req.drc && s->drc) {
		/* the connection is gone, but the client will ask again: the reply is kept */
		keep = malloc(ORPC_DRC_MAX_REPLY);
		out = keep;
		cap = keep ? ORPC_DRC_MAX_REPLY : 0;
	}
	if (p->stat == GARBAGE_ARGS)
		o = ORPC_OUT_GARBAGE_ARGS;
	else if (p->stat != SUCCESS)
		o = ORPC_OUT_SYSTEM_ERR;
	if (out && o == ORPC_OUT_SUCCESS) {
		struct orpc_reply_hdr h = {.xid = p->req.call.xid, .stat = SUCCESS};

		xdrmem_create(&x, (char *)out, cap, XDR_ENCODE);
		if (orpc_reply_encode(&x, &h) && p->req.proc->xdr_res(&x, p->res, 0))
			n = xdr_getpos(&x);
		else
			o = ORPC_OUT_SYSTEM_ERR;
		xdr_destroy(&x);
	}
	xdr_free(p->req.proc->xdr_args, (char *)p->args);
	if (out && o != ORPC_OUT_SUCCESS)
		n = encode_reply(&p->req, o, 0, 0, AUTH_OK, out, cap);
	if (p->req.drc && s->drc)
		drc_settle(s->drc, p->req.drc, out, n);
	p->req.drc = NULL;
	free(keep);
	if (keep)
		n = 0;
	p->req.outcome = o;
	s->stats.outcome[o]++;
	/* what a transport reads after dispatch (proc, ddp_len) is where it would be */
	memcpy(&s->req, &p->req, sizeof(s->req));
	s->req.peer = &no_peer; /* the pending's copy goes with it */
	free(p);
	if (outcome)
		*outcome = o;
	return n;
}
