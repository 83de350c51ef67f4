#!/usr/bin/env python3
"""Seed corpora for the rpc/ fuzz targets. Run from the repository root.
- rpcrdma_hdr: RPC-over-RDMA headers (with their inline RPC message) taken from the RC SEND
  ONLY payloads of tests/data/nfs_rdma_full.pcap (Linux 6.1 xprtrdma/svcrdma), one of each
  shape, plus an RDMA_ERROR built from RFC 8166 §4.2.4.1;
- orpc_svc: RPC calls built from RFC 5531 §9 for the test programs (tests/rpc/orpc_testprog.h)
  and the portmapper: NULL, ECHO, WHOAMI with AUTH_SYS, PMAP GETPORT and DUMP, RPCBIND GETADDR;
- orpc_rm: record-marked streams (RFC 5531 §11): one record, three fragments, two records,
  each input led by one byte that tells the fuzzer how to split the stream;
- rpcrdma_srv: operation sequences for fuzz_rpcrdma_srv, written by hand in its input encoding
  (the header comment of tests/fuzz/fuzz_rpcrdma_srv.c), one per scenario: every chunk kind,
  deferred and concurrent deferred calls, DRC replays, header and chunk errors, disconnects."""
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


# ---------------------------------------------------------------- fuzz_rpcrdma_srv
# The input encoding of tests/fuzz/fuzz_rpcrdma_srv.c: a 3-byte header (connect_pair()), then
# operation records (step(); send_msg(), build_call(), pick_len(), pick_seg(), defect()).
SEND, RESEND, LATER_RUN, POLL, WIRE, DISCONNECT, WAIT, QUIESCE = 0, 5, 6, 7, 8, 9, 10, 11
POLL16, SETTLE = 12, 15
BACKCHANNEL = 11  # QUIESCE's operation without the side bit: a backward call, or a reply to one
BC_CALL, BC_REPLY, BC_STRAY, BC_CANCEL = 0, 1, 3, 5
ECHO, FILL, LATER, BUMP, PLACE = 1, 5, 6, 7, 8
MAX_CHUNK = 32 << 10
MEM = 128 << 10
LENS = [0, 1, 4, 8, 12, 16, 20, 36, 44, 100, 1000, 1023, 1024, 3000, 4093, 4096, 4097, 8192,
        MAX_CHUNK - 64, MAX_CHUNK - 52, MAX_CHUNK - 48, MAX_CHUNK - 44, MAX_CHUNK - 8,
        MAX_CHUNK - 4, MAX_CHUNK - 1, MAX_CHUNK, MAX_CHUNK + 1, MAX_CHUNK + 4, MAX_CHUNK // 2,
        2 * MAX_CHUNK, MEM, MEM + 1]


def hdr(calls=None, inline1024=False, mtu256=False, destroy_first=False, credits=16, priv=0,
        wrap=False, timeout=4):
    h0 = 0x10 if calls is None else calls - 1
    h0 |= 0x20 if inline1024 else 0
    h0 |= 0x40 if mtu256 else 0
    h0 |= 0x80 if destroy_first else 0
    assert timeout in (1, 2, 3, 4, 6), timeout
    t = 0x40 if timeout == 6 else (timeout - 1) << 4
    return [h0, (credits - 1) | priv << 5, (1 if wrap else 0) | t]


def plen(n):
    """pick_len()'s bytes for n: a table entry, else 512 * a + b (b a 16-bit word, 9 bits
    used)."""
    if n in LENS:
        return [LENS.index(n)]
    assert n < 0x80 << 9, n
    return [0x80 | n >> 9, n & 0xff, (n >> 8) & 1]


def call(proc, arg=None, v2=False, k=0):
    """build_call()'s bytes: a call of the test program."""
    b = [proc << 2 | (0x40 if v2 else 0)]
    if proc in (ECHO, LATER):
        b += plen(arg) + [k]
    elif proc in (FILL, PLACE, BUMP):
        b += plen(arg)
    return b


def msg(body, proc_sel=0, xid=None, read=0, nread=1, keep=0, rdefect=None, segs_r=(),
        wchunks=0, wsegs=1, reply=0, wdefect=None, segs_w=(), segs_reply=()):
    """send_msg()'s bytes. read: 0 none, 1 position zero, 2 DDP, 3 arbitrary; segs_*: for
    read plans 1 and 2 one offset byte per segment, for 3 (position byte, length) pairs; for
    write and reply chunks (length, offset byte) pairs. xid: None a new one, else an index of
    one sent before."""
    a = proc_sel | (0x80 if xid is not None else 0)
    b = [SEND, a, 8] + ([xid] if xid is not None else []) + body
    r = read | (nread - 1) << 2 | keep << 4 | (0x20 if rdefect else 0)
    w = {0: 0, 1: 1, 2: 3}[wchunks] | (wsegs - 1) << 2
    if reply:
        w |= 0x10 | (reply - 1) << 5
    if wdefect:
        w |= 0x80
    b += [r, w]
    if read in (1, 2):
        b += list(segs_r) or [8 * i for i in range(nread)]
    elif read == 3:
        for pos, n in segs_r:
            pb = pos // 4 if pos < 0xf0 * 4 else 0xf0 + (pos - (MAX_CHUNK - 32)) // 4
            b += [pb] + plen(n) + [0x40]
    b += rdefect or []
    for _ in range(wchunks):
        for n, off in segs_w:
            b += plen(n) + [off]
        b += wdefect or []
    if reply:
        for n, off in segs_reply:
            b += plen(n) + [off]
        b += wdefect or []
    return b


def srv():
    d = "tests/fuzz/corpus/rpcrdma_srv"
    seeds = {
        "null_inline": hdr() + msg(call(0)) + [SETTLE],
        "echo_inline": hdr() + msg(call(ECHO, 100, k=1)) + [SETTLE],
        # ECHO of 6000: the call by a position-zero chunk in two segments, the results by
        # the reply chunk
        "long_call_long_reply": hdr() + msg(call(ECHO, 6144, k=2), read=1, nread=2,
                                            reply=1, segs_reply=[(8192, 200)]) + [SETTLE],
        # the ECHO's data by read chunk at its position (in place), its round-up not sent
        "ddp_read_chunk": hdr() + msg(call(ECHO, 4093, k=3), read=2, reply=1,
                                      segs_reply=[(8192, 100)]) + [SETTLE],
        "ddp_read_two_segs_roundup_inline": hdr() + msg(call(ECHO, 4093, k=4), read=2,
                                                        nread=2, keep=1, reply=1,
                                                        segs_reply=[(8192, 100)]) + [SETTLE],
        "arbitrary_read_segs": hdr() + msg(call(ECHO, 8, k=5), read=3, nread=2,
                                           segs_r=[(44, 8), (52, 4)]) + [SETTLE],
        # a read chunk that ends the rebuilt call exactly at the server's max_chunk, and one
        # more at that position: the call would be longer than max_chunk
        "read_chunks_past_max_chunk": hdr() + msg(call(ECHO, 8, k=5), read=3, nread=2,
                                                  segs_r=[(44, MAX_CHUNK - 47), (MAX_CHUNK, 44)])
        + [SETTLE],
        "write_chunk": hdr() + msg(call(FILL, 8192), wchunks=1, segs_w=[(8192, 64)]) + [SETTLE],
        "write_chunk_two_segs": hdr() + msg(call(FILL, 8192), wchunks=1, wsegs=2,
                                            segs_w=[(4096, 64), (4096, 80)]) + [SETTLE],
        "place_into_sink": hdr() + msg(call(PLACE, 4093), wchunks=1, segs_w=[(8192, 64)])
        + [SETTLE],
        "reply_chunk": hdr() + msg(call(FILL, 6144), reply=2,
                                   segs_reply=[(4096, 10), (4096, 30)]) + [SETTLE],
        "reply_too_long_no_chunk": hdr() + msg(call(FILL, 8192)) + [SETTLE],
        "deferred": hdr() + msg(call(LATER, 100, k=6)) + msg(call(ECHO, 10, k=7))
        + [SETTLE, LATER_RUN, SETTLE],
        "concurrent_deferred": hdr(calls=4)
        + sum((msg(call(LATER, 3000, k=i), read=2, segs_r=[16 * i], reply=1,
                   segs_reply=[(8192, 100 + 20 * i)]) for i in range(4)), [])
        + msg(call(ECHO, 10, k=9)) + [SETTLE, LATER_RUN, SETTLE],
        "sixteen_calls": hdr(calls=16, credits=32)
        + sum((msg(call(LATER, 16 * i, k=i)) for i in range(16)), []) + [SETTLE, LATER_RUN],
        # one call at a time, two credits, five LATER calls left to the end of the input:
        # ending one lets the next start (the teardown runs them until none is left)
        "later_calls_left_to_teardown": hdr(calls=1, credits=2)
        + sum((msg(call(LATER, 4 * i, k=i)) for i in range(5)), []) + [SETTLE],
        "one_call_at_a_time": hdr(calls=1) + msg(call(LATER, 20)) + msg(call(ECHO, 30))
        + msg(call(ECHO, 40)) + [SETTLE, LATER_RUN, SETTLE],
        "deferred_destroy_first": hdr(destroy_first=True) + msg(call(LATER, 100), read=2,
                                                                 reply=1,
                                                                 segs_reply=[(1024, 9)])
        + [SETTLE],
        # BUMP twice with one xid: the duplicate request cache answers the second; LATER
        # sent again while deferred: dropped
        "drc_replay_and_in_progress": hdr() + msg(call(BUMP, 5)) + [SETTLE, RESEND, SETTLE]
        + msg(call(LATER, 8)) + [RESEND, SETTLE, LATER_RUN, SETTLE],
        "drc_xid_reused": hdr() + msg(call(BUMP, 7)) + [SETTLE] + msg(call(BUMP, 7), xid=0)
        + [SETTLE],
        "err_vers": hdr() + [SEND, 0x30, 8, 2] + call(0) + [0, 0, SETTLE],
        "msgp_done_error_garbage": hdr() + msg(call(0), proc_sel=6) + msg(call(0), proc_sel=7)
        + msg(call(0), proc_sel=5) + [SEND, 0x0f, 8, 9] + call(0) + [0, 0, SETTLE],
        "odd_position": hdr() + msg(call(ECHO, 100), read=2, rdefect=[0x09, 0]) + [SETTLE],
        "read_wrong_key": hdr() + msg(call(ECHO, 100), read=2, rdefect=[0x00, 0]) + [SETTLE],
        "read_past_region": hdr() + msg(call(ECHO, 4096), read=2, rdefect=[0x02, 0])
        + [SETTLE],
        "read_huge": hdr() + msg(call(ECHO, 100), read=2, rdefect=[0x06, 1]) + [SETTLE],
        "write_wrong_key": hdr() + msg(call(FILL, 4096), wchunks=1, segs_w=[(4096, 3)],
                                       wdefect=[0x01, 0x77]) + [SETTLE],
        "write_chunk_too_small": hdr() + msg(call(FILL, 8192), wchunks=1, segs_w=[(4096, 3)])
        + [SETTLE],
        "two_write_chunks": hdr() + msg(call(ECHO, 3000), wchunks=2, segs_w=[(4096, 5)])
        + [SETTLE],
        "disconnect_server_mid_read": hdr() + msg(call(LATER, 50)) + msg(call(ECHO, 8192),
                                                                          read=2, reply=1,
                                                                          segs_reply=[(
                                                                              MAX_CHUNK, 90)])
        + [POLL, 2, DISCONNECT | 0x10, SETTLE, LATER_RUN, SETTLE],
        # the server's WRITE and SEND go unanswered: retries run out (8 us timeout)
        "disconnect_client_mid_write": hdr(timeout=1) + msg(call(FILL, 8192), wchunks=1,
                                                            segs_w=[(8192, 64)])
        + [POLL, 1, DISCONNECT, WAIT, 7, WAIT, 7, SETTLE],
        "wire_loss_and_reorder": hdr(timeout=1) + msg(call(ECHO, 4093), read=2, reply=1,
                                                      segs_reply=[(8192, 100)])
        + [POLL, 2, WIRE | 0x10, 0, POLL, 2, WIRE, 4, WAIT, 6, SETTLE],
        "credit_overrun": hdr(credits=2) + sum((msg(call(ECHO, i)) for i in range(6)), [])
        + [SETTLE],
        "quiesce": hdr() + msg(call(ECHO, 1)) + [SETTLE, QUIESCE | 0x10] + msg(call(ECHO, 2))
        + [SETTLE],
        "inline_1024_no_private_data": hdr(inline1024=True, priv=6)
        + msg(call(ECHO, 2048), read=2, reply=1, segs_reply=[(4096, 1)]) + [SETTLE],
        "send_with_invalidate": hdr(priv=4) + msg(call(ECHO, 100), read=2) + [SETTLE],
        # backward calls through the table: one answered, a stray reply, forward calls between,
        # and one left waiting that the endpoint's destruction ends -ENOTCONN
        "backchannel": hdr(credits=4) + msg(call(ECHO, 10))
        + [BACKCHANNEL, BC_CALL, POLL, 8, BACKCHANNEL, BC_REPLY, POLL, 8, BACKCHANNEL, BC_STRAY]
        + msg(call(ECHO, 20)) + [BACKCHANNEL, BC_CALL, SETTLE],
        # a backward call cancelled by the upper layer, then answered late: a stray
        "backchannel_cancel": hdr() + [BACKCHANNEL, BC_CALL, POLL, 8, BACKCHANNEL, BC_CANCEL,
                                       BACKCHANNEL, BC_REPLY, BACKCHANNEL, BC_CALL, SETTLE],
        # backward calls waiting when the endpoint's QP goes to ERR
        "backchannel_disconnect": hdr() + [BACKCHANNEL, BC_CALL, BACKCHANNEL, BC_CALL, POLL, 4,
                                           DISCONNECT | 0x10, SETTLE],
        "psn_wrap_mtu256": hdr(mtu256=True, wrap=True) + msg(call(ECHO, 3000), read=2)
        + msg(call(FILL, 4096), wchunks=1, segs_w=[(4096, 0)]) + [SETTLE],
    }
    for name, b in seeds.items():
        assert None not in b, name
        write(d, name, bytes(b))


srv()
