/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_icrc.h - the RoCEv2 invariant CRC (IBTA Annex A17.3.3).
 *
 * ICRC = CRC-32 (IEEE 802.3 polynomial, reflected, as in Ethernet and zlib) over:
 *   8 bytes of 0xFF (in place of the LRH), the IP header with the variant fields set to all
 *   ones (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label, hop limit),
 *   the UDP header with the checksum set to 0xFFFF, the BTH with FECN/BECN/resv6 (byte 4)
 *   set to 0xFF, then everything after the BTH up to the ICRC.
 * It is stored little-endian in the last 4 bytes of the UDP payload.
 *
 * The CRC is chained segment by segment, so chained mbufs (zero-copy payload attached as
 * an external buffer behind a header mbuf) need no linearising copy.
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/** CRC engines. */
enum roce_crc_impl {
	ROCE_CRC_ISAL,	/**< ISA-L crc32_gzip_refl (PCLMUL / VPCLMUL, chainable); default */
	ROCE_CRC_TABLE, /**< droce's own slice-by-8 table code (no dependency; reference) */
};

/** Select the CRC engine (process-wide, set before the lcores start). @return 0 or -ENOTSUP. */
int roce_icrc_set_impl(enum roce_crc_impl impl);

/** @return the engine in use. */
enum roce_crc_impl roce_icrc_impl(void);

/**
 * Standard CRC-32 of @p len bytes, continuing from @p crc (0 to start), with the selected
 * engine: crc32(crc32(0, a), b) == crc32(0, a || b), as zlib's crc32().
 */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);

/**
 * Compute the ICRC of the RoCEv2 frame in @p m. The variant fields are masked in place for
 * the duration of the call and restored before it returns, so the caller must own @p m
 * (no other thread may read it meanwhile); the frame is unchanged afterwards.
 * @param l3_off  offset of the IP header (IPv4 or IPv6, told apart by its version nibble)
 * @param bth_off offset of the BTH
 * @param end     offset of the ICRC (= end of the data it covers)
 * The IP and UDP headers and the BTH must be in the first segment; payload may be chained.
 */
uint32_t roce_icrc_calc(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

/** @return true when the ICRC at offset @p end matches. */
bool roce_icrc_check(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

/** Compute the ICRC and write it at offset @p end (which must be in the last segment). */
void roce_icrc_fill(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

#endif /* ROCE_ICRC_H */
