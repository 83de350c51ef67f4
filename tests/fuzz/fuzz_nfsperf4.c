/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfsperf4.c - libFuzzer target for droce-nfsperf's NFSv4.1 reply decoding
 * (apps/nfsperf/nfsperf_nfs4.c: np4_reply_decode over nfs/nfs4's result routines,
 * np4_attr_type_size, and the slot table fed by the reply's SEQUENCE). The input, copied into a
 * heap buffer of exactly its size so ASan catches a read past it, is a COMPOUND4res as the
 * server's. Besides "no crash, no over-read":
 * - at most NP4_MAX_OPS results, and every reference a result holds (READ's data, GETFH's
 *   handle, GETATTR's values) lies inside the reply;
 * - a slot's sequenceid moves by one at most, and only when the first result is a successful
 *   SEQUENCE; whatever the server's slot fields, no slot beyond the table is handed out.
 * Seeds: make_nfsperf4_corpus.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfsperf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static void inside(const struct nfs4_ref *r, const uint8_t *b, size_t len)
{
	if (r->len)
		CHECK(r->p >= b && r->p + r->len <= b + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct np4_reply r;
	static struct np4_sess s;
	uint8_t *buf;
	int slot;

	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	np4_reply_decode(buf, (uint32_t)size, &r);
	CHECK(r.n <= NP4_MAX_OPS);
	for (uint32_t i = 0; i < r.n; i++) {
		const struct nfs4_op_res *o = &r.r[i];
		uint32_t type;
		uint64_t fsize;

		if (o->status != NFS4_OK)
			continue;
		if (o->op == NFS4_OP_READ)
			inside(&o->u.read.data, buf, size);
		else if (o->op == NFS4_OP_GETFH)
			inside(&o->u.fh, buf, size);
		else if (o->op == NFS4_OP_GETATTR) {
			inside(&o->u.getattr.vals, buf, size);
			np4_attr_type_size(&o->u.getattr, &type, &fsize);
		}
	}
	CHECK(np4_reply_failed(&r) <= r.n);
	np4_sess_init(&s, 4);
	slot = np4_slot_get(&s);
	CHECK(slot == 0);
	np4_slot_done(&s, 0, &r);
	CHECK(s.slot[0].seqid ==
	      (r.n && r.r[0].op == NFS4_OP_SEQUENCE && r.r[0].status == NFS4_OK ? 2u : 1u));
	for (int k = 0; k < 8; k++) {
		slot = np4_slot_get(&s);
		CHECK(slot < 4);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
