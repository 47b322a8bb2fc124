#!/bin/sh
# The folders of src/ depend on each other one way only (scripts/check-layers.sh
# holds the table): the tree passes, and an include planted the wrong way in a
# copy of it fails, naming the file, the line and what the folder may include.
. "$(dirname "$0")/lib.sh"

check="$WAKEBENCH_SRC/scripts/check-layers.sh"
run_cmd sh "$check" "$WAKEBENCH_SRC/src"
is "$RC" 0 "src/ includes only down the layers"
[ "$RC" = 0 ] && [ -z "$OUT" ] || diag "$OUT"

cp -r "$WAKEBENCH_SRC/src" "$TMP/src"
# a statistics file that reaches up into a command
sed -i '0,/^#include "stats\/stats.h"/s//#include "stats\/stats.h"\n#include "cli\/cli.h"/' \
	"$TMP/src/stats/summary.c"
line=$(grep -n '^#include "cli/cli.h"' "$TMP/src/stats/summary.c" | cut -d: -f1)
ok "[ -n '$line' ]" "the wrong-way include is planted"
run_cmd sh "$check" "$TMP/src"
is "$RC" 1 "a planted wrong-way include fails the check"
is "$OUT" "check-layers: src/stats/summary.c:$line: stats may not include cli/cli.h (stats may include: core util)" \
	"naming the file, the line and what the folder may include"

# a workload that reaches into the runner, and a new folder the table lacks
cp -r "$WAKEBENCH_SRC/src" "$TMP/src2"
printf '#include "runner/runner.h"\n' >>"$TMP/src2/workloads/pipe.c"
mkdir "$TMP/src2/extra"
printf '#include "util/util.h"\n' >"$TMP/src2/extra/x.c"
run_cmd sh "$check" "$TMP/src2"
is "$RC" 1 "workloads including the runner fails"
like "$OUT" "src/workloads/pipe.c:[0-9]+: workloads may not include runner/runner.h" "named"
like "$OUT" "src/extra/x.c: folder 'extra' is not in the layer table" "an unknown folder is named"
done_testing
