#!/usr/bin/env bash
# Interop test: two Linux NFSv4.1 clients (kernel 6.1 in two lab VMs, vm1 and vm2), both over
# RDMA, against droce-nfsd (issue 16, "Two clients"). droce-nfsd runs with `[nfs] versions =
# 3,4.1` in droce's namespace; each VM mounts it with -o vers=4.1,proto=rdma,port=20049 (two
# clients to droce: their owner strings carry their host names, vm1 and vm2).
#   - delegation: vm1 reads a file and gets a read delegation; vm2 rewrites the file: droce
#     answers vm2's OPEN for write with NFS4ERR_DELAY and recalls vm1's delegation with CB_RECALL
#     on vm1's own RDMA connection (RFC 8167); vm1 returns it, vm2's write goes through, and vm1
#     then reads vm2's data (no stale cache: coherence after the recall). CB_RECALL is checked
#     on the wire (to vm1's address, over RDMA) and in droce's counters.
#   - lock: vm1 holds a whole-file fcntl lock for LOCK_HOLD s (tests/interop/lock_tool.c); vm2's
#     F_SETLK is refused (NFS4ERR_DENIED), and vm2's F_SETLKW blocks until vm1 lets go, then
#     gets it. droce tells vm2 with CB_NOTIFY_LOCK when the lock is free (counted).
#   - the wire: every RoCE frame well formed with an ICRC that verifies (wire_check.py), and
#     tshark flags nothing droce sent but replies placed by RDMA WRITE (see knfsd.sh).
# Usage: nfs4_two.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the build
# tree next to it: BUILD/apps/droce-nfsd)      Exit 77 = skipped (with the reason).
set -u
PROBE_DIR=$(dirname "$(readlink -f "$1")")
NFSD=$(readlink -f "$PROBE_DIR/../../apps/droce-nfsd")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
LOCK_HOLD=10
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
command -v gcc >/dev/null || { echo "FAIL - needs gcc to build lock_tool"; exit 1; }
[ -x "$NFSD" ] || { echo "FAIL - no droce-nfsd at $NFSD"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

lab_up_or_exit 2
D=$LABI_DROCE_IP
EXP=$LABI_DIR/export2
mkdir -p "$EXP" "$LABI_DIR/state2"
if ! gcc -static -O2 -o "$EXP/lock_tool" "$HERE/lock_tool.c" > "$LABI_DIR/lock_tool.build.log" 2>&1; then
	echo "FAIL - lock_tool did not build:"; cat "$LABI_DIR/lock_tool.build.log"; exit 1
fi
printf 'written by droce before the test\n' > "$EXP/shared.txt"
cat > "$LABI_DIR/exports2" <<EOF
# droce-nfsd's exports for the two-client test (exports(5))
$EXP $LABI_NET.0/24(rw,no_root_squash,insecure)
EOF
cp "$LABI_DIR/droce.ini" "$LABI_DIR/droce2.ini"
cat >> "$LABI_DIR/droce2.ini" <<EOF

[nfs]
versions = 3,4.1
grace = 0
EOF
ip netns exec "$LABI_DNS" timeout 600 "$NFSD" --config "$LABI_DIR/droce2.ini" \
	--exports "$LABI_DIR/exports2" --state "$LABI_DIR/state2" \
	> "$LABI_DIR/nfsd2.out" 2> "$LABI_DIR/nfsd2.err" &
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd2.out" && break; sleep 0.1; done
if ! check "droce-nfsd serves NFSv4.1 at droce's address $D" grep -q "^serving" "$LABI_DIR/nfsd2.out"; then
	cat "$LABI_DIR/nfsd2.err"; exit 1
fi

lab_capture_start nfs4_two || exit 1
for vm in vm1 vm2; do
	vm_run "$vm" "mkdir -p /mnt/d && mount -t nfs -o vers=4.1,proto=rdma,port=20049 $D:$EXP /mnt/d &&
		grep ' /mnt/d ' /proc/mounts && echo host=\$(uname -n)" 180 > "$LABI_DIR/two.$vm.mount" 2>&1
	sed "s/^/# $vm: /" "$LABI_DIR/two.$vm.mount"
	check "$vm mounts droce with NFSv4.1 over RDMA" grep -q ' /mnt/d nfs4 .*vers=4.1.*proto=rdma' "$LABI_DIR/two.$vm.mount"
done

# ---- a read delegation on vm1, recalled by vm2's write
vm_run vm1 "echo read-1=\$(cat /mnt/d/shared.txt)" 60 \
	> "$LABI_DIR/two.deleg1" 2>&1
vm_run vm2 "t0=\$(date +%s); echo 'written by vm2' > /mnt/d/shared.txt; echo write-exit=\$? seconds=\$((\$(date +%s) - t0))" 120 \
	> "$LABI_DIR/two.deleg2" 2>&1
vm_run vm1 "echo read-2=\$(cat /mnt/d/shared.txt)" 60 >> "$LABI_DIR/two.deleg1" 2>&1
sed 's/^/# vm1 deleg: /' "$LABI_DIR/two.deleg1"
sed 's/^/# vm2 deleg: /' "$LABI_DIR/two.deleg2"
check "deleg: vm1 reads the file before" grep -q '^read-1=written by droce before the test' "$LABI_DIR/two.deleg1"
check "deleg: vm2's write of the file vm1 holds a delegation on succeeds" grep -q '^write-exit=0' "$LABI_DIR/two.deleg2"
check "deleg: vm1 then reads vm2's data" grep -q '^read-2=written by vm2$' "$LABI_DIR/two.deleg1"
check "deleg: droce's copy holds vm2's write" grep -q '^written by vm2$' "$EXP/shared.txt"

# ---- a lock on vm1 blocks vm2 until vm1 lets go
vm_run vm1 "cd /mnt/d && (./lock_tool hold two.lock $LOCK_HOLD < /dev/null > /tmp/hold.out 2>&1 &); sleep 2; echo holding" 60 \
	> "$LABI_DIR/two.lock1" 2>&1
vm_run vm2 "cd /mnt/d && ./lock_tool try two.lock; echo try-exit=\$?; ./lock_tool wait two.lock; echo wait-exit=\$?" \
	$((LOCK_HOLD + 90)) > "$LABI_DIR/two.lock2" 2>&1
sed 's/^/# vm1 lock: /' "$LABI_DIR/two.lock1"
sed 's/^/# vm2 lock: /' "$LABI_DIR/two.lock2"
waited=$(sed -nE 's/^waited ([0-9]+) ms.*/\1/p' "$LABI_DIR/two.lock2" | head -1)
check "lock: vm1 holds the lock" grep -q '^holding' "$LABI_DIR/two.lock1"
check "lock: vm2's F_SETLK is refused while vm1 holds it" grep -q '^try-exit=1' "$LABI_DIR/two.lock2"
check "lock: vm2's F_SETLKW gets it once vm1 lets go" grep -q '^wait-exit=0' "$LABI_DIR/two.lock2"
# vm2's wait starts a few seconds into vm1's LOCK_HOLD s (vm1's 2 s, vm2's try): it blocks for
# the rest, several seconds; at least 1 s is asserted (the VMs run under TCG), the time printed
check "lock: vm2's F_SETLKW blocked until vm1 let go (${waited:-?} ms; vm1 held it $LOCK_HOLD s)" \
	[ "${waited:-0}" -ge 1000 ]

for vm in vm1 vm2; do vm_run "$vm" "umount /mnt/d && echo unmounted" 60 > "$LABI_DIR/two.$vm.umount" 2>&1; done
check "both unmount" grep -q '^unmounted' "$LABI_DIR/two.vm1.umount" "$LABI_DIR/two.vm2.umount"
lab_capture_stop
kill -TERM "$NPID"; wait "$NPID"
grep -E '^nfs4: (delegations|compounds)' "$LABI_DIR/nfsd2.out" | sed 's/^/# droce-nfsd: /'
field() { sed -nE "s/.*$1 ([0-9]+).*/\\1/p" "$LABI_DIR/nfsd2.out" | head -1; }
check "deleg: droce granted vm1 a read delegation ($(field 'delegations granted'))" [ "$(field 'delegations granted')" -ge 1 ]
recalled=false
[ "$(field 'recalls sent')" -ge 1 ] && [ "$(field 'answered')" -ge 1 ] && recalled=true
check "deleg: droce recalled it and vm1 answered (recalls sent $(field 'recalls sent'), answered $(field 'answered'))" $recalled
check "lock: droce sent CB_NOTIFY_LOCK when vm1 let go ($(field 'CB_NOTIFY_LOCK sent'))" [ "$(field 'CB_NOTIFY_LOCK sent')" -ge 1 ]

cap=$LABI_DIR/nfs4_two.pcap
vm1ip=$(vm_ip vm1)
n=$(tshark -r "$cap" -Y "nfs.cb.operation == 4 && ip.src == $D && ip.dst == $vm1ip && infiniband" 2>/dev/null | wc -l)
check "deleg: droce's CB_RECALL went to vm1 over RDMA, and tshark decodes it ($n frames)" [ "$n" -gt 0 ]
read -r odd mac < <(lab_nfs_wire "$cap" "$D" "$LABI_DIR/nfsd2.err" "$LABI_DIR/nfsd2.out")
check "tshark flags no frame droce sent (but replies placed by RDMA WRITE: $(wc -l < "$cap.flagged") flagged in all)" [ "$odd" = 0 ]
check "the RoCE frames are well formed and their ICRCs verify" python3 "$HERE/wire_check.py" "$cap" "$mac"
[ -n "$LABI_ARTIFACTS" ] && mkdir -p "$LABI_ARTIFACTS" &&
	cp "$LABI_DIR"/nfsd2.* "$LABI_DIR"/two.* "$cap" "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# nfs4_two: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
