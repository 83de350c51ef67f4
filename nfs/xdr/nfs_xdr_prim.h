/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_xdr_prim.h - the XDR pieces nfs3_xdr.c and mount_xdr.c share (private to nfs/xdr):
 * words, strict bools, checked enums and variable-length opaques by reference, each working
 * in both directions according to x->x_op. Decoding allocates nothing: x_ref points into an
 * xdrmem stream's buffer (xdr_inline).
 */
#ifndef NFS_XDR_PRIM_H
#define NFS_XDR_PRIM_H

#include <stdbool.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include "nfs_fs.h"

#define RNDUP4(n) (((n) + 3u) & ~3u)

/* nothing is ever allocated, so XDR_FREE (orpc_svc_dispatch's xdr_free) has nothing to do;
 * returning before touching the stream matters: xdr_free's stream has no operations */
#define FREE_IS_NOOP(x)                                                                            \
	do {                                                                                       \
		if ((x)->x_op == XDR_FREE)                                                         \
			return TRUE;                                                               \
	} while (0)

static inline bool_t x_u32(XDR *x, uint32_t *v)
{
	return xdr_uint32_t(x, v);
}

static inline bool_t x_u64(XDR *x, uint64_t *v)
{
	return xdr_uint64_t(x, v);
}

/* RFC 4506 §4.4: a bool is the enum {FALSE = 0, TRUE = 1}; any other word fails, so what
 * decodes re-encodes to the same bytes */
static inline bool_t x_bool(XDR *x, bool *b)
{
	/* *b is read only to encode: to decode it may hold anything, even not a bool */
	uint32_t v = x->x_op == XDR_ENCODE && *b ? 1u : 0u;

	if (!x_u32(x, &v) || v > 1)
		return FALSE;
	*b = v == 1;
	return TRUE;
}

/* an enum word, checked against max (UINT32_MAX: any value, the union's default arm) */
static inline bool_t x_enum(XDR *x, uint32_t *v, uint32_t max)
{
	return x_u32(x, v) && *v <= max;
}

#define X_ENUM(x, lval, max)                                                                       \
	do {                                                                                       \
		uint32_t v_ = (uint32_t)(lval);                                                    \
		if (!x_enum((x), &v_, (max)))                                                      \
			return FALSE;                                                              \
		(lval) = v_;                                                                       \
	} while (0)

/* where a zero-length reference points: never NULL, so memcpy(dst, p, 0) is defined */
static const uint8_t empty_ref[4];

/*
 * A variable-length opaque or string by reference: encode writes length, bytes and zero
 * padding from *p; decode points *p into the message (xdr_inline over the bytes and their
 * padding) and fails when the length exceeds max or the bytes are not all in the buffer.
 * Decoding needs an xdrmem stream (x_base and x_handy are read as xdrmem keeps them).
 */
static inline bool_t x_ref(XDR *x, const void **p, uint32_t *len, uint32_t max)
{
	void *in;

	if (x->x_op == XDR_ENCODE) {
		if (*len > max || (*len && !*p))
			return FALSE;
		return x_u32(x, len) && xdr_opaque(x, (char *)(uintptr_t)*p, *len);
	}
	if (!x_u32(x, len) || *len > max)
		return FALSE;
	if (*len == 0) {
		*p = empty_ref;
		return TRUE;
	}
	in = xdr_inline(x, (u_int)RNDUP4(*len));
	if (!in) {
		/* libtirpc's xdrmem answers NULL to every xdr_inline when the buffer is not
		 * 4-byte aligned (a message right after a 54-byte RoCEv2 header is not): the
		 * bytes are still there, at x_base + position, if x_handy says they are */
		u_int pos = xdr_getpos(x);

		if (x->x_handy < RNDUP4(*len) || !xdr_setpos(x, pos + RNDUP4(*len)))
			return FALSE;
		in = (char *)x->x_base + pos;
	}
	*p = in;
	return TRUE;
}

static inline bool_t x_str(XDR *x, const char **s, uint32_t *len, uint32_t max)
{
	const void *p = *s;

	if (!x_ref(x, &p, len, max))
		return FALSE;
	*s = p;
	return TRUE;
}

static inline bool_t x_bytes(XDR *x, const uint8_t **d, uint32_t *len, uint32_t max)
{
	const void *p = *d;

	if (!x_ref(x, &p, len, max))
		return FALSE;
	*d = p;
	return TRUE;
}

/* a fixed-length opaque (verifiers, v1 fhandle): bytes and padding */
static inline bool_t x_fixed(XDR *x, uint8_t *v, uint32_t n)
{
	return xdr_opaque(x, (char *)v, n);
}

static inline bool_t x_time(XDR *x, struct nfs_time *t)
{
	return x_u32(x, &t->sec) && x_u32(x, &t->nsec);
}

#endif /* NFS_XDR_PRIM_H */
