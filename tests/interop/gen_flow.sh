#!/usr/bin/env bash
# Interop test: droce-gen --flow (issue 18 item 1) against Linux soft-RoCE (rdma_rxe in the
# lab's QEMU VM; tests/interop/lab.sh): droce's RC QPs as the requester, perftest's servers in
# the VM as the peer (-x 1: the IPv4-mapped GID), connected through perftest's TCP exchange.
#   write: ib_write_bw -q 2 -s 65536; droce-gen --flow write, 2 QPs x depth 8, sizes
#          64:1,4096:2,65536:1, 3 s, DSCP 26;
#   read:  ib_read_bw -q 1 -s 65536; droce-gen --flow read, 64 KiB, 3 s.
# Each: droce-gen exits 0 with data moved on every QP and no error completion, ACKs (write) or
# READ responses (read) from rxe; the perftest server exits 0 (droce-gen finished its
# exchange). The wire: every RoCE frame of both runs decodes in tshark as InfiniBand with
# nothing malformed and every ICRC good (wire_check.py).
# Usage: gen_flow.sh APPS_DIR [ARTIFACT_DIR]     (APPS_DIR holds droce-gen)
# Exit 77 = skipped (the reason is printed).
set -u
GEN=$(readlink -f "$1/droce-gen")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
PORT=18515
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (network namespaces, bridge, taps)"; exit 77; fi
. "$HERE/lab.sh"
trap lab_down EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$GEN" ] || { echo "FAIL - $GEN is not an executable droce-gen"; exit 1; }
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.log "$LABI_ARTIFACTS"/*.pcap
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

lab_up_or_exit 1
lab_capture_start gen_flow || exit 1
lab_droce_config "$LABI_DIR/flow.ini"
hex=$(printf '%04X' $PORT)

# run NAME VM_CMD -- GEN_ARGS...: the server in the VM, droce-gen here; RC, VRC
run() {
	local name=$1 vcmd=$2 i
	shift 3
	vm_run vm1 "$vcmd" 120 > "$LABI_DIR/$name.vm.log" 2>&1 &
	local vmjob=$!
	for ((i = 0; i < 50; i++)); do
		vm_run vm1 "grep -q ':$hex 00000000:0000 0A' /proc/net/tcp" 10 && break
		kill -0 $vmjob 2>/dev/null || break
		sleep 0.2
	done
	ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP:$PORT" \
		"$@" > "$LABI_DIR/$name.json" 2> "$LABI_DIR/$name.err"
	RC=$?
	[ $RC = 0 ] || vm_run vm1 "killall ib_write_bw ib_read_bw" 10 > /dev/null 2>&1
	wait $vmjob
	VRC=$?
	echo "# $name: droce-gen exit $RC, the VM's server exit $VRC"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('#  ', {k: d[k] for k in ('messages','bytes','gbps','errors','seconds')}); [print('#    qp', q) for q in d['per_qp']]" "$LABI_DIR/$name.json" 2>/dev/null
	[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/$name.err" | head -5 | sed 's/^/#   /'
	[ $VRC = 0 ] || grep -v 'GID\|address' "$LABI_DIR/$name.vm.log" | tail -8 | sed 's/^/#   vm: /'
}
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); q=d['per_qp']; sys.exit(0 if ($2) else 1)" "$LABI_DIR/$1.json"; }

run write "ib_write_bw -d rxe0 -x 1 -F -q 2 -s 65536 -n 5" -- --flow write --qps 2 --depth 8 \
	--seconds 3 --sizes 64:1,4096:2,65536:1 --dscp 26
check "write: droce-gen exits 0 and ib_write_bw in the VM exits 0" [ "$RC/$VRC" = 0/0 ]
check "write: both QPs moved data, rxe ACKed, no error completion" \
	js write "len(q) == 2 and all(x['messages'] > 0 and x['acks_rx'] > 0 and x['errors'] == 0 for x in q)"
run read "ib_read_bw -d rxe0 -x 1 -F -q 1 -s 65536 -n 5" -- --flow read --qps 1 --depth 4 \
	--seconds 3 --sizes 64k
check "read: droce-gen exits 0 and ib_read_bw in the VM exits 0" [ "$RC/$VRC" = 0/0 ]
check "read: 64 KiB READs answered by rxe, no error completion" \
	js read "q[0]['messages'] > 0 and q[0]['bytes'] == 65536 * q[0]['messages'] and q[0]['short_reads'] == 0 and q[0]['errors'] == 0"
lab_capture_stop
droce_mac=$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/write.err" | head -1)
python3 "$HERE/wire_check.py" "$LABI_DIR/gen_flow.pcap" "$droce_mac" > "$LABI_DIR/wire.log" 2>&1
wrc=$?
sed 's/^/# /' "$LABI_DIR/wire.log" | tail -6
check "the wire: every RoCE frame decodes in tshark, nothing malformed, every ICRC good" [ $wrc = 0 ]
echo "# gen_flow: $SECONDS s"
[ $fails = 0 ]
