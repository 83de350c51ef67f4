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
 * The frame is only read: the pseudo-header is masked in registers (or in a copy on the
 * stack), and the CRC is chained segment by segment, so chained mbufs (zero-copy payload
 * attached as an external buffer behind a header mbuf) need no linearising copy.
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/** CRC engines. */
enum roce_crc_impl {
	/**
	 * Default: carry-less-multiply folding. roce_crc32() is ISA-L's crc32_gzip_refl. The
	 * ICRC folds the frame's first segment with droce's own VPCLMULQDQ code on CPUs with
	 * AVX-512 (its pseudo-header masked in registers, then the payload, as one stream),
	 * or folds the pseudo-header with PCLMULQDQ and has ISA-L continue; further segments
	 * go through ISA-L (see roce_icrc.c).
	 */
	ROCE_CRC_ISAL,
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
 * Compute the ICRC of the RoCEv2 frame in @p m, which is only read (other threads may read
 * it meanwhile).
 * @param l3_off  offset of the IP header (IPv4 or IPv6, told apart by its version nibble)
 * @param bth_off offset of the BTH
 * @param end     offset of the ICRC (= end of the data it covers)
 * The payload may be chained at any offsets. The fast path wants the IP and UDP headers and
 * the BTH in the first segment, with at least 8 bytes before the IP header; other frames take
 * a slower path that copies the headers.
 * @return the ICRC (the value stored little-endian at @p end).
 */
uint32_t roce_icrc_calc(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

/** @return true when the ICRC at offset @p end matches. */
bool roce_icrc_check(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

/** Compute the ICRC and write it at offset @p end (which must be in the last segment). */
void roce_icrc_fill(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end);

#endif /* ROCE_ICRC_H */
