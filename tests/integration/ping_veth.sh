#!/usr/bin/env bash
# Integration test: droce-ping (rping on droce) against itself, in two network namespaces
# joined by a veth pair of MTU 1500 (so the path MTU is 1024), on net_af_packet.
#  - rping's option checks, messages and exit statuses without a stack;
#  - server in B, client in A with -V -v -C 10 at -S 64, 1024 and 5000 (5000 B is five
#    packets per READ and per WRITE), and once more at 1024 with -q on both sides: both exit 0,
#    the client prints exactly rping's ten "ping data: rdma-ping-N: ..." lines, the server the
#    same as "server ping data:", both print rping's DISCONNECT EVENT lines, and the server
#    ends the way rping's does ("wait for RDMA_READ_ADV state 10", exit 0); once more over
#    IPv6 (server -a ::0, rping's IPv6 wildcard);
#  - a server with a smaller -S than its client's: it says so, disconnects (its DREQ), both
#    exit 255;
#  - a persistent server (-P) serves two clients one after the other and exits 130 on SIGINT;
#  - a client to a port with no server: REJ "invalid service ID", rping's message, exit 255,
#    in seconds; a client to an address nobody answers: ADDR_ERROR -110, exit 255;
#  - tshark, over a capture of both veth ends: every RoCE frame decodes, none is malformed,
#    the ICRC matches Python's zlib, the CM MADs are ConnectRequest/ConnectReply/ReadyToUse/
#    DisconnectRequest/DisconnectReply (and ConnectReject for the missing server), the
#    DisconnectRequests come from the clients (but for the failing server's), the REQ and REP
#    carry rping's responder resources 1, initiator depth 1, retry and RNR retry 7, the
#    client's info SENDs carry -S as their size and the server's "go ahead" SENDs are 16 zero
#    bytes.
# Usage: ping_veth.sh PATH/TO/droce-ping      Exit 77 = skipped (with the reason).
set -u
PING=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
mkdir -p "$LAB_DIR"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
T0=$(date +%s)

# ---- rping's option handling, no stack needed
out=$("$PING" -s -S 22 2>&1); rc=$?
check "-S 22: rping's message and exit 22" \
	[ "$rc/$out" = "22/Invalid size 22 (valid range is 23 to 65536)" ]
out=$("$PING" -c -C -1 -a 127.0.0.1 2>&1); rc=$?
check "-C -1: rping's message and exit 22" [ "$rc/$out" = "22/Invalid count -1" ]
"$PING" -v > "${TMPDIR:-/tmp}/ping_usage.$$" 2>&1; rc=$?
check "neither -s nor -c: usage and exit 22" \
	grep -q -- "-c \[-vVd\] \[-S size\] \[-C count\] \[-I addr\] -a addr \[-p port\]" \
	"${TMPDIR:-/tmp}/ping_usage.$$"
rm -f "${TMPDIR:-/tmp}/ping_usage.$$"
check "... exit 22" [ $rc = 22 ]
"$PING" --help | grep -q -- "--config FILE"
check "--help documents --config" [ $? = 0 ]

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
if ! command -v tshark > /dev/null; then echo "SKIP: needs tshark"; exit 77; fi
trap lab_down EXIT
lab_up
ip netns exec "$LAB_NS_A" ip link set "$LAB_VETH_A" mtu 1500
ip netns exec "$LAB_NS_B" ip link set "$LAB_VETH_B" mtu 1500
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
TSHARKS=()
for pair in "$LAB_NS_A:$LAB_VETH_A:a" "$LAB_NS_B:$LAB_VETH_B:b"; do
	IFS=: read -r ns dev tag <<< "$pair"
	ip netns exec "$ns" timeout 170 tshark -q -i "$dev" -f "udp port 4791" \
		-w "$LAB_DIR/ping_$tag.pcapng" > "$LAB_DIR/tshark_$tag.log" 2>&1 &
	TSHARKS+=($!)
done
for tag in a b; do
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$LAB_DIR/tshark_$tag.log" 2>/dev/null && break
		sleep 0.1
	done
done

# start_server NAME ARGS...: droce-ping -s in B (with -d, whose "rdma_listen" says it is ready)
start_server() {
	local name=$1 i
	shift
	ip netns exec "$LAB_NS_B" timeout 60 "$PING" --config "$LAB_DIR/b.ini" -s -d "$@" \
		> "$LAB_DIR/$name.srv.out" 2> "$LAB_DIR/$name.srv.err" &
	SRV=$!
	LAB_PIDS+=($SRV)
	for ((i = 0; i < 200; i++)); do
		grep -q "^rdma_listen$" "$LAB_DIR/$name.srv.out" 2>/dev/null && return 0
		kill -0 $SRV 2>/dev/null || break
		sleep 0.1
	done
	echo "# the server did not come up:"; cat "$LAB_DIR/$name.srv.out" "$LAB_DIR/$name.srv.err"
	return 1
}

# client NAME ARGS...: droce-ping -c in A; sets RC_C
client() {
	local name=$1
	shift
	DROCE_CONF="$LAB_DIR/a.ini" ip netns exec "$LAB_NS_A" timeout 60 "$PING" -c "$@" \
		> "$LAB_DIR/$name.cli.out" 2> "$LAB_DIR/$name.cli.err"
	RC_C=$?
}

# rping_lines FILE: FILE without the EAL's, the drivers' and the stack's log lines
rping_lines() {
	grep -vE '^(EAL|TELEMETRY|droce\.[a-z]+): |^[A-Za-z_0-9]+\(\): ' "$1"
}

# expected PREFIX SIZE COUNT: rping's ping data lines (rping_test_client's buffer)
expected() {
	python3 - "$@" <<'PY'
import sys
prefix, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start = 65
for ping in range(count):
    s = list(f"rdma-ping-{ping}: ")[:size - 1]
    c = start
    while len(s) < size - 1:
        s.append(chr(c)); c = 65 if c == 122 else c + 1
    start = 65 if start == 122 else start + 1
    print(prefix + "".join(s))
PY
}

# run NAME SIZE ARGS...: one server, one client with -V -v -C 10, everything checked
run() {
	local name=$1 size=$2 rc_s t
	shift 2
	start_server "$name" -v -S "$size" -a "${SRV_A:-$LAB_IP4_B}" "$@" ||
		{ fails=$((fails + 1)); return; }
	t=$(date +%s.%N)
	client "$name" -a "${CLI_A:-$LAB_IP4_B}" -V -v -C 10 -S "$size" "$@"
	t=$(python3 -c "print(f'{$(date +%s.%N) - $t:.2f}')")
	wait $SRV
	rc_s=$?
	echo "# $name: client exit $RC_C, server exit $rc_s, client ran ${t}s"
	if [ $RC_C != 0 ] || [ $rc_s != 0 ]; then
		for f in cli.out cli.err srv.err; do
			echo "# $f:"; tail -n 20 "$LAB_DIR/$name.$f" | sed 's/^/#   /'
		done
		echo "# srv.out:"; grep -v "^server ping data" "$LAB_DIR/$name.srv.out" | tail -n 30 | sed 's/^/#   /'
	fi
	check "$name: client and server exit 0" [ "$RC_C/$rc_s" = 0/0 ]
	expected "ping data: " "$size" 10 > "$LAB_DIR/$name.want"
	check "$name: the client prints rping's 10 ping data lines, nothing else on stdout" \
		cmp -s "$LAB_DIR/$name.want" "$LAB_DIR/$name.cli.out"
	expected "server ping data: " "$size" 10 > "$LAB_DIR/$name.want_s"
	check "$name: the server prints the same data as \"server ping data:\"" \
		cmp -s "$LAB_DIR/$name.want_s" <(grep "^server ping data: " "$LAB_DIR/$name.srv.out")
	check "$name: client stderr (but for logs) is rping's \"client DISCONNECT EVENT...\"" \
		[ "$(rping_lines "$LAB_DIR/$name.cli.err")" = "client DISCONNECT EVENT..." ]
	check "$name: server stderr (but for logs) is rping's DISCONNECT EVENT, wait for RDMA_READ_ADV" \
		[ "$(rping_lines "$LAB_DIR/$name.srv.err")" = "$(printf 'server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10')" ]
}

for size in 64 1024 5000; do
	run "size $size" "$size"
done
run "size 1024 -q" 1024 -q
SRV_A=::0 CLI_A=$LAB_IP6_B run "IPv6 size 1024" 1024

# ---- the server's buffer is smaller than the client's: rping's server would fail its READ
start_server mismatch -S 64 && {
	client mismatch -a "$LAB_IP4_B" -V -C 3 -S 1024
	wait $SRV
	rc_s=$?
	rping_lines "$LAB_DIR/mismatch.srv.err" | sed 's/^/#   server: /'
	rping_lines "$LAB_DIR/mismatch.cli.err" | sed 's/^/#   client: /'
	check "-S 64 server, -S 1024 client: both exit 255" [ "$RC_C/$rc_s" = 255/255 ]
	check "... the server says why" grep -q "the client's buffer is 1024 bytes, ours 64" \
		"$LAB_DIR/mismatch.srv.err"
	check "... the client sees the server disconnect" \
		grep -q "the server disconnected after 0 pings" "$LAB_DIR/mismatch.cli.err"
}

# ---- a persistent server: two clients in turn, then SIGINT
start_server persistent -P -S 1024 && {
	client p1 -a "$LAB_IP4_B" -V -C 5 -S 1024
	rc1=$RC_C
	client p2 -a "$LAB_IP4_B" -V -C 5 -S 1024
	rc2=$RC_C
	check "-P: two clients in turn both succeed" [ "$rc1/$rc2" = 0/0 ]
	check "-P: the server is still running" kill -0 $SRV

	# ---- no server on the port (the CM is up: the persistent server listens on 7174)
	t=$(date +%s.%N)
	client noserver -a "$LAB_IP4_B" -p 7999 -C 1
	t=$(python3 -c "print(f'{$(date +%s.%N) - $t:.1f}')")
	rping_lines "$LAB_DIR/noserver.cli.err" | sed 's/^/#   /'
	check "no server on the port: exit 255 after ${t}s (< 10 s)" \
		python3 -c "import sys; sys.exit(0 if $RC_C == 255 and $t < 10 else 1)"
	check "no server on the port: rping's \"cma event RDMA_CM_EVENT_REJECTED, error 8\"" \
		grep -qx "cma event RDMA_CM_EVENT_REJECTED, error 8" "$LAB_DIR/noserver.cli.err"
	check "no server on the port: says so" \
		grep -q "$LAB_IP4_B:7999 rejected the connection: no server listens on that port" \
		"$LAB_DIR/noserver.cli.err"

	kill -INT $SRV
	wait $SRV
	check "-P: SIGINT ends the server with 130" [ $? = 130 ]
	check "-P: it served both clients" [ "$(grep -c "^server DISCONNECT EVENT" \
		"$LAB_DIR/persistent.srv.err")" = 2 ]
}

# ---- nobody at that address
t=$(date +%s.%N)
client nobody -a 10.77.0.99 -C 1
t=$(python3 -c "print(f'{$(date +%s.%N) - $t:.1f}')")
rping_lines "$LAB_DIR/nobody.cli.err" | sed 's/^/#   /'
check "nobody at the address: ADDR_ERROR -110 and exit 255 after ${t}s (< 10 s)" \
	python3 -c "import sys; sys.exit(0 if $RC_C == 255 and $t < 10 else 1)"
check "... with rping's message" \
	grep -qx "cma event RDMA_CM_EVENT_ADDR_ERROR, error -110" "$LAB_DIR/nobody.cli.err"

# ---- the wire
sleep 1
for t in "${TSHARKS[@]}"; do kill -INT "$t" 2>/dev/null; done
wait "${TSHARKS[@]}" 2>/dev/null
ADDRS=("$LAB_IP4_A" "$LAB_IP4_B" "$LAB_IP6_A" "$LAB_IP6_B")
python3 - "$LAB_DIR" "${ADDRS[@]}" <<'PY' || fails=$((fails + 1))
import collections, struct, subprocess, sys, zlib

import ipaddress
d, ip_a, ip_b, ip6_a, ip6_b = sys.argv[1:6]
ip6_a, ip6_b = str(ipaddress.ip_address(ip6_a)), str(ipaddress.ip_address(ip6_b))
def icrc_ok(fr):
    # IBA Annex A17: 8 bytes of 1s for the LRH, the variant IP/UDP/BTH fields masked
    if fr[12:14] == b"\x86\xdd":
        ip = bytearray(fr[14:54]); ip[0] |= 0x0f; ip[1:4] = b"\xff\xff\xff"; ip[7] = 0xff
    else:
        ip = bytearray(fr[14:34]); ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    o = 14 + len(ip)
    udp = bytearray(fr[o:o + 8]); udp[6:8] = b"\xff\xff"
    bth = bytearray(fr[o + 8:o + 20]); bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + fr[o + 20:-4])
    return struct.pack("<I", crc) == fr[-4:]

ops, cm = collections.Counter(), collections.Counter()
total = undecoded = malformed = bad_icrc = 0
dreq_from_server = 0
infos, params = collections.Counter(), collections.Counter()
for tag in "ab":
    f = f"{d}/ping_{tag}.pcapng"
    out = subprocess.run(["tshark", "-r", f, "-T", "fields", "-E", "separator=|",
                          "-e", "infiniband.bth.opcode", "-e", "_ws.malformed", "-e", "ip.src",
                          "-e", "_ws.col.Info", "-e", "data.data", "-e", "ipv6.src",
                          "-e", "infiniband.cm.req.serviceid.dport",
                          "-e", "infiniband.cm.req.responderres",
                          "-e", "infiniband.cm.req.initdepth",
                          "-e", "infiniband.cm.req.retrcount",
                          "-e", "infiniband.cm.req.rnrretrcount",
                          "-e", "infiniband.cm.rep.respres",
                          "-e", "infiniband.cm.rep.initdepth",
                          "-e", "infiniband.cm.rep.rnrretrcount"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"FAIL - tshark -r {f}: {out.stderr.strip()}")
    out = out.stdout.splitlines()
    for line in out:
        fld = (line.split("|") + [""] * 14)[:14]
        op, mal, src, info, payload, src6 = fld[:6]
        src = src or str(ipaddress.ip_address(src6)) if (src or src6) else ""
        if info == "CM: ConnectRequest" and int(fld[6], 16) != 7999:
            params["REQ " + "/".join(str(int(x, 0)) for x in fld[7:11])] += 1
        if info == "CM: ConnectReply":
            params["REP " + "/".join(str(int(x, 0)) for x in fld[11:14])] += 1
        total += 1
        if not op:
            undecoded += 1
            continue
        ops[int(op)] += 1
        if mal:
            malformed += 1
        if info.startswith("CM: "):
            cm[info[4:]] += 1
            if info == "CM: DisconnectRequest" and src not in (ip_a, ip6_a):
                dreq_from_server += 1
        if int(op) == 4:  # RC SEND ONLY: rping's 16-byte info messages
            p = bytes.fromhex(payload.replace(":", ""))
            if len(p) != 16:
                infos["bad length"] += 1
            elif src in (ip_b, ip6_b):
                infos["zero go ahead" if p == bytes(16) else "server non-zero"] += 1
            else:
                infos[f"client size {struct.unpack('>I', p[12:16])[0]}"] += 1
    data = open(f, "rb").read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack("<II", data[off:off + 8])
        if btype == 6:
            caplen = struct.unpack("<I", data[off + 20:off + 24])[0]
            if not icrc_ok(data[off + 28:off + 28 + caplen]):
                bad_icrc += 1
        off += blen
names = {4: "SEND ONLY", 6: "WRITE FIRST", 7: "WRITE MIDDLE", 8: "WRITE LAST", 10: "WRITE ONLY",
         12: "READ REQUEST", 13: "READ RESP FIRST", 14: "READ RESP MIDDLE",
         15: "READ RESP LAST", 16: "READ RESP ONLY", 17: "ACK", 100: "UD SEND ONLY (MAD)"}
print("# opcodes:", ", ".join(f"{names.get(k, k)}={v}" for k, v in sorted(ops.items())))
print("# CM:", ", ".join(f"{k}={v}" for k, v in sorted(cm.items())))
print("# info SENDs:", ", ".join(f"{k}={v}" for k, v in sorted(infos.items())))
print("# CM parameters (REQ rr/id/retry/rnr, REP rr/id/rnr):",
      ", ".join(f"{k} x{v}" for k, v in sorted(params.items())))
fails = 0
def check(ok, what):
    global fails
    print(("ok   - " if ok else "FAIL - ") + what)
    fails += not ok
check(total > 0 and undecoded == 0 and malformed == 0,
      f"tshark decodes all {total} RoCE frames ({undecoded} not RoCE, {malformed} malformed)")
check(bad_icrc == 0, f"every ICRC matches zlib ({bad_icrc} do not)")
need_cm = ["ConnectRequest", "ConnectReply", "ReadyToUse", "DisconnectRequest",
           "DisconnectReply", "ConnectReject"]
check(all(cm[k] for k in need_cm) and set(cm) <= set(need_cm),
      "the CM MADs are " + "/".join(need_cm))
check(cm["DisconnectRequest"] >= 8 and dreq_from_server == 1,
      f"the DisconnectRequests come from the clients, but for the failing server's "
      f"({dreq_from_server} from servers)")
check(set(params) == {"REQ 1/1/7/7", "REP 1/1/7"},
      "REQ and REP carry rping's responder resources 1, initiator depth 1, retries 7")
need_ops = [4, 6, 7, 8, 10, 12, 13, 14, 15, 16, 17, 100]
check(all(ops[k] for k in need_ops), "SEND, READ and WRITE in every segmentation, ACKs, MADs")
sizes = {f"client size {s}" for s in (64, 1024, 5000)}
check(sizes <= set(infos) and infos["zero go ahead"] > 0 and not infos["server non-zero"]
      and not infos["bad length"] and set(infos) <= sizes | {"zero go ahead"},
      "info SENDs: 16 bytes, the client's carry -S, the server's go aheads are zeros")
sys.exit(1 if fails else 0)
PY
echo "# ran $(($(date +%s) - T0)) s"
echo "$fails check(s) failed"
[ $fails = 0 ]
