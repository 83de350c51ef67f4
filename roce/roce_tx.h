/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_tx.h - framing one RoCEv2 packet: BTH and the extension headers its opcode carries
 * (from the opcode table), the payload (copied, or attached zero-copy from registered
 * memory as an external buffer), pad to a 4-byte boundary, and the ICRC, inside the stack's
 * UDP/IP/Ethernet encapsulation (DSCP/ECN/PCP per path, zero UDP checksum, the Linux/mlx5
 * UDP source port rule). The destination MAC is left to neighbour resolution.
 */
#ifndef ROCE_TX_H
#define ROCE_TX_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_verbs.h"
#include "stk_iface.h"

/** The fields of one packet; extension fields are used when the opcode carries them. */
struct roce_tx {
	const struct roce_path *path; /**< destination and marking */
	uint32_t lqpn;		      /**< our QP (for the UDP source port) */
	uint32_t dqpn;		      /**< BTH destination QP */
	uint8_t opcode;		      /**< enum roce_opcode */
	uint32_t psn;
	bool ackreq;
	bool se;
	bool becn;     /**< set on CNPs */
	uint16_t pkey; /**< 0 = 0xffff */
	uint64_t va;   /**< RETH / AtomicETH */
	uint32_t rkey;
	uint32_t dmalen;	/**< RETH */
	uint64_t swap_add, cmp; /**< AtomicETH */
	uint8_t syndrome;	/**< AETH */
	uint32_t msn;
	uint64_t orig;	     /**< AtomicAckETH */
	uint32_t imm;	     /**< ImmDt, host order */
	uint32_t ieth_rkey;  /**< IETH */
	uint32_t qkey, sqpn; /**< DETH */
};

/** RoCEv2 UDP source port for a flow label, or for the QP pair when the label is 0. */
uint16_t roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

/**
 * Build a packet. @p len payload bytes at @p payload are copied when @p zc is NULL, or
 * attached as an external buffer (zero copy) sharing @p zc, whose free callback runs when
 * the last packet referencing the memory is freed.
 * @return the frame, or NULL with rte_errno: EINVAL (unknown opcode, payload on an opcode
 * without one, bad path), ENOMEM, EMSGSIZE (beyond the interface MTU).
 */
struct rte_mbuf *roce_tx_build(struct rte_mempool *mp, const struct stk_iface *ifc,
			       const struct roce_tx *t, const void *payload, uint32_t len,
			       struct rte_mbuf_ext_shared_info *zc);

/**
 * roce_tx_build() with the zero-copy payload's IOVA given by the caller (@p iova, ignored
 * without @p zc): the transport passes what registration resolved (roce_mr_dma()), so no
 * frame looks its IOVA up. roce_tx_build() looks it up for each frame (counted in
 * roce_tx_iova_lookups).
 */
struct rte_mbuf *roce_tx_build_iova(struct rte_mempool *mp, const struct stk_iface *ifc,
				    const struct roce_tx *t, const void *payload, uint32_t len,
				    struct rte_mbuf_ext_shared_info *zc, uint64_t iova);

/** A frame's payload points into at most this many segments of a chain (roce_tx_build_mbuf);
 * beyond, it is gathered (copied) into the frame's own. With the header and the pad/ICRC
 * tail a frame has at most 8 segments, what the NICs with the shortest TX gather lists take. */
#define ROCE_TX_MAX_PIECES 6

/**
 * Build a packet whose @p len payload bytes are [@p off, @p off + @p len) of the mbuf chain
 * @p src, without copying them: indirect mbufs over @p src's segments (rte_pktmbuf_attach:
 * pool buffers are referenced, external buffers shared), so the frame holds its own
 * references and @p src may be freed while it waits. A payload spread over more than
 * ROCE_TX_MAX_PIECES segments is copied instead (counted in roce_tx_mbuf_gathered).
 * @return the frame, or NULL with rte_errno: EINVAL (as roce_tx_build(), or @p src shorter
 * than off + len), ENOMEM, EMSGSIZE.
 */
struct rte_mbuf *roce_tx_build_mbuf(struct rte_mempool *mp, const struct stk_iface *ifc,
				    const struct roce_tx *t, const struct rte_mbuf *src,
				    uint32_t off, uint32_t len);

/** Frames roce_tx_build_mbuf() gathered (copied) because their payload spanned too many
 * segments. */
extern uint64_t roce_tx_mbuf_gathered;

/** Zero-copy payload IOVAs roce_tx_build() looked up, one per frame (tests, benches). */
extern uint64_t roce_tx_iova_lookups;

/** For measuring only (rc-bench --iova packet): the transport looks each zero-copy frame's
 * IOVA up again, as before issue 12 item 6, instead of using what registration resolved. */
extern bool roce_iova_per_packet;

/**
 * The transport copies a frame's payload of at most this many bytes into the frame's own
 * mbuf instead of attaching the region's bytes (zero copy), when the mbuf has room for it and
 * ROCE_COPY_ROOM bytes of headers. Below about 2 KiB the copy is cheaper than what the
 * attachment costs: two more mbufs (the attached one and a tail for pad and ICRC), a reference
 * on the region, and a three-segment frame for every later step (bench/README.md, "Small
 * payloads"). 0: every payload that lies in one region is attached.
 */
extern uint32_t roce_copy_max;
#define ROCE_COPY_MAX_DEFAULT 1024
#define ROCE_COPY_ROOM 128 /* Ethernet, VLAN, IPv6, UDP, BTH and extensions, pad, ICRC */

#endif /* ROCE_TX_H */
