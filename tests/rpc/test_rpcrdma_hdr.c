/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rpcrdma_hdr.c - the RPC-over-RDMA v1 header codec (rpc/rpcrdma/rpcrdma_hdr.c) against
 * headers built word by word from RFC 8166 §4.2 and §5 (the XDR description), every error
 * RFC 8166 §4.5 names, every truncation, hostile counts, and the RFC 8797 private data that
 * Linux 6.1's xprtrdma and svcrdma exchanged in tests/data/nfs_rdma_full.pcap.
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

#include "rpcrdma_hdr.h"
#include "xdr_words.h"

#ifndef DATA_DIR
#error "DATA_DIR must point at tests/data"
#endif

static void seg(struct wb *x, uint32_t handle, uint32_t len, uint64_t off)
{
	w(x, handle);
	w(x, len);
	w(x, (uint32_t)(off >> 32));
	w(x, (uint32_t)off);
}

static void head(struct wb *x, uint32_t proc)
{
	x->n = 0;
	w(x, 0xa6bfac23); /* an xid from nfs_rdma_rpc_msgs.pcap */
	w(x, 1);
	w(x, 128);
	w(x, proc);
}

static void test_msg_no_chunks(void **st)
{
	struct rpcrdma_hdr h;
	struct wb x;

	(void)st;
	head(&x, RPCRDMA_MSG);
	w(&x, 0);
	w(&x, 0);
	w(&x, 0);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_OK);
	assert_int_equal(h.hdr_len, 28);
	assert_memory_equal(&h.xid, x.b, 4); /* network order */
	assert_int_equal(h.credits, 128);
	assert_int_equal(h.nr_rsegs + h.nr_wchunks + h.has_reply, 0);
	/* the same bytes followed by an RPC message: hdr_len says where it starts */
	w(&x, 0x12345678);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_OK);
	assert_int_equal(h.hdr_len, 28);
}

/* read list: a position-zero chunk of two segments, then a chunk at 108 (an NFS WRITE's data) */
static void build_all_chunks(struct wb *x)
{
	head(x, RPCRDMA_NOMSG);
	w(x, 1), w(x, 0), seg(x, 0x100, 4096, 0x1000);
	w(x, 1), w(x, 0), seg(x, 0x101, 100, 0x2000);
	w(x, 1), w(x, 108), seg(x, 0x102, 65536, 0xffffffff00000000ull);
	w(x, 0);
	/* write list: chunk of 3, chunk of 16 */
	w(x, 1), w(x, 3);
	for (uint32_t i = 0; i < 3; i++)
		seg(x, 0x200 + i, 1000 + i, 0x10000ull * i);
	w(x, 1), w(x, 16);
	for (uint32_t i = 0; i < 16; i++)
		seg(x, 0x300 + i, 4096, 0x7000000000ull + 4096 * i);
	w(x, 0);
	/* reply chunk of 2 */
	w(x, 1), w(x, 2);
	seg(x, 0x400, 8192, 0x8000), seg(x, 0x401, 4, 0x9000);
}

static void test_all_chunk_kinds(void **st)
{
	struct rpcrdma_hdr h;
	struct rpcrdma_rseg r;
	struct rpcrdma_seg s;
	struct wb x;

	(void)st;
	build_all_chunks(&x);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_OK);
	assert_int_equal(h.hdr_len, x.n);
	assert_int_equal(h.proc, RPCRDMA_NOMSG);
	assert_int_equal(h.nr_rsegs, 3);
	assert_int_equal(h.nr_read_chunks, 2);
	rpcrdma_read_seg(&h, 1, &r);
	assert_int_equal(r.position, 0);
	assert_int_equal(r.seg.handle, 0x101);
	assert_int_equal(r.seg.length, 100);
	rpcrdma_read_seg(&h, 2, &r);
	assert_int_equal(r.position, 108);
	assert_true(r.seg.offset == 0xffffffff00000000ull);
	assert_int_equal(h.nr_wchunks, 2);
	assert_int_equal(h.wchunk_nsegs[0], 3);
	assert_int_equal(h.wchunk_nsegs[1], 16);
	rpcrdma_write_seg(&h, 0, 2, &s);
	assert_int_equal(s.handle, 0x202);
	assert_int_equal(s.length, 1002);
	assert_true(s.offset == 0x20000);
	rpcrdma_write_seg(&h, 1, 15, &s);
	assert_int_equal(s.handle, 0x30f);
	assert_true(s.offset == 0x7000000000ull + 4096 * 15);
	assert_true(h.has_reply);
	assert_int_equal(h.reply_nsegs, 2);
	rpcrdma_reply_seg(&h, 1, &s);
	assert_int_equal(s.handle, 0x401);
	assert_int_equal(s.length, 4);
}

static void test_reencode_byte_for_byte(void **st)
{
	struct rpcrdma_rseg rsegs[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_seg wsegs[RPCRDMA_MAX_WRITE_CHUNKS * RPCRDMA_MAX_CHUNK_SEGS];
	struct rpcrdma_seg rs[RPCRDMA_MAX_CHUNK_SEGS];
	struct rpcrdma_chunk wch[RPCRDMA_MAX_WRITE_CHUNKS], reply;
	struct rpcrdma_hdr_out o;
	struct rpcrdma_hdr h;
	uint8_t out[16384];
	struct wb x;

	(void)st;
	build_all_chunks(&x);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_OK);
	rpcrdma_hdr_to_out(&h, &o, rsegs, wch, wsegs, &reply, rs);
	assert_int_equal(rpcrdma_hdr_size(&o), x.n);
	assert_int_equal(rpcrdma_hdr_encode(&o, out, sizeof(out)), (int)x.n);
	assert_memory_equal(out, x.b, x.n);
	/* one byte short of room */
	assert_int_equal(rpcrdma_hdr_encode(&o, out, x.n - 1), -ENOSPC);
	o.proc = RPCRDMA_MSGP;
	assert_int_equal(rpcrdma_hdr_encode(&o, out, sizeof(out)), -EINVAL);
}

/* A reply's write chunk carries the bytes actually written (RFC 8166 §4.4.1.1): the encoder
 * writes what it is given, so a server shrinks the lengths before encoding. */
static void test_reply_write_chunk_lengths(void **st)
{
	struct rpcrdma_seg segs[2] = {{0x11, 4096, 0x1000}, {0x12, 300, 0x3000}};
	struct rpcrdma_chunk ch = {2, segs};
	struct rpcrdma_hdr_out o = {.xid = 0x01020304,
				    .vers = 1,
				    .credits = 64,
				    .proc = RPCRDMA_MSG,
				    .nr_wchunks = 1,
				    .wchunks = &ch};
	struct rpcrdma_hdr h;
	struct rpcrdma_seg s;
	uint8_t out[256];
	int n;

	(void)st;
	n = rpcrdma_hdr_encode(&o, out, sizeof(out));
	assert_int_equal(n, 16 + 4 + 4 + 4 + 2 * 16 + 4 + 4);
	assert_int_equal(rpcrdma_hdr_decode(out, (uint32_t)n, &h), RPCRDMA_DEC_OK);
	rpcrdma_write_seg(&h, 0, 1, &s);
	assert_int_equal(s.length, 300);
}

static void expect(const struct wb *x, enum rpcrdma_dec want)
{
	struct rpcrdma_hdr h;
	enum rpcrdma_dec got = rpcrdma_hdr_decode(x->b, x->n, &h);

	if (got != want)
		fail_msg("decode gave %d (%s), want %d", got, h.why ? h.why : "", want);
	if (want != RPCRDMA_DEC_OK)
		assert_non_null(h.why);
}

static void test_errors_rfc8166_4_5(void **st)
{
	struct rpcrdma_hdr h;
	struct wb x;

	(void)st;
	/* shorter than xid..proc: nothing to answer */
	head(&x, RPCRDMA_MSG);
	x.n = 15;
	expect(&x, RPCRDMA_DEC_DROP);
	x.n = 0;
	expect(&x, RPCRDMA_DEC_DROP);
	/* version 2: ERR_VERS, and the xid is there to answer with */
	head(&x, RPCRDMA_MSG);
	x.b[7] = 2;
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_ERR_VERS);
	assert_memory_equal(&h.xid, x.b, 4);
	/* deprecated and unknown procedures */
	head(&x, RPCRDMA_MSGP);
	w(&x, 0), w(&x, 0), w(&x, 0), w(&x, 0), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, RPCRDMA_DONE);
	expect(&x, RPCRDMA_DEC_DROP);
	head(&x, 5);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, 0xffffffff);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	/* read position not a multiple of 4 */
	head(&x, RPCRDMA_MSG);
	w(&x, 1), w(&x, 6), seg(&x, 1, 4, 0), w(&x, 0), w(&x, 0), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	/* a discriminator of 2 in each list */
	head(&x, RPCRDMA_MSG);
	w(&x, 2), w(&x, 0), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 2), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 0), w(&x, 2);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	/* a chunk of no segments */
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 1), w(&x, 0), w(&x, 0), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
}

static void test_limits(void **st)
{
	struct wb x;

	(void)st;
	/* 17 segments in a write chunk, in the reply chunk */
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 1), w(&x, 17);
	for (int i = 0; i < 17; i++)
		seg(&x, 1, 1, 0);
	w(&x, 0), w(&x, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 0), w(&x, 1), w(&x, 17);
	for (int i = 0; i < 17; i++)
		seg(&x, 1, 1, 0);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	/* 8 write chunks pass, 9 do not */
	for (int nch = 8; nch <= 9; nch++) {
		head(&x, RPCRDMA_MSG);
		w(&x, 0);
		for (int c = 0; c < nch; c++)
			w(&x, 1), w(&x, 1), seg(&x, 1, 1, 0);
		w(&x, 0), w(&x, 0);
		expect(&x, nch == 8 ? RPCRDMA_DEC_OK : RPCRDMA_DEC_ERR_CHUNK);
	}
	/* 128 read segments pass, 129 do not */
	for (int n = 128; n <= 129; n++) {
		head(&x, RPCRDMA_MSG);
		for (int i = 0; i < n; i++)
			w(&x, 1), w(&x, 4 * (uint32_t)i), seg(&x, 1, 1, 0);
		w(&x, 0), w(&x, 0), w(&x, 0);
		expect(&x, n == 128 ? RPCRDMA_DEC_OK : RPCRDMA_DEC_ERR_CHUNK);
	}
	/* hostile counts: the bound fails, nothing is read past the end */
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 1), w(&x, 0xffffffff);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
	head(&x, RPCRDMA_MSG);
	w(&x, 0), w(&x, 1), w(&x, 16);
	expect(&x, RPCRDMA_DEC_ERR_CHUNK);
}

/* Every proper prefix of a valid header fails (never OK, never a read past the end: run under
 * ASan with each prefix copied to an exact-size allocation). */
static void test_every_truncation(void **st)
{
	struct rpcrdma_hdr h;
	struct wb x;

	(void)st;
	build_all_chunks(&x);
	for (uint32_t n = 0; n < x.n; n++) {
		uint8_t *p = malloc(n ? n : 1);
		enum rpcrdma_dec d;

		memcpy(p, x.b, n);
		d = rpcrdma_hdr_decode(p, n, &h);
		free(p);
		if (n < 16)
			assert_int_equal(d, RPCRDMA_DEC_DROP);
		else
			assert_int_equal(d, RPCRDMA_DEC_ERR_CHUNK);
	}
}

static void test_rdma_error(void **st)
{
	struct rpcrdma_hdr_out o = {.xid = 0x23acbfa6,
				    .vers = 1,
				    .credits = 0,
				    .proc = RPCRDMA_ERROR,
				    .err = RPCRDMA_ERR_VERS,
				    .vers_low = 1,
				    .vers_high = 1};
	struct rpcrdma_hdr h;
	uint8_t out[64];
	struct wb x;

	(void)st;
	/* RFC 8166 §4.2.4.1: xid vers credits RDMA_ERROR ERR_VERS low high */
	x.n = 0;
	x.b[0] = 0xa6, x.b[1] = 0xbf, x.b[2] = 0xac, x.b[3] = 0x23;
	x.n = 4;
	w(&x, 1), w(&x, 0), w(&x, 4), w(&x, 1), w(&x, 1), w(&x, 1);
	assert_int_equal(rpcrdma_hdr_encode(&o, out, sizeof(out)), 28);
	assert_memory_equal(out + 4, x.b + 4, 24);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_OK);
	assert_int_equal(h.err, RPCRDMA_ERR_VERS);
	assert_int_equal(h.vers_low, 1);
	assert_int_equal(h.vers_high, 1);
	/* ERR_CHUNK is 20 bytes */
	o.err = RPCRDMA_ERR_CHUNK;
	assert_int_equal(rpcrdma_hdr_encode(&o, out, sizeof(out)), 20);
	assert_int_equal(rpcrdma_hdr_decode(out, 20, &h), RPCRDMA_DEC_OK);
	assert_int_equal(h.err, RPCRDMA_ERR_CHUNK);
	/* without its low/high, or an unknown code */
	assert_int_equal(rpcrdma_hdr_decode(x.b, 24, &h), RPCRDMA_DEC_ERR_CHUNK);
	x.n = 16;
	w(&x, 3);
	assert_int_equal(rpcrdma_hdr_decode(x.b, x.n, &h), RPCRDMA_DEC_ERR_CHUNK);
}

/* The RFC 8797 private data Linux 6.1 sent: the client's REQ (frame 1) and the server's REP
 * (frame 2) in nfs_rdma_full.pcap, found by their magic. */
static void test_cm_private_data_linux(void **st)
{
	FILE *f = fopen(DATA_DIR "/nfs_rdma_full.pcap", "rb");
	static uint8_t buf[1 << 20];
	const uint8_t magic[4] = {0xf6, 0xab, 0x0e, 0x18};
	struct rpcrdma_cm_priv p[2];
	uint8_t enc[8];
	size_t n;
	int found = 0;

	(void)st;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i + 8 <= n && found < 2; i++)
		if (memcmp(buf + i, magic, 4) == 0)
			rpcrdma_cm_priv_decode(buf + i, 8, &p[found++]);
	assert_int_equal(found, 2);
	/* xprtrdma: Send With Invalidate OK, 4 KiB inline both ways */
	assert_true(p[0].present);
	assert_true(p[0].remote_inv_ok);
	assert_int_equal(p[0].max_send, 4096);
	assert_int_equal(p[0].max_recv, 4096);
	/* svcrdma: no remote invalidation asked for */
	assert_true(p[1].present);
	assert_false(p[1].remote_inv_ok);
	assert_int_equal(p[1].max_send, 4096);
	/* and our encoding of the client's values is the client's bytes */
	rpcrdma_cm_priv_encode(&p[0], enc);
	for (size_t i = 0; i + 8 <= n; i++)
		if (memcmp(buf + i, magic, 4) == 0) {
			assert_memory_equal(enc, buf + i, 8);
			break;
		}
}

static void test_cm_private_data_edges(void **st)
{
	uint8_t b[8] = {0xf6, 0xab, 0x0e, 0x18, 1, 0, 0, 63};
	struct rpcrdma_cm_priv p = {.remote_inv_ok = true, .max_send = 100, .max_recv = 1u << 30};

	(void)st;
	rpcrdma_cm_priv_decode(b, 8, &p);
	assert_true(p.present);
	assert_int_equal(p.max_send, 1024);
	assert_int_equal(p.max_recv, 65536);
	/* short, a wrong magic, an unknown version, none at all: the 1 KiB defaults */
	rpcrdma_cm_priv_decode(b, 7, &p);
	assert_false(p.present);
	assert_int_equal(p.max_send, 1024);
	b[0] = 0;
	rpcrdma_cm_priv_decode(b, 8, &p);
	assert_false(p.present);
	b[0] = 0xf6, b[4] = 2;
	rpcrdma_cm_priv_decode(b, 8, &p);
	assert_false(p.present);
	rpcrdma_cm_priv_decode(NULL, 0, &p);
	assert_false(p.present);
	assert_int_equal(p.max_recv, 1024);
	/* encoding clamps to what a size byte can say */
	p = (struct rpcrdma_cm_priv){.remote_inv_ok = true, .max_send = 100, .max_recv = 1u << 30};
	rpcrdma_cm_priv_encode(&p, b);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], 0);
	assert_int_equal(b[7], 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_no_chunks),
		cmocka_unit_test(test_all_chunk_kinds),
		cmocka_unit_test(test_reencode_byte_for_byte),
		cmocka_unit_test(test_reply_write_chunk_lengths),
		cmocka_unit_test(test_errors_rfc8166_4_5),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_rdma_error),
		cmocka_unit_test(test_cm_private_data_linux),
		cmocka_unit_test(test_cm_private_data_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
