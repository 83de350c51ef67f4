#!/usr/bin/env python3
"""A small NLM v4 / NSM client and lock-client stand-in, for tests/nfs/nlm_tcp.sh: speaks ONC
RPC over TCP (RFC 5531 record marking) with the XDR of XNFS §14 (NLM v4) and §11 (NSM),
written here from the spec, against droce-nfsd --listen 127.0.0.1 in a namespace.

Client A calls from 127.0.0.1, client B from 127.0.0.2, where this script also plays B's
portmapper (GETPORT -> B's NLM port) and B's lockd (answers GRANTED), so droce's callback
path is exercised end to end. Prints one "ok"/"FAIL" line per check; exit 1 on any FAIL."""
import socket
import struct
import sys
import threading
import time

SRV = "127.0.0.1"
EXPORT = sys.argv[1]  # argv[2]: the state directory
NLM, NSM, MNT, PMAP = 100021, 100024, 100005, 100000
fails = 0


def W(*v):
    return b"".join(struct.pack("!I", x & 0xFFFFFFFF) for x in v)


def S(b):
    b = b.encode() if isinstance(b, str) else b
    return W(len(b)) + b + b"\0" * (-len(b) % 4)


def H(v):
    return W(v >> 32, v)


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

    def h(self):
        return (self.u() << 32) | self.u()


def recv_record(sock):
    out = b""
    while True:
        hdr = b""
        while len(hdr) < 4:
            c = sock.recv(4 - len(hdr))
            if not c:
                raise EOFError
            hdr += c
        m = struct.unpack("!I", hdr)[0]
        n = m & 0x7FFFFFFF
        while n:
            c = sock.recv(n)
            if not c:
                raise EOFError
            out += c
            n -= len(c)
        if m & 0x80000000:
            return out


xid = [int(time.time()) & 0xFFFFFF]


def call(prog, vers, proc, args, src=None, port=None, name="a"):
    s = socket.socket()
    if src:
        s.bind((src, 0))
    s.settimeout(10)
    s.connect((SRV, port))
    xid[0] += 1
    cred = W(int(time.time())) + S(name) + W(0, 0, 0)
    msg = W(xid[0], 0, 2, prog, vers, proc, 1) + S(cred) + W(0, 0) + args
    s.sendall(W(0x80000000 | len(msg)) + msg)
    r = R(recv_record(s))
    s.close()
    assert r.u() == xid[0]
    assert r.u() == 1  # REPLY
    stat = r.u()
    if stat != 0:
        return ("denied", r)
    r.u(), r.s()  # verifier
    acc = r.u()
    if acc != 0:
        return ("accept_stat", acc, r)
    return r


def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    fails += 0 if cond else 1


# MOUNT v3 MNT: the export's root handle, then a file in it (NFSv3 CREATE would need more
# code: the test's shell made the files; LOOKUP finds them)
r = call(MNT, 3, 1, S(EXPORT), port=20048)
check("MOUNT MNT answers MNT3_OK", r.u() == 0)
root = r.s()


def lookup(name):
    r = call(100003, 3, 3, S(root) + S(name), port=2049)
    assert r.u() == 0
    return r.s()


fa, fb = lookup("fa"), lookup("fb")


def lock_obj(caller, fh, svid, off, ln):
    return S(caller) + S(fh) + S("%d@%s" % (svid, caller)) + W(svid) + H(off) + H(ln)


def nlm(proc, args, src=None, caller="a"):
    r = call(NLM, 4, proc, args, src=src, port=4045, name=caller)
    return r


def LOCK(caller, fh, svid, off, ln, excl=True, block=False, reclaim=False, src=None, cookie=b"ck01"):
    r = nlm(2, S(cookie) + W(int(block), int(excl)) + lock_obj(caller, fh, svid, off, ln) +
            W(int(reclaim), 3), src=src, caller=caller)
    c = r.s()
    return r.u(), c


def TEST(caller, fh, svid, off, ln, excl=True, src=None):
    r = nlm(1, S(b"t") + W(int(excl)) + lock_obj(caller, fh, svid, off, ln), src=src, caller=caller)
    r.s()
    st = r.u()
    if st == 1:
        return st, (r.u(), r.u(), r.s(), r.h(), r.h())
    return st, None


def UNLOCK(caller, fh, svid, off, ln, src=None):
    r = nlm(4, S(b"u") + lock_obj(caller, fh, svid, off, ln), src=src, caller=caller)
    r.s()
    return r.u()


def CANCEL(caller, fh, svid, off, ln, excl=True, src=None):
    r = nlm(3, S(b"c") + W(1, int(excl)) + lock_obj(caller, fh, svid, off, ln), src=src, caller=caller)
    r.s()
    return r.u()


# client B's portmapper and lockd at 127.0.0.2: GETPORT -> 4999; GRANTED -> answered GRANTED
grants = []


def serve(port, handler):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.2", port))
    ls.listen(8)

    def loop():
        while True:
            c, _ = ls.accept()
            try:
                while True:
                    m = recv_record(c)
                    r = R(m)
                    x = r.u()
                    r.u(), r.u()
                    prog, vers, proc = r.u(), r.u(), r.u()
                    r.u(), r.s(), r.u(), r.s()
                    res = handler(prog, vers, proc, r)
                    out = W(x, 1, 0, 0, 0, 0) + res
                    c.sendall(W(0x80000000 | len(out)) + out)
            except (EOFError, OSError):
                c.close()
    threading.Thread(target=loop, daemon=True).start()


def pmap(prog, vers, proc, r):
    p, v, proto = r.u(), r.u(), r.u()
    return W(4999 if (p, v, proto) == (NLM, 4, 6) else 0)


res_calls = []


def lockd(prog, vers, proc, r):
    if proc != 5:  # a *_RES: nlm4_res {cookie, stat}
        res_calls.append((proc, r.s(), r.u()))
        return b""
    cookie = r.s()
    excl = r.u()
    caller, fh, oh, svid, off, ln = r.s(), r.s(), r.s(), r.u(), r.h(), r.h()
    grants.append((proc, cookie, excl, caller, fh, oh, svid, off, ln, time.time()))
    return S(cookie) + W(1 if cookie == b"deny" else 0)  # "deny": the waiting process gave up


serve(111, pmap)
serve(4999, lockd)

GRANTED, DENIED, BLOCKED, GRACE = 0, 1, 3, 4
st, _ = LOCK("a", fa, 1, 0, 100)
check("in the grace period a plain LOCK is NLM4_DENIED_GRACE_PERIOD (%d)" % st, st == GRACE)
st, _ = LOCK("a", fa, 1, 0, 100, reclaim=True)
check("in the grace period a reclaim is NLM4_GRANTED (%d)" % st, st == GRANTED)
st, _ = TEST("b", fa, 7, 0, 1, src="127.0.0.2")
check("in the grace period TEST is NLM4_DENIED_GRACE_PERIOD (%d)" % st, st == GRACE)
time.sleep(3.2)  # grace is 3 s
st, h = TEST("b", fa, 7, 50, 1, src="127.0.0.2")
check("TEST names the holder: exclusive, svid 1, oh 1@a, 0+100 (%s)" % (h,),
      st == DENIED and h == (1, 1, b"1@a", 0, 100))
st, _ = LOCK("b", fa, 7, 50, 10, src="127.0.0.2")
check("a conflicting LOCK is NLM4_DENIED (%d)" % st, st == DENIED)
st, _ = LOCK("b", fa, 7, 100, 10, src="127.0.0.2")
check("a LOCK next to it is NLM4_GRANTED (%d)" % st, st == GRANTED)
st, _ = LOCK("b", fa, 7, 50, 10, block=True, src="127.0.0.2", cookie=b"blk1")
check("a blocking conflicting LOCK is NLM4_BLOCKED (%d)" % st, st == BLOCKED)
st, _ = LOCK("b", fb, 8, 0, 0, block=True, src="127.0.0.2", cookie=b"none")
check("a blocking LOCK without conflict is NLM4_GRANTED at once (%d)" % st, st == GRANTED)
t0 = time.time()
st = UNLOCK("a", fa, 1, 0, 100)
check("UNLOCK is NLM4_GRANTED (%d)" % st, st == GRANTED)
for _ in range(50):
    if grants:
        break
    time.sleep(0.1)
check("droce called B's GRANTED within 5 s (%.2f s), through B's portmapper" % ((grants[0][-1] - t0) if grants else -1),
      len(grants) == 1)
if grants:
    g = grants[0]
    check("GRANTED carries the blocked request's cookie, handle, owner and range",
          g[0] == 5 and g[1] == b"blk1" and g[2] == 1 and g[3] == b"b" and g[4] == fa and
          g[5] == b"7@b" and g[6] == 7 and g[7] == 50 and g[8] == 10)
st, h = TEST("a", fa, 1, 55, 1)
check("after the grant B holds 50+10 (%s)" % (h,), st == DENIED and h[1] == 7 and h[3] == 50)
# CANCEL of a queued request: never granted afterwards
st, _ = LOCK("a", fb, 2, 0, 1, block=True, cookie=b"blk2")
check("A's blocking LOCK on fb waits (%d)" % st, st == BLOCKED)
st = CANCEL("a", fb, 2, 0, 1)
check("CANCEL is NLM4_GRANTED (%d)" % st, st == GRANTED)
# FREE_ALL for B: its locks go
r = nlm(23, S("b") + W(5), caller="b")
st, h = TEST("a", fa, 1, 0, 0)
check("after FREE_ALL(b) nothing of B's holds (%d)" % st, st == GRANTED)
st, _ = LOCK("b", fa, 7, 0, 0, src="127.0.0.2")
check("B locks the whole file again (%d)" % st, st == GRANTED)
# a client that answers GRANTED with NLM4_DENIED gets the lock taken back
st, _ = LOCK("a", fb, 3, 0, 1)
st2, _ = LOCK("b", fb, 10, 0, 1, block=True, src="127.0.0.2", cookie=b"deny")
check("B waits behind A on fb (%d, %d)" % (st, st2), st == GRANTED and st2 == BLOCKED)
n = len(grants)
UNLOCK("a", fb, 3, 0, 1)
for _ in range(50):
    if len(grants) > n:
        break
    time.sleep(0.1)
time.sleep(0.3)
st, h = TEST("a", fb, 3, 0, 1)
check("B's lockd answered GRANTED with DENIED: droce took the lock back (%d %s)" % (st, h),
      len(grants) == n + 1 and st == GRANTED)
# LOCK_MSG: answered by a LOCK_RES call to B's lockd (found through B's portmapper)
r = nlm(7, S(b"msg1") + W(0, 1) + lock_obj("b", fb, 9, 0, 1) + W(0, 3), src="127.0.0.2", caller="b")
for _ in range(50):
    if res_calls:
        break
    time.sleep(0.1)
check("LOCK_MSG is answered by a LOCK_RES call carrying its cookie and NLM4_GRANTED (%s)" % res_calls,
      res_calls == [(12, b"msg1", GRANTED)])
# SM_NOTIFY naming B's address: B rebooted
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.2", 0))
xid[0] += 1
msg = W(xid[0], 0, 2, NSM, 1, 6, 0, 0, 0, 0) + S("127.0.0.2") + W(9)
u.sendto(msg, (SRV, 4046))
u.settimeout(5)
rep = u.recv(1000)
check("SM_NOTIFY over UDP is answered", struct.unpack_from("!I", rep, 0)[0] == xid[0])
st, _ = TEST("a", fa, 1, 0, 0)
check("after SM_NOTIFY(127.0.0.2) B's lock is gone (%d)" % st, st == GRANTED)
# SM_MON / SM_UNMON / SM_UNMON_ALL edit the monitor list (statedir/nsm.hosts), from loopback
STATE = sys.argv[2]
myid = S("127.0.0.1") + W(NLM, 4, 16)


def hosts():
    return open(STATE + "/nsm.hosts").read()


r = call(NSM, 1, 2, S("mon-one") + myid + bytes(16), port=4046)
ok1 = r.u() == 0
r = call(NSM, 1, 2, S("mon-two") + myid + bytes(16), port=4046)
ok2 = r.u() == 0
h1 = hosts()
call(NSM, 1, 3, S("mon-one") + myid, port=4046)
h2 = hosts()
call(NSM, 1, 4, myid, port=4046)
h3 = hosts()
check("SM_MON adds hosts, SM_UNMON takes one off, SM_UNMON_ALL the rest (%r)" % h3,
      ok1 and ok2 and "+mon-one" in h1 and "+mon-two" in h1 and "mon-one" not in h2 and
      "+mon-two" in h2 and "mon-" not in h3)
r = call(NSM, 1, 1, S("x"), port=4046)
res, state = r.u(), r.u()
check("SM_STAT: STAT_SUCC and an odd state (%d)" % state, res == 0 and state % 2 == 1)
r = call(NLM, 1, 0, b"", port=4045)
check("NLM v1 is PROG_MISMATCH 4..4", r[0] == "accept_stat" and r[1] == 2 and r[2].u() == 4 and r[2].u() == 4)
st, _ = LOCK("a", b"\0" * 40, 1, 0, 1)
check("a handle that does not verify is NLM4_STALE_FH (%d)" % st, st == 7)
r = nlm(20, S(b"s") + S("a") + S(fa) + S("o") + W(1, 3, 0), caller="a")
r.s()
check("SHARE is NLM4_DENIED", r.u() == DENIED)


# NLM over UDP (what lockd sends for a proto=udp mount), from 127.0.0.3: a LOCK from a new host
# is kept by the transport while a helper looks its file up and the monitor list naming the
# host is written, then answered to the address and port it came from; its UNLOCK the same way
def udp_nlm(proc, args, caller):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.3", 0))
    u.settimeout(10)
    xid[0] += 1
    cred = W(int(time.time())) + S(caller) + W(0, 0, 0)
    u.sendto(W(xid[0], 0, 2, NLM, 4, proc, 1) + S(cred) + W(0, 0) + args, (SRV, 4045))
    r = R(u.recv(65536))
    u.close()
    assert r.u() == xid[0] and r.u() == 1 and r.u() == 0  # REPLY, MSG_ACCEPTED
    r.u(), r.s()  # verifier
    assert r.u() == 0  # SUCCESS
    return r


r = udp_nlm(2, S(b"udp1") + W(0, 1) + lock_obj("u", fb, 5, 200, 10) + W(0, 3), "u")
c, st = r.s(), r.u()
check("LOCK over UDP from a new host: NLM4_GRANTED with its cookie (%d)" % st, c == b"udp1" and st == GRANTED)
st, _ = TEST("a", fb, 1, 205, 1)
check("... the lock is held: another host's TEST of its range is DENIED (%d)" % st, st == DENIED)
check("... its host is on the monitor list", "127.0.0.3\tu" in hosts())
r = udp_nlm(4, S(b"udp2") + lock_obj("u", fb, 5, 200, 10), "u")
c, st = r.s(), r.u()
st2, _ = TEST("a", fb, 1, 205, 1)
check("UNLOCK over UDP: NLM4_GRANTED, and the range is free again (%d, %d)" % (st, st2),
      c == b"udp2" and st == GRANTED and st2 == GRANTED)
sys.exit(1 if fails else 0)
