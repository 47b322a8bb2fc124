#!/bin/sh
# The byte size of the workload's writes per profile, seen by strace:
# 512 for stress-ng-0.15 (whatever --data-size stress-ng was given), 4096
# for stress-ng-0.21; nearly all writes of the run are of that size.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace not permitted)"

# The most frequent successful write size of the traced run.
write_mode() {
	sed -n 's/.*write([0-9]*, .*) = \([0-9][0-9]*\)$/\1/p' "$1" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}

for p in "stress-ng-0.15 512" "stress-ng-0.21 4096"; do
	set -- $p
	# LeakSanitizer cannot run under ptrace (a SANITIZE=1 build)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=write -o "$TMP/trace" "$WAKEBENCH" run pipe -j 1 -t 100ms -n 1 \
		--warmup 0 --no-store --profile "$1" >"$TMP/out" 2>"$TMP/err"
	is "$?" 0 "$1 under strace exits 0"
	is "$(write_mode "$TMP/trace")" "$2" "$1 writes $2 bytes at a time"
	# a proportion, not a rate: how many writes fit in the duration depends on
	# the load (99 under strace on a busy CI machine), not their size
	n=$(grep -c "= $2\$" "$TMP/trace")
	all=$(grep -v "write([12], " "$TMP/trace" | grep -c "write(.*) = [0-9][0-9]*\$")
	ok "[ $n -ge 10 ] && [ $((n * 10)) -ge $((all * 9)) ]" \
		"$1: at least 9 in 10 writes but the output's are of $2 bytes ($n of $all)"
done
done_testing
