#!/usr/bin/env bash
# Simulator speed.  Not a test: it
# prints figures for bench/RESULTS.md.
#
#   bash bench/sim-speed.sh            all of it (about 8 minutes)
#   bash bench/sim-speed.sh --quick    shorter windows, no 32x32x32
#   bash bench/sim-speed.sh --sizes    only part 4
#   BASE=path/to/ttsim bash bench/sim-speed.sh ...
#                                      part 4 for that build too, beside
#                                      this one, in the same run
#
# 1. Plain 3D torus 8x8x8, 4 VCs x 32 flits, 4-flit packets, uniform
#    traffic at 0.3 and 0.1 flits/cycle/node: simulated cycles per second
#    and flit-router traversals per second, median of 3 runs, on one core.
# 2. Instructions per flit-router traversal from valgrind --tool=callgrind,
#    as the difference between two runs that differ only in the length of
#    the measurement window, so start-up and output cancel out.
# 3. 3DT 32x32x32 (65,536 PEs), configuration D: cycles per second and
#    peak resident memory.
# 4. The same load per PE (0.05) on three sizes: plain 8x8x8 (512 PEs),
#    3DT 16x16x16 D (8,192) and 3DT 32x32x32 D (65,536).  Flit-router
#    traversals per second of the whole command's wall time (set-up and
#    output included) and peak RSS per PE, median of 3 runs each: on one
#    core (taskset), then as a user runs them, on every core (ttsim run
#    takes two threads from 2,048 switches, --threads).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A ir tr
T=${TTSIM:-build/ttsim}
quick=0 sizes=0
[ "${1:-}" = "--quick" ] && quick=1
[ "${1:-}" = "--sizes" ] && sizes=1
B=${BASE:-}
[ -z "$B" ] || [ -x "$B" ] || { echo "bench/sim-speed.sh: BASE=$B is not an executable" >&2; exit 2; }
[ -x "$T" ] || { echo "bench/sim-speed.sh: build $T first (make)" >&2; exit 2; }
# one core: parts 1-3 measure the engine on one core (ttsim run then takes
# one thread); pinning keeps it off a busy one
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
tmp=$(mktemp -d /tmp/ttsim-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

NET=(--dims 8,8,8 --plain --vcs 4 --buffer-flits 128 --packet-flits 4 --traffic uniform)
MEASURE=50000
[ $quick -eq 1 ] && MEASURE=10000

now() { date +%s.%N; }

# speed LOAD: median of 3 runs; prints cycles/s and traversals/s
speed() {
	local load=$1 i t0 t1
	for i in 1 2 3; do
		t0=$(now)
		"${pin[@]}" "$T" run "${NET[@]}" --load "$load" --warmup 2000 \
		    --measure "$MEASURE" --json >"$tmp/run.json"
		t1=$(now)
		jq -r --arg w "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
		    '"\(.cycles / ($w | tonumber)) \(.flit_router_traversals / ($w | tonumber)) \(.cycles) \(.accepted_load) \($w)"' \
		    "$tmp/run.json"
	done | sort -n | sed -n 2p
}

if [ $sizes -eq 0 ]; then
	echo "== plain 8x8x8, 4 VCs x 32 flits, 4-flit packets, uniform (median of 3)"
	echo "   command: ttsim run ${NET[*]} --load L --warmup 2000 --measure $MEASURE"
	for load in 0.3 0.1; do
		read -r cps tps cycles acc wall < <(speed "$load")
		printf '   load %s: %.0f cycles/s, %.3g flit-router traversals/s (%s cycles in %.2f s, accepted %.4f)\n' \
		    "$load" "$cps" "$tps" "$cycles" "$wall" "$acc"
	done

	echo "== instructions per flit-router traversal (callgrind, window 3000 minus window 1000)"
	if command -v valgrind >/dev/null; then
		for load in 0.3 0.1; do
			for m in 1000 3000; do
				valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$m" \
				    "$T" run "${NET[@]}" --load "$load" --warmup 1000 --drain 0 \
				    --measure $m --json >"$tmp/cg.$m.json" 2>"$tmp/cg.$m.err"
				ir[$m]=$(awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg.$m")
				tr[$m]=$(jq .flit_router_traversals "$tmp/cg.$m.json")
			done
			printf '   load %s: %.1f instructions per traversal (%d instructions over %d traversals)\n' \
			    "$load" "$(awk -v a="${ir[1000]}" -v b="${ir[3000]}" -v c="${tr[1000]}" \
			    -v d="${tr[3000]}" 'BEGIN {print (b - a) / (d - c)}')" \
			    "$((ir[3000] - ir[1000]))" "$((tr[3000] - tr[1000]))"
		done
	else
		echo "   valgrind is not installed (apt-get install valgrind); skipped"
	fi

	if [ $quick -eq 0 ]; then
		echo "== 3DT 32x32x32 (65,536 PEs), ports D, vc, uniform at 0.05"
		echo "   command: ttsim run --dims 32,32,32 --ports D --load 0.05 --warmup 1000 --measure 1000"
		t0=$(now)
		/usr/bin/time -f '%M' -o "$tmp/rss" "${pin[@]}" "$T" run --dims 32,32,32 --ports D \
		    --load 0.05 --warmup 1000 --measure 1000 --json >"$tmp/big.json"
		t1=$(now)
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
		jq -r --arg w "$wall" --arg rss "$(cat "$tmp/rss")" \
		    '"   \(.cycles) cycles in \($w | tonumber * 100 | round / 100) s: \(.cycles / ($w | tonumber) | round) cycles/s, \(.flit_router_traversals / ($w | tonumber) / 1e6 | . * 100 | round / 100)M traversals/s; accepted \(.accepted_load) of \(.offered_load); peak RSS \($rss | tonumber / 1024 | round) MiB"' \
		    "$tmp/big.json"
	fi
fi

# size BIN PES ARGS...: median of 3 runs of BIN run ARGS --json, under
# "${on[@]}"; prints traversals/s of the wall time, peak RSS in KiB, and
# the traversals
size() {
	local bin=$1 pes=$2 i t0 t1
	shift 2
	for i in 1 2 3; do
		t0=$(now)
		/usr/bin/time -f '%M' -o "$tmp/rss" "${on[@]}" "$bin" run "$@" \
		    --json >"$tmp/size.json"
		t1=$(now)
		jq -r --arg w "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
		    --arg rss "$(cat "$tmp/rss")" \
		    '"\(.flit_router_traversals / ($w | tonumber)) \($rss) \(.flit_router_traversals) \($w)"' \
		    "$tmp/size.json"
	done | sort -g | sed -n 2p
}

if [ $quick -eq 0 ]; then
	echo "== the same load per PE (0.05) on three sizes: flit-router traversals per second"
	echo "   of the whole command's wall time, peak RSS per PE (median of 3; load: $(cut -d' ' -f1-3 /proc/loadavg))"
	builds=("$T")
	[ -n "$B" ] && builds=("$B" "$T")
	declare -A base8
	for where in "one core" "every core"; do
	on=()
	[ "$where" = "one core" ] && on=("${pin[@]}")
	echo "   on $where:"
	for bin in "${builds[@]}"; do
		for case in "plain 8x8x8|512|--dims 8,8,8 --plain --load 0.05 --warmup 1000 --measure 100000 --seed 1" \
		    "3DT 16x16x16 D|8192|--dims 16,16,16 --ports D --load 0.05 --warmup 200 --measure 400 --drain 0 --seed 1" \
		    "3DT 32x32x32 D|65536|--dims 32,32,32 --ports D --load 0.05 --warmup 200 --measure 400 --drain 0 --seed 1"; do
			IFS='|' read -r name pes args <<<"$case"
			# shellcheck disable=SC2086
			read -r tps rss trav wall < <(size "$bin" "$pes" $args)
			[ "$name" = "plain 8x8x8" ] && base8[$bin]=$tps
			printf '   %s: %-15s %.3g traversals/s (%s in %.2f s), %.3f of 8x8x8; peak RSS %d MiB, %.2f KiB per PE\n' \
			    "$bin" "$name" "$tps" "$trav" "$wall" \
			    "$(awk -v a="$tps" -v b="${base8[$bin]}" 'BEGIN {print a / b}')" \
			    "$((rss / 1024))" "$(awk -v r="$rss" -v p="$pes" 'BEGIN {print r / p}')"
		done
	done
	done
	echo "   commands: ttsim run --dims 8,8,8 --plain --load 0.05 --warmup 1000 --measure 100000 --seed 1"
	echo "             ttsim run --dims K,K,K --ports D --load 0.05 --warmup 200 --measure 400 --drain 0 --seed 1"
fi
