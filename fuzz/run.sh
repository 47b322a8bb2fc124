#!/bin/sh
# run.sh: run every fuzz target for a fixed time, as `make fuzz` does.
#   run.sh BUILD_DIR SECONDS SEED TARGET...
# FUZZ_JOBS targets run at a time (default: the number of CPUs).
# Each target works on a fresh copy of its seed corpus (fuzz/corpus/NAME/,
# never modified) in BUILD_DIR/corpus/NAME; its log is BUILD_DIR/logs/NAME.log
# and a crashing input goes to BUILD_DIR/artifacts/. TMPDIR points into
# BUILD_DIR. Prints seconds, executions and executions per second per
# target; exits 1 if any target found a crash, a leak, a timeout or a
# sanitizer report (libFuzzer exits non-zero on each), 0 otherwise.
set -u

build=$1 seconds=$2 seed=$3
shift 3
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/corpus" "$build/logs" "$build/artifacts" "$build/tmp"
build=$(cd "$build" && pwd)
export TMPDIR="$build/tmp"
# Any report is fatal, and libFuzzer then writes the input to artifacts/
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# fuzz_one BIN: run one target, print its result line; its status is the target's
fuzz_one() {
	bin=$1
	name=${bin##*/}
	name=${name#fuzz-}
	corpus="$build/corpus/$name"
	log="$build/logs/$name.log"
	rm -rf "$corpus"
	mkdir -p "$corpus"
	[ -d "$src/corpus/$name" ] && cp "$src/corpus/$name"/* "$corpus"/ 2>/dev/null
	start=$(date +%s)
	# -close_fd_mask=3: the code under test reports bad input on stderr once per
	# input, which would cost more than the parsing; libFuzzer's own output and
	# every sanitizer report still go to the log.
	"$bin" -max_total_time="$seconds" -seed="$seed" -timeout=25 -rss_limit_mb=2048 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
		"$corpus" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ -z "$execs" ]; then
		# no final stats after a crash: the last status line "#N ..."
		execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	fi
	execs=${execs:-0}
	secs=$((end - start))
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	rate=${rate:-$((execs / (secs > 0 ? secs : 1)))}
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		result="FAILED (exit $rc; $log)"
	fi
	printf '%-22s %8s %12s %10s  %s\n' "fuzz-$name" "$secs" "$execs" "$rate" "$result"
	return "$rc"
}

# FUZZ_JOBS targets at a time (the number of CPUs by default), each on one CPU:
# libFuzzer runs one process per target here; the targets are dealt round-robin
# into that many queues, and the results printed in the targets' order.
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
targets=""
for bin in "$@"; do
	case ${bin##*/} in *.*) continue ;; esac # build-fuzz/fuzz-*.d
	targets="$targets $bin"
done
q=0
pids=""
while [ "$q" -lt "$jobs" ]; do
	(
		i=0
		for bin in $targets; do
			if [ $((i % jobs)) -eq "$q" ]; then
				fuzz_one "$bin" >"$build/logs/${bin##*/}.result"
			fi
			i=$((i + 1))
		done
	) &
	pids="$pids $!"
	q=$((q + 1))
done
for p in $pids; do wait "$p"; done

failed=""
printf '%-22s %8s %12s %10s  %s\n' target seconds executions exec/s result
for bin in $targets; do
	line=$(cat "$build/logs/${bin##*/}.result" 2>/dev/null)
	name=${bin##*/}
	name=${name#fuzz-}
	printf '%s\n' "${line:-fuzz-$name: no result}"
	case $line in *" ok") ;; *) failed="$failed $name" ;; esac
done

[ -z "$failed" ] && exit 0
for name in $failed; do
	log="$build/logs/$name.log"
	echo "--- fuzz-$name: $log (last lines) ---" >&2
	# the report's first line and the top of its stack, the summary, the crashing input
	grep -E -A8 '(==[0-9]+== ?ERROR|runtime error:|fuzz: check failed)' "$log" | head -n 24 >&2
	grep -E '^SUMMARY|Test unit written to' "$log" >&2
done
echo "fuzz: failed:$failed (reproduce: $build/fuzz-NAME ARTIFACT; see fuzz/README.md)" >&2
exit 1
