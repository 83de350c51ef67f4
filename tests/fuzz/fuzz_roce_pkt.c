/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_roce_pkt.c - libFuzzer target for the RoCEv2 decoders: roce_pkt_parse(), every
 * extension header accessor, and the ICRC over contiguous and chained mbufs. The input is a
 * UDP payload (BTH onwards) placed behind fixed Ethernet/IPv4/UDP headers; its first byte
 * chooses where the payload is split into segments (0 = not split).
 * The ICRC is computed but never gates decoding, so the fuzzer reaches everything after it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_pkt.h"
#include "stk_pkt.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static volatile uint64_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char a0[] = "fuzz", a1[] = "--no-huge", a2[] = "-m", a3[] = "128", a4[] = "--no-pci",
		    a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l", a8[] = "0",
		    a9[] = "--log-level=*:critical";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL};
	(void)argc;
	(void)argv;

	if (rte_eal_init(10, eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		abort();
	}
	pool = rte_pktmbuf_pool_create("fz_roce", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool)
		abort();
	return 0;
}

static void headers(uint8_t *d, uint16_t udp_payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + 14);
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ip + 1);

	memset(d, 0, 42);
	d[0] = 0x02; /* unicast destination */
	d[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 8 + udp_payload));
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0x0a000001);
	ip->dst_addr = RTE_BE32(0x0a000002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uh->src_port = RTE_BE16(49152);
	uh->dst_port = RTE_BE16(STK_ROCE_UDP_PORT);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + udp_payload));
}

static void use_headers(const struct roce_pkt *rp)
{
	const struct roce_reth *r = roce_pkt_ext(rp, ROCE_EXT_RETH);
	const struct roce_atomiceth *a = roce_pkt_ext(rp, ROCE_EXT_ATOMICETH);
	const struct roce_aeth *ae = roce_pkt_ext(rp, ROCE_EXT_AETH);
	const struct roce_deth *de = roce_pkt_ext(rp, ROCE_EXT_DETH);
	const struct roce_atomicacketh *aa = roce_pkt_ext(rp, ROCE_EXT_ATOMICACKETH);
	const struct roce_immdt *im = roce_pkt_ext(rp, ROCE_EXT_IMMDT);
	const struct roce_ieth *ie = roce_pkt_ext(rp, ROCE_EXT_IETH);

	sink += rp->psn + rp->dqpn + roce_bth_padcnt(rp->bth) + roce_bth_ackreq(rp->bth);
	if (r)
		sink += roce_reth_va(r) + roce_reth_rkey(r) + roce_reth_len(r);
	if (a)
		sink += roce_atomiceth_va(a) + roce_atomiceth_swap_add(a) + roce_atomiceth_cmp(a);
	if (ae)
		sink += roce_aeth_syndrome(ae) + roce_aeth_msn(ae);
	if (de)
		sink += roce_deth_qkey(de) + roce_deth_sqpn(de);
	if (aa)
		sink += roce_atomicacketh_orig(aa);
	if (im)
		sink += roce_immdt_get(im);
	if (ie)
		sink += roce_ieth_rkey(ie);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m, *tail = NULL;
	struct stk_pkt p;
	struct roce_pkt rp;
	uint16_t plen, split;
	uint8_t *d;

	if (size < 1)
		return 0;
	split = data[0];
	data++;
	size--;
	if (size > 1400)
		size = 1400;
	plen = (uint16_t)size;
	m = rte_pktmbuf_alloc(pool);
	if (!m)
		abort();
	if (split && split < plen) {
		/* headers and `split` payload bytes here, the rest in a second segment */
		tail = rte_pktmbuf_alloc(pool);
		if (!tail)
			abort();
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(42 + split));
		headers(d, plen);
		memcpy(d + 42, data, split);
		memcpy(rte_pktmbuf_append(tail, (uint16_t)(plen - split)), data + split,
		       plen - split);
		if (rte_pktmbuf_chain(m, tail) != 0)
			abort();
	} else {
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(42 + plen));
		headers(d, plen);
		memcpy(d + 42, data, plen);
	}
	if (stk_parse(m, &p) == 0 && p.dport == STK_ROCE_UDP_PORT &&
	    roce_pkt_parse(m, &p, &rp) == 0) {
		use_headers(&rp);
		sink += roce_icrc_check(m, p.l3_off, rp.bth_off,
					rp.payload_off + rp.payload_len + rp.pad);
	}
	rte_pktmbuf_free(m);
	if (rte_mempool_in_use_count(pool) != 0)
		abort();
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
