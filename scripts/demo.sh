#!/usr/bin/env bash
# scripts/demo.sh - the README's main command (for now: the packet-layer demo).
# Sets up the machine, builds droce, then runs two droce endpoints in two network namespaces
# joined by a veth pair and shows them resolving each other (ARP and ND), exchanging
# verified datagrams, and the kernel in each namespace pinging the other's droce address
# through the exception TAP. Telemetry counters are printed at the end. Takes ~30 s.
set -u
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (namespaces, veth, TAP, hugepages): sudo $0" >&2
	exit 1
fi
bash scripts/setup.sh || exit 1
if [ ! -f build/build.ninja ]; then meson setup build >/dev/null || exit 1; fi
ninja -C build >/dev/null || { ninja -C build; exit 1; }

DROCE_GEN=$(pwd)/build/apps/droce-gen
. scripts/lab.sh
trap lab_down EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
say "two namespaces, $LAB_NS_A and $LAB_NS_B, joined by veth $LAB_VETH_A <-> $LAB_VETH_B"
echo "droce A: $LAB_IP4_A $LAB_IP6_A on net_af_packet($LAB_VETH_A), kernel side on TAP $LAB_TAP_A"
echo "droce B: $LAB_IP4_B $LAB_IP6_B on net_af_packet($LAB_VETH_B), kernel side on TAP $LAB_TAP_B"

say "starting both endpoints: each echoes UDP/7000 and sends 20 datagrams to the other"
lab_start b "$LAB_NS_B" -e 7000 -p "$LAB_IP4_A:7000" -n 20 -s 512 -i 2000 -l -1 -j || exit 1
lab_start a "$LAB_NS_A" -e 7000 -p "$LAB_IP4_B:7000" -n 20 -s 512 -i 2000 -l -1 -j || exit 1
lab_wait_log a "stream complete" 30 && lab_wait_log b "stream complete" 30 || exit 1
for n in a b; do
	echo "droce $(echo $n | tr ab AB):"
	grep -E "neighbour|resolved|stream complete" "$LAB_DIR/$n.log" | sed 's/^/  /'
done

say "the kernel in $LAB_NS_A pings droce B, through A's exception TAP and B's"
ip netns exec "$LAB_NS_A" ping -c 3 -i 0.3 "$LAB_IP4_B"
ip netns exec "$LAB_NS_A" ping -6 -c 3 -i 0.3 "$LAB_IP6_B"
say "the kernel in $LAB_NS_B pings droce A"
ip netns exec "$LAB_NS_B" ping -c 3 -i 0.3 "$LAB_IP4_A"
say "the kernels' neighbour tables (learnt through the TAPs)"
ip netns exec "$LAB_NS_A" ip neigh show dev "$LAB_TAP_A"
ip netns exec "$LAB_NS_B" ip neigh show dev "$LAB_TAP_B"

say "telemetry (dpdk-telemetry.py -f droce_a_$LAB_ID, command /droce/stats)"
for n in a b; do
	lab_telemetry "droce_${n}_$LAB_ID" /droce/stats | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())["/droce/stats"]
keys = ["rx_pkts", "tx_pkts", "rx_arp", "arp_reply_tx", "rx_nd", "nd_advert_tx",
        "udp_delivered", "to_kernel", "from_kernel", "neigh_learned", "drops"]
print("  droce '"$(echo $n | tr ab AB)"': " + "  ".join(f"{k}={d[k]}" for k in keys))'
done

say "stopping"
lab_stop a; ra=$?
lab_stop b; rb=$?
for n in a b; do grep -E '^\{' "$LAB_DIR/$n.log" | sed "s/^/  droce $(echo $n | tr ab AB) result: /"; done
if [ $ra = 0 ] && [ $rb = 0 ]; then say "demo OK"; else say "demo FAILED"; exit 1; fi
