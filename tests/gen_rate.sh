#!/usr/bin/env bash
# droce-gen --rate on a net_null sink (no root, no hugepages): UDP and RoCEv2 SEND ONLY frames,
# through the stack and from the template. Each run exits 0 with frames sent; every templated
# RoCE frame whose ICRC droce-gen checked in full (roce_icrc_check, every 4093rd) was right, for
# a 62-byte frame (only the PSN changes) and a 66-byte one (the PSN and the sequence number);
# and, when tshark is there, templated frames captured with net_pcap decode as RoCE SEND ONLY
# with consecutive PSNs, and their ICRC recomputed by droce's check matches (icrc_bad 0).
# Usage: gen_rate.sh PATH/TO/droce-gen
set -u
gen=$1
dir=$(mktemp -d)
# EAL makes /var/run/dpdk/<prefix> even with --no-shconf: ours go with the temporary directory
trap 'rm -rf "$dir" /var/run/dpdk/genrate-$$-*' EXIT
fails=0
check() { if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }
printf '[port0]\nvdev = net_null0,no-rx=1\nipv4 = 10.98.0.1/24\n' > "$dir/null.ini"
eal=(--no-huge -m 256 --no-pci --no-shconf -l 0 --log-level='*:error')
# rate NAME ARGS...: one second; its JSON line in $dir/NAME.json
rate() {
	local name=$1
	shift
	"$gen" "${eal[@]}" --file-prefix="genrate-$$-$name" -- -c "$dir/null.ini" \
		-p 10.98.0.1:4791 --rate 1 -j -q "$@" > "$dir/$name.out" 2>&1
	echo $? > "$dir/$name.rc"
	grep '^{"mode":"rate"' "$dir/$name.out" > "$dir/$name.json"
}
field() { sed -E "s/.*\"$2\":\"?([^,\"}]*).*/\1/" "$dir/$1.json"; }
ok_run() { [ "$(cat "$dir/$1.rc")" = 0 ] && [ "$(field "$1" tx_frames)" -gt 0 ]; }
for c in "udp64 --frame-size 64" "udp1024 --frame-size 1024" "roce62 --roce --frame-size 62" \
	"roce1022 --roce --frame-size 1022" "tudp64 --template --frame-size 64" \
	"troce62 --template --roce --frame-size 62" "troce66 --template --roce --frame-size 66" \
	"troce1022 --template --roce --frame-size 1022"; do
	set -- $c
	rate "$@"
	check "$1: exit 0, frames sent, $(field "$1" frame_size) B" ok_run "$1"
	case $1 in troce*)
		check "$1: $(field "$1" icrc_checked) ICRCs checked in full, none bad" \
			eval '[ "$(field '"$1"' icrc_checked)" -gt 0 ] && [ "$(field '"$1"' icrc_bad)" = 0 ]' ;;
	esac
done
if command -v tshark > /dev/null; then
	printf '[port0]\nvdev = net_pcap0,tx_pcap=%s\nipv4 = 10.98.0.1/24\n' "$dir/t.pcap" > "$dir/pcap.ini"
	"$gen" "${eal[@]}" --file-prefix="genrate-$$-pcap" -- -c "$dir/pcap.ini" -p 10.98.0.1:4791 \
		--rate 1 --roce --template --frame-size 66 -q > /dev/null 2>&1
	editcap -r "$dir/t.pcap" "$dir/t8.pcap" 1-8 > /dev/null 2>&1
	psns=$(tshark -r "$dir/t8.pcap" -T fields -e infiniband.bth.opcode -e infiniband.bth.psn 2>/dev/null |
		awk '$1 == 4 { printf "%s ", $2 }')
	check "tshark: templated frames are RC SEND ONLY with PSNs 0..7 ($psns)" \
		[ "$psns" = "0 1 2 3 4 5 6 7 " ]
fi
echo "$fails check(s) failed"
[ $fails = 0 ]
