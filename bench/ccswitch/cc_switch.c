/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_switch.c - the congestion test switch (cc_switch.h): ingress classification and MAC
 * learning, per-egress FIFO with tail drop, RED/ECN marking, random loss, PFC generation and
 * honouring, token-bucket service, and the time series.
 *
 * Packet path of one ccs_poll(): in[k] -> ingress() [PFC frames consumed, MAC learned, flood or
 * forward] -> enqueue() [loss, tail drop, RED mark] -> egress FIFO -> pfc_run() [XOFF/XON to
 * the feeding ports] -> serve() [token bucket, PFC pause from the endpoint] -> out[j].
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "cc_switch.h"
#include "stk_pfc.h"

#define MAC_TABLE 64
#define IN_BURST 32
#define IN_BUDGET 1024 /* frames per ingress port per poll, so one port cannot starve others */

struct mac_entry {
	struct rte_ether_addr mac;
	uint8_t port;
	bool fixed; /**< configured: learning does not move it */
	bool used;
};

/** One egress port's queue. */
struct eq {
	struct ccs_egress_conf c;
	struct rte_mbuf **ring; /**< FIFO of frames, size a power of two */
	uint32_t mask;
	uint32_t head, n; /**< oldest frame, frames queued */
	uint32_t bytes;	  /**< frame bytes queued */
	struct ccs_bucket tb;
	struct stk_pfc_gen gen;		/**< hysteresis of this queue's XOFF/XON */
	uint32_t feeders;		/**< ingress ports that queued here since the last XON */
	uint32_t want;			/**< ingress ports this queue wants paused */
	struct stk_pfc_rx_state prx;	/**< pauses the endpoint asked of us */
	uint64_t paused_since;		/**< TSC when a pause by the endpoint was first seen; 0 */
	uint64_t in_period, out_period; /**< bytes in/out since the last sample */
};

/** Per ingress port: the PFC state we keep towards its endpoint. */
struct ip_pfc {
	bool xoff_on;
	uint64_t last_xoff;
};

struct ccs {
	struct ccs_conf c;
	struct eq eq[CCS_MAX_PORTS];
	struct ip_pfc ipfc[CCS_MAX_PORTS];
	struct ccs_port_stats st[CCS_MAX_PORTS];
	struct mac_entry macs[MAC_TABLE];
	uint64_t refresh; /**< XOFF refresh period (TSC) */
	uint64_t rng;
	uint64_t next_sample;
	struct ccs_sample *samples;
	uint32_t nsamples;
};

void ccs_conf_default(struct ccs_conf *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned k = 0; k < CCS_MAX_PORTS; k++) {
		struct ccs_egress_conf *e = &c->eg[k];

		e->capacity = 1u << 20;
		e->kmin = 5000;
		e->kmax = 200000;
		e->pmax = 0.01;
		e->pfc_xoff = 64u << 10;
		e->pfc_xon = 32u << 10;
		e->honour_pfc = true;
	}
	c->pfc_prio = 3;
	c->pfc_quanta = 0xffff;
	c->pfc_link_bps = 10000000000ull;
	c->max_samples = 200000;
	c->seed = 1;
	c->mac = (struct rte_ether_addr){{0x02, 0xcc, 0x5e, 0, 0, 1}};
}

/* ------------------------------------------------------------------ pieces */

double ccs_red_prob(const struct ccs_egress_conf *e, uint32_t q)
{
	if (q < e->kmin)
		return 0;
	if (q > e->kmax)
		return 1;
	if (e->kmax == e->kmin)
		return e->pmax;
	return e->pmax * (double)(q - e->kmin) / (double)(e->kmax - e->kmin);
}

void ccs_bucket_init(struct ccs_bucket *b, uint64_t rate_bps, uint32_t burst, uint64_t hz,
		     uint64_t now)
{
	b->rate_bps = rate_bps;
	b->burst = burst ? burst : 2 * 9216;
	b->tokens = b->burst;
	b->last = now;
	b->hz = hz;
}

bool ccs_bucket_take(struct ccs_bucket *b, uint32_t bytes, uint64_t now)
{
	if (b->rate_bps == 0)
		return true;
	if (now > b->last) {
		b->tokens += (double)(now - b->last) * (double)b->rate_bps / 8.0 / (double)b->hz;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
		b->last = now;
	}
	if (b->tokens < bytes)
		return false;
	b->tokens -= bytes;
	return true;
}

/* xorshift64*: uniform in [0, 1) */
static double rnd(struct ccs *sw)
{
	uint64_t x = sw->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	sw->rng = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static bool egress_conf_ok(const struct ccs_egress_conf *e)
{
	return e->capacity > 0 && e->kmin <= e->kmax && e->pmax >= 0 && e->pmax <= 1 &&
	       e->loss >= 0 && e->loss <= 1 && (!e->pfc || e->pfc_xon < e->pfc_xoff);
}

static void eq_apply(struct ccs *sw, struct eq *q, const struct ccs_egress_conf *e, uint64_t now)
{
	q->c = *e;
	ccs_bucket_init(&q->tb, e->rate_bps, e->burst, sw->c.hz, now);
	q->gen.xoff_at = e->pfc_xoff;
	q->gen.xon_at = e->pfc_xon;
	q->gen.quanta = sw->c.pfc_quanta;
	q->gen.refresh = 0; /* refreshed per ingress port, see pfc_run() */
}

/* ------------------------------------------------------------------ life */

struct ccs *ccs_create(const struct ccs_conf *c, uint64_t now)
{
	struct ccs *sw;

	if (!c || c->nports < 2 || c->nports > CCS_MAX_PORTS || !c->pool || c->hz == 0 ||
	    c->pfc_prio >= STK_PFC_PRIOS || c->pfc_link_bps == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (unsigned k = 0; k < c->nports; k++)
		if (!c->in[k] || !c->out[k] || !egress_conf_ok(&c->eg[k])) {
			rte_errno = EINVAL;
			return NULL;
		}
	sw = rte_zmalloc("ccs", sizeof(*sw), RTE_CACHE_LINE_SIZE);
	if (!sw)
		goto nomem;
	sw->c = *c;
	sw->rng = c->seed ? c->seed : 1;
	sw->refresh = stk_pfc_refresh_tsc(c->pfc_quanta, c->hz, c->pfc_link_bps);
	for (unsigned k = 0; k < c->nports; k++) {
		struct eq *q = &sw->eq[k];
		/* room for a full queue of minimum-size frames */
		uint32_t slots = rte_align32pow2(c->eg[k].capacity / 60 + 64);

		q->ring = rte_zmalloc("ccs_q", slots * sizeof(*q->ring), RTE_CACHE_LINE_SIZE);
		if (!q->ring)
			goto nomem;
		q->mask = slots - 1;
		eq_apply(sw, q, &c->eg[k], now);
	}
	if (c->sample_cycles && c->max_samples) {
		sw->samples = rte_zmalloc("ccs_ts", (size_t)c->max_samples * sizeof(*sw->samples),
					  RTE_CACHE_LINE_SIZE);
		if (!sw->samples)
			goto nomem;
		sw->next_sample = now + c->sample_cycles;
	}
	return sw;
nomem:
	ccs_destroy(sw);
	rte_errno = ENOMEM;
	return NULL;
}

void ccs_destroy(struct ccs *sw)
{
	if (!sw)
		return;
	for (unsigned k = 0; k < CCS_MAX_PORTS; k++) {
		struct eq *q = &sw->eq[k];

		for (uint32_t i = 0; q->ring && i < q->n; i++)
			rte_pktmbuf_free(q->ring[(q->head + i) & q->mask]);
		rte_free(q->ring);
	}
	rte_free(sw->samples);
	rte_free(sw);
}

int ccs_set_mac(struct ccs *sw, unsigned port, const struct rte_ether_addr *mac)
{
	if (!sw || !mac || port >= sw->c.nports)
		return -EINVAL;
	for (unsigned i = 0; i < MAC_TABLE; i++) {
		struct mac_entry *e = &sw->macs[i];

		if (!e->used || rte_is_same_ether_addr(&e->mac, mac)) {
			*e = (struct mac_entry){
				.mac = *mac, .port = (uint8_t)port, .fixed = true, .used = true};
			return 0;
		}
	}
	return -EINVAL;
}

int ccs_set_egress(struct ccs *sw, unsigned port, const struct ccs_egress_conf *e)
{
	if (!sw || !e || port >= sw->c.nports || !egress_conf_ok(e))
		return -EINVAL;
	eq_apply(sw, &sw->eq[port], e, sw->eq[port].tb.last);
	sw->c.eg[port] = *e;
	return 0;
}

/* ------------------------------------------------------------------ ingress */

static void learn(struct ccs *sw, const struct rte_ether_addr *src, unsigned port)
{
	struct mac_entry *free_e = NULL;

	if (rte_is_multicast_ether_addr(src))
		return;
	for (unsigned i = 0; i < MAC_TABLE; i++) {
		struct mac_entry *e = &sw->macs[i];

		if (!e->used) {
			if (!free_e)
				free_e = e;
			continue;
		}
		if (rte_is_same_ether_addr(&e->mac, src)) {
			if (!e->fixed)
				e->port = (uint8_t)port;
			return;
		}
	}
	if (free_e)
		*free_e = (struct mac_entry){.mac = *src, .port = (uint8_t)port, .used = true};
}

/* @return the port of @p dst, or -1 (flood). */
static int lookup(const struct ccs *sw, const struct rte_ether_addr *dst)
{
	if (rte_is_multicast_ether_addr(dst))
		return -1;
	for (unsigned i = 0; i < MAC_TABLE; i++)
		if (sw->macs[i].used && rte_is_same_ether_addr(&sw->macs[i].mac, dst))
			return sw->macs[i].port;
	return -1;
}

/*
 * Find the ECN bits of an IPv4 or IPv6 frame (untagged or one 802.1Q tag) in @p m's first
 * segment. @return a pointer to the ToS byte (IPv4) or the first byte of vtc_flow (IPv6, the
 * ECN bits are then bits 4-5 of the second byte), with *v6 set; NULL when not IP.
 */
static uint8_t *ip_hdr(struct rte_mbuf *m, bool *v6)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = sizeof(struct rte_ether_hdr);
	uint16_t et;

	if (len < off)
		return NULL;
	et = rte_be_to_cpu_16(((struct rte_ether_hdr *)p)->ether_type);
	if (et == RTE_ETHER_TYPE_VLAN) {
		if (len < off + 4)
			return NULL;
		et = rte_be_to_cpu_16(*(rte_be16_t *)(p + off + 2));
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4 && len >= off + sizeof(struct rte_ipv4_hdr)) {
		*v6 = false;
		return p + off;
	}
	if (et == RTE_ETHER_TYPE_IPV6 && len >= off + sizeof(struct rte_ipv6_hdr)) {
		*v6 = true;
		return p + off;
	}
	return NULL;
}

/* Set CE on an ECT frame with probability @p prob. @return true when ECT (marked or not). */
static bool red_mark(struct ccs *sw, struct rte_mbuf *m, double prob, struct ccs_port_stats *st)
{
	bool v6;
	uint8_t *ip = ip_hdr(m, &v6), ecn;

	if (!ip)
		return false;
	ecn = v6 ? (uint8_t)((ip[1] >> 4) & 3) : (uint8_t)(ip[1] & 3);
	if (ecn != 1 && ecn != 2)
		return false;
	st->ect++;
	if (prob <= 0 || (prob < 1 && rnd(sw) >= prob))
		return true;
	/* the header segment is ours alone: the transport builds one per frame */
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
		return true;
	if (v6) {
		ip[1] |= 0x30;
	} else {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->type_of_service |= 3;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	st->marks++;
	return true;
}

/* Queue @p m (from ingress port @p from) on egress @p to. Takes @p m. */
static void enqueue(struct ccs *sw, unsigned to, unsigned from, struct rte_mbuf *m, bool impair)
{
	struct eq *q = &sw->eq[to];
	struct ccs_port_stats *st = &sw->st[to];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (impair && q->c.loss > 0 && rnd(sw) < q->c.loss) {
		st->drop_loss++;
		rte_pktmbuf_free(m);
		return;
	}
	if ((uint64_t)q->bytes + len > q->c.capacity || q->n > q->mask) {
		st->drop_tail++;
		rte_pktmbuf_free(m);
		return;
	}
	if (q->c.ecn)
		red_mark(sw, m, ccs_red_prob(&q->c, q->bytes), st);
	q->ring[(q->head + q->n) & q->mask] = m;
	q->n++;
	q->bytes += len;
	if (q->bytes > st->q_max_bytes)
		st->q_max_bytes = q->bytes;
	q->feeders |= 1u << from;
}

static bool is_pfc_frame(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_pktmbuf_data_len(m) >= sizeof(*eh) &&
	       eh->ether_type == rte_cpu_to_be_16(STK_PFC_ETHERTYPE);
}

/* One frame from ingress port @p k at @p now. Takes @p m. */
static void ingress(struct ccs *sw, unsigned k, struct rte_mbuf *m, uint64_t now)
{
	struct ccs_port_stats *st = &sw->st[k];
	const struct rte_ether_hdr *eh;
	int to;

	st->rx_frames++;
	st->rx_bytes += rte_pktmbuf_pkt_len(m);
	sw->eq[k].in_period += rte_pktmbuf_pkt_len(m);
	if (rte_pktmbuf_data_len(m) < sizeof(*eh)) {
		st->drop_other++;
		rte_pktmbuf_free(m);
		return;
	}
	if (is_pfc_frame(m)) {
		struct stk_pfc pfc;

		/* MAC Control frames end at the link: honour, never forward */
		if (stk_pfc_decode(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &pfc) ==
		    0) {
			st->pfc_rx++;
			if (sw->eq[k].c.honour_pfc)
				stk_pfc_apply(&sw->eq[k].prx, &pfc, now, sw->c.hz,
					      sw->c.pfc_link_bps);
		} else {
			st->drop_other++;
		}
		rte_pktmbuf_free(m);
		return;
	}
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	learn(sw, &eh->src_addr, k);
	to = lookup(sw, &eh->dst_addr);
	if (to == (int)k) {
		st->drop_other++; /* hairpin: the destination sits behind the same port */
		rte_pktmbuf_free(m);
		return;
	}
	if (to >= 0) {
		enqueue(sw, (unsigned)to, k, m, true);
		return;
	}
	st->flooded++;
	for (unsigned j = 0; j < sw->c.nports; j++) {
		struct rte_mbuf *c;

		if (j == k)
			continue;
		c = rte_pktmbuf_copy(m, sw->c.pool, 0, UINT32_MAX);
		if (!c) {
			st->drop_other++;
			continue;
		}
		enqueue(sw, j, k, c, false);
	}
	rte_pktmbuf_free(m);
}

/* ------------------------------------------------------------------ PFC */

/* Send a PFC frame to port @p k's endpoint: XOFF (quanta) or XON (0) for the lossless class. */
static void pfc_send(struct ccs *sw, unsigned k, bool xoff)
{
	struct stk_pfc pfc = {.class_enable = (uint8_t)(1u << sw->c.pfc_prio)};
	struct rte_mbuf *m = rte_pktmbuf_alloc(sw->c.pool);
	char *p;

	pfc.quanta[sw->c.pfc_prio] = xoff ? sw->c.pfc_quanta : 0;
	p = m ? rte_pktmbuf_append(m, STK_PFC_FRAME_LEN) : NULL;
	if (!p || stk_pfc_encode(&sw->c.mac, &pfc, p, STK_PFC_FRAME_LEN) < 0 ||
	    rte_ring_enqueue(sw->c.out[k], m) != 0) {
		sw->st[k].drop_out++;
		rte_pktmbuf_free(m);
		return;
	}
	if (xoff)
		sw->st[k].pfc_xoff_tx++;
	else
		sw->st[k].pfc_xon_tx++;
}

/*
 * Each PFC-enabled queue decides with hysteresis whether it wants its feeders paused; an
 * ingress port is paused while any queue wants it, its XOFF refreshed every half pause, and
 * released with one XON when no queue wants it any more (a port feeding two queues is not
 * released by one of them while the other is still over).
 */
static void pfc_run(struct ccs *sw, uint64_t now)
{
	uint32_t wanted = 0;
	unsigned n = sw->c.nports;

	for (unsigned j = 0; j < n; j++) {
		struct eq *q = &sw->eq[j];

		if (!q->c.pfc) {
			q->want = 0;
			continue;
		}
		switch (stk_pfc_gen_step(&q->gen, q->bytes, now)) {
		case STK_PFC_SEND_XON:
			q->want = 0;
			q->feeders = 0;
			break;
		case STK_PFC_SEND_XOFF:
		case STK_PFC_NONE:
		default:
			if (q->gen.xoff_sent)
				q->want = q->c.pfc_all_ports ? (((1u << n) - 1) & ~(1u << j))
							     : q->feeders & ~(1u << j);
			break;
		}
		wanted |= q->want;
	}
	for (unsigned k = 0; k < n; k++) {
		struct ip_pfc *ip = &sw->ipfc[k];
		bool want = wanted & (1u << k);

		if (want && (!ip->xoff_on || now - ip->last_xoff >= sw->refresh)) {
			ip->xoff_on = true;
			ip->last_xoff = now;
			pfc_send(sw, k, true);
		} else if (!want && ip->xoff_on) {
			ip->xoff_on = false;
			pfc_send(sw, k, false);
		}
	}
}

/* ------------------------------------------------------------------ egress */

static unsigned serve(struct ccs *sw, unsigned j, uint64_t now)
{
	struct eq *q = &sw->eq[j];
	struct ccs_port_stats *st = &sw->st[j];
	unsigned sent = 0;

	if (q->c.honour_pfc && stk_pfc_paused(&q->prx, sw->c.pfc_prio, now)) {
		if (!q->paused_since)
			q->paused_since = now;
		return 0;
	}
	if (q->paused_since) {
		st->paused_cycles += now - q->paused_since;
		q->paused_since = 0;
	}
	while (q->n) {
		struct rte_mbuf *m = q->ring[q->head];
		uint32_t len = rte_pktmbuf_pkt_len(m);

		if (!ccs_bucket_take(&q->tb, len + CCS_WIRE_OVERHEAD, now))
			break;
		if (rte_ring_enqueue(sw->c.out[j], m) != 0) {
			if (q->tb.rate_bps)
				q->tb.tokens += len + CCS_WIRE_OVERHEAD;
			break; /* the endpoint is behind: keep it queued */
		}
		q->head = (q->head + 1) & q->mask;
		q->n--;
		q->bytes -= len;
		st->tx_frames++;
		st->tx_bytes += len;
		q->out_period += len;
		sent++;
	}
	if (!q->n && q->tb.rate_bps && q->tb.tokens > q->tb.burst)
		q->tb.tokens = q->tb.burst;
	return sent;
}

/* ------------------------------------------------------------------ time series */

static void sample(struct ccs *sw, uint64_t now)
{
	struct ccs_sample *s;
	struct ccs_totals t;

	if (sw->nsamples >= sw->c.max_samples)
		goto reset;
	s = &sw->samples[sw->nsamples++];
	memset(s, 0, sizeof(*s));
	s->tsc = now;
	for (unsigned k = 0; k < sw->c.nports; k++) {
		s->q_bytes[k] = sw->eq[k].bytes;
		s->q_frames[k] = sw->eq[k].n;
		s->in_bytes[k] = sw->eq[k].in_period;
		s->out_bytes[k] = sw->eq[k].out_period;
	}
	ccs_totals(sw, &t);
	s->marks = t.marks;
	s->pauses = t.pauses;
	s->drops = t.drops;
reset:
	for (unsigned k = 0; k < sw->c.nports; k++)
		sw->eq[k].in_period = sw->eq[k].out_period = 0;
}

void ccs_samples_reset(struct ccs *sw, uint64_t now)
{
	sw->nsamples = 0;
	for (unsigned k = 0; k < sw->c.nports; k++)
		sw->eq[k].in_period = sw->eq[k].out_period = 0;
	if (sw->c.sample_cycles)
		sw->next_sample = now + sw->c.sample_cycles;
}

const struct ccs_sample *ccs_samples(const struct ccs *sw, uint32_t *n)
{
	*n = sw->nsamples;
	return sw->samples;
}

/* ------------------------------------------------------------------ poll */

unsigned ccs_poll(struct ccs *sw, uint64_t now)
{
	unsigned n = sw->c.nports, moved = 0, got[CCS_MAX_PORTS] = {0};
	bool more = true;

	/* round robin over the ingress ports, a burst at a time, so arrival order mixes */
	while (more) {
		more = false;
		for (unsigned k = 0; k < n; k++) {
			struct rte_mbuf *b[IN_BURST];
			unsigned nb;

			if (got[k] >= IN_BUDGET)
				continue;
			nb = rte_ring_dequeue_burst(sw->c.in[k], (void **)b, IN_BURST, NULL);
			for (unsigned i = 0; i < nb; i++)
				ingress(sw, k, b[i], now);
			got[k] += nb;
			moved += nb;
			if (nb == IN_BURST)
				more = true;
		}
	}
	pfc_run(sw, now);
	for (unsigned j = 0; j < n; j++)
		moved += serve(sw, j, now);
	/* PFC again after serving, so XON goes as soon as the queue drains */
	pfc_run(sw, now);
	if (sw->samples && now >= sw->next_sample) {
		sample(sw, now);
		sw->next_sample += sw->c.sample_cycles;
		if (sw->next_sample <= now) /* a long stall: no catch-up burst of samples */
			sw->next_sample = now + sw->c.sample_cycles;
	}
	return moved;
}

/* ------------------------------------------------------------------ counters, JSON */

int ccs_port_stats(const struct ccs *sw, unsigned port, struct ccs_port_stats *out)
{
	if (!sw || !out || port >= sw->c.nports)
		return -EINVAL;
	*out = sw->st[port];
	out->q_bytes = sw->eq[port].bytes;
	out->q_frames = sw->eq[port].n;
	return 0;
}

void ccs_totals(const struct ccs *sw, struct ccs_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned k = 0; k < sw->c.nports; k++) {
		const struct ccs_port_stats *s = &sw->st[k];

		t->drop_tail += s->drop_tail;
		t->drop_loss += s->drop_loss;
		t->drops += s->drop_tail + s->drop_loss + s->drop_out + s->drop_other;
		t->marks += s->marks;
		t->pauses += s->pfc_xoff_tx;
		t->xons += s->pfc_xon_tx;
		t->pfc_rx += s->pfc_rx;
		t->fwd_frames += s->tx_frames;
		t->fwd_bytes += s->tx_bytes;
	}
}

static void json_u32s(FILE *f, const char *name, const uint32_t *v, unsigned n)
{
	fprintf(f, "\"%s\":[", name);
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%s%" PRIu32, k ? "," : "", v[k]);
	fprintf(f, "]");
}

static void json_u64s(FILE *f, const char *name, const uint64_t *v, unsigned n)
{
	fprintf(f, "\"%s\":[", name);
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", v[k]);
	fprintf(f, "]");
}

int ccs_write_json(const struct ccs *sw, FILE *f)
{
	unsigned n = sw->c.nports;
	uint64_t t0 = sw->nsamples ? sw->samples[0].tsc - sw->c.sample_cycles : 0;
	double us = 1e6 / (double)sw->c.hz;
	struct ccs_totals t;

	ccs_totals(sw, &t);
	fprintf(f, "{\"nports\":%u,\"pfc_prio\":%u,\"pfc_quanta\":%u,\"sample_us\":%.3f,", n,
		sw->c.pfc_prio, sw->c.pfc_quanta, (double)sw->c.sample_cycles * us);
	fprintf(f,
		"\"totals\":{\"drops\":%" PRIu64 ",\"drop_tail\":%" PRIu64 ",\"drop_loss\":%" PRIu64
		",\"marks\":%" PRIu64 ",\"pauses\":%" PRIu64 ",\"xons\":%" PRIu64
		",\"pfc_rx\":%" PRIu64 ",\"fwd_frames\":%" PRIu64 ",\"fwd_bytes\":%" PRIu64
		"},\"ports\":[",
		t.drops, t.drop_tail, t.drop_loss, t.marks, t.pauses, t.xons, t.pfc_rx,
		t.fwd_frames, t.fwd_bytes);
	for (unsigned k = 0; k < n; k++) {
		const struct ccs_egress_conf *e = &sw->eq[k].c;
		const struct ccs_port_stats *s = &sw->st[k];

		fprintf(f,
			"%s{\"rate_bps\":%" PRIu64 ",\"capacity\":%u,\"ecn\":%s,\"kmin\":%u,"
			"\"kmax\":%u,\"pmax\":%g,\"pfc\":%s,\"pfc_xoff\":%u,\"pfc_xon\":%u,"
			"\"loss\":%g,\"rx_frames\":%" PRIu64 ",\"rx_bytes\":%" PRIu64
			",\"tx_frames\":%" PRIu64 ",\"tx_bytes\":%" PRIu64 ",\"drop_tail\":%" PRIu64
			",\"drop_loss\":%" PRIu64 ",\"drop_out\":%" PRIu64
			",\"drop_other\":%" PRIu64 ",\"marks\":%" PRIu64 ",\"ect\":%" PRIu64
			",\"pfc_xoff_tx\":%" PRIu64 ",\"pfc_xon_tx\":%" PRIu64
			",\"pfc_rx\":%" PRIu64 ",\"paused_us\":%.1f"
			",\"q_max_bytes\":%u}",
			k ? "," : "", e->rate_bps, e->capacity, e->ecn ? "true" : "false", e->kmin,
			e->kmax, e->pmax, e->pfc ? "true" : "false", e->pfc_xoff, e->pfc_xon,
			e->loss, s->rx_frames, s->rx_bytes, s->tx_frames, s->tx_bytes, s->drop_tail,
			s->drop_loss, s->drop_out, s->drop_other, s->marks, s->ect, s->pfc_xoff_tx,
			s->pfc_xon_tx, s->pfc_rx, (double)s->paused_cycles * us, s->q_max_bytes);
	}
	fprintf(f, "],\"samples\":[");
	for (uint32_t i = 0; i < sw->nsamples; i++) {
		const struct ccs_sample *s = &sw->samples[i];

		fprintf(f, "%s\n{\"t_us\":%.1f,", i ? "," : "", (double)(s->tsc - t0) * us);
		json_u32s(f, "q_bytes", s->q_bytes, n);
		fputc(',', f);
		json_u32s(f, "q_frames", s->q_frames, n);
		fputc(',', f);
		json_u64s(f, "in_bytes", s->in_bytes, n);
		fputc(',', f);
		json_u64s(f, "out_bytes", s->out_bytes, n);
		fprintf(f, ",\"marks\":%" PRIu64 ",\"pauses\":%" PRIu64 ",\"drops\":%" PRIu64 "}",
			s->marks, s->pauses, s->drops);
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -EIO : 0;
}
