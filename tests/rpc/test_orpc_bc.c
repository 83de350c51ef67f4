/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_orpc_bc.c - the backchannel table (rpc/svc/orpc_bc.h) alone: ids are never 0 and never
 * repeat across register/unregister cycles, a stale id answers -ENOTCONN and is not alive, a
 * full table answers 0 and counts it, and a call (or a cancel) reaches the ops and connection
 * its id names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "orpc_bc.h"

static struct orpc_bc_table t;

/* two fake transports: each call records which one and which connection it reached */
struct fake_conn {
	const char *via;
	int calls;
	uint32_t len;
	int answer;
};

static int fake_call(struct fake_conn *c, const char *via, uint32_t len, orpc_bc_done_t done,
		     void *ctx)
{
	c->via = via;
	c->calls++;
	c->len = len;
	if (!c->answer && done)
		done(ctx, 0, NULL, 0);
	return c->answer;
}

static int call_a(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx)
{
	(void)msg;
	return fake_call(conn, "a", len, done, ctx);
}

static int call_b(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx)
{
	(void)msg;
	return fake_call(conn, "b", len, done, ctx);
}

static uint32_t cancelled_xid;

static int cancel_a(void *conn, uint32_t xid)
{
	(void)conn;
	cancelled_xid = xid;
	return xid == 7 ? 0 : -ENOENT;
}

static const struct orpc_bc_ops ops_a = {.call = call_a, .cancel = cancel_a, .name = "a"};
static const struct orpc_bc_ops ops_b = {.call = call_b, .name = "b"};

static void on_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	(void)reply, (void)len;
	*(int *)ctx = err ? err : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_ids_unique(void **st)
{
	enum { ROUNDS = 5, N = ORPC_BC_MAX / 2 };
	static uint64_t seen[ROUNDS * N + 3 * ORPC_BC_MAX];
	static uint64_t ids[N];
	struct fake_conn c = {0};
	uint32_t k = 0;

	(void)st;
	orpc_bc_table_init(&t);
	/* register and unregister in waves, and one slot over and over */
	for (int r = 0; r < ROUNDS; r++) {
		for (uint32_t i = 0; i < N; i++) {
			ids[i] = orpc_bc_register(&t, &ops_a, &c);
			assert_true(ids[i] != 0);
			seen[k++] = ids[i];
		}
		for (uint32_t i = 0; i < N; i++)
			orpc_bc_unregister(&t, ids[i]);
		assert_int_equal(t.live, 0);
	}
	for (uint32_t i = 0; i < 3 * ORPC_BC_MAX; i++) {
		uint64_t id = orpc_bc_register(&t, &ops_a, &c);

		assert_true(id != 0);
		seen[k++] = id;
		orpc_bc_unregister(&t, id);
	}
	qsort(seen, k, sizeof(seen[0]), cmp_u64);
	for (uint32_t i = 1; i < k; i++)
		if (seen[i] == seen[i - 1])
			fail_msg("id %#llx given twice", (unsigned long long)seen[i]);
	assert_int_equal(t.st.registered, k);
	assert_int_equal(t.st.unregistered, k);
}

static void test_stale(void **st)
{
	struct fake_conn c = {0};
	uint64_t id, id2;
	int got = 0;

	(void)st;
	orpc_bc_table_init(&t);
	id = orpc_bc_register(&t, &ops_a, &c);
	assert_true(orpc_bc_alive(&t, id));
	orpc_bc_unregister(&t, id);
	assert_false(orpc_bc_alive(&t, id));
	assert_int_equal(orpc_bc_call(&t, id, (const uint8_t *)"x", 1, on_done, &got), -ENOTCONN);
	assert_int_equal(c.calls, 0);
	assert_int_equal(got, 0);
	assert_int_equal(t.st.stale, 1);
	/* unregistering it again, or 0, changes nothing */
	orpc_bc_unregister(&t, id);
	orpc_bc_unregister(&t, 0);
	assert_int_equal(t.st.unregistered, 1);
	/* a new registration never answers to the old id, even if in the same slot */
	for (uint32_t i = 0; i < 2 * ORPC_BC_MAX; i++) {
		id2 = orpc_bc_register(&t, &ops_a, &c);
		assert_true(id2 != id);
		assert_false(orpc_bc_alive(&t, id));
		orpc_bc_unregister(&t, id2);
	}
	/* 0 and no table are never alive */
	assert_false(orpc_bc_alive(&t, 0));
	assert_false(orpc_bc_alive(NULL, 5));
	assert_int_equal(orpc_bc_call(&t, 0, (const uint8_t *)"x", 1, on_done, &got), -ENOTCONN);
	assert_int_equal(orpc_bc_call(NULL, id, (const uint8_t *)"x", 1, on_done, &got), -ENOTCONN);
	assert_int_equal(c.calls, 0);
}

static void test_full(void **st)
{
	static uint64_t ids[ORPC_BC_MAX];
	struct fake_conn c = {0};

	(void)st;
	orpc_bc_table_init(&t);
	for (uint32_t i = 0; i < ORPC_BC_MAX; i++) {
		ids[i] = orpc_bc_register(&t, &ops_a, &c);
		assert_true(ids[i] != 0);
	}
	assert_int_equal(t.live, ORPC_BC_MAX);
	assert_int_equal(orpc_bc_register(&t, &ops_a, &c), 0);
	assert_int_equal(orpc_bc_register(&t, &ops_b, &c), 0);
	assert_int_equal(t.st.full, 2);
	/* one goes: there is room again */
	orpc_bc_unregister(&t, ids[7]);
	ids[7] = orpc_bc_register(&t, &ops_a, &c);
	assert_true(ids[7] != 0);
	assert_int_equal(t.st.full, 2);
	for (uint32_t i = 0; i < ORPC_BC_MAX; i++)
		assert_true(orpc_bc_alive(&t, ids[i]));
}

static void test_calls_reach_their_conn(void **st)
{
	struct fake_conn c1 = {0}, c2 = {0}, c3 = {.answer = -EBUSY};
	uint64_t i1, i2, i3;
	int got = 0;

	(void)st;
	orpc_bc_table_init(&t);
	i1 = orpc_bc_register(&t, &ops_a, &c1);
	i2 = orpc_bc_register(&t, &ops_b, &c2);
	i3 = orpc_bc_register(&t, &ops_a, &c3);
	assert_true(i1 != i2 && i2 != i3 && i1 != i3);
	assert_int_equal(orpc_bc_call(&t, i2, (const uint8_t *)"abcd", 4, on_done, &got), 0);
	assert_int_equal(c2.calls, 1);
	assert_string_equal(c2.via, "b");
	assert_int_equal(c2.len, 4);
	assert_int_equal(c1.calls, 0);
	assert_int_equal(got, 1);
	assert_int_equal(orpc_bc_call(&t, i1, (const uint8_t *)"ab", 2, on_done, &got), 0);
	assert_int_equal(c1.calls, 1);
	assert_string_equal(c1.via, "a");
	assert_int_equal(c1.len, 2);
	/* what the transport answers comes back, and is counted as refused */
	got = 0;
	assert_int_equal(orpc_bc_call(&t, i3, (const uint8_t *)"ab", 2, on_done, &got), -EBUSY);
	assert_int_equal(c3.calls, 1);
	assert_int_equal(got, 0);
	assert_int_equal(t.st.calls, 2);
	assert_int_equal(t.st.refused, 1);
	/* the others stay when one goes */
	orpc_bc_unregister(&t, i2);
	assert_true(orpc_bc_alive(&t, i1));
	assert_true(orpc_bc_alive(&t, i3));
	assert_int_equal(orpc_bc_call(&t, i2, (const uint8_t *)"ab", 2, on_done, &got), -ENOTCONN);
	assert_int_equal(c2.calls, 1);
	/* a cancel reaches its transport; a stale id answers -ENOTCONN, ops without cancel
	 * -ENOENT */
	assert_int_equal(orpc_bc_cancel(&t, i1, 7), 0);
	assert_int_equal(cancelled_xid, 7);
	assert_int_equal(orpc_bc_cancel(&t, i1, 8), -ENOENT);
	assert_int_equal(orpc_bc_cancel(&t, i2, 7), -ENOTCONN);
	i2 = orpc_bc_register(&t, &ops_b, &c2);
	assert_int_equal(orpc_bc_cancel(&t, i2, 7), -ENOENT);
	assert_int_equal(orpc_bc_cancel(NULL, i2, 7), -ENOTCONN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_unique),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_calls_reach_their_conn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
