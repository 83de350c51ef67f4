/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_cm_sm.c - libFuzzer target for the connection manager's state machine
 * (roce/roce_cm.c, roce_cm_sidr.c, roce_cm_disconnect.c), not only its codec: two CMs on two
 * devices over crossed net_ring ports in one process (the lab of fuzz_pair.c), driven by a
 * sequence of operations the input chooses byte by byte:
 * - application calls on either side: create id (TCP or UDP port space), listen, connect
 *   (with a fresh QP, a wrong-type QP, an already used one or none), accept, reject,
 *   disconnect, destroy id, destroy QP, take events;
 * - MADs built from input bytes, their comm IDs and TIDs picked from the live connections
 *   (either side's own or the peer's), injected as if from the peer or from a third on-link
 *   address; and replays of the MAD a connection keeps for resending, possibly with one byte
 *   changed;
 * - the wire: frames in flight lost, duplicated or reordered;
 * - time: roce_cm_tick() run with a clock up to ~2 minutes ahead (the CM's timers take "now"
 *   as a parameter; deadlines passed fire at once), so retries, MRA waits, the half-open
 *   bound and TimeWait all expire within an input.
 *
 * Checks: every event names an identifier the application holds (a CONNECT_REQUEST a new one
 * and a live listener or none); the API's return codes are within their documented sets.
 * After each input every identifier is destroyed, every QP, and both CMs are closed (each
 * input starts from fresh CMs), then identifiers, QPs, MRs, CQs, PDs and mbufs must all be
 * back at their start counts: a leak aborts.
 *
 * Input: a sequence of records; the first byte of each is the operation (low 4 bits) and the
 * side (bit 4); what follows depends on the operation (see step()). Reads past the end are
 * zeros, so every prefix is a valid input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fuzz_check.h"
#include "fuzz_pair.h"

#include "roce_cm.h"
#include "roce_cm_int.h" /* comm IDs, TIDs and kept MADs, to forge what a peer would send */
#include "roce_cm_wire.h"
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define NID 8	    /* identifiers the application holds per side */
#define NQP 6	    /* QPs per side */
#define MAX_OPS 256 /* operations per input */
#define PORT0 7000  /* listeners and connects use PORT0 and PORT0 + 1 */

static struct fuzz_pair fp;
static struct {
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_cm_id *id[NID];
	struct roce_qp *qp[NQP];
	struct roce_dev_counts base;
} s[2];
static uint8_t priv[256];
static uint64_t entered[CM_NUM_STATES]; /* states entered, over all inputs */

/* With FUZZ_CM_SM_STATES set: which states the inputs reached, printed at exit. */
static void print_states(void)
{
	static const char *const names[] = {
#define NAME_(n) #n,
		CM_STATE_LIST(NAME_)
#undef NAME_
	};

	for (int i = 0; i < CM_NUM_STATES; i++)
		fprintf(stderr, "entered %-14s %lu\n", names[i], (unsigned long)entered[i]);
}

static bool owned(int k, const struct roce_cm_id *id)
{
	for (int i = 0; i < NID; i++)
		if (id && s[k].id[i] == id)
			return true;
	return false;
}

static bool adopt(int k, struct roce_cm_id *id)
{
	for (int i = 0; i < NID; i++)
		if (!s[k].id[i]) {
			s[k].id[i] = id;
			return true;
		}
	return false;
}

static void drain_cq(int k)
{
	struct roce_wc wc[32];

	while (roce_poll_cq(s[k].cq, 32, wc) > 0)
		;
}

/* Take up to @max events on side @k, as an application would. */
static void take_events(int k, unsigned max)
{
	struct roce_cm_event ev;

	for (unsigned i = 0; i < max && roce_cm_get_event(s[k].cm, &ev) == 0; i++) {
		CHECK(ev.event < ROCE_CM_EVENT_NUM);
		CHECK(ev.id != NULL);
		if (ev.event != ROCE_CM_EVENT_CONNECT_REQUEST) {
			CHECK(owned(k, ev.id));
			continue;
		}
		CHECK(!owned(k, ev.id));
		CHECK(ev.listen_id == NULL || owned(k, ev.listen_id));
		if (!adopt(k, ev.id))
			CHECK(roce_cm_destroy_id(ev.id) == 0);
	}
}

static struct roce_qp *make_qp(int k, enum roce_qp_type t)
{
	struct roce_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = s[k].cq;
	a.qp_type = t;
	a.cap.max_send_wr = 8;
	a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	return roce_create_qp(s[k].pd, &a);
}

/* The QP an operation names: NULL, an existing one, or a new one (of the id's type, or of
 * the other when the input says so). */
static struct roce_qp *pick_qp(struct fuzz_in *in, int k, const struct roce_cm_id *id)
{
	uint8_t b = fuzz_u8(in);
	unsigned slot = b % NQP;
	enum roce_qp_type t = id->ps == ROCE_CM_PS_UDP ? ROCE_QPT_UD : ROCE_QPT_RC;

	if (b & 0x80)
		return NULL;
	if (!s[k].qp[slot]) {
		if (b & 0x40)
			t = t == ROCE_QPT_UD ? ROCE_QPT_RC : ROCE_QPT_UD;
		s[k].qp[slot] = make_qp(k, t);
	}
	return s[k].qp[slot];
}

static struct roce_cm_id *pick_id(struct fuzz_in *in, int k)
{
	return s[k].id[fuzz_u8(in) % NID];
}

static void pick_param(struct fuzz_in *in, struct roce_cm_conn_param *p)
{
	uint8_t b = fuzz_u8(in);

	memset(p, 0, sizeof(*p));
	if (b & 1) {
		p->private_data = priv;
		p->private_data_len = fuzz_u8(in);
	}
	if (b & 2) {
		p->responder_resources = fuzz_u8(in);
		p->initiator_depth = fuzz_u8(in);
		p->retry_count = fuzz_u8(in) & 7;
		p->rnr_retry_count = fuzz_u8(in) & 7;
		p->min_rnr_timer = fuzz_u8(in) & 31;
		p->local_ack_timeout = fuzz_u8(in) & 31;
	}
	if (b & 4) {
		p->cm_response_timeout = fuzz_u8(in) & 31;
		p->max_cm_retries = fuzz_u8(in) & 15;
	}
	if (b & 8)
		p->qkey = fuzz_u32(in);
	if (b & 16)
		p->qp_num = fuzz_u32(in) & 0xffffff;
	if (b & 32)
		p->timeout_ms = fuzz_u8(in);
}

static const struct stk_ipaddr *pick_dst(uint8_t b, int k)
{
	static const struct stk_ipaddr offlink = {.family = 4, .v4 = RTE_BE32(0x0a630001)};

	switch (b & 3) {
	case 0:
	case 1:
		return &fp.ip[!k];
	case 2:
		return &fp.third;
	default:
		return &offlink;
	}
}

/* A comm ID (or TID) as a forger would pick it: from a live connection of either side, or
 * straight from the input. */
static uint32_t pick_comm(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);
	struct roce_cm_id *id = s[b >> 7].id[(b >> 2) % NID];
	struct cm_conn *c = id ? roce_cmi_conn_of(id) : NULL;

	switch (b & 3) {
	case 0:
		return fuzz_u32(in);
	case 1:
		return c ? c->local_comm_id : 0;
	case 2:
		return c ? c->remote_comm_id : 0;
	default:
		return 0;
	}
}

static uint64_t pick_tid(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);
	struct roce_cm_id *id = s[b >> 7].id[(b >> 1) % NID];

	if ((b & 1) && id)
		return roce_cmi_conn_of(id)->tid;
	return fuzz_u32(in);
}

/* Send one 256-byte MAD to side @k's QP1 from side !k's interface, with IP source the
 * peer's address or the third one. */
static void send_mad(int k, const uint8_t *mad, bool from_third)
{
	struct roce_path path;
	struct roce_tx t;
	struct rte_mbuf *m;

	memset(&path, 0, sizeof(path));
	path.dgid_ip = fp.ip[k];
	path.sgid_ip = from_third ? fp.third : fp.ip[!k];
	memset(&t, 0, sizeof(t));
	t.path = &path;
	t.lqpn = ROCE_GSI_QPN;
	t.dqpn = ROCE_GSI_QPN;
	t.opcode = ROCE_OP_UD_SEND_ONLY;
	t.qkey = ROCE_GSI_QKEY;
	t.sqpn = ROCE_GSI_QPN;
	m = roce_tx_build(fp.pool, stk_iface_get((uint16_t)!k), &t, mad, ROCE_MAD_LEN, NULL);
	CHECK(m != NULL);
	if (stk_ip_send(fp.lc, stk_iface_get((uint16_t)!k), m, &fp.ip[k]) != 0)
		rte_pktmbuf_free(m);
}

static void forge_req(struct fuzz_in *in, struct roce_cm_req *r, int k, bool udp)
{
	struct roce_cma_hdr h;
	uint8_t b = fuzz_u8(in);

	r->service_id = roce_cma_service_id(udp ? ROCE_RDMA_PS_UDP : ROCE_RDMA_PS_TCP,
					    (uint16_t)(PORT0 + (b & 1)));
	if (b & 2)
		r->service_id ^= (uint64_t)fuzz_u8(in) << (8 * (fuzz_u8(in) & 7));
	r->local_qpn = fuzz_u32(in) & 0xffffff;
	r->starting_psn = fuzz_u32(in) & 0xffffff;
	r->responder_resources = fuzz_u8(in);
	r->initiator_depth = fuzz_u8(in);
	r->remote_cm_resp_timeout = fuzz_u8(in) & 31;
	r->local_cm_resp_timeout = fuzz_u8(in) & 31;
	r->retry_count = fuzz_u8(in) & 7;
	r->rnr_retry_count = fuzz_u8(in) & 7;
	r->max_cm_retries = fuzz_u8(in) & 15;
	r->path_mtu = fuzz_u8(in) & 15;
	r->transport_type = (b & 4) ? fuzz_u8(in) & 3 : 0;
	r->pkey = 0xffff;
	r->local_qkey = fuzz_u32(in);
	memset(&h, 0, sizeof(h));
	h.src_port = fuzz_u16(in);
	h.src = (b & 8) ? fp.third : fp.ip[!k];
	h.dst = fp.ip[k];
	if (!(b & 16))
		roce_cma_hdr_encode(&h, r->private_data, sizeof(r->private_data));
}

/* A CM MAD from input bytes: message type, comm IDs and TID picked, the rest from input. */
static void inject_mad(struct fuzz_in *in, int k)
{
	static const uint16_t attrs[] = {
		ROCE_CM_ATTR_REQ,  ROCE_CM_ATTR_MRA,	  ROCE_CM_ATTR_REJ,
		ROCE_CM_ATTR_REP,  ROCE_CM_ATTR_RTU,	  ROCE_CM_ATTR_DREQ,
		ROCE_CM_ATTR_DREP, ROCE_CM_ATTR_SIDR_REQ, ROCE_CM_ATTR_SIDR_REP};
	uint8_t b = fuzz_u8(in), mad[ROCE_MAD_LEN];
	struct roce_cm_msg m;
	uint32_t c1, c2;

	memset(&m, 0, sizeof(m));
	m.method = (b & 0x40) ? fuzz_u8(in) : ROCE_MAD_METHOD_SEND;
	m.attr_id = attrs[(b & 0x3f) % RTE_DIM(attrs)];
	m.tid = pick_tid(in);
	c1 = pick_comm(in);
	c2 = pick_comm(in);
	switch (m.attr_id) {
	case ROCE_CM_ATTR_REQ:
		m.u.req.local_comm_id = c1;
		forge_req(in, &m.u.req, k, false);
		break;
	case ROCE_CM_ATTR_MRA:
		m.u.mra.local_comm_id = c1;
		m.u.mra.remote_comm_id = c2;
		m.u.mra.msg_mraed = fuzz_u8(in) & 3;
		m.u.mra.service_timeout = fuzz_u8(in) & 31;
		break;
	case ROCE_CM_ATTR_REJ:
		m.u.rej.local_comm_id = c1;
		m.u.rej.remote_comm_id = c2;
		m.u.rej.msg_rejected = fuzz_u8(in) & 3;
		m.u.rej.reason = fuzz_u8(in) % 40;
		m.u.rej.ari_len = fuzz_u8(in) % (ROCE_CM_REJ_ARI_LEN + 1);
		break;
	case ROCE_CM_ATTR_REP:
		m.u.rep.local_comm_id = c1;
		m.u.rep.remote_comm_id = c2;
		m.u.rep.local_qpn = fuzz_u32(in) & 0xffffff;
		m.u.rep.starting_psn = fuzz_u32(in) & 0xffffff;
		m.u.rep.local_qkey = fuzz_u32(in);
		m.u.rep.responder_resources = fuzz_u8(in);
		m.u.rep.initiator_depth = fuzz_u8(in);
		m.u.rep.rnr_retry_count = fuzz_u8(in) & 7;
		m.u.rep.target_ack_delay = fuzz_u8(in) & 31;
		break;
	case ROCE_CM_ATTR_RTU:
		m.u.rtu.local_comm_id = c1;
		m.u.rtu.remote_comm_id = c2;
		break;
	case ROCE_CM_ATTR_DREQ:
		m.u.dreq.local_comm_id = c1;
		m.u.dreq.remote_comm_id = c2;
		m.u.dreq.remote_qpn = fuzz_u32(in) & 0xffffff;
		break;
	case ROCE_CM_ATTR_DREP:
		m.u.drep.local_comm_id = c1;
		m.u.drep.remote_comm_id = c2;
		break;
	case ROCE_CM_ATTR_SIDR_REQ: {
		struct roce_cm_req r;

		memset(&r, 0, sizeof(r));
		forge_req(in, &r, k, true);
		m.u.sidr_req.request_id = c1;
		m.u.sidr_req.pkey = 0xffff;
		m.u.sidr_req.service_id = r.service_id;
		memcpy(m.u.sidr_req.private_data, r.private_data, ROCE_CMA_HDR_LEN);
		break;
	}
	default:
		m.u.sidr_rep.request_id = c1;
		m.u.sidr_rep.status = fuzz_u8(in) % 8;
		m.u.sidr_rep.qpn = fuzz_u32(in) & 0xffffff;
		m.u.sidr_rep.qkey = fuzz_u32(in);
		m.u.sidr_rep.service_id = roce_cma_service_id(ROCE_RDMA_PS_UDP, PORT0);
		break;
	}
	if (roce_cm_encode(&m, mad, sizeof(mad)) != ROCE_MAD_LEN)
		return;
	send_mad(k, mad, b & 0x80);
}

/* The MAD a connection of side !k keeps for resending, to side k, maybe with a byte
 * changed: a duplicate, or a near-duplicate, from the peer or the third address. */
static void replay_kept(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in), mad[ROCE_MAD_LEN];
	struct roce_cm_id *id = pick_id(in, !k);
	struct cm_conn *c = id ? roce_cmi_conn_of(id) : NULL;

	if (!c || !((b & 2) ? c->mra_sent : c->have_mad))
		return;
	memcpy(mad, (b & 2) ? c->mra : c->mad, sizeof(mad));
	if (b & 4) {
		uint8_t at = fuzz_u8(in);

		mad[at] ^= fuzz_u8(in);
	}
	send_mad(k, mad, b & 1);
}

static void forget_id(int k, struct roce_cm_id *id)
{
	for (int i = 0; i < NID; i++)
		if (s[k].id[i] == id)
			s[k].id[i] = NULL;
}

static void step(struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	int k = (op >> 4) & 1, rc;
	struct roce_cm_conn_param p;
	struct roce_cm_id *id;
	struct roce_qp *qp;
	uint8_t b;

	switch (op & 15) {
	case 0: /* create id */
		b = fuzz_u8(in);
		id = roce_cm_create_id(s[k].cm, (b & 1) ? ROCE_CM_PS_UDP : ROCE_CM_PS_TCP, NULL);
		CHECK(id != NULL);
		if (!adopt(k, id))
			CHECK(roce_cm_destroy_id(id) == 0);
		break;
	case 1: /* listen */
		id = pick_id(in, k);
		b = fuzz_u8(in);
		if (id) {
			rc = roce_cm_listen(id, (uint16_t)(PORT0 + (b & 1)), (b >> 1) & 3);
			CHECK(rc == 0 || rc == -EINVAL || rc == -EADDRINUSE);
		}
		break;
	case 2: /* connect */
		id = pick_id(in, k);
		b = fuzz_u8(in);
		if (!id)
			break;
		qp = pick_qp(in, k, id);
		pick_param(in, &p);
		rc = roce_cm_connect(id, pick_dst(b, k), (uint16_t)(PORT0 + ((b >> 2) & 1)), qp,
				     &p);
		CHECK(rc == 0 || rc == -EINVAL || rc == -EADDRNOTAVAIL || rc == -EIO ||
		      rc == -ENETUNREACH || rc == -ENOBUFS);
		break;
	case 3: /* accept */
		id = pick_id(in, k);
		if (!id)
			break;
		qp = pick_qp(in, k, id);
		pick_param(in, &p);
		rc = roce_cm_accept(id, qp, &p);
		CHECK(rc == 0 || rc == -EINVAL || rc == -EIO);
		break;
	case 4: /* reject */
		id = pick_id(in, k);
		b = fuzz_u8(in);
		if (id) {
			rc = roce_cm_reject(id, priv, b);
			CHECK(rc == 0 || rc == -EINVAL);
		}
		break;
	case 5: /* disconnect */
		id = pick_id(in, k);
		if (id) {
			rc = roce_cm_disconnect(id);
			CHECK(rc == 0 || rc == -EINVAL);
		}
		break;
	case 6: /* destroy id */
		id = pick_id(in, k);
		if (id) {
			forget_id(k, id);
			CHECK(roce_cm_destroy_id(id) == 0);
		}
		break;
	case 7: /* destroy QP */
		b = fuzz_u8(in) % NQP;
		if (s[k].qp[b]) {
			CHECK(roce_destroy_qp(s[k].qp[b]) == 0);
			s[k].qp[b] = NULL;
		}
		break;
	case 8: /* the application takes its events */
		take_events(k, 1 + fuzz_u8(in) % 8);
		break;
	case 9: /* the lcore runs */
		fuzz_pair_poll(&fp, 1 + fuzz_u8(in) % 16);
		break;
	case 10: { /* time passes: 2^b microseconds ahead, up to ~134 s */
		uint64_t ahead = rte_get_tsc_hz() / 1000000 << (fuzz_u8(in) % 28);

		roce_cm_tick(s[k].cm, rte_get_tsc_cycles() + ahead);
		break;
	}
	case 11:
		inject_mad(in, k);
		break;
	case 12:
		replay_kept(in, k);
		break;
	case 13: /* the link misbehaves */
		fuzz_pair_wire(&fp, k, fuzz_u8(in));
		break;
	case 14: /* the CQ is drained (flushed receives and sends of QPs in ERR) */
		drain_cq(k);
		break;
	default: /* both sides run until quiet */
		fuzz_pair_poll(&fp, 8);
		take_events(0, 64);
		take_events(1, 64);
		break;
	}
}

static void open_side(int k)
{
	s[k].cm = roce_cm_open(fp.dev[k]);
	CHECK(s[k].cm != NULL);
}

/* Destroy everything the input made, close both CMs, and check that nothing is left. */
static void teardown(void)
{
	for (int round = 0; round < 4; round++) {
		for (int k = 0; k < 2; k++) {
			take_events(k, ~0u);
			for (int i = 0; i < NID; i++)
				if (s[k].id[i]) {
					CHECK(roce_cm_destroy_id(s[k].id[i]) == 0);
					s[k].id[i] = NULL;
				}
		}
		fuzz_pair_poll(&fp, 4);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_cm_stats st;

		roce_cm_stats(s[k].cm, &st);
		if (st.ids != 0) {
			fprintf(stderr, "side %d: %lu CM ids left\n", k, (unsigned long)st.ids);
			abort();
		}
		for (int i = 0; i < NQP; i++)
			if (s[k].qp[i]) {
				CHECK(roce_destroy_qp(s[k].qp[i]) == 0);
				s[k].qp[i] = NULL;
			}
		drain_cq(k);
		for (int i = 0; i < CM_NUM_STATES; i++)
			entered[i] += s[k].cm->state_cnt[i];
		/* roce_cm_close answers -EBUSY while MADs it sent are still queued: they leave
		 * as the lab polls */
		{
			int rc = roce_cm_close(s[k].cm);

			for (int i = 0; rc == -EBUSY && i < 4000; i++) {
				stk_lcore_flush(fp.lc);
				stk_lcore_poll(fp.lc);
				rc = roce_cm_close(s[k].cm);
			}
			CHECK(rc == 0);
		}
		s[k].cm = NULL;
	}
	fuzz_pair_settle(&fp);
	for (int k = 0; k < 2; k++) {
		struct roce_dev_counts c;

		drain_cq(k);
		roce_dev_counts(fp.dev[k], &c);
		CHECK(c.qps == s[k].base.qps && c.mrs == s[k].base.mrs && c.cqs == s[k].base.cqs &&
		      c.pds == s[k].base.pds && c.srqs == s[k].base.srqs);
	}
	fuzz_pair_check_leaks(&fp, "fuzz_cm_sm");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_pair_init(&fp, "cmsm", 81);
	for (int k = 0; k < 2; k++) {
		s[k].pd = roce_alloc_pd(fp.dev[k]);
		s[k].cq = s[k].pd ? roce_create_cq(fp.dev[k], 4096) : NULL;
		CHECK(s[k].cq != NULL);
		roce_dev_counts(fp.dev[k], &s[k].base);
	}
	if (getenv("FUZZ_CM_SM_STATES"))
		atexit(print_states);
	for (unsigned i = 0; i < sizeof(priv); i++)
		priv[i] = (uint8_t)(i * 37 + 11);
	fuzz_pair_mark(&fp);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {.p = data, .n = size};

	fuzz_pair_pin_neigh(&fp);
	open_side(0);
	open_side(1);
	for (unsigned n = 0; in.n && n < MAX_OPS; n++)
		step(&in);
	teardown();
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
