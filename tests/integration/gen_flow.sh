#!/usr/bin/env bash
# Integration test: droce-gen --flow (issue 18 item 1), droce's RC QPs as the requester of
# flows towards a perftest server: droce-perf serves ib_write_bw / ib_read_bw (-q N) in
# namespace B, droce-gen in namespace A connects to it through perftest's TCP exchange with the
# keys of its own QPs (docs/gen.md). Checked from droce-gen's JSON and the wire:
#   1. write, 2 QPs x depth 8, sizes 64:1,4096:2,65536:1 for 2 s: exit 0, both QPs moved
#      data, bytes between 64 and 65536 per message, ACKs received, no error; droce-perf
#      finishes perftest's exchange (exit 0); DSCP 46 and ECN 1 on the QPs' frames (tshark on
#      B's veth end);
#   2. read, 1 QP, 64 KiB: exit 0, data moved, no error;
#   3. pacing: 1 KiB WRITEs at --pps 2000 for 2 s never exceed the rate (10 % margin), and
#      1 KiB at --gbps 0.02 never exceed 20 Mbit/s; both moved data;
#   4. loss: A's RoCE frames dropped 2 % by the stack's impairment: exit 0, retransmissions
#      and NAK-sequence-errors (or timeouts) reported, no error completion;
#   5. bad arguments exit 2 with a message.
# Usage: gen_flow.sh PATH/TO/droce-gen PATH/TO/droce-perf      Exit 77 = skipped.
set -u
GEN=$(readlink -f "$1")
PERF=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

"$GEN" -c /nonexistent --flow nosuch -p 10.0.0.1:18515 > /dev/null 2> "$LAB_DIR/err"
check "an unknown verb exits 2 naming what is accepted" \
	eval '[ $? = 2 ] && grep -q "expected write" "$LAB_DIR/err"'
"$GEN" -c /nonexistent --flow write -p 10.0.0.1:18515 --sizes 0 > /dev/null 2> "$LAB_DIR/err"
check "a size of 0 is refused (exit 2)" eval '[ $? = 2 ] && grep -q "sizes 0" "$LAB_DIR/err"'
"$GEN" -c /nonexistent --flow write -p 10.0.0.1:18515 --pps 10 --gbps 1 > /dev/null 2> "$LAB_DIR/err"
check "--pps with --gbps is refused (exit 2)" eval '[ $? = 2 ] && grep -q "not both" "$LAB_DIR/err"'
"$GEN" -c /nonexistent --flow write -p 10.0.0.1:18515 --sizes 64, > /dev/null 2> "$LAB_DIR/err"
check "a trailing comma in --sizes is refused (exit 2)" [ $? = 2 ]
"$GEN" -c /nonexistent -e 7 --qps 2 > /dev/null 2> "$LAB_DIR/err"
check "--qps without --flow is refused (exit 2)" eval '[ $? = 2 ] && grep -q "go with --flow" "$LAB_DIR/err"'

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
cp "$LAB_DIR/a.ini" "$LAB_DIR/a-lossy.ini"
sed -i 's/^\(exception_tap = .*\)$/\1\nimpair_tx = drop=2%,seed=7,roce_only/' "$LAB_DIR/a-lossy.ini"

# flow NAME SERVER_TEST SERVER_ARGS -- GEN_ARGS...: droce-perf serves in B, droce-gen runs in A
# (JSON in NAME.json); sets RC (droce-gen) and SRC (droce-perf)
flow() {
	local name=$1 test=$2 sargs=$3 ini=a.ini i
	shift 4
	[ "${FLOW_INI:-}" ] && ini=$FLOW_INI
	# shellcheck disable=SC2086 # sargs: the server's options
	ip netns exec "$LAB_NS_B" timeout 60 "$PERF" "$test" $sargs -n 5 -F \
		--droce-config="$LAB_DIR/b.ini" > "$LAB_DIR/$name.srv" 2>&1 &
	local srv=$!
	for ((i = 0; i < 150; i++)); do
		grep -q "Waiting for client to connect" "$LAB_DIR/$name.srv" 2>/dev/null && break
		sleep 0.1
	done
	ip netns exec "$LAB_NS_A" timeout 60 "$GEN" -c "$LAB_DIR/$ini" -j -p "$LAB_IP4_B:18515" \
		"$@" > "$LAB_DIR/$name.json" 2> "$LAB_DIR/$name.err"
	RC=$?
	wait $srv
	SRC=$?
	echo "# $name: droce-gen exit $RC, droce-perf exit $SRC"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('#  ', {k: d[k] for k in ('messages','bytes','gbps','errors','seconds')}); [print('#    qp', q) for q in d['per_qp']]" "$LAB_DIR/$name.json" 2>/dev/null
	[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LAB_DIR/$name.err" | head -5 | sed 's/^/#   /'
}
# js NAME EXPR: a Python expression over the JSON d (and its per-QP list q) is true
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); q=d['per_qp']; sys.exit(0 if ($2) else 1)" "$LAB_DIR/$1.json"; }

# 1. write, a size mix, DSCP/ECN on the wire
cap=""
if command -v tshark > /dev/null; then
	cap=$LAB_DIR/w.pcap
	ip netns exec "$LAB_NS_B" timeout 20 tshark -q -i "$LAB_VETH_B" -f "udp dst port 4791" \
		-c 200 -a duration:15 -w "$cap" > "$LAB_DIR/tshark.log" 2>&1 &
	tsh=$!
	for ((i = 0; i < 50; i++)); do
		grep -q "Capturing on" "$LAB_DIR/tshark.log" 2>/dev/null && break
		sleep 0.1
	done
fi
flow w write_bw "-q 2 -s 65536" -- --flow write --qps 2 --depth 8 --seconds 2 \
	--sizes 64:1,4096:2,65536:1 --dscp 46 --ecn 1
check "write: droce-gen exits 0 and droce-perf finishes perftest's exchange (exit 0)" [ "$RC/$SRC" = 0/0 ]
check "write: both QPs moved data, 64..65536 B a message, ACKs received, no error" \
	js w "len(q) == 2 and all(x['messages'] > 0 and 64 * x['messages'] <= x['bytes'] <= 65536 * x['messages'] and x['acks_rx'] > 0 and x['errors'] == 0 for x in q)"
# the mix 64:1,4096:2,65536:1 averages 18448 bytes a message
check "write: the sizes are drawn by weight (18448 bytes a message on average, within 25 %)" \
	js w "13836 <= d['bytes'] / d['messages'] <= 23060"
check "write: the totals are the sum of the QPs'" \
	js w "d['messages'] == sum(x['messages'] for x in q) and d['bytes'] == sum(x['bytes'] for x in q) and d['errors'] == 0"
if [ -n "$cap" ]; then
	wait $tsh 2>/dev/null
	sed 's/^/#   tshark: /' "$LAB_DIR/tshark.log" | tail -2
	marks=$(tshark -r "$cap" -Y "ip.src == $LAB_IP4_A && udp.dstport == 4791" -T fields \
		-e ip.dsfield.dscp -e ip.dsfield.ecn 2>/dev/null | sort | uniq -c)
	echo "# write: the QPs' frames' DSCP/ECN: $(echo $marks)"
	check "write: every frame of the QPs carries DSCP 46 and ECN 1" \
		eval '[ "$(echo "$marks" | grep -c .)" = 1 ] && [ "$(echo $marks | awk "{ print \$2, \$3 }")" = "46 1" ]'
fi

# 2. read
flow r read_bw "-q 1 -s 65536" -- --flow read --qps 1 --depth 4 --seconds 2 --sizes 64k
check "read: exit 0 on both sides" [ "$RC/$SRC" = 0/0 ]
check "read: 64 KiB READs completed whole (each completion's byte count), no error" \
	js r "q[0]['messages'] > 0 and q[0]['bytes'] == 65536 * q[0]['messages'] and q[0]['short_reads'] == 0 and q[0]['errors'] == 0"

# 3. pacing: an upper bound (a slow machine only lowers the rate), and some progress
flow pps write_bw "-q 1 -s 4096" -- --flow write --qps 1 --seconds 2 --sizes 1k --pps 2000
check "--pps 2000: exit 0 on both sides" [ "$RC/$SRC" = 0/0 ]
check "--pps 2000: at most 2200 packets a second, and some sent" \
	js pps "0 < d['messages'] and d['messages'] / d['seconds'] <= 2200"
flow gbps write_bw "-q 1 -s 4096" -- --flow write --qps 1 --seconds 2 --sizes 1k --gbps 0.02
check "--gbps 0.02: exit 0 on both sides" [ "$RC/$SRC" = 0/0 ]
check "--gbps 0.02: at most 22 Mbit/s of payload, and some sent" \
	js gbps "0 < d['bytes'] and d['bytes'] * 8 / d['seconds'] <= 22e6"

# 4. loss: retransmissions reported, no error
FLOW_INI=a-lossy.ini flow loss write_bw "-q 2 -s 65536" -- --flow write --qps 2 --depth 8 \
	--seconds 2 --sizes 4k
check "loss 2 %: exit 0 on both sides" [ "$RC/$SRC" = 0/0 ]
check "loss 2 %: retransmissions and NAK-sequence-errors or timeouts reported, data moved, no error" \
	js loss "sum(x['retransmits'] for x in q) > 0 and sum(x['nak_seq_rx'] + x['timeouts'] for x in q) > 0 and all(x['messages'] > 0 and x['errors'] == 0 for x in q)"
echo "# gen_flow: $SECONDS s"
[ $fails = 0 ]
