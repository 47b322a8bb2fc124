#!/bin/sh
# Every metric a run of each workload stores has a definition in the metric
# registry ('list --metrics'), with the registry's direction, and the primary
# metric that export names is the one 'list' gives the workload. The
# workloads come from 'wakebench list': a new one is covered without an edit.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
wb list --metrics --format json >"$TMP/registry.json" || skip_all "list --metrics failed"
jq -r '.metrics[] | "\(.name) \(.better)"' "$TMP/registry.json" | sort >"$TMP/registry.txt"
n=$(wc -l <"$TMP/registry.txt")
ok "[ $n -ge 30 ]" "the registry lists the common metrics ($n)"
is "$(cut -d' ' -f1 "$TMP/registry.txt" | uniq -d)" "" "every registered name is unique"

wb list --format json >"$TMP/list.json"
for w in $(jq -r '.workloads[].name' "$TMP/list.json"); do
	# fixed work (hackbench's loops) runs to its end: -t is only a limit
	t=50ms
	[ "$(jq -r --arg w "$w" '.workloads[] | select(.name == $w) | .fixed_work' "$TMP/list.json")" = true ] && t=120s
	run_cmd wb run "$w" -t "$t" -n 1 --warmup 0 --trace=auto --db "$TMP/$w.db"
	is "$RC" 0 "run $w -t $t exits 0"
	[ "$RC" = 0 ] || diag "$ERR"
	wb export --db "$TMP/$w.db" >"$TMP/$w.json"
	# every name: the experiment's definitions and every sample's values and reasons
	jq -r '.experiments[] | (.metrics[] | "\(.name) \(.better)")' "$TMP/$w.json" | sort -u >"$TMP/$w.defs"
	jq -r '.experiments[].samples[] | ((.metrics // {}) | keys[]), ((.unavailable // {}) | keys[])' \
		"$TMP/$w.json" | sort -u >"$TMP/$w.names"
	ok "[ $(wc -l <"$TMP/$w.names") -ge 5 ]" "run $w stored named metrics"
	is "$(cut -d' ' -f1 "$TMP/registry.txt" | comm -13 - "$TMP/$w.names" | tr '\n' ' ')" "" \
		"every metric $w stored has a registry definition"
	is "$(comm -13 "$TMP/registry.txt" "$TMP/$w.defs" | tr '\n' ' ')" "" \
		"every metric $w stored has the registry's direction"
	is "$(jq -r '.experiments[0].primary.name' "$TMP/$w.json")" \
		"$(jq -r --arg w "$w" '.workloads[] | select(.name == $w) | .primary' "$TMP/list.json")" \
		"export names $w's primary metric as list does"
	p=$(jq -r --arg w "$w" '.workloads[] | select(.name == $w) | .primary' "$TMP/list.json")
	ok "grep -q '^$p ' '$TMP/registry.txt'" "$w's primary metric $p is registered"
done
done_testing
