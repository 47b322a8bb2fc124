#!/bin/sh
# The byte size of the workload's writes per profile, seen by strace:
# 512 for stress-ng-0.15 (whatever --data-size stress-ng was given), 4096
# for stress-ng-0.21.
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
	n=$(grep -c "= $2\$" "$TMP/trace")
	ok "[ $n -gt 100 ]" "$1: many writes of $2 bytes ($n)"
done
done_testing
