#!/usr/bin/env bash
# Integration test: droce-perf against itself, in two network namespaces joined by a veth pair
# (net_af_packet), as perftest runs between two hosts. Every test (write_bw, read_bw, send_bw,
# atomic_bw with FETCH_AND_ADD and CMP_AND_SWAP, write_lat, read_lat, send_lat) runs twice:
# with perftest's TCP exchange (kernel sockets through each side's exception TAP) and with -R
# (rdma_cm connects a comm QP and the test QPs; the exchange goes over the comm QP). Then
# -q 4, -a (all sizes 2..2^23), -D, --report_gbits, -m and --inline_size, and a link named
# ib_<test>. For each run: both sides exit 0 within their timeout; the result table has
# perftest's header and one line per size with the size and iteration count asked for and
# non-zero bandwidth or latency; --out_json and --droce-percentiles (pct.send_lat); each side's "remote address" QPN and PSN are the other's
# "local address" ones; and with --droce-verify (patterned buffers: what arrived is checked
# byte for byte, atomics by their counts) both sides report "0 differ".
# Usage: perf_veth.sh PATH/TO/droce-perf      Exit 77 = skipped (with the reason).
set -u
PERF=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
N=${PERF_ITERS:-20}
fails=0
T0=$SECONDS
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

# options that need no stack
"$PERF" write_bw --help | grep -q -- "--droce-config" && "$PERF" write_bw --help | grep -q -- "--rdma_cm"
check "--help lists perftest's options and --droce-config" [ $? = 0 ]
check "-V reports perftest's version 6.06" [ "$("$PERF" read_lat -V)" = "Version: 6.06" ]
"$PERF" no_such_test --droce-config=/nonexistent > /dev/null 2>&1
check "an unknown test is refused (exit 2)" [ $? = 2 ]
"$PERF" atomic_bw --droce-config=/nonexistent -a 2>&1 | grep -q "Message size cannot be changed for Atomic tests"
check "atomic_bw refuses -a as perftest does" [ $? = 0 ]
"$PERF" write_bw --droce-config=/nonexistent -q 2 -n 3 > /dev/null 2>&1
check "fewer than 5 iterations are refused (exit 2)" [ $? = 2 ]

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
# A bigger AF_PACKET ring (4096 frames, net_af_packet's default is 512): an 8 MiB message
# (-a) leaves as bursts of a whole 1024-PSN window, and two busy-polling processes share the
# CPUs here; with 512 frames such bursts overflow the ring and the transport's recovery, not
# droce-perf, is what gets tested.
sed -i -E 's/^(vdev = net_af_packet.*)$/\1,framecnt=4096/' "$LAB_DIR/a.ini" "$LAB_DIR/b.ini"

# table LOG: the result lines (between the "#bytes" header and the next dashed line)
table() { awk '/#bytes/ { on = 1; next } on && /^---/ { exit } on' "$1"; }
# addr LOG local|remote: "QPN PSN" of the first such address line
addr() { grep -m1 " $2 address:" "$1" | sed -E 's/.*QPN (0x[0-9a-f]+) PSN (0x[0-9a-f]+).*/\1 \2/'; }

# run_with NAME SRV_PROG CLI_PROG TEST ARGS...: server in B, client in A, both with ARGS (and
# the server with $SRV_EXTRA too); logs $LAB_DIR/NAME.{srv,cli}. run NAME TEST ARGS...: both
# are droce-perf.
run_with() {
	local name=$1 sprog=$2 cprog=$3 i
	shift 3
	# shellcheck disable=SC2086 # SRV_EXTRA: options for the server only
	ip netns exec "$LAB_NS_B" timeout 60 "$sprog" "$@" ${SRV_EXTRA:-} \
		--droce-config="$LAB_DIR/b.ini" > "$LAB_DIR/$name.srv" 2>&1 &
	local srv=$!
	for ((i = 0; i < 150; i++)); do
		grep -q "Waiting for client to connect" "$LAB_DIR/$name.srv" 2>/dev/null && break
		sleep 0.1
	done
	ip netns exec "$LAB_NS_A" timeout 60 "$cprog" "$@" --droce-config="$LAB_DIR/a.ini" \
		"$LAB_IP4_B" > "$LAB_DIR/$name.cli" 2>&1
	RC_C=$?
	wait $srv
	RC_S=$?
	if [ "$RC_C/$RC_S" != 0/0 ]; then
		echo "# $name: client exit $RC_C, server exit $RC_S"
		echo "# client:"; grep -v '^EAL' "$LAB_DIR/$name.cli" | sed 's/^/#   /'
		echo "# server:"; grep -v '^EAL' "$LAB_DIR/$name.srv" | sed 's/^/#   /'
	fi
	check "$name: both sides exit 0" [ "$RC_C/$RC_S" = 0/0 ]
}
run() { run_with "$1" "$PERF" "$PERF" "${@:2}"; }

# check_table NAME SIDE KIND SIZES ITERS: KIND bw, lat or bwdur (iterations not known in
# advance, no peak); SIZES the expected sizes
check_table() {
	local f="$LAB_DIR/$1.$2" kind=$3 sizes=$4 iters=$5 got want
	got=$(table "$f" | awk -v k="$kind" -v it="$iters" '
		k == "bw"  { ok = ($2 == it && $4 > 0 && $5 > 0) }
		k == "lat" { ok = ($2 == it && $3 > 0 && $5 >= $3 && $4 >= $5 && $6 > 0) }
		k == "bwdur" { ok = ($2 > 0 && $4 > 0 && $5 > 0) }
		{ printf "%s%s ", $1, ok ? "" : "!" }')
	want=$(for s in $sizes; do printf "%s " "$s"; done)
	[ "$got" = "$want" ] || echo "# $1.$2: table sizes/values \"$got\", expected \"$want\""
	[ "$got" = "$want" ]
}

check_peers() {
	[ "$(addr "$LAB_DIR/$1.cli" remote)" = "$(addr "$LAB_DIR/$1.srv" local)" ] &&
		[ "$(addr "$LAB_DIR/$1.srv" remote)" = "$(addr "$LAB_DIR/$1.cli" local)" ] &&
		[ -n "$(addr "$LAB_DIR/$1.cli" local)" ]
}

# verified NAME SIDE: --droce-verify checked bytes and none differed
verified() { grep -qE "droce-verify: [1-9][0-9]* bytes checked, 0 differ" "$LAB_DIR/$1.$2"; }
unverified_ok() { grep -qE "droce-verify: [0-9]+ bytes checked, 0 differ" "$LAB_DIR/$1.$2"; }

# one test both ways: TCP and -R
for mode in tcp rdma_cm; do
	opt=""
	[ $mode = rdma_cm ] && opt="-R"
	for t in write_bw read_bw send_bw atomic_bw atomic_cas write_lat read_lat send_lat; do
		name="$t.$mode"
		case $t in
		atomic_cas) run "$name" atomic_bw -A CMP_AND_SWAP -n "$N" -x 1 -F $opt --droce-verify ;;
		*) run "$name" "$t" -n "$N" -x 1 -F $opt --droce-verify ;;
		esac
		[ "$RC_C/$RC_S" = 0/0 ] || continue
		case $t in
		*_bw | atomic_cas) size=65536; kind=bw ;;
		*) size=2; kind=lat ;;
		esac
		case $t in atomic_*) size=8 ;; esac
		check "$name: the client's table: $size bytes x $N, non-zero" \
			check_table "$name" cli $kind "$size" "$N"
		case $t in
		read_lat) check "$name: the server prints no table (only the client READs)" \
			[ -z "$(table "$LAB_DIR/$name.srv")" ] ;;
		*) check "$name: the server's table: $size bytes x $N, non-zero" \
			check_table "$name" srv $kind "$size" "$N" ;;
		esac
		check "$name: each side's remote QPN/PSN is the other's local one" check_peers "$name"
		case $t in
		write_bw | atomic_bw | atomic_cas)
			check "$name: the server's memory is what the client's ops make it" verified "$name" srv ;;
		read_bw) check "$name: the client READ the server's pattern" verified "$name" cli ;;
		send_bw) check "$name: every received message is the one sent" verified "$name" srv ;;
		read_lat) check "$name: the client READ the server's pattern" verified "$name" cli ;;
		*) check "$name: both sides received what the other sent" \
			eval 'verified "$name" cli && verified "$name" srv' ;;
		esac
		check "$name: --droce-verify found no difference on either side" \
			eval 'unverified_ok "$name" cli && unverified_ok "$name" srv'
		if [ $mode = rdma_cm ]; then
			check "$name: the exchange went over rdma_cm" \
				grep -q "Data ex. method : rdma_cm" "$LAB_DIR/$name.cli"
		fi
	done
done
check "the GID of -x 1 is IPv4-mapped, printed in decimal as perftest does" \
	grep -q "^ GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:77:00:01$" "$LAB_DIR/write_bw.tcp.cli"

# more QPs: four per side, each with its own keys
run q4.tcp write_bw -q 4 -n "$N" -s 16384 --droce-verify
check "q4.tcp: four local and four remote address lines on each side" \
	[ "$(grep -c ' local address:' "$LAB_DIR/q4.tcp.cli")/$(grep -c ' remote address:' "$LAB_DIR/q4.tcp.srv")" = 4/4 ]
check "q4.tcp: the table counts the iterations of all QPs" check_table q4.tcp cli bw 16384 $((N * 4))
check "q4.tcp: the server's four areas hold the client's pattern" verified q4.tcp srv
run q4.rdma_cm send_bw -q 4 -n "$N" -s 16384 -R --droce-verify
check "q4.rdma_cm: four QPs over rdma_cm, every message as sent" verified q4.rdma_cm srv
check "q4.rdma_cm: the server's table counts all QPs" check_table q4.rdma_cm srv bw 16384 $((N * 4))

# -a: every size from 2 to 2^23
ALL=$(s=2; while [ $s -le 8388608 ]; do printf "%s " $s; s=$((s * 2)); done)
run all.write_lat write_lat -a -n 5 --droce-verify
check "all.write_lat: one line per size 2..2^23 on both sides" \
	eval 'check_table all.write_lat cli lat "$ALL" 5 && check_table all.write_lat srv lat "$ALL" 5'
check "all.write_lat: every size arrived as sent" eval 'verified all.write_lat cli && verified all.write_lat srv'
run all.read_bw read_bw -a -n 5 -R --droce-verify
check "all.read_bw: one line per size 2..2^23" check_table all.read_bw cli bw "$ALL" 5
check "all.read_bw: every size READ back as the server holds it" verified all.read_bw cli

# duration mode, Gb/s, MTU agreement, inline
run dur.write_bw write_bw -D 2 -s 4096
check "dur.write_bw: -D 2 reports the sample window's iterations" check_table dur.write_bw cli bwdur 4096 0
run gbits.read_bw read_bw -n "$N" -s 4096 --report_gbits
check "gbits.read_bw: --report_gbits heads the table in Gb/sec" \
	grep -q "BW peak\[Gb/sec\]    BW average\[Gb/sec\]" "$LAB_DIR/gbits.read_bw.cli"
# check_mtu(): the server asks for 512, the client for nothing (1024 on this link); both take
# the smaller
mtu() { grep -q "Mtu             : 512\[B\]" "$LAB_DIR/mtu.$1"; }
SRV_EXTRA="-m 512" run mtu send_lat -n "$N" -s 3000 --droce-verify
check "mtu: a server with -m 512 and a client without both run at 512" eval 'mtu cli && mtu srv'
check "mtu: 3000-byte messages in 512-byte packets arrive intact" \
	eval 'verified mtu cli && verified mtu srv'
run inline.write_lat write_lat -n "$N" -s 32 --inline_size=64 --droce-verify
check "inline.write_lat: --inline_size shows in the header and data still arrives" \
	eval 'grep -q "Max inline data : 64\[B\]" "$LAB_DIR/inline.write_lat.cli" && verified inline.write_lat srv'

# --out_json (perftest's file and keys) and --droce-percentiles (droce's second table): the
# perftest table is unchanged, the JSON parses with perftest's keys and one droce row per size,
# and the percentiles are ordered and agree with perftest's own 99% column (same samples,
# within the histogram's 0.2 % and the two samples perftest leaves out)
SRV_EXTRA="--out_json_file=$LAB_DIR/pct.srv.json" run pct.send_lat send_lat -n 2000 -s 64 \
	--out_json --out_json_file="$LAB_DIR/pct.cli.json" --droce-percentiles
check "pct.send_lat: perftest's table as before" check_table pct.send_lat cli lat 64 2000
pcttab() { awk '/p50\[usec\]/ { on = 1; next } on && /^---/ { exit } on' "$1"; }
check "pct.send_lat: the percentile table, p50 <= p90 <= p99 <= p99.9 <= p99.99 <= max" \
	[ "$(pcttab "$LAB_DIR/pct.send_lat.cli" | awk '$1 == 64 && $2 == 1999 && $3 > 0 &&
		$3 <= $4 && $4 <= $5 && $5 <= $6 && $6 <= $7 && $7 <= $8 { n++ } END { print n + 0 }')" = 1 ]
pctjson() { # FILE TABLE-LOG: perftest's keys, droce's row, p99 against perftest's column
	python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ti, r, d = j["test_info"], j["results"], j["droce"]["rows"]
assert ti["test"] == "Send_Latency_Test" and ti["Connection_type"] == "RC", ti
for k in ("MsgSize", "n_iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev",
          "percentile_99", "percentile_99.9"):
    assert k in r, k
assert r["MsgSize"] == 64 and r["n_iterations"] == 2000 and len(d) == 1, (r, d)
row = d[0]
assert row["samples"] == 1999 and row["min"] <= row["p50"] <= row["p90"] <= row["p99"] <= \
    row["p99.9"] <= row["p99.99"] <= row["max"], row
# perftest's t_typical is the median of all but the two largest: within a bucket of p50
assert abs(row["p50"] - r["t_typical"]) <= 0.01 * r["t_typical"] + 0.011, (row, r)
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 9 and f[0] == "64" and f[1] == "2000":
        assert abs(float(f[7]) - r["percentile_99"]) < 0.006, (f, r)
        break
else:
    raise SystemExit("no table row")
PY
}
check "pct.send_lat: the client's JSON: perftest's keys, one droce row, consistent" \
	pctjson "$LAB_DIR/pct.cli.json" "$LAB_DIR/pct.send_lat.cli"
check "pct.send_lat: the server's JSON, in its own --out_json_file" \
	pctjson "$LAB_DIR/pct.srv.json" "$LAB_DIR/pct.send_lat.srv"

# perftest's own names: a link ib_send_bw runs send_bw
ln -sf "$PERF" "$LAB_DIR/ib_send_bw"
run_with link "$LAB_DIR/ib_send_bw" "$LAB_DIR/ib_send_bw" -n "$N" -s 1024
check "link: ib_send_bw runs the Send BW test" grep -q "Send BW Test" "$LAB_DIR/link.cli"
check "link: its table has 1024 bytes x $N" check_table link cli bw 1024 "$N"

echo "# $((SECONDS - T0)) s"
echo "$fails check(s) failed"
[ $fails = 0 ]
