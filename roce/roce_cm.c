/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm.c - the communication manager (IBA Vol 1 ch. 12) over RoCEv2, with RDMA CM IP
 * addressing (IBA Annex A11).
 *
 * Operation. The CM owns the device's GSI QP (QP1, a UD QP with Q_Key 0x80010000). It posts
 * receive buffers of GRH + 256 bytes; every completion on QP1 is one MAD, decoded by
 * roce_cm_wire.c and dispatched by its attribute to a handler that looks the connection up
 * (by the local comm ID the peer echoes, or for REQ/SIDR_REQ by the service ID's listener)
 * and steps that connection's state machine. Every MAD we send goes out inline (copied at
 * post time) through an address handle made for the peer's IP; the stack's ARP/ND finds
 * the MAC. A connection keeps the last MAD it must repeat (REQ, REP, DREQ, SIDR_REQ) and one
 * deadline; roce_cm_tick(), run from the device's poll, resends it until the peer answers or
 * max_cm_retries is spent (IBA 12.4: timeouts from the CM response timeouts and the path's
 * packet life time).
 *
 * States (IBA 12.9.6 / Figure 150, the subset a RoCE endpoint without path migration uses):
 *
 *   active:  IDLE -connect-> REQ_SENT -REP-> (REP_RCVD) -RTU sent-> ESTABLISHED
 *   passive: LISTEN ...REQ...> new id REQ_RCVD -accept-> REP_SENT -RTU-> ESTABLISHED
 *   both:    ESTABLISHED -disconnect-> DREQ_SENT -DREP/timeout-> TIMEWAIT -> IDLE
 *            ESTABLISHED -DREQ-> (DREP sent) TIMEWAIT -> IDLE
 *   UD:      IDLE -connect-> SIDR_REQ_SENT -SIDR_REP-> IDLE;  new id SIDR_REQ_RCVD -> IDLE
 *
 * Files: this one has identifiers, events, QP1 I/O, timers and connection set-up;
 * roce_cm_sidr.c the UD service resolution, roce_cm_disconnect.c DREQ/DREP and TimeWait.
 *
 * Duplicates (IBA 12.9.8.2-4): a repeated REQ is answered with the MRA or REP already sent
 * (or REJ "stale connection" if the connection is in TimeWait), a repeated REP with the RTU,
 * a repeated DREQ with DREP (also for unknown comm IDs, C12-24), a repeated SIDR_REQ with
 * the SIDR_REP already sent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_telemetry.h>

#include "roce_cm_int.h"
#include "roce_engine.h"
#include "stk_iface.h"
#include "stk_stack.h"

#define CM_ST_NAME_(n) #n,
static const char *const cm_state_names[] = {CM_STATE_LIST(CM_ST_NAME_)};

const char *roce_cmi_state_name(enum cm_state s)
{
	return (unsigned)s < RTE_DIM(cm_state_names) ? cm_state_names[s] : "?";
}

extern int roce_logtype;

static uint8_t mtu_code(uint32_t bytes)
{
	uint8_t code = ROCE_MTU_256;

	while (code < ROCE_MTU_4096 && roce_mtu_bytes((enum roce_mtu)(code + 1)) <= bytes)
		code++;
	return code;
}

/* ------------------------------------------------------------------ helpers */

void roce_cmi_set_state(struct cm_conn *c, enum cm_state s)
{
	if (c->state != s) {
		c->id.cm->state_cnt[s]++;
		rte_log(RTE_LOG_DEBUG, roce_logtype, "cm: id %08x %s -> %s\n", c->local_comm_id,
			cm_state_names[c->state], cm_state_names[s]);
	}
	c->state = s;
}

/* the active side waits for an answer to its REQ or SIDR_REQ */
static bool connecting(const struct cm_conn *c)
{
	return c->state == CM_REQ_SENT || c->state == CM_MRA_RCVD || c->state == CM_SIDR_REQ_SENT;
}

void roce_cmi_arm(struct cm_conn *c, uint64_t cycles, uint8_t retries)
{
	struct roce_cm *cm = c->id.cm;

	c->timeout = cycles;
	c->retries = retries;
	c->deadline = rte_get_tsc_cycles() + cycles;
	if (c->give_up && connecting(c) && c->deadline > c->give_up)
		c->deadline = c->give_up;
	if (!cm->next_deadline || c->deadline < cm->next_deadline)
		cm->next_deadline = c->deadline;
}

void roce_cmi_disarm(struct cm_conn *c)
{
	c->deadline = 0;
}

static uint64_t guid_of(const struct rte_ether_addr *mac)
{
	/* EUI-64 from the MAC, U/L bit inverted, as Linux rxe makes its node GUID */
	const uint8_t *b = mac->addr_bytes;
	uint8_t g[8] = {b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]};
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | g[i];
	return v;
}

static uint64_t service_id(enum roce_cm_ps ps, uint16_t port)
{
	return ((uint64_t)ps << 16) | port;
}

/* ------------------------------------------------------------------ events */

/* ------------------------------------------------------------------ sending */

/* Post one 256-byte MAD to QP1 at @dst. Inline, so the bytes are ours again on return; the
 * address handle is released when the send completes (its wr_id). */
static int post_mad(struct roce_cm *cm, const struct stk_ipaddr *dst, const struct stk_ipaddr *src,
		    const uint8_t *mad)
{
	struct roce_path path;
	struct roce_send_wr wr, *bad;
	struct roce_sge sge;
	struct roce_ah *ah;

	memset(&path, 0, sizeof(path));
	path.dgid_ip = *dst;
	if (src)
		path.sgid_ip = *src;
	ah = roce_create_ah(cm->pd, &path);
	if (!ah) {
		cm->st.tx_drop++;
		return -ENOMEM;
	}
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)mad;
	sge.length = ROCE_MAD_LEN;
	sge.lkey = 0;
	wr.wr_id = (uintptr_t)ah;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_INLINE | ROCE_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ROCE_GSI_QPN;
	wr.wr.ud.remote_qkey = ROCE_GSI_QKEY;
	if (roce_post_send(cm->qp1, &wr, &bad) != 0) {
		roce_destroy_ah(ah);
		cm->st.tx_drop++;
		return -ENOBUFS;
	}
	cm->st.tx_mads++;
	return 0;
}

static bool qp1_full(const struct roce_cm *cm)
{
	return roce_wq_count(&cm->qp1->sq) >= cm->qp1->sq.max_wr;
}

/* Send a MAD, or when QP1's send queue is full (or MADs already wait, which keeps the order)
 * queue a copy to go out as completions make room (txq_drain() at every tick), as Linux's MAD
 * layer holds sends beyond the send queue on an overflow list (ib_send_mad()). Before, such a
 * MAD was lost and waited for its sender's retransmission timer: cmtime's 1,000 REQs at once
 * took 4.4 s per 256 to connect over a veth (CM_SEND_DEPTH, docs/cm.md). */
int roce_cmi_send_mad(struct roce_cm *cm, const struct stk_ipaddr *dst,
		      const struct stk_ipaddr *src, const uint8_t *mad)
{
	struct cm_tx_wait *w;

	if (cm->txq_head == cm->txq_tail && !qp1_full(cm))
		return post_mad(cm, dst, src, mad);
	if (cm->txq_tail - cm->txq_head >= CM_TXQ_SLOTS) {
		cm->st.tx_drop++;
		return -ENOBUFS;
	}
	w = &cm->txq[cm->txq_tail++ & (CM_TXQ_SLOTS - 1)];
	w->dst = *dst;
	memset(&w->src, 0, sizeof(w->src));
	if (src)
		w->src = *src;
	memcpy(w->mad, mad, ROCE_MAD_LEN);
	cm->st.tx_waited++;
	return 0;
}

/* What waits goes out while QP1's send queue has room, oldest first. */
static void txq_drain(struct roce_cm *cm)
{
	while (cm->txq_head != cm->txq_tail && !qp1_full(cm)) {
		const struct cm_tx_wait *w = &cm->txq[cm->txq_head++ & (CM_TXQ_SLOTS - 1)];

		post_mad(cm, &w->dst, w->src.family ? &w->src : NULL, w->mad);
	}
}

int roce_cmi_send_msg(struct cm_conn *c, struct roce_cm_msg *m, bool keep)
{
	uint8_t mad[ROCE_MAD_LEN];

	if (roce_cm_encode(m, mad, sizeof(mad)) != ROCE_MAD_LEN)
		return -EINVAL;
	if (keep) {
		memcpy(c->mad, mad, sizeof(mad));
		c->have_mad = true;
	}
	return roce_cmi_send_mad(c->id.cm, &c->id.remote_ip, &c->id.local_ip, mad);
}

void roce_cmi_msg_init(struct roce_cm_msg *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->method = ROCE_MAD_METHOD_SEND;
	m->attr_id = attr;
	m->tid = tid;
}

/* A REJ that needs no identifier (no listener, stale, flood): answers @req from @src. */
static void send_rej_to(struct roce_cm *cm, const struct stk_ipaddr *src, uint64_t tid,
			uint32_t remote_comm_id, uint32_t local_comm_id, uint8_t msg_rejected,
			uint16_t reason)
{
	struct roce_cm_msg m;
	uint8_t mad[ROCE_MAD_LEN];

	roce_cmi_msg_init(&m, ROCE_CM_ATTR_REJ, tid);
	m.u.rej.local_comm_id = local_comm_id;
	m.u.rej.remote_comm_id = remote_comm_id;
	m.u.rej.msg_rejected = msg_rejected;
	m.u.rej.reason = reason;
	if (roce_cm_encode(&m, mad, sizeof(mad)) == ROCE_MAD_LEN &&
	    roce_cmi_send_mad(cm, src, NULL, mad) == 0)
		cm->st.rej_sent++;
}

static void send_rej(struct cm_conn *c, uint8_t msg_rejected, uint16_t reason, const void *pdata,
		     uint8_t plen)
{
	struct roce_cm_msg m;

	roce_cmi_msg_init(&m, ROCE_CM_ATTR_REJ, c->tid);
	m.u.rej.local_comm_id = c->local_comm_id;
	m.u.rej.remote_comm_id = c->remote_comm_id;
	m.u.rej.msg_rejected = msg_rejected;
	m.u.rej.reason = reason;
	if (pdata && plen) {
		plen = RTE_MIN(plen, (uint8_t)sizeof(m.u.rej.private_data));
		memcpy(m.u.rej.private_data, pdata, plen);
	}
	if (roce_cmi_send_msg(c, &m, false) == 0)
		c->id.cm->st.rej_sent++;
}

/* ------------------------------------------------------------------ identifiers */

/*
 * 32 random bits from the kernel's generator (getrandom(2), which never blocks once the
 * system is up), taken in batches so a REQ flood costs one system call per 64 identifiers;
 * rte_rand() only if the kernel has none to give.
 */
static uint32_t cm_random(struct roce_cm *cm)
{
	if (cm->rnd_left == 0) {
		ssize_t n = getrandom(cm->rnd, sizeof(cm->rnd), GRND_NONBLOCK);

		if (n != (ssize_t)sizeof(cm->rnd))
			for (unsigned i = 0; i < RTE_DIM(cm->rnd); i++)
				cm->rnd[i] = (uint32_t)rte_rand();
		cm->rnd_left = RTE_DIM(cm->rnd);
	}
	return cm->rnd[--cm->rnd_left];
}

struct cm_conn *roce_cmi_conn_alloc(struct roce_cm *cm, enum roce_cm_ps ps, void *context)
{
	struct cm_conn *c;
	uint32_t gen;

	for (uint32_t k = 0; k < CM_MAX_IDS; k++) {
		uint32_t i = (cm->hint + k) % CM_MAX_IDS;

		if (cm->tab[i])
			continue;
		c = rte_zmalloc("roce_cm_id", sizeof(*c), 0);
		if (!c) {
			rte_errno = ENOMEM;
			return NULL;
		}
		cm->tab[i] = c;
		cm->hint = (i + 1) % CM_MAX_IDS;
		c->idx = i;
		/* random generation bits above the index, never 0 and never the last one, so a
		 * comm ID cannot be guessed from another (Linux XORs its IDs with a random
		 * operand for the same reason) */
		do {
			gen = cm_random(cm) & ((1u << (32 - CM_IDX_BITS)) - 1);
		} while (gen == 0 || gen == cm->gen);
		cm->gen = gen;
		c->local_comm_id = gen << CM_IDX_BITS | i;
		c->id.cm = cm;
		c->id.context = context;
		c->id.ps = ps;
		c->state = CM_IDLE;
		cm->state_cnt[CM_IDLE]++;
		cm->st.ids++;
		return c;
	}
	rte_errno = ENOSPC;
	return NULL;
}

static void conn_free(struct cm_conn *c)
{
	struct roce_cm *cm = c->id.cm;

	if (c->listener && (c->state == CM_REQ_RCVD || c->state == CM_SIDR_REQ_RCVD))
		c->listener->pending--;
	/* requests still waiting on a listener that goes away lose it */
	for (uint32_t i = 0; i < CM_MAX_IDS; i++)
		if (cm->tab[i] && cm->tab[i]->listener == c)
			cm->tab[i]->listener = NULL;
	roce_cmi_purge_events(cm, &c->id);
	cm->tab[c->idx] = NULL;
	cm->st.ids--;
	rte_free(c);
}

/*
 * Is a message that names @c (by our comm ID) from @c's peer? The CM answers messages on the
 * path they came from, so a peer's REP, MRA, REJ, RTU, DREQ, DREP and SIDR_REP come from the
 * address we know it by (Linux's ib_cm answers from the address the message it answers came
 * to: cm_create_response_msg_ah() builds the reply's address handle from the work
 * completion). From any other address the message is another host's, dropped and counted,
 * whatever comm IDs it names (issue 11 item 8; IBA is silent on checking it).
 */
bool roce_cmi_from_peer(struct cm_conn *c, const struct stk_ipaddr *src)
{
	if (stk_ipaddr_eq(&c->id.remote_ip, src))
		return true;
	c->id.cm->st.rx_drop_peer_addr++;
	return false;
}

struct cm_conn *roce_cmi_conn_by_comm_id(struct roce_cm *cm, uint32_t local_comm_id)
{
	struct cm_conn *c = cm->tab[local_comm_id & (CM_MAX_IDS - 1)];

	return c && c->local_comm_id == local_comm_id && c->state != CM_LISTEN ? c : NULL;
}

struct roce_cm_id *roce_cm_create_id(struct roce_cm *cm, enum roce_cm_ps ps, void *context)
{
	struct cm_conn *c;

	if (!cm || (ps != ROCE_CM_PS_TCP && ps != ROCE_CM_PS_UDP)) {
		rte_errno = EINVAL;
		return NULL;
	}
	c = roce_cmi_conn_alloc(cm, ps, context);
	return c ? &c->id : NULL;
}

void roce_cm_qp_destroyed(const struct roce_qp *qp)
{
	/* any device's CM: nothing stops an application handing a QP to another device's CM */
	for (unsigned d = 0; d < STK_MAX_PORTS; d++) {
		struct roce_cm *cm = roce_devs[d] ? roce_devs[d]->cm : NULL;

		for (uint32_t i = 0; cm && i < CM_MAX_IDS; i++)
			if (cm->tab[i] && cm->tab[i]->id.qp == qp)
				cm->tab[i]->id.qp = NULL;
	}
}

void roce_cmi_qp_to_err(struct cm_conn *c)
{
	struct roce_qp_attr a;

	if (!c->id.qp || roce_qp_state(c->id.qp) == ROCE_QPS_RESET ||
	    roce_qp_state(c->id.qp) == ROCE_QPS_ERR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_ERR;
	roce_modify_qp(c->id.qp, &a, ROCE_QP_STATE);
}

int roce_cm_destroy_id(struct roce_cm_id *id)
{
	struct cm_conn *c = roce_cmi_conn_of(id);

	if (!id)
		return -EINVAL;
	switch (c->state) {
	case CM_ESTABLISHED: {
		struct roce_cm_msg m;

		roce_cmi_msg_init(&m, ROCE_CM_ATTR_DREQ, c->tid);
		m.u.dreq.local_comm_id = c->local_comm_id;
		m.u.dreq.remote_comm_id = c->remote_comm_id;
		m.u.dreq.remote_qpn = c->id.remote_qpn;
		roce_cmi_send_msg(c, &m, false);
		roce_cmi_qp_to_err(c);
		break;
	}
	case CM_REQ_RCVD:
		send_rej(c, ROCE_CM_REJ_MSG_REQ, ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case CM_REQ_SENT:
	case CM_MRA_RCVD:
	case CM_REP_RCVD:
		send_rej(c, c->state == CM_REP_RCVD ? ROCE_CM_REJ_MSG_REP : ROCE_CM_REJ_MSG_OTHER,
			 ROCE_CM_REJ_TIMEOUT, NULL, 0);
		roce_cmi_qp_to_err(c);
		break;
	default:
		break;
	}
	conn_free(c);
	return 0;
}

int roce_cm_listen(struct roce_cm_id *id, uint16_t port, int backlog)
{
	struct cm_conn *c = roce_cmi_conn_of(id);
	struct roce_cm *cm;
	uint64_t sid;

	if (!id || c->state != CM_IDLE || backlog < 0)
		return -EINVAL;
	cm = id->cm;
	sid = service_id(id->ps, port);
	for (uint32_t i = 0; i < CM_MAX_IDS; i++)
		if (cm->tab[i] && cm->tab[i]->state == CM_LISTEN && cm->tab[i]->service_id == sid)
			return -EADDRINUSE;
	c->service_id = sid;
	c->backlog = backlog ? backlog : 128;
	id->local_port = port;
	id->local_ip = stk_iface_get(cm->dev->iface)->ip4;
	roce_cmi_set_state(c, CM_LISTEN);
	return 0;
}

/* ------------------------------------------------------------------ QP bring-up */

void roce_cmi_fill_defaults(struct roce_cm_conn_param *d, const struct roce_cm_conn_param *p)
{
	memset(d, 0, sizeof(*d));
	if (p)
		*d = *p;
	d->private_data = NULL;
	d->private_data_len = 0;
	if (!d->responder_resources)
		d->responder_resources = ROCE_MAX_RD_ATOMIC;
	if (!d->initiator_depth)
		d->initiator_depth = ROCE_MAX_RD_ATOMIC;
	d->responder_resources = RTE_MIN(d->responder_resources, ROCE_MAX_RD_ATOMIC);
	d->initiator_depth = RTE_MIN(d->initiator_depth, ROCE_MAX_RD_ATOMIC);
	if (!d->retry_count || d->retry_count > 7)
		d->retry_count = 7;
	if (!d->rnr_retry_count || d->rnr_retry_count > 7)
		d->rnr_retry_count = 7;
	if (!d->min_rnr_timer || d->min_rnr_timer > 31)
		d->min_rnr_timer = 12;
	if (!d->local_ack_timeout || d->local_ack_timeout > 31)
		d->local_ack_timeout = 14;
	if (!d->cm_response_timeout || d->cm_response_timeout > 31)
		d->cm_response_timeout = 20;
	if (!d->max_cm_retries || d->max_cm_retries > 15)
		d->max_cm_retries = 15;
}

static int qp_init(struct cm_conn *c, struct roce_qp *qp, uint8_t responder_resources)
{
	struct roce_qp_attr a;
	int mask = ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT;

	if (roce_qp_state(qp) == ROCE_QPS_INIT)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	if (c->id.ps == ROCE_CM_PS_UDP) {
		a.qkey = c->p.qkey ? c->p.qkey : CM_RDMA_UDP_QKEY;
		mask |= ROCE_QP_QKEY;
	} else {
		/* as ib_cm_init_qp_attr: READ and atomics only when we serve any */
		a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE;
		if (responder_resources)
			a.qp_access_flags |= ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
		mask |= ROCE_QP_ACCESS_FLAGS;
	}
	return roce_modify_qp(qp, &a, mask);
}

/* RTR then RTS for an RC QP from the negotiated values. */
static int qp_connect(struct cm_conn *c, uint32_t peer_psn, uint32_t dest_qpn, uint8_t mtu,
		      uint8_t max_dest_rd, uint8_t max_rd, uint8_t retry, uint8_t rnr_retry,
		      uint8_t hop_limit, uint8_t tclass, uint32_t flow_label)
{
	struct roce_qp *qp = c->id.qp;
	struct roce_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = (enum roce_mtu)mtu;
	a.dest_qp_num = dest_qpn;
	/* IBA 12.7.24/12.7.40 as Linux ib_cm reads them: the starting PSN a side puts in its
	 * REQ or REP is the PSN it expects to *receive*; the peer sends from it (the NFS mount
	 * in nfs_rdma_full.pcap: the active side's first SEND carries the REP's PSN) */
	a.rq_psn = c->local_psn;
	a.max_dest_rd_atomic = max_dest_rd;
	a.min_rnr_timer = c->p.min_rnr_timer;
	a.ah_attr.dgid_ip = c->id.remote_ip;
	a.ah_attr.sgid_ip = c->id.local_ip;
	a.ah_attr.hop_limit = hop_limit;
	a.ah_attr.dscp = tclass >> 2;
	a.ah_attr.ecn = tclass & 3;
	if (a.ah_attr.dscp) /* a class the peer asked for; else the port's RoCE class */
		a.ah_attr.flags |= ROCE_PATH_DSCP;
	a.ah_attr.flow_label = flow_label;
	rc = roce_modify_qp(qp, &a,
			    ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				    ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				    ROCE_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = peer_psn;
	a.timeout = c->p.local_ack_timeout;
	a.retry_cnt = retry;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = max_rd;
	return roce_modify_qp(qp, &a,
			      ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

int roce_cmi_qp_ud_up(struct cm_conn *c, struct roce_qp *qp)
{
	struct roce_qp_attr a;
	int rc;

	if (roce_qp_state(qp) == ROCE_QPS_RTS)
		return 0;
	rc = qp_init(c, qp, 0);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	rc = roce_modify_qp(qp, &a, ROCE_QP_STATE);
	if (rc)
		return rc;
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = rte_rand() & ROCE_PSN_MASK;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
}

/* ------------------------------------------------------------------ active side */

uint64_t roce_cmi_req_timeout(const struct cm_conn *c)
{
	/* IBA 12.4: the remote CM response time plus a round trip of packet life time */
	return roce_exp_tsc(c->p.cm_response_timeout) + 2 * roce_exp_tsc(CM_PLT_EXP);
}

int roce_cm_connect(struct roce_cm_id *id, const struct stk_ipaddr *dst, uint16_t port,
		    struct roce_qp *qp, const struct roce_cm_conn_param *param)
{
	struct cm_conn *c = roce_cmi_conn_of(id);
	const struct stk_iface *ifc;
	struct roce_cma_hdr h;
	struct roce_cm_msg m;
	struct roce_cm *cm;
	size_t room;
	int rc;

	if (!id || !dst || c->state != CM_IDLE || (dst->family != 4 && dst->family != 6))
		return -EINVAL;
	cm = id->cm;
	if (qp && roce_qp_state(qp) != ROCE_QPS_RESET &&
	    !(id->ps == ROCE_CM_PS_UDP && roce_qp_state(qp) == ROCE_QPS_RTS))
		return -EINVAL;
	if (!qp &&
	    (id->ps == ROCE_CM_PS_UDP || !param || !param->qp_num || param->qp_num > ROCE_QPN_MASK))
		return -EINVAL;
	room = (id->ps == ROCE_CM_PS_TCP ? sizeof(m.u.req.private_data)
					 : sizeof(m.u.sidr_req.private_data)) -
	       ROCE_CMA_HDR_LEN;
	if (param && param->private_data_len > room)
		return -EINVAL;
	ifc = stk_iface_get(cm->dev->iface);
	if (stk_iface_src_for(ifc, dst, &id->local_ip) != 0)
		return -EADDRNOTAVAIL;
	roce_cmi_fill_defaults(&c->p, param);
	id->remote_ip = *dst;
	id->remote_port = port;
	if (!id->local_port)
		id->local_port = (uint16_t)(0x8000 | (rte_rand() & 0x7fff));
	id->qp = qp;
	c->service_id = service_id(id->ps, port);
	c->give_up = param && param->timeout_ms
			     ? rte_get_tsc_cycles() + (uint64_t)param->timeout_ms * cm->hz / 1000
			     : 0;
	c->tid = ((uint64_t)rte_rand() << 32) | c->local_comm_id;

	memset(&h, 0, sizeof(h));
	h.src_port = id->local_port;
	h.src = id->local_ip;
	h.dst = *dst;

	if (id->ps == ROCE_CM_PS_UDP)
		return roce_cmi_sidr_connect(c, qp, param, &h);

	if (qp) {
		rc = qp_init(c, qp, c->p.responder_resources);
		if (rc)
			return -EINVAL;
		id->qp = qp;
	}
	c->local_psn = rte_rand() & ROCE_PSN_MASK;
	roce_cmi_msg_init(&m, ROCE_CM_ATTR_REQ, c->tid);
	{
		struct roce_cm_req *r = &m.u.req;

		r->local_comm_id = c->local_comm_id;
		r->service_id = c->service_id;
		r->local_ca_guid = cm->guid;
		r->local_qkey = 0;
		r->local_qpn = qp ? roce_qp_num(qp) : param->qp_num;
		r->responder_resources = c->p.responder_resources;
		r->initiator_depth = c->p.initiator_depth;
		r->remote_cm_resp_timeout = c->p.cm_response_timeout;
		r->transport_type = 0; /* RC */
		r->e2e_flow_ctrl = 1;
		r->starting_psn = c->local_psn;
		r->local_cm_resp_timeout = c->p.cm_response_timeout;
		r->retry_count = c->p.retry_count;
		r->pkey = 0xffff;
		r->path_mtu = (uint8_t)mtu_code(cm->dev->max_path_mtu);
		r->rnr_retry_count = c->p.rnr_retry_count;
		r->max_cm_retries = c->p.max_cm_retries;
		r->prim.local_lid = 0xffff;
		r->prim.remote_lid = 0xffff;
		roce_gid_from_ip(&id->local_ip, r->prim.local_gid);
		roce_gid_from_ip(dst, r->prim.remote_gid);
		r->prim.packet_rate = 0; /* as Linux rdma_cm sends it on RoCE */
		r->prim.traffic_class = (uint8_t)(ifc->qos.roce_dscp << 2);
		r->prim.hop_limit = 64;
		r->prim.sl = 0;
		r->prim.subnet_local = 0;
		r->prim.local_ack_timeout = c->p.local_ack_timeout;
		roce_cma_hdr_encode(&h, r->private_data, sizeof(r->private_data));
		if (param && param->private_data_len)
			memcpy(r->private_data + ROCE_CMA_HDR_LEN, param->private_data,
			       param->private_data_len);
		c->req = *r;
	}
	roce_cmi_set_state(c, CM_REQ_SENT);
	roce_cmi_send_msg(c, &m, true);
	roce_cmi_arm(c, roce_cmi_req_timeout(c), c->p.max_cm_retries);
	return 0;
}

static void send_rtu(struct cm_conn *c)
{
	struct roce_cm_msg m;

	roce_cmi_msg_init(&m, ROCE_CM_ATTR_RTU, c->tid);
	m.u.rtu.local_comm_id = c->local_comm_id;
	m.u.rtu.remote_comm_id = c->remote_comm_id;
	roce_cmi_send_msg(c, &m, false);
}

void roce_cmi_event_params(struct roce_cm_event *e, uint8_t rr, uint8_t id, uint8_t retry,
			   uint8_t rnr, uint32_t qpn)
{
	if (!e)
		return;
	e->responder_resources = rr;
	e->initiator_depth = id;
	e->retry_count = retry;
	e->rnr_retry_count = rnr;
	e->qp_num = qpn;
}

/* Active side: REP accepted, bring the QP to RTS from it and send RTU. */
static int active_finish(struct cm_conn *c)
{
	const struct roce_cm_rep *r = &c->rep;
	struct roce_cm_event *e;
	int rc;

	rc = qp_connect(c, r->starting_psn, r->local_qpn, c->req.path_mtu,
			RTE_MIN(c->p.responder_resources, r->initiator_depth),
			RTE_MIN(c->p.initiator_depth, r->responder_resources), c->p.retry_count,
			r->rnr_retry_count, c->req.prim.hop_limit, c->req.prim.traffic_class,
			c->req.prim.flow_label);
	if (rc) {
		send_rej(c, ROCE_CM_REJ_MSG_REP, ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		return rc;
	}
	send_rtu(c);
	roce_cmi_set_state(c, CM_ESTABLISHED);
	e = roce_cmi_post_event(c->id.cm, c, ROCE_CM_EVENT_ESTABLISHED, 0, r->private_data,
				sizeof(r->private_data));
	roce_cmi_event_params(e, r->responder_resources, r->initiator_depth, 0, r->rnr_retry_count,
			      r->local_qpn);
	return 0;
}

static void on_rep(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	const struct roce_cm_rep *r = &m->u.rep;
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, r->remote_comm_id);

	if (!c) {
		/* IBA 12.9.8.3: a REP for no connection of ours is rejected */
		cm->st.rx_drop_nomatch++;
		send_rej_to(cm, src, m->tid, r->local_comm_id, r->remote_comm_id,
			    ROCE_CM_REJ_MSG_REP, ROCE_CM_REJ_INVALID_COMM_ID);
		return;
	}
	if (!roce_cmi_from_peer(c, src))
		return; /* not a REP for this connection: no REJ to whoever sent it */
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_MRA_RCVD:
		break;
	case CM_ESTABLISHED:
		/* our RTU was lost: the peer resends REP (IBA 12.9.8.3.2) */
		if (r->local_comm_id == c->remote_comm_id) {
			cm->st.rx_dup++;
			send_rtu(c);
		}
		return;
	default:
		cm->st.rx_dup++;
		return;
	}
	roce_cmi_disarm(c);
	c->have_mad = false;
	c->rep = *r;
	c->remote_comm_id = r->local_comm_id;
	c->remote_guid = r->local_ca_guid;
	c->id.remote_qpn = r->local_qpn;
	if (!c->id.qp) {
		roce_cmi_set_state(c, CM_REP_RCVD);
		roce_cmi_event_params(roce_cmi_post_event(cm, c, ROCE_CM_EVENT_CONNECT_RESPONSE, 0,
							  r->private_data, sizeof(r->private_data)),
				      r->responder_resources, r->initiator_depth, 0,
				      r->rnr_retry_count, r->local_qpn);
		return;
	}
	if (active_finish(c) != 0) {
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_qp_to_err(c);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_REJECTED, ROCE_CM_REJ_CONSUMER_DEFINED,
				    NULL, 0);
	}
}

static void on_mra(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	const struct roce_cm_mra *r = &m->u.mra;
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, r->remote_comm_id);

	if (!c) {
		cm->st.rx_drop_nomatch++;
		return;
	}
	if (!roce_cmi_from_peer(c, src))
		return;
	/* IBA 12.6.6: the peer needs service_timeout more before it answers our REQ */
	if (c->state == CM_REQ_SENT && r->msg_mraed == ROCE_CM_MRA_MSG_REQ) {
		roce_cmi_set_state(c, CM_MRA_RCVD);
		roce_cmi_arm(c, roce_exp_tsc(r->service_timeout) + 2 * roce_exp_tsc(CM_PLT_EXP),
			     c->retries);
	} else {
		cm->st.rx_dup++;
	}
}

/* ------------------------------------------------------------------ passive side */

struct cm_conn *roce_cmi_listener_for(struct roce_cm *cm, uint64_t sid)
{
	for (uint32_t i = 0; i < CM_MAX_IDS; i++) {
		struct cm_conn *l = cm->tab[i];

		if (l && l->state == CM_LISTEN && l->service_id == sid)
			return l;
	}
	return NULL;
}

/* a connection the peer already has with us: same remote comm ID from the same address */
static struct cm_conn *conn_by_remote(struct roce_cm *cm, uint32_t remote_comm_id,
				      const struct stk_ipaddr *src)
{
	for (uint32_t i = 0; i < CM_MAX_IDS; i++) {
		struct cm_conn *c = cm->tab[i];

		if (c && c->state != CM_LISTEN && c->state != CM_IDLE &&
		    c->remote_comm_id == remote_comm_id && stk_ipaddr_eq(&c->id.remote_ip, src))
			return c;
	}
	return NULL;
}

/* a connection in TimeWait with the same remote QP (IBA 12.9.8.3.1: stale connection) */
static struct cm_conn *conn_timewait_qpn(struct roce_cm *cm, uint32_t qpn,
					 const struct stk_ipaddr *src)
{
	for (uint32_t i = 0; i < CM_MAX_IDS; i++) {
		struct cm_conn *c = cm->tab[i];

		if (c && c->state == CM_TIMEWAIT && c->id.remote_qpn == qpn &&
		    stk_ipaddr_eq(&c->id.remote_ip, src))
			return c;
	}
	return NULL;
}

void roce_cmi_count_refusal(struct roce_cm *cm, struct cm_conn *l)
{
	if (roce_cmi_events_full(cm)) {
		cm->st.rej_events_full++;
		l->lst.rej_events_full++;
	} else {
		cm->st.rej_backlog++;
		l->lst.rej_backlog++;
	}
}

/*
 * A passive connection waits in REQ_RCVD only as long as its active side waits for our REP:
 * its REQ timer, max_cm_retries + 1 tries of @resp_timeout (the REQ's remote CM response
 * timeout, or our MRA's service timeout once we sent one) plus a round trip of packet life
 * (IBA 12.4, 12.6.6), never past half_open_end. After that the connection cannot complete,
 * and expire() ends it. IBA gives the passive side no such timer; Linux's ib_cm has none
 * either and relies on the active side's REJ "timeout", which a spoofed or vanished peer
 * never sends (issue 11 item 9).
 */
static void half_open_arm(struct cm_conn *c, uint8_t resp_timeout)
{
	uint64_t now = rte_get_tsc_cycles(), t;

	t = (roce_exp_tsc(resp_timeout) + 2 * roce_exp_tsc(CM_PLT_EXP)) *
	    ((uint64_t)c->req.max_cm_retries + 1);
	if (now + t > c->half_open_end)
		t = c->half_open_end > now ? c->half_open_end - now : 0;
	if (!c->deadline || now + t > c->deadline)
		roce_cmi_arm(c, t, 0);
}

static void send_mra(struct cm_conn *c)
{
	struct roce_cm_msg m;

	if (!c->mra_sent) {
		roce_cmi_msg_init(&m, ROCE_CM_ATTR_MRA, c->tid);
		m.u.mra.local_comm_id = c->local_comm_id;
		m.u.mra.remote_comm_id = c->remote_comm_id;
		m.u.mra.msg_mraed = ROCE_CM_MRA_MSG_REQ;
		m.u.mra.service_timeout = c->p.cm_response_timeout ? c->p.cm_response_timeout : 20;
		if (roce_cm_encode(&m, c->mra, sizeof(c->mra)) != ROCE_MAD_LEN)
			return;
		c->mra_sent = true;
		/* the active side now waits the MRA's service timeout per try */
		if (c->state == CM_REQ_RCVD)
			half_open_arm(c, m.u.mra.service_timeout);
	}
	roce_cmi_send_mad(c->id.cm, &c->id.remote_ip, &c->id.local_ip, c->mra);
}

static void on_req(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src,
		   const struct stk_ipaddr *dst)
{
	const struct roce_cm_req *r = &m->u.req;
	struct roce_cm_event *e;
	struct roce_cma_hdr h;
	struct cm_conn *l, *c;

	c = conn_by_remote(cm, r->local_comm_id, src);
	if (c) {
		cm->st.rx_dup++;
		switch (c->state) {
		case CM_REQ_RCVD:
			send_mra(c); /* the user is slow to accept: ask for time */
			break;
		case CM_REP_SENT:
			if (c->have_mad)
				roce_cmi_send_mad(cm, &c->id.remote_ip, &c->id.local_ip, c->mad);
			break;
		case CM_TIMEWAIT:
			send_rej(c, ROCE_CM_REJ_MSG_REQ, ROCE_CM_REJ_STALE_CONN, NULL, 0);
			cm->st.rej_stale++;
			break;
		default:
			break;
		}
		return;
	}
	if (conn_timewait_qpn(cm, r->local_qpn, src)) {
		cm->st.rej_stale++;
		send_rej_to(cm, src, m->tid, r->local_comm_id, 0, ROCE_CM_REJ_MSG_REQ,
			    ROCE_CM_REJ_STALE_CONN);
		return;
	}
	l = roce_cmi_listener_for(cm, r->service_id);
	if (!l || l->id.ps != ROCE_CM_PS_TCP) {
		cm->st.rej_no_listener++;
		send_rej_to(cm, src, m->tid, r->local_comm_id, 0, ROCE_CM_REJ_MSG_REQ,
			    ROCE_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (r->transport_type != 0) {
		send_rej_to(cm, src, m->tid, r->local_comm_id, 0, ROCE_CM_REJ_MSG_REQ,
			    ROCE_CM_REJ_INVALID_TRANSPORT_TYPE);
		return;
	}
	if (roce_cma_hdr_decode(r->private_data, sizeof(r->private_data), &h) != 0) {
		/* not an RDMA CM peer: nothing to address it by */
		send_rej_to(cm, src, m->tid, r->local_comm_id, 0, ROCE_CM_REJ_MSG_REQ,
			    ROCE_CM_REJ_CONSUMER_DEFINED);
		cm->st.rx_drop_bad++;
		return;
	}
	if (l->pending >= l->backlog || roce_cmi_events_full(cm) ||
	    !(c = roce_cmi_conn_alloc(cm, ROCE_CM_PS_TCP, l->id.context))) {
		/* REJ reason 4, no resources: the backlog, the identifier table, or the
		 * application is behind on its events (their queue is full) */
		roce_cmi_count_refusal(cm, l);
		send_rej_to(cm, src, m->tid, r->local_comm_id, 0, ROCE_CM_REJ_MSG_REQ,
			    ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	c->listener = l;
	l->pending++;
	c->req = *r;
	c->tid = m->tid;
	c->remote_comm_id = r->local_comm_id;
	c->remote_guid = r->local_ca_guid;
	c->service_id = r->service_id;
	c->id.remote_ip = *src;
	c->id.local_ip = *dst;
	c->id.remote_port = h.src_port;
	c->id.local_port = l->id.local_port;
	c->id.remote_qpn = r->local_qpn;
	roce_cmi_set_state(c, CM_REQ_RCVD);
	c->half_open_end = rte_get_tsc_cycles() + CM_HALF_OPEN_MAX_S * cm->hz;
	half_open_arm(c, r->remote_cm_resp_timeout);
	l->lst.requests++;
	e = roce_cmi_post_event(cm, c, ROCE_CM_EVENT_CONNECT_REQUEST, 0,
				r->private_data + ROCE_CMA_HDR_LEN,
				sizeof(r->private_data) - ROCE_CMA_HDR_LEN);
	roce_cmi_event_params(e, r->responder_resources, r->initiator_depth, r->retry_count,
			      r->rnr_retry_count, r->local_qpn);
}

static int accept_rc(struct cm_conn *c, struct roce_qp *qp, const struct roce_cm_conn_param *p)
{
	struct roce_cm *cm = c->id.cm;
	const struct roce_cm_req *r = &c->req;
	struct roce_cm_msg m;
	uint8_t rr, idepth, mtu;
	int rc;

	if (!qp || roce_qp_state(qp) != ROCE_QPS_RESET || (p && p->private_data_len > 196))
		return -EINVAL;
	roce_cmi_fill_defaults(&c->p, p);
	/* never promise more than the peer asked for or can take */
	rr = RTE_MIN(c->p.responder_resources, r->initiator_depth);
	idepth = RTE_MIN(c->p.initiator_depth, r->responder_resources);
	mtu = (uint8_t)RTE_MIN(r->path_mtu, mtu_code(cm->dev->max_path_mtu));
	c->id.qp = qp;
	c->local_psn = rte_rand() & ROCE_PSN_MASK;
	c->p.local_ack_timeout =
		r->prim.local_ack_timeout ? r->prim.local_ack_timeout : c->p.local_ack_timeout;
	c->req.path_mtu = mtu;
	rc = qp_init(c, qp, rr);
	if (rc == 0)
		rc = qp_connect(c, r->starting_psn, r->local_qpn, mtu, rr, idepth, r->retry_count,
				r->rnr_retry_count, r->prim.hop_limit, r->prim.traffic_class,
				r->prim.flow_label);
	if (rc) {
		c->id.qp = NULL;
		return -EIO;
	}
	roce_cmi_msg_init(&m, ROCE_CM_ATTR_REP, c->tid);
	m.u.rep.local_comm_id = c->local_comm_id;
	m.u.rep.remote_comm_id = c->remote_comm_id;
	m.u.rep.local_qkey = 0;
	m.u.rep.local_qpn = roce_qp_num(qp);
	m.u.rep.starting_psn = c->local_psn;
	m.u.rep.responder_resources = rr;
	m.u.rep.initiator_depth = idepth;
	m.u.rep.target_ack_delay = 0;
	m.u.rep.failover_accepted = 0;
	m.u.rep.e2e_flow_ctrl = 1;
	m.u.rep.rnr_retry_count = c->p.rnr_retry_count;
	m.u.rep.srq = 0;
	m.u.rep.local_ca_guid = cm->guid;
	if (p && p->private_data_len)
		memcpy(m.u.rep.private_data, p->private_data, p->private_data_len);
	c->rep = m.u.rep;
	if (c->listener)
		c->listener->pending--;
	c->listener = NULL;
	roce_cmi_set_state(c, CM_REP_SENT);
	roce_cmi_send_msg(c, &m, true);
	/* the active side promised to answer within its local CM response timeout */
	roce_cmi_arm(c, roce_exp_tsc(r->local_cm_resp_timeout) + 2 * roce_exp_tsc(CM_PLT_EXP),
		     RTE_MIN(c->p.max_cm_retries, r->max_cm_retries));
	return 0;
}

static void on_rtu(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, m->u.rtu.remote_comm_id);

	if (!c) {
		cm->st.rx_drop_nomatch++;
		return;
	}
	if (!roce_cmi_from_peer(c, src))
		return;
	if (c->state != CM_REP_SENT || m->u.rtu.local_comm_id != c->remote_comm_id) {
		cm->st.rx_dup++;
		return;
	}
	roce_cmi_disarm(c);
	c->have_mad = false;
	roce_cmi_set_state(c, CM_ESTABLISHED);
	roce_cmi_event_params(roce_cmi_post_event(cm, c, ROCE_CM_EVENT_ESTABLISHED, 0,
						  m->u.rtu.private_data,
						  sizeof(m->u.rtu.private_data)),
			      c->rep.responder_resources, c->rep.initiator_depth,
			      c->req.retry_count, c->req.rnr_retry_count, c->id.remote_qpn);
}

/*
 * A REJ names the connection by both comm IDs, as Linux's cm_acquire_rejected_id() matches
 * it: one that rejects our REQ (REQ_SENT, MRA_RCVD) by ours alone, since we do not know the
 * peer's yet (the rejecter may not even have one); every other by ours and the peer's. And
 * it must come from the peer's address (roce_cmi_from_peer()).
 */
static void on_rej(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	const struct roce_cm_rej *r = &m->u.rej;
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, r->remote_comm_id);

	if (!c) {
		cm->st.rx_drop_nomatch++;
		return;
	}
	if (!roce_cmi_from_peer(c, src))
		return;
	if (c->state != CM_REQ_SENT && c->state != CM_MRA_RCVD &&
	    (r->local_comm_id != c->remote_comm_id || r->msg_rejected == ROCE_CM_REJ_MSG_REQ)) {
		cm->st.rx_drop_comm_id++;
		return;
	}
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_MRA_RCVD:
	case CM_REP_SENT:
	case CM_REP_RCVD:
	case CM_ESTABLISHED:
		break;
	default:
		cm->st.rx_dup++;
		return;
	}
	roce_cmi_disarm(c);
	c->have_mad = false;
	roce_cmi_qp_to_err(c);
	roce_cmi_set_state(c, CM_IDLE);
	roce_cmi_post_event(cm, c, ROCE_CM_EVENT_REJECTED, r->reason, r->private_data,
			    sizeof(r->private_data));
}

int roce_cm_accept(struct roce_cm_id *id, struct roce_qp *qp, const struct roce_cm_conn_param *p)
{
	struct cm_conn *c = roce_cmi_conn_of(id);

	if (!id)
		return -EINVAL;
	switch (c->state) {
	case CM_REQ_RCVD:
		return accept_rc(c, qp, p);
	case CM_REP_RCVD: {
		int rc;

		if (!qp || roce_qp_state(qp) != ROCE_QPS_RESET ||
		    roce_qp_num(qp) != c->req.local_qpn)
			return -EINVAL;
		c->id.qp = qp;
		rc = qp_init(c, qp, c->p.responder_resources);
		if (rc == 0)
			rc = active_finish(c);
		if (rc) {
			c->id.qp = NULL;
			return -EIO;
		}
		return 0;
	}
	case CM_SIDR_REQ_RCVD:
		return roce_cmi_sidr_accept(c, qp, p);
	default:
		return -EINVAL;
	}
}

int roce_cm_reject(struct roce_cm_id *id, const void *private_data, uint8_t len)
{
	struct cm_conn *c = roce_cmi_conn_of(id);

	if (!id)
		return -EINVAL;
	if (c->state == CM_REQ_RCVD || c->state == CM_REP_RCVD) {
		if (len > 148)
			return -EINVAL;
		send_rej(c, c->state == CM_REQ_RCVD ? ROCE_CM_REJ_MSG_REQ : ROCE_CM_REJ_MSG_REP,
			 ROCE_CM_REJ_CONSUMER_DEFINED, private_data, len);
	} else if (c->state == CM_SIDR_REQ_RCVD) {
		roce_cmi_sidr_reject(c, private_data, len);
	} else {
		return -EINVAL;
	}
	if (c->listener)
		c->listener->pending--;
	c->listener = NULL;
	roce_cmi_disarm(c);
	roce_cmi_qp_to_err(c);
	roce_cmi_set_state(c, CM_IDLE);
	return 0;
}

/* ------------------------------------------------------------------ SIDR */

/* ------------------------------------------------------------------ disconnect */

/* ------------------------------------------------------------------ timers */

static void expire(struct cm_conn *c)
{
	struct roce_cm *cm = c->id.cm;
	bool late = c->give_up && connecting(c) && rte_get_tsc_cycles() >= c->give_up;

	if (c->retries && c->have_mad && !late &&
	    (c->state == CM_REQ_SENT || c->state == CM_MRA_RCVD || c->state == CM_REP_SENT ||
	     c->state == CM_DREQ_SENT || c->state == CM_SIDR_REQ_SENT)) {
		if (c->state == CM_MRA_RCVD)
			roce_cmi_set_state(c, CM_REQ_SENT);
		cm->st.retransmits++;
		roce_cmi_send_mad(cm, &c->id.remote_ip, &c->id.local_ip, c->mad);
		roce_cmi_arm(c, c->timeout, (uint8_t)(c->retries - 1));
		return;
	}
	roce_cmi_disarm(c);
	c->have_mad = false;
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_MRA_RCVD:
		/* IBA 12.9.6: out of retries, tell the peer (REJ timeout) and give up */
		send_rej(c, ROCE_CM_REJ_MSG_OTHER, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		roce_cmi_qp_to_err(c);
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_REP_SENT:
		send_rej(c, ROCE_CM_REJ_MSG_REP, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		roce_cmi_qp_to_err(c);
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_REQ_RCVD:
		/* the half-open bound (half_open_arm()): the active side has given up on us;
		 * tell it, in case it has not (REJ reason 1, timeout), and the application */
		send_rej(c, ROCE_CM_REJ_MSG_REQ, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		cm->st.half_open_expired++;
		if (c->listener) {
			c->listener->lst.half_open_expired++;
			c->listener->pending--;
		}
		c->listener = NULL;
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_SIDR_REQ_SENT:
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_DREQ_SENT:
		/* the peer is gone: disconnected all the same */
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_DISCONNECTED, -ETIMEDOUT, NULL, 0);
		roce_cmi_enter_timewait(c);
		break;
	case CM_TIMEWAIT:
		roce_cmi_set_state(c, CM_IDLE);
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
		break;
	default:
		break;
	}
}

static void run_timers(struct roce_cm *cm, uint64_t now)
{
	const struct roce_wq *sq = &cm->qp1->sq;
	uint64_t next = 0;

	if (!cm->next_deadline || now < cm->next_deadline)
		return;
	for (uint32_t i = 0; i < CM_MAX_IDS; i++) {
		struct cm_conn *c = cm->tab[i];

		if (!c || !c->deadline)
			continue;
		if (c->deadline <= now) {
			/* expire() sends one MAD at most (a resend, a REJ "timeout"), which a full
			 * QP1 send queue would lose: then this and the other due timers wait for
			 * the next tick, by which QP1 has sent up to a burst more. Timers of many
			 * connections set up together come due together; they send in turns.
			 * IBA is silent; Linux's MAD layer holds sends beyond the send queue on an
			 * overflow list (ib_send_mad()) rather than fail them. */
			if (roce_wq_count(sq) >= sq->max_wr) {
				next = now;
				break;
			}
			expire(c);
		}
		if (cm->tab[i] == c && c->deadline && (!next || c->deadline < next))
			next = c->deadline;
	}
	cm->next_deadline = next;
}

/* ------------------------------------------------------------------ receive */

static void repost(struct roce_cm *cm, uint32_t slot)
{
	struct roce_recv_wr wr, *bad;
	struct roce_sge sge;

	sge.addr = (uintptr_t)(cm->buf + (size_t)slot * CM_SLOT);
	sge.length = CM_SLOT;
	sge.lkey = cm->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	roce_post_recv(cm->qp1, &wr, &bad);
}

/* The source and destination IP of a received MAD, from the GRH area (rdma-core's layout:
 * an IPv4 header in the last 20 bytes, or the IPv6 header). */
static int grh_addrs(const uint8_t *grh, struct stk_ipaddr *src, struct stk_ipaddr *dst)
{
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if ((grh[20] >> 4) == 4) {
		src->family = dst->family = 4;
		memcpy(&src->v4, grh + 20 + 12, 4);
		memcpy(&dst->v4, grh + 20 + 16, 4);
		return 0;
	}
	if ((grh[0] >> 4) == 6) {
		src->family = dst->family = 6;
		memcpy(src->v6, grh + 8, 16);
		memcpy(dst->v6, grh + 24, 16);
		return 0;
	}
	return -EINVAL;
}

static void mad_in(struct roce_cm *cm, const uint8_t *slot, uint32_t len)
{
	struct stk_ipaddr src, dst;
	struct roce_cm_msg m;
	int rc;

	cm->st.rx_mads++;
	if (len < ROCE_GRH_LEN + ROCE_MAD_LEN || grh_addrs(slot, &src, &dst) != 0) {
		cm->st.rx_drop_bad++;
		return;
	}
	rc = roce_cm_decode(slot + ROCE_GRH_LEN, len - ROCE_GRH_LEN, &m);
	if (rc != 0) {
		uint8_t resp[ROCE_MAD_LEN];

		/* IBA 13.4.9: a Get/Set we cannot serve is answered with a status; anything
		 * else (Sends, responses, other classes) is dropped and counted */
		uint16_t status = roce_cm_mad_status(slot + ROCE_GRH_LEN, len - ROCE_GRH_LEN);

		if (status && roce_mad_error_resp(slot + ROCE_GRH_LEN, len - ROCE_GRH_LEN, status,
						  resp, sizeof(resp)) == ROCE_MAD_LEN)
			roce_cmi_send_mad(cm, &src, &dst, resp);
		cm->st.rx_drop_bad++;
		return;
	}
	switch (m.attr_id) {
	case ROCE_CM_ATTR_REQ:
		on_req(cm, &m, &src, &dst);
		break;
	case ROCE_CM_ATTR_MRA:
		on_mra(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_REJ:
		on_rej(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_REP:
		on_rep(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_RTU:
		on_rtu(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_DREQ:
		roce_cmi_on_dreq(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_DREP:
		roce_cmi_on_drep(cm, &m, &src);
		break;
	case ROCE_CM_ATTR_SIDR_REQ:
		roce_cmi_on_sidr_req(cm, &m, &src, &dst);
		break;
	case ROCE_CM_ATTR_SIDR_REP:
		roce_cmi_on_sidr_rep(cm, &m, &src);
		break;
	default:
		cm->st.rx_drop_bad++;
		break;
	}
}

void roce_cm_tick(struct roce_cm *cm, uint64_t now)
{
	struct roce_wc wc[16];
	int n;

	while ((n = roce_poll_cq(cm->cq, RTE_DIM(wc), wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].opcode == ROCE_WC_RECV) {
				uint32_t slot = (uint32_t)wc[i].wr_id;

				if (wc[i].status == ROCE_WC_SUCCESS)
					mad_in(cm, cm->buf + (size_t)slot * CM_SLOT,
					       wc[i].byte_len);
				else
					cm->st.rx_drop_bad++;
				repost(cm, slot);
			} else if (wc[i].wr_id) {
				roce_destroy_ah((struct roce_ah *)(uintptr_t)wc[i].wr_id);
			}
		}
	}
	txq_drain(cm);
	run_timers(cm, now);
}

/* ------------------------------------------------------------------ life cycle */

struct roce_cm *roce_cm_open(struct roce_dev *dev)
{
	struct roce_qp_init_attr init;
	struct roce_qp_attr a;
	struct roce_cm *cm;

	if (!dev) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->cm) {
		rte_errno = EEXIST;
		return NULL;
	}
	cm = rte_zmalloc("roce_cm", sizeof(*cm), RTE_CACHE_LINE_SIZE);
	if (!cm) {
		rte_errno = ENOMEM;
		return NULL;
	}
	cm->dev = dev;
	cm->hz = rte_get_tsc_hz();
	cm->gen = (uint32_t)rte_rand();
	cm->guid = guid_of(&stk_iface_get(dev->iface)->mac);
	cm->buf = rte_zmalloc("roce_cm_buf", (size_t)CM_RECV_SLOTS * CM_SLOT, 64);
	cm->txq = rte_zmalloc("roce_cm_txq", (size_t)CM_TXQ_SLOTS * sizeof(*cm->txq), 64);
	cm->pd = roce_alloc_pd(dev);
	cm->cq = roce_create_cq(dev, CM_RECV_SLOTS + CM_SEND_DEPTH);
	if (!cm->buf || !cm->txq || !cm->pd || !cm->cq)
		goto fail;
	cm->mr = roce_reg_mr(cm->pd, cm->buf, (size_t)CM_RECV_SLOTS * CM_SLOT, (uintptr_t)cm->buf,
			     ROCE_ACCESS_LOCAL_WRITE);
	if (!cm->mr)
		goto fail;
	memset(&init, 0, sizeof(init));
	init.send_cq = init.recv_cq = cm->cq;
	init.qp_type = ROCE_QPT_GSI;
	init.cap.max_send_wr = CM_SEND_DEPTH;
	init.cap.max_recv_wr = CM_RECV_SLOTS;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.cap.max_inline_data = ROCE_MAD_LEN;
	cm->qp1 = roce_create_qp(cm->pd, &init);
	if (!cm->qp1)
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.qkey = ROCE_GSI_QKEY;
	a.port_num = 1;
	if (roce_modify_qp(cm->qp1, &a,
			   ROCE_QP_STATE | ROCE_QP_QKEY | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT) != 0)
		goto fail;
	a.qp_state = ROCE_QPS_RTR;
	if (roce_modify_qp(cm->qp1, &a, ROCE_QP_STATE) != 0)
		goto fail;
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = 0;
	if (roce_modify_qp(cm->qp1, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN) != 0)
		goto fail;
	for (uint32_t i = 0; i < CM_RECV_SLOTS; i++)
		repost(cm, i);
	dev->cm = cm;
	return cm;
fail:
	if (cm->qp1)
		roce_destroy_qp(cm->qp1);
	if (cm->mr)
		roce_dereg_mr(cm->mr);
	if (cm->cq)
		roce_destroy_cq(cm->cq);
	if (cm->pd)
		roce_dealloc_pd(cm->pd);
	rte_free(cm->buf);
	rte_free(cm->txq);
	rte_free(cm);
	rte_errno = ENOMEM;
	return NULL;
}

int roce_cm_close(struct roce_cm *cm)
{
	struct roce_wc wc[16];

	if (!cm)
		return -EINVAL;
	if (cm->st.ids)
		return -EBUSY;
	/* QP1 goes at once only when no other lane of the device runs (destroy's grace period) */
	if (roce_dev_others_run(cm->dev))
		return -EBUSY;
	/* MADs still queued point into cm->buf (zero copy): wait for them, nothing torn down */
	if (roce_mr_busy(cm->mr))
		return -EBUSY;
	while (cm->ovf_head) { /* none: they went with their identifiers */
		struct cm_ev_node *n = cm->ovf_head;

		cm->ovf_head = n->next;
		rte_free(n);
	}
	cm->dev->cm = NULL;
	/* ERR flushes the sends that never went out: their address handles come back */
	{
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		roce_modify_qp(cm->qp1, &a, ROCE_QP_STATE);
	}
	for (int n; (n = roce_poll_cq(cm->cq, RTE_DIM(wc), wc)) > 0;)
		for (int i = 0; i < n; i++)
			if (wc[i].opcode != ROCE_WC_RECV && wc[i].wr_id)
				roce_destroy_ah((struct roce_ah *)(uintptr_t)wc[i].wr_id);
	roce_destroy_qp(cm->qp1);
	roce_dereg_mr(cm->mr);
	roce_destroy_cq(cm->cq);
	roce_dealloc_pd(cm->pd);
	rte_free(cm->buf);
	rte_free(cm->txq); /* MADs still waiting go with it: nobody is left to answer them */
	rte_free(cm);
	return 0;
}

struct roce_cm *roce_cm_of(struct roce_dev *dev)
{
	return dev ? dev->cm : NULL;
}
