#!/usr/bin/env bash
# scripts/test.sh - the README's test command: set up, build, and run every test.
#   1. scripts/setup.sh (packages, hugepages)
#   2. build with -Werror, run the unit, lint, integration and interop suites (integration and
#      interop need root; interop boots a QEMU VM with Linux rxe, tests/interop/)
#   3. build again with ASan+UBSan and run the unit suite under it
#   4. build the libFuzzer targets with clang and run each for a bounded number of inputs
# It ends with one line "N passed, N failed, N skipped" over all of it, and exits non-zero
# on any failure.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)

bash scripts/setup.sh || exit 1

logs=()
status=0
# run_build DIR GROUP... -- MESON-OPTIONS...
#   GROUP: SUITE[,SUITE...]:N - those suites' tests, N at a time: 2 for the fuzz suite (each
#   target is one process on one CPU, bounded by its run time); 1 for the others, whose tests
#   spin lcores (two, some of them), time retransmissions and connections between namespaces,
#   or run a TCG VM: two at once on CI's 2 CPUs made the unit suite fail here (lanes_bench_smoke,
#   lat_smoke, gen_rate, roce_cm_churn, under load).
#   Each group's results go in DIR/meson-logs/GROUP-NAME.json.
run_build() {
	local dir=$1; shift
	local groups=() suites=() opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		groups+=("$1")
		IFS=, read -r -a g <<< "${1%%:*}"
		for s in "${g[@]}"; do suites+=(--suite "$s"); done
		shift
	done
	[ $# -gt 0 ] && shift
	opts=("$@")
	echo "=== $dir: meson setup ${opts[*]}"
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1
	else
		meson setup "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1
	fi || { cat "$dir.setup.log"; status=1; return 1; }
	# BUILD_TESTED=1: build only the programs the suites' tests run (the fuzz build: clang
	# compiling every app and unit test again would cost CI minutes and test nothing more)
	local targets=()
	if [ "${BUILD_TESTED:-0}" = 1 ]; then
		mapfile -t targets < <(meson introspect "$dir" --tests | python3 -c '
import json, os, sys
build, want = os.path.abspath(sys.argv[1]) + "/", set(sys.argv[2:])
out = set()
for t in json.load(sys.stdin):
    if want & {s.split(":")[-1] for s in t["suite"]}:
        for a in t["cmd"][:2]:  # the program, or the program a wrapper script runs
            a = a[len(build):] if a.startswith(build) else a
            if a and not a.startswith(("/", "-")):
                out.add(a)
print("\n".join(sorted(out)))' "$dir" "${suites[@]/--suite/}")
		[ ${#targets[@]} -gt 0 ] || { echo "=== $dir: no test programs found"; status=1; return 1; }
	fi
	echo "=== $dir: build ${targets[*]}"
	local t0=$SECONDS
	ninja -C "$dir" -j2 "${targets[@]}" || { status=1; return 1; }
	echo "=== $dir: built in $((SECONDS - t0)) s"
	local grp names n base sargs
	for grp in "${groups[@]}"; do
		names=${grp%%:*}
		n=${grp##*:}
		base=${names//,/-}
		sargs=()
		IFS=, read -r -a g <<< "$names"
		for s in "${g[@]}"; do sargs+=(--suite "$s"); done
		echo "=== $dir: tests (${names}, $n at a time)"
		rm -f "$dir/meson-logs/$base.json"
		t0=$SECONDS
		meson test -C "$dir" "${sargs[@]}" --no-rebuild --print-errorlogs --num-processes "$n" \
			--logbase "$base" || status=1
		echo "=== $dir: tests (${names}) took $((SECONDS - t0)) s"
		logs+=("$dir/meson-logs/$base.json")
	done
}

run_build build-ci unit,lint,integration,interop:1 -- -Dwerror=true -Dbuildtype=debugoptimized
run_build build-asan unit:1 -- -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbench=false -Dbuildtype=debug
# the fuzz suite's 23 targets run 6 s each here, two at a time (their own bounds are 15-40 s):
# CI's 90 minutes hold the interop lab first
BUILD_TESTED=1 DROCE_FUZZ_SECONDS=${DROCE_FUZZ_SECONDS:-6} CC=clang run_build build-fuzz fuzz:2 -- -Dfuzz=true -Dbench=false -Dtests=true \
	-Db_lundef=false -Dbuildtype=debug

python3 scripts/test_summary.py "${logs[@]}" || status=1
exit $status
