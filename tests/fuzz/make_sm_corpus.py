#!/usr/bin/env python3
"""Seed corpus for the stateful fuzz targets fuzz_cm_sm and fuzz_rc_engine: operation
sequences written by hand, one per scenario, in each target's input encoding (see the header
comment of fuzz_cm_sm.c and fuzz_rc_engine.c). Run from the repository root; writes
tests/fuzz/corpus/cm_sm/ and tests/fuzz/corpus/rc_engine/."""
import os

# ---------------------------------------------------------------- fuzz_cm_sm
# op byte: low 4 bits the operation, bit 4 the side (0 = A, 1 = B)
A, B = 0x00, 0x10
CREATE, LISTEN, CONNECT, ACCEPT, REJECT, DISCONNECT, DESTROY, DESTROY_QP = range(8)
EVENTS, POLL, ADVANCE, INJECT, REPLAY, WIRE, DRAIN, RUN = range(8, 16)
TCP, UDP = 0, 1
# connect's byte: bits 0-1 where to (0 peer, 2 third address, 3 off-link), bit 2 port + 1
PEER, THIRD, OFFLINK = 0, 2, 3
NEWQP, NOQP = 0x00, 0x80  # pick_qp: slot in the low bits, 0x80 = no QP, 0x40 = wrong type
FAST = [0x04, 14, 3]  # pick_param: cm_response_timeout 14 (67 ms), 3 retries


def listen_b(port=0, backlog=3):
    return [B | CREATE, TCP, B | LISTEN, 0, port | backlog << 1]


def connect_a(dst=PEER, qp=NEWQP, param=FAST, ps=TCP):
    return [A | CREATE, ps, A | CONNECT, 0, dst, qp] + param


def establish():
    # B: id 0 listens; A: id 0 connects; B adopts the request as its id 1 and accepts
    return listen_b() + connect_a() + [RUN, RUN, B | ACCEPT, 1, NEWQP, 0, RUN, RUN]


def advance(side, log2_us):
    return [side | ADVANCE, log2_us]


CM_SEEDS = {
    "establish_disconnect_timewait": establish() + [A | DISCONNECT, 0, RUN, RUN]
    + advance(A, 27) + advance(B, 27) + [RUN],
    "establish_destroy_both": establish() + [A | DESTROY, 0, RUN, B | DESTROY, 1, RUN],
    "dreq_lost_retried": establish() + [A | DISCONNECT, 0, B | WIRE, 3]
    + advance(A, 20) + [RUN] + advance(A, 27) + [RUN],
    "no_listener_rej": connect_a() + [RUN, RUN],
    "consumer_reject": listen_b() + connect_a() + [RUN, RUN, B | REJECT, 1, 12, RUN, RUN],
    "req_from_third": listen_b() + [B | INJECT, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0] + [RUN],
    "connect_to_third_times_out": connect_a(dst=THIRD) + advance(A, 17) + advance(A, 18)
    + advance(A, 19) + advance(A, 27) + [RUN],
    "connect_offlink": connect_a(dst=OFFLINK) + [RUN],
    "lost_rep_resent": listen_b() + connect_a() + [RUN, RUN, B | ACCEPT, 1, NEWQP] + FAST
    + [A | WIRE, 3] + advance(B, 18) + [RUN, RUN],
    "every_frame_twice": listen_b() + connect_a() + [B | WIRE, 1, RUN, B | ACCEPT, 1, NEWQP, 0,
                                                     A | WIRE, 1, RUN, B | WIRE, 1, RUN, RUN],
    "reordered": listen_b() + connect_a() + [A | CONNECT, 0, 0, 1, 0] + [B | WIRE, 4, RUN, RUN],
    "connect_without_qp": listen_b() + connect_a(qp=NOQP, param=[0x10, 0x33, 0x22, 0x11, 0])
    + [RUN, RUN, B | ACCEPT, 1, NEWQP, 0, RUN, RUN, A | ACCEPT, 0, NEWQP, 0, RUN, RUN],
    "replay_req_and_rep": listen_b() + connect_a() + [RUN, B | REPLAY, 0, 0, RUN,
                                                      B | ACCEPT, 1, NEWQP, 0,
                                                      A | REPLAY, 0, 1, RUN, RUN],
    "half_open_expires": listen_b() + connect_a(param=[0]) + [RUN, RUN] + advance(B, 27)
    + [RUN, RUN],
    "mra_on_slow_accept": listen_b() + connect_a() + [RUN, RUN] + advance(A, 17)
    + [RUN, RUN] + advance(A, 18) + [RUN, B | ACCEPT, 1, NEWQP, 0, RUN, RUN],
    "destroy_qp_mid_connect": listen_b() + connect_a() + [A | DESTROY_QP, 0, RUN, RUN,
                                                          B | ACCEPT, 1, NEWQP, 0, RUN, RUN,
                                                          A | DISCONNECT, 0, RUN],
    "sidr_resolve": [B | CREATE, UDP, B | LISTEN, 0, 6] + connect_a(ps=UDP)
    + [RUN, RUN, B | ACCEPT, 1, NEWQP, 0, RUN, RUN],
    "sidr_reject": [B | CREATE, UDP, B | LISTEN, 0, 6] + connect_a(ps=UDP)
    + [RUN, RUN, B | REJECT, 1, 0, RUN, RUN],
    "backlog_full": listen_b(backlog=0) + connect_a() + [RUN, RUN],
    "wrong_qp_type": listen_b() + connect_a(qp=0x40) + [RUN, RUN],
    "events_unread": listen_b() + connect_a() + [POLL, 15, B | POLL, 15, B | ACCEPT, 1]
    + [A | EVENTS, 7, B | EVENTS, 7],
}

# ---------------------------------------------------------------- fuzz_rc_engine
# header byte: bits 0-1 A's first send PSN (0: 0, 1: 2^24 - 1 - next byte & 15, 2: next four
# bytes, 3: 2^23 - next byte & 15), bits 2-3 B's, bit 4 MTU 256, bit 5 infinite RNR retry,
# bit 6 retry count 7, bit 7 responders accept one READ/atomic at a time
# then the ACK timeout byte: 4.096 us * 2^(1 + low 4 bits); 11 (16 ms) does not fire within
# an input unless something is lost, 0 (8 us) fires between polls
SLOW, FAST_TO = 11, 0
HDR = [0x00, SLOW]
WRAP = [0x05, SLOW, 2, 5]  # both directions wrap after 3 and 6 PSNs
HALF = [0x0F, SLOW, 1, 1]  # both start just below 2^23
MTU256_WRAP = [0x15, SLOW, 0, 1]
LOSSY_WRAP = [0x45, FAST_TO, 2, 5]  # 8 us timeout, retry count 7
SEND, SEND_IMM, WRITE, WRITE_IMM, READ, CAS, FAA = range(7)
R_POST, R_RECV, R_POLL, R_WIRE, R_INJECT = 0, 2, 3, 4, 5
R_DEREG, R_REREG, R_DESTROY, R_ERR, R_CQ, R_WAIT, R_RECONNECT, R_RUN = 7, 8, 9, 10, 11, 12, 13, 14
SIG = 1
# pick_len: bytes below 0x80 index 0, 1, 4, 8, 255, 256, 257, 1023, 1024, 1025, 2048, 3000,
# 4096, 5000, 8192, 12
L0, L1, L8, L1024, L1025, L3000, L5000 = 0, 1, 3, 8, 9, 11, 13
LIVE = 0  # pick_rkey: the peer's live rkey


def post(side, op, length, flags=SIG, off=0, roff=0x1000):
    rec = [side | R_POST, op, flags, length, off & 0xFF, off >> 8, roff & 0xFF, roff >> 8, LIVE]
    if op in (CAS, FAA):
        rec += [5, 7]
    return rec


def recv(side, length, off=0x2000):
    return [side | R_RECV, length, off & 0xFF, off >> 8]


def run(n=1):
    return [R_RUN] * n


# inject: opcode index into fuzz_rc_engine.c's rc_ops (the RC opcodes 0x00-0x14, 0x16, 0x17
# in order, so index = opcode up to 0x14); PSN base: 0 responder's expected, 2 completer's
# oldest unacknowledged, 4 requester's next
EXPECTED, OLDEST, NEXT = 0, 2, 4


def inject(side, opcode, base, delta, length=L0, extra=()):
    idx = opcode if opcode <= 0x14 else opcode - 1
    return [side | R_INJECT, idx, base, delta & 0xFF, length] + list(extra) + [0, 0]


ACK = lambda credits=0: [0x00 | credits, 0]  # noqa: E731 (AETH syndrome byte, MSN delta)
RNR = lambda timer=1: [0x40 | timer, 0]  # noqa: E731
NAK_SEQ = [0x80, 0]
NAK_INV = [0x81, 0]
RC_SEEDS = {
    "send_recv": HDR + recv(B, L5000) + post(A, SEND, L5000) + run(2),
    "send_recv_8us_timeout": [0x00, FAST_TO] + recv(B, L5000) + post(A, SEND, L5000) + run(2),
    "send_wrap": WRAP + recv(B, L5000) + recv(B, L5000) + post(A, SEND, L5000)
    + post(A, SEND_IMM, L3000) + run(3),
    "write_read_wrap": WRAP + post(A, WRITE, L5000) + post(A, READ, L5000)
    + post(B, READ, L3000) + run(3),
    "atomics_wrap": WRAP + post(A, CAS, L8) + post(A, FAA, L8) + post(B, FAA, L8)
    + post(A, FAA, 0x81, roff=0x1008) + run(2),
    "write_imm_mtu256": MTU256_WRAP + recv(B, L1) + post(A, WRITE_IMM, L3000) + run(3),
    "half_space_psn": HALF + post(A, WRITE, L5000) + post(B, READ, L5000) + run(3),
    "go_back_n_lost_request": LOSSY_WRAP + post(A, WRITE, L5000) + [R_POLL, 0, B | R_WIRE, 0]
    + run(1) + [R_WAIT, 5] + run(2),
    "read_response_lost": LOSSY_WRAP + post(A, READ, L5000) + [R_POLL, 1, A | R_WIRE, 0] + run(1)
    + [R_WAIT, 6] + run(2),
    "reordered_both_ways": LOSSY_WRAP + post(A, WRITE, L5000) + post(A, READ, L3000)
    + [R_POLL, 0, B | R_WIRE, 4, R_POLL, 1, A | R_WIRE, 4] + run(3),
    "duplicated": HDR + recv(B, L3000) + post(A, SEND, L3000) + [B | R_WIRE, 1] + run(1)
    + [A | R_WIRE, 1] + run(2),
    "rnr_then_recv": [0x20, SLOW] + post(A, SEND, L1024) + run(1) + [R_WAIT, 6] + recv(B, L1024)
    + [R_WAIT, 7] + run(2),
    "forged_ack_ahead": HDR + post(A, WRITE, L5000) + inject(A, 0x11, OLDEST, 3, extra=ACK())
    + run(2),
    "forged_nak_seq": WRAP + post(A, WRITE, L5000) + [R_POLL, 0]
    + inject(A, 0x11, OLDEST, 1, extra=NAK_SEQ) + run(2),
    "forged_rnr_nak": HDR + post(A, SEND, L1024) + inject(A, 0x11, OLDEST, 0, extra=RNR())
    + [R_WAIT, 7] + run(2),
    "forged_nak_invalid": HDR + post(A, WRITE, L1024) + inject(A, 0x11, OLDEST, 0, extra=NAK_INV)
    + run(2),
    "forged_read_response_middle": HDR + post(A, READ, L5000)
    + inject(A, 0x0e, OLDEST, 1, L1024) + run(2),
    "forged_dup_read_request": WRAP + post(A, WRITE, L1024) + run(2)
    + inject(B, 0x0c, EXPECTED, -1, extra=[0x00, 0x10, LIVE, L1024]) + run(2),
    "forged_send_first_middle": HDR + recv(B, L3000)
    + inject(B, 0x00, EXPECTED, 0, L1024) + inject(B, 0x01, EXPECTED, 0, L1024)
    + inject(B, 0x02, EXPECTED, 0, L8) + run(2),
    "forged_write_gap": WRAP + inject(B, 0x06, EXPECTED, 0, L1024, [0, 0x10, LIVE, L3000])
    + inject(B, 0x08, EXPECTED, 1, L8) + run(2),
    "forged_atomic_dup": HDR + inject(B, 0x14, EXPECTED, 0, extra=[0x08, 0x10, LIVE, 1, 2])
    + run(1) + inject(B, 0x14, EXPECTED, -1, extra=[0x08, 0x10, LIVE, 1, 2]) + run(1),
    "dereg_mid_flight": HDR + post(A, WRITE, L5000) + [A | R_DEREG] + post(B, READ, L3000)
    + [B | R_DEREG] + run(2) + [A | R_REREG] + post(A, WRITE, L1024) + run(2),
    "destroy_mid_read": [0x40, FAST_TO] + post(A, READ, L5000) + [R_POLL, 1, B | R_DESTROY] + run(1)
    + [R_WAIT, 7] + run(1),
    "err_flushes_queue": HDR + post(A, SEND, L1024) + post(A, WRITE, L1024, flags=0)
    + post(A, READ, L1024) + recv(A, L1024) + [A | R_ERR] + run(2),
    "send_queue_full_lossy": [0x40, FAST_TO] + post(A, WRITE, L1024) * 17 + run(4),
    "reconnect_wrap": HDR + post(A, WRITE, L5000) + [R_RECONNECT] + WRAP + recv(B, L5000)
    + post(A, SEND, L5000) + run(2),
    "too_many_reads": [0x80, SLOW] + post(A, READ, L1024) * 3 + post(A, FAA, L8) + run(8),
}


def write(dirname, seeds):
    out = os.path.join("tests/fuzz/corpus", dirname)
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for name, ops in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(ops))
    print(f"wrote {len(seeds)} seeds to {out}")


def main():
    write("cm_sm", CM_SEEDS)
    if RC_SEEDS:
        write("rc_engine", RC_SEEDS)


if __name__ == "__main__":
    main()
