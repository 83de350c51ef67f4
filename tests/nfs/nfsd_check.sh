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
check "good: no subtree_check warning" bash -c "! grep -q subtree_check '$out/good.out'"
# subtree_check is accepted, and droce-nfsd says it does not enforce it
printf '%s\n' "$out/a *(rw,subtree_check)" > "$out/subtree"
run subtree 0 "export $out/a: subtree_check is not enforced: .*say no_subtree_check" --exports "$out/subtree"
run badopt 2 "bogus_option" --exports "$out/badopt"
run nopath 2 "$out/nowhere" --exports "$out/nopath"
run notdir 2 "not a directory" --exports "$out/notdir"
run badsec 2 "krb5" --exports "$out/badsec"
run noexports 2 "no exports: give --exports FILE" --config "$out/bad.ini"
run badconfig 2 "bogus_key" --exports "$out/good" --config "$out/bad.ini"
run missing 2 "cannot read" --exports "$out/absent"
# the config file: [nfs] keys and [export NAME] sections (docs/config.md), each bad value named
# with its key, its value and what is accepted
exp_sec="[export a]
path = $out/a
clients = 10.0.0.0/8(rw,no_root_squash) *(ro)"
# ini NAME LINES...: a config with [nfs] LINES and export a
ini() {
	local name=$1
	shift
	{ echo "[nfs]"; printf '%s\n' "$@"; echo; echo "$exp_sec"; } > "$out/$name.ini"
}
ini good_ini "threads = 8" "grace = 30" "credits = 64" "inline = 65536" "max_io = 262144" \
	"connections = 32" "drain = 5" "versions = 3,4.1" "v4_lease = 15" "v4_slots = 64" "v4_domain = example.org" "state = $out/st2" "metrics = 127.0.0.1:9464" \
	"io_uring = 0" "calls_per_connection = 16" "drc = 1024" "lcores = 1" "placement = round_robin"
run good_ini 0 "1 export(s) ok" --listen 127.0.0.1 --config "$out/good_ini.ini"
# the stack's and droce-nfsd's sections in one file: each reader skips the other's
{ printf '%s\n' "[eal]" "lcores = 0" "[port0]" "vdev = net_ring0" "ipv4 = 10.9.0.1/24"; cat "$out/good_ini.ini"; } > "$out/both.ini"
run both 0 "1 export(s) ok" --config "$out/both.ini"
# [dcqcn] in droce-nfsd's file is read by droce-nfsd (the transport's DCQCN for its RDMA
# connections): good keys pass, a bad key or value is named with what is accepted
{ cat "$out/both.ini"; printf '%s\n' "" "[dcqcn]" "line_gbps = 25" "min_gbps = 0.01"; } > "$out/cc.ini"
run dcqcn_good 0 "1 export(s) ok" --config "$out/cc.ini"
{ cat "$out/both.ini"; printf '%s\n' "" "[dcqcn]" "line_gbs = 25"; } > "$out/ccbad.ini"
run dcqcn_badkey 2 "\[dcqcn\] line_gbs = 25: unknown key; known: enable line_gbps" --config "$out/ccbad.ini"
{ cat "$out/both.ini"; printf '%s\n' "" "[dcqcn]" "line_gbps = 25" "min_gbps = 30"; } > "$out/ccmin.ini"
run dcqcn_min 2 "\[dcqcn\] min_gbps = : must not exceed line_gbps" --config "$out/ccmin.ini"
{ cat "$out/both.ini"; printf '%s\n' "" "[dcqcn]" "enable = maybe"; } > "$out/ccen.ini"
run dcqcn_enable 2 "\[dcqcn\] enable = maybe: say yes or no" --config "$out/ccen.ini"
for kv in "threads = 65|from 0 to 64" "grace = 3601|from 0 to 3600" "credits = 0|from 1 to 1024" \
	"inline = 512|from 1024 to 65536" "max_io = 2097152|from 4096 to 1048576" \
	"max_io = 6000|a multiple of 4096" "connections = 65|from 1 to 64" "drain = -1|from 0 to 600" \
	"io_uring = 4097|from 0 to 4096" "calls_per_connection = 0|from 1 to 16" \
	"calls_per_connection = 17|from 1 to 16" "drc = 100|a multiple of 8 from 64 to 1048576" \
	"drc = 32|from 64 to 1048576" "drc = 2097152|from 64 to 1048576" \
	"threads = four|an integer" "versions = 4.2|expected 3 or 3,4.1" "versions = 4.1|v3 is always served" "metrics = 9464|IP:PORT" \
	"metrics = 127.0.0.1:70000|IP:PORT" "metrics = localhost:9464|IP:PORT" \
	"metrics = ::1:9464|IP:PORT" "state = relative/dir|an absolute path" \
	"v4_domain = a b|expected a domain name" "v4_lease = 4|from 5 to 3600" \
	"v4_lease = 3601|from 5 to 3600" "v4_slots = 0|from 1 to 1024" "v4_slots = 1025|from 1 to 1024" \
	"exports = exports.txt|an absolute path" "lease = 90|unknown key; known: exports state" \
	"lcores = 0|from 1 to 8" "lcores = 9|from 1 to 8" \
	"placement = random|expected client .* or round_robin"; do
	line=${kv%%|*}
	why=${kv#*|}
	key=${line%% *}
	n="key_${key}_$(echo "$line" | tr -c 'a-z0-9' _)"
	ini "$n" "$line"
	run "$n" 2 "\[nfs\] $line: .*$why" --listen 127.0.0.1 --config "$out/$n.ini"
done
# [nfs] lcores: NFSv4.1 is served on one lcore only; the lanes need as many EAL lcores
ini lanes_v4 "lcores = 2" "versions = 3,4.1"
run lanes_v4 2 "\[nfs\] lcores = 2 with versions = 3,4.1: NFSv4.1 is served on one lcore only; set lcores = 1, or versions = 3" \
	--listen 127.0.0.1 --config "$out/lanes_v4.ini"
ini lanes_ok "lcores = 2" "placement = client"
{ printf '%s\n' "[eal]" "lcores = 0,1" "[port0]" "vdev = net_ring0" "ipv4 = 10.9.0.1/24"; cat "$out/lanes_ok.ini"; } > "$out/lanes2.ini"
run lanes_two 0 "1 export(s) ok" --config "$out/lanes2.ini"
{ printf '%s\n' "[eal]" "lcores = 0" "[port0]" "vdev = net_ring0" "ipv4 = 10.9.0.1/24"; cat "$out/lanes_ok.ini"; } > "$out/lanes1.ini"
run lanes_too_few 2 "\[nfs\] lcores = 2 but \[eal\] lcores = 0 names 1 lcore: list at least 2" \
	--config "$out/lanes1.ini"
printf '%s\n' "[export a]" "clients = *(rw)" > "$out/nopath.ini"
run export_nopath 2 "\[export a\]: needs path = " --listen 127.0.0.1 --config "$out/nopath.ini"
printf '%s\n' "[export a]" "path = $out/a" > "$out/noclients.ini"
run export_noclients 2 "\[export a\]: needs clients = " --listen 127.0.0.1 --config "$out/noclients.ini"
printf '%s\n' "[export a]" "path = $out/a" "clients = *(rw,nosuch)" > "$out/badclient.ini"
run export_badoption 2 "\[export a\] clients = \*(rw,nosuch): unknown option .nosuch." \
	--listen 127.0.0.1 --config "$out/badclient.ini"
printf '%s\n' "[export a]" "path = $out/a" "clients = *" "ro = yes" > "$out/badkey.ini"
run export_badkey 2 "\[export a\] ro = yes: unknown key; known: path clients" \
	--listen 127.0.0.1 --config "$out/badkey.ini"
printf '%s\n' "[export]" "path = $out/a" "clients = *" > "$out/noname.ini"
run export_noname 2 "name the export: \[export NAME\]" --listen 127.0.0.1 --config "$out/noname.ini"
printf '%s\n' "[export a]" "path = $out/nowhere" "clients = *" > "$out/nodir.ini"
run export_nodir 2 "$out/nowhere" --listen 127.0.0.1 --config "$out/nodir.ini"
ini both_forms "exports = $out/good"
run both_forms 2 "give one or the other" --listen 127.0.0.1 --config "$out/both_forms.ini"
printf '%s\n' "[nfs]" "exports = $out/good" > "$out/exports_key.ini"
run exports_key 0 "$out/good: 2 export(s) ok" --listen 127.0.0.1 --config "$out/exports_key.ini"
run cmdline_threads 2 "the command line: \[nfs\] threads = 99: expected an integer from 0 to 64" \
	--listen 127.0.0.1 --config "$out/good_ini.ini" --threads 99
run cmdline_wins 0 "2 export(s) ok" --listen 127.0.0.1 --config "$out/good_ini.ini" --exports "$out/good"
# under systemd (JOURNAL_STREAM names stderr's device and inode, systemd.exec(5)) every line
# carries its syslog priority for journald: the "ok" line on stdout <6>, the error on stderr
# <3>; when the variable names another file (the output was redirected since), none
: > "$out/j_ok.log"
: > "$out/j_bad.log"
JOURNAL_STREAM=$(stat -c %d:%i "$out/j_ok.log") "$NFSD" --check --exports "$out/good" >> "$out/j_ok.log" 2>&1
JOURNAL_STREAM=$(stat -c %d:%i "$out/j_bad.log") "$NFSD" --check --exports "$out/badopt" >> "$out/j_bad.log" 2>&1
JOURNAL_STREAM=$(stat -c %d:%i "$out/j_ok.log") "$NFSD" --check --exports "$out/good" > "$out/j_other.log" 2>&1
sed 's/^/#   journal: /' "$out/j_ok.log" "$out/j_bad.log" "$out/j_other.log"
check "JOURNAL_STREAM: the ok line starts <6>, the error <3>, and every line has a priority" \
	bash -c "grep -q '^<6>droce-nfsd: .*2 export(s) ok' '$out/j_ok.log' &&
		grep -q '^<3>droce-nfsd: .*bogus_option' '$out/j_bad.log' &&
		! grep -qv '^<[0-9]>' '$out/j_ok.log' '$out/j_bad.log'"
check "JOURNAL_STREAM naming another file: no priorities" \
	bash -c "grep -q '^droce-nfsd: .*2 export(s) ok' '$out/j_other.log'"
check "--check wrote nothing (the state directories it was given were not made)" \
	[ ! -e "$out/state" -a ! -e "$out/st2" ]
echo "# nfsd_check: $fails failed"
[ "$fails" = 0 ]
