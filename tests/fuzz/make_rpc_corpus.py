#!/usr/bin/env python3
"""Seed corpora for the rpc/ fuzz targets. Run from the repository root.
- rpcrdma_hdr: RPC-over-RDMA headers (with their inline RPC message) taken from the RC SEND
  ONLY payloads of tests/data/nfs_rdma_full.pcap (Linux 6.1 xprtrdma/svcrdma), one of each
  shape, plus an RDMA_ERROR built from RFC 8166 §4.2.4.1;
- orpc_svc: RPC calls built from RFC 5531 §9 for the test programs (tests/rpc/orpc_testprog.h)
  and the portmapper: NULL, ECHO, WHOAMI with AUTH_SYS, PMAP GETPORT and DUMP, RPCBIND GETADDR;
- orpc_rm: record-marked streams (RFC 5531 §11): one record, three fragments, two records,
  each input led by one byte that tells the fuzzer how to split the stream."""
import os
import struct

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)


def pcap_frames(path):
    d = open(path, "rb").read()
    off = 24
    while off + 16 <= len(d):
        n = struct.unpack_from("<I", d, off + 8)[0]
        yield d[off + 16:off + 16 + n]
        off += 16 + n


def send_payloads(path):
    for f in pcap_frames(path):
        if len(f) < 14 + 20 + 8 + 12 + 4 or f[12:14] != b"\x08\x00" or f[23] != 17:
            continue
        ihl = (f[14] & 15) * 4
        udp = 14 + ihl
        if struct.unpack_from("!H", f, udp + 2)[0] != 4791:
            continue
        bth = udp + 8
        op = f[bth]
        if op == 0x04:
            yield f[bth + 12:-4]
        elif op == 0x17:
            yield f[bth + 16:-4]


def write(dirname, name, data):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, name), "wb") as fp:
        fp.write(data)


def rpcrdma():
    seen = {}
    for p in send_payloads("tests/data/nfs_rdma_full.pcap"):
        proc, = struct.unpack_from("!I", p, 12)
        shape = (proc, p[16:20] != b"\0\0\0\0", len(p) > 28 and p[20:24] != b"\0\0\0\0")
        if shape not in seen:
            seen[shape] = p
    for i, p in enumerate(seen.values()):
        write("tests/fuzz/corpus/rpcrdma_hdr", f"nfs_rdma_full_{i}", p)
    write("tests/fuzz/corpus/rpcrdma_hdr", "built_err_vers",
          b"\xa6\xbf\xac\x23" + W(1, 0, 4, 1, 1, 1))


def call(prog, vers, proc, cred=W(0, 0)):
    return W(0x1234, 0, 2, prog, vers, proc) + cred + W(0, 0)


def svc():
    d = "tests/fuzz/corpus/orpc_svc"
    sys_cred = W(1, 32, 1, 5) + b"droce\0\0\0" + W(1000, 100, 2, 1, 2)
    write(d, "null", call(0x20000099, 1, 0))
    write(d, "echo", call(0x20000099, 2, 1) + W(5) + b"hello\0\0\0")
    write(d, "whoami_sys", call(0x20000098, 1, 1, sys_cred))
    write(d, "pmap_getport", call(100000, 2, 3) + W(0x20000099, 1, 6, 0))
    write(d, "pmap_dump", call(100000, 2, 4))
    write(d, "rpcb_getaddr", call(100000, 4, 3) + W(0x20000099, 1, 3) + b"tcp\0" + W(0, 0))
    write(d, "rpcb_dump", call(100000, 3, 4))


def rm():
    d = "tests/fuzz/corpus/orpc_rm"
    rec = call(0x20000099, 1, 0)
    write(d, "one", b"\x07" + W(0x80000000 | len(rec)) + rec)
    write(d, "three_frags", b"\x03" + W(10) + rec[:10] + W(0) + W(0x80000000 | (len(rec) - 10)) + rec[10:])
    write(d, "two", b"\x40" + (W(0x80000000 | len(rec)) + rec) * 2)
    write(d, "empty", b"\x01" + W(0x80000000))


rpcrdma()
svc()
rm()
