#!/usr/bin/env bash
# Integration test: droce-nfsperf (apps/nfsperf/droce-nfsperf.c) against droce-nfsd, in two network
# namespaces joined by a veth pair (MTU 1500), each side on its own droce stack
# (net_af_packet on its veth end, scripts/lab.sh); MOUNT goes over TCP through the client's
# and the server's exception TAPs:
#   1. RDMA: randrw 50/50, 4 KiB, iodepth 8, 2 jobs x 2 files, verify=crc32c, each job on 2
#      connections (--nconnect 2: its calls on both, their counts adding up to the job's):
#      exit 0; the JSON has fio's keys (jobs[].read.iops, bw, runtime, clat_ns.percentile
#      "50.000000" and "99.000000", lat_ns, job options...), one entry per job, total_ios x bs
#      = io_bytes and iops = total_ios / runtime in each direction, no error, the calls
#      READDIRPLUS, LOOKUP, CREATE, GETATTR, READ, WRITE and COMMIT were made;
#   2. RDMA, 256 KiB blocks (READ data by write chunk, WRITE data by read chunk, beyond the
#      inline size): sequential write with sync=1 (FILE_SYNC, no COMMIT), then sequential read
#      with verify=md5 of what it wrote; the files on droce-nfsd's disk are whole;
#   3. TCP (the kernel's, through droce's exception TAP): randrw 70/30, 64 KiB, iodepth 4,
#      verify=md5, fsync=8 (COMMIT every 8 writes): exit 0, JSON consistent, COMMITs counted
#      in "sync";
#   4. a byte of one file changed on the server's disk: a verify=crc32c read over RDMA exits 1,
#      prints "verify: FILE: ... first bad byte at offset N" with the exact offset and the
#      expected and found bytes, and the JSON counts it under errors.verify;
#   5. unlink=1 removes the job's files (REMOVE);
#   6. NFSv4.1 (--nfs-version 4.1: EXCHANGE_ID, CREATE_SESSION, OPEN, SEQUENCE on a slot per
#      call, CLOSE, DESTROY_SESSION/CLIENTID, no MOUNT): over RDMA a 256 KiB sequential write
#      with verify=crc32c (read back), then a read of it with verify=crc32c, DDP both ways;
#      randrw 4 KiB, 2 jobs, iodepth 8, verify=crc32c, each job's session on 2 connections
#      (--nconnect 2, trunked: SEQUENCE binds the second); over TCP randrw 64 KiB with fsync=8
#      on 3 connections a job;
#      each exits 0 with fio's JSON consistent, no error, nfs.version "4.1" and the session
#      operations counted; the written file is whole on the server's disk; the server grants
#      6 slots a session (v4_slots): iodepth 4 gets the 5 it asks, iodepth 8 runs on 6 (a
#      slot beyond them would be NFS4ERR_BADSLOT, an error);
#      The sequential runs' RoCE frames, captured on the server's veth end, decode in tshark as InfiniBand
#      with good ICRCs, and as RPC-over-RDMA carrying NFSv4 COMPOUNDs, flagged only where
#      tshark 4.0 cannot join a reply placed by RDMA WRITE;
#   7. droce-nfsd's NFSv4 metrics (its /metrics at its own address): the COMPOUNDs and each
#      operation's count (and its latency histogram's count) are exactly what droce-nfsperf's
#      JSON says the 4.1 runs sent, nothing else ran, nothing failed, READ's and WRITE's
#      bytes are counted, no client or session is left; droce-nfsstat's v4 table and its JSON
#      carry the same counts;
#   8. droce-nfsd stops on SIGINT with exit 0, having answered no call with GARBAGE_ARGS or
#      SYSTEM_ERR and seen no RDMA error.
# First, droce's NFSv3 RPC-over-RDMA probe (tests/rpc/nfs3_rdma_probe, the one the interop
# suite runs against knfsd) against droce-nfsd: MOUNT, NULL, FSINFO, GETATTR, LOOKUP, a
# 256 KiB WRITE by read chunk and READ by write chunk byte for byte, READDIR by reply chunk,
# SYMLINK with its 560-byte path by read chunk, READLINK of it with a write chunk offered
# (the path comes back as written, and by the write chunk: RFC 8267 §4.1), REMOVE.
# Usage: nfsperf_veth.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsperf [PATH/TO/droce-nfsstat
#        [PATH/TO/nfs3_rdma_probe]]
# Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
NFSSTAT=${3:+$(readlink -f "$3")}
PROBE=${4:+$(readlink -f "$4")}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
# no hugepages unless asked: this test should not take those other runs may be counting on
LAB_HUGEPAGES=${LAB_HUGEPAGES:-no}
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
mkdir -p "$LAB_DIR"
trap lab_down EXIT
lab_up
ip netns exec "$LAB_NS_A" ip link set "$LAB_VETH_A" mtu 1500
ip netns exec "$LAB_NS_B" ip link set "$LAB_VETH_B" mtu 1500
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
sed -i 's/^memory = .*/memory = 512/' "$LAB_DIR/b.ini"
sed -i 's/^memory = .*/memory = 384/' "$LAB_DIR/a.ini"
# NFSv4.1 beside v3, no grace period (a fresh server: nothing to reclaim), 6 slots a session
# (fewer than iodepth 8 asks for)
# and its metrics at its own address (7: the NFSv4 counters against the client's)
printf '\n[nfs]\nversions = 3,4.1\ngrace = 0\nv4_slots = 6\nmetrics = %s:9464\n' "$LAB_IP4_B" \
	>> "$LAB_DIR/b.ini"
# DCQCN for droce-nfsd's RDMA connections, from its own file's [dcqcn]
printf '\n[dcqcn]\nline_gbps = 25\n' >> "$LAB_DIR/b.ini"
EXP=$LAB_DIR/exp
mkdir -p "$EXP" "$LAB_DIR/state"
echo "$EXP 10.77.0.0/24(rw,no_root_squash,insecure)" > "$LAB_DIR/exports"

ip netns exec "$LAB_NS_B" timeout 300 "$NFSD" --config "$LAB_DIR/b.ini" \
	--exports "$LAB_DIR/exports" --state "$LAB_DIR/state" --seconds 280 \
	> "$LAB_DIR/nfsd.log" 2>&1 &
LAB_PID_nfsd=$!
LAB_PIDS+=($LAB_PID_nfsd)
lab_wait_log nfsd '^serving at' 30 || exit 1
check "droce-nfsd turned DCQCN on from its [dcqcn] section (line 25 Gbit/s)" \
	grep -q "^dcqcn: on, line 25 Gbit/s" "$LAB_DIR/nfsd.log"

if [ -n "$PROBE" ]; then
	: > "$EXP/data"
	mkdir -p "$EXP/many" && touch "$EXP/many/f1" "$EXP/many/f2" "$EXP/many/f3"
	ip netns exec "$LAB_NS_A" timeout 60 "$PROBE" --config "$LAB_DIR/a.ini" \
		--server "$LAB_IP4_B" --export "$EXP" --size 262144 --entries 5 \
		> "$LAB_DIR/probe.out" 2>&1
	prc=$?
	grep -E '^(ok|FAIL) - |^# (SYMLINK|READLINK|READ):' "$LAB_DIR/probe.out" | sed 's/^/#   probe: /'
	check "nfs3_rdma_probe against droce-nfsd: every step (READLINK's path by write chunk, SYMLINK's by read chunk) (exit $prc)" \
		[ $prc = 0 ]
	check "the probe's link is gone and its 256 KiB are on droce-nfsd's disk" \
		test "$(find "$EXP" -maxdepth 1 -name 'probe-link-*' | wc -l)/$(stat -c %s "$EXP/data")" = 0/262144
	rm -rf "$EXP/data" "$EXP/many" "$EXP"/probe-link-*
fi

# perf NAME ARGS...: droce-nfsperf in A, JSON into $LAB_DIR/NAME.json, stderr in NAME.err;
# sets RC
perf() {
	local name=$1 t
	shift
	t=$(date +%s.%N)
	ip netns exec "$LAB_NS_A" timeout 120 "$PERF" --config "$LAB_DIR/a.ini" \
		--server "$LAB_IP4_B" --export "$EXP" --output-format=json \
		--output "$LAB_DIR/$name.json" "$@" > "$LAB_DIR/$name.out" 2> "$LAB_DIR/$name.err"
	RC=$?
	echo "# $name ($*): exit $RC in $(python3 -c "print(f'{$(date +%s.%N) - $t:.1f}')") s"
	grep -v "^EAL\|^TELEMETRY\|qdisc\|^tap_\|eth_dev_tap\|droce.stack" "$LAB_DIR/$name.err" | head -n 12 | sed 's/^/#   /'
}

# judge NAME BS JOBS WANT-ERRORS: fio's keys, counts consistent with bytes, the calls made
judge() {
	python3 - "$LAB_DIR/$1.json" "$2" "$3" "$4" << 'PY'
import json, sys
path, bs, njobs, want_err = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
d = json.load(open(path))
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
jobs = d.get("jobs", [])
check(f"{path.rsplit('/', 1)[1]}: {len(jobs)} jobs in jobs[] (want {njobs})", len(jobs) == njobs)
keys = ["io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios",
        "slat_ns", "clat_ns", "lat_ns", "bw_min", "bw_max", "bw_mean", "iops_min", "iops_max",
        "iops_mean", "iops_stddev"]
bad = []
for j in jobs:
    for k in ["jobname", "groupid", "error", "job options", "read", "write", "trim", "sync",
              "job_runtime", "usr_cpu", "sys_cpu", "nfs"]:
        if k not in j:
            bad.append(k)
    for dname in ("read", "write"):
        r = j[dname]
        bad += [f"{dname}.{k}" for k in keys if k not in r]
        if r["total_ios"] * bs != r["io_bytes"]:
            bad.append(f"{dname}: total_ios {r['total_ios']} x {bs} != io_bytes {r['io_bytes']}")
        if r["io_kbytes"] != r["io_bytes"] // 1024:
            bad.append(f"{dname}: io_kbytes")
        if r["total_ios"]:
            # runtime is whole milliseconds (fio's), iops and bw come from the exact time:
            # they agree within the rounding of runtime (a job of 16 I/Os lasts ~15 ms)
            lo_s = max(r["runtime"] - 1, 0.5) / 1000.0
            hi_s = (r["runtime"] + 1) / 1000.0
            iops_lo, iops_hi = r["total_ios"] / hi_s, r["total_ios"] / lo_s
            if not (0.98 * iops_lo - 1 <= r["iops"] <= 1.02 * iops_hi + 1):
                bad.append(f"{dname}: iops {r['iops']} vs total_ios/runtime "
                           f"{iops_lo:.1f}..{iops_hi:.1f}")
            bw_lo, bw_hi = r["io_bytes"] / 1024 / hi_s, r["io_bytes"] / 1024 / lo_s
            if not (0.98 * bw_lo - 2 <= r["bw"] <= 1.02 * bw_hi + 2):
                bad.append(f"{dname}: bw {r['bw']} KiB/s vs io_bytes/runtime "
                           f"{bw_lo:.1f}..{bw_hi:.1f}")
            p = r["clat_ns"].get("percentile", {})
            for k in ("1.000000", "50.000000", "99.000000", "99.990000"):
                if k not in p:
                    bad.append(f"{dname}: clat_ns.percentile[{k}]")
            if p and not (r["clat_ns"]["min"] <= p["50.000000"] <= p["99.000000"] <= r["clat_ns"]["max"]):
                bad.append(f"{dname}: min <= p50 <= p99 <= max does not hold")
            if r["clat_ns"]["N"] != r["total_ios"]:
                bad.append(f"{dname}: clat_ns.N {r['clat_ns']['N']} != total_ios")
check("fio's keys present, total_ios x bs = io_bytes, iops and bw = counts / runtime, "
      "percentiles ordered" + ("" if not bad else ": " + "; ".join(bad[:6])), not bad)
for j in jobs:
    n = j["nfs"]
    print(f"# job: read {j['read']['total_ios']} ios {j['read']['iops']:.0f} IOPS p99 "
          f"{j['read']['clat_ns'].get('percentile', {}).get('99.000000', 0) / 1000:.0f} us, "
          f"write {j['write']['total_ios']} ios {j['write']['iops']:.0f} IOPS; sync "
          f"{j['sync']['total_ios']}; calls {n['calls']}; errors {n['errors']}")
    print(f"#   {n['xprt_stats']}")
if want_err:
    check("the run reports its verify failure by name",
          any(j["nfs"]["errors"].get("verify", 0) > 0 and j["error"] for j in jobs))
else:
    check("no error in any job (error 0, nfs.errors empty, verify_errors 0)",
          all(j["error"] == 0 and not j["nfs"]["errors"] and j["nfs"]["verify_errors"] == 0
              for j in jobs))
print(f"{fails}")
sys.exit(1 if fails else 0)
PY
}

# calls NAME PROC...: every job made each of these calls at least once
calls() {
	python3 - "$LAB_DIR/$1.json" "${@:2}" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if all(all(j["nfs"]["calls"].get(p, 0) > 0 for p in sys.argv[2:]) for j in d["jobs"]) else 1)
PY
}

# conns NAME N: every job had N connections (--nconnect), each carried calls, and together they
# carried every call the job made (NFSv3: its procedures, MOUNT's aside; 4.1: its COMPOUNDs)
conns() { python3 "$HERE/../interop/nfsperf_conns.py" "$LAB_DIR/$1.json" "$2"; }

# 1. RDMA randrw with verify, each job on 2 connections (--nconnect)
perf rdma_randrw --transport rdma --name rr --rw randrw --rwmixread 50 --bs 4k --iodepth 8 \
	--numjobs 2 --nrfiles 2 --size 2m --runtime 4 --verify crc32c --nconnect 2
check "RDMA randrw 4 KiB, 2 jobs x 2 connections, iodepth 8, verify=crc32c: exit 0" [ $RC = 0 ]
check "RDMA --nconnect 2: each job's calls went on both its connections, none lost" \
	conns rdma_randrw 2
check "RDMA randrw: the JSON's checks" judge rdma_randrw 4096 2 0
check "RDMA randrw: READDIRPLUS, LOOKUP, CREATE, GETATTR, READ, WRITE and COMMIT made" \
	calls rdma_randrw READDIRPLUS LOOKUP CREATE GETATTR READ WRITE COMMIT

# 2. RDMA with 256 KiB blocks: FILE_SYNC writes, then reads verified
perf rdma_seqw --transport rdma --name big --rw write --bs 256k --iodepth 4 --size 4m \
	--verify md5 --sync 1
check "RDMA sequential write 256 KiB, sync=1: exit 0" [ $RC = 0 ]
check "RDMA sequential write: the JSON's checks" judge rdma_seqw 262144 1 0
check "sync=1: every WRITE FILE_SYNC, so no COMMIT" \
	python3 -c "import json,sys; j=json.load(open('$LAB_DIR/rdma_seqw.json'))['jobs'][0]; sys.exit(0 if j['sync']['total_ios'] == 0 and 'COMMIT' not in j['nfs']['calls'] else 1)"
check "the file is whole on droce-nfsd's disk (4 MiB)" [ "$(stat -c %s "$EXP/big.0.0")" = 4194304 ]
perf rdma_seqr --transport rdma --name big --rw read --bs 256k --iodepth 4 --size 4m --verify md5
check "RDMA sequential read 256 KiB, verify=md5 of what was written: exit 0" [ $RC = 0 ]
check "RDMA sequential read: the JSON's checks" judge rdma_seqr 262144 1 0

# 3. TCP through the exception TAP
perf tcp_randrw --transport tcp --name tt --rw randrw --rwmixread 70 --bs 64k --iodepth 4 \
	--numjobs 2 --size 4m --runtime 4 --verify md5 --fsync 8
check "TCP randrw 64 KiB, 2 jobs, verify=md5, fsync=8: exit 0" [ $RC = 0 ]
check "TCP randrw: the JSON's checks" judge tcp_randrw 65536 2 0
check "TCP: COMMITs every 8 writes counted in sync" \
	python3 -c "import json,sys; d=json.load(open('$LAB_DIR/tcp_randrw.json')); sys.exit(0 if all(j['sync']['total_ios'] >= j['write']['total_ios'] // 8 > 0 for j in d['jobs']) else 1)"
check "TCP: the transport was tcp" grep -q '"transport" : "tcp"' "$LAB_DIR/tcp_randrw.json"

# 4. a corrupted byte is found, with its offset
OFF=654321
printf '\x5a' | dd of="$EXP/rr.1.0" bs=1 seek=$OFF conv=notrunc status=none
perf rdma_corrupt --transport rdma --name rr --rw read --bs 4k --iodepth 8 --numjobs 2 \
	--nrfiles 2 --size 2m --verify crc32c
check "a corrupted file: the verify run exits 1" [ $RC = 1 ]
check "the failure names the file, the offset $OFF, the expected and found bytes" \
	grep -Eq "^verify: rr\.1\.0: crc32c mismatch: first bad byte at offset $OFF \(block at $((OFF / 4096 * 4096)), byte $((OFF % 4096)) of 4096\): expected \[[0-9a-f ]+\], found \[5a[0-9a-f ]*\]" "$LAB_DIR/rdma_corrupt.err"
check "the corrupt run's JSON: the checks, and verify counted" judge rdma_corrupt 4096 2 1

# 5. unlink=1
perf rdma_unlink --transport rdma --name big --rw read --bs 256k --size 4m --unlink 1
check "unlink=1: exit 0, REMOVE made, the file is gone from droce-nfsd's disk" \
	bash -c "[ $RC = 0 ] && [ ! -e '$EXP/big.0.0' ] && grep -q '\"REMOVE\"' '$LAB_DIR/rdma_unlink.json'"

# 6. NFSv4.1 (the sequential write and read's RoCE frames captured on the server's veth end for
# the wire check below; not the randrw runs: a capture beside two jobs at iodepth 8 loads this
# machine's af_packet path, docs/nfsperf.md "Not yet")
# af_packet's transmissions bypass the sending end's taps, so each end's capture holds what it
# received: the two are merged
WIRE=$LAB_DIR/v41.pcap
TSHARK_PIDS=
for side in A B; do
	ns=LAB_NS_$side dev=LAB_VETH_$side
	ip netns exec "${!ns}" timeout 200 tshark -q -i "${!dev}" -f "udp port 4791" -F pcap \
		-w "$LAB_DIR/v41_$side.pcap" > "$LAB_DIR/tshark_$side.log" 2>&1 &
	TSHARK_PIDS="$TSHARK_PIDS $!"
	for _ in $(seq 100); do grep -q "Capturing on" "$LAB_DIR/tshark_$side.log" 2>/dev/null && break; sleep 0.1; done
done
V4OPS="EXCHANGE_ID CREATE_SESSION RECLAIM_COMPLETE PUTROOTFH SEQUENCE OPEN GETFH CLOSE DESTROY_SESSION DESTROY_CLIENTID"
# v41 NAME: the run says NFS 4.1 and made every session operation
v41() {
	python3 -c "import json,sys; sys.exit(0 if all(j['nfs']['version'] == '4.1' and 'MNT' not in j['nfs']['calls'] for j in json.load(open('$LAB_DIR/$1.json'))['jobs']) else 1)"
}
# slots NAME N: every job's session had N slots
slots() {
	python3 -c "import json,sys; sys.exit(0 if all(j['nfs']['session_slots'] == $2 for j in json.load(open('$LAB_DIR/$1.json'))['jobs']) else 1)"
}
# v41ok NAME OP...: v41, and every job made each of these operations
v41ok() { v41 "$1" && calls "$@"; }
gone() { [ ! -e "$1" ]; }
perf v41_rdma_seqw --nfs-version 4.1 --transport rdma --name v4 --rw write --bs 256k --iodepth 4 \
	--size 4m --verify crc32c
check "4.1 RDMA sequential write 256 KiB, verify=crc32c (read back): exit 0" [ $RC = 0 ]
check "4.1 RDMA sequential write: the JSON's checks" judge v41_rdma_seqw 262144 1 0
check "4.1 RDMA sequential write: version 4.1, the session's operations, WRITE, READ, COMMIT" \
	v41ok v41_rdma_seqw $V4OPS WRITE READ COMMIT
check "4.1 iodepth 4: the session has the 5 slots asked for" slots v41_rdma_seqw 5
check "4.1: the file is whole on droce-nfsd's disk (4 MiB)" [ "$(stat -c %s "$EXP/v4.0.0")" = 4194304 ]
# 256 KiB cannot go inline: with no long call and no long reply, WRITE's data went by read
# chunk and READ's came by write chunk
check "4.1 RDMA: 256 KiB of data both ways without a long call or reply (DDP)" \
	grep -Eq '"xprt_stats" : "rdma: .*long calls 0 long replies 0 ' "$LAB_DIR/v41_rdma_seqw.json"
perf v41_rdma_seqr --nfs-version 4.1 --transport rdma --name v4 --rw read --bs 256k --iodepth 4 \
	--size 4m --verify crc32c
check "4.1 RDMA sequential read 256 KiB, verify=crc32c of what was written: exit 0" [ $RC = 0 ]
check "4.1 RDMA sequential read: the JSON's checks" judge v41_rdma_seqr 262144 1 0
check "4.1 RDMA read: no long reply (READ's data by write chunk), no WRITE (nothing to lay out)" \
	bash -c "grep -Eq '\"xprt_stats\" : \"rdma: .*long calls 0 long replies 0 ' '$LAB_DIR/v41_rdma_seqr.json' && ! grep -q '\"WRITE\"' '$LAB_DIR/v41_rdma_seqr.json'"
kill -INT $TSHARK_PIDS 2>/dev/null
wait $TSHARK_PIDS 2>/dev/null
mergecap -F pcap -w "$WIRE" "$LAB_DIR/v41_A.pcap" "$LAB_DIR/v41_B.pcap"
perf v41_rdma_randrw --nfs-version 4.1 --transport rdma --name v4r --rw randrw --rwmixread 50 \
	--bs 4k --iodepth 8 --numjobs 2 --nrfiles 2 --size 2m --runtime 4 --verify crc32c --nconnect 2
check "4.1 RDMA randrw 4 KiB, 2 jobs x 2 connections, iodepth 8, verify=crc32c: exit 0" [ $RC = 0 ]
check "4.1 RDMA --nconnect 2: each session's COMPOUNDs went on both its connections" \
	conns v41_rdma_randrw 2
check "4.1 RDMA randrw: the JSON's checks" judge v41_rdma_randrw 4096 2 0
check "4.1 RDMA randrw: version 4.1 and the session's operations in both jobs" \
	v41ok v41_rdma_randrw $V4OPS READ WRITE
check "4.1 iodepth 8: the sessions have the server's 6 slots (9 asked), and no error" \
	slots v41_rdma_randrw 6
perf v41_tcp_randrw --nfs-version 4.1 --transport tcp --name v4t --rw randrw --rwmixread 70 \
	--bs 64k --iodepth 4 --numjobs 2 --size 4m --runtime 4 --verify crc32c --fsync 8 --unlink 1 \
	--nconnect 3
check "4.1 TCP randrw 64 KiB, 2 jobs x 3 connections, verify=crc32c, fsync=8, unlink=1: exit 0" \
	[ $RC = 0 ]
check "4.1 TCP --nconnect 3: each session's COMPOUNDs went on its three connections" \
	conns v41_tcp_randrw 3
check "4.1 TCP randrw: the JSON's checks" judge v41_tcp_randrw 65536 2 0
check "4.1 TCP randrw: version 4.1, the session's operations, COMMIT and REMOVE" \
	v41ok v41_tcp_randrw $V4OPS COMMIT REMOVE
check "4.1 TCP unlink=1: the files are gone from droce-nfsd's disk" gone "$EXP/v4t.0.0"

# the wire: the 4.1 sequential runs' RoCE frames (droce-nfsd and droce-nfsperf, both droce) decode in
# tshark as InfiniBand with good ICRCs (wire_check.py), tshark reads their RPC-over-RDMA and
# NFSv4 COMPOUNDs, and flags none but replies whose data went by RDMA WRITE (tshark 4.0's
# reassembly cannot join those, as in the knfsd interop point)
# droce-nfsd's MAC: the sender of what the client's end received
SMAC=$(tshark -r "$LAB_DIR/v41_A.pcap" -T fields -e eth.src 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
check "the 4.1 sequential runs' RoCE frames decode as InfiniBand and their ICRCs verify (wire_check.py)" \
	python3 "$HERE/../interop/wire_check.py" "$WIRE" "$SMAC"
nc4=$(tshark -r "$WIRE" -Y 'nfs.main_opcode == 53 || nfs.opcode == 53' 2>/dev/null | wc -l)
tshark -r "$WIRE" -Y '_ws.malformed || _ws.expert.severity == error' -T fields -e frame.number \
	-e rpc.msgtyp -e rpcordma.msg_type -e rpcordma.writes_count 2>/dev/null > "$LAB_DIR/v41.flagged"
odd=$(awk -F'\t' '{ split($2, t, ","); split($3, m, ","); split($4, w, ",");
	if (!(t[1] == 1 && (m[1] == 1 || w[1] > 0))) print }' "$LAB_DIR/v41.flagged" | wc -l)
echo "# wire: $nc4 frames with an NFSv4 SEQUENCE, $(wc -l < "$LAB_DIR/v41.flagged") flagged, $odd of them not a reply placed by RDMA WRITE"
check "tshark reads the NFSv4.1 COMPOUNDs over RPC-over-RDMA ($nc4 with SEQUENCE), and flags none but replies placed by RDMA WRITE" \
	bash -c "[ $nc4 -gt 0 ] && [ $odd = 0 ]"

# 7. droce-nfsd's NFSv4 metrics against what the client sent: the 4.1 runs above are the only
# NFSv4 traffic, none of them failed a call, so every COMPOUND and every operation droce-nfsperf
# counted was run by the server once
V4RUNS="v41_rdma_seqw v41_rdma_seqr v41_rdma_randrw v41_tcp_randrw"
ip netns exec "$LAB_NS_B" timeout 30 python3 - "$LAB_IP4_B" 9464 "$LAB_DIR" $V4RUNS \
	> "$LAB_DIR/v4metrics.log" 2>&1 <<'PY'
import json, socket, sys
ip, port, d, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
s = socket.create_connection((ip, port), timeout=10)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: droce\r\n\r\n")
raw = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    raw += c
m = {}
for line in raw.partition(b"\r\n\r\n")[2].decode().splitlines():
    if line and not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
want, rd, wr = {}, 0, 0
for r in runs:
    for j in json.load(open(f"{d}/{r}.json"))["jobs"]:
        for k, v in j["nfs"]["calls"].items():
            want[k] = want.get(k, 0) + v
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
comp = want.pop("COMPOUND")
check(f"droce_nfsd_nfs4_compounds_total is the COMPOUNDs droce-nfsperf sent ({comp:.0f}): "
      f"{m.get('droce_nfsd_nfs4_compounds_total')}", m.get("droce_nfsd_nfs4_compounds_total") == comp)
got = {k: m.get('droce_nfsd_nfs4_ops_total{op="%s"}' % k) for k in want}
check(f"droce_nfsd_nfs4_ops_total per operation is what droce-nfsperf sent: {want}; got {got}",
      got == want)
ran = {k[len('droce_nfsd_nfs4_ops_total{op="'):-2]: v for k, v in m.items()
       if k.startswith("droce_nfsd_nfs4_ops_total{") and v}
check(f"no other operation ran ({sorted(set(ran) - set(want))})", set(ran) == set(want))
hist = {k: m.get('droce_nfsd_nfs4_op_duration_seconds_count{op="%s"}' % k) for k in want}
inf = {k: m.get('droce_nfsd_nfs4_op_duration_seconds_bucket{op="%s",le="+Inf"}' % k) for k in want}
check("each operation's latency histogram counts it as often (_count and le=+Inf)",
      hist == want and inf == want)
check("READ's latency sum is positive", m.get('droce_nfsd_nfs4_op_duration_seconds_sum{op="READ"}', 0) > 0)
check("the compounds' histogram counts every compound",
      m.get("droce_nfsd_nfs4_compound_duration_seconds_count") == comp)
check("no failed operation, no failed compound",
      m.get("droce_nfsd_nfs4_compound_errors_total") == 0 and
      sum(v for k, v in m.items() if k.startswith("droce_nfsd_nfs4_op_errors_total")) == 0)
check("bytes: READ's and WRITE's are counted (read %s, written %s)" %
      (m.get("droce_nfsd_nfs4_read_bytes_total"), m.get("droce_nfsd_nfs4_written_bytes_total")),
      m.get("droce_nfsd_nfs4_read_bytes_total", 0) >= 4 << 20 and
      m.get("droce_nfsd_nfs4_written_bytes_total", 0) >= 4 << 20)
check("the clients destroyed their IDs and sessions: clients 0, sessions 0",
      m.get("droce_nfsd_nfs4_clients") == 0 and m.get("droce_nfsd_nfs4_sessions") == 0)
json.dump(want, open(f"{d}/v4want.json", "w"))
sys.exit(1 if fails else 0)
PY
rc=$?
sed 's/^/  /' "$LAB_DIR/v4metrics.log"
check "the NFSv4 metrics agree with droce-nfsperf's counts (exit $rc)" [ "$rc" = 0 ]
if [ -n "$NFSSTAT" ]; then
	ip netns exec "$LAB_NS_B" timeout 30 "$NFSSTAT" -s "$LAB_IP4_B:9464" > "$LAB_DIR/nfsstat.log" 2>&1
	rc=$?
	sed -n '/^Server nfs v4/,$p' "$LAB_DIR/nfsstat.log" | sed 's/^/# droce-nfsstat: /'
	ip netns exec "$LAB_NS_B" timeout 30 "$NFSSTAT" -s "$LAB_IP4_B:9464" -j > "$LAB_DIR/nfsstat.json" 2>&1
	rc2=$?
	check "droce-nfsstat: exit 0, and its v4 table's rows and its JSON carry droce-nfsperf's counts" \
		python3 - "$LAB_DIR" $rc $rc2 <<'PY'
import json, re, sys
d = sys.argv[1]
want = json.load(open(f"{d}/v4want.json"))
text = open(f"{d}/nfsstat.log").read()
rows = {m.group(1): float(m.group(2)) for m in re.finditer(r"^([A-Z_0-9]+) +(\d+) +[\d.]+% +0 ", text.split("Server nfs v4", 1)[-1], re.M)}
j = json.load(open(f"{d}/nfsstat.json"))["nfs4"]
jc = {k: v["calls"] for k, v in j["ops"].items() if v["calls"]}
ok = sys.argv[2] == "0" and sys.argv[3] == "0" and rows == want and jc == want
ok = ok and 0 <= j["ops"]["READ"]["p50_us"] <= j["ops"]["READ"]["p99_us"]
if not ok:
    print("# table rows", rows, "json", jc, "want", want)
sys.exit(0 if ok else 1)
PY
fi

lab_stop nfsd
st=$?
grep -E "^(tcp|rdma|nfs3|nfs4|drc|fs):" "$LAB_DIR/nfsd.log" | sed 's/^/# droce-nfsd: /'
check "droce-nfsd stopped on SIGINT with exit 0 (exit $st)" [ "$st" = 0 ]
check "droce-nfsd answered every call (no GARBAGE_ARGS, SYSTEM_ERR or RDMA error)" \
	bash -c "! grep -Eq 'GARBAGE_ARGS [1-9]|SYSTEM_ERR [1-9]|rdma_errors [1-9]' '$LAB_DIR/nfsd.log'"
echo "# nfsperf_veth: $fails failed"
[ "$fails" = 0 ]
