#!/usr/bin/env bash
# Interop test: droce-ping (apps/droce-ping, rping on droce) against rdma-core's rping on Linux
# soft-RoCE (rdma_rxe in a QEMU VM running Debian's kernel; tests/interop/lab.sh). One VM is
# booted once; then, for -S 64, 1000, 4000 and 16000 (rxe's path MTU is 1024: 4000 B is four
# packets per READ and per WRITE, 16000 B sixteen), -C $RP_COUNT, in both directions:
#   vm_server:    rping -s in the VM, droce-ping -c -V connects to it;
#   droce_server: droce-ping -s, rping -c -V in the VM connects to it.
# The server runs with the client's -S. Both sides must exit 0. Up to -S $RP_VERBOSE_MAX both
# run with -v and print exactly rping's "ping data" / "server ping data" lines (the pattern
# rping_test_client() writes); the droce server's stderr is rping's DISCONNECT EVENT and "wait
# for RDMA_READ_ADV state 10", and nothing on either side says mismatch, error or failed.
# Wire check: tshark captures the bridge port towards droce during all of it; every RoCE frame
# (droce's and rxe's) decodes as InfiniBand with nothing malformed and every ICRC verifies
# (wire_check.py); the CM MADs ConnectRequest/Reply/ReadyToUse/DisconnectRequest/Reply are there,
# one REQ/REP/RTU per run, no REJ, and both sides start sending from the PSNs the CM exchanged
# (cm_check.py).
# Usage: rping.sh PATH/TO/droce-ping [ARTIFACT_DIR]
#   RP_SIZES (default "64 1000 4000 16000"), RP_COUNT (5), RP_VERBOSE_MAX (1000)
# Exit 77 = skipped (with the reason). Console logs, capture and every tool's output go to
# ARTIFACT_DIR.
set -u
DPING=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
RP_SIZES=${RP_SIZES:-64 1000 4000 16000}
RP_COUNT=${RP_COUNT:-5}
RP_VERBOSE_MAX=${RP_VERBOSE_MAX:-1000}
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$DPING" ] || { echo "FAIL - $1 is not an executable droce-ping"; exit 1; }
# the previous run's artifacts would mislead
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/rping* "$LABI_ARTIFACTS"/*_server-* \
	"$LABI_ARTIFACTS"/droce.ini

lab_up_or_exit 1
lab_capture_start rping || exit 1
vm_run vm1 "rping -h 2>&1 | head -1; ibv_devinfo -d rxe0 | grep -E 'state|active_mtu'" 30 |
	sed 's/^/# vm1: /'

results=()
runs=0

# no_complaint FILE...: none of them says what rping and droce-ping say when something breaks
no_complaint() {
	! grep -aiE "mismatch|error|fail|bogus|unhandled event: RDMA_CM_EVENT_(REJECTED|UNREACHABLE)" \
		"$@" > /dev/null
}

# show NAME: both sides' output, for a failed run
show() {
	local f
	for f in "$LABI_DIR/$1".{droce.out,droce.err,vm.out,vm.err}; do
		[ -s "$f" ] || continue
		echo "# ${f##*/} (last lines):"
		dping_lines "$f" | grep -v "^server ping data\|^ping data" | tail -n 12 | cut -c1-160 |
			sed 's/^/#   /'
	done
}

for size in $RP_SIZES; do
	v=()
	[ "$size" -le "$RP_VERBOSE_MAX" ] && v=(-v)
	rping_expected "ping data: " "$size" "$RP_COUNT" > "$LABI_DIR/rping_want_$size"
	rping_expected "server ping data: " "$size" "$RP_COUNT" > "$LABI_DIR/rping_want_s_$size"

	# ---- rping serves in the VM; droce-ping connects once it listens
	name=vm_server-$size
	runs=$((runs + 1))
	vm_cmd vm1 "$LABI_DIR/$name.vm" 60 "rping -s ${v[*]} -V -S $size -a $VMIP" &
	vmjob=$!
	t="-"
	if vm_wait_listen vm1 7174; then
		t0=$(date +%s.%N)
		dping_start "$name" 40 -c "${v[@]}" -V -S "$size" -C "$RP_COUNT" -a "$VMIP"
		wait $DPING_PID
		rd=$?
		t=$(secs_since "$t0")
	else
		echo "# rping -s did not listen in the VM within 10 s"
		rd=-
	fi
	# a failed client leaves the server waiting: end it rather than wait for its bound
	[ "$rd" = 0 ] || vm_run vm1 "killall rping" 10 > /dev/null 2>&1
	wait $vmjob
	rv=$?
	check "rping server (rxe) <- droce-ping client -V, -S $size -C $RP_COUNT: both exit 0 (droce $rd, rping $rv)" \
		[ "$rd/$rv" = 0/0 ]
	ok=$([ "$rd/$rv" = 0/0 ] && echo ok || echo FAIL)
	if [ ${#v[@]} = 1 ]; then
		check "... droce-ping prints rping's $RP_COUNT \"ping data\" lines, nothing else" \
			cmp -s "$LABI_DIR/rping_want_$size" "$LABI_DIR/$name.droce.out"
		check "... rping prints the same data as \"server ping data\"" \
			cmp -s "$LABI_DIR/rping_want_s_$size" "$LABI_DIR/$name.vm.out"
	fi
	check "... droce-ping's stderr is rping's \"client DISCONNECT EVENT...\"" \
		[ "$(dping_lines "$LABI_DIR/$name.droce.err")" = "client DISCONNECT EVENT..." ]
	good=false
	grep -q "^server DISCONNECT EVENT" "$LABI_DIR/$name.vm.err" &&
		no_complaint "$LABI_DIR/$name.vm.err" "$LABI_DIR/$name.vm.out" && good=true
	check "... rping says server DISCONNECT EVENT and nothing went wrong" $good
	[ "$ok" = ok ] || show "$name"
	results+=("$(printf '%-40s %6s B  client %6s s  exit droce %s / rping %s' \
		"rping -s (rxe)  <- droce-ping -c" "$size" "$t" "$rd" "$rv")")

	# ---- droce-ping serves; rping connects from the VM once droce listens
	name=droce_server-$size
	runs=$((runs + 1))
	dping_start "$name" 60 -s -d "${v[@]}" -S "$size" -a "$LABI_DROCE_IP"
	t="-"
	if dping_wait_listen "$name"; then
		t0=$(date +%s.%N)
		vm_cmd vm1 "$LABI_DIR/$name.vm" 40 "rping -c ${v[*]} -V -S $size -C $RP_COUNT -a $LABI_DROCE_IP"
		rv=$?
		t=$(secs_since "$t0")
		if [ "$rv" = 255 ] && rping_teardown_race "$LABI_DIR/$name.vm.err"; then
			echo "# rping -c exited 255 in its known race at exit, after its test loop (DISCONNECTED event, then rdma_get_cm_event: EBADF; rping_lib.sh): counted as exit 0"
			rv=0
		fi
	else
		echo "# droce-ping -s did not listen within 10 s"
		rv=-
	fi
	[ "$rv" = 0 ] || kill -TERM $DPING_PID 2>/dev/null
	wait $DPING_PID
	rd=$?
	check "droce-ping server <- rping client -V (rxe), -S $size -C $RP_COUNT: both exit 0 (droce $rd, rping $rv)" \
		[ "$rd/$rv" = 0/0 ]
	ok=$([ "$rd/$rv" = 0/0 ] && echo ok || echo FAIL)
	if [ ${#v[@]} = 1 ]; then
		check "... rping prints its $RP_COUNT \"ping data\" lines, nothing else" \
			cmp -s "$LABI_DIR/rping_want_$size" "$LABI_DIR/$name.vm.out"
		check "... droce-ping prints the same data as \"server ping data\"" \
			cmp -s "$LABI_DIR/rping_want_s_$size" <(grep -a "^server ping data: " \
				"$LABI_DIR/$name.droce.out")
	fi
	check "... droce-ping's stderr is rping's DISCONNECT EVENT and wait for RDMA_READ_ADV state 10" \
		[ "$(dping_lines "$LABI_DIR/$name.droce.err")" = "$(printf 'server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10')" ]
	check "... rping's client says nothing went wrong" \
		no_complaint "$LABI_DIR/$name.vm.err" "$LABI_DIR/$name.vm.out"
	[ "$ok" = ok ] || show "$name"
	results+=("$(printf '%-40s %6s B  client %6s s  exit droce %s / rping %s' \
		"droce-ping -s   <- rping -c (rxe)" "$size" "$t" "$rd" "$rv")")
done
lab_capture_stop

mac=$(droce_mac)
echo "# wire check of rping.pcap${LABI_ARTIFACTS:+ (kept in $LABI_ARTIFACTS)}, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/rping.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
python3 "$HERE/cm_check.py" "$LABI_DIR/rping.pcap" "$mac" --conns "$runs"
check "wire: the CM exchange and the starting PSNs of all $runs connections (cm_check.py)" [ $? = 0 ]

echo "# results (direction, size, the client's wall time incl. start-up, exit statuses):"
printf '#   %s\n' "${results[@]}"
echo "# interop_rping took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
