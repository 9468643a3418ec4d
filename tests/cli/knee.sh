#!/usr/bin/env bash
# A sweep's knee refinement (ttsim sweep --refine, sim/cmd_sweep.c
# curve_round()): rounds of loads that depend on the curve's results alone,
# so --jobs 1 and --jobs 2 print the same bytes; the first round cuts the
# grid's knee into five equal parts at once (no load waits for another of
# its round); the added loads lie across the grid's knee; the knee ends at
# most --refine wide and the steady-state peak's neighbours at most
# --refine away; at most 10 loads a curve.  A few seconds; nothing timed.
# shellcheck disable=SC2015,SC2054  # "check && ok || bad": ok cannot fail; commas in flag values
. "$(dirname "$0")/lib.sh"

# two saturating curves on a grid 0.1 apart (D's knee between 0.4 and 0.5,
# A's between 0.2 and 0.3), short fixed windows
GRID=0.1,0.2,0.3,0.4,0.5
SW=(sweep --dims 4,4,4 --ports D,A --deadlock vc --loads "$GRID" --warmup 500
    --measure 2000 --drain 2000)

# same NAME ARGS...: stdout and exit status of --jobs 1 and --jobs 2 alike;
# --jobs 1's stdout left in $tmp/NAME
same() {
	local name=$1 st1 st2
	shift
	"$T" "$@" --jobs 1 >"$tmp/$name" 2>"$tmp/$name.err1"; st1=$?
	"$T" "$@" --jobs 2 >"$tmp/$name.2" 2>"$tmp/$name.err2"; st2=$?
	if [ "$st1" = 0 ] && [ "$st2" = 0 ] && [ -s "$tmp/$name" ] &&
	    cmp -s "$tmp/$name" "$tmp/$name.2"; then
		ok "$name-jobs-1-2"
	else
		bad "$name-jobs-1-2" "exit $st1 / $st2; $(diff "$tmp/$name" "$tmp/$name.2" | head -5; head -3 "$tmp/$name.err2")"
	fi
}
same table "${SW[@]}"
same csv "${SW[@]}" --csv

# curves FILE NGRID STEP: per curve of the CSV, one line: its name, then
# what the checks below read (space-separated, 1 yes / 0 no):
#   added    how many loads the refinement added (rows after the grid's)
#   first    the first four added are the grid's knee cut into five
#   inside   every added load lies in the grid's knee, ends excluded
#   knee     the knee after refinement is at most STEP wide
#   peak     the steady-state peak's neighbours are at most STEP away
# A point's "saturated" is the saturated or the deadlock column, as the
# sweep takes it.
curves() {
	awk -F, -v ngrid="$2" -v step="$3" '
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		s = $c["series"]
		if (!(s in n)) { order[m++] = s; n[s] = 0 }
		k = n[s]++
		load[s, k] = $c["load"] + 0
		sat[s, k] = $c["saturated"] != 0 || $c["deadlock"] != 0
		acc[s, k] = $c["accepted_load"] + 0
		steady[s, k] = $c["throughput_converged"] != 0 && $c["deadlock"] == 0
	}
	# the knee of the first K points of s: lo, hi (-1: none)
	function knee(s, K,   i) {
		lo = -1; hi = -1
		for (i = 0; i < K; i++) if (!sat[s, i] && load[s, i] > lo) lo = load[s, i]
		for (i = 0; i < K; i++)
			if (sat[s, i] && load[s, i] > lo && (hi < 0 || load[s, i] < hi)) hi = load[s, i]
	}
	END {
		for (j = 0; j < m; j++) {
			s = order[j]; N = n[s]
			knee(s, ngrid); glo = lo; ghi = hi
			first = N >= ngrid + 4 && glo >= 0 && ghi >= 0
			for (i = 1; i <= 4 && first; i++) {
				d = load[s, ngrid + i - 1] - (glo + (ghi - glo) * i / 5)
				if (d > 1e-6 || d < -1e-6) first = 0
			}
			inside = glo >= 0 && ghi >= 0
			for (i = ngrid; i < N; i++)
				if (load[s, i] <= glo + 1e-9 || load[s, i] >= ghi - 1e-9) inside = 0
			knee(s, N)
			kn = lo >= 0 && hi >= 0 && hi - lo <= step + 1e-9
			p = -1
			for (i = 0; i < N; i++) if (steady[s, i] && (p < 0 || acc[s, i] > acc[s, p])) p = i
			pk = p >= 0
			for (i = 0; i < N && pk; i++) {
				d = load[s, i] - load[s, p]; if (d < 0) d = -d
				if (d <= 1e-9) continue
				# a load nearer than any other on its side
				near = 1
				for (q = 0; q < N; q++) {
					e = load[s, q] - load[s, p]
					if ((e > 1e-9 && load[s, i] > load[s, p] && e < load[s, i] - load[s, p] - 1e-9) ||
					    (e < -1e-9 && load[s, i] < load[s, p] && e > load[s, i] - load[s, p] + 1e-9)) near = 0
				}
				if (near && d > step + 1e-9) pk = 0
			}
			printf "%s: %d %d %d %d %d\n", s, N - ngrid, first, inside, kn, pk
		}
	}' "$1"
}

got=$(curves "$tmp/csv" 5 0.01)
# each curve saturates, so each is refined; the grid knee is 0.1 wide, so
# its first round is four loads 0.02 apart, and one more round at most
# closes it to 0.01
while read -r line; do
	name=${line%%:*}
	read -r added first inside kn pk <<<"${line#*: }"
	[ "$added" -ge 5 ] && [ "$added" -le 10 ] && ok "$name: refined ($added loads)" ||
	    bad "$name: refined" "$added loads added; $(cut -d, -f1,8,22 "$tmp/csv")"
	[ "$first" = 1 ] && ok "$name: first round, the knee cut in five" ||
	    bad "$name: first round, the knee cut in five" "$(cut -d, -f1,8,22 "$tmp/csv")"
	[ "$inside" = 1 ] && ok "$name: added loads across the grid's knee" ||
	    bad "$name: added loads across the grid's knee" "$(cut -d, -f1,8,22 "$tmp/csv")"
	[ "$kn" = 1 ] && ok "$name: knee at most 0.01 wide" ||
	    bad "$name: knee at most 0.01 wide" "$(cut -d, -f1,8,22 "$tmp/csv")"
	[ "$pk" = 1 ] && ok "$name: peak's neighbours at most 0.01 away" ||
	    bad "$name: peak's neighbours at most 0.01 away" "$(cut -d, -f1,8,22,28 "$tmp/csv")"
done <<<"$got"
[ "$(wc -l <<<"$got")" = 2 ] && ok "two curves" || bad "two curves" "$got"
# the table's summary names the refined knee: D saturates at one of the
# loads added across 0.4-0.5
grep -q '^  saturates at 0\.4[1-9][0-9] flits/cycle/PE offered' "$tmp/table" &&
    ok "table: D's knee refined" || bad "table: D's knee refined" "$(cat "$tmp/table")"

# a knee far wider than --refine: rounds until 10 loads (the most a curve
# gets), the same bytes whatever --jobs
same cap sweep --dims 4,4,4 --ports A --deadlock vc --loads 0.1,1 --refine 0.001 \
    --warmup 500 --measure 2000 --drain 2000 --csv
rows=$(($(wc -l <"$tmp/cap") - 1))
[ "$rows" = 12 ] && ok "at most 10 loads a curve (2 + 10 rows)" ||
    bad "at most 10 loads a curve" "$rows rows; $(cut -d, -f1,8,22 "$tmp/cap")"

# --refine 0: the grid alone
same off "${SW[@]}" --refine 0 --csv
rows=$(($(wc -l <"$tmp/off") - 1))
[ "$rows" = 10 ] && ok "--refine 0: the grid's 10 rows" || bad "--refine 0" "$rows rows"

finish
