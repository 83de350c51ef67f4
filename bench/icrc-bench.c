/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icrc-bench - ICRC throughput against memcpy and against the CRC-32 libraries on this
 * machine, measured in the same run (issue 3's benchmark; it asserts nothing).
 *
 * For each packet size (UDP payload of a RoCEv2 RDMA WRITE MIDDLE: BTH + payload + ICRC) it
 * times, over the same buffers:
 *   memcpy               copying the packet (the cost the ICRC must stay well below)
 *   zlib crc32           zlib's CRC-32 over the packet bytes
 *   rte_net_crc sse42    DPDK's CRC32_ETH, SSE4.2 path
 *   rte_net_crc avx512   DPDK's CRC32_ETH, AVX-512 path (max SIMD width forced to 512)
 *   isa-l crc32          ISA-L crc32_gzip_refl over the packet bytes
 *   droce icrc (isa-l)   roce_icrc_calc(): masked pseudo-header + in-place CRC, ISA-L engine
 *   droce icrc (table)   the same with droce's own slice-by-8 engine
 * and prints GB/s, the droce ICRC's ratio to the best raw CRC library, and JSON.
 * Usage: icrc-bench [--json FILE] [--seconds S]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_udp.h>

#include "roce_hdr.h"
#include "roce_icrc.h"

#ifdef DROCE_HAVE_ISAL
#include <isa-l/crc.h>
#endif

enum { M_MEMCPY, M_ZLIB, M_SSE42, M_AVX512, M_ISAL, M_ICRC_ISAL, M_ICRC_TABLE, M_NUM };
static const char *const names[M_NUM] = {
	"memcpy",      "zlib crc32",	     "rte_net_crc sse42",  "rte_net_crc avx512",
	"isa-l crc32", "droce icrc (isa-l)", "droce icrc (table)",
};

#define NBUF 64
static volatile uint32_t sink;

static void build(struct rte_mbuf *m, uint32_t payload)
{
	uint32_t udp_len = 8 + 12 + payload + 4;
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + udp_len));
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + 14);
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ip + 1);
	struct roce_bth *bth = (struct roce_bth *)(uh + 1);

	memset(d, 0, 14 + 20 + 8 + 12);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + udp_len));
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	uh->dst_port = RTE_BE16(4791);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	roce_bth_set_opcode(bth, 0x07);
	roce_bth_set_pkey(bth, 0xffff);
	for (uint32_t i = 0; i < payload; i++)
		d[54 + i] = (uint8_t)(i * 7 + 3);
}

static double run(int method, struct rte_mbuf **m, uint8_t *dst, uint32_t len, double secs)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_get_tsc_cycles(), end = t0 + (uint64_t)(secs * hz);
	uint64_t bytes = 0, now;
	uint32_t acc = 0;

	do {
		for (unsigned i = 0; i < NBUF; i++) {
			const uint8_t *p = rte_pktmbuf_mtod_offset(m[i], uint8_t *, 42);

			switch (method) {
			case M_MEMCPY:
				memcpy(dst, p, len);
				acc += dst[len - 1];
				break;
			case M_ZLIB:
				acc += (uint32_t)crc32(0, p, len);
				break;
			case M_SSE42:
			case M_AVX512:
				acc += rte_net_crc_calc(p, len, RTE_NET_CRC32_ETH);
				break;
#ifdef DROCE_HAVE_ISAL
			case M_ISAL:
				acc += crc32_gzip_refl(0, p, len);
				break;
#endif
			case M_ICRC_ISAL:
			case M_ICRC_TABLE:
				acc += roce_icrc_calc(m[i], 14, 42, 42 + len - 4);
				break;
			default:
				break;
			}
			bytes += len;
		}
		now = rte_get_tsc_cycles();
	} while (now < end);
	sink += acc;
	return (double)bytes / ((double)(now - t0) / (double)hz) / 1e9;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = {64, 256, 1024, 4096};
	double gbs[4][M_NUM] = {{0}};
	const char *json = NULL;
	double secs = 0.3;
	struct rte_mempool *pool;
	struct rte_mbuf *m[NBUF];
	uint8_t *dst;
	int ret;
	FILE *jf;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	/* rte_net_crc reads the SIMD width once, at its first set_alg: allow 512 bits now */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	argc -= ret;
	argv += ret;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			secs = atof(argv[++i]);
	}
	pool = rte_pktmbuf_pool_create("icrc_bench", 255, 0, 0, 8192 + 128, 0);
	dst = malloc(8192);
	if (!pool || !dst)
		return 1;
	printf("%-8s", "payload");
	for (int k = 0; k < M_NUM; k++)
		printf(" %20s", names[k]);
	printf(" %14s\n", "icrc/best-lib");
	for (unsigned s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t len = 12 + sizes[s] + 4; /* what the ICRC covers after the pseudo-header */
		double best = 0;

		for (unsigned i = 0; i < NBUF; i++) {
			m[i] = rte_pktmbuf_alloc(pool);
			build(m[i], sizes[s]);
		}
		for (int k = 0; k < M_NUM; k++) {
			if (k == M_SSE42) {
				rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
			} else if (k == M_AVX512) {
				rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
			} else if (k == M_ICRC_ISAL) {
				if (roce_icrc_set_impl(ROCE_CRC_ISAL) != 0)
					continue;
			} else if (k == M_ICRC_TABLE) {
				roce_icrc_set_impl(ROCE_CRC_TABLE);
			}
#ifndef DROCE_HAVE_ISAL
			if (k == M_ISAL)
				continue;
#endif
			run(k, m, dst, len, secs / 5); /* warm-up */
			gbs[s][k] = run(k, m, dst, len, secs);
			if (k >= M_ZLIB && k <= M_ISAL && gbs[s][k] > best)
				best = gbs[s][k];
		}
		roce_icrc_set_impl(ROCE_CRC_ISAL);
		printf("%-8u", sizes[s]);
		for (int k = 0; k < M_NUM; k++)
			printf(" %14.2f GB/s", gbs[s][k]);
		printf(" %14.2f\n", best > 0 ? gbs[s][M_ICRC_ISAL] / best : 0);
		for (unsigned i = 0; i < NBUF; i++)
			rte_pktmbuf_free(m[i]);
	}
	if (json && (jf = fopen(json, "w"))) {
		fprintf(jf, "{\"unit\":\"GB/s\",\"results\":[");
		for (unsigned s = 0; s < RTE_DIM(sizes); s++) {
			fprintf(jf, "%s{\"payload\":%u", s ? "," : "", sizes[s]);
			for (int k = 0; k < M_NUM; k++)
				fprintf(jf, ",\"%s\":%.3f", names[k], gbs[s][k]);
			fprintf(jf, "}");
		}
		fprintf(jf, "]}\n");
		fclose(jf);
		printf("JSON: %s\n", json);
	}
	rte_mempool_free(pool);
	free(dst);
	rte_eal_cleanup();
	return 0;
}
