#!/usr/bin/env bash
# tests/interop/lab.sh - the interop lab: Linux soft-RoCE (rdma_rxe) in QEMU VMs as droce's
# peers. Sourced by tests/interop/*.sh (and by hand, see docs/interop.md).
#
#   netns LABI_NS ("lab")                                  netns LABI_DNS ("droce")
#   +------------------------------------------------+     +-------------------------------+
#   | VM vm1 (eth0 10.79.0.11, rxe0) - tap vmtap1 -+ |     |  droce on net_af_packet(dveth)|
#   | VM vm2 (eth0 10.79.0.12, rxe0) - tap vmtap2 -+-br0   |  exception TAP dtap0          |
#   |                                  veth dlab --+ |=====|  (10.79.0.1, droce's MAC)     |
#   +------------------------------------------------+     +-------------------------------+
#
# The bridge, the VMs' taps and the QEMU processes live in the lab namespace; droce runs in a
# second namespace joined to the bridge by a veth whose ends are created inside the two
# namespaces (nothing is ever added to the host's own network). In the droce namespace the
# veth end stays silent (ARP off, IPv6 off, strict rp_filter, as scripts/lab.sh explains) and
# the kernel reaches the wire only through droce's exception TAP, which carries droce's IP and
# MAC: kernel sockets there (droce-pingpong's TCP exchange) speak from droce's address. The
# bridge has no address; it learns droce's MAC from droce's own frames (ARP replies, RoCE).
#
# Functions:
#   lab_can_run            prints why not and returns 1 when this machine cannot host the lab
#   lab_up [N]             build/reuse the image, create both namespaces, boot N VMs (1 or 2),
#                          wait until each has rxe0 ACTIVE (LABI_IMAGE_STATUS=3: the Debian
#                          packages could not be downloaded)
#   lab_up_or_exit N       lab_up for a test script: exit 77/1 when it cannot; sets VMIP and
#                          writes $LABI_DIR/droce.ini
#   vm_run VM CMD [SEC]    run CMD in VM (a shell command line); prints its output, returns its
#                          exit status (124: no answer, the VM is then killed)
#   vm_ip VM               the VM's address
#   lab_droce_config FILE  write a droce INI for the droce namespace
#   lab_capture_start / lab_capture_stop   tshark on the bridge port towards droce
#   lab_down               kill VMs and droce processes by PID, keep logs, delete namespaces
# Artifacts (console logs, captures, droce logs) are copied to $LABI_ARTIFACTS when set.

LABI_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LABI_ID=${LABI_ID:-$$}
LABI_NS=dil$LABI_ID
LABI_DNS=did$LABI_ID
LABI_NET=${LABI_NET:-10.79.0}
LABI_DROCE_IP=$LABI_NET.1
LABI_DIR=${LABI_DIR:-$(mktemp -d /tmp/droce-interop.XXXXXX)}
LABI_BOOT_TIMEOUT=${LABI_BOOT_TIMEOUT:-180}
LABI_VM_MEM=${LABI_VM_MEM:-1536}
LABI_AGENTS=4
LABI_VMS=()
LABI_PIDS=()
declare -gA LABI_VM_PID
# A shared lab (tests/interop/suite.sh): the suite boots the VMs once and names a state file in
# LABI_SHARED; the tests it runs join that lab instead of building their own (lab_up checks it
# answers, lab_down cleans only what the test started and leaves the VMs and namespaces up).
if [ -n "${LABI_SHARED:-}" ]; then
	# shellcheck disable=SC1090
	. "$LABI_SHARED" || { echo "lab.sh: cannot read the shared lab state $LABI_SHARED" >&2; exit 1; }
	LABI_NS=dil$LABI_ID
	LABI_DNS=did$LABI_ID
	LABI_DROCE_IP=$LABI_NET.1
fi

labi_log() { printf '[lab %(%T)T] %s\n' -1 "$*"; }

lab_can_run() {
	if [ "$(id -u)" != 0 ]; then echo "needs root (network namespaces, bridge, taps)"; return 1; fi
	if [ ! -c /dev/net/tun ]; then echo "needs /dev/net/tun (VM taps, droce's exception TAP)"; return 1; fi
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "needs qemu-system-x86_64 (scripts/setup.sh installs qemu-system-x86)"; return 1
	fi
	if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
		echo "needs apt-get and dpkg-deb to build the VM image from Debian packages"; return 1
	fi
	if ! ip netns add "dilprobe$$" 2>/dev/null; then echo "cannot create network namespaces"; return 1; fi
	ip netns del "dilprobe$$"
	return 0
}

# Namespaces of labs whose shell died without cleaning up (SIGKILL) go first.
labi_reap_stale() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^di[ld][0-9]+$'); do
		pid=${ns#di?}
		kill -0 "$pid" 2>/dev/null && continue
		labi_log "removing stale namespace $ns (its lab shell $pid is gone)"
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" 2>/dev/null
		rm -rf "/var/run/dpdk/droce_il_$pid"
		labi_rm_hugefiles "$pid"
	done
}

vm_ip() { echo "$LABI_NET.$((10 + ${1#vm}))"; }

# labi_rm_hugefiles ID: the hugepage files of lab ID's droce processes, once they are killed
# (SIGKILL leaves them: 64 of 2 MiB were found after a suite run, which later tests went without)
labi_rm_hugefiles() {
	local m
	for m in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts 2>/dev/null); do
		rm -f "$m/droce_il_$1"map_* 2>/dev/null
	done
}

# labi_boot VM: start QEMU for VM inside the lab namespace (returns at once)
labi_boot() {
	local vm=$1 n=${1#vm} d="$LABI_DIR/$1" i args=()
	mkdir -p "$d"
	ip netns exec "$LABI_NS" ip tuntap add dev "vmtap$n" mode tap
	ip netns exec "$LABI_NS" ip link set "vmtap$n" master br0 up
	# csum=off: without it the guest hands virtio-net TCP segments with a partial checksum
	# (and TSO super-frames), which the host completes only on its own delivery path;
	# droce's AF_PACKET port would see them as they are and its TAP's kernel would drop them.
	args=(-machine q35 -accel tcg,thread=multi -cpu max -m "$LABI_VM_MEM" -smp 1
		-nodefaults -display none -no-reboot -no-user-config
		-kernel "$KERNEL" -initrd "$INITRD"
		-append "console=ttyS0 panic=-1 loglevel=4 mitigations=off droce.ip=$(vm_ip "$vm")/24 droce.name=$vm"
		-netdev "tap,id=n0,ifname=vmtap$n,script=no,downscript=no,vhost=off"
		-device "virtio-net-pci,netdev=n0,csum=off,guest_csum=off,mac=52:54:00:79:00:$(printf %02x $((10 + n)))"
		-chardev "socket,id=con0,path=$d/console.sock,server=on,wait=off,logfile=$d/console.log"
		-serial chardev:con0
		-device virtio-serial-pci
		-pidfile "$d/qemu.pid")
	for ((i = 0; i < LABI_AGENTS; i++)); do
		args+=(-chardev "socket,id=ag$i,path=$d/agent$i.sock,server=on,wait=off"
			-device "virtserialport,chardev=ag$i,name=agent$i")
	done
	ip netns exec "$LABI_NS" qemu-system-x86_64 "${args[@]}" > "$d/qemu.log" 2>&1 &
	LABI_VM_PID[$vm]=$!
	LABI_PIDS+=($!)
	LABI_VMS+=("$vm")
}

# labi_wait_ready VM: until the console says READY with rxe0 ACTIVE (bounded)
labi_wait_ready() {
	local vm=$1 d="$LABI_DIR/$1" t0=$SECONDS line
	while ((SECONDS - t0 < LABI_BOOT_TIMEOUT)); do
		if ! kill -0 "${LABI_VM_PID[$vm]}" 2>/dev/null; then
			labi_log "$vm: QEMU exited during boot:"; tail -n 30 "$d/qemu.log" "$d/console.log"
			return 1
		fi
		line=$(grep -a -m1 "DROCE-LAB READY" "$d/console.log" 2>/dev/null)
		if [ -n "$line" ]; then
			labi_log "$vm: ${line#*READY } ($((SECONDS - t0)) s)"
			case "$line" in *rxe0=*ACTIVE*) return 0 ;; esac
			labi_log "$vm: rxe0 is not ACTIVE:"; tail -n 40 "$d/console.log"
			return 1
		fi
		sleep 0.5
	done
	labi_log "$vm: not ready within $LABI_BOOT_TIMEOUT s; killing it. Console:"
	tail -n 40 "$d/console.log"
	labi_kill_vm "$vm"
	return 1
}

labi_kill_vm() {
	local pid=${LABI_VM_PID[$1]:-} i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 30; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	LABI_VM_PID[$1]=
}

lab_up() {
	local nvms=${1:-1} vm out t0=$SECONDS
	if [ -n "${LABI_SHARED:-}" ]; then labi_join "$nvms"; return; fi
	labi_reap_stale
	out=$(python3 "$LABI_HERE/build_image.py")
	LABI_IMAGE_STATUS=$?
	if [ $LABI_IMAGE_STATUS != 0 ]; then labi_log "image build failed ($LABI_IMAGE_STATUS)"; return 1; fi
	eval "$out" # KERNEL, INITRD, KVER
	labi_log "image ready in $((SECONDS - t0)) s: $KERNEL ($KVER)"
	ip netns add "$LABI_NS" || return 1
	ip netns add "$LABI_DNS" || return 1
	ip -n "$LABI_NS" link set lo up
	ip -n "$LABI_DNS" link set lo up
	ip netns exec "$LABI_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$LABI_NS" link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0
	ip -n "$LABI_NS" link set br0 up
	# the veth to droce: both ends made inside their namespaces
	ip -n "$LABI_NS" link add dlab type veth peer name dveth netns "$LABI_DNS"
	ip -n "$LABI_NS" link set dlab master br0 up
	ip netns exec "$LABI_DNS" sysctl -qw net.ipv6.conf.dveth.disable_ipv6=1
	ip netns exec "$LABI_DNS" sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.dveth.rp_filter=1
	ip -n "$LABI_DNS" link set dveth arp off up
	t0=$SECONDS
	for ((i = 1; i <= nvms; i++)); do labi_boot "vm$i"; done
	for vm in "${LABI_VMS[@]}"; do labi_wait_ready "$vm" || return 1; done
	labi_log "${#LABI_VMS[@]} VM(s) up in $((SECONDS - t0)) s"
}

# lab_up_or_exit N: for a test script: lab_up N, or exit 77 (SKIP: no Debian packages) or 1
# (FAIL); then VMIP is vm1's address and $LABI_DIR/droce.ini droce's config. T0: the script's
# start ($SECONDS).
lab_up_or_exit() {
	if ! lab_up "$1"; then
		if [ "${LABI_IMAGE_STATUS:-0}" = 3 ]; then
			echo "SKIP: the VM image cannot be built: Debian packages cannot be downloaded here"
			exit 77
		fi
		echo "FAIL - the lab did not come up"
		exit 1
	fi
	echo "# lab up after $((SECONDS - ${T0:-0})) s"
	VMIP=$(vm_ip vm1)
	lab_droce_config "$LABI_DIR/droce.ini"
}

# vm_run VM CMD [TIMEOUT]: output on stdout, the command's exit status as ours
vm_run() {
	local vm=$1 cmd=$2 tmo=${3:-60} rc
	local t0=$SECONDS
	python3 "$LABI_HERE/vmctl.py" run "$LABI_DIR/$vm" "$tmo" "$cmd"
	rc=$?
	# LAB_TIMES=FILE: where CI's minutes go, a line per command (seconds, status, its start)
	[ -n "${LAB_TIMES:-}" ] &&
		printf '%s\t%s\t%s\t%s\n' $((SECONDS - t0)) $rc "${0##*/}" "$(printf '%s' "$cmd" | tr '\n\t' '  ' | cut -c1-100)" >> "$LAB_TIMES"
	if [ $rc = 124 ] || [ $rc = 125 ]; then
		labi_log "$vm does not answer (vmctl status $rc): killing it by PID"
		labi_kill_vm "$vm"
	fi
	return $rc
}

# vm_put VM FILE PATH: copy FILE into VM as an executable PATH (through the agent, gzip and
# base64); true when its md5 there is FILE's
vm_put() {
	local want got
	want=$(md5sum < "$2" | cut -d' ' -f1)
	got=$(vm_run "$1" "echo '$(gzip -9c "$2" | base64 -w0)' | base64 -d | gunzip > '$3' &&
		chmod +x '$3' && md5sum < '$3'" 60 | cut -d' ' -f1)
	[ "$got" = "$want" ]
}

# lab_droce_config FILE [LCORE]: a droce INI for the droce namespace (port on dveth, TAP dtap0);
# its lcores back off when idle (LABI_IDLE_US, 50 us; 0 spins): a spinning lcore holds one of
# CI's two CPUs that the TCG VM, tshark and the kernel's bridge want
lab_droce_config() {
	cat > "$1" <<INI
; droce endpoint of the interop lab (generated by tests/interop/lab.sh)
[eal]
lcores = ${2:-0}
memory = 128
file_prefix = droce_il_$LABI_ID
hugepages = ${LABI_HUGEPAGES:-auto}

[stack]
idle_sleep_us = ${LABI_IDLE_US:-50}

[port0]
vdev = net_af_packet_il,iface=dveth${LABI_AFP_EXTRA:-}
ipv4 = $LABI_DROCE_IP/24
exception_tap = dtap0
INI
}

# lab_capture_start NAME: tshark on the bridge port towards droce (sees every frame between
# droce and the VMs, both ways) into $LABI_DIR/NAME.pcap
lab_capture_start() {
	local f="$LABI_DIR/$1.pcap" i
	ip netns exec "$LABI_NS" tshark -q -i dlab -F pcap -w "$f" > "$LABI_DIR/$1.tshark.log" 2>&1 &
	LABI_TSHARK=$!
	LABI_PIDS+=($!)
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$LABI_DIR/$1.tshark.log" 2>/dev/null && return 0
		sleep 0.1
	done
	labi_log "tshark did not start:"; cat "$LABI_DIR/$1.tshark.log"
	return 1
}

lab_capture_stop() {
	[ -n "${LABI_TSHARK:-}" ] || return 0
	sleep 0.5
	kill -INT "$LABI_TSHARK" 2>/dev/null
	wait "$LABI_TSHARK" 2>/dev/null
	LABI_TSHARK=
}

# lab_nfs_wire CAP DROCE_IP LOG...: the NFS points' wire verdict on a capture of droce's NFS
# traffic. Prints "ODD MAC": ODD, the frames droce sent that tshark flags malformed or in
# error, but for the one kind tshark 4.0 gets wrong (it rebuilds data placed by RDMA WRITE
# short, knfsd.sh says more: a reply of droce's whose data went by write chunk or reply chunk;
# and it guesses some RDMA WRITE payloads, file data, to be EtherType-encapsulated frames), the
# flagged list in CAP.flagged; MAC, droce's port MAC from its logs, for wire_check.py (every
# RoCE frame well formed, every ICRC verified)
lab_nfs_wire() {
	local cap=$1 d=$2 odd mac
	shift 2
	tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity == error' -T fields \
		-e frame.number -e ip.src -e rpc.msgtyp -e rpcordma.msg_type -e rpcordma.writes_count \
		-e infiniband.rwh.etype 2>/dev/null > "$cap.flagged"
	odd=$(awk -F'\t' -v d="$d" '$2 == d && $6 == "" { split($3, t, ","); split($4, m, ",");
		split($5, w, ","); if (!(t[1] == 1 && (m[1] == 1 || w[1] > 0))) print }' "$cap.flagged" | wc -l)
	[ -s "$cap" ] || odd=no-capture # nothing read is no verdict
	mac=$(sed -nE 's/.*port 0 ([0-9A-Fa-f:]{17}) .*/\1/p' "$@" 2>/dev/null | head -1)
	echo "$odd ${mac:-none}"
}

# labi_join N: a test's lab_up in a shared lab: the suite's first N VMs must be running and
# answer; files the test leaves in LABI_DIR after this point are its artifacts
labi_join() {
	local vm
	if ((${#LABI_VMS[@]} < $1)); then labi_log "the shared lab has ${#LABI_VMS[@]} VM(s), not $1"; return 1; fi
	for vm in "${LABI_VMS[@]:0:$1}"; do
		if ! kill -0 "${LABI_VM_PID[$vm]:-0}" 2>/dev/null || ! vm_run "$vm" true 20 > /dev/null; then
			labi_log "$vm of the shared lab is not running"
			return 1
		fi
	done
	LABI_SINCE=$LABI_DIR/.since.$$
	touch "$LABI_SINCE"
	labi_log "joined the shared lab $LABI_NS (${LABI_VMS[*]})"
}

# lab_vm_reset VM: end what a test may have left running in VM (tools, netem)
lab_vm_reset() {
	vm_run "$1" "killall -q -9 ibv_rc_pingpong rping bad_rkey gen_peer ib_write_bw ib_read_bw ib_send_bw \
		ib_atomic_bw ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat 2>/dev/null;
		/usr/sbin/tc qdisc del dev eth0 root 2>/dev/null; true" 20 > /dev/null
}

# lab_share FILE: write the state a test needs to join this lab (see LABI_SHARED)
lab_share() {
	{
		declare -p LABI_ID LABI_NET LABI_DIR KERNEL INITRD KVER LABI_VMS LABI_VM_PID
		echo "LABI_SHARED_OWNER=$$"
	} > "$1"
}

# labi_leave: a test's lab_down in a shared lab: its captures and processes go, the VMs stay
labi_leave() {
	local pid vm
	lab_capture_stop
	for pid in "${LABI_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
	wait 2>/dev/null
	ip netns pids "$LABI_DNS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	rm -rf "/var/run/dpdk/droce_il_$LABI_ID" 2>/dev/null
	labi_rm_hugefiles "$LABI_ID"
	for vm in "${LABI_VMS[@]}"; do
		kill -0 "${LABI_VM_PID[$vm]:-0}" 2>/dev/null && lab_vm_reset "$vm"
	done
	if [ -n "${LABI_ARTIFACTS:-}" ] && [ -n "${LABI_SINCE:-}" ]; then
		mkdir -p "$LABI_ARTIFACTS"
		find "$LABI_DIR" -maxdepth 1 -type f \( -name '*.pcap' -o -name '*.log' \) \
			-newer "$LABI_SINCE" -exec cp {} "$LABI_ARTIFACTS/" \;
		for vm in "${LABI_VMS[@]}"; do
			cp "$LABI_DIR/$vm/console.log" "$LABI_ARTIFACTS/$vm.console.log" 2>/dev/null
		done
	fi
	[ -n "${LABI_SINCE:-}" ] && rm -f "$LABI_SINCE"
	return 0
}

lab_down() {
	local vm pid
	if [ -n "${LABI_SHARED:-}" ]; then labi_leave; return; fi
	lab_capture_stop
	for vm in "${LABI_VMS[@]}"; do labi_kill_vm "$vm"; done
	for pid in "${LABI_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
	wait 2>/dev/null
	ip netns pids "$LABI_DNS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	ip netns pids "$LABI_NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	ip netns del "$LABI_DNS" 2>/dev/null
	ip netns del "$LABI_NS" 2>/dev/null
	rm -rf "/var/run/dpdk/droce_il_$LABI_ID" 2>/dev/null
	labi_rm_hugefiles "$LABI_ID"
	if [ -n "${LABI_ARTIFACTS:-}" ] && [ -d "$LABI_DIR" ]; then
		mkdir -p "$LABI_ARTIFACTS"
		for vm in "${LABI_VMS[@]}"; do
			cp "$LABI_DIR/$vm/console.log" "$LABI_ARTIFACTS/$vm.console.log" 2>/dev/null
			cp "$LABI_DIR/$vm/qemu.log" "$LABI_ARTIFACTS/$vm.qemu.log" 2>/dev/null
		done
		cp "$LABI_DIR"/*.pcap "$LABI_DIR"/*.log "$LABI_ARTIFACTS/" 2>/dev/null
	fi
	[ -n "${LABI_KEEP:-}" ] || rm -rf "$LABI_DIR"
}
