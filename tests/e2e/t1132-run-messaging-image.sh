#!/bin/sh
# messaging's process tasks: hackbench's (the default profile) carry no
# mapping of wakebench's own libraries while they exchange messages, as a
# hackbench process carries only libc's and the loader's; the instance
# process that forked them still has them; perf's profile keeps them (perf's
# own process is as heavy). Read from /proc/PID/maps of the running tasks
# once each has blocked at least 20 times (past the start, in the work).
# A SANITIZE=1 build sheds nothing: the sanitizer's runtime is lazily
# bound, and its report of a fault would look a symbol up in the unmapped
# libraries.
. "$(dirname "$0")/lib.sh"

[ -r /proc/self/maps ] || skip_all "no /proc/self/maps"
libs='/lib(sqlite3|gsl|crypto|bpf|json-c)[.-][^/]*$'
sanitized=0
ldd "$WAKEBENCH" 2>/dev/null | grep -qE '/lib(a|ub)san\.so' && sanitized=1

# Whether process $1 runs (a zombie does not).
running() {
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$st" ] && [ "$st" != Z ]
}
# The workers of the running instance of wakebench $1: the children of
# its child, once there are $2 and each has blocked 20 times; their pids.
workers() {
	while running "$1"; do
		inst=$(pgrep -P "$1" | head -n 1)
		if [ -n "$inst" ]; then
			w=$(pgrep -P "$inst")
			busy=0
			for p in $w; do
				v=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$p/status" 2>/dev/null)
				[ "${v:-0}" -ge 20 ] && busy=$((busy + 1))
			done
			if [ "$busy" -ge "$2" ]; then
				printf '%s\n' "$w"
				return 0
			fi
		fi
		sleep 0.05
	done
	return 1
}
# Mappings of wakebench's libraries in process $1.
nlibs() { awk '{ print $6 }' "/proc/$1/maps" 2>/dev/null | grep -cE "$libs"; }

for profile in hackbench perf-bench-sched-messaging; do
	"$WAKEBENCH" run messaging --profile "$profile" --pipe --groups 1 --fds 2 --loops 1000000000 \
		-n 1 --warmup 0 -t 60s --no-store >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	w=$(workers $pid 4)
	inst=$(pgrep -P $pid | head -n 1)
	with=0 without=0
	for p in $w; do
		if [ "$(nlibs "$p")" -gt 0 ]; then with=$((with + 1)); else without=$((without + 1)); fi
	done
	ninst=$(nlibs "$inst")
	kill -INT $pid
	wait $pid
	[ -n "$w" ] || diag "no workers seen: $(cat "$TMP/out" "$TMP/err")"
	is "$(printf '%s\n' $w | wc -l)" 4 "$profile: the 4 workers ran"
	ok "[ ${ninst:-0} -gt 0 ]" "$profile: the instance process maps wakebench's libraries ($ninst)"
	if [ "$profile" = hackbench ] && [ $sanitized = 1 ]; then
		is "$with/$without" "4/0" "$profile: a sanitizer's runtime is lazily bound: every worker keeps them"
	elif [ "$profile" = hackbench ]; then
		is "$with/$without" "0/4" "$profile: no worker maps them (with/without)"
	else
		is "$with/$without" "4/0" "$profile: every worker keeps them (with/without)"
	fi
done
done_testing
