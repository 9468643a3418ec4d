#!/usr/bin/env bash
# MPI-level traces: OTF2 archives as Score-P writes them (written here by
# build/tests/mkotf2, tests/data/otf2/README.md), summarised by ttsim
# trace stat and replayed causally by ttsim replay with no YAML file:
#   - trace stat --json: the totals of the program mkotf2 records,
#     computed here from its description (mkotf2.c's comment), not from
#     anything it prints: each point-to-point message once, the messages
#     the collectives become (allreduce 2(n-1), blocking or not, bcast
#     m-1, barrier n*ceil(log2 n)), payload bytes, collective calls,
#     compute and span
#     through the archive's clock (two resolutions and offsets); a group
#     flagged GLOBAL_MEMBERS, whose events name world ranks;
#   - ground truth: ttsim app's pingpong motif written as an archive
#     replays to the cycle of the motif run directly, at three link
#     speeds and on two networks;
#   - replay (--causal implied): every message replayed on every network,
#     the trace object's totals the same, its recorded message span from
#     rank 0's first send (1.054 ms in) to the final barrier's end (3 us
#     before the span's), makespan only per network; a
#     slower link or a slower --model predicts a longer makespan;
#     --placement moves the ranks; --compare, --csv;
#   - refusals, exit 2 and one line: a missing traces.def, a cut event
#     file, a file that is not OTF2, more ranks than PEs, --deps, the
#     inference's flags, open loop's, two traces, trace stat with a
#     network, trace infer (nothing to infer).
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
MK=$tt_top/build/tests/mkotf2
[ -x "$MK" ] || skip_all "build/tests/mkotf2 is not built (libotf2-trace-dev missing: make deps installs it)"
near() { awk -v a="$1" -v b="$2" -v e="$3" 'BEGIN { d = a - b; exit !(d <= e && -d <= e) }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }

# What mkotf2 DIR N K records, from its description: per iteration n ring
# sends of 1024 bytes and 2n isends of 512; an allreduce of 8 bytes on all
# (reduce then bcast, binomial: 2(n-1) messages) and a non-blocking one
# of 16 bytes (as many); a bcast of 256 bytes on the m = ceil(n/2) even
# ranks (m-1); a barrier at the end (dissemination: n * ceil(log2 n) empty
# messages).  Compute: 50 us per rank, then (1000 + 100 r) us per
# iteration; each MPI call 3 us (10 a rank per iteration, the even ranks'
# bcast an 11th); rank r starts at r us.
expected() {
	awk -v n="$1" -v k="$2" 'BEGIN {
		m = int((n + 1) / 2); lg = 0; while (2 ^ lg < n) lg++
		p2p = 3 * n * k; p2pb = k * (n * 1024 + 2 * n * 512)
		cm = k * (4 * (n - 1) + m - 1) + n * lg
		cb = k * (2 * (n - 1) * (8 + 16) + (m - 1) * 256)
		comp = 0; span = 0
		for (r = 0; r < n; r++) {
			comp += 50 + k * (1000 + 100 * r)
			end = r + 50 + 3 + k * (1000 + 100 * r + 10 * 3 + (r % 2 == 0 ? 3 : 0)) + 3 + 3
			if (end > span) span = end
		}
		printf "%d %d %d %d %d %.9f %.9f\n", p2p + cm, p2pb + cb, p2p, p2pb, 3 * k + 1, comp * 1e-6, span * 1e-6
	}'
}

for cfg in "6 3" "5 2 1000000007 123"; do
	read -r n k res off <<<"$cfg"
	name="$n ranks, $k iterations${res:+, $res ticks/s}"
	dir=$tmp/a$n
	"$MK" "$dir" "$n" "$k" $res $off 2>"$tmp/err" || { bad "mkotf2 $name" "$(cat "$tmp/err")"; continue; }
	read -r msgs bytes p2p p2pb colls comp span < <(expected "$n" "$k")
	if expect "stat $name" 0 "$T" trace stat "$dir/traces.otf2" --json; then
		[ "$(js .format)" = otf2 ] && [ "$(js .ranks)" = "$n" ] &&
		    [ "$(js .messages)" = "$msgs" ] && [ "$(js .bytes)" = "$bytes" ] &&
		    [ "$(js .p2p_messages)" = "$p2p" ] && [ "$(js .p2p_bytes)" = "$p2pb" ] &&
		    [ "$(js .collectives)" = "$colls" ] &&
		    near "$(js .compute_s)" "$comp" 1e-8 && near "$(js .span_s)" "$span" 1e-8 &&
		    [ "$(js '[.pes[].sent_messages] | add')" = "$msgs" ] &&
		    ok "stat $name: $msgs messages, $bytes bytes, $colls collectives, compute $comp s, span $span s" ||
		    bad "stat $name: wanted $msgs messages $bytes bytes, $p2p/$p2pb p2p, $colls collectives, compute $comp, span $span" "$out"
	fi
	expect "stat $name (text)" 0 "$T" trace stat "$dir/traces.otf2" && ok "stat $name (text)"
	# the replay, on as many PEs (a twin torus 2x2x2 has 16)
	if expect "replay $name" 0 "$T" replay "$dir/traces.otf2" --dims 2,2,2 --json; then
		[ "$(js .mode)" = causal ] && [ "$(js .causal.dependencies)" = mpi ] &&
		    [ "$(js .trace.messages)" = "$msgs" ] && [ "$(js .trace.bytes)" = "$bytes" ] &&
		    [ "$(js .causal.messages)" = "$msgs" ] &&
		    [ "$(js .networks[0].messages_delivered)" = "$msgs" ] &&
		    [ "$(js .networks[0].bytes_delivered)" = "$bytes" ] &&
		    near "$(js .trace.recorded_span_s)" "$span" 1e-8 &&
		    near "$(js .trace.recorded_message_span_s)" "$(awk -v s="$span" 'BEGIN {printf "%.9f", s - 0.001057}')" 1e-8 &&
		    [ "$(js 'has("makespan_s")')" = false ] &&
		    gt "$(js .networks[0].makespan_s)" 0 &&
		    ok "replay $name: every message, causally, without --causal or a YAML file" ||
		    bad "replay $name" "$out"
	fi
done

# A group flagged GLOBAL_MEMBERS: its events name world ranks (the even
# ranks' bcast root is world rank 2, not their rank 1); the same program,
# so the same messages from each rank, the root (rank 2) sending more
# than rank 4.
if "$MK" "$tmp/gl" 6 3 2400000000 7000000000000 global 2>"$tmp/err" &&
    expect "stat global members" 0 "$T" trace stat "$tmp/gl/traces.otf2" --json; then
	gl=$(js '[.messages, .bytes, [.pes[].sent_messages]] | tostring')
	expect "stat standard" 0 "$T" trace stat "$tmp/a6/traces.otf2" --json
	[ "$gl" = "$(js '[.messages, .bytes, [.pes[].sent_messages]] | tostring')" ] &&
	    [ "$(js '.pes[2].sent_messages > .pes[4].sent_messages')" = true ] &&
	    ok "GLOBAL_MEMBERS: world ranks in events taken as such ($gl)" ||
	    bad "GLOBAL_MEMBERS: $gl, without the flag $(js '[.messages, .bytes, [.pes[].sent_messages]] | tostring')"
else
	bad "mkotf2 global" "$(cat "$tmp/err")"
fi

a=$tmp/a6/traces.otf2
read -r msgs _ < <(expected 6 3)
expect "replay --causal" 0 "$T" replay "$a" --dims 2,2,2 --causal --json && base=$(js .networks[0].makespan_s)
expect "replay slow link" 0 "$T" replay "$a" --dims 2,2,2 --link-gbps 0.01 --json &&
    gt "$(js .networks[0].makespan_s)" "${base:-0}" && [ "$(js .networks[0].messages_delivered)" = "$msgs" ] &&
    ok "a slower link predicts a longer makespan ($(js .networks[0].makespan_s) s > $base s)" ||
    bad "slow link: makespan not longer than $base" "$out"
printf 'model:\n  link_ns: 100000\n' >"$tmp/slow.yaml"
expect "replay --model" 0 "$T" replay "$a" --dims 2,2,2 --model "$tmp/slow.yaml" --json &&
    gt "$(js .networks[0].makespan_s)" "${base:-0}" && [ "$(js .networks[0].messages_delivered)" = "$msgs" ] &&
    ok "--model with 100 us links predicts a longer makespan" || bad "--model" "$out"

# --placement: rank r on PE 15 - r; rank 0's messages then leave PE 15
for r in 0 1 2 3 4 5; do echo "$r $((15 - r))"; done >"$tmp/place"
expect "linear csv" 0 "$T" replay "$a" --dims 2,2,2 --csv "$tmp/lin.csv" --json &&
    from0=$(awk -F, '$2 == 0' "$tmp/lin.csv" | wc -l)
if expect "placement" 0 "$T" replay "$a" --dims 2,2,2 --placement "$tmp/place" --csv "$tmp/pl.csv" --json; then
	from15=$(awk -F, '$2 == 15' "$tmp/pl.csv" | wc -l)
	low=$(awk -F, 'NR > 1 && ($2 < 10 || $3 < 10)' "$tmp/pl.csv" | wc -l)
	[ "$(js .causal.placement)" = "$tmp/place" ] && [ "$(js .networks[0].messages_delivered)" = "$msgs" ] &&
	    [ "${from0:-x}" -gt 0 ] && [ "$from15" = "$from0" ] && [ "$low" -eq 0 ] &&
	    ok "--placement FILE: rank 0's $from0 messages leave PE 15, none touches PEs 0-9" ||
	    bad "placement: $from15 from PE 15 (want $from0), $low on PEs 0-9" "$out"
fi
expect "placement random" 0 "$T" replay "$a" --dims 2,2,2 --placement random:3 --json &&
    [ "$(js .networks[0].messages_delivered)" = "$msgs" ] && ok "--placement random:3" ||
    bad "placement random" "$out"
if expect "compare" 0 "$T" replay "$a" --dims 2,2,2 --compare D,A,2d --csv "$tmp/c.csv" --json; then
	[ "$(js '.networks | length')" = 3 ] &&
	    [ "$(js '[.networks[].messages_delivered] | unique | .[0]')" = "$msgs" ] &&
	    [ "$(js '[.networks[].messages_delivered] | unique | length')" = 1 ] &&
	    [ "$(($(wc -l <"$tmp/c.csv") - 1))" = "$((3 * msgs))" ] &&
	    ok "--compare D,A,2d: every message on each, --csv a line per message and network" ||
	    bad "compare" "$out"
fi

# Ground truth: ttsim app's pingpong motif (two ranks, compute after each
# round trip), written as an OTF2 archive, replays to the cycle of the
# motif run directly, on either network and link speed.
if "$MK" "$tmp/pp" pingpong 6 4096 1000 2>"$tmp/err"; then
	for net in "--dims 2,2,2" "--dims 2,2,2 --link-gbps 1" "--dims 4,4 --plain --link-gbps 40"; do
		read -r -a f <<<"$net"
		want=$("$T" app pingpong "${f[@]}" --ranks 2 --iterations 6 --bytes 4096 \
		    --compute-ns 1000 --imbalance 0 --json 2>"$tmp/err" | jq .makespan_cycles)
		expect "pingpong $net" 0 "$T" replay "$tmp/pp/traces.otf2" "${f[@]}" --json &&
		    [ -n "$want" ] && [ "$(js .networks[0].makespan_cycles)" = "$want" ] &&
		    [ "$(js .networks[0].messages_delivered)" = 12 ] &&
		    ok "pingpong as OTF2 on $net: $want cycles, as ttsim app pingpong" ||
		    bad "pingpong on $net: replay $(js .networks[0].makespan_cycles) cycles, app $want" "$(cat "$tmp/err")"
	done
else
	bad "mkotf2 pingpong" "$(cat "$tmp/err")"
fi

# ---- refusals ----
cp -r "$tmp/a6" "$tmp/nodef" && rm "$tmp/nodef/traces.def"
refused "missing traces.def" "ttsim trace stat: $tmp/nodef/traces.otf2: its global definitions" \
    "$T" trace stat "$tmp/nodef/traces.otf2" && one_line || bad "missing traces.def: one line" "$(cat "$tmp/err")"
cp -r "$tmp/a6" "$tmp/cut"
sz=$(stat -c %s "$tmp/cut/traces/3.evt")
truncate -s $((sz / 2)) "$tmp/cut/traces/3.evt"
refused "cut event file" "ttsim replay: $tmp/cut/traces.otf2: reading rank 3's events" \
    "$T" replay "$tmp/cut/traces.otf2" --dims 2,2,2 && one_line || bad "cut: one line" "$(cat "$tmp/err")"
cp -r "$tmp/a6" "$tmp/junk" && echo "not OTF2" >"$tmp/junk/traces.otf2"
refused "not OTF2" "ttsim trace stat: $tmp/junk/traces.otf2: not an OTF2 archive" \
    "$T" trace stat "$tmp/junk/traces.otf2" && one_line || bad "not OTF2: one line" "$(cat "$tmp/err")"
refused "more ranks than PEs" "ttsim replay: $a has 6 ranks, the network 4 PEs" \
    "$T" replay "$a" --dims 2,2 --plain
refused "--deps" "ttsim replay: --deps: $a is an MPI-level trace" \
    "$T" replay "$a" --dims 2,2,2 --causal --deps "$tmp/place"
refused "--burst-gap" "ttsim replay: --burst-gap, --ack-turn, --pause, --window and --turnaround tune the inference" \
    "$T" replay "$a" --dims 2,2,2 --burst-gap 5000
refused "--speed" "ttsim replay: --speed is open loop's; $a is an MPI-level trace" \
    "$T" replay "$a" --dims 2,2,2 --speed 2
refused "two traces" "ttsim replay: $a is an MPI-level trace: replay it alone" \
    "$T" replay "$a" traces/alltoall-4x4x4.pcap --dims 4,4,4
refused "stat with a network" "ttsim trace stat: $a is an MPI-level trace" \
    "$T" trace stat "$a" --dims 2,2,2
refused "trace infer" "ttsim trace infer: $a is an MPI-level trace" \
    "$T" trace infer "$a" --dims 2,2,2 -o "$tmp/x.deps"
finish
