/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nlm_svc.h - file locking for NFSv3 clients: the Network Lock Manager (program 100021,
 * version 4, XNFS §10/§14) over the lock manager (nfs/lock), and the Network Status Monitor
 * (program 100024 version 1, XNFS §11) that tells clients when droce-nfsd restarted and hears
 * when they did.
 *
 * A transport's orpc_svc serving these programs carries a struct nlm_server in its ctx. One
 * nlm_server per process: its lock manager is the one every lcore's requests go to (today
 * droce-nfsd has one lcore and calls it directly; nfs_lock.h says how it becomes messages).
 *
 * Outgoing calls (nlm_cb.c): GRANTED to a client's lockd when a blocked lock is granted, the
 * *_RES answers to *_MSG requests, and SM_NOTIFY to every monitored host after a restart.
 * Each finds the peer's port through the peer's portmapper (PMAP GETPORT over TCP, port 111)
 * and calls over TCP (rpc/clnt), polled from nlm_server_poll(); each is a small state machine.
 */
#ifndef NLM_SVC_H
#define NLM_SVC_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs_fs.h"
#include "nfs_lock.h"
#include "nlm_xdr.h"
#include "orpc_clnt.h"
#include "orpc_svc.h"

#define NLM_PORT 4045u /**< knfsd's lockd default (nlm_tcpport/nlm_udpport) */
#define NSM_PORT 4046u
#define NLM_GRACE_DEFAULT_S 90u
#define NSM_MAX_HOSTS 256u
#define NLM_CB_MAX 64u
#define NLM_CB_ARGS_MAX 1536u
#define NLM_HELPERS 2u /**< helper threads: a key lookup need not wait behind a list's fsync */

extern const struct orpc_program nlm_program;
extern const struct orpc_program nsm_program;

/** A monitored host (statedir/nsm.hosts: "address<TAB>name" lines). */
struct nsm_host {
	char addr[64];	/**< where its statd is (its portmapper's address) */
	char name[256]; /**< its caller_name or mon_name */
	bool by_mon;	/**< added by SM_MON (SM_UNMON_ALL removes these) */
};

#define NLM_CB_STATE_LIST(X)                                                                       \
	X(FREE)	      /**< slot unused */                                                          \
	X(PORT_START) /**< to ask the peer's portmapper for the program's TCP port */              \
	X(PORT_WAIT)  /**< PMAP GETPORT in flight */                                               \
	X(CALL_START) /**< to connect to that port and send the call */                            \
	X(CALL_WAIT)  /**< the call in flight */                                                   \
	X(DONE)	      /**< answered: act on the result, then FREE */                               \
	X(ERR_NOPORT) /**< the portmapper did not answer, or knows no such program (port 0) */     \
	X(ERR_CALL)   /**< the call was not answered, or not with SUCCESS */

#define NLM_CB_STATE_ENUM_(n) NLM_CB_##n,
enum nlm_cb_state { NLM_CB_STATE_LIST(NLM_CB_STATE_ENUM_) NLM_CB_NUM_STATES };
const char *nlm_cb_state_name(enum nlm_cb_state s);

/** What an outgoing call is for (what DONE does with its result). */
enum nlm_cb_kind {
	NLM_CB_GRANTED, /**< GRANTED: a client that answers DENIED gets its lock taken back */
	NLM_CB_RES,	/**< a *_RES for a *_MSG request: nothing to do */
	NLM_CB_NOTIFY,	/**< SM_NOTIFY after our restart: the host leaves the monitor list */
};

/** One outgoing call. */
struct nlm_cb {
	enum nlm_cb_state state;
	enum nlm_cb_kind kind;
	char ip[64];
	uint32_t prog, vers, proc;
	uint8_t args[NLM_CB_ARGS_MAX]; /**< the encoded arguments */
	uint32_t args_len;
	uint16_t port;
	bool answered;		     /**< the clnt's done callback ran */
	int err;		     /**< its error (0: a reply came) */
	uint32_t reply_stat, result; /**< accept_stat; GETPORT's port or nlm4_res's stat */
	struct orpc_clnt clnt;
	bool clnt_up;
	/* GRANTED: the lock, to take back when the client refuses it */
	struct nfs_lock_key file;
	char host[NFS_LOCK_HOST_MAX + 1];
	uint32_t host_len;
	int32_t svid;
	uint8_t oh[NFS_LOCK_OH_MAX];
	uint32_t oh_len;
	uint64_t off, len;
	bool exclusive;
};

/** A job of the lock manager's helper threads (nlm_server.pool): the monitor list's write
 * (nsm_svc.c), or the key of a call's file looked up (nlm_svc.c). */
struct nlm_job {
	void (*work)(struct nlm_job *j); /**< on a helper thread */
	void (*done)(struct nlm_job *j); /**< back on the lcore, from nlm_server_poll */
	struct nlm_job *next;		 /**< on nlm_server.ready */
};

/** A LOCK or SM_MON reply held until the monitor list that names its host is durable. */
struct nsm_held {
	struct nsm_held *next;
	struct orpc_pending *p;
	uint64_t gen; /**< the list's generation that must be written first */
};

struct nsm_write_job;

/*
 * The monitor list's writer (nsm_svc.c). statedir/nsm.hosts is replaced (nfs_state_write:
 * write, fsync, rename) by one of the lock manager's helper threads (nlm_server.pool), never
 * on the lcore; writes coalesce by generation, as NFSv4's client records do (nfs4_recover.h): while
 * one is in flight, changes only bump gen, and one write of the newest list follows when it
 * ends. A LOCK (or SM_MON, SM_UNMON, SM_UNMON_ALL) that changed the list has its reply held
 * until a write of that generation has ended (gen_done), as Linux's lockd waits for statd's
 * SM_MON before it grants: a client never holds a lock that a crash would not tell it to
 * reclaim. Not held
 * (counted unheld): over UDP (no connection holds the call), a *_MSG request (its answer is a
 * call of its own), or without memory. A write that fails is counted (write_errors) and its
 * replies go anyway: the lock is held, and a peer is never left hanging.
 * Without the helper threads (they could not be started) the write runs on the lcore, counted
 * in sync_writes.
 */
struct nsm_writer {
	struct nsm_write_job *job; /**< the one write buffer (in flight while busy) */
	bool busy;
	uint64_t gen;	   /**< bumped by every change of the list */
	uint64_t gen_done; /**< the newest generation whose write ended */
	struct nsm_held *held, **held_tail;
};

struct nlm_stats {
	uint64_t nlm_proc[NLM4_NPROCS];
	uint64_t nlm_stat[NLM4_NSTATS];
	uint64_t nsm_proc[NSM_NPROCS];
	uint64_t cb_state[NLM_CB_NUM_STATES]; /**< entries into each state */
	uint64_t cb_dropped;		      /**< no free slot */
	uint64_t granted_refused;	      /**< GRANTED answered DENIED: lock taken back */
	uint64_t notify_dropped;   /**< locks and waiters dropped by SM_NOTIFY/FREE_ALL */
	uint64_t nsm_writes;	   /**< monitor list writes by the helper thread */
	uint64_t nsm_sync_writes;  /**< ... on the lcore (no helper thread) */
	uint64_t nsm_write_errors; /**< writes that failed */
	uint64_t nsm_held;	   /**< replies held until their host's entry was durable */
	uint64_t nsm_unheld;	   /**< replies that could not wait (UDP, *_MSG, no memory) */
	uint64_t key_deferred;	   /**< calls whose file a helper thread looked up */
	uint64_t key_inline;	   /**< ... that the lcore looked up (UDP, no helper or memory) */
};

struct nlm_conf {
	uint32_t grace_s;    /**< grace period after start (0: none) */
	const char *my_name; /**< our name in SM_NOTIFY: the address clients mounted */
	uint32_t cb_timeout_ms;
	nfs_lock_clock_t now_ms; /**< tests; NULL: CLOCK_MONOTONIC */
	bool no_notify;		 /**< tests: do not send SM_NOTIFY at start */
};

struct nlm_server {
	struct nfs_fs *fs;
	struct nlm_conf conf;
	char my_name[256];
	struct nfs_lock_mgr mgr;
	int32_t nsm_state; /**< odd while up (XNFS §11.3), bumped by each start */
	struct nsm_host hosts[NSM_MAX_HOSTS];
	uint32_t nhosts;
	struct nsm_writer wr;
	/* helper threads (NLM_HELPERS): the monitor list's writes and files' keys
	 * (open_by_handle_at, fstat), so that the lcore never blocks in a system call; NULL when
	 * they could not start (that work runs on the lcore, counted) */
	struct nfs_pool *pool;
	struct nlm_job *ready, **ready_tail; /**< jobs that ran on the lcore, done not yet run */
	/* while a call whose key a helper looked up runs on (nlm_svc.c key_done): its pending
	 * call, and the key */
	struct orpc_pending *cur_pending;
	const uint8_t *cur_key;
	enum nfs_stat cur_key_st;
	struct nlm_cb cbs[NLM_CB_MAX];
	struct nfs_lock_res res; /**< the last result: TEST's holder is encoded from here */
	struct nlm_stats st;
};

/**
 * Start: the lock manager (grace period), NSM's state bumped in statedir/nsm.state, and
 * SM_NOTIFY queued to every host in statedir/nsm.hosts.
 * @return 0, or -errno with err set (the state directory could not be written)
 */
int nlm_server_init(struct nlm_server *s, struct nfs_fs *fs, const struct nlm_conf *conf, char *err,
		    size_t errlen);

/** Make progress on outgoing calls and the monitor list's write, and send the replies that
 * waited for it (from the owner lcore's loop). @return calls, writes and replies active */
uint32_t nlm_server_poll(struct nlm_server *s);

/** An fd that becomes readable when the monitor list's write ended (-1: none), for a caller
 * that sleeps in epoll. */
int nlm_server_event_fd(const struct nlm_server *s);

/** Before the transports go: wait for the monitor list's write (the newest list written) and
 * send every held reply. */
void nlm_server_flush(struct nlm_server *s);

/** Flush, then free everything. */
void nlm_server_fini(struct nlm_server *s);

/* ---- shared by nlm_svc.c, nsm_svc.c and nlm_cb.c ---- */

/** Queue an outgoing call of args (encoded at once with xargs) to ip.
 * @return the slot, or NULL when every slot is busy or the arguments do not encode */
struct nlm_cb *nlm_cb_queue(struct nlm_server *s, enum nlm_cb_kind kind, const char *ip,
			    uint32_t prog, uint32_t vers, uint32_t proc, xdrproc_t xargs,
			    const void *args);

/** Add a host to the monitor list (written by the helper when it changes).
 * @return 1: added (its write is under way: nsm_hold), 0: there already, or -errno */
int nsm_monitor(struct nlm_server *s, const char *addr, const char *name, bool by_mon);

/** In a handler whose call added a host (nsm_monitor said 1): hold the reply until the list
 * is durable. @return true: held (answer ORPC_DEFER), false: answer now (counted unheld when
 * it could not wait) */
bool nsm_hold(struct nlm_server *s, struct orpc_req *r, void *args, void *res);

/** NSM's part of nlm_server_poll (after the helpers' jobs): the next write, held replies.
 * @return writes and replies still active */
uint32_t nsm_poll(struct nlm_server *s);

/** Run a job on the helpers, or, when it cannot go there, on the lcore now (its done at the
 * next poll). @return true: on a helper */
bool nlm_job_submit(struct nlm_server *s, struct nlm_job *j);

/** The helpers' finished jobs, and those that ran on the lcore: each one's done.
 * @return how many */
uint32_t nlm_jobs_poll(struct nlm_server *s);

/** NSM's part of nlm_server_fini, once the helpers stopped: the write buffer goes. */
void nsm_fini(struct nlm_server *s);

/** NSM's part of nlm_server_flush. */
void nsm_flush(struct nlm_server *s);

/** Drop every lock of a host named by its name or address (SM_NOTIFY, FREE_ALL).
 * @return locks and waiters dropped */
uint32_t nlm_free_host(struct nlm_server *s, const char *name, uint32_t len);

/** NSM's start (nsm_svc.c): bump statedir/nsm.state, load the monitor list, queue SM_NOTIFY
 * to each host. @return 0 or -errno (with err) */
int nsm_start(struct nlm_server *s, char *err, size_t errlen);

/** An SM_NOTIFY to addr was answered: the host leaves the monitor list. */
void nsm_notified(struct nlm_server *s, const char *addr);

/** The peer's address as a literal ("" when unknown). */
void nlm_peer_str(const struct orpc_req *r, char *buf, size_t len);

#endif /* NLM_SVC_H */
