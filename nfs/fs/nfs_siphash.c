/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_siphash.c - SipHash-2-4, the keyed MAC that seals file handles (nfs_fh.c), written from
 * the paper: J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input PRF" (2012), §2:
 * four 64-bit words of state initialised from the 128-bit key and four constants, two
 * SipRounds per 8-byte little-endian message word, a last word holding the remaining bytes and
 * the length mod 256 in its top byte, then 0xff into v2 and four rounds of finalisation.
 */
#include <stdint.h>
#include <string.h>

#include "nfs_fs_int.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s); /* c = 2 compression rounds */
	sip_round(s);
	s->v0 ^= m;
}

uint64_t nfs_siphash24(const uint8_t key[16], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = le64(key), k1 = le64(key + 8), last;
	struct sip s = {
		.v0 = k0 ^ 0x736f6d6570736575ull, /* "somepseu" */
		.v1 = k1 ^ 0x646f72616e646f6dull, /* "dorandom" */
		.v2 = k0 ^ 0x6c7967656e657261ull, /* "lygenera" */
		.v3 = k1 ^ 0x7465646279746573ull, /* "tedbytes" */
	};
	size_t i = 0;
	uint8_t tail[8] = {0};

	for (; i + 8 <= len; i += 8)
		sip_word(&s, le64(p + i));
	if (len > i)
		memcpy(tail, p + i, len - i);
	last = le64(tail) | ((uint64_t)(len & 0xff) << 56);
	sip_word(&s, last);
	s.v2 ^= 0xff;
	for (int r = 0; r < 4; r++) /* d = 4 finalisation rounds */
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
