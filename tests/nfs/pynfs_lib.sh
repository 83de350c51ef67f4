# shellcheck shell=bash
# What the pynfs runs share (sourced by tests/nfs/pynfs.sh and tests/nfs/pynfs_reboot.sh):
#   pynfs_setup NS         the checks that skip (not root, no python3-ply/gssapi/setuptools, no
#                          network namespace) or fail (no ../shared/testsuites/pynfs), and the
#                          namespace NS with its loopback up; sets PY, SRC, HERE
#   pynfs_build DIR        the scratch copy of pynfs in DIR/pynfs, built (fails the test if not)
#   pynfs_verdict RESULTS LOG KNOWN   the counts, and the failures against the known ones (each
#                          with its reason; every listed one must still fail); 0 when they agree
#   check DESCRIPTION COMMAND...      one "ok/FAIL" line, counted in $fails
# pynfs is never built in ../shared: the snapshot keeps nfs4.0's symlinks as text files holding
# their targets, and the copy turns them back into links.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(readlink -f "$HERE/../../../shared/testsuites/pynfs" 2>/dev/null)
# Debian's interpreter, whatever python3 comes first in PATH (ply and gssapi are Debian packages)
PY=/usr/bin/python3
fails=0

ci_skip() { # REASON: skip, or fail in CI where scripts/setup.sh installs what is missing
	if [ -n "${DROCE_CI:-}${CI:-}" ]; then echo "FAIL - $1"; exit 1; fi
	echo "SKIP: $1"; exit 77
}

check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}

pynfs_setup() { # NS
	if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for a network namespace"; exit 77; fi
	[ -d "$SRC/nfs4.1" ] || { echo "FAIL - pynfs is not at ../shared/testsuites/pynfs"; exit 1; }
	$PY -c 'import ply, gssapi, setuptools' 2>/dev/null ||
		ci_skip "pynfs needs python3-ply, python3-gssapi and python3-setuptools (scripts/setup.sh)"
	if ! ip netns add "$1" 2>/dev/null; then echo "SKIP: cannot create a network namespace"; exit 77; fi
	ip -n "$1" link set lo up
}

pynfs_build() { # DIR
	local f t
	# the scratch copy and its build (xdrgen writes the generated XDR code into the tree)
	cp -r "$SRC" "$1/pynfs"
	while IFS= read -r f; do
		t=$(head -c 200 "$f")
		if [ "$(wc -l < "$f")" -le 1 ] && [[ $t =~ ^\.\./ ]] && [ -e "$(dirname "$f")/$t" ]; then
			rm -rf "$f" && ln -s "$t" "$f"
		fi
	done < <(find "$1/pynfs" -type f -size -200c)
	if ! (cd "$1/pynfs" && PATH=/usr/bin:/bin $PY setup.py build) > "$1/pynfs.build.log" 2>&1 ||
		grep -q Traceback "$1/pynfs.build.log"; then
		echo "FAIL - pynfs did not build:"; tail -n 20 "$1/pynfs.build.log"; exit 1
	fi
}

pynfs_verdict() { # RESULTS.json PYNFS.log KNOWN
	$PY - "$1" "$2" "$3" <<'PY'
import json, re, sys
res = json.load(open(sys.argv[1]))
log = open(sys.argv[2], errors="replace").read()
known = {}
for line in open(sys.argv[3]):
    line = line.strip()
    if line and not line.startswith("#"):
        code, _, why = line.partition(" ")
        known[code] = why.strip()
failed = {t["code"]: t["failure"]["message"] for t in res["testcase"] if "failure" in t}
ran = [t["code"] for t in res["testcase"] if "skipped" not in t]
m = re.search(r"Of those:\s*(\d+) Skipped, (\d+) Failed, (\d+) Warned, (\d+) Passed", log)
print(f"summary: {res['tests']} tests, {res['skipped']} skipped, {len(failed)} failed, "
      f"{m.group(3) if m else '?'} warned, {m.group(4) if m else '?'} passed")
bad = 0
for code in sorted(failed):
    if code not in known:
        print(f"UNEXPECTED {code}: {failed[code]}")
        bad += 1
for code in sorted(known):
    if code in ran and code not in failed:
        print(f"NOW PASSES {code} (listed as a known failure: {known[code]}); take it off the list")
        bad += 1
print(f"known failures that failed: {sum(1 for c in failed if c in known)} of {len(known)}")
sys.exit(1 if bad else 0)
PY
}
