#!/usr/bin/env bash
# Integration test: two droce processes, each with an RC QP, in two network namespaces joined
# by a veth pair (net_af_packet). They exchange QP numbers through files, connect, and the
# client SENDs, WRITEs and READs messages from 0 B to 1 MiB; both sides verify every byte
# (tests/roce/rc_peer.c). Meanwhile tshark captures both veth ends, and afterwards every RoCE
# frame droce put on the wire must decode in tshark (no malformed frame) with the opcodes the
# exchange needs, and its ICRC must match a recomputation with Python's zlib.
# Usage: rc_veth.sh PATH/TO/rc_peer      Exit 77 = skipped (with the reason).
set -u
PEER=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
trap lab_down EXIT
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

lab_up
lab_config a "$LAB_VETH_A" "$LAB_TAP_A" "$LAB_IP4_A" "$LAB_IP6_A" 0
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 1
TSHARKS=()
for pair in "$LAB_NS_A:$LAB_VETH_A:a" "$LAB_NS_B:$LAB_VETH_B:b"; do
	IFS=: read -r ns dev tag <<< "$pair"
	ip netns exec "$ns" timeout 120 tshark -q -i "$dev" -f "udp port 4791" \
		-w "$LAB_DIR/rc_$tag.pcapng" > "$LAB_DIR/tshark_$tag.log" 2>&1 &
	TSHARKS+=($!)
done
for tag in a b; do
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$LAB_DIR/tshark_$tag.log" 2>/dev/null && break
		sleep 0.1
	done
done

mkdir -p "$LAB_DIR/oob"
ip netns exec "$LAB_NS_B" timeout 90 "$PEER" -c "$LAB_DIR/b.ini" --role server \
	--dir "$LAB_DIR/oob" --peer "$LAB_IP4_A" --linger 20 > "$LAB_DIR/server.log" 2>&1 &
SRV=$!
LAB_PIDS+=($SRV)
ip netns exec "$LAB_NS_A" timeout 90 "$PEER" -c "$LAB_DIR/a.ini" --role client \
	--dir "$LAB_DIR/oob" --peer "$LAB_IP4_B" > "$LAB_DIR/client.log" 2>&1
rc_c=$?
# the server lingers after its result: its transport telemetry must describe the exchange
for ((i = 0; i < 100; i++)); do
	grep -qE "rc_peer server: (all|FAIL)" "$LAB_DIR/server.log" && break
	sleep 0.1
done
tel=$(lab_telemetry "droce_b_$LAB_ID" /droce/roce)
python3 - "$tel" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.loads(sys.argv[1])["/droce/roce"]["iface0"]
qps = [v for k, v in d.items() if k.startswith("qp_0x")]
ok = len(qps) == 1 and qps[0]["state"] == "RTS" and qps[0]["rx_pkts"] > 1000 and \
     qps[0]["tx_pkts"] > 1000 and d["drop_bad_icrc"] == 0 and d["drop_no_qp"] == 0
print(f"{'ok  ' if ok else 'FAIL'} - /droce/roce on the server: {json.dumps(qps[0] if qps else d)}")
sys.exit(0 if ok else 1)
PY
kill -INT $SRV 2>/dev/null
wait $SRV
rc_s=$?
grep -h "rc_peer" "$LAB_DIR/client.log" "$LAB_DIR/server.log"
check "client: every SEND, WRITE and READ completed and verified" [ $rc_c = 0 ]
check "server: every SEND and the written bytes verified" [ $rc_s = 0 ]

sleep 1
for t in "${TSHARKS[@]}"; do kill -INT "$t" 2>/dev/null; done
wait "${TSHARKS[@]}" 2>/dev/null
python3 - "$LAB_DIR" <<'PY' || fails=$((fails + 1))
import collections, subprocess, struct, sys, zlib

d = sys.argv[1]
def icrc_ok(fr):
    ip = bytearray(fr[14:34]); ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp = bytearray(fr[34:42]); udp[6:8] = b"\xff\xff"
    bth = bytearray(fr[42:54]); bth[4] = 0xff
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + fr[54:-4])) == fr[-4:]

ops = collections.Counter()
total = bad = malformed = 0
for tag in "ab":
    f = f"{d}/rc_{tag}.pcapng"
    out = subprocess.run(["tshark", "-r", f, "--disable-protocol", "rpcordma", "-T", "fields",
                          "-e", "infiniband.bth.opcode", "-e", "_ws.malformed", "-e", "frame.len"],
                         capture_output=True, text=True).stdout.splitlines()
    for line in out:
        op, mal, _ = (line.split("\t") + ["", "", ""])[:3]
        total += 1
        if op:
            ops[int(op)] += 1
        if mal:
            malformed += 1
    # the frames' bytes for the ICRC, from a tiny pcapng reader
    data = open(f, "rb").read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack("<II", data[off:off + 8])
        if btype == 6:
            caplen = struct.unpack("<I", data[off + 20:off + 24])[0]
            fr = data[off + 28:off + 28 + caplen]
            if not icrc_ok(fr):
                bad += 1
        off += blen
names = {4: "SEND ONLY", 0: "SEND FIRST", 6: "WRITE FIRST", 7: "WRITE MIDDLE", 8: "WRITE LAST",
         10: "WRITE ONLY", 12: "READ REQUEST", 13: "READ RESP FIRST", 16: "READ RESP ONLY",
         17: "ACK"}
print("opcodes on the wire:", ", ".join(f"{names.get(k, k)}={v}" for k, v in sorted(ops.items())))
need = [0, 1, 2, 4, 6, 7, 8, 10, 12, 13, 14, 15, 16, 17]
missing = [k for k in need if ops[k] == 0]
ok = total > 0 and malformed == 0 and bad == 0 and not missing
print(f"{'ok  ' if ok else 'FAIL'} - tshark decodes all {total} RoCE frames droce sent "
      f"({malformed} malformed), ICRC matches zlib on all but {bad}, missing opcodes {missing}")
sys.exit(0 if ok else 1)
PY
echo "$fails check(s) failed"
[ $fails = 0 ]
