#!/usr/bin/env python3
"""Seeds for fuzz_nfsperf4 (droce-nfsperf's NFSv4.1 reply decoder): COMPOUND4res replies
written by hand from RFC 8881 (§16.2.2 COMPOUND4res, §18.46 SEQUENCE, §18.22 READ, §18.32
WRITE, §18.16 OPEN, §18.8 GETFH, §18.7 GETATTR), the shapes droce-nfsperf receives."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "nfsperf4")
os.makedirs(out, exist_ok=True)


def w(*v):
    return b"".join(struct.pack(">I", x) for x in v)


def opaque(b):
    return w(len(b)) + b + b"\0" * (-len(b) % 4)


SID = bytes(range(16))
# SEQUENCE4resok: sessionid, sequenceid, slotid, highest_slotid, target_highest_slotid, flags
seq = w(53, 0) + SID + w(5, 1, 7, 3, 0)
seeds = {
    # SEQUENCE, PUTFH, READ (eof, 9 bytes)
    "read": w(0) + opaque(b"") + w(3) + seq + w(22, 0) + w(25, 0, 1) + opaque(b"ninebytes"),
    # SEQUENCE, PUTFH, WRITE (count 4096, UNSTABLE4, verifier)
    "write": w(0) + opaque(b"") + w(3) + seq + w(22, 0) + w(38, 0, 4096, 0) + b"verifier",
    # SEQUENCE failed with NFS4ERR_DELAY
    "delay": w(10008) + opaque(b"") + w(1) + w(53, 10008),
    # SEQUENCE, PUTFH, OPEN (stateid, cinfo, rflags, attrset, OPEN_DELEGATE_NONE), GETFH,
    # GETATTR (type NF4REG, size 8192)
    "open": w(0) + opaque(b"") + w(5) + seq + w(22, 0) + w(18, 0, 1) + bytes(12) +
            w(1, 0, 1, 0, 2, 4, 1, 0x2, 0) + w(10, 0) + opaque(b"handle-bytes") +
            w(9, 0, 1, (1 << 1) | (1 << 4)) + opaque(w(1, 0, 8192)),
    # a tag, and a READ cut short
    "cut": w(0) + opaque(b"tag") + w(3) + seq + w(22, 0) + w(25, 0, 0, 100) + b"short",
}
for name, b in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(b)
