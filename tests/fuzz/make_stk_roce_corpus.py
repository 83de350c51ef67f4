#!/usr/bin/env python3
"""Seed corpus for fuzz_stk_roce: operation sequences written by hand, one per scenario, in the
target's input encoding (see the header comment of fuzz_stk_roce.c and the functions named
below). Run from the repository root; writes tests/fuzz/corpus/stk_roce/ (regress_* seeds,
inputs that once failed, are kept as they are)."""
import os

OUT = "tests/fuzz/corpus/stk_roce"

V4, V6 = 0, 1  # header byte
# operation byte: low 4 bits, side (the wire a frame goes onto, the lcore a message or a
# backlog is from) in bit 4 (step)
POST, RECV, FRAME, AHEAD, CTRL, BACKLOG, WIRE, TICK, ERR, RECONNECT, WAIT, POLL = (
    0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13)
A, B = 0x00, 0x10
SEND, WRITE, READ = 0, 1, 2  # post_send: ops[] index; bit 2 no receive posted for a SEND
NO_RECV = 4
L0, L1, L64, L512, L1024, L1025, L2048, L4096 = range(8)  # pick_len
# look_ahead's delay byte: unit in the low 2 bits (100 us, 1 ms, 4 ms, 30 ms), times
# 1 + the high nibble
US100, MS1, MS4, MS30 = 0, 1, 2, 3


def ahead(unit, times=1):
    return [AHEAD, unit | (times - 1) << 4]


def post(side, op, length):
    return [side | POST, op, length]


def poll(n=1):
    return [POLL, n - 1]


# frame kinds (frame(): byte % 6)
ARP, ND, PFC, ROCE, RAW = 0, 1, 2, 4, 5
# pfc_frame's byte: bit 0 class 3 only, bit 1 PFC (else 802.3x), bits 2-3 quanta (0 the
# longest, 1 XON, 2 one u16 per class), bit 4 truncated, bit 5 unicast to us
XOFF3 = [PFC, 0x03]
XON3 = [PFC, 0x07]
PAUSE_8023 = [PFC, 0x01]


def pfc_quanta(q, ce=1 << 3):
    return [PFC, 0x02 | 2 << 2, ce & 0xFF, ce >> 8] + sum(([x & 0xFF, x >> 8] for x in q), [])


# pick_ip4: 0 the peer, 1 the third, 2 ours, 3 another subnet, 4 zero, 5 the subnet's
# broadcast; pick_ip6: 0 the peer's link-local, 1 its global, 2 the third, 3 ours, 4 ::,
# 5 ff02::1, 6 our solicited-node group
PEER, THIRD, OURS, OFFNET, ZERO, BCAST = range(6)
P6_LL, P6_GLOBAL, P6_THIRD, P6_OURS, P6_ANY, P6_ALLNODES, P6_SOLICITED = range(7)


def arp(flags, sip, tip=None):
    """arp_frame's byte: bit 0 from the third's MAC, bit 1 a reply, bit 5 the target IP
    picked (else ours), bit 7 broadcast."""
    return [ARP, flags | (0x20 if tip is not None else 0), sip] + ([tip] if tip is not None else [])


def nd(flags, opt, src, dst, target):
    """nd_frame's bytes: b (bit 2 NA, bit 1 hop limit 64, bit 4 bad checksum), o (bit 0 a
    link-layer option, bits 5-7 R/S/O), then source, destination, target."""
    return [ND, flags, opt, src, dst, target]


NS, NA = 0, 4
LLOPT, SOLICITED, OVERRIDE = 1, 0x40, 0x20

SEEDS = {
    "send_write_read_v4": [V4] + post(A, SEND, L4096) + post(B, WRITE, L2048)
    + post(A, READ, L4096) + poll(8) + poll(8),
    "send_write_read_v6": [V6] + post(B, SEND, L4096) + post(A, WRITE, L1025)
    + post(B, READ, L4096) + poll(8) + poll(8),
    # the peer pauses side A's priority 3: A's frames wait; 60 ms later the pause is over
    "pfc_xoff_holds_then_expires": [V4, A | FRAME] + XOFF3 + poll(1) + post(A, SEND, L4096)
    + poll(2) + ahead(MS1) + ahead(MS30, 2) + poll(4),
    # paused 4 ms without a break: the storm watchdog releases it
    "pfc_storm_watchdog": [V4, A | FRAME] + XOFF3 + poll(1) + post(A, WRITE, L2048) + poll(2)
    + ahead(MS4) + [A | FRAME] + XOFF3 + poll(1) + ahead(MS1) + ahead(MS4, 2) + poll(4),
    "pfc_xon_ends_pause": [V6, A | FRAME] + XOFF3 + poll(1) + post(A, SEND, L1024) + poll(1)
    + [A | FRAME] + XON3 + poll(4),
    "pfc_quanta_per_class": [V4, A | FRAME] + pfc_quanta([0, 1, 2, 300, 0xffff, 7, 0, 9], 0x1ff)
    + post(A, SEND, L1024) + poll(2) + ahead(US100, 3) + poll(2),
    "pause_8023_ignored": [V4, B | FRAME] + PAUSE_8023 + post(B, SEND, L64) + poll(4),
    # a backlog on lcore 0's interface 1 makes it send XOFF to side 0, then XON
    "pfc_generation_xoff_xon": [V4] + [BACKLOG, 1, 12] + poll(2) + post(A, SEND, L4096)
    + poll(2) + [BACKLOG, 1, 0] + poll(4),
    # lcore 1 hears of a pause lcore 0 received, and of it again by a message
    "ctrl_pfc_to_lcore1": [V4] + [A | CTRL, 0x01 | 0x02, 0xff, 0xff, 0] + post(B, SEND, L4096)
    + poll(2) + ahead(MS4) + poll(2),
    "ctrl_neigh_to_lcore1": [V4] + [A | CTRL, 0x08 | 0x02, A | CTRL, 0x04 | 0x02 | 0x30]
    + post(B, SEND, L64) + poll(4),
    "arp_request_from_peer": [V4, A | FRAME] + arp(0x80, PEER) + poll(2),
    "arp_request_from_third": [V4, A | FRAME] + arp(0x81 | 0x0c, THIRD) + poll(2),
    "arp_reply_unsolicited": [V4, A | FRAME] + arp(0x03, THIRD) + poll(2),
    "arp_offsubnet_sender": [V4, A | FRAME] + arp(0x80, OFFNET) + poll(2),
    "arp_broadcast_and_zero_senders": [V4, A | FRAME] + arp(0x80, BCAST) + [A | FRAME]
    + arp(0x80, ZERO) + poll(2),
    "nd_solicit_from_peer": [V6, A | FRAME] + nd(NS, LLOPT, P6_GLOBAL, P6_SOLICITED, P6_OURS)
    + poll(2),
    "nd_dad_probe": [V6, A | FRAME] + nd(NS, 0, P6_ANY, P6_SOLICITED, P6_OURS) + poll(2),
    "nd_advert_unsolicited": [V6, A | FRAME]
    + nd(NA, LLOPT | OVERRIDE | SOLICITED, P6_THIRD, P6_OURS, P6_THIRD) + poll(2),
    "nd_bad_hop_limit": [V6, A | FRAME] + nd(NS | 2, LLOPT, P6_LL, P6_SOLICITED, P6_OURS)
    + poll(2),
    # neighbour aging: the pinned entries go stale, then are forgotten; the next SEND parks
    # its frames while ARP (ND) resolves again
    "neigh_forgotten_then_resolved": [V4] + ahead(MS30) + ahead(MS30, 3) + post(A, SEND, L4096)
    + poll(1) + post(B, SEND, L4096) + poll(8),
    "neigh_forgotten_then_resolved_v6": [V6] + ahead(MS30) + ahead(MS30, 3)
    + post(A, SEND, L2048) + poll(8),
    "neigh_probes_unanswered": [V4] + ahead(MS30) + ahead(MS30, 3) + [B | WIRE, 3]
    + post(A, SEND, L4096) + poll(1) + [B | WIRE, 3] + ahead(MS4) + ahead(MS4, 2)
    + ahead(MS4, 3) + poll(2),
    "stale_entry_probed": [V4] + ahead(MS4, 2) + post(A, SEND, L64) + poll(1) + ahead(MS1, 3)
    + poll(2),
    "forced_lcore_ticks": [V4] + [TICK, B | TICK] + post(A, SEND, L64) + poll(2),
    # roce_frame's byte: opcode ops[b % 10] (0 SEND_ONLY, 7 ACK), bits 4-5 ECN, bit 7 from
    # the third address; then the length, the PSN (base, delta) and the AETH syndrome
    "roce_forged_ce": [V4, B | RECV, L64, B | FRAME, ROCE, 0x3c, L1, 0, 0, 0] + poll(2),
    "roce_from_third": [V4, B | FRAME, ROCE, 0x82, L1, 0, 0, 0] + poll(2),
    "roce_forged_ack_v6": [V6] + post(A, WRITE, L4096) + [A | FRAME, ROCE, 0x07, 0, 1, 0, 0]
    + poll(4),
    "raw_frame": [V4, A | FRAME, RAW, 21] + [0x02, 0, 0, 0, 84, 1] + [0x02, 0, 0, 0, 84, 2]
    + [0x88, 0x08, 0x01, 0x01, 0, 8, 0xff, 0xff] + [0] * 22 + poll(1),
    "wire_loss_and_reconnect": [V4] + post(A, SEND, L2048) + poll(1) + [B | WIRE, 0]
    + [WAIT, 7] + [RECONNECT] + post(B, READ, L4096) + poll(4),
    "qp_error_mid_traffic": [V6] + post(A, SEND, L4096) + poll(1) + [B | ERR] + poll(4),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if not name.startswith("regress_"):
            os.remove(os.path.join(OUT, name))
    for name, ops in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(bytes(ops))
    print(f"wrote {len(SEEDS)} seeds to {OUT}")


if __name__ == "__main__":
    main()
