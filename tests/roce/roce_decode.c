/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_decode.c - prints droce's decoding of every RoCEv2 frame in a pcap/pcapng file, one
 * tab-separated line per frame, in the column order of tests/roce/tshark_agree.py's tshark
 * fields, plus our ICRC verdict. Used to prove that droce reads headers as tshark does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_pkt.h"
#include "stk_pkt.h"

static void print_frame(struct rte_mempool *pool, const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	const struct roce_reth *reth;
	const struct roce_atomiceth *at;
	const struct roce_aeth *aeth;
	const struct roce_deth *deth;
	const struct roce_atomicacketh *ack;
	const struct roce_immdt *imm;
	const struct roce_ieth *ieth;
	struct stk_pkt p;
	struct roce_pkt rp;

	if (!m || len > rte_pktmbuf_tailroom(m)) {
		printf("ERROR\ttoo long\n");
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), d, len);
	if (stk_parse(m, &p) != 0 || p.dport != STK_ROCE_UDP_PORT) {
		printf("ERROR\t%s\n", stk_drop_name(p.drop));
		rte_pktmbuf_free(m);
		return;
	}
	if (roce_pkt_parse(m, &p, &rp) != 0) {
		printf("ERROR\t%s\n", roce_drop_name(rp.drop));
		rte_pktmbuf_free(m);
		return;
	}
	/* opcode se m padcnt pkey destqp a psn */
	printf("%u\t%d\t%d\t%u\t%u\t%u\t%d\t%u", rp.opcode, roce_bth_se(rp.bth),
	       roce_bth_migreq(rp.bth), rp.pad, roce_bth_pkey(rp.bth), rp.dqpn,
	       roce_bth_ackreq(rp.bth), rp.psn);
	deth = roce_pkt_ext(&rp, ROCE_EXT_DETH);
	if (deth)
		printf("\t%u\t%u", roce_deth_qkey(deth), roce_deth_sqpn(deth));
	else
		printf("\t\t");
	/* tshark shows AtomicETH's address and key in the reth fields */
	reth = roce_pkt_ext(&rp, ROCE_EXT_RETH);
	at = roce_pkt_ext(&rp, ROCE_EXT_ATOMICETH);
	if (reth)
		printf("\t%lu\t%u\t%u", (unsigned long)roce_reth_va(reth), roce_reth_rkey(reth),
		       roce_reth_len(reth));
	else if (at)
		printf("\t%lu\t%u\t", (unsigned long)roce_atomiceth_va(at),
		       roce_atomiceth_rkey(at));
	else
		printf("\t\t\t");
	if (at)
		printf("\t%lu\t%lu", (unsigned long)roce_atomiceth_swap_add(at),
		       (unsigned long)roce_atomiceth_cmp(at));
	else
		printf("\t\t");
	aeth = roce_pkt_ext(&rp, ROCE_EXT_AETH);
	if (aeth)
		printf("\t%u\t%u", roce_aeth_syndrome(aeth), roce_aeth_msn(aeth));
	else
		printf("\t\t");
	ack = roce_pkt_ext(&rp, ROCE_EXT_ATOMICACKETH);
	if (ack)
		printf("\t%lu", (unsigned long)roce_atomicacketh_orig(ack));
	else
		printf("\t");
	imm = roce_pkt_ext(&rp, ROCE_EXT_IMMDT);
	if (imm)
		printf("\t%08x", roce_immdt_get(imm));
	else
		printf("\t");
	ieth = roce_pkt_ext(&rp, ROCE_EXT_IETH);
	if (ieth)
		printf("\t%08x", roce_ieth_rkey(ieth));
	else
		printf("\t");
	printf("\t%s\n",
	       roce_icrc_check(m, p.l3_off, rp.bth_off, rp.payload_off + rp.payload_len + rp.pad)
		       ? "icrc-ok"
		       : "icrc-bad");
	rte_pktmbuf_free(m);
}

int main(int argc, char **argv)
{
	static char a0[] = "roce_decode", a1[] = "--no-huge", a2[] = "-m", a3[] = "64",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	struct rte_mempool *pool;
	uint8_t *buf;
	uint32_t magic;
	long sz;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.pcap|FILE.pcapng\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz || sz < 24) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 2;
	}
	fclose(f);
	if (rte_eal_init(10, eal) < 0)
		return 2;
	pool = rte_pktmbuf_pool_create("dec", 255, 0, 0, 16384, 0);
	if (!pool)
		return 2;
	memcpy(&magic, buf, 4);
	for (long off = magic == 0x0a0d0d0a ? 0 : 24; off + 16 <= sz;) {
		uint32_t type, blen, len;

		memcpy(&type, buf + off, 4);
		memcpy(&blen, buf + off + 4, 4);
		if (magic == 0x0a0d0d0a) {
			if (blen < 12 || off + blen > sz)
				break;
			if (type == 6) {
				memcpy(&len, buf + off + 20, 4);
				if (28 + len <= blen)
					print_frame(pool, buf + off + 28, len);
			}
			off += blen;
		} else {
			memcpy(&len, buf + off + 8, 4);
			if (off + 16 + len > sz)
				break;
			print_frame(pool, buf + off + 16, len);
			off += 16 + len;
		}
	}
	free(buf);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
