#!/usr/bin/env bash
# Interop test: droce-ping against rdma-core's rping on Linux soft-RoCE (rdma_rxe in a QEMU VM;
# tests/interop/lab.sh) over a lossy and a reordering link: droce's loss recovery against
# rxe's, with the data checked on droce's side. Three impairments, each for both directions:
#   loss:      netem loss 1% on the VM's eth0 (what rxe sends: its requests, responses, ACKs);
#   reorder:   netem delay 1ms reorder 25% 50% on the VM's eth0;
#   loss2:     both ways: the VM's netem loss 1%, and droce's own impairment on what droce sends
#              (impair_tx = drop=1%,seed=$LS_SEED,roce_only; docs/config.md: the host kernel
#              here has no sch_netem, and droce's is seeded, so the same frames go each run).
# For each, at -S $LS_SIZE (16 packets per READ and WRITE at rxe's path MTU 1024), -C $LS_COUNT:
#   vm_server:    rping -s in the VM; droce-ping -c -V must validate every ping and exit 0;
#   droce_server: droce-ping -s -v; rping -c -v -V in the VM; droce's "server ping data" lines
#                 (what its RDMA READs brought) and rping's "ping data" lines (what it
#                 validated) must be exactly rping's pattern, both exit 0 (rping's known race
#                 at exit, rping_lib.sh, counts as 0 once all its pings validated).
# Each run has its own capture: tshark decodes every frame and every ICRC verifies
# (wire_check.py), both sides start from the PSNs the CM exchanged (cm_check.py, allowing for
# a lost first packet; lost CM MADs are only noted), and the recovery on the wire is printed (NAKs, retransmissions, netem's
# drops). A run that does not finish within its bound is diagnosed from its capture
# (stall_diag.py): which side stopped answering or retransmits without end - if rxe stalls
# under TCG, the test says so.
# Usage: lossy.sh PATH/TO/droce-ping [ARTIFACT_DIR]
#   LS_SIZE (16000), LS_COUNT (20), LS_SEED (4791), LS_SCENARIOS ("loss reorder loss2"),
#   LS_DIRS ("vm_server droce_server": which directions run)
# Exit 77 = skipped (with the reason). Console logs, captures and outputs go to ARTIFACT_DIR.
set -u
DPING=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
LS_SIZE=${LS_SIZE:-16000}
LS_COUNT=${LS_COUNT:-20}
LS_SEED=${LS_SEED:-4791}
LS_SCENARIOS=${LS_SCENARIOS:-loss reorder loss2}
LS_DIRS=" ${LS_DIRS:-vm_server droce_server} "
RUN_SEC=45
DREQ_WAIT=10
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$DPING" ] || { echo "FAIL - $1 is not an executable droce-ping"; exit 1; }
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.{pcap,log,out,err,ini}

declare -A VM_QDISC=([loss]="netem loss 1%" [reorder]="netem delay 1ms reorder 25% 50%"
	[loss2]="netem loss 1%")
declare -A DROCE_IMPAIR=([loss]="" [reorder]="" [loss2]="drop=1%,seed=$LS_SEED,roce_only")

lab_up_or_exit 1
rping_expected "server ping data: " "$LS_SIZE" "$LS_COUNT" > "$LABI_DIR/want_s"
rping_expected "ping data: " "$LS_SIZE" "$LS_COUNT" > "$LABI_DIR/want_c"
results=()

# vm_drops: what netem dropped on the VM's eth0 since its qdisc was (re)placed
vm_drops() {
	vm_run vm1 "tc -s qdisc show dev eth0" 20 | sed -nE 's/.*\(dropped ([0-9]+),.*/\1/p' | head -1
}

# wire NAME: the run's capture through wire_check.py and cm_check.py; the recovery summary
wire() {
	local pcap="$LABI_DIR/$1.pcap" mac
	mac=$(droce_mac)
	python3 "$HERE/wire_check.py" "$pcap" "$mac" > "$LABI_DIR/$1.wire.log" 2>&1
	check "... $1: every RoCE frame decodes, none malformed, every ICRC verifies" [ $? = 0 ]
	python3 "$HERE/cm_check.py" "$pcap" "$mac" --conns 1 --psn-window 16 --lossy \
		> "$LABI_DIR/$1.cm.log" 2>&1
	check "... $1: CM exchange and starting PSNs (cm_check.py)" [ $? = 0 ]
	grep -vh "^ok" "$LABI_DIR/$1.wire.log" "$LABI_DIR/$1.cm.log" | grep -v "CM MADs" |
		sed 's/^#* */#   /'
}

# vm_dreqs PCAP: how many CM DisconnectRequests the VM sent that reached droce
vm_dreqs() {
	tshark -r "$1" -Y "infiniband && eth.src != $(droce_mac)" -T fields -e _ws.col.Info 2>/dev/null |
		grep -c "DisconnectRequest"
}

# diagnose NAME END: a run that did not finish, from its capture
diagnose() {
	python3 "$HERE/stall_diag.py" "$LABI_DIR/$1.pcap" "$(droce_mac)" "$2" |
		tee "$LABI_DIR/$1.stall.log"
}

for sc in $LS_SCENARIOS; do
	export DPING_CONF="$LABI_DIR/droce-$sc.ini"
	cp "$LABI_DIR/droce.ini" "$DPING_CONF"
	[ -n "${DROCE_IMPAIR[$sc]}" ] && echo "impair_tx = ${DROCE_IMPAIR[$sc]}" >> "$DPING_CONF"
	what="VM eth0: ${VM_QDISC[$sc]}${DROCE_IMPAIR[$sc]:+; droce impair_tx: ${DROCE_IMPAIR[$sc]}}"
	echo "# ---- $sc ($what)"

	# ---- rping -s in the VM, droce-ping -c -V
	name=$sc-vm_server
	[[ $LS_DIRS == *" vm_server "* ]] || name=
	if [ -n "$name" ]; then
	vm_run vm1 "tc qdisc replace dev eth0 root ${VM_QDISC[$sc]}" 20
	lab_capture_start "$name" || exit 1
	vm_cmd vm1 "$LABI_DIR/$name.vm" $((RUN_SEC + 20)) "rping -s -V -S $LS_SIZE -a $VMIP" &
	vmjob=$!
	t=-
	if vm_wait_listen vm1 7174; then
		t0=$(date +%s.%N)
		dping_start "$name" "$RUN_SEC" -c -V -S "$LS_SIZE" -C "$LS_COUNT" -a "$VMIP"
		wait $DPING_PID
		rd=$?
		t=$(secs_since "$t0")
	else
		echo "# rping -s did not listen in the VM within 10 s"
		rd=-
	fi
	tend=$(date +%s.%N)
	[ "$rd" = 0 ] || vm_run vm1 "killall rping" 10 > /dev/null 2>&1
	wait $vmjob
	rv=$?
	lab_capture_stop
	drops=$(vm_drops)
	check "$sc: rping -s (rxe) <- droce-ping -c -V -S $LS_SIZE -C $LS_COUNT: every ping validated, both exit 0 (droce $rd, rping $rv; ${t} s; netem dropped ${drops:-?})" \
		"$([ "$rd/$rv" = 0/0 ] && ! grep -q "data mismatch" "$LABI_DIR/$name.droce.err" &&
			echo true || echo false)"
	if [ "$rd/$rv" != 0/0 ]; then
		dping_lines "$LABI_DIR/$name.droce.err" | tail -n 8 | sed 's/^/#   droce-ping (failed run): /'
		tail -n 8 "$LABI_DIR/$name.vm.err" | sed 's/^/#   rping (failed run): /'
		[ "$rd" = 124 ] && echo "# droce-ping did not finish within $RUN_SEC s"
		diagnose "$name" "$tend"
	fi
	wire "$name"
	results+=("$(printf '%-8s rping -s (rxe) <- droce-ping -c -V  %6s s  netem drops %3s  exit %s/%s' \
		"$sc" "$t" "${drops:-?}" "$rd" "$rv")")
	fi

	# ---- droce-ping -s, rping -c -V in the VM
	name=$sc-droce_server
	[[ $LS_DIRS == *" droce_server "* ]] || name=
	if [ -n "$name" ]; then
	vm_run vm1 "tc qdisc replace dev eth0 root ${VM_QDISC[$sc]}" 20
	lab_capture_start "$name" || exit 1
	dping_start "$name" $((RUN_SEC + 20)) -s -d -v -S "$LS_SIZE" -a "$LABI_DROCE_IP"
	t=-
	if dping_wait_listen "$name"; then
		t0=$(date +%s.%N)
		vm_cmd vm1 "$LABI_DIR/$name.vm" "$RUN_SEC" \
			"rping -c -v -V -S $LS_SIZE -C $LS_COUNT -a $LABI_DROCE_IP"
		rv=$?
		t=$(secs_since "$t0")
		if [ "$rv" = 255 ] && rping_teardown_race "$LABI_DIR/$name.vm.err" &&
			cmp -s "$LABI_DIR/want_c" "$LABI_DIR/$name.vm.out"; then
			echo "# rping -c validated all $LS_COUNT pings, then exited 255 in its known race at exit (DISCONNECTED event, then rdma_get_cm_event: EBADF; tests/interop/rping_lib.sh): counted as exit 0"
			rv=0
		fi
	else
		echo "# droce-ping -s did not listen within 10 s"
		rv=-
	fi
	tend=$(date +%s.%N)
	[ "$rv" = 0 ] || kill -TERM $DPING_PID 2>/dev/null
	# rping done: droce-ping -s ends on the client's DREQ. rping -c destroys its id right after
	# rdma_disconnect(), and Linux's ib_cm cancels a DREQ it has not had answered when its id
	# is destroyed (cm_destroy_id(), state DREQ_SENT): a DREQ netem drops is never sent again,
	# and the server waits for it, rping -s as droce-ping -s. So: up to DREQ_WAIT s for it,
	# then SIGTERM, and the capture says whether a DREQ from the VM ever reached droce.
	for ((i = 0; i < DREQ_WAIT * 10; i++)); do
		kill -0 $DPING_PID 2>/dev/null || break
		sleep 0.1
	done
	stopped=
	kill -0 $DPING_PID 2>/dev/null && stopped=1 && kill -TERM $DPING_PID
	wait $DPING_PID
	rd=$?
	lab_capture_stop
	drops=$(vm_drops)
	dreqs=$(vm_dreqs "$LABI_DIR/$name.pcap")
	if [ -n "$stopped" ] && [ "$rv" = 0 ]; then
		echo "# droce-ping -s had not ended ${DREQ_WAIT} s after rping -c (stopped by SIGTERM: exit $rd); DREQs from the VM in the capture: $dreqs"
		lost=false
		[ "$dreqs" = 0 ] && [ "$rd" = 143 ] && lost=true
		check "... $sc: droce-ping -s waited only for a DREQ that never reached it (netem dropped it, and ib_cm does not resend it once rping destroyed its id)" $lost
		$lost && rd=0
	fi
	check "$sc: droce-ping -s <- rping -c -V -S $LS_SIZE -C $LS_COUNT: rping validated, both exit 0 (droce $rd, rping $rv; ${t} s; netem dropped ${drops:-?})" \
		"$([ "$rd/$rv" = 0/0 ] && ! grep -q "data mismatch" "$LABI_DIR/$name.vm.err" &&
			echo true || echo false)"
	check "... $sc: what droce's RDMA READs brought is rping's data, ping for ping" \
		cmp -s "$LABI_DIR/want_s" <(grep -a "^server ping data: " "$LABI_DIR/$name.droce.out")
	check "... $sc: rping -c -v printed the $LS_COUNT pings it validated, each as expected" \
		cmp -s "$LABI_DIR/want_c" "$LABI_DIR/$name.vm.out"
	if [ "$rd/$rv" != 0/0 ]; then
		# "failed run" in each line: the suite's summary keeps lines that say fail
		dping_lines "$LABI_DIR/$name.droce.err" | tail -n 8 | sed 's/^/#   droce-ping (failed run): /'
		cat "$LABI_DIR/$name.vm.out" "$LABI_DIR/$name.vm.err" | tail -n 8 |
			sed 's/^/#   rping (failed run): /'
		[ "$rv" = 143 ] && echo "# rping -c did not finish within $RUN_SEC s"
		diagnose "$name" "$tend"
	fi
	wire "$name"
	results+=("$(printf '%-8s droce-ping -s <- rping -c -V (rxe)  %6s s  netem drops %3s  exit %s/%s' \
		"$sc" "$t" "${drops:-?}" "$rd" "$rv")")
	fi
	vm_run vm1 "tc qdisc del dev eth0 root" 20 > /dev/null 2>&1
done

echo "# results (impairment, direction, the client's wall time, netem's drops in the VM, exit statuses droce/rping):"
printf '#   %s\n' "${results[@]}"
echo "# interop_lossy took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
