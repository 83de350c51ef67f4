/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_stk_roce.c - libFuzzer target for the stack with a RoCE device bound, as a multi-lcore
 * port runs it: the fuzz_pair.c lab with IPv6, software PFC on both interfaces (priority 3,
 * XOFF at a backlog of 8, XON at 2, a 2 ms storm watchdog, pause times of a 1 Gbit/s link: up
 * to 33.5 ms), small neighbour timers (reachable 5 ms, probes 1 ms apart, two of them, 16
 * entries, 16 frames parked in all) and two lcores: lcore 0 polls both ports and runs device
 * 0, lcore 1 runs device 1, so device 1's frames are handed over, and what lcore 0 learns
 * (ARP, NA, PFC) reaches lcore 1 on its control ring. An RC QP pair (over IPv4 or IPv6)
 * carries the traffic. The input interleaves, byte by byte:
 * - posts on either side (SEND with its receive, WRITE, READ, of input-chosen sizes);
 * - frames onto either wire: ARP requests and replies (from the peer, the third address, off
 *   the subnet, broadcast or zero senders), neighbour solicitations and advertisements (from
 *   link-local, global, unspecified or multicast sources, with or without link-layer options,
 *   malformed ones, wrong hop limits and checksums), PFC frames (any class-enable vector and
 *   quanta, XON, 802.3x PAUSE, tagged or short), RoCE frames forged from the peer or the third
 *   address at PSNs relative to the QPs' state, and raw bytes;
 * - control messages one lcore sends the other (neighbour news, PFC frames);
 * - receive backlogs reported to PFC generation (XOFF and XON go on the wire);
 * - time: a virtual clock that looks ahead of the TSC by an input-chosen amount (100 us to
 *   480 ms) runs the neighbour timers (probes, aging, giving up) and PFC release and the storm
 *   watchdog of both lcores; the lcores' own timer tick can be forced; short real waits let
 *   the QPs' timers fire;
 * - the wire losing, duplicating and reordering frames; polls; a QP moved to ERR; a new pair.
 *
 * Checks: after each look ahead, no priority of any lcore and interface is still paused when
 * its pause began a storm-watchdog period ago or more (the watchdog, stk_pfc_port.c, must have
 * released it); completions carry posted wr_ids in posting order. After each input both QPs are
 * destroyed and time runs far ahead until every pause is over and every held frame sent, every
 * parked frame sent or given up and the wire quiet; then every mbuf is back in the pool, the
 * control rings are empty and the rte_malloc element count is back.
 *
 * Input: a header byte (bit 0: the QPs over IPv6), then records whose first byte is the
 * operation (low 4 bits) and the side (bit 4). Reads past the end are zeros, so every prefix is
 * a valid input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ip.h>

#include "fuzz_check.h"
#include "fuzz_pair.h"

#include "roce_int.h" /* the QPs' PSN state, to forge frames relative to it */
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_arp.h"
#include "stk_ctrl.h"
#include "stk_pfc_port.h"
#include "stk_stack.h"
#include "stk_wire.h"

#define MEM 65536u
#define IOVA 0x100000u
#define MAX_OPS 160
#define DEPTH 32
#define PRIO 3		       /* the lossless priority (the RoCE one) */
#define WD_MS 2		       /* storm watchdog */
#define LINK_BPS 1000000000ull /* pauses of up to 65535 quanta last 33.5 ms */

static struct fuzz_pair fp;
static struct {
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	uint8_t *mem;
	struct roce_qp *qp;
	uint32_t qpn;
	uint64_t send_posted, send_done, recv_posted, recv_done;
} s[2];
static bool over6;
static struct stk_lcore *lcs[2];
/* With FUZZ_STK_ROCE_TRACE set: the stack's non-zero counters and drops per lcore and
 * interface after each input, then zeroed (to check that a seed does what its name says). */
static bool trace;

static void print_counters(void)
{
#define CNT_NAME_(n) #n,
	static const char *const cnt[] = {STK_COUNTER_LIST(CNT_NAME_)};

	for (int l = 0; l < 2; l++) {
		for (uint16_t i = 0; i < 2; i++) {
			struct stk_port_stats *st = &lcs[l]->stats[i];

			for (unsigned c = 0; c < STK_CNT_NUM; c++)
				if (st->c[c] && !strstr(cnt[c], "bytes"))
					fprintf(stderr, "lcore %d iface %u %s %lu\n", l, i, cnt[c],
						(unsigned long)st->c[c]);
			for (unsigned d = 0; d < STK_DROP_NUM; d++)
				if (st->drop[d])
					fprintf(stderr, "lcore %d iface %u drop %s %lu\n", l, i,
						stk_drop_name((enum stk_drop)d),
						(unsigned long)st->drop[d]);
			memset(st, 0, sizeof(*st));
		}
	}
}

#define RECV_BIT (1ull << 63)

/* ------------------------------------------------------------------ the QP pair */

static const struct stk_ipaddr *addr_of(int k)
{
	return over6 ? &fp.ip6[k] : &fp.ip[k];
}

static void connect_pair(void)
{
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr ia;
		struct roce_qp_attr a;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = s[k].cq;
		ia.qp_type = ROCE_QPT_RC;
		ia.cap.max_send_wr = DEPTH;
		ia.cap.max_recv_wr = DEPTH;
		s[k].qp = roce_create_qp(s[k].pd, &ia);
		CHECK(s[k].qp != NULL);
		s[k].qpn = roce_qp_num(s[k].qp);
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
					     ROCE_QP_ACCESS_FLAGS) == 0);
	}
	for (int k = 0; k < 2; k++) {
		struct roce_qp_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		a.path_mtu = ROCE_MTU_1024;
		a.dest_qp_num = s[!k].qpn;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		a.ah_attr.dgid_ip = *addr_of(!k);
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
					     ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
					     ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER) ==
		      0);
		a.qp_state = ROCE_QPS_RTS;
		a.timeout = 14; /* 67 ms: held and parked frames are waited for, not resent */
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		CHECK(roce_modify_qp(s[k].qp, &a,
				     ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					     ROCE_QP_MAX_QP_RD_ATOMIC) == 0);
	}
}

static void poll_cq(int k)
{
	struct roce_wc wc[16];
	int n;

	while ((n = roce_poll_cq(s[k].cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			uint64_t seq = wc[i].wr_id & ~RECV_BIT;

			CHECK(strcmp(roce_wc_status_str(wc[i].status), "?") != 0);
			if (wc[i].wr_id & RECV_BIT) {
				CHECK(seq > s[k].recv_done && seq <= s[k].recv_posted);
				s[k].recv_done = seq;
			} else {
				CHECK(seq > s[k].send_done && seq <= s[k].send_posted);
				s[k].send_done = seq;
			}
		}
	}
}

static void destroy_pair(void)
{
	for (int k = 0; k < 2; k++) {
		if (!s[k].qp)
			continue;
		CHECK(roce_destroy_qp(s[k].qp) == 0);
		s[k].qp = NULL;
		poll_cq(k);
		s[k].send_done = s[k].send_posted;
		s[k].recv_done = s[k].recv_posted;
	}
}

static uint32_t pick_len(struct fuzz_in *in)
{
	/* at most 4 packets: the traffic is there to be held and parked, not to be bulk */
	static const uint32_t lens[] = {0, 1, 64, 512, 1024, 1025, 2048, 4096};

	return lens[fuzz_u8(in) & 7];
}

static void post_recv(int k, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uintptr_t)s[k].mem + MEM / 2, .length = len, .lkey = s[k].mr->lkey};
	struct roce_recv_wr wr = {.sg_list = &sg, .num_sge = 1}, *bad;

	if (!s[k].qp)
		return;
	wr.wr_id = RECV_BIT | (s[k].recv_posted + 1);
	if (roce_post_recv(s[k].qp, &wr, &bad) == 0)
		s[k].recv_posted++;
}

/* Traffic from side @k: a SEND (and the peer's receive for it), a WRITE or a READ. */
static void post_send(struct fuzz_in *in, int k)
{
	static const enum roce_wr_opcode ops[] = {ROCE_WR_SEND, ROCE_WR_RDMA_WRITE,
						  ROCE_WR_RDMA_READ, ROCE_WR_SEND};
	uint8_t b = fuzz_u8(in);
	uint32_t len = pick_len(in);
	struct roce_sge sg = {.addr = (uintptr_t)s[k].mem, .length = len, .lkey = s[k].mr->lkey};
	struct roce_send_wr wr, *bad;
	int rc;

	if (!s[k].qp)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ops[b & 3];
	if (wr.opcode == ROCE_WR_SEND && !(b & 4))
		post_recv(!k, len);
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = IOVA + MEM / 4;
	wr.wr.rdma.rkey = s[!k].mr->rkey;
	wr.wr_id = s[k].send_posted + 1;
	rc = roce_post_send(s[k].qp, &wr, &bad);
	CHECK(rc == 0 || rc == -ENOMEM || rc == -EINVAL);
	if (rc == 0)
		s[k].send_posted++;
}

/* ------------------------------------------------------------------ frames onto a wire */

/* An Ethernet frame to side @k's port: onto the wire towards it (the next poll receives it). */
static void wire_put(int k, const uint8_t *f, uint32_t n)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(fp.pool);
	void *d;

	CHECK(m != NULL);
	d = rte_pktmbuf_append(m, (uint16_t)n);
	CHECK(d != NULL || n == 0);
	if (n)
		memcpy(d, f, n);
	if (rte_ring_enqueue(fp.ring[k], m) != 0)
		rte_pktmbuf_free(m);
}

static void put_mac(uint8_t *p, int k, uint8_t b)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};

	switch (b & 3) {
	case 0:
		memcpy(p, &fp.mac[k], 6);
		break;
	case 1:
		memcpy(p, &fp.third_mac, 6);
		break;
	case 2:
		memcpy(p, (b & 4) ? bcast : mcast, 6);
		break;
	default:
		memcpy(p, &fp.mac[!k], 6);
		break;
	}
}

/* An IPv4 address: the peer's, the third, ours, off the subnet, zero, broadcast, ... */
static rte_be32_t pick_ip4(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in);

	switch (b & 7) {
	case 0:
		return fp.ip[!k].v4;
	case 1:
		return fp.third.v4;
	case 2:
		return fp.ip[k].v4;
	case 3:
		return fp.ip[k].v4 ^ RTE_BE32(0x00010000); /* another subnet */
	case 4:
		return 0;
	case 5:
		return fp.ip[k].v4 | RTE_BE32(0xff); /* the subnet's broadcast */
	case 6:
		return (fp.ip[k].v4 & RTE_BE32(0xffffff00)) | rte_cpu_to_be_32(b >> 3);
	default:
		return rte_cpu_to_be_32(fuzz_u32(in));
	}
}

static void arp_frame(struct fuzz_in *in, int k)
{
	uint8_t f[64], b = fuzz_u8(in);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(f + 14);

	memset(f, 0, sizeof(f));
	put_mac(f, k, (b & 0x80) ? 2 | 4 : 0); /* broadcast or to us */
	put_mac(f + 6, k, 3 ^ (b & 1));	       /* the peer, or the third */
	f[12] = 0x08;
	f[13] = 0x06;
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = 6;
	a->arp_plen = (b & 0x40) ? 6 : 4;
	a->arp_opcode = rte_cpu_to_be_16((b & 2) ? RTE_ARP_OP_REPLY : RTE_ARP_OP_REQUEST);
	put_mac(a->arp_data.arp_sha.addr_bytes, k, 3 ^ ((b >> 2) & 3));
	a->arp_data.arp_sip = pick_ip4(in, k);
	put_mac(a->arp_data.arp_tha.addr_bytes, k, (b >> 4) & 3);
	a->arp_data.arp_tip = (b & 0x20) ? pick_ip4(in, k) : fp.ip[k].v4;
	wire_put(k, f, (b & 0x10) && (b & 8) ? 30 : 60); /* or truncated */
}

/* An IPv6 address: the peer's link-local or global, the third, ours, unspecified, multicast. */
static void pick_ip6(struct fuzz_in *in, int k, uint8_t *a)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	struct stk_ipaddr x;
	uint8_t b = fuzz_u8(in);

	switch (b & 7) {
	case 0:
		stk_ipv6_link_local(&fp.mac[!k], &x);
		memcpy(a, x.v6, 16);
		break;
	case 1:
		memcpy(a, fp.ip6[!k].v6, 16);
		break;
	case 2:
		memcpy(a, fp.third6.v6, 16);
		break;
	case 3:
		memcpy(a, fp.ip6[k].v6, 16);
		break;
	case 4:
		memset(a, 0, 16);
		break;
	case 5:
		memcpy(a, all_nodes, 16);
		break;
	case 6:
		stk_ipv6_solicited_node(&fp.ip6[k], &x);
		memcpy(a, x.v6, 16);
		break;
	default:
		memcpy(a, fp.ip6[k].v6, 16);
		a[15] = b; /* on the subnet */
		break;
	}
}

static void nd_frame(struct fuzz_in *in, int k)
{
	uint8_t f[128], b = fuzz_u8(in), o = fuzz_u8(in);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);
	struct stk_nd_msg *nd = (struct stk_nd_msg *)(ip + 1);
	uint8_t *opt = (uint8_t *)(nd + 1);
	uint16_t olen = 0;

	memset(f, 0, sizeof(f));
	put_mac(f + 6, k, 3 ^ (b & 1));
	f[12] = 0x86;
	f[13] = 0xdd;
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = (b & 2) ? 64 : 255;
	pick_ip6(in, k, ip->src_addr);
	pick_ip6(in, k, ip->dst_addr);
	if (ip->dst_addr[0] == 0xff) { /* a multicast IP goes to its group MAC */
		f[0] = 0x33;
		f[1] = 0x33;
		memcpy(f + 2, ip->dst_addr + 12, 4);
	} else {
		put_mac(f, k, 0);
	}
	nd->type = (b & 4) ? STK_ND_NEIGHBOR_ADVERT : STK_ND_NEIGHBOR_SOLICIT;
	nd->code = (b & 8) ? 1 : 0;
	nd->flags = o & 0xe0; /* R, S, O */
	pick_ip6(in, k, nd->target);
	if (o & 1) { /* a link-layer address option of the right kind, or of the other */
		opt[0] = (uint8_t)(((nd->type == STK_ND_NEIGHBOR_SOLICIT) ^ !!(o & 2)) ? 1 : 2);
		opt[1] = (o & 4) ? 0 : 1; /* length 0 is malformed */
		put_mac(opt + 2, k, 3 ^ ((o >> 3) & 3));
		olen = 8;
	}
	if (o & 0x10) { /* an unknown option after it */
		opt[olen] = 14;
		opt[olen + 1] = 1;
		olen += 8;
	}
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(*nd) + olen));
	nd->cksum = 0;
	nd->cksum = rte_ipv6_udptcp_cksum(ip, nd);
	if (b & 0x10)
		nd->cksum ^= 1;
	wire_put(k, f, 14 + sizeof(*ip) + sizeof(*nd) + olen);
}

/* A MAC Control frame: PFC for the classes the input enables (mostly ours), or 802.3x. */
static void pfc_frame(struct fuzz_in *in, int k)
{
	uint8_t f[64], b = fuzz_u8(in);
	uint16_t ce = (b & 1) ? (uint16_t)(1u << PRIO) : fuzz_u16(in);
	uint32_t n = 60;

	memset(f, 0, sizeof(f));
	f[0] = 0x01;
	f[1] = 0x80;
	f[2] = 0xc2;
	f[5] = 0x01;
	put_mac(f + 6, k, 3);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = (b & 2) ? 0x01 : 0x00; /* PFC (0x0101) or 802.3x PAUSE (0x0001) */
	f[15] = 0x01;
	f[16] = (uint8_t)(ce >> 8);
	f[17] = (uint8_t)ce;
	for (unsigned p = 0; p < 8; p++) {
		uint16_t q;

		switch ((b >> 2) & 3) {
		case 0:
			q = 0xffff; /* the longest pause */
			break;
		case 1:
			q = 0; /* XON */
			break;
		default:
			q = fuzz_u16(in);
			break;
		}
		f[18 + 2 * p] = (uint8_t)(q >> 8);
		f[19 + 2 * p] = (uint8_t)q;
	}
	if (b & 0x10)
		n = 14 + fuzz_u8(in) % 24; /* truncated */
	if (b & 0x20)
		memcpy(f, &fp.mac[k], 6); /* unicast to us, not to the reserved group */
	wire_put(k, f, n);
}

/* A PSN relative to side @k's QP. */
static uint32_t pick_psn(struct fuzz_in *in, int k)
{
	uint8_t b = fuzz_u8(in);
	const struct roce_qp *q = s[k].qp;
	int32_t delta = (int8_t)fuzz_u8(in);
	uint32_t base = !q	       ? 0
			: (b & 3) == 0 ? q->resp.psn
			: (b & 3) == 1 ? q->comp.psn
			: (b & 3) == 2 ? q->req.psn
				       : fuzz_u32(in);

	return (base + (uint32_t)delta) & ROCE_PSN_MASK;
}

/* A RoCE frame to side @k's QP from its peer (or the third address), ICRC computed. */
static void roce_frame(struct fuzz_in *in, int k)
{
	static const uint8_t ops[] = {0x04, 0x00, 0x01, 0x02, 0x0a, 0x0c, 0x10, 0x11, 0x11, 0x81};
	uint8_t b = fuzz_u8(in), payload[1024];
	struct roce_path path;
	struct roce_tx t;
	struct rte_mbuf *m;
	uint32_t len = pick_len(in);

	memset(&t, 0, sizeof(t));
	t.opcode = ops[b % RTE_DIM(ops)];
	t.psn = pick_psn(in, k);
	t.ackreq = (b & 0x40) != 0;
	t.dqpn = s[k].qpn;
	t.lqpn = s[!k].qpn;
	t.rkey = s[k].mr->rkey;
	t.va = IOVA;
	t.dmalen = len;
	t.syndrome = fuzz_u8(in);
	t.msn = s[k].qp ? s[k].qp->resp.msn : 0;
	if (!roce_op_has((enum roce_opcode)t.opcode, ROCE_OPF_PAYLOAD) || len > sizeof(payload))
		len = 0;
	memset(payload, 0x3c, len);
	memset(&path, 0, sizeof(path));
	path.dgid_ip = *addr_of(k);
	if (b & 0x80)
		path.sgid_ip = over6 ? fp.third6 : fp.third;
	path.ecn = (b >> 4) & 3; /* CE sometimes */
	t.path = &path;
	m = roce_tx_build(fp.pool, stk_iface_get((uint16_t)!k), &t, payload, len, NULL);
	if (!m)
		return;
	rte_ether_addr_copy(&fp.mac[k], rte_pktmbuf_mtod(m, struct rte_ether_addr *));
	if (rte_ring_enqueue(fp.ring[k], m) != 0)
		rte_pktmbuf_free(m);
}

static void raw_frame(struct fuzz_in *in, int k)
{
	uint32_t n = RTE_MIN((uint32_t)fuzz_u8(in) * 2, (uint32_t)in->n);

	wire_put(k, in->p, n);
	in->p += n;
	in->n -= n;
}

static void frame(struct fuzz_in *in, int k)
{
	switch (fuzz_u8(in) % 6) {
	case 0:
		arp_frame(in, k);
		break;
	case 1:
		nd_frame(in, k);
		break;
	case 2:
	case 3:
		pfc_frame(in, k);
		break;
	case 4:
		roce_frame(in, k);
		break;
	default:
		raw_frame(in, k);
		break;
	}
}

/* ------------------------------------------------------------------ lcores, time */

/* News lcore @l sends the other, as if it had learnt it from a frame. */
static void ctrl_msg(struct fuzz_in *in, int l)
{
	uint8_t b = fuzz_u8(in);
	uint16_t iface = (b >> 1) & 1;

	if (b & 1) {
		struct stk_pfc pfc = {.class_enable = (b & 4) ? fuzz_u8(in) : 1u << PRIO};

		for (unsigned p = 0; p < 8; p++)
			pfc.quanta[p] = (pfc.class_enable & (1u << p)) ? fuzz_u16(in) : 0;
		/* received now, or a little earlier (the TSC is common; never later) */
		stk_ctrl_publish_pfc(lcs[l], iface, &pfc,
				     rte_get_tsc_cycles() - (uint64_t)fuzz_u8(in) * 1000);
	} else {
		struct stk_ipaddr ip = (b & 4) ? fp.ip6[!iface] : fp.ip[!iface];
		struct rte_ether_addr mac;

		if (b & 8)
			ip = (b & 4) ? fp.third6 : fp.third;
		put_mac(mac.addr_bytes, iface, (b >> 4) & 3);
		stk_ctrl_publish_neigh(lcs[l], iface, &ip, &mac);
	}
}

/* At @now (after stk_pfc_tx_release() ran at @now): every priority still paused began its
 * pause less than a storm-watchdog period ago. */
static void check_pfc(uint64_t now)
{
	for (int l = 0; l < 2; l++) {
		for (uint16_t i = 0; i < 2; i++) {
			const struct stk_pfc_port *pp = lcs[l]->pfc[i];

			CHECK(pp != NULL);
			/* the storm watchdog: no priority stays paused for a watchdog period */
			for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
				CHECK(!stk_pfc_paused(&pp->rx, p, now) ||
				      (pp->paused_since[p] &&
				       now - pp->paused_since[p] < pp->wd_detect));
		}
	}
}

/*
 * Let @d TSC cycles pass for the timers: the neighbour tables and PFC (release, watchdog) of
 * both lcores run at now + @d. Nothing stores that time as a stamp, only as deadlines, so
 * looking ahead and coming back to the TSC is consistent.
 */
static void look_ahead(uint64_t d)
{
	uint64_t now = rte_get_tsc_cycles() + d;

	for (int l = 0; l < 2; l++) {
		stk_neigh_tick(lcs[l]->neigh, now, stk_neigh_probe_cb, lcs[l]);
		stk_pfc_tx_release(lcs[l], now);
	}
	check_pfc(now);
}

static uint64_t pick_delay(struct fuzz_in *in)
{
	static const uint32_t unit_us[] = {100, 1000, 4000, 30000};
	uint8_t b = fuzz_u8(in);

	return rte_get_tsc_hz() / 1000000 * unit_us[b & 3] * (1u + (b >> 4));
}

static void wait_us(uint8_t b)
{
	uint64_t end = rte_get_tsc_cycles() + (rte_get_tsc_hz() / 1000000 << (b % 8));

	do
		fuzz_pair_poll(&fp, 1);
	while (rte_get_tsc_cycles() < end);
}

static void step(struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	int k = (op >> 4) & 1;

	switch (op & 15) {
	case 0:
	case 1:
		post_send(in, k);
		break;
	case 2:
		post_recv(k, pick_len(in));
		break;
	case 3:
	case 4:
		frame(in, k);
		break;
	case 5:
		look_ahead(pick_delay(in));
		break;
	case 6:
		ctrl_msg(in, k);
		break;
	case 7: /* a receive backlog, as a poll hook reports it (generation reads it) */
		stk_pfc_report_backlog(lcs[k], fuzz_u8(in) & 1, fuzz_u8(in) % 24);
		break;
	case 8:
		fuzz_pair_wire(&fp, k, fuzz_u8(in));
		break;
	case 9: /* the lcore's own timers on its next iteration, at the TSC */
		lcs[k]->next_tick = 0;
		break;
	case 10: {
		struct roce_qp_attr a = {.qp_state = ROCE_QPS_ERR};

		if (s[k].qp)
			CHECK(roce_modify_qp(s[k].qp, &a, ROCE_QP_STATE) == 0);
		break;
	}
	case 11:
		destroy_pair();
		connect_pair();
		break;
	case 12:
		wait_us(fuzz_u8(in));
		break;
	default:
		fuzz_pair_poll(&fp, 1 + fuzz_u8(in) % 8);
		break;
	}
	poll_cq(0);
	poll_cq(1);
}

/* Nothing held, parked or on the wire, and the control rings empty. */
static bool quiet(void)
{
	for (int l = 0; l < 2; l++) {
		struct stk_neigh_stats ns;

		stk_neigh_stats(lcs[l]->neigh, &ns);
		if (ns.pending || rte_ring_count(lcs[l]->ctrl))
			return false;
		for (uint16_t i = 0; i < 2; i++)
			if (lcs[l]->pfc[i]->held)
				return false;
	}
	return !rte_ring_count(fp.ring[0]) && !rte_ring_count(fp.ring[1]);
}

/*
 * Run time ahead a second at a time, polling in between, until nothing waits any more and the
 * neighbour tables are empty (three steps take an entry from REACHABLE through STALE to gone,
 * and an unresolved one through its probes).
 */
static void run_out(void)
{
	for (unsigned i = 1; i <= 64; i++) {
		look_ahead(rte_get_tsc_hz() * i);
		fuzz_pair_poll(&fp, 1);
		if (i >= 3 && quiet())
			break;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct stk_neigh_params np = {.entries = 16,
						   .reachable_ms = 5,
						   .retrans_ms = 1,
						   .max_probes = 2,
						   .max_pending = 4,
						   .max_pending_total = 16};
	const struct fuzz_pair_opts o = {.ipv6 = true,
					 .two_lcores = true,
					 .pfc = true,
					 .pfc_xoff = 8,
					 .pfc_xon = 2,
					 .pfc_wd_ms = WD_MS,
					 .link_bps = LINK_BPS,
					 .neigh = &np};
	(void)argc;
	(void)argv;
	trace = getenv("FUZZ_STK_ROCE_TRACE") != NULL;
	fuzz_pair_init_opts(&fp, "stkrc", 84, &o);
	lcs[0] = fp.lc;
	lcs[1] = fp.lc2;
	for (int k = 0; k < 2; k++) {
		s[k].pd = roce_alloc_pd(fp.dev[k]);
		s[k].cq = s[k].pd ? roce_create_cq(fp.dev[k], 4096) : NULL;
		s[k].mem = calloc(1, MEM);
		s[k].mr =
			s[k].pd ? roce_reg_mr(s[k].pd, s[k].mem, MEM, IOVA, ROCE_ACCESS_ALL) : NULL;
		CHECK(s[k].cq && s[k].mem && s[k].mr);
	}
	fuzz_pair_mark(&fp);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {.p = data, .n = size};

	fuzz_pair_pin_neigh(&fp);
	over6 = fuzz_u8(&in) & 1;
	connect_pair();
	for (unsigned n = 0; in.n && n < MAX_OPS; n++)
		step(&in);
	/* what the input left: no backlog reported, every pause and parked frame run out */
	for (int l = 0; l < 2; l++)
		for (uint16_t i = 0; i < 2; i++)
			stk_pfc_report_backlog(lcs[l], i, 0);
	destroy_pair();
	run_out();
	CHECK(quiet());
	for (int l = 0; l < 2; l++)
		for (uint16_t i = 0; i < 2; i++)
			for (unsigned p = 0; p < STK_PFC_PRIOS; p++)
				CHECK(!stk_pfc_tx_paused(lcs[l], i, p,
							 rte_get_tsc_cycles() + rte_get_tsc_hz()));
	if (trace)
		print_counters();
	fuzz_pair_check_leaks(&fp, "fuzz_stk_roce");
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
