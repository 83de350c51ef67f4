#!/usr/bin/env bash
# droce-nfsd --check: the exports file (and the stack's config) are judged without starting
# anything or writing anything. A good file passes with its export count; each bad one fails
# with exit 2 and a message that names what is wrong (the word, the path or the key).
# Usage: nfsd_check.sh PATH/TO/droce-nfsd
set -u
NFSD=$(readlink -f "$1")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
# run NAME EXPECTED-EXIT PATTERN ARGS...: droce-nfsd --check ARGS must exit so and print PATTERN
run() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$NFSD" --check "$@" > "$out/$name.out" 2>&1
	rc=$?
	sed "s/^/#   $name: /" "$out/$name.out"
	check "$name: exit $want and the message names /$pat/" \
		bash -c "[ $rc = $want ] && grep -q -- '$pat' '$out/$name.out'"
}

mkdir -p "$out/a" "$out/b"
: > "$out/file"
printf '%s\n' "# two exports" "$out/a 10.0.0.0/8(rw,no_root_squash) *(ro)" "$out/b *(rw,async)" > "$out/good"
printf '%s\n' "$out/a *(rw,bogus_option)" > "$out/badopt"
printf '%s\n' "$out/nowhere *(rw)" > "$out/nopath"
printf '%s\n' "$out/file *(rw)" > "$out/notdir"
printf '%s\n' "$out/a *(rw,sec=krb5)" > "$out/badsec"
printf '%s\n' "[eal]" "lcores = 0" "bogus_key = 1" > "$out/bad.ini"

run good 0 "2 export(s) ok" --exports "$out/good" --state "$out/state"
run badopt 2 "bogus_option" --exports "$out/badopt"
run nopath 2 "$out/nowhere" --exports "$out/nopath"
run notdir 2 "not a directory" --exports "$out/notdir"
run badsec 2 "krb5" --exports "$out/badsec"
run noexports 2 "needs --exports" --config "$out/bad.ini"
run badconfig 2 "bogus_key" --exports "$out/good" --config "$out/bad.ini"
run missing 2 "cannot read" --exports "$out/absent"
check "--check wrote nothing (the state directory it was given was not made)" [ ! -e "$out/state" ]
echo "# nfsd_check: $fails failed"
[ "$fails" = 0 ]
