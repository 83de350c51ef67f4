/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_int.h - what nfs/nfs4's files share: the operation table's row, the compound's state
 * (current and saved file handles, the session and slot), the server object, the pseudo file
 * system, and each handler. Unit tests include it.
 */
#ifndef NFS4_INT_H
#define NFS4_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4_state.h"
#include "nfs4_svc.h"
#include "nfs4_xdr.h"
#include "nfs_fs.h"

#define NFS4_MAX_OPS 64u	/**< operations decoded per compound (ca_maxoperations) */
#define NFS4_ATTRVALS_MAX 4096u /**< attrlist4 bytes (GETATTR) */
#define NFS4_PSEUDO_MAX 256u	/**< pseudo file system nodes */
#define NFS4_PSEUDO_FSID_MAJOR 0x70736575ull /**< "pseu": the pseudo file system's fsid */

/* ---- the pseudo file system (nfs4_pseudo.c) ---- */

/** A directory on the way to an export, or an export's root (then the handle is real). */
struct nfs4_pnode {
	uint64_t id;   /**< FNV-1a of its path: its handle and its fileid */
	uint32_t exp;  /**< the export whose path it is a prefix of (nfs_fs_export index) */
	uint32_t plen; /**< prefix length of that path ("/": 0) */
	int32_t parent;
	bool is_export;
};

struct nfs4_pseudo {
	uint32_t n;
	struct nfs4_pnode node[NFS4_PSEUDO_MAX];
};

/** Build from the exports in force. Node 0 is "/". */
void nfs4_pseudo_build(struct nfs4_pseudo *p, const struct nfs_fs *fs);
/** The node of id, or -1. */
int32_t nfs4_pseudo_find(const struct nfs4_pseudo *p, uint64_t id);
/** The child of node dir named name, or -1. */
int32_t nfs4_pseudo_child(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t dir,
			  const char *name, uint32_t len);
/** The node whose path is path (an export's), or -1. */
int32_t nfs4_pseudo_by_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, const char *path);
/** Whether the node is reached through an export's own tree (it or an ancestor is an
 * export): then its handle is the backend's. */
bool nfs4_pseudo_in_export(const struct nfs4_pseudo *p, int32_t i);
/** Its path, NUL-terminated, into buf. */
void nfs4_pseudo_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t i, char *buf,
		      size_t cap);

/* ---- the compound ---- */

enum nfs4_fh_kind { NFS4_FH_NONE = 0, NFS4_FH_PSEUDO, NFS4_FH_REAL };

/** A current or saved file handle. */
struct nfs4_cfh {
	enum nfs4_fh_kind kind;
	uint64_t pid; /**< NFS4_FH_PSEUDO: the node's id */
	struct nfs_fh fh;
};

#define NFS4_PFH_LEN 12u /**< a pseudo handle: 0x80 'p' '4' 0, then the id (big-endian) */

/** The wire form of h into out (≤ NFS4_FHSIZE). @return its length */
uint32_t nfs4_fh_encode(const struct nfs4_cfh *h, uint8_t *out);

struct nfs4_server;

struct nfs4_compound {
	struct nfs4_server *s;
	struct nfs_ctx *ctx;
	uint32_t minor;
	uint32_t numops, opidx;
	struct nfs4_cfh cur, saved;
	struct nfs4_session *sess; /**< the compound's (SEQUENCE), or NULL */
	struct nfs4_slot *slot;
	bool pseudo_built;	    /**< the server's pseudo tree is built for this compound */
	uint8_t fhbuf[NFS4_FHSIZE]; /**< GETFH's result */
};

typedef uint32_t (*nfs4_handler_t)(struct nfs4_compound *c, union nfs4_op_args *a,
				   union nfs4_op_resok *r);

/* operation flags */
#define NFS4_OPF_NO_SEQ 0x1u	    /**< may come first in a compound without SEQUENCE (alone) */
#define NFS4_OPF_CURFH 0x2u	    /**< needs a current file handle (NOFILEHANDLE) */
#define NFS4_OPF_MINOR2 0x4u	    /**< defined from minor version 2 on (4.1: OP_ILLEGAL) */
#define NFS4_OPF_NEEDS_SESSION 0x8u /**< uses the compound's session (RECLAIM_COMPLETE) */

/** One row of the operation table. */
struct nfs4_op_desc {
	const char *name;
	nfs4_xargs_t xargs; /**< NULL: not decoded (served: never; NOTSUPP) */
	nfs4_xres_t xres;   /**< NULL: status only */
	nfs4_handler_t fn;  /**< NULL: NFS4ERR_NOTSUPP */
	uint32_t flags;
};

/** The row of op (3..NFS4_OP_LAST), or NULL for an undefined number. */
const struct nfs4_op_desc *nfs4_op_desc(uint32_t op);

/** Void arguments (GETFH, PUTROOTFH, ...). */
bool_t nfs4_xdr_void_args(XDR *x, union nfs4_op_args *a);

struct nfs4_server {
	struct nfs_fs *fs;
	struct nfs4_server_conf conf;
	struct nfs4_state *st;
	uint64_t (*now_ns)(void);
	uint8_t *reply; /**< conf.max_resp bytes: the reply being built */
	uint8_t attrbuf[NFS4_ATTRVALS_MAX];
	struct nfs4_pseudo pseudo;
	union nfs4_op_args args[NFS4_MAX_OPS];
	uint32_t ops[NFS4_MAX_OPS];
	int64_t boot_sec; /**< wall clock at start: the pseudo file system's times */
	uint64_t last_sweep_ns;
	struct nfs4_stats stats;
};

/* handlers: sessions (nfs4_ops.c) */
uint32_t nfs4_op_exchange_id(struct nfs4_compound *c, union nfs4_op_args *a,
			     union nfs4_op_resok *r);
uint32_t nfs4_op_create_session(struct nfs4_compound *c, union nfs4_op_args *a,
				union nfs4_op_resok *r);
uint32_t nfs4_op_destroy_session(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r);
uint32_t nfs4_op_destroy_clientid(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r);
uint32_t nfs4_op_bind_conn(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_reclaim_complete(struct nfs4_compound *c, union nfs4_op_args *a,
				  union nfs4_op_resok *r);

/* handlers: the namespace (nfs4_ns.c) */
uint32_t nfs4_op_putrootfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_putfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_getfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_savefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_restorefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_lookup(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_lookupp(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_access(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
uint32_t nfs4_op_secinfo_no_name(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r);

/* handlers: attributes (nfs4_attr.c) */
uint32_t nfs4_op_getattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r);
/** The attributes served (supported_attrs). */
void nfs4_supported_attrs(struct nfs4_bitmap *b);

/** A backend status as nfsstat4. */
uint32_t nfs4_stat_from_nfs(enum nfs_stat s);
/** The pseudo file system of this compound (built on first need). */
struct nfs4_pseudo *nfs4_compound_pseudo(struct nfs4_compound *c);

#endif /* NFS4_INT_H */
