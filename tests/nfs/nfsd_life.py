#!/usr/bin/env python3
"""droce-nfsd's life as an appliance, on the wire (issue 15's tests): run by nfsd_life.sh
against `droce-nfsd --listen 127.0.0.1 --config CONF` in a network namespace. A small MOUNT v3 +
NFSv3 client over TCP (RFC 5531 record marking, RFC 1813 XDR written here from the RFCs).

  reload  (SIGHUP, CONF edited in place): one connection stays open throughout. Before: A
          mounts, C is not exported (MNT3ERR_NOENT). CONF loses A and gains C, SIGHUP:
          "exports reloaded" in the log; on the same connection GETATTR of A's handle is
          NFS3ERR_ACCES, MNT of A is MNT3ERR_NOENT, C mounts and answers GETATTR. A CONF with a
          bad option and SIGHUP: the log names the option, C still works (nothing changed).
  secure  the export S has the default "secure": from a source port < 1024 MNT and GETATTR
          work; from a port >= 1024 MNT is MNT3ERR_ACCES and GETATTR NFS3ERR_PERM (knfsd's
          answers).
  drain   (SIGTERM while writing): two connections stream 4 KiB UNSTABLE WRITEs, 16 in flight
          each, of a pattern unique to each block, into one file of export D; after 150 replies
          droce-nfsd gets SIGTERM; the client reads replies until the server closes. Then: a
          new connection is refused, droce-nfsd exited 0 within the bound, logged the states
          SERVING -> DRAINING -> SETTLING -> SYNCING -> STOPPED and "every call answered; synced",
          and every block whose WRITE was answered NFS3_OK is on droce's disk byte for byte.

Usage: nfsd_life.py reload|secure|drain ARGS (see main). One "ok"/"FAIL" line per check."""
import os
import signal
import socket
import struct
import sys
import time

SRV = "127.0.0.1"
NFS, MNT = 100003, 100005
fails = 0


def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        fails += 1
    return cond


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

    def skip(self, n):
        self.o += n


class Conn:
    """One TCP connection to a program; calls may be pipelined."""

    def __init__(self, port, src_port=0):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if src_port:
            self.sock.bind((SRV, src_port))
        self.sock.settimeout(20)
        self.sock.connect((SRV, port))
        self.xid = int(time.time() * 1000) & 0xFFFFFF
        self.buf = b""

    def send(self, prog, vers, proc, args):
        self.xid += 1
        cred = S(W(0) + S("life") + W(0, 0, 0))  # AUTH_SYS stamp, name, uid 0, gid 0, no groups
        msg = W(self.xid, 0, 2, prog, vers, proc, 1) + cred + W(0, 0) + args
        self.sock.sendall(W(0x80000000 | len(msg)) + msg)
        return self.xid

    def recv(self):
        """One reply: (xid, results reader), or None when the server closed."""
        out = b""
        while True:
            while len(self.buf) < 4:
                c = self.sock.recv(65536)
                if not c:
                    return None
                self.buf += c
            mark = struct.unpack("!I", self.buf[:4])[0]
            n = mark & 0x7FFFFFFF
            while len(self.buf) < 4 + n:
                c = self.sock.recv(65536)
                if not c:
                    return None
                self.buf += c
            out += self.buf[4:4 + n]
            self.buf = self.buf[4 + n:]
            if mark & 0x80000000:
                break
        r = R(out)
        xid, mtype, rstat = r.u(), r.u(), r.u()
        assert mtype == 1 and rstat == 0, "call denied"
        r.u(), r.s()  # verifier
        assert r.u() == 0, "accept_stat not SUCCESS"
        return xid, r

    def call(self, prog, vers, proc, args):
        xid = self.send(prog, vers, proc, args)
        got = self.recv()
        assert got and got[0] == xid
        return got[1]

    def close(self):
        self.sock.close()


def mnt(c, path):
    """(status, handle)"""
    r = c.call(MNT, 3, 1, S(path))
    st = r.u()
    return st, (r.s() if st == 0 else None)


def getattr_(c, fh):
    return c.call(NFS, 3, 1, S(fh)).u()


def create(c, dirfh, name):
    sattr = W(1, 0o644, 0, 0, 0, 0, 0)  # set mode; not uid, gid, size; times unchanged
    r = c.call(NFS, 3, 8, S(dirfh) + S(name) + W(0) + sattr)  # UNCHECKED
    st = r.u()
    if st != 0 or r.u() != 1:
        return st, None
    return st, r.s()


def wait_log(log, text, since, secs=20):
    end = time.time() + secs
    while time.time() < end:
        with open(log, errors="replace") as f:
            f.seek(since)
            if text in f.read():
                return True
        time.sleep(0.05)
    return False


def log_size(log):
    return os.path.getsize(log)


def t_reload(pid, conf, log, base):
    A, C = f"{base}/A", f"{base}/C"
    with open(conf) as f:
        orig = f.read()
    c = Conn(2049)
    m = Conn(20048)
    st, fha = mnt(m, A)
    check("before: MNT of A works", st == 0)
    check("before: GETATTR of A's root is NFS3_OK", getattr_(c, fha) == 0)
    check("before: C is not exported (MNT3ERR_NOENT)", mnt(m, C)[0] == 2)

    new = orig.replace("[export alpha]", "[export gamma]").replace(f"path = {A}", f"path = {C}")
    with open(conf, "w") as f:
        f.write(new)
    at = log_size(log)
    os.kill(pid, signal.SIGHUP)
    check("SIGHUP: droce-nfsd logs the reload (1 added, 1 removed)",
          wait_log(log, "exports reloaded: 3 export(s): 1 added, 1 removed, 2 kept", at))
    check("after: the connection from before still answers, and A's handle is NFS3ERR_ACCES",
          getattr_(c, fha) == 13)
    check("after: MNT of A on the MOUNT connection from before is MNT3ERR_NOENT",
          mnt(m, A)[0] == 2)
    st, fhc = mnt(m, C)
    check("after: C mounts", st == 0)
    check("after: GETATTR of C's root is NFS3_OK", st == 0 and getattr_(c, fhc) == 0)

    with open(conf, "w") as f:
        f.write(new.replace("(rw,no_root_squash,insecure)", "(rw,no_root_squash,insecure,bogus)", 1))
    at = log_size(log)
    os.kill(pid, signal.SIGHUP)
    check("a bad file and SIGHUP: the log names the option and keeps the running exports",
          wait_log(log, "exports not reloaded", at) and wait_log(log, "bogus", at)
          and wait_log(log, "the running exports stay", at))
    check("after the bad reload: C still answers", st == 0 and getattr_(c, fhc) == 0)
    check("after the bad reload: A is still refused", getattr_(c, fha) == 13)
    with open(conf, "w") as f:
        f.write(orig)
    c.close()
    m.close()


def t_secure(base):
    path = f"{base}/S"
    low = Conn(20048, src_port=812)
    st, fh = mnt(low, path)
    check("secure: MNT from port 812 works", st == 0)
    nlow = Conn(2049, src_port=813)
    check("secure: GETATTR from port 813 is NFS3_OK", st == 0 and getattr_(nlow, fh) == 0)
    high = Conn(20048)
    check("secure: MNT from an unprivileged port is MNT3ERR_ACCES", mnt(high, path)[0] == 13)
    nhigh = Conn(2049)
    check("secure: GETATTR from an unprivileged port is NFS3ERR_PERM",
          st == 0 and getattr_(nhigh, fh) == 1)
    for x in (low, nlow, high, nhigh):
        x.close()


BLOCK = 4096


def block_data(i):
    head = f"block {i:08d} ".encode()
    return (head * (BLOCK // len(head) + 1))[:BLOCK]


def t_drain(pid, log, base, out):
    path = f"{base}/D"
    m = Conn(20048)
    st, root = mnt(m, path)
    check("drain: MNT of D works", st == 0)
    c0 = Conn(2049)
    st, fh = create(c0, root, "stream")
    check("drain: CREATE of D/stream works", st == 0 and fh is not None)
    conns = [c0, Conn(2049)]
    nextblk = 0
    inflight = [dict(), dict()]  # xid -> block
    acked, errors, unanswered = [], 0, 0
    term_at = None
    refused = alive_then = False

    def send(k):
        nonlocal nextblk
        i = nextblk
        nextblk += 1
        d = block_data(i)
        xid = conns[k].send(NFS, 3, 7, S(fh) + W(0, i * BLOCK) + W(BLOCK, 0) + S(d))  # UNSTABLE
        inflight[k][xid] = i

    for k in range(2):
        for _ in range(16):
            send(k)
    alive = [True, True]
    while any(alive):
        for k in range(2):
            if not alive[k]:
                continue
            try:
                got = conns[k].recv()
            except (socket.timeout, ConnectionResetError):
                got = None
            if got is None:
                alive[k] = False
                unanswered += len(inflight[k])
                continue
            xid, r = got
            i = inflight[k].pop(xid)
            if r.u() == 0:
                acked.append(i)
            else:
                errors += 1
            if term_at is None and len(acked) >= 150:
                term_at = time.time()
                at = log_size(log)
                os.kill(pid, signal.SIGTERM)
                # the listener is gone before DRAINING is logged, and the server lives on for
                # at least the settling time (200 ms) after that
                wait_log(log, "state: SERVING -> DRAINING", at, secs=10)
                try:
                    Conn(2049).close()
                except OSError:
                    refused = True
                try:
                    os.kill(pid, 0)
                    alive_then = True
                except OSError:
                    alive_then = False
            if term_at is None:
                send(k)
            elif not inflight[k]:
                # nothing more to hear on this one: the server closes it when it exits
                try:
                    alive[k] = conns[k].recv() is not None
                except (socket.timeout, ConnectionResetError):
                    alive[k] = False
    print(f"# drain: {len(acked)} WRITEs answered NFS3_OK, {errors} errors, "
          f"{unanswered} unanswered when the server closed", flush=True)
    check("drain: no WRITE answered with an error", errors == 0)
    with open(out, "w") as f:
        f.write(" ".join(str(i) for i in sorted(acked)) + "\n")
    check("drain: while draining, a new connection is refused (by a server still running)",
          refused and alive_then)
    return len(acked) >= 150


def verify_drain(base, acked_file, log):
    with open(acked_file) as f:
        acked = [int(x) for x in f.read().split()]
    bad = 0
    with open(f"{base}/D/stream", "rb") as f:
        for i in acked:
            f.seek(i * BLOCK)
            if f.read(BLOCK) != block_data(i):
                bad += 1
    check(f"drain: all {len(acked)} answered blocks are on droce's disk byte for byte",
          len(acked) >= 150 and bad == 0)
    with open(log, errors="replace") as f:
        text = f.read()
    order = ["SERVING -> DRAINING", "DRAINING -> SETTLING", "SETTLING -> SYNCING",
             "SYNCING -> STOPPED"]
    pos = [text.find("state: " + s) for s in order]
    check("drain: the states went SERVING, DRAINING, SETTLING, SYNCING, STOPPED in order",
          all(p >= 0 for p in pos) and pos == sorted(pos))
    check("drain: every call answered and the file system synced",
          "drained: every call answered; synced 1 file system(s)" in text)


def main():
    what = sys.argv[1]
    if what == "reload":
        t_reload(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif what == "secure":
        t_secure(sys.argv[2])
    elif what == "drain":
        t_drain(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif what == "verify":
        verify_drain(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
