/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_pmap.h - the portmapper inside droce: PMAP version 2 (RFC 1833 §3) and RPCBIND
 * versions 3 and 4 (RFC 1833 §2), program 100000, served through orpc_svc over TCP and UDP.
 *
 * Why droce serves its own: droce's sockets live behind its exception TAP, often in their own
 * network namespace, while libtirpc's rpcb_set() talks to whichever rpcbind owns
 * /run/rpcbind.sock, which a network namespace does not isolate. Registrations would land in
 * another rpcbind, invisible at droce's address. So droce lists exactly the programs it serves
 * itself, and answers SET/UNSET from the network with FALSE (RFC 1833 lets a portmapper refuse).
 *
 * Netids (RFC 5665): tcp, udp, tcp6, udp6, and rdma / rdma6 for RPC-over-RDMA (port 20049
 * for NFS). PMAP v2 can only say TCP (6) or UDP (17), so its DUMP lists those; RPCBIND v3/v4
 * list every netid with a universal address "h1.h2.h3.h4.p1.p2".
 */
#ifndef ORPC_PMAP_H
#define ORPC_PMAP_H

#include <stdint.h>

#include "orpc_svc.h"

#define ORPC_PMAP_PROG 100000u
#define ORPC_PMAP_PORT 111u
#define ORPC_PMAP_MAX_REGS 64u

struct orpc_pmap_reg {
	uint32_t prog, vers;
	char netid[8];	/**< tcp, udp, tcp6, udp6, rdma, rdma6 */
	char uaddr[64]; /**< universal address (RFC 5665 §5.2.3) */
	uint16_t port;
};

struct orpc_pmap {
	struct orpc_pmap_reg regs[ORPC_PMAP_MAX_REGS];
	uint32_t nregs;
};

/** The program table for orpc_svc_add(). Handlers find their registry in req->svc's
 * pmap pointer: call orpc_pmap_attach() first. */
extern const struct orpc_program orpc_pmap_program;

/** Make pm the registry that orpc_pmap_program answers from (one per process). */
void orpc_pmap_attach(struct orpc_pmap *pm);

/**
 * Register a served program.
 * @param netid  "tcp", "udp", "tcp6", "udp6", "rdma" or "rdma6"
 * @param ip     the address it is served at (v4 or v6 literal)
 * @return 0, -EINVAL for an unknown netid or bad address, -ENOSPC when full
 */
int orpc_pmap_register(struct orpc_pmap *pm, uint32_t prog, uint32_t vers, const char *netid,
		       const char *ip, uint16_t port);

#endif /* ORPC_PMAP_H */
