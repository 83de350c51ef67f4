#!/usr/bin/env bash
# droce-gen --replay (issue 18 item 4) on a net_pcap port (no root, no hugepages): Linux's RC
# traffic from rc_write_read_atomic.pcap (tests/data; WRITE, READ, atomics between two
# rxe hosts) replayed to droce's own address, its frames captured by net_pcap, then read by
# tshark and by this script, which knows the rewrite rules but not droce-gen's code:
#   - every RoCEv2 frame of the capture went out, in order, and nothing else;
#   - each frame equals its original but for what the rewrite changes: Ethernet addresses, IP
#     addresses and checksum, the UDP checksum (0), the BTH's destination QP through
#     --qpn-map, its PSN moved so that each destination QP starts at --psn-base, the RETH's or
#     AtomicETH's rkey through --rkey-map, and the ICRC;
#   - tshark decodes every output frame as InfiniBand with those values (QPN, PSN, rkey);
#   - every ICRC checks, computed here from the RoCEv2 rules (zlib's CRC-32 over the masked
#     pseudo-header, BTH and payload), the originals' too (which proves this check);
#   - at the recorded pace (nanosecond stamps 0.1 s apart) no frame goes out early;
#   - IPv6: the capture made RoCEv2 over IPv6 replayed to an IPv4 peer, and to an IPv6 peer, and
#     the IPv4 capture to an IPv6 peer: from the UDP header on each frame is the IPv4 replay's,
#     the IP header the peer's family with the original's TOS/traffic class, TTL/hop limit (and
#     flow label, IPv6 to IPv6), every ICRC good by the IPv6 rules too (tests/roce/tx_check.py);
#   - --replay-loops 2 sends the capture twice; a capture made here with ARP, TCP, RoCEv2 over
#     IPv6 behind an extension header, an 802.1Q-tagged RoCE frame and one cut by the snap length sends the RoCE frames
#     (untagged) and skips the others, counted by reason; a file that is not a
#     capture is refused with exit 2 and a message; a capture cut short is reported malformed
#     with exit 1 after the frames before the cut;
#   - a UD frame's DETH source QP through --sqpn-map (the Q_Key, the payload and a frame from
#     another QP as they were, the ICRC good).
# Usage: gen_replay.sh PATH/TO/droce-gen CAPTURES_DIR (tests/data)       Exit 77 = skipped.
set -u
gen=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
caps=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir" /var/run/dpdk/genreplay-$$-*' EXIT
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
command -v tshark > /dev/null || { echo "SKIP: needs tshark (Debian package tshark)"; exit 77; }
[ -r "$caps/rc_write_read_atomic.pcap" ] || { echo "FAIL - $caps/rc_write_read_atomic.pcap is not there"; exit 1; }
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
eal=(--no-huge -m 256 --no-pci --no-shconf -l 0 --log-level='*:error')
# replay NAME CAPTURE ARGS...: the output capture NAME.pcap, the JSON line NAME.json, exit NAME.rc;
# the peer is PEER (default droce's own IPv4 address), the port has IPv6 fd98::1 with V6=1
replay() {
	local name=$1 cap=$2
	shift 2
	printf '[port0]\nvdev = net_pcap0,tx_pcap=%s\nipv4 = 10.98.0.1/24\n%s' "$dir/$name.pcap" \
		"$([ "${V6:-0}" = 1 ] && printf 'ipv6 = fd98::1/64\n')" > "$dir/$name.ini"
	"$gen" "${eal[@]}" --file-prefix="genreplay-$$-$name" -- -c "$dir/$name.ini" \
		-p "${PEER:-10.98.0.1:4791}" --replay "$cap" -j -q "$@" > "$dir/$name.out" 2>&1
	echo $? > "$dir/$name.rc"
	grep '^{"mode":"replay"' "$dir/$name.out" > "$dir/$name.json"
	sed "s/^/# $name: /" "$dir/$name.out"
}
SRC=$caps/rc_write_read_atomic.pcap
replay main "$SRC" --replay-pps 200000 --qpn-map 0x11:0x123 --qpn-map 0x13:0xabcdef \
	--rkey-map 0x21d:0xabcdef01 --rkey-map 0x4ba:7 --psn-base 16777200
check "replay: exit 0" [ "$(cat "$dir/main.rc")" = 0 ]
python3 - "$SRC" "$dir/main.pcap" "$dir/main.json" > "$dir/main.check" 2>&1 << 'PY'
import json, struct, sys, zlib
src, out, js = sys.argv[1:4]
def frames(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off, fr = 24, []
    while off + 16 <= len(d):
        incl = struct.unpack(e + "I", d[off + 8:off + 12])[0]
        fr.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return fr
def roce(f):
    """(ip header, udp, roce bytes) of an IPv4 RoCEv2 frame, else None"""
    l2 = 18 if f[12:14] == b"\x81\x00" else 14
    if f[l2 - 2:l2] != b"\x08\x00" or f[l2 + 9] != 17:
        return None
    ihl = (f[l2] & 15) * 4
    tot = struct.unpack(">H", f[l2 + 2:l2 + 4])[0]
    udp = f[l2 + ihl:l2 + ihl + 8]
    if struct.unpack(">H", udp[2:4])[0] != 4791:
        return None
    return f[l2:l2 + ihl], udp, f[l2 + ihl + 8:l2 + tot]
def icrc_ok(ip, udp, r):
    # RoCEv2 ICRC: CRC-32 over 8 bytes of 1s, the IP header with TOS, TTL and checksum set to
    # 1s, the UDP header with its checksum set to 1s, the BTH with its resv8a byte set to 1s,
    # and the payload; stored little-endian after it
    ip, udp, bth = bytearray(ip), bytearray(udp), bytearray(r[:12])
    ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp[6:8] = b"\xff\xff"
    bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + r[12:-4])
    return crc == struct.unpack("<I", r[-4:])[0]
RETH = {0x06, 0x0a, 0x0b, 0x0c}  # RC WRITE FIRST, ONLY, ONLY w/ imm, READ REQUEST
ATOMIC = {0x13, 0x14}            # RC CMP_SWAP, FETCH_ADD
qmap = {0x11: 0x123, 0x13: 0xabcdef}
kmap = {0x21d: 0xabcdef01, 0x4ba: 7}
base = 16777200
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
ins = [x for x in (roce(f) for f in frames(src)) if x]
outs = [roce(f) for f in frames(out)]
check(f"{len(outs)} frames out, the capture's {len(ins)} RoCEv2 frames", len(outs) == len(ins) and all(outs))
check("the originals' ICRCs check here (the check is right)", all(icrc_ok(*x) for x in ins))
check("every output ICRC checks", all(o and icrc_ok(*o) for o in outs))
first, bad, nq, nk = {}, [], 0, 0
for i, (a, b) in enumerate(zip(ins, outs)):
    (ia, ua, ra), (ib, ub, rb) = a, b
    op = ra[0]
    q = int.from_bytes(ra[5:8], "big")
    q2 = qmap.get(q, q)
    first.setdefault(q2, int.from_bytes(ra[9:12], "big"))
    psn = (int.from_bytes(ra[9:12], "big") - first[q2] + base) & 0xffffff
    want = bytearray(ra)
    want[5:8] = q2.to_bytes(3, "big")
    want[9:12] = psn.to_bytes(3, "big")
    nq += q in qmap
    if op in RETH or op in ATOMIC:
        k = int.from_bytes(ra[20:24], "big")
        if k in kmap:
            want[20:24] = kmap[k].to_bytes(4, "big")
            nk += 1
    if bytes(want[:-4]) != rb[:-4]:
        bad.append(i + 1)
    if ib[12:16] != bytes([10, 98, 0, 1]) or ib[16:20] != bytes([10, 98, 0, 1]) or ub[6:8] != b"\0\0" or ub[:2] != ua[:2]:
        bad.append(-(i + 1))
    if ia[:8] != ib[:8] or ia[20:] != ib[20:] or ib[8:9] != ia[8:9]:
        bad.append(-(i + 1))
check(f"each frame is its original but for the rewrites (differing: {bad[:8]})", not bad)
j = json.load(open(js))
check(f"droce-gen's counts: sent {j['sent']}, QPN {j['qpn_rewritten']} (want {nq}), rkey "
      f"{j['rkey_rewritten']} (want {nk}), nothing skipped",
      j["sent"] == len(ins) and j["qpn_rewritten"] == nq and j["rkey_rewritten"] == nk and
      j["skipped"] == 0 and nq > 0 and nk > 0)
sys.exit(1 if fails else 0)
PY
rc=$?
sed 's/^/  /' "$dir/main.check"
check "the output frames are the capture's, rewritten as asked (exit $rc)" [ "$rc" = 0 ]
# tshark's view of the output: InfiniBand frames with the new QPNs, PSNs and rkeys
tshark -r "$dir/main.pcap" -T fields -e infiniband.bth.destqp -e infiniband.bth.psn \
	-e infiniband.reth.r_key -e _ws.expert.message 2>/dev/null > "$dir/ts.txt"
check "tshark: every frame InfiniBand, no expert message (malformed, bad length)" \
	bash -c "[ \$(wc -l < '$dir/ts.txt') = \$(python3 -c 'import json; print(json.load(open(\"$dir/main.json\"))[\"sent\"])') ] &&
		! awk -F'\t' '\$1 == \"\" || \$4 != \"\"' '$dir/ts.txt' | grep -q ."
check "tshark: QP 0x11 is 0x000123 and its first PSN 16777200, rkey 0x21d is 0xabcdef01" \
	bash -c "head -n 1 '$dir/ts.txt' | grep -q \$'^0x000123\t16777200\t0xabcdef01'"
check "tshark: no frame still goes to QP 0x000011 or 0x000013" \
	bash -c "! cut -f1 '$dir/ts.txt' | grep -qx '0x000011\|0x000013'"
# IPv6 (both ways): the capture made RoCEv2 over IPv6 here (each IPv4 header replaced by an IPv6
# one: TOS to traffic class, TTL to hop limit, flow label 0x5a5a0 + its index; the ICRC computed
# again by tests/roce/tx_check.py's rules, which the interop suite's wire check holds Linux rxe's
# IPv6 frames to), replayed to an IPv4 peer; and the IPv4 capture replayed to an IPv6 peer. From
# the UDP header to the ICRC each frame must equal the IPv4 replay's (same maps, same PSN base);
# the IP header is the peer's family with the original's TOS/traffic class and TTL/hop limit
python3 - "$SRC" "$dir/v6in.pcap" "$here/roce" << 'PY'
import struct, sys, zlib
sys.path.insert(0, sys.argv[3])
from tx_check import frames, icrc_ok
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, f in enumerate(frames(sys.argv[1])):
    if f[12:14] != b"\x08\x00" or f[23] != 17:
        continue
    ihl = (f[14] & 15) * 4
    tot = struct.unpack(">H", f[16:18])[0]
    udp_roce = bytearray(f[14 + ihl:14 + tot])
    vtc = 6 << 28 | f[15] << 20 | (0x5a5a0 + i)
    ip6 = struct.pack(">IHBB", vtc, len(udp_roce), 17, f[22]) + bytes.fromhex("fd0000000000000000000000000000aa") + bytes.fromhex("fd0000000000000000000000000000bb")
    g = bytearray(f[:12] + b"\x86\xdd" + ip6 + udp_roce)
    # recompute the ICRC with the masked IPv6 pseudo-header (tx_check's rules)
    ip = bytearray(ip6); ip[0] |= 0x0F; ip[1:4] = b"\xff\xff\xff"; ip[7] = 0xFF
    u = bytearray(udp_roce[:8]); u[6:8] = b"\xff\xff"
    bth = bytearray(udp_roce[8:20]); bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(u) + bytes(bth) + bytes(udp_roce[20:-4]))
    g[-4:] = struct.pack("<I", crc)
    assert icrc_ok(bytes(g))
    out += struct.pack("<IIII", 1, i, len(g), len(g)) + g
open(sys.argv[2], "wb").write(out)
PY
maps=(--qpn-map 0x11:0x123 --qpn-map 0x13:0xabcdef --rkey-map 0x21d:0xabcdef01 --rkey-map 0x4ba:7
	--psn-base 16777200)
replay v6to4 "$dir/v6in.pcap" --replay-pps 200000 "${maps[@]}"
V6=1 PEER='[fd98::1]:4791' replay v4to6 "$SRC" --replay-pps 200000 "${maps[@]}"
V6=1 PEER='[fd98::1]:4791' replay v6to6 "$dir/v6in.pcap" --replay-pps 200000 "${maps[@]}"
check "IPv6: the three replays exit 0 ($(cat "$dir/v6to4.rc" "$dir/v4to6.rc" "$dir/v6to6.rc" | tr '\n' ' '))" \
	bash -c "[ \"\$(cat '$dir/v6to4.rc' '$dir/v4to6.rc' '$dir/v6to6.rc' | tr -d '\n')\" = 000 ]"
python3 - "$SRC" "$dir" "$here/roce" > "$dir/v6.check" 2>&1 << 'PY'
import json, struct, sys
src, d = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from tx_check import frames, icrc_ok
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
def roce_frames(path):
    """(IP header, UDP..end) of each RoCEv2 frame; other frames (ND of the IPv6 port) apart"""
    r, other = [], []
    for f in frames(path):
        if f[12:14] == b"\x08\x00" and f[23] == 17 and f[14 + (f[14] & 15) * 4 + 2:][:2] == b"\x12\xb7":
            ihl = (f[14] & 15) * 4
            r.append((f, f[14:14 + ihl], f[14 + ihl:]))
        elif f[12:14] == b"\x86\xdd" and f[20] == 17 and f[56:58] == b"\x12\xb7":
            r.append((f, f[14:54], f[54:]))
        else:
            other.append(f)
    return r, other
idx4 = [k for k, g in enumerate(frames(src)) if g[12:14] == b"\x08\x00" and g[23] == 17]
src4 = [f for f in frames(src) if f[12:14] == b"\x08\x00" and f[23] == 17]
ref, _ = roce_frames(d + "/main.pcap")
v6in = list(frames(d + "/v6in.pcap"))
me6 = bytes.fromhex("fd980000000000000000000000000001")
for name, orig6 in (("v6to4", True), ("v4to6", False), ("v6to6", True)):
    got, other = roce_frames(f"{d}/{name}.pcap")
    j = json.load(open(f"{d}/{name}.json"))
    fam6 = name.endswith("6")
    check(f"{name}: {len(got)} RoCEv2 frames out of {len(src4)}, JSON sent {j['sent']}, none skipped; "
          f"other frames: {len(other)}, all ICMPv6 ({[f[54] for f in other if len(f) > 54]})",
          len(got) == len(src4) == j["sent"] and j["skipped"] == 0 and
          all(f[12:14] == b"\x86\xdd" and f[20] == 58 for f in other) and (fam6 or not other))
    bad = []
    for i, ((f, ip, rest), (_, _, rref), s4) in enumerate(zip(got, ref, src4)):
        tos, ttl = s4[15], s4[22]
        ok = icrc_ok(f) and rest[:-4] == rref[:-4]
        if fam6:
            vtc = struct.unpack(">I", ip[:4])[0]
            flow = 0x5a5a0 + idx4[i] if orig6 else 0
            ok = ok and f[12:14] == b"\x86\xdd" and vtc >> 28 == 6 and (vtc >> 20) & 0xff == tos \
                and vtc & 0xfffff == flow and ip[7] == ttl and ip[6] == 17 and ip[8:24] == me6 \
                and ip[24:40] == me6 and struct.unpack(">H", ip[4:6])[0] == len(rest)
        else:
            s = sum(struct.unpack(">10H", ip[:20]))
            while s >> 16:
                s = (s & 0xffff) + (s >> 16)
            ok = ok and f[12:14] == b"\x08\x00" and ip[0] == 0x45 and ip[1] == tos and ip[8] == ttl \
                and ip[9] == 17 and ip[12:16] == bytes([10, 98, 0, 1]) and ip[16:20] == bytes([10, 98, 0, 1]) \
                and s == 0xffff and struct.unpack(">H", ip[2:4])[0] == 20 + len(rest)
        if not ok:
            bad.append(i + 1)
    check(f"{name}: each frame the IPv4 replay's from its UDP header on, its IP header the peer's family "
          f"with the original's TOS and TTL{' and flow label' if fam6 and orig6 else ''}, the ICRC good "
          f"(differing: {bad[:8]})", not bad and got)
sys.exit(1 if fails else 0)
PY
rc=$?
sed 's/^/  /' "$dir/v6.check"
check "IPv6 replays: IPv4 capture to an IPv6 peer and back, IPv6 to IPv6 (exit $rc)" [ "$rc" = 0 ]
# tshark: over IPv6 the zero UDP checksum is its one expert message ("Illegal checksum value
# (0)", an error to Wireshark); Linux rxe sends the same (rxe_net.c prepare_udp_hdr(): check 0
# for both families, and its IPv6 socket takes zero checksums in)
for n in v6to4 v4to6; do
	tshark -r "$dir/$n.pcap" -Y infiniband -T fields -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.reth.r_key -e _ws.expert.message 2>/dev/null |
		sed 's/\tIllegal checksum value (0)$/\t/' > "$dir/ts_$n.txt"
done
check "tshark: the IPv4-from-IPv6 replay decodes as the IPv4 one (QPN, PSN, rkey), no expert message" \
	cmp -s "$dir/ts.txt" "$dir/ts_v6to4.txt"
check "tshark: the IPv6 replay decodes as the IPv4 one, the zero UDP checksum its only expert message" \
	bash -c "cmp -s '$dir/ts.txt' '$dir/ts_v4to6.txt' && [ \$(tshark -r '$dir/v4to6.pcap' -Y 'infiniband && udp.checksum == 0' 2>/dev/null | wc -l) = \$(python3 -c 'import json; print(json.load(open(\"$dir/main.json\"))[\"sent\"])') ]"
PEER='[fd98::2]:4791' replay nov6 "$SRC" --replay-pps 100000
check "--replay to an IPv6 peer from a port with no global IPv6 address: exit 1, the message names the key" \
	bash -c "[ \$(cat '$dir/nov6.rc') = 1 ] && grep -q 'no IPv6 address to send from: set ipv6' '$dir/nov6.out'"
replay loops "$SRC" --replay-pps 400000 --replay-loops 2
check "--replay-loops 2: exit 0 and twice the frames ($(sed -E 's/.*"sent":([0-9]+).*/\1/' "$dir/loops.json"))" \
	bash -c "[ \$(cat '$dir/loops.rc') = 0 ] && [ \$(sed -E 's/.*\"sent\":([0-9]+).*/\\1/' '$dir/loops.json') = \$((2 * \$(sed -E 's/.*\"sent\":([0-9]+).*/\\1/' '$dir/main.json'))) ]"
# a capture of other traffic too, made here from the first RoCE frame: an ARP request, an IPv4
# TCP segment, RoCEv2 over IPv6 behind a hop-by-hop header, the RoCE frame with an 802.1Q tag, the RoCE frame cut short by
# the capture's snap length, and the RoCE frame as it is. Two go out (the tag dropped), the
# others are skipped by reason
python3 - "$SRC" "$dir/mixed.pcap" << 'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
e = "<" if struct.unpack("<I", d[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else ">"
incl = struct.unpack(e + "I", d[24 + 8:24 + 12])[0]
roce = d[40:40 + incl]
eth = roce[:12]
arp = eth + b"\x08\x06" + bytes(28)
tcp = eth + b"\x08\x00" + bytes([0x45, 0, 0, 40]) + bytes(5) + b"\x06" + bytes(10) + bytes(20)
# RoCEv2 over IPv6 behind a hop-by-hop options header (next header 0): not rewritten
v6 = eth + b"\x86\xdd" + bytes([0x60, 0, 0, 0, 0, 36, 0, 64]) + bytes(32) + bytes([17, 0, 1, 4, 0, 0, 0, 0]) + struct.pack(">HHHH", 1234, 4791, 28, 0) + bytes(20)
vlan = roce[:12] + b"\x81\x00\x00\x05" + roce[12:]
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, (f, orig) in enumerate([(arp, 0), (tcp, 0), (v6, 0), (vlan, 0), (roce[:60], len(roce)), (roce, 0)]):
    out += struct.pack("<IIII", 1, i, len(f), orig or len(f)) + f
open(sys.argv[2], "wb").write(out)
PY
replay mixed "$dir/mixed.pcap" --replay-pps 100000
check "a capture of other traffic: 2 RoCE frames sent (one had a VLAN tag), ARP and TCP not_roce 2, IPv6 behind an extension header 1, truncated 1" \
	bash -c "grep -q '\"sent\":2,\"skipped\":4,\"skipped_linktype\":0,\"skipped_truncated\":1,\"skipped_not_roce\":2,\"skipped_ipv6_ext\":1,' '$dir/mixed.json'"
check "the tagged frame went out untagged and the same as the untagged one" \
	bash -c "[ \$(tshark -r '$dir/mixed.pcap' -T fields -e vlan.id -e infiniband.bth.psn 2>/dev/null | sort -u | wc -l) = 1 ] && [ -z \"\$(tshark -r '$dir/mixed.pcap' -T fields -e vlan.id 2>/dev/null | tr -d '\n')\" ]"
# a UD frame (SEND ONLY with a DETH: Q_Key 0x80010000, source QP 1, as a CM MAD's) replayed with
# --sqpn-map 1:0x7777: the DETH's source QP is rewritten, the Q_Key and payload kept, the ICRC
# good; a second frame from QP 2 is left as it was
python3 - "$dir/ud_in.pcap" << 'PY'
import struct, sys
def frame(sqpn):
    roce = bytes([0x64, 0, 0xff, 0xff, 0, 0, 0, 0x20, 0, 0, 0, 5]) + struct.pack(">I", 0x80010000) \
        + bytes([0]) + sqpn.to_bytes(3, "big") + bytes(range(24)) + bytes(4)
    udp = struct.pack(">HHHH", 0xc000, 4791, 8 + len(roce), 0)
    ip = bytes([0x45, 0, 0, 0]) + bytes([0, 0, 0x40, 0, 64, 17, 0, 0]) + bytes([10, 1, 0, 1, 10, 1, 0, 2])
    ip = ip[:2] + struct.pack(">H", 20 + len(udp) + len(roce)) + ip[4:]
    return bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0]) + ip + udp + roce
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, f in enumerate([frame(1), frame(2)]):
    out += struct.pack("<IIII", 1, i, len(f), len(f)) + f
open(sys.argv[1], "wb").write(out)
PY
replay ud "$dir/ud_in.pcap" --replay-pps 100000 --sqpn-map 1:0x7777
check "UD: both frames sent, one source QP rewritten (the JSON counts it)" \
	bash -c "[ \$(cat '$dir/ud.rc') = 0 ] && grep -q '\"sent\":2,' '$dir/ud.json' && grep -q '\"sqpn_rewritten\":1,' '$dir/ud.json'"
check "UD: tshark reads source QPs 0x7777 and 0x2, Q_Key 0x80010000 both" \
	bash -c "tshark -r '$dir/ud.pcap' -T fields -e infiniband.deth.srcqp -e infiniband.deth.q_key 2>/dev/null |
		python3 -c 'import sys; v = [int(x, 16) for x in sys.stdin.read().split()]; sys.exit(0 if v == [0x7777, 0x80010000, 2, 0x80010000] else 1)'"
python3 - "$dir/ud.pcap" > "$dir/ud.check" << 'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
off, ok = 24, []
while off + 16 <= len(d):
    n = struct.unpack("<I", d[off + 8:off + 12])[0]
    f = d[off + 16:off + 16 + n]
    off += 16 + n
    ip, udp, r = bytearray(f[14:34]), bytearray(f[34:42]), f[42:]
    bth = bytearray(r[:12])
    ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp[6:8] = b"\xff\xff"
    bth[4] = 0xff
    ok.append(zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + r[12:-4]) == struct.unpack("<I", r[-4:])[0]
              and r[20:44] == bytes(range(24)))
print(ok)
sys.exit(0 if ok == [True, True] else 1)
PY
check "UD: both ICRCs good after the rewrite, the payload as it was ($(cat "$dir/ud.check"))" \
	python3 -c "import sys; sys.exit(0 if open('$dir/ud.check').read().strip() == '[True, True]' else 1)"
# the recorded pace: 5 frames stamped 0.1 s apart go out no sooner than their stamps say (the
# run's span is at least 0.4 s; no upper bound is asserted: a loaded machine may be late)
python3 - "$SRC" "$dir/paced.pcap" << 'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
e = "<" if struct.unpack("<I", d[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else ">"
incl = struct.unpack(e + "I", d[24 + 8:24 + 12])[0]
roce = d[40:40 + incl]
out = bytearray(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))  # nanosecond stamps
for i in range(5):
    out += struct.pack("<IIII", 100, i * 100000000, len(roce), len(roce)) + roce
open(sys.argv[2], "wb").write(out)
PY
replay paced "$dir/paced.pcap"
check "recorded pace: 5 frames sent over at least 0.4 s ($(sed -E 's/.*"seconds":([0-9.]+).*/\1/' "$dir/paced.json") s)" \
	bash -c "[ \$(cat '$dir/paced.rc') = 0 ] && grep -q '\"sent\":5,' '$dir/paced.json' &&
		python3 -c \"import json,sys; sys.exit(0 if json.load(open('$dir/paced.json'))['seconds'] >= 0.4 else 1)\""
# bad input
printf 'this is not a capture\n' > "$dir/text"
replay text "$dir/text"
check "a file that is not a capture: exit 2, and the message says so" \
	bash -c "[ \$(cat '$dir/text.rc') = 2 ] && grep -q 'not a pcap or pcapng capture' '$dir/text.out'"
head -c 3000 "$SRC" > "$dir/cut.pcap"
replay cut "$dir/cut.pcap" --replay-pps 100000
check "a capture cut short: the whole frames before the cut sent, then exit 1, malformed" \
	bash -c "[ \$(cat '$dir/cut.rc') = 1 ] && grep -q '\"capture_malformed\":true' '$dir/cut.json' &&
		grep -Eq '\"sent\":[1-9]' '$dir/cut.json'"
echo "# gen_replay: $fails failed"
[ "$fails" = 0 ]
