/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_timer.c - IBA's timer encodings in TSC cycles: the time code (4.096 us * 2^exp) of the
 * local ACK timeout and the CM's timeouts, and the RNR NAK timer table.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "roce_engine.h"
#include "stk_stack.h"

uint64_t roce_exp_tsc(unsigned exp)
{
	return (uint64_t)((double)rte_get_tsc_hz() * 4.096e-6 *
			  (double)(1ull << (exp > 31 ? 31 : exp)));
}

uint64_t roce_timeout_tsc(uint8_t timeout)
{
	return timeout ? roce_exp_tsc(timeout) : 0; /* 0: infinite */
}

uint64_t roce_rnr_tsc(uint8_t code)
{
	/* IBA Table 45 "RNR NAK timer field encoding", in units of 10 us: code 1 is 0.01 ms,
	 * code 12 is 0.64 ms, code 31 is 491.52 ms, and code 0 means 655.36 ms */
	static const uint32_t units[32] = {
		65536, 1,    2,	   3,	 4,    6,     8,     12,    16,	   24,	  32,
		48,    64,   96,   128,	 192,  256,   384,   512,   768,   1024,  1536,
		2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)units[code & 31] * rte_get_tsc_hz() / 100000;
}
