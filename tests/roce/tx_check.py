#!/usr/bin/env python3
"""Packets droce builds, checked from outside: tests/roce/roce_txgen writes a pcap and the
values it asked for; tshark must decode exactly those header fields, DSCP/ECN/VLAN priority
and UDP ports, with nothing malformed; and each ICRC is recomputed here with zlib over the
masked bytes (IBTA A17.3.3), independently of droce's CRC code. The UDP source port is
checked against the Linux/mlx5 formula computed here.
Usage: tx_check.py ROCE_TXGEN WORKDIR"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tshark_agree import FIELDS, norm  # noqa: E402


def sport(fl, lqpn, rqpn):
    if fl == 0:
        v = lqpn * rqpn
        v ^= v >> 20
        v ^= v >> 40
        fl = v & 0xFFFFF
    return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000


def icrc_ok(fr):
    off = 14
    if fr[12:14] == b"\x81\x00":
        off = 18
    ver = fr[off] >> 4
    iplen = 20 if ver == 4 else 40
    ip = bytearray(fr[off:off + iplen])
    if ver == 4:
        ip[1] = 0xFF
        ip[8] = 0xFF
        ip[10:12] = b"\xff\xff"
    else:
        ip[0] |= 0x0F
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF
    udp = bytearray(fr[off + iplen:off + iplen + 8])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(fr[off + iplen + 8:off + iplen + 20])
    bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + fr[off + iplen + 20:-4])
    return struct.pack("<I", crc) == fr[-4:]


def frames(path):
    data = open(path, "rb").read()
    off = 24
    while off + 16 <= len(data):
        n = struct.unpack("<I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + n]
        off += 16 + n


def main():
    if not shutil.which("tshark"):
        print("SKIP: tshark not installed")
        return 77
    gen, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, "droce_tx.pcap")
    want = subprocess.run([gen, pcap], capture_output=True, text=True, check=True).stdout.splitlines()
    extra = ["udp.srcport", "udp.dstport", "ip.dsfield.dscp", "ip.dsfield.ecn", "ipv6.tclass.dscp",
             "ipv6.tclass.ecn", "vlan.priority", "_ws.malformed", "ip.flags.df"]
    # the payloads are arbitrary bytes, which tshark's RPC-over-RDMA heuristic may try to
    # parse; turn it off so "malformed" speaks of our headers only. (tshark also notes the
    # zero UDP checksum over IPv6 as an expert error; RoCEv2 sends zero by design, RFC 6935.)
    cmd = ["tshark", "-r", pcap, "--disable-protocol", "rpcordma", "-T", "fields",
           "-E", "separator=/t"]
    for x in FIELDS + extra:
        cmd += ["-e", x]
    got = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    bad = 0
    frs = list(frames(pcap))
    if not (len(want) == len(got) == len(frs)) or not want:
        print(f"frame counts differ: asked {len(want)}, tshark {len(got)}, pcap {len(frs)}")
        return 1
    for i, (w, g, fr) in enumerate(zip(want, got, frs), 1):
        w = w.split("\t")
        g = g.split("\t")
        tv = [norm(FIELDS[k], x) for k, x in enumerate(g[:len(FIELDS)])]
        wv = [x.lower() for x in w[:len(FIELDS)]]
        errs = [f"{FIELDS[k]}: tshark {tv[k]!r} asked {wv[k]!r}" for k in range(len(FIELDS)) if tv[k] != wv[k]]
        sp, dscp, ecn, pcp, plen = (int(x) for x in w[len(FIELDS) + 1:])
        ex = dict(zip(extra, g[len(FIELDS):] + [""] * len(extra)))
        if int(ex["udp.srcport"] or -1) != sp:
            errs.append(f"udp sport {ex['udp.srcport']} asked {sp}")
        if int(ex["udp.dstport"] or -1) != 4791:
            errs.append("udp dport")
        d = ex["ip.dsfield.dscp"] or ex["ipv6.tclass.dscp"]
        e = ex["ip.dsfield.ecn"] or ex["ipv6.tclass.ecn"]
        if int(d or -1, 0) != dscp or int(e or -1, 0) != ecn:
            errs.append(f"dscp/ecn {d}/{e} asked {dscp}/{ecn}")
        if pcp >= 0 and int(ex["vlan.priority"] or -1, 0) != pcp:
            errs.append(f"vlan priority {ex['vlan.priority']} asked {pcp}")
        if ex["_ws.malformed"]:
            errs.append("tshark: malformed")
        if not icrc_ok(fr):
            errs.append("ICRC does not match zlib's")
        if errs:
            bad += 1
            print(f"frame {i}: " + "; ".join(errs))
    # the Linux formula, on a vector computed by hand: lqpn 0x11, rqpn 0x12 -> label 0x132
    if sport(0, 0x11, 0x12) != (0x132 | 0xC000):
        print("self-check of the sport formula failed")
        bad += 1
    print(f"{len(want) - bad}/{len(want)} built frames: tshark reads what was asked, ICRC matches zlib")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
