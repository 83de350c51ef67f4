/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_conf.h - droce-nfsd's part of the INI file: the [nfs] section and the exports, given
 * either as [export NAME] sections or as "exports = PATH" naming an exports(5) file. The
 * stack's sections ([eal], [portN], ...) in the same file are stk_config's; each reader skips
 * the other's. Every key and its default is in docs/config.md.
 *
 *   [nfs]
 *   exports = /etc/droce/exports   ; or [export NAME] sections, not both
 *   state = /var/lib/droce-nfsd
 *   threads = 4                    ; helper threads for file-system calls (0: on the lcore)
 *   io_uring = 256                 ; READ/WRITE data by io_uring, operations in flight (0: off)
 *   grace = 90                     ; NLM grace period after start, seconds
 *   versions = 3                   ; or 3,4.1: NFSv4.1 too (opt-in, partial: docs/nfs.md)
 *   v4_lease = 90                  ; NFSv4 lease, seconds
 *   v4_slots = 32                  ; NFSv4.1 session slots offered (ca_maxrequests)
 *   v4_domain =                    ; owner@domain accepted in SETATTR (empty: any domain)
 *   credits = 128                  ; RPC-over-RDMA credits granted per connection
 *   inline = 4096                  ; largest inline message received, bytes
 *   max_io = 1048576               ; rsize/wsize offered (FSINFO rtmax/wtmax)
 *   connections = 16               ; RPC-over-RDMA connections at once
 *   calls_per_connection = 4       ; RPC-over-RDMA calls of one connection served at once
 *   drain = 10                     ; SIGTERM: seconds to finish the calls in flight
 *   metrics = 127.0.0.1:9464       ; the Prometheus endpoint (off when absent)
 *   lcores = 1                     ; lcores serving RDMA connections (the first N of [eal])
 *   placement = client             ; or round_robin: which lane a new connection goes to
 *
 *   [export data]
 *   path = /srv/data
 *   clients = 10.77.0.0/24(rw,no_root_squash) *(ro)
 *
 * A bad value is reported as "FILE: [section] key = value: what is accepted".
 */
#ifndef NFSD_CONF_H
#define NFSD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFSD_CONNS_MAX 64u

struct nfsd_conf {
	char exports_file[512]; /**< "exports = PATH", or empty */
	char *exports_text;	/**< exports(5) text built from [export NAME] sections, or NULL */
	uint32_t nexport_sections;
	char state[512];
	uint32_t threads, uring_depth, conn_calls, grace_s, credits, inline_max, max_io,
		connections, drain_s, v4_lease_s, v4_slots;
	uint32_t drc_entries; /**< duplicate request cache entries, per server (TCP/UDP, RDMA) */
	bool v41;	      /**< versions includes 4.1: program 100003 version 4 is registered */
	char metrics[128];    /**< "IP:PORT", or empty */
	char v4_domain[64];   /**< NFSv4 "N@domain" owners: this domain only (empty: any) */
	/** RDMA lanes: the first @p lcores EAL lcores serve RPC-over-RDMA connections, each
	 * with its own NFSv3 server, DRC, helper threads and io_uring (1: the main lcore only) */
	uint32_t lcores;
	bool place_rr; /**< placement = round_robin (else client: by the client's address) */
};

#define NFSD_LANES_MAX 8u /* ROCE_MAX_LANES */

/** The defaults (docs/config.md). */
void nfsd_conf_default(struct nfsd_conf *c);

/**
 * Read [nfs] and [export NAME] from path on top of what c holds; other sections are left to
 * the stack. @return 0, or -errno with err naming the file, section, key and what is accepted
 */
int nfsd_conf_load(const char *path, struct nfsd_conf *c, char *err, size_t errlen);

/** Set one [nfs] key as the file would (the command line's --state, --grace, --threads):
 * the message names origin instead of a file. @return 0 or -EINVAL with err */
int nfsd_conf_set(struct nfsd_conf *c, const char *origin, const char *key, const char *value,
		  char *err, size_t errlen);

/** Free what nfsd_conf_load allocated. */
void nfsd_conf_free(struct nfsd_conf *c);

/** The sections this reader owns, for stk_config's upper_sections. */
extern const char *const nfsd_conf_sections[];

#endif /* NFSD_CONF_H */
