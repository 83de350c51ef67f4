#!/usr/bin/env bash
# Integration test: droce-nfsd serving RPC-over-RDMA on two lcores ([nfs] lcores = 2,
# apps/nfsd/nfsd_lane.h), against droce-nfsperf, in two network namespaces joined by a veth pair
# (scripts/lab.sh; the server's port has a queue per lcore: af_packet qpairs=2). Both of the
# server's lcores back off when idle ([stack] idle_sleep_us): its main lcore shares a CPU with
# the client.
#   1. placement = round_robin: 4 jobs (4 RDMA connections) of randrw 4 KiB with verify=crc32c,
#      and a 256 KiB sequential write then read with verify=md5 (DDP both ways): exit 0, no
#      error; the server put 2 connections on each lane (its /metrics, per lane), both lanes
#      answered NFSv3 calls, and the calls of the two lanes add up exactly to what the client's
#      JSON says it made (nothing lost, nothing counted twice); the connections' telemetry rows
#      in droce-nfsd's log name the lanes; the later runs' connections took the staging regions
#      the first run's left (rpcrdma_regions: no rte_free on the lcore);
#   2. SIGHUP while a 2-job run goes on: the exports are reloaded (the old table is freed only
#      once both lanes have passed a quiet point), the run passes with verify;
#   3. SIGTERM while 4 jobs write: the drain goes SERVING -> DRAINING -> SETTLING -> SYNCING ->
#      STOPPED with every call answered (lane 1 quiesced and ended its calls), exit 0; the
#      final counters print a line per lane;
#   4. placement = client (a restart): 4 connections from one client all land on one lane;
#   5. the client on two lanes (droce-nfsperf --lanes 2, its stack on lcores 0 and 1): 4 jobs
#      of randrw with verify, two connections each (--nconnect 2), jobs 0 and 2 on lcore 0, 1
#      and 3 on lcore 1, both QPs of each job at home on its lcore (the report's "qp lcore")
#      and carrying calls, no error; --lanes 2 on one lcore is refused.
# Usage: nfsd_lanes.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsperf
# Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs for the server's two lcores"; exit 77; }
LAB_HUGEPAGES=${LAB_HUGEPAGES:-no}
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
mkdir -p "$LAB_DIR"
trap lab_down EXIT
lab_up
ip netns exec "$LAB_NS_A" ip link set "$LAB_VETH_A" mtu 1500
ip netns exec "$LAB_NS_B" ip link set "$LAB_VETH_B" mtu 1500
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 0,1
sed -i 's/^memory = .*/memory = 768/' "$LAB_DIR/b.ini"
sed -i 's/^memory = .*/memory = 384/' "$LAB_DIR/a.ini"
sed -i 's/^\(vdev = .*\)$/\1,qpairs=2/' "$LAB_DIR/b.ini"
printf '\n[stack]\nidle_sleep_us = 50\n' >> "$LAB_DIR/b.ini"
printf '\n[stack]\nidle_sleep_us = 20\n' >> "$LAB_DIR/a.ini"
EXP=$LAB_DIR/exp
mkdir -p "$EXP" "$LAB_DIR/state"
echo "$EXP 10.77.0.0/24(rw,no_root_squash,insecure)" > "$LAB_DIR/exports"

# server PLACEMENT: droce-nfsd on two lanes, its metrics at its own address
server() {
	cp "$LAB_DIR/b.ini" "$LAB_DIR/b_$1.ini"
	printf '\n[nfs]\nlcores = 2\nplacement = %s\ngrace = 0\nconnections = 8\nthreads = 3\nmetrics = %s:9464\n' \
		"$1" "$LAB_IP4_B" >> "$LAB_DIR/b_$1.ini"
	ip netns exec "$LAB_NS_B" timeout 200 "$NFSD" --config "$LAB_DIR/b_$1.ini" \
		--exports "$LAB_DIR/exports" --state "$LAB_DIR/state" --seconds 180 \
		> "$LAB_DIR/nfsd.log" 2>&1 &
	LAB_PID_nfsd=$!
	LAB_PIDS+=($LAB_PID_nfsd)
	lab_wait_log nfsd '^serving at' 30
}

# perf NAME ARGS...: droce-nfsperf in A, JSON into $LAB_DIR/NAME.json; sets RC; shows its
# stderr, each line once (a failed connection repeats one line per call in flight)
perf() {
	local name=$1
	shift
	ip netns exec "$LAB_NS_A" timeout 120 "$PERF" --config "$LAB_DIR/a.ini" \
		--server "$LAB_IP4_B" --export "$EXP" --output-format=json \
		--output "$LAB_DIR/$name.json" "$@" > "$LAB_DIR/$name.out" 2> "$LAB_DIR/$name.err"
	RC=$?
	echo "# $name ($*): exit $RC"
	grep -v "^EAL\|^TELEMETRY\|qdisc\|^tap_\|eth_dev_tap\|droce.stack" "$LAB_DIR/$name.err" |
		awk '!seen[$0]++' | head -n 8 | sed 's/^/#   /'
	[ "$RC" = 0 ] || server_state
}

# server_state: what the running server's transport says after a failed run, for the
# failure's diagnosis (it failed 1 run in 29 beside a CPU hog on a 2-CPU machine, not yet
# explained): each lane's polls and handoffs, each QP's state, PSNs and non-zero counters,
# the device's receive drops, and the port's per-queue packets and errors (the af_packet
# PMD counts a TX burst it could not hand to the kernel as errors)
server_state() {
	local q
	for q in /droce/roce /ethdev/stats,0; do
		echo "$q" | timeout 10 dpdk-telemetry.py -f "droce_b_$LAB_ID" 2> /dev/null | tail -n 1
	done | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        d = json.loads(line)
    except ValueError:
        continue
    for k, v in d.items():
        if k == "/droce/roce":
            for dev, x in v.items():
                flat = {n: c for n, c in x.items() if not isinstance(c, dict) and c}
                print(f"#   server {dev}: {flat}")
                for n, c in x.items():
                    if isinstance(c, dict) and (n.startswith("lane") or n.startswith("qp_")):
                        print(f"#   server {n}: " + str({a: b for a, b in c.items() if b}))
        elif v:
            print(f"#   server {k}: " + str({a: (b[:2] if isinstance(b, list) else b)
                                             for a, b in v.items() if b}))
' | head -n 40
}

# clean NAME...: each run's jobs had no error and no verify failure
clean() {
	python3 - "$LAB_DIR" "$@" << 'PY'
import json, sys
ok = True
for n in sys.argv[2:]:
    d = json.load(open(f"{sys.argv[1]}/{n}.json"))
    for j in d["jobs"]:
        if j["error"] or j["nfs"]["errors"] or j["nfs"]["verify_errors"]:
            print(f"# {n}: job {j['jobname']}: error {j['error']} {j['nfs']['errors']}")
            ok = False
sys.exit(0 if ok else 1)
PY
}

# metrics: droce-nfsd's /metrics into $LAB_DIR/metrics.txt
metrics() {
	ip netns exec "$LAB_NS_B" python3 - "$LAB_IP4_B" > "$LAB_DIR/metrics.txt" << 'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], 9464), timeout=10)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: droce\r\n\r\n")
buf = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    buf += c
    if b"\r\n\r\n" in buf:
        head, body = buf.split(b"\r\n\r\n", 1)
        n = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")]
        if n and len(body) >= n[0]:
            break
print(buf.split(b"\r\n\r\n", 1)[1].decode())
PY
}

# --- 1. round robin ---
server round_robin || exit 1
check "droce-nfsd runs its RDMA lanes on lcores 0 and 1, round robin" \
	grep -q "^lanes: RPC-over-RDMA connections served on 2 lcores (0 1), placed by round robin" \
	"$LAB_DIR/nfsd.log"
perf rr --transport rdma --name rr --rw randrw --rwmixread 50 --bs 4k --iodepth 8 \
	--numjobs 4 --nrfiles 1 --size 1m --runtime 3 --verify crc32c
rr_rc=$RC
perf seqw --transport rdma --name seq --rw write --bs 256k --iodepth 2 --numjobs 2 \
	--size 2m --sync 1 --verify md5
seqw_rc=$RC
perf seqr --transport rdma --name seq --rw read --bs 256k --iodepth 2 --numjobs 2 \
	--size 2m --verify md5
seqr_rc=$RC
check "4 jobs of randrw with verify, then 256 KiB write and read with verify, over two lanes: exit 0 ($rr_rc $seqw_rc $seqr_rc), no error" \
	test "$rr_rc$seqw_rc$seqr_rc" = 000 -a -n "$(clean rr seqw seqr && echo y)"
metrics
python3 - "$LAB_DIR" << 'PY'
import json, re, sys
d = sys.argv[1]
m = open(f"{d}/metrics.txt").read()
def fam(name):
    return {(int(a), int(b)): int(float(v)) for a, b, v in
            re.findall(r'^droce_nfsd_' + name + r'\{lane="(\d+)",lcore="(\d+)"\} (\S+)$', m, re.M)}
acc, calls = fam("lane_rdma_accepted_total"), fam("lane_nfs3_calls_total")
sent = 0
for n in ("rr", "seqw", "seqr"):
    for j in json.load(open(f"{d}/{n}.json"))["jobs"]:
        sent += sum(j["nfs"]["calls"].values())
total = sum(int(float(v)) for v in re.findall(r'^droce_nfsd_nfs3_calls_total\{[^}]*\} (\S+)$', m, re.M))
print(f"# lanes: connections {acc}, NFSv3 calls {calls}; the client made {sent}, "
      f"nfs3_calls_total {total}")
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
check("8 RDMA connections (4 + 2 + 2 jobs), 4 on lane 0 (lcore 0) and 4 on lane 1 (lcore 1)",
      acc == {(0, 0): 4, (1, 1): 4})
check("both lanes answered NFSv3 calls", len(calls) == 2 and all(v > 0 for v in calls.values()))
check("the lanes' calls add up to what the client made, and to nfs3_calls_total",
      sum(calls.values()) == sent == total)
helpers = re.search(r'^droce_nfsd_helper_threads (\S+)$', m, re.M)
def one(name):
    v = re.search(r'^droce_nfsd_' + name + r' (\S+)$', m, re.M)
    return int(float(v.group(1))) if v else -1
alloc, reused = one("rdma_regions_allocated_total"), one("rdma_regions_reused_total")
print(f"# staging regions: allocated {alloc}, reused {reused}")
check("the 8 connections' staging regions: 4 allocated for the first run's 4, the later runs "
      "took regions those left (none freed on the lcore)",
      alloc + reused == 8 and reused >= 2)
check("helper threads: each lane's 3 ([nfs] threads = 3), 6 in all",
      helpers is not None and int(float(helpers.group(1))) == 6)
sys.exit(1 if fails else 0)
PY
check "the lanes' metrics agree with the client" [ $? = 0 ]
# how long each lane went without a poll (roce's telemetry), for a failure's diagnosis: a peer
# sees a stall of its lcore as loss
tel=$(echo /droce/roce | timeout 10 dpdk-telemetry.py -f "droce_b_$LAB_ID" 2> /dev/null | tail -n 1)
python3 - "$tel" << 'PY' 2> /dev/null
import json, sys
d = json.loads(sys.argv[1])["/droce/roce"]["iface0"]
print("# " + "; ".join(f"{k}: polls {v['polls']}, longest gap {v['max_poll_gap_us']} us, "
                       f"gaps of 10 ms or more {v['poll_gaps_10ms']}"
                       for k, v in d.items() if k.startswith("lane")))
PY
# and which step of each lcore's loop ran 10 ms or more (the stack's slow-step meter), the
# longest with what its thread did meanwhile: ran, slept or blocked, or waited for a CPU
tel=$(echo /droce/lcores | timeout 10 dpdk-telemetry.py -f "droce_b_$LAB_ID" 2> /dev/null | tail -n 1)
python3 - "$tel" << 'PY'
import json, sys
try:
    d = json.loads(sys.argv[1])["/droce/lcores"]
except (ValueError, KeyError, TypeError):
    print("# /droce/lcores: no answer")
    sys.exit(1)
for lc, v in sorted(d.items()):
    slow = {k[5:]: (n, v.get("max_us/" + k[5:])) for k, n in v.items() if k.startswith("slow/")}
    line = f"# {lc}: slow steps {v['slow_steps']}"
    if slow:
        line += " (" + ", ".join(f"{k} {n}x, max {us} us" for k, (n, us) in slow.items()) + ")"
    if "longest_step" in v:
        line += (f"; longest {v['longest_step']} {v['longest_us']} us: in {v['longest_window_us']} us "
                 f"user {v['longest_user_us']} us, sys {v['longest_sys_us']} us, slept/blocked "
                 f"{v['longest_slept_or_blocked']}x, preempted {v['longest_preempted']}x, "
                 f"{v['longest_page_faults']} faults ({v['longest_major_faults']} major)")
    print(line)
sys.exit(0 if {"lcore0", "lcore1"} <= set(d) and all("slow_steps" in x for x in d.values()) else 1)
PY
check "/droce/lcores shows both lanes' lcores and their slow-step meters" [ $? = 0 ]

# --- 2. SIGHUP under load ---
( sleep 1.5; kill -HUP "$LAB_PID_nfsd" ) &
hpid=$!
perf hup --transport rdma --name hup --rw randrw --rwmixread 50 --bs 4k --iodepth 8 \
	--numjobs 2 --nrfiles 1 --size 1m --runtime 3 --verify crc32c
wait "$hpid"
check "SIGHUP during a two-lane run: the exports were reloaded and the run passed (exit $RC)" \
	test "$RC" = 0 -a -n "$(clean hup && echo y)" -a \
	-n "$(grep -m1 '^exports reloaded: 1 export' "$LAB_DIR/nfsd.log")"

# every connection so far has ended: its QP was destroyed wherever its lane was (a QP of a
# device on two lanes goes only after a grace period: roce_destroy_qp's -EBUSY)
qps=
for _ in $(seq 30); do
	qps=$(echo /droce/roce | timeout 10 dpdk-telemetry.py -f "droce_b_$LAB_ID" 2>/dev/null |
		tail -n 1 | python3 -c "import json,sys; d=json.load(sys.stdin)['/droce/roce']; print(d['iface0']['qps'])" 2>/dev/null)
	[ "$qps" = 1 ] && break
	sleep 0.2
done
check "after 10 connections ended, the device holds QP1 only (every connection's QP destroyed; qps $qps)" \
	test "$qps" = 1
# --- 3. SIGTERM while 4 jobs write ---
ip netns exec "$LAB_NS_A" timeout 60 "$PERF" --config "$LAB_DIR/a.ini" --server "$LAB_IP4_B" \
	--export "$EXP" --transport rdma --name drain --rw write --bs 64k --iodepth 4 \
	--numjobs 4 --size 4m --runtime 20 --time_based > "$LAB_DIR/drain.out" 2>&1 &
cpid=$!
sleep 4
kill -TERM "$LAB_PID_nfsd"
wait "$LAB_PID_nfsd"
st=$?
kill "$cpid" 2> /dev/null
wait "$cpid" 2> /dev/null
grep -E "^state:|^drain|^rdma: lane|^port [0-9]+: dropped|^roce: |^droce.stack: (lcore|no hugepages)" "$LAB_DIR/nfsd.log" | sed 's/^/#   nfsd: /'
# what the server saw go wrong over phases 1 to 3, for a failure's diagnosis: failed endpoints
# and closed connections (the port's and the RoCE device's losses are printed above)
grep -E "endpoint failed|FAILED|RETRY_EXC|closed" "$LAB_DIR/nfsd.log" | awk '!seen[$0]++' |
	head -n 12 | sed 's/^/#   nfsd: /'
check "SIGTERM while 4 jobs wrote on two lanes: drained with every call answered, exit 0 (exit $st)" \
	test "$st" = 0 -a -n "$(grep '^drained: every call answered' "$LAB_DIR/nfsd.log")" -a \
	-n "$(grep 'state: SETTLING -> SYNCING' "$LAB_DIR/nfsd.log")"
check "the counters have a line per lane, each with calls" \
	test "$(grep -cE '^rdma: lane [01] on lcore [01]: connections [1-9][0-9]*, NFSv3 calls [1-9]' "$LAB_DIR/nfsd.log")" = 2
check "no call answered GARBAGE_ARGS or SYSTEM_ERR, no RDMA error" \
	test -z "$(grep -E '^rpc: (garbage_args|system_err) tcp [0-9]+ rdma [1-9]|endpoint failed' "$LAB_DIR/nfsd.log")"

# --- 4. placement = client ---
server client || exit 1
perf cl --transport rdma --name cl --rw randread --bs 4k --iodepth 4 --numjobs 4 \
	--nrfiles 1 --size 1m --runtime 1
metrics
lanes=$(grep -E '^droce_nfsd_lane_rdma_accepted_total' "$LAB_DIR/metrics.txt" | awk '{print $2}' | sort -n | tr '\n' ' ')
echo "# placement = client: connections per lane (sorted): $lanes"
check "placement = client: one client's 4 connections on one lane, none on the other (exit $RC)" \
	test "$RC" = 0 -a "$lanes" = "0 4 "

# --- 5. the client on two lanes: droce-nfsperf --lanes 2 ---
# its stack on lcores 0 and 1 (a queue each), job i on lane i % 2, each job's QP at home there
cp "$LAB_DIR/a.ini" "$LAB_DIR/a2.ini"
sed -i 's/^lcores = .*/lcores = 0,1/; s/^\(vdev = .*\)$/\1,qpairs=2/' "$LAB_DIR/a2.ini"
ip netns exec "$LAB_NS_A" timeout 120 "$PERF" --config "$LAB_DIR/a2.ini" --lanes 2 \
	--server "$LAB_IP4_B" --export "$EXP" --output-format=json --output "$LAB_DIR/cl2.json" \
	--transport rdma --name cl2 --rw randrw --rwmixread 50 --bs 4k --iodepth 4 --numjobs 4 \
	--nrfiles 1 --size 1m --runtime 2 --verify crc32c --nconnect 2 \
	> "$LAB_DIR/cl2.out" 2> "$LAB_DIR/cl2.err"
RC=$?
grep -v "^EAL\|^TELEMETRY\|qdisc\|^tap_\|eth_dev_tap\|droce.stack" "$LAB_DIR/cl2.err" |
	awk '!seen[$0]++' | head -n 8 | sed 's/^/#   /'
python3 - "$LAB_DIR/cl2.json" << 'PY'
import json, re, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
for j in jobs:
    q = re.findall(r"qp lcore (\d+)", j["nfs"]["xprt_stats"])
    print(f"#   job {j['jobname']}: lcore {j['nfs']['lcore']}, QPs on lcores {q}, "
          f"{sum(j['nfs']['calls'].values())} calls, on each connection "
          f"{j['nfs']['connection_calls']}, errors {j['nfs']['errors']}")
ok = [j["nfs"]["lcore"] for j in jobs] == [0, 1, 0, 1] and all(
    re.findall(r"qp lcore (\d+)", j["nfs"]["xprt_stats"]) == [str(j["nfs"]["lcore"])] * 2 and
    len(j["nfs"]["connection_calls"]) == 2 and min(j["nfs"]["connection_calls"]) > 0 and
    not j["error"] and not j["nfs"]["errors"] and j["nfs"]["verify_errors"] == 0 and
    j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in jobs)
sys.exit(0 if ok else 1)
PY
check "droce-nfsperf --lanes 2 --nconnect 2: jobs 0 and 2 on lcore 0, 1 and 3 on lcore 1, both QPs of each job at home on its lcore and carrying calls, randrw with verify, no error (exit $RC)" \
	test "$RC" = 0 -a $? = 0
ip netns exec "$LAB_NS_A" "$PERF" --config "$LAB_DIR/a.ini" --lanes 2 --server "$LAB_IP4_B" \
	--export "$EXP" --transport rdma > "$LAB_DIR/cl3.out" 2>&1
RC=$?
check "--lanes 2 on a stack of one lcore is refused, naming [eal] lcores (exit $RC)" \
	test "$RC" = 22 -a -n "$(grep -- '--lanes 2: the stack runs 1 lcore' "$LAB_DIR/cl3.out")"

kill -INT "$LAB_PID_nfsd"
wait "$LAB_PID_nfsd"
check "droce-nfsd stopped on SIGINT with exit 0 (exit $?)" [ $? = 0 ]

echo "$fails failed"
[ "$fails" = 0 ]
