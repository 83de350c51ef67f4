/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_log.h - droce-nfsd's log lines: info on stdout, warnings and errors on stderr, each one
 * line. Under systemd (JOURNAL_STREAM set, sd-daemon(3)) every line starts with its syslog
 * priority, "<6>" info, "<4>" warning, "<3>" error, which journald turns into the entry's
 * priority. Messages a client can cause (connections coming and going, refusals) go through a
 * rate limit: at most `burst` per `interval` seconds, then one line saying how many were left
 * out, so a client that churns connections cannot flood the journal.
 */
#ifndef NFSD_LOG_H
#define NFSD_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum nfsd_log_level { NFSD_LOG_ERR = 3, NFSD_LOG_WARN = 4, NFSD_LOG_INFO = 6 };

struct nfsd_ratelimit {
	uint32_t burst;	     /**< messages let through per interval */
	uint32_t interval_s; /**< seconds */
	uint64_t start_ns;   /**< the current interval's start (0: none yet) */
	uint32_t passed;     /**< let through in the current interval */
	uint32_t suppressed; /**< left out in the current interval */
};

/**
 * May a message go out at now_ns? When an interval that left messages out has ended,
 * *report gets their count (once), for a "suppressed" line before this one; else 0.
 */
bool nfsd_rl_allow(struct nfsd_ratelimit *rl, uint64_t now_ns, uint32_t *report);

/** One line at level (printf format, no trailing newline needed). */
void nfsd_log(enum nfsd_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * A stream that writes to fd line by line, each line starting with "<prio>" unless it starts
 * with a priority already ("<N>"). A line longer than its buffer (4 KiB) is cut there and each
 * piece gets the prefix. @return the stream (line buffered), or NULL with errno
 */
FILE *nfsd_log_prefixed(int fd, int prio);

/**
 * Under systemd (JOURNAL_STREAM names stderr's device and inode, systemd.exec(5): the output
 * was not redirected since): stdout and stderr become nfsd_log_prefixed streams,
 * "<6>" and "<3>", so every line droce-nfsd, the stack and DPDK print carries a priority
 * journald records. @return 1 when done, 0 when not under systemd, -1 when it failed (the
 * streams are left as they were)
 */
int nfsd_log_journal(void);

/** One line through rl (CLOCK_MONOTONIC). */
void nfsd_log_rl(struct nfsd_ratelimit *rl, enum nfsd_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* NFSD_LOG_H */
