/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_disconnect.c - ending a connection (IBA 12.9.6, 12.9.8.4): DREQ and DREP, and
 * TimeWait. disconnect moves the QP to ERR (flushing it), sends DREQ and resends it until
 * DREP arrives or the retries are spent; either way the id reports DISCONNECTED and enters
 * TimeWait, which it leaves with TIMEWAIT_EXIT. A DREQ is always answered with DREP, also a
 * repeated one and one for a connection we do not know (C12-24).
 */
#include <errno.h>
#include <string.h>

#include <rte_random.h>

#include "roce_cm_int.h"
#include "roce_engine.h"

static uint64_t timewait_cycles(const struct cm_conn *c)
{
	/* IBA 12.9.8.4: long enough for the peer's packets in flight to die */
	return 2 * roce_exp_tsc(CM_PLT_EXP) + roce_exp_tsc(c->p.local_ack_timeout);
}

void roce_cmi_enter_timewait(struct cm_conn *c)
{
	roce_cmi_qp_to_err(c);
	roce_cmi_set_state(c, CM_TIMEWAIT);
	c->have_mad = false;
	roce_cmi_arm(c, timewait_cycles(c), 0);
}

int roce_cm_disconnect(struct roce_cm_id *id)
{
	struct cm_conn *c = roce_cmi_conn_of(id);
	struct roce_cm_msg m;

	if (!id || (c->state != CM_ESTABLISHED && c->state != CM_REP_SENT))
		return -EINVAL;
	roce_cmi_msg_init(&m, ROCE_CM_ATTR_DREQ, ((uint64_t)rte_rand() << 32) | c->local_comm_id);
	m.u.dreq.local_comm_id = c->local_comm_id;
	m.u.dreq.remote_comm_id = c->remote_comm_id;
	m.u.dreq.remote_qpn = c->id.remote_qpn;
	roce_cmi_qp_to_err(c);
	roce_cmi_set_state(c, CM_DREQ_SENT);
	roce_cmi_send_msg(c, &m, true);
	roce_cmi_arm(c, roce_exp_tsc(c->p.cm_response_timeout) + 2 * roce_exp_tsc(CM_PLT_EXP),
		     c->p.max_cm_retries);
	return 0;
}

static void send_drep(struct roce_cm *cm, const struct stk_ipaddr *dst,
		      const struct stk_ipaddr *src, uint64_t tid, uint32_t local_comm_id,
		      uint32_t remote_comm_id)
{
	struct roce_cm_msg m;
	uint8_t mad[ROCE_MAD_LEN];

	roce_cmi_msg_init(&m, ROCE_CM_ATTR_DREP, tid);
	m.u.drep.local_comm_id = local_comm_id;
	m.u.drep.remote_comm_id = remote_comm_id;
	if (roce_cm_encode(&m, mad, sizeof(mad)) == ROCE_MAD_LEN)
		roce_cmi_send_mad(cm, dst, src, mad);
}

void roce_cmi_on_dreq(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	const struct roce_cm_dreq *r = &m->u.dreq;
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, r->remote_comm_id);

	if (!c || c->remote_comm_id != r->local_comm_id || !roce_cmi_from_peer(c, src)) {
		/* IBA C12-24: DREP even when we know nothing of the connection; a DREQ from
		 * another address than the peer's is not for our connection either */
		if (!c || c->remote_comm_id != r->local_comm_id)
			cm->st.rx_drop_nomatch++;
		send_drep(cm, src, NULL, m->tid, r->remote_comm_id, r->local_comm_id);
		return;
	}
	send_drep(cm, &c->id.remote_ip, &c->id.local_ip, m->tid, c->local_comm_id,
		  c->remote_comm_id);
	switch (c->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
	case CM_DREQ_SENT:
		roce_cmi_post_event(cm, c, ROCE_CM_EVENT_DISCONNECTED, 0, r->private_data,
				    sizeof(r->private_data));
		roce_cmi_enter_timewait(c);
		break;
	default:
		cm->st.rx_dup++; /* TimeWait: the DREP above was the answer */
		break;
	}
}

void roce_cmi_on_drep(struct roce_cm *cm, const struct roce_cm_msg *m, const struct stk_ipaddr *src)
{
	struct cm_conn *c = roce_cmi_conn_by_comm_id(cm, m->u.drep.remote_comm_id);

	if (!c) {
		cm->st.rx_drop_nomatch++;
		return;
	}
	if (!roce_cmi_from_peer(c, src))
		return;
	/* both comm IDs, as Linux's cm_drep_handler() matches a DREP, and as REJ, RTU and DREQ
	 * are matched here: ours right and the peer's wrong is not the peer's answer */
	if (m->u.drep.local_comm_id != c->remote_comm_id) {
		cm->st.rx_drop_comm_id++;
		return;
	}
	if (c->state != CM_DREQ_SENT) {
		cm->st.rx_dup++;
		return;
	}
	roce_cmi_post_event(cm, c, ROCE_CM_EVENT_DISCONNECTED, 0, m->u.drep.private_data,
			    sizeof(m->u.drep.private_data));
	roce_cmi_enter_timewait(c);
}
