#!/usr/bin/env python3
"""droce's CM codec against tshark, frame by frame.

Usage: cm_tshark_agree.py CM_DECODE WORKDIR CAPTURE...

1. Captures (Linux rdma_cm traffic): tests/roce/cm_decode prints what roce_cm_decode() read
   from every CM MAD, and whether roce_cm_encode() gave back the captured bytes exactly.
   Each value must equal tshark's.
2. Built frames: `cm_decode -w` encodes messages from chosen values (every message type, IPv4
   and IPv6, every port space) and frames them with roce_tx_build(). tshark must read the
   chosen values back, flag nothing as malformed, and each ICRC must match zlib's.

Keys named infiniband.* are compared with the tshark field of that name. Keys named iba.*
are fields that tshark 4.0 does not dissect: MRA, SIDR_REQ, SIDR_REP, and the ECE vendor ID
and SAP bit. They also cover two it dissects wrongly, the REQ flow label and packet rate.
For these, this script reads tshark's raw MAD bytes (infiniband.mad.data) at the IBA byte
offsets itself (IBA Vol 1 Tables 106-120, Annex A11), independently of droce's code.
For the flow label and packet rate, it also checks that tshark's wrong values follow one
model: 4.0.17 shows the 32-bit word at REQ byte 88 shifted right by 20 as the flow label,
and the low 6 bits of byte 88 as the packet rate.
Every CM field tshark shows must have been printed by droce: nothing is skipped silently.
Exit 77 (skip) when tshark is missing.
"""
import ipaddress
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tx_check import icrc_ok, frames  # noqa: E402

MAD_FIELDS = ["infiniband.mad.baseversion", "infiniband.mad.mgmtclass",
              "infiniband.mad.classversion", "infiniband.mad.method", "infiniband.mad.status",
              "infiniband.mad.transactionid", "infiniband.mad.attributeid",
              "infiniband.mad.attributemodifier"]
# fields tshark shows that carry nothing to compare: reserved bits, the raw payload, the IP
# CM header as one blob (its fields are compared), and the service ID prefix (the port
# space's top bytes, implied by protocol and port)
IGNORED = {"infiniband.mad.data", "infiniband.cm.req.serviceid.prefix", "infiniband.cm.req.ip_cm"}
# tshark 4.0.17 misreads these (see the module doc); iba.req.* carries the true values
MISREAD = {"infiniband.cm.req.prim_flowlabel", "infiniband.cm.req.prim_pktrate",
           "infiniband.cm.req.alt_flowlabel", "infiniband.cm.req.alt_pktrate"}


def field_types():
    """infiniband CM/MAD field name -> FT_ type, from tshark's own field list."""
    out = subprocess.run(["tshark", "-G", "fields"], capture_output=True, text=True,
                         check=True).stdout
    types = {}
    for line in out.splitlines():
        col = line.split("\t")
        if len(col) > 3 and col[0] == "F" and (col[2].startswith("infiniband.cm.") or
                                               col[2] in MAD_FIELDS + ["infiniband.mad.data"]):
            types[col[2]] = col[3]
    return types


def norm(ftype, v):
    v = v.strip()
    if v == "":
        return ""
    if ftype == "FT_BYTES":
        return v.replace(":", "").lower()
    if ftype in ("FT_IPv4", "FT_IPv6"):
        return str(ipaddress.ip_address(v))
    return str(int(v, 0))


def ip_text(b):
    return str(ipaddress.ip_address(bytes(b)))


def cma(d, pfx, out):
    """the rdma_cm IP header (Annex A11; Linux struct cma_hdr) at the start of private data"""
    ver, ipv = d[0], d[1] >> 4
    out[pfx + ".majv"] = str(ver >> 4)
    out[pfx + ".minv"] = str(ver & 15)
    out[pfx + ".ipv"] = str(ipv)
    out[pfx + ".sport"] = str(struct.unpack("!H", d[2:4])[0])
    if ipv == 4:
        out[pfx + ".sip4"] = ip_text(d[16:20])
        out[pfx + ".dip4"] = ip_text(d[32:36])
    else:
        out[pfx + ".sip6"] = ip_text(d[4:20])
        out[pfx + ".dip6"] = ip_text(d[20:36])


def iba_fields(attr, d):
    """Our own reading of the 232 message bytes for the iba.* keys (IBA Byte[Bit] offsets)."""
    be32 = lambda o: struct.unpack("!I", d[o:o + 4])[0]  # noqa: E731
    be64 = lambda o: struct.unpack("!Q", d[o:o + 8])[0]  # noqa: E731
    out = {}
    if attr == 0x10:  # REQ, Table 106
        out["iba.req.vendor_id"] = str(be32(4) & 0xFFFFFF)
        for name, off in (("prim", 88), ("alt", 132)):
            out[f"iba.req.{name}_flowlabel"] = str(be32(off) >> 12)
            out[f"iba.req.{name}_pktrate"] = str(d[off + 3] & 0x3F)
        out["iba.req.sap"] = str((d[139] >> 2) & 1)
    elif attr == 0x13:  # REP, Table 110: vendor ID in bytes 15, 19, 23
        out["iba.rep.vendor_id"] = str(d[15] << 16 | d[19] << 8 | d[23])
    elif attr == 0x11:  # MRA, Table 107
        out["iba.mra.local_comm_id"] = str(be32(0))
        out["iba.mra.remote_comm_id"] = str(be32(4))
        out["iba.mra.msg_mraed"] = str(d[8] >> 6)
        out["iba.mra.service_timeout"] = str(d[9] >> 3)
        out["iba.mra.private"] = d[10:232].hex()
    elif attr == 0x17:  # SIDR_REQ, Table 119
        out["iba.sidr_req.request_id"] = str(be32(0))
        out["iba.sidr_req.pkey"] = str(struct.unpack("!H", d[4:6])[0])
        out["iba.sidr_req.service_id"] = str(be64(8))
        if be64(8) >> 24 == 1:
            cma(d[16:], "iba.sidr_req.ip_cm", out)
        out["iba.sidr_req.private"] = d[16:232].hex()
    elif attr == 0x18:  # SIDR_REP, Table 120
        out["iba.sidr_rep.request_id"] = str(be32(0))
        out["iba.sidr_rep.status"] = str(d[4])
        out["iba.sidr_rep.info_len"] = str(d[5])
        out["iba.sidr_rep.qpn"] = str(be32(8) >> 8)
        out["iba.sidr_rep.service_id"] = str(be64(12))
        out["iba.sidr_rep.qkey"] = str(be32(20))
        out["iba.sidr_rep.info"] = d[24:96].hex()
        out["iba.sidr_rep.private"] = d[96:232].hex()
    return out


def misread_model(d):
    """what tshark 4.0.17 shows as REQ flow label and packet rate (see the module doc)"""
    w = struct.unpack("!I", d[88:92])[0]
    wa = struct.unpack("!I", d[132:136])[0]
    return {"infiniband.cm.req.prim_flowlabel": str(w >> 20),
            "infiniband.cm.req.prim_pktrate": str(d[88] & 0x3F),
            "infiniband.cm.req.alt_flowlabel": str(wa >> 20),
            "infiniband.cm.req.alt_pktrate": str(d[132] & 0x3F)}


def tshark_rows(pcap, names, types):
    cmd = ["tshark", "-r", pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f",
           "-e", "_ws.malformed"]
    for n in names:
        cmd += ["-e", n]
    rows = []
    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        col = line.split("\t")
        col += [""] * (len(names) + 1 - len(col))
        rows.append((col[0], {n: norm(types[n], v) for n, v in zip(names, col[1:]) if v != ""}))
    return rows


def compare(label, ours_lines, rows, types, stats, need_reencode):
    bad = 0
    if len(ours_lines) != len(rows):
        print(f"{label}: tshark shows {len(rows)} frames, cm_decode printed {len(ours_lines)}")
        return 1
    for i, (o, (malformed, ts)) in enumerate(zip(ours_lines, rows), 1):
        is_cm = ts.get("infiniband.mad.mgmtclass") == "7"
        if o == "-":
            if is_cm:
                print(f"{label} frame {i}: tshark sees a CM MAD, droce does not")
                bad += 1
            continue
        if not is_cm:
            print(f"{label} frame {i}: droce sees a CM MAD, tshark does not")
            bad += 1
            continue
        ours = dict(kv.split("=", 1) for kv in o.split("\t")[1:])
        errs = []
        if "ERROR" in ours:
            errs.append(f"roce_cm_decode: {ours['ERROR']}")
        if need_reencode and ours.get("x.reencode") != "ok":
            errs.append("re-encoded MAD differs from the capture")
        if malformed:
            errs.append("tshark: malformed")
        raw = bytes.fromhex(ts.get("infiniband.mad.data", ""))
        if len(raw) != 232:
            errs.append(f"tshark shows {len(raw)} MAD data bytes")
            raw = bytes(232)
        attr = int(ts.get("infiniband.mad.attributeid", "0"))
        iba = iba_fields(attr, raw)
        for k, v in ours.items():
            if k.startswith("x.") or k == "ERROR":
                continue
            if k.startswith("iba."):
                want, src = iba.get(k), "IBA layout"
            else:
                if k not in types:
                    errs.append(f"{k}: not a tshark field")
                    continue
                want, src = ts.get(k, ""), "tshark"
                v = norm(types[k], v)
            stats["compared"] += 1
            stats["fields"].add(k)
            if want != v:
                errs.append(f"{k}: {src} {want!r} droce {v!r}")
        for k in iba:
            if k not in ours:
                errs.append(f"{k}: droce printed nothing")
        for k, v in ts.items():
            if k in IGNORED or "reserved" in k.rsplit(".", 1)[-1] or k in ours:
                continue
            if k in MISREAD:
                stats["misread"] += 1
                if misread_model(raw)[k] != v:
                    errs.append(f"{k}: tshark shows {v}, not what its known misreading predicts")
                continue
            errs.append(f"{k}: tshark shows {v!r}, droce printed nothing")
        if errs:
            bad += 1
            print(f"{label} frame {i}: " + "; ".join(errs))
        else:
            stats["frames"] += 1
            stats["attrs"][attr] = stats["attrs"].get(attr, 0) + 1
    return bad


def main():
    if not shutil.which("tshark"):
        print("SKIP: tshark not installed")
        return 77
    decoder, work, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    types = field_types()
    names = [n for n in types if n not in MAD_FIELDS] + MAD_FIELDS + ["infiniband.mad.data"]
    stats = {"compared": 0, "frames": 0, "misread": 0, "fields": set(), "attrs": {}}
    bad = 0
    for f in captures:
        ours = subprocess.run([decoder, f], capture_output=True, text=True,
                              check=True).stdout.splitlines()
        bad += compare(os.path.basename(f), ours, tshark_rows(f, names, types), types, stats,
                       True)
    cap = dict(stats, fields=set(stats["fields"]), attrs=dict(stats["attrs"]))
    print(f"captures: {cap['frames']} CM MADs agree with tshark ({cap['compared']} values), "
          f"each re-encoded byte for byte; by attribute: "
          + ", ".join(f"0x{a:04x} x{n}" for a, n in sorted(cap["attrs"].items())))
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, "droce_cm.pcap")
    asked = subprocess.run([decoder, "-w", pcap], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    stats.update(compared=0, frames=0, attrs={})
    bad += compare("built", asked, tshark_rows(pcap, names, types), types, stats, False)
    for i, fr in enumerate(frames(pcap), 1):
        if not icrc_ok(fr):
            print(f"built frame {i}: ICRC does not match zlib's")
            bad += 1
    print(f"built: {stats['frames']}/{len(asked)} frames read back by tshark as asked "
          f"({stats['compared']} values); by attribute: "
          + ", ".join(f"0x{a:04x} x{n}" for a, n in sorted(stats["attrs"].items())))
    print(f"{len(stats['fields'])} distinct fields compared; tshark's misread flow label/"
          f"packet rate matched its known error {stats['misread']} times")
    return 1 if bad or not cap["frames"] or not stats["frames"] else 0


if __name__ == "__main__":
    sys.exit(main())
