#!/usr/bin/env bash
# ttmpitrace (build/libttmpitrace.so): a real MPI program, the testbed's
# mpihalo on 8 ranks over Open MPI's shared memory, run with the library
# preloaded, leaves an OTF2 archive that ttsim reads and replays:
#   - the archive's point-to-point messages and bytes are those mpihalo
#     counts and prints itself, its collective calls the four it makes (a
#     barrier and three reduces), on 8 ranks;
#   - ttsim replay delivers every message of it, causally;
#   - --recorded-model fits the hosts' turnaround: the replay on the
#     recorded hardware then takes the archive's recorded message span
#     (within 1%), and a destination of slower links predicts a longer
#     makespan with the same fitted host_ns; the recorded model's own
#     host_ns is the least the fit takes: below the fit it changes nothing
#     but the start (within 1% again, host_ns not below it), above the
#     recorded span it is the answer (floored, replayed longer);
#   - tests/data/mpi/mpicalls, which makes every call the library records
#     (sendrecv, isend and irecv completed by waitany and by testsome,
#     ssend to a receive from any source, rsend, a freed isend, a send to
#     MPI_PROC_NULL, every blocking collective, a split communicator), on
#     4 ranks: the 3N + 3 messages of 600N + 180 bytes and 19 collective
#     calls its comment counts, every message delivered in the replay;
#   - a second run into the same folder is refused and leaves the first
#     archive as it was; --host-ns beside --recorded-model, and
#     --recorded-model on a trace without times, are refused with one line
#     and exit 2.
# Skipped without the library or mpirun, except under CI, where make deps
# has installed Open MPI and libotf2 and their absence is a failure.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
LIB=$tt_top/build/libttmpitrace.so
HALO=$tt_top/build/tests/mpihalo
CALLS=$tt_top/build/tests/mpicalls
if [ ! -f "$LIB" ] || [ ! -x "$HALO" ] || [ ! -x "$CALLS" ] || ! command -v mpirun >/dev/null; then
	[ "${CI:-}" = true ] && { echo "FAIL $LIB, $HALO, $CALLS or mpirun is missing"; exit 1; }
	skip_all "build/libttmpitrace.so, build/tests/mpihalo, build/tests/mpicalls or mpirun is missing (make deps; make cli)"
fi
MPIRUN=(mpirun --oversubscribe --mca btl self,vader)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
rel() { awk -v a="$1" -v b="$2" -v e="$3" 'BEGIN { d = (a - b) / b; exit !(d <= e && -d <= e) }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# halo DIR: mpihalo on 8 ranks recorded into DIR; its own line in $tmp/halo
halo() {
	"${MPIRUN[@]}" -np 8 -x LD_PRELOAD="$LIB" -x TT_MPITRACE="$1" \
	    "$HALO" -n 8 -i 5 > "$tmp/halo" 2> "$tmp/err"
}

A=$tmp/halo.otf2
if halo "$A" && [ -f "$A/traces.otf2" ]; then
	ok "mpihalo with ttmpitrace preloaded: the archive written"
else
	bad "mpihalo with ttmpitrace" "exit $?: $(head -c 2000 "$tmp/err")"
fi
# mpihalo's own count: "..., 240 messages, 61440 bytes, checksum ... ok"
read -r msgs bytes < <(sed -n 's/.* \([0-9]*\) messages, \([0-9]*\) bytes, checksum .* ok$/\1 \2/p' "$tmp/halo")
if [ -n "${msgs:-}" ] && expect "trace stat" 0 "$T" trace stat "$A/traces.otf2" --json; then
	[ "$(jq .ranks <<< "$out")" = 8 ] &&
	    [ "$(jq .p2p_messages <<< "$out")" = "$msgs" ] &&
	    [ "$(jq .p2p_bytes <<< "$out")" = "$bytes" ] &&
	    [ "$(jq .collectives <<< "$out")" = 4 ] &&
	    ok "the archive holds mpihalo's $msgs messages of $bytes bytes and its 4 collective calls" ||
	    bad "trace stat: wanted $msgs messages, $bytes bytes, 4 collectives on 8 ranks" "$out"
else
	bad "mpihalo's count or trace stat" "$(cat "$tmp/halo")"
fi
if expect "replay" 0 "$T" replay "$A/traces.otf2" --dims 2,2,2 --json; then
	[ "$(jq .networks[0].messages_delivered <<< "$out")" = "$(jq .trace.messages <<< "$out")" ] &&
	    gt "$(jq .trace.recorded_message_span_s <<< "$out")" 0 &&
	    ok "replayed causally: every message delivered" || bad "replay" "$out"
fi

# the recorded hardware: fast links, little latency; a destination at a
# tenth of the link rate
printf 'model:\n  link_gbps: 10\n  router_ns: 1000\n  link_ns: 100\n' > "$tmp/rec.yaml"
printf 'model:\n  link_gbps: 1\n  router_ns: 1000\n  link_ns: 100\n' > "$tmp/slow.yaml"
if expect "fit" 0 "$T" replay "$A/traces.otf2" --dims 2,2,2 --recorded-model "$tmp/rec.yaml" \
    --model "$tmp/rec.yaml" --json; then
	h=$(jq .trace.host_fit.host_ns <<< "$out")
	span=$(jq .trace.recorded_message_span_s <<< "$out")
	same=$(jq .networks[0].makespan_s <<< "$out")
	rel "$same" "$span" 0.01 && [ "$(jq .networks[0].model.host_ns <<< "$out")" = "$h" ] &&
	    ok "--recorded-model: host_ns $h ns a packet replays the recorded span $span s in $same s" ||
	    bad "--recorded-model on the recorded hardware: $same s against $span s (host_ns $h)" "$out"
	if expect "fit, slower destination" 0 "$T" replay "$A/traces.otf2" --dims 2,2,2 \
	    --recorded-model "$tmp/rec.yaml" --model "$tmp/slow.yaml" --json; then
		gt "$(jq .networks[0].makespan_s <<< "$out")" "$same" &&
		    [ "$(jq .trace.host_fit.host_ns <<< "$out")" = "$h" ] &&
		    ok "the same host_ns on links ten times slower: $(jq .networks[0].makespan_s <<< "$out") s" ||
		    bad "slower destination" "$out"
	fi
fi

# the recorded model's own host_ns as the fit's floor: 1 us (below the
# fit above), then 10 ms a packet (far above: the span is exceeded)
if [ -n "${h:-}" ] && [ "$h" != null ]; then
	cat "$tmp/rec.yaml" > "$tmp/rec-low.yaml"; echo '  host_ns: 1000' >> "$tmp/rec-low.yaml"
	cat "$tmp/rec.yaml" > "$tmp/rec-high.yaml"; echo '  host_ns: 10000000' >> "$tmp/rec-high.yaml"
	if expect "fit over a low floor" 0 "$T" replay "$A/traces.otf2" --dims 2,2,2 \
	    --recorded-model "$tmp/rec-low.yaml" --model "$tmp/rec.yaml" --json; then
		hl=$(jq .trace.host_fit.host_ns <<< "$out")
		[ "$(jq .trace.host_fit.floored <<< "$out")" = false ] &&
		    [ "$(jq .trace.host_fit.floor_ns <<< "$out")" = 1000 ] && ! gt 1000 "$hl" &&
		    rel "$(jq .networks[0].makespan_s <<< "$out")" "$span" 0.01 &&
		    ok "a floor of 1 us under the fit: host_ns $hl, the span replayed within 1%" ||
		    bad "--recorded-model whose host_ns is below the fit" "$out"
	fi
	if expect "fit under a high floor" 0 "$T" replay "$A/traces.otf2" --dims 2,2,2 \
	    --recorded-model "$tmp/rec-high.yaml" --model "$tmp/rec.yaml" --json; then
		[ "$(jq .trace.host_fit.floored <<< "$out")" = true ] &&
		    [ "$(jq .trace.host_fit.host_ns <<< "$out")" = 10000000 ] &&
		    gt "$(jq .trace.host_fit.replayed_s <<< "$out")" "$span" &&
		    [ "$(jq .networks[0].model.host_ns <<< "$out")" = 10000000 ] &&
		    grep -q "with the file's own host_ns" "$tmp/err" &&
		    ok "a floor of 10 ms over the span: host_ns is the file's, floored, with a warning" ||
		    bad "--recorded-model whose host_ns exceeds the span" "$out" "$(cat "$tmp/err")"
	fi
fi

# every call recorded: mpicalls on N = 4 ranks
C=$tmp/calls.otf2
if "${MPIRUN[@]}" -np 4 -x LD_PRELOAD="$LIB" -x TT_MPITRACE="$C" "$CALLS" >"$tmp/calls" 2>"$tmp/err" &&
    grep -qx 'mpicalls: 4 ranks ok' "$tmp/calls" &&
    expect "trace stat (mpicalls)" 0 "$T" trace stat "$C/traces.otf2" --json; then
	[ "$(jq .ranks <<< "$out")" = 4 ] && [ "$(jq .p2p_messages <<< "$out")" = 15 ] &&
	    [ "$(jq .p2p_bytes <<< "$out")" = 2580 ] && [ "$(jq .collectives <<< "$out")" = 19 ] &&
	    ok "mpicalls: 15 messages of 2580 bytes and 19 collective calls, as its comment counts" ||
	    bad "mpicalls: wanted 15 messages, 2580 bytes, 19 collectives on 4 ranks" "$out"
	if expect "replay (mpicalls)" 0 "$T" replay "$C/traces.otf2" --dims 2,2,2 --json; then
		[ "$(jq .networks[0].messages_delivered <<< "$out")" = "$(jq .trace.messages <<< "$out")" ] &&
		    ok "mpicalls replayed: all $(jq .trace.messages <<< "$out") messages delivered" ||
		    bad "mpicalls replay" "$out"
	fi
else
	bad "mpicalls with ttmpitrace" "$(cat "$tmp/calls" "$tmp/err" | head -c 2000)"
fi

cp "$A/traces.def" "$tmp/def.before"
if halo "$A"; then
	bad "a second run into the same folder" "exit 0: $(cat "$tmp/err")"
else
	grep -q "traces.otf2 exists" "$tmp/err" && cmp -s "$A/traces.def" "$tmp/def.before" &&
	    ok "a second run into the same folder refused, the archive kept" ||
	    bad "a second run into the same folder" "$(head -c 2000 "$tmp/err")"
fi

refused "--host-ns beside --recorded-model" "ttsim replay: --host-ns and --recorded-model" \
    "$T" replay "$A/traces.otf2" --dims 2,2,2 --recorded-model "$tmp/rec.yaml" --host-ns 5
# a SimGrid time-independent trace of two ranks: no times
printf '0 init\n0 send 1 0 100\n0 finalize\n' > "$tmp/r0.txt"
printf '1 init\n1 recv 0 0 100\n1 finalize\n' > "$tmp/r1.txt"
printf 'r0.txt\nr1.txt\n' > "$tmp/ti.txt"
refused "--recorded-model on a trace without times" "ttsim replay: --recorded-model:" \
    "$T" replay "$tmp/ti.txt" --dims 2,2,2 --recorded-model "$tmp/rec.yaml"
finish
