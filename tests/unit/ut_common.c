/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ut_common.c - EAL bring-up, the test mbuf pool, an RFC 1071 checksum and a by-hand frame
 * builder for the stack/ unit tests (see ut_common.h). Field offsets are the ones printed in
 * the RFCs' header diagrams, not DPDK's structs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "ut_common.h"

const uint8_t ut_mac_us[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
const uint8_t ut_mac_peer[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
const uint8_t ut_mac_other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};
const uint8_t ut_ip4_us[4] = {192, 0, 2, 1};
const uint8_t ut_ip4_peer[4] = {192, 0, 2, 2};
const uint8_t ut_ip6_us[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
const uint8_t ut_ip6_peer[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02};
/* RFC 4291 App. A: 02:00:00:00:00:01 -> flip U/L -> 00:00:00:ff:fe:00:00:01 */
const uint8_t ut_ll_us[16] = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01};
const uint8_t ut_ll_peer[16] = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x02};

static struct rte_mempool *pool;

int ut_eal_init(const char *name, const char *lcores)
{
	/* EAL may keep pointers into argv: static storage */
	static char prefix[64], cores[64];
	char pname[RTE_MEMPOOL_NAMESIZE];
	/* No hugepages, no PCI scan, no shared files: runs as a normal user, in parallel with
	 * other DPDK processes, and under ASan. */
	const char *argv[] = {name,
			      "--no-huge",
			      "-m",
			      "128",
			      "--no-pci",
			      "--no-shconf",
			      "--no-telemetry",
			      "--log-level=lib.*:error",
			      "--log-level=droce.*:warning",
			      cores,
			      prefix,
			      NULL};
	int argc = (int)RTE_DIM(argv) - 1;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s_%d", name, (int)getpid());
	snprintf(cores, sizeof(cores), "--lcores=%s", lcores ? lcores : "0");
	if (rte_eal_init(argc, (char **)(uintptr_t)argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", name);
		return -1;
	}
	snprintf(pname, sizeof(pname), "ut_pool_%d", (int)getpid());
	/* no cache: every free goes straight back, so in-use counts are exact */
	pool = rte_pktmbuf_pool_create(pname, 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (!pool) {
		fprintf(stderr, "%s: cannot create the mbuf pool\n", name);
		rte_eal_cleanup();
		return -1;
	}
	return 0;
}

void ut_eal_fini(void)
{
	rte_mempool_free(pool);
	pool = NULL;
	rte_eal_cleanup();
}

struct rte_mempool *ut_pool(void)
{
	return pool;
}

unsigned ut_in_use(void)
{
	return rte_mempool_in_use_count(pool);
}

uint32_t ut_sum(const void *buf, size_t len, uint32_t acc)
{
	const uint8_t *p = buf;

	/* RFC 1071 §4.1: sum 16-bit big-endian words; an odd byte is padded with zero */
	while (len > 1) {
		acc += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		acc += (uint32_t)p[0] << 8;
	return acc;
}

uint16_t ut_fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

uint16_t ut_l4_csum(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
		    const uint8_t *l4, size_t l4_len)
{
	uint32_t acc = 0;

	if (family == 4) {
		/* RFC 768: source, destination, zero, protocol, UDP length */
		acc = ut_sum(src, 4, acc);
		acc = ut_sum(dst, 4, acc);
		acc += proto;
		acc += (uint32_t)l4_len;
	} else {
		/* RFC 8200 §8.1: source, destination, 32-bit length, 3 zero bytes, next header */
		acc = ut_sum(src, 16, acc);
		acc = ut_sum(dst, 16, acc);
		acc += (uint32_t)(l4_len >> 16) + (uint32_t)(l4_len & 0xffff);
		acc += proto;
	}
	acc = ut_sum(l4, l4_len, acc);
	return ut_fold(acc);
}

void ut_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void ut_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint16_t ut_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t ut_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void ut_ip_default(struct ut_ip *ip, int family, uint8_t proto)
{
	memset(ip, 0, sizeof(*ip));
	memcpy(ip->dmac, ut_mac_us, 6);
	memcpy(ip->smac, ut_mac_peer, 6);
	ip->tci = -1;
	ip->family = family;
	if (family == 4) {
		memcpy(ip->src, ut_ip4_peer, 4);
		memcpy(ip->dst, ut_ip4_us, 4);
		ip->frag = 0x4000; /* DF */
	} else {
		memcpy(ip->src, ut_ip6_peer, 16);
		memcpy(ip->dst, ut_ip6_us, 16);
	}
	ip->proto = proto;
	ip->ttl = 64;
}

uint16_t ut_put_eth(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		    uint16_t type)
{
	/* IEEE 802.3: destination, source, EtherType; 802.1Q: 0x8100, TCI, then the type */
	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	if (tci < 0) {
		ut_put16(b + 12, type);
		return 14;
	}
	ut_put16(b + 12, 0x8100);
	ut_put16(b + 14, (uint16_t)tci);
	ut_put16(b + 16, type);
	return 18;
}

void ut_fix_ip4_csum(uint8_t *b, const struct ut_off *o)
{
	uint8_t *h = b + o->l3;
	uint16_t hlen = (uint16_t)((h[0] & 0xf) * 4);

	ut_put16(h + 10, 0);
	ut_put16(h + 10, ut_fold(ut_sum(h, hlen, 0)));
}

uint16_t ut_frame_ip(uint8_t *b, const struct ut_ip *ip, const uint8_t *l4, uint16_t l4_len,
		     struct ut_off *o)
{
	uint16_t off =
		ut_put_eth(b, ip->dmac, ip->smac, ip->tci, ip->family == 4 ? 0x0800 : 0x86dd);
	uint8_t *h = b + off;

	o->l3 = off;
	if (ip->family == 4) {
		/* RFC 791 §3.1 */
		h[0] = 0x45;
		h[1] = ip->tos;
		ut_put16(h + 2, (uint16_t)(20 + l4_len));
		ut_put16(h + 4, 0x1234); /* identification */
		ut_put16(h + 6, ip->frag);
		h[8] = ip->ttl;
		h[9] = ip->proto;
		memcpy(h + 12, ip->src, 4);
		memcpy(h + 16, ip->dst, 4);
		o->l4 = (uint16_t)(off + 20);
		o->len = (uint16_t)(o->l4 + l4_len);
		ut_fix_ip4_csum(b, o);
	} else {
		/* RFC 8200 §3: version 6, traffic class, flow label 0 */
		ut_put32(h, 6u << 28 | (uint32_t)ip->tos << 20);
		ut_put16(h + 4, l4_len);
		h[6] = ip->proto;
		h[7] = ip->ttl;
		memcpy(h + 8, ip->src, 16);
		memcpy(h + 24, ip->dst, 16);
		o->l4 = (uint16_t)(off + 40);
		o->len = (uint16_t)(o->l4 + l4_len);
	}
	memcpy(b + o->l4, l4, l4_len);
	o->pay = o->l4;
	return o->len;
}

void ut_fix_udp_csum(uint8_t *b, const struct ut_ip *ip, const struct ut_off *o)
{
	uint8_t *u = b + o->l4;
	uint16_t ulen = ut_get16(u + 4);
	uint16_t c;

	ut_put16(u + 6, 0);
	c = ut_l4_csum(ip->family, ip->src, ip->dst, 17, u, ulen);
	ut_put16(u + 6, c ? c : 0xffff); /* RFC 768: a computed zero is sent as all ones */
}

uint16_t ut_frame_udp(uint8_t *b, const struct ut_ip *ip, uint16_t sport, uint16_t dport,
		      const void *payload, uint16_t len, bool zero_csum, struct ut_off *o)
{
	uint8_t l4[UT_FRAME_MAX];

	/* RFC 768: source port, destination port, length, checksum */
	ut_put16(l4, sport);
	ut_put16(l4 + 2, dport);
	ut_put16(l4 + 4, (uint16_t)(8 + len));
	ut_put16(l4 + 6, 0);
	if (len)
		memcpy(l4 + 8, payload, len);
	ut_frame_ip(b, ip, l4, (uint16_t)(8 + len), o);
	o->pay = (uint16_t)(o->l4 + 8);
	if (!zero_csum)
		ut_fix_udp_csum(b, ip, o);
	return o->len;
}

uint16_t ut_frame_icmp4_echo(uint8_t *b, int tci, struct ut_off *o)
{
	struct ut_ip ip;
	uint8_t l4[16] = {8, 0, 0, 0, 0x12, 0x34, 0x00, 0x01, 'p', 'i', 'n', 'g', 0, 1, 2, 3};

	/* RFC 792: type 8 code 0, checksum over the ICMP message alone */
	ut_put16(l4 + 2, ut_fold(ut_sum(l4, sizeof(l4), 0)));
	ut_ip_default(&ip, 4, 1);
	ip.tci = tci;
	return ut_frame_ip(b, &ip, l4, sizeof(l4), o);
}

uint16_t ut_frame_arp(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		      uint16_t op, const uint8_t sha[6], const uint8_t spa[4], const uint8_t tha[6],
		      const uint8_t tpa[4], struct ut_off *o)
{
	uint16_t off = ut_put_eth(b, dmac, smac, tci, 0x0806);
	uint8_t *a = b + off;

	/* RFC 826: ar$hrd 1 (Ethernet), ar$pro 0x0800, ar$hln 6, ar$pln 4, ar$op, sha, spa,
	 * tha, tpa */
	ut_put16(a, 1);
	ut_put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	ut_put16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	o->l3 = off;
	o->l4 = o->pay = 0;
	o->len = (uint16_t)(off + 28);
	return o->len;
}

uint16_t ut_frame_nd(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], int tci,
		     const uint8_t src[16], const uint8_t dst[16], uint8_t hop, uint8_t type,
		     uint8_t flags, const uint8_t target[16], uint8_t opt_type,
		     const uint8_t opt_mac[6], struct ut_off *o)
{
	uint8_t l4[32] = {0};
	uint16_t len = opt_type ? 32 : 24;
	struct ut_ip ip;
	uint16_t c;

	/* RFC 4861 §4.3/§4.4: type, code 0, checksum, flags/reserved, target, options */
	l4[0] = type;
	l4[4] = flags;
	memcpy(l4 + 8, target, 16);
	if (opt_type) {
		/* §4.6.1: type, length 1 (x 8 bytes), link-layer address */
		l4[24] = opt_type;
		l4[25] = 1;
		memcpy(l4 + 26, opt_mac, 6);
	}
	c = ut_l4_csum(6, src, dst, 58, l4, len);
	ut_put16(l4 + 2, c);
	memset(&ip, 0, sizeof(ip));
	memcpy(ip.dmac, dmac, 6);
	memcpy(ip.smac, smac, 6);
	ip.tci = tci;
	ip.family = 6;
	memcpy(ip.src, src, 16);
	memcpy(ip.dst, dst, 16);
	ip.proto = 58;
	ip.ttl = hop;
	return ut_frame_ip(b, &ip, l4, len, o);
}

struct rte_mbuf *ut_mbuf(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *d;

	if (!m)
		return NULL;
	d = rte_pktmbuf_append(m, len);
	if (!d) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(d, b, len);
	return m;
}

struct rte_mbuf *ut_mbuf_chain(const uint8_t *b, uint16_t len, uint16_t first)
{
	struct rte_mbuf *m = ut_mbuf(b, first);
	struct rte_mbuf *m2 = ut_mbuf(b + first, (uint16_t)(len - first));

	if (!m || !m2 || rte_pktmbuf_chain(m, m2) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(m2);
		return NULL;
	}
	return m;
}

uint16_t ut_mbuf_bytes(const struct rte_mbuf *m, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (const struct rte_mbuf *s = m; s; s = s->next) {
		if (n + s->data_len > cap)
			return 0;
		memcpy(out + n, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		n += s->data_len;
	}
	return (uint16_t)n;
}

void ut_iface_default(struct stk_iface *ifc)
{
	memset(ifc, 0, sizeof(*ifc));
	snprintf(ifc->name, sizeof(ifc->name), "ut0");
	ifc->exc_port_id = STK_NO_PORT;
	memcpy(ifc->mac.addr_bytes, ut_mac_us, 6);
	ifc->ip4.family = 4;
	memcpy(&ifc->ip4.v4, ut_ip4_us, 4);
	ifc->ip4_prefix = 24;
	ifc->ip6.family = 6;
	memcpy(ifc->ip6.v6, ut_ip6_us, 16);
	ifc->ip6_prefix = 64;
	ifc->ip6_ll.family = 6;
	memcpy(ifc->ip6_ll.v6, ut_ll_us, 16);
	ifc->mtu = 1500;
	ifc->nb_rxq = ifc->nb_txq = 1;
}

int ut_tshark_fields(const uint8_t *const *frames, const uint16_t *lens, unsigned n,
		     const char *fields, char *out, size_t cap)
{
	/* pcap (libpcap file format): global header for Ethernet, then one record per frame */
	const uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	char dir[] = "/tmp/ut_tsharkXXXXXX", path[64], cmd[512];
	size_t got = 0;
	FILE *f;
	int rc = 0;

	if (system("command -v tshark >/dev/null 2>&1") != 0)
		return 1;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f.pcap", dir);
	f = fopen(path, "wb");
	if (!f) {
		rmdir(dir);
		return -1;
	}
	fwrite(gh, sizeof(gh), 1, f);
	for (unsigned i = 0; i < n; i++) {
		const uint32_t rh[4] = {i, 0, lens[i], lens[i]};

		fwrite(rh, sizeof(rh), 1, f);
		fwrite(frames[i], lens[i], 1, f);
	}
	if (fclose(f) != 0)
		rc = -1;
	snprintf(cmd, sizeof(cmd), "tshark -r %s -T fields -E separator=, %s 2>/dev/null", path,
		 fields);
	f = rc == 0 ? popen(cmd, "r") : NULL;
	if (f) {
		got = fread(out, 1, cap - 1, f);
		if (pclose(f) != 0)
			rc = -1;
	} else {
		rc = -1;
	}
	out[got] = '\0';
	unlink(path);
	rmdir(dir);
	return rc;
}

int ut_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	memset(&conf, 0, sizeof(conf));
	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, 0, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)p, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)p) != 0)
		return -1;
	return p;
}
