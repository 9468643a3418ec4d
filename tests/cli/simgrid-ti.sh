#!/usr/bin/env bash
# SimGrid time-independent traces both ways, with the real SimGrid
# (libsimgrid-dev: smpicc, smpirun and its replay program):
#
#  - SimGrid to ttsim: tests/data/ti/ring.c, compiled by smpicc and run by
#    smpirun -trace-ti on 8 hosts, is replayed by ttsim (--causal) on a
#    2x2x2 twin torus; the messages it delivers are those the program
#    sends (3 * 8 ranks * 3 iterations point to point, by its structure),
#    counted again from the trace's send and isend lines with awk, plus
#    those its bcast, allreduce and barrier become by the algorithms
#    twintorus/mpitrace.h states (n-1, 2(n-1), n*ceil(log2 n)); exported
#    back by ttsim trace export --ti, SimGrid replays it with as many.
#  - ttsim to SimGrid: the real recording traces/captured/mpihalo-2x2x2,
#    exported by ttsim trace export --ti, holds one isend per message the
#    inference finds, reads back in ttsim with that many (and the same
#    compute, in trace stat), and SimGrid's replay (smpirun -replay) runs
#    it to the end with that many isends and recvs (counted in the TI
#    trace of the replay itself).
#  - bad input: a TI line ttsim cannot take (a receive from
#    MPI_ANY_SOURCE) is refused, exit 2, with FILE:LINE; export refuses a
#    directory with something in it, and a signal that ends it leaves no
#    temporary directory.
#
# Without SimGrid the script is skipped, except under CI, where make deps
# has installed libsimgrid-dev and its absence is a failure.
. "$(dirname "$0")/lib.sh"
BAD_LINES=30

if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL smpicc or smpirun missing (make deps installs libsimgrid-dev)"
		exit 1
	fi
	skip_all "SimGrid is not installed (make deps installs libsimgrid-dev)"
fi
# SimGrid's own chatter (configuration, host speed) off
QUIET=(--log=xbt_cfg.thres:warning --log=smpi_config.thres:warning)

# platform N: N hosts pe0.. of 1 Gflop/s on one 10 Gb/s switch
platform() {
	cat <<EOF
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="pe" suffix="" radical="0-$(($1 - 1))" speed="1Gf" bw="10Gbps" lat="1us"/>
</platform>
EOF
}
platform 8 >"$tmp/p8.xml"
platform 16 >"$tmp/p16.xml"

# ---- SimGrid to ttsim ----
N=8 ITERS=3
if ! smpicc -O1 -o "$tmp/ring" tests/data/ti/ring.c >"$tmp/cc.out" 2>&1; then
	bad "smpicc tests/data/ti/ring.c" "$(cat "$tmp/cc.out")"
	finish
fi
mkdir "$tmp/rec"
if ! (cd "$tmp/rec" && smpirun -np $N -platform "$tmp/p8.xml" -trace-ti \
    -trace-file ring.txt "${QUIET[@]}" "$tmp/ring") >"$tmp/run.out" 2>&1; then
	bad "smpirun -trace-ti ring" "$(cat "$tmp/run.out")"
	finish
fi
# the index names one file per rank
if [ "$(grep -c . "$tmp/rec/ring.txt")" = $N ]; then
	ok "smpirun -trace-ti wrote an index of $N rank files"
else
	bad "index of $N rank files" "$(cat "$tmp/rec/ring.txt")"
fi
files=$(sed "s|^|$tmp/rec/|" "$tmp/rec/ring.txt")
# shellcheck disable=SC2086  # one name a line, no blanks (SimGrid's)
p2p_awk=$(awk '$2 == "send" || $2 == "isend" { n++ } END { print n + 0 }' $files)
p2p_prog=$((3 * N * ITERS))
if [ "$p2p_awk" = "$p2p_prog" ]; then
	ok "the trace's send and isend lines are the program's $p2p_prog"
else
	bad "send and isend lines" "awk counts $p2p_awk, the program sends $p2p_prog"
fi
# collectives, by the algorithms of twintorus/mpitrace.h: each call is
# one line per rank
# shellcheck disable=SC2086
coll=$(awk -v n=$N '
	BEGIN { lg = 0; for (k = 1; k < n; k *= 2) lg++ }
	$2 == "bcast" { m += n - 1 } $2 == "allreduce" { m += 2 * (n - 1) }
	$2 == "barrier" { m += n * lg } END { print m / n }' $files)
want=$((p2p_awk + coll))
"$T" replay "$tmp/rec/ring.txt" --dims 2,2,2 --causal --json >"$tmp/r.json" 2>"$tmp/r.err"
st=$?
got=$(jq -r '.networks[0].messages_delivered' "$tmp/r.json" 2>/dev/null)
if [ $st = 0 ] && [ "$got" = "$want" ]; then
	ok "ttsim replays SimGrid's TI trace: $got messages ($p2p_awk point to point, $coll of collectives)"
else
	bad "ttsim replay of SimGrid's TI trace (exit $st)" \
	    "delivered $got, want $want$(printf '\n'; cat "$tmp/r.err")"
fi
# the directory holding the index is taken too, when the index has
# SimGrid's default name; the rate changes compute, not messages
cp "$tmp/rec/ring.txt" "$tmp/rec/smpi_simgrid.txt"
"$T" replay "$tmp/rec" --dims 2,2,2 --causal --ti-flops 1e9 --json >"$tmp/r2.json" 2>"$tmp/r2.err"
st=$?
got2=$(jq -r '.networks[0].messages_delivered' "$tmp/r2.json" 2>/dev/null)
ms1=$(jq -r '.networks[0].makespan_s' "$tmp/r.json" 2>/dev/null)
ms2=$(jq -r '.networks[0].makespan_s' "$tmp/r2.json" 2>/dev/null)
if [ $st = 0 ] && [ "$got2" = "$want" ] && awk -v a="$ms1" -v b="$ms2" 'BEGIN { exit !(b < a) }'; then
	ok "a directory with smpi_simgrid.txt replays; --ti-flops 1e9 computes faster ($ms2 s < $ms1 s)"
else
	bad "replay of the directory with --ti-flops 1e9 (exit $st)" \
	    "delivered $got2, makespan $ms2 s against $ms1 s$(printf '\n'; cat "$tmp/r2.err")"
fi

# and back: ttsim exports it (each collective as the messages it becomes)
# and SimGrid replays that, sending as many messages as ttsim replayed
"$T" trace export --ti "$tmp/ring-ti" "$tmp/rec/ring.txt" --json >"$tmp/rx.json" 2>"$tmp/rx.err"
st=$?
if [ $st = 0 ] && [ "$(jq -r .messages "$tmp/rx.json")" = "$want" ] &&
    (cd "$tmp/ring-ti" && smpirun -np $N -platform "$tmp/p8.xml" -replay smpi_simgrid.txt \
    -trace-ti -trace-file "$tmp/ring-replayed.txt" "${QUIET[@]}") >"$tmp/rx.out" 2>&1; then
	# shellcheck disable=SC2046  # absolute names, no blanks
	counts=$(cat $(cat "$tmp/ring-replayed.txt") | awk '
	    $2 == "isend" { s++ } $2 == "recv" { r++ } END { print s + 0, r + 0 }')
	if [ "$counts" = "$want $want" ]; then
		ok "SimGrid's trace exported by ttsim replays in SimGrid: $want isends and recvs"
	else
		bad "SimGrid's replay of the re-exported ring" "isends and recvs: $counts, want $want"
	fi
else
	bad "export of SimGrid's TI trace, replayed by SimGrid (exit $st)" \
	    "$(cat "$tmp/rx.err"; tail -5 "$tmp/rx.out" 2>/dev/null)"
fi

# ---- ttsim to SimGrid ----
halo=traces/captured/mpihalo-2x2x2
"$T" trace infer $halo --dims 2,2,2 -o "$tmp/halo.deps" --json >"$tmp/i.json" 2>"$tmp/i.err"
inferred=$(jq -r .messages "$tmp/i.json")
gaps=$(jq -r .compute.gaps_s "$tmp/i.json")
"$T" trace export --ti "$tmp/halo-ti" $halo --dims 2,2,2 --json >"$tmp/x.json" 2>"$tmp/x.err"
st=$?
isends=$(cat "$tmp"/halo-ti/rank-*.txt 2>/dev/null | awk '$2 == "isend" { n++ } END { print n + 0 }')
ranks=$(grep -c . "$tmp/halo-ti/smpi_simgrid.txt" 2>/dev/null)
if [ $st = 0 ] && [ -n "$inferred" ] && [ "$isends" = "$inferred" ] && [ "$ranks" = 16 ] &&
    [ "$(jq -r .messages "$tmp/x.json")" = "$inferred" ]; then
	ok "trace export --ti: $isends isends for the $inferred messages inferred, 16 rank files"
else
	bad "trace export --ti (exit $st)" \
	    "isends $isends, inferred $inferred, ranks $ranks$(printf '\n'; cat "$tmp/x.err")"
fi
# --deps FILE gives the same trace as inferring afresh
"$T" trace export --ti "$tmp/halo-ti2" --deps "$tmp/halo.deps" --dims 2,2,2 >/dev/null 2>"$tmp/x2.err"
st=$?
if [ $st = 0 ] && diff -r "$tmp/halo-ti" "$tmp/halo-ti2" >"$tmp/d.out" 2>&1; then
	ok "trace export --deps FILE writes the same trace"
else
	bad "trace export --deps (exit $st)" "$(cat "$tmp/x2.err" "$tmp/d.out")"
fi
# trace stat reads it back: the messages and, at the rate they were
# written at, the compute gaps to the nanosecond
"$T" trace stat "$tmp/halo-ti" --json >"$tmp/s.json" 2>"$tmp/s.err"
st=$?
if [ $st = 0 ] && [ "$(jq -r '"\(.format) \(.messages) \(.compute_s)"' "$tmp/s.json")" = "ti $inferred $gaps" ]; then
	ok "trace stat of the export: $inferred messages, $gaps s of compute, as inferred"
else
	bad "trace stat of the export (exit $st)" \
	    "$(jq -c '[.format, .messages, .compute_s]' "$tmp/s.json") against $inferred, $gaps$(printf '\n'; cat "$tmp/s.err")"
fi
# read back in ttsim: as many messages as inferred (no collective)
"$T" replay "$tmp/halo-ti" --dims 2,2,2 --causal --json >"$tmp/b.json" 2>"$tmp/b.err"
st=$?
back=$(jq -r '.networks[0].messages_delivered' "$tmp/b.json" 2>/dev/null)
if [ $st = 0 ] && [ "$back" = "$inferred" ]; then
	ok "ttsim replays the exported trace: $back messages"
else
	bad "ttsim replay of the exported trace (exit $st)" \
	    "delivered $back, inferred $inferred$(printf '\n'; cat "$tmp/b.err")"
fi
# SimGrid replays it to the end (smpirun -replay, run where the index's
# names are), recording its own TI trace of the replay to count with
if (cd "$tmp/halo-ti" && timeout 60 smpirun -np 16 -platform "$tmp/p16.xml" \
    -replay smpi_simgrid.txt -trace-ti -trace-file "$tmp/replayed.txt" \
    "${QUIET[@]}") >"$tmp/sg.out" 2>&1; then
	# shellcheck disable=SC2046  # absolute names, no blanks
	counts=$(cat $(cat "$tmp/replayed.txt") | awk '
	    $2 == "isend" { s++ } $2 == "recv" { r++ } END { print s + 0, r + 0 }')
	if [ "$counts" = "$inferred $inferred" ] && grep -q 'Simulation time' "$tmp/sg.out"; then
		ok "SimGrid replays the exported trace to the end: $inferred isends, $inferred recvs"
	else
		bad "SimGrid's replay of the exported trace" \
		    "isends and recvs: $counts, want $inferred of each$(printf '\n'; tail -5 "$tmp/sg.out")"
	fi
else
	bad "smpirun -replay of the exported trace" "$(tail -20 "$tmp/sg.out")"
fi

# ---- bad input ----
mkdir "$tmp/bad"
# (SimGrid 3.32 writes a receive from MPI_ANY_SOURCE with source -333)
printf '0 init\n0 recv -333 0 8\n' >"$tmp/bad/r0"
printf '1 init\n' >"$tmp/bad/r1"
printf 'r0\nr1\n' >"$tmp/bad/idx.txt"
"$T" replay "$tmp/bad/idx.txt" --dims 2,2,2 --causal >/dev/null 2>"$tmp/bad.err"
st=$?
if [ $st = 2 ] && grep -q "$tmp/bad/r0:2: recv: a receive from MPI_ANY_SOURCE" "$tmp/bad.err"; then
	ok "a receive from MPI_ANY_SOURCE: exit 2, FILE:LINE"
else
	bad "unsupported action (exit $st)" "$(cat "$tmp/bad.err")"
fi
"$T" trace export --ti "$tmp/bad" $halo --dims 2,2,2 >/dev/null 2>"$tmp/full.err"
st=$?
if [ $st = 2 ] && grep -q 'exists and is not empty' "$tmp/full.err" &&
    [ -f "$tmp/bad/r0" ] && [ ! -e "$tmp/bad/rank-0.txt" ]; then
	ok "export refuses a directory with something in it, and leaves it be"
else
	bad "export into a full directory (exit $st)" "$(cat "$tmp/full.err")"
fi
# a signal that ends an export removes its temporary directory: the
# dependencies come through a FIFO held open, so that it waits mid-way
mkfifo "$tmp/fifo"
"$T" trace export --ti "$tmp/killed" --deps "$tmp/fifo" --dims 2,2,2 >/dev/null 2>&1 &
pid=$!
exec 3>"$tmp/fifo"
head -3 "$tmp/halo.deps" >&3
for _ in $(seq 100); do
	compgen -G "$tmp/killed.part-*" >/dev/null && break
	sleep 0.05
done
made=$(compgen -G "$tmp/killed.part-*")
kill -TERM $pid
wait $pid
st=$?
exec 3>&-
left=$(compgen -G "$tmp/killed*")
if [ -n "$made" ] && [ $st = 143 ] && [ -z "$left" ]; then
	ok "SIGTERM during an export removes its temporary directory"
else
	bad "SIGTERM during an export (exit $st)" "made '$made', left '$left'"
fi
finish
