#!/usr/bin/env python3
"""Seed corpus for fuzz_cm_mad: the 256-byte MADs (UD payload after the QP 1 DETH) of one of
each CM message Linux 6.1 rdma_rxe sent in tests/data (and the NFS client's REQ/REP, whose
private data carries an RPC-over-RDMA CM message), plus two hand-built per IBA Vol 1
(no capture has them): an MRA (Table 107) and a Get(ClassPortInfo) with class version 1,
which droce must answer with a GetResp; and regression inputs the fuzzer found.
Run from the repository root; writes tests/fuzz/corpus/cm_mad/."""
import os
import struct

OUT = "tests/fuzz/corpus/cm_mad"
NAMES = {0x10: "req", 0x11: "mra", 0x12: "rej", 0x13: "rep", 0x14: "rtu", 0x15: "dreq",
         0x16: "drep", 0x17: "sidr_req", 0x18: "sidr_rep"}


def pcap_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def cm_mads(path):
    """UD SEND ONLY (0x64) to QP 1 over IPv4: Ethernet 14 + IP 20 + UDP 8 + BTH 12 + DETH 8"""
    for fr in pcap_frames(path):
        if fr[12:14] != b"\x08\x00" or fr[23] != 17 or fr[36:38] != b"\x12\xb7":
            continue
        bth = fr[42:]
        if bth[0] == 0x64 and struct.unpack("!I", bth[4:8])[0] & 0xFFFFFF == 1:
            yield bth[20:20 + 256]


def mad_header(method, attr, tid, class_version=2):
    return struct.pack("!BBBBHHQHHI", 1, 7, class_version, method, 0, 0, tid, attr, 0, 0)


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    for cap in ("cm_reject_and_ud", "rc_write_read_atomic", "nfs_rdma_full"):
        for mad in cm_mads(f"tests/data/{cap}.pcap"):
            attr = struct.unpack("!H", mad[16:18])[0]
            name = f"{cap}_{NAMES.get(attr, hex(attr))}"
            if cap == "nfs_rdma_full" and attr not in (0x10, 0x13):
                continue
            if name not in seeds and len(mad) == 256:
                seeds[name] = mad
    mra = struct.pack("!IIBB", 0x01020304, 0xa0b0c0d0, 1 << 6, 20 << 3) + bytes(222)
    seeds["built_mra_of_rep"] = mad_header(3, 0x11, 0x2c0de0001) + mra
    seeds["built_get_classportinfo_v1"] = mad_header(1, 0x01, 0x2c0de0002, 1) + bytes(232)
    # regression: a SIDR_REQ whose service ID has bits 63:48 set over the UDP port space
    # (fuzz_cm_mad found roce_cma_service_id_split() accepting it)
    sidr = bytearray(seeds["cm_reject_and_ud_sidr_req"])
    sidr[24 + 8] = 0xBB
    seeds["regress_sidr_req_sid_high_bits"] = bytes(sidr)
    for k, v in seeds.items():
        assert len(v) == 256, k
        with open(os.path.join(OUT, k), "wb") as f:
            f.write(v)
    print(f"wrote {len(seeds)} seeds to {OUT}")


if __name__ == "__main__":
    main()
