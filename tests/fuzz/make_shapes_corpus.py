#!/usr/bin/env python3
"""Seed corpus for fuzz_roce_shapes: operation sequences written by hand, one per scenario,
in the target's input encoding (see the header comment of fuzz_roce_shapes.c and the
functions it names below). Run from the repository root; writes tests/fuzz/corpus/roce_shapes/
(the regress_* seeds, inputs that once failed, are kept as they are)."""
import os

OUT = "tests/fuzz/corpus/roce_shapes"

# header byte (connect_all)
V6, UC_SRQ, MTU256, WRAP, CC, NO_ATOMIC, FAST_TO = 1, 2, 4, 8, 0x10, 0x20, 0x40
# operation byte: low 4 bits, side in bit 4, QP kind in bits 5-6 (step)
POST, RECV, POLL, WIRE, FORGE, REG_MR, LOCAL_INV, FR_TOGGLE, ERR, RESET, WAIT, RUN = (
    0, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 14)
A, B = 0x00, 0x10
RC, UC, UD = 0x00, 0x20, 0x40
# post_send opcodes (ops[] index)
SEND, SEND_IMM, WRITE, WRITE_IMM, READ, CAS, FAA, SEND_INV = range(8)
SIG, FENCE, SOLICITED, INLINE, TWO_SGE = 1, 2, 4, 8, 0x10
# pick_len: bytes below 0x80 index 0, 1, 8, 24, 40, 41, 255, 256, 257, 1000, 1024, 1025,
# 1064, 2048, 3000, 4096
L0, L1, L8, L24, L40, L41, L255, L256, L257, L1000, L1024, L1025, L1064, L2048, L3000, L4096 = \
    range(16)
MAIN = [0x00]  # pick_rkey: the main region's key


def fr_key(i):
    return [0x60 + i]  # pick_rkey: fast-registration region i's last key


def main_sge(off=0):
    return [0x00, off & 0xFF, off >> 8]


def fr_sge(i, off=0):
    return [(3, 7, 11)[i], off & 0xFF, off >> 8]  # pick_sge: b & 3 == 3, b % 3 == i


def post(side, kind, op, length, flags=SIG, sge=None, rkey=MAIN, raddr=0x100, fr_iova=False,
         ud=0x00, imm=0):
    rec = [side | kind | POST, op, flags, length] + (sge or main_sge())
    rec += rkey if op == SEND_INV else [imm]
    if kind == UD:
        rec += [ud]  # bit 0 the IPv6 handle; 0: the peer's UD QP with the right Q_Key
    elif op in (CAS, FAA):
        rec += rkey + [raddr & 0xFF, raddr >> 8, 3, 5]
    else:
        rec += [1 if fr_iova else 0] + rkey + [raddr & 0xFF, raddr >> 8]
    return rec


def recv(side, kind, length, off=0, two=False, fr=None):
    """post_recv's flag byte: bit 2 two SGEs; f & 3 == 3 into region f % 3."""
    f = 4 if two else 0
    if fr is not None:
        f = ({0: 15, 1: 7, 2: 23} if two else {0: 3, 1: 19, 2: 11})[fr]
    return [side | kind | RECV, f, length, off & 0xFF, off >> 8]


ALL, LW, RR, LW_RW, RR_LW = 0, 1, 2, 3, 7  # reg_mr rights (index into rights[])


def reg_mr(side, i, rights=ALL, key=0x11, off=0, length=L1024, sig=True):
    """reg_mr's first byte: region b % 3, rights (b >> 2) & 7, bit 6 clear, bit 7 signaled."""
    b = next(b for b in range(256) if b % 3 == i and (b >> 2) & 7 == rights
             and not b & 0x40 and bool(b & 0x80) == sig)
    return [side | REG_MR, b, key, off & 0xFF, off >> 8, length, 0, 0]


def local_inv(side, i):
    return [side | LOCAL_INV] + fr_key(i)


def run(n=1):
    return [RUN] * n


# forge: shape byte (family, ICRC, segments, source, tag), layout byte (kind, raw, UDP
# checksum, trailing bytes), then build_transport's fields
V4, V4_OPT, V6F, RAW_FRAME = 0, 1, 2, 3
KEEP_ICRC, BAD_ICRC, SPLIT_HDR, SPLIT_ANY, THIRD, PRIO_TAG = 4, 8, 0x10, 0x20, 0x40, 0x80
L_UC, L_UD, L_RAW, L_CSUM, L_TRAIL, L_TRAIL_IN_IP = 1, 2, 4, 8, 0x10, 0x20
EXPECTED = [0, 0]  # pick_psn: the responder's expected PSN, delta 0


def forge_built(side, shape, lay, opidx, length=L0, extra=(), psn=EXPECTED, tail=()):
    """A frame whose transport bytes roce_tx_build() makes: opcode index into the kind's
    table, PSN, length, the extension fields the opcode needs (extra), then imm, then the
    frame's own fields (tail: trailing count, tag, options, TOS/TTL or TC/FL, sport...)."""
    return [side | FORGE, shape, lay, opidx] + psn + [length] + list(extra) + [0] + list(tail)


SEEDS = {
    "uc_send_recv_v4": [0] + recv(B, UC, L1000) + post(A, UC, SEND, L255) + run(2),
    "uc_write_imm_v6": [V6] + recv(B, UC, L40) + post(A, UC, WRITE_IMM, L2048) + run(3),
    "uc_on_srq_multi_packet": [UC_SRQ | MTU256] + recv(B, UC, L1064, two=True)
    + post(A, UC, SEND, L1000) + recv(B, RC, L1024, off=0x800) + post(A, RC, SEND, L257) + run(3),
    "uc_message_too_long": [0] + recv(B, UC, L24) + post(A, UC, SEND, L1025) + run(2),
    "ud_send_v4_and_v6": [0] + recv(B, UD, L1064) + recv(B, UD, L1064, off=0x800)
    + post(A, UD, SEND, L1000) + post(A, UD, SEND_IMM, L8, ud=1) + run(2),
    "ud_grh_only_buffer": [0] + recv(B, UD, L40) + recv(B, UD, L41, off=0x100)
    + post(A, UD, SEND, L1) + post(A, UD, SEND, L1) + run(2),
    "ud_wrong_qkey": [0] + recv(B, UD, L256) + post(A, UD, SEND, L8, ud=0x20) + [0, 0, 0, 0]
    + run(2),
    "rc_srq_send_write_read": [WRAP] + recv(B, RC, L3000, two=True)
    + post(A, RC, SEND, L2048) + post(A, RC, WRITE, L3000) + post(A, RC, READ, L1025) + run(3),
    "rc_atomics_cc": [CC] + post(A, RC, CAS, L8) + post(A, RC, FAA, L8, raddr=0x108) + run(2),
    "frmr_write_then_send_inv": [0] + reg_mr(A, 0, ALL) + run(1)
    + post(B, RC, WRITE, L1000, rkey=fr_key(0), raddr=0, fr_iova=True) + run(1)
    + recv(A, RC, L256) + post(B, RC, SEND_INV, L8, rkey=fr_key(0)) + run(2)
    + post(B, RC, WRITE, L8, rkey=fr_key(0), raddr=0, fr_iova=True) + run(2),
    "frmr_local_inv_then_read": [0] + reg_mr(B, 1, RR_LW) + run(1)
    + post(A, RC, READ, L256, rkey=fr_key(1), raddr=0, fr_iova=True) + run(1)
    + local_inv(B, 1) + run(1)
    + post(A, RC, READ, L256, rkey=fr_key(1), raddr=0, fr_iova=True) + run(2),
    "frmr_send_from_region": [0] + reg_mr(A, 2, LW, off=64) + run(1) + recv(B, RC, L1024)
    + post(A, RC, SEND, L255, sge=fr_sge(2)) + local_inv(A, 2) + run(3),
    "frmr_dealloc_realloc": [0] + [A | FR_TOGGLE, 0, A | FR_TOGGLE, 0] + reg_mr(A, 0, LW_RW)
    + run(2),
    # B takes the SRQ's WQE with a forged SEND_FIRST, then its QP fails: the WQE is flushed
    "err_flushes_srq_wqe": [MTU256] + recv(B, RC, L1024)
    + forge_built(B, V4, 0, 0, L256, tail=[0, 64, 0, 0]) + [B | RC | ERR] + run(2),
    "reset_uc_pair": [0] + recv(B, UC, L256) + [UC | RESET] + recv(B, UC, L256)
    + post(A, UC, SEND, L8) + run(2),
    "wire_dup_and_reorder": [FAST_TO] + recv(B, UC, L1064) + post(A, UC, SEND, L1000)
    + [POLL, 0, B | WIRE, 1] + post(A, RC, WRITE, L3000) + [POLL, 0, B | WIRE, 4, WAIT, 5]
    + run(2),
    # forged frames of each shape, aimed at B's UC QP (expected PSN, SEND_ONLY = index 4)
    "forge_uc_send_v4": [0] + recv(B, UC, L256)
    + forge_built(B, V4, L_UC, 4, L8, tail=[0x02, 64, 0, 0]) + run(1),
    "forge_uc_send_v4_options": [0] + recv(B, UC, L256)
    + forge_built(B, V4_OPT, L_UC, 4, L8, tail=[3, 0x02, 64] + [1] * 16 + [0, 0]) + run(1),
    "forge_uc_send_v6_split": [V6] + recv(B, UC, L256)
    + forge_built(B, V6F | SPLIT_HDR, L_UC, 4, L40, tail=[0x78, 0x56, 0x34, 0xf2, 0, 0])
    + run(1),
    "forge_ud_v6_tagged_csum": [0] + recv(B, UD, L256)
    + forge_built(B, V6F | PRIO_TAG, L_UD | L_CSUM, 0, L24, extra=[0],
                  tail=[3 << 5, 0, 0, 0, 0xf0, 0, 0]) + run(1),
    # cut in the payload (BTH at 42, DETH to 62) and again 100 bytes on; Ethernet padding
    "forge_ud_v4_pad_three_segments": [0] + recv(B, UD, L1064)
    + forge_built(B, V4 | SPLIT_ANY, L_UD | L_TRAIL, 0, L255, extra=[0],
                  tail=[7, 0, 64, 0, 0, 70, 0, 100]) + run(1),
    # the same cut through the IPv4 header: a segmented-headers drop
    "forge_ud_v4_headers_split": [0] + recv(B, UD, L256)
    + forge_built(B, V4 | SPLIT_ANY, L_UD, 0, L8, extra=[0], tail=[0, 64, 0, 0, 30, 0, 40])
    + run(1),
    "forge_rc_send_trail_in_ip": [0] + recv(B, RC, L256)
    + forge_built(B, V4, L_TRAIL | L_TRAIL_IN_IP, 4, L8, tail=[3, 0, 64, 0, 0]) + run(1),
    "forge_rc_send_udp_csum": [0] + recv(B, RC, L256)
    + forge_built(B, V4, L_CSUM, 4, L255, tail=[0, 64, 0, 0]) + run(1),
    "forge_bad_icrc_v6": [V6] + recv(B, UC, L256)
    + forge_built(B, V6F | BAD_ICRC, L_UC, 4, L8, tail=[0, 0, 0, 0, 0, 0, 5]) + run(1),
    "forge_kept_icrc_v4": [0]
    + forge_built(B, V4 | KEEP_ICRC, L_UC, 4, L8, tail=[0, 64, 0, 0, 1, 2, 3, 4]) + run(1),
    "forge_ce_mark_cc": [CC] + recv(B, RC, L256)
    + forge_built(B, V4, 0, 4, L8, tail=[0x03, 64, 0, 0]) + run(1),
    # 20 raw transport bytes (a UC SEND_ONLY BTH and 8 payload bytes), aimed at B's UC QP
    "forge_raw_transport": [0] + recv(B, UC, L256)
    + [B | FORGE, V4, L_RAW | L_UC, 4, 0x24, 0x40, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]
    + [0x11, 0x22, 0x33, 0x44, 1, 0, 64, 0] + [1, 0, 64, 0, 0] + run(1),
    # the input's own 42-byte frame: an ARP request from the peer's MAC
    "forge_raw_frame": [0] + [B | FORGE, RAW_FRAME, 0, 42, 0] + [0x02, 0, 0, 0, 0x53, 2]
    + [0x02, 0, 0, 0, 0x53, 1] + [0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1] + [0x02, 0, 0, 0, 0x53, 1]
    + [10, 83, 0, 1] + [0] * 6 + [10, 83, 0, 2] + run(1),
    # issue 11 item 1, the local side: data for a receive, a READ or an atomic whose region
    # was invalidated after the post must not be written (ASan: use-after-poison before)
    "regress_rc_recv_into_invalidated_region": [0] + reg_mr(A, 0, LW) + run(1)
    + recv(A, RC, L255, fr=0) + local_inv(A, 0) + run(1) + post(B, RC, SEND, L255) + run(2),
    "regress_uc_recv_into_invalidated_region": [0] + reg_mr(A, 1, LW) + run(1)
    + recv(A, UC, L255, fr=1) + local_inv(A, 1) + run(1) + post(B, UC, SEND, L255) + run(2),
    "regress_ud_recv_into_invalidated_region": [V6] + reg_mr(A, 2, LW) + run(1)
    + recv(A, UD, L1000, fr=2) + local_inv(A, 2) + run(1) + post(B, UD, SEND, L255, ud=1)
    + run(2),
    "regress_read_into_invalidated_region": [0] + reg_mr(A, 0, LW) + run(1)
    + post(A, RC, READ, L1000, sge=fr_sge(0)) + local_inv(A, 0) + [POLL, 0] + run(2),
    "regress_atomic_into_invalidated_region": [0] + reg_mr(A, 0, LW) + run(1)
    + post(A, RC, FAA, L8, sge=fr_sge(0)) + local_inv(A, 0) + [POLL, 0] + run(2),
    # a UC SEND loses its MIDDLE: its receive WQE is kept for the next message, which is a
    # WRITE with immediate (UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, index 11), then a SEND: the
    # WRITE must take the kept WQE (it took the next one, which the SEND completed again)
    "regress_uc_kept_wqe_write_imm": [0] + recv(B, UC, L1064) + recv(B, UC, L1064, off=0x800)
    + forge_built(B, V4, L_UC, 0, L1024, tail=[0, 64, 0, 0])
    + forge_built(B, V4, L_UC, 2, L8, psn=[0, 1], tail=[0, 64, 0, 0])
    + forge_built(B, V4, L_UC, 11, L8, psn=[0, 1], extra=[0, 0, 0] + MAIN + [L8],
                  tail=[0, 64, 0, 0])
    + forge_built(B, V4, L_UC, 4, L24, tail=[0, 64, 0, 0]) + run(1),
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
