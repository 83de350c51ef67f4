/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_icrc.c - ICRC computation and check (see roce_icrc.h).
 *
 * The variant fields are masked in place in the frame (and restored), so the whole covered
 * span is summed in one call per segment by a chainable CRC-32: ISA-L's
 * crc32_gzip_refl (folding with PCLMULQDQ, VPCLMULQDQ on AVX-512 machines), or droce's own
 * slice-by-8 tables when ISA-L is absent or for cross-checking.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "roce_hdr.h"
#include "roce_icrc.h"

#ifdef DROCE_HAVE_ISAL
#include <isa-l/crc.h>
static enum roce_crc_impl impl = ROCE_CRC_ISAL;
#else
static enum roce_crc_impl impl = ROCE_CRC_TABLE;
#endif

static uint32_t tab[8][256];

/* Slice-by-8 tables for the reflected polynomial 0xEDB88320. */
RTE_INIT(roce_crc_tables)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
		tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			tab[t][i] = (tab[t - 1][i] >> 8) ^ tab[0][tab[t - 1][i] & 0xff];
}

static uint32_t crc32_table(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
		      tab[4][lo >> 24] ^ tab[3][hi & 0xff] ^ tab[2][(hi >> 8) & 0xff] ^
		      tab[1][(hi >> 16) & 0xff] ^ tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

int roce_icrc_set_impl(enum roce_crc_impl i)
{
#ifndef DROCE_HAVE_ISAL
	if (i == ROCE_CRC_ISAL)
		return -ENOTSUP;
#endif
	if (i != ROCE_CRC_ISAL && i != ROCE_CRC_TABLE)
		return -ENOTSUP;
	impl = i;
	return 0;
}

enum roce_crc_impl roce_icrc_impl(void)
{
	return impl;
}

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
#ifdef DROCE_HAVE_ISAL
	if (impl == ROCE_CRC_ISAL)
		return crc32_gzip_refl(crc, buf, len);
#endif
	return crc32_table(crc, buf, len);
}

/* Sum [off, end) of the chain that starts at segment @s, continuing from @crc. */
static uint32_t crc_span(uint32_t crc, const struct rte_mbuf *s, uint32_t off, uint32_t end)
{
	for (; s && off < end; s = s->next) {
		uint32_t n;

		if (off >= s->data_len) {
			off -= s->data_len;
			end -= s->data_len;
			continue;
		}
		n = RTE_MIN(end, (uint32_t)s->data_len) - off;
		crc = roce_crc32(crc, rte_pktmbuf_mtod_offset(s, const uint8_t *, off), n);
		if (end <= s->data_len)
			break;
		end -= s->data_len;
		off = 0;
	}
	return crc;
}

/* Offsets, from the IP header, of the bytes the ICRC sees as all ones (IPv4 / IPv6). */
static const uint8_t mask4[] = {1, 8, 10, 11};
static const uint8_t mask6[] = {1, 2, 3, 7};

/*
 * Slow path: the masked pseudo-header is built in a stack buffer. Used when the frame does
 * not have 8 bytes before the IP header to stand in for the LRH, or the headers are not in
 * the first segment.
 */
static uint32_t icrc_copy(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint8_t ph[8 + 60 + 8 + sizeof(struct roce_bth)];
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	uint32_t hlen = (uint32_t)(bth_off - l3_off) + sizeof(struct roce_bth);
	bool v4 = (l3[0] >> 4) == 4;

	if (hlen > sizeof(ph) - 8)
		hlen = sizeof(ph) - 8; /* callers pass parsed offsets; never overrun */
	memset(ph, 0xff, 8);
	memcpy(ph + 8, l3, hlen);
	for (unsigned i = 0; i < 4; i++)
		ph[8 + (v4 ? mask4[i] : mask6[i])] = 0xff;
	if (!v4)
		ph[8] |= 0x0f;				   /* low nibble of byte 0: traffic class */
	ph[8 + hlen - sizeof(struct roce_bth) - 2] = 0xff; /* UDP checksum */
	ph[8 + hlen - sizeof(struct roce_bth) - 1] = 0xff;
	ph[8 + hlen - sizeof(struct roce_bth) + 4] = 0xff; /* FECN, BECN, resv6 */
	return crc_span(roce_crc32(0, ph, 8 + hlen), m, bth_off + sizeof(struct roce_bth), end);
}

uint32_t roce_icrc_calc(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint8_t *l3, *pre, saved_pre[8], saved[4], saved_udp[2], saved_bth, saved0 = 0;
	const uint8_t *mask;
	uint32_t crc;
	bool v4;

	if (l3_off < 8 || (uint32_t)bth_off + sizeof(struct roce_bth) > m->data_len ||
	    bth_off < l3_off + 8u)
		return icrc_copy(m, l3_off, bth_off, end);
	/*
	 * Fast path: mask the variant fields in place, sum everything from 8 bytes before the
	 * IP header (they stand in for the LRH as all ones) to the ICRC in one call per
	 * segment, and put the bytes back. The lcore owns the mbuf; nothing else reads it.
	 */
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	pre = l3 - 8;
	v4 = (l3[0] >> 4) == 4;
	mask = v4 ? mask4 : mask6;
	memcpy(saved_pre, pre, 8);
	memset(pre, 0xff, 8);
	for (unsigned i = 0; i < 4; i++) {
		saved[i] = l3[mask[i]];
		l3[mask[i]] = 0xff;
	}
	if (!v4) {
		saved0 = l3[0];
		l3[0] |= 0x0f;
	}
	memcpy(saved_udp, l3 + (bth_off - l3_off) - 2, 2);
	memset(l3 + (bth_off - l3_off) - 2, 0xff, 2);
	saved_bth = l3[bth_off - l3_off + 4];
	l3[bth_off - l3_off + 4] = 0xff;

	crc = crc_span(0, m, (uint32_t)l3_off - 8, end);

	l3[bth_off - l3_off + 4] = saved_bth;
	memcpy(l3 + (bth_off - l3_off) - 2, saved_udp, 2);
	if (!v4)
		l3[0] = saved0;
	for (unsigned i = 0; i < 4; i++)
		l3[mask[i]] = saved[i];
	memcpy(pre, saved_pre, 8);
	return crc;
}

static uint8_t *icrc_ptr(const struct rte_mbuf *m, uint32_t end, uint8_t *tmp)
{
	return (uint8_t *)rte_pktmbuf_read(m, end, ROCE_ICRC_LEN, tmp);
}

bool roce_icrc_check(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint8_t tmp[ROCE_ICRC_LEN];
	const uint8_t *p = icrc_ptr(m, end, tmp);
	uint32_t want;

	if (!p)
		return false;
	want = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return roce_icrc_calc(m, l3_off, bth_off, end) == want;
}

void roce_icrc_fill(struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint32_t crc = roce_icrc_calc(m, l3_off, bth_off, end);
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	uint8_t *p = rte_pktmbuf_mtod_offset(last, uint8_t *,
					     last->data_len - (rte_pktmbuf_pkt_len(m) - end));

	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
}
