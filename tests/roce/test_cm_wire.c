/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cm_wire.c - the CM MAD codec (roce/roce_cm_wire.c).
 *
 * - Every sub-word accessor is checked against the IBA field positions, written here as
 *   message byte and bit (counted from the most significant bit, as in the Byte[Bit]
 *   notation of IBA Tables 106-120). A bit-by-bit reference writer independent of
 *   roce_cm_wire.h computes the expected bytes: the value lands in its bits, neighbouring bits
 *   keep their 0s or 1s, and values too wide are cut to the field.
 * - The layout of every whole-byte field, through roce_cm_decode() of a message whose byte i
 *   is i.
 * - Every CM MAD Linux 6.1 rdma_rxe sent in tests/data (48 in five captures) decodes, the values
 *   tshark showed for them are spot-checked, the messages of one connection refer to each
 *   other as IBA says, and every one re-encodes byte for byte.
 * - Encoding fresh messages, the -EINVAL cases, and decoding malformed MADs: short (from
 *   exact-size heap buffers, so ASan sees any over-read), wrong versions, unknown attributes,
 *   methods, and fields that make a message unreadable.
 * - The MAD status and error response rules, the RDMA IP CM header, service IDs and GIDs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "roce_cm_wire.h"
#include "roce_opcode.h"
#include "roce_pkt.h"
#include "stk_pkt.h"
#include "ut_common.h"

#ifndef DATA_DIR
#error "DATA_DIR must point at tests/data"
#endif

/* ---------- a reference bit reader/writer, independent of roce_cm_wire.h ---------- */

/* @pos counts bits from the MSB of byte 0: Byte[b] bit k (k = 0 is the MSB) is b * 8 + k */
static uint64_t ref_get(const uint8_t *b, unsigned pos, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v = v << 1 | ((b[(pos + i) / 8] >> (7 - (pos + i) % 8)) & 1u);
	return v;
}

static void ref_set(uint8_t *b, unsigned pos, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = 7 - (pos + i) % 8;
		uint8_t one = (uint8_t)((v >> (width - 1 - i)) & 1u);

		b[(pos + i) / 8] = (uint8_t)((b[(pos + i) / 8] & ~(1u << bit)) | one << bit);
	}
}

#define POS(byte, bit) ((byte)*8 + (bit))

/*
 * Round trip of one accessor pair on a message buffer filled with 0x00 and with 0xff:
 * set a value, compare all 232 bytes with the reference writer, read it back. Values
 * wider than the field must be cut to it.
 */
#define CHECK_FIELD(wire, msg, fld, base, pos, width)                                              \
	do {                                                                                       \
		static const uint32_t vals_[] = {                                                  \
			0, 1, 0x55555555u, 0xaaaaaaaau, 0xffffffffu, 0x80000000u, 0x12345678u};    \
		const uint32_t mask_ = (uint32_t)((1ull << (width)) - 1);                          \
		for (int fill_ = 0; fill_ < 2; fill_++) {                                          \
			for (unsigned k_ = 0; k_ < RTE_DIM(vals_) + 1; k_++) {                     \
				uint8_t buf_[ROCE_MAD_DATA_LEN], want_[ROCE_MAD_DATA_LEN];         \
				struct wire *w_ = (struct wire *)(buf_ + (base));                  \
				/* the last value is one bit above the field: stores as 0 */       \
				uint32_t v_ = k_ < RTE_DIM(vals_) ? vals_[k_] : mask_ + 1;         \
				uint32_t stored_ = v_ & mask_;                                     \
                                                                                                   \
				memset(buf_, fill_ ? 0xff : 0, sizeof(buf_));                      \
				memcpy(want_, buf_, sizeof(buf_));                                 \
				roce_cm_##msg##_set_##fld(w_, v_);                                 \
				ref_set(want_, (pos), (width), stored_);                           \
				if (memcmp(buf_, want_, sizeof(buf_)) != 0)                        \
					fail_msg(#msg "_" #fld ": set 0x%x over 0x%02x wrote "     \
						      "the wrong bits",                            \
						 v_, fill_ ? 0xff : 0);                            \
				assert_int_equal(roce_cm_##msg##_##fld(w_), stored_);              \
				assert_int_equal(ref_get(buf_, (pos), (width)), stored_);          \
			}                                                                          \
		}                                                                                  \
		n_fields++;                                                                        \
	} while (0)

static unsigned n_fields;

static void accessors_req(void **s)
{
	(void)s;
	n_fields = 0;
	/* IBA Table 106; Linux ibta_vol1_c12.h gives the same positions */
	CHECK_FIELD(roce_cm_req_wire, req, vendor_id, 0, POS(5, 0), 24);
	CHECK_FIELD(roce_cm_req_wire, req, local_qpn, 0, POS(32, 0), 24);
	CHECK_FIELD(roce_cm_req_wire, req, responder_resources, 0, POS(35, 0), 8);
	CHECK_FIELD(roce_cm_req_wire, req, local_eecn, 0, POS(36, 0), 24);
	CHECK_FIELD(roce_cm_req_wire, req, initiator_depth, 0, POS(39, 0), 8);
	CHECK_FIELD(roce_cm_req_wire, req, remote_eecn, 0, POS(40, 0), 24);
	CHECK_FIELD(roce_cm_req_wire, req, remote_cm_resp_timeout, 0, POS(43, 0), 5);
	CHECK_FIELD(roce_cm_req_wire, req, transport_type, 0, POS(43, 5), 2);
	CHECK_FIELD(roce_cm_req_wire, req, e2e_flow_ctrl, 0, POS(43, 7), 1);
	CHECK_FIELD(roce_cm_req_wire, req, starting_psn, 0, POS(44, 0), 24);
	CHECK_FIELD(roce_cm_req_wire, req, local_cm_resp_timeout, 0, POS(47, 0), 5);
	CHECK_FIELD(roce_cm_req_wire, req, retry_count, 0, POS(47, 5), 3);
	CHECK_FIELD(roce_cm_req_wire, req, path_mtu, 0, POS(50, 0), 4);
	CHECK_FIELD(roce_cm_req_wire, req, rdc_exists, 0, POS(50, 4), 1);
	CHECK_FIELD(roce_cm_req_wire, req, rnr_retry_count, 0, POS(50, 5), 3);
	CHECK_FIELD(roce_cm_req_wire, req, max_cm_retries, 0, POS(51, 0), 4);
	CHECK_FIELD(roce_cm_req_wire, req, srq, 0, POS(51, 4), 1);
	CHECK_FIELD(roce_cm_req_wire, req, ext_transport_type, 0, POS(51, 5), 3);
	/* the primary path starts at byte 52, the alternate at 96 */
	CHECK_FIELD(roce_cm_path_wire, path, flow_label, 52, POS(88, 0), 20);
	CHECK_FIELD(roce_cm_path_wire, path, packet_rate, 52, POS(91, 2), 6);
	CHECK_FIELD(roce_cm_path_wire, path, sl, 52, POS(94, 0), 4);
	CHECK_FIELD(roce_cm_path_wire, path, subnet_local, 52, POS(94, 4), 1);
	CHECK_FIELD(roce_cm_path_wire, path, local_ack_timeout, 52, POS(95, 0), 5);
	CHECK_FIELD(roce_cm_path_wire, path, flow_label, 96, POS(132, 0), 20);
	CHECK_FIELD(roce_cm_path_wire, path, packet_rate, 96, POS(135, 2), 6);
	CHECK_FIELD(roce_cm_path_wire, path, sl, 96, POS(138, 0), 4);
	CHECK_FIELD(roce_cm_path_wire, path, subnet_local, 96, POS(138, 4), 1);
	CHECK_FIELD(roce_cm_path_wire, path, local_ack_timeout, 96, POS(139, 0), 5);
	CHECK_FIELD(roce_cm_path_wire, path, sap, 96, POS(139, 5), 1);
	assert_int_equal(n_fields, 29);
}

static void accessors_other(void **s)
{
	(void)s;
	n_fields = 0;
	/* MRA, Table 107 */
	CHECK_FIELD(roce_cm_mra_wire, mra, msg_mraed, 0, POS(8, 0), 2);
	CHECK_FIELD(roce_cm_mra_wire, mra, service_timeout, 0, POS(9, 0), 5);
	/* REJ, Table 108 */
	CHECK_FIELD(roce_cm_rej_wire, rej, msg_rejected, 0, POS(8, 0), 2);
	CHECK_FIELD(roce_cm_rej_wire, rej, ari_len, 0, POS(9, 0), 7);
	/* REP, Table 110 (vendor ID bytes: Linux CM_REP_VENDOR_ID_H/M/L) */
	CHECK_FIELD(roce_cm_rep_wire, rep, local_qpn, 0, POS(12, 0), 24);
	CHECK_FIELD(roce_cm_rep_wire, rep, vendor_id_hi, 0, POS(15, 0), 8);
	CHECK_FIELD(roce_cm_rep_wire, rep, local_eecn, 0, POS(16, 0), 24);
	CHECK_FIELD(roce_cm_rep_wire, rep, vendor_id_mid, 0, POS(19, 0), 8);
	CHECK_FIELD(roce_cm_rep_wire, rep, starting_psn, 0, POS(20, 0), 24);
	CHECK_FIELD(roce_cm_rep_wire, rep, vendor_id_lo, 0, POS(23, 0), 8);
	CHECK_FIELD(roce_cm_rep_wire, rep, target_ack_delay, 0, POS(26, 0), 5);
	CHECK_FIELD(roce_cm_rep_wire, rep, failover_accepted, 0, POS(26, 5), 2);
	CHECK_FIELD(roce_cm_rep_wire, rep, e2e_flow_ctrl, 0, POS(26, 7), 1);
	CHECK_FIELD(roce_cm_rep_wire, rep, rnr_retry_count, 0, POS(27, 0), 3);
	CHECK_FIELD(roce_cm_rep_wire, rep, srq, 0, POS(27, 3), 1);
	/* DREQ, Table 112; SIDR_REP, Table 120 */
	CHECK_FIELD(roce_cm_dreq_wire, dreq, remote_qpn, 0, POS(8, 0), 24);
	CHECK_FIELD(roce_cm_sidr_rep_wire, sidr_rep, qpn, 0, POS(8, 0), 24);
	assert_int_equal(n_fields, 17);
}

static void accessors_mad_hdr(void **s)
{
	uint8_t b[ROCE_MAD_HDR_LEN];
	struct roce_mad_hdr *h = (struct roce_mad_hdr *)b;
	(void)s;

	memset(b, 0, sizeof(b));
	roce_mad_set_method(h, ROCE_MAD_METHOD_GET);
	roce_mad_set_resp(h, true);
	assert_int_equal(b[3], 0x81);
	assert_int_equal(roce_mad_method(h), ROCE_MAD_METHOD_GET_RESP);
	assert_true(roce_mad_is_resp(h));
	roce_mad_set_resp(h, false);
	assert_int_equal(b[3], 0x01);
	assert_false(roce_mad_is_resp(h));
	roce_mad_set_status(h, 0x1c04);
	roce_mad_set_tid(h, 0x0102030405060708ull);
	roce_mad_set_attr_id(h, 0x0010);
	roce_mad_set_attr_mod(h, 0xa1b2c3d4);
	assert_int_equal(ref_get(b, POS(4, 0), 16), 0x1c04);
	assert_true(ref_get(b, POS(8, 0), 64) == 0x0102030405060708ull);
	assert_int_equal(ref_get(b, POS(16, 0), 16), 0x0010);
	assert_int_equal(ref_get(b, POS(18, 0), 16), 0); /* reserved */
	assert_int_equal(ref_get(b, POS(20, 0), 32), 0xa1b2c3d4);
	assert_int_equal(roce_mad_status(h), 0x1c04);
	assert_true(roce_mad_tid(h) == 0x0102030405060708ull);
	assert_int_equal(roce_mad_attr_id(h), 0x0010);
	assert_int_equal(roce_mad_attr_mod(h), 0xa1b2c3d4);
	b[0] = 1;
	b[1] = 7;
	b[2] = 2;
	assert_int_equal(roce_mad_base_version(h), 1);
	assert_int_equal(roce_mad_mgmt_class(h), 7);
	assert_int_equal(roce_mad_class_version(h), 2);
}

/* ---------- whole-field layout: message byte i holds i ---------- */

static void pattern_mad(uint8_t *mad, uint16_t attr)
{
	memset(mad, 0, ROCE_MAD_LEN);
	mad[0] = ROCE_MAD_BASE_VERSION;
	mad[1] = ROCE_MGMT_CLASS_CM;
	mad[2] = ROCE_CM_CLASS_VERSION;
	mad[3] = ROCE_MAD_METHOD_SEND;
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
	for (unsigned i = 0; i < ROCE_MAD_DATA_LEN; i++)
		mad[ROCE_MAD_HDR_LEN + i] = (uint8_t)i;
}

#define D(i) (mad + ROCE_MAD_HDR_LEN + (i))
#define EXPECT(v, byte, bit, width)                                                                \
	assert_true((uint64_t)(v) == ref_get(D(0), POS(byte, bit), width))

static void layout(void **s)
{
	uint8_t mad[ROCE_MAD_LEN];
	struct roce_cm_msg m;
	const struct roce_cm_req *q = &m.u.req;
	(void)s;

	pattern_mad(mad, ROCE_CM_ATTR_REQ);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(q->local_comm_id, 0, 0, 32);
	EXPECT(q->vendor_id, 5, 0, 24);
	EXPECT(q->service_id, 8, 0, 64);
	EXPECT(q->local_ca_guid, 16, 0, 64);
	EXPECT(q->local_qkey, 28, 0, 32);
	EXPECT(q->pkey, 48, 0, 16);
	EXPECT(q->prim.local_lid, 52, 0, 16);
	EXPECT(q->prim.remote_lid, 54, 0, 16);
	assert_memory_equal(q->prim.local_gid, D(56), 16);
	assert_memory_equal(q->prim.remote_gid, D(72), 16);
	EXPECT(q->prim.traffic_class, 92, 0, 8);
	EXPECT(q->prim.hop_limit, 93, 0, 8);
	EXPECT(q->alt.local_lid, 96, 0, 16);
	EXPECT(q->alt.remote_lid, 98, 0, 16);
	assert_memory_equal(q->alt.local_gid, D(100), 16);
	assert_memory_equal(q->alt.remote_gid, D(116), 16);
	EXPECT(q->alt.traffic_class, 136, 0, 8);
	EXPECT(q->alt.hop_limit, 137, 0, 8);
	assert_memory_equal(q->private_data, D(140), ROCE_CM_REQ_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_MRA);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.mra.local_comm_id, 0, 0, 32);
	EXPECT(m.u.mra.remote_comm_id, 4, 0, 32);
	assert_memory_equal(m.u.mra.private_data, D(10), ROCE_CM_MRA_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_REJ);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.rej.local_comm_id, 0, 0, 32);
	EXPECT(m.u.rej.remote_comm_id, 4, 0, 32);
	EXPECT(m.u.rej.reason, 10, 0, 16);
	assert_memory_equal(m.u.rej.ari, D(12), ROCE_CM_REJ_ARI_LEN);
	assert_memory_equal(m.u.rej.private_data, D(84), ROCE_CM_REJ_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_REP);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.rep.local_comm_id, 0, 0, 32);
	EXPECT(m.u.rep.remote_comm_id, 4, 0, 32);
	EXPECT(m.u.rep.local_qkey, 8, 0, 32);
	assert_int_equal(m.u.rep.vendor_id, 15 << 16 | 19 << 8 | 23); /* bytes 15, 19, 23 */
	EXPECT(m.u.rep.responder_resources, 24, 0, 8);
	EXPECT(m.u.rep.initiator_depth, 25, 0, 8);
	EXPECT(m.u.rep.local_ca_guid, 28, 0, 64);
	assert_memory_equal(m.u.rep.private_data, D(36), ROCE_CM_REP_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_RTU);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.rtu.local_comm_id, 0, 0, 32);
	EXPECT(m.u.rtu.remote_comm_id, 4, 0, 32);
	assert_memory_equal(m.u.rtu.private_data, D(8), ROCE_CM_RTU_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_DREQ);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.dreq.local_comm_id, 0, 0, 32);
	EXPECT(m.u.dreq.remote_comm_id, 4, 0, 32);
	assert_memory_equal(m.u.dreq.private_data, D(12), ROCE_CM_DREQ_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_DREP);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.drep.local_comm_id, 0, 0, 32);
	EXPECT(m.u.drep.remote_comm_id, 4, 0, 32);
	assert_memory_equal(m.u.drep.private_data, D(8), ROCE_CM_DREP_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_SIDR_REQ);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.sidr_req.request_id, 0, 0, 32);
	EXPECT(m.u.sidr_req.pkey, 4, 0, 16);
	EXPECT(m.u.sidr_req.service_id, 8, 0, 64);
	assert_memory_equal(m.u.sidr_req.private_data, D(16), ROCE_CM_SIDR_REQ_PRIV_LEN);

	pattern_mad(mad, ROCE_CM_ATTR_SIDR_REP);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	EXPECT(m.u.sidr_rep.request_id, 0, 0, 32);
	EXPECT(m.u.sidr_rep.status, 4, 0, 8);
	EXPECT(m.u.sidr_rep.info_len, 5, 0, 8);
	EXPECT(m.u.sidr_rep.service_id, 12, 0, 64);
	EXPECT(m.u.sidr_rep.qkey, 20, 0, 32);
	assert_memory_equal(m.u.sidr_rep.class_port_info, D(24), ROCE_CM_SIDR_REP_INFO_LEN);
	assert_memory_equal(m.u.sidr_rep.private_data, D(96), ROCE_CM_SIDR_REP_PRIV_LEN);
}

#undef EXPECT
#undef D

/* ---------- every CM MAD Linux sent in tests/data ---------- */

struct cap_mad {
	unsigned frame; /* 1-based, as tshark numbers them */
	uint8_t mad[ROCE_MAD_LEN];
	struct roce_cm_msg msg;
};

/* every UD SEND ONLY to QP 1 of a pcap/pcapng file, decoded */
static unsigned load_mads(const char *name, struct cap_mad **out)
{
	char path[512];
	unsigned n = 0, frame = 0;
	struct cap_mad *v = calloc(64, sizeof(*v));
	uint32_t magic;
	uint8_t *buf;
	long sz;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	memcpy(&magic, buf, 4);
	for (long off = magic == 0x0a0d0d0a ? 0 : 24; off + 16 <= sz;) {
		uint32_t type, blen, len;
		const uint8_t *d;
		struct rte_mbuf *m;
		struct stk_pkt p;
		struct roce_pkt rp;

		memcpy(&type, buf + off, 4);
		memcpy(&blen, buf + off + 4, 4);
		if (magic == 0x0a0d0d0a) { /* pcapng: enhanced packet blocks only */
			assert_true(blen >= 12 && off + blen <= sz);
			off += blen;
			if (type != 6)
				continue;
			memcpy(&len, buf + off - blen + 20, 4);
			d = buf + off - blen + 28;
		} else {
			memcpy(&len, buf + off + 8, 4);
			d = buf + off + 16;
			off += 16 + len;
		}
		frame++;
		m = rte_pktmbuf_alloc(ut_pool());
		assert_non_null(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), d, len);
		if (stk_parse(m, &p) == 0 && p.dport == STK_ROCE_UDP_PORT &&
		    roce_pkt_parse(m, &p, &rp) == 0 && rp.opcode == ROCE_OP_UD_SEND_ONLY &&
		    rp.dqpn == ROCE_GSI_QPN) {
			int rc;

			assert_true(n < 64);
			assert_int_equal(rp.payload_len, ROCE_MAD_LEN);
			v[n].frame = frame;
			memcpy(v[n].mad, rte_pktmbuf_mtod_offset(m, uint8_t *, rp.payload_off),
			       ROCE_MAD_LEN);
			rc = roce_cm_decode(v[n].mad, ROCE_MAD_LEN, &v[n].msg);
			if (rc != 0)
				fail_msg("%s frame %u: roce_cm_decode %d", name, frame, rc);
			n++;
		}
		rte_pktmbuf_free(m);
	}
	free(buf);
	*out = v;
	return n;
}

static const struct cap_mad *at_frame(const struct cap_mad *v, unsigned n, unsigned frame)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i].frame == frame)
			return &v[i];
	fail_msg("no CM MAD in frame %u", frame);
	return NULL;
}

/*
 * What IBA 12.6 says the messages of one connection share, checked on Linux's: the REP
 * answers the REQ's comm ID with the REQ's TID, the RTU names both comm IDs, the DREQ names
 * the QP of its receiver, the DREP mirrors the DREQ's comm IDs and TID, a REJ of a REQ
 * names the REQ's comm ID and has none of its own.
 */
static void check_connection_refs(const char *file, const struct cap_mad *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct roce_cm_msg *a = &v[i].msg;

		for (unsigned j = 0; j < i; j++) {
			const struct roce_cm_msg *b = &v[j].msg;

			if (a->attr_id == ROCE_CM_ATTR_REP && b->attr_id == ROCE_CM_ATTR_REQ &&
			    a->u.rep.remote_comm_id == b->u.req.local_comm_id)
				assert_true(a->tid == b->tid);
			if (a->attr_id == ROCE_CM_ATTR_REJ && b->attr_id == ROCE_CM_ATTR_REQ &&
			    a->u.rej.remote_comm_id == b->u.req.local_comm_id) {
				assert_true(a->tid == b->tid);
				assert_int_equal(a->u.rej.local_comm_id, 0);
				assert_int_equal(a->u.rej.msg_rejected, ROCE_CM_REJ_MSG_REQ);
			}
			if (a->attr_id == ROCE_CM_ATTR_RTU && b->attr_id == ROCE_CM_ATTR_REP &&
			    a->u.rtu.remote_comm_id == b->u.rep.local_comm_id) {
				assert_int_equal(a->u.rtu.local_comm_id, b->u.rep.remote_comm_id);
				assert_true(a->tid == b->tid);
			}
			if (a->attr_id == ROCE_CM_ATTR_DREQ && b->attr_id == ROCE_CM_ATTR_REP) {
				/* sent by the active side: names the passive QP, and vice versa */
				if (a->u.dreq.local_comm_id == b->u.rep.remote_comm_id)
					assert_int_equal(a->u.dreq.remote_qpn, b->u.rep.local_qpn);
				if (a->u.dreq.local_comm_id == b->u.rep.local_comm_id) {
					const struct roce_cm_msg *req = NULL;

					for (unsigned k = 0; k < j; k++)
						if (v[k].msg.attr_id == ROCE_CM_ATTR_REQ &&
						    v[k].msg.u.req.local_comm_id ==
							    b->u.rep.remote_comm_id)
							req = &v[k].msg;
					assert_non_null(req);
					assert_int_equal(a->u.dreq.remote_qpn,
							 req->u.req.local_qpn);
				}
			}
			if (a->attr_id == ROCE_CM_ATTR_DREP && b->attr_id == ROCE_CM_ATTR_DREQ &&
			    a->u.drep.remote_comm_id == b->u.dreq.local_comm_id) {
				assert_int_equal(a->u.drep.local_comm_id, b->u.dreq.remote_comm_id);
				assert_true(a->tid == b->tid);
			}
		}
	}
	(void)file;
}

struct cap_expect {
	const char *file;
	unsigned req, rep, rtu, dreq, drep, rej, sidr_req, sidr_rep; /* from tshark's listing */
};

static unsigned checked_mads;

static void check_capture(const struct cap_expect *e, struct cap_mad **keep, unsigned *keep_n)
{
	unsigned in_use = ut_in_use(), cnt[0x20] = {0};
	struct cap_mad *v;
	unsigned n = load_mads(e->file, &v);

	for (unsigned i = 0; i < n; i++) {
		uint8_t again[ROCE_MAD_LEN];
		const struct roce_cm_msg *m = &v[i].msg;

		assert_true(m->attr_id < 0x20);
		cnt[m->attr_id]++;
		assert_int_equal(m->method, ROCE_MAD_METHOD_SEND);
		assert_int_equal(m->status, 0);
		assert_int_equal(m->attr_mod, 0);
		assert_int_equal(roce_cm_mad_status(v[i].mad, ROCE_MAD_LEN), 0);
		/* Linux keeps reserved bits zero: the re-encoded MAD is the captured one */
		memset(again, 0xee, sizeof(again));
		assert_int_equal(roce_cm_encode(m, again, sizeof(again)), ROCE_MAD_LEN);
		if (memcmp(again, v[i].mad, ROCE_MAD_LEN) != 0)
			fail_msg("%s frame %u (%s): re-encoded bytes differ", e->file, v[i].frame,
				 roce_cm_attr_name(m->attr_id));
	}
	assert_int_equal(cnt[ROCE_CM_ATTR_REQ], e->req);
	assert_int_equal(cnt[ROCE_CM_ATTR_REP], e->rep);
	assert_int_equal(cnt[ROCE_CM_ATTR_RTU], e->rtu);
	assert_int_equal(cnt[ROCE_CM_ATTR_DREQ], e->dreq);
	assert_int_equal(cnt[ROCE_CM_ATTR_DREP], e->drep);
	assert_int_equal(cnt[ROCE_CM_ATTR_REJ], e->rej);
	assert_int_equal(cnt[ROCE_CM_ATTR_SIDR_REQ], e->sidr_req);
	assert_int_equal(cnt[ROCE_CM_ATTR_SIDR_REP], e->sidr_rep);
	assert_int_equal(n, e->req + e->rep + e->rtu + e->dreq + e->drep + e->rej + e->sidr_req +
				    e->sidr_rep);
	check_connection_refs(e->file, v, n);
	assert_int_equal(ut_in_use(), in_use);
	checked_mads += n;
	print_message("%s: %u CM MADs decoded and re-encoded byte for byte\n", e->file, n);
	if (keep) {
		*keep = v;
		*keep_n = n;
	} else {
		free(v);
	}
}

static void ip_eq(const struct stk_ipaddr *a, const char *want)
{
	struct stk_ipaddr w;

	assert_int_equal(stk_ipaddr_parse(want, &w), 0);
	assert_true(stk_ipaddr_eq(a, &w));
}

/* values as tshark 4.0.17 shows them for cm_reject_and_ud.pcap (see cm_tshark_agree.py) */
static void cap_cm_reject_and_ud(void **s)
{
	static const struct cap_expect e = {
		.file = "cm_reject_and_ud.pcap", .req = 1, .rej = 1, .sidr_req = 1, .sidr_rep = 1};
	struct cap_mad *v;
	unsigned n;
	const struct roce_cm_req *q;
	const struct roce_cm_rej *j;
	const struct roce_cm_sidr_req *sq;
	const struct roce_cm_sidr_rep *sp;
	struct roce_cma_hdr h;
	struct stk_ipaddr ip;
	enum roce_rdma_ps ps;
	uint16_t port;
	(void)s;

	check_capture(&e, &v, &n);
	/* frame 1: the REQ of `rdma_client -p 9999`-style connect to a port nobody listens on */
	q = &at_frame(v, n, 1)->msg.u.req;
	assert_true(at_frame(v, n, 1)->msg.tid == 0x00000002c8f697d7ull);
	assert_int_equal(q->local_comm_id, 0xd797f6c8);
	assert_true(q->service_id == 0x000000000106270full);
	assert_int_equal(roce_cma_service_id_split(q->service_id, &ps, &port), 0);
	assert_int_equal(ps, ROCE_RDMA_PS_TCP);
	assert_int_equal(port, 9999);
	assert_true(q->local_ca_guid == 0x505400fffe990003ull);
	assert_int_equal(q->local_qkey, 0);
	assert_int_equal(q->local_qpn, 0x1a);
	assert_int_equal(q->responder_resources, 1);
	assert_int_equal(q->initiator_depth, 1);
	assert_int_equal(q->remote_cm_resp_timeout, 20);
	assert_int_equal(q->transport_type, ROCE_CM_TRANSPORT_RC);
	assert_false(q->e2e_flow_ctrl);
	assert_int_equal(q->starting_psn, 0x47312d);
	assert_int_equal(q->local_cm_resp_timeout, 20);
	assert_int_equal(q->retry_count, 7);
	assert_int_equal(q->pkey, 0xffff);
	assert_int_equal(q->path_mtu, 3); /* 1024 */
	assert_int_equal(q->rnr_retry_count, 7);
	assert_int_equal(q->max_cm_retries, 15);
	assert_false(q->srq);
	assert_int_equal(q->prim.local_lid, 0xffff);
	assert_int_equal(q->prim.remote_lid, 0xffff);
	roce_gid_to_ip(q->prim.local_gid, &ip);
	ip_eq(&ip, "10.99.0.3");
	roce_gid_to_ip(q->prim.remote_gid, &ip);
	ip_eq(&ip, "10.99.0.2");
	assert_int_equal(q->prim.flow_label, 0x04c5a);
	assert_int_equal(q->prim.packet_rate, 0);
	assert_int_equal(q->prim.hop_limit, 64);
	assert_int_equal(q->prim.local_ack_timeout, 19);
	assert_int_equal(q->alt.local_lid, 0);
	assert_int_equal(roce_cma_hdr_decode(q->private_data, sizeof(q->private_data), &h), 0);
	assert_int_equal(h.cma_version, 0);
	assert_int_equal(h.src_port, 0x8555);
	ip_eq(&h.src, "10.99.0.3");
	ip_eq(&h.dst, "10.99.0.2");
	/* frame 2: nobody listens on the service: REJ reason 8 */
	j = &at_frame(v, n, 2)->msg.u.rej;
	assert_int_equal(j->remote_comm_id, 0xd797f6c8);
	assert_int_equal(j->reason, ROCE_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(j->ari_len, 0);
	/* frames 13/14: SIDR for UDP port 7174 (0x1c06) */
	sq = &at_frame(v, n, 13)->msg.u.sidr_req;
	assert_int_equal(sq->request_id, 0xd497f6c8);
	assert_int_equal(sq->pkey, 0xffff);
	assert_true(sq->service_id == roce_cma_service_id(ROCE_RDMA_PS_UDP, 7174));
	assert_int_equal(roce_cma_hdr_decode(sq->private_data, sizeof(sq->private_data), &h), 0);
	assert_int_equal(h.src_port, 0xd303);
	ip_eq(&h.src, "10.99.0.3");
	ip_eq(&h.dst, "10.99.0.2");
	sp = &at_frame(v, n, 14)->msg.u.sidr_rep;
	assert_true(at_frame(v, n, 14)->msg.tid == at_frame(v, n, 13)->msg.tid);
	assert_int_equal(sp->request_id, sq->request_id);
	assert_int_equal(sp->status, ROCE_CM_SIDR_SUCCESS);
	assert_int_equal(sp->info_len, 0);
	assert_int_equal(sp->qpn, 0x1b);
	assert_true(sp->service_id == sq->service_id);
	assert_int_equal(sp->qkey, 0x01234567);
	free(v);
}

static void cap_cm_msgs(void **s)
{
	static const struct cap_expect e = {
		.file = "cm_msgs.pcap", .req = 5, .rep = 5, .rtu = 5, .dreq = 4, .drep = 4};
	struct cap_mad *v;
	unsigned n;
	const struct roce_cm_req *q;
	const struct roce_cm_rep *p;
	(void)s;

	check_capture(&e, &v, &n);
	q = &at_frame(v, n, 1)->msg.u.req;
	assert_true(q->service_id == roce_cma_service_id(ROCE_RDMA_PS_TCP, 18515));
	assert_int_equal(q->local_qpn, 0x13);
	assert_int_equal(q->responder_resources, 0);
	assert_int_equal(q->initiator_depth, 0);
	assert_int_equal(q->starting_psn, 0xf01d4c);
	assert_int_equal(q->prim.flow_label, 0x9efb9);
	p = &at_frame(v, n, 2)->msg.u.rep;
	assert_int_equal(p->local_comm_id, 0xc9f3bdef);
	assert_int_equal(p->remote_comm_id, 0x907c9317);
	assert_int_equal(p->local_qpn, 0x13);
	assert_int_equal(p->starting_psn, 0x005d64);
	assert_int_equal(p->target_ack_delay, 15);
	assert_int_equal(p->rnr_retry_count, 7);
	assert_true(p->local_ca_guid == 0x505400fffe990002ull);
	assert_int_equal(at_frame(v, n, 7)->msg.u.dreq.remote_qpn, 0x14);
	assert_int_equal(at_frame(v, n, 12)->msg.u.rep.responder_resources, 1);
	free(v);
}

static void cap_rc_write_read_atomic(void **s)
{
	static const struct cap_expect e = {.file = "rc_write_read_atomic.pcap",
					    .req = 1,
					    .rep = 1,
					    .rtu = 1,
					    .dreq = 1,
					    .drep = 1};
	struct cap_mad *v;
	unsigned n;
	(void)s;

	check_capture(&e, &v, &n);
	/* the one capture whose REQ and REP ask for end-to-end flow control */
	assert_true(at_frame(v, n, 91)->msg.u.req.e2e_flow_ctrl);
	assert_true(at_frame(v, n, 92)->msg.u.rep.e2e_flow_ctrl);
	assert_int_equal(at_frame(v, n, 165)->msg.u.dreq.remote_qpn, 0x17);
	free(v);
}

static void cap_nfs(void **s)
{
	static const struct cap_expect full = {
		.file = "nfs_rdma_full.pcap", .req = 2, .rep = 2, .rtu = 2, .dreq = 2, .drep = 2};
	static const struct cap_expect msgs = {
		.file = "nfs_rdma_rpc_msgs.pcap", .req = 2, .rep = 2, .rtu = 2};
	/* RFC 8797 CM private message after the cma header: magic, version 1, ... */
	static const uint8_t rpcrdma_priv[] = {0xf6, 0xab, 0x0e, 0x18, 0x01};
	struct cap_mad *v;
	unsigned n;
	const struct roce_cm_req *q;
	const struct roce_cm_rep *p;
	(void)s;

	check_capture(&full, &v, &n);
	q = &at_frame(v, n, 1)->msg.u.req;
	assert_true(q->service_id == roce_cma_service_id(ROCE_RDMA_PS_TCP, 20049));
	/* the kernel NFS client: 128 responder resources, retry 6, RNR retry 0 */
	assert_int_equal(q->responder_resources, 128);
	assert_int_equal(q->initiator_depth, 0);
	assert_int_equal(q->retry_count, 6);
	assert_int_equal(q->rnr_retry_count, 0);
	assert_memory_equal(q->private_data + ROCE_CMA_HDR_LEN, rpcrdma_priv, sizeof(rpcrdma_priv));
	p = &at_frame(v, n, 2)->msg.u.rep;
	assert_int_equal(p->responder_resources, 0);
	assert_int_equal(p->initiator_depth, 128);
	assert_int_equal(p->rnr_retry_count, 0);
	assert_memory_equal(p->private_data, rpcrdma_priv, sizeof(rpcrdma_priv));
	free(v);
	check_capture(&msgs, NULL, NULL);
	assert_int_equal(checked_mads, 4 + 23 + 5 + 10 + 6);
}

/* ---------- encoding fresh messages ---------- */

static void msg_init(struct roce_cm_msg *m, uint16_t attr)
{
	memset(m, 0, sizeof(*m));
	m->method = ROCE_MAD_METHOD_SEND;
	m->attr_id = attr;
	m->tid = 0x0000000212345678ull;
}

/* encode, check the header bytes, decode, and compare with what went in */
static void roundtrip(const struct roce_cm_msg *m, uint8_t *mad)
{
	struct roce_cm_msg back;

	assert_int_equal(roce_cm_encode(m, mad, ROCE_MAD_LEN), ROCE_MAD_LEN);
	assert_int_equal(mad[0], 1);
	assert_int_equal(mad[1], 7);
	assert_int_equal(mad[2], 2);
	assert_int_equal(mad[3], 3);
	assert_true(ref_get(mad, POS(8, 0), 64) == m->tid);
	assert_int_equal(ref_get(mad, POS(16, 0), 16), m->attr_id);
	assert_int_equal(roce_cm_decode(mad, ROCE_MAD_LEN, &back), 0);
	assert_memory_equal(&back, m, sizeof(back));
}

/* every bit of the message is 1 except the reserved ones, given as (pos, width) pairs */
static void only_reserved_zero(const uint8_t *mad, const unsigned (*resv)[2], unsigned n)
{
	uint8_t want[ROCE_MAD_DATA_LEN];

	memset(want, 0xff, sizeof(want));
	for (unsigned i = 0; i < n; i++)
		ref_set(want, resv[i][0], resv[i][1], 0);
	assert_memory_equal(mad + ROCE_MAD_HDR_LEN, want, sizeof(want));
}

static void set_path_max(struct roce_cm_path *p)
{
	p->local_lid = p->remote_lid = 0xffff;
	memset(p->local_gid, 0xff, ROCE_GID_LEN);
	memset(p->remote_gid, 0xff, ROCE_GID_LEN);
	p->flow_label = 0xfffff;
	p->packet_rate = 0x3f;
	p->traffic_class = p->hop_limit = 0xff;
	p->sl = 0xf;
	p->subnet_local = true;
	p->local_ack_timeout = 0x1f;
}

static void encode_all_ones(void **s)
{
	uint8_t mad[ROCE_MAD_LEN];
	struct roce_cm_msg m;
	struct roce_cm_req *q = &m.u.req;
	struct roce_cm_rep *p = &m.u.rep;
	/* reserved bits of Table 106: byte 4, bytes 24-27, 6 bits after each flow label, the
	 * low 3 bits of each SL byte, and of the ACK timeout bytes (2 in the alternate's) */
	static const unsigned req_resv[][2] = {{POS(4, 0), 8},	 {POS(24, 0), 32}, {POS(90, 4), 6},
					       {POS(94, 5), 3},	 {POS(95, 5), 3},  {POS(134, 4), 6},
					       {POS(138, 5), 3}, {POS(139, 6), 2}};
	static const unsigned rep_resv[][2] = {{POS(27, 4), 4}};
	static const unsigned dreq_resv[][2] = {{POS(11, 0), 8}};
	(void)s;

	msg_init(&m, ROCE_CM_ATTR_REQ);
	m.tid = UINT64_MAX;
	q->local_comm_id = UINT32_MAX;
	q->vendor_id = 0xffffff;
	q->service_id = q->local_ca_guid = UINT64_MAX;
	q->local_qkey = UINT32_MAX;
	q->local_qpn = q->local_eecn = q->remote_eecn = q->starting_psn = 0xffffff;
	q->responder_resources = q->initiator_depth = 0xff;
	q->remote_cm_resp_timeout = q->local_cm_resp_timeout = 0x1f;
	q->transport_type = 3;
	q->e2e_flow_ctrl = q->rdc_exists = q->srq = q->sap_supported = true;
	q->retry_count = q->rnr_retry_count = q->ext_transport_type = 7;
	q->pkey = 0xffff;
	q->path_mtu = q->max_cm_retries = 0xf;
	set_path_max(&q->prim);
	set_path_max(&q->alt);
	memset(q->private_data, 0xff, sizeof(q->private_data));
	roundtrip(&m, mad);
	only_reserved_zero(mad, req_resv, RTE_DIM(req_resv));

	msg_init(&m, ROCE_CM_ATTR_REP);
	p->local_comm_id = p->remote_comm_id = p->local_qkey = UINT32_MAX;
	p->local_qpn = p->local_eecn = p->starting_psn = p->vendor_id = 0xffffff;
	p->responder_resources = p->initiator_depth = 0xff;
	p->target_ack_delay = 0x1f;
	p->failover_accepted = 3;
	p->e2e_flow_ctrl = p->srq = true;
	p->rnr_retry_count = 7;
	p->local_ca_guid = UINT64_MAX;
	memset(p->private_data, 0xff, sizeof(p->private_data));
	roundtrip(&m, mad);
	only_reserved_zero(mad, rep_resv, RTE_DIM(rep_resv));

	msg_init(&m, ROCE_CM_ATTR_DREQ);
	m.u.dreq.local_comm_id = m.u.dreq.remote_comm_id = UINT32_MAX;
	m.u.dreq.remote_qpn = 0xffffff;
	memset(m.u.dreq.private_data, 0xff, sizeof(m.u.dreq.private_data));
	roundtrip(&m, mad);
	only_reserved_zero(mad, dreq_resv, RTE_DIM(dreq_resv));

	msg_init(&m, ROCE_CM_ATTR_RTU);
	m.u.rtu.local_comm_id = m.u.rtu.remote_comm_id = UINT32_MAX;
	memset(m.u.rtu.private_data, 0xff, sizeof(m.u.rtu.private_data));
	roundtrip(&m, mad);
	only_reserved_zero(mad, NULL, 0);

	msg_init(&m, ROCE_CM_ATTR_DREP);
	m.u.drep.local_comm_id = m.u.drep.remote_comm_id = UINT32_MAX;
	memset(m.u.drep.private_data, 0xff, sizeof(m.u.drep.private_data));
	roundtrip(&m, mad);
	only_reserved_zero(mad, NULL, 0);
}

static void encode_others(void **s)
{
	uint8_t mad[ROCE_MAD_LEN];
	struct roce_cm_msg m;
	(void)s;

	/* MRA: MessageMRAed 2 (LAP), ServiceTimeout 31; reserved bits stay 0 */
	msg_init(&m, ROCE_CM_ATTR_MRA);
	m.u.mra.local_comm_id = 0x01020304;
	m.u.mra.remote_comm_id = 0x05060708;
	m.u.mra.msg_mraed = ROCE_CM_MRA_MSG_LAP;
	m.u.mra.service_timeout = 31;
	memset(m.u.mra.private_data, 0xa5, sizeof(m.u.mra.private_data));
	roundtrip(&m, mad);
	assert_int_equal(mad[ROCE_MAD_HDR_LEN + 8], 0x80);
	assert_int_equal(mad[ROCE_MAD_HDR_LEN + 9], 0xf8);

	/* REJ of a REP, 72 bytes of ARI, consumer-defined */
	msg_init(&m, ROCE_CM_ATTR_REJ);
	m.u.rej.local_comm_id = 0x11;
	m.u.rej.remote_comm_id = 0x22;
	m.u.rej.msg_rejected = ROCE_CM_REJ_MSG_REP;
	m.u.rej.ari_len = ROCE_CM_REJ_ARI_LEN;
	m.u.rej.reason = ROCE_CM_REJ_CONSUMER_DEFINED;
	memset(m.u.rej.ari, 0x5a, sizeof(m.u.rej.ari));
	roundtrip(&m, mad);
	assert_int_equal(mad[ROCE_MAD_HDR_LEN + 8], 0x40);
	assert_int_equal(mad[ROCE_MAD_HDR_LEN + 9], 72 << 1);
	assert_int_equal(ref_get(mad + ROCE_MAD_HDR_LEN, POS(10, 0), 16), 28);

	/* SIDR_REQ for UDP port 7174, SIDR_REP redirecting with 72 bytes of ClassPortInfo */
	msg_init(&m, ROCE_CM_ATTR_SIDR_REQ);
	m.u.sidr_req.request_id = 0xd497f6c8;
	m.u.sidr_req.pkey = 0xffff;
	m.u.sidr_req.service_id = roce_cma_service_id(ROCE_RDMA_PS_UDP, 7174);
	roundtrip(&m, mad);
	assert_true(ref_get(mad + ROCE_MAD_HDR_LEN, POS(8, 0), 64) == 0x0000000001111c06ull);
	msg_init(&m, ROCE_CM_ATTR_SIDR_REP);
	m.u.sidr_rep.request_id = 0xd497f6c8;
	m.u.sidr_rep.status = ROCE_CM_SIDR_REDIRECT;
	m.u.sidr_rep.info_len = ROCE_CM_SIDR_REP_INFO_LEN;
	m.u.sidr_rep.qpn = 0xffffff;
	m.u.sidr_rep.service_id = UINT64_MAX;
	m.u.sidr_rep.qkey = 0x80010000;
	memset(m.u.sidr_rep.class_port_info, 0xc3, ROCE_CM_SIDR_REP_INFO_LEN);
	roundtrip(&m, mad);
	assert_int_equal(ref_get(mad + ROCE_MAD_HDR_LEN, POS(6, 0), 16), 0); /* reserved */
	assert_int_equal(ref_get(mad + ROCE_MAD_HDR_LEN, POS(11, 0), 8), 0); /* reserved */
	assert_true(ref_get(mad + ROCE_MAD_HDR_LEN, POS(12, 0), 64) == UINT64_MAX);
}

/* every refused message returns -EINVAL and leaves the buffer as it was */
static void encode_refusals(void **s)
{
	uint8_t mad[ROCE_MAD_LEN + 1], before[sizeof(mad)];
	struct roce_cm_msg m;
	(void)s;

#define REFUSED(setup)                                                                             \
	do {                                                                                       \
		setup;                                                                             \
		memset(mad, 0xee, sizeof(mad));                                                    \
		memcpy(before, mad, sizeof(mad));                                                  \
		assert_int_equal(roce_cm_encode(&m, mad, ROCE_MAD_LEN), -EINVAL);                  \
		assert_memory_equal(mad, before, sizeof(mad));                                     \
	} while (0)

	msg_init(&m, ROCE_CM_ATTR_RTU);
	assert_int_equal(roce_cm_encode(&m, mad, ROCE_MAD_LEN - 1), -EINVAL);
	assert_int_equal(roce_cm_encode(NULL, mad, ROCE_MAD_LEN), -EINVAL);
	assert_int_equal(roce_cm_encode(&m, NULL, ROCE_MAD_LEN), -EINVAL);
	/* exactly 256 bytes, even into a larger buffer */
	memset(mad, 0xee, sizeof(mad));
	assert_int_equal(roce_cm_encode(&m, mad, sizeof(mad)), ROCE_MAD_LEN);
	assert_int_equal(mad[ROCE_MAD_LEN], 0xee);

	REFUSED(msg_init(&m, ROCE_CM_ATTR_LAP));
	REFUSED(msg_init(&m, ROCE_CM_ATTR_CLASS_PORT_INFO));
	REFUSED(msg_init(&m, 0x0099));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_RTU), m.method = ROCE_MAD_METHOD_GET));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.local_qpn = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.starting_psn = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.vendor_id = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.remote_cm_resp_timeout = 32));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.transport_type = 4));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.retry_count = 8));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.path_mtu = 16));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.max_cm_retries = 16));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.prim.flow_label = 0x100000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.alt.packet_rate = 64));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.prim.sl = 16));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REQ), m.u.req.alt.local_ack_timeout = 32));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REP), m.u.rep.local_qpn = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REP), m.u.rep.failover_accepted = 4));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REP), m.u.rep.rnr_retry_count = 8));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REP), m.u.rep.target_ack_delay = 32));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_MRA), m.u.mra.msg_mraed = 3));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_MRA), m.u.mra.service_timeout = 32));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REJ), m.u.rej.msg_rejected = 3));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_REJ), m.u.rej.ari_len = 73));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_DREQ), m.u.dreq.remote_qpn = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_SIDR_REP), m.u.sidr_rep.qpn = 0x1000000));
	REFUSED((msg_init(&m, ROCE_CM_ATTR_SIDR_REP), m.u.sidr_rep.info_len = 73));
#undef REFUSED
}

/* ---------- malformed input ---------- */

/* decode from a heap buffer of exactly @len bytes, so ASan catches any read past it */
static int decode_exact(const uint8_t *src, size_t len)
{
	struct roce_cm_msg m;
	uint8_t *b = malloc(len ? len : 1);
	int rc;

	assert_non_null(b);
	memcpy(b, src, len);
	rc = roce_cm_decode(b, len, &m);
	free(b);
	return rc;
}

static void decode_malformed(void **s)
{
	uint8_t mad[ROCE_MAD_LEN + 44], good[ROCE_MAD_LEN];
	struct roce_cm_msg m;
	static const uint16_t unhandled[] = {ROCE_CM_ATTR_CLASS_PORT_INFO,
					     ROCE_CM_ATTR_LAP,
					     ROCE_CM_ATTR_APR,
					     0x0000,
					     0x0002,
					     0x000f,
					     0x001b,
					     0x0099,
					     0xff10};
	static const uint8_t methods[] = {ROCE_MAD_METHOD_GET,
					  ROCE_MAD_METHOD_SET,
					  ROCE_MAD_METHOD_GET_RESP,
					  ROCE_MAD_METHOD_TRAP,
					  ROCE_MAD_METHOD_REPORT,
					  0x83,
					  0x00,
					  0x7f};
	(void)s;

	pattern_mad(good, ROCE_CM_ATTR_REQ);
	/* truncated: every length below 256 */
	for (size_t len = 0; len < ROCE_MAD_LEN; len++)
		assert_int_equal(decode_exact(good, len), -EPROTO);
	assert_int_equal(decode_exact(good, ROCE_MAD_LEN), 0);
	/* bytes after the MAD are ignored */
	memset(mad, 0x77, sizeof(mad));
	memcpy(mad, good, ROCE_MAD_LEN);
	assert_int_equal(roce_cm_decode(mad, sizeof(mad), &m), 0);
	assert_int_equal(roce_cm_decode(NULL, ROCE_MAD_LEN, &m), -EINVAL);
	assert_int_equal(roce_cm_decode(good, ROCE_MAD_LEN, NULL), -EINVAL);

	/* base version, class, class version */
	for (unsigned v = 0; v < 256; v++) {
		memcpy(mad, good, ROCE_MAD_LEN);
		mad[0] = (uint8_t)v;
		assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), v == 1 ? 0 : -EPROTO);
		memcpy(mad, good, ROCE_MAD_LEN);
		mad[1] = (uint8_t)v;
		assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), v == 7 ? 0 : -EPROTO);
		memcpy(mad, good, ROCE_MAD_LEN);
		mad[2] = (uint8_t)v;
		assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), v == 2 ? 0 : -EPROTO);
	}
	/* attributes the codec does not handle, and methods other than Send */
	for (unsigned i = 0; i < RTE_DIM(unhandled); i++) {
		memcpy(mad, good, ROCE_MAD_LEN);
		mad[16] = (uint8_t)(unhandled[i] >> 8);
		mad[17] = (uint8_t)unhandled[i];
		assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EOPNOTSUPP);
	}
	for (unsigned i = 0; i < RTE_DIM(methods); i++) {
		memcpy(mad, good, ROCE_MAD_LEN);
		mad[3] = methods[i];
		assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EOPNOTSUPP);
	}
	/* a non-zero status, class-specific field or attribute modifier is reported, not refused */
	memcpy(mad, good, ROCE_MAD_LEN);
	mad[4] = 0x00;
	mad[5] = 0x1c;
	mad[7] = 1;
	mad[23] = 5;
	assert_int_equal(roce_cm_decode(mad, ROCE_MAD_LEN, &m), 0);
	assert_int_equal(m.status, 0x001c);
	assert_int_equal(m.attr_mod, 5);

	/* fields that make a message unreadable */
	pattern_mad(mad, ROCE_CM_ATTR_REJ);
	mad[ROCE_MAD_HDR_LEN + 8] = 0xc0; /* MessageREJected 3 */
	assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EBADMSG);
	mad[ROCE_MAD_HDR_LEN + 8] = 0x80;
	mad[ROCE_MAD_HDR_LEN + 9] = 73 << 1; /* RejectInfoLength 73 */
	assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EBADMSG);
	mad[ROCE_MAD_HDR_LEN + 9] = 72 << 1 | 1; /* 72 is fine; the reserved bit is ignored */
	assert_int_equal(roce_cm_decode(mad, ROCE_MAD_LEN, &m), 0);
	assert_int_equal(m.u.rej.ari_len, 72);
	assert_int_equal(m.u.rej.msg_rejected, ROCE_CM_REJ_MSG_OTHER);
	pattern_mad(mad, ROCE_CM_ATTR_MRA);
	mad[ROCE_MAD_HDR_LEN + 8] = 0xff; /* MessageMRAed 3 */
	assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EBADMSG);
	mad[ROCE_MAD_HDR_LEN + 8] = 0xbf; /* 2 (LAP), reserved bits set: fine */
	assert_int_equal(roce_cm_decode(mad, ROCE_MAD_LEN, &m), 0);
	assert_int_equal(m.u.mra.msg_mraed, ROCE_CM_MRA_MSG_LAP);
	pattern_mad(mad, ROCE_CM_ATTR_SIDR_REP);
	mad[ROCE_MAD_HDR_LEN + 5] = 73;
	assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), -EBADMSG);
	mad[ROCE_MAD_HDR_LEN + 5] = 72;
	assert_int_equal(decode_exact(mad, ROCE_MAD_LEN), 0);
	/* legal on the wire, the CM's to judge: path MTU 0, transport 3, QPN 0 */
	pattern_mad(mad, ROCE_CM_ATTR_REQ);
	memset(mad + ROCE_MAD_HDR_LEN + 32, 0, 3);
	mad[ROCE_MAD_HDR_LEN + 43] |= 0x06;
	mad[ROCE_MAD_HDR_LEN + 50] &= 0x0f;
	assert_int_equal(roce_cm_decode(mad, ROCE_MAD_LEN, &m), 0);
	assert_int_equal(m.u.req.local_qpn, 0);
	assert_int_equal(m.u.req.transport_type, 3);
	assert_int_equal(m.u.req.path_mtu, 0);
}

/* ---------- what a receiver answers (IBA 13.4.7, 13.4.9) ---------- */

static void mad_status_and_error_resp(void **s)
{
	uint8_t req[ROCE_MAD_LEN], resp[ROCE_MAD_LEN];
	(void)s;

	pattern_mad(req, ROCE_CM_ATTR_REQ);
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), 0);
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_HDR_LEN - 1), 0);
	req[2] = 1; /* CM class version 1 */
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_BAD_VERSION);
	/* a Send is never answered, whatever is wrong with it */
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, ROCE_MAD_STATUS_BAD_VERSION, resp,
					     sizeof(resp)),
			 0);
	/* a Get with a bad class version is: GetResp, status code 1, same TID */
	req[3] = ROCE_MAD_METHOD_GET;
	req[16] = 0;
	req[17] = ROCE_CM_ATTR_CLASS_PORT_INFO;
	req[8] = 0xab;
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN,
					     roce_cm_mad_status(req, ROCE_MAD_LEN), resp,
					     sizeof(resp)),
			 ROCE_MAD_LEN);
	assert_int_equal(resp[3], ROCE_MAD_METHOD_GET_RESP);
	assert_int_equal(ref_get(resp, POS(4, 0), 16), ROCE_MAD_STATUS_BAD_VERSION);
	assert_memory_equal(resp + 8, req + 8, ROCE_MAD_LEN - 8); /* TID, attribute, data */
	assert_memory_equal(resp, req, 3);
	/* Get(ClassPortInfo) of the right version: droce's CM does not serve it (yet) */
	req[2] = 2;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP);
	req[3] = ROCE_MAD_METHOD_SET;
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP,
					     resp, sizeof(resp)),
			 ROCE_MAD_LEN);
	assert_int_equal(ref_get(resp, POS(4, 0), 16), 0x000c);
	/* Sends of attributes the CM does not handle: status, but no answer */
	req[3] = ROCE_MAD_METHOD_SEND;
	req[17] = ROCE_CM_ATTR_LAP;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 0x000c, resp, sizeof(resp)), 0);
	/* methods other than Get/Set/Send; responses are never answered */
	req[3] = ROCE_MAD_METHOD_TRAP;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_METHOD_UNSUPP);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 0x0008, resp, sizeof(resp)), 0);
	req[3] = ROCE_MAD_METHOD_GET_RESP;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_METHOD_UNSUPP);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 0x0008, resp, sizeof(resp)), 0);
	/* another management class (here the SA, 0x03): no CM agent for it */
	req[1] = 0x03;
	req[3] = ROCE_MAD_METHOD_GET;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP);
	/* base version 2: not even the header can be trusted; dropped */
	req[0] = 2;
	assert_int_equal(roce_cm_mad_status(req, ROCE_MAD_LEN), 0);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 0x0004, resp, sizeof(resp)), 0);
	/* a short Get is answered from what there is, zero-padded to 256 */
	req[0] = 1;
	memset(resp, 0xee, sizeof(resp));
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_HDR_LEN, 0x0004, resp, sizeof(resp)),
			 ROCE_MAD_LEN);
	assert_int_equal(resp[ROCE_MAD_HDR_LEN], 0);
	assert_int_equal(resp[ROCE_MAD_LEN - 1], 0);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_HDR_LEN - 1, 4, resp, sizeof(resp)), 0);
	/* argument errors */
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 0, resp, sizeof(resp)), -EINVAL);
	assert_int_equal(roce_mad_error_resp(req, ROCE_MAD_LEN, 4, resp, ROCE_MAD_LEN - 1),
			 -EINVAL);
	assert_int_equal(roce_mad_error_resp(NULL, ROCE_MAD_LEN, 4, resp, sizeof(resp)), -EINVAL);
	assert_int_equal(roce_cm_mad_status(NULL, ROCE_MAD_LEN), 0);
}

/* ---------- RDMA IP CM header, service IDs, GIDs ---------- */

static void cma_header(void **s)
{
	uint8_t priv[ROCE_CM_REQ_PRIV_LEN], want[ROCE_CMA_HDR_LEN];
	struct roce_cma_hdr h, back;
	(void)s;

	memset(&h, 0, sizeof(h));
	h.src_port = 0x8555;
	assert_int_equal(stk_ipaddr_parse("10.99.0.3", &h.src), 0);
	assert_int_equal(stk_ipaddr_parse("10.99.0.2", &h.dst), 0);
	memset(priv, 0xee, sizeof(priv));
	assert_int_equal(roce_cma_hdr_encode(&h, priv, sizeof(priv)), ROCE_CMA_HDR_LEN);
	/* the bytes of cm_reject_and_ud.pcap frame 1's private data */
	memset(want, 0, sizeof(want));
	want[1] = 0x40;
	want[2] = 0x85;
	want[3] = 0x55;
	memcpy(want + 16, (const uint8_t[]){10, 99, 0, 3}, 4);
	memcpy(want + 32, (const uint8_t[]){10, 99, 0, 2}, 4);
	assert_memory_equal(priv, want, sizeof(want));
	assert_int_equal(priv[ROCE_CMA_HDR_LEN], 0xee); /* consumer data untouched */
	assert_int_equal(roce_cma_hdr_decode(priv, ROCE_CMA_HDR_LEN, &back), 0);
	assert_int_equal(back.src_port, 0x8555);
	assert_true(stk_ipaddr_eq(&back.src, &h.src) && stk_ipaddr_eq(&back.dst, &h.dst));

	assert_int_equal(stk_ipaddr_parse("fd99::2", &h.src), 0);
	assert_int_equal(stk_ipaddr_parse("fd99::3", &h.dst), 0);
	assert_int_equal(roce_cma_hdr_encode(&h, priv, sizeof(priv)), ROCE_CMA_HDR_LEN);
	assert_int_equal(priv[1], 0x60);
	assert_memory_equal(priv + 4, h.src.v6, 16);
	assert_memory_equal(priv + 20, h.dst.v6, 16);
	assert_int_equal(roce_cma_hdr_decode(priv, sizeof(priv), &back), 0);
	assert_int_equal(back.src.family, 6);
	assert_true(stk_ipaddr_eq(&back.src, &h.src) && stk_ipaddr_eq(&back.dst, &h.dst));

	assert_int_equal(roce_cma_hdr_decode(priv, ROCE_CMA_HDR_LEN - 1, &back), -EINVAL);
	priv[1] = 0x50;
	assert_int_equal(roce_cma_hdr_decode(priv, sizeof(priv), &back), -EAFNOSUPPORT);
	priv[1] = 0x60;
	priv[0] = 0x10; /* major version 1 */
	assert_int_equal(roce_cma_hdr_decode(priv, sizeof(priv), &back), -EPROTO);
	assert_int_equal(roce_cma_hdr_encode(&h, priv, ROCE_CMA_HDR_LEN - 1), -EINVAL);
	assert_int_equal(stk_ipaddr_parse("10.0.0.1", &h.dst), 0); /* families differ */
	assert_int_equal(roce_cma_hdr_encode(&h, priv, sizeof(priv)), -EINVAL);
}

static void service_ids(void **s)
{
	enum roce_rdma_ps ps;
	uint16_t port;
	(void)s;

	assert_true(roce_cma_service_id(ROCE_RDMA_PS_TCP, 9999) == 0x000000000106270full);
	assert_true(roce_cma_service_id(ROCE_RDMA_PS_TCP, 0) == 0x0000000001060000ull);
	assert_true(roce_cma_service_id(ROCE_RDMA_PS_UDP, 7174) == 0x0000000001111c06ull);
	assert_true(roce_cma_service_id(ROCE_RDMA_PS_IB, 1) == 0x00000000013f0001ull);
	assert_true(roce_cma_service_id(ROCE_RDMA_PS_IPOIB, 7) == 0x0000000000020007ull);
	assert_int_equal(roce_cma_service_id_split(0x0000000001064e51ull, &ps, &port), 0);
	assert_int_equal(ps, ROCE_RDMA_PS_TCP);
	assert_int_equal(port, 20049);
	assert_int_equal(roce_cma_service_id_split(0x0000000001111c06ull, &ps, &port), 0);
	assert_int_equal(ps, ROCE_RDMA_PS_UDP);
	assert_int_equal(roce_cma_service_id_split(0x00000000013fffffull, &ps, &port), 0);
	assert_int_equal(ps, ROCE_RDMA_PS_IB);
	assert_int_equal(port, 0xffff);
	assert_int_equal(roce_cma_service_id_split(0x0000000000020007ull, &ps, NULL), 0);
	assert_int_equal(ps, ROCE_RDMA_PS_IPOIB);
	assert_int_equal(roce_cma_service_id_split(0x1000000000000abcull, &ps, &port), -EINVAL);
	assert_int_equal(roce_cma_service_id_split(0x0000000101060000ull, &ps, &port), -EINVAL);
	/* found by fuzz_cm_mad: bits 63:48 set over a valid port space */
	assert_int_equal(roce_cma_service_id_split(0xbb00000001111c06ull, &ps, &port), -EINVAL);
	assert_int_equal(roce_cma_service_id_split(0x8000000001060000ull, &ps, &port), -EINVAL);
	assert_int_equal(roce_cma_service_id_split(0x0000000001070000ull, &ps, &port), -EINVAL);
	assert_int_equal(roce_cma_service_id_split(0, &ps, &port), -EINVAL);
}

static void gids(void **s)
{
	static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 3};
	static const uint8_t compat[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 99, 0, 3};
	uint8_t gid[16];
	struct stk_ipaddr a, b;
	(void)s;

	assert_int_equal(stk_ipaddr_parse("10.99.0.3", &a), 0);
	assert_int_equal(roce_gid_from_ip(&a, gid), 0);
	assert_memory_equal(gid, mapped, 16);
	assert_true(roce_gid_is_v4mapped(gid));
	roce_gid_to_ip(gid, &b);
	assert_true(stk_ipaddr_eq(&a, &b));
	assert_int_equal(stk_ipaddr_parse("fd99::2", &a), 0);
	assert_int_equal(roce_gid_from_ip(&a, gid), 0);
	assert_memory_equal(gid, a.v6, 16);
	assert_false(roce_gid_is_v4mapped(gid));
	roce_gid_to_ip(gid, &b);
	assert_true(stk_ipaddr_eq(&a, &b));
	assert_false(roce_gid_is_v4mapped(compat)); /* ::10.99.0.3 is not IPv4-mapped */
	roce_gid_to_ip(compat, &b);
	assert_int_equal(b.family, 6);
	memset(&a, 0, sizeof(a));
	assert_int_equal(roce_gid_from_ip(&a, gid), -EINVAL);
	assert_int_equal(roce_gid_from_ip(NULL, gid), -EINVAL);
}

static void names(void **s)
{
	unsigned named = 0;
	(void)s;

	assert_string_equal(roce_cm_attr_name(ROCE_CM_ATTR_REQ), "REQ");
	assert_string_equal(roce_cm_attr_name(ROCE_CM_ATTR_SIDR_REP), "SIDR_REP");
	assert_string_equal(roce_cm_attr_name(ROCE_CM_ATTR_APR), "APR");
	assert_string_equal(roce_cm_attr_name(ROCE_CM_ATTR_CLASS_PORT_INFO), "ClassPortInfo");
	assert_string_equal(roce_cm_attr_name(0x001b), "UNKNOWN");
	for (unsigned r = 0; r < 64; r++)
		named += strcmp(roce_cm_rej_reason_name((uint16_t)r), "unknown") != 0;
	assert_int_equal(named, 34); /* 1-33 and 35 */
	assert_string_equal(roce_cm_rej_reason_name(0), "unknown");
	assert_string_equal(roce_cm_rej_reason_name(34), "unknown");
	assert_string_equal(roce_cm_rej_reason_name(ROCE_CM_REJ_INVALID_SERVICE_ID),
			    "invalid service ID");
	assert_string_equal(roce_cm_rej_reason_name(28), "consumer-defined");
	assert_string_equal(roce_cm_rej_reason_name(35), "vendor option not supported");
	assert_int_equal(ROCE_CM_REJ_INVALID_MTU, 26);
	assert_int_equal(ROCE_CM_REJ_INVALID_CLASS_VERSION, 31);
	assert_string_equal(roce_cm_sidr_status_name(ROCE_CM_SIDR_REDIRECT),
			    "redirect (ClassPortInfo follows)");
	assert_string_equal(roce_cm_sidr_status_name(6), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accessors_req),
		cmocka_unit_test(accessors_other),
		cmocka_unit_test(accessors_mad_hdr),
		cmocka_unit_test(layout),
		cmocka_unit_test(cap_cm_reject_and_ud),
		cmocka_unit_test(cap_cm_msgs),
		cmocka_unit_test(cap_rc_write_read_atomic),
		cmocka_unit_test(cap_nfs),
		cmocka_unit_test(encode_all_ones),
		cmocka_unit_test(encode_others),
		cmocka_unit_test(encode_refusals),
		cmocka_unit_test(decode_malformed),
		cmocka_unit_test(mad_status_and_error_resp),
		cmocka_unit_test(cma_header),
		cmocka_unit_test(service_ids),
		cmocka_unit_test(gids),
		cmocka_unit_test(names),
	};
	int rc;

	if (ut_eal_init("test_cm_wire", "0") != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ut_eal_fini();
	return rc;
}
