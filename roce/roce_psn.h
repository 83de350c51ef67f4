/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_psn.h - 24-bit packet sequence number arithmetic (IBTA 9.7.1). Every PSN comparison in
 * droce goes through roce_psn_cmp(); never compare PSNs with '<'.
 */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include <stdint.h>

#include "roce_hdr.h"

/**
 * Compare two PSNs in the 2^24 circle: shift the 24-bit difference into the top of an int32.
 * @return < 0 when @p a is before @p b, 0 when equal, > 0 when after (within 2^23).
 */
static inline int32_t roce_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8);
}

/** @return @p psn + @p n modulo 2^24. */
static inline uint32_t roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ROCE_PSN_MASK;
}

/** @return the distance from @p from forward to @p to, modulo 2^24. */
static inline uint32_t roce_psn_diff(uint32_t to, uint32_t from)
{
	return (to - from) & ROCE_PSN_MASK;
}

#endif /* ROCE_PSN_H */
