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
 * The same input, as a NUL-terminated string, is also what droce-gen --flow reads as text
 * (apps/gen/gen_flow_text.c): a line of the manual exchange's keys (the count of keys matches
 * the bits set, a refusal says why, a round trip through gen_keys_format() gives the same keys;
 * then checked against a profile of every operation), an operation mix and a size mix (in
 * their bounds; the mix round-trips).
 * Seeds: tests/fuzz/corpus/gen_cat (replies of each kind, cut ones, keys as perftest sends,
 * key lines as gen_peer and droce-gen print them, mixes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "app_perftest.h"
#include "gen_cat.h"
#include "gen_flow.h"
#include "gen_flow_text.h"

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

static void check_text(const char *t)
{
	struct gen_keys k, k2;
	struct gen_flow_mix m, m2;
	struct gen_flow_opts o;
	uint32_t size[GEN_FLOW_MAX_SIZES], weight[GEN_FLOW_MAX_SIZES];
	char why[160], out[512];
	int rc = gen_keys_parse(t, &k, why, sizeof(why)), n;

	CHECK(rc >= -1 && rc <= GEN_KEY_NUM);
	CHECK(memchr(why, '\0', sizeof(why)) != NULL);
	if (rc < 0)
		CHECK(why[0] != '\0');
	if (rc >= 0) {
		CHECK(__builtin_popcount(k.have) == rc);
		CHECK(k.v[GEN_KEY_QPN] <= 0xffffff && k.v[GEN_KEY_PSN] <= 0xffffff);
		CHECK(!(k.have & (1u << GEN_KEY_RD_ATOMIC)) ||
		      (k.v[GEN_KEY_RD_ATOMIC] >= 1 && k.v[GEN_KEY_RD_ATOMIC] <= 16));
		gen_keys_format(&k, out, sizeof(out));
		CHECK(gen_keys_parse(out, &k2, why, sizeof(why)) == rc);
		CHECK(k2.have == k.have);
		for (int i = 0; i < GEN_KEY_NUM; i++)
			CHECK(!(k.have & (1u << i)) || k.v[i] == k2.v[i]);
		memset(&o, 0, sizeof(o));
		CHECK(gen_flow_parse_mix("write,read,send,atomic", &o.mix) == 0);
		o.nsizes = 1;
		o.size[0] = 4096;
		o.weight[0] = 1;
		if (gen_flow_keys_ok(&o, &k, why, sizeof(why)) == 0)
			CHECK(k.v[GEN_KEY_LEN] >= GEN_FLOW_ATOMIC_ROOM + 4096 &&
			      k.v[GEN_KEY_VA] % 8 == 0);
	}
	if (gen_flow_parse_mix(t, &m) == 0) {
		uint32_t sum = 0;

		for (int v = 0; v < GEN_FLOW_NUM_VERBS; v++) {
			CHECK(m.weight[v] <= 1000);
			sum += m.weight[v];
		}
		CHECK(sum == m.wsum && sum > 0);
		gen_flow_format_mix(&m, out, sizeof(out));
		CHECK(gen_flow_parse_mix(out, &m2) == 0 && memcmp(&m, &m2, sizeof(m)) == 0);
	}
	n = gen_flow_parse_sizes(t, size, weight);
	CHECK(n >= -1 && n <= GEN_FLOW_MAX_SIZES && n != 0);
	for (int i = 0; i < n; i++)
		CHECK(size[i] >= 1 && size[i] <= GEN_FLOW_MAX_SIZE && weight[i] >= 1 &&
		      weight[i] <= 1000);
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
	buf = malloc(size + 1); /* the text, exactly as long as it is */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	check_text((const char *)buf);
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
