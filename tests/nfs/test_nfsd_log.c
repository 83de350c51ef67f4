/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfsd_log.c - droce-nfsd's rate limit on messages a client can cause (apps/nfsd/nfsd_log.c):
 * a burst per interval goes out, the rest is counted, and the count is reported once, with
 * the first message of a later interval.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nfsd_log.h"

#define S 1000000000ull

static void test_burst_then_count(void **state)
{
	struct nfsd_ratelimit rl = {.burst = 3, .interval_s = 10};
	uint32_t rep;

	(void)state;
	/* the first three in an interval go out, the next two do not */
	for (int i = 0; i < 3; i++) {
		assert_true(nfsd_rl_allow(&rl, 5 * S + (uint64_t)i, &rep));
		assert_int_equal(rep, 0);
	}
	assert_false(nfsd_rl_allow(&rl, 6 * S, &rep));
	assert_int_equal(rep, 0);
	assert_false(nfsd_rl_allow(&rl, 14 * S + S / 2, &rep)); /* 9.5 s in: same interval */
	assert_int_equal(rep, 0);
	/* 10 s after the interval began: a new one; the two left out are reported once */
	assert_true(nfsd_rl_allow(&rl, 15 * S, &rep));
	assert_int_equal(rep, 2);
	assert_true(nfsd_rl_allow(&rl, 15 * S + 1, &rep));
	assert_int_equal(rep, 0);
	/* an interval that left nothing out reports nothing */
	assert_true(nfsd_rl_allow(&rl, 40 * S, &rep));
	assert_int_equal(rep, 0);
}

static void test_zero_burst(void **state)
{
	struct nfsd_ratelimit rl = {.burst = 0, .interval_s = 1};
	uint32_t rep;

	(void)state;
	assert_false(nfsd_rl_allow(&rl, 1, &rep));
	assert_false(nfsd_rl_allow(&rl, 2, &rep));
	assert_false(nfsd_rl_allow(&rl, 2 * S, &rep));
	assert_int_equal(rep, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_count),
		cmocka_unit_test(test_zero_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
