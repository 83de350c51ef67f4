#!/usr/bin/env bash
# Integration test: the durability of droce-nfsd's writes (issue 14, "Durability"), against
# `droce-nfsd --listen` in a network namespace, with tests/nfs/nfsd_durable.py as the client
# (its docstring lists the checks):
#   1. under strace -f, every FILE_SYNC WRITE and COMMIT reply follows the completion of an
#      fsync/fdatasync (and no UNSTABLE reply does: the control);
#   2. UNSTABLE writes, kill -9, restart on the same state directory: the verifier changed, the
#      client resent exactly the 10 uncommitted WRITEs, the restarted server counted exactly
#      10 WRITEs, and the file on disk is right;
#   3. a full disk (an export on a 16 MiB ext4 image on a loop device): NFS3ERR_NOSPC, what was
#      answered OK is intact, and writing works again once space is freed.
# The export is on the file system of the test's temporary directory (its type is printed).
# Usage: nfsd_durable.sh PATH/TO/droce-nfsd PATH/TO/nfsd_durable.py    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
CLIENT=$(readlink -f "$2")
NS=droce-durable-$$

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
command -v strace > /dev/null || { echo "FAIL - strace is not installed (scripts/setup.sh installs it)"; exit 1; }
if ! ip netns add "$NS" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
out=$(mktemp -d)
cleanup() {
	[ -n "${pid:-}" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	mountpoint -q "$out/small" 2>/dev/null && umount "$out/small"
	ip netns del "$NS" 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
ip -n "$NS" link set lo up
fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
mkdir -p "$out/E" "$out/state"
chmod 0777 "$out/E"
echo "# export file system: $(stat -f -c %T "$out/E")"
printf '%s\n' "$out/E 127.0.0.0/8(rw,no_root_squash,insecure,sync)" > "$out/exports"

# start LOG [WRAPPER...]: droce-nfsd in the namespace, waiting for "serving"
start() {
	local log=$1
	shift
	ip netns exec "$NS" "$@" "$NFSD" --listen 127.0.0.1 --exports "$out/exports" \
		--state "$out/state" --grace 0 --threads 2 --seconds 120 > "$log" 2>&1 &
	pid=$!
	for _ in $(seq 200); do grep -q "^serving" "$log" && break; sleep 0.1; done
	check "droce-nfsd serves ($(basename "$log"))" grep -q "^serving" "$log" || { cat "$log"; exit 1; }
}

# 1. the order of syncs and replies, from strace
start "$out/log1" strace -f -tt -T -xx -s 16 -e trace=fsync,fdatasync,sendto -o "$out/trace"
timeout 120 ip netns exec "$NS" python3 "$CLIENT" calls "$out" "$out/calls"
check "calls: the client's checks passed" [ $? = 0 ]
# the signal goes to droce-nfsd itself, under strace
pkill -TERM -f "^$NFSD --listen 127.0.0.1 --exports $out/exports"
wait "$pid"; pid=
python3 "$CLIENT" trace "$out/trace" "$out/calls"
check "trace: every check passed" [ $? = 0 ]

# 2. UNSTABLE, kill -9, restart, resend
start "$out/log2"
timeout 60 ip netns exec "$NS" python3 "$CLIENT" before "$out" "$out/state.json"
check "before: the client's checks passed" [ $? = 0 ]
kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=
start "$out/log3"
timeout 60 ip netns exec "$NS" python3 "$CLIENT" after "$out" "$out/state.json"
check "after: the client's checks passed" [ $? = 0 ]
kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd (after the restart): /' "$out/log3" | grep -E "WRITE|COMMIT|drained"
check "the restarted droce-nfsd counted exactly the 10 resent WRITEs" \
	grep -q "^nfs3: WRITE tcp 10 rdma 0$" "$out/log3"
# 3. a full disk: an export on a 16 MiB ext4 image (a loop mount, undone at the end)
truncate -s 16M "$out/small.img" && mkfs.ext4 -q "$out/small.img" && mkdir -p "$out/small" &&
	mount -o loop "$out/small.img" "$out/small"
if mountpoint -q "$out/small"; then
	chmod 0777 "$out/small"
	dd if=/dev/zero of="$out/small/ballast" bs=1M count=2 status=none
	echo "# full: export on $(stat -f -c %T "$out/small") ($(df -h --output=size "$out/small" | tail -n 1 | tr -d ' '))"
	printf '%s\n' "$out/small 127.0.0.0/8(rw,no_root_squash,insecure,sync)" >> "$out/exports"
	start "$out/log4"
	timeout 120 ip netns exec "$NS" python3 "$CLIENT" full "$out"
	check "full: the client's checks passed" [ $? = 0 ]
	kill -TERM "$pid"; wait "$pid"; pid=
	grep -E "^nfs3: status" "$out/log4" | sed 's/^/# droce-nfsd (full): /'
	check "full: droce-nfsd counted the error" grep -qE "^nfs3: status ok [0-9]+, errors [1-9]" "$out/log4"
	umount "$out/small"
else
	echo "FAIL - full: cannot mount an ext4 image on a loop device here"
	fails=$((fails + 1))
fi
echo "# nfsd_durable: $fails failed"
[ "$fails" = 0 ]
