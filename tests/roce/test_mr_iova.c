/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mr_iova.c - registration without per-packet lookups (issue 12 item 6), on the RC
 * fixture (rc_fixture.h: two interfaces over crossed net_ring ports, one lcore, both devices):
 *   - a region's IOVAs are resolved once, at registration: a 64-packet zero-copy WRITE looks
 *     none up (roce_tx_iova_lookups, iova_resolved), and every frame's payload segment carries
 *     the IOVA registration resolved;
 *   - a region whose pages are not IOVA-contiguous (its page table forged, as PA mode on
 *     scattered 4 KiB pages would give): a payload inside a page goes zero-copy with that
 *     page's IOVA, one across a discontinuity (or in a page without an IOVA) is copied; the
 *     bytes arrive either way;
 *   - ROCE_RESERVED_LKEY: an SGE over a mempool object or the rte_malloc heap needs no
 *     region, for sends (zero copy) and receives; over memory DPDK does not know it is refused
 *     at post time, and it is never an rkey (a WRITE naming it is a remote access error).
 * Frames are observed at the bottom, in the peer's net_ring RX ring, before any poll.
 * Teardown checks that the mempool and every verbs object are back to empty.
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

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rc_fixture.h"
#include "roce_int.h" /* roce_mr_dma(), the region's page table */
#include "roce_opcode.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define BTH_OFF (14 + 20 + 8)

static struct rte_ring *to_b;

static uint64_t resolved(int k)
{
	struct roce_dev_counts c;

	roce_dev_counts(rcf_s[k].dev, &c);
	return c.iova_resolved;
}

/* Connect, and resolve both MACs so that posts go out in the call (roce_post.c). */
static void connect_resolved(void)
{
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	for (int k = 0; k < 2; k++)
		stk_neigh_probe(rcf_lc, stk_iface_get((uint16_t)k),
				&stk_iface_get((uint16_t)!k)->ip4);
	rcf_drive(20);
	assert_int_equal(rte_ring_count(to_b), 0);
}

static void post_one(int k, enum roce_wr_opcode op, uint64_t id, const void *addr, uint32_t len,
		     uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct roce_sge sg = {.addr = (uintptr_t)addr, .length = len, .lkey = lkey};
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = ROCE_SEND_SIGNALED;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	assert_int_equal(roce_post_send(rcf_s[k].qp, &w, &bad), 0);
}

/* The frames waiting in @p r, looked at in order and put back. @p fn sees each. */
static void ring_each(struct rte_ring *r, void (*fn)(const struct rte_mbuf *m, void *arg),
		      void *arg)
{
	void *m[512];
	unsigned n = rte_ring_dequeue_burst(r, m, RTE_DIM(m), NULL);

	for (unsigned i = 0; i < n; i++)
		fn(m[i], arg);
	assert_int_equal(rte_ring_enqueue_bulk(r, m, n, NULL), n);
}

struct zc_seen {
	unsigned frames, zc;
	bool iova_ok;
	const struct roce_mr *mr;
};

/* A data frame: header mbuf, the payload attached from the region, the trailer. */
static void check_zc(const struct rte_mbuf *m, void *arg)
{
	struct zc_seen *s = arg;
	const struct rte_mbuf *p = m->next;
	uint64_t iova;

	s->frames++;
	if (m->nb_segs != 3 || !RTE_MBUF_HAS_EXTBUF(p))
		return;
	s->zc++;
	if (!roce_mr_dma(s->mr, rte_pktmbuf_mtod(p, const void *), p->data_len, &iova) ||
	    rte_pktmbuf_iova(p) != iova)
		s->iova_ok = false;
}

/* ------------------------------------------------------------------ resolved once */

static void resolved_at_registration(void **st)
{
	uint8_t *mem = rte_malloc("iova_test", 1u << 20, 4096);
	uint64_t r0 = resolved(0), l0;
	struct zc_seen s = {.iova_ok = true};
	struct roce_mr *mr;
	struct roce_wc wc;
	uint64_t iova;
	(void)st;

	assert_non_null(mem);
	mr = roce_reg_mr(rcf_s[0].pd, mem, 1u << 20, (uintptr_t)mem, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(resolved(0) - r0, 1); /* once, at registration */
	if (rte_eal_iova_mode() == RTE_IOVA_VA) {
		assert_true(roce_mr_dma(mr, mem + 12345, 4096, &iova));
		assert_int_equal(iova, (uintptr_t)mem + 12345);
	}
	connect_resolved();
	rcf_fill(mem, 64 * 1024, 5);
	l0 = roce_tx_iova_lookups;
	r0 = resolved(0);
	post_one(0, ROCE_WR_RDMA_WRITE, 1, mem, 64 * 1024, mr->lkey,
		 (uintptr_t)(rcf_s[1].buf + (4u << 20)), rcf_s[1].mr->rkey);
	s.mr = mr;
	ring_each(to_b, check_zc, &s); /* the first burst, before any poll */
	assert_int_equal(s.frames, 32);
	assert_int_equal(s.zc, 32);
	assert_true(s.iova_ok);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_memory_equal(rcf_s[1].buf + (4u << 20), mem, 64 * 1024);
	/* 64 zero-copy packets (and any resent) and not one IOVA lookup */
	assert_int_equal(roce_tx_iova_lookups, l0);
	assert_int_equal(resolved(0), r0);
	rcf_disconnect_pair();
	assert_int_equal(roce_dereg_mr_drain(mr, rcf_lc, 100), 0);
	rte_free(mem);
}

/* ------------------------------------------------------------------ per-page IOVAs */

static void per_page_table(void **st)
{
	uint8_t *mem = rte_malloc("iova_pages", 3 * 4096, 4096);
	struct zc_seen s = {.iova_ok = true};
	struct roce_mr *mr;
	struct roce_wc wc[2];
	uint64_t *pages, iova;
	(void)st;

	assert_non_null(mem);
	mr = roce_reg_mr(rcf_s[0].pd, mem, 3 * 4096, (uintptr_t)mem, ROCE_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	/* forge what PA mode gives on scattered pages: 0 and 1 adjacent, 2 elsewhere */
	pages = rte_malloc("iova_pages_tbl", 3 * sizeof(*pages), 0);
	assert_non_null(pages);
	pages[0] = 0x100000;
	pages[1] = 0x101000;
	pages[2] = 0x900000;
	mr->dma_pages = pages;
	mr->dma_npages = 3;
	mr->dma_shift = 12;
	mr->dma_base = UINT64_MAX;
	assert_true(roce_mr_dma(mr, mem + 100, 200, &iova));
	assert_int_equal(iova, 0x100000 + 100);
	assert_true(roce_mr_dma(mr, mem + 4000, 1000, &iova)); /* 0 -> 1: contiguous */
	assert_int_equal(iova, 0x100000 + 4000);
	assert_false(roce_mr_dma(mr, mem + 8000, 1000, &iova)); /* 1 -> 2: not */
	assert_true(roce_mr_dma(mr, mem + 8192 + 10, 100, &iova));
	assert_int_equal(iova, 0x900000 + 10);
	assert_false(roce_mr_dma(mr, mem + 3 * 4096 - 10, 100, &iova)); /* beyond the table */
	pages[2] = RTE_BAD_IOVA; /* a page the kernel gave no IOVA for: never attached */
	assert_false(roce_mr_dma(mr, mem + 8192 + 10, 100, &iova));
	pages[2] = 0x900000;

	connect_resolved();
	rcf_fill(mem, 3 * 4096, 6);
	post_one(0, ROCE_WR_RDMA_WRITE, 1, mem + 8192 + 10, 1000, mr->lkey,
		 (uintptr_t)(rcf_s[1].buf + (5u << 20)), rcf_s[1].mr->rkey);
	post_one(0, ROCE_WR_RDMA_WRITE, 2, mem + 8000, 1000, mr->lkey,
		 (uintptr_t)(rcf_s[1].buf + (5u << 20) + 4096), rcf_s[1].mr->rkey);
	s.mr = mr;
	ring_each(to_b, check_zc, &s);
	assert_int_equal(s.frames, 2);
	assert_int_equal(s.zc, 1); /* the one across pages 1 and 2 was copied */
	assert_true(s.iova_ok);
	assert_int_equal(rcf_wait_wc(0, wc, 2), 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
	assert_memory_equal(rcf_s[1].buf + (5u << 20), mem + 8192 + 10, 1000);
	assert_memory_equal(rcf_s[1].buf + (5u << 20) + 4096, mem + 8000, 1000);
	rcf_disconnect_pair();
	assert_int_equal(roce_dereg_mr_drain(mr, rcf_lc, 100), 0); /* frees the table */
	rte_free(mem);
}

/* ------------------------------------------------------------------ the reserved lkey */

static void reserved_lkey_mempool_and_heap(void **st)
{
	struct rte_mempool *mp = rte_mempool_create("iova_objs", 63, 4096, 0, 0, NULL, NULL, NULL,
						    NULL, SOCKET_ID_ANY, 0);
	uint8_t *heap = rte_zmalloc("iova_heap", 4096, 64);
	struct zc_seen s = {.iova_ok = true};
	struct roce_recv_wr r = {0}, *rbad;
	struct roce_sge rsg;
	struct roce_wc wc;
	void *obj;
	(void)st;

	assert_non_null(mp);
	assert_non_null(heap);
	assert_int_equal(rte_mempool_get(mp, &obj), 0);
	connect_resolved();
	/* B receives into the heap through the reserved key: no region of its own */
	rsg = (struct roce_sge){
		.addr = (uintptr_t)heap, .length = 4096, .lkey = ROCE_RESERVED_LKEY};
	memset(&r, 0, sizeof(r));
	r.wr_id = 8;
	r.sg_list = &rsg;
	r.num_sge = 1;
	assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &rbad), 0);
	/* A sends 3000 bytes of a mempool object, zero copy, without registering it */
	rcf_fill(obj, 3000, 7);
	post_one(0, ROCE_WR_SEND, 9, obj, 3000, ROCE_RESERVED_LKEY, 0, 0);
	s.mr = &rcf_s[0].dev->dma_mr;
	ring_each(to_b, check_zc, &s);
	assert_int_equal(s.frames, 3);
	assert_int_equal(s.zc, 3);
	assert_true(s.iova_ok);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 9);
	assert_int_equal(rcf_wait_wc(1, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 3000);
	assert_memory_equal(heap, obj, 3000);
	rcf_disconnect_pair();
	rcf_drive(20);
	rte_mempool_put(mp, obj);
	rte_mempool_free(mp);
	rte_free(heap);
}

static void reserved_lkey_refused(void **st)
{
	uint8_t *plain = malloc(8192);
	uint8_t onstack[64];
	struct roce_sge sg = {.length = 64, .lkey = ROCE_RESERVED_LKEY};
	struct roce_send_wr w, *bad;
	struct roce_wc wc;
	(void)st;

	assert_non_null(plain);
	connect_resolved();
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_SEND;
	w.sg_list = &sg;
	w.num_sge = 1;
	sg.addr = (uintptr_t)plain; /* memory DPDK does not know */
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	sg.addr = (uintptr_t)onstack;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	/* never an rkey: a WRITE naming it is a remote access error */
	post_one(0, ROCE_WR_RDMA_WRITE, 4, rcf_s[0].buf, 64, rcf_s[0].mr->lkey,
		 (uintptr_t)rcf_s[1].buf, ROCE_RESERVED_LKEY);
	assert_int_equal(rcf_wait_wc(0, &wc, 1), 1);
	assert_int_equal(wc.status, ROCE_WC_REM_ACCESS_ERR);
	rcf_disconnect_pair();
	free(plain);
}

static int setup(void **st)
{
	if (rcf_group_setup(st) != 0)
		return -1;
	to_b = rte_ring_lookup("rc_r1");
	return to_b ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolved_at_registration),
		cmocka_unit_test(per_page_table),
		cmocka_unit_test(reserved_lkey_mempool_and_heap),
		cmocka_unit_test(reserved_lkey_refused),
	};
	int rc;

	if (rcf_eal_init("test_mr_iova") < 0)
		return 1;
	/* these tests are about frames that point into regions: every payload attached, none
	 * copied (the transport copies payloads of up to 1 KiB by default, roce_copy_max) */
	roce_copy_max = 0;
	rc = cmocka_run_group_tests(tests, setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
