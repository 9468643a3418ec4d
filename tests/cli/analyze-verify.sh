#!/usr/bin/env bash
# ttsim analyze and ttsim verify as a user runs them: the JSON keys,
# values checked against the seed's closed forms (oracles,
# computed here), exit codes, and the cycles of seed 000 Examples 6.1/6.2.
. "$(dirname "$0")/lib.sh"

# --- analyze, one configuration, JSON ---
if expect analyze-json 0 "$T" analyze --dims 4,4,4 --ports D --json; then
	k=4
	want=$(( (k*k*k*k - 4*k*k + 4) / 4 ))	# seed 000 Table 8, D (corrected)
	got=$(jq -r '[.dims==[4,4,4], .ports=="D", .pes==128, .diameter==2*4,
	    .internal_transit_paths, .vcs==4, .deadlock_free==true,
	    (.avg_distance|type)=="number", (.avg_dor_hops>=.avg_distance)] |
	    map(tostring) | join(" ")' <<<"$out")
	[ "$got" = "true true true true $want true true true true" ] &&
	    ok analyze-json || bad analyze-json "$got"
fi

# --- every key of the contract is present ---
if expect analyze-keys 0 "$T" analyze --dims 3,3,3 --ports A --deadlock bubble --json; then
	missing=$(jq -r '["dims","ports","pes","diameter","avg_distance",
	    "avg_dor_hops","internal_transit_paths","vcs","deadlock_free"] -
	    keys | join(",")' <<<"$out")
	[ -z "$missing" ] && [ "$(jq .vcs <<<"$out")" = 4 ] &&
	    ok analyze-keys || bad analyze-keys "missing: $missing"
fi

# --- --ports all: A..J sorted by load, D first for even k, D and G tied odd ---
if expect ports-all-even 0 "$T" analyze --dims 6,6,6 --ports all --json; then
	got=$(jq -r 'length, .[0].ports, .[0].is_best' <<<"$out" | tr '\n' ' ')
	[ "$got" = "10 D true " ] && ok ports-all-even || bad ports-all-even "$got"
fi
if expect ports-all-odd 0 "$T" analyze --dims 5,5,5 --ports all --json; then
	got=$(jq -r '[.[0].ports, .[1].ports] | sort | join(",")' <<<"$out")
	[ "$got" = "D,G" ] && ok ports-all-odd || bad ports-all-odd "$got"
fi
if expect ports-all-4d 0 "$T" analyze --dims 3,3,3,3 --ports all --json; then
	got=$(jq -r 'length, ([.[] | select(.is_best)] | length), .[0].is_best' <<<"$out" | tr '\n' ' ')
	[ "$got" = "35 1 true " ] && ok ports-all-4d || bad ports-all-4d "$got"
fi
if expect ports-all-5d 0 "$T" analyze --dims 2,2,2,2,2 --ports all --json; then
	[ "$(jq length <<<"$out")" = 126 ] && ok ports-all-5d || bad ports-all-5d
fi
if expect ports-all-table 0 "$T" analyze --dims 4,4,4 --ports all; then
	grep -q '^\* D=best ' <<<"$out" && ok ports-all-table || bad ports-all-table "$out"
fi
if expect plain 0 "$T" analyze --dims 16,8 --plain --json; then
	got=$(jq -r '[.pes, .diameter, .vcs, .internal_transit_paths] | join(" ")' <<<"$out")
	[ "$got" = "128 12 0 0" ] && ok plain || bad plain "$got"
fi

# --- verify: vc free for all ten at 4x4x4 and 5x5x5, best in 4D and 5D ---
for d in 4,4,4 5,5,5; do
	for dl in vc bubble; do
		expect "verify-$d-$dl" 0 "$T" verify --dims $d --ports all --deadlock $dl &&
		    [ "$(grep -c 'deadlock-free: ' <<<"$out")" = 10 ] &&
		    ok "verify-$d-$dl"
	done
done
# every 4DT configuration, with the per-run type-1 VCs (README)
for dl in vc bubble; do
	expect "verify-4d-all-$dl" 0 "$T" verify --dims 3,3,3,3 --ports all --deadlock $dl &&
	    [ "$(grep -c 'deadlock-free: ' <<<"$out")" = 35 ] && ok "verify-4d-all-$dl"
done
expect verify-best-4d 0 "$T" verify --dims 4,4,4,4 --ports best && ok verify-best-4d
expect verify-best-5d 0 "$T" verify --dims 3,3,3,3,3 --ports best && ok verify-best-5d

# --- type-1 lanes (seed 000 §7.1 footnote 5): D under bubble has 3 classes
# on 4 internal-link VCs, type 1 owns VCs 0 and 3, so a card has 3 external
# channels and 4 internal ones (3 with --type1-vc room, the class graph);
# the VCs the scheme needs stay 3 ---
if expect lanes-d-bubble 0 "$T" analyze --dims 4,4,4 --ports D --deadlock bubble --json; then
	got=$(jq -r '[.vcs, .channels, .deadlock_free] | join(" ")' <<<"$out")
	[ "$got" = "3 $((128 * 7)) true" ] && ok lanes-d-bubble || bad lanes-d-bubble "$got"
fi
if expect lanes-d-bubble-room 0 "$T" analyze --dims 4,4,4 --ports D --deadlock bubble \
    --type1-vc room --json; then
	got=$(jq -r '[.vcs, .channels, .deadlock_free] | join(" ")' <<<"$out")
	[ "$got" = "3 $((128 * 6)) true" ] && ok lanes-d-bubble-room || bad lanes-d-bubble-room "$got"
fi
# under vc D has one VC per class: no lanes, the channels of before
if expect lanes-d-vc 0 "$T" analyze --dims 4,4,4 --ports D --json; then
	got=$(jq -r '[.vcs, .channels] | join(" ")' <<<"$out")
	[ "$got" = "4 $((128 * 10))" ] && ok lanes-d-vc || bad lanes-d-vc "$got"
fi
# the rules that match another simulator keep every graph acyclic
for dl in vc bubble; do
	expect "verify-rules-$dl" 0 "$T" verify --dims 4,4,4 --ports all --deadlock $dl \
	    --ties random --ring-vc entry &&
	    [ "$(grep -c 'deadlock-free: ' <<<"$out")" = 10 ] && ok "verify-rules-$dl"
done

# --- verify: none deadlocks, exit 1 with the cycle ---
if expect verify-none 1 "$T" verify --dims 4,4,4 --ports D --deadlock none; then
	grep -q 'DEADLOCK POSSIBLE: a cycle of' <<<"$out" && ok verify-none || bad verify-none "$out"
fi
# seed 000 Example 6.1: two nodes in Y, configuration D
if expect example-6.1 1 "$T" verify --dims 4,2,4 --ports D --deadlock none --json \
    --flow 1,0,2/0:1,1,2/0 --flow 1,1,2/0:1,0,2/0 \
    --flow 1,0,2/1:1,1,2/1 --flow 1,1,2/1:1,0,2/1; then
	got=$(jq -r '.cycle | sort | join(";")' <<<"$out")
	want="(1,0,2)/c0 Y+ vc0;(1,0,2)/c1 int vc0;(1,1,2)/c0 Y+ vc0;(1,1,2)/c1 int vc0"
	[ "$got" = "$want" ] && ok example-6.1 || bad example-6.1 "$got"
fi
expect example-6.1-vc 0 "$T" verify --dims 4,2,4 --ports D --deadlock vc \
    --flow 1,0,2/0:1,1,2/0 --flow 1,1,2/0:1,0,2/0 \
    --flow 1,0,2/1:1,1,2/1 --flow 1,1,2/1:1,0,2/1 && ok example-6.1-vc
# seed 000 Example 6.2: PE1 <x,y,z> -> PE0 <x+1,y,z+1> and back
if expect example-6.2 1 "$T" verify --dims 4,4,4 --ports D --deadlock none --json \
    --flow 1,1,1/1:2,1,2/0 --flow 2,1,2/1:1,1,1/0; then
	got=$(jq -r '.cycle | length' <<<"$out")
	[ "$got" = 8 ] && ok example-6.2 || bad example-6.2 "$out"
fi

# --- help and version ---
expect help 0 "$T" --help && grep -q '^usage: ttsim' <<<"$out" && ok help
expect analyze-help 0 "$T" analyze --help && grep -q 'internal_transit_paths' <<<"$out" && ok analyze-help
expect verify-help 0 "$T" verify --help && grep -q -- '--flow' <<<"$out" && ok verify-help

# --- big networks: a warning before a long walk, progress on a terminal ---
tmpd=$tmp/progress
mkdir "$tmpd"
# 4096 PEs: 16.8 million routes of some 17 hops.  The warning comes before
# the walk, so the run is stopped once it is there.
"$T" analyze --dims 64,64 --plain >/dev/null 2>"$tmpd/err" &
pid=$!
for _ in $(seq 200); do
	[ -s "$tmpd/err" ] && break
	sleep 0.05
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
got=$(head -1 "$tmpd/err")
[ "$got" = "ttsim analyze: warning: 2D 64x64 has 4096 PEs: walking the routes of all 1.68e+07 pairs of them may take minutes (--progress shows how far it is)" ] &&
    ok analyze-big-warning || bad analyze-big-warning "$got"
expect analyze-small-quiet 0 "$T" analyze --dims 8,8,8 &&
    { [ ! -s "$tmp/err" ] && ok analyze-small-quiet ||
    bad analyze-small-quiet "$(cat "$tmp/err")"; }
# On a terminal (script(1) gives the command one) progress rewrites a line
# on stderr: "ttsim analyze, TITLE: NN%, S s left"; TTSIM_PROGRESS_AFTER=0 shows it from
# the start instead of after a second.
if command -v script >/dev/null 2>&1; then
	TTSIM_PROGRESS_AFTER=0 script -q -e -c "$T analyze --dims 16,16 >/dev/null" \
	    "$tmpd/typescript" >/dev/null 2>&1
	n=$(tr '\r' '\n' <"$tmpd/typescript" | grep -cE '^ttsim analyze, 2DT 16x16: +[0-9]+%, [0-9]+ s left')
	[ "$n" -ge 2 ] && ok "analyze-progress-terminal ($n lines)" ||
	    bad analyze-progress-terminal "$(cat -v "$tmpd/typescript" | head -5)"
	"$T" analyze --dims 16,16 >/dev/null 2>"$tmpd/err"
	[ ! -s "$tmpd/err" ] && ok analyze-progress-not-piped ||
	    bad analyze-progress-not-piped "$(cat "$tmpd/err")"
else
	skip analyze-progress-terminal "script(1) is not installed"
fi

# bad flags: the golden errors of tests/cli/flags/ run in tests/cli/flags.sh

finish
