/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_bc.c - the backchannel table (orpc_bc.h): ids are a sequence number above the slot
 * index, so an id names one registration only, and a lookup is one slot's compare.
 */
#include "orpc_bc.h"

#include <errno.h>
#include <string.h>

#define SLOT_BITS 10u /* ORPC_BC_MAX = 1 << SLOT_BITS */
_Static_assert((1u << SLOT_BITS) == ORPC_BC_MAX, "slot bits");

void orpc_bc_table_init(struct orpc_bc_table *t)
{
	memset(t, 0, sizeof(*t));
	t->next_seq = 1;
}

static struct orpc_bc_entry *lookup(const struct orpc_bc_table *t, uint64_t id)
{
	const struct orpc_bc_entry *e;

	if (!t || !id)
		return NULL;
	e = &t->e[id & (ORPC_BC_MAX - 1)];
	return e->id == id ? (struct orpc_bc_entry *)e : NULL;
}

uint64_t orpc_bc_register(struct orpc_bc_table *t, const struct orpc_bc_ops *ops, void *conn)
{
	/* start where the sequence points, so slots are spread and a freed slot rests a while */
	uint32_t start = (uint32_t)(t->next_seq & (ORPC_BC_MAX - 1));

	for (uint32_t k = 0; k < ORPC_BC_MAX; k++) {
		uint32_t i = (start + k) & (ORPC_BC_MAX - 1);
		struct orpc_bc_entry *e = &t->e[i];

		if (e->id)
			continue;
		e->id = (t->next_seq++ << SLOT_BITS) | i;
		e->ops = ops;
		e->conn = conn;
		t->live++;
		t->st.registered++;
		return e->id;
	}
	t->st.full++;
	return 0;
}

void orpc_bc_unregister(struct orpc_bc_table *t, uint64_t id)
{
	struct orpc_bc_entry *e = lookup(t, id);

	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	t->live--;
	t->st.unregistered++;
}

bool orpc_bc_alive(const struct orpc_bc_table *t, uint64_t id)
{
	return lookup(t, id) != NULL;
}

int orpc_bc_call(struct orpc_bc_table *t, uint64_t id, const uint8_t *msg, uint32_t len,
		 orpc_bc_done_t done, void *ctx)
{
	struct orpc_bc_entry *e = lookup(t, id);
	int rc;

	if (!e) {
		if (t)
			t->st.stale++;
		return -ENOTCONN;
	}
	rc = e->ops->call(e->conn, msg, len, done, ctx);
	if (rc)
		t->st.refused++;
	else
		t->st.calls++;
	return rc;
}

int orpc_bc_cancel(struct orpc_bc_table *t, uint64_t id, uint32_t xid)
{
	struct orpc_bc_entry *e = lookup(t, id);

	if (!e)
		return -ENOTCONN;
	return e->ops->cancel ? e->ops->cancel(e->conn, xid) : -ENOENT;
}
