#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS SCRATCH [libFuzzer options]: a bounded libFuzzer run that reads
# the committed CORPUS and writes what it finds into SCRATCH (never into the source tree).
fz=$1 corpus=$2 scratch=$3; shift 3
mkdir -p "$scratch"
# libFuzzer's own exit code for a finding is 77, which meson reads as "skipped": a crash, a leak
# or a timeout must fail the test
# DROCE_FUZZ_SECONDS, when set, bounds every target's run to that many seconds instead of its
# own -max_total_time (libFuzzer takes the last of a repeated flag): scripts/test.sh sets it so
# the fuzz suite fits CI's time with the others
[ -n "${DROCE_FUZZ_SECONDS:-}" ] && set -- "$@" "-max_total_time=$DROCE_FUZZ_SECONDS"
exec "$fz" -error_exitcode=1 -timeout_exitcode=1 "$@" "$scratch" "$corpus"
