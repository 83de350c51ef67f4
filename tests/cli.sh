#!/usr/bin/env bash
# droce-gen's command line: help, and bad arguments or configuration answered with a message
# that says what to fix and exit status 2, before any EAL or port is touched.
gen=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fails=0
expect() { # DESCRIPTION STATUS REGEX ARGS...
	local out rc
	out=$("$gen" "${@:4}" 2>&1); rc=$?
	if [ "$rc" = "$2" ] && echo "$out" | grep -qE -- "$3"; then echo "ok   - $1"
	else echo "FAIL - $1: exit $rc, output: $out"; fails=$((fails + 1)); fi
}
printf '[port0]\nvdev = net_ring0\nipv4 = 10.0.0.1/24\nmtu = 70000\n' > "$dir/badmtu.ini"
printf '[port0]\nvdev = net_ring0\n' > "$dir/noaddr.ini"
printf '[port0]\nvdev = net_ring0\nipv4 = 10.0.0.1/24\n[frobnicate]\nx = 1\n' > "$dir/badsec.ini"
printf '[port0]\nvdev = net_ring0\nipv4 = 10.0.0.1/24\n' > "$dir/ok.ini"
expect "--help prints usage" 0 "Usage: .* -c FILE" -- --help
expect "no --config" 2 "-c/--config FILE is required" -- -e 7000
expect "nothing to do" 2 "give --echo PORT and/or --peer" -c "$dir/ok.ini"
expect "unreadable config" 2 "cannot read the configuration file" -c "$dir/missing.ini" -e 7
expect "bad mtu names file, section, key and range" 2 "badmtu.ini: \[port0\] mtu = 70000: expected an integer from 576 to 9000" -c "$dir/badmtu.ini" -e 7
expect "port without an address" 2 "needs ipv4 = a.b.c.d/len" -c "$dir/noaddr.ini" -e 7
expect "unknown section" 2 "\[frobnicate\]: unknown section; known:" -c "$dir/badsec.ini" -e 7
expect "bad peer" 2 "expected A.B.C.D:PORT or \[IPv6\]:PORT" -c "$dir/ok.ini" -p 10.0.0.256
expect "peer without a port" 2 "peer needs :PORT here" -c "$dir/ok.ini" -p 10.0.0.2
expect "flow: a mix against perftest" 2 "perftest server takes write .*, read .*, send .* or atomic .* alone" -c "$dir/ok.ini" -p 10.0.0.2:18515 --flow write:1,atomic:1
expect "flow: send against perftest without --iters" 2 "counts its receives .* give --iters N with the server's -n" -c "$dir/ok.ini" -p 10.0.0.2:18515 --flow send
expect "flow: bad --iters" 2 "--iters 0: expected an integer from 1" -c "$dir/ok.ini" -p 10.0.0.2:18515 --flow send --iters 0
expect "flow: bad mix" 2 "flow write,write: expected write, read, send, atomic" -c "$dir/ok.ini" -p 10.0.0.2 --manual --flow write,write
expect "flow: RC keys on the command line" 2 "keys is for --flow ud" -c "$dir/ok.ini" -p 10.0.0.2 --flow write --keys qpn=1
expect "flow: bad key" 2 "keys qpn=0x1000000: qpn=0x1000000: expected 0 to 0xffffff" -c "$dir/ok.ini" -p 10.0.0.2 --flow ud --keys qpn=0x1000000
expect "flow: ud datagram over the MTU" 2 "at most the path MTU" -c "$dir/ok.ini" -p 10.0.0.2 --flow ud --keys qpn=1 --sizes 8k
expect "bad count" 2 "--count 0: expected an integer from 1" -c "$dir/ok.ini" -p 10.0.0.2:7 -n 0
expect "bad dscp" 2 "--dscp 64: expected an integer from 0 to 63" -c "$dir/ok.ini" -e 7 --dscp 64
expect "--iface beyond the config" 2 "--iface 3: the configuration has 1 port" -c "$dir/ok.ini" -e 7 --iface 3
expect "--rate needs a peer" 2 "--rate needs --peer" -c "$dir/ok.ini" -e 7 --rate 1
expect "bad frame size" 2 "--frame-size 59: expected an integer from 60" -c "$dir/ok.ini" -p 10.0.0.2:7 --rate 1 --frame-size 59
expect "stray argument" 2 "unexpected argument 'extra'" -c "$dir/ok.ini" -e 7 extra
echo "$fails check(s) failed"
[ $fails = 0 ]
