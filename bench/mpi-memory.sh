#!/usr/bin/env bash
# Memory per rank for a slab-partitioned run (issue: distributed simulation).
# Not a test: it prints the tables for bench/RESULTS.md.
#
# 1. Measured: the peak RSS of a short serial run (one rank holds every
#    switch) beside `ttsim run --dry-run`, for 3DT 8x8x8 .. 32x32x32.
#    `--model` skips this part (about 2 minutes).
# 2. From the model: `ttsim run --dry-run --ranks N --json` for networks up
#    to 3DT 64x64x64 (524,288 PEs), N = 1 .. 64.  The model is the engine's
#    own allocation sizes (tt_sim_memory()), checked against the heap in
#    tests/unit/test_sim.c; a slab's share counts its switches, not the
#    boundary exchange of a partitioned run.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/mpi-memory.sh: build $T first (make)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench/mpi-memory.sh: needs /usr/bin/time (make deps)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ttsim-mem.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# --model: the model table only (seconds)
if [ "${1:-}" != "--model" ]; then
echo "## measured: one rank (serial), ports D, vc, 200 cycles at load 0.1"
echo
echo "| network | PEs | --dry-run | peak RSS |"
echo "|---|---|---|---|"
for k in 8 16 32; do
	dims=$k,$k,$k
	dry=$("$T" run --dims "$dims" --ports D --dry-run --json | jq -r .bytes_total)
	/usr/bin/time -f %M -o "$tmp/rss" "$T" run --dims "$dims" --ports D \
	    --warmup 100 --measure 100 --drain 2000 --load 0.1 --json >/dev/null
	echo "| 3DT $k^3 | $((k * k * k * 2)) | $(mib "$dry") MiB | $(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/rss") MiB |"
done
echo
fi
echo "## model: MiB per rank (largest slab), ports D, vc"
echo
printf '| network | PEs |'
RANKS=(1 2 4 8 16 32 64)
for n in "${RANKS[@]}"; do printf ' %s |' "$n"; done
printf '\n|---|---|'
for n in "${RANKS[@]}"; do printf -- '---|'; done
echo
for k in 16 32 48 64; do
	printf '| 3DT %sx%sx%s | %s |' "$k" "$k" "$k" "$((k * k * k * 2))"
	for n in "${RANKS[@]}"; do
		if [ "$n" -gt "$k" ]; then printf ' - |'; continue; fi
		b=$("$T" run --dims "$k,$k,$k" --ports D --dry-run --ranks "$n" --json | jq -r .bytes_per_rank)
		printf ' %s |' "$(mib "$b")"
	done
	echo
done
