/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_stat.c - NFSv3 status codes: from errno, and their names, as one table.
 */
#include <errno.h>
#include <stddef.h>

#include "nfs_fs.h"

#define NFS_STAT_LIST(X)                                                                           \
	X(NFS_OK, "NFS3_OK", 0)                                                                    \
	X(NFS_ERR_PERM, "NFS3ERR_PERM", EPERM)                                                     \
	X(NFS_ERR_NOENT, "NFS3ERR_NOENT", ENOENT)                                                  \
	X(NFS_ERR_IO, "NFS3ERR_IO", EIO)                                                           \
	X(NFS_ERR_NXIO, "NFS3ERR_NXIO", ENXIO)                                                     \
	X(NFS_ERR_ACCES, "NFS3ERR_ACCES", EACCES)                                                  \
	X(NFS_ERR_EXIST, "NFS3ERR_EXIST", EEXIST)                                                  \
	X(NFS_ERR_XDEV, "NFS3ERR_XDEV", EXDEV)                                                     \
	X(NFS_ERR_NODEV, "NFS3ERR_NODEV", ENODEV)                                                  \
	X(NFS_ERR_NOTDIR, "NFS3ERR_NOTDIR", ENOTDIR)                                               \
	X(NFS_ERR_ISDIR, "NFS3ERR_ISDIR", EISDIR)                                                  \
	X(NFS_ERR_INVAL, "NFS3ERR_INVAL", EINVAL)                                                  \
	X(NFS_ERR_FBIG, "NFS3ERR_FBIG", EFBIG)                                                     \
	X(NFS_ERR_NOSPC, "NFS3ERR_NOSPC", ENOSPC)                                                  \
	X(NFS_ERR_ROFS, "NFS3ERR_ROFS", EROFS)                                                     \
	X(NFS_ERR_MLINK, "NFS3ERR_MLINK", EMLINK)                                                  \
	X(NFS_ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG", ENAMETOOLONG)                                \
	X(NFS_ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY", ENOTEMPTY)                                         \
	X(NFS_ERR_DQUOT, "NFS3ERR_DQUOT", EDQUOT)                                                  \
	X(NFS_ERR_STALE, "NFS3ERR_STALE", ESTALE)                                                  \
	X(NFS_ERR_REMOTE, "NFS3ERR_REMOTE", EREMOTE)                                               \
	X(NFS_ERR_BADHANDLE, "NFS3ERR_BADHANDLE", EBADF)                                           \
	X(NFS_ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC", -1)                                                \
	X(NFS_ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE", -1)                                            \
	X(NFS_ERR_NOTSUPP, "NFS3ERR_NOTSUPP", EOPNOTSUPP)                                          \
	X(NFS_ERR_TOOSMALL, "NFS3ERR_TOOSMALL", -1)                                                \
	X(NFS_ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT", -1)                                          \
	X(NFS_ERR_BADTYPE, "NFS3ERR_BADTYPE", -1)                                                  \
	X(NFS_ERR_JUKEBOX, "NFS3ERR_JUKEBOX", EAGAIN)

struct nfs_stat_row {
	enum nfs_stat stat;
	const char *name;
	int err;
};

#define NFS_STAT_ROW_(s, n, e) {s, n, e},
static const struct nfs_stat_row nfs_stat_table[] = {NFS_STAT_LIST(NFS_STAT_ROW_)};
#define NFS_STAT_ROWS (sizeof(nfs_stat_table) / sizeof(nfs_stat_table[0]))

enum nfs_stat nfs_stat_from_errno(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return NFS_OK;
	/* errnos with no NFSv3 code of their own, mapped as knfsd's nfserrno() does */
	switch (err) {
	case ELOOP:
		return NFS_ERR_ACCES; /* a symlink met with O_NOFOLLOW: the server never follows */
	case ENOTSUP:
		return NFS_ERR_NOTSUPP;
	case EFAULT:
	case ENOMEM:
		return NFS_ERR_SERVERFAULT;
	case ETXTBSY:
		return NFS_ERR_ACCES;
	case EOVERFLOW:
		return NFS_ERR_FBIG;
	case EBUSY:
		return NFS_ERR_ACCES;
	case ENOTTY:
		return NFS_ERR_NOTSUPP;
	default:
		break;
	}
	for (size_t i = 1; i < NFS_STAT_ROWS; i++)
		if (nfs_stat_table[i].err == err)
			return nfs_stat_table[i].stat;
	return NFS_ERR_IO;
}

const char *nfs_stat_name(enum nfs_stat s)
{
	for (size_t i = 0; i < NFS_STAT_ROWS; i++)
		if (nfs_stat_table[i].stat == s)
			return nfs_stat_table[i].name;
	return "NFS3ERR_unknown";
}

uint32_t nfs_lat_bucket(uint64_t ns)
{
	/* ns <= 2^i µs  <=>  ceil(ns / 1000) <= 2^i */
	uint64_t us = ns / 1000 + (ns % 1000 != 0);
	uint32_t i = us <= 1 ? 0 : 64 - (uint32_t)__builtin_clzll(us - 1);

	return i < NFS_LAT_BUCKETS - 1 ? i : NFS_LAT_BUCKETS - 1;
}
