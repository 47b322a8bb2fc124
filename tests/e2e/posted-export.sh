#!/bin/sh
# posted-export.sh TAG LABEL KERNEL VERSION EXPERIMENTS RUNS OPS_PER_S: a
# wakebench export (JSON, version 2) of EXPERIMENTS posted results of
# stress-ng VERSION as `wakebench import` stores another tool's output: kind
# "external", workload pipe, profile stress-ng-0.15, the provenance in the env
# keys external.tool/version/format/args/source, what the text said about the
# system (kernel release, page size), no boot id, one sample per posted run
# (ops_per_s around OPS_PER_S, +-0.5%). TAG (hex digits) makes the UUIDs.
awk -v tag="$1" -v label="$2" -v kernel="$3" -v ver="$4" -v nexp="$5" -v runs="$6" -v ops="$7" '
function kv(k, v, imp) { return sprintf("{\"key\":\"%s\",\"value\":\"%s\",\"impact\":\"%s\"}", k, v, imp) }
BEGIN {
	printf "{\"format\":\"wakebench-export\",\"version\":2,\"schema\":4,\"experiments\":["
	for (e = 0; e < nexp; e++) {
		printf "%s{\"uuid\":\"%08d-0000-4000-8000-%012d\",\"kind\":\"external\",", e ? "," : "", tag, e
		printf "\"workload\":\"pipe\",\"profile\":\"stress-ng-0.15\","
		printf "\"params\":{\"instances\":4,\"duration_ns\":20000000000,\"samples\":%d,\"data_size_bytes\":512,\"workload\":\"pipe\",\"profile\":\"stress-ng-0.15\"},", runs
		printf "\"cmdline\":\"stress-ng --pipe 4 --timeout 20s --metrics-brief\",\"version\":null,"
		printf "\"label\":\"%s\",\"host\":\"posted-host\",\"kernel\":\"%s\",", label, kernel
		printf "\"started_ns\":%d,\"status\":\"complete\",", 1796313323512824993 + e * 1000000000
		printf "\"configs\":[{\"name\":\"default\",\"features\":null}],\"env\":{\"start\":["
		printf "%s,%s,", kv("external.tool", "stress-ng", "medium"), kv("external.version", ver, "strong")
		printf "%s,%s,", kv("external.format", "stress-ng-metrics-brief", "weak"), kv("external.args", "--pipe 4 --timeout 20s --metrics-brief", "weak")
		printf "%s,", kv("external.source", "paste.txt lines 3-9", "weak")
		printf "%s,%s", kv("kernel.release", kernel, "strong"), kv("mem.page_size", "16 KiB", "weak")
		printf "],\"end\":[]},\"metrics\":[],\"samples\":["
		for (i = 0; i < runs; i++) {
			v = ops * (1 + 0.005 * ((i * 7 + e * 3) % 5 - 2) / 2)
			printf "%s{\"index\":%d,\"config\":\"default\",\"warmup\":false,\"status\":\"ok\",\"reason\":null," \
			       "\"start_realtime_ns\":%d,\"duration_ns\":20000000000,\"wall_ns\":20000000000,\"instances\":4," \
			       "\"ops\":%d,\"real_s\":20,\"usr_s\":4,\"sys_s\":30,\"ops_per_s\":%.3f," \
			       "\"ops_per_cpu_s\":%.3f,\"metrics\":{}}",
			       i ? "," : "", i, 1796313323512824993 + e * 1000000000 + i, v * 20, v, v * 20 / 34
		}
		printf "]}"
	}
	printf "]}\n"
}'
