#!/usr/bin/env bash
# The engine's timing parameters against each other: random small
# configurations (packet_flits 1-32, router latency 1-48 and link latency
# 1-80 cycles, store and forward or cut-through, shaped links or not, a
# twin 2x2x2 or a plain 3x3) at a load far below saturation must run to
# the end without the watchdog firing and deliver what they were offered.
# A switch whose turn falls beyond the reach of the engine's wheels (the
# far lists exist for those, lib/engine/sim_int.h) waits forever: under
# store and forward a packet's turn at the next switch is L + R + P - 1
# cycles after its grant, and a wheel sized for L + R and P alone lost
# it (the watchdog's "deadlock" with a cycle of 0 channels).  The
# configurations are drawn from fixed seeds, so every run checks the same
# ones; about 10 seconds.
# shellcheck disable=SC2015,SC2054  # "check && ok || bad": ok cannot fail; commas in flag values
. "$(dirname "$0")/lib.sh"

# one SEED N: N configurations drawn from bash's RANDOM seeded with SEED;
# one check for all of them
one() {
	local seed=$1 n=$2 i P R L saf r dims sh st fails=0 worst=""
	RANDOM=$seed
	for ((i = 0; i < n; i++)); do
		P=$((RANDOM % 32 + 1)); R=$((RANDOM % 48 + 1)); L=$((RANDOM % 80 + 1))
		saf=$((RANDOM % 2))
		sh=()
		if [ $((RANDOM % 2)) = 1 ]; then
			# a bucket of 0.5-9.4 Gb/s under the default 10 Gb/s
			# line, at least a packet of 16-byte flits deep
			# (RANDOM drawn here: a subshell draws its own)
			r=$((RANDOM % 90))
			sh=(--shape-gbps "$(awk -v r=$r 'BEGIN {printf "%.1f", 0.5 + r / 10}')"
			    --burst-bytes $(((P + RANDOM % 64) * 16)))
		fi
		[ $((RANDOM % 2)) = 1 ] && dims=(--dims 2,2,2) || dims=(--dims 3,3 --plain)
		printf 'model:\n  store_forward: %s\n' "$([ $saf = 1 ] && echo true || echo false)" \
		    >"$tmp/m.yaml"
		"$T" run "${dims[@]}" --packet-flits $P --router-latency $R --link-latency $L \
		    --buffer-flits $((P * 16)) --model "$tmp/m.yaml" "${sh[@]}" --load 0.02 \
		    --warmup 3000 --measure 20000 --json >"$tmp/r.json" 2>"$tmp/r.err"
		st=$?
		# at 0.02 of a link's rate every packet offered in the window
		# arrives: accepted within 10% of offered (a short window's
		# edges), whatever the bucket's rate (at least 0.05 of the line)
		if [ "$st" != 0 ] || ! jq -e '.accepted_load > 0.9 * .offered_load and
		    .accepted_load < 1.1 * .offered_load' "$tmp/r.json" >/dev/null 2>&1; then
			fails=$((fails + 1))
			worst="${dims[*]} P=$P R=$R L=$L store_forward=$saf ${sh[*]}: exit $st; $(head -c 160 "$tmp/r.err")"
		fi
	done
	[ "$fails" = 0 ] && ok "seed $seed: $n configurations run to the end, accepted = offered" ||
	    bad "seed $seed: $fails of $n configurations" "last: $worst"
}

one 7 40
one 123 40

finish
