#!/usr/bin/env bash
# Interop test: droce-udaddy (apps/droce-udaddy.c) against rdma-core 44's udaddy on Linux
# soft-RoCE (rdma_rxe in the lab's QEMU VM), both directions, with udaddy's defaults (-c 1
# -C 10 -S 100) and with -c 10 -S 1000:
#   udaddy (VM) <- droce-udaddy -s VM;  droce-udaddy <- udaddy -s droce (VM).
# The UD QPs are resolved through SIDR (SIDR_REQ/SIDR_REP, the UDP port space's Q_Key
# 0x01234567), the datagrams are SEND_WITH_IMMs carrying the sender's QPN, and each server
# answers from the address in the GRH area of what it received (droce synthesizes it). Both
# sides exit 0 and print exactly udaddy's lines. Wire check: every RoCE frame decodes with
# nothing malformed and every ICRC verifies (wire_check.py); at least 22 SIDR_REQs and REPs.
# Usage: udaddy.sh APPS_DIR [ARTIFACT_DIR]   Exit 77 = skipped (with the reason).
set -u
APPS=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
. "$HERE/cmtools_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
UD=$APPS/droce-udaddy
[ -x "$UD" ] || { echo "FAIL - $UD is not an executable"; exit 1; }
lab_up_or_exit 1
lab_capture_start udaddy || exit 1
SRV=$'udaddy: starting server\nreceiving data transfers\nsending replies\ndata transfers complete\ntest complete\nreturn status 0'
CLI=$'udaddy: starting client\nudaddy: connecting\ninitiating data transfers\nreceiving data transfers\ndata transfers complete\ntest complete\nreturn status 0'
results=()
for args in "" "-c 10 -S 1000"; do
	tag=${args// /}
	name=vm_server$tag
	t0=$SECONDS
	vm_serves "$name" 7174 "udaddy $args" -- "$UD" -s "$VMIP" $args
	check "udaddy (rxe) ${args:-(defaults)} <- droce-udaddy: both exit 0 (droce $RD, Linux $RV)" [ "$RD/$RV" = 0/0 ]
	check "... both print udaddy's lines" \
		eval 'same_lines "$CLI" "$LABI_DIR/$name.droce.out" && same_lines "$SRV" "$LABI_DIR/$name.vm.out"'
	[ "$RD/$RV" = 0/0 ] || show "$name"
	results+=("udaddy (rxe) <- droce-udaddy ${args:-(defaults)}: droce $RD / Linux $RV, $((SECONDS - t0)) s")

	name=droce_server$tag
	t0=$SECONDS
	droce_serves "$name" "$UD" $args -- "udaddy -s $LABI_DROCE_IP $args"
	check "droce-udaddy ${args:-(defaults)} <- udaddy (rxe): both exit 0 (droce $RD, Linux $RV)" [ "$RD/$RV" = 0/0 ]
	check "... both print udaddy's lines" \
		eval 'same_lines "$SRV" "$LABI_DIR/$name.droce.out" && same_lines "$CLI" "$LABI_DIR/$name.vm.out"'
	[ "$RD/$RV" = 0/0 ] || show "$name"
	results+=("droce-udaddy <- udaddy (rxe) ${args:-(defaults)}: droce $RD / Linux $RV, $((SECONDS - t0)) s")
done
lab_capture_stop
mac=$(droce_mac)
echo "# wire check of udaddy.pcap, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/udaddy.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
n_req=$(cm_mads "$LABI_DIR/udaddy.pcap" 0x0017)
n_rep=$(cm_mads "$LABI_DIR/udaddy.pcap" 0x0018)
# rxe under TCG resends a SIDR_REQ that droce has not answered yet (Linux's SIDR timeout is
# short): more requests than exchanges is expected, fewer answers is not
check "wire: at least 22 SIDR_REQs and 22 SIDR_REPs (got $n_req, $n_rep)" \
	eval '[ "$n_req" -ge 22 ] && [ "$n_rep" -ge 22 ]'
printf '# %s\n' "${results[@]}"
echo "# interop_udaddy took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
