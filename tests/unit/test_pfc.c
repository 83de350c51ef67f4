/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pfc.c - IEEE 802.1Qbb PFC: the frame laid out by hand per 802.1Qbb Figure 36-3 and
 * compared byte for byte with the encoder; decode of good and bad frames; tshark's reading of
 * encoded frames (macc.* fields); an honoured pause that stops exactly the paused priority
 * for quanta x 512 bit times on a controlled clock, and XON; XOFF/XON generation with
 * hysteresis and refresh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stk_pfc.h"

#define HZ 1000000000ull /* 1 cycle = 1 ns */

static const struct rte_ether_addr src = {{0x02, 0, 0, 0, 0x55, 0x01}};

static void encode_matches_the_standard_layout(void **st)
{
	struct stk_pfc p = {.class_enable = 0x08 | 0x01, .quanta = {0x1234, 7, 7, 0xffff}};
	uint8_t want[60] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, /* MAC Control multicast */
			    0x02, 0,	0,    0,    0x55, 0x01, /* source */
			    0x88, 0x08,				/* MAC Control */
			    0x01, 0x01,				/* PFC opcode */
			    0x00, 0x09,				/* class-enable: 0 and 3 */
			    0x12, 0x34, 0,    0,    0,	  0,
			    0xff, 0xff}; /* quanta 0..3; rest 0 */
	uint8_t buf[64];
	struct stk_pfc d;
	(void)st;

	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(stk_pfc_encode(&src, &p, buf, sizeof(buf)), 60);
	assert_memory_equal(buf, want, 60); /* disabled priorities' quanta are written as 0 */
	assert_int_equal(stk_pfc_decode(buf, 60, &d), 0);
	assert_int_equal(d.class_enable, 0x09);
	assert_int_equal(d.quanta[0], 0x1234);
	assert_int_equal(d.quanta[1], 0);
	assert_int_equal(d.quanta[3], 0xffff);
	assert_int_equal(stk_pfc_encode(&src, &p, buf, 59), -EINVAL);
}

static void decode_refuses_what_is_not_pfc(void **st)
{
	struct stk_pfc p = {.class_enable = 0xff}, d;
	uint8_t buf[60];
	(void)st;

	assert_int_equal(stk_pfc_encode(&src, &p, buf, sizeof(buf)), 60);
	assert_int_equal(stk_pfc_decode(buf, 33, &d), -EMSGSIZE);
	assert_int_equal(stk_pfc_decode(buf, 34, &d), 0);
	buf[14] = 0x00; /* opcode 0x0001: 802.3x PAUSE, not PFC */
	assert_int_equal(stk_pfc_decode(buf, 60, &d), -EPROTO);
	buf[14] = 0x01;
	assert_int_equal(stk_pfc_decode(buf, 60, &d), 0);
	buf[13] = 0x00; /* EtherType 0x8800 */
	assert_int_equal(stk_pfc_decode(buf, 60, &d), -EPROTO);
	assert_int_equal(stk_pfc_decode(NULL, 60, &d), -EINVAL);
}

static void tshark_reads_our_frames(void **st)
{
	char dir[] = "/tmp/pfcXXXXXX", path[64], cmd[256], line[256];
	struct stk_pfc p = {.class_enable = 0x08, .quanta = {0, 0, 0, 0xffff}};
	uint8_t buf[60];
	FILE *f;
	(void)st;

	if (system("command -v tshark >/dev/null 2>&1") != 0) {
		print_message("skipped: tshark is not installed\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pfc.pcap", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	{
		/* pcap: global header (Ethernet), then two records: XOFF prio 3, XON prio 3 */
		const uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
		uint32_t rh[4] = {0, 0, 60, 60};

		fwrite(gh, sizeof(gh), 1, f);
		assert_int_equal(stk_pfc_encode(&src, &p, buf, sizeof(buf)), 60);
		fwrite(rh, sizeof(rh), 1, f);
		fwrite(buf, 60, 1, f);
		p.quanta[3] = 0;
		assert_int_equal(stk_pfc_encode(&src, &p, buf, sizeof(buf)), 60);
		rh[0] = 1;
		fwrite(rh, sizeof(rh), 1, f);
		fwrite(buf, 60, 1, f);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -E separator=, -e macc.opcode -e macc.cbfc.enbv "
		 "-e macc.cbfc.pause_time.c3 -e _ws.expert 2>/dev/null",
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "0x0101,0x0008,65535,\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "0x0101,0x0008,0,\n");
	pclose(f);
	unlink(path);
	rmdir(dir);
}

static void pause_stops_exactly_that_priority(void **st)
{
	struct stk_pfc_rx_state rx;
	struct stk_pfc p = {.class_enable = 1u << 3, .quanta = {[3] = 1000, [5] = 9999}};
	const uint64_t t0 = 5000, link = 10000000000ull; /* 10 Gbit/s: 1 quantum = 51.2 ns */
	(void)st;

	memset(&rx, 0, sizeof(rx));
	stk_pfc_apply(&rx, &p, t0, HZ, link);
	/* 1000 quanta x 512 bits / 10 Gbit/s = 51.2 us */
	assert_true(stk_pfc_paused(&rx, 3, t0));
	assert_true(stk_pfc_paused(&rx, 3, t0 + 51199));
	assert_false(stk_pfc_paused(&rx, 3, t0 + 51200));
	for (unsigned q = 0; q < 8; q++)
		if (q != 3)
			assert_false(stk_pfc_paused(&rx, q, t0 + 1)); /* 5 is not enabled */
	assert_false(stk_pfc_paused(&rx, 9, t0));
	/* a new frame replaces the pause; quanta 0 (XON) ends it at once */
	p.quanta[3] = 2000;
	stk_pfc_apply(&rx, &p, t0 + 10000, HZ, link);
	assert_true(stk_pfc_paused(&rx, 3, t0 + 10000 + 102399));
	p.quanta[3] = 0;
	stk_pfc_apply(&rx, &p, t0 + 20000, HZ, link);
	assert_false(stk_pfc_paused(&rx, 3, t0 + 20000));
	assert_int_equal(rx.xoff[3], 2);
	assert_int_equal(rx.xon[3], 1);
	assert_int_equal(rx.frames, 3);
}

static void generation_has_hysteresis_and_refresh(void **st)
{
	struct stk_pfc_gen g = {.xoff_at = 100, .xon_at = 20, .quanta = 0xffff};
	const uint64_t link = 25000000000ull;
	(void)st;

	g.refresh = stk_pfc_refresh_tsc(0xffff, HZ, link); /* half of 1.342 ms */
	assert_true(g.refresh > 670000 && g.refresh < 672000);
	assert_int_equal(stk_pfc_gen_step(&g, 99, 0), STK_PFC_NONE);
	assert_int_equal(stk_pfc_gen_step(&g, 100, 10), STK_PFC_SEND_XOFF);
	assert_int_equal(stk_pfc_gen_step(&g, 150, 20), STK_PFC_NONE); /* already told */
	assert_int_equal(stk_pfc_gen_step(&g, 50, 30), STK_PFC_NONE);  /* above xon_at */
	/* still over when half the pause has gone: refresh it */
	assert_int_equal(stk_pfc_gen_step(&g, 50, 10 + g.refresh), STK_PFC_SEND_XOFF);
	assert_int_equal(stk_pfc_gen_step(&g, 20, 11 + g.refresh), STK_PFC_SEND_XON);
	assert_int_equal(stk_pfc_gen_step(&g, 20, 12 + g.refresh), STK_PFC_NONE);
	assert_int_equal(g.xoff_frames, 2);
	assert_int_equal(g.xon_frames, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encode_matches_the_standard_layout),
		cmocka_unit_test(decode_refuses_what_is_not_pfc),
		cmocka_unit_test(tshark_reads_our_frames),
		cmocka_unit_test(pause_stops_exactly_that_priority),
		cmocka_unit_test(generation_has_hysteresis_and_refresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
