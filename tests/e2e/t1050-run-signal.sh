#!/bin/sh
# Ctrl-C (SIGINT), SIGTERM and every other catchable signal whose default
# action ends the process (SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
# SIGPIPE, ...) during a run: no workload process is left, the completed
# samples are printed and summarised, exit 128 + the signal, and the stored
# experiment says interrupted with its completed samples.
. "$(dirname "$0")/lib.sh"

# A background job of a non-interactive shell ignores SIGINT and SIGQUIT;
# give the program the default dispositions, as a terminal would.
if env --default-signal true 2>/dev/null; then
	launch() { env --default-signal "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
else
	skip_all "env --default-signal is not available"
fi

# stop SIGNAL STATUS
stop() {
	# Far more samples than the wait below needs, so that a loaded or
	# emulated machine only makes it slower: the wait ends on events (two
	# samples done and workload processes seen), or when the run is over.
	launch run pipe -j 2 -t 300ms -n 10000 --warmup 0 --db "$TMP/sig.db"
	pid=$!
	# wait for two completed samples and a later one running
	kids=$(wait_running $pid "$TMP/out" '^sample 2/10000')
	ok "[ -n '$kids' ]" "$1: the run has workload processes before the signal"
	kill -"$1" $pid
	wait $pid
	is "$?" "$2" "$1: exit status $2"
	# run reaps its workload before it exits: nothing to wait for
	is "$(alive "$kids")" "" "$1: no workload process left"
	out=$(cat "$TMP/out")
	like "$out" "^sample 2/10000: bogo ops/s \(real time\) $NUM  " "$1: completed samples were printed"
	like "$out" "^summary: [0-9]+ samples" "$1: the summary of the completed samples is printed"
	like "$(cat "$TMP/err")" "stopped by SIG$1" "$1: says it was stopped"
}

stop INT 130
stop TERM 143
stop QUIT 131
stop HUP 129
stop USR1 138
stop USR2 140
stop ALRM 142
stop PIPE 141
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$TMP/sig.db" "select count(*) from experiments where status = 'interrupted'")" 8 \
		"every experiment is stored as interrupted"
	ok "[ $(sqlite3 "$TMP/sig.db" "select count(*) from samples where status = 'ok'") -ge 16 ]" \
		"their completed samples are stored"
else
	skip "sqlite3 is not installed"
	skip "sqlite3 is not installed"
fi
done_testing
