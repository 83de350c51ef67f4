#!/usr/bin/env bash
# Integration test: droce-nfsd run from one config file and operated like a NAS (issue 15):
# [nfs] and [export NAME] sections, SIGHUP reloading the exports under a connected client, the
# "secure" port rule, and SIGTERM draining while a client writes. droce-nfsd serves over TCP
# (--listen, no RoCE stack) in a network namespace of its own; tests/nfs/nfsd_life.py is the
# client and asserts each step (its docstring lists them).
# Usage: nfsd_life.sh PATH/TO/droce-nfsd PATH/TO/nfsd_life.py    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
CLIENT=$(readlink -f "$2")
NS=droce-life-$$

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

mkdir -p "$out/A" "$out/C" "$out/S" "$out/D" "$out/state"
chmod 0777 "$out/D"
cat > "$out/nfsd.ini" <<INI
; droce-nfsd's own sections only: --listen runs no stack
[nfs]
state = $out/state
threads = 2
grace = 0
drain = 10

[export alpha]
path = $out/A
clients = 127.0.0.0/8(rw,no_root_squash,insecure)

[export secure]
path = $out/S
clients = 127.0.0.0/8(rw,no_root_squash)

[export data]
path = $out/D
clients = 127.0.0.0/8(rw,no_root_squash,insecure)
INI

check "--check accepts the config" "$NFSD" --check --listen 127.0.0.1 --config "$out/nfsd.ini"

# start [LOG]: droce-nfsd in the namespace from the config, waiting for "serving"
start() {
	ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$out/nfsd.ini" --seconds 300 \
		> "$1" 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -q serving "$1" && break; sleep 0.1; done
	check "droce-nfsd serves from the config ($(basename "$1"))" grep -q serving "$1" ||
		{ cat "$1"; exit 1; }
}

start "$out/log1"
timeout 120 ip netns exec "$NS" python3 "$CLIENT" reload "$pid" "$out/nfsd.ini" "$out/log1" "$out"
check "reload: every check passed" [ $? = 0 ]
timeout 60 ip netns exec "$NS" python3 "$CLIENT" secure "$out"
check "secure: every check passed" [ $? = 0 ]
kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd (1): /' "$out/log1"
# MOUNT's MNT, like every NFSv3 call but NULL, ran on the helper threads (none inline)
getattrs=$(sed -nE 's/^nfs3: GETATTR tcp ([0-9]+) .*/\1/p' "$out/log1")
mnts=$(sed -nE 's/^mount: MNT ([0-9]+)$/\1/p' "$out/log1")
helped=$(sed -nE 's/^nfs3: calls on helper threads ([0-9]+) \(waited for scratch [0-9]+\), run inline for want of scratch 0, .*/\1/p' "$out/log1")
check "MNT (${mnts:-?}) and GETATTR (${getattrs:-?}) calls all ran on the helper threads (${helped:-?})" \
	[ -n "$helped" -a -n "$mnts" -a "${mnts:-0}" -gt 0 -a "$((${getattrs:-0} + ${mnts:-0}))" = "${helped:-x}" ]

start "$out/log2"
t0=$(date +%s)
timeout 120 ip netns exec "$NS" python3 "$CLIENT" drain "$pid" "$out/log2" "$out" "$out/acked"
check "drain: the client's checks passed" [ $? = 0 ]
wait "$pid"
rc=$?
pid=
t1=$(date +%s)
sed 's/^/# droce-nfsd (2): /' "$out/log2"
check "drain: droce-nfsd exited 0 (exit $rc)" [ "$rc" = 0 ]
check "drain: it ended within the bound (10 s drain; took $((t1 - t0)) s with the writes)" \
	[ $((t1 - t0)) -le 30 ]
python3 "$CLIENT" verify "$out" "$out/acked" "$out/log2"
check "drain: every answered block is on disk" [ $? = 0 ]
echo "# nfsd_life: $fails failed"
[ "$fails" = 0 ]
