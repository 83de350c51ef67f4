#!/usr/bin/env bash
# Integration test: droce's librdmacm example tools against themselves, in two network
# namespaces joined by a veth pair of MTU 1500 (path MTU 1024), on net_af_packet:
#  - the originals' option handling without a stack: a bad option prints the usage, exits 1;
#    no configuration exits 22;
#  - droce-rdma-server in B, droce-rdma-client in A: both print exactly "rdma_xxx: start" and
#    "rdma_xxx: end 0" and exit 0 (a 16-byte inline SEND each way); again with -p 7999; a
#    client to a port nobody listens on: "rdma_connect: Connection refused", end -1, exit 255;
#  - droce-udaddy: one node with udaddy's defaults (-C 10 -S 100), then -c 20 -S 1024: both
#    sides print udaddy's lines and return status 0; -S 2000 is refused as the original does
#    ("larger than active mtu 1024", return status -22);
#  - droce-ucmatose: -c 10 with the defaults (-C 10 -S 100), then -c 1000 -r (-C 10: ten
#    thousand SENDs posted at once each way, more than the peer's 512-frame af_packet ring
#    takes, so it also proves that QPs which lost the same burst do not retry in lockstep
#    until RETRY_EXC_ERR): every connection up at once, all disconnected; both sides print
#    ucmatose's lines and return status 0, and the QPs, CQs, MRs, CM identifiers and in-use
#    mbufs at the end are those at the start (printed by both, asserted here and by -r);
#  - tshark over a capture of A's veth: every RoCE frame decodes, none malformed, every ICRC
#    verifies (tests/interop/wire_check.py; A is "droce", B "peer"); the SIDR_REQ/SIDR_REP
#    MADs are there (21 each), and at least a ConnectRequest for each RC connection of
#    rdma_xxx and ucmatose (1 + 1 + 1 + 10 + 1000; cmtime's bursts add theirs and resends).
#  - droce-cmtime -c 100 and -c 1000: the client prints cmtime's table of seven steps and
#    exits 0; the server ends on SIGTERM with 143;
# Usage: cmtools_veth.sh RDMA_SERVER RDMA_CLIENT UDADDY UCMATOSE [CMTIME]   Exit 77 = skipped.
set -u
SRV=$(readlink -f "$1")
CLI=$(readlink -f "$2")
UDADDY=$(readlink -f "$3")
UCMA=$(readlink -f "$4")
CMTIME=$([ -n "${5:-}" ] && readlink -f "$5")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
mkdir -p "$LAB_DIR"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
T0=$(date +%s)

# ---- the originals' option handling, no stack needed
for t in "$SRV -x" "$CLI -x" "$UDADDY -x" "$UCMA -x"; do
	out=$($t 2>&1); rc=$?
	grep -q "^usage: " <<< "$out" || rc="$rc, no usage"
	t=${t##*/}
	check "${t%% *}: usage and exit 1 ($rc)" [ "$rc" = 1 ]
done
out=$(env -u DROCE_CONF "$UCMA" 2>&1); rc=$?
grep -q "no droce configuration" <<< "$out" || rc="$rc, without saying why"
check "droce-ucmatose without a configuration: says so, exit 22 ($rc)" [ "$rc" = 22 ]

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
if ! command -v tshark > /dev/null; then echo "SKIP: needs tshark"; exit 77; fi
trap lab_down EXIT
lab_up
ip netns exec "$LAB_NS_A" ip link set "$LAB_VETH_A" mtu 1500
ip netns exec "$LAB_NS_B" ip link set "$LAB_VETH_B" mtu 1500
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
# droce's af_packet port bypasses the qdisc, so a capture sees what arrives at its veth end:
# one capture per end, merged for the checks
TSHARKS=()
for pair in "$LAB_NS_A:$LAB_VETH_A:a" "$LAB_NS_B:$LAB_VETH_B:b"; do
	IFS=: read -r ns dev tag <<< "$pair"
	ip netns exec "$ns" timeout 280 tshark -q -B 64 -F pcap -i "$dev" -f "udp port 4791" \
		-w "$LAB_DIR/cm_$tag.pcap" > "$LAB_DIR/tshark_$tag.log" 2>&1 &
	TSHARKS+=($!)
done
for tag in a b; do
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$LAB_DIR/tshark_$tag.log" 2>/dev/null && break
		sleep 0.1
	done
done

# lines FILE: FILE without the EAL's, the drivers' and the stack's log lines
lines() {
	grep -avE '^(EAL|TELEMETRY|droce\.[a-z]+): |^[A-Za-z_0-9]+\(\): |^droce-[a-z]+: resources' "$1"
}

# pair NAME SERVER_CMD... -- CLIENT_CMD...: the server in B, then (once its CM listens: a
# second) the client in A; sets RC_S and RC_C; output in $LAB_DIR/NAME.{srv,cli}.{out,err}
pair() {
	local name=$1 s=() c=() i
	shift
	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	c=("$@")
	ip netns exec "$LAB_NS_B" timeout 120 "${s[0]}" --config "$LAB_DIR/b.ini" "${s[@]:1}" \
		> "$LAB_DIR/$name.srv.out" 2> "$LAB_DIR/$name.srv.err" &
	local spid=$!
	LAB_PIDS+=($spid)
	for ((i = 0; i < 100; i++)); do
		grep -q "port0: port 0" "$LAB_DIR/$name.srv.err" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
	DROCE_CONF="$LAB_DIR/a.ini" ip netns exec "$LAB_NS_A" timeout 120 "${c[@]}" \
		> "$LAB_DIR/$name.cli.out" 2> "$LAB_DIR/$name.cli.err"
	RC_C=$?
	wait $spid
	RC_S=$?
}

show() {
	local f
	for f in "$LAB_DIR/$1".{srv,cli}.{out,err}; do
		echo "# ${f##*/}:"; lines "$f" | tail -n 8 | sed 's/^/#   /'
	done
}

# ---- rdma_server / rdma_client
for port in "" 7999; do
	p=(); [ -n "$port" ] && p=(-p "$port")
	pair ep$port "$SRV" "${p[@]}" -- "$CLI" -s "$LAB_IP4_B" "${p[@]}"
	check "rdma_server <- rdma_client ${p[*]}: both exit 0 (server $RC_S, client $RC_C)" \
		[ "$RC_S/$RC_C" = 0/0 ]
	check "... their output is the originals' start/end 0 lines" \
		[ "$(lines "$LAB_DIR/ep$port.srv.out")|$(lines "$LAB_DIR/ep$port.cli.out")" = \
			"$(printf 'rdma_server: start\nrdma_server: end 0')|$(printf 'rdma_client: start\nrdma_client: end 0')" ]
	[ "$RC_S/$RC_C" = 0/0 ] || show ep$port
done
# a server on 7471 makes B's CM answer; the client asks for 7998
ip netns exec "$LAB_NS_B" timeout 60 "$SRV" --config "$LAB_DIR/b.ini" > "$LAB_DIR/eprej.srv.out" \
	2> "$LAB_DIR/eprej.srv.err" &
spid=$!
LAB_PIDS+=($spid)
for ((i = 0; i < 100; i++)); do
	grep -q "port0: port 0" "$LAB_DIR/eprej.srv.err" 2>/dev/null && break
	sleep 0.1
done
sleep 1
DROCE_CONF="$LAB_DIR/a.ini" ip netns exec "$LAB_NS_A" timeout 60 "$CLI" -s "$LAB_IP4_B" -p 7998 \
	> "$LAB_DIR/eprej.out" 2> "$LAB_DIR/eprej.err"
rc=$?
kill -TERM $spid
wait $spid
rs=$?
check "rdma_server that nobody reached ends on SIGTERM with 143 ($rs)" [ "$rs" = 143 ]
got="$rc/$(lines "$LAB_DIR/eprej.out" | tail -1)/$(lines "$LAB_DIR/eprej.err" | tail -1)"
check "rdma_client to a port nobody listens on: Connection refused, end -1, exit 255 ($got)" \
	[ "$got" = "255/rdma_client: end -1/rdma_connect: Connection refused" ]

# ---- udaddy
UD_SRV=$'udaddy: starting server\nreceiving data transfers\nsending replies\ndata transfers complete\ntest complete\nreturn status 0'
UD_CLI=$'udaddy: starting client\nudaddy: connecting\ninitiating data transfers\nreceiving data transfers\ndata transfers complete\ntest complete\nreturn status 0'
for args in "" "-c 20 -S 1024"; do
	pair ud "$UDADDY" $args -- "$UDADDY" -s "$LAB_IP4_B" $args
	check "udaddy ${args:-(defaults)}: both exit 0 (server $RC_S, client $RC_C)" [ "$RC_S/$RC_C" = 0/0 ]
	check "... both print udaddy's lines" \
		[ "$(lines "$LAB_DIR/ud.srv.out")|$(lines "$LAB_DIR/ud.cli.out")" = "$UD_SRV|$UD_CLI" ]
	[ "$RC_S/$RC_C" = 0/0 ] || show ud
done
out=$(ip netns exec "$LAB_NS_A" timeout 60 "$UDADDY" --config "$LAB_DIR/a.ini" -s "$LAB_IP4_B" \
	-S 2000 2> /dev/null); rc=$?
grep -q "^udaddy: message_size 2000 is larger than active mtu 1024$" <<< "$out" || rc="$rc, no message"
grep -q "^return status -22$" <<< "$out" || rc="$rc, no return status -22"
check "udaddy -S 2000: larger than active mtu 1024, return status -22, exit 234 ($rc)" [ "$rc" = 234 ]

# ---- ucmatose
UC_SRV=$'cmatose: starting server\ninitiating data transfers\ncompleting sends\nreceiving data transfers\ndata transfers complete\ncmatose: disconnecting\ndisconnected\ntest complete\nreturn status 0'
UC_CLI=$'cmatose: starting client\ncmatose: connecting\nreceiving data transfers\nsending replies\ndata transfers complete\ntest complete\nreturn status 0'
for args in "-c 10" "-c 1000 -r"; do
	t0=$(date +%s)
	pair uc "$UCMA" $args -- "$UCMA" -s "$LAB_IP4_B" $args
	t=$(($(date +%s) - t0))
	check "ucmatose $args: both exit 0 (server $RC_S, client $RC_C) in $t s" [ "$RC_S/$RC_C" = 0/0 ]
	check "... both print ucmatose's lines" \
		[ "$(lines "$LAB_DIR/uc.srv.out")|$(lines "$LAB_DIR/uc.cli.out")" = "$UC_SRV|$UC_CLI" ]
	for side in srv cli; do
		s=$(grep -a "resources at start" "$LAB_DIR/uc.$side.err" | sed 's/.*start: //')
		e=$(grep -a "resources at end" "$LAB_DIR/uc.$side.err" | sed 's/.*end: //')
		echo "# ucmatose $args $side: start: $s; end: $e"
		check "... $side: QPs, CQs, MRs, CM ids, mbufs at the end as at the start" \
			[ "${s:-none}" = "$e" ]
	done
	[ "$RC_S/$RC_C" = 0/0 ] || show uc
done

# ---- cmtime: the server serves until stopped; the client prints cmtime's table
if [ -n "$CMTIME" ]; then
	for c in 100 1000; do
		ip netns exec "$LAB_NS_B" timeout 120 "$CMTIME" --config "$LAB_DIR/b.ini" \
			> "$LAB_DIR/ct.srv.out" 2> "$LAB_DIR/ct.srv.err" &
		spid=$!
		LAB_PIDS+=($spid)
		for ((i = 0; i < 100; i++)); do
			grep -q "port0: port 0" "$LAB_DIR/ct.srv.err" 2>/dev/null && break
			sleep 0.1
		done
		sleep 1
		ip netns exec "$LAB_NS_A" timeout 100 "$CMTIME" --config "$LAB_DIR/a.ini" \
			-s "$LAB_IP4_B" -c $c > "$LAB_DIR/ct.cli.out" 2> "$LAB_DIR/ct.cli.err"
		rc=$?
		kill -TERM $spid
		wait $spid
		rs=$?
		lines "$LAB_DIR/ct.cli.out" | sed 's/^/# /'
		steps=$(lines "$LAB_DIR/ct.cli.out" | grep -c '^[a-z ]*: *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]*$')
		check "cmtime -c $c: exit 0 ($rc), the table's 7 steps ($steps), the server ends on SIGTERM ($rs)" \
			[ "$rc/$steps/$rs" = 0/7/143 ]
	done
fi

sleep 1
kill -INT "${TSHARKS[@]}" 2>/dev/null
wait "${TSHARKS[@]}" 2>/dev/null
mergecap -F pcap -w "$LAB_DIR/cmtools.pcap" "$LAB_DIR/cm_a.pcap" "$LAB_DIR/cm_b.pcap"
mac=$(grep -aom1 "port0: port 0 [0-9A-Fa-f:]*" "$LAB_DIR/uc.cli.err" | awk '{print $4}')
python3 "$HERE/../interop/wire_check.py" "$LAB_DIR/cmtools.pcap" "$mac" | tail -n 12
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ "${PIPESTATUS[0]}" = 0 ]
n_sreq=$(tshark -r "$LAB_DIR/cmtools.pcap" -Y "infiniband.mad.attributeid == 0x0017" 2>/dev/null | wc -l)
n_srep=$(tshark -r "$LAB_DIR/cmtools.pcap" -Y "infiniband.mad.attributeid == 0x0018" 2>/dev/null | wc -l)
n_req=$(tshark -r "$LAB_DIR/cmtools.pcap" -Y "infiniband.mad.attributeid == 0x0010" 2>/dev/null | wc -l)
check "wire: 21 SIDR_REQ and 21 SIDR_REP (udaddy -c 1, -c 20; got $n_sreq/$n_srep)" \
	[ "$n_sreq/$n_srep" = 21/21 ]
check "wire: a ConnectRequest per RC connection, at least 1013 (got $n_req; cmtime's bursts are resent)" [ "$n_req" -ge 1013 ]

echo "# cmtools_veth took $(($(date +%s) - T0)) s; $fails check(s) failed"
[ $fails = 0 ]
