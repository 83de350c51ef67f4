#!/usr/bin/env bash
# Interop test: the Linux NFS client (kernel 6.1) in the lab VM mounts droce-nfsd with NFSv4.1
# (issue 16) and runs cthon04's basic tests on it. droce-nfsd runs with `[nfs] versions =
# 3,4.1` in droce's namespace and serves an export directory on this machine's file system.
#   - mounts: -o vers=4.1,proto=rdma,port=20049, -o vers=4.2,proto=tcp and -o vers=4.2,
#     proto=rdma, rsize/wsize 1 MiB; on each cthon04 basic (static binaries run from the export
#     itself) and lock (tlocklfs, tlock64: NFSv4 LOCK, LOCKT, LOCKU; no lockd or statd), on
#     the first two also special (on 4.2 its 4.2 operations answer NOTSUPP and the client falls
#     back), on the first general (cc, make, tbl, nroff in the mount: 50 s of CI under TCG, its
#     calls are the transport's alike), and a 16 MiB file written in the
#     VM and read back, md5 equal in the VM (after dropping its caches) and on droce's disk;
#     grace = 0. A part that fails and leaves the mount hung ends the test (cthon_lib.sh);
#   - a read delegation recalled over the RDMA backchannel, nconnect=4, and a restart of
#     droce-nfsd under a client holding a lock and an open file (below);
#   - a plain `-o rdma,port=20049` without vers= (mount.nfs itself: the VM's `mount` is
#     BusyBox's, see below): the client starts at 4.2 and must agree on it;
#   - the wire (the rdma mount and its basic tests): tshark decodes every RPC-over-RDMA frame,
#     flags none droce sent except replies whose data went by RDMA WRITE (tshark 4.0 rebuilds
#     those short, see knfsd.sh), and every RoCE frame is well formed with an ICRC that verifies.
# Usage: nfs4_mount.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the build
# tree next to it: BUILD/apps/droce-nfsd)      Exit 77 = skipped (with the reason).
set -u
PROBE_DIR=$(dirname "$(readlink -f "$1")")
NFSD=$(readlink -f "$PROBE_DIR/../../apps/droce-nfsd")
HERE=$(cd "$(dirname "$0")" && pwd)
CTHON_SRC=$(readlink -f "$HERE/../../../shared/testsuites/cthon04" 2>/dev/null)
LABI_ARTIFACTS=${2:-}
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/cthon_lib.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$NFSD" ] || { echo "FAIL - no droce-nfsd at $NFSD"; exit 1; }
[ -d "$CTHON_SRC/basic" ] || { echo "FAIL - cthon04 is not at ../shared/testsuites/cthon04"; exit 1; }
command -v gcc >/dev/null || { echo "FAIL - needs gcc to build cthon04"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); return 1; fi
}

lab_up_or_exit 1
D=$LABI_DROCE_IP
EXP=$LABI_DIR/export4
mkdir -p "$EXP" "$LABI_DIR/state"
echo "# export file system: $(stat -f -c %T "$EXP") ($EXP)"
cthon_basic_into "$CTHON_SRC" "$LABI_DIR" "$EXP" || exit 1
cthon_part_into lock "$LABI_DIR" "$EXP" runtests tlocklfs tlock64 || exit 1
# special runs where it is, with no tests.init above it (as nfs_mount.sh runs it)
cthon_part_into special "$LABI_DIR" "$LABI_DIR/sp" runtests runtests.wrk op_unlk op_ren op_chmod \
	dupreq excltest negseek rename holey truncate nfsidem nstat stat stat2 touchn fstat rewind \
	telldir bigfile bigfile2 freesp || exit 1
mv "$LABI_DIR/sp/cthon04/special" "$EXP/cs.rdma42"
cp -r "$EXP/cs.rdma42" "$EXP/cs.rdma41"
cp -r "$EXP/cs.rdma42" "$EXP/cs.tcp42"
# general compiles, makes and formats in the mount with the VM's own toolchain, beside
# tests.init so that its runtests copies its sources into the test directory (as nfs_mount.sh)
mkdir -p "$EXP/cthon04/general"
(cd "$LABI_DIR/cthon04.src/general" && cp Makefile runtests runtests.wrk large.c large4.sh stat.c \
	mkdummy rmdummy nroff.in makefile.tst "$EXP/cthon04/general/")

cat > "$LABI_DIR/exports4" <<EOF
# droce-nfsd's exports for the lab (exports(5))
$EXP $LABI_NET.0/24(rw,no_root_squash,insecure)
EOF
cp "$LABI_DIR/droce.ini" "$LABI_DIR/droce4.ini"
cat >> "$LABI_DIR/droce4.ini" <<EOF

[nfs]
versions = 3,4.1
grace = 0
EOF
ip netns exec "$LABI_DNS" timeout 1200 "$NFSD" --config "$LABI_DIR/droce4.ini" \
	--exports "$LABI_DIR/exports4" --state "$LABI_DIR/state" \
	> "$LABI_DIR/nfsd4.out" 2> "$LABI_DIR/nfsd4.err" &
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd4.out" && break; sleep 0.1; done
if ! check "droce-nfsd serves NFSv3 and v4.1 at droce's address $D" grep -q "^serving" "$LABI_DIR/nfsd4.out"; then
	cat "$LABI_DIR/nfsd4.err"; exit 1
fi

# mount_run NAME OPTIONS VERSION MIB [lock] [special]: mount, check the version, run cthon04
# basic (and lock, special), write and read MIB MiB, unmount
mount_run() {
	local name=$1 opts=$2 ver=$3 mib=$4 out="$LABI_DIR/vm4.$1" extra
	shift 4
	extra=" $* "
	vm_run vm1 "mkdir -p /mnt/d && mount -t nfs -o $opts $D:$EXP /mnt/d && grep ' /mnt/d ' /proc/mounts" 180 \
		> "$out.mount" 2>&1
	sed "s/^/# vm1 $name: /" "$out.mount"
	check "$name: the VM mounts droce with NFSv$ver ($opts)" grep -q " /mnt/d nfs4 .*vers=$ver" "$out.mount" ||
		{ lab_capture_stop; return 1; }
	vm_run vm1 "cd /mnt/d/cthon04/basic && NFSTESTDIR=/mnt/d/cb.$name sh ./runtests -t; echo cthon-exit=\$?" 600 \
		> "$out.cthon" 2>&1
	grep -E "^(\./test|Starting|.*(ok|failed|FAIL|error).*$|All tests|cthon-exit)" "$out.cthon" | head -40 | sed "s/^/# vm1 $name: /"
	check "$name: cthon04 basic passes" grep -q "cthon-exit=0" "$out.cthon" ||
		cthon_mount_or_end "$name" basic "$LABI_DIR/nfsd4"
	lab_capture_stop
	if [[ $extra == *" lock "* ]]; then
		vm_run vm1 "cd /mnt/d/cthon04/lock && PATH=.:\$PATH NFSTESTDIR=/mnt/d/cl.$name sh ./runtests; echo cthon-exit=\$?" 900 \
			> "$out.lock" 2>&1
		grep -E "^(Starting|Congratulations|.*(FAILED|failed|error).*$|cthon-exit)" "$out.lock" | head -30 | sed "s/^/# vm1 $name lock: /"
		echo "# $name: cthon04 lock: $(grep -c PASSED "$out.lock") PASSED lines, $(grep -c FAILED "$out.lock") FAILED"
		check "$name: cthon04 lock passes (tlocklfs, tlock64 over NFSv4 LOCK/LOCKT/LOCKU)" grep -q "cthon-exit=0" "$out.lock" ||
			cthon_mount_or_end "$name" lock "$LABI_DIR/nfsd4"
	fi
	if [[ $extra == *" special "* ]]; then
		# 300 s: many times what it takes (14 s, its 30 MB write/read included); once a lost
		# connection left the client hung to a 900 s bound, which with the suite's second
		# attempt took the whole CI run to 89 minutes
		vm_run vm1 "cd /mnt/d/cs.$name && sh ./runtests; echo special-exit=\$?" 300 > "$out.special" 2>&1
		grep -vE '^\s*$' "$out.special" | tail -n 40 | sed "s/^/# vm1 $name special: /"
		check "$name: cthon04 special passes" grep -q "special-exit=0" "$out.special" ||
			cthon_mount_or_end "$name" special "$LABI_DIR/nfsd4"
	fi
	if [[ $extra == *" general "* ]]; then
		vm_run vm1 "cd /mnt/d/cthon04/general && NFSTESTDIR=/mnt/d/cg.$name sh ./runtests;
			echo general-exit=\$?; rm -rf /mnt/d/cg.$name" 1200 > "$out.general" 2>&1
		grep -vE '^\s*$' "$out.general" | tail -n 40 | sed "s/^/# vm1 $name general: /"
		check "$name: cthon04 general passes (cc, make, tbl and nroff in the mount)" \
			grep -q "General tests complete" "$out.general"
		check "... $name: general's runtests exits 0" grep -q "general-exit=0" "$out.general" ||
			cthon_mount_or_end "$name" general "$LABI_DIR/nfsd4"
	fi
	vm_run vm1 "rm -rf /mnt/d/cb.$name; dd if=/dev/urandom of=/tmp/big bs=1M count=$mib 2>/dev/null &&
		cp /tmp/big /mnt/d/big.$name && sync && echo 3 > /proc/sys/vm/drop_caches &&
		md5sum < /tmp/big | cut -d' ' -f1 && md5sum < /mnt/d/big.$name | cut -d' ' -f1; rm -f /tmp/big" 600 > "$out.big" 2>&1
	local a b c sz
	a=$(sed -n 1p "$out.big"); b=$(sed -n 2p "$out.big"); c=$(md5sum < "$EXP/big.$name" | cut -d' ' -f1)
	sz=$(stat -c %s "$EXP/big.$name" 2>/dev/null)
	echo "# $name: $mib MiB ($sz bytes on droce's disk) md5 in the VM $a, read back through the mount $b, on droce's disk $c"
	check "$name: $mib MiB written and read back, equal in the VM and on droce's disk" \
		[ -n "$a" -a "$a" = "$b" -a "$a" = "$c" -a "${sz:-0}" = $((mib << 20)) ]
	vm_run vm1 "rm -f /mnt/d/big.$name; umount /mnt/d && echo unmounted" 60 > "$out.umount" 2>&1
	check "$name: unmounts" grep -q unmounted "$out.umount"
}

# A read delegation recalled over the RDMA backchannel (RFC 8167). The VM mounts droce twice:
# NFSv4.1 over RDMA at /mnt/d and NFSv3 over TCP at /mnt/e, two clients as droce sees them (v3
# has no client state). Reading a file through /mnt/d gets the 4.1 client a read delegation;
# rewriting it through /mnt/e conflicts: droce answers the v3 SETATTR/WRITE with NFS3ERR_JUKEBOX
# and sends CB_RECALL on the 4.1 client's RDMA connection; the client returns the delegation,
# the v3 client tries again (Linux waits 5 s after JUKEBOX), and /mnt/d then reads what /mnt/e
# wrote. Counted from droce's exit statistics and the capture below.
deleg_run() {
	local out="$LABI_DIR/vm4.deleg" cap="$LABI_DIR/nfs4_deleg.pcap" nrecall
	printf 'before the recall\n' > "$EXP/deleg.txt"
	lab_capture_start nfs4_deleg || return 1
	vm_run vm1 "mkdir -p /mnt/d /mnt/e && mount -t nfs -o vers=4.1,proto=rdma,port=20049 $D:$EXP /mnt/d &&
		mount -t nfs -o vers=3,proto=tcp,nolock $D:$EXP /mnt/e && echo mounted &&
		echo first-read=\$(cat /mnt/d/deleg.txt) && sleep 1 && t0=\$(date +%s) &&
		echo 'written over v3' > /mnt/e/deleg.txt; echo v3-write-exit=\$? seconds=\$((\$(date +%s) - t0));
		echo second-read=\$(cat /mnt/d/deleg.txt); umount /mnt/e; umount /mnt/d && echo unmounted" 240 > "$out" 2>&1
	lab_capture_stop
	sed 's/^/# vm1 deleg: /' "$out"
	# CB_RECALL is callback operation 4 (RFC 8881 §20.2), from droce on the RDMA connection
	nrecall=$(tshark -r "$cap" -Y "nfs.cb.operation == 4 && ip.src == $D && infiniband" 2>/dev/null | wc -l)
	echo "# CB_RECALL frames droce sent over RDMA: $nrecall; callback frames: $(tshark -r "$cap" -Y nfs.cb 2>/dev/null | wc -l)"
	check "deleg: droce's CB_RECALL went over the RDMA backchannel, and tshark decodes it" [ "$nrecall" -gt 0 ]
	check "deleg: the VM mounts droce with 4.1 over RDMA and v3 over TCP at once" grep -q '^mounted' "$out"
	check "deleg: the v3 write of the delegated file succeeds" grep -q 'v3-write-exit=0' "$out"
	check "deleg: the 4.1 client then reads what the v3 client wrote" grep -q '^second-read=written over v3' "$out"
	check "deleg: droce's copy holds the v3 write" grep -q '^written over v3$' "$EXP/deleg.txt"
	check "deleg: both unmount" grep -q '^unmounted' "$out"
}

# nconnect=4: one client, one session, four connections (RFC 8881 §2.10.5: a session is not
# tied to a connection; droce serves the fore channel of any session on any connection). An
# 8 MiB file written and read back through the mount; the client's mountstats must list four
# transports. Over TCP checked. Over RDMA the 6.1 kernel takes the option but opens one
# connection (droce refused none: its CM log), so there the count is reported, and the mount and
# the data are checked.
nconnect_run() { # NAME OPTIONS
	local out="$LABI_DIR/vm4.nc.$1" a b n
	vm_run vm1 "mount -t nfs -o vers=4.1,$2,nconnect=4 $D:$EXP /mnt/d && echo mounted &&
		dd if=/dev/urandom of=/tmp/nc bs=1M count=8 2>/dev/null && cp /tmp/nc /mnt/d/nc.$1 && sync &&
		echo 3 > /proc/sys/vm/drop_caches && md5sum < /tmp/nc | cut -d' ' -f1 && md5sum < /mnt/d/nc.$1 | cut -d' ' -f1 &&
		echo xprts=\$(awk '/^device .* mounted on \/mnt\/d with/ {f = 1; next} /^device/ {f = 0} f && /xprt:/' /proc/self/mountstats | wc -l);
		rm -f /mnt/d/nc.$1 /tmp/nc; umount /mnt/d && echo unmounted" 300 > "$out" 2>&1
	sed "s/^/# vm1 nconnect $1: /" "$out"
	if [ "$1" = rdma ] && ! grep -q '^mounted' "$out"; then
		echo "# nconnect over RDMA: the VM's kernel did not mount with nconnect=4,proto=rdma (not checked)"
		return 0
	fi
	a=$(grep -E '^[0-9a-f]{32}$' "$out" | sed -n 1p); b=$(grep -E '^[0-9a-f]{32}$' "$out" | sed -n 2p)
	n=$(sed -n 's/^xprts=//p' "$out")
	check "nconnect $1: the VM mounts droce with nconnect=4 ($2)" grep -q '^mounted' "$out"
	if [ "$1" = rdma ] && [ "${n:-0}" != 4 ]; then
		# Linux 6.1 takes the option with proto=rdma but opens one connection (droce refused none)
		echo "# nconnect over RDMA: the VM's kernel opened ${n:-?} connection(s) for nconnect=4 (not checked)"
	else
		check "nconnect $1: the client runs over 4 connections (mountstats: ${n:-?})" [ "${n:-0}" = 4 ]
	fi
	check "nconnect $1: 8 MiB written and read back equal" [ -n "$a" -a "$a" = "$b" ]
	check "nconnect $1: unmounts" grep -q '^unmounted' "$out"
}

lab_capture_start nfs4_mount || exit 1
mount_run rdma41 "vers=4.1,proto=rdma,port=20049,rsize=1048576,wsize=1048576" 4.1 16 lock special general
deleg_run
mount_run tcp42 "vers=4.2,proto=tcp,rsize=1048576,wsize=1048576" 4.2 16 lock special
nconnect_run tcp proto=tcp
nconnect_run rdma proto=rdma,port=20049
# 4.2 over RDMA: basic and lock (special ran over RDMA with 4.1 and with 4.2 over TCP, general
# over RDMA with 4.1; the VM runs under TCG, and CI's time is tight)
mount_run rdma42 "vers=4.2,proto=rdma,port=20049,rsize=1048576,wsize=1048576" 4.2 16 lock

# no vers=: nfs-utils' mount.nfs starts at 4.2 and goes down until a version mounts; droce
# must be taken at 4.2. It is called by name: the VM's `mount` is BusyBox's applet, which mounts
# "-t nfs" with its own NFSv2/v3 code whenever rpcbind runs in the VM (it does once the suite's
# knfsd point ran) and hands the mount to mount.nfs only when that fails: what made this mount
# come out v3 in CI's whole suite in sessions 10 and 11. A distribution's util-linux mount
# always hands it to mount.nfs. It waits until the VM's client has let go of droce's previous
# mounts first.
vm_run vm1 "for i in \$(seq 30); do grep -q ' $D ' /proc/fs/nfsfs/servers || break; sleep 1; done
	/sbin/mount.nfs $D:$EXP /mnt/d -v -o rdma,port=20049 2>&1 && grep ' /mnt/d ' /proc/mounts &&
	ls /mnt/d/cthon04 && umount /mnt/d" 180 > "$LABI_DIR/vm4.novers" 2>&1
sed "s/^/# vm1 novers: /" "$LABI_DIR/vm4.novers"
agreed=$(grep -E ' /mnt/d nfs4? ' "$LABI_DIR/vm4.novers" | grep -oE '[ ,]vers=[0-9.]+' | head -1 | cut -d= -f2)
check "novers: mount.nfs -o rdma without vers= agrees on NFSv4.2 with droce (${agreed:-nothing})" \
	[ "$agreed" = 4.2 ]

# restart (RFC 8881 §8.4.2, issue 16): droce-nfsd stops and starts again on the same state
# directory while the VM's 4.1 client over RDMA holds a whole-file fcntl lock (lock_tool hold)
# and a file open for writing (a shell's fd 7). The client finds the new instance (BADSESSION,
# STALE_CLIENTID), reclaims its opens with CLAIM_PREVIOUS and its lock with reclaim = true
# during the new instance's grace ([nfs] grace = 10), and RECLAIM_COMPLETE ends the grace
# early (for NFSv4; NLM's clients send no such thing, so the v3 lock below waits it out). Checked: before and after the restart a v3 client (NLM, the VM's lockd and statd, a
# second mount over TCP) is refused the lock, so droce's lock table holds the reclaimed lock;
# the write through fd 7 after the restart reaches droce's disk; the new instance counts the
# reclaims, and its capture shows them.
restart_phase1() {
	local out="$LABI_DIR/vm4.restart1"
	if ! gcc -static -O2 -o "$EXP/lock_tool" "$HERE/lock_tool.c" > "$LABI_DIR/lock_tool.build.log" 2>&1; then
		echo "FAIL - lock_tool did not build:"; cat "$LABI_DIR/lock_tool.build.log"; fails=$((fails + 1)); return 1
	fi
	rm -f "$EXP/rst.lock" "$EXP/rst.data"
	vm_run vm1 "mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak /run/rpcbind /mnt/d /mnt/e
	pidof rpcbind > /dev/null || rpcbind -w 2>&1 || rpcbind 2>&1
	pidof rpc.statd > /dev/null || rpc.statd 2>&1
	mount -t nfs -o vers=4.1,proto=rdma,port=20049 $D:$EXP /mnt/d &&
	mount -t nfs -o vers=3,proto=tcp $D:$EXP /mnt/e && echo mounted &&
	cd /mnt/d && (./lock_tool hold rst.lock 300 < /dev/null > /tmp/holder.out 2>&1 & echo \$! > /tmp/holder.pid) &&
	(exec 7<> /mnt/d/rst.data; echo before-restart >&7; while [ ! -e /tmp/go ]; do sleep 0.2; done
	 echo after-restart >&7; echo wrote-after=\$? > /tmp/writer.out; exec 7>&-) < /dev/null > /dev/null 2>&1 &
	sleep 3; /mnt/e/lock_tool try /mnt/e/rst.lock; echo v3-try-before=\$?" 120 > "$out" 2>&1
	sed 's/^/# vm1 restart: /' "$out"
	check "restart: the VM mounts 4.1 over RDMA and v3 over TCP, with locking" grep -q '^mounted' "$out"
	check "restart: before it, the v3 client is refused the lock the 4.1 client holds" \
		grep -q '^v3-try-before=1' "$out"
}
restart_phase2() {
	local out="$LABI_DIR/vm4.restart2" n
	cp "$LABI_DIR/droce4.ini" "$LABI_DIR/droce4b.ini"
	sed -i 's/^grace = 0$/grace = 10/' "$LABI_DIR/droce4b.ini"
	lab_capture_start nfs4_restart || return 1
	ip netns exec "$LABI_DNS" timeout 600 "$NFSD" --config "$LABI_DIR/droce4b.ini" \
		--exports "$LABI_DIR/exports4" --state "$LABI_DIR/state" \
		> "$LABI_DIR/nfsd4b.out" 2> "$LABI_DIR/nfsd4b.err" &
	NPID2=$!
	LABI_PIDS+=("$NPID2")
	for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd4b.out" && break; sleep 0.1; done
	check "restart: droce-nfsd serves again on the same state directory" grep -q "^serving" "$LABI_DIR/nfsd4b.out"
	t0=$SECONDS
	vm_run vm1 "t0=\$(date +%s); ls -l /mnt/d/rst.data > /dev/null; echo first-call-after=\$((\$(date +%s) - t0))s
	touch /tmp/go; sleep 2; cat /tmp/writer.out
	/mnt/e/lock_tool try /mnt/e/rst.lock; echo v3-try-after=\$? after=\$((\$(date +%s) - t0))s
	kill \$(cat /tmp/holder.pid); sleep 1; umount /mnt/d; umount /mnt/e; echo unmounted" 200 > "$out" 2>&1
	sed 's/^/# vm1 restart: /' "$out"
	lab_capture_stop
	kill -TERM "$NPID2"; wait "$NPID2"
	grep -E '^nfs4: (client records|boot epoch)' "$LABI_DIR/nfsd4b.out" | sed 's/^/# droce-nfsd after the restart: /'
	check "restart: the write through the fd opened before the restart succeeds" grep -q '^wrote-after=0' "$out"
	check "restart: droce's copy holds both writes" \
		[ "$(cat "$EXP/rst.data" 2>/dev/null)" = "$(printf 'before-restart\nafter-restart')" ]
	check "restart: after it, the v3 client is still refused the lock (the 4.1 client reclaimed it)" \
		grep -q '^v3-try-after=1' "$out"
	n=$(sed -nE 's/.*; reclaims ([0-9]+),.*/\1/p' "$LABI_DIR/nfsd4b.out")
	check "restart: the new instance counts the client's reclaims: 2 opens and 1 lock (${n:-?})" \
		[ "${n:-0}" -ge 3 ]
	cap=$LABI_DIR/nfs4_restart.pcap
	n=$(tshark -r "$cap" -Y 'nfs.open.claim_type == 1' 2>/dev/null | wc -l)
	check "restart: the capture holds OPEN with CLAIM_PREVIOUS ($n frames)" [ "$n" -gt 0 ]
	n=$(tshark -r "$cap" -Y 'nfs.lock.reclaim == 1' 2>/dev/null | wc -l)
	check "restart: the capture holds LOCK with reclaim = true ($n frames)" [ "$n" -gt 0 ]
	n=$(tshark -r "$cap" -Y 'nfs.opcode == 58' 2>/dev/null | wc -l)
	check "restart: the capture holds RECLAIM_COMPLETE ($n frames)" [ "$n" -gt 0 ]
}
restart_phase1
kill -TERM "$NPID"; wait "$NPID"
sed 's/^/# droce-nfsd: /' "$LABI_DIR/nfsd4.out"
sed 's/^/# droce-nfsd stderr: /' "$LABI_DIR/nfsd4.err" | tail -n 20
check "droce-nfsd dropped nothing and closed nothing as garbage" \
	bash -c "! grep -q 'DROP\|GARBAGE\|SYSTEM_ERR\|garbage [1-9]' '$LABI_DIR/nfsd4.out'"
check "deleg: droce granted a read delegation and the client gave it back (DELEGRETURN)" \
	grep -qE 'nfs4: DELEGRETURN [1-9]' "$LABI_DIR/nfsd4.out"

cap=$LABI_DIR/nfs4_mount.pcap
read -r odd mac < <(lab_nfs_wire "$cap" "$D" "$LABI_DIR/nfsd4.err" "$LABI_DIR/nfsd4.out")
nv4=$(tshark -r "$cap" -Y 'nfs && rpc.programversion == 4' 2>/dev/null | wc -l)
echo "# NFSv4 frames: $nv4; frames tshark flags: $(wc -l < "$cap.flagged"); sent by droce and not a reply placed by RDMA WRITE: $odd"
check "the capture holds NFSv4 over RPC-over-RDMA" [ "$nv4" -gt 0 ]
check "tshark flags no frame droce sent (but replies placed by RDMA WRITE)" [ "$odd" = 0 ]
check "the RoCE frames are well formed and their ICRCs verify" python3 "$HERE/wire_check.py" "$cap" "$mac"
restart_phase2
[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/nfsd4b.* "$LABI_DIR/nfs4_restart.pcap" "$LABI_ARTIFACTS"/ 2>/dev/null
[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/nfsd4.* "$LABI_DIR"/vm4.* "$LABI_DIR/exports4" "$cap" "$LABI_DIR/nfs4_deleg.pcap" "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# nfs4_mount: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
