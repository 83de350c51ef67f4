/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_replay.c - Linux's loss recovery, replayed into droce's responder.
 *
 * tests/data/rc_loss_recovery.pcap holds three perftest runs between two rxe VMs with frames
 * dropped on purpose (see its README): ib_write_bw with 5 % loss (NAK-sequence-error and
 * go-back-N), ib_send_bw into 2 posted receives (RNR NAKs, retries after the RNR timer), and
 * ib_read_bw with loss (duplicate READ replay, a timeout retry). For each run, every frame the
 * requester (10.99.0.3) sent is fed, in capture order, into a droce RC QP playing the responder
 * (10.99.0.2); its destination QP and rkey are rewritten to droce's and its ICRC recomputed.
 * The answers droce sends must be of the same class (ACK, NAK-sequence-error, RNR NAK, READ
 * response) at the same PSNs as the answers Linux's responder sent, in the same order.
 *
 * Receive WQEs for the SEND run mirror the perftest server (rx depth 2): two at the start, and
 * topped up to two when the requester retransmits the PSN droce answered with an RNR NAK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_pkt.h"
#include "roce_psn.h"
#include "roce_verbs.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "ut_common.h"

#ifndef DATA_DIR
#error "DATA_DIR must point at tests/data"
#endif

#define MEMSZ (1u << 20)

static struct rte_mempool *pool;
static struct stk_lcore *lc;
static struct rte_ring *txr;
static struct roce_dev *dev;
static struct roce_pd *pd;
static struct roce_cq *cq;
static uint8_t *mem;
static struct roce_mr *mr;

struct frame {
	uint8_t *d;
	uint32_t len;
};

enum cls { C_ACK, C_NAK_SEQ, C_RNR, C_READ_RESP, C_OTHER };
static const char *const cls_name[] = {"ACK", "NAK-seq", "RNR-NAK", "READ-resp", "other"};

struct answer {
	enum cls c;
	uint32_t psn;
};

static unsigned load(const char *name, struct frame **out)
{
	char path[512];
	FILE *f;
	long sz;
	uint8_t *buf;
	unsigned n = 0;
	struct frame *fr = calloc(1024, sizeof(*fr));

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	for (long off = 24; off + 16 <= sz && n < 1024;) {
		uint32_t len;

		memcpy(&len, buf + off + 8, 4);
		fr[n].d = malloc(len);
		memcpy(fr[n].d, buf + off + 16, len);
		fr[n].len = len;
		n++;
		off += 16 + len;
	}
	free(buf);
	*out = fr;
	return n;
}

static bool decode(struct rte_mbuf *m, struct stk_pkt *p, struct roce_pkt *rp)
{
	return stk_parse(m, p) == 0 && p->dport == STK_ROCE_UDP_PORT &&
	       roce_pkt_parse(m, p, rp) == 0;
}

static struct answer classify(const struct roce_pkt *rp)
{
	struct answer a = {.c = C_OTHER, .psn = rp->psn};

	if (rp->op->flags & ROCE_OPF_READ) {
		a.c = C_READ_RESP;
	} else if (rp->opcode == ROCE_OP_RC_ACKNOWLEDGE) {
		uint8_t sy = roce_aeth_syndrome(roce_pkt_ext(rp, ROCE_EXT_AETH));

		if ((sy & ROCE_AETH_TYPE_MASK) == ROCE_AETH_ACK)
			a.c = C_ACK;
		else if ((sy & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR_NAK)
			a.c = C_RNR;
		else if (sy == (ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR))
			a.c = C_NAK_SEQ;
	}
	return a;
}

static void drain_answers(struct answer *out, unsigned *n, unsigned max)
{
	void *obj;

	stk_lcore_flush(lc);
	while (rte_ring_dequeue(txr, &obj) == 0) {
		struct rte_mbuf *m = obj;
		struct stk_pkt p;
		struct roce_pkt rp;

		if (decode(m, &p, &rp) && *n < max)
			out[(*n)++] = classify(&rp);
		rte_pktmbuf_free(m);
	}
}

static struct roce_qp *responder(uint32_t dest_qpn, uint32_t rq_psn)
{
	struct roce_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = ROCE_QPT_RC};
	struct roce_qp_attr a;
	struct roce_qp *qp;

	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 64;
	qp = roce_create_qp(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
						ROCE_QP_ACCESS_FLAGS),
			 0);
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = ROCE_MTU_1024; /* as rxe negotiated on a 1500-byte link */
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12; /* 0.64 ms, as in the capture's RNR NAKs */
	stk_ipaddr_parse("10.99.0.3", &a.ah_attr.dgid_ip);
	assert_int_equal(roce_modify_qp(qp, &a,
					ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
						ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
						ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER),
			 0);
	return qp;
}

static void post_recvs(struct roce_qp *qp, unsigned n)
{
	struct roce_sge sg = {.addr = (uintptr_t)mem, .length = 4096, .lkey = mr->lkey};
	struct roce_recv_wr r = {.sg_list = &sg, .num_sge = 1}, *bad;

	for (unsigned i = 0; i < n; i++)
		assert_int_equal(roce_post_recv(qp, &r, &bad), 0);
}

static bool from_requester(const struct frame *f)
{
	return f->len > 30 && f->d[14 + 15] == 3; /* IPv4 source 10.99.0.3 */
}

/*
 * Replay frames [first, last] (1-based, as in the capture's README) and compare answers.
 * @mirror_rq: keep two receives posted the way the perftest server did (SEND run).
 */
static void replay(unsigned first, unsigned last, bool mirror_rq)
{
	struct answer want[256], got[256];
	unsigned nwant = 0, ngot = 0, posted = 0, consumed = 0;
	uint32_t rq_psn = 0, dest_qpn = 0, last_rnr = UINT32_MAX;
	uint64_t va_min = UINT64_MAX;
	bool have_psn = false;
	struct roce_qp *qp;
	struct frame *fr;
	unsigned n = load("rc_loss_recovery.pcap", &fr), in_use = rte_mempool_in_use_count(pool);

	assert_true(last <= n);
	/* the requester's first PSN, its QPN (where the answers go) and the buffer it targets */
	for (unsigned i = first - 1; i < last; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct stk_pkt p;
		struct roce_pkt rp;

		memcpy(rte_pktmbuf_append(m, (uint16_t)fr[i].len), fr[i].d, fr[i].len);
		assert_true(decode(m, &p, &rp));
		if (from_requester(&fr[i])) {
			const struct roce_reth *r = roce_pkt_ext(&rp, ROCE_EXT_RETH);

			if (!have_psn || roce_psn_cmp(rp.psn, rq_psn) < 0)
				rq_psn = rp.psn;
			have_psn = true;
			if (r && roce_reth_va(r) < va_min)
				va_min = roce_reth_va(r);
		} else {
			dest_qpn = rp.dqpn;
			want[nwant++] = classify(&rp);
		}
		rte_pktmbuf_free(m);
	}
	assert_true(have_psn && dest_qpn && nwant > 0);
	if (va_min != UINT64_MAX) {
		assert_int_equal(roce_dereg_mr(mr), 0);
		mr = roce_reg_mr(pd, mem, MEMSZ, va_min, ROCE_ACCESS_ALL);
		assert_non_null(mr);
	}
	qp = responder(dest_qpn, rq_psn);
	if (mirror_rq) {
		post_recvs(qp, 2);
		posted = 2;
	} else {
		post_recvs(qp, 32);
	}
	for (unsigned i = first - 1; i < last; i++) {
		struct rte_mbuf *m;
		struct stk_pkt p;
		struct roce_pkt rp;
		struct roce_wc wc[8];
		int k;

		if (!from_requester(&fr[i]))
			continue;
		m = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(m, (uint16_t)fr[i].len), fr[i].d, fr[i].len);
		assert_true(decode(m, &p, &rp));
		roce_bth_set_dqpn(rp.bth, roce_qp_num(qp));
		if (roce_pkt_ext(&rp, ROCE_EXT_RETH)) {
			struct roce_reth *r = roce_pkt_ext(&rp, ROCE_EXT_RETH);

			roce_reth_set(r, roce_reth_va(r), mr->rkey, roce_reth_len(r));
		}
		roce_icrc_fill(m, p.l3_off, rp.bth_off, rp.payload_off + rp.payload_len + rp.pad);
		if (mirror_rq && rp.psn == last_rnr) {
			/* the server reposted while the requester waited out the RNR timer */
			while ((k = roce_poll_cq(cq, 8, wc)) > 0)
				consumed += (unsigned)k;
			if (posted - consumed < 2) {
				post_recvs(qp, 2 - (posted - consumed));
				posted += 2 - (posted - consumed);
			}
		}
		stk_input(lc, stk_iface_get(0), m);
		/* the device poll after the receive burst (here, of one frame) sends the ACK the
		 * responder holds for it, as the lcore loop does */
		roce_poll(lc, dev);
		drain_answers(got, &ngot, 256);
		for (unsigned a = 0; a < ngot; a++)
			if (got[a].c == C_RNR)
				last_rnr = got[a].psn;
	}
	/*
	 * The loss was injected on both paths before the capture point, so an answer Linux sent
	 * that the network then dropped is not in the file. Every answer the file shows must come
	 * from droce too, same class and PSN, in the same order; droce may have at most as many
	 * more as return-path loss explains (the capture's 5 %, rounded up generously to 15 %).
	 */
	{
		unsigned g = 0, extra = 0;

		for (unsigned a = 0; a < nwant; a++) {
			while (g < ngot && (got[g].c != want[a].c || got[g].psn != want[a].psn)) {
				print_message(
					"  droce also sent %s at PSN %u (lost on the way back "
					"in the capture?)\n",
					cls_name[got[g].c], got[g].psn);
				extra++;
				g++;
			}
			if (g == ngot)
				fail_msg(
					"Linux answered %s at PSN %u (answer %u of %u); droce never "
					"did after its answer %u",
					cls_name[want[a].c], want[a].psn, a + 1, nwant, g);
			g++;
		}
		extra += ngot - g;
		if (extra * 100 > nwant * 15 + 100)
			fail_msg("droce sent %u answers the capture does not show, of %u", extra,
				 ngot);
	}
	print_message("frames %u-%u: all %u answers Linux's responder sent are droce's too "
		      "(droce %u)\n",
		      first, last, nwant, ngot);
	{
		struct roce_wc wc[64];

		assert_int_equal(roce_destroy_qp(qp), 0);
		while (roce_poll_cq(cq, 64, wc) > 0)
			;
	}
	for (unsigned i = 0; i < n; i++)
		free(fr[i].d);
	free(fr);
	assert_int_equal(rte_mempool_in_use_count(pool), in_use);
}

static void write_with_loss(void **st)
{
	(void)st;
	replay(1, 190, false);
}

static void send_rnr(void **st)
{
	(void)st;
	replay(191, 238, true);
}

static void read_with_loss(void **st)
{
	(void)st;
	replay(239, 314, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_with_loss),
		cmocka_unit_test(send_rnr),
		cmocka_unit_test(read_with_loss),
	};
	struct stk_neigh_params np;
	struct rte_eth_conf conf;
	struct rte_ring *rxr;
	struct stk_iface ifc;
	struct stk_ipaddr peer;
	struct rte_ether_addr peer_mac = {{0x52, 0x54, 0x00, 0x99, 0x00, 0x03}};
	int port, rc;

	if (ut_eal_init("test_replay", "0") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("rp_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	rxr = rte_ring_create("rp_rx", 1024, 0, 0);
	txr = rte_ring_create("rp_tx", 16384, 0, 0);
	memset(&conf, 0, sizeof(conf));
	port = rte_eth_from_rings("rp_port", &rxr, 1, &txr, 1, 0);
	if (!pool || port < 0 || rte_eth_dev_configure((uint16_t)port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)port, 0, 512, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)port, 0, 512, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)port) != 0)
		return 1;
	/* droce plays VM A, the capture's responder */
	memset(&ifc, 0, sizeof(ifc));
	ifc.port_id = (uint16_t)port;
	ifc.exc_port_id = STK_NO_PORT;
	ifc.mac = (struct rte_ether_addr){{0x52, 0x54, 0x00, 0x99, 0x00, 0x02}};
	stk_ipaddr_parse("10.99.0.2", &ifc.ip4);
	ifc.ip4_prefix = 24;
	ifc.mtu = 1500;
	ifc.nb_rxq = ifc.nb_txq = 1;
	stk_iface_add(&ifc);
	stk_neigh_params_default(&np);
	lc = stk_lcore_create(rte_lcore_id(), 0, true, pool, &np);
	dev = roce_dev_open(0);
	pd = dev ? roce_alloc_pd(dev) : NULL;
	cq = dev ? roce_create_cq(dev, 1024) : NULL;
	mem = rte_zmalloc("rp_mem", MEMSZ, 64);
	if (!lc || !pd || !cq || !mem)
		return 1;
	mr = roce_reg_mr(pd, mem, MEMSZ, 0x1000, ROCE_ACCESS_ALL);
	/* this lcore owns the device from its first poll on; before it, frames would wait for
	 * that poll in the device's ring (frames are fed by stk_input(), the device is never
	 * polled otherwise) */
	roce_poll(lc, dev);
	/* VM B's MAC is known: no ARP to a host that is not there */
	stk_ipaddr_parse("10.99.0.3", &peer);
	stk_neigh_update(lc->neigh, 0, &peer, &peer_mac, rte_get_tsc_cycles(), true, NULL, NULL);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	roce_dereg_mr(mr);
	roce_destroy_cq(cq);
	roce_dealloc_pd(pd);
	roce_dev_close(dev);
	stk_lcore_destroy(lc);
	rte_free(mem);
	stk_iface_reset();
	ut_eal_fini();
	return rc;
}
