/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_pt.h - droce-gen as a perftest client on perftest's TCP exchange (perftest 6.06:
 * perftest_communication.c; droce-perf-xchg.c is the full two-sided version), for the modes
 * whose peer is a perftest server: the catalogue (raw frames to the server's QPs) and the
 * flows (droce's own QPs). The socket is a kernel one bound to droce's address, so it goes
 * through the stack's exception TAP; the calls block, on a control thread.
 *
 * The write_bw/read_bw/atomic_bw client's order (droce-perf-script.c): versions, page and
 * cache line size, MTU, the keys of every QP twice, one more handshake; [the run]; a
 * handshake, the five report fields, and ctx_close_connection() (a handshake, "done").
 * send_bw's (send set): versions, sizes, MTU, the keys of every QP, a handshake, the keys of
 * every QP again, and the size's handshake before it runs (its server has posted its
 * receives by then); [the run]; ctx_close_connection(), no reports.
 */
#ifndef GEN_PT_H
#define GEN_PT_H

#include <stdint.h>

#include "app_perftest.h"
#include "stk_pkt.h"

struct gen_pt {
	struct stk_ipaddr server; /**< IPv4 */
	uint16_t port;		  /**< perftest's -p (18515) */
	uint16_t iface;		  /**< ours: the source address */
	int sock;
	uint32_t mtu;  /**< in: the path MTU to offer (0: 1024); out: the one both agreed */
	bool send;     /**< in: the server is ib_send_bw (its order of the exchange) */
	char why[200]; /**< why the exchange failed */
};

/** Our RoCEv2 GID on @p iface: its IPv4 address, IPv4-mapped. */
void gen_pt_gid(uint16_t iface, uint8_t gid[16]);

/** Connect and exchange everything up to the run: @p n QPs' keys, ours in @p mine, the
 * server's into @p theirs. Waits up to 30 s for the server to listen.
 * @return 0, or -1 with @p pt->why set (and the socket closed). */
int gen_pt_open(struct gen_pt *pt, uint32_t n, const struct perf_dest *mine,
		struct perf_dest *theirs);

/** After the run: the end of write_bw/read_bw/atomic_bw (handshake, a report of @p size and
 * @p iters, close) or of send_bw (close), so that the server exits 0 and prints its table;
 * then the socket closed. */
void gen_pt_close(struct gen_pt *pt, const struct perf_dest *mine0, uint64_t size, uint64_t iters);

/** Close the socket without the end of the exchange (the run failed). */
void gen_pt_abort(struct gen_pt *pt);

#endif /* GEN_PT_H */
