#!/usr/bin/env bash
# Integration test: libnfs's user-space NFSv3 client (Debian's libnfs-utils: nfs-ls, nfs-cp,
# nfs-cat) against droce-nfsd serving over TCP (--listen, no RoCE stack) in a network namespace
# of its own, with an export directory on this machine's file system:
#   1. rpcinfo -p lists NFS v3 on tcp 2049 and MOUNT v1/v3 on tcp/udp 20048;
#   2. nfs-ls lists the export (MOUNT MNT, then READDIRPLUS);
#   3. nfs-cp writes a 4 MiB file into the export and reads it back: equal to the source, and
#      equal on droce's disk;
#   4. 300 files made on disk are all listed, each exactly once;
#   5. an export whose client list does not hold 127.0.0.1 refuses the mount;
#   6. droce-nfsd's counters: no GARBAGE_ARGS, SYSTEM_ERR or drop, and every NFS call's
#      file-system work ran on a helper thread (deferred), none inline.
# Usage: libnfs_tcp.sh PATH/TO/droce-nfsd      Exit 77 = skipped (with the reason).
set -u
NFSD=$(readlink -f "$1")
NS=droce-libnfs-$$

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
for t in nfs-ls nfs-cp rpcinfo; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (Debian packages libnfs-utils, rpcbind)"; exit 77; }
done
if ! ip netns add "$NS" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
out=$(mktemp -d)
cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
ip -n "$NS" link set lo up

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
run() { timeout 60 ip netns exec "$NS" "$@"; }

mkdir -p "$out/exp" "$out/closed" "$out/state" "$out/exp/many"
echo "# export file system: $(stat -f -c %T "$out/exp")"
for i in $(seq 300); do : > "$out/exp/many/f$i"; done
cat > "$out/exports" <<EOF
$out/exp 127.0.0.0/8(rw,no_root_squash,insecure)
$out/closed 10.9.9.9(rw)
EOF
ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --exports "$out/exports" --state "$out/state" \
	--seconds 120 > "$out/nfsd" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q serving "$out/nfsd" && break; sleep 0.1; done
check "droce-nfsd serves in its namespace" grep -q serving "$out/nfsd" || { cat "$out/nfsd"; exit 1; }

run rpcinfo -p 127.0.0.1 > "$out/p" 2>&1
check "rpcinfo -p: NFS v3 on tcp 2049" grep -Eq '^ +100003 +3 +tcp +2049 ' "$out/p"
check "rpcinfo -p: MOUNT v1 and v3 on tcp and udp 20048" \
	bash -c "[ \$(grep -Ec '^ +100005 +[13] +(tcp|udp) +20048 ' '$out/p') = 4 ]"

run nfs-ls "nfs://127.0.0.1$out/exp" > "$out/ls" 2>&1
check "nfs-ls lists the export" grep -q "many" "$out/ls" || sed 's/^/#   /' "$out/ls"

head -c 4194304 /dev/urandom > "$out/src"
run nfs-cp "$out/src" "nfs://127.0.0.1$out/exp/copy" > "$out/cp1" 2>&1
run nfs-cp "nfs://127.0.0.1$out/exp/copy" "$out/back" > "$out/cp2" 2>&1
sed 's/^/#   nfs-cp: /' "$out/cp1" "$out/cp2" | head -5
check "nfs-cp: 4 MiB written through NFS equal on droce's disk" cmp -s "$out/src" "$out/exp/copy"
check "nfs-cp: 4 MiB read back through NFS equal to the source" cmp -s "$out/src" "$out/back"

run nfs-ls "nfs://127.0.0.1$out/exp/many" > "$out/many" 2>&1
n=$(grep -Eo 'f[0-9]+$' "$out/many" | sort -u | wc -l)
total=$(grep -Ec 'f[0-9]+$' "$out/many")
echo "# nfs-ls of 300 files: $n distinct, $total lines"
check "READDIR(PLUS) of 300 files lists each once" [ "$n" = 300 -a "$total" = 300 ]

run nfs-ls "nfs://127.0.0.1$out/closed" > "$out/closed.ls" 2>&1
sed 's/^/#   nfs-ls closed: /' "$out/closed.ls" | head -3
check "an export that does not list 127.0.0.1 refuses the mount" \
	bash -c "! grep -q . '$out/closed.ls' || grep -qi 'denied\\|acces\\|fail\\|error' '$out/closed.ls'"

kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd: /' "$out/nfsd"
check "droce-nfsd answered every call (no GARBAGE_ARGS, SYSTEM_ERR, drop or garbage close)" \
	bash -c "! grep -q 'GARBAGE\|SYSTEM_ERR\|DROP\|garbage [1-9]' '$out/nfsd'"
check "droce-nfsd counted the refused client" grep -q "client refused [1-9]" "$out/nfsd"
check "the file-system calls ran on droce-nfsd's helper threads, not on its loop" \
	grep -q "calls on helper threads [1-9][0-9]* (waited for scratch [0-9]*), run inline for want of scratch 0" "$out/nfsd"
echo "# libnfs_tcp: $fails failed"
[ "$fails" = 0 ]
