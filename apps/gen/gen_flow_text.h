/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow_text.h - the text droce-gen's flow mode reads and writes (issue 18 item 1), apart
 * from the transport so unit tests and a fuzz target take it alone:
 * - the operation mix of --flow: "write", "read", "send", "atomic", a weighted mix
 *   "write:3,read:1,send:1,atomic:1", or "ud" (UD SENDs);
 * - the size mix of --sizes: "SIZE[:WEIGHT],...";
 * - a QP's keys in the manual exchange: "qpn=0x11 psn=0x2a rkey=0x1234 va=0x7f.. len=65600"
 *   (key=value words, separated by blanks or commas; a peer prints them, a user pastes them).
 */
#ifndef GEN_FLOW_TEXT_H
#define GEN_FLOW_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define GEN_FLOW_MAX_SIZES 8
#define GEN_FLOW_MAX_SIZE (1u << 20)
/** With atomics in the mix they take the peer's first 8 bytes (at va); WRITEs and READs go to
 * va + this. */
#define GEN_FLOW_ATOMIC_ROOM 64

/** The operations a flow posts. */
enum gen_flow_verb {
	GEN_FLOW_WRITE,	 /**< RDMA WRITE (ib_write_bw) */
	GEN_FLOW_READ,	 /**< RDMA READ (ib_read_bw) */
	GEN_FLOW_SEND,	 /**< SEND: the peer must have receives posted */
	GEN_FLOW_ATOMIC, /**< FETCH_ADD of 1 on the peer's first 8 bytes */
	GEN_FLOW_NUM_VERBS
};

/** @return the verb's name ("write", ...), "?" when out of range. */
const char *gen_flow_verb_name(enum gen_flow_verb v);

/** The operation mix of --flow. */
struct gen_flow_mix {
	uint32_t weight[GEN_FLOW_NUM_VERBS]; /**< 0: never; weights 1..1000 */
	uint32_t wsum;
	int ud; /**< "ud": datagrams (SEND only) */
};

/** Parse --flow's value into @p m. @return 0, or -1 (@p m zeroed). */
int gen_flow_parse_mix(const char *s, struct gen_flow_mix *m);

/** Format @p m as --flow takes it ("write:2,read:1", "ud") into @p buf. */
void gen_flow_format_mix(const struct gen_flow_mix *m, char *buf, size_t n);

/** Parse a size mix "SIZE[:WEIGHT],..." (sizes 1..1 MiB with k/m suffixes, weights 1..1000,
 * at most 8). @return the number of sizes, or -1. */
int gen_flow_parse_sizes(const char *s, uint32_t size[GEN_FLOW_MAX_SIZES],
			 uint32_t weight[GEN_FLOW_MAX_SIZES]);

/** The keys of a manual exchange. */
enum gen_key {
	GEN_KEY_QPN,	   /**< the QP's number (24 bits) */
	GEN_KEY_PSN,	   /**< the first PSN it expects (24 bits) */
	GEN_KEY_RKEY,	   /**< the region's rkey */
	GEN_KEY_VA,	   /**< the region's address */
	GEN_KEY_LEN,	   /**< the region's length */
	GEN_KEY_QKEY,	   /**< UD: the Q_Key its QP takes */
	GEN_KEY_MTU,	   /**< its path MTU: 256, 512, 1024, 2048 or 4096 */
	GEN_KEY_RD_ATOMIC, /**< READs and atomics it takes in flight, 1..16 */
	GEN_KEY_IP,	   /**< its IPv4 address (information: the flow's is --peer) */
	GEN_KEY_NUM
};

struct gen_keys {
	uint32_t have; /**< 1 << enum gen_key for each key given */
	uint64_t v[GEN_KEY_NUM];
};

/**
 * Parse one line of keys. Words without '=' are skipped, so a peer's whole output line can be
 * pasted; every key at most once. @return the number of keys found (0: a line without keys),
 * or -1 with what is wrong written to @p why (a NUL-terminated sentence).
 */
int gen_keys_parse(const char *line, struct gen_keys *k, char *why, size_t whylen);

/** Format @p k (the keys it has, in enum order) into @p buf as gen_keys_parse() reads it. */
void gen_keys_format(const struct gen_keys *k, char *buf, size_t n);

/** @return the name of @p key ("qpn", ...). */
const char *gen_key_name(enum gen_key key);

#endif /* GEN_FLOW_TEXT_H */
