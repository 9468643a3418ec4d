#!/bin/bash
# Predict every recorded application on every configuration from its
# recording on every other one, and compare with what was measured there
# (README.md here).
#
#   bench/predict/predict.sh [--json] [--jobs N] OUT
#
# OUT is record.sh's output.  For each configuration C in OUT:
#
#   1. calibration, from one NetPIPE run (CAL_APP, default netpipe, run1):
#        ttsim trace calibrate OUT/C/netpipe/run1/traces OUT/C/netpipe/run1/cluster.yaml -o OUT/C/model.yaml
#      skipped with a message when `ttsim trace calibrate --help` fails
#      (the command is not in this build);
#   2. for every source S, destination D, application A and run r of S:
#        ttsim replay --causal OUT/S/A/run<r>/traces/*-pe.pcap cluster.yaml --model OUT/D/model.yaml --json
#      .networks[0].makespan_s.  Where replay has no --model (or D has no
#      model.yaml) it runs with --link-gbps of D's tc rate instead (X: the
#      default, ttsim's 10 Gb/s) and says so;
#   3. the prediction for (S -> D, A) is the median over S's runs, beside
#      D's measured median of the trace span (first TCP data segment sent
#      to last delivered: what the causal makespan corresponds to) with
#      its min-max, and the error (predicted / measured - 1).
#
# Prints the table (or --json: one object per row); always writes
# OUT/predict.tsv and OUT/predict.json, and every replay's JSON under
# OUT/replays/.  --jobs N replays N at a time (default 2).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TTSIM=${TTSIM:-$ROOT/build/ttsim}
CAL_APP=${CAL_APP:-netpipe}
JSON=0 JOBS=2 OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--json) JSON=1 ;;
	--jobs) JOBS=$2; shift ;;
	-*) echo "usage: predict.sh [--json] [--jobs N] OUT" >&2; exit 64 ;;
	*) OUT=$1 ;;
	esac
	shift
done
[ -n "$OUT" ] && [ -f "$OUT/runs.tsv" ] || { echo "predict: give record.sh's output directory (OUT/runs.tsv)" >&2; exit 64; }
OUT=$(cd "$OUT" && pwd)
[ -x "$TTSIM" ] || { echo "predict: $TTSIM is not built" >&2; exit 69; }
note() { printf 'predict: %s\n' "$*" >&2; }

CONFIGS=$(for c in X Y Z; do [ -d "$OUT/$c" ] && echo $c; done)
APPS=$(awk -F'\t' 'NR > 1 {print $2}' "$OUT/runs.tsv" | awk '!seen[$0]++')

# ---- 1. calibration ----
HAVE_CAL=0
if "$TTSIM" trace calibrate --help >/dev/null 2>&1; then
	HAVE_CAL=1
else
	note "ttsim trace calibrate is not in this build ($TTSIM trace calibrate --help fails): no calibration, no OUT/C/model.yaml"
fi
HAVE_MODEL=0
if "$TTSIM" replay --help 2>&1 | grep -qE -- '--model( |=|$)'; then
	HAVE_MODEL=1
else
	note "ttsim replay has no --model in this build: every replay runs with --link-gbps of the destination's tc rate instead (X: ttsim's default)"
fi
for c in $CONFIGS; do
	[ $HAVE_CAL = 1 ] || break
	run=$OUT/$c/$CAL_APP/run1
	[ -d "$run/traces" ] || { note "$c: no $CAL_APP/run1 to calibrate from"; continue; }
	if "$TTSIM" trace calibrate "$run/traces" "$run/cluster.yaml" -o "$OUT/$c/model.yaml" \
	    > "$OUT/$c/calibrate.out" 2> "$OUT/$c/calibrate.err"; then
		note "$c: calibrated from $CAL_APP run1: $OUT/$c/model.yaml"
	else
		note "$c: ttsim trace calibrate failed: $(head -2 "$OUT/$c/calibrate.err")"
		rm -f "$OUT/$c/model.yaml"
	fi
done

# The destination's network: --model when there is one, else --link-gbps
# from its tc rate (record.sh's measured file), nothing for X.
net_args() {
	local d=$1 rate m
	if [ $HAVE_MODEL = 1 ] && [ -f "$OUT/$d/model.yaml" ]; then
		echo "--model $OUT/$d/model.yaml"
		return
	fi
	m=$(ls "$OUT/$d"/*/run1/measured 2>/dev/null | head -1)
	rate=$(sed -n 's/^rate=//p' "$m" 2>/dev/null)
	case $rate in
	"") echo "" ;;
	*gbit) echo "--link-gbps ${rate%gbit}" ;;
	*mbit) echo "--link-gbps $(awk -v r="${rate%mbit}" 'BEGIN {print r / 1000}')" ;;
	*kbit) echo "--link-gbps $(awk -v r="${rate%kbit}" 'BEGIN {print r / 1e6}')" ;;
	*) note "$d: rate $rate not understood"; echo "" ;;
	esac
}

# ---- 2. the replays ----
mkdir -p "$OUT/replays"
jobs=$OUT/replays/jobs
: > "$jobs"
for s in $CONFIGS; do
	for d in $CONFIGS; do
		na=$(net_args "$d")
		echo "$d ${na:-(the default network of ttsim)}" >> "$OUT/replays/networks"
		for a in $APPS; do
			for run in "$OUT/$s/$a"/run*; do
				[ -d "$run/traces" ] || continue
				r=${run##*/run}
				echo "$run|$OUT/replays/$s-$d-$a-run$r.json|$na" >> "$jobs"
			done
		done
	done
done
sort -u "$OUT/replays/networks" -o "$OUT/replays/networks"
note "$(wc -l < "$jobs") replays, $JOBS at a time; destination networks: $(tr '\n' ';' < "$OUT/replays/networks")"
export TTSIM
# shellcheck disable=SC2016
tr '\n' '\0' < "$jobs" | xargs -0 -P "$JOBS" -I{} bash -c '
	IFS="|" read -r run js na <<< "$1"
	[ -s "$js" ] && exit 0
	# shellcheck disable=SC2086
	if ! "$TTSIM" replay "$run"/traces/*-pe.pcap "$run/cluster.yaml" --causal \
	    --window 10000000000 $na --json > "$js.tmp" 2> "${js%.json}.err"; then
		echo "predict: replay failed: $run $na: $(head -1 "${js%.json}.err")" >&2
		rm -f "$js.tmp"; exit 0
	fi
	mv "$js.tmp" "$js"' _ {}

# ---- 3. the table ----

# count, median, min, max of the numbers on standard input
stats() {
	sort -g | awk '{ v[NR] = $1 }
	END { if (NR) print NR, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'
}
pred_values() {
	local f
	for f in "$OUT/replays/$1-$2-$3-run"*.json; do
		[ -s "$f" ] && jq '.networks[0].makespan_s' "$f"
	done
}
# D's trace spans (runs.tsv column 5) of the runs that went well
meas_values() {
	awk -F'\t' -v c="$1" -v a="$2" '$1 == c && $2 == a && $8 == 1 && $5 != "" { print $5 }' "$OUT/runs.tsv"
}
{
	printf 'app\tsrc\tdst\tpredicted_median_s\tmeasured_median_s\tmeasured_min_s\tmeasured_max_s\terror_pct\tsrc_runs\tdst_runs\tnetwork\n'
	for a in $APPS; do
		for s in $CONFIGS; do
			for d in $CONFIGS; do
				pred=$(pred_values "$s" "$d" "$a" | stats)
				meas=$(meas_values "$d" "$a" | stats)
				read -r np pm _ <<< "${pred:-0}"
				read -r nm mm mmin mmax <<< "${meas:-0}"
				err=$(awk -v p="$pm" -v m="$mm" 'BEGIN {if (p != "" && m > 0) printf "%.1f", (p / m - 1) * 100}')
				na=$(net_args "$d")
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$s" "$d" "$pm" "$mm" "$mmin" "$mmax" "$err" "$np" "$nm" "${na:---link-gbps default}"
			done
		done
	done
} > "$OUT/predict.tsv"
jq -R -s 'split("\n") | map(select(length > 0) | split("\t")) | .[0] as $h | .[1:] | map([$h, .] | transpose | map({(.[0]): (.[1] | tonumber? // .)}) | add)' \
    "$OUT/predict.tsv" > "$OUT/predict.json"
if [ $JSON = 1 ]; then
	cat "$OUT/predict.json"
else
	awk -F'\t' 'NR == 1 {printf "%-12s %-3s %-3s %12s %12s %-23s %8s  %s\n", "app", "S", "D", "predicted_s", "measured_s", "(min-max)", "error", "network"; next}
	{printf "%-12s %-3s %-3s %12s %12s %-23s %8s  %s\n", $1, $2, $3, $4 == "" ? "-" : sprintf("%.4f", $4), $5 == "" ? "-" : sprintf("%.4f", $5),
	    $6 == "" ? "" : sprintf("(%.4f-%.4f)", $6, $7), $8 == "" ? "-" : $8 "%", $11 " (" $9 " runs -> " $10 ")"}' "$OUT/predict.tsv"
fi
