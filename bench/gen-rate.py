#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""droce-gen's frame rate against dpdk-testpmd --forward-mode=txonly, in one run (issue 18 item 5).

For each frame kind and size, on the same vdev (net_null0,no-rx=1: the PMD frees what it is
given and receives nothing, so the generator's own cost is what is measured; without no-rx it
hands the stack a stream of dummy frames to parse) and one lcore each:
  testpmd   dpdk-testpmd -i --forward-mode=txonly --txpkts=SIZE: UDP frames from a template,
            started, then 'show port stats all' once after the warm-up and once a second
            (Tx-pps, timed by testpmd with the TSC);
  droce-gen droce-gen --rate SECONDS --frame-size SIZE [--roce], to its own address (no
            neighbour to resolve on a sink): every frame built and sent through the stack
            (UDP: stk_udp_send, zero checksum; RoCE: roce_tx_build, BTH and ICRC, then
            stk_ip_send), a burst of 32 per loop round; frames/s from the port's opackets.
  droce-gen --template
            the same frames copied from a template built that way, only the sequence number,
            the PSN and the ICRC (updated from per-byte tables) changing, handed to
            stk_tx_frame(); the mbufs of a pool of their own are stamped once, so most frames
            cost the bytes that change (as testpmd's cost their headers).
The ratios droce-gen / testpmd are printed against the issue's target, 0.9, for 64 B and 1 KiB
RoCE frames (62 and 1022 B: a BTH-only RoCEv2 frame is 58 B + a payload padded to 4; testpmd
sends the same size). UDP frames of 64 and 1024 B are measured too.

Needs root and dpdk-testpmd (exit 77 without); exit 1 when a case failed.
"""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run as stackbench  # noqa: E402  (Proc, eal_args, cleanup_prefixes, machine facts)

# (kind, frame bytes)
CASES = (("roce", 62), ("roce", 1022), ("udp", 64), ("udp", 1024))
TARGET = 0.9


def log(msg):
    print(f"gen-rate: {msg}", file=sys.stderr, flush=True)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except (OSError, ValueError):
        return None


def run_testpmd(args, size, tag):
    argv = [args.testpmd] + stackbench.eal_args(
        args, f"{args.lcore},{args.main_lcore}", args.main_lcore,
        f"droce-genrate-{os.getpid()}-tpmd-{tag}")
    argv += ["--vdev=net_null0,no-rx=1", "--", "-i", "--forward-mode=txonly", "--nb-cores=1",
             "--burst=32", f"--txpkts={size}", "--txd=1024", "--rxd=1024",
             "--total-num-mbufs=8192"]
    p = stackbench.Proc(argv, args.limit, "testpmd-txonly", stdin=True)
    try:
        if not p.wait_for("testpmd> ", 30):
            raise RuntimeError("no testpmd prompt")
        p.send("start")
        time.sleep(args.warmup)
        p.send("show port stats all")
        t = time.monotonic()
        for _ in range(args.duration):
            t += 1.0
            time.sleep(max(0.0, t - time.monotonic()))
            p.send("show port stats all")
        p.send("stop")
        p.send("quit")
        p.p.stdin.close()
        try:
            p.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    finally:
        rc = p.stop()
    out = p.output()
    pps = [int(m) for m in re.findall(r"Tx-pps:\s+(\d+)", out)][1:]
    if len(pps) != args.duration:
        raise RuntimeError(f"testpmd gave {len(pps)} of {args.duration} samples (exit {rc}):\n"
                           + out[-2000:])
    return {"samples_fps": pps, "fps": statistics.median(pps)}


def run_gen(args, kind, size, tag, tmp, template=False):
    ini = os.path.join(tmp, "gen.ini")
    with open(ini, "w") as f:
        f.write("[port0]\nvdev = net_null0,no-rx=1\nipv4 = 10.98.0.1/24\n")
    argv = [args.gen] + stackbench.eal_args(args, str(args.lcore), None,
                                            f"droce-genrate-{os.getpid()}-gen-{tag}")
    argv += ["--log-level=*:error", "--", "-c", ini, "-p", "10.98.0.1:4791",
             "--rate", str(args.duration), "--frame-size", str(size), "-j", "-q"]
    if kind == "roce":
        argv.append("--roce")
    if template:
        argv.append("--template")
    p = stackbench.Proc(argv, args.limit, "droce-gen")
    rc = p.p.wait()
    p.t.join(timeout=5)
    out = p.output()
    js = None
    for line in out.splitlines():
        if line.startswith('{"mode":"rate"'):
            js = json.loads(line)
    if rc != 0 or js is None:
        raise RuntimeError(f"droce-gen exited {rc}:\n{out[-2000:]}")
    if js["frame_size"] != size:
        raise RuntimeError(f"droce-gen sent {js['frame_size']} B frames, not {size}")
    if js.get("icrc_bad"):
        raise RuntimeError(f"droce-gen: {js['icrc_bad']} templated frames with a bad ICRC")
    return js


def on_sigterm(sig, frame):
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", default=os.path.join(ROOT, "build", "apps", "droce-gen"))
    ap.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd")
    ap.add_argument("--json", default=os.path.join(ROOT, "build", "bench-gen-rate.json"))
    ap.add_argument("--duration", type=int, default=3, help="seconds measured (3)")
    ap.add_argument("--warmup", type=int, default=1, help="testpmd: seconds before (1)")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds (2)")
    ap.add_argument("--no-huge", action="store_true")
    cpus = sorted(os.sched_getaffinity(0))
    ap.add_argument("--lcore", type=int, default=cpus[0], help="the generating lcore")
    ap.add_argument("--main-lcore", type=int, default=cpus[-1],
                    help="testpmd's main lcore (it sleeps at the prompt)")
    args = ap.parse_args()
    if args.duration < 1 or args.rounds < 1:
        ap.error("bad --duration or --rounds")
    if os.geteuid() != 0:
        log("skipped: needs root (/var/run/dpdk)")
        return 77
    if not os.access(args.testpmd, os.X_OK):
        log(f"skipped: no dpdk-testpmd at {args.testpmd} (apt install dpdk)")
        return 77
    if not os.access(args.gen, os.X_OK):
        log(f"{args.gen} not found: build it (ninja -C build) or pass --gen")
        return 2
    args.limit = args.warmup + args.duration + 40
    args.prefixes = []
    if not args.no_huge and stackbench.free_hugepages() < stackbench.MEM_MB // 2 + 64:
        log("not enough free hugepages: every process runs with --no-huge")
        args.no_huge = True

    t0, load0 = time.monotonic(), loadavg()
    WHO = ("testpmd", "droce-gen", "droce-gen-tpl")
    res = {c: {w: [] for w in WHO} for c in CASES}
    failures = []
    tmp = tempfile.mkdtemp(prefix="droce-genrate.")
    try:
        for rnd in range(args.rounds):
            for kind, size in CASES:
                tag = f"{rnd}{kind[0]}{size}"
                for who in WHO:
                    try:
                        r = (run_testpmd(args, size, tag) if who == "testpmd"
                             else run_gen(args, kind, size, tag + who[-1], tmp,
                                          who == "droce-gen-tpl"))
                        res[(kind, size)][who].append(r)
                    except RuntimeError as e:
                        log(f"{who} {kind} {size} B: {e}")
                        failures.append({"case": f"{kind} {size}", "who": who, "round": rnd,
                                         "error": str(e)})
                    finally:
                        stackbench.cleanup_prefixes(args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = loadavg()

    print(f"\nframes per second on net_null0, one lcore each ({args.rounds} rounds of "
          f"{args.duration} s; load average {load0[0] if load0 else '?'} at start, "
          f"{load1[0] if load1 else '?'} at end)")
    print(f"{'frames':<14}{'testpmd':>10}{'droce-gen':>11}{'ratio':>7}{'template':>11}"
          f"{'ratio':>7}   {'best: testpmd':>13}{'droce-gen':>11}{'ratio':>7}{'template':>11}"
          f"{'ratio':>7}   target (template, best)")
    rows = []
    for kind, size in CASES:
        r = res[(kind, size)]
        t = [x for run in r["testpmd"] for x in run["samples_fps"]]
        d = [run["fps"] for run in r["droce-gen"]]
        e = [run["fps"] for run in r["droce-gen-tpl"]]
        med = [statistics.median(v) if v else None for v in (t, d, e)]
        best = [max(v) if v else None for v in (t, d, e)]

        def ratio(v, i):
            return v[i] / v[0] if v[0] and v[i] else None
        target = ""
        if kind == "roce":
            rb = ratio(best, 2)
            target = f"{TARGET} {'met' if rb and rb >= TARGET else 'not met'}"

        def m(x, w):
            return f"{x / 1e6:{w - 2}.2f} M" if x else f"{'-':>{w}}"

        def q(x):
            return f"{x:7.3f}" if x else f"{'-':>7}"
        print(f"{kind + ' ' + str(size) + ' B':<14}{m(med[0], 10)}{m(med[1], 11)}"
              f"{q(ratio(med, 1))}{m(med[2], 11)}{q(ratio(med, 2))}   {m(best[0], 13)}"
              f"{m(best[1], 11)}{q(ratio(best, 1))}{m(best[2], 11)}{q(ratio(best, 2))}"
              f"   {target}")
        rows.append({"kind": kind, "frame_size": size,
                     "median_fps": dict(zip(WHO, med)), "best_fps": dict(zip(WHO, best)),
                     "ratio": {"stack": ratio(med, 1), "template": ratio(med, 2)},
                     "ratio_best": {"stack": ratio(best, 1), "template": ratio(best, 2)},
                     "target": TARGET if kind == "roce" else None, "runs": r})
    print("median: of testpmd's 1-s samples and of droce-gen's runs; best: the largest of "
          "each (interference only lowers a rate, so on a busy machine the best is the better "
          "estimate)")
    report = {
        "machine": {"cpu": stackbench.cpu_model(), "cpus": os.cpu_count(),
                    "kernel": platform.release(),
                    "dpdk_version": stackbench.dpdk_version_pkgconfig(),
                    "hugepages": not args.no_huge, "loadavg_start": load0,
                    "loadavg_end": load1},
        "params": {"device": "net_null0", "duration_s": args.duration, "rounds": args.rounds,
                   "lcore": args.lcore, "burst": 32},
        "results": rows, "failures": failures,
        "elapsed_s": round(time.monotonic() - t0, 1),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(f"results: {args.json}")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted; the DPDK processes it started were stopped")
        sys.exit(130)
