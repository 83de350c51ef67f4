/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_rm.h - ONC RPC record marking for stream transports (RFC 5531 §11): a record is one or
 * more fragments, each behind a 4-byte mark whose top bit says "last fragment" and whose low
 * 31 bits give the fragment's length. The reassembler is a small state machine fed with
 * whatever bytes the socket gave, in any split; it bounds the record size so a peer cannot make
 * it grow without end (the connection is then closed, and only that one).
 */
#ifndef ORPC_RM_H
#define ORPC_RM_H

#include <stdbool.h>
#include <stdint.h>

#define ORPC_RM_LAST 0x80000000u
#define ORPC_RM_DEFAULT_MAX (2u << 20) /**< 2 MiB: a 1 MiB READ/WRITE and its headers */

#define ORPC_RM_STATE_LIST(X)                                                                      \
	X(MARK)	   /**< collecting the 4 bytes of a fragment mark */                               \
	X(FRAG)	   /**< collecting a fragment's bytes */                                           \
	X(RECORD)  /**< a whole record is in rec/rec_len; orpc_rm_consume() to go on */            \
	X(TOO_BIG) /**< the record would exceed max_record: close the connection */                \
	X(EMPTY)   /**< a record of zero bytes: not an RPC message; close the connection */

#define ORPC_RM_STATE_ENUM_(n) ORPC_RM_##n,
enum orpc_rm_state { ORPC_RM_STATE_LIST(ORPC_RM_STATE_ENUM_) ORPC_RM_NUM_STATES };

struct orpc_rm {
	enum orpc_rm_state state;
	uint8_t mark[4];
	uint32_t mark_got;
	uint32_t frag_left; /**< bytes of the current fragment still to come */
	bool last;	    /**< the current fragment ends the record */
	uint8_t *rec;	    /**< the record so far (grows by doubling up to max_record) */
	uint32_t rec_len, rec_cap, max_record;
	uint32_t frags; /**< fragments in the record so far */
	uint64_t state_cnt[ORPC_RM_NUM_STATES];
};

/** Set up; max_record 0 = ORPC_RM_DEFAULT_MAX. @return 0 or -ENOMEM */
int orpc_rm_init(struct orpc_rm *rm, uint32_t max_record);
void orpc_rm_fini(struct orpc_rm *rm);

/**
 * Feed bytes. Stops early when a record is complete (state RECORD) or the stream is bad
 * (TOO_BIG, EMPTY); feed the rest again after orpc_rm_consume().
 * @return bytes taken from buf
 */
uint32_t orpc_rm_feed(struct orpc_rm *rm, const uint8_t *buf, uint32_t len);

/** The record in rec/rec_len has been handled: start the next. */
void orpc_rm_consume(struct orpc_rm *rm);

/**
 * Take the record (state RECORD) away: the caller owns rec (free() it) and the reassembler
 * goes on with a new, small buffer, as orpc_rm_consume does. For a record that must outlive
 * the next one (a deferred call's arguments point into it).
 * @return the record's buffer, or NULL (out of memory: nothing changed)
 */
uint8_t *orpc_rm_take(struct orpc_rm *rm);

/** Write a last-fragment mark for a record of len bytes. */
void orpc_rm_mark(uint8_t out[4], uint32_t len, bool last);

const char *orpc_rm_state_name(enum orpc_rm_state s);

#endif /* ORPC_RM_H */
