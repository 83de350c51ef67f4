#!/usr/bin/env bash
# Interop test: droce-cmtime (apps/droce-cmtime.c) against rdma-core 44's cmtime on Linux
# soft-RoCE (rdma_rxe in the lab's QEMU VM), -c $CT_CONNS (100) connections, both directions,
# and for comparison rxe against itself inside the VM:
#   cmtime (VM) <- droce-cmtime -s VM;  droce-cmtime <- cmtime -s droce (VM);  cmtime <- cmtime
#   in the VM. The servers serve until stopped (as cmtime's does): they are ended afterwards.
# Each client exits 0 and prints cmtime's step lines and its table of seven steps (no "bind
# addr" without -b); the tables are printed for docs/cm.md. Wire check: every RoCE frame
# decodes with nothing malformed and every ICRC verifies (wire_check.py), no ConnectReject.
# Usage: cmtime.sh APPS_DIR [ARTIFACT_DIR]   (CT_CONNS) Exit 77 = skipped (with the reason).
set -u
APPS=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
CT_CONNS=${CT_CONNS:-100}
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
. "$HERE/cmtools_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
CT=$APPS/droce-cmtime
[ -x "$CT" ] || { echo "FAIL - $CT is not an executable"; exit 1; }
lab_up_or_exit 1
lab_capture_start cmtime || exit 1
STEPS=$'creating id\nresolving address\nresolving route\ncreating qp\nconnecting\ndisconnecting\ndestroying id\nstep              total ms     max ms     min us  us / conn'
# table_ok FILE: cmtime's lines, then its seven step rows
table_ok() {
	[ "$(dping_lines "$1" | head -n 8)" = "$STEPS" ] &&
		[ "$(dping_lines "$1" | tail -n +9 | grep -c '^[a-z ]*: *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]*$')" = 7 ]
}

# ---- cmtime serves in the VM, droce-cmtime connects
name=vm_server
vm_cmd vm1 "$LABI_DIR/$name.vm" 150 "cmtime" &
vmjob=$!
if vm_wait_listen vm1 7471; then
	DPING=$CT
	dping_start "$name" 120 -s "$VMIP" -c "$CT_CONNS"
	wait "$DPING_PID"
	RD=$?
else
	RD=-
fi
vm_run vm1 "killall cmtime" 10 > /dev/null 2>&1
wait $vmjob
check "cmtime (rxe) <- droce-cmtime -c $CT_CONNS: droce exits 0 ($RD)" [ "$RD" = 0 ]
check "... and prints cmtime's lines and table" table_ok "$LABI_DIR/$name.droce.out"
echo "# droce-cmtime -c $CT_CONNS against cmtime (rxe):"
dping_lines "$LABI_DIR/$name.droce.out" | tail -n 8 | sed 's/^/#   /'

# ---- droce-cmtime serves, cmtime connects from the VM
name=droce_server
CMT_STOP_SERVER=1 droce_serves "$name" "$CT" -- "cmtime -s $LABI_DROCE_IP -c $CT_CONNS"
check "droce-cmtime <- cmtime (rxe) -c $CT_CONNS: cmtime exits 0 ($RV), droce ends on SIGTERM ($RD)" \
	[ "$RV/$RD" = 0/143 ]
check "... cmtime prints its lines and table" table_ok "$LABI_DIR/$name.vm.out"
echo "# cmtime (rxe) -c $CT_CONNS against droce-cmtime:"
dping_lines "$LABI_DIR/$name.vm.out" | tail -n 8 | sed 's/^/#   /'

# ---- for comparison: rxe against itself in the VM
name=vm_self
vm_cmd vm1 "$LABI_DIR/$name.vm" 150 "cmtime > /dev/null 2>&1 & sleep 2; cmtime -s $VMIP -c $CT_CONNS; rc=\$?; killall cmtime; exit \$rc"
RV=$?
check "cmtime <- cmtime inside the VM (rxe loopback): exit 0 ($RV)" [ "$RV" = 0 ]
echo "# cmtime (rxe) -c $CT_CONNS against cmtime (rxe), both in the VM:"
dping_lines "$LABI_DIR/$name.vm.out" | tail -n 8 | sed 's/^/#   /'

lab_capture_stop
mac=$(droce_mac)
echo "# wire check of cmtime.pcap, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/cmtime.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
n_rej=$(cm_mads "$LABI_DIR/cmtime.pcap" 0x0012)
check "wire: no ConnectReject (got $n_rej)" [ "$n_rej" = 0 ]
echo "# interop_cmtime took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
