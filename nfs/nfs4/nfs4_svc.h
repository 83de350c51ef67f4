/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_svc.h - the NFSv4 program (100003 version 4): NULL and COMPOUND, serving minor versions
 * 1 and 2 (RFC 8881, RFC 7862); minor version 0 (RFC 7530) is not served: its compounds get
 * NFS4ERR_MINOR_VERS_MISMATCH. nfs4_compound() is the whole server without RPC: COMPOUND4args
 * bytes in, COMPOUND4res bytes out, which is what the unit tests and the fuzz target drive.
 *
 * What is served (docs/nfs.md "NFSv4.1"): the session operations (EXCHANGE_ID,
 * CREATE_SESSION, SEQUENCE with its slot table and reply cache, DESTROY_SESSION,
 * DESTROY_CLIENTID, BIND_CONN_TO_SESSION on the fore channel, RECLAIM_COMPLETE), the namespace
 * (PUTROOTFH and PUTPUBFH over a pseudo file system joining the exports, PUTFH, GETFH, SAVEFH,
 * RESTOREFH, LOOKUP, LOOKUPP, GETATTR, ACCESS, SECINFO, SECINFO_NO_NAME), open state (OPEN,
 * OPEN_DOWNGRADE, CLOSE, TEST_STATEID, FREE_STATEID; no delegations), locks (LOCK, LOCKT,
 * LOCKU in nfs/lock) and the file operations (READ, WRITE, COMMIT, CREATE, REMOVE, RENAME,
 * LINK, READDIR, READLINK, SETATTR, VERIFY, NVERIFY). Every other defined operation answers
 * NFS4ERR_NOTSUPP; undefined ones OP_ILLEGAL. READ's data and READLINK's text at the end of a
 * reply are DDP-eligible (nfs4_compound_io, RFC 8267).
 *
 * Threading: a server belongs to one thread (the lcore): its state is touched there only. A
 * compound runs there, except the file work of a READ, WRITE, COMMIT, CREATE, REMOVE, RENAME
 * or LINK when its RPC program can defer the call: that goes to io_uring on the lcore
 * (nfs_aio.h) or to the helper threads (nfs_pool.h), and the compound goes on from that
 * operation on the lcore when it ends
 * (struct nfs4_cont). Meanwhile the slot answers NFS4ERR_DELAY to a retry. A compound waits
 * like that once: a second such operation in it runs on the lcore. The other operations' file
 * calls (LOOKUP, GETATTR, OPEN, READDIR, ...) still run on the lcore. The stable client records
 * are written by a helper thread of their own; a reply that waits for that write is held
 * (nfs4_server_poll).
 */
#ifndef NFS4_SVC_H
#define NFS4_SVC_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_state.h"
#include "nfs_fs.h"
#include "orpc_svc.h"

struct nfs4_server_conf {
	struct nfs4_state_conf state; /**< slots, lease, channel limits, client table */
	uint32_t max_io;	      /**< maxread / maxwrite announced */
	/** the grace period after a start, seconds (RFC 8881 §8.4.2; 0: none): clients whose
	 * owners the state directory's records name reclaim in it (nfs4_recover.h) */
	uint32_t grace_s;
	/** owner@domain strings SETATTR accepts: "N@domain" with this domain (empty: any); names
	 * go out as numeric strings whatever it is (Linux's nfs4_disable_idmapping) */
	char domain[64];
};

/** droce-nfsd's defaults: 32 slots, 90 s lease, 1 MiB + 4 KiB requests and replies, 2 KiB
 * cached per slot, 64 operations, 1024 clients; boot from the clock; no grace period (droce-nfsd
 * sets [nfs] grace). */
void nfs4_server_conf_default(struct nfs4_server_conf *c);

struct nfs4_stats {
	uint64_t compounds, ops;
	uint64_t op[NFS4_OP_LAST + 1]; /**< by opcode (0: OP_ILLEGAL) */
	uint64_t badxdr, minor_mismatch, illegal, notsupp, not_in_session;
	uint64_t status_err; /**< compounds that ended on a failing operation */
	/** operations by opcode: time from their start to their result (file work off the lcore
	 * included), in nfs_lat_bucket's buckets, and its sum */
	uint64_t op_lat[NFS4_OP_LAST + 1][NFS_LAT_BUCKETS];
	uint64_t op_lat_ns[NFS4_OP_LAST + 1];
	uint64_t op_err[NFS4_OP_LAST + 1]; /**< operations that failed, by opcode */
	uint64_t status[NFS4_NSTATUS + 1]; /**< failed operations by nfs4_stat_slot (last: other) */
	uint64_t read_bytes, write_bytes;  /**< READ's data sent, WRITE's written (NFS4_OK) */
	uint64_t compound_lat[NFS_LAT_BUCKETS], compound_lat_ns; /**< whole compounds, the same */
	/* stateids (nfs4_open.c): the check's answers (nfs4_otab_stats.sid_state) */
	uint64_t bad_stateid, old_stateid, stale_stateid, expired_stateid, share_denied;
	uint64_t opens, closes, locks_denied;
	uint64_t ddp_reads;  /**< READ data / READLINK text sent by the call's write chunk */
	uint64_t ddp_placed; /**< ... of which READ put straight in the transport's sink */
	/* the backchannel and read delegations (nfs4_cb.c) */
	uint64_t delegs_granted, delegs_returned, delegs_revoked;
	uint64_t recalls_sent, recalls_answered, deleg_conflicts;
	uint64_t cb_probes, cb_errors, cb_bad_replies;
	uint64_t lock_waits, lock_notifies; /**< blocking LOCKs remembered, CB_NOTIFY_LOCKs sent */
	/* stable client records and grace (nfs4_recover.h's nfs4_recov_stats) */
	uint64_t records, records_loaded, records_files_ignored, records_writes;
	uint64_t records_write_errors, reclaims, no_grace, grace_refused;
	uint64_t records_sync_writes; /**< records written on the lcore (no helper thread) */
	uint64_t records_held;	      /**< replies held until their client's record was written */
	uint64_t records_unheld;      /**< ... that went before it (UDP, DDP data, no memory) */
	uint32_t boot;		      /**< this run's epoch (nfs4_recover.h nfs4_recov_epoch) */
	bool in_grace;
	/* the operations' file work off the lcore (enum nfs4_work_kind) */
	uint64_t io_deferred;	  /**< compounds that waited for it */
	uint64_t io_aio, io_pool; /**< ... by io_uring, by the helper threads */
	uint64_t io_inline;  /**< would have waited but could not (memory, room): ran it here */
	uint64_t io_resumed; /**< waited and went on after it */
	uint64_t io_rerun;   /**< READs io_uring handed back (their owner changed): run again */
	uint64_t io_session_gone; /**< ... whose session had gone meanwhile */
	uint64_t cb_state[4];	  /**< entries into each enum nfs4_cb_state */
	uint64_t dlg_state[5];	  /**< entries into each enum nfs4_dlg_state */
};

struct nfs4_server;

/** @return a server, or NULL with errno (EINVAL, ENOMEM) */
struct nfs4_server *nfs4_server_create(struct nfs_fs *fs, const struct nfs4_server_conf *conf);
void nfs4_server_destroy(struct nfs4_server *s);
/** The clock (CLOCK_MONOTONIC ns by default): tests move time with their own. */
void nfs4_server_set_clock(struct nfs4_server *s, uint64_t (*now_ns)(void));
/**
 * On the lcore, in its loop: take the ends of the stable records' writes (a helper thread does
 * them, nfs4_recover.h) and send the COMPOUND replies held for them. @return work done
 */
uint32_t nfs4_server_poll(struct nfs4_server *s);
/** Block until the records are written and the held replies sent: before the transports go. */
void nfs4_server_flush(struct nfs4_server *s);
/** A records write in flight or to start, or a reply held for one. */
bool nfs4_server_busy(const struct nfs4_server *s);
/** An fd readable when a records write ended (for a caller sleeping in epoll), -1: none. */
int nfs4_server_event_fd(const struct nfs4_server *s);
/** Does the last compound's reply wait for a records write (its RECLAIM_COMPLETE or OPEN
 * recorded the client)?
 * The RPC program holds such a reply (orpc_svc_defer) until nfs4_server_poll sees the write
 * end; nfs4_compound's callers without a transport (tests) poll or flush themselves. */
bool nfs4_server_reply_waits(const struct nfs4_server *s);
/** Is the server in its grace period (nfs4_recover.h)? */
bool nfs4_server_in_grace(struct nfs4_server *s);
struct nfs4_state *nfs4_server_state(struct nfs4_server *s);
void nfs4_server_stats(const struct nfs4_server *s, struct nfs4_stats *st);

/**
 * Run one COMPOUND.
 * @param ctx    the caller (backend context: address, credential)
 * @param args   COMPOUND4args, as the RPC call carried it
 * @param len    its length
 * @param reply  set to the COMPOUND4res bytes: the server's buffer, or a slot's cached reply,
 *               valid until the next call
 * @return the reply's length, 0 when none could be built (SYSTEM_ERR)
 */
uint32_t nfs4_compound(struct nfs4_server *s, struct nfs_ctx *ctx, const uint8_t *args,
		       uint32_t len, const uint8_t **reply);

struct nfs4_io;
/** nfs4_compound with direct data placement (struct nfs4_io, nfs4_int.h): what the RPC
 * program calls. io may be NULL. */
uint32_t nfs4_compound_io(struct nfs4_server *s, struct nfs_ctx *ctx, const uint8_t *args,
			  uint32_t len, struct nfs4_io *io, const uint8_t **reply);

/** A compound waiting for an operation's file work (nfs4_io.defer, nfs4_int.h). */
struct nfs4_cont;
/** Its file work, on any thread (a helper thread's job). */
void nfs4_cont_work(struct nfs4_cont *t);
/**
 * On the lcore once the work ended: the compound goes on from that operation.
 * @param reply  set to the reply's bytes (the server's buffer, valid until the next call)
 * @return its length (0: SYSTEM_ERR). The io's DDP fields are the continuation's own
 *         (nfs4_compound_proc reads them); free it with nfs4_cont_free after the reply went.
 */
uint32_t nfs4_cont_resume(struct nfs4_cont *t, const uint8_t **reply);
void nfs4_cont_free(struct nfs4_cont *t);

/* The RPC program's deferred compounds, through the NFSv3 server's helper threads and io_uring
 * (nfs3_pool_work, nfs3_pool_done and nfs3_aio_done hand a version 4 call here). */
struct orpc_req;
struct nfs_aio_done;
bool nfs4_is_call(const struct orpc_req *r);
void nfs4_pool_work(void *job);
void nfs4_pool_done(void *job);
void nfs4_aio_done(const struct nfs_aio_done *d);

struct orpc_bc_table;
/** Backward calls (NFSv4.1 callbacks) go through t, the lcore's table (orpc_bc.h); NULL: none.
 * The RPC program sets it from orpc_svc.bc on the first COMPOUND when it is not set. */
void nfs4_server_set_bc(struct nfs4_server *s, struct orpc_bc_table *t);

struct nfs_fh;
struct nfs_ctx;
/**
 * An NFSv3 caller is about to change the file fh (WRITE, SETATTR, REMOVE, RENAME): its read
 * delegations are recalled. @return true while one is held (answer NFS3ERR_JUKEBOX). s NULL:
 * false.
 */
bool nfs4_deleg_break(struct nfs4_server *s, struct nfs_ctx *ctx, const struct nfs_fh *fh);
/** The same for the object named name in directory dir (REMOVE, RENAME); a name that is not
 * there breaks nothing. */
bool nfs4_deleg_break_name(struct nfs4_server *s, struct nfs_ctx *ctx, const struct nfs_fh *dir,
			   const char *name, uint32_t len);

struct nfs_lock_mgr;
/** Byte-range locks in m (NLM's, so that NFSv3 NLM and NFSv4 locks conflict) rather than the
 * server's own manager. Call before the first compound; m must outlive the server. */
void nfs4_server_set_lock_mgr(struct nfs4_server *s, struct nfs_lock_mgr *m);

/** NFS version 4 for orpc_svc: NULL and COMPOUND. The COMPOUND handler finds its server in
 * the NFS program's context (struct nfs3_server's v4, nfs3_svc.h): droce-nfsd gives program
 * 100003 both versions (nfs4_program_v3_v4) when [nfs] versions includes 4.1. */
extern const struct orpc_version nfs4_version;

/** Build program 100003 with versions 3 (nfs3_program's) and 4 into prog, using vers[2]. */
void nfs4_program_v3_v4(struct orpc_program *prog, struct orpc_version vers[2]);

#endif /* NFS4_SVC_H */
