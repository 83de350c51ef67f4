#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Latency profile of droce against dpdk-testpmd's round trip, in one run.

Cases, one message in flight each (bench/droce-lat.c does the measuring):
  testpmd   the baseline: droce-lat --mode raw sends bare frames (rte_eth_tx_burst, no stack)
            over net_memif to dpdk-testpmd --forward-mode=5tswap, which swaps the Ethernet, IP
            and UDP addresses and sends each frame straight back; the round trip of the device
            and the reflector alone.
  udp       the same datagrams through droce's stack on the same memif port, against a fresh
            5tswap reflector: stk_udp_send() out, the stack's receive path back in.
  echo      droce as the reflector: the same raw client, with droce-lat --mode echo (the
            stack's UDP echo, in its own process on the reflector's CPU) in testpmd's place;
            the like-for-like comparison. The server side also reports the time inside droce
            per echo by stage, and DPDK's rte_latencystats.
  send, write, read
            RC ping-pong between two droce interfaces in one process over a net_memif pair,
            side B on the reflector's CPU (--rc-lcores 2, the default with two CPUs) or both
            sides on one lcore (--rc-lcores 1).
Each droce case is reported as its percentiles (p50, p90, p99, p99.9, p99.99, max) and as their
ratios to the baseline's same percentiles; droce-lat's stage tables (where the time goes,
from the stack's TSC stamps) are printed as they come. JSON for history (--json) and, with
gnuplot, a CDF plot of every case and a stacked bar of the stages (--plot).

Needs root and dpdk-testpmd (exit 77 without). Exit 1 when a case failed (the others are
still reported). Every DPDK process runs with its own --file-prefix; /var/run/dpdk/<prefix>
is removed afterwards. bench/run.py supplies the process handling.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run as stackbench  # noqa: E402  (Proc, eal_args, cleanup_prefixes, machine facts)

PCTS = ("p50", "p90", "p99", "p99.9", "p99.99", "max")
CASES = ("testpmd", "udp", "echo", "send", "write", "read", "send-load", "send-dcqcn")
# latency under load (issue 18): the SEND ping-pong with a background bulk flow of 4 x 64 KiB
# RDMA WRITEs in flight on a second QP pair, and the same with DCQCN on and 2 % of side A's
# RoCE frames CE-marked (the stack's impairment as the congested switch), so B answers with
# CNPs and the bulk flow slows down
LOADED = {"send-load": ["--load", "4"],
          "send-dcqcn": ["--load", "4", "--dcqcn", "100", "--ce", "20000"]}


def log(msg):
    print(f"lat: {msg}", file=sys.stderr, flush=True)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except (OSError, ValueError):
        return None


def memif_vdev(sock, role):
    return f"net_memif0,role={role},socket={sock},socket-abstract=no"


def start_reflector(args, sock, tag):
    """dpdk-testpmd as memif server in 5tswap mode: every frame goes back to its sender with
    the Ethernet, IP and UDP source and destination swapped."""
    argv = [args.testpmd] + stackbench.eal_args(
        args, f"{args.dut_lcore},{args.refl_lcore}", args.dut_lcore,
        f"droce-lat-{os.getpid()}-refl-{tag}")
    argv += [f"--vdev={memif_vdev(sock, 'server')}", "--",
             "--forward-mode=5tswap", "--port-topology=loop", "--burst=32",
             "--rxd=1024", "--txd=1024", "--total-num-mbufs=8192", "--stats-period=1"]
    r = stackbench.Proc(argv, args.limit, "reflector")
    end = time.monotonic() + 20
    while time.monotonic() < end and r.p.poll() is None:
        if os.path.exists(sock):
            return r
        time.sleep(0.05)
    out = r.output()
    r.stop()
    raise RuntimeError("reflector did not create its memif socket:\n" + out[-2000:])


def start_echo(args, sock, tag, out):
    """droce-lat --mode echo as the memif server, on the reflector's CPU."""
    argv = [args.lat] + stackbench.eal_args(args, str(args.refl_lcore), None,
                                            f"droce-lat-{os.getpid()}-echo-{tag}")
    argv += ["--log-level=*:error", "--", "--mode", "echo", "--port",
             memif_vdev(sock, "server"), "--json", out]
    r = stackbench.Proc(argv, args.limit, "droce echo")
    end = time.monotonic() + 20
    while time.monotonic() < end and r.p.poll() is None:
        if os.path.exists(sock):
            return r
        time.sleep(0.05)
    text = r.output()
    r.stop()
    raise RuntimeError("droce-lat echo did not create its memif socket:\n" + text[-2000:])


def show(text):
    sys.stdout.write("".join(line + "\n" for line in text.splitlines()
                             if not line.startswith(("EAL:", "TELEMETRY:"))))
    sys.stdout.flush()


def run_lat(args, case, tag, tmp):
    """One droce-lat run; returns its JSON (for echo with the server's under "server")."""
    out = os.path.join(tmp, f"{tag}.json")
    mode = "raw" if case in ("testpmd", "echo") else case.split("-")[0]
    rc2 = mode in ("send", "write", "read") and args.rc_lcores == 2
    lcores = f"{args.dut_lcore},{args.refl_lcore}" if rc2 else str(args.dut_lcore)
    eal = stackbench.eal_args(args, lcores, args.dut_lcore if rc2 else None,
                              f"droce-lat-{os.getpid()}-{tag}")
    argv = [args.lat] + eal + ["--log-level=*:error", "--", "--mode", mode,
                               "--iters", str(args.iters), "--warmup", str(args.warmup),
                               "--size", str(args.size), "--json", out]
    refl, sock = None, os.path.join(tmp, f"{tag}.sock")
    echo_out = os.path.join(tmp, f"{tag}-server.json")
    try:
        if case in ("testpmd", "udp", "echo"):
            refl = (start_echo(args, sock, tag, echo_out) if case == "echo"
                    else start_reflector(args, sock, tag))
            argv += ["--port", memif_vdev(sock, "client")]
        else:
            argv += ["--link", "memif", "--lcores", str(args.rc_lcores)] + LOADED.get(case, [])
        p = stackbench.Proc(argv, args.limit, f"droce-lat {mode}")
        rc = p.p.wait()
        p.t.join(timeout=5)
        text = p.output()
        show(text)
        try:
            with open(out) as f:
                res = json.load(f)
        except (OSError, ValueError):
            raise RuntimeError(f"droce-lat {mode} exited {rc} without its JSON:\n{text[-2000:]}")
        if rc != 0 or not res.get("ok"):
            raise RuntimeError(f"droce-lat {mode} exited {rc}: {res.get('error', '?')}")
        if case == "echo":
            refl.stop()
            show(refl.output())
            refl = None
            try:
                with open(echo_out) as f:
                    res["server"] = json.load(f)
            except (OSError, ValueError):
                raise RuntimeError("droce-lat echo left no JSON")
            # the stage bars show the server's stages (the client is bare)
            res["stages"] = res["server"]["stages"]
        return res
    finally:
        if refl:
            refl.stop()
        stackbench.cleanup_prefixes(args)


def merge_runs(runs):
    """Several rounds of a case: the percentiles of the round with the median p50 (droce-lat
    keeps histograms, not samples; rounds are listed in full in the JSON)."""
    runs = sorted(runs, key=lambda r: r["rtt"]["p50"])
    return runs[len(runs) // 2]


def gnuplot(args, best, tmp):
    """Three plots, each as PNG and SVG: the percentile curves, the histograms (share of round
    trips per bucket) and the stage medians as stacked bars. @return the files made."""
    if not args.plot or not shutil.which("gnuplot"):
        if args.plot:
            log("no gnuplot: no plot (apt-get install gnuplot-nox)")
        return []
    files = []
    for case in CASES:
        if case not in best:
            continue
        path = os.path.join(tmp, f"cdf-{case}.dat")
        prev = 0.0
        with open(path, "w") as f:
            for us, frac in best[case]["cdf"]:
                f.write(f"{us} {frac} {frac - prev}\n")  # upper bound, CDF, share
                prev = frac
        files.append((case, path))
    base = os.path.splitext(args.plot)[0].replace("-cdf", "")
    title = (f"droce round trips (one in flight, {args.size} B payload) and dpdk-testpmd "
             "5tswap, net_memif")
    # HdrHistogram's percentile plot: x the RTT, y 1/(1 - F) on a log scale, so the tail
    # (99 %, 99.9 %, 99.99 %) gets as much room as the body
    pct = f"""set title '{title}'
set xlabel 'round trip (usec, log)'
set ylabel 'percentile'
set logscale x
set logscale y
set ytics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000)
set yrange [1:200000]
set grid
set key top left
plot """ + ", ".join(f"'{p}' using 1:(1/(1.0000001-$2)) with steps lw 2 title '{c}'"
                     for c, p in files) + "\n"
    hist = f"""set title '{title}: histogram'
set xlabel 'round trip (usec, log; one point per non-empty bucket, buckets about 0.4 % wide)'
set ylabel 'share of round trips in the bucket (log)'
set logscale x
set logscale y
set ytics autofreq
set yrange [1e-6:1]
set grid
set key top right
plot """ + ", ".join(f"'{p}' using 1:3 with points pt 7 ps 0.4 title '{c}'"
                     for c, p in files) + "\n"
    # the stages as a stacked bar (median usec of each stage, one bar per droce case: the
    # medians add up to about the RTT's median, where means are led by a few descheduled
    # round trips)
    cats = ["transport", "tx-burst", "wire+rx-burst", "parse", "consumer"]
    dat = os.path.join(tmp, "stages.dat")
    with open(dat, "w") as f:
        f.write("case " + " ".join(cats) + "\n")
        for case in CASES:
            if case not in best or not best[case].get("stages"):
                continue
            sums = {c: 0.0 for c in cats}
            for st in best[case]["stages"]:
                sums[st["category"]] = sums.get(st["category"], 0.0) + st["hist"]["p50"]
            label = "echo-server" if case == "echo" else case
            f.write(label + " " + " ".join(f"{sums[c]:.4f}" for c in cats) + "\n")
    stages = f"""set title 'where the time goes inside droce (median usec of each stage, TSC stamps)'
unset logscale x
unset logscale y
set ytics autofreq
set xtics autofreq
set style data histograms
set style histogram rowstacked
set style fill solid border -1
set boxwidth 0.6
set key outside right
set xlabel ''
set ylabel 'usec'
set yrange [0:*]
set grid y
plot '{dat}' using 2:xtic(1) title '{cats[0]}', """ + ", ".join(
        f"'' using {i + 2} title '{c}'" for i, c in enumerate(cats) if i) + "\n"
    script, made = "", []
    for name, body in ((args.plot, pct), (base + "-hist.png", hist),
                       (base + "-stages.png", stages)):
        for out, term in ((name, "pngcairo size 1000,600 noenhanced"),
                          (os.path.splitext(name)[0] + ".svg", "svg size 1000,600 noenhanced")):
            script += f"reset\nset terminal {term}\nset output '{out}'\n{body}unset output\n"
            made.append(out)
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0:
        log("gnuplot failed: " + r.stderr[-500:])
        return []
    return made


def on_sigterm(sig, frame):
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lat", default=os.path.join(ROOT, "build", "bench", "droce-lat"))
    ap.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd")
    ap.add_argument("--json", default=os.path.join(ROOT, "build", "bench-lat.json"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "build", "bench-lat-cdf.png"),
                    help="the percentile plot's PNG; the histogram (*-hist.png), the stages "
                    "(*-stages.png) and SVGs of all three go beside it; '' for none")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--iters", type=int, default=100000, help="round trips per case (100000)")
    ap.add_argument("--warmup", type=int, default=5000, help="round trips before (5000)")
    ap.add_argument("--size", type=int, default=64, help="payload bytes (64)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="repeat every case, interleaved; the round with the median p50 is "
                    "reported (3)")
    ap.add_argument("--no-huge", action="store_true", help="every process with --no-huge")
    ap.add_argument("--rc-lcores", type=int, choices=(1, 2), default=None,
                    help="RC cases: side B on its own lcore (2, the default with two CPUs, "
                    "like the baseline's two processes) or both sides on one (1)")
    cpus = sorted(os.sched_getaffinity(0))
    ap.add_argument("--dut-lcore", type=int, default=cpus[0])
    ap.add_argument("--refl-lcore", type=int, default=cpus[1] if len(cpus) > 1 else cpus[0])
    args = ap.parse_args()
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if any(c not in CASES for c in cases) or args.iters < 100 or args.rounds < 1:
        ap.error("bad --cases, --iters or --rounds")
    if os.geteuid() != 0:
        log("skipped: needs root (/var/run/dpdk, memif sockets)")
        return 77
    if not os.access(args.testpmd, os.X_OK):
        log(f"skipped: no dpdk-testpmd at {args.testpmd} (apt install dpdk)")
        return 77
    if not os.access(args.lat, os.X_OK):
        log(f"{args.lat} not found: build it (ninja -C build) or pass --lat")
        return 2
    if args.dut_lcore == args.refl_lcore:
        log("note: one CPU only: droce-lat and the reflector share it; the RTTs mean little")
    if args.rc_lcores is None:
        args.rc_lcores = 2 if args.dut_lcore != args.refl_lcore else 1
    args.limit = 60 + (args.iters + args.warmup) // 2000  # per process, start-up included
    args.prefixes = []
    if not args.no_huge and stackbench.free_hugepages() < 2 * stackbench.MEM_MB // 2 + 64:
        log("not enough free hugepages: every process runs with --no-huge")
        args.no_huge = True

    t0 = time.monotonic()
    load0 = loadavg()
    runs, failures = {c: [] for c in cases}, []
    tmp = tempfile.mkdtemp(prefix="droce-lat.")
    try:
        for rnd in range(args.rounds):
            for case in cases:
                try:
                    runs[case].append(run_lat(args, case, f"{rnd}{case}", tmp))
                except RuntimeError as e:
                    log(f"{case}: {e}")
                    failures.append({"case": case, "round": rnd, "error": str(e)})
        best = {c: merge_runs(r) for c, r in runs.items() if r}
        made = gnuplot(args, best, tmp)
    finally:
        stackbench.cleanup_prefixes(args)
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = loadavg()

    base = best.get("testpmd")
    print()
    print(f"round trips, usec (one in flight, {args.size} B payload, {args.iters} per case after "
          f"{args.warmup}; load average {load0[0] if load0 else '?'} at start, "
          f"{load1[0] if load1 else '?'} at end)")
    print(f"{'case':<9}" + "".join(f"{p:>11}" for p in PCTS) + "   ratio to testpmd "
          + "/".join(PCTS[:4]))
    rows = []
    for case in cases:
        if case not in best:
            print(f"{case:<9} FAILED")
            continue
        r = best[case]["rtt"]
        ratio = {p: (r[p] / base["rtt"][p] if base and base["rtt"][p] > 0 else None)
                 for p in PCTS}
        rtxt = "/".join(f"{ratio[p]:.2f}" if ratio[p] else "-" for p in PCTS[:4])
        print(f"{case:<9}" + "".join(f"{r[p]:11.2f}" for p in PCTS)
              + ("   (baseline)" if case == "testpmd" else f"   {rtxt}"))
        rows.append({"case": case, "rtt_usec": r, "ratio_to_testpmd": ratio,
                     "lost": best[case].get("lost"), "rounds": runs[case]})
    notes = []
    for case in ("udp", "echo"):
        if base and case in best and best[case]["rtt"]["p50"] < base["rtt"]["p50"]:
            notes.append(f"{case} ran faster than the bare baseline (p50 "
                         f"{best[case]['rtt']['p50']:.2f} < {base['rtt']['p50']:.2f} us): the "
                         "machine changed speed between the cases (see bench/README.md, lat); "
                         "the ratios of this run mean little")
    for n in notes:
        print("note: " + n)
    for case in LOADED:
        if case in best:
            ld, cc = best[case].get("load", {}), best[case].get("dcqcn", {})
            print(f"{case}: the bulk flow ran at {ld.get('gbps', 0):.2f} Gbit/s "
                  f"({ld.get('depth', 0)} x 64 KiB WRITEs in flight)"
                  + (f"; DCQCN with {cc.get('ce_ppm', 0) / 1e4:g} % CE marks: "
                     f"{cc.get('load_cnp_rx', 0)} CNPs, its rate cut to "
                     f"{cc.get('load_rate_gbps', 0):.2f} Gbit/s"
                     if cc.get("line_gbps") else ""))
    if "echo" in best:
        srv = best["echo"]["server"]
        ls = srv.get("latencystats_ns", {})
        print(f"echo server, time inside droce per echo (RX burst to the end of the TX burst), "
              f"usec: p50 {srv['rtt']['p50']:.2f} p99 {srv['rtt']['p99']:.2f}; "
              "rte_latencystats (RX to TX callback), ns: "
              + " ".join(f"{k} {v}" for k, v in ls.items()))
    if made:
        print("plots: " + ", ".join(made))
    report = {
        "machine": {"cpu": stackbench.cpu_model(), "cpus": os.cpu_count(),
                    "kernel": platform.release(),
                    "dpdk_version": stackbench.dpdk_version_pkgconfig(),
                    "testpmd": args.testpmd, "hugepages": not args.no_huge,
                    "loadavg_start": load0, "loadavg_end": load1},
        "params": {"iters": args.iters, "warmup": args.warmup, "size": args.size,
                   "rounds": args.rounds, "dut_lcore": args.dut_lcore,
                   "rc_lcores": args.rc_lcores,
                   "reflector_lcore": args.refl_lcore, "device": "net_memif",
                   "reflector": "dpdk-testpmd --forward-mode=5tswap"},
        "results": rows,
        "failures": failures,
        "notes": notes,
        "plots": made,
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
