/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_txgen.c - builds one packet per opcode with roce_tx_build() over IPv4 and IPv6, with
 * and without a VLAN, with copied and zero-copy payloads, and writes them to a pcap (argv[1]).
 * On stdout it prints, per frame, the values it asked for: the tshark columns of
 * tests/roce/tshark_agree.py, then sport, dscp, ecn, pcp (-1 without VLAN) and payload length.
 * tests/roce/tx_check.py compares those with tshark's decoding and recomputes the ICRC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "roce_opcode.h"
#include "roce_tx.h"
#include "stk_iface.h"

static FILE *pcap;
static uint8_t payload_mem[4096];
static unsigned zc_freed;

static void zc_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
	zc_freed++;
}

static void write_frame(struct rte_mbuf *m)
{
	uint8_t buf[9216];
	uint32_t len = rte_pktmbuf_pkt_len(m), hdr[4] = {0, 0, len, len};
	const uint8_t *d = rte_pktmbuf_read(m, 0, len, buf);

	fwrite(hdr, 4, 4, pcap);
	fwrite(d, 1, len, pcap);
}

static void emit(struct rte_mempool *mp, const struct stk_iface *ifc, const struct roce_path *path,
		 uint8_t op, unsigned n, struct rte_mbuf_ext_shared_info *zc)
{
	const struct roce_opinfo *oi = roce_opinfo(op);
	uint32_t len = (oi->flags & ROCE_OPF_PAYLOAD) ? (n * 37u + op) % 301u : 0;
	struct roce_tx t = {
		.path = path,
		.lqpn = 0x11 + n,
		.dqpn = 0x20000 + n * 3,
		.opcode = op,
		.psn = (0xfffff0u + n * 7u) & 0xffffff,
		.ackreq = n & 1,
		.se = (n & 2) != 0,
		.becn = op == ROCE_OP_CNP,
		.va = 0x7f0000000000ull + n * 4096,
		.rkey = 0x1a19 + n,
		.dmalen = 65536 + n,
		.swap_add = 0x1111222233334444ull + n,
		.cmp = 0x5555666677778888ull,
		.syndrome = (uint8_t)(n % 3 == 0   ? 0x1f
				      : n % 3 == 1 ? 0x60
						   : 0x2c),
		.msn = 0xabcdef - n,
		.orig = 0x0102030405060708ull * n,
		.imm = 0x80000180u + n,
		.ieth_rkey = 0x293b + n,
		.qkey = 0x80010000u,
		.sqpn = 0x1b + n,
	};
	struct rte_mbuf *m = roce_tx_build(mp, ifc, &t, payload_mem + n, len, len ? zc : NULL);
	const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x99, 0x00, 0x03};
	bool deth = oi->off[ROCE_EXT_DETH], reth = oi->off[ROCE_EXT_RETH];
	bool at = oi->off[ROCE_EXT_ATOMICETH], aeth = oi->off[ROCE_EXT_AETH];

	if (!m) {
		fprintf(stderr, "roce_tx_build failed for opcode 0x%02x\n", op);
		exit(1);
	}
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), mac, 6);
	write_frame(m);
	rte_pktmbuf_free(m);
	/* opcode se m padcnt pkey destqp a psn */
	printf("%u\t%d\t1\t%u\t65535\t%u\t%d\t%u", op, t.se, (4 - (len & 3)) & 3, t.dqpn, t.ackreq,
	       t.psn);
	if (deth)
		printf("\t%u\t%u", t.qkey, t.sqpn);
	else
		printf("\t\t");
	if (reth)
		printf("\t%lu\t%u\t%u", (unsigned long)t.va, t.rkey, t.dmalen);
	else if (at)
		printf("\t%lu\t%u\t", (unsigned long)t.va, t.rkey);
	else
		printf("\t\t\t");
	if (at)
		printf("\t%lu\t%lu", (unsigned long)t.swap_add, (unsigned long)t.cmp);
	else
		printf("\t\t");
	if (aeth)
		printf("\t%u\t%u", t.syndrome, t.msn);
	else
		printf("\t\t");
	if (oi->off[ROCE_EXT_ATOMICACKETH])
		printf("\t%lu", (unsigned long)t.orig);
	else
		printf("\t");
	if (oi->off[ROCE_EXT_IMMDT])
		printf("\t%08x", t.imm);
	else
		printf("\t");
	if (oi->off[ROCE_EXT_IETH])
		printf("\t%08x", t.ieth_rkey);
	else
		printf("\t");
	if (op == ROCE_OP_CNP) /* CNPs: the port's CNP class, not ECN-capable */
		printf("\ticrc-ok\t%u\t%u\t0\t%d\t%u\n",
		       roce_udp_sport(path->flow_label, t.lqpn, t.dqpn), ifc->qos.cnp_dscp,
		       ifc->vlan ? ifc->qos.cnp_prio : -1, len);
	else
		printf("\ticrc-ok\t%u\t%u\t%u\t%d\t%u\n",
		       roce_udp_sport(path->flow_label, t.lqpn, t.dqpn), path->dscp, path->ecn,
		       ifc->vlan ? path->pcp : -1, len);
}

int main(int argc, char **argv)
{
	static char a0[] = "roce_txgen", a1[] = "--no-huge", a2[] = "-m", a3[] = "64",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const uint32_t ghdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	struct rte_mbuf_ext_shared_info zc = {.free_cb = zc_free};
	struct rte_mempool *mp;
	struct stk_iface ifc;
	struct roce_path path;
	unsigned n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
		return 2;
	}
	pcap = fopen(argv[1], "wb");
	if (!pcap || rte_eal_init(10, eal) < 0)
		return 2;
	mp = rte_pktmbuf_pool_create("txgen", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!mp)
		return 2;
	fwrite(ghdr, 4, 6, pcap);
	for (unsigned i = 0; i < sizeof(payload_mem); i++)
		payload_mem[i] = (uint8_t)(i * 13 + 5);
	rte_mbuf_ext_refcnt_set(&zc, 1);
	for (int v6 = 0; v6 < 2; v6++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			for (int zero_copy = 0; zero_copy < 2; zero_copy++) {
				memset(&ifc, 0, sizeof(ifc));
				ifc.mac = (struct rte_ether_addr){{0x52, 0x54, 0x00, 0x99, 0, 2}};
				ifc.mtu = 1500;
				ifc.vlan = vlan;
				ifc.vlan_id = 100;
				ifc.pcp = 3;
				stk_qos_default(&ifc.qos);
				stk_ipaddr_parse("10.99.0.2", &ifc.ip4);
				ifc.ip4_prefix = 24;
				stk_ipaddr_parse("fd99::2", &ifc.ip6);
				ifc.ip6_prefix = 64;
				memset(&path, 0, sizeof(path));
				stk_ipaddr_parse(v6 ? "fd99::3" : "10.99.0.3", &path.dgid_ip);
				path.dscp = 26;
				path.ecn = 2; /* ECT(0) */
				path.pcp = 5;
				path.flags = ROCE_PATH_DSCP | ROCE_PATH_PCP; /* this QP's class */
				path.flow_label = v6 && zero_copy ? 0x12345 : 0;
				for (unsigned op = 0; op < 256; op++)
					if (roce_opinfo((uint8_t)op))
						emit(mp, &ifc, &path, (uint8_t)op, n++,
						     zero_copy ? &zc : NULL);
			}
		}
	}
	fclose(pcap);
	/* every zero-copy packet was freed: only our own reference is left */
	if (rte_mbuf_ext_refcnt_read(&zc) != 1 || rte_mempool_in_use_count(mp) != 0) {
		fprintf(stderr, "leak: ext refcnt %u, mbufs in use %u\n",
			rte_mbuf_ext_refcnt_read(&zc), rte_mempool_in_use_count(mp));
		return 1;
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}
