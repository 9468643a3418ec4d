#!/usr/bin/env bash
# Benchmark: loading big YAML cluster files (not a test; never timed in make
# check).  Generates, in a temporary directory:
#   - a valid cluster of 65,536 nodes (3DT 64x32x32, D, both cards of every
#     node mapped: 16 MB), checked with `ttd check`;
#   - 1,000 copies of one node, which give 1,998 errors (a repeated host and
#     a repeated coordinate each), loaded with `ttsim analyze`: the lines
#     printed are counted too.
# Each runs three times; best wall time and peak RSS are printed as Markdown
# table rows for bench/RESULTS.md.
#
#   bash bench/config-load.sh          (after make)
set -euo pipefail
cd "$(dirname "$0")/.."
TTSIM=${TTSIM:-build/ttsim}
TTD=${TTD:-build/ttd}
for b in "$TTSIM" "$TTD"; do
	[ -x "$b" ] || { echo "bench/config-load.sh: build first (make)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/tt-config-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

awk 'BEGIN {
	print "torus: {dims: [64, 32, 32], ports: D}"
	print "pes: {subnet: 10.0.0.0/14}"
	print "nodes:"
	for (z = 0; z < 32; z++) for (y = 0; y < 32; y++) for (x = 0; x < 64; x++) {
		printf "  - host: n%05d\n    coord: [%d, %d, %d]\n    cards:\n", x + 64 * (y + 32 * z), x, y, z
		print "      - { pci: \"0000:03:00.0\", ports: { ens1f0: X+, ens1f1: X-, ens1f2: Y+, ens1f3: internal } }"
		print "      - { pci: \"0000:04:00.0\", ports: { ens2f0: Y-, ens2f1: Z+, ens2f2: Z-, ens2f3: internal } }"
	}
}' >"$tmp/cluster-65536.yaml"
awk 'BEGIN { print "torus: {dims: [4, 4, 4]}"; print "nodes:"
	for (i = 0; i < 1000; i++) print "  - {host: n0, coord: [0, 0, 0]}" }' >"$tmp/same-node-1000.yaml"

# run WANT_STATUS CMD...: best of three, peak RSS, lines on stderr
run() {
	local want=$1 best="" rss=0 t r st lines out
	shift
	out=$(mktemp)
	for _ in 1 2 3; do
		set +e
		/usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null 2>"$tmp/err"
		st=$?
		set -e
		[ "$st" -eq "$want" ] || { echo "bench: $* exited $st, not $want" >&2; exit 1; }
		read -r t r < <(tail -1 "$out")
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	lines=$(wc -l <"$tmp/err")
	rm -f "$out"
	printf '| %s | `%s` | %s s | %d KiB | %d |\n' "$(date +%F)" "${*/$tmp\//}" "$best" "$rss" "$lines"
}

echo "| date | command | best of 3 (wall) | peak RSS | lines on stderr |"
echo "|---|---|---|---|---|"
run 0 "$TTD" check -c "$tmp/cluster-65536.yaml"
run 2 "$TTSIM" analyze "$tmp/same-node-1000.yaml"
