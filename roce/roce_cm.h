/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm.h - connection management over RoCEv2: the IBTA communication manager (IBA Vol 1
 * ch. 12) on the device's GSI QP (QP1), with RDMA CM IP addressing (IBA Annex A11, as
 * librdmacm and Linux's rdma_cm do it). The API is modelled on librdmacm's event channel:
 * identifiers, listen/connect/accept/reject/disconnect, and events the owner polls.
 *
 * Threading: a CM belongs to its device and so to the lcore that polls the device
 * (roce_poll). Every call here is made on that lcore, and events are delivered there: the
 * owner drains them with roce_cm_get_event() from its loop. Nothing blocks.
 *
 * Queue pairs: the consumer creates its QP (RC, or UD for the UDP port space) in RESET and
 * hands it to roce_cm_connect() or roce_cm_accept(); the CM moves it through INIT, RTR and
 * RTS with the attributes negotiated in REQ and REP (PSNs, path MTU, responder resources
 * and initiator depth, retry and RNR retry counts, the local ACK timeout and the path), and
 * to ERR on disconnect or reject. The QP stays the consumer's to destroy.
 */
#ifndef ROCE_CM_H
#define ROCE_CM_H

#include <stdint.h>

#include "roce_verbs.h"
#include "stk_pkt.h"

struct roce_cm;

/** RDMA CM port spaces (IBA A11.1.1; the second 16 bits of the service ID). */
enum roce_cm_ps {
	ROCE_CM_PS_TCP = 0x0106, /**< RC connections (REQ/REP/RTU) */
	ROCE_CM_PS_UDP = 0x0111, /**< UD services (SIDR_REQ/SIDR_REP) */
};

#define ROCE_CM_EVENT_LIST(X)                                                                      \
	X(CONNECT_REQUEST)  /**< passive: a REQ or SIDR_REQ for a listener; a new id */            \
	X(CONNECT_RESPONSE) /**< active, connected without a QP: REP arrived, accept to RTU */     \
	X(ESTABLISHED)	    /**< RTU sent (active) or received (passive); SIDR_REP (UD) */         \
	X(REJECTED)	    /**< a REJ arrived; status = the IBA reject reason */                  \
	X(UNREACHABLE)	    /**< no answer after the retries, or SIDR_REP with a bad status */     \
	X(DISCONNECTED)	    /**< DREQ received, or our DREQ answered or timed out */               \
	X(TIMEWAIT_EXIT)    /**< the connection left TimeWait: its QP number is free of it */

#define ROCE_CM_EVENT_ENUM_(n) ROCE_CM_EVENT_##n,
enum roce_cm_event_type { ROCE_CM_EVENT_LIST(ROCE_CM_EVENT_ENUM_) ROCE_CM_EVENT_NUM };
const char *roce_cm_event_str(enum roce_cm_event_type e);

/** A connection identifier (librdmacm's rdma_cm_id). context is the user's to set; the
 * other fields are read-only for users. */
struct roce_cm_id {
	struct roce_cm *cm;
	void *context; /**< the user's: a new id from CONNECT_REQUEST starts with the listener's */
	struct roce_qp *qp;
	enum roce_cm_ps ps;
	struct stk_ipaddr local_ip, remote_ip;
	uint16_t local_port, remote_port;
	uint32_t remote_qpn;  /**< the peer's QPN once known (REQ, REP, SIDR_REP) */
	uint32_t remote_qkey; /**< UD: the Q_Key from SIDR_REP */
};

/** Connection parameters (rdma_conn_param and the rdma_cm options). 0 picks the default. */
struct roce_cm_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources; /**< READ/atomic we accept at once (default: 16) */
	uint8_t initiator_depth;     /**< READ/atomic we issue at once (default: 16) */
	uint8_t retry_count;	     /**< transport retries, 1..7 (default 7) */
	uint8_t rnr_retry_count;     /**< 1..7, 7 = infinite (default 7) */
	uint8_t min_rnr_timer;	     /**< IBA RNR timer code we NAK with (default 12) */
	uint8_t local_ack_timeout;   /**< 4.096 us * 2^x (default 14: 67 ms) */
	uint8_t cm_response_timeout; /**< 4.096 us * 2^x for CM answers (default 20: 4.3 s) */
	uint8_t max_cm_retries;	     /**< REQ/REP/DREQ resends (default 15) */
	uint32_t qkey;		     /**< UD accept: the Q_Key to advertise (default: the QP's) */
	uint32_t qp_num;     /**< connect without a QP: the QPN the REQ announces (required) */
	uint32_t timeout_ms; /**< connect: give up (UNREACHABLE, -ETIMEDOUT) if no REP/REJ by
			      * then, also while the peer's MAC is unresolved; 0 = by retries */
};

/** What roce_cm_get_event() returns. Private data is copied into the event. */
struct roce_cm_event {
	enum roce_cm_event_type event;
	int status; /**< REJECTED: reject reason; UNREACHABLE: -ETIMEDOUT or SIDR status */
	struct roce_cm_id *id;
	struct roce_cm_id *listen_id; /**< CONNECT_REQUEST: the listener it came through */
	/** the peer's parameters (CONNECT_REQUEST from REQ, ESTABLISHED/RESPONSE from REP) */
	uint8_t responder_resources, initiator_depth, retry_count, rnr_retry_count;
	uint32_t qp_num; /**< the peer's QPN */
	uint32_t qkey;	 /**< UD: the Q_Key */
	uint8_t private_data_len;
	uint8_t private_data[224];
};

/**
 * Start the CM on @p dev: creates QP1 (UD, Q_Key 0x80010000) and its buffers, and hooks the
 * CM into the device's poll. @return the CM, or NULL with rte_errno = EEXIST (the device
 * has one), ENOMEM.
 */
struct roce_cm *roce_cm_open(struct roce_dev *dev);
/** Stop it. @return 0, or -EBUSY while identifiers remain or MADs it sent still wait in a
 * queue (they point into its buffers: poll and call again). */
int roce_cm_close(struct roce_cm *cm);

/** @return a new identifier, or NULL with rte_errno = EINVAL / ENOSPC (table full). */
struct roce_cm_id *roce_cm_create_id(struct roce_cm *cm, enum roce_cm_ps ps, void *context);
/**
 * Release an identifier. A connected one sends DREQ first (once, not waited for), a
 * pending request is rejected; its queued events are dropped. @return 0 or -EINVAL.
 */
int roce_cm_destroy_id(struct roce_cm_id *id);

/** Accept REQs (SIDR_REQs for UDP) to @p port. @return 0, -EADDRINUSE, -EINVAL. */
int roce_cm_listen(struct roce_cm_id *id, uint16_t port, int backlog);

/**
 * Connect to @p dst : @p port with @p qp (RESET; RC for TCP, UD for UDP). For RC, @p qp may
 * be NULL, with param->qp_num naming the QP the REQ announces (librdmacm's rule): the REP is
 * then reported as CONNECT_RESPONSE and roce_cm_accept() with that QP finishes.
 * The MAC is found by the stack's ARP/ND when the REQ is sent.
 * @return 0; -EINVAL (state, QP type or state, private data too long), -EADDRNOTAVAIL.
 */
int roce_cm_connect(struct roce_cm_id *id, const struct stk_ipaddr *dst, uint16_t port,
		    struct roce_qp *qp, const struct roce_cm_conn_param *param);

/**
 * Passive side: accept the request of @p id (from CONNECT_REQUEST) with @p qp; the QP goes
 * to RTS and REP (or SIDR_REP) is sent. Active side after CONNECT_RESPONSE: bring @p qp
 * up from the REP and send RTU. @return 0, -EINVAL (state, QP), -EIO (modify failed).
 */
int roce_cm_accept(struct roce_cm_id *id, struct roce_qp *qp,
		   const struct roce_cm_conn_param *param);

/** Reject a request (REJ "consumer reject", or SIDR_REP "rejected"). @return 0 or -EINVAL. */
int roce_cm_reject(struct roce_cm_id *id, const void *private_data, uint8_t len);

/** Send DREQ, move the QP to ERR (flushing it). @return 0 or -EINVAL (not connected). */
int roce_cm_disconnect(struct roce_cm_id *id);

/** Take the next event. @return 0, or -EAGAIN when there is none. */
int roce_cm_get_event(struct roce_cm *cm, struct roce_cm_event *ev);

/** Counters (also in telemetry /droce/cm). */
struct roce_cm_stats {
	uint64_t ids;		    /**< live identifiers */
	uint64_t rx_mads;	    /**< MADs received on QP1 */
	uint64_t tx_mads;	    /**< MADs sent */
	uint64_t retransmits;	    /**< REQ/REP/DREQ/SIDR_REQ resent on timeout */
	uint64_t rx_drop_bad;	    /**< undecodable, wrong class/version: dropped */
	uint64_t rx_drop_nomatch;   /**< no identifier for the comm ID: dropped */
	uint64_t rx_dup;	    /**< duplicates (answered as IBA 12.9 says) */
	uint64_t rej_sent;	    /**< REJs sent (any reason) */
	uint64_t rej_no_listener;   /**< ... of which: invalid service ID */
	uint64_t rej_backlog;	    /**< ... of which: listener backlog full / id table full */
	uint64_t rej_stale;	    /**< ... of which: stale connection */
	uint64_t events;	    /**< events queued */
	uint64_t events_dropped;    /**< events lost because the queue was full */
	uint64_t rx_drop_peer_addr; /**< naming a connection, from another address: dropped */
	uint64_t rx_drop_comm_id;   /**< our comm ID right, the peer's wrong: dropped */
	uint64_t rej_events_full;   /**< REQ/SIDR_REQ refused: the application is behind */
	uint64_t half_open_expired; /**< REQ_RCVD ended by the half-open timer */
	uint64_t events_deferred;   /**< events that waited beyond the 512-entry ring */
	uint64_t tx_drop;   /**< MADs not sent: the wait queue full too, no address handle */
	uint64_t tx_waited; /**< MADs that waited for room in QP1's send queue */
};
void roce_cm_stats(const struct roce_cm *cm, struct roce_cm_stats *s);

/** A listener's counters. */
struct roce_cm_listen_stats {
	uint64_t pending;	    /**< requests delivered, not yet accepted or rejected */
	uint64_t requests;	    /**< CONNECT_REQUESTs delivered */
	uint64_t rej_backlog;	    /**< REQs refused (REJ no resources): backlog or ids full */
	uint64_t rej_events_full;   /**< ... refused because the event queue was full */
	uint64_t half_open_expired; /**< requests never answered, ended by the half-open timer */
};
/** @return 0, or -EINVAL if @p id is not listening. */
int roce_cm_listen_stats(const struct roce_cm_id *id, struct roce_cm_listen_stats *s);

/** The CM of @p dev, or NULL. */
struct roce_cm *roce_cm_of(struct roce_dev *dev);

#endif /* ROCE_CM_H */
