#!/usr/bin/env bash
# Integration test (issue 14, "bad input loses nothing"): an NFS client that disappears in the
# middle of a DDP transfer costs droce-nfsd nothing it had committed, and nothing else.
# droce-nfsd and droce-nfsperf each on their own droce stack, in two namespaces joined by a
# veth pair (scripts/lab.sh), NFSv3 over RPC-over-RDMA:
#   1. keep: 8 MiB written with FILE_SYNC (sync=1) in 1 MiB WRITEs (data by read chunk: the
#      server pulls it with RDMA READ), then read back with verify=md5; its md5 on the server's
#      disk is noted;
#   2. cut: a client writes 1 MiB blocks, 8 in flight, to another file (up to 1 GiB, each block
#      once: a fast link takes 64 MiB in under a second), and is killed (SIGKILL)
#      once the server has taken some of it and its connection is counted open: its RDMA READs of the next WRITEs' data, and
#      the replies, meet a peer that no longer answers;
#   3. the server notices on its own (no disconnect ever comes: the RDMA connection must end
#      by the transport's retries running out), within 60 s: rdma_connections back to 0,
#      every accepted connection closed;
#   4. nothing committed is lost: keep's md5 on disk is unchanged, a new client reads it back
#      with verify=md5; the cut file holds only whole 1 MiB blocks of the client's pattern
#      and holes (nothing half-placed: each block's verify header and MD5, from the disk), and
#      a new client's randrw with verify works;
#   5. droce-nfsd stops on SIGINT with exit 0, having answered no call with GARBAGE_ARGS or
#      SYSTEM_ERR.
# Usage: nfs_client_kill.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsperf      Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
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
printf '\n[nfs]\nmetrics = %s:9464\n' "$LAB_IP4_B" >> "$LAB_DIR/b.ini"
EXP=$LAB_DIR/exp
mkdir -p "$EXP" "$LAB_DIR/state"
echo "$EXP 10.77.0.0/24(rw,no_root_squash,insecure)" > "$LAB_DIR/exports"
ip netns exec "$LAB_NS_B" timeout 300 "$NFSD" --config "$LAB_DIR/b.ini" \
	--exports "$LAB_DIR/exports" --state "$LAB_DIR/state" --seconds 280 \
	> "$LAB_DIR/nfsd.log" 2>&1 &
LAB_PID_nfsd=$!
LAB_PIDS+=($LAB_PID_nfsd)
lab_wait_log nfsd '^serving at' 30 || exit 1

perf_cmd() { # NAME ARGS...: the droce-nfsperf command line
	local name=$1
	shift
	echo ip netns exec "$LAB_NS_A" timeout 120 "$PERF" --config "$LAB_DIR/a.ini" \
		--server "$LAB_IP4_B" --export "$EXP" --output-format=json \
		--output "$LAB_DIR/$name.json" --transport rdma "$@"
}
perf() { # NAME ARGS...; sets RC
	local name=$1
	$(perf_cmd "$@") > "$LAB_DIR/$name.out" 2> "$LAB_DIR/$name.err"
	RC=$?
	echo "# $name: exit $RC"
	[ $RC = 0 ] || grep -v "^EAL\|^TELEMETRY\|qdisc\|^tap_\|eth_dev_tap" "$LAB_DIR/$name.err" | head -8 | sed 's/^/#   /'
}
metric() { # NAME: droce-nfsd's metric, from its /metrics
	ip netns exec "$LAB_NS_B" timeout 10 python3 - "$LAB_IP4_B" "$1" <<'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], 9464), timeout=5)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: droce\r\n\r\n")
raw = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    raw += c
for line in raw.partition(b"\r\n\r\n")[2].decode().splitlines():
    if line.startswith(sys.argv[2] + " "):
        print(line.split()[-1].split(".")[0])
PY
}

# 1. what is committed
perf keep --name keep --rw write --bs 1m --iodepth 4 --size 8m --sync 1 --verify md5
check "keep: 8 MiB written FILE_SYNC and read back with verify=md5 (exit 0)" [ $RC = 0 ]
md5_keep=$(md5sum < "$EXP/keep.0.0")
check "keep: whole on the server's disk (8 MiB)" [ "$(stat -c %s "$EXP/keep.0.0")" = 8388608 ]

# 2. a client killed in the middle of its WRITEs' DDP
# its REQ's Local ACK Timeout is the server QP's too: 16 (268 ms) rather than nfsperf's 19
# (2.1 s, Linux's), so that the server's 8 tries end in seconds, not half a minute
$(perf_cmd cut --name cut --rw write --bs 1m --iodepth 8 --size 1g --runtime 30 --verify md5 --ack-timeout 16) \
	> "$LAB_DIR/cut.out" 2> "$LAB_DIR/cut.err" &
cutjob=$!
for ((i = 0; i < 200; i++)); do
	[ "$(stat -c %s "$EXP/cut.0.0" 2>/dev/null || echo 0)" -ge 4194304 ] && break
	sleep 0.05
done
# the connection is counted before the kill: once the client is gone the server may end it
# (its retries run out) before a read of the metrics after the kill could see it
conns_at_kill=$(metric droce_nfsd_rdma_connections)
size_at_kill=$(stat -c %s "$EXP/cut.0.0" 2>/dev/null || echo 0)
pkill -KILL -f -- "--name cut --rw write" 2>/dev/null
wait $cutjob 2>/dev/null
echo "# cut: killed with $size_at_kill bytes on the server's disk, $conns_at_kill RDMA connection(s) open"
check "cut: the client was killed while its connection was open, mid-stream (4 MiB or more on disk)" \
	[ "${conns_at_kill:-0}" -ge 1 ] && [ "$size_at_kill" -ge 4194304 ]

# 3. the server ends the connection by itself
t0=$SECONDS
for ((i = 0; i < 120; i++)); do
	[ "$(metric droce_nfsd_rdma_connections)" = 0 ] && break
	sleep 0.5
done
acc=$(metric droce_nfsd_rdma_accepted_total)
clo=$(metric droce_nfsd_rdma_closed_total)
echo "# the dead client's connection ended after $((SECONDS - t0)) s; accepted $acc, closed $clo"
check "the server closed the dead client's connection on its own within 60 s (open 0, accepted $acc = closed $clo)" \
	[ "$(metric droce_nfsd_rdma_connections)" = 0 ] && [ "$acc" = "$clo" ]

# 4. nothing committed lost; what arrived is whole blocks of the pattern
check "keep: its md5 on disk is unchanged" [ "$(md5sum < "$EXP/keep.0.0")" = "$md5_keep" ]
perf keep_again --name keep --rw read --bs 1m --iodepth 4 --size 8m --verify md5
check "keep: a new client reads it back with verify=md5 (exit 0)" [ $RC = 0 ]
cut_size=$(stat -c %s "$EXP/cut.0.0")
echo "# cut: $cut_size bytes on disk after the client died"
# each 1 MiB block on disk: a hole (all zeros: its WRITE never came, or came after a later one
# extended the file) or whole: droce-nfsperf's verify header for that offset and the MD5 of
# the rest (nfsperf_verify.c); a block with some of its bytes placed is neither
python3 - "$EXP/cut.0.0" > "$LAB_DIR/cut_blocks.log" <<'PY'
import hashlib, struct, sys
whole = holes = bad = 0
with open(sys.argv[1], "rb") as f:
    off = 0
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        if b.count(0) == len(b):
            holes += 1
        else:
            magic, kind, o, fil, ln = struct.unpack_from("<IIQII", b)
            if (magic == 0x3176706e and o == off and ln == len(b) == 1 << 20
                    and hashlib.md5(b[40:]).digest() == b[24:40]):
                whole += 1
            else:
                bad += 1
                print(f"# block at {off}: not a whole block (magic {magic:#x}, offset {o}, len {ln}, {len(b)} bytes)")
        off += len(b)
print(f"{whole} {holes} {bad}")
PY
read -r whole holes bad < <(tail -1 "$LAB_DIR/cut_blocks.log")
grep '^#' "$LAB_DIR/cut_blocks.log" | head -5
echo "# cut: $whole whole blocks, $holes holes, $bad partial or wrong"
check "cut: the file is made of whole 1 MiB blocks of the client's pattern and holes ($whole whole, $holes holes, $bad otherwise)" \
	[ "$bad" = 0 ] && [ "$whole" -ge 4 ] && [ $((cut_size % 1048576)) = 0 ]
perf after --name after --rw randrw --rwmixread 50 --bs 4k --iodepth 8 --size 2m --runtime 3 --verify crc32c
check "a new client's randrw 4 KiB with verify=crc32c works (exit 0)" [ $RC = 0 ]

# 5. a clean stop
lab_stop nfsd
st=$?
grep -E "^(rdma|nfs3|fs):" "$LAB_DIR/nfsd.log" | sed 's/^/# droce-nfsd: /'
check "droce-nfsd stopped on SIGINT with exit 0 (exit $st)" [ "$st" = 0 ]
check "droce-nfsd answered every call it took (no GARBAGE_ARGS or SYSTEM_ERR)" \
	bash -c "! grep -Eq 'GARBAGE_ARGS [1-9]|SYSTEM_ERR [1-9]' '$LAB_DIR/nfsd.log'"
echo "# nfs_client_kill: $fails failed, $SECONDS s"
[ "$fails" = 0 ]
