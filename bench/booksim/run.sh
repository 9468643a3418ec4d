#!/usr/bin/env bash
# ttsim's half of the comparison with BookSim2 (bench/booksim/README.md):
# plain tori 8x8, 4x4x4 and 8x8x8 with BookSim2's switch as far as ttsim
# models it (4 VCs x 32 flits a port, 4-flit packets, dateline VCs, a
# router latency of 5 cycles and links of 1: zero-load latency 6H + 10),
# uniform traffic:
#   1. zero-load latency: a light load against 6H + 10;
#   2. the latency and throughput curves, with the seed model's rules and
#      with BookSim2's (--ties random --ring-vc entry --uniform-self);
#   3. the steady-state peaks.
#
#   bash bench/booksim/run.sh [--out DIR] [--quick]
#
# Every point is measured in its steady state (no window given) over 2
# seeds; sweeps refine their knee to 0.01.  About 15 minutes on one core
# (--quick: 8x8 only, one seed, a minute).  Output in DIR (default
# bench/booksim/out): zeroload.txt, curves-NET-RULES.csv, summary.txt.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/out
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--quick) quick=1 ;;
	-h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "booksim/run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
T=${TTSIM:-$root/build/ttsim}
[ -x "$T" ] || { echo "booksim/run.sh: $T not found: run make, or set TTSIM" >&2; exit 2; }
command -v jq >/dev/null || { echo "booksim/run.sh: jq is needed (make deps)" >&2; exit 2; }
mkdir -p "$out"

SWITCH=(--plain --deadlock vc --vcs 4 --buffer-flits 128 --packet-flits 4
    --router-latency 5 --link-latency 1 --traffic uniform)
BOOKSIM=(--ties random --ring-vc entry --uniform-self)
if [ $quick = 1 ]; then
	NETS=(8x8)
	SEEDS=1
else
	NETS=(8x8 4x4x4 8x8x8)
	SEEDS=2
fi

# 1. zero load: 0.002 flits/cycle/PE, a long window, so that packets
# almost never meet; BookSim2's figure is 6H + 10 with H the mean hops
{
	printf '%-8s %-8s %10s %8s %12s %10s %10s\n' network rules packets hops "6H+10" "net lat" "diff"
	for net in "${NETS[@]}"; do
		for rules in seed booksim; do
			extra=()
			[ $rules = booksim ] && extra=("${BOOKSIM[@]}")
			"$T" run --dims "${net//x/,}" "${SWITCH[@]}" "${extra[@]}" \
			    --load 0.002 --warmup 1000 --measure 200000 --json |
			jq -r --arg n "$net" --arg r "$rules" '
			    (6 * .avg_hops + 10) as $f |
			    "\($n) \($r) \(.packets_delivered) \(.avg_hops) \($f) \(.avg_network_latency) \(.avg_network_latency - $f)"' |
			awk '{ printf "%-8s %-8s %10d %8.4f %12.3f %10.3f %+10.3f\n", $1, $2, $3, $4, $5, $6, $7 }'
		done
	done
} | tee "$out/zeroload.txt"

# 2. curves, both rule sets
for net in "${NETS[@]}"; do
	case $net in
	8x8x8) loads=0.05:0.9:0.05 ;;
	*) loads=0.05:1.0:0.05 ;;
	esac
	for rules in seed booksim; do
		extra=()
		[ $rules = booksim ] && extra=("${BOOKSIM[@]}")
		echo "[$(date +%H:%M:%S)] $net, $rules rules: loads $loads, $SEEDS seeds" >&2
		"$T" sweep --topo "$net:plain" "${SWITCH[@]}" "${extra[@]}" \
		    --loads "$loads" --seeds "$SEEDS" --csv >"$out/curves-$net-$rules.csv.tmp"
		mv "$out/curves-$net-$rules.csv.tmp" "$out/curves-$net-$rules.csv"
	done
done

# 3. per curve: the steady-state peak, and latencies on the grid
{
	for net in "${NETS[@]}"; do
		for rules in seed booksim; do
			f=$out/curves-$net-$rules.csv
			awk -F, -v n="$net" -v r="$rules" '
			FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{
				l = $c["load"] + 0; a = $c["accepted_load"] + 0
				if ($c["throughput_converged"] != 0 && a > pk) { pk = a; at = l }
				g = sprintf("%.2f", l) + 0
				if (g == l && $c["saturated"] == 0) {
					net[g] = $c["avg_network_latency"]; e2e[g] = $c["avg_e2e_latency"]; loads[g] = 1
				}
			}
			END {
				printf "%s, %s rules: steady-state peak %.4f (offered %.3g)\n", n, r, pk, at
				printf "  %6s %10s %10s\n", "load", "net lat", "e2e lat"
				for (k = 1; k <= 20; k++) { l = sprintf("%.2f", k * 0.05) + 0
					if (l in loads) printf "  %6.2f %10.2f %10.2f\n", l, net[l], e2e[l] }
			}' "$f"
		done
	done
} | tee "$out/summary.txt"
