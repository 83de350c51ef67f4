#!/usr/bin/env bash
# tests/interop/rping_lib.sh - what the interop lab's RDMA CM tests (rping.sh, bad_rkey.sh,
# lossy.sh) share; sourced after lab.sh. droce-ping (apps/droce-ping, rping on droce) runs in
# the droce namespace, rdma-core's rping (or another verbs program) in the VM.
#
#   check WHAT CMD...          runs CMD; prints "ok   - WHAT" or "FAIL - WHAT" (counts FAILS)
#   vm_wait_listen VM PORT     until an rdma_cm id listens on PORT in VM (rdma res show cm_id)
#   vm_cmd VM LOG SEC CMD      CMD in VM with stdout and stderr kept apart: LOG.out, LOG.err
#                              (the agent merges them); returns CMD's status
#   vm_put VM FILE PATH        copy FILE (a program) to PATH in VM, executable: gzip + base64
#                              through the agent (the image has no other way in); checks md5
#   dping_start NAME SEC ARGS  droce-ping ARGS in the droce namespace, in the background (PID in
#                              DPING_PID, ended after SEC s); NAME.droce.out / NAME.droce.err;
#                              configuration $DPING_CONF (default $LABI_DIR/droce.ini)
#   dping_wait_listen NAME     until droce-ping -s -d says "rdma_listen" (10 s)
#   dping_lines FILE           FILE without the EAL's, the drivers' and the stack's log lines
#   rping_expected PREFIX SIZE COUNT   rping's "ping data" lines for -S SIZE -C COUNT
#   rping_teardown_race FILE   rping -c's stderr FILE is its known race at exit (status 255)
#   droce_mac                  droce's MAC, from the logs of the droce-ping runs
#   keep_artifacts             copy every tool's output to $LABI_ARTIFACTS (lab_down keeps only
#                              the capture and *.log); for the EXIT trap, before lab_down
# Needs: DPING (droce-ping's path), LABI_DIR, LABI_DNS and the lab up.

FAILS=0
check() {
	if "${@:2}"; then
		echo "ok   - $1"
	else
		echo "FAIL - $1"
		FAILS=$((FAILS + 1))
	fi
}

vm_wait_listen() {
	vm_run "$1" "i=0; while ! rdma res show cm_id | grep -q 'LISTEN.*:$2 '; do
		i=\$((i + 1)); [ \$i -gt 100 ] && exit 1; sleep 0.1; done" 30 > /dev/null
}

# The agent returns stdout and stderr as one stream: the VM keeps them in two files and sends
# them back one after the other, split here at a marker line.
vm_cmd() {
	local vm=$1 log=$2 sec=$3 cmd=$4 tag rc
	tag=$(basename "$log")
	vm_run "$vm" "($cmd) > /tmp/$tag.out 2> /tmp/$tag.err; rc=\$?; cat /tmp/$tag.out
		echo '@@droce-lab-stderr@@'; cat /tmp/$tag.err; rm -f /tmp/$tag.out /tmp/$tag.err
		exit \$rc" "$sec" > "$log.raw" 2>&1
	rc=$?
	sed '/^@@droce-lab-stderr@@$/,$d' "$log.raw" > "$log.out"
	sed '0,/^@@droce-lab-stderr@@$/d' "$log.raw" > "$log.err"
	grep -q '^@@droce-lab-stderr@@$' "$log.raw" || cp "$log.raw" "$log.err"
	rm -f "$log.raw"
	return $rc
}

dping_start() {
	local name=$1 sec=$2
	shift 2
	ip netns exec "$LABI_DNS" timeout "$sec" "$DPING" \
		--config "${DPING_CONF:-$LABI_DIR/droce.ini}" "$@" \
		> "$LABI_DIR/$name.droce.out" 2> "$LABI_DIR/$name.droce.err" &
	DPING_PID=$!
	LABI_PIDS+=("$DPING_PID")
}

dping_wait_listen() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "^rdma_listen$" "$LABI_DIR/$1.droce.out" 2>/dev/null && return 0
		kill -0 "$DPING_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

dping_lines() {
	grep -avE '^(EAL|TELEMETRY|droce\.[a-z]+): |^[A-Za-z_0-9]+\(\): ' "$1"
}

# rping_teardown_race FILE: FILE (rping -c's stderr) is exactly rping's race at its exit: the
# server's DREP came back before rping destroyed its id, rping's CM thread took the DISCONNECTED
# event ("client DISCONNECT EVENT...") and its next rdma_get_cm_event() failed with EBADF, which
# cm_thread() turns into exit(-1): status 255 after the test loop ended (rping prints "data
# mismatch!", "wait for ..." or "cq completion failed" when a ping fails; none of those here).
# Seen once in 180 reorder runs here against droce-ping -s (whose DREP leaves within 2 ms of
# the DREQ), and in CI.
rping_teardown_race() {
	[ "$(cat "$1")" = "$(printf 'client DISCONNECT EVENT...\nrdma_get_cm_event: Bad file descriptor')" ]
}

rping_expected() {
	python3 - "$@" <<'PY'
import sys
# rping_test_client(): "rdma-ping-%d: ", then 'A'..'z' rolling, one further each ping; the
# last byte is the NUL
prefix, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start = 65
for ping in range(count):
    s = list(f"rdma-ping-{ping}: ")[:size - 1]
    c = start
    while len(s) < size - 1:
        s.append(chr(c))
        c = 65 if c == 122 else c + 1
    start = 65 if start == 122 else start + 1
    print(prefix + "".join(s))
PY
}

droce_mac() {
	sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR"/*.droce.err 2>/dev/null | head -1
}

keep_artifacts() {
	[ -n "${LABI_ARTIFACTS:-}" ] && [ -d "$LABI_DIR" ] || return 0
	mkdir -p "$LABI_ARTIFACTS"
	if [ -n "${LABI_SINCE:-}" ]; then # a shared lab: only this test's files
		find "$LABI_DIR" -maxdepth 1 -type f \( -name '*.out' -o -name '*.err' -o -name '*.ini' \) \
			-newer "$LABI_SINCE" -exec cp {} "$LABI_ARTIFACTS/" \;
	else
		cp "$LABI_DIR"/*.out "$LABI_DIR"/*.err "$LABI_DIR"/*.ini "$LABI_ARTIFACTS/" 2>/dev/null
	fi
	return 0
}

# secs_since T0: seconds since T0 (date +%s.%N), two decimals
secs_since() {
	python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$1"
}
