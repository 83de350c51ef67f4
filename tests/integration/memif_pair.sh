#!/usr/bin/env bash
# Integration test: two droce processes joined by net_memif (shared memory, no kernel in the
# path): A is the memif server and echoes UDP/7000, B the client and sends datagrams to A,
# once over IPv4 and once over IPv6 (a fresh pair each time). Checks ARP and ND over memif
# and every byte of every echo.
#
# Shutdown order. DPDK 22.11's net_memif unmaps the shared regions from its interrupt thread
# when the peer disconnects, while an RX burst on the lcore may be reading them: a process
# that still polls when its peer leaves can crash (seen here about once in 30 runs under
# load, SIGSEGV in eth_memif_rx). So both sides run with --hold: B, done, stops polling and
# holds; A is told to stop polling (first SIGINT) and holds; then B exits, then A exits
# (second SIGINT). Neither polls while the other goes.
# Usage: memif_pair.sh PATH/TO/droce-gen      Exit 77 = skipped (with the reason).
set -u
DROCE_GEN=$(readlink -f "$1")
DIR=$(mktemp -d /tmp/droce-memif.XXXXXX)
ID=$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$DIR" /var/run/dpdk/droce_m[ab][46]_"$ID"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (DPDK runtime directory /var/run/dpdk)"; exit 77; }

conf() { # NAME ROLE IP4 IP6 LCORE SOCKET
	cat > "$DIR/$1.ini" <<INI
[eal]
lcores = $5
memory = 128
file_prefix = droce_$1_$ID
hugepages = ${LAB_HUGEPAGES:-auto}
[port0]
vdev = net_memif_$1,role=$2,id=0,socket=$6
ipv4 = $3/24
ipv6 = $4/64
INI
}
wait_for() { # FILE REGEX SECONDS
	for ((i = 0; i < $3 * 10; i++)); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "timed out waiting for /$2/ in $1:"; cat "$1"; return 1
}
fails=0
fail() { echo "FAIL - $*"; fails=$((fails + 1)); }

# pair FAMILY PEER: a fresh server A and client B over one memif socket
pair() {
	local fam=$1 peer=$2 a b rc arc addr
	conf "ma$fam" server 10.66.0.1 fd66::1 0 "$DIR/memif$fam.sock"
	conf "mb$fam" client 10.66.0.2 fd66::2 1 "$DIR/memif$fam.sock"
	"$DROCE_GEN" -c "$DIR/ma$fam.ini" -e 7000 -l -1 --hold > "$DIR/ma$fam.log" 2>&1 &
	a=$!; PIDS+=($a)
	wait_for "$DIR/ma$fam.log" "droce-gen: ready" 20 || { fail "server A (IPv$fam) did not start"; return; }
	"$DROCE_GEN" -c "$DIR/mb$fam.ini" -p "$peer" -n 200 -s 1000 -i 100 -j --hold \
		> "$DIR/mb$fam.log" 2>&1 &
	b=$!; PIDS+=($b)
	# B holds once its stream is done (or it exits at once when it could not start)
	for ((i = 0; i < 600; i++)); do
		grep -q "droce-gen: holding" "$DIR/mb$fam.log" && break
		kill -0 $b 2>/dev/null || break
		sleep 0.1
	done
	kill -INT $a
	wait_for "$DIR/ma$fam.log" "droce-gen: holding" 20 || fail "server A (IPv$fam) did not stop polling on SIGINT"
	kill -INT $b 2>/dev/null; wait $b; rc=$?
	kill -INT $a 2>/dev/null; wait $a; arc=$?
	if [ $rc = 0 ] && grep -q '"verified":200,"corrupt":0' "$DIR/mb$fam.log"; then
		echo "ok   - 200 datagrams to $peer over memif, all verified ($(grep -o '"rtt_us":{[^}]*}' "$DIR/mb$fam.log"))"
	else
		fail "datagrams to $peer over memif (exit $rc):"; cat "$DIR/mb$fam.log"
	fi
	addr=${peer%:*}; addr=${addr#[}; addr=${addr%]}
	if grep -q "resolved $addr -> " "$DIR/mb$fam.log"; then
		echo "ok   - $addr resolved over memif ($([ "$fam" = 4 ] && echo ARP || echo ND))"
	else
		fail "no address resolution line for $addr"
	fi
	[ $arc = 0 ] && echo "ok   - server A (IPv$fam) exited cleanly" ||
		{ fail "server A (IPv$fam) exited with $arc:"; tail -5 "$DIR/ma$fam.log"; }
	grep -q "echoed 200 datagrams" "$DIR/ma$fam.log" && echo "ok   - server A (IPv$fam) echoed all 200" ||
		{ fail "server A (IPv$fam) did not echo 200:"; tail -3 "$DIR/ma$fam.log"; }
}
pair 4 "10.66.0.1:7000"
pair 6 "[fd66::1]:7000"
echo "$fails check(s) failed"
[ $fails = 0 ]
