/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_ep.h - an RPC-over-RDMA version 1 endpoint (RFC 8166, RFC 8797) on one connected
 * RC QP of roce/: the server side (calls in, dispatched through orpc_svc, replies out) and the
 * client side (calls out, replies matched by xid), on the transport's four primitives:
 *
 *   send       a SEND (or SEND WITH INVALIDATE) of a transport header and an inline message
 *   recv       a receive completion: a header and what follows it
 *   ddp-write  RDMA WRITEs into the peer's write chunk or reply chunk
 *   ddp-read   RDMA READs of the peer's read chunks
 *
 * What the endpoint does with them (RFC 8166 §3):
 * - inline messages up to the peer's receive size (RFC 8797 private data, 1024 bytes when the
 *   peer sends none); longer calls go as RDMA_NOMSG with a position-zero read chunk, longer
 *   replies as RDMA_NOMSG through the reply chunk (or ERR_CHUNK when the client gave none);
 * - DDP-eligible data: an opaque at the end of a call's arguments or a reply's results (an NFS
 *   WRITE's or READ's data) travels in a read chunk at its XDR position, or a write chunk; the
 *   receiving side splices it back, accepting the XDR round-up whether or not it was sent;
 * - the reply's write chunk carries the bytes actually written (RFC 8166 §4.4.1.1);
 * - credits: the server grants what it has receives posted for (never 0, default 128), the
 *   client never has more calls outstanding than the last grant (1 before the first reply);
 * - errors: a bad header gets RDMA_ERROR ERR_VERS or ERR_CHUNK (RFC 8166 §4.5) and is counted;
 *   an RDMA READ or WRITE that fails fails the call (no partial reply) and the connection.
 *
 * Memory: one region, registered once at creation, holds the receive and send buffers and the
 * staging areas chunks are read into and written from. A DDP payload is copied once into or out
 * of staging; bench/ says what that costs. Zero copy into mbufs needs roce/'s mbuf receive
 * (the transport-API issue).
 *
 * Threading: an endpoint belongs to the lcore that polls its device.
 */
#ifndef RPCRDMA_EP_H
#define RPCRDMA_EP_H

#include <stdbool.h>
#include <stdint.h>

#include "orpc_svc.h"
#include "roce_verbs.h"
#include "rpcrdma_hdr.h"
#include "stk_pkt.h"

#define RPCRDMA_NFS_PORT 20049u
#define RPCRDMA_DEFAULT_CREDITS 128u
#define RPCRDMA_DEFAULT_MAX_CHUNK ((1u << 20) + 8192u)
#define RPCRDMA_CLNT_SLOTS 4u /**< client calls in flight by default */
#define RPCRDMA_CLNT_MAX_SLOTS 64u
#define RPCRDMA_BC_SLOTS 4u	       /**< server: backchannel calls in flight (RFC 8167) */
#define RPCRDMA_SRV_MAX_CALLS 16u      /**< server: calls served at once, at most */
#define RPCRDMA_SRV_CALLS 4u	       /**< server: calls served at once by default */
#define RPCRDMA_MAX_SENDS (1024u + 8u) /**< send buffers: the server's credits + 8 at most */

enum rpcrdma_role { RPCRDMA_SERVER, RPCRDMA_CLIENT };

struct rpcrdma_ep_conf {
	uint32_t credits;      /**< server: granted, and receives posted for them, plus
				 * RPCRDMA_BC_SLOTS for backchannel replies (1..1024; 0 = 128) */
	uint32_t inline_max;   /**< largest message we receive inline (1024..65536; 0 = 4096) */
	uint32_t max_chunk;    /**< largest chunk we read or write (0 = 1 MiB + 8 KiB) */
	bool no_private_data;  /**< announce nothing (as a peer without RFC 8797 would) */
	bool frwr;	       /**< client: register each call's chunks with a fast-registration key
				 of its own (REG_MR), invalidated by the server's Send With
				 Invalidate or by a LOCAL_INV before the reply is handed over;
				 else one persistent registration serves every call */
	bool no_remote_inv;    /**< client with frwr: do not offer Send With Invalidate */
	uint32_t slots;	       /**< client: calls in flight (1..64; 0 = 4), each with 3 x max_chunk
				 of staging */
	uint32_t server_calls; /**< server: calls served at once (1..16; 0 = 4), each with 3 x
				  max_chunk of staging; the calls behind them wait in arrival
				  order, so a call the upper layer deferred holds up no others
				  while another is free */
	struct rpcrdma_regions *regions; /**< where the region comes from and goes back to
					    (rpcrdma_regions_create()); NULL: allocated and
					    freed */
	bool on_lcore;	/**< the QP's home lane is @p lcore's (a device on several lcores,
				  roce_dev_set_lcores()): its CQ belongs to that lane, and the
				  endpoint is polled there once the QP is at RTS */
	unsigned lcore; /**< with on_lcore */
};

/**
 * Regions kept for the next endpoints (a server's, across its connections). A region is large
 * (a server's: 3 x server_calls x max_chunk of staging, 13.8 MB by default), and freeing it
 * costs the thread what rte_free() does: DPDK zeroes the whole block, faulting in every page the
 * connection never touched. Where page faults are dear (a VM: 80 to 220 ms for one region,
 * measured) that stalls the lcore long enough for the peers of the other connections it serves
 * to exhaust their retries. An endpoint whose conf names a cache takes a kept region of its size
 * (no allocation, no first-touch faults) and its destroy puts its region back, up to @p max kept
 * (beyond that, freed). A reused region's receive and send buffers are zeroed; its staging keeps
 * the bytes of earlier calls, which nothing sends (replies and chunks carry what was written for
 * them). Not thread safe: one thread creates and destroys the endpoints that use it.
 * @return the cache, or NULL (rte_errno ENOMEM, or EINVAL when @p max is 0)
 */
struct rpcrdma_regions *rpcrdma_regions_create(unsigned max);

/** Free the regions kept, and the cache: every endpoint that used it is destroyed. */
void rpcrdma_regions_destroy(struct rpcrdma_regions *rs);

struct rpcrdma_regions_stats {
	uint64_t allocated; /**< regions an endpoint had to allocate (none kept of its size) */
	uint64_t reused;    /**< regions an endpoint took from the cache */
	uint64_t freed;	    /**< regions freed at destroy: the cache was full */
	unsigned kept;	    /**< regions in the cache now */
};
void rpcrdma_regions_stats(const struct rpcrdma_regions *rs, struct rpcrdma_regions_stats *st);

/** The request state machine of the server side (STYLE §4). */
#define RPCRDMA_REQ_STATE_LIST(X)                                                                  \
	X(FREE)	    /**< not in use */                                                             \
	X(RECEIVED) /**< a call arrived; its header is decoded */                                  \
	X(READING)  /**< RDMA READs of its read chunks are in flight */                            \
	X(DISPATCH) /**< the call is whole: run it */                                              \
	X(HANDLING) /**< the upper layer finishes it elsewhere (orpc_svc_defer): wait for it */    \
	X(REPLYING) /**< chunk WRITEs and the reply SEND are posted */                             \
	X(ERR_HDR)  /**< the header was refused: RDMA_ERROR goes back */                           \
	X(ERR_RDMA) /**< a READ or WRITE failed: no reply, the connection ends */                  \
	X(DONE)	    /**< the receive buffer goes back to the QP */

#define RPCRDMA_REQ_ENUM_(n) RPCRDMA_REQ_##n,
enum rpcrdma_req_state { RPCRDMA_REQ_STATE_LIST(RPCRDMA_REQ_ENUM_) RPCRDMA_REQ_NUM_STATES };
const char *rpcrdma_req_state_name(enum rpcrdma_req_state s);

struct rpcrdma_ep_stats {
	uint64_t rx_msgs, tx_msgs;
	uint64_t rx_drop; /**< too short to answer, RDMA_DONE, or a stray RDMA_ERROR */
	uint64_t err_vers_sent, err_chunk_sent;
	uint64_t err_vers_rx, err_chunk_rx; /**< client: RDMA_ERRORs received */
	uint64_t credit_overrun;	    /**< a call arrived beyond the credits granted */
	uint64_t long_calls, long_replies;  /**< position-zero read chunk / reply chunk used */
	uint64_t ddp_reads, ddp_writes;	    /**< RDMA READ / WRITE work requests */
	uint64_t ddp_read_bytes, ddp_write_bytes;
	uint64_t send_inv;		/**< replies sent with Send With Invalidate */
	uint64_t remote_inv;		/**< receives that invalidated one of our keys */
	uint64_t frwr_regs, local_invs; /**< client: REG_MRs and LOCAL_INVs posted */
	uint64_t rdma_errors;		/**< failed completions: the connection is over */
	uint64_t flushed;	/**< completions flushed by the QP's move to ERR (disconnect) */
	uint64_t stray_replies; /**< a reply for no outstanding xid */
	uint64_t bc_calls_sent, bc_replies_rx; /**< server: backchannel calls (RFC 8167) */
	uint64_t bc_calls_rx, bc_replies_sent; /**< client: backchannel calls served */
	uint64_t bc_dropped; /**< client: backchannel calls with no programs or chunks, or a
				reply that does not fit inline */
	uint64_t req_state[RPCRDMA_REQ_NUM_STATES];
	uint64_t deferred;    /**< calls the upper layer finished later (orpc_svc_defer) */
	uint64_t ddp_placed;  /**< replies whose DDP data the handler put in place (no copy) */
	uint64_t ddp_replies; /**< client: replies whose results' trailing opaque came by the
				 write chunk it offered */
	uint64_t in_place_calls; /**< calls whose read chunk the RDMA READs put where the rebuilt
				    call has it (no copy) */	/** rdma_errors of which a message longer than the receive buffers (the inline size announced): the
	 * receive fails with LOC_LEN_ERR and the QP goes to error; no RDMA_ERROR can answer it,
	 * the peer's SEND fails (a NAK, invalid request) and the connection ends */
	uint64_t rx_too_long;
};

struct rpcrdma_ep;

/** Client completion: err 0 with the whole RPC reply (write-chunk data spliced back at its
 * end), or -EIO (the connection failed), -EPROTO (RDMA_ERROR from the server),
 * -ECANCELED (endpoint destroyed). */
typedef void (*rpcrdma_done_t)(void *ctx, int err, const uint8_t *reply, uint32_t len);

/** A call to send. */
struct rpcrdma_call {
	const uint8_t *msg; /**< the whole RPC call (XDR) */
	uint32_t len;
	uint32_t ddp_off; /**< DDP-eligible data: msg[ddp_off, ddp_off + ddp_len) is the content
			       of the opaque that ends the call (ddp_len 0: none) */
	uint32_t ddp_len;
	bool ddp_reply;	    /**< offer a write chunk for the opaque that ends the results */
	uint32_t reply_max; /**< results may be this long: offer a reply chunk if it is more
			       than fits inline (0: inline only) */
};

/**
 * Create an endpoint: its CQ, its RC QP (RESET, for roce_cm_connect/accept), and its
 * registered buffers. svc: the server's programs; for a client, the programs it serves on the
 * backchannel (RFC 8167; NULL: none).
 * @return the endpoint, or NULL with rte_errno EINVAL (a conf value out of range), ENOMEM
 */
struct rpcrdma_ep *rpcrdma_ep_create(struct roce_dev *dev, struct roce_pd *pd,
				     enum rpcrdma_role role, const struct rpcrdma_ep_conf *conf,
				     struct orpc_svc *svc);

/** The QP to hand to the CM. */
struct roce_qp *rpcrdma_ep_qp(const struct rpcrdma_ep *ep);

/** RFC 8797 private data for the CM's REQ (client) or REP (server): 0 or 8 bytes. */
uint8_t rpcrdma_ep_private_data(const struct rpcrdma_ep *ep, uint8_t out[RPCRDMA_CM_PRIV_LEN]);

/**
 * The QP has left RESET (after roce_cm_accept on the server, at ESTABLISHED on the client):
 * take the peer's private data (NULL/0: none, so 1024-byte inline) and
 * post the receives.
 * @return 0, or -errno from posting
 */
int rpcrdma_ep_start(struct rpcrdma_ep *ep, const uint8_t *peer_priv, uint32_t len);

/** Poll completions and move requests on. Never blocks. @return work done */
int rpcrdma_ep_poll(struct rpcrdma_ep *ep);

/**
 * Client: start a call.
 * @return 0, -EBUSY (credits or slots exhausted: poll and try again), -E2BIG (longer than
 *         max_chunk), -ENOTCONN (not started, or failed), -EINVAL (ddp range outside the call)
 */
int rpcrdma_clnt_call(struct rpcrdma_ep *ep, const struct rpcrdma_call *c, rpcrdma_done_t done,
		      void *ctx);

/**
 * Server: send a call to the client on the backchannel (RFC 8167: the same connection, inline
 * only, told from forward traffic by the RPC direction word); its reply comes to done.
 * @return 0, -EINVAL (not a server, not a call), -ENOTCONN, -EBUSY (RPCRDMA_BC_SLOTS in
 *         flight, or no send buffer), -E2BIG (longer than the client's inline receive)
 */
int rpcrdma_ep_bc_call(struct rpcrdma_ep *ep, const uint8_t *msg, uint32_t len, rpcrdma_done_t done,
		       void *ctx);

/** Calls the client may start now (credits and slots). */
uint32_t rpcrdma_clnt_room(const struct rpcrdma_ep *ep);

/** The peer's parameters as negotiated. */
struct rpcrdma_ep_info {
	bool peer_priv;	      /**< the peer sent RFC 8797 private data */
	bool peer_remote_inv; /**< it accepts Send With Invalidate */
	uint32_t inline_send; /**< our inline sends are at most this long */
	uint32_t inline_recv;
	uint32_t credits; /**< server: granted; client: last grant received */
	/** server: the credits in use now, calls received and not answered yet: those waiting
	 * for a request (in arrival order) and those a request serves */
	uint32_t calls_waiting, calls_serving;
	uint32_t last_frwr_key;	 /**< client with frwr: the key of the last registration */
	uint64_t last_frwr_iova; /**< and the address it starts at */
	bool failed;
	/** when a completion failed it (not a flush): its status, and the kind of work request
	 * ("receive", "SEND", "RDMA READ", "RDMA WRITE", "registration", "LOCAL_INV"); "" when
	 * it failed otherwise (a receive could not be posted again) */
	enum roce_wc_status fail_status;
	const char *fail_wr;
};
void rpcrdma_ep_info(const struct rpcrdma_ep *ep, struct rpcrdma_ep_info *i);
/** The completion that failed the endpoint, in words ("LOC_LEN_ERR on its receive"), into
 * @buf; NULL when none did (@i: rpcrdma_ep_info's, or its fail_status and fail_wr alone) */
const char *rpcrdma_ep_fail_str(const struct rpcrdma_ep_info *i, char *buf, size_t len);
const struct rpcrdma_ep_stats *rpcrdma_ep_stats(const struct rpcrdma_ep *ep);

/** Server: start no new call (a drain before stopping). Calls already running finish and are
 * answered; those received from now on wait in their receive buffers, unserved, for the
 * client to send again on its next connection. */
void rpcrdma_ep_quiesce(struct rpcrdma_ep *ep);
/** Server: a call the upper layer deferred (orpc_svc_defer) has not ended yet; its end comes
 * back on the endpoint's lcore, so the endpoint must stay there until then. */
bool rpcrdma_ep_deferred(const struct rpcrdma_ep *ep);
/** Server: a call is being served or a reply has not completed yet (false once failed). */
bool rpcrdma_ep_busy(const struct rpcrdma_ep *ep);

/**
 * Destroy: outstanding client calls complete with -ECANCELED, the QP is destroyed (it must be
 * out of the CM: disconnected, or never connected; on a device with several lanes from the
 * primary lane's lcore, which roce_destroy_qp answers -EBUSY until the QP's lane let go of it),
 * the regions are deregistered and the memory freed. A region that frames still queued in the stack point into cannot be deregistered yet
 * (roce_dereg_mr's -EBUSY): then the endpoint stays closed but allocated, and this is called
 * again after the lcore has polled (from outside the poll hooks, or on a later poll).
 * @return 0 when it is gone, -EBUSY when it must be called again
 */
int rpcrdma_ep_destroy(struct rpcrdma_ep *ep);

/** Tell the endpoint who the peer is (the CM id's remote address and port), so the upper
 * layer sees it in orpc_req.peer (exports match clients by address). RDMA_XPRT either way. */
void rpcrdma_ep_set_peer(struct rpcrdma_ep *ep, const struct stk_ipaddr *ip, uint16_t port);

#endif /* RPCRDMA_EP_H */
