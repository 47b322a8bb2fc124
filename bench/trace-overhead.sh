#!/bin/sh
# trace-overhead.sh: what --trace costs, perf records against in-kernel BPF
# aggregation, on pingpong pinned to one CPU, pingpong across two CPUs and pipe.
#
# Each round runs, for every workload, an untraced run, a --trace=perf run and
# a --trace=bpf run of one sample each, back to back, in an order that rotates
# from round to round (so that slow drift of a shared machine does not favour
# one tracer). Per round and tracer the overhead is 1 - traced / untraced of
# the same round, on ops/s and on ops per CPU-second (usr+sys of the tasks:
# steadier where neighbours steal wall-clock time). Printed per workload and
# tracer: the median of the per-round overheads with its distribution-free
# 95% CI (order statistics of the binomial, as wakebench's summaries), and the
# median untraced and traced rates. Target: BPF <= 5% on ops per CPU-second
# for pingpong.
#
#   bench/trace-overhead.sh [-r ROUNDS] [-t DURATION] [-w "WORKLOAD ..."]
#
# WORKLOAD: pingpong-same (pingpong --placement same-cpu), pingpong-cross
# (--placement cross-cpu), pipe (-j 1). Defaults: 10 rounds of 1s, all three.
# Needs root (both tracers) and jq. Run it alone: flock /work/spec/bench.lock
# bench/trace-overhead.sh. Never run by `make check`.
set -eu

rounds=10 duration=1s workloads="pingpong-same pingpong-cross pipe"
while getopts r:t:w: o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) duration=$OPTARG ;;
	w) workloads=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t DURATION] [-w \"WORKLOAD ...\"]" >&2; exit 2 ;;
	esac
done
case $rounds in '' | *[!0-9]* | 0) echo "$0: -r: '$rounds' is not a positive count" >&2; exit 2 ;; esac
for w in $workloads; do
	case $w in
	pingpong-same | pingpong-cross | pipe) ;;
	*) echo "$0: -w: '$w' is not pingpong-same, pingpong-cross or pipe" >&2; exit 2 ;;
	esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: jq is not installed" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "$0: both tracers need root" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

args_of() {
	case $1 in
	pingpong-same) echo "pingpong --placement same-cpu" ;;
	pingpong-cross) echo "pingpong --placement cross-cpu" ;;
	pipe) echo "pipe -j 1" ;;
	esac
}

# one sample: "ops_per_s ops_per_cpu_s"; the traced runs' own untraced
# calibration sample is not used (this script interleaves its own)
one() {
	w=$1 mode=$2
	set -- $(args_of "$w")
	case $mode in
	none) t="" ;;
	*) t="--trace=$mode" ;;
	esac
	"$wb" run "$@" $t -n 1 --warmup 0 -t "$duration" --no-store --format json 2>"$tmp/err" |
		jq -r '.samples[0] | select(.status == "ok") | "\(.ops_per_s) \(.ops_per_cpu_s)"' ||
		true
}

# probe each tracer once: a tracer that cannot run here (exit 77) is reported, not timed
modes="perf bpf"
for m in perf bpf; do
	rc=0
	"$wb" run pingpong --trace=$m -n 1 --warmup 0 -t 100ms --no-store >/dev/null 2>"$tmp/err" ||
		rc=$?
	if [ "$rc" = 77 ]; then
		echo "tracer $m cannot run here: $(tail -n 1 "$tmp/err")"
		modes=$(echo "$modes" | sed "s/$m//")
	fi
done

r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	for w in $workloads; do
		# rotate the order of untraced, perf, bpf
		case $((r % 3)) in
		0) order="none $modes" ;;
		1) order="$modes none" ;;
		*) order="$(echo $modes | awk '{ print $NF }') none $(echo $modes | awk '{ $NF = ""; print }')" ;;
		esac
		for m in $order; do
			v=$(one "$w" "$m")
			[ -n "$v" ] && echo "$r $w $m $v" >>"$tmp/data"
		done
	done
	printf 'round %d/%d done\n' "$r" "$rounds" >&2
done

[ -s "$tmp/data" ] || { echo "$0: no sample succeeded" >&2; exit 1; }
printf 'rounds: %d, -t %s; overhead = 1 - traced/untraced per round: median [95%% CI]\n' \
	"$rounds" "$duration"
printf '%-15s %-6s %28s %28s %12s %12s %12s %12s\n' workload tracer "ops/s overhead" \
	"ops/CPU-s overhead" "untr ops/s" "ops/s" "untr ops/CPU" "ops/CPU-s"
for w in $workloads; do
	for m in $modes; do
		awk -v w="$w" -v m="$m" '
		function sort(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		}
		function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		# the distribution-free CI of the median: [x(k), x(n+1-k)] with the
		# largest k whose binomial(n, 1/2) tail P(X < k) is at most 2.5%
		function ci(a, n,   k, p, c, i) {
			c = 0; p = 0.5 ^ n; k = 0
			for (i = 0; i < n; i++) { c += p; if (c > 0.025) break; k = i + 1; p = p * (n - i) / (i + 1) }
			if (k < 1) return "[n too small]"
			return sprintf("[%.1f%%, %.1f%%]", a[k] * 100, a[n + 1 - k] * 100)
		}
		$2 == w { ops[$1 " " $3] = $4; cpu[$1 " " $3] = $5; rounds[$1] = 1 }
		END {
			n = 0
			for (r in rounds) {
				if (!((r " none") in ops) || !((r " " m) in ops)) continue
				n++
				o[n] = 1 - ops[r " " m] / ops[r " none"]
				c[n] = 1 - cpu[r " " m] / cpu[r " none"]
				u1[n] = ops[r " none"]; t1[n] = ops[r " " m]
				u2[n] = cpu[r " none"]; t2[n] = cpu[r " " m]
			}
			if (!n) { printf "%-15s %-6s no paired round\n", w, m; exit }
			sort(o, n); sort(c, n); sort(u1, n); sort(t1, n); sort(u2, n); sort(t2, n)
			printf "%-15s %-6s %8.1f%% %-19s %8.1f%% %-19s %12.0f %12.0f %12.0f %12.0f\n", w, m,
				median(o, n) * 100, ci(o, n), median(c, n) * 100, ci(c, n),
				median(u1, n), median(t1, n), median(u2, n), median(t2, n)
		}' "$tmp/data"
	done
done
