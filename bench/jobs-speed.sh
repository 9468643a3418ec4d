#!/usr/bin/env bash
# ttsim sweep --jobs: points per second on one core against N (default:
# every core online), measured side by side.  Not a test: it prints
# figures for bench/RESULTS.md.
#
#   bash bench/jobs-speed.sh [--knee] [--runs R] [N]
#
# The sweep: 3DT 8x8x8 (1,024 PEs), configurations A, D and G, loads 0.1 to
# 0.4, fixed windows, no refinement: 12 points of similar weight (about a
# minute on 2 idle cores).  --knee: configurations D and A, loads 0.05 to
# 0.2, where A saturates and its knee is refined (sweep --refine, the
# default 0.01): the grid's 8 points and the rounds across the knee.
# --runs R: R runs each way, alternated (--jobs 1, --jobs N, --jobs 1,
# ...), each run's figures, then the medians of the wall times and their
# ratio.  Every CSV must be the same bytes.  Other programs on the machine
# take cores from the workers: the load average is printed before and
# after, and a figure taken with the load above 1 (other work running)
# says little.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/jobs-speed.sh: build $T first (make)" >&2; exit 2; }
knee=0
runs=1
N=
while [ $# -gt 0 ]; do
	case $1 in
	--knee) knee=1 ;;
	--runs)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "bench/jobs-speed.sh: --runs needs a count of runs, 1 or more" >&2; exit 2; }
		runs=$2
		shift ;;
	[1-9]*) N=$1 ;;
	*) echo "usage: bash bench/jobs-speed.sh [--knee] [--runs R] [N]" >&2; exit 2 ;;
	esac
	shift
done
N=${N:-$(nproc)}
tmp=$(mktemp -d /tmp/ttsim-jobs-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2054  # commas in flag values
if [ $knee = 1 ]; then
	SWEEP=(sweep --dims 8,8,8 --ports D,A --deadlock vc --loads 0.05,0.1,0.15,0.2
	    --measure 20000 --csv)
else
	SWEEP=(sweep --topo 8x8x8 --ports A,D,G --loads 0.1,0.2,0.3,0.4
	    --warmup 2000 --measure 20000 --drain 0 --refine 0 --csv)
fi
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# timed JOBS RUN: "wall-seconds cpu-seconds" of the sweep (its workers'
# included), its CSV in $tmp/JOBS-RUN.csv
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "$T" "${SWEEP[@]}" --jobs "$1" >"$tmp/$1-$2.csv"
	awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$tmp/$1.time"
}

echo "$("$T" --version 2>/dev/null | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
echo "ttsim ${SWEEP[*]}"
# cores busy = CPU seconds / wall seconds: what the sweep got of the
# machine (2.0 on 2 idle cores with --jobs 2)
printf '| run | jobs | points | wall s | CPU s | cores busy | points/s | load average before |\n|---:|---:|---:|---:|---:|---:|---:|---|\n'
same=identical
walls1='' wallsn=''
for r in $(seq 1 "$runs"); do
	for j in 1 "$N"; do
		l=$(loadavg)
		s=$(timed "$j" "$r")
		points=$(($(wc -l <"$tmp/$j-$r.csv") - 1))
		cmp -s "$tmp/1-1.csv" "$tmp/$j-$r.csv" || same=DIFFERENT
		awk -v r="$r" -v j="$j" -v p="$points" -v s="$s" -v l="$l" 'BEGIN {
			split(s, x, " ")
			printf "| %d | %d | %d | %.2f | %.2f | %.2f | %.3f | %s |\n", r, j, p, x[1], x[2], x[2] / x[1], p / x[1], l
		}'
		if [ "$j" = 1 ]; then walls1="$walls1 ${s%% *}"; else wallsn="$wallsn ${s%% *}"; fi
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m1=$(median <<<"$walls1")
mn=$(median <<<"$wallsn")
awk -v a="$m1" -v b="$mn" -v n="$N" -v s="$same" -v l="$(loadavg)" -v r="$runs" 'BEGIN {
	printf "median wall %.2f s with --jobs 1, %.2f s with --jobs %d (%d runs each): speed-up %.2fx; CSVs %s; load average after %s\n",
	    a, b, n, r, a / b, s, l
}'
[ "$same" = identical ]
