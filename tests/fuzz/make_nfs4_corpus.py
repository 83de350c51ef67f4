#!/usr/bin/env python3
"""Seed corpus for tests/fuzz/fuzz_nfs4_compound.c: COMPOUND4args built by hand from RFC 8881
§16.2.3 and §18 (the shapes Linux 6.1's client sends: EXCHANGE_ID with an implementation id,
CREATE_SESSION with AUTH_SYS callback parameters, SEQUENCE first), plus the dispatcher's error
cases (minor version 0, an undefined opcode, a 4.2 operation, arguments cut short). The session
id of a seed cannot be known in advance: a run makes sessions of its own from the
EXCHANGE_ID/CREATE_SESSION seeds (client ids are the server's boot epoch and a counter).
Run from the repository root."""
import os
import struct

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)
H = lambda v: struct.pack("!Q", v)


def S(s):
    b = s.encode() if isinstance(s, str) else s
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


def compound(ops, minor=1, tag=""):
    return S(tag) + W(minor, len(ops)) + b"".join(ops)


def op(num, body=b""):
    return W(num) + body


CHAN = W(0, 1049620, 1049480, 7584, 8, 64, 0)
SEQ = op(53, b"\x01" * 16 + W(1, 0, 0, 0))
EXID = op(42, b"verf0001" + S("Linux NFSv4.1 client.example") + W(0x00000101, 0)
          + W(1) + S("kernel.org") + S("Linux 6.1.0 #1 SMP x86_64") + H(0) + W(0))
CSESS = op(43, H(1) + W(1, 3) + CHAN + CHAN + W(0x40000000)
           + W(2, 1) + W(0) + S("client") + W(0, 0, 0) + W(0))
GETATTR = op(9, W(3, 0x0010011a, 0x00b0a23a, 0))
seeds = {
    "exchange_id": compound([EXID]),
    "create_session": compound([CSESS]),
    "destroy_session": compound([op(44, b"\x01" * 16)]),
    "destroy_clientid": compound([op(57, H(1))]),
    "bind_conn": compound([op(41, b"\x01" * 16 + W(3, 0))]),
    "sequence_getattr": compound([SEQ, op(24), op(10), GETATTR]),
    "sequence_lookup": compound([SEQ, op(24), op(15, S("srv")), op(16), op(32), op(31),
                                 op(3, W(0x3f)), op(52, W(0))], tag="mount"),
    "reclaim_complete": compound([SEQ, op(58, W(0))]),
    "putfh": compound([SEQ, op(22, S(b"\x80p4\x00" + b"\x00" * 8)), op(9, W(1, 1))]),
    "minor0": compound([op(24)], minor=0),
    "illegal": compound([op(10044)]),
    "minor2_seek": compound([SEQ, op(69, b"\0" * 28)], minor=2),
    "cut_short": compound([SEQ, op(15, W(200) + b"aaaa")]),
    "no_session": compound([op(24), op(10)]),
}
d = os.path.join("tests", "fuzz", "corpus", "nfs4_compound")
os.makedirs(d, exist_ok=True)
for name, b in seeds.items():
    open(os.path.join(d, name), "wb").write(b)
