/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_fixture.h - what the NFSv4.1 tests (test_nfs4.c, test_nfs4_open.c, test_nfs4_deleg.c,
 * test_nfs42.c, test_nfs4_rdma.c) share: one export (a/ with file and dir/) under a fresh
 * directory in /tmp, an NFSv4.1 server on it with a test clock (and, for the tests that go
 * through the RPC program, an NFSv3 server beside it), COMPOUNDs built with the server's own XDR
 * routines (by the operation table) and run through nfs4_compound(), their replies decoded, the
 * usual compounds (one operation on a handle, OPEN and GETFH), and sessions made by EXCHANGE_ID
 * and CREATE_SESSION. Needs root for the backend (open_by_handle_at).
 */
#ifndef NFS4_FIXTURE_H
#define NFS4_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_int.h"

/* every attribute of word 1 but the write-only time_access_set (48) and time_modify_set (54),
 * which GETATTR refuses with INVAL */
#define ALL_READABLE_W1 0xffbeffffu

extern char n4f_base[128], n4f_statedir[160], n4f_exp_a[160];
extern struct nfs_fs *n4f_fs;
extern struct nfs4_server *n4f_srv;
extern struct nfs_ctx n4f_ctx;
extern uint64_t n4f_now_ns; /**< the server's clock */
extern struct nfs4_server_conf n4f_conf;
/** The backchannel id (orpc_bc.h) of the connection the compounds come on; 0: none. */
extern uint64_t n4f_bc_id;

struct n4f_cb {
	uint8_t buf[1u << 17];
	XDR x;
	uint32_t nops;
	uint32_t len; /**< set by cb_end: the compound is complete, run it again as it is */
};

struct n4f_reply {
	uint32_t status, n, len;
	struct nfs4_compound_res_hdr h;
	struct nfs4_op_res r[16];
	uint8_t bytes[1u << 17];
};

struct n4f_sess {
	uint64_t clientid;
	uint8_t id[NFS4_SESSIONID_SIZE];
	uint32_t seq[8]; /* next sequence id per slot */
};

uint64_t n4f_clock(void);
void n4f_start(struct n4f_cb *b, uint32_t minor, const char *tag);
void n4f_op(struct n4f_cb *b, uint32_t op, union nfs4_op_args *a);
uint32_t n4f_end(struct n4f_cb *b, uint32_t taglen);
void n4f_parse(const uint8_t *p, uint32_t len, struct n4f_reply *out);
void n4f_run_raw(const uint8_t *args, uint32_t len, struct n4f_reply *out);
void n4f_run(struct n4f_cb *b, struct n4f_reply *out);
uint32_t n4f_exchange_id(const char *owner, const char *verf, uint32_t flags,
			 struct nfs4_exchange_id_res *res);
void n4f_default_attrs(struct nfs4_chan_attrs *c);
uint32_t n4f_create_session(uint64_t clientid, uint32_t seq, struct nfs4_create_session_res *out);
void n4f_new_session(const char *owner, struct n4f_sess *s);
/** RECLAIM_COMPLETE on s: a client may make new state only after it (RFC 8881 §18.51.3). */
void n4f_reclaim_complete(struct n4f_sess *s);
/* a client and session that may make state: EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE */
void n4f_open_session(const char *owner, struct n4f_sess *s);
/* export A's root handle, as the backend gives it */
struct nfs_fh n4f_root_fh(void);
/* PUTFH of @fh into the compound being built */
void n4f_putfh(struct n4f_cb *b, const struct nfs_fh *fh);
/* export A's path of @name */
void n4f_path_of(char *out, size_t cap, const char *name);
void n4f_seq(struct n4f_cb *b, struct n4f_sess *s, uint32_t slot, uint32_t seqid, bool cachethis);
void n4f_session(struct n4f_cb *b, struct n4f_sess *s);
/** SEQUENCE (slot 0, its next sequence id) in a compound of minor version @p minor */
void n4f_session_minor(struct n4f_cb *b, struct n4f_sess *s, uint32_t minor);
/**
 * EXCHANGE_ID (verifier "verf0001"), CREATE_SESSION in minor version @p minor with @p cs's
 * flags, channel attributes, callback program and security (its clientid and sequence are
 * filled in here), RECLAIM_COMPLETE: a client and session that may make state, into @p s.
 * @return the session's csr_flags
 */
uint32_t n4f_open_session_with(const char *owner, uint32_t minor, union nfs4_op_args *cs,
			       struct n4f_sess *s);
/**
 * SEQUENCE on @p s, PUTFH @p fh (NULL: none), then @p op with @p a (NULL: no arguments), run.
 * @return the compound's status; the reply in *out (NULL: not kept)
 */
uint32_t n4f_fh_op(struct n4f_sess *s, const struct nfs_fh *fh, uint32_t op, union nfs4_op_args *a,
		   struct n4f_reply *out);
/** n4f_fh_op in a compound of minor version @p minor */
uint32_t n4f_fh_op_minor(struct n4f_sess *s, uint32_t minor, const struct nfs_fh *fh, uint32_t op,
			 union nfs4_op_args *a, struct n4f_reply *out);
/** OPEN's arguments into @p a (cleared first): CLAIM_NULL of @p name by @p owner with share
 * @p access; @p opentype OPEN4_NOCREATE, or OPEN4_CREATE (UNCHECKED4, no attributes) */
void n4f_open_args(union nfs4_op_args *a, const char *owner, const char *name, uint32_t access,
		   uint32_t opentype);
/**
 * SEQUENCE on @p s in minor version @p minor, PUTFH @p dir, OPEN @p a, GETFH, run.
 * @return the compound's status; the reply in *out (OPEN's result in out->r[2], the handle
 * in out->r[3])
 */
uint32_t n4f_open_getfh(struct n4f_sess *s, uint32_t minor, const struct nfs_fh *dir,
			union nfs4_op_args *a, struct n4f_reply *out);
/** The handle GETFH returned as operation @p i of @p r, into @p fh */
void n4f_fh_of(const struct n4f_reply *r, uint32_t i, struct nfs_fh *fh);
void n4f_mkfile(const char *path, const char *data);
int n4f_setup(void **state);
int n4f_teardown(void **state);
int n4f_fresh(void **state);

struct nfs3_server;
struct orpc_svc;
struct orpc_program;
struct orpc_version;
/**
 * n4f_setup, then an NFSv3 server on the same backend that hands NFSv4 to n4f_srv, and both
 * versions as @p prog (@p vers) in @p svc, as droce-nfsd registers them.
 * @return 0, or -1 when the NFSv3 server cannot start
 */
int n4f_setup_rpc(struct nfs3_server *v3, struct orpc_svc *svc, struct orpc_program *prog,
		  struct orpc_version vers[2]);
/** The NFSv3 server of n4f_setup_rpc goes, then n4f_teardown. */
void n4f_teardown_rpc(struct nfs3_server *v3);

#endif /* NFS4_FIXTURE_H */
