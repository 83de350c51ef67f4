/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_sidr.c - Service ID Resolution (IBA 12.11): how a UD consumer finds the QPN and
 * Q_Key of a UD service, as rdma_cm does for the UDP port space (udaddy). The active side
 * sends SIDR_REQ with the IP CM header in its private data and resends it on timeout; the
 * passive side reports it to a listener on the UDP port space and answers with SIDR_REP:
 * the QP's number and Q_Key on accept, "rejected" on reject, "service ID not supported"
 * without a listener, "no QP" when the listener's backlog is full. A repeated SIDR_REQ gets
 * the SIDR_REP already sent. SIDR keeps no connection: both ids end IDLE.
 */
#include <errno.h>
#include <string.h>

#include "roce_cm_int.h"

int roce_cmi_sidr_connect(struct cm_conn *c, struct roce_qp *qp,
			  const struct roce_cm_conn_param *param, const struct roce_cma_hdr *hp)
{
	struct roce_cma_hdr h = *hp;
	struct roce_cm_msg m;
	int rc;

	rc = roce_cmi_qp_ud_up(c, qp);
	if (rc)
		return -EINVAL;
	roce_cmi_msg_init(&m, ROCE_CM_ATTR_SIDR_REQ, c->tid);
	m.u.sidr_req.request_id = c->local_comm_id;
	m.u.sidr_req.pkey = 0xffff;
	m.u.sidr_req.service_id = c->service_id;
	roce_cma_hdr_encode(&h, m.u.sidr_req.private_data, sizeof(m.u.sidr_req.private_data));
	if (param && param->private_data_len)
		memcpy(m.u.sidr_req.private_data + ROCE_CMA_HDR_LEN, param->private_data,
		       param->private_data_len);
	roce_cmi_set_state(c, CM_SIDR_REQ_SENT);
	roce_cmi_send_msg(c, &m, true);
	roce_cmi_arm(c, roce_cmi_req_timeout(c), c->p.max_cm_retries);
	return 0;
}

int roce_cmi_sidr_accept(struct cm_conn *c, struct roce_qp *qp, const struct roce_cm_conn_param *p)
{
	struct roce_cm_msg m;
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (!qp || (p && p->private_data_len > sizeof(m.u.sidr_rep.private_data)))
		return -EINVAL;
	roce_cmi_fill_defaults(&c->p, p);
	if (roce_cmi_qp_ud_up(c, qp) != 0 || roce_query_qp(qp, &a, &ia) != 0)
		return -EIO;
	roce_cmi_msg_init(&m, ROCE_CM_ATTR_SIDR_REP, c->tid);
	m.u.sidr_rep.request_id = c->remote_comm_id;
	m.u.sidr_rep.status = ROCE_CM_SIDR_SUCCESS;
	m.u.sidr_rep.qpn = roce_qp_num(qp);
	m.u.sidr_rep.service_id = c->service_id;
	m.u.sidr_rep.qkey = p && p->qkey ? p->qkey : a.qkey;
	if (p && p->private_data_len)
		memcpy(m.u.sidr_rep.private_data, p->private_data, p->private_data_len);
	c->id.qp = qp;
	if (c->listener)
		c->listener->pending--;
	c->listener = NULL;
	roce_cmi_send_msg(c, &m, true); /* kept: a repeated SIDR_REQ gets it again */
	roce_cmi_set_state(c, CM_IDLE);
	return 0;
}

void roce_cmi_sidr_reject(struct cm_conn *c, const void *private_data, uint8_t len)
{
	struct roce_cm_msg m;

	roce_cmi_msg_init(&m, ROCE_CM_ATTR_SIDR_REP, c->tid);
	m.u.sidr_rep.request_id = c->remote_comm_id;
	m.u.sidr_rep.status = ROCE_CM_SIDR_REJECT;
	m.u.sidr_rep.service_id = c->service_id;
	if (private_data && len)
		memcpy(m.u.sidr_rep.private_data, private_data,
		       RTE_MIN(len, sizeof(m.u.sidr_rep.private_data)));
	roce_cmi_send_msg(c, &m, true);
}

void roce_cmi_on_sidr_req(struct roce_cm *cm, const struct roce_cm_msg *m,
			  const struct stk_ipaddr *src, const struct stk_ipaddr *dst)
{
	const struct roce_cm_sidr_req *r = &m->u.sidr_req;
	struct roce_cma_hdr h;
	struct cm_conn *l, *c;

	/* a repeat gets the SIDR_REP we sent, or nothing while the user decides */
	for (uint32_t i = 0; i < CM_MAX_IDS; i++) {
		c = cm->tab[i];
		if (c && c->id.ps == ROCE_CM_PS_UDP && c->state != CM_LISTEN &&
		    c->remote_comm_id == r->request_id && c->tid == m->tid &&
		    stk_ipaddr_eq(&c->id.remote_ip, src)) {
			cm->st.rx_dup++;
			if (c->have_mad)
				roce_cmi_send_mad(cm, src, dst, c->mad);
			return;
		}
	}
	l = roce_cmi_listener_for(cm, r->service_id);
	if (!l || l->id.ps != ROCE_CM_PS_UDP ||
	    roce_cma_hdr_decode(r->private_data, sizeof(r->private_data), &h) != 0 ||
	    l->pending >= l->backlog || roce_cmi_events_full(cm) ||
	    !(c = roce_cmi_conn_alloc(cm, ROCE_CM_PS_UDP, l->id.context))) {
		struct roce_cm_msg rep;
		uint8_t mad[ROCE_MAD_LEN];

		roce_cmi_msg_init(&rep, ROCE_CM_ATTR_SIDR_REP, m->tid);
		rep.u.sidr_rep.request_id = r->request_id;
		rep.u.sidr_rep.status = l ? ROCE_CM_SIDR_NO_QP : ROCE_CM_SIDR_UNSUPPORTED;
		rep.u.sidr_rep.service_id = r->service_id;
		if (l)
			roce_cmi_count_refusal(cm, l);
		else
			cm->st.rej_no_listener++;
		if (roce_cm_encode(&rep, mad, sizeof(mad)) == ROCE_MAD_LEN)
			roce_cmi_send_mad(cm, src, dst, mad);
		return;
	}
	c->listener = l;
	l->pending++;
	c->tid = m->tid;
	c->remote_comm_id = r->request_id;
	c->service_id = r->service_id;
	c->id.remote_ip = *src;
	c->id.local_ip = *dst;
	c->id.remote_port = h.src_port;
	c->id.local_port = l->id.local_port;
	roce_cmi_set_state(c, CM_SIDR_REQ_RCVD);
	l->lst.requests++;
	roce_cmi_post_event(cm, c, ROCE_CM_EVENT_CONNECT_REQUEST, 0,
			    r->private_data + ROCE_CMA_HDR_LEN,
			    sizeof(r->private_data) - ROCE_CMA_HDR_LEN);
}

void roce_cmi_on_sidr_rep(struct roce_cm *cm, const struct roce_cm_msg *m,
			  const struct stk_ipaddr *src)
{
	const struct roce_cm_sidr_rep *r = &m->u.sidr_rep;
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, r->request_id);
	struct roce_cm_event *e;

	if (c && !roce_cmi_from_peer(c, src))
		return; /* another host's answer to our request */

	if (!c || c->state != CM_SIDR_REQ_SENT) {
		if (c)
			cm->st.rx_dup++;
		else
			cm->st.rx_drop_nomatch++;
		return;
	}
	roce_cmi_disarm(c);
	c->have_mad = false;
	roce_cmi_set_state(c, CM_IDLE);
	if (r->status != ROCE_CM_SIDR_SUCCESS) {
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_UNREACHABLE, r->status, r->private_data,
				    sizeof(r->private_data));
		return;
	}
	c->id.remote_qpn = r->qpn;
	c->id.remote_qkey = r->qkey;
	e = roce_cmi_post_event(cm, c, ROCE_CM_EVENT_ESTABLISHED, 0, r->private_data,
				sizeof(r->private_data));
	if (e) {
		e->qp_num = r->qpn;
		e->qkey = r->qkey;
	}
}
