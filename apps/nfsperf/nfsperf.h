/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf.h - droce-nfsperf's shared pieces: the job options (fio's names), the per-job state
 * and statistics, and the four parts of the tool:
 *   droce-nfsperf.c    MOUNT, the jobs' state machine, the main loop
 *   nfsperf_opts.c     the command line (fio's option names)
 *   nfsperf_nfs4.c     NFSv4.1: COMPOUND encoding, reply decoding, the session's slot table
 *   nfsperf_job4.c     NFSv4.1: a job's COMPOUNDs and their replies (nfsperf_job.h: the job
 *                      state droce-nfsperf.c shares with it)
 *   nfsperf_xprt.c     one NFS connection: RPC-over-RDMA (rpcrdma_ep, RDMA CM) or TCP
 *                      (orpc_clnt on a kernel socket), calls matched to their completions
 *   nfsperf_verify.c   the patterned blocks, their verify header (md5 or crc32c) and checks
 *   nfsperf_report.c   latency histograms, fio-compatible JSON, fio-like text, progress line
 * Everything runs on one thread (the main lcore's poll hook, or a plain loop for TCP without
 * droce's stack), so nothing here is locked.
 */
#ifndef NFSPERF_H
#define NFSPERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nfs3_xdr.h"
#include "nfs4_xdr.h"
#include "orpc_clnt.h"
#include "orpc_msg.h"
#include "stk_pkt.h"

#define NP_MAX_JOBS 64u
#define NP_MAX_LANES 8u	   /**< --lanes: ROCE_MAX_LANES */
#define NP_MAX_NCONNECT 8u /**< --nconnect: connections per job */
#define NP_MAX_DEPTH 64u   /**< iodepth: RPCRDMA_CLNT_MAX_SLOTS and ORPC_CLNT_MAX_CALLS */
#define NP_MAX_FILES 256u  /**< nrfiles per job */
#define NP_MAX_BS (1u << 20)
#define NP_HIST_SUB 64u	   /**< sub-buckets per power of two: 1.6 % resolution */
#define NP_HIST_NB 3776u   /**< 2 * NP_HIST_SUB + 57 groups of NP_HIST_SUB */
#define NP_MAX_ERRNAMES 32 /**< distinct error names counted */

enum np_dir { NP_READ, NP_WRITE, NP_NDIRS };

enum np_rw {
	NP_RW_READ,	 /**< sequential reads */
	NP_RW_WRITE,	 /**< sequential writes */
	NP_RW_RANDREAD,	 /**< random reads */
	NP_RW_RANDWRITE, /**< random writes */
	NP_RW_RW,	 /**< sequential, mixed by rwmixread */
	NP_RW_RANDRW,	 /**< random, mixed by rwmixread */
};

enum np_verify { NP_VERIFY_NONE, NP_VERIFY_MD5, NP_VERIFY_CRC32C };

enum np_xprt_kind { NP_XPRT_RDMA, NP_XPRT_TCP };

/** What the command line asked for. */
struct np_opts {
	const char *config; /**< droce's INI: needed for RDMA; for TCP, runs over droce's TAP */
	char server[64];
	struct stk_ipaddr server_ip;
	const char *export;
	const char *name; /**< job name: files are NAME.JOB.FILE, as fio names them */
	enum np_xprt_kind xprt;
	bool v41; /**< --nfs-version 4.1: sessions and OPEN/CLOSE, no MOUNT (default 3) */
	uint16_t port, mount_port;
	enum np_rw rw;
	uint32_t rwmixread; /**< % of reads in rw/randrw */
	uint32_t bs, iodepth, numjobs, nrfiles;
	uint64_t size;	 /**< per job, shared by its files */
	double runtime;	 /**< seconds (0: until size is done) */
	bool time_based; /**< keep going over size until runtime */
	enum np_verify verify;
	bool sync;	/**< FILE_SYNC writes; else UNSTABLE and a COMMIT per file at the end */
	uint32_t fsync; /**< COMMIT every N writes of a job (fio's fsync=N; 0: at the end) */
	bool unlink;	/**< REMOVE the files at the end */
	bool json;	/**< --output-format=json */
	const char *output;
	bool group_reporting;
	int eta; /**< -1 never, 0 auto (a tty), 1 always */
	uint64_t randseed;
	uint32_t uid, gid;
	uint32_t lanes;		  /**< lcores the jobs run on (--lanes; 1: the main lcore) */
	uint32_t nconnect;	  /**< connections per job (--nconnect; 1) */
	uint32_t inline_max;	  /**< RDMA: our inline receive size */
	uint32_t timeout_ms;	  /**< TCP: per try */
	uint8_t ack_timeout;	  /**< RDMA: the QPs' Local ACK Timeout (4.096 us x 2^N) */
	uint32_t verify_print;	  /**< verify failures printed in full (the rest are counted) */
	uint32_t verify_interval; /**< bytes per verify header (fio's; 0: bs) */
	const char *iops_log, *lat_log; /**< fio's write_iops_log / write_lat_log prefixes */
	const char *plot; /**< PREFIX: PREFIX.dat and gnuplot's PREFIX_{iops,lat}.png */
};

/** Latency of one direction: exact moments and a log-linear histogram. */
struct np_lat {
	uint64_t n, min, max;
	double sum, sumsq;
	uint64_t hist[NP_HIST_NB];
};

/** Samples of a per-second series (fio's iops_min/max/mean/stddev, bw_*). */
struct np_series {
	uint64_t n;
	double min, max, sum, sumsq;
};

struct np_dirstats {
	uint64_t ios, bytes;
	uint64_t short_ios, errors, verify_errors;
	struct np_lat clat;
	struct np_series iops_s, bw_s; /**< per second: IOPS, KiB/s */
	uint64_t last_ios, last_bytes; /**< at the previous sample */
	uint64_t last_lat_n;
	double last_lat_sum;
};

/** Errors counted by name: "NFS3ERR_IO", "GARBAGE_ARGS", "ETIMEDOUT", "verify", ... */
struct np_errs {
	uint32_t n;
	struct {
		const char *name;
		uint64_t count;
	} e[NP_MAX_ERRNAMES];
};

void np_err_count(struct np_errs *e, const char *name);

/* ---- nfsperf_opts.c ---- */

/**
 * Parse the tool's part of the command line into @p o (its defaults set by the caller).
 * @return 0, or APP_EXIT_CONFIG with the reason and the usage printed; -h prints the usage and
 *         exits 0
 */
int np_opts_parse(struct np_opts *o, int argc, char **argv);

/* ---- nfsperf_nfs4.c ---- */

#define NP4_MAX_OPS 8u			  /**< operations in one COMPOUND */
#define NP4_MAX_SLOTS (NP_MAX_DEPTH + 1u) /**< iodepth, and one for the set-up calls */

struct np4_op {
	uint32_t op; /**< enum nfs4_op */
	union nfs4_op_args a;
};

/** A COMPOUND's arguments (tag empty, minorversion 1). */
struct np4_compound {
	uint32_t n;
	struct np4_op ops[NP4_MAX_OPS];
};

/** A COMPOUND's results: references point into the reply's bytes. */
struct np4_reply {
	uint32_t status; /**< the COMPOUND's: the last result's */
	uint32_t n;	 /**< results decoded */
	struct nfs4_op_res r[NP4_MAX_OPS];
};

struct np4_slot {
	uint32_t seqid; /**< for the slot's next request */
	bool busy;
};

/** One session (a client ID and its fore channel) per connection. */
struct np4_sess {
	uint64_t clientid;
	uint32_t cs_seq; /**< EXCHANGE_ID's eir_sequenceid, for CREATE_SESSION */
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t nslots; /**< the server's ca_maxrequests, at most NP4_MAX_SLOTS */
	uint32_t target; /**< the server's target_highest_slotid (and highest_slotid) */
	struct np4_slot slot[NP4_MAX_SLOTS];
};

/** COMPOUND4args encoder (an xdrproc_t for np_conn_call). */
bool_t np4_xdr_compound(XDR *x, struct np4_compound *c);
/**
 * Decode COMPOUND4res: at most NP4_MAX_OPS results; an operation whose results do not decode
 * ends the list. @return 0, or -EBADMSG (r->n says how many results came whole)
 */
int np4_reply_decode(const uint8_t *p, uint32_t len, struct np4_reply *r);
/** The index of the first failed result, or r->n when all succeeded. */
uint32_t np4_reply_failed(const struct np4_reply *r);
/** The first successful result of operation @p op, or NULL. */
const struct nfs4_op_res *np4_reply_op(const struct np4_reply *r, uint32_t op);
/** GETATTR's type and size (asked for alone). @return 0, or -EBADMSG */
int np4_attr_type_size(const struct nfs4_getattr_res *g, uint32_t *type, uint64_t *size);

/** Start a session's slot table with @p nslots slots (the server's ca_maxrequests). */
void np4_sess_init(struct np4_sess *s, uint32_t nslots);
/** A free slot at or below the server's target, marked busy. @return its id, or -1 */
int np4_slot_get(struct np4_sess *s);
/** Free a slot whose call never went out. */
void np4_slot_put(struct np4_sess *s, uint32_t slot);
/** SEQUENCE's arguments for a call on @p slot. */
void np4_sequence_args(const struct np4_sess *s, uint32_t slot, struct nfs4_sequence_args *a);
/** A call on @p slot ended (r NULL: no reply): the slot's sequenceid moves on when SEQUENCE
 * succeeded, and the server's target is taken. */
void np4_slot_done(struct np4_sess *s, uint32_t slot, const struct np4_reply *r);
/* Append an operation to a COMPOUND (the caller keeps within NP4_MAX_OPS). */
void np4_op_seq(struct np4_compound *c, const struct np4_sess *s, uint32_t slot);
void np4_op_putfh(struct np4_compound *c, const uint8_t *fh, uint32_t len);
void np4_op(struct np4_compound *c, uint32_t op); /**< one without arguments */
/** nfsstat4 by its RFC name: "NFS4ERR_DELAY" (NFS4_OK is "NFS4ERR_OK"), "NFS4ERR_?". */
const char *np4_stat_name(uint32_t st);

/* ---- nfsperf_xprt.c ---- */

struct roce_dev;
struct roce_cm;
struct roce_pd;
struct roce_cm_id;
struct rpcrdma_ep;

/** What every connection shares: the server, droce's device (RDMA), the credential. */
struct np_env {
	const struct np_opts *o;
	struct roce_dev *dev; /**< NULL without droce's stack */
	struct roce_cm *cm;
	struct roce_pd *pd;
	uint16_t iface;
	struct orpc_authsys sys;
};

#define NP_CONN_STATE_LIST(X)                                                                      \
	X(IDLE)	      /**< not opened */                                                           \
	X(RESOLVE)    /**< RDMA: ARP/ND for the server or its gateway */                           \
	X(CONNECT)    /**< RDMA: CM REQ with RFC 8797 private data */                              \
	X(CONNECTING) /**< RDMA: waiting for ESTABLISHED; TCP: for the socket */                   \
	X(UP)	      /**< calls may start */                                                      \
	X(FAILED)     /**< connecting failed or the connection broke */                            \
	X(CLOSED)     /**< disconnected by us */

#define NP_CONN_ENUM_(n) NP_CONN_##n,
enum np_conn_state { NP_CONN_STATE_LIST(NP_CONN_ENUM_) NP_CONN_NUM_STATES };
const char *np_conn_state_name(enum np_conn_state s);

/** Called once per call: err 0 and the results' XDR (res, len) of an accepted reply whose
 * header is h; or err -errno (transport) with h NULL; h->denied / h->stat != SUCCESS are
 * the caller's to count. */
typedef void (*np_done_t)(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
			  uint32_t len);

struct np_conn;

/** A call in flight: its completion, and the connection it counts against. */
struct np_pend {
	bool used;
	struct np_conn *conn;
	np_done_t done;
	void *ctx;
};

struct np_conn {
	const struct np_env *env;
	enum np_xprt_kind kind;
	enum np_conn_state state;
	const char *why;       /**< FAILED: what failed */
	char why_buf[96];      /**< why, when it names the completion that failed */
	struct rpcrdma_ep *ep; /**< RDMA */
	struct roce_cm_id *id;
	uint8_t *msg; /**< RDMA: a call is encoded here */
	uint32_t msg_cap;
	uint32_t xid;
	struct np_pend pend[NP_MAX_DEPTH + 8];
	struct orpc_clnt tcp; /**< TCP */
	bool tcp_open;
	uint32_t depth; /**< calls in flight at most */
	uint32_t outstanding;
	uint64_t calls; /**< started */
	bool started;	/**< RDMA: the endpoint took the peer's private data, its receives posted:
		       *   from here its completions come (on the QP's home lane) */
	uint64_t deadline, probe_at; /**< ns */
	uint64_t last_progress;	     /**< ns: the last call started or completed */
};

/** Start connecting; RDMA: the QP's home is EAL lcore @p lcore from RTS on (one of the
 * device's lanes; -1: the device's placement). The CM's steps run on the primary lane's lcore.
 * @return 0, -ENOMEM, -ENODEV (RDMA without droce's stack), -errno */
int np_conn_open(struct np_conn *c, const struct np_env *env, uint32_t depth, uint32_t max_io,
		 int lcore);
/** Move the connection on and poll its transport. A connection with calls in flight and no
 * completion for the options' timeout_ms fails ("no reply"): RPC-over-RDMA has no
 * retransmission of its own, and a peer that dropped the connection without a DREQ would
 * otherwise hold the run forever. @return work done */
int np_conn_poll(struct np_conn *c, uint64_t now);
/** A CM event for this connection's id (the CM's queue is shared by every connection). */
void np_conn_cm_event(struct np_conn *c, const void *ev);
/** Calls that may start now. */
uint32_t np_conn_room(const struct np_conn *c);
/**
 * Start an NFSv3 call. WRITE's data goes by read chunk over RDMA (data_len: the opaque that
 * ends the arguments), READ's by write chunk (ddp_reply); reply_max asks a reply chunk for
 * long results (READDIRPLUS).
 * @return 0, -EBUSY (no room: try after a poll), -ENOTCONN, -E2BIG, -ENOMEM
 */
int np_conn_call(struct np_conn *c, uint32_t prog, uint32_t vers, uint32_t proc, xdrproc_t xargs,
		 void *args, uint32_t ddp_data_len, bool ddp_reply, uint32_t reply_max,
		 np_done_t done, void *ctx);
/** RDMA: send DREQ. TCP: close the socket (outstanding calls end with -ECANCELED). */
void np_conn_close(struct np_conn *c);
/** np_conn_close() without the CM (on another lane than the CM's): TCP's socket closes, an
 * RDMA connection is marked closed and the CM's lcore sends the DREQ (roce_cm_disconnect) */
void np_conn_close_local(struct np_conn *c);
/** Free everything. @return 0, or -EBUSY (RDMA: the endpoint's memory is still referenced:
 * poll the lcore and call again) */
int np_conn_destroy(struct np_conn *c);
/** One line of transport counters, for the report. */
void np_conn_stats(const struct np_conn *c, char *buf, size_t cap);

/* ---- nfsperf_verify.c ---- */

#define NP_VHDR_LEN 40u /**< the verify header at the start of every block */

/** Fill a block of @p len bytes of file @p file (job << 16 | file) at @p off with its pattern
 * and, when verify is on, a header every @p interval bytes (0: one for the block). */
void np_block_fill(uint8_t *p, uint32_t len, uint32_t file, uint64_t off, enum np_verify v,
		   uint64_t seed, uint32_t interval);

/**
 * Check a block read back. On failure writes a report (offset, expected and found bytes)
 * into @p why. @return true when it holds what np_block_fill wrote.
 */
bool np_block_check(const uint8_t *p, uint32_t len, uint32_t file, uint64_t off, enum np_verify v,
		    uint64_t seed, uint32_t interval, char *why, size_t cap);

const char *np_verify_name(enum np_verify v);

/* ---- nfsperf_report.c ---- */

uint64_t np_now_ns(void);
void np_lat_add(struct np_lat *l, uint64_t ns);
void np_lat_merge(struct np_lat *to, const struct np_lat *from);
/** The value at or below which @p pct percent of the samples lie (a bucket's middle). */
uint64_t np_lat_pct(const struct np_lat *l, double pct);
void np_series_add(struct np_series *s, double v);
void np_series_merge(struct np_series *to, const struct np_series *from);

/** One job's results as the report sees them. */
struct np_result {
	char name[64];
	uint32_t jobid;
	struct np_dirstats d[NP_NDIRS];
	struct np_errs errs;
	uint64_t calls[NFS3_NPROCS];
	uint64_t calls4; /**< NFSv4.1: COMPOUNDs sent */
	uint32_t slots4; /**< NFSv4.1: the fore channel's slots the server granted (0: none) */
	uint64_t ops4[NFS4_OP_LAST + 1]; /**< NFSv4.1: operations in them */
	uint64_t sync_ios;		 /**< COMMITs (fio's "sync": its fsyncs) */
	struct np_lat sync_lat;
	double runtime_s;
	uint32_t lcore; /**< the EAL lcore the job ran on (--lanes) */
	int error;	/**< first error's errno-like number (fio's "error") */
	uint32_t nconn; /**< its connections (--nconnect) */
	uint64_t conn_calls[NP_MAX_NCONNECT]; /**< calls started on each */
	char xprt_stats[256 * NP_MAX_NCONNECT];
};

struct np_report {
	const struct np_opts *o;
	struct np_result *res;
	uint32_t nres;
	double usr_cpu, sys_cpu; /**< % of the run's wall time */
	uint64_t start_ms;
};

/** fio's JSON (--output-format=json) into @p f. */
void np_report_json(FILE *f, const struct np_report *r);
/** fio's text output (the default) into @p f. */
void np_report_text(FILE *f, const struct np_report *r);
/** Merge several jobs into one (group_reporting). */
void np_result_merge(struct np_result *to, const struct np_result *from);

#endif /* NFSPERF_H */
