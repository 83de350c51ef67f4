/* SPDX-License-Identifier: BSD-3-Clause */
/* stk_iface.c - address predicates of an interface. */
#include <errno.h>
#include <string.h>

#include "stk_iface.h"

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool stk_iface_is_local(const struct stk_iface *ifc, const struct stk_ipaddr *a)
{
	return stk_ipaddr_eq(a, &ifc->ip4) || stk_ipaddr_eq(a, &ifc->ip6) ||
	       stk_ipaddr_eq(a, &ifc->ip6_ll);
}

bool stk_iface_on_link(const struct stk_iface *ifc, const struct stk_ipaddr *a)
{
	if (a->family == 4 && ifc->ip4.family == 4)
		return prefix_match((const uint8_t *)&a->v4, (const uint8_t *)&ifc->ip4.v4,
				    ifc->ip4_prefix);
	if (a->family == 6) {
		if (stk_ipv6_is_link_local(a))
			return true;
		if (ifc->ip6.family == 6)
			return prefix_match(a->v6, ifc->ip6.v6, ifc->ip6_prefix);
	}
	return false;
}

bool stk_iface_subnet_bcast(const struct stk_iface *ifc, rte_be32_t a)
{
	struct stk_ipaddr x = {.family = 4, .v4 = a};
	uint32_t host;

	if (ifc->ip4.family != 4 || ifc->ip4_prefix == 0 || ifc->ip4_prefix >= 31)
		return false; /* /31 and /32 have no broadcast address (RFC 3021) */
	host = ~0u >> ifc->ip4_prefix;
	return (rte_be_to_cpu_32(a) & host) == host && stk_iface_on_link(ifc, &x);
}

int stk_iface_src_for(const struct stk_iface *ifc, const struct stk_ipaddr *dst,
		      struct stk_ipaddr *src)
{
	if (dst->family == 4 && ifc->ip4.family == 4) {
		*src = ifc->ip4;
		return 0;
	}
	if (dst->family == 6) {
		/* RFC 6724 rule 2: link-local and link-scope multicast (ff02::) destinations
		 * get the link-local source */
		bool ll = stk_ipv6_is_link_local(dst) ||
			  (dst->v6[0] == 0xff && (dst->v6[1] & 0x0f) <= 2);

		if (!ll && ifc->ip6.family == 6)
			*src = ifc->ip6;
		else if (ifc->ip6_ll.family == 6)
			*src = ifc->ip6_ll;
		else
			return -EADDRNOTAVAIL;
		return 0;
	}
	return -EADDRNOTAVAIL;
}

void stk_ipv6_link_local(const struct rte_ether_addr *mac, struct stk_ipaddr *ll)
{
	memset(ll, 0, sizeof(*ll));
	ll->family = 6;
	ll->v6[0] = 0xfe;
	ll->v6[1] = 0x80;
	ll->v6[8] = mac->addr_bytes[0] ^ 0x02; /* flip the universal/local bit */
	ll->v6[9] = mac->addr_bytes[1];
	ll->v6[10] = mac->addr_bytes[2];
	ll->v6[11] = 0xff;
	ll->v6[12] = 0xfe;
	ll->v6[13] = mac->addr_bytes[3];
	ll->v6[14] = mac->addr_bytes[4];
	ll->v6[15] = mac->addr_bytes[5];
}

void stk_ipv6_solicited_node(const struct stk_ipaddr *a, struct stk_ipaddr *sn)
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};

	memset(sn, 0, sizeof(*sn));
	sn->family = 6;
	memcpy(sn->v6, pfx, sizeof(pfx));
	memcpy(sn->v6 + 13, a->v6 + 13, 3);
}

void stk_qos_default(struct stk_qos *q)
{
	memset(q, 0, sizeof(*q));
	q->set = true;
	q->roce_dscp = STK_QOS_ROCE_DSCP;
	q->roce_prio = STK_QOS_ROCE_PRIO;
	q->cnp_dscp = STK_QOS_CNP_DSCP;
	q->cnp_prio = STK_QOS_CNP_PRIO;
	for (unsigned d = 0; d < RTE_DIM(q->dscp_prio); d++)
		q->dscp_prio[d] = (uint8_t)(d >> 3);
}
