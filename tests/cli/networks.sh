#!/usr/bin/env bash
# The generated networks as a user names them: --topology on analyze,
# verify and run, the YAML topology: key, the list continuation rule of
# replay --compare, bad specs (exit 2 naming the token), and what the
# unit tests cannot afford: 3D-TESH at L = 3 enumerated whole (Faisal,
# 3D-TESH, Tables 3.4 and 4.2, eq. 4.2) and the cycles of the papers' own
# VC counts (MH3DT's 2 VCs; one pair for every 3D-TESH level at L = 3).
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

# --- analyze: the keys, for every kind (tori by keys and by dims too) ---
for spec in torus:k=4 twin:k=4 twin:4x4x4 plain:k=3,n=4 pruned:k=4 msn:k=4 \
    pruned-msn:k=4 mh3dt:m=3,n=2 tesh:L=1; do
	if expect "analyze $spec" 0 "$T" analyze --topology "$spec" --json; then
		got=$(jq -r '[has("nodes"), has("pes"), has("links"),
		    has("degree_min"), has("degree_max"), has("diameter"),
		    has("avg_distance"), has("avg_route_hops"),
		    has("max_route_hops"), has("bisection"), has("vcs"),
		    .deadlock_free, .max_route_hops >= .diameter] | all' <<<"$out")
		[ "$got" = true ] && ok "analyze $spec" || bad "analyze $spec" "$out"
	fi
done

# --- torus:k=K[,n=N] is the K-ary N-cube of --dims K,..,K [--plain]: the
# same outputs; a cube kind's dims are its k and n ---
# same_out NAME "ARGS A" "ARGS B": both commands exit 0 with the same output
same_out() {
	local name=$1 a b sa sb
	# shellcheck disable=SC2086  # the arguments are words, split on purpose
	a=$("$T" $2 2>&1); sa=$?
	# shellcheck disable=SC2086
	b=$("$T" $3 2>&1); sb=$?
	[ "$sa" = 0 ] && [ "$sb" = 0 ] && [ "$a" = "$b" ] && ok "$name" ||
	    bad "$name" "exit $sa, $sb: $a // $b"
}
same_out torus-k-analyze "analyze --topology torus:k=4 --json" \
    "analyze --dims 4,4,4 --plain --json"
same_out torus-k-run "run --topology torus:k=4 --load 0.1 --measure 1000 --json" \
    "run --dims 4,4,4 --plain --load 0.1 --measure 1000 --json"
same_out twin-k-n-run "run --topology twin:k=4,n=2 --load 0.1 --measure 1000 --json" \
    "run --dims 4,4 --load 0.1 --measure 1000 --json"
same_out plain-k-n-analyze "analyze --topology plain:k=3,n=4" \
    "analyze --dims 3,3,3,3 --plain"
same_out pruned-dims "analyze --topology pruned:4x4x4 --json" \
    "analyze --topology pruned:k=4,n=3 --json"
same_out msn-dims "analyze --topology msn:4x4 --json" \
    "analyze --topology msn:k=4,n=2 --json"
same_out mh3dt-k "analyze --topology mh3dt:k=3,n=2 --json" \
    "analyze --topology mh3dt:m=3,n=2 --json"
same_out tesh-k "analyze --topology tesh:k=4,L=1 --json" \
    "analyze --topology tesh:m=2,L=1 --json"
if expect torus-k-keys 0 "$T" analyze --topology torus:k=4 --json; then
	got=$(jq -c '[.nodes, .links, .degree_min, .degree_max, .diameter,
	    .avg_distance, .max_route_hops]' <<<"$out")
	[ "$got" = '[64,192,6,6,6,3.047619,6]' ] && ok torus-k-keys ||
	    bad torus-k-keys "$got"
fi

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
torus:n=3|torus: give k, the nodes per dimension
twin:k=4,m=2|'m' is not a key of twin
torus:k=1|torus: k=1: each dimension needs 2..65535 nodes
plain:k=4,n=9|plain: n=9: the dimensions must be 2..8
torus:k=4,n=1|torus: n=1
pruned:4x4x2|a pruned network has the same k in every dimension
mh3dt:4x4x4|dims name a k-ary n-cube, which mh3dt is not
tesh:4x4x4|dims name a k-ary n-cube, which tesh is not
tesh:n=3|n is not a key of tesh
tesh:k=8|tesh: k=8: the BM side is 2^m
mh3dt:k=3,m=3|mh3dt: k=3 and m=3 both give the BM side
mh3dt:k=2,n=2|mh3dt: k=2: the BM side must be 3..64
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

# a torus by its keys in YAML, as a string or as a mapping: the network
# of its torus: section
printf 'torus: {dims: [4, 4, 4], twin: false}\n' >"$tmp/d.yaml"
"$T" analyze "$tmp/d.yaml" --json >"$tmp/d.json" 2>&1
for y in '{kind: torus, k: 4}' 'torus:k=4' '{kind: plain, n: 3, k: 4}'; do
	printf 'topology: %s\n' "$y" >"$tmp/k.yaml"
	if expect "yaml $y" 0 "$T" analyze "$tmp/k.yaml" --json; then
		[ "$out" = "$(cat "$tmp/d.json")" ] && ok "yaml $y" ||
		    bad "yaml $y" "$out"
	fi
done
printf 'topology: {kind: tesh, n: 2}\n' >"$tmp/n.yaml"
if expect yaml-tesh-n 2 "$T" analyze "$tmp/n.yaml"; then
	grep -qF "n.yaml:1:11: topology: tesh:n=2: 'n=2': n is not a key of tesh" \
	    "$tmp/err" && ok yaml-tesh-n || bad yaml-tesh-n "$(cat "$tmp/err")"
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

# --- the network layer calls one way: route.c -> netgen.c -> the
# generators -> topo.c -> errf.c (no file calls one that calls it), and
# only netgen.c calls through a generator (tt_net.gen read in at most 3
# lines of lib/ and sim/) ---
o=build/lib
if [ -f $o/networks/netgen.o ] && command -v nm >/dev/null; then
	calls() {       # calls A B: A's object uses a symbol B's defines
		comm -12 <(nm -u "$o/$1.o" | awk '{print $2}' | sort -u) \
		    <(nm -g --defined-only "$o/$2.o" | awk '{print $3}' | sort -u) | head -3
	}
	back=""
	for low in support/errf networks/topo networks/net_torus networks/net_tori networks/net_hier networks/netgen; do
		for up in networks/topo networks/net_torus networks/net_tori networks/net_hier networks/netgen networks/route; do
			case "$low/$up" in
			support/errf/*) ;;
			networks/topo/networks/topo) continue ;;
			networks/topo/*) ;;
			networks/net_*/networks/netgen | networks/net_*/networks/route) ;;
			networks/netgen/networks/route) ;;
			*) continue ;;
			esac
			c=$(calls "$low" "$up")
			[ -z "$c" ] || back+="$low calls $up: $c; "
		done
	done
	[ -z "$back" ] && ok "lib/networks calls one way (route -> netgen -> generators -> topo -> errf)" ||
	    bad "lib/networks calls back" "$back"
else
	skip layers "no build/lib objects or no nm"
fi
n=$(grep -rn 'net->gen\b' lib sim | wc -l)
[ "$n" -le 3 ] && ok "tt_net.gen read in $n lines of lib/ and sim/" ||
    bad "tt_net.gen read in $n lines" "$(grep -rn 'net->gen\b' lib sim)"

finish
