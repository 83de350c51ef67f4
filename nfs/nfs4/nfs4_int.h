/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_int.h - what nfs/nfs4's files share: the operation table's row, the compound's state
 * (current and saved file handles, the session and slot), the server object, the pseudo file
 * system, and each handler. Unit tests include it.
 */
#ifndef NFS4_INT_H
#define NFS4_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_open.h"
#include "nfs4_recover.h"
#include "nfs4_state.h"
#include "nfs4_svc.h"
#include "nfs4_xdr.h"
#include "nfs_fs.h"

#define NFS4_MAX_OPS 64u		/**< operations decoded per compound (ca_maxoperations) */
#define NFS4_COPY_SYNC_MAX (4ull << 20) /**< bytes one synchronous COPY copies at most */
#define NFS4_RBUF_KEEP 8u	/**< READ buffers kept for compounds that wait (nfs4_compound.c) */
#define NFS4_RBUF_SMALL 65536u	/**< ... for READs longer than this; shorter ones get their count */
#define NFS4_ATTRVALS_MAX 4096u /**< attrlist4 bytes (GETATTR) */
#define NFS4_PSEUDO_MAX 256u	/**< pseudo file system nodes */
#define NFS4_PSEUDO_FSID_MAJOR 0x70736575ull /**< "pseu": the pseudo file system's fsid */

/* ---- the pseudo file system (nfs4_pseudo.c) ---- */

/** A directory on the way to an export, or an export's root (then the handle is real). */
struct nfs4_pnode {
	uint64_t id;   /**< FNV-1a of its path: its handle and its fileid */
	uint32_t exp;  /**< the export whose path it is a prefix of (nfs_fs_export index) */
	uint32_t plen; /**< prefix length of that path ("/": 0) */
	int32_t parent;
	bool is_export;
};

struct nfs4_pseudo {
	uint32_t n;
	struct nfs4_pnode node[NFS4_PSEUDO_MAX];
};

/** Build from the exports in force. Node 0 is "/". */
void nfs4_pseudo_build(struct nfs4_pseudo *p, const struct nfs_fs *fs);
/** The node of id, or -1. */
int32_t nfs4_pseudo_find(const struct nfs4_pseudo *p, uint64_t id);
/** The child of node dir named name, or -1. */
int32_t nfs4_pseudo_child(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t dir,
			  const char *name, uint32_t len);
/** The node whose path is path (an export's), or -1. */
int32_t nfs4_pseudo_by_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, const char *path);
/** Whether the node is reached through an export's own tree (it or an ancestor is an
 * export): then its handle is the backend's. */
bool nfs4_pseudo_in_export(const struct nfs4_pseudo *p, int32_t i);
/** Its path, NUL-terminated, into buf. */
void nfs4_pseudo_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t i, char *buf,
		      size_t cap);

/* ---- the compound ---- */

enum nfs4_fh_kind { NFS4_FH_NONE = 0, NFS4_FH_PSEUDO, NFS4_FH_REAL };

/** A current or saved file handle. */
struct nfs4_cfh {
	enum nfs4_fh_kind kind;
	uint64_t pid; /**< NFS4_FH_PSEUDO: the node's id */
	struct nfs_fh fh;
};

#define NFS4_PFH_LEN 12u /**< a pseudo handle: 0x80 'p' '4' 0, then the id (big-endian) */

/** The wire form of h into out (≤ NFS4_FHSIZE). @return its length */
uint32_t nfs4_fh_encode(const struct nfs4_cfh *h, uint8_t *out);

struct nfs4_server;

/** Direct data placement for one compound (RFC 8267 §4): in, the transport's DDP sink (a
 * write chunk's staging memory, NULL over TCP); out, the trailing DDP-eligible opaque of the
 * reply (READ's data, READLINK's text), when the last result is one. */
struct nfs4_io {
	uint8_t *sink;
	uint32_t sink_len;
	uint32_t ddp_len; /**< bytes of that opaque's content (0: none) */
	bool placed;	  /**< they are at sink, not in the reply (which ends with their length) */
	uint64_t bc_id;	  /**< in: the call's connection's backchannel id (orpc_peer.bc_id) */
	/** in: the caller can let the compound wait for a READ's, WRITE's or COMMIT's file work
	 * off the lcore (nfs4_compound_proc: io_uring or the helper threads) */
	bool defer;
	/** in: ... and helper threads run the others' (without them only READ and WRITE wait, by
	 * io_uring) */
	bool defer_pool;
	/** out: the compound waits; nfs4_compound_io answered 0 and the caller runs the work
	 * (nfs4_cont_work) and then nfs4_cont_resume. NULL: the reply is made. */
	struct nfs4_cont *cont;
};

struct nfs4_compound;

/** The file work an operation leaves to whoever runs it: the operation's checks are done;
 * nothing in it touches the server's state. */
enum nfs4_work_kind {
	NFS4_WORK_NONE = 0,
	NFS4_WORK_READ,
	NFS4_WORK_WRITE,
	NFS4_WORK_COMMIT,
	NFS4_WORK_CREATE,   /**< CREATE: mkdir, symlink or mknod in fh */
	NFS4_WORK_REMOVE,   /**< REMOVE: name in fh (rmdir when a directory) */
	NFS4_WORK_RENAME,   /**< RENAME: name in fh to name2 in fh2 */
	NFS4_WORK_LINK,	    /**< LINK: the file fh as name in the directory fh2 */
	NFS4_WORK_SETATTR,  /**< SETATTR: sa on fh (a size change truncates) */
	NFS4_WORK_LOOKUP,   /**< LOOKUP: name in the directory fh */
	NFS4_WORK_READDIR,  /**< READDIR: fh's entries from offset (the cookie), encoded */
	NFS4_WORK_READLINK, /**< READLINK: fh's text */
	NFS4_WORK_OPEN,	    /**< OPEN: the file found or made (open_how), checked, its key */
	NFS4_WORK_SPACE,    /**< ALLOCATE, DEALLOCATE (flag: punch): offset, len64 of fh */
	NFS4_WORK_SEEK,	    /**< SEEK (flag: a hole) from offset in fh */
	NFS4_WORK_COPY,	    /**< COPY: len64 from fh at offset to fh2 at offset2 */
	NFS4_WORK_CLONE,    /**< CLONE: as COPY */
};

/** How an OPEN's work finds its file. */
enum nfs4_open_how {
	NFS4_OPENW_FH,	   /**< the current handle is the file (CLAIM_FH, _PREVIOUS, ...) */
	NFS4_OPENW_LOOKUP, /**< name in the directory fh */
	NFS4_OPENW_CREATE, /**< name created in the directory fh (createmode, sa, verf) */
};

struct nfs4_work {
	enum nfs4_work_kind kind;
	struct nfs_fh fh;
	uint64_t offset;
	uint32_t count;		/**< READ: bytes asked; WRITE: bytes given; COMMIT: its count;
				     READDIR: the entries' room in dest (maxcount less 16) */
	const uint8_t *data;	/**< WRITE: the data (in the call) */
	uint8_t *dest;		/**< READ, READDIR, READLINK: where the results go */
	bool placed;		/**< READ: dest is the transport's DDP sink */
	enum nfs_stable stable; /**< WRITE */
	/* CREATE, REMOVE, RENAME, LINK (names point into the call) */
	struct nfs_fh fh2;
	const char *name, *name2; /**< name2: RENAME's new name, CREATE's symlink target */
	uint32_t namelen, namelen2;
	enum nfs_ftype ftype; /**< CREATE */
	struct nfs_sattr sa;  /**< CREATE, SETATTR */
	uint32_t spec1, spec2;
	struct nfs4_bitmap attrset;	  /**< CREATE, SETATTR: the attributes set (the answer's) */
	bool rmdir;			  /**< REMOVE: the name is a directory */
	struct nfs4_bitmap want;	  /**< READDIR: the attributes of each entry */
	uint8_t verf[NFS4_VERIFIER_SIZE]; /**< READDIR: the cookie verifier (in, then out);
					   * OPEN: the exclusive create's verifier */
	enum nfs4_open_how open_how;	  /**< OPEN */
	uint32_t createmode;		  /**< OPEN (createmode4) */
	bool setattr_after;		  /**< OPEN: EXCLUSIVE4_1's attributes, after the create */
	uint32_t access;		  /**< OPEN: the share access to check */
	uint64_t offset2, len64;	  /**< the 4.2 operations' */
	bool flag;			  /**< SPACE: punch a hole; SEEK: for a hole */
	/* what the work answered */
	enum nfs_stat status;
	uint32_t done;	   /**< bytes read, written, or put in dest */
	bool eof;	   /**< READ, READDIR */
	uint32_t nentries; /**< READDIR: entries in dest */
	bool full;	   /**< READDIR: an entry did not fit */
	bool dir_valid;	   /**< LOOKUP, OPEN: dirtype and dirctime are fh's */
	enum nfs_ftype dirtype;
	struct nfs_time dirctime;
	uint32_t v4status;    /**< OPEN: its answer so far (the work's steps are its own) */
	struct nfs_attr attr; /**< OPEN: the file's */
	bool created;	      /**< OPEN: the file is new */
	uint8_t key[16];      /**< OPEN: the file's key (nfs_fs_file_key) */
	uint64_t result64;    /**< SEEK: the offset found; COPY: bytes copied */
	enum nfs_stable committed;
	struct nfs_fh newfh;	  /**< CREATE */
	struct nfs_wcc wcc, wcc2; /**< the directories' (RENAME: from, to) */
};

/** A handler's answer (never on the wire): its file work is in c->work, to be run off the
 * lcore before nfs4_work_end makes its results (c->may_defer was set). */
#define NFS4_DEFER 0xfffffff0u

/** A waiting compound's DDP fields (after nfs4_cont_resume: its reply's tail). */
const struct nfs4_io *nfs4_cont_io(const struct nfs4_cont *t);

/** Do c->work as c->ctx (on any thread: only the backend, c->work and the server's
 * configuration are touched). */
void nfs4_work_run(struct nfs4_compound *c);
/** c->work emptied, for an operation's file work of kind k on fh. */
struct nfs4_work *nfs4_work_start(struct nfs4_compound *c, enum nfs4_work_kind k,
				  const struct nfs_fh *fh);
/** c->work run here, or (c->may_defer) left to the caller: NFS4_DEFER. */
uint32_t nfs4_work(struct nfs4_compound *c, union nfs4_op_resok *r);
/** OPEN's work (nfs4_open.c): find or make the file, check it, its key. */
void nfs4_open_run(struct nfs4_compound *c, struct nfs4_work *w);
/** OPEN after its work, on the lcore: the open state. @return its status */
uint32_t nfs4_open_end(struct nfs4_compound *c, struct nfs4_open_res *res);
/** Another client's read delegation of the name in dir comes back before it changes: true
 * while one is held (the operation answers DELAY). */
bool nfs4_deleg_held_name(struct nfs4_compound *c, const struct nfs_fh *dir,
			  const struct nfs4_ref *name);
/** On the lcore, after nfs4_work_run: the operation's results from c->work.
 * @return its status */
uint32_t nfs4_work_end(struct nfs4_compound *c, union nfs4_op_resok *r);

struct nfs4_compound {
	struct nfs4_server *s;
	struct nfs_ctx *ctx;
	uint32_t minor;
	uint32_t numops, opidx;
	struct nfs4_cfh cur, saved;
	struct nfs4_session *sess; /**< the compound's (SEQUENCE), or NULL */
	uint64_t bc_id;		   /**< the call's connection as a backchannel (0: it is none) */
	struct nfs4_slot *slot;
	bool pseudo_built; /**< the server's pseudo tree is built for this compound */
	/* the current and saved stateids (RFC 8881 §16.2.3.1.2) */
	bool has_cur_sid, has_saved_sid;
	struct nfs4_stateid cur_sid, saved_sid;
	struct nfs4_io *io; /**< NULL: no transport (tests without one, the fuzz target) */
	int32_t ddp_op;	    /**< the operation whose results end with DDP-eligible data, or -1 */
	uint32_t ddp_len;   /**< its length */
	bool ddp_placed;    /**< the data sits in io->sink */
	uint8_t fhbuf[NFS4_FHSIZE]; /**< GETFH's result */
	/** the operations with file work (enum nfs4_work_kind) may answer NFS4_DEFER
	 * (io->defer, io->defer_pool for all but READ and WRITE; once per compound: the
	 * operations after a resumed one run here) */
	bool may_defer;
	struct nfs4_work work; /**< the file work of the operation that answered NFS4_DEFER */
};

typedef uint32_t (*nfs4_handler_t)(struct nfs4_compound *c, union nfs4_op_args *a,
				   union nfs4_op_resok *r);

/* operation flags */
#define NFS4_OPF_NO_SEQ 0x1u	    /**< may come first in a compound without SEQUENCE (alone) */
#define NFS4_OPF_CURFH 0x2u	    /**< needs a current file handle (NOFILEHANDLE) */
#define NFS4_OPF_MINOR2 0x4u	    /**< defined from minor version 2 on (4.1: OP_ILLEGAL) */
#define NFS4_OPF_NEEDS_SESSION 0x8u /**< uses the compound's session (RECLAIM_COMPLETE) */
#define NFS4_OPF_SAVEDFH 0x10u	    /**< needs a saved file handle too (RENAME, LINK) */
#define NFS4_OPF_SETS_SID 0x20u	    /**< sets the current stateid (OPEN, CLOSE, LOCK ...) */
#define NFS4_OPF_SETS_FH 0x40u	    /**< sets the current handle: clears the current stateid */

/** One row of the operation table. */
struct nfs4_op_desc {
	const char *name;
	nfs4_xargs_t xargs; /**< NULL: not decoded (served: never; NOTSUPP) */
	nfs4_xres_t xres;   /**< NULL: status only */
	nfs4_xerr_t xerr;   /**< results on failure (SETATTR, LOCK, LOCKT), or NULL */
	nfs4_handler_t fn;  /**< NULL: NFS4ERR_NOTSUPP */
	uint32_t flags;
};

/** The row of op (3..NFS4_OP_LAST), or NULL for an undefined number. */
const struct nfs4_op_desc *nfs4_op_desc(uint32_t op);

/** Void arguments (GETFH, PUTROOTFH, ...). */
bool_t nfs4_xdr_void_args(XDR *x, union nfs4_op_args *a);

#define NFS4_CB_CALLS 64u /**< backward calls out at once (per server) */
/** a CB_COMPOUND(CB_SEQUENCE, CB_NOTIFY_LOCK) with AUTH_SYS and a 1024-byte owner fits */
#define NFS4_CB_MSG_MAX 1664u
#define NFS4_LOCK_WAITERS 64u /**< blocked v4 lock requests remembered for CB_NOTIFY_LOCK */

struct nfs4_cb_calls;

/** One backward call out (nfs4_cb.c): the done callback's ctx. It names the session and the
 * delegation by id, never by pointer: they may go before the reply comes. */
struct nfs4_cb_call {
	struct nfs4_cb_calls *t; /**< its table */
	bool busy;
	bool compound;	/**< CB_COMPOUND (a recall), else CB_NULL (a probe) */
	bool notify;	/**< the CB_COMPOUND is a CB_NOTIFY_LOCK */
	bool abandoned; /**< unanswered for a lease: its outcome was taken as a timeout */
	uint32_t xid;
	uint64_t bc_id;	  /**< the connection it went on */
	uint64_t sent_ns; /**< when */
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint64_t serial; /**< the delegation recalled */
	struct nfs4_cb_seq_args seq;
	uint32_t len;
	uint8_t msg[NFS4_CB_MSG_MAX]; /**< kept until done: a transport may send it later */
};

/** The calls out, apart from the server: a server destroyed while some are out leaves the
 * table behind (s NULL), and the last done frees it. */
struct nfs4_cb_calls {
	struct nfs4_server *s; /**< NULL: the server is gone */
	uint32_t busy;
	struct nfs4_cb_call c[NFS4_CB_CALLS];
};

/** A lock-owner whose blocking LOCK (READW_LT, WRITEW_LT) was DENIED: when a lock on the file
 * goes, it is sent CB_NOTIFY_LOCK once (RFC 8881 §20.11), then forgotten; after a lease it is
 * forgotten anyway (the client polls too). */
struct nfs4_lock_waiter {
	bool used;
	bool pending; /**< a lock on the file went: the notification is due */
	uint64_t clientid, since_ns;
	struct nfs_fh fh;
	struct nfs_lock_key key;
	uint32_t ownerlen;
	uint8_t owner[NFS4_OPAQUE_LIMIT];
};

struct orpc_bc_table;

struct nfs4_server {
	struct nfs_fs *fs;
	struct nfs4_server_conf conf;
	struct nfs4_state *st;
	uint64_t (*now_ns)(void);
	uint8_t *reply; /**< conf.max_resp bytes: the reply being built */
	uint8_t attrbuf[NFS4_ATTRVALS_MAX];
	struct nfs4_pseudo pseudo;
	union nfs4_op_args args[NFS4_MAX_OPS];
	uint32_t ops[NFS4_MAX_OPS];
	int64_t boot_sec;     /**< wall clock at start: the pseudo file system's times */
	uint8_t *iobuf;	      /**< conf.max_io bytes: READ data, READLINK text, READDIR entries */
	struct nfs4_otab *ot; /**< stateids: opens and locks (nfs4_open.c) */
	struct nfs_lock_mgr *mgr; /**< byte-range locks: NLM's when shared, else own_mgr */
	struct nfs_lock_mgr own_mgr;
	struct nfs_lock_res lock_res; /**< LOCK4denied's holder, until the reply is encoded */
	uint64_t last_sweep_ns;
	struct nfs4_stats stats;
	struct orpc_bc_table *bc; /**< the lcore's backchannels, NULL: no callbacks */
	uint32_t cb_xid;
	struct nfs4_cb_calls *cb;
	struct nfs4_lock_waiter *lkw; /**< NFS4_LOCK_WAITERS */
	struct nfs4_recov rec;	      /**< stable client records and grace */
	/** the records' generation the compound being run needs durable before its reply goes
	 * (a RECLAIM_COMPLETE or OPEN that recorded its client, or an OPEN of a client whose
	 * record is not written yet);
	 * 0: none */
	uint64_t rec_wait;
	struct nfs4_rec_waiter *waiters, **waiters_tail; /**< replies held for a write, in order */
	/** conf.max_io buffers of inline READs that waited, kept for the next ones (a fresh 1 MiB
	 * allocation per READ faulted its pages in each time) */
	uint8_t *rbuf[NFS4_RBUF_KEEP];
	uint32_t nrbuf;
	/** changes (WRITE, SETATTR, CREATE, REMOVE, RENAME, LINK) waiting for their file work:
	 * no delegation is granted meanwhile (their delegation check is behind them) */
	uint32_t changes_waiting;
};

/* ---- stable client records and grace (nfs4_compound.c over nfs4_recover.c) ---- */

/**
 * The grace rule (nfs4_recover.h) for the compound's client: reclaim, an OPEN CLAIM_PREVIOUS
 * or a LOCK reclaim. @return NFS4_OK, NFS4ERR_GRACE, NFS4ERR_NO_GRACE (SERVERFAULT without a
 * session)
 */
uint32_t nfs4_grace_check(struct nfs4_compound *c, bool reclaim);
/** The client got state (a successful OPEN): its owner is recorded if it is not yet, and the
 * compound's reply waits for the record's write (s->rec_wait). */
void nfs4_client_opened(struct nfs4_server *s, struct nfs4_client *clp);
/** The client sent RECLAIM_COMPLETE: a loaded owner's record is ACTIVE now; any other client
 * is recorded, and the compound's reply waits for the write as for a first OPEN. */
void nfs4_client_reclaimed(struct nfs4_server *s, struct nfs4_client *clp);

/* ---- the backchannel and delegations (nfs4_cb.c) ---- */

/** The session's backchannel is now the connection bc_id (CREATE_SESSION, BIND_CONN_TO_SESSION):
 * a CB_NULL probes it (PROBING; its answer makes it UP or DOWN). */
void nfs4_cb_bind(struct nfs4_server *s, struct nfs4_session *sess, uint64_t bc_id);
/** SEQUENCE's sr_status_flags for the backchannel and delegations of sess's client:
 * CB_PATH_DOWN_SESSION, CB_PATH_DOWN, RECALLABLE_STATE_REVOKED. */
uint32_t nfs4_cb_seq_flags(struct nfs4_server *s, struct nfs4_session *sess);
/** The call table (at create), and its release (at destroy). @return 0, -ENOMEM */
int nfs4_cb_init(struct nfs4_server *s);
void nfs4_cb_fini(struct nfs4_server *s);
/** Move the recalls on: send those waiting for a slot, revoke those past a lease. */
void nfs4_cb_sweep(struct nfs4_server *s, uint64_t now);
/**
 * Someone other than self (NULL: an NFSv3 caller) is about to change the file key: every read
 * delegation of another client on it is recalled (CB_RECALL) or, past the rules, revoked.
 * @return true while one is still held (the caller answers DELAY / JUKEBOX)
 */
bool nfs4_deleg_conflict(struct nfs4_server *s, const struct nfs_lock_key *key,
			 const struct nfs4_client *self);
/** OPEN's delegation for clp on the file (RFC 8881 §18.16.3): READ into res (a delegation of
 * the client's on the file is handed again) or NONE / NONE_EXT with its reason. */
void nfs4_deleg_offer(struct nfs4_compound *c, struct nfs4_client *clp, const struct nfs_fh *fh,
		      const struct nfs_lock_key *key, const struct nfs4_open_args *o,
		      struct nfs4_open_res *res);
/** Lock state l's blocking LOCK was DENIED: its owner waits for CB_NOTIFY_LOCK (when its client
 * has a backchannel). */
void nfs4_lock_wait(struct nfs4_server *s, const struct nfs4_stid *l);
/** Locks on the file key (NULL: any file) went: the owners waiting on it are due a
 * CB_NOTIFY_LOCK, sent now when send, else by the next sweep. */
void nfs4_lock_released(struct nfs4_server *s, const struct nfs_lock_key *key, bool send);
/** Will the client be told of freed locks (OPEN4_RESULT_MAY_NOTIFY_LOCK)? */
bool nfs4_cb_may_notify(struct nfs4_server *s, struct nfs4_client *clp);
/** A delegation stateid is going (DELEGRETURN, FREE_STATEID, its client): accounting. */
void nfs4_deleg_forget(struct nfs4_server *s, struct nfs4_stid *d);
uint32_t nfs4_op_delegreturn(struct nfs4_compound *c, union nfs4_op_args *a,
			     union nfs4_op_resok *r);
uint32_t nfs4_op_backchannel_ctl(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r);
/** The state of serial in the table, or NULL (nfs4_open.c). */
struct nfs4_stid *nfs4_stid_by_serial(struct nfs4_server *s, uint64_t serial);
/** Call fn on every state of the table (nfs4_open.c); fn must not free any. */
void nfs4_stid_each(struct nfs4_server *s, void (*fn)(void *arg, struct nfs4_stid *st), void *arg);

/* handlers: sessions (nfs4_ops.c) */
uint32_t nfs4_op_exchange_id(struct nfs4_compound *c, union nfs4_op_args *a,
			     union nfs4_op_resok *r);
uint32_t nfs4_op_create_session(struct nfs4_compound *c, union nfs4_op_args *a,
				union nfs4_op_resok *r);
uint32_t nfs4_op_destroy_session(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r);
uint32_t nfs4_op_destroy_clientid(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r);
uint32_t nfs4_op_bind_conn(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_reclaim_complete(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r);

/* handlers: the namespace (nfs4_ns.c) */
uint32_t nfs4_op_putrootfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_putfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_getfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_savefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_restorefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_lookup(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_lookupp(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_access(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_secinfo_no_name(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r);

/* handlers: open state and locks (nfs4_open.c, nfs4_lock.c) */
uint32_t nfs4_op_open(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_close(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_open_downgrade(struct nfs4_compound *c, union nfs4_op_args *a,
				union nfs4_op_resok *r);
uint32_t nfs4_op_test_stateid(struct nfs4_compound *c, union nfs4_op_args *a,
			      union nfs4_op_resok *r);
uint32_t nfs4_op_free_stateid(struct nfs4_compound *c, union nfs4_op_args *a,
			      union nfs4_op_resok *r);
uint32_t nfs4_op_lock(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_lockt(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_locku(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);

/* handlers: files (nfs4_file.c) */
uint32_t nfs4_op_read(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_write(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_commit(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_create(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_remove(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_rename(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_link(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_readdir(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_readlink(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_setattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_verify(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_nverify(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_secinfo(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_putpubfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);

/* handlers: NFSv4.2 (nfs4_v42.c) */
uint32_t nfs4_op_allocate(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_deallocate(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_seek(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_copy(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_clone(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);

/** READDIR of the current pseudo directory (nfs4_ns.c): entries within limit bytes. */
uint32_t nfs4_readdir_pseudo(struct nfs4_compound *c, const struct nfs4_readdir_args *ra,
			     uint32_t limit, struct nfs4_readdir_res *o);
/** component4 rules (RFC 8881 §18.13.3): INVAL, NAMETOOLONG, BADNAME, or NFS4_OK. */
uint32_t nfs4_check_name(const struct nfs4_ref *n);
/** Make h the current file handle (a backend handle). */
void nfs4_set_cur_real(struct nfs4_compound *c, const struct nfs_fh *fh);

/* handlers: attributes (nfs4_attr.c) */
uint32_t nfs4_op_getattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
/** The attributes served (supported_attrs). */
void nfs4_supported_attrs(struct nfs4_bitmap *b);
/** The attributes SETATTR, OPEN and CREATE can set. */
void nfs4_settable_attrs(struct nfs4_bitmap *b);
/** Those an EXCLUSIVE4_1 OPEN can set (suppattr_exclcreat): mode, owner, owner_group. */
void nfs4_exclcreat_attrs(struct nfs4_bitmap *b);
/**
 * A fattr4 to set, as the backend's sattr: size, mode, owner, owner_group, time_access_set,
 * time_modify_set. @return NFS4_OK, ATTRNOTSUPP (a bit not served), INVAL (a read-only one),
 * BADXDR (the values do not decode as the mask says), BADOWNER (an owner not numeric)
 */
uint32_t nfs4_fattr_to_sattr(const struct nfs4_server *s, const struct nfs4_fattr *f,
			     struct nfs_sattr *sa);
/** The current object's attributes in want as an attrlist4 into buf (cap bytes), mask out.
 * @return an nfsstat4 (RESOURCE when they do not fit) */
uint32_t nfs4_attr_encode(struct nfs4_compound *c, const struct nfs4_bitmap *want,
			  struct nfs4_bitmap *mask, uint8_t *buf, uint32_t cap, uint32_t *len);
/** One READDIR entry's fattr4 (bitmap and attrlist4) onto x, from the backend's attributes
 * (attr NULL: the entry's attributes could not be read; only rdattr_error goes).
 * @return FALSE when x is full */
bool_t nfs4_attr_entry(struct nfs4_compound *c, const struct nfs_fh *fh,
		       const struct nfs_attr *attr, uint32_t rderr, const struct nfs4_bitmap *want,
		       XDR *x);

/** A backend status as nfsstat4. */
uint32_t nfs4_stat_from_nfs(enum nfs_stat s);
/** The pseudo file system of this compound (built on first need). */
struct nfs4_pseudo *nfs4_compound_pseudo(struct nfs4_compound *c);

/* ---- stateids (nfs4_open.c), for the operations that take one ---- */

/** Bits of what a stateid may name, for nfs4_sid_find. */
#define NFS4_SID_OPEN (1u << NFS4_STID_OPEN)
#define NFS4_SID_LOCK (1u << NFS4_STID_LOCK)
#define NFS4_SID_DELEG (1u << NFS4_STID_DELEG)

/**
 * The state a stateid names, for the compound's client: the check of enum nfs4_sid_state
 * (nfs4_open.h), each state counted (nfs4_otab_stats). The current stateid is replaced by the
 * compound's (BAD_STATEID when there is none); then STALE_STATEID (another run's), BAD_STATEID
 * (unknown, freed, another client's, a special one, not of a type in types, not of fh when fh
 * is given), EXPIRED (its client's lease ran out), and with check_seqid BAD_STATEID for a
 * seqid ahead, OLD_STATEID for one behind (0 means the latest: RFC 8881 §8.2.2).
 */
uint32_t nfs4_sid_find(struct nfs4_compound *c, const struct nfs4_stateid *sid, uint32_t types,
		       const struct nfs_fh *fh, bool check_seqid, struct nfs4_stid **out);
/**
 * May I/O go on fh with sid? The anonymous and READ bypass stateids are let through unless a
 * share reservation denies it (LOCKED; bypass reads ignore them); an open or lock stateid
 * must be of this file (BAD_STATEID), and writes need an open for writing (OPENMODE).
 */
uint32_t nfs4_sid_check_io(struct nfs4_compound *c, const struct nfs4_stateid *sid,
			   const struct nfs_fh *fh, bool write);
/** A new state of owner on the file (fh, key), seqid 1. NULL when memory is short. */
struct nfs4_stid *nfs4_stid_new(struct nfs4_server *s, struct nfs4_owner *o, enum nfs4_stid_type t,
				const struct nfs_fh *fh, const struct nfs_lock_key *key);
void nfs4_stid_free(struct nfs4_server *s, struct nfs4_stid *st);
/** The next seqid of st (skipping 0 on wrap); the stateid into out. */
void nfs4_stid_bump(struct nfs4_stid *st, struct nfs4_stateid *out);
/** The client's owner of that kind and name, made when create. NULL: none (or no memory). */
struct nfs4_owner *nfs4_owner_get(struct nfs4_server *s, struct nfs4_client *clp, bool lock,
				  const struct nfs4_ref *name, bool create);
/** An owner just made that got no state: it goes (with its client's state block if empty). */
void nfs4_owner_forget(struct nfs4_server *s, struct nfs4_owner *o);
/** The client's state of owner o on the file key, or NULL. */
struct nfs4_stid *nfs4_stid_of(struct nfs4_client *clp, const struct nfs4_owner *o,
			       const struct nfs_lock_key *key);
/** Does lock state l hold a lock now? (nfs4_lock.c) */
bool nfs4_lock_state_holds(struct nfs4_server *s, const struct nfs4_stid *l);
/** Release every lock of lock state l (its open is closing). */
void nfs4_lock_state_release(struct nfs4_server *s, const struct nfs4_stid *l);
/** Does the compound's client hold an open or lock state on the file fh? */
bool nfs4_fh_has_state(struct nfs4_compound *c, const struct nfs_fh *fh);
/** Make st the compound's current stateid. */
void nfs4_set_cur_sid(struct nfs4_compound *c, const struct nfs4_stateid *sid);

#endif /* NFS4_INT_H */
