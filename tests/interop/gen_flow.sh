#!/usr/bin/env bash
# Interop test: droce-gen --flow (issue 18 item 1) against Linux soft-RoCE (rdma_rxe in the
# lab's QEMU VM; tests/interop/lab.sh): droce's RC QPs as the requester, perftest's servers in
# the VM as the peer (-x 1: the IPv4-mapped GID), connected through perftest's TCP exchange.
#   write: ib_write_bw -q 2 -s 65536; droce-gen --flow write, 2 QPs x depth 8, sizes
#          64:1,4096:2,65536:1, 3 s, DSCP 26;
#   read:  ib_read_bw -q 1 -s 65536; droce-gen --flow read, 64 KiB, 3 s.
#   send:  ib_send_bw -q 2 -s 4096 -n 200; droce-gen --flow send --iters 200, 2 QPs x depth 8,
#          4 KiB: the server counts its receives to the message, so droce-gen sends exactly
#          200 a QP (send_bw's own order of the exchange, gen_pt.h).
#   ud:    ib_send_bw -c UD -q 2 -s 1024 -n 500; droce-gen --flow ud --iters 500, 2 UD QPs,
#          1 KiB datagrams paced at 2000 a second: the server's QPNs from perftest's exchange,
#          its Q_Key perftest's 0x11111111; the server posts its 500 receives a QP before the
#          size's handshake, so none is dropped, and it exits 0 only when each QP got 500.
#   atomic: ib_atomic_bw -q 1; droce-gen --flow atomic (FETCH_ADD at the server's region), 2 s.
# Each: droce-gen exits 0 with data moved on every QP and no error completion, ACKs (write) or
# READ responses (read) from rxe, exactly 200 SENDs a QP (send); the perftest server exits 0
# (droce-gen finished its exchange).
# Then a peer without perftest or a CM: tests/interop/gen_peer.c, a raw verbs program built
# here (gcc, libibverbs-dev) and run in the VM, with the manual exchange (droce-gen --manual:
# its keys from its stderr onto gen_peer's command line, gen_peer's keys into its stdin):
#   mix:   2 RC QPs x depth 8, write:2,read:1,send:1,atomic:1, sizes 64:1,4096:1, 3 s. Every
#          operation completes on both QPs without error; per QP, gen_peer received exactly as
#          many SENDs as droce-gen completed, each byte as droce-gen sent it; its counter is
#          exactly the number of FETCH_ADDs of 1; droce's pattern covers the WRITE area as far
#          as the largest WRITE; its QPs are still in RTS;
#   ud:    2 UD QPs, --keys qpn=..,qkey=.. (the command line), sizes 64,1000, 300 datagrams a
#          second for 3 s to gen_peer's one UD QP: it received exactly as many as droce-gen
#          sent, each payload right.
#   cm:    gen_peer listens with librdmacm and prints its region; droce-gen --cm connects 2 QPs
#          to it (REQ, REP, RTU), the region from --keys, the mix as above, 3 s: gen_peer
#          accepted 2 connections, received exactly droce-gen's SENDs, its counter is exactly
#          the FETCH_ADDs, the pattern covers the largest WRITE, and droce-gen's DREQs arrived.
#   udcm:  gen_peer listens in librdmacm's UDP port space; droce-gen --cm --flow ud resolves
#          its 2 UD QPs' peer by SIDR (SIDR_REQ, SIDR_REP: a UD QP of gen_peer's for each, and
#          the Q_Key 0x01234567), no keys given, sizes 64,1000, 300 datagrams a second for 3 s:
#          gen_peer answered 2 SIDR_REQs and each of its QPs received exactly what one of
#          droce-gen's QPs sent, each payload right; droce-gen reports the QPNs and Q_Key the
#          SIDR_REPs gave (gen_peer's QPs, 0x01234567).
# The wire: every RoCE frame of all runs decodes in tshark as InfiniBand with nothing
# malformed and every ICRC good (wire_check.py).
# Usage: gen_flow.sh APPS_DIR [ARTIFACT_DIR]     (APPS_DIR holds droce-gen)
# Exit 77 = skipped (the reason is printed).
set -u
GEN=$(readlink -f "$1/droce-gen")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
PORT=18515
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (network namespaces, bridge, taps)"; exit 77; fi
. "$HERE/lab.sh"
trap lab_down EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$GEN" ] || { echo "FAIL - $GEN is not an executable droce-gen"; exit 1; }
if ! command -v gcc >/dev/null || [ ! -f /usr/include/infiniband/verbs.h ] ||
	[ ! -f /usr/include/rdma/rdma_cma.h ]; then
	echo "SKIP: needs gcc, libibverbs-dev and librdmacm-dev for gen_peer (scripts/setup.sh installs them)"
	exit 77
fi
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.log "$LABI_ARTIFACTS"/*.pcap
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

mkdir -p "$LABI_DIR"
if ! gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$LABI_DIR/gen_peer" "$HERE/gen_peer.c" \
	-libverbs -lrdmacm > "$LABI_DIR/gcc.log" 2>&1; then
	echo "FAIL - gen_peer.c does not build:"; cat "$LABI_DIR/gcc.log"
	exit 1
fi
strip "$LABI_DIR/gen_peer"

lab_up_or_exit 1
if vm_put vm1 "$LABI_DIR/gen_peer" /tmp/gen_peer; then
	echo "ok   - gen_peer built on the host and copied into the VM"
else
	echo "FAIL - gen_peer built on the host and copied into the VM"
	exit 1
fi
lab_capture_start gen_flow || exit 1
lab_droce_config "$LABI_DIR/flow.ini"
hex=$(printf '%04X' $PORT)

# run NAME VM_CMD -- GEN_ARGS...: the server in the VM, droce-gen here; RC, VRC
run() {
	local name=$1 vcmd=$2 i
	shift 3
	vm_run vm1 "$vcmd" 120 > "$LABI_DIR/$name.vm.log" 2>&1 &
	local vmjob=$!
	for ((i = 0; i < 50; i++)); do
		vm_run vm1 "grep -q ':$hex 00000000:0000 0A' /proc/net/tcp" 10 && break
		kill -0 $vmjob 2>/dev/null || break
		sleep 0.2
	done
	ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP:$PORT" \
		"$@" > "$LABI_DIR/$name.json" 2> "$LABI_DIR/$name.err"
	RC=$?
	[ $RC = 0 ] || vm_run vm1 "killall ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw" 10 > /dev/null 2>&1
	wait $vmjob
	VRC=$?
	echo "# $name: droce-gen exit $RC, the VM's server exit $VRC"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('#  ', {k: d[k] for k in ('messages','bytes','gbps','errors','seconds')}); [print('#    qp', q) for q in d['per_qp']]" "$LABI_DIR/$name.json" 2>/dev/null
	[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/$name.err" | head -5 | sed 's/^/#   /'
	[ $VRC = 0 ] || grep -v 'GID\|address' "$LABI_DIR/$name.vm.log" | tail -8 | sed 's/^/#   vm: /'
}
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); q=d['per_qp']; sys.exit(0 if ($2) else 1)" "$LABI_DIR/$1.json"; }

run write "ib_write_bw -d rxe0 -x 1 -F -q 2 -s 65536 -n 5" -- --flow write --qps 2 --depth 8 \
	--seconds 3 --sizes 64:1,4096:2,65536:1 --dscp 26
check "write: droce-gen exits 0 and ib_write_bw in the VM exits 0" [ "$RC/$VRC" = 0/0 ]
check "write: both QPs moved data, rxe ACKed, no error completion" \
	js write "len(q) == 2 and all(x['messages'] > 0 and x['acks_rx'] > 0 and x['errors'] == 0 for x in q)"
run read "ib_read_bw -d rxe0 -x 1 -F -q 1 -s 65536 -n 5" -- --flow read --qps 1 --depth 4 \
	--seconds 3 --sizes 64k
check "read: droce-gen exits 0 and ib_read_bw in the VM exits 0" [ "$RC/$VRC" = 0/0 ]
check "read: 64 KiB READs answered by rxe, no error completion" \
	js read "q[0]['messages'] > 0 and q[0]['bytes'] == 65536 * q[0]['messages'] and q[0]['short_reads'] == 0 and q[0]['errors'] == 0"
run send "ib_send_bw -d rxe0 -x 1 -F -q 2 -s 4096 -n 200" -- --flow send --qps 2 --depth 8 \
	--iters 200 --seconds 30 --sizes 4096
check "send: droce-gen exits 0 and ib_send_bw in the VM exits 0 (it counted its 200 receives a QP)" [ "$RC/$VRC" = 0/0 ]
check "send: exactly 200 SENDs of 4 KiB on each QP, posted and completed, no error completion" \
	js send "len(q) == 2 and all(x['posted'] == 200 and x['messages'] == 200 and x['send'] == 200 and x['bytes'] == 200 * 4096 and x['errors'] == 0 for x in q)"
run ud "ib_send_bw -d rxe0 -x 1 -F -c UD -q 2 -s 1024 -n 500" -- --flow ud --qps 2 --depth 8 \
	--iters 500 --seconds 30 --sizes 1024 --pps 2000
check "ud: droce-gen exits 0 and ib_send_bw -c UD in the VM exits 0 (it counted its 500 datagrams a QP)" [ "$RC/$VRC" = 0/0 ]
check "ud: exactly 500 datagrams of 1 KiB from each QP to the QPN perftest gave, with perftest's Q_Key, no error completion" \
	js ud "len(q) == 2 and all(x['posted'] == 500 and x['messages'] == 500 and x['send'] == 500 and x['bytes'] == 500 * 1024 and x['errors'] == 0 and x['peer_qkey'] == 0x11111111 for x in q)"
run atomic "ib_atomic_bw -d rxe0 -x 1 -F -q 1 -n 5" -- --flow atomic --qps 1 --depth 8 --seconds 2
check "atomic: droce-gen exits 0 and ib_atomic_bw in the VM exits 0" [ "$RC/$VRC" = 0/0 ]
check "atomic: FETCH_ADDs answered by rxe (atomic ACKs), no error completion" \
	js atomic "q[0]['atomic'] > 0 and q[0]['messages'] == q[0]['atomic'] and q[0]['bytes'] == 8 * q[0]['atomic'] and q[0]['errors'] == 0"

# peer_wait FILE: until gen_peer in the VM has written "ready" to FILE; its output on stdout
peer_wait() {
	local i out
	for ((i = 0; i < 100; i++)); do
		out=$(vm_run vm1 "cat $1 2>/dev/null" 10)
		if grep -q '^gen_peer: ready' <<< "$out"; then echo "$out"; return 0; fi
		kill -0 $vmjob 2>/dev/null || break
		sleep 0.3
	done
	echo "$out"
	return 1
}
# peer_end NAME FILE: SIGINT to gen_peer, its exit status as PRC, its output in NAME.peer
peer_end() {
	vm_run vm1 "killall -INT gen_peer" 10 > /dev/null 2>&1
	wait $vmjob
	PRC=$?
	vm_run vm1 "cat $2" 10 > "$LABI_DIR/$1.peer" 2>&1
	echo "# $1: gen_peer exit $PRC"
	sed 's/^/#   vm: /' "$LABI_DIR/$1.peer" | grep -v ' qpn=' | tail -6
}

# mix: the manual exchange. droce-gen reads gen_peer's keys from a FIFO (its only writer is
# fd 7 here: closed, droce-gen sees the end of its stdin).
rm -f "$LABI_DIR/keys.fifo" "$LABI_DIR/mix.err" "$LABI_DIR/mix.json" && mkfifo "$LABI_DIR/keys.fifo"
vm_run vm1 "rm -f /tmp/peer_mix.out /tmp/peer_ud.out" 10 > /dev/null 2>&1
ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP" \
	--flow write:2,read:1,send:1,atomic:1 --manual --qps 2 --depth 8 --seconds 3 \
	--sizes 64:1,4096:1 < "$LABI_DIR/keys.fifo" > "$LABI_DIR/mix.json" 2> "$LABI_DIR/mix.err" &
genjob=$!
exec 7> "$LABI_DIR/keys.fifo"

for ((i = 0; i < 150; i++)); do
	[ "$(grep -c '^droce-gen: local qp' "$LABI_DIR/mix.err" 2> /dev/null)" = 2 ] && break
	sleep 0.1
done
mapfile -t local_keys < <(sed -n 's/^droce-gen: local qp [0-9]* //p' "$LABI_DIR/mix.err")
check "mix: droce-gen printed its keys for both QPs (${local_keys[*]:-none})" [ ${#local_keys[@]} = 2 ]
vm_run vm1 "/tmp/gen_peer rc -s 4096 -o 64 -t 60 '${local_keys[0]:-}' '${local_keys[1]:-}' > /tmp/peer_mix.out 2>&1" 120 > /dev/null 2>&1 &
vmjob=$!
peer_out=$(peer_wait /tmp/peer_mix.out)
prc=$?
check "mix: gen_peer in the VM is ready with its keys" [ $prc = 0 ]
grep '^gen_peer: qp ' <<< "$peer_out" | sed 's/^/#   /'
grep '^gen_peer: qp ' <<< "$peer_out" >&7
exec 7>&- # the end of droce-gen's stdin: without the keys it stops at once
wait $genjob
RC=$?
peer_end mix /tmp/peer_mix.out
echo "# mix: droce-gen exit $RC"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print('#    qp', {k: q[k] for k in ('messages','write','read','send','atomic','write_max','errors','rnr_nak_rx','retransmits')}) for q in d['per_qp']]" "$LABI_DIR/mix.json" 2>/dev/null
[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/mix.err" | tail -5 | sed 's/^/#   /'
check "mix: droce-gen exits 0 and gen_peer exits 0 (payloads right, QPs in RTS)" [ "$RC/$PRC" = 0/0 ]
check "mix: every operation completed on both QPs, no error completion" \
	js mix "len(q) == 2 and all(x['write'] > 0 and x['read'] > 0 and x['send'] > 0 and x['atomic'] > 0 and x['errors'] == 0 and x['short_reads'] == 0 for x in q)"
mix_agree() {
	python3 - "$LABI_DIR/mix.json" "$LABI_DIR/mix.peer" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
res = {}
for line in open(sys.argv[2]):
    if line.startswith('RESULT '):
        kv = dict(w.split('=', 1) for w in line.split()[1:])
        res[int(kv['qp'])] = kv
ok = len(res) == 2
for i, q in enumerate(d['per_qp']):
    r = res.get(i, {})
    good = (int(r.get('recvs', -1)) == q['send'] and int(r.get('counter', -1)) == q['atomic']
            and int(r.get('write_prefix', -1)) >= q['write_max'] and r.get('bad_payload') == '0'
            and r.get('state') == 'RTS')
    print(f"#   qp {i}: droce sent {q['send']} SENDs, {q['atomic']} FETCH_ADDs, largest WRITE {q['write_max']}; "
          f"gen_peer: {r.get('recvs')} received, counter {r.get('counter')}, pattern over {r.get('write_prefix')} B: {'agree' if good else 'DIFFER'}")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
}
check "mix: gen_peer saw exactly droce-gen's SENDs and FETCH_ADDs, and its WRITEs' bytes" mix_agree

# ud: the keys on the command line
vm_run vm1 "/tmp/gen_peer ud -s 1024 -r 1024 -t 60 > /tmp/peer_ud.out 2>&1" 120 > /dev/null 2>&1 &
vmjob=$!
peer_out=$(peer_wait /tmp/peer_ud.out)
prc=$?
ud_qpn=$(sed -n 's/^gen_peer: ud qpn=\(0x[0-9a-f]*\) .*/\1/p' <<< "$peer_out")
check "ud: gen_peer in the VM is ready (UD QPN ${ud_qpn:-none})" test $prc = 0 -a -n "$ud_qpn"
[ -n "$ud_qpn" ] || ud_qpn=none # droce-gen then refuses the keys: the checks below fail
ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP" \
	--flow ud --keys "qpn=$ud_qpn,qkey=0x11111111" --qps 2 --depth 8 --seconds 3 \
	--sizes 64,1000 --pps 300 > "$LABI_DIR/ud.json" 2> "$LABI_DIR/ud.err"
RC=$?
sleep 1 # the last datagrams through rxe
peer_end ud /tmp/peer_ud.out
echo "# ud: droce-gen exit $RC"
[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/ud.err" | tail -5 | sed 's/^/#   /'
check "ud: droce-gen exits 0 and gen_peer exits 0 (payloads right)" [ "$RC/$PRC" = 0/0 ]
ud_agree() {
	python3 - "$LABI_DIR/ud.json" "$LABI_DIR/ud.peer" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sent = sum(q['send'] for q in d['per_qp'])
r = [dict(w.split('=', 1) for w in l.split()[1:]) for l in open(sys.argv[2]) if l.startswith('RESULT ')]
got = int(r[0]['recvs']) if r else -1
print(f"#   droce-gen sent {sent} datagrams on {len(d['per_qp'])} QPs ({[q['send'] for q in d['per_qp']]}), gen_peer received {got}")
sys.exit(0 if sent > 0 and got == sent and all(q['send'] > 0 for q in d['per_qp']) else 1)
PY
}
check "ud: gen_peer received exactly the datagrams droce-gen sent, from both QPs" ud_agree

# cm: the RDMA CM connects droce's QPs to gen_peer's listener; its region on the command line
vm_run vm1 "/tmp/gen_peer cm -s 4096 -o 64 -t 60 $VMIP 18516 > /tmp/peer_cm.out 2>&1" 120 > /dev/null 2>&1 &
vmjob=$!
peer_out=$(peer_wait /tmp/peer_cm.out)
prc=$?
cm_keys=$(sed -n 's/^gen_peer: cm \(rkey=.*\)/\1/p' <<< "$peer_out")
check "cm: gen_peer listens on port 18516 with its region (${cm_keys:-none})" test $prc = 0 -a -n "$cm_keys"
ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP:18516" --cm \
	--keys "${cm_keys:-none}" --flow write:2,read:1,send:1,atomic:1 --qps 2 --depth 8 \
	--seconds 3 --sizes 64:1,4096:1 > "$LABI_DIR/cm.json" 2> "$LABI_DIR/cm.err"
RC=$?
peer_end cm /tmp/peer_cm.out
echo "# cm: droce-gen exit $RC"
[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/cm.err" | tail -5 | sed 's/^/#   /'
check "cm: droce-gen exits 0 and gen_peer exits 0 (payloads right)" [ "$RC/$PRC" = 0/0 ]
check "cm: every operation completed on both QPs, no error completion" \
	js cm "len(q) == 2 and all(x['write'] > 0 and x['read'] > 0 and x['send'] > 0 and x['atomic'] > 0 and x['errors'] == 0 for x in q)"
cm_agree() {
	python3 - "$LABI_DIR/cm.json" "$LABI_DIR/cm.peer" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [dict(w.split('=', 1) for w in l.split()[1:]) for l in open(sys.argv[2]) if l.startswith('RESULT ')]
q = d['per_qp']
sends, atomics, wmax = sum(x['send'] for x in q), sum(x['atomic'] for x in q), max(x['write_max'] for x in q)
recvs = sum(int(x['recvs']) for x in r)
counter = int(r[0]['counter']) if r else -1
prefix = int(r[0]['write_prefix']) if r else -1
print(f"#   {len(r)} connections accepted; droce sent {sends} SENDs, {atomics} FETCH_ADDs, largest WRITE {wmax}; "
      f"gen_peer: {recvs} received, counter {counter}, pattern over {prefix} B; its QPs {[x['state'] for x in r]}")
sys.exit(0 if len(r) == 2 and recvs == sends and counter == atomics and prefix >= wmax and
         all(x['bad_payload'] == '0' for x in r) else 1)
PY
}
check "cm: gen_peer accepted 2 connections and saw exactly droce-gen's SENDs, FETCH_ADDs and WRITE bytes" cm_agree
check "cm: droce-gen's DREQs reached gen_peer (DISCONNECTED for both connections)" \
	bash -c "[ \$(grep -c 'a connection ended' '$LABI_DIR/cm.peer') = 2 ]"

# udcm: UD over the CM, the peer's QPs found by SIDR
vm_run vm1 "/tmp/gen_peer udcm -s 1024 -r 1024 -t 60 $VMIP 18517 > /tmp/peer_udcm.out 2>&1" 120 > /dev/null 2>&1 &
vmjob=$!
peer_out=$(peer_wait /tmp/peer_udcm.out)
prc=$?
check "udcm: gen_peer listens for SIDR_REQs on port 18517" test $prc = 0
ip netns exec "$LABI_DNS" timeout 90 "$GEN" -c "$LABI_DIR/flow.ini" -j -p "$VMIP:18517" --cm \
	--flow ud --qps 2 --depth 8 --seconds 3 --sizes 64,1000 --pps 300 \
	> "$LABI_DIR/udcm.json" 2> "$LABI_DIR/udcm.err"
RC=$?
sleep 1 # the last datagrams through rxe
peer_end udcm /tmp/peer_udcm.out
echo "# udcm: droce-gen exit $RC"
[ $RC = 0 ] || grep -v '^EAL\|qdisc\|tap_\|TELEMETRY\|rte flow' "$LABI_DIR/udcm.err" | tail -5 | sed 's/^/#   /'
check "udcm: droce-gen exits 0 and gen_peer exits 0 (payloads right, its QPs in RTS)" [ "$RC/$PRC" = 0/0 ]
udcm_agree() {
	python3 - "$LABI_DIR/udcm.json" "$LABI_DIR/udcm.peer" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
q = d['per_qp']
sent = sorted(x['send'] for x in q)
r = [dict(w.split('=', 1) for w in l.split()[1:]) for l in open(sys.argv[2]) if l.startswith('RESULT ')]
got = sorted(int(x['recvs']) for x in r)
acc = sorted(int(l.split('qpn=')[1], 16) for l in open(sys.argv[2]) if 'cm: accepted qp' in l)
peers = sorted(x['peer_qpn'] for x in q)
qkeys = [hex(x['peer_qkey']) for x in q]
print(f"#   gen_peer accepted {len(acc)} SIDR_REQs with its QPs {acc}; droce-gen's QPs sent to {peers} "
      f"with Q_Keys {qkeys} (keys: {d.get('keys')}): {sent} datagrams; gen_peer's QPs received {got}")
sys.exit(0 if len(acc) == 2 and len(q) == 2 and peers == acc and all(s > 0 for s in sent) and
         got == sent and d.get('keys') == 'cm' and all(k == '0x1234567' for k in qkeys) and
         all(x['bad_payload'] == '0' for x in r) else 1)
PY
}
check "udcm: SIDR_REPs named gen_peer's 2 QPs and the UDP Q_Key, and each of them received exactly one droce QP's datagrams" udcm_agree

lab_capture_stop
droce_mac=$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/write.err" | head -1)
python3 "$HERE/wire_check.py" "$LABI_DIR/gen_flow.pcap" "$droce_mac" > "$LABI_DIR/wire.log" 2>&1
wrc=$?
sed 's/^/# /' "$LABI_DIR/wire.log" | tail -6
check "the wire: every RoCE frame decodes in tshark, nothing malformed, every ICRC good" [ $wrc = 0 ]
echo "# gen_flow: $SECONDS s"
[ $fails = 0 ]
