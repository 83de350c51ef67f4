#!/usr/bin/env bash
# Interop test: the README's main job, scripts/demo.sh, run in its asserting mode (--check) with
# the build tree's droce-nfsd, in the suite's lab: each step (config checked, droce-nfsd serving,
# the rdma mount, the md5s equal, mountstats naming rdma, the drain at SIGTERM, the counters)
# is an ok/FAIL line and a failed one fails the test.
# Usage: demo.sh PATH/TO/nfs3_rdma_probe [ARTIFACT_DIR]  (droce-nfsd is found in the build tree
# next to it: BUILD/apps/droce-nfsd)
set -u
PROBE_DIR=$(dirname "$(readlink -f "$1")")
HERE=$(cd "$(dirname "$0")" && pwd)
LABI_ARTIFACTS=${2:-} exec bash "$HERE/../../scripts/demo.sh" --check \
	--nfsd "$PROBE_DIR/../../apps/droce-nfsd"
