/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_arp.c - ARP (RFC 826) and IPv6 neighbour discovery (RFC 4861 §7) input, probes, and
 * learning. Position: called by stk_input() for STK_CLS_ARP / STK_CLS_ND frames.
 */
#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>

#include "stk_arp.h"
#include "stk_ctrl.h"
#include "stk_log.h"
#include "stk_stack.h"
#include "stk_wire.h"

void stk_neigh_flush_cb(void *ctx, uint16_t iface, struct rte_mbuf *m,
			const struct rte_ether_addr *mac)
{
	struct stk_lcore *lc = ctx;

	rte_ether_addr_copy(mac, &rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
	stk_tx_frame(lc, stk_iface_get(iface), m);
}

/*
 * @create: the frame may add an entry (RFC 826's merge for a request aimed at us, RFC 4861
 * §7.2.3 for an NS); only for an address on the interface's subnet (issue 11 item 10: the
 * table is for on-link neighbours; an off-link sender is reached through the gateway).
 * @answer: the frame answers a probe (an ARP reply or a solicited NA aimed at us), which may
 * be another lcore's: the others hear of it even when this lcore has no entry. Otherwise
 * they hear only of what changed here, not of every ARP seen on the link.
 */
void stk_neigh_learn(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip,
		     const struct rte_ether_addr *mac, bool create, bool answer)
{
	char buf[64];
	int rc;

	if (create && !stk_iface_on_link(ifc, ip)) {
		lc->stats[ifc->idx].c[STK_CNT_neigh_offlink]++;
		create = false;
	}
	rc = stk_neigh_update(lc->neigh, ifc->idx, ip, mac, rte_get_tsc_cycles(), create,
			      stk_neigh_flush_cb, lc);
	if (rc > 0) {
		lc->stats[ifc->idx].c[STK_CNT_neigh_learned]++;
		/* a peer can make many (one per address it claims): once a second at most; the
		 * counters (neigh_learned, /droce/neigh_count) have them all */
		STK_LOG_RL(INFO, "%s: neighbour %s is at " RTE_ETHER_ADDR_PRT_FMT, ifc->name,
			   stk_ipaddr_str(ip, buf, sizeof(buf)), RTE_ETHER_ADDR_BYTES(mac));
	}
	if (rc > 0 || answer)
		stk_ctrl_publish_neigh(lc, ifc->idx, ip, mac);
}

/* An ARP sender address no neighbour can have: multicast, limited or subnet-directed
 * broadcast, loopback (0.0.0.0 is an RFC 5227 probe and handled apart). */
static bool arp_bad_sender(const struct stk_iface *ifc, rte_be32_t sip)
{
	uint32_t a = rte_be_to_cpu_32(sip);

	return (a >> 28) == 0xe || a == 0xffffffff || (a >> 24) == 127 ||
	       stk_iface_subnet_bcast(ifc, sip);
}

/* Pass a frame the stack has used (an ARP reply, an NA) on to the kernel, which keeps its
 * own cache; without an exception path it is simply consumed, not dropped. */
static void pass_up(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	if (ifc->exc_port_id == STK_NO_PORT) {
		rte_pktmbuf_free(m);
		return;
	}
	stk_to_kernel(lc, ifc, m);
}

int stk_send_probe(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip)
{
	struct rte_mbuf *m;

	if (ip->family == 4) {
		if (ifc->ip4.family != 4)
			return -EADDRNOTAVAIL;
		m = stk_arp_build(lc->pool, ifc, RTE_ARP_OP_REQUEST, NULL, ip->v4);
		if (!m)
			return -ENOMEM;
		lc->stats[ifc->idx].c[STK_CNT_arp_request_tx]++;
	} else {
		struct stk_ipaddr src, sn;

		if (stk_iface_src_for(ifc, ip, &src) != 0)
			return -EADDRNOTAVAIL;
		stk_ipv6_solicited_node(ip, &sn);
		m = stk_nd_build(lc->pool, ifc, STK_ND_NEIGHBOR_SOLICIT, &src, &sn, ip->v6, 0);
		if (!m)
			return -rte_errno;
		lc->stats[ifc->idx].c[STK_CNT_nd_solicit_tx]++;
	}
	stk_tx_frame(lc, ifc, m);
	return 0;
}

void stk_neigh_probe_cb(void *ctx, const struct stk_neigh *n)
{
	struct stk_lcore *lc = ctx;

	if (n->iface < stk_iface_count())
		stk_send_probe(lc, stk_iface_get(n->iface), &n->ip);
}

void stk_arp_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p)
{
	const struct rte_arp_hdr *a =
		rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, p->l3_off);
	uint16_t op = rte_be_to_cpu_16(a->arp_opcode);
	struct stk_ipaddr sip = {.family = 4, .v4 = a->arp_data.arp_sip};
	bool for_us = ifc->ip4.family == 4 && a->arp_data.arp_tip == ifc->ip4.v4;
	struct rte_mbuf *reply;

	if (a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) || a->arp_hlen != RTE_ETHER_ADDR_LEN ||
	    a->arp_plen != 4 || (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) ||
	    !rte_is_unicast_ether_addr(&a->arp_data.arp_sha)) {
		stk_count_drop(lc, ifc->idx, STK_DROP_ARP_BAD);
		rte_pktmbuf_free(m);
		return;
	}
	if (arp_bad_sender(ifc, sip.v4)) {
		/* no neighbour has such an address: never learnt, never answered (we never send
		 * to a multicast or broadcast source; Linux's arp_process() drops these too) */
		stk_count_drop(lc, ifc->idx, STK_DROP_ARP_SRC);
		rte_pktmbuf_free(m);
		return;
	}
	/* RFC 826 "merge": refresh a known sender; add it when a request is aimed at us. A
	 * reply adds nothing we did not ask for (an entry exists while we resolve), as Linux
	 * with its default arp_accept=0. A sender address of 0.0.0.0 is an RFC 5227 probe and
	 * teaches nothing. */
	if (sip.v4 != 0 && sip.v4 != ifc->ip4.v4)
		stk_neigh_learn(lc, ifc, &sip, &a->arp_data.arp_sha,
				for_us && op == RTE_ARP_OP_REQUEST,
				for_us && op == RTE_ARP_OP_REPLY);

	if (for_us && op == RTE_ARP_OP_REQUEST) {
		reply = stk_arp_build(lc->pool, ifc, RTE_ARP_OP_REPLY, &a->arp_data.arp_sha,
				      a->arp_data.arp_sip);
		if (reply) {
			lc->stats[ifc->idx].c[STK_CNT_arp_reply_tx]++;
			stk_tx_frame(lc, ifc, reply);
		} else {
			stk_count_drop(lc, ifc->idx, STK_DROP_NO_MBUF);
		}
		rte_pktmbuf_free(m);
		return;
	}
	/* Replies (the kernel may have asked), gratuitous ARP and requests for others: the
	 * kernel keeps its own cache through the TAP. */
	pass_up(lc, ifc, m);
}

/* Find the link-layer address option of type @want in the ND options. -1: malformed. */
static int nd_lladdr(const uint8_t *opt, uint16_t len, uint8_t want, struct rte_ether_addr *mac)
{
	int found = 0;

	while (len > 0) {
		uint16_t olen;

		if (len < 2 || opt[1] == 0)
			return -1; /* RFC 4861 §4.6: a zero length is invalid */
		olen = (uint16_t)opt[1] * 8;
		if (olen > len)
			return -1;
		if (opt[0] == want && olen >= 8) {
			memcpy(mac, opt + 2, RTE_ETHER_ADDR_LEN);
			found = 1;
		}
		opt += olen;
		len -= olen;
	}
	return found;
}

static bool is_ours6(const struct stk_iface *ifc, const uint8_t *a)
{
	struct stk_ipaddr x = {.family = 6};

	memcpy(x.v6, a, 16);
	return stk_ipaddr_eq(&x, &ifc->ip6) || stk_ipaddr_eq(&x, &ifc->ip6_ll);
}

static const uint8_t in6_any[16];

void stk_nd_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		  const struct stk_pkt *p)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, p->l3_off);
	const struct stk_nd_msg *nd;
	struct rte_ether_addr mac;
	struct stk_ipaddr target = {.family = 6};
	uint16_t olen;
	int has_ll;

	/* RFC 4861 §7.1.1/§7.1.2 validity checks. The message must be in the first segment. */
	if (p->payload_len < sizeof(*nd) ||
	    p->payload_off + p->payload_len > rte_pktmbuf_data_len(m) || ip->hop_limits != 255)
		goto bad;
	nd = rte_pktmbuf_mtod_offset(m, const struct stk_nd_msg *, p->payload_off);
	if (nd->code != 0 || rte_ipv6_udptcp_cksum_verify(ip, nd) != 0 || nd->target[0] == 0xff)
		goto bad;
	olen = p->payload_len - sizeof(*nd);
	has_ll = nd_lladdr((const uint8_t *)(nd + 1), olen,
			   nd->type == STK_ND_NEIGHBOR_SOLICIT ? STK_ND_OPT_SRC_LLADDR
							       : STK_ND_OPT_TGT_LLADDR,
			   &mac);
	if (has_ll < 0)
		goto bad;
	memcpy(target.v6, nd->target, 16);

	if (nd->type == STK_ND_NEIGHBOR_SOLICIT) {
		bool dad = memcmp(ip->src_addr, in6_any, 16) == 0;
		struct stk_ipaddr src = {.family = 6}, dst = {.family = 6};
		struct rte_mbuf *na;

		if (dad && has_ll)
			goto bad; /* §7.1.1: no SLLA from the unspecified address */
		if (!is_ours6(ifc, nd->target)) {
			pass_up(lc, ifc, m);
			return;
		}
		memcpy(src.v6, ip->src_addr, 16);
		if (!dad && has_ll)
			stk_neigh_learn(lc, ifc, &src, &mac, true, false);
		/* §7.2.4: answer to the soliciting node, or to all-nodes for DAD */
		if (dad) {
			static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};

			memcpy(dst.v6, all_nodes, 16);
		} else {
			dst = src;
		}
		na = stk_nd_build(lc->pool, ifc, STK_ND_NEIGHBOR_ADVERT, &target, &dst, target.v6,
				  (uint8_t)(STK_ND_NA_OVERRIDE | (dad ? 0 : STK_ND_NA_SOLICITED)));
		if (!na) {
			stk_count_drop(lc, ifc->idx, STK_DROP_NO_MBUF);
		} else {
			if (!dad) {
				/* unicast to the solicitor's link-layer source */
				const struct rte_ether_hdr *eh =
					rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

				rte_ether_addr_copy(
					has_ll ? &mac : &eh->src_addr,
					&rte_pktmbuf_mtod(na, struct rte_ether_hdr *)->dst_addr);
			}
			lc->stats[ifc->idx].c[STK_CNT_nd_advert_tx]++;
			stk_tx_frame(lc, ifc, na);
		}
		rte_pktmbuf_free(m);
		return;
	}

	/* Neighbour advertisement: refresh or complete an entry, never create one (RFC 4861
	 * §7.2.5: "If no entry exists, the advertisement SHOULD be silently discarded"; S=1
	 * proves nothing about whether we asked). A solicited one aimed at us answers a probe,
	 * perhaps another lcore's. */
	if (has_ll && !is_ours6(ifc, nd->target))
		stk_neigh_learn(lc, ifc, &target, &mac, false,
				(nd->flags & STK_ND_NA_SOLICITED) != 0 &&
					is_ours6(ifc, ip->dst_addr));
	pass_up(lc, ifc, m);
	return;
bad:
	stk_count_drop(lc, ifc->idx, STK_DROP_ND_BAD);
	rte_pktmbuf_free(m);
}
