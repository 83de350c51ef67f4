/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dcqcn.c - the DCQCN reaction point and CNP pacing on a controlled clock (1 GHz: one
 * cycle is one nanosecond). Each stage transition is driven by hand and its rate is checked
 * against the formula of Zhu et al. (SIGCOMM 2015, Figure 7), computed here independently.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "roce_dcqcn.h"

#define HZ 1000000000ull
#define US 1000ull
#define EPS 1e-9

static struct roce_dcqcn_params p;

static void at_line_rate_nothing_happens(void **st)
{
	struct roce_dcqcn_rp rp;
	(void)st;

	roce_dcqcn_params_default(&p, 100.0);
	roce_dcqcn_rp_init(&rp, &p, HZ, 0);
	assert_int_equal(rp.stage, ROCE_DCQCN_LINE);
	for (uint64_t t = 0; t < 1000 * US; t += 7 * US) {
		roce_dcqcn_rp_tick(&rp, t);
		assert_true(roce_dcqcn_rp_may_send(&rp, t));
		roce_dcqcn_rp_sent(&rp, 4096, t);
	}
	assert_int_equal(rp.stage, ROCE_DCQCN_LINE);
	assert_true(rp.rc == 100.0 && rp.increases == 0);
}

static void cut_fast_recovery_additive_hyper_line(void **st)
{
	struct roce_dcqcn_rp rp;
	double rc, rt, alpha, g = 1.0 / 256;
	uint64_t t = 1000 * US;
	(void)st;

	roce_dcqcn_params_default(&p, 100.0);
	roce_dcqcn_rp_init(&rp, &p, HZ, 0);

	/* the cut: RC halves with alpha 1, RT keeps the old rate, alpha stays 1 */
	roce_dcqcn_rp_cnp(&rp, t);
	rc = 100.0 * (1 - 1.0 / 2);
	rt = 100.0;
	alpha = (1 - g) * 1.0 + g;
	assert_int_equal(rp.stage, ROCE_DCQCN_FAST_RECOVERY);
	assert_true(fabs(rp.rc - rc) < EPS && fabs(rp.rt - rt) < EPS);
	assert_true(fabs(rp.alpha - alpha) < EPS);

	/* alpha decays once per 55 us without CNPs, while the rate timer fires as well */
	for (unsigned k = 1; k <= 4; k++) {
		roce_dcqcn_rp_tick(&rp, t + k * 55 * US);
		alpha *= 1 - g;
		rc = (rt + rc) / 2; /* fast recovery: no RT change */
		assert_int_equal(rp.t_count, k);
		assert_int_equal(rp.stage, ROCE_DCQCN_FAST_RECOVERY);
		assert_true(fabs(rp.rc - rc) < 1e-6);
		assert_true(fabs(rp.alpha - alpha) < 1e-9);
	}
	/* a second cut uses the decayed alpha */
	t += 4 * 55 * US + 10 * US;
	roce_dcqcn_rp_cnp(&rp, t);
	rt = rc;
	rc = rc * (1 - alpha / 2);
	alpha = (1 - g) * alpha + g;
	assert_true(fabs(rp.rc - rc) < 1e-6 && fabs(rp.rt - rt) < 1e-6);
	assert_int_equal(rp.t_count, 0);

	/* five timer events: the fifth (count F) enters additive increase */
	for (unsigned k = 1; k <= 5; k++) {
		roce_dcqcn_rp_tick(&rp, t + k * 55 * US);
		if (k == 5) {
			rt += p.ai_gbps;
			assert_int_equal(rp.stage, ROCE_DCQCN_ADDITIVE);
		} else {
			assert_int_equal(rp.stage, ROCE_DCQCN_FAST_RECOVERY);
		}
		rc = (rt + rc) / 2;
		assert_true(fabs(rp.rc - rc) < 1e-6);
		assert_true(fabs(rp.rt - rt) < 1e-6);
	}
	/* the byte counter: 5 x 150 KiB sent; on the fifth both counts reach F -> hyper */
	for (unsigned k = 1; k <= 5; k++) {
		uint64_t now = t + 5 * 55 * US + k * US; /* before the next timer event */

		roce_dcqcn_rp_sent(&rp, 150 * 1024, now);
		assert_int_equal(rp.bc_count, k);
		if (k < 5) {
			rt += p.ai_gbps;
			assert_int_equal(rp.stage, ROCE_DCQCN_ADDITIVE);
		} else {
			rt += 1 * p.hai_gbps; /* i = min(5, 5) - 5 + 1 */
			assert_int_equal(rp.stage, ROCE_DCQCN_HYPER);
		}
		rc = (rt + rc) / 2;
		assert_true(fabs(rp.rt - rt) < 1e-6);
		assert_true(fabs(rp.rc - rc) < 1e-6);
	}
	/* left alone, the rate climbs back to line rate and the limiter switches off */
	for (uint64_t k = 1; rp.stage != ROCE_DCQCN_LINE && k < 100000; k++)
		roce_dcqcn_rp_tick(&rp, t + 5 * 55 * US + k * 55 * US);
	assert_int_equal(rp.stage, ROCE_DCQCN_LINE);
	assert_true(rp.rc == 100.0);
	assert_true(rp.stage_cnt[ROCE_DCQCN_HYPER] >= 1 && rp.stage_cnt[ROCE_DCQCN_ADDITIVE] >= 1);
}

static void pacing_follows_the_rate(void **st)
{
	struct roce_dcqcn_rp rp;
	uint64_t t = 0;
	(void)st;

	roce_dcqcn_params_default(&p, 20.0);
	roce_dcqcn_rp_init(&rp, &p, HZ, 0);
	roce_dcqcn_rp_cnp(&rp, t); /* 10 Gbit/s: 1250 bytes take 1 us */
	assert_true(fabs(rp.rc - 10.0) < EPS);
	assert_true(roce_dcqcn_rp_may_send(&rp, t));
	roce_dcqcn_rp_sent(&rp, 1250, t);
	assert_false(roce_dcqcn_rp_may_send(&rp, t + 999));
	assert_true(roce_dcqcn_rp_may_send(&rp, t + 1000));
	roce_dcqcn_rp_sent(&rp, 2500, t + 1000);
	assert_false(roce_dcqcn_rp_may_send(&rp, t + 2999));
	assert_true(roce_dcqcn_rp_may_send(&rp, t + 3000));
}

static void never_below_the_minimum(void **st)
{
	struct roce_dcqcn_rp rp;
	(void)st;

	roce_dcqcn_params_default(&p, 100.0);
	p.min_gbps = 0.5;
	roce_dcqcn_rp_init(&rp, &p, HZ, 0);
	for (unsigned i = 0; i < 200; i++)
		roce_dcqcn_rp_cnp(&rp, (uint64_t)i * US);
	assert_true(rp.rc >= 0.5 - EPS && rp.rc < 0.5 + EPS);
	assert_int_equal(rp.cnps, 200);
}

static void np_paces_cnps(void **st)
{
	uint64_t last = 0, t = 123 * US;
	(void)st;

	roce_dcqcn_params_default(&p, 100.0);
	assert_true(roce_dcqcn_np_may_cnp(&last, &p, HZ, t));
	assert_false(roce_dcqcn_np_may_cnp(&last, &p, HZ, t + 49 * US));
	assert_true(roce_dcqcn_np_may_cnp(&last, &p, HZ, t + 50 * US));
	p.cnp_interval_us = 4;
	assert_false(roce_dcqcn_np_may_cnp(&last, &p, HZ, t + 53 * US));
	assert_true(roce_dcqcn_np_may_cnp(&last, &p, HZ, t + 54 * US));
}

/* load_ini TEXT: write TEXT to a temporary INI file, run roce_dcqcn_config_load on it */
static int load_ini(const char *text, bool *on, struct roce_dcqcn_params *q, char *err,
		    size_t errlen)
{
	char path[] = "/tmp/test_dcqcn_XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	err[0] = 0;
	rc = roce_dcqcn_config_load(path, on, q, err, errlen);
	unlink(path);
	return rc;
}

/* The [dcqcn] section: present = on with the published defaults, each key overrides one
 * parameter; a bad key or value names the key and what to write instead. */
static void config_section(void **st)
{
	struct roce_dcqcn_params q, d;
	char err[256];
	bool on = true;
	(void)st;

	roce_dcqcn_params_default(&d, 100);
	assert_int_equal(load_ini("[port0]\ndev = x\n", &on, &q, err, sizeof(err)), 0);
	assert_false(on);
	assert_int_equal(load_ini("[dcqcn]\n", &on, &q, err, sizeof(err)), 0);
	assert_true(on);
	assert_true(q.g == d.g && q.f == d.f && q.byte_counter == d.byte_counter &&
		    q.cnp_interval_us == d.cnp_interval_us && q.line_gbps == 100);
	assert_int_equal(load_ini("[dcqcn]\nline_gbps = 25\ng = 0.0625\nf = 3\nalpha_us = 10\n"
				  "timer_us = 300\nbyte_counter = 1048576\ncnp_interval_us = 4\n"
				  "min_gbps = 0.5\nai_gbps = 0.04\nhai_gbps = 0.2\n",
				  &on, &q, err, sizeof(err)),
			 0);
	assert_true(on);
	assert_true(q.line_gbps == 25 && q.g == 0.0625 && q.f == 3 && q.alpha_us == 10 &&
		    q.timer_us == 300 && q.byte_counter == 1048576 && q.cnp_interval_us == 4 &&
		    q.min_gbps == 0.5 && q.ai_gbps == 0.04 && q.hai_gbps == 0.2);
	assert_int_equal(load_ini("[dcqcn]\nenable = no\n", &on, &q, err, sizeof(err)), 0);
	assert_false(on);

	assert_int_equal(load_ini("[dcqcn]\ngain = 1\n", &on, &q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "[dcqcn] gain = 1: unknown key; known:"));
	assert_int_equal(load_ini("[dcqcn]\ng = 2\n", &on, &q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "g = 2: a gain between 0 and 1"));
	assert_int_equal(load_ini("[dcqcn]\nf = 2.5\n", &on, &q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "f = 2.5: stages"));
	assert_int_equal(load_ini("[dcqcn]\nenable = maybe\n", &on, &q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "say yes or no"));
	assert_int_equal(
		load_ini("[dcqcn]\nline_gbps = 10\nmin_gbps = 20\n", &on, &q, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "must not exceed line_gbps"));
	assert_int_equal(
		roce_dcqcn_config_load("/nonexistent/droce.ini", &on, &q, err, sizeof(err)),
		-ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(at_line_rate_nothing_happens),
		cmocka_unit_test(cut_fast_recovery_additive_hyper_line),
		cmocka_unit_test(pacing_follows_the_rate),
		cmocka_unit_test(never_below_the_minimum),
		cmocka_unit_test(np_paces_cnps),
		cmocka_unit_test(config_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
