/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_roce_shapes.c - libFuzzer target for the frame shapes and QP kinds the RC targets do
 * not reach, with the ICRC check on:
 * - whole Ethernet frames of every shape RoCEv2 may arrive in: IPv4, IPv4 with options
 *   (4-40 bytes), IPv6 (any traffic class, flow label, hop limit), an 802.1Q priority tag,
 *   Ethernet padding after the datagram or bytes inside the IP packet after it, a UDP
 *   checksum or none, and split into two or three chained segments at input-chosen offsets.
 *   The harness computes the ICRC with its own CRC-32 (not droce's) and appends it, unless an
 *   input bit keeps the input's or corrupts it; the transport bytes are either built by
 *   roce_tx_build() (any opcode of the QP kinds below, input-chosen fields, PSN relative to
 *   the target QP's state) or taken raw from the input;
 * - on each side of the fuzz_pair.c lab (over IPv4 or IPv6, input-chosen): an RC QP on a shared
 *   receive queue, a UC QP (on its own receive queue or the same SRQ) and a UD QP with an
 *   address handle per family, traffic between them posted by the input (SEND, WRITE, READ,
 *   atomics, SEND_WITH_INVALIDATE, UD datagrams with right or wrong Q_Keys), and three
 *   fast-registration regions per side driven by REG_MR and LOCAL_INV work requests, remote
 *   invalidation, deregistration and re-allocation;
 * - the wire losing, duplicating and reordering frames, QPs moved to ERR or re-created.
 *
 * Checks, after every operation: the ICRC droce computes for a built frame (roce_icrc_calc(),
 * over its segments) equals the harness's; a forged frame, handed straight to the stack, whose
 * ICRC the harness computed is never dropped for its ICRC;
 * every receive WR completes at most once, on a QP that may take it, and a successful one
 * reports no more bytes than its buffer holds; send WRs complete in posting order. Receive
 * buffers and fast-registration regions live in arenas that are poisoned (AddressSanitizer)
 * everywhere except the buffers posted and not yet completed and the regions that are valid
 * (or, while frames point into one, its home): a byte written outside a posted receive buffer (a
 * UC or UD message delivered beyond it, a receive completed twice) or into a region after its
 * invalidation or deregistration is a finding. Without ASan (the replay build), the arenas
 * hold a canary pattern where nothing is live, checked whenever what is live changes.
 * After each input the QPs are destroyed, the wire settles, the regions are deregistered, and
 * mbufs, QPs, MRs and SRQs must be back at their start counts.
 *
 * Input: a header byte (see connect_all()), then records whose first byte is the operation
 * (low 4 bits), the side (bit 4) and the QP kind (bits 5-6: RC, UC, UD). Reads past the end
 * are zeros, so every prefix is a valid input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "fuzz_check.h"
#include "fuzz_pair.h"

#include "roce_dcqcn.h"
#include "roce_engine.h"
#include "roce_icrc.h"
#include "roce_int.h" /* QP PSN state, region state, device drop counters */
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#define MARK(d, off, n) ((void)(d), (void)(off), (void)(n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#define MARK(d, off, n) memset((d)->live_now + (off), 1, (n))
#endif

#define MEM 16384u   /* the main region: payloads, WRITE/READ/atomic targets */
#define ARENA 8192u  /* receive buffers (a local-write-only region) */
#define FRHOME 2048u /* each fast-registration region maps a part of its own home */
#define FRA (NFR * FRHOME)
#define IOVA 0x100000u
#define FR_IOVA 0x200000u
#define NFR 3	 /* fast-registration regions per side, region i in home i of FRA */
#define NRB 48	 /* receive WRs outstanding per side */
#define DEPTH 16 /* queue depths */
#define MAX_OPS 160
#define QKEY 0x1234567u
#define CANARY 0xc5

enum { Q_RC, Q_UC, Q_UD, NQ };
enum { RQ_OWN, RQ_SRQ }; /* where a receive WR went */

#define RECV_BIT (1ull << 63)

struct rbuf {
	uint64_t wr_id; /**< 0: slot free */
	uint8_t q;	/**< the QP kind it was posted for (RC: the SRQ) */
	uint8_t rq;	/**< RQ_OWN or RQ_SRQ */
	uint8_t nsge;
	uint32_t len;
	struct {
		uint8_t *p;
		uint32_t len;
	} sg[2];
};

static struct fuzz_pair fp;
static struct side {
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_srq *srq;
	struct roce_ah *ah[2]; /* UD: to the peer over IPv4, over IPv6 */
	uint8_t *mem, *arena, *fra;
	struct roce_mr *mr, *rmr;
	struct roce_mr *fr[NFR];
	uint32_t fr_key[NFR]; /* the key last registered (also once it is gone) */
	uint64_t fr_reg[NFR]; /* the RC send queue's wr_id sequence of its last REG_MR */
	struct roce_qp *qp[NQ];
	uint32_t qpn[NQ];
	uint64_t send_posted[NQ], send_done[NQ];
	struct rbuf rb[NRB];
	uint64_t rgen;
	/* without ASan: which arena bytes are live (receive arena, then fast-reg arena) */
	uint8_t live_now[ARENA + FRA], live_before[ARENA + FRA];
	uint64_t rb_gen;  /* bumped whenever rb[] changes */
	struct live_key { /* what the poisoning was last computed from */
		uint64_t rb_gen;
		struct {
			const struct roce_mr *mr;
			void *addr;
			uint64_t length;
			uint8_t state;
			bool referenced;
		} fr[NFR];
	} live;
} s[2];
static bool over6, uc_srq;
static uint8_t hdr;
/* With FUZZ_ROCE_SHAPES_TRACE set: every completion, and what each device dropped, printed
 * (to check that a seed does what its name says). */
static bool trace;

/* ------------------------------------------------------------------ the reference ICRC */

static uint32_t crc_tab[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int j = 0; j < 8; j++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[i] = c;
	}
}

static uint32_t crc32_ref(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = crc_tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/*
 * The ICRC of a linear frame, written from IBTA A17.3.3 without droce's code: 8 bytes of ones,
 * the IP header (IPv4: all IHL*4 bytes, TOS, TTL and checksum as ones; IPv6: traffic class,
 * flow label and hop limit as ones), the UDP header with its checksum as ones, the BTH with
 * byte 4 as ones, then everything up to @end.
 */
static uint32_t icrc_ref(const uint8_t *f, uint32_t l3, uint32_t bth, uint32_t end)
{
	uint8_t ph[8 + 60 + 8 + 12];
	uint32_t hl = bth + 12 - l3;

	memset(ph, 0xff, 8);
	memcpy(ph + 8, f + l3, hl);
	if ((f[l3] >> 4) == 4) {
		ph[8 + 1] = ph[8 + 8] = ph[8 + 10] = ph[8 + 11] = 0xff;
	} else {
		ph[8] |= 0x0f;
		ph[8 + 1] = ph[8 + 2] = ph[8 + 3] = ph[8 + 7] = 0xff;
	}
	ph[8 + (bth - l3) - 2] = ph[8 + (bth - l3) - 1] = 0xff;
	ph[8 + (bth - l3) + 4] = 0xff;
	return crc32_ref(crc32_ref(0, ph, 8 + hl), f + bth + 12, end - bth - 12);
}

/* ------------------------------------------------------------------ live memory */

static bool in_arena(const struct side *d, const uint8_t *p)
{
	return p >= d->arena && p < d->arena + ARENA;
}

/* Frames still point into a region (zero copy): they only ever point into its home. */
static bool fr_referenced(const struct roce_mr *mr)
{
	return mr && roce_mr_busy(mr);
}

#ifndef FUZZ_ASAN
/*
 * Without ASan (the replay build), whenever what is live changes: a byte dead now and before
 * must still hold the canary (nothing wrote it meanwhile), a byte that just died gets it.
 * Under ASan the poisoned arenas catch the write itself (receive buffers and region mappings
 * start 8-byte aligned, so the poisoning is byte-exact).
 */
static void canary_sweep(int k)
{
	struct side *d = &s[k];

	for (uint32_t i = 0; i < ARENA + FRA; i++) {
		uint8_t *b = i < ARENA ? d->arena + i : d->fra + (i - ARENA);

		if (d->live_now[i])
			continue;
		if (d->live_before[i]) {
			*b = CANARY;
			continue;
		}
		if (*b != CANARY) {
			fprintf(stderr,
				"side %d: %s byte %u written while nothing was live there\n", k,
				i < ARENA ? "receive arena" : "fast-reg arena", i % ARENA);
			abort();
		}
	}
	memcpy(d->live_before, d->live_now, sizeof(d->live_now));
}
#endif

/* The bytes of the arenas nobody may touch now are poisoned: all but the posted receive
 * buffers (arena), the valid fast-registration regions, and the homes of those that frames
 * still point into (on the lab's wire the receiver reads the sender's memory; a NIC would
 * have read it when sending). */
static void relive(int k)
{
	struct side *d = &s[k];
	struct live_key key;

	/* most calls (every loop iteration) find nothing changed */
	memset(&key, 0, sizeof(key));
	key.rb_gen = d->rb_gen;
	for (unsigned i = 0; i < NFR; i++) {
		const struct roce_mr *mr = d->fr[i];

		key.fr[i].mr = mr;
		if (!mr)
			continue;
		key.fr[i].addr = mr->addr;
		key.fr[i].length = mr->length;
		key.fr[i].state = mr->state;
		key.fr[i].referenced = fr_referenced(mr);
	}
	if (memcmp(&key, &d->live, sizeof(key)) == 0)
		return;
	d->live = key;
#ifndef FUZZ_ASAN
	memset(d->live_now, 0, sizeof(d->live_now));
#endif
	POISON(d->arena, ARENA);
	POISON(d->fra, FRA);
	for (unsigned i = 0; i < NRB; i++) {
		const struct rbuf *b = &d->rb[i];

		if (!b->wr_id)
			continue;
		for (unsigned j = 0; j < b->nsge; j++) {
			if (!in_arena(d, b->sg[j].p) || !b->sg[j].len)
				continue;
			UNPOISON(b->sg[j].p, b->sg[j].len);
			MARK(d, b->sg[j].p - d->arena, b->sg[j].len);
		}
	}
	for (unsigned i = 0; i < NFR; i++) {
		const struct roce_mr *mr = d->fr[i];
		uint8_t *p = d->fra + i * FRHOME;
		uint32_t len = FRHOME;

		if (!mr || (!fr_referenced(mr) && (mr->state != ROCE_MR_VALID || !mr->addr)))
			continue;
		if (!fr_referenced(mr)) {
			p = mr->addr;
			len = (uint32_t)mr->length;
		}
		UNPOISON(p, len);
		MARK(d, ARENA + (p - d->fra), len);
	}
#ifndef FUZZ_ASAN
	canary_sweep(k);
#endif
}

/* A poll hook after the devices' (roce_poll): the poisoning follows every loop iteration,
 * so a region invalidated by this iteration's LOCAL_INV is poisoned before the next one
 * receives data for it. */
static void relive_hook(struct stk_lcore *lc, void *arg)
{
	(void)lc;
	(void)arg;
	relive(0);
	relive(1);
}

static void canary_fill(int k)
{
	UNPOISON(s[k].arena, ARENA);
	UNPOISON(s[k].fra, FRA);
	memset(&s[k].live, 0xff, sizeof(s[k].live)); /* poison again on the next relive() */
	memset(s[k].arena, CANARY, ARENA);
	memset(s[k].fra, CANARY, FRA);
	memset(s[k].live_before, 0, sizeof(s[k].live_before));
}

/* ------------------------------------------------------------------ completions */

/* A completion's mbuf chain: consistent (segments, lengths) and as long as byte_len; freed. */
static void check_chain(const struct roce_wc *wc)
{
	const struct rte_mbuf *m = wc->mbuf;
	uint32_t sum = 0;
	unsigned n = 0;

	if (!m)
		return;
	CHECK(wc->status == ROCE_WC_SUCCESS);
	for (const struct rte_mbuf *c = m; c; c = c->next, n++) {
		CHECK(c->data_len > 0);
		sum += c->data_len;
	}
	CHECK(n == m->nb_segs && sum == m->pkt_len && sum == wc->byte_len);
	rte_pktmbuf_free(wc->mbuf);
}

static void check_wc(int k, const struct roce_wc *wc)
{
	struct side *d = &s[k];

	CHECK(strcmp(roce_wc_status_str(wc->status), "?") != 0);
	if (trace)
		fprintf(stderr, "side %d %s qp 0x%x wr 0x%lx: %s, %u bytes\n", k,
			(wc->wr_id & RECV_BIT) ? "recv" : "send", wc->qp_num,
			(unsigned long)(wc->wr_id & 0xffffffffffffff),
			roce_wc_status_str(wc->status), wc->byte_len);
	if (wc->wr_id & RECV_BIT) {
		unsigned slot = wc->wr_id & 0xff;
		struct rbuf *b;

		CHECK(slot < NRB);
		b = &d->rb[slot];
		/* posted and not completed before: completed at most once */
		CHECK(b->wr_id == wc->wr_id);
		if (b->rq == RQ_SRQ)
			CHECK(wc->qp_num == d->qpn[Q_RC] || (uc_srq && wc->qp_num == d->qpn[Q_UC]));
		else
			CHECK(wc->qp_num == d->qpn[b->q]);
		/* nothing delivered beyond the buffer (UD: the GRH area included) */
		if (wc->status == ROCE_WC_SUCCESS)
			CHECK(wc->byte_len <= b->len);
		/* an mbuf receive's message comes as a chain, an SGE receive's never */
		CHECK(!wc->mbuf || b->nsge == 0);
		if (b->nsge == 0 && wc->status == ROCE_WC_SUCCESS && wc->byte_len &&
		    wc->opcode == ROCE_WC_RECV)
			CHECK(wc->mbuf != NULL);
		check_chain(wc);
		b->wr_id = 0;
		d->rb_gen++;
	} else {
		unsigned q = (unsigned)(wc->wr_id >> 56);
		uint64_t seq = wc->wr_id & ((1ull << 56) - 1);

		CHECK(q < NQ && wc->qp_num == d->qpn[q]);
		CHECK(seq > d->send_done[q] && seq <= d->send_posted[q]);
		d->send_done[q] = seq;
		check_chain(wc); /* a READ into mbufs */
	}
}

static void poll_cq(int k)
{
	struct roce_wc wc[16];
	int n;

	while ((n = roce_poll_cq(s[k].cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			check_wc(k, &wc[i]);
}

/* ------------------------------------------------------------------ QPs */

static void destroy_qp(int k, int q)
{
	struct side *d = &s[k];

	if (!d->qp[q])
		return;
	poll_cq(k);
	for (unsigned i = 0; trace && i < ROCE_RESP_NUM; i++) {
#define OUT_NAME_(n) #n,
		static const char *const names[] = {ROCE_RESP_OUTCOMES(OUT_NAME_)};

		if (d->qp[q]->resp.outcome[i])
			fprintf(stderr, "side %d qp 0x%x %s %lu\n", k, d->qpn[q], names[i],
				(unsigned long)d->qp[q]->resp.outcome[i]);
	}
	CHECK(roce_destroy_qp(d->qp[q]) == 0);
	d->qp[q] = NULL;
	d->send_done[q] = d->send_posted[q];
	/* its own receive queue is gone with it, uncompleted (IBA: no completions on destroy) */
	for (unsigned i = 0; i < NRB; i++)
		if (d->rb[i].wr_id && d->rb[i].rq == RQ_OWN && d->rb[i].q == q)
			d->rb[i].wr_id = 0;
	d->rb_gen++;
}

static struct roce_qp *create_qp(int k, int q)
{
	struct roce_qp_init_attr ia;
	struct roce_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = s[k].cq;
	ia.qp_type = q == Q_RC ? ROCE_QPT_RC : q == Q_UC ? ROCE_QPT_UC : ROCE_QPT_UD;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 64;
	if (q == Q_RC || (q == Q_UC && uc_srq))
		ia.srq = s[k].srq;
	qp = roce_create_qp(s[k].pd, &ia);
	CHECK(qp != NULL);
	return qp;
}

static const struct stk_ipaddr *peer_ip(int k)
{
	return over6 ? &fp.ip6[!k] : &fp.ip[!k];
}

/* Bring QP kind @q of both sides up and connected (UD: to RTS with the Q_Key). */
static void connect_kind(int q)
{
	uint8_t mtu = (hdr & 4) ? ROCE_MTU_256 : ROCE_MTU_1024;
	uint32_t psn0 = (hdr & 8) ? ROCE_PSN_MASK - 2 : 0;

	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		s[k].qp[q] = create_qp(k, q);
		s[k].qpn[q] = roce_qp_num(s[k].qp[q]);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qkey = QKEY;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				    ((hdr & 0x20) ? 0 : ROCE_ACCESS_REMOTE_ATOMIC);
		CHECK(roce_modify_qp(s[k].qp[q], &a,
				     ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					     (q == Q_UD ? ROCE_QP_QKEY : ROCE_QP_ACCESS_FLAGS)) ==
		      0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp *qp = s[k].qp[q];
		struct roce_qp_attr a;
		int m = ROCE_QP_STATE;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		if (q != Q_UD) {
			a.path_mtu = mtu;
			a.dest_qp_num = s[!k].qpn[q];
			a.rq_psn = psn0;
			a.ah_attr.dgid_ip = *peer_ip(k);
			m |= ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;
		}
		if (q == Q_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			m |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
		}
		CHECK(roce_modify_qp(qp, &a, m) == 0);
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = psn0;
		m = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
		if (q == Q_RC) {
			a.timeout =
				(hdr & 0x40) ? 1 : 12; /* 8 us, or 16 ms: never within an input */
			a.retry_cnt = 7;
			a.rnr_retry = 1;
			a.max_rd_atomic = 4;
			m |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			     ROCE_QP_MAX_QP_RD_ATOMIC;
		}
		CHECK(roce_modify_qp(qp, &a, m) == 0);
	}
}

/*
 * Header byte: bit 0 the connected QPs' paths over IPv6 (else IPv4), bit 1 the UC QPs on the
 * SRQ, bit 2 MTU 256 (else 1024), bit 3 PSNs start 3 below the wrap, bit 4 DCQCN on (so CE
 * marks get CNPs), bit 5 no remote atomics granted, bit 6 an 8 us RC ACK timeout.
 */
static void connect_all(struct fuzz_in *in)
{
	struct roce_dcqcn_params cc;

	hdr = fuzz_u8(in);
	over6 = hdr & 1;
	uc_srq = (hdr & 2) != 0;
	roce_dcqcn_params_default(&cc, 100);
	for (int k = 0; k < 2; k++) {
		struct roce_srq_init_attr sa = {.max_wr = DEPTH, .max_sge = 2};

		CHECK(roce_dev_set_cc(fp.dev[k], (hdr & 0x10) ? &cc : NULL) == 0);
		s[k].srq = roce_create_srq(s[k].pd, &sa);
		CHECK(s[k].srq != NULL);
	}
	for (int q = 0; q < NQ; q++)
		connect_kind(q);
}

/* ------------------------------------------------------------------ application posts */

/* A length: around the MTUs and the buffers often, else anything up to 4 KiB. */
static uint32_t pick_len(struct fuzz_in *in)
{
	static const uint32_t lens[] = {0,   1,	   8,	 24,   40,   41,   255,	 256,
					257, 1000, 1024, 1025, 1064, 2048, 3000, 4096};
	uint8_t b = fuzz_u8(in);

	if (b < 0x80)
		return lens[b & 15];
	return (uint32_t)(b & 0x3f) << 6 | (fuzz_u8(in) & 63);
}

/* An rkey of side @k: its main region's, a fast-registration region's (live or last), junk. */
static uint32_t pick_rkey(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in);

	if (b < 0x60)
		return s[k].mr->rkey;
	if (b < 0xf0)
		return s[k].fr_key[b % NFR] ^ ((b & 0x80) && (b & 8) ? 1 : 0); /* or one off */
	return fuzz_u32(in);
}

/* An SGE of @len bytes (or fewer) at @off into fast-registration region @i of side @k's
 * current mapping, under its key; .length 0 when it maps nothing. */
static struct roce_sge fr_sge(int k, unsigned i, uint32_t off, uint32_t len)
{
	const struct roce_mr *mr = s[k].fr[i];
	struct roce_sge sg = {.lkey = s[k].fr_key[i]};

	if (!mr || !mr->addr)
		return sg;
	off %= (uint32_t)mr->length + 1;
	sg.addr = (uintptr_t)mr->addr + off;
	sg.length = RTE_MIN(len, (uint32_t)mr->length - off);
	return sg;
}

/* A local SGE of side @k: in the main region, or (@fr) in a fast-registration region. */
static struct roce_sge pick_sge(struct fuzz_in *in, int k, uint32_t len, bool fr)
{
	uint8_t b = fuzz_u8(in);
	uint16_t off = fuzz_u16(in);
	struct side *d = &s[k];
	struct roce_sge sg = {.length = len};

	if (fr && (b & 3) == 3 && d->fr[b % NFR] && d->fr[b % NFR]->addr)
		return fr_sge(k, b % NFR, off, len);
	off %= MEM;
	if (len > MEM - off)
		sg.length = MEM - off;
	sg.addr = (uintptr_t)d->mem + off;
	sg.lkey = d->mr->lkey;
	return sg;
}

/* @return whether the WR was queued */
static bool post(int k, int q, struct roce_send_wr *wr)
{
	struct roce_send_wr *bad;
	int rc;

	if (!s[k].qp[q])
		return false;
	wr->wr_id = (uint64_t)q << 56 | (s[k].send_posted[q] + 1);
	rc = roce_post_send(s[k].qp[q], wr, &bad);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == 0)
		s[k].send_posted[q]++;
	return rc == 0;
}

/* A chain of @len bytes of pattern @seed in pool mbufs of at most 1000 bytes each (an empty
 * mbuf for 0 bytes); NULL when the pool is dry. */
static struct rte_mbuf *make_chain(uint32_t len, uint8_t seed)
{
	struct rte_mbuf *head = NULL;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(fp.pool);
		uint32_t n = RTE_MIN(len, 1000u);
		uint8_t *d;

		if (!m || (head && rte_pktmbuf_chain(head, m) != 0)) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		if (!head)
			head = m;
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (uint32_t i = 0; i < n; i++)
			d[i] = (uint8_t)(seed + i);
		len -= n;
	} while (len);
	return head;
}

static void post_send(struct fuzz_in *in, int k, int q)
{
	static const enum roce_wr_opcode ops[] = {ROCE_WR_SEND,
						  ROCE_WR_SEND_WITH_IMM,
						  ROCE_WR_RDMA_WRITE,
						  ROCE_WR_RDMA_WRITE_WITH_IMM,
						  ROCE_WR_RDMA_READ,
						  ROCE_WR_ATOMIC_CMP_AND_SWP,
						  ROCE_WR_ATOMIC_FETCH_AND_ADD,
						  ROCE_WR_SEND_WITH_INV,
						  ROCE_WR_SEND,
						  ROCE_WR_SEND_WITH_INV};
	uint8_t b = fuzz_u8(in), f = fuzz_u8(in);
	uint32_t len = pick_len(in);
	struct roce_sge sg[2];
	struct roce_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = ops[b % RTE_DIM(ops)];
	if (wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP || wr.opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD)
		len = 8;
	/* inline data is copied at post time from the application's memory, whatever its
	 * registration: only the main region, which stays registered */
	sg[0] = pick_sge(in, k, len, !(f & 8));
	sg[1] = sg[0];
	if ((f & 0x10) && sg[0].length > 1) { /* two SGEs: the halves */
		sg[1].length = sg[0].length - sg[0].length / 2;
		sg[0].length /= 2;
		sg[1].addr = sg[0].addr + sg[0].length;
	}
	wr.sg_list = sg;
	wr.num_sge = (f & 0x10) ? 2 : (f & 0x20) ? 0 : 1;
	wr.send_flags = ((f & 1) ? ROCE_SEND_SIGNALED : 0) | ((f & 2) ? ROCE_SEND_FENCE : 0) |
			((f & 4) ? ROCE_SEND_SOLICITED : 0) | ((f & 8) ? ROCE_SEND_INLINE : 0);
	if (wr.opcode == ROCE_WR_SEND_WITH_INV)
		wr.invalidate_rkey = pick_rkey(in, !k);
	else
		wr.imm_data = rte_cpu_to_be_32(fuzz_u8(in));
	if (q == Q_UD) {
		uint8_t u = fuzz_u8(in);

		wr.wr.ud.ah = s[k].ah[u & 1];
		wr.wr.ud.remote_qpn = (u & 6) == 6   ? s[!k].qpn[u & 8 ? Q_RC : Q_UC]
				      : (u & 6) == 4 ? fuzz_u32(in) & 0xffffff
						     : s[!k].qpn[Q_UD];
		wr.wr.ud.remote_qkey = (u & 0x30) == 0x30   ? 0x80000000u
				       : (u & 0x30) == 0x20 ? fuzz_u32(in)
							    : QKEY;
	} else if (wr.opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ||
		   wr.opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.rkey = pick_rkey(in, !k);
		wr.wr.atomic.remote_addr = (IOVA + (fuzz_u16(in) % MEM)) & ~7ull;
		wr.wr.atomic.compare_add = fuzz_u8(in);
		wr.wr.atomic.swap = fuzz_u8(in);
	} else {
		uint8_t r = fuzz_u8(in);

		wr.wr.rdma.rkey = pick_rkey(in, !k);
		wr.wr.rdma.remote_addr = ((r & 1) ? FR_IOVA : IOVA) + fuzz_u16(in) % MEM;
	}
	if ((f & 0x40) && !(f & 8)) {
		/* zero copy with mbufs: a SEND/WRITE's payload from a chain of pool mbufs (the
		 * QP takes it), a READ's data into the frames' own mbufs (roce_wc.mbuf) */
		wr.send_flags |= ROCE_SEND_MBUF;
		wr.num_sge = 0;
		if (wr.opcode == ROCE_WR_RDMA_READ)
			wr.wr.rdma.length = len;
		else if (wr.opcode != ROCE_WR_ATOMIC_CMP_AND_SWP &&
			 wr.opcode != ROCE_WR_ATOMIC_FETCH_AND_ADD)
			wr.mbuf = make_chain(len, b);
	}
	if (!post(k, q, &wr) && (wr.send_flags & ROCE_SEND_MBUF))
		rte_pktmbuf_free(wr.mbuf); /* refused: the chain is still ours */
}

/* A receive WR on side @k for QP kind @q (RC: the SRQ; UC: its own queue or the SRQ). */
static void post_recv(struct fuzz_in *in, int k, int q)
{
	struct side *d = &s[k];
	uint8_t f = fuzz_u8(in);
	uint32_t len = pick_len(in), off = (uint32_t)(fuzz_u16(in) % ARENA) & ~7u;
	struct roce_sge sg[2];
	struct roce_recv_wr wr = {.sg_list = sg}, *bad;
	struct rbuf *b = NULL;
	int rc;

	for (unsigned i = 0; i < NRB && !b; i++)
		if (!d->rb[i].wr_id)
			b = &d->rb[i];
	if (!b)
		return;
	if ((f & 3) == 3 && d->fr[f % NFR] && d->fr[f % NFR]->addr) {
		/* into a fast-registration region, under its key */
		sg[0] = fr_sge(k, f % NFR, off, len);
	} else {
		if (len > ARENA - off)
			len = ARENA - off;
		sg[0] = (struct roce_sge){
			.addr = (uintptr_t)d->arena + off, .length = len, .lkey = d->rmr->lkey};
	}
	wr.num_sge = 1;
	if ((f & 4) && sg[0].length >= 16) { /* two SGEs with a gap between them */
		sg[1] = sg[0];
		sg[0].length = (sg[0].length / 2) & ~7u;
		sg[1].addr = sg[0].addr + sg[0].length + 8;
		sg[1].length -= sg[0].length + 8;
		wr.num_sge = 2;
	}
	if ((f & 8) && !(f & 4)) {
		/* into the frames' own mbufs (not for UD: refused) */
		wr.flags = ROCE_RECV_MBUF;
		wr.max_len = len;
		wr.num_sge = 0;
	}
	wr.wr_id = RECV_BIT | ++d->rgen << 8 | (uint64_t)(b - d->rb);
	if (q == Q_RC || (q == Q_UC && uc_srq))
		rc = roce_post_srq_recv(d->srq, &wr, &bad);
	else if (d->qp[q])
		rc = roce_post_recv(d->qp[q], &wr, &bad);
	else
		return;
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc != 0)
		return;
	d->rb_gen++;
	b->wr_id = wr.wr_id;
	b->q = (uint8_t)q;
	b->rq = q == Q_RC || (q == Q_UC && uc_srq) ? RQ_SRQ : RQ_OWN;
	b->nsge = (uint8_t)wr.num_sge;
	b->len = wr.flags & ROCE_RECV_MBUF ? len : 0;
	for (int i = 0; i < wr.num_sge; i++) {
		b->sg[i].p = (uint8_t *)(uintptr_t)sg[i].addr;
		b->sg[i].len = sg[i].length;
		b->len += sg[i].length;
	}
}

/* REG_MR of fast-registration region i on side @k's RC QP: a new key byte, rights, range. */
static void reg_mr(struct fuzz_in *in, int k)
{
	static const uint32_t rights[] = {
		ROCE_ACCESS_ALL,
		ROCE_ACCESS_LOCAL_WRITE,
		ROCE_ACCESS_REMOTE_READ,
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE,
		ROCE_ACCESS_REMOTE_WRITE, /* refused: remote write needs local write */
		0,
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_ATOMIC,
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_LOCAL_WRITE};
	uint8_t b = fuzz_u8(in), key = fuzz_u8(in);
	uint32_t off = (uint32_t)(fuzz_u16(in) % FRHOME) & ~7u, len = pick_len(in);
	struct roce_mr *mr = s[k].fr[b % NFR];
	struct roce_send_wr wr;

	if (!mr)
		return;
	if (len == 0 || len > FRHOME - off)
		len = FRHOME - off;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_REG_MR;
	wr.send_flags = (b & 0x80) ? ROCE_SEND_SIGNALED : 0;
	wr.wr.reg.mr = mr;
	wr.wr.reg.key = (b & 0x40) ? fuzz_u32(in) : (mr->index << 8 | key);
	wr.wr.reg.access = rights[(b >> 2) & 7];
	wr.wr.reg.iova = FR_IOVA + (uint64_t)fuzz_u16(in);
	wr.wr.reg.addr = s[k].fra + (b % NFR) * FRHOME + off; /* within its home */
	wr.wr.reg.length = len;
	if (post(k, Q_RC, &wr)) {
		s[k].fr_key[b % NFR] = wr.wr.reg.key; /* the key the peer will be told */
		s[k].fr_reg[b % NFR] = s[k].send_posted[Q_RC];
	}
}

static void local_inv(struct fuzz_in *in, int k)
{
	struct roce_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_LOCAL_INV;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.invalidate_rkey = pick_rkey(in, k);
	post(k, Q_RC, &wr);
}

/* roce_dereg_mr answers -EBUSY while frames point into the region: poll until they left. */
static void dereg(struct roce_mr *mr)
{
	int rc = roce_dereg_mr(mr);

	for (int i = 0; rc == -EBUSY && i < 4000; i++) {
		fuzz_pair_flush(&fp);
		fuzz_pair_poll(&fp, 1);
		rc = roce_dereg_mr(mr);
	}
	CHECK(rc == 0);
}

/*
 * Deregister fast-registration region i of side @k, or allocate it again. Not while a REG_MR
 * of it may still be queued (no completion at or after it yet): the work request names the
 * region by pointer, and deregistering a region a queued request uses is the application's
 * error (the kernel's ib_dereg_mr() asks the same of its callers).
 */
static void fr_toggle(struct fuzz_in *in, int k)
{
	unsigned i = fuzz_u8(in) % NFR;

	if (s[k].fr[i] && s[k].send_done[Q_RC] < s[k].fr_reg[i])
		return;
	if (s[k].fr[i]) {
		dereg(s[k].fr[i]);
		s[k].fr[i] = NULL;
	} else {
		s[k].fr[i] = roce_alloc_mr(s[k].pd, FRA);
		CHECK(s[k].fr[i] != NULL);
		s[k].fr_key[i] = s[k].fr[i]->rkey;
		s[k].fr_reg[i] = 0;
	}
}

/* ------------------------------------------------------------------ forged frames */

/* A PSN relative to QP @qp's state. */
static uint32_t pick_psn(struct fuzz_in *in, const struct roce_qp *qp)
{
	uint8_t b = fuzz_u8(in);
	int32_t delta = (int8_t)fuzz_u8(in);
	uint32_t base;

	switch (b & 3) {
	case 0:
		base = qp ? qp->resp.psn : 0;
		break;
	case 1:
		base = qp ? qp->comp.psn : 0;
		break;
	case 2:
		base = qp ? qp->req.psn : 0;
		break;
	default:
		base = fuzz_u32(in);
		break;
	}
	return (base + (uint32_t)delta) & ROCE_PSN_MASK;
}

static bool has(uint8_t op, enum roce_opflag f)
{
	return roce_opinfo(op) && roce_op_has((enum roce_opcode)op, f);
}

/*
 * The transport bytes (BTH to the end of the payload and pad, no ICRC) of a packet for side
 * @k's QP kind @q, built by roce_tx_build() from input-chosen fields. @return their length, or
 * 0 when the builder refuses them.
 */
static uint32_t build_transport(struct fuzz_in *in, int k, int q, uint8_t *out)
{
	static const uint8_t rc_ops[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
					 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x81};
	static const uint8_t uc_ops[] = {0x20, 0x21, 0x22, 0x23, 0x24, 0x25,
					 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b};
	static const uint8_t ud_ops[] = {0x64, 0x65, 0x64, 0x81};
	const struct roce_qp *qp = s[k].qp[q];
	uint8_t b = fuzz_u8(in), payload[2048];
	struct roce_path path;
	struct roce_tx t;
	struct rte_mbuf *m;
	uint32_t len, n;

	memset(&t, 0, sizeof(t));
	t.opcode = q == Q_RC   ? rc_ops[b % RTE_DIM(rc_ops)]
		   : q == Q_UC ? uc_ops[b % RTE_DIM(uc_ops)]
			       : ud_ops[b % RTE_DIM(ud_ops)];
	t.psn = pick_psn(in, qp);
	t.ackreq = (b & 0x40) != 0;
	t.se = (b & 0x20) != 0;
	t.dqpn = (b & 0x80) ? fuzz_u32(in) & ROCE_QPN_MASK : s[k].qpn[q];
	t.lqpn = s[!k].qpn[q];
	len = pick_len(in);
	if (len > 1100)
		len = 1100;
	memset(payload, 0x5a, len);
	if (has(t.opcode, ROCE_OPF_RETH)) {
		t.va = ((fuzz_u8(in) & 1) ? FR_IOVA : IOVA) + fuzz_u16(in) % MEM;
		t.rkey = pick_rkey(in, k);
		t.dmalen = pick_len(in);
	}
	if (has(t.opcode, ROCE_OPF_ATOMICETH)) {
		t.va = (IOVA + fuzz_u16(in) % MEM) & ~7ull;
		t.rkey = pick_rkey(in, k);
		t.swap_add = fuzz_u8(in);
	}
	if (has(t.opcode, ROCE_OPF_AETH)) {
		t.syndrome = fuzz_u8(in);
		t.msn = ((qp ? qp->resp.msn : 0) + (int8_t)fuzz_u8(in)) & 0xffffff;
	}
	if (has(t.opcode, ROCE_OPF_IETH))
		t.ieth_rkey = pick_rkey(in, k);
	if (has(t.opcode, ROCE_OPF_DETH)) {
		uint8_t u = fuzz_u8(in);

		t.qkey = (u & 3) == 3 ? fuzz_u32(in) : QKEY;
		t.sqpn = s[!k].qpn[Q_UD];
	}
	t.imm = fuzz_u8(in);
	if (!has(t.opcode, ROCE_OPF_PAYLOAD))
		len = 0;
	memset(&path, 0, sizeof(path));
	path.dgid_ip = fp.ip[k];
	t.path = &path;
	m = roce_tx_build(fp.pool, stk_iface_get((uint16_t)!k), &t, payload, len, NULL);
	if (!m)
		return 0;
	/* untagged IPv4 without options from the builder: the BTH is at 14 + 20 + 8 */
	n = rte_pktmbuf_pkt_len(m) - 42 - ROCE_ICRC_LEN;
	roce_mbuf_copy_out(m, 42, n, out);
	rte_pktmbuf_free(m);
	return n;
}

/* Copy frame @f (@n bytes) into a chain of up to three segments split at @cut1, @cut2. */
static struct rte_mbuf *to_chain(const uint8_t *f, uint32_t n, uint32_t cut1, uint32_t cut2)
{
	struct rte_mbuf *head = NULL;
	uint32_t cuts[3] = {RTE_MIN(cut1, n), RTE_MIN(RTE_MAX(cut2, cut1), n), n}, at = 0;

	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m;
		uint32_t len = cuts[i] - at;
		void *d;

		if (!len && (i < 2 || head))
			continue;
		m = rte_pktmbuf_alloc(fp.pool);
		CHECK(m != NULL);
		d = rte_pktmbuf_append(m, (uint16_t)len);
		CHECK(d != NULL || len == 0);
		if (len)
			memcpy(d, f + at, len);
		at = cuts[i];
		if (!head)
			head = m;
		else
			CHECK(rte_pktmbuf_chain(head, m) == 0);
	}
	return head;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * A whole Ethernet frame to side @k. Shape byte: bits 0-1 IPv4, IPv4 with options, IPv6, or
 * the input's own frame; bit 2 keep the input's ICRC, bit 3 corrupt the harness's; bits 4-5
 * one segment, split after the headers, or two input-chosen splits; bit 6 from the third
 * address (else the peer); bit 7 an 802.1Q priority tag. Then the QP kind and layout byte:
 * bits 0-1 the target kind, bit 2 raw transport bytes from the input (else built), bit 3 a
 * UDP checksum, bit 4 trailing bytes, bit 5 inside the IP packet (else Ethernet padding).
 */
static void forge(struct fuzz_in *in, int k)
{
	uint8_t shape = fuzz_u8(in), lay = fuzz_u8(in), tp[1200 + 64], f[1600];
	int q = (lay & 3) % NQ, fam = shape & 3;
	uint32_t tlen, n = 0, l3, l4, bth, end, trail = 0, cut1, cut2;
	const struct rte_ether_addr *smac = (shape & 0x40) ? &fp.third_mac : &fp.mac[!k];
	bool good = true;
	struct rte_mbuf *m;
	uint64_t drops;

	if (fam == 3) { /* the input's own frame, as it is */
		n = RTE_MIN((uint32_t)fuzz_u16(in) % 1400, (uint32_t)in->n);
		memcpy(f, in->p, n);
		in->p += n;
		in->n -= n;
		stk_input(fp.lc, stk_iface_get((uint16_t)k), to_chain(f, n, n, n));
		return;
	}
	if (lay & 4) {
		tlen = RTE_MIN(RTE_MIN((uint32_t)fuzz_u8(in) * 5, 1200u), (uint32_t)in->n);
		memcpy(tp, in->p, tlen);
		in->p += tlen;
		in->n -= tlen;
		if (tlen >= 12 && (fuzz_u8(in) & 1)) { /* aim it at the QP */
			uint32_t qpn = s[k].qpn[q];

			tp[5] = (uint8_t)(qpn >> 16);
			tp[6] = (uint8_t)(qpn >> 8);
			tp[7] = (uint8_t)qpn;
		}
	} else {
		tlen = build_transport(in, k, q, tp);
		if (!tlen)
			return;
	}
	if (lay & 0x10)
		trail = 1 + fuzz_u8(in) % 16;
	/* Ethernet, maybe priority-tagged */
	memcpy(f, &fp.mac[k], 6);
	memcpy(f + 6, smac, 6);
	n = 12;
	if (shape & 0x80) {
		uint8_t pcp = fuzz_u8(in);

		f[n++] = 0x81;
		f[n++] = 0x00;
		f[n++] = (uint8_t)(pcp << 5); /* VID 0 */
		f[n++] = 0;
	}
	l3 = n + 2;
	if (fam < 2) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + l3);
		uint32_t opt = fam == 1 ? 4 * (1 + fuzz_u8(in) % 10) : 0, tot;
		uint8_t tos = fuzz_u8(in);

		f[n++] = 0x08;
		f[n++] = 0x00;
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = (uint8_t)(0x45 + opt / 4);
		ip->type_of_service = tos;
		ip->time_to_live = (uint8_t)(fuzz_u8(in) | 1);
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = (shape & 0x40) ? fp.third.v4 : fp.ip[!k].v4;
		ip->dst_addr = fp.ip[k].v4;
		for (uint32_t i = 0; i < opt; i++) /* options: whatever the input says */
			f[l3 + 20 + i] = fuzz_u8(in);
		l4 = l3 + 20 + opt;
		tot = 20 + opt + 8 + tlen + 4 + ((lay & 0x20) ? trail : 0);
		ip->total_length = rte_cpu_to_be_16((uint16_t)tot);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~csum_fold(rte_raw_cksum(ip, 20 + opt));
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + l3);
		uint32_t tcfl = fuzz_u32(in);

		f[n++] = 0x86;
		f[n++] = 0xdd;
		memset(ip, 0, sizeof(*ip));
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (tcfl & 0x0fffffff));
		ip->payload_len =
			rte_cpu_to_be_16((uint16_t)(8 + tlen + 4 + ((lay & 0x20) ? trail : 0)));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = (uint8_t)(tcfl >> 28);
		memcpy(ip->src_addr, (shape & 0x40) ? fp.third6.v6 : fp.ip6[!k].v6, 16);
		memcpy(ip->dst_addr, fp.ip6[k].v6, 16);
		l4 = l3 + 40;
	}
	{
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(f + l4);

		uh->src_port = rte_cpu_to_be_16((uint16_t)(0xc000 | fuzz_u16(in)));
		uh->dst_port = RTE_BE16(4791);
		uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + tlen + 4));
		uh->dgram_cksum = 0;
	}
	bth = l4 + 8;
	memcpy(f + bth, tp, tlen);
	end = bth + tlen;
	if (shape & 4) { /* the input's ICRC */
		for (int i = 0; i < 4; i++)
			f[end + i] = fuzz_u8(in);
		good = false;
	} else {
		uint32_t crc = tlen >= 12 ? icrc_ref(f, l3, bth, end) : 0;

		if (shape & 8) {
			crc ^= 1u << (fuzz_u8(in) & 31);
			good = false;
		}
		f[end] = (uint8_t)crc;
		f[end + 1] = (uint8_t)(crc >> 8);
		f[end + 2] = (uint8_t)(crc >> 16);
		f[end + 3] = (uint8_t)(crc >> 24);
	}
	n = end + 4;
	for (uint32_t i = 0; i < trail; i++)
		f[n++] = 0;
	if (lay & 8) { /* a UDP checksum over the datagram (RoCEv2 sends zero) */
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(f + l4);
		uint32_t sum = fam < 2 ? rte_ipv4_phdr_cksum((struct rte_ipv4_hdr *)(f + l3), 0)
				       : rte_ipv6_phdr_cksum((struct rte_ipv6_hdr *)(f + l3), 0);
		uint16_t c;

		if (fam < 2) /* the pseudo-header counts the IP payload: the datagram only */
			sum = rte_ipv4_phdr_cksum(
				&(struct rte_ipv4_hdr){
					.src_addr = ((struct rte_ipv4_hdr *)(f + l3))->src_addr,
					.dst_addr = ((struct rte_ipv4_hdr *)(f + l3))->dst_addr,
					.next_proto_id = IPPROTO_UDP,
					.version_ihl = 0x45,
					.total_length =
						rte_cpu_to_be_16((uint16_t)(20 + 8 + tlen + 4))},
				0);
		else
			sum = rte_ipv6_phdr_cksum(
				      &(struct rte_ipv6_hdr){.payload_len = uh->dgram_len,
							     .proto = IPPROTO_UDP},
				      0) +
			      rte_raw_cksum(f + l3 + 8, 32);
		c = (uint16_t)~csum_fold(sum + rte_raw_cksum(uh, 8 + tlen + 4));
		uh->dgram_cksum = c ? c : 0xffff;
	}
	/* where to cut: after the transport headers, or input-chosen */
	switch ((shape >> 4) & 3) {
	case 0:
		cut1 = cut2 = n;
		break;
	case 1:
		cut1 = cut2 =
			bth + (tlen >= 12 && roce_opinfo(tp[0]) ? roce_opinfo(tp[0])->hdr_len : 12);
		break;
	default:
		cut1 = fuzz_u16(in) % (n + 1);
		cut2 = cut1 + fuzz_u8(in);
		break;
	}
	m = to_chain(f, n, cut1, cut2);
	if (tlen >= 12) {
		/* droce's ICRC over the segments against the reference over the linear frame */
		uint32_t crc = roce_icrc_calc(m, (uint16_t)l3, (uint16_t)bth, end);

		CHECK(crc == icrc_ref(f, l3, bth, end));
	}
	/* straight into the stack (not through the wire, where the pair's own frames would
	 * share the counter): a frame with the harness's ICRC never fails the ICRC check */
	drops = roce_dev_rx_drops(fp.dev[k], ROCE_RX_DROP_ICRC);
	stk_input(fp.lc, stk_iface_get((uint16_t)k), m);
	CHECK(!good || roce_dev_rx_drops(fp.dev[k], ROCE_RX_DROP_ICRC) == drops);
}

/* ------------------------------------------------------------------ the sequence */

static void wait_us(uint8_t b)
{
	uint64_t end = rte_get_tsc_cycles() + (rte_get_tsc_hz() / 1000000 << (b % 7));

	do
		fuzz_pair_poll(&fp, 1);
	while (rte_get_tsc_cycles() < end);
}

static void step(struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	int k = (op >> 4) & 1, q = ((op >> 5) & 3) % NQ;

	switch (op & 15) {
	case 0:
	case 1:
		post_send(in, k, q);
		break;
	case 2:
		post_recv(in, k, q);
		break;
	case 3:
		fuzz_pair_poll(&fp, 1 + fuzz_u8(in) % 8);
		break;
	case 4:
		fuzz_pair_wire(&fp, k, fuzz_u8(in));
		break;
	case 5:
	case 6:
		forge(in, k);
		break;
	case 7:
		reg_mr(in, k);
		break;
	case 8:
		local_inv(in, k);
		break;
	case 9:
		fr_toggle(in, k);
		break;
	case 10: { /* the application moves a QP to ERR: everything of it flushes */
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		if (s[k].qp[q])
			CHECK(roce_modify_qp(s[k].qp[q], &a, ROCE_QP_STATE) == 0);
		break;
	}
	case 11: /* both QPs of the kind made anew */
		destroy_qp(0, q);
		destroy_qp(1, q);
		fuzz_pair_settle(&fp);
		connect_kind(q);
		break;
	case 12:
		wait_us(fuzz_u8(in));
		break;
	default:
		fuzz_pair_poll(&fp, 8);
		break;
	}
	poll_cq(0);
	poll_cq(1);
	relive(0);
	relive(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct fuzz_pair_opts o = {.ipv6 = true};

	(void)argc;
	(void)argv;
	crc_init();
	trace = getenv("FUZZ_ROCE_SHAPES_TRACE") != NULL;
	fuzz_pair_init_opts(&fp, "rshape", 83, &o);
	CHECK(stk_lcore_add_poll(fp.lc, relive_hook, NULL) == 0);
	for (int k = 0; k < 2; k++) {
		struct side *d = &s[k];
		struct roce_path p = {.dgid_ip = fp.ip[!k]};

		d->pd = roce_alloc_pd(fp.dev[k]);
		d->cq = d->pd ? roce_create_cq(fp.dev[k], 4096) : NULL;
		d->mem = calloc(1, MEM);
		d->arena = malloc(ARENA);
		d->fra = malloc(FRA);
		CHECK(d->cq && d->mem && d->arena && d->fra);
		d->mr = roce_reg_mr(d->pd, d->mem, MEM, IOVA, ROCE_ACCESS_ALL);
		d->rmr = roce_reg_mr(d->pd, d->arena, ARENA, 0, ROCE_ACCESS_LOCAL_WRITE);
		d->ah[0] = roce_create_ah(d->pd, &p);
		p.dgid_ip = fp.ip6[!k];
		d->ah[1] = roce_create_ah(d->pd, &p);
		CHECK(d->mr && d->rmr && d->ah[0] && d->ah[1]);
		canary_fill(k);
		relive(k);
	}
	fuzz_pair_mark(&fp);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {.p = data, .n = size};

	fuzz_pair_pin_neigh(&fp);
	for (int k = 0; k < 2; k++) {
		for (unsigned i = 0; i < NFR; i++) {
			s[k].fr[i] = roce_alloc_mr(s[k].pd, FRA);
			CHECK(s[k].fr[i] != NULL);
			s[k].fr_key[i] = s[k].fr[i]->rkey;
			s[k].fr_reg[i] = 0;
		}
	}
	connect_all(&in);
	for (unsigned n = 0; in.n && n < MAX_OPS; n++)
		step(&in);
	for (int q = 0; q < NQ; q++) {
		destroy_qp(0, q);
		destroy_qp(1, q);
	}
	fuzz_pair_settle(&fp);
	for (int k = 0; k < 2; k++) {
		poll_cq(k);
		CHECK(roce_destroy_srq(s[k].srq) == 0);
		for (unsigned i = 0; i < NFR; i++) {
			if (s[k].fr[i])
				dereg(s[k].fr[i]);
			s[k].fr[i] = NULL;
		}
		memset(s[k].rb, 0, sizeof(s[k].rb));
		s[k].rb_gen++;
		relive(k); /* nothing live: without ASan the last sweep */
	}
	for (int k = 0; trace && k < 2; k++) {
#define RX_NAME_(n, str) str,
		static const char *const names[] = {ROCE_RX_COUNTERS(RX_NAME_)};

		for (unsigned i = 0; i < ROCE_RX_NUM; i++)
			if (roce_dev_rx_drops(fp.dev[k], i))
				fprintf(stderr, "side %d %s %lu\n", k, names[i],
					(unsigned long)roce_dev_rx_drops(fp.dev[k], i));
		memset(fp.dev[k]->lane[0].drops, 0, sizeof(fp.dev[k]->lane[0].drops));
	}
	fuzz_pair_check_leaks(&fp, "fuzz_roce_shapes");
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
