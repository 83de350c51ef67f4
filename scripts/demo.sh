#!/usr/bin/env bash
# scripts/demo.sh - the README's main command: the NFS/RDMA appliance. Sets up the machine and
# builds droce, boots the interop lab (tests/interop/lab.sh: a QEMU VM running Debian's Linux
# kernel with soft-RoCE, the NFS client and rdma-core, built from Debian packages), starts
# droce-nfsd in droce's network namespace from one INI file (the stack's sections, [nfs] and an
# [export NAME] section), serving NFSv3 and NFSv4.1/4.2. The VM's Linux client asks droce's
# portmapper what it serves (rpcinfo -p, showmount -e), then mounts droce with a plain
# `mount -o rdma`, which agrees on NFSv4.2 over RDMA. The VM writes a file and reads it back
# (the rates are printed), the md5 sums in the VM, through the mount and on droce's disk are
# printed side by side, the VM's mountstats show the rdma transport, droce-nfsd's counters are
# shown (droce-nfsstat, rte_telemetry, its exit summary), and everything is cleaned up. Takes 1-3 minutes (more the first time, while the VM image is
# built). Run as root.
#
#   --check       assert each step (ok/FAIL lines, exit 1 when one failed): how CI runs it
#   --nfsd PATH   use this droce-nfsd and skip the set-up and the build (CI's build tree)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CHECK=0
NFSD=
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=1 ;;
	--nfsd) NFSD=$(readlink -f "$2"); shift ;;
	*) echo "usage: demo.sh [--check] [--nfsd PATH/TO/droce-nfsd]" >&2; exit 2 ;;
	esac
	shift
done
if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (namespaces, TAP, hugepages, the lab VM): run it in a root shell" >&2
	exit 1
fi
if [ -z "$NFSD" ]; then
	bash scripts/setup.sh || exit 1
	if [ ! -f build/build.ninja ]; then meson setup build >/dev/null || exit 1; fi
	ninja -C build >/dev/null || { ninja -C build; exit 1; }
	NFSD=$ROOT/build/apps/droce-nfsd
fi
. tests/interop/lab.sh
trap lab_down EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fails=0
# step DESCRIPTION COMMAND...: in --check mode an ok/FAIL line; a failed step always stops
# the demo when it is one the next steps need (the caller adds "|| exit 1")
step() {
	if "${@:2}"; then
		[ $CHECK = 1 ] && echo "ok   - $1"
		return 0
	fi
	echo "FAIL - $1"
	fails=$((fails + 1))
	return 1
}

if ! why=$(lab_can_run); then echo "demo: the lab cannot run here: $why" >&2; exit 1; fi
say "booting the lab: Linux (soft-RoCE rxe0, the NFS client) in a QEMU VM"
lab_up 1 || { echo "demo: the lab did not come up (logs in $LABI_DIR)" >&2; exit 1; }
D=$LABI_DROCE_IP
VM=$(vm_ip vm1)
lab_droce_config "$LABI_DIR/droce.ini"
EXP=$LABI_DIR/export
mkdir -p "$EXP" "$LABI_DIR/state"
echo "hello from droce's disk" > "$EXP/README"
CONF=$LABI_DIR/droce-nfsd.ini
{
	cat "$LABI_DIR/droce.ini"
	cat <<EOF

[stack]
idle_sleep_us = 50

[nfs]
versions = 3,4.1
state = $LABI_DIR/state
threads = 4
grace = 0
metrics = $D:9464

[export demo]
path = $EXP
clients = $LABI_NET.0/24(rw,no_root_squash)
EOF
} > "$CONF"

say "droce-nfsd at $D from one config file: NFSv3 and NFSv4.1/4.2 on RDMA 20049 and TCP 2049, MOUNT, NLM, portmapper"
sed -n '/^\[nfs\]/,$p' "$CONF"
step "droce-nfsd --check accepts the config" "$NFSD" --check --config "$CONF" || exit 1
ip netns exec "$LABI_DNS" "$NFSD" --config "$CONF" > "$LABI_DIR/nfsd.out" 2> "$LABI_DIR/nfsd.err" &
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd.out" && break; sleep 0.1; done
grep "^serving" "$LABI_DIR/nfsd.out"
step "droce-nfsd serves" grep -q "^serving" "$LABI_DIR/nfsd.out" || { cat "$LABI_DIR/nfsd.err"; exit 1; }

say "the VM ($VM) asks droce's portmapper what it serves, and droce's MOUNT what it exports"
vm_run vm1 "rpcinfo -p $D; showmount -e $D" 60 | tee "$LABI_DIR/vm.rpcinfo"
step "rpcinfo -p lists NFS 3 and 4 over TCP, MOUNT, NLM and NSM at droce" \
	bash -c "grep -Eq '^ +100003 +3 +tcp +2049 ' '$LABI_DIR/vm.rpcinfo' &&
		grep -Eq '^ +100003 +4 +tcp +2049 ' '$LABI_DIR/vm.rpcinfo' &&
		grep -Eq '^ +100005 +3 +(tcp|udp) ' '$LABI_DIR/vm.rpcinfo' &&
		grep -Eq '^ +100021 +4 +tcp ' '$LABI_DIR/vm.rpcinfo' &&
		grep -Eq '^ +100024 +1 +tcp ' '$LABI_DIR/vm.rpcinfo'"
step "showmount -e lists the export to the lab's network" \
	grep -Eq "^$EXP +$LABI_NET.0/24" "$LABI_DIR/vm.rpcinfo"

say "the VM ($VM) mounts droce with mount -o rdma (no version, no port given)"
# mount.nfs by name, as util-linux's mount calls it: the lab VM's mount is BusyBox's applet,
# which tries its own NFSv2/v3 code first whenever rpcbind runs in the VM (other interop
# points start it) and would mount v3 without asking for v4 (tests/interop/nfs4_mount.sh)
vm_run vm1 "mkdir -p /mnt/droce && /sbin/mount.nfs $D:$EXP /mnt/droce -o rdma && grep /mnt/droce /proc/mounts" 120 |
	tee "$LABI_DIR/vm.mount"
step "the VM mounted droce with proto=rdma" grep -q " /mnt/droce nfs.* .*proto=rdma" "$LABI_DIR/vm.mount" || exit 1
step "the client and droce agreed on NFSv4.2 (vers=4.2), on port 20049" \
	grep -q " /mnt/droce nfs4 .*vers=4.2,.*port=20049" "$LABI_DIR/vm.mount"

say "the VM writes 16 MiB, drops its caches, reads it back, and lists the export (the VM runs under TCG emulation: the rates are the emulator's, not droce's)"
vm_run vm1 "cat /mnt/droce/README; dd if=/dev/urandom of=/tmp/f bs=1M count=16 2>/dev/null
	up() { cut -d' ' -f1 /proc/uptime; }
	rate() { awk -v a=\$1 -v b=\$2 'BEGIN { d = b - a; if (d < 0.01) d = 0.01; printf \"%.1f MiB/s (16 MiB in %.2f s)\", 16 / d, d }'; }
	t0=\$(up); dd if=/tmp/f of=/mnt/droce/from-linux bs=1M conv=fsync 2>/dev/null; t1=\$(up)
	echo \"write over NFSv4.2/RDMA: \$(rate \$t0 \$t1)\"
	echo 3 > /proc/sys/vm/drop_caches
	t0=\$(up); dd if=/mnt/droce/from-linux of=/dev/null bs=1M 2>/dev/null; t1=\$(up)
	echo \"read over NFSv4.2/RDMA:  \$(rate \$t0 \$t1)\"
	echo \"md5 in the VM:         \$(md5sum < /tmp/f | cut -d' ' -f1)\"
	echo \"md5 through the mount: \$(md5sum < /mnt/droce/from-linux | cut -d' ' -f1)\"
	ls -l /mnt/droce; df -h /mnt/droce" 300 | tee "$LABI_DIR/vm.io"
disk=$(md5sum < "$EXP/from-linux" 2>/dev/null | cut -d' ' -f1)
echo "md5 on droce's disk:   $disk"
vmmd5=$(sed -n 's/^md5 in the VM: *//p' "$LABI_DIR/vm.io")
mntmd5=$(sed -n 's/^md5 through the mount: *//p' "$LABI_DIR/vm.io")
step "the VM read back hello from droce's disk" grep -q "^hello from droce's disk" "$LABI_DIR/vm.io"
step "the three md5 sums agree" [ -n "$vmmd5" -a "$vmmd5" = "$mntmd5" -a "$vmmd5" = "$disk" ]

say "the VM's kernel says the transport is RDMA (/proc/self/mountstats)"
vm_run vm1 "awk '/^device/ { p = /mnt.droce/ } p' /proc/self/mountstats | grep -E '^device|xprt:|^ +(READ|WRITE):'" 60 |
	tee "$LABI_DIR/vm.stats"
step "mountstats name the rdma transport" grep -q "xprt:[[:space:]]*rdma" "$LABI_DIR/vm.stats"

say "droce-nfsstat: droce-nfsd's counters from its Prometheus endpoint ($D:9464/metrics)"
ip netns exec "$LABI_DNS" "$(dirname "$NFSD")/droce-nfsstat" -s "$D:9464" | tee "$LABI_DIR/nfsstat.out"
step "droce-nfsstat's NFSv4 table shows the WRITEs and READs" \
	bash -c "sed -n '/^Server nfs v4/,\$p' '$LABI_DIR/nfsstat.out' > '$LABI_DIR/nfsstat.v4' &&
		grep -qE '^WRITE +[1-9]' '$LABI_DIR/nfsstat.v4' && grep -qE '^READ +[1-9]' '$LABI_DIR/nfsstat.v4'"

say "rte_telemetry: /droce/nfs and /droce/nfs/latency (dpdk-telemetry.py, as an operator reads them)"
for c in /droce/nfs /droce/nfs/latency; do
	echo "$c" | timeout 10 dpdk-telemetry.py -f "droce_il_$LABI_ID" 2>/dev/null | tail -n 1
done > "$LABI_DIR/telemetry.json"
python3 - "$LABI_DIR/telemetry.json" > "$LABI_DIR/telemetry.txt" 2>&1 <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
t, lat = json.loads(lines[0])["/droce/nfs"], json.loads(lines[1])["/droce/nfs/latency"]
ops = t["nfs4_ops"]
print(f"nfs4_compounds {t['nfs4_compounds']}, READ {ops.get('READ')}, WRITE {ops.get('WRITE')}, "
      f"written {t['nfs4_write_bytes']} bytes; READ latency buckets {lat.get('nfs4_READ')}")
ok = ops.get("READ", 0) > 0 and ops.get("WRITE", 0) > 0 and t["nfs4_write_bytes"] >= 16 << 20
ok = ok and sum(lat["nfs4_READ"]) == ops["READ"] and sum(lat["nfs4_WRITE"]) == ops["WRITE"]
ok = ok and len(lat["bucket_le_us"]) + 1 == len(lat["nfs4_READ"])
sys.exit(0 if ok else 1)
PY
tel=$?
cat "$LABI_DIR/telemetry.txt"
step "telemetry counts the v4 READs and WRITEs, the 16 MiB written, and their latency histograms hold each" [ $tel = 0 ]

say "unmounting, stopping droce-nfsd (SIGTERM: it drains and syncs), and its counters"
vm_run vm1 "umount /mnt/droce" 60
step "the VM unmounted" [ $? = 0 ]
kill -TERM "$NPID"
wait "$NPID"
rc=$?
cat "$LABI_DIR/nfsd.out"
step "droce-nfsd drained and exited 0" bash -c "[ $rc = 0 ] && grep -q '^drained: every call answered' '$LABI_DIR/nfsd.out'"
step "droce-nfsd counted the NFSv4 WRITEs and READs" \
	bash -c "grep -qE '^nfs4: WRITE [1-9]' '$LABI_DIR/nfsd.out' && grep -qE '^nfs4: READ [1-9]' '$LABI_DIR/nfsd.out'"
if [ $CHECK = 1 ]; then
	echo "# demo: $fails failed"
fi
[ "$fails" = 0 ]
