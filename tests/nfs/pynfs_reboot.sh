#!/usr/bin/env bash
# Integration test: pynfs's NFSv4.1 reboot tests (../shared/testsuites/pynfs,
# nfs4.1/server41tests/st_reboot.py, flag `reboot`, not in `all`) against droce-nfsd serving
# NFSv4.1 over TCP (--listen) in a network namespace of its own, on a state directory
# (--state) with `[nfs] grace = 20` and a 5 s lease (docs/nfs.md "Restart and grace").
#   - pynfs is built in a scratch copy, as by pynfs.sh (pynfs_lib.sh, shared with it);
#   - pynfs calls `--serverhelper FILE reboot`: FILE (written here) sends SIGTERM to the running
#     droce-nfsd, waits for its exit (bounded) and records its status, starts it again with the
#     same arguments and state directory, and returns once it prints its "serving" line
#     (bounded); every run is started by FILE, in a subshell that waits for it and records
#     its exit status;
#   - the codes run by default: REBT1 (one client reclaims its open), REBT2a (10 clients),
#     REBT3a (10 clients, a second restart while half of them have reclaimed), REBT4a (10
#     clients, half reclaim twice: NO_GRACE and COMPLETE_ALREADY the second time) and REBT5 (42
#     reclaims that start lease - 5 s after the restart). Left out: REBT2b-c, 3b-c and 4b-c, the
#     same cases with 100 and 1000 clients: they test nothing the 10-client ones do not (droce
#     keeps its records in one linear table, NFS4_RECORDS_MAX of them) and the 1000-client
#     ones alone would take minutes of pynfs's Python;
#   - lease and grace: every test sleeps lease + 5 s after its reclaims (so the next one starts
#     after its clients expired); REBT5 needs the grace period to last past lease - 5 s plus
#     its 42 reclaims of 0.25 s (about 11 s with a 5 s lease, droce's least; a lease of 10 made
#     each test 5 s longer): grace 20 s, room for a slow machine;
#   - the test passes when every failure is listed in pynfs41_reboot_known_failures.txt, each
#     with its reason, and every test listed there still fails; every droce-nfsd run served and
#     stopped cleanly (exit 0), and there was one run per restart plus the first.
# Usage: pynfs_reboot.sh PATH/TO/droce-nfsd [ARTIFACT_DIR] [CODE...]   Exit 77 = skipped (with
# the reason).
set -u
NFSD=$(readlink -f "$1")
ART=${2:-}
shift $(($# < 2 ? $# : 2))
CODES=("$@")
[ ${#CODES[@]} -gt 0 ] || CODES=(REBT1 REBT2a REBT3a REBT4a REBT5)
HERE=$(cd "$(dirname "$0")" && pwd)
KNOWN=$HERE/pynfs41_reboot_known_failures.txt
NS=droce-pynfsr-$$
# shellcheck source=tests/nfs/pynfs_lib.sh
. "$HERE/pynfs_lib.sh"

pynfs_setup "$NS"
out=$(mktemp -d)
cleanup() {
	local p

	p=$(cat "$out/nfsd.pid" 2>/dev/null)
	[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "$ART" ] && mkdir -p "$ART" &&
		cp "$out"/nfsd.* "$out"/pynfs.* "$out"/helper.log "$out"/serverhelper "$out"/results.json \
			"$ART"/ 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
pynfs_build "$out"

mkdir -p "$out/exp" "$out/state"
cat > "$out/exports" <<EOF
$out/exp 127.0.0.0/8(rw,no_root_squash,insecure)
EOF
cat > "$out/nfsd.ini" <<EOF
[nfs]
versions = 3,4.1
v4_lease = 5
grace = 20
EOF

# the server helper: start, stop, reboot (= stop, start). Run N logs to nfsd.N.out/err and
# its exit status to nfsd.N.rc; helper.log gets one line per start and stop.
cat > "$out/serverhelper" <<EOF
#!/usr/bin/env bash
set -u
out='$out'
NS='$NS'
NFSD='$NFSD'
EOF
cat >> "$out/serverhelper" <<'EOF'
log() { echo "$(date +%T) $*" >> "$out/helper.log"; }
start() {
	local n

	n=$(($(cat "$out/nfsd.runs" 2>/dev/null || echo 0) + 1))
	echo "$n" > "$out/nfsd.runs"
	rm -f "$out/nfsd.pid"
	(
		ip netns exec "$NS" "$NFSD" --listen 127.0.0.1 --config "$out/nfsd.ini" \
			--exports "$out/exports" --state "$out/state" --seconds 900 \
			> "$out/nfsd.$n.out" 2> "$out/nfsd.$n.err" < /dev/null &
		echo $! > "$out/nfsd.pid"
		wait $!
		echo $? > "$out/nfsd.$n.rc"
	) > /dev/null 2>&1 < /dev/null &
	for _ in $(seq 100); do grep -qs serving "$out/nfsd.$n.out" && break; sleep 0.1; done
	if grep -qs serving "$out/nfsd.$n.out"; then
		log "run $n serving (pid $(cat "$out/nfsd.pid"))"
		return 0
	fi
	log "run $n FAILED to serve within 10 s"
	return 1
}
stop() {
	local n p

	n=$(cat "$out/nfsd.runs")
	p=$(cat "$out/nfsd.pid")
	kill -TERM "$p"
	for _ in $(seq 300); do [ -s "$out/nfsd.$n.rc" ] && break; sleep 0.1; done
	rm -f "$out/nfsd.pid"
	if [ -s "$out/nfsd.$n.rc" ]; then
		log "run $n stopped: exit $(cat "$out/nfsd.$n.rc")"
		[ "$(cat "$out/nfsd.$n.rc")" = 0 ]
		return
	fi
	kill -KILL "$p"
	log "run $n FAILED to stop within 30 s of SIGTERM: killed"
	return 1
}
case "${1:-}" in
start) start ;;
stop) stop ;;
reboot) log "pynfs asks for a reboot"; stop; start ;;
*) echo "usage: $0 start|stop|reboot" >&2; exit 2 ;;
esac
EOF
chmod +x "$out/serverhelper"

check "droce-nfsd serves in its namespace" "$out/serverhelper" start ||
	{ cat "$out"/nfsd.1.*; exit 1; }

T0=$SECONDS
(cd "$out/pynfs/nfs4.1" && timeout 600 ip netns exec "$NS" env PATH=/usr/bin:/bin \
	$PY testserver.py "127.0.0.1:$out/exp" --maketree --hidepass --json="$out/results.json" \
	--serverhelper "$out/serverhelper" "${CODES[@]}") > "$out/pynfs.log" 2>&1
echo "# pynfs ${CODES[*]}: exit $?, $((SECONDS - T0)) s"
grep -vE '^(INFO|DEBUG) ' "$out/pynfs.log" | tail -n 60 | sed 's/^/# pynfs: /'
check "pynfs ran and wrote its results" [ -s "$out/results.json" ]
# one line per test that ran: its code, PASS or FAIL and pynfs's time for it
$PY - "$out/results.json" <<'PY' | sed 's/^/# /'
import json, sys
for t in json.load(open(sys.argv[1]))["testcase"]:
    if "skipped" not in t:
        v = "FAIL" if "failure" in t else "PASS"
        print(f"{t['code']:8} {v} {float(t.get('time', 0)):.1f} s")
PY

# the counts, and the failures against the known ones
pynfs_verdict "$out/results.json" "$out/pynfs.log" "$KNOWN" > "$out/pynfs.verdict"
verdict=$?
sed 's/^/# /' "$out/pynfs.verdict"
check "every pynfs failure is a known one with its reason, and every known one still fails" [ $verdict = 0 ]

reboots=$(grep -c "asks for a reboot" "$out/helper.log")
check "droce-nfsd is still serving after the suite" kill -0 "$(cat "$out/nfsd.pid")"
check "droce-nfsd stops cleanly at the end" "$out/serverhelper" stop
sed 's/^/# helper: /' "$out/helper.log"
runs=$(cat "$out/nfsd.runs")
check "one droce-nfsd run per restart ($reboots) plus the first: $runs" [ "$runs" = $((reboots + 1)) ]
bad=0
for n in $(seq "$runs"); do
	grep -qs serving "$out/nfsd.$n.out" && [ "$(cat "$out/nfsd.$n.rc" 2>/dev/null)" = 0 ] ||
		bad=$((bad + 1))
	grep -h "nfs4: client records" "$out/nfsd.$n.out" | sed "s/^/# run $n: /"
done
check "every droce-nfsd run served and exited 0 ($bad did not)" [ $bad = 0 ]
echo "# pynfs_reboot: $fails failed"
[ "$fails" = 0 ]
