#!/usr/bin/env python3
"""A second NLM client host for tests/interop/nfs_lock.sh, run in droce's namespace: it locks
files of droce-nfsd's export as host "peer" (svid 4242, oh "4242@peer"), so the VM's locks
meet a conflict that droce decides (locks between two processes of one Linux client are
settled by that client's kernel before any NLM call). Written from XNFS §14 (NLM v4) and
RFC 1813 (MOUNT MNT, NFSv3 LOOKUP), ONC RPC over TCP with record marking (RFC 5531 §11).
  nlm_peer.py SERVER EXPORT FILE lock|unlock|test
lock is NM_LOCK (non-blocking, not monitored: droce must not notify this fake host), of the
whole file, exclusive. Prints the NLM status (test: and the holder's svid and range)."""
import socket
import struct
import sys
import time

SRV, EXPORT, NAME, CMD = sys.argv[1:5]
STATS = ["GRANTED", "DENIED", "DENIED_NOLOCKS", "BLOCKED", "DENIED_GRACE_PERIOD", "DEADLCK",
         "ROFS", "STALE_FH", "FBIG", "FAILED"]


def W(*v):
    return b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)


def S(b):
    b = b.encode() if isinstance(b, str) else b
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


class R:
    def __init__(self, b):
        self.b, self.o = b, 0

    def u(self):
        v = struct.unpack_from("!I", self.b, self.o)[0]
        self.o += 4
        return v

    def s(self):
        n = self.u()
        v = self.b[self.o:self.o + n]
        self.o += n + (-n % 4)
        return v


def call(port, prog, vers, proc, args):
    s = socket.create_connection((SRV, port), timeout=20)
    xid = int(time.time() * 1000) & 0xFFFFFFFF
    cred = W(0) + S("peer") + W(0, 0, 0)
    msg = W(xid, 0, 2, prog, vers, proc, 1) + S(cred) + W(0, 0) + args
    s.sendall(W(0x80000000 | len(msg)) + msg)
    buf = b""
    while True:
        hdr = s.recv(4, socket.MSG_WAITALL)
        m = struct.unpack("!I", hdr)[0]
        buf += s.recv(m & 0x7FFFFFFF, socket.MSG_WAITALL)
        if m & 0x80000000:
            break
    s.close()
    r = R(buf)
    if r.u() != xid or r.u() != 1 or r.u() != 0:
        sys.exit("bad reply")
    r.u(), r.s()
    if r.u() != 0:
        sys.exit("call not accepted")
    return r


r = call(20048, 100005, 3, 1, S(EXPORT))
if r.u() != 0:
    sys.exit("MNT refused")
root = r.s()
r = call(2049, 100003, 3, 3, S(root) + S(NAME))
if r.u() != 0:
    sys.exit("LOOKUP %s refused" % NAME)
fh = r.s()
lock = S("peer") + S(fh) + S("4242@peer") + W(4242) + W(0, 0) + W(0, 0)
for _ in range(30):  # through the grace period: NLM4_DENIED_GRACE_PERIOD, retried as Linux does
    if CMD == "lock":
        r = call(4045, 100021, 4, 22, S(b"peer") + W(0, 1) + lock + W(0, 1))
    elif CMD == "unlock":
        r = call(4045, 100021, 4, 4, S(b"peer") + lock)
    else:
        r = call(4045, 100021, 4, 1, S(b"peer") + W(1) + lock)
    r.s()
    st = r.u()
    if st != 4:
        break
    time.sleep(2)
out = "%s %s" % (CMD, STATS[st] if st < len(STATS) else st)
if CMD == "test" and st == 1:
    excl, svid, oh = r.u(), r.u(), r.s()
    out += " holder svid %d oh %r offset %d len %d" % (svid, oh.decode(errors="replace"),
                                                      (r.u() << 32) | r.u(), (r.u() << 32) | r.u())
print(out)
