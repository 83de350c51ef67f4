/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_mount_xdr.c - libFuzzer target for the MOUNT v1/v3 XDR codecs (nfs/xdr/mount_xdr.c).
 * The first byte picks the routine (byte % 5: dirpath, mountres3, fhstatus, mountlist,
 * exports); the rest, in a heap buffer of exactly its size, is decoded with it into small
 * caller arrays. When it decodes: the encoding is as long as what was consumed, decodes
 * again wholly, and re-encodes to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "mount_xdr.h"

struct obj {
	union {
		struct nfs_mnt_dirpath dp;
		struct nfs_mnt_res3 r3;
		struct nfs_mnt_res1 r1;
		struct nfs_mnt_dump_res dump;
		struct nfs_mnt_export_res exp;
	} u;
	struct nfs_mnt_mount mounts[16];
	struct nfs_mnt_export exports[16];
	struct nfs_mnt_str groups[32];
};

static const xdrproc_t routines[] = {(xdrproc_t)xdr_nfs_mnt_dirpath, (xdrproc_t)xdr_nfs_mnt_res3,
				     (xdrproc_t)xdr_nfs_mnt_res1, (xdrproc_t)xdr_nfs_mnt_dump_res,
				     (xdrproc_t)xdr_nfs_mnt_export_res};
#define NROUTINES (sizeof(routines) / sizeof(routines[0]))

static bool decode(uint32_t sel, struct obj *o, const uint8_t *b, uint32_t len, uint32_t *pos)
{
	bool ok;
	XDR x;

	memset(o, 0, sizeof(*o));
	o->u.dump.mounts = o->mounts; /* only read by the routine for a mountlist */
	o->u.dump.cap = 16;
	if (sel == 4) {
		o->u.exp.exports = o->exports;
		o->u.exp.cap = 16;
		o->u.exp.groups = o->groups;
		o->u.exp.groups_cap = 32;
	}
	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	ok = routines[sel](&x, &o->u, 0);
	*pos = xdr_getpos(&x);
	xdr_destroy(&x);
	return ok;
}

static int encode(uint32_t sel, struct obj *o, uint8_t *buf, uint32_t cap)
{
	int n = -1;
	XDR x;

	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (routines[sel](&x, &o->u, 0))
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
	static uint8_t out[2][70000];
	static struct obj o1, o2;
	uint32_t sel, len, pos1, pos2;
	uint8_t *buf;
	int n1, n2;

	if (size < 1 || size > 65536)
		return 0;
	sel = data[0] % NROUTINES;
	len = (uint32_t)size - 1;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	if (decode(sel, &o1, buf, len, &pos1)) {
		CHECK(pos1 <= len);
		n1 = encode(sel, &o1, out[0], sizeof(out[0]));
		CHECK(n1 == (int)pos1);
		CHECK(decode(sel, &o2, out[0], (uint32_t)n1, &pos2));
		CHECK(pos2 == (uint32_t)n1);
		n2 = encode(sel, &o2, out[1], sizeof(out[1]));
		CHECK(n2 == n1);
		CHECK(memcmp(out[0], out[1], (size_t)n1) == 0);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
