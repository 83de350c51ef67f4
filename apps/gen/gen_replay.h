/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_replay.h - droce-gen --replay: RoCEv2 frames from a capture, rewritten for a new peer and
 * sent at their recorded pace or a set rate (issue 18 item 4).
 *
 * Two pieces, both pure over bytes so that tests and the fuzz target drive them without a port:
 *   - a capture reader: classic pcap (either byte order, microsecond or nanosecond stamps) and
 *     pcapng (section, interface description and enhanced packet blocks, little-endian), every
 *     length checked against what is left before it is used;
 *   - the rewrite of one Ethernet frame into a RoCEv2 frame from us to the peer: our MAC and
 *     address as the source, the peer's as the destination (an 802.1Q tag is dropped), in the
 *     peer's address family whatever the capture's (an IPv4 capture replays to an IPv6 peer
 *     and the other way: TOS and traffic class, TTL and hop limit carry over, the flow label
 *     too between IPv6 frames), UDP to 4791 with a zero checksum (RoCEv2 allows it), the
 *     BTH's destination QP and the
 *     RETH's or AtomicETH's rkey and a UD frame's DETH source QP through their maps, each
 *     destination QP's PSNs moved so that
 *     its first one becomes the PSN base, and the ICRC computed again (roce_icrc_fill).
 * Frames that are not RoCEv2 (UDP 4791 over IPv4, or over IPv6 with no extension header), are
 * cut short in the capture or whose lengths disagree are skipped and counted by reason.
 */
#ifndef GEN_REPLAY_H
#define GEN_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

/* ---- the capture ---- */

struct gen_pcap {
	const uint8_t *buf;
	uint64_t len, off;
	bool ng;	   /**< pcapng */
	bool swap;	   /**< classic pcap written in the other byte order */
	bool nano;	   /**< classic pcap with nanosecond stamps */
	uint32_t linktype; /**< classic: the file's */
	/* pcapng: the section's interfaces, their link types and stamp units a second
	 * (if_tsresol; 10^6 by default) */
	uint32_t nifs;
	uint32_t if_link[8];
	uint64_t if_div[8];
};

struct gen_pcap_frame {
	const uint8_t *data;
	uint32_t caplen, origlen;
	uint64_t ts_ns;	   /**< its stamp, in nanoseconds */
	uint32_t linktype; /**< 1: Ethernet */
};

/** Start reading the capture in buf (len bytes, kept by the caller). @return 0, or -EINVAL
 * when it is neither a pcap nor a pcapng file */
int gen_pcap_open(struct gen_pcap *p, const uint8_t *buf, uint64_t len);
/** The next frame. @return 1, 0 at the end, -EINVAL when the rest is malformed (a length
 * beyond the file, a block too short) */
int gen_pcap_next(struct gen_pcap *p, struct gen_pcap_frame *f);

/* ---- the rewrite ---- */

#define GEN_MAP_MAX 16

struct gen_map {
	uint32_t n;
	uint32_t from[GEN_MAP_MAX], to[GEN_MAP_MAX];
};

struct gen_rewrite {
	struct rte_ether_addr src_mac, dst_mac;
	uint8_t family;		 /**< the frames': 4 or 6 (the peer's); 0 is 4 */
	uint32_t src_ip, dst_ip; /**< IPv4, network order */
	uint8_t src_ip6[16], dst_ip6[16];
	struct gen_map qpn;  /**< destination QPs (24 bits) */
	struct gen_map rkey; /**< RETH / AtomicETH rkeys */
	struct gen_map sqpn; /**< UD: the DETH's source QPs (24 bits) */
	bool psn_rebase;
	uint32_t psn_base; /**< with psn_rebase: each destination QP's first PSN becomes this */
	/* each destination QP's (after its map) PSN shift, learnt from its first frame */
	uint32_t npsn;
	uint32_t psn_qpn[64], psn_delta[64];
};

enum gen_skip {
	GEN_OK = 0,
	GEN_SKIP_LINKTYPE,  /**< not Ethernet */
	GEN_SKIP_TRUNCATED, /**< the capture kept less than the frame */
	GEN_SKIP_NOT_ROCE,  /**< not UDP to 4791 over IPv4 or IPv6 */
	GEN_SKIP_IPV6_EXT,  /**< IPv6 with extension headers before its UDP: not rewritten */
	GEN_SKIP_BAD_LEN,   /**< IP, UDP and frame lengths disagree, or no room for BTH + ICRC */
	GEN_SKIP_QPS,	    /**< more destination QPs than the PSN table holds (64) */
	GEN_SKIP_TOO_LONG,  /**< longer than one mbuf's room (the pool's data room) */
	GEN_SKIP_NUM
};

/** The reason's name ("truncated", ...). */
const char *gen_skip_name(enum gen_skip s);

struct gen_rewrite_res {
	uint32_t len;		   /**< the rewritten frame's length */
	bool qpn, rkey, psn, sqpn; /**< what was changed */
};

/**
 * Rewrite frame f into out (cap bytes; a frame is at most as long as f's).
 * @return GEN_OK with *res filled, or why it was skipped (out then undefined)
 */
enum gen_skip gen_replay_rewrite(struct gen_rewrite *rw, const struct gen_pcap_frame *f,
				 uint8_t *out, uint32_t cap, struct gen_rewrite_res *res);

/** Parse "FROM:TO" (each decimal or 0x hex, at most max) into m. @return 0 or -EINVAL
 * (malformed, too large, or the map full) */
int gen_map_add(struct gen_map *m, const char *v, uint32_t max);

#endif /* GEN_REPLAY_H */
