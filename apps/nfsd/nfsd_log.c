/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_log.c - droce-nfsd's log lines and their rate limit (nfsd_log.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

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

/* ---- prefixed streams (journald) ---- */

struct prefixed {
	int fd, prio;
	size_t n;
	char line[4096];
};

/* One line out with its priority, in one write: stdout and stderr may share a journal stream
 * and other threads write lines of their own (a line ending with its newline, or a piece of a
 * long one, which gets a newline here) */
static void emit(struct prefixed *s)
{
	char pre[8];
	bool has = s->n >= 3 && s->line[0] == '<' && isdigit((unsigned char)s->line[1]) &&
		   s->line[2] == '>';
	struct iovec v[3];
	int nv = 0;

	if (!has) {
		snprintf(pre, sizeof(pre), "<%d>", s->prio);
		v[nv++] = (struct iovec){pre, strlen(pre)};
	}
	static char nl[] = "\n";

	v[nv++] = (struct iovec){s->line, s->n};
	if (s->line[s->n - 1] != '\n')
		v[nv++] = (struct iovec){nl, 1};
	while (writev(s->fd, v, nv) < 0 && errno == EINTR)
		; /* a short or failed write has nowhere to be said */
	s->n = 0;
}

static ssize_t prefixed_write(void *cookie, const char *p, size_t len)
{
	struct prefixed *s = cookie;

	for (size_t i = 0; i < len; i++) {
		s->line[s->n++] = p[i];
		if (p[i] == '\n' || s->n == sizeof(s->line) - 1)
			emit(s);
	}
	return (ssize_t)len;
}

static int prefixed_close(void *cookie)
{
	struct prefixed *s = cookie;

	if (s->n)
		emit(s); /* the last line, given its newline */
	free(s);
	return 0;
}

FILE *nfsd_log_prefixed(int fd, int prio)
{
	cookie_io_functions_t io = {.write = prefixed_write, .close = prefixed_close};
	struct prefixed *s = calloc(1, sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->fd = fd;
	s->prio = prio;
	f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* Is fd the stream JOURNAL_STREAM names ("DEV:INODE", systemd.exec(5))? */
static bool is_journal(int fd, const char *js)
{
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(fd, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static FILE *orig_out, *orig_err;

/* At exit: the last partial lines out, the streams closed and the process's own back */
static void journal_close(void)
{
	FILE *o = stdout, *e = stderr;

	stdout = orig_out;
	stderr = orig_err;
	fclose(o);
	fclose(e);
}

int nfsd_log_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	FILE *out, *err;

	/* systemd's word for it: stderr is the journal's stream (not redirected since) */
	if (!is_journal(STDERR_FILENO, js))
		return 0;
	fflush(stdout);
	fflush(stderr);
	out = nfsd_log_prefixed(STDOUT_FILENO, NFSD_LOG_INFO);
	err = out ? nfsd_log_prefixed(STDERR_FILENO, NFSD_LOG_ERR) : NULL;
	if (!err) {
		if (out)
			fclose(out);
		return -1;
	}
	orig_out = stdout;
	orig_err = stderr;
	stdout = out;
	stderr = err;
	atexit(journal_close);
	return 1;
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
