/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_cb_xdr.h - the NFSv4.1 callback program's messages as the server sends and reads them
 * (RFC 8881 §20, §18.36 callback_sec_parms4): whole ONC RPC CALL messages (RFC 5531 §9) for
 * CB_NULL and CB_COMPOUND(CB_SEQUENCE, CB_RECALL), and the decoding of their RPC REPLY.
 *
 * Encoding writes big-endian words into the caller's buffer and fails (0) when it does not fit.
 * Decoding reads through a bounded cursor, allocates nothing, and keeps nothing of the message.
 *
 * Decoder limits and checks (nfs4_cb_decode_reply):
 * - the reply's xid must be the call's; msg_type REPLY;
 * - the verifier's body at most 400 bytes (RFC 5531 MAX_AUTH_BYTES);
 * - the COMPOUND's tag at most NFS4_CB_TAG_MAX bytes; at most NFS4_CB_RES_MAX results are kept
 *   (more fail the decode); each result's opcode must be one the server sent or CB_ILLEGAL;
 * - CB_SEQUENCE's result must carry the session, sequence and slot the call had.
 * @return values: see nfs4_cb_decode_reply.
 */
#ifndef NFS4_CB_XDR_H
#define NFS4_CB_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_xdr.h"

#define NFS4_CALLBACK_VERSION 1u /**< RFC 8881 §20: NFS4_CALLBACK */
#define NFS4_CB_PROC_NULL 0u
#define NFS4_CB_PROC_COMPOUND 1u

/* nfs_cb_opnum4 (RFC 8881 §20) */
#define NFS4_CB_OP_RECALL 4u
#define NFS4_CB_OP_SEQUENCE 11u
#define NFS4_CB_OP_NOTIFY_LOCK 13u
#define NFS4_CB_OP_ILLEGAL 10044u

#define NFS4_CB_TAG_MAX 64u
#define NFS4_CB_RES_MAX 4u
#define NFS4_CB_GIDS_MAX 16u
#define NFS4_CB_MACH_MAX 255u

/** The credential of backward calls: the client's choice in csa_sec_parms. */
struct nfs4_cb_cred {
	uint32_t flavor; /**< AUTH_NONE (0) or AUTH_SYS (1) */
	uint32_t stamp, uid, gid, ngids;
	uint32_t gids[NFS4_CB_GIDS_MAX];
	uint32_t machlen;
	uint8_t mach[NFS4_CB_MACH_MAX];
};

/**
 * Pick the credential from callback_sec_parms4<> as it came (nfs4_xdr.c validated it): the
 * first AUTH_SYS or AUTH_NONE entry (RPCSEC_GSS is not done).
 * @return 0, or -ENOTSUP when the list has neither (or is empty), -EBADMSG when it does not
 *         decode
 */
int nfs4_cb_pick_cred(const struct nfs4_raw *sec_parms, struct nfs4_cb_cred *out);

/** The RPC header of a backward call. */
struct nfs4_cb_hdr {
	uint32_t xid;
	uint32_t program; /**< the client's cb_program */
	const struct nfs4_cb_cred *cred;
	uint32_t minor; /**< CB_COMPOUND's minorversion: the session's (RFC 8881 §20; 7862 §1) */
};

/** CB_SEQUENCE4args (RFC 8881 §20.9): no referring call lists, cachethis false. */
struct nfs4_cb_seq_args {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sequenceid, slotid, highest_slotid;
};

/** CB_RECALL4args (RFC 8881 §20.2) */
struct nfs4_cb_recall_args {
	struct nfs4_stateid sid;
	bool truncate;
	uint32_t fhlen;
	const uint8_t *fh; /**< ≤ NFS4_FHSIZE bytes */
};

/** A CB_NULL call into buf. @return its length, 0 when cap is too small */
uint32_t nfs4_cb_encode_null(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h);

/** A CB_COMPOUND (tag "", h->minor, ident) of CB_SEQUENCE then CB_RECALL into buf.
 * @return its length, 0 when cap is too small (or the handle too long) */
uint32_t nfs4_cb_encode_recall(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h,
			       uint32_t ident, const struct nfs4_cb_seq_args *seq,
			       const struct nfs4_cb_recall_args *rc);

/** CB_NOTIFY_LOCK4args (RFC 8881 §20.11): the file and the lock_owner4 that waits */
struct nfs4_cb_notify_lock_args {
	uint32_t fhlen;
	const uint8_t *fh; /**< ≤ NFS4_FHSIZE bytes */
	uint64_t clientid;
	uint32_t ownerlen;
	const uint8_t *owner; /**< ≤ NFS4_OPAQUE_LIMIT bytes */
};

/** A CB_COMPOUND (tag "", h->minor, ident) of CB_SEQUENCE then CB_NOTIFY_LOCK.
 * @return its length, 0 when cap is too small (or the handle or owner too long) */
uint32_t nfs4_cb_encode_notify_lock(uint8_t *buf, uint32_t cap, const struct nfs4_cb_hdr *h,
				    uint32_t ident, const struct nfs4_cb_seq_args *seq,
				    const struct nfs4_cb_notify_lock_args *nl);

/** What a reply said. */
struct nfs4_cb_reply {
	uint32_t reply_stat;  /**< MSG_ACCEPTED 0, MSG_DENIED 1 */
	uint32_t accept_stat; /**< accepted: SUCCESS 0, PROG_UNAVAIL 1, ... */
	uint32_t status;      /**< CB_COMPOUND4res.status (compound only) */
	uint32_t nres;	      /**< results decoded */
	uint32_t op[NFS4_CB_RES_MAX], op_status[NFS4_CB_RES_MAX];
	bool seq_ok; /**< CB_SEQUENCE's resok came and matched */
	uint32_t seq_highest_slotid, seq_target_highest_slotid;
};

/**
 * Decode the RPC REPLY to a call of xid (compound: a CB_COMPOUND with seq's session, sequence
 * and slot; else CB_NULL, whose result is void).
 * @return 0 (out filled; read reply_stat, accept_stat, status), -EBADMSG (truncated, another
 *         xid, not a REPLY, a length past the limits, a result the call did not ask for,
 *         CB_SEQUENCE's resok naming another session, sequence or slot)
 */
int nfs4_cb_decode_reply(const uint8_t *p, uint32_t len, uint32_t xid, bool compound,
			 const struct nfs4_cb_seq_args *seq, struct nfs4_cb_reply *out);

#endif /* NFS4_CB_XDR_H */
