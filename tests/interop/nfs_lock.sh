#!/usr/bin/env bash
# Interop test: file locks on a v3 mount of droce-nfsd without `nolock`. The Linux client
# (kernel 6.1, nfs-common 2.6.2) in the lab VM runs rpcbind and rpc.statd, mounts droce over
# RDMA, and its lockd talks NLM v4 to droce-nfsd over TCP (Linux picks TCP for an RDMA mount).
#   - cthon04's lock tests (tlocklfs, tlock64; built here statically, run from the export);
#   - fcntl and flock between two VM processes (tests/interop/lock_tool.c, built here
#     statically: the image has no flock(1)); Linux settles these in its own kernel;
#   - against a second client host that droce arbitrates (nlm_peer.py in droce's namespace):
#     the VM is refused while peer holds a file, and a VM process blocked in F_SETLKW gets the
#     lock within seconds of peer's UNLOCK: droce's GRANTED callback reached the VM's lockd
#     (without it Linux retries its blocked LOCK only every 30 s); peer's TEST names the VM's
#     process as the holder;
#   - droce-nfsd restarts while a VM process holds a lock: the new droce sends SM_NOTIFY to
#     the VM's statd, the VM's lockd reclaims within the grace period, and after it droce
#     still refuses peer;
#   - the VM "reboots" (SM_NOTIFY naming it: sm-notify -f, or the same datagram sent by hand
#     when the image has no sm-notify): droce drops the VM's locks, and peer gets the file.
# Usage: nfs_lock.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the build
# tree next to it: BUILD/apps/droce-nfsd)      Exit 77 = skipped (with the reason).
set -u
PROBE_DIR=$(dirname "$(readlink -f "$1")")
NFSD=$(readlink -f "$PROBE_DIR/../../apps/droce-nfsd")
HERE=$(cd "$(dirname "$0")" && pwd)
CTHON_SRC=$(readlink -f "$HERE/../../../shared/testsuites/cthon04" 2>/dev/null)
LABI_ARTIFACTS=${2:-}
GRACE=15
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
[ -x "$NFSD" ] || { echo "FAIL - no droce-nfsd at $NFSD"; exit 1; }
[ -d "$CTHON_SRC/lock" ] || { echo "FAIL - cthon04 is not at ../shared/testsuites/cthon04"; exit 1; }
command -v gcc >/dev/null || { echo "FAIL - needs gcc to build cthon04"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

lab_up_or_exit 1
D=$LABI_DROCE_IP
EXP=$LABI_DIR/lexport
mkdir -p "$EXP" "$LABI_DIR/lstate"
chmod 0777 "$EXP"

cp -r "$CTHON_SRC" "$LABI_DIR/cthon04.lsrc"
if ! make -C "$LABI_DIR/cthon04.lsrc/lock" CC="gcc -static" > "$LABI_DIR/cthon04.lock.build.log" 2>&1; then
	echo "FAIL - cthon04 lock did not build:"; tail -n 20 "$LABI_DIR/cthon04.lock.build.log"; exit 1
fi
mkdir -p "$EXP/cthon04/lock"
cp "$LABI_DIR/cthon04.lsrc/tests.init" "$EXP/cthon04/"
(cd "$LABI_DIR/cthon04.lsrc/lock" && cp runtests tlocklfs tlock64 "$EXP/cthon04/lock/")
if ! gcc -static -O2 -o "$EXP/lock_tool" "$HERE/lock_tool.c" > "$LABI_DIR/lock_tool.build.log" 2>&1; then
	echo "FAIL - lock_tool did not build:"; cat "$LABI_DIR/lock_tool.build.log"; exit 1
fi

cat > "$LABI_DIR/lexports" <<EOX
$EXP $LABI_NET.0/24(rw,no_root_squash,insecure)
EOX

# the VM's lock client needs rpcbind (its lockd registers there, droce asks it for lockd's
# and statd's ports) and rpc.statd (mount.nfs refuses a locking mount without it)
vm_run vm1 "mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak /run/rpcbind
pidof rpcbind > /dev/null || rpcbind -w 2>&1 || rpcbind 2>&1
pidof rpc.statd > /dev/null || rpc.statd 2>&1
sleep 1; echo hostname \$(uname -n); echo daemons \$(pidof rpcbind rpc.statd)" 60 \
	> "$LABI_DIR/vm.ldaemons" 2>&1
sed 's/^/# vm1: /' "$LABI_DIR/vm.ldaemons"

start_nfsd() { # N
	ip netns exec "$LABI_DNS" timeout 1200 "$NFSD" --config "$LABI_DIR/droce.ini" \
		--exports "$LABI_DIR/lexports" --state "$LABI_DIR/lstate" --grace "$GRACE" \
		> "$LABI_DIR/nfsd$1.out" 2> "$LABI_DIR/nfsd$1.err" &
	NPID=$!
	LABI_PIDS+=("$NPID")
	for _ in $(seq 150); do grep -q "^serving" "$LABI_DIR/nfsd$1.out" && break; sleep 0.1; done
	NSTART=$SECONDS
	check "droce-nfsd ($1) serves at droce's address $D" grep -q "^serving" "$LABI_DIR/nfsd$1.out"
}
stop_nfsd() { # N
	kill -TERM "$NPID"; wait "$NPID"
	sed "s/^/# droce-nfsd $1: /" "$LABI_DIR/nfsd$1.out"
	grep -v "^EAL\|^$" "$LABI_DIR/nfsd$1.err" | tail -n 10 | sed "s/^/# droce-nfsd $1 stderr: /"
}
grace_wait() { local left=$((NSTART + GRACE + 1 - SECONDS)); [ $left -gt 0 ] && sleep $left; }

VMNAME=$(sed -n 's/^hostname //p' "$LABI_DIR/vm.ldaemons")
start_nfsd 1 || exit 1
vm_run vm1 "mkdir -p /mnt/d && mount -t nfs -o vers=3,proto=rdma,port=20049 $D:$EXP /mnt/d && grep ' /mnt/d ' /proc/mounts" 120 \
	> "$LABI_DIR/vm.lmount" 2>&1
sed 's/^/# vm1 mount: /' "$LABI_DIR/vm.lmount"
check "the VM mounts droce over RDMA without nolock" \
	bash -c "grep -q ' /mnt/d nfs .*proto=rdma' '$LABI_DIR/vm.lmount' && ! grep -q nolock '$LABI_DIR/vm.lmount'"
grace_wait

# cthon04 lock: tlocklfs and tlock64, parent and child processes locking against each other
vm_run vm1 "cd /mnt/d/cthon04/lock && PATH=.:\$PATH NFSTESTDIR=/mnt/d/cl sh ./runtests; echo cthon-exit=\$?" 900 \
	> "$LABI_DIR/vm.lcthon" 2>&1
grep -E "^(Starting|Testing|Congratulations|.*(PASSED|FAILED|failed|error).*$|cthon-exit)" "$LABI_DIR/vm.lcthon" | head -60 | sed 's/^/# vm1 cthon04 lock: /'
echo "# cthon04 lock: $(grep -c PASSED "$LABI_DIR/vm.lcthon") PASSED lines, $(grep -c FAILED "$LABI_DIR/vm.lcthon") FAILED"
check "cthon04 lock tests pass (tlocklfs, tlock64)" grep -q "cthon-exit=0" "$LABI_DIR/vm.lcthon"

# Between two processes of the VM, Linux settles fcntl and flock conflicts in its own kernel
# (nlmclnt_lock tests the local lock list first); droce still takes every lock and unlock
vm_run vm1 "cd /mnt/d && (./lock_tool hold lk 8 < /dev/null > /dev/null 2>&1 &)
sleep 3; ./lock_tool try lk; echo nb-exit=\$?; ./lock_tool wait lk; echo w-exit=\$?
(./lock_tool fhold lf 8 < /dev/null > /dev/null 2>&1 &); sleep 3; ./lock_tool ftry lf; echo f-exit=\$?" 150 \
	> "$LABI_DIR/vm.lflock" 2>&1
sed 's/^/# vm1 fcntl\/flock: /' "$LABI_DIR/vm.lflock"
check "two VM processes: fcntl F_SETLK is refused while the other holds the lock, F_SETLKW waits for it" \
	bash -c "grep -q '^nb-exit=1$' '$LABI_DIR/vm.lflock' && grep -q '^w-exit=0$' '$LABI_DIR/vm.lflock'"
check "two VM processes: flock(2) (emulated with NLM) is refused while the other holds it" \
	grep -q "^f-exit=1$" "$LABI_DIR/vm.lflock"

# conflicts droce decides: a second client host ("peer", nlm_peer.py in droce's namespace)
peer() { ip netns exec "$LABI_DNS" timeout 90 python3 "$HERE/nlm_peer.py" "$D" "$EXP" "$@" 2>&1; }
: > "$EXP/x"
: > "$EXP/held"
chmod 0666 "$EXP/x" "$EXP/held"
peer x lock > "$LABI_DIR/peer.x1"
sed 's/^/# peer: /' "$LABI_DIR/peer.x1"
vm_run vm1 "cd /mnt/d && ./lock_tool try x; echo px-exit=\$?
(./lock_tool wait x; echo w-exit=\$?) < /dev/null > /tmp/w.out 2>&1 &
sleep 1; echo started" 60 > "$LABI_DIR/vm.lpeer1" 2>&1
sleep 5
peer x unlock >> "$LABI_DIR/peer.x1"
sleep 4
vm_run vm1 "cat /tmp/w.out" 30 >> "$LABI_DIR/vm.lpeer1" 2>&1
sed 's/^/# vm1 vs peer: /' "$LABI_DIR/vm.lpeer1"
check "peer's lock (NM_LOCK) is granted" grep -q "^lock GRANTED" "$LABI_DIR/peer.x1"
check "the VM's F_SETLK is refused by droce while peer holds the file" grep -q "^px-exit=1$" "$LABI_DIR/vm.lpeer1"
waited=$(sed -nE 's/^waited ([0-9]+) ms/\1/p' "$LABI_DIR/vm.lpeer1")
check "the VM's F_SETLKW, blocked at droce, gets the lock within seconds of peer's UNLOCK: droce's GRANTED reached the VM's lockd (${waited:-?} ms waited, peer unlocked after ~5 s; Linux's own retry comes after 30 s)" \
	bash -c "grep -q '^w-exit=0$' '$LABI_DIR/vm.lpeer1' && [ -n '$waited' ] && [ '$waited' -lt 20000 ]"

# a VM process holds "held"; droce answers peer's TEST with the VM's process as the holder
vm_run vm1 "cd /mnt/d && (./lock_tool hold held 900 < /dev/null > /dev/null 2>&1 & echo \$! > /tmp/holder.pid)
sleep 3; cat /tmp/holder.pid" 60 > "$LABI_DIR/vm.lheld1" 2>&1
sed 's/^/# vm1 held: /' "$LABI_DIR/vm.lheld1"
peer held test > "$LABI_DIR/peer.held"
peer held lock >> "$LABI_DIR/peer.held"
sed 's/^/# peer: /' "$LABI_DIR/peer.held"
# (Linux's svid is its lock owner's number, not the pid; its oh is "svid@nodename")
check "peer's TEST names the VM's lock owner as the holder (exclusive, whole file), and peer's LOCK is denied" \
	bash -c "grep -Eq \"^test DENIED holder svid [0-9]+ oh '[0-9]+@${VMNAME:-vm1}' offset 0 len 0\" '$LABI_DIR/peer.held' && grep -q '^lock DENIED' '$LABI_DIR/peer.held'"

# restart with the VM's lock held: SM_NOTIFY -> the VM's lockd reclaims in the grace period
# -> after the grace period droce still refuses peer
echo "# monitor list before the restart: $(tr '\t\n' ' ;' < "$LABI_DIR/lstate/nsm.hosts" 2>/dev/null)"
stop_nfsd 1
start_nfsd 2 || exit 1
sed -n 's/^locks: /# droce-nfsd 2 at start: /p' "$LABI_DIR/nfsd2.out"
peer held lock > "$LABI_DIR/peer.held2"
sed 's/^/# peer after the restart: /' "$LABI_DIR/peer.held2"
echo "# peer's lock answered $((SECONDS - NSTART)) s after droce 2 started (grace ${GRACE} s)"
check "after droce's restart and its grace period the VM's lock holds at droce (reclaimed): peer is denied" \
	grep -q "^lock DENIED" "$LABI_DIR/peer.held2"

# the VM says it rebooted (SM_NOTIFY, as sm-notify sends at boot, over UDP to droce's statd
# port from the portmapper): droce drops its locks, so peer gets the file
if vm_run vm1 "test -x /usr/sbin/sm-notify" 20; then
	# it forks and retries in the background; the datagram goes out at once
	vm_run vm1 "sm-notify -f < /dev/null > /dev/null 2>&1; sleep 5; echo sm-notify ran" 60 > "$LABI_DIR/vm.lnotify" 2>&1
else
	# the image has no sm-notify: the same datagram, sent by hand from droce's namespace
	ip netns exec "$LABI_DNS" python3 -c "
import socket, struct, sys
n = sys.argv[1].encode(); n += b'\0' * (-len(n) % 4)
m = struct.pack('!10I', 77, 0, 2, 100024, 1, 6, 0, 0, 0, 0) + struct.pack('!I', len(sys.argv[1])) + n + struct.pack('!I', 99)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5); s.sendto(m, (sys.argv[2], 4046)); s.recv(100); print('SM_NOTIFY', sys.argv[1], 'answered')
" "${VMNAME:-vm1}" "$D" > "$LABI_DIR/vm.lnotify" 2>&1
fi
sed 's/^/# sm-notify: /' "$LABI_DIR/vm.lnotify"
peer held lock > "$LABI_DIR/peer.held3"
peer held unlock >> "$LABI_DIR/peer.held3"
sed 's/^/# peer after SM_NOTIFY: /' "$LABI_DIR/peer.held3"
check "after the VM's SM_NOTIFY droce dropped the VM's locks: peer gets the file" grep -q "^lock GRANTED" "$LABI_DIR/peer.held3"

vm_run vm1 "kill \$(cat /tmp/holder.pid); sleep 1; umount /mnt/d && echo unmounted" 60 > "$LABI_DIR/vm.lumount" 2>&1
check "unmounts" grep -q unmounted "$LABI_DIR/vm.lumount"
stop_nfsd 2
check "droce-nfsd (1) delivered its GRANTED callbacks (callbacks: DONE)" grep -q "^callbacks: DONE" "$LABI_DIR/nfsd1.out"
check "droce-nfsd (2) saw the VM's reclaim (reclaims >= 1)" grep -qE "reclaims [1-9]" "$LABI_DIR/nfsd2.out"
# the VM's first LOCK put it on NSM's list: the helper thread wrote the list, and the reply
# waited for that (nsm_svc.c), as Linux's lockd waits for statd before it grants
check "droce-nfsd (1) wrote the monitor list off the lcore and held the VM's first LOCK reply for it" \
	grep -Eq "^nsm: monitor list writes [1-9][0-9]* \(on the lcore 0, failed 0\), lock replies held for them [1-9]" "$LABI_DIR/nfsd1.out"
check "droce-nfsd (2) got the VM's SM_NOTIFY" grep -q "^nsm: SM_NOTIFY" "$LABI_DIR/nfsd2.out"
check "droce-nfsd dropped nothing and closed nothing as garbage" \
	bash -c "! grep -q 'DROP\|GARBAGE\|SYSTEM_ERR\|garbage [1-9]' '$LABI_DIR'/nfsd[12].out"
[ -n "$LABI_ARTIFACTS" ] && mkdir -p "$LABI_ARTIFACTS" && cp "$LABI_DIR"/nfsd[12].* "$LABI_DIR"/vm.l* "$LABI_DIR/lexports" "$LABI_DIR/lstate"/nsm.* "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# nfs_lock: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
