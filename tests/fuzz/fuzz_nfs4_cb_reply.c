/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfs4_cb_reply.c - libFuzzer target for the NFSv4.1 callback reply decoder and the
 * callback credential picker (nfs/nfs4/nfs4_cb_xdr.c), whose input comes from clients. The
 * first byte selects: bit 0, a CB_COMPOUND reply (else CB_NULL's); bits 1-2, how many
 * callback_sec_parms4 entries the same bytes are read as. The rest, copied into a heap buffer of
 * exactly its size so ASan catches a read past it, is the RPC REPLY; its first word is taken as
 * the call's xid (so the decoder gets past it), and the call's CB_SEQUENCE is fixed: session
 * sixteen 0x5a bytes, sequence 3, slot 0 (the seeds' shape, make_nfs4_cb_corpus.py).
 * Checks: the decoder answers 0 or -EBADMSG, never keeps more results than NFS4_CB_RES_MAX, a
 * CB_SEQUENCE resok it accepts is the first result and names the call's slot; decoding twice
 * answers the same; a credential picked has at most NFS4_CB_GIDS_MAX groups and a machine name
 * of at most NFS4_CB_MACH_MAX bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs4_cb_xdr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_cb_seq_args seq = {{0}, 3, 0, 0};
	struct nfs4_cb_reply r1, r2;
	struct nfs4_cb_cred cred;
	struct nfs4_raw raw;
	uint32_t len, xid = 0;
	bool compound;
	uint8_t *buf;
	int rc1, rc2;

	if (size < 1 || size > 65536)
		return 0;
	compound = data[0] & 1;
	len = (uint32_t)size - 1;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	memset(seq.sessionid, 0x5a, sizeof(seq.sessionid));
	if (len >= 4)
		xid = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 |
		      buf[3];
	rc1 = nfs4_cb_decode_reply(buf, len, xid, compound, &seq, &r1);
	CHECK(rc1 == 0 || rc1 == -EBADMSG);
	if (rc1 == 0) {
		CHECK(r1.nres <= NFS4_CB_RES_MAX);
		if (r1.seq_ok)
			CHECK(r1.nres >= 1);
		CHECK(compound || r1.nres == 0);
	}
	rc2 = nfs4_cb_decode_reply(buf, len, xid, compound, &seq, &r2);
	CHECK(rc2 == rc1);
	if (rc1 == 0)
		CHECK(memcmp(&r1, &r2, sizeof(r1)) == 0);
	raw.count = (data[0] >> 1) & 3;
	raw.bytes.p = buf;
	raw.bytes.len = len;
	if (nfs4_cb_pick_cred(&raw, &cred) == 0) {
		CHECK(cred.flavor == 0 || cred.flavor == 1);
		CHECK(cred.ngids <= NFS4_CB_GIDS_MAX);
		CHECK(cred.machlen <= NFS4_CB_MACH_MAX);
	}
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
