#!/usr/bin/env bash
# Interop test: droce's RPC clients against Linux knfsd (Debian's kernel, nfs-kernel-server 2.6)
# over Linux soft-RoCE in the lab VM (tests/interop/lab.sh). The VM exports a tmpfs with an
# empty file and a directory of $KN_ENTRIES entries, knfsd listens on TCP and on rdma 20049,
# and /proc/fs/nfsd/max_block_size is set to 1 MiB before nfsd starts (the 1 GiB VM caps
# transfers at 128 KiB otherwise). Then tests/rpc/nfs3_rdma_probe, in droce's namespace:
#   - MOUNT v3 MNT over TCP: the kernel's socket behind droce's exception TAP, droce's address;
#   - RDMA CM to port 20049 with RFC 8797 private data, then NFSv3 over RPC-over-RDMA:
#     NULL, FSINFO (rtmax/wtmax 1 MiB), GETATTR, LOOKUP, a 1 MiB WRITE FILE_SYNC with the data
#     by read chunk, a 1 MiB READ with the data by write chunk compared byte for byte, and a
#     READDIR whose reply needs the reply chunk.
# Checks: every probe step passes; in the VM the file is 1 MiB with the probe's pattern (md5);
# knfsd's own counters (/proc/net/rpc/nfsd) saw one READ and one WRITE; on the wire the 1 MiB
# READ and WRITE each went as one NFS call, and tshark decodes every RPC-over-RDMA frame as
# RPC and NFS with nothing malformed (READ replies whose data came by write chunk excepted:
# tshark 4.0 cannot see data placed by RDMA WRITE and calls the reply short).
# Usage: knfsd.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]      Exit 77 = skipped (the reason).
set -u
PROBE=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-}
KN_ENTRIES=${KN_ENTRIES:-300}
T0=$SECONDS
. "$HERE/lab.sh"
trap 'lab_down' EXIT
trap 'exit 143' TERM INT
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
command -v tshark >/dev/null || { echo "SKIP: needs tshark for the wire check"; exit 77; }
[ -x "$PROBE" ] || { echo "FAIL - $1 is not an executable nfs3_rdma_probe"; exit 1; }

fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

lab_up_or_exit 1
vm_run vm1 "
mkdir -p /proc/fs/nfsd /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /export /etc
mount -t nfsd nfsd /proc/fs/nfsd 2>/dev/null
mountpoint -q /export || mount -t tmpfs -o size=96m tmpfs /export
: > /export/data
mkdir -p /export/many
i=0; while [ \$i -lt $KN_ENTRIES ]; do : > /export/many/entry-with-a-longer-name-\$i; i=\$((i + 1)); done
: > /etc/exports
pidof rpcbind > /dev/null || rpcbind -w 2>&1 || rpcbind 2>&1
exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=0 '*:/export' 2>&1
pidof nfsd > /dev/null || echo 1048576 > /proc/fs/nfsd/max_block_size
pidof rpc.mountd > /dev/null || rpc.mountd -p 20048 2>&1
pidof nfsd > /dev/null || rpc.nfsd -N 4 4 2>&1
grep -q rdma /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist
echo max_block_size \$(cat /proc/fs/nfsd/max_block_size); echo portlist \$(cat /proc/fs/nfsd/portlist); echo versions \$(cat /proc/fs/nfsd/versions)
" 90 | sed 's/^/# vm1: /'
lab_capture_start knfsd || exit 1
ip netns exec "$LABI_DNS" timeout 120 "$PROBE" --config "$LABI_DIR/droce.ini" --server "$VMIP" \
	--export /export --file data --dir many --entries "$KN_ENTRIES" --size 1048576 \
	> "$LABI_DIR/probe.out" 2> "$LABI_DIR/probe.err"
rc=$?
lab_capture_stop
sed 's/^/# probe: /' "$LABI_DIR/probe.out"
grep -v "^EAL\|^$" "$LABI_DIR/probe.err" | head -20 | sed 's/^/# probe stderr: /'
check "nfs3_rdma_probe: every step passed (exit $rc)" [ "$rc" = 0 ]

want=$(python3 -c 'import hashlib; print(hashlib.md5(bytes((i * 7 + 3) % 251 for i in range(1 << 20))).hexdigest())')
got=$(vm_run vm1 "md5sum < /export/data | cut -d' ' -f1; stat -c %s /export/data" 30)
echo "# in the VM: $(echo $got)"
check "the VM's file holds the probe's 1 MiB, byte for byte (md5 $want)" \
	[ "$(echo "$got" | head -1)" = "$want" ]
vm_run vm1 "grep -E '^(proc3|rdma)' /proc/net/rpc/nfsd" 30 | sed 's/^/# vm1 nfsd: /'

cap=$LABI_DIR/knfsd.pcap
# the 1 MiB WRITE and READ as one NFS call each: the calls' frames, one per xid (an RC
# retransmission of a SEND repeats the frame with its PSN and xid: one call still), and their
# count fields (tshark repeats a field of a reassembled message: only the first value counts)
calls_of() {
	tshark -r "$cap" -Y "nfs.procedure_v3 == $1 && rpc.msgtyp == 0" -T fields -e rpc.xid \
		-e nfs.count3 2>/dev/null | awk -F'\t' '{ split($1, x, ","); split($2, c, ",");
		if (!(x[1] in seen)) { seen[x[1]] = 1; print c[1] } }'
}
calls_of 7 > "$LABI_DIR/writes"
calls_of 6 > "$LABI_DIR/reads"
echo "# WRITE calls on the wire (count): $(tr '\n' ' ' < "$LABI_DIR/writes")"
echo "# READ calls on the wire (count): $(tr '\n' ' ' < "$LABI_DIR/reads")"
check "one WRITE call, of 1048576 bytes, on the wire" [ "$(cat "$LABI_DIR/writes")" = 1048576 ]
check "one READ call, of 1048576 bytes, on the wire" [ "$(cat "$LABI_DIR/reads")" = 1048576 ]
nrdma=$(tshark -r "$cap" -Y rpcordma 2>/dev/null | wc -l)
nnfs=$(tshark -r "$cap" -Y 'rpcordma && (nfs || mount)' 2>/dev/null | wc -l)
# a call with a read chunk is decoded where its chunk's data has been read (a later frame)
nlater=$(tshark -r "$cap" -Y 'rpcordma && !(nfs || mount) && rpcordma.reads_count > 0' 2>/dev/null | wc -l)
echo "# RPC-over-RDMA messages: $nrdma; tshark decodes $nnfs as NFS in their frame and $nlater (calls with a read chunk) once the chunk is read"
check "tshark decodes every RPC-over-RDMA message as NFS (at least 16 messages)" \
	[ $((nnfs + nlater)) = "$nrdma" -a "$nrdma" -ge 16 ]
# tshark 4.0 rebuilds data placed by RDMA WRITE (a READ reply's write chunk, a reply chunk) and
# gets it short: the server's replies of that kind are flagged malformed though droce's client
# decoded them whole (READ compared byte for byte, READDIR to its eof). So: nothing droce sent
# may be flagged, and what the server sent may be flagged only for such replies.
tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity == error' -T fields -e frame.number \
	-e ip.src -e rpc.msgtyp -e rpcordma.msg_type -e rpcordma.writes_count -e nfs.procedure_v3 \
	2>/dev/null > "$LABI_DIR/malformed"
ours=$(awk -F'\t' -v d="$LABI_DROCE_IP" '$2 == d' "$LABI_DIR/malformed" | wc -l)
odd=$(awk -F'\t' -v d="$LABI_DROCE_IP" '$2 != d { split($3, t, ","); split($4, m, ",");
	split($5, w, ","); if (!(t[1] == 1 && (m[1] == 1 || w[1] > 0))) print }' "$LABI_DIR/malformed" | wc -l)
echo "# frames tshark flags: $(wc -l < "$LABI_DIR/malformed"); sent by droce: $ours; by knfsd and not a reply placed by RDMA WRITE: $odd"
cut -f1,2,6 "$LABI_DIR/malformed" | head -5 | sed 's/^/#   frame, source, NFS procedure: /'
check "tshark flags nothing droce sent" [ "$ours" = 0 ]
check "tshark flags only knfsd's replies placed by RDMA WRITE (tshark 4.0's reassembly)" [ "$odd" = 0 ]
check "the RoCE frames are well formed and their ICRCs verify" \
	python3 "$HERE/wire_check.py" "$cap" "$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$LABI_DIR/probe.err" | head -1)"
[ -n "$LABI_ARTIFACTS" ] && cp "$LABI_DIR"/probe.* "$cap" "$LABI_ARTIFACTS"/ 2>/dev/null
echo "# knfsd: $fails failed, $((SECONDS - T0)) s"
[ "$fails" = 0 ]
