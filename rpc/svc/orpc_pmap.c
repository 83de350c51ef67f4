/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_pmap.c - PMAP v2 and RPCBIND v3/v4 (RFC 1833) as orpc_svc program tables, answering from
 * droce's own registry (orpc_pmap.h). The XDR of every argument and result is libtirpc's
 * (xdr_pmap, xdr_pmaplist_ptr, xdr_rpcb, xdr_rpcblist_ptr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "orpc_pmap.h"

#include <rpc/pmap_prot.h>
#include <rpc/rpcb_prot.h>

static struct orpc_pmap *registry;

/* Result storage for one dispatch: lists point into it until the reply is encoded. */
static struct pmaplist pmap_list[ORPC_PMAP_MAX_REGS];
static struct rp__list rpcb_list[ORPC_PMAP_MAX_REGS];
static char owner[] = "droce";
static char empty[] = "";

void orpc_pmap_attach(struct orpc_pmap *pm)
{
	registry = pm;
}

static const struct {
	const char *netid;
	int family;
	uint32_t ipproto; /* PMAP v2's protocol, 0 = not expressible */
} netids[] = {
	{"tcp", AF_INET, IPPROTO_TCP}, {"udp", AF_INET, IPPROTO_UDP}, {"tcp6", AF_INET6, 0},
	{"udp6", AF_INET6, 0},	       {"rdma", AF_INET, 0},	      {"rdma6", AF_INET6, 0},
};

int orpc_pmap_register(struct orpc_pmap *pm, uint32_t prog, uint32_t vers, const char *netid,
		       const char *ip, uint16_t port)
{
	struct orpc_pmap_reg *r;
	uint8_t a[16];
	size_t k;

	for (k = 0; k < sizeof(netids) / sizeof(netids[0]); k++)
		if (strcmp(netids[k].netid, netid) == 0)
			break;
	if (k == sizeof(netids) / sizeof(netids[0]) || inet_pton(netids[k].family, ip, a) != 1)
		return -EINVAL;
	if (pm->nregs == ORPC_PMAP_MAX_REGS)
		return -ENOSPC;
	r = &pm->regs[pm->nregs++];
	memset(r, 0, sizeof(*r));
	r->prog = prog;
	r->vers = vers;
	r->port = port;
	snprintf(r->netid, sizeof(r->netid), "%s", netid);
	/* RFC 5665 §5.2.3.3/4: the address, then the port's two bytes in decimal */
	snprintf(r->uaddr, sizeof(r->uaddr), "%s.%u.%u", ip, port >> 8, port & 0xff);
	return 0;
}

static uint32_t v2_proto(const struct orpc_pmap_reg *r)
{
	for (size_t k = 0; k < sizeof(netids) / sizeof(netids[0]); k++)
		if (strcmp(netids[k].netid, r->netid) == 0)
			return netids[k].ipproto;
	return 0;
}

static enum accept_stat p_null(struct orpc_req *r, void *args, void *res)
{
	(void)r, (void)args, (void)res;
	return SUCCESS;
}

/* SET and UNSET from the network: refused (FALSE), as the registry is droce's own */
static enum accept_stat p_refuse(struct orpc_req *r, void *args, void *res)
{
	(void)r, (void)args;
	*(bool_t *)res = FALSE;
	return SUCCESS;
}

static enum accept_stat p2_getport(struct orpc_req *r, void *args, void *res)
{
	const struct pmap *q = args;
	u_long *port = res;

	(void)r;
	*port = 0; /* RFC 1833 §3.2: 0 = not registered */
	for (uint32_t i = 0; registry && i < registry->nregs; i++) {
		const struct orpc_pmap_reg *g = &registry->regs[i];

		if (g->prog == q->pm_prog && g->vers == q->pm_vers && v2_proto(g) == q->pm_prot &&
		    q->pm_prot != 0) {
			*port = g->port;
			break;
		}
	}
	return SUCCESS;
}

static enum accept_stat p2_dump(struct orpc_req *r, void *args, void *res)
{
	struct pmaplist **head = res, *prev = NULL;

	(void)r, (void)args;
	*head = NULL;
	for (uint32_t i = 0, n = 0; registry && i < registry->nregs; i++) {
		const struct orpc_pmap_reg *g = &registry->regs[i];
		struct pmaplist *e = &pmap_list[n];

		if (!v2_proto(g))
			continue;
		e->pml_map.pm_prog = g->prog;
		e->pml_map.pm_vers = g->vers;
		e->pml_map.pm_prot = v2_proto(g);
		e->pml_map.pm_port = g->port;
		e->pml_next = NULL;
		if (prev)
			prev->pml_next = e;
		else
			*head = e;
		prev = e;
		n++;
	}
	return SUCCESS;
}

/* RPCBIND GETADDR (v3, v4) and GETVERSADDR (v4): the universal address, or "" */
static enum accept_stat getaddr(const rpcb *q, char **out, bool any_version)
{
	const struct orpc_pmap_reg *hit = NULL;

	*out = empty;
	for (uint32_t i = 0; registry && i < registry->nregs && !hit; i++) {
		const struct orpc_pmap_reg *g = &registry->regs[i];

		if (g->prog == q->r_prog && g->vers == q->r_vers && q->r_netid &&
		    strcmp(g->netid, q->r_netid) == 0)
			hit = g;
	}
	/* RFC 1833 §2.2.1: v4 GETADDR may return an address of another version of the program
	 * (the client learns the versions from the call's PROG_MISMATCH); GETVERSADDR may not */
	for (uint32_t i = 0; any_version && registry && i < registry->nregs && !hit; i++) {
		const struct orpc_pmap_reg *g = &registry->regs[i];

		if (g->prog == q->r_prog && q->r_netid && strcmp(g->netid, q->r_netid) == 0)
			hit = g;
	}
	if (hit)
		*out = (char *)hit->uaddr;
	return SUCCESS;
}

static enum accept_stat p3_getaddr(struct orpc_req *r, void *args, void *res)
{
	return getaddr(args, res, r->call.vers == 4);
}

static enum accept_stat p4_getversaddr(struct orpc_req *r, void *args, void *res)
{
	(void)r;
	return getaddr(args, res, false);
}

static enum accept_stat p3_dump(struct orpc_req *r, void *args, void *res)
{
	struct rp__list **head = res, *prev = NULL;

	(void)r, (void)args;
	*head = NULL;
	for (uint32_t i = 0; registry && i < registry->nregs; i++) {
		struct orpc_pmap_reg *g = &registry->regs[i];
		struct rp__list *e = &rpcb_list[i];

		e->rpcb_map.r_prog = g->prog;
		e->rpcb_map.r_vers = g->vers;
		e->rpcb_map.r_netid = g->netid;
		e->rpcb_map.r_addr = g->uaddr;
		e->rpcb_map.r_owner = owner;
		e->rpcb_next = NULL;
		if (prev)
			prev->rpcb_next = e;
		else
			*head = e;
		prev = e;
	}
	return SUCCESS;
}

static enum accept_stat p3_gettime(struct orpc_req *r, void *args, void *res)
{
	(void)r, (void)args;
	*(u_int *)res = (u_int)time(NULL);
	return SUCCESS;
}

static bool_t xdr_string_res(XDR *x, char **s)
{
	return xdr_string(x, s, ~0u);
}

/* The DUMP result of PMAP v2 is "pmaplist *": an optional-data list head. */
static bool_t xdr_pmaplist_res(XDR *x, struct pmaplist **l)
{
	return xdr_pmaplist(x, l);
}

#define PROC(n, xa, sa, xr, sr, f)                                                                 \
	{                                                                                          \
		n, (xdrproc_t)(xa), sa, (xdrproc_t)(xr), sr, f, false                              \
	}

static const struct orpc_proc pmap2_procs[] = {
	PROC("NULL", xdr_void, 0, xdr_void, 0, p_null),
	PROC("SET", xdr_pmap, sizeof(struct pmap), xdr_bool, sizeof(bool_t), p_refuse),
	PROC("UNSET", xdr_pmap, sizeof(struct pmap), xdr_bool, sizeof(bool_t), p_refuse),
	PROC("GETPORT", xdr_pmap, sizeof(struct pmap), xdr_u_long, sizeof(u_long), p2_getport),
	PROC("DUMP", xdr_void, 0, xdr_pmaplist_res, sizeof(struct pmaplist *), p2_dump),
	{"CALLIT", NULL, 0, NULL, 0, NULL, false}, /* not served: PROC_UNAVAIL */
};

static const struct orpc_proc rpcb_procs[] = {
	PROC("NULL", xdr_void, 0, xdr_void, 0, p_null),
	PROC("SET", xdr_rpcb, sizeof(rpcb), xdr_bool, sizeof(bool_t), p_refuse),
	PROC("UNSET", xdr_rpcb, sizeof(rpcb), xdr_bool, sizeof(bool_t), p_refuse),
	PROC("GETADDR", xdr_rpcb, sizeof(rpcb), xdr_string_res, sizeof(char *), p3_getaddr),
	PROC("DUMP", xdr_void, 0, xdr_rpcblist_ptr, sizeof(rpcblist_ptr), p3_dump),
	{"CALLIT", NULL, 0, NULL, 0, NULL, false},
	PROC("GETTIME", xdr_void, 0, xdr_u_int, sizeof(u_int), p3_gettime),
	{"UADDR2TADDR", NULL, 0, NULL, 0, NULL, false},
	{"TADDR2UADDR", NULL, 0, NULL, 0, NULL, false},
	PROC("GETVERSADDR", xdr_rpcb, sizeof(rpcb), xdr_string_res, sizeof(char *), p4_getversaddr),
};

static const struct orpc_version pmap_versions[] = {
	{2, sizeof(pmap2_procs) / sizeof(pmap2_procs[0]), pmap2_procs},
	{3, 9, rpcb_procs}, /* v3 ends at TADDR2UADDR */
	{4, sizeof(rpcb_procs) / sizeof(rpcb_procs[0]), rpcb_procs},
};

const struct orpc_program orpc_pmap_program = {
	.prog = ORPC_PMAP_PROG,
	.name = "portmapper",
	.nvers = 3,
	.vers = pmap_versions,
};
