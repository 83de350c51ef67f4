/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_msg.h - ONC RPC version 2 messages (RFC 5531 §9): decoding a call's header and its
 * credential, and encoding every kind of reply, through libtirpc's XDR (xdrmem, xdr_callmsg,
 * xdr_replymsg, xdr_authunix_parms). Shared by the server (rpc/svc) and the client (rpc/clnt),
 * and by every transport: the bytes handed in are one whole RPC message.
 *
 * Nothing here allocates: libtirpc is given the caller's storage for the credential, the
 * verifier and the AUTH_SYS machine name and groups, so a hostile length fails, never grows.
 */
#ifndef ORPC_MSG_H
#define ORPC_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#define ORPC_RPCVERS 2u
#define ORPC_MAX_AUTH_BYTES 400u   /**< RFC 5531 §8.2: opaque_auth body */
#define ORPC_AUTHSYS_MAX_NAME 255u /**< RFC 5531 App. A: machinename<255> */
#define ORPC_AUTHSYS_MAX_GIDS 16u  /**< RFC 5531 App. A: gids<16> */
#define ORPC_RPCSEC_GSS 6u	   /**< RFC 2203 flavor number */

/** AUTH_SYS credential (RFC 5531 Appendix A). */
struct orpc_authsys {
	uint32_t stamp;
	char machname[ORPC_AUTHSYS_MAX_NAME + 1];
	uint32_t uid, gid;
	uint32_t ngids;
	uint32_t gids[ORPC_AUTHSYS_MAX_GIDS];
};

/** A decoded call header. */
struct orpc_call {
	uint32_t xid; /**< host order */
	uint32_t rpcvers, prog, vers, proc;
	uint32_t cred_flavor, cred_len;
	uint32_t verf_flavor, verf_len;
	uint8_t cred[ORPC_MAX_AUTH_BYTES];
	uint8_t verf[ORPC_MAX_AUTH_BYTES];
	struct orpc_authsys sys; /**< valid when cred_flavor == AUTH_SYS and auth said AUTH_OK */
	uint32_t args_off;	 /**< offset of the procedure's arguments in the message */
};

/** The outcome of decoding a call header. */
enum orpc_call_dec {
	ORPC_CALL_OK = 0,	/**< decoded: dispatch it */
	ORPC_CALL_DROP,		/**< not a call, or too short to answer: drop and count */
	ORPC_CALL_RPC_MISMATCH, /**< rpcvers != 2: answer MSG_DENIED RPC_MISMATCH 2..2 */
	ORPC_CALL_BADCRED,	/**< a credential longer than 400 bytes: AUTH_ERROR AUTH_BADCRED */
	ORPC_CALL_BADVERF,	/**< a verifier longer than 400 bytes: AUTH_ERROR AUTH_BADVERF */
};

/**
 * Decode a call's header (xid through the verifier) with xdr_callmsg.
 * Checks: at least xid and direction (else DROP, as there is nothing to answer to);
 * direction CALL (else DROP); rpcvers 2 (else RPC_MISMATCH, xid valid); opaque_auth lengths
 * ≤ 400 (else BADCRED or BADVERF) and within len (else DROP).
 * @return an enum orpc_call_dec; c->xid is valid unless DROP
 */
enum orpc_call_dec orpc_call_decode(const uint8_t *buf, uint32_t len, struct orpc_call *c);

/**
 * Decode c's AUTH_SYS credential body into c->sys (xdr_authunix_parms).
 * @return AUTH_OK, or AUTH_BADCRED when the body is malformed, has more than 16 groups or a
 *         machine name over 255 bytes, or has bytes left over
 */
enum auth_stat orpc_authsys_decode(struct orpc_call *c);

/** What a reply says. */
struct orpc_reply_hdr {
	uint32_t xid;	    /**< host order */
	bool denied;	    /**< MSG_DENIED, else MSG_ACCEPTED */
	uint32_t stat;	    /**< accepted: enum accept_stat; denied: enum reject_stat */
	uint32_t low, high; /**< PROG_MISMATCH / RPC_MISMATCH */
	uint32_t why;	    /**< AUTH_ERROR: enum auth_stat */
};

/**
 * Encode a reply header with xdr_replymsg into an XDR stream positioned at the message start;
 * for SUCCESS the results follow (encode them into the same stream).
 * @return true, or false when the stream has no room
 */
bool orpc_reply_encode(XDR *x, const struct orpc_reply_hdr *r);

/**
 * Decode a reply header (client side) with xdr_replymsg. *res_off is where the results start.
 * @return 0, or -EBADMSG when it is not a well-formed reply
 */
int orpc_reply_decode(const uint8_t *buf, uint32_t len, struct orpc_reply_hdr *r,
		      uint32_t *res_off);

/**
 * Encode a call header (client side): xid, prog, vers, proc, an AUTH_NONE or AUTH_SYS
 * credential (sys NULL: AUTH_NONE) and an AUTH_NONE verifier.
 * @return true, or false when the stream has no room
 */
bool orpc_call_encode(XDR *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		      const struct orpc_authsys *sys);

const char *orpc_accept_stat_name(uint32_t s);
const char *orpc_auth_stat_name(uint32_t s);

#endif /* ORPC_MSG_H */
