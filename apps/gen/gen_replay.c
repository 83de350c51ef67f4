/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_replay.c - droce-gen --replay's capture reader and frame rewrite (gen_replay.h).
 * Formats: the pcap file format (tcpdump.org, "libpcap File Format") and pcapng
 * (draft-ietf-opsawg-pcapng: SHB, IDB with if_tsresol, EPB).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "gen_replay.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"

#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 1u
#define PCAPNG_EPB 6u
#define PCAPNG_IFS 8u /* interfaces whose link type and stamp unit are kept (gen_pcap) */
#define ROCE_PORT 4791u

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

int gen_pcap_open(struct gen_pcap *p, const uint8_t *buf, uint64_t len)
{
	uint32_t magic;

	memset(p, 0, sizeof(*p));
	if (len < 24)
		return -EINVAL;
	p->buf = buf;
	p->len = len;
	memcpy(&magic, buf, 4);
	if (magic == PCAPNG_SHB) {
		uint32_t bom;

		memcpy(&bom, buf + 8, 4);
		if (bom != 0x1a2b3c4du) /* a big-endian section: not read */
			return -EINVAL;
		p->ng = true;
		return 0;
	}
	if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
		p->swap = false;
	} else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
		p->swap = true;
	} else {
		return -EINVAL;
	}
	p->nano = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
	p->linktype = rd32(buf + 20, p->swap) & 0xffff;
	p->off = 24;
	return 0;
}

/* if_tsresol (option 9) of an IDB's options in [o, end): units per second */
static uint64_t idb_div(const uint8_t *o, const uint8_t *end)
{
	while (o + 4 <= end) {
		uint16_t code, olen;

		memcpy(&code, o, 2);
		memcpy(&olen, o + 2, 2);
		if (code == 0 || o + 4 + olen > end)
			break;
		if (code == 9 && olen >= 1) {
			uint8_t r = o[4];
			uint64_t d = 1;

			if (r & 0x80) {
				if ((r & 0x7f) > 63)
					return 1000000;
				return 1ull << (r & 0x7f);
			}
			for (uint8_t i = 0; i < r && i < 19; i++)
				d *= 10;
			return d;
		}
		o += 4 + ((olen + 3u) & ~3u);
	}
	return 1000000; /* microseconds */
}

static uint64_t to_ns(uint64_t ts, uint64_t div)
{
	if (div == 1000000000ull)
		return ts;
	if (div < 1000000000ull && 1000000000ull % div == 0)
		return ts * (1000000000ull / div);
	return (uint64_t)((double)ts * 1e9 / (double)div);
}

static int next_ng(struct gen_pcap *p, struct gen_pcap_frame *f)
{
	while (p->off + 12 <= p->len) {
		const uint8_t *b = p->buf + p->off;
		uint32_t type = rd32(b, false), blen = rd32(b + 4, false);

		if (blen < 12 || blen % 4 || blen > p->len - p->off)
			return -EINVAL;
		p->off += blen;
		if (type == PCAPNG_SHB) {
			p->nifs = 0; /* a new section starts its own interfaces */
			if (blen < 28 || rd32(b + 8, false) != 0x1a2b3c4du)
				return -EINVAL;
		} else if (type == PCAPNG_IDB) {
			if (blen < 20)
				return -EINVAL;
			if (p->nifs < PCAPNG_IFS) {
				p->if_link[p->nifs] = rd32(b + 8, false) & 0xffff;
				p->if_div[p->nifs] = idb_div(b + 16, b + blen - 4);
			}
			p->nifs++;
		} else if (type == PCAPNG_EPB) {
			uint32_t ifid, caplen;

			if (blen < 32)
				return -EINVAL;
			ifid = rd32(b + 8, false);
			caplen = rd32(b + 20, false);
			if (caplen > blen - 32)
				return -EINVAL;
			if (ifid >= p->nifs || ifid >= PCAPNG_IFS)
				continue; /* a frame of an interface never described */
			f->data = b + 28;
			f->caplen = caplen;
			f->origlen = rd32(b + 24, false);
			f->linktype = p->if_link[ifid];
			f->ts_ns = to_ns((uint64_t)rd32(b + 12, false) << 32 | rd32(b + 16, false),
					 p->if_div[ifid]);
			return 1;
		}
		/* other blocks (statistics, name resolution, simple packets) are skipped */
	}
	return p->off == p->len ? 0 : -EINVAL;
}

int gen_pcap_next(struct gen_pcap *p, struct gen_pcap_frame *f)
{
	const uint8_t *r;
	uint32_t caplen;

	if (p->ng)
		return next_ng(p, f);
	if (p->off == p->len)
		return 0;
	if (p->len - p->off < 16)
		return -EINVAL;
	r = p->buf + p->off;
	caplen = rd32(r + 8, p->swap);
	if (caplen > p->len - p->off - 16)
		return -EINVAL;
	f->data = r + 16;
	f->caplen = caplen;
	f->origlen = rd32(r + 12, p->swap);
	f->linktype = p->linktype;
	f->ts_ns = (uint64_t)rd32(r, p->swap) * 1000000000ull +
		   (uint64_t)rd32(r + 4, p->swap) * (p->nano ? 1u : 1000u);
	p->off += 16 + (uint64_t)caplen;
	return 1;
}

/* ---- the rewrite ---- */

static const char *const skip_names[GEN_SKIP_NUM] = {"ok",	     "linktype", "truncated",
						     "not_roce",     "ipv6_ext", "bad_len",
						     "too_many_qps", "too_long"};

const char *gen_skip_name(enum gen_skip s)
{
	return s < GEN_SKIP_NUM ? skip_names[s] : "?";
}

static bool map(const struct gen_map *m, uint32_t *v)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->from[i] == *v) {
			*v = m->to[i];
			return true;
		}
	return false;
}

static uint16_t ip_csum(const uint8_t *h, uint32_t len)
{
	uint32_t s = 0;

	for (uint32_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* an rkey at off from the BTH (its RETH's or AtomicETH's, +8), inside the headers */
static bool rkey_at(struct gen_rewrite *rw, uint8_t *bth, uint32_t off, uint32_t roce_len)
{
	uint32_t k;

	if (!off || off + 12 > roce_len - ROCE_ICRC_LEN)
		return false;
	k = (uint32_t)bth[off + 8] << 24 | (uint32_t)bth[off + 9] << 16 |
	    (uint32_t)bth[off + 10] << 8 | bth[off + 11];
	if (!map(&rw->rkey, &k))
		return false;
	bth[off + 8] = (uint8_t)(k >> 24);
	bth[off + 9] = (uint8_t)(k >> 16);
	bth[off + 10] = (uint8_t)(k >> 8);
	bth[off + 11] = (uint8_t)k;
	return true;
}

/* a UD frame's source QP, in its DETH at off from the BTH (Q_Key, a reserved byte, the QP) */
static bool sqpn_at(struct gen_rewrite *rw, uint8_t *bth, uint32_t off, uint32_t roce_len)
{
	uint32_t q;

	if (!off || off + 8 > roce_len - ROCE_ICRC_LEN)
		return false;
	q = be24(bth + off + 5);
	if (!map(&rw->sqpn, &q))
		return false;
	put24(bth + off + 5, q);
	return true;
}

/* What the rewrite takes from a captured frame's IP header. */
struct ip_in {
	const uint8_t *ip; /**< the IP header */
	uint32_t hlen;	   /**< its length (IPv4 with options; IPv6: 40) */
	uint32_t udplen;   /**< the UDP datagram's length */
	uint8_t v6;
	uint8_t tos;   /**< TOS or traffic class */
	uint8_t ttl;   /**< TTL or hop limit */
	uint32_t flow; /**< IPv6 flow label */
};

/* The IP header of frame f at l2 with its UDP to 4791 inside. @return GEN_OK or why not */
static enum gen_skip ip_parse(const struct gen_pcap_frame *f, uint32_t l2, uint16_t type,
			      struct ip_in *in)
{
	const uint8_t *d = f->data, *ip = d + l2;

	memset(in, 0, sizeof(*in));
	in->ip = ip;
	if (type == 0x86dd) {
		uint32_t vtc;

		if (f->caplen < l2 + 40 || (ip[0] >> 4) != 6)
			return GEN_SKIP_NOT_ROCE;
		if (ip[6] != 17) {
			/* a frame behind extension headers is not rewritten (hop-by-hop, routing,
			 * fragment, ESP, AH, destination options, mobility, HIP, shim6: RFC 8200
			 * 4, IANA's list); other IPv6 traffic is not RoCE */
			static const uint8_t ext[] = {0, 43, 44, 50, 51, 60, 135, 139, 140};

			for (unsigned k = 0; k < sizeof(ext); k++)
				if (ip[6] == ext[k])
					return GEN_SKIP_IPV6_EXT;
			return GEN_SKIP_NOT_ROCE;
		}
		if (f->caplen < l2 + 48 || be16(ip + 40 + 2) != ROCE_PORT)
			return GEN_SKIP_NOT_ROCE;
		if (f->origlen > f->caplen)
			return GEN_SKIP_TRUNCATED;
		vtc = (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3];
		in->v6 = 1;
		in->hlen = 40;
		in->tos = (uint8_t)(vtc >> 20);
		in->flow = vtc & 0xfffffu;
		in->ttl = ip[7];
		in->udplen = be16(ip + 4);
		if (be16(ip + 40 + 4) != in->udplen || l2 + 40 + in->udplen > f->caplen)
			return GEN_SKIP_BAD_LEN;
		return GEN_OK;
	}
	if (type != 0x0800 || f->caplen < l2 + 20)
		return GEN_SKIP_NOT_ROCE;
	in->hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	if ((ip[0] >> 4) != 4 || in->hlen < 20 || ip[9] != 17 || f->caplen < l2 + in->hlen + 8 ||
	    be16(ip + in->hlen + 2) != ROCE_PORT)
		return GEN_SKIP_NOT_ROCE;
	if (f->origlen > f->caplen)
		return GEN_SKIP_TRUNCATED;
	{
		uint32_t tot = be16(ip + 2);

		in->udplen = be16(ip + in->hlen + 4);
		if (tot < in->hlen + 8 || l2 + tot > f->caplen || in->udplen != tot - in->hlen)
			return GEN_SKIP_BAD_LEN;
	}
	in->tos = ip[1];
	in->ttl = ip[8];
	return GEN_OK;
}

/* The length of our IP header for the peer: 40, the captured IPv4 header's with its options,
 * or 20 for an IPv4 header made from an IPv6 one */
static uint32_t ip_out_len(const struct gen_rewrite *rw, const struct ip_in *in)
{
	return rw->family == 6 ? 40 : in->v6 ? 20 : in->hlen;
}

/* Write our IP header for the peer at out (ip_out_len() bytes). */
static void ip_build(const struct gen_rewrite *rw, const struct ip_in *in, uint8_t *out)
{
	if (rw->family == 6) {
		uint32_t vtc = 6u << 28 | (uint32_t)in->tos << 20 | in->flow;

		out[0] = (uint8_t)(vtc >> 24);
		out[1] = (uint8_t)(vtc >> 16);
		out[2] = (uint8_t)(vtc >> 8);
		out[3] = (uint8_t)vtc;
		out[4] = (uint8_t)(in->udplen >> 8);
		out[5] = (uint8_t)in->udplen;
		out[6] = 17;
		out[7] = in->ttl;
		memcpy(out + 8, rw->src_ip6, 16);
		memcpy(out + 24, rw->dst_ip6, 16);
		return;
	}
	if (in->v6) {
		/* an IPv4 header of our own: no options, ID 0, DF */
		uint32_t tot = 20 + in->udplen;

		memset(out, 0, 20);
		out[0] = 0x45;
		out[1] = in->tos;
		out[2] = (uint8_t)(tot >> 8);
		out[3] = (uint8_t)tot;
		out[6] = 0x40;
		out[8] = in->ttl;
		out[9] = 17;
	} else {
		memcpy(out, in->ip, in->hlen); /* the capture's, options and ID as they were */
	}
	memcpy(out + 12, &rw->src_ip, 4);
	memcpy(out + 16, &rw->dst_ip, 4);
	out[10] = 0;
	out[11] = 0;
	{
		uint16_t c = ip_csum(out, ip_out_len(rw, in));

		out[10] = (uint8_t)(c >> 8);
		out[11] = (uint8_t)c;
	}
}

enum gen_skip gen_replay_rewrite(struct gen_rewrite *rw, const struct gen_pcap_frame *f,
				 uint8_t *out, uint32_t cap, struct gen_rewrite_res *res)
{
	const uint8_t *d = f->data;
	uint32_t l2 = 14, l3len, roce_len, len;
	const struct roce_opinfo *oi;
	struct ip_in in;
	enum gen_skip why;
	uint16_t type;
	uint8_t *bth;
	uint32_t qpn;

	memset(res, 0, sizeof(*res));
	if (f->linktype != 1)
		return GEN_SKIP_LINKTYPE;
	if (f->caplen < 14)
		return f->origlen > f->caplen ? GEN_SKIP_TRUNCATED : GEN_SKIP_NOT_ROCE;
	type = be16(d + 12);
	if (type == 0x8100) {
		if (f->caplen < 18)
			return GEN_SKIP_TRUNCATED;
		type = be16(d + 16);
		l2 = 18;
	}
	why = ip_parse(f, l2, type, &in);
	if (why != GEN_OK)
		return why;
	if (in.udplen < 8)
		return GEN_SKIP_BAD_LEN;
	roce_len = in.udplen - 8;
	if (roce_len < sizeof(struct roce_bth) + ROCE_ICRC_LEN)
		return GEN_SKIP_BAD_LEN;
	l3len = ip_out_len(rw, &in);
	/* our Ethernet header, no tag; Ethernet padding is not kept (and IPv4's total length,
	 * below the frame's, fits 16 bits when the frame does) */
	len = 14 + l3len + in.udplen;
	if (len > cap || len > UINT16_MAX)
		return GEN_SKIP_TOO_LONG;
	/* Ethernet */
	memcpy(out, &rw->dst_mac, 6);
	memcpy(out + 6, &rw->src_mac, 6);
	out[12] = rw->family == 6 ? 0x86 : 0x08;
	out[13] = rw->family == 6 ? 0xdd : 0x00;
	ip_build(rw, &in, out + 14);
	/* UDP as it was (ports, length), the checksum left out (0), as RoCEv2 senders may */
	memcpy(out + 14 + l3len, in.ip + in.hlen, in.udplen);
	out[14 + l3len + 6] = 0;
	out[14 + l3len + 7] = 0;
	bth = out + 14 + l3len + 8;
	qpn = be24(bth + 5);
	if (map(&rw->qpn, &qpn)) {
		put24(bth + 5, qpn);
		res->qpn = true;
	}
	if (rw->psn_rebase) {
		uint32_t i;

		for (i = 0; i < rw->npsn && rw->psn_qpn[i] != qpn; i++)
			;
		if (i == rw->npsn) {
			if (rw->npsn == RTE_DIM(rw->psn_qpn))
				return GEN_SKIP_QPS;
			rw->psn_qpn[i] = qpn;
			rw->psn_delta[i] = (rw->psn_base - be24(bth + 9)) & 0xffffffu;
			rw->npsn++;
		}
		put24(bth + 9, (be24(bth + 9) + rw->psn_delta[i]) & 0xffffffu);
		res->psn = true;
	}
	oi = roce_opinfo(bth[0]);
	if (oi && (oi->flags & ROCE_OPF_RETH))
		res->rkey = rkey_at(rw, bth, oi->off[ROCE_EXT_RETH], roce_len);
	else if (oi && (oi->flags & ROCE_OPF_ATOMICETH))
		res->rkey = rkey_at(rw, bth, oi->off[ROCE_EXT_ATOMICETH], roce_len);
	if (oi && (oi->flags & ROCE_OPF_DETH))
		res->sqpn = sqpn_at(rw, bth, oi->off[ROCE_EXT_DETH], roce_len);
	{
		/* the ICRC over the rewritten frame: a one-segment mbuf around out */
		struct rte_mbuf m;

		memset(&m, 0, sizeof(m));
		m.buf_addr = out;
		m.buf_len = (uint16_t)(cap > UINT16_MAX ? UINT16_MAX : cap);
		m.data_len = (uint16_t)len;
		m.pkt_len = len;
		m.nb_segs = 1;
		roce_icrc_fill(&m, 14, (uint16_t)(14 + l3len + 8), len - ROCE_ICRC_LEN);
	}
	res->len = len;
	return GEN_OK;
}

int gen_map_add(struct gen_map *m, const char *v, uint32_t max)
{
	char *end;
	unsigned long a, b;

	if (m->n == GEN_MAP_MAX)
		return -EINVAL;
	errno = 0;
	a = strtoul(v, &end, 0);
	if (errno || end == v || *end != ':' || a > max)
		return -EINVAL;
	v = end + 1;
	b = strtoul(v, &end, 0);
	if (errno || end == v || *end || b > max)
		return -EINVAL;
	m->from[m->n] = (uint32_t)a;
	m->to[m->n] = (uint32_t)b;
	m->n++;
	return 0;
}
