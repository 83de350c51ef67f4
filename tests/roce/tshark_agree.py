#!/usr/bin/env python3
"""tshark agrees: for every frame of each capture, droce's decoding (tests/roce/roce_decode)
must equal tshark's InfiniBand dissector field by field, and droce's ICRC check must pass.
Usage: tshark_agree.py ROCE_DECODE FILE...   Exit 77 (skip) when tshark is missing."""
import shutil
import subprocess
import sys

FIELDS = ["infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m",
          "infiniband.bth.padcnt", "infiniband.bth.p_key", "infiniband.bth.destqp",
          "infiniband.bth.a", "infiniband.bth.psn", "infiniband.deth.q_key",
          "infiniband.deth.srcqp", "infiniband.reth.va", "infiniband.reth.r_key",
          "infiniband.reth.dmalen", "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
          "infiniband.aeth.syndrome", "infiniband.aeth.msn",
          "infiniband.atomicacketh.origremdt", "infiniband.immdt", "infiniband.ieth"]
HEX_BYTES = {"infiniband.immdt", "infiniband.ieth"}


def norm(field, v):
    v = v.split(",")[0].strip()  # tshark repeats some byte fields
    if v == "":
        return ""
    if field in HEX_BYTES:
        return v.lower()
    if v in ("True", "False"):
        return str(int(v == "True"))
    return str(int(v, 0))


def main():
    if not shutil.which("tshark"):
        print("SKIP: tshark not installed")
        return 77
    decoder, files = sys.argv[1], sys.argv[2:]
    bad = total = 0
    for f in files:
        cmd = ["tshark", "-r", f, "-T", "fields", "-E", "separator=/t"]
        for x in FIELDS:
            cmd += ["-e", x]
        ts = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
        ours = subprocess.run([decoder, f], capture_output=True, text=True, check=True).stdout.splitlines()
        if len(ts) != len(ours):
            print(f"{f}: tshark shows {len(ts)} frames, droce decoded {len(ours)}")
            bad += 1
            continue
        for i, (t, o) in enumerate(zip(ts, ours), 1):
            total += 1
            tv = [norm(FIELDS[k], x) for k, x in enumerate(t.split("\t"))]
            ov = o.split("\t")
            if ov[0] == "ERROR" or ov[-1] != "icrc-ok":
                print(f"{f} frame {i}: droce: {o}")
                bad += 1
                continue
            ov = [x.lower() for x in ov[:-1]]
            diff = [(FIELDS[k], tv[k], ov[k]) for k in range(len(FIELDS)) if tv[k] != ov[k]]
            if diff:
                print(f"{f} frame {i}: " + "; ".join(f"{n}: tshark {a!r} droce {b!r}" for n, a, b in diff))
                bad += 1
        print(f"{f}: {len(ts)} frames compared")
    print(f"{total - bad}/{total} frames: droce's headers equal tshark's, ICRC valid")
    return 1 if bad or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
