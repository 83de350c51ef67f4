#!/usr/bin/env bash
# Interop test: droce-gen --catalogue (issue 18 item 2) against Linux soft-RoCE (rdma_rxe in
# the lab's QEMU VM; tests/interop/lab.sh). perftest's ib_write_bw and ib_atomic_bw serve in
# the VM (-q N: one QP per catalogue entry, -x 1: the IPv4-mapped GID); droce-gen connects to
# each as a perftest client with made-up keys, sends every entry's malformed or adversarial
# frames to its QP, classifies rxe's replies and probes the QP afterwards (docs/gen.md).
# Each entry must react as the spec says, or as rxe is known to differ from it (the
# deviations listed in apps/gen/gen_cat.c, each with the reason from rxe's source); a
# reaction that is neither fails. Also: both perftest servers finish perftest's exchange and
# exit 0 (nothing the catalogue sent broke rxe or the server). The capture of the bridge port
# is kept as an artifact (its frames are malformed on purpose, so no wire check).
# The verdict table (spec, droce, rxe side by side) is docs/gen.md's.
# Usage: catalogue.sh APPS_DIR [ARTIFACT_DIR]     (APPS_DIR holds droce-gen)
# Exit 77 = skipped (the reason is printed).
set -u
GEN=$(readlink -f "$1/droce-gen")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
WAIT_MS=${CAT_WAIT_MS:-1000} # rxe under TCG answers within a few ms; a margin for stalls
PORT=18515
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (network namespaces, bridge, taps)"; exit 77; fi
. "$HERE/lab.sh"
trap lab_down EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
[ -x "$GEN" ] || { echo "FAIL - $GEN is not an executable droce-gen"; exit 1; }
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.log "$LABI_ARTIFACTS"/*.pcap
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

lab_up_or_exit 1
lab_capture_start catalogue || exit 1
lab_droce_config "$LABI_DIR/cat.ini"
vm_run vm1 "ib_write_bw --version; uname -r" 30 | sed 's/^/# vm1: /'
hex=$(printf '%04X' $PORT)

for verb in write atomic; do
	n=$("$GEN" --catalogue $verb --cat-qps)
	size=""
	[ $verb = write ] && size="-s 4096"
	vm_run vm1 "ib_${verb}_bw -d rxe0 -x 1 -F -q $n $size -n 5" 180 > "$LABI_DIR/$verb.vm.log" 2>&1 &
	vmjob=$!
	for ((i = 0; i < 50; i++)); do
		vm_run vm1 "grep -q ':$hex 00000000:0000 0A' /proc/net/tcp" 10 && break
		kill -0 $vmjob 2>/dev/null || break
		sleep 0.2
	done
	ip netns exec "$LABI_DNS" timeout 150 "$GEN" -c "$LABI_DIR/cat.ini" --catalogue $verb \
		-p "$VMIP:$PORT" --cat-peer rxe --cat-wait "$WAIT_MS" > "$LABI_DIR/$verb.cat.log" 2>&1
	rc=$?
	[ $rc = 0 ] || vm_run vm1 "killall ib_${verb}_bw" 10 > /dev/null 2>&1
	wait $vmjob
	vrc=$?
	grep -v '^EAL\|qdisc\|rte flow\|TELEMETRY' "$LABI_DIR/$verb.cat.log" | sed 's/^/# /'
	check "$verb: droce-gen ran every entry against rxe and exits 0" [ $rc = 0 ]
	check "$verb: ib_${verb}_bw in the VM finished perftest's exchange and exits 0" [ $vrc = 0 ]
	[ $vrc = 0 ] || sed 's/^/#   vm: /' "$LABI_DIR/$verb.vm.log" | grep -v 'GID\|address' | tail -15
	for e in $("$GEN" --cat-list | awk -v v=$verb '$2 == v { print $1 }'); do
		check "$verb: $e as the spec says, or as rxe is known to differ" \
			grep -qE "^$e .* (as the spec says|known deviation)$" "$LABI_DIR/$verb.cat.log"
	done
done
lab_capture_stop
echo "# catalogue: $((SECONDS)) s"
[ $fails = 0 ]
