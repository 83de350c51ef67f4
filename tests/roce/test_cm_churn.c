/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cm_churn.c - the connection manager under churn and from hosts that never finish what
 * they start, on the two-device fixture of cm_fixture.h (issue 11, items 9 and "Churn"):
 * REQs nobody answers (the half-open timer) while the application falls behind on its events;
 * 10,000 connect/disconnect cycles that leave QPs, MRs, CM identifiers, mbufs and neighbour
 * entries where they started.
 */
#include "cm_fixture.h"

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

int main(void)
{
	static char a0[] = "test_cm_churn", a1[] = "--no-huge", a2[] = "-m", a3[] = "256",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(half_open_and_event_overflow, next_port),
		cmocka_unit_test_setup(churn, next_port),
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
