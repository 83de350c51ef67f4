#!/usr/bin/env bash
# The house style (.clang-format, STYLE.md §10) on every C file in the repository.
# On a branch, only the files changed since main are checked: set DROCE_FORMAT_BASE=main.
# clang-format runs on 64 files a process, two processes at once (one per file took over 30 s
# for 324 files on a 2-core CI machine); the files it would change are named from its output.
cd "${1:-.}" || exit 2
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed"; exit 77; }
if [ -n "${DROCE_FORMAT_BASE:-}" ]; then
	files=$(git diff --name-only --diff-filter=AM "$DROCE_FORMAT_BASE" -- '*.c' '*.h')
else
	files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
fi
present=()
for f in $files; do [ -f "$f" ] && present+=("$f"); done
[ ${#present[@]} -gt 0 ] || { echo "clang-format: no C files to check"; exit 0; }
out=$(printf '%s\0' "${present[@]}" | xargs -0 -n 64 -P 2 clang-format --dry-run -Werror 2>&1 >/dev/null)
rc=$?
bad=$(printf '%s\n' "$out" | sed -n 's/^\(.*\.[ch]\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ -n "$bad" ]; then
	printf 'needs clang-format: %s\n' $bad
	exit 1
fi
if [ $rc != 0 ]; then
	echo "clang-format failed (exit $rc) without naming a file:"
	printf '%s\n' "$out" | head -20
	exit 1
fi
echo "clang-format: ${#present[@]} files follow the house style"
