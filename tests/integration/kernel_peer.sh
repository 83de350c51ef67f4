#!/usr/bin/env bash
# Integration test: droce against the Linux network stack as its peer. droce's data port is
# a net_tap whose kernel side (in a fresh namespace) plays the other host. A Python client
# in that namespace sends UDP datagrams over IPv4 and IPv6 from several source ports; droce
# echoes them. The kernel verifies droce's IP/UDP checksums (it silently drops bad ones) and
# resolves droce by ARP and ND, so each verified echo proves droce's framing is acceptable
# to Linux. droce runs two lcores with two queues, so flows land on both lcores and the
# neighbour fan-out between lcores is exercised.
# Usage: kernel_peer.sh PATH/TO/droce-gen      Exit 77 = skipped (with the reason).
set -u
DROCE_GEN=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
if ! command -v python3 >/dev/null; then echo "SKIP: needs python3"; exit 77; fi

NS=drK$LAB_ID
TAP=dtk$LAB_ID
cleanup() {
	lab_down
	ip netns del "$NS" 2>/dev/null
	rm -rf "/var/run/dpdk/droce_k_$LAB_ID"
}
trap cleanup EXIT
ip netns add "$NS"
ip netns exec "$NS" ip link set lo up

cat > "$LAB_DIR/k.ini" <<INI
[eal]
lcores = 0-1
memory = 128
file_prefix = droce_k_$LAB_ID
hugepages = ${LAB_HUGEPAGES:-auto}
[port0]
vdev = net_tap_k$LAB_ID,iface=$TAP
ipv4 = 10.88.0.1/24
ipv6 = fd88::1/64
INI
LAB_PID_k=
ip netns exec "$NS" "$DROCE_GEN" -c "$LAB_DIR/k.ini" -e 7000 -l -1 > "$LAB_DIR/k.log" 2>&1 &
LAB_PID_k=$!
LAB_PIDS+=($LAB_PID_k)
lab_wait_log k 'droce-gen: ready' 20 || exit 1
# the kernel side of droce's TAP is the peer host
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$TAP.accept_dad=0"
ip netns exec "$NS" ip addr add 10.88.0.2/24 dev "$TAP"
ip netns exec "$NS" ip addr add fd88::2/64 dev "$TAP" nodad
ip netns exec "$NS" ip link set "$TAP" up

fails=0
ip netns exec "$NS" timeout 60 python3 - > "$LAB_DIR/client.log" 2>&1 <<'PY'
import os, socket, sys, time
fails = 0
for fam, dst in ((socket.AF_INET, "10.88.0.1"), (socket.AF_INET6, "fd88::1")):
    socks = [socket.socket(fam, socket.SOCK_DGRAM) for _ in range(8)]
    sent = ok = 0
    for s in socks:
        s.settimeout(3.0)
    for rnd in range(16):
        for i, s in enumerate(socks):
            size = 1 + (rnd * 8 + i) * 11 % 1400
            data = os.urandom(size)
            s.sendto(data, (dst, 7000))
            sent += 1
            try:
                got, src = s.recvfrom(2048)
                if got == data and src[1] == 7000:
                    ok += 1
                else:
                    print(f"{dst}: echo differs (len {len(got)} vs {size})")
            except socket.timeout:
                print(f"{dst}: no echo for a {size}-byte datagram")
    print(f"{dst}: {ok}/{sent} echoes verified")
    fails += sent - ok
sys.exit(1 if fails else 0)
PY
rc=$?
cat "$LAB_DIR/client.log"
if [ $rc = 0 ]; then echo "ok   - Linux's UDP sockets get every datagram back intact over IPv4 and IPv6"
else echo "FAIL - Linux's UDP sockets did not get every echo"; fails=$((fails + 1)); fi

if ip netns exec "$NS" ip neigh show 10.88.0.1 | grep -q lladdr; then
	echo "ok   - the kernel resolved droce's IPv4 address by ARP"
else echo "FAIL - no ARP entry for droce in the kernel"; fails=$((fails + 1)); fi
if ip netns exec "$NS" ip -6 neigh show fd88::1 | grep -q lladdr; then
	echo "ok   - the kernel resolved droce's IPv6 address by ND"
else echo "FAIL - no ND entry for droce in the kernel"; fails=$((fails + 1)); fi
bad=$(ip netns exec "$NS" awk '/^Udp:/ {n++; if (n == 2) print $4 + $7}' /proc/net/snmp)
if [ "${bad:-1}" = 0 ]; then echo "ok   - the kernel counted no UDP checksum or length error"
else echo "FAIL - kernel UDP InErrors+InCsumErrors = $bad"; fails=$((fails + 1)); fi

stats=$(lab_telemetry "droce_k_$LAB_ID" /droce/stats)
n_lcores=$(lab_telemetry "droce_k_$LAB_ID" /droce/neigh_count | python3 -c 'import json,sys; print(len(json.loads(sys.stdin.read())["/droce/neigh_count"]))')
if [ "$n_lcores" = 2 ]; then echo "ok   - droce runs two lcores"
else echo "FAIL - droce runs $n_lcores lcores, want 2"; fails=$((fails + 1)); fi
# Without an exception path, the kernel's own multicast chatter (router solicitations, MLD)
# has nowhere to go and is counted as no_exception_path; nothing may drop for another reason.
other=$(echo "$stats" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read())["/droce/stats"]; print(d["drops"] - d["drop_no_exception_path"])')
if [ "$other" = 0 ]; then echo "ok   - droce dropped nothing but exception-path traffic"
else echo "FAIL - droce dropped $other frames for other reasons: $stats"; fails=$((fails + 1)); fi
lab_stop k
echo "$fails check(s) failed"
[ $fails = 0 ]
