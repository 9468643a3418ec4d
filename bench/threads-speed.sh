#!/usr/bin/env bash
# ttsim run on threads against one thread.  Not a test: it prints figures
# for bench/RESULTS.md.
#
#   bash bench/threads-speed.sh            both parts (about 2 minutes)
#   bash bench/threads-speed.sh --rate     only part 1
#
# 1. The large-network rate as a user runs it (unpinned, the default
#    threads): flit-router traversals per second of the whole command's
#    wall time for
#      ttsim run --dims 8,8,8 --plain --warmup 1000 --measure 100000 --load 0.05 --seed 1 --json
#      ttsim run --dims 32,32,32 --ports D --warmup 200 --measure 400 --drain 0 --load 0.05 --seed 1 --json
#    three rounds alternated, each with the load average and the peak RSS
#    (per PE for 32x32x32).
# 2. --threads 1 against --threads 2 on 3DT D from 8x8x8 to 32x32x32, at
#    loads 0.05 and 0.3: the wall time of each whole command, three rounds
#    alternated, their median speed-up; the JSON of each pair compared
#    (wall_s left out), a difference reported.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/threads-speed.sh: build $T first (make)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/threads-speed.sh: needs jq" >&2; exit 2; }
rate_only=0
[ "${1:-}" = "--rate" ] && rate_only=1
tmp=$(mktemp -d /tmp/ttsim-threads.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }

# timed NAME ARGS...: runs ttsim ARGS; leaves the JSON in $tmp/NAME.json
# and prints "WALL RSS_KB USER_S"
timed() {
	local name=$1 t0 t1
	shift
	t0=$(now)
	/usr/bin/time -f '%M %U' -o "$tmp/$name.time" "$T" "$@" >"$tmp/$name.json"
	t1=$(now)
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') $(cat "$tmp/$name.time")"
}

echo "== 1. the rate of 32x32x32 against 8x8x8, as run by default ($(nproc) cores; $T)"
# shellcheck disable=SC2054  # commas in flag values
S=(run --dims 8,8,8 --plain --warmup 1000 --measure 100000 --load 0.05 --seed 1 --json)
# shellcheck disable=SC2054
L=(run --dims 32,32,32 --ports D --warmup 200 --measure 400 --drain 0 --load 0.05 --seed 1 --json)
for r in 1 2 3; do
	l1=$(load)
	read -r w8 _ _ < <(timed small "${S[@]}")
	l2=$(load)
	read -r w32 rss u32 < <(timed large "${L[@]}")
	t8=$(jq .flit_router_traversals "$tmp/small.json")
	t32=$(jq .flit_router_traversals "$tmp/large.json")
	awk -v r="$r" -v l1="$l1" -v l2="$l2" -v w8="$w8" -v w32="$w32" \
	    -v t8="$t8" -v t32="$t32" -v rss="$rss" -v u="$u32" 'BEGIN {
		printf "   round %d: 8x8x8 %.3f s (load %s), 32x32x32 %.3f s (load %s, user %.2f s, peak RSS %d KB, %.3f KiB per PE); rate ratio %.3f\n",
		    r, w8, l1, w32, l2, u, rss, rss / 65536, (t32 / w32) / (t8 / w8) }'
done
[ $rate_only -eq 1 ] && exit 0

echo "== 2. --threads 1 against --threads 2, 3DT D (wall time of the command, 3 rounds alternated)"
for load in 0.05 0.3; do
	for k in 8 12 16 24 32; do
		args=(--dims "$k,$k,$k" --ports D --load "$load" --warmup 200 --measure 400 --drain 0 --seed 1 --json)
		# shellcheck disable=SC2054
		[ "$k" = 8 ] && args=(--dims 8,8,8 --ports D --load "$load" --warmup 1000 --measure 20000 --drain 0 --seed 1 --json)
		: >"$tmp/w1"
		: >"$tmp/w2"
		for r in 1 2 3; do
			for th in 1 2; do
				read -r w _ _ < <(timed "t$th" run --threads "$th" "${args[@]}")
				echo "$w" >>"$tmp/w$th"
			done
			cmp -s <(jq -S 'del(.wall_s)' "$tmp/t1.json") <(jq -S 'del(.wall_s)' "$tmp/t2.json") ||
			    echo "   DIFFERENT JSON: ${k}^3 at $load, round $r"
		done
		a=$(sort -g "$tmp/w1" | sed -n 2p)
		b=$(sort -g "$tmp/w2" | sed -n 2p)
		printf '   %s^3 D at %s: 1 thread %s s, 2 threads %s s; median speed-up %.2f (load %s)\n' \
		    "$k" "$load" "$(sort -g "$tmp/w1" | tr '\n' ' ' | sed 's/ $//')" \
		    "$(sort -g "$tmp/w2" | tr '\n' ' ' | sed 's/ $//')" \
		    "$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')" "$(load)"
	done
done
