#!/usr/bin/env bash
# Packaging (issue 15): `meson install` into a scratch root puts the binaries, the systemd unit,
# the example configs, the sysctl hugepage drop-in, the docs and the man pages where Debian
# would (every config key in droce-nfsd.ini(5) and docs/config.md); the unit
# passes `systemd-analyze verify`; and the installed droce-nfsd.ini, with its paths pointed at
# scratch directories, passes `droce-nfsd --check` (every key in it is one droce-nfsd knows).
# Usage: install.sh BUILD_DIR        Exit 77 = skipped (with the reason).
set -u
BUILD=$(readlink -f "$1")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
check() { # DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi
}
prefix=$(meson introspect "$BUILD" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
sysconf=$(meson introspect "$BUILD" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="sysconfdir"][0])')
case $sysconf in /*) ;; *) sysconf=$prefix/$sysconf ;; esac
D=$out/root
if ! meson install -C "$BUILD" --destdir "$D" --no-rebuild --quiet > "$out/install.log" 2>&1; then
	cat "$out/install.log"
	echo "FAIL - meson install"
	exit 1
fi
echo "# prefix $prefix, sysconfdir $sysconf"
for f in "$prefix/bin/droce-nfsd" "$prefix/bin/droce-ping" "$prefix/bin/droce-perf" "$prefix/bin/droce-nfsperf" \
	"$prefix/lib/systemd/system/droce-nfsd.service" "$sysconf/droce/droce-nfsd.ini" \
	"$sysconf/droce/example.ini" "$prefix/lib/sysctl.d/60-droce-hugepages.conf" \
	"$prefix/share/doc/droce/config.md" "$prefix/share/doc/droce/nfs.md" \
	"$prefix/share/doc/droce/nfsperf.md"; do
	check "installed: $f" [ -e "$D$f" ]
done
unit=$D$prefix/lib/systemd/system/droce-nfsd.service
check "the unit runs the installed binary with the installed config" \
	grep -q "^ExecStart=$prefix/bin/droce-nfsd --config $sysconf/droce/droce-nfsd.ini$" "$unit"
check "the unit checks the config before starting, reloads with SIGHUP, has a state directory" \
	bash -c "grep -q '^ExecStartPre=.*--check' '$unit' && grep -q '^ExecReload=.*-HUP' '$unit' &&
		grep -q '^StateDirectory=droce-nfsd' '$unit'"
check "the unit keeps CAP_DAC_READ_SEARCH (open_by_handle_at)" \
	grep -q "^CapabilityBoundingSet=.*CAP_DAC_READ_SEARCH" "$unit"
if command -v systemd-analyze > /dev/null; then
	# the unit as installed, its binaries taken from the scratch root (verify runs them
	# through the host's /usr/bin and checks each command exists)
	sed "s#$prefix/bin/#$D$prefix/bin/#g" "$unit" > "$out/droce-nfsd.service"
	SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$out/droce-nfsd.service" \
		> "$out/verify" 2>&1
	rc=$?
	sed 's/^/# systemd-analyze: /' "$out/verify"
	# verify exits 0 on unknown keys and bad values: it only warns, so a warning fails here
	check "systemd-analyze verify accepts the unit with no warning (exit $rc)" \
		bash -c "[ $rc = 0 ] && [ ! -s '$out/verify' ]"
else
	echo "# systemd-analyze is not installed: the unit's syntax is not verified"
fi
# the example config, its paths moved into scratch directories
mkdir -p "$out/data" "$out/scratch"
sed -e "s#/srv/nfs/data#$out/data#; s#/srv/nfs/scratch#$out/scratch#; s#/var/lib/droce-nfsd#$out/state#" \
	"$D$sysconf/droce/droce-nfsd.ini" > "$out/nfsd.ini"
"$D$prefix/bin/droce-nfsd" --check --config "$out/nfsd.ini" > "$out/check" 2>&1
rc=$?
sed 's/^/# droce-nfsd --check: /' "$out/check"
check "the installed droce-nfsd.ini passes --check (2 exports, the stack's sections too)" \
	bash -c "[ $rc = 0 ] && grep -q '2 export(s) ok' '$out/check'"
# the man pages, and every key droce-nfsd knows ([nfs] from its "known:" list, [dcqcn] from the
# transport's) in droce-nfsd.ini(5) and in docs/config.md
man5=$D$prefix/share/man/man5/droce-nfsd.ini.5
for f in "$prefix/share/man/man8/droce-nfsd.8" "$prefix/share/man/man8/droce-nfsstat.8" \
	"$prefix/share/man/man5/droce-nfsd.ini.5"; do
	check "installed: $f" [ -e "$D$f" ]
done
printf '[nfs]\nnosuchkey = 1\n' > "$out/k1.ini"
nfskeys=$("$D$prefix/bin/droce-nfsd" --check --listen 127.0.0.1 --config "$out/k1.ini" 2>&1 |
	sed -n 's/.*unknown key; known: //p')
{ sed -n '/^\[eal\]/,/^\[nfs\]/p' "$out/nfsd.ini" | sed '$d'; printf '[dcqcn]\nnosuchkey = 1\n'; } > "$out/k2.ini"
cckeys=$("$D$prefix/bin/droce-nfsd" --check --config "$out/k2.ini" --exports /dev/null 2>&1 |
	sed -n 's/.*unknown key; known: //p')
echo "# [nfs] keys: $nfskeys; [dcqcn] keys: $cckeys"
HERE=$(cd "$(dirname "$0")" && pwd)
missing=
for k in $nfskeys $cckeys; do
	grep -q "^\.B $k\$" "$man5" || missing="$missing man:$k"
	grep -q "^| $k |" "$HERE/../docs/config.md" || missing="$missing config.md:$k"
done
check "every [nfs] and [dcqcn] key is in droce-nfsd.ini(5) and docs/config.md (missing:$missing)" \
	bash -c "[ -n '$nfskeys' ] && [ -n '$cckeys' ] && [ -z '$missing' ]"
if command -v groff > /dev/null; then
	groff -man -Tutf8 -ww -z "$D$prefix/share/man/man8/droce-nfsd.8" \
		"$D$prefix/share/man/man8/droce-nfsstat.8" "$man5" > "$out/groff" 2>&1
	sed 's/^/# groff: /' "$out/groff"
	check "groff renders the man pages without a warning" [ ! -s "$out/groff" ]
else
	echo "# groff is not installed: the man pages' syntax is not checked"
fi
echo "# install: $fails failed"
[ "$fails" = 0 ]
