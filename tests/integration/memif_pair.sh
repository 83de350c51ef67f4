#!/usr/bin/env bash
# Integration test: two droce processes joined by net_memif (shared memory, no kernel in the
# path): A is the memif server and echoes UDP/7000, B the client and sends datagrams to A
# over IPv4 and IPv6. Checks ARP and ND over memif and every byte of every echo.
# Usage: memif_pair.sh PATH/TO/droce-gen      Exit 77 = skipped (with the reason).
set -u
DROCE_GEN=$(readlink -f "$1")
DIR=$(mktemp -d /tmp/droce-memif.XXXXXX)
ID=$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$DIR" "/var/run/dpdk/droce_ma_$ID" "/var/run/dpdk/droce_mb_$ID"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (DPDK runtime directory /var/run/dpdk)"; exit 77; }

conf() { # NAME ROLE IP4 IP6 LCORE
	cat > "$DIR/$1.ini" <<INI
[eal]
lcores = $5
memory = 128
file_prefix = droce_$1_$ID
hugepages = ${LAB_HUGEPAGES:-auto}
[port0]
vdev = net_memif_$1,role=$2,id=0,socket=$DIR/memif.sock
ipv4 = $3/24
ipv6 = $4/64
INI
}
conf ma server 10.66.0.1 fd66::1 0
conf mb client 10.66.0.2 fd66::2 1
wait_for() { # FILE REGEX SECONDS
	for ((i = 0; i < $3 * 10; i++)); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "timed out waiting for /$2/ in $1:"; cat "$1"; return 1
}
fails=0
"$DROCE_GEN" -c "$DIR/ma.ini" -e 7000 -l -1 > "$DIR/ma.log" 2>&1 &
PIDS+=($!); A=$!
wait_for "$DIR/ma.log" "droce-gen: ready" 20 || exit 1
for peer in "10.66.0.1:7000" "[fd66::1]:7000"; do
	timeout 60 "$DROCE_GEN" -c "$DIR/mb.ini" -p "$peer" -n 200 -s 1000 -i 100 -j \
		> "$DIR/mb.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q '"verified":200,"corrupt":0' "$DIR/mb.log"; then
		echo "ok   - 200 datagrams to $peer over memif, all verified ($(grep -o '"rtt_us":{[^}]*}' "$DIR/mb.log"))"
	else
		echo "FAIL - datagrams to $peer over memif (exit $rc):"; cat "$DIR/mb.log"
		fails=$((fails + 1))
	fi
	addr=${peer%:*}; addr=${addr#[}; addr=${addr%]}
	if grep -q "resolved $addr -> " "$DIR/mb.log"; then
		echo "ok   - $addr resolved over memif ($([ "${addr#*:}" = "$addr" ] && echo ARP || echo ND))"
	else
		echo "FAIL - no address resolution line for $addr"; fails=$((fails + 1))
	fi
done
kill -INT $A; wait $A; arc=$?
[ $arc = 0 ] && echo "ok   - the server exited cleanly" ||
	{ echo "FAIL - the server exited with $arc"; fails=$((fails + 1)); }
grep -q "echoed 400 datagrams" "$DIR/ma.log" && echo "ok   - the server echoed all 400" ||
	{ echo "FAIL - server did not echo 400:"; tail -3 "$DIR/ma.log"; fails=$((fails + 1)); }
echo "$fails check(s) failed"
[ $fails = 0 ]
