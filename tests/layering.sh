#!/usr/bin/env bash
# Layers depend one way only: stack <- roce <- rpc <- nfs <- apps. A file in a layer may
# include headers of its own layer and of the layers below, never above. Headers carry their
# layer's prefix (stk_, roce_, rpcrdma_/orpc_, nfs_), so an include names its layer.
# The build enforces the same with per-layer include directories; this catches it textually.
root=${1:-.}
fail=0
check() { # DIR FORBIDDEN-PREFIX-REGEX
	local hits
	hits=$(grep -rnE "#[[:space:]]*include[[:space:]]*[\"<]($2)" "$root/$1" --include='*.[ch]' 2>/dev/null)
	if [ -n "$hits" ]; then
		echo "layering violation in $1/ (may not include $2*):"
		echo "$hits"
		fail=1
	fi
}
check stack 'roce_|rpcrdma_|orpc_|nfs_'
check roce 'rpcrdma_|orpc_|nfs_'
check rpc 'nfs_'
# the checker itself must be able to fail: a planted violation is detected
tmp=$(mktemp -d)
mkdir -p "$tmp/stack"
echo '#include "roce_qp.h"' > "$tmp/stack/x.c"
if ! grep -rqE '#[[:space:]]*include[[:space:]]*["<](roce_)' "$tmp/stack"; then
	echo "self-check failed: the pattern does not catch a planted violation"; fail=1
fi
rm -rf "$tmp"
[ $fail = 0 ] && echo "layering ok: stack <- roce <- rpc <- nfs <- apps"
exit $fail
