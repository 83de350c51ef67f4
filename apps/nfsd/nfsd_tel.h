/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_tel.h - droce-nfsd's rte_telemetry parts that read the NFS servers' counters:
 * /droce/nfs and /droce/nfs/latency (docs/observability.md). rte_telemetry nests
 * one level only and takes names of letters, digits, '_' and '/'.
 */
#ifndef NFSD_TEL_H
#define NFSD_TEL_H

#include <rte_telemetry.h>

#include "nfs3_svc.h"
#include "nfs4_svc.h"
#include "nfsd_metrics.h"

/** Fill @p d with /droce/nfs: NFSv3 calls, RPC outcomes, statuses, bytes, helper threads and
 * io_uring, DRC, the backend's refusals, connections, NFSv3 calls by lane, and the NFSv4 keys,
 * summed over the servers of @p s. @return 0 or -ENOMEM */
int nfsd_tel_nfs(struct rte_tel_data *d, const struct nfsd_metrics_src *s);

/** Add the NFSv4 server @p s's compounds, errors, bytes and "nfs4_ops" (those that ran) to
 * the started dict @p d. */
void nfsd_tel_nfs4(struct rte_tel_data *d, struct nfs4_server *s);

/** Fill @p d with the latency histograms: "bucket_le_us", "nfs3_PROC" for every procedure
 * that ran in @p t (the NFSv3 servers' sum, nfsd_metrics_nfs_total), "nfs4_OP" for every
 * operation of @p s (NULL: none) that ran. @return 0 or -ENOMEM */
int nfsd_tel_latency(struct rte_tel_data *d, const struct nfs3_stats *t, struct nfs4_server *s);

#endif /* NFSD_TEL_H */
