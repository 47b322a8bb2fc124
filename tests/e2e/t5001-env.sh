#!/bin/sh
# wakebench env: this machine's fingerprint (release from uname, the features
# file's state or the reason it is unreadable), JSON output, the fake trees.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts

key() { printf '%s\n' "$OUT" | awk -v k="$1" '$1 == k { $1 = ""; sub(/^ +/, ""); print; exit }'; }

run_cmd wb env
is "$RC" 0 "env exits 0"
is "$(key kernel.release)" "$(uname -r)" "kernel.release is uname -r"
is "$(key kernel.version)" "$(uname -v)" "kernel.version is uname -v"
like "$(printf '%s\n' "$OUT" | head -1)" "^strong:$" "strong keys come first"
like "$OUT" "^run:" "run-class keys are listed"

# sched.features: the file's contents, or why it cannot be read.
DBG=/sys/kernel/debug
if [ ! -d "$DBG/sched" ]; then
	skip "debugfs is not mounted at $DBG (not root: with_kernel_mounts cannot mount it)"
else
	run_cmd wb env
	feat=$(cat "$DBG/sched/features" 2>&1)
	case "$feat" in
	*"Operation not permitted"*)
		if [ "$(id -u)" = 0 ]; then
			is "$(key sched.features)" "unreadable: kernel lockdown (EPERM)" \
				"sched.features names kernel lockdown (EPERM as root)"
		else
			like "$(key sched.features)" "^unreadable" "sched.features is unreadable"
		fi ;;
	*"Permission denied"*)
		is "$(key sched.features)" "unreadable: not permitted (not root)" \
			"sched.features says not root" ;;
	*"No such file"*)
		like "$(key sched.features)" "^absent \(debugfs not mounted" "sched.features absent" ;;
	*)
		is "$(key sched.features)" "$(printf '%s' "$feat" | sed 's/ *$//')" \
			"sched.features is the live features line" ;;
	esac
fi

run_cmd wb env --format json
is "$RC" 0 "env --format json exits 0"
is "$(printf '%s' "$OUT" | jq -r '.keys[] | select(.key == "kernel.release") | .value')" \
	"$(uname -r)" "JSON carries kernel.release"
is "$(printf '%s' "$OUT" | jq -r '.keys[0].impact')" "strong" "JSON lists strong keys first"
is "$(printf '%s' "$OUT" | jq -r '[.keys[].impact] | unique | sort | join(",")')" \
	"identity,medium,run,strong,weak" "JSON carries every impact class"

mkdir "$TMP/no-debugfs"
WAKEBENCH_ROOT="$FIXTURES/root-pi5" run_cmd wb env --debugfs "$TMP/no-debugfs"
is "$RC" 0 "env on the Pi 5 tree exits 0"
is "$(key machine.model)" "Raspberry Pi 5 Model B Rev 1.0" "Pi 5 model from the device tree"
is "$(key mem.page_size)" "16 KiB (kernel flavour rpi-2712)" "16 KiB pages on the 2712 kernel"
is "$(key kernel.release)" "6.12.25+rpt-rpi-2712" "release from the tree"
is "$(key cpu.governor)" "ondemand (cpus 0-3)" "governor summarised over CPUs"
is "$(key cpu.max_freq)" "3000000 kHz (cpus 0-3)" "overclocked max frequency"
is "$(key kernel.preempt)" "full" "preemption model from the kernel config"

WAKEBENCH_ROOT="$FIXTURES/root-x86" run_cmd wb env --debugfs "$FIXTURES/root-x86/sys/kernel/debug"
is "$(key kernel.preempt)" "full" "x86: preempt from debugfs"
like "$(key sched.features)" "DELAY_DEQUEUE" "x86: features from the given debugfs"

run_cmd wb env extra
is "$RC" 2 "a stray argument is a usage error"
like "$ERR" "extra" "the stray argument is named"
run_cmd wb env --format csv
is "$RC" 2 "--format csv is refused"
like "$ERR" "'--format'" "the option is named"
done_testing
