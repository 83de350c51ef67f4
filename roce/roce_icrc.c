/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_icrc.c - ICRC computation and check (see roce_icrc.h).
 *
 * The frame is only read; nothing is masked in place. The pseudo-header (the 8 bytes of
 * 0xFF that stand in for the LRH, then the IP, UDP and base transport headers with their
 * variant fields forced to ones) is 3 (IPv4) or 4 (IPv6) 16-byte blocks that the x86 paths
 * load from the frame and mask in registers. Three paths, fastest first:
 *   - vfold() (CPUs with AVX-512 and VPCLMULQDQ; the default engine): droce's own folding
 *     CRC runs over the masked pseudo-header and the payload as one stream, 256 bytes per
 *     step in four 512-bit lanes, so the pseudo-header costs no more than any other three
 *     or four blocks. Segments after the first (chained mbufs) continue with ISA-L;
 *   - fold_hdr() (PCLMULQDQ and AVX; the default engine elsewhere): the pseudo-header is
 *     folded to a 32-bit CRC state and ISA-L's crc32_gzip_refl continues from it over
 *     everything after the BTH, one call per segment;
 *   - icrc_copy() (the table engine, IP options or extension headers, a frame with less
 *     than 8 bytes before the IP header or with its headers split across segments, other
 *     CPUs): the pseudo-header is copied to the stack, masked, and summed with the engine,
 *     which then continues over the rest.
 * IPv4 without options and IPv6 without extension headers are what RoCEv2 sends; the
 * vector paths take exactly those two layouts.
 *
 * History, measured with bench/icrc-bench: masking the fields in place cost 20-25 ns per
 * frame (stores that the CRC's wide loads then failed to forward from, and ISA-L's serial
 * loop over the span's odd tail); the header fold plus ISA-L removed most of it, but its
 * 32-bit state sits on ISA-L's critical path (about 6 ns); vfold() removes that.
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

#if defined(DROCE_HAVE_ISAL) && defined(RTE_ARCH_X86_64)
#define ICRC_FOLD 1
#include <immintrin.h>
#endif

#define CRC_POLY 0xedb88320u /* IEEE 802.3, reflected */

static uint32_t tab[8][256];

/* Slice-by-8 tables for the reflected polynomial 0xEDB88320. */
RTE_INIT(roce_crc_tables)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC_POLY & (0u - (c & 1)));
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

/* Offsets, from the IP header, of the bytes the ICRC sees as all ones (IPv4 / IPv6). */
static const uint8_t mask4[] = {1, 8, 10, 11};
static const uint8_t mask6[] = {1, 2, 3, 7};

#ifdef ICRC_FOLD
/*
 * The folding arithmetic (as in Intel's "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ"). A 16-byte block, a 64-bit half of one or a CRC state is a polynomial over
 * GF(2) in the reflected bit order of the Ethernet CRC: bit 0 of the first byte is the
 * highest power. PCLMULQDQ multiplies two such values; in the reflected order the product
 * comes out multiplied by one extra x, which the exponents below absorb.
 *
 * Folding a block forward by D bytes (onto the block D bytes later) multiplies its first
 * half by x^(8D + 64) and its second half by x^(8D) modulo P: two carry-less products with
 * 32-bit constants, XORed onto the later block. At the end a 128-bit remainder is reduced
 * to the 32-bit CRC state: 128 -> 96 -> 64 bits, then Barrett.
 *
 * The CRC of the pseudo-header starts from the state ~0. XORing that state into the first
 * four 0xFF bytes of the LRH stand-in turns them to zeros and the state to 0, and leading
 * zero bytes do not change a CRC from state 0: the pseudo-header is 00000000 FFFFFFFF (or,
 * for IPv6, only FFFFFFFF) then the masked headers, summed from state 0. That is 48 bytes
 * for IPv4 (3 blocks from 8 bytes before the IP header) and 64 for IPv6 (4 blocks from 4
 * bytes before it).
 */
#define FOLD_MAX_BLOCKS 4

struct hdr_fold {
	uint8_t keep[FOLD_MAX_BLOCKS * 16]; /**< 0xFF where the frame's byte is kept */
	uint8_t set[FOLD_MAX_BLOCKS * 16];  /**< ones forced in (masked fields, LRH stand-in) */
	int start;			    /**< first block's offset from the IP header */
	unsigned nb;			    /**< 16-byte blocks */
	uint16_t hdr_len;		    /**< IP header to the end of the BTH */
};

static struct hdr_fold fold4, fold6;
static uint64_t k_blk[FOLD_MAX_BLOCKS][2]; /* fold by 16, 32, 48 bytes ([0] unused) */
static uint64_t k_256[2];
/* k_end[d][m]: the four lanes of a 64-byte block that has d more 64-byte blocks and then m
 * 16-byte blocks after it, each lane folded to the end of those */
static uint64_t k_end[7][4][8];
static uint64_t k_fin[2]; /* x^95 (128 -> 96 bits) and x^63 (96 -> 64 bits) */
static const uint64_t k_bar[2] = {
	0x1f7011641ull, /* floor(x^64 / P), reflected (33 bits) */
	0x1db710641ull, /* P, reflected (33 bits) */
};
/* pshufb controls for the last partial block: bytes i..i+15 shift a block by 16 - i */
static uint8_t shf_tab[48];
static bool fold_ok;  /* PCLMULQDQ and AVX (VEX forms, vzeroupper): fold_hdr() */
static bool vec_ok;   /* and AVX-512F and VPCLMULQDQ: vfold() */
static bool avx_used; /* ISA-L may return with dirty upper vector state: clear it */

/* x^e mod P in the reflected order, for any e (x is invertible modulo P). */
static uint32_t xpow(int e)
{
	uint32_t v = 0x80000000u; /* 1 */

	for (; e > 0; e--)
		v = (v >> 1) ^ (CRC_POLY & (0u - (v & 1)));
	for (; e < 0; e++)
		v = (v & 0x80000000u) ? ((v ^ CRC_POLY) << 1) | 1 : v << 1;
	return v;
}

/* The two multipliers that fold a block forward by @p bytes. */
static void fold_const(uint64_t k[2], unsigned bytes)
{
	k[0] = xpow(8 * (int)bytes + 64 - 33);
	k[1] = xpow(8 * (int)bytes - 33);
}

/*
 * Masks for one header layout.
 * @param hdr_len IP header to the end of the BTH
 * @param start   offset of the first block from the IP header: -8 (IPv4, the block starts
 *                with 00000000 FFFFFFFF) or -4 (IPv6, FFFFFFFF)
 */
static void fold_layout(struct hdr_fold *f, bool v6, uint16_t hdr_len, int start)
{
	const uint8_t *mask = v6 ? mask6 : mask4;
	unsigned bth = hdr_len - sizeof(struct roce_bth), j0 = (unsigned)-start;

	f->hdr_len = hdr_len;
	f->start = start;
	f->nb = (j0 + hdr_len) / 16;
	memset(f->keep, 0xff, sizeof(f->keep));
	memset(f->set, 0, sizeof(f->set));
	for (unsigned j = 0; j < j0; j++) {
		f->keep[j] = 0;
		f->set[j] = j + 4 >= j0 ? 0xff : 0; /* the last four are the LRH's ones */
	}
	for (unsigned i = 0; i < 4; i++) {
		f->keep[j0 + mask[i]] = 0;
		f->set[j0 + mask[i]] = 0xff;
	}
	if (v6) {
		f->keep[j0] = 0xf0; /* low nibble of byte 0: traffic class */
		f->set[j0] = 0x0f;
	}
	f->keep[j0 + bth - 2] = f->keep[j0 + bth - 1] = 0; /* UDP checksum */
	f->set[j0 + bth - 2] = f->set[j0 + bth - 1] = 0xff;
	f->keep[j0 + bth + 4] = 0; /* FECN, BECN, resv6 */
	f->set[j0 + bth + 4] = 0xff;
}

RTE_INIT(roce_icrc_fold_init)
{
	__builtin_cpu_init();
	fold_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("avx");
	vec_ok = fold_ok && __builtin_cpu_supports("avx512f") &&
		 __builtin_cpu_supports("vpclmulqdq");
	avx_used = __builtin_cpu_supports("avx");
	/* IPv4 (20) or IPv6 (40), UDP (8), BTH (12); 8 or 4 bytes of the LRH stand-in */
	fold_layout(&fold4, false, 20 + 8 + sizeof(struct roce_bth), -8);
	fold_layout(&fold6, true, 40 + 8 + sizeof(struct roce_bth), -4);
	for (unsigned i = 1; i < FOLD_MAX_BLOCKS; i++)
		fold_const(k_blk[i], 16 * i);
	fold_const(k_256, 256);
	for (unsigned d = 0; d < 7; d++)
		for (unsigned m = 0; m < 4; m++)
			for (unsigned l = 0; l < 4; l++) /* lane 3 by 0 bytes: x^31, x^-33 */
				fold_const(&k_end[d][m][2 * l], 64 * d + 16 * (3 - l) + 16 * m);
	k_fin[0] = xpow(95);
	k_fin[1] = xpow(63);
	for (unsigned i = 0; i < sizeof(shf_tab); i++)
		shf_tab[i] = i >= 16 && i < 32 ? (uint8_t)(i - 16) : 0x80;
}

/* ISA-L's AVX-512 code returns without vzeroupper; SSE code after it (DPDK's, built for
 * SSE4.2) then runs at half speed on some CPUs until something clears the upper state. */
__attribute__((target("avx"))) static void avx_clear(void)
{
	_mm256_zeroupper();
}

static __rte_always_inline void vec_clean(void)
{
	if (avx_used)
		avx_clear();
}

#define TARGET_FOLD __attribute__((target("pclmul,avx")))
#define TARGET_VEC __attribute__((target("pclmul,avx2,avx512f,vpclmulqdq")))

/* 16 bytes from anywhere (no alignment asked). */
TARGET_FOLD static __rte_always_inline __m128i ld16(const void *p)
{
	return _mm_loadu_si128(p);
}

/* Block @p i of the pseudo-header: the frame's bytes at @p p, masked. */
TARGET_FOLD static __rte_always_inline __m128i hdr_block(const uint8_t *p, const struct hdr_fold *f,
							 unsigned i)
{
	return _mm_or_si128(_mm_and_si128(ld16(p + 16 * i), ld16(f->keep + 16 * i)),
			    ld16(f->set + 16 * i));
}

/* @p x folded forward by the distance of @p k, onto @p d. */
TARGET_FOLD static __rte_always_inline __m128i xfold(__m128i x, const uint64_t *k, __m128i d)
{
	__m128i kk = ld16(k);

	return _mm_xor_si128(
		_mm_xor_si128(_mm_clmulepi64_si128(x, kk, 0x00), _mm_clmulepi64_si128(x, kk, 0x11)),
		d);
}

/* The CRC state of a stream whose last 16 bytes, folded, are @p a: a * x^32 mod P. */
TARGET_FOLD static __rte_always_inline uint32_t reduce128(__m128i a)
{
	const __m128i lo32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i kf = ld16(k_fin), kb = ld16(k_bar), w, y, q;

	w = _mm_xor_si128(_mm_clmulepi64_si128(a, kf, 0x00), _mm_srli_si128(a, 8));
	y = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(w, lo32), kf, 0x10),
			  _mm_srli_si128(w, 4));
	q = _mm_clmulepi64_si128(_mm_and_si128(y, lo32), kb, 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, lo32), kb, 0x10);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(q, y), 1);
}

/* @p a followed by the @p n (0-3) whole blocks at @p p, folded in parallel. */
TARGET_FOLD static __rte_always_inline __m128i fold_blocks(__m128i a, const uint8_t *p, unsigned n)
{
	if (n == 0)
		return a;
	a = xfold(a, k_blk[n], ld16(p + 16 * (n - 1)));
	for (unsigned i = 0; i + 1 < n; i++)
		a = _mm_xor_si128(a,
				  xfold(ld16(p + 16 * i), k_blk[n - 1 - i], _mm_setzero_si128()));
	return a;
}

/* The @p n (0-3) whole blocks at @p p folded onto the last of them (0 when there are none). */
TARGET_FOLD static __rte_always_inline __m128i last_blocks(const uint8_t *p, unsigned n)
{
	return n ? fold_blocks(ld16(p), p + 16, n - 1) : _mm_setzero_si128();
}

/* The pseudo-header whose IP header is @p l3, folded to 128 bits (its blocks in parallel).
 * @p nb is @p f->nb, as a constant the loop unrolls with. */
TARGET_FOLD static __rte_always_inline __m128i fold_hdr128(const uint8_t *l3,
							   const struct hdr_fold *f,
							   const unsigned nb)
{
	const uint8_t *p = l3 + f->start;
	__m128i a = hdr_block(p, f, nb - 1);

	for (unsigned i = 0; i + 1 < nb; i++)
		a = _mm_xor_si128(
			a, xfold(hdr_block(p, f, i), k_blk[nb - 1 - i], _mm_setzero_si128()));
	return a;
}

/* The CRC state (not inverted) of the pseudo-header. */
TARGET_FOLD static __rte_always_inline uint32_t fold_hdr(const uint8_t *l3,
							 const struct hdr_fold *f,
							 const unsigned nb)
{
	return reduce128(fold_hdr128(l3, f, nb));
}

static uint32_t crc_span(uint32_t crc, const struct rte_mbuf *s, uint32_t off, uint32_t end);

/* The ICRC by fold_hdr() and ISA-L: @p l3 is the IP header in the first segment of @p m,
 * which holds the headers up to @p hdr_end (the end of the BTH); the payload may be
 * chained. */
TARGET_FOLD static uint32_t icrc_fold(const struct rte_mbuf *m, const uint8_t *l3, bool v6,
				      uint32_t hdr_end, uint32_t end)
{
	uint32_t st = v6 ? fold_hdr(l3, &fold6, 4) : fold_hdr(l3, &fold4, 3);

	if (end > m->data_len)
		return crc_span(~st, m, hdr_end, end);
	st = crc32_gzip_refl(~st, rte_pktmbuf_mtod_offset(m, const uint8_t *, hdr_end),
			     end - hdr_end);
	_mm256_zeroupper(); /* see avx_clear() */
	return st;
}

TARGET_VEC static __rte_always_inline __m512i bcast(const uint64_t *k)
{
	return _mm512_broadcast_i32x4(ld16(k));
}

/* Each 128-bit lane of @p x folded forward by the distance of @p k, onto @p d. */
TARGET_VEC static __rte_always_inline __m512i zfold(__m512i x, __m512i k, __m512i d)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96);
}

/*
 * The CRC state (not inverted) of the pseudo-header at @p l3 + @p f->start and what follows
 * it, @p len bytes in all (at least the pseudo-header's @p nb blocks), from state 0. Four
 * 512-bit accumulators take 256 bytes per step. At the end each of their lanes, and of the
 * 64-byte blocks left, is folded straight to the end of the last whole 16-byte block, in
 * parallel with those blocks; then the partial block is folded in (its bytes shifted into
 * place by pshufb, against the last 16 bytes loaded whole), and the 128 bits reduced.
 */
TARGET_VEC static uint32_t vfold(const uint8_t *l3, const struct hdr_fold *f, const unsigned nb,
				 uint32_t len)
{
	const uint8_t *p = l3 + f->start;
	__m128i a;

	if (len >= 64) {
		__m512i x0, z;
		unsigned r, m;

		x0 = _mm512_or_si512(
			_mm512_and_si512(_mm512_loadu_si512(p), _mm512_loadu_si512(f->keep)),
			_mm512_loadu_si512(f->set));
		if (len >= 256) {
			__m512i x1 = _mm512_loadu_si512(p + 64), x2 = _mm512_loadu_si512(p + 128);
			__m512i x3 = _mm512_loadu_si512(p + 192), k = bcast(k_256);

			for (p += 256, len -= 256; len >= 256; p += 256, len -= 256) {
				x0 = zfold(x0, k, _mm512_loadu_si512(p));
				x1 = zfold(x1, k, _mm512_loadu_si512(p + 64));
				x2 = zfold(x2, k, _mm512_loadu_si512(p + 128));
				x3 = zfold(x3, k, _mm512_loadu_si512(p + 192));
			}
			r = len / 64;
			m = len % 64 / 16;
			z = zfold(x3, _mm512_loadu_si512(k_end[r][m]), _mm512_setzero_si512());
			z = zfold(x2, _mm512_loadu_si512(k_end[r + 1][m]), z);
			z = zfold(x1, _mm512_loadu_si512(k_end[r + 2][m]), z);
			z = zfold(x0, _mm512_loadu_si512(k_end[r + 3][m]), z);
		} else {
			p += 64;
			len -= 64;
			r = len / 64;
			m = len % 64 / 16;
			z = zfold(x0, _mm512_loadu_si512(k_end[r][m]), _mm512_setzero_si512());
		}
		/* the 64-byte blocks left, each folded straight to the end */
		for (unsigned i = 0; i < r; i++)
			z = zfold(_mm512_loadu_si512(p + 64 * i),
				  _mm512_loadu_si512(k_end[r - 1 - i][m]), z);
		p += 64 * r;
		len -= 64 * r;
		a = _mm_xor_si128(
			_mm_xor_si128(_mm512_castsi512_si128(z), _mm512_extracti32x4_epi32(z, 1)),
			_mm_xor_si128(_mm512_extracti32x4_epi32(z, 2),
				      _mm512_extracti32x4_epi32(z, 3)));
		a = _mm_xor_si128(a, last_blocks(p, m));
	} else {
		a = fold_hdr128(l3, f, nb);
		p += 16 * nb;
		len -= 16 * nb;
		a = fold_blocks(a, p, len / 16);
	}
	p += len & ~15u;
	len &= 15;
	if (len) {
		/* a = A0 A1 (len bytes, then 16 - len), the stream ends with T (len bytes):
		 * A0 folded by 16 bytes onto A1 T */
		__m128i last = ld16(p + len - 16), ml = ld16(shf_tab + 16 + len);

		a = xfold(_mm_shuffle_epi8(a, ld16(shf_tab + len)), k_blk[1],
			  _mm_blendv_epi8(_mm_shuffle_epi8(a, ml), last, ml));
	}
	return reduce128(a);
}

/* The ICRC by vfold() (first segment) and ISA-L (further segments), as icrc_fold(). */
TARGET_VEC static uint32_t icrc_vec(const struct rte_mbuf *m, const uint8_t *l3, bool v6,
				    uint32_t l3_off, uint32_t end)
{
	const struct hdr_fold *f = v6 ? &fold6 : &fold4;
	uint32_t seg_end = RTE_MIN(end, (uint32_t)m->data_len);
	uint32_t len = seg_end - (uint32_t)((int)l3_off + f->start), st;

	st = v6 ? vfold(l3, f, 4, len) : vfold(l3, f, 3, len);
	_mm256_zeroupper(); /* see avx_clear() */
	if (end > seg_end)
		return crc_span(~st, m, seg_end, end);
	return ~st;
}
#else
static __rte_always_inline void vec_clean(void)
{
}
#endif /* ICRC_FOLD */

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
#ifdef DROCE_HAVE_ISAL
	if (impl == ROCE_CRC_ISAL) {
		crc = crc32_gzip_refl(crc, buf, len);
		vec_clean();
		return crc;
	}
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

/*
 * The pseudo-header built in a stack buffer and summed with the selected engine, then the
 * rest of the span. Used by the table engine and wherever the fold does not apply.
 */
static uint32_t icrc_copy(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
	uint8_t ph[8 + 60 + 8 + sizeof(struct roce_bth)];
	uint32_t hlen = (uint32_t)(bth_off - l3_off) + sizeof(struct roce_bth);
	const uint8_t *l3;
	bool v4;

	if (hlen > sizeof(ph) - 8)
		hlen = sizeof(ph) - 8; /* callers pass parsed offsets; never overrun */
	l3 = rte_pktmbuf_read(m, l3_off, hlen, ph + 8);
	if (!l3)
		return 0; /* shorter than its headers; the parser refuses those first */
	if (l3 != ph + 8)
		memcpy(ph + 8, l3, hlen);
	v4 = (ph[8] >> 4) == 4;
	memset(ph, 0xff, 8);
	for (unsigned i = 0; i < 4; i++)
		ph[8 + (v4 ? mask4[i] : mask6[i])] = 0xff;
	if (!v4)
		ph[8] |= 0x0f;				   /* low nibble of byte 0: traffic class */
	ph[8 + hlen - sizeof(struct roce_bth) - 2] = 0xff; /* UDP checksum */
	ph[8 + hlen - sizeof(struct roce_bth) - 1] = 0xff;
	ph[8 + hlen - sizeof(struct roce_bth) + 4] = 0xff; /* FECN, BECN, resv6 */
	return crc_span(roce_crc32(0, ph, 8 + hlen), m, bth_off + sizeof(struct roce_bth), end);
}

uint32_t roce_icrc_calc(const struct rte_mbuf *m, uint16_t l3_off, uint16_t bth_off, uint32_t end)
{
#ifdef ICRC_FOLD
	const uint8_t *l3;
	bool v6;
	uint32_t hdr_end = (uint32_t)bth_off + sizeof(struct roce_bth);

	if (impl != ROCE_CRC_ISAL || !fold_ok || l3_off < 8 || hdr_end > m->data_len ||
	    hdr_end > end)
		return icrc_copy(m, l3_off, bth_off, end);
	l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	v6 = (l3[0] >> 4) != 4;
	if (hdr_end - l3_off != (v6 ? fold6.hdr_len : fold4.hdr_len))
		return icrc_copy(m, l3_off, bth_off, end); /* IP options, extension headers */
	if (vec_ok)
		return icrc_vec(m, l3, v6, l3_off, end);
	return icrc_fold(m, l3, v6, hdr_end, end);
#else
	return icrc_copy(m, l3_off, bth_off, end);
#endif
}

static const uint8_t *icrc_ptr(const struct rte_mbuf *m, uint32_t end, uint8_t *tmp)
{
	return rte_pktmbuf_read(m, end, ROCE_ICRC_LEN, tmp);
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
