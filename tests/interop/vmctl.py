#!/usr/bin/env python3
"""Talk to a lab VM (tests/interop/lab.sh) through its virtio-serial agent ports.

    vmctl.py run DIR TIMEOUT CMD...   run CMD (a shell command line) in the VM; print its
                                      stdout+stderr; exit with its exit status
    vmctl.py console SOCK             an interactive shell on the VM's serial console
                                      (leave with Ctrl-])

Agent protocol (one request at a time per port; the VM runs one agent per port named agentN,
see the init script in build_image.py):
    host -> VM   "REQ <token> <timeout-s> <base64 of the command>\\n"
    VM -> host   "BEGIN <token>\\n" <base64 of stdout+stderr, in lines> "END <token> <rc>\\n"
The VM ends the command after <timeout-s> with SIGTERM
(rc 143), and SIGKILL 5 s later (rc 137). Replies to other tokens (a command of an
earlier client that gave up) are skipped. DIR holds agent<N>.sock for N = 0..; a port is taken
with an exclusive flock on agent<N>.lock, so up to that many commands run at once.
Host-side exit statuses: 124 = no answer in time (the VM is hung), 125 = no agent reachable.
"""
import base64
import fcntl
import os
import select
import socket
import sys
import termios
import time
import tty
import uuid


def take_port(d):
    """Lock and connect a free agent port; returns (lockfile, socket) or (None, None)."""
    n = 0
    while os.path.exists(os.path.join(d, f"agent{n}.sock")):
        lk = open(os.path.join(d, f"agent{n}.lock"), "w")
        try:
            fcntl.flock(lk, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lk.close()
            n += 1
            continue
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(os.path.join(d, f"agent{n}.sock"))
            return lk, s
        except OSError:
            s.close()
            lk.close()
            n += 1
    return None, None


def run(d, timeout, cmd):
    deadline = time.monotonic() + timeout + 15
    lk = s = None
    while time.monotonic() < deadline:
        lk, s = take_port(d)
        if s:
            break
        time.sleep(0.2)
    if not s:
        print(f"vmctl: no free agent port in {d}", file=sys.stderr)
        return 125
    tok = uuid.uuid4().hex[:12]
    req = f"REQ {tok} {max(1, int(timeout))} {base64.b64encode(cmd.encode()).decode()}\n"
    s.sendall(req.encode())
    buf = b""
    out = []
    inside = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            print(f"vmctl: no answer from the VM within {timeout + 15:.0f} s", file=sys.stderr)
            return 124
        r, _, _ = select.select([s], [], [], left)
        if not r:
            continue
        chunk = s.recv(65536)
        if not chunk:
            print("vmctl: the VM closed the agent port", file=sys.stderr)
            return 124
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            line = line.decode(errors="replace").strip()
            if not inside:
                inside = line == f"BEGIN {tok}"
                continue
            if line.startswith(f"END {tok} "):
                data = base64.b64decode("".join(out))
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
                return int(line.split()[2])
            out.append(line)


def console(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd) if os.isatty(fd) else None
    if old:
        tty.setraw(fd)
    print("[connected; Ctrl-] leaves]\r", flush=True)
    s.sendall(b"\n")
    try:
        while True:
            r, _, _ = select.select([s, fd], [], [])
            if s in r:
                data = s.recv(4096)
                if not data:
                    break
                os.write(sys.stdout.fileno(), data)
            if fd in r:
                data = os.read(fd, 1024)
                if not data or b"\x1d" in data:
                    break
                s.sendall(data)
    finally:
        if old:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        print()
    return 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "run":
        return run(argv[2], float(argv[3]), " ".join(argv[4:]))
    if len(argv) == 3 and argv[1] == "console":
        return console(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
