#!/usr/bin/env bash
# Causal replay against ground truth (bench/causal/README.md).  For every
# motif of ttsim app, with its default parameters:
#   1. run it on 3DT 4x4x4 D at 10 Gb/s with --record (node clocks offset
#      by up to 0.5 ms, as ttd's would be) and --deps-out (its true
#      dependencies); and again with --clock-skew 0 (synchronised clocks);
#   2. infer its dependencies from the recording and score them against
#      the true ones (precision and recall of the predecessors);
#   3. on five networks -- the same one, configuration A, the 2D torus 16x8,
#      D at 2.5 Gb/s and D at 40 Gb/s -- run it directly (the truth) and
#      predict it from the recording: causal replay with the inferred
#      dependencies, causal replay with the true ones, open-loop replay of
#      the recording, open-loop replay of the synchronised recording;
#   4. measure the model's own noise: the direct run again with every
#      compute time 1 ns longer.
# Prints a markdown table (errors in % of the direct run's makespan) and
# writes every figure to bench/causal/results/ground-truth.csv.
#
#   bash bench/causal/run.sh            all (about 10 minutes on 2 cores)
#   bash bench/causal/run.sh --quick    fewer iterations (about 2 minutes)
# shellcheck disable=SC2054  # commas in flag values
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/causal/run.sh: build $T first (make)" >&2; exit 2; }
quick=0
[ "${1:-}" = "--quick" ] && quick=1
tmp=$(mktemp -d /tmp/ttsim-causal-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p bench/causal/results
csv=bench/causal/results/ground-truth.csv
[ $quick -eq 1 ] && csv=$tmp/ground-truth.csv

REC=(--dims 4,4,4 --ports D)
NETS=("D:--dims 4,4,4 --ports D" "A:--dims 4,4,4 --ports A"
    "2D 16x8:--dims 16,8 --plain" "D 2.5G:--dims 4,4,4 --ports D --link-gbps 2.5"
    "D 40G:--dims 4,4,4 --ports D --link-gbps 40")
MOTIFS=(halo3d sweep3d allreduce alltoall incast pingpong)
declare -A QUICK=([halo3d]=4 [sweep3d]=4 [allreduce]=1 [alltoall]=2
    [incast]=4 [pingpong]=10)

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", (a - b) / b * 100 }'; }
span() { jq -r '.networks[0].makespan_s'; }

echo "date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $T"
echo "recorded on 3DT 4x4x4 D at 10 Gb/s, node clocks offset by up to 0.5 ms"
echo
echo "motif,network,direct_s,noise_pct,causal_s,causal_pct,causal_true_pct,open_s,open_pct,open_sync_pct" >"$csv"
printf '| motif | precision | recall | network | direct (ms) | noise | causal | causal, true deps | open loop | open loop, synced clocks |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for m in "${MOTIFS[@]}"; do
	args=()
	[ $quick -eq 1 ] && args=(--iterations "${QUICK[$m]}")
	comp=$("$T" app "$m" --help-defaults | sed -n 's/.*--compute-ns \([0-9.e+]*\).*/\1/p')
	"$T" app "$m" "${REC[@]}" "${args[@]}" --record "$tmp/$m" \
	    --deps-out "$tmp/$m.true" >/dev/null
	"$T" app "$m" "${REC[@]}" "${args[@]}" --record "$tmp/$m.sync" \
	    --clock-skew 0 >/dev/null
	"$T" trace infer "$tmp/$m" "${REC[@]}" -o "$tmp/$m.deps" \
	    --score "$tmp/$m.true" --json >"$tmp/$m.score"
	read -r prec rec < <(jq -r '"\(.score.precision) \(.score.recall)"' "$tmp/$m.score")
	first=1
	for net in "${NETS[@]}"; do
		name=${net%%:*}
		read -r -a flags <<<"${net#*:}"
		a=$("$T" app "$m" "${flags[@]}" "${args[@]}" --json | jq .makespan_s)
		a1=$("$T" app "$m" "${flags[@]}" "${args[@]}" --compute-ns \
		    "$(awk -v c="$comp" 'BEGIN { print c + 1 }')" --json | jq .makespan_s)
		c=$("$T" replay "$tmp/$m" "${flags[@]}" --causal --deps "$tmp/$m.deps" --json | span)
		ct=$("$T" replay "$tmp/$m" "${flags[@]}" --causal --deps "$tmp/$m.true" --json | span)
		o=$("$T" replay "$tmp/$m" "${flags[@]}" --json | span)
		os=$("$T" replay "$tmp/$m.sync" "${flags[@]}" --json | span)
		echo "$m,$name,$a,$(pct "$a1" "$a"),$c,$(pct "$c" "$a"),$(pct "$ct" "$a"),$o,$(pct "$o" "$a"),$(pct "$os" "$a")" >>"$csv"
		if [ $first -eq 1 ]; then
			printf '| %s | %.4f | %.4f ' "$m" "$prec" "$rec"
			first=0
		else
			printf '| | | '
		fi
		printf '| %s | %.4f | %s%% | %s%% | %s%% | %s%% | %s%% |\n' "$name" \
		    "$(awk -v a="$a" 'BEGIN { print a * 1000 }')" "$(pct "$a1" "$a")" \
		    "$(pct "$c" "$a")" "$(pct "$ct" "$a")" "$(pct "$o" "$a")" "$(pct "$os" "$a")"
	done
done
echo
awk -F, 'NR > 1 {
	n++; c = $6 < 0 ? -$6 : $6; o = $9 < 0 ? -$9 : $9; s = $10 < 0 ? -$10 : $10
	sc += c; so += o; ss += s; if (c > mc) mc = c
	if (c > 5) miss++; if (o >= 30) o30++
} END {
	printf "causal: mean |error| %.2f%%, largest %.2f%%, %d of %d over 5%%\n", sc / n, mc, miss, n
	printf "open loop: mean |error| %.2f%% (%.2f%% with synchronised clocks), %d of %d off by 30%% or more\n", so / n, ss / n, o30, n
}' "$csv"
[ $quick -eq 0 ] && echo "figures: $csv"
