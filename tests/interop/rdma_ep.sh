#!/usr/bin/env bash
# Interop test: droce-rdma-server / droce-rdma-client (apps/droce-rdma-ep.c) against rdma-core
# 44's rdma_server / rdma_client on Linux soft-RoCE (rdma_rxe in the lab's QEMU VM), both
# directions, on the default port 7471 and on -p 7999:
#   rdma_server (VM) <- droce-rdma-client -s VM;  droce-rdma-server <- rdma_client -s droce.
# Both sides exit 0 and print exactly "rdma_xxx: start" / "rdma_xxx: end 0" (one 16-byte
# SEND each way, inline on both ends). Wire check: tshark on the bridge port towards droce:
# every RoCE frame decodes with nothing malformed and every ICRC verifies (wire_check.py);
# 4 ConnectRequests and no ConnectReject.
# Usage: rdma_ep.sh APPS_DIR [ARTIFACT_DIR]   (APPS_DIR holds droce-rdma-server/-client)
# Exit 77 = skipped (with the reason).
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
for t in droce-rdma-server droce-rdma-client; do
	[ -x "$APPS/$t" ] || { echo "FAIL - $APPS/$t is not an executable"; exit 1; }
done
lab_up_or_exit 1
lab_capture_start rdma_ep || exit 1
SRV_LINES=$'rdma_server: start\nrdma_server: end 0'
CLI_LINES=$'rdma_client: start\nrdma_client: end 0'
results=()
for port in 7471 7999; do
	p=""; [ $port = 7471 ] || p="-p $port"
	name=vm_server-$port
	vm_serves "$name" $port "rdma_server -s $VMIP $p" -- "$APPS/droce-rdma-client" -s "$VMIP" $p
	check "rdma_server (rxe) $p <- droce-rdma-client: both exit 0 (droce $RD, Linux $RV)" [ "$RD/$RV" = 0/0 ]
	check "... both print the originals' start/end 0 lines" \
		eval 'same_lines "$CLI_LINES" "$LABI_DIR/$name.droce.out" && same_lines "$SRV_LINES" "$LABI_DIR/$name.vm.out"'
	[ "$RD/$RV" = 0/0 ] || show "$name"
	results+=("rdma_server (rxe) <- droce-rdma-client, port $port: droce $RD / Linux $RV")

	name=droce_server-$port
	droce_serves "$name" "$APPS/droce-rdma-server" $p -- "rdma_client -s $LABI_DROCE_IP $p"
	check "droce-rdma-server $p <- rdma_client (rxe): both exit 0 (droce $RD, Linux $RV)" [ "$RD/$RV" = 0/0 ]
	check "... both print the originals' start/end 0 lines" \
		eval 'same_lines "$SRV_LINES" "$LABI_DIR/$name.droce.out" && same_lines "$CLI_LINES" "$LABI_DIR/$name.vm.out"'
	[ "$RD/$RV" = 0/0 ] || show "$name"
	results+=("droce-rdma-server <- rdma_client (rxe), port $port: droce $RD / Linux $RV")
done
lab_capture_stop
mac=$(droce_mac)
echo "# wire check of rdma_ep.pcap, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/rdma_ep.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
n_req=$(cm_mads "$LABI_DIR/rdma_ep.pcap" 0x0010)
n_rej=$(cm_mads "$LABI_DIR/rdma_ep.pcap" 0x0012)
check "wire: 4 ConnectRequests, no ConnectReject (got $n_req, $n_rej)" [ "$n_req/$n_rej" = 4/0 ]
printf '# %s\n' "${results[@]}"
echo "# interop_rdma_ep took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
