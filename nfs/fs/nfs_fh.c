/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fh.c - sealed file handles. A handle is at most NFS_FH_MAX (64) bytes, NFSv3's limit
 * (RFC 1813 §2.5):
 *
 *     0      version (NFS_FH_VERSION)
 *     1      klen: bytes of the kernel handle
 *     2..5   export id (big-endian), the id kept in statedir/exports.ids
 *     6..9   the object's device (new_encode_dev form): which file system, so objects under
 *            a crossmnt export's submounts resolve against the right mount
 *     10..13 the kernel handle's type (name_to_handle_at's handle_type)
 *     14..15 zero
 *     16..   the kernel handle (klen <= 40 bytes)
 *     last 8 SipHash-2-4 of all the bytes before it, under statedir/fh.key
 *
 * The MAC is what stops a client from making up handles: open_by_handle_at() would open any
 * inode of the file system, so a handle the server did not give out must never reach it.
 */
#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "nfs_fs_int.h"

#define FH_HDR 16u
#define FH_MAC 8u

_Static_assert(FH_HDR + NFS_KFH_MAX + FH_MAC == NFS_FH_MAX, "a handle fills NFSv3's 64 bytes");

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_mac(const uint8_t key[16], const uint8_t *msg, size_t len, uint8_t out[FH_MAC])
{
	uint64_t m = nfs_siphash24(key, msg, len);

	for (unsigned i = 0; i < FH_MAC; i++)
		out[i] = (uint8_t)(m >> (8 * i));
}

uint32_t nfs_fh_dev_encode(dev_t d)
{
	uint32_t ma = major(d), mi = minor(d);

	/* Linux's new_encode_dev(): 12 bits of major, 20 of minor */
	return (mi & 0xffu) | ((ma & 0xfffu) << 8) | ((mi & ~0xffu) << 12);
}

int nfs_fh_seal(const uint8_t key[16], const struct nfs_fh_parts *p, struct nfs_fh *fh)
{
	if (p->klen > NFS_KFH_MAX)
		return -EOVERFLOW;
	memset(fh, 0, sizeof(*fh));
	fh->data[0] = NFS_FH_VERSION;
	fh->data[1] = (uint8_t)p->klen;
	put_be32(fh->data + 2, p->export_id);
	put_be32(fh->data + 6, p->dev);
	put_be32(fh->data + 10, (uint32_t)p->handle_type);
	memcpy(fh->data + FH_HDR, p->kfh, p->klen);
	put_mac(key, fh->data, FH_HDR + p->klen, fh->data + FH_HDR + p->klen);
	fh->len = FH_HDR + p->klen + FH_MAC;
	return 0;
}

int nfs_fh_unseal(const uint8_t key[16], const struct nfs_fh *fh, struct nfs_fh_parts *p)
{
	uint8_t mac[FH_MAC];
	uint8_t diff = 0;
	uint32_t klen;

	if (fh->len < FH_HDR + FH_MAC || fh->len > NFS_FH_MAX)
		return -EBADMSG;
	klen = fh->len - FH_HDR - FH_MAC;
	if (fh->data[0] != NFS_FH_VERSION || fh->data[1] != klen || fh->data[14] || fh->data[15])
		return -EBADMSG;
	put_mac(key, fh->data, FH_HDR + klen, mac);
	for (unsigned i = 0; i < FH_MAC; i++) /* constant time: no early exit */
		diff |= (uint8_t)(mac[i] ^ fh->data[FH_HDR + klen + i]);
	if (diff)
		return -EBADMSG;
	p->export_id = get_be32(fh->data + 2);
	p->dev = get_be32(fh->data + 6);
	p->handle_type = (int32_t)get_be32(fh->data + 10);
	p->klen = klen;
	memcpy(p->kfh, fh->data + FH_HDR, klen);
	return 0;
}
