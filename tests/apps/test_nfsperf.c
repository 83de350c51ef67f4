/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfsperf.c - droce-nfsperf's pieces without a server: the latency histogram (every
 * value's bucket holds it within 1/64; percentiles of known distributions, as fio computes
 * them: the first bucket where the running count reaches the percentage), merging, the
 * verify blocks (a block reads back; one changed byte is named at its offset with the
 * expected and found bytes, for md5, crc32c and no checksum; a block from another offset is
 * a bad header; verify_interval units), and fio's JSON (parsed back by python3 in the
 * integration test; here: the keys and the consistency of io_bytes, total_ios and iops).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nfsperf.h"

static void test_hist_resolution(void **state)
{
	(void)state;
	/* a histogram of one value: its p50 is within 1/64 of it */
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 + 1) {
		struct np_lat *l = calloc(1, sizeof(*l));
		uint64_t p;

		np_lat_add(l, v);
		p = np_lat_pct(l, 50);
		assert_true(p == v || (p > v ? p - v : v - p) * 64 <= v);
		assert_int_equal(l->min, v);
		assert_int_equal(l->max, v);
		free(l);
	}
}

static void test_hist_percentiles(void **state)
{
	struct np_lat *l = calloc(1, sizeof(*l)), *m = calloc(1, sizeof(*m));
	uint64_t p50, p99;

	(void)state;
	/* 1..10000 us: p50 about 5000 us, p99 about 9900 us */
	for (uint64_t i = 1; i <= 10000; i++)
		np_lat_add(l, i * 1000);
	p50 = np_lat_pct(l, 50);
	p99 = np_lat_pct(l, 99);
	assert_in_range(p50, 5000000 - 5000000 / 64, 5000000 + 5000000 / 64);
	assert_in_range(p99, 9900000 - 9900000 / 64, 9900000 + 9900000 / 64);
	assert_true(np_lat_pct(l, 1) <= p50 && p50 <= p99 && p99 <= np_lat_pct(l, 99.99));
	assert_int_equal(np_lat_pct(l, 100), l->max);
	/* merged with itself: the same percentiles, twice the samples */
	np_lat_merge(m, l);
	np_lat_merge(m, l);
	assert_int_equal(m->n, 20000);
	assert_int_equal(np_lat_pct(m, 50), p50);
	assert_int_equal(np_lat_pct(m, 99), p99);
	free(l);
	free(m);
}

static void check_one_bad_byte(enum np_verify v, uint32_t bs, uint32_t interval, uint32_t at)
{
	uint8_t *b = malloc(bs);
	char why[512], want[64];

	np_block_fill(b, bs, 0x10002, 65536, v, 42, interval);
	assert_true(np_block_check(b, bs, 0x10002, 65536, v, 42, interval, why, sizeof(why)));
	b[at] ^= 0x5a;
	assert_false(np_block_check(b, bs, 0x10002, 65536, v, 42, interval, why, sizeof(why)));
	snprintf(want, sizeof(want), "first bad byte at offset %u ", 65536 + at);
	assert_non_null(strstr(why, want));
	assert_non_null(strstr(why, "expected ["));
	assert_non_null(strstr(why, "found ["));
	free(b);
}

static void test_verify(void **state)
{
	(void)state;
	check_one_bad_byte(NP_VERIFY_MD5, 4096, 0, 4000);
	check_one_bad_byte(NP_VERIFY_CRC32C, 4096, 0, 100);
	check_one_bad_byte(NP_VERIFY_NONE, 4096, 0, 7);
	check_one_bad_byte(NP_VERIFY_CRC32C, 65536, 16384, 16384 * 3 + 50);
	/* a header byte: the header no longer matches, still named at its offset */
	check_one_bad_byte(NP_VERIFY_MD5, 4096, 0, 9);
}

static void test_verify_misplaced(void **state)
{
	uint8_t b[4096];
	char why[512];

	(void)state;
	/* the right bytes of another offset, or another file: a bad header */
	np_block_fill(b, sizeof(b), 1, 8192, NP_VERIFY_CRC32C, 7, 0);
	assert_false(
		np_block_check(b, sizeof(b), 1, 4096, NP_VERIFY_CRC32C, 7, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "bad verify header"));
	assert_false(
		np_block_check(b, sizeof(b), 2, 8192, NP_VERIFY_CRC32C, 7, 0, why, sizeof(why)));
	/* 64 KiB written as 16 KiB units reads back as 16 KiB blocks and as one 64 KiB one */
	{
		static uint8_t big[65536];

		np_block_fill(big, sizeof(big), 3, 0, NP_VERIFY_MD5, 1, 16384);
		for (uint32_t u = 0; u < 4; u++)
			assert_true(np_block_check(big + u * 16384, 16384, 3, u * 16384,
						   NP_VERIFY_MD5, 1, 0, why, sizeof(why)));
		assert_true(np_block_check(big, sizeof(big), 3, 0, NP_VERIFY_MD5, 1, 16384, why,
					   sizeof(why)));
	}
}

static void test_json(void **state)
{
	struct np_opts o = {.server = "10.0.0.2",
			    .export = "/x",
			    .bs = 4096,
			    .iodepth = 4,
			    .numjobs = 1,
			    .nrfiles = 1,
			    .size = 1 << 20,
			    .rw = NP_RW_RANDRW};
	struct np_result *r = calloc(1, sizeof(*r));
	struct np_report rep = {.o = &o, .res = r, .nres = 1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	snprintf(r->name, sizeof(r->name), "t");
	r->runtime_s = 2.0;
	for (int i = 0; i < 1000; i++) {
		np_lat_add(&r->d[NP_READ].clat, 100000 + i);
		r->d[NP_READ].ios++;
		r->d[NP_READ].bytes += 4096;
	}
	r->calls[NFS3_PROC_READ] = 1000;
	np_err_count(&r->errs, "NFS3ERR_IO");
	np_err_count(&r->errs, "NFS3ERR_IO");
	np_report_json(f, &rep);
	fclose(f);
	assert_non_null(strstr(buf, "\"jobs\" : ["));
	assert_non_null(strstr(buf, "\"io_bytes\" : 4096000,"));
	assert_non_null(strstr(buf, "\"total_ios\" : 1000,"));
	assert_non_null(strstr(buf, "\"iops\" : 500.000000,"));
	assert_non_null(strstr(buf, "\"bw\" : 2000,"));
	assert_non_null(strstr(buf, "\"runtime\" : 2000,"));
	assert_non_null(strstr(buf, "\"50.000000\" : "));
	assert_non_null(strstr(buf, "\"99.990000\" : "));
	assert_non_null(strstr(buf, "\"NFS3ERR_IO\" : 2"));
	assert_non_null(strstr(buf, "\"READ\" : 1000"));
	free(buf);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_resolution),
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_verify_misplaced),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
