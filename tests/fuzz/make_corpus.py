#!/usr/bin/env python3
"""Seed corpus for fuzz_stk_input: a few real frames from tests/data/*.pcap (Linux rxe,
addressed to VM A = 10.99.0.2, which the fuzz interface impersonates) and hand-built ARP,
ND, UDP, ICMP and VLAN frames. Each file is one selector byte (bit 0: interface 0 or the
VLAN interface 1) followed by the frame. Run from the repository root; writes
tests/fuzz/corpus/stk_input/."""
import os
import struct
import zlib  # noqa: F401  (kept for parity with other generators)

OUT = "tests/fuzz/corpus/stk_input"
MAC_A = bytes.fromhex("525400990002")
MAC_B = bytes.fromhex("525400990003")
IP_A = bytes([10, 99, 0, 2])
IP_B = bytes([10, 99, 0, 3])


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def eth(dst, src, et, vlan=None):
    if vlan is None:
        return dst + src + struct.pack("!H", et)
    return dst + src + struct.pack("!HHH", 0x8100, vlan, et)


def ipv4(src, dst, proto, payload, tos=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 0, 0x4000, 64, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def udp4(src, dst, sport, dport, data):
    u = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    ph = src + dst + struct.pack("!BBH", 0, 17, len(u))
    c = csum(ph + u) or 0xFFFF
    return u[:6] + struct.pack("!H", c) + u[8:]


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa


def ipv6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload


def icmp6(src, dst, body):
    ph = src + dst + struct.pack("!I3xB", len(body), 58)
    c = csum(ph + body)
    return body[:2] + struct.pack("!H", c) + body[4:]


def pcap_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    en = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(en + "IIII", data[off:off + 16])
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    # real RoCEv2 frames: a few of each kind that reach VM A
    for name in ("rc_write_read_atomic", "cm_reject_and_ud", "nfs_rdma_full"):
        kept = 0
        for i, fr in enumerate(pcap_frames(f"tests/data/{name}.pcap")):
            if fr[:6] == MAC_A and kept < 4:
                seeds[f"rxe_{name}_{i + 1}"] = b"\0" + fr
                kept += 1
    ll_b = bytes.fromhex("fe80000000000000") + bytes([0x50, 0x54, 0x00, 0xFF, 0xFE, 0x99, 0x00, 0x03])
    g_a = bytes.fromhex("fd990000000000000000000000000002")
    sn_a = bytes.fromhex("ff0200000000000000000001ff000002")
    seeds["arp_request_for_us"] = b"\0" + eth(b"\xff" * 6, MAC_B, 0x0806) + arp(1, MAC_B, IP_B, b"\0" * 6, IP_A)
    seeds["arp_reply_to_us"] = b"\0" + eth(MAC_A, MAC_B, 0x0806) + arp(2, MAC_B, IP_B, MAC_A, IP_A)
    seeds["udp4_bound_port"] = b"\0" + eth(MAC_A, MAC_B, 0x0800) + ipv4(IP_B, IP_A, 17, udp4(IP_B, IP_A, 40000, 7000, b"hello droce"))
    seeds["udp4_unbound_port"] = b"\0" + eth(MAC_A, MAC_B, 0x0800) + ipv4(IP_B, IP_A, 17, udp4(IP_B, IP_A, 40000, 111, b"rpcbind?"))
    echo = struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"ping"
    echo = echo[:2] + struct.pack("!H", csum(echo)) + echo[4:]
    seeds["icmp_echo"] = b"\0" + eth(MAC_A, MAC_B, 0x0800) + ipv4(IP_B, IP_A, 1, echo)
    seeds["vlan_udp4"] = b"\1" + eth(MAC_A, MAC_B, 0x0800, vlan=(3 << 13) | 100) + ipv4(IP_B, IP_A, 17, udp4(IP_B, IP_A, 1, 7000, b"x" * 32))
    ns = struct.pack("!BBHI", 135, 0, 0, 0) + g_a + struct.pack("!BB", 1, 1) + MAC_B
    seeds["nd_ns_for_us"] = b"\0" + eth(b"\x33\x33\xff\x00\x00\x02", MAC_B, 0x86DD) + ipv6(ll_b, sn_a, 58, icmp6(ll_b, sn_a, ns), 255)
    na = struct.pack("!BBHB3x", 136, 0, 0, 0x60) + ll_b + struct.pack("!BB", 2, 1) + MAC_B
    seeds["nd_na_to_us"] = b"\0" + eth(MAC_A, MAC_B, 0x86DD) + ipv6(ll_b, g_a, 58, icmp6(ll_b, g_a, na), 255)
    seeds["truncated_ipv4"] = b"\0" + eth(MAC_A, MAC_B, 0x0800) + b"\x45\x00\x00"
    seeds["runt"] = b"\0" + MAC_A
    for k, v in seeds.items():
        with open(os.path.join(OUT, k), "wb") as f:
            f.write(v)
    print(f"wrote {len(seeds)} seeds to {OUT}")


if __name__ == "__main__":
    main()
