#!/usr/bin/env bash
# Integration test: droce's RPC-over-RDMA client against droce's RPC-over-RDMA server in two
# processes, in two network namespaces joined by a veth pair of MTU 1500 (path MTU 1024), on
# net_af_packet (tests/rpc/rpcrdma_testd.c):
#  - one server (--serve) in B, port 20049, serving the test programs;
#  - clients (--call) in A, one after the other, at inline 1024, 4096 and 65536, and once at
#    4096 without RFC 8797 private data: each runs NULL, ECHO of 0/1/5/3000/9000 bytes, ECHO of
#    1 MiB by read chunk with the reply by reply chunk, FILL of 1 MiB by write chunk and 16 NULL
#    calls 4 in flight, checks every byte and how each call went, and must exit 0;
#  - the server, stopped by SIGINT, exits 0 and its counters (summed over the connections it
#    had) show every call answered SUCCESS, long calls and replies, READs and WRITEs, and no
#    RDMA_ERROR sent, no RDMA error, no credit overrun;
#  - once more with the stack's impairment on both sides (impair_tx: drop 1 %, reorder 1 %, on
#    RoCE frames, docs/config.md): the client exits 0 and the server's QPs had to go back;
#  - tshark, over a capture of both veth ends: every RoCE frame decodes with RPC-over-RDMA's
#    heuristic dissector off, none malformed, and every ICRC matches Python's zlib; with it on,
#    tshark finds the RPC-over-RDMA messages (calls and replies of every kind the runs used)
#    and flags none of them.
# Usage: rpcrdma_veth.sh PATH/TO/rpcrdma_testd      Exit 77 = skipped (with the reason).
set -u
TESTD=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
T0=$(date +%s)

if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
if ! command -v tshark mergecap > /dev/null; then echo "SKIP: needs tshark and mergecap"; exit 77; fi
mkdir -p "$LAB_DIR"
trap lab_down EXIT
lab_up
ip netns exec "$LAB_NS_A" ip link set "$LAB_VETH_A" mtu 1500
ip netns exec "$LAB_NS_B" ip link set "$LAB_VETH_B" mtu 1500
# No hugepages unless asked (LAB_HUGEPAGES=auto): the server holds up to 8 endpoints of up to
# 20 MiB each (128 receives of 64 KiB and three 1 MiB staging areas), the client 14 MiB, and
# this test should not take hugepages other runs on the machine may be counting on.
LAB_HUGEPAGES=${LAB_HUGEPAGES:-no}
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
sed -i 's/^memory = .*/memory = 512/' "$LAB_DIR/b.ini"
sed -i 's/^memory = .*/memory = 256/' "$LAB_DIR/a.ini"
for tag in a b; do
	cp "$LAB_DIR/$tag.ini" "$LAB_DIR/${tag}_imp.ini"
	seed=$([ $tag = a ] && echo 11 || echo 12)
	echo "impair_tx = drop=1%,reorder=1%,roce_only,seed=$seed" >> "$LAB_DIR/${tag}_imp.ini"
done

# capture PHASE: tshark on both veth ends into $LAB_DIR/PHASE_{a,b}.pcapng
capture() {
	local pair ns dev tag i
	TSHARKS=()
	for pair in "$LAB_NS_A:$LAB_VETH_A:a" "$LAB_NS_B:$LAB_VETH_B:b"; do
		IFS=: read -r ns dev tag <<< "$pair"
		ip netns exec "$ns" timeout 250 tshark -q -i "$dev" -f "udp port 4791" \
			-w "$LAB_DIR/$1_$tag.pcapng" > "$LAB_DIR/tshark_$1_$tag.log" 2>&1 &
		TSHARKS+=($!)
		LAB_PIDS+=($!)
	done
	for tag in a b; do
		for ((i = 0; i < 100; i++)); do
			grep -q "Capturing on" "$LAB_DIR/tshark_$1_$tag.log" 2>/dev/null && break
			sleep 0.1
		done
	done
}

# capture_stop PHASE: stop tshark and merge the two ends into $LAB_DIR/PHASE.pcapng. Each end
# holds only what it received (net_af_packet sends past the kernel's taps), so every frame is
# in exactly one of them, and the RPC-over-RDMA dissector needs both directions in one file.
capture_stop() {
	sleep 1
	for t in "${TSHARKS[@]}"; do kill -INT "$t" 2>/dev/null; done
	wait "${TSHARKS[@]}" 2>/dev/null
	mergecap -w "$LAB_DIR/$1.pcapng" "$LAB_DIR/$1_a.pcapng" "$LAB_DIR/$1_b.pcapng"
}

# start_server NAME INI: rpcrdma_testd --serve in B; waits for "listening"
start_server() {
	local i
	ip netns exec "$LAB_NS_B" timeout 200 "$TESTD" --config "$LAB_DIR/$2" --serve \
		> "$LAB_DIR/$1.srv.out" 2> "$LAB_DIR/$1.srv.err" &
	SRV=$!
	LAB_PIDS+=($SRV)
	for ((i = 0; i < 200; i++)); do
		grep -q "^listening" "$LAB_DIR/$1.srv.out" 2>/dev/null && return 0
		kill -0 $SRV 2>/dev/null || break
		sleep 0.1
	done
	echo "# the server did not come up:"
	tail -n 20 "$LAB_DIR/$1.srv.out" "$LAB_DIR/$1.srv.err" | sed 's/^/#   /'
	return 1
}

# stop_server NAME: SIGINT, its exit status in RC_S and its counters in $LAB_DIR/NAME.counters
stop_server() {
	kill -INT $SRV
	wait $SRV
	RC_S=$?
	grep "^# " "$LAB_DIR/$1.srv.out"
	sed -n 's/^counters: //p' "$LAB_DIR/$1.srv.out" | tr ' ' '\n' > "$LAB_DIR/$1.counters"
	echo "# server counters: $(sed -n 's/^counters: //p' "$LAB_DIR/$1.srv.out")"
}

# counter NAME KEY: the server's summed counter
counter() { sed -n "s/^$2=//p" "$LAB_DIR/$1.counters"; }

# client NAME INI ARGS...: rpcrdma_testd --call in A; its ok/FAIL lines shown; sets RC_C
client() {
	local name=$1 ini=$2 t
	shift 2
	t=$(date +%s.%N)
	ip netns exec "$LAB_NS_A" timeout 120 "$TESTD" --config "$LAB_DIR/$ini" \
		--call "$LAB_IP4_B" "$@" > "$LAB_DIR/$name.cli.out" 2> "$LAB_DIR/$name.cli.err"
	RC_C=$?
	t=$(python3 -c "print(f'{$(date +%s.%N) - $t:.2f}')")
	echo "# client $name ($*): exit $RC_C in ${t}s"
	grep -E "^(ok|FAIL) - |^# " "$LAB_DIR/$name.cli.out" | sed 's/^/#   /'
	if [ $RC_C != 0 ]; then
		echo "# its stderr:"; tail -n 20 "$LAB_DIR/$name.cli.err" | sed 's/^/#   /'
	fi
	check "client $name: every step passed (exit 0)" [ $RC_C = 0 ]
	check "client $name: 12 ok lines (ARP, connection, 9 steps, counters), no FAIL" \
		[ "$(grep -c "^ok - " "$LAB_DIR/$name.cli.out")/$(grep -c "^FAIL" "$LAB_DIR/$name.cli.out")" = 12/0 ]
}

# ---- four clients in turn against one server, no impairment
capture clean
if start_server clean b.ini; then
	client inline1024 a.ini --inline 1024
	client inline4096 a.ini --inline 4096
	client inline65536 a.ini --inline 65536
	client no-private-data a.ini --no-private-data
	grep -q "^# connection 4 from $LAB_IP4_A: client private data none, inline 4096" \
		"$LAB_DIR/clean.srv.out"
	check "the server saw no private data from the fourth client" [ $? = 0 ]
	stop_server clean
	check "the server exits 0 on SIGINT" [ "$RC_S" = 0 ]
	calls=$(counter clean calls)
	check "4 connections, 96 calls, all answered SUCCESS" \
		[ "$(counter clean connections)/$calls/$(counter clean rpc_success)" = 4/96/96 ]
	check "no RDMA_ERROR sent, no RDMA error, no credit overrun, nothing dropped" \
		[ "$(counter clean err_chunk_sent)$(counter clean err_vers_sent)$(counter clean rdma_errors)$(counter clean credit_overrun)$(counter clean rx_drop)" = 00000 ]
	# long calls: 3000 and 9000 B at 1024, 9000 at 4096 and without private data (the
	# server receives 4096); long replies: those, the 1 MiB ECHO of every client, and the
	# 3000 B ECHO, which the server may send only 1024 bytes of inline to the client without
	# private data (RFC 8797 §7): 3 + 2 + 1 + 3
	check "long calls 4 (got $(counter clean long_calls)), long replies 9 (got $(counter clean long_replies))" \
		[ "$(counter clean long_calls)/$(counter clean long_replies)" = 4/9 ]
	check "RDMA READs of read chunks and WRITEs of write and reply chunks (at least 4 MiB each way)" \
		python3 -c "import sys; sys.exit(0 if $(counter clean ddp_read_bytes) >= 4 << 20 and $(counter clean ddp_write_bytes) >= 8 << 20 else 1)"
else
	fails=$((fails + 1))
fi
capture_stop clean

# ---- impairment on both sides
capture impaired
if start_server impaired b_imp.ini; then
	client impaired a_imp.ini --inline 4096
	stop_server impaired
	check "impaired: the server exits 0" [ "$RC_S" = 0 ]
	check "impaired: 24 calls, all SUCCESS, no RDMA error" \
		[ "$(counter impaired calls)/$(counter impaired rpc_success)/$(counter impaired rdma_errors)" = 24/24/0 ]
	check "impaired: the loss was real, the server's QP went back ($(counter impaired qp_retransmits) times)" \
		[ "$(counter impaired qp_retransmits)" -gt 0 ]
	grep -h "impair" "$LAB_DIR/impaired.srv.err" "$LAB_DIR/impaired.cli.err" | head -4 | sed 's/^/# /'
else
	fails=$((fails + 1))
fi
capture_stop impaired

# ---- the wire
python3 - "$LAB_DIR" "$LAB_IP4_A" "$LAB_IP4_B" <<'PY' || fails=$((fails + 1))
import collections, struct, subprocess, sys, zlib

d, ip_a, ip_b = sys.argv[1:4]
fails = 0
def check(ok, what):
    global fails
    print(("ok   - " if ok else "FAIL - ") + what)
    fails += not ok

def icrc_ok(fr):
    # IBA Annex A17: 8 bytes of 1s for the LRH, the variant IPv4/UDP/BTH fields masked
    ip = bytearray(fr[14:34]); ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp = bytearray(fr[34:42]); udp[6:8] = b"\xff\xff"
    bth = bytearray(fr[42:54]); bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + fr[54:-4])
    return struct.pack("<I", crc) == fr[-4:]

def frames(f):
    # the frames' bytes, from a tiny pcapng reader (enhanced packet blocks)
    data = open(f, "rb").read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack("<II", data[off:off + 8])
        if btype == 6:
            caplen = struct.unpack("<I", data[off + 20:off + 24])[0]
            yield data[off + 28:off + 28 + caplen]
        off += blen

def tshark(f, *args):
    r = subprocess.run(["tshark", "-r", f, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL - tshark -r {f}: {r.stderr.strip()}")
    return r.stdout.splitlines()

names = {0: "SEND FIRST", 1: "SEND MIDDLE", 2: "SEND LAST", 4: "SEND ONLY", 6: "WRITE FIRST",
         7: "WRITE MIDDLE", 8: "WRITE LAST", 10: "WRITE ONLY", 12: "READ REQUEST",
         13: "READ RESP FIRST", 14: "READ RESP MIDDLE", 15: "READ RESP LAST",
         16: "READ RESP ONLY", 17: "ACK", 100: "UD SEND ONLY (MAD)"}
ERROR = "8388608"  # _ws.expert.severity of an error (PI_ERROR)
mtypes = {"0": "RDMA_MSG", "1": "RDMA_NOMSG", "2": "RDMA_MSGP", "3": "RDMA_DONE",
          "4": "RDMA_ERROR"}
for phase, runs in (("clean", 4), ("impaired", 1)):
    f = f"{d}/{phase}.pcapng"
    ops = collections.Counter()
    total = undecoded = malformed = 0
    for line in tshark(f, "--disable-protocol", "rpcordma", "-T", "fields", "-E", "separator=|",
                       "-e", "infiniband.bth.opcode", "-e", "_ws.malformed",
                       "-e", "_ws.expert.severity"):
        op, mal, sev = (line.split("|") + ["", "", ""])[:3]
        total += 1
        if not op:
            undecoded += 1
            continue
        ops[int(op)] += 1
        if mal or ERROR in sev.split(","):
            malformed += 1
    bad_icrc = sum(not icrc_ok(fr) for fr in frames(f))
    print(f"# {phase}: opcodes:", ", ".join(f"{names.get(k, k)}={v}" for k, v in sorted(ops.items())))
    check(total > 0 and undecoded == 0 and malformed == 0,
          f"{phase}: tshark decodes all {total} RoCE frames with rpcordma off "
          f"({undecoded} not RoCE, {malformed} malformed or in error)")
    check(bad_icrc == 0, f"{phase}: every ICRC matches zlib ({bad_icrc} do not)")
    # no chunk here is 1024 bytes or less, so no WRITE ONLY and no READ RESPONSE ONLY
    need = [0, 1, 2, 4, 6, 7, 8, 12, 13, 14, 15, 17, 100]
    missing = [names[k] for k in need if not ops[k]]
    check(not missing, f"{phase}: SENDs, WRITEs and READ responses in several packets, SEND "
          f"ONLY, READ requests, ACKs, MADs (missing: {missing or 'none'})")

    # with the heuristic RPC-over-RDMA dissector on: the messages, each counted once by
    # sender, xid and type (a SEND resent by the transport shows twice)
    msgs, kinds = {}, collections.Counter()
    flagged = []
    n = 0
    for line in tshark(f, "-Y", "rpcordma", "-T", "fields", "-E", "separator=|",
                       "-e", "frame.number", "-e", "ip.src", "-e", "rpcordma.xid",
                       "-e", "rpcordma.msg_type", "-e", "rpcordma.reads_count",
                       "-e", "rpcordma.writes_count", "-e", "rpcordma.reply_count",
                       "-e", "_ws.malformed", "-e", "_ws.expert.severity"):
        fld = (line.split("|") + [""] * 9)[:9]
        first = lambda s: s.split(",")[0]
        n += 1
        who = "client" if fld[1] == ip_a else "server" if fld[1] == ip_b else fld[1]
        mt = mtypes.get(first(fld[3]), first(fld[3]))
        chunks = "+".join(c for c, v in (("read", fld[4]), ("write", fld[5]), ("reply", fld[6]))
                          if first(v) not in ("", "0"))
        kind = f"{who} {mt}" + (f" ({chunks})" if chunks else "")
        if (who, first(fld[2]), mt) not in msgs:
            msgs[(who, first(fld[2]), mt)] = kind
            kinds[kind] += 1
        if fld[7] or ERROR in fld[8].split(","):
            flagged.append(f"frame {fld[0]} from {who}: {kind}")
    print(f"# {phase}: RPC-over-RDMA messages tshark finds ({n} frames):",
          ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())))
    for x in flagged[:8]:
        print(f"#   flagged: {x}")
    calls = sum(v for k, v in kinds.items() if k.startswith("client"))
    replies = sum(v for k, v in kinds.items() if k.startswith("server"))
    check(calls == 24 * runs and replies == 24 * runs,
          f"{phase}: tshark finds {calls} calls and {replies} replies "
          f"(the clients made {24 * runs})")
    if phase == "clean":
        want = ["client RDMA_MSG", "client RDMA_NOMSG (read+reply)",
                "client RDMA_MSG (read+reply)", "client RDMA_MSG (write)", "server RDMA_MSG",
                "server RDMA_NOMSG (reply)", "server RDMA_MSG (write)"]
        check(all(kinds[w] for w in want),
              f"{phase}: calls inline, long (NOMSG, position-zero read chunk and reply chunk), "
              "with a read chunk and a reply chunk, with a write chunk; replies inline, by "
              "reply chunk (NOMSG), with a write chunk")
    check(not flagged, f"{phase}: tshark flags none of the {n} RPC-over-RDMA frames droce "
          f"sent ({len(flagged)} flagged)")
sys.exit(1 if fails else 0)
PY
echo "# ran $(($(date +%s) - T0)) s"
echo "$fails check(s) failed"
[ $fails = 0 ]
