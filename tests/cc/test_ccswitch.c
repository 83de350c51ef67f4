/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ccswitch.c - the congestion switch (bench/ccswitch/cc_switch.c) on its own, no
 * endpoints: frames built by hand are put into its in[] rings and what comes out of out[] is
 * checked, on a controlled clock (hz = 1e9, so one cycle is one nanosecond). RED probability,
 * token-bucket rate, tail drop, ECN marking with a valid IPv4 checksum, PFC XOFF/XON/refresh
 * thresholds, honouring an endpoint's PFC, random loss, flooding and learning, time series.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "cc_switch.h"
#include "stk_pfc.h"

#define HZ 1000000000ull
#define US 1000ull
#define NP 4

static struct rte_mempool *pool;
static struct rte_ring *in[NP], *out[NP];
static unsigned base_in_use;

static struct rte_ether_addr mac(unsigned k)
{
	return (struct rte_ether_addr){{0x02, 0, 0, 0, 0x42, (uint8_t)(1 + k)}};
}

/* An IPv4 frame of @p len bytes from port @p from's MAC to @p dst with ToS @p tos. */
static struct rte_mbuf *frame(const struct rte_ether_addr *dst, unsigned from, uint8_t tos,
			      uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(eh);
	memset(eh, 0, len);
	eh->dst_addr = *dst;
	eh->src_addr = mac(from);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = 0x45;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh)));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001u + from);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000064u);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static void put(unsigned port, struct rte_mbuf *m)
{
	assert_int_equal(rte_ring_enqueue(in[port], m), 0);
}

/* Take everything out[@p port] holds; count PFC frames by kind. @return data frames. */
static unsigned drain(unsigned port, unsigned *xoff, unsigned *xon, unsigned *marked)
{
	struct rte_mbuf *m;
	unsigned n = 0;

	while (rte_ring_dequeue(out[port], (void **)&m) == 0) {
		struct stk_pfc pfc;

		if (stk_pfc_decode(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &pfc) ==
		    0) {
			assert_int_equal(pfc.class_enable, 1u << 3);
			if (pfc.quanta[3] && xoff)
				(*xoff)++;
			if (!pfc.quanta[3] && xon)
				(*xon)++;
		} else {
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				m, const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
			struct rte_ipv4_hdr h = *ip;

			/* whatever the switch did, the header checksum must hold */
			h.hdr_checksum = 0;
			assert_int_equal(rte_ipv4_cksum(&h), ip->hdr_checksum);
			if (marked && (ip->type_of_service & 3) == 3)
				(*marked)++;
			n++;
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

static struct ccs *make(struct ccs_conf *c)
{
	struct ccs *sw;

	c->nports = NP;
	for (unsigned k = 0; k < NP; k++) {
		c->in[k] = in[k];
		c->out[k] = out[k];
	}
	c->pool = pool;
	c->hz = HZ;
	sw = ccs_create(c, 0);
	assert_non_null(sw);
	for (unsigned k = 0; k < NP; k++) {
		struct rte_ether_addr a = mac(k);

		assert_int_equal(ccs_set_mac(sw, k, &a), 0);
	}
	return sw;
}

static void done(struct ccs *sw)
{
	ccs_destroy(sw);
	for (unsigned k = 0; k < NP; k++)
		drain(k, NULL, NULL, NULL);
	assert_int_equal(rte_mempool_in_use_count(pool), base_in_use);
}

static void red_probability(void **st)
{
	struct ccs_conf c;
	const struct ccs_egress_conf *e = &c.eg[0];
	(void)st;

	ccs_conf_default(&c); /* DCQCN paper: 5 KB, 200 KB, 1 % */
	assert_true(e->kmin == 5000 && e->kmax == 200000 && e->pmax == 0.01);
	assert_true(ccs_red_prob(e, 0) == 0);
	assert_true(ccs_red_prob(e, 4999) == 0);
	assert_true(ccs_red_prob(e, 5000) == 0);
	assert_true(fabs(ccs_red_prob(e, 102500) - 0.005) < 1e-12);
	assert_true(fabs(ccs_red_prob(e, 200000) - 0.01) < 1e-12);
	assert_true(ccs_red_prob(e, 200001) == 1);
}

static void bucket_rate(void **st)
{
	struct ccs_bucket b;
	(void)st;

	ccs_bucket_init(&b, 8000000000ull, 3000, HZ, 0); /* 1 byte per ns */
	assert_true(ccs_bucket_take(&b, 3000, 0));	 /* the burst */
	assert_false(ccs_bucket_take(&b, 1000, 999));
	assert_true(ccs_bucket_take(&b, 1000, 1000));
	assert_false(ccs_bucket_take(&b, 1, 1000));
	/* idle for long: never more than the burst */
	assert_true(ccs_bucket_take(&b, 3000, 1000000));
	assert_false(ccs_bucket_take(&b, 1, 1000000));
	ccs_bucket_init(&b, 0, 0, HZ, 0); /* unlimited */
	assert_true(ccs_bucket_take(&b, 1u << 30, 0));
}

/* 1 Gbit/s on the wire: a 1000-byte frame (1024 with overhead) every 8.192 us. */
static void service_rate(void **st)
{
	struct ccs_conf c;
	struct ccs *sw;
	struct rte_ether_addr d = mac(1);
	unsigned got = 0;
	(void)st;

	ccs_conf_default(&c);
	c.eg[1].rate_bps = 1000000000ull;
	c.eg[1].burst = 2048;
	sw = make(&c);
	for (unsigned i = 0; i < 1000; i++)
		put(0, frame(&d, 0, 0, 1000));
	ccs_poll(sw, 0);
	for (uint64_t t = 0; t <= 4096 * US; t += US) {
		ccs_poll(sw, t);
		got += drain(1, NULL, NULL, NULL);
	}
	/* 2 at t=0 (the burst) + 4096 / 8.192 = 500 */
	assert_in_range(got, 501, 503);
	done(sw);
}

static void tail_drop(void **st)
{
	struct ccs_conf c;
	struct ccs_port_stats ps;
	struct ccs *sw;
	struct rte_ether_addr d = mac(2);
	(void)st;

	ccs_conf_default(&c);
	c.eg[2].rate_bps = 1000;
	c.eg[2].burst = 1;
	c.eg[2].capacity = 10000;
	sw = make(&c);
	for (unsigned i = 0; i < 25; i++)
		put(0, frame(&d, 0, 0, 1000));
	ccs_poll(sw, 0);
	assert_int_equal(ccs_port_stats(sw, 2, &ps), 0);
	assert_int_equal(ps.drop_tail, 15);
	assert_int_equal(ps.q_bytes, 10000);
	assert_int_equal(ps.q_frames, 10);
	assert_int_equal(drain(2, NULL, NULL, NULL), 0);
	done(sw);
}

/* Above Kmax every ECT frame is marked; Pmax 0 leaves the ramp unmarked; non-ECT never. */
static void ecn_marks_ect_above_kmax(void **st)
{
	struct ccs_conf c;
	struct ccs_port_stats ps;
	struct ccs *sw;
	struct rte_ether_addr d = mac(1);
	unsigned marked = 0, n;
	(void)st;

	ccs_conf_default(&c);
	c.eg[1].rate_bps = 1000;
	c.eg[1].burst = 1;
	c.eg[1].ecn = true;
	c.eg[1].kmin = 1000;
	c.eg[1].kmax = 3000;
	c.eg[1].pmax = 0;
	sw = make(&c);
	/* queue depth at enqueue: 0, 1000, ..., 9000: > 3000 for the last six */
	for (unsigned i = 0; i < 10; i++)
		put(0, frame(&d, 0, 2 /* ECT(0) */, 1000));
	for (unsigned i = 0; i < 5; i++)
		put(0, frame(&d, 0, 0 /* not ECT */, 1000));
	ccs_poll(sw, 0);
	assert_int_equal(ccs_port_stats(sw, 1, &ps), 0);
	assert_int_equal(ps.marks, 6);
	assert_int_equal(ps.ect, 10);
	c.eg[1].rate_bps = 0; /* let them out */
	assert_int_equal(ccs_set_egress(sw, 1, &c.eg[1]), 0);
	ccs_poll(sw, 1);
	n = drain(1, NULL, NULL, &marked);
	assert_int_equal(n, 15);
	assert_int_equal(marked, 6);
	done(sw);
}

/* Statistically: Pmax 0.5 with a queue held in the middle of the ramp marks about a quarter. */
static void ecn_ramp_probability(void **st)
{
	struct ccs_conf c;
	struct ccs_port_stats ps;
	struct ccs *sw;
	struct rte_ether_addr d = mac(1);
	(void)st;

	ccs_conf_default(&c);
	c.eg[1].rate_bps = 1000;
	c.eg[1].burst = 1;
	c.eg[1].ecn = true;
	c.eg[1].kmin = 0;
	c.eg[1].kmax = 2000000;
	c.eg[1].pmax = 0.5;
	c.eg[1].capacity = 4000000;
	sw = make(&c);
	/* 2000 frames of 1000 B: the depth at enqueue ramps 0 .. 1999000, mean p = 0.25 */
	for (unsigned r = 0; r < 4; r++) {
		for (unsigned i = 0; i < 500; i++)
			put(0, frame(&d, 0, 1 /* ECT(1) */, 1000));
		ccs_poll(sw, 0);
	}
	assert_int_equal(ccs_port_stats(sw, 1, &ps), 0);
	assert_int_equal(ps.ect, 2000);
	/* binomial-ish, sd about 19: 4 sd either side */
	assert_in_range(ps.marks, 500 - 80, 500 + 80);
	done(sw);
}

/*
 * Ports 1 and 2 feed port 0's queue (XOFF 5000, XON 2000); port 3 does not. XOFF goes to 1 and
 * 2 only, is refreshed every half pause while the queue stays over, and XON follows once the
 * queue drains to 2000.
 */
static void pfc_xoff_refresh_xon(void **st)
{
	struct ccs_conf c;
	struct ccs_totals t;
	struct ccs *sw;
	struct rte_ether_addr d = mac(0);
	unsigned xoff[NP] = {0}, xon[NP] = {0};
	uint64_t refresh;
	(void)st;

	ccs_conf_default(&c);
	c.eg[0].rate_bps = 1000; /* hold the queue */
	c.eg[0].burst = 1;
	c.eg[0].pfc = true;
	c.eg[0].pfc_xoff = 5000;
	c.eg[0].pfc_xon = 2000;
	c.pfc_quanta = 0xffff;
	c.pfc_link_bps = 10000000000ull;
	refresh = stk_pfc_refresh_tsc(0xffff, HZ, c.pfc_link_bps); /* 1.68 ms */
	sw = make(&c);
	for (unsigned i = 0; i < 4; i++) {
		put(1, frame(&d, 1, 0, 1000));
		put(2, frame(&d, 2, 0, 1000));
	}
	put(3, frame(&(struct rte_ether_addr){{0x02, 0, 0, 0, 0x42, 2}}, 3, 0, 1000));
	ccs_poll(sw, 0); /* 8000 bytes queued at port 0: over XOFF */
	for (unsigned k = 0; k < NP; k++)
		drain(k, &xoff[k], &xon[k], NULL);
	assert_true(xoff[1] == 1 && xoff[2] == 1 && xoff[3] == 0 && xoff[0] == 0);
	/* no refresh before it is due, one when it is */
	ccs_poll(sw, refresh - 1);
	ccs_poll(sw, refresh);
	for (unsigned k = 0; k < NP; k++)
		drain(k, &xoff[k], &xon[k], NULL);
	assert_true(xoff[1] == 2 && xoff[2] == 2 && xon[1] == 0 && xon[2] == 0);
	/* 1 Gbit/s from now: 1000-byte frames leave one per 8.192 us; the queue is at 2000 after
	 * six have left */
	c.eg[0].rate_bps = 1000000000ull;
	c.eg[0].burst = 2048;
	assert_int_equal(ccs_set_egress(sw, 0, &c.eg[0]), 0);
	for (uint64_t now = refresh; now < refresh + 80 * US; now += US) {
		struct ccs_port_stats ps;

		ccs_poll(sw, now);
		ccs_port_stats(sw, 0, &ps);
		for (unsigned k = 1; k < NP; k++)
			drain(k, &xoff[k], &xon[k], NULL);
		if (ps.q_bytes > 2000)
			assert_true(xon[1] == 0 && xon[2] == 0);
	}
	assert_true(xon[1] == 1 && xon[2] == 1 && xon[3] == 0);
	assert_int_equal(drain(0, NULL, NULL, NULL), 8); /* the queue went out whole */
	ccs_totals(sw, &t);
	assert_int_equal(t.pauses, 4);
	assert_int_equal(t.xons, 2);
	assert_int_equal(t.drops, 0);
	done(sw);
}

/* A PFC XOFF from port 2's endpoint stops port 2's egress until XON. */
static void honours_endpoint_pfc(void **st)
{
	struct ccs_conf c;
	struct ccs_port_stats ps;
	struct ccs *sw;
	struct rte_ether_addr d = mac(2), src = mac(2);
	struct stk_pfc pfc = {.class_enable = 1u << 3};
	struct rte_mbuf *m;
	(void)st;

	ccs_conf_default(&c);
	sw = make(&c);
	pfc.quanta[3] = 0xffff;
	m = rte_pktmbuf_alloc(pool);
	assert_int_equal(stk_pfc_encode(&src, &pfc, rte_pktmbuf_append(m, STK_PFC_FRAME_LEN),
					STK_PFC_FRAME_LEN),
			 STK_PFC_FRAME_LEN);
	put(2, m);
	ccs_poll(sw, 0);
	put(0, frame(&d, 0, 0, 500));
	ccs_poll(sw, 10 * US);
	assert_int_equal(drain(2, NULL, NULL, NULL), 0);
	ccs_port_stats(sw, 2, &ps);
	assert_int_equal(ps.pfc_rx, 1);
	assert_int_equal(ps.q_frames, 1);
	/* XON */
	pfc.quanta[3] = 0;
	m = rte_pktmbuf_alloc(pool);
	stk_pfc_encode(&src, &pfc, rte_pktmbuf_append(m, STK_PFC_FRAME_LEN), STK_PFC_FRAME_LEN);
	put(2, m);
	ccs_poll(sw, 20 * US);
	assert_int_equal(drain(2, NULL, NULL, NULL), 1);
	ccs_port_stats(sw, 2, &ps);
	assert_true(ps.paused_cycles >= 10 * US);
	done(sw);
}

static void random_loss(void **st)
{
	struct ccs_conf c;
	struct ccs_port_stats ps;
	struct ccs *sw;
	struct rte_ether_addr d = mac(3);
	unsigned got = 0;
	(void)st;

	ccs_conf_default(&c);
	c.eg[3].loss = 0.01;
	c.seed = 7;
	sw = make(&c);
	for (unsigned r = 0; r < 40; r++) {
		for (unsigned i = 0; i < 500; i++)
			put(0, frame(&d, 0, 0, 100));
		ccs_poll(sw, r);
		got += drain(3, NULL, NULL, NULL);
	}
	ccs_port_stats(sw, 3, &ps);
	/* 20000 x 1 %: 200, sd 14 */
	assert_in_range(ps.drop_loss, 200 - 60, 200 + 60);
	assert_int_equal(got + ps.drop_loss, 20000);
	done(sw);
}

static void flood_and_learn(void **st)
{
	struct ccs_conf c;
	struct ccs *sw;
	struct rte_ether_addr bc, unknown = {{0x02, 9, 9, 9, 9, 9}};
	(void)st;

	ccs_conf_default(&c);
	c.nports = NP;
	for (unsigned k = 0; k < NP; k++) {
		c.in[k] = in[k];
		c.out[k] = out[k];
	}
	c.pool = pool;
	c.hz = HZ;
	sw = ccs_create(&c, 0); /* nothing configured: everything learned */
	assert_non_null(sw);
	memset(&bc, 0xff, sizeof(bc));
	put(1, frame(&bc, 1, 0, 64));
	ccs_poll(sw, 0);
	assert_int_equal(drain(0, NULL, NULL, NULL), 1);
	assert_int_equal(drain(1, NULL, NULL, NULL), 0);
	assert_int_equal(drain(2, NULL, NULL, NULL), 1);
	assert_int_equal(drain(3, NULL, NULL, NULL), 1);
	put(2, frame(&unknown, 2, 0, 64)); /* unknown unicast floods too */
	ccs_poll(sw, 1);
	assert_int_equal(drain(0, NULL, NULL, NULL) + drain(1, NULL, NULL, NULL) +
				 drain(3, NULL, NULL, NULL),
			 3);
	/* port 1's MAC was learned from the broadcast: unicast goes to port 1 only */
	put(3, frame(&(struct rte_ether_addr){{0x02, 0, 0, 0, 0x42, 2}}, 3, 0, 64));
	ccs_poll(sw, 2);
	assert_int_equal(drain(1, NULL, NULL, NULL), 1);
	assert_int_equal(drain(0, NULL, NULL, NULL) + drain(2, NULL, NULL, NULL), 0);
	done(sw);
}

static void time_series_json(void **st)
{
	struct ccs_conf c;
	struct ccs *sw;
	struct rte_ether_addr d = mac(1);
	const struct ccs_sample *s;
	uint32_t n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	(void)st;

	ccs_conf_default(&c);
	c.eg[1].rate_bps = 1000;
	c.eg[1].burst = 1;
	c.sample_cycles = 100 * US;
	sw = make(&c);
	for (uint64_t t = 0; t <= 1000 * US; t += 10 * US) {
		if (t < 500 * US)
			put(0, frame(&d, 0, 0, 1000));
		ccs_poll(sw, t);
	}
	s = ccs_samples(sw, &n);
	assert_int_equal(n, 10);
	/* by the sample at 100 us, 11 frames were received from port 0 in that period */
	assert_int_equal(s[0].in_bytes[0], 11000);
	assert_int_equal(s[0].q_bytes[1], 11000);
	assert_int_equal(s[9].q_frames[1], 50);
	assert_int_equal(s[9].in_bytes[0], 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(ccs_write_json(sw, f), 0);
	fclose(f);
	assert_true(len > 100 && buf[0] == '{' && strstr(buf, "\"samples\":[") != NULL);
	assert_non_null(strstr(buf, "\"q_bytes\":[0,11000,0,0]"));
	free(buf);
	done(sw);
}

static int setup(void **st)
{
	(void)st;
	pool = rte_pktmbuf_pool_create("ccs_ut", 16383, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool)
		return -1;
	for (unsigned k = 0; k < NP; k++) {
		char n[32];

		snprintf(n, sizeof(n), "ut_in%u", k);
		in[k] = rte_ring_create(n, 8192, 0, 0);
		snprintf(n, sizeof(n), "ut_out%u", k);
		out[k] = rte_ring_create(n, 8192, 0, 0);
		if (!in[k] || !out[k])
			return -1;
	}
	base_in_use = rte_mempool_in_use_count(pool);
	return 0;
}

int main(void)
{
	static char a0[] = "test_ccswitch", a1[] = "--no-huge", a2[] = "-m", a3[] = "128",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(red_probability),
		cmocka_unit_test(bucket_rate),
		cmocka_unit_test(service_rate),
		cmocka_unit_test(tail_drop),
		cmocka_unit_test(ecn_marks_ect_above_kmax),
		cmocka_unit_test(ecn_ramp_probability),
		cmocka_unit_test(pfc_xoff_refresh_xon),
		cmocka_unit_test(honours_endpoint_pfc),
		cmocka_unit_test(random_loss),
		cmocka_unit_test(flood_and_learn),
		cmocka_unit_test(time_series_json),
	};
	int rc;

	if (rte_eal_init(10, eal) < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, setup, NULL);
	rte_eal_cleanup();
	return rc;
}
