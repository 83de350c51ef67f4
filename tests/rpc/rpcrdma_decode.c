/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_decode.c - prints droce's decoding of every RPC-over-RDMA message (RC SEND ONLY and
 * SEND ONLY WITH INVALIDATE payloads) in a pcap/pcapng file: one tab-separated line per frame
 * in the column order of tests/rpc/rpcrdma_tshark_agree.py's tshark fields, then whether the
 * header re-encodes byte for byte, then the inline RPC message's header as orpc_msg reads it.
 * The proof that droce reads RFC 8166 headers and RPC messages as tshark does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "orpc_msg.h"
#include "pcap_walk.h"
#include "roce_opcode.h"
#include "roce_pkt.h"
#include "rpcrdma_hdr.h"
#include "stk_pkt.h"

static struct rte_mempool *pool;

/* comma-joined lists, as tshark -T fields prints repeated fields */
struct list {
	char s[4096];
	size_t n;
};

enum fmt { DEC, HEX32, HEX64 };

static void add(struct list *l, enum fmt f, unsigned long long v)
{
	const char *sep = l->n ? "," : "";
	size_t room = sizeof(l->s) - l->n;
	int n = f == DEC     ? snprintf(l->s + l->n, room, "%s%llu", sep, v)
		: f == HEX32 ? snprintf(l->s + l->n, room, "%s0x%08llx", sep, v)
			     : snprintf(l->s + l->n, room, "%s0x%016llx", sep, v);

	if (n > 0 && (size_t)n < room)
		l->n += (size_t)n;
}

static void print_rpc(const uint8_t *m, uint32_t len)
{
	static struct orpc_call c;
	struct orpc_reply_hdr r;
	uint32_t off;

	if (len >= 8 && m[4] == 0 && m[5] == 0 && m[6] == 0 && m[7] == 0) {
		if (orpc_call_decode(m, len, &c) != ORPC_CALL_OK) {
			printf("\tcall-undecodable\n");
			return;
		}
		printf("\t0x%08x\t0\t%u\t%u\t%u\t%u\t%u", c.xid, c.prog, c.vers, c.proc,
		       c.cred_flavor, c.verf_flavor);
		if (c.cred_flavor == AUTH_SYS && orpc_authsys_decode(&c) == AUTH_OK)
			printf("\t%u\t%u\t%u\t\t\n", c.sys.stamp, c.sys.uid, c.sys.gid);
		else
			printf("\t\t\t\t\t\n");
		return;
	}
	if (orpc_reply_decode(m, len, &r, &off) != 0) {
		printf("\treply-undecodable\n");
		return;
	}
	printf("\t0x%08x\t1\t\t\t\t\t\t\t\t\t%u\t%u\n", r.xid, r.denied ? 1 : 0,
	       r.denied ? 0 : r.stat);
}

static void frame(void *ctx, unsigned no, const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rpcrdma_rseg rsegs[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_seg wsegs[RPCRDMA_MAX_WRITE_CHUNKS * RPCRDMA_MAX_CHUNK_SEGS];
	struct rpcrdma_seg reply_segs[RPCRDMA_MAX_CHUNK_SEGS];
	struct rpcrdma_chunk wchunks[RPCRDMA_MAX_WRITE_CHUNKS], reply;
	struct list handle = {0}, length = {0}, offset = {0}, pos = {0}, nseg = {0};
	struct rpcrdma_hdr_out o;
	struct rpcrdma_hdr h;
	enum rpcrdma_dec dec;
	uint8_t re[8192];
	char errbuf[16];
	const uint8_t *pl;
	struct stk_pkt p;
	struct roce_pkt rp;
	int n;

	(void)ctx;
	if (!m || len > rte_pktmbuf_tailroom(m))
		goto out;
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), d, len);
	if (stk_parse(m, &p) != 0 || p.dport != STK_ROCE_UDP_PORT || roce_pkt_parse(m, &p, &rp))
		goto out;
	if (rp.opcode != ROCE_OP_RC_SEND_ONLY && rp.opcode != ROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE)
		goto out;
	pl = rte_pktmbuf_mtod_offset(m, const uint8_t *, rp.payload_off);
	dec = rpcrdma_hdr_decode(pl, rp.payload_len, &h);
	if (dec != RPCRDMA_DEC_OK) {
		printf("%u\tERROR\t%s\n", no, h.why);
		goto out;
	}
	/* tshark lists the segments in wire order: read list, write list, reply chunk */
	for (uint32_t i = 0; i < h.nr_rsegs; i++) {
		struct rpcrdma_rseg s;

		rpcrdma_read_seg(&h, i, &s);
		add(&handle, HEX32, s.seg.handle);
		add(&length, DEC, s.seg.length);
		add(&offset, HEX64, s.seg.offset);
		add(&pos, DEC, s.position);
	}
	for (uint32_t c = 0; c < h.nr_wchunks; c++) {
		add(&nseg, DEC, h.wchunk_nsegs[c]);
		for (uint32_t i = 0; i < h.wchunk_nsegs[c]; i++) {
			struct rpcrdma_seg s;

			rpcrdma_write_seg(&h, c, i, &s);
			add(&handle, HEX32, s.handle);
			add(&length, DEC, s.length);
			add(&offset, HEX64, s.offset);
		}
	}
	if (h.has_reply) {
		add(&nseg, DEC, h.reply_nsegs);
		for (uint32_t i = 0; i < h.reply_nsegs; i++) {
			struct rpcrdma_seg s;

			rpcrdma_reply_seg(&h, i, &s);
			add(&handle, HEX32, s.handle);
			add(&length, DEC, s.length);
			add(&offset, HEX64, s.offset);
		}
	}
	snprintf(errbuf, sizeof(errbuf), "%u", h.err);
	rpcrdma_hdr_to_out(&h, &o, rsegs, wchunks, wsegs, &reply, reply_segs);
	n = rpcrdma_hdr_encode(&o, re, sizeof(re));
	printf("%u\t0x%08x\t%u\t%u\t%u\t%u\t%u\t%u\t%s\t%s\t%s\t%s\t%s\t%s\t%s", no,
	       rte_be_to_cpu_32(h.xid), h.vers, h.credits, h.proc, h.nr_rsegs, h.nr_wchunks,
	       h.has_reply ? 1 : 0, handle.s, length.s, offset.s, pos.s, nseg.s,
	       h.proc == RPCRDMA_ERROR ? errbuf : "",
	       n == (int)h.hdr_len && memcmp(re, pl, h.hdr_len) == 0 ? "reenc-ok" : "reenc-bad");
	if (h.proc == RPCRDMA_MSG)
		print_rpc(pl + h.hdr_len, rp.payload_len - h.hdr_len);
	else
		printf("\n");
out:
	rte_pktmbuf_free(m);
}

int main(int argc, char **argv)
{
	static char a0[] = "rpcrdma_decode", a1[] = "--no-huge", a2[] = "-m", a3[] = "64",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	uint8_t *buf;
	long sz;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.pcap|FILE.pcapng\n", argv[0]);
		return 2;
	}
	buf = pcap_slurp(argv[1], &sz);
	if (!buf || rte_eal_init(10, eal) < 0)
		return 2;
	pool = rte_pktmbuf_pool_create("dec", 255, 0, 0, 16384, 0);
	if (!pool)
		return 2;
	pcap_walk(buf, sz, frame, NULL);
	free(buf);
	rte_eal_cleanup();
	return 0;
}
