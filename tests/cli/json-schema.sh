#!/usr/bin/env bash
# Every JSON output against doc/json.md, which lists each output's keys:
#   - every ttsim and ttd command that prints JSON runs on small inputs
#     (the sample traces, yaml/, ping-pongs it records, hwloc XML; ttd
#     status from a daemon in a network namespace when root);
#   - each output parses as one JSON value, and every top-level object
#     (every element, for an array) has "schema" as its first key, with
#     the value doc/json.md gives that command;
#   - every key printed is listed for that schema (top level, and under
#     each nested object the file lists keys of), every key marked
#     "always" is there, and every key listed was printed by some run:
#     an undocumented key fails with the command and the key named;
#   - the schemas the file lists are the TT_JSON_SCHEMA_* of
#     include/twintorus/json.h;
#   - and the check itself finds a key taken out of a copy of the file.
# Needs jq. A few seconds.
# shellcheck disable=SC2015,SC2016  # "check && ok || bad": ok cannot fail; jq and sed programs in single quotes
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip_all "jq not installed (make deps installs it)"
doc=doc/json.md

# doc_keys DOC: "SCHEMA<TAB>KEY<TAB>always|cond" for every row of DOC's
# tables, a row whose unit links to a shared object ([model](#...))
# expanded with that object's keys under it
doc_keys() {
	awk -F'|' '
	/^## / { sect = ""; if (match($0, /`[^`]+`$/)) sect = substr($0, RSTART + 1, RLENGTH - 2); next }
	sect != "" && /^\| `/ {
		key = $2; gsub(/^[ \t]+|[ \t]+$/, "", key); gsub(/`/, "", key)
		when = $3; gsub(/^[ \t]+|[ \t]+$/, "", when)
		ref = ""
		if (match($4, /\[[a-z_]+\]\(#/)) ref = substr($4, RSTART + 1, RLENGTH - 4)
		print sect "\t" key "\t" (when == "always" ? "always" : "cond") "\t" ref
	}' "$1" >"$tmp/rows"
	awk -F'\t' -v OFS='\t' '
	FNR == NR { sub_[$1] = sub_[$1] $2 "\t" $3 "\n"; next }
	{
		print $1, $2, $3
		if ($4 == "") next
		n = split(sub_[$4], l, "\n")
		for (i = 1; i < n; i++) { split(l[i], f, "\t"); print $1, $2 "." f[1], f[2] }
	}' "$tmp/rows" "$tmp/rows"
}

# Each object key of FILE's records (the value, or each element of an
# array) as "RECORD<TAB>PARENT-PATH<TAB>PARENT<TAB>KEY", PARENT written
# as in doc/json.md (networks[].model; "" for the top level).
keys_jq='def norm: reduce .[] as $e (""; if ($e | type) == "number" then . + "[]"
	    elif . == "" then $e else . + "." + $e end);
	(if type == "array" then to_entries[] else {key: 0, value: .} end) as $r
	| $r.value | paths | select(.[-1] | type == "string")
	| [($r.key | tostring), (.[:-1] | tojson), (.[:-1] | norm), .[-1]] | @tsv'

# check_keys NAME SCHEMA FILE DOCKEYS: one line per problem; each key
# seen goes to $tmp/seen as "SCHEMA<TAB>KEY"
check_keys() {
	jq -r "$keys_jq" "$3" >"$tmp/paths" || { echo "$1: $3: jq cannot list its keys"; return; }
	awk -F'\t' -v S="$2" -v N="$1" -v seen="$tmp/seen" '
	function parent(k,   n, a, i, p) {
		n = split(k, a, "."); p = ""
		for (i = 1; i < n; i++) p = p (i > 1 ? "." : "") a[i]
		return p
	}
	function child(k,   n, a) { n = split(k, a, "."); return a[n] }
	FNR == NR {
		if ($1 != S) next
		doc[$2] = 1; p = parent($2); dpar[p] = 1
		if ($3 == "always") { al[p] = al[p] "\t" child($2) }
		next
	}
	{
		dpar[""] = 1
		full = $3 == "" ? $4 : $3 "." $4
		inst[$1 SUBSEP $2] = $3
		has[$1 SUBSEP $2 SUBSEP $4] = 1
		if (!($3 in dpar)) next
		print S "\t" full >>seen
		if (!(full in doc) && !(full in told)) {
			told[full] = 1
			print N ": key \"" full "\" is printed but not listed for " S " in doc/json.md"
		}
	}
	END {
		for (i in inst) {
			p = inst[i]
			if (!(p in dpar)) continue
			n = split(al[p], c, "\t")
			for (j = 2; j <= n; j++) {
				full = p == "" ? c[j] : p "." c[j]
				if (!((i SUBSEP c[j]) in has) && !(full in miss)) {
					miss[full] = 1
					print N ": doc/json.md marks \"" full "\" always, but it is missing"
				}
			}
		}
	}' "$4" "$tmp/paths"
}

doc_keys "$doc" >"$tmp/doc"
: >"$tmp/seen"
: >"$tmp/schemas-run"

# ---- the schemas: doc/json.md's headings are json.h's constants ----
grep -o '^#define TT_JSON_SCHEMA_[A-Z_]* *"[^"]*"' include/twintorus/json.h |
    sed 's/.*"\(.*\)"/\1/' | sort >"$tmp/h-schemas"
cut -f1 "$tmp/doc" | grep / | sort -u >"$tmp/d-schemas"
[ "$(wc -l <"$tmp/h-schemas")" -ge 13 ] && diff -u "$tmp/h-schemas" "$tmp/d-schemas" >"$tmp/diff" &&
    ok "doc/json.md has a table for each of json.h's $(wc -l <"$tmp/h-schemas") schemas" ||
    bad "schemas: json.h (-) against doc/json.md (+)" "$(cat "$tmp/diff")"

# run_json NAME SCHEMA STATUS CMD...: run CMD (exit STATUS), check its
# standard output against doc/json.md
n=0
run_json() {
	local name=$1 schema=$2 want=$3 f problems
	shift 3
	n=$((n + 1))
	f=$tmp/out-$n.json
	"$@" >"$f" 2>"$tmp/err"; st=$?
	if [ "$st" -ne "$want" ]; then
		bad "$name" "exit $st, wanted $want: $* :: $(head -c 2000 "$tmp/err")"
		return
	fi
	if ! jq -s -e 'length == 1' "$f" >/dev/null 2>"$tmp/jqerr"; then
		bad "$name: one JSON value" "$*: $(cat "$tmp/jqerr"; head -c 500 "$f")"
		return
	fi
	if ! jq -e --arg s "$schema" '(if type == "array" then . else [.] end) |
	    length > 0 and all(.[]; type == "object" and keys_unsorted[0] == "schema"
	    and .schema == $s)' "$f" >/dev/null; then
		bad "$name: \"schema\": \"$schema\" first in every object" \
		    "$*: $(jq -c '(if type == "array" then .[] else . end) | [keys_unsorted[0], .schema]' "$f" | sort -u)"
		return
	fi
	echo "$schema" >>"$tmp/schemas-run"
	problems=$(check_keys "$name" "$schema" "$f" "$tmp/doc")
	[ -z "$problems" ] && ok "$name: $schema, keys as doc/json.md lists them" ||
	    bad "$name: keys against doc/json.md" "$problems"$'\n'"($*)"
}

# ---- ttsim ----
run_json "ttsim analyze (twin torus)" ttsim.analyze/1 0 "$T" analyze --dims 3,3,3 --json
run_json "ttsim analyze (plain torus)" ttsim.analyze/1 0 "$T" analyze --dims 4,4 --plain --json
run_json "ttsim analyze (topology)" ttsim.analyze/1 0 "$T" analyze --topology pruned:k=4 --json
run_json "ttsim analyze (torus by keys)" ttsim.analyze/1 0 "$T" analyze --topology torus:k=4 --json
run_json "ttsim analyze (twin torus by keys)" ttsim.analyze/1 0 "$T" analyze --topology twin:k=3,n=2 --json
# the node graph's keys at the top level for every kind, tori by keys too
for spec in torus:k=4 twin:k=3 twin:3x3x3 pruned:k=4 msn:k=4 pruned-msn:k=4 mh3dt:m=3,n=2 tesh:L=1; do
	if "$T" analyze --topology "$spec" --json >"$tmp/nk.json" 2>"$tmp/err" &&
	    jq -e 'has("nodes") and has("links") and has("degree_min") and
	    has("degree_max") and has("diameter") and has("avg_distance") and
	    has("max_route_hops")' "$tmp/nk.json" >/dev/null; then
		ok "analyze --topology $spec: the node graph's keys at the top level"
	else
		bad "analyze --topology $spec: the node graph's keys" "$(cat "$tmp/err" "$tmp/nk.json")"
	fi
done
run_json "ttsim analyze --ports all" ttsim.analyze/1 0 "$T" analyze --dims 3,3,3 --ports all --json
run_json "ttsim verify" ttsim.verify/1 0 "$T" verify --dims 3,3,3 --json
run_json "ttsim verify --ports all" ttsim.verify/1 0 "$T" verify --dims 3,3,3 --ports all --json
run_json "ttsim verify (topology)" ttsim.verify/1 0 "$T" verify --topology pruned:k=4 --json
run_json "ttsim verify (a cycle)" ttsim.verify/1 1 "$T" verify --dims 4,4 --deadlock none --json
run_json "ttsim run" ttsim.run/1 0 "$T" run --dims 3,3,3 --load 0.1 --json
run_json "ttsim run (deadlock)" ttsim.run/1 1 "$T" run --dims 4,4 --deadlock none --load 0.9 --json
run_json "ttsim run (topology, --uniform-self)" ttsim.run/1 0 "$T" run --topology pruned:k=4 --uniform-self --load 0.1 --json
run_json "ttsim run --dry-run" ttsim.run.dry-run/1 0 "$T" run --dims 3,3,3 --dry-run --json
# the model object's shape_gbps and burst_bytes: only on shaped links
run_json "ttsim run (shaped links)" ttsim.run/1 0 "$T" run --dims 3,3 --load 0.1 --shape-gbps 2.5 --json
run_json "ttsim run --dry-run (shaped links)" ttsim.run.dry-run/1 0 "$T" run --dims 3,3 --shape-gbps 2.5 --burst-bytes 4096 --dry-run --json
run_json "ttsim sweep (shaped links)" ttsim.sweep/1 0 "$T" sweep --dims 3,3 --loads 0.1 --refine 0 --jobs 1 --shape-gbps 2.5 --json
run_json "ttsim app (shaped links)" ttsim.app/1 0 "$T" app pingpong --dims 2,2,2 --iterations 2 --shape-gbps 2.5 --json
run_json "ttsim replay (shaped links)" ttsim.replay/1 0 "$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare D,D@1G --shape-gbps 2.5 --json
# a model that frames MPI-level messages: its keys in the model object
printf 'model:\n  segment_bytes: 1448\n  frame_header_bytes: 66\n  message_header_bytes: 22\n' >"$tmp/framed.yaml"
run_json "ttsim run (framing keys)" ttsim.run/1 0 "$T" run --dims 3,3 --load 0.1 --model "$tmp/framed.yaml" --json
run_json "ttsim run --dry-run (framing keys)" ttsim.run.dry-run/1 0 "$T" run --dims 3,3 --model "$tmp/framed.yaml" --dry-run --json
run_json "ttsim sweep (framing keys)" ttsim.sweep/1 0 "$T" sweep --dims 3,3 --loads 0.1 --refine 0 --jobs 1 --model "$tmp/framed.yaml" --json
run_json "ttsim app (framing keys)" ttsim.app/1 0 "$T" app pingpong --dims 2,2,2 --iterations 2 --model "$tmp/framed.yaml" --json
run_json "ttsim replay (framing keys)" ttsim.replay/1 0 "$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --model "$tmp/framed.yaml" --json
run_json "ttsim sweep" ttsim.sweep/1 0 "$T" sweep --dims 3,3 --loads 0.1,0.2 --refine 0 --jobs 1 --json
run_json "ttsim sweep (deadlock, --uniform-self)" ttsim.sweep/1 1 "$T" sweep --dims 4,4 --deadlock none --loads 0.9 --refine 0 --jobs 1 --uniform-self --json
run_json "ttsim sweep (topology)" ttsim.sweep/1 0 "$T" sweep --topology pruned:k=4 --loads 0.1 --refine 0 --jobs 1 --json
run_json "ttsim app" ttsim.app/1 0 "$T" app pingpong --dims 2,2,2 --iterations 2 --json
run_json "ttsim app --record" ttsim.app/1 0 "$T" app pingpong --dims 2,2,2 --iterations 2 \
    --record "$tmp/rec" --deps-out "$tmp/rec.deps" --json
run_json "ttsim app (topology)" ttsim.app/1 0 "$T" app pingpong --topology pruned:k=2 --iterations 2 --json
run_json "ttsim replay" ttsim.replay/1 0 "$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare D,2d --json
run_json "ttsim replay --causal" ttsim.replay/1 0 "$T" replay traces/captured/mpihalo-2x2x2 --dims 2,2,2 --ports D --causal --json
if "$T" trace synth --topology pruned:k=2 --app allreduce --bytes 4096 -o "$tmp/p8.pcap" 2>"$tmp/err"; then
	run_json "ttsim replay (topology)" ttsim.replay/1 0 "$T" replay "$tmp/p8.pcap" --topology pruned:k=2 --json
else
	bad "trace synth for replay (topology)" "$(cat "$tmp/err")"
fi
run_json "ttsim trace stat" ttsim.trace.stat/1 0 "$T" trace stat traces/allreduce-2x2x2.pcap --json
# MPI-level traces: a TI trace ttsim writes itself, and an OTF2 archive
# when libotf2 is there (build/tests/mkotf2)
if "$T" trace export --ti "$tmp/ti" traces/captured/mpihalo-2x2x2 --dims 2,2,2 >/dev/null 2>"$tmp/err"; then
	run_json "ttsim trace stat (TI)" ttsim.trace.stat/1 0 "$T" trace stat "$tmp/ti" --json
	run_json "ttsim replay (TI)" ttsim.replay/1 0 "$T" replay "$tmp/ti" --dims 2,2,2 --json
else
	bad "trace export --ti for the MPI-level outputs" "$(cat "$tmp/err")"
fi
if [ -x build/tests/mkotf2 ] && build/tests/mkotf2 "$tmp/otf2" 4 2 >/dev/null 2>"$tmp/err"; then
	run_json "ttsim trace stat (OTF2)" ttsim.trace.stat/1 0 "$T" trace stat "$tmp/otf2/traces.otf2" --json
	run_json "ttsim replay (OTF2)" ttsim.replay/1 0 "$T" replay "$tmp/otf2/traces.otf2" --dims 2,2,2 --json
	# the hosts fitted on a recorded model (trace.host_fit)
	printf 'model:\n  link_gbps: 10\n  router_ns: 100\n  segment_bytes: 1448\n  frame_header_bytes: 66\n  message_header_bytes: 22\n' > "$tmp/rec.yaml"
	run_json "ttsim replay (OTF2, --recorded-model)" ttsim.replay/1 0 "$T" replay "$tmp/otf2/traces.otf2" \
	    --dims 2,2,2 --recorded-model "$tmp/rec.yaml" --json
elif [ "${CI:-}" = true ]; then
	bad "mkotf2 (libotf2) for the OTF2 outputs" "$(cat "$tmp/err" 2>/dev/null) build/tests/mkotf2 missing or failed"
else
	echo "SKIP the OTF2 outputs: build/tests/mkotf2 is not built (libotf2-trace-dev)"
fi
run_json "ttsim trace infer" ttsim.trace.infer/1 0 "$T" trace infer traces/captured/mpihalo-2x2x2 --dims 2,2,2 -o "$tmp/deps" --json
run_json "ttsim trace infer --score" ttsim.trace.infer/1 0 "$T" trace infer "$tmp/rec" --dims 2,2,2 -o "$tmp/deps2" --score "$tmp/rec.deps" --json
# trace calibrate: ping-pongs at two distances and three sizes, recorded
printf 'torus: {dims: [2, 2, 2], twin: true, ports: best, deadlock: vc}\nnetwork: {link_gbps: 25, flit_bytes: 16, packet_flits: 4}\n' >"$tmp/c.yaml"
rec_ok=1
mkdir "$tmp/cal"
for pair in 0,1 0,9; do
	for b in 64 1024 4096; do
		"$T" app pingpong --dims 2,2,2 --link-gbps 25 --ranks "$pair" --bytes "$b" \
		    --iterations 4 --record "$tmp/cal/p$pair-$b" >/dev/null 2>"$tmp/err" ||
		    { rec_ok=0; bad "record ping-pong $pair, $b bytes" "$(cat "$tmp/err")"; }
	done
done
[ "$rec_ok" = 1 ] && run_json "ttsim trace calibrate" ttsim.trace.calibrate/1 0 \
    "$T" trace calibrate "$tmp"/cal/* "$tmp/c.yaml" -o "$tmp/m.yaml" --json

# ---- ttd ----
run_json "ttd routes" ttd.routes/1 0 "$D" routes -c yaml/3dt-4x4x4.yaml --node n000 --json
run_json "ttd discover" ttd.discover/1 0 "$D" discover --hwloc-xml tests/data/hwloc/twin-nic-2numa.xml --json
run_json "ttd discover (no card fits)" ttd.discover/1 0 "$D" discover --hwloc-xml tests/data/hwloc/32em64t-2n8c2t-pci-wholeio.xml --json

# ttd status: a daemon on node (0,0) of a 2x2 twin torus in a network
# namespace, its cables veth pairs (lib.sh's node_2x2)
why=
status_json() {
	[ "$(id -u)" -eq 0 ] || { why="not root"; return 1; }
	command -v ip >/dev/null || { why="ip not installed"; return 1; }
	[ -c /dev/net/tun ] || { why="no /dev/net/tun"; return 1; }
	ip netns add "ttjs-$$" 2>/dev/null || { why="ip netns add failed"; return 1; }
	ns=ttjs-$$
	mkdir -p "$tmp/traces"
	node_2x2 "$ns" "tjs$$p" "$tmp/traces" 1500 1500 1500
	ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd.sock" \
	    --backend pcap 2>"$tmp/ttd.log" &
	pids="$pids $!"
	wait_for 10 test -S "$tmp/ttd.sock" || { why="ttd did not start: $(cat "$tmp/ttd.log")"; return 1; }
}
pids=
ns=
cleanup() {
	stop_pids
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
}
if status_json; then
	run_json "ttd status" ttd.status/1 0 timeout 10 "$D" status --control "$tmp/ttd.sock" --json
else
	skip "ttd status" "$why"
	# not run: its keys are not looked for below
	grep -v '^ttd\.status/' "$tmp/doc" >"$tmp/doc.x"
	mv "$tmp/doc.x" "$tmp/doc"
fi

# ---- every key doc/json.md lists was printed by some run ----
sort -u "$tmp/seen" >"$tmp/seen.s"
# (of the schemas whose output was read: one that was not fails below)
missing=$(awk -F'\t' 'FILENAME == ARGV[1] { ran[$1] = 1; next }
	FILENAME == ARGV[2] { seen[$1 "\t" $2] = 1; next }
	($1 in ran) && !(($1 "\t" $2) in seen) { print $1 ": doc/json.md lists \"" $2 "\", which no run printed" }' \
    "$tmp/schemas-run" "$tmp/seen.s" "$tmp/doc")
[ -z "$missing" ] && ok "every key doc/json.md lists was printed ($(cut -f1 "$tmp/doc" | grep -c /) keys)" ||
    bad "keys listed but never printed (a stale row, or a case the runs above miss)" "$missing"
missing=$(cut -f1 "$tmp/doc" | grep / | sort -u | comm -23 - <(sort -u "$tmp/schemas-run"))
[ -z "$missing" ] && ok "every schema of doc/json.md was run" || bad "schemas no command above printed" "$missing"

# ---- the check finds an undocumented key ----
# a copy of doc/json.md without replay's trace.records row: the replay
# output's key must be named, with the command
sed '/^| `trace\.records` |/d' "$doc" >"$tmp/json-less.md"
doc_keys "$tmp/json-less.md" >"$tmp/doc-less"
f=$(grep -l '"schema": "ttsim.replay/1"' "$tmp"/out-*.json | head -1)
if [ -n "$f" ]; then
	got=$(check_keys "ttsim replay" ttsim.replay/1 "$f" "$tmp/doc-less")
	[ "$got" = 'ttsim replay: key "trace.records" is printed but not listed for ttsim.replay/1 in doc/json.md' ] &&
	    ok "a key missing from doc/json.md is named with its command" ||
	    bad "check on a doc without trace.records" "got: $got"
else
	bad "no replay output to check the check with"
fi

finish
