/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_xdr.h - NFSv4.1 COMPOUND (RFC 8881 §16.2, §16.2.3, §18) as hand-written libtirpc XDR
 * routines, both directions like nfs3_xdr.h: the server decodes arguments and encodes results,
 * the unit tests and the fuzz target encode arguments and decode results. Each operation's
 * routines are named in the operation table (nfs4_ops.c), which both the dispatcher and the
 * tests read.
 *
 * Decoding allocates nothing and needs an xdrmem stream: tags, names, owners, handles and
 * opaque arrays decode as (pointer, length) into the message buffer, valid as long as it is.
 *
 * Decoder limits (a violation fails the decode: the operation gets NFS4ERR_BADXDR):
 * - tag: NFS4_TAG_MAX bytes; component4: NFS4_NAME_DECODE_MAX; nfs_fh4: NFS4_FHSIZE;
 * - co_ownerid, so_major_id, server scope: NFS4_OPAQUE_LIMIT; impl id strings: 1024;
 * - bitmap4: NFS4_BITMAP_DECODE_MAX words; bool: 0 or 1; enums: their defined values;
 * - arrays with at most one element (ca_rdma_ird, impl ids): 0 or 1;
 * - csa_sec_parms: NFS4_CB_SEC_MAX entries of AUTH_NONE, AUTH_SYS (at most 16 groups, a
 *   machine name of 255 bytes) or RPCSEC_GSS (handles of 1024 bytes), kept as raw XDR;
 * - SSV's algorithm lists: NFS4_SSV_ALGS_MAX oids of 1024 bytes, kept as raw XDR.
 * Padding is skipped unread; encoders write zeros.
 */
#ifndef NFS4_XDR_H
#define NFS4_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include "nfs4_proto.h"

#define NFS4_CB_SEC_MAX 16u
#define NFS4_SSV_ALGS_MAX 16u
#define NFS4_SECINFO_MAX 4u

struct nfs4_bitmap {
	uint32_t n; /**< words on the wire (≤ NFS4_BITMAP_DECODE_MAX) */
	uint32_t w[NFS4_BITMAP_DECODE_MAX];
};

static inline bool nfs4_bit(const struct nfs4_bitmap *b, uint32_t bit)
{
	return bit / 32 < b->n && (b->w[bit / 32] >> (bit % 32) & 1u);
}

static inline void nfs4_bit_set(struct nfs4_bitmap *b, uint32_t bit)
{
	while (b->n <= bit / 32)
		b->w[b->n++] = 0;
	b->w[bit / 32] |= 1u << (bit % 32);
}

/** Bytes by reference: into the message (decode) or the encoder's memory. */
struct nfs4_ref {
	const uint8_t *p;
	uint32_t len;
};

/** XDR kept as it came (a validated array whose content the server does not use). */
struct nfs4_raw {
	uint32_t count; /**< elements */
	struct nfs4_ref bytes;
};

struct nfs4_time {
	int64_t sec;
	uint32_t nsec;
};

struct nfs4_impl_id {
	struct nfs4_ref domain, name;
	struct nfs4_time date;
};

/** channel_attrs4 (RFC 8881 §18.36.1) */
struct nfs4_chan_attrs {
	uint32_t headerpadsize, maxrequestsize, maxresponsesize, maxresponsesize_cached;
	uint32_t maxoperations, maxrequests;
	bool has_rdma_ird;
	uint32_t rdma_ird;
};

/* ---- arguments ---- */

struct nfs4_exchange_id_args {
	uint8_t verifier[NFS4_VERIFIER_SIZE];
	struct nfs4_ref ownerid;
	uint32_t flags;
	uint32_t sp_how;			      /**< enum nfs4_sp_how */
	struct nfs4_bitmap must_enforce, must_allow;  /**< MACH_CRED and SSV */
	struct nfs4_raw ssv_hash_algs, ssv_encr_algs; /**< SSV: sec_oid4<> */
	uint32_t ssv_window, ssv_num_gss_handles;
	bool has_impl_id;
	struct nfs4_impl_id impl_id;
};

struct nfs4_create_session_args {
	uint64_t clientid;
	uint32_t sequence, flags;
	struct nfs4_chan_attrs fore, back;
	uint32_t cb_program;
	struct nfs4_raw sec_parms; /**< callback_sec_parms4<> */
};

struct nfs4_sequence_args {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sequenceid, slotid, highest_slotid;
	bool cachethis;
};

struct nfs4_bind_conn_args {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t dir; /**< enum nfs4_cdfc */
	bool rdma_mode;
};

union nfs4_op_args {
	uint32_t access;	    /**< ACCESS */
	struct nfs4_bitmap getattr; /**< GETATTR */
	struct nfs4_ref name;	    /**< LOOKUP: component4 */
	struct nfs4_ref fh;	    /**< PUTFH */
	uint32_t secinfo_style;	    /**< SECINFO_NO_NAME */
	struct nfs4_exchange_id_args exid;
	struct nfs4_create_session_args csess;
	uint8_t sessionid[NFS4_SESSIONID_SIZE]; /**< DESTROY_SESSION */
	struct nfs4_sequence_args seq;
	uint64_t clientid; /**< DESTROY_CLIENTID */
	bool one_fs;	   /**< RECLAIM_COMPLETE */
	struct nfs4_bind_conn_args bind;
};

/* ---- results (the resok arm; status says whether it goes on the wire) ---- */

struct nfs4_exchange_id_res {
	uint64_t clientid;
	uint32_t sequenceid, flags;
	uint32_t sp_how; /**< SP4_NONE or SP4_MACH_CRED (decoding); the server sends SP4_NONE */
	struct nfs4_bitmap must_enforce, must_allow;
	uint64_t so_minor_id;
	struct nfs4_ref so_major_id, server_scope;
	bool has_impl_id;
	struct nfs4_impl_id impl_id;
};

struct nfs4_create_session_res {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sequence, flags;
	struct nfs4_chan_attrs fore, back;
};

struct nfs4_sequence_res {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sequenceid, slotid, highest_slotid, target_highest_slotid, status_flags;
};

struct nfs4_getattr_res {
	struct nfs4_bitmap mask;
	struct nfs4_ref vals; /**< attrlist4 */
};

struct nfs4_access_res {
	uint32_t supported, access;
};

struct nfs4_secinfo_res {
	uint32_t n;
	uint32_t flavor[NFS4_SECINFO_MAX]; /**< AUTH_SYS / AUTH_NONE (RPCSEC_GSS arms: decode
					      skips their oid, qop and service) */
};

struct nfs4_bind_conn_res {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t dir; /**< enum nfs4_cdfs */
	bool rdma_mode;
};

union nfs4_op_resok {
	struct nfs4_exchange_id_res exid;
	struct nfs4_create_session_res csess;
	struct nfs4_sequence_res seq;
	struct nfs4_getattr_res getattr;
	struct nfs4_ref fh; /**< GETFH */
	struct nfs4_access_res access;
	struct nfs4_secinfo_res secinfo;
	struct nfs4_bind_conn_res bind;
};

/** One nfs_resop4: the operation, its status and (NFS4_OK) its results. */
struct nfs4_op_res {
	uint32_t op;
	uint32_t status;
	union nfs4_op_resok u;
};

typedef bool_t (*nfs4_xargs_t)(XDR *x, union nfs4_op_args *a);
typedef bool_t (*nfs4_xres_t)(XDR *x, union nfs4_op_resok *r);

/* Each operation's arguments and resok arm (NULL in the table: void). */
bool_t nfs4_xdr_access_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_getattr_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_lookup_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_putfh_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_secinfo_no_name_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_exchange_id_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_create_session_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_sessionid_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_sequence_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_clientid_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_reclaim_complete_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_bind_conn_args(XDR *x, union nfs4_op_args *a);

bool_t nfs4_xdr_exchange_id_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_create_session_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_sequence_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_getattr_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_getfh_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_access_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_secinfo_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_bind_conn_res(XDR *x, union nfs4_op_resok *r);

/* Pieces the attribute encoder and the tests share. */
bool_t nfs4_xdr_bitmap(XDR *x, struct nfs4_bitmap *b);
bool_t nfs4_xdr_ref(XDR *x, struct nfs4_ref *r, uint32_t max);
bool_t nfs4_xdr_time(XDR *x, struct nfs4_time *t);
bool_t nfs4_xdr_chan_attrs(XDR *x, struct nfs4_chan_attrs *c);

/** COMPOUND4args' head: tag, minorversion, and the count of operations that follow. */
struct nfs4_compound_hdr {
	struct nfs4_ref tag;
	uint32_t minorversion;
	uint32_t numops;
};
bool_t nfs4_xdr_compound_hdr(XDR *x, struct nfs4_compound_hdr *h);

/** COMPOUND4res' head: status, tag, and the count of results that follow. */
struct nfs4_compound_res_hdr {
	uint32_t status;
	struct nfs4_ref tag;
	uint32_t numres;
};
bool_t nfs4_xdr_compound_res_hdr(XDR *x, struct nfs4_compound_res_hdr *h);

/**
 * One nfs_argop4 by the operation table: the opcode, then the arguments of a decoded
 * operation. Decoding an opcode the table does not decode (undefined, or not served) stops
 * with *known false and the opcode in *op (TRUE: the opcode word itself was there).
 */
bool_t nfs4_xdr_argop(XDR *x, uint32_t *op, union nfs4_op_args *a, bool *known);

/** One nfs_resop4: opcode, status, and for NFS4_OK the operation's resok arm. An opcode the
 * table has no results for is encoded/decoded as opcode and status only. */
bool_t nfs4_xdr_resop(XDR *x, struct nfs4_op_res *r);

#endif /* NFS4_XDR_H */
