/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_svc.h - the NFSv3 (100003 v3) and MOUNT (100005 v1, v3) programs: RPC procedure
 * tables whose handlers decode nothing themselves (nfs/xdr does) and call the backend
 * (nfs/fs/nfs_fs.h) with the caller's address and AUTH_SYS credential.
 *
 * A transport's orpc_svc carries a struct nfs3_server in its ctx (orpc_svc.ctx): the backend,
 * the largest READ/WRITE the transport takes, scratch space for READ data and directory
 * entries, and the counters. One nfs3_server per lcore; the backend is shared.
 *
 * NFS versions 2 and 4 are not served: orpc_svc answers PROG_MISMATCH 3..3, which makes a
 * Linux client that tried v4 first fall back to v3. NFSACL (100227) is not registered:
 * PROG_UNAVAIL, on purpose (the client then shows mode bits only).
 */
#ifndef NFS3_SVC_H
#define NFS3_SVC_H

#include <stdint.h>

#include "nfs3_xdr.h"
#include "nfs_fs.h"
#include "orpc_svc.h"

#define NFS3_PROG 100003u
#define NFS3_VERS 3u
#define MOUNT_PROG 100005u
#define NFS3_PORT 2049u
#define NFS3_RDMA_PORT 20049u
#define MOUNT_PORT 20048u
#define MOUNT_NPROCS 6u

extern const struct orpc_program nfs3_program;
extern const struct orpc_program mount_program;

/** Counters: per procedure, and per NFS status answered. */
struct nfs3_stats {
	uint64_t proc[NFS3_NPROCS];
	uint64_t mount_proc[MOUNT_NPROCS];
	uint64_t status_ok, status_err;
	uint64_t status[32]; /**< by nfs3_stat_slot() */
	uint64_t read_bytes, write_bytes;
};

struct nfs3_server {
	struct nfs_fs *fs;
	uint32_t max_io;	    /**< rtmax/wtmax announced by FSINFO (the transport's limit) */
	uint8_t *read_buf;	    /**< max_io bytes: READ's data */
	struct nfs_dirent *dirents; /**< READDIR(PLUS) entries */
	uint32_t max_dirents;
	char *names; /**< their names */
	uint32_t names_cap;
	struct nfs3_stats st;
};

/** Set up a server's scratch space. @return 0 or -ENOMEM */
int nfs3_server_init(struct nfs3_server *s, struct nfs_fs *fs, uint32_t max_io);
void nfs3_server_fini(struct nfs3_server *s);

/** Index of an NFS status in nfs3_stats.status (0 = NFS3_OK). */
uint32_t nfs3_stat_slot(enum nfs_stat st);

#endif /* NFS3_SVC_H */
