#!/usr/bin/env python3
"""NFSv4.1 against droce-nfsd over TCP: a client written from RFC 8881 (COMPOUNDs by hand,
RPC record marking, AUTH_SYS root) walks what a Linux mount and a small workload send:
NULL, EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, PUTROOTFH + LOOKUP down to the export +
GETFH + GETATTR, SECINFO_NO_NAME, OPEN (create), WRITE + GETATTR, READ, LOCK, LOCKT from a
second client (DENIED naming the holder), LOCKU, CLOSE, READDIR, REMOVE, DESTROY_SESSION and
DESTROY_CLIENTID. Every step is asserted; exit status 0 when all passed.
Usage: nfs4_tcp.py HOST EXPORT_PATH"""
import os
import socket
import struct
import sys

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)
H = lambda v: struct.pack("!Q", v)


def S(b):
    b = b.encode() if isinstance(b, str) else b
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


class R:
    """a reader of XDR words"""

    def __init__(self, b):
        self.b, self.p = b, 0

    def u32(self):
        v = struct.unpack_from("!I", self.b, self.p)[0]
        self.p += 4
        return v

    def u64(self):
        v = struct.unpack_from("!Q", self.b, self.p)[0]
        self.p += 8
        return v

    def raw(self, n):
        v = self.b[self.p:self.p + n]
        self.p += n + (-n % 4)
        return v

    def opaque(self):
        return self.raw(self.u32())


fails = 0


def check(what, ok):
    global fails
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok:
        fails += 1


class Conn:
    def __init__(self, host):
        self.s = socket.create_connection((host, 2049), timeout=10)
        self.xid = 0x1000

    def call(self, proc, body):
        self.xid += 1
        cred = W(0) + S("nfs4-tcp-test") + W(0, 0) + W(0)
        msg = (W(self.xid, 0, 2, 100003, 4, proc) + W(1) + S(cred) + W(0, 0) + body)
        self.s.sendall(W(0x80000000 | len(msg)) + msg)
        data = b""
        while True:
            hdr = self._recv(4)
            n = struct.unpack("!I", hdr)[0]
            data += self._recv(n & 0x7FFFFFFF)
            if n & 0x80000000:
                break
        r = R(data)
        assert r.u32() == self.xid and r.u32() == 1 and r.u32() == 0  # reply, accepted
        r.u32(), r.opaque()  # verifier
        assert r.u32() == 0, "accept_stat"
        return r

    def _recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b


class Client:
    def __init__(self, host, owner):
        self.c = Conn(host)
        self.owner = owner
        self.seq = 0

    def compound(self, ops, seq=True):
        if seq:
            self.seq += 1
            ops = [W(53) + self.sessionid + W(self.seq, 0, 0, 0)] + ops
        r = self.c.call(1, S("") + W(1, len(ops)) + b"".join(ops))
        status = r.u32()
        r.opaque()
        return status, r, r.u32()

    def start(self):
        st, r, n = self.compound([W(42) + b"verf0001" + S(self.owner) + W(0, 0, 0)], seq=False)
        check(f"{self.owner}: EXCHANGE_ID", st == 0)
        r.u32(), r.u32()
        self.clientid, seqid = r.u64(), r.u32()
        chan = W(0, 1049620, 1049480, 7584, 16, 8, 0)
        st, r, n = self.compound([W(43) + H(self.clientid) + W(seqid, 0) + chan + chan
                                  + W(0x40000000) + W(1, 0)], seq=False)
        check(f"{self.owner}: CREATE_SESSION", st == 0)
        r.u32(), r.u32()
        self.sessionid = r.raw(16)
        st, r, n = self.compound([W(58, 0)])
        check(f"{self.owner}: RECLAIM_COMPLETE", st == 0)


def skip_seq(r):
    assert r.u32() == 53 and r.u32() == 0
    r.raw(16), r.raw(20)


def main():
    host, export = sys.argv[1], sys.argv[2]
    a = Client(host, "nfs4-tcp-a")
    st, r, n = a.c.call(0, b""), None, None
    check("NULL of version 4", True)
    a.start()
    comps = [c for c in export.split("/") if c]
    # PUTROOTFH, LOOKUP each component, GETFH, GETATTR(type, fsid), SECINFO_NO_NAME
    ops = [W(24)] + [W(15) + S(c) for c in comps] + [W(10), W(9, 1, 0x102)]
    st, r, n = a.compound(ops)
    check("PUTROOTFH + LOOKUP down to the export + GETFH + GETATTR", st == 0)
    skip_seq(r)
    for _ in range(1 + len(comps)):
        r.u32(), r.u32()
    r.u32(), r.u32()
    root = r.opaque()
    st, r, n = a.compound([W(22) + S(root), W(52, 0)])
    check("SECINFO_NO_NAME", st == 0)
    # OPEN create "f" (UNCHECKED4, mode 0644), GETFH
    mode = W(2, 0, 2) + S(W(0o644))
    open_f = W(18, 0, 3, 0) + H(a.clientid) + S("owner-a") + W(1, 0) + mode + W(0) + S("f")
    st, r, n = a.compound([W(22) + S(root), open_f, W(10)])
    check("OPEN (create) + GETFH", st == 0)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 18 and r.u32() == 0
    sid = r.raw(16)
    r.raw(20)  # cinfo
    r.u32()  # rflags
    for _ in range(r.u32()):
        r.u32()
    check("OPEN: no delegation", r.u32() == 0)
    assert r.u32() == 10 and r.u32() == 0
    fh = r.opaque()
    check("the file exists on the server", os.path.exists(os.path.join(export, "f")))
    # WRITE + GETATTR(size)
    st, r, n = a.compound([W(22) + S(fh), W(38) + sid + H(0) + W(2) + S("hello, nfs4.1"),
                           W(9, 1, 0x10)])
    check("WRITE FILE_SYNC + GETATTR", st == 0)
    with open(os.path.join(export, "f"), "rb") as f:
        check("the data is on the server", f.read() == b"hello, nfs4.1")
    st, r, n = a.compound([W(22) + S(fh), W(25) + sid + H(0) + W(100)])
    check("READ", st == 0)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 25 and r.u32() == 0
    eof = r.u32()
    check("READ: the data and eof", r.opaque() == b"hello, nfs4.1" and eof == 1)
    # LOCK a write lock 0..9; another client's LOCKT is DENIED naming it
    lock = (W(12, 2, 0) + H(0) + H(10) + W(1) + W(0) + sid + W(0) + H(a.clientid)
            + S("lock-owner-a"))
    st, r, n = a.compound([W(22) + S(fh), lock])
    check("LOCK", st == 0)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 12 and r.u32() == 0
    lsid = r.raw(16)
    b = Client(host, "nfs4-tcp-b")
    b.start()
    st, r, n = b.compound([W(22) + S(fh), W(13, 2) + H(5) + H(1) + H(b.clientid) + S("ob")])
    check("another client's LOCKT: DENIED", st == 10010)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 13 and r.u32() == 10010
    off, ln, typ, cid = r.u64(), r.u64(), r.u32(), r.u64()
    check("LOCK4denied names the holder", (off, ln, typ, cid, r.opaque())
          == (0, 10, 2, a.clientid, b"lock-owner-a"))
    st, r, n = a.compound([W(22) + S(fh), W(14, 2, 0) + lsid + H(0) + H(10)])
    check("LOCKU", st == 0)
    st, r, n = b.compound([W(22) + S(fh), W(13, 2) + H(5) + H(1) + H(b.clientid) + S("ob")])
    check("LOCKT after LOCKU: free", st == 0)
    st, r, n = a.compound([W(22) + S(fh), W(4, 0) + sid])
    check("CLOSE", st == 0)
    # READDIR of the export (names), REMOVE f
    st, r, n = a.compound([W(22) + S(root), W(26) + H(0) + b"\0" * 8 + W(4096, 8192)
                           + W(1, 2)])
    check("READDIR", st == 0)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 26 and r.u32() == 0
    r.raw(8)
    names = []
    while r.u32():
        r.u64()
        names.append(r.opaque())
        for _ in range(r.u32()):
            r.u32()
        r.opaque()
    check("READDIR lists f", b"f" in names and b"." not in names)
    st, r, n = a.compound([W(22) + S(root), W(28) + S("f")])
    check("REMOVE", st == 0 and not os.path.exists(os.path.join(export, "f")))
    for c in (a, b):
        st, r, n = c.compound([W(44) + c.sessionid], seq=False)
        check(f"{c.owner}: DESTROY_SESSION", st == 0)
        st, r, n = c.compound([W(57) + H(c.clientid)], seq=False)
        check(f"{c.owner}: DESTROY_CLIENTID", st == 0)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
