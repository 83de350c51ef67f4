/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gen_replay.c - libFuzzer target for droce-gen --replay (apps/gen/gen_replay.c): the
 * capture reader (pcap in both byte orders and stamp units, pcapng's blocks) and the rewrite of
 * each frame it yields. The input, copied into a heap buffer of exactly its size so ASan catches
 * a read past it, is a capture file. Besides "no crash, no over-read":
 * - every frame the reader yields lies inside the file;
 * - the reader ends (returns 0 or -EINVAL) within one step per 12 bytes of input;
 * - each frame is rewritten twice, towards an IPv4 and an IPv6 peer: both are skipped for the
 *   same reason, or both rewritten (a frame too long for IPv4 may go to IPv6 only), and the two
 *   agree from the UDP header to the ICRC;
 * - a rewritten IPv4 frame is no longer than its captured frame (our 14-byte Ethernet header
 *   replaces the capture's, an 802.1Q tag is dropped, padding is not kept), an IPv6 one at most
 *   20 bytes longer; each fits the output, is UDP to 4791 from our address to the peer's with
 *   a zero UDP checksum, the IP and UDP lengths right, an IPv4 header checksum right, and its
 *   ICRC checks (roce_icrc_check);
 * - the rewrite's maps and PSN base hold: a mapped QPN comes out as its target.
 * Seeds: the first frames of ../shared/captures' RoCE captures, as pcap and as pcapng (rc3v6.pcap:
 * rc3.pcap made RoCEv2 over IPv6, its ICRCs by the IPv6 rules), and a
 * few hand-made malformed files (tests/fuzz/corpus/gen_replay).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz_check.h"

#include "gen_replay.h"
#include "roce_icrc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static uint16_t sum16(const uint8_t *h, uint32_t len)
{
	uint32_t s = 0;

	for (uint32_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The checks on one rewritten frame of family 4 or 6. @return the UDP header's offset */
static uint32_t check_out(const struct gen_rewrite *rw, const uint8_t *out,
			  const struct gen_rewrite_res *res)
{
	uint32_t l3, udp_off;
	const uint8_t *udp;
	struct rte_mbuf m;

	if (rw->family == 6) {
		CHECK(out[12] == 0x86 && out[13] == 0xdd && (out[14] >> 4) == 6 &&
		      out[14 + 6] == 17);
		CHECK((uint32_t)(out[14 + 4] << 8 | out[14 + 5]) == res->len - 14 - 40);
		CHECK(memcmp(out + 14 + 8, rw->src_ip6, 16) == 0);
		CHECK(memcmp(out + 14 + 24, rw->dst_ip6, 16) == 0);
		l3 = 40;
	} else {
		CHECK(out[12] == 0x08 && out[13] == 0x00 && (out[14] >> 4) == 4 &&
		      out[14 + 9] == 17);
		l3 = (uint32_t)(out[14] & 15) * 4;
		CHECK((uint32_t)(out[14 + 2] << 8 | out[14 + 3]) == res->len - 14);
		CHECK(memcmp(out + 14 + 12, &rw->src_ip, 4) == 0);
		CHECK(memcmp(out + 14 + 16, &rw->dst_ip, 4) == 0);
		CHECK(sum16(out + 14, l3) == 0xffff);
	}
	CHECK(res->len >= 14 + l3 + 8 + 16);
	udp_off = 14 + l3;
	udp = out + udp_off;
	CHECK((uint32_t)(udp[4] << 8 | udp[5]) == res->len - udp_off);
	CHECK(udp[2] == 0x12 && udp[3] == 0xb7 && udp[6] == 0 && udp[7] == 0);
	CHECK(!res->qpn || (udp[8 + 5] == 0xab && udp[8 + 6] == 0xcd && udp[8 + 7] == 0xef));
	/* a UD frame's DETH follows its 12-byte BTH: the source QP ends it */
	CHECK(!res->sqpn || ((udp[8] == 0x64 || udp[8] == 0x65) && udp[8 + 12 + 5] == 0x76 &&
			     udp[8 + 12 + 6] == 0x54 && udp[8 + 12 + 7] == 0x32));
	memset(&m, 0, sizeof(m));
	m.buf_addr = (void *)(uintptr_t)out;
	m.buf_len = UINT16_MAX;
	m.data_len = (uint16_t)res->len;
	m.pkt_len = res->len;
	m.nb_segs = 1;
	CHECK(roce_icrc_check(&m, 14, (uint16_t)(udp_off + 8), res->len - 4));
	return udp_off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[65536 + 64], out6[65536 + 64];
	struct gen_rewrite rw = {.src_mac = {{2, 0, 0, 0, 0, 1}},
				 .dst_mac = {{2, 0, 0, 0, 0, 2}},
				 .family = 4,
				 .src_ip = 0x0100000a, /* 10.0.0.1, network order */
				 .dst_ip = 0x0200000a,
				 .src_ip6 = {0xfd, 0, [15] = 1},
				 .dst_ip6 = {0xfd, 0, [15] = 2},
				 .psn_rebase = true,
				 .psn_base = 0xfffff0};
	struct gen_rewrite rw6;
	struct gen_pcap p;
	struct gen_pcap_frame f;
	uint8_t *buf;
	size_t steps = 0;
	bool apart = false; /* a frame went to one family only: the PSN tables may differ since */
	int rc;

	if (size > 65536)
		return 0;
	rw.qpn.n = 1;
	rw.qpn.from[0] = 0x11;
	rw.qpn.to[0] = 0xabcdef;
	rw.rkey.n = 1;
	rw.rkey.from[0] = 0x21d;
	rw.rkey.to[0] = 0x12345678;
	rw.sqpn.n = 1;
	rw.sqpn.from[0] = 1;
	rw.sqpn.to[0] = 0x765432;
	rw6 = rw; /* the same rewrite towards an IPv6 peer */
	rw6.family = 6;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	if (gen_pcap_open(&p, buf, size) != 0) {
		free(buf);
		return 0;
	}
	while ((rc = gen_pcap_next(&p, &f)) == 1) {
		struct gen_rewrite_res res, res6;
		enum gen_skip why, why6;
		uint32_t u4, u6 = 0;

		CHECK(++steps <= size / 12 + 1);
		CHECK(f.data >= buf && f.data + f.caplen <= buf + size);
		why = gen_replay_rewrite(&rw, &f, out, sizeof(out), &res);
		why6 = gen_replay_rewrite(&rw6, &f, out6, sizeof(out6), &res6);
		CHECK(why < GEN_SKIP_NUM && why6 < GEN_SKIP_NUM);
		/* the family of the output changes nothing but the IP header; a frame too long
		 * for one family's length fields or the output may still go to the other */
		CHECK(why == why6 || (why == GEN_SKIP_TOO_LONG && why6 == GEN_OK) ||
		      (why == GEN_OK && why6 == GEN_SKIP_TOO_LONG));
		apart |= why != why6;
		if (why6 == GEN_OK) {
			/* at most an IPv6 header for a 20-byte IPv4 one longer than the capture's */
			CHECK(res6.len <= f.caplen + 20 && res6.len <= sizeof(out6));
			u6 = check_out(&rw6, out6, &res6);
		}
		if (why != GEN_OK)
			continue;
		CHECK(res.len <= f.caplen && res.len <= sizeof(out));
		u4 = check_out(&rw, out, &res);
		if (apart)
			continue;
		/* UDP and everything after it but the ICRC the same in both */
		CHECK(res.len - u4 == res6.len - u6 && res.qpn == res6.qpn &&
		      res.rkey == res6.rkey && res.sqpn == res6.sqpn && res.psn == res6.psn);
		CHECK(memcmp(out + u4, out6 + u6, res.len - u4 - 4) == 0);
	}
	CHECK(rc == 0 || rc == -EINVAL);
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
