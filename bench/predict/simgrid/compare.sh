#!/bin/bash
# SimGrid's prediction beside the testbed's measurement, per configuration:
#
#   bench/predict/simgrid/compare.sh OUT
#
# OUT is record.sh's output.  For each configuration C in it, run.sh with
# OUT/C/model.yaml when predict.sh could calibrate one, else with the
# configuration's tc rate as the link bandwidth and no latency (X: 10
# Gb/s, ttsim's default link; said so in the output).  Beside each case,
# the median (min-max) of what the program itself measured on C
# (record.sh's measured_s: pingpong's total, mpihalo's wall) and the error.
# Writes OUT/simgrid.tsv; SimGrid's files in OUT/C/simgrid/.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: compare.sh OUT}
OUT=$(cd "$OUT" && pwd) || exit 64
[ -f "$OUT/runs.tsv" ] || { echo "compare: $OUT/runs.tsv missing (record.sh's output)" >&2; exit 64; }
printf 'config\tcase\tsimgrid_model\tpredicted_s\tmeasured_median_s\tmeasured_min_s\tmeasured_max_s\terror_pct\tnetwork\n' > "$OUT/simgrid.tsv"
for c in X Y Z; do
	[ -d "$OUT/$c" ] || continue
	if [ -f "$OUT/$c/model.yaml" ]; then
		args=("$OUT/$c/model.yaml"); net="model.yaml"
	else
		m=$(ls "$OUT/$c"/*/run1/measured 2>/dev/null | head -1)
		rate=$(sed -n 's/^rate=//p' "$m" 2>/dev/null)
		case $rate in
		*mbit) g=$(awk -v r="${rate%mbit}" 'BEGIN {print r / 1000}') ;;
		*gbit) g=${rate%gbit} ;;
		*) g=10 ;;
		esac
		args=(--gbps "$g" --hop-ns 0); net="no model.yaml: ${g} Gb/s (tc rate ${rate:-none}), 0 ns"
	fi
	echo "compare: $c: $net" >&2
	SG_WORK=$OUT/$c/simgrid "$HERE/run.sh" "${args[@]}" | grep -v '^#' |
	while read -r case model pred; do
		app=$case
		meas=$(awk -F'\t' -v c="$c" -v a="$app" '$1 == c && $2 == a && $8 == 1 && $4 != "" {print $4}' "$OUT/runs.tsv" |
		    sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR]}')
		read -r mm mmin mmax <<< "${meas:-  }"
		err=$(awk -v p="$pred" -v m="$mm" 'BEGIN {if (p + 0 > 0 && m > 0) printf "%.1f", (p / m - 1) * 100}')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$case" "$model" "$pred" "$mm" "$mmin" "$mmax" "$err" "$net" >> "$OUT/simgrid.tsv"
	done
done
column -t -s $'\t' "$OUT/simgrid.tsv"
