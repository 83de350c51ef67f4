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

#define ROCE_COMP_NAME_(n) "comp_" #n,
static const char *const comp_names[ROCE_COMP_NUM] = {ROCE_COMP_OUTCOMES(ROCE_COMP_NAME_)};
#undef ROCE_COMP_NAME_

#define ROCE_RX_NAME_(n, s) s,
static const char *const rx_drop_names[ROCE_RX_NUM] = {ROCE_RX_COUNTERS(ROCE_RX_NAME_)};
#undef ROCE_RX_NAME_

/* Each lane: its lcore, the QPs placed on it and what it handed over or was refused. */
static void tel_lanes(const struct roce_dev *dev, struct rte_tel_data *x)
{
	for (unsigned l = 0; l < dev->nlanes; l++) {
		const struct roce_lane *lane = &dev->lane[l];
		struct rte_tel_data *t = rte_tel_data_alloc();
		char key[32];

		if (!t)
			return;
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_u64(t, "lcore", lane->lcore);
		rte_tel_data_add_dict_u64(t, "qps", lane->nqps);
		rte_tel_data_add_dict_u64(t, "polls", lane->poll_epoch);
		rte_tel_data_add_dict_u64(t, "max_poll_gap_us",
					  lane->max_gap_tsc * 1000000u / rte_get_tsc_hz());
		rte_tel_data_add_dict_u64(t, "poll_gaps_10ms", lane->gaps_10ms);
		rte_tel_data_add_dict_u64(t, "rx_handoff", lane->drops[ROCE_RX_HANDOFF]);
		rte_tel_data_add_dict_u64(t, "drop_handoff_full",
					  lane->drops[ROCE_RX_DROP_HANDOFF_FULL]);
		rte_tel_data_add_dict_u64(t, "wrong_lcore", lane->cnt[ROCE_LNC_wrong_lcore]);
		rte_tel_data_add_dict_u64(t, "qp_joined", lane->cnt[ROCE_LNC_qp_joined]);
		snprintf(key, sizeof(key), "lane%u", l);
		rte_tel_data_add_dict_container(x, key, t, 0);
	}
}

static int tel_roce(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		const struct roce_dev *dev = roce_devs[i];
		struct rte_tel_data *x;
		struct roce_dev_counts n;
		uint64_t queued;
		char key[32];

		if (!dev)
			continue;
		x = rte_tel_data_alloc();
		if (!x)
			return -ENOMEM;
		rte_tel_data_start_dict(x);
		for (unsigned k = 0; k < RTE_DIM(rx_drop_names); k++)
			rte_tel_data_add_dict_u64(x, rx_drop_names[k], roce_dev_rx_drops(dev, k));
		/* drop_decode by the decoder's reason (roce_pkt.h ROCE_DROP_LIST) */
		for (unsigned k = ROCE_DROP_NONE + 1; k < ROCE_DROP_NUM; k++) {
			char dk[64];

			snprintf(dk, sizeof(dk), "drop_decode_%s", roce_drop_name(k));
			rte_tel_data_add_dict_u64(x, dk, roce_dev_decode_drops(dev, k));
		}
		roce_dev_counts(dev, &n);
		rte_tel_data_add_dict_u64(x, "qps", n.qps);
		rte_tel_data_add_dict_u64(x, "mrs", n.mrs);
		rte_tel_data_add_dict_u64(x, "mr_dereg_busy", n.mr_dereg_busy);
		/* asynchronous events raised, by type (those droce raises), and what was lost */
		for (unsigned k = 0; k < ROCE_EVENT_NUM; k++) {
			char ek[64];

			if (!roce_event_type_raised(k))
				continue;
			snprintf(ek, sizeof(ek), "async_%s", roce_event_type_str(k));
			rte_tel_data_add_dict_u64(x, ek, n.async_raised[k]);
		}
		rte_tel_data_add_dict_u64(x, "async_dropped", n.async_dropped);
		rte_tel_data_add_dict_u64(x, "async_purged", n.async_purged);
		queued = 0;
		for (unsigned l = 0; l < dev->nlanes; l++)
			queued += dev->lane[l].ev_head - dev->lane[l].ev_tail;
		rte_tel_data_add_dict_u64(x, "async_queued", queued);
		rte_tel_data_add_dict_u64(x, "cqe_lost", n.cqe_lost);
		rte_tel_data_add_dict_u64(x, "wc_no_done", n.wc_no_done);
		rte_tel_data_add_dict_u64(x, "post_tx_now", n.post_tx_now);
		rte_tel_data_add_dict_u64(x, "post_doorbell", n.post_doorbell);
		rte_tel_data_add_dict_u64(x, "post_deferred", n.post_deferred);
		rte_tel_data_add_dict_u64(x, "wrong_lcore", n.wrong_lcore);
		rte_tel_data_add_dict_u64(x, "qp_joined", n.qp_joined);
		tel_lanes(dev, x);
		for (unsigned l = 0; l < dev->nlanes; l++)
			for (const struct roce_qp *qp = dev->lane[l].polled; qp;
			     qp = qp->next_polled) {
				struct rte_tel_data *q = rte_tel_data_alloc();

				if (!q)
					break;
				rte_tel_data_start_dict(q);
				rte_tel_data_add_dict_string(q, "state",
							     roce_qp_state_str(qp->state));
				rte_tel_data_add_dict_u64(q, "dest_qpn", qp->attr.dest_qp_num);
				rte_tel_data_add_dict_u64(q, "sq_psn", qp->req.psn);
				rte_tel_data_add_dict_u64(q, "rq_psn", qp->resp.psn);
				for (unsigned k = 0; k < ROCE_QPC_NUM; k++)
					rte_tel_data_add_dict_u64(q, qpc_names[k], qp->cnt[k]);
				if (qp->cc) {
					rte_tel_data_add_dict_string(
						q, "cc_stage", roce_dcqcn_stage_str(qp->rp.stage));
					rte_tel_data_add_dict_u64(q, "cc_rate_mbps",
								  (uint64_t)(qp->rp.rc * 1000.0));
					rte_tel_data_add_dict_u64(q, "cc_target_mbps",
								  (uint64_t)(qp->rp.rt * 1000.0));
					rte_tel_data_add_dict_u64(q, "cc_alpha_ppm",
								  (uint64_t)(qp->rp.alpha * 1e6));
				}
				for (unsigned k = 0; k < ROCE_RESP_NUM; k++)
					rte_tel_data_add_dict_u64(q, resp_names[k],
								  qp->resp.outcome[k]);
				for (unsigned k = 0; k < ROCE_COMP_NUM; k++)
					rte_tel_data_add_dict_u64(q, comp_names[k],
								  qp->comp.outcome[k]);
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
	s->backlog_waits = qp->cnt[ROCE_QPC_backlog_waits];
	s->stale_capped = qp->cnt[ROCE_QPC_stale_capped];
	s->dup_acks_rx = qp->cnt[ROCE_QPC_dup_acks_rx];
	s->nak_seq_rx = qp->cnt[ROCE_QPC_nak_seq_rx];
	s->rnr_nak_tx = qp->cnt[ROCE_QPC_rnr_nak_tx];
	s->rnr_nak_rx = qp->cnt[ROCE_QPC_rnr_nak_rx];
	s->acks_rx = qp->cnt[ROCE_QPC_acks_rx];
	s->nak_fatal_rx = qp->cnt[ROCE_QPC_nak_fatal_rx];
	s->lcore_moves = qp->cnt[ROCE_QPC_lcore_moves];
	s->nak_seq_tx = qp->cnt[ROCE_QPC_nak_seq_tx];
	s->cwnd_cut_skipped = qp->cnt[ROCE_QPC_cwnd_cut_skipped];
	s->cwnd = qp->comp.cwnd;
	s->srtt_us = (double)qp->comp.srtt * 1e6 / hz;
	s->rto_us = (double)qp->comp.rto * 1e6 / hz;
}
