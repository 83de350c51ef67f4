#!/usr/bin/env bash
# Integration test: two droce processes in two network namespaces joined by a veth pair,
# each on net_af_packet with an exception TAP. It checks, in order:
#   1. ARP both ways: each endpoint resolves the other (droce-gen's "resolved" line, and the
#      answering side's arp_reply_tx counter);
#   2. datagrams exchanged both ways over IPv4, and over IPv6 (ND), every byte verified;
#   3. the kernel in each namespace pings the other side's droce IPv4 and IPv6 address
#      through the exception path;
#   4. telemetry counters move as expected (to_kernel / from_kernel grow by the pings,
#      udp_delivered matches the datagrams, no drops);
#   5. tshark decodes the frames on the wire with valid IP/UDP checksums and nothing
#      malformed; and dpdk-dumpcap captures droce's own traffic (when hugepages allow).
# Usage: veth_pair.sh PATH/TO/droce-gen      Exit 77 = skipped (with the reason).
set -u
DROCE_GEN=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
jget() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); k=sys.argv[2].split("."); [d:=d[x] for x in k]; print(d)' "$1" "$2"; }
ge() { [ "$1" -ge "$2" ]; }
eq() { [ "$1" = "$2" ]; }

N=64
lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1

# Wire captures, independent of droce. AF_PACKET's qdisc bypass hides a socket's own
# transmissions from taps on the same veth end, so the capture in A's namespace holds what
# B sent and vice versa: together, every frame both droce endpoints put on the wire.
TSHARKS=()
for pair in "$LAB_NS_A:$LAB_VETH_A:a" "$LAB_NS_B:$LAB_VETH_B:b"; do
	IFS=: read -r ns dev tag <<< "$pair"
	ip netns exec "$ns" timeout 90 tshark -q -i "$dev" -w "$LAB_DIR/wire_$tag.pcapng" \
		-a duration:85 > "$LAB_DIR/tshark_$tag.log" 2>&1 &
	TSHARKS+=($!)
done
for tag in a b; do
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$LAB_DIR/tshark_$tag.log" 2>/dev/null && break
		sleep 0.1
	done
done

# B: echo server on 7000, and a sender to A. A: the same towards B. IPv4 first.
lab_start b "$LAB_NS_B" -e 7000 -p "$LAB_IP4_A:7000" -n $N -s 700 -i 500 -l -1 -j || exit 1
lab_start a "$LAB_NS_A" -e 7000 -p "$LAB_IP4_B:7000" -n $N -s 900 -i 500 -l -1 -j || exit 1
check "A resolves B by ARP" lab_wait_log a "resolved $LAB_IP4_B -> " 15
check "B resolves A by ARP" lab_wait_log b "resolved $LAB_IP4_A -> " 15
check "A's datagrams to B all come back verified" lab_wait_log a "stream complete: $N/$N verified" 30
check "B's datagrams to A all come back verified" lab_wait_log b "stream complete: $N/$N verified" 30

PA=droce_a_$LAB_ID; PB=droce_b_$LAB_ID
before_a=$(lab_telemetry "$PA" /droce/stats)
before_b=$(lab_telemetry "$PB" /droce/stats)
check "telemetry answers on A" test -n "$before_a"
check "telemetry answers on B" test -n "$before_b"
check "B delivered A's datagrams and its echoes to handlers" \
	ge "$(jget "$before_b" /droce/stats.udp_delivered)" $((2 * N))
check "A delivered B's datagrams and its echoes to handlers" \
	ge "$(jget "$before_a" /droce/stats.udp_delivered)" $((2 * N))

# dpdk-dumpcap attaches to A as a secondary process (needs hugepages); start it before pings.
DUMPCAP=
if grep -q -- '--no-huge' "$LAB_DIR/a.log" || ! grep -q hugetlbfs /proc/mounts; then
	echo "note: A runs without hugepages; the dpdk-dumpcap check is skipped"
else
	timeout 30 dpdk-dumpcap --file-prefix="$PA" -i 0 -c 12 -w "$LAB_DIR/pdump.pcapng" -q \
		> "$LAB_DIR/dumpcap.log" 2>&1 &
	DUMPCAP=$!
	sleep 3
fi

# 3. The kernel behind each TAP pings the other side's droce address.
check "kernel in A pings B's IPv4 through the exception path" \
	ip netns exec "$LAB_NS_A" ping -c 3 -i 0.2 -w 15 "$LAB_IP4_B"
check "kernel in B pings A's IPv4 through the exception path" \
	ip netns exec "$LAB_NS_B" ping -c 3 -i 0.2 -w 15 "$LAB_IP4_A"
check "kernel in A pings B's IPv6 through the exception path" \
	ip netns exec "$LAB_NS_A" ping -6 -c 3 -i 0.2 -w 15 "$LAB_IP6_B"
check "kernel in B pings A's IPv6 through the exception path" \
	ip netns exec "$LAB_NS_B" ping -6 -c 3 -i 0.2 -w 15 "$LAB_IP6_A"

after_a=$(lab_telemetry "$PA" /droce/stats)
after_b=$(lab_telemetry "$PB" /droce/stats)
d() { echo $(( $(jget "$2" "/droce/stats.$3") - $(jget "$1" "/droce/stats.$3") )); }
# Each side sent 6 echo requests and answered 6: at least 12 frames each way through the TAP.
check "A: to_kernel grew by the pings (>= 12)" ge "$(d "$before_a" "$after_a" to_kernel)" 12
check "A: from_kernel grew by the pings (>= 12)" ge "$(d "$before_a" "$after_a" from_kernel)" 12
check "B: to_kernel grew by the pings (>= 12)" ge "$(d "$before_b" "$after_b" to_kernel)" 12
check "B: from_kernel grew by the pings (>= 12)" ge "$(d "$before_b" "$after_b" from_kernel)" 12
# During the streams one side may learn the other from its request and never ask itself;
# but each kernel must ARP through its TAP before it pings, and the other droce answers.
check "A answered an ARP request" ge "$(jget "$after_a" /droce/stats.arp_reply_tx)" 1
check "B answered an ARP request" ge "$(jget "$after_b" /droce/stats.arp_reply_tx)" 1
check "A: no frame dropped" eq "$(jget "$after_a" /droce/stats.drops)" 0
check "B: no frame dropped" eq "$(jget "$after_b" /droce/stats.drops)" 0
port_a=$(lab_telemetry "$PA" /droce/port_stats,0)
check "A: per-port stats include the ethdev queue counters" \
	ge "$(jget "$port_a" /droce/port_stats.rxq0_packets)" 1

# 2b. IPv6 datagrams: a second sender run from B to A over ND-resolved addresses is not
# possible while B owns its port, so stop both and run a v6 sender against A's echo server.
lab_stop a; rc_a=$?
lab_stop b; rc_b=$?
check "A exits 0 (all its datagrams verified)" eq $rc_a 0
check "B exits 0 (all its datagrams verified)" eq $rc_b 0
check "A's JSON result says $N verified, 0 corrupt" \
	grep -q "\"verified\":$N,\"corrupt\":0" "$LAB_DIR/a.log"
check "B's JSON result says $N verified, 0 corrupt" \
	grep -q "\"verified\":$N,\"corrupt\":0" "$LAB_DIR/b.log"

lab_start a "$LAB_NS_A" -e 7000 -l -1 || exit 1
lab_start b "$LAB_NS_B" -p "[$LAB_IP6_A]:7000" -n $N -s 1200 -i 200 -j || exit 1
check "B resolves A's IPv6 address by ND" lab_wait_log b "resolved $LAB_IP6_A -> " 15
check "IPv6 datagrams B->A all come back verified" lab_wait_log b "stream complete: $N/$N verified" 30
lab_stop b; check "B (IPv6 sender) exits 0" eq $? 0
lab_stop a

if [ -n "$DUMPCAP" ]; then
	wait "$DUMPCAP"
	n=$(tshark -r "$LAB_DIR/pdump.pcapng" 2>/dev/null | wc -l)
	check "dpdk-dumpcap captured droce's traffic ($n frames)" ge "$n" 1
fi

sleep 1
for t in "${TSHARKS[@]}"; do kill -INT "$t" 2>/dev/null; done
wait "${TSHARKS[@]}" 2>/dev/null
# port 7000 is AFS to tshark; ours is plain data
tsk() {
	local f
	for f in "$LAB_DIR"/wire_a.pcapng "$LAB_DIR"/wire_b.pcapng; do
		tshark -r "$f" -d udp.port==7000,data -o ip.check_checksum:TRUE \
			-o udp.check_checksum:TRUE "$@" 2>/dev/null
	done
}
nudp=$(tsk -Y "udp.port == 7000" | wc -l)
check "tshark saw every datagram and echo on the wire ($nudp of $((6 * N)))" ge "$nudp" $((6 * N))
narp=$(tsk -Y "arp.opcode == 2 && (arp.src.proto_ipv4 == $LAB_IP4_A || arp.src.proto_ipv4 == $LAB_IP4_B)" | wc -l)
check "tshark decodes droce's ARP replies ($narp)" ge "$narp" 2
nna=$(tsk -Y "icmpv6.type == 136 && (icmpv6.nd.na.target_address == $LAB_IP6_A || icmpv6.nd.na.target_address == $LAB_IP6_B)" | wc -l)
check "tshark decodes droce's neighbour advertisements ($nna)" ge "$nna" 1
ntot=$(tsk | wc -l)
bad=$(tsk -Y "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0 || udp.checksum.status == 0 || icmpv6.checksum.status == 0" | wc -l)
check "none of the $ntot frames on the wire is malformed or has a bad checksum" eq "$bad" 0
[ "$bad" = 0 ] || tsk -Y "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0 || udp.checksum.status == 0" | head

echo "$fails check(s) failed"
[ $fails = 0 ]
