/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_hdr.h - the InfiniBand transport headers RoCEv2 carries after UDP port 4791
 * (IBTA Vol 1 §9.2-9.5, Annex A17): BTH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt and
 * IETH, in that order on the wire, then the payload, pad and the 4-byte ICRC.
 *
 * Fields are in network byte order. Sub-word fields (24-bit PSN and QPN, AckReq, PadCnt,
 * MigReq, FECN/BECN, the AETH syndrome and MSN) are read and written only through the typed
 * accessors below (STYLE §2); each has a round-trip test in tests/roce/test_hdr.c.
 */
#ifndef ROCE_HDR_H
#define ROCE_HDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#define ROCE_ICRC_LEN 4
#define ROCE_PSN_MASK 0xffffffu
#define ROCE_QPN_MASK 0xffffffu
#define ROCE_DEFAULT_PKEY 0xffff

/** Base Transport Header (IBTA 9.2). */
struct roce_bth {
	uint8_t opcode;	 /**< enum roce_opcode */
	uint8_t flags;	 /**< SE(7) MigReq(6) PadCnt(5:4) TVer(3:0) */
	rte_be16_t pkey; /**< partition key */
	rte_be32_t dqpn; /**< FECN(31) BECN(30) resv6(29:24) DestQP(23:0) */
	rte_be32_t apsn; /**< AckReq(31) resv7(30:24) PSN(23:0) */
} __rte_packed;
_Static_assert(sizeof(struct roce_bth) == 12, "BTH is 12 bytes");

/** Datagram Extended Transport Header (IBTA 9.3.3): UD. */
struct roce_deth {
	rte_be32_t qkey; /**< queue key */
	rte_be32_t sqpn; /**< resv8(31:24) SrcQP(23:0) */
} __rte_packed;
_Static_assert(sizeof(struct roce_deth) == 8, "DETH is 8 bytes");

/** RDMA Extended Transport Header (IBTA 9.3.4): WRITE first/only, READ request. */
struct roce_reth {
	rte_be64_t va;	   /**< virtual address in the responder's MR */
	rte_be32_t rkey;   /**< remote key */
	rte_be32_t dmalen; /**< length of the whole RDMA operation */
} __rte_packed;
_Static_assert(sizeof(struct roce_reth) == 16, "RETH is 16 bytes");

/** Atomic Extended Transport Header (IBTA 9.3.5): CMP_SWAP, FETCH_ADD. */
struct roce_atomiceth {
	rte_be64_t va; /**< 8-byte aligned target address */
	rte_be32_t rkey;
	rte_be64_t swap_add; /**< swap value, or the addend */
	rte_be64_t cmp;	     /**< compare value (CMP_SWAP) */
} __rte_packed;
_Static_assert(sizeof(struct roce_atomiceth) == 28, "AtomicETH is 28 bytes");

/** ACK Extended Transport Header (IBTA 9.3.6). */
struct roce_aeth {
	rte_be32_t smsn; /**< Syndrome(31:24) MSN(23:0) */
} __rte_packed;
_Static_assert(sizeof(struct roce_aeth) == 4, "AETH is 4 bytes");

/** Atomic ACK Extended Transport Header (IBTA 9.5.3). */
struct roce_atomicacketh {
	rte_be64_t orig; /**< the target's value before the operation */
} __rte_packed;
_Static_assert(sizeof(struct roce_atomicacketh) == 8, "AtomicAckETH is 8 bytes");

/** Immediate data (IBTA 9.3.7). */
struct roce_immdt {
	rte_be32_t imm;
} __rte_packed;
_Static_assert(sizeof(struct roce_immdt) == 4, "ImmDt is 4 bytes");

/** Invalidate Extended Transport Header (IBTA 9.3.8): SEND with invalidate. */
struct roce_ieth {
	rte_be32_t rkey; /**< the rkey the responder invalidates */
} __rte_packed;
_Static_assert(sizeof(struct roce_ieth) == 4, "IETH is 4 bytes");

/** Body of a RoCEv2 Congestion Notification Packet after the BTH (Annex A17.9.3). */
struct roce_cnp {
	uint8_t rsvd[16]; /**< reserved, zero */
} __rte_packed;
_Static_assert(sizeof(struct roce_cnp) == 16, "CNP body is 16 bytes");

/* ---- BTH ---- */
#define ROCE_BTH_SE 0x80u
#define ROCE_BTH_MIGREQ 0x40u
#define ROCE_BTH_PAD_SHIFT 4
#define ROCE_BTH_PAD_MASK 0x30u
#define ROCE_BTH_TVER_MASK 0x0fu
#define ROCE_BTH_FECN 0x80000000u
#define ROCE_BTH_BECN 0x40000000u
#define ROCE_BTH_ACKREQ 0x80000000u

static inline uint8_t roce_bth_opcode(const struct roce_bth *b)
{
	return b->opcode;
}

static inline void roce_bth_set_opcode(struct roce_bth *b, uint8_t op)
{
	b->opcode = op;
}

static inline bool roce_bth_se(const struct roce_bth *b)
{
	return (b->flags & ROCE_BTH_SE) != 0;
}

static inline void roce_bth_set_se(struct roce_bth *b, bool on)
{
	b->flags = (uint8_t)(on ? b->flags | ROCE_BTH_SE : b->flags & ~ROCE_BTH_SE);
}

static inline bool roce_bth_migreq(const struct roce_bth *b)
{
	return (b->flags & ROCE_BTH_MIGREQ) != 0;
}

static inline void roce_bth_set_migreq(struct roce_bth *b, bool on)
{
	b->flags = (uint8_t)(on ? b->flags | ROCE_BTH_MIGREQ : b->flags & ~ROCE_BTH_MIGREQ);
}

/** Pad bytes (0-3) between the payload and the ICRC. */
static inline uint8_t roce_bth_padcnt(const struct roce_bth *b)
{
	return (uint8_t)((b->flags & ROCE_BTH_PAD_MASK) >> ROCE_BTH_PAD_SHIFT);
}

static inline void roce_bth_set_padcnt(struct roce_bth *b, uint8_t pad)
{
	b->flags = (uint8_t)((b->flags & ~ROCE_BTH_PAD_MASK) |
			     ((pad << ROCE_BTH_PAD_SHIFT) & ROCE_BTH_PAD_MASK));
}

/** Transport header version: 0 is the only one defined. */
static inline uint8_t roce_bth_tver(const struct roce_bth *b)
{
	return b->flags & ROCE_BTH_TVER_MASK;
}

static inline void roce_bth_set_tver(struct roce_bth *b, uint8_t v)
{
	b->flags = (uint8_t)((b->flags & ~ROCE_BTH_TVER_MASK) | (v & ROCE_BTH_TVER_MASK));
}

static inline uint16_t roce_bth_pkey(const struct roce_bth *b)
{
	return rte_be_to_cpu_16(b->pkey);
}

static inline void roce_bth_set_pkey(struct roce_bth *b, uint16_t pkey)
{
	b->pkey = rte_cpu_to_be_16(pkey);
}

static inline bool roce_bth_fecn(const struct roce_bth *b)
{
	return (rte_be_to_cpu_32(b->dqpn) & ROCE_BTH_FECN) != 0;
}

static inline bool roce_bth_becn(const struct roce_bth *b)
{
	return (rte_be_to_cpu_32(b->dqpn) & ROCE_BTH_BECN) != 0;
}

static inline void roce_bth_set_becn(struct roce_bth *b, bool on)
{
	uint32_t v = rte_be_to_cpu_32(b->dqpn);

	b->dqpn = rte_cpu_to_be_32(on ? v | ROCE_BTH_BECN : v & ~ROCE_BTH_BECN);
}

static inline void roce_bth_set_fecn(struct roce_bth *b, bool on)
{
	uint32_t v = rte_be_to_cpu_32(b->dqpn);

	b->dqpn = rte_cpu_to_be_32(on ? v | ROCE_BTH_FECN : v & ~ROCE_BTH_FECN);
}

/** Destination QP number (24 bits). */
static inline uint32_t roce_bth_dqpn(const struct roce_bth *b)
{
	return rte_be_to_cpu_32(b->dqpn) & ROCE_QPN_MASK;
}

/** Set the destination QP; FECN/BECN are kept, the reserved bits cleared. */
static inline void roce_bth_set_dqpn(struct roce_bth *b, uint32_t qpn)
{
	uint32_t v = rte_be_to_cpu_32(b->dqpn) & (ROCE_BTH_FECN | ROCE_BTH_BECN);

	b->dqpn = rte_cpu_to_be_32(v | (qpn & ROCE_QPN_MASK));
}

static inline bool roce_bth_ackreq(const struct roce_bth *b)
{
	return (rte_be_to_cpu_32(b->apsn) & ROCE_BTH_ACKREQ) != 0;
}

static inline void roce_bth_set_ackreq(struct roce_bth *b, bool on)
{
	uint32_t v = rte_be_to_cpu_32(b->apsn);

	b->apsn = rte_cpu_to_be_32(on ? v | ROCE_BTH_ACKREQ : v & ~ROCE_BTH_ACKREQ);
}

/** Packet sequence number (24 bits). */
static inline uint32_t roce_bth_psn(const struct roce_bth *b)
{
	return rte_be_to_cpu_32(b->apsn) & ROCE_PSN_MASK;
}

/** Set the PSN; AckReq is kept, the reserved bits cleared. */
static inline void roce_bth_set_psn(struct roce_bth *b, uint32_t psn)
{
	uint32_t v = rte_be_to_cpu_32(b->apsn) & ROCE_BTH_ACKREQ;

	b->apsn = rte_cpu_to_be_32(v | (psn & ROCE_PSN_MASK));
}

/* ---- DETH ---- */
static inline uint32_t roce_deth_qkey(const struct roce_deth *d)
{
	return rte_be_to_cpu_32(d->qkey);
}

static inline void roce_deth_set_qkey(struct roce_deth *d, uint32_t qkey)
{
	d->qkey = rte_cpu_to_be_32(qkey);
}

static inline uint32_t roce_deth_sqpn(const struct roce_deth *d)
{
	return rte_be_to_cpu_32(d->sqpn) & ROCE_QPN_MASK;
}

static inline void roce_deth_set_sqpn(struct roce_deth *d, uint32_t qpn)
{
	d->sqpn = rte_cpu_to_be_32(qpn & ROCE_QPN_MASK);
}

/* ---- RETH ---- */
static inline uint64_t roce_reth_va(const struct roce_reth *r)
{
	return rte_be_to_cpu_64(r->va);
}

static inline uint32_t roce_reth_rkey(const struct roce_reth *r)
{
	return rte_be_to_cpu_32(r->rkey);
}

static inline uint32_t roce_reth_len(const struct roce_reth *r)
{
	return rte_be_to_cpu_32(r->dmalen);
}

static inline void roce_reth_set(struct roce_reth *r, uint64_t va, uint32_t rkey, uint32_t len)
{
	r->va = rte_cpu_to_be_64(va);
	r->rkey = rte_cpu_to_be_32(rkey);
	r->dmalen = rte_cpu_to_be_32(len);
}

/* ---- AtomicETH / AtomicAckETH ---- */
static inline uint64_t roce_atomiceth_va(const struct roce_atomiceth *a)
{
	return rte_be_to_cpu_64(a->va);
}

static inline uint32_t roce_atomiceth_rkey(const struct roce_atomiceth *a)
{
	return rte_be_to_cpu_32(a->rkey);
}

static inline uint64_t roce_atomiceth_swap_add(const struct roce_atomiceth *a)
{
	return rte_be_to_cpu_64(a->swap_add);
}

static inline uint64_t roce_atomiceth_cmp(const struct roce_atomiceth *a)
{
	return rte_be_to_cpu_64(a->cmp);
}

static inline void roce_atomiceth_set(struct roce_atomiceth *a, uint64_t va, uint32_t rkey,
				      uint64_t swap_add, uint64_t cmp)
{
	a->va = rte_cpu_to_be_64(va);
	a->rkey = rte_cpu_to_be_32(rkey);
	a->swap_add = rte_cpu_to_be_64(swap_add);
	a->cmp = rte_cpu_to_be_64(cmp);
}

static inline uint64_t roce_atomicacketh_orig(const struct roce_atomicacketh *a)
{
	return rte_be_to_cpu_64(a->orig);
}

static inline void roce_atomicacketh_set_orig(struct roce_atomicacketh *a, uint64_t v)
{
	a->orig = rte_cpu_to_be_64(v);
}

/* ---- AETH (IBTA 9.7.5.1: syndrome = type(7:5) | value(4:0)) ---- */
#define ROCE_AETH_TYPE_MASK 0xe0u
#define ROCE_AETH_VALUE_MASK 0x1fu
#define ROCE_AETH_ACK 0x00u	/**< ACK; value = credit count (0x1f: invalid) */
#define ROCE_AETH_RNR_NAK 0x20u /**< RNR NAK; value = RNR timer code */
#define ROCE_AETH_NAK 0x60u	/**< NAK; value = enum roce_nak_code */
#define ROCE_AETH_CREDITS_INVALID 0x1fu

/** NAK codes (IBTA Table 45). */
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,    /**< PSN sequence error */
	ROCE_NAK_INVALID_REQ = 1,    /**< invalid request */
	ROCE_NAK_REM_ACCESS_ERR = 2, /**< remote access error */
	ROCE_NAK_REM_OP_ERR = 3,     /**< remote operational error */
	ROCE_NAK_INVALID_RD_REQ = 4, /**< invalid RD request */
};

static inline uint8_t roce_aeth_syndrome(const struct roce_aeth *a)
{
	return (uint8_t)(rte_be_to_cpu_32(a->smsn) >> 24);
}

static inline uint32_t roce_aeth_msn(const struct roce_aeth *a)
{
	return rte_be_to_cpu_32(a->smsn) & ROCE_PSN_MASK;
}

static inline void roce_aeth_set(struct roce_aeth *a, uint8_t syndrome, uint32_t msn)
{
	a->smsn = rte_cpu_to_be_32((uint32_t)syndrome << 24 | (msn & ROCE_PSN_MASK));
}

/* ---- ImmDt / IETH ---- */
static inline uint32_t roce_immdt_get(const struct roce_immdt *i)
{
	return rte_be_to_cpu_32(i->imm);
}

static inline void roce_immdt_set(struct roce_immdt *i, uint32_t imm)
{
	i->imm = rte_cpu_to_be_32(imm);
}

static inline uint32_t roce_ieth_rkey(const struct roce_ieth *i)
{
	return rte_be_to_cpu_32(i->rkey);
}

static inline void roce_ieth_set_rkey(struct roce_ieth *i, uint32_t rkey)
{
	i->rkey = rte_cpu_to_be_32(rkey);
}

#endif /* ROCE_HDR_H */
