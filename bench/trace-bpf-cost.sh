#!/bin/sh
# trace-bpf-cost.sh: what each of the BPF tracer's programs costs per run, by
# the kernel's own accounting (kernel.bpf_stats_enabled: run_cnt and
# run_time_ns of every program, as `bpftool prog show` prints them).
#
# For each placement (same-cpu, cross-cpu) and each of ROUNDS rounds, one
# traced pingpong sample of SECONDS runs while the kernel counts; the
# counts are read halfway through it (the programs are detached at its
# end). Printed per placement and program: the median over rounds of the
# nanoseconds per run, with the smallest and largest.
#
# The figures include the accounting's own cost (two sched_clock() reads a
# run): a program that returns at once reads about 75 ns here. They do not
# include the tracepoint's path into the program, which bench/trace-overhead.sh
# sees in the ops.
#
#   bench/trace-bpf-cost.sh [-r ROUNDS] [-t SECONDS]
#
# Defaults: 5 rounds of 4 seconds. Needs root and bpftool. It sets
# kernel.bpf_stats_enabled to 1 and writes the old value back on exit, also
# when stopped. Run it alone: flock /work/spec/bench.lock bench/trace-bpf-cost.sh.
# Never run by `make check`.
set -eu

rounds=5 secs=4
while getopts r:t: o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) secs=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t SECONDS]" >&2; exit 2 ;;
	esac
done
case $rounds in '' | *[!0-9]* | 0) echo "$0: -r: '$rounds' is not a positive count" >&2; exit 2 ;; esac
case $secs in '' | *[!0-9]* | 0 | 1) echo "$0: -t: '$secs' is not a whole number of seconds above 1" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (kernel.bpf_stats_enabled, --trace=bpf)" >&2; exit 77; }
command -v bpftool >/dev/null || { echo "$0: bpftool is not installed" >&2; exit 77; }
stats=/proc/sys/kernel/bpf_stats_enabled
[ -w "$stats" ] || { echo "$0: $stats cannot be written" >&2; exit 77; }

old=$(cat "$stats")
tmp=$(mktemp -d)
restore() { echo "$old" >"$stats"; rm -rf "$tmp"; }
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo 1 >"$stats"

r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	for place in same-cpu cross-cpu; do
		"$wb" run pingpong --placement "$place" --trace=bpf -n 1 --warmup 0 -t "${secs}s" \
			--no-store >"$tmp/out" 2>"$tmp/err" &
		pid=$!
		# the programs run once the sample starts; read the counts halfway
		until bpftool prog show | grep -q ' name wb_switch .* run_cnt [1-9]'; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		sleep $((secs / 2))
		bpftool prog show | awk -v p="$place" '
			/ name wb_/ {
				for (i = 1; i <= NF; i++) {
					if ($i == "name") n = $(i + 1)
					if ($i == "run_time_ns") t = $(i + 1)
					if ($i == "run_cnt") c = $(i + 1)
				}
				if (c > 0) printf "%s %s %.1f\n", p, n, t / c
			}' >>"$tmp/data"
		wait "$pid" || { echo "$0: the traced run failed: $(tail -n 1 "$tmp/err")" >&2; exit 1; }
	done
	printf 'round %d/%d done\n' "$r" "$rounds" >&2
done

printf 'ns per program run (kernel.bpf_stats_enabled), %d rounds of %ss: median [min, max]\n' \
	"$rounds" "$secs"
for place in same-cpu cross-cpu; do
	for prog in wb_waking wb_switch; do
		awk -v p="$place" -v g="$prog" '$1 == p && $2 == g { print $3 }' "$tmp/data" | sort -n |
			awk -v p="$place" -v g="$prog" '
			{ v[++n] = $1 }
			END {
				if (!n) { printf "%-10s %-10s no run counted\n", p, g; exit }
				m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				printf "%-10s %-10s %7.1f ns [%.1f, %.1f]\n", p, g, m, v[1], v[n]
			}'
	done
done
