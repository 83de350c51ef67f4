/* SPDX-License-Identifier: BSD-3-Clause */
/* orpc_testprog.c - the test programs of orpc_testprog.h, written as data. */
#include <stdlib.h>
#include <string.h>

#include "orpc_testprog.h"

bool_t orpc_test_xdr_blob(XDR *x, struct orpc_test_blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, ORPC_TEST_ECHO_MAX);
}

bool_t orpc_test_xdr_who(XDR *x, struct orpc_test_who *w)
{
	return xdr_u_int(x, &w->flavor) && xdr_u_int(x, &w->uid) && xdr_u_int(x, &w->gid) &&
	       xdr_u_int(x, &w->ngids);
}

uint64_t orpc_test_last_bc_id;

static enum accept_stat t_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	orpc_test_last_bc_id = r->peer->bc_id;
	return SUCCESS;
}

/* the results point into the arguments, which live until the reply is encoded */
static enum accept_stat t_echo(struct orpc_req *r, void *a, void *res)
{
	*(struct orpc_test_blob *)res = *(struct orpc_test_blob *)a;
	r->ddp_len = ((struct orpc_test_blob *)a)->len; /* the echoed bytes may go by write chunk */
	return SUCCESS;
}

static enum accept_stat t_whoami(struct orpc_req *r, void *a, void *res)
{
	struct orpc_test_who *w = res;

	(void)a;
	w->flavor = r->call.cred_flavor;
	if (r->call.cred_flavor == AUTH_SYS) {
		w->uid = r->call.sys.uid;
		w->gid = r->call.sys.gid;
		w->ngids = r->call.sys.ngids;
	}
	return SUCCESS;
}

static enum accept_stat t_fail(struct orpc_req *r, void *a, void *res)
{
	(void)r, (void)a, (void)res;
	return SYSTEM_ERR;
}

/* FILL: len bytes of (i * 7 + 3) mod 251, from a buffer made once */
static enum accept_stat t_fill(struct orpc_req *r, void *a, void *res)
{
	static char *pattern;
	struct orpc_test_blob *b = res;
	u_int len = *(u_int *)a;

	if (len > ORPC_TEST_ECHO_MAX)
		return GARBAGE_ARGS;
	if (!pattern) {
		pattern = malloc(ORPC_TEST_ECHO_MAX);
		if (!pattern)
			return SYSTEM_ERR;
		for (u_int i = 0; i < ORPC_TEST_ECHO_MAX; i++)
			pattern[i] = (char)((i * 7u + 3u) % 251u);
	}
	b->len = len;
	b->data = pattern;
	r->ddp_len = len;
	return SUCCESS;
}

/* PLACE's results: FILL's blob, whose bytes the encoder leaves out when the handler put them
 * in the transport's sink (the length word ends the results, as NFS READ's do) */
struct place_res {
	struct orpc_test_blob b;
	bool placed;
};

static bool_t xdr_place_res(XDR *x, struct place_res *p)
{
	if (x->x_op == XDR_ENCODE && p->placed)
		return xdr_u_int(x, &p->b.len);
	return orpc_test_xdr_blob(x, &p->b);
}

static enum accept_stat t_place(struct orpc_req *r, void *a, void *res)
{
	struct place_res *p = res;
	u_int len = *(u_int *)a;
	enum accept_stat st = t_fill(r, a, &p->b);

	if (st != SUCCESS || !r->peer->ddp_sink || len > r->peer->ddp_sink_len)
		return st;
	memcpy(r->peer->ddp_sink, p->b.data, len);
	p->b.data = (char *)r->peer->ddp_sink;
	p->placed = true;
	r->ddp_placed = true;
	return SUCCESS;
}

/* LATER: ECHO, deferred: the call waits in a queue until orpc_test_later_run() ends it, as
 * a file-system call would wait for a helper thread. It echoes at once when the transport
 * cannot keep the call (a UDP server with every slot taken). */
#define LATER_MAX 64
static struct orpc_pending *later[LATER_MAX];
static uint32_t nlater;

static enum accept_stat t_later(struct orpc_req *r, void *a, void *res)
{
	struct orpc_pending *p = nlater < LATER_MAX ? orpc_svc_defer(r, a, res) : NULL;

	if (!p)
		return t_echo(r, a, res);
	later[nlater++] = p;
	return ORPC_DEFER;
}

uint32_t orpc_test_later_waiting(void)
{
	return nlater;
}

void orpc_test_later_forget(void)
{
	nlater = 0;
}

uint32_t orpc_test_later_run(void)
{
	uint32_t n = nlater;

	/* in arrival order; each done may dispatch more (a transport's stash), which queues more */
	for (uint32_t i = 0; i < n; i++) {
		struct orpc_pending *p = later[i];

		t_echo(orpc_pending_req(p), orpc_pending_args(p), orpc_pending_res(p));
		later[i] = NULL;
		orpc_pending_done(p, SUCCESS);
	}
	memmove(later, later + n, (nlater - n) * sizeof(later[0]));
	nlater -= n;
	return n;
}

/* BUMP: adds its argument to a counter and answers the new value: not idempotent, so it is
 * in the duplicate request cache (drc_procs), and a replay must not run it again. */
static u_int bump_counter;

static enum accept_stat t_bump(struct orpc_req *r, void *a, void *res)
{
	(void)r;
	bump_counter += *(u_int *)a;
	*(u_int *)res = bump_counter;
	return SUCCESS;
}

u_int orpc_test_bump_value(void)
{
	return bump_counter;
}

static enum auth_stat sys_check(struct orpc_req *r)
{
	return r->call.sys.uid == 666 ? AUTH_REJECTEDCRED : AUTH_OK;
}

#define BLOB sizeof(struct orpc_test_blob)
#define WHO sizeof(struct orpc_test_who)
static const struct orpc_proc test_procs[] = {
	{"NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, t_null, false},
	{"ECHO", (xdrproc_t)orpc_test_xdr_blob, BLOB, (xdrproc_t)orpc_test_xdr_blob, BLOB, t_echo,
	 true},
	{"WHOAMI", (xdrproc_t)xdr_void, 0, (xdrproc_t)orpc_test_xdr_who, WHO, t_whoami, false},
	{"FAIL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, t_fail, false},
	{"UNSERVED", NULL, 0, NULL, 0, NULL, false},
	{"FILL", (xdrproc_t)xdr_u_int, sizeof(u_int), (xdrproc_t)orpc_test_xdr_blob, BLOB, t_fill,
	 true},
	{"LATER", (xdrproc_t)orpc_test_xdr_blob, BLOB, (xdrproc_t)orpc_test_xdr_blob, BLOB, t_later,
	 true},
	{"BUMP", (xdrproc_t)xdr_u_int, sizeof(u_int), (xdrproc_t)xdr_u_int, sizeof(u_int), t_bump,
	 false},
	{"PLACE", (xdrproc_t)xdr_u_int, sizeof(u_int), (xdrproc_t)xdr_place_res,
	 sizeof(struct place_res), t_place, true},
};

static const struct orpc_version test_versions[] = {
	{1, sizeof(test_procs) / sizeof(test_procs[0]), test_procs},
	{2, sizeof(test_procs) / sizeof(test_procs[0]), test_procs},
};

const struct orpc_program orpc_test_program = {
	.prog = ORPC_TEST_PROG,
	.name = "droce-test",
	.nvers = 2,
	.vers = test_versions,
	.drc_procs = 1u << ORPC_TEST_LATER | 1u << ORPC_TEST_BUMP,
};

static const struct orpc_proc sys_procs[] = {
	{"NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, t_null, false},
	{"WHOAMI", (xdrproc_t)xdr_void, 0, (xdrproc_t)orpc_test_xdr_who, WHO, t_whoami, false},
};

static const struct orpc_version sys_versions[] = {{1, 2, sys_procs}};

const struct orpc_program orpc_test_sys_program = {
	.prog = ORPC_TEST_SYS_PROG,
	.name = "droce-test-sys",
	.nvers = 1,
	.vers = sys_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_SYS),
	.auth_check = sys_check,
};
