#!/usr/bin/env bash
# Sourced by the NFS interop tests: cthon04 from ../shared/testsuites (never modified) built in
# a scratch copy and put into an export, from where the VM runs it.
#   cthon_basic_into SRC SCRATCH EXPORT  build basic as static binaries from SRC in SCRATCH and
#                                        copy runtests, tests.init and the tests into
#                                        EXPORT/cthon04/basic (returns 1 with the build log's
#                                        tail when it does not build)

cthon_basic_into() {
	local src=$1 scratch=$2 exp=$3
	[ -d "$scratch/cthon04.src" ] || cp -r "$src" "$scratch/cthon04.src"
	if ! make -C "$scratch/cthon04.src/basic" CC="gcc -static" > "$scratch/cthon04.build.log" 2>&1; then
		echo "FAIL - cthon04 basic did not build:"; tail -n 20 "$scratch/cthon04.build.log"; return 1
	fi
	mkdir -p "$exp/cthon04/basic"
	cp "$scratch/cthon04.src/tests.init" "$exp/cthon04/"
	(cd "$scratch/cthon04.src/basic" && cp runtests test1 test2 test3 test4 test4a test5 test5a test5b \
		test6 test7 test7a test7b test8 test9 "$exp/cthon04/basic/")
}

#   cthon_part_into PART SCRATCH EXPORT FILES...  build another part of cthon04 (special,
#                                        lock) in the scratch copy cthon_basic_into made and
#                                        copy FILES into EXPORT/cthon04/PART
cthon_part_into() {
	local part=$1 scratch=$2 exp=$3
	shift 3
	if ! make -C "$scratch/cthon04.src/$part" CC="gcc -static" >> "$scratch/cthon04.build.log" 2>&1; then
		echo "FAIL - cthon04 $part did not build:"; tail -n 20 "$scratch/cthon04.build.log"; return 1
	fi
	mkdir -p "$exp/cthon04/$part"
	(cd "$scratch/cthon04.src/$part" && cp "$@" "$exp/cthon04/$part/")
}

#   cthon_mount_or_end NAME STEP LOG     after a cthon04 part that failed: when the VM's mount
#                                        at /mnt/d no longer answers (a stat within 20 s), say
#                                        so with droce-nfsd's last connection lines (LOG.out and
#                                        LOG.err, its stdout and stderr, also copied into the
#                                        test's artifacts), let go of the mount in the VM (a lazy
#                                        forced unmount, so that the suite's second attempt does
#                                        not block on it) and end the test with exit 1. Every later
#                                        step would wait out its own bound on the hung mount
#                                        (once 20 minutes of CI for one lost connection)
cthon_mount_or_end() {
	local name=$1 step=$2 log=$3
	vm_run vm1 "timeout 20 stat -f /mnt/d > /dev/null && echo mount-answers" 40 2>&1 | grep -q mount-answers &&
		return 0
	echo "FAIL - $name: the mount stopped answering after cthon04 $step; the rest of this test is not run"
	cat "$log.out" "$log.err" 2>/dev/null | grep -iE 'closed|failed|error|connect' | tail -n 15 |
		sed 's/^/# droce-nfsd: /'
	[ -n "${LABI_ARTIFACTS:-}" ] && cp "$log.out" "$log.err" "$LABI_ARTIFACTS"/ 2>/dev/null
	vm_run vm1 "umount -f -l /mnt/d" 30 > /dev/null 2>&1
	exit 1
}
