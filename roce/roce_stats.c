/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_stats.c - the transport's telemetry: /droce/roce gives, per open device, the receive
 * refusals by reason, asynchronous events by type and lost completions, and each QP's state,
 * PSNs and engine counters (enum roce_qp_counter).
 * Values are read without locks from the telemetry thread and may lag by a burst.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "roce_engine.h"

#define ROCE_QPC_NAME_(n) #n,
static const char *const qpc_names[ROCE_QPC_NUM] = {ROCE_QP_COUNTERS(ROCE_QPC_NAME_)};
#undef ROCE_QPC_NAME_

#define ROCE_RESP_NAME_(n) "resp_" #n,
static const char *const resp_names[ROCE_RESP_NUM] = {ROCE_RESP_OUTCOMES(ROCE_RESP_NAME_)};
#undef ROCE_RESP_NAME_

#define ROCE_RX_NAME_(n, s) s,
static const char *const rx_drop_names[ROCE_RX_NUM] = {ROCE_RX_COUNTERS(ROCE_RX_NAME_)};
#undef ROCE_RX_NAME_

static int tel_roce(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		const struct roce_dev *dev = roce_devs[i];
		struct rte_tel_data *x;
		char key[32];

		if (!dev)
			continue;
		x = rte_tel_data_alloc();
		if (!x)
			return -ENOMEM;
		rte_tel_data_start_dict(x);
		for (unsigned k = 0; k < RTE_DIM(rx_drop_names); k++)
			rte_tel_data_add_dict_u64(x, rx_drop_names[k], dev->drops[k]);
		/* drop_decode by the decoder's reason (roce_pkt.h ROCE_DROP_LIST) */
		for (unsigned k = ROCE_DROP_NONE + 1; k < ROCE_DROP_NUM; k++) {
			char dk[64];

			snprintf(dk, sizeof(dk), "drop_decode_%s", roce_drop_name(k));
			rte_tel_data_add_dict_u64(x, dk, dev->decode_drops[k]);
		}
		rte_tel_data_add_dict_u64(x, "qps", dev->n.qps);
		rte_tel_data_add_dict_u64(x, "mrs", dev->n.mrs);
		rte_tel_data_add_dict_u64(x, "mr_dereg_busy", dev->n.mr_dereg_busy);
		/* asynchronous events raised, by type (those droce raises), and what was lost */
		for (unsigned k = 0; k < ROCE_EVENT_NUM; k++) {
			char ek[64];

			if (!roce_event_type_raised(k))
				continue;
			snprintf(ek, sizeof(ek), "async_%s", roce_event_type_str(k));
			rte_tel_data_add_dict_u64(x, ek, dev->n.async_raised[k]);
		}
		rte_tel_data_add_dict_u64(x, "async_dropped", dev->n.async_dropped);
		rte_tel_data_add_dict_u64(x, "async_purged", dev->n.async_purged);
		rte_tel_data_add_dict_u64(x, "async_queued", dev->ev_head - dev->ev_tail);
		rte_tel_data_add_dict_u64(x, "cqe_lost", dev->n.cqe_lost);
		rte_tel_data_add_dict_u64(x, "wc_no_done", dev->n.wc_no_done);
		rte_tel_data_add_dict_u64(x, "post_tx_now", dev->n.post_tx_now);
		rte_tel_data_add_dict_u64(x, "post_doorbell", dev->n.post_doorbell);
		rte_tel_data_add_dict_u64(x, "post_deferred", dev->n.post_deferred);
		for (const struct roce_qp *qp = dev->polled; qp; qp = qp->next_polled) {
			struct rte_tel_data *q = rte_tel_data_alloc();

			if (!q)
				break;
			rte_tel_data_start_dict(q);
			rte_tel_data_add_dict_string(q, "state", roce_qp_state_str(qp->state));
			rte_tel_data_add_dict_u64(q, "dest_qpn", qp->attr.dest_qp_num);
			rte_tel_data_add_dict_u64(q, "sq_psn", qp->req.psn);
			rte_tel_data_add_dict_u64(q, "rq_psn", qp->resp.psn);
			for (unsigned k = 0; k < ROCE_QPC_NUM; k++)
				rte_tel_data_add_dict_u64(q, qpc_names[k], qp->cnt[k]);
			if (qp->cc) {
				rte_tel_data_add_dict_string(q, "cc_stage",
							     roce_dcqcn_stage_str(qp->rp.stage));
				rte_tel_data_add_dict_u64(q, "cc_rate_mbps",
							  (uint64_t)(qp->rp.rc * 1000.0));
				rte_tel_data_add_dict_u64(q, "cc_target_mbps",
							  (uint64_t)(qp->rp.rt * 1000.0));
				rte_tel_data_add_dict_u64(q, "cc_alpha_ppm",
							  (uint64_t)(qp->rp.alpha * 1e6));
			}
			for (unsigned k = 0; k < ROCE_RESP_NUM; k++)
				rte_tel_data_add_dict_u64(q, resp_names[k], qp->resp.outcome[k]);
			snprintf(key, sizeof(key), "qp_0x%x", qp->qpn);
			rte_tel_data_add_dict_container(x, key, q, 0);
		}
		if (dev->cm) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			if (c) {
				roce_cm_telemetry(dev->cm, c);
				rte_tel_data_add_dict_container(x, "cm", c, 0);
			}
		}
		snprintf(key, sizeof(key), "iface%u", i);
		rte_tel_data_add_dict_container(d, key, x, 0);
	}
	return 0;
}

int roce_telemetry_register(void)
{
	static bool done;

	if (done)
		return 0;
	done = true;
	return rte_telemetry_register_cmd(
		"/droce/roce", tel_roce,
		"RoCE devices: receive drops by reason, per-QP state, PSNs "
		"and counters. No params");
}

void roce_qp_query_stats(const struct roce_qp *qp, struct roce_qp_stats *s)
{
	double hz = (double)rte_get_tsc_hz();

	memset(s, 0, sizeof(*s));
	s->tx_pkts = qp->cnt[ROCE_QPC_tx_pkts];
	s->retransmits = qp->cnt[ROCE_QPC_retransmits];
	s->timeouts = qp->cnt[ROCE_QPC_timeouts];
	s->rto_early = qp->cnt[ROCE_QPC_rto_early];
	s->nak_seq_rx = qp->cnt[ROCE_QPC_nak_seq_rx];
	s->rnr_nak_tx = qp->cnt[ROCE_QPC_rnr_nak_tx];
	s->rnr_nak_rx = qp->cnt[ROCE_QPC_rnr_nak_rx];
	s->acks_rx = qp->cnt[ROCE_QPC_acks_rx];
	s->nak_fatal_rx = qp->cnt[ROCE_QPC_nak_fatal_rx];
	s->nak_seq_tx = qp->cnt[ROCE_QPC_nak_seq_tx];
	s->cwnd_cut_skipped = qp->cnt[ROCE_QPC_cwnd_cut_skipped];
	s->cwnd = qp->req.cwnd;
	s->srtt_us = (double)qp->comp.srtt * 1e6 / hz;
	s->rto_us = (double)qp->comp.rto * 1e6 / hz;
}
