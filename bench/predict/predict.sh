#!/bin/bash
# Predict every recorded application on every configuration from its
# recording on every other one, and compare with what was measured there
# (README.md here).
#
#   bench/predict/predict.sh [--json] [--jobs N] OUT
#
# OUT is record.sh's output.  For each configuration C in OUT:
#
#   1. calibration, from one run of each NetPIPE pair recorded (CAL_APPS,
#      default netpipe and netpipe-far: two distances), the one of median
#      span among C's runs (CAL_RUN=median; CAL_RUN=N takes run N):
#        ttsim trace calibrate OUT/C/netpipe/runM/traces OUT/C/netpipe-far/runM'/traces \
#            OUT/C/netpipe/runM/cluster.yaml -o OUT/C/model.yaml
#   2. what the inference leaves as compute, per configuration and
#      application (the gaps of every run, as a share of its span: a
#      program that computes nothing, NetPIPE, should have little):
#        ttsim trace infer RUN/traces RUN/cluster.yaml --recorded-model OUT/C/model.yaml --json
#      into OUT/gaps.tsv;
#   3. for every source S, destination D, application A and run r of S:
#        ttsim replay --causal OUT/S/A/run<r>/traces OUT/S/A/run<r>/cluster.yaml \
#            --recorded-model OUT/S/model.yaml --model OUT/D/model.yaml --json
#      .networks[0].makespan_s (and its critical path's compute share);
#   4. the prediction for (S -> D, A) is the median over S's runs, beside
#      D's measured median of the trace span (first TCP data segment sent
#      to last delivered: what the causal makespan corresponds to) with
#      its min-max, and the error (predicted / measured - 1).
#
# Runs recorded with ttmpitrace (RUN/otf2/) are also predicted from their
# MPI-level archives, as application A+mpi (MPI_LEVEL=0: not):
#   5. ttsim replay RUN/otf2/traces.otf2 RUN/cluster.yaml --causal \
#          --placement RUN/otf2/placement --recorded-model OUT/S/model.yaml \
#          --model OUT/D/model.yaml --json
#      (the hosts' turnaround under A fitted on S's model so that the
#      archive replays there in its own recorded message span, then used
#      on D's), compared with the median of D's archives' recorded
#      message spans (.trace.recorded_message_span_s).  S -> S is then
#      exact by construction: only S -> D != S tests.
#
# Prints the table (or --json: one object per row); always writes
# OUT/predict.tsv and OUT/predict.json, and every replay's JSON under
# OUT/replays/.  --jobs N replays N at a time (default 2).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TTSIM=${TTSIM:-$ROOT/build/ttsim}
CAL_APPS=${CAL_APPS:-netpipe netpipe-far}
CAL_RUN=${CAL_RUN:-median}
# trace calibrate's flags, for every configuration or for one
# (CAL_FLAGS_Y=--cut-through: a token bucket passes a lone frame at once
# at every hop, so a message pipelines through tbf-shaped links as
# through cut-through switches; see README.md)
CAL_FLAGS=${CAL_FLAGS:-}
MPI_LEVEL=${MPI_LEVEL:-1}
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
for need in "trace calibrate" "replay"; do
	# shellcheck disable=SC2086
	"$TTSIM" $need --help >/dev/null 2>&1 || { echo "predict: $TTSIM $need --help fails" >&2; exit 69; }
done
# The run of C's application A to calibrate from: CAL_RUN's number, or
# with CAL_RUN=median (the default) the run whose span is the median of
# C's runs of A that succeeded (the lower of the two middle ones).
cal_run() {
	case $CAL_RUN in
	median)
		awk -F'\t' -v c="$1" -v a="$2" 'NR > 1 && $1 == c && $2 == a && $8 == 1 {print $5, $3}' \
		    "$OUT/runs.tsv" | sort -g | awk '{r[NR] = $2} END {if (NR) print r[int((NR + 1) / 2)]}' ;;
	*) echo "$CAL_RUN" ;;
	esac
}
for c in $CONFIGS; do
	cal=()
	for a in $CAL_APPS; do
		r=$(cal_run "$c" "$a")
		[ -n "$r" ] && [ -d "$OUT/$c/$a/run$r/traces" ] && cal+=("$OUT/$c/$a/run$r/traces")
	done
	[ ${#cal[@]} -gt 0 ] || { note "$c: no run ($CAL_RUN) of $CAL_APPS to calibrate from"; continue; }
	yaml=$(dirname "${cal[0]}")/cluster.yaml
	flags=$(eval "echo \"\${CAL_FLAGS_$c:-\$CAL_FLAGS}\"")
	# shellcheck disable=SC2086
	if "$TTSIM" trace calibrate "${cal[@]}" "$yaml" $flags -o "$OUT/$c/model.yaml" \
	    > "$OUT/$c/calibrate.out" 2> "$OUT/$c/calibrate.err"; then
		note "$c: calibrated from ${cal[*]##$OUT/} ${flags:+($flags)}: $OUT/$c/model.yaml"
	else
		note "$c: ttsim trace calibrate failed: $(head -2 "$OUT/$c/calibrate.err")"
		rm -f "$OUT/$c/model.yaml"
	fi
done

# ---- 2. compute left in the gaps ----
{
	printf 'config\tapp\trun\tgaps_s\tspan_s\tshare_mean\tshare_max\tmessages\n'
	for c in $CONFIGS; do
		rm=()
		[ -f "$OUT/$c/model.yaml" ] && rm=(--recorded-model "$OUT/$c/model.yaml")
		for a in $APPS; do
			for run in "$OUT/$c/$a"/run*; do
				[ -d "$run/traces" ] || continue
				"$TTSIM" trace infer "$run/traces" "$run/cluster.yaml" "${rm[@]}" \
				    --window 10000000000 -o /dev/null --json 2>/dev/null |
				    jq -r --arg c "$c" --arg a "$a" --arg r "${run##*/run}" \
				    '[$c, $a, $r, .compute.gaps_s, .compute.span_s, .compute.share_mean, .compute.share_max, .messages] | @tsv'
			done
		done
	done
} > "$OUT/gaps.tsv"

# The destination's hardware and the recording's
net_args() {
	local s=$1 d=$2 a=""
	[ -f "$OUT/$d/model.yaml" ] && a="--model $OUT/$d/model.yaml"
	[ -f "$OUT/$s/model.yaml" ] && a="$a --recorded-model $OUT/$s/model.yaml"
	echo "$a"
}

# ---- 2. the replays ----
mkdir -p "$OUT/replays"
jobs=$OUT/replays/jobs
: > "$jobs"
for s in $CONFIGS; do
	for d in $CONFIGS; do
		na=$(net_args "$s" "$d")
		echo "$s -> $d: ${na:-(the default network of ttsim)}" >> "$OUT/replays/networks"
		for a in $APPS; do
			for run in "$OUT/$s/$a"/run*; do
				[ -d "$run/traces" ] || continue
				r=${run##*/run}
				echo "$run|$OUT/replays/$s-$d-$a-run$r.json|$na|pcap" >> "$jobs"
				[ "$MPI_LEVEL" = 1 ] && [ -f "$run/otf2/traces.otf2" ] &&
				    [ -f "$OUT/$s/model.yaml" ] && [ -f "$OUT/$d/model.yaml" ] &&
				    echo "$run|$OUT/replays/$s-$d-$a+mpi-run$r.json|$na|mpi" >> "$jobs"
			done
		done
	done
done
sort -u "$OUT/replays/networks" -o "$OUT/replays/networks"
note "$(wc -l < "$jobs") replays, $JOBS at a time; destination networks: $(tr '\n' ';' < "$OUT/replays/networks")"
export TTSIM
# shellcheck disable=SC2016
tr '\n' '\0' < "$jobs" | xargs -0 -P "$JOBS" -I{} bash -c '
	IFS="|" read -r run js na kind <<< "$1"
	[ -s "$js" ] && exit 0
	if [ "$kind" = mpi ]; then
		set -- "$run/otf2/traces.otf2" "$run/cluster.yaml" --causal --placement "$run/otf2/placement"
	else
		set -- "$run"/traces "$run/cluster.yaml" --causal --window 10000000000
	fi
	# shellcheck disable=SC2086
	if ! "$TTSIM" replay "$@" $na --json > "$js.tmp" 2> "${js%.json}.err"; then
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
cp_values() {
	local f
	for f in "$OUT/replays/$1-$2-$3-run"*.json; do
		[ -s "$f" ] && jq '.networks[0].critical_path.compute_share // empty' "$f"
	done
}
# D's trace spans (runs.tsv column 5) of the runs that went well; for
# A+mpi, D's archives' recorded message spans (D -> D's replays read them)
meas_values() {
	local f
	case $2 in
	*+mpi)
		for f in "$OUT/replays/$1-$1-$2-run"*.json; do
			[ -s "$f" ] && jq '.trace.recorded_message_span_s' "$f"
		done
		return ;;
	esac
	awk -F'\t' -v c="$1" -v a="$2" '$1 == c && $2 == a && $8 == 1 && $5 != "" { print $5 }' "$OUT/runs.tsv"
}
# The switches' share of the recording machine's cores over C's runs of
# APP (A+mpi: A's), ttd_cpu_s / (cores x span_s): runs.tsv columns 10
# and 5, the cores from record.log; nothing for a recording without them.
CORES=$(sed -n 's/^started .*, \([0-9][0-9]*\) cores$/\1/p' "$OUT/record.log" 2>/dev/null)
share_values() {
	[ -n "$CORES" ] || return 0
	awk -F'\t' -v c="$1" -v a="${2%+mpi}" -v n="$CORES" '$1 == c && $2 == a && $8 == 1 && $10 != "" && $5 > 0 { print $10 / (n * $5) }' "$OUT/runs.tsv"
}
MPI_APPS=$(for a in $APPS; do ls "$OUT"/replays/*-"$a"+mpi-run*.json >/dev/null 2>&1 && echo "$a+mpi"; done)
{
	printf 'app\tsrc\tdst\tpredicted_median_s\tmeasured_median_s\tmeasured_min_s\tmeasured_max_s\terror_pct\tsrc_runs\tdst_runs\tnetwork\tcompute_share\tsrc_switch_share\tdst_switch_share\n'
	for a in $APPS $MPI_APPS; do
		for s in $CONFIGS; do
			for d in $CONFIGS; do
				pred=$(pred_values "$s" "$d" "$a" | stats)
				meas=$(meas_values "$d" "$a" | stats)
				read -r np pm _ <<< "${pred:-0}"
				read -r nm mm mmin mmax <<< "${meas:-0}"
				err=$(awk -v p="$pm" -v m="$mm" 'BEGIN {if (p != "" && m > 0) printf "%.1f", (p / m - 1) * 100}')
				na=$(net_args "$s" "$d")
				cp=$(cp_values "$s" "$d" "$a" | stats)
				read -r _ cpm _ <<< "${cp:-0}"
				read -r _ ssh _ <<< "$(share_values "$s" "$a" | stats)"
				read -r _ dsh _ <<< "$(share_values "$d" "$a" | stats)"
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$s" "$d" "$pm" "$mm" "$mmin" "$mmax" "$err" "$np" "$nm" "${na:-default}" "$cpm" "$ssh" "$dsh"
			done
		done
	done
} > "$OUT/predict.tsv"
jq -R -s 'split("\n") | map(select(length > 0) | split("\t")) | .[0] as $h | .[1:] | map([$h, .] | transpose | map({(.[0]): (.[1] | tonumber? // .)}) | add)' \
    "$OUT/predict.tsv" > "$OUT/predict.json"
if [ $JSON = 1 ]; then
	cat "$OUT/predict.json"
else
	awk -F'\t' 'NR == 1 {printf "%-12s %-3s %-3s %12s %12s %-23s %8s %8s  %-7s %s\n", "app", "S", "D", "predicted_s", "measured_s", "(min-max)", "error", "compute", "runs", "switches S/D"; next}
	{printf "%-12s %-3s %-3s %12s %12s %-23s %8s %8s  %-7s %s\n", $1, $2, $3, $4 == "" ? "-" : sprintf("%.4f", $4), $5 == "" ? "-" : sprintf("%.4f", $5),
	    $6 == "" ? "" : sprintf("(%.4f-%.4f)", $6, $7), $8 == "" ? "-" : $8 "%", $12 == "" ? "-" : sprintf("%.0f%%", 100 * $12), $9 " -> " $10,
	    $13 == "" ? "-" : sprintf("%.2f/%.2f", $13, $14)}' "$OUT/predict.tsv"
fi
