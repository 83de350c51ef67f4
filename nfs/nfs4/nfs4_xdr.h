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

/** stateid4 (RFC 8881 §3.3.12) */
struct nfs4_stateid {
	uint32_t seqid;
	uint8_t other[12];
};

/** fattr4 as it came: the mask and the attrlist4's bytes (decoded by nfs4_attr.c) */
struct nfs4_fattr {
	struct nfs4_bitmap mask;
	struct nfs4_ref vals;
};

/** change_info4 */
struct nfs4_cinfo {
	bool atomic;
	uint64_t before, after;
};

/* OPEN (RFC 8881 §18.16) */
enum nfs4_opentype { OPEN4_NOCREATE = 0, OPEN4_CREATE = 1 };
enum nfs4_createmode { UNCHECKED4 = 0, GUARDED4 = 1, EXCLUSIVE4 = 2, EXCLUSIVE4_1 = 3 };
enum nfs4_claim {
	CLAIM_NULL = 0,
	CLAIM_PREVIOUS = 1,
	CLAIM_DELEGATE_CUR = 2,
	CLAIM_DELEGATE_PREV = 3,
	CLAIM_FH = 4,
	CLAIM_DELEG_PREV_FH = 5,
	CLAIM_DELEG_CUR_FH = 6,
};
#define OPEN4_SHARE_ACCESS_READ 1u
#define OPEN4_SHARE_ACCESS_WRITE 2u
#define OPEN4_SHARE_ACCESS_BOTH 3u
#define OPEN4_SHARE_ACCESS_WANT_MASK 0xff00u /**< 4.1's delegation wishes */
#define OPEN4_SHARE_ACCESS_WANT_READ_DELEG 0x0100u
#define OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG 0x0200u
#define OPEN4_SHARE_ACCESS_WANT_ANY_DELEG 0x0300u
#define OPEN4_SHARE_ACCESS_WANT_NO_DELEG 0x0400u
#define OPEN4_SHARE_ACCESS_WANT_CANCEL 0x0500u
/* why_no_delegation4 (RFC 8881 §18.16.3) */
#define WND4_NOT_WANTED 0u
#define WND4_CONTENTION 1u
#define WND4_RESOURCE 2u
#define WND4_CANCELLED 7u
#define OPEN4_SHARE_ACCESS_WANT_SIGNAL 0x10000u
#define OPEN4_SHARE_ACCESS_WANT_PUSH 0x20000u
#define OPEN4_SHARE_DENY_NONE 0u
#define OPEN4_SHARE_DENY_READ 1u
#define OPEN4_SHARE_DENY_BOTH 3u
#define OPEN4_RESULT_LOCKTYPE_POSIX 0x4u
#define OPEN4_RESULT_MAY_NOTIFY_LOCK 0x20u
enum nfs4_deleg_type {
	OPEN_DELEGATE_NONE = 0,
	OPEN_DELEGATE_READ = 1,
	OPEN_DELEGATE_WRITE = 2,
	OPEN_DELEGATE_NONE_EXT = 3,
};

struct nfs4_open_args {
	uint32_t seqid, share_access, share_deny;
	uint64_t clientid;
	struct nfs4_ref owner;
	uint32_t opentype, createmode;	  /**< enum nfs4_opentype, nfs4_createmode */
	struct nfs4_fattr attrs;	  /**< UNCHECKED4, GUARDED4, EXCLUSIVE4_1 */
	uint8_t verf[NFS4_VERIFIER_SIZE]; /**< EXCLUSIVE4, EXCLUSIVE4_1 */
	uint32_t claim;			  /**< enum nfs4_claim */
	struct nfs4_ref name;		  /**< CLAIM_NULL, CLAIM_DELEGATE_CUR/PREV */
	uint32_t deleg_type;		  /**< CLAIM_PREVIOUS */
	struct nfs4_stateid deleg_sid;	  /**< CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH */
};

struct nfs4_close_args {
	uint32_t seqid;
	struct nfs4_stateid sid;
};

struct nfs4_downgrade_args {
	struct nfs4_stateid sid;
	uint32_t seqid, share_access, share_deny;
};

struct nfs4_read_args {
	struct nfs4_stateid sid;
	uint64_t offset;
	uint32_t count;
};

#define NFS4_IO_DECODE_MAX (16u << 20) /**< WRITE data decoded at most */

struct nfs4_write_args {
	struct nfs4_stateid sid;
	uint64_t offset;
	uint32_t stable; /**< stable_how4: NFSv3's values */
	struct nfs4_ref data;
};

struct nfs4_commit_args {
	uint64_t offset;
	uint32_t count;
};

struct nfs4_create_args {
	uint32_t type;		  /**< nfs_ftype4 */
	struct nfs4_ref linkdata; /**< NF4LNK */
	uint32_t spec1, spec2;	  /**< NF4BLK, NF4CHR */
	struct nfs4_ref name;
	struct nfs4_fattr attrs;
};

struct nfs4_rename_args {
	struct nfs4_ref oldname, newname;
};

struct nfs4_readdir_args {
	uint64_t cookie;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	uint32_t dircount, maxcount;
	struct nfs4_bitmap attr_request;
};

struct nfs4_setattr_args {
	struct nfs4_stateid sid;
	struct nfs4_fattr attrs;
};

/* locks (RFC 8881 §18.10-18.12) */
enum nfs4_locktype { READ_LT = 1, WRITE_LT = 2, READW_LT = 3, WRITEW_LT = 4 };

struct nfs4_lock_owner {
	uint64_t clientid;
	struct nfs4_ref owner;
};

struct nfs4_lock_args {
	uint32_t type;
	bool reclaim;
	uint64_t offset, length;
	bool new_owner;
	/* new_owner: open_to_lock_owner4 */
	uint32_t open_seqid;
	struct nfs4_stateid open_sid;
	uint32_t lock_seqid;
	struct nfs4_lock_owner lock_owner;
	/* !new_owner: exist_lock_owner4 (lock_seqid above) */
	struct nfs4_stateid lock_sid;
};

struct nfs4_lockt_args {
	uint32_t type;
	uint64_t offset, length;
	struct nfs4_lock_owner owner;
};

struct nfs4_locku_args {
	uint32_t type, seqid;
	struct nfs4_stateid sid;
	uint64_t offset, length;
};

#define NFS4_TEST_STATEID_MAX 64u /**< stateids one TEST_STATEID decodes */

struct nfs4_test_stateid_args {
	uint32_t n;
	struct nfs4_ref raw; /**< n stateid4, 16 bytes each */
};

/* NFSv4.2 (RFC 7862 §15) */

/** ALLOCATE and DEALLOCATE */
struct nfs4_alloc_args {
	struct nfs4_stateid sid;
	uint64_t offset, length;
};

enum nfs4_content { NFS4_CONTENT_DATA = 0, NFS4_CONTENT_HOLE = 1 };

struct nfs4_seek_args {
	struct nfs4_stateid sid;
	uint64_t offset;
	uint32_t what; /**< enum nfs4_content */
};

#define NFS4_NETLOC_MAX 16u /**< ca_source_server entries decoded */

/** COPY (RFC 7862 §15.2.1) */
struct nfs4_copy_args {
	struct nfs4_stateid src_sid, dst_sid;
	uint64_t src_offset, dst_offset, count;
	bool consecutive, synchronous;
	struct nfs4_raw source_server; /**< netloc4<>: inter-server copy when not empty */
};

/** CLONE (RFC 7862 §15.13.1) */
struct nfs4_clone_args {
	struct nfs4_stateid src_sid, dst_sid;
	uint64_t src_offset, dst_offset, count;
};

/** BACKCHANNEL_CTL (RFC 8881 §18.33.1) */
struct nfs4_bc_ctl_args {
	uint32_t cb_program;
	struct nfs4_raw sec_parms; /**< callback_sec_parms4<> */
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
	struct nfs4_bc_ctl_args bc_ctl;
	struct nfs4_open_args open;
	struct nfs4_close_args close;
	struct nfs4_downgrade_args downgrade;
	struct nfs4_read_args read;
	struct nfs4_write_args write;
	struct nfs4_commit_args commit;
	struct nfs4_create_args create;
	struct nfs4_rename_args rename;
	struct nfs4_readdir_args readdir;
	struct nfs4_setattr_args setattr;
	struct nfs4_fattr verify; /**< VERIFY, NVERIFY */
	struct nfs4_lock_args lock;
	struct nfs4_lockt_args lockt;
	struct nfs4_locku_args locku;
	struct nfs4_test_stateid_args test_stateid;
	struct nfs4_stateid sid;      /**< FREE_STATEID */
	struct nfs4_alloc_args alloc; /**< ALLOCATE, DEALLOCATE */
	struct nfs4_seek_args seek;
	struct nfs4_copy_args copy;
	struct nfs4_clone_args clone;
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

struct nfs4_open_res {
	struct nfs4_stateid sid;
	struct nfs4_cinfo cinfo;
	uint32_t rflags;
	struct nfs4_bitmap attrset;
	uint32_t deleg_type; /**< NONE, READ, or NONE_EXT (WRITE is never granted) */
	uint32_t why_no_deleg;
	struct nfs4_stateid deleg_sid; /**< READ: the delegation's stateid */
	bool recall;		       /**< READ: recall at once (never: false) */
};

struct nfs4_read_res {
	bool eof;
	struct nfs4_ref data;
	bool placed; /**< the data went to the transport's DDP sink: only its length is encoded */
};

struct nfs4_write_res {
	uint32_t count, committed;
	uint8_t verf[NFS4_VERIFIER_SIZE];
};

struct nfs4_create_res {
	struct nfs4_cinfo cinfo;
	struct nfs4_bitmap attrset;
};

struct nfs4_rename_res {
	struct nfs4_cinfo src, dst;
};

struct nfs4_readdir_res {
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct nfs4_ref entries; /**< entry4s as encoded, each after its TRUE value-follows */
	uint32_t nentries;
	bool eof;
};

/** LOCK4denied */
struct nfs4_lock_denied {
	uint64_t offset, length;
	uint32_t type;
	struct nfs4_lock_owner owner;
};

struct nfs4_test_stateid_res {
	uint32_t n;
	uint32_t status[NFS4_TEST_STATEID_MAX];
};

struct nfs4_seek_res {
	bool eof;
	uint64_t offset;
};

/** COPY4resok: write_response4 and copy_requirements4 */
struct nfs4_copy_res {
	bool has_callback_id; /**< wr_callback_id<1>: the server copies synchronously, none */
	struct nfs4_stateid callback_id;
	uint64_t count;
	uint32_t committed; /**< stable_how4 */
	uint8_t verf[NFS4_VERIFIER_SIZE];
	bool consecutive, synchronous;
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
	struct nfs4_open_res open;
	struct nfs4_stateid sid; /**< CLOSE, OPEN_DOWNGRADE, LOCK, LOCKU */
	struct nfs4_read_res read;
	struct nfs4_write_res write;
	uint8_t verf[NFS4_VERIFIER_SIZE]; /**< COMMIT */
	struct nfs4_create_res create;
	struct nfs4_cinfo cinfo; /**< REMOVE, LINK */
	struct nfs4_rename_res rename;
	struct nfs4_readdir_res readdir;
	struct nfs4_ref link;		/**< READLINK */
	struct nfs4_bitmap attrsset;	/**< SETATTR (on every status) */
	struct nfs4_lock_denied denied; /**< LOCK, LOCKT: NFS4ERR_DENIED */
	struct nfs4_test_stateid_res test_stateid;
	struct nfs4_seek_res seek;
	struct nfs4_copy_res copy;
};

/** One nfs_resop4: the operation, its status and (NFS4_OK) its results. */
struct nfs4_op_res {
	uint32_t op;
	uint32_t status;
	union nfs4_op_resok u;
};

typedef bool_t (*nfs4_xargs_t)(XDR *x, union nfs4_op_args *a);
typedef bool_t (*nfs4_xres_t)(XDR *x, union nfs4_op_resok *r);
/** The results of a failed operation, for the few that have any (SETATTR's attrsset, LOCK's
 * and LOCKT's LOCK4denied): TRUE with nothing written when status has none. */
typedef bool_t (*nfs4_xerr_t)(XDR *x, uint32_t status, union nfs4_op_resok *r);

/* Each operation's arguments and resok arm (NULL in the table: void). */
bool_t nfs4_xdr_access_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_getattr_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_lookup_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_putfh_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_secinfo_no_name_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_exchange_id_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_create_session_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_bc_ctl_args(XDR *x, union nfs4_op_args *a);
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

/* The file and state operations (nfs4_xdr_file.c). */
bool_t nfs4_xdr_open_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_close_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_downgrade_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_read_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_write_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_commit_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_create_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_rename_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_readdir_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_setattr_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_verify_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_lock_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_lockt_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_locku_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_test_stateid_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_stateid_args(XDR *x, union nfs4_op_args *a);

bool_t nfs4_xdr_open_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_stateid_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_read_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_write_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_commit_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_create_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_cinfo_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_rename_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_readdir_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_readlink_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_setattr_res(XDR *x, uint32_t status, union nfs4_op_resok *r);
bool_t nfs4_xdr_lock_denied(XDR *x, uint32_t status, union nfs4_op_resok *r);
bool_t nfs4_xdr_test_stateid_res(XDR *x, union nfs4_op_resok *r);

/* NFSv4.2's (nfs4_xdr_file.c) */
bool_t nfs4_xdr_alloc_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_seek_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_copy_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_clone_args(XDR *x, union nfs4_op_args *a);
bool_t nfs4_xdr_seek_res(XDR *x, union nfs4_op_resok *r);
bool_t nfs4_xdr_copy_res(XDR *x, union nfs4_op_resok *r);

bool_t nfs4_xdr_stateid(XDR *x, struct nfs4_stateid *s);
bool_t nfs4_xdr_fattr(XDR *x, struct nfs4_fattr *f);

/* Pieces the attribute encoder and the tests share. */
bool_t nfs4_xdr_bitmap(XDR *x, struct nfs4_bitmap *b);
bool_t nfs4_xdr_ref(XDR *x, struct nfs4_ref *r, uint32_t max);
bool_t nfs4_xdr_time(XDR *x, struct nfs4_time *t);
bool_t nfs4_xdr_chan_attrs(XDR *x, struct nfs4_chan_attrs *c);
/** An array of at most max elements kept as raw XDR: decoding validates each with elem(). */
bool_t nfs4_xdr_raw(XDR *x, struct nfs4_raw *r, uint32_t max, bool_t (*elem)(XDR *x));

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
