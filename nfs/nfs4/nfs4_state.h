/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_state.h - NFSv4.1 clients and sessions (RFC 8881 §2.4, §2.10): client records made by
 * EXCHANGE_ID and confirmed by CREATE_SESSION, sessions with their slot tables and per-slot
 * reply caches, leases renewed by SEQUENCE. No XDR in the rules below: the arguments and
 * results are nfs4_xdr.h's structs, the replies cached are the COMPOUND4res bytes the caller
 * built (no RPC header, no transport framing: a replay over another connection or transport
 * is answered with the same bytes in that transport's framing).
 *
 * Apart from the lock manager (nfs/lock) and the open state (nfs4_open.h): byte-range locks,
 * blocked requests and the grace period are nfs_lock's, shared with NLM; opens, lock-owners and
 * their stateids hang off struct nfs4_client (`owners`) and are nfs4_open.c's. A client record
 * that goes (lease expiry, DESTROY_CLIENTID, a new incarnation confirmed by CREATE_SESSION)
 * hands its state to the release hook first (nfs4_state_set_release), which frees it and its
 * locks. The stable records of the owners that completed their reclaims or held state (RFC
 * 8881 §8.4.3), and the grace period they reclaim in after a restart, are nfs4_recover.h's: a
 * record is made when the server says so (c->recorded), and the forget hook (nfs4_state_set_forget) hears of every
 * client record that goes for good (not of those freed when the table is destroyed).
 *
 * The session's life and each SEQUENCE's evaluation are state machines (house style §4):
 * enum nfs4_sess_state and enum nfs4_seq_state below, each state set through one setter that
 * counts it (nfs4_state_stats).
 *
 * Threading: one struct nfs4_state belongs to one thread (droce-nfsd: the lcore, which runs
 * every v4 compound today). Clock: times are the caller's CLOCK_MONOTONIC nanoseconds.
 */
#ifndef NFS4_STATE_H
#define NFS4_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_cb_xdr.h"
#include "nfs4_xdr.h"

#define NFS4_SLOTS_MAX 1024u /**< slots per session, at most */
#define NFS4_SESSIONS_PER_CLIENT 16u

struct nfs4_state_conf {
	uint32_t max_clients;	  /**< client records at once (EXCHANGE_ID past it: DELAY) */
	uint32_t slots;		  /**< fore channel slots offered per session (ca_maxrequests) */
	uint32_t lease_s;	  /**< lease time, seconds */
	uint32_t max_req;	  /**< ca_maxrequestsize offered */
	uint32_t max_resp;	  /**< ca_maxresponsesize offered */
	uint32_t max_resp_cached; /**< ca_maxresponsesize_cached offered: per-slot cache bytes */
	uint32_t max_ops;	  /**< ca_maxoperations offered */
	uint32_t boot;		  /**< this run's epoch (client ids and session ids carry it) */
};

/** Who sent a call, as EXCHANGE_ID and CREATE_SESSION compare it (AUTH_SYS: uid and gid). */
struct nfs4_principal {
	uint32_t flavor, uid, gid;
};

/* The session's life. */
#define NFS4_SESS_STATE_LIST(X)                                                                    \
	X(ACTIVE)     /* created by CREATE_SESSION: SEQUENCE is served */                          \
	X(DESTROYING) /* DESTROY_SESSION ran in a compound on this very session: it ends when   \
			 that compound's reply is built (that reply is not cached) */  \
	X(DEAD)	      /* destroyed, or its client expired or was replaced: freed */

#define NFS4_SESS_ENUM_(n) NFS4_SESS_##n,
enum nfs4_sess_state { NFS4_SESS_STATE_LIST(NFS4_SESS_ENUM_) NFS4_SESS_NUM_STATES };

/* One SEQUENCE's evaluation (RFC 8881 §2.10.6.1, §18.46.3): a terminal state is the answer. */
#define NFS4_SEQ_STATE_LIST(X)                                                                     \
	X(START)	      /* decoded: find the session */                                      \
	X(CHECK_LEASE)	      /* the session is known: is its client's lease still running? */     \
	X(CHECK_SLOT)	      /* the lease runs (now renewed): is the slot in the table? */        \
	X(CHECK_SEQID)	      /* the slot exists: new request, retry, or out of order? */          \
	X(CHECK_LIMITS)	      /* a new request: within the session's operations and size? */       \
	X(NEW)		      /* serve it; its reply goes into the slot */                         \
	X(REPLAY)	      /* a retry of the slot's last request: its cached reply again */     \
	X(ERR_DELAY)	      /* the slot's last request is still being served (its file work) */  \
	X(ERR_BADSESSION)     /* no such session (or its client expired) */                        \
	X(ERR_BADSLOT)	      /* slot id beyond the table */                                       \
	X(ERR_MISORDERED)     /* sequence id neither the slot's nor the next */                    \
	X(ERR_FALSE_RETRY)    /* the slot's sequence id, but not the same request */               \
	X(ERR_RETRY_UNCACHED) /* a retry of a request whose reply was not kept */                  \
	X(ERR_TOO_MANY_OPS)   /* more operations than the session's ca_maxoperations */            \
	X(ERR_REQ_TOO_BIG)    /* longer than the session's ca_maxrequestsize */

#define NFS4_SEQ_ENUM_(n) NFS4_SEQ_##n,
enum nfs4_seq_state { NFS4_SEQ_STATE_LIST(NFS4_SEQ_ENUM_) NFS4_SEQ_NUM_STATES };

const char *nfs4_sess_state_name(enum nfs4_sess_state s);
const char *nfs4_seq_state_name(enum nfs4_seq_state s);

enum nfs4_slot_state {
	NFS4_SLOT_FRESH,    /**< never used: sequence id 0, the first request is 1 */
	NFS4_SLOT_CACHED,   /**< its last request's reply is kept */
	NFS4_SLOT_UNCACHED, /**< its last request's reply was too long to keep */
	/** its last request waits for file work off the lcore (nfs4_compound.c): any request
	 * on the slot meanwhile is NFS4ERR_DELAY (RFC 8881 §2.10.6.2, as knfsd's slot in use) */
	NFS4_SLOT_IN_PROGRESS,
};

struct nfs4_slot {
	enum nfs4_slot_state state;
	uint32_t seqid;	   /**< the last request's */
	uint64_t req_hash; /**< of the last request's COMPOUND4args, to tell a false retry */
	uint32_t len;	   /**< cached reply bytes */
	uint8_t *reply;	   /**< the session's cache area: fore.maxresponsesize_cached bytes */
};

/* The session's backchannel (RFC 8881 §2.10.3.1, §18.36.3): nfs4_cb.c drives it. */
#define NFS4_CB_STATE_LIST(X)                                                                      \
	X(NONE)	   /* the client asked for none (or the connection could carry none) */            \
	X(PROBING) /* granted: a CB_NULL is on its way on bc_id */                                 \
	X(UP)	   /* the probe was answered: callbacks go */                                      \
	X(DOWN)	   /* the connection went, or the probe or a callback failed at the transport:    \
		      SEQUENCE says CB_PATH_DOWN_SESSION until BIND_CONN_TO_SESSION */

#define NFS4_CB_ENUM_(n) NFS4_CB_##n,
enum nfs4_cb_state { NFS4_CB_STATE_LIST(NFS4_CB_ENUM_) NFS4_CB_NUM_STATES };

const char *nfs4_cb_state_name(enum nfs4_cb_state s);

struct nfs4_client;

struct nfs4_session {
	uint8_t id[NFS4_SESSIONID_SIZE];
	enum nfs4_sess_state state;
	struct nfs4_client *clp;
	struct nfs4_session *next; /**< the client's sessions */
	uint32_t flags;		   /**< csr_flags */
	struct nfs4_chan_attrs fore, back;
	uint32_t cb_program;
	uint32_t minor;		 /**< the minor version CREATE_SESSION came in: CB_COMPOUND's */
	struct nfs4_slot *slots; /**< fore.maxrequests */
	uint8_t *cache;
	/* the backchannel (nfs4_cb.c): one slot (0), one call at a time */
	enum nfs4_cb_state cb_state;
	uint64_t bc_id;		     /**< the connection (orpc_bc.h), 0: none */
	struct nfs4_cb_cred cb_cred; /**< from csa_sec_parms / BACKCHANNEL_CTL */
	uint32_t cb_seqid;	     /**< the backchannel slot's last sequence id */
	bool cb_busy;		     /**< a call is out on the slot */
};

enum nfs4_client_state {
	NFS4_CLIENT_UNCONFIRMED, /**< EXCHANGE_ID made it; CREATE_SESSION confirms it */
	NFS4_CLIENT_CONFIRMED,
};

struct nfs4_client {
	uint64_t clientid;
	enum nfs4_client_state state;
	uint8_t verifier[NFS4_VERIFIER_SIZE];
	uint32_t ownerlen;
	uint8_t owner[NFS4_OPAQUE_LIMIT];
	struct nfs4_principal princ;
	/* CREATE_SESSION's own slot (RFC 8881 §18.36.4): the last sequence done and its
	 * answer, for a retry */
	uint32_t cs_seqid;
	uint32_t cs_status;
	struct nfs4_create_session_res cs_res;
	uint64_t expire_ns; /**< the lease runs out */
	bool reclaim_complete;
	bool recorded;	  /**< its owner has an ACTIVE stable record (nfs4_recover.h) */
	uint64_t rec_gen; /**< the records' generation that holds it (0: the file had it) */
	struct nfs4_session *sessions;
	uint32_t nsessions;
	void *owners;	  /**< open and lock state (struct nfs4_cstate, nfs4_open.h), NULL: none */
	uint32_t revoked; /**< delegations revoked and not yet freed (FREE_STATEID) */
};

struct nfs4_state_stats {
	uint64_t clients, sessions; /**< now */
	uint64_t clients_created, clients_confirmed, clients_expired, clients_destroyed;
	uint64_t sessions_created, sessions_destroyed;
	/** DESTROY_SESSION, or the CREATE_SESSION that confirms a restarted client, answered
	 * DELAY: a compound of the session or client waited for its file work; lease expiries
	 * put off for the same reason (per sweep or SEQUENCE that saw one) */
	uint64_t destroy_busy, expiry_held;
	uint64_t replays, cached, uncached;
	uint64_t sess_state[NFS4_SESS_NUM_STATES]; /**< entries into each state */
	uint64_t seq_state[NFS4_SEQ_NUM_STATES];
};

struct nfs4_state;

/** @return the table, or NULL with errno (ENOMEM, EINVAL for a bad conf) */
struct nfs4_state *nfs4_state_create(const struct nfs4_state_conf *conf);
void nfs4_state_destroy(struct nfs4_state *st);
const struct nfs4_state_conf *nfs4_state_conf(const struct nfs4_state *st);
void nfs4_state_stats(const struct nfs4_state *st, struct nfs4_state_stats *out);

/** Drop the clients whose lease ran out before now (and their sessions). @return how many */
uint32_t nfs4_state_expire(struct nfs4_state *st, uint64_t now);

/** EXCHANGE_ID (RFC 8881 §18.35.5's cases). res's server owner, scope and impl id are the
 * caller's to fill. @return an nfsstat4 */
uint32_t nfs4_exchange_id(struct nfs4_state *st, const struct nfs4_principal *who,
			  const struct nfs4_exchange_id_args *a, struct nfs4_exchange_id_res *res,
			  uint64_t now);

/** CREATE_SESSION (§18.36.4): its sequence id rule, its retry answered from the client's
 * CREATE_SESSION slot, channel attributes negotiated down to the conf. cur: the compound's
 * session or NULL (confirming a new incarnation while the old one's session runs this very
 * compound answers NFS4ERR_DELAY, as Linux does). back_ok: the call's connection can carry
 * backward calls, so CONN_BACK_CHAN is granted (echoed in csr_flags) when asked; the caller
 * then sets the session's backchannel up (nfs4_cb.c). @return an nfsstat4 */
uint32_t nfs4_create_session(struct nfs4_state *st, const struct nfs4_principal *who,
			     const struct nfs4_create_session_args *a,
			     struct nfs4_create_session_res *res, const struct nfs4_session *cur,
			     bool back_ok, uint64_t now);

/** What SEQUENCE decided. */
struct nfs4_seq_outcome {
	enum nfs4_seq_state state; /**< NEW, REPLAY or an ERR_ state */
	uint32_t status;	   /**< its nfsstat4 */
	struct nfs4_session *sess; /**< NEW, REPLAY */
	struct nfs4_slot *slot;	   /**< NEW, REPLAY */
};

/**
 * SEQUENCE as the first operation of a compound of numops operations whose COMPOUND4args are
 * req_len bytes hashing to req_hash. NEW fills res; REPLAY points at the slot's cached reply.
 */
void nfs4_sequence(struct nfs4_state *st, const struct nfs4_sequence_args *a, uint32_t numops,
		   uint32_t req_len, uint64_t req_hash, uint64_t now, struct nfs4_sequence_res *res,
		   struct nfs4_seq_outcome *out);

/** The end of a NEW compound: keep its reply in the slot (when it fits and keep: a reply
 * whose data went by direct placement is not kept, a retry of it is RETRY_UNCACHED_REP), or
 * free a session that the compound destroyed. */
void nfs4_sequence_done(struct nfs4_state *st, struct nfs4_session *sess, struct nfs4_slot *slot,
			const uint8_t *reply, uint32_t len, bool keep);

/** DESTROY_SESSION (§18.37); cur: the session the compound runs in, or NULL, own its slot.
 * last: this is the compound's last operation. @return an nfsstat4 */
uint32_t nfs4_destroy_session(struct nfs4_state *st, const uint8_t id[NFS4_SESSIONID_SIZE],
			      struct nfs4_session *cur, const struct nfs4_slot *own, bool last);

/** DESTROY_CLIENTID (§18.50). @return an nfsstat4 */
uint32_t nfs4_destroy_clientid(struct nfs4_state *st, uint64_t clientid);

/** BIND_CONN_TO_SESSION (§18.34): every connection serves the fore channel; back_ok: the
 * call's connection can carry backward calls, so BACK, BOTH, FORE_OR_BOTH and BACK_OR_BOTH
 * bind it as the session's backchannel (res->dir BACK or BOTH; *bind_back set, the caller
 * binds it). Without it BACK is INVAL, the others FORE. @return an nfsstat4 */
uint32_t nfs4_bind_conn(struct nfs4_state *st, const struct nfs4_bind_conn_args *a,
			struct nfs4_bind_conn_res *res, bool back_ok, bool *bind_back);

/** RECLAIM_COMPLETE (§18.51) for the client of cur. */
uint32_t nfs4_reclaim_complete(struct nfs4_state *st, struct nfs4_session *cur, bool one_fs);

/** Called with each client record about to be freed that holds open or lock state
 * (c->owners not NULL): the owner of that state frees it, and sets c->owners to NULL. */
typedef void (*nfs4_release_fn)(void *arg, struct nfs4_client *c);
void nfs4_state_set_release(struct nfs4_state *st, nfs4_release_fn fn, void *arg);

/** Called with each client record about to go for good (lease expiry, DESTROY_CLIENTID, a
 * new incarnation or principal replacing it; not nfs4_state_destroy): its stable record goes
 * (nfs4_recover.h). Called before the release hook. */
typedef void (*nfs4_forget_fn)(void *arg, struct nfs4_client *c);
void nfs4_state_set_forget(struct nfs4_state *st, nfs4_forget_fn fn, void *arg);

/** Find a session by id (tests, the fuzz target), or NULL. */
struct nfs4_session *nfs4_session_find(struct nfs4_state *st,
				       const uint8_t id[NFS4_SESSIONID_SIZE]);

/** Find a client by id (tests, telemetry), or NULL. */
struct nfs4_client *nfs4_client_find(struct nfs4_state *st, uint64_t clientid);

#endif /* NFS4_STATE_H */
