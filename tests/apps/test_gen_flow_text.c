/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_gen_flow_text.c - droce-gen flow mode's text (apps/gen/gen_flow_text.c) and the rules of
 * a profile (gen_flow_check(), gen_flow_keys_ok()), without a device or a peer:
 * - the operation mix: single operations, weighted mixes, "ud"; every malformed form refused
 *   (unknown, repeated, weight 0 or over 1000, empty items, ud mixed); format/parse round trip;
 * - the size mix: suffixes, weights, its bounds (1 B to 1 MiB, 8 sizes);
 * - the keys of the manual exchange: the lines gen_peer and droce-gen really print (words
 *   without '=' skipped), hex and decimal (a leading 0 is not octal), each key's range,
 *   repeated and unknown keys, empty and over-long values, 64-bit overflow; round trip;
 * - which exchange takes which mix, and what each operation needs of the peer's keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gen_flow.h"
#include "gen_flow_text.h"

static void test_mix(void **state)
{
	static const char *const bad[] = {"",	     "wrte",	   "write,",	   "write,write",
					  "write:0", "write:1001", "write:",	   "write:x",
					  ":3",	     "write;read", "ud,write",	   "write:-1",
					  "UD",	     "write:2:3",  "read:1,,send", "write:+2"};
	struct gen_flow_mix m, m2;
	char buf[64];

	(void)state;
	assert_int_equal(gen_flow_parse_mix("write", &m), 0);
	assert_int_equal(m.weight[GEN_FLOW_WRITE], 1);
	assert_int_equal(m.wsum, 1);
	assert_false(m.ud);
	assert_int_equal(gen_flow_parse_mix("write:3,read:1,send:1,atomic:2", &m), 0);
	assert_int_equal(m.weight[GEN_FLOW_WRITE], 3);
	assert_int_equal(m.weight[GEN_FLOW_READ], 1);
	assert_int_equal(m.weight[GEN_FLOW_SEND], 1);
	assert_int_equal(m.weight[GEN_FLOW_ATOMIC], 2);
	assert_int_equal(m.wsum, 7);
	gen_flow_format_mix(&m, buf, sizeof(buf));
	assert_string_equal(buf, "write:3,read,send,atomic:2");
	assert_int_equal(gen_flow_parse_mix(buf, &m2), 0);
	assert_memory_equal(&m, &m2, sizeof(m));
	assert_int_equal(gen_flow_parse_mix("atomic:1000,send", &m), 0);
	assert_int_equal(m.wsum, 1001);
	assert_int_equal(gen_flow_parse_mix("ud", &m), 0);
	assert_true(m.ud);
	assert_int_equal(m.weight[GEN_FLOW_SEND], 1);
	assert_int_equal(m.wsum, 1);
	gen_flow_format_mix(&m, buf, sizeof(buf));
	assert_string_equal(buf, "ud");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.wsum = 99;
		assert_int_equal(gen_flow_parse_mix(bad[i], &m), -1);
		assert_int_equal(m.wsum, 0); /* nothing half-parsed is left */
	}
}

static void test_sizes(void **state)
{
	uint32_t size[GEN_FLOW_MAX_SIZES], weight[GEN_FLOW_MAX_SIZES];
	static const char *const bad[] = {
		"0",   "2m", "1025k", "64,", "",      "-1", "64:0", "64:1001", "1,2,3,4,5,6,7,8,9",
		"64:", "k",  " 64",   "64x", "64:1:2"};

	(void)state;
	assert_int_equal(gen_flow_parse_sizes("64:1,4k:2,1m", size, weight), 3);
	assert_int_equal(size[0], 64);
	assert_int_equal(size[1], 4096);
	assert_int_equal(size[2], 1u << 20);
	assert_int_equal(weight[0], 1);
	assert_int_equal(weight[1], 2);
	assert_int_equal(weight[2], 1);
	assert_int_equal(gen_flow_parse_sizes("1,2,3,4,5,6,7,8", size, weight), 8);
	assert_int_equal(gen_flow_parse_sizes("1048576", size, weight), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gen_flow_parse_sizes(bad[i], size, weight), -1);
}

static void test_keys_lines(void **state)
{
	struct gen_keys k, k2;
	char why[160], buf[256];

	(void)state;
	/* gen_peer's line (tests/interop/gen_peer.c) */
	assert_int_equal(gen_keys_parse("gen_peer: qp 0 qpn=0x14 psn=0x593885 rkey=0x4e5 "
					"va=0x56413be37000 len=4160 mtu=1024 rd_atomic=16",
					&k, why, sizeof(why)),
			 7);
	assert_int_equal(k.v[GEN_KEY_QPN], 0x14);
	assert_int_equal(k.v[GEN_KEY_PSN], 0x593885);
	assert_int_equal(k.v[GEN_KEY_RKEY], 0x4e5);
	assert_true(k.v[GEN_KEY_VA] == 0x56413be37000ull);
	assert_int_equal(k.v[GEN_KEY_LEN], 4160);
	assert_int_equal(k.v[GEN_KEY_MTU], 1024);
	assert_int_equal(k.v[GEN_KEY_RD_ATOMIC], 16);
	assert_false(k.have & (1u << GEN_KEY_QKEY));
	/* droce-gen's own line, commas as separators too */
	assert_int_equal(gen_keys_parse("droce-gen: local qp 1 qpn=0x12,psn=0x320b88 ip=10.79.0.1 "
					"mtu=1024 rd_atomic=16\r\n",
					&k, why, sizeof(why)),
			 5);
	assert_int_equal(k.v[GEN_KEY_IP], 0x0a4f0001);
	gen_keys_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "qpn=0x12 psn=0x320b88 mtu=1024 rd_atomic=16 ip=10.79.0.1");
	assert_int_equal(gen_keys_parse(buf, &k2, why, sizeof(why)), 5);
	assert_memory_equal(&k, &k2, sizeof(k));
	/* decimal, and a leading 0 is decimal too */
	assert_int_equal(gen_keys_parse("qpn=010 qkey=0", &k, why, sizeof(why)), 2);
	assert_int_equal(k.v[GEN_KEY_QPN], 10);
	assert_true(k.have & (1u << GEN_KEY_QKEY));
	assert_int_equal(gen_keys_parse("va=0xffffffffffffffff", &k, why, sizeof(why)), 1);
	assert_true(k.v[GEN_KEY_VA] == UINT64_MAX);
	/* no keys at all: a banner line */
	assert_int_equal(gen_keys_parse("gen_peer: ready", &k, why, sizeof(why)), 0);
	assert_int_equal(gen_keys_parse("", &k, why, sizeof(why)), 0);
}

static void test_keys_refused(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{"qpn=0x1000000", "qpn=0x1000000: expected 0 to 0xffffff"},
		{"psn=16777216", "psn=16777216: expected 0 to 0xffffff"},
		{"qpn=1 qpn=2", "qpn given twice"},
		{"foo=1", "unknown key 'foo'"},
		{"=1", "unknown key ''"},
		{"mtu=1000", "mtu=1000: expected 256, 512"},
		{"rd_atomic=0", "rd_atomic=0: expected 1 to 16"},
		{"rd_atomic=17", "rd_atomic=17: expected 1 to 16"},
		{"psn=", "psn=: expected"},
		{"qpn=-1", "qpn=-1: expected"},
		{"qpn=+1", "qpn=+1: expected"},
		{"qpn=0x", "qpn=0x: expected"},
		{"qpn=0x-1", "qpn=0x-1: expected"},
		{"qpn=0x0x1f", "qpn=0x0x1f: expected"},
		{"qpn=12a", "qpn=12a: expected"},
		{"rkey=0x100000000", "rkey=0x100000000: expected 0 to 0xffffffff"},
		{"va=0x10000000000000000", "va=0x10000000000000000: expected a 64-bit number"},
		{"va=18446744073709551616", "va=18446744073709551616: expected a 64-bit number"},
		{"ip=10.0.0", "ip=10.0.0: expected an IPv4 address"},
		{"len=1111111111111111111111111111111111111111111111111111111111111111111111",
		 "len=1111111111111111111111111111111111111111: expected"},
	};
	struct gen_keys k;
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(gen_keys_parse(bad[i].line, &k, why, sizeof(why)), -1);
		if (strncmp(why, bad[i].why, strlen(bad[i].why)) != 0)
			fail_msg("'%s': '%s', expected '%s...'", bad[i].line, why, bad[i].why);
	}
	/* a small why is cut, not overrun */
	why[4] = 'X';
	assert_int_equal(gen_keys_parse("foo=1", &k, why, 4), -1);
	assert_int_equal(why[3], '\0');
	assert_int_equal(why[4], 'X');
}

static struct gen_flow_opts opts(const char *mix, enum gen_flow_xchg x)
{
	struct gen_flow_opts o;

	memset(&o, 0, sizeof(o));
	assert_int_equal(gen_flow_parse_mix(mix, &o.mix), 0);
	o.xchg = x;
	o.qps = 2;
	o.nsizes = 2;
	o.size[0] = 64, o.size[1] = 4096;
	o.weight[0] = o.weight[1] = 1;
	return o;
}

static void test_profile_rules(void **state)
{
	struct gen_flow_opts o;

	(void)state;
	/* perftest takes write, read, atomic, or send or ud with --iters (its server's -n), alone */
	o = opts("write", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), 0);
	o = opts("read", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), 0);
	o = opts("send", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), -1); /* without --iters */
	o.iters = 200;
	assert_int_equal(gen_flow_check(&o), 0);
	o = opts("atomic", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), 0);
	o = opts("write,atomic", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("write,read", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), -1);
	/* ud: ib_send_bw -c UD, which counts its receives as for send */
	o = opts("ud", GEN_XCHG_PERFTEST);
	assert_int_equal(gen_flow_check(&o), -1); /* without --iters */
	o.iters = 500;
	assert_int_equal(gen_flow_check(&o), 0);
	/* the manual exchange takes any mix */
	o = opts("write:2,read,send,atomic", GEN_XCHG_MANUAL);
	assert_int_equal(gen_flow_check(&o), 0);
	/* --keys: UD only, once or once per QP, each checked */
	o = opts("write", GEN_XCHG_KEYS);
	o.nkeys = 1;
	o.keys[0].have = 1u << GEN_KEY_QPN | 1u << GEN_KEY_PSN | 1u << GEN_KEY_RKEY |
			 1u << GEN_KEY_VA | 1u << GEN_KEY_LEN;
	o.keys[0].v[GEN_KEY_LEN] = 1 << 20;
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("ud", GEN_XCHG_KEYS);
	o.nkeys = 1;
	o.keys[0].have = 1u << GEN_KEY_QPN;
	assert_int_equal(gen_flow_check(&o), 0);
	o.nkeys = 2;
	o.keys[1].have = 1u << GEN_KEY_QPN;
	assert_int_equal(gen_flow_check(&o), 0);
	o.qps = 3; /* two keys for three QPs */
	assert_int_equal(gen_flow_check(&o), -1);
	o.qps = 2;
	o.keys[1].have = 1u << GEN_KEY_QKEY; /* no qpn */
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("ud", GEN_XCHG_KEYS);
	o.nkeys = 1;
	o.keys[0].have = 1u << GEN_KEY_QPN;
	o.size[1] = 8192; /* a datagram is one packet */
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("ud", GEN_XCHG_MANUAL);
	o.nkeys = 1; /* --keys with --manual */
	assert_int_equal(gen_flow_check(&o), -1);
	/* --cm: RC by REQ/REP/RTU, UD by SIDR (its QPN and Q_Key from SIDR_REP, so no --keys);
	 * the region from --keys (once or per QP) when the mix is one-sided; no QP-level marking
	 * (the CM sets the path) */
	o = opts("send", GEN_XCHG_CM);
	assert_int_equal(gen_flow_keys_needed(&o), 0);
	assert_int_equal(gen_flow_check(&o), 0);
	o = opts("ud", GEN_XCHG_CM);
	assert_int_equal(gen_flow_keys_needed(&o), 0);
	assert_int_equal(gen_flow_check(&o), 0);
	o.nkeys = 1; /* the SIDR_REP names the peer's QP: --keys is refused */
	o.keys[0].have = 1u << GEN_KEY_QPN;
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("ud", GEN_XCHG_CM);
	o.size[1] = 8192; /* a datagram is one packet, over the CM too */
	assert_int_equal(gen_flow_check(&o), -1);
	o = opts("write,atomic", GEN_XCHG_CM);
	assert_int_equal(gen_flow_check(&o), -1); /* no region */
	o.nkeys = 1;
	o.keys[0].have = 1u << GEN_KEY_RKEY | 1u << GEN_KEY_VA | 1u << GEN_KEY_LEN;
	o.keys[0].v[GEN_KEY_VA] = 0x1000;
	o.keys[0].v[GEN_KEY_LEN] = 64 + 4096;
	assert_int_equal(gen_flow_check(&o), 0);
	o.keys[0].v[GEN_KEY_LEN] = 64 + 4095;
	assert_int_equal(gen_flow_check(&o), -1); /* short */
	o.keys[0].v[GEN_KEY_LEN] = 64 + 4096;
	o.dscp_set = true;
	assert_int_equal(gen_flow_check(&o), -1);
}

static void test_keys_needed(void **state)
{
	struct gen_flow_opts o;
	struct gen_keys k, k2;
	char why[160];

	(void)state;
	o = opts("send", GEN_XCHG_MANUAL);
	assert_int_equal(gen_flow_keys_needed(&o), 1u << GEN_KEY_QPN | 1u << GEN_KEY_PSN);
	o = opts("ud", GEN_XCHG_MANUAL);
	assert_int_equal(gen_flow_keys_needed(&o), 1u << GEN_KEY_QPN);
	o = opts("write,atomic", GEN_XCHG_MANUAL);
	assert_int_equal(gen_flow_keys_needed(&o), 1u << GEN_KEY_QPN | 1u << GEN_KEY_PSN |
							   1u << GEN_KEY_RKEY | 1u << GEN_KEY_VA |
							   1u << GEN_KEY_LEN);
	assert_int_equal(
		gen_keys_parse("qpn=1 psn=2 rkey=3 va=0x1000 len=4160", &k, why, sizeof(why)), 5);
	/* QPs 0 and 1 are not RC QPs */
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not RC QPs"));
	k.v[GEN_KEY_QPN] = 2;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), 0);
	/* 64 bytes for the atomics, then the largest WRITE: one byte short */
	k.v[GEN_KEY_LEN] = 4159;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "need 4160"));
	/* without atomics the WRITEs start at va: 4096 is enough */
	o = opts("write,read", GEN_XCHG_MANUAL);
	k.v[GEN_KEY_LEN] = 4096;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), 0);
	k.v[GEN_KEY_LEN] = 4095;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	/* an atomic target must be aligned */
	o = opts("atomic", GEN_XCHG_MANUAL);
	k.v[GEN_KEY_LEN] = 8;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), 0);
	k.v[GEN_KEY_VA] = 0x1004;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "aligned"));
	/* a missing key is named */
	k.have &= ~(1u << GEN_KEY_RKEY);
	k.v[GEN_KEY_VA] = 0x1000;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "rkey is missing"));
	/* UD: a peer's MTU below the largest datagram; QP 1 is a UD QP (GSI) */
	o = opts("ud", GEN_XCHG_MANUAL);
	assert_int_equal(gen_keys_parse("qpn=1 mtu=1024", &k2, why, sizeof(why)), 2);
	assert_int_equal(gen_flow_keys_ok(&o, &k2, why, sizeof(why)), -1); /* sizes up to 4096 */
	assert_non_null(strstr(why, "one packet"));
	o.size[1] = 1024;
	assert_int_equal(gen_flow_keys_ok(&o, &k2, why, sizeof(why)), 0);
	o = opts("atomic", GEN_XCHG_MANUAL);
	/* a region that wraps */
	k.have |= 1u << GEN_KEY_RKEY;
	k.v[GEN_KEY_VA] = UINT64_MAX - 7;
	k.v[GEN_KEY_LEN] = 16;
	assert_int_equal(gen_flow_keys_ok(&o, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "wraps"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix),	      cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_keys_lines),    cmocka_unit_test(test_keys_refused),
		cmocka_unit_test(test_profile_rules), cmocka_unit_test(test_keys_needed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
