/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfs3_xdr.c - libFuzzer target for the NFSv3 XDR codecs (nfs/xdr/nfs3_xdr.c). The first
 * byte picks the procedure (byte % 22) and the direction (bit 0 of byte / 22: arguments or
 * results); the rest, copied into a heap buffer of exactly its size so ASan catches a read
 * past it, is decoded with that routine. Besides "no crash, no over-read", when it decodes:
 * - the encoding of what was decoded is as long as what was consumed;
 * - that encoding decodes again, consuming all of it, and re-encodes to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs3_xdr.h"

union obj {
	uint8_t b[1024];
	uint64_t align;
	struct nfs3_readdir_res rd;
};

static struct nfs_dirent dirents[2][128];
static uint8_t out[2][70000];

static bool decode(xdrproc_t fn, union obj *o, struct nfs_dirent *ents, bool dir, const uint8_t *b,
		   uint32_t len, uint32_t *pos)
{
	bool ok;
	XDR x;

	memset(o, 0, sizeof(*o));
	if (dir) {
		o->rd.entries = ents;
		o->rd.cap = 128;
	}
	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	ok = fn(&x, o, 0);
	*pos = xdr_getpos(&x);
	xdr_destroy(&x);
	return ok;
}

static int encode(xdrproc_t fn, union obj *o, uint8_t *buf, uint32_t cap)
{
	int n = -1;
	XDR x;

	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (fn(&x, o, 0))
		n = (int)xdr_getpos(&x);
	xdr_destroy(&x);
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union obj o1, o2;
	uint32_t proc, len, pos1, pos2;
	bool res, dir;
	xdrproc_t fn;
	uint8_t *buf;
	int n1, n2;

	if (size < 1 || size > 65536)
		return 0;
	proc = data[0] % NFS3_NPROCS;
	res = (data[0] / NFS3_NPROCS) & 1;
	fn = res ? nfs3_xdr_procs[proc].xdr_res : nfs3_xdr_procs[proc].xdr_args;
	dir = res && (proc == NFS3_PROC_READDIR || proc == NFS3_PROC_READDIRPLUS);
	len = (uint32_t)size - 1;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	if (decode(fn, &o1, dirents[0], dir, buf, len, &pos1)) {
		CHECK(pos1 <= len);
		n1 = encode(fn, &o1, out[0], sizeof(out[0]));
		CHECK(n1 == (int)pos1);
		CHECK(decode(fn, &o2, dirents[1], dir, out[0], (uint32_t)n1, &pos2));
		CHECK(pos2 == (uint32_t)n1);
		n2 = encode(fn, &o2, out[1], sizeof(out[1]));
		CHECK(n2 == n1);
		CHECK(memcmp(out[0], out[1], (size_t)n1) == 0);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
