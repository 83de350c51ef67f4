/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_recover.h - NFSv4.1 stable client records and the grace period (RFC 8881 §8.4.2,
 * §8.4.3, §9.11, §18.51), as Linux's nfsd tracks them (nfs4recover.c): which client owners held
 * state that must survive a restart, kept in the state directory, and the grace period after a
 * start during which those owners, and only those, reclaim their opens (OPEN CLAIM_PREVIOUS)
 * and locks (LOCK reclaim) before anyone makes new state.
 *
 * The records: statedir/nfs4.clients, replaced atomically (nfs_state_write: temporary file,
 * fsync, rename) whenever the set changes:
 *
 *     droce-nfs4-clients 1 <n>\n
 *     <co_ownerid in lower-case hex>\n        (n lines, each 1..NFS4_OPAQUE_LIMIT bytes)
 *
 * A client is recorded at its RECLAIM_COMPLETE, state or not (as knfsd records a 4.1 client);
 * an OPEN records it only when that could not (a full table, no memory). Its record goes when
 * it is destroyed (DESTROY_CLIENTID), expires, or is replaced by a new incarnation (not when
 * the server stops).
 * A loaded owner that has not completed its reclaims when grace ends is dropped.
 *
 * Grace (enum nfs4_grace_state): from the start for conf grace_s, ending early once no loaded
 * owner is left to complete (at once when none was loaded). During it OPEN and LOCK without
 * reclaim, and LOCKT, are NFS4ERR_GRACE for everyone; a reclaim is served to a client whose
 * owner was loaded and that has not sent RECLAIM_COMPLETE, else NFS4ERR_NO_GRACE (always
 * after grace). Locks in a lock manager shared with NLM also wait for NLM's grace (the
 * manager answers GRACE itself).
 *
 * The file is written off the server's thread: the lcore builds the text, a helper thread of
 * the records' own (nfs_pool, one worker) runs nfs_state_write (write, fsync, rename), and the
 * lcore hears of its end in nfs4_recov_poll. Writes coalesce: while one is in flight further
 * changes only bump the generation (gen), and one more write of the newest set goes when it
 * ends. A record is durable once a write of a generation at or past the one that added it has
 * completed (gen_durable); the server holds the reply of a COMPOUND whose RECLAIM_COMPLETE or
 * OPEN recorded its client until then (nfs4_server_poll, docs/nfs.md "Restart and grace").
 * Without a helper thread (it could not be started) the write runs on the lcore, counted in
 * sync_writes.
 *
 * The boot epoch (nfs4_recov_epoch): statedir/nfs4.epoch holds the last run's, and each start
 * takes max(floor, last + 1), so two starts in one second still differ.
 *
 * Threading: the server's thread, as nfs4_state (the helper thread only writes the file).
 */
#ifndef NFS4_RECOVER_H
#define NFS4_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFS4_RECORDS_FILE "nfs4.clients"
#define NFS4_EPOCH_FILE "nfs4.epoch"
#define NFS4_RECORDS_MAX 2048u /**< records held (and loaded) at once */

/* One stable record's life. */
#define NFS4_REC_STATE_LIST(X)                                                                     \
	X(PREV)	  /* loaded at start: a client of this owner may reclaim during grace */           \
	X(ACTIVE) /* a client of this run completed its reclaims or holds state that must    \
		     survive */     \
	X(GONE)	  /* its client was destroyed or expired, or a loaded owner did not complete     \
		     by grace's end: out of the file, freed */

#define NFS4_REC_ENUM_(n) NFS4_REC_##n,
enum nfs4_rec_state { NFS4_REC_STATE_LIST(NFS4_REC_ENUM_) NFS4_REC_NUM_STATES };

/* The server's grace period after a start. */
#define NFS4_GRACE_STATE_LIST(X)                                                                   \
	X(RECLAIM) /* grace: loaded owners reclaim; no new opens or locks (NFS4ERR_GRACE) */       \
	X(OVER)	   /* its time ran out or no loaded owner is left to complete: new state goes,    \
		      reclaims are NO_GRACE */

#define NFS4_GRACE_ENUM_(n) NFS4_GRACE_##n,
enum nfs4_grace_state { NFS4_GRACE_STATE_LIST(NFS4_GRACE_ENUM_) NFS4_GRACE_NUM_STATES };

const char *nfs4_rec_state_name(enum nfs4_rec_state s);
const char *nfs4_grace_state_name(enum nfs4_grace_state s);

struct nfs4_rec {
	enum nfs4_rec_state state;
	uint32_t len;
	uint8_t owner[]; /**< co_ownerid */
};

struct nfs4_recov_stats {
	uint64_t records;	/**< now (PREV and ACTIVE) */
	uint64_t loaded;	/**< records loaded at start */
	uint64_t files_ignored; /**< records files that did not parse (none loaded from them) */
	uint64_t writes, write_errors, full;
	uint64_t sync_writes;	      /**< written on the lcore: no helper thread */
	uint64_t epoch_files_ignored; /**< nfs4.epoch files that did not parse */
	uint64_t epoch_write_errors;  /**< nfs4.epoch could not be written at start */
	uint64_t reclaims;	      /**< OPEN CLAIM_PREVIOUS and LOCK reclaims let through */
	uint64_t no_grace;	      /**< reclaims refused */
	uint64_t grace_refused;	      /**< new state refused during grace */
	uint64_t rec_state[NFS4_REC_NUM_STATES];     /**< entries into each state */
	uint64_t grace_state[NFS4_GRACE_NUM_STATES]; /**< entries into each state */
};

struct nfs_pool;

struct nfs4_recov {
	const char *dir; /**< the state directory (the backend's), NULL: nothing kept */
	enum nfs4_grace_state grace;
	uint64_t grace_ns; /**< the grace period's length */
	uint64_t grace_end_ns;
	uint32_t n;
	struct nfs4_rec *rec[NFS4_RECORDS_MAX];
	struct nfs4_recov_stats st;
	/* the writer (the helper's job, nfs4_recover.c) */
	struct nfs_pool *pool; /**< one worker for the file, NULL: none (no dir, or it failed) */
	bool inflight;	       /**< a write is with the helper */
	bool closing;	       /**< fini: no new writes from a write's end */
	uint64_t gen;	       /**< changes to the set so far (each needs a write) */
	uint64_t gen_sent;     /**< the newest generation handed to a write */
	uint64_t gen_done;     /**< ... whose write ended (written or failed) */
	uint64_t gen_durable;  /**< ... whose write ended written (fsync and rename done) */
};

/**
 * Start: no records, grace RECLAIM for grace_ns from now (OVER at the first step when nothing
 * is loaded). dir may be NULL (nothing is loaded or written).
 */
void nfs4_recov_init(struct nfs4_recov *r, const char *dir, uint64_t grace_ns, uint64_t now);
/** Wait for the writes (nfs4_recov_flush), stop the helper, free every record (the file
 * stays as it is: the next start loads it). */
void nfs4_recov_fini(struct nfs4_recov *r);

/**
 * This run's boot epoch, kept in dir/nfs4.epoch (NFS4_EPOCH_FILE, "droce-nfs4-epoch 1 <n>\n"):
 * max(floor, the file's + 1), never 0 nor UINT32_MAX (the special stateids' words), written
 * (fsync, rename) before it is returned: the start blocks on it, nothing is served yet. A file
 * that does not parse counts epoch_files_ignored and is replaced; a failed write counts
 * epoch_write_errors (this run still has floor or more, the next may repeat it). r->dir NULL:
 * floor as it is (the clock's second: two starts in one second share it).
 */
uint32_t nfs4_recov_epoch(struct nfs4_recov *r, uint32_t floor);

/** On the lcore: take the ends of the helper's writes (and start the next one when the set
 * changed meanwhile). @return writes that ended */
uint32_t nfs4_recov_poll(struct nfs4_recov *r);
/** Block until every change so far has been written (or failed): at stop, and for tests. */
void nfs4_recov_flush(struct nfs4_recov *r);
/** Is a change not written yet (a write in flight, or one to start)? */
bool nfs4_recov_busy(const struct nfs4_recov *r);
/** An fd readable when a write ended (for a caller sleeping in epoll), -1: none. */
int nfs4_recov_event_fd(const struct nfs4_recov *r);

/**
 * Load the records in text (the file's bytes, not necessarily NUL-terminated) as PREV.
 * Limits: the header line, at most NFS4_RECORDS_MAX records, each 1..NFS4_OPAQUE_LIMIT bytes
 * in an even count of lower-case hex digits ending in a newline, nothing after the n-th.
 * Anything else (truncated, garbage, a count that does not match) loads nothing from the text
 * and counts files_ignored. A duplicate owner is loaded once.
 * @return records loaded, or -EINVAL
 */
int nfs4_recov_parse(struct nfs4_recov *r, const char *text, size_t len);
/** Read statedir/nfs4.clients and parse it. @return records loaded, 0 without a file,
 * -EINVAL (ignored), -errno (unreadable: counted as ignored too) */
int nfs4_recov_load(struct nfs4_recov *r);

/** The record of owner, or NULL. */
struct nfs4_rec *nfs4_recov_find(struct nfs4_recov *r, const uint8_t *owner, uint32_t len);

/** Move grace on (its time, or no PREV left): at OVER the PREV records are dropped. */
void nfs4_recov_step(struct nfs4_recov *r, uint64_t now);

/**
 * May a client of owner (reclaim_done: it sent RECLAIM_COMPLETE) do this now? reclaim: an
 * OPEN CLAIM_PREVIOUS or LOCK reclaim. @return NFS4_OK, NFS4ERR_GRACE (new state during grace,
 * or before the client's RECLAIM_COMPLETE: RFC 8881 §18.51.3), NFS4ERR_NO_GRACE
 */
uint32_t nfs4_recov_check(struct nfs4_recov *r, const uint8_t *owner, uint32_t len,
			  bool reclaim_done, bool reclaim, uint64_t now);

/** A client of owner completed its reclaims (RECLAIM_COMPLETE, not a loaded owner) or got
 * state (a successful OPEN): recorded ACTIVE unless it is already recorded (a PREV record waits
 * for RECLAIM_COMPLETE). @return true when it is ACTIVE now */
bool nfs4_recov_opened(struct nfs4_recov *r, const uint8_t *owner, uint32_t len);
/** RECLAIM_COMPLETE of a client of owner: its PREV record is ACTIVE now (grace may end).
 * @return true when the owner's record is ACTIVE now */
bool nfs4_recov_complete(struct nfs4_recov *r, const uint8_t *owner, uint32_t len, uint64_t now);
/** A recorded client went for good: its record is GONE. */
void nfs4_recov_forget(struct nfs4_recov *r, const uint8_t *owner, uint32_t len);

#endif /* NFS4_RECOVER_H */
