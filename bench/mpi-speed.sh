#!/usr/bin/env bash
# Speed-up of a partitioned ttsim run.  Not
# a test: it prints figures for bench/RESULTS.md.
#
#   bash bench/mpi-speed.sh            3DT 16x16x16 and 32x32x32
#   bash bench/mpi-speed.sh --quick    16x16x16 only, shorter
#
# For each network: the serial ttsim, then mpirun -np 1 and -np 2 (two
# ranks on this machine's two cores), uniform traffic, configuration D,
# vc.  The figure is the engine's own "speed" line (simulated cycles over
# the seconds of the run loop, building the switches excluded), median of
# 3 runs; peak RSS per process from /usr/bin/time.  Every run's JSON is
# also compared with the serial one: a speed-up that changed the result
# would not count.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
quick=0
[ "${1:-}" = "--quick" ] && quick=1
[ -x "$T" ] || { echo "bench/mpi-speed.sh: build $T first (make)" >&2; exit 2; }
ldd "$T" | grep -q libmpi || { echo "bench/mpi-speed.sh: $T is built without Open MPI (make deps; make)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "bench/mpi-speed.sh: no mpirun (make deps)" >&2; exit 2; }
MPIRUN=(mpirun --oversubscribe --bind-to core)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
tmp=$(mktemp -d /tmp/ttsim-mpi-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# one LABEL CMD...: median cycles/s of 3 runs, max RSS, and the JSON
one() {
	local label=$1 i; shift
	for i in 1 2 3; do
		/usr/bin/time -f '%M' -o "$tmp/rss.$i" "$@" >"$tmp/out.$i" 2>"$tmp/err.$i" ||
		    { echo "$label: failed" >&2; cat "$tmp/err.$i" >&2; exit 1; }
		[ "$i" = 1 ] && { "$@" --json 2>/dev/null | jq -c . >"$tmp/json.$label" || true; }
		awk '/^  speed/ {print $2}' "$tmp/out.$i"
	done | sort -n | sed -n 2p >"$tmp/cps.$label"
	# /usr/bin/time around mpirun reports the largest child's RSS
	sort -n "$tmp"/rss.* | tail -1 >"$tmp/rss.$label"
}

net() {
	local dims=$1 load=$2 warm=$3 meas=$4 args s1 r1 r2
	args=(run --dims "$dims" --ports D --load "$load" --warmup "$warm" --measure "$meas" --drain 0)
	echo "== 3DT ${dims//,/x}, load $load, $warm + $meas cycles"
	echo "   command: ttsim ${args[*]}"
	one serial "$T" "${args[@]}"
	one np1 "${MPIRUN[@]}" -np 1 "$T" "${args[@]}"
	one np2 "${MPIRUN[@]}" -np 2 "$T" "${args[@]}"
	s1=$(cat "$tmp/cps.serial"); r1=$(cat "$tmp/cps.np1"); r2=$(cat "$tmp/cps.np2")
	for k in np1 np2; do
		cmp -s "$tmp/json.serial" "$tmp/json.$k" || { echo "   $k: JSON differs from the serial run" >&2; exit 1; }
	done
	printf '   serial: %s cycles/s, %s MiB\n' "$s1" "$(( $(cat "$tmp/rss.serial") / 1024 ))"
	printf '   1 rank: %s cycles/s, %s MiB\n' "$r1" "$(( $(cat "$tmp/rss.np1") / 1024 ))"
	printf '   2 ranks: %s cycles/s, %s MiB per rank; speed-up %.2fx over 1 rank, %.2fx over serial\n' \
	    "$r2" "$(( $(cat "$tmp/rss.np2") / 1024 ))" \
	    "$(awk -v a="$r2" -v b="$r1" 'BEGIN {print a / b}')" \
	    "$(awk -v a="$r2" -v b="$s1" 'BEGIN {print a / b}')"
	echo "   JSON identical to the serial run: yes"
}

if [ $quick -eq 1 ]; then
	net 16,16,16 0.1 200 800
else
	net 16,16,16 0.1 1000 4000
	net 32,32,32 0.05 300 700
fi
