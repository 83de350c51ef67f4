#!/usr/bin/env bash
# Interop test: Linux's rpcinfo (nfs-common/rpcbind 1.2.6, libtirpc) in the lab VM against
# droce's portmapper at droce's own address. tests/rpc/rpc_serve runs the stack in droce's
# namespace and serves PMAP v2 and RPCBIND v3/v4 on port 111 and the test programs on 20050
# over the kernel's TCP and UDP sockets behind droce's exception TAP, so they speak from
# droce's address, and RPC-over-RDMA on 20049. From the VM:
#   - rpcinfo -p 10.79.0.1: droce's registrations (PMAP v2 DUMP over TCP);
#   - rpcinfo 10.79.0.1: RPCBIND v4 DUMP with netids tcp, udp and rdma (RFC 5665);
#   - rpcinfo -t / -u: GETPORT/GETADDR, then NULL calls to the test program over TCP and UDP;
#   - rpcinfo -t PROG 9: PROG_MISMATCH 1..2 comes back.
# Usage: rpcinfo_vm.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (rpc_serve is looked for next to
# it)      Exit 77 = skipped (with the reason).
set -u
SERVE=$(dirname "$(readlink -f "$1")")/rpc_serve
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
PROG=536871065
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
[ -x "$SERVE" ] || { echo "FAIL - no rpc_serve next to $1"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
has() { grep -Eq "$2" "$LABI_DIR/$1" || { echo "     $1 lacks /$2/:"; sed 's/^/       /' "$LABI_DIR/$1"; return 1; }; }

lab_up_or_exit 1
D=$LABI_DROCE_IP
ip netns exec "$LABI_DNS" timeout 120 "$SERVE" --config "$LABI_DIR/droce.ini" \
	> "$LABI_DIR/serve.out" 2> "$LABI_DIR/serve.err" &
SPID=$!
LABI_PIDS+=("$SPID")
for _ in $(seq 100); do grep -q "^serving" "$LABI_DIR/serve.out" && break; sleep 0.1; done
check "rpc_serve serves at droce's address $D" grep -q "^serving" "$LABI_DIR/serve.out"

vm_run vm1 "rpcinfo -p $D" 60 > "$LABI_DIR/p" 2>&1
vm_run vm1 "rpcinfo $D" 60 > "$LABI_DIR/dump" 2>&1
vm_run vm1 "rpcinfo -t $D $PROG; rpcinfo -u $D $PROG 2; rpcinfo -t $D 100000 4" 60 > "$LABI_DIR/null" 2>&1
vm_run vm1 "rpcinfo -t $D $PROG 9" 60 > "$LABI_DIR/mis" 2>&1
sed 's/^/# vm1: /' "$LABI_DIR/p" "$LABI_DIR/dump" "$LABI_DIR/null" "$LABI_DIR/mis"
check "rpcinfo -p from the VM: portmapper v2 on tcp 111 at droce" has p '^ +100000 +2 +tcp +111 +portmapper'
check "rpcinfo -p from the VM: the test program on tcp and udp 20050" \
	bash -c "[ \$(grep -Ec '^ +$PROG +[12] +(tcp|udp) +20050' '$LABI_DIR/p') = 4 ]"
check "RPCBIND dump from the VM: the rdma netid at $D port 20049" \
	has dump "^ +$PROG +1 +rdma +${D//./\\.}\\.78\\.81 "
check "NULL over TCP (v1, v2) and UDP (v2) through droce's exception TAP, and RPCBIND v4 NULL" \
	bash -c "[ \$(grep -c 'ready and waiting' '$LABI_DIR/null') = 4 ]"
check "PROG_MISMATCH 1..2 reaches rpcinfo in the VM" has mis 'low version = 1, high version = 2'
kill -TERM "$SPID"; wait "$SPID"
sed 's/^/# rpc_serve: /' "$LABI_DIR/serve.out"
check "droce answered every call, nothing dropped or closed as garbage" \
	bash -c "! grep -q 'DROP\|garbage [1-9]' '$LABI_DIR/serve.out'"
[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/serve.* "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# rpcinfo_vm: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
