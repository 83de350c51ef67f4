#!/usr/bin/env python3
"""droce-nfsd's /metrics from the outside, for tests/nfs/nfs_metrics.sh (run inside the test's
network namespace, droce-nfsd --listen 127.0.0.1 --metrics 127.0.0.1:PORT already serving):

  1. the HTTP side: 404 for another path, 405 for POST, 400 for garbage and for an over-long
     head, the connection bound (one over it is closed at once), a connection that says nothing
     dropped after 5 s, and a scrape answered while such a connection hangs;
  2. NFS calls made here with exact counts (ONC RPC over TCP, RFC 5531 record marking, NFSv3
     XDR of RFC 1813, written for this test): MOUNT MNT, NULL x3, GETATTR x5, LOOKUP x1 of a
     file and x2 of a missing name (NFS3ERR_NOENT), READ x4 of 1000 bytes;
  3. the scrape: calls per procedure exactly those (every other procedure 0), each histogram's
     _count equal to its calls and its buckets cumulative up to +Inf, the bytes read, the
     statuses, the helper-thread calls, the TCP connections accepted;
  4. droce-nfsstat: its table's rows and its -j JSON carry the same counts; against a closed
     port it exits non-zero and says how to start droce-nfsd;
  5. promtool check metrics on the text (when promtool is next to prometheus), then a real
     Prometheus (argv[4], "" when absent) scraping it every second: the target is up, and its
     query API returns the counts above.

Usage: metrics_check.py EXPORT_DIR METRICS_IP:PORT DROCE_NFSSTAT PROMETHEUS|"" WORKDIR
Prints one "ok"/"FAIL" line per check; exit 1 on any FAIL, 0 otherwise."""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

EXPORT, MADDR, NFSSTAT, PROM, WORK = sys.argv[1:6]
MHOST, MPORT = MADDR.rsplit(":", 1)
MPORT = int(MPORT)
SRV = "127.0.0.1"
NFS, MNT = 100003, 100005
PROCS = ["NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE",
         "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR",
         "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT"]
fails = 0


def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what, flush=True)
    fails += 0 if cond else 1
    return cond


# ---- HTTP, by hand (no client library: the server must cope with what a socket sends) ----

def http_raw(data, timeout=5):
    s = socket.create_connection((MHOST, MPORT), timeout=timeout)
    s.sendall(data)
    out = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        out += c
    s.close()
    return out


def scrape():
    raw = http_raw(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    m = re.search(rb"Content-Length: (\d+)", head)
    assert m and int(m.group(1)) == len(body), "Content-Length"
    samples = {}
    for line in body.decode().splitlines():
        if not line or line.startswith("#"):
            continue
        key, val = line.rsplit(" ", 1)
        samples[key] = float(val)
    return samples, head


def status_of(raw):
    m = re.match(rb"HTTP/1\.1 (\d+) ", raw)
    return int(m.group(1)) if m else None


# ---- ONC RPC / NFSv3 over TCP ----

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nfsd_life import S, W, Conn  # noqa: E402  the RPC client (record marking, AUTH_SYS root)


def rpc(prog, vers, proc, args, port):
    """One call on a connection of its own; AUTH_SYS root. Returns the results' reader."""
    c = Conn(port)
    try:
        return c.call(prog, vers, proc, args)
    finally:
        c.close()


def nfs(proc, args=b""):
    return rpc(NFS, 3, proc, args, 2049)


def read_post_op_attr(r):
    if r.u():
        r.skip(84)  # fattr3


# ---- 1. the HTTP side, before any NFS call ----
print("# 1. HTTP: paths, methods, garbage, bounds", flush=True)
first, head = scrape()
check("GET /metrics: 200, text format 0.0.4",
      b"Content-Type: text/plain; version=0.0.4" in head)
check("before any call every droce_nfsd_nfs3_calls_total is 0",
      all(first.get('droce_nfsd_nfs3_calls_total{proc="%s"}' % p) == 0 for p in PROCS))
check("NFSv4 is served ([nfs] versions = 3,4.1): its families are there, at 0 "
      "(compounds, READ's histogram, clients)",
      first.get("droce_nfsd_nfs4_compounds_total") == 0 and
      first.get('droce_nfsd_nfs4_op_duration_seconds_count{op="READ"}') == 0 and
      first.get("droce_nfsd_nfs4_clients") == 0)
check("GET / answers 404", status_of(http_raw(b"GET / HTTP/1.1\r\n\r\n")) == 404)
check("GET /metricsx answers 404", status_of(http_raw(b"GET /metricsx HTTP/1.1\r\n\r\n")) == 404)
r = http_raw(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
check("POST /metrics answers 405 with Allow: GET", status_of(r) == 405 and b"Allow: GET" in r)
check("garbage answers 400", status_of(http_raw(b"\x00\x01\x02garbage\r\n\r\n")) == 400)
check("a 64 KiB head without its end answers 400",
      status_of(http_raw(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 65536)) == 400)
idle = [socket.create_connection((MHOST, MPORT)) for _ in range(8)]
time.sleep(0.5)
over = socket.create_connection((MHOST, MPORT))
over.settimeout(5)
try:
    got = over.recv(100)
except OSError:
    got = None
check("a 9th connection while 8 are open is closed at once (got %r)" % got, got == b"")
over.close()
for s in idle[1:]:
    s.close()
time.sleep(0.3)
t = time.time()
ok_while_idle = scrape()[0] is not None
check("a scrape is answered while a silent connection hangs (%.2f s)" % (time.time() - t),
      ok_while_idle and time.time() - t < 2)
idle[0].settimeout(10)
t = time.time()
try:
    got = idle[0].recv(100)
except OSError:
    got = None
check("a silent connection is dropped after about 5 s (after %.1f s)" % (time.time() - t),
      got == b"" and 3 < time.time() - t < 9)
idle[0].close()

# ---- 2. NFS calls with exact counts ----
print("# 2. NFS calls", flush=True)
r = rpc(MNT, 3, 1, S(EXPORT), 20048)
check("MOUNT MNT answers MNT3_OK", r.u() == 0)
root = r.s()
for _ in range(3):
    nfs(0)
getattr_ok = 0
for _ in range(5):
    getattr_ok += nfs(1, S(root)).u() == 0
check("GETATTR x5 of the root: NFS3_OK", getattr_ok == 5)
r = nfs(3, S(root) + S("f"))
check("LOOKUP f: NFS3_OK", r.u() == 0)
fh = r.s()
noent = sum(nfs(3, S(root) + S("nope")).u() == 2 for _ in range(2))
check("LOOKUP nope x2: NFS3ERR_NOENT", noent == 2)
nread = 0
for i in range(4):
    r = nfs(6, S(fh) + W(0, i * 1000) + W(1000))
    if r.u() == 0:
        read_post_op_attr(r)
        r.u(), r.u()  # count, eof
        nread += len(r.s())
check("READ x4 of 1000 bytes: 4000 bytes", nread == 4000)

# ---- 3. the scrape ----
print("# 3. the counters", flush=True)
want = {p: 0 for p in PROCS}
want.update(NULL=3, GETATTR=5, LOOKUP=3, READ=4)
m, _ = scrape()
got = {p: m.get('droce_nfsd_nfs3_calls_total{proc="%s"}' % p) for p in PROCS}
check("droce_nfsd_nfs3_calls_total per procedure is what the client called: %s" %
      {p: v for p, v in got.items() if v}, got == want)
hist_ok = True
for p in PROCS:
    lab = 'proc="%s"' % p
    buckets = [(k, v) for k, v in m.items()
               if k.startswith("droce_nfsd_nfs3_call_duration_seconds_bucket{%s," % lab)]
    vals = [v for _, v in buckets]
    inf = m.get('droce_nfsd_nfs3_call_duration_seconds_bucket{%s,le="+Inf"}' % lab)
    cnt = m.get("droce_nfsd_nfs3_call_duration_seconds_count{%s}" % lab)
    s = m.get("droce_nfsd_nfs3_call_duration_seconds_sum{%s}" % lab)
    if (len(buckets) != 22 or vals != sorted(vals) or inf != cnt or cnt != want[p] or
            (cnt > 0) != (s > 0 if p != "NULL" else cnt > 0)):
        hist_ok = False
        print("#   histogram of %s: %d buckets, +Inf %s, count %s, sum %s" %
              (p, len(buckets), inf, cnt, s))
check("each procedure's histogram: 22 cumulative buckets, +Inf = _count = its calls", hist_ok)
check("droce_nfsd_nfs3_read_bytes_total is 4000 (%s)" % m.get("droce_nfsd_nfs3_read_bytes_total"),
      m.get("droce_nfsd_nfs3_read_bytes_total") == 4000)
check("droce_nfsd_nfs3_replies_total: NFS3_OK 13, NFS3ERR_NOENT 2",
      m.get('droce_nfsd_nfs3_replies_total{status="NFS3_OK"}') == 13 and
      m.get('droce_nfsd_nfs3_replies_total{status="NFS3ERR_NOENT"}') == 2)
check("droce_nfsd_nfs3_errors_total is 2", m.get("droce_nfsd_nfs3_errors_total") == 2)
mnt = {k: v for k, v in m.items() if k.startswith("droce_nfsd_mount_calls_total{")}
check("droce_nfsd_mount_calls_total: MNT 1, the other five 0 (%s)" % mnt,
      len(mnt) == 6 and mnt.get('droce_nfsd_mount_calls_total{proc="MNT"}') == 1 and
      sum(mnt.values()) == 1)
u = m.get("droce_nfsd_io_uring_calls_total", -1)
h = m.get("droce_nfsd_helper_calls_total", -1) + m.get("droce_nfsd_helper_inline_total", -1)
check("the 12 NFS calls other than NULL and the MNT ran on helper threads, inline or by "
      "io_uring (%s + %s)" % (h, u), u >= 0 and h + u == 13)
check("droce_nfsd_helper_queue_depth is 0 when idle", m.get("droce_nfsd_helper_queue_depth") == 0)
check("droce_nfsd_io_uring_queue_depth is 0 when idle",
      m.get("droce_nfsd_io_uring_queue_depth") == 0)
acc = m.get('droce_nfsd_tcp_accepted_total{svc="nfs"}')
check("droce_nfsd_tcp_accepted_total{svc=\"nfs\"} counts the 16 connections made: MNT and 15 NFS calls (%s)" % acc,
      acc == 16)
st = m.get("droce_nfsd_start_time_seconds", 0)
check("droce_nfsd_start_time_seconds is within the last 10 minutes (%s)" % st,
      time.time() - 600 < st <= time.time() + 1)
check("NLM's and the backend's metrics are there",
      'droce_nfsd_nlm_calls_total{proc="LOCK"}' in m and "droce_nfsd_fs_stale_total" in m and
      "droce_nfsd_drc_replayed_total" in m and "droce_nfsd_locks_held" in m)

# ---- 4. droce-nfsstat ----
print("# 4. droce-nfsstat", flush=True)
p = subprocess.run([NFSSTAT, "-s", MADDR], capture_output=True, text=True, timeout=30)
print("".join("#   " + l + "\n" for l in p.stdout.splitlines()[:12]), end="")
rows = {mm.group(1): int(mm.group(2))
        for mm in re.finditer(r"^([A-Z]+)\s+(\d+)\s+[\d.]+%", p.stdout, re.M)}
check("droce-nfsstat: exit 0 and a row per procedure with its calls", p.returncode == 0 and
      rows == want)
check("droce-nfsstat: bytes read 4000", "read 4000," in p.stdout)
p = subprocess.run([NFSSTAT, "-s", MADDR, "-j"], capture_output=True, text=True, timeout=30)
try:
    j = json.loads(p.stdout)
    jc = {k: v["calls"] for k, v in j["nfs3"]["procs"].items()}
    check("droce-nfsstat -j parses as JSON with the same counts", jc == want and
          j["nfs3"]["read_bytes"] == 4000 and j["nfs3"]["calls"] == 15)
    check("droce-nfsstat -j: READ's p50 and p99 are there and p50 <= p99",
          0 <= j["nfs3"]["procs"]["READ"]["p50_us"] <= j["nfs3"]["procs"]["READ"]["p99_us"])
except (ValueError, KeyError) as e:
    check("droce-nfsstat -j parses as JSON (%s: %r)" % (e, p.stdout[:200]), False)
p = subprocess.run([NFSSTAT, "-s", MADDR, "-w", "0.2", "-n", "2"], capture_output=True,
                   text=True, timeout=30)
check("droce-nfsstat -w 0.2 -n 2: two lines of rates", p.returncode == 0 and
      len([l for l in p.stdout.splitlines() if "calls/s" in l]) == 2)
p = subprocess.run([NFSSTAT, "-s", "127.0.0.1:1"], capture_output=True, text=True, timeout=30)
print("#   " + p.stderr.strip())
check("droce-nfsstat against a closed port: non-zero, and says to start with --metrics",
      p.returncode != 0 and "cannot reach droce-nfsd's metrics at 127.0.0.1:1" in p.stderr and
      "--metrics IP:PORT" in p.stderr)

# ---- 5. Prometheus ----
if not PROM:
    print("# 5. Prometheus: not installed here, left out", flush=True)
    sys.exit(1 if fails else 0)
print("# 5. Prometheus", flush=True)
promtool = os.path.join(os.path.dirname(PROM), "promtool")
if os.access(promtool, os.X_OK):
    body = http_raw(b"GET /metrics HTTP/1.1\r\n\r\n").partition(b"\r\n\r\n")[2]
    p = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                       timeout=30)
    out = (p.stdout + p.stderr).decode(errors="replace").strip()
    check("promtool check metrics: the text is valid and follows the naming conventions%s" %
          (" (%s)" % out[:300] if out else ""), p.returncode == 0 and not out)
os.makedirs(WORK + "/tsdb", exist_ok=True)
with open(WORK + "/prometheus.yml", "w") as f:
    f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: droce\n    static_configs:\n"
            "      - targets: ['%s']\n" % MADDR)
API = "127.0.0.1:19090"
log = open(WORK + "/prometheus.log", "w")
prom = subprocess.Popen([PROM, "--config.file=" + WORK + "/prometheus.yml",
                         "--storage.tsdb.path=" + WORK + "/tsdb",
                         "--web.listen-address=" + API], stdout=log, stderr=log)


def api(path):
    with urllib.request.urlopen("http://%s%s" % (API, path), timeout=5) as r:
        return json.loads(r.read())


def query(q):
    d = api("/api/v1/query?query=" + urllib.parse.quote(q))
    res = d["data"]["result"]
    return float(res[0]["value"][1]) if res else None


try:
    up, health, last_err = False, None, None
    end = time.time() + 60
    while time.time() < end and not up:
        time.sleep(1)
        try:
            t = api("/api/v1/targets")["data"]["activeTargets"]
            if t:
                health, last_err = t[0]["health"], t[0]["lastError"]
                up = health == "up"
        except (OSError, ValueError, KeyError):
            pass
    check("Prometheus scrapes droce-nfsd: target up within 60 s (health %s, error %r)" %
          (health, last_err), up)
    vals = {}
    end = time.time() + 30
    while time.time() < end:
        try:
            vals = {p: query('droce_nfsd_nfs3_calls_total{proc="%s"}' % p)
                    for p in ("READ", "GETATTR", "NULL", "LOOKUP")}
        except (OSError, ValueError, KeyError):
            vals = {}
        if vals.get("READ") is not None:
            break
        time.sleep(1)
    check("Prometheus: droce_nfsd_nfs3_calls_total{proc=\"READ\"} = 4 (%s)" % vals.get("READ"),
          vals.get("READ") == 4)
    check("Prometheus: GETATTR 5, NULL 3, LOOKUP 3 (%s)" % vals,
          vals.get("GETATTR") == 5 and vals.get("NULL") == 3 and vals.get("LOOKUP") == 3)
    c = query('droce_nfsd_nfs3_call_duration_seconds_count{proc="READ"}')
    check("Prometheus: the READ histogram's count is 4 (%s)" % c, c == 4)
    q = query('histogram_quantile(0.5, droce_nfsd_nfs3_call_duration_seconds_bucket{proc="READ"})')
    check("Prometheus: histogram_quantile of READ's latency is a number > 0 (%s)" % q,
          q is not None and q > 0)
    b = query("droce_nfsd_nfs3_read_bytes_total")
    check("Prometheus: droce_nfsd_nfs3_read_bytes_total = 4000 (%s)" % b, b == 4000)
finally:
    prom.terminate()
    try:
        prom.wait(timeout=20)
    except subprocess.TimeoutExpired:
        prom.kill()
        prom.wait()
    log.close()
if fails:
    print("".join("#   prometheus: " + l for l in open(WORK + "/prometheus.log").readlines()[-15:]))
sys.exit(1 if fails else 0)
