/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_tx.c - header builders for frames the stack sends (see stk_tx.h).
 *
 * Specs: IEEE 802.1Q (TCI = PCP << 13 | VID), RFC 791, RFC 8200, RFC 768, RFC 3168 (ECN in
 * the low two bits of TOS / traffic class), RFC 826, RFC 4861.
 */
#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "stk_pkt.h"
#include "stk_tx.h"
#include "stk_wire.h"

uint16_t stk_l2_len(const struct stk_iface *ifc)
{
	return sizeof(struct rte_ether_hdr) + (ifc->vlan ? sizeof(struct rte_vlan_hdr) : 0);
}

int stk_l2_encap(const struct stk_iface *ifc, struct rte_mbuf *m, uint16_t ether_type, uint8_t pcp,
		 const struct rte_ether_addr *dst)
{
	uint16_t l2 = stk_l2_len(ifc);
	struct rte_ether_hdr *eh;

	if (rte_pktmbuf_headroom(m) < l2)
		return -ENOSPC;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, l2);
	if (dst)
		rte_ether_addr_copy(dst, &eh->dst_addr);
	else
		memset(&eh->dst_addr, 0, sizeof(eh->dst_addr));
	rte_ether_addr_copy(&ifc->mac, &eh->src_addr);
	if (ifc->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eh + 1);

		if (pcp == STK_PCP_DEFAULT)
			pcp = ifc->pcp;
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16((uint16_t)((pcp & 7) << 13) | ifc->vlan_id);
		vh->eth_proto = rte_cpu_to_be_16(ether_type);
	} else {
		eh->ether_type = rte_cpu_to_be_16(ether_type);
	}
	m->l2_len = l2;
	return 0;
}

/*
 * The checksum of the IPv4 header stk_udp_encap() writes (no options, ID 0, DF, UDP), from the
 * field values rather than from the header in memory: summing the header just written reads
 * it back across stores of other widths, and the failed store forwarding made the sum 4 % of a
 * 64 B RDMA WRITE's CPU (two headers per message, rc-bench). RFC 1071, in host order; stored
 * big endian. test_tx checks it with its own RFC 1071 code.
 */
static rte_be16_t ip4_cksum(uint8_t tos, uint32_t total, uint8_t ttl, rte_be32_t src,
			    rte_be32_t dst)
{
	uint32_t a = rte_be_to_cpu_32(src), b = rte_be_to_cpu_32(dst);
	uint32_t s = ((uint32_t)RTE_IPV4_VHL_DEF << 8 | tos) + (total & 0xffff) +
		     RTE_IPV4_HDR_DF_FLAG + ((uint32_t)ttl << 8 | IPPROTO_UDP);

	s += (a >> 16) + (a & 0xffff) + (b >> 16) + (b & 0xffff);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return rte_cpu_to_be_16((uint16_t)~s);
}

int stk_udp_encap(const struct stk_iface *ifc, struct rte_mbuf *m, const struct stk_flow *f)
{
	struct stk_ipaddr src = f->src;
	uint32_t plen = rte_pktmbuf_pkt_len(m);
	uint16_t l3, l2 = stk_l2_len(ifc);
	uint8_t tos, ttl = f->ttl ? f->ttl : 64;
	struct rte_udp_hdr *uh;

	if ((f->dst.family != 4 && f->dst.family != 6) || f->dscp > 63 || f->ecn > 3)
		return -EINVAL;
	if (src.family == 0 && stk_iface_src_for(ifc, &f->dst, &src) != 0)
		return -EADDRNOTAVAIL;
	if (src.family != f->dst.family)
		return -EINVAL;
	l3 = f->dst.family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	if (plen + sizeof(*uh) + l3 > ifc->mtu)
		return -EMSGSIZE;
	if (rte_pktmbuf_headroom(m) < l2 + l3 + sizeof(*uh))
		return -ENOSPC;
	tos = (uint8_t)(f->dscp << 2 | f->ecn);

	uh = (struct rte_udp_hdr *)rte_pktmbuf_prepend(m, sizeof(*uh));
	uh->src_port = rte_cpu_to_be_16(f->sport);
	uh->dst_port = rte_cpu_to_be_16(f->dport);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(plen + sizeof(*uh)));
	uh->dgram_cksum = 0;

	if (f->dst.family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)rte_pktmbuf_prepend(m, l3);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(plen + sizeof(*uh) + l3));
		ip->packet_id = 0;
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = ttl;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = src.v4;
		ip->dst_addr = f->dst.v4;
		ip->hdr_checksum = ip4_cksum(tos, plen + sizeof(*uh) + l3, ttl, src.v4, f->dst.v4);
		if (f->csum == STK_CSUM_FULL) {
			uint16_t c = m->nb_segs == 1 ? rte_ipv4_udptcp_cksum(ip, uh)
						     : (uint16_t)~stk_l4_cksum_mbuf(m, ip, 4, l3);

			uh->dgram_cksum = c ? c : 0xffff; /* RFC 768: zero is sent as all ones */
		}
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m, l3);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20 |
						(f->flow_label & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(plen + sizeof(*uh)));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = ttl;
		memcpy(ip->src_addr, src.v6, 16);
		memcpy(ip->dst_addr, f->dst.v6, 16);
		if (f->csum == STK_CSUM_FULL) {
			uint16_t c = m->nb_segs == 1 ? rte_ipv6_udptcp_cksum(ip, uh)
						     : (uint16_t)~stk_l4_cksum_mbuf(m, ip, 6, l3);

			uh->dgram_cksum = c ? c : 0xffff; /* RFC 768: zero is sent as all ones */
		}
	}
	m->l3_len = l3;
	m->l4_len = sizeof(*uh);
	if (stk_l2_encap(ifc, m, f->dst.family == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6,
			 f->pcp, NULL) != 0) {
		rte_pktmbuf_adj(m, l3 + sizeof(*uh)); /* leave m as it came */
		return -ENOSPC;
	}
	return 0;
}

struct rte_mbuf *stk_arp_build(struct rte_mempool *mp, const struct stk_iface *ifc, uint16_t op,
			       const struct rte_ether_addr *tha, rte_be32_t tip)
{
	static const struct rte_ether_addr bcast = {
		.addr_bytes = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_arp_hdr *a;

	if (!m) {
		rte_errno = ENOMEM;
		return NULL;
	}
	a = (struct rte_arp_hdr *)rte_pktmbuf_append(m, sizeof(*a));
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&ifc->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = ifc->ip4.v4;
	if (op == RTE_ARP_OP_REQUEST)
		memset(&a->arp_data.arp_tha, 0, sizeof(a->arp_data.arp_tha));
	else
		rte_ether_addr_copy(tha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = tip;
	if (stk_l2_encap(ifc, m, RTE_ETHER_TYPE_ARP, STK_PCP_DEFAULT,
			 op == RTE_ARP_OP_REQUEST ? &bcast : tha) != 0) {
		rte_pktmbuf_free(m);
		rte_errno = ENOMEM;
		return NULL;
	}
	return m;
}

void stk_ipv6_mcast_mac(const struct stk_ipaddr *a, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], &a->v6[12], 4);
}

struct rte_mbuf *stk_nd_build(struct rte_mempool *mp, const struct stk_iface *ifc, uint8_t type,
			      const struct stk_ipaddr *src, const struct stk_ipaddr *dst,
			      const uint8_t target[16], uint8_t na_flags)
{
	struct rte_ether_addr dmac;
	struct stk_nd_opt_lladdr *opt;
	struct rte_ipv6_hdr *ip;
	struct stk_nd_msg *nd;
	struct rte_mbuf *m;
	uint16_t len = sizeof(*nd) + sizeof(*opt);

	if (src->family != 6 || dst->family != 6) {
		rte_errno = EADDRNOTAVAIL;
		return NULL;
	}
	m = rte_pktmbuf_alloc(mp);
	if (!m) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ip = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, sizeof(*ip) + len);
	nd = (struct stk_nd_msg *)(ip + 1);
	opt = (struct stk_nd_opt_lladdr *)(nd + 1);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255; /* RFC 4861 §7.1.1: receivers check it */
	memcpy(ip->src_addr, src->v6, 16);
	memcpy(ip->dst_addr, dst->v6, 16);
	memset(nd, 0, sizeof(*nd));
	nd->type = type;
	nd->flags = type == STK_ND_NEIGHBOR_ADVERT ? na_flags : 0;
	memcpy(nd->target, target, 16);
	opt->type = type == STK_ND_NEIGHBOR_SOLICIT ? STK_ND_OPT_SRC_LLADDR : STK_ND_OPT_TGT_LLADDR;
	opt->len = 1;
	memcpy(opt->addr, ifc->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	/* the ICMPv6 checksum uses the same pseudo-header as UDP */
	nd->cksum = 0;
	nd->cksum = rte_ipv6_udptcp_cksum(ip, nd);
	if (dst->v6[0] == 0xff)
		stk_ipv6_mcast_mac(dst, &dmac);
	else
		memset(&dmac, 0, sizeof(dmac)); /* filled by the caller */
	if (stk_l2_encap(ifc, m, RTE_ETHER_TYPE_IPV6, STK_PCP_DEFAULT, &dmac) != 0) {
		rte_pktmbuf_free(m);
		rte_errno = ENOMEM;
		return NULL;
	}
	return m;
}
