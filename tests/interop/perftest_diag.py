#!/usr/bin/env python3
"""What the wire says about one perftest case between droce and Linux rxe (tests/interop/perftest.sh).

Usage: perftest_diag.py CAPTURE.pcap DROCE_MAC T0 T1 [--verdict [--droce-log FILE --budget S]]
                       [--cache FILE]
T0, T1: the case's window in seconds since the epoch (date +%s.%N); only RC frames inside it
count (CM MADs, UD, are left out). Times printed are relative to T0. --cache FILE: the
capture's RC frames as tshark gives them, read from FILE, or written there by one tshark pass
over the whole capture when FILE is not there yet (perftest.sh diagnoses a dozen windows of one
capture of ~300,000 frames: one pass instead of one each).

Always prints, per sender (droce / rxe): request packets (first sends and resends, go-back-N
events), ACKs (duplicates), NAKs by kind, READ responses, and its last RC frame. With
--verdict (for a case that did not finish), says from the wire alone which side stopped making
progress, quoting the frames, and ends with "# blame: droce", "# blame: rxe" or
"# blame: unknown":
  the responder went silent  - the requester (re)transmitted for 0.3 s or more after the
                               responder's last answer and got none (it may have given up), or
                               kept doing so to the end;
  the requester went silent  - it ignored the responder's NAK (never resent the NAKed PSN), or
                               stopped (re)transmitting what was not acknowledged (blame: the
                               requester), or stopped although everything was acknowledged (an
                               idle transport: blame unknown) - unless droce's log (--droce-log)
                               says its QP ran out of retries (RETRY_EXC_ERR) and the wire shows
                               rxe making no progress for at least droce's whole retry budget
                               (--budget: 8 x the QP's timeout, the first send and its 7 retries;
                               rxe's VM under TCG on a loaded host can stall that long): blame rxe;
  both active to the end     - a livelock (the PSNs resent most, the answers they got).
"""
import collections
import os
import subprocess
import sys

FIELDS = ["frame.number", "frame.time_epoch", "eth.src", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome"]
REQUESTS = set(range(0, 13)) | {19, 20, 22, 23}  # SEND, WRITE, READ request, atomics
READ_RESP = {13, 14, 15, 16}
ACK, ATOMIC_ACK = 17, 18
NAK_KIND = {0: "PSN sequence error", 1: "invalid request", 2: "remote access error",
            3: "remote operational error", 4: "invalid RD request"}
QUIET = 1.0  # seconds without a frame that count as "stopped"


class Frame:
    __slots__ = ("n", "t", "who", "op", "qp", "psn", "syn")

    def __init__(self, r, mac, t0):
        self.n = int(r[0])
        self.t = float(r[1]) - t0
        self.who = "droce" if r[2].lower() == mac else "rxe"
        self.op = int(r[3], 0)
        self.qp = r[4]
        self.psn = int(r[5])
        self.syn = int(r[6], 0) if len(r) > 6 and r[6] else None

    def kind(self):
        if self.op in REQUESTS:
            return "request"
        if self.op in READ_RESP:
            return "read response"
        if self.op == ATOMIC_ACK:
            return "atomic ACK"
        if self.op == ACK and self.syn is not None:
            t = self.syn >> 5
            if t == 0:
                return "ACK"
            if t == 1:
                return "RNR NAK"
            if t == 3:
                return "NAK " + NAK_KIND.get(self.syn & 0x1F, f"code {self.syn & 0x1F}")
        return f"opcode {self.op:#04x}"

    def __str__(self):
        return f"frame {self.n} (+{self.t:.3f} s, {self.who}: {self.kind()} PSN {self.psn})"


def tshark_rc(cap, window=None):
    """The capture's RC frames (no CM MADs, UD or CNPs), FIELDS tab-separated, a line each;
    window (T0, T1): only those inside it"""
    flt = "infiniband && infiniband.bth.opcode < 0x20"
    if window:
        flt += f" && frame.time_epoch >= {window[0]:.6f} && frame.time_epoch <= {window[1]:.6f}"
    return subprocess.run(["tshark", "-r", cap, "--disable-protocol", "rpcordma", "-Y", flt,
                           "-T", "fields", "-E", "separator=\t"] +
                          sum((["-e", f] for f in FIELDS), []),
                          capture_output=True, text=True).stdout.splitlines()


def load(cap, mac, t0, t1, cache=None):
    if cache is None:
        lines = tshark_rc(cap, (t0, t1))
    else:
        try:
            with open(cache) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            lines = tshark_rc(cap)
            with open(cache + ".tmp", "w") as f:
                f.write("\n".join(lines) + "\n")
            os.replace(cache + ".tmp", cache)
        lo, hi = round(t0, 6), round(t1, 6)  # the window as tshark's filter has it
        lines = [x for x in lines if x.strip() and lo <= float(x.split("\t")[1]) <= hi]
    return [Frame(line.split("\t"), mac, t0) for line in lines if line.strip()]


def unwrap(base, psn):
    d = (psn - base) & 0xFFFFFF
    return d - (1 << 24) if d >= 1 << 23 else d


class Side:
    def __init__(self, who, frames):
        self.who = who
        self.frames = [f for f in frames if f.who == who]
        self.req = [f for f in self.frames if f.kind() == "request"]
        self.base = self.req[0].psn if self.req else None
        self.sent = collections.Counter(f.psn for f in self.req)
        self.gobacks = []
        prev = None
        for f in self.req:
            if prev is not None and unwrap(prev.psn, f.psn) <= 0:
                self.gobacks.append(f)
            prev = f
        self.acks = [f for f in self.frames if f.kind() == "ACK"]
        self.dup_acks = sum(1 for a, b in zip(self.acks, self.acks[1:]) if a.psn == b.psn)
        self.naks = [f for f in self.frames if f.kind().startswith(("NAK", "RNR"))]
        self.reads = [f for f in self.frames if f.kind() == "read response"]
        self.answers = [f for f in self.frames if f.kind() != "request"]

    def summary(self):
        if not self.frames:
            return f"{self.who}: no RC frame"
        resent = sum(c - 1 for c in self.sent.values())
        parts = []
        if self.req:
            parts.append(f"{len(self.req)} request packets ({len(self.sent)} PSNs, {resent} "
                         f"resent, {len(self.gobacks)} go-back-N)")
        if self.acks:
            parts.append(f"{len(self.acks)} ACKs ({self.dup_acks} repeating the previous PSN)")
        kinds = collections.Counter(f.kind() for f in self.naks)
        parts += [f"{c} {k}" for k, c in sorted(kinds.items())]
        if self.reads:
            parts.append(f"{len(self.reads)} READ responses")
        atom = sum(1 for f in self.frames if f.op == ATOMIC_ACK)
        if atom:
            parts.append(f"{atom} atomic ACKs")
        return f"{self.who}: " + ", ".join(parts) + f"; last RC frame +{self.frames[-1].t:.3f} s"


def longest_stall(rq, rs):
    """The longest stretch in which rq had requests not yet acknowledged and rs acknowledged
    nothing new: (seconds, start, end, PSN awaited); an ACK covers its PSN, a NAK-sequence error
    the one before, a READ response its own."""
    frames = sorted(rq.req + rs.answers, key=lambda f: (f.t, f.n))
    top = acked = None
    since, best = None, (0.0, 0.0, 0.0, None)
    for f in frames:
        u = unwrap(rq.base, f.psn)
        if f.who == rq.who:
            top = u if top is None else max(top, u)
            if since is None and (acked is None or top > acked):
                since = f.t
            continue
        k = f.kind()
        if k == "ACK" or k.startswith("NAK PSN") or k in ("read response", "atomic ACK"):
            v = u - 1 if k.startswith("NAK PSN") else u
            if acked is None or v > acked:
                if since is not None and f.t - since > best[0]:
                    best = (f.t - since, since, f.t, (acked if acked is not None else -1) + 1)
                acked = v
                since = f.t if top is not None and top > acked else None
    return best


def verdict(frames, end, droce_log=None, budget=None):
    sides = {w: Side(w, frames) for w in ("droce", "rxe")}
    if not frames:
        return ["no RC frame between droce and rxe in this case's window: the QPs never carried "
                "traffic (the exchange or the connection failed; see the tools' logs)"], "unknown"
    rq = max(sides.values(), key=lambda s: len(s.req))
    rs = sides["rxe" if rq.who == "droce" else "droce"]
    if not rq.req:
        return ["no request packet at all in the window"], "unknown"
    last_req = rq.req[-1]
    last_ans = rs.answers[-1] if rs.answers else None
    top = max(unwrap(rq.base, f.psn) for f in rq.req)
    acked = max((unwrap(rq.base, f.psn) for f in rs.answers if f.kind() in
                 ("ACK", "read response", "atomic ACK")), default=None)
    out = []
    quiet_rq = end - last_req.t
    # requests the responder never answered: sent after its last answer (or with none at all)
    tail = [f for f in rq.req if last_ans is None or f.t > last_ans.t]
    before = collections.Counter(f.psn for f in rq.req if last_ans is not None and
                                 f.t <= last_ans.t)
    seen, resent_tail = set(before), []
    for f in tail:
        if f.psn in seen:
            resent_tail.append(f)
        seen.add(f.psn)
    unanswered = (last_req.t - (last_ans.t if last_ans else rq.req[0].t)) if tail else 0
    if tail and (resent_tail or last_ans is None) and unanswered >= 0.3:
        psns = collections.Counter(f.psn for f in resent_tail or tail)
        out.append(f"{rs.who} stopped answering: after {rs.who}'s last answer "
                   f"{last_ans if last_ans else '(none at all)'}, {rq.who} sent {len(tail)} "
                   f"request packets over {unanswered:.2f} s ({len(resent_tail)} of them "
                   f"retransmissions, e.g. PSN "
                   f"{', '.join(f'{p} x{c}' for p, c in psns.most_common(3))}) and got no "
                   f"answer; {rq.who}'s last request {last_req}")
        return out, rs.who
    if quiet_rq >= QUIET:
        nak = rs.naks[-1] if rs.naks else None
        if nak and nak.t > last_req.t - 0.5 and not any(
                f.t > nak.t and f.psn == nak.psn for f in rq.req):
            out.append(f"{rq.who} ignores {rs.who}'s NAK: {nak}; {rq.who} never resent PSN "
                       f"{nak.psn} after it; its last request was {last_req}, then nothing for "
                       f"{quiet_rq:.1f} s")
        elif acked is not None and acked >= top:
            stall = longest_stall(rq, rs)
            gave_up = False
            if droce_log and rq.who == "droce":
                try:
                    with open(droce_log, errors="replace") as f:
                        gave_up = "RETRY_EXC_ERR" in f.read()
                except OSError:
                    pass
            if gave_up and budget and stall[0] >= budget:
                out.append(f"{rs.who} stalled longer than {rq.who}'s retry budget: from "
                           f"+{stall[1]:.3f} s to +{stall[2]:.3f} s ({stall[0]:.3f} s) it "
                           f"acknowledged nothing new while {rq.who} waited for PSN "
                           f"{stall[3]:+d} from the first; {rq.who}'s QP gives up after "
                           f"{budget:.3f} s without progress (its timeout, 7 retries) and did "
                           f"(RETRY_EXC_ERR in its log), as the IBA says it must; {rs.who}'s "
                           f"answers that came later, up to {last_ans}, were too late")
                return out, rs.who
            out.append(f"{rq.who} stopped although everything it sent was acknowledged: the "
                       f"last answer {last_ans} covers its highest PSN; nothing more from "
                       f"{rq.who} for {quiet_rq:.1f} s: the transport is idle, not stuck - "
                       f"the application or the exchange around it did not finish (see the "
                       f"tools' logs); the longest wait for {rs.who}'s progress: {stall[0]:.3f} s "
                       f"from +{stall[1]:.3f} s")
            return out, "unknown"
        else:
            ack_s = f"acknowledged only through {acked:+d} PSNs from the first" \
                if acked is not None else "never acknowledged"
            out.append(f"{rq.who} stopped (re)transmitting: its highest request PSN is {top:+d} "
                       f"from the first, {ack_s}; last request {last_req}; the last answer "
                       f"from {rs.who}: {last_ans}; no retransmission for {quiet_rq:.1f} s")
        return out, rq.who
    if last_ans is None or end - last_ans.t >= QUIET:
        resent = collections.Counter(f.psn for f in tail)
        out.append(f"{rs.who} stopped answering: {rq.who} sent {len(tail)} request packets "
                   f"(PSNs {', '.join(str(p) for p, _ in resent.most_common(4))} ...) after "
                   f"{rs.who}'s last answer {last_ans}; nothing from {rs.who} for "
                   f"{end - (last_ans.t if last_ans else 0):.1f} s")
        return out, rs.who
    recent = [f for f in rq.req if f.t > end - 3]
    rc = collections.Counter(f.psn for f in recent)
    ans = collections.Counter(f.kind() + f" PSN {f.psn}" for f in rs.answers if f.t > end - 3)
    out.append(f"both sides active to the end (a livelock?): in the last 3 s {rq.who} sent "
               f"PSNs {dict(rc.most_common(4))}, {rs.who} answered {dict(ans.most_common(4))}")
    return out, "unknown"


def main():
    argv, droce_log, budget = sys.argv[1:], None, None
    cache = None
    for opt in ("--droce-log", "--budget", "--cache"):
        if opt in argv:
            i = argv.index(opt)
            if i + 1 >= len(argv):
                print(f"{opt} needs a value", file=sys.stderr)
                return 2
            if opt == "--droce-log":
                droce_log = argv[i + 1]
            elif opt == "--cache":
                cache = argv[i + 1]
            else:
                budget = float(argv[i + 1])
            del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cap, mac, t0, t1 = args[0], args[1].lower(), float(args[2]), float(args[3])
    frames = load(cap, mac, t0, t1, cache)
    print(f"# wire, +0 .. +{t1 - t0:.1f} s: {len(frames)} RC frames")
    for who in ("droce", "rxe"):
        print("#   " + Side(who, frames).summary())
    if "--verdict" in argv:
        if frames:
            print("#   last RC frames:")
            for f in frames[-6:]:
                print(f"#     {f}")
        lines, blame = verdict(frames, t1 - t0, droce_log, budget)
        for line in lines:
            print(f"# diagnosis: {line}")
        print(f"# blame: {blame}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
