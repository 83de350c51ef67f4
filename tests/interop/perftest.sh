#!/usr/bin/env bash
# Interop test: droce-perf against perftest 6.06 (linux-rdma/perftest) on Linux soft-RoCE
# (rdma_rxe in a QEMU VM running Debian's kernel; tests/interop/lab.sh). One VM is booted once.
#
# 1. Every test in both directions, with perftest's TCP exchange and with -R (rdma_cm):
#      vm_server:    ib_<test> -d rxe0 serves in the VM, droce-perf <test> connects;
#      droce_server: droce-perf <test> serves, ib_<test> in the VM connects;
#    for ib_write_bw, ib_read_bw, ib_send_bw (-s 4096 and -s 65536: 4 and 64 packets at rxe's
#    path MTU 1024), ib_read_bw -s 2097152 and ib_read_bw -a (every size from 2 B to 8 MiB;
#    16 READs outstanding: issue 11 item 12; with -R only droce as the requester, see below),
#    ib_atomic_bw (-A FETCH_AND_ADD, -A CMP_AND_SWAP), ib_write_lat,
#    ib_read_lat, ib_send_lat; all with -x 1 -F -n $PT_ITERS (perftest: -d rxe0). With -R, by
#    default one case per tool family (ib_write_bw, ib_read_bw, ib_send_bw -s 4096,
#    ib_atomic_bw -A CMP_AND_SWAP, ib_send_lat) in both directions: the connection is what
#    -R changes, the data path is the TCP exchange's; PT_CM_ALL=1 runs every test. A case
#    passes when both sides exit 0, both print the result table with one line of the size and
#    iteration count asked for and non-zero numbers (bandwidth tests: message rate, and the
#    average bandwidth unless atomic; latency tests: t_min and t_avg) - ib_read_lat's server
#    prints no table on either stack - and each side's "remote address" QPN is the other's
#    "local address" QPN.
# 2. A lossy and a reordering link: netem on the VM's eth0 (iproute2's tc by path, busybox
#    shadows it) while ib_write_bw and ib_send_bw (-n $PT_LOSSY_ITERS -s $PT_LOSSY_SIZE, TCP
#    exchange) run in both directions:
#      loss:     netem loss 1% (not by default: loss2 has it, and CI's time is short);
#      reorder:  netem delay 1ms reorder 25% 50%;
#      loss2:    netem loss 1% and droce's own impairment of what it sends (impair_tx =
#                drop=1%,seed=$PT_SEED,roce_only, docs/config.md; dropped before the capture).
#    netem acts on what rxe sends: with droce as the requester its ACKs are lost/reordered
#    (rare: rxe ACKs every 64 PSNs or so; loss2 drops droce's data too, so rxe NAKs and droce
#    goes back), with rxe as the requester its data is, so droce NAKs and rxe goes back.
#    droce-perf's side must complete with the same checks as above; each case prints the
#    recovery seen on the wire (resends, go-back-N, NAKs), netem's drop count and droce's QP
#    counters (telemetry). A case that does not finish is diagnosed from the capture
#    (perftest_diag.py): if the wire shows rxe at fault (it ignored droce's NAK, stopped
#    retransmitting, or stopped answering droce's retransmissions) the case is an expected
#    failure (XFAIL) that quotes the frames; if it shows droce at fault, or cannot tell, it
#    fails.
# Any case whose only trouble is perftest's clock calibration in the VM (get_cpu_mhz():
# "Correlation coefficient r^2 < 0.9", an all-zero table, TCG under load) runs once more
# ("pass*"); twice in a row is an expected failure that quotes it.
# 3. The wire: tshark captures the bridge port towards droce for the whole run; every RoCE
#    frame (droce's and rxe's) must decode as InfiniBand with nothing malformed or error-level,
#    and every ICRC must verify (wire_check.py).
# A table of every case (test, direction, -R or not, result, wall time, each side's numbers)
# ends the output. Exit 0 when nothing failed except expected failures; 77 = skipped (the
# reason is printed); 1 otherwise.
# Usage: perftest.sh PATH/TO/droce-perf [ARTIFACT_DIR]
#   PT_ITERS (10), PT_ALL_ITERS (5, the least perftest takes; the -a case), PT_LOSSY_ITERS
#   (50), PT_LOSSY_SIZE (65536), PT_SEED (4791), PT_ONLY (a regex over case names, e.g.
#   'write_bw|lossy'; default all), PT_LOSSY=0 skips part 2, PT_CM_ALL=1 every test with -R,
#   PT_CM_BIG=1 (with PT_CM_ALL) adds the 2 MiB and -a READs with -R, PT_LOSSY_LINKS (the
#   links of part 2; default 'reorder loss2', all three: 'loss reorder loss2').
# Console logs, the capture and every tool's log are kept in ARTIFACT_DIR.
set -u
PERF=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
PT_ITERS=${PT_ITERS:-10}
PT_LOSSY_ITERS=${PT_LOSSY_ITERS:-50}
PT_LOSSY_SIZE=${PT_LOSSY_SIZE:-65536}
PT_ONLY=${PT_ONLY:-.}
PT_LOSSY=${PT_LOSSY:-1}
# loss2 is loss with droce's own drops on top: CI runs it and reorder (CI's time), loss on ask
PT_LOSSY_LINKS=${PT_LOSSY_LINKS:-reorder loss2}
PT_SEED=${PT_SEED:-4791}
PT_ALL_ITERS=${PT_ALL_ITERS:-5}
PT_CM_ALL=${PT_CM_ALL:-0}
RUN_SEC=60   # bound of one case's tools (functional)
ALL_SEC=150  # bound of an ib_read_bw -a case (80 MiB in 5 passes, 2-20 MB/s under TCG)
LOSSY_SEC=60 # bound of one case's tools (lossy link)
PORT=18515   # perftest's default port
T0=$SECONDS
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (network namespaces, bridge, taps)"; exit 77; fi
. "$HERE/lab.sh"
trap lab_down EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$PERF" ] || { echo "FAIL - $1 is not an executable droce-perf"; exit 1; }
# the previous run's artifacts would mislead
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.log "$LABI_ARTIFACTS"/*.pcap
TEL=$(command -v dpdk-telemetry.py || true)

fails=0
xfails=0
ORDER=()     # case names in the order they ran
FAILED=()    # cases whose checks failed (the lossy ones may still be expected failures)
LOSSY=()
declare -A ROW RES WIN0 WIN1 DROPS LNOTE STALLED
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
now() { date +%s.%N; }

lab_up_or_exit 1
lab_capture_start perftest || exit 1
vm_run vm1 "ib_write_bw --version; ibv_devinfo -d rxe0 | grep -E 'state|active_mtu'" 30 | sed 's/^/# vm1: /'

# ------------------------------------------------------------------ result parsing
# table LOG: the result lines (between the "#bytes" header and the next dashed line)
table() { awk '/#bytes/ { on = 1; next } on && /^---/ { exit } on' "$1" 2>/dev/null; }
# table_ok LOG KIND SIZE ITERS: one line, the size and iterations asked for, non-zero numbers.
# bw: #bytes #iterations BW_peak BW_average MsgRate; atomic: the same, but 8 B at TCG speed
# can print a bandwidth of 0.00 MB/s, so only the message rate counts; lat: #bytes #iterations
# t_min t_max t_typical t_avg ...
# A message rate under one a second prints as 0.000000 Mpps (2 MiB READs at under 2 MB/s).
# SIZE "all" (-a): one line for each size from 2 B to 8 MiB (2^1 .. 2^23), in order; at TCG
# speed a 2 B line's bandwidth and an 8 MiB line's message rate print as 0.00, so a line needs
# one of the two non-zero.
table_ok() {
	local t n=1
	t=$(table "$1")
	[ "$3" = all ] && n=23
	[ "$(printf '%s\n' "$t" | grep -c .)" = $n ] || return 1
	printf '%s\n' "$t" | awk -v k="$2" -v s="$3" -v it="$4" -v n=$n '
		{ ok = ($1 == (s == "all" ? 2 ^ NR : s) && $2 == it) }
		k == "bw" && s != "all" { ok = ok && $4 > 0 && ($5 > 0 || $4 * 1e6 / $1 < 1) }
		k == "bw" && s == "all" { ok = ok && ($4 > 0 || $5 > 0) }
		k == "atomic" { ok = ok && $5 > 0 }
		k == "lat" { ok = ok && $3 > 0 && $6 > 0 && $4 >= $3 }
		!ok { bad = 1 }
		END { exit !(NR == n && !bad) }'
}
# figure LOG KIND: the number for the table: average bandwidth or average latency (of the
# largest size when there are several)
figure() {
	table "$1" | awk -v k="$2" '
		$1 !~ /^[0-9]+$/ { next }
		k == "lat" { f = sprintf("%s us", $6); next }
		k == "atomic" { f = sprintf("%.0f op/s", $5 * 1e6); next }
		{ f = sprintf("%s MB/s", $4) }
		END { printf "%s", f }'
}
# qpns LOG local|remote: the QPNs of the address lines
qpns() { grep " $2 address:" "$1" 2>/dev/null | sed -E 's/.*QPN (0x[0-9a-f]+).*/\1/' | tr '\n' ' '; }

# ------------------------------------------------------------------ the VM side
# vm_listening TEST RDMA_CM: is ib_<TEST> in the VM listening yet (TCP: /proc/net/tcp, -R:
# rdma_cm's LISTEN id)?
vm_listening() {
	local hex
	hex=$(printf '%04X' $PORT)
	if [ "$2" = 1 ]; then
		vm_run vm1 "rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN.*:$PORT'" 10
	else
		vm_run vm1 "grep -q ':$hex 00000000:0000 0A' /proc/net/tcp" 10
	fi
}
vm_alive() { kill -0 "${LABI_VM_PID[vm1]:-0}" 2>/dev/null; }

# tel_sample PID FILE: droce's /droce/roce telemetry every 0.3 s while PID runs; FILE keeps
# the last sample that still had a QP, FILE.stats the stack's /droce/stats of that moment
tel_sample() {
	local x y
	[ -n "$TEL" ] || return 0
	while kill -0 "$1" 2>/dev/null; do
		x=$(printf '/droce/roce\n/droce/stats\n' |
			timeout 3 "$TEL" -f "droce_il_$LABI_ID" 2>/dev/null | grep '^{')
		y=$(printf '%s\n' "$x" | grep '"/droce/roce"')
		case "$y" in *'"qp_'*)
			echo "$y" > "$2"
			printf '%s\n' "$x" | grep '"/droce/stats"' > "$2.stats" ;;
		esac
		sleep 0.3
	done
}
# tel_start PID NAME: tel_sample for a lossy case (their summary is printed; a functional case's
# would not be, and a Python process every 0.3 s takes CPU the TCG VM wants); TEL_PID is its PID
TEL_PID=
tel_start() {
	TEL_PID=
	case $2 in lossy-*) ;; *) return 0 ;; esac
	tel_sample "$1" "$LABI_DIR/$2.tel" &
	TEL_PID=$!
}
# tel_summary FILE: droce's recovery counters of the test QP (the one that sent the most)
tel_summary() {
	[ -s "$1" ] || return 0
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["/droce/roce"]["iface0"]
qps = [v for k, v in d.items() if k.startswith("qp_") and isinstance(v, dict)]
if not qps:
    sys.exit(0)
q = max(qps, key=lambda v: v.get("tx_pkts", 0) + v.get("rx_pkts", 0))
keys = ["tx_pkts", "rx_pkts", "retransmits", "timeouts", "rto_early", "backlog_waits", "stale_capped", "dup_acks_rx",
        "nak_seq_tx", "nak_seq_rx", "duplicates_rx", "resp_ERR_PSN_SEQ_QUIET", "tx_failed"]
print("droce QP (last sample, " + q.get("state", "?") + "): " +
      ", ".join(f"{k} {q[k]}" for k in keys if k in q))
try:
    imp = {}
    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k.startswith("impair_") and isinstance(v, int):
                    imp[k] = imp.get(k, 0) + v
                walk(v)
    walk(json.load(open(sys.argv[1] + ".stats")))
    if any(imp.values()):
        print("droce stack: " + ", ".join(f"{k} {v}" for k, v in sorted(imp.items()) if v))
except (OSError, ValueError):
    pass
PY
}

# ------------------------------------------------------------------ one case
# run_case NAME DIR TEST KIND SIZE ITERS SEC ARGS...: DIR vm_server or droce_server; KIND bw,
# atomic or lat; ARGS for both tools (perftest gets -d rxe0, droce-perf -d droce0). Sets
# RC_D, RC_V, CASE_T0, CASE_T1; logs $LABI_DIR/NAME.{droce,vm}.log
run_case() {
	local name=$1 dir=$2 test=$3 sec=$7 rdma_cm=0 a i dpid vmjob
	shift 7
	for a in "$@"; do [ "$a" = -R ] && rdma_cm=1; done
	local dlog="$LABI_DIR/$name.droce.log" vlog="$LABI_DIR/$name.vm.log"
	local dcmd=(ip netns exec "$LABI_DNS" timeout "$sec" "$PERF" "$test"
		--droce-config="$LABI_DIR/${DROCE_INI:-droce.ini}" -d droce0 "$@")
	CASE_T0=$(now)
	rm -f "$LABI_DIR/$name.tel"
	if [ "$dir" = vm_server ]; then
		vm_run vm1 "ib_$test -d rxe0 $*" "$sec" > "$vlog" 2>&1 &
		vmjob=$!
		for ((i = 0; i < 40; i++)); do
			vm_listening "$test" $rdma_cm && break
			kill -0 $vmjob 2>/dev/null || break
			sleep 0.2
		done
		"${dcmd[@]}" "$VMIP" > "$dlog" 2>&1 &
		dpid=$!
		tel_start $dpid "$name"
		wait $dpid
		RC_D=$?
		# a failed client leaves the server waiting: end it rather than wait for its bound
		[ $RC_D = 0 ] || vm_run vm1 "killall ib_$test" 10 > /dev/null 2>&1
		wait $vmjob
		RC_V=$?
	else
		"${dcmd[@]}" > "$dlog" 2>&1 &
		dpid=$!
		tel_start $dpid "$name"
		# listening: the TCP socket (kernel, through droce's TAP) or, with -R, droce's CM
		# listens right after the banner
		for ((i = 0; i < 150; i++)); do
			kill -0 $dpid 2>/dev/null || break
			if [ $rdma_cm = 1 ]; then
				grep -q "Waiting for client to connect" "$dlog" 2>/dev/null && { sleep 0.5; break; }
			else
				ip netns exec "$LABI_DNS" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q . && break
			fi
			sleep 0.1
		done
		vm_run vm1 "ib_$test -d rxe0 $* $LABI_DROCE_IP" "$sec" > "$vlog" 2>&1
		RC_V=$?
		[ $RC_V = 0 ] || { sleep 2; kill -TERM $dpid 2>/dev/null; }
		wait $dpid
		RC_D=$?
	fi
	# the telemetry sampler (never a bare wait: tshark is a child too)
	[ -n "$TEL_PID" ] && wait "$TEL_PID"
	TEL_PID=
	CASE_T1=$(now)
}

# judge NAME DIR TEST KIND SIZE ITERS: the checks of one finished case; prints the logs when
# it failed; returns 0 when it passed
judge() {
	local name=$1 dir=$2 test=$3 kind=$4 size=$5 iters=$6 ok=true why=()
	local dlog="$LABI_DIR/$name.droce.log" vlog="$LABI_DIR/$name.vm.log" srv cli
	[ "$RC_D" = 0 ] || { ok=false; why+=("droce-perf exit $RC_D"); }
	[ "$RC_V" = 0 ] || { ok=false; why+=("ib_$test exit $RC_V"); }
	if [ "$dir" = vm_server ]; then srv=$vlog cli=$dlog; else srv=$dlog cli=$vlog; fi
	table_ok "$cli" "$kind" "$size" "$iters" || { ok=false; why+=("client table"); }
	if [ "$test" = read_lat ]; then
		[ -z "$(table "$srv")" ] || { ok=false; why+=("read_lat server printed a table"); }
	else
		# perftest's server prints the client's report of the last size only (-a: 8 MiB)
		table_ok "$srv" "$kind" "${size/#all/8388608}" "$iters" ||
			{ ok=false; why+=("server table"); }
	fi
	if [ -z "$(qpns "$dlog" local)" ] || [ "$(qpns "$dlog" remote)" != "$(qpns "$vlog" local)" ] ||
		[ "$(qpns "$vlog" remote)" != "$(qpns "$dlog" local)" ]; then
		ok=false
		why+=("QPNs: droce local $(qpns "$dlog" local)remote $(qpns "$dlog" remote)/ rxe local $(qpns "$vlog" local)remote $(qpns "$vlog" remote)")
	fi
	if ! $ok; then
		echo "# $name: ${why[*]}"
		echo "# droce-perf (exit $RC_D):"; grep -v "^EAL:" "$dlog" | tail -n 25 | sed 's/^/#   /'
		echo "# ib_$test in the VM (exit $RC_V):"; tail -n 25 "$vlog" | sed 's/^/#   /'
		[ -s "$vlog" ] || echo "#   (nothing: ended by its bound, perftest's buffered stdout is lost)"
	fi
	$ok
}

# perftest_clock NAME: perftest in the VM could not calibrate its clock (TSC against
# gettimeofday, get_cpu_mhz(): "Correlation coefficient r^2: ... < 0.9", then its table is all
# zeros) - TCG under load, not the transfer
perftest_clock() { grep -q "Correlation coefficient r^2" "$LABI_DIR/$1.vm.log"; }

# a_case NAME DIR TEST KIND SIZE ITERS SEC ARGS...: run_case + judge, once more when the only
# trouble was perftest's clock calibration. Sets CASE_RES: pass; "pass*" (on the second try);
# FAIL; XFAIL (perftest's calibration failed twice; CASE_NOTE quotes it); stalled (a tool did
# not finish: the capture decides, later)
a_case() {
	local name=$1 try dtab f
	CASE_NOTE=""
	CASE_RETRIED=pass
	for try in 1 2; do
		run_case "$@"
		WIN0[$name]=$CASE_T0 WIN1[$name]=$CASE_T1
		if judge "$name" "$2" "$3" "$4" "$5" "$6"; then
			CASE_RES=$CASE_RETRIED
			return
		fi
		if [ "$RC_D/$RC_V" != 0/0 ]; then
			CASE_RES=stalled
			return
		fi
		# droce's own table must be right (ib_read_lat's server prints none; a server
		# prints the last size only, -a: 8 MiB, as judge() checks it), or, as the server of
		# a test whose server prints the client's report (write/read/atomic bw), be exactly
		# perftest's line
		dtab=true
		if ! { [ "$3" = read_lat ] && [ "$2" = droce_server ]; }; then
			f=$5
			[ "$2" = droce_server ] && f=${f/#all/8388608}
			table_ok "$LABI_DIR/$name.droce.log" "$4" "$f" "$6" || dtab=false
		fi
		if ! $dtab && [ "$2" = droce_server ] && [ -n "$(table "$LABI_DIR/$name.vm.log")" ] &&
			[ "$(table "$LABI_DIR/$name.droce.log")" = "$(table "$LABI_DIR/$name.vm.log")" ]; then
			dtab=true
		fi
		if ! perftest_clock "$name" || ! $dtab; then
			CASE_RES=FAIL
			return
		fi
		CASE_NOTE="perftest in the VM: \"$(grep -m1 "Correlation coefficient" "$LABI_DIR/$name.vm.log")\", its table is zeros (get_cpu_mhz() under TCG)"
		[ $try = 2 ] && break
		for f in droce vm; do mv "$LABI_DIR/$name.$f.log" "$LABI_DIR/$name.try1.$f.log"; done
		echo "# $name: $CASE_NOTE; running it again"
		CASE_RETRIED="pass*"
	done
	CASE_RES=XFAIL
}

# record NAME LABEL DIR MODE KIND: the final table's row of a case (its result is RES[NAME])
record() {
	local name=$1 kind=$5 dfig vfig
	dfig=$(figure "$LABI_DIR/$name.droce.log" "$kind")
	vfig=$(figure "$LABI_DIR/$name.vm.log" "$kind")
	ORDER+=("$name")
	ROW[$name]=$(printf '%-44s %-21s %-3s %%-5s %6.1f s  %-13s %-13s %s/%s' "$2" \
		"$([ "$3" = vm_server ] && echo "rxe srv <- droce cli" || echo "droce srv <- rxe cli")" \
		"$4" "$(awk -v a="$CASE_T0" -v b="$CASE_T1" 'BEGIN { print b - a }')" \
		"${dfig:--}" "${vfig:--}" "$RC_D" "$RC_V")
}

# ------------------------------------------------------------------ 1. every test, both ways
N=$PT_ITERS
# test, kind, the size the table must show, a tag for the case's name, the extra flags
cases=(
	"write_bw bw 4096 4k -s 4096" "write_bw bw 65536 64k -s 65536"
	"read_bw bw 4096 4k -s 4096" "read_bw bw 65536 64k -s 65536"
	"read_bw bw 2097152 2m -s 2097152" "read_bw bw all all -a"
	"send_bw bw 4096 4k -s 4096" "send_bw bw 65536 64k -s 65536"
	"atomic_bw atomic 8 faa -A FETCH_AND_ADD" "atomic_bw atomic 8 cas -A CMP_AND_SWAP"
	"write_lat lat 2 2B" "read_lat lat 2 2B" "send_lat lat 2 2B"
)
for mode in tcp rdma_cm; do
	ropt=()
	[ $mode = rdma_cm ] && ropt=(-R)
	for c in "${cases[@]}"; do
		read -r test kind size tag extra <<< "$c"
		# 2 MiB READs and every size (-a: 2 B .. 8 MiB, 16 MiB a pass, $PT_ALL_ITERS passes
		# within a longer bound) once per direction. With -R (PT_CM_BIG=1 adds what is left
		# out, docs/roce.md):
		# - rxe as the READ requester is left out: rdma_cm gives rxe's QP a local ACK timeout
		#   of 19 (2.1 s; perftest's TCP exchange sets 14, 67 ms), the VM's tap queue and
		#   virtio ring take about 1,150-1,650 of droce's 2,048 responses to a 2 MiB READ,
		#   and rxe re-issues from the first lost PSN only when that timer fires: 0.8 MB/s,
		#   27 s a case;
		# - -a is left out in both directions for its time: droce as the requester passed in
		#   59 s (1.1 MB/s) on a loaded host, where lost responses and rxe's full replay of
		#   every re-issued READ put ten times the data on the wire.
		if [ $mode = rdma_cm ] && [ "$PT_CM_ALL" = 0 ]; then
			case $test-$tag in write_bw-4k | read_bw-4k | send_bw-4k | atomic_bw-cas | send_lat-2B) ;; *) continue ;; esac
		fi
		iters=$N bound=$RUN_SEC skip_srv=0
		if [ $mode = rdma_cm ] && [ "${PT_CM_BIG:-0}" = 0 ]; then
			[ "$tag" = all ] && continue
			[ "$tag" = 2m ] && skip_srv=1
		fi
		[ "$tag" = all ] && iters=$PT_ALL_ITERS bound=$ALL_SEC
		# shellcheck disable=SC2206 # the extra flags are words
		extra=(${extra:-})
		label="ib_$test ${extra[*]:-} x$iters"
		label=${label//  / }
		for dir in vm_server droce_server; do
			name="$test-$tag-$mode-$dir"
			[[ $name =~ $PT_ONLY ]] || continue
			[ $skip_srv = 1 ] && [ $dir = droce_server ] && continue
			if ! vm_alive; then
				echo "FAIL - $name: the VM is gone"; fails=$((fails + 1)); continue
			fi
			a_case "$name" $dir "$test" "$kind" "$size" "$iters" "$bound" \
				-x 1 -F -n "$iters" "${extra[@]}" "${ropt[@]}"
			case $CASE_RES in
			pass*) echo "ok   - $label, $dir, $mode${CASE_NOTE:+ (second try)}" ;;
			XFAIL)
				echo "XFAIL - $label, $dir, $mode: twice $CASE_NOTE"
				xfails=$((xfails + 1)) ;;
			*)
				STALLED[$name]=$([ "$CASE_RES" = stalled ] && echo 1)
				CASE_RES=FAIL
				echo "FAIL - $label, $dir, $mode"
				fails=$((fails + 1))
				FAILED+=("$name") ;;
			esac
			RES[$name]=$CASE_RES
			record "$name" "$label" $dir "$([ $mode = tcp ] && echo "tcp" || echo "-R")" "$kind"
		done
	done
done

# ------------------------------------------------------------------ 2. lossy / reordering link
declare -A QDISC=([loss]="netem loss 1%" [reorder]="netem delay 1ms reorder 25% 50%"
	[loss2]="netem loss 1%")
declare -A DROCE_IMPAIR=([loss]="" [reorder]="" [loss2]="drop=1%,seed=$PT_SEED,roce_only")
# vm_drops: what netem dropped on the VM's eth0 since its qdisc was placed
vm_drops() {
	vm_run vm1 "/usr/sbin/tc -s qdisc show dev eth0" 20 | sed -nE 's/.*\(dropped ([0-9]+),.*/\1/p' | head -1
}
if [ "$PT_LOSSY" != 0 ]; then
	for imp in $PT_LOSSY_LINKS; do
		any=false
		for test in write_bw send_bw; do
			for dir in vm_server droce_server; do
				[[ lossy-$imp-$test-$dir =~ $PT_ONLY ]] && any=true
			done
		done
		$any || continue
		vm_alive || { echo "FAIL - $imp: the VM is gone"; fails=$((fails + 1)); continue; }
		if ! vm_run vm1 "/usr/sbin/tc qdisc replace dev eth0 root ${QDISC[$imp]} && /usr/sbin/tc qdisc show dev eth0" 20 |
			sed 's/^/# vm1: /'; then
			echo "FAIL - $imp: netem could not be set up in the VM"; fails=$((fails + 1)); continue
		fi
		DROCE_INI=droce.ini
		if [ -n "${DROCE_IMPAIR[$imp]}" ]; then
			DROCE_INI=droce-$imp.ini
			# [port0] is the configuration's last section
			{ cat "$LABI_DIR/droce.ini"; echo "impair_tx = ${DROCE_IMPAIR[$imp]}"; } \
				> "$LABI_DIR/$DROCE_INI"
			echo "# droce: impair_tx = ${DROCE_IMPAIR[$imp]}"
		fi
		for test in write_bw send_bw; do
			for dir in vm_server droce_server; do
				name="lossy-$imp-$test-$dir"
				[[ $name =~ $PT_ONLY ]] || continue
				label="ib_$test -s $PT_LOSSY_SIZE x$PT_LOSSY_ITERS $imp"
				vm_alive || { echo "FAIL - $name: the VM is gone"; fails=$((fails + 1)); continue; }
				d0=$(vm_drops)
				a_case "$name" $dir "$test" bw "$PT_LOSSY_SIZE" "$PT_LOSSY_ITERS" $LOSSY_SEC \
					-x 1 -F -n "$PT_LOSSY_ITERS" -s "$PT_LOSSY_SIZE"
				d1=$(vm_drops)
				DROPS[$name]=$(( ${d1:-0} - ${d0:-0} ))
				# stalled: XFAIL or FAIL once the capture is read
				RES[$name]=$CASE_RES
				LNOTE[$name]=$CASE_NOTE
				case $CASE_RES in pass* | XFAIL) ;; *) FAILED+=("$name") ;; esac
				LOSSY+=("$name")
				echo "# $name: droce-perf exit $RC_D, ib_$test exit $RC_V, $(awk -v a="$CASE_T0" -v b="$CASE_T1" 'BEGIN { printf "%.1f", b - a }') s; netem dropped ${DROPS[$name]}"
				tel_summary "$LABI_DIR/$name.tel" | sed 's/^/#   /'
				record "$name" "$label" $dir tcp bw
			done
		done
		vm_run vm1 "/usr/sbin/tc qdisc del dev eth0 root" 20 > /dev/null
		DROCE_INI=droce.ini
	done
fi
lab_capture_stop
# perftest_diag.py's frames of this capture (--cache): a second attempt of the suite's must not
# read the first attempt's
rm -f "$LABI_DIR/perftest.rc.tsv"

# ------------------------------------------------------------------ 3. the wire
PCAP="$LABI_DIR/perftest.pcap"
droce_mac=$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR"/*.droce.log | head -1)
# the lossy cases: the recovery on the wire; those that did not finish get a verdict
# droce-perf's retry budget (perftest's default QP timeout 14: 4.096 us * 2^14, the first send
# and 7 retries): a peer that acknowledges nothing new for that long makes droce's QP give up
RETRY_BUDGET=$(awk 'BEGIN { printf "%.3f", 8 * 4.096e-6 * 2 ^ 14 }')
for name in "${LOSSY[@]}"; do
	v=()
	[ "${RES[$name]}" = stalled ] &&
		v=(--verdict --droce-log "$LABI_DIR/$name.droce.log" --budget "$RETRY_BUDGET")
	python3 "$HERE/perftest_diag.py" "$PCAP" "$droce_mac" "${WIN0[$name]}" "${WIN1[$name]}" "${v[@]}" \
		--cache "$LABI_DIR/perftest.rc.tsv" > "$LABI_DIR/$name.diag.log" 2>&1
	echo "# $name, the wire:"
	sed 's/^#/#  /' "$LABI_DIR/$name.diag.log"
	if [ "${RES[$name]:0:4}" = pass ]; then
		echo "ok   - $name: both sides completed over the impaired link, tables checked${LNOTE[$name]:+ (second try)}"
	elif [ "${RES[$name]}" = XFAIL ]; then
		xfails=$((xfails + 1))
		echo "XFAIL - $name: twice ${LNOTE[$name]}"
	elif [ "${RES[$name]}" = FAIL ]; then
		fails=$((fails + 1))
		echo "FAIL - $name: both tools finished, the checks above failed"
	elif grep -q "^# blame: rxe" "$LABI_DIR/$name.diag.log"; then
		RES[$name]=XFAIL
		xfails=$((xfails + 1))
		echo "XFAIL - $name: the wire shows rxe at fault (rxe under TCG):"
		grep "^# diagnosis:" "$LABI_DIR/$name.diag.log" | sed 's/^# diagnosis:/#   /'
	else
		RES[$name]=FAIL
		fails=$((fails + 1))
		echo "FAIL - $name: $(grep -h "^# diagnosis:\|^# blame:" "$LABI_DIR/$name.diag.log" | tr '\n' ' ')"
	fi
done
# the functional cases that failed: what the wire says (which side stopped, when a tool did
# not finish)
for name in "${FAILED[@]}"; do
	case $name in lossy-*) continue ;; esac
	v=""
	[ -n "${STALLED[$name]:-}" ] && v=--verdict
	python3 "$HERE/perftest_diag.py" "$PCAP" "$droce_mac" "${WIN0[$name]}" "${WIN1[$name]}" $v \
		--cache "$LABI_DIR/perftest.rc.tsv" > "$LABI_DIR/$name.diag.log" 2>&1
	echo "# $name, the wire:"
	sed 's/^#/#  /' "$LABI_DIR/$name.diag.log"
done
echo "# wire check of perftest.pcap${LABI_ARTIFACTS:+ (kept in $LABI_ARTIFACTS)}, droce is $droce_mac:"
python3 "$HERE/wire_check.py" "$PCAP" "$droce_mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]

echo "# results (wall time of the case; droce-perf's and perftest's average: bandwidth, atomic"
echo "# operations per second or latency; exit statuses droce/rxe):"
printf '#   %-44s %-21s %-3s %-5s %8s  %-13s %-13s %s\n' test direction cm result time \
	droce-perf "perftest(rxe)" exit
for name in "${ORDER[@]}"; do
	# shellcheck disable=SC2059 # the row is the format, its %-5s the result
	printf "#   ${ROW[$name]}\n" "${RES[$name]}"
done
printf '%s\n' "${RES[@]}" | grep -q 'pass\*' &&
	echo "# pass*: on the second try; the first time perftest in the VM could not calibrate its clock"
echo "# perftest interop took $((SECONDS - T0)) s; $fails check(s) failed, $xfails expected failure(s)"
[ $fails = 0 ]
