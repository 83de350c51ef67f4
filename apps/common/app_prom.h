/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_prom.h - Prometheus' text exposition format 0.0.4 written into a growable buffer:
 * "# HELP" and "# TYPE" lines, samples, and histograms (_bucket{le=...}, _sum, _count) from
 * per-bucket counts. What droce-nfsd's /metrics answers (app_metrics.h serves it).
 *
 * Labels are passed formatted, without braces: "proc=\"READ\"" or "" for none. Their values
 * are the caller's own names (procedure and status names), so nothing is escaped here.
 */
#ifndef APP_PROM_H
#define APP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A growable text buffer. Once an allocation fails it stays failed and takes nothing. */
struct app_buf {
	char *p;     /**< NUL-terminated text (NULL while empty) */
	size_t len;  /**< bytes of text, without the NUL */
	size_t cap;  /**< bytes allocated */
	bool failed; /**< an allocation failed: the text is incomplete */
};

/** Append printf-style text. Sets b->failed on ENOMEM. */
void app_buf_printf(struct app_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Free the text; the buffer is empty and usable again. */
void app_buf_free(struct app_buf *b);

/** A metric family's "# HELP name help" and "# TYPE name type" lines.
 * @param type  "counter", "gauge" or "histogram" */
void app_prom_family(struct app_buf *b, const char *name, const char *type, const char *help);

/** One sample: "name{labels} v", or "name v" when @p labels is "" or NULL. */
void app_prom_sample(struct app_buf *b, const char *name, const char *labels, uint64_t v);

/** The same, for a value that is not a whole number (printed with %.15g). */
void app_prom_sample_f(struct app_buf *b, const char *name, const char *labels, double v);

/**
 * One histogram's samples: name_bucket{labels,le="..."} cumulative counts, the last one
 * le="+Inf", then name_sum{labels} and name_count{labels}.
 * @param le      the upper bounds of buckets 0 .. nb-2 (bucket nb-1 is +Inf), ascending
 * @param counts  calls in each of the nb buckets (not cumulative)
 * @param nb      buckets, at least 1
 * @param sum     the sum of the observed values, in the unit of @p le
 */
void app_prom_histogram(struct app_buf *b, const char *name, const char *labels, const double *le,
			const uint64_t *counts, size_t nb, double sum);

#endif /* APP_PROM_H */
