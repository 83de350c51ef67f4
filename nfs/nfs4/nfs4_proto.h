/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_proto.h - NFSv4.1/4.2 protocol numbers as data: the operation list (RFC 8881 §16.2.3,
 * RFC 7862 §11.2, RFC 8276 §8), the status codes (RFC 8881 §15.1), the attribute numbers
 * (RFC 8881 §5.6, §5.7) and the flag words of EXCHANGE_ID, CREATE_SESSION and SEQUENCE.
 * Names and enums come from one X-macro list each, so they cannot drift apart.
 */
#ifndef NFS4_PROTO_H
#define NFS4_PROTO_H

#include <stdint.h>

#define NFS4_PROGRAM 100003u
#define NFS4_VERSION 4u
#define NFS4_PROC_NULL 0u
#define NFS4_PROC_COMPOUND 1u

#define NFS4_FHSIZE 128u	   /**< nfs_fh4's limit */
#define NFS4_VERIFIER_SIZE 8u	   /**< verifier4 */
#define NFS4_SESSIONID_SIZE 16u	   /**< sessionid4 */
#define NFS4_OPAQUE_LIMIT 1024u	   /**< co_ownerid, so_major_id, server scope */
#define NFS4_TAG_MAX 1024u	   /**< utf8str_cs tag: what we decode */
#define NFS4_NAME_DECODE_MAX 1024u /**< component4 decoded; > NFS_NAME_MAX is NAMETOOLONG */

/*
 * Operations: X(name, number). The numbers are the protocol's; every number from 3 to
 * NFS4_OP_LAST is defined (by 4.0, 4.1, 4.2 or RFC 8276), anything else is OP_ILLEGAL.
 */
#define NFS4_OP_LIST(X)                                                                            \
	X(ACCESS, 3)                                                                               \
	X(CLOSE, 4)                                                                                \
	X(COMMIT, 5)                                                                               \
	X(CREATE, 6)                                                                               \
	X(DELEGPURGE, 7)                                                                           \
	X(DELEGRETURN, 8)                                                                          \
	X(GETATTR, 9)                                                                              \
	X(GETFH, 10)                                                                               \
	X(LINK, 11)                                                                                \
	X(LOCK, 12)                                                                                \
	X(LOCKT, 13)                                                                               \
	X(LOCKU, 14)                                                                               \
	X(LOOKUP, 15)                                                                              \
	X(LOOKUPP, 16)                                                                             \
	X(NVERIFY, 17)                                                                             \
	X(OPEN, 18)                                                                                \
	X(OPENATTR, 19)                                                                            \
	X(OPEN_CONFIRM, 20)                                                                        \
	X(OPEN_DOWNGRADE, 21)                                                                      \
	X(PUTFH, 22)                                                                               \
	X(PUTPUBFH, 23)                                                                            \
	X(PUTROOTFH, 24)                                                                           \
	X(READ, 25)                                                                                \
	X(READDIR, 26)                                                                             \
	X(READLINK, 27)                                                                            \
	X(REMOVE, 28)                                                                              \
	X(RENAME, 29)                                                                              \
	X(RENEW, 30)                                                                               \
	X(RESTOREFH, 31)                                                                           \
	X(SAVEFH, 32)                                                                              \
	X(SECINFO, 33)                                                                             \
	X(SETATTR, 34)                                                                             \
	X(SETCLIENTID, 35)                                                                         \
	X(SETCLIENTID_CONFIRM, 36)                                                                 \
	X(VERIFY, 37)                                                                              \
	X(WRITE, 38)                                                                               \
	X(RELEASE_LOCKOWNER, 39)                                                                   \
	X(BACKCHANNEL_CTL, 40)                                                                     \
	X(BIND_CONN_TO_SESSION, 41)                                                                \
	X(EXCHANGE_ID, 42)                                                                         \
	X(CREATE_SESSION, 43)                                                                      \
	X(DESTROY_SESSION, 44)                                                                     \
	X(FREE_STATEID, 45)                                                                        \
	X(GET_DIR_DELEGATION, 46)                                                                  \
	X(GETDEVICEINFO, 47)                                                                       \
	X(GETDEVICELIST, 48)                                                                       \
	X(LAYOUTCOMMIT, 49)                                                                        \
	X(LAYOUTGET, 50)                                                                           \
	X(LAYOUTRETURN, 51)                                                                        \
	X(SECINFO_NO_NAME, 52)                                                                     \
	X(SEQUENCE, 53)                                                                            \
	X(SET_SSV, 54)                                                                             \
	X(TEST_STATEID, 55)                                                                        \
	X(WANT_DELEGATION, 56)                                                                     \
	X(DESTROY_CLIENTID, 57)                                                                    \
	X(RECLAIM_COMPLETE, 58)                                                                    \
	X(ALLOCATE, 59)                                                                            \
	X(COPY, 60)                                                                                \
	X(COPY_NOTIFY, 61)                                                                         \
	X(DEALLOCATE, 62)                                                                          \
	X(IO_ADVISE, 63)                                                                           \
	X(LAYOUTERROR, 64)                                                                         \
	X(LAYOUTSTATS, 65)                                                                         \
	X(OFFLOAD_CANCEL, 66)                                                                      \
	X(OFFLOAD_STATUS, 67)                                                                      \
	X(READ_PLUS, 68)                                                                           \
	X(SEEK, 69)                                                                                \
	X(WRITE_SAME, 70)                                                                          \
	X(CLONE, 71)                                                                               \
	X(GETXATTR, 72)                                                                            \
	X(SETXATTR, 73)                                                                            \
	X(LISTXATTRS, 74)                                                                          \
	X(REMOVEXATTR, 75)

#define NFS4_OP_ENUM_(n, v) NFS4_OP_##n = v,
/** An operation number (nfs_opnum4). */
enum nfs4_op { NFS4_OP_LIST(NFS4_OP_ENUM_) NFS4_OP_ILLEGAL = 10044 };

#define NFS4_OP_FIRST 3u
#define NFS4_OP_LAST_41 58u /**< RECLAIM_COMPLETE: 4.1's last */
#define NFS4_OP_LAST 75u    /**< REMOVEXATTR (RFC 8276): 4.2's last */

/** The operation's name ("ACCESS"), "ILLEGAL" for anything undefined. */
const char *nfs4_op_name(uint32_t op);

/* Status codes: X(name, number) (RFC 8881 §15.1, nfsstat4). */
#define NFS4_STATUS_LIST(X)                                                                        \
	X(OK, 0)                                                                                   \
	X(PERM, 1)                                                                                 \
	X(NOENT, 2)                                                                                \
	X(IO, 5)                                                                                   \
	X(NXIO, 6)                                                                                 \
	X(ACCESS, 13)                                                                              \
	X(EXIST, 17)                                                                               \
	X(XDEV, 18)                                                                                \
	X(NOTDIR, 20)                                                                              \
	X(ISDIR, 21)                                                                               \
	X(INVAL, 22)                                                                               \
	X(FBIG, 27)                                                                                \
	X(NOSPC, 28)                                                                               \
	X(ROFS, 30)                                                                                \
	X(MLINK, 31)                                                                               \
	X(NAMETOOLONG, 63)                                                                         \
	X(NOTEMPTY, 66)                                                                            \
	X(DQUOT, 69)                                                                               \
	X(STALE, 70)                                                                               \
	X(BADHANDLE, 10001)                                                                        \
	X(BAD_COOKIE, 10003)                                                                       \
	X(NOTSUPP, 10004)                                                                          \
	X(TOOSMALL, 10005)                                                                         \
	X(SERVERFAULT, 10006)                                                                      \
	X(BADTYPE, 10007)                                                                          \
	X(DELAY, 10008)                                                                            \
	X(SAME, 10009)                                                                             \
	X(DENIED, 10010)                                                                           \
	X(EXPIRED, 10011)                                                                          \
	X(LOCKED, 10012)                                                                           \
	X(GRACE, 10013)                                                                            \
	X(FHEXPIRED, 10014)                                                                        \
	X(SHARE_DENIED, 10015)                                                                     \
	X(WRONGSEC, 10016)                                                                         \
	X(CLID_INUSE, 10017)                                                                       \
	X(RESOURCE, 10018)                                                                         \
	X(MOVED, 10019)                                                                            \
	X(NOFILEHANDLE, 10020)                                                                     \
	X(MINOR_VERS_MISMATCH, 10021)                                                              \
	X(STALE_CLIENTID, 10022)                                                                   \
	X(STALE_STATEID, 10023)                                                                    \
	X(OLD_STATEID, 10024)                                                                      \
	X(BAD_STATEID, 10025)                                                                      \
	X(BAD_SEQID, 10026)                                                                        \
	X(NOT_SAME, 10027)                                                                         \
	X(LOCK_RANGE, 10028)                                                                       \
	X(SYMLINK, 10029)                                                                          \
	X(RESTOREFH, 10030)                                                                        \
	X(LEASE_MOVED, 10031)                                                                      \
	X(ATTRNOTSUPP, 10032)                                                                      \
	X(NO_GRACE, 10033)                                                                         \
	X(RECLAIM_BAD, 10034)                                                                      \
	X(RECLAIM_CONFLICT, 10035)                                                                 \
	X(BADXDR, 10036)                                                                           \
	X(LOCKS_HELD, 10037)                                                                       \
	X(OPENMODE, 10038)                                                                         \
	X(BADOWNER, 10039)                                                                         \
	X(BADCHAR, 10040)                                                                          \
	X(BADNAME, 10041)                                                                          \
	X(BAD_RANGE, 10042)                                                                        \
	X(LOCK_NOTSUPP, 10043)                                                                     \
	X(OP_ILLEGAL, 10044)                                                                       \
	X(DEADLOCK, 10045)                                                                         \
	X(FILE_OPEN, 10046)                                                                        \
	X(ADMIN_REVOKED, 10047)                                                                    \
	X(CB_PATH_DOWN, 10048)                                                                     \
	X(BADIOMODE, 10049)                                                                        \
	X(BADLAYOUT, 10050)                                                                        \
	X(BAD_SESSION_DIGEST, 10051)                                                               \
	X(BADSESSION, 10052)                                                                       \
	X(BADSLOT, 10053)                                                                          \
	X(COMPLETE_ALREADY, 10054)                                                                 \
	X(CONN_NOT_BOUND_TO_SESSION, 10055)                                                        \
	X(DELEG_ALREADY_WANTED, 10056)                                                             \
	X(BACK_CHAN_BUSY, 10057)                                                                   \
	X(LAYOUTTRYLATER, 10058)                                                                   \
	X(LAYOUTUNAVAILABLE, 10059)                                                                \
	X(NOMATCHING_LAYOUT, 10060)                                                                \
	X(RECALLCONFLICT, 10061)                                                                   \
	X(UNKNOWN_LAYOUTTYPE, 10062)                                                               \
	X(SEQ_MISORDERED, 10063)                                                                   \
	X(SEQUENCE_POS, 10064)                                                                     \
	X(REQ_TOO_BIG, 10065)                                                                      \
	X(REP_TOO_BIG, 10066)                                                                      \
	X(REP_TOO_BIG_TO_CACHE, 10067)                                                             \
	X(RETRY_UNCACHED_REP, 10068)                                                               \
	X(UNSAFE_COMPOUND, 10069)                                                                  \
	X(TOO_MANY_OPS, 10070)                                                                     \
	X(OP_NOT_IN_SESSION, 10071)                                                                \
	X(HASH_ALG_UNSUPP, 10072)                                                                  \
	X(CLIENTID_BUSY, 10074)                                                                    \
	X(PNFS_IO_HOLE, 10075)                                                                     \
	X(SEQ_FALSE_RETRY, 10076)                                                                  \
	X(BAD_HIGH_SLOT, 10077)                                                                    \
	X(DEADSESSION, 10078)                                                                      \
	X(ENCR_ALG_UNSUPP, 10079)                                                                  \
	X(PNFS_NO_LAYOUT, 10080)                                                                   \
	X(NOT_ONLY_OP, 10081)                                                                      \
	X(WRONG_CRED, 10082)                                                                       \
	X(WRONG_TYPE, 10083)                                                                       \
	X(DIRDELEG_UNAVAIL, 10084)                                                                 \
	X(REJECT_DELEG, 10085)                                                                     \
	X(RETURNCONFLICT, 10086)                                                                   \
	X(DELEG_REVOKED, 10087)

#define NFS4_STATUS_ENUM_(n, v) NFS4ERR_##n = v,
/** nfsstat4 (NFS4_OK is NFS4ERR_OK). */
enum nfs4_stat { NFS4_STATUS_LIST(NFS4_STATUS_ENUM_) };
#define NFS4_OK NFS4ERR_OK

const char *nfs4_stat_name(uint32_t st);

#define NFS4_STATUS_SLOT_(n, v) NFS4_SI_##n,
/** Each listed status' index: the slots of the counters by status (nfs4_stats.status). */
enum nfs4_stat_slot { NFS4_STATUS_LIST(NFS4_STATUS_SLOT_) NFS4_NSTATUS };
/** The slot of a status; NFS4_NSTATUS for one that is not listed. */
uint32_t nfs4_stat_slot(uint32_t st);
/** The status in a slot below NFS4_NSTATUS. */
uint32_t nfs4_stat_of_slot(uint32_t slot);

/* Attributes (RFC 8881 §5.6 REQUIRED, §5.7 RECOMMENDED): the numbers served or named here. */
enum nfs4_attr {
	NFS4_A_SUPPORTED_ATTRS = 0,
	NFS4_A_TYPE = 1,
	NFS4_A_FH_EXPIRE_TYPE = 2,
	NFS4_A_CHANGE = 3,
	NFS4_A_SIZE = 4,
	NFS4_A_LINK_SUPPORT = 5,
	NFS4_A_SYMLINK_SUPPORT = 6,
	NFS4_A_NAMED_ATTR = 7,
	NFS4_A_FSID = 8,
	NFS4_A_UNIQUE_HANDLES = 9,
	NFS4_A_LEASE_TIME = 10,
	NFS4_A_RDATTR_ERROR = 11,
	NFS4_A_CANSETTIME = 15,
	NFS4_A_CASE_INSENSITIVE = 16,
	NFS4_A_CASE_PRESERVING = 17,
	NFS4_A_CHOWN_RESTRICTED = 18,
	NFS4_A_FILEHANDLE = 19,
	NFS4_A_FILEID = 20,
	NFS4_A_FILES_AVAIL = 21,
	NFS4_A_FILES_FREE = 22,
	NFS4_A_FILES_TOTAL = 23,
	NFS4_A_FS_LOCATIONS = 24,
	NFS4_A_HOMOGENEOUS = 26,
	NFS4_A_MAXFILESIZE = 27,
	NFS4_A_MAXLINK = 28,
	NFS4_A_MAXNAME = 29,
	NFS4_A_MAXREAD = 30,
	NFS4_A_MAXWRITE = 31,
	NFS4_A_MODE = 33,
	NFS4_A_NO_TRUNC = 34,
	NFS4_A_NUMLINKS = 35,
	NFS4_A_OWNER = 36,
	NFS4_A_OWNER_GROUP = 37,
	NFS4_A_RAWDEV = 41,
	NFS4_A_SPACE_AVAIL = 42,
	NFS4_A_SPACE_FREE = 43,
	NFS4_A_SPACE_TOTAL = 44,
	NFS4_A_SPACE_USED = 45,
	NFS4_A_TIME_ACCESS = 47,
	NFS4_A_TIME_ACCESS_SET = 48,
	NFS4_A_TIME_DELTA = 51,
	NFS4_A_TIME_METADATA = 52,
	NFS4_A_TIME_MODIFY = 53,
	NFS4_A_TIME_MODIFY_SET = 54,
	NFS4_A_MOUNTED_ON_FILEID = 55,
	NFS4_A_SUPPATTR_EXCLCREAT = 75,
	NFS4_A_NUM = 82, /**< bitmap bits we look at (three words; RFC 8276 adds 82) */
};

#define NFS4_BITMAP_WORDS                                                                          \
	3u /**< bitmap4 words kept; longer bitmaps decode, extra words
				are ignored when zero and their bits are unsupported */
#define NFS4_BITMAP_DECODE_MAX 8u

/* time_how4 (settime4) */
#define SET_TO_SERVER_TIME4 0u
#define SET_TO_CLIENT_TIME4 1u

/* nfs_ftype4 (RFC 8881 §3.3.10): 1..7 as NFSv3's ftype3 */
#define NF4ATTRDIR 8u
#define NF4NAMEDATTR 9u

/* EXCHANGE_ID flags (RFC 8881 §18.35.3) */
#define EXCHGID4_FLAG_SUPP_MOVED_REFER 0x00000001u
#define EXCHGID4_FLAG_SUPP_MOVED_MIGR 0x00000002u
#define EXCHGID4_FLAG_SUPP_FENCE_OPS 0x00000004u
#define EXCHGID4_FLAG_BIND_PRINC_STATEID 0x00000100u
#define EXCHGID4_FLAG_USE_NON_PNFS 0x00010000u
#define EXCHGID4_FLAG_USE_PNFS_MDS 0x00020000u
#define EXCHGID4_FLAG_USE_PNFS_DS 0x00040000u
#define EXCHGID4_FLAG_MASK_PNFS 0x00070000u
#define EXCHGID4_FLAG_UPD_CONFIRMED_REC_A 0x40000000u
#define EXCHGID4_FLAG_CONFIRMED_R 0x80000000u
/** The flags a client may send; any other bit is NFS4ERR_INVAL (as Linux's MASK_A). */
#define EXCHGID4_FLAG_MASK_A 0x40070103u

/* state_protect_how4 */
enum nfs4_sp_how { SP4_NONE = 0, SP4_MACH_CRED = 1, SP4_SSV = 2 };

/* CREATE_SESSION flags (RFC 8881 §18.36.3) */
#define CREATE_SESSION4_FLAG_PERSIST 0x1u
#define CREATE_SESSION4_FLAG_CONN_BACK_CHAN 0x2u
#define CREATE_SESSION4_FLAG_CONN_RDMA 0x4u

/* SEQUENCE sr_status_flags (RFC 8881 §18.46.3) */
#define SEQ4_STATUS_CB_PATH_DOWN 0x00000001u
#define SEQ4_STATUS_RECALLABLE_STATE_REVOKED 0x00000040u
#define SEQ4_STATUS_CB_PATH_DOWN_SESSION 0x00000200u
#define SEQ4_STATUS_BACKCHANNEL_FAULT 0x00000400u

/* BIND_CONN_TO_SESSION directions (RFC 8881 §18.34) */
enum nfs4_cdfc { CDFC4_FORE = 1, CDFC4_BACK = 2, CDFC4_FORE_OR_BOTH = 3, CDFC4_BACK_OR_BOTH = 7 };
enum nfs4_cdfs { CDFS4_FORE = 1, CDFS4_BACK = 2, CDFS4_BOTH = 3 };

/* ACCESS4 bits: NFSv3's (nfs3_xdr.h) */
#define ACCESS4_READ 0x01u
#define ACCESS4_LOOKUP 0x02u
#define ACCESS4_MODIFY 0x04u
#define ACCESS4_EXTEND 0x08u
#define ACCESS4_DELETE 0x10u
#define ACCESS4_EXECUTE 0x20u
#define ACCESS4_ALL 0x3fu

/* secinfo_style4 (RFC 8881 §18.45) */
enum nfs4_secinfo_style { SECINFO_STYLE4_CURRENT_FH = 0, SECINFO_STYLE4_PARENT = 1 };

#endif /* NFS4_PROTO_H */
