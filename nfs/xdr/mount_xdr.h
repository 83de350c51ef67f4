/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mount_xdr.h - the MOUNT protocol's arguments and results as libtirpc XDR routines, both
 * directions: version 3 (RFC 1813 Appendix I) and version 1 (RFC 1094 Appendix A), which
 * differ only in MNT's reply (v1: fhstatus with a fixed 32-byte fhandle; v3: mountres3 with
 * an fhandle3 of up to 64 bytes and the accepted auth flavors).
 *
 * As in nfs3_xdr.h: every routine is an xdrproc_t that looks at xdrs->x_op, XDR_FREE does
 * nothing, decoding allocates nothing (strings are (pointer, length) into the message, through
 * xdr_inline on an xdrmem stream, not NUL-terminated), and the XDR linked lists (mountlist,
 * exports, groups) are arrays: a pointer and a count filled by the caller to encode, and a
 * caller-provided array with its capacity to decode into (more entries than that fail).
 *
 * Decoder limits: dirpath ≤ NFS_MNT_PATH_MAX (1024), name ≤ NFS_MNT_NAME_MAX (255),
 * fhandle3 ≤ 64, auth_flavors ≤ NFS_MNT_FLAVORS_MAX, list lengths ≤ the caller's capacity,
 * list discriminants 0 or 1.
 */
#ifndef MOUNT_XDR_H
#define MOUNT_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include "nfs_fs.h"

#define NFS_MNT_PROGRAM 100005u
#define NFS_MNT_V1 1u
#define NFS_MNT_V3 3u

#define NFS_MNT_PATH_MAX 1024u	/**< MNTPATHLEN */
#define NFS_MNT_NAME_MAX 255u	/**< MNTNAMLEN */
#define NFS_MNT_V1_FHSIZE 32u	/**< FHSIZE: v1's fixed fhandle */
#define NFS_MNT_FLAVORS_MAX 16u /**< auth_flavors kept inline */

/** Procedure numbers and names (the same in v1 and v3). */
#define NFS_MNT_PROC_LIST(X)                                                                       \
	X(NULL)                                                                                    \
	X(MNT)                                                                                     \
	X(DUMP)                                                                                    \
	X(UMNT)                                                                                    \
	X(UMNTALL)                                                                                 \
	X(EXPORT)

#define NFS_MNT_PROC_ENUM_(n) NFS_MNT_PROC_##n,
enum nfs_mnt_proc { NFS_MNT_PROC_LIST(NFS_MNT_PROC_ENUM_) NFS_MNT_NPROCS };

const char *nfs_mnt_proc_name(uint32_t proc);

/** mountstat3 (v3); v1's fhstatus carries a Unix errno in the same word. */
enum nfs_mnt_stat {
	NFS_MNT3_OK = 0,
	NFS_MNT3_ERR_PERM = 1,
	NFS_MNT3_ERR_NOENT = 2,
	NFS_MNT3_ERR_IO = 5,
	NFS_MNT3_ERR_ACCES = 13,
	NFS_MNT3_ERR_NOTDIR = 20,
	NFS_MNT3_ERR_INVAL = 22,
	NFS_MNT3_ERR_NAMETOOLONG = 63,
	NFS_MNT3_ERR_NOTSUPP = 10004,
	NFS_MNT3_ERR_SERVERFAULT = 10006,
};

/** A string into the message (decode) or the caller's storage (encode). */
struct nfs_mnt_str {
	const char *s; /**< not NUL-terminated */
	uint32_t len;
};

/** MNT and UMNT arguments: dirpath. */
struct nfs_mnt_dirpath {
	struct nfs_mnt_str path; /**< ≤ NFS_MNT_PATH_MAX */
};

/** MNT v3 reply: mountres3. */
struct nfs_mnt_res3 {
	uint32_t status;   /**< enum nfs_mnt_stat */
	struct nfs_fh fh;  /**< ok: fhandle3, ≤ 64 bytes */
	uint32_t nflavors; /**< ok: auth_flavors */
	uint32_t flavors[NFS_MNT_FLAVORS_MAX];
};

/** MNT v1 reply: fhstatus. The fhandle is 32 bytes on the wire: fh.len < 32 is sent
 * zero-padded, fh.len > 32 fails the encode; a decoded one has len 32. */
struct nfs_mnt_res1 {
	uint32_t status;  /**< 0 or a Unix errno */
	struct nfs_fh fh; /**< ok */
};

/** mountbody: one line of DUMP's mountlist. */
struct nfs_mnt_mount {
	struct nfs_mnt_str host; /**< ml_hostname, ≤ NFS_MNT_NAME_MAX */
	struct nfs_mnt_str dir;	 /**< ml_directory, ≤ NFS_MNT_PATH_MAX */
};

/** DUMP reply: mountlist. */
struct nfs_mnt_dump_res {
	struct nfs_mnt_mount *mounts;
	uint32_t count;
	uint32_t cap; /**< decode: room in mounts */
};

/** exportnode: a directory and its groups (client names); groups point into the caller's
 * storage to encode, into nfs_mnt_export_res.groups once decoded. */
struct nfs_mnt_export {
	struct nfs_mnt_str dir; /**< ex_dir, ≤ NFS_MNT_PATH_MAX */
	struct nfs_mnt_str *groups;
	uint32_t ngroups; /**< gr_name each ≤ NFS_MNT_NAME_MAX */
};

/** EXPORT reply: exports. Decoding fills exports[0..count) and puts every export's groups
 * one after the other in groups[0..ngroups_total). */
struct nfs_mnt_export_res {
	struct nfs_mnt_export *exports;
	uint32_t count;
	uint32_t cap; /**< decode: room in exports */
	struct nfs_mnt_str *groups;
	uint32_t ngroups_total; /**< decode: groups used */
	uint32_t groups_cap;	/**< decode: room in groups */
};

bool_t xdr_nfs_mnt_dirpath(XDR *xdrs, struct nfs_mnt_dirpath *p);
bool_t xdr_nfs_mnt_res3(XDR *xdrs, struct nfs_mnt_res3 *p);
bool_t xdr_nfs_mnt_res1(XDR *xdrs, struct nfs_mnt_res1 *p);
bool_t xdr_nfs_mnt_dump_res(XDR *xdrs, struct nfs_mnt_dump_res *p);
bool_t xdr_nfs_mnt_export_res(XDR *xdrs, struct nfs_mnt_export_res *p);

/** One procedure's XDR routines and struct sizes (NULL, UMNTALL and UMNT's result:
 * xdr_void, size 0). */
struct nfs_mnt_xdr_proc {
	const char *name;
	xdrproc_t xdr_args;
	uint32_t args_size;
	xdrproc_t xdr_res;
	uint32_t res_size;
};
/** Indexed by enum nfs_mnt_proc: version 3, and version 1 (MNT answers fhstatus). */
extern const struct nfs_mnt_xdr_proc nfs_mnt_xdr_procs_v3[NFS_MNT_NPROCS];
extern const struct nfs_mnt_xdr_proc nfs_mnt_xdr_procs_v1[NFS_MNT_NPROCS];

#endif /* MOUNT_XDR_H */
