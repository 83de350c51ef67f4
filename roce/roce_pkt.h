/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_pkt.h - decoding a RoCEv2 packet: the UDP payload that stk_classify() sent to the
 * RoCE handler, as BTH + extension headers + payload + pad + ICRC.
 */
#ifndef ROCE_PKT_H
#define ROCE_PKT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_opcode.h"
#include "stk_pkt.h"

/* X(enum suffix, telemetry name): every reason the transport refuses a packet. */
#define ROCE_DROP_LIST(X)                                                                          \
	X(NONE, "none")                                                                            \
	X(BTH_TRUNC, "bth_truncated")                                                              \
	X(OPCODE, "unsupported_opcode")                                                            \
	X(TVER, "bad_transport_version")                                                           \
	X(HDR_TRUNC, "headers_truncated")                                                          \
	X(PAD, "bad_pad_count")                                                                    \
	X(SEGMENTED, "headers_not_contiguous")                                                     \
	X(ICRC, "bad_icrc")                                                                        \
	X(TRAILING, "payload_on_header_only")

#define ROCE_DROP_ENUM_(n, s) ROCE_DROP_##n,
enum roce_drop { ROCE_DROP_LIST(ROCE_DROP_ENUM_) ROCE_DROP_NUM };
#undef ROCE_DROP_ENUM_

/** @return the telemetry name of @p d. */
const char *roce_drop_name(enum roce_drop d);

/** A decoded packet. Header pointers point into the frame's first segment. */
struct roce_pkt {
	const struct roce_opinfo *op; /**< opcode row */
	uint8_t opcode;
	struct roce_bth *bth;
	uint16_t l3_off;      /**< offset of the IP header in the frame */
	uint16_t bth_off;     /**< offset of the BTH in the frame */
	uint16_t payload_off; /**< offset of the payload in the frame */
	uint32_t payload_len; /**< payload bytes, pad and ICRC excluded */
	uint8_t pad;	      /**< PadCnt */
	uint32_t psn;
	uint32_t dqpn;
	enum roce_drop drop; /**< why roce_pkt_parse() failed */
};

/**
 * Decode the RoCE packet that starts at UDP payload offset @p p->payload_off of @p m.
 *
 * Checks: BTH present, opcode in the table, TVer 0, BTH and extension headers in the first
 * segment, headers + pad + ICRC within the UDP payload, and no payload bytes on an opcode
 * that carries none (READ request, atomics, ACK, atomic ACK, CNP). The ICRC is not checked here
 * (roce_icrc_check()), so fuzzers can reach the rest.
 *
 * @return 0, or -1 with rp->drop set.
 */
int roce_pkt_parse(const struct rte_mbuf *m, const struct stk_pkt *p, struct roce_pkt *rp);

/** @return a pointer to extension header @p ext of a parsed packet, or NULL when absent. */
static inline void *roce_pkt_ext(const struct roce_pkt *rp, enum roce_ext ext)
{
	uint8_t off = rp->op->off[ext];

	return off ? (uint8_t *)rp->bth + off : NULL;
}

#endif /* ROCE_PKT_H */
