/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_icrc.c - ICRC computation and check (see roce_icrc.h).
 *
 * The masked pseudo-header (at most 88 bytes) is built in a stack buffer; the rest of the
 * packet is summed in place, segment by segment, by a chainable CRC-32: ISA-L's
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

uint32_t roce_icrc_calc(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint8_t ph[8 + 60 + 8 + sizeof(struct roce_bth)];
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	uint32_t hlen = (uint32_t)(bth_off - l3_off) + sizeof(struct roce_bth);
	uint32_t off, crc;

	if (hlen > sizeof(ph) - 8)
		hlen = sizeof(ph) - 8; /* callers pass parsed offsets; never overrun */
	memset(ph, 0xff, 8);
	memcpy(ph + 8, l3, hlen);
	if ((l3[0] >> 4) == 4) {
		ph[8 + 1] = 0xff;  /* TOS */
		ph[8 + 8] = 0xff;  /* TTL */
		ph[8 + 10] = 0xff; /* header checksum */
		ph[8 + 11] = 0xff;
	} else {
		ph[8 + 0] |= 0x0f; /* traffic class, flow label */
		ph[8 + 1] = 0xff;
		ph[8 + 2] = 0xff;
		ph[8 + 3] = 0xff;
		ph[8 + 7] = 0xff; /* hop limit */
	}
	/* UDP checksum: the two bytes before the BTH's 8-byte UDP header end */
	ph[8 + hlen - sizeof(struct roce_bth) - 2] = 0xff;
	ph[8 + hlen - sizeof(struct roce_bth) - 1] = 0xff;
	ph[8 + hlen - sizeof(struct roce_bth) + 4] = 0xff; /* FECN, BECN, resv6 */
	crc = roce_crc32(0, ph, 8 + hlen);

	/* the rest, in place, across segments */
	off = bth_off + sizeof(struct roce_bth);
	for (const struct rte_mbuf *s = m; s && off < end; s = s->next) {
		uint32_t n;

		if (off >= s->data_len) {
			off -= s->data_len;
			end -= s->data_len;
			continue;
		}
		n = RTE_MIN(end, (uint32_t)s->data_len) - off;
		crc = roce_crc32(crc, rte_pktmbuf_mtod_offset(s, const uint8_t *, off), n);
		end -= s->data_len;
		off = 0;
		if ((int32_t)end <= 0)
			break;
	}
	return crc;
}

static uint8_t *icrc_ptr(const struct rte_mbuf *m, uint32_t end, uint8_t *tmp)
{
	return (uint8_t *)rte_pktmbuf_read(m, end, ROCE_ICRC_LEN, tmp);
}

bool roce_icrc_check(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
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
