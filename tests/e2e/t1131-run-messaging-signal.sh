#!/bin/sh
# SIGINT and SIGTERM during messaging at hackbench's 10 groups (400
# senders and receivers, processes and then threads): wakebench exits
# 130 / 143, no task is left, the completed samples are printed and
# stored, the experiment is stored as interrupted.
. "$(dirname "$0")/lib.sh"

if ! env --default-signal true 2>/dev/null; then
	skip_all "env --default-signal is not available"
fi
command -v ps >/dev/null 2>&1 || skip_all "ps is not installed"

# Every process below $1 and the thread count of each: one ps, one awk.
tree() {
	ps -e -o pid=,ppid=,nlwp= | awk -v root="$1" '
		{ parent[$1] = $2; nlwp[$1] = $3 }
		END {
			for (p in parent) {
				q = p
				while (q in parent && q != root && q > 1) q = parent[q]
				if (q == root && p != root) print p, nlwp[p]
			}
		}'
}
# Tasks (processes and threads) below $1.
ntasks() { tree "$1" | awk '{ n += $2 } END { print n + 0 }'; }

# stop SIGNAL STATUS MODE
stop() {
	env --default-signal "$WAKEBENCH" run messaging --pipe "--$3" -n 100 --warmup 0 -t 120s \
		--db "$TMP/sig.db" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	# two completed samples, and the third with all its 401 tasks
	n=0
	while kill -0 $pid 2>/dev/null; do
		if grep -q '^sample 2/100' "$TMP/out" 2>/dev/null; then
			n=$(ntasks $pid)
			[ "$n" -ge 401 ] && break
		fi
		sleep 0.05
	done
	ok "[ $n -ge 401 ]" "$1 ($3): the third sample runs its 401 tasks ($n) when the signal comes"
	kids=$(tree $pid | awk '{ print $1 }')
	t0=$(date +%s%N)
	kill -"$1" $pid
	wait $pid
	rc=$?
	t1=$(date +%s%N)
	is "$rc" "$2" "$1 ($3): exit status $2"
	echo "# $1 ($3): wakebench exited $(( (t1 - t0) / 1000000 )) ms after the signal"
	is "$(alive "$kids")" "" "$1 ($3): no task left"
	# a hang detector, not a speed test: the contract is one second
	ok "[ $(( (t1 - t0) / 1000000 )) -lt 10000 ]" "$1 ($3): stopped in well under ten seconds"
	like "$(cat "$TMP/out")" "^sample 2/100: run time $TIME  " "$1 ($3): the completed samples were printed"
	like "$(cat "$TMP/err")" "stopped by SIG$1" "$1 ($3): says it was stopped"
}

stop INT 130 processes
stop TERM 143 threads
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$TMP/sig.db" "select count(*) from experiments where status = 'interrupted'")" 2 \
		"both experiments are stored as interrupted"
	ok "[ $(sqlite3 "$TMP/sig.db" "select count(*) from samples where status = 'ok'") -ge 4 ]" \
		"their completed samples are stored"
else
	skip "sqlite3 is not installed"
	skip "sqlite3 is not installed"
fi
done_testing
