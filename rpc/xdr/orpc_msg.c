/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_msg.c - ONC RPC v2 call and reply headers (RFC 5531 §9) through libtirpc. See
 * orpc_msg.h. The few words read by hand before xdr_callmsg exist because xdr_callmsg answers
 * only TRUE or FALSE: the server must tell "not version 2" (RPC_MISMATCH) and "credential too
 * long" (AUTH_BADCRED) apart from garbage (drop), and RFC 5531 §9 says which is which.
 */
#include <errno.h>
#include <string.h>

#include "orpc_msg.h"

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define RNDUP4(n) (((n) + 3u) & ~3u)

enum orpc_call_dec orpc_call_decode(const uint8_t *buf, uint32_t len, struct orpc_call *c)
{
	struct rpc_msg m;
	uint32_t off;
	XDR x;

	c->xid = 0;
	c->cred_len = c->verf_len = 0;
	if (len < 8 || get32(buf + 4) != CALL)
		return ORPC_CALL_DROP;
	c->xid = get32(buf);
	if (len < 12)
		return ORPC_CALL_DROP;
	c->rpcvers = get32(buf + 8);
	if (c->rpcvers != ORPC_RPCVERS)
		return ORPC_CALL_RPC_MISMATCH;
	/* xid dir rpcvers prog vers proc flavor length */
	if (len < 32)
		return ORPC_CALL_DROP;
	c->cred_len = get32(buf + 28);
	if (c->cred_len > ORPC_MAX_AUTH_BYTES)
		return ORPC_CALL_BADCRED;
	off = 32 + RNDUP4(c->cred_len);
	if (off + 8 > len)
		return ORPC_CALL_DROP;
	c->verf_len = get32(buf + off + 4);
	if (c->verf_len > ORPC_MAX_AUTH_BYTES)
		return ORPC_CALL_BADVERF;
	if (off + 8 + RNDUP4(c->verf_len) > len)
		return ORPC_CALL_DROP;

	memset(&m, 0, sizeof(m));
	m.rm_call.cb_cred.oa_base = (caddr_t)c->cred;
	m.rm_call.cb_verf.oa_base = (caddr_t)c->verf;
	xdrmem_create(&x, (char *)(uintptr_t)buf, len, XDR_DECODE);
	if (!xdr_callmsg(&x, &m)) {
		xdr_destroy(&x);
		return ORPC_CALL_DROP;
	}
	c->prog = (uint32_t)m.rm_call.cb_prog;
	c->vers = (uint32_t)m.rm_call.cb_vers;
	c->proc = (uint32_t)m.rm_call.cb_proc;
	c->cred_flavor = (uint32_t)m.rm_call.cb_cred.oa_flavor;
	c->verf_flavor = (uint32_t)m.rm_call.cb_verf.oa_flavor;
	c->args_off = xdr_getpos(&x);
	xdr_destroy(&x);
	return ORPC_CALL_OK;
}

enum auth_stat orpc_authsys_decode(struct orpc_call *c)
{
	gid_t gids[ORPC_AUTHSYS_MAX_GIDS];
	struct authunix_parms p;
	bool ok;
	XDR x;

	memset(&p, 0, sizeof(p));
	p.aup_machname = c->sys.machname;
	p.aup_gids = gids;
	xdrmem_create(&x, (char *)c->cred, c->cred_len, XDR_DECODE);
	ok = xdr_authunix_parms(&x, &p) && xdr_getpos(&x) == c->cred_len;
	xdr_destroy(&x);
	if (!ok || p.aup_len > ORPC_AUTHSYS_MAX_GIDS)
		return AUTH_BADCRED;
	c->sys.stamp = (uint32_t)p.aup_time;
	c->sys.uid = (uint32_t)p.aup_uid;
	c->sys.gid = (uint32_t)p.aup_gid;
	c->sys.ngids = p.aup_len;
	for (uint32_t i = 0; i < p.aup_len; i++)
		c->sys.gids[i] = (uint32_t)gids[i];
	return AUTH_OK;
}

bool orpc_reply_encode(XDR *x, const struct orpc_reply_hdr *r)
{
	struct rpc_msg m;

	memset(&m, 0, sizeof(m));
	m.rm_xid = r->xid;
	m.rm_direction = REPLY;
	if (r->denied) {
		m.rm_reply.rp_stat = MSG_DENIED;
		m.rjcted_rply.rj_stat = (enum reject_stat)r->stat;
		if (r->stat == RPC_MISMATCH) {
			m.rjcted_rply.rj_vers.low = r->low;
			m.rjcted_rply.rj_vers.high = r->high;
		} else {
			m.rjcted_rply.rj_why = (enum auth_stat)r->why;
		}
	} else {
		m.rm_reply.rp_stat = MSG_ACCEPTED;
		m.acpted_rply.ar_verf.oa_flavor = AUTH_NONE;
		m.acpted_rply.ar_stat = (enum accept_stat)r->stat;
		if (r->stat == PROG_MISMATCH) {
			m.acpted_rply.ar_vers.low = r->low;
			m.acpted_rply.ar_vers.high = r->high;
		} else {
			m.acpted_rply.ar_results.where = NULL;
			m.acpted_rply.ar_results.proc = (xdrproc_t)xdr_void;
		}
	}
	return xdr_replymsg(x, &m);
}

int orpc_reply_decode(const uint8_t *buf, uint32_t len, struct orpc_reply_hdr *r, uint32_t *res_off)
{
	uint8_t verf[ORPC_MAX_AUTH_BYTES];
	struct rpc_msg m;
	bool ok;
	XDR x;

	memset(&m, 0, sizeof(m));
	memset(r, 0, sizeof(*r));
	m.acpted_rply.ar_verf.oa_base = (caddr_t)verf;
	m.acpted_rply.ar_results.where = NULL;
	m.acpted_rply.ar_results.proc = (xdrproc_t)xdr_void;
	xdrmem_create(&x, (char *)(uintptr_t)buf, len, XDR_DECODE);
	ok = xdr_replymsg(&x, &m);
	*res_off = xdr_getpos(&x);
	xdr_destroy(&x);
	if (!ok || m.rm_direction != REPLY)
		return -EBADMSG;
	r->xid = (uint32_t)m.rm_xid;
	if (m.rm_reply.rp_stat == MSG_ACCEPTED) {
		r->stat = (uint32_t)m.acpted_rply.ar_stat;
		if (r->stat == PROG_MISMATCH) {
			r->low = (uint32_t)m.acpted_rply.ar_vers.low;
			r->high = (uint32_t)m.acpted_rply.ar_vers.high;
		}
	} else {
		r->denied = true;
		r->stat = (uint32_t)m.rjcted_rply.rj_stat;
		if (r->stat == RPC_MISMATCH) {
			r->low = (uint32_t)m.rjcted_rply.rj_vers.low;
			r->high = (uint32_t)m.rjcted_rply.rj_vers.high;
		} else {
			r->why = (uint32_t)m.rjcted_rply.rj_why;
		}
	}
	return 0;
}

bool orpc_call_encode(XDR *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		      const struct orpc_authsys *sys)
{
	uint8_t cred[ORPC_MAX_AUTH_BYTES];
	gid_t gids[ORPC_AUTHSYS_MAX_GIDS];
	struct authunix_parms p;
	struct rpc_msg m;

	memset(&m, 0, sizeof(m));
	m.rm_xid = xid;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = ORPC_RPCVERS;
	m.rm_call.cb_prog = prog;
	m.rm_call.cb_vers = vers;
	m.rm_call.cb_proc = proc;
	m.rm_call.cb_cred.oa_flavor = AUTH_NONE;
	m.rm_call.cb_verf.oa_flavor = AUTH_NONE;
	if (sys) {
		XDR cx;

		memset(&p, 0, sizeof(p));
		p.aup_time = sys->stamp;
		p.aup_machname = (char *)(uintptr_t)sys->machname;
		p.aup_uid = sys->uid;
		p.aup_gid = sys->gid;
		p.aup_len = sys->ngids < ORPC_AUTHSYS_MAX_GIDS ? sys->ngids : ORPC_AUTHSYS_MAX_GIDS;
		for (uint32_t i = 0; i < p.aup_len; i++)
			gids[i] = sys->gids[i];
		p.aup_gids = gids;
		xdrmem_create(&cx, (char *)cred, sizeof(cred), XDR_ENCODE);
		if (!xdr_authunix_parms(&cx, &p))
			return false;
		m.rm_call.cb_cred.oa_flavor = AUTH_SYS;
		m.rm_call.cb_cred.oa_base = (caddr_t)cred;
		m.rm_call.cb_cred.oa_length = xdr_getpos(&cx);
		xdr_destroy(&cx);
	}
	return xdr_callmsg(x, &m);
}

const char *orpc_accept_stat_name(uint32_t s)
{
	static const char *const n[] = {"SUCCESS",	"PROG_UNAVAIL", "PROG_MISMATCH",
					"PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR"};

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

const char *orpc_auth_stat_name(uint32_t s)
{
	static const char *const n[] = {
		"AUTH_OK",	     "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
		"AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP",  "AUTH_FAILED"};

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}
