/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_cm_mad.c - libFuzzer target for the CM MAD codec (roce/roce_cm_wire.c). The input is
 * the UD payload after a QP 1 DETH, any length, copied into a heap buffer of exactly that
 * size, so ASan catches a read past it.
 *
 * Besides "no crash, no over-read", it checks the codec's promises:
 * - roce_cm_decode() and roce_cm_mad_status() agree on the header: a MAD that decodes (or
 *   fails only on its body, -EBADMSG) has status 0, one refused with -EOPNOTSUPP has a
 *   non-zero status;
 * - an error response, when one is owed, is a GetResp with the request's TID;
 * - decode -> encode -> decode gives the same message and the same bytes again, and the
 *   encoding only ever clears bits of the input (the reserved ones), never sets one;
 * - the RDMA IP CM header of REQ/SIDR_REQ private data re-encodes to the bytes it came from
 *   (but the 12 bytes in front of an IPv4 address, which the decoder ignores).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "roce_cm_wire.h"

static volatile uint64_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_cma(const uint8_t *priv, size_t len, uint64_t sid)
{
	struct roce_cma_hdr h;
	uint8_t again[ROCE_CMA_HDR_LEN];
	enum roce_rdma_ps ps;
	uint16_t port;

	if (roce_cma_service_id_split(sid, &ps, &port) == 0) {
		CHECK(roce_cma_service_id(ps, port) == sid);
		sink += port;
	}
	if (roce_cma_hdr_decode(priv, len, &h) != 0)
		return;
	CHECK(roce_cma_hdr_encode(&h, again, sizeof(again)) == ROCE_CMA_HDR_LEN);
	if (h.src.family == 6) {
		CHECK(memcmp(again + 4, priv + 4, 32) == 0);
	} else {
		CHECK(memcmp(again + 16, priv + 16, 4) == 0);
		CHECK(memcmp(again + 32, priv + 32, 4) == 0);
	}
	CHECK(memcmp(again, priv, 1) == 0 && again[1] == (priv[1] & 0xf0));
	CHECK(memcmp(again + 2, priv + 2, 2) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t enc[ROCE_MAD_LEN], enc2[ROCE_MAD_LEN], resp[ROCE_MAD_LEN];
	struct roce_cm_msg m, m2;
	uint8_t *mad = malloc(size ? size : 1);
	uint16_t status;
	int rc, r;

	if (!mad)
		abort();
	memcpy(mad, data, size);
	rc = roce_cm_decode(mad, size, &m);
	CHECK(rc == 0 || rc == -EPROTO || rc == -EOPNOTSUPP || rc == -EBADMSG);
	status = roce_cm_mad_status(mad, size);
	if (rc == 0 || rc == -EBADMSG)
		CHECK(status == 0);
	if (rc == -EOPNOTSUPP)
		CHECK(status != 0);
	if (status != 0) {
		r = roce_mad_error_resp(mad, size, status, resp, sizeof(resp));
		CHECK(r == 0 || r == ROCE_MAD_LEN);
		if (r == ROCE_MAD_LEN) {
			CHECK(resp[3] == ROCE_MAD_METHOD_GET_RESP);
			CHECK(memcmp(resp + 8, mad + 8, 8) == 0); /* same TID */
		}
	}
	if (rc == 0) {
		CHECK(roce_cm_encode(&m, enc, sizeof(enc)) == ROCE_MAD_LEN);
		for (unsigned i = 0; i < ROCE_MAD_LEN; i++)
			CHECK((enc[i] & ~mad[i]) == 0);
		CHECK(roce_cm_decode(enc, sizeof(enc), &m2) == 0);
		CHECK(memcmp(&m, &m2, sizeof(m)) == 0);
		CHECK(roce_cm_encode(&m2, enc2, sizeof(enc2)) == ROCE_MAD_LEN);
		CHECK(memcmp(enc, enc2, sizeof(enc)) == 0);
		if (m.attr_id == ROCE_CM_ATTR_REQ)
			check_cma(m.u.req.private_data, sizeof(m.u.req.private_data),
				  m.u.req.service_id);
		if (m.attr_id == ROCE_CM_ATTR_SIDR_REQ)
			check_cma(m.u.sidr_req.private_data, sizeof(m.u.sidr_req.private_data),
				  m.u.sidr_req.service_id);
		sink += roce_cm_attr_name(m.attr_id)[0];
		if (m.attr_id == ROCE_CM_ATTR_REJ)
			sink += roce_cm_rej_reason_name(m.u.rej.reason)[0];
		if (m.attr_id == ROCE_CM_ATTR_SIDR_REP)
			sink += roce_cm_sidr_status_name(m.u.sidr_rep.status)[0];
	}
	free(mad);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
