#!/usr/bin/env bash
# Causal replay against ground truth, reduced (bench/causal/run.sh has the
# full version and bench/RESULTS.md its figures): every motif of ttsim app
# is recorded on 3DT 4x4x4 D at 10 Gb/s as ttd would have captured it
# (node clocks offset by up to 0.5 ms), its dependencies are inferred and
# scored against the motif's true ones, and the recording is replayed
# causally and open loop on the same network, on configuration A, on the
# 2D torus 16x8, and on D with links at 2.5 and at 40 Gb/s; each
# prediction is compared with ttsim app run directly on that network:
#   - causal replay within 5% of the direct run everywhere, within 0.5% on
#     the recorded network;
#   - open loop off by 30% or more on the faster network (it cannot send
#     before the recorded times), and off by more than causal on average;
#   - inference precision and recall of at least 0.95.
# Fewer iterations than the defaults, so the whole takes about a minute.
# Then the commands as a user meets them: JSON keys, CSV lines, the files
# a recording makes (named from a YAML nodes: map), open-loop replay and
# trace stat reading a recording as it is, MPI giving the serial JSON, and
# one clear message with exit 2 for each kind of bad input (bad flags are
# flags.sh's).
# shellcheck disable=SC2015,SC2054,SC2012  # "check && ok || bad": ok cannot fail; commas in flag values; ls of our own files
. "$(dirname "$0")/lib.sh"
# err A B: |A - B| / B in percent
err() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b * 100; printf "%.2f", d < 0 ? -d : d }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

REC=(--dims 4,4,4 --ports D)
NETS=("same:--dims 4,4,4 --ports D" "A:--dims 4,4,4 --ports A"
    "2d:--dims 16,8 --plain" "2.5G:--dims 4,4,4 --ports D --link-gbps 2.5"
    "40G:--dims 4,4,4 --ports D --link-gbps 40")
declare -A ITER=([halo3d]=4 [sweep3d]=4 [allreduce]=1 [alltoall]=2
    [incast]=4 [pingpong]=10)
sum_c=0 sum_o=0 n=0
for m in halo3d sweep3d allreduce alltoall incast pingpong; do
	args=(--iterations "${ITER[$m]}")
	if ! "$T" app "$m" "${REC[@]}" "${args[@]}" --record "$tmp/$m" \
	    --deps-out "$tmp/$m.true" --json >"$tmp/$m.rec.json" 2>"$tmp/err"; then
		bad "$m: record" "$(cat "$tmp/err")"
		continue
	fi
	"$T" trace infer "$tmp/$m" "${REC[@]}" -o "$tmp/$m.deps" --score \
	    "$tmp/$m.true" --json >"$tmp/$m.score" 2>"$tmp/err" ||
	    bad "$m: infer" "$(cat "$tmp/err")"
	read -r p r < <(jq -r '"\(.score.precision) \(.score.recall)"' "$tmp/$m.score")
	le 0.95 "$p" && le 0.95 "$r" && ok "$m: inferred dependencies: precision $p, recall $r" ||
	    bad "$m: inference precision $p, recall $r (want >= 0.95)"
	for net in "${NETS[@]}"; do
		name=${net%%:*}
		read -r -a flags <<<"${net#*:}"
		a=$("$T" app "$m" "${flags[@]}" "${args[@]}" --json | jq .makespan_s)
		c=$("$T" replay "$tmp/$m" "${flags[@]}" --causal --deps "$tmp/$m.deps" \
		    --json 2>"$tmp/err" | jq '.networks[0].makespan_s')
		o=$("$T" replay "$tmp/$m" "${flags[@]}" --json 2>>"$tmp/err" |
		    jq '.networks[0].makespan_s')
		if [ -z "$a" ] || [ -z "$c" ] || [ -z "$o" ]; then
			bad "$m on $name: a run failed" "$(cat "$tmp/err")"
			continue
		fi
		ec=$(err "$c" "$a")
		eo=$(err "$o" "$a")
		sum_c=$(awk -v s="$sum_c" -v e="$ec" 'BEGIN { print s + e }')
		sum_o=$(awk -v s="$sum_o" -v e="$eo" 'BEGIN { print s + e }')
		n=$((n + 1))
		lim=5
		[ "$name" = same ] && lim=0.5
		le "$ec" "$lim" && ok "$m on $name: causal off by $ec% (open loop $eo%)" ||
		    bad "$m on $name: causal off by $ec%, more than $lim% (direct $a s, causal $c s, open loop $o s)"
		if [ "$name" = 40G ]; then
			le 30 "$eo" && ok "$m on $name: open loop off by $eo% (>= 30%)" ||
			    bad "$m on $name: open loop off by only $eo%"
		fi
	done
done
awk -v c="$sum_c" -v o="$sum_o" -v n="$n" 'BEGIN { exit !(n > 0 && o > c) }' &&
    ok "mean error: causal $(awk -v s="$sum_c" -v n="$n" 'BEGIN { printf "%.2f", s / n }')%, open loop $(awk -v s="$sum_o" -v n="$n" 'BEGIN { printf "%.2f", s / n }')%" ||
    bad "open loop was not worse than causal on average ($sum_o vs $sum_c over $n)"

# ---- the commands ----

out=$(jq -c . "$tmp/halo3d.rec.json")
jq -e '.makespan_cycles > 0 and .makespan_s > 0 and .messages == .sent and
    .bytes == .messages * 8192 and .ranks == 128 and .record.records == 2 * .messages' \
    <<<"$out" >/dev/null && ok "app --json: makespan, messages, bytes, records" ||
    bad "app --json keys" "$out"
[ "$(find "$tmp/halo3d" -name 'n*-pe.pcap' | wc -l)" -eq 64 ] &&
    ok "app --record: one n<node>-pe.pcap per node" || bad "app --record files" "$(ls "$tmp/halo3d" | head)"
msgs=$(jq .messages "$tmp/halo3d.rec.json")
st=$("$T" trace stat "$tmp/halo3d" 2>&1 | sed -n 's/^  messages *\([0-9]*\).*/\1/p')
[ "$st" = "$msgs" ] && ok "trace stat reads a recording: $st messages" || bad "trace stat: $st, wanted $msgs"
# yaml/3dt-4x4x4.yaml maps hosts n000 and n001; the other nodes are n<id>
"$T" app halo3d yaml/3dt-4x4x4.yaml --iterations 1 --record "$tmp/hosts" >/dev/null 2>"$tmp/err" &&
    [ -f "$tmp/hosts/n000-pe.pcap" ] && [ -f "$tmp/hosts/n001-pe.pcap" ] &&
    [ -f "$tmp/hosts/n63-pe.pcap" ] && [ "$(ls "$tmp/hosts" | wc -l)" -eq 64 ] &&
    ok "app --record names files after the YAML nodes: map" ||
    bad "app --record with nodes:" "$(cat "$tmp/err"; ls "$tmp/hosts" | head -3)"
"$T" app pingpong "${REC[@]}" --iterations 2 --csv "$tmp/pes.csv" >/dev/null &&
    [ "$(wc -l <"$tmp/pes.csv")" -eq 129 ] && head -1 "$tmp/pes.csv" | grep -q '^pe,rank,finish_cycle' &&
    ok "app --csv: one line per PE" || bad "app --csv" "$(head -3 "$tmp/pes.csv")"
out=$("$T" replay "$tmp/pingpong" "${REC[@]}" --causal --compare D,2d --json 2>"$tmp/err")
jq -e '.mode == "causal" and .causal.dependencies == "inferred" and
    (.networks | length) == 2 and (.networks[] | .makespan_cycles > 0 and .makespan_s > 0)
    and .causal.messages == .networks[0].messages_delivered' <<<"$out" >/dev/null &&
    ok "replay --causal --compare --json: mode, causal, makespans" || bad "replay --causal --json" "$(head -c 600 <<<"$out"; cat "$tmp/err")"
if command -v gnuplot >/dev/null; then
	"$T" replay "$tmp/pingpong" "${REC[@]}" --causal --compare D,2d --plot "$tmp/cdf.png" \
	    >/dev/null 2>"$tmp/err" && [ "$(head -c 4 "$tmp/cdf.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] &&
	    ok "replay --causal --plot: a PNG" || bad "replay --causal --plot" "$(cat "$tmp/err")"
fi
"$T" replay "$tmp/pingpong" "${REC[@]}" --causal --csv "$tmp/msgs.csv" >/dev/null 2>&1
[ "$(($(wc -l <"$tmp/msgs.csv") - 1))" -eq "$(jq .messages "$tmp/pingpong.rec.json")" ] &&
    head -1 "$tmp/msgs.csv" | grep -q ',seq,predecessors$' &&
    ok "replay --causal --csv: one line per message" || bad "replay --causal --csv" "$(head -2 "$tmp/msgs.csv")"
"$T" run --dims 4,4,2 --warmup 200 --measure 500 --record "$tmp/run" >/dev/null 2>"$tmp/err" &&
    "$T" replay "$tmp/run" --dims 4,4,2 --causal --json >"$tmp/run.json" 2>>"$tmp/err" &&
    ok "run --record, replayed causally" || bad "run --record" "$(cat "$tmp/err")"

# MPI: the ranks give the serial JSON (skipped without Open MPI)
if ldd "$T" 2>/dev/null | grep -q libmpi && command -v mpirun >/dev/null; then
	M=(mpirun --oversubscribe)
	[ "$(id -u)" = 0 ] && M+=(--allow-run-as-root)
	norm() { jq -S -c 'del(.wall_s, .networks[]?.wall_s, .networks[]?.max_pending)'; }
	a=$("$T" app incast --dims 4,4,2 --iterations 3 --json | norm)
	b=$("${M[@]}" -np 3 "$T" app incast --dims 4,4,2 --iterations 3 --json 2>/dev/null | norm)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "app on 3 MPI ranks: the serial JSON" || bad "app under MPI" "$a"$'\n'"$b"
	a=$("$T" replay "$tmp/sweep3d" "${REC[@]}" --causal --compare D,A --json | norm)
	b=$("${M[@]}" -np 2 "$T" replay "$tmp/sweep3d" "${REC[@]}" --causal --compare D,A --json 2>/dev/null | norm)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "replay --causal on 2 MPI ranks: the serial JSON" ||
	    bad "replay --causal under MPI" "$(diff <(jq . <<<"$a") <(jq . <<<"$b") | head)"
else
	skip "MPI checks" "$T is built without Open MPI"
fi

# --placement: where the ranks run.  A file that places every rank on its
# own PE is linear; random:SEED is one permutation for one seed, and moves
# the ranks (other hops); the file's ranks land on the PEs it names.
H=(replay "$tmp/halo3d" "${REC[@]}" --causal --deps "$tmp/halo3d.deps" --json)
norm_pl() { jq -S -c 'del(.wall_s, .networks[]?.wall_s, .causal.placement)'; }
lin=$("$T" "${H[@]}" | norm_pl)
seq 0 127 | awk '{print $1, $1}' >"$tmp/identity.pl"
idf=$("$T" "${H[@]}" --placement "$tmp/identity.pl" | norm_pl)
[ -n "$lin" ] && [ "$lin" = "$idf" ] && ok "placement: a file of rank r on PE r is linear" ||
    bad "placement identity file" "$(diff <(jq . <<<"$lin") <(jq . <<<"$idf") | head)"
r1=$("$T" "${H[@]}" --placement random:5 | norm_pl)
r2=$("$T" "${H[@]}" --placement random:5 | norm_pl)
h0=$(jq '.networks[0].avg_hops' <<<"$lin")
h1=$(jq '.networks[0].avg_hops' <<<"$r1")
[ -n "$r1" ] && [ "$r1" = "$r2" ] && [ "$h0" != "$h1" ] &&
    ok "placement random:5: the same twice, other hops ($h1 against $h0 linear)" ||
    bad "placement random" "hops $h0 / $h1"
# ranks 0 and 1 swapped with ranks 2 and 3: every message keeps its bytes
printf '0 2\n1 3\n2 0   # rank 2 on PE 0\n3 1\n' >"$tmp/swap.pl"
sw=$("$T" "${H[@]}" --placement "$tmp/swap.pl" | norm_pl)
[ "$(jq '.networks[0].bytes_delivered' <<<"$sw")" = "$(jq '.networks[0].bytes_delivered' <<<"$lin")" ] &&
    [ "$(jq -r '.causal.placement' <<<"$("$T" "${H[@]}" --placement "$tmp/swap.pl")")" = "$tmp/swap.pl" ] &&
    ok "placement file: every message delivered, the file named in the JSON" || bad "placement file" "$sw"
# what a prediction rests on: a slower network puts more of the critical
# path in the network
cs() { "$T" replay "$tmp/pingpong" "${REC[@]}" --causal --deps "$tmp/pingpong.deps" --link-gbps "$1" --json |
    jq -r '.networks[0].critical_path | "\(.compute_share) \(.network_share)"'; }
read -r c1 n1 < <(cs 40)
read -r c2 n2 < <(cs 2.5)
awk -v a="$c1" -v b="$c2" -v n="$n2" 'BEGIN { exit !(a > b && b >= 0 && a <= 1 && (b + n - 1)^2 < 1e-9) }' &&
    ok "critical path: recorded compute $c1 of the makespan at 40 Gb/s, $c2 at 2.5 Gb/s" ||
    bad "critical path shares" "40G: $c1 $n1; 2.5G: $c2 $n2"
"$T" replay "$tmp/pingpong" "${REC[@]}" --causal --deps "$tmp/pingpong.deps" >"$tmp/cp.txt" 2>&1 &&
    grep -q "recorded compute" "$tmp/cp.txt" && ok "critical path in the table" || bad "critical path table" "$(cat "$tmp/cp.txt")"

# bad input: one message, exit 2 (the flag errors are tests/cli/flags/'s
# goldens)
printf '0 1\n1 1\n' >"$tmp/dup.pl"
refused "placement: two ranks on one PE" "ttsim replay: $tmp/dup.pl:2: PE 1 already holds a rank" \
    "$T" "${H[@]}" --placement "$tmp/dup.pl"
printf '0 9,9,9/0\n' >"$tmp/far.pl"
refused "placement: a PE outside" "ttsim replay: $tmp/far.pl:1: PE 9,9,9/0:" "$T" "${H[@]}" --placement "$tmp/far.pl"
refused "placement: random without a seed" "ttsim replay: --placement random needs a seed" \
    "$T" "${H[@]}" --placement random
refused "placement: no such file" "ttsim replay: --placement $tmp/none.pl:" "$T" "${H[@]}" --placement "$tmp/none.pl"
refused "placement: open loop" "ttsim replay: --placement goes with --causal" \
    "$T" replay "$tmp/halo3d" "${REC[@]}" --placement random:1
refused "app ranks outside" "ttsim app: PE 200 is not in the network" "$T" app halo3d --ranks 0-3,200
refused "app too many clients" "ttsim app: incast: 100 clients" "$T" app incast --clients 100
refused "app record into traces" "ttsim app: --record $tmp/halo3d already holds traces" \
    "$T" app halo3d --iterations 1 --record "$tmp/halo3d"
# A delivery copy damaged on its way to the trace (its destination PE's
# lowest bit flipped): counted, credited to no one, and no predecessor in
# the file names a message that was not sent to the line's PE.
cp -r "$tmp/halo3d" "$tmp/dmg"
f=$(ls "$tmp/dmg"/*.pcap | head -n 1)
off=24
while [ "$off" -lt "$(stat -c %s "$f")" ]; do
	cap=$(od -An -tu4 -j $((off + 8)) -N4 "$f" | tr -d ' ')
	flags=$(od -An -tu1 -j $((off + 16 + 17)) -N1 "$f" | tr -d ' ')
	[ $((flags & 1)) -eq 1 ] && break
	off=$((off + 16 + cap))
done
b=$(od -An -tu1 -j $((off + 16 + 21)) -N1 "$f" | tr -d ' ')
printf "\\x$(printf %02x $((b ^ 1)))" |
    dd of="$f" bs=1 seek=$((off + 16 + 21)) conv=notrunc status=none
if expect "infer a damaged copy" 0 "$T" trace infer "$tmp/dmg" "${REC[@]}" \
    -o "$tmp/dmg.deps" --json; then
	got=$(js '"\(.mismatched_deliveries) \(.lost_sends) \(.undelivered)"')
	if [ "$got" = "1 0 1" ] && awk '!/^#/ {
	    for (i = 7; i <= NF; i++)
		if ($i != "-" && !(($i SUBSEP $1) in sent)) bad = 1
	    sent[$1 ":" $2, $3] = 1 } END { exit bad }' "$tmp/dmg.deps"; then
		ok "infer a damaged copy"
	else
		bad "infer a damaged copy" "$got (mismatched, lost, undelivered; want 1 0 1)"
	fi
fi
printf 'not a trace' >"$tmp/junk.pcap"
refused "infer damaged trace" "ttsim trace infer: $tmp/junk.pcap:" "$T" trace infer "$tmp/junk.pcap" -o "$tmp/x"
head -n 100 "$tmp/halo3d.deps" >"$tmp/cut.deps"
refused "replay --deps cut short" "ttsim replay: --deps $tmp/cut.deps:100: the file ends without" \
    "$T" replay "$tmp/halo3d" --causal --deps "$tmp/cut.deps"
sed '3s/ 8192 / 8x92 /' "$tmp/halo3d.deps" >"$tmp/badf.deps"
refused "replay --deps bad field" "ttsim replay: --deps $tmp/badf.deps:3: field 4 (bytes)" \
    "$T" replay "$tmp/halo3d" --causal --deps "$tmp/badf.deps"
# the limits of a dependency file (ttsim(1)): each refused with the file,
# line, field and limit; 2^38 bytes never finished and 2^38 + 64 was one
# packet, a gap of 2^64 ns predicted 18 billion seconds, with exit 0
# (a minute each, so that a run that never ends is a failure)
# bad_field FIELD VALUE [LINE]: halo3d's dependencies with one field changed
bad_field() { awk -v f="$1" -v v="$2" -v n="${3:-3}" 'NR == n { $f = v } 1' "$tmp/halo3d.deps" >"$tmp/lim.deps"; }
P=(replay "$tmp/halo3d" "${REC[@]}" --causal --deps "$tmp/lim.deps")
bad_field 4 274877906944
refused "replay --deps: 2^38 bytes" "ttsim replay: --deps $tmp/lim.deps:3: field 4 (bytes): 274877906944 is more than the 4294967296 (4 GiB)" timeout 60 "$T" "${P[@]}"
bad_field 4 274877907008
refused "replay --deps: 2^38 + 64 bytes" "ttsim replay: --deps $tmp/lim.deps:3: field 4 (bytes): 274877907008" timeout 60 "$T" "${P[@]}"
bad_field 6 18446744073709551615
refused "replay --deps: a gap of 2^64 ns" "ttsim replay: --deps $tmp/lim.deps:3: field 6 (gap_ns): 18446744073709551615 ns is more than the 86400000000000 ns (a day)" timeout 60 "$T" "${P[@]}"
bad_field 6 86400000000000
expect "replay --deps: a gap of a day" 0 timeout 60 "$T" "${P[@]}" --json && jq -e '.networks[0].makespan_s > 86400' <<<"$out" >/dev/null &&
    ok "replay --deps: a gap of a day is taken (makespan $(jq .networks[0].makespan_s <<<"$out") s)" || bad "a day's gap" "$out"
bad_field 5 1 4
refused "replay --deps: t_ns decades from the first" "ttsim replay: --deps $tmp/lim.deps:4: field 5 (t_ns): 1 is more than 86400000000000 ns (a day) from the first message's" timeout 60 "$T" "${P[@]}"
bad_field 3 4294967296
refused "replay --deps: dst past 2^32" "ttsim replay: --deps $tmp/lim.deps:3: field 3 (dst): 4294967296 is not below 2^32" timeout 60 "$T" "${P[@]}"
{ head -n 2 "$tmp/halo3d.deps"; printf '%s%70000s\n' "$(sed -n 3p "$tmp/halo3d.deps")" ''
    tail -n +4 "$tmp/halo3d.deps"; } >"$tmp/lim.deps"
refused "replay --deps: a line over 64 KiB" "ttsim replay: --deps $tmp/lim.deps:3: a line longer than 65536 bytes" timeout 60 "$T" "${P[@]}"
# one endless line, of NULs (/dev/zero) and of predecessors: refused as
# soon as it is 64 KiB long, within 5 s and 64 MiB (it took 15-30 s and
# 2 GB); the maximum resident size is GNU time's
endless() {
	local name=$1 want=$2 rss; shift 2
	expect "$name" 2 /usr/bin/time -f %M -o "$tmp/rss" timeout 5 "$T" replay "$tmp/halo3d" "${REC[@]}" --causal --deps "$@" || return
	rss=$(tail -1 "$tmp/rss")
	# shellcheck disable=SC2053  # want is a pattern
	[[ $(head -1 "$tmp/err") == $want* ]] && [ "$rss" -lt 65536 ] &&
	    ok "$name: refused in under 5 s, $rss KiB" || bad "$name" "$(head -1 "$tmp/err"); $rss KiB"
}
if [ -x /usr/bin/time ]; then
	endless "replay --deps /dev/zero" "ttsim replay: --deps /dev/zero:1: a NUL byte" /dev/zero
	endless "replay --deps: an endless line" "ttsim replay: --deps /dev/fd/*:2: a line longer than 65536 bytes" \
	    <(printf '# twintorus dependencies 1\n0 0 1 64 5 0'; yes ' 1:1' | tr -d '\n')
else
	skip "replay --deps /dev/zero" "no /usr/bin/time (GNU time)"
fi
refused "replay --causal on a smaller network" "ttsim replay: $tmp/halo3d/" \
    "$T" replay "$tmp/halo3d" --dims 2,2,2 --causal

finish
