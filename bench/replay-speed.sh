#!/usr/bin/env bash
# Replay speed and memory.  Not a test: it prints figures for
# bench/RESULTS.md.  The requirement: replaying a 1,000,000-message trace on
# 4x4x4 runs in a time dominated by the simulation, not the reading, and
# memory does not grow with the trace length beyond what is in flight.
#
#   bash bench/replay-speed.sh            all of it (about 2 minutes)
#   bash bench/replay-speed.sh --quick    100,000 and 300,000 messages (about 15 s)
#
# Traces are uniform one-packet messages from `ttsim trace synth`, replayed
# on the 3DT 4x4x4, configuration D, vc, at --speed 1 unless said.
#
# 1. Below saturation (load 0.3 and 0.1 flits/cycle/PE), 100k to 3M
#    messages: synth time, file size, the time of a read-only pass
#    (`ttsim trace stat`), replay wall time, peak RSS.  Replay reads the
#    trace twice with the same code: a validation pass before the run and
#    once during it.  --json's wall_s times the run alone, so everything
#    outside it (the validation pass, plus network set-up and output) is
#    wall - wall_s, and reading is at most 2 (wall - wall_s) / wall.
# 2. Past saturation (0.5 and 0.6; 4x4x4 D vc accepts about 0.34-0.38
#    there): the PEs' source queues grow for as long as the trace offers
#    more than the network accepts, and replay holds them, so memory
#    follows the backlog.
# 3. --lookahead at --speed 1 and --speed max, on the 1M trace at 0.3.  At
#    --speed 1 it only bounds memory; at --speed max it also caps the
#    messages queued at all PEs together, and so changes the result.
# 4. Instructions, from valgrind --tool=callgrind: reading (libpcap, frame
#    decoding, the merge), split into the validation pass and the reads
#    during the run; replay's message bookkeeping; the engine.
#
# Wall times are the best of 3 runs pinned to one core, with the peak RSS
# (/usr/bin/time %M) of the largest of the 3.  max_pending is printed if
# ttsim replay --json reports it per network (it does), "-" otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
quick=0
[ "${1:-}" = "--quick" ] && quick=1
[ -x "$T" ] || { echo "bench/replay-speed.sh: build $T first (make)" >&2; exit 2; }
for c in jq /usr/bin/time; do
	command -v "$c" >/dev/null || { echo "bench/replay-speed.sh: needs $c" >&2; exit 2; }
done
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttsim-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

NET=(--dims 4,4,4 --ports D --deadlock vc)
DATE=$(date +%F)
if [ $quick -eq 1 ]; then
	LOW="0.3"; HIGH="0.6"; SIZES="100000 300000"; LA_SIZE=100000; CG_SIZE=100000
else
	LOW="0.3 0.1"; HIGH="0.5 0.6"; SIZES="100000 300000 1000000 3000000"
	LA_SIZE=1000000; CG_SIZE=1000000
fi

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a - b}'; }

# timed OUT CMD...: runs CMD 3 times, standard output to OUT (the best
# run's is kept); prints "best-wall-s largest-peak-RSS-KiB".  The wall time
# is less OVH, what /usr/bin/time, taskset and an exec cost by themselves.
OVH=0
timed() {
	local out=$1 best="" rss=0 t0 t1 w r
	shift
	for _ in 1 2 3; do
		t0=$(now)
		if ! /usr/bin/time -f %M -o "$tmp/rss" "${pin[@]}" "$@" >"$tmp/run.out" 2>"$tmp/run.err"; then
			echo "bench/replay-speed.sh: failed: $*" >&2
			cat "$tmp/run.err" >&2
			exit 1
		fi
		t1=$(now)
		w=$(sub "$(sub "$t1" "$t0")" "$OVH")
		r=$(tail -n 1 "$tmp/rss")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN {exit !(a < b)}'; then
			best=$w
			cp "$tmp/run.out" "$out"
		fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	echo "$best $rss"
}

# trace LOAD N: the synthetic trace, written once; prints its path and
# leaves the synth wall time in $tmp/synth.LOAD-N.
trace() {
	local f="$tmp/u$1-$2.pcap" t0 t1
	if [ ! -f "$f" ]; then
		t0=$(now)
		"${pin[@]}" "$T" trace synth "${NET[@]}" --app uniform --load "$1" \
		    --messages "$2" --seed 1 -o "$f" 2>/dev/null
		t1=$(now)
		sub "$t1" "$t0" >"$tmp/synth.$1-$2"
	fi
	echo "$f"
}

# JSON fields of the first network: wall_s makespan accepted mean-latency
# max_pending
fields() {
	jq -r '.networks[0] | "\(.wall_s) \(.makespan_cycles) \(.accepted_load) \(.latency_cycles.mean) \(.max_pending // "-")"' "$1" |
	    awk '{ $1 = sprintf("%.3f", $1); print }'
}

# rows LOADS: one table row per load and trace size
rows() {
	local load n f sw rw rrss runs mk acc lat mp out share
	for load in $1; do
		for n in $SIZES; do
			f=$(trace "$load" "$n")
			read -r sw _ < <(timed "$tmp/stat.out" "$T" trace stat "$f")
			read -r rw rrss < <(timed "$tmp/replay.json" "$T" replay "$f" "${NET[@]}" --json)
			read -r runs mk acc lat mp < <(fields "$tmp/replay.json")
			out=$(sub "$rw" "$runs")
			share=$(awk -v o="$out" -v w="$rw" 'BEGIN {printf "%.0f%%", 200 * o / w}')
			printf '| %s | %s | %s | %s s | %.1f MB | %s s | %s s | %s s | %s s | %s | %s | %s | %s | %s | %d KiB |\n' \
			    "$DATE" "$load" "$n" "$(cat "$tmp/synth.$load-$n")" \
			    "$(awk -v b="$(stat -c %s "$f")" 'BEGIN {print b / 1e6}')" \
			    "$sw" "$rw" "$runs" "$out" "$share" "$mk" "$acc" "$lat" "$mp" "$rrss"
			echo "$load $n $rrss $share" >>"$tmp/summary"
			# the 3M traces are 138 MB each; keep only what section 3 needs
			[ "$n" = "$LA_SIZE" ] || rm -f "$f"
		done
	done
}

read -r OVH _ < <(timed /dev/null true)
HDR='| date | load | messages | synth (once) | file | trace stat | replay wall | run (wall_s) | outside the run | reading ≤ | makespan (cycles) | accepted | mean latency (cycles) | max_pending | peak RSS |'
SEP='|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'

echo "(wall times: best of 3, less $OVH s that the timing harness takes for \`true\`)"
echo
echo "== 1. below saturation: 4x4x4 D vc, uniform one-packet messages, --speed 1"
echo "   commands: ttsim trace synth ${NET[*]} --app uniform --load L --messages N --seed 1 -o F.pcap"
echo "             ttsim trace stat F.pcap"
echo "             ttsim replay F.pcap ${NET[*]} --json"
echo "$HDR"; echo "$SEP"
rows "$LOW"
echo
echo "== 2. past saturation (source queues grow with the trace)"
echo "$HDR"; echo "$SEP"
rows "$HIGH"

echo
echo "== 3. --lookahead, $LA_SIZE messages at load 0.3"
echo "   command: ttsim replay F.pcap ${NET[*]} --speed S --lookahead N --json"
echo "| date | --speed | --lookahead | replay wall | run (wall_s) | makespan (cycles) | accepted | mean latency (cycles) | max_pending | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|"
f=$(trace 0.3 "$LA_SIZE")
for sl in "1 4096" "1 65536" "1 1024" "max 4096" "max 65536" "max 1024" "max 64" "max 1" "max 4294967296"; do
	read -r sp la <<<"$sl"
	read -r rw rrss < <(timed "$tmp/la.json" "$T" replay "$f" "${NET[@]}" --speed "$sp" --lookahead "$la" --json)
	read -r runs mk acc lat mp < <(fields "$tmp/la.json")
	printf '| %s | %s | %s | %s s | %s s | %s | %s | %s | %s | %d KiB |\n' \
	    "$DATE" "$sp" "$la" "$rw" "$runs" "$mk" "$acc" "$lat" "$mp" "$rrss"
done

echo
echo "== 4. instructions (callgrind), $CG_SIZE messages at load 0.3"
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
	f=$(trace 0.3 "$CG_SIZE")
	echo "   command: valgrind --tool=callgrind $T replay F.pcap ${NET[*]} --json"
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
	    "$T" replay "$f" "${NET[@]}" --json >/dev/null 2>"$tmp/cg.err"
	# Inclusive costs, and tt_trace_in_next's split by caller: cmd_replay
	# (the validation pass) and replay_next (reads during the run).
	# (run from $tmp: in the source tree callgrind_annotate splits a
	# function into entries with relative and absolute file names)
	(cd "$tmp" && callgrind_annotate --auto=no --inclusive=yes --tree=caller cg.out 2>/dev/null) |
	awk -v n="$CG_SIZE" '
	function num(s) { gsub(",", "", s); return s + 0 }
	function max(a, b) { return a > b ? a : b }
	/PROGRAM TOTALS/ { total = num($1) }
	/ < .*:cmd_replay /  { pend_pre = num($1) }
	/ < .*:replay_next / { pend_run = num($1) }
	/^$/ { pend_pre = pend_run = 0 }
	/ \* .*:tt_trace_in_next / { pre = max(pre, pend_pre); inrun = max(inrun, pend_run) }
	/ \* .*sim\.c:tt_sim_run / { run = max(run, num($1)) }
	/ \* .*:replay_next /    { rnext = max(rnext, num($1)) }
	/ \* .*:replay_deliver / { rdel = max(rdel, num($1)) }
	END {
		if (total == 0 || run == 0 || pre == 0) {
			print "   (could not read the callgrind profile)"; exit
		}
		eng = run - rnext - rdel
		book = rnext - inrun + rdel
		other = total - run - pre
		printf "| part | instructions | share |\n|---|---|---|\n"
		printf "| reading, validation pass (tt_trace_in_next from cmd_replay) | %.0f | %.1f%% |\n", pre, 100 * pre / total
		printf "| reading, during the run (tt_trace_in_next from replay_next) | %.0f | %.1f%% |\n", inrun, 100 * inrun / total
		printf "| replay bookkeeping (replay_next, replay_deliver, without reading) | %.0f | %.1f%% |\n", book, 100 * book / total
		printf "| engine (tt_sim_run without the replay source) | %.0f | %.1f%% |\n", eng, 100 * eng / total
		printf "| start-up, network set-up, output | %.0f | %.1f%% |\n", other, 100 * other / total
		printf "| total | %.0f | 100%% |\n", total
		printf "\n   reading: %.0f instructions per message per pass; the engine: %.0f per message\n", pre / n, eng / n
	}'
else
	echo "   valgrind is not installed (apt-get install valgrind); skipped"
fi

echo
echo "== summary"
awk '
{
	if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3
	if ($3 > hi[$1]) hi[$1] = $3
	if ($2 == 1000000) sh[$1] = $4
}
END {
	for (l in lo)
		printf "   load %s: peak RSS %d to %d KiB over the trace lengths (max/min %.2f)%s\n",
		    l, lo[l], hi[l], hi[l] / lo[l], (l in sh) ? "; reading at most " sh[l] " of the 1M replay" : ""
}' "$tmp/summary" | sort
