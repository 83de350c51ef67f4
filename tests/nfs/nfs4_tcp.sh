#!/usr/bin/env bash
# Integration test: NFSv4.1 against droce-nfsd over TCP ([nfs] versions = 3,4.1, --listen, no
# RoCE stack) in a network namespace of its own; tests/nfs/nfs4_tcp.py is the client (written
# from RFC 8881) and asserts each step, then droce-nfsd's exit counters are checked.
# Usage: nfs4_tcp.sh PATH/TO/droce-nfsd PATH/TO/nfs4_tcp.py    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
CLIENT=$(readlink -f "$2")
NS=droce-nfs4-$$

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
grace = 0
versions = 3,4.1
v4_lease = 15

[export alpha]
path = $out/A
clients = 127.0.0.0/8(rw,no_root_squash,insecure)
INI
ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$out/nfsd.ini" --seconds 120 \
	> "$out/log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q serving "$out/log" && break; sleep 0.1; done
check "droce-nfsd serves" grep -q serving "$out/log" || { cat "$out/log"; exit 1; }
timeout 60 ip netns exec "$NS" python3 "$CLIENT" 127.0.0.1 "$out/A"
check "the client: every step passed" [ $? = 0 ]
kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd: /' "$out/log" | grep nfs4
check "counters: one OPEN, one CLOSE, a LOCK denied" \
	grep -q "nfs4: compounds .* opens 1, closes 1, .*locks denied 1" "$out/log"
echo "# nfs4_tcp: $fails failed"
[ $fails = 0 ]
