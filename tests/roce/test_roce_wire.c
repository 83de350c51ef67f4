/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_roce_wire.c - RoCEv2 wire format: header accessors (round trips and masks), PSN
 * arithmetic, the opcode table against IBTA header sizes, and decoding + ICRC on every frame
 * Linux rxe sent in tests/data (ground truth: the opcode histograms and AETH syndrome counts
 * that tshark printed for shared/captures/README.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_pkt.h"
#include "roce_psn.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_pkt.h"
#include "ut_common.h"

#ifndef DATA_DIR
#error "DATA_DIR must point at tests/data"
#endif

static struct rte_mempool *pool;

/* ---------- accessors ---------- */

static void bth_roundtrip(void **s)
{
	struct roce_bth b;
	(void)s;

	memset(&b, 0, sizeof(b));
	roce_bth_set_psn(&b, 0xffffff);
	roce_bth_set_ackreq(&b, true);
	assert_int_equal(roce_bth_psn(&b), 0xffffff);
	assert_true(roce_bth_ackreq(&b));
	assert_int_equal(((uint8_t *)&b)[8], 0x80); /* AckReq is the top bit; resv7 stays 0 */
	roce_bth_set_psn(&b, 0x1234567);	    /* 25 bits: masked to 24 */
	assert_int_equal(roce_bth_psn(&b), 0x234567);
	assert_true(roce_bth_ackreq(&b));
	roce_bth_set_ackreq(&b, false);
	assert_int_equal(roce_bth_psn(&b), 0x234567);
	assert_false(roce_bth_ackreq(&b));

	roce_bth_set_becn(&b, true);
	roce_bth_set_fecn(&b, true);
	roce_bth_set_dqpn(&b, 0xabcdef12);
	assert_int_equal(roce_bth_dqpn(&b), 0xcdef12);
	assert_true(roce_bth_fecn(&b) && roce_bth_becn(&b));
	assert_int_equal(((uint8_t *)&b)[4], 0xc0);
	roce_bth_set_fecn(&b, false);
	assert_false(roce_bth_fecn(&b));
	assert_true(roce_bth_becn(&b));
	assert_int_equal(roce_bth_dqpn(&b), 0xcdef12);

	b.flags = 0;
	roce_bth_set_padcnt(&b, 3);
	roce_bth_set_se(&b, true);
	roce_bth_set_migreq(&b, true);
	roce_bth_set_tver(&b, 0);
	assert_int_equal(b.flags, 0xf0);
	assert_int_equal(roce_bth_padcnt(&b), 3);
	roce_bth_set_padcnt(&b, 7); /* 2-bit field: only 3 fits */
	assert_int_equal(roce_bth_padcnt(&b), 3);
	roce_bth_set_se(&b, false);
	assert_int_equal(b.flags, 0x70);
	roce_bth_set_tver(&b, 0xf);
	assert_int_equal(roce_bth_tver(&b), 0xf);
	assert_int_equal(roce_bth_padcnt(&b), 3);
	assert_true(roce_bth_migreq(&b));
	roce_bth_set_pkey(&b, 0xffff);
	assert_int_equal(((uint8_t *)&b)[2], 0xff);
	roce_bth_set_opcode(&b, ROCE_OP_RC_FETCH_ADD);
	assert_int_equal(((uint8_t *)&b)[0], 0x14);
}

static void ext_roundtrip(void **s)
{
	struct roce_aeth a;
	struct roce_deth d;
	struct roce_reth r;
	struct roce_atomiceth at;
	uint8_t *p;
	(void)s;

	roce_aeth_set(&a, ROCE_AETH_NAK | ROCE_NAK_REM_ACCESS_ERR, 0x1abcdef);
	assert_int_equal(roce_aeth_syndrome(&a), 0x62);
	assert_int_equal(roce_aeth_msn(&a), 0xabcdef);
	p = (uint8_t *)&a;
	assert_int_equal(p[0], 0x62);
	assert_int_equal(p[1], 0xab);

	roce_deth_set_qkey(&d, 0x80010000);
	roce_deth_set_sqpn(&d, 0xff000001);
	assert_int_equal(roce_deth_qkey(&d), 0x80010000);
	assert_int_equal(roce_deth_sqpn(&d), 1);
	assert_int_equal(((uint8_t *)&d)[4], 0); /* reserved byte */

	roce_reth_set(&r, 0x0102030405060708ull, 0xa1b2c3d4, 65536);
	assert_int_equal(((uint8_t *)&r)[0], 0x01);
	assert_true(roce_reth_va(&r) == 0x0102030405060708ull);
	assert_int_equal(roce_reth_rkey(&r), 0xa1b2c3d4);
	assert_int_equal(roce_reth_len(&r), 65536);

	roce_atomiceth_set(&at, 0x1000, 0x77, 5, 9);
	assert_true(roce_atomiceth_va(&at) == 0x1000);
	assert_int_equal(roce_atomiceth_rkey(&at), 0x77);
	assert_true(roce_atomiceth_swap_add(&at) == 5 && roce_atomiceth_cmp(&at) == 9);
	assert_int_equal(((uint8_t *)&at)[12 + 7], 5); /* swap/add big-endian after va, rkey */
}

static void psn_arith(void **s)
{
	(void)s;
	assert_true(roce_psn_cmp(5, 5) == 0);
	assert_true(roce_psn_cmp(6, 5) > 0);
	assert_true(roce_psn_cmp(0, 0xffffff) > 0); /* wraps: 0 follows 0xffffff */
	assert_true(roce_psn_cmp(0xffffff, 0) < 0);
	assert_true(roce_psn_cmp(0x7fffff, 0) > 0);
	assert_true(roce_psn_cmp(0x800001, 0) < 0); /* more than half the circle ahead = behind */
	assert_int_equal(roce_psn_add(0xfffffe, 3), 1);
	assert_int_equal(roce_psn_diff(2, 0xfffffe), 4);
}

/* ---------- the opcode table against IBTA header sizes ---------- */

static void opcode_table(void **s)
{
	static const struct {
		uint8_t op;
		uint8_t len;
		const char *name;
	} want[] = {
		{0x00, 12, "RC_SEND_FIRST"},
		{0x03, 16, "RC_SEND_LAST_WITH_IMMEDIATE"},
		{0x06, 28, "RC_RDMA_WRITE_FIRST"},
		{0x0b, 32, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
		{0x0c, 28, "RC_RDMA_READ_REQUEST"},
		{0x0d, 16, "RC_RDMA_READ_RESPONSE_FIRST"},
		{0x0e, 12, "RC_RDMA_READ_RESPONSE_MIDDLE"},
		{0x11, 16, "RC_ACKNOWLEDGE"},
		{0x12, 24, "RC_ATOMIC_ACKNOWLEDGE"},
		{0x13, 40, "RC_COMPARE_SWAP"},
		{0x14, 40, "RC_FETCH_ADD"},
		{0x16, 16, "RC_SEND_LAST_WITH_INVALIDATE"},
		{0x17, 16, "RC_SEND_ONLY_WITH_INVALIDATE"},
		{0x2b, 32, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"},
		{0x64, 20, "UD_SEND_ONLY"},
		{0x65, 24, "UD_SEND_ONLY_WITH_IMMEDIATE"},
		{0x81, 28, "CNP"},
	};
	unsigned n = 0;
	(void)s;

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct roce_opinfo *o = roce_opinfo(want[i].op);

		assert_non_null(o);
		assert_int_equal(o->hdr_len, want[i].len);
		assert_string_equal(roce_opcode_name(want[i].op), want[i].name);
	}
	/* offsets in wire order */
	assert_int_equal(roce_optab[0x0b].off[ROCE_EXT_RETH], 12);
	assert_int_equal(roce_optab[0x0b].off[ROCE_EXT_IMMDT], 28);
	assert_int_equal(roce_optab[0x65].off[ROCE_EXT_DETH], 12);
	assert_int_equal(roce_optab[0x65].off[ROCE_EXT_IMMDT], 20);
	assert_int_equal(roce_optab[0x12].off[ROCE_EXT_AETH], 12);
	assert_int_equal(roce_optab[0x12].off[ROCE_EXT_ATOMICACKETH], 16);
	assert_int_equal(roce_optab[0x13].off[ROCE_EXT_ATOMICETH], 12);
	assert_int_equal(roce_optab[0x17].off[ROCE_EXT_IETH], 12);
	assert_int_equal(roce_optab[0x06].off[ROCE_EXT_AETH], 0);
	/* 0x15 (reserved), RD (0x40..) and unknown opcodes are not supported */
	assert_null(roce_opinfo(0x15));
	assert_null(roce_opinfo(0x40));
	assert_null(roce_opinfo(0xff));
	assert_string_equal(roce_opcode_name(0xff), "UNKNOWN");
	for (unsigned op = 0; op < 256; op++)
		n += roce_opinfo((uint8_t)op) != NULL;
	assert_int_equal(n, 23 + 12 + 2 + 1); /* RC, UC, UD, CNP */
	assert_true(roce_op_has(ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, ROCE_OPF_RWQE));
	assert_false(roce_op_has(ROCE_OP_RC_RDMA_WRITE_LAST, ROCE_OPF_RWQE));
	assert_true(roce_op_has(ROCE_OP_RC_SEND_ONLY, ROCE_OPF_START) &&
		    roce_op_has(ROCE_OP_RC_SEND_ONLY, ROCE_OPF_END));
}

/* ---------- real frames ---------- */

struct frame {
	uint8_t *d;
	uint32_t len;
};

/* pcap or pcapng, little-endian */
static unsigned load(const char *name, struct frame **out)
{
	char path[512];
	FILE *f;
	long sz;
	uint8_t *buf;
	unsigned n = 0, cap = 256;
	struct frame *fr = malloc(cap * sizeof(*fr));
	uint32_t magic;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	memcpy(&magic, buf, 4);
	for (long off = magic == 0x0a0d0d0a ? 0 : 24; off + 16 <= sz;) {
		uint32_t a, b, len;
		const uint8_t *d;

		memcpy(&a, buf + off, 4);
		memcpy(&b, buf + off + 4, 4);
		if (magic == 0x0a0d0d0a) { /* block type a, total length b */
			assert_true(b >= 12 && off + b <= sz);
			if (a != 6) {
				off += b;
				continue;
			}
			memcpy(&len, buf + off + 20, 4);
			d = buf + off + 28;
			off += b;
		} else {
			memcpy(&len, buf + off + 8, 4);
			d = buf + off + 16;
			off += 16 + len;
		}
		if (n == cap)
			fr = realloc(fr, (cap *= 2) * sizeof(*fr));
		fr[n].d = malloc(len);
		memcpy(fr[n].d, d, len);
		fr[n].len = len;
		n++;
	}
	free(buf);
	*out = fr;
	return n;
}

static struct rte_mbuf *mk(const struct frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)f->len), f->d, f->len);
	return m;
}

/* the same frame split into three segments at @a and @b */
static struct rte_mbuf *mk_chain(const struct frame *f, uint32_t a, uint32_t b)
{
	struct rte_mbuf *m[3];
	uint32_t cut[4] = {0, a, b, f->len};

	for (int i = 0; i < 3; i++) {
		m[i] = rte_pktmbuf_alloc(pool);
		assert_non_null(m[i]);
		memcpy(rte_pktmbuf_append(m[i], (uint16_t)(cut[i + 1] - cut[i])), f->d + cut[i],
		       cut[i + 1] - cut[i]);
		if (i)
			assert_int_equal(rte_pktmbuf_chain(m[0], m[i]), 0);
	}
	return m[0];
}

static void decode(struct rte_mbuf *m, struct stk_pkt *p, struct roce_pkt *rp)
{
	assert_int_equal(stk_parse(m, p), 0);
	assert_int_equal(p->dport, STK_ROCE_UDP_PORT);
	if (roce_pkt_parse(m, p, rp) != 0)
		fail_msg("roce_pkt_parse: %s", roce_drop_name(rp->drop));
}

struct expect {
	const char *file;
	unsigned frames;
	unsigned hist[256]; /* opcode -> count, from tshark */
	unsigned syn[256];  /* AETH syndrome -> count, 0 = not checked */
	bool check_syn;
};

static void check_capture(const struct expect *e)
{
	unsigned in_use = rte_mempool_in_use_count(pool);
	unsigned hist[256] = {0}, syn[256] = {0};
	struct frame *fr;
	unsigned n = load(e->file, &fr);

	assert_int_equal(n, e->frames);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = mk(&fr[i]);
		struct stk_pkt p;
		struct roce_pkt rp;
		uint32_t end;
		const struct roce_aeth *aeth;

		decode(m, &p, &rp);
		hist[rp.opcode]++;
		aeth = roce_pkt_ext(&rp, ROCE_EXT_AETH);
		if (aeth)
			syn[roce_aeth_syndrome(aeth)]++;
		end = rp.payload_off + rp.payload_len + rp.pad;
		assert_int_equal(end + ROCE_ICRC_LEN, p.payload_off + p.payload_len);
		for (int impl = ROCE_CRC_ISAL; impl <= ROCE_CRC_TABLE; impl++) {
			if (roce_icrc_set_impl((enum roce_crc_impl)impl) != 0)
				continue;
			if (!roce_icrc_check(m, p.l3_off, rp.bth_off, end))
				fail_msg("%s frame %u: ICRC mismatch (engine %d)", e->file, i + 1,
					 impl);
		}
		rte_pktmbuf_free(m);
		/* chained: headers in the first segment, payload split at odd offsets */
		if (fr[i].len > rp.payload_off + 7u) {
			uint32_t a = rp.payload_off + 3, b = a + (fr[i].len - a) / 2 + 1;

			m = mk_chain(&fr[i], a, b < fr[i].len ? b : a + 1);
			assert_true(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
			rte_pktmbuf_free(m);
		}
	}
	roce_icrc_set_impl(ROCE_CRC_ISAL);
	for (unsigned op = 0; op < 256; op++)
		if (hist[op] != e->hist[op])
			fail_msg("%s: opcode %u seen %u times, tshark saw %u", e->file, op,
				 hist[op], e->hist[op]);
	if (e->check_syn)
		for (unsigned sy = 0; sy < 256; sy++)
			if (syn[sy] != e->syn[sy])
				fail_msg("%s: AETH syndrome 0x%02x seen %u times, tshark %u",
					 e->file, sy, syn[sy], e->syn[sy]);
	for (unsigned i = 0; i < n; i++)
		free(fr[i].d);
	free(fr);
	assert_int_equal(rte_mempool_in_use_count(pool), in_use);
	print_message("%s: %u frames decoded, ICRC verified with every engine\n", e->file, n);
}

static void cap_rc_write_read_atomic(void **s)
{
	static const struct expect e = {
		.file = "rc_write_read_atomic.pcap",
		.frames = 201,
		.hist = {[0] = 5,  [1] = 10,  [2] = 5,	 [4] = 5,   [6] = 25, [7] = 10,	 [8] = 5,
			 [9] = 20, [10] = 5,  [11] = 6,	 [12] = 10, [13] = 5, [14] = 10, [15] = 5,
			 [16] = 5, [17] = 45, [18] = 10, [19] = 5,  [20] = 5, [100] = 5}};
	(void)s;
	check_capture(&e);
}

static void cap_cm_reject_and_ud(void **s)
{
	static const struct expect e = {
		.file = "cm_reject_and_ud.pcap", .frames = 18, .hist = {[100] = 14, [101] = 4}};
	(void)s;
	check_capture(&e);
}

static void cap_nfs_rdma_full(void **s)
{
	static const struct expect e = {.file = "nfs_rdma_full.pcap",
					.frames = 518,
					.hist = {[4] = 100,
						 [6] = 8,
						 [7] = 112,
						 [8] = 8,
						 [10] = 10,
						 [12] = 8,
						 [13] = 8,
						 [14] = 112,
						 [15] = 8,
						 [17] = 126,
						 [23] = 8,
						 [100] = 10}};
	(void)s;
	check_capture(&e);
}

static void cap_rc_loss_recovery(void **s)
{
	/* syndromes: 0x1f x (19+10+29), 0x60 x (4+4), 0x2c x 4, over ACKs and READ responses */
	static struct expect e = {"rc_loss_recovery.pcap",
				  314,
				  {[4] = 30,
				   [6] = 41,
				   [7] = 82,
				   [8] = 44,
				   [12] = 16,
				   [13] = 14,
				   [14] = 31,
				   [15] = 15,
				   [17] = 41},
				  {0},
				  false};
	(void)s;
	check_capture(&e);
}

static void loss_syndromes(void **s)
{
	struct frame *fr;
	unsigned n = load("rc_loss_recovery.pcap", &fr), ack = 0, nak_seq = 0, rnr = 0, other = 0;
	(void)s;

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = mk(&fr[i]);
		struct stk_pkt p;
		struct roce_pkt rp;

		decode(m, &p, &rp);
		if (rp.opcode == ROCE_OP_RC_ACKNOWLEDGE) {
			uint8_t sy = roce_aeth_syndrome(roce_pkt_ext(&rp, ROCE_EXT_AETH));

			if (sy == (ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID))
				ack++;
			else if (sy == (ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR))
				nak_seq++;
			else if ((sy & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR_NAK &&
				 (sy & ROCE_AETH_VALUE_MASK) == 12)
				rnr++;
			else
				other++;
		}
		rte_pktmbuf_free(m);
		free(fr[i].d);
	}
	free(fr);
	/* the README: ACK syndromes 0x1f x 19+10, 0x60 x 4+4, 0x2c x 4 (READ responses excluded) */
	assert_int_equal(ack, 19 + 10);
	assert_int_equal(nak_seq, 8);
	assert_int_equal(rnr, 4);
	assert_int_equal(other, 0);
}

static void cap_cm_msgs(void **s)
{
	static const struct expect e = {.file = "cm_msgs.pcap", .frames = 23, .hist = {[100] = 23}};
	(void)s;
	check_capture(&e);
}

/* Change what the ICRC must ignore, then what it must not. */
static void icrc_masking(void **s)
{
	struct frame *fr;
	unsigned n = load("rc_write_read_atomic.pcap", &fr);
	struct rte_mbuf *m = mk(&fr[0]);
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	struct stk_pkt p;
	struct roce_pkt rp;
	uint32_t end;
	uint8_t saved[4];
	(void)s;

	decode(m, &p, &rp);
	end = rp.payload_off + rp.payload_len + rp.pad;
	assert_true(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
	d[14 + 1] = 0x6a; /* TOS: DSCP 26, ECN CE */
	d[14 + 8] = 3;	  /* TTL */
	d[14 + 10] ^= 0x5a;
	d[34 + 6] = 0x12; /* UDP checksum */
	roce_bth_set_fecn(rp.bth, true);
	roce_bth_set_becn(rp.bth, true);
	assert_true(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
	roce_bth_set_psn(rp.bth, rp.psn + 1); /* covered */
	assert_false(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
	roce_bth_set_psn(rp.bth, rp.psn);
	d[rp.payload_off + 100] ^= 1; /* payload */
	assert_false(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
	d[rp.payload_off + 100] ^= 1;
	d[14 + 12] ^= 1; /* source address */
	assert_false(roce_icrc_check(m, p.l3_off, rp.bth_off, end));
	d[14 + 12] ^= 1;
	/* fill reproduces Linux's value */
	memcpy(saved, d + end, 4);
	memset(d + end, 0, 4);
	roce_icrc_fill(m, p.l3_off, rp.bth_off, end);
	assert_memory_equal(d + end, saved, 4);
	rte_pktmbuf_free(m);
	for (unsigned i = 0; i < n; i++)
		free(fr[i].d);
	free(fr);
}

/* tx_class: the IPv4 TOS and the 802.1Q PCP of a frame roce_tx_build() makes for @opcode on
 * @ifc along @path (VLAN-tagged interface). */
static void tx_class(const struct stk_iface *ifc, const struct roce_path *path, uint8_t opcode,
		     uint8_t *tos, uint8_t *pcp)
{
	struct roce_tx t = {.path = path, .lqpn = 0x11, .dqpn = 0x22, .opcode = opcode, .psn = 1};
	struct rte_mbuf *m = roce_tx_build(pool, ifc, &t, NULL, 0, NULL);
	const uint8_t *d;

	assert_non_null(m);
	d = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(d[12] << 8 | d[13], 0x8100);
	*pcp = d[14] >> 5;
	assert_int_equal(d[16] << 8 | d[17], 0x0800);
	*tos = d[18 + 1];
	rte_pktmbuf_free(m);
}

/* Classes (issue 6): without path flags a QP's frames take the port's RoCE class (DSCP 26,
 * priority 3 by default, or what the port sets), CNPs the port's CNP class (DSCP 48, priority
 * 6) and never an ECN-capable codepoint; ROCE_PATH_DSCP / ROCE_PATH_PCP override per QP. */
static void qos_classes(void **s)
{
	struct stk_iface ifc;
	struct roce_path path;
	uint8_t tos, pcp;
	(void)s;

	memset(&ifc, 0, sizeof(ifc));
	stk_qos_default(&ifc.qos);
	ifc.vlan = true;
	ifc.vlan_id = 5;
	ifc.mtu = 1500;
	ifc.mac.addr_bytes[0] = 2;
	assert_int_equal(stk_ipaddr_parse("10.9.0.1", &ifc.ip4), 0);
	ifc.ip4_prefix = 24;
	memset(&path, 0, sizeof(path));
	assert_int_equal(stk_ipaddr_parse("10.9.0.2", &path.dgid_ip), 0);
	path.dmac.addr_bytes[0] = 4;
	path.ecn = 2; /* ECT(0), as a QP with congestion control has */

	tx_class(&ifc, &path, ROCE_OP_RC_SEND_ONLY, &tos, &pcp);
	assert_int_equal(tos, 26 << 2 | 2);
	assert_int_equal(pcp, 3);
	tx_class(&ifc, &path, ROCE_OP_CNP, &tos, &pcp);
	assert_int_equal(tos, 48 << 2);
	assert_int_equal(pcp, 6);

	/* the port's own classes */
	ifc.qos.roce_dscp = 34;
	ifc.qos.roce_prio = 4;
	ifc.qos.cnp_dscp = 46;
	ifc.qos.cnp_prio = 7;
	tx_class(&ifc, &path, ROCE_OP_RC_RDMA_WRITE_ONLY, &tos, &pcp);
	assert_int_equal(tos, 34 << 2 | 2);
	assert_int_equal(pcp, 4);
	tx_class(&ifc, &path, ROCE_OP_CNP, &tos, &pcp);
	assert_int_equal(tos, 46 << 2);
	assert_int_equal(pcp, 7);

	/* per-QP override, one field at a time; the CNP stays the port's */
	path.dscp = 10;
	path.pcp = 1;
	path.flags = ROCE_PATH_DSCP;
	tx_class(&ifc, &path, ROCE_OP_RC_SEND_ONLY, &tos, &pcp);
	assert_int_equal(tos, 10 << 2 | 2);
	assert_int_equal(pcp, 4);
	path.flags = ROCE_PATH_DSCP | ROCE_PATH_PCP;
	path.dscp = 0; /* DSCP 0 can be asked for explicitly */
	tx_class(&ifc, &path, ROCE_OP_RC_SEND_ONLY, &tos, &pcp);
	assert_int_equal(tos, 0 << 2 | 2);
	assert_int_equal(pcp, 1);
	tx_class(&ifc, &path, ROCE_OP_CNP, &tos, &pcp);
	assert_int_equal(tos, 46 << 2);
	assert_int_equal(pcp, 7);
}

/* Crafted frames must be refused for the right reason. */
static void parse_refusals(void **s)
{
	struct frame *fr;
	unsigned n = load("rc_write_read_atomic.pcap", &fr);
	struct stk_pkt p;
	struct roce_pkt rp;
	struct rte_mbuf *m;
	uint8_t *bth;
	(void)s;

	/* frame 36 is a READ REQUEST (BTH + RETH, no payload) */
	m = mk(&fr[35]);
	assert_int_equal(stk_parse(m, &p), 0);
	bth = rte_pktmbuf_mtod_offset(m, uint8_t *, p.payload_off);
	assert_int_equal(bth[0], ROCE_OP_RC_RDMA_READ_REQUEST);
	assert_int_equal(roce_pkt_parse(m, &p, &rp), 0);
	assert_int_equal(rp.payload_len, 0);
	bth[1] |= 0x10; /* PadCnt 1 on a header-only opcode */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_PAD);
	bth[1] &= (uint8_t)~0x30;
	p.payload_len += 4; /* four bytes after the RETH of a READ request (issue 11) */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_TRAILING);
	bth[0] = ROCE_OP_RC_ACKNOWLEDGE; /* BTH + AETH + 12 bytes: trailing too */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_TRAILING);
	bth[0] = ROCE_OP_RC_RDMA_READ_REQUEST;
	p.payload_len -= 4;
	bth[1] = 0x01; /* TVer 1 */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_TVER);
	bth[1] = 0;
	bth[0] = 0x15; /* reserved opcode */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_OPCODE);
	bth[0] = ROCE_OP_RC_COMPARE_SWAP; /* needs 40 bytes of headers; only 28 + ICRC here */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_HDR_TRUNC);
	p.payload_len = 15; /* less than BTH + ICRC */
	assert_int_equal(roce_pkt_parse(m, &p, &rp), -1);
	assert_int_equal(rp.drop, ROCE_DROP_BTH_TRUNC);
	rte_pktmbuf_free(m);
	for (unsigned i = 0; i < n; i++)
		free(fr[i].d);
	free(fr);
}

/* Our table CRC against the standard check value and against ISA-L on odd lengths. */
static void crc_engines(void **s)
{
	uint8_t buf[4099];
	(void)s;

	assert_int_equal(roce_icrc_set_impl(ROCE_CRC_TABLE), 0);
	assert_int_equal(roce_crc32(0, "123456789", 9), 0xcbf43926); /* CRC-32 check value */
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (unsigned len = 0; len < sizeof(buf); len += 97) {
		uint32_t t, i, chained;

		roce_icrc_set_impl(ROCE_CRC_TABLE);
		t = roce_crc32(0, buf + 1, len);
		chained = roce_crc32(roce_crc32(0, buf + 1, len / 3), buf + 1 + len / 3,
				     len - len / 3);
		assert_int_equal(t, chained);
		if (roce_icrc_set_impl(ROCE_CRC_ISAL) == 0) {
			i = roce_crc32(0, buf + 1, len);
			assert_int_equal(t, i);
		}
	}
	roce_icrc_set_impl(ROCE_CRC_ISAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bth_roundtrip),
		cmocka_unit_test(ext_roundtrip),
		cmocka_unit_test(psn_arith),
		cmocka_unit_test(opcode_table),
		cmocka_unit_test(crc_engines),
		cmocka_unit_test(cap_rc_write_read_atomic),
		cmocka_unit_test(cap_cm_reject_and_ud),
		cmocka_unit_test(cap_nfs_rdma_full),
		cmocka_unit_test(cap_rc_loss_recovery),
		cmocka_unit_test(loss_syndromes),
		cmocka_unit_test(cap_cm_msgs),
		cmocka_unit_test(icrc_masking),
		cmocka_unit_test(qos_classes),
		cmocka_unit_test(parse_refusals),
	};
	int rc;

	if (ut_eal_init("test_roce_wire", "0") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("rw_pool", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	ut_eal_fini();
	return rc;
}
