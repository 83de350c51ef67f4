/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_tel.c - droce-nfsd's rte_telemetry views of the NFSv4 counters and of the latency
 * histograms (nfsd_tel.h). They run on a telemetry thread: each call copies the v4 counters
 * for itself (a reader may see a value one call old, as with every counter read there).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nfsd_tel.h"

/* /droce/nfs's NFSv4 part: compounds, operations by name (those that ran), errors, bytes */
void nfsd_tel_nfs4(struct rte_tel_data *d, struct nfs4_server *s)
{
	/* this caller's own copy (14 KiB: off the stack; each telemetry client has a thread) */
	struct nfs4_stats *v4 = malloc(sizeof(*v4));
	struct rte_tel_data *o = v4 ? rte_tel_data_alloc() : NULL;

	if (!v4)
		return;
	nfs4_server_stats(s, v4);
	rte_tel_data_add_dict_u64(d, "nfs4_compounds", v4->compounds);
	rte_tel_data_add_dict_u64(d, "nfs4_compound_errors", v4->status_err);
	rte_tel_data_add_dict_u64(d, "nfs4_read_bytes", v4->read_bytes);
	rte_tel_data_add_dict_u64(d, "nfs4_write_bytes", v4->write_bytes);
	if (o) {
		rte_tel_data_start_dict(o);
		for (uint32_t op = 0; op <= NFS4_OP_LAST; op++)
			if (v4->op[op])
				rte_tel_data_add_dict_u64(o, nfs4_op_name(op), v4->op[op]);
		if (rte_tel_data_add_dict_container(d, "nfs4_ops", o, 0) != 0)
			rte_tel_data_free(o);
	}
	free(v4);
}

/* One latency histogram as an array under key (nfs_lat_bucket's buckets). rte_telemetry
 * nests one level only: the histograms are arrays in the command's own dict. */
static void tel_hist(struct rte_tel_data *d, const char *key, const uint64_t *a, const uint64_t *b)
{
	struct rte_tel_data *h = rte_tel_data_alloc();

	if (!h)
		return;
	rte_tel_data_start_array(h, RTE_TEL_U64_VAL);
	for (uint32_t k = 0; k < NFS_LAT_BUCKETS; k++)
		rte_tel_data_add_array_u64(h, a[k] + (b ? b[k] : 0));
	if (rte_tel_data_add_dict_container(d, key, h, 0) != 0)
		rte_tel_data_free(h);
}

/* The latency histograms: bucket i counts calls of at most bucket_le_us[i] µs, the last
 * longer ones; "nfs3_PROC" per NFSv3 procedure and "nfs4_OP" per NFSv4 operation that ran */
int nfsd_tel_latency(struct rte_tel_data *d, const struct nfs3_stats *t, struct nfs4_server *s)
{
	struct rte_tel_data *le = rte_tel_data_alloc();
	struct nfs4_stats *v4;
	char key[64];

	if (!le)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	rte_tel_data_start_array(le, RTE_TEL_U64_VAL);
	for (uint32_t i = 0; i + 1 < NFS_LAT_BUCKETS; i++)
		rte_tel_data_add_array_u64(le, 1ull << i);
	if (rte_tel_data_add_dict_container(d, "bucket_le_us", le, 0) != 0)
		rte_tel_data_free(le);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		if (!t->proc[p])
			continue;
		snprintf(key, sizeof(key), "nfs3_%s", nfs3_proc_name(p));
		tel_hist(d, key, t->lat[p], NULL);
	}
	/* this caller's own copy (each telemetry client has a thread) */
	v4 = s ? malloc(sizeof(*v4)) : NULL;
	if (!v4)
		return 0;
	nfs4_server_stats(s, v4);
	for (uint32_t op = 0; op <= NFS4_OP_LAST; op++) {
		if (!v4->op[op])
			continue;
		snprintf(key, sizeof(key), "nfs4_%s", nfs4_op_name(op));
		tel_hist(d, key, v4->op_lat[op], NULL);
	}
	free(v4);
	return 0;
}

int nfsd_tel_nfs(struct rte_tel_data *d, const struct nfsd_metrics_src *s)
{
	/* the servers' sums (every lane's): this caller's own copy, off the stack */
	struct nfs3_stats *t = malloc(sizeof(*t));
	struct orpc_svc_stats sv;
	struct orpc_drc_stats drc;
	struct nfsd_metrics_io io;
	struct nfs_fs_stats fst;
	struct rte_tel_data *p = t ? rte_tel_data_alloc() : NULL,
			    *o = t ? rte_tel_data_alloc() : NULL;
	struct rte_tel_data *lanes = NULL;

	if (!p || !o) {
		rte_tel_data_free(p);
		rte_tel_data_free(o);
		free(t);
		return -ENOMEM;
	}
	nfsd_metrics_nfs_total(s, t);
	nfsd_metrics_rpc_total(s, &sv, &drc);
	nfsd_metrics_io_total(s, &io);
	rte_tel_data_start_dict(d);
	rte_tel_data_start_dict(p);
	for (uint32_t i = 0; i < NFS3_NPROCS; i++)
		rte_tel_data_add_dict_u64(p, nfs3_proc_name(i), t->proc[i]);
	rte_tel_data_add_dict_container(d, "nfs3_calls", p, 0);
	rte_tel_data_start_dict(o);
	for (int k = 0; k < ORPC_OUT_NUM; k++)
		rte_tel_data_add_dict_u64(o, orpc_outcome_name((enum orpc_outcome)k),
					  sv.outcome[k]);
	rte_tel_data_add_dict_container(d, "rpc_outcomes", o, 0);
	for (uint32_t i = 1; i < 32; i++)
		if (t->status[i])
			rte_tel_data_add_dict_u64(d, nfs_stat_name(nfs3_stat_of_slot(i)),
						  t->status[i]);
	rte_tel_data_add_dict_u64(d, "status_ok", t->status_ok);
	rte_tel_data_add_dict_u64(d, "status_err", t->status_err);
	rte_tel_data_add_dict_u64(d, "read_bytes", t->read_bytes);
	rte_tel_data_add_dict_u64(d, "write_bytes", t->write_bytes);
	rte_tel_data_add_dict_u64(d, "on_helper_threads", t->deferred);
	rte_tel_data_add_dict_u64(d, "helper_queue", io.helper_queue);
	rte_tel_data_add_dict_u64(d, "on_io_uring", t->aio);
	rte_tel_data_add_dict_u64(d, "io_uring_queue", io.aio_inflight);
	rte_tel_data_add_dict_u64(d, "drc_replayed", drc.replayed);
	rte_tel_data_add_dict_u64(d, "drc_in_progress_drops", drc.in_progress_drops);
	nfs_fs_stats(s->fs, &fst);
	rte_tel_data_add_dict_u64(d, "badhandle", fst.badhandle);
	rte_tel_data_add_dict_u64(d, "stale", fst.stale);
	rte_tel_data_add_dict_u64(d, "client_refused", fst.acces_client);
	rte_tel_data_add_dict_u64(d, "rofs", fst.rofs);
	rte_tel_data_add_dict_u64(d, "rdma_connections", s->rdma_accepted - s->rdma_closed);
	rte_tel_data_add_dict_u64(d, "tcp_connections", s->tcp ? orpc_tcp_srv_nconns(s->tcp) : 0);
	/* [nfs] lcores: NFSv3 calls over RDMA by lane ("laneN": its lcore's are in the metrics) */
	if (s->nlanes > 1 && (lanes = rte_tel_data_alloc())) {
		char key[16];

		rte_tel_data_start_dict(lanes);
		for (uint32_t i = 0; i < s->nlanes && i < NFSD_METRICS_NSERVERS - 1; i++) {
			uint64_t n = 0;

			for (uint32_t q = 0; s->lane_nfs[i] && q < NFS3_NPROCS; q++)
				n += s->lane_nfs[i]->st.proc[q];
			snprintf(key, sizeof(key), "lane%u", i);
			rte_tel_data_add_dict_u64(lanes, key, n);
		}
		if (rte_tel_data_add_dict_container(d, "lane_nfs3_calls", lanes, 0) != 0)
			rte_tel_data_free(lanes);
	}
	free(t);
	if (s->v4)
		nfsd_tel_nfs4(d, s->v4);
	return 0;
}
