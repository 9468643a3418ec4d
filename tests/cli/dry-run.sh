#!/usr/bin/env bash
# ttsim run --dry-run [--ranks N]: the memory planner.  The engine's bytes
# (tt_sim_memory(), checked against the heap in tests/unit/test_sim.c), the
# packet pool's most (tt_sim_memory_packets()) and what a run touches, the
# parts mpirun -np N would build (runs of whole nodes: slabs of the last
# dimension), the per-rank bytes, and its errors.  Nothing is simulated: seconds.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
field() { jq -r ".$1" <<<"$2"; }

# one rank holds the whole engine
j=$("$T" run --dims 8,8,8 --dry-run --json)
[ -n "$j" ] && [ "$(field bytes_per_rank "$j")" = "$(field bytes_total "$j")" ] &&
    [ "$(field pes "$j")" = 1024 ] && ok one-rank || bad one-rank "$j"

# 64^3 on 2 ranks: two slabs of 32 planes (262,144 switches each), a
# little over half the whole for the boundary buffers (under a twentieth
# of the whole: the packets, in the pool, are not in either)
j=$("$T" run --dims 64,64,64 --dry-run --ranks 2 --json)
t=$(field bytes_total "$j"); r=$(field bytes_per_rank "$j")
[ "$(field pes "$j")" = 524288 ] && [ "$(field switches_per_rank "$j")" = 262144 ] &&
    [ "$r" -gt "$((t / 2))" ] && [ "$r" -lt "$((t / 2 + t / 20))" ] &&
    ok half || bad half "$j"

# 5x3x4 (60 nodes) on 7 ranks: runs of 8 or 9 whole nodes, so the largest
# holds 9 nodes * 2 cards; slabs of the last dimension
j=$("$T" run --dims 5,3,4 --ports G --deadlock bubble --dry-run --ranks 7 --json)
[ "$(field slab_dim "$j")" = 2 ] && [ "$(field switches_per_rank "$j")" = 18 ] &&
    ok uneven || bad uneven "$j"

# more ranks never need more per rank
prev=
mono=1
for n in 1 2 3 4 5 6 7 8; do
	r=$("$T" run --dims 8,8,8 --dry-run --ranks "$n" --json | jq -r .bytes_per_rank)
	[ -n "$prev" ] && [ "$r" -gt "$prev" ] && mono=0
	prev=$r
done
[ "$mono" = 1 ] && ok scales-down || bad scales-down

# per PE and per switch, every network kind (twin, plain, n-D): the
# whole's bytes over its PEs, a rank's over its switches (a switch per card)
for net in "3DT 4x4x4:--dims 4,4,4" "2D 8x8:--dims 8,8 --plain" \
    "4DT 3x3x2x2:--dims 3,3,2,2" "5DT 2x2x2x2x2:--dims 2,2,2,2,2 --ports best"; do
	title=${net%%:*}
	for ranks in 1 2; do
		# shellcheck disable=SC2086  # the flags are words
		j=$("$T" run ${net#*:} --dry-run --ranks "$ranks" --json)
		# shellcheck disable=SC2086
		t=$("$T" run ${net#*:} --dry-run --ranks "$ranks")
		# printf's %.0f rounds a half to even, jq's round away from
		# zero: within half a byte
		want="true true true"
		have=$(jq -r 'def near(a; b): (a - b) * (a - b) <= 0.25;
		    "\(near(.bytes_per_pe; .bytes_total / .pes)) \(near(.bytes_per_switch; .bytes_per_rank / .switches_per_rank)) \(.pes == .switches)"' <<<"$j")
		if [ -n "$j" ] && [ "$want" = "$have" ] && [[ $t == "$title, "* ]] &&
		    grep -q "$(jq -r .bytes_per_pe <<<"$j") bytes per PE" <<<"$t" &&
		    grep -q "$(jq -r .bytes_per_switch <<<"$j") bytes per switch" <<<"$t"; then
			ok "per PE and switch: $title, $ranks rank(s)"
		else
			bad "per PE and switch: $title, $ranks rank(s)" "$want / $have; $t"
		fi
	done
done

# the largest network of the seeds, 3D-TESH L = 5 (4,194,304 switches, 16
# VCs a port), plans its engine within 8 GB (10^9 bytes), the packets and
# the wheels' lists mapped apart: a VC's record is one word.  At 16 bytes a
# VC, with the wheels' worst case counted, it was 17.4e9.
j=$("$T" run --topology tesh:m=2,L=5,q=0 --dry-run --json)
[ "$(field switches "$j")" = 4194304 ] && [ "$(field bytes_total "$j")" -le 8000000000 ] &&
    ok "3D-TESH L = 5 within 8 GB" ||
    bad "3D-TESH L = 5 within 8 GB" "$(jq -c '{switches, bytes_total}' <<<"$j")"

# the packet pool is mapped, not allocated: a run at a low load touches
# the engine's bytes and the few packets it has in flight, far below the
# pool's most (when every buffer is full).  A pool allocated whole, or a
# packet copied into every buffer it passes, would show up here.
j=$("$T" run --dims 16,16,16 --ports D --dry-run --json)
eng=$(field bytes_total "$j"); pkts=$(field bytes_packets_max "$j")
/usr/bin/time -f %M -o "$tmp/rss" "$T" run --dims 16,16,16 --ports D \
    --load 0.05 --warmup 200 --measure 400 --drain 0 >/dev/null
rss=$(( $(cat "$tmp/rss") * 1024 ))
# 16 MiB: the program, its libraries and the traffic source
[ "$pkts" -gt "$((4 * eng))" ] && [ "$rss" -gt "$eng" ] &&
    [ "$rss" -lt "$((eng + pkts / 4 + 16777216))" ] &&
    ok "packets: memory follows what is in flight" ||
    bad "packets: memory follows what is in flight" \
    "engine $eng, pool at most $pkts, peak RSS $rss"
"$T" run --dims 8,8,8 --dry-run | grep -q "packets and the timing wheels up to 10.4 MiB" &&
    ok "packets: in the text" || bad "packets: in the text"

# errors: one message, exit 2
for args in "--dry-run --ranks 0" "--dry-run --ranks 513" "--dry-run --ranks x" \
    "--ranks 2"; do
	# shellcheck disable=SC2086  # the flags are words
	"$T" run --dims 8,8,8 $args >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	    ok "error: $args" || bad "error: $args" "exit $st: $(cat "$tmp/err")"
done

finish
