#!/bin/sh
# The syscall shape of each pipe profile, seen by strace: the byte size of
# the workload's writes (512 for stress-ng-0.15 and 0.15.07, whatever
# --data-size stress-ng was given, 4096 from 0.16; nearly all writes of the
# run are of that size), who ends the reader and how (0.15: the writer
# SIGKILLs it; 0.15.07 and 0.16: the writer sends SIGPIPE; 0.21.02: the
# idle instance process sends SIGPIPE to the reader and to the writer, its
# two children), and the reader's one read of its fdinfo up to 0.15.10.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace not permitted)"

# The most frequent successful write size of the traced run.
write_mode() {
	sed -n 's/.*write([0-9]*, .*) = \([0-9][0-9]*\)$/\1/p' "$1" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}
# The pid that made most writes of $2 bytes.
writer_pid() {
	grep "write([0-9]*, .*) = $2\$" "$1" | awk '{ print $1 }' | sort | uniq -c | sort -rn |
		awk 'NR == 1 { print $2 }'
}

for p in "stress-ng-0.15 512 SIGKILL 1 1" "stress-ng-0.15.07 512 SIGPIPE 1 1" \
	"stress-ng-0.16 4096 SIGPIPE 1 0" "stress-ng-0.21.02 4096 SIGPIPE 2 0"; do
	set -- $p
	# LeakSanitizer cannot run under ptrace (a SANITIZE=1 build)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=write,kill,openat -o "$TMP/trace" "$WAKEBENCH" run pipe -j 1 -t 100ms \
		-n 1 --warmup 0 --no-store --profile "$1" >"$TMP/out" 2>"$TMP/err"
	is "$?" 0 "$1 under strace exits 0"
	is "$(write_mode "$TMP/trace")" "$2" "$1 writes $2 bytes at a time"
	# a proportion, not a rate: how many writes fit in the duration depends on
	# the load (99 under strace on a busy CI machine), not their size
	n=$(grep -c "= $2\$" "$TMP/trace")
	all=$(grep -v "write([12], " "$TMP/trace" | grep -c "write(.*) = [0-9][0-9]*\$")
	ok "[ $n -ge 10 ] && [ $((n * 10)) -ge $((all * 9)) ]" \
		"$1: at least 9 in 10 writes but the output's are of $2 bytes ($n of $all)"
	kills=$(grep -c "kill([0-9]*, $3" "$TMP/trace")
	is "$kills" "$4" "$1: the reader's end is $4 x kill($3)"
	w=$(writer_pid "$TMP/trace" "$2")
	killer=$(grep "kill([0-9]*, $3" "$TMP/trace" | awk 'NR == 1 { print $1 }')
	if [ "$4" = 2 ]; then
		ok "[ -n \"$killer\" ] && [ \"$killer\" != \"$w\" ]" "$1: the writer ($w) is not the process that ends the run ($killer)"
		ok "grep -q '^$killer .*kill($w, SIGPIPE' '$TMP/trace'" "$1: the instance process sends the writer SIGPIPE"
	else
		is "$killer" "$w" "$1: the writer ends the reader"
	fi
	is "$(grep -c 'openat(.*/fdinfo/' "$TMP/trace")" "$5" "$1: the reader reads its fdinfo $5 time(s)"
done
done_testing
