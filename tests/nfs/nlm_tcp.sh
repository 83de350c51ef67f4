#!/usr/bin/env bash
# Integration test: NLM v4 and NSM of droce-nfsd (--listen, no RoCE stack) in a network
# namespace, driven by tests/nfs/nlm_client.py (a client written from XNFS §14/§11): grace
# period (reclaim only), TEST's holder, DENIED, BLOCKED and the GRANTED callback through the
# client's own portmapper, a grant the client refuses taken back, CANCEL, FREE_ALL, SM_MON,
# SM_UNMON, SM_UNMON_ALL, LOCK_MSG answered by LOCK_RES, SM_NOTIFY over UDP, SM_STAT, PROG_MISMATCH for
# NLM v1, STALE_FH, SHARE, LOCK and UNLOCK over UDP from a new host (kept by the transport while
# the helpers work, the LOCK's reply held for the monitor list); then droce's counters (no
# GARBAGE_ARGS, SYSTEM_ERR or drop; no lock reply that did not wait for the list),
# and a restart that bumps the NSM state in the state directory.
# Usage: nlm_tcp.sh PATH/TO/droce-nfsd      Exit 77 = skipped (with the reason).
set -u
NFSD=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
NS=droce-nlm-$$

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }
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
mkdir -p "$out/exp" "$out/state"
: > "$out/exp/fa"
: > "$out/exp/fb"
echo "$out/exp 127.0.0.0/8(rw,no_root_squash,insecure)" > "$out/exports"
start() {
	ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --exports "$out/exports" --state "$out/state" \
		--grace 3 --seconds 60 > "$out/nfsd$1" 2>&1 &
	pid=$!
	for _ in $(seq 50); do grep -q serving "$out/nfsd$1" && break; sleep 0.1; done
	check "droce-nfsd serves in its namespace ($1)" grep -q serving "$out/nfsd$1"
}
start 1 || { cat "$out/nfsd1"; exit 1; }
s1=$(cat "$out/state/nsm.state")
timeout 60 ip netns exec "$NS" python3 "$HERE/nlm_client.py" "$out/exp" "$out/state" || fails=$((fails + 1))
kill -TERM "$pid"; wait "$pid"; pid=
sed 's/^/# droce-nfsd: /' "$out/nfsd1"
check "droce-nfsd answered every call (no GARBAGE_ARGS, SYSTEM_ERR, drop)" \
	bash -c "! grep -q 'DROP\|GARBAGE\|SYSTEM_ERR\|garbage [1-9]' '$out/nfsd1'"
check "two GRANTED and one LOCK_RES callbacks went through GETPORT and the call (callbacks: DONE 3), one grant refused" \
	bash -c "grep -q '^callbacks: DONE 3' '$out/nfsd1' && grep -q 'refused grants 1' '$out/nfsd1'"
check "the client's host is on the monitor list (statedir/nsm.hosts)" grep -q "127.0.0.1" "$out/state/nsm.hosts"
# the list is written by NSM's helper thread, and the first LOCK of a host over TCP was
# answered only after that (nsm_svc.c), as was the LOCK over UDP (a UDP call the transport
# could not keep would be counted unheld: none was)
check "the monitor list was written off the lcore, and lock replies waited for it (UDP's too)" \
	grep -Eq '^nsm: monitor list writes [1-9][0-9]* \(on the lcore 0, failed 0\), lock replies held for them [1-9][0-9]*, unheld 0$' "$out/nfsd1"
start 2
kill -TERM "$pid"; wait "$pid"; pid=
s2=$(cat "$out/state/nsm.state")
check "a restart bumps the NSM state to the next odd number ($s1 -> $s2)" [ "$s2" = $((s1 + 2)) ]
echo "# nlm_tcp: $fails failed"
[ "$fails" = 0 ]
