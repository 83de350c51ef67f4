/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_cat.c - the catalogue of malformed and adversarial frames (gen_cat.h, docs/gen.md).
 *
 * The peer is a perftest server (ib_write_bw or ib_atomic_bw, -q N): droce-gen connects to it
 * as a perftest client over TCP (a kernel socket through the exception TAP, on the control
 * thread) and hands it made-up keys for N QPs: QPN 0x100 + i, a PSN, our GID. The server
 * moves its N QPs to RTS towards them and waits for the client's end; its QPs only answer.
 * Each entry of the catalogue takes one of those QPs, so that an entry that breaks its QP (a
 * fatal NAK puts an RC responder in the error state) leaves the others alone.
 *
 * Each entry, on the main lcore (an enum and step functions, STYLE section 4):
 *   SEND     its frames, built here with roce_tx_build() and then broken as the entry says
 *            (ICRC, lengths, headers cut short, pad count, PSN, rkey, address, P_Key, source
 *            address, QP number, ECN, PFC pause frames); some entries send over time;
 *   OBSERVE  --cat-wait ms: every reply to the entry's QP is decoded and logged; the reaction
 *            is the strongest seen (a NAK over an ACK over nothing);
 *   PROBE    a valid request at the PSN the peer should now expect (WRITE ONLY or FETCH_ADD,
 *            AckReq), and up to --cat-wait ms for its answer: the QP is alive when the answer
 *            acknowledges the probe's PSN, dead when nothing comes (a QP in the error state
 *            drops what it receives).
 * The verdict compares the reaction and the probe with what the spec expects, and with what
 * this kind of peer is known to do where it differs from the spec (--cat-peer rxe): a known
 * deviation is reported as such, anything else that differs fails the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "app_perftest.h"
#include "gen_cat.h"
#include "gen_pt.h"
#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_tx.h"
#include "stk_stack.h"
#include "stk_tx.h"

#define CAT_LQPN0 0x100u    /* our made-up QPNs: 0x100 + entry */
#define CAT_MAX_ENTRIES 40u /* QPs of one server at most */
#define CAT_LOG 16u	    /* replies kept per entry */
#define CAT_SIZE 64u	    /* bytes of a valid WRITE */
#define CAT_PMTU 1024u	    /* what we ask in perftest's MTU exchange (ibv_mtu 3) */
#define CAT_UDP_BTH 28u	    /* IPv4 20 + UDP 8: the BTH's offset from the IP header */
#define CAT_FLOOD 64u	    /* frames of the CE-marked flood */
#define CAT_STORM_MS 300u   /* the PFC XOFF storm */
#define CAT_STORM_GAP_US 2000u

/* ------------------------------------------------------------------ decoding replies */

static const char *const react_names[GEN_CAT_NUM_REACTS] = {
#define GEN_CAT_REACT_NAME_(n, s) s,
	GEN_CAT_REACTS(GEN_CAT_REACT_NAME_)
#undef GEN_CAT_REACT_NAME_
};

const char *gen_cat_react_name(enum gen_cat_react r)
{
	return r < GEN_CAT_NUM_REACTS ? react_names[r] : "?";
}

static enum gen_cat_react aeth_react(uint8_t syndrome)
{
	switch (syndrome & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		return GEN_CAT_ACK;
	case ROCE_AETH_RNR_NAK:
		return GEN_CAT_RNR;
	case ROCE_AETH_NAK:
		switch (syndrome & ROCE_AETH_VALUE_MASK) {
		case ROCE_NAK_PSN_SEQ_ERR:
			return GEN_CAT_NAK_SEQ;
		case ROCE_NAK_INVALID_REQ:
			return GEN_CAT_NAK_INV;
		case ROCE_NAK_REM_ACCESS_ERR:
			return GEN_CAT_NAK_RAE;
		case ROCE_NAK_REM_OP_ERR:
			return GEN_CAT_NAK_ROE;
		default:
			return GEN_CAT_NAK_OTHER;
		}
	default:
		return GEN_CAT_OTHER; /* 0x40: reserved */
	}
}

int gen_cat_decode(const uint8_t *p, uint32_t len, struct gen_cat_reply *r)
{
	uint32_t need = 12 + 4; /* BTH, ICRC */
	bool aeth;

	memset(r, 0, sizeof(*r));
	if (len < need)
		return -1;
	r->opcode = p[0];
	r->dqpn = (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	r->psn = (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
	aeth = r->opcode == ROCE_OP_RC_ACKNOWLEDGE || r->opcode == ROCE_OP_RC_ATOMIC_ACKNOWLEDGE ||
	       r->opcode == ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST ||
	       r->opcode == ROCE_OP_RC_RDMA_READ_RESPONSE_LAST ||
	       r->opcode == ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	if (aeth) {
		need += 4;
		if (len < need)
			return -1;
		r->has_aeth = true;
		r->syndrome = p[12];
		r->msn = (uint32_t)p[13] << 16 | (uint32_t)p[14] << 8 | p[15];
	}
	if (((p[1] >> 4) & 3u) > len - need)
		return -1; /* more pad than bytes */
	switch (r->opcode) {
	case ROCE_OP_RC_ACKNOWLEDGE:
		r->react = aeth_react(r->syndrome);
		break;
	case ROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
		if (len < need + 8)
			return -1;
		r->react = GEN_CAT_ATOMIC_ACK;
		break;
	case ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_LAST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY:
		r->react = GEN_CAT_READ_RESP;
		break;
	case ROCE_OP_CNP:
		r->react = GEN_CAT_CNP;
		break;
	default:
		r->react = GEN_CAT_OTHER;
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ the catalogue */

/** A QP of the server, and the PSN it expects next. */
struct cat_qp {
	uint32_t lqpn; /**< ours (made up): what the peer's replies carry */
	uint32_t dqpn, rkey;
	uint64_t va;
	uint32_t psn0; /**< our first PSN, as the keys said */
	uint32_t psn;  /**< the next PSN the peer expects */
};

/** What one entry's sender sees. */
struct cat_ctx {
	struct stk_lcore *lc;
	const struct stk_iface *ifc;
	struct cat_qp *q;
	uint64_t now, t0; /**< TSC: now, and when the entry started sending */
	uint32_t calls;	  /**< earlier calls of this entry's sender */
	uint32_t sent;	  /**< frames it sent */
};

/** @return 1 when the entry has sent everything, 0 to be called again next round. */
typedef int (*cat_send_fn)(struct cat_ctx *c);

/** What the probe after an entry should find. */
enum cat_after { CAT_ALIVE, CAT_DEAD, CAT_NUM_AFTER };
static const char *const after_names[CAT_NUM_AFTER] = {"alive", "dead"};

/* X(name, verb, sender, reaction, probe, cnp, spec): the spec's expectation is the reaction to
 * the entry's frames, the probe's outcome, and for ce-flood a CNP. */
struct cat_entry {
	const char *name;
	enum gen_cat_verb verb;
	cat_send_fn send;
	enum gen_cat_react expect;
	enum cat_after after;
	bool cnp; /**< the peer should send a CNP (a notification point) */
	const char *what, *spec;
};

/* A known deviation of one kind of peer from the spec: observed there, reported, not failed. */
struct cat_deviation {
	const char *peer, *entry;
	enum gen_cat_react react;
	enum cat_after after;
	bool cnp;
	const char *why;
};

static uint8_t cat_payload[2048];

static void tx_init(struct cat_ctx *c, struct roce_tx *t, struct roce_path *path, uint8_t opcode,
		    uint32_t psn)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	t->lqpn = c->q->lqpn;
	t->dqpn = c->q->dqpn;
	t->opcode = opcode;
	t->psn = psn & 0xffffffu;
	t->va = c->q->va;
	t->rkey = c->q->rkey;
}

static uint16_t l2(const struct cat_ctx *c)
{
	return stk_l2_len(c->ifc);
}

static struct rte_ipv4_hdr *ip_of(const struct cat_ctx *c, struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l2(c));
}

static uint8_t *bth_of(const struct cat_ctx *c, struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, l2(c) + CAT_UDP_BTH);
}

static void ip_csum(struct rte_ipv4_hdr *ip)
{
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* the ICRC again, over the frame as it is now */
static void icrc(const struct cat_ctx *c, struct rte_mbuf *m)
{
	roce_icrc_fill(m, l2(c), (uint16_t)(l2(c) + CAT_UDP_BTH),
		       rte_pktmbuf_pkt_len(m) - ROCE_ICRC_LEN);
}

/* Cut the frame so its UDP payload is @p len bytes, with IP and UDP lengths to match. */
static void cut(const struct cat_ctx *c, struct rte_mbuf *m, uint32_t len)
{
	struct rte_ipv4_hdr *ip = ip_of(c, m);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint32_t now = rte_pktmbuf_pkt_len(m) - l2(c) - CAT_UDP_BTH;

	if (len < now)
		rte_pktmbuf_trim(m, (uint16_t)(now - len));
	ip->total_length = rte_cpu_to_be_16((uint16_t)(CAT_UDP_BTH + len));
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	ip_csum(ip);
}

static struct rte_mbuf *build(struct cat_ctx *c, const struct roce_tx *t, uint32_t len)
{
	return roce_tx_build(c->lc->pool, c->ifc, t, cat_payload, len, NULL);
}

enum cat_state {
	CAT_ST_KEYS,	/**< the control thread is exchanging keys with the server */
	CAT_ST_RESOLVE, /**< the server's MAC */
	CAT_ST_SEND,	/**< the entry's frames */
	CAT_ST_OBSERVE, /**< its replies */
	CAT_ST_PROBE,	/**< the probe, and its answer */
	CAT_ST_DONE,	/**< every entry ran (or the run failed): the control thread closes */
	CAT_ST_NUM
};

static const char *const cat_state_names[CAT_ST_NUM] = {"keys",	   "resolve", "send",
							"observe", "probe",   "done"};

/** One entry's run. */
struct cat_result {
	const struct cat_entry *e;
	struct cat_qp q;
	uint32_t sent;
	struct gen_cat_reply log[CAT_LOG];
	uint32_t nlog, replies, cnps;
	enum gen_cat_react react;
	uint32_t nak_psn;     /**< the AETH's PSN of the NAK that set react */
	uint32_t probe_psn;   /**< the PSN the probe went at */
	bool probed, alive;   /**< the probe's PSN was acknowledged */
	uint32_t probe_other; /**< other replies while the probe waited (a NAK to it, ...) */
	uint32_t msn;	      /**< the last AETH's MSN before the probe: messages executed */
	double probe_ms;      /**< how long that took */
	double react_ms;      /**< from the entry's first frame to its first reply */
	bool verdict_ok;      /**< as the spec expects, or as the peer's known deviation */
	const struct cat_deviation *dev; /**< the known deviation that matched */
};

static struct {
	struct gen_cat_opts o;
	uint32_t n; /**< entries (and QPs) of this run */
	struct cat_result r[CAT_MAX_ENTRIES];
	enum cat_state state;
	uint64_t state_count[CAT_ST_NUM]; /**< transitions into each state */
	uint32_t cur;
	struct cat_ctx ctx;
	uint64_t deadline, probe_tsc, t_start;
	uint64_t rx, rx_bad, rx_foreign;
	/* between the control thread and the lcore */
	pthread_t thread;
	bool thread_up;
	int keys_ready;	  /**< 1: keys exchanged, -1: failed */
	int entries_done; /**< the lcore ran them all (1), or gave up (-1: no exchange at the end) */
	int closed;	  /**< the control thread is finished */
	struct gen_pt pt; /**< perftest's exchange */
	char why[200];	  /**< why the run failed */
	uint32_t mtu;	  /**< the path MTU both sides agreed */
} cat = {.pt.sock = -1, .mtu = CAT_PMTU};

/* the counting setter: every transition is counted (the run's report shows them) */
static void cat_set_state(enum cat_state s)
{
	cat.state = s;
	cat.state_count[s]++;
}

static void send_frame(struct cat_ctx *c, struct rte_mbuf *m)
{
	if (!m)
		return;
	if (stk_ip_send(c->lc, c->ifc, m, &cat.o.server) != 0)
		rte_pktmbuf_free(m);
	else
		c->sent++;
}

/* A valid WRITE ONLY of CAT_SIZE bytes at the region's start, AckReq, at @p psn. */
static struct rte_mbuf *write_only(struct cat_ctx *c, struct roce_path *path, uint32_t psn)
{
	struct roce_tx t;

	tx_init(c, &t, path, ROCE_OP_RC_RDMA_WRITE_ONLY, psn);
	t.ackreq = true;
	t.dmalen = CAT_SIZE;
	return build(c, &t, CAT_SIZE);
}

static struct rte_mbuf *fetch_add(struct cat_ctx *c, struct roce_path *path, uint32_t psn,
				  uint64_t off)
{
	struct roce_tx t;

	tx_init(c, &t, path, ROCE_OP_RC_FETCH_ADD, psn);
	t.ackreq = true;
	t.va += off;
	t.swap_add = 1;
	return build(c, &t, 0);
}

#define PATH(c) struct roce_path path = {.dgid_ip = cat.o.server}

/* --- the entries' senders: each builds a valid frame and breaks what its entry names --- */

static int s_valid_write(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, write_only(c, &path, c->q->psn));
	c->q->psn++;
	return 1;
}

static int s_valid_atomic(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, fetch_add(c, &path, c->q->psn, 0));
	c->q->psn++;
	return 1;
}

static int s_bad_icrc(struct cat_ctx *c)
{
	PATH(c);
	struct rte_mbuf *m = write_only(c, &path, c->q->psn);

	if (m)
		*rte_pktmbuf_mtod_offset(m, uint8_t *, rte_pktmbuf_pkt_len(m) - 1) ^= 0xff;
	send_frame(c, m);
	return 1;
}

static int s_bad_udp_len(struct cat_ctx *c)
{
	PATH(c);
	struct rte_mbuf *m = write_only(c, &path, c->q->psn);

	if (m) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip_of(c, m) + 1);

		udp->dgram_len =
			rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(udp->dgram_len) + 16));
		icrc(c, m); /* the ICRC covers the UDP length: only the length is wrong */
	}
	send_frame(c, m);
	return 1;
}

static int s_trunc_bth(struct cat_ctx *c)
{
	PATH(c);
	struct rte_mbuf *m = write_only(c, &path, c->q->psn);

	if (m)
		cut(c, m, 8);
	send_frame(c, m);
	return 1;
}

/* @p opcode with no payload, cut to @p keep bytes after the BTH, ICRC valid */
static int send_cut(struct cat_ctx *c, uint8_t opcode, uint32_t keep)
{
	PATH(c);
	struct roce_tx t;
	struct rte_mbuf *m;

	tx_init(c, &t, &path, opcode, c->q->psn);
	t.ackreq = true;
	m = build(c, &t, 0);
	if (m) {
		cut(c, m, 12 + keep + ROCE_ICRC_LEN);
		icrc(c, m);
	}
	send_frame(c, m);
	return 1;
}

static int s_trunc_reth(struct cat_ctx *c)
{
	return send_cut(c, ROCE_OP_RC_RDMA_WRITE_ONLY, 8); /* 8 of the RETH's 16 bytes */
}

static int s_trunc_aeth(struct cat_ctx *c)
{
	return send_cut(c, ROCE_OP_RC_ACKNOWLEDGE, 2); /* 2 of the AETH's 4 */
}

static int s_trunc_atomiceth(struct cat_ctx *c)
{
	return send_cut(c, ROCE_OP_RC_FETCH_ADD, 20); /* 20 of the AtomicETH's 28 */
}

static int s_bad_pad(struct cat_ctx *c)
{
	PATH(c);
	struct rte_mbuf *m = write_only(c, &path, c->q->psn);

	if (m) {
		bth_of(c, m)[1] |= 2u << 4; /* PadCnt 2: 62 bytes of data where the RETH says 64 */
		icrc(c, m);
	}
	send_frame(c, m);
	return 1;
}

/* a WRITE @p opcode at @p psn with @p len bytes of payload and DMA length @p dmalen */
static void send_write(struct cat_ctx *c, uint8_t opcode, uint32_t psn, uint32_t len,
		       uint32_t dmalen)
{
	PATH(c);
	struct roce_tx t;

	tx_init(c, &t, &path, opcode, psn);
	t.ackreq = opcode == ROCE_OP_RC_RDMA_WRITE_ONLY;
	t.dmalen = dmalen;
	send_frame(c, build(c, &t, len));
}

static int s_over_pmtu(struct cat_ctx *c)
{
	send_write(c, ROCE_OP_RC_RDMA_WRITE_ONLY, c->q->psn, cat.mtu + 256, cat.mtu + 256);
	return 1;
}

static int s_short_first(struct cat_ctx *c)
{
	send_write(c, ROCE_OP_RC_RDMA_WRITE_FIRST, c->q->psn, cat.mtu / 2, 2 * cat.mtu);
	return 1;
}

static int s_middle_alone(struct cat_ctx *c)
{
	send_write(c, ROCE_OP_RC_RDMA_WRITE_MIDDLE, c->q->psn, cat.mtu, 0);
	return 1;
}

static int s_first_first(struct cat_ctx *c)
{
	send_write(c, ROCE_OP_RC_RDMA_WRITE_FIRST, c->q->psn, cat.mtu, 3 * cat.mtu);
	send_write(c, ROCE_OP_RC_RDMA_WRITE_FIRST, c->q->psn + 1, cat.mtu, 3 * cat.mtu);
	c->q->psn++; /* the first FIRST was in order */
	return 1;
}

static int s_bad_len(struct cat_ctx *c)
{
	send_write(c, ROCE_OP_RC_RDMA_WRITE_FIRST, c->q->psn, cat.mtu, 1u << 30);
	return 1;
}

static int s_psn_ahead(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, write_only(c, &path, c->q->psn + 10));
	return 1;
}

static int s_psn_far_behind(struct cat_ctx *c)
{
	PATH(c);
	/* more than 2^23 behind: outside the duplicate region, so ahead (IBA 9.7.5.1) */
	send_frame(c, write_only(c, &path, c->q->psn - 0x800010u));
	return 1;
}

static int s_psn_behind(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, write_only(c, &path, c->q->psn - 1));
	return 1;
}

static int s_dup_read_unknown(struct cat_ctx *c)
{
	PATH(c);
	struct roce_tx t;

	tx_init(c, &t, &path, ROCE_OP_RC_RDMA_READ_REQUEST, c->q->psn - 1);
	t.dmalen = CAT_SIZE;
	send_frame(c, build(c, &t, 0));
	return 1;
}

/* a valid WRITE ONLY with one field changed by @p fix */
static int send_write_with(struct cat_ctx *c, void (*fix)(struct cat_ctx *c, struct roce_tx *t))
{
	PATH(c);
	struct roce_tx t;

	tx_init(c, &t, &path, ROCE_OP_RC_RDMA_WRITE_ONLY, c->q->psn);
	t.ackreq = true;
	t.dmalen = CAT_SIZE;
	fix(c, &t);
	send_frame(c, build(c, &t, CAT_SIZE));
	return 1;
}

static void fix_rkey(struct cat_ctx *c, struct roce_tx *t)
{
	(void)c;
	t->rkey ^= 0x00800000u; /* another key index, the same key byte */
}

static void fix_va(struct cat_ctx *c, struct roce_tx *t)
{
	(void)c;
	t->va += 1ull << 30;
}

static void fix_pkey(struct cat_ctx *c, struct roce_tx *t)
{
	(void)c;
	t->pkey = 0x7ffe; /* a limited-member key no port here holds */
}

static void fix_qpn(struct cat_ctx *c, struct roce_tx *t)
{
	t->dqpn = (c->q->dqpn + 0x4321u) & 0xfffffeu; /* never 0xffffff (multicast) */
}

static int s_bad_rkey(struct cat_ctx *c)
{
	return send_write_with(c, fix_rkey);
}

static int s_bad_va(struct cat_ctx *c)
{
	return send_write_with(c, fix_va);
}

static int s_bad_pkey(struct cat_ctx *c)
{
	return send_write_with(c, fix_pkey);
}

static int s_unknown_qp(struct cat_ctx *c)
{
	return send_write_with(c, fix_qpn);
}

static int s_atomic_misaligned(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, fetch_add(c, &path, c->q->psn, 4));
	return 1;
}

static int s_write_on_atomic(struct cat_ctx *c)
{
	PATH(c);
	send_frame(c, write_only(c, &path, c->q->psn));
	return 1;
}

static int s_send_no_recv(struct cat_ctx *c)
{
	PATH(c);
	struct roce_tx t;

	tx_init(c, &t, &path, ROCE_OP_RC_SEND_ONLY, c->q->psn);
	t.ackreq = true;
	send_frame(c, build(c, &t, CAT_SIZE));
	return 1;
}

/* an address on our link that nobody holds: ours with one host bit flipped */
static rte_be32_t third_address(const struct cat_ctx *c)
{
	return c->ifc->ip4.v4 ^ rte_cpu_to_be_32(0x40);
}

static void from_third_address(struct cat_ctx *c, struct rte_mbuf *m)
{
	if (!m)
		return;
	ip_of(c, m)->src_addr = third_address(c);
	ip_csum(ip_of(c, m));
	icrc(c, m); /* a valid packet, from the wrong address */
}

static int s_wrong_source(struct cat_ctx *c)
{
	PATH(c);
	struct rte_mbuf *m = write_only(c, &path, c->q->psn);

	from_third_address(c, m);
	send_frame(c, m);
	return 1;
}

static int s_forged_cnp(struct cat_ctx *c)
{
	PATH(c);
	struct roce_tx t;
	struct rte_mbuf *m;

	tx_init(c, &t, &path, ROCE_OP_CNP, 0);
	t.becn = true;
	m = build(c, &t, 0);
	from_third_address(c, m);
	send_frame(c, m);
	return 1;
}

static int s_ce_flood(struct cat_ctx *c)
{
	struct roce_path path = {.dgid_ip = cat.o.server, .ecn = 3}; /* CE */

	for (uint32_t i = 0; i < CAT_FLOOD; i++) {
		struct roce_tx t;

		tx_init(c, &t, &path, ROCE_OP_RC_RDMA_WRITE_ONLY, c->q->psn);
		t.ackreq = i + 1 == CAT_FLOOD;
		t.dmalen = CAT_SIZE;
		send_frame(c, build(c, &t, CAT_SIZE));
		c->q->psn++;
	}
	return 1;
}

/* IEEE 802.1Qbb PFC: XOFF on all eight priorities for the longest time (65535 quanta) */
static void send_xoff(struct cat_ctx *c)
{
	static const uint8_t pfc_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->lc->pool);
	uint8_t *d = m ? (uint8_t *)rte_pktmbuf_append(m, 60) : NULL;

	if (!d) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(d, 0, 60);
	memcpy(d, pfc_mac, 6);
	memcpy(d + 6, &c->ifc->mac, 6);
	d[12] = 0x88, d[13] = 0x08; /* MAC Control */
	d[14] = 0x01, d[15] = 0x01; /* PFC */
	d[16] = 0x00, d[17] = 0xff; /* every priority */
	for (int i = 0; i < 8; i++)
		d[18 + 2 * i] = 0xff, d[19 + 2 * i] = 0xff;
	stk_tx_frame(c->lc, c->ifc, m);
	c->sent++;
}

static int s_pfc_storm(struct cat_ctx *c)
{
	uint64_t at = c->t0 + (uint64_t)c->calls * CAT_STORM_GAP_US * rte_get_tsc_hz() / 1000000;

	if (c->now < at)
		return 0; /* not yet */
	if (c->calls == 10) {
		PATH(c);
		/* a valid WRITE in the middle of the storm: its ACK may wait, but must come */
		send_frame(c, write_only(c, &path, c->q->psn));
		c->q->psn++;
	}
	send_xoff(c);
	c->calls++;
	return (uint64_t)c->calls * CAT_STORM_GAP_US >= CAT_STORM_MS * 1000u;
}

#define W GEN_CAT_WRITE
#define A GEN_CAT_ATOMIC
#define R_(x) GEN_CAT_##x
static const struct cat_entry cat_table[] = {
	{"valid-write", W, s_valid_write, R_(ACK), CAT_ALIVE, false,
	 "a valid WRITE ONLY of 64 B, AckReq (control)", "IBA 9.7.5.1: ACKed"},
	{"bad-icrc", W, s_bad_icrc, R_(NONE), CAT_ALIVE, false,
	 "WRITE ONLY with its ICRC's last byte flipped",
	 "IBA A17.3.3, 9.6: a packet whose ICRC does not check is silently dropped"},
	{"bad-udp-length", W, s_bad_udp_len, R_(NONE), CAT_ALIVE, false,
	 "WRITE ONLY whose UDP length is 16 more than the IP payload (ICRC valid)",
	 "RFC 768, A17.4: a datagram longer than its IP payload is malformed: dropped"},
	{"truncated-bth", W, s_trunc_bth, R_(NONE), CAT_ALIVE, false,
	 "a UDP payload of 8 bytes: two thirds of a BTH",
	 "IBA 9.6 header validation: silently dropped"},
	{"truncated-reth", W, s_trunc_reth, R_(NONE), CAT_ALIVE, false,
	 "WRITE ONLY with 8 of the RETH's 16 bytes (ICRC valid)",
	 "IBA 9.6: shorter than its opcode's headers: malformed, silently dropped"},
	{"truncated-aeth", W, s_trunc_aeth, R_(NONE), CAT_ALIVE, false,
	 "an ACK with 2 of the AETH's 4 bytes, to the responder's QP (ICRC valid)",
	 "IBA 9.6: malformed, silently dropped (a responder has nothing to complete)"},
	{"truncated-atomiceth", A, s_trunc_atomiceth, R_(NONE), CAT_ALIVE, false,
	 "FETCH_ADD with 20 of the AtomicETH's 28 bytes (ICRC valid)",
	 "IBA 9.6: malformed, silently dropped"},
	{"bad-pad", W, s_bad_pad, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE ONLY of 64 B with PadCnt 2: 62 bytes of data where the RETH says 64",
	 "IBA 9.7.5.1 length error: NAK invalid request; the RC responder goes to error"},
	{"over-pmtu", W, s_over_pmtu, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE ONLY with 256 B more payload than the path MTU",
	 "IBA 9.7.5.1 length error (payload > PMTU): NAK invalid request, QP to error"},
	{"short-first", W, s_short_first, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE FIRST with half a PMTU of payload",
	 "IBA 9.7.5.1: FIRST and MIDDLE carry exactly the PMTU: NAK invalid request"},
	{"middle-alone", W, s_middle_alone, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE MIDDLE with no FIRST before it",
	 "IBA 9.7.5.1 opcode sequence error: NAK invalid request, QP to error"},
	{"first-after-first", W, s_first_first, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE FIRST, then another WRITE FIRST at the next PSN",
	 "IBA 9.7.5.1 opcode sequence error: NAK invalid request, QP to error"},
	{"psn-ahead", W, s_psn_ahead, R_(NAK_SEQ), CAT_ALIVE, false,
	 "WRITE ONLY 10 PSNs ahead of the expected one",
	 "IBA 9.7.5.2.2: one NAK PSN sequence error with the expected PSN; QP unchanged"},
	{"psn-far-behind", W, s_psn_far_behind, R_(NAK_SEQ), CAT_ALIVE, false,
	 "WRITE ONLY 2^23 + 16 PSNs behind the expected one (outside the duplicate window)",
	 "IBA 9.7.5.1: only the 2^23 PSNs before the expected one are duplicates; the rest "
	 "is ahead: NAK PSN sequence error; QP unchanged"},
	{"psn-behind", W, s_psn_behind, R_(ACK), CAT_ALIVE, false,
	 "WRITE ONLY at the PSN before the expected one (a duplicate)",
	 "IBA 9.7.5.2.1: a duplicate is acknowledged again, not executed; QP unchanged"},
	{"dup-read-never-read", W, s_dup_read_unknown, R_(NONE), CAT_ALIVE, false,
	 "READ request at the previous PSN, where no READ ever was",
	 "IBA 9.7.5.2.1 re-executes the duplicate READs it holds; for one it never had it "
	 "names no answer: dropped"},
	{"bad-rkey", W, s_bad_rkey, R_(NAK_RAE), CAT_DEAD, false,
	 "WRITE ONLY with an rkey that was never handed out",
	 "IBA 9.7.5.1, C9-222.1.1: NAK remote access error, QP to error"},
	{"bad-va", W, s_bad_va, R_(NAK_RAE), CAT_DEAD, false,
	 "WRITE ONLY 1 GiB past the region's start",
	 "IBA 9.4.4, 10.6: outside the region: NAK remote access error"},
	{"bad-length", W, s_bad_len, R_(NAK_RAE), CAT_DEAD, false,
	 "WRITE FIRST whose DMA length is 1 GiB",
	 "IBA 9.4.4, 10.6: outside the region: NAK remote access error"},
	{"write-not-enabled", A, s_write_on_atomic, R_(NAK_INV), CAT_DEAD, false,
	 "WRITE ONLY to a QP (and region) enabled for atomics only",
	 "IBA 10.2.3: an operation the QP is not enabled for is an invalid request (a region "
	 "without the right, on a QP that has it, would be a remote access error)"},
	{"send-no-recv", W, s_send_no_recv, R_(RNR), CAT_ALIVE, false,
	 "SEND ONLY to a QP with no receive posted",
	 "IBA 9.7.5.2.8: RNR NAK, the PSN not consumed; QP unchanged"},
	{"valid-atomic", A, s_valid_atomic, R_(ATOMIC_ACK), CAT_ALIVE, false,
	 "a valid FETCH_ADD (control)", "IBA 9.4.5: an atomic ACK with the original value"},
	{"atomic-misaligned", A, s_atomic_misaligned, R_(NAK_INV), CAT_DEAD, false,
	 "FETCH_ADD 4 bytes past an 8-byte boundary",
	 "IBA 9.4.5: atomics are 8-byte aligned: NAK invalid request"},
	{"bad-pkey", W, s_bad_pkey, R_(NONE), CAT_ALIVE, false, "WRITE ONLY with P_Key 0x7ffe",
	 "IBA 9.6.1.1, 10.9: P_Key mismatch: silently dropped"},
	{"wrong-source", W, s_wrong_source, R_(NONE), CAT_ALIVE, false,
	 "a valid WRITE ONLY from an address that is not the QP's peer",
	 "IBA 9.6.1.1, A17.4: a connected QP takes its peer's GID only: dropped"},
	{"unknown-qp", W, s_unknown_qp, R_(NONE), CAT_ALIVE, false,
	 "a valid WRITE ONLY to a QP number that does not exist",
	 "IBA 9.6.1.1: no such QP: silently dropped"},
	{"forged-cnp", W, s_forged_cnp, R_(NONE), CAT_ALIVE, false,
	 "a CNP to the QP from an address that is not its peer",
	 "A17.9, 9.6.1.1: not from the peer: dropped; nothing visible changes"},
	{"ce-flood", W, s_ce_flood, R_(ACK), CAT_ALIVE, true,
	 "64 valid WRITEs, all CE-marked, the last with AckReq",
	 "A17.9.3: placed and ACKed; a notification point (congestion control on) sends CNPs"},
	{"pfc-xoff-storm", W, s_pfc_storm, R_(ACK), CAT_ALIVE, false,
	 "PFC XOFF (all priorities, 65535 quanta) every 2 ms for 300 ms, a WRITE in the middle",
	 "802.1Qbb: the peer pauses; the WRITE's ACK comes, late at worst; nothing is lost"},
};
#undef W
#undef A
#undef R_

#define CAT_N RTE_DIM(cat_table)

/* Where a kind of peer is known to differ from the spec (from its source, and seen in the
 * lab): reported as such, not failed. */
static const struct cat_deviation cat_deviations[] = {
	{"rxe", "ce-flood", GEN_CAT_ACK, CAT_ALIVE, false,
	 "rxe has no RoCEv2 congestion control: it never sends a CNP"},
};

/* ------------------------------------------------------------------ selection and listing */

static const char *const verb_names[GEN_CAT_NUM_VERBS] = {"write", "atomic"};

enum gen_cat_verb gen_cat_verb_parse(const char *s)
{
	for (int v = 0; v < GEN_CAT_NUM_VERBS; v++)
		if (strcmp(s, verb_names[v]) == 0)
			return (enum gen_cat_verb)v;
	return GEN_CAT_NUM_VERBS;
}

/* @return whether @p name is in the comma-separated @p only (NULL: all) */
static bool selected(const char *only, const char *name)
{
	size_t n = strlen(name);

	if (!only)
		return true;
	for (const char *s = only; *s;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len == n && strncmp(s, name, n) == 0)
			return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

int gen_cat_qps(enum gen_cat_verb verb, const char *only)
{
	int n = 0;

	if (only) { /* every name must be an entry of this verb */
		char buf[512];
		char *save = NULL;

		snprintf(buf, sizeof(buf), "%s", only);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			size_t i;

			for (i = 0; i < CAT_N; i++)
				if (strcmp(cat_table[i].name, tok) == 0)
					break;
			if (i == CAT_N) {
				fprintf(stderr,
					"droce-gen: --cat-only: no entry \"%s\" (--cat-list lists "
					"them)\n",
					tok);
				return -1;
			}
			if (cat_table[i].verb != verb) {
				fprintf(stderr,
					"droce-gen: --cat-only: %s runs on the %s server, not "
					"--catalogue %s\n",
					tok, verb_names[cat_table[i].verb], verb_names[verb]);
				return -1;
			}
		}
	}
	for (size_t i = 0; i < CAT_N; i++)
		n += cat_table[i].verb == verb && selected(only, cat_table[i].name);
	return n;
}

void gen_cat_list(FILE *f)
{
	fprintf(f, "%-20s %-6s %-26s %-6s %s\n", "entry", "server", "spec: reaction", "probe",
		"what / why");
	for (size_t i = 0; i < CAT_N; i++) {
		const struct cat_entry *e = &cat_table[i];

		fprintf(f, "%-20s %-6s %-26s %-6s %s\n%54s %s\n", e->name, verb_names[e->verb],
			gen_cat_react_name(e->expect), after_names[e->after], e->what, "", e->spec);
	}
	for (size_t i = 0; i < RTE_DIM(cat_deviations); i++) {
		const struct cat_deviation *d = &cat_deviations[i];

		fprintf(f, "known deviation: %s %s: %s, %s%s (%s)\n", d->peer, d->entry,
			gen_cat_react_name(d->react), after_names[d->after], d->cnp ? ", CNP" : "",
			d->why);
	}
}

/* ------------------------------------------------------------------ replies */

static unsigned react_rank(enum gen_cat_react r)
{
	switch (r) {
	case GEN_CAT_NONE:
	case GEN_CAT_CNP:
		return 0;
	case GEN_CAT_OTHER:
		return 1;
	case GEN_CAT_ACK:
		return 2;
	case GEN_CAT_READ_RESP:
	case GEN_CAT_ATOMIC_ACK:
		return 3;
	case GEN_CAT_RNR:
		return 4;
	default:
		return 5; /* the NAKs */
	}
}

/* A RoCEv2 datagram to UDP 4791: the peer's answer to one of our QPs. */
static int cat_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		  const struct stk_pkt *p, void *arg)
{
	uint8_t buf[64];
	uint32_t n = RTE_MIN((uint32_t)p->payload_len, (uint32_t)sizeof(buf));
	const uint8_t *d = rte_pktmbuf_read(m, p->payload_off, n, buf);
	struct gen_cat_reply rep;
	struct cat_result *r;
	uint32_t idx;
	(void)lc, (void)ifc, (void)arg;

	cat.rx++;
	if (!d || p->payload_len < 16 ||
	    !roce_icrc_check(m, p->l3_off, p->payload_off,
			     (uint32_t)p->payload_off + p->payload_len - ROCE_ICRC_LEN) ||
	    gen_cat_decode(d, n, &rep) != 0) {
		cat.rx_bad++;
		goto out;
	}
	idx = rep.dqpn - CAT_LQPN0;
	if (rep.dqpn < CAT_LQPN0 || idx >= cat.n) {
		cat.rx_foreign++;
		goto out;
	}
	r = &cat.r[idx];
	r->replies++;
	if (r->nlog < CAT_LOG)
		r->log[r->nlog++] = rep;
	if (rep.react == GEN_CAT_CNP) {
		r->cnps++;
		goto out;
	}
	if (idx != cat.cur)
		goto out; /* late: logged, not judged */
	if (cat.state == CAT_ST_SEND || cat.state == CAT_ST_OBSERVE) {
		if (rep.has_aeth)
			r->msn = rep.msn;
		if (r->react == GEN_CAT_NONE)
			r->react_ms = (double)(rte_get_tsc_cycles() - cat.ctx.t0) * 1e3 /
				      (double)rte_get_tsc_hz();
		if (react_rank(rep.react) > react_rank(r->react)) {
			r->react = rep.react;
			r->nak_psn = rep.psn;
		}
	} else if (cat.state == CAT_ST_PROBE) {
		/* the probe's answer names its PSN, and its MSN is one more than the messages the
		 * peer had executed: a frame the peer took late (after --cat-wait) shows there */
		if (!r->alive && (rep.react == GEN_CAT_ACK || rep.react == GEN_CAT_ATOMIC_ACK) &&
		    rep.psn == r->probe_psn && rep.msn == ((r->msn + 1) & 0xffffffu)) {
			r->alive = true;
			r->probe_ms = (double)(rte_get_tsc_cycles() - cat.probe_tsc) * 1e3 /
				      (double)rte_get_tsc_hz();
		} else if (!r->alive) {
			r->probe_other++; /* answered, but not as a live QP: neither verdict */
		}
	}
out:
	rte_pktmbuf_free(m);
	return 0;
}

/* ------------------------------------------------------------------ the control thread */

static void my_keys(uint32_t i, struct perf_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->out_reads = 1;
	d->qpn = cat.r[i].q.lqpn;
	d->psn = cat.r[i].q.psn0;
	gen_pt_gid(cat.o.iface, d->gid);
}

static void *cat_control(void *arg)
{
	struct perf_dest mine[CAT_MAX_ENTRIES], theirs[CAT_MAX_ENTRIES];
	(void)arg;

	for (uint32_t i = 0; i < cat.n; i++)
		my_keys(i, &mine[i]);
	if (gen_pt_open(&cat.pt, cat.n, mine, theirs) != 0) {
		snprintf(cat.why, sizeof(cat.why), "%s", cat.pt.why);
		__atomic_store_n(&cat.keys_ready, -1, __ATOMIC_RELEASE);
	} else {
		for (uint32_t i = 0; i < cat.n; i++) {
			cat.r[i].q.dqpn = theirs[i].qpn;
			cat.r[i].q.rkey = theirs[i].rkey;
			cat.r[i].q.va = theirs[i].vaddr;
		}
		cat.mtu = cat.pt.mtu;
		__atomic_store_n(&cat.keys_ready, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&cat.entries_done, __ATOMIC_ACQUIRE) && !stk_stopping())
			usleep(10000);
		if (__atomic_load_n(&cat.entries_done, __ATOMIC_ACQUIRE) > 0)
			gen_pt_close(&cat.pt, &mine[0], CAT_SIZE, cat.n);
		else
			gen_pt_abort(&cat.pt);
	}
	__atomic_store_n(&cat.closed, 1, __ATOMIC_RELEASE);
	return NULL;
}

int gen_cat_start(const struct gen_cat_opts *o)
{
	int rc;

	cat.o = *o;
	cat.n = 0;
	cat.pt.server = o->server;
	cat.pt.port = o->port;
	cat.pt.iface = o->iface;
	cat.pt.mtu = CAT_PMTU; /* the entries' frames are sized for it (over-pmtu: 1280 B) */
	srand48((long)rte_get_tsc_cycles()); /* each run's PSNs its own */
	for (size_t i = 0; i < CAT_N && cat.n < CAT_MAX_ENTRIES; i++) {
		struct cat_result *r;

		if (cat_table[i].verb != o->verb || !selected(o->only, cat_table[i].name))
			continue;
		r = &cat.r[cat.n];
		r->e = &cat_table[i];
		r->q.lqpn = CAT_LQPN0 + cat.n;
		r->q.psn0 = r->q.psn = (uint32_t)lrand48() & 0xffffffu;
		cat.n++;
	}
	for (size_t i = 0; i < sizeof(cat_payload); i++)
		cat_payload[i] = (uint8_t)(0xa5 ^ i);
	if (cat.n == 0) {
		fprintf(stderr, "droce-gen: --catalogue: no entry selected\n");
		return -EINVAL;
	}
	rc = stk_udp_bind(4791, cat_rx, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-gen: --catalogue: cannot bind UDP 4791: %s\n",
			strerror(-rc));
		return rc;
	}
	rc = pthread_create(&cat.thread, NULL, cat_control, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-gen: --catalogue: cannot start its thread: %s\n",
			strerror(rc));
		return -rc;
	}
	cat.thread_up = true;
	cat_set_state(CAT_ST_KEYS);
	return 0;
}

/* ------------------------------------------------------------------ the run (main lcore) */

static uint64_t ms_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

static enum cat_state step_keys(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	int k = __atomic_load_n(&cat.keys_ready, __ATOMIC_ACQUIRE);

	if (k < 0)
		return CAT_ST_DONE;
	if (k == 0)
		return CAT_ST_KEYS;
	if (!cat.o.json)
		printf("droce-gen: catalogue: %u QPs connected on %s:%u (path MTU %u)\n", cat.n,
		       ifc->name, cat.o.port, cat.mtu);
	cat.deadline = now + ms_tsc(10000);
	cat.t_start = now;
	stk_neigh_probe(lc, ifc, &cat.o.server);
	return CAT_ST_RESOLVE;
}

static enum cat_state step_resolve(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	const struct stk_neigh *nb;

	if (stk_ip_ready(lc, ifc, &cat.o.server) || !stk_iface_on_link(ifc, &cat.o.server))
		return CAT_ST_SEND; /* via a gateway: stk_ip_send() resolves the next hop */
	nb = stk_neigh_lookup(lc->neigh, ifc->idx, &cat.o.server);
	if (nb && nb->state != STK_NEIGH_INCOMPLETE)
		return CAT_ST_SEND;
	if (now >= cat.deadline) {
		snprintf(cat.why, sizeof(cat.why), "no answer to ARP for the server");
		__atomic_store_n(&cat.entries_done, -1, __ATOMIC_RELEASE); /* the thread ends too */
		return CAT_ST_DONE;
	}
	if (now >= cat.probe_tsc) {
		stk_neigh_probe(lc, ifc, &cat.o.server);
		cat.probe_tsc = now + ms_tsc(200);
	}
	return CAT_ST_RESOLVE;
}

static enum cat_state step_send(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	struct cat_result *r = &cat.r[cat.cur];
	struct cat_ctx *c = &cat.ctx;

	if (c->q != &r->q) { /* the entry's first round */
		memset(c, 0, sizeof(*c));
		c->q = &r->q;
		c->t0 = now;
	}
	c->lc = lc;
	c->ifc = ifc;
	c->now = now;
	if (r->e->send(c) == 0)
		return CAT_ST_SEND;
	stk_lcore_flush(lc);
	r->sent = c->sent;
	cat.deadline = now + ms_tsc(cat.o.wait_ms);
	return CAT_ST_OBSERVE;
}

static enum cat_state step_observe(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	struct cat_result *r = &cat.r[cat.cur];
	PATH(c);

	if (now < cat.deadline)
		return CAT_ST_OBSERVE;
	/* the probe: a valid request at the PSN the peer should expect now */
	cat.ctx.lc = lc;
	cat.ctx.ifc = ifc;
	r->probe_psn = r->q.psn & 0xffffffu;
	r->probed = true;
	send_frame(&cat.ctx, r->e->verb == GEN_CAT_ATOMIC ? fetch_add(&cat.ctx, &path, r->q.psn, 0)
							  : write_only(&cat.ctx, &path, r->q.psn));
	r->q.psn++;
	stk_lcore_flush(lc);
	cat.probe_tsc = now;
	cat.deadline = now + ms_tsc(cat.o.wait_ms);
	return CAT_ST_PROBE;
}

static enum cat_state step_probe(uint64_t now)
{
	if (!cat.r[cat.cur].alive && now < cat.deadline)
		return CAT_ST_PROBE;
	cat.ctx.q = NULL;
	if (++cat.cur < cat.n)
		return CAT_ST_SEND;
	__atomic_store_n(&cat.entries_done, 1, __ATOMIC_RELEASE);
	return CAT_ST_DONE;
}

bool gen_cat_step(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	enum cat_state prev;

	do {
		enum cat_state next = cat.state;

		prev = cat.state;
		switch (cat.state) {
		case CAT_ST_KEYS:
			next = step_keys(lc, ifc, now);
			break;
		case CAT_ST_RESOLVE:
			next = step_resolve(lc, ifc, now);
			break;
		case CAT_ST_SEND:
			next = step_send(lc, ifc, now);
			break;
		case CAT_ST_OBSERVE:
			next = step_observe(lc, ifc, now);
			break;
		case CAT_ST_PROBE:
			next = step_probe(now);
			break;
		case CAT_ST_DONE:
		default:
			return __atomic_load_n(&cat.closed, __ATOMIC_ACQUIRE) != 0;
		}
		if (next != prev)
			cat_set_state(next);
	} while (cat.state != prev && cat.state != CAT_ST_SEND);
	return false;
}

/* ------------------------------------------------------------------ verdicts */

static bool matches(const struct cat_result *r, enum gen_cat_react react, enum cat_after after,
		    bool cnp)
{
	if (r->react != react || r->alive != (after == CAT_ALIVE))
		return false;
	if (after == CAT_DEAD && r->probe_other)
		return false; /* dead is silence: a NAK to the probe is a QP still answering */
	if (cnp && r->cnps == 0)
		return false;
	if (react == GEN_CAT_NAK_SEQ && r->nak_psn != (r->probe_psn & 0xffffffu))
		return false; /* the NAK names the PSN the peer expects: the probe's */
	return true;
}

static void judge(struct cat_result *r)
{
	const struct cat_entry *e = r->e;

	r->verdict_ok = r->probed && matches(r, e->expect, e->after, e->cnp);
	if (r->verdict_ok || !r->probed || !cat.o.peer)
		return;
	for (size_t i = 0; i < RTE_DIM(cat_deviations); i++) {
		const struct cat_deviation *d = &cat_deviations[i];

		if (strcmp(d->peer, cat.o.peer) == 0 && strcmp(d->entry, e->name) == 0 &&
		    matches(r, d->react, d->after, d->cnp)) {
			r->dev = d;
			r->verdict_ok = true;
		}
	}
}

static const char *verdict_name(const struct cat_result *r)
{
	if (!r->probed)
		return "not run";
	return !r->verdict_ok ? "DIFFERS" : r->dev ? "known deviation" : "as the spec says";
}

int gen_cat_finish(void)
{
	uint32_t ok = 0, dev = 0, bad = 0;

	if (cat.thread_up)
		pthread_join(cat.thread, NULL);
	for (uint32_t i = 0; i < cat.n; i++) {
		judge(&cat.r[i]);
		ok += cat.r[i].verdict_ok && !cat.r[i].dev;
		dev += cat.r[i].dev != NULL;
		bad += !cat.r[i].verdict_ok;
	}
	if (cat.why[0])
		fprintf(stderr, "droce-gen: catalogue: %s\n", cat.why);
	if (cat.state != CAT_ST_DONE)
		fprintf(stderr, "droce-gen: catalogue: stopped in state %s at entry %u of %u\n",
			cat_state_names[cat.state], cat.cur, cat.n);
	if (cat.o.json) {
		printf("{\"mode\":\"catalogue\",\"server\":\"%s\",\"peer\":\"%s\",\"path_mtu\":%u,"
		       "\"entries\":[",
		       verb_names[cat.o.verb], cat.o.peer ? cat.o.peer : "", cat.mtu);
		for (uint32_t i = 0; i < cat.n; i++) {
			const struct cat_result *r = &cat.r[i];

			printf("%s{\"name\":\"%s\",\"expect\":\"%s\",\"expect_probe\":\"%s\","
			       "\"expect_cnp\":%s,\"observed\":\"%s\",\"probe\":\"%s\",\"cnps\":%u,"
			       "\"replies\":%u,\"sent\":%u,\"react_ms\":%.3f,\"probe_ms\":%.3f,"
			       "\"verdict\":\"%s\"}",
			       i ? "," : "", r->e->name, gen_cat_react_name(r->e->expect),
			       after_names[r->e->after], r->e->cnp ? "true" : "false",
			       gen_cat_react_name(r->react),
			       r->alive		? "alive"
			       : r->probe_other ? "answered"
						: "dead",
			       r->cnps, r->replies, r->sent, r->react_ms, r->probe_ms,
			       verdict_name(r));
		}
		printf("],\"as_spec\":%u,\"deviations\":%u,\"differ\":%u,\"rx_bad\":%" PRIu64
		       ",\"rx_foreign\":%" PRIu64 "}\n",
		       ok, dev, bad, cat.rx_bad, cat.rx_foreign);
	} else {
		printf("%-20s %-26s %-26s %8s %-6s %-6s %5s %s\n", "entry", "spec: reaction",
		       "observed", "after ms", "expect", "probe", "CNPs", "verdict");
		for (uint32_t i = 0; i < cat.n; i++) {
			const struct cat_result *r = &cat.r[i];
			char ms[16] = "-";

			if (r->react != GEN_CAT_NONE)
				snprintf(ms, sizeof(ms), "%.1f", r->react_ms);
			printf("%-20s %-26s %-26s %8s %-6s %-6s %5u %s\n", r->e->name,
			       gen_cat_react_name(r->e->expect), gen_cat_react_name(r->react), ms,
			       after_names[r->e->after],
			       r->probed ? (r->alive	     ? "alive"
					    : r->probe_other ? "NAKed"
							     : "dead")
					 : "-",
			       r->cnps, verdict_name(r));
			if (r->dev)
				printf("%20s   (%s)\n", "", r->dev->why);
		}
		printf("droce-gen: catalogue (%s server): %u as the spec says, %u known deviations, "
		       "%u differ; replies that did not decode %" PRIu64
		       ", to no QP of ours %" PRIu64 "\n",
		       verb_names[cat.o.verb], ok, dev, bad, cat.rx_bad, cat.rx_foreign);
	}
	fflush(stdout);
	return cat.why[0] || bad || cat.state != CAT_ST_DONE ? 1 : 0;
}
