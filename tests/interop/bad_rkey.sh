#!/usr/bin/env bash
# Interop test: droce's responder refuses bad RDMA accesses from Linux soft-RoCE (rdma_rxe in
# a QEMU VM; tests/interop/lab.sh) with a NAK "remote access error", and rxe completes the
# work request with IBV_WC_REM_ACCESS_ERR at once - not with IBV_WC_RETRY_EXC_ERR after its
# retries, which is what a responder that drops such requests gets.
# tests/interop/bad_rkey.c, a raw verbs program (libibverbs + librdmacm), is built here with
# gcc against the host's rdma-core 44 headers (Debian 12, as the VM's libraries) and copied
# into the VM through the command agent (vm_put). Its QPs have local ACK timeout 18 (1.07 s)
# and, as the active side, retry count 6: RETRY_EXC_ERR would take 7 x 1.07 s = 7.5 s (as
# the passive side the REQ's retry count 7 applies, which rxe retries forever); each error
# must come within 1000 ms.
#   client: bad_rkey connects to a droce-ping server (-s -P -S 4000: it accepts any RDMA CM
#           connection and waits for rping's first SEND, so the QP is idle) and posts
#           read-badkey:   RDMA READ of 64 B with an rkey droce never handed out;
#           write-badkey:  RDMA WRITE of 64 B with that rkey (a new connection each);
#   server: droce-ping clients (-c -V -S 4000 -C 3) connect to bad_rkey, whose first SEND
#           they receive is rping's info of the client's start buffer (address, rkey, size).
#           bad_rkey READs the whole buffer with it (must succeed and be rping's first ping),
#           then, one connection each,
#           read-flipkey:  READ 64 B with one bit of that rkey flipped;
#           write-oob:     WRITE 64 B starting 8 B before the buffer's end (valid rkey);
#           read-oob:      READ 64 B starting 8 B before the buffer's end (valid rkey).
#           Each droce-ping client then sees the server disconnect and exits 255.
# Wire check: every RoCE frame decodes in tshark, nothing malformed, every ICRC verifies
# (wire_check.py); the CM MADs are all there, 5 connections, the starting PSNs agree, and droce
# sent exactly 5 NAKs with AETH syndrome "remote access error" (cm_check.py).
# Usage: bad_rkey.sh PATH/TO/droce-ping [ARTIFACT_DIR]
# Exit 77 = skipped (with the reason). Console logs, capture and outputs go to ARTIFACT_DIR.
set -u
DPING=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
SIZE=4000
LIMIT_MS=1000
T0=$SECONDS
. "$HERE/lab.sh"
. "$HERE/rping_lib.sh"
trap 'keep_artifacts; lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
if ! command -v gcc >/dev/null || [ ! -f /usr/include/infiniband/verbs.h ] ||
	[ ! -f /usr/include/rdma/rdma_cma.h ]; then
	echo "SKIP: needs gcc, libibverbs-dev and librdmacm-dev (scripts/setup.sh installs them)"
	exit 77
fi
[ -x "$DPING" ] || { echo "FAIL - $1 is not an executable droce-ping"; exit 1; }
[ -n "$LABI_ARTIFACTS" ] && rm -f "$LABI_ARTIFACTS"/*.{pcap,log,out,err,ini}

mkdir -p "$LABI_DIR"
if ! gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$LABI_DIR/bad_rkey" "$HERE/bad_rkey.c" \
	-libverbs -lrdmacm -lm > "$LABI_DIR/gcc.log" 2>&1; then
	echo "FAIL - bad_rkey.c does not build:"; cat "$LABI_DIR/gcc.log"
	exit 1
fi
strip "$LABI_DIR/bad_rkey"

lab_up_or_exit 1
check "bad_rkey built on the host and copied into the VM ($(stat -c %s "$LABI_DIR/bad_rkey") bytes, md5 agrees)" \
	vm_put vm1 "$LABI_DIR/bad_rkey" /tmp/bad_rkey || exit 1
lab_capture_start bad_rkey || exit 1

# result CASE FILE: CASE's RESULT line in FILE is REM_ACCESS_ERR, within the limit
result() {
	local line
	line=$(grep -a "^RESULT case=$1 " "$2")
	echo "# $line"
	case "$line" in *" status=REM_ACCESS_ERR(10) "*" verdict=ok") ;; *) return 1 ;; esac
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < $LIMIT_MS else 1)" \
		"$(sed -nE 's/.* elapsed_ms=([0-9.]+) .*/\1/p' <<< "$line")"
}
times=()

# ---- bad_rkey as the client of a droce-ping server
dping_start server 120 -s -P -d -S "$SIZE" -a "$LABI_DROCE_IP"
if dping_wait_listen server; then
	vm_cmd vm1 "$LABI_DIR/client.vm" 90 \
		"/tmp/bad_rkey -T $LIMIT_MS client $LABI_DROCE_IP 7174 read-badkey write-badkey"
	rv=$?
else
	echo "# droce-ping -s did not listen within 10 s"
	rv=-
fi
sed 's/^/# vm1: /' "$LABI_DIR/client.vm.out" "$LABI_DIR/client.vm.err" | grep -v "^# vm1: RESULT"
check "bad_rkey client: exit 0 (got $rv)" [ "$rv" = 0 ]
for c in read-badkey write-badkey; do
	check "$c: IBV_WC_REM_ACCESS_ERR within $LIMIT_MS ms" result "$c" "$LABI_DIR/client.vm.out"
	times+=("$(grep -a "^RESULT case=$c " "$LABI_DIR/client.vm.out")")
done
kill -INT $DPING_PID 2>/dev/null
wait $DPING_PID
rd=$?
dping_lines "$LABI_DIR/server.droce.err" | sed 's/^/# droce-ping -s: /'
good=false
[ $rd = 130 ] && [ "$(grep -c "^server DISCONNECT EVENT" "$LABI_DIR/server.droce.err")" = 2 ] &&
	good=true
check "the droce-ping -P server took both connections and ends with 130 on SIGINT (got $rd)" $good

# ---- bad_rkey as the server of droce-ping clients
cases=(read-flipkey write-oob read-oob)
vm_cmd vm1 "$LABI_DIR/server.vm" 120 "/tmp/bad_rkey -T $LIMIT_MS server 7174 ${cases[*]}" &
vmjob=$!
if vm_wait_listen vm1 7174; then
	for c in "${cases[@]}"; do
		# the previous connection must be gone in the VM too: a REQ from droce's QPN while
		# rxe still holds a connection with it gets REJ "stale connection"
		vm_run vm1 "i=0; while rdma res show cm_id | grep -v LISTEN | grep -q ':7174 '; do
			i=\$((i + 1)); [ \$i -gt 150 ] && exit 1; sleep 0.1; done" 30 > /dev/null
		dping_start "client-$c" 40 -c -V -S "$SIZE" -C 3 -a "$VMIP"
		wait $DPING_PID
		rd=$?
		dping_lines "$LABI_DIR/client-$c.droce.err" | sed "s/^/# droce-ping -c ($c): /"
		good=false
		[ $rd = 255 ] && grep -q "the server disconnected after 0 pings" \
			"$LABI_DIR/client-$c.droce.err" && good=true
		check "$c: the droce-ping client sees the server disconnect after 0 pings, exits 255 (got $rd)" \
			$good
	done
else
	echo "# bad_rkey server did not listen in the VM within 10 s"
	vm_run vm1 "killall bad_rkey" 10 > /dev/null 2>&1
fi
wait $vmjob
rv=$?
sed 's/^/# vm1: /' "$LABI_DIR/server.vm.out" "$LABI_DIR/server.vm.err" | grep -v "^# vm1: RESULT"
check "bad_rkey server: exit 0 (got $rv)" [ "$rv" = 0 ]
check "the valid READ with the advertised rkey worked in each connection (rping's first ping)" \
	[ "$(grep -ac '^RESULT case=valid-read op=READ status=SUCCESS(0) .* verdict=ok' \
		"$LABI_DIR/server.vm.out")/$(grep -ac '^bad_rkey: the valid READ brought "rdma-ping-0: ' \
		"$LABI_DIR/server.vm.out")" = "${#cases[@]}/${#cases[@]}" ]
for c in "${cases[@]}"; do
	check "$c: IBV_WC_REM_ACCESS_ERR within $LIMIT_MS ms" result "$c" "$LABI_DIR/server.vm.out"
	times+=("$(grep -a "^RESULT case=$c " "$LABI_DIR/server.vm.out")")
done
lab_capture_stop

mac=$(droce_mac)
echo "# the NAKs droce sent (tshark):"
tshark -r "$LABI_DIR/bad_rkey.pcap" -Y "eth.src == $mac && infiniband.aeth.syndrome >= 0x60" \
	-T fields -e frame.number -e _ws.col.Info -e infiniband.bth.psn -e infiniband.aeth.syndrome \
	-e infiniband.aeth.syndrome.error_code 2>/dev/null | sed 's/^/#   /'
echo "# wire check of bad_rkey.pcap${LABI_ARTIFACTS:+ (kept in $LABI_ARTIFACTS)}, droce is $mac:"
python3 "$HERE/wire_check.py" "$LABI_DIR/bad_rkey.pcap" "$mac"
check "wire: tshark decodes every RoCE frame, none malformed, every ICRC verifies" [ $? = 0 ]
python3 "$HERE/cm_check.py" "$LABI_DIR/bad_rkey.pcap" "$mac" --conns 5 --access-naks 5
check "wire: 5 connections, droce's 5 NAKs say remote access error (cm_check.py)" [ $? = 0 ]

echo "# results (case, status, time to the completion):"
for l in "${times[@]}"; do
	sed -nE 's/^RESULT case=([^ ]+) op=([^ ]+) status=([^ ]+) .*elapsed_ms=([^ ]+) .*retry_exc_ms=([^ ]+) timeout=([^ ]+) retry_cnt=([^ ]+) .*/#   \1 (\2): \3 after \4 ms (timeout \6, retry_cnt \7: RETRY_EXC_ERR after \5 ms)/p' <<< "$l" |
		sed 's/RETRY_EXC_ERR after inf ms/rxe would retry forever/'
done
echo "# interop_bad_rkey took $((SECONDS - T0)) s; $FAILS check(s) failed"
[ $FAILS = 0 ]
