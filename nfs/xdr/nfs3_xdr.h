/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_xdr.h - NFSv3 (RFC 1813 §3.3) arguments and results of all 22 procedures as libtirpc
 * XDR routines, both directions: the server decodes arguments and encodes results, droce's
 * client encodes arguments and decodes results. Every routine is an xdrproc_t
 * (bool_t xdr_nfs3_x(XDR *, struct nfs3_x *)) that looks at xdrs->x_op; XDR_FREE does
 * nothing, as nothing is ever allocated.
 *
 * The structs reuse the backend's types (nfs_fs.h) and stay small (≤ ORPC_MAX_ARGS/RES,
 * 1024 bytes): results are flat structs whose status says which fields go on the wire (the
 * RFC's resok arm, or the resfail arm with its post-op attributes / wcc data); arrays (READDIR
 * entries) are a pointer and a count owned by whoever fills the struct.
 *
 * Decoding allocates nothing and needs an xdrmem stream: filenames, symlink paths and READ /
 * WRITE data decode as (pointer, length) into the message buffer through xdr_inline, so the
 * decoded struct is valid only as long as that buffer. Names and paths are NOT NUL-terminated.
 *
 * Decoder limits (a violation fails the decode: GARBAGE_ARGS on the server):
 * - nfs_fh3: at most NFS_FH_MAX (64) bytes;
 * - filename3 and nfspath3: at most NFS3_NAME_DECODE_MAX (1024) bytes; names of 256..1024
 *   bytes decode, and the handler answers NFS3ERR_NAMETOOLONG (knfsd does the same);
 * - READ/WRITE data: at most NFS3_DATA_MAX bytes, and wholly inside the buffer;
 * - bool: 0 or 1; stable_how, createmode3 and time_how: the RFC's values (no default arm);
 * - READDIR(PLUS) replies (client side): at most res->cap entries;
 * XDR padding bytes are skipped unread, as knfsd does; encoders write them as zeros.
 *
 * WRITE: count and the data opaque's length are decoded both (count, data_len); RFC 1813
 * says count is the number of bytes to write, knfsd refuses data shorter than count. The
 * handler compares them (droce answers NFS3ERR_INVAL when data_len < count, writes count).
 *
 * DDP (docs/rpc.md): READ3resok ends with its data opaque and READLINK3resok with its path
 * (proc.ddp_res), WRITE3args with its data and SYMLINK3args with its path.
 */
#ifndef NFS3_XDR_H
#define NFS3_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include "nfs_fs.h"

#define NFS3_PROGRAM 100003u
#define NFS3_VERSION 3u

#define NFS3_NAME_DECODE_MAX 1024u /**< filename3 / nfspath3 decode limit (NFS_PATH_MAX) */
#define NFS3_DATA_MAX (1u << 20)   /**< READ/WRITE data opaque limit (knfsd's max payload) */
#define NFS3_VERF_SIZE 8u	   /**< cookieverf3, createverf3, writeverf3 */

/** ACCESS3 bits (RFC 1813 §3.3.4) */
#define NFS3_ACCESS_READ 0x0001u
#define NFS3_ACCESS_LOOKUP 0x0002u
#define NFS3_ACCESS_MODIFY 0x0004u
#define NFS3_ACCESS_EXTEND 0x0008u
#define NFS3_ACCESS_DELETE 0x0010u
#define NFS3_ACCESS_EXECUTE 0x0020u

/** Procedure numbers and names from one list (RFC 1813 §3.3.0 .. §3.3.21). */
#define NFS3_PROC_LIST(X)                                                                          \
	X(NULL)                                                                                    \
	X(GETATTR)                                                                                 \
	X(SETATTR)                                                                                 \
	X(LOOKUP)                                                                                  \
	X(ACCESS)                                                                                  \
	X(READLINK)                                                                                \
	X(READ)                                                                                    \
	X(WRITE)                                                                                   \
	X(CREATE)                                                                                  \
	X(MKDIR)                                                                                   \
	X(SYMLINK)                                                                                 \
	X(MKNOD)                                                                                   \
	X(REMOVE)                                                                                  \
	X(RMDIR)                                                                                   \
	X(RENAME)                                                                                  \
	X(LINK)                                                                                    \
	X(READDIR)                                                                                 \
	X(READDIRPLUS)                                                                             \
	X(FSSTAT)                                                                                  \
	X(FSINFO)                                                                                  \
	X(PATHCONF)                                                                                \
	X(COMMIT)

#define NFS3_PROC_ENUM_(n) NFS3_PROC_##n,
enum nfs3_proc { NFS3_PROC_LIST(NFS3_PROC_ENUM_) NFS3_NPROCS };

/** "GETATTR", ...; "unknown" beyond COMMIT. */
const char *nfs3_proc_name(uint32_t proc);

/* ---- shared pieces ---- */

/** post_op_attr */
struct nfs3_post_attr {
	bool valid; /**< attributes_follow */
	struct nfs_attr attr;
};

/** post_op_fh3 */
struct nfs3_post_fh {
	bool valid; /**< handle_follows */
	struct nfs_fh fh;
};

/** diropargs3: a directory and a name in it (name points into the message). */
struct nfs3_diropargs {
	struct nfs_fh dir;
	const char *name; /**< not NUL-terminated */
	uint32_t namelen; /**< ≤ NFS3_NAME_DECODE_MAX on decode */
};

/* ---- arguments ---- */

/** GETATTR3args, READLINK3args, FSSTAT3args, FSINFO3args, PATHCONF3args: one handle. */
struct nfs3_fh_args {
	struct nfs_fh fh;
};

/** SETATTR3args */
struct nfs3_setattr_args {
	struct nfs_fh fh;
	struct nfs_sattr sattr;
	bool guard;		     /**< sattrguard3.check */
	struct nfs_time guard_ctime; /**< when guard */
};

/* LOOKUP3args, REMOVE3args, RMDIR3args: struct nfs3_diropargs */

/** ACCESS3args */
struct nfs3_access_args {
	struct nfs_fh fh;
	uint32_t access; /**< NFS3_ACCESS_* bits */
};

/** READ3args */
struct nfs3_read_args {
	struct nfs_fh fh;
	uint64_t offset;
	uint32_t count;
};

/** WRITE3args; data last (DDP). */
struct nfs3_write_args {
	struct nfs_fh fh;
	uint64_t offset;
	uint32_t count; /**< as sent: the handler checks it against data_len */
	enum nfs_stable stable;
	const uint8_t *data; /**< into the message */
	uint32_t data_len;   /**< the opaque's length, ≤ NFS3_DATA_MAX */
};

/** CREATE3args: sattr for UNCHECKED/GUARDED, verf for EXCLUSIVE. */
struct nfs3_create_args {
	struct nfs3_diropargs where;
	enum nfs_createmode mode;
	struct nfs_sattr sattr;
	uint8_t verf[NFS3_VERF_SIZE];
};

/** MKDIR3args */
struct nfs3_mkdir_args {
	struct nfs3_diropargs where;
	struct nfs_sattr sattr;
};

/** SYMLINK3args */
struct nfs3_symlink_args {
	struct nfs3_diropargs where;
	struct nfs_sattr sattr;
	const char *path; /**< symlink_data, into the message, not NUL-terminated */
	uint32_t pathlen; /**< ≤ NFS3_NAME_DECODE_MAX on decode */
};

/** MKNOD3args: CHR/BLK carry sattr and rdev, SOCK/FIFO sattr, any other type nothing (the
 * handler answers NFS3ERR_BADTYPE; the decoder keeps the number as it came). */
struct nfs3_mknod_args {
	struct nfs3_diropargs where;
	enum nfs_ftype type;
	struct nfs_sattr sattr;
	uint32_t rdev_major, rdev_minor; /**< specdata3, CHR/BLK */
};

/** RENAME3args */
struct nfs3_rename_args {
	struct nfs3_diropargs from, to;
};

/** LINK3args */
struct nfs3_link_args {
	struct nfs_fh fh;
	struct nfs3_diropargs link;
};

/** READDIR3args */
struct nfs3_readdir_args {
	struct nfs_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[NFS3_VERF_SIZE];
	uint32_t count;
};

/** READDIRPLUS3args */
struct nfs3_readdirplus_args {
	struct nfs_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[NFS3_VERF_SIZE];
	uint32_t dircount, maxcount;
};

/** COMMIT3args */
struct nfs3_commit_args {
	struct nfs_fh fh;
	uint64_t offset;
	uint32_t count;
};

/* ---- results: status, then the fields of the arm it selects ("ok:" only when NFS_OK) ---- */

/** GETATTR3res */
struct nfs3_getattr_res {
	enum nfs_stat status;
	struct nfs_attr attr; /**< ok: obj_attributes */
};

/** SETATTR3res, REMOVE3res, RMDIR3res: wcc_data in both arms. */
struct nfs3_wcc_res {
	enum nfs_stat status;
	struct nfs_wcc wcc; /**< obj_wcc (SETATTR) or dir_wcc (REMOVE, RMDIR) */
};

/** LOOKUP3res */
struct nfs3_lookup_res {
	enum nfs_stat status;
	struct nfs_fh fh;		/**< ok: object */
	struct nfs3_post_attr obj_attr; /**< ok: obj_attributes */
	struct nfs3_post_attr dir_attr; /**< both arms */
};

/** ACCESS3res */
struct nfs3_access_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	uint32_t access;	    /**< ok */
};

/** READLINK3res */
struct nfs3_readlink_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	const char *path;	    /**< ok: data (the handler's buffer / the message) */
	uint32_t pathlen;	    /**< ok, ≤ NFS3_NAME_DECODE_MAX */
};

/** READ3res; data last (DDP: the handler sets req->ddp_len = data_len). */
struct nfs3_read_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	uint32_t count;		    /**< ok */
	bool eof;		    /**< ok */
	const uint8_t *data;	    /**< ok: the handler's buffer / the message */
	uint32_t data_len;	    /**< ok: the opaque's length, ≤ NFS3_DATA_MAX */
	/** encode only: the data is already where the transport sends DDP data from
	 * (orpc_req.ddp_placed): the opaque's length ends the results, its bytes are left out */
	bool placed;
};

/** WRITE3res */
struct nfs3_write_res {
	enum nfs_stat status;
	struct nfs_wcc wcc;	      /**< both arms: file_wcc */
	uint32_t count;		      /**< ok */
	enum nfs_stable committed;    /**< ok */
	uint8_t verf[NFS3_VERF_SIZE]; /**< ok */
};

/** CREATE3res, MKDIR3res, SYMLINK3res, MKNOD3res */
struct nfs3_create_res {
	enum nfs_stat status;
	struct nfs3_post_fh fh;	    /**< ok: obj */
	struct nfs3_post_attr attr; /**< ok: obj_attributes */
	struct nfs_wcc dir_wcc;	    /**< both arms */
};

/** RENAME3res */
struct nfs3_rename_res {
	enum nfs_stat status;
	struct nfs_wcc from_wcc, to_wcc; /**< both arms */
};

/** LINK3res */
struct nfs3_link_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms: file_attributes */
	struct nfs_wcc dir_wcc;	    /**< both arms: linkdir_wcc */
};

/**
 * READDIR3res and READDIRPLUS3res (one struct; xdr_nfs3_readdir_res ignores the entries' fh
 * and attr, xdr_nfs3_readdirplus_res sends them as post_op_fh3 / post_op_attr).
 * Encode: entries[0..count) as filled by the handler (names in its buffer).
 * Decode (client): set entries and cap before decoding; names point into the message; more
 * than cap entries fail the decode.
 */
struct nfs3_readdir_res {
	enum nfs_stat status;
	struct nfs3_post_attr dir_attr;	    /**< both arms */
	uint8_t cookieverf[NFS3_VERF_SIZE]; /**< ok */
	struct nfs_dirent *entries;	    /**< ok */
	uint32_t count;			    /**< ok: entries on the wire */
	uint32_t cap;			    /**< decode: room in entries */
	bool eof;			    /**< ok */
};

/** FSSTAT3res */
struct nfs3_fsstat_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	struct nfs_fsstat st;	    /**< ok */
};

/** FSINFO3res */
struct nfs3_fsinfo_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	struct nfs_fsinfo fi;	    /**< ok */
};

/** PATHCONF3res */
struct nfs3_pathconf_res {
	enum nfs_stat status;
	struct nfs3_post_attr attr; /**< both arms */
	struct nfs_pathconf pc;	    /**< ok */
};

/** COMMIT3res */
struct nfs3_commit_res {
	enum nfs_stat status;
	struct nfs_wcc wcc;	      /**< both arms: file_wcc */
	uint8_t verf[NFS3_VERF_SIZE]; /**< ok */
};

/* ---- XDR routines: bool_t f(XDR *, struct *), for encode and decode ---- */

bool_t xdr_nfs3_fh(XDR *xdrs, struct nfs_fh *fh);
bool_t xdr_nfs3_fattr(XDR *xdrs, struct nfs_attr *a);
bool_t xdr_nfs3_post_attr(XDR *xdrs, struct nfs3_post_attr *p);
bool_t xdr_nfs3_post_fh(XDR *xdrs, struct nfs3_post_fh *p);
bool_t xdr_nfs3_wcc(XDR *xdrs, struct nfs_wcc *w);
bool_t xdr_nfs3_sattr(XDR *xdrs, struct nfs_sattr *s);
bool_t xdr_nfs3_diropargs(XDR *xdrs, struct nfs3_diropargs *d);

bool_t xdr_nfs3_fh_args(XDR *xdrs, struct nfs3_fh_args *p);
bool_t xdr_nfs3_setattr_args(XDR *xdrs, struct nfs3_setattr_args *p);
bool_t xdr_nfs3_access_args(XDR *xdrs, struct nfs3_access_args *p);
bool_t xdr_nfs3_read_args(XDR *xdrs, struct nfs3_read_args *p);
bool_t xdr_nfs3_write_args(XDR *xdrs, struct nfs3_write_args *p);
bool_t xdr_nfs3_create_args(XDR *xdrs, struct nfs3_create_args *p);
bool_t xdr_nfs3_mkdir_args(XDR *xdrs, struct nfs3_mkdir_args *p);
bool_t xdr_nfs3_symlink_args(XDR *xdrs, struct nfs3_symlink_args *p);
bool_t xdr_nfs3_mknod_args(XDR *xdrs, struct nfs3_mknod_args *p);
bool_t xdr_nfs3_rename_args(XDR *xdrs, struct nfs3_rename_args *p);
bool_t xdr_nfs3_link_args(XDR *xdrs, struct nfs3_link_args *p);
bool_t xdr_nfs3_readdir_args(XDR *xdrs, struct nfs3_readdir_args *p);
bool_t xdr_nfs3_readdirplus_args(XDR *xdrs, struct nfs3_readdirplus_args *p);
bool_t xdr_nfs3_commit_args(XDR *xdrs, struct nfs3_commit_args *p);

bool_t xdr_nfs3_getattr_res(XDR *xdrs, struct nfs3_getattr_res *p);
bool_t xdr_nfs3_wcc_res(XDR *xdrs, struct nfs3_wcc_res *p);
bool_t xdr_nfs3_lookup_res(XDR *xdrs, struct nfs3_lookup_res *p);
bool_t xdr_nfs3_access_res(XDR *xdrs, struct nfs3_access_res *p);
bool_t xdr_nfs3_readlink_res(XDR *xdrs, struct nfs3_readlink_res *p);
bool_t xdr_nfs3_read_res(XDR *xdrs, struct nfs3_read_res *p);
bool_t xdr_nfs3_write_res(XDR *xdrs, struct nfs3_write_res *p);
bool_t xdr_nfs3_create_res(XDR *xdrs, struct nfs3_create_res *p);
bool_t xdr_nfs3_rename_res(XDR *xdrs, struct nfs3_rename_res *p);
bool_t xdr_nfs3_link_res(XDR *xdrs, struct nfs3_link_res *p);
bool_t xdr_nfs3_readdir_res(XDR *xdrs, struct nfs3_readdir_res *p);
bool_t xdr_nfs3_readdirplus_res(XDR *xdrs, struct nfs3_readdir_res *p);
bool_t xdr_nfs3_fsstat_res(XDR *xdrs, struct nfs3_fsstat_res *p);
bool_t xdr_nfs3_fsinfo_res(XDR *xdrs, struct nfs3_fsinfo_res *p);
bool_t xdr_nfs3_pathconf_res(XDR *xdrs, struct nfs3_pathconf_res *p);
bool_t xdr_nfs3_commit_res(XDR *xdrs, struct nfs3_commit_res *p);

/**
 * Each procedure's XDR routines and struct sizes, indexed by enum nfs3_proc: the data an
 * orpc_proc row is built from (NULL: xdr_void, sizes 0). ddp_res is true for READ and READLINK.
 */
struct nfs3_xdr_proc {
	const char *name;
	xdrproc_t xdr_args;
	uint32_t args_size;
	xdrproc_t xdr_res;
	uint32_t res_size;
	bool ddp_res;
};
extern const struct nfs3_xdr_proc nfs3_xdr_procs[NFS3_NPROCS];

/* ---- encoded sizes, for handlers that must fit a client's count / maxcount ---- */

#define NFS3_FATTR_XDR_SIZE 84u	   /**< fattr3 */
#define NFS3_WCC_ATTR_XDR_SIZE 24u /**< wcc_attr: size3 + 2 nfstime3 */

/** post_op_attr: 4, plus fattr3 when valid */
static inline uint32_t nfs3_post_attr_xdr_size(bool valid)
{
	return 4u + (valid ? NFS3_FATTR_XDR_SIZE : 0u);
}

/** READDIR3resok without its entries: dir_attributes, cookieverf, the list's final
 * "no more entries" word and eof (the status word before it is not part of resok). */
#define NFS3_READDIR_RESOK_FIXED 20u /**< with dir_attributes absent; + 84 when present */

static inline uint32_t nfs3_readdir_resok_overhead(bool dir_attr_valid)
{
	return NFS3_READDIR_RESOK_FIXED + (dir_attr_valid ? NFS3_FATTR_XDR_SIZE : 0u);
}

/** One entry3 on the wire: value_follows, fileid, name<>, cookie. */
uint32_t nfs3_readdir_entry_xdr_size(uint32_t namelen);

/** One entryplus3 on the wire: entry3's words plus post_op_attr and post_op_fh3. */
uint32_t nfs3_readdirplus_entry_xdr_size(uint32_t namelen, bool fh_valid, uint32_t fh_len,
					 bool attr_valid);

/** Exact encoded size of a READDIR3resok / READDIRPLUS3resok (no status word):
 * overhead + every entry's size. Equals what xdr_nfs3_readdir(plus)_res writes minus 4. */
uint32_t nfs3_readdir_resok_xdr_size(const struct nfs3_readdir_res *r, bool plus);

#endif /* NFS3_XDR_H */
