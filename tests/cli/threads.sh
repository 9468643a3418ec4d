#!/usr/bin/env bash
# ttsim run --threads N: the switches split over N threads of one process
# give the JSON of one thread, bit for bit, on several topologies, loads,
# link latencies and traffic patterns (uneven parts among them: 3 threads
# on 2 cores, where the planes do not divide); a deadlock and
# its channels are found the same; the default takes two threads from
# 2,048 switches and one below; what cannot run on threads is refused
# with one message; and ThreadSanitizer finds no race between the threads
# (TTSIM_TSAN: a ttsim built with -fsanitize=thread, as make cli does).
# "wall_s" (seconds of the host) is left out.
. "$(dirname "$0")/lib.sh"
BAD_LINES=20

norm() { jq -S -c 'walk(if type == "object" then del(.wall_s) else . end)'; }

# same NAME ARGS...: --threads 1's JSON, then 2 and 3 threads', all equal
same() {
	local name=$1 n st; shift
	"$T" run --threads 1 "$@" --json 2>"$tmp/one.err" | norm >"$tmp/one.json"
	if [ ! -s "$tmp/one.json" ]; then
		bad "$name: one thread" "$(cat "$tmp/one.err")"
		return
	fi
	for n in 2 3; do
		"$T" run --threads "$n" "$@" --json 2>"$tmp/n.err" | norm >"$tmp/n.json"
		st=${PIPESTATUS[0]}
		json_same "$name: $n threads (exit $st)" "$tmp/one.json" \
		    "$tmp/n.json" "$tmp/n.err" || return
	done
	ok "$name: 1, 2, 3 threads identical"
}

same "3DT 5x5x5 D vc 0.3" --dims 5,5,5 --ports D --load 0.3 --warmup 500 \
    --measure 1500
same "3DT 5x5x5 A bubble, random ties, 0.6" --dims 5,5,5 --ports A \
    --deadlock bubble --ties random --load 0.6 --warmup 500 --measure 1500
same "plain 6x6x6 0.9, the warm-up extended" --dims 6,6,6 --plain --load 0.9 \
    --warmup 300 --warmup-max 5000 --measure 1000
same "2D 16x8 transpose" --dims 16,8 --load 0.2 --traffic transpose \
    --warmup 500 --measure 1500
same "3DT 5x5x5 D, L = 3 (epochs of 3 cycles), R = 2" --dims 5,5,5 --ports D \
    --link-latency 3 --router-latency 2 --load 0.3 --measure 3000
same "3DT 5x5x5 D, L = 70 (the far lists)" --dims 5,5,5 --ports D \
    --link-latency 70 --load 0.2 --warmup 1000 --measure 1500
same "3DT 6x6x6 D hotspot, 2 seeds" --dims 6,6,6 --ports D --traffic hotspot \
    --load 0.2 --seeds 2 --warmup 500 --measure 1000
same "3D-TESH L = 3" --topology tesh:m=2,L=3,q=0 --load 0.05 --warmup 300 \
    --measure 600
same "4D 3x3x3x4 shaped links" --dims 3,3,3,4 --load 0.2 --shape-gbps 1 \
    --warmup 500 --measure 1500
same "3DT 16x16x16 D (the prefetching loop)" --dims 16,16,16 --ports D \
    --load 0.05 --warmup 200 --measure 400 --drain 0

# the deadlock of seed 000 Example 6.1, on both nodes' threads
for n in 1 2; do
	expect "deadlock on $n threads" 1 "$T" run --threads "$n" --dims 2,2,2 \
	    --ports D --deadlock none --load 1 --seed 2
	grep -v '^  ' "$tmp/err" | head -1 >"$tmp/dl.$n"
	grep '^  ' "$tmp/err" >>"$tmp/dl.$n"
done
if [ -s "$tmp/dl.1" ] && cmp -s "$tmp/dl.1" "$tmp/dl.2" &&
    grep -q 'a cycle of 4 channels' "$tmp/dl.1"; then
	ok "the deadlock's cycle of 4 channels, the same on 2 threads"
else
	bad "deadlock on threads" "$(diff "$tmp/dl.1" "$tmp/dl.2"; head -3 "$tmp/dl.1")"
fi

# the default: threads from 2,048 switches, when this process may use
# two cores; the text output's speed line is the only thing that differs
if [ "$(nproc)" -ge 2 ]; then
	"$T" run --dims 16,16,16 --ports D --load 0.05 --warmup 100 --measure 100 \
	    --drain 0 --json | norm >"$tmp/auto.json"
	"$T" run --threads 2 --dims 16,16,16 --ports D --load 0.05 --warmup 100 \
	    --measure 100 --drain 0 --json | norm >"$tmp/two.json"
	if [ -s "$tmp/auto.json" ] && cmp -s "$tmp/auto.json" "$tmp/two.json"; then
		ok "16x16x16 by default: the JSON of two threads"
	else
		bad "16x16x16 by default" "$(head -c 300 "$tmp/auto.json")"
	fi
	# the text output says so
	expect "16x16x16 by default, text" 0 "$T" run --dims 16,16,16 --ports D \
	    --load 0.05 --warmup 100 --measure 100 --drain 0 &&
	    if grep -q '^  speed  .* cycles/s on 2 threads$' <<<"$out"; then
		ok "16x16x16 by default: on 2 threads"
	    else
		bad "16x16x16 by default: not on 2 threads" "$(tail -2 <<<"$out")"
	    fi
	expect "8x8x8 by default, text" 0 "$T" run --dims 8,8,8 --ports D \
	    --load 0.3 --warmup 100 --measure 100 &&
	    if grep -q '^  speed  .* cycles/s$' <<<"$out"; then
		ok "8x8x8 (1,024 switches) by default: one thread"
	    else
		bad "8x8x8 by default took threads" "$(tail -2 <<<"$out")"
	    fi
else
	skip "the default" "one core: the default is one thread"
fi

# ThreadSanitizer over threaded runs (make cli builds build/tsan/ttsim):
# any race between the threads fails the run with exit 66
if [ -n "${TTSIM_TSAN:-}" ] && [ -x "$TTSIM_TSAN" ]; then
	for args in "--dims 5,5,5 --ports A --deadlock bubble --ties random --load 0.5 --seeds 2" \
	    "--dims 6,6,6 --ports D --traffic flows --flow 0:200 --flow 3:100 --load 0.5 --shape-gbps 1" \
	    "--dims 4,4,4 --ports D --link-latency 70 --load 0.2"; do
		for n in 2 3; do
			# shellcheck disable=SC2086
			TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$TTSIM_TSAN" run \
			    --threads "$n" $args --warmup 300 --measure 600 --json \
			    >/dev/null 2>"$tmp/tsan.err"
			st=$?
			if [ "$st" -ne 0 ]; then
				bad "ThreadSanitizer, $n threads, $args (exit $st)" \
				    "$(grep -A12 -m1 WARNING "$tmp/tsan.err" || head -5 "$tmp/tsan.err")"
				continue 2
			fi
		done
		ok "ThreadSanitizer, 2 and 3 threads: $args"
	done
elif [ "${CI:-}" = true ]; then
	bad "ThreadSanitizer" "TTSIM_TSAN is not an executable (make cli builds build/tsan/ttsim)"
else
	skip "ThreadSanitizer" "TTSIM_TSAN not given (make cli builds build/tsan/ttsim)"
fi

refused "--threads 0" "ttsim run: --threads: '0' is not a whole number in 1..64" \
    "$T" run --dims 4,4,4 --threads 0
refused "more threads than nodes" "ttsim run: --threads 9: the network has 8 nodes" \
    "$T" run --dims 2,2,2 --threads 9
refused "--threads with --record" "ttsim run: --threads 2: --record records from one thread" \
    "$T" run --dims 4,4,4 --threads 2 --record "$tmp/rec"

finish
