#!/usr/bin/env bash
# ttsim run, sweep and plot as a user runs them: the JSON keys, determinism by seed, accepted = offered at low load, confidence
# intervals, CSV, the YAML file under flags, the deadlock watchdog under
# --deadlock none, every traffic pattern, the sweep's point count, plots and
# their errors, the warning for a load above 1 (the golden flag errors run
# in tests/cli/flags.sh).
# Every simulation is short (a few thousand cycles): the script takes seconds.
# shellcheck disable=SC2015,SC2054  # "check && ok || bad": ok cannot fail; commas in flag values
. "$(dirname "$0")/lib.sh"
# Short runs: enough packets for stable means, far from the 10^4-cycle default.
S=(--warmup 500 --measure 2000)
# is_png FILE / is_svg FILE: the file starts as such an image does
is_png() { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { head -c 400 "$1" 2>/dev/null | grep -q '<svg'; }

# --- run --json: every key of the contract, with its type ---
if expect run-json 0 "$T" run --dims 4,4,4 --ports D "${S[@]}" --json; then
	got=$(jq -r '[(.offered_load, .accepted_load, .throughput_packets,
	    .avg_network_latency, .avg_e2e_latency, .p99_e2e_latency, .avg_hops,
	    .internal_link_utilization, .cycles, .packets_delivered | type),
	    (.deadlock | type)] | join(" ")' <<<"$out")
	want="number number number number number number number number number number boolean"
	[ "$got" = "$want" ] && ok run-json || bad run-json "$got"
fi
if expect run-json-one 0 "$T" run --dims 4,4,4 --ports D "${S[@]}" --json; then
	# one object, nothing else on stdout
	got=$(jq -s -r 'length, (.[0] | type)' <<<"$out" | tr '\n' ' ')
	[ "$got" = "1 object " ] && ok run-json-one || bad run-json-one "$got"
fi
if expect run-json-sane 0 "$T" run --dims 4,4,4 --ports D "${S[@]}" --json; then
	# 128 PEs, 4-flit packets: packets/cycle = accepted * 128 / 4; DOR paths
	# of D average 4.795 links (README); cycles cover all three phases
	got=$(jq -r '[.pes == 128, .deadlock == false,
	    ((.throughput_packets - .accepted_load * 32) | fabs) < 0.01 * .throughput_packets,
	    (.avg_hops > 4.6 and .avg_hops < 5.0),
	    (.avg_e2e_latency >= .avg_network_latency),
	    (.p99_e2e_latency >= .avg_e2e_latency),
	    (.internal_link_utilization > 0 and .internal_link_utilization < 1),
	    (.cycles >= 2500), (.packets_delivered > 0)] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true true true true true true true true true" ] &&
	    ok run-json-sane || bad run-json-sane "$got"
fi

# --- same seed, same bytes; another seed, other numbers ---
if expect seed-a 0 "$T" run "${S[@]}" --seed 7 --json; then
	a=$out
	if expect seed-b 0 "$T" run "${S[@]}" --seed 7 --json; then
		[ "$a" = "$out" ] && ok seed-same || bad seed-same "$(diff <(echo "$a") <(echo "$out"))"
	fi
	if expect seed-c 0 "$T" run "${S[@]}" --seed 8 --json; then
		f='[.offered_load, .accepted_load, .avg_e2e_latency, .packets_delivered] | map(tostring) | join(" ")'
		[ "$(jq -r "$f" <<<"$a")" != "$(jq -r "$f" <<<"$out")" ] &&
		    ok seed-differs || bad seed-differs "seed 7 and 8 give $(jq -r "$f" <<<"$out")"
	fi
fi

# --- low load: every offered flit is accepted, nothing saturates ---
if expect low-load 0 "$T" run --dims 4,4,4 --ports D --traffic uniform --load 0.05 "${S[@]}" --json; then
	got=$(jq -r '[((.accepted_load - .offered_load) | fabs) <= 0.05 * .offered_load,
	    ((.offered_load - 0.05) | fabs) <= 0.005, .saturated] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true true false" ] && ok low-load || bad low-load "$got :: $out"
fi

# --- --seeds: mean of the seeds and a 95% interval; none for one seed ---
if expect seeds-3 0 "$T" run "${S[@]}" --seeds 3 --json; then
	got=$(jq -r '[.accepted_load_ci95, .avg_network_latency_ci95,
	    .avg_e2e_latency_ci95] | map(type) | join(" ")' <<<"$out")
	ci=$(jq -r '[.accepted_load_ci95, .avg_network_latency_ci95,
	    .avg_e2e_latency_ci95] | all(. > 0)' <<<"$out")
	[ "$got" = "number number number" ] && [ "$ci" = true ] &&
	    ok seeds-3-ci || bad seeds-3-ci "$got, all above 0: $ci"
	mean3=$(jq .accepted_load <<<"$out")
	sum=0
	for s in 1 2 3; do
		expect "seeds-single-$s" 0 "$T" run "${S[@]}" --seed $s --json || break
		sum=$(jq -n "$sum + $(jq .accepted_load <<<"$out")")
	done
	jq -e -n "(($sum / 3) - $mean3 | fabs) < 1e-5" >/dev/null &&
	    ok seeds-3-mean || bad seeds-3-mean "mean $mean3, seeds 1..3 sum to $sum"
fi
# 41 seeds: 40 degrees of freedom, whose two-sided 95% factor is 2.021 in
# the t tables (the normal's 1.96 is 3% short): the interval is that times
# the standard error of the 41 single-seed values.
C=(--dims 2,2,2 --warmup 50 --measure 300 --load 0.3)
if expect seeds-41 0 "$T" run "${C[@]}" --seed 1 --seeds 41 --json; then
	ci=$(jq .accepted_load_ci95 <<<"$out")
	for ((s = 1; s <= 41; s++)); do
		"$T" run "${C[@]}" --seed $s --json | jq .accepted_load
	done >"$tmp/acc41"
	factor=$(awk -v ci="$ci" '{ x[NR] = $1; m += $1 } END { m /= NR
	    for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
	    printf "%.4f", ci / sqrt(v / (NR - 1) / NR) }' "$tmp/acc41")
	awk -v f="$factor" 'BEGIN { exit !(f > 2.019 && f < 2.023) }' &&
	    ok "seeds-41-student-t ($factor)" || bad seeds-41-student-t "factor $factor, want 2.021"
fi
if expect seeds-1 0 "$T" run "${S[@]}" --seeds 1 --json; then
	got=$(jq -r '[.accepted_load_ci95, .avg_network_latency_ci95,
	    .avg_e2e_latency_ci95] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "null null null" ] && ok seeds-1-null || bad seeds-1-null "$got"
fi

# --- --csv: a header and one row, as many columns ---
if expect run-csv 0 "$T" run "${S[@]}" --csv; then
	got=$(awk -F, '{ print NF }' <<<"$out" | tr '\n' ' ')
	head=$(head -1 <<<"$out")
	case $head in
	series,*offered_load*accepted_load*avg_network_latency*avg_e2e_latency*)
		[ "$(wc -l <<<"$out")" = 2 ] &&
		    [ "$(awk -F, '{ print NF }' <<<"$out" | sort -u | wc -l)" = 1 ] &&
		    ok run-csv || bad run-csv "columns per line: $got";;
	*)	bad run-csv "header: $head";;
	esac
fi

# --- the YAML file, and flags over it ---
if expect yaml-run 0 "$T" run yaml/3dt-4x4x4.yaml "${S[@]}" --json; then
	got=$(jq -c '[.dims, .ports, .pes, .packet_flits, .buffer_flits]' <<<"$out")
	[ "$got" = '[[4,4,4],"D",128,4,128]' ] && ok yaml-run || bad yaml-run "$got"
fi
cat >"$tmp/net.yaml" <<'EOF'
torus:
  dims: [4, 4, 2]
  ports: A
  deadlock: bubble
network:
  packet_flits: 8
  buffer_flits: 64
EOF
if expect yaml-network 0 "$T" run "$tmp/net.yaml" "${S[@]}" --json; then
	got=$(jq -c '[.dims, .ports, .pes, .packet_flits, .buffer_flits, .series]' <<<"$out")
	[ "$got" = '[[4,4,2],"A",64,8,64,"3DT 4x4x2 A bubble"]' ] &&
	    ok yaml-network || bad yaml-network "$got"
fi
if expect yaml-flags 0 "$T" run "$tmp/net.yaml" "${S[@]}" --json --dims 4,4,4 --ports D \
    --deadlock vc --packet-flits 2 --buffer-flits 32; then
	got=$(jq -c '[.dims, .ports, .pes, .packet_flits, .buffer_flits, .series]' <<<"$out")
	[ "$got" = '[[4,4,4],"D",128,2,32,"3DT 4x4x4 D vc"]' ] &&
	    ok yaml-flags || bad yaml-flags "$got"
fi

# --- deadlock: seed 000 Example 6.1 on two nodes in Y, found by the watchdog ---
if expect deadlock-none 1 "$T" run --dims 2,2,2 --ports D --deadlock none --load 1 --seed 2; then
	n=$(grep -o 'a cycle of [0-9]* channels' "$tmp/err" | grep -o '[0-9]*')
	chans=$(grep -c '^  ([0-9,]*)/c[01] [A-Za-z+-]* vc[0-9]*$' "$tmp/err")
	grep -q 'deadlock' "$tmp/err" && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$chans" = "$n" ] &&
	    ok deadlock-none || bad deadlock-none "$(cat "$tmp/err")"
fi
if expect deadlock-json 1 "$T" run --dims 2,2,2 --ports D --deadlock none --load 1 --seed 2 --json; then
	got=$(jq -r '[.deadlock, (.deadlock_channels | type), (.deadlock_channels | length > 0)]
	    | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true array true" ] && ok deadlock-json || bad deadlock-json "$got"
fi
for dl in vc bubble; do
	if expect "deadlock-$dl" 0 "$T" run --dims 2,2,2 --ports D --deadlock $dl --load 1 --seed 2 --json; then
		got=$(jq -r '[.deadlock, has("deadlock_channels"), .packets_delivered > 0]
		    | map(tostring) | join(" ")' <<<"$out")
		[ "$got" = "false false true" ] && [ ! -s "$tmp/err" ] &&
		    ok "deadlock-$dl" || bad "deadlock-$dl" "$got :: $(cat "$tmp/err")"
	fi
done

# --- every traffic pattern the binary names runs on 128 PEs (a power of two) ---
"$T" run --traffic no-such-pattern >/dev/null 2>"$tmp/err"
patterns=$(sed -n 's/.*use one of //p' "$tmp/err" | tr -d ',')
want="uniform hotspot tornado transpose bit-reversal bit-complement shuffle bit-rotate center-reflection neighbour random-permutation flows"
[ "$(tr ' ' '\n' <<<"$patterns" | sort | tr '\n' ' ')" = "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ')" ] &&
    ok pattern-list || bad pattern-list "got: $patterns"
for p in $patterns; do
	extra=()
	[ "$p" = flows ] && extra=(--flow 0:127 --flow 127:0 --flow 1,2,3/1:3,2,1/0)
	if expect "traffic-$p" 0 "$T" run --dims 4,4,4 --ports D --traffic "$p" "${extra[@]}" \
	    --warmup 200 --measure 1000 --json; then
		got=$(jq -r '[.traffic, .deadlock, .packets_delivered > 0, .offered_load > 0]
		    | map(tostring) | join(" ")' <<<"$out")
		[ "$got" = "$p false true true" ] && ok "traffic-$p" || bad "traffic-$p" "$got"
	fi
done
if expect traffic-hotspot-plain 0 "$T" run --dims 4,4 --plain --traffic hotspot \
    --hot 0 --hot-fraction 0.5 "${S[@]}" --json; then
	got=$(jq -r '[.pes, .twin, .traffic, .deadlock, .packets_delivered > 0]
	    | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "16 false hotspot false true" ] &&
	    ok traffic-hotspot-plain || bad traffic-hotspot-plain "$got"
fi
# neighbour traffic goes one link at most: the hop count says so
if expect traffic-neighbour-hops 0 "$T" run --traffic neighbour --dims 4,4,4 "${S[@]}" --json; then
	jq -e '.avg_hops < 2.5' <<<"$out" >/dev/null &&
	    ok traffic-neighbour-hops || bad traffic-neighbour-hops "$(jq .avg_hops <<<"$out")"
fi

# --- sweep: networks x loads, one row or object each ---
# twin 4x4x4: 1 port configuration x 2 schemes; plain 8x8 (no ports): 2 schemes;
# 4 networks x 2 loads = 8 points
SW=(--topo 4x4x4,8x8:plain --ports D --deadlock vc,bubble --loads 0.1,0.2 --warmup 200 --measure 1000)
if expect sweep-csv 0 "$T" sweep "${SW[@]}" --csv; then
	rows=$(($(wc -l <<<"$out") - 1))
	cols=$(awk -F, '{ print NF }' <<<"$out" | sort -u | wc -l)
	series=$(tail -n +2 <<<"$out" | cut -d, -f1 | sort | uniq -c | awk '{$1=$1; print}' | tr '\n' ';')
	want="2 2D 8x8 bubble;2 2D 8x8 vc;2 3DT 4x4x4 D bubble;2 3DT 4x4x4 D vc;"
	[ "$(head -1 <<<"$out" | cut -d, -f1)" = series ] && [ "$rows" = 8 ] &&
	    [ "$cols" = 1 ] && [ "$series" = "$want" ] &&
	    ok sweep-csv || bad sweep-csv "$rows rows, $cols column counts, series $series"
	[ ! -s "$tmp/err" ] && ! grep -q $'[\r\033]' <<<"$out" &&
	    ok sweep-quiet-piped || bad sweep-quiet-piped "stderr: $(cat -v "$tmp/err")"
fi
if expect sweep-json 0 "$T" sweep "${SW[@]}" --json; then
	got=$(jq -r '[type, length, (map(.load) | unique | map(tostring) | join(",")),
	    (map(.twin) | map(tostring) | unique | join(","))] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "array 8 0.1,0.2 false,true" ] && ok sweep-json || bad sweep-json "$got"
fi
if expect sweep-ports-all 0 "$T" sweep --dims 4,4,4 --ports all --loads 0.1 \
    --warmup 200 --measure 500 --csv; then
	got=$(tail -n +2 <<<"$out" | cut -d, -f4 | sort | tr -d '\n')
	[ "$got" = ABCDEFGHIJ ] && ok sweep-ports-all || bad sweep-ports-all "$got"
fi
if expect sweep-range 0 "$T" sweep --dims 4,4,4 --loads 0.05:0.2:0.05 \
    --warmup 200 --measure 500 --json; then
	got=$(jq -r 'map(.load | tostring) | join(",")' <<<"$out")
	[ "$got" = "0.05,0.1,0.15,0.2" ] && ok sweep-range || bad sweep-range "$got"
fi
if expect sweep-table 0 "$T" sweep --dims 4,4,4 --loads 0.1,0.2 --warmup 200 --measure 500; then
	grep -q 'peak accepted' <<<"$out" && ok sweep-table || bad sweep-table "$out"
fi
# a deadlocked point makes the sweep exit 1, and the JSON says which
if expect sweep-deadlock 1 "$T" sweep --dims 2,2,2 --ports D --deadlock none,vc \
    --loads 1 --seed 2 --json; then
	got=$(jq -r 'map(.deadlock | tostring) | join(",")' <<<"$out")
	[ "$got" = "true,false" ] && ok sweep-deadlock || bad sweep-deadlock "$got"
fi

# --- plot ---
if expect plot-sweep-csv 0 "$T" sweep --topo 4x4x4,4x4:plain --loads 0.1,0.2 \
    --warmup 200 --measure 500 --csv; then
	printf '%s\n' "$out" >"$tmp/sweep.csv"
	expect plot-png 0 "$T" plot "$tmp/sweep.csv" -o "$tmp/out.png" &&
	    { is_png "$tmp/out.png" && ok plot-png || bad plot-png "not a PNG"; }
	expect plot-svg 0 "$T" plot "$tmp/sweep.csv" -o "$tmp/out.svg" --title "two tori" &&
	    { is_svg "$tmp/out.svg" && grep -q 'two tori' "$tmp/out.svg" &&
	    grep -q '2D 4x4 vc' "$tmp/out.svg" && ok plot-svg || bad plot-svg "not the SVG wanted"; }
	# RFC 4180: every field quoted, CRLF line ends, a comma and doubled
	# quotes in a series name, a line break inside a field
	awk -F, 'BEGIN { OFS = "," } {
	    for (i = 1; i <= NF; i++) {
	        if (NR > 1 && $i == "2D 4x4 vc") $i = "2D 4x4, \"\"plain\"\" vc"
	        if (NR > 1 && i == 7) $i = $i "\n(pattern)"
	        $i = "\"" $i "\""
	    }
	    printf "%s\r\n", $0 }' "$tmp/sweep.csv" >"$tmp/quoted.csv"
	expect plot-quoted-csv 0 "$T" plot "$tmp/quoted.csv" -o "$tmp/quoted.svg" &&
	    { is_svg "$tmp/quoted.svg" && grep -q '2D 4x4, .*plain.* vc' "$tmp/quoted.svg" &&
	    grep -q '3DT 4x4x4 best vc' "$tmp/quoted.svg" && ok plot-quoted-csv ||
	    bad plot-quoted-csv "not both curves: $(grep -c '<path' "$tmp/quoted.svg") paths"; }
	# a quote that is never closed: the file and the line it starts on
	{ head -2 "$tmp/sweep.csv"; printf '"3DT 4x4x4,0.3\n'; } >"$tmp/unclosed.csv"
	if expect plot-unclosed-quote 2 "$T" plot "$tmp/unclosed.csv" -o "$tmp/unclosed.png"; then
		[ "$(cat "$tmp/err")" = "ttsim plot: $tmp/unclosed.csv:3: a quoted field is not closed" ] &&
		    [ ! -e "$tmp/unclosed.png" ] && ok plot-unclosed-quote ||
		    bad plot-unclosed-quote "$(cat "$tmp/err")"
	fi
	# with no gnuplot on PATH: say so, and how to get it
	abs=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
	PATH=/nonexistent "$abs" plot "$tmp/sweep.csv" -o "$tmp/none.png" >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" -ne 0 ] && grep -q 'gnuplot is not installed' "$tmp/err" &&
	    grep -q 'apt-get install gnuplot-nox' "$tmp/err" && [ ! -e "$tmp/none.png" ] &&
	    ok plot-no-gnuplot || bad plot-no-gnuplot "exit $st: $(cat "$tmp/err")"
fi
printf 'network,x,y\n3DT,0.1,0.1\n' >"$tmp/bad.csv"
if expect plot-bad-header 2 "$T" plot "$tmp/bad.csv" -o "$tmp/bad.png"; then
	grep -q "^ttsim plot: $tmp/bad.csv:1: " "$tmp/err" && [ ! -e "$tmp/bad.png" ] &&
	    ok plot-bad-header || bad plot-bad-header "$(cat "$tmp/err")"
fi
if expect run-csv-for-plot 0 "$T" run "${S[@]}" --csv; then
	printf '%s\n' "$out" >"$tmp/run.csv"
	expect plot-run-csv 0 "$T" plot "$tmp/run.csv" -o "$tmp/run.png" &&
	    { is_png "$tmp/run.png" && ok plot-run-csv || bad plot-run-csv "not a PNG"; }
fi
if expect sweep-plot 0 "$T" sweep --dims 4,4,4 --ports A,D --loads 0.1,0.3 \
    --warmup 200 --measure 1000 --plot "$tmp/sweep.svg"; then
	is_svg "$tmp/sweep.svg" && grep -q '3DT 4x4x4 A vc' "$tmp/sweep.svg" &&
	    ok sweep-plot || bad sweep-plot "no SVG with the A curve"
fi

# --- help ---
expect run-help 0 "$T" run --help && grep -q -- '--traffic NAME' <<<"$out" && ok run-help
expect sweep-help 0 "$T" sweep --help && grep -q -- '--topo LIST' <<<"$out" && ok sweep-help
expect plot-help 0 "$T" plot --help && grep -q 'gnuplot-nox' <<<"$out" && ok plot-help

# --help's defaults are the values a run without those flags uses: each
# "(default N)" of run --help against the run's JSON (the help prints the
# constants the code uses; this holds the two together)
"$T" run --help >"$tmp/run-help" 2>&1
help_default() {        # FLAG: the N of "(default N)" in FLAG's entry
	awk -v f="$1" '
	    $1 == f { on = 1; t = $0; next }
	    on && /^                        [^ ]/ { t = t " " $0; next }
	    on { exit }
	    END { if (match(t, /\(default [^)]*\)/))
		print substr(t, RSTART + 9, RLENGTH - 10) }' "$tmp/run-help"
}
if expect help-defaults 0 "$T" run --dims 2,2,2 --json; then
	wrong=""
	for pair in load:.load seed:.seed packet-flits:.packet_flits \
	    buffer-flits:.buffer_flits router-latency:.router_latency \
	    link-latency:.link_latency warmup:.warmup measure:.measure \
	    warmup-max:.warmup_max; do
		flag=--${pair%%:*} key=${pair#*:}
		want=$(help_default "$flag")
		got=$(jq -r "$key" <<<"$out")
		[ -n "$want" ] && [ "$(jq -n "$want == $got")" = true ] ||
		    wrong="$wrong $flag: --help says '${want}', a run uses $got;"
	done
	[ -z "$wrong" ] && ok help-defaults || bad help-defaults "$wrong"
fi

# --- no key appears twice in an object (the scheme is "scheme", the
# watchdog's verdict "deadlock") ---
if expect json-unique-keys 0 "$T" run --dims 4,4,4 --ports D --warmup 100 --measure 300 --json; then
	dup=$(jq -n --stream -c '[inputs | select(length == 2) | .[0] | select(length == 1) | .[0]]
	    | group_by(.) | map(select(length > 1) | .[0])' <<<"$out")
	got=$(jq -r '[.scheme, .deadlock] | join(" ")' <<<"$out")
	[ "$dup" = "[]" ] && [ "$got" = "vc false" ] && ok json-unique-keys ||
	    bad json-unique-keys "duplicates $dup; scheme/deadlock $got"
fi
# --- steady state: a window given is run as given and only flagged; with
# none, a failing window becomes warm-up, up to --warmup-max ---
if expect steady-given 0 "$T" run --dims 4,4,4 --ports D --deadlock bubble --load 1 \
    --warmup 700 --measure 3000 --json; then
	got=$(jq -r '[.warmup, .measure, .converged, .saturated] | join(" ")' <<<"$out")
	[ "$got" = "700 3000 false true" ] && ok steady-given || bad steady-given "$got"
fi
if expect steady-low 0 "$T" run --dims 4,4,4 --ports D --deadlock bubble --load 0.1 \
    --seed 2 --json; then
	got=$(jq -r '[.warmup, .converged, .throughput_converged, .warmup_max] | join(" ")' <<<"$out")
	[ "$got" = "2000 true true 100000" ] && ok steady-low || bad steady-low "$got"
fi
# just past saturation the buffers fill for tens of thousands of cycles
if expect steady-extends 0 "$T" run --dims 4,4,4 --ports D --deadlock bubble --load 0.4 \
    --json; then
	got=$(jq -r '[.warmup > 2000, .warmup <= 100000, (.warmup - 2000) % 10000 == 0,
	    .converged, .saturated] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true true true false true" ] && ok steady-extends || bad steady-extends "$got"
fi
if expect steady-cap 0 "$T" run --dims 4,4,4 --ports D --deadlock bubble --load 0.4 \
    --warmup-max 0 --json; then
	got=$(jq -r '[.warmup, .converged] | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "2000 false" ] && ok steady-cap || bad steady-cap "$got"
fi
if expect steady-text 0 "$T" run --dims 4,4,4 --load 0.1 --warmup 500 --measure 2000; then
	grep -q '^  steady state        \(converged\|not converged\)' <<<"$out" &&
	    ok steady-text || bad steady-text "$out"
fi
# --- sweep: a saturating curve gets loads across its knee, a step of
# --refine (0.01 by default) at most apart; --refine 0 keeps the grid ---
R=(--dims 4,4,4 --ports D --deadlock bubble --loads 0.3,0.5 --warmup 500 --measure 2000)
if expect sweep-refine 0 "$T" sweep "${R[@]}" --json; then
	got=$(jq -r '[length > 2, (map(.load) | min) == 0.3, (map(.load) | max) == 0.5,
	    ([.[] | select(.saturated | not) | .load] | max) as $lo |
	    ([.[] | select(.saturated) | .load] | min) as $hi | ($hi - $lo) <= 0.0100001]
	    | map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true true true true" ] && ok sweep-refine || bad sweep-refine "$got"
fi
if expect sweep-refine-off 0 "$T" sweep "${R[@]}" --refine 0 --json; then
	[ "$(jq length <<<"$out")" = 2 ] && ok sweep-refine-off || bad sweep-refine-off "$out"
fi
if expect sweep-steady-peak 0 "$T" sweep "${R[@]}"; then
	grep -q 'steady-state peak accepted 0\.[0-9]* (at load 0\.[0-9]*)' <<<"$out" &&
	    ok sweep-steady-peak || bad sweep-steady-peak "$out"
fi
# --- the rules that match another simulator: named in the JSON and, off
# the seed model's, in the series ---
if expect rules-json 0 "$T" run --dims 4,4 --plain --ties random --ring-vc entry \
    --uniform-self "${S[@]}" --json; then
	got=$(jq -r '[.ties, .ring_vc, .uniform_self, .series, .deadlock] | map(tostring) | join(";")' <<<"$out")
	[ "$got" = "random;entry;true;2D 4x4 vc ties:random ring-vc:entry;false" ] &&
	    ok rules-json || bad rules-json "$got"
fi
if expect rules-default 0 "$T" run --dims 4,4,4 "${S[@]}" --json; then
	got=$(jq -r '[.type1_vc, .ties, .ring_vc, has("uniform_self"), .series] | map(tostring) | join(";")' <<<"$out")
	[ "$got" = "port;plus;hop;false;3DT 4x4x4 best vc" ] && ok rules-default || bad rules-default "$got"
fi
if expect rules-room 0 "$T" run --dims 4,4,4 --ports D --deadlock bubble --type1-vc room "${S[@]}" --json; then
	[ "$(jq -r .series <<<"$out")" = "3DT 4x4x4 D bubble type1-vc:room" ] &&
	    ok rules-room || bad rules-room "$(jq -r .series <<<"$out")"
fi

# --- packets of the window left undelivered: none below saturation, many
# far above it (and then the run says the latencies cover the rest) ---
if expect undelivered-low 0 "$T" run --dims 4,4,4 --ports A "${S[@]}" --load 0.1 --json; then
	got=$(jq -r '[.window_packets_undelivered, .saturated] | join(" ")' <<<"$out")
	[ "$got" = "0 false" ] && ok undelivered-low || bad undelivered-low "$got"
fi
if expect undelivered-high 0 "$T" run --dims 4,4,4 --ports A "${S[@]}" --load 1 --drain 500; then
	grep -q 'not delivered  *[1-9][0-9]* packets of the window' <<<"$out" &&
	    ok undelivered-high || bad undelivered-high "$out"
fi
# --- a sweep checks every network before it runs the first point ---
if expect sweep-checks-first 2 "$T" sweep --topo 4x4x4,5x5x5 --traffic bit-reversal \
    --loads 0.1 --warmup 100 --measure 300 --json; then
	[ -z "$out" ] && grep -q '5x5x5: traffic bit-reversal' "$tmp/err" &&
	    ok sweep-checks-first || bad sweep-checks-first "stdout: $out"
fi
# --- a plot that cannot be written fails before gnuplot writes anywhere ---
if expect plot-unwritable 2 "$T" plot "$tmp/sweep.csv" -o /nonexistent/dir/x.png; then
	[ -z "$out" ] && grep -q 'cannot write there' "$tmp/err" &&
	    ok plot-unwritable || bad plot-unwritable "stdout ${#out} bytes: $(cat "$tmp/err")"
fi
# --- quotes in a title or a file name reach gnuplot intact ---
if expect plot-quotes 0 "$T" plot "$tmp/sweep.csv" -o "$tmp/it's.png" --title "it's"; then
	is_png "$tmp/it's.png" && ok plot-quotes || bad plot-quotes "$(cat "$tmp/err")"
fi

# --- the sweep's table names the load asked for (--loads) and the offered
# and accepted loads measured apart, as the CSV and JSON do ---
if expect sweep-table-loads 0 "$T" sweep --dims 2,2,2 --loads 0.15 "${S[@]}"; then
	head=$(head -1 <<<"$out" | awk '{print $2, $3, $4}')
	row=$(sed -n 2p <<<"$out" | awk '{print $(NF-8), $(NF-7), $(NF-6)}')
	want=$("$T" sweep --dims 2,2,2 --loads 0.15 "${S[@]}" --json |
	    jq -r '.[0] | "\(.load) \(.offered_load) \(.accepted_load)"')
	csv=$("$T" sweep --dims 2,2,2 --loads 0.15 "${S[@]}" --csv | head -1 | cut -d, -f8-10)
	# the table's 4 decimals against the JSON's
	same=$(awk -v r="$row" -v w="$want" 'BEGIN { split(r, a, " "); split(w, b, " ");
	    d = 0; for (i = 1; i <= 3; i++) if (a[i] - b[i] > 6e-5 || b[i] - a[i] > 6e-5) d = 1;
	    print (d ? "no" : "yes") }')
	[ "$head" = "load offered accepted" ] && [ "$same" = yes ] &&
	    [ "$csv" = "load,offered_load,accepted_load" ] && ok sweep-table-loads ||
	    bad sweep-table-loads "header '$head', row '$row', JSON '$want', CSV '$csv'"
fi

# --- a load above 1 flit/PE/cycle: one warning saying what load means,
# and the run goes on; above the packet (a packet a cycle) refused, by
# sweep before its first point ---
want="warning: --load 1.5 is above 1: a load is flits per PE per cycle, and a PE's injection port takes one flit a cycle"
if expect load-above-1 0 "$T" run --dims 2,2,2 --load 1.5 "${S[@]}" --json; then
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "ttsim run: $want" "$tmp/err" &&
	    [ "$(jq '.offered_load > 1.4' <<<"$out")" = true ] &&
	    ok load-above-1 || bad load-above-1 "$(cat "$tmp/err")"
fi
if expect load-1-no-warning 0 "$T" run --dims 2,2,2 --load 1 "${S[@]}" --json; then
	[ ! -s "$tmp/err" ] && ok load-1-no-warning || bad load-1-no-warning "$(cat "$tmp/err")"
fi
if expect sweep-load-above-1 0 "$T" sweep --dims 2,2,2 --loads 0.5,1.5,1.2 --refine 0 "${S[@]}" --csv; then
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "ttsim sweep: warning: --loads up to 1.5 is above 1" "$tmp/err" &&
	    [ "$(wc -l <<<"$out")" = 4 ] && ok sweep-load-above-1 ||
	    bad sweep-load-above-1 "$(cat "$tmp/err")"
fi
if expect sweep-load-above-packet 2 "$T" sweep --dims 2,2,2 --loads 0.5,5 "${S[@]}" --csv; then
	[ -z "$out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	    grep -qF "load 5 is not an offered load" "$tmp/err" && ok sweep-load-above-packet ||
	    bad sweep-load-above-packet "stdout: $out; $(cat "$tmp/err")"
fi

# bad flags: the golden errors of tests/cli/flags/ run in tests/cli/flags.sh

finish
