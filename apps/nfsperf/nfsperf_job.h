/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_job.h - droce-nfsperf's jobs, shared by the run (droce-nfsperf.c: the state machine,
 * NFSv3's calls, the workload) and NFSv4.1's calls (nfsperf_job4.c): the job's states, its
 * files and calls in flight, and what the run shares with them (np_run).
 */
#ifndef NFSPERF_JOB_H
#define NFSPERF_JOB_H

#include <signal.h>

#include "nfsperf.h"

#define NP4_DELAY_NS 2000000ull	  /**< NFS4ERR_DELAY: a call goes again this much later */
#define NP4_GRACE_NS 100000000ull /**< NFS4ERR_GRACE: the server's grace period; again then */

/** One job's state machine (STYLE §4): the set-up calls run one at a time, the workload with
 * iodepth calls in flight. */
#define JOB_STATE_LIST(X)                                                                          \
	X(CONNECT)	    /**< its connection is coming up */                                    \
	X(READDIR)	    /**< READDIRPLUS of the export's root, page by page */                 \
	X(LOOKUP)	    /**< LOOKUP of file fi */                                              \
	X(CREATE)	    /**< CREATE of file fi: LOOKUP said NOENT */                           \
	X(GETATTR)	    /**< GETATTR of file fi: its size */                                   \
	X(LAYOUT)	    /**< WRITE the pattern into files too short for the reads */           \
	X(RUN)		    /**< the workload */                                                   \
	X(DRAIN)	    /**< no new calls: wait for those in flight */                         \
	X(COMMIT)	    /**< COMMIT of file fi, written UNSTABLE */                            \
	X(VERIFY)	    /**< a write-only job with verify: READ back every block it wrote */   \
	X(UNLINK)	    /**< REMOVE of file fi (unlink=1) */                                   \
	X(EXCHANGE_ID)	    /**< 4.1: EXCHANGE_ID, our client owner */                             \
	X(CREATE_SESSION)   /**< 4.1: CREATE_SESSION, iodepth + 1 fore channel slots */            \
	X(RECLAIM)	    /**< 4.1: RECLAIM_COMPLETE (nothing to reclaim) */                     \
	X(ROOTFH)	    /**< 4.1: PUTROOTFH, LOOKUP of the export's components, GETFH */       \
	X(OPEN)		    /**< 4.1: OPEN (create, unchecked) of file fi, GETFH, GETATTR */       \
	X(CLOSE)	    /**< 4.1: CLOSE of file fi */                                          \
	X(DESTROY_SESSION)  /**< 4.1: DESTROY_SESSION */                                           \
	X(DESTROY_CLIENTID) /**< 4.1: DESTROY_CLIENTID */                                          \
	X(DONE)		    /**< finished; its connection is closed */                             \
	X(FAILED)	    /**< a set-up call failed: the job ends */

#define JOB_ENUM_(n) JOB_##n,
enum job_state { JOB_STATE_LIST(JOB_ENUM_) JOB_NUM_STATES };
#define JOB_NAME_(n) #n,

enum io_kind { IO_READ, IO_WRITE, IO_COMMIT };

struct np_job;

/** One call of the workload (or of the layout) in flight. */
struct np_io {
	struct np_job *job;
	bool busy, layout;
	bool reread; /**< the read-back of a write-only job's blocks (not in the results) */
	enum io_kind kind;
	uint32_t file;
	uint64_t off;
	uint64_t start; /**< ns, when the call went out */
	uint32_t slot;	/**< 4.1: the session slot it went on */
	bool delayed;	/**< 4.1: NFS4ERR_DELAY: goes again at retry_at (counted in flight) */
	uint64_t retry_at;
};

struct np_file {
	struct nfs_fh fh;
	uint64_t size;
	bool layout;		  /**< laid out by this run */
	bool dirty;		  /**< written UNSTABLE since its last COMMIT */
	bool seen;		  /**< READDIRPLUS listed it */
	uint8_t *written;	  /**< write-only jobs with verify: a bit per block written */
	uint8_t fh4[NFS4_FHSIZE]; /**< 4.1: its handle, */
	uint32_t fh4_len;
	struct nfs4_stateid sid; /**< and the open stateid */
	bool open;
};

struct np_job {
	uint32_t idx;
	enum job_state state; /**< written by its owner; others read it with an acquire load */
	/* --lanes: the lane (and EAL lcore) it runs on. The main lcore owns a job until it hands
	 * it over (handed: its TCP connection made, or its RDMA connection's ESTABLISHED, sent
	 * through the lane's ring); from then on only that lane touches it, until the run ends */
	uint32_t lane, lcore;
	bool handed;	 /**< main: given to its lane */
	bool lane_owned; /**< its lane: taken */
	uint8_t *wbuf;	 /**< a block's bytes, filled and encoded at once into a WRITE */
	uint64_t state_cnt[JOB_NUM_STATES];
	/* --nconnect: its connections, all on its lane; conn[0] carries the set-up calls, and
	 * each workload call goes on the one with room and the fewest calls in flight. NFSv4.1:
	 * one session for all of them (trunked: SEQUENCE binds a new connection, SP4_NONE) */
	struct np_conn conn[NP_MAX_NCONNECT];
	uint32_t nconn;
	struct np_file files[NP_MAX_FILES];
	uint32_t fi;	     /**< set-up: the file at hand */
	bool meta_busy;	     /**< a set-up call is in flight */
	uint64_t meta_start; /**< ns, when it went out */
	uint64_t cookie;     /**< READDIRPLUS position */
	uint8_t verf[NFS3_VERF_SIZE];
	uint32_t pages, entries;
	struct np_io io[NP_MAX_DEPTH];
	uint32_t inflight;
	uint64_t rnd;
	uint32_t seq_file;
	uint64_t seq_off;
	uint64_t issued; /**< bytes of the workload issued */
	uint32_t writes_since_commit;
	uint32_t last_write_file;   /**< what fsync=N's COMMIT commits */
	uint64_t lay_file, lay_off; /**< layout cursor */
	uint64_t run_start, run_end;
	FILE *iops_log, *lat_log; /**< fio's per-job logs */
	struct np_result res;
	/* NFSv4.1 */
	struct np4_sess s4;
	char owner[96];		   /**< the client owner and open owner: unique per run and job */
	uint8_t dir4[NFS4_FHSIZE]; /**< the export's root (on the way: the last component's) */
	uint32_t dir4_len;
	uint32_t comp;	    /**< ROOTFH: bytes of the export path looked up so far */
	uint32_t comp_next; /**< ROOTFH: ... once the call in flight succeeds */
	int meta_slot;	    /**< the slot of the set-up call in flight, or -1 */
	uint64_t retry_at;  /**< NFS4ERR_DELAY: the set-up call goes again then (ns) */
};

/** What the run shares with its jobs' calls (droce-nfsperf.c fills it in at the start). */
struct np_run {
	const struct np_opts *o;
	uint64_t fsize;			/**< per file, a multiple of bs */
	uint64_t nblocks;		/**< per file */
	uint64_t t0_verf;		/**< 4.1: EXCHANGE_ID's verifier, the run's start */
	uint64_t verify_printed;	/**< atomic: every lane's jobs count here */
	volatile sig_atomic_t stopping; /**< SIGINT/SIGTERM: no new workload calls */
};
extern struct np_run np_run;

/* droce-nfsperf.c: the job's helpers */

/** The job's state, read from another lcore than its owner's. */
static inline enum job_state np_job_state(const struct np_job *j)
{
	return __atomic_load_n(&j->state, __ATOMIC_ACQUIRE);
}

/** Does the workload read (its files must be whole, laid out if short)? */
bool np_run_reads(void);
/** Count an error by name; the job's first errno-like number is kept. */
void np_job_error(struct np_job *j, int errnum, const char *name);
/** A set-up call failed: the reason on stderr, the job ends. */
void np_job_fail(struct np_job *j, const char *why);

/** The connection for the job's next workload call: of those with room, the one with the
 * fewest calls in flight (each obeys its own credits); NULL when none has room. */
static inline struct np_conn *np_job_conn(struct np_job *j)
{
	struct np_conn *best = NULL;

	for (uint32_t k = 0; k < j->nconn; k++) {
		struct np_conn *c = &j->conn[k];

		if (np_conn_room(c) && (!best || c->outstanding < best->outstanding))
			best = c;
	}
	return best;
}
void np_job_set_state(struct np_job *j, enum job_state s);
/** Transport and RPC errors of a reply, counted. @return true when its results are there */
bool np_job_rpc_ok(struct np_job *j, int err, const struct orpc_reply_hdr *h, const char *proc);
void np_job_file_name(const struct np_job *j, uint32_t f, char *buf, size_t cap);
uint32_t np_job_file_id(const struct np_job *j, uint32_t f);
/** An errno's name for the error counts ("ETIMEDOUT", ...). */
const char *np_errno_name(int err);
/** A reply's NFS status: NFS_OK, or counted by name. */
bool np_nfs_ok(struct np_job *j, enum nfs_stat st);
/** Decode a reply's results with @p xres; undecodable ones are counted. */
bool np_decode(struct np_job *j, xdrproc_t xres, void *res, const uint8_t *p, uint32_t len);

/* nfsperf_io.c: the workload's calls, on the job's lane */

/** RUN: start calls up to iodepth; the end of the workload moves the job to DRAIN. */
void np_io_run(struct np_job *j, uint64_t now);
/** LAYOUT: write the pattern into short files. @return true when the layout is done */
bool np_io_layout(struct np_job *j);
/** VERIFY: READ back the blocks a write-only job wrote. @return true when all are checked */
bool np_io_reread(struct np_job *j);
/** 4.1: start again the calls NFS4ERR_DELAY put off, once their time came. */
void np_io_retry_delayed(struct np_job *j, uint64_t now);
/** The workload's completion (np_done_t), ctx the np_io. */
void np_io_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *p, uint32_t len);

/* nfsperf_job4.c */

/** The set-up call of a 4.1 job's state (name: a buffer for a file's name).
 * @return 0 (sent, or nothing to send), or np_conn_call's error */
int np4_job_step(struct np_job *j, char *name, size_t cap);
/** Start a workload call on a free slot of the job's session, over connection @p conn.
 * @return 0, -EBUSY (no slot, no room), np_conn_call's */
int np4_io_start(struct np_job *j, struct np_conn *conn, struct np_io *io);
/** A workload call's reply: its slot moves on, errors are counted. @return true when it
 * succeeded (READ: *data holds the data); false, with *wait set when the same call should go
 * again that much later (NFS4ERR_DELAY, NFS4ERR_GRACE) */
bool np4_io_done(struct np_io *io, int err, const struct orpc_reply_hdr *h, const uint8_t *p,
		 uint32_t len, struct nfs4_ref *data, uint64_t *wait);

#endif /* NFSPERF_JOB_H */
