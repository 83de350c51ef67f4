/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_orpc_rm.c - libFuzzer target for TCP record marking (rpc/tcp/orpc_rm.c), checked
 * against a reference: the first input byte chooses how the stream is cut into reads (1..128
 * bytes, or a pattern), the rest is the stream. The reference walks the marks over the whole
 * stream at once; the state machine, fed read by read, must yield the same records (bytes and
 * fragment counts) and stop with TOO_BIG or EMPTY exactly where the reference does, and never
 * hold more than its bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "orpc_rm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

#define MAX_RECORD 4096u

/* the reference: next record from s[*off..n); 1 record (in rec/len/frags), 0 incomplete,
 * -1 too big, -2 empty */
static int ref_next(const uint8_t *s, size_t n, size_t *off, uint8_t *rec, uint32_t *len,
		    uint32_t *frags)
{
	size_t o = *off;

	*len = 0;
	*frags = 0;
	for (;;) {
		uint32_t m, fl;

		if (n - o < 4)
			return 0;
		m = (uint32_t)s[o] << 24 | (uint32_t)s[o + 1] << 16 | (uint32_t)s[o + 2] << 8 |
		    s[o + 3];
		o += 4;
		fl = m & 0x7fffffffu;
		(*frags)++;
		if (fl > MAX_RECORD - *len)
			return -1;
		if (n - o < fl)
			return 0;
		memcpy(rec + *len, s + o, fl);
		*len += fl;
		o += fl;
		if (m & 0x80000000u) {
			*off = o;
			return *len ? 1 : -2;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rec[MAX_RECORD];
	struct orpc_rm rm;
	size_t ref_off = 0, off = 1;
	uint32_t rlen, rfrags;
	int ref, step;

	if (size < 1 || size > 65536)
		return 0;
	step = data[0] & 0x7f;
	CHECK(orpc_rm_init(&rm, MAX_RECORD) == 0);
	ref = ref_next(data + 1, size - 1, &ref_off, rec, &rlen, &rfrags);
	while (off < size) {
		size_t k = step ? (size_t)step : 1 + (off * 7) % 13;
		uint32_t took;

		if (k > size - off)
			k = size - off;
		took = orpc_rm_feed(&rm, data + off, (uint32_t)k);
		CHECK(took <= k);
		CHECK(rm.rec_len <= MAX_RECORD && rm.rec_cap <= MAX_RECORD);
		off += took;
		if (rm.state == ORPC_RM_RECORD) {
			CHECK(ref == 1);
			CHECK(rm.rec_len == rlen && rm.frags == rfrags);
			CHECK(memcmp(rm.rec, rec, rlen) == 0);
			CHECK(off - 1 == ref_off);
			orpc_rm_consume(&rm);
			ref = ref_next(data + 1, size - 1, &ref_off, rec, &rlen, &rfrags);
		} else if (rm.state == ORPC_RM_TOO_BIG) {
			CHECK(ref == -1);
			break;
		} else if (rm.state == ORPC_RM_EMPTY) {
			CHECK(ref == -2);
			break;
		} else {
			CHECK(took == k);
		}
	}
	/* at the end of the stream the reference has nothing complete either, unless it stopped
	 * on a bad mark (which the machine saw too) */
	if (rm.state == ORPC_RM_MARK || rm.state == ORPC_RM_FRAG)
		CHECK(ref == 0);
	orpc_rm_fini(&rm);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
