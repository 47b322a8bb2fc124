#!/bin/sh
# ci-time.sh: how long CI takes, phase by phase, on a fresh clone.
#
# Clones this repository's HEAD into a new private directory (mode 0700, as
# a clone under root's home or a mktemp -d directory is), runs .ci/run there
# as CI does (CI=true, no standard input) and prints its phase table: deps,
# arm64 (the cross build and its tests under qemu-user), native (make check
# with debugfs and tracefs unmounted), sanitizers (make check SANITIZE=1),
# fuzz (every target for 30 s, one per CPU at a time). Target: the whole run
# under 20 minutes on a 2-vCPU machine. Never run by `make check`; as root,
# like CI (it installs packages). The clone is kept, with CI's log in it.
#
#   sh bench/ci-time.sh [DIR]     (DIR: where to clone; default a temp dir)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/wakebench-ci.XXXXXX")}
chmod 0700 "$dir"
git clone -q "$src" "$dir/clone"
cd "$dir/clone"
echo "ci-time: $(git log -1 --format='%h %s' | cut -c1-72)"
echo "ci-time: clone in $dir/clone (0700 parent), log in $dir/ci.log"
start=$(date +%s)
rc=0
CI=true bash .ci/run </dev/null >"$dir/ci.log" 2>&1 || rc=$?
total=$(($(date +%s) - start))
sed -n '/^ci: phases/,$p' "$dir/ci.log"
grep -E '^(Files=|Result:)' "$dir/ci.log" | sed 's/^/  prove: /'
echo "ci-time: .ci/run exited $rc after $total s ($((total / 60)) min $((total % 60)) s)"
exit "$rc"
