#!/usr/bin/env bash
# campaign.sh: the long libFuzzer campaigns, outside CI (issue 11 asks for 10 M executions of
# each target). CI runs every target for 30-40 s from the -O0 fuzz build; a campaign runs the
# same sources built -O2, in pieces, keeps its corpus and findings in a directory of its own,
# and counts what ran.
#
#   campaign.sh build DIR [nocmp]       build the targets -O2 into DIR (clang, ASan+UBSan as in
#                                       CI; nocmp: without libFuzzer's comparison tracing)
#   campaign.sh run DIR WORK TARGET RUNS [PIECE]
#                                       run TARGET (fuzz_ prefix left off) from DIR until RUNS
#                                       executions, in pieces of PIECE (1,000,000) at nice 19;
#                                       corpus WORK/corp-TARGET (seeded from the committed
#                                       one), findings WORK/art-TARGET, log WORK/log-TARGET
#   campaign.sh count WORK              executions and findings per target, from the logs
#
# What the binaries cost, one core of the 2-core CI kind, fuzz_stk_roce: -O0 (CI's build) 355
# executions a second, -O2 1,075-1,300, -O2 nocmp 2,480. Comparison tracing is what lets
# libFuzzer solve multi-byte compares; with a mature corpus, nocmp runs still reach the same
# code (each executes its input under ASan+UBSan all the same). Two campaigns at once on that
# machine run slower in total than one: run them one after the other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

case "${1:-}" in
build)
	dir=$2 extra=()
	[ "${3:-}" = nocmp ] && extra=(-Dc_args=-fno-sanitize-coverage=trace-cmp)
	CC=clang meson setup "$dir" "$src" -Dfuzz=true -Dbench=false -Dtests=true \
		-Db_lundef=false -Dbuildtype=debugoptimized "${extra[@]}" >/dev/null || exit 1
	git -C "$src" rev-parse --short HEAD >"$dir/campaign-commit"
	echo "${3:-cmp}" >"$dir/campaign-kind"
	exec ninja -C "$dir" $(cd "$src/tests/fuzz" && ls fuzz_*.c | sed -n \
		's/^\(fuzz_[a-z0-9_]*\)\.c$/tests\/fuzz\/\1/p' | grep -v 'fuzz_pair$')
	;;
run)
	dir=$2 work=$3 t=$4 runs=$5 piece=${6:-1000000}
	bin=$dir/tests/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "campaign.sh: no $bin: run 'campaign.sh build $dir' first" >&2; exit 2; }
	mkdir -p "$work/corp-$t" "$work/art-$t"
	[ -n "$(ls -A "$work/corp-$t")" ] || cp "$src/tests/fuzz/corpus/$t/"* "$work/corp-$t/"
	log=$work/log-$t
	done=0
	while [ "$done" -lt "$runs" ]; do
		n=$((runs - done < piece ? runs - done : piece))
		echo "=== piece $(date -u +%FT%T) commit $(cat "$dir/campaign-commit")" \
			"kind $(cat "$dir/campaign-kind") runs $n" >>"$log"
		nice -n 19 "$bin" -entropic=0 -max_len=1024 -timeout=30 -runs="$n" \
			-print_final_stats=1 -artifact_prefix="$work/art-$t/" "$work/corp-$t" \
			>>"$log" 2>&1
		rc=$?
		echo "=== end $(date -u +%FT%T) exit $rc" >>"$log"
		ran=$(grep 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
		[ "$rc" -eq 0 ] || { echo "campaign.sh: fuzz_$t exited $rc (see $log)" >&2; exit 1; }
		done=$((done + ${ran:-0}))
	done
	;;
count)
	work=$2
	for log in "$work"/log-*; do
		t=${log##*/log-}
		ran=$(grep 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
		pieces=$(grep -c '^=== piece' "$log")
		bad=$(grep -c '^=== end .* exit [^0]' "$log")
		found=$(find "$work/art-$t" -type f ! -name 'slow-unit-*' | wc -l)
		printf '%-16s %12d executions in %d pieces, %d failed, %d findings\n' \
			"$t" "$ran" "$pieces" "$bad" "$found"
	done
	;;
*)
	sed -n '2,20p' "$0" >&2
	exit 2
	;;
esac
