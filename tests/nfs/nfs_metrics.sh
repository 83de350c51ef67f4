#!/usr/bin/env bash
# Integration test: droce-nfsd's Prometheus metrics (issue 15). droce-nfsd serves over TCP
# (--listen, no RoCE stack) with --metrics 127.0.0.1:9464 in a network namespace of its own;
# tests/nfs/metrics_check.py (its header lists the checks) drives the HTTP side, makes NFS
# calls with exact counts, compares the scrape, droce-nfsstat's table and JSON, and a real
# Prometheus' query API with them. Then this script checks droce-nfsd stopped cleanly.
# Prometheus is Debian's package (scripts/setup.sh installs it): without it the rest runs and
# the test skips (77) saying so, unless DROCE_CI or CI is set (then it fails).
# Usage: nfs_metrics.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsstat    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
NFSSTAT=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
NS=droce-metrics-$$
PORT=9464

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }
PROM=$(command -v prometheus || true)
if [ -z "$PROM" ] && [ -n "${DROCE_CI:-}${CI:-}" ]; then
	echo "FAIL - prometheus is not installed, and in CI it must be (scripts/setup.sh installs it)"
	exit 1
fi
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

mkdir -p "$out/exp" "$out/state" "$out/work"
head -c 10000 /dev/urandom > "$out/exp/f"
echo "$out/exp 127.0.0.0/8(rw,no_root_squash,insecure)" > "$out/exports"
# NFSv4.1 served too: its droce_nfsd_nfs4_* families are in the text promtool checks
printf '[nfs]\nversions = 3,4.1\n' > "$out/nfsd.ini"
ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$out/nfsd.ini" --exports "$out/exports" --state "$out/state" \
	--metrics 127.0.0.1:$PORT --seconds 170 > "$out/nfsd" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q serving "$out/nfsd" && break; sleep 0.1; done
check "droce-nfsd serves in its namespace" grep -q serving "$out/nfsd" || { cat "$out/nfsd"; exit 1; }
check "droce-nfsd says where its metrics are" grep -q "metrics at 127.0.0.1:$PORT port $PORT" "$out/nfsd"

timeout 150 ip netns exec "$NS" python3 "$HERE/metrics_check.py" "$out/exp" "127.0.0.1:$PORT" \
	"$NFSSTAT" "$PROM" "$out/work"
rc=$?
check "metrics_check.py: every check passed (exit $rc)" [ "$rc" = 0 ]

check "droce-nfsd is still running after all of it" kill -0 "$pid"
kill -TERM "$pid"; wait "$pid"; st=$?; pid=
sed 's/^/# droce-nfsd: /' "$out/nfsd"
check "droce-nfsd stopped cleanly (exit $st)" [ "$st" = 0 ]
check "droce-nfsd's own count agrees: nfs3 READ tcp 4" grep -q "^nfs3: READ tcp 4 rdma 0" "$out/nfsd"
check "droce-nfsd answered every call (no GARBAGE_ARGS, SYSTEM_ERR, drop)" \
	bash -c "! grep -q 'GARBAGE\|SYSTEM_ERR\|DROP' '$out/nfsd'"
echo "# nfs_metrics: $fails failed"
[ "$fails" = 0 ] || exit 1
if [ -z "$PROM" ]; then
	echo "SKIP: the Prometheus part did not run: prometheus is not installed (Debian package prometheus)"
	exit 77
fi
exit 0
