/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc_mbuf.c - zero copy with mbufs for the upper layers (issue 12 item 5), two RC QPs
 * back to back over net_ring (rc_fixture.c):
 * - send_from_chain: SEND and WRITE payloads taken from an mbuf chain of pool mbufs, an
 *   external buffer over plain memory, an indirect mbuf and a run of tiny segments (gathered),
 *   arrive byte-exact; the chain is freed once the WR completes (external buffer's free
 *   callback, the pool's count);
 * - recv_into_chain: a 64 KiB + 5 SEND taken as an mbuf chain, one segment per frame, each
 *   pointing into the sender's region (the frames' own buffers: not a byte copied), byte-exact;
 *   a 0-byte SEND and a one-packet SEND too;
 * - read_into_chain: an RDMA READ of 64 KiB + 13 whose response data comes as the frames' mbufs;
 * - refusals: what a post with ROCE_SEND_MBUF / ROCE_RECV_MBUF may not be, and that a refused
 *   post leaves the chain with the caller;
 * - too_long: a SEND longer than max_len completes LOC_LEN_ERR, its partial chain freed;
 * - chains_freed: chains held by queued WRs, by a half-received SEND, by a flushed READ, are
 *   freed on ERR (flush), on RESET and on destroy;
 * - lossy: SENDs from chains into chains and READs into chains with 2 % loss, duplication and
 *   reordering: byte-exact, every mbuf back;
 * - payload_cut: roce_mbuf_payload() on a frame of three segments, in place and, when a
 *   segment is shared, on a clone that leaves the original intact.
 * Every test ends with the pool's in-use count where it started.
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
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "rc_fixture.h"
#include "roce_engine.h" /* roce_mbuf_payload() */
#include "roce_int.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_impair.h"
#include "stk_lcore.h"

static unsigned ext_freed;

static void ext_free_cb(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
	ext_freed++;
}

/* A pool mbuf holding @len bytes of @src. */
static struct rte_mbuf *seg_copy(const uint8_t *src, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rcf_pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, len), src, len);
	return m;
}

static void chain_add(struct rte_mbuf **head, struct rte_mbuf *m)
{
	if (!*head)
		*head = m;
	else
		assert_int_equal(rte_pktmbuf_chain(*head, m), 0);
}

/*
 * The chain every send test uses, @len bytes of @src in: a pool mbuf (100 B), an external
 * buffer over @ext (a copy of the next 5000 B, freed through @shinfo), an empty pool mbuf, an
 * indirect mbuf over a pool mbuf (1500 B), twenty 7-byte pool mbufs, and pool mbufs of 1900 B
 * for the rest.
 */
static struct rte_mbuf *build_chain(const uint8_t *src, uint32_t len, uint8_t *ext,
				    struct rte_mbuf_ext_shared_info *shinfo)
{
	struct rte_mbuf *head = NULL, *m, *d;
	uint32_t at = 0;

	assert_true(len >= 100 + 5000 + 1500 + 140);
	chain_add(&head, seg_copy(src, 100));
	at = 100;
	memcpy(ext, src + at, 5000);
	shinfo->free_cb = ext_free_cb;
	shinfo->fcb_opaque = NULL;
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	m = rte_pktmbuf_alloc(rcf_pool);
	assert_non_null(m);
	rte_pktmbuf_attach_extbuf(m, ext, rte_malloc_virt2iova(ext), 5000, shinfo);
	rte_pktmbuf_append(m, 5000);
	chain_add(&head, m);
	at += 5000;
	m = rte_pktmbuf_alloc(rcf_pool); /* an empty segment: gives the frames nothing */
	assert_non_null(m);
	chain_add(&head, m);
	d = seg_copy(src + at, 1500);
	m = rte_pktmbuf_alloc(rcf_pool);
	assert_non_null(m);
	rte_pktmbuf_attach(m, d);
	rte_pktmbuf_free(d); /* the indirect mbuf holds the buffer now */
	chain_add(&head, m);
	at += 1500;
	for (int i = 0; i < 20; i++, at += 7)
		chain_add(&head, seg_copy(src + at, 7));
	while (at < len) {
		uint16_t n = (uint16_t)RTE_MIN(len - at, 1900u);

		chain_add(&head, seg_copy(src + at, n));
		at += n;
	}
	assert_int_equal(rte_pktmbuf_pkt_len(head), len);
	return head;
}

static int post_send_chain(int k, enum roce_wr_opcode op, uint64_t id, struct rte_mbuf *chain,
			   uint64_t raddr, uint32_t rkey)
{
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.send_flags = ROCE_SEND_SIGNALED | ROCE_SEND_MBUF;
	w.mbuf = chain;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return roce_post_send(rcf_s[k].qp, &w, &bad);
}

static int post_recv_mbuf(int k, uint64_t id, uint32_t max_len)
{
	struct roce_recv_wr r = {.wr_id = id, .flags = ROCE_RECV_MBUF, .max_len = max_len}, *bad;

	return roce_post_recv(rcf_s[k].qp, &r, &bad);
}

static int post_read_mbuf(int k, uint64_t id, uint32_t len, uint64_t raddr, uint32_t rkey,
			  uint32_t flags)
{
	struct roce_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = ROCE_WR_RDMA_READ;
	w.send_flags = flags | ROCE_SEND_MBUF;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	w.wr.rdma.length = len;
	return roce_post_send(rcf_s[k].qp, &w, &bad);
}

/* The chain holds exactly @len bytes equal to @want; @return its segment count. */
static unsigned chain_equals(const struct rte_mbuf *m, const uint8_t *want, uint32_t len)
{
	uint32_t at = 0;
	unsigned n = 0;

	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	for (; m; m = m->next, n++) {
		assert_true(at + m->data_len <= len);
		assert_memory_equal(rte_pktmbuf_mtod(m, const uint8_t *), want + at, m->data_len);
		at += m->data_len;
	}
	assert_int_equal(at, len);
	return n;
}

static unsigned pool_base;

static void begin(void)
{
	pool_base = rte_mempool_in_use_count(rcf_pool);
}

/* Every mbuf the test took is back. */
static void end(void)
{
	rcf_drive(50);
	assert_int_equal(rte_mempool_in_use_count(rcf_pool), pool_base);
}

static void send_from_chain(void **st)
{
	const uint32_t len = 9000; /* 9 packets at MTU 1024, crossing every kind of segment */
	uint8_t *ext = rte_malloc("ext", 5000, 64);
	struct rte_mbuf_ext_shared_info shinfo;
	uint64_t gathered = roce_tx_mbuf_gathered;
	struct roce_wc wc[2];
	(void)st;

	assert_non_null(ext);
	begin();
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[0].buf, len, 3);
	ext_freed = 0;
	/* SEND into an ordinary receive buffer */
	rcf_post_recv(1, 7, 1u << 20, len);
	assert_int_equal(post_send_chain(0, ROCE_WR_SEND, 8,
					 build_chain(rcf_s[0].buf, len, ext, &shinfo), 0, 0),
			 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_SEND);
	assert_int_equal(wc[0].byte_len, len);
	assert_null(wc[0].mbuf);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, len);
	assert_memory_equal(rcf_s[1].buf + (1u << 20), rcf_s[0].buf, len);
	/* the tiny segments were gathered, the rest pointed at */
	assert_true(roce_tx_mbuf_gathered > gathered);
	rcf_drive(20);
	assert_int_equal(ext_freed, 1); /* the QP let go of the chain */
	/* WRITE from a chain of other bytes into B's region */
	rcf_fill(rcf_s[0].buf, len, 4);
	assert_int_equal(post_send_chain(0, ROCE_WR_RDMA_WRITE, 9,
					 build_chain(rcf_s[0].buf, len, ext, &shinfo),
					 (uintptr_t)rcf_s[1].buf + (2u << 20), rcf_s[1].mr->rkey),
			 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_WRITE);
	assert_memory_equal(rcf_s[1].buf + (2u << 20), rcf_s[0].buf, len);
	rcf_disconnect_pair();
	assert_int_equal(ext_freed, 2);
	end();
	rte_free(ext);
}

static void recv_into_chain(void **st)
{
	const uint32_t len = 65536 + 5;
	const uint8_t *lo = rcf_s[0].buf, *hi = rcf_s[0].buf + RCF_BUF;
	struct roce_wc wc[2];
	unsigned segs;
	(void)st;

	begin();
	roce_copy_max = 0; /* A's frames attach its region: B's chain must point into it */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[0].buf, len, 11);
	assert_int_equal(post_recv_mbuf(1, 21, 1u << 20), 0);
	rcf_post(0, ROCE_WR_SEND, 22, 0, len, 0, 0);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV);
	assert_int_equal(wc[0].byte_len, len);
	segs = chain_equals(wc[0].mbuf, rcf_s[0].buf, len);
	/* one segment per frame, and each is the frame's own payload: over net_ring the
	 * sender's frames point into its region (zero copy), so B's chain does too */
	assert_int_equal(segs, (len + 1023) / 1024);
	for (const struct rte_mbuf *m = wc[0].mbuf; m; m = m->next)
		assert_true(rte_pktmbuf_mtod(m, const uint8_t *) >= lo &&
			    rte_pktmbuf_mtod(m, const uint8_t *) + m->data_len <= hi);
	assert_true(roce_mr_busy(rcf_s[0].mr)); /* the chain holds A's frames' references */
	rte_pktmbuf_free(wc[0].mbuf);
	assert_false(roce_mr_busy(rcf_s[0].mr));
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	/* with immediate, the last frame's header segment given back when its payload is kept:
	 * the immediate still comes from that frame's headers */
	assert_int_equal(post_recv_mbuf(1, 29, 1u << 20), 0);
	rcf_post(0, ROCE_WR_SEND_WITH_IMM, 30, 0, 3000, 0, 0);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_IMM);
	assert_int_equal(rte_be_to_cpu_32(wc[0].imm_data), 0xc0ffee00u + 30);
	assert_int_equal(chain_equals(wc[0].mbuf, rcf_s[0].buf, 3000), 3);
	rte_pktmbuf_free(wc[0].mbuf);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	/* the same with A's payloads copied into its frames (the default for up to 1 KiB): a
	 * chain of the frames' own buffers still, one segment per frame, cut to the payload */
	roce_copy_max = ROCE_COPY_MAX_DEFAULT;
	rcf_fill(rcf_s[0].buf, len, 13);
	assert_int_equal(post_recv_mbuf(1, 27, 1u << 20), 0);
	rcf_post(0, ROCE_WR_SEND, 28, 0, len, 0, 0);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(chain_equals(wc[0].mbuf, rcf_s[0].buf, len), (len + 1023) / 1024);
	for (const struct rte_mbuf *m = wc[0].mbuf; m; m = m->next)
		assert_false(rte_pktmbuf_mtod(m, const uint8_t *) >= lo &&
			     rte_pktmbuf_mtod(m, const uint8_t *) < hi);
	rte_pktmbuf_free(wc[0].mbuf);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	/* a 0-byte SEND: no chain; a one-packet SEND: one segment */
	assert_int_equal(post_recv_mbuf(1, 23, 4096), 0);
	assert_int_equal(post_recv_mbuf(1, 24, 4096), 0);
	rcf_post(0, ROCE_WR_SEND, 25, 0, 0, 0, 0);
	rcf_post(0, ROCE_WR_SEND, 26, 100, 333, 0, 0);
	assert_int_equal(rcf_wait_wc(1, wc, 2), 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 0);
	assert_null(wc[0].mbuf);
	assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
	assert_int_equal(chain_equals(wc[1].mbuf, rcf_s[0].buf + 100, 333), 1);
	rte_pktmbuf_free(wc[1].mbuf);
	assert_int_equal(rcf_wait_wc(0, wc, 2), 2);
	rcf_disconnect_pair();
	end();
}

static void read_into_chain(void **st)
{
	const uint32_t len = 65536 + 13;
	struct roce_wc wc[1];
	(void)st;

	begin();
	rcf_connect_pair(ROCE_MTU_4096, 7, 1);
	rcf_fill(rcf_s[1].buf + 4096, len, 12);
	assert_int_equal(post_read_mbuf(0, 31, len, (uintptr_t)rcf_s[1].buf + 4096,
					rcf_s[1].mr->rkey, ROCE_SEND_SIGNALED),
			 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_READ);
	assert_int_equal(wc[0].byte_len, len);
	assert_int_equal(chain_equals(wc[0].mbuf, rcf_s[1].buf + 4096, len), (len + 4095) / 4096);
	rte_pktmbuf_free(wc[0].mbuf);
	/* a READ of 0 bytes: no chain */
	assert_int_equal(post_read_mbuf(0, 32, 0, (uintptr_t)rcf_s[1].buf, rcf_s[1].mr->rkey,
					ROCE_SEND_SIGNALED),
			 0);
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_null(wc[0].mbuf);
	rcf_disconnect_pair();
	end();
}

static void refusals(void **st)
{
	struct rte_mbuf *m;
	struct roce_sge sg = {
		.addr = (uintptr_t)rcf_s[0].buf, .length = 8, .lkey = rcf_s[0].mr->lkey};
	struct roce_send_wr w, *bad;
	struct roce_recv_wr r, *rbad;
	(void)st;

	begin();
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	m = seg_copy(rcf_s[0].buf, 64);
	/* a SEND with mbufs: no SGEs, not inline, a chain required */
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_SEND;
	w.send_flags = ROCE_SEND_MBUF;
	w.mbuf = m;
	w.sg_list = &sg;
	w.num_sge = 1;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	w.num_sge = 0;
	w.send_flags = ROCE_SEND_MBUF | ROCE_SEND_INLINE;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	w.send_flags = ROCE_SEND_MBUF;
	w.mbuf = NULL;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	/* a chain whose segments do not add up to its pkt_len */
	w.mbuf = m;
	m->pkt_len = 65;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	m->pkt_len = 64;
	w.mbuf = NULL;
	/* atomics carry no payload chain */
	w.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	w.mbuf = m;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	/* a READ into mbufs: signaled (its completion carries the chain), no chain given */
	assert_int_equal(post_read_mbuf(0, 1, 64, (uintptr_t)rcf_s[1].buf, rcf_s[1].mr->rkey, 0),
			 -EINVAL);
	memset(&w, 0, sizeof(w));
	w.opcode = ROCE_WR_RDMA_READ;
	w.send_flags = ROCE_SEND_MBUF | ROCE_SEND_SIGNALED;
	w.mbuf = m;
	w.wr.rdma.length = 64;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	w.mbuf = NULL;
	w.wr.rdma.length = ROCE_MAX_MSG + 1;
	assert_int_equal(roce_post_send(rcf_s[0].qp, &w, &bad), -EINVAL);
	/* receives: no SGEs with ROCE_RECV_MBUF, max_len within a message, known flags */
	r = (struct roce_recv_wr){
		.flags = ROCE_RECV_MBUF, .max_len = 64, .sg_list = &sg, .num_sge = 1};
	assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &rbad), -EINVAL);
	r = (struct roce_recv_wr){.flags = ROCE_RECV_MBUF, .max_len = ROCE_MAX_MSG + 1};
	assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &rbad), -EINVAL);
	r = (struct roce_recv_wr){.flags = 0x80, .sg_list = &sg, .num_sge = 1};
	assert_int_equal(roce_post_recv(rcf_s[1].qp, &r, &rbad), -EINVAL);
	/* every refusal left the chain with us, untouched */
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 64);
	rte_pktmbuf_free(m);
	rcf_disconnect_pair();
	end();
}

static void too_long(void **st)
{
	struct roce_wc wc[1];
	(void)st;

	begin();
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[0].buf, 5000, 5);
	assert_int_equal(post_recv_mbuf(1, 41, 3000), 0);
	rcf_post(0, ROCE_WR_SEND, 42, 0, 5000, 0, 0);
	assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 41);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_LEN_ERR);
	assert_null(wc[0].mbuf);
	/* IBA 9.7.5.2.4: the requester is told, invalid request */
	assert_int_equal(rcf_wait_wc(0, wc, 1), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_INV_REQ_ERR);
	rcf_disconnect_pair();
	end();
}

static void chains_freed(void **st)
{
	struct roce_qp_attr err = {.qp_state = ROCE_QPS_ERR}, rst = {.qp_state = ROCE_QPS_RESET};
	uint8_t *ext = rte_malloc("ext", 5000, 64);
	struct rte_mbuf_ext_shared_info shinfo;
	struct roce_wc wc[8];
	struct roce_tx t;
	int n;
	(void)st;

	assert_non_null(ext);
	begin();
	/* queued, never sent (the QP only queues): RESET drops them, their chains freed */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(roce_dev_set_post_mode(rcf_s[0].dev, ROCE_POST_QUEUE), 0);
	ext_freed = 0;
	assert_int_equal(post_send_chain(0, ROCE_WR_SEND, 51,
					 build_chain(rcf_s[0].buf, 8000, ext, &shinfo), 0, 0),
			 0);
	assert_int_equal(roce_modify_qp(rcf_s[0].qp, &rst, ROCE_QP_STATE), 0);
	assert_int_equal(ext_freed, 1);
	rcf_disconnect_pair();
	/* queued: destroy drops them */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(post_send_chain(0, ROCE_WR_SEND, 52,
					 build_chain(rcf_s[0].buf, 8000, ext, &shinfo), 0, 0),
			 0);
	assert_int_equal(roce_destroy_qp(rcf_s[0].qp), 0);
	assert_int_equal(ext_freed, 2);
	rcf_s[0].qp = NULL;
	assert_int_equal(roce_destroy_qp(rcf_s[1].qp), 0);
	assert_int_equal(roce_dev_set_post_mode(rcf_s[0].dev, ROCE_POST_IMMEDIATE), 0);
	while (roce_poll_cq(rcf_s[0].cq, 8, wc) > 0 || roce_poll_cq(rcf_s[1].cq, 8, wc) > 0)
		;
	rcf_drive(50);
	/* queued and flushed by ERR; a SEND half received into a chain flushed with it; a READ
	 * into mbufs flushed */
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	assert_int_equal(post_recv_mbuf(1, 53, 1u << 20), 0);
	rcf_fill(rcf_s[0].buf, 1024, 6);
	memset(&t, 0, sizeof(t));
	t.opcode = ROCE_OP_RC_SEND_FIRST;
	t.dqpn = roce_qp_num(rcf_s[1].qp);
	t.psn = 0xfffff0; /* what B expects first */
	rcf_inject_to_b(&t, rcf_s[0].buf, 1024);
	assert_int_equal(rcf_s[1].qp->resp.recv_active, true);
	assert_non_null(rcf_s[1].qp->resp.rwqe.chain); /* B holds the first frame's mbufs */
	assert_int_equal(roce_dev_set_post_mode(rcf_s[0].dev, ROCE_POST_QUEUE), 0);
	assert_int_equal(post_send_chain(0, ROCE_WR_SEND, 54,
					 build_chain(rcf_s[0].buf, 8000, ext, &shinfo), 0, 0),
			 0);
	assert_int_equal(post_read_mbuf(0, 55, 5000, (uintptr_t)rcf_s[1].buf, rcf_s[1].mr->rkey,
					ROCE_SEND_SIGNALED),
			 0);
	assert_int_equal(roce_modify_qp(rcf_s[0].qp, &err, ROCE_QP_STATE), 0);
	assert_int_equal(roce_modify_qp(rcf_s[1].qp, &err, ROCE_QP_STATE), 0);
	assert_int_equal(ext_freed, 3);
	n = roce_poll_cq(rcf_s[0].cq, 8, wc);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, ROCE_WC_WR_FLUSH_ERR);
		assert_null(wc[i].mbuf);
	}
	n = roce_poll_cq(rcf_s[1].cq, 8, wc);
	assert_int_equal(n, 1);
	assert_int_equal(wc[0].wr_id, 53);
	assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	assert_null(wc[0].mbuf);
	assert_int_equal(roce_dev_set_post_mode(rcf_s[0].dev, ROCE_POST_IMMEDIATE), 0);
	rcf_disconnect_pair();
	end();
	rte_free(ext);
}

static void lossy(void **st)
{
	struct stk_impair_conf c = {
		.drop_ppm = 20000, .dup_ppm = 20000, .reorder_ppm = 20000, .roce_only = true};
	uint8_t *ext = rte_malloc("ext", 5000, 64);
	struct rte_mbuf_ext_shared_info shinfo[12];
	const uint32_t len = 20000;
	int sends = 0, reads = 0, recvs = 0;
	(void)st;

	assert_non_null(ext);
	begin();
	rcf_qp_timeout = 12;
	rcf_connect_pair(ROCE_MTU_1024, 7, 1);
	rcf_fill(rcf_s[0].buf, 12 * len, 21);
	rcf_fill(rcf_s[1].buf, 12 * len, 22);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, &c), 0);
	ext_freed = 0;
	for (int i = 0; i < 12; i++) {
		/* each chain's external buffer carries its 5000 bytes: 12 buffers in one area
		 * would not fit, so build each one's then wait for it before the next */
		assert_int_equal(post_recv_mbuf(1, 60 + (uint64_t)i, len), 0);
		assert_int_equal(post_send_chain(0, ROCE_WR_SEND, 70 + (uint64_t)i,
						 build_chain(rcf_s[0].buf + (size_t)i * len, len,
							     ext, &shinfo[i]),
						 0, 0),
				 0);
		assert_int_equal(post_read_mbuf(0, 80 + (uint64_t)i, len,
						(uintptr_t)rcf_s[1].buf + (size_t)i * len,
						rcf_s[1].mr->rkey, ROCE_SEND_SIGNALED),
				 0);
		for (int got = 0; got < 3;) {
			struct roce_wc wc[4];
			int n0 = rcf_wait_wc(0, wc, 1);

			assert_int_equal(n0, 1);
			assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
			if (wc[0].opcode == ROCE_WC_RDMA_READ) {
				chain_equals(wc[0].mbuf, rcf_s[1].buf + (size_t)i * len, len);
				rte_pktmbuf_free(wc[0].mbuf);
				reads++;
			} else {
				sends++;
			}
			got++;
			if (got == 2) {
				assert_int_equal(rcf_wait_wc(1, wc, 1), 1);
				assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
				assert_int_equal(wc[0].wr_id, 60 + (uint64_t)i);
				chain_equals(wc[0].mbuf, rcf_s[0].buf + (size_t)i * len, len);
				rte_pktmbuf_free(wc[0].mbuf);
				recvs++;
				got++;
			}
		}
		/* the external buffer is reused by the next chain: wait for every frame that
		 * points into it (a duplicate may still be queued) */
		for (int w = 0; w < 2000 && ext_freed < (unsigned)i + 1; w++)
			rcf_drive(1);
		assert_int_equal(ext_freed, (unsigned)i + 1);
	}
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(stk_impair_set(1, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(sends, 12);
	assert_int_equal(reads, 12);
	assert_int_equal(recvs, 12);
	rcf_qp_timeout = 10;
	rcf_disconnect_pair();
	end();
	rte_free(ext);
}

/* A frame of three segments: 60 header bytes + 40 payload | 1000 payload | 24 payload + 4 pad
 * and ICRC. */
static struct rte_mbuf *three_seg_frame(const uint8_t *src)
{
	struct rte_mbuf *m = seg_copy(src, 100);

	assert_int_equal(rte_pktmbuf_chain(m, seg_copy(src + 100, 1000)), 0);
	assert_int_equal(rte_pktmbuf_chain(m, seg_copy(src + 1100, 28)), 0);
	return m;
}

static void payload_cut(void **st)
{
	uint8_t src[1128];
	struct rte_mbuf *m, *p, *keep;
	(void)st;

	begin();
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	/* in place: the header segment's bytes and the trailer's go, three segments stay */
	m = three_seg_frame(src);
	p = roce_mbuf_payload(m, 60, 1064, rcf_pool);
	assert_int_equal(chain_equals(p, src + 60, 1064), 3);
	assert_int_equal(p->nb_segs, 3);
	rte_pktmbuf_free(p);
	/* the payload inside the middle segment only: the others are freed */
	m = three_seg_frame(src);
	p = roce_mbuf_payload(m, 150, 500, rcf_pool);
	assert_int_equal(chain_equals(p, src + 150, 500), 1);
	rte_pktmbuf_free(p);
	/* a shared segment: cut on a clone, the original frame untouched */
	m = three_seg_frame(src);
	keep = m;
	rte_pktmbuf_refcnt_update(keep, 1); /* every segment held twice */
	p = roce_mbuf_payload(m, 60, 1064, rcf_pool);
	assert_int_equal(chain_equals(p, src + 60, 1064), 3);
	assert_int_equal(chain_equals(keep, src, 1128), 3);
	assert_int_equal(keep->nb_segs, 3);
	rte_pktmbuf_free(p);
	for (const struct rte_mbuf *c = keep; c; c = c->next)
		assert_int_equal(rte_mbuf_refcnt_read(c), 1); /* the clone let go */
	rte_pktmbuf_free(keep);
	end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(send_from_chain), cmocka_unit_test(recv_into_chain),
		cmocka_unit_test(read_into_chain), cmocka_unit_test(refusals),
		cmocka_unit_test(too_long),	   cmocka_unit_test(chains_freed),
		cmocka_unit_test(lossy),	   cmocka_unit_test(payload_cut),
	};
	int rc;

	if (rcf_eal_init("test_rc_mbuf") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, rcf_group_setup, rcf_group_teardown);
	rte_eal_cleanup();
	return rc;
}
