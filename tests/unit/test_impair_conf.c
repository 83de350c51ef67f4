/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_impair_conf.c - the impairment layer's configuration syntax (stk_impair_parse(),
 * stk_impair_str()) and its telemetry counter names: pure functions, no port or EAL needed.
 * Split from test_impair.c, which tests the impairments on frames.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "stk_impair.h"
#include "stk_stats.h"

static const enum stk_counter impair_counters[] = {
	STK_CNT_impair_dropped,	  STK_CNT_impair_duplicated, STK_CNT_impair_reordered,
	STK_CNT_impair_corrupted, STK_CNT_impair_delayed,    STK_CNT_impair_delay_full,
};

static void test_parse_good(void **state)
{
	static const struct {
		const char *s;
		struct stk_impair_conf c;
	} v[] = {
		{"drop=1%,dup=1%,reorder=1%,corrupt=0.1%,delay=1%:200us,seed=42,roce_only",
		 {.drop_ppm = 10000,
		  .dup_ppm = 10000,
		  .reorder_ppm = 10000,
		  .corrupt_ppm = 1000,
		  .delay_ppm = 10000,
		  .delay_us = 200,
		  .seed = 42,
		  .roce_only = true}},
		{"roce_only, seed = 0x10 ,corrupt=2.5%",
		 {.corrupt_ppm = 25000, .seed = 16, .roce_only = true}},
		{"drop=100%", {.drop_ppm = 1000000}},
		{"drop=0.0001%", {.drop_ppm = 1}},
		{"dup=250ppm", {.dup_ppm = 250}},
		{"reorder=1000000ppm", {.reorder_ppm = 1000000}},
		{"delay=50%:2ms", {.delay_ppm = 500000, .delay_us = 2000}},
		{"delay=0.5%:1s", {.delay_ppm = 5000, .delay_us = 1000000}},
		{"delay=1%:1us", {.delay_ppm = 10000, .delay_us = 1}},
		{"seed=18446744073709551615,drop=0%", {.seed = UINT64_MAX}},
		{"", {0}},
		{"off", {0}},
		{"  off ", {0}},
	};

	for (unsigned i = 0; i < RTE_DIM(v); i++) {
		struct stk_impair_conf c;
		char why[128] = "";

		memset(&c, 0xa5, sizeof(c));
		if (stk_impair_parse(v[i].s, &c, why, sizeof(why)) != 0)
			fail_msg("\"%s\" refused: %s", v[i].s, why);
		if (c.drop_ppm != v[i].c.drop_ppm || c.dup_ppm != v[i].c.dup_ppm ||
		    c.reorder_ppm != v[i].c.reorder_ppm || c.corrupt_ppm != v[i].c.corrupt_ppm ||
		    c.delay_ppm != v[i].c.delay_ppm || c.delay_us != v[i].c.delay_us ||
		    c.seed != v[i].c.seed || c.roce_only != v[i].c.roce_only)
			fail_msg(
				"\"%s\": parsed to drop %u dup %u reorder %u corrupt %u delay %u:%u "
				"seed %" PRIu64 " roce_only %d",
				v[i].s, c.drop_ppm, c.dup_ppm, c.reorder_ppm, c.corrupt_ppm,
				c.delay_ppm, c.delay_us, c.seed, c.roce_only);
	}
}

static void test_parse_bad(void **state)
{
	/* the value, and what the message must name */
	static const struct {
		const char *s, *names;
	} v[] = {
		{"drop=1", "drop"},
		{"drop=101%", "drop"},
		{"drop=100.0001%", "drop"},
		{"drop=-1%", "drop"},
		{"drop=1.%", "drop"},
		{"drop=.5%", "drop"},
		{"drop=0.00001%", "drop"},
		{"drop=1000001ppm", "drop"},
		{"drop=1%%", "drop"},
		{"drop=1 %", "drop"},
		{"drop=", "drop"},
		{"dup=abc", "dup"},
		{"reorder=5", "reorder"},
		{"corrupt=1e-3%", "corrupt"},
		{"delay=1%", "delay"},
		{"delay=1%:", "delay"},
		{"delay=1%:0us", "delay"},
		{"delay=1%:2s", "delay"},
		{"delay=1%:1000001us", "delay"},
		{"delay=1%:5", "delay"},
		{"delay=1%:5min", "delay"},
		{"delay=:200us", "delay"},
		{"seed=", "seed"},
		{"seed=-1", "seed"},
		{"seed=18446744073709551616", "seed"},
		{"seed=12abc", "seed"},
		{"roce_only=yes", "roce_only"},
		{"bogus=1%", "bogus"},
		{"drop", "drop"},
		{"drop=1%,drop=2%", "drop"},
		{"seed=1,seed=2", "seed"},
		{"roce_only,roce_only", "roce_only"},
		{"drop=1%,,dup=1%", "empty"},
		{"drop=1%,", "empty"},
		{",drop=1%", "empty"},
		{"drop=1%;dup=1%", "drop"},
	};
	char longer[300];

	for (unsigned i = 0; i < RTE_DIM(v); i++) {
		struct stk_impair_conf c;
		char why[128] = "";

		memset(&c, 0xa5, sizeof(c));
		if (stk_impair_parse(v[i].s, &c, why, sizeof(why)) != -EINVAL)
			fail_msg("\"%s\" accepted", v[i].s);
		if (!strstr(why, v[i].names))
			fail_msg("\"%s\": the message \"%s\" does not name \"%s\"", v[i].s, why,
				 v[i].names);
		/* a refused value leaves the impairment off */
		assert_false(stk_impair_conf_on(&c));
		assert_false(c.roce_only);
	}
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	{
		struct stk_impair_conf c;
		char why[128] = "";

		assert_int_equal(stk_impair_parse(longer, &c, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "longer"));
	}
}

static void test_str(void **state)
{
	static const struct {
		struct stk_impair_conf c;
		const char *s;
	} v[] = {
		{{.drop_ppm = 10000,
		  .dup_ppm = 10000,
		  .reorder_ppm = 10000,
		  .corrupt_ppm = 1000,
		  .delay_ppm = 10000,
		  .delay_us = 200,
		  .seed = 42,
		  .roce_only = true},
		 "drop=1%,dup=1%,corrupt=0.1%,delay=1%:200us,reorder=1%,seed=42,roce_only"},
		{{.drop_ppm = 1}, "drop=0.0001%,seed=0"},
		{{.dup_ppm = 1000000, .seed = UINT64_MAX}, "dup=100%,seed=18446744073709551615"},
		{{.delay_ppm = 123456, .delay_us = 3000}, "delay=12.3456%:3ms,seed=0"},
		{{.delay_ppm = 5000, .delay_us = 1000000}, "delay=0.5%:1s,seed=0"},
		{{.seed = 9, .roce_only = true}, "off"},
	};
	char buf[256];

	for (unsigned i = 0; i < RTE_DIM(v); i++) {
		struct stk_impair_conf back;
		char why[128];

		assert_string_equal(stk_impair_str(&v[i].c, buf, sizeof(buf)), v[i].s);
		if (!stk_impair_conf_on(&v[i].c))
			continue;
		/* what it prints reads back as the same setting */
		assert_int_equal(stk_impair_parse(buf, &back, why, sizeof(why)), 0);
		assert_memory_equal(&back, &v[i].c, sizeof(back));
	}
	assert_string_equal(stk_impair_str(NULL, buf, sizeof(buf)), "off");
	/* a short buffer is cut, not overrun */
	memset(buf, 'z', sizeof(buf));
	stk_impair_str(&v[0].c, buf, 10);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(buf[10], 'z');
}

static void test_counter_names(void **state)
{
	static const char *const names[] = {
		"impair_dropped",   "impair_duplicated", "impair_reordered",
		"impair_corrupted", "impair_delayed",	 "impair_delay_full",
	};

	for (unsigned i = 0; i < RTE_DIM(names); i++)
		assert_string_equal(stk_counter_name(impair_counters[i]), names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_counter_names),
	};

	return cmocka_run_group_tests_name("stk_impair_conf", tests, NULL, NULL);
}
