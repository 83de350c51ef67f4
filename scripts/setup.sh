#!/usr/bin/env bash
# scripts/setup.sh - everything droce needs on a fresh Debian 12 machine, idempotently:
#   1. build and test dependencies from Debian's packages (apt-get only if one is missing);
#   2. 2 MiB hugepages (DROCE_HUGEPAGES, default 1024 = 2 GiB) on a mounted hugetlbfs, or a
#      clear note that droce will run with --no-huge.
# Run as root. A second run with everything in place takes well under a second.
set -u

PKGS=(
	build-essential meson ninja-build pkg-config python3
	dpdk dpdk-dev libdpdk-dev          # DPDK 22.11: PMDs, headers, testpmd, dumpcap, telemetry
	libtirpc-dev liburing-dev          # XDR (rpc/), io_uring (nfs/)
	rpcbind                            # rpcinfo: a real RPC client for the portmapper test
	libnfs-utils                       # nfs-ls/nfs-cp: a user-space NFSv3 client over TCP (tests/nfs)
	python3-ply python3-gssapi python3-setuptools # pynfs, NFSv4.1 conformance (tests/nfs/pynfs.sh)
	prometheus                         # scrapes droce-nfsd --metrics (tests/nfs/nfs_metrics.sh)
	libcmocka-dev                      # unit tests
	libisal-dev                        # ISA-L CRC-32 for the RoCE ICRC
	libssl-dev                         # droce-nfsperf's verify=md5 (OpenSSL's EVP MD5)
	clang libclang-rt-14-dev llvm      # libFuzzer targets and the ASan/UBSan runtime
	clang-format                       # the house style check
	tshark                             # wire-format checks
	iproute2 iputils-ping procps kmod  # namespaces, veth, ping, sysctl
	strace                             # nfsd_durable: the order of syncs and replies
	qemu-system-x86 busybox-static     # the interop lab's VMs (tests/interop, docs/interop.md)
	libibverbs-dev librdmacm-dev       # the interop lab's own verbs programs (tests/interop/*.c)
	gnuplot-nox                        # cc-bench's DCQCN plot (bench/README.md, cc)
)

want=()
for p in "${PKGS[@]}"; do
	[[ $p == \#* ]] && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || want+=("$p")
done

if [ ${#want[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing packages: ${want[*]}; run this script as root to install them" >&2
		exit 1
	fi
	echo "setup: installing ${want[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; the answer does not matter here
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	apt-get update -q >/dev/null || { echo "setup: apt-get update failed" >&2; exit 1; }
	apt-get install -y -q --no-install-recommends "${want[@]}" >/dev/null ||
		{ echo "setup: apt-get install ${want[*]} failed" >&2; exit 1; }
fi

# Hugepages. droce's "hugepages = auto" falls back to --no-huge by itself; this only tries.
pages=${DROCE_HUGEPAGES:-1024}
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ "$(id -u)" = 0 ] && [ -w "$nr" ]; then
	[ "$(cat "$nr")" -ge "$pages" ] || echo "$pages" > "$nr" 2>/dev/null
	if ! grep -q "^nodev /dev/hugepages hugetlbfs\|hugetlbfs /dev/hugepages" /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null
	fi
fi
have=$(cat "$nr" 2>/dev/null || echo 0)
if [ "$have" -ge 128 ] && grep -q hugetlbfs /proc/mounts; then
	echo "setup: $have hugepages of 2 MiB reserved, hugetlbfs mounted"
else
	echo "setup: note: no usable hugepages ($have reserved); droce will run with --no-huge" \
		"(slower, and dpdk-dumpcap cannot attach)"
fi
exit 0
