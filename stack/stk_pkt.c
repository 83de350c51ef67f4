/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_pkt.c - frame validation (stk_parse) and classification (stk_classify).
 *
 * This is the first code that touches untrusted bytes. Every read is bounded by the first
 * segment's data_len, and every failure names its enum stk_drop reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "stk_iface.h"
#include "stk_pfc.h"
#include "stk_pkt.h"
#include "stk_wire.h"

#define STK_DROP_NAME_(name, str) [STK_DROP_##name] = str,
static const char *const drop_names[STK_DROP_NUM] = {STK_DROP_LIST(STK_DROP_NAME_)};
#undef STK_DROP_NAME_

const char *stk_drop_name(enum stk_drop d)
{
	if ((unsigned)d >= STK_DROP_NUM)
		return "?";
	return drop_names[d];
}

static int fail(struct stk_pkt *p, enum stk_drop d)
{
	p->drop = d;
	return -1;
}

uint16_t stk_l4_cksum_mbuf(const struct rte_mbuf *m, const void *l3, int family, uint32_t l4_off)
{
	uint32_t len, sum, done = 0;

	if (family == 4) {
		const struct rte_ipv4_hdr *ip = l3;

		len = rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip);
		sum = rte_ipv4_phdr_cksum(ip, 0);
	} else {
		const struct rte_ipv6_hdr *ip = l3;

		len = rte_be_to_cpu_16(ip->payload_len);
		sum = rte_ipv6_phdr_cksum(ip, 0);
	}
	for (; m && len > 0; m = m->next) {
		uint32_t n;
		uint16_t part;

		if (l4_off >= m->data_len) {
			l4_off -= m->data_len;
			continue;
		}
		n = RTE_MIN(m->data_len - l4_off, len);
		part = rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const uint8_t *, l4_off), n);
		/* A part that starts at an odd offset pairs its bytes the other way round: its
		 * sum is byte-swapped (RFC 1071 §2(B)). DPDK 22.11's rte_raw_cksum_mbuf() swaps a
		 * truncated 32-bit sum here, which is why this is not simply that. */
		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
		len -= n;
		l4_off = 0;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * @param l4     UDP header, inside the first segment for hdr_avail bytes
 * @param avail  bytes of IP payload in the whole frame
 */
static int parse_udp(const struct rte_mbuf *m, const uint8_t *l4, uint16_t hdr_avail,
		     uint16_t avail, struct stk_pkt *p)
{
	const struct rte_udp_hdr *uh = (const struct rte_udp_hdr *)l4;
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *) + p->l3_off;
	uint16_t ulen;
	int bad;

	if (avail < sizeof(*uh))
		return fail(p, STK_DROP_UDP_TRUNC);
	if (hdr_avail < sizeof(*uh))
		return fail(p, STK_DROP_SEGMENTED);
	ulen = rte_be_to_cpu_16(uh->dgram_len);
	if (ulen < sizeof(*uh) || ulen > avail)
		return fail(p, STK_DROP_UDP_LEN);
	p->sport = rte_be_to_cpu_16(uh->src_port);
	p->dport = rte_be_to_cpu_16(uh->dst_port);
	p->payload_off = p->l4_off + sizeof(*uh);
	p->payload_len = ulen - sizeof(*uh);

	switch (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) {
	case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
		return 0;
	case RTE_MBUF_F_RX_L4_CKSUM_BAD:
		return fail(p, STK_DROP_UDP_CSUM);
	default:
		break;
	}
	if (uh->dgram_cksum == 0) {
		/* RFC 768: zero means "no checksum" over IPv4. RFC 8200 forbids it over IPv6,
		 * except where a protocol opts in (RFC 6935); RoCEv2 does. */
		if (p->src.family == 6 && p->dport != STK_ROCE_UDP_PORT)
			return fail(p, STK_DROP_UDP_CSUM_ZERO6);
		return 0;
	}
	/* The pseudo-header length comes from the IP header, so Ethernet padding after the
	 * datagram never counts. Chained frames are summed segment by segment. */
	if (m->nb_segs == 1 && p->src.family == 4)
		bad = rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)l3, uh);
	else if (m->nb_segs == 1)
		bad = rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3, uh);
	else
		bad = stk_l4_cksum_mbuf(m, l3, p->src.family, p->l4_off) != 0xffff;
	if (bad)
		return fail(p, STK_DROP_UDP_CSUM);
	return 0;
}

/* @param hdr_avail bytes of the first segment from l3; @param avail bytes of the frame */
static int parse_ipv4(const struct rte_mbuf *m, const uint8_t *l3, uint16_t hdr_avail,
		      uint16_t avail, struct stk_pkt *p)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
	uint16_t ihl, tot, frag;

	if (avail < sizeof(*ip))
		return fail(p, STK_DROP_IP4_TRUNC);
	if (hdr_avail < sizeof(*ip))
		return fail(p, STK_DROP_SEGMENTED);
	if ((ip->version_ihl >> 4) != 4)
		return fail(p, STK_DROP_IP4_VERSION);
	ihl = (ip->version_ihl & 0xf) * 4;
	if (ihl < sizeof(*ip) || ihl > avail)
		return fail(p, STK_DROP_IP4_IHL);
	if (ihl > hdr_avail)
		return fail(p, STK_DROP_SEGMENTED);
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl || tot > avail)
		return fail(p, STK_DROP_IP4_LEN);
	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
		break;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return fail(p, STK_DROP_IP4_CSUM);
	default:
		if (stk_ip4_hdr_sum(ip, ihl) != 0xffff)
			return fail(p, STK_DROP_IP4_CSUM);
	}
	p->l3_len = tot;
	p->tos = ip->type_of_service;
	p->src.family = p->dst.family = 4;
	p->src.v4 = ip->src_addr;
	p->dst.v4 = ip->dst_addr;
	/* RFC 1122 3.2.1.3: broadcast and multicast are never valid sources. */
	if (ip->src_addr == RTE_BE32(0xffffffff) || (rte_be_to_cpu_32(ip->src_addr) >> 28) == 0xe)
		return fail(p, STK_DROP_IP4_SRC);
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	p->ip_frag = (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	p->l4_proto = ip->next_proto_id;
	p->l4_off = p->l3_off + ihl;
	if (p->ip_frag)
		return 0; /* only the kernel can reassemble; L4 is not looked at */
	if (p->l4_proto == IPPROTO_UDP)
		return parse_udp(m, l3 + ihl, hdr_avail - ihl, tot - ihl, p);
	return 0;
}

static int parse_icmp6(uint16_t hdr_avail, uint16_t avail, struct stk_pkt *p, const uint8_t *l4)
{
	if (avail < 4)
		return fail(p, STK_DROP_ICMP6_BAD);
	if (hdr_avail < 4)
		return fail(p, STK_DROP_SEGMENTED);
	p->icmp6_type = l4[0];
	p->payload_off = p->l4_off;
	p->payload_len = avail;
	return 0;
}

static int parse_ipv6(const struct rte_mbuf *m, const uint8_t *l3, uint16_t hdr_avail,
		      uint16_t avail, struct stk_pkt *p)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
	uint32_t vtc;
	uint16_t plen;
	uint8_t nh;
	uint16_t off = sizeof(*ip);

	if (avail < sizeof(*ip))
		return fail(p, STK_DROP_IP6_TRUNC);
	if (hdr_avail < sizeof(*ip))
		return fail(p, STK_DROP_SEGMENTED);
	vtc = rte_be_to_cpu_32(ip->vtc_flow);
	if ((vtc >> 28) != 6)
		return fail(p, STK_DROP_IP6_VERSION);
	plen = rte_be_to_cpu_16(ip->payload_len);
	if ((uint32_t)plen + sizeof(*ip) > avail)
		return fail(p, STK_DROP_IP6_LEN);
	p->l3_len = plen + sizeof(*ip);
	p->tos = (vtc >> 20) & 0xff;
	p->src.family = p->dst.family = 6;
	memcpy(p->src.v6, ip->src_addr, 16);
	memcpy(p->dst.v6, ip->dst_addr, 16);
	/* RFC 4291 §2.7: multicast addresses must not be used as source addresses (Linux's
	 * ip6_rcv_core() drops them too); nothing may answer or learn from one */
	if (ip->src_addr[0] == 0xff)
		return fail(p, STK_DROP_IP6_SRC);
	nh = ip->proto;
	/* One fragment header is recognised so fragments go to the kernel; other extension
	 * headers are left to the kernel too (l4_proto stays the extension's number). */
	if (nh == IPPROTO_FRAGMENT) {
		p->ip_frag = true;
		p->l4_proto = nh;
		p->l4_off = p->l3_off + off;
		return 0;
	}
	p->l4_proto = nh;
	p->l4_off = p->l3_off + off;
	if (nh == IPPROTO_UDP)
		return parse_udp(m, l3 + off, hdr_avail - off, plen, p);
	if (nh == IPPROTO_ICMPV6)
		return parse_icmp6(hdr_avail - off, plen, p, l3 + off);
	return 0;
}

int stk_parse(const struct rte_mbuf *m, struct stk_pkt *p)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t len = rte_pktmbuf_data_len(m);	 /* readable bytes */
	uint32_t total = rte_pktmbuf_pkt_len(m); /* frame length */
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)d;
	uint16_t et;

	memset(p, 0, sizeof(*p));
	if (len < sizeof(*eh))
		return fail(p, rte_pktmbuf_pkt_len(m) >= sizeof(*eh) ? STK_DROP_SEGMENTED
								     : STK_DROP_ETH_TRUNC);
	p->l2_len = sizeof(*eh);
	et = rte_be_to_cpu_16(eh->ether_type);
	if (et == RTE_ETHER_TYPE_VLAN) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eh + 1);

		if (len < sizeof(*eh) + sizeof(*vh))
			return fail(p, total >= sizeof(*eh) + sizeof(*vh) ? STK_DROP_SEGMENTED
									  : STK_DROP_VLAN_TRUNC);
		p->has_vlan = true;
		p->vlan_tci = rte_be_to_cpu_16(vh->vlan_tci);
		et = rte_be_to_cpu_16(vh->eth_proto);
		p->l2_len += sizeof(*vh);
	} else if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
		p->has_vlan = true;
		p->vlan_tci = m->vlan_tci;
	}
	p->ether_type = et;
	p->l3_off = p->l2_len;
	if (total > UINT16_MAX)
		return fail(p, STK_DROP_OVERSIZE);

	switch (et) {
	case RTE_ETHER_TYPE_ARP:
		if ((size_t)(len - p->l2_len) < sizeof(struct rte_arp_hdr))
			return fail(p, total - p->l2_len >= sizeof(struct rte_arp_hdr)
					       ? STK_DROP_SEGMENTED
					       : STK_DROP_ARP_BAD);
		return 0;
	case RTE_ETHER_TYPE_IPV4:
		return parse_ipv4(m, d + p->l3_off, len - p->l3_off, total - p->l3_off, p);
	case RTE_ETHER_TYPE_IPV6:
		return parse_ipv6(m, d + p->l3_off, len - p->l3_off, total - p->l3_off, p);
	case STK_PFC_ETHERTYPE:
		return 0; /* MAC Control: its body is stk_pfc_decode()'s to check */
	default:
		return fail(p, STK_DROP_ETHERTYPE);
	}
}

static bool l2_accept(const struct stk_iface *ifc, const struct rte_ether_addr *dst)
{
	if (rte_is_same_ether_addr(dst, &ifc->mac))
		return true;
	/* broadcast, IPv4 and IPv6 multicast: the kernel decides about group membership */
	return rte_is_multicast_ether_addr(dst);
}

enum stk_class stk_classify(const struct stk_iface *ifc, const struct rte_mbuf *m,
			    struct stk_pkt *p)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t vid = p->has_vlan ? (p->vlan_tci & 0xfff) : 0;
	bool local;

	if (!l2_accept(ifc, &eh->dst_addr)) {
		p->drop = STK_DROP_NOT_FOR_US;
		return STK_CLS_DROP;
	}
	/* MAC Control is link-level, below any VLAN: PFC frames are untagged even on a VLAN
	 * interface (802.1Q 36.1.3), and none of them is the kernel's. */
	if (p->ether_type == STK_PFC_ETHERTYPE)
		return STK_CLS_MAC_CTRL;
	/* A priority-tagged frame (VID 0) is accepted on an untagged interface. */
	if ((ifc->vlan && vid != ifc->vlan_id) || (!ifc->vlan && vid != 0)) {
		p->drop = STK_DROP_VLAN_MISMATCH;
		return STK_CLS_DROP;
	}
	if (p->l3_len > ifc->mtu) {
		p->drop = STK_DROP_OVERSIZE;
		return STK_CLS_DROP;
	}
	switch (p->ether_type) {
	case RTE_ETHER_TYPE_ARP:
		return STK_CLS_ARP;
	case RTE_ETHER_TYPE_IPV4:
	case RTE_ETHER_TYPE_IPV6:
		break;
	default:
		p->drop = STK_DROP_ETHERTYPE;
		return STK_CLS_DROP;
	}
	local = stk_iface_is_local(ifc, &p->dst);
	if (p->ether_type == RTE_ETHER_TYPE_IPV6 && p->l4_proto == IPPROTO_ICMPV6 &&
	    (p->icmp6_type == STK_ND_NEIGHBOR_SOLICIT || p->icmp6_type == STK_ND_NEIGHBOR_ADVERT))
		return STK_CLS_ND;
	if (!local) {
		/* Multicast and broadcast IP (DHCP, mDNS, router adverts, ...) belong to the
		 * kernel; unicast for another host is not ours to forward. */
		if (rte_is_multicast_ether_addr(&eh->dst_addr))
			return STK_CLS_KERNEL;
		p->drop = STK_DROP_IP_NOT_OURS;
		return STK_CLS_DROP;
	}
	/* RoCEv2 sets DF and never fragments; a fragment of any datagram goes to the kernel,
	 * which reassembles. */
	if (p->l4_proto == IPPROTO_UDP && !p->ip_frag)
		return p->dport == STK_ROCE_UDP_PORT ? STK_CLS_ROCE : STK_CLS_UDP;
	return STK_CLS_KERNEL;
}

bool stk_ipaddr_eq(const struct stk_ipaddr *a, const struct stk_ipaddr *b)
{
	if (a->family != b->family || a->family == 0)
		return false;
	if (a->family == 4)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

int stk_ipaddr_parse(const char *s, struct stk_ipaddr *out)
{
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, s, &out->v4) == 1) {
		out->family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->v6) == 1) {
		out->family = 6;
		return 0;
	}
	return -EINVAL;
}

const char *stk_ipaddr_str(const struct stk_ipaddr *a, char *buf, size_t len)
{
	if (a->family == 4)
		inet_ntop(AF_INET, &a->v4, buf, len);
	else if (a->family == 6)
		inet_ntop(AF_INET6, a->v6, buf, len);
	else
		snprintf(buf, len, "-");
	return buf;
}
