#!/bin/sh
# export-big.sh N: a wakebench export (JSON, version 2) of one experiment of
# N samples, as `wakebench export` writes it, made by awk in a second (the
# store API would commit each sample). For the import tests.
awk -v n="$1" 'BEGIN {
	printf "{\"format\":\"wakebench-export\",\"version\":2,\"schema\":4,\"experiments\":[{"
	printf "\"uuid\":\"5eb1e5d0-0000-4000-8000-%012d\",\"kind\":\"run\",\"workload\":\"pipe\",", n
	printf "\"profile\":\"stress-ng-0.15\",\"params\":{\"instances\":4},\"label\":\"big\","
	printf "\"host\":\"host\",\"kernel\":\"6.6\",\"started_ns\":1796313323512824993,"
	printf "\"status\":\"complete\",\"configs\":[{\"name\":\"default\",\"features\":\"DELAY_DEQUEUE\"}],"
	printf "\"env\":{\"start\":[{\"key\":\"kernel.release\",\"value\":\"6.6\",\"impact\":\"strong\"}],\"end\":[]},"
	printf "\"metrics\":[{\"name\":\"ctxsw_per_op\",\"better\":\"lower\",\"evidence\":true}],\"samples\":["
	for (i = 0; i < n; i++)
		printf "%s{\"index\":%d,\"config\":\"default\",\"warmup\":false,\"status\":\"ok\",\"reason\":null," \
		       "\"start_realtime_ns\":%d,\"duration_ns\":100000000,\"wall_ns\":100000000,\"instances\":4," \
		       "\"ops\":%d,\"real_s\":0.1,\"usr_s\":0.04,\"sys_s\":0.3,\"ops_per_s\":%d," \
		       "\"ops_per_cpu_s\":%d,\"metrics\":{\"ctxsw_per_op\":%.4f}}",
		       i ? "," : "", i, 1796313323512824993 + i, 100000 + i % 997, 1000000 + i % 997,
		       290000 + i % 991, 2 + (i % 13) / 100
	printf "]}]}\n"
}'
