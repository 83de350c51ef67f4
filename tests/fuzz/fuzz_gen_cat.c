/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gen_cat.c - libFuzzer target for what droce-gen --catalogue decodes from the network
 * (apps/gen/gen_cat.c): a peer's reply (gen_cat_decode(): BTH, AETH, the reaction it means)
 * and perftest's 108-byte text keys from the TCP exchange (app_pt_parse_keys(), also
 * droce-perf's). The input, copied into a heap buffer of exactly its size so ASan catches a
 * read past it, is a UDP payload; its first 108 bytes are also tried as keys. Besides "no
 * crash, no over-read":
 * - a reply decodes only when it holds its BTH and ICRC, the AETH its opcode carries and the
 *   AtomicAckETH of an atomic ACK; the reaction agrees with the opcode and the AETH's type;
 * - keys that parse format back to text that parses to the same fields (a round trip).
 * Seeds: tests/fuzz/corpus/gen_cat (replies of each kind, cut ones, keys as perftest sends).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "app_perftest.h"
#include "gen_cat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static void check_reply(const uint8_t *p, uint32_t len)
{
	struct gen_cat_reply r;
	int rc = gen_cat_decode(p, len, &r);
	uint8_t op;
	bool aeth;

	CHECK(rc == 0 || rc == -1);
	if (rc != 0)
		return;
	op = p[0];
	aeth = op == 0x11 || op == 0x12 || op == 0x0d || op == 0x0f || op == 0x10;
	CHECK(len >= 16u + (aeth ? 4u : 0u));
	CHECK(r.has_aeth == aeth && r.opcode == op);
	CHECK(r.dqpn <= 0xffffff && r.psn <= 0xffffff && r.msn <= 0xffffff);
	if (op == 0x12)
		CHECK(len >= 28 && r.react == GEN_CAT_ATOMIC_ACK);
	if (op == 0x11) {
		uint8_t type = r.syndrome & 0xe0;

		CHECK(type != 0x00 || r.react == GEN_CAT_ACK);
		CHECK(type != 0x20 || r.react == GEN_CAT_RNR);
		CHECK(type != 0x60 || (r.react >= GEN_CAT_NAK_SEQ && r.react <= GEN_CAT_NAK_OTHER));
	}
	if (op == 0x81)
		CHECK(r.react == GEN_CAT_CNP);
	CHECK(gen_cat_react_name(r.react)[0] != '?');
}

static void check_keys(const uint8_t *p)
{
	char in[APP_PT_KEYS_LEN], out[APP_PT_KEYS_LEN];
	struct perf_dest a, b;

	memcpy(in, p, sizeof(in));
	in[APP_PT_KEYS_LEN - 1] = '\0'; /* as both callers do */
	if (app_pt_parse_keys(in, &a) != 0)
		return;
	app_pt_format_keys(&a, out);
	CHECK(app_pt_parse_keys(out, &b) == 0);
	CHECK(a.lid == b.lid && a.out_reads == b.out_reads && a.qpn == b.qpn && a.psn == b.psn &&
	      a.rkey == b.rkey && a.vaddr == b.vaddr && memcmp(a.gid, b.gid, 16) == 0 &&
	      a.srqn == b.srqn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;

	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check_reply(buf, (uint32_t)size);
	if (size >= APP_PT_KEYS_LEN)
		check_keys(buf);
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
