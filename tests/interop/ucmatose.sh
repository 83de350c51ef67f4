#!/usr/bin/env bash
# Interop test: droce-ucmatose (apps/droce-ucmatose.c) against rdma-core 44's ucmatose on
# Linux soft-RoCE (rdma_rxe in the lab's QEMU VM), both directions, with -c $UC_CONNS (100)
# connections at once and ucmatose's defaults -C 10 -S 100:
#   ucmatose (VM) <- droce-ucmatose -s VM;  droce-ucmatose <- ucmatose -s droce (VM).
# Both sides exit 0 and print exactly ucmatose's lines; droce's QPs, CQs, MRs, CM identifiers
# and in-use mbufs are at the end what they were at the start (-r). Wire check: every RoCE
# frame decodes with nothing malformed and every ICRC verifies (wire_check.py); a
# ConnectRequest per connection and no ConnectReject.
# Usage: ucmatose.sh APPS_DIR [ARTIFACT_DIR]   (UC_CONNS) Exit 77 = skipped (with the reason).
set -u
APPS=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
UC_CONNS=${UC_CONNS:-100}
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
. "$HERE/cmtools_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
UC=$APPS/droce-ucmatose
[ -x "$UC" ] || { echo "FAIL - $UC is not an executable"; exit 1; }
lab_up_or_exit 1
lab_capture_start ucmatose || exit 1
SRV=$'cmatose: starting server\ninitiating data transfers\ncompleting sends\nreceiving data transfers\ndata transfers complete\ncmatose: disconnecting\ndisconnected\ntest complete\nreturn status 0'
CLI=$'cmatose: starting client\ncmatose: connecting\nreceiving data transfers\nsending replies\ndata transfers complete\ntest complete\nreturn status 0'
results=()
# counts NAME: droce's resource lines equal
counts() {
	local s e
	s=$(grep -a "resources at start" "$LABI_DIR/$1.droce.err" | sed 's/.*start: //')
	e=$(grep -a "resources at end" "$LABI_DIR/$1.droce.err" | sed 's/.*end: //')
	echo "# droce's resources: start: $s; end: $e"
	[ "${s:-none}" = "$e" ]
}

name=vm_server
t0=$SECONDS
vm_serves "$name" 7471 "ucmatose -c $UC_CONNS" -- "$UC" -r -s "$VMIP" -c "$UC_CONNS"
t=$((SECONDS - t0))
check "ucmatose (rxe) -c $UC_CONNS <- droce-ucmatose: both exit 0 (droce $RD, Linux $RV) in $t s" [ "$RD/$RV" = 0/0 ]
check "... both print ucmatose's lines" \
	eval 'same_lines "$CLI" "$LABI_DIR/$name.droce.out" && same_lines "$SRV" "$LABI_DIR/$name.vm.out"'
check "... droce's QPs, CQs, MRs, CM ids and mbufs are back where they started" counts "$name"
[ "$RD/$RV" = 0/0 ] || show "$name"
results+=("ucmatose (rxe) <- droce-ucmatose -c $UC_CONNS: droce $RD / Linux $RV, $t s")

name=droce_server
t0=$SECONDS
droce_serves "$name" "$UC" -r -c "$UC_CONNS" -- "ucmatose -s $LABI_DROCE_IP -c $UC_CONNS"
t=$((SECONDS - t0))
check "droce-ucmatose -c $UC_CONNS <- ucmatose (rxe): both exit 0 (droce $RD, Linux $RV) in $t s" [ "$RD/$RV" = 0/0 ]
check "... both print ucmatose's lines" \
	eval 'same_lines "$SRV" "$LABI_DIR/$name.droce.out" && same_lines "$CLI" "$LABI_DIR/$name.vm.out"'
check "... droce's QPs, CQs, MRs, CM ids and mbufs are back where they started" counts "$name"
[ "$RD/$RV" = 0/0 ] || show "$name"
results+=("droce-ucmatose <- ucmatose (rxe) -c $UC_CONNS: droce $RD / Linux $RV, $t s")

lab_capture_stop
mac=$(droce_mac)
echo "# wire check of ucmatose.pcap, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/ucmatose.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
n_req=$(cm_mads "$LABI_DIR/ucmatose.pcap" 0x0010)
n_rej=$(cm_mads "$LABI_DIR/ucmatose.pcap" 0x0012)
check "wire: $((2 * UC_CONNS)) ConnectRequests, no ConnectReject (got $n_req, $n_rej)" \
	[ "$n_req/$n_rej" = $((2 * UC_CONNS))/0 ]
printf '# %s\n' "${results[@]}"
echo "# interop_ucmatose took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
