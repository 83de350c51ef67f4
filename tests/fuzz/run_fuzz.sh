#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS SCRATCH [libFuzzer options]: a bounded libFuzzer run that reads
# the committed CORPUS and writes what it finds into SCRATCH (never into the source tree).
fz=$1 corpus=$2 scratch=$3; shift 3
mkdir -p "$scratch"
exec "$fz" "$@" "$scratch" "$corpus"
