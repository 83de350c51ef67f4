/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nlm_xdr.c - NLM v4 (XNFS §14, program 100021 version 4) and NSM (XNFS §11, program
 * 100024 version 1) arguments and results through libtirpc's XDR primitives. See nlm_xdr.h
 * for the structs and limits.
 *
 * Where it sits: the NLM and NSM programs' rows (nfs/nlm/) name these routines;
 * orpc_svc_dispatch decodes arguments with them and encodes the results, and the lock
 * manager's callbacks (GRANTED to a client's lockd, SM_NOTIFY to its statd) encode their
 * arguments with the same routines.
 */
#include "nlm_xdr.h"
#include "nfs_xdr_prim.h"

#define NLM4_PROC_NAME_(n, v) [v] = #n,
static const char *const nlm_proc_names[NLM4_NPROCS] = {NLM4_PROC_LIST(NLM4_PROC_NAME_)};
#define NLM4_STAT_NAME_(n, v) [v] = "NLM4_" #n,
static const char *const nlm_stat_names[NLM4_NSTATS] = {NLM4_STAT_LIST(NLM4_STAT_NAME_)};
#define NSM_PROC_NAME_(n, v) [v] = "SM_" #n,
static const char *const nsm_proc_names[NSM_NPROCS] = {NSM_PROC_LIST(NSM_PROC_NAME_)};

const char *nlm4_proc_name(uint32_t proc)
{
	return proc < NLM4_NPROCS && nlm_proc_names[proc] ? nlm_proc_names[proc] : "unknown";
}

const char *nlm4_stat_name(uint32_t st)
{
	return st < NLM4_NSTATS ? nlm_stat_names[st] : "unknown";
}

const char *nsm_proc_name(uint32_t proc)
{
	return proc < NSM_NPROCS ? nsm_proc_names[proc] : "unknown";
}

static bool_t x_obj(XDR *x, struct nlm_obj *o, uint32_t max)
{
	return x_bytes(x, &o->b, &o->len, max);
}

static bool_t x_i32(XDR *x, int32_t *v)
{
	return xdr_int32_t(x, v);
}

/* nlm4_lock: caller_name, fh, oh, svid, l_offset, l_len */
static bool_t x_lock(XDR *x, struct nlm4_lock *l)
{
	return x_obj(x, &l->caller_name, NLM_MAXSTRLEN) && x_obj(x, &l->fh, NLM_NETOBJ_MAX) &&
	       x_obj(x, &l->oh, NLM_NETOBJ_MAX) && x_i32(x, &l->svid) && x_u64(x, &l->l_offset) &&
	       x_u64(x, &l->l_len);
}

bool_t xdr_nlm4_testargs(XDR *x, struct nlm4_testargs *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_bool(x, &p->exclusive) &&
	       x_lock(x, &p->alock);
}

bool_t xdr_nlm4_lockargs(XDR *x, struct nlm4_lockargs *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_bool(x, &p->block) &&
	       x_bool(x, &p->exclusive) && x_lock(x, &p->alock) && x_bool(x, &p->reclaim) &&
	       x_i32(x, &p->state);
}

bool_t xdr_nlm4_cancargs(XDR *x, struct nlm4_cancargs *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_bool(x, &p->block) &&
	       x_bool(x, &p->exclusive) && x_lock(x, &p->alock);
}

bool_t xdr_nlm4_unlockargs(XDR *x, struct nlm4_unlockargs *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_lock(x, &p->alock);
}

/* nlm4_testrply: a union on nlm4_stats whose NLM4_DENIED arm is the holder */
bool_t xdr_nlm4_testres(XDR *x, struct nlm4_testres *p)
{
	struct nlm4_holder *h = &p->holder;

	FREE_IS_NOOP(x);
	if (!x_obj(x, &p->cookie, NLM_NETOBJ_MAX) || !x_enum(x, &p->stat, NLM4_FAILED))
		return FALSE;
	if (p->stat != NLM4_DENIED)
		return TRUE;
	return x_bool(x, &h->exclusive) && x_i32(x, &h->svid) && x_obj(x, &h->oh, NLM_NETOBJ_MAX) &&
	       x_u64(x, &h->l_offset) && x_u64(x, &h->l_len);
}

bool_t xdr_nlm4_res(XDR *x, struct nlm4_res *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_enum(x, &p->stat, NLM4_FAILED);
}

bool_t xdr_nlm4_shareargs(XDR *x, struct nlm4_shareargs *p)
{
	struct nlm4_share *s = &p->share;

	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_obj(x, &s->caller_name, NLM_MAXSTRLEN) &&
	       x_obj(x, &s->fh, NLM_NETOBJ_MAX) && x_obj(x, &s->oh, NLM_NETOBJ_MAX) &&
	       x_enum(x, &s->mode, 3) && x_enum(x, &s->access, 3) && x_bool(x, &p->reclaim);
}

bool_t xdr_nlm4_shareres(XDR *x, struct nlm4_shareres *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->cookie, NLM_NETOBJ_MAX) && x_enum(x, &p->stat, NLM4_FAILED) &&
	       x_i32(x, &p->sequence);
}

bool_t xdr_nlm4_notify(XDR *x, struct nlm4_notify *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->name, NLM_MAXSTRLEN) && x_i32(x, &p->state);
}

/* ---- NSM ---- */

bool_t xdr_nsm_name(XDR *x, struct nsm_name *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->mon_name, NSM_MAXSTRLEN);
}

bool_t xdr_nsm_my_id(XDR *x, struct nsm_my_id *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->my_name, NSM_MAXSTRLEN) && x_i32(x, &p->my_prog) &&
	       x_i32(x, &p->my_vers) && x_i32(x, &p->my_proc);
}

bool_t xdr_nsm_mon_id(XDR *x, struct nsm_mon_id *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->mon_name, NSM_MAXSTRLEN) && xdr_nsm_my_id(x, &p->my_id);
}

bool_t xdr_nsm_mon(XDR *x, struct nsm_mon *p)
{
	FREE_IS_NOOP(x);
	return xdr_nsm_mon_id(x, &p->mon_id) && x_fixed(x, p->priv, NSM_PRIV_SIZE);
}

bool_t xdr_nsm_stat_res(XDR *x, struct nsm_stat_res *p)
{
	FREE_IS_NOOP(x);
	return x_enum(x, &p->res_stat, NSM_STAT_FAIL) && x_i32(x, &p->state);
}

bool_t xdr_nsm_stat(XDR *x, struct nsm_stat *p)
{
	FREE_IS_NOOP(x);
	return x_i32(x, &p->state);
}

bool_t xdr_nsm_stat_chge(XDR *x, struct nsm_stat_chge *p)
{
	FREE_IS_NOOP(x);
	return x_obj(x, &p->mon_name, NSM_MAXSTRLEN) && x_i32(x, &p->state);
}
