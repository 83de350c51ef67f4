#!/usr/bin/env python3
"""Seed corpus for tests/fuzz/fuzz_nfs4_cb_reply.c. Run from the repository root.
Replies to the server's callbacks built from RFC 5531 §9 (the RPC REPLY) and RFC 8881 §20,
§20.2, §20.9 (CB_COMPOUND4res with CB_SEQUENCE4res and CB_RECALL4res), each led by the
target's selector byte (bit 0: a CB_COMPOUND; bits 1-2: entries read as callback_sec_parms4);
plus two callback_sec_parms4 lists (RFC 8881 §18.36.1) as CREATE_SESSION carries them."""
import os
import struct

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)
SID = b"\x5a" * 16
ACCEPTED = lambda xid: W(xid, 1, 0, 0, 0, 0)  # REPLY, MSG_ACCEPTED, AUTH_NONE verf, SUCCESS

seeds = {
    "null_ok": b"\x00" + ACCEPTED(7),
    "null_prog_unavail": b"\x00" + W(7, 1, 0, 0, 0, 1),
    "null_prog_mismatch": b"\x00" + W(7, 1, 0, 0, 0, 2, 1, 1),
    "denied_auth": b"\x00" + W(7, 1, 1, 1, 1),
    "denied_rpc_mismatch": b"\x00" + W(7, 1, 1, 0, 2, 2),
    "recall_ok": b"\x01" + ACCEPTED(9) + W(0, 0, 2, 11, 0) + SID + W(3, 0, 0, 0, 4, 0),
    "recall_delay": b"\x01" + ACCEPTED(9) + W(10008, 0, 2, 11, 0) + SID + W(3, 0, 0, 0, 4, 10008),
    "seq_badsession": b"\x01" + ACCEPTED(9) + W(10052, 0, 1, 11, 10052),
    "recall_tagged": b"\x01" + ACCEPTED(9) + W(0, 3) + b"tag\0" + W(2, 11, 0) + SID + W(3, 0, 0, 0, 4, 0),
    "illegal": b"\x01" + ACCEPTED(9) + W(10044, 0, 1, 10044, 10044),
    "sec_sys": b"\x02" + W(1, 5, 4) + b"host" + W(1000, 100, 2, 100, 200),
    "sec_gss_none": b"\x04" + W(6, 1, 0, 0, 0),
}
out = "tests/fuzz/corpus/nfs4_cb_reply"
os.makedirs(out, exist_ok=True)
for name, b in seeds.items():
    open(os.path.join(out, name), "wb").write(b)
