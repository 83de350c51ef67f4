#!/usr/bin/env bash
# Integration test: droce-gen --catalogue (issue 18 item 2) against droce: droce-perf serves
# ib_write_bw and ib_atomic_bw (-q N, one QP per catalogue entry) in namespace B; droce-gen in
# namespace A connects to it as a perftest client over TCP with made-up keys, sends each
# entry's malformed or adversarial frames to its QP, classifies droce's replies and probes the
# QP afterwards (docs/gen.md). droce must react to every entry as the spec says (no known
# deviation is accepted for droce): the NAKs the spec names, silent drops where it says so, the
# QP dead after a fatal NAK and alive otherwise, CNPs for CE-marked data, the WRITE inside a
# PFC XOFF storm acknowledged. Also: droce-perf finishes perftest's exchange and exits 0 (the
# catalogue's frames did not break the server), the entries count is the server's -q, and
# the argument errors (an unknown verb, an entry of the other server) exit 2 with a message.
# Usage: gen_catalogue.sh PATH/TO/droce-gen PATH/TO/droce-perf      Exit 77 = skipped.
set -u
GEN=$(readlink -f "$1")
PERF=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

"$GEN" --catalogue nosuch -c /nonexistent > /dev/null 2> "$LAB_DIR/err"
check "an unknown verb exits 2 naming what is accepted" \
	eval '[ $? = 2 ] && grep -q "expected write" "$LAB_DIR/err"'
"$GEN" --catalogue write --cat-only valid-atomic --cat-qps > /dev/null 2> "$LAB_DIR/err"
check "an atomic entry on a write server is refused (exit 2)" \
	eval '[ $? = 2 ] && grep -q "runs on the atomic server" "$LAB_DIR/err"'
check "--cat-qps counts the selected entries" \
	[ "$("$GEN" --catalogue write --cat-only bad-icrc,psn-ahead --cat-qps)" = 2 ]

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
# the server's port pauses for PFC in software, as a NIC would (pfc-xoff-storm), and DCQCN is
# on: droce is a notification point (ce-flood)
printf 'pfc = sw\n\n[dcqcn]\nenable = yes\n' >> "$LAB_DIR/b.ini"

for verb in write atomic; do
	n=$("$GEN" --catalogue $verb --cat-qps)
	size=""; [ $verb = write ] && size="-s 4096"
	# shellcheck disable=SC2086 # size: one option or none
	ip netns exec "$LAB_NS_B" timeout 120 "$PERF" ${verb}_bw -q "$n" $size -n 5 -F \
		--droce-config="$LAB_DIR/b.ini" > "$LAB_DIR/$verb.srv" 2>&1 &
	srv=$!
	for ((i = 0; i < 150; i++)); do
		grep -q "Waiting for client to connect" "$LAB_DIR/$verb.srv" 2>/dev/null && break
		sleep 0.1
	done
	ip netns exec "$LAB_NS_A" timeout 120 "$GEN" -c "$LAB_DIR/a.ini" --catalogue $verb \
		-p "$LAB_IP4_B:18515" --cat-peer droce > "$LAB_DIR/$verb.cat" 2>&1
	rc=$?
	wait $srv
	src=$?
	sed 's/^/# /' "$LAB_DIR/$verb.cat" | grep -v '^# EAL'
	check "$verb: droce-gen ran every entry and exits 0" [ $rc = 0 ]
	check "$verb: droce-perf completed perftest's exchange and exits 0" [ $src = 0 ]
	[ $src = 0 ] || grep -v '^EAL' "$LAB_DIR/$verb.srv" | sed 's/^/#   srv: /'
	got=$(grep -c ' as the spec says$' "$LAB_DIR/$verb.cat")
	check "$verb: all $n entries as the spec says ($got)" [ "$got" = "$n" ]
	for e in $("$GEN" --cat-list | awk -v v=$verb '$2 == v { print $1 }'); do
		check "$verb: $e as the spec says" grep -qE "^$e .* as the spec says$" "$LAB_DIR/$verb.cat"
	done
done
echo "# gen_catalogue: $((SECONDS)) s"
[ $fails = 0 ]
