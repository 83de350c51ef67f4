/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_hist.h - a log-linear latency histogram (the HdrHistogram layout, our own code): the
 * values are unsigned integers (TSC cycles or nanoseconds; the caller converts), recorded in
 * O(1) without allocation, merged, and read back as percentiles, min/max/mean/stdev and the
 * bucket list a CDF is drawn from. Used by the latency profiler (bench/droce-lat.c) and
 * droce-perf's *_lat tests; it sits beside the packet path, not in it.
 *
 * Layout, with S = sub_bits: values below 2^S each have a bucket of their own (exact). Above,
 * every power of two [2^e, 2^(e+1)) is cut into 2^S equal buckets of width 2^(e-S). The
 * bucket of v is (shift << S) + (v >> shift) with shift = max(0, floor(log2 v) - S).
 *
 * Precision promise: a bucket is never wider than 1/2^S of its lower bound, and a percentile
 * is reported as the middle of the bucket that holds the true nearest-rank value, clamped to
 * [min, max]. So every percentile is within 2^-(S+1) of the exact one, relatively (0.2 % at
 * the default S = 8), and exact below 2^S; min, max, count and the mean are exact, the
 * standard deviation is exact up to double rounding. Memory: (65 - S) * 2^S counters
 * (117 KiB at S = 8).
 *
 * Not thread-safe: one writer; merge per-lcore histograms into one to read them together.
 */
#ifndef STK_HIST_H
#define STK_HIST_H

#include <stdint.h>

#define STK_HIST_SUB_BITS_DEFAULT 8
#define STK_HIST_SUB_BITS_MAX 16

struct stk_hist;

/**
 * A histogram with 2^@p sub_bits buckets per power of two.
 * @param sub_bits  1..STK_HIST_SUB_BITS_MAX; 0 picks STK_HIST_SUB_BITS_DEFAULT
 * @return the histogram, or NULL with rte_errno EINVAL (sub_bits out of range) or ENOMEM
 */
struct stk_hist *stk_hist_create(unsigned sub_bits);

/** Free @p h (NULL is fine). */
void stk_hist_free(struct stk_hist *h);

/** Forget every value recorded in @p h. */
void stk_hist_reset(struct stk_hist *h);

/** Record @p v once. */
void stk_hist_record(struct stk_hist *h, uint64_t v);

/** Record @p v @p n times. */
void stk_hist_record_n(struct stk_hist *h, uint64_t v, uint64_t n);

/**
 * Add what @p src holds into @p dst.
 * @return 0, or -EINVAL when the two have different sub_bits (nothing is added)
 */
int stk_hist_merge(struct stk_hist *dst, const struct stk_hist *src);

uint64_t stk_hist_count(const struct stk_hist *h);
/** Smallest value recorded (exact); 0 when empty. */
uint64_t stk_hist_min(const struct stk_hist *h);
/** Largest value recorded (exact); 0 when empty. */
uint64_t stk_hist_max(const struct stk_hist *h);
/** Exact mean; 0 when empty. */
double stk_hist_mean(const struct stk_hist *h);
/** Population standard deviation (exact up to rounding); 0 with fewer than two values. */
double stk_hist_stdev(const struct stk_hist *h);

/**
 * The @p pct-th percentile by nearest rank (the value at rank ceil(pct/100 * count), rank 1
 * the smallest), within the precision promised above. 0 and 100 give the exact min and max.
 * @param pct  0..100 (clamped)
 * @return the value; 0 when empty
 */
uint64_t stk_hist_percentile(const struct stk_hist *h, double pct);

/** Number of bucket slots (for walking them with stk_hist_bucket()). */
unsigned stk_hist_nbuckets(const struct stk_hist *h);

/**
 * Bucket @p i: the values [*lo, *hi] it holds, and how many were recorded there.
 * @return that count (0 past the end)
 */
uint64_t stk_hist_bucket(const struct stk_hist *h, unsigned i, uint64_t *lo, uint64_t *hi);

/** The bucket index @p v falls in (exposed for the unit test). */
unsigned stk_hist_index(const struct stk_hist *h, uint64_t v);

#endif /* STK_HIST_H */
