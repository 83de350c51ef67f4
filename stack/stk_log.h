/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_log.h - the stack layer's rte_log type and a rate-limited per-packet log.
 *
 * Per-packet failures are dropped, counted and logged at most once per second per call site
 * (STYLE §6), so a flood of bad frames cannot turn into a flood of log lines.
 */
#ifndef STK_LOG_H
#define STK_LOG_H

#include <stdint.h>

#include <rte_cycles.h>
#include <rte_log.h>

extern int stk_logtype;

#define STK_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, stk_logtype, "droce.stack: " fmt "\n", ##__VA_ARGS__)

/* Log at most once per second from this call site. */
#define STK_LOG_RL(level, fmt, ...)                                                                \
	do {                                                                                       \
		static uint64_t stk_rl_next_;                                                      \
		uint64_t stk_rl_now_ = rte_get_tsc_cycles();                                       \
		if (stk_rl_now_ >= stk_rl_next_) {                                                 \
			stk_rl_next_ = stk_rl_now_ + rte_get_tsc_hz();                             \
			STK_LOG(level, fmt, ##__VA_ARGS__);                                        \
		}                                                                                  \
	} while (0)

#endif /* STK_LOG_H */
