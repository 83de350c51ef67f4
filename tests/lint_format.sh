#!/usr/bin/env bash
# The house style (.clang-format, STYLE.md §10) on every C file in the repository.
# On a branch, only the files changed since main are checked: set DROCE_FORMAT_BASE=main.
cd "${1:-.}" || exit 2
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed"; exit 77; }
if [ -n "${DROCE_FORMAT_BASE:-}" ]; then
	files=$(git diff --name-only --diff-filter=AM "$DROCE_FORMAT_BASE" -- '*.c' '*.h')
else
	files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
fi
bad=0
for f in $files; do
	[ -f "$f" ] || continue
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "needs clang-format: $f"
		bad=1
	fi
done
[ $bad = 0 ] && echo "clang-format: $(echo "$files" | wc -w) files follow the house style"
exit $bad
