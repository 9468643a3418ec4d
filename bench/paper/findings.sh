#!/usr/bin/env bash
# The numbers behind the seed 000 §7.3-7.4 findings in bench/RESULTS.md,
# computed from the CSVs that run.sh writes:
#
#   bash bench/paper/findings.sh [DIR]     (default bench/paper/out)
#
# For every CSV (one topology or PE count, one deadlock scheme) and every
# curve in it:
#   peak     highest accepted load (flits/cycle/PE) among the points whose
#            accepted load passed the steady-state test (CSVs from before
#            that test: among all), and the offered load 'at'
#   @max     accepted load at the highest offered load
#   drop     1 - @max/peak: how much throughput falls past saturation
#   net, e2e average network / end-to-end latency (cycles) at the reference
#            load Lref: the highest offered load at and below which every
#            curve of the file delivers >= 98% of what is offered and has
#            at most twice its lowest-load network latency (below every
#            knee, so latencies compare like with like)
#   *-ref    peak, @max and latencies against the file's reference curve (D for
#            §7.3, the 3DT for §7.4): + means the reference is that much
#            better (higher peak, lower latency); in §7.4 the reference
#            is the file's last 3DT curve (5x5x5 at 256, 6x6x6 at 432)
# then vc against bubble for every curve present under both.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here/out}

# steady(c): the row's accepted load passed the steady-state test (or the
# CSV has no such column)
STEADY_AWK='function steady(c) { return !("throughput_converged" in c) || $c["throughput_converged"] != 0 }'

table() {   # table CSV REFERENCE-REGEX
	awk -F, -v ref="$2" "$STEADY_AWK"'
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		s = $c["series"]; l = $c["load"] + 0; a = $c["accepted_load"] + 0
		if (!(s in peak)) { order[n++] = s; peak[s] = -1 }
		if (steady(c) && a > peak[s]) { peak[s] = a; at[s] = l }
		if (l >= hi[s]) { hi[s] = l; last[s] = a }
		net[s, l] = $c["avg_network_latency"]; e2e[s, l] = $c["avg_e2e_latency"]
		if (!(s in lo) || l < lo[s]) { lo[s] = l; net0[s] = $c["avg_network_latency"] }
		flow[s, l] = $c["saturated"] == 0 && a >= 0.98 * $c["offered_load"]
		loads[l] = 1
	}
	END {
		# below every knee: each curve delivers what is offered (98%) and
		# its network latency is at most twice its lowest-load latency,
		# at this load and at every lower one
		for (l in loads) for (i = 0; i < n; i++) { s = order[i]
			if (!flow[s, l] || net[s, l] > 2 * net0[s]) bad[l] = 1 }
		lref = -1
		for (l in loads) {
			ok = 1; for (m in bad) if (m + 0 <= l + 0) ok = 0
			if (ok && l + 0 > lref) lref = l + 0
		}
		r = ""
		for (i = 0; i < n; i++) if (order[i] ~ ref) r = order[i]
		printf "  Lref = %s\n", lref < 0 ? "none (saturated at the lowest load)" : sprintf("%.2f", lref)
		printf "  %-22s %6s %5s %6s %5s %7s %7s   %8s %8s %8s %8s\n", "series", "peak", "at", "@max", "drop", "net", "e2e", "peak-ref", "max-ref", "net-ref", "e2e-ref"
		for (i = 0; i < n; i++) {
			s = order[i]
			nl = lref < 0 ? 0 : net[s, lref]; el = lref < 0 ? 0 : e2e[s, lref]
			dp = (r != "" && s != r) ? sprintf("%+7.1f%%", 100 * (peak[r] / peak[s] - 1)) : "       -"
			dm = (r != "" && s != r) ? sprintf("%+7.1f%%", 100 * (last[r] / last[s] - 1)) : "       -"
			dn = (r != "" && s != r && lref >= 0) ? sprintf("%+7.1f%%", 100 * (1 - net[r, lref] / nl)) : "       -"
			de = (r != "" && s != r && lref >= 0) ? sprintf("%+7.1f%%", 100 * (1 - e2e[r, lref] / el)) : "       -"
			printf "  %-22s %6.4f %5.2f %6.4f %4.0f%% %7.1f %7.1f   %8s %8s %8s %8s\n", s, peak[s], at[s], last[s], 100 * (1 - last[s] / peak[s]), nl, el, dp, dm, dn, de
		}
	}' "$1"
}

vcbubble() {   # vcbubble VC.csv BUBBLE.csv
	awk -F, "$STEADY_AWK"'
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
	{
		s = $c["series"]; sub(/ (vc|bubble)$/, "", s)
		l = $c["load"] + 0; a = $c["accepted_load"] + 0
		if (!(s in seen)) { order[n++] = s; seen[s] = 1 }
		if (steady(c) && a > peak[f, s]) peak[f, s] = a
		if (l >= hi[f, s]) { hi[f, s] = l; last[f, s] = a }
		net[f, s, l] = $c["avg_network_latency"]; e2e[f, s, l] = $c["avg_e2e_latency"]
		if (!((f, s) in lo) || l < lo[f, s]) { lo[f, s] = l; net0[f, s] = $c["avg_network_latency"] }
		if ($c["saturated"] == 0 && a >= 0.98 * $c["offered_load"]) uns[f, s, l] = 1
	}
	END {
		printf "  %-18s %7s %7s %7s   %7s %7s   %5s %8s %8s   %8s %8s\n", "network", "pk-vc", "pk-bub", "bub/vc", "max-vc", "max-bub", "L", "net-vc", "net-bub", "e2e-vc", "e2e-bub"
		for (i = 0; i < n; i++) {
			s = order[i]
			# the highest load at which both are unsaturated
			L = -1
			for (k = 1; k <= 20; k++) { l = k * 0.05; l = sprintf("%.2f", l) + 0
				if (!((1, s, l) in net)) continue
				if (((1, s, l) in uns) && ((2, s, l) in uns) &&
				    net[1, s, l] <= 2 * net0[1, s] && net[2, s, l] <= 2 * net0[2, s]) L = l
				else break }
			printf "  %-18s %7.4f %7.4f %+6.1f%%   %7.4f %7.4f   %5.2f %8.1f %8.1f   %8.1f %8.1f\n", s, peak[1, s], peak[2, s], 100 * (peak[2, s] / peak[1, s] - 1), last[1, s], last[2, s], L, net[1, s, L], net[2, s, L], e2e[1, s, L], e2e[2, s, L]
		}
	}' "$1" "$2"
}

for f in "$dir"/sec73/*-vc.csv "$dir"/sec73/*-bubble.csv; do
	[ -f "$f" ] || continue
	echo "== ${f#$dir/} (reference: D)"
	table "$f" ' D (vc|bubble)$'
	echo
done
for f in "$dir"/sec74/*-vc.csv "$dir"/sec74/*-bubble.csv; do
	[ -f "$f" ] || continue
	echo "== ${f#$dir/} (reference: the last 3DT torus, the one with equal k)"
	table "$f" '^3DT '
	echo
done
echo "== vc against bubble (pk: peak accepted; max: accepted at the highest load; latencies at L, the highest load below both knees, as Lref)"
for f in "$dir"/sec73/*-vc.csv "$dir"/sec74/*-vc.csv; do
	b=${f%-vc.csv}-bubble.csv
	[ -f "$b" ] || continue
	echo "-- ${f#$dir/} / ${b##*/}"
	vcbubble "$f" "$b"
done
