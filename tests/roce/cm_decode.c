/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_decode.c - droce's CM codec seen from outside, for tests/roce/cm_tshark_agree.py.
 *
 *   cm_decode FILE.pcap|FILE.pcapng   decode every CM MAD (UD SEND ONLY to QP 1, MAD after
 *                                     the DETH) with roce_cm_decode(), re-encode it with
 *                                     roce_cm_encode() and compare the bytes with the capture
 *   cm_decode -w OUT.pcap             build CM messages from chosen field values, encode
 *                                     them and frame them with roce_tx_build() into OUT.pcap
 *
 * Either way it prints one line per frame: "-" for a frame that is not a CM MAD, else "cm"
 * and tab-separated key=value pairs. Keys named infiniband.* are tshark 4.0 fields. Keys
 * named iba.* are fields tshark does not dissect (MRA, SIDR, ECE vendor ID) or shows wrongly
 * (REQ flow label and packet rate); the script decodes those from tshark's raw MAD bytes on
 * its own. In decode mode the values are what droce decoded. In -w mode they are the values
 * that were asked for, so tshark must read them back from the frames droce built.
 * Integers print in decimal, byte strings in lowercase hex, addresses as text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "roce_cm_wire.h"
#include "roce_hdr.h"
#include "roce_opcode.h"
#include "roce_pkt.h"
#include "roce_tx.h"
#include "stk_iface.h"
#include "stk_pkt.h"

static void kv(const char *key, unsigned long long v)
{
	printf("\t%s=%llu", key, v);
}

static void kv_hex(const char *key, const uint8_t *b, size_t n)
{
	printf("\t%s=", key);
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static void kv_ip(const char *key, const struct stk_ipaddr *a)
{
	char buf[64];

	printf("\t%s=%s", key, stk_ipaddr_str(a, buf, sizeof(buf)));
}

/* prim_localgid (IPv6) or prim_localgid_ipv4, as tshark splits them */
static void kv_gid(const char *key, const uint8_t *gid)
{
	struct stk_ipaddr ip;
	char k[96];

	roce_gid_to_ip(gid, &ip);
	snprintf(k, sizeof(k), "%s%s", key, ip.family == 4 ? "_ipv4" : "");
	kv_ip(k, &ip);
}

/* rdma_cm service IDs (0x0000000001PPpppp): tshark shows prefix, protocol and port */
static bool ip_cm_sid(uint64_t sid)
{
	return (sid >> 24) == 1;
}

static void print_cma(const char *pfx, const uint8_t *priv, size_t len)
{
	struct roce_cma_hdr h;
	char k[96];
	int rc = roce_cma_hdr_decode(priv, len, &h);

	if (rc != 0) {
		snprintf(k, sizeof(k), "%s.error", pfx);
		kv(k, (unsigned long long)-rc);
		return;
	}
	snprintf(k, sizeof(k), "%s.majv", pfx);
	kv(k, h.cma_version >> 4);
	snprintf(k, sizeof(k), "%s.minv", pfx);
	kv(k, h.cma_version & 0xf);
	snprintf(k, sizeof(k), "%s.ipv", pfx);
	kv(k, h.src.family);
	snprintf(k, sizeof(k), "%s.sport", pfx);
	kv(k, h.src_port);
	snprintf(k, sizeof(k), "%s.sip%d", pfx, h.src.family);
	kv_ip(k, &h.src);
	snprintf(k, sizeof(k), "%s.dip%d", pfx, h.dst.family);
	kv_ip(k, &h.dst);
}

static void print_path(const char *p, const struct roce_cm_path *pa, bool alt)
{
	char k[96];

#define K(f) (snprintf(k, sizeof(k), "infiniband.cm.req.%s_%s", p, f), k)
	kv(K("locallid"), pa->local_lid);
	kv(K("remotelid"), pa->remote_lid);
	if (alt) { /* tshark shows alternate GIDs as bytes */
		kv_hex(K("localgid"), pa->local_gid, ROCE_GID_LEN);
		kv_hex(K("remotegid"), pa->remote_gid, ROCE_GID_LEN);
	} else {
		kv_gid(K("localgid"), pa->local_gid);
		kv_gid(K("remotegid"), pa->remote_gid);
	}
	kv(K("tfcclass"), pa->traffic_class);
	kv(K("hoplim"), pa->hop_limit);
	kv(K("sl"), pa->sl);
	kv(K("subnetlocal"), pa->subnet_local);
	kv(K("localacktout"), pa->local_ack_timeout);
#undef K
	/* tshark 4.0.17 reads these two from the wrong bits; the script checks them itself */
	snprintf(k, sizeof(k), "iba.req.%s_flowlabel", p);
	kv(k, pa->flow_label);
	snprintf(k, sizeof(k), "iba.req.%s_pktrate", p);
	kv(k, pa->packet_rate);
}

static void print_req(const struct roce_cm_req *r)
{
	enum roce_rdma_ps ps;
	uint16_t port;

#define K(f) "infiniband.cm.req" f
	kv(K(""), r->local_comm_id);
	kv(K(".serviceid"), r->service_id);
	if (ip_cm_sid(r->service_id) && roce_cma_service_id_split(r->service_id, &ps, &port) == 0) {
		kv(K(".serviceid.protocol"), ps & 0xff);
		kv(K(".serviceid.dport"), port);
	}
	kv(K(".localcaguid"), r->local_ca_guid);
	kv(K(".localqkey"), r->local_qkey);
	kv(K(".localqpn"), r->local_qpn);
	kv(K(".responderres"), r->responder_resources);
	kv(K(".localeecn"), r->local_eecn);
	kv(K(".initdepth"), r->initiator_depth);
	kv(K(".remoteeecn"), r->remote_eecn);
	kv(K(".remoteresptout"), r->remote_cm_resp_timeout);
	kv(K(".transpsvctype"), r->transport_type);
	kv(K(".e2eflowctrl"), r->e2e_flow_ctrl);
	kv(K(".startpsn"), r->starting_psn);
	kv(K(".localresptout"), r->local_cm_resp_timeout);
	kv(K(".retrcount"), r->retry_count);
	kv(K(".pkey"), r->pkey);
	kv(K(".pppmtu"), r->path_mtu);
	kv(K(".rdcexist"), r->rdc_exists);
	kv(K(".rnrretrcount"), r->rnr_retry_count);
	kv(K(".maxcmretr"), r->max_cm_retries);
	kv(K(".srq"), r->srq);
	kv(K(".ext_transport"), r->ext_transport_type);
	print_path("prim", &r->prim, false);
	print_path("alt", &r->alt, true);
	kv("iba.req.vendor_id", r->vendor_id);
	kv("iba.req.sap", r->sap_supported);
	if (ip_cm_sid(r->service_id)) {
		print_cma(K(".ip_cm"), r->private_data, sizeof(r->private_data));
		kv_hex(K(".ip_cm.private"), r->private_data + ROCE_CMA_HDR_LEN,
		       sizeof(r->private_data) - ROCE_CMA_HDR_LEN);
	} else {
		kv_hex(K(".private"), r->private_data, sizeof(r->private_data));
	}
#undef K
}

static void print_rep(const struct roce_cm_rep *r)
{
#define K(f) "infiniband.cm.rep" f
	kv(K(""), r->local_comm_id);
	kv(K(".remotecommid"), r->remote_comm_id);
	kv(K(".localqkey"), r->local_qkey);
	kv(K(".localqpn"), r->local_qpn);
	kv(K(".localeecn"), r->local_eecn);
	kv(K(".startpsn"), r->starting_psn);
	kv(K(".respres"), r->responder_resources);
	kv(K(".initdepth"), r->initiator_depth);
	kv(K(".tgtackdelay"), r->target_ack_delay);
	kv(K(".failoveracc"), r->failover_accepted);
	kv(K(".e2eflowctrl"), r->e2e_flow_ctrl);
	kv(K(".rnrretrcount"), r->rnr_retry_count);
	kv(K(".srq"), r->srq);
	kv(K(".localcaguid"), r->local_ca_guid);
	kv_hex(K(".private"), r->private_data, sizeof(r->private_data));
	kv("iba.rep.vendor_id", r->vendor_id);
#undef K
}

static void print_msg(const struct roce_cm_msg *m)
{
	const struct roce_cm_sidr_req *sq = &m->u.sidr_req;
	const struct roce_cm_sidr_rep *sp = &m->u.sidr_rep;

	kv("infiniband.mad.baseversion", ROCE_MAD_BASE_VERSION);
	kv("infiniband.mad.mgmtclass", ROCE_MGMT_CLASS_CM);
	kv("infiniband.mad.classversion", ROCE_CM_CLASS_VERSION);
	kv("infiniband.mad.method", m->method);
	kv("infiniband.mad.status", m->status);
	kv("infiniband.mad.transactionid", m->tid);
	kv("infiniband.mad.attributeid", m->attr_id);
	kv("infiniband.mad.attributemodifier", m->attr_mod);
	switch (m->attr_id) {
	case ROCE_CM_ATTR_REQ:
		print_req(&m->u.req);
		break;
	case ROCE_CM_ATTR_REP:
		print_rep(&m->u.rep);
		break;
	case ROCE_CM_ATTR_RTU:
		kv("infiniband.cm.rtu.localcommid", m->u.rtu.local_comm_id);
		kv("infiniband.cm.rtu.remotecommid", m->u.rtu.remote_comm_id);
		kv_hex("infiniband.cm.rtu.private", m->u.rtu.private_data, ROCE_CM_RTU_PRIV_LEN);
		break;
	case ROCE_CM_ATTR_REJ:
		kv("infiniband.cm.rej.localcommid", m->u.rej.local_comm_id);
		kv("infiniband.cm.rej.remotecommid", m->u.rej.remote_comm_id);
		kv("infiniband.cm.rej.msgrej", m->u.rej.msg_rejected);
		kv("infiniband.cm.rej.rejinfolen", m->u.rej.ari_len);
		kv("infiniband.cm.rej.reason", m->u.rej.reason);
		kv_hex("infiniband.cm.rej.ari", m->u.rej.ari, ROCE_CM_REJ_ARI_LEN);
		kv_hex("infiniband.cm.rej.private", m->u.rej.private_data, ROCE_CM_REJ_PRIV_LEN);
		break;
	case ROCE_CM_ATTR_DREQ:
		kv("infiniband.cm.dreq.localcommid", m->u.dreq.local_comm_id);
		kv("infiniband.cm.dreq.remotecommid", m->u.dreq.remote_comm_id);
		kv("infiniband.cm.req.remoteqpneecn", m->u.dreq.remote_qpn);
		kv_hex("infiniband.cm.dreq.private", m->u.dreq.private_data, ROCE_CM_DREQ_PRIV_LEN);
		break;
	case ROCE_CM_ATTR_DREP:
		kv("infiniband.cm.drsp.localcommid", m->u.drep.local_comm_id);
		kv("infiniband.cm.drsp.remotecommid", m->u.drep.remote_comm_id);
		kv_hex("infiniband.cm.drsp.private", m->u.drep.private_data, ROCE_CM_DREP_PRIV_LEN);
		break;
	case ROCE_CM_ATTR_MRA:
		kv("iba.mra.local_comm_id", m->u.mra.local_comm_id);
		kv("iba.mra.remote_comm_id", m->u.mra.remote_comm_id);
		kv("iba.mra.msg_mraed", m->u.mra.msg_mraed);
		kv("iba.mra.service_timeout", m->u.mra.service_timeout);
		kv_hex("iba.mra.private", m->u.mra.private_data, ROCE_CM_MRA_PRIV_LEN);
		break;
	case ROCE_CM_ATTR_SIDR_REQ:
		kv("iba.sidr_req.request_id", sq->request_id);
		kv("iba.sidr_req.pkey", sq->pkey);
		kv("iba.sidr_req.service_id", sq->service_id);
		if (ip_cm_sid(sq->service_id))
			print_cma("iba.sidr_req.ip_cm", sq->private_data, sizeof(sq->private_data));
		kv_hex("iba.sidr_req.private", sq->private_data, sizeof(sq->private_data));
		break;
	case ROCE_CM_ATTR_SIDR_REP:
		kv("iba.sidr_rep.request_id", sp->request_id);
		kv("iba.sidr_rep.status", sp->status);
		kv("iba.sidr_rep.info_len", sp->info_len);
		kv("iba.sidr_rep.qpn", sp->qpn);
		kv("iba.sidr_rep.service_id", sp->service_id);
		kv("iba.sidr_rep.qkey", sp->qkey);
		kv_hex("iba.sidr_rep.info", sp->class_port_info, sizeof(sp->class_port_info));
		kv_hex("iba.sidr_rep.private", sp->private_data, sizeof(sp->private_data));
		break;
	}
}

/* ---------- decode mode ---------- */

static void decode_frame(struct rte_mempool *pool, const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t again[ROCE_MAD_LEN];
	struct roce_cm_msg msg;
	const uint8_t *mad;
	struct stk_pkt p;
	struct roce_pkt rp;
	int rc;

	if (!m || len > rte_pktmbuf_tailroom(m)) {
		printf("ERROR=frame too long\n");
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), d, len);
	if (stk_parse(m, &p) != 0 || p.dport != STK_ROCE_UDP_PORT ||
	    roce_pkt_parse(m, &p, &rp) != 0 || rp.opcode != ROCE_OP_UD_SEND_ONLY ||
	    rp.dqpn != ROCE_GSI_QPN) {
		printf("-\n");
		rte_pktmbuf_free(m);
		return;
	}
	mad = rte_pktmbuf_mtod_offset(m, const uint8_t *, rp.payload_off);
	rc = roce_cm_decode(mad, rp.payload_len, &msg);
	if (rc != 0) {
		printf("cm\tERROR=%d %s\n", rc, strerror(-rc));
		rte_pktmbuf_free(m);
		return;
	}
	printf("cm");
	print_msg(&msg);
	/* Linux keeps reserved bits zero, so the re-encoded MAD must equal the capture */
	rc = roce_cm_encode(&msg, again, sizeof(again));
	printf("\tx.reencode=%s\n",
	       rc == ROCE_MAD_LEN && memcmp(again, mad, ROCE_MAD_LEN) == 0 ? "ok" : "differs");
	rte_pktmbuf_free(m);
}

static int decode_file(struct rte_mempool *pool, const char *path)
{
	uint8_t *buf;
	uint32_t magic;
	long sz;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	if (!buf || sz < 24 || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "%s: cannot read\n", path);
		fclose(f);
		free(buf);
		return 2;
	}
	fclose(f);
	memcpy(&magic, buf, 4);
	for (long off = magic == 0x0a0d0d0a ? 0 : 24; off + 16 <= sz;) {
		uint32_t type, blen, len;

		memcpy(&type, buf + off, 4);
		memcpy(&blen, buf + off + 4, 4);
		if (magic == 0x0a0d0d0a) { /* pcapng: only enhanced packet blocks hold frames */
			if (blen < 12 || off + blen > sz)
				break;
			if (type == 6) {
				memcpy(&len, buf + off + 20, 4);
				if (28 + len <= blen)
					decode_frame(pool, buf + off + 28, len);
			}
			off += blen;
		} else {
			memcpy(&len, buf + off + 8, 4);
			if (off + 16 + len > sz)
				break;
			decode_frame(pool, buf + off + 16, len);
			off += 16 + len;
		}
	}
	free(buf);
	return 0;
}

/* ---------- -w mode: messages built from chosen values ---------- */

static FILE *out;
static struct rte_mempool *gen_pool;
static struct stk_iface gen_ifc;
static unsigned gen_n;

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

/* encode @msg, check that it decodes to itself, frame it, write it and print what was asked */
static int emit(const struct roce_cm_msg *msg)
{
	uint8_t mad[ROCE_MAD_LEN], frame[2048];
	struct roce_cm_msg back;
	struct roce_path path;
	struct rte_mbuf *m;
	uint32_t len, hdr[4];
	struct roce_tx t = {
		.path = &path,
		.lqpn = ROCE_GSI_QPN,
		.dqpn = ROCE_GSI_QPN,
		.opcode = ROCE_OP_UD_SEND_ONLY,
		.psn = 100 + gen_n,
		.pkey = ROCE_GSI_PKEY,
		.qkey = ROCE_GSI_QKEY,
		.sqpn = ROCE_GSI_QPN,
	};

	if (roce_cm_encode(msg, mad, sizeof(mad)) != ROCE_MAD_LEN) {
		fprintf(stderr, "message %u: roce_cm_encode refused it\n", gen_n);
		return -1;
	}
	if (roce_cm_decode(mad, sizeof(mad), &back) != 0 || memcmp(&back, msg, sizeof(back))) {
		fprintf(stderr, "message %u: does not decode to what was encoded\n", gen_n);
		return -1;
	}
	memset(&path, 0, sizeof(path));
	stk_ipaddr_parse(gen_n & 1 ? "fd99::3" : "10.99.0.3", &path.dgid_ip);
	m = roce_tx_build(gen_pool, &gen_ifc, &t, mad, sizeof(mad), NULL);
	if (!m) {
		fprintf(stderr, "message %u: roce_tx_build failed\n", gen_n);
		return -1;
	}
	len = rte_pktmbuf_pkt_len(m);
	memcpy(frame, rte_pktmbuf_mtod(m, uint8_t *), len);
	frame[0] = 0x52; /* the peer's MAC; neighbour resolution is not part of this test */
	frame[5] = 0x03;
	hdr[0] = gen_n;
	hdr[1] = 0;
	hdr[2] = len;
	hdr[3] = len;
	fwrite(hdr, 4, 4, out);
	fwrite(frame, 1, len, out);
	rte_pktmbuf_free(m);
	printf("cm");
	print_msg(msg);
	printf("\n");
	gen_n++;
	return 0;
}

/* zeroed as a whole, padding included, so that a decoded copy compares equal with memcmp */
static void msg_init(struct roce_cm_msg *m, uint16_t attr_id)
{
	memset(m, 0, sizeof(*m));
	m->method = ROCE_MAD_METHOD_SEND;
	m->attr_id = attr_id;
}

static void ip(const char *s, struct stk_ipaddr *a)
{
	if (stk_ipaddr_parse(s, a) != 0)
		abort();
}

static void set_path(struct roce_cm_path *p, const char *l, const char *r, uint32_t seed)
{
	struct stk_ipaddr a;

	p->local_lid = 0xffff;
	p->remote_lid = (uint16_t)(0xff00 + seed);
	ip(l, &a);
	roce_gid_from_ip(&a, p->local_gid);
	ip(r, &a);
	roce_gid_from_ip(&a, p->remote_gid);
	p->flow_label = (0x12345 + seed * 0x1111) & 0xfffff;
	p->packet_rate = (uint8_t)(2 + seed * 7) & 0x3f;
	p->traffic_class = (uint8_t)(0x68 + seed);
	p->hop_limit = (uint8_t)(64 - seed);
	p->sl = (uint8_t)(seed & 0xf);
	p->subnet_local = seed & 1;
	p->local_ack_timeout = (uint8_t)(14 + seed) & 0x1f;
}

static int gen_req(unsigned v)
{
	struct roce_cm_msg m;
	struct roce_cm_req *r = &m.u.req;
	struct roce_cma_hdr h = {.src_port = (uint16_t)(40000 + v)};
	static const uint64_t sids[] = {0x0000000001061389ull, 0x0000000001110bb8ull,
					0x00000000013f0001ull, 0x1000000000000abcull,
					0x0000000000020007ull};

	msg_init(&m, ROCE_CM_ATTR_REQ);
	m.tid = 0x0000000200000000ull | (0xc0de0000u + v);
	r->local_comm_id = 0xa1b2c300u + v;
	r->vendor_id = v == 2 ? 0x02c9 : 0;
	r->service_id = sids[v % 5];
	r->local_ca_guid = 0x505400fffe990002ull + v;
	r->local_qkey = v == 1 ? 0x11223344 : 0;
	r->local_qpn = 0x000100 + v * 0x10101;
	r->responder_resources = (uint8_t)(16 >> v);
	r->local_eecn = v == 3 ? 0xabcdef : 0;
	r->initiator_depth = (uint8_t)(1 + v);
	r->remote_eecn = v == 3 ? 0x123456 : 0;
	r->remote_cm_resp_timeout = (uint8_t)(20 + v);
	r->transport_type = (uint8_t)(v == 4 ? ROCE_CM_TRANSPORT_EXT : v % 3);
	r->e2e_flow_ctrl = v & 1;
	r->starting_psn = 0xfffff0 - v * 0x10001;
	r->local_cm_resp_timeout = (uint8_t)(18 + v);
	r->retry_count = (uint8_t)(7 - v);
	r->pkey = v == 2 ? 0x8001 : 0xffff;
	r->path_mtu = (uint8_t)(1 + v);
	r->rdc_exists = v == 3;
	r->rnr_retry_count = (uint8_t)(v + 3) & 7;
	r->max_cm_retries = (uint8_t)(15 - v);
	r->srq = v & 1;
	r->ext_transport_type = v == 4 ? 1 : 0;
	if (v & 1) {
		ip("fd99::2", &h.src);
		ip("fd99::3", &h.dst);
		set_path(&r->prim, "fd99::2", "fd99::3", v);
		set_path(&r->alt, "fd99::12", "fd99::13", v + 5);
	} else {
		ip("10.99.0.2", &h.src);
		ip("10.99.0.3", &h.dst);
		set_path(&r->prim, "10.99.0.2", "10.99.0.3", v);
		if (v == 2)
			set_path(&r->alt, "10.99.1.2", "10.99.1.3", v + 5);
	}
	r->sap_supported = v == 1;
	fill(r->private_data, sizeof(r->private_data), (uint8_t)(0x30 + v));
	if (ip_cm_sid(r->service_id) &&
	    roce_cma_hdr_encode(&h, r->private_data, sizeof(r->private_data)) < 0)
		return -1;
	return emit(&m);
}

static int gen_rep(unsigned v)
{
	struct roce_cm_msg m;
	struct roce_cm_rep *r = &m.u.rep;

	msg_init(&m, ROCE_CM_ATTR_REP);
	m.tid = 0x00000002c0de0000ull + v;
	r->local_comm_id = 0x11223344u * (v + 1);
	r->remote_comm_id = 0xa1b2c300u + v;
	r->local_qkey = v ? 0x80010000 : 0;
	r->local_qpn = 0x00abcd + v;
	r->local_eecn = v ? 0x0f0e0d : 0;
	r->starting_psn = 0x5d64 + v * 0x800000;
	r->vendor_id = v ? 0x0002c9 : 0x123456;
	r->responder_resources = (uint8_t)(v ? 128 : 1);
	r->initiator_depth = (uint8_t)(v ? 0 : 16);
	r->target_ack_delay = (uint8_t)(15 + v * 16);
	r->failover_accepted = (uint8_t)(v + 1);
	r->e2e_flow_ctrl = v == 0;
	r->rnr_retry_count = (uint8_t)(v ? 7 : 5);
	r->srq = v != 0;
	r->local_ca_guid = 0x505400fffe990003ull;
	fill(r->private_data, sizeof(r->private_data), (uint8_t)(0x90 + v));
	return emit(&m);
}

static int gen_rej(unsigned v)
{
	struct roce_cm_msg m;
	struct roce_cm_rej *r = &m.u.rej;
	static const uint16_t reasons[] = {ROCE_CM_REJ_INVALID_SERVICE_ID, ROCE_CM_REJ_STALE_CONN,
					   ROCE_CM_REJ_CONSUMER_DEFINED,
					   ROCE_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED};

	msg_init(&m, ROCE_CM_ATTR_REJ);
	m.tid = 0x00000002c8f697d7ull + v;
	r->local_comm_id = v ? 0x5566u + v : 0;
	r->remote_comm_id = 0xd797f6c8u - v;
	r->msg_rejected = (uint8_t)(v % 3);
	r->ari_len = (uint8_t)(v * 24);
	r->reason = reasons[v % 4];
	fill(r->ari, r->ari_len, 0x40);
	fill(r->private_data, sizeof(r->private_data), (uint8_t)(0x10 * v));
	return emit(&m);
}

static int gen_simple(void)
{
	struct roce_cm_msg m;
	struct roce_cma_hdr h = {.src_port = 0xd303};

	msg_init(&m, ROCE_CM_ATTR_RTU);
	m.tid = 0x00000002cee6cf66ull;
	m.u.rtu.local_comm_id = 0xd697f6c8;
	m.u.rtu.remote_comm_id = 0x66cfe6ce;
	fill(m.u.rtu.private_data, ROCE_CM_RTU_PRIV_LEN, 1);
	if (emit(&m))
		return -1;
	memset(&m.u, 0, sizeof(m.u));
	m.attr_id = ROCE_CM_ATTR_DREQ;
	m.u.dreq.local_comm_id = 0x66cfe6ce;
	m.u.dreq.remote_comm_id = 0xd697f6c8;
	m.u.dreq.remote_qpn = 0xfedcba;
	fill(m.u.dreq.private_data, ROCE_CM_DREQ_PRIV_LEN, 2);
	if (emit(&m))
		return -1;
	memset(&m.u, 0, sizeof(m.u));
	m.attr_id = ROCE_CM_ATTR_DREP;
	m.u.drep.local_comm_id = 0xd697f6c8;
	m.u.drep.remote_comm_id = 0x66cfe6ce;
	fill(m.u.drep.private_data, ROCE_CM_DREP_PRIV_LEN, 3);
	if (emit(&m))
		return -1;
	for (unsigned v = 0; v < 3; v++) {
		memset(&m.u, 0, sizeof(m.u));
		m.attr_id = ROCE_CM_ATTR_MRA;
		m.u.mra.local_comm_id = 0x01020304 + v;
		m.u.mra.remote_comm_id = 0xa0b0c0d0 - v;
		m.u.mra.msg_mraed = (uint8_t)v;
		m.u.mra.service_timeout = (uint8_t)(31 - v * 5);
		fill(m.u.mra.private_data, ROCE_CM_MRA_PRIV_LEN, (uint8_t)(4 + v));
		if (emit(&m))
			return -1;
	}
	for (unsigned v = 0; v < 2; v++) {
		memset(&m.u, 0, sizeof(m.u));
		m.attr_id = ROCE_CM_ATTR_SIDR_REQ;
		m.u.sidr_req.request_id = 0xd497f6c8 + v;
		m.u.sidr_req.pkey = 0xffff;
		m.u.sidr_req.service_id =
			roce_cma_service_id(ROCE_RDMA_PS_UDP, (uint16_t)(7174 + v));
		ip(v ? "fd99::3" : "10.99.0.3", &h.src);
		ip(v ? "fd99::2" : "10.99.0.2", &h.dst);
		fill(m.u.sidr_req.private_data, ROCE_CM_SIDR_REQ_PRIV_LEN, 5);
		if (roce_cma_hdr_encode(&h, m.u.sidr_req.private_data, ROCE_CMA_HDR_LEN) < 0 ||
		    emit(&m))
			return -1;
	}
	for (unsigned v = 0; v < 2; v++) {
		memset(&m.u, 0, sizeof(m.u));
		m.attr_id = ROCE_CM_ATTR_SIDR_REP;
		m.u.sidr_rep.request_id = 0xd497f6c8;
		m.u.sidr_rep.status = (uint8_t)(v ? ROCE_CM_SIDR_REDIRECT : ROCE_CM_SIDR_SUCCESS);
		m.u.sidr_rep.info_len = (uint8_t)(v ? ROCE_CM_SIDR_REP_INFO_LEN : 0);
		m.u.sidr_rep.qpn = 0x00001b + v * 0x100000;
		m.u.sidr_rep.service_id = roce_cma_service_id(ROCE_RDMA_PS_UDP, 7174);
		m.u.sidr_rep.qkey = 0x01234567;
		if (v)
			fill(m.u.sidr_rep.class_port_info, ROCE_CM_SIDR_REP_INFO_LEN, 6);
		fill(m.u.sidr_rep.private_data, ROCE_CM_SIDR_REP_PRIV_LEN, 7);
		if (emit(&m))
			return -1;
	}
	return 0;
}

static int generate(const char *path)
{
	const uint32_t ghdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	int rc = 0;

	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		return 2;
	}
	gen_pool = rte_pktmbuf_pool_create("cmgen", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!gen_pool)
		return 2;
	memset(&gen_ifc, 0, sizeof(gen_ifc));
	gen_ifc.mac = (struct rte_ether_addr){{0x52, 0x54, 0x00, 0x99, 0, 2}};
	gen_ifc.mtu = 1500;
	ip("10.99.0.2", &gen_ifc.ip4);
	gen_ifc.ip4_prefix = 24;
	ip("fd99::2", &gen_ifc.ip6);
	gen_ifc.ip6_prefix = 64;
	fwrite(ghdr, 4, 6, out);
	for (unsigned v = 0; v < 5 && rc == 0; v++)
		rc = gen_req(v);
	for (unsigned v = 0; v < 2 && rc == 0; v++)
		rc = gen_rep(v);
	for (unsigned v = 0; v < 4 && rc == 0; v++)
		rc = gen_rej(v);
	if (rc == 0)
		rc = gen_simple();
	fclose(out);
	if (rte_mempool_in_use_count(gen_pool) != 0)
		rc = -1;
	rte_mempool_free(gen_pool);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	static char a0[] = "cm_decode", a1[] = "--no-huge", a2[] = "-m", a3[] = "64",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	struct rte_mempool *pool;
	int rc;

	if (argc == 3 && strcmp(argv[1], "-w") == 0) {
		if (rte_eal_init(10, eal) < 0)
			return 2;
		rc = generate(argv[2]);
		rte_eal_cleanup();
		return rc;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.pcap | -w OUT.pcap\n", argv[0]);
		return 2;
	}
	if (rte_eal_init(10, eal) < 0)
		return 2;
	pool = rte_pktmbuf_pool_create("cmdec", 255, 0, 0, 16384, 0);
	if (!pool)
		return 2;
	rc = decode_file(pool, argv[1]);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
