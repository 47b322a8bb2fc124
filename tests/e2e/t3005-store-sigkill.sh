#!/bin/sh
# SIGKILL in the middle of an experiment: the completed samples are intact
# and readable, PRAGMA integrity_check is ok, the experiment shows as
# interrupted.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"

"$WAKEBENCH" run pipe -t 100ms -n 100 --warmup 0 -j 1 -q >/dev/null 2>&1 &
pid=$!
at_exit "kill -9 $pid 2>/dev/null"
n=0
while kill -0 $pid 2>/dev/null; do
	n=$(wb export 2>/dev/null | jq '[.experiments[].samples[]] | length' 2>/dev/null)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.1
done
ok "[ '${n:-0}' -ge 3 ]" "samples are committed while the run goes on ($n seen)"
kids=$(descendants $pid)
kill -9 $pid
wait $pid 2>/dev/null
# the instances notice their parent is gone; make sure none is left behind
for k in $kids; do kill -9 "$k" 2>/dev/null; done

run_cmd wb export
is "$RC" 0 "the store is readable after SIGKILL"
after=$(printf '%s' "$OUT" | jq '[.experiments[].samples[]] | length')
ok "[ '$after' -ge '$n' ]" "completed samples intact ($after >= $n)"
ok "[ '$after' -lt 100 ]" "the run was cut short ($after < 100)"
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].status')" "interrupted" "experiment reads as interrupted"
is "$(printf '%s' "$OUT" | jq -r '[.experiments[0].samples[].status] | unique | join(",")')" "ok" \
	"the stored samples are complete ones"
is "$("$SYNTH" --integrity "$WAKEBENCH_DB")" "ok" "PRAGMA integrity_check is ok"
run_cmd wb show 1
like "$OUT" "status +interrupted" "show says interrupted"
done_testing
