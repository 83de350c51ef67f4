/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_prom.c - Prometheus' text exposition format 0.0.4 (prometheus.io/docs/instrumenting/
 * exposition_formats): one line per sample, "name{label="value",...} value", families
 * announced by "# HELP" and "# TYPE"; a histogram is its cumulative buckets with le, the
 * last le="+Inf" (equal to _count), then _sum and _count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_prom.h"

void app_buf_printf(struct app_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		/* too small (or nothing yet): grow to at least twice, and enough, and retry */
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *p;

		while (cap - b->len <= (size_t)n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

void app_buf_free(struct app_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

void app_prom_family(struct app_buf *b, const char *name, const char *type, const char *help)
{
	app_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void app_prom_sample(struct app_buf *b, const char *name, const char *labels, uint64_t v)
{
	if (labels && *labels)
		app_buf_printf(b, "%s{%s} %llu\n", name, labels, (unsigned long long)v);
	else
		app_buf_printf(b, "%s %llu\n", name, (unsigned long long)v);
}

void app_prom_sample_f(struct app_buf *b, const char *name, const char *labels, double v)
{
	if (labels && *labels)
		app_buf_printf(b, "%s{%s} %.15g\n", name, labels, v);
	else
		app_buf_printf(b, "%s %.15g\n", name, v);
}

void app_prom_histogram(struct app_buf *b, const char *name, const char *labels, const double *le,
			const uint64_t *counts, size_t nb, double sum)
{
	const char *sep = labels && *labels ? "," : "";
	uint64_t cum = 0;
	char suffixed[256];

	if (!labels)
		labels = "";
	for (size_t i = 0; i < nb; i++) {
		cum += counts[i];
		if (i + 1 < nb)
			app_buf_printf(b, "%s_bucket{%s%sle=\"%.15g\"} %llu\n", name, labels, sep,
				       le[i], (unsigned long long)cum);
		else
			app_buf_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep,
				       (unsigned long long)cum);
	}
	snprintf(suffixed, sizeof(suffixed), "%s_sum", name);
	app_prom_sample_f(b, suffixed, labels, sum);
	snprintf(suffixed, sizeof(suffixed), "%s_count", name);
	app_prom_sample(b, suffixed, labels, cum);
}
