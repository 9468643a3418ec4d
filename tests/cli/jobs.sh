#!/usr/bin/env bash
# --jobs N: a sweep's points, or replay --compare's networks, in N worker
# processes.  Standard output is the same bytes whatever N (table, CSV,
# JSON, the knee's refinement, more jobs than points; a replay's CSV
# file); a point that fails gives its one message, exit 2, and a
# standard output that is what one core printed before the same failure;
# a stopped sweep leaves no worker behind, and one that started with
# SIGHUP ignored (nohup) goes on after SIGHUP; bad values are usage errors
# (tests/cli/flags/sweep-jobs-*.args for the messages).  Nothing is timed.
# shellcheck disable=SC2015,SC2054  # "check && ok || bad": ok cannot fail; commas in flag values
. "$(dirname "$0")/lib.sh"

# same NAME JOBS... -- ARGS...: stdout and exit status of --jobs 1 and of
# each JOBS alike
same() {
	local name=$1 j st
	shift
	local jobs=()
	while [ "$1" != -- ]; do jobs+=("$1"); shift; done
	shift
	"$T" "$@" --jobs 1 >"$tmp/1" 2>"$tmp/1.err"; st1=$?
	for j in "${jobs[@]}"; do
		"$T" "$@" --jobs "$j" >"$tmp/$j" 2>"$tmp/$j.err"; st=$?
		if [ "$st" = "$st1" ] && [ -s "$tmp/1" ] && cmp -s "$tmp/1" "$tmp/$j"; then
			ok "$name-jobs$j"
		else
			bad "$name-jobs$j" "exit $st1 / $st; $(diff "$tmp/1" "$tmp/$j" | head -5)"
		fi
	done
}

# two topologies x two port configurations x four loads, each saturating
# curve refined (its knee's loads depend on the points before them)
W=(--warmup 200 --measure 500 --drain 1000)
SW=(sweep --topo 2x2x2,4x4:plain --ports A,D --loads 0.1,0.3,0.6,0.9 "${W[@]}" --refine 0.05)
same table 2 3 5 -- "${SW[@]}"
same csv 2 3 -- "${SW[@]}" --csv
# the refined points are there: more rows than the grid's 12
rows=$(tail -n +2 "$tmp/1" | wc -l)
[ "$rows" -gt 12 ] && ok refined || bad refined "$rows rows"
same json 2 3 -- "${SW[@]}" --json
# fewer points than jobs, one point, and both deadlock schemes
same few 3 -- sweep --dims 2,2,2 --deadlock vc,bubble --loads 0.2 "${W[@]}" --csv
same one 4 -- sweep --dims 2,2,2 --loads 0.2 "${W[@]}" --json
# a deadlocking point: exit 1 from every N
same deadlock 2 -- sweep --dims 2,2,4 --deadlock none --loads 0.3,0.9,1 --csv
[ "$st1" = 1 ] && ok deadlock-exit || bad deadlock-exit "exit $st1"

# --- replay --compare: a network per worker; the table, the --csv file
# (standard output or a file, open loop and causal) and the JSON but for
# each network's wall_s ---
RP=(replay traces/alltoall-4x4x4.pcap yaml/3dt-4x4x4.yaml --compare D,A,2d,G --top 3)
same replay 2 3 5 -- "${RP[@]}"
same replay-csv-stdout 2 -- "${RP[@]}" --csv -
same replay-causal 2 -- replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --causal \
    --burst-gap 20000 --compare D,A,G --csv -
for j in 1 3; do
	"$T" "${RP[@]}" --csv "$tmp/rc$j.csv" --jobs "$j" >"$tmp/rt$j" 2>&1
	"$T" "${RP[@]}" --json --jobs "$j" 2>&1 | jq -S -c 'walk(if type == "object" then del(.wall_s) else . end)' >"$tmp/rj$j"
done
[ -s "$tmp/rc1.csv" ] && cmp -s "$tmp/rc1.csv" "$tmp/rc3.csv" && cmp -s "$tmp/rt1" "$tmp/rt3" &&
    ok replay-csv-file || bad replay-csv-file "$(diff "$tmp/rc1.csv" "$tmp/rc3.csv" | head -3)"
[ -s "$tmp/rj1" ] && cmp -s "$tmp/rj1" "$tmp/rj3" && ok replay-json ||
    bad replay-json "$(head -c 300 "$tmp/rj3")"
# every network's CSV lines are there, in --compare's order
order=$(cut -d, -f1 "$tmp/rc3.csv" | uniq | tail -n +2 | tr '\n' '/')
[ "$order" = "3DT 4x4x4 D vc/3DT 4x4x4 A vc/2D 16x8 vc/3DT 4x4x4 G vc/" ] &&
    ok replay-csv-order || bad replay-csv-order "$order"

# --- a point that fails: 32x32x32 (its engine and packet pool map over
# 700 MiB) cannot be built under a 400 MB address-space limit.  With two
# jobs or more, two of its workers fail at once; the message is said once,
# and standard output is one core's before the same failure (the header) ---
for j in 1 2 3; do
	(ulimit -v 400000; exec "$T" sweep --topo 32x32x32,2x2x2 --loads 0.1,0.2 \
	    "${W[@]}" --csv --jobs "$j") >"$tmp/f$j" 2>"$tmp/f$j.err"; st=$?
	n=$(wc -l <"$tmp/f$j.err")
	if [ "$st" = 2 ] && [ "$n" = 1 ] && grep -q '^ttsim sweep: out of memory' "$tmp/f$j.err" &&
	    [ "$(wc -l <"$tmp/f$j")" = 1 ] && { [ "$j" = 1 ] || cmp -s "$tmp/f1" "$tmp/f$j"; }; then
		ok "fail-jobs$j"
	else
		bad "fail-jobs$j" "exit $st; $(cat "$tmp/f$j.err"; head -c 300 "$tmp/f$j")"
	fi
done
# the points before a failure are printed (2x2x2's two), as on one core,
# even when the failure comes first (32x32x32 fails at once, before 2x2x2's
# second point is done)
(ulimit -v 400000; exec "$T" sweep --topo 2x2x2,32x32x32 --loads 0.1,0.2 \
    "${W[@]}" --csv --jobs 3) >"$tmp/g" 2>"$tmp/g.err"; st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$tmp/g")" = 3 ] && [ "$(wc -l <"$tmp/g.err")" = 1 ] &&
    ok fail-after || bad fail-after "exit $st; $(cat "$tmp/g.err" "$tmp/g")"

# --- SIGTERM or SIGHUP to the sweep kill its workers: none is left (a
# terminal's SIGINT reaches the whole process group).  The signal is at
# its default action in the sweep whatever it is here (under nohup SIGHUP
# is ignored, and the sweep would rightly keep ignoring it) ---
for sig in TERM HUP; do
	cp yaml/3dt-4x4x4.yaml "$tmp/net-$sig.yaml"
	env --default-signal="$sig" "$T" sweep "$tmp/net-$sig.yaml" --loads 0.1,0.2,0.3,0.4 \
	    --warmup 100000 --measure 100000 --jobs 2 --csv >/dev/null 2>&1 &
	pid=$!
	# wait for the workers (children of the sweep) to start
	for _ in $(seq 100); do
		[ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && break
		sleep 0.1
	done
	kids=$(pgrep -P "$pid" | wc -l)
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null; st=$?
	sleep 0.5
	left=$(pgrep -f "$tmp/net-$sig.yaml" | wc -l)
	if [ "$kids" -ge 2 ] && [ "$st" -ne 0 ] && [ "$left" = 0 ]; then
		ok "stop-$sig"
	else
		bad "stop-$sig" "workers $kids, exit $st, $left left"
		pkill -f "$tmp/net-$sig.yaml"
	fi
done

# --- a sweep started with SIGHUP ignored (nohup) keeps ignoring it, in
# its workers too: a hangup reaches the whole process group, and the
# sweep finishes every point ---
(trap '' HUP; exec "$T" sweep --dims 4,4,4 --loads 0.1,0.2 --warmup 2000 \
    --measure 100000 --jobs 2 --csv) >"$tmp/nohup.csv" 2>"$tmp/nohup.err" &
pid=$!
for _ in $(seq 100); do
	[ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && break
	sleep 0.02
done
kids=$(pgrep -P "$pid")
# shellcheck disable=SC2086  # the workers' pids, one word each
kill -HUP "$pid" $kids 2>/dev/null
wait "$pid"; st=$?
if [ -n "$kids" ] && [ "$st" = 0 ] && [ "$(wc -l <"$tmp/nohup.csv")" = 3 ] &&
    [ ! -s "$tmp/nohup.err" ]; then
	ok nohup-HUP-ignored
else
	bad nohup-HUP-ignored "workers '$kids', exit $st: $(cat "$tmp/nohup.err")"
fi

# --- --jobs 0 and friends: one usage error naming the flag, exit 2 ---
for v in 0 -2 many 100000; do
	"$T" sweep --dims 2,2,2 --loads 0.1 --jobs "$v" >"$tmp/out" 2>"$tmp/err"; st=$?
	if [ "$st" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	    grep -q -- "--jobs: '$v'" "$tmp/err"; then
		ok "bad-jobs-$v"
	else
		bad "bad-jobs-$v" "exit $st; $(cat "$tmp/err")"
	fi
done

finish
