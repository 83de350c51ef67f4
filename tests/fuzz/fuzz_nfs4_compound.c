/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfs4_compound.c - libFuzzer target for the NFSv4.1 COMPOUND decoder (nfs/nfs4/nfs4_xdr.c
 * by the operation table) and the dispatcher above it. The input, copied into a heap buffer of
 * exactly its size so ASan catches a read past it, is COMPOUND4args:
 * - decoded header and operations (as the dispatcher does, up to NFS4_MAX_OPS, stopping at an
 *   opcode the table does not decode); what decoded re-encodes to as many bytes as it took,
 *   and that encoding decodes and re-encodes to the same bytes;
 * - then run through nfs4_compound() against a server with an empty export list, whose client
 *   and session table lives across inputs (sessions made by one input serve the next); its
 *   reply must decode as COMPOUND4res with exactly its length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs4_int.h"

static struct nfs_fs *fs;
static struct nfs4_server *srv;
static union nfs4_op_args args[2][NFS4_MAX_OPS];
static uint32_t ops[2][NFS4_MAX_OPS];
static uint8_t out[2][70000];

/* decode header and operations; @return the operations decoded, or -1 */
static int decode(const uint8_t *b, uint32_t len, struct nfs4_compound_hdr *h,
		  union nfs4_op_args *a, uint32_t *op, uint32_t *pos)
{
	uint32_t n = 0;
	bool known = true;
	XDR x;

	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	if (!nfs4_xdr_compound_hdr(&x, h)) {
		xdr_destroy(&x);
		return -1;
	}
	*pos = xdr_getpos(&x);
	while (n < h->numops && n < NFS4_MAX_OPS) {
		memset(&a[n], 0, sizeof(a[n]));
		if (!nfs4_xdr_argop(&x, &op[n], &a[n], &known) || !known)
			break;
		n++;
		*pos = xdr_getpos(&x);
	}
	xdr_destroy(&x);
	return (int)n;
}

static int encode(const struct nfs4_compound_hdr *h, union nfs4_op_args *a, const uint32_t *op,
		  uint32_t n, uint8_t *buf, uint32_t cap)
{
	struct nfs4_compound_hdr hh = *h;
	int len = -1;
	XDR x;

	hh.numops = n;
	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (nfs4_xdr_compound_hdr(&x, &hh)) {
		uint32_t i;

		for (i = 0; i < n; i++) {
			uint32_t o = op[i];

			if (!xdr_uint32_t(&x, &o) || !nfs4_op_desc(o)->xargs(&x, &a[i]))
				break;
		}
		if (i == n)
			len = (int)xdr_getpos(&x);
	}
	xdr_destroy(&x);
	return len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/fuzz_nfs4.XXXXXX", err[256];
	struct nfs4_server_conf c;

	(void)argc, (void)argv;
	if (!mkdtemp(dir) || nfs_fs_open(&fs, "", dir, err, sizeof(err)) != 0) {
		fs = NULL;
		return 0;
	}
	nfs4_server_conf_default(&c);
	c.state.max_clients = 16;
	c.state.slots = 4;
	srv = nfs4_server_create(fs, &c);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_compound_hdr h1, h2;
	uint32_t pos1 = 0, pos2 = 0;
	uint8_t *buf;
	int n1, n2, l1, l2;

	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	n1 = decode(buf, (uint32_t)size, &h1, args[0], ops[0], &pos1);
	if (n1 >= 0) {
		l1 = encode(&h1, args[0], ops[0], (uint32_t)n1, out[0], sizeof(out[0]));
		CHECK(l1 >= 0);
		CHECK((uint32_t)l1 == pos1);
		n2 = decode(out[0], (uint32_t)l1, &h2, args[1], ops[1], &pos2);
		CHECK(n2 == n1);
		l2 = encode(&h2, args[1], ops[1], (uint32_t)n2, out[1], sizeof(out[1]));
		CHECK(l2 == l1);
		CHECK(memcmp(out[0], out[1], (size_t)l1) == 0);
	}
	CHECK(srv); /* an empty export list and a fresh state directory need nothing special */
	{
		struct nfs_ctx ctx = {.fs = fs, .cred = {.flavor = 1}};
		struct nfs4_compound_res_hdr rh;
		struct nfs4_op_res r;
		const uint8_t *rep;
		uint32_t rl = nfs4_compound(srv, &ctx, buf, (uint32_t)size, &rep);
		XDR x;

		CHECK(rl > 0);
		xdrmem_create(&x, (char *)(uintptr_t)rep, rl, XDR_DECODE);
		CHECK(nfs4_xdr_compound_res_hdr(&x, &rh));
		for (uint32_t i = 0; i < rh.numres; i++)
			CHECK(nfs4_xdr_resop(&x, &r));
		CHECK(xdr_getpos(&x) == rl);
		xdr_destroy(&x);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
