#!/bin/bash
# ttbed(8) end to end, as a user meets it: installed by make install (into
# a temporary prefix), refusing what it cannot do, building a 2x2x2 bed,
# running an MPI program on it, recording the traces that ttsim reads, and
# leaving nothing behind after down, after a crash and after Ctrl-C
# (tests/testbed/README.md, "ttbed").
#
#   tests/testbed/ttbed.sh [--keep]      (root; make testbed runs it)
#   tests/testbed/ttbed.sh --why-not
#
# Every bed it builds lives in its temporary directory and is taken down
# on exit.  About 30 s on the 2-core machine.  Prints ok/FAIL lines and
# "N passed, N failed"; exit 0 only when nothing failed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MPIHALO=${MPIHALO:-$TB_ROOT/build/tests/mpihalo}

why_not() {
	local why
	why=$(tb_why_not)
	[ -z "$why" ] || { echo "$why"; return; }
	command -v mpirun >/dev/null || { echo "Open MPI is missing (make deps installs openmpi-bin)"; return; }
	for t in setpriv unshare make; do command -v $t >/dev/null || { echo "$t is missing"; return; }; done
	[ -x "$MPIHALO" ] || echo "$MPIHALO is not built (make testbed builds it)"
}

KEEP=
case ${1:-} in
--why-not) why=$(why_not); [ -z "$why" ] && exit 0; echo "$why"; exit 1 ;;
--keep) KEEP=1 ;;
'') ;;
*) echo "usage: ttbed.sh [--keep] | --why-not" >&2; exit 64 ;;
esac
why=$(why_not)
[ -z "$why" ] || { echo "ttbed: cannot run: $why" >&2; exit 69; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttbed-test.XXXXXX")
chmod 755 "$tmp"	# the unprivileged run must read the installed script
BEDS=()
cleanup() {
	local d
	trap - EXIT INT TERM
	for d in "${BEDS[@]}"; do [ -f "$d/state" ] && "$TTBED" down --dir "$d" >/dev/null 2>&1; done
	if [ -n "$KEEP" ]; then tb_log "ttbed: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start=$(date +%s)

# ---- installed ----

prefix=$tmp/prefix
if make -C "$TB_ROOT" -s --no-print-directory install PREFIX="$prefix" > "$tmp/install.log" 2>&1 &&
    [ -x "$prefix/sbin/ttbed" ] && [ -x "$prefix/lib/twintorus/tbroute" ] &&
    [ -x "$prefix/lib/twintorus/mpi-agent.sh" ] && [ -f "$prefix/share/man/man8/ttbed.8" ]; then
	tb_ok "make install puts ttbed in sbin/, its helpers in lib/twintorus/, ttbed.8 in man8/"
else
	tb_fail "make install of ttbed" "$(tail -3 "$tmp/install.log")"
	tb_summary; exit 1
fi
TTBED=$prefix/sbin/ttbed
TTSIM_I=$prefix/bin/ttsim

# status of the last command, its stdout in $tmp/out, stderr in $tmp/err
run() { "$@" > "$tmp/out" 2> "$tmp/err"; }
# a refusal: exit STATUS, one line on stderr, nothing made in DIR
refusal() {
	local label=$1 want=$2 dir=$3 rc
	shift 3
	run "$@"; rc=$?
	if [ $rc = "$want" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && [ ! -e "$dir" ]; then
		tb_ok "$label: exit $want, one line: $(cat "$tmp/err")"
	else
		tb_fail "$label: exit $want and one line" "exit $rc, $(wc -l < "$tmp/err") lines: $(head -3 "$tmp/err")" \
		    "$([ -e "$dir" ] && echo "$dir was made")"
	fi
}

# ---- refusals ----

x=$tmp/refused
refusal "not root" 69 "$x" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$TTBED" up --dims 2,2,2 --ports D --dir "$x"
refusal "no usable network namespaces (a user namespace)" 69 "$x" unshare --user --map-root-user \
    "$TTBED" up --dims 2,2,2 --ports D --dir "$x"
refusal "unknown flag" 2 "$x" "$TTBED" up --dims 2,2,2 --ports D --dir "$x" --bogus
refusal "--dims 1,2,2" 2 "$x" "$TTBED" up --dims 1,2,2 --ports D --dir "$x"
refusal "--dims too large" 2 "$x" "$TTBED" up --dims 8,8,8 --ports D --dir "$x"
refusal "a configuration the torus has not (D on 3,2: the loader's message)" 2 "$x" \
    "$TTBED" up --dims 3,2 --ports D --dir "$x"
refusal "--rate without unit" 2 "$x" "$TTBED" up --dims 2,2,2 --ports D --rate fast --dir "$x"
refusal "--backend" 2 "$x" "$TTBED" up --dims 2,2,2 --ports D --backend dpdk --dir "$x"
refusal "unknown command" 2 "$x" "$TTBED" frobnicate
refusal "status without a bed" 3 "$x" "$TTBED" status --dir "$x"
refusal "mpirun without a program" 2 "$x" "$TTBED" mpirun --dir "$x" -np 2 --
if run "$TTBED" --help && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
	tb_ok "--help: exit 0, usage on stdout"
else
	tb_fail "--help" "$(head -3 "$tmp/err")"
fi

# ---- a bed: up, status, mpirun, record, down ----

bed=$tmp/bed
BEDS+=("$bed")
t0=$(date +%s%N)
if run "$TTBED" up --dims 2,2,2 --ports D --rate 1gbit --port-traces --dir "$bed"; then
	tb_ok "up --dims 2,2,2 --ports D --rate 1gbit --port-traces: $(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}') s"
else
	tb_fail "up 2,2,2" "$(tail -5 "$tmp/err")"
	tb_summary; exit 1
fi
id=$(sed -n 's/^id=//p' "$bed/state")
mapfile -t ttds < <(awk '{print $2}' "$bed/pids")
if run "$TTBED" status --dir "$bed" --json &&
    jq -e '.schema == "ttbed.status/1" and .nodes_up == 8 and .daemons_alive == 8 and .pe_namespaces == 16 and .ok and .phase == "up"
           and .port_interfaces_up == 64 and .shaped_interfaces == 64' "$tmp/out" >/dev/null; then
	tb_ok "status: exit 0, 8 nodes up (ttd answering), 16 PE namespaces, 64 port interfaces (24 cables, 8 internal links) under tbf"
else
	tb_fail "status: 8 nodes up" "$(cat "$tmp/out" "$tmp/err")"
fi
# what tc holds, asked of tc, not of ttbed
if ip netns exec "$id-n0" tc -j qdisc show dev c0Xp | jq -e '.[] | select(.kind == "tbf")' >/dev/null &&
    ip netns exec "$id-n5" tc -j qdisc show dev c1int | jq -e '.[] | select(.kind == "tbf")' >/dev/null; then
	tb_ok "--rate: a cable's and an internal link's veth have a tbf qdisc"
else
	tb_fail "--rate: tbf on the port veths"
fi
run "$TTBED" up --dims 2,2,2 --ports D --dir "$bed"; rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && run "$TTBED" status --dir "$bed"; then
	tb_ok "a second up in the same --dir: exit 1, one line, the bed untouched"
else
	tb_fail "second up refused" "exit $rc: $(cat "$tmp/err")"
fi

if run "$TTBED" mpirun --dir "$bed" -np 16 -- "$MPIHALO" -n 16 -i 5 -w 100; then
	tb_ok "mpirun -np 16 -- mpihalo: exit 0, $(grep '^mpihalo:' "$tmp/out" | sed 's/.*: wall/wall/')"
else
	tb_fail "mpirun -np 16 mpihalo" "$(grep -v setpgid "$tmp/err" | tail -3)" "$(tail -2 "$tmp/out")"
fi

rec=$tmp/rec
if run "$TTBED" record --dir "$bed" "$rec" && [ -f "$rec/cluster.yaml" ] &&
    [ "$(ls "$rec"/*-pe.pcap | wc -l)" = 8 ] && [ "$(ls "$rec"/ports/n*-c[01]-*.pcap | wc -l)" = 64 ]; then
	tb_ok "record: the 8 PE traces, the 64 port traces in ports/, cluster.yaml"
else
	tb_fail "record" "$(cat "$tmp/err")"
fi
# every command record prints ("  $ COMMAND") works as printed
sed -n 's/^  \$ //p' "$tmp/out" > "$tmp/hints"
nh=0 hbad=
while read -r line; do
	nh=$((nh + 1))
	PATH=$prefix/bin:$PATH bash -c "$line" > "$tmp/hint.out" 2>&1 || hbad="$hbad; $line: $(tail -1 "$tmp/hint.out")"
done < "$tmp/hints"
if [ $nh -ge 2 ] && [ -z "$hbad" ]; then
	tb_ok "the $nh commands record prints exit 0 as printed"
else
	tb_fail "record's commands work as printed" "$nh commands$hbad"
fi
if js=$("$TTSIM_I" trace stat "$rec" --json 2> "$tmp/err") && msgs=$(echo "$js" | jq -e '.messages | select(. > 0)'); then
	tb_ok "ttsim trace stat of the recording: $msgs messages"
else
	tb_fail "ttsim trace stat: messages > 0" "$(head -2 "$tmp/err")" "$(echo "$js" | jq -c '{messages}' 2>/dev/null)"
fi
if js=$("$TTSIM_I" replay "$rec" "$rec/cluster.yaml" --causal --json 2> "$tmp/err") &&
    echo "$js" | jq -e '.causal.messages > 0 and .networks[0].messages_delivered == .causal.messages' >/dev/null; then
	tb_ok "ttsim replay --causal of the recording: $(echo "$js" | jq .causal.messages) messages inferred, all delivered, makespan $(echo "$js" | jq .networks[0].makespan_s) s"
else
	tb_fail "ttsim replay --causal: messages > 0, all delivered" "$(head -2 "$tmp/err")" \
	    "$(echo "$js" | jq -c '{m: .causal.messages, d: .networks[0].messages_delivered}' 2>/dev/null)"
fi
# the bed records afresh: a second recording holds no message of the first
if run "$TTBED" record --dir "$bed" "$tmp/rec2" &&
    [ "$("$TTSIM_I" trace stat "$tmp/rec2" --json 2>/dev/null | jq .messages)" = 0 ]; then
	tb_ok "a second record right after holds 0 messages (each record takes what came since the last)"
else
	tb_fail "second record: 0 messages" "$(cat "$tmp/err")"
fi

# PID runs: exists and is not a zombie (the machine's init may take its
# time to reap the daemons of a bed whose up has exited).
alive() {
	local st
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# Nothing of bed ID left: no namespace, no interface of ours in this
# namespace, no ttd of the PIDs given, DIR gone.
left_of() {
	local id=$1 dir=$2 p left=
	shift 2
	local ns
	ns=$(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$id-" | head -3 | tr '\n' ' ')
	[ -z "$ns" ] || left="$left namespaces:$ns"
	for p in "$@" $(pgrep -f -- "-c $dir/cluster.yaml"); do alive "$p" && left="$left process:$p"; done
	[ -e "$dir" ] && left="$left $dir"
	echo "$left"
}
if run "$TTBED" down --dir "$bed"; then
	left=$(left_of "$id" "$bed" "${ttds[@]}")
	[ -z "$left" ] && tb_ok "down: exit 0; no namespace $id-*, no ttd, no $bed" || tb_fail "down leaves nothing" "$left"
else
	tb_fail "down" "$(cat "$tmp/err")"
fi
# the bed never made an interface in this namespace (they are all made
# inside the bed's namespaces); checked after it is gone
ours=$(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(c[01](X|Y|Z|int)|tt[0-9]+|m[0-9]+|mgmt0|pe[01])$' || true)
[ -z "$ours" ] && tb_ok "no interface of a bed (c0Xp, tt0, m0, mgmt0, ...) in the root namespace" ||
    tb_fail "interfaces left in the root namespace" "$ours"
run "$TTBED" down --dir "$bed"; rc=$?
[ $rc = 0 ] && tb_ok "down again: exit 0, nothing to do" || tb_fail "down again" "exit $rc: $(cat "$tmp/err")"

# ---- crashes ----

# The daemons killed with SIGKILL: status says so (exit 1), down cleans.
bed=$tmp/crash1
BEDS+=("$bed")
if run "$TTBED" up --dims 2,2,2 --ports D --dir "$bed"; then
	id=$(sed -n 's/^id=//p' "$bed/state")
	mapfile -t ttds < <(awk '{print $2}' "$bed/pids")
	kill -9 "${ttds[@]}"
	for ((i = 0; i < 30; i++)); do
		run "$TTBED" status --dir "$bed" --json; rc=$?
		[ $rc = 1 ] && jq -e '.nodes_up == 0 and .daemons_alive == 0' "$tmp/out" >/dev/null && break
		sleep 0.1
	done
	[ $i -lt 30 ] && tb_ok "daemons killed (SIGKILL): status exits 1, 0 of 8 nodes up" ||
	    tb_fail "status after the daemons are killed" "exit $rc: $(cat "$tmp/out")"
	if run "$TTBED" down --dir "$bed" && left=$(left_of "$id" "$bed" "${ttds[@]}") && [ -z "$left" ]; then
		tb_ok "down after the daemons were killed: nothing left"
	else
		tb_fail "down after the daemons were killed" "$(cat "$tmp/err") $left"
	fi
else
	tb_fail "up (crash case 1)" "$(tail -3 "$tmp/err")"
fi

# up_until BED WHEN [wrapper...]: start up in the background and return
# once it has got as far as WHEN: "daemons", its first daemon started (its
# log exists) while it waits for them to answer, or "pes", the namespace of
# PE 0 made (the nodes and cables are, the daemons not yet); UP_PID is
# up's (the wrappers exec it).
up_until() {
	local bed=$1 when=$2 i
	shift 2
	"$@" "$TTBED" up --dims 2,2,2 --ports D --dir "$bed" > "$tmp/up.out" 2> "$tmp/up.err" &
	UP_PID=$!
	for ((i = 0; i < 600; i++)); do
		case $when in
		daemons) [ -e "$bed/n0.log" ] && return 0 ;;
		pes) ip netns list 2>/dev/null | grep -q "^ttbed_$UP_PID-p0\b" && return 0 ;;
		esac
		kill -0 $UP_PID 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# up killed with SIGKILL half way (daemons started, not yet answering):
# status says it never finished, a new up is refused, down cleans.
bed=$tmp/crash2
BEDS+=("$bed")
if up_until "$bed" daemons; then
	kill -9 $UP_PID; wait $UP_PID 2>/dev/null
	id=$(sed -n 's/^id=//p' "$bed/state")
	run "$TTBED" status --dir "$bed" --json; rc=$?
	if [ $rc = 1 ] && jq -e '.phase == "building"' "$tmp/out" >/dev/null; then
		tb_ok "up killed (SIGKILL) after starting the daemons: status exits 1, phase building"
	else
		tb_fail "status after up was killed" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
	fi
	run "$TTBED" up --dims 2,2,2 --ports D --dir "$bed"; rc=$?
	[ $rc = 1 ] && tb_ok "up again in its --dir: refused, exit 1" || tb_fail "up over a crashed bed refused" "exit $rc"
	if run "$TTBED" down --dir "$bed" && left=$(left_of "$id" "$bed") && [ -z "$left" ]; then
		tb_ok "down after up was killed: no namespace, no ttd, no $bed"
	else
		tb_fail "down after up was killed" "$(cat "$tmp/err") $left"
	fi
else
	tb_fail "up (crash case 2) started its daemons" "$(tail -3 "$tmp/up.err")"
fi

# Ctrl-C during up (the nodes and cables built, the PEs being built): its
# trap removes what it built, exit 130.  As a
# terminal does, SIGINT goes to up's whole process group (up and the
# command it waits for); a background job ignores SIGINT unless told
# otherwise (env), and setsid gives it a group of its own.
bed=$tmp/crash3
BEDS+=("$bed")
if up_until "$bed" pes setsid env --default-signal=INT; then
	id=$(sed -n 's/^id=//p' "$bed/state")
	kill -INT -- -$UP_PID; wait $UP_PID; rc=$?
	left=$(left_of "$id" "$bed")
	if [ $rc = 130 ] && [ -z "$left" ]; then
		tb_ok "Ctrl-C during up: exit 130, nothing left (no namespace, no ttd, no $bed)"
	else
		tb_fail "Ctrl-C during up" "exit $rc, left:$left" "$(tail -2 "$tmp/up.err")"
	fi
else
	tb_fail "up (Ctrl-C case) started its daemons" "$(tail -3 "$tmp/up.err")"
fi

echo "ttbed: $(( $(date +%s) - start )) s"
tb_summary
