/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_svc.h - the ONC RPC server core: a program/version/procedure table written as data,
 * and one dispatch function that every transport (TCP, UDP, RPC-over-RDMA) calls with a whole
 * call message and a buffer for the reply.
 *
 * Dispatch order, as RFC 5531 §9 and Linux's svc_process do it:
 *   rpcvers (RPC_MISMATCH) -> credential flavor and body (AUTH_BADCRED / AUTH_BADVERF)
 *   -> program (PROG_UNAVAIL) -> version (PROG_MISMATCH low..high) -> procedure (PROC_UNAVAIL)
 *   -> the program's auth policy (AUTH_TOOWEAK, or its check's AUTH_REJECTEDCRED ...)
 *   -> arguments (GARBAGE_ARGS) -> the handler (SUCCESS or SYSTEM_ERR).
 * Each outcome is a row of one table, with its reply and its counter (orpc_svc_stats).
 *
 * Threading: a struct orpc_svc is read-only after set-up except its counters, which belong to
 * the lcore that calls dispatch; give each lcore its own orpc_svc over the same tables.
 */
#ifndef ORPC_SVC_H
#define ORPC_SVC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "orpc_msg.h"

struct orpc_req;
struct orpc_bc_table;

/** A procedure handler: fill res from args. Returns SUCCESS, or SYSTEM_ERR / GARBAGE_ARGS
 * to answer that instead of results. Pointers in res must stay valid until dispatch returns
 * (into args, static data, or the connection); results are not freed by dispatch, arguments
 * are (xdr_free). */
typedef enum accept_stat (*orpc_handler_t)(struct orpc_req *r, void *args, void *res);

/** A program's extra credential check, after the flavor passed its policy (e.g. an export's
 * rules). Returns AUTH_OK or the auth_stat to deny with. */
typedef enum auth_stat (*orpc_auth_check_t)(struct orpc_req *r);

/** One procedure: its argument and result XDR routines and sizes, and its handler. A NULL
 * handler means "not served": PROC_UNAVAIL. */
struct orpc_proc {
	const char *name;
	xdrproc_t xdr_args;
	uint32_t args_size; /**< ≤ ORPC_MAX_ARGS */
	xdrproc_t xdr_res;
	uint32_t res_size; /**< ≤ ORPC_MAX_RES */
	orpc_handler_t fn;
	bool ddp_res; /**< the results end with an opaque whose content is DDP-eligible (RFC 8166
			 §3.4): the handler says how long it is in req->ddp_len */
};

struct orpc_version {
	uint32_t vers;
	uint32_t nprocs;
	const struct orpc_proc *procs; /**< indexed by procedure number */
};

/** Bit for a flavor in orpc_program.flavors. */
#define ORPC_FLAVOR_BIT(f) (1u << (f))

struct orpc_program {
	uint32_t prog;
	const char *name;
	uint32_t nvers;
	const struct orpc_version *vers;
	uint32_t flavors;	      /**< accepted for procedures other than 0: AUTH_NONE, AUTH_SYS
					  bits; 0 = both */
	orpc_auth_check_t auth_check; /**< optional */
	uint64_t drc_procs; /**< bit p: procedure p (in every version) is not idempotent, and its
			       replies go into the duplicate request cache */
};

#define ORPC_MAX_ARGS 1024u
#define ORPC_MAX_RES 1024u
#define ORPC_MAX_PROGRAMS 16u

#define ORPC_OUTCOME_LIST(X)                                                                       \
	X(SUCCESS)	     /**< the handler ran; results follow */                               \
	X(DROP)		     /**< not a call, or truncated: nothing to answer (RFC 5531 §9) */    \
	X(RPC_MISMATCH)	     /**< rpcvers != 2: MSG_DENIED RPC_MISMATCH 2..2 */                    \
	X(AUTH_BADCRED)	     /**< unknown flavor, or a malformed or too long credential */         \
	X(AUTH_BADVERF)	     /**< a verifier too long, or not AUTH_NONE with AUTH_SYS */           \
	X(AUTH_TOOWEAK)	     /**< the program does not accept this flavor */                       \
	X(AUTH_REJECTEDCRED) /**< the program's check refused the credential */                    \
	X(AUTH_OTHER)	     /**< the program's check refused with another auth_stat */            \
	X(PROG_UNAVAIL)	     /**< program not served */                                            \
	X(PROG_MISMATCH)     /**< version not served: low..high of the program's */                \
	X(PROC_UNAVAIL)	     /**< procedure not served */                                          \
	X(GARBAGE_ARGS)	     /**< arguments do not decode */                                       \
	X(SYSTEM_ERR)	     /**< the handler failed, or the results do not fit */                 \
	X(DEFERRED)	   /**< the handler took the call to finish later (orpc_svc_defer): no  \
				reply yet; its final outcome is counted when it finishes */  \
	X(DRC_REPLAY)	   /**< a retransmission of a call that ran: its cached reply again */     \
	X(DRC_IN_PROGRESS) /**< a retransmission of a call still running: dropped */

#define ORPC_OUTCOME_ENUM_(n) ORPC_OUT_##n,
enum orpc_outcome { ORPC_OUTCOME_LIST(ORPC_OUTCOME_ENUM_) ORPC_OUT_NUM };
const char *orpc_outcome_name(enum orpc_outcome o);

struct orpc_svc_stats {
	uint64_t calls;
	uint64_t outcome[ORPC_OUT_NUM];
};

/*
 * The duplicate request cache (orpc_svc_drc_enable): for procedures in drc_procs (not
 * idempotent: CREATE, REMOVE, RENAME, WRITE ...), the reply of each call is kept, keyed by xid,
 * the client's address without its port (Linux's RDMA client reconnects from a new port), the
 * program, version and procedure, and a checksum of the first 256 bytes of the arguments and
 * their length. A retransmission of a call that ran gets the same reply without running again;
 * one that arrives while the call still runs (deferred) is dropped. Replies are kept as RPC
 * messages, without any transport framing, so a retransmission over a new connection (or the
 * other transport's framing) is answered correctly. Bounded: ORPC_DRC_ENTRIES by default
 * (orpc_svc_drc_enable_n sets another size), LRU within a set of ORPC_DRC_WAYS; replies longer
 * than ORPC_DRC_MAX_REPLY are not kept. An entry takes about 1.1 KiB.
 */
#define ORPC_DRC_ENTRIES 4096u
#define ORPC_DRC_MIN 64u      /**< the smallest size orpc_svc_drc_enable_n takes */
#define ORPC_DRC_MAX 1048576u /**< the largest */
#define ORPC_DRC_WAYS 8u
#define ORPC_DRC_MAX_REPLY 1024u

struct orpc_drc_stats {
	uint64_t inserted, replayed, in_progress_drops, evicted, too_big;
};

/** The transport a call came over. */
enum orpc_xprt { ORPC_XPRT_NONE = 0, ORPC_XPRT_TCP, ORPC_XPRT_UDP, ORPC_XPRT_RDMA };

/** Who sent a call, as its transport knows it (for exports' client lists and "secure"). */
struct orpc_peer {
	enum orpc_xprt xprt;
	struct sockaddr_storage addr; /**< AF_UNSPEC when the transport did not say */
	/** Set by the transport for the call being dispatched: where a ddp_res handler may put
	 * its trailing opaque's content directly (memory the transport sends DDP data from, free
	 * until the reply is sent), and how many bytes fit. NULL when the results go inline (TCP,
	 * a call without a write chunk). A handler that uses it sets req->ddp_placed. Read it on
	 * the lcore at dispatch: a pending call's copy of the peer keeps the pointer. */
	uint8_t *ddp_sink;
	uint32_t ddp_sink_len;
	/** The connection's backchannel in its svc's table (orpc_bc.h): set by a transport that
	 * can carry backward calls on it; 0 when it cannot (UDP) or the svc has no table. */
	uint64_t bc_id;
	/** UDP only: the transport can keep this call and answer it later (orpc_svc_defer); TCP
	 * and RDMA always can */
	bool defer_ok;
};

/** The request a handler sees. */
struct orpc_req {
	struct orpc_svc *svc;
	void *conn;		      /**< the transport's connection context */
	const struct orpc_peer *peer; /**< never NULL: the transport's, or an empty one */
	const struct orpc_program *prog;
	const struct orpc_proc *proc;
	enum orpc_outcome outcome;
	uint32_t ddp_len; /**< set by a ddp_res handler: bytes of the trailing opaque's content */
	/** set by a ddp_res handler that put those bytes at peer->ddp_sink: its results' encoder
	 * leaves them out (the opaque's length word ends the results), and the transport sends
	 * them from the sink */
	bool ddp_placed;
	void *user;		    /**< the upper layer's, per call (NULL at dispatch) */
	struct orpc_drc_entry *drc; /**< its cache entry while it runs */
	struct orpc_call call;
};

/** A server: its programs and counters, and the request being dispatched. One per lcore. */
struct orpc_svc {
	const struct orpc_program *progs[ORPC_MAX_PROGRAMS];
	uint32_t nprogs;
	struct orpc_svc_stats stats;
	void *ctx;		       /**< the upper layer's, for its handlers (req->svc->ctx) */
	struct orpc_pending *deferred; /**< what the last dispatch deferred, until taken */
	struct orpc_drc *drc;	       /**< the duplicate request cache, or NULL */
	/** the backchannels of this lcore's connections (orpc_bc.h), or NULL: none are offered.
	 * Set up by the application; the transports register their connections in it. */
	struct orpc_bc_table *bc;
	struct orpc_req req; /**< the call in dispatch (its credential copy is 800 bytes) */
};

/** Give s a duplicate request cache. @return 0 or -ENOMEM */
/** The cache with ORPC_DRC_ENTRIES entries (kept as it is when there is one). @return 0 or
 * -ENOMEM */
int orpc_svc_drc_enable(struct orpc_svc *s);
/** The cache with @p entries entries (ORPC_DRC_MIN..ORPC_DRC_MAX, a multiple of
 * ORPC_DRC_WAYS); one of another size is emptied and replaced. @return 0, -EINVAL, -ENOMEM */
int orpc_svc_drc_enable_n(struct orpc_svc *s, uint32_t entries);
/** Its size in entries, 0 without one. */
uint32_t orpc_svc_drc_entries(const struct orpc_svc *s);
void orpc_svc_drc_disable(struct orpc_svc *s);
void orpc_svc_drc_stats(const struct orpc_svc *s, struct orpc_drc_stats *st);

/** Add a program. @return 0, -ENOSPC when full, -EEXIST when prog is already there */
int orpc_svc_add(struct orpc_svc *s, const struct orpc_program *p);

/**
 * Handle one call message and write the reply (record marks and transport headers are the
 * transport's).
 * @param s     the server
 * @param msg   the whole RPC call message
 * @param len   its length
 * @param conn  the transport's context, for handlers (req->conn)
 * @param out   reply buffer
 * @param cap   its size
 * @param outcome  if not NULL, what happened
 * @return the reply's length, 0 when nothing is to be sent (DROP)
 */
uint32_t orpc_svc_dispatch(struct orpc_svc *s, const uint8_t *msg, uint32_t len, void *conn,
			   uint8_t *out, uint32_t cap, enum orpc_outcome *outcome);

/*
 * Deferred calls. A handler that must not block its lcore (file I/O) takes the call out of
 * dispatch with orpc_svc_defer(), hands the pending call to whoever does the work, and answers
 * ORPC_DEFER. Dispatch then returns 0 with outcome DEFERRED and the transport takes the pending
 * call with orpc_svc_take_deferred(), saying how to resume it. The transport keeps the call
 * message (arguments point into it) and its connection until then, and answers nothing else on
 * that connection meanwhile (replies stay in call order). When the work is done, the upper
 * layer calls orpc_pending_done() on the transport's lcore, which calls the transport's resume;
 * the transport encodes the reply with orpc_svc_finish() and sends it.
 * Over UDP the transport keeps the datagram and the caller's address instead, for as many calls
 * as it has room for (orpc_peer.defer_ok); without room, or from a transport that cannot,
 * orpc_svc_defer() answers NULL and the handler runs the call at once.
 */
#define ORPC_DEFER ((enum accept_stat)0x7f) /**< a handler's answer: see orpc_svc_defer */

struct orpc_pending;
typedef void (*orpc_resume_t)(struct orpc_pending *p, void *arg);

/** In a handler: take the call out of dispatch. args and res (the handler's) are copied into
 * the pending call; work on orpc_pending_args/res from then on. @return NULL when the transport
 * cannot defer or memory is short: then answer at once. */
struct orpc_pending *orpc_svc_defer(struct orpc_req *r, void *args, void *res);
struct orpc_req *orpc_pending_req(struct orpc_pending *p); /**< its copy of the request */
void *orpc_pending_args(struct orpc_pending *p);
void *orpc_pending_res(struct orpc_pending *p);

/** The upper layer, on the transport's lcore: the work is done; stat is what the handler
 * would have answered (SUCCESS, SYSTEM_ERR, GARBAGE_ARGS). Calls the transport's resume. */
void orpc_pending_done(struct orpc_pending *p, enum accept_stat stat);

/** The transport, when dispatch said DEFERRED: the pending call, and how to resume it. */
struct orpc_pending *orpc_svc_take_deferred(struct orpc_svc *s, orpc_resume_t resume, void *arg);

/** The transport, in its resume: encode the reply into out (as dispatch would have), count
 * its outcome, leave the request in s->req (proc, ddp_len) and free p. out NULL: only free p
 * (the connection is gone). @return the reply's length */
uint32_t orpc_svc_finish(struct orpc_svc *s, struct orpc_pending *p, uint8_t *out, uint32_t cap,
			 enum orpc_outcome *outcome);

/** orpc_svc_dispatch with the caller's address: what transports call. peer may be NULL. */
uint32_t orpc_svc_dispatch_peer(struct orpc_svc *s, const uint8_t *msg, uint32_t len, void *conn,
				const struct orpc_peer *peer, uint8_t *out, uint32_t cap,
				enum orpc_outcome *outcome);

#endif /* ORPC_SVC_H */
