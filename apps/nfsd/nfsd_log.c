/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_log.c - droce-nfsd's log lines and their rate limit (nfsd_log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nfsd_log.h"

bool nfsd_rl_allow(struct nfsd_ratelimit *rl, uint64_t now_ns, uint32_t *report)
{
	uint64_t len = (uint64_t)rl->interval_s * 1000000000ull;

	*report = 0;
	if (!rl->start_ns || now_ns - rl->start_ns >= len) {
		*report = rl->suppressed;
		rl->start_ns = now_ns ? now_ns : 1;
		rl->passed = 0;
		rl->suppressed = 0;
	}
	if (rl->passed < rl->burst) {
		rl->passed++;
		return true;
	}
	rl->suppressed++;
	return false;
}

static void vlog(enum nfsd_log_level level, const char *fmt, va_list ap)
{
	static int journal = -1;
	FILE *f = level == NFSD_LOG_INFO ? stdout : stderr;

	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		fprintf(f, "<%d>", (int)level);
	if (level != NFSD_LOG_INFO)
		fputs("droce-nfsd: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

void nfsd_log(enum nfsd_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void nfsd_log_rl(struct nfsd_ratelimit *rl, enum nfsd_log_level level, const char *fmt, ...)
{
	struct timespec t;
	uint32_t left_out;
	va_list ap;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &t);
	ok = nfsd_rl_allow(rl, (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec, &left_out);
	if (left_out)
		nfsd_log(level, "%u similar message(s) left out in the last %u s (rate limit)",
			 left_out, rl->interval_s);
	if (!ok)
		return;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}
