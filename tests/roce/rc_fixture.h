/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_fixture.h - the fixture of the RC tests (test_rc.c, test_rc_recovery.c, test_rc_mr.c,
 * test_rc_violations.c): two stack interfaces in one process whose net_ring ports are crossed
 * (A's TX ring is B's RX ring), one lcore context running the stack and both transport
 * devices, and on each side a device, PD, CQ and a 34 MiB registered buffer. Side 0 is A
 * (10.77.0.1), side 1 is B (10.77.0.2). The group teardown checks that the mempool and every
 * verbs object are back to empty.
 *
 * Around it: connecting an RC or UC QP pair, posting work requests, polling for completions,
 * and forging frames as a QP of the other side would send them (the tests' hostile or lost
 * packets, built with roce_tx_build and sent through the stack).
 */
#ifndef RC_FIXTURE_H
#define RC_FIXTURE_H

#include <stdint.h>

#include <rte_mempool.h>

#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_lcore.h"

/* RC_ASAN: built with AddressSanitizer (a test that frees memory under ASan only, or skips a
 * case too long there) */
#if defined(__SANITIZE_ADDRESS__)
#define RC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RC_ASAN 1
#endif
#endif
#ifndef RC_ASAN
#define RC_ASAN 0
#endif

#define RCF_BUF (34u << 20) /* a 16 MiB source, and a 16 MiB target from 17 MiB */

/** One side of the pair: its device and verbs objects, and its registered buffer. */
struct rcf_side {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp; /**< set by rcf_connect_pair() / rcf_connect_uc() */
	uint8_t *buf;	    /**< RCF_BUF bytes, registered as mr with every access right */
	struct roce_mr *mr;
};

extern struct rte_mempool *rcf_pool;
extern struct stk_lcore *rcf_lc; /**< polls both ports and runs both devices */
extern uint16_t rcf_port[2];
extern struct rcf_side rcf_s[2]; /**< [0] is A, [1] is B */

/** The QPs' local ACK timeout for the next rcf_connect_pair() (10 unless a test asks). */
extern uint8_t rcf_qp_timeout;
/** B's max_dest_rd_atomic for the next rcf_connect_pair() (4 unless a test asks). */
extern uint8_t rcf_responder_resources;
/** When set, B's QP of the next rcf_connect_pair() takes its receives from this SRQ. */
extern struct roce_srq *rcf_b_srq;

/** cmocka group setup and teardown: the rings, ports, interfaces, lcore and both sides. */
int rcf_group_setup(void **st);
int rcf_group_teardown(void **st);

/**
 * Initialise the EAL as every RC test program does: no hugepages, PCI, shared files or
 * telemetry; two lcores on CPU 0 (a test may drive a second lcore context by hand). Applies
 * DROCE_TEST_FILTER (run only the tests matching that pattern) when it is set.
 * @param prog  the program's name (argv[0] for the EAL)
 * @return 0, or -1 when rte_eal_init fails
 */
int rcf_eal_init(const char *prog);

/** Poll the lcore context @iters times. */
void rcf_drive(unsigned iters);
/** Poll until @n completions arrive on side @k's CQ (bounded: 30 s); returns how many did. */
int rcf_wait_wc(int k, struct roce_wc *wc, int n);

/** Two RC QPs in RTS at path MTU @mtu; A sends from PSN 0xfffff0 (B's PSNs wrap), B from 100. */
void rcf_connect_pair(enum roce_mtu mtu, uint8_t rnr_retry, uint8_t min_rnr);
/** Two UC QPs in RTS, both sending from PSN 500. */
void rcf_connect_uc(void);
/** Destroy both QPs, empty both CQs and let in-flight frames drain. */
void rcf_disconnect_pair(void);

/** Fill @len bytes at @p with a pattern that depends on @seed. */
void rcf_fill(uint8_t *p, uint32_t len, uint32_t seed);
/** Post a receive on side @k's QP into its buffer at @off, @len bytes. */
void rcf_post_recv(int k, uint64_t id, uint32_t off, uint32_t len);
/** Post a receive on rcf_b_srq into B's buffer at @off, @len bytes. */
void rcf_post_srq_recv(uint64_t id, uint32_t off, uint32_t len);
/** Post a signaled @op on side @k's QP from its buffer at @off (immediate 0xc0ffee00 + @id). */
void rcf_post(int k, enum roce_wr_opcode op, uint64_t id, uint32_t off, uint32_t len,
	      uint64_t raddr, uint32_t rkey);
/** Post an atomic from A to the 8 bytes at @target in B's buffer, result at A's @result_off. */
void rcf_post_atomic(uint64_t id, enum roce_wr_opcode op, uint32_t result_off, uint64_t *target,
		     uint64_t add);

/** Send @t to B's QP from A's interface, as A's QP would, then poll @polls times. */
void rcf_inject_to_b_polls(struct roce_tx *t, const void *payload, uint32_t len, unsigned polls);
/** rcf_inject_to_b_polls() with 20 polls. */
void rcf_inject_to_b(struct roce_tx *t, const void *payload, uint32_t len);
/** A forged READ response to A's QP from B's interface (zero copy), then 5 polls. */
void rcf_forge_read_resp_to_a(uint8_t opcode, uint32_t psn, const void *payload, uint32_t len);
/** A forged ACK/NAK to A's QP from B's interface, AETH syndrome @syn at @psn; 20 polls. */
void rcf_forge_ack_to_a(uint32_t psn, uint8_t syn);
/** A packet from side @from built as opcode @built, relabelled @as (trailing payload). */
void rcf_inject_relabelled(int from, uint8_t built, uint8_t as, uint32_t psn, uint64_t va,
			   uint32_t rkey, const void *payload, uint32_t len);
/** A frame to side @to's QP with IP source @src, P_Key @pkey and ECN @ecn; 20 polls. */
void rcf_forge_to(int to, const char *src, uint8_t opcode, uint32_t psn, uint16_t pkey, uint8_t ecn,
		  const void *payload, uint32_t len);

#endif /* RC_FIXTURE_H */
