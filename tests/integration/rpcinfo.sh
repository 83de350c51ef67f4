#!/usr/bin/env bash
# Integration test: droce's portmapper and an RPC test program (tests/rpc/orpc_testd) answer
# Linux's rpcinfo (libtirpc's client, from Debian's rpcbind package) in a network namespace of
# their own, over TCP and UDP:
#   1. rpcinfo -p: PMAP v2 DUMP lists the portmapper v2-4 and the test programs on tcp/udp;
#   2. rpcinfo (RPCBIND v4 DUMP, falling back to v3) lists every netid, rdma included (RFC
#      5665), with universal addresses;
#   3. rpcinfo -t / -u: the portmapper's GETPORT/GETADDR, then NULL calls over TCP and UDP;
#   4. rpcinfo -t PROG 9: the server's PROG_MISMATCH (low 1, high 2) reaches the client;
#   5. an unregistered program is "not registered" (GETPORT returns 0).
# Usage: rpcinfo.sh PATH/TO/orpc_testd      Exit 77 = skipped (with the reason).
set -u
TESTD=$(readlink -f "$1")
NS=droce-rpcinfo-$$
PROG=536871065 # 0x20000099, orpc_testprog.h

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
if ! command -v rpcinfo >/dev/null; then echo "SKIP: rpcinfo not installed (Debian package rpcbind)"; exit 77; fi
if ! ip netns add "$NS" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
out=$(mktemp -d)
cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
ip -n "$NS" link set lo up

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
has() { grep -Eq "$2" "$out/$1" || { echo "     $1 lacks /$2/:"; sed 's/^/       /' "$out/$1"; return 1; }; }
run() { timeout 20 ip netns exec "$NS" "$@"; }

ip netns exec "$NS" "$TESTD" 127.0.0.1 120 > "$out/testd" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q ready "$out/testd" && break; sleep 0.1; done
check "orpc_testd serves in its namespace" grep -q ready "$out/testd"

run rpcinfo -p 127.0.0.1 > "$out/p" 2>&1
check "rpcinfo -p lists portmapper v2 on tcp 111" has p '^ +100000 +2 +tcp +111 +portmapper'
check "rpcinfo -p lists portmapper v4 on udp 111" has p '^ +100000 +4 +udp +111 +portmapper'
check "rpcinfo -p lists the test program v1 and v2 on tcp and udp 20050" \
	bash -c "[ \$(grep -Ec '^ +$PROG +[12] +(tcp|udp) +20050' '$out/p') = 4 ]"

run rpcinfo 127.0.0.1 > "$out/dump" 2>&1
check "RPCBIND DUMP: the test program on tcp at 127.0.0.1.78.82 (port 20050)" \
	has dump "^ +$PROG +1 +tcp +127\.0\.0\.1\.78\.82 "
check "RPCBIND DUMP: the rdma netid at port 20049 (RFC 5665)" \
	has dump "^ +$PROG +1 +rdma +127\.0\.0\.1\.78\.81 "
check "RPCBIND DUMP: droce owns every entry" bash -c "! grep -E '^ +[0-9]' '$out/dump' | grep -vq droce"

run rpcinfo -t 127.0.0.1 $PROG > "$out/t" 2>&1
check "rpcinfo -t: NULL over TCP to versions 1 and 2" \
	bash -c "grep -q 'version 1 ready and waiting' '$out/t' && grep -q 'version 2 ready and waiting' '$out/t'"
run rpcinfo -u 127.0.0.1 $PROG 2 > "$out/u" 2>&1
check "rpcinfo -u: NULL over UDP to version 2" has u 'version 2 ready and waiting'
run rpcinfo -t 127.0.0.1 100000 2 > "$out/pm" 2>&1
check "rpcinfo -t: the portmapper itself answers NULL" has pm 'program 100000 version 2 ready and waiting'

run rpcinfo -t 127.0.0.1 $PROG 9 > "$out/mis" 2>&1
check "PROG_MISMATCH low 1 high 2 reaches rpcinfo" has mis 'low version = 1, high version = 2'
run rpcinfo -t 127.0.0.1 536871000 1 > "$out/none" 2>&1
check "an unserved program is not registered" has none 'not registered|Program not registered'

kill "$pid"; wait "$pid"; pid=
echo "server counters:"; sed 's/^/    /' "$out/testd"
check "the server answered every call (no drops, no garbage)" \
	bash -c "! grep -q 'DROP\|garbage [1-9]' '$out/testd'"
echo "$fails failed"
[ "$fails" = 0 ]
