/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_cat.h - droce-gen's catalogue of malformed and adversarial RoCEv2 frames (issue 18
 * item 2): each entry sends its frames to a connected RC QP of a peer, watches the peer's
 * replies, and checks with a follow-up probe whether the QP still works. The QPs are a
 * perftest server's (ib_write_bw, ib_atomic_bw, droce-perf), connected by perftest's TCP
 * exchange with keys droce-gen makes up: droce-gen is a raw requester, so every frame is
 * built here, valid or not.
 */
#ifndef GEN_CAT_H
#define GEN_CAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stk_iface.h"
#include "stk_lcore.h"

/** Which perftest server's QPs an entry runs on (their memory's rights differ). */
enum gen_cat_verb {
	GEN_CAT_WRITE,	/**< ib_write_bw: REMOTE_WRITE */
	GEN_CAT_ATOMIC, /**< ib_atomic_bw: REMOTE_ATOMIC */
	GEN_CAT_NUM_VERBS
};

/* X(name, text): how a peer answers, as droce-gen classifies what comes back */
#define GEN_CAT_REACTS(X)                                                                          \
	X(NONE, "nothing (silent drop)")                                                           \
	X(ACK, "ACK")                                                                              \
	X(NAK_SEQ, "NAK PSN sequence error")                                                       \
	X(NAK_INV, "NAK invalid request")                                                          \
	X(NAK_RAE, "NAK remote access error")                                                      \
	X(NAK_ROE, "NAK remote operational error")                                                 \
	X(NAK_OTHER, "NAK (reserved code)")                                                        \
	X(RNR, "RNR NAK")                                                                          \
	X(READ_RESP, "READ response")                                                              \
	X(ATOMIC_ACK, "atomic ACK")                                                                \
	X(CNP, "CNP")                                                                              \
	X(OTHER, "another opcode")

#define GEN_CAT_REACT_ENUM_(n, s) GEN_CAT_##n,
enum gen_cat_react { GEN_CAT_REACTS(GEN_CAT_REACT_ENUM_) GEN_CAT_NUM_REACTS };
#undef GEN_CAT_REACT_ENUM_

/** One RoCEv2 packet from the peer, decoded. */
struct gen_cat_reply {
	uint8_t opcode;
	uint8_t syndrome; /**< AETH, when the opcode carries one */
	bool has_aeth;
	uint32_t dqpn, psn, msn;
	enum gen_cat_react react;
};

/**
 * Decode the UDP payload of a RoCEv2 packet (BTH first, ICRC last; the ICRC is not checked
 * here) as a reply a requester gets. Every length is checked first.
 * @return 0, or -1 when it is too short for its BTH or the opcode's AETH, or its pad.
 */
int gen_cat_decode(const uint8_t *p, uint32_t len, struct gen_cat_reply *r);

/** @return the text of @p r. */
const char *gen_cat_react_name(enum gen_cat_react r);

/** What droce-gen --catalogue is asked to do. */
struct gen_cat_opts {
	enum gen_cat_verb verb;	  /**< the server's kind: which entries run */
	struct stk_ipaddr server; /**< its address (IPv4) */
	uint16_t port;		  /**< its perftest port (18515) */
	uint32_t wait_ms;	  /**< how long to watch for replies, per phase */
	const char *only;	  /**< comma-separated entry names, or NULL for all */
	const char *peer;	  /**< "droce" or "rxe": whose known deviations apply */
	uint16_t iface;
	bool json;
};

/** @return the verb named @p s ("write", "atomic"), or GEN_CAT_NUM_VERBS. */
enum gen_cat_verb gen_cat_verb_parse(const char *s);

/** @return how many QPs the entries for @p verb (and @p only) take: the server's -q, or -1
 * with a message when @p only names an entry that does not exist or is another verb's. */
int gen_cat_qps(enum gen_cat_verb verb, const char *only);

/** Print the catalogue (every entry, its verb, the spec's expectation and its source). */
void gen_cat_list(FILE *f);

/** Start the mode: bind UDP 4791 and start the control thread that runs perftest's exchange.
 * Called after stk_setup(). @return 0 or -errno (with a message). */
int gen_cat_start(const struct gen_cat_opts *o);

/** The poll hook's step (the main lcore). @return true when the run is over. */
bool gen_cat_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now);

/** After the stack stopped: join the control thread, print the verdict table (or JSON).
 * @return the exit status: 0 when every entry ran and matched what was expected of the peer. */
int gen_cat_finish(void);

#endif /* GEN_CAT_H */
