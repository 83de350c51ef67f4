#!/usr/bin/env bash
# Integration test: droce-gen --loopback (issue 18 item 3). One droce-gen with two ports on the
# two ends of a veth pair in a namespace of its own (net_af_packet): 20,000 RoCEv2 frames at
# 50,000 a second from port 0 to port 1's address, counted on port 1 from the sequence number
# and TSC they carry. Port 0's TX impairment (the stack's, roce_only: ARP and the rest pass)
# injects one kind of fault per run, and the tool must count exactly what the stack's
# impair_* counters say it injected:
#   - none: nothing lost, duplicated, reordered or bad; a one-way latency is measured;
#   - drop=2%: lost == impair_dropped (> 0), nothing else;
#   - dup=2%: duplicated == impair_duplicated (> 0), nothing lost;
#   - reorder=2%: reordered == impair_reordered, or one less (a frame held at the very end has
#     no follower to swap with and goes out late but in order), nothing lost;
#   - corrupt=1%: lost (a bad ICRC, or a bit the IP/UDP layer refuses) == impair_corrupted but
#     the few flips no check can see (the BTH bits the ICRC masks), at most 5 %;
#   - delay=100%:300us at 5,000 a second: every frame delayed, the smallest one-way latency at
#     least 300 us, nothing lost;
#   - a frame larger than the MTU: exit 1 with a message (not a loop retrying it).
# Usage: gen_loopback.sh PATH/TO/droce-gen      Exit 77 = skipped.
set -u
GEN=$(readlink -f "$1")
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
NS=droce-lb-$$
if ! ip netns add "$NS" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
dir=$(mktemp -d)
cleanup() {
	ip netns del "$NS" 2>/dev/null
	rm -rf "$dir" /var/run/dpdk/droce-lb-$$-*
}
trap cleanup EXIT
ip -n "$NS" link add lbA type veth peer name lbB
ip -n "$NS" link set lbA up
ip -n "$NS" link set lbB up
ip -n "$NS" link set lo up
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

# run NAME IMPAIR ARGS...: droce-gen --loopback with port 0's impair_tx = IMPAIR; NAME.json
run() {
	local name=$1 impair=$2
	shift 2
	cat > "$dir/$name.ini" << EOF
[eal]
lcores = 0
memory = 256
file_prefix = droce-lb-$$-$name
hugepages = no

[port0]
vdev = net_af_packet_a,iface=lbA
ipv4 = 10.66.0.1/24
exception_tap = lbta$$
impair_tx = $impair

[port1]
vdev = net_af_packet_b,iface=lbB
ipv4 = 10.66.0.2/24
exception_tap = lbtb$$
EOF
	timeout 60 ip netns exec "$NS" "$GEN" -c "$dir/$name.ini" --loopback -j -w 1000 "$@" \
		> "$dir/$name.out" 2>&1
	echo $? > "$dir/$name.rc"
	grep '^{"mode":"loopback"' "$dir/$name.out" > "$dir/$name.json"
	echo "# $name ($impair): $(cat "$dir/$name.json")"
}
# judge NAME PYTHON-EXPRESSION: the expression over the run's JSON (j, and i = j["impair_tx"])
judge() {
	[ "$(cat "$dir/$1.rc")" = 0 ] && python3 -c "
import json, sys
j = json.load(open('$dir/$1.json')); i = j['impair_tx']
sys.exit(0 if j['sent'] == $3 and ($2) else 1)"
}
N=20000
run none off -n $N --pps 50000
check "no impairment: all $N arrive once, in order, none bad; a one-way latency measured" \
	judge none "j['lost'] == 0 and j['duplicated'] == 0 and j['reordered'] == 0 and j['bad'] == 0 and j['one_way_ns']['p50'] > 0" $N
run drop "drop=2%,seed=7,roce_only" -n $N --pps 50000
check "drop=2%: lost == impair_dropped > 0, nothing else" \
	judge drop "j['lost'] == i['dropped'] > 0 and j['duplicated'] == 0 and j['reordered'] == 0 and j['bad'] == 0" $N
run dup "dup=2%,seed=8,roce_only" -n $N --pps 50000
check "dup=2%: duplicated == impair_duplicated > 0, nothing lost" \
	judge dup "j['duplicated'] == i['duplicated'] > 0 and j['lost'] == 0 and j['reordered'] == 0 and j['bad'] == 0" $N
run reorder "reorder=2%,seed=9,roce_only" -n $N --pps 50000
check "reorder=2%: reordered == impair_reordered (or one less, a last frame held), nothing lost" \
	judge reorder "0 < i['reordered'] and j['reordered'] in (i['reordered'], i['reordered'] - 1) and j['lost'] == 0 and j['duplicated'] == 0" $N
run corrupt "corrupt=1%,seed=10,roce_only" -n $N --pps 50000
# a flipped bit is seen by the ICRC (bad), by the IP or UDP checks of the stack (never arrives),
# or not at all when it is one of the BTH's FECN/BECN/reserved bits the ICRC masks (8 of the
# frame's ~900 bits after Ethernet): lost counts the first two
check "corrupt=1%: every corrupted frame lost (bad ICRC or refused) but those whose flip no check can see (<= 5 %)" \
	judge corrupt "j['bad'] > 0 and j['lost'] <= i['corrupted'] <= j['lost'] + max(1, i['corrupted'] // 20) and j['duplicated'] == 0" $N
run delay "delay=100%:300us,seed=11,roce_only" -n 2000 --pps 5000
check "delay=100%:300us: every frame delayed, one-way min >= 300 us, nothing lost" \
	judge delay "i['delayed'] == 2000 and j['one_way_ns']['min'] >= 300000 and j['lost'] == 0" 2000
# a frame the port cannot carry (9000 bytes on a 1500-byte MTU) ends the run with a message
# instead of retrying for ever
run big off -n 10 --frame-size 9000
check "--frame-size 9000 over a 1500-byte MTU: exit 1, saying the frame cannot be built" \
	bash -c "[ \$(cat '$dir/big.rc') = 1 ] && grep -q 'cannot build a 9000-byte frame' '$dir/big.out'"
echo "# gen_loopback: $fails failed"
[ "$fails" = 0 ]
