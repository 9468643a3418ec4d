#!/usr/bin/env bash
# Memory per rank of a partitioned run.
# Not a test: it prints the tables for bench/RESULTS.md.
#
# 1. Measured: the peak RSS of every rank of a short mpirun -np N run
#    (N = 1, 2, 4; GNU time around each rank) beside `ttsim run --dry-run
#    --ranks N`, for 3DT 8x8x8 .. 32x32x32.  `--model` skips this part
#    (a few minutes).
# 2. From the model: `ttsim run --dry-run --ranks N --json` for networks up
#    to 3DT 64x64x64 (524,288 PEs), N = 1 .. 64.  The model is the engine's
#    own allocation sizes (tt_sim_memory_part()), checked against the heap
#    in tests/unit/test_sim.c, with the boundary buffers of the part.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/mpi-memory.sh: build $T first (make)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench/mpi-memory.sh: needs /usr/bin/time (make deps)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ttsim-mem.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
MPIRUN=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)

# --model: the model table only (seconds)
if [ "${1:-}" != "--model" ]; then
ldd "$T" | grep -q libmpi || { echo "bench/mpi-memory.sh: $T is built without Open MPI" >&2; exit 2; }
echo "## measured: peak RSS of the largest rank, ports D, vc, 200 cycles at load 0.1"
echo
echo "| network | PEs | ranks | --dry-run per rank | peak RSS per rank |"
echo "|---|---|---|---|---|"
for k in 8 16 32; do
	dims=$k,$k,$k
	for n in 1 2 4; do
		dry=$("$T" run --dims "$dims" --ports D --dry-run --ranks "$n" --json | jq -r .bytes_per_rank)
		rm -f "$tmp"/rss.*
		# shellcheck disable=SC2016  # expanded by each rank's shell
		"${MPIRUN[@]}" -np "$n" sh -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
		    "$tmp/rss" "$T" run --dims "$dims" --ports D --warmup 100 --measure 100 \
		    --drain 2000 --load 0.1 --json >/dev/null
		rss=$(cat "$tmp"/rss.* | sort -n | tail -1)
		echo "| 3DT $k^3 | $((k * k * k * 2)) | $n | $(mib "$dry") MiB | $(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }') MiB |"
	done
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
		b=$("$T" run --dims "$k,$k,$k" --ports D --dry-run --ranks "$n" --json | jq -r .bytes_per_rank)
		printf ' %s |' "$(mib "$b")"
	done
	echo
done
