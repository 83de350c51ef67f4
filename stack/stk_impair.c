/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_impair.c - fault injection between the port and the stack (see stk_impair.h): the
 * per-frame decisions, the delay queue and the reorder hold, the settings table that
 * stk_impair_set() writes and new lcore contexts read, and the configuration syntax.
 *
 * Random numbers: xorshift64* (S. Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", ACM TOMS 42(4), 2016), seeded through splitmix64 (G. Steele, D. Lea,
 * C. Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) so that nearby
 * seeds and stream numbers give unrelated sequences. Decisions use the upper 32 bits, the
 * generator's best ones.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "stk_impair.h"
#include "stk_lcore.h"

/* X(enum suffix, configuration key, rate field of struct stk_impair_conf), in the order
 * frames meet them (stk_impair.h). */
#define IMPAIR_KINDS(X)                                                                            \
	X(DROP, "drop", drop_ppm)                                                                  \
	X(DUP, "dup", dup_ppm)                                                                     \
	X(CORRUPT, "corrupt", corrupt_ppm)                                                         \
	X(DELAY, "delay", delay_ppm)                                                               \
	X(REORDER, "reorder", reorder_ppm)                                                         \
	X(CE, "ce", ce_ppm)

#define KIND_ENUM_(e, key, field) K_##e,
enum kind { IMPAIR_KINDS(KIND_ENUM_) K_NUM };
#undef KIND_ENUM_

#define KIND_KEY_(e, key, field) [K_##e] = key,
static const char *const kind_key[K_NUM] = {IMPAIR_KINDS(KIND_KEY_)};
#undef KIND_KEY_

#define KIND_OFF_(e, key, field) [K_##e] = offsetof(struct stk_impair_conf, field),
static const size_t kind_off[K_NUM] = {IMPAIR_KINDS(KIND_OFF_)};
#undef KIND_OFF_

/* The rate fields are uint32_t members at kind_off[]; memcpy keeps the access well typed. */
static void set_rate(struct stk_impair_conf *c, enum kind k, uint32_t v)
{
	memcpy((char *)c + kind_off[k], &v, sizeof(v));
}

static uint32_t rate(const struct stk_impair_conf *c, enum kind k)
{
	uint32_t v;

	memcpy(&v, (const char *)c + kind_off[k], sizeof(v));
	return v;
}

struct delayed {
	struct rte_mbuf *m;
	uint64_t due; /**< TSC at which it is passed on */
};

struct stk_impair {
	uint64_t rng;		  /**< xorshift64* state, never 0 */
	uint64_t thr[K_NUM];	  /**< a 32-bit draw below thr[k] means "do k"; 0 = never */
	uint64_t delay_tsc;	  /**< delay_us in TSC cycles */
	uint64_t hold_tsc;	  /**< STK_IMPAIR_HOLD_US in TSC cycles */
	uint64_t *cnt;		  /**< the owning lcore's counters of this interface */
	struct rte_mempool *pool; /**< for copies: the lcore's own pool */
	struct rte_mbuf *held;	  /**< the frame held back for reordering, or NULL */
	uint64_t held_due;	  /**< TSC after which the loop passes it on anyway */
	bool roce_only;
	uint16_t dq_head; /**< oldest entry of dq */
	uint16_t dq_len;
	/* delay queue, oldest first: one delay for all, so due times never decrease */
	struct delayed dq[STK_IMPAIR_DELAY_SLOTS];
};

_Static_assert((STK_IMPAIR_DELAY_SLOTS & (STK_IMPAIR_DELAY_SLOTS - 1)) == 0,
	       "the delay queue size is a power of two");

/* Settings per interface and direction: written by stk_impair_set() while the lcores do not
 * run, read by stk_impair_attach() when an lcore context is made. */
static struct stk_impair_conf confs[STK_MAX_PORTS][STK_IMPAIR_NUM_DIRS];

/* ---------------- random numbers ---------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t next(struct stk_impair *s)
{
	uint64_t x = s->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* True with probability thr[k] / 2^32. Draws nothing for a zero rate, so an impairment that
 * is not configured leaves the others' sequence alone. */
static inline bool chance(struct stk_impair *s, enum kind k)
{
	return s->thr[k] != 0 && (next(s) >> 32) < s->thr[k];
}

/* ---------------- the impairments ---------------- */

/* RoCEv2: UDP to port 4791 over IPv4 (first or only fragment) or IPv6 (UDP as the first next
 * header), behind at most one 802.1Q tag. Looks at the first segment only. */
static bool is_roce(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, off = sizeof(struct rte_ether_hdr);
	const struct rte_udp_hdr *uh;
	rte_be16_t type;

	if (len < off)
		return false;
	memcpy(&type, p + offsetof(struct rte_ether_hdr, ether_type), sizeof(type));
	if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		if (len < off + sizeof(struct rte_vlan_hdr))
			return false;
		type = ((const struct rte_vlan_hdr *)(p + off))->eth_proto;
		off += sizeof(struct rte_vlan_hdr);
	}
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + off);

		if (len < off + sizeof(*ip) || ip->next_proto_id != IPPROTO_UDP ||
		    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			return false;
		off += rte_ipv4_hdr_len(ip);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + off);

		if (len < off + sizeof(*ip) || ip->proto != IPPROTO_UDP)
			return false;
		off += sizeof(*ip);
	} else {
		return false;
	}
	if (len < off + sizeof(*uh))
		return false;
	uh = (const struct rte_udp_hdr *)(p + off);
	return uh->dst_port == RTE_BE16(STK_ROCE_UDP_PORT);
}

/* Length of the Ethernet header with its 802.1Q / 802.1ad tags, as the first segment shows. */
static uint32_t l2_len(const struct rte_mbuf *m)
{
	uint32_t off = sizeof(struct rte_ether_hdr);
	rte_be16_t type;

	if (m->data_len < off)
		return off;
	type = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type;
	while ((type == RTE_BE16(RTE_ETHER_TYPE_VLAN) || type == RTE_BE16(RTE_ETHER_TYPE_QINQ)) &&
	       m->data_len >= off + sizeof(struct rte_vlan_hdr)) {
		type = rte_pktmbuf_mtod_offset(m, const struct rte_vlan_hdr *, off)->eth_proto;
		off += sizeof(struct rte_vlan_hdr);
	}
	return off;
}

/* Whether writing into @m's data changes nobody else's frame. */
static bool writable(const struct rte_mbuf *m)
{
	for (; m; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
			return false;
	return true;
}

/* Flip one random bit after the L2 header. @return the frame to go on with: @m, or a private
 * copy of it when its data is shared. */
static struct rte_mbuf *corrupt(struct stk_impair *s, struct rte_mbuf *m)
{
	uint32_t l2 = l2_len(m), len = rte_pktmbuf_pkt_len(m), off;
	struct rte_mbuf *seg;
	uint64_t r;

	if (len <= l2)
		return m; /* nothing after the Ethernet header */
	if (!writable(m)) {
		/* A clone shares its data with, say, the copy a sender keeps for
		 * retransmission: corrupting it in place would corrupt every retransmission. */
		struct rte_mbuf *c = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);

		if (!c)
			return m; /* no mbuf: it goes on intact */
		rte_pktmbuf_free(m);
		m = c;
	}
	r = next(s);
	off = l2 + (uint32_t)(((r >> 32) * (len - l2)) >> 32);
	for (seg = m; seg && off >= seg->data_len; seg = seg->next)
		off -= seg->data_len;
	if (!seg)
		return m;
	*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^= (uint8_t)(1u << ((r >> 24) & 7));
	/* A PMD's verdict was on the intact frame: let the stack check for itself. */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	s->cnt[STK_CNT_impair_corrupted]++;
	return m;
}

/*
 * What a congested ECN switch does (RFC 3168): an ECN-capable IP packet (ECT(0) or ECT(1))
 * gets Congestion Experienced; a not-ECT one is left alone. IPv4's header checksum is redone.
 * @return the frame to go on with (@m, or a private copy when its data is shared).
 */
static struct rte_mbuf *mark_ce(struct stk_impair *s, struct rte_mbuf *m)
{
	uint32_t l2 = l2_len(m);
	uint8_t *ip;

	if (m->data_len < l2 + sizeof(struct rte_ipv6_hdr) && m->data_len < l2 + 20)
		return m;
	ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l2);
	if ((ip[0] >> 4) == 4 ? (ip[1] & 3) == 0 : (ip[0] >> 4) != 6 || ((ip[1] >> 4) & 3) == 0)
		return m; /* not IP, or not ECN-capable */
	if (!writable(m)) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);

		if (!c)
			return m;
		rte_pktmbuf_free(m);
		m = c;
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l2);
	}
	if ((ip[0] >> 4) == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->type_of_service |= 3;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		ip[1] |= 3 << 4; /* the ECN bits are the low two of the traffic class */
	}
	m->ol_flags &= ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
	s->cnt[STK_CNT_impair_ce_marked]++;
	return m;
}

/*
 * A frame that waits (delayed, held for reordering) keeps the bytes it had when it was sent, as
 * on a wire: one whose data is shared (an external buffer over memory a RoCE sender reuses once
 * its message completes, a clone) waits as a private copy. rpcrdma_veth saw one frame, held
 * while its retransmission completed the WRITE, go out later with the server's next data under
 * the old ICRC. @return the frame to hold (@m, or its copy; @m when no mbuf is left)
 */
static struct rte_mbuf *own_bytes(struct stk_impair *s, struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (writable(m))
		return m;
	c = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);
	if (!c)
		return m;
	rte_pktmbuf_free(m);
	return c;
}

static bool delay_push(struct stk_impair *s, struct rte_mbuf *m)
{
	unsigned slot;

	if (s->dq_len == STK_IMPAIR_DELAY_SLOTS)
		return false;
	slot = (s->dq_head + s->dq_len) & (STK_IMPAIR_DELAY_SLOTS - 1);
	s->dq[slot].m = m;
	s->dq[slot].due = rte_get_tsc_cycles() + s->delay_tsc;
	s->dq_len++;
	return true;
}

/* Corrupt, delay and reorder one frame that survived the drop. @return frames put in @out. */
static unsigned stage(struct stk_impair *s, struct rte_mbuf *m, struct rte_mbuf **out)
{
	struct rte_mbuf *held = s->held;
	unsigned n = 0;

	if (chance(s, K_CORRUPT))
		m = corrupt(s, m);
	if (chance(s, K_CE))
		m = mark_ce(s, m);
	if (chance(s, K_DELAY)) {
		if (s->dq_len < STK_IMPAIR_DELAY_SLOTS)
			m = own_bytes(s, m);
		if (delay_push(s, m)) {
			s->cnt[STK_CNT_impair_delayed]++;
			m = NULL;
		} else {
			s->cnt[STK_CNT_impair_delay_full]++;
		}
	}
	/* the follower of a held frame is never held itself: it has to release it */
	if (m && !held && chance(s, K_REORDER)) {
		s->held = own_bytes(s, m);
		s->held_due = rte_get_tsc_cycles() + s->hold_tsc;
		s->cnt[STK_CNT_impair_reordered]++;
		return 0;
	}
	if (m)
		out[n++] = m;
	if (held) {
		out[n++] = held;
		s->held = NULL;
	}
	return n;
}

unsigned stk_impair_frame(struct stk_impair *s, struct rte_mbuf *m, struct rte_mbuf **out)
{
	struct rte_mbuf *copy = NULL;
	unsigned n;

	if (s->roce_only && !is_roce(m)) {
		out[0] = m;
		return 1;
	}
	if (chance(s, K_DROP)) {
		s->cnt[STK_CNT_impair_dropped]++;
		rte_pktmbuf_free(m);
		return 0;
	}
	/* a deep copy, so that corrupting one of the two leaves the other intact */
	if (chance(s, K_DUP)) {
		copy = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);
		if (copy)
			s->cnt[STK_CNT_impair_duplicated]++;
	}
	n = stage(s, m, out);
	if (copy)
		n += stage(s, copy, out + n);
	return n;
}

unsigned stk_impair_due(struct stk_impair *s, uint64_t now, struct rte_mbuf **out, unsigned max)
{
	unsigned n = 0;

	while (n < max && s->dq_len && s->dq[s->dq_head].due <= now) {
		out[n++] = s->dq[s->dq_head].m;
		s->dq_head = (uint16_t)((s->dq_head + 1) & (STK_IMPAIR_DELAY_SLOTS - 1));
		s->dq_len--;
	}
	if (n < max && s->held && now >= s->held_due) {
		out[n++] = s->held;
		s->held = NULL;
	}
	return n;
}

/* ---------------- settings and lcore state ---------------- */

bool stk_impair_conf_on(const struct stk_impair_conf *c)
{
	if (!c)
		return false;
	for (unsigned k = 0; k < K_NUM; k++)
		if (rate(c, (enum kind)k))
			return true;
	return false;
}

static struct stk_impair *state_create(struct stk_lcore *lc, uint16_t iface,
				       enum stk_impair_dir dir)
{
	const struct stk_impair_conf *c = &confs[iface][dir];
	uint64_t hz = rte_get_tsc_hz(), x, stream;
	struct stk_impair *s;

	s = rte_zmalloc_socket("stk_impair", sizeof(*s), RTE_CACHE_LINE_SIZE,
			       (int)rte_lcore_to_socket_id(lc->lcore_id));
	if (!s)
		return NULL;
	for (unsigned k = 0; k < K_NUM; k++) {
		/* ppm / 10^6 of 2^32, rounded; 10^6 ppm is 2^32: always */
		uint64_t ppm = rate(c, (enum kind)k);

		s->thr[k] = ((ppm << 32) + STK_IMPAIR_PPM / 2) / STK_IMPAIR_PPM;
	}
	s->delay_tsc = (uint64_t)c->delay_us * hz / 1000000;
	s->hold_tsc = (uint64_t)STK_IMPAIR_HOLD_US * hz / 1000000;
	s->cnt = lc->stats[iface].c;
	s->pool = lc->pool;
	s->roce_only = c->roce_only;
	/* one stream per lcore, interface and direction; the worker index, not the EAL lcore
	 * id, so that the same -l list shape gives the same streams */
	stream = (uint64_t)lc->index << 32 | (uint64_t)iface << 8 | (uint64_t)dir;
	x = c->seed ^ splitmix64(&stream);
	s->rng = splitmix64(&x);
	if (s->rng == 0)
		s->rng = 1;
	return s;
}

static void state_free(struct stk_impair *s)
{
	uint64_t n = 0;

	if (!s)
		return;
	if (s->held) {
		rte_pktmbuf_free(s->held);
		n++;
	}
	for (; s->dq_len; s->dq_len--, n++) {
		rte_pktmbuf_free(s->dq[s->dq_head].m);
		s->dq_head = (uint16_t)((s->dq_head + 1) & (STK_IMPAIR_DELAY_SLOTS - 1));
	}
	/* they never reached the other side */
	s->cnt[STK_CNT_impair_dropped] += n;
	rte_free(s);
}

static void lcore_set(struct stk_lcore *lc, uint16_t iface, enum stk_impair_dir dir,
		      struct stk_impair *s)
{
	struct stk_impair *old = lc->impair[iface][dir];

	lc->impair[iface][dir] = s;
	lc->nb_impair = lc->nb_impair - (old != NULL) + (s != NULL);
	state_free(old);
}

int stk_impair_attach(struct stk_lcore *lc)
{
	for (uint16_t i = 0; i < STK_MAX_PORTS; i++) {
		for (unsigned d = 0; d < STK_IMPAIR_NUM_DIRS; d++) {
			struct stk_impair *s;

			if (!stk_impair_conf_on(&confs[i][d]))
				continue;
			s = state_create(lc, i, (enum stk_impair_dir)d);
			if (!s)
				return -ENOMEM;
			lcore_set(lc, i, (enum stk_impair_dir)d, s);
		}
	}
	return 0;
}

void stk_impair_detach(struct stk_lcore *lc)
{
	for (uint16_t i = 0; i < STK_MAX_PORTS; i++)
		for (unsigned d = 0; d < STK_IMPAIR_NUM_DIRS; d++)
			lcore_set(lc, i, (enum stk_impair_dir)d, NULL);
}

int stk_impair_set(uint16_t iface, enum stk_impair_dir dir, const struct stk_impair_conf *c)
{
	bool on = stk_impair_conf_on(c);

	if (iface >= STK_MAX_PORTS || (unsigned)dir >= STK_IMPAIR_NUM_DIRS)
		return -EINVAL;
	if (on) {
		for (unsigned k = 0; k < K_NUM; k++)
			if (rate(c, (enum kind)k) > STK_IMPAIR_PPM)
				return -EINVAL;
		if (c->delay_ppm && (c->delay_us == 0 || c->delay_us > STK_IMPAIR_MAX_DELAY_US))
			return -EINVAL;
		confs[iface][dir] = *c;
	} else {
		memset(&confs[iface][dir], 0, sizeof(confs[iface][dir]));
	}
	for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
		struct stk_lcore *lc = stk_lcore_get(id);
		struct stk_impair *s = NULL;

		if (!lc)
			continue;
		if (on) {
			s = state_create(lc, iface, dir);
			if (!s) {
				stk_impair_set(iface, dir, NULL);
				return -ENOMEM;
			}
		}
		lcore_set(lc, iface, dir, s);
	}
	return 0;
}

/* ---------------- configuration syntax ---------------- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "1%", "0.25%", "0.0001%", "250ppm" -> parts per million. @return the end, or NULL. */
static const char *parse_rate(const char *p, uint32_t *ppm)
{
	uint64_t whole = 0, frac = 0;
	unsigned nd = 0, nf = 0;

	for (; is_digit(*p); p++, nd++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > STK_IMPAIR_PPM)
			return NULL;
	}
	if (nd == 0)
		return NULL;
	if (!strncmp(p, "ppm", 3)) {
		*ppm = (uint32_t)whole;
		return p + 3;
	}
	if (*p == '.') {
		for (p++; is_digit(*p); p++) {
			if (++nf > 4)
				return NULL; /* finer than 1 ppm */
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (nf == 0)
			return NULL;
	}
	if (*p != '%')
		return NULL;
	for (; nf < 4; nf++)
		frac *= 10;
	whole = whole * 10000 + frac;
	if (whole > STK_IMPAIR_PPM)
		return NULL;
	*ppm = (uint32_t)whole;
	return p + 1;
}

/* "200us", "2ms", "1s" -> microseconds, 1..STK_IMPAIR_MAX_DELAY_US. @return 0 or -1. */
static int parse_time(const char *p, uint32_t *us)
{
	uint64_t v = 0, unit;
	unsigned nd = 0;

	for (; is_digit(*p); p++, nd++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > STK_IMPAIR_MAX_DELAY_US)
			return -1;
	}
	if (nd == 0)
		return -1;
	if (!strcmp(p, "us"))
		unit = 1;
	else if (!strcmp(p, "ms"))
		unit = 1000;
	else if (!strcmp(p, "s"))
		unit = 1000000;
	else
		return -1;
	v *= unit;
	if (v == 0 || v > STK_IMPAIR_MAX_DELAY_US)
		return -1;
	*us = (uint32_t)v;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int parse_item(char *item, struct stk_impair_conf *c, unsigned *seen, char *why,
		      size_t whylen)
{
	char *eq = strchr(item, '=');
	const char *v;

	if (!strcmp(item, "roce_only") || !strncmp(item, "roce_only=", 10)) {
		if (item[9] == '=') {
			snprintf(why, whylen, "\"roce_only\" takes no value");
			return -EINVAL;
		}
		if (*seen & 1u << K_NUM) {
			snprintf(why, whylen, "\"roce_only\" given twice");
			return -EINVAL;
		}
		*seen |= 1u << K_NUM;
		c->roce_only = true;
		return 0;
	}
	if (!eq) {
		snprintf(why, whylen, "\"%s\" is not key=value", item);
		return -EINVAL;
	}
	*eq = '\0';
	item = trim(item);
	v = trim(eq + 1);
	if (!strcmp(item, "seed")) {
		char *end;

		if (*seen & 1u << (K_NUM + 1)) {
			snprintf(why, whylen, "\"seed\" given twice");
			return -EINVAL;
		}
		*seen |= 1u << (K_NUM + 1);
		errno = 0;
		c->seed = strtoull(v, &end, 0);
		if (errno || end == v || *end != '\0' || v[0] == '-' || v[0] == '+' ||
		    v[0] == ' ') {
			snprintf(why, whylen, "seed=%s: expected an unsigned 64-bit integer", v);
			return -EINVAL;
		}
		return 0;
	}
	for (unsigned k = 0; k < K_NUM; k++) {
		const char *end;

		if (strcmp(item, kind_key[k]) != 0)
			continue;
		if (*seen & 1u << k) {
			snprintf(why, whylen, "\"%s\" given twice", item);
			return -EINVAL;
		}
		*seen |= 1u << k;
		{
			uint32_t r = 0;

			end = parse_rate(v, &r);
			set_rate(c, (enum kind)k, r);
		}
		if (!end || (k == K_DELAY ? *end != ':' : *end != '\0')) {
			snprintf(why, whylen, "%s=%s: expected %s", item, v,
				 k == K_DELAY ? "a rate and a time, like 1%:200us"
					      : "a rate, like 1% or 250ppm, at most 100%");
			return -EINVAL;
		}
		if (k == K_DELAY && parse_time(end + 1, &c->delay_us) != 0) {
			snprintf(why, whylen,
				 "%s=%s: the time must be 1us to 1s, like 200us or 2ms", item, v);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, whylen, "unknown key \"%s\"", item);
	return -EINVAL;
}

int stk_impair_parse(const char *s, struct stk_impair_conf *c, char *why, size_t whylen)
{
	char buf[256], *item, *comma;
	unsigned seen = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, whylen, "longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, s);
	item = trim(buf);
	if (*item == '\0' || !strcmp(item, "off"))
		return 0;
	for (;;) {
		comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		item = trim(item);
		if (*item == '\0') {
			snprintf(why, whylen, "an empty item");
			rc = -EINVAL;
		} else {
			rc = parse_item(item, c, &seen, why, whylen);
		}
		if (rc != 0) {
			memset(c, 0, sizeof(*c));
			return rc;
		}
		if (!comma)
			break;
		item = comma + 1;
	}
	return 0;
}

/* "1%", "0.25%", "0.0001%" */
static void rate_str(uint32_t ppm, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%u.%04u", ppm / 10000, ppm % 10000);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	snprintf(buf + n, len - n, "%%");
}

const char *stk_impair_str(const struct stk_impair_conf *c, char *buf, size_t len)
{
	size_t n = 0;
	char r[24];

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (!stk_impair_conf_on(c)) {
		snprintf(buf, len, "off");
		return buf;
	}
	for (unsigned k = 0; k < K_NUM && n < len; k++) {
		uint32_t ppm = rate(c, (enum kind)k);

		if (!ppm)
			continue;
		rate_str(ppm, r, sizeof(r));
		n += (size_t)snprintf(buf + n, len - n, "%s=%s", kind_key[k], r);
		if (k == K_DELAY && n < len) {
			if (c->delay_us % 1000000 == 0)
				n += (size_t)snprintf(buf + n, len - n, ":%us",
						      c->delay_us / 1000000);
			else if (c->delay_us % 1000 == 0)
				n += (size_t)snprintf(buf + n, len - n, ":%ums",
						      c->delay_us / 1000);
			else
				n += (size_t)snprintf(buf + n, len - n, ":%uus", c->delay_us);
		}
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, ",");
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "seed=%" PRIu64, c->seed);
	if (c->roce_only && n < len)
		snprintf(buf + n, len - n, ",roce_only");
	return buf;
}
