/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xdr_words.h - a message under construction, one big-endian XDR word at a time: how the rpc/
 * tests write RFC 5531 and RFC 8166 messages by hand, independently of the code under test.
 */
#ifndef XDR_WORDS_H
#define XDR_WORDS_H

#include <stdint.h>

struct wb {
	uint8_t b[16384];
	uint32_t n;
};

static inline void w(struct wb *x, uint32_t v)
{
	x->b[x->n++] = (uint8_t)(v >> 24);
	x->b[x->n++] = (uint8_t)(v >> 16);
	x->b[x->n++] = (uint8_t)(v >> 8);
	x->b[x->n++] = (uint8_t)v;
}

#endif /* XDR_WORDS_H */
