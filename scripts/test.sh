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
run_build() { # DIR SUITES... -- MESON-OPTIONS...
	local dir=$1; shift
	local suites=() opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do suites+=(--suite "$1"); shift; done
	[ $# -gt 0 ] && shift
	opts=("$@")
	echo "=== $dir: meson setup ${opts[*]}"
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1
	else
		meson setup "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1
	fi || { cat "$dir.setup.log"; status=1; return 1; }
	echo "=== $dir: build"
	ninja -C "$dir" -j2 || { status=1; return 1; }
	echo "=== $dir: tests (${suites[*]})"
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" "${suites[@]}" --print-errorlogs --num-processes 1 || status=1
	logs+=("$dir/meson-logs/testlog.json")
}

run_build build-ci unit lint integration interop -- -Dwerror=true -Dbuildtype=debugoptimized
run_build build-asan unit -- -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbench=false -Dbuildtype=debug
CC=clang run_build build-fuzz fuzz -- -Dfuzz=true -Dbench=false -Dtests=true \
	-Db_lundef=false -Dbuildtype=debug

python3 scripts/test_summary.py "${logs[@]}" || status=1
exit $status
