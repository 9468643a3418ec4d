#!/bin/bash
# The testbed: twin tori of network namespaces on this machine, with one ttd
# per node, checked against what the core library computes
# (tests/testbed/README.md).
#
#   tests/testbed/testbed.sh [--kernel-only] [--keep]
#   tests/testbed/testbed.sh --why-not    say why it cannot run here, exit 1;
#                                         exit 0 silently if it can
#
# Needs root (namespaces), build/ttd, build/ttsim, build/tests/tbroute,
# build/tests/tbstream, build/tests/tbflood, ping, tcpdump and jq.  Prints one line per check and ends with
# "N passed, N failed"; exit 0 only when nothing failed.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KERNEL_ONLY=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel-only) KERNEL_ONLY=1 ;;
	--keep) TB_KEEP=1 ;;
	--why-not) why=$(tb_why_not); [ -z "$why" ] && exit 0; echo "$why"; exit 1 ;;
	*) echo "usage: testbed.sh [--kernel-only] [--keep] | --why-not" >&2; exit 64 ;;
	esac
	shift
done

# ---- helpers for the checks ----

# After tb_ping_all: how many pairs needed their second try.
retried() {
	local n; n=$(wc -l < "$TB_TMP/pingall.first" 2>/dev/null || echo 0)
	[ "$n" -gt 0 ] && echo " ($n needed a second try)"
}

# Poll CMD for up to SECS seconds until it succeeds.
tb_until() {
	local secs=$1 i; shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# The external ports a node's status calls cabling "wrong", as "nN X+" lines.
wrong_ports() {
	local n
	for ((n = 0; n < TB_NNODES; n++)); do
		tb_status $n 2>/dev/null | jq -r --arg h "n$n" \
		    '.ports[] | select(.cabling == "wrong") | "\($h) \(.port)"'
	done | sort
}

# Every external port of every node reports cabling ok.
all_cabling_ok() {
	local n bad
	for ((n = 0; n < TB_NNODES; n++)); do
		bad=$(tb_status $n 2>/dev/null | jq -r '[.ports[] | select(.port != "internal" and .port != "int" and .cabling != "ok")] | length') || return 1
		[ "$bad" = 0 ] || return 1
	done
}

port_link() { tb_status $1 2>/dev/null | jq -r --arg p "$2" '.ports[] | select(.port == $p) | .link'; }
port_is() { [ "$(port_link "$1" "$2")" = "$3" ]; }
# The log of node $1 from line $2 on has a line with "down" naming $3 or $4.
log_says_down() { tail -n +"$2" "$TB_TMP/n$1.log" | grep -i 'down' | grep -qF -e "$3" -e "$4"; }

# PE pairs (src dst) whose routes, both ways, avoid or use the cable
# between node A port P and node B port Q: "avoid" or "use".
pairs_by_cable() {
	awk -v a="$1" -v p="$2" -v b="$3" -v q="$4" -v want="$5" '
	{
		use = 0
		for (i = 3; i <= NF; i++) {
			split($i, h, ".")
			if ((h[1] == a && h[3] == p) || (h[1] == b && h[3] == q)) use = 1
		}
		u[$1 " " $2] = use
	}
	END {
		for (k in u) {
			split(k, s, " ")
			both = u[k] || u[s[2] " " s[1]]
			if ((want == "use") == both) print k
		}
	}' "$TB_TMP/paths" | sort -n
}

# `ttd routes` of every node against tt_route() at every card: the table
# the daemon loaded is the routing function's, port and VC.
check_routes() {
	local yaml=$1 label=$2 n out
	for ((n = 0; n < TB_NNODES; n++)); do
		"$TTD" routes -c "$yaml" --node "n$n" --json |
		    jq -r --arg n $n '.cards[] | .card as $c | .routes[] | "\($n) \($c) \(.dst) \(.port) \(.vc)"' || return 1
	done > "$TB_TMP/routes.ttd" 2>"$TB_TMP/routes.err"
	out=$(awk '
	FILENAME == ARGV[1] { if ($1 == "port") name[$3] = ($4 == "internal" ? "internal" : $4); next }
	FILENAME == ARGV[2] {
		for (i = 3; i <= NF; i++) { split($i, h, "."); want[h[1] " " h[2] " " $2] = name[h[3]] " " h[4] }
		next
	}
	{
		k = $1 " " $2 " " $3; n++
		if ($4 == "pe") {
			if ((k in want) && bad++ < 5) print "node " $1 " card " $2 " dst " $3 ": ttd ejects, tt_route says " want[k]
		} else if (!(k in want)) {
			if (bad++ < 5) print "node " $1 " card " $2 " dst " $3 ": ttd says " $4 " vc " $5 ", tt_route never goes there"
		} else {
			if (want[k] != $4 " " $5 && bad++ < 5) print "node " $1 " card " $2 " dst " $3 ": ttd says " $4 " vc " $5 ", tt_route says " want[k]
			seen[k] = 1
		}
	}
	END { for (k in want) if (!(k in seen)) { if (bad++ < 5) print "missing in ttd routes: node.card.dst " k }
	      printf "SUMMARY %d %d\n", n, bad }' "$TB_TMP/layout" "$TB_TMP/paths" "$TB_TMP/routes.ttd")
	local summary entries bad
	summary=$(echo "$out" | grep '^SUMMARY'); read -r _ entries bad <<< "$summary"
	if [ -s "$TB_TMP/routes.ttd" ] && [ "${bad:-1}" = 0 ]; then
		tb_ok "$label: ttd routes of every node: $entries entries, each tt_route()'s port and VC"
	else
		tb_fail "$label: ttd routes against tt_route()" "$(echo "$out" | grep -v '^SUMMARY' | head -5) $(head -2 "$TB_TMP/routes.err")"
	fi
}

# ---- the checks on traces ----

# One line per record of every per-port trace: "SRC DST SEQ HOPS VC NODE.SIDE.PORT".
port_records() {
	local f b node side port
	for f in "$1"/n*-c*-*.pcap*; do
		b=$(basename "$f"); b=${b%%.pcap*}
		node=${b%%-*}; node=${node#n}
		side=${b#*-c}; side=${side%%-*}
		port=${b##*-}
		"$TBROUTE" frames "$f" | awk -v at="$node.$side.$port" '$3 == "data" {print $4, $5, $6, $8, $7, at}'
	done
}

# (b): every recorded hop is the hop tt_route() gives at that point of the
# packet's path, VC included; a packet delivered to its PE was seen on
# every hop of its path.
check_hops() {
	local dir=$1 label=$2 f
	port_records "$dir" > "$TB_TMP/hops.rec" || { tb_fail "$label: read port traces"; return; }
	for f in "$dir"/n*-pe.pcap*; do
		"$TBROUTE" frames "$f" | awk '$3 == "data" && $9 == 1 {print $4, $5, $6}'
	done > "$TB_TMP/hops.delivered"
	check_hop_records "$TB_TMP/paths" "$TB_TMP/hops.delivered" "$TB_TMP/hops.rec" "$label"
}

# PATHS (tbroute paths), DELIVERED ("src dst seq" per delivery copy),
# RECORDS (port_records) -> one check.
check_hop_records() {
	local label=$4 out
	out=$(awk '
	FILENAME == ARGV[1] { n = NF - 2; len[$1 " " $2] = n
		for (i = 3; i <= NF; i++) path[$1 " " $2, i - 3] = $i; next }
	FILENAME == ARGV[2] { dlv[$1 " " $2 " " $3] = 1; next }
	{
		k = $1 " " $2 " " $3; cnt[k]++; rec[k, $4] = $5 " " $6
		if (!(k in lo) || $4 < lo[k]) lo[k] = $4
		if (!(k in hi) || $4 > hi[k]) hi[k] = $4
		pair[k] = $1 " " $2
	}
	END {
		bad = 0; frames = 0; full = 0
		# the hop count of a first hop (0 or 1 by the daemon'"'"'s
		# convention): the lowest seen; every frame must start there
		base = -1
		for (k in cnt) if (base < 0 || lo[k] < base) base = lo[k]
		for (k in dlv) if (!(k in cnt)) { if (bad++ < 5) print "frame " k ": delivered, no hop recorded" }
		for (k in cnt) {
			frames++
			p = pair[k]
			if (!(p in len)) { if (bad++ < 5) print "frame " k ": no path for that pair"; continue }
			if (lo[k] != base) { if (bad++ < 5) print "frame " k ": first recorded hop count " lo[k] ", other frames start at " base; continue }
			if (hi[k] - lo[k] + 1 != cnt[k]) { if (bad++ < 5) print "frame " k ": hop counts not consecutive (" cnt[k] " records, hops " lo[k] ".." hi[k] ")"; continue }
			ok = 1
			for (h = lo[k]; h <= hi[k]; h++) {
				i = h - base
				split(rec[k, h], r, " ")
				if (i >= len[p]) { if (bad++ < 5) print "frame " k ": hop count " h " beyond its path of " len[p] " hops"; ok = 0; break }
				split(path[p, i], e, ".")
				want = e[1] "." e[2] "." e[3]
				if (r[2] != want || r[1] != e[4]) {
					if (bad++ < 5) print "frame " k " hop " i ": recorded " r[2] " vc " r[1] ", route says " want " vc " e[4]
					ok = 0; break
				}
			}
			if (ok && (k in dlv)) {
				if (cnt[k] != len[p]) { if (bad++ < 5) print "frame " k ": delivered but " cnt[k] " of " len[p] " hops recorded" }
				else full++
			}
		}
		printf "SUMMARY %d %d %d\n", frames, full, bad
	}' "$1" "$2" "$3")
	local summary frames full bad
	summary=$(echo "$out" | grep '^SUMMARY'); read -r _ frames full bad <<< "$summary"
	if [ "${bad:-1}" = 0 ] && [ "${full:-0}" -gt 0 ]; then
		tb_ok "$label: $frames frames, every recorded hop is tt_route()'s port and VC; $full delivered frames seen on every hop"
	else
		tb_fail "$label: recorded hops against tt_route()" "$(echo "$out" | grep -v '^SUMMARY' | head -5)" "frames $frames, complete $full, wrong $bad"
	fi
}

# (c): every trace file reads back whole; its records are what the daemon
# counted.  $2 holds "path records" from the status taken just before
# SIGTERM.  exact ($4 = exact, traffic paused): records written after the
# status may only be hellos; otherwise (traffic flowing) the file holds at
# least what was counted.
check_traces() {
	local dir=$1 counts=$2 label=$3 mode=$4 f b want got extra bad=0 msgs=() nfiles=0
	for f in "$dir"/*.pcap*; do
		nfiles=$((nfiles + 1))
		b=$(basename "$f")
		if ! tcpdump -nr "$f" >/dev/null 2>"$TB_TMP/tcpdump.err" || grep -qi 'truncated\|error' "$TB_TMP/tcpdump.err"; then
			bad=1; msgs+=("$b: tcpdump -r: $(grep -i -m1 'truncated\|error' "$TB_TMP/tcpdump.err" || tail -1 "$TB_TMP/tcpdump.err")")
			continue
		fi
		if ! "$TBROUTE" frames "$f" > "$TB_TMP/frames" 2>"$TB_TMP/frames.err"; then
			bad=1; msgs+=("$(head -1 "$TB_TMP/frames.err")"); continue
		fi
		got=$(wc -l < "$TB_TMP/frames")
		want=$(awk -v b="$b" '{n = split($1, a, "/"); if (a[n] == b) print $2}' "$counts")
		if [ -z "$want" ]; then
			bad=1; msgs+=("$b: $got records, not in any daemon's status"); continue
		fi
		if [ "$got" -lt "$want" ]; then
			bad=1; msgs+=("$b: $got records, the daemon had counted $want"); continue
		fi
		[ "$mode" = exact ] || continue
		extra=$(awk -v w="$want" 'NR > w && $3 != "hello"' "$TB_TMP/frames" | wc -l)
		if [ "$extra" -ne 0 ]; then
			bad=1; msgs+=("$b: $got records, the daemon had counted $want (and traffic was paused)")
		fi
	done
	if [ $bad = 0 ] && [ $nfiles -gt 0 ] && [ "$mode" = exact ]; then
		tb_ok "$label: $nfiles trace files read back whole; record counts equal the daemons' counts"
	elif [ $bad = 0 ] && [ $nfiles -gt 0 ]; then
		tb_ok "$label: $nfiles trace files read back whole, none cut; each holds at least the records counted before SIGTERM"
	else
		tb_fail "$label: trace files after SIGTERM" "${msgs[@]:0:6}"
	fi
}

# ---- scenarios ----

# Linux kernel IP forwarding on the same namespaces and cables.
scenario_kernel() {
	local dims=$1 fails
	tb_layout "$dims" D && tb_build && tb_kernel_routes || { tb_fail "kernel $dims: build the torus"; tb_stop_all; return; }
	tb_yaml "$TB_TMP/kernel.yaml"
	if out=$("$TTSIM" analyze "$TB_TMP/kernel.yaml" 2>&1); then
		tb_ok "kernel $dims: generated YAML loads (ttsim analyze)"
	else
		tb_fail "kernel $dims: generated YAML loads (ttsim analyze)" "$out"
	fi
	fails=$(tb_ping_all)
	if [ -z "$fails" ]; then
		tb_ok "kernel $dims: all $((TB_NPES * (TB_NPES - 1))) PE pairs ping over Linux forwarding$(retried)"
	else
		tb_fail "kernel $dims: all-pairs ping over Linux forwarding" "unreachable: $(echo $fails | head -c 300)"
	fi
	tb_stop_all
}

# ttd on the correct wiring.  $2 = full: also bulk, cable pull, cabling.
scenario_ttd() {
	local dims=$1 full=${2:-} label="ttd $1" yaml=$TB_TMP/ttd.yaml tr=$TB_TMP/traces out fails n
	tb_layout "$dims" D && tb_build || { tb_fail "$label: build the torus"; tb_stop_all; return; }
	rm -rf "$tr"
	tb_yaml "$yaml" "  ports: true
"
	if out=$("$TTD" check -c "$yaml" 2>&1); then
		tb_ok "$label: ttd check accepts the generated YAML"
	else
		tb_fail "$label: ttd check accepts the generated YAML" "$out"; tb_stop_all; return
	fi
	"$TBROUTE" paths "$TB_TMP/torus.yaml" > "$TB_TMP/paths"
	check_routes "$yaml" "$label"
	if ! tb_ttd_start "$yaml" "$tr"; then
		tb_fail "$label: $TB_NNODES daemons start, TAPs move to the PE namespaces"; tb_stop_all; return
	fi
	tb_ok "$label: $TB_NNODES daemons start, TAPs move to the PE namespaces"

	# (a) every PE reaches every other
	fails=$(tb_ping_all)
	if [ -z "$fails" ]; then
		tb_ok "$label: all $((TB_NPES * (TB_NPES - 1))) PE pairs ping through ttd$(retried)"
	else
		tb_fail "$label: all-pairs ping through ttd" "unreachable ($(echo "$fails" | wc -l)): $(echo $fails | head -c 300)"
	fi

	if [ -n "$full" ]; then
		if tb_until 5 all_cabling_ok; then
			tb_ok "$label: cabling ok on every port of the correct wiring"
		else
			tb_fail "$label: cabling ok on every port of the correct wiring" "$(wrong_ports | head -5)"
		fi
		check_bulk "$label"
		check_pull "$label"
	fi

	# (c) SIGTERM during traffic.  Full run: the generators are paused
	# (stopped, not ended) and the in-flight frames drained before the
	# status, so that the counts can be compared exactly; otherwise the
	# traffic flows through the SIGTERM.
	local gens=() s d mode=flowing
	[ -n "$full" ] && mode=exact
	for s in 0 3 $((TB_NPES - 1)); do
		d=$(( (s + TB_NPES / 2 + 1) % TB_NPES ))
		ip netns exec "$(tb_pe_ns $s)" ping -n -q -i 0.01 "$(tb_pe_addr $d)" >/dev/null 2>&1 &
		gens+=($!)
	done
	sleep 1
	if [ $mode = exact ]; then kill -STOP "${gens[@]}"; sleep 0.3; fi
	: > "$TB_TMP/counts"; : > "$TB_TMP/injected"
	for ((n = 0; n < TB_NNODES; n++)); do
		tb_status $n > "$TB_TMP/status.$n" 2>/dev/null
		jq -r '.traces[] | "\(.path) \(.records)"' "$TB_TMP/status.$n" >> "$TB_TMP/counts"
		jq -r '.counters.injected' "$TB_TMP/status.$n" >> "$TB_TMP/injected"
	done
	if tb_ttd_stop; then
		tb_ok "$label: SIGTERM during traffic ($mode): every ttd exits 0"
	else
		tb_fail "$label: SIGTERM during traffic ($mode): every ttd exits 0"
	fi
	kill -9 "${gens[@]}" 2>/dev/null; kill -CONT "${gens[@]}" 2>/dev/null; wait "${gens[@]}" 2>/dev/null
	check_traces "$tr" "$TB_TMP/counts" "$label" $mode

	# (b) hop for hop, VC for VC
	check_hops "$tr" "$label"

	# (d) the application trace replays
	check_replay "$label" "$yaml" "$tr" $mode
	tb_stop_all
}

# (a) a bulk TCP transfer between the two PEs farthest apart on their
# DOR path, every byte checked at the receiver (tbstream).
check_bulk() {
	local label=$1 far src dst bytes=4194304 got rc
	far=$(awk '{print NF - 2, $1, $2}' "$TB_TMP/paths" | sort -k1,1nr | head -1)
	read -r _ src dst <<< "$far"
	ip netns exec "$(tb_pe_ns $dst)" timeout 60 "$TBSTREAM" recv "$(tb_pe_addr $dst)" 5001 \
	    > "$TB_TMP/bulk.out" 2> "$TB_TMP/bulk.err" &
	local srv=$!
	sleep 0.2
	ip netns exec "$(tb_pe_ns $src)" timeout 60 "$TBSTREAM" send "$(tb_pe_addr $dst)" 5001 $bytes 2>> "$TB_TMP/bulk.err"
	rc=$?
	wait $srv
	got=$(awk '$2 == "ok" {print $1}' "$TB_TMP/bulk.out")
	if [ $rc = 0 ] && [ "${got:-0}" = $bytes ]; then
		tb_ok "$label: bulk TCP PE $src -> PE $dst over ${far%% *} hops: $got bytes, every byte checked"
	else
		tb_fail "$label: bulk TCP PE $src -> PE $dst" "received ${got:-nothing} of $bytes bytes (send exit $rc) $(head -2 "$TB_TMP/bulk.err")"
	fi
}

# (c) a pulled cable: the first cable of the layout, its + end set down.
check_pull() {
	local label=$1 c a p b q side ns before fails use avoid bad=0
	c=(${TB_CABLES[0]}); a=${c[0]}; p=${c[1]}; b=${c[2]}; q=${c[3]}
	side=${TB_SIDE[$p]}; ns=$(tb_node_ns $a)
	local tname; tname=$(awk -v p="$p" '$1 == "port" && $3 == p {print $4}' "$TB_TMP/layout")
	before=$(wc -l < "$TB_TMP/n$a.log")
	ip -n "$ns" link set "c$side$p" down
	if tb_until 5 port_is $a "$tname" down && tb_until 3 log_says_down $a $((before + 1)) "c$side$p" "$tname"; then
		tb_ok "$label: cable n$a $tname pulled: logged and status link down"
	else
		tb_fail "$label: cable n$a $tname pulled: logged and status link down" \
		    "status link: $(port_link $a "$tname"); log since: $(tail -n +$((before + 1)) "$TB_TMP/n$a.log" | head -3)"
	fi
	avoid=$(pairs_by_cable $a $p $b $q avoid)
	use=$(pairs_by_cable $a $p $b $q use)
	# as in tb_ping_all: a pair that fails gets one more try (a loaded
	# machine can pass a ping's deadline); the retries are shown
	local first retries
	first=$(echo "$avoid" | while read -r s d; do tb_ping $s $d || echo "$s $d"; done)
	retries=$(printf '%s' "$first" | grep -c . || true)
	fails=$(printf '%s\n' "$first" | while read -r s d; do
		[ -n "$s" ] || continue
		tb_ping $s $d || echo "$s->$d"
	done)
	if [ -n "$avoid" ] && [ -z "$fails" ]; then
		tb_ok "$label: with it pulled, the $(echo "$avoid" | wc -l) pairs whose routes avoid it still ping$([ "$retries" -gt 0 ] && echo " ($retries needed a second try)")"
	else
		tb_fail "$label: pairs whose routes avoid the pulled cable still ping" "failed: $(echo $fails | head -c 300)"
	fi
	# and the cable matters: pairs routed over it do not get through
	local reached
	reached=$(echo "$use" | head -6 | while read -r s d; do tb_ping $s $d && echo "$s->$d"; done)
	if [ -n "$use" ] && [ -z "$reached" ]; then
		tb_ok "$label: pairs routed over the pulled cable do not get through"
	else
		tb_fail "$label: pairs routed over the pulled cable do not get through" "reached: $reached"
	fi
	ip -n "$ns" link set "c$side$p" up
	if tb_until 5 port_is $a "$tname" up; then
		tb_ok "$label: cable plugged back: status link up"
	else
		tb_fail "$label: cable plugged back: status link up"
	fi
}

# (d) ttsim replay of the PE traces of all nodes, in one directory.
check_replay() {
	local label=$1 yaml=$2 tr=$3 mode=$4 dir=$TB_TMP/pe-traces injected out msgs dlv
	rm -rf "$dir"; mkdir -p "$dir"; cp "$tr"/*-pe.pcap* "$dir"/
	injected=$(awk '{s += $1} END {print s + 0}' "$TB_TMP/injected")
	if out=$("$TTSIM" replay "$dir" "$yaml" --json 2>"$TB_TMP/replay.err"); then
		msgs=$(echo "$out" | jq -r '.trace.messages // .messages // empty' 2>/dev/null)
		dlv=$(echo "$out" | jq -r '[.. | objects | select(has("messages_delivered")) | .messages_delivered][0] // empty' 2>/dev/null)
		if [ -n "$msgs" ] && [ "$msgs" = "$injected" ] && [ "$dlv" = "$msgs" ]; then
			tb_ok "$label: ttsim replay of the PE traces: $msgs messages replayed, as many as the PEs injected"
		elif [ $mode != exact ] && [ -n "$msgs" ] && [ "$msgs" -ge "$injected" ] && [ "$dlv" = "$msgs" ]; then
			tb_ok "$label: ttsim replay of the PE traces: $msgs messages replayed (the PEs had injected $injected before SIGTERM)"
		else
			tb_fail "$label: ttsim replay message count" "replay: messages ${msgs:-?}, delivered ${dlv:-?}; daemons counted $injected injected"
		fi
	else
		tb_fail "$label: ttsim replay of the PE traces exits 0" "$(head -3 "$TB_TMP/replay.err")"
	fi
}

# A wrongly wired torus: the far ends of two cables exchanged.
scenario_swap() {
	local dims=$1 label="ttd $1 swapped cables" yaml=$TB_TMP/swap.yaml a b want got n port bad=0
	tb_layout "$dims" D || { tb_fail "$label: layout"; return; }
	a=(${TB_CABLES[0]}); b=(${TB_CABLES[1]})
	tb_swap_cables 0 1
	tb_build || { tb_fail "$label: build the torus"; tb_stop_all; return; }
	tb_yaml "$yaml"
	if ! tb_ttd_start "$yaml" "$TB_TMP/swap-traces"; then
		tb_fail "$label: daemons start"; tb_stop_all; return
	fi
	tname() { awk -v p="$1" '$1 == "port" && $3 == p {print $4}' "$TB_TMP/layout"; }
	want=$(printf 'n%s %s\n' ${a[0]} "$(tname ${a[1]})" ${a[2]} "$(tname ${a[3]})" \
	    ${b[0]} "$(tname ${b[1]})" ${b[2]} "$(tname ${b[3]})" | sort)
	wrong_is() { [ "$(wrong_ports)" = "$want" ]; }
	tb_until 8 wrong_is
	got=$(wrong_ports)
	if [ "$got" = "$want" ]; then
		tb_ok "$label: status says cabling wrong on exactly $(echo $want | tr '\n' ' ')"
	else
		tb_fail "$label: status cabling wrong on exactly the swapped ports" "want: $(echo $want)" "got:  $(echo $got)"
	fi
	while read -r n port; do
		grep -i 'cabling' "$TB_TMP/$n.log" | grep -qF -- "$port" || { bad=1; echo "     no cabling log line for $n $port" ; }
	done <<< "$want"
	if [ $bad = 0 ]; then tb_ok "$label: each wrong cable logged by the cabling check"; else tb_fail "$label: each wrong cable logged"; fi
	tb_stop_all
}

# ---- many PEs to one PE (the incast): lossless, on both backends ----

# Every node's `ttd status --json`, as one JSON array, into $1.
snapshot() {
	local n
	for ((n = 0; n < TB_NNODES; n++)); do tb_status $n || echo null; done | jq -s . > "$1"
}

# Summed over nodes, from a snapshot: "injected delivered queued".
flow_totals() {
	jq -r '[.[] | .counters] | "\(map(.injected) | add) \(map(.delivered) | add) \(map(.queued) | add)"' "$1"
}

# Wait until the torus is at rest: nothing queued anywhere and nothing
# entering any more (15 s at most); the last snapshot is left in $1.
wait_rest() {
	local i prev= cur
	for ((i = 0; i < 50; i++)); do
		snapshot "$1"
		cur=$(flow_totals "$1")
		[ "${cur##* }" = 0 ] && [ "$cur" = "$prev" ] && return 0
		prev=$cur
		sleep 0.3
	done
	return 1
}

# What changed from snapshot $1 to $2: one line "injected delivered
# dropped capture link tap", the drops per node and reason in $TB_TMP/drops
# ("nN reason count"), and the credits that are not whole in
# $TB_TMP/credits ("nN port vc available/peer_buffer held").
flow_delta() {
	jq -r -n --slurpfile a "$1" --slurpfile b "$2" '
	    [range(0; $b[0] | length) as $i | {a: $a[0][$i], b: $b[0][$i]}] as $n |
	    def sum(f): [$n[] | (.b | f) - (.a | f)] | add;
	    "\(sum(.counters.injected)) \(sum(.counters.delivered)) \(sum([.counters.dropped[]] | add)) \(sum(.capture.dropped + .capture.ifdropped)) \(sum(.capture.link_dropped)) \(sum(.edge.tap_dropped // 0))"' 
	jq -r -n --slurpfile a "$1" --slurpfile b "$2" '
	    range(0; $b[0] | length) as $i | $b[0][$i].counters.dropped | to_entries[] |
	    select(.value != $a[0][$i].counters.dropped[.key]) |
	    "n\($i) \(.key) \(.value - $a[0][$i].counters.dropped[.key])"' > "$TB_TMP/drops"
	jq -r -n --slurpfile a "$1" --slurpfile b "$2" '
	    range(0; $b[0] | length) as $i | $b[0][$i].ports | to_entries[] |
	    (.value.link_dropped - $a[0][$i].ports[.key].link_dropped) as $d | select($d > 0) |
	    "n\($i) \(.value.ifname) \($d) sent by ttd and dropped by the kernel"' > "$TB_TMP/kdrops"
	jq -r 'to_entries[] | .key as $n | .value.ports[] | select(.link == "up") | .port as $p |
	    .credits[] | select(.available != .peer_buffer or .held != 0) |
	    "n\($n) \($p) vc\(.vc) \(.available)/\(.peer_buffer) held \(.held)"' "$2" > "$TB_TMP/credits"
}

# The senders: the card-1 PEs whose DOR path to PE $1 crosses the
# destination node's internal link, and a line saying what they share.
incast_plan() {
	local dst=$1 dn=$(($1 / 2))
	INCAST_SENDERS=$(awk -v d="$dst" -v i=" $dn.1.int." '$2 == d && $1 % 2 == 1 && index($0 " ", i) {print $1}' "$TB_TMP/paths" | tr '\n' ' ')
	INCAST_SHARE=$(awk -v d="$dst" -v want=" $INCAST_SENDERS" '
	    $2 == d && index(want " ", " " $1 " ") { for (i = 3; i <= NF; i++) { split($i, h, "."); c[h[1] "." h[2] "." h[3]]++ } }
	    END { for (k in c) print c[k], k }' "$TB_TMP/paths" | sort -k1,1nr)
	# the busiest cable (external port) and internal link
	INCAST_CABLE=$(echo "$INCAST_SHARE" | awk '$2 !~ /int$/ {print $2; exit}')
	INCAST_WHAT=$(echo "$INCAST_SHARE" | awk '
	    FILENAME == ARGV[1] { if ($1 == "port") name[$3] = $4; next }
	    $2 ~ /int$/ && !ni { split($2, h, "."); ni = "n" h[1] "'"'"'s internal link (" $1 " flows)" }
	    $2 !~ /int$/ && !nc { split($2, h, "."); nc = "n" h[1] " " name[h[3]] " (" $1 ")" }
	    END { print "paths share " ni " and " nc }' "$TB_TMP/layout" -)
}

# UDP from every sender to PE $dst for $secs, as fast as each can; with
# $pull, the busiest cable is pulled after 1.2 s for 2 s.
incast_udp() {
	local backend=$1 secs=$2 pull=${3:-} dst=0 s pids=() sink a b
	ip netns exec "$(tb_pe_ns $dst)" "$TB_ROOT/build/tests/tbblast" sink "$(tb_pe_addr $dst)" 7000 3 > "$TB_TMP/sink.out" 2>&1 &
	sink=$!
	sleep 0.2
	snapshot "$TB_TMP/snap.a"
	for s in $INCAST_SENDERS; do
		ip netns exec "$(tb_pe_ns $s)" "$TB_ROOT/build/tests/tbblast" send "$(tb_pe_addr $dst)" 7000 "$secs" 256 > "$TB_TMP/blast.$s" 2>&1 &
		pids+=($!)
	done
	[ -z "$pull" ] || pull_cable 1.2 2
	wait "${pids[@]}"
	wait $sink
	incast_check "$backend" UDP "$pull" "for $secs s, 256-byte datagrams"
}

# TCP: every sender sends 4 MiB to PE $dst at once, each checked byte by
# byte; with $pull, 32 MiB each and the busiest cable pulled after 0.5 s
# for 2 s (4 MiB can all arrive within 0.5 s: nothing would then meet the
# pulled cable, nor cross it after it is back).
incast_tcp() {
	local backend=$1 pull=${2:-} dst=0 s i=0 pids=() rpids=() bad=0 bytes=4194304
	[ -z "$pull" ] || bytes=33554432
	snapshot "$TB_TMP/snap.a"
	for s in $INCAST_SENDERS; do
		ip netns exec "$(tb_pe_ns $dst)" timeout 90 "$TBSTREAM" recv "$(tb_pe_addr $dst)" $((6000 + i)) > "$TB_TMP/tcp.$s" 2>&1 &
		rpids+=($!)
		i=$((i + 1))
	done
	sleep 0.3
	i=0
	for s in $INCAST_SENDERS; do
		ip netns exec "$(tb_pe_ns $s)" timeout 90 "$TBSTREAM" send "$(tb_pe_addr $dst)" $((6000 + i)) $bytes 2>> "$TB_TMP/tcp.err" &
		pids+=($!)
		i=$((i + 1))
	done
	[ -z "$pull" ] || pull_cable 0.5 2
	wait "${pids[@]}" || bad=1
	wait "${rpids[@]}" || bad=1
	for s in $INCAST_SENDERS; do
		grep -qx "$bytes ok" "$TB_TMP/tcp.$s" || bad=1
	done
	INCAST_TCP_BAD=$bad
	incast_check "$backend" TCP "$pull" "$((bytes / 1048576)) MiB each, every byte checked"
}

# Data frames the pulled cable lost, both ways, from snap.a to snap.b: what
# one end sent less what the other end received.
cable_lost() {
	local a=$PULL_NODE ap=${INCAST_CABLE##*.} b bp line
	line=$(awk -v a="$a" -v p="$ap" '$1 == "cable" && $2 == a && $3 == p {print $4, $5}' "$TB_TMP/layout")
	read -r b bp <<< "$line"
	jq -r -n --slurpfile x "$TB_TMP/snap.a" --slurpfile y "$TB_TMP/snap.b" \
	    --argjson a "$a" --arg ai "c${TB_SIDE[$ap]}$ap" --argjson b "$b" --arg bi "c${TB_SIDE[$bp]}$bp" '
	    def port(s; n; i): s[0][n].ports[] | select(.ifname == i);
	    def d(n; i; f): (port($y; n; i) | f) - (port($x; n; i) | f);
	    (d($a; $ai; .tx_frames) - d($b; $bi; .rx_data_frames)) + (d($b; $bi; .tx_frames) - d($a; $ai; .rx_data_frames))'
}

# Pull the busiest cable (its + end) after $1 s, plug it back $2 s later;
# the port's frames sent at the plug are kept in PULL_TX0.
pull_cable() {
	local node=${INCAST_CABLE%%.*} rest=${INCAST_CABLE#*.} side port
	side=${rest%%.*}; port=${rest#*.}
	PULL_LABEL="n$node $(awk -v p="$port" '$1 == "port" && $3 == p {print $4}' "$TB_TMP/layout")"
	PULL_NODE=$node
	PULL_IF=c$side$port
	sleep "$1"
	ip -n "$(tb_node_ns $node)" link set "$PULL_IF" down
	sleep "$2"
	PULL_TX0=$(tb_status "$node" | jq -r --arg i "$PULL_IF" '.ports[] | select(.ifname == $i) | .tx_frames')
	ip -n "$(tb_node_ns $node)" link set "$PULL_IF" up
}

# One line for one run: what entered the torus was delivered, nothing was
# dropped inside it (or, with a pulled cable, only where it was, for that
# reason), and the credits are whole again at rest.
incast_check() {
	local backend=$1 proto=$2 pull=$3 how=$4 d inj dlv drop cap link tap other label tx1 lost wire
	label="incast $proto $TB_DIMS: $(echo $INCAST_SENDERS | wc -w) PEs -> PE 0"
	[ -n "$pull" ] && label="$label, cable $PULL_LABEL pulled for 2 s and plugged back"
	if ! wait_rest "$TB_TMP/snap.b"; then
		tb_fail "$label: not at rest 15 s after the senders stopped ($backend)" "$(flow_totals "$TB_TMP/snap.b")"
		return
	fi
	d=$(flow_delta "$TB_TMP/snap.a" "$TB_TMP/snap.b")
	read -r inj dlv drop cap link tap <<< "$d"
	if [ "$proto" = TCP ] && [ "$INCAST_TCP_BAD" != 0 ]; then
		tb_fail "$label: a stream did not arrive whole ($backend)" "$(tail -3 "$TB_TMP/tcp.err")"
		return
	fi
	if [ -s "$TB_TMP/credits" ]; then
		tb_fail "$label: credits not whole at rest ($backend)" "$(head -5 "$TB_TMP/credits")"
		return
	fi
	if [ -z "$pull" ]; then
		if [ "$inj" -gt 1000 ] && [ "$inj" = "$dlv" ] && [ "$drop" = 0 ] && [ "$cap" = 0 ] && [ "$link" = 0 ]; then
			tb_ok "$label ($how; $INCAST_WHAT): $inj frames entered the torus, $dlv delivered, 0 dropped inside it at every node, credits whole at rest; edge: $tap dropped by the senders' TAPs ($backend)"
		else
			tb_fail "$label: lost inside the torus ($backend)" "entered $inj, delivered $dlv, dropped by ttd $drop, by the kernel $cap before ttd and $link after" "$(head -5 "$TB_TMP/drops")"
		fi
		return
	fi
	# a pulled cable: only its ends drop, only for it; what its ends
	# sent and the other end never received was lost on the cable itself
	other=$(awk -v n="n$PULL_NODE" '!($1 == n && ($2 == "link_down" || $2 == "send_failed"))' "$TB_TMP/drops")
	lost=$(awk '{s += $3} END {print s + 0}' "$TB_TMP/drops")
	tx1=$(jq -r --arg i "$PULL_IF" --argjson n "$PULL_NODE" '.[$n].ports[] | select(.ifname == $i) | .tx_frames' "$TB_TMP/snap.b")
	wire=$(cable_lost)
	if [ "$inj" -gt 1000 ] && [ $((dlv + lost + wire)) = "$inj" ] && [ -z "$other" ] && [ "$cap" = 0 ] &&
	    [ $((lost + wire)) -gt 0 ] && [ "$tx1" -gt "$PULL_TX0" ]; then
		tb_ok "$label ($how): $inj frames entered the torus, $dlv delivered, $lost dropped at n$PULL_NODE for its link ($(awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $3}' "$TB_TMP/drops")) and $wire lost on the cable as it went, none elsewhere; $((tx1 - PULL_TX0)) crossed it after it came back; credits whole at rest ($backend)"
	else
		tb_fail "$label: not accounted for ($backend)" "entered $inj, delivered $dlv, dropped $lost, lost on the cable $wire, by the kernel $cap before ttd and $link after it sent; crossed it after: $((tx1 - PULL_TX0))" "$(head -6 "$TB_TMP/drops")" "$(head -6 "$TB_TMP/kdrops")"
	fi
}

# Both backends on a 2x2x2 torus whose paths to PE 0 share links and an
# internal link: UDP and TCP, then each again with a cable pulled; every
# recorded hop of all of it against tt_route() (a line without the word:
# only the many-to-one checks carry it).
scenario_incast() {
	local backend=$1 label="$1 2,2,2 many-to-one" yaml=$TB_TMP/many.yaml tr=$TB_TMP/many-traces got
	TB_MTU=$([ "$backend" = xdp ] && echo 3000 || echo 9000)
	tb_layout 2,2,2 D && tb_build || { tb_fail "$label: build the torus ($backend)"; tb_stop_all; return; }
	rm -rf "$tr"
	tb_yaml "$yaml" "  ports: true
"
	"$TBROUTE" paths "$TB_TMP/torus.yaml" > "$TB_TMP/paths"
	incast_plan 0
	TB_TTD_ARGS="--backend $backend ${TB_INCAST_ARGS:-}"
	if ! tb_ttd_start "$yaml" "$tr"; then
		TB_TTD_ARGS=
		tb_fail "$label: $TB_NNODES daemons start with --backend $backend"; tb_stop_all; return
	fi
	TB_TTD_ARGS=
	got=$(tb_status 0 | jq -r .backend)
	if [ "$got" != "$backend" ]; then
		tb_fail "$label: daemons run the $backend backend" "n0 runs ${got:-nothing}: $(grep backend "$TB_TMP/n0.log")"
		tb_stop_all; return
	fi
	tb_until 5 all_cabling_ok
	incast_udp "$backend" 3
	incast_tcp "$backend"
	incast_udp "$backend" 5 pull
	incast_tcp "$backend" pull
	if tb_ttd_stop; then
		check_hops "$tr" "$label"
	else
		tb_fail "$label: SIGTERM: every ttd exits 0"
	fi
	rm -rf "$tr"
	tb_stop_all
	TB_MTU=9000
}

# ---- main ----

# Sourced (for trying a check on files by hand): define, do not run.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

why=$(tb_why_not)
[ -z "$why" ] || { echo "testbed: cannot run: $why" >&2; exit 69; }
[ -x "$TBROUTE" ] || { echo "testbed: $TBROUTE is missing (make build/tests/tbroute)" >&2; exit 69; }
tb_init
start=$(date +%s)

scenario_kernel 2,2,2
scenario_kernel 3,3,2
if [ -n "$KERNEL_ONLY" ]; then
	:
elif [ ! -x "$TTD" ]; then
	echo "SKIP ttd scenarios: $TTD is not built"
else
	scenario_ttd 2,2,2 full
	scenario_swap 2,2,2
	scenario_ttd 3,3,2
	scenario_incast pcap
	scenario_incast xdp
	# forged credit frames into two links of a lossless torus
	. "$(dirname "${BASH_SOURCE[0]}")/hostile.sh"
	scenario_hostile
fi
echo "testbed: $(( $(date +%s) - start )) s"
tb_summary
