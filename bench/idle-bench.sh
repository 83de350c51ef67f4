#!/usr/bin/env bash
# idle: what the idle back-off ([stack] idle_sleep_us, docs/config.md) costs and saves, in one
# run. droce-pingpong in two network namespaces over a veth pair (net_af_packet), the server
# in B with or without the back-off, the client in A always spinning:
#   - latency: 64 B RC ping-pong, usec/iter from the client (rc_pingpong's own line), with
#     the server spinning (the baseline), backing off after 1 ms idle (the default), and
#     backing off after 0 us (it sleeps whenever a round found nothing: the worst case);
#   - CPU at rest: the server's CPU time over 3 s while it waits for its client (from
#     /proc/PID/stat), spinning against backing off;
#   - the appliance at rest: droce-nfsd (found beside droce-pingpong) serving an export in B
#     with no client, its whole process's CPU time over 3 s (the lcore, the helper threads,
#     the telemetry and interrupt threads), spinning against the back-off the shipped
#     conf/droce-nfsd.ini sets (idle_sleep_us = 50).
# Prints a table and writes JSON (--json FILE). Asserts nothing about speed.
# Usage: idle-bench.sh PATH/TO/droce-pingpong [--json FILE]      Exit 77 = skipped.
set -u
PP=$(readlink -f "$1")
JSON=
[ "${2:-}" = --json ] && JSON=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
lab_up > /dev/null
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
SLEEP_US=50
# server_ini NAME AFTER_US: b.ini with the back-off (AFTER_US empty: none)
server_ini() {
	cp "$LAB_DIR/b.ini" "$LAB_DIR/$1.ini"
	[ -n "$2" ] && printf '\n[stack]\nidle_sleep_us = %s\nidle_after_us = %s\n' "$SLEEP_US" "$2" >> "$LAB_DIR/$1.ini"
}
server_ini spin ""
server_ini idle1ms 1000
server_ini idle0 0
ITERS=3000

# lat CONF: usec/iter of one 64 B ping-pong run against a server with CONF
lat() {
	local i
	ip netns exec "$LAB_NS_B" timeout 60 "$PP" -c "$LAB_DIR/$1.ini" -s 64 -n $ITERS \
		> "$LAB_DIR/srv.log" 2>&1 &
	local srv=$!
	for ((i = 0; i < 100; i++)); do grep -q "local address:" "$LAB_DIR/srv.log" 2>/dev/null && break; sleep 0.1; done
	ip netns exec "$LAB_NS_A" timeout 60 "$PP" -c "$LAB_DIR/a.ini" -s 64 -n $ITERS "$LAB_IP4_B" \
		> "$LAB_DIR/cli.log" 2>&1
	wait $srv
	sed -nE 's/^[0-9]+ iters in [0-9.]+ seconds = ([0-9.]+) usec\/iter$/\1/p' "$LAB_DIR/cli.log"
}

# cpu CONF: the server's CPU seconds over 3 s of waiting for a client
cpu() {
	local i
	ip netns exec "$LAB_NS_B" timeout 30 "$PP" -c "$LAB_DIR/$1.ini" -s 64 -n 10 \
		> "$LAB_DIR/srv.log" 2>&1 &
	local pid=$!
	for ((i = 0; i < 100; i++)); do grep -q "local address:" "$LAB_DIR/srv.log" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	local real
	real=$(pgrep -P "$pid" -f droce-pingpong | head -n 1)
	[ -z "$real" ] && real=$pid
	local t0 t1
	t0=$(awk '{ print $14 + $15 }' "/proc/$real/stat")
	sleep 3
	t1=$(awk '{ print $14 + $15 }' "/proc/$real/stat")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }'
}

# nfsd_cpu CONF: droce-nfsd's CPU seconds over 3 s with no client (whole process)
NFSD=$(dirname "$PP")/droce-nfsd
nfsd_cpu() {
	local i
	mkdir -p "$LAB_DIR/exp" "$LAB_DIR/nstate"
	{ cat "$LAB_DIR/$1.ini"; printf '\n[nfs]\nstate = %s\ngrace = 0\n\n[export e]\npath = %s\nclients = 10.77.0.0/24(rw)\n' \
		"$LAB_DIR/nstate" "$LAB_DIR/exp"; } > "$LAB_DIR/n$1.ini"
	ip netns exec "$LAB_NS_B" timeout 30 "$NFSD" --config "$LAB_DIR/n$1.ini" --seconds 20 \
		> "$LAB_DIR/nfsd.log" 2>&1 &
	local pid=$!
	for ((i = 0; i < 100; i++)); do grep -q "^serving" "$LAB_DIR/nfsd.log" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	local real
	real=$(pgrep -P "$pid" -f droce-nfsd | head -n 1)
	[ -z "$real" ] && real=$pid
	local t0 t1
	t0=$(awk '{ print $14 + $15 }' "/proc/$real/stat")
	sleep 3
	t1=$(awk '{ print $14 + $15 }' "/proc/$real/stat")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }'
}

declare -A L C N
for rep in 1 2 3; do
	for conf in spin idle1ms idle0; do
		L[$conf]="${L[$conf]:-} $(lat $conf)"
	done
done
for conf in spin idle1ms; do C[$conf]=$(cpu $conf); done
if [ -x "$NFSD" ]; then for conf in spin idle1ms; do N[$conf]=$(nfsd_cpu $conf); done; fi

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "nan" }'; }
ls=$(echo "${L[spin]}" | median)
l1=$(echo "${L[idle1ms]}" | median)
l0=$(echo "${L[idle0]}" | median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
printf '%-52s %12s %8s\n' "case (server in B; 64 B RC ping-pong over veth)" "usec/iter" "ratio"
printf '%-52s %12s %8s\n' "server spins (baseline)" "$ls" "1.00"
printf '%-52s %12s %8s\n' "server backs off after 1 ms idle (${SLEEP_US} us sleeps)" "$l1" "$(ratio "$l1" "$ls")"
printf '%-52s %12s %8s\n' "server backs off after 0 us (worst case)" "$l0" "$(ratio "$l0" "$ls")"
printf '%-52s %12s\n' "runs (usec/iter): spin" "${L[spin]}"
printf '%-52s %12s\n' "runs (usec/iter): after 1 ms" "${L[idle1ms]}"
printf '%-52s %12s\n' "runs (usec/iter): after 0 us" "${L[idle0]}"
printf '%-52s %12s\n' "CPU seconds in 3 s at rest, spinning" "${C[spin]}"
printf '%-52s %12s\n' "CPU seconds in 3 s at rest, backing off" "${C[idle1ms]}"
printf '%-52s %12s\n' "droce-nfsd, no client: CPU s in 3 s, spinning" "${N[spin]:-n/a}"
printf '%-52s %12s\n' "droce-nfsd, no client: CPU s in 3 s, backing off" "${N[idle1ms]:-n/a}"
if [ -n "$JSON" ]; then
	cat > "$JSON" <<EOJ
{"bench": "idle", "iters": $ITERS, "sleep_us": $SLEEP_US,
 "lat_usec": {"spin": $ls, "idle_after_1ms": $l1, "idle_after_0": $l0},
 "ratio_vs_spin": {"idle_after_1ms": $(ratio "$l1" "$ls"), "idle_after_0": $(ratio "$l0" "$ls")},
 "cpu_s_in_3s_at_rest": {"spin": ${C[spin]}, "idle": ${C[idle1ms]}},
 "nfsd_cpu_s_in_3s_at_rest": {"spin": ${N[spin]:-null}, "idle": ${N[idle1ms]:-null}}}
EOJ
fi
