#!/usr/bin/env python3
"""tshark agrees: for every RPC-over-RDMA message in each capture, droce's decoding
(tests/rpc/rpcrdma_decode) must equal tshark's rpcordma dissector field by field, the header
must re-encode byte for byte, and for inline RPC messages (RDMA_MSG) droce's RPC header must
equal tshark's rpc fields. NOMSG messages carry their RPC message by chunk; tshark reassembles
those from the RDMA traffic and droce's decoder does not, so their rpc fields are not compared.
Usage: rpcrdma_tshark_agree.py RPCRDMA_DECODE FILE...   Exit 77 (skip) when tshark is missing."""
import shutil
import subprocess
import sys

HDR = ["rpcordma.xid", "rpcordma.version", "rpcordma.flow_control", "rpcordma.msg_type",
       "rpcordma.reads_count", "rpcordma.writes_count", "rpcordma.reply_count",
       "rpcordma.rdma_handle", "rpcordma.rdma_length", "rpcordma.rdma_offset",
       "rpcordma.position", "rpcordma.segment_count", "rpcordma.errcode"]
RPC = ["rpc.xid", "rpc.msgtyp", "rpc.program", "rpc.programversion", "rpc.procedure",
       "rpc.auth.flavor", "rpc.auth.stamp", "rpc.auth.uid", "rpc.auth.gid", "rpc.replystat",
       "rpc.state_accept"]


def num(v):
    """a number; of a repeated field (tshark shows a reassembled message twice), the first"""
    v = v.split(",")[0]
    return str(int(v, 0)) if v else ""


def norm_list(v):
    return ",".join(num(x) for x in v.split(",")) if v else ""


def tshark_rows(f):
    cmd = ["tshark", "-r", f, "-Y", "rpcordma", "-T", "fields", "-E", "separator=/t",
           "-e", "frame.number"]
    for x in HDR + RPC:
        cmd += ["-e", x]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        v = line.split("\t")
        rows[int(v[0])] = v[1:]
    return rows


def main():
    if not shutil.which("tshark"):
        print("SKIP: tshark not installed")
        return 77
    decoder, files = sys.argv[1], sys.argv[2:]
    bad = total = rpc_checked = rpc_deferred = 0
    for f in files:
        ts = tshark_rows(f)
        ours = {}
        for line in subprocess.run([decoder, f], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            v = line.split("\t")
            ours[int(v[0])] = v[1:]
        if sorted(ts) != sorted(ours):
            print(f"{f}: tshark has RPC-over-RDMA in {len(ts)} frames, droce in {len(ours)}:"
                  f" only tshark {sorted(set(ts) - set(ours))[:10]},"
                  f" only droce {sorted(set(ours) - set(ts))[:10]}")
            bad += 1
        for no in sorted(set(ts) & set(ours)):
            total += 1
            t, o = ts[no], ours[no]
            if o[0] == "ERROR":
                print(f"{f} frame {no}: droce refused it: {o[1]}")
                bad += 1
                continue
            diffs = []
            for k, name in enumerate(HDR):
                tv = norm_list(t[k]) if k in (7, 8, 9, 10, 11) else num(t[k])
                ov = norm_list(o[k]) if k in (7, 8, 9, 10, 11) else num(o[k])
                if tv != ov:
                    diffs.append(f"{name}: tshark {tv!r} droce {ov!r}")
            if o[len(HDR)] != "reenc-ok":
                diffs.append("header does not re-encode byte for byte")
            rpc_o = o[len(HDR) + 1:]
            if rpc_o and rpc_o[0].startswith(("call-", "reply-")):
                diffs.append(f"droce: RPC message {rpc_o[0]}")
            elif rpc_o and not t[len(HDR)]:
                # a call with a read chunk: tshark shows its RPC once the chunk's data has
                # been read, in a later frame
                rpc_deferred += 1
            elif rpc_o:
                rpc_checked += 1
                rt = t[len(HDR):]
                flav = rt[5].split(",") if rt[5] else []
                if len(rt[0].split(",")) > 1:  # shown twice: one message's fields, twice
                    flav = flav[:len(flav) // 2]
                call = rpc_o[1] == "0"
                want = [num(rt[0]), num(rt[1])]
                have = [num(rpc_o[0]), rpc_o[1]]
                if call:
                    want += [num(rt[2]), num(rt[3].split(",")[0]), num(rt[4]),
                             num(flav[0]) if flav else "", num(flav[1]) if len(flav) > 1 else "",
                             num(rt[6]), num(rt[7]), num(rt[8])]
                    have += rpc_o[2:10]
                else:
                    want += [num(rt[9]), num(rt[10])]
                    have += [rpc_o[10], rpc_o[11]]
                if want != have:
                    diffs.append(f"rpc: tshark {want} droce {have}")
            if diffs:
                print(f"{f} frame {no}: " + "; ".join(diffs))
                bad += 1
        print(f"{f}: {len(ts)} RPC-over-RDMA messages compared")
    print(f"{total - bad}/{total} messages: droce's RPC-over-RDMA header equals tshark's and "
          f"re-encodes byte for byte; {rpc_checked} inline RPC headers compared, "
          f"{rpc_deferred} that tshark shows in a later frame not compared")
    return 1 if bad or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
