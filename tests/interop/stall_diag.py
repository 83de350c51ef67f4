#!/usr/bin/env python3
"""Why did an RC run between droce and Linux rxe stop? Reads one run's capture (the bridge port
towards droce) and says, from the wire alone, which side stopped making progress.

Usage: stall_diag.py CAPTURE.pcap DROCE_MAC [END_EPOCH]
END_EPOCH: when the run was given up, in seconds since the epoch (date +%s.%N; default: the
last frame's time). Times printed are relative to the first RC frame.

Prints the last RoCE frames, then per sender: frames, the time of its last frame, its
request packets sent more than once (PSN and count) and the NAKs it sent; and one verdict:
  "rxe stopped answering"        droce kept (re)transmitting, nothing from rxe for the last
                                 part of the run;
  "rxe retransmits without end"  rxe resends the same PSN again and again, droce answers each;
  "droce stopped answering"      the mirror images of the two above;
  "droce retransmits without end"
  "both sides idle"              no RC frame in the last seconds: a message that neither side
                                 resends (a requester that believes it was acknowledged).
"""
import collections
import subprocess
import sys

FIELDS = ["frame.number", "frame.time_epoch", "eth.src", "infiniband.bth.opcode",
          "infiniband.bth.psn", "infiniband.bth.destqp", "infiniband.aeth.syndrome",
          "_ws.col.Info"]
REQUEST_OPS = set(range(0, 13)) | {19, 20}
NAKS = {0: "PSN sequence error", 1: "invalid request", 2: "remote access error",
        3: "remote operational error"}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cap, mac = sys.argv[1], sys.argv[2].lower()
    out = subprocess.run(["tshark", "-r", cap, "--disable-protocol", "rpcordma", "-Y",
                          "infiniband && !infiniband.mad", "-T", "fields", "-E", "separator=|"] +
                         sum((["-e", f] for f in FIELDS), []),
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        r = dict(zip(FIELDS, line.split("|")))
        r["t"] = float(r["frame.time_epoch"])
        r["who"] = "droce" if r["eth.src"].lower() == mac else "rxe"
        r["op"] = int(r["infiniband.bth.opcode"] or -1)
        rows.append(r)
    if not rows:
        print("# diagnosis: no RC frame at all on the wire")
        return 0
    t0 = rows[0]["t"]
    for r in rows:
        r["t"] -= t0
    end = float(sys.argv[3]) - t0 if len(sys.argv) > 3 else rows[-1]["t"]
    print(f"# diagnosis of {cap.rsplit('/', 1)[-1]}: {len(rows)} RC frames, run given up at "
          f"{end:.2f} s; the last ones:")
    for r in rows[-12:]:
        print(f"#   {r['frame.number']:>6} {r['t']:9.3f} {r['who']:5} {r['_ws.col.Info'].strip()}"
              f" psn {r['infiniband.bth.psn']}")
    last = {}
    resent = {"droce": collections.Counter(), "rxe": collections.Counter()}
    seen = collections.defaultdict(set)
    naks = collections.Counter()
    for r in rows:
        last[r["who"]] = r["t"]
        if r["op"] in REQUEST_OPS:
            k = (r["who"], r["infiniband.bth.destqp"])
            psn = int(r["infiniband.bth.psn"])
            if psn in seen[k]:
                resent[r["who"]][psn] += 1
            seen[k].add(psn)
        syn = r["infiniband.aeth.syndrome"]
        if syn and int(syn, 0) >> 5 == 3:
            naks[(r["who"], NAKS.get(int(syn, 0) & 0x1F, "?"))] += 1
    for who in ("droce", "rxe"):
        n = sum(1 for r in rows if r["who"] == who)
        top = ", ".join(f"psn {p} x{c + 1}" for p, c in resent[who].most_common(3)) or "none"
        nk = ", ".join(f"{k[1]} x{v}" for k, v in naks.items() if k[0] == who) or "none"
        print(f"#   {who}: {n} frames, the last at {last.get(who, -1):.3f} s; resent most: {top};"
              f" NAKs sent: {nk}")
    quiet = 3.0
    tail = [r for r in rows if r["t"] > end - quiet * 2]
    for me, peer in (("droce", "rxe"), ("rxe", "droce")):
        if last.get(me, -1) > end - quiet and last.get(peer, -1) < end - quiet:
            print(f"# verdict: {peer} stopped answering: {me} kept sending until "
                  f"{last[me]:.2f} s, nothing from {peer} after {last.get(peer, -1):.2f} s")
            return 0
    for me in ("rxe", "droce"):
        mine = [r for r in tail if r["who"] == me and r["op"] in REQUEST_OPS]
        if len(mine) >= 4 and len({r["infiniband.bth.psn"] for r in mine}) <= 2:
            other = "droce" if me == "rxe" else "rxe"
            answers = collections.Counter(r["_ws.col.Info"].strip().split(" QP=")[0] + (
                " " + r["_ws.col.Info"].split("[")[-1].rstrip("] ") if "[" in r["_ws.col.Info"]
                else "") for r in tail if r["who"] == other)
            print(f"# verdict: {me} retransmits without end: the same PSN(s) "
                  f"{sorted({r['infiniband.bth.psn'] for r in mine})} {len(mine)} times in the "
                  f"last {quiet * 2:.0f} s; {other} answered with "
                  + (", ".join(f"{k} x{v}" for k, v in answers.items()) or "nothing"))
            return 0
    if rows[-1]["t"] < end - quiet:
        print(f"# verdict: both sides idle since {rows[-1]['t']:.2f} s: neither resends "
              f"anything (a requester that believes it was acknowledged, or an application "
              f"waiting for a message nobody sends)")
    else:
        print("# verdict: traffic until the end, no single side stuck (slow, not stalled?)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
