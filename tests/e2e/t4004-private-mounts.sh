#!/bin/sh
# As on a fresh machine (neither debugfs nor tracefs mounted), wakebench as
# root mounts what it needs in a private mount namespace of its own, says so
# once, reads the kernel's real sched/debug and traces; the caller's mount
# table is unchanged afterwards. --debugfs DIR means "use this mount" (no
# mounting); not root, the messages give the exact mount command.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (mounting is root's)"
command -v unshare >/dev/null || skip_all "unshare is not installed"
command -v jq >/dev/null || skip_all "jq is not installed"
if [ -z "${WB_TEST_NO_KERNEL_MOUNTS:-}" ]; then
	# rerun in a namespace of this test's own with both unmounted there
	rm -rf "$TMP"
	trap - EXIT
	WB_TEST_NO_KERNEL_MOUNTS=1 exec unshare -m --propagation private sh -c '
		for d in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
			while mountpoint -q "$d"; do umount "$d" 2>/dev/null || umount -l "$d" || exit 1; done
		done
		exec sh "$0"' "$0"
fi
kernel_mounts() { grep -cE ' - (debugfs|tracefs) ' /proc/self/mountinfo; }
is "$(kernel_mounts)" 0 "the test starts with neither debugfs nor tracefs mounted"
[ -d /sys/kernel/debug ] || skip_all "this kernel has no debugfs"

run_cmd wb env --format json
is "$RC" 0 "env exits 0"
like "$ERR" "^wakebench: env: debugfs not mounted: mounted privately for this run \(the host's mounts are unchanged\)$" \
	"env says it mounted debugfs privately"
is "$(printf '%s\n' "$ERR" | grep -c 'mounted privately')" 1 "and says it once"
unlike "$OUT" "debugfs not mounted" "no key says debugfs is not mounted"
is "$(kernel_mounts)" 0 "no debugfs or tracefs mount is left in the caller's mount table"

run_cmd wb env -v
like "$ERR" "mounted debugfs in a private mount namespace, at /sys/kernel/debug" "-v says where"
run_cmd wb env -q
unlike "$ERR" "mounted" "-q keeps it quiet"

run_cmd wb run pipe -j 1 -t 300ms -n 1 --warmup 0 --no-store --format json
is "$RC" 0 "run exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
m() { jq -r ".samples[0].metrics.$1.$2" "$TMP/run.json"; }
is "$(m delayed_mean available)" true "the delayed-entity sampler reads the kernel's sched/debug"
is "$(kernel_mounts)" 0 "still nothing mounted in the caller's table"

run_cmd wb run pingpong --trace -j 1 --placement same-cpu -t 300ms -n 1 --warmup 0 --no-store --format json
is "$RC" 0 "run --trace exits 0 with tracefs mounted privately"
like "$ERR" "debugfs and tracefs not mounted: mounted privately" "and names both file systems"
printf '%s\n' "$OUT" >"$TMP/run.json"
is "$(m wakeup_lat_p50_ns available)" true "wakeup latency was traced"
is "$(kernel_mounts)" 0 "and nothing is left mounted"

# --debugfs DIR: that mount, as it is
run_cmd wb features --debugfs /sys/kernel/debug
ok "[ $RC -ne 0 ]" "features --debugfs on an unmounted directory fails"
like "$ERR" "debugfs is not mounted at '/sys/kernel/debug' \(as root: mount -t debugfs" \
	"with the mount command"
unlike "$ERR" "mounted privately" "and mounts nothing"

# not root: nothing mounted, the exact command said
if unprivileged_setup; then
	cd /
	run_cmd unprivileged "$UWAKEBENCH" run pingpong --trace -t 100ms -n 1 --warmup 0 -j 1 --no-store
	is "$RC" 77 "not root: --trace exits 77"
	like "$ERR" "mount -t tracefs nodev /sys/kernel/tracing" "and gives the mount command"
	unlike "$ERR" "mounted privately" "not root mounts nothing"
else
	skip "$UWHY"; skip "idem"; skip "idem"
fi
is "$(kernel_mounts)" 0 "at the end, no debugfs or tracefs mount in the caller's table"
done_testing
