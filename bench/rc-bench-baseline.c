/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench-baseline.c - the baselines rc-bench measures in the same run as the transport:
 * memcpy bandwidth, and the ICRC check over real frames built by roce_tx_build().
 */
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rc-bench.h"
#include "roce_icrc.h"
#include "roce_tx.h"
#include "roce_verbs.h"
#include "stk_stack.h"

/* memcpy in @p chunk pieces from a 2 MiB source to a 2 MiB destination (L2 is smaller). */
double rcb_memcpy_rate(uint8_t *src, uint8_t *dst, uint32_t chunk, double secs)
{
	const size_t span = 2u << 20;
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t bytes = 0, t0, t1, end;
	size_t off = 0;

	rcb_fill(src, span, 3);
	t0 = rte_rdtsc();
	end = t0 + (uint64_t)(secs * (double)hz);
	do {
		for (int k = 0; k < 16; k++) {
			memcpy(dst + off, src + off, chunk);
			off = (off + chunk) % span;
			bytes += chunk;
		}
		t1 = rte_rdtsc();
	} while (t1 < end);
	if (dst[chunk / 2] != src[chunk / 2])
		return 0;
	return (double)bytes * (double)hz / (double)(t1 - t0) / 1e9;
}

static void noop_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/*
 * ICRC check bandwidth on real frames: 64 RDMA WRITE MIDDLE frames of @p mtu payload built
 * by roce_tx_build() zero-copy, as the receiver sees them. 64 frames stay in L2: this is the
 * best case, as on the receiver of a loopback, which checks bytes the sender just summed.
 * @return payload GB/s, or 0 when a frame fails to build or to verify.
 */
double rcb_icrc_rate(struct rte_mempool *pool, uint16_t ifa_idx, uint16_t ifb_idx, uint8_t *buf,
		     uint32_t mtu, double secs)
{
	const uint64_t hz = rte_get_tsc_hz();
	static struct rte_mbuf *m[64];
	struct rte_mbuf_ext_shared_info zc = {.free_cb = noop_free};
	const struct stk_iface *ifa = stk_iface_get(ifa_idx);
	struct roce_path path;
	struct roce_tx t;
	uint32_t nf = RTE_DIM(m);
	uint64_t bytes = 0, t0, t1, end;
	double rate = 0;
	bool ok = true;

	memset(&path, 0, sizeof(path));
	path.dgid_ip = stk_iface_get(ifb_idx)->ip4;
	memset(&t, 0, sizeof(t));
	t.path = &path;
	t.opcode = 0x07; /* RC RDMA WRITE MIDDLE */
	t.dqpn = 0x11;
	t.lqpn = 0x12;
	rte_mbuf_ext_refcnt_set(&zc, 1);
	rcb_fill(buf, 2u << 20, 5);
	for (uint32_t i = 0; i < nf; i++) {
		t.psn = i;
		m[i] = roce_tx_build(pool, ifa, &t, buf + i * mtu, mtu, &zc);
		if (!m[i]) {
			nf = i;
			ok = false;
			break;
		}
	}
	t0 = rte_rdtsc();
	end = t0 + (uint64_t)(secs * (double)hz);
	do {
		for (uint32_t i = 0; i < nf && ok; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(m[i]);

			if (!roce_icrc_check(m[i], RTE_ETHER_HDR_LEN, RTE_ETHER_HDR_LEN + 20 + 8,
					     len - 4))
				ok = false;
			bytes += mtu;
		}
		t1 = rte_rdtsc();
	} while (ok && t1 < end);
	if (ok)
		rate = (double)bytes * (double)hz / (double)(t1 - t0) / 1e9;
	for (uint32_t i = 0; i < nf; i++)
		rte_pktmbuf_free(m[i]);
	return rate;
}
