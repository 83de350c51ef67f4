#!/usr/bin/env bash
# Interop test: the Linux NFS client (kernel 6.1, nfs-common 2.6.2) in the lab VM mounts
# droce-nfsd and runs cthon04 on it. droce-nfsd runs in droce's namespace and serves an
# export directory on this machine's file system (ext4 here, as `stat -f` reports below).
#   - mounts: -o rdma,port=20049,vers=3 and -o tcp,vers=3, each with rsize/wsize 1 MiB and
#     4 KiB; and a plain `-o rdma,port=20049` without vers= (v4 is refused with PROG_MISMATCH
#     3..3, so the client falls back to v3);
#   - on each: cthon04's basic tests (built here as static binaries and run from the export
#     itself, so loading them is the mount's own READs); a file written in the VM and read
#     back, md5 equal in the VM (after dropping its caches) and on droce's disk: 64 MiB on
#     rdma1m (issue 14's floor), 16 MiB on tcp1m, 8 MiB on the 4 KiB ones; `ls -l` of a 0640 file made on droce's
#     disk and of a 0604 file made in the VM shows their mode bits (NFSACL is PROG_UNAVAIL on
#     purpose: the client falls back to the mode bits of GETATTR), `getfacl` shows those bits
#     as the file's three ACL entries and `setfacl` of a named user is refused (ENOTSUP);
#   - cthon04's special tests on rdma1m and tcp1m, general on rdma1m only (the VM runs under
#     TCG: the others would add minutes and exercise nothing new; nfs4_mount.sh runs general
#     over TCP); general compiles (gcc 12), runs make and formats with tbl and nroff in the
#     mount, with the toolchain the lab image carries. A part that fails and leaves the mount
#     hung ends the test (cthon_lib.sh);
#   - a root_squash export: a file root creates there is owned by 65534 on droce's disk;
#   - showmount -a, -d and -e from the VM (MOUNT DUMP and EXPORT) while a v3 mount is in
#     place, and -a again after its unmount (UMNT took it off the list);
#   - the wire (rdma1m's mount and basic tests): tshark decodes every RPC-over-RDMA frame and
#     flags none droce sent, and the RoCE frames are well formed with ICRCs that verify;
#   - then droce-nfsd again, serving RDMA on two lcores ([nfs] lcores = 2, placement =
#     round_robin, apps/nfsd/nfsd_lane.h): a first RDMA mount's connection goes to lane 0 (the
#     main lcore), a second's to lane 1, where cthon04 basic runs and 4 MiB are written and
#     read back; both lanes' counters show their connection and NFSv3 calls. (A short part of
#     its own: the whole of this test on two lanes took three times as long here.)
# Locks: these mounts keep nolock (this test starts no rpc.statd in the VM); locking mounts,
# cthon04's lock tests, reclaim and SM_NOTIFY are nfs_lock.sh's.
# Usage: nfs_mount.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the build
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
EXP=$LABI_DIR/export
SQ=$LABI_DIR/squash
mkdir -p "$EXP" "$SQ" "$LABI_DIR/state"
chmod 0777 "$SQ"
echo "# export file system: $(stat -f -c %T "$EXP") ($EXP)"

# cthon04, built as static binaries in a scratch copy (the suite is never modified) and put
# into the export, from where the VM runs it
cthon_basic_into "$CTHON_SRC" "$LABI_DIR" "$EXP" || exit 1
if ! make -C "$LABI_DIR/cthon04.src/special" CC="gcc -static" >> "$LABI_DIR/cthon04.build.log" 2>&1; then
	echo "FAIL - cthon04 special did not build:"; tail -n 20 "$LABI_DIR/cthon04.build.log"; exit 1
fi
# special runs in a directory of its own per mount, with no ../tests.init beside it, so its
# runtests runs the tests where they are (with tests.init it would `make copy`: no make there)
for m in rdma1m tcp1m; do
	mkdir -p "$EXP/cs.$m"
	(cd "$LABI_DIR/cthon04.src/special" && cp runtests runtests.wrk op_unlk op_ren op_chmod \
		dupreq excltest negseek rename holey truncate nfsidem nstat stat stat2 touchn fstat \
		rewind telldir bigfile bigfile2 freesp "$EXP/cs.$m/")
done
# general compiles, makes and formats in the mount with the VM's own toolchain (the lab image
# carries gcc 12, binutils, make, groff and GNU time for it): its sources, beside tests.init so
# that its runtests copies them into the test directory with make, as the suite means it
mkdir -p "$EXP/cthon04/general"
(cd "$LABI_DIR/cthon04.src/general" && cp Makefile runtests runtests.wrk large.c large4.sh stat.c \
	mkdummy rmdummy nroff.in makefile.tst "$EXP/cthon04/general/")
# mode bits as the client lists them: a 0640 file made on droce's disk
: > "$EXP/mode0640"
chmod 0640 "$EXP/mode0640"

cat > "$LABI_DIR/exports" <<EOF
# droce-nfsd's exports for the lab (exports(5))
$EXP $LABI_NET.0/24(rw,no_root_squash,insecure)
$SQ *(rw,root_squash)
EOF
ip netns exec "$LABI_DNS" timeout 1500 "$NFSD" --config "$LABI_DIR/droce.ini" \
	--exports "$LABI_DIR/exports" --state "$LABI_DIR/state" \
	> "$LABI_DIR/nfsd.out" 2> "$LABI_DIR/nfsd.err" &
NFSD_LOG=$LABI_DIR/nfsd # the server of the mounts below (cthon_mount_or_end)
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd.out" && break; sleep 0.1; done
if ! check "droce-nfsd serves at droce's address $D" grep -q "^serving" "$LABI_DIR/nfsd.out"; then
	cat "$LABI_DIR/nfsd.err"; exit 1
fi

# mount_run NAME OPTIONS MIB [special] [general]: mount, list mode bits, run cthon04 basic (and
# special, general), write and read MIB MiB, unmount
mount_run() {
	local name=$1 opts=$2 mib=$3 out="$LABI_DIR/vm.$1" extra
	shift 3
	extra=" $* "
	vm_run vm1 "mkdir -p /mnt/d && mount -t nfs -o $opts $D:$EXP /mnt/d && grep ' /mnt/d ' /proc/mounts" 120 \
		> "$out.mount" 2>&1
	sed "s/^/# vm1 $name: /" "$out.mount"
	check "$name: the VM mounts droce ($opts)" grep -q " /mnt/d nfs " "$out.mount" ||
		{ lab_capture_stop; return 1; }
	vm_run vm1 "cd /mnt/d/cthon04/basic && NFSTESTDIR=/mnt/d/cb.$name sh ./runtests -t; echo cthon-exit=\$?" 600 \
		> "$out.cthon" 2>&1
	grep -E "^(\./test|Starting|.*(ok|failed|FAIL|error).*$|All tests|cthon-exit)" "$out.cthon" | head -40 | sed "s/^/# vm1 $name: /"
	check "$name: cthon04 basic passes" grep -q "cthon-exit=0" "$out.cthon" ||
		cthon_mount_or_end "$name" basic "$NFSD_LOG"
	# the capture (first mount only) ends here: special's 30 MB bigfile and the 64 MiB file
	# would make it hundreds of MiB; basic's test5 already moves 1 MiB chunks both ways
	lab_capture_stop
	if [[ $extra == *" special "* ]]; then
		# 300 s: many times what it takes; a hung mount ends the test (cthon_mount_or_end)
		vm_run vm1 "cd /mnt/d/cs.$name && sh ./runtests; echo special-exit=\$?" 300 > "$out.special" 2>&1
		grep -vE '^\s*$' "$out.special" | tail -n 60 | sed "s/^/# vm1 $name special: /"
		check "$name: cthon04 special passes" grep -q "special-exit=0" "$out.special" ||
			cthon_mount_or_end "$name" special "$NFSD_LOG"
	fi
	if [[ $extra == *" general "* ]]; then
		vm_run vm1 "cd /mnt/d/cthon04/general && NFSTESTDIR=/mnt/d/cg.$name sh ./runtests;
			echo general-exit=\$?; rm -rf /mnt/d/cg.$name" 1200 > "$out.general" 2>&1
		grep -vE '^\s*$' "$out.general" | tail -n 40 | sed "s/^/# vm1 $name general: /"
		check "$name: cthon04 general passes (cc, make, tbl and nroff in the mount)" \
			grep -q "General tests complete" "$out.general" &&
			check "... $name: general's runtests exits 0" grep -q "general-exit=0" "$out.general" ||
			cthon_mount_or_end "$name" general "$NFSD_LOG"
	fi
	# mode bits: droce's 0640 file, and one the VM makes and chmods to 0604
	vm_run vm1 "ls -l /mnt/d/mode0640 && : > /mnt/d/mode.$name && chmod 0604 /mnt/d/mode.$name &&
		ls -l /mnt/d/mode.$name" 60 > "$out.modes" 2>&1
	sed "s/^/# vm1 $name ls -l: /" "$out.modes"
	check "$name: ls -l shows droce's 0640 file as -rw-r----- and the VM's 0604 file as -rw----r--" \
		bash -c "grep -q '^-rw-r----- .*mode0640\$' '$out.modes' && grep -q '^-rw----r-- .*mode.$name\$' '$out.modes' &&
			[ \"\$(stat -c %a '$EXP/mode.$name')\" = 604 ]"
	# getfacl: with NFSACL unavailable (PROG_UNAVAIL) the client has no ACL to give, and
	# getfacl shows the three entries the mode bits make
	vm_run vm1 "getfacl -c /mnt/d/mode0640; echo getfacl-exit=\$?;
		setfacl -m u:1000:r /mnt/d/mode.$name; echo setfacl-exit=\$?" 60 > "$out.acl" 2>&1
	sed "s/^/# vm1 $name getfacl: /" "$out.acl"
	check "$name: getfacl shows the 0640 file's mode bits as its ACL (user::rw-, group::r--, other::---)" \
		bash -c "grep -qx 'user::rw-' '$out.acl' && grep -qx 'group::r--' '$out.acl' &&
			grep -qx 'other::---' '$out.acl' && [ \$(grep -c '::' '$out.acl') = 3 ] &&
			grep -q 'getfacl-exit=0' '$out.acl'"
	check "$name: setfacl of a named user's entry is refused (Operation not supported)" \
		bash -c "grep -qi 'not supported' '$out.acl' && ! grep -q 'setfacl-exit=0' '$out.acl'"
	vm_run vm1 "rm -rf /mnt/d/cb.$name /mnt/d/mode.$name; dd if=/dev/urandom of=/tmp/big bs=1M count=$mib 2>/dev/null &&
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

# the wire is captured for the first mount's mount and basic tests only (mount_run stops it)
lab_capture_start nfs_mount || exit 1
mount_run rdma1m "vers=3,proto=rdma,port=20049,nolock,rsize=1048576,wsize=1048576" 64 special general
mount_run tcp1m "vers=3,proto=tcp,nolock,rsize=1048576,wsize=1048576" 16 special
mount_run rdma4k "vers=3,proto=rdma,port=20049,nolock,rsize=4096,wsize=4096" 8
mount_run tcp4k "vers=3,proto=tcp,nolock,rsize=4096,wsize=4096" 8

# no vers=: the client tries v4 first; droce answers PROG_MISMATCH 3..3 and it falls back
vm_run vm1 "mount -t nfs -o rdma,port=20049,nolock $D:$EXP /mnt/d && grep ' /mnt/d ' /proc/mounts && ls /mnt/d/cthon04 && umount /mnt/d" 120 \
	> "$LABI_DIR/vm.novers" 2>&1
sed 's/^/# vm1 novers: /' "$LABI_DIR/vm.novers"
check "a mount without vers= falls back to v3 (vers=3 in /proc/mounts)" grep -q "vers=3" "$LABI_DIR/vm.novers"

# MOUNT's other procedures as showmount uses them: while mounted, DUMP (-a: client:dir, -d:
# dirs) lists the VM and the export and EXPORT (-e) the exports; after the unmount DUMP no
# longer lists the VM. umount.nfs by name: it sends UMNT, as util-linux's umount has it do; the
# lab VM's umount is BusyBox's, which does not (the mounts above left their MNT entries)
VMIP=$(vm_ip vm1)
vm_run vm1 "mount -t nfs -o vers=3,proto=tcp,nolock $D:$EXP /mnt/d && echo '== mounted' &&
	showmount -a $D; showmount -d $D; showmount -e $D; /sbin/umount.nfs /mnt/d && echo '== unmounted' &&
	showmount -a $D; echo showmount-exit=\$?" 120 > "$LABI_DIR/vm.showmount" 2>&1
sed 's/^/# vm1 showmount: /' "$LABI_DIR/vm.showmount"
check "showmount -a (MOUNT DUMP) lists $VMIP:$EXP while mounted, -d the export, -e every export" \
	bash -c "sed -n '/== mounted/,/== unmounted/p' '$LABI_DIR/vm.showmount' > '$LABI_DIR/vm.sm1' &&
		grep -qx '$VMIP:$EXP' '$LABI_DIR/vm.sm1' && grep -qx '$EXP' '$LABI_DIR/vm.sm1' &&
		grep -Eq '^$EXP +' '$LABI_DIR/vm.sm1' && grep -Eq '^$SQ +' '$LABI_DIR/vm.sm1'"
check "after the unmount (UMNT) DUMP no longer lists the VM" \
	bash -c "sed -n '/== unmounted/,\$p' '$LABI_DIR/vm.showmount' > '$LABI_DIR/vm.sm2' &&
		grep -q 'showmount-exit=0' '$LABI_DIR/vm.sm2' && ! grep -q '$VMIP:' '$LABI_DIR/vm.sm2'"

# root_squash: what root creates belongs to the anonymous user on droce's disk
vm_run vm1 "mount -t nfs -o vers=3,proto=rdma,port=20049,nolock $D:$SQ /mnt/d && touch /mnt/d/byroot && ls -ln /mnt/d; umount /mnt/d" 120 \
	> "$LABI_DIR/vm.squash" 2>&1
sed 's/^/# vm1 squash: /' "$LABI_DIR/vm.squash"
check "root_squash: a file root creates is owned by 65534:65534 on droce's disk" \
	[ "$(stat -c %u:%g "$SQ/byroot" 2>/dev/null)" = 65534:65534 ]

# the counters, as an operator reads them (rte_telemetry)
echo /droce/nfs | timeout 10 dpdk-telemetry.py -f "droce_il_$LABI_ID" 2>/dev/null | tail -n 1 > "$LABI_DIR/telemetry.json"
python3 - "$LABI_DIR/telemetry.json" > "$LABI_DIR/telemetry.txt" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["/droce/nfs"]
c = t["nfs3_calls"]
print(f"READ {c['READ']} WRITE {c['WRITE']} CREATE {c['CREATE']} on_helper_threads "
      f"{t['on_helper_threads']} read_bytes {t['read_bytes']} write_bytes {t['write_bytes']} "
      f"NFS3ERR_NOENT {t.get('NFS3ERR_NOENT', 0)}")
ok = c["READ"] > 0 and c["WRITE"] > 0 and t["write_bytes"] >= 4 * 16 * 1048576 and \
    t["on_helper_threads"] > 0 and t["rpc_outcomes"]["GARBAGE_ARGS"] == 0
sys.exit(0 if ok else 1)
PY
tel=$?
sed 's/^/# telemetry: /' "$LABI_DIR/telemetry.txt"
check "telemetry /droce/nfs counts the READs and WRITEs, the MiB written and the helper threads' calls" [ $tel = 0 ]
kill -TERM "$NPID"; wait "$NPID"
sed 's/^/# droce-nfsd: /' "$LABI_DIR/nfsd.out"
sed 's/^/# droce-nfsd stderr: /' "$LABI_DIR/nfsd.err" | tail -n 20
check "droce-nfsd dropped nothing and closed nothing as garbage" \
	bash -c "! grep -q 'DROP\|GARBAGE\|SYSTEM_ERR\|garbage [1-9]' '$LABI_DIR/nfsd.out'"
check "the file-system calls ran on droce-nfsd's helper threads (over RDMA and TCP), none inline" \
	grep -q "calls on helper threads [1-9][0-9]* (waited for scratch [0-9]*), run inline for want of scratch 0" "$LABI_DIR/nfsd.out"

# two lanes: two lcores with a queue each (af_packet qpairs=2), connections taken in turn; both
# lcores back off when idle, so the emulated VM keeps a core
sed -e 's/^lcores = .*/lcores = 0,1/' -e 's/^\(vdev = .*\)$/\1,qpairs=2/' \
	"$LABI_DIR/droce.ini" > "$LABI_DIR/droce2.ini"
printf '\n[stack]\nidle_sleep_us = 50\n\n[nfs]\nlcores = 2\nplacement = round_robin\n' \
	>> "$LABI_DIR/droce2.ini"
ip netns exec "$LABI_DNS" timeout 900 "$NFSD" --config "$LABI_DIR/droce2.ini" \
	--exports "$LABI_DIR/exports" --state "$LABI_DIR/state" \
	> "$LABI_DIR/nfsd2.out" 2> "$LABI_DIR/nfsd2.err" &
NFSD_LOG=$LABI_DIR/nfsd2
NPID=$!
LABI_PIDS+=("$NPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/nfsd2.out" && break; sleep 0.1; done
check "droce-nfsd on two lanes serves at $D (lcores 0 and 1, round robin)" \
	grep -q "^lanes: RPC-over-RDMA connections served on 2 lcores (0 1), placed by round robin" \
	"$LABI_DIR/nfsd2.out"
# the first connection (lane 0): mount, list, unmount; the second (lane 1): cthon04 basic
vm_run vm1 "mount -t nfs -o vers=3,proto=rdma,port=20049,nolock $D:$EXP /mnt/d && ls /mnt/d/cthon04 && umount /mnt/d && echo lane0-ok" 120 \
	> "$LABI_DIR/vm.lane0" 2>&1
check "two lanes: a first RDMA mount (lane 0) lists the export" grep -q lane0-ok "$LABI_DIR/vm.lane0"
mount_run lane1 "vers=3,proto=rdma,port=20049,nolock,rsize=65536,wsize=65536" 4
kill -TERM "$NPID"
wait "$NPID"
grep -E "accepted \(lane|^rdma: lane|^drained" "$LABI_DIR/nfsd2.out" | sed 's/^/# droce-nfsd two lanes: /'
check "two lanes: the second mount's connection was served on lane 1 (lcore 1)" \
	grep -q "^rdma: connection [0-9]* accepted (lane 1, lcore 1)" "$LABI_DIR/nfsd2.out"
check "two lanes: both lanes counted a connection and NFSv3 calls; stopped with every call answered" \
	bash -c "[ \$(grep -cE '^rdma: lane [01] on lcore [01]: connections [1-9][0-9]*, NFSv3 calls [1-9][0-9]*' '$LABI_DIR/nfsd2.out') = 2 ] &&
		grep -q '^drained: every call answered' '$LABI_DIR/nfsd2.out' &&
		! grep -q 'GARBAGE\|SYSTEM_ERR\|garbage [1-9]' '$LABI_DIR/nfsd2.out'"

cap=$LABI_DIR/nfs_mount.pcap
read -r odd mac < <(lab_nfs_wire "$cap" "$D" "$LABI_DIR/nfsd.err" "$LABI_DIR/nfsd.out")
echo "# frames tshark flags: $(wc -l < "$cap.flagged"); sent by droce and not a reply placed by RDMA WRITE: $odd"
check "tshark flags no frame droce sent (but replies placed by RDMA WRITE)" [ "$odd" = 0 ]
check "the RoCE frames are well formed and their ICRCs verify" python3 "$HERE/wire_check.py" "$cap" "$mac"
[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/nfsd.* "$LABI_DIR"/nfsd2.* "$LABI_DIR"/vm.* "$LABI_DIR/exports" "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# nfs_mount: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
