#!/bin/bash
# Record MPI applications on the namespace testbed under three network
# configurations, for bench/predict/predict.sh (README.md here).
#
#   bench/predict/record.sh [-r R] [-c X,Y,Z] [-a APPS] OUT
#
# Builds the 2x2x2 testbed once (tests/testbed/lib.sh and mpi.sh's
# functions, sourced), then for each repetition r = 1..R (default 5) and
# each configuration in turn, interleaved (X Y Z X Y Z ...): shapes every
# link for the configuration, runs each application once with fresh
# daemons and a fresh trace directory, and keeps under OUT/C/APP/run<r>/:
#
#   traces/       every node's PE trace and port traces, cut to their
#                 headers (tbflows snap 96)
#   cluster.yaml  the cluster file the daemons ran with
#   stdout, stderr  the program's (mpirun's) output; NetPIPE's own output
#                 file as np.out
#   otf2/         the same run's MPI calls, an OTF2 archive that
#                 ttmpitrace wrote (MPITRACE, below), and placement: the
#                 PE of each rank ("RANK PE" lines, hostfile order), for
#                 ttsim replay --placement
#   measured      key=value: measured_s, span_s, mpirun_s, load before and
#                 after (/proc/loadavg), cpu_busy, ttd_cpu_s, ok
#
# and one line per run in OUT/runs.tsv: config app run measured_s span_s
# load1_before load1_after ok cpu_busy ttd_cpu_s (the share of the
# machine's cores busy through the job, whatever ran, from /proc/stat;
# the CPU seconds the eight ttd took in it).
#
# Configurations (every cable and every internal link, both veth ends, in
# the node namespaces; the PEs' TAPs are not links and stay unshaped):
#   X  the plain testbed
#   Y  tc tbf rate $Y_RATE (20mbit)
#   Z  tc tbf rate $Z_RATE (5mbit)
# with burst $TBF_BURST (2kb: more than the largest frame a port carries,
# 1544 bytes, so that tbf never refuses a frame, and no more, so that a
# link is as near a wire of that rate as tbf makes it: a token bucket
# lets its burst through at line rate after an idle moment; with 32kb
# half of a 64 KiB message did, and the ping-pong on Z ran at 8.5 Mbit/s;
# with 8kb every message of a few KiB passed unslowed.  Measured on a
# veth pair at 5mbit: 1 MB in 1.68 s with burst 1600 or 2kb, 1.67 with
# 8kb, no drops)
# and limit $TBF_LIMIT (1mb of queue:
# more than ttd can have in flight on a port, its credits being 64 KiB a
# VC for at most 4 VCs, so tbf never drops a torus frame; a drop would
# lose the frame's credits).  The queue is thus bounded by ttd's credits,
# not by tbf.
#
# Applications (APPS, default netpipe,netpipe-far,lammps,halo,pingpong):
#   netpipe      NPopenmpi on PEs 0 and 2 (one cable apart)
#   netpipe-far  NPopenmpi on PEs 1 and 14 (three cables and both
#                internal links: five hops)
#   lammps       lmp lj-melt, one rank per node, as mpi.sh
#   halo         mpihalo on all 16 PEs, mpi.sh's HALO_ARGS but 20
#                iterations (HALO_ITERS)
#   pingpong     build/bench/pingpong on PEs 1 and 14 (the program
#                bench/predict/simgrid/ runs under SimGrid)
# Every rank runs with ttmpitrace preloaded ($MPITRACE, default
# build/libttmpitrace.so; MPITRACE= records no archive), which keeps each
# MPI call in memory and writes the archive at MPI_Finalize: two clock
# reads a call.
# Every ttd thread runs at SCHED_FIFO priority $TTD_RT (50; empty: the
# default scheduler), so that a switch takes a frame when it comes rather
# than when the spinning MPI ranks leave it a core (README.md here).
# The workload is the same on every configuration.  measured_s is the
# application's own time where it prints one (mpihalo's wall, LAMMPS's
# Loop time, pingpong's total); for NetPIPE, which prints per-size times
# only, it is the trace span.  span_s is always the trace span: the first
# TCP data segment sent to the last delivered (mpi.sh's
# mpi_recorded_span), what causal replay's makespan corresponds to.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../tests/testbed/mpi.sh"

R=5
CONFIGS=X,Y,Z
APPS=netpipe,netpipe-far,lammps,halo,pingpong
Y_RATE=${Y_RATE:-20mbit}
Z_RATE=${Z_RATE:-5mbit}
TBF_BURST=${TBF_BURST:-2kb}
TBF_LIMIT=${TBF_LIMIT:-1mb}
MPI_TIMEOUT=${REC_TIMEOUT:-240}   # mpi_launch's limit per job
PINGPONG=${PINGPONG:-$TB_ROOT/build/bench/pingpong}
TTD_RT=${TTD_RT-50}    # SCHED_FIFO priority of every ttd thread (empty: none)
NP=${NP:-NPopenmpi}
# The workloads (the same on every configuration).  NetPIPE: sizes 1 B to
# 64 KiB, no perturbation, a constant 5 repeats a size (its default picks
# the repeats from the measured speed, which would change the workload
# with the network).  LAMMPS: mpi.sh's 864 atoms and 50 steps.
NP_ARGS=(-l 1 -u ${NP_MAX:-65536} -n ${NP_REPS:-5} -p 0)
PP_ARGS=(-l 1 -u ${PP_MAX:-65536} -n ${PP_REPS:-5})
REC_LMP_STEPS=${REC_LMP_STEPS:-$LMP_STEPS}
REC_HALO_ARGS=(-n 16 -i ${HALO_ITERS:-20} -w 100)

usage() { echo "usage: record.sh [-r R] [-c X,Y,Z] [-a APPS] OUT" >&2; exit 64; }
while getopts r:c:a: o; do
	case $o in
	r) R=$OPTARG ;;
	c) CONFIGS=$OPTARG ;;
	a) APPS=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || usage
OUTDIR=$1

why=$(mpi_why_not)
[ -z "$why" ] || { echo "record: cannot run: $why" >&2; exit 69; }
for a in ${APPS//,/ }; do
	case $a in
	netpipe|netpipe-far) command -v "$NP" >/dev/null || { echo "record: $NP is missing (netpipe-openmpi)" >&2; exit 69; } ;;
	lammps) command -v "$LMP" >/dev/null || { echo "record: $LMP is missing (lammps)" >&2; exit 69; } ;;
	halo) [ -x "$MPIHALO" ] || { echo "record: $MPIHALO is not built (make testbed builds it)" >&2; exit 69; } ;;
	pingpong) [ -x "$PINGPONG" ] || { echo "record: $PINGPONG is not built (make build/bench/pingpong)" >&2; exit 69; } ;;
	*) echo "record: -a: $a: not an application here" >&2; exit 64 ;;
	esac
done
[ -z "$MPITRACE" ] || [ -f "$MPITRACE" ] || { echo "record: $MPITRACE is not built (make builds it where libotf2 is; MPITRACE= records without it)" >&2; exit 69; }
for c in ${CONFIGS//,/ }; do
	case $c in X|Y|Z) ;; *) echo "record: -c: $c: configurations are X, Y, Z" >&2; exit 64 ;; esac
done

prog() { printf '%s record: %s\n' "$(date +%T)" "$*" >&2; }

# ---- the configurations ----

rate_of() { case $1 in Y) echo "$Y_RATE" ;; Z) echo "$Z_RATE" ;; *) echo ;; esac; }

# Every port veth of every node: a tbf with the configuration's rate, or
# none for X (tb_shape, tools/ttbed/lib.sh).
shape() { tb_shape "$(rate_of "$1")" "$TBF_BURST" "$TBF_LIMIT"; }

# The tbf drops of every port since the last shape (should stay 0).
tbf_drops() {
	local n ns
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		ip netns exec "$ns" tc -s -j qdisc show 2>/dev/null | jq '[.[] | select(.kind == "tbf") | .drops] | add // 0'
	done | awk '{s += $1} END {print s + 0}'
}

# ---- one run ----

load1() { cut -d' ' -f1 /proc/loadavg; }

# The machine's CPU counters (/proc/stat's first line): "BUSY TOTAL" in
# clock ticks, idle and iowait being the only time not busy.
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }

# The user and system ticks every ttd has used so far.
ttd_ticks() {
	local n sum=0 p
	for ((n = 0; n < TB_NNODES; n++)); do
		p=$(tb_ttd_pid $n)
		[ -r "/proc/$p/stat" ] || continue
		sum=$((sum + $(tb_ticks_sum "$p")))
	done
	echo $sum
}

# run_app C APP r: fresh daemons and trace directory, the job, the
# daemons stopped; everything kept in OUT/C/APP/run<r>/.
run_app() {
	local c=$1 app=$2 r=$3 dst=$OUTDIR/$1/$2/run$3 work=$TB_TMP/run pes cmd=() rc
	local lb la measured span ok=1 f d0 d1 c0 c1 s0 s1 busy ttd_s hz
	rm -rf "$work" "$dst"; mkdir -p "$work" "$dst/traces"
	case $app in
	netpipe)     pes="0 2";  cmd=("$NP" "${NP_ARGS[@]}" -o np.out) ;;
	netpipe-far) pes="1 14"; cmd=("$NP" "${NP_ARGS[@]}" -o np.out) ;;
	pingpong)    pes="1 14"; cmd=("$PINGPONG" "${PP_ARGS[@]}") ;;
	halo)        pes=$(seq -s ' ' 0 $((TB_NPES - 1))); cmd=("$MPIHALO" "${REC_HALO_ARGS[@]}") ;;
	lammps)      pes=$(seq -s ' ' 0 2 $((TB_NPES - 1)))
	             cmd=("$LMP" -in "$TB_ROOT/tests/testbed/lj-melt.in" -var cells "$LMP_CELLS" \
	                  -var steps "$REC_LMP_STEPS" -log none -echo none) ;;
	esac
	mpi_hostfile "$work/hosts" $pes
	[ -z "$MPITRACE" ] || cmd=(-x LD_PRELOAD="$MPITRACE" -x TT_MPITRACE="$work/otf2" "${cmd[@]}")
	if ! tb_ttd_start "$TB_TMP/mpi.yaml" "$work/traces"; then
		prog "$c $app run$r: the daemons did not start"
		tb_ttd_stop 2>/dev/null
		return 1
	fi
	if [ -n "$TTD_RT" ]; then
		for ((f = 0; f < TB_NNODES; f++)); do
			chrt -a -f -p "$TTD_RT" "$(tb_ttd_pid $f)" ||
			    { prog "$c $app run$r: chrt $TTD_RT of n$f's ttd failed"; ok=0; }
		done
	fi
	d0=$(tbf_drops)
	lb=$(cat /proc/loadavg)
	c0=$(cpu_ticks); s0=$(ttd_ticks)
	mpi_launch "$app" "$work/hosts" "$(echo $pes | wc -w)" "$work/run" "${cmd[@]}"
	rc=$?
	c1=$(cpu_ticks); s1=$(ttd_ticks)
	la=$(cat /proc/loadavg)
	# the share of the machine's cores busy through the job (whatever
	# ran), and the core-seconds the switches took of it
	hz=$(getconf CLK_TCK)
	busy=$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " ");
	    if (y[2] > x[2]) printf "%.3f", (y[1] - x[1]) / (y[2] - x[2]) }')
	ttd_s=$(awk -v a="$s0" -v b="$s1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')
	d1=$(tbf_drops)
	tb_ttd_stop || { prog "$c $app run$r: a daemon did not exit 0"; ok=0; }
	[ $rc = 0 ] || { prog "$c $app run$r: mpirun exit $rc"; ok=0; }
	cp "$TB_TMP/$app.out" "$dst/stdout"; cp "$TB_TMP/$app.err" "$dst/stderr"
	[ -f "$work/run/np.out" ] && cp "$work/run/np.out" "$dst/np.out"
	if [ -n "$MPITRACE" ]; then
		if [ -f "$work/otf2/traces.otf2" ]; then
			cp -r "$work/otf2" "$dst/otf2"
			f=0; for t in $pes; do echo "$f $t"; f=$((f + 1)); done > "$dst/otf2/placement"
		else
			prog "$c $app run$r: ttmpitrace wrote no archive"; ok=0
		fi
	fi
	cp "$TB_TMP/mpi.yaml" "$dst/cluster.yaml"
	# the trace directory cut to its headers: PE traces and port traces
	for f in "$work"/traces/*.pcap; do
		"$TBFLOWS" snap "$SNAP" "$f" "$dst/traces/$(basename "$f")" || ok=0
	done
	"$TBFLOWS" frames "$work"/traces/*-pe.pcap > "$work/flows" 2>/dev/null || ok=0
	span=$(mpi_recorded_span "$work/flows")
	case $app in
	halo)     measured=$(sed -n 's/^mpihalo: .* wall \([0-9.e+-]*\) s.* ok$/\1/p' "$dst/stdout") ;;
	lammps)   measured=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on .*/\1/p' "$dst/stdout") ;;
	pingpong) measured=$(sed -n 's/^pingpong: total \([0-9.e+-]*\) s.*/\1/p' "$dst/stdout") ;;
	netpipe*) measured=$span ;;
	esac
	[ -n "$measured" ] && [ -n "$span" ] || ok=0
	{
		echo "config=$c"; echo "app=$app"; echo "run=$r"; echo "pes=$pes"
		echo "rate=$(rate_of "$c")"; echo "tbf_burst=$TBF_BURST"; echo "tbf_limit=$TBF_LIMIT"
		echo "measured_s=${measured:-}"; echo "span_s=${span:-}"; echo "mpirun_s=$MPI_WALL"
		echo "tbf_drops=$((d1 - d0))"; echo "ttd_rt=${TTD_RT:-none}"
		echo "loadavg_before=$lb"; echo "loadavg_after=$la"
		echo "cpu_busy=$busy"; echo "ttd_cpu_s=$ttd_s"; echo "ok=$ok"
		printf 'command='; printf '%q ' "${cmd[@]}"; echo
	} > "$dst/measured"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$app" "$r" "${measured:-}" "${span:-}" \
	    "${lb%% *}" "${la%% *}" "$ok" "$busy" "$ttd_s" >> "$OUTDIR/runs.tsv"
	prog "$c $app run$r: measured ${measured:-?} s, span ${span:-?} s, mpirun $MPI_WALL s, tbf drops $((d1 - d0)), load ${lb%% *} -> ${la%% *}, cores busy $busy, switches ${ttd_s} s$([ $ok = 1 ] || echo ', FAILED')"
	rm -rf "$work"
	[ $ok = 1 ]
}

# ---- main ----

tb_init
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd)
t_all=$(date +%s)
if ! { tb_layout $MPI_DIMS D && tb_build && mpi_mgmt_build; }; then
	echo "record: could not build the torus and the management network" >&2
	exit 1
fi
mpi_yaml "$TB_TMP/mpi.yaml"
printf 'config\tapp\trun\tmeasured_s\tspan_s\tload1_before\tload1_after\tok\tcpu_busy\tttd_cpu_s\n' > "$OUTDIR/runs.tsv"
{
	echo "started $(date -Is) on $(hostname), $(nproc) cores"
	echo "R=$R configs=$CONFIGS apps=$APPS"
	echo "Y_RATE=$Y_RATE Z_RATE=$Z_RATE TBF_BURST=$TBF_BURST TBF_LIMIT=$TBF_LIMIT"
	echo "NP_ARGS=${NP_ARGS[*]} PP_ARGS=${PP_ARGS[*]} HALO_ARGS=${REC_HALO_ARGS[*]} LMP_CELLS=$LMP_CELLS LMP_STEPS=$REC_LMP_STEPS"
	echo "git $(git -C "$TB_ROOT" rev-parse --short HEAD 2>/dev/null)"
} > "$OUTDIR/record.log"
prog "testbed $MPI_DIMS up ($TB_NPES PEs); R=$R, configurations $CONFIGS, applications $APPS -> $OUTDIR"
fails=0
for ((r = 1; r <= R; r++)); do
	for c in ${CONFIGS//,/ }; do
		t0=$(date +%s)
		shape "$c" || { prog "$c: tc failed"; exit 1; }
		for a in ${APPS//,/ }; do
			run_app "$c" "$a" "$r" || fails=$((fails + 1))
		done
		shape X
		prog "$c run$r: $(( $(date +%s) - t0 )) s"
		echo "$c run$r: $(( $(date +%s) - t0 )) s" >> "$OUTDIR/record.log"
	done
done
echo "total $(( $(date +%s) - t_all )) s, $fails runs failed" >> "$OUTDIR/record.log"
prog "done in $(( $(date +%s) - t_all )) s, $fails runs failed; $OUTDIR/runs.tsv"
[ $fails = 0 ]
