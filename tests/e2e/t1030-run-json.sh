#!/bin/sh
# --format json parses and has everything: samples with their metrics,
# the summary, the environment, the profile, the parameters, the command line.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

run_cmd wb run pipe -j 1 -t 100ms -n 2 --warmup 100ms --no-store --format json --label "it's \"quoted\""
is "$RC" 0 "json run exits 0"
printf '%s\n' "$OUT" >"$TMP/out.json"
ok "jq -e . '$TMP/out.json'" "the output parses as JSON"
is "$(jq '.samples | length' "$TMP/out.json")" 3 "three samples (the warm-up included)"
is "$(jq '[.samples[] | select(.warmup)] | length' "$TMP/out.json")" 1 "one of them is the warm-up"
is "$(jq -r '[.samples[] | .status] | unique | join(",")' "$TMP/out.json")" ok "every sample ok"
is "$(jq '[.samples[] | select(.ops > 0 and .ops_per_s > 0)] | length' "$TMP/out.json")" 3 "samples have ops and ops/s"
is "$(jq '.summary.metrics.ops_per_s.n' "$TMP/out.json")" 2 "the summary counts only the measured samples"
is "$(jq '.summary.samples' "$TMP/out.json")" 2 "summary.samples is 2"
is "$(jq -r '.profile' "$TMP/out.json")" stress-ng-0.15 "the profile"
is "$(jq -r '.label' "$TMP/out.json")" "it's \"quoted\"" "the label survives quoting"
is "$(jq '.params.instances' "$TMP/out.json")" 1 "params: instances"
is "$(jq '.params.duration_ns' "$TMP/out.json")" 100000000 "params: duration in ns"
is "$(jq -r '.params.placement' "$TMP/out.json")" any "params: placement"
is "$(jq -r '.version' "$TMP/out.json")" "$(wb --version | sed 's/^wakebench //')" "the version"
like "$(jq -r '.cmdline' "$TMP/out.json")" "run pipe -j 1 -t 100ms" "the command line"
is "$(jq -r '.environment.start["kernel.release"].value' "$TMP/out.json")" "$(uname -r)" "the environment"
is "$(jq -r '.experiment.status' "$TMP/out.json")" complete "the experiment completed"
is "$(jq '.experiment.stored' "$TMP/out.json")" false "--no-store: not stored"
# a metric with availability: either a value or a reason, never a bare zero
is "$(jq '(.samples[0].metrics | length) as $n | [.samples[0].metrics[] | select((.available and .value != null) or (.available == false and (.why | length) > 0))] | length == $n' "$TMP/out.json")" true \
	"every metric has a value or the reason it is unavailable"
done_testing
