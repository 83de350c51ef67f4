/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_lcore_steps.c - the loop's slow-step meter (stk_lcore_step, stk_lcore.h): a poll hook
 * or a part of one that runs STK_SLOW_STEP_MS or more is counted under its own name, with
 * its longest run; the longest of all keeps what the thread did around it (getrusage); quick
 * steps leave nothing; the caller's time between two stk_lcore_poll() calls is not a step,
 * but under stk_lcore_main() the time between polls is ("between polls"). Names past the
 * table's room share its last slot.
 */
#include <time.h>

#include "ut_input_fixture.h"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

static uint64_t ms_tsc(unsigned ms)
{
	return rte_get_tsc_hz() / 1000u * ms;
}

/* the meter's entry for @p name, or NULL */
static const struct stk_step_stat *stat_of(const char *name)
{
	for (unsigned i = 0; i < STK_MAX_STEPS && fx.lc->steps[i].name; i++)
		if (strcmp(fx.lc->steps[i].name, name) == 0)
			return &fx.lc->steps[i];
	return NULL;
}

static void sleeper(struct stk_lcore *lc, void *arg)
{
	sleep_ms(*(unsigned *)arg);
}

static void quick(struct stk_lcore *lc, void *arg)
{
	(*(unsigned *)arg)++;
}

/* A hook that sleeps 30 ms is one slow step under its name; the thread blocked in it. */
static void test_slow_hook_named(void **state)
{
	unsigned ms = 30, n = 0;
	const struct stk_step_stat *s;

	assert_int_equal(stk_lcore_add_poll_as(fx.lc, quick, &n, "quick"), 0);
	assert_int_equal(stk_lcore_add_poll_as(fx.lc, sleeper, &ms, "sleeper"), 0);
	stk_lcore_poll(fx.lc);
	assert_int_equal(n, 1);
	s = stat_of("sleeper");
	assert_non_null(s);
	assert_int_equal(s->slow, 1);
	assert_true(s->max_tsc >= ms_tsc(ms));
	assert_true(fx.lc->slow_steps >= 1);
	assert_null(stat_of("quick"));
	/* the longest slow step: the sleep, and the thread gave up its CPU in it */
	assert_non_null(fx.lc->worst.step);
	assert_string_equal(fx.lc->worst.step, "sleeper");
	assert_true(fx.lc->worst.tsc >= ms_tsc(ms));
	assert_true(fx.lc->worst.use.tsc >= fx.lc->worst.tsc);
	assert_true(fx.lc->worst.use.vcsw >= 1);
	/* a second, longer run: counted again, its length the new longest */
	ms = 45;
	stk_lcore_poll(fx.lc);
	assert_int_equal(s->slow, 2);
	assert_true(s->max_tsc >= ms_tsc(45));
	assert_true(fx.lc->worst.tsc >= ms_tsc(45));
}

/* A hook unnamed is "hook N", N its place in the loop. */
static void test_unnamed_hook(void **state)
{
	unsigned ms = 15, n = 0;

	assert_int_equal(stk_lcore_add_poll(fx.lc, quick, &n), 0);
	assert_int_equal(stk_lcore_add_poll(fx.lc, sleeper, &ms), 0);
	stk_lcore_poll(fx.lc);
	assert_null(stat_of("hook 0"));
	assert_non_null(stat_of("hook 1"));
	assert_int_equal(stat_of("hook 1")->slow, 1);
}

/* A hook marks its parts: the slow one is named, not the hook. */
static void marker(struct stk_lcore *lc, void *arg)
{
	stk_lcore_step(lc, "marker: first part");
	stk_lcore_step(lc, "marker: slow part");
	sleep_ms(*(unsigned *)arg);
	stk_lcore_step(lc, "marker: last part");
}

static void test_hook_marks_its_parts(void **state)
{
	unsigned ms = 20;

	assert_int_equal(stk_lcore_add_poll_as(fx.lc, marker, &ms, "marker"), 0);
	stk_lcore_poll(fx.lc);
	assert_non_null(stat_of("marker: slow part"));
	assert_int_equal(stat_of("marker: slow part")->slow, 1);
	assert_null(stat_of("marker"));
	assert_null(stat_of("marker: first part"));
	assert_null(stat_of("marker: last part"));
	assert_string_equal(fx.lc->worst.step, "marker: slow part");
}

/* Outside stk_lcore_main, the caller's time between two polls is no step of the loop. */
static void test_caller_gap_not_a_step(void **state)
{
	unsigned n = 0;

	assert_int_equal(stk_lcore_add_poll_as(fx.lc, quick, &n, "quick"), 0);
	stk_lcore_poll(fx.lc);
	sleep_ms(30);
	stk_lcore_poll(fx.lc);
	assert_int_equal(n, 2);
	assert_null(stat_of("between polls"));
	assert_null(stat_of("rx"));
	assert_null(fx.lc->worst.step);
}

/* Names past the table's room share its last slot, "other steps". */
static void many_names(struct stk_lcore *lc, void *arg)
{
	static const char *const names[] = {
		"s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08",
		"s09", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17",
		"s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",
	};

	for (unsigned i = 0; i < RTE_DIM(names); i++) {
		stk_lcore_step(lc, names[i]);
		sleep_ms(STK_SLOW_STEP_MS + 1);
	}
	stk_lcore_step(lc, "many: end");
}

static void test_names_past_room(void **state)
{
	assert_int_equal(stk_lcore_add_poll_as(fx.lc, many_names, NULL, "many"), 0);
	stk_lcore_poll(fx.lc);
	for (unsigned i = 0; i < STK_MAX_STEPS - 1; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%02u", i);
		assert_non_null(stat_of(name));
		assert_int_equal(stat_of(name)->slow, 1);
	}
	assert_null(stat_of("s23"));
	assert_null(stat_of("s25"));
	assert_non_null(stat_of("other steps"));
	assert_int_equal(stat_of("other steps")->slow, 26 - (STK_MAX_STEPS - 1));
	assert_int_equal(fx.lc->slow_steps, 26);
}

/* Under stk_lcore_main, the time between polls is a step: here the idle back-off's sleeps
 * (30 ms each, asked for at once) are counted under "between polls". (Last in the file: it
 * stops the stack, which nothing here starts again.) */
static void stopper(struct stk_lcore *lc, void *arg)
{
	if (++*(unsigned *)arg == 3)
		stk_stop();
}

static void test_main_loop_between_polls(void **state)
{
	unsigned n = 0;

	assert_int_equal(stk_lcore_add_poll_as(fx.lc, stopper, &n, "stopper"), 0);
	stk_lcore_set_idle(fx.lc, 30000, 0);
	assert_int_equal(stk_lcore_main(fx.lc), 0);
	assert_int_equal(n, 3);
	assert_true(fx.lc->idle_sleeps >= 2);
	assert_non_null(stat_of("between polls"));
	assert_true(stat_of("between polls")->slow >= 2);
	assert_true(stat_of("between polls")->max_tsc >= ms_tsc(30));
	assert_null(stat_of("stopper"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_slow_hook_named),      T(test_unnamed_hook),
		T(test_hook_marks_its_parts), T(test_caller_gap_not_a_step),
		T(test_names_past_room),      T(test_main_loop_between_polls),
	};

	return ut_input_main("test_lcore_steps", tests, RTE_DIM(tests));
}
