#!/usr/bin/env python3
"""The wire check of the interop lab: every RoCEv2 frame in a capture (droce's and Linux rxe's)
must decode in tshark as InfiniBand with nothing malformed and no expert info of severity
error, and its ICRC must verify, recomputed with zlib over the masked fields (IBTA A17.3.3,
tests/roce/tx_check.py's icrc_ok).

Usage: wire_check.py CAPTURE.pcap DROCE_MAC
Prints per sender (droce / peer) the frame count and opcode histogram; exit 0 when all is well.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "roce"))
from tx_check import frames, icrc_ok  # noqa: E402

SEV_ERROR = 0x00800000  # _ws.expert.severity "Error"
# Opcodes whose payload is the user's opaque data (RC/UC RDMA WRITE first/middle/last/only
# with or without immediate, RC RDMA READ response first/middle/last/only). tshark 4.0's
# InfiniBand dissector guesses such a payload to be "EtherType encapsulated" when its first
# bytes look like an EtherType and two zero bytes (infiniband.rwh.etype), then calls the
# payload's "IPv4"/"LLC"/... malformed: a guess about file data, not a malformed frame. Such
# frames are counted apart; their BTH and ICRC are still checked.
DATA_OPCODES = {0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x0E, 0x0F, 0x10,
                0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B}


def tshark(cap, flt, fields):
    # RPC-over-RDMA's heuristic would take any SEND payload for its header and call short
    # ones malformed (tests/integration/rc_veth.sh does the same)
    out = subprocess.run(["tshark", "-r", cap, "--disable-protocol", "rpcordma", "-Y", flt,
                          "-T", "fields"] +
                         sum((["-e", f] for f in fields), []),
                         capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def roce_frames(cap):
    """(frame number, bytes trimmed to the IP length) of every UDP/4791 frame, from the file."""
    for n, fr in enumerate(frames(cap), 1):
        off = 18 if fr[12:14] == b"\x81\x00" else 14
        if fr[off - 2:off] == b"\x08\x00" and fr[off + 9] == 17:
            iplen = int.from_bytes(fr[off + 2:off + 4], "big")
            ihl = (fr[off] & 0x0F) * 4
            if int.from_bytes(fr[off + ihl + 2:off + ihl + 4], "big") == 4791:
                yield n, fr[:off + iplen]
        elif fr[off - 2:off] == b"\x86\xdd" and fr[off + 6] == 17:
            if int.from_bytes(fr[off + 42:off + 44], "big") == 4791:
                yield n, fr[:off + 40 + int.from_bytes(fr[off + 4:off + 6], "big")]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cap, droce_mac = sys.argv[1], sys.argv[2].lower()
    ok = True
    raw = dict(roce_frames(cap))
    rows = tshark(cap, "udp.dstport == 4791",
                  ["frame.number", "eth.src", "infiniband.bth.opcode", "_ws.malformed"])
    ops = {"droce": collections.Counter(), "peer": collections.Counter()}
    undecoded = []
    for r in rows:
        r += [""] * (4 - len(r))
        who = "droce" if r[1].lower() == droce_mac else "peer"
        if not r[2]:
            undecoded.append(r[0])
        else:
            ops[who][int(r[2], 0)] += 1
    flagged = tshark(cap, f"infiniband && (_ws.malformed || _ws.expert.severity >= {SEV_ERROR:#x})",
                     ["frame.number", "_ws.expert.message", "infiniband.bth.opcode",
                      "infiniband.rwh.etype"])
    bad, guessed = [], []
    for r in flagged:
        r += [""] * (4 - len(r))
        opcode = int(r[2].split(",")[0], 0) if r[2] else -1
        (guessed if opcode in DATA_OPCODES and r[3] else bad).append(r[:2])
    if guessed:
        print(f"  {len(guessed)} RDMA data frames whose opaque payload tshark guessed to be an "
              f"EtherType-encapsulated frame and then called malformed (not counted), e.g. "
              f"{guessed[:3]}")
    icrc_bad = [n for n, fr in raw.items() if not icrc_ok(fr)]
    for who in ("droce", "peer"):
        hist = ", ".join(f"{k:#04x}:{v}" for k, v in sorted(ops[who].items()))
        print(f"  {who}: {sum(ops[who].values())} RoCE frames (opcode:count {hist})")
    if not raw or len(raw) != len(rows):
        print(f"FAIL - {len(raw)} UDP/4791 frames in the file, tshark filtered {len(rows)}")
        ok = False
    if not ops["droce"] or not ops["peer"]:
        print("FAIL - RoCE frames from both droce and the peer are expected")
        ok = False
    if undecoded:
        print(f"FAIL - frames tshark did not decode as InfiniBand: {undecoded[:10]}")
        ok = False
    if bad:
        print(f"FAIL - {len(bad)} malformed or error-level frames, e.g. {bad[:5]}")
        ok = False
    if icrc_bad:
        print(f"FAIL - ICRC does not verify in {len(icrc_bad)} frames, e.g. {icrc_bad[:10]}")
        ok = False
    print(f"{'ok  ' if ok else 'FAIL'} - {len(raw)} RoCE frames: every one decodes in tshark, "
          f"{len(bad)} malformed/error, {len(icrc_bad)} bad ICRC")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
