/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nlm_xdr.c - libFuzzer target for the NLM v4 and NSM XDR codecs (nfs/xdr/nlm_xdr.c).
 * The first byte picks the routine (byte % 16: the nine NLM4 argument and result types, then
 * the seven NSM ones); the rest, in a heap buffer of exactly its size, is decoded with it.
 * When it decodes: the encoding is as long as what was consumed, decodes again wholly, and
 * re-encodes to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nlm_xdr.h"

union obj {
	struct nlm4_testargs testargs;
	struct nlm4_lockargs lockargs;
	struct nlm4_cancargs cancargs;
	struct nlm4_unlockargs unlockargs;
	struct nlm4_testres testres;
	struct nlm4_res res;
	struct nlm4_shareargs shareargs;
	struct nlm4_shareres shareres;
	struct nlm4_notify notify;
	struct nsm_name name;
	struct nsm_mon mon;
	struct nsm_mon_id mon_id;
	struct nsm_my_id my_id;
	struct nsm_stat_res stat_res;
	struct nsm_stat stat;
	struct nsm_stat_chge stat_chge;
};

static const xdrproc_t routines[] = {
	(xdrproc_t)xdr_nlm4_testargs,	(xdrproc_t)xdr_nlm4_lockargs, (xdrproc_t)xdr_nlm4_cancargs,
	(xdrproc_t)xdr_nlm4_unlockargs, (xdrproc_t)xdr_nlm4_testres,  (xdrproc_t)xdr_nlm4_res,
	(xdrproc_t)xdr_nlm4_shareargs,	(xdrproc_t)xdr_nlm4_shareres, (xdrproc_t)xdr_nlm4_notify,
	(xdrproc_t)xdr_nsm_name,	(xdrproc_t)xdr_nsm_mon,	      (xdrproc_t)xdr_nsm_mon_id,
	(xdrproc_t)xdr_nsm_my_id,	(xdrproc_t)xdr_nsm_stat_res,  (xdrproc_t)xdr_nsm_stat,
	(xdrproc_t)xdr_nsm_stat_chge};
#define NROUTINES (sizeof(routines) / sizeof(routines[0]))

static bool decode(uint32_t sel, union obj *o, const uint8_t *b, uint32_t len, uint32_t *pos)
{
	bool ok;
	XDR x;

	memset(o, 0, sizeof(*o));
	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	ok = routines[sel](&x, o, 0);
	*pos = xdr_getpos(&x);
	xdr_destroy(&x);
	return ok;
}

static int encode(uint32_t sel, union obj *o, uint8_t *buf, uint32_t cap)
{
	int n = -1;
	XDR x;

	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (routines[sel](&x, o, 0))
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
	static union obj o1, o2;
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
