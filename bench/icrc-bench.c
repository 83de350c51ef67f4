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
 *   droce icrc (isa-l)   roce_icrc_calc() with the default engine (pseudo-header masked in
 *                        registers; droce's own VPCLMULQDQ fold, or ISA-L; roce_icrc.c)
 *   droce icrc (table)   the same with droce's own slice-by-8 engine
 * The ICRC also sums the 28 bytes of IP and UDP header and the 8 of the LRH stand-in; the
 * rates count the same bytes for every method (BTH + payload + ICRC).
 *
 * The machine may be shared (2 vCPUs, other tenants): one sample is one pass over the 64
 * frames (a few microseconds), the methods take turns pass by pass, and the table shows
 * each method's best pass (interference only ever lowers a rate, and short passes often
 * dodge it) and the ratio of the best ICRC pass to the best library pass; the ratio of the
 * median passes follows it. It prints GB/s and JSON.
 * Usage: icrc-bench [--json FILE] [--seconds S per method and size]
 */
#include <inttypes.h>
#include <stdbool.h>
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
#ifdef RTE_ARCH_X86_64
#include <immintrin.h>
#endif

enum { M_MEMCPY, M_ZLIB, M_SSE42, M_AVX512, M_ISAL, M_ICRC_ISAL, M_ICRC_TABLE, M_NUM };
static const char *const names[M_NUM] = {
	"memcpy",      "zlib crc32",	     "rte_net_crc sse42",  "rte_net_crc avx512",
	"isa-l crc32", "droce icrc (isa-l)", "droce icrc (table)",
};

#define NBUF 64
#define MAX_PASSES 200000u
static volatile uint32_t sink;
static bool avx;

#ifdef RTE_ARCH_X86_64
__attribute__((target("avx"))) static void avx_clear(void)
{
	_mm256_zeroupper();
}
#endif

/*
 * ISA-L and memcpy may leave the upper halves of the vector registers dirty; legacy-SSE code
 * after that (rte_net_crc's SSE4.2 path, built for the SSE4.2 baseline) runs at half speed
 * on some CPUs. Clear them after each pass so that no method taxes the next.
 */
static void vec_clean(void)
{
#ifdef RTE_ARCH_X86_64
	if (avx)
		avx_clear();
#endif
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

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

/* One pass of @p method over the NBUF frames. @return TSC cycles it took. */
static uint64_t pass(int method, struct rte_mbuf **m, uint8_t *dst, uint32_t len)
{
	uint64_t t0 = rte_rdtsc_precise(), t1;
	uint32_t acc = 0;

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
	}
	t1 = rte_rdtsc_precise();
	sink += acc;
	vec_clean();
	return t1 - t0;
}

/* Select what method @p k needs. @return false when it is not available here. */
static bool setup_method(int k)
{
	switch (k) {
	case M_SSE42: /* (falls back to scalar where the CPU lacks it) */
		rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
		return true;
	case M_AVX512:
		rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
		return true;
#ifndef DROCE_HAVE_ISAL
	case M_ISAL:
		return false;
#endif
	case M_ICRC_ISAL:
		return roce_icrc_set_impl(ROCE_CRC_ISAL) == 0;
	case M_ICRC_TABLE:
		return roce_icrc_set_impl(ROCE_CRC_TABLE) == 0;
	default:
		return true;
	}
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = {64, 256, 1024, 4096};
	double best[4][M_NUM] = {{0}}, med[4][M_NUM] = {{0}}, rb[4] = {0}, rm[4] = {0};
	uint64_t *samp[M_NUM];
	unsigned nsamp[4] = {0};
	bool have[M_NUM];
	const char *json = NULL;
	double secs = 0.3, hz;
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
#ifdef RTE_ARCH_X86_64
	__builtin_cpu_init();
	avx = __builtin_cpu_supports("avx");
#endif
	argc -= ret;
	argv += ret;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			secs = atof(argv[++i]);
	}
	if (secs <= 0) {
		fprintf(stderr, "usage: icrc-bench [EAL args] -- [--json FILE] [--seconds S]\n");
		return 2;
	}
	hz = (double)rte_get_tsc_hz();
	pool = rte_pktmbuf_pool_create("icrc_bench", 255, 0, 0, 8192 + 128, 0);
	dst = malloc(8192);
	for (int k = 0; k < M_NUM; k++)
		samp[k] = malloc(MAX_PASSES * sizeof(uint64_t));
	if (!pool || !dst || !samp[M_NUM - 1])
		return 1;
	for (int k = 0; k < M_NUM; k++)
		have[k] = setup_method(k);
	roce_icrc_set_impl(ROCE_CRC_ISAL);
	printf("icrc-bench: GB/s of BTH + payload + ICRC, best pass over %u frames (methods take "
	       "turns, %.2f s each per size); ICRC engine by default: %s\n",
	       NBUF, secs, roce_icrc_impl() == ROCE_CRC_ISAL ? "isa-l" : "table");
	printf("%-8s", "payload");
	for (int k = 0; k < M_NUM; k++)
		printf(" %20s", names[k]);
	printf(" %14s %14s\n", "icrc/best-lib", "(medians)");
	for (unsigned s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t len = 12 + sizes[s] + 4; /* what the ICRC covers after the pseudo-header */
		uint64_t t_end;
		double bl = 0, ml = 0;
		unsigned n = 0;

		for (unsigned i = 0; i < NBUF; i++) {
			m[i] = rte_pktmbuf_alloc(pool);
			build(m[i], sizes[s]);
		}
		for (int k = 0; k < M_NUM; k++) /* warm-up */
			for (int w = 0; w < 20 && have[k] && setup_method(k); w++)
				pass(k, m, dst, len);
		t_end = rte_rdtsc() + (uint64_t)(secs * M_NUM * hz);
		for (; n < MAX_PASSES && rte_rdtsc() < t_end; n++)
			for (int k = 0; k < M_NUM; k++)
				if (have[k] && setup_method(k))
					samp[k][n] = pass(k, m, dst, len);
		roce_icrc_set_impl(ROCE_CRC_ISAL);
		nsamp[s] = n;
		for (int k = 0; k < M_NUM && n > 0; k++) {
			double bytes = (double)NBUF * len;

			if (!have[k])
				continue;
			qsort(samp[k], n, sizeof(uint64_t), cmp_u64);
			best[s][k] = bytes / ((double)samp[k][0] / hz) / 1e9;
			med[s][k] = bytes / ((double)samp[k][n / 2] / hz) / 1e9;
			if (k >= M_ZLIB && k <= M_ISAL) {
				bl = RTE_MAX(bl, best[s][k]);
				ml = RTE_MAX(ml, med[s][k]);
			}
		}
		rb[s] = bl > 0 ? best[s][M_ICRC_ISAL] / bl : 0;
		rm[s] = ml > 0 ? med[s][M_ICRC_ISAL] / ml : 0;
		printf("%-8u", sizes[s]);
		for (int k = 0; k < M_NUM; k++)
			printf(" %14.2f GB/s", best[s][k]);
		printf(" %14.2f %14.2f\n", rb[s], rm[s]);
		for (unsigned i = 0; i < NBUF; i++)
			rte_pktmbuf_free(m[i]);
	}
	if (json && (jf = fopen(json, "w"))) {
		fprintf(jf, "{\"unit\":\"GB/s\",\"frames_per_pass\":%u,\"results\":[", NBUF);
		for (unsigned s = 0; s < RTE_DIM(sizes); s++) {
			fprintf(jf, "%s{\"payload\":%u,\"passes\":%u", s ? "," : "", sizes[s],
				nsamp[s]);
			for (int k = 0; k < M_NUM; k++)
				fprintf(jf, ",\"%s\":%.3f", names[k], best[s][k]);
			fprintf(jf, ",\"icrc_vs_best_lib\":%.4f,\"median\":{", rb[s]);
			for (int k = 0; k < M_NUM; k++)
				fprintf(jf, "%s\"%s\":%.3f", k ? "," : "", names[k], med[s][k]);
			fprintf(jf, ",\"icrc_vs_best_lib\":%.4f}}", rm[s]);
		}
		fprintf(jf, "]}\n");
		fclose(jf);
		printf("JSON: %s\n", json);
	}
	for (int k = 0; k < M_NUM; k++)
		free(samp[k]);
	rte_mempool_free(pool);
	free(dst);
	rte_eal_cleanup();
	return 0;
}
