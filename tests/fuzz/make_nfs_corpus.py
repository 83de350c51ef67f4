#!/usr/bin/env python3
"""Seed corpora for the nfs/ fuzz targets. Run from the repository root.
- nfs3_xdr: the arguments and results of every NFSv3 call and reply carried whole in an RC
  SEND ONLY (with Invalidate) of tests/data/nfs_rdma_full.pcap (Linux 6.1 xprtrdma against
  knfsd), the first of each procedure and direction, each led by the selector byte
  (proc + 22 * direction) of tests/fuzz/fuzz_nfs3_xdr.c; plus a WRITE call and a READ reply
  with 8 bytes of inline data, and a READDIR reply, built from RFC 1813 §3.3.7, §3.3.6, §3.3.16
  (the capture's carry their data in chunks, which are not in the SEND);
- mount_xdr: MOUNT messages built from RFC 1813 Appendix I and RFC 1094 Appendix A, led by
  tests/fuzz/fuzz_mount_xdr.c's selector byte;
- nlm_xdr: NLM v4 and NSM arguments and results built from XNFS §14 and §11 (the shapes
  Linux 6.1's lockd and statd send: 4-byte cookies, "pid@host" owners, 32-byte handles), led
  by tests/fuzz/fuzz_nlm_xdr.c's selector byte."""
import os
import struct

W = lambda *v: b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)


def S(s):
    b = s.encode() if isinstance(s, str) else s
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


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
        udp = 14 + (f[14] & 15) * 4
        if struct.unpack_from("!H", f, udp + 2)[0] != 4791:
            continue
        ulen = struct.unpack_from("!H", f, udp + 4)[0]
        bth = udp + 8
        pad = (f[bth + 1] >> 4) & 3
        end = udp + ulen - 4 - pad
        if f[bth] == 0x04:
            yield f[bth + 12:end]
        elif f[bth] == 0x17:
            yield f[bth + 16:end]


def write(dirname, name, data):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, name), "wb") as fp:
        fp.write(data)


def nfs3():
    d = "tests/fuzz/corpus/nfs3_xdr"
    calls, seen = {}, set()
    for p in send_payloads("tests/data/nfs_rdma_full.pcap"):
        xid, vers, credits, proc, rl = struct.unpack_from("!5I", p, 0)
        if proc != 0 or rl != 0 or p[20:24] != b"\0\0\0\0" or p[24:28] != b"\0\0\0\0":
            continue  # RDMA_MSG without chunks only: the message is whole
        m = p[28:]
        mtype, = struct.unpack_from("!I", m, 4)
        if mtype == 0:
            prog, pvers, nproc = struct.unpack_from("!3I", m, 12)
            calls[m[:4]] = (prog, pvers, nproc)
            cl, = struct.unpack_from("!I", m, 28)
            off = 32 + (cl + 3) // 4 * 4
            vl, = struct.unpack_from("!I", m, off + 4)
            body, key = m[off + 8 + (vl + 3) // 4 * 4:], 0
        else:
            if m[:4] not in calls or struct.unpack_from("!I", m, 8)[0] != 0:
                continue
            prog, pvers, nproc = calls[m[:4]]
            vl, = struct.unpack_from("!I", m, 16)
            off = 20 + (vl + 3) // 4 * 4
            if struct.unpack_from("!I", m, off)[0] != 0:
                continue
            body, key = m[off + 4:], 1
        if prog != 100003 or pvers != 3 or (nproc, key) in seen:
            continue
        seen.add((nproc, key))
        write(d, f"nfs_rdma_full_{nproc}_{'res' if key else 'args'}",
              bytes([nproc + 22 * key]) + body)
    fh = S(bytes(range(20)))
    write(d, "built_write_args", bytes([7]) + fh + W(0, 0, 8, 2) + S(b"12345678"))
    sattr = W(1, 0o644, 0, 0, 1, 0, 0, 0, 2, 1795344807, 0)  # mode, size 0, atime server, mtime client
    write(d, "built_read_args", bytes([6]) + fh + W(0, 4096, 8))
    write(d, "built_setattr_args", bytes([2]) + fh + sattr + W(1, 1795344807, 5))
    write(d, "built_symlink_args", bytes([10]) + fh + S("link") + sattr + S("../target"))
    write(d, "built_mknod_args", bytes([11]) + fh + S("dev") + W(4) + sattr + W(1, 3))
    write(d, "built_rename_args", bytes([14]) + fh + S("a") + fh + S("bb"))
    write(d, "built_commit_args", bytes([21]) + fh + W(0, 0, 0))
    write(d, "built_create_excl_args", bytes([8]) + fh + S("x") + W(2) + b"verf1234")
    wcc = W(1, 0, 60, 1, 2, 3, 4) + W(0)
    write(d, "built_rename_res", bytes([14 + 22]) + W(18) + wcc + wcc)
    write(d, "built_commit_res", bytes([21 + 22]) + W(0) + wcc + b"wverf123")
    write(d, "built_readlink_res", bytes([5 + 22]) + W(0, 0) + S("../target"))
    write(d, "built_read_res", bytes([6 + 22]) + W(0, 0) + W(8, 1) + S(b"abcdefgh"))
    entries = b"".join(W(1) + W(0, 100 + i) + S(n) + W(0, i + 1)
                       for i, n in enumerate([".", "..", "file-v3"]))
    write(d, "built_readdir_res", bytes([16 + 22]) + W(0, 0) + b"verifier" + entries + W(0, 1))
    plus = b"".join(W(1) + W(0, 100 + i) + S(n) + W(0, i + 1) + W(0) + W(1) + fh
                    for i, n in enumerate([".", "file-v3"]))
    write(d, "built_readdirplus_res", bytes([17 + 22]) + W(0, 0) + b"verifier" + plus + W(0, 0))


def mount():
    d = "tests/fuzz/corpus/mount_xdr"
    write(d, "dirpath", bytes([0]) + S("/export"))
    write(d, "mountres3", bytes([1]) + W(0) + S(bytes(range(28))) + W(2, 1, 0))
    write(d, "mountres3_err", bytes([1]) + W(13))
    write(d, "fhstatus", bytes([2]) + W(0) + bytes(range(32)))
    write(d, "mountlist", bytes([3]) + W(1) + S("client-a") + S("/export") + W(1) +
          S("10.99.0.3") + S("/export/sub") + W(0))
    write(d, "exports", bytes([4]) + W(1) + S("/export") + W(1) + S("10.99.0.0/24") + W(1) +
          S("*.example.org") + W(0) + W(1) + S("/pub") + W(0) + W(0))


def nlm():
    d = "tests/fuzz/corpus/nlm_xdr"
    fh = S(bytes(range(1, 33)))
    lock = S("vm1") + fh + S("1234@vm1") + W(1234) + W(0, 0) + W(0, 0)
    write(d, "testargs", bytes([0]) + S(b"\0\0\0\1") + W(1) + lock)
    write(d, "lockargs", bytes([1]) + S(b"\0\0\0\2") + W(1, 1) + lock + W(0) + W(3))
    write(d, "lockargs_reclaim", bytes([1]) + S(b"\0\0\0\3") + W(0, 0) + S("vm1") + fh +
          S("77@vm1") + W(77) + W(0, 4096) + W(0xFFFFFFFF, 0xFFFFFFFF) + W(1) + W(5))
    write(d, "cancargs", bytes([2]) + S(b"\0\0\0\4") + W(1, 1) + lock)
    write(d, "unlockargs", bytes([3]) + S(b"\0\0\0\5") + lock)
    write(d, "testres_denied", bytes([4]) + S(b"\0\0\0\1") + W(1) + W(1) + W(99) +
          S("99@other") + W(0, 100) + W(0, 0))
    write(d, "testres_granted", bytes([4]) + S(b"\0\0\0\1") + W(0))
    write(d, "res_blocked", bytes([5]) + S(b"\0\0\0\2") + W(3))
    write(d, "shareargs", bytes([6]) + S(b"\0\0\0\6") + S("vm1") + fh + S("o") + W(1, 3) +
          W(0))
    write(d, "shareres", bytes([7]) + S(b"\0\0\0\6") + W(1) + W(0))
    write(d, "notify", bytes([8]) + S("vm1") + W(7))
    write(d, "sm_name", bytes([9]) + S("10.79.0.11"))
    myid = S("127.0.0.1") + W(100021, 4, 16)
    write(d, "sm_mon", bytes([10]) + S("10.79.0.1") + myid + bytes(range(16)))
    write(d, "sm_mon_id", bytes([11]) + S("10.79.0.1") + myid)
    write(d, "sm_my_id", bytes([12]) + myid)
    write(d, "sm_stat_res", bytes([13]) + W(0, 3))
    write(d, "sm_stat", bytes([14]) + W(5))
    write(d, "sm_notify", bytes([15]) + S("vm1") + W(9))


nfs3()
mount()
nlm()
