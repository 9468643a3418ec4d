#!/usr/bin/env bash
# The generated networks as a user names them: --topology on analyze,
# verify and run, the YAML topology: key, the list continuation rule of
# replay --compare, bad specs (exit 2 naming the token), and what the
# unit tests cannot afford: 3D-TESH at L = 3 enumerated whole (Faisal,
# 3D-TESH, Tables 3.4 and 4.2, eq. 4.2) and the cycles of the papers' own
# VC counts (MH3DT's 2 VCs; one pair for every 3D-TESH level at L = 3).
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

# --- analyze: the keys, for every kind ---
for spec in pruned:k=4 msn:k=4 pruned-msn:k=4 mh3dt:m=3,n=2 tesh:L=1; do
	if expect "analyze $spec" 0 "$T" analyze --topology "$spec" --json; then
		got=$(jq -r '[has("nodes"), has("pes"), has("links"),
		    has("degree_min"), has("degree_max"), has("diameter"),
		    has("avg_distance"), has("avg_route_hops"),
		    has("max_route_hops"), has("bisection"), has("vcs"),
		    .deadlock_free, .max_route_hops >= .diameter] | all' <<<"$out")
		[ "$got" = true ] && ok "analyze $spec" || bad "analyze $spec" "$out"
	fi
done

# --- 3D-TESH L = 3, whole: 16,384 nodes ---
if expect tesh-L3 0 "$T" analyze --topology tesh:m=2,L=3,q=0 --json; then
	got=$(jq -c '[.nodes, .links, .degree_max, .bisection, .max_route_hops,
	    .deadlock_free]' <<<"$out")
	[ "$got" = '[16384,45056,6,512,34,true]' ] && ok tesh-L3 ||
	    bad tesh-L3 "$got"
fi

# --- the papers' VC counts: verify shows the cycle, exit 1 ---
for spec in mh3dt:m=4,n=4,vcs=2 tesh:L=3,vcs=4; do
	if expect "cycle $spec" 1 "$T" verify --topology "$spec"; then
		grep -q 'DEADLOCK POSSIBLE: a cycle of' <<<"$out" &&
		    ok "cycle $spec" || bad "cycle $spec" "$out"
	fi
done
for spec in mh3dt:m=4,n=4 tesh:L=2 pruned:k=8 msn:k=6 pruned-msn:k=6; do
	expect "verify $spec" 0 "$T" verify --topology "$spec" &&
	    ok "verify $spec"
done

# --- bad specs: exit 2, the token named ---
while IFS='|' read -r spec says; do
	if expect "bad $spec" 2 "$T" analyze --topology "$spec"; then
		grep -qF -- "$says" "$tmp/err" && ok "bad $spec" ||
		    bad "bad $spec" "$(cat "$tmp/err")"
	fi
done <<'LIST'
hypercube:n=4|'hypercube' is not a network
pruned:k=8,z=1|'z' is not a key of pruned
pruned:k=7|k=7
tesh:L=6|L=6
mh3dt:q=1|q=1
pruned:k=8,k=4|'k=4': k is given twice
tesh:L=1,q=0,L=2|L is given twice
pruned:k=8,n=0|pruned: n=0
pruned:k=0|pruned: k=0
tesh:m=2,L=0,q=0|tesh: L=0
tesh:m=0,L=1|tesh: m=0
mh3dt:m=3,n=0|mh3dt: n=0
mh3dt:m=3,n=2,L=0|mh3dt: L=0
mh3dt:m=3,n=2,q=0|mh3dt: q=0
mh3dt:m=3,n=2,vcs=0|mh3dt: vcs=0
LIST
# an explicit q=0 is 3D-TESH's one valid q, not a default
if expect "tesh q=0" 0 "$T" analyze --topology tesh:q=0,L=1 --json; then
	[ "$(jq -r .topology <<<"$out")" = tesh:m=2,L=1,q=0 ] &&
	    ok "tesh q=0" || bad "tesh q=0" "$out"
fi
# 3D-TESH L = 4: refused whole (6.9e10 pairs), a chosen route verified
for cmd in analyze verify; do
	if expect "refuse $cmd tesh:L=4" 2 "$T" $cmd --topology tesh:L=4; then
		grep -q '262144 nodes' "$tmp/err" && ok "refuse $cmd tesh:L=4" ||
		    bad "refuse $cmd tesh:L=4" "$(cat "$tmp/err")"
	fi
done
expect "flow tesh:L=4" 0 "$T" verify --topology tesh:L=4 --flow 0:262143 &&
	ok "flow tesh:L=4"
expect "topology with dims" 2 "$T" run --topology tesh:L=1 --dims 4,4,4 &&
	{ grep -q -- '--dims' "$tmp/err" && ok "topology with dims" ||
	    bad "topology with dims" "$(cat "$tmp/err")"; }

# --- YAML topology: ---
printf 'topology: {kind: tesh, L: 1}\n' >"$tmp/t.yaml"
if expect yaml-topology 0 "$T" analyze "$tmp/t.yaml" --json; then
	[ "$(jq -r .topology <<<"$out")" = tesh:m=2,L=1,q=0 ] &&
	    ok yaml-topology || bad yaml-topology "$out"
fi

# --- run, and replay --compare: D,msn:k=4,n=2 is two networks ---
if expect run-tesh 0 "$T" run --topology tesh:L=1 --load 0.05 --measure 1000 --json; then
	jq -e '.deadlock == false and .packets_delivered > 0' <<<"$out" >/dev/null &&
	    ok run-tesh || bad run-tesh "$out"
fi
"$T" trace synth --dims 2,2,2 --app alltoall --iterations 1 -o "$tmp/a.pcap" \
    >/dev/null 2>&1
if expect compare-list 0 "$T" replay "$tmp/a.pcap" --dims 2,2,2 \
    --compare D,msn:k=4,n=2 --json; then
	got=$(jq -r '.networks | length' \
	    <<<"$out" 2>/dev/null)
	[ "$got" = 2 ] && ok compare-list || bad compare-list "$out"
fi

# --- sweep's CSV quotes a name with commas, and plot reads it back ---
if expect sweep-csv 0 "$T" sweep --topo 4x4x2,tesh:m=2,L=1,q=0 --loads 0.1 \
    --warmup 200 --measure 500 --csv; then
	grep -q '^"tesh:m=2,L=1,q=0",,0,tesh,' <<<"$out" && ok sweep-csv ||
	    bad sweep-csv "$out"
fi
# a key repeated inside a list is the spec's, not a new network
if expect sweep-repeat 2 "$T" sweep --topo 4x4x2,tesh:L=1,L=2 --loads 0.1 \
    --warmup 200 --measure 500 --csv; then
	grep -qF 'L is given twice' "$tmp/err" && ok sweep-repeat ||
	    bad sweep-repeat "$(cat "$tmp/err")"
fi

finish
