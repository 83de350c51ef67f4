#!/usr/bin/env bash
# scripts/demo.sh - the README's main command: the NFS/RDMA appliance. Sets up the machine and
# builds droce, boots the interop lab (tests/interop/lab.sh: a QEMU VM running Debian's Linux
# kernel with soft-RoCE, the NFS client and rdma-core, built from Debian packages), starts
# droce-nfsd in droce's network namespace, and has the VM's Linux client mount droce with
# `mount -o rdma,port=20049,vers=3`. The VM then writes a file, reads it back and lists the
# export; droce's disk shows what arrived, and droce-nfsd prints its counters.
# Takes 1-3 minutes (more the first time, while the VM image is built). Run as root.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (namespaces, TAP, hugepages, the lab VM): run it in a root shell" >&2
	exit 1
fi
bash scripts/setup.sh || exit 1
if [ ! -f build/build.ninja ]; then meson setup build >/dev/null || exit 1; fi
ninja -C build >/dev/null || { ninja -C build; exit 1; }

NFSD=$ROOT/build/apps/droce-nfsd
. tests/interop/lab.sh
trap lab_down EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if ! why=$(lab_can_run); then echo "demo: the lab cannot run here: $why" >&2; exit 1; fi
say "booting the lab: Linux (soft-RoCE rxe0, the NFS client) in a QEMU VM"
lab_up 1 || { echo "demo: the lab did not come up (logs in $LABI_DIR)" >&2; exit 1; }
D=$LABI_DROCE_IP
VM=$(vm_ip vm1)
lab_droce_config "$LABI_DIR/droce.ini"
EXP=$LABI_DIR/export
mkdir -p "$EXP" "$LABI_DIR/state"
echo "hello from droce's disk" > "$EXP/README"
cat > "$LABI_DIR/exports" <<EOF
$EXP $LABI_NET.0/24(rw,no_root_squash)
EOF

say "droce-nfsd at $D: NFSv3 on RDMA 20049 and TCP 2049, MOUNT, portmapper; export $EXP"
cat "$LABI_DIR/exports"
ip netns exec "$LABI_DNS" "$NFSD" --config "$LABI_DIR/droce.ini" --exports "$LABI_DIR/exports" \
	--state "$LABI_DIR/state" > "$LABI_DIR/nfsd.out" 2> "$LABI_DIR/nfsd.err" &
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd.out" && break; sleep 0.1; done
grep "^serving" "$LABI_DIR/nfsd.out" || { cat "$LABI_DIR/nfsd.err"; exit 1; }

say "the VM ($VM) mounts droce over RDMA"
vm_run vm1 "mkdir -p /mnt/droce && mount -t nfs -o rdma,port=20049,vers=3,nolock $D:$EXP /mnt/droce && grep /mnt/droce /proc/mounts" 120 ||
	{ echo "demo: the mount failed"; exit 1; }

say "the VM writes 8 MiB, drops its caches, reads it back, and lists the export"
vm_run vm1 "cat /mnt/droce/README; dd if=/dev/urandom of=/tmp/f bs=1M count=8 2>/dev/null;
	cp /tmp/f /mnt/droce/from-linux && sync && echo 3 > /proc/sys/vm/drop_caches;
	echo \"md5 in the VM:        \$(md5sum < /tmp/f | cut -d' ' -f1)\";
	echo \"md5 through the mount: \$(md5sum < /mnt/droce/from-linux | cut -d' ' -f1)\";
	ls -l /mnt/droce; df -h /mnt/droce" 300
echo "md5 on droce's disk:   $(md5sum < "$EXP/from-linux" | cut -d' ' -f1)"

say "the VM's kernel says the transport is RDMA (/proc/self/mountstats)"
vm_run vm1 "awk '/^device/ { p = /mnt.droce/ } p' /proc/self/mountstats | grep -E '^device|xprt:|^ +(READ|WRITE):'" 60

say "unmounting, and droce-nfsd's counters"
vm_run vm1 "umount /mnt/droce" 60
kill -TERM "$NPID"
wait "$NPID"
cat "$LABI_DIR/nfsd.out"
