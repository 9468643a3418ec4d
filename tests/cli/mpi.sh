#!/usr/bin/env bash
# ttsim on Open MPI: mpirun -np 1..4 gives the serial run's JSON,
# bit for bit, for run, sweep and replay, on several topologies, loads and
# model parameters; rank 0 alone prints; the watchdog and progress work
# across ranks; what cannot run partitioned is refused with one message.
#
# The JSON is compared whole, except "wall_s" (seconds of the host) and a
# replay's "max_pending" (messages one process held at once), which
# describe the process, not the simulated network.  More ranks than the two
# cores run with --oversubscribe.  Needs a ttsim linked with Open MPI and
# mpirun (make deps); without them it is skipped, except under CI, where
# make deps has installed them and their absence is a failure.
. "$(dirname "$0")/lib.sh"
BAD_LINES=20

if ! ldd "$T" | grep -q libmpi || ! command -v mpirun >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL $T is not linked with Open MPI, or mpirun is missing"
		exit 1
	fi
	skip_all "$T is built without Open MPI (make deps; make)"
fi
MPIRUN=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)

norm() { jq -S -c 'walk(if type == "object" then del(.wall_s, .max_pending) else . end)'; }

# same NAME ARGS...: the serial JSON, then 1, 2, 3 and 4 ranks', all equal
same() {
	local name=$1 n st; shift
	"$T" "$@" --json 2>"$tmp/serial.err" | norm >"$tmp/serial.json"
	if [ ! -s "$tmp/serial.json" ]; then
		bad "$name: serial run" "$(cat "$tmp/serial.err")"
		return
	fi
	for n in 1 2 3 4; do
		"${MPIRUN[@]}" -np "$n" "$T" "$@" --json 2>"$tmp/mpi.err" | norm >"$tmp/mpi.json"
		st=${PIPESTATUS[0]}
		json_same "$name: $n ranks (exit $st)" "$tmp/serial.json" \
		    "$tmp/mpi.json" "$tmp/mpi.err" || return
	done
	ok "$name: 1-4 ranks identical"
}

# run: topologies, loads, schemes; link latencies 2..4 make epochs of
# several cycles; 3x4x5 and 3x3x2x2 split unevenly and inside planes
same "run 3DT 4x4x4 D vc 0.3" run --dims 4,4,4 --ports D --load 0.3
same "run 3DT 4x4x4 A bubble 0.5" run --dims 4,4,4 --ports A --deadlock bubble --load 0.5
same "run 2D 8x8 plain, L=3" run --dims 8,8 --plain --load 0.2 --link-latency 3
same "run 3DT 3x4x5 tornado, 2 seeds, P=2 L=2 R=2" run --dims 3,4,5 --traffic tornado \
    --load 0.4 --seeds 2 --packet-flits 2 --link-latency 2 --router-latency 2
same "run 3DT 4x4x4 hotspot 0.8, P=1 L=4" run --dims 4,4,4 --traffic hotspot --load 0.8 \
    --packet-flits 1 --link-latency 4 --warmup 1000 --measure 3000
same "run 4DT 3x3x2x2 G vc 0.4" run --dims 3,3,2,2 --load 0.4 --warmup 1000 --measure 3000
# shaped links: every rank's outputs hold their own buckets, past
# saturation (0.4 offered, 0.125 the buckets' rate)
same "run 3DT 4x4x4 D 0.4, shaped links, L=2" run --dims 4,4,4 --ports D --load 0.4 \
    --shape-gbps 2.5 --burst-bytes 256 --link-latency 2 --warmup 500 --measure 2000
# type-1 lanes, ties drawn per packet, and windows that fail the
# steady-state test turned into warm-up: every rank moves the window at
# the same cycle
same "run 3DT 4x4x2 D bubble 0.7, lanes, random ties, extended warm-up" run \
    --dims 4,4,2 --ports D --deadlock bubble --load 0.7 --ties random \
    --warmup 1000 --measure 2000 --warmup-max 9000
same "sweep 3DT 4x4x4 D,A x 0.1,0.6" sweep --dims 4,4,4 --loads 0.1,0.6 --ports D,A \
    --warmup 500 --measure 2000
# a sweep's points: whole points per rank while there are as many as
# ranks (the grid), each split over the ranks when fewer (the knee's loads)
same "sweep 3DT 2x2x2, knee refined" sweep --dims 2,2,2 --loads 0.1,0.4,0.8,1 \
    --warmup 200 --measure 500 --refine 0.05
# whole points: 5 ranks sweep a 4-node network, each rank running points
# alone (a point split 5 ways would be refused), with the serial CSV
"$T" sweep --dims 2,2 --plain --loads 0.1,0.2,0.3,0.4,0.5 --refine 0 \
    --warmup 200 --measure 500 --csv >"$tmp/w.serial" 2>&1
"${MPIRUN[@]}" -np 5 "$T" sweep --dims 2,2 --plain --loads 0.1,0.2,0.3,0.4,0.5 \
    --refine 0 --warmup 200 --measure 500 --csv >"$tmp/w.mpi" 2>&1; st=$?
[ "$st" = 0 ] && [ "$(wc -l <"$tmp/w.serial")" = 6 ] && cmp -s "$tmp/w.serial" "$tmp/w.mpi" &&
    ok "sweep: whole points on 5 ranks, 4 nodes" ||
    bad "sweep: whole points on 5 ranks, 4 nodes" "exit $st; $(head -5 "$tmp/w.mpi")"
same "replay alltoall on D, A, 2D" replay traces/alltoall-4x4x4.pcap yaml/3dt-4x4x4.yaml \
    --compare D,A,2d
# whole networks: 9 ranks replay 9 networks of 8 nodes, one each (a network
# split 9 ways would be refused), with the serial table
RN=(replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare D,A,G,B,C,E,F,H,I)
"$T" "${RN[@]}" >"$tmp/n.serial" 2>/dev/null
"${MPIRUN[@]}" -np 9 "$T" "${RN[@]}" >"$tmp/n.mpi" 2>/dev/null; st=$?
[ "$st" = 0 ] && [ -s "$tmp/n.serial" ] && cmp -s "$tmp/n.serial" "$tmp/n.mpi" &&
    ok "replay: whole networks on 9 ranks, 8 nodes" ||
    bad "replay: whole networks on 9 ranks, 8 nodes" "exit $st; $(head -5 "$tmp/n.mpi")"
same "replay stencil, 2x faster" replay traces/stencil-4x4x4 yaml/3dt-4x4x4.yaml --speed 2

# the watchdog across ranks: the deadlock (no avoidance) is found at the
# same cycle, with the same channels, exit 1
"$T" run --dims 2,2,4 --deadlock none --load 0.9 2>"$tmp/dl.serial" >/dev/null
st0=$?
"${MPIRUN[@]}" -np 3 "$T" run --dims 2,2,4 --deadlock none --load 0.9 2>"$tmp/dl.mpi" >/dev/null
st=$?
if [ "$st0" = 1 ] && [ "$st" = 1 ] && grep -q "deadlock: no flit moved" "$tmp/dl.serial" &&
    diff <(grep -E "^ttsim run: deadlock|^  \(" "$tmp/dl.serial") \
         <(grep -E "^ttsim run: deadlock|^  \(" "$tmp/dl.mpi") >/dev/null; then
	ok "deadlock: 3 ranks report the serial run's cycle and channels"
else
	bad "deadlock" "exit $st0/$st; $(head -4 "$tmp/dl.serial"; head -8 "$tmp/dl.mpi")"
fi

# rank 0 alone prints: one JSON object from 4 ranks
lines=$("${MPIRUN[@]}" -np 4 "$T" run --dims 4,4,4 --json 2>/dev/null | wc -l)
[ "$lines" = 1 ] && ok "rank 0 alone prints" || bad "rank 0 alone prints" "$lines lines"

# progress across ranks: lines (not a terminal's rewritten one) from rank
# 0 only, so no percentage appears twice
TTSIM_PROGRESS_SECONDS=0 "${MPIRUN[@]}" -np 2 "$T" run --dims 4,4,4 --measure 40000 \
    --json 2>"$tmp/prog" >/dev/null
n=$(grep -c "on 2 ranks" "$tmp/prog")
d=$(grep "on 2 ranks" "$tmp/prog" | awk '{print $3}' | sort | uniq -d | wc -l)
[ "$n" -ge 3 ] && [ "$d" = 0 ] && ok "progress: $n lines from rank 0" ||
    bad "progress" "$n lines, $d repeated: $(head -5 "$tmp/prog")"

# refusals: one message, exit 2
refuse() {
	local name=$1 want=$2 st; shift 2
	"${MPIRUN[@]}" "$@" >/dev/null 2>"$tmp/ref.err"
	st=$?
	if [ "$st" = 2 ] && grep -q -- "$want" "$tmp/ref.err" &&
	    [ "$(grep -c '^ttsim' "$tmp/ref.err")" = 1 ]; then
		ok "refused: $name"
	else
		bad "refused: $name" "exit $st: $(cat "$tmp/ref.err")"
	fi
}
refuse "replay --speed max" "speed max is for serial runs" -np 2 "$T" replay \
    traces/alltoall-4x4x4.pcap yaml/3dt-4x4x4.yaml --speed max
refuse "replay --csv" "csv is for serial runs" -np 2 "$T" replay \
    traces/alltoall-4x4x4.pcap yaml/3dt-4x4x4.yaml --csv "$tmp/x.csv"
refuse "more ranks than nodes" "5 ranks for a network of 4 nodes" -np 5 "$T" run \
    --dims 2,2 --plain

# the serial build needs no MPI: sim/mpi.c without TTSIM_MPI, linked with
# the same objects (and the library's own libraries: libotf2 when the
# build found it), has no libmpi and gives the same JSON
objs=$(ls build/sim/*.o | grep -v '/mpi-')
otf2_libs=$(pkg-config --libs otf2 2>/dev/null || true)
# shellcheck disable=SC2086  # lists of objects and libraries
if cc -std=c11 -D_GNU_SOURCE -Iinclude -Ilib -O2 -c sim/mpi.c -o "$tmp/mpi-serial.o" &&
    cc -o "$tmp/ttsim-serial" $objs "$tmp/mpi-serial.o" build/libtwintorus.a \
        -lyaml -lpcap $otf2_libs -lm && ! ldd "$tmp/ttsim-serial" | grep -q libmpi &&
    cmp -s <("$tmp/ttsim-serial" run --dims 4,4,4 --json) <("$T" run --dims 4,4,4 --json); then
	ok "serial build: no libmpi, same JSON"
else
	bad "serial build"
fi

finish
