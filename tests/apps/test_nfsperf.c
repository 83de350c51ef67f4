/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfsperf.c - droce-nfsperf's pieces without a server: the latency histogram (every
 * value's bucket holds it within 1/64; percentiles of known distributions, as fio computes
 * them: the first bucket where the running count reaches the percentage), merging, the
 * verify blocks (a block reads back; one changed byte is named at its offset with the
 * expected and found bytes, for md5, crc32c and no checksum; a block from another offset is
 * a bad header; verify_interval units), and fio's JSON (parsed back by python3 in the
 * integration test; here: the keys and the consistency of io_bytes, total_ios and iops), and
 * the NFSv4.1 client pieces: a COMPOUND encoded word for word as RFC 8881 lays it out (§16.2.1
 * COMPOUND4args, §18.46 SEQUENCE, §18.19 PUTFH, §18.32 WRITE, §18.22 READ), the WRITE data
 * opaque ending the call (what the RDMA client's DDP range assumes), replies written by hand
 * decoded (READ's data, SEQUENCE's slot fields, a failed SEQUENCE), the slot table (sequenceid
 * moves only on a successful SEQUENCE; target_highest_slotid obeyed; highest_slotid), and
 * GETATTR's type and size.
 */
#include <errno.h>
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
	r->nconn = 3;
	r->conn_calls[0] = 400;
	r->conn_calls[1] = 300;
	r->conn_calls[2] = 300;
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
	assert_non_null(strstr(buf, "\"connection_calls\" : [400, 300, 300],"));
	free(buf);
	free(r);
}

/* ---- NFSv4.1 ---- */

/* Big-endian words into a byte buffer. */
static uint32_t put_words(uint8_t *b, uint32_t off, const uint32_t *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		b[off++] = (uint8_t)(w[i] >> 24);
		b[off++] = (uint8_t)(w[i] >> 16);
		b[off++] = (uint8_t)(w[i] >> 8);
		b[off++] = (uint8_t)w[i];
	}
	return off;
}

static void test_nfs4_write_compound(void **state)
{
	static const uint8_t fh[6] = {0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6};
	static const uint8_t data[5] = {'h', 'e', 'l', 'l', 'o'};
	struct np4_sess s;
	struct np4_compound c = {0};
	uint8_t got[512], want[512];
	uint32_t n = 0;
	XDR x;

	(void)state;
	np4_sess_init(&s, 4);
	for (uint32_t i = 0; i < NFS4_SESSIONID_SIZE; i++)
		s.sessionid[i] = (uint8_t)(0xa0 + i);
	s.slot[2].seqid = 7;
	assert_int_equal(np4_slot_get(&s), 0);
	assert_int_equal(np4_slot_get(&s), 1);
	assert_int_equal(np4_slot_get(&s), 2);
	np4_slot_put(&s, 1);
	np4_op_seq(&c, &s, 2);
	np4_op_putfh(&c, fh, sizeof(fh));
	np4_op(&c, NFS4_OP_WRITE);
	c.ops[2].a.write = (struct nfs4_write_args){
		.sid = {.seqid = 1, .other = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		.offset = 0x100000002ull,
		.stable = NFS_UNSTABLE,
		.data = {data, sizeof(data)}};
	xdrmem_create(&x, (char *)got, sizeof(got), XDR_ENCODE);
	assert_true(np4_xdr_compound(&x, &c));

	/* COMPOUND4args: tag<> empty, minorversion 1, three argop4 */
	n = put_words(want, n, (const uint32_t[]){0, 1, 3}, 3);
	/* SEQUENCE4args: sessionid, sequenceid 7 (slot 2's), slotid 2, highest_slotid 2 (slot
	 * 1 was given back), cachethis FALSE */
	n = put_words(want, n, (const uint32_t[]){53}, 1);
	n = put_words(
		want, n,
		(const uint32_t[]){0xa0a1a2a3, 0xa4a5a6a7, 0xa8a9aaab, 0xacadaeaf, 7, 2, 2, 0}, 8);
	/* PUTFH4args: nfs_fh4<> of 6 bytes, padded to 8 */
	n = put_words(want, n, (const uint32_t[]){22, 6, 0xf1f2f3f4, 0xf5f60000}, 4);
	/* WRITE4args: stateid4 (seqid, other[12]), offset4, stable_how4 UNSTABLE4 (0), data<> */
	n = put_words(want, n,
		      (const uint32_t[]){38, 1, 0x01020304, 0x05060708, 0x090a0b0c, 1, 2, 0, 5,
					 0x68656c6c, 0x6f000000},
		      11);
	assert_int_equal(xdr_getpos(&x), n);
	assert_memory_equal(got, want, n);
	/* the data's content starts where np_conn_call's DDP range says: the call's length less
	 * the rounded-up data */
	assert_memory_equal(got + n - 8, data, sizeof(data));
	xdr_destroy(&x);
}

static void test_nfs4_read_reply(void **state)
{
	uint8_t b[256];
	uint32_t n = 0;
	struct np4_reply r;
	struct np4_sess s;
	const struct nfs4_op_res *rd;

	(void)state;
	/* COMPOUND4res: NFS4_OK, tag<> empty, 3 results */
	n = put_words(b, n, (const uint32_t[]){0, 0, 3}, 3);
	/* SEQUENCE4resok: sessionid, sequenceid 1, slotid 0, highest_slotid 3,
	 * target_highest_slotid 1, status_flags 0 */
	n = put_words(b, n, (const uint32_t[]){53, 0, 1, 2, 3, 4, 1, 0, 3, 1, 0}, 11);
	/* PUTFH: NFS4_OK; READ4resok: eof TRUE, data<> "hello" */
	n = put_words(b, n, (const uint32_t[]){22, 0, 25, 0, 1, 5, 0x68656c6c, 0x6f000000}, 8);
	assert_int_equal(np4_reply_decode(b, n, &r), 0);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 3);
	assert_int_equal(np4_reply_failed(&r), 3);
	assert_int_equal(r.r[0].u.seq.target_highest_slotid, 1);
	rd = np4_reply_op(&r, NFS4_OP_READ);
	assert_non_null(rd);
	assert_true(rd->u.read.eof);
	assert_int_equal(rd->u.read.data.len, 5);
	assert_ptr_equal(rd->u.read.data.p, b + n - 8); /* the bytes in place, not copied */
	assert_memory_equal(rd->u.read.data.p, "hello", 5);

	/* the slot moves on; the server's target (1) caps the slots handed out */
	np4_sess_init(&s, 4);
	assert_int_equal(np4_slot_get(&s), 0);
	np4_slot_done(&s, 0, &r);
	assert_int_equal(s.slot[0].seqid, 2);
	assert_int_equal(s.target, 1);
	assert_int_equal(np4_slot_get(&s), 0);
	assert_int_equal(np4_slot_get(&s), 1);
	assert_int_equal(np4_slot_get(&s), -1);

	/* truncated: the READ's data is short */
	assert_int_equal(np4_reply_decode(b, n - 4, &r), -EBADMSG);
	assert_int_equal(r.n, 2);
}

static void test_nfs4_failed_sequence(void **state)
{
	uint8_t b[64];
	uint32_t n;
	struct np4_reply r;
	struct np4_sess s;
	struct nfs4_sequence_args a;

	(void)state;
	/* COMPOUND4res: NFS4ERR_DELAY, tag<> empty, one result: SEQUENCE NFS4ERR_DELAY */
	n = put_words(b, 0, (const uint32_t[]){10008, 0, 1, 53, 10008}, 5);
	assert_int_equal(np4_reply_decode(b, n, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(np4_reply_failed(&r), 0);
	assert_string_equal(np4_stat_name(r.r[0].status), "NFS4ERR_DELAY");
	assert_string_equal(np4_stat_name(NFS4ERR_BADSESSION), "NFS4ERR_BADSESSION");
	assert_string_equal(np4_stat_name(NFS4ERR_DEADSESSION), "NFS4ERR_DEADSESSION");
	assert_null(np4_reply_op(&r, NFS4_OP_SEQUENCE));
	/* the server did not move the slot on: its next request has the same sequenceid */
	np4_sess_init(&s, 2);
	assert_int_equal(np4_slot_get(&s), 0);
	np4_slot_done(&s, 0, &r);
	assert_int_equal(s.slot[0].seqid, 1);
	assert_int_equal(s.target, 1);
	np4_sequence_args(&s, 0, &a);
	assert_int_equal(a.sequenceid, 1);
	/* no reply at all: the same */
	assert_int_equal(np4_slot_get(&s), 0);
	np4_slot_done(&s, 0, NULL);
	assert_int_equal(s.slot[0].seqid, 1);
}

static void test_nfs4_attrs(void **state)
{
	struct nfs4_getattr_res g = {0};
	uint8_t v[12];
	uint32_t type = 0;
	uint64_t size = 0;

	(void)state;
	/* fattr4 of type (1) and size (4): NF4REG, then 0x123456789 */
	put_words(v, 0, (const uint32_t[]){1, 0x1, 0x23456789}, 3);
	nfs4_bit_set(&g.mask, NFS4_A_TYPE);
	nfs4_bit_set(&g.mask, NFS4_A_SIZE);
	g.vals = (struct nfs4_ref){v, sizeof(v)};
	assert_int_equal(np4_attr_type_size(&g, &type, &size), 0);
	assert_int_equal(type, 1);
	assert_true(size == 0x123456789ull);
	g.vals.len = 11;
	assert_int_equal(np4_attr_type_size(&g, &type, &size), -EBADMSG);
	/* an attribute not asked for: its length is unknown, so the list is not walked */
	nfs4_bit_set(&g.mask, NFS4_A_MODE);
	g.vals.len = sizeof(v);
	assert_int_equal(np4_attr_type_size(&g, &type, &size), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_resolution),
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_verify_misplaced),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_nfs4_write_compound),
		cmocka_unit_test(test_nfs4_read_reply),
		cmocka_unit_test(test_nfs4_failed_sequence),
		cmocka_unit_test(test_nfs4_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
