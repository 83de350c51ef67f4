/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_rm.c - RFC 5531 §11 record marking: the reassembly state machine (orpc_rm.h), in the
 * house style: one step per state, a loop until the state stops changing, one counting setter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orpc_rm.h"

#define ORPC_RM_NAME_(n) #n,
static const char *const state_names[] = {ORPC_RM_STATE_LIST(ORPC_RM_NAME_)};

const char *orpc_rm_state_name(enum orpc_rm_state s)
{
	return s < ORPC_RM_NUM_STATES ? state_names[s] : "unknown";
}

static void set_state(struct orpc_rm *rm, enum orpc_rm_state s)
{
	rm->state = s;
	rm->state_cnt[s]++;
}

int orpc_rm_init(struct orpc_rm *rm, uint32_t max_record)
{
	memset(rm, 0, sizeof(*rm));
	rm->max_record = max_record ? max_record : ORPC_RM_DEFAULT_MAX;
	rm->rec_cap = rm->max_record < 4096 ? rm->max_record : 4096;
	rm->rec = malloc(rm->rec_cap ? rm->rec_cap : 1);
	if (!rm->rec)
		return -ENOMEM;
	set_state(rm, ORPC_RM_MARK);
	return 0;
}

void orpc_rm_fini(struct orpc_rm *rm)
{
	free(rm->rec);
	rm->rec = NULL;
}

void orpc_rm_mark(uint8_t out[4], uint32_t len, bool last)
{
	uint32_t v = (len & ~ORPC_RM_LAST) | (last ? ORPC_RM_LAST : 0);

	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
}

/* room for n more bytes of record, or false when that passes max_record */
static bool reserve(struct orpc_rm *rm, uint32_t n)
{
	uint32_t cap = rm->rec_cap;
	uint8_t *p;

	if (n > rm->max_record - rm->rec_len)
		return false;
	while (cap - rm->rec_len < n)
		cap = cap > rm->max_record / 2 ? rm->max_record : cap * 2;
	if (cap == rm->rec_cap)
		return true;
	p = realloc(rm->rec, cap);
	if (!p)
		return false;
	rm->rec = p;
	rm->rec_cap = cap;
	return true;
}

static enum orpc_rm_state step_mark(struct orpc_rm *rm, const uint8_t *buf, uint32_t len,
				    uint32_t *off)
{
	uint32_t v;

	while (rm->mark_got < 4 && *off < len)
		rm->mark[rm->mark_got++] = buf[(*off)++];
	if (rm->mark_got < 4)
		return ORPC_RM_MARK;
	rm->mark_got = 0;
	v = (uint32_t)rm->mark[0] << 24 | (uint32_t)rm->mark[1] << 16 | (uint32_t)rm->mark[2] << 8 |
	    rm->mark[3];
	rm->last = v & ORPC_RM_LAST;
	rm->frag_left = v & ~ORPC_RM_LAST;
	rm->frags++;
	/* count the whole fragment against the bound before taking any of it */
	if (!reserve(rm, rm->frag_left))
		return ORPC_RM_TOO_BIG;
	if (rm->frag_left == 0 && rm->last)
		return rm->rec_len ? ORPC_RM_RECORD : ORPC_RM_EMPTY;
	return ORPC_RM_FRAG;
}

static enum orpc_rm_state step_frag(struct orpc_rm *rm, const uint8_t *buf, uint32_t len,
				    uint32_t *off)
{
	uint32_t n = len - *off < rm->frag_left ? len - *off : rm->frag_left;

	memcpy(rm->rec + rm->rec_len, buf + *off, n);
	rm->rec_len += n;
	rm->frag_left -= n;
	*off += n;
	if (rm->frag_left)
		return ORPC_RM_FRAG;
	if (rm->last)
		return rm->rec_len ? ORPC_RM_RECORD : ORPC_RM_EMPTY;
	return ORPC_RM_MARK;
}

uint32_t orpc_rm_feed(struct orpc_rm *rm, const uint8_t *buf, uint32_t len)
{
	enum orpc_rm_state prev, next;
	uint32_t off = 0;

	do {
		prev = rm->state;
		switch (rm->state) {
		case ORPC_RM_MARK:
			next = step_mark(rm, buf, len, &off);
			break;
		case ORPC_RM_FRAG:
			next = step_frag(rm, buf, len, &off);
			break;
		default: /* RECORD, TOO_BIG, EMPTY wait for the caller */
			next = rm->state;
			break;
		}
		if (next != prev)
			set_state(rm, next);
	} while (rm->state != prev);
	return off;
}

uint8_t *orpc_rm_take(struct orpc_rm *rm)
{
	uint32_t cap = rm->max_record < 4096 ? rm->max_record : 4096;
	uint8_t *fresh, *rec;

	if (rm->state != ORPC_RM_RECORD)
		return NULL;
	fresh = malloc(cap ? cap : 1);
	if (!fresh)
		return NULL;
	rec = rm->rec;
	rm->rec = fresh;
	rm->rec_cap = cap;
	orpc_rm_consume(rm);
	return rec;
}

void orpc_rm_consume(struct orpc_rm *rm)
{
	if (rm->state != ORPC_RM_RECORD)
		return;
	rm->rec_len = 0;
	rm->frags = 0;
	set_state(rm, ORPC_RM_MARK);
}
