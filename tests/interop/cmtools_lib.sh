#!/usr/bin/env bash
# tests/interop/cmtools_lib.sh - what the interop points of droce's librdmacm example tools
# (rdma_ep.sh, udaddy.sh, ucmatose.sh) share; sourced after lab.sh and rping_lib.sh. The Linux
# original (rdmacm-utils 44) runs in the VM, droce's tool in the droce namespace.
#
#   vm_serves NAME PORT VMCMD -- TOOL ARGS...
#       VMCMD (the original as server) in vm1; once an rdma_cm id listens on PORT there, TOOL
#       ARGS in the droce namespace. Sets RD (droce's exit status) and RV (the VM's).
#   droce_serves NAME TOOL ARGS... -- VMCMD
#       TOOL ARGS (droce's server) in the droce namespace; once its port is up, VMCMD in vm1.
#       A droce server still running when the VM's client failed is ended with SIGTERM; with
#       CMT_STOP_SERVER=1 always (a server that serves until stopped, as cmtime's).
#   same_lines WANT FILE   FILE's lines (without the EAL's and the stack's) are WANT exactly
#   cm_mads PCAP ATTR      how many CM MADs of attribute ATTR (0x0010 REQ, 0x0017 SIDR_REQ...)
# Output: $LABI_DIR/NAME.droce.{out,err} and NAME.vm.{out,err}.
CMT_SEC=${CMT_SEC:-100}

vm_serves() {
	local name=$1 port=$2 vmcmd=$3 vmjob
	shift 4
	vm_cmd vm1 "$LABI_DIR/$name.vm" "$CMT_SEC" "$vmcmd" &
	vmjob=$!
	if vm_wait_listen vm1 "$port"; then
		DPING=$1
		shift
		dping_start "$name" "$CMT_SEC" "$@"
		wait "$DPING_PID"
		RD=$?
	else
		echo "# $vmcmd did not listen on $port in the VM within 10 s"
		RD=-
	fi
	[ "$RD" = 0 ] || vm_run vm1 "killall ${vmcmd%% *}" 10 > /dev/null 2>&1
	wait $vmjob
	RV=$?
}

droce_serves() {
	local name=$1 args=() i
	shift
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	DPING=${args[0]}
	dping_start "$name" "$CMT_SEC" "${args[@]:1}"
	for ((i = 0; i < 150; i++)); do
		grep -q "port0: port 0" "$LABI_DIR/$name.droce.err" 2>/dev/null && break
		kill -0 "$DPING_PID" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1 # the CM listens once the loop runs
	vm_cmd vm1 "$LABI_DIR/$name.vm" "$CMT_SEC" "$1"
	RV=$?
	if [ "$RV" != 0 ] || [ -n "${CMT_STOP_SERVER:-}" ]; then
		sleep 1 # the last DREPs
		kill -TERM "$DPING_PID" 2>/dev/null
	fi
	wait "$DPING_PID"
	RD=$?
}

same_lines() {
	[ "$(dping_lines "$2" | grep -av '^droce-[a-z]*: resources')" = "$1" ]
}

cm_mads() {
	tshark -r "$1" -Y "infiniband.mad.attributeid == $2" 2> /dev/null | wc -l
}

# show NAME: both sides' output, for a failed run
show() {
	local f
	for f in "$LABI_DIR/$1".{droce.out,droce.err,vm.out,vm.err}; do
		[ -s "$f" ] || continue
		echo "# ${f##*/} (last lines):"
		dping_lines "$f" | tail -n 10 | cut -c1-160 | sed 's/^/#   /'
	done
}
