/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap_walk.h - calls a function for every frame of a classic pcap or a (little-endian)
 * pcapng file held in memory, with its 1-based frame number, as tshark numbers them.
 * Header-only, for the capture decoders under tests/.
 */
#ifndef PCAP_WALK_H
#define PCAP_WALK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*pcap_frame_fn)(void *ctx, unsigned frame, const uint8_t *d, uint32_t len);

/* Read a whole file; NULL on error (with a message). */
static inline uint8_t *pcap_slurp(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	if (!f) {
		perror(path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	rewind(f);
	buf = *size > 24 ? malloc((size_t)*size) : NULL;
	if (!buf || fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Walk the frames; returns how many were seen. */
static inline unsigned pcap_walk(const uint8_t *buf, long sz, pcap_frame_fn fn, void *ctx)
{
	unsigned frame = 0;
	uint32_t magic;

	memcpy(&magic, buf, 4);
	for (long off = magic == 0x0a0d0d0a ? 0 : 24; off + 16 <= sz;) {
		uint32_t type, blen, len;

		memcpy(&type, buf + off, 4);
		memcpy(&blen, buf + off + 4, 4);
		if (magic == 0x0a0d0d0a) { /* pcapng: enhanced packet blocks hold the frames */
			if (blen < 12 || off + blen > sz)
				break;
			if (type == 6) {
				memcpy(&len, buf + off + 20, 4);
				if (28 + len <= blen)
					fn(ctx, ++frame, buf + off + 28, len);
			}
			off += blen;
		} else { /* classic pcap: 16-byte record headers */
			memcpy(&len, buf + off + 8, 4);
			if (off + 16 + len > sz)
				break;
			fn(ctx, ++frame, buf + off + 16, len);
			off += 16 + len;
		}
	}
	return frame;
}

#endif /* PCAP_WALK_H */
