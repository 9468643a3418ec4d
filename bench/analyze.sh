#!/usr/bin/env bash
# Benchmark: the speed targets of the analysis (not a test; never timed in
# make check).  Each command runs three times; the best wall time and the
# peak RSS are printed as Markdown table rows for bench/RESULTS.md.
#
#   bash bench/analyze.sh            (after make; --quick skips the 5DT sweeps)
set -euo pipefail
cd "$(dirname "$0")/.."
TTSIM=${TTSIM:-build/ttsim}
[ -x "$TTSIM" ] || { echo "bench/analyze.sh: build first (make)" >&2; exit 2; }

run() {
	local best="" rss=0 t r out
	out=$(mktemp)
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null || { echo "bench: $* failed" >&2; exit 1; }
		read -r t r < "$out"
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	rm -f "$out"
	printf '| %s | `%s` | %s s | %d KiB |\n' "$(date +%F)" "$*" "$best" "$rss"
}

# once CMD...: a long check, run a single time; the exit status must be 0.
once() {
	local out t r
	out=$(mktemp)
	/usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null || { echo "bench: $* failed" >&2; exit 1; }
	read -r t r < "$out"
	rm -f "$out"
	printf '| %s | `%s` | %s s (once) | %d KiB |\n' "$(date +%F)" "$*" "$t" "$r"
}

echo "| date | command | best of 3 (wall) | peak RSS |"
echo "|---|---|---|---|"
run "$TTSIM" analyze --dims 8,8,8 --ports all
run "$TTSIM" verify --dims 8,8,8 --ports D --deadlock vc
run "$TTSIM" verify --dims 8,8,8 --ports all --deadlock bubble
run "$TTSIM" analyze --dims 5,5,5,5 --ports all
# The seeds' hierarchical networks (target: under a minute each):
# 3D-TESH(2,3,0), 16,384 nodes, and MH3DT(4,4,2,2), 4,096 nodes, whole.
run "$TTSIM" analyze --topology tesh:m=2,L=3,q=0
run "$TTSIM" verify --topology tesh:m=2,L=3,q=0
run "$TTSIM" analyze --topology mh3dt:m=4,n=4,L=2,q=2
run "$TTSIM" verify --topology mh3dt:m=4,n=4,L=2,q=2
# Not timing targets: every 5DT configuration verified under both schemes
# (the README's claim about the per-run type-1 VCs).  The k = 4 runs take a
# minute or two each.
[ "${1:-}" = "--quick" ] && exit 0
once "$TTSIM" verify --dims 3,3,3,3,3 --ports all --deadlock vc
once "$TTSIM" verify --dims 3,3,3,3,3 --ports all --deadlock bubble
once "$TTSIM" verify --dims 4,4,4,4,4 --ports all --deadlock vc
once "$TTSIM" verify --dims 4,4,4,4,4 --ports all --deadlock bubble
