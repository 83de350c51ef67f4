#!/usr/bin/env bash
# Interop test: droce-nfsd operated as an appliance (issue 15) under the Linux NFS client of the
# lab VM, mounted over RDMA. droce-nfsd runs from one INI file: the stack's sections, [nfs],
# and the exports as [export NAME] sections (no --exports, no other option).
#   - restart under a writer: the VM writes 24 MiB with O_DIRECT (each 1 MiB is a WRITE at
#     once); while it writes, droce-nfsd gets SIGTERM (it drains: answers what is in flight,
#     syncs, exits 0) and is started again with the same config and state directory. The VM's
#     dd carries on by itself (RDMA reconnect, the same handles, the new write verifier makes
#     it resend what was not committed) and ends with exit 0; both droce-nfsd runs served
#     WRITEs (so the transfer did span the restart); the file is md5-equal to its source in the
#     VM after dropping its caches and on droce's disk.
#   - rte_telemetry's /droce/nfs/clients lists the VM's RDMA connection, its credits (128, and
#     those in use, at most 128), its
#     calls and the bytes droce pulled by RDMA READ (the WRITEs' data);
#   - SIGHUP with the mount in place: the config loses [export one] and gains [export two];
#     droce-nfsd logs the reload, the VM's mount of one answers EACCES ("Permission denied")
#     from then on, a new mount of one is refused, and two mounts and takes a file that
#     arrives on droce's disk. The same for NFSv4.1 ([nfs] versions = 3,4.1): a v4.1 mount of
#     one over RDMA, in place across the reload, answers EACCES (NFS4ERR_ACCESS) from then on,
#     and two, new in the pseudo file system, mounts with v4.1 and takes a file.
# Usage: nfs_appliance.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the
# build tree next to it: BUILD/apps/droce-nfsd)      Exit 77 = skipped (with the reason).
set -u
PROBE_DIR=$(dirname "$(readlink -f "$1")")
NFSD=$(readlink -f "$PROBE_DIR/../../apps/droce-nfsd")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
[ -x "$NFSD" ] || { echo "FAIL - no droce-nfsd at $NFSD"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

lab_up_or_exit 1
D=$LABI_DROCE_IP
ONE=$LABI_DIR/aone
TWO=$LABI_DIR/atwo
mkdir -p "$ONE" "$TWO" "$LABI_DIR/astate"
chmod 0777 "$ONE" "$TWO"
CONF=$LABI_DIR/appliance.ini
# config NAME PATH: the lab's stack sections, [nfs], and one export
config() {
	{
		cat "$LABI_DIR/droce.ini"
		cat <<EOC

[stack]
idle_sleep_us = 50      ; the appliance backs off when idle (the VM gets the CPU)

[nfs]
versions = 3,4.1
state = $LABI_DIR/astate
threads = 2
grace = 0
drain = 20

[export $1]
path = $2
clients = $LABI_NET.0/24(rw,no_root_squash)
EOC
	} > "$CONF.new"
	mv "$CONF.new" "$CONF"
}
config one "$ONE"
"$NFSD" --check --config "$CONF" > "$LABI_DIR/acheck.out" 2>&1
check "droce-nfsd --check accepts the appliance config ($(cat "$LABI_DIR/acheck.out"))" \
	grep -q "1 export(s) ok" "$LABI_DIR/acheck.out"

start_nfsd() { # N
	ip netns exec "$LABI_DNS" timeout 900 "$NFSD" --config "$CONF" \
		> "$LABI_DIR/anfsd$1.out" 2> "$LABI_DIR/anfsd$1.err" &
	NPID=$!
	LABI_PIDS+=("$NPID")
	for _ in $(seq 150); do grep -q "^serving" "$LABI_DIR/anfsd$1.out" && break; sleep 0.1; done
	check "droce-nfsd ($1) serves from the config alone at $D" grep -q "^serving" "$LABI_DIR/anfsd$1.out"
}
show_nfsd() { # N
	sed "s/^/# droce-nfsd $1: /" "$LABI_DIR/anfsd$1.out"
	grep -v "^EAL\|^$" "$LABI_DIR/anfsd$1.err" | tail -n 10 | sed "s/^/# droce-nfsd $1 stderr: /"
}
writes() { # N: WRITE calls droce-nfsd N served over RDMA
	sed -nE 's/^nfs3: WRITE tcp [0-9]+ rdma ([0-9]+)$/\1/p' "$LABI_DIR/anfsd$1.out"
}

start_nfsd 1 || exit 1
vm_run vm1 "mkdir -p /mnt/one /mnt/two && mount -t nfs -o vers=3,proto=rdma,port=20049,nolock,actimeo=0 $D:$ONE /mnt/one && grep ' /mnt/one ' /proc/mounts" 120 \
	> "$LABI_DIR/vm.amount" 2>&1
sed 's/^/# vm1 mount: /' "$LABI_DIR/vm.amount"
check "the VM mounts export one over RDMA" grep -q ' /mnt/one nfs .*proto=rdma' "$LABI_DIR/vm.amount" || exit 1

# ---- restart under a writer ----
vm_run vm1 "dd if=/dev/urandom of=/tmp/src bs=1M count=24 2>/dev/null; md5sum < /tmp/src | cut -d' ' -f1 > /tmp/src.md5
rm -f /tmp/dd.out; (dd if=/tmp/src of=/mnt/one/big bs=1M oflag=direct 2> /tmp/dd.err; echo dd-exit=\$? > /tmp/dd.out) < /dev/null > /dev/null 2>&1 &
echo started" 60 > "$LABI_DIR/vm.add" 2>&1
# let the writer get going, then restart droce-nfsd under it
for _ in $(seq 40); do [ "$(stat -c %s "$ONE/big" 2>/dev/null || echo 0)" -ge 2097152 ] && break; sleep 0.25; done
at=$(stat -c %s "$ONE/big" 2>/dev/null || echo 0)
echo "# $at bytes on droce's disk when droce-nfsd gets SIGTERM"
t1=$SECONDS
kill -TERM "$NPID"
wait "$NPID"
rc=$?
show_nfsd 1
check "SIGTERM under the writer: droce-nfsd drained and exited 0 (exit $rc, $((SECONDS - t1)) s)" \
	bash -c "[ $rc = 0 ] && grep -q '^drained: every call answered; synced' '$LABI_DIR/anfsd1.out'"
start_nfsd 2 || exit 1
vm_run vm1 "for i in \$(seq 240); do [ -f /tmp/dd.out ] && break; sleep 1; done; cat /tmp/dd.out /tmp/dd.err
sync; echo 3 > /proc/sys/vm/drop_caches
echo src-md5 \$(cat /tmp/src.md5); echo mnt-md5 \$(md5sum < /mnt/one/big | cut -d' ' -f1)" 300 \
	> "$LABI_DIR/vm.add2" 2>&1
sed 's/^/# vm1 writer: /' "$LABI_DIR/vm.add2"
src=$(sed -n 's/^src-md5 //p' "$LABI_DIR/vm.add2")
mnt=$(sed -n 's/^mnt-md5 //p' "$LABI_DIR/vm.add2")
disk=$(md5sum < "$ONE/big" | cut -d' ' -f1)
check "the VM's dd carried on across the restart by itself and ended with exit 0" \
	grep -q "^dd-exit=0" "$LABI_DIR/vm.add2"
check "the restart came in the middle of the transfer ($at of 25165824 bytes were on disk)" \
	[ "$at" -gt 0 -a "$at" -lt 25165824 ]
check "md5 in the VM (through the mount, caches dropped) equals the source: $mnt" \
	[ -n "$src" -a "$src" = "$mnt" ]
check "md5 on droce's disk equals the source: $disk" [ -n "$src" -a "$src" = "$disk" ]

# ---- who is connected, as an operator reads it (rte_telemetry /droce/nfs/clients) ----
VMIP=$(vm_ip vm1)
sleep 1 # the snapshot is taken twice a second
echo /droce/nfs/clients | timeout 10 dpdk-telemetry.py -f "droce_il_$LABI_ID" 2>/dev/null | tail -n 1 \
	> "$LABI_DIR/aclients.json"
sed 's/^/# telemetry: /' "$LABI_DIR/aclients.json"
check "telemetry /droce/nfs/clients lists the VM's RDMA connection with 128 credits and its calls" \
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["/droce/nfs/clients"]
rows = [v for v in d.values() if v["transport"] == "rdma" and v["peer"].startswith(sys.argv[2] + ":")]
sys.exit(0 if len(rows) == 1 and rows[0]["credits"] == 128 and rows[0]["calls"] > 0
         and rows[0]["ddp_read_bytes"] > 0 and 0 <= rows[0]["credits_in_use"] <= 128 else 1)' "$LABI_DIR/aclients.json" "$VMIP"

# ---- SIGHUP: one goes, two comes ----
# a v4.1 mount of one next to the v3 one, with a file that reached droce's disk through it
vm_run vm1 "mkdir -p /mnt/one4 /mnt/two4 && mount -t nfs -o vers=4.1,proto=rdma,port=20049,actimeo=0 $D:$ONE /mnt/one4 &&
echo 'written over 4.1' > /mnt/one4/v4file && sync && grep ' /mnt/one4 ' /proc/mounts" 120 \
	> "$LABI_DIR/vm.amount4" 2>&1
sed 's/^/# vm1 v4.1 mount: /' "$LABI_DIR/vm.amount4"
check "the VM mounts export one with NFSv4.1 over RDMA, and a file written there is on droce's disk" \
	bash -c "grep -q ' /mnt/one4 nfs4 .*vers=4.1.*proto=rdma' '$LABI_DIR/vm.amount4' &&
		[ \"\$(cat '$ONE/v4file' 2>/dev/null)\" = 'written over 4.1' ]"
config two "$TWO"
before=$(wc -l < "$LABI_DIR/anfsd2.out")
kill -HUP "$NPID"
for _ in $(seq 100); do tail -n +"$before" "$LABI_DIR/anfsd2.out" | grep -q "^exports reloaded" && break; sleep 0.1; done
check "SIGHUP: droce-nfsd reloaded the exports (1 added, 1 removed)" \
	bash -c "tail -n +$before '$LABI_DIR/anfsd2.out' | grep -q '^exports reloaded: 1 export(s): 1 added, 1 removed, 0 kept'"
vm_run vm1 "stat /mnt/one/big 2>&1; echo stat-exit=\$?
mkdir -p /mnt/one2; timeout 60 mount -t nfs -o vers=3,proto=rdma,port=20049,nolock,retry=0 $D:$ONE /mnt/one2 2>&1; echo mount1-exit=\$?
timeout 60 mount -t nfs -o vers=3,proto=rdma,port=20049,nolock $D:$TWO /mnt/two 2>&1; echo mount2-exit=\$?
echo 'written after the reload' > /mnt/two/hello && sync; echo write2-exit=\$?" 200 \
	> "$LABI_DIR/vm.ahup" 2>&1
sed 's/^/# vm1 after SIGHUP: /' "$LABI_DIR/vm.ahup"
check "the VM's mount of one, still in place, now answers EACCES" \
	bash -c "grep -q 'Permission denied' '$LABI_DIR/vm.ahup' && grep -q '^stat-exit=1' '$LABI_DIR/vm.ahup'"
check "a new mount of one is refused" bash -c "grep -q '^mount1-exit=' '$LABI_DIR/vm.ahup' && ! grep -q '^mount1-exit=0' '$LABI_DIR/vm.ahup'"
check "export two, added by the reload, mounts over RDMA" grep -q "^mount2-exit=0" "$LABI_DIR/vm.ahup"
check "a file written to two arrives on droce's disk" \
	bash -c "grep -q '^write2-exit=0' '$LABI_DIR/vm.ahup' && [ \"\$(cat '$TWO/hello' 2>/dev/null)\" = 'written after the reload' ]"
vm_run vm1 "stat /mnt/one4/v4file 2>&1; echo stat4-exit=\$?
timeout 60 mount -t nfs -o vers=4.1,proto=rdma,port=20049 $D:$TWO /mnt/two4 2>&1; echo mount4-exit=\$?
grep ' /mnt/two4 ' /proc/mounts
echo 'written over 4.1 after the reload' > /mnt/two4/hello4 && sync; echo write4-exit=\$?" 200 \
	> "$LABI_DIR/vm.ahup4" 2>&1
sed 's/^/# vm1 v4.1 after SIGHUP: /' "$LABI_DIR/vm.ahup4"
check "the VM's v4.1 mount of one, still in place, now answers EACCES" \
	bash -c "grep -q 'Permission denied' '$LABI_DIR/vm.ahup4' && grep -q '^stat4-exit=1' '$LABI_DIR/vm.ahup4'"
check "export two, added by the reload, mounts with v4.1 over RDMA and takes a file" \
	bash -c "grep -q '^mount4-exit=0' '$LABI_DIR/vm.ahup4' && grep -q ' /mnt/two4 nfs4 .*proto=rdma' '$LABI_DIR/vm.ahup4' &&
		grep -q '^write4-exit=0' '$LABI_DIR/vm.ahup4' &&
		[ \"\$(cat '$TWO/hello4' 2>/dev/null)\" = 'written over 4.1 after the reload' ]"
vm_run vm1 "umount -f -l /mnt/one; umount -f -l /mnt/one4; umount /mnt/two; umount /mnt/two4; umount -l /mnt/one2 2>/dev/null; true" 60 > /dev/null 2>&1
kill -TERM "$NPID"
wait "$NPID"
rc=$?
show_nfsd 2
w1=$(writes 1)
w2=$(writes 2)
check "both droce-nfsd runs served the writer's WRITEs over RDMA (${w1:-0} before the restart, ${w2:-0} after)" \
	[ "${w1:-0}" -gt 0 -a "${w2:-0}" -gt 0 ]
check "the second droce-nfsd drained (every call answered) and exited 0 too (exit $rc)" \
	bash -c "[ $rc = 0 ] && grep -q '^drained: every call answered; synced' '$LABI_DIR/anfsd2.out'"
echo "# nfs_appliance: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
