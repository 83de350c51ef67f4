#!/usr/bin/env bash
# Integration test: droce-nfsd's metrics in stack mode, from [nfs] metrics in the INI (the
# RoCE stack on net_af_packet over a veth end, in a namespace; docs/observability.md). The
# metrics listener is bound to droce's own address, which the kernel holds on droce's
# exception TAP, and is polled from the lcore's serve_poll (not from an epoll wait as with
# --listen). The clients run in droce's namespace, so their traffic stays in the kernel (a
# peer host's would cross droce's stack and the TAP; that path is the exception TAP's own
# tests'):
#   1. droce-nfsd serves, and says where its metrics are (from [nfs] metrics);
#   2. libnfs's nfs-cat reads a file over TCP from droce's address (MOUNT, then NFSv3);
#   3. a scrape at droce's address: 200, READ counted once, its histogram's count 1, 3 bytes
#      read, the RDMA series there (rdma_connections 0, svc="rdma" outcomes);
#   4. droce-nfsstat against droce's address: READ's row is 1, RDMA shown as served;
#   5. droce-nfsd stops on SIGINT with exit 0, and its own exit counters agree (READ tcp 1).
# Usage: nfs_metrics_stack.sh PATH/TO/droce-nfsd PATH/TO/droce-nfsstat    Exit 77 = skipped.
set -u
NFSD=$(readlink -f "$1")
NFSSTAT=$(readlink -f "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../scripts/lab.sh"
if ! why=$(lab_can_run); then echo "SKIP: $why"; exit 77; fi
for t in nfs-cat python3; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (Debian packages libnfs-utils, python3)"; exit 77; }
done
# no hugepages unless asked: this test should not take those other runs may be counting on
LAB_HUGEPAGES=${LAB_HUGEPAGES:-no}
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
trap lab_down EXIT
lab_up
lab_config b "$LAB_VETH_B" "$LAB_TAP_B" "$LAB_IP4_B" "$LAB_IP6_B" 0
sed -i 's/^memory = .*/memory = 512/' "$LAB_DIR/b.ini"
M="$LAB_IP4_B:9464"
# the endpoint from the INI this time ([nfs] metrics; nfs_metrics uses --metrics)
# and a duplicate request cache of 1024 entries ([nfs] drc; the scrape shows its size)
printf '\n[nfs]\nmetrics = %s\ndrc = 1024\n' "$M" >> "$LAB_DIR/b.ini"
mkdir -p "$LAB_DIR/exp" "$LAB_DIR/state"
printf 'hi\n' > "$LAB_DIR/exp/f"
echo "$LAB_DIR/exp 10.77.0.0/24(rw,no_root_squash,insecure)" > "$LAB_DIR/exports"

ip netns exec "$LAB_NS_B" timeout 120 "$NFSD" --config "$LAB_DIR/b.ini" \
	--exports "$LAB_DIR/exports" --state "$LAB_DIR/state" --seconds 100 \
	> "$LAB_DIR/nfsd.log" 2>&1 &
LAB_PID_nfsd=$!
LAB_PIDS+=($LAB_PID_nfsd)
lab_wait_log nfsd '^serving at' 30 || exit 1
check "droce-nfsd says where its metrics are" grep -q "^metrics at $M port 9464" "$LAB_DIR/nfsd.log"

got=$(ip netns exec "$LAB_NS_B" timeout 30 nfs-cat "nfs://$LAB_IP4_B$LAB_DIR/exp/f" 2>&1)
check "nfs-cat reads the file from droce's address (got '$got')" [ "$got" = hi ]

ip netns exec "$LAB_NS_B" timeout 30 python3 - "$LAB_IP4_B" 9464 > "$LAB_DIR/scrape.log" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: droce\r\n\r\n")
raw = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    raw += c
head, _, body = raw.partition(b"\r\n\r\n")
m = {}
for line in body.decode().splitlines():
    if line and not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
fails = 0
def check(what, cond):
    global fails
    print(("ok   - " if cond else "FAIL - ") + what)
    fails += 0 if cond else 1
check("a scrape at droce's address (the kernel's, on the exception TAP): 200", head.startswith(b"HTTP/1.1 200 "))
check("READ counted once (%s)" % m.get('droce_nfsd_nfs3_calls_total{proc="READ"}'),
      m.get('droce_nfsd_nfs3_calls_total{proc="READ"}') == 1)
check("READ's histogram count is 1",
      m.get('droce_nfsd_nfs3_call_duration_seconds_count{proc="READ"}') == 1)
check("3 bytes read", m.get("droce_nfsd_nfs3_read_bytes_total") == 3)
check("the duplicate request cache has the 1024 entries [nfs] drc asked (%s)" % m.get("droce_nfsd_drc_entries"),
      m.get("droce_nfsd_drc_entries") == 1024)
check("the RDMA series are there: rdma_connections 0, svc=\"rdma\" outcomes",
      m.get("droce_nfsd_rdma_connections") == 0 and
      'droce_nfsd_rpc_outcomes_total{svc="rdma",outcome="SUCCESS"}' in m)
sys.exit(1 if fails else 0)
PY
rc=$?
sed 's/^/  /' "$LAB_DIR/scrape.log"
check "the scrape's checks passed (exit $rc)" [ "$rc" = 0 ]

ip netns exec "$LAB_NS_B" timeout 30 "$NFSSTAT" -s "$M" > "$LAB_DIR/nfsstat.log" 2>&1
rc=$?
sed -n '1,12p' "$LAB_DIR/nfsstat.log" | sed 's/^/# droce-nfsstat: /'
check "droce-nfsstat: exit 0, READ's row is 1" \
	bash -c "[ $rc = 0 ] && grep -Eq '^READ +1 ' '$LAB_DIR/nfsstat.log'"
check "droce-nfsstat shows RDMA as served" grep -q "connections: rdma 0 open" "$LAB_DIR/nfsstat.log"

lab_stop nfsd
st=$?
grep -E "^(tcp|rdma|nfs3|drc|fs):" "$LAB_DIR/nfsd.log" | sed 's/^/# droce-nfsd: /'
check "droce-nfsd stopped on SIGINT with exit 0 (exit $st)" [ "$st" = 0 ]
check "droce-nfsd's own count agrees: nfs3 READ tcp 1" grep -q "^nfs3: READ tcp 1 rdma 0" "$LAB_DIR/nfsd.log"
echo "# nfs_metrics_stack: $fails failed"
[ "$fails" = 0 ]
