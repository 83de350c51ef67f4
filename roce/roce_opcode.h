/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_opcode.h - every BTH opcode droce knows, and its properties, in one table
 * (IBTA Vol 1 Table 35/36 "OpCode field", Annex A17.9.3 for the CNP). Parsing and building
 * both read the table: which extension headers the opcode carries and at which offsets,
 * whether it carries payload, and where it sits in a message (first/middle/last/only).
 *
 * The enum and the name strings come from the one X-macro list below. Opcodes are
 * enum roce_opcode, property bits enum roce_opflag: gcc's -Wenum-compare and
 * -Wenum-conversion catch one used for the other.
 */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Properties of an opcode. */
enum roce_opflag {
	ROCE_OPF_DETH = 1u << 0,	 /**< carries a DETH (UD) */
	ROCE_OPF_RETH = 1u << 1,	 /**< carries a RETH */
	ROCE_OPF_ATOMICETH = 1u << 2,	 /**< carries an AtomicETH */
	ROCE_OPF_AETH = 1u << 3,	 /**< carries an AETH */
	ROCE_OPF_ATOMICACKETH = 1u << 4, /**< carries an AtomicAckETH */
	ROCE_OPF_IMMDT = 1u << 5,	 /**< carries immediate data */
	ROCE_OPF_IETH = 1u << 6,	 /**< carries an IETH (send with invalidate) */
	ROCE_OPF_CNP = 1u << 7,		 /**< 16 reserved bytes after the BTH (CNP) */
	ROCE_OPF_PAYLOAD = 1u << 8,	 /**< carries payload (may be 0 bytes) */
	ROCE_OPF_START = 1u << 9,	 /**< first or only packet of a message */
	ROCE_OPF_MIDDLE = 1u << 10,	 /**< middle packet */
	ROCE_OPF_END = 1u << 11,	 /**< last or only packet of a message */
	ROCE_OPF_REQ = 1u << 12,	 /**< requester to responder */
	ROCE_OPF_RESP = 1u << 13,	 /**< responder to requester (ACK, READ response) */
	ROCE_OPF_SEND = 1u << 14,	 /**< SEND */
	ROCE_OPF_WRITE = 1u << 15,	 /**< RDMA WRITE */
	ROCE_OPF_READ = 1u << 16,	 /**< RDMA READ request or response */
	ROCE_OPF_ATOMIC = 1u << 17,	 /**< CMP_SWAP or FETCH_ADD request */
	ROCE_OPF_RC = 1u << 18,		 /**< reliable connected */
	ROCE_OPF_UC = 1u << 19,		 /**< unreliable connected */
	ROCE_OPF_UD = 1u << 20,		 /**< unreliable datagram */
	ROCE_OPF_RWQE = 1u << 21,	 /**< the message consumes a receive WQE */
};

#define F_(x) ROCE_OPF_##x
#define RC_ (F_(RC))
#define UC_ (F_(UC))
#define SND_ (F_(REQ) | F_(SEND) | F_(RWQE) | F_(PAYLOAD))
#define WR_ (F_(REQ) | F_(WRITE) | F_(PAYLOAD))
#define RRSP_ (F_(RESP) | F_(READ) | F_(PAYLOAD))

/* X(name, value, flags) */
#define ROCE_OPCODE_LIST(X)                                                                        \
	X(RC_SEND_FIRST, 0x00, RC_ | SND_ | F_(START))                                             \
	X(RC_SEND_MIDDLE, 0x01, RC_ | SND_ | F_(MIDDLE))                                           \
	X(RC_SEND_LAST, 0x02, RC_ | SND_ | F_(END))                                                \
	X(RC_SEND_LAST_WITH_IMMEDIATE, 0x03, RC_ | SND_ | F_(END) | F_(IMMDT))                     \
	X(RC_SEND_ONLY, 0x04, RC_ | SND_ | F_(START) | F_(END))                                    \
	X(RC_SEND_ONLY_WITH_IMMEDIATE, 0x05, RC_ | SND_ | F_(START) | F_(END) | F_(IMMDT))         \
	X(RC_RDMA_WRITE_FIRST, 0x06, RC_ | WR_ | F_(START) | F_(RETH))                             \
	X(RC_RDMA_WRITE_MIDDLE, 0x07, RC_ | WR_ | F_(MIDDLE))                                      \
	X(RC_RDMA_WRITE_LAST, 0x08, RC_ | WR_ | F_(END))                                           \
	X(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x09, RC_ | WR_ | F_(END) | F_(IMMDT) | F_(RWQE))     \
	X(RC_RDMA_WRITE_ONLY, 0x0a, RC_ | WR_ | F_(START) | F_(END) | F_(RETH))                    \
	X(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x0b,                                                 \
	  RC_ | WR_ | F_(START) | F_(END) | F_(RETH) | F_(IMMDT) | F_(RWQE))                       \
	X(RC_RDMA_READ_REQUEST, 0x0c, RC_ | F_(REQ) | F_(READ) | F_(START) | F_(END) | F_(RETH))   \
	X(RC_RDMA_READ_RESPONSE_FIRST, 0x0d, RC_ | RRSP_ | F_(START) | F_(AETH))                   \
	X(RC_RDMA_READ_RESPONSE_MIDDLE, 0x0e, RC_ | RRSP_ | F_(MIDDLE))                            \
	X(RC_RDMA_READ_RESPONSE_LAST, 0x0f, RC_ | RRSP_ | F_(END) | F_(AETH))                      \
	X(RC_RDMA_READ_RESPONSE_ONLY, 0x10, RC_ | RRSP_ | F_(START) | F_(END) | F_(AETH))          \
	X(RC_ACKNOWLEDGE, 0x11, RC_ | F_(RESP) | F_(START) | F_(END) | F_(AETH))                   \
	X(RC_ATOMIC_ACKNOWLEDGE, 0x12,                                                             \
	  RC_ | F_(RESP) | F_(START) | F_(END) | F_(AETH) | F_(ATOMICACKETH))                      \
	X(RC_COMPARE_SWAP, 0x13, RC_ | F_(REQ) | F_(ATOMIC) | F_(START) | F_(END) | F_(ATOMICETH)) \
	X(RC_FETCH_ADD, 0x14, RC_ | F_(REQ) | F_(ATOMIC) | F_(START) | F_(END) | F_(ATOMICETH))    \
	X(RC_SEND_LAST_WITH_INVALIDATE, 0x16, RC_ | SND_ | F_(END) | F_(IETH))                     \
	X(RC_SEND_ONLY_WITH_INVALIDATE, 0x17, RC_ | SND_ | F_(START) | F_(END) | F_(IETH))         \
	X(UC_SEND_FIRST, 0x20, UC_ | SND_ | F_(START))                                             \
	X(UC_SEND_MIDDLE, 0x21, UC_ | SND_ | F_(MIDDLE))                                           \
	X(UC_SEND_LAST, 0x22, UC_ | SND_ | F_(END))                                                \
	X(UC_SEND_LAST_WITH_IMMEDIATE, 0x23, UC_ | SND_ | F_(END) | F_(IMMDT))                     \
	X(UC_SEND_ONLY, 0x24, UC_ | SND_ | F_(START) | F_(END))                                    \
	X(UC_SEND_ONLY_WITH_IMMEDIATE, 0x25, UC_ | SND_ | F_(START) | F_(END) | F_(IMMDT))         \
	X(UC_RDMA_WRITE_FIRST, 0x26, UC_ | WR_ | F_(START) | F_(RETH))                             \
	X(UC_RDMA_WRITE_MIDDLE, 0x27, UC_ | WR_ | F_(MIDDLE))                                      \
	X(UC_RDMA_WRITE_LAST, 0x28, UC_ | WR_ | F_(END))                                           \
	X(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x29, UC_ | WR_ | F_(END) | F_(IMMDT) | F_(RWQE))     \
	X(UC_RDMA_WRITE_ONLY, 0x2a, UC_ | WR_ | F_(START) | F_(END) | F_(RETH))                    \
	X(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x2b,                                                 \
	  UC_ | WR_ | F_(START) | F_(END) | F_(RETH) | F_(IMMDT) | F_(RWQE))                       \
	X(UD_SEND_ONLY, 0x64, F_(UD) | SND_ | F_(START) | F_(END) | F_(DETH))                      \
	X(UD_SEND_ONLY_WITH_IMMEDIATE, 0x65,                                                       \
	  F_(UD) | SND_ | F_(START) | F_(END) | F_(DETH) | F_(IMMDT))                              \
	X(CNP, 0x81, F_(CNP) | F_(START) | F_(END))

#define ROCE_OP_ENUM_(name, val, flags) ROCE_OP_##name = (val),
/** BTH opcodes. */
enum roce_opcode { ROCE_OPCODE_LIST(ROCE_OP_ENUM_) };
#undef ROCE_OP_ENUM_

/** Extension headers, in wire order after the BTH. */
enum roce_ext {
	ROCE_EXT_DETH,
	ROCE_EXT_RETH,
	ROCE_EXT_ATOMICETH,
	ROCE_EXT_AETH,
	ROCE_EXT_ATOMICACKETH,
	ROCE_EXT_IMMDT,
	ROCE_EXT_IETH,
	ROCE_EXT_NUM
};

/** One row of the opcode table. */
struct roce_opinfo {
	const char *name;	   /**< "RC_SEND_FIRST", ...; NULL: opcode not supported */
	uint32_t flags;		   /**< enum roce_opflag bits */
	uint8_t hdr_len;	   /**< BTH + extension headers (+ CNP body) */
	uint8_t off[ROCE_EXT_NUM]; /**< offset of each extension header from the BTH; 0: absent */
};

/** The table, indexed by opcode; rows with name == NULL are unsupported opcodes. */
extern const struct roce_opinfo roce_optab[256];

/** @return the row of @p op, or NULL when droce does not support it. */
static inline const struct roce_opinfo *roce_opinfo(uint8_t op)
{
	return roce_optab[op].name ? &roce_optab[op] : NULL;
}

/** @return true when opcode @p op has property @p f. */
static inline bool roce_op_has(enum roce_opcode op, enum roce_opflag f)
{
	return (roce_optab[(uint8_t)op].flags & (uint32_t)f) != 0;
}

/** @return the opcode's name, or "UNKNOWN". */
const char *roce_opcode_name(uint8_t op);

#endif /* ROCE_OPCODE_H */
