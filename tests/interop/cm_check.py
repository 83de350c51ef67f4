#!/usr/bin/env python3
"""The connection-level wire check of the interop lab's RDMA CM tests (rping.sh, bad_rkey.sh,
lossy.sh): what wire_check.py does not look at.

Usage: cm_check.py CAPTURE.pcap DROCE_MAC [--conns N] [--access-naks N] [--psn-window W]
                   [--lossy]

- CM MADs: ConnectRequest, ConnectReply, ReadyToUse, DisconnectRequest and DisconnectReply are
  all present, and with --conns N there are N ConnectRequests (retransmitted MADs, with the
  same transaction ID, count once), each answered by a ConnectReply and a ReadyToUse; no
  ConnectReject. Printed per sender (droce / peer). With --lossy (the link drops frames, MADs
  too) a missing MAD is only noted: the runs' own results show whether the CM recovered.
- Starting PSNs (Linux ib_cm's convention, which rdma-core's peers follow: cm_req_handler()
  takes the passive side's send PSN from the REQ, cm_rep_handler() the active side's from the
  REP; tests/data/nfs_rdma_full.pcap frames 1-6 show it): for every connection, the first
  request packet the active side sends carries the REP's Starting PSN, and the first the
  passive side sends the REQ's. With loss a first packet may be missing on the wire, so the
  PSN may lie up to W (default 0) past the starting PSN. The responder's side too: the first
  response (ACK, NAK, READ response) each side sends carries a PSN at most 4096 past the
  starting PSN its peer sends from (a NAK "PSN sequence error" carries the PSN the responder
  expects: a responder that took the wrong starting PSN shows there even if it never sends
  a request).
- NAKs (AETH syndrome 011xxxxx; IBA vol. 1 ch. 9): a histogram per sender and error code; with
  --access-naks N, droce sent exactly N NAKs with error code 2 (remote access error).
Prints "ok"/"FAIL" lines; exit 0 when all is well.
"""
import argparse
import collections
import subprocess
import sys

FIELDS = ["frame.number", "eth.src", "ip.src", "ip.dst", "infiniband.bth.opcode",
          "infiniband.bth.psn", "infiniband.bth.destqp", "_ws.col.Info",
          "infiniband.cm.req.startpsn", "infiniband.cm.rep.startpsn",
          "infiniband.cm.req.localqpn", "infiniband.cm.rep.localqpn",
          "infiniband.aeth.syndrome", "infiniband.mad.transactionid"]
CM_NEED = ["ConnectRequest", "ConnectReply", "ReadyToUse", "DisconnectRequest",
           "DisconnectReply"]
# RC request opcodes: SEND (0-5), RDMA WRITE (6-11), RDMA READ request (12), atomics (19, 20);
# responses: RDMA READ response (13-16), ACK (17), atomic ACK (18)
REQUEST_OPS = set(range(0, 13)) | {19, 20}
RESPONSE_OPS = set(range(13, 19))
RESPONSE_WINDOW = 4096
NAK_CODES = {0: "PSN sequence error", 1: "invalid request", 2: "remote access error",
             3: "remote operational error", 4: "invalid RD request"}


def num(s):
    return int(s, 0) if s else None


def rows(cap):
    out = subprocess.run(["tshark", "-r", cap, "--disable-protocol", "rpcordma", "-Y",
                          "infiniband", "-T", "fields", "-E", "separator=|"] +
                         sum((["-e", f] for f in FIELDS), []),
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        r = dict(zip(FIELDS, (line.split("|") + [""] * len(FIELDS))[:len(FIELDS)]))
        r["op"] = num(r["infiniband.bth.opcode"])
        r["info"] = r["_ws.col.Info"].strip()
        yield r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cap")
    ap.add_argument("droce_mac")
    ap.add_argument("--conns", type=int)
    ap.add_argument("--access-naks", type=int)
    ap.add_argument("--psn-window", type=int, default=0)
    ap.add_argument("--lossy", action="store_true")
    a = ap.parse_args()
    mac = a.droce_mac.lower()
    frames = list(rows(a.cap))
    fails = 0

    def check(ok, what, lenient=False):
        nonlocal fails
        print(("ok   - " if ok else "note - " if lenient else "FAIL - ") + what +
              (" (MADs may be lost on this link)" if lenient and not ok else ""))
        fails += not ok and not lenient

    who = lambda r: "droce" if r["eth.src"].lower() == mac else "peer"  # noqa: E731
    # CM MADs, retransmissions (same transaction ID and message) counted once
    cm, seen = collections.Counter(), set()
    for r in frames:
        if r["info"].startswith("CM: "):
            key = (r["info"], r["infiniband.mad.transactionid"], who(r))
            if key not in seen:
                seen.add(key)
                cm[(r["info"][4:], who(r))] += 1
    names = sorted({k[0] for k in cm})
    print("# CM MADs (sender: count, retransmissions once): " + "; ".join(
        f"{n} " + ", ".join(f"{w} {cm[(n, w)]}" for w in ("droce", "peer") if cm[(n, w)])
        for n in names))
    total = {n: cm[(n, "droce")] + cm[(n, "peer")] for n in names}
    check(all(total.get(n) for n in CM_NEED) and not total.get("ConnectReject"),
          "CM: " + "/".join(CM_NEED) + " all present, no ConnectReject", a.lossy)
    if a.conns is not None:
        check(all(total.get(n, 0) == a.conns for n in CM_NEED[:3]),
              f"CM: {a.conns} connection(s): as many ConnectRequests, ConnectReplies and "
              f"ReadyToUses ({', '.join(f'{n} {total.get(n, 0)}' for n in CM_NEED[:3])})",
              a.lossy)

    # connections: REQ (active QPN, REQ PSN) ... REP (passive QPN, REP PSN)
    conns = []
    for i, r in enumerate(frames):
        if r["info"] == "CM: ConnectRequest":
            if conns and conns[-1]["req_frame"] is not None and conns[-1]["rep"] is None and \
                    conns[-1]["active_qpn"] == num(r["infiniband.cm.req.localqpn"]):
                continue  # a retransmitted REQ
            conns.append({"req_frame": i, "active": r["ip.src"], "passive": r["ip.dst"],
                          "active_qpn": num(r["infiniband.cm.req.localqpn"]),
                          "req_psn": num(r["infiniband.cm.req.startpsn"]), "rep": None})
        elif r["info"] == "CM: ConnectReply" and conns and conns[-1]["rep"] is None:
            conns[-1].update(rep=i, passive_qpn=num(r["infiniband.cm.rep.localqpn"]),
                             rep_psn=num(r["infiniband.cm.rep.startpsn"]))
    psn_bad = []
    for k, c in enumerate(conns):
        if c["rep"] is None:
            continue
        end = conns[k + 1]["req_frame"] if k + 1 < len(conns) else len(frames)
        first = {}
        for r in frames[c["rep"]:end]:
            kind = "req" if r["op"] in REQUEST_OPS else "resp" if r["op"] in RESPONSE_OPS \
                else None
            if not kind:
                continue
            dst, qpn = r["ip.dst"], num(r["infiniband.bth.destqp"])
            if dst == c["passive"] and qpn == c["passive_qpn"]:
                side = "active"
            elif dst == c["active"] and qpn == c["active_qpn"]:
                side = "passive"
            else:
                continue
            first.setdefault((side, kind), (num(r["infiniband.bth.psn"]), r["frame.number"],
                                            r["info"]))
        # (side, what it sends, the starting PSN, its name, how far past it may be)
        for side, kind, want, name, win in (
                ("active", "req", c["rep_psn"], "REP", a.psn_window),
                ("passive", "req", c["req_psn"], "REQ", a.psn_window),
                ("passive", "resp", c["rep_psn"], "REP", RESPONSE_WINDOW),
                ("active", "resp", c["req_psn"], "REQ", RESPONSE_WINDOW)):
            if (side, kind) not in first:
                continue
            psn, fno, info = first[(side, kind)]
            if (psn - want) % (1 << 24) > win:
                what = "started sending at" if kind == "req" else "first answered with"
                psn_bad.append(f"{side} side {c[side]} {what} PSN {psn:#08x} (frame {fno}: "
                               f"{info}); the {name}'s starting PSN is {want:#08x} "
                               f"(REQ {c['req_psn']:#08x}, REP {c['rep_psn']:#08x})")
    for p in psn_bad[:6]:
        print("#   " + p)
    check(conns and not psn_bad,
          f"PSN: in all {len(conns)} connection(s) the active side sends from the REP's "
          f"starting PSN and the passive side from the REQ's (Linux ib_cm)")

    # retransmissions: request packets whose PSN the sender already sent to that QP
    sent, resent = collections.defaultdict(set), collections.Counter()
    for r in frames:
        if r["op"] in REQUEST_OPS:
            key = (who(r), r["ip.dst"], r["infiniband.bth.destqp"])
            psn = num(r["infiniband.bth.psn"])
            if psn in sent[key]:
                resent[(who(r), r["op"] == 12)] += 1
            sent[key].add(psn)
    print("# retransmitted request packets: " + ", ".join(
        f"{w} {resent[(w, False)]} (+{resent[(w, True)]} READ requests)"
        for w in ("droce", "peer")))

    # NAKs
    naks = collections.Counter()
    for r in frames:
        syn = num(r["infiniband.aeth.syndrome"])
        if syn is not None and syn >> 5 == 3:
            naks[(who(r), syn & 0x1F)] += 1
    print("# NAKs: " + (", ".join(f"{w} {NAK_CODES.get(c, c)} x{n}"
                                  for (w, c), n in sorted(naks.items())) or "none"))
    if a.access_naks is not None:
        got = naks[("droce", 2)]
        check(got == a.access_naks,
              f"droce sent {a.access_naks} NAK(s) with AETH syndrome 'remote access error' "
              f"(got {got})")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
