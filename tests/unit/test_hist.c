/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hist.c - stk_hist, the log-linear latency histogram, against known distributions:
 * a constant, a uniform and an exponential one (from fixed xorshift seeds), each also kept
 * exactly in a sorted array. Every percentile the profiler prints (p50, p90, p99, p99.9,
 * p99.99) and a sweep of others must be within the promised 2^-(S+1) of the exact nearest-rank
 * value; min, max, count and the mean exact, the standard deviation to 1e-9. Also: the bucket
 * layout (bounds, width, contiguity), values at the edges (0, 2^S, UINT64_MAX), merging, an
 * empty histogram, and bad arguments. No EAL needed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <setjmp.h>

#include <cmocka.h>

#include "stk_hist.h"

#define N 200000

static uint64_t rng_state;

static uint64_t xorshift(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* uniform in (0, 1) */
static double unit(void)
{
	return ((double)(xorshift() >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* the exact nearest-rank percentile of sorted @v */
static uint64_t exact_pct(const uint64_t *v, size_t n, double pct)
{
	size_t rank;

	if (pct <= 0)
		return v[0];
	if (pct >= 100)
		return v[n - 1];
	rank = (size_t)ceill((long double)pct / 100.0L * (long double)n);
	return v[rank ? rank - 1 : 0];
}

/* fill @h and @v with the same n values, then compare everything */
static void check_against(struct stk_hist *h, uint64_t *v, size_t n, unsigned sub_bits)
{
	static const double pcts[] = {0,  1,  10,   25,	  50,	 75,	 90,
				      95, 99, 99.5, 99.9, 99.99, 99.999, 100};
	double bound = 1.0 / (double)(2u << sub_bits), sum = 0, sq = 0, mean, sd;

	qsort(v, n, sizeof(v[0]), cmp_u64);
	assert_int_equal(stk_hist_count(h), n);
	assert_int_equal(stk_hist_min(h), v[0]);
	assert_int_equal(stk_hist_max(h), v[n - 1]);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	sd = sqrt(sq / (double)n);
	assert_true(fabs(stk_hist_mean(h) - mean) <= 1e-9 * mean + 1e-9);
	assert_true(fabs(stk_hist_stdev(h) - sd) <= 1e-6 * sd + 1e-6);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		uint64_t want = exact_pct(v, n, pcts[k]), got = stk_hist_percentile(h, pcts[k]);
		double err = fabs((double)got - (double)want);

		if (want < (1u << sub_bits))
			assert_int_equal(got, want);
		if (err > bound * (double)want) {
			print_error("p%g: got %lu, exact %lu, error %.5f > %.5f\n", pcts[k],
				    (unsigned long)got, (unsigned long)want, err / (double)want,
				    bound);
			fail();
		}
	}
}

static void test_constant(void **state)
{
	struct stk_hist *h = stk_hist_create(0);
	uint64_t *v = malloc(N * sizeof(*v));

	assert_non_null(h);
	assert_non_null(v);
	for (size_t i = 0; i < N; i++) {
		v[i] = 12345;
		stk_hist_record(h, v[i]);
	}
	check_against(h, v, N, STK_HIST_SUB_BITS_DEFAULT);
	/* every percentile of a constant is the constant itself (clamped to [min, max]) */
	assert_int_equal(stk_hist_percentile(h, 50), 12345);
	assert_int_equal(stk_hist_percentile(h, 99.99), 12345);
	assert_true(stk_hist_stdev(h) == 0);
	free(v);
	stk_hist_free(h);
}

static void test_uniform(void **state)
{
	static const unsigned bits[] = {4, 8, 11};

	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
		struct stk_hist *h = stk_hist_create(bits[b]);
		uint64_t *v = malloc(N * sizeof(*v));

		assert_non_null(h);
		assert_non_null(v);
		rng_state = 0x9e3779b97f4a7c15ull;
		for (size_t i = 0; i < N; i++) {
			v[i] = 1000 + xorshift() % 999001; /* [1000, 1e6] */
			stk_hist_record(h, v[i]);
		}
		check_against(h, v, N, bits[b]);
		/* and against the distribution itself: p50 of U[1000, 1e6] is ~500500 */
		assert_true(fabs((double)stk_hist_percentile(h, 50) - 500500.0) < 0.01 * 500500);
		free(v);
		stk_hist_free(h);
	}
}

static void test_exponential(void **state)
{
	struct stk_hist *h = stk_hist_create(0);
	uint64_t *v = malloc(N * sizeof(*v));
	const double mean = 5000; /* e.g. cycles */

	assert_non_null(h);
	assert_non_null(v);
	rng_state = 0x2545f4914f6cdd1dull;
	for (size_t i = 0; i < N; i++) {
		v[i] = (uint64_t)llround(-mean * log(unit()));
		stk_hist_record(h, v[i]);
	}
	check_against(h, v, N, STK_HIST_SUB_BITS_DEFAULT);
	/* the quantiles of Exp(mean): -mean * ln(1 - q), to the sample's accuracy */
	assert_true(fabs((double)stk_hist_percentile(h, 50) - mean * log(2)) < 0.02 * mean);
	assert_true(fabs((double)stk_hist_percentile(h, 99) - mean * log(100)) < 0.05 * mean);
	assert_true(fabs(stk_hist_mean(h) - mean) < 0.02 * mean);
	assert_true(fabs(stk_hist_stdev(h) - mean) < 0.02 * mean);
	free(v);
	stk_hist_free(h);
}

/* buckets tile [0, UINT64_MAX] without gaps; none is wider than 2^-S of its lower bound */
static void test_layout(void **state)
{
	for (unsigned s = 1; s <= 12; s++) {
		struct stk_hist *h = stk_hist_create(s);
		uint64_t lo, hi, next = 0;
		unsigned n;

		assert_non_null(h);
		n = stk_hist_nbuckets(h);
		for (unsigned i = 0; i < n; i++) {
			stk_hist_bucket(h, i, &lo, &hi);
			assert_int_equal(lo, next);
			assert_true(hi >= lo);
			if (lo >= (1u << s))
				assert_true((hi - lo + 1) <= (lo >> s));
			assert_int_equal(stk_hist_index(h, lo), i);
			assert_int_equal(stk_hist_index(h, hi), i);
			next = hi + 1;
		}
		assert_int_equal(hi, UINT64_MAX);
		stk_hist_free(h);
	}
}

static void test_edges(void **state)
{
	struct stk_hist *h = stk_hist_create(8);

	assert_non_null(h);
	/* empty */
	assert_int_equal(stk_hist_count(h), 0);
	assert_int_equal(stk_hist_percentile(h, 50), 0);
	assert_int_equal(stk_hist_min(h), 0);
	assert_true(stk_hist_mean(h) == 0 && stk_hist_stdev(h) == 0);
	stk_hist_record(h, 0);
	stk_hist_record(h, 256);
	stk_hist_record(h, UINT64_MAX);
	assert_int_equal(stk_hist_min(h), 0);
	assert_int_equal(stk_hist_max(h), UINT64_MAX);
	assert_int_equal(stk_hist_percentile(h, 1), 0);
	assert_int_equal(stk_hist_percentile(h, 50), 256);
	assert_int_equal(stk_hist_percentile(h, 100), UINT64_MAX);
	stk_hist_record_n(h, 7, 0); /* nothing */
	assert_int_equal(stk_hist_count(h), 3);
	stk_hist_reset(h);
	assert_int_equal(stk_hist_count(h), 0);
	assert_int_equal(stk_hist_max(h), 0);
	stk_hist_free(h);
	assert_null(stk_hist_create(STK_HIST_SUB_BITS_MAX + 1));
	stk_hist_free(NULL);
}

/* two halves merged are the whole; different layouts do not merge */
static void test_merge(void **state)
{
	struct stk_hist *a = stk_hist_create(8), *b = stk_hist_create(8), *all = stk_hist_create(8);
	struct stk_hist *other = stk_hist_create(7);

	assert_true(a && b && all && other);
	rng_state = 12345;
	for (int i = 0; i < 50000; i++) {
		uint64_t x = xorshift() % 100000;

		stk_hist_record(i & 1 ? a : b, x);
		stk_hist_record(all, x);
	}
	assert_int_equal(stk_hist_merge(a, b), 0);
	assert_int_equal(stk_hist_count(a), stk_hist_count(all));
	assert_int_equal(stk_hist_min(a), stk_hist_min(all));
	assert_int_equal(stk_hist_max(a), stk_hist_max(all));
	for (double p = 0; p <= 100; p += 0.5)
		assert_int_equal(stk_hist_percentile(a, p), stk_hist_percentile(all, p));
	assert_true(fabs(stk_hist_stdev(a) - stk_hist_stdev(all)) < 1e-6);
	assert_int_equal(stk_hist_merge(a, other), -EINVAL);
	stk_hist_free(a);
	stk_hist_free(b);
	stk_hist_free(all);
	stk_hist_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant),    cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_exponential), cmocka_unit_test(test_layout),
		cmocka_unit_test(test_edges),	    cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
