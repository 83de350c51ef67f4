/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_hdr.h - the RPC-over-RDMA version 1 transport header (RFC 8166 §4, §5) and the
 * RFC 8797 connection private data: a bounded, allocation-free decoder that leaves a view into
 * the received bytes, and an encoder. This is the first thing an RDMA SEND's payload meets
 * above roce/: rpc/rpcrdma decodes it, then hands the RPC message (inline, or by chunks) up.
 *
 * Wire shape (RFC 8166 §4.2, every field a 32-bit big-endian XDR word):
 *
 *   xid, vers (1), credits, proc
 *   proc RDMA_MSG / RDMA_NOMSG:
 *     read list:  { 1, position, handle, length, offset(64) }*, 0
 *     write list: { 1, nsegs, { handle, length, offset(64) } x nsegs }*, 0
 *     reply chunk: 0 | 1, nsegs, { handle, length, offset(64) } x nsegs
 *   proc RDMA_ERROR: err; ERR_VERS: low, high
 *
 * The decoder walks the header once, counting and bounds-checking every list before anything
 * is read out of it; segments are then read in place through rpcrdma_read_seg(),
 * rpcrdma_write_seg() and rpcrdma_reply_seg(). A hostile count fails the bounds check: no
 * memory is allocated, whatever the input.
 */
#ifndef RPCRDMA_HDR_H
#define RPCRDMA_HDR_H

#include <stdbool.h>
#include <stdint.h>

#define RPCRDMA_VERSION 1u

/** Procedures (RFC 8166 §4.2.4). */
enum rpcrdma_proc {
	RPCRDMA_MSG = 0,   /**< an RPC message follows inline (perhaps with chunks) */
	RPCRDMA_NOMSG = 1, /**< the RPC message is in a position-zero read chunk or reply chunk */
	RPCRDMA_MSGP = 2,  /**< deprecated (RFC 8166 §4.2.4): refused with ERR_CHUNK */
	RPCRDMA_DONE = 3,  /**< deprecated: dropped and counted */
	RPCRDMA_ERROR = 4, /**< the peer could not process one of our messages */
};

/** RDMA_ERROR codes (RFC 8166 §4.2.4.1). */
enum rpcrdma_errcode {
	RPCRDMA_ERR_VERS = 1,  /**< version not supported; carries low/high */
	RPCRDMA_ERR_CHUNK = 2, /**< the header or its chunks cannot be processed */
};

/** Limits of what the decoder accepts. A header beyond them is answered with ERR_CHUNK. */
#define RPCRDMA_MAX_WRITE_CHUNKS 8 /**< write chunks in one write list */
#define RPCRDMA_MAX_CHUNK_SEGS 16  /**< segments in one write chunk or the reply chunk */
#define RPCRDMA_MAX_READ_SEGS 128  /**< segments in the read list, all chunks together */
#define RPCRDMA_HDR_MIN 16	   /**< xid, vers, credits, proc */
#define RPCRDMA_HDR_MSG_MIN 28	   /**< + three empty lists */
#define RPCRDMA_RSEG_WORDS 6	   /**< discriminator, position, handle, length, offset */
#define RPCRDMA_SEG_WORDS 4	   /**< handle, length, offset */

/** A plain RDMA segment (RFC 8166 §4.1.1). */
struct rpcrdma_seg {
	uint32_t handle; /**< the peer's R_key */
	uint32_t length; /**< bytes */
	uint64_t offset; /**< the peer's address */
};

/** A read-list segment: an RDMA segment with its XDR position (RFC 8166 §4.1.2). */
struct rpcrdma_rseg {
	uint32_t position; /**< byte offset in the RPC message; a multiple of 4 */
	struct rpcrdma_seg seg;
};

/** What the decoder concluded (and what the receiver must do). */
enum rpcrdma_dec {
	RPCRDMA_DEC_OK = 0,    /**< decoded; h describes it */
	RPCRDMA_DEC_DROP,      /**< too short to name an XID, or RDMA_DONE: drop and count */
	RPCRDMA_DEC_ERR_VERS,  /**< answer RDMA_ERROR ERR_VERS (RFC 8166 §4.5) */
	RPCRDMA_DEC_ERR_CHUNK, /**< answer RDMA_ERROR ERR_CHUNK (RFC 8166 §4.5) */
};

/** A decoded header: counts and offsets into the bytes it was decoded from (buf must stay
 * valid while the view is read). */
struct rpcrdma_hdr {
	const uint8_t *buf; /**< the header's first byte */
	uint32_t xid;	    /**< kept in network byte order, as RPC compares it */
	uint32_t vers;
	uint32_t credits;
	uint32_t proc;	   /**< enum rpcrdma_proc */
	uint32_t hdr_len;  /**< bytes of transport header; the inline RPC message starts here */
	uint32_t nr_rsegs; /**< read-list segments */
	uint32_t nr_read_chunks; /**< runs of segments with one position */
	uint32_t rsegs_off;	 /**< offset of the first read-list discriminator */
	uint32_t nr_wchunks;	 /**< write chunks */
	uint32_t wchunk_off[RPCRDMA_MAX_WRITE_CHUNKS]; /**< offset of each chunk's segment count */
	uint32_t wchunk_nsegs[RPCRDMA_MAX_WRITE_CHUNKS];
	bool has_reply;
	uint32_t reply_off; /**< offset of the reply chunk's segment count */
	uint32_t reply_nsegs;
	uint32_t err;		      /**< RDMA_ERROR: enum rpcrdma_errcode */
	uint32_t vers_low, vers_high; /**< RDMA_ERROR ERR_VERS */
	const char *why;	      /**< a short reason when not RPCRDMA_DEC_OK */
};

/**
 * Decode an RPC-over-RDMA header.
 *
 * Checks (RFC 8166 §4.2, §4.5): at least 16 bytes (else DROP: no XID to answer); version 1
 * (else ERR_VERS); proc MSG, NOMSG or ERROR (MSGP and unknown procs: ERR_CHUNK; DONE: DROP);
 * every list fits in len; list discriminators are 0 or 1; read positions are multiples of 4;
 * counts within the RPCRDMA_MAX_* limits (else ERR_CHUNK); an RDMA_ERROR's code is known.
 * Nothing is allocated.
 *
 * @param buf  the SEND payload
 * @param len  its length
 * @param h    filled in; h->xid is valid for every outcome but DROP
 * @return     an enum rpcrdma_dec
 */
enum rpcrdma_dec rpcrdma_hdr_decode(const uint8_t *buf, uint32_t len, struct rpcrdma_hdr *h);

/** Read-list segment i (< h->nr_rsegs). */
void rpcrdma_read_seg(const struct rpcrdma_hdr *h, uint32_t i, struct rpcrdma_rseg *out);
/** Segment s (< h->wchunk_nsegs[c]) of write chunk c (< h->nr_wchunks). */
void rpcrdma_write_seg(const struct rpcrdma_hdr *h, uint32_t c, uint32_t s,
		       struct rpcrdma_seg *out);
/** Segment s (< h->reply_nsegs) of the reply chunk. */
void rpcrdma_reply_seg(const struct rpcrdma_hdr *h, uint32_t s, struct rpcrdma_seg *out);

/** A chunk to encode: nsegs segments. */
struct rpcrdma_chunk {
	uint32_t nsegs;
	const struct rpcrdma_seg *segs;
};

/** What to encode. xid is in network byte order. */
struct rpcrdma_hdr_out {
	uint32_t xid, vers, credits, proc;
	uint32_t nr_rsegs;
	const struct rpcrdma_rseg *rsegs;
	uint32_t nr_wchunks;
	const struct rpcrdma_chunk *wchunks;
	const struct rpcrdma_chunk *reply; /**< NULL: no reply chunk */
	uint32_t err, vers_low, vers_high; /**< RDMA_ERROR only */
};

/**
 * Encode a header into buf.
 * @return bytes written, or -ENOSPC when cap is too small, -EINVAL for an unknown proc
 */
int rpcrdma_hdr_encode(const struct rpcrdma_hdr_out *o, uint8_t *buf, uint32_t cap);

/** Bytes rpcrdma_hdr_encode() will write for o. */
uint32_t rpcrdma_hdr_size(const struct rpcrdma_hdr_out *o);

/** The rpcrdma_hdr_out of a decoded header (segments copied into the caller's arrays, which
 * must hold h's counts; wchunks[c].segs point into wsegs, RPCRDMA_MAX_CHUNK_SEGS apart). */
void rpcrdma_hdr_to_out(const struct rpcrdma_hdr *h, struct rpcrdma_hdr_out *o,
			struct rpcrdma_rseg *rsegs, struct rpcrdma_chunk *wchunks,
			struct rpcrdma_seg *wsegs, struct rpcrdma_chunk *reply,
			struct rpcrdma_seg *reply_segs);

/*
 * RFC 8797 §7: the private data in RDMA CM's connect request and accept.
 *
 *   magic 0xf6ab0e18 (32), version 1 (8), flags (8, bit 0: Remote Invalidation OK),
 *   max send size (8), max receive size (8); a size byte s means (s + 1) * 1024 bytes.
 */
#define RPCRDMA_CM_MAGIC 0xf6ab0e18u
#define RPCRDMA_CM_VERSION 1u
#define RPCRDMA_CM_F_SND_W_INV_OK 0x01u
#define RPCRDMA_CM_PRIV_LEN 8u
#define RPCRDMA_INLINE_DEFAULT 1024u /**< RFC 8166 §3.3.2: without private data */
#define RPCRDMA_INLINE_MIN 1024u
#define RPCRDMA_INLINE_MAX 262144u /**< what a size byte can say */

struct rpcrdma_cm_priv {
	bool present;	    /**< false: none, or not RFC 8797's (sizes are the defaults) */
	bool remote_inv_ok; /**< the sender accepts Send With Invalidate */
	uint32_t max_send;  /**< bytes the sender may send us in one message */
	uint32_t max_recv;  /**< bytes the sender can receive in one message */
};

/** Decode private data (any length; trailing bytes ignored). Absent, short, a wrong magic or
 * an unknown version all give present=false and the 1024-byte defaults (RFC 8797 §7.2). */
void rpcrdma_cm_priv_decode(const uint8_t *buf, uint32_t len, struct rpcrdma_cm_priv *p);

/** Encode private data into 8 bytes. Sizes are rounded down to a multiple of 1024 and clamped
 * to 1024..262144. */
void rpcrdma_cm_priv_encode(const struct rpcrdma_cm_priv *p, uint8_t out[RPCRDMA_CM_PRIV_LEN]);

const char *rpcrdma_proc_name(uint32_t proc);

#endif /* RPCRDMA_HDR_H */
