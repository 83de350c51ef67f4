/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfsd_log.c - droce-nfsd's rate limit on messages a client can cause (apps/nfsd/nfsd_log.c):
 * a burst per interval goes out, the rest is counted, and the count is reported once, with
 * the first message of a later interval; and the streams journald reads: each line gets its
 * priority unless it has one, long lines are cut with each piece prefixed and ended, a last line
 * without its newline goes out at close with one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>
#include <unistd.h>

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

static void test_prefixed_stream(void **state)
{
	static char got[16384], want[16384], big[5000];
	int p[2];
	size_t n = 0;
	ssize_t r;
	FILE *f;

	(void)state;
	assert_int_equal(pipe(p), 0);
	f = nfsd_log_prefixed(p[1], 3);
	assert_non_null(f);
	fprintf(f, "droce-nfsd: a line\n<4>has its own\n");
	fprintf(f, "in two ");
	fprintf(f, "pieces\n<x>not a priority\n");
	memset(big, 'b', sizeof(big) - 1);
	fprintf(f, "%s\n", big);
	fprintf(f, "no newline");
	assert_int_equal(fclose(f), 0);
	close(p[1]);
	while ((r = read(p[0], got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	got[n] = 0;
	/* the 4999 b's: 4095 fill the buffer (a piece, given a newline), then the other 904 */
	snprintf(want, sizeof(want),
		 "<3>droce-nfsd: a line\n<4>has its own\n<3>in two pieces\n<3><x>not a "
		 "priority\n<3>%.4095s\n<3>%s\n<3>no newline\n",
		 big, big + 4095);
	assert_string_equal(got, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_count),
		cmocka_unit_test(test_zero_burst),
		cmocka_unit_test(test_prefixed_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
