#!/bin/bash
# Real MPI programs across the testbed: unmodified Open MPI jobs whose
# ranks run in the PE namespaces and talk TCP through the PEs' TAPs, so
# that ttd forwards and records every frame of them
# (tests/testbed/README.md, "MPI applications").
#
#   tests/testbed/mpi.sh [--keep] [--out DIR] [--apps halo,lammps]
#   tests/testbed/mpi.sh --why-not     say why it cannot run here, exit 1;
#                                      exit 0 silently if it can
#
# --out DIR keeps, per application, DIR/APP/ with its PE traces cut to
# their headers (tbflows snap), the cluster YAML and the program's
# output: the real-application trace in traces/ was made this way
# (traces/README.md).  Prints one ok/FAIL line per check (SKIP with the
# reason for an application that is not installed) and ends with
# "N passed, N failed"; exit 0 only when nothing failed.
#
# Sourced (bench/predict/record.sh does), it only defines the functions
# and the settings above the guard at "main": the arguments are parsed
# and the testbed built below it.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# the management network and the launcher (mpi_mgmt_build, mpi_launch, ...)
. "$TTBED_LIB/mpi.sh"

MPIHALO=${MPIHALO:-$TB_ROOT/build/tests/mpihalo}
TBFLOWS=${TBFLOWS:-$TB_ROOT/build/tests/tbflows}
# ttmpitrace, preloaded into every rank of a job where it is built (empty:
# none): the job's MPI calls as an OTF2 archive beside ttd's traces
MPITRACE=${MPITRACE-$TB_ROOT/build/libttmpitrace.so}
LMP=${LMP:-lmp}
MPI_DIMS=2,2,2
SNAP=96                 # bytes kept per record: torus, Ethernet, IPv4, TCP headers

# The workloads, sized to finish in seconds on two shared cores with all
# ranks, orteds and daemons on them.  halo: every PE, 5 iterations of
# 16^3 cells (1 KiB faces); lammps: one rank per node, 864 atoms, 50 steps.
HALO_ARGS=(-n 16 -i 5 -w 100)
LMP_CELLS=${LMP_CELLS:-6}
LMP_STEPS=${LMP_STEPS:-50}

# Why the MPI checks cannot run at all (nothing printed when they can).
mpi_why_not() {
	local why
	why=$(tb_why_not)
	[ -z "$why" ] || { echo "$why"; return; }
	command -v mpirun >/dev/null || { echo "Open MPI is missing (make deps installs openmpi-bin)"; return; }
	command -v unshare >/dev/null || { echo "unshare is missing (util-linux)"; return; }
	[ -x "$TBFLOWS" ] || { echo "$TBFLOWS is not built (make build/tests/tbflows)"; return; }
	[ -x "$TTD" ] || echo "$TTD is not built"
}

# The cluster file of the MPI runs: tb_yaml's, with the port traces on,
# so that each run's trace directory holds every node's PE trace
# (nN-pe.pcap) and, beside it, one trace per port (nN-cC-PORT.pcap).
mpi_yaml() {
	tb_yaml "$1" "  ports: true
"
}

# The PE traces of a trace directory (the port traces beside them are not
# the application's messages: every hop of a frame is recorded there
# again).
mpi_pe_traces() { ls "$1"/*-pe.pcap; }

# ---- the checks on one job's traces ----

# Read the frames of the PE traces and the daemons' counts; one check
# that the capture is complete: every send record has its delivery copy
# (same source PE and sequence number) or was counted dropped, and the
# files hold what the daemons counted.
check_capture() {
	local label=$1 dir=$2 out
	if ! "$TBFLOWS" frames "$dir"/traces/*-pe.pcap > "$dir/flows" 2> "$dir/flows.err"; then
		tb_fail "$label: PE traces read back" "$(head -2 "$dir/flows.err")"
		return 1
	fi
	out=$(awk -v inj="$MPI_INJECTED" -v dlv="$MPI_DELIVERED" -v drop="$MPI_DROPPED" '
	$6 == 0 { s++; sent[$3 " " $5] = 1 }
	$6 == 1 { d++; got[$3 " " $5] = 1 }
	END {
		for (k in sent) if (k in got) m++
		for (k in got) if (!(k in sent)) orphan++
		printf "%d %d %d %d\n", s, d, m, orphan + 0
		if (s != inj) print "send records " s ", the daemons counted " inj " injected"
		if (d != dlv) print "delivery copies " d ", the daemons counted " dlv " delivered"
		if (s - m != drop) print s - m " sends without a delivery copy, the daemons counted " drop " dropped"
		if (orphan > 0) print orphan " delivery copies without a send record"
	}' "$dir/flows")
	read -r MPI_SENDS MPI_DLV MPI_MATCHED _ <<< "$(echo "$out" | head -1)"
	if [ "$(echo "$out" | wc -l)" = 1 ] && [ "$MPI_SENDS" -gt 0 ]; then
		tb_ok "$label: capture complete: $MPI_SENDS frames sent, each delivered once (delivery copy with the same source and sequence)$([ "$MPI_DROPPED" -gt 0 ] && echo " or counted dropped ($MPI_DROPPED)")"
	else
		tb_fail "$label: capture complete" "$(echo "$out" | tail -n +2 | head -4)"
		return 1
	fi
}

# With the port traces on, every node wrote its PE trace and one trace
# per port beside it, in the same directory.
check_port_traces() {
	local label=$1 dir=$2 n pe=0 ports=0
	for ((n = 0; n < TB_NNODES; n++)); do
		[ -s "$dir/traces/n$n-pe.pcap" ] && pe=$((pe + 1))
		ports=$((ports + $(ls "$dir/traces/n$n"-c[01]-*.pcap 2>/dev/null | wc -l)))
	done
	if [ $pe = "$TB_NNODES" ] && [ $ports = $((TB_NNODES * 8)) ]; then
		tb_ok "$label: traces/ holds the $pe PE traces (nN-pe.pcap) and the $ports port traces (nN-cC-PORT.pcap) side by side"
	else
		tb_fail "$label: PE and port traces side by side" "$pe PE traces of $TB_NNODES, $ports port traces of $((TB_NNODES * 8))"
	fi
}

# One-way frame latency in the capture: from the send record (the TAP
# read at the source's node) to the delivery copy (the TAP write at the
# destination's), both on this machine's one clock.  "median p99" in µs
# (awk's doubles round epoch nanoseconds to 256 ns).
mpi_latency() {
	awk '$6 == 0 { t[$3 " " $5] = $2 } $6 == 1 { r[$3 " " $5] = $2 }
	END { for (k in t) if (k in r) printf "%.1f\n", (r[k] - t[k]) / 1000 }' "$1" |
	    sort -n | awk '{v[NR] = $1} END { if (NR) { p = int(NR * 0.99); if (p < 1) p = 1; printf "%s %s\n", v[int((NR + 1) / 2)], v[p] } }'
}

# The ranks ran where the hostfile put them and nothing but MPI's TCP
# crossed the torus: the PEs that sent are the job's PEs, every frame is
# IPv4 between torus addresses, and the launcher's traffic went over the
# management network instead (counted there).
check_placement() {
	local label=$1 dir=$2 want=$3 mgmt=$4 got bad
	got=$(awk '$6 == 0 {print $3}' "$dir/flows" | sort -nu | tr '\n' ' ')
	bad=$(awk '$6 == 0 && ($7 !~ /^(tcp|ack|syn|fin|rst)$/ || $10 !~ /^10\.88\./ || $11 !~ /^10\.88\./)' "$dir/flows" | head -3)
	if [ "$got" = "$want" ] && [ -z "$bad" ] && [ "${mgmt:-0}" -gt 0 ]; then
		tb_ok "$label: ranks on PEs ${want% }: only they sent, only TCP between torus addresses; the launcher's $mgmt bytes went over the management network, not through ttd"
	else
		tb_fail "$label: ranks in their PE namespaces, launcher off the torus" \
		    "PEs that sent: $got (want $want)" "management bytes: ${mgmt:-?}" ${bad:+"not MPI TCP: $bad"}
	fi
}

# How the job's messages show up as frames: TCP segments with data (a
# segment sent again, same connection and TCP sequence number, is a
# retransmission, not new data), pure ACKs, connection set-up and
# tear-down.  With APPBYTES (the program's own count of the bytes it
# sent), the payload sent once must hold all of them.
check_frames() {
	local label=$1 dir=$2 appbytes=${3:-} appmsgs=${4:-} line
	line=$(awk '$6 == 0 {
		n[$7]++
		if ($7 == "tcp") {
			k = $10 " " $11 " " $12
			if (k in seen) { re++; rebytes += $9 } else pay += $9
			seen[k] = 1
		}
	}
	END { printf "%d %d %d %.0f %d %.0f\n", n["tcp"], n["ack"], n["syn"] + n["fin"] + n["rst"], pay, re, rebytes }' "$dir/flows")
	local segs acks conn pay re rebytes
	read -r segs acks conn pay re rebytes <<< "$line"
	MPI_FRAMES_LINE="$segs TCP segments with data ($pay payload bytes; $re of them retransmissions, $rebytes bytes more), $acks pure ACKs, $conn SYN/FIN/RST"
	if [ $((segs + acks + conn)) != "$MPI_SENDS" ]; then
		tb_fail "$label: every frame is a TCP segment" "$MPI_FRAMES_LINE of $MPI_SENDS"
	elif [ -n "$appbytes" ] && [ "$pay" -lt "$appbytes" ]; then
		tb_fail "$label: the TCP payload holds the program's bytes" "payload $pay < $appbytes bytes the program sent"
	elif [ -n "$appbytes" ]; then
		tb_ok "$label: $MPI_SENDS frames = $MPI_FRAMES_LINE; the program's $appmsgs messages of $appbytes bytes are in the payload, +$((pay - appbytes)) bytes of Open MPI headers, connection set-up and the program's barrier and reductions ($(awk -v a=$((pay - appbytes)) -v m="$appmsgs" 'BEGIN {printf "%.1f", a / m}') per message)"
	else
		tb_ok "$label: $MPI_SENDS frames = $MPI_FRAMES_LINE"
	fi
}

# ttsim trace stat reads the traces: a message per send record, the
# delivery copies counted and skipped.
check_stat() {
	local label=$1 dir=$2 js msgs dc
	if js=$("$TTSIM" trace stat $(mpi_pe_traces "$dir/traces") --json 2> "$dir/stat.err"); then
		msgs=$(echo "$js" | jq .messages); dc=$(echo "$js" | jq .delivery_copies)
		MPI_SPAN=$(echo "$js" | jq .duration_s)
		if [ "$msgs" = "$MPI_SENDS" ] && [ "$dc" = "$MPI_DLV" ]; then
			tb_ok "$label: ttsim trace stat: $msgs messages, $dc delivery copies skipped, span $MPI_SPAN s"
			return
		fi
		tb_fail "$label: ttsim trace stat counts" "messages $msgs, delivery copies $dc; frames sent $MPI_SENDS, delivered $MPI_DLV"
	else
		tb_fail "$label: ttsim trace stat exits 0" "$(head -2 "$dir/stat.err")"
	fi
}

# THE REPLAY STEP: causal.  ttsim infers from the traces which received
# messages enabled each send and the compute gap before it (TCP segments
# grouped into messages; ACKs, SYN/FIN/RST and retransmissions set aside
# as transport) and replays each rank's messages in its order, each when
# what enabled it has arrived in the simulation, on the recorded
# configuration.  The testbed shares two cores among every rank, daemon
# and test, so a frame can take longer than inference's default 100 ms to
# arrive (p99 is tens of ms on a busy machine); waiting 10 s keeps such a
# late delivery matched to its send rather than counted lost.
mpi_replay() {
	"$TTSIM" replay $(mpi_pe_traces "$1") "$2" --causal --window 10000000000 --json
}

# The recorded makespan, as the replay defines it: the first TCP data
# segment sent to the last delivered (every namespace reads this
# machine's one clock, so the two ends compare).
mpi_recorded_span() {
	awk '$7 == "tcp" && $6 == 0 && (a == "" || $2 < a) { a = $2 }
	$7 == "tcp" && $6 == 1 && $2 > b { b = $2 }
	END { if (a != "") printf "%.6f", (b - a) / 1e9 }' "$1"
}

# Every application message is accounted for: the data segments sent
# once are the inference's frames, the retransmissions (sends and their
# delivery copies) its tcp_retransmissions, ACKs and SYN/FIN/RST its
# transport; every inferred message is replayed and delivered, none lost
# or undelivered.  The prediction on the recorded configuration beside
# what was measured.
check_replay() {
	local label=$1 dir=$2 yaml=$3 measured=$4 js got want
	if ! js=$(mpi_replay "$dir/traces" "$yaml" 2> "$dir/replay.err"); then
		tb_fail "$label: ttsim replay --causal exits 0" "$(head -2 "$dir/replay.err")"
		return
	fi
	got=$(echo "$js" | jq -r '.causal as $c | "\($c.frames) \($c.transport.tcp_retransmissions) \($c.transport.tcp_acks) \($c.transport.tcp_control) \($c.lost_sends) \($c.undelivered) \($c.messages) \(.networks[0].messages_delivered)"')
	want=$(awk '$6 == 0 { n[$7]++ }
	$6 == 0 && $7 == "tcp" { k = $10 " " $11 " " $12; if (k in seen) re++; seen[k] = 1 }
	END { printf "%d %d %d %d 0 0", n["tcp"] - re, 2 * re, 2 * n["ack"], 2 * (n["syn"] + n["fin"] + n["rst"]) }' "$dir/flows")
	read -r -a g <<< "$got"
	if [ "${got% * *}" != "$want" ] || [ "${g[6]}" != "${g[7]}" ] || [ "${g[6]}" -eq 0 ]; then
		tb_fail "$label: causal replay accounts for every message" \
		    "frames retransmissions acks control lost undelivered messages delivered: $got" \
		    "from the capture (frames ... undelivered): $want"
		return
	fi
	local lat
	read -r -a lat <<< "$(mpi_latency "$dir/flows")"
	tb_ok "$label: causal replay: ${g[6]} application messages from ${g[0]} data segments (${g[1]} retransmission records, $((g[2] + g[3])) ACK and SYN/FIN/RST records set aside), every one replayed and delivered; prediction on $(echo "$js" | jq -r '.networks[0].name') at $(echo "$js" | jq .link_gbps) Gb/s: makespan $(echo "$js" | jq -r '.networks[0].makespan_s | . * 1e6 | round / 1e6') s, measured $(mpi_recorded_span "$dir/flows") s (first data segment sent to last delivered; $measured); frame latency captured median ${lat[0]:-?} us (p99 ${lat[1]:-?}), simulated mean $(echo "$js" | jq '.networks[0].latency_us.mean') us"
}

# The traces cut to their headers keep every message, byte and time and
# every TCP field tbflows reads: trace stat and tbflows say the same of
# both copies.  With --out, the cut copy is kept there.
check_snap() {
	local label=$1 dir=$2 name=$3 f a b
	rm -rf "$dir/snap"; mkdir -p "$dir/snap"
	for f in "$dir"/traces/*-pe.pcap; do
		"$TBFLOWS" snap $SNAP "$f" "$dir/snap/$(basename "$f")" || { tb_fail "$label: header-only copy"; return; }
	done
	a=$("$TTSIM" trace stat $(mpi_pe_traces "$dir/traces") --json | jq -c 'del(.files)')
	b=$("$TTSIM" trace stat $(mpi_pe_traces "$dir/snap") --json | jq -c 'del(.files)')
	if [ -n "$a" ] && [ "$a" = "$b" ] && "$TBFLOWS" frames "$dir"/snap/*-pe.pcap | cmp -s - "$dir/flows"; then
		tb_ok "$label: traces cut to $SNAP bytes a record ($(du -sk "$dir/snap" | cut -f1) KiB, from $(du -sk "$dir/traces" | cut -f1) KiB) read the same in ttsim trace stat and tbflows"
	else
		tb_fail "$label: header-only copy reads the same in ttsim trace stat and tbflows"
		return
	fi
	if [ -n "${OUT:-}" ]; then
		mkdir -p "$OUT/$name"
		cp "$dir"/snap/*.pcap "$TB_TMP/mpi.yaml" "$TB_TMP/$name.out" "$OUT/$name/"
	fi
}

# ---- one application ----

# mpi_job NAME PES VERDICT CMD...: start the daemons (traces in a fresh
# directory), run the job on the PEs (a space-separated list), stop the
# daemons, check.  VERDICT is a function that reads the job's output,
# prints "MEASURED|APPBYTES|APPMSGS" and fails when the program's own
# result is wrong.
mpi_job() {
	local name=$1 pes=$2 verdict=$3 label="mpi $1" dir=$TB_TMP/$1 n np rc m0 m1 v
	shift 3
	rm -rf "$dir"; mkdir -p "$dir"
	np=$(echo $pes | wc -w)
	mpi_hostfile "$dir/hosts" $pes
	if ! tb_ttd_start "$TB_TMP/mpi.yaml" "$dir/traces"; then
		tb_fail "$label: daemons start"; return
	fi
	m0=$(mpi_mgmt_bytes)
	if [ -n "$MPITRACE" ] && [ -f "$MPITRACE" ]; then
		set -- -x LD_PRELOAD="$MPITRACE" -x TT_MPITRACE="$dir/otf2" "$@"
	fi
	mpi_launch "$name" "$dir/hosts" "$np" "$dir/run" "$@"
	rc=$?
	m1=$(mpi_mgmt_bytes)
	MPI_INJECTED=0; MPI_DELIVERED=0; MPI_DROPPED=0
	for ((n = 0; n < TB_NNODES; n++)); do
		tb_status $n > "$dir/status.$n" 2>/dev/null
		MPI_INJECTED=$((MPI_INJECTED + $(jq .counters.injected "$dir/status.$n")))
		MPI_DELIVERED=$((MPI_DELIVERED + $(jq .counters.delivered "$dir/status.$n")))
		MPI_DROPPED=$((MPI_DROPPED + $(jq '.counters.dropped | add' "$dir/status.$n")))
	done
	tb_ttd_stop || tb_log "testbed: a daemon did not exit 0 after $name"
	if [ $rc != 0 ] || ! v=$($verdict "$TB_TMP/$name.out"); then
		tb_fail "$label: mpirun -np $np across the PE namespaces (exit $rc, ${MPI_WALL} s)" \
		    "$(grep -v setpgid "$TB_TMP/$name.err" | head -4)" "$(tail -2 "$TB_TMP/$name.out")"
		return
	fi
	local measured appbytes appmsgs
	IFS='|' read -r measured appbytes appmsgs <<< "$v"
	tb_ok "$label: mpirun -np $np across the PE namespaces: ${MPI_WALL} s; $measured"
	check_port_traces "$label" "$dir"
	check_capture "$label" "$dir" || return
	check_placement "$label" "$dir" "$(echo $pes | tr ' ' '\n' | sort -n | tr '\n' ' ')" $((m1 - m0))
	check_frames "$label" "$dir" "$appbytes" "$appmsgs"
	check_stat "$label" "$dir"
	check_replay "$label" "$dir" "$TB_TMP/mpi.yaml" "mpirun ${MPI_WALL} s, ${measured%%;*}"
	check_snap "$label" "$dir" "$name"
	check_mpitrace "$label" "$dir" "$pes" "$appmsgs" "$appbytes"
}

# The job's MPI calls (ttmpitrace): an archive of every rank, whose
# point-to-point messages and bytes are the program's own count where it
# prints one (mpihalo), replayed causally on the cluster file with every
# message delivered, the ranks on the PEs they ran on.
check_mpitrace() {
	local label=$1 dir=$2 pes=$3 msgs=$4 bytes=$5 js r=0 t
	[ -n "$MPITRACE" ] && [ -f "$MPITRACE" ] || { tb_log "$label: no ttmpitrace ($MPITRACE)"; return; }
	for t in $pes; do echo "$r $t"; r=$((r + 1)); done > "$dir/placement"
	if ! js=$("$TTSIM" trace stat "$dir/otf2/traces.otf2" --json 2>&1) ||
	    [ "$(echo "$js" | jq .ranks)" != "$r" ] ||
	    { [ -n "$msgs" ] && { [ "$(echo "$js" | jq .p2p_messages)" != "$msgs" ] ||
	    [ "$(echo "$js" | jq .p2p_bytes)" != "$bytes" ]; }; }; then
		[ -n "$msgs" ] && msgs=" with the $msgs messages of $bytes bytes mpihalo counted"
		tb_fail "$label: ttmpitrace's archive of $r ranks$msgs" "$js"
		return
	fi
	if ! js=$("$TTSIM" replay "$dir/otf2/traces.otf2" "$TB_TMP/mpi.yaml" --causal \
	    --placement "$dir/placement" --json 2>&1) ||
	    [ "$(echo "$js" | jq .networks[0].messages_delivered)" != "$(echo "$js" | jq .trace.messages)" ]; then
		tb_fail "$label: ttmpitrace's archive replayed" "$js"
		return
	fi
	tb_ok "$label: ttmpitrace's archive: $r ranks, $(echo "$js" | jq .trace.p2p_messages) point-to-point messages$([ -n "$msgs" ] && echo " (the program counted $msgs)"), $(echo "$js" | jq .trace.collectives) collective calls, replayed with every message delivered (recorded message span $(echo "$js" | jq .trace.recorded_message_span_s) s)"
}

# mpihalo checked its result against a serial run of the whole grid.
verdict_halo() {
	local line
	line=$(grep '^mpihalo: .* ok$' "$1") || return 1
	echo "$line" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "wall") w = $(i + 1)
			if ($i == "messages,") m = $(i - 1)
			if ($i == "bytes,") b = $(i - 1)
		}
		printf "the program: wall %s s, result checked against one rank|%s|%s\n", w, b, m }'
}

# LAMMPS's last thermo line (step, temperature, energies, pressure) equals
# that of the same input on one rank (MPI_REF, run in the launcher's
# namespace), to 6 significant digits.
verdict_lammps() {
	local loop got want
	loop=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on .*/\1/p' "$1")
	got=$(lmp_last_thermo "$1")
	want=$(lmp_last_thermo "$MPI_REF")
	[ -n "$loop" ] && [ -n "$got" ] && [ -n "$want" ] || return 1
	awk -v a="$got" -v b="$want" 'BEGIN {
		n = split(a, x, " "); if (n != split(b, y, " ")) exit 1
		for (i = 1; i <= n; i++) {
			d = x[i] - y[i]; if (d < 0) d = -d
			m = y[i] < 0 ? -y[i] : y[i]
			if (d > 1e-6 * m + 1e-12) exit 1
		}
	}' || { tb_log "lammps: last thermo line $got, on one rank $want"; return 1; }
	echo "LAMMPS loop time ${loop} s, last thermo line equal to one rank's|"
}

lmp_last_thermo() {
	awk '/^ *Step /{on = 1; next} /^Loop time/{on = 0} on && $1 ~ /^[0-9]+$/ {l = $0} END {print l}' "$1"
}

# ---- main ----

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

set -u
OUT=
APPS=halo,lammps
while [ $# -gt 0 ]; do
	case $1 in
	--keep) TB_KEEP=1 ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	--apps) APPS=${2:?--apps needs a list: halo,lammps}; shift ;;
	--why-not) WHY_NOT=1 ;;
	*) echo "usage: mpi.sh [--keep] [--out DIR] [--apps halo,lammps] | --why-not" >&2; exit 64 ;;
	esac
	shift
done
for app in ${APPS//,/ }; do
	case $app in
	halo|lammps) ;;
	*) echo "mpi.sh: --apps: $app: not an application here (halo, lammps)" >&2; exit 64 ;;
	esac
done


why=$(mpi_why_not)
if [ -n "${WHY_NOT:-}" ]; then [ -z "$why" ] && exit 0; echo "$why"; exit 1; fi
[ -z "$why" ] || { echo "mpi: cannot run: $why" >&2; exit 69; }
tb_init
start=$(date +%s)
[ -z "$OUT" ] || { mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd); }

if ! { tb_layout $MPI_DIMS D && tb_build && mpi_mgmt_build; }; then
	tb_fail "mpi $MPI_DIMS: build the torus and the management network"
	exit 1
fi
mpi_yaml "$TB_TMP/mpi.yaml"
tb_ok "mpi $MPI_DIMS: torus of $TB_NPES PEs, management network joining them to the launcher (10.90.0.0/16)"

for app in ${APPS//,/ }; do
	case $app in
	halo)
		if [ ! -x "$MPIHALO" ]; then
			echo "SKIP mpi halo: $MPIHALO is not built (Open MPI's headers missing? make deps)"
			continue
		fi
		mpi_job halo "$(seq -s ' ' 0 $((TB_NPES - 1)))" verdict_halo "$MPIHALO" "${HALO_ARGS[@]}"
		;;
	lammps)
		if ! command -v "$LMP" >/dev/null; then
			echo "SKIP mpi lammps: $LMP is missing (make deps installs the Debian package lammps)"
			continue
		fi
		# the reference: the same input on one rank, in the launcher's namespace
		MPI_REF=$TB_TMP/lammps-ref.out
		(cd "$TB_TMP" && ip netns exec "$(mpi_head_ns)" timeout -k 5 $MPI_TIMEOUT \
		    mpirun --allow-run-as-root -np 1 --mca btl self --mca oob_tcp_if_include 10.90.0.0/16 \
		    --mca orte_tmpdir_base "$TB_TMP/ompi" \
		    "$LMP" -in "$TB_ROOT/tests/testbed/lj-melt.in" -var cells $LMP_CELLS -var steps $LMP_STEPS \
		    -log none -echo none > "$MPI_REF" 2> "$MPI_REF.err")
		# one rank per node: card 0's PE of each
		mpi_job lammps "$(seq -s ' ' 0 2 $((TB_NPES - 1)))" verdict_lammps \
		    "$LMP" -in "$TB_ROOT/tests/testbed/lj-melt.in" -var cells $LMP_CELLS -var steps $LMP_STEPS \
		    -log none -echo none
		;;
	esac
done
echo "mpi: $(( $(date +%s) - start )) s"
tb_summary
