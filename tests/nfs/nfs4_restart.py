#!/usr/bin/env python3
"""NFSv4.1 across a droce-nfsd restart over TCP (RFC 8881 §8.4.2, §8.4.3), with the client of
nfs4_tcp.py (written from RFC 8881). Two phases, the server restarted between them by
nfs4_restart.sh on the same state directory:
  before STATE_FILE: a client opens f, writes it FILE_SYNC and write-locks 0..9; what it needs
    later (its session and client id, the handle, the owners) goes to STATE_FILE.
  after STATE_FILE: the old session is BADSESSION and the old client id STALE_CLIENTID; the
    client comes back (EXCHANGE_ID, CREATE_SESSION), reclaims its open (CLAIM_PREVIOUS) and its
    lock (reclaim); a second client gets NO_GRACE on a reclaim and GRACE on a new OPEN; the
    first client's RECLAIM_COMPLETE ends grace (the only recorded client is back); the second
    client opens then, its LOCKT is DENIED naming the reclaimed lock (once NLM's grace, which
    the lock manager keeps from the start, is over too), and it reads the data.
Every step is asserted; exit status 0 when all passed.
Usage: nfs4_restart.py HOST EXPORT_PATH before|after STATE_FILE"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfs4_tcp as t  # noqa: E402
from nfs4_tcp import H, S, W, check, skip_seq  # noqa: E402

GRACE, NO_GRACE, DENIED = 10013, 10033, 10010
BADSESSION, STALE_CLIENTID = 10052, 10022


def session(host, owner, reclaim_complete):
    """EXCHANGE_ID, CREATE_SESSION (and RECLAIM_COMPLETE when asked), as Client.start"""
    c = t.Client(host, owner)
    st, r, n = c.compound([W(42) + b"verf0001" + S(owner) + W(0, 0, 0)], seq=False)
    check(f"{owner}: EXCHANGE_ID", st == 0)
    r.u32(), r.u32()
    c.clientid, seqid = r.u64(), r.u32()
    chan = W(0, 1049620, 1049480, 7584, 16, 8, 0)
    st, r, n = c.compound([W(43) + H(c.clientid) + W(seqid, 0) + chan + chan
                           + W(0x40000000) + W(1, 0)], seq=False)
    check(f"{owner}: CREATE_SESSION", st == 0)
    r.u32(), r.u32()
    c.sessionid = r.raw(16)
    if reclaim_complete:
        st, r, n = c.compound([W(58, 0)])
        check(f"{owner}: RECLAIM_COMPLETE", st == 0)
    return c


def export_root(c, export):
    comps = [x for x in export.split("/") if x]
    st, r, n = c.compound([W(24)] + [W(15) + S(x) for x in comps] + [W(10)])
    check("PUTROOTFH + LOOKUP down to the export + GETFH", st == 0)
    skip_seq(r)
    for _ in range(1 + len(comps)):
        r.u32(), r.u32()
    r.u32(), r.u32()
    return r.opaque()


def open_sid(r):
    """OPEN's stateid from a reply positioned at PUTFH's result"""
    r.u32(), r.u32()
    op, st = r.u32(), r.u32()
    assert op == 18 and st == 0
    return r.raw(16)


def lock(fh, sid, cid, owner, reclaim):
    return (W(22) + S(fh), W(12, 2, 1 if reclaim else 0) + H(0) + H(10) + W(1) + W(0) + sid
            + W(0) + H(cid) + S(owner))


def before(host, export, state):
    a = session(host, "nfs4-restart-a", True)
    root = export_root(a, export)
    mode = W(2, 0, 2) + S(W(0o644))
    st, r, n = a.compound([W(22) + S(root), W(18, 0, 3, 0) + H(a.clientid) + S("owner-a")
                           + W(1, 0) + mode + W(0) + S("f"), W(10)])
    check("OPEN (create) + GETFH", st == 0)
    skip_seq(r)
    sid = open_sid(r)
    r.raw(20), r.u32()
    for _ in range(r.u32()):
        r.u32()
    r.u32()  # no delegation
    assert r.u32() == 10 and r.u32() == 0
    fh = r.opaque()
    st, r, n = a.compound([W(22) + S(fh), W(38) + sid + H(0) + W(2) + S("kept across restart")])
    check("WRITE FILE_SYNC", st == 0)
    # the lock manager is NLM's, in its grace period from the start ([nfs] grace): a new lock
    # waits for its end (v4's own grace ended at once: nothing was recorded)
    for _ in range(300):
        st, r, n = a.compound(list(lock(fh, sid, a.clientid, "lock-owner-a", False)))
        if st != GRACE:
            break
        time.sleep(0.1)
    check("LOCK 0..9", st == 0)
    with open(state, "w") as f:
        json.dump({"clientid": a.clientid, "sessionid": a.sessionid.hex(), "fh": fh.hex(),
                   "seq": a.seq}, f)


def after(host, export, state):
    with open(state) as f:
        old = json.load(f)
    fh = bytes.fromhex(old["fh"])
    gone = t.Client(host, "nfs4-restart-a")
    gone.sessionid, gone.seq = bytes.fromhex(old["sessionid"]), old["seq"]
    st, r, n = gone.compound([W(24)])
    check("the old session: BADSESSION", st == BADSESSION)
    chan = W(0, 1049620, 1049480, 7584, 16, 8, 0)
    st, r, n = gone.compound([W(43) + H(old["clientid"]) + W(2, 0) + chan + chan
                              + W(0x40000000) + W(1, 0)], seq=False)
    check("the old client id: STALE_CLIENTID", st == STALE_CLIENTID)
    a = session(host, "nfs4-restart-a", False)
    check("a new client id", a.clientid != old["clientid"])
    # reclaims: OPEN CLAIM_PREVIOUS (delegate_type NONE) on the handle, LOCK with reclaim
    st, r, n = a.compound([W(22) + S(fh), W(18, 0, 3, 0) + H(a.clientid) + S("owner-a")
                           + W(0) + W(1, 0)])
    check("OPEN CLAIM_PREVIOUS: reclaimed", st == 0)
    skip_seq(r)
    sid = open_sid(r)
    st, r, n = a.compound(list(lock(fh, sid, a.clientid, "lock-owner-a", True)))
    check("LOCK reclaim: reclaimed", st == 0)
    # a client the records do not name
    b = session(host, "nfs4-restart-b", False)
    st, r, n = b.compound([W(22) + S(fh), W(18, 0, 1, 0) + H(b.clientid) + S("owner-b")
                           + W(0) + W(1, 0)])
    check("another client's reclaim: NO_GRACE", st == NO_GRACE)
    st, r, n = b.compound([W(58, 0)])
    check("nfs4-restart-b: RECLAIM_COMPLETE", st == 0)
    open_b = W(18, 0, 1, 0) + H(b.clientid) + S("owner-b") + W(0) + W(4)
    st, r, n = b.compound([W(22) + S(fh), open_b])
    check("another client's OPEN in grace: GRACE", st == GRACE)
    st, r, n = a.compound([W(58, 0)])
    check("nfs4-restart-a: RECLAIM_COMPLETE (grace ends: every recorded client is back)",
          st == 0)
    st, r, n = b.compound([W(22) + S(fh), open_b])
    check("another client's OPEN after grace", st == 0)
    skip_seq(r)
    sid_b = open_sid(r)
    # v4's grace is over; NLM's (the lock manager's, [nfs] grace from the start) answers LOCKT
    # GRACE until it ends too
    for _ in range(300):
        st, r, n = b.compound([W(22) + S(fh), W(13, 2) + H(5) + H(1) + H(b.clientid)
                               + S("ob")])
        if st != GRACE:
            break
        time.sleep(0.1)
    check("LOCKT: DENIED by the reclaimed lock", st == DENIED)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 13 and r.u32() == DENIED
    off, ln, typ, cid = r.u64(), r.u64(), r.u32(), r.u64()
    check("LOCK4denied names the reclaiming client", (off, ln, typ, cid, r.opaque())
          == (0, 10, 2, a.clientid, b"lock-owner-a"))
    st, r, n = b.compound([W(22) + S(fh), W(25) + sid_b + H(0) + W(100)])
    check("READ", st == 0)
    skip_seq(r)
    r.u32(), r.u32()
    assert r.u32() == 25 and r.u32() == 0
    r.u32()
    check("the data is there", r.opaque() == b"kept across restart")


def main():
    host, export, phase, state = sys.argv[1:5]
    (before if phase == "before" else after)(host, export, state)
    return 1 if t.fails else 0


if __name__ == "__main__":
    sys.exit(main())
