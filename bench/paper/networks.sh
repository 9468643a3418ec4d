#!/usr/bin/env bash
# The networks of seeds 002-004 against a twin torus of as many PEs, under
# each seed's traffic patterns, with `ttsim sweep` (not a test):
#   seed 002 (Parhami & Kwai): pruned, directed and pruned directed 8-ary
#     3-cubes (512 nodes) against the twin torus 8x8x4 (512 PEs), uniform
#     (the paper's §5 is an analytic model of uniform traffic);
#   seed 003 (Rahman et al.): MH3DT(4,4,2,2) (4,096 nodes) against the
#     twin torus 16x16x8, under uniform, hot-spot, center-reflection,
#     bit-rotate, perfect shuffle and tornado;
#   seed 004 (Faisal): 3D-TESH(2,1,0) (64) and (2,2,0) (1,024) against the
#     twin tori 4x4x2 and 8x8x8 (and at 64 the plain 4x4x4 torus the thesis
#     compares with), under uniform, transpose, tornado, perfect
#     shuffle and bit-reversal.
# Each network with its own routing and VC classes; every port 4 VCs or
# more (the seed 000 §7.1 switch: 4-flit packets, 128 flits per input
# port), fixed windows.  One CSV (and PNG with gnuplot) per seed network
# and pattern in OUT, then a table: each curve's highest accepted load and
# its network latency at the lowest load.
#
#   bash bench/paper/networks.sh [--quick] [--out DIR] [--only NAME]
#   bash bench/paper/networks.sh --table-only [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
TTSIM=${TTSIM:-build/ttsim}
out=bench/paper/results/networks
quick=0 table_only=0 only=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--table-only) table_only=1 ;;
	--out) out=$2; shift ;;
	--only) only=$2; shift ;;
	*) echo "networks.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$TTSIM" ] || { echo "networks.sh: build $TTSIM first (make)" >&2; exit 2; }
mkdir -p "$out"

LOADS=0.01,0.02,0.03,0.05,0.07,0.1,0.15,0.2,0.3,0.4,0.6,0.8
RUN=(--warmup 2000 --measure 5000 --drain 5000 --refine 0 --seeds 1)
if [ $quick = 1 ]; then
	LOADS=0.02,0.1,0.3
	RUN=(--warmup 300 --measure 1000 --drain 2000 --refine 0 --seeds 1)
fi

# name|topologies|patterns[|loads|window flags]: the 4,096-PE sweeps take
# a coarser grid and shorter windows (a pattern in about 5 minutes)
S003_LOADS=0.01,0.03,0.05,0.1,0.2,0.4
S003_RUN="--warmup 1000 --measure 3000 --drain 3000 --refine 0 --seeds 1"
SWEEPS=(
	"s002-512|8x8x4,pruned:k=8,msn:k=8,pruned-msn:k=8|uniform"
	"s004-64|4x4x2,4x4x4:plain,tesh:m=2,L=1,q=0|uniform transpose tornado shuffle bit-reversal"
	"s004-1024|8x8x8,tesh:m=2,L=2,q=0|uniform transpose tornado shuffle bit-reversal"
	"s003-4096|16x16x8,mh3dt:m=4,n=4,L=2,q=2|uniform hotspot center-reflection bit-rotate shuffle tornado|$S003_LOADS|$S003_RUN"
)
[ $quick = 1 ] && SWEEPS=("s004-64|4x4x2,tesh:m=2,L=1,q=0|uniform tornado")

plots=1
command -v gnuplot >/dev/null 2>&1 || plots=0
if [ $table_only = 0 ]; then
	for s in "${SWEEPS[@]}"; do
		IFS='|' read -r name topos patterns loads run <<<"$s"
		[ -n "$only" ] && [ "$only" != "$name" ] && continue
		loads=${loads:-$LOADS}
		# shellcheck disable=SC2206  # the window flags split on spaces
		[ -n "$run" ] && [ $quick = 0 ] && runf=($run) || runf=("${RUN[@]}")
		for p in $patterns; do
			echo "[$(date +%H:%M:%S)] $name $p: ttsim sweep --topo $topos" >&2
			"$TTSIM" sweep --topo "$topos" --traffic "$p" --loads "$loads" \
			    "${runf[@]}" --csv >"$out/$name-$p.csv"
			[ $plots = 1 ] && "$TTSIM" plot "$out/$name-$p.csv" \
			    -o "$out/$name-$p.png" --title "$name $p" >/dev/null
		done
	done
fi

# The table: a quoted series (tesh:m=2,L=2,q=0) has commas, turned into
# semicolons before splitting.
echo "| sweep | traffic | network | PEs | peak accepted | at offered | net. latency at lowest load |"
echo "|---|---|---|---|---|---|---|"
for f in "$out"/*.csv; do
	b=$(basename "$f" .csv)
	awk -v sweep="${b%%-*}-$(cut -d- -f2 <<<"$b")" '
	function unquote(s,   i, c, q, r) {
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\"") { q = !q; continue }
			r = r ((q && c == ",") ? ";" : c)
		}
		return r
	}
	NR == 1 { n = split($0, h, ","); for (i = 1; i <= n; i++) col[h[i]] = i; next }
	{
		split(unquote($0), v, ",")
		s = v[col["series"]]
		if (!(s in peak)) { order[++ns] = s; lat[s] = v[col["avg_network_latency"]] }
		if (!(s in peak) || v[col["accepted_load"]] + 0 > peak[s] + 0) {
			peak[s] = v[col["accepted_load"]]; at[s] = v[col["load"]]
		}
		pes[s] = v[col["pes"]]; tr = v[col["traffic"]]
	}
	END {
		for (i = 1; i <= ns; i++) {
			s = order[i]; gsub(";", ",", s)
			printf "| %s | %s | %s | %s | %.3f | %s | %.1f |\n", sweep, tr, s,
			    pes[order[i]], peak[order[i]], at[order[i]], lat[order[i]]
		}
	}' "$f"
done
