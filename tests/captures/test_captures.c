/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_captures.c - the stack's decoder against ground truth: every frame that Linux 6.1
 * rdma_rxe put on the wire in the tests/data captures (see tests/data/README.md) must pass
 * stk_parse() and classify as RoCE on an interface that impersonates its destination VM
 * (10.99.0.2 / 52:54:00:99:00:02 or 10.99.0.3 / 52:54:00:99:00:03). Frame counts come from
 * shared/captures/README.md, so a truncated read of a file cannot pass silently.
 * Then single-byte corruptions of a real frame must be dropped for the right reason.
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

#include "stk_iface.h"
#include "stk_pkt.h"
#include "ut_common.h"

#ifndef DATA_DIR
#error "DATA_DIR must point at tests/data"
#endif

static struct rte_mempool *pool;
static struct stk_iface vm[2];

struct frame {
	uint8_t *data;
	uint32_t len;
};

static void add_frame(struct frame **f, unsigned *n, unsigned *cap, const uint8_t *d, uint32_t len)
{
	assert_true(len > 0 && len <= 65535);
	if (*n == *cap) {
		*cap *= 2;
		*f = realloc(*f, *cap * sizeof(**f));
		assert_non_null(*f);
	}
	(*f)[*n].data = malloc(len);
	assert_non_null((*f)[*n].data);
	memcpy((*f)[*n].data, d, len);
	(*f)[*n].len = len;
	(*n)++;
}

/* pcapng (little-endian sections): every Enhanced Packet Block (type 6) is one frame. */
static unsigned read_pcapng(FILE *fp, struct frame **out)
{
	unsigned n = 0, cap = 64;
	struct frame *f = malloc(cap * sizeof(*f));
	uint32_t bh[2];

	rewind(fp);
	while (fread(bh, 4, 2, fp) == 2) {
		uint32_t body_len = bh[1] - 12;
		uint8_t *body;

		assert_true(bh[1] >= 12 && bh[1] % 4 == 0 && bh[1] < (1u << 20));
		body = malloc(body_len + 4);
		assert_non_null(body);
		assert_int_equal(fread(body, 1, body_len + 4, fp), body_len + 4);
		if (bh[0] == 0x0a0d0d0a)
			assert_int_equal(*(uint32_t *)body, 0x1a2b3c4d); /* little-endian only */
		if (bh[0] == 6) {
			uint32_t caplen;

			memcpy(&caplen, body + 12, 4);
			assert_true(20 + caplen <= body_len);
			add_frame(&f, &n, &cap, body + 20, caplen);
		}
		free(body);
	}
	*out = f;
	return n;
}

/* Minimal libpcap / pcapng reader. */
static unsigned read_pcap(const char *name, struct frame **out)
{
	char path[512];
	uint8_t hdr[24], rec[16];
	unsigned n = 0, cap = 64;
	struct frame *f = malloc(cap * sizeof(*f));
	FILE *fp;
	bool swap;
	uint32_t magic;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(hdr, 1, 24, fp), 24);
	memcpy(&magic, hdr, 4);
	if (magic == 0x0a0d0d0a) {
		n = read_pcapng(fp, out);
		fclose(fp);
		free(f);
		return n;
	}
	swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	assert_true(swap || magic == 0xa1b2c3d4 || magic == 0xa1b23c4d);
	while (fread(rec, 1, 16, fp) == 16) {
		uint32_t incl;

		uint8_t *buf;

		memcpy(&incl, rec + 8, 4);
		if (swap)
			incl = __builtin_bswap32(incl);
		assert_true(incl > 0 && incl <= 65535);
		buf = malloc(incl);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, incl, fp), incl);
		add_frame(&f, &n, &cap, buf, incl);
		free(buf);
	}
	fclose(fp);
	*out = f;
	return n;
}

static void free_frames(struct frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(f[i].data);
	free(f);
}

static struct rte_mbuf *to_mbuf(const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	assert_true(len <= rte_pktmbuf_tailroom(m));
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), d, len);
	return m;
}

static const struct stk_iface *dest_vm(const uint8_t *frame)
{
	for (int i = 0; i < 2; i++)
		if (!memcmp(frame, vm[i].mac.addr_bytes, 6))
			return &vm[i];
	return NULL;
}

static void check_file(const char *name, unsigned expect_frames)
{
	unsigned in_use = rte_mempool_in_use_count(pool);
	struct frame *f;
	unsigned n = read_pcap(name, &f), roce = 0;

	if (expect_frames)
		assert_int_equal(n, expect_frames);
	else
		assert_true(n > 0);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = to_mbuf(f[i].data, f[i].len);
		const struct stk_iface *ifc = dest_vm(f[i].data);
		struct stk_pkt p;
		int rc = stk_parse(m, &p);

		if (rc != 0)
			fail_msg("%s frame %u: dropped as %s", name, i + 1, stk_drop_name(p.drop));
		assert_non_null(ifc);
		assert_int_equal(p.ether_type, 0x0800);
		assert_int_equal(p.dport, STK_ROCE_UDP_PORT);
		/* BTH (12) + ICRC (4) at least */
		assert_true(p.payload_len >= 16);
		if (stk_classify(ifc, m, &p) != STK_CLS_ROCE)
			fail_msg("%s frame %u: not classified as RoCE (%s)", name, i + 1,
				 stk_drop_name(p.drop));
		roce++;
		rte_pktmbuf_free(m);
	}
	assert_int_equal(roce, n);
	assert_int_equal(rte_mempool_in_use_count(pool), in_use);
	print_message("%s: %u frames, all RoCEv2 to their destination VM\n", name, n);
	free_frames(f, n);
}

static void rc_write_read_atomic(void **s)
{
	(void)s;
	check_file("rc_write_read_atomic.pcap", 201);
}

static void cm_reject_and_ud(void **s)
{
	(void)s;
	check_file("cm_reject_and_ud.pcap", 18);
}

static void nfs_rdma_full(void **s)
{
	(void)s;
	check_file("nfs_rdma_full.pcap", 518);
}

static void rc_loss_recovery(void **s)
{
	(void)s;
	check_file("rc_loss_recovery.pcap", 314);
}

static void cm_msgs(void **s)
{
	(void)s;
	check_file("cm_msgs.pcap", 23);
}

static void nfs_rdma_rpc_msgs(void **s)
{
	(void)s;
	check_file("nfs_rdma_rpc_msgs.pcap", 1674);
}

/* One real frame (an RDMA WRITE FIRST, frame 1), corrupted one field at a time. */
static void corruptions(void **s)
{
	struct frame *f;
	unsigned n = read_pcap("rc_write_read_atomic.pcap", &f);
	static const struct {
		unsigned off;
		uint8_t val;
		enum stk_drop want;
		const char *what;
	} cases[] = {
		{14, 0x55, STK_DROP_IP4_VERSION, "IP version 5"},
		{14, 0x44, STK_DROP_IP4_IHL, "IHL 4"},
		{16, 0xff, STK_DROP_IP4_LEN, "total length beyond the frame"},
		{24, 0x00, STK_DROP_IP4_CSUM, "header checksum"},
		{38, 0x00, STK_DROP_UDP_LEN, "UDP length below 8"},
		{12, 0x88, STK_DROP_ETHERTYPE, "EtherType 0x8800"},
	};
	(void)s;

	assert_true(n >= 1);
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rte_mbuf *m = to_mbuf(f[0].data, f[0].len);
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		struct stk_pkt p;

		d[cases[c].off] = cases[c].val;
		if (cases[c].off == 38)
			d[39] = 4;
		if (stk_parse(m, &p) == 0 || p.drop != cases[c].want)
			fail_msg("%s: got %s, want %s", cases[c].what, stk_drop_name(p.drop),
				 stk_drop_name(cases[c].want));
		rte_pktmbuf_free(m);
	}
	free_frames(f, n);
}

static void set_vm(struct stk_iface *ifc, uint8_t host)
{
	char ip[32];

	memset(ifc, 0, sizeof(*ifc));
	ifc->mac = (struct rte_ether_addr){{0x52, 0x54, 0x00, 0x99, 0x00, host}};
	snprintf(ip, sizeof(ip), "10.99.0.%u", host);
	stk_ipaddr_parse(ip, &ifc->ip4);
	ifc->ip4_prefix = 24;
	ifc->mtu = 1500;
	ifc->exc_port_id = STK_NO_PORT;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rc_write_read_atomic),
		cmocka_unit_test(cm_reject_and_ud),
		cmocka_unit_test(nfs_rdma_full),
		cmocka_unit_test(rc_loss_recovery),
		cmocka_unit_test(cm_msgs),
		cmocka_unit_test(nfs_rdma_rpc_msgs),
		cmocka_unit_test(corruptions),
	};
	int rc;

	if (ut_eal_init("test_captures", "0") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("cap_pool", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool)
		return 1;
	set_vm(&vm[0], 2);
	set_vm(&vm[1], 3);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	ut_eal_fini();
	return rc;
}
