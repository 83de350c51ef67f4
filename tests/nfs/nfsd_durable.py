#!/usr/bin/env python3
"""Durability of droce-nfsd's writes (issue 14), run by nfsd_durable.sh against
`droce-nfsd --listen 127.0.0.1` in a network namespace. A kill -9 leaves the page cache with the
data, so a kill alone proves nothing about COMMIT; these two prove what it must:

  calls   (droce-nfsd runs under strace -f -tt -T, which logs every fsync/fdatasync and every
          reply send with its time and length): one call at a time, 8 FILE_SYNC WRITEs,
          8 UNSTABLE WRITEs and 4 COMMITs; the script prints each call's kind and xid, and
          `trace` below reads the strace log:
  trace   every FILE_SYNC WRITE's and every COMMIT's reply (found in the log by its xid) is
          sent after an fsync/fdatasync that completed after the previous reply; and, as a
          control that the log can tell, no UNSTABLE WRITE's reply is.
  before  CREATE a file, WRITE blocks 0-9 UNSTABLE, COMMIT (verifier V1), WRITE blocks 10-19
          UNSTABLE (answered with V1, not committed). The script then kill -9s droce-nfsd
          and starts it again on the same state directory.
  after   COMMIT: the verifier is V2 != V1, so the client resends what it wrote since its
          last good COMMIT - blocks 10-19, exactly 10 WRITEs - and COMMITs again with V2; the
          file on droce's disk is right. nfsd_durable.sh checks the second droce-nfsd
          counted exactly 10 WRITEs.

  full    (an export on a 16 MiB ext4 image, a 2 MiB "ballast" file in it): FILE_SYNC WRITEs
          of 64 KiB until NFS3ERR_NOSPC; every block answered OK is intact on disk; REMOVE of
          the ballast works, and then the refused WRITE succeeds.

Usage: nfsd_durable.py calls BASE OUT | trace TRACE OUT | before BASE OUT | after BASE OUT |
       full BASE"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfsd_life as L  # noqa: E402  (the RPC client: Conn, W, S, mnt, create, check)

NFS = L.NFS
BLOCK = 4096


def block(i, tag="v"):
    head = f"{tag} block {i:06d} ".encode()
    return (head * (BLOCK // len(head) + 1))[:BLOCK]


def write(c, fh, i, stable, data=None):
    """(xid, status, committed, verifier)"""
    d = data if data is not None else block(i)
    xid = c.send(NFS, 3, 7, L.S(fh) + L.W(0, i * BLOCK) + L.W(BLOCK, stable) + L.S(d))
    got = c.recv()
    assert got and got[0] == xid
    r = got[1]
    st = r.u()
    skip_wcc(r)
    if st != 0:
        return xid, st, None, None
    r.u()  # count
    committed = r.u()
    verf = r.b[r.o:r.o + 8]
    return xid, st, committed, verf


def skip_attr(r):
    if r.u():  # attributes_follow
        r.o += 84  # fattr3


def skip_wcc(r):
    if r.u():  # pre_op_attr: size, mtime, ctime
        r.o += 24
    skip_attr(r)


def commit(c, fh):
    xid = c.send(NFS, 3, 21, L.S(fh) + L.W(0, 0) + L.W(0))
    got = c.recv()
    assert got and got[0] == xid
    r = got[1]
    st = r.u()
    skip_wcc(r)
    return xid, st, (r.b[r.o:r.o + 8] if st == 0 else None)


def setup(base, name):
    m = L.Conn(20048)
    st, root = L.mnt(m, f"{base}/E")
    m.close()
    c = L.Conn(2049)
    st2, fh = L.create(c, root, name)
    return c, fh, st == 0 and st2 == 0


def t_calls(base, out):
    c, fh, ok = setup(base, "traced")
    L.check("calls: MNT and CREATE work under strace", ok)
    calls = []
    for i in range(8):
        xid, st, committed, _ = write(c, fh, i, 2)
        calls.append(("file_sync", xid, st == 0 and committed == 2))
        xid, st, committed, _ = write(c, fh, 100 + i, 0)
        calls.append(("unstable", xid, st == 0))
        if i % 2:
            xid, st, _ = commit(c, fh)
            calls.append(("commit", xid, st == 0))
    L.check("calls: every WRITE and COMMIT answered NFS3_OK (FILE_SYNC ones committed FILE_SYNC)",
            all(ok for _, _, ok in calls))
    with open(out, "w") as f:
        json.dump([(k, x) for k, x, _ in calls], f)
    c.close()


def t_trace(trace, calls_file):
    with open(calls_file) as f:
        calls = json.load(f)
    # strace -f -tt -T lines: PID HH:MM:SS.uuuuuu syscall(args) = ret <secs>
    line_re = re.compile(r"^(\d+)\s+(\d+):(\d+):(\d+\.\d+)\s+(.*)$")
    syncs, sends = [], []  # (end time), (start time, head bytes)
    pending = {}
    for raw in open(trace, errors="replace"):
        m = line_re.match(raw.rstrip("\n"))
        if not m:
            continue
        pid, hh, mm, ss, rest = m.groups()
        t = int(hh) * 3600 + int(mm) * 60 + float(ss)
        if " <unfinished ...>" in rest:
            pending[pid] = (t, rest)
            continue
        if rest.startswith("<... "):
            t0, first = pending.pop(pid, (t, rest))
            rest = first.replace(" <unfinished ...>", "") + " " + rest
            t = t0
        dur = re.search(r"<(\d+\.\d+)>\s*$", rest)
        end = t + (float(dur.group(1)) if dur else 0.0)
        if rest.startswith(("fsync(", "fdatasync(")) and re.search(r"\)\s+=\s+0\b", rest):
            syncs.append(end)
        elif rest.startswith("sendto("):
            s = re.match(r'sendto\(\d+, "((?:\\x[0-9a-f]{2})+)', rest)
            if s:
                sends.append((t, bytes(int(h, 16) for h in s.group(1).split("\\x")[1:])))
    print(f"# trace: {len(syncs)} fsync/fdatasync completions, {len(sends)} sends")
    # each call's reply: the send whose bytes after the record mark are its xid
    when = {}
    for t, b in sends:
        if len(b) >= 8:
            when.setdefault(int.from_bytes(b[4:8], "big"), t)
    missing = [x for _, x in calls if x not in when]
    L.check(f"trace: every call's reply is in the log ({len(calls) - len(missing)} of {len(calls)})",
            not missing)
    prev = None
    bad_sync, synced_unstable, n_sync, n_unstable = [], 0, 0, 0
    for kind, xid in calls:
        t = when.get(xid)
        if t is None:
            continue
        lo = prev if prev is not None else 0
        synced = any(lo <= s <= t for s in syncs)
        if kind in ("file_sync", "commit"):
            n_sync += 1
            if not synced:
                bad_sync.append((kind, xid))
        else:
            n_unstable += 1
            synced_unstable += synced
        prev = t
    L.check(f"trace: each of the {n_sync} FILE_SYNC WRITE and COMMIT replies left after a sync "
            f"that completed since the previous reply", n_sync == 12 and not bad_sync)
    L.check(f"trace (control): none of the {n_unstable} UNSTABLE WRITE replies did "
            f"({synced_unstable} had one)", n_unstable == 8 and synced_unstable == 0)


def t_before(base, out):
    c, fh, ok = setup(base, "unstable")
    L.check("before: MNT and CREATE work", ok)
    verfs = set()
    for i in range(10):
        _, st, _, v = write(c, fh, i, 0)
        verfs.add(v)
    _, st, v1 = commit(c, fh)
    L.check("before: blocks 0-9 written UNSTABLE and committed", st == 0 and verfs == {v1})
    uncommitted = []
    for i in range(10, 20):
        _, st, committed, v = write(c, fh, i, 0)
        if st == 0 and v == v1 and committed == 0:
            uncommitted.append(i)
    L.check("before: blocks 10-19 written UNSTABLE with the same verifier, not committed",
            uncommitted == list(range(10, 20)))
    with open(out, "w") as f:
        json.dump({"fh": fh.hex(), "v1": v1.hex(), "uncommitted": uncommitted}, f)
    c.close()


def t_after(base, state):
    with open(state) as f:
        s = json.load(f)
    fh, v1 = bytes.fromhex(s["fh"]), bytes.fromhex(s["v1"])
    c = L.Conn(2049)
    _, st, v2 = commit(c, fh)
    L.check("after: COMMIT on the restarted server works with the old handle", st == 0)
    L.check("after: the write verifier changed across the restart", st == 0 and v2 != v1)
    resent = 0
    if st == 0 and v2 != v1:
        # what a client does (RFC 1813 §3.3.21): resend everything since the last good COMMIT
        for i in s["uncommitted"]:
            _, wst, _, v = write(c, fh, i, 0)
            resent += wst == 0 and v == v2
        _, st3, v3 = commit(c, fh)
        L.check("after: the COMMIT after the resend returns the new verifier", st3 == 0 and v3 == v2)
    print(f"resent {resent}")
    L.check("after: exactly the 10 uncommitted WRITEs were resent", resent == 10)
    with open(f"{base}/E/unstable", "rb") as f:
        data = f.read()
    L.check("after: all 20 blocks are right on droce's disk",
            len(data) == 20 * BLOCK and all(data[i * BLOCK:(i + 1) * BLOCK] == block(i) for i in range(20)))
    c.close()


BIG = 65536


def big(i):
    head = f"fill {i:06d} ".encode()
    return (head * (BIG // len(head) + 1))[:BIG]


def t_full(base):
    """A full file system: WRITEs until NFS3ERR_NOSPC; what was answered OK is intact; after a
    file is removed, writing works again."""
    m = L.Conn(20048)
    st, root = L.mnt(m, f"{base}/small")
    m.close()
    c = L.Conn(2049)
    st2, fh = L.create(c, root, "fill")
    L.check("full: MNT of the small ext4 export and CREATE work", st == 0 and st2 == 0)
    ok, status, i = 0, 0, 0
    while i < 1000:
        xid = c.send(NFS, 3, 7, L.S(fh) + L.W(0, i * BIG) + L.W(BIG, 2) + L.S(big(i)))
        got = c.recv()
        status = got[1].u()
        if status != 0:
            break
        ok += 1
        i += 1
    print(f"# full: {ok} WRITEs of 64 KiB answered NFS3_OK, then status {status}")
    L.check("full: the disk filling up answers NFS3ERR_NOSPC (28)", status == 28 and ok > 10)
    with open(f"{base}/small/fill", "rb") as f:
        data = f.read()
    intact = all(data[k * BIG:(k + 1) * BIG] == big(k) for k in range(ok))
    L.check(f"full: all {ok} blocks answered OK are intact on disk", len(data) >= ok * BIG and intact)
    # free space: REMOVE the ballast file, then the refused block goes in
    r = c.call(NFS, 3, 12, L.S(root) + L.S("ballast"))
    L.check("full: REMOVE of the ballast file works on the full file system", r.u() == 0)
    xid = c.send(NFS, 3, 7, L.S(fh) + L.W(0, ok * BIG) + L.W(BIG, 2) + L.S(big(ok)))
    got = c.recv()
    L.check("full: with space again, the refused WRITE succeeds", got[1].u() == 0)
    with open(f"{base}/small/fill", "rb") as f:
        f.seek(ok * BIG)
        L.check("full: and its block is on disk", f.read(BIG) == big(ok))
    c.close()


def main():
    what = sys.argv[1]
    if what == "calls":
        t_calls(sys.argv[2], sys.argv[3])
    elif what == "trace":
        t_trace(sys.argv[2], sys.argv[3])
    elif what == "before":
        t_before(sys.argv[2], sys.argv[3])
    elif what == "after":
        t_after(sys.argv[2], sys.argv[3])
    elif what == "full":
        t_full(sys.argv[2])
    sys.exit(1 if L.fails else 0)


if __name__ == "__main__":
    main()
