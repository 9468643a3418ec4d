#!/usr/bin/env bash
# Inference and causal replay of a 1,000,000-message trace: time and peak
# memory (bench/causal/README.md).  Not a test: it prints figures for
# bench/RESULTS.md.  The requirement: the time is the simulation's, and
# memory holds what is in flight and the dependency window, not the trace.
#
#   bash bench/causal/speed.sh           about 5 minutes on 2 cores
#   bash bench/causal/speed.sh --quick   a quarter of the messages
#
# Traces are recordings of ttsim app alltoall on 3DT 4x4x4 D at 10 Gb/s
# (16,256 messages an iteration, node clocks offset by up to 0.5 ms):
#   A. 2 KiB messages (32 packets), 50 us of compute a round: 62 rounds,
#      1,007,872 messages, and 16 rounds (260,096) to see memory stay flat;
#   B. 64-byte messages (one packet), 2 us of compute: the same count with
#      the least simulation per message, the worst case for the share of
#      time spent on dependencies.
# For each: the direct run with --record (the simulation alone, nearly),
# ttsim trace infer, ttsim replay --causal --deps (the file), ttsim replay
# --causal (inferring on the fly), and open-loop replay; wall time (best of
# 2 for the trace runs), user time, peak RSS (/usr/bin/time %M).
# shellcheck disable=SC2054  # commas in flag values
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/causal/speed.sh: build $T first (make)" >&2; exit 2; }
quick=0
[ "${1:-}" = "--quick" ] && quick=1
tmp=$(mktemp -d /tmp/ttsim-causal-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
NET=(--dims 4,4,4 --ports D)

# measure LABEL CMD...: best wall of 2, its user time, the peak RSS
measure() {
	local label=$1 best="" w u r; shift
	for _ in 1 2; do
		/usr/bin/time -f '%e %U %M' -o "$tmp/time" "${pin[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
		read -r w u r <"$tmp/time"
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w; bu=$u; br=$r
			cp "$tmp/out" "$tmp/best"
		fi
	done
	printf '  %-34s %7.2f s wall %7.2f s user %7.1f MiB\n' "$label" "$best" "$bu" \
	    "$(awk -v r="$br" 'BEGIN { print r / 1024 }')"
}

# case NAME ROUNDS BYTES COMPUTE_NS
case_run() {
	local name=$1 rounds=$2 bytes=$3 comp=$4 msgs
	[ $quick -eq 1 ] && rounds=$((rounds / 4))
	echo "== $name: alltoall, $rounds rounds of $bytes-byte messages, $comp ns compute"
	/usr/bin/time -f '%e %U %M' -o "$tmp/time" "${pin[@]}" "$T" app alltoall "${NET[@]}" \
	    --iterations "$rounds" --bytes "$bytes" --compute-ns "$comp" \
	    --record "$tmp/$name" --json >"$tmp/$name.json"
	read -r w u r <"$tmp/time"
	msgs=$(jq .messages "$tmp/$name.json")
	printf '  %-34s %7.2f s wall %7.2f s user %7.1f MiB  (%d messages, %s of trace)\n' \
	    "ttsim app --record" "$w" "$u" "$(awk -v r="$r" 'BEGIN { print r / 1024 }')" \
	    "$msgs" "$(du -sh "$tmp/$name" | cut -f1)"
	measure "ttsim trace infer" "$T" trace infer "$tmp/$name" "${NET[@]}" -o "$tmp/$name.deps"
	measure "ttsim replay --causal --deps FILE" "$T" replay "$tmp/$name" "${NET[@]}" \
	    --causal --deps "$tmp/$name.deps" --json
	jq -r '"    makespan \(.networks[0].makespan_s) s (direct run: '"$(jq .makespan_s "$tmp/$name.json")"' s), simulated in \(.networks[0].wall_s) s, most held \(.networks[0].max_pending)"' "$tmp/best"
	measure "ttsim replay --causal (inferring)" "$T" replay "$tmp/$name" "${NET[@]}" --causal --json
	jq -r '"    simulated in \(.networks[0].wall_s) s of that"' "$tmp/best"
	measure "ttsim replay (open loop)" "$T" replay "$tmp/$name" "${NET[@]}" --json
	rm -rf "${tmp:?}/$name" "$tmp/$name.deps"
}

echo "date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores"
case_run A 62 2048 50000
[ $quick -eq 0 ] && case_run A-quarter 16 2048 50000
case_run B 62 64 2000
