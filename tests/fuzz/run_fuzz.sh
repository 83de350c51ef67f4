#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS SCRATCH [libFuzzer options]: a bounded libFuzzer run that reads
# the committed CORPUS and writes what it finds into SCRATCH (never into the source tree).
fz=$1 corpus=$2 scratch=$3; shift 3
mkdir -p "$scratch"
# libFuzzer's own exit code for a finding is 77, which meson reads as "skipped": a crash, a leak
# or a timeout must fail the test
exec "$fz" -error_exitcode=1 -timeout_exitcode=1 "$@" "$scratch" "$corpus"
