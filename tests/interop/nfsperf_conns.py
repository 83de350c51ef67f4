#!/usr/bin/env python3
"""Check a droce-nfsperf JSON report's --nconnect: nfsperf_conns.py REPORT.json N

Every job had N connections, each carried calls, and together they carried every call the
job made (NFSv3: its procedures, MOUNT's aside; NFSv4.1: its COMPOUNDs). Prints each job's
split; exits 0 when all hold, 1 otherwise. Used by tests/interop/nfsperf.sh (against knfsd)
and tests/nfs/nfsperf_veth.sh (against droce-nfsd).
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
    ok = bool(d["jobs"])
    for j in d["jobs"]:
        cc, calls = j["nfs"]["connection_calls"], j["nfs"]["calls"]
        if "COMPOUND" in calls:
            want = calls["COMPOUND"]
        else:
            want = sum(v for k, v in calls.items() if k not in ("MNT", "UMNT"))
        print(f"#   connections: calls on each {cc}, the job's {want}")
        ok = ok and len(cc) == n and all(c > 0 for c in cc) and sum(cc) == want
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
