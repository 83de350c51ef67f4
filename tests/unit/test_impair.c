/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_impair.c - the impairment layer (stack/stk_impair.c) through the stack's own entry
 * points. Frames go in at the bottom and the tests compare what comes out at the top with what
 * went in, frame by frame:
 *
 *   TX: stk_tx_frame -> [impair TX] -> TX buffer -> [ring port "wire"] -> wire_tx   (observed)
 *   RX: wire_rx -> [ring port "wire"] -> stk_lcore_poll -> stk_input -> [impair RX]
 *       -> parse / classify -> bound UDP handler (observed), or a counted stack drop
 *
 * Test frames are IPv4/UDP datagrams from the peer to us on port 4791, built by hand in
 * ut_common.c (RFC 791/768, checksums from the tests' own RFC 1071 code), carrying a 32-bit
 * sequence number and a pattern derived from it, so every frame that comes out can be matched
 * with the one that went in and compared byte for byte.
 *
 * Rates. Each impairment alone at RATE (2 %) over N_RATE (50 000) frames must be observed
 * within BAND (0.4 percentage points) of its expectation. The decisions come from a seeded
 * generator, so a test gives the same result on every run; the bound is chosen so that it
 * does not depend on the particular seed either. For drop, dup, corrupt and delay the count is
 * Binomial(50 000, 0.02): mean 1000, standard deviation 31.3 frames. BAND is 200 frames, 6.4
 * standard deviations; by the Chernoff bound P(|X - 1000| >= 200) <= 2 exp(-200^2 / (3 * 1000))
 * < 4e-6 (the normal approximation says about 2e-10), so no seed we would ever pick breaks it
 * unless the generator or the decisions are biased, which is what the test is for. Reorder
 * holds a frame with probability p only when the previous frame was not held (its follower
 * must release it), so the share held is p / (1 + p) = 1.96 %; the held/not-held sequence is
 * a two-state Markov chain whose count is at least as concentrated as the binomial one.
 *
 * Every teardown turns the impairments off, destroys the lcore contexts (which frees delayed
 * and held frames), unbinds the UDP ports, drains the rings and checks that the mbuf pool is
 * back to its starting in-use count.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "stk_impair.h"
#include "stk_lcore.h"
#include "stk_stack.h"
#include "stk_stats.h"
#include "ut_common.h"

#define N_RATE 50000
#define RATE 20000 /* ppm: 2 % */
#define BAND 4000  /* ppm: 0.4 percentage points */
#define PAY_LEN 64
#define SEQ_OFF (14 + 20 + 8) /* the sequence number: first payload bytes, untagged */
#define BATCH 64	      /* frames between collections: the wire_tx ring holds 256 */
#define MAX_REC (N_RATE + N_RATE / 10)
#define REC_BYTES 160
#define OTHER_LCORE 1 /* a second EAL lcore, driven by hand from the main thread */

/* ---------------- the port, made once ---------------- */

static struct rte_ring *wire_rx, *wire_tx;
static uint16_t wire_port;

static int make_port(void)
{
	struct rte_eth_conf conf;
	int id;

	wire_rx = rte_ring_create("ut_imp_rx", 256, (int)rte_socket_id(), 0);
	wire_tx = rte_ring_create("ut_imp_tx", 256, (int)rte_socket_id(), 0);
	if (!wire_rx || !wire_tx)
		return -1;
	id = rte_eth_from_rings("ut_imp_wire", &wire_rx, 1, &wire_tx, 1, rte_socket_id());
	if (id < 0)
		return -1;
	wire_port = (uint16_t)id;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(wire_port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(wire_port, 0, 64, rte_socket_id(), NULL, ut_pool()) != 0 ||
	    rte_eth_tx_queue_setup(wire_port, 0, 64, rte_socket_id(), NULL) != 0 ||
	    rte_eth_dev_start(wire_port) != 0)
		return -1;
	return 0;
}

static void free_port(void)
{
	rte_eth_dev_stop(wire_port);
	rte_eth_dev_close(wire_port);
	rte_ring_free(wire_rx);
	rte_ring_free(wire_tx);
}

/* ---------------- what comes out ---------------- */

struct rec {
	uint64_t tsc; /**< when the test saw it */
	uint16_t len;
	uint8_t b[REC_BYTES];
	const struct stk_lcore *lc; /**< RX: the lcore whose handler got it */
};

static struct rec recs[MAX_REC];
static unsigned nrec;

static void record(const struct rte_mbuf *m, const struct stk_lcore *lc)
{
	struct rec *r;

	assert_true(nrec < MAX_REC);
	r = &recs[nrec++];
	r->tsc = rte_get_tsc_cycles();
	r->lc = lc;
	r->len = ut_mbuf_bytes(m, r->b, sizeof(r->b));
	assert_int_equal(r->len, rte_pktmbuf_pkt_len(m));
}

static uint32_t rec_seq(unsigned i)
{
	return ut_get32(recs[i].b + SEQ_OFF);
}

/* The bound UDP handler: records the whole frame and takes it. */
static int rx_hook(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	record(m, lc);
	rte_pktmbuf_free(m);
	return 0;
}

/* ---------------- per-test fixture ---------------- */

static struct {
	unsigned in_use;
	struct stk_lcore *lc;
	const struct stk_iface *ifc;
} fx;

static int setup(void **state)
{
	struct stk_neigh_params np;
	struct stk_iface ifc;
	int idx;

	memset(&fx, 0, sizeof(fx));
	nrec = 0;
	fx.in_use = ut_in_use();
	ut_iface_default(&ifc);
	ifc.port_id = wire_port;
	idx = stk_iface_add(&ifc);
	if (idx != 0)
		return -1;
	fx.ifc = stk_iface_get(0);
	stk_neigh_params_default(&np);
	np.retrans_ms = 600000;
	np.reachable_ms = 3600000;
	fx.lc = stk_lcore_create(rte_lcore_id(), 0, false, ut_pool(), &np);
	if (!fx.lc)
		return -1;
	fx.lc->rxq[0].iface = 0;
	fx.lc->rxq[0].port_id = wire_port;
	fx.lc->rxq[0].queue = 0;
	fx.lc->nb_rxq = 1;
	if (stk_udp_bind(STK_ROCE_UDP_PORT, rx_hook, NULL) != 0 ||
	    stk_udp_bind(5000, rx_hook, NULL) != 0)
		return -1;
	return 0;
}

static void drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static int teardown(void **state)
{
	for (uint16_t i = 0; i < STK_MAX_PORTS; i++) {
		assert_int_equal(stk_impair_set(i, STK_IMPAIR_RX, NULL), 0);
		assert_int_equal(stk_impair_set(i, STK_IMPAIR_TX, NULL), 0);
	}
	stk_lcore_destroy(fx.lc);
	stk_lcore_destroy(stk_lcore_get(OTHER_LCORE));
	stk_iface_reset();
	stk_udp_unbind(STK_ROCE_UDP_PORT);
	stk_udp_unbind(5000);
	drain(wire_rx);
	drain(wire_tx);
	assert_int_equal(ut_in_use(), fx.in_use);
	return 0;
}

/* ---------------- helpers ---------------- */

static uint64_t cnt(enum stk_counter c)
{
	return fx.lc->stats[fx.ifc->idx].c[c];
}

static uint64_t drops(enum stk_drop d)
{
	return fx.lc->stats[fx.ifc->idx].drop[d];
}

static const enum stk_counter impair_counters[] = {
	STK_CNT_impair_dropped,	  STK_CNT_impair_duplicated, STK_CNT_impair_reordered,
	STK_CNT_impair_corrupted, STK_CNT_impair_delayed,    STK_CNT_impair_delay_full,
};

static uint64_t impair_total(void)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < RTE_DIM(impair_counters); i++)
		t += cnt(impair_counters[i]);
	return t;
}

/* Frame number @seq: peer -> us, UDP to @dport, 802.1Q tag @tci (-1: none). */
static uint16_t frame_tagged(uint8_t *b, uint32_t seq, uint16_t dport, int tci)
{
	uint8_t pay[PAY_LEN];
	struct ut_ip ip;
	struct ut_off o;

	ut_put32(pay, seq);
	for (unsigned i = 4; i < PAY_LEN; i++)
		pay[i] = (uint8_t)(seq * 7 + i);
	ut_ip_default(&ip, 4, 17);
	ip.tci = tci;
	return ut_frame_udp(b, &ip, 49152, dport, pay, PAY_LEN, false, &o);
}

static uint16_t frame(uint8_t *b, uint32_t seq)
{
	return frame_tagged(b, seq, STK_ROCE_UDP_PORT, -1);
}

static void tx_seq(struct stk_lcore *lc, uint32_t seq)
{
	uint8_t b[UT_FRAME_MAX];
	struct rte_mbuf *m = ut_mbuf(b, frame(b, seq));

	assert_non_null(m);
	stk_tx_frame(lc, fx.ifc, m);
}

/* Flush the TX buffer and record what reached the wire. */
static void collect_tx(void)
{
	struct rte_mbuf *m;

	stk_lcore_flush(fx.lc);
	while (rte_ring_dequeue(wire_tx, (void **)&m) == 0) {
		record(m, NULL);
		rte_pktmbuf_free(m);
	}
}

static void rx_enqueue(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);

	assert_non_null(m);
	assert_int_equal(rte_ring_enqueue(wire_rx, m), 0);
}

/* Run the loop until the wire's RX ring is empty. */
static void rx_poll(void)
{
	while (rte_ring_count(wire_rx))
		stk_lcore_poll(fx.lc);
}

/* Frames 0..n-1 through direction @dir, recording what comes out. */
static void run(enum stk_impair_dir dir, uint32_t n)
{
	uint8_t b[UT_FRAME_MAX];

	for (uint32_t seq = 0; seq < n; seq++) {
		if (dir == STK_IMPAIR_TX)
			tx_seq(fx.lc, seq);
		else
			rx_enqueue(b, frame(b, seq));
		if (seq % BATCH == BATCH - 1 || seq == n - 1) {
			if (dir == STK_IMPAIR_TX)
				collect_tx();
			else
				rx_poll();
		}
	}
}

/* Drive the loop until @want frames were recorded or @us microseconds passed. */
static void settle(unsigned want, uint64_t us)
{
	uint64_t end = rte_get_tsc_cycles() + us * rte_get_tsc_hz() / 1000000;

	while (nrec < want && rte_get_tsc_cycles() < end) {
		stk_lcore_poll(fx.lc);
		collect_tx();
	}
}

static uint64_t us_to_tsc(uint64_t us)
{
	return us * rte_get_tsc_hz() / 1000000;
}

/* @count of @n frames is within BAND of @expect_ppm (see the file comment). */
static void check_rate(const char *what, uint64_t count, uint32_t n, double expect_ppm)
{
	double got = (double)count * 1e6 / n;

	if (got < expect_ppm - BAND || got > expect_ppm + BAND)
		fail_msg("%s: %" PRIu64 " of %u frames is %.0f ppm, expected %.0f +- %d", what,
			 count, n, got, expect_ppm, BAND);
}

/* Bits in which @a and @b differ; *off / *bit: the last differing byte and bit. */
static unsigned bitdiff(const uint8_t *a, const uint8_t *b, unsigned len, int *off, int *bit)
{
	unsigned n = 0;

	*off = *bit = -1;
	for (unsigned i = 0; i < len; i++) {
		uint8_t x = a[i] ^ b[i];

		for (int k = 0; k < 8; k++) {
			if (x & (1u << k)) {
				n++;
				*off = (int)i;
				*bit = k;
			}
		}
	}
	return n;
}

/* Record @i is frame @seq, unchanged. */
static void check_intact(unsigned i, uint32_t seq)
{
	uint8_t b[UT_FRAME_MAX];
	uint16_t len = frame(b, seq);

	assert_int_equal(recs[i].len, len);
	if (memcmp(recs[i].b, b, len) != 0)
		fail_msg("output %u is not frame %u as it was sent", i, seq);
}

static struct stk_impair_conf conf_rate(uint32_t *field_of(struct stk_impair_conf *))
{
	struct stk_impair_conf c;

	memset(&c, 0, sizeof(c));
	*field_of(&c) = RATE;
	c.seed = 42;
	return c;
}

/* ---------------- off ---------------- */

static void check_pass_through(void)
{
	/* TX: every frame, in order, as it was */
	nrec = 0;
	run(STK_IMPAIR_TX, 300);
	assert_int_equal(nrec, 300);
	for (unsigned i = 0; i < nrec; i++)
		check_intact(i, i);
	/* RX: every frame reaches the handler */
	nrec = 0;
	run(STK_IMPAIR_RX, 300);
	assert_int_equal(nrec, 300);
	for (unsigned i = 0; i < nrec; i++)
		check_intact(i, i);
}

static void test_off_no_effect(void **state)
{
	struct stk_impair_conf c;

	/* never set: no state at all, so the hooks have nothing to look at */
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		assert_null(fx.lc->impair[i][STK_IMPAIR_RX]);
		assert_null(fx.lc->impair[i][STK_IMPAIR_TX]);
	}
	assert_int_equal(fx.lc->nb_impair, 0);
	check_pass_through();
	assert_int_equal(impair_total(), 0);

	/* all rates zero is off, whatever else is set */
	memset(&c, 0, sizeof(c));
	c.seed = 7;
	c.roce_only = true;
	c.delay_us = 100;
	assert_false(stk_impair_conf_on(&c));
	assert_false(stk_impair_conf_on(NULL));
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	assert_null(fx.lc->impair[0][STK_IMPAIR_RX]);
	assert_null(fx.lc->impair[0][STK_IMPAIR_TX]);
	assert_int_equal(fx.lc->nb_impair, 0);

	/* on, then off again with NULL */
	c.drop_ppm = STK_IMPAIR_PPM;
	assert_true(stk_impair_conf_on(&c));
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	assert_non_null(fx.lc->impair[0][STK_IMPAIR_RX]);
	assert_non_null(fx.lc->impair[0][STK_IMPAIR_TX]);
	assert_int_equal(fx.lc->nb_impair, 2);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, NULL), 0);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_null(fx.lc->impair[0][STK_IMPAIR_RX]);
	assert_null(fx.lc->impair[0][STK_IMPAIR_TX]);
	assert_int_equal(fx.lc->nb_impair, 0);
	check_pass_through();
	assert_int_equal(impair_total(), 0);
	assert_int_equal(cnt(STK_CNT_drops), 0);
}

/* n frames, seq first..first+n-1, handed to stk_tx_frames() at once */
static void tx_frames_seq(uint32_t first, unsigned n)
{
	struct rte_mbuf *ms[300];
	uint8_t b[UT_FRAME_MAX];

	assert_true(n <= RTE_DIM(ms));
	for (unsigned i = 0; i < n; i++) {
		ms[i] = ut_mbuf(b, frame(b, first + i));
		assert_non_null(ms[i]);
	}
	stk_tx_frames(fx.lc, fx.ifc, ms, n);
}

/* stk_tx_frames: in order after what the TX buffer holds, counted; a full queue is a counted
 * drop; an impairment sees every frame as stk_tx_frame would give it */
static void test_tx_frames(void **state)
{
	uint8_t b[UT_FRAME_MAX];
	uint16_t len = frame(b, 0);
	struct stk_impair_conf c;
	unsigned cap;

	/* three frames wait in the TX buffer; the burst goes out after them */
	for (uint32_t seq = 0; seq < 3; seq++)
		tx_seq(fx.lc, seq);
	assert_int_equal(rte_ring_count(wire_tx), 0);
	tx_frames_seq(3, 5);
	assert_int_equal(rte_ring_count(wire_tx), 8);
	collect_tx();
	assert_int_equal(nrec, 8);
	for (unsigned i = 0; i < nrec; i++)
		check_intact(i, i);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 8);
	assert_int_equal(cnt(STK_CNT_tx_bytes), 8u * len);
	assert_int_equal(cnt(STK_CNT_drops), 0);

	/* more than the queue takes: the rest are dropped, counted, and the pool gets them back
	 * (teardown checks the in-use count) */
	nrec = 0;
	cap = rte_ring_free_count(wire_tx);
	tx_frames_seq(100, cap + 20);
	assert_int_equal(rte_ring_count(wire_tx), cap);
	collect_tx();
	assert_int_equal(nrec, cap);
	for (unsigned i = 0; i < nrec; i++)
		check_intact(i, 100 + i);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 8 + cap);
	assert_int_equal(cnt(STK_CNT_tx_bytes), (8u + cap) * len);
	assert_int_equal(drops(STK_DROP_TX_FULL), 20);
	assert_int_equal(cnt(STK_CNT_drops), 20);

	/* with a TX impairment every frame goes through it: all dropped here */
	memset(&c, 0, sizeof(c));
	c.drop_ppm = STK_IMPAIR_PPM;
	c.seed = 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	nrec = 0;
	tx_frames_seq(1000, 10);
	collect_tx();
	assert_int_equal(nrec, 0);
	assert_int_equal(cnt(STK_CNT_impair_dropped), 10);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 8 + cap);
}

static void test_set_errors(void **state)
{
	struct stk_impair_conf c;

	memset(&c, 0, sizeof(c));
	c.drop_ppm = 1;
	assert_int_equal(stk_impair_set(STK_MAX_PORTS, STK_IMPAIR_RX, &c), -EINVAL);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_NUM_DIRS, &c), -EINVAL);
	assert_int_equal(stk_impair_set(0, (enum stk_impair_dir) - 1, &c), -EINVAL);
	c.drop_ppm = STK_IMPAIR_PPM + 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), -EINVAL);
	c.drop_ppm = 0;
	c.corrupt_ppm = STK_IMPAIR_PPM + 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), -EINVAL);
	c.corrupt_ppm = 0;
	c.delay_ppm = 1; /* a delay needs a time */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), -EINVAL);
	c.delay_us = STK_IMPAIR_MAX_DELAY_US + 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), -EINVAL);
	/* refused settings leave nothing behind */
	assert_null(fx.lc->impair[0][STK_IMPAIR_RX]);
	assert_null(fx.lc->impair[0][STK_IMPAIR_TX]);
	assert_int_equal(fx.lc->nb_impair, 0);
	/* the edges are valid */
	c.delay_us = STK_IMPAIR_MAX_DELAY_US;
	c.drop_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	c.delay_us = 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	/* an interface that does not exist (yet) may be set; the loop does not trip on it */
	assert_int_equal(stk_impair_set(STK_MAX_PORTS - 1, STK_IMPAIR_RX, &c), 0);
	assert_non_null(fx.lc->impair[STK_MAX_PORTS - 1][STK_IMPAIR_RX]);
	assert_int_equal(fx.lc->nb_impair, 2);
	stk_lcore_poll(fx.lc);
}

/* ---------------- rates ---------------- */

static uint32_t *f_drop(struct stk_impair_conf *c)
{
	return &c->drop_ppm;
}

static uint32_t *f_dup(struct stk_impair_conf *c)
{
	return &c->dup_ppm;
}

static uint32_t *f_corrupt(struct stk_impair_conf *c)
{
	return &c->corrupt_ppm;
}

static uint32_t *f_reorder(struct stk_impair_conf *c)
{
	return &c->reorder_ppm;
}

/* Drop alone: what comes out is the sent frames minus some, in order and intact. */
static void rate_drop(enum stk_impair_dir dir)
{
	struct stk_impair_conf c = conf_rate(f_drop);
	uint32_t next = 0;

	assert_int_equal(stk_impair_set(0, dir, &c), 0);
	run(dir, N_RATE);
	for (unsigned i = 0; i < nrec; i++) {
		uint32_t seq = rec_seq(i);

		assert_true(seq >= next && seq < N_RATE);
		check_intact(i, seq);
		next = seq + 1;
	}
	assert_int_equal(cnt(STK_CNT_impair_dropped), N_RATE - nrec);
	check_rate("drop", N_RATE - nrec, N_RATE, RATE);
	/* the other impairments did nothing, and the stack saw only the survivors */
	assert_int_equal(impair_total(), N_RATE - nrec);
	assert_int_equal(cnt(STK_CNT_drops), 0);
	if (dir == STK_IMPAIR_TX) {
		assert_int_equal(cnt(STK_CNT_tx_pkts), nrec);
	} else {
		assert_int_equal(cnt(STK_CNT_rx_pkts), nrec);
		assert_int_equal(cnt(STK_CNT_udp_delivered), nrec);
	}
}

static void test_rate_drop_tx(void **state)
{
	rate_drop(STK_IMPAIR_TX);
}

static void test_rate_drop_rx(void **state)
{
	rate_drop(STK_IMPAIR_RX);
}

/* Duplicate alone: each frame once or twice, a copy right after its original, identical. */
static void rate_dup(enum stk_impair_dir dir)
{
	struct stk_impair_conf c = conf_rate(f_dup);
	uint32_t next = 0;
	unsigned dups = 0;

	assert_int_equal(stk_impair_set(0, dir, &c), 0);
	run(dir, N_RATE);
	for (unsigned i = 0; i < nrec; i++) {
		uint32_t seq = rec_seq(i);

		check_intact(i, seq);
		if (i > 0 && seq + 1 == next) {
			dups++; /* the same frame again: its copy */
			assert_true(i < 2 || rec_seq(i - 2) != seq);
			continue;
		}
		assert_int_equal(seq, next);
		next++;
	}
	assert_int_equal(next, N_RATE);
	assert_int_equal(nrec, N_RATE + dups);
	assert_int_equal(cnt(STK_CNT_impair_duplicated), dups);
	assert_int_equal(impair_total(), dups);
	check_rate("dup", dups, N_RATE, RATE);
}

static void test_rate_dup_tx(void **state)
{
	rate_dup(STK_IMPAIR_TX);
}

static void test_rate_dup_rx(void **state)
{
	rate_dup(STK_IMPAIR_RX);
}

/* Corrupt alone (TX: the stack would drop corrupted frames on RX): every frame, in order,
 * intact or with exactly one bit flipped after the Ethernet header. */
static void test_rate_corrupt_tx(void **state)
{
	struct stk_impair_conf c = conf_rate(f_corrupt);
	unsigned corrupted = 0;

	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	run(STK_IMPAIR_TX, N_RATE);
	assert_int_equal(nrec, N_RATE);
	for (unsigned i = 0; i < nrec; i++) {
		uint8_t b[UT_FRAME_MAX];
		uint16_t len = frame(b, i);
		int off, bit;
		unsigned d;

		assert_int_equal(recs[i].len, len);
		d = bitdiff(recs[i].b, b, len, &off, &bit);
		assert_true(d <= 1);
		if (d == 1) {
			assert_true(off >= 14);
			corrupted++;
		}
	}
	assert_int_equal(cnt(STK_CNT_impair_corrupted), corrupted);
	assert_int_equal(impair_total(), corrupted);
	check_rate("corrupt", corrupted, N_RATE, RATE);
}

/* Reorder alone: every frame once; the only disorder is a frame swapped with the next. */
static void test_rate_reorder_tx(void **state)
{
	struct stk_impair_conf c = conf_rate(f_reorder);
	unsigned swaps = 0, i = 0;
	uint32_t expect = 0;

	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	run(STK_IMPAIR_TX, N_RATE);
	/* the last frame may be held, with no follower: the loop lets it go after the bound */
	settle(N_RATE, 1000000);
	assert_int_equal(nrec, N_RATE);
	while (i < nrec) {
		if (rec_seq(i) == expect) {
			check_intact(i, expect);
			i++;
			expect++;
			continue;
		}
		/* expect + 1 went first, expect right after it */
		assert_true(i + 1 < nrec);
		assert_int_equal(rec_seq(i), expect + 1);
		assert_int_equal(rec_seq(i + 1), expect);
		check_intact(i, expect + 1);
		check_intact(i + 1, expect);
		swaps++;
		i += 2;
		expect += 2;
	}
	assert_int_equal(expect, N_RATE);
	/* a held last frame counts as reordered though it ended up in order */
	assert_true(cnt(STK_CNT_impair_reordered) == swaps ||
		    cnt(STK_CNT_impair_reordered) == swaps + 1u);
	assert_int_equal(impair_total(), cnt(STK_CNT_impair_reordered));
	check_rate("reorder", cnt(STK_CNT_impair_reordered), N_RATE, RATE / (1.0 + RATE / 1e6));
}

/* Delay alone: the delayed frames are missing from what goes out at once, and come out later,
 * no earlier than the delay after they were sent. */
static void test_rate_delay_tx(void **state)
{
	enum { B = 50, DELAY_US = 100 };
	static uint64_t sent_at[N_RATE];
	struct stk_impair_conf c;
	uint64_t delay = us_to_tsc(DELAY_US);
	unsigned delayed = 0;

	memset(&c, 0, sizeof(c));
	c.delay_ppm = RATE;
	c.delay_us = DELAY_US;
	c.seed = 42;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	for (uint32_t first = 0; first < N_RATE; first += B) {
		bool seen[B] = {false};
		unsigned prompt;

		nrec = 0;
		for (uint32_t seq = first; seq < first + B; seq++) {
			sent_at[seq] = rte_get_tsc_cycles();
			tx_seq(fx.lc, seq);
		}
		/* no loop iteration yet: nothing delayed can have come out */
		collect_tx();
		prompt = nrec;
		for (unsigned i = 0; i < prompt; i++) {
			uint32_t seq = rec_seq(i);

			assert_true(seq >= first && seq < first + B);
			assert_false(seen[seq - first]);
			seen[seq - first] = true;
			check_intact(i, seq);
		}
		/* the loop releases the rest */
		settle(B, 1000000);
		assert_int_equal(nrec, B);
		for (unsigned i = prompt; i < nrec; i++) {
			uint32_t seq = rec_seq(i);

			assert_true(seq >= first && seq < first + B);
			assert_false(seen[seq - first]);
			seen[seq - first] = true;
			check_intact(i, seq);
			if (recs[i].tsc - sent_at[seq] < delay)
				fail_msg("frame %u came out %" PRIu64 " cycles after it was sent, "
					 "before the delay of %" PRIu64,
					 seq, recs[i].tsc - sent_at[seq], delay);
		}
		delayed += B - prompt;
	}
	assert_int_equal(cnt(STK_CNT_impair_delayed), delayed);
	assert_int_equal(cnt(STK_CNT_impair_delay_full), 0);
	assert_int_equal(impair_total(), delayed);
	assert_int_equal(cnt(STK_CNT_tx_pkts), N_RATE);
	check_rate("delay", delayed, N_RATE, RATE);
}

/* ---------------- reproducibility ---------------- */

#define SEED_N 5000

/* Which of SEED_N frames survive 10 % RX drop with @seed on @lc. */
static void drop_pattern(struct stk_lcore *lc, enum stk_impair_dir dir, uint64_t seed,
			 uint8_t *kept)
{
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	unsigned n = 0;

	memset(&c, 0, sizeof(c));
	c.drop_ppm = 100000;
	c.seed = seed;
	assert_int_equal(stk_impair_set(0, dir, &c), 0);
	memset(kept, 0, SEED_N);
	nrec = 0;
	for (uint32_t seq = 0; seq < SEED_N; seq++) {
		if (dir == STK_IMPAIR_RX) {
			struct rte_mbuf *m = ut_mbuf(b, frame(b, seq));

			assert_non_null(m);
			stk_input(lc, fx.ifc, m);
		} else {
			tx_seq(lc, seq);
			if (seq % BATCH == BATCH - 1)
				collect_tx();
		}
	}
	collect_tx();
	for (unsigned i = 0; i < nrec; i++) {
		assert_true(rec_seq(i) < SEED_N);
		assert_true(dir == STK_IMPAIR_TX || recs[i].lc == lc);
		kept[rec_seq(i)] = 1;
		n++;
	}
	/* a pattern worth comparing: about 10 % gone (sd 21 frames) */
	assert_true(n > SEED_N * 85 / 100 && n < SEED_N * 95 / 100);
	assert_int_equal(stk_impair_set(0, dir, NULL), 0);
}

static unsigned differ(const uint8_t *a, const uint8_t *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SEED_N; i++)
		n += a[i] != b[i];
	return n;
}

static void test_seed_reproducible(void **state)
{
	static uint8_t a[SEED_N], b[SEED_N], c[SEED_N], d[SEED_N], e[SEED_N];
	struct stk_neigh_params np;
	struct stk_impair_conf on;
	struct stk_lcore *other;

	drop_pattern(fx.lc, STK_IMPAIR_RX, 42, a);
	drop_pattern(fx.lc, STK_IMPAIR_RX, 42, b);
	assert_memory_equal(a, b, SEED_N);
	/* two independent 10 % patterns differ in about 900 of 5000 frames */
	drop_pattern(fx.lc, STK_IMPAIR_RX, 43, c);
	assert_true(differ(a, c) > 500);
	/* the other direction has its own stream */
	drop_pattern(fx.lc, STK_IMPAIR_TX, 42, d);
	assert_true(differ(a, d) > 500);

	/* so does another lcore; a setting made earlier reaches a context made later */
	memset(&on, 0, sizeof(on));
	on.drop_ppm = 1;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &on), 0);
	stk_neigh_params_default(&np);
	other = stk_lcore_create(OTHER_LCORE, 1, false, ut_pool(), &np);
	assert_non_null(other);
	assert_non_null(other->impair[0][STK_IMPAIR_RX]);
	assert_null(other->impair[0][STK_IMPAIR_TX]);
	assert_int_equal(other->nb_impair, 1);
	drop_pattern(other, STK_IMPAIR_RX, 42, e);
	assert_true(differ(a, e) > 500);
	/* and a setting made later reaches both; off again for both */
	assert_null(other->impair[0][STK_IMPAIR_RX]);
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &on), 0);
	assert_non_null(other->impair[0][STK_IMPAIR_TX]);
	assert_non_null(fx.lc->impair[0][STK_IMPAIR_TX]);
	/* the counters are the lcore's own */
	assert_int_equal(other->stats[0].c[STK_CNT_impair_dropped], SEED_N - (unsigned)nrec);
	stk_lcore_destroy(other);
}

/* ---------------- each impairment's effect ---------------- */

static void test_dup_identical_copies(void **state)
{
	struct stk_impair_conf c;
	struct rte_mbuf *m[2];

	/* every frame doubled: two separate buffers with the same bytes */
	memset(&c, 0, sizeof(c));
	c.dup_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	for (uint32_t seq = 0; seq < 50; seq++) {
		tx_seq(fx.lc, seq);
		stk_lcore_flush(fx.lc);
		assert_int_equal(rte_ring_count(wire_tx), 2);
		assert_int_equal(rte_ring_dequeue(wire_tx, (void **)&m[0]), 0);
		assert_int_equal(rte_ring_dequeue(wire_tx, (void **)&m[1]), 0);
		assert_ptr_not_equal(m[0], m[1]);
		for (unsigned k = 0; k < 2; k++) {
			/* a copy, not a clone: its own data, nobody else's */
			assert_true(RTE_MBUF_DIRECT(m[k]));
			assert_int_equal(rte_mbuf_refcnt_read(m[k]), 1);
			record(m[k], NULL);
		}
		assert_ptr_not_equal(rte_pktmbuf_mtod(m[0], void *),
				     rte_pktmbuf_mtod(m[1], void *));
		rte_pktmbuf_free(m[0]);
		rte_pktmbuf_free(m[1]);
		check_intact(nrec - 2, seq);
		check_intact(nrec - 1, seq);
	}
	assert_int_equal(cnt(STK_CNT_impair_duplicated), 50);
	assert_int_equal(cnt(STK_CNT_tx_pkts), 100);

	/* with corruption too: each of the two has its own single flipped bit, so corrupting
	 * one did not touch the other (with shared data one would show two flips, or none) */
	c.corrupt_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	nrec = 0;
	run(STK_IMPAIR_TX, 200);
	assert_int_equal(nrec, 400);
	for (unsigned i = 0; i < nrec; i++) {
		uint8_t b[UT_FRAME_MAX];
		uint16_t len = frame(b, i / 2);
		int off, bit;

		assert_int_equal(recs[i].len, len);
		assert_int_equal(bitdiff(recs[i].b, b, len, &off, &bit), 1);
	}
	assert_int_equal(cnt(STK_CNT_impair_corrupted), 400);
}

/* Every frame corrupted: one bit after the L2 header, anywhere there, any bit. */
static void corrupt_all(int tci, unsigned l2)
{
	unsigned bits_seen = 0, in_ip = 0, in_payload = 0;
	uint8_t b[UT_FRAME_MAX];

	for (uint32_t seq = 0; seq < 2000; seq++) {
		uint16_t len = frame_tagged(b, seq, STK_ROCE_UDP_PORT, tci);
		struct rte_mbuf *m = ut_mbuf(b, len);
		int off, bit;

		assert_non_null(m);
		nrec = 0;
		stk_tx_frame(fx.lc, fx.ifc, m);
		collect_tx();
		assert_int_equal(nrec, 1);
		assert_int_equal(recs[0].len, len);
		assert_int_equal(bitdiff(recs[0].b, b, len, &off, &bit), 1);
		assert_true(off >= (int)l2 && off < len);
		bits_seen |= 1u << bit;
		in_ip += off < (int)l2 + 20;
		in_payload += off >= (int)l2 + 28;
	}
	/* uniform over ~92 bytes and 8 bits: 2000 draws miss none of these */
	assert_int_equal(bits_seen, 0xff);
	assert_true(in_ip > 0 && in_payload > 0);
}

static void test_corrupt_one_bit(void **state)
{
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	struct rte_mbuf *m;
	int off, bit;

	memset(&c, 0, sizeof(c));
	c.corrupt_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	corrupt_all(-1, 14);
	/* behind an 802.1Q tag the tag is spared too */
	corrupt_all(100, 18);
	assert_int_equal(cnt(STK_CNT_impair_corrupted), 4000);

	/* an Ethernet header alone has nothing to corrupt: it passes, uncounted */
	nrec = 0;
	frame(b, 1);
	m = ut_mbuf(b, 14);
	assert_non_null(m);
	stk_tx_frame(fx.lc, fx.ifc, m);
	/* one byte after it: that byte's the one */
	m = ut_mbuf(b, 15);
	assert_non_null(m);
	stk_tx_frame(fx.lc, fx.ifc, m);
	collect_tx();
	assert_int_equal(nrec, 2);
	assert_int_equal(recs[0].len, 14);
	assert_memory_equal(recs[0].b, b, 14);
	assert_int_equal(recs[1].len, 15);
	assert_int_equal(bitdiff(recs[1].b, b, 15, &off, &bit), 1);
	assert_int_equal(off, 14);
	assert_int_equal(cnt(STK_CNT_impair_corrupted), 4001);
}

static void ext_free(void *addr, void *opaque)
{
	fail_msg("the external buffer's last reference went with a frame");
}

/* The frame @p b of @p len bytes as RoCE sends it: the headers (SEQ_OFF bytes) in an mbuf of
 * the pool, the rest attached from @p ext (already holding those bytes) as an external buffer
 * sharing @p shinfo, which takes one more reference. */
static struct rte_mbuf *ext_frame(const uint8_t *b, uint16_t len, uint8_t *ext, uint16_t ext_len,
				  struct rte_mbuf_ext_shared_info *shinfo)
{
	struct rte_mbuf *hdr = ut_mbuf(b, SEQ_OFF), *pay = rte_pktmbuf_alloc(ut_pool());

	assert_non_null(hdr);
	assert_non_null(pay);
	rte_mbuf_ext_refcnt_update(shinfo, 1);
	rte_pktmbuf_attach_extbuf(pay, ext, RTE_BAD_IOVA, ext_len, shinfo);
	pay->data_off = 0;
	pay->data_len = (uint16_t)(len - SEQ_OFF);
	pay->pkt_len = pay->data_len;
	assert_int_equal(rte_pktmbuf_chain(hdr, pay), 0);
	return hdr;
}

static void test_corrupt_chained_and_shared(void **state)
{
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	unsigned first_seg = 0, second_seg = 0;
	uint16_t len;

	memset(&c, 0, sizeof(c));
	c.corrupt_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);

	/* two segments, 40 bytes in the first: the bit may be in either */
	for (uint32_t seq = 0; seq < 300; seq++) {
		struct rte_mbuf *m;
		int off, bit;

		len = frame(b, seq);
		m = ut_mbuf_chain(b, len, 40);
		assert_non_null(m);
		nrec = 0;
		stk_tx_frame(fx.lc, fx.ifc, m);
		collect_tx();
		assert_int_equal(nrec, 1);
		assert_int_equal(bitdiff(recs[0].b, b, len, &off, &bit), 1);
		assert_true(off >= 14);
		first_seg += off < 40;
		second_seg += off >= 40;
	}
	assert_true(first_seg > 0 && second_seg > 0);

	/* a clone shares its data with the original a sender keeps (for retransmission): the
	 * original stays intact, what goes out is a corrupted private copy */
	for (uint32_t seq = 0; seq < 50; seq++) {
		struct rte_mbuf *orig, *clone;
		uint8_t now[UT_FRAME_MAX];
		int off, bit;

		len = frame(b, seq);
		orig = ut_mbuf(b, len);
		assert_non_null(orig);
		clone = rte_pktmbuf_clone(orig, ut_pool());
		assert_non_null(clone);
		nrec = 0;
		stk_tx_frame(fx.lc, fx.ifc, clone);
		collect_tx();
		assert_int_equal(nrec, 1);
		assert_int_equal(bitdiff(recs[0].b, b, len, &off, &bit), 1);
		assert_int_equal(ut_mbuf_bytes(orig, now, sizeof(now)), len);
		assert_memory_equal(now, b, len);
		/* the clone's reference is gone: the original is ours alone again */
		assert_int_equal(rte_mbuf_refcnt_read(orig), 1);
		rte_pktmbuf_free(orig);
	}

	/* RoCE sends payload zero-copy from registered memory, attached as an external buffer:
	 * a flipped bit must never land in the application's memory */
	{
		static uint8_t ext[256] __rte_aligned(8);
		struct rte_mbuf_ext_shared_info *shinfo;
		uint16_t ext_len = sizeof(ext);
		unsigned in_ext = 0;

		len = frame(b, 0);
		shinfo = rte_pktmbuf_ext_shinfo_init_helper(ext, &ext_len, ext_free, NULL);
		assert_non_null(shinfo);
		assert_true(ext_len >= len - SEQ_OFF);
		memcpy(ext, b + SEQ_OFF, len - SEQ_OFF);
		/* the shared info starts with one reference: the test's own */
		for (unsigned i = 0; i < 200; i++) {
			struct rte_mbuf *hdr = ext_frame(b, len, ext, ext_len, shinfo);
			int off, bit;

			nrec = 0;
			stk_tx_frame(fx.lc, fx.ifc, hdr);
			collect_tx();
			assert_int_equal(nrec, 1);
			assert_int_equal(bitdiff(recs[0].b, b, len, &off, &bit), 1);
			in_ext += off >= SEQ_OFF;
		}
		assert_true(in_ext > 0);
		assert_memory_equal(ext, b + SEQ_OFF, len - SEQ_OFF);
		/* every frame let go of it: only the test's reference is left */
		assert_int_equal(rte_mbuf_ext_refcnt_update(shinfo, -1), 0);
	}
	assert_int_equal(cnt(STK_CNT_impair_corrupted), 550);
}

static void test_reorder_swaps_with_next(void **state)
{
	static const uint32_t want[] = {1, 0, 3, 2, 5, 4, 7, 6, 9, 8};
	struct stk_impair_conf c;
	uint64_t t0, bound = us_to_tsc(STK_IMPAIR_HOLD_US);

	memset(&c, 0, sizeof(c));
	c.reorder_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	/* always: each frame is held, and goes right after the next, which cannot be held */
	for (uint32_t seq = 0; seq < 10; seq++) {
		tx_seq(fx.lc, seq);
		collect_tx();
		assert_int_equal(nrec, (seq + 1) / 2 * 2);
	}
	for (unsigned i = 0; i < RTE_DIM(want); i++)
		check_intact(i, want[i]);
	assert_int_equal(cnt(STK_CNT_impair_reordered), 5);

	/* a lone frame is not stuck: the loop lets it go after the bound */
	nrec = 0;
	t0 = rte_get_tsc_cycles();
	tx_seq(fx.lc, 10);
	collect_tx();
	assert_int_equal(nrec, 0);
	settle(1, 1000000);
	assert_int_equal(nrec, 1);
	check_intact(0, 10);
	assert_true(recs[0].tsc - t0 >= bound);
	assert_int_equal(cnt(STK_CNT_impair_reordered), 6);

	/* on RX the same, through the parser to the handler */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	nrec = 0;
	run(STK_IMPAIR_RX, 10);
	assert_int_equal(nrec, 10);
	for (unsigned i = 0; i < RTE_DIM(want); i++)
		check_intact(i, want[i]);
}

/* A frame held for reordering or delayed keeps the bytes it had when sent: its payload, an
 * external buffer (RoCE's zero copy from registered memory), is rewritten by its owner while the
 * frame waits (a message completed by a retransmission, the buffer reused), and what goes out
 * later is still what was sent. */
static void test_waiting_frame_keeps_its_bytes(void **state)
{
	static uint8_t ext[256] __rte_aligned(8);
	struct rte_mbuf_ext_shared_info *shinfo;
	uint16_t ext_len = sizeof(ext);
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	uint16_t len = frame(b, 0);

	shinfo = rte_pktmbuf_ext_shinfo_init_helper(ext, &ext_len, ext_free, NULL);
	assert_non_null(shinfo);
	for (int delay = 0; delay < 2; delay++) {
		struct rte_mbuf *hdr;

		memset(&c, 0, sizeof(c));
		if (delay) {
			c.delay_ppm = STK_IMPAIR_PPM;
			c.delay_us = 200;
		} else {
			c.reorder_ppm = STK_IMPAIR_PPM;
		}
		assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
		memcpy(ext, b + SEQ_OFF, len - SEQ_OFF);
		hdr = ext_frame(b, len, ext, ext_len, shinfo);
		nrec = 0;
		stk_tx_frame(fx.lc, fx.ifc, hdr);
		collect_tx();
		assert_int_equal(nrec, 0); /* it waits */
		memset(ext, 0xee,
		       ext_len); /* its owner reuses the memory (not the shared info after it) */
		settle(1, 1000000);
		assert_int_equal(nrec, 1);
		assert_memory_equal(recs[0].b, b, len);
	}
	/* the waiting copies let go of the memory: only the test's reference is left */
	assert_int_equal(rte_mbuf_ext_refcnt_update(shinfo, -1), 0);
}

static void test_delay_releases_after(void **state)
{
	enum { DELAY_US = 2000 };
	struct stk_impair_conf c;
	uint64_t t0, delay = us_to_tsc(DELAY_US);
	uint8_t b[UT_FRAME_MAX];

	memset(&c, 0, sizeof(c));
	c.delay_ppm = STK_IMPAIR_PPM;
	c.delay_us = DELAY_US;

	/* TX: nothing before the loop runs, then all three, in order, no earlier than due */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	t0 = rte_get_tsc_cycles();
	for (uint32_t seq = 0; seq < 3; seq++)
		tx_seq(fx.lc, seq);
	collect_tx();
	assert_int_equal(nrec, 0);
	settle(3, 1000000);
	assert_int_equal(nrec, 3);
	for (unsigned i = 0; i < 3; i++) {
		check_intact(i, i);
		assert_true(recs[i].tsc - t0 >= delay);
	}
	assert_int_equal(cnt(STK_CNT_impair_delayed), 3);

	/* RX: the loop takes them off the port, the handler sees them after the delay */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	nrec = 0;
	for (uint32_t seq = 0; seq < 3; seq++)
		rx_enqueue(b, frame(b, seq));
	t0 = rte_get_tsc_cycles();
	assert_int_equal(stk_lcore_poll(fx.lc), 3);
	/* taken off the port, held back (unless that one iteration took the whole delay) */
	if (rte_get_tsc_cycles() - t0 < delay) {
		assert_int_equal(nrec, 0);
		assert_int_equal(cnt(STK_CNT_rx_pkts), 0);
	}
	settle(3, 1000000);
	assert_int_equal(nrec, 3);
	for (unsigned i = 0; i < 3; i++) {
		check_intact(i, i);
		assert_true(recs[i].tsc - t0 >= delay);
	}
	assert_int_equal(cnt(STK_CNT_rx_pkts), 3);
	assert_int_equal(cnt(STK_CNT_impair_delayed), 6);
}

static void test_delay_queue_full(void **state)
{
	struct stk_impair_conf c;

	memset(&c, 0, sizeof(c));
	c.delay_ppm = STK_IMPAIR_PPM;
	c.delay_us = STK_IMPAIR_MAX_DELAY_US;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	/* the queue takes STK_IMPAIR_DELAY_SLOTS; the rest go out at once, in order */
	run(STK_IMPAIR_TX, STK_IMPAIR_DELAY_SLOTS + 88);
	assert_int_equal(nrec, 88);
	for (unsigned i = 0; i < nrec; i++)
		check_intact(i, STK_IMPAIR_DELAY_SLOTS + i);
	assert_int_equal(cnt(STK_CNT_impair_delayed), STK_IMPAIR_DELAY_SLOTS);
	assert_int_equal(cnt(STK_CNT_impair_delay_full), 88);
	assert_int_equal(ut_in_use(), fx.in_use + STK_IMPAIR_DELAY_SLOTS);

	/* turning it off frees the waiting frames, counted as lost */
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, NULL), 0);
	assert_int_equal(ut_in_use(), fx.in_use);
	assert_int_equal(cnt(STK_CNT_impair_dropped), STK_IMPAIR_DELAY_SLOTS);
	assert_int_equal(cnt(STK_CNT_drops), 0);
}

static void test_destroy_frees_waiting(void **state)
{
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];

	/* five delayed on TX, one held on RX */
	memset(&c, 0, sizeof(c));
	c.delay_ppm = STK_IMPAIR_PPM;
	c.delay_us = STK_IMPAIR_MAX_DELAY_US;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	memset(&c, 0, sizeof(c));
	c.reorder_ppm = STK_IMPAIR_PPM;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	run(STK_IMPAIR_TX, 5);
	rx_enqueue(b, frame(b, 0));
	rx_poll();
	assert_int_equal(nrec, 0);
	assert_int_equal(ut_in_use(), fx.in_use + 6);
	/* the context goes with its waiting frames */
	stk_lcore_destroy(fx.lc);
	fx.lc = NULL;
	assert_int_equal(ut_in_use(), fx.in_use);
}

/* ---------------- roce_only ---------------- */

static void test_roce_only_tx(void **state)
{
	struct {
		uint8_t b[UT_FRAME_MAX];
		uint16_t len;
		bool roce;
	} f[11];
	struct stk_impair_conf c;
	struct ut_ip ip;
	struct ut_off o;
	unsigned n = 0, k = 0;

	/* RoCEv2: UDP to 4791, over IPv4, IPv6, tagged */
	f[n].len = frame_tagged(f[n].b, 1, STK_ROCE_UDP_PORT, -1);
	f[n++].roce = true;
	f[n].len = frame_tagged(f[n].b, 2, STK_ROCE_UDP_PORT, 100);
	f[n++].roce = true;
	ut_ip_default(&ip, 6, 17);
	f[n].len = ut_frame_udp(f[n].b, &ip, 1, STK_ROCE_UDP_PORT, "v6", 2, false, &o);
	f[n++].roce = true;
	/* the rest: ARP, ICMP, other UDP ports (4791 as the source does not count) */
	f[n].len = ut_frame_arp(f[n].b, ut_mac_us, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer,
				ut_mac_us, ut_ip4_us, &o);
	f[n++].roce = false;
	f[n].len = ut_frame_icmp4_echo(f[n].b, -1, &o);
	f[n++].roce = false;
	f[n].len = frame_tagged(f[n].b, 3, 5000, -1);
	f[n++].roce = false;
	f[n].len = frame_tagged(f[n].b, 4, 5000, 100);
	f[n++].roce = false;
	ut_ip_default(&ip, 4, 17);
	f[n].len = ut_frame_udp(f[n].b, &ip, STK_ROCE_UDP_PORT, 5000, "sp", 2, false, &o);
	f[n++].roce = false;
	ut_ip_default(&ip, 6, 17);
	f[n].len = ut_frame_udp(f[n].b, &ip, 1, 5000, "v6", 2, false, &o);
	f[n++].roce = false;
	/* a later IPv4 fragment carries no UDP header, whatever its bytes look like */
	ut_ip_default(&ip, 4, 17);
	ip.frag = 0x0001;
	f[n].len = ut_frame_udp(f[n].b, &ip, 1, STK_ROCE_UDP_PORT, "fr", 2, false, &o);
	f[n++].roce = false;
	/* too short to show a UDP header */
	f[n].len = 14 + 24;
	memcpy(f[n].b, f[0].b, f[n].len);
	f[n++].roce = false;
	assert_int_equal(n, RTE_DIM(f));

	memset(&c, 0, sizeof(c));
	c.drop_ppm = STK_IMPAIR_PPM;
	c.roce_only = true;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_TX, &c), 0);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = ut_mbuf(f[i].b, f[i].len);

		assert_non_null(m);
		stk_tx_frame(fx.lc, fx.ifc, m);
	}
	collect_tx();
	/* exactly the others come out, in order, untouched */
	for (unsigned i = 0; i < n; i++) {
		if (f[i].roce)
			continue;
		if (k >= nrec)
			fail_msg("frame %u (not RoCE) did not come out", i);
		assert_int_equal(recs[k].len, f[i].len);
		if (memcmp(recs[k].b, f[i].b, f[i].len) != 0)
			fail_msg("output %u is not frame %u", k, i);
		k++;
	}
	assert_int_equal(nrec, k);
	assert_int_equal(cnt(STK_CNT_impair_dropped), 3);
}

static void test_roce_only_rx(void **state)
{
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	struct rte_mbuf *m = NULL;
	struct ut_off o;
	uint16_t len;

	memset(&c, 0, sizeof(c));
	c.drop_ppm = STK_IMPAIR_PPM;
	c.roce_only = true;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	/* an ARP request for us is answered */
	len = ut_frame_arp(b, ut_mac_us, ut_mac_peer, -1, 1, ut_mac_peer, ut_ip4_peer, ut_mac_us,
			   ut_ip4_us, &o);
	rx_enqueue(b, len);
	/* UDP to another bound port is delivered */
	rx_enqueue(b, frame_tagged(b, 7, 5000, -1));
	/* RoCE is not */
	rx_enqueue(b, frame(b, 8));
	rx_poll();
	assert_int_equal(cnt(STK_CNT_rx_arp), 1);
	assert_int_equal(cnt(STK_CNT_arp_reply_tx), 1);
	assert_int_equal(rte_ring_dequeue(wire_tx, (void **)&m), 0);
	assert_int_equal(ut_get16(rte_pktmbuf_mtod(m, uint8_t *) + 12), 0x0806);
	rte_pktmbuf_free(m);
	assert_int_equal(nrec, 1);
	assert_int_equal(rec_seq(0), 7);
	assert_int_equal(cnt(STK_CNT_impair_dropped), 1);
	assert_int_equal(cnt(STK_CNT_rx_pkts), 2);
}

/* ---------------- RX corruption reaches the parser ---------------- */

static void test_rx_corrupt_dropped_by_stack(void **state)
{
	/* every reason a single flipped bit in an IPv4/UDP datagram can be refused for */
	static const enum stk_drop why[] = {
		STK_DROP_IP4_VERSION, STK_DROP_IP4_IHL, STK_DROP_IP4_LEN,
		STK_DROP_IP4_CSUM,    STK_DROP_UDP_LEN, STK_DROP_UDP_CSUM,
	};
	enum { N = 400 };
	struct stk_impair_conf c;
	uint8_t b[UT_FRAME_MAX];
	struct ut_ip ip;
	struct ut_off o;
	struct rte_mbuf *m;
	uint64_t sum = 0;
	uint16_t len;

	/* control: a PMD that marks checksums good is believed, even for a bad one; so the
	 * impairment must clear that mark on the frames it corrupts */
	ut_ip_default(&ip, 4, 17);
	len = ut_frame_udp(b, &ip, 1, STK_ROCE_UDP_PORT, "control", 7, false, &o);
	b[o.l4 + 6] ^= 0x55;
	m = ut_mbuf(b, len);
	assert_non_null(m);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	stk_input(fx.lc, fx.ifc, m);
	assert_int_equal(nrec, 1);
	nrec = 0;

	memset(&c, 0, sizeof(c));
	c.corrupt_ppm = STK_IMPAIR_PPM;
	c.seed = 3;
	assert_int_equal(stk_impair_set(0, STK_IMPAIR_RX, &c), 0);
	/* half as the PMD left them, half marked good by it */
	for (uint32_t seq = 0; seq < N; seq++) {
		m = ut_mbuf(b, frame(b, seq));
		assert_non_null(m);
		if (seq & 1)
			m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		stk_input(fx.lc, fx.ifc, m);
	}
	/* all reached the parser, none got through it */
	assert_int_equal(nrec, 0);
	assert_int_equal(cnt(STK_CNT_impair_corrupted), N);
	assert_int_equal(cnt(STK_CNT_rx_pkts), N + 1);
	assert_int_equal(cnt(STK_CNT_drops), N);
	assert_int_equal(cnt(STK_CNT_impair_dropped), 0);
	for (unsigned i = 0; i < RTE_DIM(why); i++)
		sum += drops(why[i]);
	assert_int_equal(sum, N);
	/* 80 of the 92 bytes are UDP, 20 the IPv4 header: both checks catch some */
	assert_true(drops(STK_DROP_UDP_CSUM) > N / 2);
	assert_true(drops(STK_DROP_IP4_CSUM) > 0);
}

/* ---------------- configuration ---------------- */

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_off_no_effect),
		T(test_set_errors),
		T(test_tx_frames),
		T(test_rate_drop_tx),
		T(test_rate_drop_rx),
		T(test_rate_dup_tx),
		T(test_rate_dup_rx),
		T(test_rate_corrupt_tx),
		T(test_rate_reorder_tx),
		T(test_rate_delay_tx),
		T(test_seed_reproducible),
		T(test_dup_identical_copies),
		T(test_corrupt_one_bit),
		T(test_corrupt_chained_and_shared),
		T(test_reorder_swaps_with_next),
		T(test_waiting_frame_keeps_its_bytes),
		T(test_delay_releases_after),
		T(test_delay_queue_full),
		T(test_destroy_frees_waiting),
		T(test_roce_only_tx),
		T(test_roce_only_rx),
		T(test_rx_corrupt_dropped_by_stack),
	};
	int rc;

	if (ut_eal_init("test_impair", "0@0,1@0") != 0)
		return 1;
	if (make_port() != 0) {
		fprintf(stderr, "test_impair: cannot set up the net_ring port\n");
		ut_eal_fini();
		return 1;
	}
	rc = cmocka_run_group_tests_name("stk_impair", tests, NULL, NULL);
	free_port();
	ut_eal_fini();
	return rc;
}
