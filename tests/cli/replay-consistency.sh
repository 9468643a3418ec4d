#!/usr/bin/env bash
# Replay agrees with the simulator: a synthetic uniform trace at load L,
# replayed, gives the accepted load and the latency that `ttsim run` gives
# at L, within the confidence intervals.
#
# Both sides are measured alike: warm-up 2000 cycles, window 10000 cycles
# (replay --warmup 2000 on a 12000-cycle trace).  `ttsim run --seeds 5`
# gives a mean and a 95% interval; five traces written with other seeds
# (11..15, so the two sides share no random stream) are replayed one by one
# and give the other mean and interval.  The check: the two means differ
# by no more than the two half-widths together (the intervals overlap).
#
# TTSIM names the binary (default build/ttsim).
. "$(dirname "$0")/lib.sh"

# mean and 95% half-width (Student t, 4 degrees of freedom) of the numbers
# on standard input
mean_ci() {
	awk '{ x[NR] = $1; s += $1 } END {
		m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		printf "%.6f %.6f\n", m, 2.776 * sqrt(v / (NR - 1)) / sqrt(NR) }'
}

# check NAME RUN_MEAN RUN_CI REPLAY_MEAN REPLAY_CI
check() {
	if awk -v a="$2" -v ca="$3" -v b="$4" -v cb="$5" \
	    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= ca + cb) }'; then
		ok "$1: run $2 +- $3, replay $4 +- $5"
	else
		bad "$1: run $2 +- $3, replay $4 +- $5 (the intervals do not overlap)"
	fi
}

net=(--dims 4,4,4 --ports D --deadlock vc)
for load in 0.1 0.3; do
	if ! "$T" run "${net[@]}" --load "$load" --seeds 5 --seed 1 \
	    --warmup 2000 --measure 10000 --json >"$tmp/run.json"; then
		bad "ttsim run at $load"
		continue
	fi
	: >"$tmp/acc"
	: >"$tmp/lat"
	for seed in 11 12 13 14 15; do
		"$T" trace synth "${net[@]}" --app uniform --load "$load" \
		    --cycles 12000 --seed "$seed" -o "$tmp/u.pcap" 2>/dev/null &&
		"$T" replay "$tmp/u.pcap" "${net[@]}" --warmup 2000 --json \
		    >"$tmp/replay.json" || { bad "replay seed $seed"; continue; }
		jq -r '.networks[0].accepted_load' "$tmp/replay.json" >>"$tmp/acc"
		jq -r '.networks[0].latency_cycles.mean' "$tmp/replay.json" >>"$tmp/lat"
	done
	read -r racc racc_ci < <(mean_ci <"$tmp/acc")
	read -r rlat rlat_ci < <(mean_ci <"$tmp/lat")
	check "accepted load at $load" \
	    "$(jq -r .accepted_load "$tmp/run.json")" \
	    "$(jq -r .accepted_load_ci95 "$tmp/run.json")" "$racc" "$racc_ci"
	check "end-to-end latency at $load" \
	    "$(jq -r .avg_e2e_latency "$tmp/run.json")" \
	    "$(jq -r .avg_e2e_latency_ci95 "$tmp/run.json")" "$rlat" "$rlat_ci"
done
finish
