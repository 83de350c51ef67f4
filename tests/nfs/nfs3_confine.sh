#!/usr/bin/env bash
# Integration test: droce-nfsd's confinement and its answers to bad input, on the wire
# (issue 14's "Confinement" and "Bad input" tests). droce-nfsd serves over TCP (--listen, no
# RoCE stack) in a network namespace of its own; tests/nfs/nfs3_confine (droce's own MOUNT +
# NFSv3 client) asserts each answer (its header lists them) and this script checks:
#   1. every check of nfs3_confine passed;
#   2. the files it made are owned on droce's disk as it says (root_squash, AUTH_NONE);
#   3. nothing crossed the exports on disk, ro/file is unchanged, /etc is untouched;
#   4. droce-nfsd's counters at exit: badhandle, stale, client refused, rofs and GARBAGE_ARGS
#      each equal to what the client received (and > 0), no SYSTEM_ERR or drop, no connection
#      closed as garbage.
# Usage: nfs3_confine.sh PATH/TO/droce-nfsd PATH/TO/nfs3_confine    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
CLIENT=$(readlink -f "$2")
NS=droce-confine-$$

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
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

mkdir -p "$out/A" "$out/B" "$out/ro" "$out/closed" "$out/outside" "$out/state"
chmod 0777 "$out/A" "$out/B"
ln -s /etc "$out/A/etc"
mkdir "$out/A/sub"
for d in A B; do printf 'g0\n' > "$out/$d/g0"; chmod 0040 "$out/$d/g0"; done
printf 'original\n' > "$out/ro/file"
printf 'not exported\n' > "$out/secret"
echo "# export file system: $(stat -f -c %T "$out/A")"
cat > "$out/exports" <<EOF
$out/A 127.0.0.0/8(rw,no_root_squash,insecure)
$out/B 127.0.0.0/8(rw,root_squash,insecure)
$out/ro 127.0.0.0/8(ro,insecure)
$out/closed 10.9.9.9(rw)
EOF
etc_before=$(stat -c '%i %Y' /etc/passwd)
ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --exports "$out/exports" --state "$out/state" \
	--seconds 120 > "$out/nfsd" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q serving "$out/nfsd" && break; sleep 0.1; done
check "droce-nfsd serves in its namespace" grep -q serving "$out/nfsd" || { cat "$out/nfsd"; exit 1; }

timeout 60 ip netns exec "$NS" "$CLIENT" --server 127.0.0.1 --dir "$out" > "$out/client" 2>&1
rc=$?
sed 's/^/# nfs3_confine: /' "$out/client"
check "nfs3_confine: every check passed (exit $rc)" [ "$rc" = 0 ]
check "nfs3_confine ran to its end" grep -q "checks passed" "$out/client"

# the owners on droce's disk
n=0
while read -r _ path want; do
	got=$(stat -c %u:%g "$path" 2>/dev/null)
	check "on disk: ${path#"$out"/} is $want (is ${got:-missing})" [ "$got" = "$want" ]
	n=$((n + 1))
done < <(grep '^disk ' "$out/client")
check "nfs3_confine named the files it made (4)" [ "$n" = 4 ]

check "on disk: nothing was renamed or linked across exports" \
	bash -c "[ ! -e '$out/A/moved' -a ! -e '$out/A/lnk' -a ! -e '$out/B/moved' -a -f '$out/B/bfile' -a -f '$out/A/afile' ]"
check "on disk: B/bfile has one link" [ "$(stat -c %h "$out/B/bfile" 2>/dev/null)" = 1 ]
check "on disk: ro/file is unchanged, ro/new was not made" \
	bash -c "[ \"\$(cat '$out/ro/file')\" = original -a ! -e '$out/ro/new' ]"
check "on disk: A/etc is still the symlink, /etc/passwd untouched" \
	bash -c "[ \"\$(readlink '$out/A/etc')\" = /etc -a \"\$(stat -c '%i %Y' /etc/passwd)\" = '$etc_before' ]"

kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd: /' "$out/nfsd"
# expect_eq NAME SERVER_VALUE: the server counted exactly what the client received
expect_eq() {
	local want
	want=$(sed -n "s/^expect $1 //p" "$out/client")
	check "droce-nfsd counted $1 ${2:-none}, the client received ${want:-none}" \
		[ -n "$2" -a -n "$want" -a "${2:-0}" = "$want" -a "${want:-0}" -gt 0 ]
}
fsline=$(grep '^fs: ' "$out/nfsd")
expect_eq badhandle "$(echo "$fsline" | sed -nE 's/.*badhandle ([0-9]+).*/\1/p')"
expect_eq stale "$(echo "$fsline" | sed -nE 's/.*stale ([0-9]+).*/\1/p')"
expect_eq refused "$(echo "$fsline" | sed -nE 's/.*client refused ([0-9]+).*/\1/p')"
expect_eq rofs "$(echo "$fsline" | sed -nE 's/.*rofs ([0-9]+).*/\1/p')"
expect_eq garbage "$(sed -nE 's/^rpc: GARBAGE_ARGS tcp ([0-9]+) .*/\1/p' "$out/nfsd")"
check "droce-nfsd: no SYSTEM_ERR, no drop, no connection closed as garbage" \
	bash -c "! grep -q 'SYSTEM_ERR\|DROP\|garbage [1-9]' '$out/nfsd'"
echo "# nfs3_confine: $fails failed"
[ "$fails" = 0 ]
