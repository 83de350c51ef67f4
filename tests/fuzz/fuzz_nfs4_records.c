/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfs4_records.c - libFuzzer target for the NFSv4.1 stable client records file's parser
 * (nfs/nfs4/nfs4_recover.c): any bytes as the file. The parser must either refuse the whole
 * file (-EINVAL, nothing loaded, counted as ignored) or load 0..NFS4_RECORDS_MAX distinct PREV
 * records of 1..NFS4_OPAQUE_LIMIT bytes. The grace rule then runs over what was loaded: the
 * first owner reclaims, completes, and grace ends once no PREV record is left. Nothing is
 * written (no state directory).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs4_proto.h"
#include "nfs4_recover.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nfs4_recov r;
	int n;

	nfs4_recov_init(&r, NULL, 1000, 0);
	n = nfs4_recov_parse(&r, (const char *)data, size);
	if (n < 0) {
		CHECK(n == -EINVAL);
		CHECK(r.n == 0 && r.st.files_ignored == 1 && r.st.records == 0);
		return 0;
	}
	CHECK((uint32_t)n == r.n && r.n <= NFS4_RECORDS_MAX && r.st.records == r.n);
	for (uint32_t i = 0; i < r.n; i++) {
		CHECK(r.rec[i]->state == NFS4_REC_PREV);
		CHECK(r.rec[i]->len >= 1 && r.rec[i]->len <= NFS4_OPAQUE_LIMIT);
		CHECK(nfs4_recov_find(&r, r.rec[i]->owner, r.rec[i]->len) == r.rec[i]);
	}
	if (r.n) {
		struct nfs4_rec *e = r.rec[0];

		CHECK(nfs4_recov_check(&r, e->owner, e->len, false, true, 1) == NFS4_OK);
		CHECK(nfs4_recov_check(&r, e->owner, e->len, true, false, 1) == NFS4ERR_GRACE);
		CHECK(nfs4_recov_complete(&r, e->owner, e->len, 2));
		CHECK((r.grace == NFS4_GRACE_OVER) == (r.n == 1));
		nfs4_recov_forget(&r, e->owner, e->len);
	}
	nfs4_recov_step(&r, 1000);
	CHECK(r.grace == NFS4_GRACE_OVER && r.n == 0 && r.st.records == 0);
	nfs4_recov_fini(&r);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
