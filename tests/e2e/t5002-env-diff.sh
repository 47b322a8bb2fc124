#!/bin/sh
# wakebench env --diff: two stored experiments whose fingerprints differ in one
# key (the governor of a fake Pi 5 tree, changed between the runs) list that
# key with both values, strongest first; unknown experiments exit 2.
. "$(dirname "$0")/lib.sh"

run_cmd wb run -h
case "$RC $OUT" in
0\ usage*) ;;
*) skip_all "'run' is not built yet" ;;
esac

key_block() { printf '%s\n' "$OUT" | grep -A2 -E "^[a-z]+ +$1\$"; }

cp -r "$FIXTURES/root-pi5" "$TMP/root"
mkdir "$TMP/no-debugfs"
RUN="run pipe -j 1 -t 100ms -n 2 --warmup 0 -q --debugfs $TMP/no-debugfs"
WAKEBENCH_ROOT="$TMP/root" run_cmd wb $RUN --label ondemand
is "$RC" 0 "first run (governor ondemand) stored"
echo performance > "$TMP/root/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
WAKEBENCH_ROOT="$TMP/root" run_cmd wb $RUN --label performance
is "$RC" 0 "second run (governor performance) stored"

run_cmd wb env --diff 1 2
is "$RC" 0 "env --diff exits 0"
like "$(key_block cpu.governor)" "^strong +cpu.governor" "the governor is a strong difference"
like "$(key_block cpu.governor)" "A: ondemand \(cpus 0-3\)" "with A's value"
like "$(key_block cpu.governor)" "B: performance \(cpus 0-3\)" "and B's value"
unlike "$OUT" "kernel.release" "identical keys are not listed"
first=$(printf '%s\n' "$OUT" | grep -E '^(strong|medium|weak|identity|run) ' | head -1)
like "$first" "^strong" "strongest differences first"

run_cmd wb env --diff 1 2 --format json
is "$(printf '%s' "$OUT" | jq -r '.differences[] | select(.key == "cpu.governor") | .a + " -> " + .b')" \
	"ondemand (cpus 0-3) -> performance (cpus 0-3)" "JSON carries both values"

uuid=$(wb env --diff 2 2 --format json | jq -r .a.uuid)
run_cmd wb env --diff "$(printf '%.8s' "$uuid")" 1
is "$RC" 0 "a UUID prefix names an experiment"
like "$OUT" "B: ondemand" "sides follow the order given"

run_cmd wb env --diff 1 nosuch
is "$RC" 2 "an unknown experiment exits 2"
like "$ERR" "nosuch" "the unknown experiment is named"
run_cmd wb env --diff 1
is "$RC" 2 "--diff with one experiment is a usage error"
WAKEBENCH_DB="$TMP/none.db" run_cmd wb env --diff 1 2
is "$RC" 2 "no store: exit 2"
like "$ERR" "does not exist" "no store: said so"
done_testing
