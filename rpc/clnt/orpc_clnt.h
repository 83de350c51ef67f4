/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_clnt.h - ONC RPC client over a kernel TCP socket, polled without blocking: calls are
 * matched to replies by xid, time out and are retransmitted (on the same connection, or on a
 * new one when the old one broke: RFC 5531 leaves retransmission policy to the client; Linux's
 * xprtsock does the same), and give up after the retries with -ETIMEDOUT.
 *
 * Threading: a client belongs to the thread that polls it.
 */
#ifndef ORPC_CLNT_H
#define ORPC_CLNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "orpc_msg.h"
#include "orpc_rm.h"

#define ORPC_CLNT_MAX_CALLS 64u

/** Called once per call: err 0 with the reply (res/res_len: the results' XDR), or -ETIMEDOUT,
 * -EBADMSG (a reply that does not decode), -ECANCELED (client destroyed). */
typedef void (*orpc_clnt_done_t)(void *ctx, int err, const struct orpc_reply_hdr *h,
				 const uint8_t *res, uint32_t res_len);

struct orpc_clnt_call {
	bool used;
	uint32_t xid;
	uint8_t *msg; /**< mark + call, kept for retransmission */
	uint32_t len;
	uint64_t deadline_ms;
	uint32_t tries;
	orpc_clnt_done_t done;
	void *ctx;
};

struct orpc_clnt_stats {
	uint64_t calls, replies, retransmits, reconnects, timeouts, stray_replies, bad_replies;
};

struct orpc_clnt {
	int fd;
	bool connected;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	struct orpc_rm rm;
	uint32_t next_xid;
	uint32_t timeout_ms, retries;
	uint8_t *out; /**< bytes waiting for the socket */
	uint32_t out_len, out_off;
	struct orpc_clnt_call calls[ORPC_CLNT_MAX_CALLS];
	uint32_t outstanding;
	struct orpc_clnt_stats stats;
};

/**
 * Set up a client of ip:port over TCP and start connecting.
 * @param timeout_ms  per try (0: 2000)
 * @param retries     retransmissions before -ETIMEDOUT
 * @return 0, -EINVAL for a bad address, or -errno from socket/connect
 */
int orpc_clnt_init(struct orpc_clnt *c, const char *ip, uint16_t port, uint32_t timeout_ms,
		   uint32_t retries);

/**
 * Start a call. args are encoded at once with xargs.
 * @param sys  AUTH_SYS credential, or NULL for AUTH_NONE
 * @return 0, -EBUSY when ORPC_CLNT_MAX_CALLS are outstanding, -ENOMEM, -E2BIG when the
 *         arguments do not encode
 */
int orpc_clnt_call(struct orpc_clnt *c, uint32_t prog, uint32_t vers, uint32_t proc,
		   const struct orpc_authsys *sys, xdrproc_t xargs, const void *args,
		   orpc_clnt_done_t done, void *ctx);

/** Make progress without blocking: connect, send, receive, time out. @return replies handled */
int orpc_clnt_poll(struct orpc_clnt *c);

/**
 * One call, polled to its end (for tools and tests, not for an lcore's loop).
 * @param res  decoded from a SUCCESS reply with xres (xdr_free it after)
 * @param h    the reply header
 * @return 0 when a reply came (check h->denied/h->stat), -ETIMEDOUT, -EBADMSG for results that
 *         do not decode, or the errors of orpc_clnt_call()
 */
int orpc_clnt_call_sync(struct orpc_clnt *c, uint32_t prog, uint32_t vers, uint32_t proc,
			const struct orpc_authsys *sys, xdrproc_t xargs, const void *args,
			xdrproc_t xres, void *res, struct orpc_reply_hdr *h);

/** Fail every outstanding call with -ECANCELED, close and free. */
void orpc_clnt_fini(struct orpc_clnt *c);

#endif /* ORPC_CLNT_H */
