/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_int.h - internals of the connection manager, shared by roce_cm.c (identifiers,
 * events, QP1 I/O, timers, connection set-up), roce_cm_sidr.c and roce_cm_disconnect.c.
 * Not installed.
 */
#ifndef ROCE_CM_INT_H
#define ROCE_CM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "roce_cm.h"
#include "roce_cm_wire.h"
#include "roce_int.h"

#define CM_MAX_IDS 4096u       /* identifiers per device */
#define CM_IDX_BITS 12	       /* local comm ID = random generation << 12 | index */
#define CM_RECV_SLOTS 128u     /* QP1 receive buffers */
#define CM_SEND_DEPTH 256u     /* QP1 send queue */
#define CM_TXQ_SLOTS 2048u     /* MADs waiting for room in QP1's send queue (a power of 2) */
#define CM_EVENTS 512u	       /* event ring; beyond it events wait on an overflow list */
#define CM_HALF_OPEN_MAX_S 90u /* REQ_RCVD never lasts longer (the half-open bound) */
#define CM_SLOT (ROCE_GRH_LEN + ROCE_MAD_LEN)
#define CM_PLT_EXP 14		     /* packet life time: 67 ms (Linux assumes 16 for RoCE paths) */
#define CM_RDMA_UDP_QKEY 0x01234567u /* librdmacm's default Q_Key for UDP port space ids */

#define CM_STATE_LIST(X)                                                                           \
	X(IDLE)		 /* created, or finished (rejected, timed out, out of TimeWait) */         \
	X(LISTEN)	 /* waiting for REQ / SIDR_REQ to its service ID */                        \
	X(REQ_SENT)	 /* active: REQ out, waiting for REP, REJ or MRA */                        \
	X(MRA_RCVD)	 /* active: the peer asked for more time (MRA) */                          \
	X(REP_RCVD)	 /* active without a QP: waiting for the user's accept to send RTU */      \
	X(REQ_RCVD)	 /* passive: CONNECT_REQUEST delivered, waiting for accept/reject */       \
	X(REP_SENT)	 /* passive: REP out, waiting for RTU */                                   \
	X(ESTABLISHED)	 /* connected */                                                           \
	X(DREQ_SENT)	 /* our DREQ out, waiting for DREP */                                      \
	X(TIMEWAIT)	 /* disconnected; the QPN must not be reused yet */                        \
	X(SIDR_REQ_SENT) /* active UD: SIDR_REQ out */                                             \
	X(SIDR_REQ_RCVD) /* passive UD: CONNECT_REQUEST delivered */

#define CM_ST_ENUM_(n) CM_##n,
enum cm_state { CM_STATE_LIST(CM_ST_ENUM_) CM_NUM_STATES };

struct cm_ev_node {
	struct cm_ev_node *next;
	struct roce_cm_event ev;
};

struct cm_conn {
	struct roce_cm_id id; /* the public part; first, so the id pointer is the conn */
	enum cm_state state;
	uint32_t idx;
	uint32_t local_comm_id, remote_comm_id;
	uint64_t remote_guid;
	uint64_t tid;
	uint64_t service_id;
	struct cm_conn *listener;	 /* passive: the listener it came through */
	int backlog;			 /* listener: how many un-accepted requests it may hold */
	int pending;			 /* listener: un-accepted requests now */
	struct roce_cm_listen_stats lst; /* listener: its requests and refusals */
	uint64_t half_open_end;		 /* REQ_RCVD: TSC past which it never waits */
	/* what to repeat on timeout (or to answer a duplicate with) */
	uint8_t mad[ROCE_MAD_LEN];
	bool have_mad;
	uint8_t mra[ROCE_MAD_LEN]; /* passive: the MRA we sent for a slow accept */
	bool mra_sent;
	uint64_t deadline; /* TSC; 0 = none */
	uint64_t timeout;  /* TSC cycles per try */
	uint8_t retries;   /* resends left */
	uint64_t give_up;  /* TSC by which a connect must be answered (timeout_ms); 0 = none */
	/* negotiated */
	struct roce_cm_conn_param p; /* ours, defaults filled in (no private data) */
	struct roce_cm_req req;	     /* passive: the REQ; active: what we sent */
	struct roce_cm_rep rep;	     /* the REP (sent or received) */
	uint32_t local_psn;
};

/* A MAD that found QP1's send queue full, waiting its turn (roce_cmi_send_mad()). */
struct cm_tx_wait {
	struct stk_ipaddr dst, src; /* src.family 0: none given */
	uint8_t mad[ROCE_MAD_LEN];
};

struct roce_cm {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp1;
	struct roce_mr *mr;
	uint8_t *buf; /* CM_RECV_SLOTS receive slots */
	uint64_t guid;
	struct cm_conn *tab[CM_MAX_IDS];
	uint32_t hint;
	uint32_t gen;	  /* the last comm ID's generation bits */
	uint32_t rnd[64]; /* random words for comm IDs, used from the end */
	unsigned rnd_left;
	uint64_t next_deadline;
	uint64_t hz;
	struct roce_cm_event ev[CM_EVENTS];
	uint32_t ev_head, ev_tail;
	struct cm_ev_node *ovf_head, *ovf_tail; /* events beyond the ring, oldest first */
	uint32_t ovf_count;
	struct cm_tx_wait *txq; /* CM_TXQ_SLOTS MADs beyond the send queue, oldest first */
	uint32_t txq_head, txq_tail;
	struct roce_cm_stats st;
	uint64_t state_cnt[CM_NUM_STATES];
};

/* shared helpers (roce_cm.c) */
static inline struct cm_conn *roce_cmi_conn_of(struct roce_cm_id *id)
{
	return (struct cm_conn *)id; /* the id is the first member */
}

void roce_cmi_set_state(struct cm_conn *c, enum cm_state s);
void roce_cmi_arm(struct cm_conn *c, uint64_t cycles, uint8_t retries);
void roce_cmi_disarm(struct cm_conn *c);
struct roce_cm_event *roce_cmi_post_event(struct roce_cm *cm, struct cm_conn *c,
					  enum roce_cm_event_type t, int status, const void *pdata,
					  size_t plen);
bool roce_cmi_events_full(const struct roce_cm *cm);
void roce_cmi_count_refusal(struct roce_cm *cm, struct cm_conn *l);
int roce_cmi_send_mad(struct roce_cm *cm, const struct stk_ipaddr *dst,
		      const struct stk_ipaddr *src, const uint8_t *mad);
int roce_cmi_send_msg(struct cm_conn *c, struct roce_cm_msg *m, bool keep);
void roce_cmi_msg_init(struct roce_cm_msg *m, uint16_t attr, uint64_t tid);
struct cm_conn *roce_cmi_conn_alloc(struct roce_cm *cm, enum roce_cm_ps ps, void *context);
struct cm_conn *roce_cmi_conn_by_comm_id(struct roce_cm *cm, uint32_t local_comm_id);
bool roce_cmi_from_peer(struct cm_conn *c, const struct stk_ipaddr *src);
struct cm_conn *roce_cmi_listener_for(struct roce_cm *cm, uint64_t sid);
void roce_cmi_qp_to_err(struct cm_conn *c);
void roce_cmi_fill_defaults(struct roce_cm_conn_param *d, const struct roce_cm_conn_param *p);
int roce_cmi_qp_ud_up(struct cm_conn *c, struct roce_qp *qp);
uint64_t roce_cmi_req_timeout(const struct cm_conn *c);
void roce_cmi_event_params(struct roce_cm_event *e, uint8_t rr, uint8_t id, uint8_t retry,
			   uint8_t rnr, uint32_t qpn);

/* SIDR (roce_cm_sidr.c) */
int roce_cmi_sidr_connect(struct cm_conn *c, struct roce_qp *qp,
			  const struct roce_cm_conn_param *param, const struct roce_cma_hdr *h);
int roce_cmi_sidr_accept(struct cm_conn *c, struct roce_qp *qp, const struct roce_cm_conn_param *p);
void roce_cmi_sidr_reject(struct cm_conn *c, const void *private_data, uint8_t len);
void roce_cmi_on_sidr_req(struct roce_cm *cm, const struct roce_cm_msg *m,
			  const struct stk_ipaddr *src, const struct stk_ipaddr *dst);
void roce_cmi_on_sidr_rep(struct roce_cm *cm, const struct roce_cm_msg *m,
			  const struct stk_ipaddr *src);

/* disconnection (roce_cm_disconnect.c) */
void roce_cmi_enter_timewait(struct cm_conn *c);
void roce_cmi_on_dreq(struct roce_cm *cm, const struct roce_cm_msg *m,
		      const struct stk_ipaddr *src);
void roce_cmi_on_drep(struct roce_cm *cm, const struct roce_cm_msg *m,
		      const struct stk_ipaddr *src);

/* roce_cm_event.c: drop the queued events of an identifier that goes away */
void roce_cmi_purge_events(struct roce_cm *cm, struct roce_cm_id *id);
/* roce_cm.c: a state's name */
const char *roce_cmi_state_name(enum cm_state s);

#endif /* ROCE_CM_INT_H */
