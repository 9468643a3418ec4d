#!/usr/bin/env bash
# Seed 000 §7.3's headline at 128 PEs, measured with long windows: the
# steady-state peak throughput of every configuration A-J of a 3DT 4x4x4
# under bubble, on a 0.01 load grid across the knees, several seeds, and
# D's margin over each (the report: 10% to 23%).  Run with the type-1 VC
# chosen by output port (seed 000 §7.1 footnote 5, the default) and with
# the emptiest VC of the class, to measure what that choice changes.
#
#   bash bench/paper/peak128.sh [--out DIR] [--seeds N] [--quick]
#
# Windows: 20,000 cycles of warm-up and 30,000 measured (fixed, so every
# point is measured alike; the steady-state test still flags each), loads
# 0.20 to 0.44 by 0.01, 4 seeds (--quick: 2 seeds, loads by 0.02, windows
# 5,000 + 10,000).  A peak is the highest accepted load among the points
# whose accepted load passed the steady-state test in every seed.  About
# half an hour on one core; output peak128-{port,room}.csv and
# peak128.txt in DIR (default bench/paper/out).  Set TTSIM for another
# binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/out
seeds=4
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--quick) quick=1; seeds=2 ;;
	-h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "peak128.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
TTSIM=${TTSIM:-$root/build/ttsim}
[ -x "$TTSIM" ] || { echo "peak128.sh: $TTSIM not found: run make, or set TTSIM" >&2; exit 2; }
mkdir -p "$out"
if [ $quick = 1 ]; then
	LOADS=0.20:0.44:0.02
	WIN=(--warmup 5000 --measure 10000)
else
	LOADS=0.20:0.44:0.01
	WIN=(--warmup 20000 --measure 30000)
fi

for t1 in port room; do
	echo "[$(date +%H:%M:%S)] 3DT 4x4x4 A-J bubble, --type1-vc $t1: loads $LOADS, ${WIN[*]}, $seeds seeds" >&2
	"$TTSIM" sweep --dims 4,4,4 --ports all --deadlock bubble --type1-vc "$t1" \
	    --loads "$LOADS" "${WIN[@]}" --seeds "$seeds" --refine 0 --csv \
	    >"$out/peak128-$t1.csv.tmp"
	mv "$out/peak128-$t1.csv.tmp" "$out/peak128-$t1.csv"
done

# per configuration: the steady peak, the load it came at, its 95% interval
# over the seeds, how many loads were steady, and D's margin over it
table() {
	awk -F, '
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		p = $c["ports"]; a = $c["accepted_load"] + 0
		if (!(p in pk)) { order[n++] = p; pk[p] = -1 }
		if ($c["throughput_converged"] != 0) {
			steady[p]++
			if (a > pk[p]) { pk[p] = a; at[p] = $c["load"]; ci[p] = $c["accepted_load_ci95"] }
		}
	}
	END {
		printf "  %-6s %8s %6s %8s %7s %10s\n", "config", "peak", "at", "ci95", "steady", "D over it"
		for (i = 0; i < n; i++) {
			p = order[i]
			printf "  %-6s %8.4f %6.2f %8.4f %7d %10s\n", p, pk[p], at[p], ci[p], steady[p],
			    p == "D" ? "-" : sprintf("%+.1f%%", 100 * (pk["D"] / pk[p] - 1))
		}
	}' "$1"
}

{
	echo "# 3DT 4x4x4 bubble, uniform, loads $LOADS, ${WIN[*]}, $seeds seeds ($TTSIM)"
	for t1 in port room; do
		echo
		echo "== --type1-vc $t1"
		table "$out/peak128-$t1.csv"
	done
} | tee "$out/peak128.txt"
