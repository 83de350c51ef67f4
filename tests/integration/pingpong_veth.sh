#!/usr/bin/env bash
# Integration test: droce-pingpong against itself, in two network namespaces joined by a veth
# pair (net_af_packet), as ibv_rc_pingpong runs between two hosts. The TCP exchange of
# LID:QPN:PSN:GID goes through each side's exception TAP (kernel sockets bound to droce's
# address), the ping-pong over an RC QP. For 1 B, 4 KiB and 64 KiB messages (64 KiB is 64
# packets at path MTU 1024) both sides must exit 0 with --chk (every received message checked
# byte for byte), print rc_pingpong's lines, and each side's "remote address" must be the
# other's "local address". One more run without -g (zero GIDs, as ibv_rc_pingpong sends by
# default) must fall back to the TCP peer's address.
# Usage: pingpong_veth.sh PATH/TO/droce-pingpong      Exit 77 = skipped (with the reason).
set -u
PP=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

# options that need no stack
"$PP" -- --help | grep -q -- "--gid-idx" && "$PP" -- --help | grep -q -- "--chk"
check "--help lists rc_pingpong's options" [ $? = 0 ]
"$PP" -- -c /nonexistent -m 300 > /dev/null 2>&1
check "a path MTU that is no IB MTU is refused (exit 2)" [ $? = 2 ]

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1

# field NAME LOG WHICH: "QPN PSN GID" of the local or remote address line
field() { grep -m1 "$2 address:" "$1" | sed -E 's/.*QPN (0x[0-9a-f]+), PSN (0x[0-9a-f]+), GID (.*)/\1 \2 \3/'; }

# run NAME SIZE ITERS ARGS...: server in B, client in A; both logs kept
run() {
	local name=$1 size=$2 iters=$3 i
	shift 3
	# shellcheck disable=SC2086 # SRV_ARGS: the server's own options, word-split on purpose
	ip netns exec "$LAB_NS_B" timeout 60 "$PP" -c "$LAB_DIR/${SRV_INI:-b.ini}" -s "$size" \
		-n "$iters" "$@" ${SRV_ARGS:-} > "$LAB_DIR/$name.srv.log" 2>&1 &
	local srv=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "local address:" "$LAB_DIR/$name.srv.log" 2>/dev/null && break
		sleep 0.1
	done
	ip netns exec "$LAB_NS_A" timeout 60 "$PP" -c "$LAB_DIR/a.ini" -s "$size" -n "$iters" "$@" \
		"$LAB_IP4_B" > "$LAB_DIR/$name.cli.log" 2>&1
	local rc_c=$?
	wait $srv
	local rc_s=$?
	echo "# $name: client $(grep -h "bytes in\|iters in" "$LAB_DIR/$name.cli.log" | tr '\n' ' ')"
	if [ $rc_c != 0 ] || [ $rc_s != 0 ]; then
		echo "# client (exit $rc_c):"; sed 's/^/#   /' "$LAB_DIR/$name.cli.log"
		echo "# server (exit $rc_s):"; sed 's/^/#   /' "$LAB_DIR/$name.srv.log"
	fi
	check "$name: both sides exit 0" [ "$rc_c/$rc_s" = 0/0 ]
	check "$name: the client's remote address is the server's local address" \
		[ "$(field "$LAB_DIR/$name.cli.log" remote)" = "$(field "$LAB_DIR/$name.srv.log" local)" ]
	check "$name: the server's remote address is the client's local address" \
		[ "$(field "$LAB_DIR/$name.srv.log" remote)" = "$(field "$LAB_DIR/$name.cli.log" local)" ]
	local f n=0
	for f in "$LAB_DIR/$name.cli.log" "$LAB_DIR/$name.srv.log"; do
		grep -qE "^$((size * iters * 2)) bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" "$f" &&
			grep -qE "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" "$f" && n=$((n + 1))
	done
	check "$name: rc_pingpong's two result lines on both sides" [ $n = 2 ]
}

for size in 1 4096 65536; do
	run "size $size" "$size" 20 -g 1 -m 1024 --chk
done
check "the GID is the IPv4-mapped address with -g 1" \
	grep -q "local address:.*GID ::ffff:$LAB_IP4_A$" "$LAB_DIR/size 4096.cli.log"
run "no GID" 4096 10 --chk
check "without -g the GID is zero and the TCP peer's address is used" \
	grep -q "GID is zero; using its TCP address $LAB_IP4_A" "$LAB_DIR/no GID.srv.log"
# Two lanes (issue 12 item 7): the server's device runs on lcores 0 and 1 (--qp-lcore 1): the
# CM, the exchange's QP transitions and the link on lcore 0, the QP with its CQ and the
# traffic on lcore 1 from RTS on. Its port has a queue per lcore (af_packet qpairs=2; the
# kernel's fanout picks the queue), and a frame a lane gets for the other's QP is handed over.
# (Both its lcores back off when idle: its main lcore shares CPU 0 with the client.)
sed -e 's/^lcores = .*/lcores = 0,1/' -e 's/^\(vdev = .*\)$/\1,qpairs=2/' "$LAB_DIR/b.ini" \
	> "$LAB_DIR/b2.ini"
printf '\n[stack]\nidle_sleep_us = 50\n' >> "$LAB_DIR/b2.ini"
SRV_INI=b2.ini SRV_ARGS="--qp-lcore 1" run "two lanes" 65536 50 -g 1 -m 1024 --chk
lanes=$(grep "droce-pingpong: lanes:" "$LAB_DIR/two lanes.srv.log")
echo "# server: ${lanes:-no lanes line}"
check "two lanes: the server's QP lived on lcore 1" \
	grep -q "the QP's home is lcore 1;" <<< "$lanes"
# its engines ran on the main lcore until RTS, then on lcore 1 only: two changes (more would
# be two lcores taking turns); and lane 1 counted taking it over
check "two lanes: its engines changed lcore exactly twice (main until RTS, then lcore 1)" \
	grep -q "its engines changed lcore 2 times;" <<< "$lanes"
check "two lanes: it joined lane 1 when it reached RTS" \
	grep -qE "QPs joined a lane [1-9]" <<< "$lanes"
check "two lanes: no call came from a wrong lcore" \
	grep -q "calls from a wrong lcore 0$" <<< "$lanes"
echo "$fails check(s) failed"
[ $fails = 0 ]
