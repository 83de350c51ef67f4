/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_bc.h - backchannels: how an upper layer (NFSv4.1 callbacks) sends a call to a client on
 * the connection the client's own calls came over (RPC-over-RDMA: RFC 8167; TCP: RFC 8881
 * §2.10.3.1), without knowing the transport and without holding a pointer to a connection that
 * may close meanwhile.
 *
 * A transport registers each connection that can carry backward calls and gets an id. The id
 * travels with every call from that connection (orpc_peer.bc_id); the upper layer keeps the id,
 * never the connection. Ids are never reused within a table's life, so a stale id answers
 * -ENOTCONN instead of reaching a new connection in the same memory. When the connection goes,
 * the transport unregisters it and every backward call still waiting on it ends with
 * -ENOTCONN (the transport's own job: it calls their done).
 *
 * Threading: a table belongs to the lcore that polls the transports registered in it (the one
 * whose orpc_svc points at it). An upper layer on another lcore hands its call over through a
 * ring to that lcore; nothing here is locked.
 */
#ifndef ORPC_BC_H
#define ORPC_BC_H

#include <stdbool.h>
#include <stdint.h>

/** A backward call ended: err 0 with the whole RPC reply message (reply/len, valid during the
 * call only), or -ENOTCONN: the connection went (closed, failed, or its endpoint destroyed)
 * before a reply came. The transports do not time backward calls out: a call the client never
 * answers ends only with its connection, so the upper layer keeps its own timer. */
typedef void (*orpc_bc_done_t)(void *ctx, int err, const uint8_t *reply, uint32_t len);

/** What a transport does for a registered connection. */
struct orpc_bc_ops {
	/** Send msg (a whole RPC CALL message, its xid chosen by the caller) to the client.
	 * @return 0 (done will be called exactly once), -EBUSY (no room now: try later),
	 *         -E2BIG (longer than the client takes), -ENOTCONN, -EINVAL (not a CALL
	 *         message), or another -errno of the transport's (-ENOMEM); done is not called
	 *         when it is not 0 */
	int (*call)(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx);
	/** Forget the call with this xid (network order) without calling its done: a reply that
	 * comes later is a stray. @return 0, or -ENOENT when none is waiting */
	int (*cancel)(void *conn, uint32_t xid);
	const char *name; /**< "rdma", "tcp": for logs and counters */
};

#define ORPC_BC_MAX 1024u /**< connections registered at once in one table */

struct orpc_bc_entry {
	uint64_t id; /**< 0: free */
	const struct orpc_bc_ops *ops;
	void *conn;
};

struct orpc_bc_stats {
	uint64_t registered, unregistered, calls, refused, stale, full;
};

struct orpc_bc_table {
	struct orpc_bc_entry e[ORPC_BC_MAX];
	uint64_t next_seq;
	uint32_t live;
	struct orpc_bc_stats st;
};

void orpc_bc_table_init(struct orpc_bc_table *t);

/** A transport: conn can carry backward calls. @return its id (never 0), or 0 when the table is
 * full (the connection then has no backchannel; counted) */
uint64_t orpc_bc_register(struct orpc_bc_table *t, const struct orpc_bc_ops *ops, void *conn);

/** A transport: conn is going. A stale or 0 id is ignored. */
void orpc_bc_unregister(struct orpc_bc_table *t, uint64_t id);

/** The upper layer: is the connection behind id still there? */
bool orpc_bc_alive(const struct orpc_bc_table *t, uint64_t id);

/** The upper layer: send a call on the connection behind id.
 * @return what ops->call returns, or -ENOTCONN for an id that is gone (or 0, or t NULL) */
int orpc_bc_call(struct orpc_bc_table *t, uint64_t id, const uint8_t *msg, uint32_t len,
		 orpc_bc_done_t done, void *ctx);

/** The upper layer: it gave up on a call it sent on id (its own timer): done will not be called
 * for it. xid as in the call's first word (network order).
 * @return 0, -ENOENT (not waiting: it ended already), -ENOTCONN (the id is gone: it ended) */
int orpc_bc_cancel(struct orpc_bc_table *t, uint64_t id, uint32_t xid);

#endif /* ORPC_BC_H */
