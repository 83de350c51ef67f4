#!/usr/bin/env bash
# bench/nfs-peer.sh - droce-nfsd against its peer, nfs-ganesha (Debian's nfs-ganesha and
# nfs-ganesha-vfs, VFS FSAL), both serving the same directory over NFSv3/TCP, each in a network
# namespace of its own, driven by the same droce-nfsperf job over loopback (issue 17's "peer"):
#   randread 4 KiB and randwrite 4 KiB (UNSTABLE, COMMIT at the end), and sequential read and
#   write of 1 MiB blocks (goodput, MiB/s), 2 connections x iodepth 16, on 2 files of 64 MiB
#   laid out once (page-cache data), S seconds each.
# For each server and job: IOPS, p50/p99, and CPU per operation:
#   server CPU-s   the server process's user + system time (all its threads: ganesha's
#                  workers, droce-nfsd's lcore-less --listen loop and helper threads), from
#                  /proc/PID/stat before and after the run;
#   machine CPU-s  the whole machine's busy time (/proc/stat: user, nice, system, irq,
#                  softirq, steal) minus the client's own process time: the server plus the
#                  kernel's TCP work for both ends (loopback's softirq runs in whoever sends),
#                  plus whatever else runs on the machine (it is shared: read it as an upper
#                  bound);
# and "IOPS per server CPU-s" = IOPS x seconds / server CPU-s (the same for machine CPU-s).
# Every server and job runs twice: NFSv3 and NFSv4.1 (droce-nfsperf --nfs-version 4.1: a
# session per connection, OPEN/CLOSE, SEQUENCE on a slot per call), side by side in the table
# (column "nfs") and the JSON (rows[].nfs); the ratios compare like with like.
# droce-nfsd runs with --listen (kernel sockets, no DPDK), which is how it serves TCP when it has
# no RoCE port; with its RoCE stack the TCP path goes through the exception TAP instead (not
# measured here). Then droce-nfsd over RDMA (two droce stacks over a veth pair, the same job;
# NO_RDMA=1 leaves it out), whose polling lcore makes its CPU time the run's wall time. It prints a table and writes JSON (--json FILE); it asserts nothing about speed.
# LCORE=1 adds droce-nfsd with threads = 0 and io_uring = 0 ("droce-lcore": every file call
# made on its loop, as NFSv4's were before READ, WRITE and COMMIT left it), and the ratios
# droce-nfsd / droce-lcore (JSON ratios_lcore): what the hop off the loop costs or gains.
# Exit 77 (skipped) without root, ganesha.nfsd or rpcbind.
# Usage: nfs-peer.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsperf [--seconds S] [--json FILE]
#        [--dir DIR]
set -u
NFSD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
shift 2
SECS=10
JSON=
BASE=/var/tmp
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECS=$2; shift 2 ;;
	--json) JSON=$2; shift 2 ;;
	--dir) BASE=$2; shift 2 ;;
	*) echo "usage: nfs-peer.sh NFSD NFSPERF [--seconds S] [--json FILE] [--dir DIR]"; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
for t in ganesha.nfsd rpcbind python3; do
	command -v $t > /dev/null || { echo "SKIP: $t not installed (apt-get install nfs-ganesha nfs-ganesha-vfs rpcbind)"; exit 77; }
done
[ -e /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so ] || ls /usr/lib/*/ganesha/libfsalvfs.so > /dev/null 2>&1 ||
	{ echo "SKIP: nfs-ganesha-vfs not installed"; exit 77; }
W=$(mktemp -d "$BASE/droce-nfs-peer.XXXXXX")
EXP=$W/exp
mkdir -p "$EXP" "$W/state"
NS=drpeer$$
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 1
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	declare -F lab_down > /dev/null && lab_down
	rm -rf "$W"
}
trap cleanup EXIT

cat > "$W/ganesha.conf" << EOF
NFS_CORE_PARAM {
	Protocols = 3, 4;
	NFS_Port = 2049;
	MNT_Port = 20048;
	Enable_NLM = false;
	Enable_RQUOTA = false;
}
NFSV4 { Graceless = true; }
EXPORT {
	Export_Id = 1;
	Path = $EXP;
	Pseudo = $EXP;
	Protocols = 3, 4;
	Transports = TCP;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	FSAL { Name = VFS; }
}
LOG { Default_Log_Level = WARN; }
EOF
echo "$EXP 127.0.0.0/8(rw,no_root_squash,insecure)" > "$W/exports"
# droce-nfsd serves 4.1 beside 3, without a grace period (nothing to reclaim)
printf '[nfs]\nversions = 3,4.1\ngrace = 0\n' > "$W/droce.ini"
printf '[nfs]\nversions = 3,4.1\ngrace = 0\nthreads = 0\nio_uring = 0\n' > "$W/droce-lcore.ini"

cpu_of() { # PID -> user + system ticks of the process (all threads)
	awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}
children_cpu() { # user + system ticks of the script's waited-for children (and theirs): $$,
	# the script's shell, also inside $(...)
	awk '{print $16 + $17}' "/proc/$$/stat"
}
machine_busy() { # busy ticks of the whole machine
	awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}
HZ=$(getconf CLK_TCK)

# start SERVER: in a fresh namespace; sets SRV (the server's PID)
start() {
	local i
	ip netns del "$NS" 2>/dev/null
	ip netns add "$NS"
	ip -n "$NS" link set lo up
	if [ "$1" = ganesha ]; then
		ip netns exec "$NS" rpcbind -f > "$W/rpcbind.log" 2>&1 &
		PIDS+=($!)
		sleep 0.5
		ip netns exec "$NS" ganesha.nfsd -F -L "$W/ganesha.log" -f "$W/ganesha.conf" \
			-p "$W/ganesha.pid" > "$W/ganesha.out" 2>&1 &
		SRV=$!
	else
		ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$W/$1.ini" --exports "$W/exports" \
			--state "$W/state" --seconds 3600 > "$W/droce.log" 2>&1 &
		SRV=$!
	fi
	PIDS+=($SRV)
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$NS" bash -c "echo > /dev/tcp/127.0.0.1/2049" 2> /dev/null && return 0
		sleep 0.2
	done
	echo "# $1 did not start"
	tail -5 "$W"/*.log 2>/dev/null | sed 's/^/#   /'
	return 1
}

stop() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	PIDS=()
}

# run SERVER JOB ARGS...: one measured droce-nfsperf run (in $CNS, with $CARGS: the transport
# and the server; NFS version $VERS); appends a row to $W/rows
run() {
	local srv=$1 job=$2 s0 m0 s1 m1 c
	shift 2
	VERS=${VERS:-3}
	s0=$(cpu_of "$SRV")
	m0=$(machine_busy)
	k0=$(children_cpu)
	ip netns exec "$CNS" timeout $((SECS + 60)) "$PERF" "${CARGS[@]}" \
		--export "$EXP" --name peer --numjobs 2 --iodepth 16 --nrfiles 1 --size 64m \
		--runtime "$SECS" --time_based --output-format=json --nfs-version "$VERS" \
		--output "$W/$srv-$job-$VERS.json" --eta never "$@" > "$W/$srv-$job-$VERS.out" 2>&1 &
	c=$!
	wait $c
	local rc=$?
	# the client's own time: droce-nfsperf is timeout's child ($c is ip netns exec, which
	# became timeout), and once both are waited for their times are this shell's children's
	local ct=$(($(children_cpu) - k0))
	if [ ! -s "$W/$srv-$job-$VERS.json" ]; then
		echo "# $srv $job NFS $VERS: droce-nfsperf exit $rc and no JSON; its last lines:"
		tail -5 "$W/$srv-$job-$VERS.out" | sed 's/^/#   /'
		echo '{"jobs": []}' > "$W/$srv-$job-$VERS.json"
		[ $rc = 0 ] && rc=1
	fi
	s1=$(cpu_of "$SRV")
	m1=$(machine_busy)
	python3 - "$W/$srv-$job-$VERS.json" "$srv" "$job" "$rc" "$((s1 - s0))" "$((m1 - m0 - ct))" "$HZ" \
		"$VERS" >> "$W/rows" << 'PY'
import json, sys
path, srv, job, rc, sticks, mticks, hz, vers = sys.argv[1:]
try:
    d = json.load(open(path))
except (OSError, ValueError):
    d = {"jobs": []}
if not d["jobs"]:  # the run failed before its report (run() said why): a row that counts it
    print(json.dumps({"server": srv, "nfs": vers, "job": job, "exit": int(rc) or 1, "errors": 0,
                      "iops": 0, "mib_s": 0, "ios": 0, "runtime_s": 0, "p50_us": 0, "p99_us": 0,
                      "server_cpu_s": 0, "machine_cpu_s": 0, "iops_per_server_cpu_s": 0,
                      "iops_per_machine_cpu_s": 0}))
    sys.exit(0)
iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in d["jobs"])
mib_s = sum(j["read"]["bw_bytes"] + j["write"]["bw_bytes"] for j in d["jobs"]) / 1048576.0
rt = max(j["job_runtime"] for j in d["jobs"]) / 1000.0
ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in d["jobs"])
def pct(k):
    v = [j[dd]["clat_ns"]["percentile"][k] for j in d["jobs"] for dd in ("read", "write")
         if j[dd]["total_ios"]]
    return max(v) / 1000.0 if v else 0
errs = sum(sum(j["nfs"]["errors"].values()) for j in d["jobs"])
scpu = int(sticks) / int(hz)
mcpu = max(int(mticks), 0) / int(hz)
print(json.dumps({"server": srv, "nfs": vers, "job": job, "exit": int(rc), "errors": errs, "iops": iops, "mib_s": mib_s,
                  "ios": ios, "runtime_s": rt, "p50_us": pct("50.000000"),
                  "p99_us": pct("99.000000"), "server_cpu_s": scpu, "machine_cpu_s": mcpu,
                  "iops_per_server_cpu_s": ios / scpu if scpu else 0,
                  "iops_per_machine_cpu_s": ios / mcpu if mcpu else 0}))
PY
}

: > "$W/rows"
CNS=$NS
CARGS=(--transport tcp --server 127.0.0.1)
for srv in ${TCP_SERVERS-droce ganesha} ${LCORE:+droce-lcore}; do
	start $srv || exit 1
	# lay the files out (not measured): a short randread makes and fills them
	ip netns exec "$NS" timeout 300 "$PERF" --transport tcp --server 127.0.0.1 \
		--export "$EXP" --name peer --numjobs 2 --iodepth 16 --size 64m --rw randread \
		--runtime 1 --eta never > "$W/$srv-layout.out" 2>&1
	touch "$W/laid_out"
	for VERS in 3 4.1; do
		run $srv randread-4k --rw randread --bs 4k
		run $srv randwrite-4k --rw randwrite --bs 4k
		run $srv read-1m --rw read --bs 1m
		run $srv write-1m --rw write --bs 1m
	done
	stop
done
ip netns del "$NS" 2>/dev/null

# droce-nfsd over RDMA: two droce stacks in two namespaces (scripts/lab.sh), the client's lcore
# on core 0 and the server's on core 1; both lcores poll, so the server's CPU time is the run's
# wall time whatever the load (the cycles it spent working are less). Two links between them:
#   droce-rdma   net_af_packet over a veth pair (the kernel's veth and AF_PACKET rings);
#   droce-memif  net_memif, the server's port the memif server and the client's its client, on
#                one socket (copy mode; the buffers hold a whole frame, 1920 bytes for the
#                1518-byte frames, below the 2048-byte mbuf room, as rc-bench-link.c explains).
# MOUNT and the portmapper go over the kernel's TCP through each side's exception TAP either way.
# RDMA_LINKS picks them (default "af_packet memif"); TCP_SERVERS="" leaves the TCP servers out.
rdma_run() { # LABEL LINK
	local label=$1 link=$2 i
	LAB_ID=p$$${link:0:1} LAB_DIR=$W/lab-$link LAB_HUGEPAGES=${LAB_HUGEPAGES:-no}
	. "$HERE/../scripts/lab.sh"
	mkdir -p "$LAB_DIR"
	lab_up
	lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
	lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
	sed -i 's/^memory = .*/memory = 512/' "$LAB_DIR/a.ini" "$LAB_DIR/b.ini"
	if [ "$link" = memif ]; then
		for side in a b; do
			role=client
			[ $side = b ] && role=server
			# a fixed MAC: memif picks a random one per start, and the peer's kernel
			# (the exception TAP's ARP cache) would keep sending to the last one
			mac=02:77:00:00:00:0$([ $side = a ] && echo 1 || echo 2)
			sed -i "s|^vdev = .*|vdev = net_memif_$side,role=$role,id=0,socket=$LAB_DIR/memif.sock,socket-abstract=no,bsize=1920,mac=$mac|" \
				"$LAB_DIR/$side.ini"
		done
	fi
	echo "$EXP 10.77.0.0/24(rw,no_root_squash,insecure)" > "$W/exports.rdma"
	printf '\n[nfs]\nversions = 3,4.1\ngrace = 0\n' >> "$LAB_DIR/b.ini"
	ip netns exec "$LAB_NS_B" "$NFSD" --config "$LAB_DIR/b.ini" --exports "$W/exports.rdma" \
		--state "$W/state" --seconds 3600 > "$W/$label.log" 2>&1 &
	SRV=$!
	PIDS+=($SRV)
	for ((i = 0; i < 150; i++)); do
		grep -q '^serving at' "$W/$label.log" && break
		sleep 0.2
	done
	CNS=$LAB_NS_A
	CARGS=(--config "$LAB_DIR/a.ini" --transport rdma --server "$LAB_IP4_B")
	if [ ! -e "$W/laid_out" ]; then # no TCP server ran: lay the files out here, unmeasured
		ip netns exec "$CNS" timeout 300 "$PERF" "${CARGS[@]}" --export "$EXP" --name peer \
			--numjobs 2 --iodepth 16 --size 64m --rw randread --runtime 1 --eta never \
			> "$W/$label-layout.out" 2>&1
		touch "$W/laid_out"
	fi
	for VERS in 3 4.1; do
		run $label randread-4k --rw randread --bs 4k
		run $label randwrite-4k --rw randwrite --bs 4k
		run $label read-1m --rw read --bs 1m
		run $label write-1m --rw write --bs 1m
	done
	stop
	lab_down
}
if [ -z "${NO_RDMA:-}" ]; then
	HERE=$(cd "$(dirname "$0")" && pwd)
	for link in ${RDMA_LINKS:-af_packet memif}; do
		case $link in
		af_packet) rdma_run droce-rdma af_packet ;;
		memif) rdma_run droce-memif memif ;;
		*) echo "# RDMA_LINKS: $link is not af_packet or memif" ;;
		esac
	done
fi

python3 - "$W/rows" "${JSON:-}" "$SECS" << 'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"# droce-nfsd (--listen, kernel TCP) vs nfs-ganesha 4.3 (VFS), NFSv3 and 4.1 over TCP on loopback, "
      f"and droce-nfsd over RDMA (net_af_packet veth, net_memif); droce-nfsperf 2 connections x iodepth 16, "
      f"{sys.argv[3]} s per job")
print(f"{'server':11} {'nfs':3} {'job':13} {'IOPS':>9} {'MiB/s':>7} {'p50 us':>8} {'p99 us':>8} {'srv CPU-s':>9} "
      f"{'IOPS/srv CPU-s':>14} {'mach CPU-s':>10} {'IOPS/mach CPU-s':>15} {'errors':>6}")
for r in rows:
    print(f"{r['server']:11} {r['nfs']:3} {r['job']:13} {r['iops']:9.0f} {r['mib_s']:7.0f} {r['p50_us']:8.0f} {r['p99_us']:8.0f} "
          f"{r['server_cpu_s']:9.2f} {r['iops_per_server_cpu_s']:14.0f} {r['machine_cpu_s']:10.2f} "
          f"{r['iops_per_machine_cpu_s']:15.0f} {r['errors']:6d}")
by = {(r["server"], r["job"]): r for r in rows if r["nfs"] == "3"}
by41 = {(r["server"], r["job"]): r for r in rows if r["nfs"] == "4.1"}
ratios = {}
ratios41 = {}
for job in sorted({r["job"] for r in rows}):
    d, g = by41.get(("droce", job)), by41.get(("ganesha", job))
    if d and g and g["iops_per_server_cpu_s"] and g["iops_per_machine_cpu_s"]:
        ratios41[job] = {"per_server_cpu": d["iops_per_server_cpu_s"] / g["iops_per_server_cpu_s"],
                         "per_machine_cpu": d["iops_per_machine_cpu_s"] / g["iops_per_machine_cpu_s"],
                         "iops": d["iops"] / g["iops"] if g["iops"] else 0}
        print(f"# {job}, NFSv4.1: droce-nfsd / ganesha: IOPS x{ratios41[job]['iops']:.2f}, per "
              f"server CPU-s x{ratios41[job]['per_server_cpu']:.2f}, per machine CPU-s "
              f"x{ratios41[job]['per_machine_cpu']:.2f}")
    d, g = by.get(("droce", job)), by.get(("ganesha", job))
    if d and g and g["iops_per_server_cpu_s"] and g["iops_per_machine_cpu_s"]:
        ratios[job] = {"per_server_cpu": d["iops_per_server_cpu_s"] / g["iops_per_server_cpu_s"],
                       "per_machine_cpu": d["iops_per_machine_cpu_s"] / g["iops_per_machine_cpu_s"],
                       "iops": d["iops"] / g["iops"] if g["iops"] else 0}
        print(f"# {job}: droce-nfsd / ganesha: IOPS x{ratios[job]['iops']:.2f}, per server CPU-s "
              f"x{ratios[job]['per_server_cpu']:.2f}, per machine CPU-s x{ratios[job]['per_machine_cpu']:.2f} "
              f"(issue 17's target: x1.5)")
    ratios.setdefault(job, {})
    for srv, key, what in (("droce-rdma", "rdma", "RDMA (af_packet veth)"),
                           ("droce-memif", "memif", "RDMA (memif)")):
        r = by.get((srv, job))
        if r and g and g["iops_per_machine_cpu_s"]:
            ratios[job][key + "_per_machine_cpu"] = r["iops_per_machine_cpu_s"] / g["iops_per_machine_cpu_s"]
            ratios[job][key + "_iops"] = r["iops"] / g["iops"] if g["iops"] else 0
            print(f"# {job}: droce-nfsd over {what} / ganesha over TCP: IOPS x{ratios[job][key + '_iops']:.2f}, "
                  f"per machine CPU-s x{ratios[job][key + '_per_machine_cpu']:.2f} (issue 17's target: x3)")
lcore = {}
for vers in ("3", "4.1"):
    b = {r["job"]: r for r in rows if r["nfs"] == vers and r["server"] == "droce-lcore"}
    for job, lc in sorted(b.items()):
        d = next((r for r in rows if r["nfs"] == vers and r["server"] == "droce" and r["job"] == job), None)
        if d and lc["iops"] and lc["iops_per_server_cpu_s"]:
            lcore[f"{vers}/{job}"] = {"iops": d["iops"] / lc["iops"],
                                      "per_server_cpu": d["iops_per_server_cpu_s"] / lc["iops_per_server_cpu_s"]}
            print(f"# {job}, NFS {vers}: droce-nfsd / droce-lcore (every file call on the loop): IOPS "
                  f"x{lcore[f'{vers}/{job}']['iops']:.2f}, per server CPU-s "
                  f"x{lcore[f'{vers}/{job}']['per_server_cpu']:.2f}")
if sys.argv[2]:
    json.dump({"rows": rows, "ratios": ratios, "ratios_nfs41": ratios41, "ratios_lcore": lcore},
              open(sys.argv[2], "w"), indent=1)
sys.exit(1 if any(r["exit"] or r["errors"] for r in rows) else 0)
PY
