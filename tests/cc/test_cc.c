/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cc.c - droce endpoints through the congestion switch (bench/ccswitch): two senders, one
 * receiver, one bottleneck (the switch's egress to the receiver), all on one lcore. Each
 * scenario runs for a bounded time and checks every message byte for byte (cc_lab.c).
 *   pfc_lossless     PFC on, ECN off, a buffer the two flows overflow: no switch drops, XOFFs
 *                    sent and honoured by the senders; the same without PFC must drop.
 *   dcqcn_fair       ECN marking + DCQCN, no PFC: each flow within 20 % of the fair share,
 *                    CNPs flow, the queue below Kmax in at least 80 % of the samples.
 *   loss_completes   1 % random loss, no PFC: every message arrives intact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "cc_lab.h"

static struct ccl *lab;

static void show(const struct ccl_scenario *s, const struct ccl_result *r)
{
	printf("# %-16s %s%s%s: %.3f Gbit/s in %.2f s; switch drops %lu (tail %lu, loss %lu), "
	       "marks %lu, XOFF %lu, XON %lu; CNPs %lu; queue mean %.0f p99 %.0f max %u B, "
	       "%.1f %% of %u samples below Kmax\n",
	       s->name, r->ok ? "ok" : "FAILED: ", r->ok ? "" : r->why, "", r->gbps, r->secs,
	       (unsigned long)r->sw.drops, (unsigned long)r->sw.drop_tail,
	       (unsigned long)r->sw.drop_loss, (unsigned long)r->sw.marks,
	       (unsigned long)r->sw.pauses, (unsigned long)r->sw.xons, (unsigned long)r->cnp_tx,
	       r->q_mean, r->q_p99, r->q_max, 100 * r->q_below_kmax, r->nsamples);
	for (unsigned f = 0; f < s->nsenders; f++)
		printf("#   flow %u: %.3f Gbit/s, %lu msgs (%lu verified), p99 %.0f us, "
		       "CNPs %lu, rate %.2f, PFC rx %lu\n",
		       f, r->f[f].gbps, (unsigned long)r->f[f].msgs,
		       (unsigned long)r->f[f].verified, r->f[f].p99_us,
		       (unsigned long)r->f[f].cnp_rx, r->f[f].rate_gbps,
		       (unsigned long)r->f[f].pfc_rx);
	fflush(stdout);
}

/* Two WRITE flows into a 2 Gbit/s bottleneck with a buffer they overflow unless paused. */
static void pfc_scenario(struct ccl_scenario *s, bool pfc)
{
	ccl_scenario_default(s);
	s->name = pfc ? "pfc" : "pfc-control";
	s->warmup = 0.05;
	s->secs = 0.4;
	s->bottle.rate_bps = 2000000000ull;
	s->bottle.capacity = 192u << 10;
	s->bottle.pfc = pfc;
	s->bottle.pfc_xoff = 48u << 10;
	s->bottle.pfc_xon = 24u << 10;
	s->qp_timeout = 10;
}

static void pfc_lossless(void **st)
{
	struct ccl_scenario s;
	struct ccl_result r;
	uint64_t pfc_rx = 0;
	(void)st;

	/* control: without PFC the same set-up loses frames at the switch */
	pfc_scenario(&s, false);
	assert_int_equal(ccl_run(lab, &s, &r), 0);
	show(&s, &r);
	assert_true(r.ok);
	assert_true(r.sw.drop_tail > 0);
	assert_int_equal(r.sw.pauses, 0);

	pfc_scenario(&s, true);
	assert_int_equal(ccl_run(lab, &s, &r), 0);
	show(&s, &r);
	assert_true(r.ok); /* every WRITE verified at the receiver */
	assert_true(r.f[0].verified > 0 && r.f[1].verified > 0);
	assert_true(r.sw.pauses > 0);
	for (unsigned f = 0; f < s.nsenders; f++)
		pfc_rx += r.f[f].pfc_rx;
	assert_int_equal(r.sw.drops, 0);
	assert_true(pfc_rx > 0);
}

static void dcqcn_fair(void **st)
{
	struct ccl_scenario s;
	struct ccl_result r;
	double fair;
	(void)st;

	ccl_scenario_default(&s);
	s.name = "dcqcn";
	s.dcqcn = true;
	s.line_gbps = 10;
	s.warmup = 0.5;
	s.secs = 1.0;
	s.bottle.rate_bps = 2000000000ull;
	s.bottle.capacity = 2u << 20; /* deep enough that DCQCN, not tail drop, sets the rates */
	s.bottle.ecn = true;	      /* Kmin 5 KB, Kmax 200 KB, Pmax 1 % */
	assert_int_equal(ccl_run(lab, &s, &r), 0);
	show(&s, &r);
	assert_true(r.ok);
	fair = r.gbps / 2;
	printf("# fair share %.3f Gbit/s: flow 0 at %.1f %%, flow 1 at %.1f %%; queue below Kmax "
	       "in %.1f %% of samples\n",
	       fair, 100 * r.f[0].gbps / fair, 100 * r.f[1].gbps / fair, 100 * r.q_below_kmax);
	/* the bottleneck, not the CPU, limited the flows: a standing queue formed (a rate
	 * figure would depend on how much CPU this shared machine gives us) */
	assert_true(r.q_mean > 5 * 1024);
	for (unsigned f = 0; f < 2; f++) {
		assert_true(r.f[f].gbps >= 0.8 * fair && r.f[f].gbps <= 1.2 * fair);
		assert_true(r.f[f].cnp_rx > 0);
	}
	assert_true(r.cnp_tx > 0 && r.sw.marks > 0);
	assert_true(r.nsamples > 100);
	assert_true(r.q_below_kmax >= 0.8);
}

static void loss_completes(void **st)
{
	struct ccl_scenario s;
	struct ccl_result r;
	(void)st;

	for (int op = CCL_WRITE; op <= CCL_SEND; op++) {
		ccl_scenario_default(&s);
		s.name = op == CCL_WRITE ? "loss-1%-write" : "loss-1%-send";
		s.op = (enum ccl_op)op;
		s.warmup = 0.05;
		s.secs = 0.3;
		s.qp_timeout = 10;
		s.bottle.rate_bps = 2000000000ull;
		s.bottle.loss = 0.01;
		assert_int_equal(ccl_run(lab, &s, &r), 0);
		show(&s, &r);
		assert_true(r.ok);
		assert_true(r.sw.drop_loss > 0);
		assert_true(r.f[0].verified > 0 && r.f[1].verified > 0);
		for (unsigned f = 0; f < s.nsenders; f++) {
			const struct roce_qp_stats *q = &r.f[f].qs;

			printf("#   flow %u: %lu go-backs (%lu NAKs, %lu early RTOs, %lu timeouts), "
			       "%lu losses inside a window already cut, cwnd %u, srtt %.0f us\n",
			       f, (unsigned long)q->retransmits, (unsigned long)q->nak_seq_rx,
			       (unsigned long)q->rto_early, (unsigned long)q->timeouts,
			       (unsigned long)q->cwnd_cut_skipped, q->cwnd, q->srtt_us);
			/* fast retransmit: losses are recovered by NAKs, not by timers */
			assert_true(q->nak_seq_rx > 0);
			assert_true(q->nak_seq_rx >= q->rto_early + q->timeouts);
			/* one window cut per loss episode: later losses in the same window skip */
			assert_true(q->cwnd_cut_skipped > 0);
		}
	}
}

int main(void)
{
	static char a0[] = "test_cc", a1[] = "--no-huge", a2[] = "-m", a3[] = "512",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pfc_lossless),
		cmocka_unit_test(dcqcn_fair),
		cmocka_unit_test(loss_completes),
	};
	int rc;

	if (rte_eal_init(10, eal) < 0)
		return 1;
	lab = ccl_create(2);
	if (!lab)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ccl_destroy(lab);
	rte_eal_cleanup();
	return rc;
}
