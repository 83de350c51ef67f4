/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_hdr.c - RPC-over-RDMA v1 header decode/encode (RFC 8166 §4) and RFC 8797 private
 * data. See rpcrdma_hdr.h for the wire shape and the decoder's contract.
 *
 * The decoder is one bounded cursor: every read checks the remaining length first, and each
 * list is walked (and counted) before it is accepted, so a lie in a count or a discriminator
 * ends the walk at the buffer's end, never past it.
 */
#include <errno.h>
#include <string.h>

#include "rpcrdma_hdr.h"

struct cur {
	const uint8_t *p;
	uint32_t off, len;
};

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* 0 and the next word in *v, or -1 when fewer than 4 bytes remain */
static inline int cur_u32(struct cur *c, uint32_t *v)
{
	if (c->len - c->off < 4)
		return -1;
	*v = get32(c->p + c->off);
	c->off += 4;
	return 0;
}

static inline int cur_skip(struct cur *c, uint32_t words)
{
	if ((c->len - c->off) / 4 < words)
		return -1;
	c->off += words * 4;
	return 0;
}

static enum rpcrdma_dec chunk_err(struct rpcrdma_hdr *h, const char *why)
{
	h->why = why;
	return RPCRDMA_DEC_ERR_CHUNK;
}

/* The read list (RFC 8166 §4.3.1): a list of read segments, each with its XDR position. */
static enum rpcrdma_dec dec_read_list(struct cur *c, struct rpcrdma_hdr *h)
{
	uint32_t more, pos, prev_pos = 0;

	h->rsegs_off = c->off;
	for (;;) {
		if (cur_u32(c, &more) != 0)
			return chunk_err(h, "read list truncated");
		if (more == 0)
			return RPCRDMA_DEC_OK;
		if (more != 1)
			return chunk_err(h, "read list discriminator not 0 or 1");
		if (h->nr_rsegs == RPCRDMA_MAX_READ_SEGS)
			return chunk_err(h, "too many read segments");
		if (cur_u32(c, &pos) != 0 || cur_skip(c, RPCRDMA_SEG_WORDS) != 0)
			return chunk_err(h, "read segment truncated");
		/* RFC 8166 §4.1.2: positions are XDR offsets, so multiples of 4 */
		if (pos & 3)
			return chunk_err(h, "read position not a multiple of 4");
		/* consecutive segments with one position form one chunk (RFC 8166 §4.1.2) */
		if (h->nr_rsegs == 0 || pos != prev_pos)
			h->nr_read_chunks++;
		prev_pos = pos;
		h->nr_rsegs++;
	}
}

/* A counted array of plain segments: a write chunk or the reply chunk (RFC 8166 §4.1.3). */
static enum rpcrdma_dec dec_chunk(struct cur *c, struct rpcrdma_hdr *h, uint32_t *off,
				  uint32_t *nsegs)
{
	*off = c->off;
	if (cur_u32(c, nsegs) != 0)
		return chunk_err(h, "chunk segment count truncated");
	if (*nsegs == 0)
		return chunk_err(h, "chunk with no segments");
	if (*nsegs > RPCRDMA_MAX_CHUNK_SEGS)
		return chunk_err(h, "too many segments in a chunk");
	if (cur_skip(c, *nsegs * RPCRDMA_SEG_WORDS) != 0)
		return chunk_err(h, "chunk segments truncated");
	return RPCRDMA_DEC_OK;
}

static enum rpcrdma_dec dec_write_list(struct cur *c, struct rpcrdma_hdr *h)
{
	enum rpcrdma_dec r;
	uint32_t more;

	for (;;) {
		if (cur_u32(c, &more) != 0)
			return chunk_err(h, "write list truncated");
		if (more == 0)
			return RPCRDMA_DEC_OK;
		if (more != 1)
			return chunk_err(h, "write list discriminator not 0 or 1");
		if (h->nr_wchunks == RPCRDMA_MAX_WRITE_CHUNKS)
			return chunk_err(h, "too many write chunks");
		r = dec_chunk(c, h, &h->wchunk_off[h->nr_wchunks], &h->wchunk_nsegs[h->nr_wchunks]);
		if (r != RPCRDMA_DEC_OK)
			return r;
		h->nr_wchunks++;
	}
}

static enum rpcrdma_dec dec_reply_chunk(struct cur *c, struct rpcrdma_hdr *h)
{
	uint32_t present;

	if (cur_u32(c, &present) != 0)
		return chunk_err(h, "reply chunk truncated");
	if (present == 0)
		return RPCRDMA_DEC_OK;
	if (present != 1)
		return chunk_err(h, "reply chunk discriminator not 0 or 1");
	h->has_reply = true;
	return dec_chunk(c, h, &h->reply_off, &h->reply_nsegs);
}

enum rpcrdma_dec rpcrdma_hdr_decode(const uint8_t *buf, uint32_t len, struct rpcrdma_hdr *h)
{
	struct cur c = {.p = buf, .off = 0, .len = len};
	enum rpcrdma_dec r;

	memset(h, 0, sizeof(*h));
	h->buf = buf;
	if (len < RPCRDMA_HDR_MIN) {
		h->why = "shorter than 16 bytes";
		return RPCRDMA_DEC_DROP;
	}
	memcpy(&h->xid, buf, 4); /* stays in network order */
	c.off = 4;
	cur_u32(&c, &h->vers);
	cur_u32(&c, &h->credits);
	cur_u32(&c, &h->proc);
	/* RFC 8166 §4.5: an unsupported version is answered before anything else is read */
	if (h->vers != RPCRDMA_VERSION) {
		h->why = "version not 1";
		return RPCRDMA_DEC_ERR_VERS;
	}
	switch (h->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		r = dec_read_list(&c, h);
		if (r == RPCRDMA_DEC_OK)
			r = dec_write_list(&c, h);
		if (r == RPCRDMA_DEC_OK)
			r = dec_reply_chunk(&c, h);
		if (r != RPCRDMA_DEC_OK)
			return r;
		break;
	case RPCRDMA_ERROR:
		if (cur_u32(&c, &h->err) != 0)
			return chunk_err(h, "RDMA_ERROR without a code");
		if (h->err == RPCRDMA_ERR_VERS) {
			if (cur_u32(&c, &h->vers_low) != 0 || cur_u32(&c, &h->vers_high) != 0)
				return chunk_err(h, "ERR_VERS without low/high");
		} else if (h->err != RPCRDMA_ERR_CHUNK) {
			return chunk_err(h, "unknown RDMA_ERROR code");
		}
		break;
	case RPCRDMA_DONE:
		/* deprecated in version 1; Linux svcrdma drops it too */
		h->why = "RDMA_DONE";
		return RPCRDMA_DEC_DROP;
	case RPCRDMA_MSGP:
		return chunk_err(h, "RDMA_MSGP is not supported");
	default:
		return chunk_err(h, "unknown procedure");
	}
	h->hdr_len = c.off;
	return RPCRDMA_DEC_OK;
}

static void get_seg(const uint8_t *p, struct rpcrdma_seg *s)
{
	s->handle = get32(p);
	s->length = get32(p + 4);
	s->offset = (uint64_t)get32(p + 8) << 32 | get32(p + 12);
}

void rpcrdma_read_seg(const struct rpcrdma_hdr *h, uint32_t i, struct rpcrdma_rseg *out)
{
	const uint8_t *p = h->buf + h->rsegs_off + i * RPCRDMA_RSEG_WORDS * 4;

	out->position = get32(p + 4);
	get_seg(p + 8, &out->seg);
}

void rpcrdma_write_seg(const struct rpcrdma_hdr *h, uint32_t c, uint32_t s, struct rpcrdma_seg *out)
{
	get_seg(h->buf + h->wchunk_off[c] + 4 + s * RPCRDMA_SEG_WORDS * 4, out);
}

void rpcrdma_reply_seg(const struct rpcrdma_hdr *h, uint32_t s, struct rpcrdma_seg *out)
{
	get_seg(h->buf + h->reply_off + 4 + s * RPCRDMA_SEG_WORDS * 4, out);
}

uint32_t rpcrdma_hdr_size(const struct rpcrdma_hdr_out *o)
{
	uint32_t n = RPCRDMA_HDR_MIN;

	if (o->proc == RPCRDMA_ERROR)
		return n + 4 + (o->err == RPCRDMA_ERR_VERS ? 8 : 0);
	n += o->nr_rsegs * RPCRDMA_RSEG_WORDS * 4 + 4;
	for (uint32_t i = 0; i < o->nr_wchunks; i++)
		n += 8 + o->wchunks[i].nsegs * RPCRDMA_SEG_WORDS * 4;
	n += 4;
	n += 4 + (o->reply ? 4 + o->reply->nsegs * RPCRDMA_SEG_WORDS * 4 : 0);
	return n;
}

static uint8_t *put_seg(uint8_t *p, const struct rpcrdma_seg *s)
{
	put32(p, s->handle);
	put32(p + 4, s->length);
	put32(p + 8, (uint32_t)(s->offset >> 32));
	put32(p + 12, (uint32_t)s->offset);
	return p + 16;
}

static uint8_t *put_chunk(uint8_t *p, const struct rpcrdma_chunk *ch)
{
	put32(p, ch->nsegs);
	p += 4;
	for (uint32_t s = 0; s < ch->nsegs; s++)
		p = put_seg(p, &ch->segs[s]);
	return p;
}

int rpcrdma_hdr_encode(const struct rpcrdma_hdr_out *o, uint8_t *buf, uint32_t cap)
{
	uint32_t need = rpcrdma_hdr_size(o);
	uint8_t *p = buf;

	if (o->proc != RPCRDMA_MSG && o->proc != RPCRDMA_NOMSG && o->proc != RPCRDMA_ERROR)
		return -EINVAL;
	if (need > cap)
		return -ENOSPC;
	memcpy(p, &o->xid, 4);
	put32(p + 4, o->vers);
	put32(p + 8, o->credits);
	put32(p + 12, o->proc);
	p += 16;
	if (o->proc == RPCRDMA_ERROR) {
		put32(p, o->err);
		p += 4;
		if (o->err == RPCRDMA_ERR_VERS) {
			put32(p, o->vers_low);
			put32(p + 4, o->vers_high);
			p += 8;
		}
		return (int)(p - buf);
	}
	for (uint32_t i = 0; i < o->nr_rsegs; i++) {
		put32(p, 1);
		put32(p + 4, o->rsegs[i].position);
		p = put_seg(p + 8, &o->rsegs[i].seg);
	}
	put32(p, 0);
	p += 4;
	for (uint32_t i = 0; i < o->nr_wchunks; i++) {
		put32(p, 1);
		p = put_chunk(p + 4, &o->wchunks[i]);
	}
	put32(p, 0);
	p += 4;
	if (o->reply) {
		put32(p, 1);
		p = put_chunk(p + 4, o->reply);
	} else {
		put32(p, 0);
		p += 4;
	}
	return (int)(p - buf);
}

void rpcrdma_hdr_to_out(const struct rpcrdma_hdr *h, struct rpcrdma_hdr_out *o,
			struct rpcrdma_rseg *rsegs, struct rpcrdma_chunk *wchunks,
			struct rpcrdma_seg *wsegs, struct rpcrdma_chunk *reply,
			struct rpcrdma_seg *reply_segs)
{
	memset(o, 0, sizeof(*o));
	o->xid = h->xid;
	o->vers = h->vers;
	o->credits = h->credits;
	o->proc = h->proc;
	o->err = h->err;
	o->vers_low = h->vers_low;
	o->vers_high = h->vers_high;
	o->nr_rsegs = h->nr_rsegs;
	o->rsegs = rsegs;
	for (uint32_t i = 0; i < h->nr_rsegs; i++)
		rpcrdma_read_seg(h, i, &rsegs[i]);
	o->nr_wchunks = h->nr_wchunks;
	o->wchunks = wchunks;
	for (uint32_t c = 0; c < h->nr_wchunks; c++) {
		struct rpcrdma_seg *segs = wsegs + c * RPCRDMA_MAX_CHUNK_SEGS;

		for (uint32_t s = 0; s < h->wchunk_nsegs[c]; s++)
			rpcrdma_write_seg(h, c, s, &segs[s]);
		wchunks[c].nsegs = h->wchunk_nsegs[c];
		wchunks[c].segs = segs;
	}
	if (h->has_reply) {
		for (uint32_t s = 0; s < h->reply_nsegs; s++)
			rpcrdma_reply_seg(h, s, &reply_segs[s]);
		reply->nsegs = h->reply_nsegs;
		reply->segs = reply_segs;
		o->reply = reply;
	}
}

void rpcrdma_cm_priv_decode(const uint8_t *buf, uint32_t len, struct rpcrdma_cm_priv *p)
{
	memset(p, 0, sizeof(*p));
	p->max_send = RPCRDMA_INLINE_DEFAULT;
	p->max_recv = RPCRDMA_INLINE_DEFAULT;
	if (!buf || len < RPCRDMA_CM_PRIV_LEN || get32(buf) != RPCRDMA_CM_MAGIC ||
	    buf[4] != RPCRDMA_CM_VERSION)
		return;
	p->present = true;
	p->remote_inv_ok = buf[5] & RPCRDMA_CM_F_SND_W_INV_OK;
	p->max_send = ((uint32_t)buf[6] + 1) * 1024;
	p->max_recv = ((uint32_t)buf[7] + 1) * 1024;
}

static uint8_t size_byte(uint32_t size)
{
	if (size < RPCRDMA_INLINE_MIN)
		size = RPCRDMA_INLINE_MIN;
	if (size > RPCRDMA_INLINE_MAX)
		size = RPCRDMA_INLINE_MAX;
	return (uint8_t)(size / 1024 - 1);
}

void rpcrdma_cm_priv_encode(const struct rpcrdma_cm_priv *p, uint8_t out[RPCRDMA_CM_PRIV_LEN])
{
	put32(out, RPCRDMA_CM_MAGIC);
	out[4] = RPCRDMA_CM_VERSION;
	out[5] = p->remote_inv_ok ? RPCRDMA_CM_F_SND_W_INV_OK : 0;
	out[6] = size_byte(p->max_send);
	out[7] = size_byte(p->max_recv);
}

const char *rpcrdma_proc_name(uint32_t proc)
{
	static const char *const names[] = {
		[RPCRDMA_MSG] = "RDMA_MSG",	[RPCRDMA_NOMSG] = "RDMA_NOMSG",
		[RPCRDMA_MSGP] = "RDMA_MSGP",	[RPCRDMA_DONE] = "RDMA_DONE",
		[RPCRDMA_ERROR] = "RDMA_ERROR",
	};

	return proc < sizeof(names) / sizeof(names[0]) ? names[proc] : "unknown";
}
