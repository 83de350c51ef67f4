/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_hist.c - the log-linear latency histogram. See stk_hist.h for the layout and the
 * precision it promises.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "stk_hist.h"

struct stk_hist {
	unsigned sub_bits;
	unsigned nbuckets;
	uint64_t count;
	uint64_t min, max;
	long double sum, sum_sq; /**< for the exact mean and the standard deviation */
	uint64_t counts[];
};

static inline unsigned msb(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

unsigned stk_hist_index(const struct stk_hist *h, uint64_t v)
{
	unsigned s = h->sub_bits, shift;

	if (v >> s == 0)
		return (unsigned)v;
	shift = msb(v) - s;
	return (shift << s) + (unsigned)(v >> shift);
}

struct stk_hist *stk_hist_create(unsigned sub_bits)
{
	struct stk_hist *h;
	unsigned n;

	if (sub_bits == 0)
		sub_bits = STK_HIST_SUB_BITS_DEFAULT;
	if (sub_bits > STK_HIST_SUB_BITS_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* the largest index: shift = 63 - S, (v >> shift) = 2^(S+1) - 1 */
	n = ((63u - sub_bits) << sub_bits) + (1u << (sub_bits + 1));
	h = calloc(1, sizeof(*h) + (size_t)n * sizeof(h->counts[0]));
	if (!h) {
		rte_errno = ENOMEM;
		return NULL;
	}
	h->sub_bits = sub_bits;
	h->nbuckets = n;
	h->min = UINT64_MAX;
	return h;
}

void stk_hist_free(struct stk_hist *h)
{
	free(h);
}

void stk_hist_reset(struct stk_hist *h)
{
	memset(h->counts, 0, (size_t)h->nbuckets * sizeof(h->counts[0]));
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = h->sum_sq = 0;
}

void stk_hist_record_n(struct stk_hist *h, uint64_t v, uint64_t n)
{
	long double x = (long double)v;

	if (n == 0)
		return;
	h->counts[stk_hist_index(h, v)] += n;
	h->count += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += x * (long double)n;
	h->sum_sq += x * x * (long double)n;
}

void stk_hist_record(struct stk_hist *h, uint64_t v)
{
	stk_hist_record_n(h, v, 1);
}

int stk_hist_merge(struct stk_hist *dst, const struct stk_hist *src)
{
	if (dst->sub_bits != src->sub_bits)
		return -EINVAL;
	if (src->count == 0)
		return 0;
	for (unsigned i = 0; i < dst->nbuckets; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sum_sq += src->sum_sq;
	return 0;
}

uint64_t stk_hist_count(const struct stk_hist *h)
{
	return h->count;
}

uint64_t stk_hist_min(const struct stk_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t stk_hist_max(const struct stk_hist *h)
{
	return h->max;
}

double stk_hist_mean(const struct stk_hist *h)
{
	return h->count ? (double)(h->sum / (long double)h->count) : 0;
}

double stk_hist_stdev(const struct stk_hist *h)
{
	long double n = (long double)h->count, mean, var;

	if (h->count < 2)
		return 0;
	mean = h->sum / n;
	var = h->sum_sq / n - mean * mean;
	return var > 0 ? (double)sqrtl(var) : 0;
}

unsigned stk_hist_nbuckets(const struct stk_hist *h)
{
	return h->nbuckets;
}

uint64_t stk_hist_bucket(const struct stk_hist *h, unsigned i, uint64_t *lo, uint64_t *hi)
{
	unsigned s = h->sub_bits, shift;

	if (i >= h->nbuckets) {
		*lo = *hi = 0;
		return 0;
	}
	if (i < (2u << s)) {
		/* the first two ranges have width 1 */
		*lo = *hi = i;
		return h->counts[i];
	}
	shift = (i >> s) - 1;
	/* index = (shift << S) + (v >> shift), with (v >> shift) in [2^S, 2^(S+1)) */
	*lo = (uint64_t)(i - (shift << s)) << shift;
	*hi = *lo + ((1ull << shift) - 1);
	return h->counts[i];
}

uint64_t stk_hist_percentile(const struct stk_hist *h, double pct)
{
	uint64_t rank, seen = 0, lo, hi, mid;

	if (h->count == 0)
		return 0;
	if (!(pct > 0))
		return h->min;
	if (pct >= 100)
		return h->max;
	rank = (uint64_t)ceill((long double)pct / 100.0L * (long double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < h->nbuckets; i++) {
		seen += h->counts[i];
		if (seen < rank)
			continue;
		stk_hist_bucket(h, i, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}
