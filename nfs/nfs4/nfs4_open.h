/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_open.h - NFSv4.1 open and lock state (RFC 8881 §8.2, §9, §18.16): open-owners and
 * lock-owners, and stateids for opens and lock states, each hung off its client
 * (struct nfs4_client's `owners`). A stateid's `other` is the server's boot epoch (4 bytes)
 * and a serial number (8 bytes) never reused in a run, so one from an earlier run is
 * STALE_STATEID and one freed is BAD_STATEID; its seqid counts the changes of the state.
 *
 * Special stateids (§8.2.3): anonymous (all zeros) and READ bypass (all ones) for I/O without
 * an open; the current stateid (seqid 1, other zeros) for the compound's; the invalid one
 * (seqid all ones, other zeros) is what CLOSE hands back.
 *
 * Share reservations: an OPEN whose access meets another open's deny, or whose deny meets
 * another open's access, on the same file (the backend's file key) is SHARE_DENIED; I/O with
 * a special stateid against a deny is LOCKED. Read delegations are stateids of type
 * NFS4_STID_DELEG, owned by the client's delegation owner (an open-owner of empty name, which
 * no OPEN may have); their recall is nfs4_cb.c's. Byte-range locks live in the lock manager (nfs/lock), shared with NLM:
 * the host of a client's owners is "nfs4:<clientid>", an owner handle is the client id (8
 * bytes) and the owner's bytes, so a LOCK4denied can name the holder.
 *
 * Threading: the server's thread, as nfs4_state.
 */
#ifndef NFS4_OPEN_H
#define NFS4_OPEN_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_xdr.h"
#include "nfs_fs.h"
#include "nfs_lock.h"

struct nfs4_client;
struct nfs4_otab;

/* One stateid's check (RFC 8881 §8.2.2-§8.2.4): a terminal state is the answer. */
#define NFS4_SID_STATE_LIST(X)                                                                     \
	X(START)	/* decoded: the current stateid replaced by the compound's; its epoch? */  \
	X(CHECK_KNOWN)	/* this run's: is its serial in the table? */                              \
	X(CHECK_CLIENT) /* known: the compound's client's, of a type the operation takes? */       \
	X(CHECK_FILE)	/* ours: of the file the operation is on (when it names one)? */           \
	X(CHECK_LEASE)	/* of the file: is its client's lease still running? */                    \
	X(CHECK_SEQID)	/* live: the latest seqid (or 0: "the latest"), or another? */             \
	X(VALID)	/* the state to use */                                                     \
	X(ERR_STALE)	/* another run's epoch: STALE_STATEID */                                   \
	X(ERR_BAD) /* unknown, freed, special, another client's, type or file, a seqid ahead, \
			   no current stateid: BAD_STATEID */    \
	X(ERR_EXPIRED) /* its client's lease ran out: EXPIRED */                                   \
	X(ERR_OLD)     /* a seqid behind the state's: OLD_STATEID */                               \
	X(ERR_REVOKED) /* a delegation revoked (not yet freed): DELEG_REVOKED */

#define NFS4_SID_ENUM_(n) NFS4_SID_##n,
enum nfs4_sid_state { NFS4_SID_STATE_LIST(NFS4_SID_ENUM_) NFS4_SID_NUM_STATES };

const char *nfs4_sid_state_name(enum nfs4_sid_state s);

enum nfs4_stid_type { NFS4_STID_OPEN = 1, NFS4_STID_LOCK = 2, NFS4_STID_DELEG = 3 };

/* A read delegation's life (RFC 8881 §10.2, §10.4; nfs4_cb.c drives it). Returned (DELEGRETURN)
 * or freed (FREE_STATEID of a revoked one), it leaves the table. */
#define NFS4_DLG_STATE_LIST(X)                                                                     \
	X(GRANTED)     /* held; nothing asked of the client */                                     \
	X(RECALL_WAIT) /* a conflict wants it back: CB_RECALL waits for the backchannel slot */    \
	X(RECALLING)   /* CB_RECALL is out */                                                      \
	X(RECALLED)    /* the client answered the recall: DELEGRETURN due within the lease */      \
	X(REVOKED) /* not returned in a lease, unreachable, or the recall refused: the conflict \
		      goes on; the client frees it (FREE_STATEID) */

#define NFS4_DLG_ENUM_(n) NFS4_DLG_##n,
enum nfs4_dlg_state { NFS4_DLG_STATE_LIST(NFS4_DLG_ENUM_) NFS4_DLG_NUM_STATES };

const char *nfs4_dlg_state_name(enum nfs4_dlg_state s);

/** An open-owner or a lock-owner: freed with its last state. */
struct nfs4_owner {
	struct nfs4_owner *next; /**< the client's owners */
	struct nfs4_client *clp;
	bool lock;	/**< lock-owner (else open-owner) */
	uint32_t nstid; /**< states it holds */
	uint32_t len;
	uint8_t name[];
};

/** An open (share reservation) or a lock state (one lock-owner on one file). */
struct nfs4_stid {
	struct nfs4_stateid id; /**< seqid as last handed out */
	uint64_t serial;
	enum nfs4_stid_type type;
	struct nfs4_client *clp;
	struct nfs4_owner *owner;
	struct nfs4_stid *open;	 /**< LOCK: the open it was made from */
	struct nfs4_stid *hnext; /**< the serial hash */
	struct nfs4_stid *cnext; /**< the client's states */
	struct nfs_fh fh;
	struct nfs_lock_key key; /**< the file (nfs_fs_file_key) */
	uint32_t access, deny;	 /**< OPEN: OPEN4_SHARE_ACCESS_* and DENY_* bits */
	bool locked; /**< LOCK: has held a lock (the manager says whether it still does) */
	enum nfs4_dlg_state dlg; /**< DELEG: its life */
	uint64_t recall_ns;	 /**< DELEG: when the recall began (the lease counts from it) */
	uint64_t retry_ns;	 /**< DELEG: the client said DELAY: no new CB_RECALL before */
};

/** The client's state, at nfs4_client.owners while it has any. */
struct nfs4_cstate {
	struct nfs4_owner *owners;
	struct nfs4_stid *stids;
};

struct nfs4_otab_stats {
	uint64_t stids, owners; /**< now */
	uint64_t stids_created, stids_freed;
	uint64_t delegs;			 /**< now (of stids) */
	uint64_t sid_state[NFS4_SID_NUM_STATES]; /**< entries into each state of the check */
};

/** @return a table, or NULL (ENOMEM) */
struct nfs4_otab *nfs4_otab_create(uint32_t boot);
void nfs4_otab_destroy(struct nfs4_otab *t);
void nfs4_otab_stats(const struct nfs4_otab *t, struct nfs4_otab_stats *st);
/** Delegations in the table now (a conflict check costs nothing while it is 0). */
uint64_t nfs4_otab_delegs(const struct nfs4_otab *t);

/** Free every state of c (its client record is going: lease expiry, DESTROY_CLIENTID, a new
 * incarnation), and its locks in mgr. */
void nfs4_otab_release_client(struct nfs4_otab *t, struct nfs_lock_mgr *mgr, struct nfs4_client *c);

/** The lock manager's host name of client id into buf (≥ 24 bytes). @return its length */
uint32_t nfs4_lock_host(uint64_t clientid, char *buf);

static inline bool nfs4_sid_is(const struct nfs4_stateid *s, uint32_t seqid, uint8_t fill)
{
	if (s->seqid != seqid)
		return false;
	for (int i = 0; i < 12; i++)
		if (s->other[i] != fill)
			return false;
	return true;
}

#endif /* NFS4_OPEN_H */
