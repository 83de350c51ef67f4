#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Packet rate of droce's UDP echo path against dpdk-testpmd io forwarding.

For each virtual device (net_ring, net_memif) this runs, in the same invocation:
  testpmd-io  dpdk-testpmd in io forward mode, one forwarding lcore, as the device under test
  droce-echo  bench/droce-bench-echo: the stack on one lcore, echoing UDP through
              parse/classify/dispatch and stk_udp_send()
and prints both rates (median of one-second samples) and droce/testpmd.

Both DUTs get the same lcore, burst (32), frame size and population of frames in flight:
  net_ring   one process; net_ring0 with no arguments is a loopback (TX queue i feeds RX queue
             i), so every frame the DUT sends comes back to it.
  net_memif  the DUT is the memif client; a second dpdk-testpmd (io forward, port looped to
             itself, on the other lcore) is the server and sends every frame back unchanged.
droce addresses its datagrams from its own IP to its own IP, so an unchanged frame coming back
is the next request. Nothing here asserts anything about speed.

Needs root. Uses 2 MiB hugepages when enough are free, else --no-huge for every process
(memif still works: in copy mode its shared regions are memfd, not hugepages).
Exit status: 0 done, 1 a run failed, 2 bad usage, 77 skipped (not root / no testpmd).
"""
import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BURST = 32        # testpmd --burst; droce's STK_BURST
MEM_MB = 256      # EAL -m of every process
MBUFS = 8192      # testpmd --total-num-mbufs; droce's default pool is 8191
DEVICES = ("net_ring", "net_memif")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# machine facts


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def free_hugepages():
    """Free 2 MiB hugepages, or 0 when hugetlbfs is not mounted."""
    try:
        with open("/proc/mounts") as f:
            if not any(" hugetlbfs " in line for line in f):
                return 0
        with open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 0


def dpdk_version_pkgconfig():
    try:
        out = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_busy_seconds():
    """Busy time of all CPUs since boot, from /proc/stat (everything but idle and iowait)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / hz


class CpuWindow:
    """CPU that processes other than ours used while a case ran, in CPUs (0..nproc).

    Busy time of the whole machine minus the CPU time of our children (the DPDK processes,
    collected through RUSAGE_CHILDREN once they were waited for), over the wall time. The
    window includes start-up, so it is approximate; anything well above 0 means the numbers
    were taken on a shared machine and are low by an unknown amount."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.busy0 = cpu_busy_seconds()
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.ours0 = ru.ru_utime + ru.ru_stime

    def others(self):
        wall = time.monotonic() - self.t0
        busy = cpu_busy_seconds() - self.busy0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        ours = ru.ru_utime + ru.ru_stime - self.ours0
        return max(0.0, (busy - ours) / wall) if wall > 0 else 0.0


# ---------------------------------------------------------------------------------------------
# processes


def no_core_dumps():
    # the memif server in testpmd 22.11 sometimes crashes when its client leaves
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Proc:
    """A child under `timeout`, its output collected by a thread (so a prompt without a newline
    can be waited for). Stopped with SIGINT, which timeout passes on and DPDK handles."""

    def __init__(self, argv, limit_s, name, stdin=False):
        self.name = name
        self.buf = []
        self.lock = threading.Lock()
        full = ["timeout", "-s", "INT", "-k", "5", str(int(limit_s))] + argv
        log(f"{name}: {' '.join(argv)}")
        self.p = subprocess.Popen(full, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  start_new_session=True, preexec_fn=no_core_dumps)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        fd = self.p.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            with self.lock:
                self.buf.append(chunk.decode(errors="replace"))

    def output(self):
        with self.lock:
            return "".join(self.buf)

    def wait_for(self, text, timeout_s):
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if text in self.output():
                return True
            if self.p.poll() is not None:
                return text in self.output()
            time.sleep(0.05)
        return False

    def send(self, line):
        try:
            self.p.stdin.write((line + "\n").encode())
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def stop(self, grace_s=15):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.p.kill()  # timeout(1) itself; its -k 5 takes care of the DPDK process
            self.p.wait()
        self.t.join(timeout=5)
        return self.p.returncode


def dpdk_pid(proc):
    """The DPDK process that timeout(1) runs for @proc, or None."""
    try:
        with open(f"/proc/{proc.p.pid}/task/{proc.p.pid}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError, IndexError):
        return None


class ThreadCpu:
    """CPU share of one lcore thread (comm rte-worker-N) of a running DPDK process between
    start() and share(): its user+system time over wall time. A busy-polling lcore that had
    its CPU to itself gets about 1.0; less means something else ran on that CPU. With
    track=True a thread samples it every 0.2 s, so the share survives the process exiting
    first (up to the last sample)."""

    def __init__(self, proc, lcore):
        self.path = None
        self.last = None
        self.done = threading.Event()
        pid = dpdk_pid(proc)
        if pid is None:
            return
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    if f.read().strip() == f"rte-worker-{lcore}":
                        self.path = f"/proc/{pid}/task/{tid}/stat"
        except OSError:
            pass

    def _ticks(self):
        try:
            with open(self.path) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, TypeError, ValueError, IndexError):
            return None

    def _sample(self):
        c = self._ticks()
        if c is not None:
            self.last = (time.monotonic(), c)

    def _track(self):
        while not self.done.wait(0.2):
            self._sample()

    def start(self, track=False):
        self.t0, self.c0 = time.monotonic(), self._ticks()
        if track and self.path:
            threading.Thread(target=self._track, daemon=True).start()
        return self

    def share(self):
        self.done.set()
        self._sample()
        if self.path is None or self.c0 is None or self.last is None:
            return None
        t1, c1 = self.last
        wall = t1 - self.t0
        return round((c1 - self.c0) / os.sysconf("SC_CLK_TCK") / wall, 3) if wall > 0 else None


def hugetlbfs_mounts():
    try:
        with open("/proc/mounts") as f:
            return [line.split()[1] for line in f if " hugetlbfs " in line]
    except OSError:
        return []


def eal_args(args, lcores, main_lcore, prefix):
    """EAL arguments of one of our processes. The file prefix is ours alone; with hugepages,
    --huge-unlink drops the hugepage files as soon as they are mapped, so the pages go back
    to the system when the process exits, even when it crashes."""
    a = ["-l", lcores, "--no-pci", f"--file-prefix={prefix}", "-m", str(MEM_MB)]
    if main_lcore is not None:
        a.append(f"--main-lcore={main_lcore}")
    a.append("--no-huge" if args.no_huge else "--huge-unlink")
    args.prefixes.append(prefix)
    return a


def cleanup_prefixes(args):
    """Remove what our processes leave behind: /var/run/dpdk/<prefix> and, should a process
    have run without --huge-unlink, its hugepage files. Only our own prefixes."""
    for prefix in args.prefixes:
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
        for mnt in hugetlbfs_mounts():
            try:
                names = os.listdir(mnt)
            except OSError:
                continue
            for n in names:
                if n.startswith(prefix + "map_"):
                    try:
                        os.unlink(os.path.join(mnt, n))
                    except OSError:
                        pass
    args.prefixes.clear()


def vdev(device, sock, role):
    if device == "net_ring":
        return "net_ring0"
    # a file-system socket (22.11 defaults to the abstract namespace), so it can be waited for
    return f"net_memif0,role={role},socket={sock},socket-abstract=no"


def start_reflector(args, sock, tag):
    """dpdk-testpmd as memif server: io forward, its one port looped to itself."""
    argv = [args.testpmd] + eal_args(args, f"{args.dut_lcore},{args.refl_lcore}", args.dut_lcore,
                                     f"droce-bench-{os.getpid()}-refl-{tag}")
    argv += [f"--vdev={vdev('net_memif', sock, 'server')}", "--",
             "--forward-mode=io", "--port-topology=loop", f"--burst={BURST}",
             "--rxd=1024", "--txd=1024", f"--total-num-mbufs={MBUFS}", "--stats-period=1"]
    r = Proc(argv, args.limit, "reflector")
    end = time.monotonic() + 20
    while time.monotonic() < end and r.p.poll() is None:
        if os.path.exists(sock):
            return r
        time.sleep(0.05)
    out = r.output()
    r.stop()
    raise RuntimeError("reflector did not create its memif socket:\n" + out[-2000:])


def parse_testpmd_stats(out):
    """Rx-pps of every 'show port stats' block, and the RX/TX packets that 'stop' reports
    (taken with forwarding stopped, so TX - RX is exactly what is still in flight)."""
    pps = [int(m) for m in re.findall(r"Rx-pps:\s+(\d+)", out)]
    rx = tx = None
    acc = out.split("Accumulated forward statistics")
    if len(acc) > 1:
        m = re.search(r"RX-packets:\s+(\d+)", acc[-1])
        n = re.search(r"TX-packets:\s+(\d+)", acc[-1])
        if m and n:
            rx, tx = int(m.group(1)), int(n.group(1))
    return pps, rx, tx


def run_testpmd(args, device, sock, tag):
    """testpmd io forwarding as the DUT, driven through its prompt: 'start tx_first N' puts
    N bursts in flight; 'show port stats' once after the warm-up, then once a second, each
    giving Rx-pps since the previous one (testpmd times it with the TSC)."""
    bursts = args.population // BURST
    argv = [args.testpmd] + eal_args(args, f"{args.dut_lcore},{args.refl_lcore}",
                                     args.refl_lcore, f"droce-bench-{os.getpid()}-tpmd-{tag}")
    argv += [f"--vdev={vdev(device, sock, 'client')}", "--", "-i",
             "--forward-mode=io", "--port-topology=loop", "--nb-cores=1", f"--burst={BURST}",
             f"--txpkts={args.frame_size}", "--rxd=1024", "--txd=1024",
             f"--total-num-mbufs={MBUFS}"]
    p = Proc(argv, args.limit, "testpmd-io", stdin=True)
    res = {"dut": "testpmd-io", "device": device}
    try:
        if not p.wait_for("testpmd> ", 30):
            raise RuntimeError("no testpmd prompt")
        if device == "net_memif":
            time.sleep(0.5)  # link up is reported slightly before the server forwards
        p.send(f"start tx_first {bursts}")
        time.sleep(args.warmup)
        p.send("show port stats all")
        cpu = ThreadCpu(p, args.dut_lcore).start()
        t = time.monotonic()
        for i in range(args.duration):
            t += 1.0
            time.sleep(max(0.0, t - time.monotonic()))
            p.send("show port stats all")
        res["cpu_share"] = cpu.share()
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
    pps, rx, tx = parse_testpmd_stats(out)
    samples = pps[1:]  # the first show only sets the baseline
    if len(samples) != args.duration:
        raise RuntimeError(f"testpmd gave {len(samples)} of {args.duration} samples "
                           f"(exit {rc}):\n" + out[-3000:])
    res.update(samples_pps=samples, median_pps=statistics.median(samples),
               population=bursts * BURST,
               in_flight_at_end=(tx - rx) if rx is not None else None)
    return res


def run_droce(args, device, sock, tag):
    argv = [args.echo] + eal_args(args, str(args.dut_lcore), None,
                                  f"droce-bench-{os.getpid()}-droce-{tag}")
    argv += ["--", "--port", vdev(device, sock, "client"),
             "--population", str(args.population), "--frame-size", str(args.frame_size),
             "--warmup", str(args.warmup), "--duration", str(args.duration),
             "--udp-csum", args.udp_csum]
    p = Proc(argv, args.limit, "droce-echo")
    try:
        p.p.wait(timeout=args.limit + 10)  # it stops by itself after the measurement
    except subprocess.TimeoutExpired:
        pass
    finally:
        rc = p.stop()
    out = p.output()
    js = None
    for line in out.splitlines():
        if line.startswith("{\"bench\": \"droce-echo\""):
            js = json.loads(line)
    if rc != 0 or js is None or js.get("state") != "done":
        raise RuntimeError(f"droce-bench-echo failed (exit {rc}):\n" + out[-3000:])
    js["dut"] = "droce-echo"
    js["device"] = device
    return js


def run_case(args, device, dut, tag):
    """One DUT on one device; for memif with a fresh reflector. Adds the CPU shares and the
    others' CPU use."""
    tmp = tempfile.mkdtemp(prefix="droce-bench-")
    sock = os.path.join(tmp, "memif.sock")
    refl = None
    win = CpuWindow()
    try:
        if device == "net_memif":
            refl = start_reflector(args, sock, tag)
            refl_cpu = ThreadCpu(refl, args.refl_lcore).start(track=True)
        if dut == "testpmd-io":
            res = run_testpmd(args, device, sock, tag)
        else:
            res = run_droce(args, device, sock, tag)
        if refl:
            # over the DUT's whole life, start-up included: approximate
            res["reflector_cpu_share"] = refl_cpu.share()
        if refl and refl.p.poll() is not None:
            # It outlived the DUT's measurement unless the samples show otherwise (a dead
            # reflector stops the circulation: in_flight_at_end drops, samples fall to 0).
            res["reflector_exit"] = refl.p.returncode
            log(f"note: the reflector exited on its own (status {refl.p.returncode}) after "
                "the DUT left (testpmd's memif server sometimes crashes on a disconnect)")
    finally:
        if refl:
            refl.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        cleanup_prefixes(args)
    res["others_cpu"] = round(win.others(), 2)
    return res


# ---------------------------------------------------------------------------------------------
# report


def mpps(x):
    return f"{x / 1e6:.2f}" if x is not None else "-"


def summarize(runs):
    """Pool the samples of all rounds of one (device, dut)."""
    samples = [s for r in runs for s in r["samples_pps"]]

    def worst(key, pick):
        vals = [r[key] for r in runs if r.get(key) is not None]
        return pick(vals) if vals else None

    return {
        "median_pps": statistics.median(samples) if samples else None,
        "max_pps": max(samples) if samples else None,
        "samples_pps": samples,
        "cpu_share": worst("cpu_share", min),
        "reflector_cpu_share": worst("reflector_cpu_share", min),
        "others_cpu": worst("others_cpu", max),
        "in_flight_at_end": [r.get("in_flight_at_end") for r in runs],
        "runs": runs,
    }


def on_sigterm(sig, frame):
    # meson's timeout and kill(1) send SIGTERM; unwinding runs the finally blocks that stop
    # the DPDK processes (they run in their own sessions, so no group signal reaches them)
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--echo", default=os.path.join(ROOT, "build", "bench", "droce-bench-echo"),
                    help="droce-bench-echo binary (default: build/bench/droce-bench-echo)")
    ap.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd")
    ap.add_argument("--json", default=os.path.join(ROOT, "build", "bench-stack.json"),
                    help="where to write the results (default: build/bench-stack.json)")
    ap.add_argument("--devices", default=",".join(DEVICES),
                    help="comma-separated subset of net_ring,net_memif")
    ap.add_argument("--population", type=int, default=512,
                    help="frames in flight, a multiple of 32 (default 512)")
    ap.add_argument("--frame-size", type=int, default=64,
                    help="Ethernet frame bytes without FCS, 60..1514 (default 64)")
    ap.add_argument("--warmup", type=int, default=1, help="seconds before measuring (1)")
    ap.add_argument("--duration", type=int, default=3, help="seconds measured (3)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="repeat every case, interleaved; samples are pooled (2)")
    ap.add_argument("--udp-csum", choices=("full", "zero"), default="full",
                    help="UDP checksum droce puts on its echoes (full)")
    ap.add_argument("--no-huge", action="store_true",
                    help="run every process with --no-huge even when hugepages are free")
    cpus = sorted(os.sched_getaffinity(0))
    ap.add_argument("--dut-lcore", type=int, default=cpus[0])
    ap.add_argument("--refl-lcore", type=int, default=cpus[1] if len(cpus) > 1 else cpus[0])
    args = ap.parse_args()

    devices = [d.strip() for d in args.devices.split(",") if d.strip()]
    if (any(d not in DEVICES for d in devices) or args.population < BURST
            or args.population % BURST or not 60 <= args.frame_size <= 1514
            or args.duration < 1 or args.rounds < 1 or args.warmup < 0):
        ap.error("bad --devices, --population, --frame-size, --duration, --warmup or --rounds")
    if os.geteuid() != 0:
        log("skipped: needs root (hugepages, /var/run/dpdk)")
        return 77
    if not os.access(args.testpmd, os.X_OK):
        log(f"skipped: no dpdk-testpmd at {args.testpmd} (apt install dpdk)")
        return 77
    if not os.access(args.echo, os.X_OK):
        log(f"{args.echo} not found: build it (ninja -C build) or pass --echo")
        return 2
    if args.dut_lcore == args.refl_lcore:
        log("note: one CPU only: DUT and reflector share it, memif numbers mean little")
    args.limit = args.warmup + args.duration + 40  # per process, start-up included
    args.prefixes = []

    need_pages = 2 * MEM_MB // 2 + 64  # two processes of MEM_MB MiB in 2 MiB pages, + slack
    pages = free_hugepages()
    if not args.no_huge and pages < need_pages:
        log(f"only {pages} free 2 MiB hugepages ({need_pages} wanted): running everything "
            "with --no-huge. net_ring works as usual; memif still works because its shared "
            "regions are memfd, not hugepages; rates may be lower than with hugepages.")
        args.no_huge = True

    t0 = time.monotonic()
    results, failures = {}, []
    for rnd in range(args.rounds):
        for dev in devices:
            for dut in ("testpmd-io", "droce-echo"):
                tag = f"{rnd}{dev[4]}{dut[0]}"  # round, r(ing)/m(emif), t(estpmd)/d(roce)
                try:
                    r = run_case(args, dev, dut, tag)
                except Exception as e:  # one failed case must not hide the others
                    log(f"{dev} {dut}: FAILED: {e}")
                    failures.append({"device": dev, "dut": dut, "error": str(e)[-2000:]})
                    continue
                log(f"{dev} {dut}: median {mpps(statistics.median(r['samples_pps']))} Mpps, "
                    f"samples {[round(s / 1e6, 2) for s in r['samples_pps']]}, CPU share "
                    f"{r.get('cpu_share')}, reflector's {r.get('reflector_cpu_share', '-')}, "
                    f"others used {r['others_cpu']} CPUs")
                results.setdefault((dev, dut), []).append(r)

    dpdk_ver = next((r["dpdk"] for runs in results.values() for r in runs if "dpdk" in r),
                    None) or dpdk_version_pkgconfig()
    rows, notes = [], []
    for dev in devices:
        t = summarize(results.get((dev, "testpmd-io"), []))
        d = summarize(results.get((dev, "droce-echo"), []))
        ratio = (d["median_pps"] / t["median_pps"]
                 if d["median_pps"] and t["median_pps"] else None)
        best = d["max_pps"] / t["max_pps"] if d["max_pps"] and t["max_pps"] else None
        rows.append({"device": dev, "testpmd_io": t, "droce_echo": d, "ratio": ratio,
                     "ratio_best": best})
        for name, s in (("testpmd-io", t), ("droce-echo", d)):
            short = [x for x in s["in_flight_at_end"] if x is not None and x < args.population]
            if short:
                notes.append(f"{dev} {name}: only {min(short)} of {args.population} frames "
                             "still in flight at the end (some were lost)")
            for who, key in (("its lcore", "cpu_share"), ("the reflector", "reflector_cpu_share")):
                if s[key] is not None and s[key] < 0.85:
                    notes.append(f"{dev} {name}: {who} got only {s[key]:.0%} of its CPU "
                                 f"(other processes used {s['others_cpu']:.2f} of "
                                 f"{os.cpu_count()} CPUs): the rate is likely low")

    def fmt_ratio(x):
        return f"{x:.3f}" if x is not None else "-"

    print()
    print(f"{'device':<10} {'testpmd-io (Mpps)':<18} {'droce-echo (Mpps)':<18} {'ratio':<7} "
          "(best 1-s samples: testpmd / droce / ratio)")
    for r in rows:
        t, d = r["testpmd_io"], r["droce_echo"]
        print(f"{r['device']:<10} {mpps(t['median_pps']):<18} {mpps(d['median_pps']):<18} "
              f"{fmt_ratio(r['ratio']):<7} ({mpps(t['max_pps'])} / {mpps(d['max_pps'])} / "
              f"{fmt_ratio(r['ratio_best'])})")
    print(f"({args.frame_size}-byte frames, {args.population} in flight, burst {BURST}, "
          f"1 forwarding lcore; median of {args.duration} one-second samples x {args.rounds} "
          f"round(s); droce UDP checksum {args.udp_csum}; "
          f"{'no hugepages' if args.no_huge else 'hugepages'})")
    for n in notes:
        print(f"note: {n}")
    for f in failures:
        print(f"FAILED: {f['device']} {f['dut']}")

    report = {
        "bench": "stack-echo",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cpu_model": cpu_model(),
            "cpus": os.cpu_count(),
            "kernel": platform.release(),
            "dpdk_version": dpdk_ver,
            "testpmd": args.testpmd,
            "hugepages": not args.no_huge,
        },
        "params": {
            "population": args.population, "frame_size": args.frame_size, "burst": BURST,
            "warmup_s": args.warmup, "duration_s": args.duration, "rounds": args.rounds,
            "udp_csum": args.udp_csum, "dut_lcore": args.dut_lcore,
            "reflector_lcore": args.refl_lcore, "mem_mb": MEM_MB, "mbufs": MBUFS,
        },
        "results": rows,
        "notes": notes,
        "failures": failures,
        "elapsed_s": round(time.monotonic() - t0, 1),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"results: {args.json}")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted; every DPDK process it started was stopped")
        sys.exit(130)
