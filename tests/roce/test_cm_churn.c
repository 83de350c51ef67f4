/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cm_churn.c - the connection manager under churn and from hosts that never finish what
 * they start, on the two-device fixture of cm_fixture.h (issue 11, items 9 and "Churn"):
 * REQs nobody answers (the half-open timer) while the application falls behind on its events;
 * 10,000 connect/disconnect cycles that leave QPs, MRs, CM identifiers, mbufs and neighbour
 * entries where they started; 1,000 REQs from distinct spoofed sources, accepted or never
 * answered, that leave nothing behind once their timers run out.
 */
#include <netinet/in.h>

#include "cm_fixture.h"
#include "roce_icrc.h"

/*
 * Issue 11 item 9: a passive connection in REQ_RCVD had no timer, so a REQ the application
 * never answered held its identifier and a backlog slot forever; and the event queue (512)
 * dropped events when full, after which roce_cmi_last_event() handed the caller another
 * identifier's event to write the parameters into. Now:
 * - REQ_RCVD ends when the active side has given up on us (its REQ's max_cm_retries + 1
 *   waits of its remote CM response timeout plus a round trip): REJ "timeout" to the peer,
 *   UNREACHABLE (-ETIMEDOUT) to the application, the backlog slot back;
 * - no event is lost: while the application is behind, new REQs get REJ "no resources"
 *   (counted on the listener), and events of the connections that exist wait their turn.
 * X is a REQ whose sender waits 2 x (16.8 ms + 134 ms); 519 more wait far longer. The
 * application reads nothing until X's timer has run out, then reads everything.
 */
static void half_open_and_event_overflow(void **st)
{
	enum { N = 520, QPN0 = 0x1000 };
	struct roce_cm_stats a0, a1, b0, b1;
	struct roce_cm_event ev;
	static struct roce_cm_id *got[N];
	struct roce_cm_id *l, *x = NULL;
	struct roce_ah *ah;
	struct roce_qp *ud;
	unsigned requests = 0, x_gone = 0, x_req = 0;
	uint64_t end;
	(void)st;

	raw_sender_open(&ud, &ah);
	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(l, PORT, 1000), 0);
	stats(0, &a0);
	stats(1, &b0);
	raw_req(ud, ah, 0x5000, QPN0, 12, 1); /* X */
	for (unsigned i = 1; i < N; i++)
		raw_req(ud, ah, 0x5000 + i, QPN0 + i, 20, 15);
	/* X's sender has given up long since */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;
	while (rte_get_tsc_cycles() < end)
		stk_lcore_poll(lc);
	stats(0, &a1);
	stats(1, &b1);
	assert_int_equal(b1.events_dropped, b0.events_dropped); /* nothing lost */
	/* the application reads everything: every CONNECT_REQUEST has its own REQ's QPN, and
	 * X's ends in UNREACHABLE after its CONNECT_REQUEST */
	while (roce_cm_get_event(s[1].cm, &ev) == 0) {
		if (ev.event == ROCE_CM_EVENT_CONNECT_REQUEST) {
			assert_int_equal(ev.qp_num, ev.id->remote_qpn);
			assert_true(ev.qp_num >= QPN0 && ev.qp_num < QPN0 + N);
			assert_null(got[ev.qp_num - QPN0]); /* once each */
			got[ev.qp_num - QPN0] = ev.id;
			requests++;
			if (ev.qp_num == QPN0) {
				x = ev.id;
				x_req = requests;
			}
		} else {
			assert_int_equal(ev.event, ROCE_CM_EVENT_UNREACHABLE);
			assert_ptr_equal(ev.id, x);
			assert_int_equal(ev.status, -ETIMEDOUT);
			assert_true(x_req > 0);
			x_gone++;
		}
	}
	print_message("half-open: %u of %u REQs delivered, X timed out %u time(s)\n", requests, N,
		      x_gone);
	assert_int_equal(x_gone, 1);
	assert_true(requests < N && requests >= 500); /* the rest were refused */
	assert_int_equal(b1.ids, b0.ids + requests);  /* no identifier without its event */
	/* X's UNREACHABLE waited beyond the ring if the ring was full by then (512 requests
	 * delivered), or took the last slot (511) */
	assert_int_equal(requests - (b1.events_deferred - b0.events_deferred), 511);
	assert_int_equal(b1.rej_events_full - b0.rej_events_full, N - requests);
	assert_int_equal(b1.half_open_expired - b0.half_open_expired, 1);
	{
		struct roce_cm_listen_stats ls;

		assert_int_equal(roce_cm_listen_stats(l, &ls), 0);
		assert_int_equal(ls.requests, requests);
		assert_int_equal(ls.rej_events_full, N - requests);
		assert_int_equal(ls.rej_backlog, 0);
		assert_int_equal(ls.half_open_expired, 1);
		assert_int_equal(ls.pending, requests - 1);
		assert_int_equal(roce_cm_listen_stats(x, &ls), -EINVAL);
	}
	/* A heard a REJ "no resources" for each refused REQ and REJ "timeout" for X (for comm
	 * IDs its CM never gave out: the raw QP sent them) */
	assert_int_equal(a1.rx_drop_nomatch - a0.rx_drop_nomatch, N - requests + 1);
	{
		struct roce_qp *qx = make_qp(1, ROCE_QPT_RC);

		assert_int_equal(roce_cm_accept(x, qx, &fast), -EINVAL); /* too late */
		assert_int_equal(roce_destroy_qp(qx), 0);
	}
	for (unsigned i = 0; i < N; i++)
		if (got[i]) {
			if (got[i] != x)
				assert_int_equal(roce_cm_reject(got[i], NULL, 0), 0);
			assert_int_equal(roce_cm_destroy_id(got[i]), 0);
			got[i] = NULL;
		}
	assert_int_equal(roce_cm_destroy_id(l), 0);
	drive(50);
	drain_cq(0);
	drain_cq(1);
	assert_int_equal(roce_destroy_ah(ah), 0);
	assert_int_equal(roce_destroy_qp(ud), 0);
}

/*
 * Issue 11, churn: 10,000 connect/disconnect cycles (DROCE_CM_CHURN overrides; about 1 s at
 * -O2) leave QPs, MRs and CM identifiers on both devices, the mempool's in-use count and the
 * neighbour table where they started.
 */
static void churn(void **st)
{
	const char *env = getenv("DROCE_CM_CHURN");
	unsigned n = env ? (unsigned)strtoul(env, NULL, 0) : 10000;
	struct roce_dev_counts c0[2], c1[2];
	struct roce_cm_stats a0, a1, b0, b1;
	uint32_t neigh0;
	unsigned in_use;
	(void)st;

	{ /* one cycle first: the two hosts' neighbour entries for each other are not a leak */
		struct conn c;

		establish(&c, NULL);
		disconnect_both(&c);
		teardown_conn(&c);
	}
	in_use = settle(); /* frames of the previous test still in flight would skew the count */
	for (int k = 0; k < 2; k++)
		roce_dev_counts(s[k].dev, &c0[k]);
	neigh0 = stk_neigh_count(lc->neigh);
	stats(0, &a0);
	stats(1, &b0);
	for (unsigned i = 0; i < n; i++) {
		struct conn c;

		establish(&c, NULL);
		disconnect_both(&c);
		teardown_conn(&c);
	}
	for (int k = 0; k < 2; k++) {
		roce_dev_counts(s[k].dev, &c1[k]);
		assert_int_equal(c1[k].qps, c0[k].qps);
		assert_int_equal(c1[k].mrs, c0[k].mrs);
	}
	stats(0, &a1);
	stats(1, &b1);
	assert_int_equal(a1.ids, a0.ids);
	assert_int_equal(b1.ids, b0.ids);
	assert_int_equal(settle(), in_use);
	assert_int_equal(stk_neigh_count(lc->neigh), neigh0);
	print_message("churn: %u connect/disconnect cycles, %lu MADs sent by A\n", n,
		      (unsigned long)(a1.tx_mads - a0.tx_mads));
}

/*
 * More MADs at once than QP1's send queue holds (CM_SEND_DEPTH, 256): 400 connects from A, 400
 * rejects from B. Every MAD leaves on its first try: the ones beyond the send queue wait in the
 * CM's queue (tx_waited), none is dropped (tx_drop) and none is resent. Before, those beyond
 * the send queue were dropped and came only with their retransmission (here after 67 ms, with
 * the fixture's short CM response timeout; 4.3 s by default: cmtime -c 1000 took 8.9 s to
 * connect over a veth).
 */
/* A burst of N CM MADs from one device. In ROCE_POST_QUEUE mode the posts only queue, so QP1's
 * send queue (256) fills and the rest wait in the CM's txq; in the default immediate mode the
 * MADs leave as they are posted. Either way none is dropped and none is retransmitted. */
static void burst_in_mode(enum roce_post_mode mode)
{
	enum { N = 400 };
	static struct roce_cm_id *a[N];
	struct roce_cm_stats a0, a1, b0, b1;
	struct roce_cm_event ev;
	struct roce_cm_id *l;
	unsigned reqs = 0, rejected = 0;
	uint64_t end;

	assert_int_equal(roce_dev_set_post_mode(s[0].dev, mode), 0);
	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(l, PORT, 1000), 0);
	stats(0, &a0);
	stats(1, &b0);
	for (unsigned i = 0; i < N; i++) {
		struct roce_cm_conn_param p = fast;

		p.qp_num = 0x4000 + i; /* no QP: the REQ names one (librdmacm's rule) */
		a[i] = roce_cm_create_id(s[0].cm, ROCE_CM_PS_TCP, NULL);
		assert_non_null(a[i]);
		assert_int_equal(roce_cm_connect(a[i], &ip[1], PORT, NULL, &p), 0);
	}
	end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	while (rte_get_tsc_cycles() < end && rejected < N) {
		stk_lcore_poll(lc);
		while (roce_cm_get_event(s[1].cm, &ev) == 0) {
			assert_int_equal(ev.event, ROCE_CM_EVENT_CONNECT_REQUEST);
			assert_int_equal(roce_cm_reject(ev.id, NULL, 0), 0);
			assert_int_equal(roce_cm_destroy_id(ev.id), 0);
			reqs++;
		}
		while (roce_cm_get_event(s[0].cm, &ev) == 0) {
			assert_int_equal(ev.event, ROCE_CM_EVENT_REJECTED);
			rejected++;
		}
	}
	stats(0, &a1);
	stats(1, &b1);
	print_message("burst: %u REQs seen, %u REJs heard; A waited %lu MADs, B %lu\n", reqs,
		      rejected, (unsigned long)(a1.tx_waited - a0.tx_waited),
		      (unsigned long)(b1.tx_waited - b0.tx_waited));
	assert_int_equal(reqs, N);
	assert_int_equal(rejected, N);
	if (mode == ROCE_POST_QUEUE)
		assert_true(a1.tx_waited - a0.tx_waited >= N - 256);
	assert_int_equal(a1.tx_drop, a0.tx_drop);
	assert_int_equal(b1.tx_drop, b0.tx_drop);
	assert_int_equal(a1.retransmits, a0.retransmits);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(roce_cm_destroy_id(a[i]), 0);
	assert_int_equal(roce_cm_destroy_id(l), 0);
	drive(50);
	drain_cq(0);
	drain_cq(1);
	assert_int_equal(roce_dev_set_post_mode(s[0].dev, ROCE_POST_IMMEDIATE), 0);
}

static void burst_beyond_send_queue(void **st)
{
	(void)st;
	burst_in_mode(ROCE_POST_QUEUE);
	burst_in_mode(ROCE_POST_IMMEDIATE);
}

/* ------------------------------------------------------------------ spoofed REQs */

enum { SPOOF_N = 1000, SPOOF_BATCH = 32, SPOOF_QPN0 = 0x2000, SPOOF_COMM0 = 0x70000 };

/* The i-th spoofed host: 10.79.(1 + i / 250).(1 + i % 250) on B's /16, MAC 02:5f:00:00:hi:lo.
 * No such host exists: nobody answers B's ARP requests for it. */
static void spoof_host(unsigned i, struct stk_ipaddr *a, uint8_t mac[6])
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->v4 = rte_cpu_to_be_32(10u << 24 | 79u << 16 | (1 + i / 250) << 8 | (1 + i % 250));
	if (mac) {
		static const uint8_t m[6] = {0x02, 0x5f, 0, 0, 0, 0};

		memcpy(mac, m, 6);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
	}
}

/*
 * A CM REQ (req_mad()) from spoofed host @i as it arrives on B's wire: Ethernet from the host's
 * MAC to B's, IPv4 from its address to B's, UDP to 4791 with checksum zero (ut_frame_udp();
 * RoCEv2, IBTA A17.4), a BTH for UD SEND_ONLY to QP1 with P_Key 0xffff (IBTA 9.2), a DETH with
 * the GSI Q_Key and source QP 1 (IBTA 9.3.3), the MAD, and the ICRC (A17.3.3; roce_icrc_fill(),
 * which test_roce_wire checks against Linux captures). @resp_timeout and @retries bound how
 * long the "active side" waits, so how long B's timers run.
 */
static struct rte_mbuf *spoofed_req(unsigned i, uint8_t resp_timeout, uint8_t retries)
{
	uint8_t pl[12 + 8 + ROCE_MAD_LEN + 4], frame[UT_FRAME_MAX];
	struct stk_ipaddr src;
	struct rte_mbuf *m;
	struct ut_ip u;
	struct ut_off o;
	uint16_t len;
	uint8_t *d;

	memset(pl, 0, sizeof(pl));
	pl[0] = 0x64; /* UD SEND_ONLY */
	pl[1] = 0x40; /* MigReq; SE, PadCnt and TVer 0 */
	ut_put16(pl + 2, 0xffff);
	ut_put32(pl + 4, ROCE_GSI_QPN);	  /* FECN/BECN/resv 0, DestQP 1 */
	ut_put32(pl + 8, i & 0xffffff);	  /* AckReq 0, PSN */
	ut_put32(pl + 12, ROCE_GSI_QKEY); /* DETH: Q_Key */
	ut_put32(pl + 16, ROCE_GSI_QPN);  /* reserved, SrcQP 1 */
	ut_ip_default(&u, 4, IPPROTO_UDP);
	spoof_host(i, &src, u.smac);
	memcpy(u.src, &src.v4, 4);
	memcpy(u.dst, &ip[1].v4, 4);
	memcpy(u.dmac, stk_iface_get(1)->mac.addr_bytes, 6);
	req_mad(pl + 20, &src, SPOOF_COMM0 + i, SPOOF_QPN0 + i, resp_timeout, retries);
	len = ut_frame_udp(frame, &u, (uint16_t)(0xc000 | i), 4791, pl, sizeof(pl), true, &o);
	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	d = (uint8_t *)rte_pktmbuf_append(m, len);
	assert_non_null(d);
	memcpy(d, frame, len);
	roce_icrc_fill(m, o.l3, o.pay, (uint32_t)len - 4);
	return m;
}

static unsigned heap_allocs(void)
{
	struct rte_malloc_socket_stats st;
	unsigned n = 0;

	for (int sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &st) == 0)
			n += st.alloc_count;
	return n;
}

/* What B holds: the resources a spoofed REQ can make it commit. */
struct holding {
	uint64_t ids;	     /**< B's CM identifiers */
	uint32_t qps;	     /**< B's QPs */
	unsigned mbufs;	     /**< mbufs in use */
	unsigned allocs;     /**< rte_malloc elements (identifiers, QPs, address handles) */
	uint32_t neigh;	     /**< neighbour entries (one table for both sides) */
	uint64_t parked;     /**< mbufs parked in them, waiting for ARP */
	unsigned incomplete; /**< entries for spoofed hosts still resolving */
	unsigned resolved;   /**< ... and ones that resolved (nobody may answer: must stay 0) */
};

static void count_spoofed(void *ctx, const struct stk_neigh *n)
{
	struct holding *h = ctx;
	uint32_t a = rte_be_to_cpu_32(n->ip.v4);

	if (n->ip.family != 4 || (a >> 16) != (10u << 8 | 79u) || ((a >> 8) & 0xff) == 0)
		return;
	if (n->state == STK_NEIGH_INCOMPLETE)
		h->incomplete++;
	else
		h->resolved++;
}

static void holding(struct holding *h)
{
	struct roce_dev_counts dc;
	struct roce_cm_stats cs;
	struct stk_neigh_stats ns;

	memset(h, 0, sizeof(*h));
	stats(1, &cs);
	roce_dev_counts(s[1].dev, &dc);
	stk_neigh_stats(lc->neigh, &ns);
	h->ids = cs.ids;
	h->qps = dc.qps;
	h->mbufs = rte_mempool_in_use_count(pool);
	h->allocs = heap_allocs();
	h->neigh = stk_neigh_count(lc->neigh);
	h->parked = ns.pending;
	stk_neigh_walk(lc->neigh, count_spoofed, h);
}

static void peak(struct holding *p, const struct holding *h)
{
	p->ids = RTE_MAX(p->ids, h->ids);
	p->qps = RTE_MAX(p->qps, h->qps);
	p->mbufs = RTE_MAX(p->mbufs, h->mbufs);
	p->allocs = RTE_MAX(p->allocs, h->allocs);
	p->neigh = RTE_MAX(p->neigh, h->neigh);
	p->parked = RTE_MAX(p->parked, h->parked);
	p->incomplete = RTE_MAX(p->incomplete, h->incomplete);
	p->resolved = RTE_MAX(p->resolved, h->resolved);
}

/*
 * Issue 11, churn: 1,000 REQs from distinct spoofed sources that never complete leave nothing
 * behind once their timers run out. Each REQ is a well-formed RoCEv2 frame put on B's wire
 * from a host of B's subnet that does not exist (its own address and MAC), to a listener. The
 * REQs say their sender waits 2 x (16.8 ms + 134 ms) for an answer (CM response timeout 12,
 * max_cm_retries 1), so B's CM timers run out in about 0.3 s; its ARP gives up on each
 * address after 3 probes a second apart. The application takes every CONNECT_REQUEST and
 * - @accept: accepts it with a new RC QP, so B sends a REP (to an address it must resolve:
 *   a neighbour entry, the REP parked in it), resends it once, then gives up (REJ "timeout",
 *   UNREACHABLE);
 * - else: never answers, so the half-open timer ends it (REJ "timeout", UNREACHABLE);
 * and destroys the identifier (and its QP) on UNREACHABLE, as an application does. Once the
 * neighbour entries are gone, B's identifiers, QPs, mbufs, rte_malloc elements and neighbour
 * table are where they started, and the CM's counters tell what happened.
 */
static void spoofed_reqs(bool accept)
{
	static struct roce_cm_id *id[SPOOF_N];
	static struct roce_qp *qp[SPOOF_N];
	struct holding h0, hi, hmax, h1;
	struct roce_cm_listen_stats ls;
	struct roce_cm_stats b0, b1;
	struct stk_neigh_stats n0, n1;
	struct roce_cm_event ev;
	struct roce_cm_id *l;
	unsigned sent = 0, got = 0, gone = 0;
	uint64_t hz = rte_get_tsc_hz(), t0, t_gone, end;

	memset(id, 0, sizeof(id));
	memset(qp, 0, sizeof(qp));
	settle(); /* earlier tests' frames and neighbour entries out of the way */
	holding(&h0);
	hmax = h0;
	stats(1, &b0);
	stk_neigh_stats(lc->neigh, &n0);
	l = roce_cm_create_id(s[1].cm, ROCE_CM_PS_TCP, NULL);
	assert_non_null(l);
	assert_int_equal(roce_cm_listen(l, PORT, SPOOF_N), 0);

	t0 = rte_get_tsc_cycles();
	end = t0 + 30 * hz;
	while (gone < SPOOF_N) {
		assert_true(rte_get_tsc_cycles() < end);
		/* a batch at a time: QP1 has 128 receive buffers */
		if (sent < SPOOF_N && sent == got) {
			unsigned n = RTE_MIN((unsigned)SPOOF_BATCH, SPOOF_N - sent);

			for (unsigned k = 0; k < n; k++)
				assert_int_equal(
					rte_ring_enqueue(wire[1], spoofed_req(sent + k, 12, 1)), 0);
			sent += n;
		}
		stk_lcore_poll(lc);
		while (roce_cm_get_event(s[1].cm, &ev) == 0) {
			unsigned k = ev.id->remote_qpn - SPOOF_QPN0;
			struct stk_ipaddr a;

			assert_true(k < SPOOF_N);
			if (ev.event == ROCE_CM_EVENT_CONNECT_REQUEST) {
				spoof_host(k, &a, NULL);
				assert_ptr_equal(ev.listen_id, l);
				assert_int_equal(ev.id->remote_ip.v4, a.v4);
				assert_null(id[k]); /* once each */
				id[k] = ev.id;
				got++;
				if (accept) {
					qp[k] = make_qp(1, ROCE_QPT_RC);
					assert_int_equal(roce_cm_accept(ev.id, qp[k], &fast), 0);
				}
			} else {
				assert_int_equal(ev.event, ROCE_CM_EVENT_UNREACHABLE);
				assert_int_equal(ev.status, -ETIMEDOUT);
				assert_ptr_equal(ev.id, id[k]);
				assert_int_equal(roce_cm_destroy_id(id[k]), 0);
				id[k] = NULL;
				if (qp[k]) {
					assert_int_equal(roce_qp_state(qp[k]), ROCE_QPS_ERR);
					assert_int_equal(roce_destroy_qp(qp[k]), 0);
					qp[k] = NULL;
				}
				gone++;
			}
		}
		holding(&hi);
		peak(&hmax, &hi);
	}
	t_gone = rte_get_tsc_cycles();
	assert_int_equal(roce_cm_listen_stats(l, &ls), 0);
	assert_int_equal(ls.requests, SPOOF_N);
	assert_int_equal(ls.rej_backlog + ls.rej_events_full, 0);
	assert_int_equal(ls.half_open_expired, accept ? 0 : SPOOF_N);
	assert_int_equal(ls.pending, 0);
	assert_int_equal(roce_cm_destroy_id(l), 0);

	/* the identifiers are gone; now ARP gives up on the last address */
	end = rte_get_tsc_cycles() + 10 * hz;
	do {
		stk_lcore_poll(lc);
		holding(&hi);
		peak(&hmax, &hi);
	} while ((hi.neigh != h0.neigh || hi.parked != h0.parked) && rte_get_tsc_cycles() < end);
	settle();
	holding(&h1);
	stats(1, &b1);
	stk_neigh_stats(lc->neigh, &n1);
	print_message(
		"spoofed REQs, %s: ids %lu -> %lu -> %lu, QPs %u -> %u -> %u, mbufs in use "
		"%u -> %u -> %u, rte_malloc elements %u -> %u -> %u, neighbour entries %u -> "
		"%u -> %u (spoofed: %u incomplete, %u resolved), parked mbufs %lu -> %lu -> "
		"%lu (%lu refused by the table's cap); REPs resent %lu, REJs %lu, half-open "
		"expired %lu, MADs sent %lu (%lu not); all UNREACHABLE after %.2f s, neighbours gone "
		"after %.2f s\n",
		accept ? "accepted" : "never answered", (unsigned long)h0.ids,
		(unsigned long)hmax.ids, (unsigned long)h1.ids, h0.qps, hmax.qps, h1.qps, h0.mbufs,
		hmax.mbufs, h1.mbufs, h0.allocs, hmax.allocs, h1.allocs, h0.neigh, hmax.neigh,
		h1.neigh, hmax.incomplete, hmax.resolved, (unsigned long)h0.parked,
		(unsigned long)hmax.parked, (unsigned long)h1.parked,
		(unsigned long)(n1.pending_cap - n0.pending_cap),
		(unsigned long)(b1.retransmits - b0.retransmits),
		(unsigned long)(b1.rej_sent - b0.rej_sent),
		(unsigned long)(b1.half_open_expired - b0.half_open_expired),
		(unsigned long)(b1.tx_mads - b0.tx_mads), (unsigned long)(b1.tx_drop - b0.tx_drop),
		(double)(t_gone - t0) / (double)hz,
		(double)(rte_get_tsc_cycles() - t0) / (double)hz);

	/* B committed resources while it waited: an identifier per REQ, a QP per accept, a
	 * neighbour entry per spoofed address, none of which ever resolved */
	assert_true(hmax.ids > h0.ids);
	assert_true(hmax.neigh > h0.neigh);
	assert_int_equal(hmax.resolved, 0);
	if (accept)
		assert_true(hmax.qps > h0.qps);
	/* ... and nothing is left of them */
	assert_int_equal(h1.ids, h0.ids);
	assert_int_equal(h1.qps, h0.qps);
	assert_int_equal(h1.mbufs, h0.mbufs);
	assert_int_equal(h1.allocs, h0.allocs);
	assert_int_equal(h1.neigh, h0.neigh);
	assert_int_equal(h1.parked, h0.parked);
	assert_int_equal(h1.incomplete + h1.resolved, 0);
	/* the CM's counters: each connection timed out once, with one REJ "timeout" */
	assert_int_equal(b1.rej_sent - b0.rej_sent, SPOOF_N);
	assert_int_equal(b1.retransmits - b0.retransmits, accept ? SPOOF_N : 0);
	assert_int_equal(b1.half_open_expired - b0.half_open_expired, accept ? 0 : SPOOF_N);
	assert_int_equal(b1.rej_backlog - b0.rej_backlog, 0);
	assert_int_equal(b1.rej_events_full - b0.rej_events_full, 0);
	assert_int_equal(b1.events_dropped - b0.events_dropped, 0);
	/* every MAD went out: REP, its resend and the REJ, or the REJ alone */
	assert_int_equal(b1.tx_drop - b0.tx_drop, 0);
	assert_int_equal(b1.tx_mads - b0.tx_mads, accept ? 3 * SPOOF_N : SPOOF_N);
}

static void spoofed_reqs_accepted(void **st)
{
	(void)st;
	spoofed_reqs(true);
}

static void spoofed_reqs_unanswered(void **st)
{
	(void)st;
	spoofed_reqs(false);
}

int main(void)
{
	static char a0[] = "test_cm_churn", a1[] = "--no-huge", a2[] = "-m", a3[] = "256",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(half_open_and_event_overflow, next_port),
		cmocka_unit_test_setup(churn, next_port),
		cmocka_unit_test_setup(burst_beyond_send_queue, next_port),
		cmocka_unit_test_setup(spoofed_reqs_accepted, next_port),
		cmocka_unit_test_setup(spoofed_reqs_unanswered, next_port),
	};
	int rc;

	if (rte_eal_init(10, eal) < 0)
		return 1;
	if (getenv("DROCE_TEST_FILTER")) /* run only the tests matching this pattern */
		cmocka_set_test_filter(getenv("DROCE_TEST_FILTER"));
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	rte_eal_cleanup();
	return rc;
}
