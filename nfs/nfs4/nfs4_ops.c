/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_ops.c - the operation table (house style §3): for every opcode NFSv4.1 and 4.2 define,
 * its name, argument decoder, result encoder, handler and flags. The dispatcher
 * (nfs4_compound.c), the XDR routines' dispatch (nfs4_xdr_argop/resop), the tests and the fuzz
 * target all read it. A row without a handler answers NFS4ERR_NOTSUPP; a number without a row
 * is OP_ILLEGAL. Also the session operations' handlers, which map the compound onto
 * nfs4_state.c.
 */
#include <string.h>

#include "nfs4_int.h"

bool_t nfs4_xdr_void_args(XDR *x, union nfs4_op_args *a)
{
	(void)x, (void)a;
	return TRUE;
}

#define NOTSUPP(n) [NFS4_OP_##n] = {#n, NULL, NULL, NULL, NULL, 0}
#define NOTSUPP2(n) [NFS4_OP_##n] = {#n, NULL, NULL, NULL, NULL, NFS4_OPF_MINOR2}
#define OP(n, xa, xr, fn, fl) [NFS4_OP_##n] = {#n, xa, xr, NULL, fn, fl}
/* an operation with results on failure too (SETATTR's attrsset, LOCK4denied) */
#define OPE(n, xa, xr, xe, fn, fl) [NFS4_OP_##n] = {#n, xa, xr, xe, fn, fl}

static const struct nfs4_op_desc ops[NFS4_OP_LAST + 1] = {
	OP(ACCESS, nfs4_xdr_access_args, nfs4_xdr_access_res, nfs4_op_access, NFS4_OPF_CURFH),
	OP(CLOSE, nfs4_xdr_close_args, nfs4_xdr_stateid_res, nfs4_op_close,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_SID),
	OP(COMMIT, nfs4_xdr_commit_args, nfs4_xdr_commit_res, nfs4_op_commit, NFS4_OPF_CURFH),
	OP(CREATE, nfs4_xdr_create_args, nfs4_xdr_create_res, nfs4_op_create,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_FH),
	NOTSUPP(DELEGPURGE), /* CLAIM_DELEGATE_PREV is not served: nothing to purge */
	OP(DELEGRETURN, nfs4_xdr_stateid_args, NULL, nfs4_op_delegreturn, NFS4_OPF_CURFH),
	OP(GETATTR, nfs4_xdr_getattr_args, nfs4_xdr_getattr_res, nfs4_op_getattr, NFS4_OPF_CURFH),
	OP(GETFH, nfs4_xdr_void_args, nfs4_xdr_getfh_res, nfs4_op_getfh, NFS4_OPF_CURFH),
	OP(LINK, nfs4_xdr_lookup_args, nfs4_xdr_cinfo_res, nfs4_op_link,
	   NFS4_OPF_CURFH | NFS4_OPF_SAVEDFH),
	OPE(LOCK, nfs4_xdr_lock_args, nfs4_xdr_stateid_res, nfs4_xdr_lock_denied, nfs4_op_lock,
	    NFS4_OPF_CURFH | NFS4_OPF_SETS_SID),
	OPE(LOCKT, nfs4_xdr_lockt_args, NULL, nfs4_xdr_lock_denied, nfs4_op_lockt, NFS4_OPF_CURFH),
	OP(LOCKU, nfs4_xdr_locku_args, nfs4_xdr_stateid_res, nfs4_op_locku,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_SID),
	OP(LOOKUP, nfs4_xdr_lookup_args, NULL, nfs4_op_lookup, NFS4_OPF_CURFH | NFS4_OPF_SETS_FH),
	OP(LOOKUPP, nfs4_xdr_void_args, NULL, nfs4_op_lookupp, NFS4_OPF_CURFH | NFS4_OPF_SETS_FH),
	OP(NVERIFY, nfs4_xdr_verify_args, NULL, nfs4_op_nverify, NFS4_OPF_CURFH),
	OP(OPEN, nfs4_xdr_open_args, nfs4_xdr_open_res, nfs4_op_open,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_SID | NFS4_OPF_SETS_FH),
	NOTSUPP(OPENATTR),
	NOTSUPP(OPEN_CONFIRM), /* 4.0 only (RFC 8881 §18.20 says NOTSUPP in 4.1) */
	OP(OPEN_DOWNGRADE, nfs4_xdr_downgrade_args, nfs4_xdr_stateid_res, nfs4_op_open_downgrade,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_SID),
	OP(PUTFH, nfs4_xdr_putfh_args, NULL, nfs4_op_putfh, NFS4_OPF_SETS_FH),
	OP(PUTPUBFH, nfs4_xdr_void_args, NULL, nfs4_op_putpubfh, NFS4_OPF_SETS_FH),
	OP(PUTROOTFH, nfs4_xdr_void_args, NULL, nfs4_op_putrootfh, NFS4_OPF_SETS_FH),
	OP(READ, nfs4_xdr_read_args, nfs4_xdr_read_res, nfs4_op_read, NFS4_OPF_CURFH),
	OP(READDIR, nfs4_xdr_readdir_args, nfs4_xdr_readdir_res, nfs4_op_readdir, NFS4_OPF_CURFH),
	OP(READLINK, nfs4_xdr_void_args, nfs4_xdr_readlink_res, nfs4_op_readlink, NFS4_OPF_CURFH),
	OP(REMOVE, nfs4_xdr_lookup_args, nfs4_xdr_cinfo_res, nfs4_op_remove, NFS4_OPF_CURFH),
	OP(RENAME, nfs4_xdr_rename_args, nfs4_xdr_rename_res, nfs4_op_rename,
	   NFS4_OPF_CURFH | NFS4_OPF_SAVEDFH),
	NOTSUPP(RENEW), /* 4.0 only */
	OP(RESTOREFH, nfs4_xdr_void_args, NULL, nfs4_op_restorefh, 0),
	OP(SAVEFH, nfs4_xdr_void_args, NULL, nfs4_op_savefh, NFS4_OPF_CURFH),
	OP(SECINFO, nfs4_xdr_lookup_args, nfs4_xdr_secinfo_res, nfs4_op_secinfo,
	   NFS4_OPF_CURFH | NFS4_OPF_SETS_FH),
	OPE(SETATTR, nfs4_xdr_setattr_args, NULL, nfs4_xdr_setattr_res, nfs4_op_setattr,
	    NFS4_OPF_CURFH),
	NOTSUPP(SETCLIENTID),	      /* 4.0 only */
	NOTSUPP(SETCLIENTID_CONFIRM), /* 4.0 only */
	OP(VERIFY, nfs4_xdr_verify_args, NULL, nfs4_op_verify, NFS4_OPF_CURFH),
	OP(WRITE, nfs4_xdr_write_args, nfs4_xdr_write_res, nfs4_op_write, NFS4_OPF_CURFH),
	NOTSUPP(RELEASE_LOCKOWNER), /* 4.0 only */
	OP(BACKCHANNEL_CTL, nfs4_xdr_bc_ctl_args, NULL, nfs4_op_backchannel_ctl,
	   NFS4_OPF_NEEDS_SESSION),
	OP(BIND_CONN_TO_SESSION, nfs4_xdr_bind_conn_args, nfs4_xdr_bind_conn_res, nfs4_op_bind_conn,
	   NFS4_OPF_NO_SEQ),
	OP(EXCHANGE_ID, nfs4_xdr_exchange_id_args, nfs4_xdr_exchange_id_res, nfs4_op_exchange_id,
	   NFS4_OPF_NO_SEQ),
	OP(CREATE_SESSION, nfs4_xdr_create_session_args, nfs4_xdr_create_session_res,
	   nfs4_op_create_session, NFS4_OPF_NO_SEQ),
	OP(DESTROY_SESSION, nfs4_xdr_sessionid_args, NULL, nfs4_op_destroy_session,
	   NFS4_OPF_NO_SEQ),
	OP(FREE_STATEID, nfs4_xdr_stateid_args, NULL, nfs4_op_free_stateid, 0),
	NOTSUPP(GET_DIR_DELEGATION),
	NOTSUPP(GETDEVICEINFO),
	NOTSUPP(GETDEVICELIST),
	NOTSUPP(LAYOUTCOMMIT),
	NOTSUPP(LAYOUTGET),
	NOTSUPP(LAYOUTRETURN),
	OP(SECINFO_NO_NAME, nfs4_xdr_secinfo_no_name_args, nfs4_xdr_secinfo_res,
	   nfs4_op_secinfo_no_name, NFS4_OPF_CURFH | NFS4_OPF_SETS_FH),
	/* SEQUENCE is the dispatcher's own (first operation only): no handler here */
	OP(SEQUENCE, nfs4_xdr_sequence_args, nfs4_xdr_sequence_res, NULL, 0),
	NOTSUPP(SET_SSV),
	OP(TEST_STATEID, nfs4_xdr_test_stateid_args, nfs4_xdr_test_stateid_res,
	   nfs4_op_test_stateid, 0),
	NOTSUPP(WANT_DELEGATION),
	OP(DESTROY_CLIENTID, nfs4_xdr_clientid_args, NULL, nfs4_op_destroy_clientid,
	   NFS4_OPF_NO_SEQ),
	OP(RECLAIM_COMPLETE, nfs4_xdr_reclaim_complete_args, NULL, nfs4_op_reclaim_complete,
	   NFS4_OPF_NEEDS_SESSION),
	OP(ALLOCATE, nfs4_xdr_alloc_args, NULL, nfs4_op_allocate, NFS4_OPF_CURFH | NFS4_OPF_MINOR2),
	OP(COPY, nfs4_xdr_copy_args, nfs4_xdr_copy_res, nfs4_op_copy,
	   NFS4_OPF_CURFH | NFS4_OPF_SAVEDFH | NFS4_OPF_MINOR2),
	NOTSUPP2(COPY_NOTIFY),
	OP(DEALLOCATE, nfs4_xdr_alloc_args, NULL, nfs4_op_deallocate,
	   NFS4_OPF_CURFH | NFS4_OPF_MINOR2),
	NOTSUPP2(IO_ADVISE),
	NOTSUPP2(LAYOUTERROR),
	NOTSUPP2(LAYOUTSTATS),
	NOTSUPP2(OFFLOAD_CANCEL),
	NOTSUPP2(OFFLOAD_STATUS),
	NOTSUPP2(READ_PLUS),
	OP(SEEK, nfs4_xdr_seek_args, nfs4_xdr_seek_res, nfs4_op_seek,
	   NFS4_OPF_CURFH | NFS4_OPF_MINOR2),
	NOTSUPP2(WRITE_SAME),
	OP(CLONE, nfs4_xdr_clone_args, NULL, nfs4_op_clone,
	   NFS4_OPF_CURFH | NFS4_OPF_SAVEDFH | NFS4_OPF_MINOR2),
	NOTSUPP2(GETXATTR),
	NOTSUPP2(SETXATTR),
	NOTSUPP2(LISTXATTRS),
	NOTSUPP2(REMOVEXATTR),
};

const struct nfs4_op_desc *nfs4_op_desc(uint32_t op)
{
	if (op < NFS4_OP_FIRST || op > NFS4_OP_LAST)
		return NULL;
	return &ops[op];
}

const char *nfs4_op_name(uint32_t op)
{
	const struct nfs4_op_desc *d = nfs4_op_desc(op);

	return d ? d->name : "ILLEGAL";
}

#define STAT_CASE_(n, v)                                                                           \
	case v:                                                                                    \
		return #n;

const char *nfs4_stat_name(uint32_t st)
{
	switch (st) {
		NFS4_STATUS_LIST(STAT_CASE_)
	default:
		return "?";
	}
}

#define SLOT_CASE_(n, v)                                                                           \
	case v:                                                                                    \
		return NFS4_SI_##n;
#define SLOT_VALUE_(n, v) v,

uint32_t nfs4_stat_slot(uint32_t st)
{
	switch (st) {
		NFS4_STATUS_LIST(SLOT_CASE_)
	default:
		return NFS4_NSTATUS;
	}
}

uint32_t nfs4_stat_of_slot(uint32_t slot)
{
	static const uint32_t value[NFS4_NSTATUS] = {NFS4_STATUS_LIST(SLOT_VALUE_)};

	return slot < NFS4_NSTATUS ? value[slot] : NFS4ERR_SERVERFAULT;
}

/* ---- the session operations ---- */

static void principal(const struct nfs4_compound *c, struct nfs4_principal *p)
{
	p->flavor = c->ctx->cred.flavor;
	p->uid = c->ctx->cred.flavor == 1 ? c->ctx->cred.uid : 0;
	p->gid = c->ctx->cred.flavor == 1 ? c->ctx->cred.gid : 0;
}

/* the server's identity (RFC 8881 §2.10.4): one server, one scope */
static const char server_major[] = "droce-nfsd";
static const char impl_domain[] = "droce.dev";
static const char impl_name[] = "droce-nfsd NFSv4.1";

uint32_t nfs4_op_exchange_id(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_exchange_id_res *e = &r->exid;
	struct nfs4_principal p;
	uint32_t s;

	principal(c, &p);
	s = nfs4_exchange_id(c->s->st, &p, &a->exid, e, c->s->now_ns());
	if (s != NFS4_OK)
		return s;
	e->so_minor_id = 0;
	e->so_major_id = (struct nfs4_ref){(const uint8_t *)server_major, sizeof(server_major) - 1};
	e->server_scope = e->so_major_id;
	e->has_impl_id = true;
	e->impl_id.domain =
		(struct nfs4_ref){(const uint8_t *)impl_domain, sizeof(impl_domain) - 1};
	e->impl_id.name = (struct nfs4_ref){(const uint8_t *)impl_name, sizeof(impl_name) - 1};
	e->impl_id.date = (struct nfs4_time){0, 0};
	return NFS4_OK;
}

uint32_t nfs4_op_create_session(struct nfs4_compound *c, union nfs4_op_args *a,
				union nfs4_op_resok *r)
{
	struct nfs4_principal p;
	struct nfs4_cb_cred cred = {0};
	struct nfs4_session *sess;
	bool back_ok;
	uint32_t s;

	principal(c, &p);
	/* a backchannel needs a connection that carries backward calls and a credential we
	 * can send (AUTH_SYS or AUTH_NONE; RPCSEC_GSS alone is not done) */
	back_ok = c->bc_id && c->s->bc && nfs4_cb_pick_cred(&a->csess.sec_parms, &cred) == 0;
	s = nfs4_create_session(c->s->st, &p, &a->csess, &r->csess, c->sess, back_ok,
				c->s->now_ns());
	if (s != NFS4_OK || !(r->csess.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN))
		return s;
	sess = nfs4_session_find(c->s->st, r->csess.sessionid);
	if (sess && sess->cb_state == NFS4_CB_NONE) { /* not a retry's answer */
		sess->cb_cred = cred;
		/* the client's callback service answers the minor version it speaks (pynfs
		 * refuses another with MINOR_VERS_MISMATCH; Linux's nfsd sends the client's) */
		sess->minor = c->minor;
		nfs4_cb_bind(c->s, sess, c->bc_id);
	}
	return NFS4_OK;
}

uint32_t nfs4_op_destroy_session(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r)
{
	(void)r;
	return nfs4_destroy_session(c->s->st, a->sessionid, c->sess, c->slot,
				    c->opidx + 1 == c->numops);
}

uint32_t nfs4_op_destroy_clientid(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r)
{
	(void)r;
	return nfs4_destroy_clientid(c->s->st, a->clientid);
}

uint32_t nfs4_op_bind_conn(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	bool back;
	uint32_t s = nfs4_bind_conn(c->s->st, &a->bind, &r->bind, c->bc_id && c->s->bc, &back);
	struct nfs4_session *sess;

	if (s != NFS4_OK || !back)
		return s;
	sess = nfs4_session_find(c->s->st, a->bind.sessionid);
	if (sess)
		nfs4_cb_bind(c->s, sess, c->bc_id); /* probed again: its answer brings it UP */
	return NFS4_OK;
}

uint32_t nfs4_op_reclaim_complete(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r)
{
	uint32_t s = nfs4_reclaim_complete(c->s->st, c->sess, a->one_fs);

	(void)r;
	/* the client's reclaims are over: a loaded owner's record stays (grace may end now), any
	 * other client is recorded */
	if (s == NFS4_OK && !a->one_fs)
		nfs4_client_reclaimed(c->s, c->sess->clp);
	return s;
}
