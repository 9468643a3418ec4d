#!/usr/bin/env bash
# ttsim sweep --jobs: points per second on one core against N (default:
# every core online), measured in one run, side by side.  Not a test: it
# prints figures for bench/RESULTS.md.
#
#   bash bench/jobs-speed.sh [N]       about a minute on 2 idle cores
#
# The sweep: 3DT 8x8x8 (1,024 PEs), configurations A, D and G, loads 0.1 to
# 0.4, fixed windows, no refinement: 12 points of similar weight.  The two
# CSVs must be the same bytes.  Other programs on the machine take cores
# from the workers: the load average is printed before and after, and a
# figure taken with the load above 1 (other work running) says little.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/jobs-speed.sh: build $T first (make)" >&2; exit 2; }
N=${1:-$(nproc)}
tmp=$(mktemp -d /tmp/ttsim-jobs-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2054  # commas in flag values
SWEEP=(sweep --topo 8x8x8 --ports A,D,G --loads 0.1,0.2,0.3,0.4
    --warmup 2000 --measure 20000 --drain 0 --refine 0 --csv)
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# timed JOBS: "wall-seconds cpu-seconds" of the sweep (its workers'
# included), its CSV in $tmp/JOBS.csv
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "$T" "${SWEEP[@]}" --jobs "$1" >"$tmp/$1.csv"
	awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$tmp/$1.time"
}

echo "$("$T" --version 2>/dev/null | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
echo "ttsim ${SWEEP[*]}"
l0=$(loadavg)
s1=$(timed 1)
sn=$(timed "$N")
l1=$(loadavg)
points=$(($(wc -l <"$tmp/1.csv") - 1))
if cmp -s "$tmp/1.csv" "$tmp/$N.csv"; then same="identical"; else same="DIFFERENT"; fi
# cores busy = CPU seconds / wall seconds: what the sweep got of the
# machine (2.0 on 2 idle cores with --jobs 2)
awk -v p="$points" -v a="$s1" -v b="$sn" -v n="$N" -v s="$same" -v l0="$l0" -v l1="$l1" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	printf "| jobs | points | wall s | CPU s | cores busy | points/s |\n|---:|---:|---:|---:|---:|---:|\n"
	printf "| 1 | %d | %.2f | %.2f | %.2f | %.3f |\n", p, x[1], x[2], x[2] / x[1], p / x[1]
	printf "| %d | %d | %.2f | %.2f | %.2f | %.3f |\n", n, p, y[1], y[2], y[2] / y[1], p / y[1]
	printf "speed-up %.2fx with --jobs %d; CSVs %s; load average before %s, after %s\n",
	    x[1] / y[1], n, s, l0, l1
}'
[ "$same" = identical ]
