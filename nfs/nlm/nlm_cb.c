/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nlm_cb.c - the calls droce-nfsd makes to its clients: GRANTED to a client's lockd when a
 * blocked lock is granted (XNFS §10.4.5: the server calls back the procedure of the lock
 * client), *_RES answers to *_MSG requests, and SM_NOTIFY to a client's statd after a restart
 * (XNFS §11.3). The client's port comes from its portmapper (PMAP v2 GETPORT, RFC 1833 §3.2,
 * asking for TCP), and the call goes over TCP with rpc/clnt. The arguments are encoded when
 * the call is queued, so nothing refers back to the request that caused it.
 *
 * Each call is a state machine (nlm_svc.h: NLM_CB_STATE_LIST) driven by nlm_server_poll() from
 * the owner lcore's loop: nothing here blocks (rpc/clnt connects and sends without waiting).
 * GETPORT and the call each have cb_timeout_ms and one retransmission.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "nfs_pool.h"
#include "nlm_svc.h"

#define PMAP_PROG 100000u
#define PMAP_VERS 2u
#define PMAP_PROC_GETPORT 3u
#define PMAP_PORT 111u
#define IPPROTO_TCP_NUM 6u

#define NLM_CB_STATE_NAME_(n) #n,
static const char *const state_names[NLM_CB_NUM_STATES] = {NLM_CB_STATE_LIST(NLM_CB_STATE_NAME_)};

const char *nlm_cb_state_name(enum nlm_cb_state s)
{
	return s < NLM_CB_NUM_STATES ? state_names[s] : "unknown";
}

/* every transition goes through here: counted per state */
static void set_state(struct nlm_server *s, struct nlm_cb *cb, enum nlm_cb_state st)
{
	cb->state = st;
	s->st.cb_state[st]++;
}

/* arguments already in XDR (a multiple of 4 bytes) */
struct raw {
	const uint8_t *b;
	uint32_t len;
};

static bool_t x_raw(XDR *x, struct raw *r)
{
	return xdr_opaque(x, (char *)(uintptr_t)r->b, r->len);
}

/* struct pmap (RFC 1833 §3.1): prog, vers, prot, port */
static bool_t x_pmap(XDR *x, uint32_t *v)
{
	for (int i = 0; i < 4; i++)
		if (!xdr_uint32_t(x, &v[i]))
			return FALSE;
	return TRUE;
}

struct nlm_cb *nlm_cb_queue(struct nlm_server *s, enum nlm_cb_kind kind, const char *ip,
			    uint32_t prog, uint32_t vers, uint32_t proc, xdrproc_t xargs,
			    const void *args)
{
	struct nlm_cb *cb = NULL;
	XDR x;

	for (uint32_t i = 0; i < NLM_CB_MAX && !cb; i++)
		if (s->cbs[i].state == NLM_CB_FREE)
			cb = &s->cbs[i];
	if (!cb || strlen(ip) >= sizeof(cb->ip))
		return NULL;
	memset(cb, 0, sizeof(*cb));
	xdrmem_create(&x, (char *)cb->args, sizeof(cb->args), XDR_ENCODE);
	if (!xargs(&x, (void *)(uintptr_t)args, 0)) {
		xdr_destroy(&x);
		return NULL;
	}
	cb->args_len = xdr_getpos(&x);
	xdr_destroy(&x);
	cb->kind = kind;
	strcpy(cb->ip, ip);
	cb->prog = prog;
	cb->vers = vers;
	cb->proc = proc;
	set_state(s, cb, NLM_CB_PORT_START);
	return cb;
}

static void on_reply(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		     uint32_t len)
{
	struct nlm_cb *cb = ctx;
	XDR x;

	cb->answered = true;
	cb->err = err;
	if (err)
		return;
	cb->reply_stat = h->denied ? (uint32_t)-1 : h->stat;
	if (h->denied || h->stat != SUCCESS)
		return;
	xdrmem_create(&x, (char *)(uintptr_t)res, len, XDR_DECODE);
	if (cb->state == NLM_CB_PORT_WAIT) {
		if (!xdr_uint32_t(&x, &cb->result))
			cb->err = -EBADMSG;
	} else if (cb->kind == NLM_CB_GRANTED) {
		struct nlm4_res r;

		if (xdr_nlm4_res(&x, &r))
			cb->result = r.stat;
		else
			cb->err = -EBADMSG;
	}
	xdr_destroy(&x);
}

static void clnt_end(struct nlm_cb *cb)
{
	if (cb->clnt_up)
		orpc_clnt_fini(&cb->clnt);
	cb->clnt_up = false;
}

static enum nlm_cb_state st_port_start(struct nlm_server *s, struct nlm_cb *cb)
{
	uint32_t pm[4] = {cb->prog, cb->vers, IPPROTO_TCP_NUM, 0};

	if (orpc_clnt_init(&cb->clnt, cb->ip, PMAP_PORT, s->conf.cb_timeout_ms, 1) != 0)
		return NLM_CB_ERR_NOPORT;
	cb->clnt_up = true;
	cb->answered = false;
	if (orpc_clnt_call(&cb->clnt, PMAP_PROG, PMAP_VERS, PMAP_PROC_GETPORT, NULL,
			   (xdrproc_t)x_pmap, pm, on_reply, cb) != 0)
		return NLM_CB_ERR_NOPORT;
	return NLM_CB_PORT_WAIT;
}

static enum nlm_cb_state st_port_wait(struct nlm_cb *cb)
{
	orpc_clnt_poll(&cb->clnt);
	if (!cb->answered)
		return NLM_CB_PORT_WAIT;
	clnt_end(cb);
	if (cb->err || cb->reply_stat != SUCCESS || cb->result == 0 || cb->result > 65535)
		return NLM_CB_ERR_NOPORT;
	cb->port = (uint16_t)cb->result;
	return NLM_CB_CALL_START;
}

static enum nlm_cb_state st_call_start(struct nlm_server *s, struct nlm_cb *cb)
{
	struct raw a = {cb->args, cb->args_len};

	if (orpc_clnt_init(&cb->clnt, cb->ip, cb->port, s->conf.cb_timeout_ms, 1) != 0)
		return NLM_CB_ERR_CALL;
	cb->clnt_up = true;
	cb->answered = false;
	cb->result = 0;
	if (orpc_clnt_call(&cb->clnt, cb->prog, cb->vers, cb->proc, NULL, (xdrproc_t)x_raw, &a,
			   on_reply, cb) != 0)
		return NLM_CB_ERR_CALL;
	return NLM_CB_CALL_WAIT;
}

static enum nlm_cb_state st_call_wait(struct nlm_cb *cb)
{
	orpc_clnt_poll(&cb->clnt);
	if (!cb->answered)
		return NLM_CB_CALL_WAIT;
	clnt_end(cb);
	if (cb->err || cb->reply_stat != SUCCESS)
		return NLM_CB_ERR_CALL;
	return NLM_CB_DONE;
}

/* the client refused a GRANTED (its process gave up waiting): the lock is taken back */
static void take_back(struct nlm_server *s, const struct nlm_cb *cb)
{
	struct nfs_lock_req q = {.op = NFS_LOCK_OP_UNLOCK};
	struct nfs_lock_res res;

	q.file = cb->file;
	q.owner.host = cb->host;
	q.owner.host_len = cb->host_len;
	q.owner.svid = cb->svid;
	q.owner.oh = cb->oh;
	q.owner.oh_len = cb->oh_len;
	q.off = cb->off;
	q.len = cb->len;
	nfs_lock_process(&s->mgr, &q, &res);
	s->st.granted_refused++;
}

static enum nlm_cb_state st_done(struct nlm_server *s, struct nlm_cb *cb)
{
	if (cb->kind == NLM_CB_GRANTED && cb->result != NLM4_GRANTED)
		take_back(s, cb);
	else if (cb->kind == NLM_CB_NOTIFY)
		nsm_notified(s, cb->ip);
	return NLM_CB_FREE;
}

/* A GRANTED that was not delivered leaves the lock granted (the client's retry of its LOCK
 * gets it); an SM_NOTIFY that was not delivered leaves the host on the list (next start). */
static enum nlm_cb_state st_err(struct nlm_cb *cb)
{
	clnt_end(cb);
	return NLM_CB_FREE;
}

static void step(struct nlm_server *s, struct nlm_cb *cb)
{
	enum nlm_cb_state prev, next;

	do {
		prev = cb->state;
		switch (cb->state) {
		case NLM_CB_PORT_START:
			next = st_port_start(s, cb);
			break;
		case NLM_CB_PORT_WAIT:
			next = st_port_wait(cb);
			break;
		case NLM_CB_CALL_START:
			next = st_call_start(s, cb);
			break;
		case NLM_CB_CALL_WAIT:
			next = st_call_wait(cb);
			break;
		case NLM_CB_DONE:
			next = st_done(s, cb);
			break;
		case NLM_CB_ERR_NOPORT:
		case NLM_CB_ERR_CALL:
			next = st_err(cb);
			break;
		case NLM_CB_FREE:
		default:
			next = NLM_CB_FREE;
			break;
		}
		if (next != prev)
			set_state(s, cb, next);
	} while (cb->state != prev);
}

uint32_t nlm_server_poll(struct nlm_server *s)
{
	/* the helpers' jobs first: a call answered there may queue a callback or change the list */
	uint32_t active = nlm_jobs_poll(s);

	for (uint32_t i = 0; i < NLM_CB_MAX; i++) {
		if (s->cbs[i].state == NLM_CB_FREE)
			continue;
		step(s, &s->cbs[i]);
		active += s->cbs[i].state != NLM_CB_FREE;
	}
	active += nsm_poll(s);
	return active + (s->pool ? nfs_pool_inflight(s->pool) : 0);
}
