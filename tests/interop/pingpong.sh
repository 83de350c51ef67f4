#!/usr/bin/env bash
# Interop test: droce-pingpong against rdma-core's ibv_rc_pingpong on Linux soft-RoCE
# (rdma_rxe in a QEMU VM running Debian's kernel; tests/interop/lab.sh). One VM is booted
# once; then, for 1 B, 4 KiB and 64 KiB messages (64 KiB is 64 packets at rxe's path MTU
# 1024), in both directions:
#   vm-server: ibv_rc_pingpong in the VM listens, droce-pingpong connects to it;
#   droce-server: droce-pingpong listens, ibv_rc_pingpong in the VM connects.
# Both use -g 1 (the IPv4-mapped RoCEv2 GID), -m 1024, -n $PP_ITERS and --chk: each side must
# exit 0 and print its result lines; ibv_rc_pingpong's --chk verdict ("invalid data") must not
# appear; droce checks every received message byte for byte.
# Wire check: tshark captures the bridge port towards droce during all of it; every RoCE frame
# (droce's and rxe's) must decode as InfiniBand with nothing malformed or error-level, and
# every ICRC must verify (wire_check.py).
# Then once more as server with droce's device on two lanes (--qp-lcore 1), 64 KiB.
# Usage: pingpong.sh PATH/TO/droce-pingpong [ARTIFACT_DIR]
# Exit 77 = skipped (with the reason). Console logs, capture and logs go to ARTIFACT_DIR.
set -u
PP=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
PP_ITERS=${PP_ITERS:-50}
PP_SIZES=${PP_SIZES:-1 4096 65536}
T0=$SECONDS
. "$HERE/lab.sh"
trap lab_down EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
# the previous run's artifacts would mislead
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.log "$LABI_ARTIFACTS"/*.pcap

fails=0
results=()
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
# result LOG: "usec/iter" of rc_pingpong's iteration line, or "-"
result() { sed -nE 's/^[0-9]+ iters in [0-9.]+ seconds = ([0-9.]+) usec\/iter$/\1/p' "$1" | head -1; }

lab_up_or_exit 1
lab_capture_start pingpong || exit 1
vm_run vm1 "ibv_devinfo -d rxe0 | grep -E 'state|active_mtu'; cat /sys/class/infiniband/rxe0/ports/1/gids/1" 30 |
	sed 's/^/# vm1: /'

# droce_pp NAME ARGS...: start droce-pingpong in the droce namespace (PID in DROCE_PID; it is
# timeout's, which passes a SIGTERM on), log in $LABI_DIR/NAME.droce.log
droce_pp() {
	local name=$1
	shift
	ip netns exec "$LABI_DNS" timeout 180 "$PP" -c "$LABI_DIR/${DROCE_INI:-droce.ini}" "$@" \
		> "$LABI_DIR/$name.droce.log" 2>&1 &
	DROCE_PID=$!
	LABI_PIDS+=($DROCE_PID)
}

# both_ok NAME RC_DROCE RC_VM
both_ok() {
	local name=$1 rd=$2 rv=$3 ok=true
	[ "$rd" = 0 ] && [ "$rv" = 0 ] || ok=false
	grep -q "invalid data" "$LABI_DIR/$name.vm.log" "$LABI_DIR/$name.droce.log" && ok=false
	[ -n "$(result "$LABI_DIR/$name.droce.log")" ] && [ -n "$(result "$LABI_DIR/$name.vm.log")" ] ||
		ok=false
	results+=("$(printf '%-13s %6s B  droce %9s us/iter  rxe %9s us/iter  exit %s/%s' \
		"${name%%-*}" "${name##*-}" "$(result "$LABI_DIR/$name.droce.log")" \
		"$(result "$LABI_DIR/$name.vm.log")" "$rd" "$rv")")
	if ! $ok; then
		echo "# droce-pingpong (exit $rd):"; grep -v "^EAL:" "$LABI_DIR/$name.droce.log" | sed 's/^/#   /'
		echo "# ibv_rc_pingpong (exit $rv):"; sed 's/^/#   /' "$LABI_DIR/$name.vm.log"
	fi
	$ok
}

common=(-g 1 -m 1024 -n "$PP_ITERS")

# droce_serves NAME SIZE [ARGS...]: droce-pingpong serves (with ARGS), ibv_rc_pingpong connects
# from the VM once droce listens; sets name, rd (droce's exit) and rv (the VM's)
droce_serves() {
	name=$1
	local size=$2 i
	shift 2
	droce_pp "$name" "${common[@]}" -s "$size" --chk "$@"
	for ((i = 0; i < 300; i++)); do
		grep -q "local address:" "$LABI_DIR/$name.droce.log" 2>/dev/null && break
		kill -0 $DROCE_PID 2>/dev/null || break
		sleep 0.1
	done
	vm_run vm1 "ibv_rc_pingpong -d rxe0 ${common[*]} -s $size --chk $LABI_DROCE_IP" 150 \
		> "$LABI_DIR/$name.vm.log" 2>&1
	rv=$?
	[ $rv = 0 ] || kill -TERM $DROCE_PID 2>/dev/null
	wait $DROCE_PID
	rd=$?
}
for size in $PP_SIZES; do
	# ibv_rc_pingpong serves in the VM; droce-pingpong connects (it retries while the server
	# is not listening yet)
	name=vm_server-$size
	vm_run vm1 "ibv_rc_pingpong -d rxe0 ${common[*]} -s $size --chk" 150 > "$LABI_DIR/$name.vm.log" 2>&1 &
	vmjob=$!
	droce_pp "$name" "${common[@]}" -s "$size" --chk "$VMIP"
	wait $DROCE_PID
	rd=$?
	# a failed client leaves the server waiting: end it rather than wait for its bound
	[ $rd = 0 ] || vm_run vm1 "killall ibv_rc_pingpong" 10 > /dev/null 2>&1
	wait $vmjob
	rv=$?
	check "ibv_rc_pingpong server (rxe) <- droce-pingpong client, $size B x $PP_ITERS, data checked" \
		both_ok "$name" $rd $rv

	droce_serves droce_server-$size "$size"
	check "droce-pingpong server <- ibv_rc_pingpong client (rxe), $size B x $PP_ITERS, data checked" \
		both_ok "$name" $rd $rv
done

# Two lanes (issue 12 item 7) against the real peer: droce-pingpong serves with its device on
# lcores 0 and 1 (--qp-lcore 1): the CM, the exchange's QP transitions and the link on lcore 0,
# the QP, its CQ and the traffic on lcore 1 from RTS on; the port has a queue per lcore
# (af_packet qpairs=2, the kernel's fanout picks one), and a lane hands the other the frames it
# gets for the other's QP. Both lcores back off when idle, so the emulated VM keeps a core.
sed -e 's/^lcores = .*/lcores = 0,1/' -e 's/^\(vdev = .*\)$/\1,qpairs=2/' \
	"$LABI_DIR/droce.ini" > "$LABI_DIR/droce2.ini"
printf '\n[stack]\nidle_sleep_us = 50\n' >> "$LABI_DIR/droce2.ini"
DROCE_INI=droce2.ini droce_serves droce_server_lanes-65536 65536 --qp-lcore 1
check "droce-pingpong server on two lanes <- ibv_rc_pingpong client (rxe), 65536 B, data checked" \
	both_ok "$name" $rd $rv
lanes=$(grep "droce-pingpong: lanes:" "$LABI_DIR/$name.droce.log")
echo "# droce: ${lanes:-no lanes line}"
# its engines ran on the main lcore until RTS, then on lcore 1 only (two changes); the frames
# the kernel's fanout put on lane 0's queue were handed over (printed: the fanout may put all
# of one flow on either queue, so the count is not checked)
check "two lanes: the QP lived on lcore 1 from RTS on (2 lcore changes), joined lane 1, no call from a wrong lcore" \
	grep -qE "home is lcore 1; its engines changed lcore 2 times; QPs joined a lane [1-9].*calls from a wrong lcore 0$" <<< "$lanes"
lab_capture_stop

droce_mac=$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR"/*.droce.log | head -1)
echo "# wire check of pingpong.pcap${LABI_ARTIFACTS:+ (kept in $LABI_ARTIFACTS)}, droce is $droce_mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/pingpong.pcap" "$droce_mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]

echo "# results (direction, size, time per iteration as each side reports it):"
printf '#   %s\n' "${results[@]}"
echo "# interop suite took $((SECONDS - T0)) s; $fails check(s) failed"
[ $fails = 0 ]
