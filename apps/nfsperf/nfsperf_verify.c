/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_verify.c - the bytes droce-nfsperf writes and how it checks them when read back
 * (fio's verify=md5|crc32c, with a header of droce's own layout).
 *
 * Every unit (verify_interval bytes, bs by default as in fio, at an aligned offset of a file)
 * holds a pattern that depends only on (seed, file, offset): whatever order writes and reads of
 * a mixed workload run in, any read of a block that was written, or laid out, must find the
 * same bytes; a read with another bs checks the same units when verify_interval is the same.
 * With verify on, each unit starts with a 40-byte header:
 *     0  magic "npv1"   4  verify kind   8  offset (u64)   16  file (job << 16 | file)
 *     20 block length   24 checksum of bytes [40, len): MD5 (16 bytes, RFC 1321, OpenSSL's)
 *        or CRC-32C (4 bytes, DPDK's rte_hash_crc, Castagnoli), zero-padded to 16
 * all in host order (the file is ours to read back, not a wire format). A read checks the
 * header (a block from elsewhere shows as a wrong offset or file), then the checksum; on a
 * mismatch the expected block is rebuilt to name the first differing byte's offset and show
 * the expected and found bytes around it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <rte_hash_crc.h>

#include "nfsperf.h"

#define VHDR_MAGIC 0x3176706eu /* "npv1" */
#define SHOW_BYTES 16u

struct vhdr {
	uint32_t magic;
	uint32_t kind;
	uint64_t offset;
	uint32_t file;
	uint32_t len;
	uint8_t csum[16];
};
_Static_assert(sizeof(struct vhdr) == NP_VHDR_LEN, "the verify header is 40 bytes");

const char *np_verify_name(enum np_verify v)
{
	switch (v) {
	case NP_VERIFY_MD5:
		return "md5";
	case NP_VERIFY_CRC32C:
		return "crc32c";
	default:
		return "0";
	}
}

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser: neighbouring offsets get unrelated streams */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void pattern(uint8_t *p, uint32_t len, uint32_t file, uint64_t off, uint64_t seed)
{
	uint64_t s = mix(seed ^ mix(((uint64_t)file << 40) ^ off)) | 1;
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		uint64_t w = s * 0x2545f4914f6cdd1dull;

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)(s >> (8 * (i & 7)));
}

static void csum(const uint8_t *p, uint32_t len, enum np_verify v, uint8_t out[16])
{
	memset(out, 0, 16);
	if (v == NP_VERIFY_MD5) {
		unsigned int n = 16;

		EVP_Digest(p, len, out, &n, EVP_md5(), NULL);
	} else if (v == NP_VERIFY_CRC32C) {
		uint32_t c = ~rte_hash_crc(p, len, 0xffffffffu);

		memcpy(out, &c, 4);
	}
}

static void unit_fill(uint8_t *p, uint32_t len, uint32_t file, uint64_t off, enum np_verify v,
		      uint64_t seed)
{
	struct vhdr h;

	if (v == NP_VERIFY_NONE || len < NP_VHDR_LEN * 2) {
		pattern(p, len, file, off, seed);
		return;
	}
	pattern(p + NP_VHDR_LEN, len - NP_VHDR_LEN, file, off, seed);
	h = (struct vhdr){.magic = VHDR_MAGIC, .kind = v, .offset = off, .file = file, .len = len};
	csum(p + NP_VHDR_LEN, len - NP_VHDR_LEN, v, h.csum);
	memcpy(p, &h, sizeof(h));
}

static int hex(char *buf, size_t cap, const uint8_t *p, uint32_t n)
{
	int w = 0;

	for (uint32_t i = 0; i < n && (size_t)w + 4 < cap; i++)
		w += snprintf(buf + w, cap - (size_t)w, "%s%02x", i ? " " : "", p[i]);
	return w;
}

/* The first byte that differs from the expected block, shown with its neighbours. */
static void show_diff(const uint8_t *p, const uint8_t *want, uint32_t len, uint64_t off,
		      const char *what, char *why, size_t cap)
{
	uint32_t i = 0, from, n;
	char e[3 * SHOW_BYTES + 1], f[3 * SHOW_BYTES + 1];

	while (i < len && p[i] == want[i])
		i++;
	if (i == len) {
		snprintf(why, cap, "%s in the block at offset %" PRIu64 ", but no byte differs",
			 what, off);
		return;
	}
	from = i;
	n = len - from < SHOW_BYTES ? len - from : SHOW_BYTES;
	hex(e, sizeof(e), want + from, n);
	hex(f, sizeof(f), p + from, n);
	snprintf(why, cap,
		 "%s: first bad byte at offset %" PRIu64 " (block at %" PRIu64
		 ", byte %u of %u): expected [%s], found [%s]",
		 what, off + from, off, from, len, e, f);
}

static bool unit_check(const uint8_t *p, uint32_t len, uint32_t file, uint64_t off,
		       enum np_verify v, uint64_t seed, char *why, size_t cap)
{
	/* too big for the stack; one per thread (--lanes: each lane checks its jobs' reads) */
	static _Thread_local uint8_t want[NP_MAX_BS];
	uint8_t c[16];
	struct vhdr h;

	if (v == NP_VERIFY_NONE || len < NP_VHDR_LEN * 2) {
		unit_fill(want, len, file, off, v, seed);
		if (memcmp(p, want, len) == 0)
			return true;
		show_diff(p, want, len, off, "pattern mismatch", why, cap);
		return false;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != VHDR_MAGIC || h.kind != (uint32_t)v || h.offset != off || h.file != file ||
	    h.len != len) {
		unit_fill(want, len, file, off, v, seed);
		char what[160];

		snprintf(what, sizeof(what),
			 "bad verify header (magic %08x, kind %u, offset %" PRIu64
			 ", file %#x, len %u; wanted offset %" PRIu64 ", file %#x, len %u)",
			 h.magic, h.kind, h.offset, h.file, h.len, off, file, len);
		show_diff(p, want, len, off, what, why, cap);
		return false;
	}
	csum(p + NP_VHDR_LEN, len - NP_VHDR_LEN, v, c);
	if (memcmp(c, h.csum, 16) == 0)
		return true;
	unit_fill(want, len, file, off, v, seed);
	show_diff(p, want, len, off, v == NP_VERIFY_MD5 ? "md5 mismatch" : "crc32c mismatch", why,
		  cap);
	return false;
}

void np_block_fill(uint8_t *p, uint32_t len, uint32_t file, uint64_t off, enum np_verify v,
		   uint64_t seed, uint32_t interval)
{
	if (!interval || interval > len)
		interval = len;
	for (uint32_t u = 0; u < len; u += interval)
		unit_fill(p + u, len - u < interval ? len - u : interval, file, off + u, v, seed);
}

bool np_block_check(const uint8_t *p, uint32_t len, uint32_t file, uint64_t off, enum np_verify v,
		    uint64_t seed, uint32_t interval, char *why, size_t cap)
{
	if (!interval || interval > len)
		interval = len;
	for (uint32_t u = 0; u < len; u += interval)
		if (!unit_check(p + u, len - u < interval ? len - u : interval, file, off + u, v,
				seed, why, cap))
			return false;
	return true;
}
