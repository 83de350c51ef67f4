/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nlm_xdr.h - the Network Lock Manager protocol version 4 (X/Open XNFS, "Protocols for
 * Interworking: XNFS, Version 3W", chapter 10 and 14: program 100021, version 4, the one that
 * goes with NFSv3) and the Network Status Monitor (XNFS chapter 11: program 100024,
 * version 1), arguments and results as libtirpc XDR routines in both directions, like
 * nfs3_xdr.h: XDR_FREE does nothing and decoding allocates nothing (netobjs and strings are
 * (pointer, length) into the message, not NUL-terminated; an xdrmem stream is needed).
 *
 * Decoder limits: netobj ≤ NLM_NETOBJ_MAX (1024, MAXNETOBJ_SZ), caller_name and NLM4's
 * notify name ≤ NLM_MAXSTRLEN (1024, LM_MAXSTRLEN), NSM names ≤ NSM_MAXSTRLEN (1024);
 * bools 0 or 1; nlm4_stats, fsh4_mode, fsh4_access and sm res within the spec's values.
 */
#ifndef NLM_XDR_H
#define NLM_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#define NLM_PROG 100021u
#define NLM_VERS4 4u
#define NLM_NETOBJ_MAX 1024u /**< MAXNETOBJ_SZ */
#define NLM_MAXSTRLEN 1024u  /**< LM_MAXSTRLEN */

#define NSM_PROG 100024u
#define NSM_VERS 1u
#define NSM_MAXSTRLEN 1024u /**< SM_MAXSTRLEN */
#define NSM_PRIV_SIZE 16u

/** NLM v4 procedures (XNFS §14.1; 16..19 are not defined). */
#define NLM4_PROC_LIST(X)                                                                          \
	X(NULL, 0)                                                                                 \
	X(TEST, 1)                                                                                 \
	X(LOCK, 2)                                                                                 \
	X(CANCEL, 3)                                                                               \
	X(UNLOCK, 4)                                                                               \
	X(GRANTED, 5)                                                                              \
	X(TEST_MSG, 6)                                                                             \
	X(LOCK_MSG, 7)                                                                             \
	X(CANCEL_MSG, 8)                                                                           \
	X(UNLOCK_MSG, 9)                                                                           \
	X(GRANTED_MSG, 10)                                                                         \
	X(TEST_RES, 11)                                                                            \
	X(LOCK_RES, 12)                                                                            \
	X(CANCEL_RES, 13)                                                                          \
	X(UNLOCK_RES, 14)                                                                          \
	X(GRANTED_RES, 15)                                                                         \
	X(SHARE, 20)                                                                               \
	X(UNSHARE, 21)                                                                             \
	X(NM_LOCK, 22)                                                                             \
	X(FREE_ALL, 23)

#define NLM4_PROC_ENUM_(n, v) NLM4_PROC_##n = v,
enum nlm4_proc { NLM4_PROC_LIST(NLM4_PROC_ENUM_) NLM4_NPROCS = 24 };
const char *nlm4_proc_name(uint32_t proc);

/** nlm4_stats (XNFS §14.2) */
#define NLM4_STAT_LIST(X)                                                                          \
	X(GRANTED, 0)                                                                              \
	X(DENIED, 1)                                                                               \
	X(DENIED_NOLOCKS, 2)                                                                       \
	X(BLOCKED, 3)                                                                              \
	X(DENIED_GRACE_PERIOD, 4)                                                                  \
	X(DEADLCK, 5)                                                                              \
	X(ROFS, 6)                                                                                 \
	X(STALE_FH, 7)                                                                             \
	X(FBIG, 8)                                                                                 \
	X(FAILED, 9)

#define NLM4_STAT_ENUM_(n, v) NLM4_##n = v,
enum nlm4_stats { NLM4_STAT_LIST(NLM4_STAT_ENUM_) NLM4_NSTATS };
const char *nlm4_stat_name(uint32_t st);

/** netobj, or a string: into the message (decode) or the caller's storage (encode). */
struct nlm_obj {
	const uint8_t *b;
	uint32_t len;
};

/** nlm4_lock */
struct nlm4_lock {
	struct nlm_obj caller_name; /**< string<LM_MAXSTRLEN> */
	struct nlm_obj fh;
	struct nlm_obj oh;
	int32_t svid;
	uint64_t l_offset, l_len;
};

/** nlm4_holder */
struct nlm4_holder {
	bool exclusive;
	int32_t svid;
	struct nlm_obj oh;
	uint64_t l_offset, l_len;
};

/** nlm4_testargs (TEST, TEST_MSG, GRANTED, GRANTED_MSG) */
struct nlm4_testargs {
	struct nlm_obj cookie;
	bool exclusive;
	struct nlm4_lock alock;
};

/** nlm4_lockargs (LOCK, LOCK_MSG, NM_LOCK) */
struct nlm4_lockargs {
	struct nlm_obj cookie;
	bool block, exclusive;
	struct nlm4_lock alock;
	bool reclaim;
	int32_t state;
};

/** nlm4_cancargs */
struct nlm4_cancargs {
	struct nlm_obj cookie;
	bool block, exclusive;
	struct nlm4_lock alock;
};

/** nlm4_unlockargs */
struct nlm4_unlockargs {
	struct nlm_obj cookie;
	struct nlm4_lock alock;
};

/** nlm4_testres: holder when stat is NLM4_DENIED */
struct nlm4_testres {
	struct nlm_obj cookie;
	uint32_t stat; /**< enum nlm4_stats */
	struct nlm4_holder holder;
};

/** nlm4_res */
struct nlm4_res {
	struct nlm_obj cookie;
	uint32_t stat; /**< enum nlm4_stats */
};

/** nlm4_share: fsh4_mode 0..3, fsh4_access 0..3 */
struct nlm4_share {
	struct nlm_obj caller_name;
	struct nlm_obj fh;
	struct nlm_obj oh;
	uint32_t mode, access;
};

struct nlm4_shareargs {
	struct nlm_obj cookie;
	struct nlm4_share share;
	bool reclaim;
};

struct nlm4_shareres {
	struct nlm_obj cookie;
	uint32_t stat;
	int32_t sequence;
};

/** nlm4_notify (FREE_ALL) */
struct nlm4_notify {
	struct nlm_obj name;
	int32_t state;
};

bool_t xdr_nlm4_testargs(XDR *xdrs, struct nlm4_testargs *p);
bool_t xdr_nlm4_lockargs(XDR *xdrs, struct nlm4_lockargs *p);
bool_t xdr_nlm4_cancargs(XDR *xdrs, struct nlm4_cancargs *p);
bool_t xdr_nlm4_unlockargs(XDR *xdrs, struct nlm4_unlockargs *p);
bool_t xdr_nlm4_testres(XDR *xdrs, struct nlm4_testres *p);
bool_t xdr_nlm4_res(XDR *xdrs, struct nlm4_res *p);
bool_t xdr_nlm4_shareargs(XDR *xdrs, struct nlm4_shareargs *p);
bool_t xdr_nlm4_shareres(XDR *xdrs, struct nlm4_shareres *p);
bool_t xdr_nlm4_notify(XDR *xdrs, struct nlm4_notify *p);

/* ---- NSM (XNFS §11) ---- */

/** NSM procedures */
#define NSM_PROC_LIST(X)                                                                           \
	X(NULL, 0)                                                                                 \
	X(STAT, 1)                                                                                 \
	X(MON, 2)                                                                                  \
	X(UNMON, 3)                                                                                \
	X(UNMON_ALL, 4)                                                                            \
	X(SIMU_CRASH, 5)                                                                           \
	X(NOTIFY, 6)

#define NSM_PROC_ENUM_(n, v) NSM_PROC_##n = v,
enum nsm_proc { NSM_PROC_LIST(NSM_PROC_ENUM_) NSM_NPROCS };
const char *nsm_proc_name(uint32_t proc);

enum nsm_res { NSM_STAT_SUCC = 0, NSM_STAT_FAIL = 1 };

/** sm_name (SM_STAT) */
struct nsm_name {
	struct nlm_obj mon_name;
};

/** my_id: who to call back (RPC program, version, procedure at my_name) */
struct nsm_my_id {
	struct nlm_obj my_name;
	int32_t my_prog, my_vers, my_proc;
};

/** mon_id (SM_UNMON) */
struct nsm_mon_id {
	struct nlm_obj mon_name;
	struct nsm_my_id my_id;
};

/** mon (SM_MON) */
struct nsm_mon {
	struct nsm_mon_id mon_id;
	uint8_t priv[NSM_PRIV_SIZE];
};

/** sm_stat_res (SM_STAT, SM_MON) */
struct nsm_stat_res {
	uint32_t res_stat; /**< enum nsm_res */
	int32_t state;
};

/** sm_stat (SM_UNMON, SM_UNMON_ALL) */
struct nsm_stat {
	int32_t state;
};

/** stat_chge (SM_NOTIFY) */
struct nsm_stat_chge {
	struct nlm_obj mon_name;
	int32_t state;
};

bool_t xdr_nsm_name(XDR *xdrs, struct nsm_name *p);
bool_t xdr_nsm_my_id(XDR *xdrs, struct nsm_my_id *p);
bool_t xdr_nsm_mon_id(XDR *xdrs, struct nsm_mon_id *p);
bool_t xdr_nsm_mon(XDR *xdrs, struct nsm_mon *p);
bool_t xdr_nsm_stat_res(XDR *xdrs, struct nsm_stat_res *p);
bool_t xdr_nsm_stat(XDR *xdrs, struct nsm_stat *p);
bool_t xdr_nsm_stat_chge(XDR *xdrs, struct nsm_stat_chge *p);

#endif /* NLM_XDR_H */
