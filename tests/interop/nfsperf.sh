#!/usr/bin/env bash
# Interop test: droce-nfsperf (apps/nfsperf/droce-nfsperf.c) against Linux knfsd (Debian's kernel,
# nfs-kernel-server) in the lab VM (tests/interop/lab.sh), NFSv3 over Linux soft-RoCE and over
# TCP, set up as tests/interop/knfsd.sh does it (a tmpfs export, rdma 20049, MOUNT on 20048):
#   1. the wire run, captured: RDMA randrw 50/50, 16 KiB, one call at a time, verify=crc32c;
#      then TCP (the kernel's, through droce's exception TAP) randrw 70/30, 64 KiB, iodepth 4,
#      verify=md5, fsync=16 (COMMIT every 16 writes), unlink=1: each exits 0 with no error of
#      any kind; tshark decodes every RPC-over-RDMA message as NFS or MOUNT (a call with a
#      read chunk once its chunk is read) and the NFS calls and replies over TCP, flags
#      nothing droce sent, and the RoCE frames are well formed with their ICRCs right
#      (wire_check.py);
#   2. the load run, captured: RDMA randrw 16 KiB, 2 jobs (connections) x iodepth 4, 2 files
#      each of 2 MiB, verify=crc32c; then every file read back in 64 KiB READs with
#      verify_interval 16k, and unlink=1: exit 0, no error, the files gone from the export;
#      tshark decodes every message as RPC and every call droce sent as NFS, flags nothing
#      droce sent, the RoCE frames are right (with several calls' read chunks read at once
#      tshark 4.0 rebuilds few WRITE calls (6 of 769 in a run), so it cannot name all the replies: counted);
#   3. in the VM: knfsd's counters (/proc/net/rpc/nfsd proc3) grew by READ, WRITE, COMMIT and
#      REMOVE;
#   4. NFSv4.1 (knfsd restarted with 4.1 on): RDMA randrw 16 KiB iodepth 4 verify=crc32c and TCP
#      randrw 64 KiB verify=md5 fsync=8, both unlink=1, each job's session trunked over two
#      connections (--nconnect 2: knfsd binds the second to the session at its first SEQUENCE,
#      SP4_NONE): exit 0, no error, COMPOUNDs on both connections; captured, tshark decodes
#      droce's COMPOUNDs over RDMA and flags none, the RoCE frames are right.
# The fio-style JSON of each run is kept in the artifacts. Usage: nfsperf.sh APPS_DIR
# [ARTIFACT_DIR] (APPS_DIR holds droce-nfsperf)      Exit 77 = skipped (with the reason).
set -u
PERF=$(readlink -f "$1/droce-nfsperf")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$PERF" ] || { echo "FAIL - $PERF is not an executable droce-nfsperf"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

lab_up_or_exit 1
vm_run vm1 "
mkdir -p /proc/fs/nfsd /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /export /etc
mount -t nfsd nfsd /proc/fs/nfsd 2>/dev/null
mountpoint -q /export || mount -t tmpfs -o size=96m tmpfs /export
rm -f /export/np*
: > /etc/exports
pidof rpcbind > /dev/null || rpcbind -w 2>&1 || rpcbind 2>&1
exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=0 '*:/export' 2>&1
pidof nfsd > /dev/null || echo 1048576 > /proc/fs/nfsd/max_block_size
pidof rpc.mountd > /dev/null || rpc.mountd -p 20048 2>&1
pidof nfsd > /dev/null || rpc.nfsd -N 4 4 2>&1
grep -q rdma /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist
echo portlist \$(cat /proc/fs/nfsd/portlist); echo versions \$(cat /proc/fs/nfsd/versions)
" 90 | sed 's/^/# vm1: /'
# proc3 counters: "proc3 22 NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE ..."
proc3() { vm_run vm1 "grep '^proc3' /proc/net/rpc/nfsd" 30 | tr -d '\r'; }
before=$(proc3)

# perf NAME ARGS...: droce-nfsperf in droce's namespace against knfsd; JSON in NAME.json
perf() {
	local name=$1 t=$SECONDS
	shift
	ip netns exec "$LABI_DNS" timeout 90 "$PERF" --config "$LABI_DIR/droce.ini" \
		--server "$VMIP" --export /export --output-format=json \
		--output "$LABI_DIR/$name.json" --timeout-ms 20000 "$@" \
		> "$LABI_DIR/$name.out" 2> "$LABI_DIR/$name.err"
	RC=$?
	echo "# $name ($*): exit $RC in $((SECONDS - t)) s"
	grep -v "^EAL\|^TELEMETRY\|qdisc\|^tap_\|eth_dev_tap\|^$" "$LABI_DIR/$name.err" | head -n 8 |
		sed 's/^/#   stderr: /'
	python3 - "$LABI_DIR/$name.json" << 'PY' 2>&1 | sed 's/^/#   /'
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    r, w, n = j["read"], j["write"], j["nfs"]
    p = lambda d: d["clat_ns"].get("percentile", {})
    print(f"job: read {r['total_ios']} ios {r['iops']:.0f} IOPS {r['bw']} KiB/s p50 "
          f"{p(r).get('50.000000', 0) / 1e3:.0f} us p99 {p(r).get('99.000000', 0) / 1e3:.0f} us; "
          f"write {w['total_ios']} ios {w['iops']:.0f} IOPS {w['bw']} KiB/s; sync {j['sync']['total_ios']}; "
          f"error {j['error']}; errors {n['errors']}")
    print(f"  calls {n['calls']}")
    print(f"  {n['xprt_stats']}")
PY
}

# clean NAME [PROC...]: exit 0, every job error 0 with no error counted, and reads and writes
# done (or the procedures named made by every job)
clean() {
	python3 - "$LABI_DIR/$1.json" "${@:2}" << 'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
ok = jobs and all(j["error"] == 0 and not j["nfs"]["errors"] and j["nfs"]["verify_errors"] == 0
                  for j in jobs)
procs = sys.argv[2:]
if procs:
    ok = ok and all(all(j["nfs"]["calls"].get(p, 0) > 0 for p in procs) for j in jobs)
else:
    ok = ok and all(j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in jobs)
sys.exit(0 if ok else 1)
PY
}

# conns NAME N: every job had N connections, each carried calls, and together they carried
# every call the job made (NFSv3: its procedures, MOUNT's aside; 4.1: its COMPOUNDs)
conns() { python3 "$HERE/nfsperf_conns.py" "$LABI_DIR/$1.json" "$2"; }

# RPC-over-RDMA messages in capture NAME: all, decoded as NFS or MOUNT in their frame, and
# calls with a read chunk (decoded where their chunk has been read)
rdma_counts() {
	local cap=$LABI_DIR/$1.pcap
	nrdma=$(tshark -r "$cap" -Y rpcordma 2>/dev/null | wc -l)
	nnfs=$(tshark -r "$cap" -Y 'rpcordma && (nfs || mount)' 2>/dev/null | wc -l)
	nlater=$(tshark -r "$cap" -Y 'rpcordma && !(nfs || mount) && rpcordma.reads_count > 0' 2>/dev/null | wc -l)
	nrpc=$(tshark -r "$cap" -Y 'rpcordma && rpc' 2>/dev/null | wc -l)
	echo "# $1: RPC-over-RDMA messages $nrdma: as NFS in their frame $nnfs, calls with a read chunk $nlater, as RPC $nrpc"
}

# flagged NAME: frames tshark flags, those droce sent (ours) and those knfsd sent that are not
# READ replies placed by RDMA WRITE (odd; tshark 4.0 gets those short, as knfsd.sh says)
flagged() {
	tshark -r "$LABI_DIR/$1.pcap" -Y '_ws.malformed || _ws.expert.severity == error' -T fields \
		-e frame.number -e ip.src -e rpc.msgtyp -e rpcordma.msg_type -e rpcordma.writes_count \
		-e nfs.procedure_v3 -e tcp.port 2>/dev/null > "$LABI_DIR/$1.flagged"
	ours=$(awk -F'\t' -v d="$LABI_DROCE_IP" '$2 == d' "$LABI_DIR/$1.flagged" | wc -l)
	odd=$(awk -F'\t' -v d="$LABI_DROCE_IP" '$2 != d { split($3, t, ","); split($4, m, ",");
		split($5, w, ","); if (!(t[1] == 1 && (m[1] == 1 || w[1] > 0))) print }' "$LABI_DIR/$1.flagged" | wc -l)
	echo "# $1: frames tshark flags: $(wc -l < "$LABI_DIR/$1.flagged"); sent by droce: $ours; by knfsd and not a reply placed by RDMA WRITE: $odd"
	cut -f1,2,6,7 "$LABI_DIR/$1.flagged" | head -3 | sed 's/^/#   frame, source, NFS procedure, ports: /'
}

# ---- the wire run: one connection, one call at a time, so that tshark 4.0 can rebuild every
# call whose data came by read chunk (with several in flight it rebuilds few)
lab_capture_start wire || exit 1
perf wire_rdma --transport rdma --name npw --rw randrw --rwmixread 50 --bs 16k --iodepth 1 \
	--size 1m --runtime 20 --verify crc32c --unlink 1
check "RDMA randrw 16 KiB, iodepth 1, verify=crc32c against knfsd: exit 0" [ $RC = 0 ]
check "RDMA iodepth 1: reads and writes done, no error of any kind" clean wire_rdma
perf wire_tcp --transport tcp --name nptcp --rw randrw --rwmixread 70 --bs 64k --iodepth 4 \
	--size 8m --runtime 20 --verify md5 --fsync 16 --unlink 1
check "TCP randrw 64 KiB, iodepth 4, verify=md5, fsync=16, unlink=1 against knfsd: exit 0" [ $RC = 0 ]
check "TCP: reads and writes done, no error of any kind" clean wire_tcp
check "TCP: COMMIT and REMOVE made" clean wire_tcp COMMIT REMOVE
lab_capture_stop
rdma_counts wire
check "wire: tshark decodes every RPC-over-RDMA message as NFS or MOUNT (at least 100)" \
	[ $((nnfs + nlater)) = "$nrdma" -a "$nrdma" -ge 100 ]
ntcp=$(tshark -r "$LABI_DIR/wire.pcap" -Y 'tcp.port == 2049 && rpc.msgtyp == 0 && nfs' 2>/dev/null | wc -l)
ntcpr=$(tshark -r "$LABI_DIR/wire.pcap" -Y 'tcp.port == 2049 && rpc.msgtyp == 1 && nfs' 2>/dev/null | wc -l)
echo "# wire: NFS calls over TCP that tshark decodes: $ntcp, replies: $ntcpr"
check "wire: tshark decodes droce-nfsperf's NFS calls over TCP and knfsd's replies (at least 50 each)" \
	[ "$ntcp" -ge 50 -a "$ntcpr" -ge 50 ]
flagged wire
check "wire: tshark flags nothing droce sent" [ "$ours" = 0 ]
check "wire: tshark flags only knfsd's READ replies placed by RDMA WRITE" [ "$odd" = 0 ]
check "wire: the RoCE frames are well formed and their ICRCs verify" \
	python3 "$HERE/wire_check.py" "$LABI_DIR/wire.pcap" "$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/wire_rdma.err" | head -1)"

# ---- the load run: two connections, four calls in flight each
lab_capture_start load || exit 1
perf rdma --transport rdma --name np --rw randrw --rwmixread 50 --bs 16k --iodepth 4 \
	--numjobs 2 --nrfiles 2 --size 4m --runtime 20 --verify crc32c
check "RDMA randrw 16 KiB, 2 jobs x iodepth 4, verify=crc32c against knfsd: exit 0" [ $RC = 0 ]
check "RDMA: reads and writes done, no error of any kind" clean rdma
check "RDMA: READDIRPLUS, LOOKUP, CREATE, GETATTR, READ, WRITE and COMMIT made" \
	clean rdma READDIRPLUS LOOKUP CREATE GETATTR READ WRITE COMMIT
perf rdma_read --transport rdma --name np --rw read --bs 64k --verify_interval 16k --iodepth 4 \
	--numjobs 2 --nrfiles 2 --size 4m --verify crc32c --unlink 1
check "RDMA: every file read back whole in 64 KiB READs (verify_interval 16k), then unlink=1: exit 0" [ $RC = 0 ]
check "RDMA read: no error, READ and REMOVE made" clean rdma_read READ REMOVE
lab_capture_stop
left=$(vm_run vm1 "ls /export | grep -c '^np'" 30 | tr -d '\r')
check "the jobs' files are gone from the VM's export (left: ${left:-?})" [ "${left:-1}" = 0 ]
rdma_counts load
nwr=$(tshark -r "$LABI_DIR/load.pcap" -Y 'nfs.procedure_v3 == 7 && rpc.msgtyp == 0' 2>/dev/null | wc -l)
echo "# load: WRITE calls tshark rebuilt from their read chunks: $nwr of $nlater (tshark 4.0 loses most when several calls' chunks are read at once, and then cannot name those calls' replies)"
check "load: tshark decodes every RPC-over-RDMA message as RPC (a call with a read chunk where the chunk is read), and every call droce sent as NFS" \
	[ $((nrpc + nlater)) = "$nrdma" -a "$(tshark -r "$LABI_DIR/load.pcap" -Y "rpcordma && ip.src == $LABI_DROCE_IP && !(nfs || mount) && !(rpcordma.reads_count > 0)" 2>/dev/null | wc -l)" = 0 ]
flagged load
check "load: tshark flags nothing droce sent" [ "$ours" = 0 ]
check "load: the RoCE frames are well formed and their ICRCs verify" \
	python3 "$HERE/wire_check.py" "$LABI_DIR/load.pcap" "$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/rdma.err" | head -1)"

after=$(proc3)
echo "# vm1 nfsd before: $before"
echo "# vm1 nfsd after:  $after"
# field of procedure N (NULL = 0) in "proc3 22 NULL GETATTR ..."
field() { echo "$1" | awk -v f=$(($2 + 3)) '{print $f}'; }
grew() { [ "$(field "$after" $1)" -gt "$(field "$before" $1)" ] 2>/dev/null; }
check "knfsd counted READs, WRITEs, COMMITs and REMOVEs (proc3)" \
	bash -c "$(declare -f field grew); before='$before' after='$after'; grew 6 && grew 7 && grew 21 && grew 12"
# ---- NFSv4.1 against knfsd: knfsd restarts with v4.1 on (lease and grace 10 s, the least it
# takes, waited out: an OPEN in the grace period gets NFS4ERR_GRACE, which droce-nfsperf waits
# on but counts), RDMA 20049 again; the export is the v4 pseudo
# root (fsid=0), so the jobs look up "/". Captured: tshark decodes the 4.1 COMPOUNDs over RDMA.
vm_run vm1 "rpc.nfsd 0; echo 10 > /proc/fs/nfsd/nfsv4leasetime; echo 10 > /proc/fs/nfsd/nfsv4gracetime;
echo '+4 +4.1' > /proc/fs/nfsd/versions; rpc.nfsd 4 2>&1; grep -q rdma /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist;
echo portlist \$(cat /proc/fs/nfsd/portlist); echo versions \$(cat /proc/fs/nfsd/versions); sleep 11" 60 | sed 's/^/# vm1: /'
lab_capture_start v41 || exit 1
perf rdma41 --transport rdma --nfs-version 4.1 --export / --name np41 --rw randrw --rwmixread 50 \
	--bs 16k --iodepth 4 --size 2m --runtime 20 --verify crc32c --unlink 1 --nconnect 2
check "NFSv4.1 RDMA randrw 16 KiB, iodepth 4, 2 connections, verify=crc32c against knfsd: exit 0" \
	[ $RC = 0 ]
check "NFSv4.1 RDMA: reads and writes done, no error of any kind" clean rdma41
check "NFSv4.1 RDMA --nconnect 2: the session's COMPOUNDs went on both connections (trunked)" \
	conns rdma41 2
perf tcp41 --transport tcp --nfs-version 4.1 --export / --name np41t --rw randrw --rwmixread 70 \
	--bs 64k --iodepth 4 --size 4m --runtime 20 --verify md5 --fsync 8 --unlink 1 --nconnect 2
check "NFSv4.1 TCP randrw 64 KiB, iodepth 4, 2 connections, verify=md5, fsync=8 against knfsd: exit 0" \
	[ $RC = 0 ]
check "NFSv4.1 TCP: reads and writes done, no error of any kind" clean tcp41
check "NFSv4.1 TCP --nconnect 2: the session's COMPOUNDs went on both connections (trunked)" \
	conns tcp41 2
lab_capture_stop
n41=$(tshark -r "$LABI_DIR/v41.pcap" -Y "rpcordma && nfs && rpc.programversion == 4 && ip.src == $LABI_DROCE_IP" 2>/dev/null | wc -l)
echo "# v41: NFSv4 COMPOUNDs droce sent over RDMA that tshark decodes: $n41"
check "v41: tshark decodes droce-nfsperf's NFSv4.1 COMPOUNDs over RDMA (at least 50)" [ "$n41" -ge 50 ]
flagged v41
check "v41: tshark flags nothing droce sent" [ "$ours" = 0 ]
check "v41: the RoCE frames are well formed and their ICRCs verify" \
	python3 "$HERE/wire_check.py" "$LABI_DIR/v41.pcap" "$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/rdma41.err" | head -1)"

[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/*.json "$LABI_DIR"/*.err "$LABI_DIR"/*.pcap "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# nfsperf: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
