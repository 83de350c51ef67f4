/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_rpcrdma_hdr.c - libFuzzer target for the RPC-over-RDMA v1 header codec
 * (rpc/rpcrdma/rpcrdma_hdr.c). The input is a SEND payload, copied into a heap buffer of exactly
 * its size so ASan catches a read past it. Besides "no crash, no over-read", it checks:
 * - a decoded header lies within the input, and every segment accessor stays inside it;
 * - decode -> encode gives back the header's own bytes, and its size is hdr_len;
 * - the outcome is one of the four, with a reason whenever it is not OK;
 * - RFC 8797 private data (the first 8 bytes, read as such) that decodes re-encodes to the
 *   same bytes when its sizes are in range.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "rpcrdma_hdr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_rseg rsegs[RPCRDMA_MAX_READ_SEGS];
	static struct rpcrdma_seg wsegs[RPCRDMA_MAX_WRITE_CHUNKS * RPCRDMA_MAX_CHUNK_SEGS];
	static struct rpcrdma_seg reply_segs[RPCRDMA_MAX_CHUNK_SEGS];
	static uint8_t out[1 << 16];
	struct rpcrdma_chunk wchunks[RPCRDMA_MAX_WRITE_CHUNKS], reply;
	struct rpcrdma_hdr_out o;
	struct rpcrdma_cm_priv p;
	struct rpcrdma_hdr h;
	enum rpcrdma_dec d;
	uint8_t *buf;
	int n;

	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	d = rpcrdma_hdr_decode(buf, (uint32_t)size, &h);
	CHECK(d <= RPCRDMA_DEC_ERR_CHUNK);
	if (d != RPCRDMA_DEC_OK) {
		CHECK(h.why != NULL);
	} else {
		CHECK(h.hdr_len >= RPCRDMA_HDR_MIN && h.hdr_len <= size);
		CHECK(h.nr_rsegs <= RPCRDMA_MAX_READ_SEGS &&
		      h.nr_wchunks <= RPCRDMA_MAX_WRITE_CHUNKS);
		CHECK(h.nr_read_chunks <= h.nr_rsegs);
		rpcrdma_hdr_to_out(&h, &o, rsegs, wchunks, wsegs, &reply, reply_segs);
		for (uint32_t i = 0; i < h.nr_rsegs; i++)
			CHECK((rsegs[i].position & 3) == 0);
		CHECK(rpcrdma_hdr_size(&o) == h.hdr_len);
		n = rpcrdma_hdr_encode(&o, out, sizeof(out));
		CHECK(n == (int)h.hdr_len);
		CHECK(memcmp(out, buf, h.hdr_len) == 0);
	}
	rpcrdma_cm_priv_decode(buf, (uint32_t)size, &p);
	if (p.present) {
		uint8_t enc[RPCRDMA_CM_PRIV_LEN];

		rpcrdma_cm_priv_encode(&p, enc);
		CHECK(memcmp(enc, buf, 4) == 0 && enc[4] == buf[4] && enc[6] == buf[6] &&
		      enc[7] == buf[7]);
		CHECK((enc[5] & 1) == (buf[5] & 1));
	} else {
		CHECK(p.max_send == RPCRDMA_INLINE_DEFAULT && p.max_recv == RPCRDMA_INLINE_DEFAULT);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
