/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_wire.c - CM MAD codec: roce_cm_decode() turns the 256 bytes after a QP 1 DETH into
 * a struct roce_cm_msg, and roce_cm_encode() turns one back into bytes. Also here: the MAD
 * status and error-response rules for MADs the CM does not serve, the RDMA IP CM header
 * of private data and its service IDs, and GIDs of IP addresses.
 *
 * Specs: IBA Vol 1 13.4.3-13.4.9 (MAD header, methods, status, responses), 12.6 Tables
 * 106-113 (REQ, MRA, REJ, REP, RTU, DREQ, DREP), 12.11 Tables 119-120 (SIDR), Annex A11
 * (RDMA IP CM service), Annex A17 (RoCEv2 GIDs).
 *
 * Operation: every CM message fits in one 256-byte MAD, and every field sits at a fixed
 * offset. The decoder checks the length once against ROCE_MAD_LEN. After that it reads only
 * through the packed wire structs, whose sizes are pinned by static asserts, so no read can
 * pass the 256th byte. Each message has one decode and one encode function, field by field
 * through the accessors of roce_cm_wire.h.
 */
#include <errno.h>
#include <string.h>

#include "roce_cm_wire.h"

#define ATTR_NAME_(n, v, s)                                                                        \
	case v:                                                                                    \
		return s;

const char *roce_cm_attr_name(uint16_t attr_id)
{
	switch (attr_id) {
		ROCE_CM_ATTR_LIST(ATTR_NAME_)
	}
	return "UNKNOWN";
}

const char *roce_cm_rej_reason_name(uint16_t reason)
{
	switch (reason) {
		ROCE_CM_REJ_REASON_LIST(ATTR_NAME_)
	}
	return "unknown";
}

const char *roce_cm_sidr_status_name(uint8_t status)
{
	switch (status) {
		ROCE_CM_SIDR_STATUS_LIST(ATTR_NAME_)
	}
	return "unknown";
}

#undef ATTR_NAME_

/* The attributes this codec reads and writes (all with method Send). */
static bool attr_handled(uint16_t attr_id)
{
	switch (attr_id) {
	case ROCE_CM_ATTR_REQ:
	case ROCE_CM_ATTR_MRA:
	case ROCE_CM_ATTR_REJ:
	case ROCE_CM_ATTR_REP:
	case ROCE_CM_ATTR_RTU:
	case ROCE_CM_ATTR_DREQ:
	case ROCE_CM_ATTR_DREP:
	case ROCE_CM_ATTR_SIDR_REQ:
	case ROCE_CM_ATTR_SIDR_REP:
		return true;
	default:
		return false;
	}
}

/* true when @v fits in @bits bits */
static bool fits(uint64_t v, unsigned bits)
{
	return (v >> bits) == 0;
}

/* ---------- paths (REQ) ---------- */

static void path_decode(const struct roce_cm_path_wire *w, struct roce_cm_path *p)
{
	p->local_lid = rte_be_to_cpu_16(w->local_lid);
	p->remote_lid = rte_be_to_cpu_16(w->remote_lid);
	memcpy(p->local_gid, w->local_gid, ROCE_GID_LEN);
	memcpy(p->remote_gid, w->remote_gid, ROCE_GID_LEN);
	p->flow_label = roce_cm_path_flow_label(w);
	p->packet_rate = (uint8_t)roce_cm_path_packet_rate(w);
	p->traffic_class = w->traffic_class;
	p->hop_limit = w->hop_limit;
	p->sl = roce_cm_path_sl(w);
	p->subnet_local = roce_cm_path_subnet_local(w);
	p->local_ack_timeout = roce_cm_path_local_ack_timeout(w);
}

static bool path_fits(const struct roce_cm_path *p)
{
	return fits(p->flow_label, 20) && fits(p->packet_rate, 6) && fits(p->sl, 4) &&
	       fits(p->local_ack_timeout, 5);
}

/* @w is zeroed by the caller */
static void path_encode(const struct roce_cm_path *p, struct roce_cm_path_wire *w)
{
	w->local_lid = rte_cpu_to_be_16(p->local_lid);
	w->remote_lid = rte_cpu_to_be_16(p->remote_lid);
	memcpy(w->local_gid, p->local_gid, ROCE_GID_LEN);
	memcpy(w->remote_gid, p->remote_gid, ROCE_GID_LEN);
	roce_cm_path_set_flow_label(w, p->flow_label);
	roce_cm_path_set_packet_rate(w, p->packet_rate);
	w->traffic_class = p->traffic_class;
	w->hop_limit = p->hop_limit;
	roce_cm_path_set_sl(w, p->sl);
	roce_cm_path_set_subnet_local(w, p->subnet_local);
	roce_cm_path_set_local_ack_timeout(w, p->local_ack_timeout);
}

/* ---------- REQ (Table 106) ---------- */

static int req_decode(const struct roce_cm_req_wire *w, struct roce_cm_req *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->vendor_id = roce_cm_req_vendor_id(w);
	r->service_id = rte_be_to_cpu_64(w->service_id);
	r->local_ca_guid = rte_be_to_cpu_64(w->local_ca_guid);
	r->local_qkey = rte_be_to_cpu_32(w->local_qkey);
	r->local_qpn = roce_cm_req_local_qpn(w);
	r->responder_resources = (uint8_t)roce_cm_req_responder_resources(w);
	r->local_eecn = roce_cm_req_local_eecn(w);
	r->initiator_depth = (uint8_t)roce_cm_req_initiator_depth(w);
	r->remote_eecn = roce_cm_req_remote_eecn(w);
	r->remote_cm_resp_timeout = (uint8_t)roce_cm_req_remote_cm_resp_timeout(w);
	r->transport_type = (uint8_t)roce_cm_req_transport_type(w);
	r->e2e_flow_ctrl = roce_cm_req_e2e_flow_ctrl(w);
	r->starting_psn = roce_cm_req_starting_psn(w);
	r->local_cm_resp_timeout = (uint8_t)roce_cm_req_local_cm_resp_timeout(w);
	r->retry_count = (uint8_t)roce_cm_req_retry_count(w);
	r->pkey = rte_be_to_cpu_16(w->pkey);
	r->path_mtu = roce_cm_req_path_mtu(w);
	r->rdc_exists = roce_cm_req_rdc_exists(w);
	r->rnr_retry_count = roce_cm_req_rnr_retry_count(w);
	r->max_cm_retries = roce_cm_req_max_cm_retries(w);
	r->srq = roce_cm_req_srq(w);
	r->ext_transport_type = roce_cm_req_ext_transport_type(w);
	path_decode(&w->prim, &r->prim);
	path_decode(&w->alt, &r->alt);
	r->sap_supported = roce_cm_path_sap(&w->alt);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int req_encode(const struct roce_cm_req *r, struct roce_cm_req_wire *w)
{
	if (!fits(r->vendor_id, 24) || !fits(r->local_qpn, 24) || !fits(r->local_eecn, 24) ||
	    !fits(r->remote_eecn, 24) || !fits(r->remote_cm_resp_timeout, 5) ||
	    !fits(r->transport_type, 2) || !fits(r->starting_psn, 24) ||
	    !fits(r->local_cm_resp_timeout, 5) || !fits(r->retry_count, 3) ||
	    !fits(r->path_mtu, 4) || !fits(r->rnr_retry_count, 3) || !fits(r->max_cm_retries, 4) ||
	    !fits(r->ext_transport_type, 3) || !path_fits(&r->prim) || !path_fits(&r->alt))
		return -EINVAL;
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	roce_cm_req_set_vendor_id(w, r->vendor_id);
	w->service_id = rte_cpu_to_be_64(r->service_id);
	w->local_ca_guid = rte_cpu_to_be_64(r->local_ca_guid);
	w->local_qkey = rte_cpu_to_be_32(r->local_qkey);
	roce_cm_req_set_local_qpn(w, r->local_qpn);
	roce_cm_req_set_responder_resources(w, r->responder_resources);
	roce_cm_req_set_local_eecn(w, r->local_eecn);
	roce_cm_req_set_initiator_depth(w, r->initiator_depth);
	roce_cm_req_set_remote_eecn(w, r->remote_eecn);
	roce_cm_req_set_remote_cm_resp_timeout(w, r->remote_cm_resp_timeout);
	roce_cm_req_set_transport_type(w, r->transport_type);
	roce_cm_req_set_e2e_flow_ctrl(w, r->e2e_flow_ctrl);
	roce_cm_req_set_starting_psn(w, r->starting_psn);
	roce_cm_req_set_local_cm_resp_timeout(w, r->local_cm_resp_timeout);
	roce_cm_req_set_retry_count(w, r->retry_count);
	w->pkey = rte_cpu_to_be_16(r->pkey);
	roce_cm_req_set_path_mtu(w, r->path_mtu);
	roce_cm_req_set_rdc_exists(w, r->rdc_exists);
	roce_cm_req_set_rnr_retry_count(w, r->rnr_retry_count);
	roce_cm_req_set_max_cm_retries(w, r->max_cm_retries);
	roce_cm_req_set_srq(w, r->srq);
	roce_cm_req_set_ext_transport_type(w, r->ext_transport_type);
	path_encode(&r->prim, &w->prim);
	path_encode(&r->alt, &w->alt);
	roce_cm_path_set_sap(&w->alt, r->sap_supported);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- MRA (Table 107) ---------- */

static int mra_decode(const struct roce_cm_mra_wire *w, struct roce_cm_mra *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	r->msg_mraed = roce_cm_mra_msg_mraed(w);
	r->service_timeout = roce_cm_mra_service_timeout(w);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return r->msg_mraed > ROCE_CM_MRA_MSG_LAP ? -EBADMSG : 0;
}

static int mra_encode(const struct roce_cm_mra *r, struct roce_cm_mra_wire *w)
{
	if (r->msg_mraed > ROCE_CM_MRA_MSG_LAP || !fits(r->service_timeout, 5))
		return -EINVAL;
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	roce_cm_mra_set_msg_mraed(w, r->msg_mraed);
	roce_cm_mra_set_service_timeout(w, r->service_timeout);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- REJ (Table 108) ---------- */

static int rej_decode(const struct roce_cm_rej_wire *w, struct roce_cm_rej *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	r->msg_rejected = roce_cm_rej_msg_rejected(w);
	r->ari_len = roce_cm_rej_ari_len(w);
	r->reason = rte_be_to_cpu_16(w->reason);
	memcpy(r->ari, w->ari, sizeof(r->ari));
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	if (r->msg_rejected > ROCE_CM_REJ_MSG_OTHER || r->ari_len > ROCE_CM_REJ_ARI_LEN)
		return -EBADMSG;
	return 0;
}

static int rej_encode(const struct roce_cm_rej *r, struct roce_cm_rej_wire *w)
{
	if (r->msg_rejected > ROCE_CM_REJ_MSG_OTHER || r->ari_len > ROCE_CM_REJ_ARI_LEN)
		return -EINVAL;
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	roce_cm_rej_set_msg_rejected(w, r->msg_rejected);
	roce_cm_rej_set_ari_len(w, r->ari_len);
	w->reason = rte_cpu_to_be_16(r->reason);
	memcpy(w->ari, r->ari, sizeof(w->ari));
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- REP (Table 110) ---------- */

static int rep_decode(const struct roce_cm_rep_wire *w, struct roce_cm_rep *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	r->local_qkey = rte_be_to_cpu_32(w->local_qkey);
	r->local_qpn = roce_cm_rep_local_qpn(w);
	r->local_eecn = roce_cm_rep_local_eecn(w);
	r->starting_psn = roce_cm_rep_starting_psn(w);
	r->vendor_id = roce_cm_rep_vendor_id_hi(w) << 16 | roce_cm_rep_vendor_id_mid(w) << 8 |
		       roce_cm_rep_vendor_id_lo(w);
	r->responder_resources = w->responder_resources;
	r->initiator_depth = w->initiator_depth;
	r->target_ack_delay = roce_cm_rep_target_ack_delay(w);
	r->failover_accepted = roce_cm_rep_failover_accepted(w);
	r->e2e_flow_ctrl = roce_cm_rep_e2e_flow_ctrl(w);
	r->rnr_retry_count = roce_cm_rep_rnr_retry_count(w);
	r->srq = roce_cm_rep_srq(w);
	r->local_ca_guid = rte_be_to_cpu_64(w->local_ca_guid);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int rep_encode(const struct roce_cm_rep *r, struct roce_cm_rep_wire *w)
{
	if (!fits(r->local_qpn, 24) || !fits(r->local_eecn, 24) || !fits(r->starting_psn, 24) ||
	    !fits(r->vendor_id, 24) || !fits(r->target_ack_delay, 5) ||
	    !fits(r->failover_accepted, 2) || !fits(r->rnr_retry_count, 3))
		return -EINVAL;
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	w->local_qkey = rte_cpu_to_be_32(r->local_qkey);
	roce_cm_rep_set_local_qpn(w, r->local_qpn);
	roce_cm_rep_set_vendor_id_hi(w, r->vendor_id >> 16);
	roce_cm_rep_set_local_eecn(w, r->local_eecn);
	roce_cm_rep_set_vendor_id_mid(w, r->vendor_id >> 8);
	roce_cm_rep_set_starting_psn(w, r->starting_psn);
	roce_cm_rep_set_vendor_id_lo(w, r->vendor_id);
	w->responder_resources = r->responder_resources;
	w->initiator_depth = r->initiator_depth;
	roce_cm_rep_set_target_ack_delay(w, r->target_ack_delay);
	roce_cm_rep_set_failover_accepted(w, r->failover_accepted);
	roce_cm_rep_set_e2e_flow_ctrl(w, r->e2e_flow_ctrl);
	roce_cm_rep_set_rnr_retry_count(w, r->rnr_retry_count);
	roce_cm_rep_set_srq(w, r->srq);
	w->local_ca_guid = rte_cpu_to_be_64(r->local_ca_guid);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- RTU, DREQ, DREP (Tables 111-113) ---------- */

static int rtu_decode(const struct roce_cm_rtu_wire *w, struct roce_cm_rtu *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int rtu_encode(const struct roce_cm_rtu *r, struct roce_cm_rtu_wire *w)
{
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

static int dreq_decode(const struct roce_cm_dreq_wire *w, struct roce_cm_dreq *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	r->remote_qpn = roce_cm_dreq_remote_qpn(w);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int dreq_encode(const struct roce_cm_dreq *r, struct roce_cm_dreq_wire *w)
{
	if (!fits(r->remote_qpn, 24))
		return -EINVAL;
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	roce_cm_dreq_set_remote_qpn(w, r->remote_qpn);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

static int drep_decode(const struct roce_cm_drep_wire *w, struct roce_cm_drep *r)
{
	r->local_comm_id = rte_be_to_cpu_32(w->local_comm_id);
	r->remote_comm_id = rte_be_to_cpu_32(w->remote_comm_id);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int drep_encode(const struct roce_cm_drep *r, struct roce_cm_drep_wire *w)
{
	w->local_comm_id = rte_cpu_to_be_32(r->local_comm_id);
	w->remote_comm_id = rte_cpu_to_be_32(r->remote_comm_id);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- SIDR_REQ, SIDR_REP (Tables 119-120) ---------- */

static int sidr_req_decode(const struct roce_cm_sidr_req_wire *w, struct roce_cm_sidr_req *r)
{
	r->request_id = rte_be_to_cpu_32(w->request_id);
	r->pkey = rte_be_to_cpu_16(w->pkey);
	r->service_id = rte_be_to_cpu_64(w->service_id);
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return 0;
}

static int sidr_req_encode(const struct roce_cm_sidr_req *r, struct roce_cm_sidr_req_wire *w)
{
	w->request_id = rte_cpu_to_be_32(r->request_id);
	w->pkey = rte_cpu_to_be_16(r->pkey);
	w->service_id = rte_cpu_to_be_64(r->service_id);
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

static int sidr_rep_decode(const struct roce_cm_sidr_rep_wire *w, struct roce_cm_sidr_rep *r)
{
	r->request_id = rte_be_to_cpu_32(w->request_id);
	r->status = w->status;
	r->info_len = w->info_len;
	r->qpn = roce_cm_sidr_rep_qpn(w);
	r->service_id = rte_be_to_cpu_64(w->service_id);
	r->qkey = rte_be_to_cpu_32(w->qkey);
	memcpy(r->class_port_info, w->info, sizeof(r->class_port_info));
	memcpy(r->private_data, w->private_data, sizeof(r->private_data));
	return r->info_len > ROCE_CM_SIDR_REP_INFO_LEN ? -EBADMSG : 0;
}

static int sidr_rep_encode(const struct roce_cm_sidr_rep *r, struct roce_cm_sidr_rep_wire *w)
{
	if (!fits(r->qpn, 24) || r->info_len > ROCE_CM_SIDR_REP_INFO_LEN)
		return -EINVAL;
	w->request_id = rte_cpu_to_be_32(r->request_id);
	w->status = r->status;
	w->info_len = r->info_len;
	roce_cm_sidr_rep_set_qpn(w, r->qpn);
	w->service_id = rte_cpu_to_be_64(r->service_id);
	w->qkey = rte_cpu_to_be_32(r->qkey);
	memcpy(w->info, r->class_port_info, sizeof(w->info));
	memcpy(w->private_data, r->private_data, sizeof(w->private_data));
	return 0;
}

/* ---------- the MAD ---------- */

int roce_cm_decode(const void *mad, size_t len, struct roce_cm_msg *out)
{
	const struct roce_cm_mad *m = mad;
	const struct roce_mad_hdr *h;

	if (!mad || !out)
		return -EINVAL;
	/* every MAD on QP 1 is 256 bytes (IBA 13.4): a shorter one is not a CM MAD */
	if (len < ROCE_MAD_LEN)
		return -EPROTO;
	h = &m->hdr;
	if (roce_mad_base_version(h) != ROCE_MAD_BASE_VERSION ||
	    roce_mad_mgmt_class(h) != ROCE_MGMT_CLASS_CM ||
	    roce_mad_class_version(h) != ROCE_CM_CLASS_VERSION)
		return -EPROTO;
	/* the CM sends all its messages with Send; Get/Set serve ClassPortInfo only */
	if (roce_mad_method(h) != ROCE_MAD_METHOD_SEND || !attr_handled(roce_mad_attr_id(h)))
		return -EOPNOTSUPP;
	memset(out, 0, sizeof(*out));
	out->method = roce_mad_method(h);
	out->status = roce_mad_status(h);
	out->tid = roce_mad_tid(h);
	out->attr_id = roce_mad_attr_id(h);
	out->attr_mod = roce_mad_attr_mod(h);
	switch (out->attr_id) {
	case ROCE_CM_ATTR_REQ:
		return req_decode(&m->req, &out->u.req);
	case ROCE_CM_ATTR_MRA:
		return mra_decode(&m->mra, &out->u.mra);
	case ROCE_CM_ATTR_REJ:
		return rej_decode(&m->rej, &out->u.rej);
	case ROCE_CM_ATTR_REP:
		return rep_decode(&m->rep, &out->u.rep);
	case ROCE_CM_ATTR_RTU:
		return rtu_decode(&m->rtu, &out->u.rtu);
	case ROCE_CM_ATTR_DREQ:
		return dreq_decode(&m->dreq, &out->u.dreq);
	case ROCE_CM_ATTR_DREP:
		return drep_decode(&m->drep, &out->u.drep);
	case ROCE_CM_ATTR_SIDR_REQ:
		return sidr_req_decode(&m->sidr_req, &out->u.sidr_req);
	case ROCE_CM_ATTR_SIDR_REP:
		return sidr_rep_decode(&m->sidr_rep, &out->u.sidr_rep);
	}
	return -EOPNOTSUPP; /* not reached: attr_handled() said yes */
}

int roce_cm_encode(const struct roce_cm_msg *msg, void *mad, size_t len)
{
	struct roce_cm_mad m;
	int rc = -EINVAL;

	if (!msg || !mad || len < ROCE_MAD_LEN)
		return -EINVAL;
	/* build in a local copy, so that a refused message leaves @mad untouched */
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = ROCE_MAD_BASE_VERSION;
	m.hdr.mgmt_class = ROCE_MGMT_CLASS_CM;
	m.hdr.class_version = ROCE_CM_CLASS_VERSION;
	roce_mad_set_method(&m.hdr, msg->method);
	roce_mad_set_status(&m.hdr, msg->status);
	roce_mad_set_tid(&m.hdr, msg->tid);
	roce_mad_set_attr_id(&m.hdr, msg->attr_id);
	roce_mad_set_attr_mod(&m.hdr, msg->attr_mod);
	if (msg->method != ROCE_MAD_METHOD_SEND)
		return -EINVAL;
	switch (msg->attr_id) {
	case ROCE_CM_ATTR_REQ:
		rc = req_encode(&msg->u.req, &m.req);
		break;
	case ROCE_CM_ATTR_MRA:
		rc = mra_encode(&msg->u.mra, &m.mra);
		break;
	case ROCE_CM_ATTR_REJ:
		rc = rej_encode(&msg->u.rej, &m.rej);
		break;
	case ROCE_CM_ATTR_REP:
		rc = rep_encode(&msg->u.rep, &m.rep);
		break;
	case ROCE_CM_ATTR_RTU:
		rc = rtu_encode(&msg->u.rtu, &m.rtu);
		break;
	case ROCE_CM_ATTR_DREQ:
		rc = dreq_encode(&msg->u.dreq, &m.dreq);
		break;
	case ROCE_CM_ATTR_DREP:
		rc = drep_encode(&msg->u.drep, &m.drep);
		break;
	case ROCE_CM_ATTR_SIDR_REQ:
		rc = sidr_req_encode(&msg->u.sidr_req, &m.sidr_req);
		break;
	case ROCE_CM_ATTR_SIDR_REP:
		rc = sidr_rep_encode(&msg->u.sidr_rep, &m.sidr_rep);
		break;
	}
	if (rc != 0)
		return -EINVAL;
	memcpy(mad, &m, sizeof(m));
	return ROCE_MAD_LEN;
}

/* ---------- MADs the CM does not serve (IBA 13.4.7, 13.4.9) ---------- */

uint16_t roce_cm_mad_status(const void *mad, size_t len)
{
	const struct roce_mad_hdr *h = mad;
	uint8_t method;

	if (!mad || len < ROCE_MAD_HDR_LEN || roce_mad_base_version(h) != ROCE_MAD_BASE_VERSION)
		return 0;
	if (roce_mad_mgmt_class(h) != ROCE_MGMT_CLASS_CM)
		return ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP; /* no agent of this class here */
	if (roce_mad_class_version(h) != ROCE_CM_CLASS_VERSION)
		return ROCE_MAD_STATUS_BAD_VERSION;
	method = roce_mad_method(h);
	switch (method) {
	case ROCE_MAD_METHOD_SEND:
		return attr_handled(roce_mad_attr_id(h)) ? 0 : ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP;
	case ROCE_MAD_METHOD_GET:
	case ROCE_MAD_METHOD_SET:
		/* IBA lets a CM serve Get/Set(ClassPortInfo); droce's does not (yet), like Linux */
		return ROCE_MAD_STATUS_METHOD_ATTR_UNSUPP;
	default:
		return ROCE_MAD_STATUS_METHOD_UNSUPP;
	}
}

int roce_mad_error_resp(const void *req, size_t len, uint16_t status, void *resp, size_t resp_len)
{
	const struct roce_mad_hdr *h = req;
	struct roce_mad_hdr *r = resp;
	uint8_t method;

	if (!req || !resp || status == 0 || resp_len < ROCE_MAD_LEN)
		return -EINVAL;
	if (len < ROCE_MAD_HDR_LEN || roce_mad_base_version(h) != ROCE_MAD_BASE_VERSION)
		return 0;
	method = roce_mad_method(h);
	/* only requests that wait for an answer get one; Send, Trap, Report and responses never */
	if (method != ROCE_MAD_METHOD_GET && method != ROCE_MAD_METHOD_SET)
		return 0;
	memset(resp, 0, ROCE_MAD_LEN);
	memcpy(resp, req, len < ROCE_MAD_LEN ? len : ROCE_MAD_LEN);
	roce_mad_set_method(r, ROCE_MAD_METHOD_GET_RESP);
	roce_mad_set_status(r, status);
	return ROCE_MAD_LEN;
}

/* ---------- RDMA IP CM (Annex A11) ---------- */

int roce_cma_hdr_decode(const void *priv, size_t len, struct roce_cma_hdr *out)
{
	const struct roce_cma_hdr_wire *w = priv;
	uint8_t ipv;

	if (!priv || !out || len < ROCE_CMA_HDR_LEN)
		return -EINVAL;
	if (w->cma_version != ROCE_CMA_VERSION)
		return -EPROTO;
	ipv = w->ip_version >> 4;
	if (ipv != 4 && ipv != 6)
		return -EAFNOSUPPORT;
	memset(out, 0, sizeof(*out));
	out->cma_version = w->cma_version;
	out->src_port = rte_be_to_cpu_16(w->port);
	out->src.family = ipv;
	out->dst.family = ipv;
	if (ipv == 4) {
		memcpy(&out->src.v4, w->src_addr + 12, 4);
		memcpy(&out->dst.v4, w->dst_addr + 12, 4);
	} else {
		memcpy(out->src.v6, w->src_addr, 16);
		memcpy(out->dst.v6, w->dst_addr, 16);
	}
	return 0;
}

int roce_cma_hdr_encode(const struct roce_cma_hdr *h, void *priv, size_t len)
{
	struct roce_cma_hdr_wire *w = priv;

	if (!h || !priv || len < ROCE_CMA_HDR_LEN || h->src.family != h->dst.family ||
	    (h->src.family != 4 && h->src.family != 6))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->cma_version = ROCE_CMA_VERSION;
	w->ip_version = (uint8_t)(h->src.family << 4);
	w->port = rte_cpu_to_be_16(h->src_port);
	if (h->src.family == 4) {
		memcpy(w->src_addr + 12, &h->src.v4, 4);
		memcpy(w->dst_addr + 12, &h->dst.v4, 4);
	} else {
		memcpy(w->src_addr, h->src.v6, 16);
		memcpy(w->dst_addr, h->dst.v6, 16);
	}
	return ROCE_CMA_HDR_LEN;
}

int roce_cma_service_id_split(uint64_t sid, enum roce_rdma_ps *ps, uint16_t *port)
{
	uint64_t space = sid >> 16; /* bits 63:32 must be 0: then space is 16 bits */

	switch (space) {
	case ROCE_RDMA_PS_IPOIB:
	case ROCE_RDMA_PS_TCP:
	case ROCE_RDMA_PS_UDP:
	case ROCE_RDMA_PS_IB:
		break;
	default:
		return -EINVAL;
	}
	if (ps)
		*ps = (enum roce_rdma_ps)space;
	if (port)
		*port = (uint16_t)sid;
	return 0;
}

/* ---------- GIDs (Annex A17) ---------- */

static const uint8_t v4mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool roce_gid_is_v4mapped(const uint8_t gid[ROCE_GID_LEN])
{
	return memcmp(gid, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0;
}

int roce_gid_from_ip(const struct stk_ipaddr *ip, uint8_t gid[ROCE_GID_LEN])
{
	if (!ip || !gid)
		return -EINVAL;
	if (ip->family == 4) {
		memcpy(gid, v4mapped_prefix, sizeof(v4mapped_prefix));
		memcpy(gid + 12, &ip->v4, 4);
		return 0;
	}
	if (ip->family == 6) {
		memcpy(gid, ip->v6, ROCE_GID_LEN);
		return 0;
	}
	return -EINVAL;
}

void roce_gid_to_ip(const uint8_t gid[ROCE_GID_LEN], struct stk_ipaddr *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (roce_gid_is_v4mapped(gid)) {
		ip->family = 4;
		memcpy(&ip->v4, gid + 12, 4);
	} else {
		ip->family = 6;
		memcpy(ip->v6, gid, ROCE_GID_LEN);
	}
}
