#!/usr/bin/env bash
# Integration test: NFSv4.1 across a droce-nfsd restart over TCP (--listen, no RoCE stack) in
# a network namespace of its own. tests/nfs/nfs4_restart.py (the client of nfs4_tcp.py) opens,
# writes and locks; droce-nfsd stops (SIGTERM) and starts again on the same state directory;
# the client reclaims its open and lock in the grace period and another client waits for it
# (docs/nfs.md "Restart and grace"). Then droce-nfsd's exit counters are checked.
# Usage: nfs4_restart.sh PATH/TO/droce-nfsd PATH/TO/nfs4_restart.py    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
CLIENT=$(readlink -f "$2")
NS=droce-nfs4r-$$

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
if ! ip netns add "$NS" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
out=$(mktemp -d)
cleanup() {
	[ -n "${pid:-}" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
ip -n "$NS" link set lo up
fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
mkdir -p "$out/A" "$out/state"
cat > "$out/nfsd.ini" <<INI
[nfs]
state = $out/state
threads = 2
grace = 8
versions = 3,4.1
v4_lease = 15

[export alpha]
path = $out/A
clients = 127.0.0.0/8(rw,no_root_squash,insecure)
INI
start() { # LOG
	ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$out/nfsd.ini" --seconds 120 \
		> "$1" 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -qs serving "$1" && break; sleep 0.1; done
	check "droce-nfsd serves" grep -q serving "$1" || { cat "$1"; exit 1; }
}
stop() {
	kill -TERM "$pid"; wait "$pid"; pid=
}
start "$out/log1"
timeout 60 ip netns exec "$NS" python3 "$CLIENT" 127.0.0.1 "$out/A" before "$out/client.json"
check "before the restart: every step passed" [ $? = 0 ]
stop
sed 's/^/# droce-nfsd (first run): /' "$out/log1" | grep "nfs4: client records"
check "the client is recorded in the state directory" \
	grep -qx "$(printf '%s' nfs4-restart-a | od -An -tx1 | tr -d ' \n')" "$out/state/nfs4.clients"
start "$out/log2"
timeout 60 ip netns exec "$NS" python3 "$CLIENT" 127.0.0.1 "$out/A" after "$out/client.json"
check "after the restart: every step passed" [ $? = 0 ]
stop
sed 's/^/# droce-nfsd (restarted): /' "$out/log2" | grep "nfs4: client records"
check "counters: one record loaded, two reclaims, one NO_GRACE, one GRACE" \
	grep -q "nfs4: client records 2 (loaded 1, .*reclaims 2, NO_GRACE 1, GRACE 1; in grace 0" \
	"$out/log2"
echo "# nfs4_restart: $fails failed"
[ $fails = 0 ]
