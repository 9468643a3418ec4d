# shellcheck shell=bash
# The building blocks of an emulated twin torus on one machine, shared by
# the ttbed command (tools/ttbed/ttbed, ttbed(8)), the testbed
# (tests/testbed/lib.sh sources this file) and the benchmarks that build
# one (bench/forward-speed.sh, bench/soak.sh, bench/predict/record.sh).
#
# A twin torus on one machine: one network namespace per node holding its
# eight ports as veth ends (six cables to the neighbours, the internal link
# as a veth pair with both ends in the node), one namespace per PE.  Every
# name starts with TB_ID (the testbed: ttbed<PID>; a ttbed bed:
# ttbed_<PID>), so parallel runs never clash; tb_stop_all removes what
# carries it.
#
# Interfaces are created directly inside their namespaces, so their names
# only need to be unique per node: c<card><port> (c0Xp, c1Zm, c0int, ...).
#
# The caller sets TB_TMP (where the layout, the YAML, the control sockets
# and the daemons' logs go) and may set TTD, TBROUTE, TB_ID, TB_MTU and
# TB_TTD_ARGS before calling the functions.

TB_PREFIX=ttbed
TB_ID=${TB_ID:-$TB_PREFIX$$}
TB_TMP=${TB_TMP:-}
TB_PIDS=()          # background processes this run started (ttd, servers)
TTBED_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TB_ROOT=${TB_ROOT:-$(cd "$TTBED_LIB/../.." && pwd)}
TBROUTE=${TBROUTE:-$TB_ROOT/build/tests/tbroute}
TBSTREAM=${TBSTREAM:-$TB_ROOT/build/tests/tbstream}
TTD=${TTD:-$TB_ROOT/build/ttd}
TTSIM=${TTSIM:-$TB_ROOT/build/ttsim}

tb_log() { printf '%s\n' "$*" >&2; }

# ---- names ----

tb_node_ns() { echo "$TB_ID-n$1"; }
tb_pe_ns()   { echo "$TB_ID-p$1"; }
# PE p's address: subnet 10.88.0.0/16 + p + 1 (the contract's default).
tb_pe_addr() { local a=$(($1 + 1)); echo "10.88.$((a >> 8)).$((a & 255))"; }
# A node's router address for kernel forwarding (lo, /32).
tb_rtr_addr() { local a=$(($1 + 1)); echo "10.89.$((a >> 8)).$((a & 255))"; }
tb_ifname()  { echo "c$1$2"; }          # card side, port name (Xp, int, ...)

# ---- set-up and tear-down ----

# Why the testbed cannot run here (nothing printed when it can).
tb_why_not() {
	local cmd probe=${TB_PREFIX}probe$$
	[ "$(id -u)" -eq 0 ] || { echo "not root (network namespaces need CAP_SYS_ADMIN)"; return; }
	for cmd in ip ping jq tcpdump; do
		command -v $cmd >/dev/null || { echo "$cmd is missing (make deps installs it)"; return; }
	done
	[ -c /dev/net/tun ] || { echo "/dev/net/tun is missing (ttd needs TAP interfaces)"; return; }
	ip netns add "$probe" 2>/dev/null || { echo "'ip netns add' fails here (no network namespaces in this container?)"; return; }
	if ! ip -n "$probe" link add tbprobe0 type veth peer name tbprobe1 2>/dev/null; then
		ip netns del "$probe"; echo "veth interfaces cannot be created here"; return
	fi
	ip netns del "$probe"
}

# Remove what earlier runs left behind: namespaces of this prefix whose
# run (the PID in the name) is gone, with the processes still in them.
tb_remove_stale() {
	local ns pid p
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TB_PREFIX[0-9]*-" || true); do
		pid=${ns#"$TB_PREFIX"}; pid=${pid%%-*}
		[ "$pid" = "$$" ] && continue
		kill -0 "$pid" 2>/dev/null && continue
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
		ip netns del "$ns" 2>/dev/null || true
	done
}

# Stop this run's processes and delete its namespaces (veths go with them).
tb_stop_all() {
	local p ns
	for p in "${TB_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${TB_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	TB_PIDS=()
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TB_ID-" || true); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
		ip netns del "$ns" 2>/dev/null || true
	done
}

# ---- the torus ----

# tb_layout DIMS PORTS: write $TB_TMP/torus.yaml (torus: only) and read the
# layout the core library derives from it into TB_NODES, TB_PORTS, TB_CABLES.
tb_layout() {
	local dims=$1 ports=$2
	TB_DIMS=$dims
	TB_LETTER=$ports
	printf 'torus: {dims: [%s], ports: %s, deadlock: vc}\n' "$dims" "$ports" > "$TB_TMP/torus.yaml"
	"$TBROUTE" layout "$TB_TMP/torus.yaml" > "$TB_TMP/layout" || return 1
	TB_NNODES=$(grep -c '^node ' "$TB_TMP/layout")
	TB_NPES=$((TB_NNODES * 2))
	mapfile -t TB_PORTS < <(awk '$1 == "port" {print $2 " " $3 " " $4}' "$TB_TMP/layout")
	mapfile -t TB_CABLES < <(awk '$1 == "cable" {print $2 " " $3 " " $4 " " $5}' "$TB_TMP/layout")
}

# Exchange the far ends of cables I and J (indices into TB_CABLES): the
# deliberately wrong wiring of the cabling check.
tb_swap_cables() {
	local a=(${TB_CABLES[$1]}) b=(${TB_CABLES[$2]})
	TB_CABLES[$1]="${a[0]} ${a[1]} ${b[2]} ${b[3]}"
	TB_CABLES[$2]="${b[0]} ${b[1]} ${a[2]} ${a[3]}"
}

# Namespaces, ports, cables.  Port veths get MTU TB_MTU, 9000 unless set:
# a torus frame adds 30 bytes (Ethernet + torus header) to the PE's
# full-size frame, and AF_XDP wants a frame to fit a 4 KiB chunk (the xdp
# runs set 3000).
TB_MTU=${TB_MTU:-9000}
tb_build() {
	local n ns e side name t c mtu=$TB_MTU
	declare -gA TB_SIDE=()
	for e in "${TB_PORTS[@]}"; do
		set -- $e
		[ "$2" = int ] || TB_SIDE[$2]=$1
	done
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
		ip -n "$ns" link add c0int mtu "$mtu" type veth peer name c1int mtu "$mtu" || return 1
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	for c in "${TB_CABLES[@]}"; do
		set -- $c
		ip -n "$(tb_node_ns $1)" link add "c${TB_SIDE[$2]}$2" mtu "$mtu" type veth \
		    peer name "c${TB_SIDE[$4]}$4" mtu "$mtu" netns "$(tb_node_ns $3)" || return 1
	done
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		for name in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^c[01]'); do
			ip -n "$ns" link set "$name" up || return 1
		done
	done
	for ((t = 0; t < TB_NPES; t++)); do
		ns=$(tb_pe_ns $t)
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
}

# tb_shape RATE [BURST LIMIT]: every port veth of every node (both ends of
# every cable and internal link live in the node namespaces) through a tc
# tbf of RATE (tc's syntax: 20mbit, 1gbit), or no qdisc of ours when RATE
# is empty.  The PEs' TAPs are not links and stay unshaped.  BURST (2kb)
# is more than the largest frame a port carries (1544 bytes) and no more,
# so that a link is as near a wire of that rate as tbf makes it; LIMIT
# (1mb of queue) is more than ttd can have in flight on a port (its
# credits), so tbf never drops a torus frame (bench/predict/record.sh
# says how these were measured).
tb_shape() {
	local rate=$1 burst=${2:-2kb} limit=${3:-1mb} n ns ifc
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		for ifc in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^c[01]'); do
			ip netns exec "$ns" tc qdisc del dev "$ifc" root 2>/dev/null
			[ -z "$rate" ] && continue
			ip netns exec "$ns" tc qdisc add dev "$ifc" root tbf rate "$rate" \
			    burst "$burst" limit "$limit" || return 1
		done
	done
}

# tb_yaml FILE [extra trace keys]: the cluster file ttd reads; each node's
# cards list their interfaces explicitly, card 0 first.
tb_yaml() {
	local f=$1 trace_extra=${2:-} n side e
	{
		printf 'torus: {dims: [%s], ports: %s, deadlock: vc}\n' "$TB_DIMS" "$TB_LETTER"
		printf 'nodes:\n'
		for ((n = 0; n < TB_NNODES; n++)); do
			printf '  - host: n%d\n' $n
			printf '    coord: [%s]\n' "$(awk -v n=$n '$1 == "node" && $2 == n {gsub(",", ", ", $3); print $3}' "$TB_TMP/layout")"
			printf '    cards:\n'
			for side in 0 1; do
				printf '      - ports: {'
				local first=1
				for e in "${TB_PORTS[@]}"; do
					set -- $e
					[ "$1" = $side ] || continue
					[ $first = 1 ] || printf ', '
					first=0
					printf '%s: %s' "c$side$2" "$3"
				done
				printf '}\n'
			done
		done
		printf 'trace:\n  dir: %s\n  rotate_mb: 1000\n  keep: 2\n%s' "$TB_TMP/traces" "$trace_extra"
	} > "$f"
}

# ---- Linux kernel forwarding instead of ttd ----

tb_mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

# Each node is one IP router (ip_forward) with static /32 routes to every
# PE, on the node-level DOR next hop of the core library; a PE hangs off
# its node on a veth (pe0/pe1 there, eth0 in the PE) and routes the PE
# subnet through it.
tb_kernel_routes() {
	local n ns t pns line dst port peer
	mkdir -p "$TB_TMP"
	"$TBROUTE" nexthop "$TB_TMP/torus.yaml" > "$TB_TMP/nexthop" || return 1
	declare -A peer_of=()
	for line in "${TB_CABLES[@]}"; do
		set -- $line
		peer_of[$1.$2]=$3
		peer_of[$3.$4]=$1
	done
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
		    net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		ip -n "$ns" addr add "$(tb_rtr_addr $n)/32" dev lo
		for side in 0 1; do
			t=$((n * 2 + side))
			pns=$(tb_pe_ns $t)
			ip -n "$ns" link add "pe$side" type veth peer name eth0 netns "$pns" || return 1
			ip netns exec "$ns" sysctl -qw "net.ipv4.conf.pe$side.rp_filter=0"
			ip -n "$ns" link set "pe$side" up
			ip netns exec "$pns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
			# the PE's way out is its node, resolved statically: no
			# ARP anywhere, so a burst of first pings cannot time out
			# on neighbour resolution
			ip -n "$pns" addr add "$(tb_pe_addr $t)/32" dev eth0
			ip -n "$pns" link set eth0 up
			ip -n "$pns" neigh replace "$(tb_rtr_addr $n)" dev eth0 nud permanent \
			    lladdr "$(tb_mac "$ns" "pe$side")"
			ip -n "$pns" route add 10.88.0.0/16 via "$(tb_rtr_addr $n)" dev eth0 onlink
		done
	done
	# Static neighbours: no ARP between routers or towards the PEs, so
	# that hundreds of first pings at once do not wait on resolution.
	for line in "${TB_CABLES[@]}"; do
		set -- $line
		ip -n "$(tb_node_ns $1)" neigh replace "$(tb_rtr_addr $3)" dev "c${TB_SIDE[$2]}$2" nud permanent \
		    lladdr "$(tb_mac "$(tb_node_ns $3)" "c${TB_SIDE[$4]}$4")"
		ip -n "$(tb_node_ns $3)" neigh replace "$(tb_rtr_addr $1)" dev "c${TB_SIDE[$4]}$4" nud permanent \
		    lladdr "$(tb_mac "$(tb_node_ns $1)" "c${TB_SIDE[$2]}$2")"
	done
	for ((t = 0; t < TB_NPES; t++)); do
		ip -n "$(tb_node_ns $((t / 2)))" neigh replace "$(tb_pe_addr $t)" dev "pe$((t % 2))" nud permanent \
		    lladdr "$(tb_mac "$(tb_pe_ns $t)" eth0)"
	done
	while read -r n dst port; do
		ns=$(tb_node_ns $n)
		case $port in
		pe*) ip -n "$ns" route add "$(tb_pe_addr $dst)/32" dev "$port" ;;
		*)   peer=${peer_of[$n.$port]}
		     ip -n "$ns" route add "$(tb_pe_addr $dst)/32" via "$(tb_rtr_addr $peer)" \
		         dev "c${TB_SIDE[$port]}$port" onlink ;;
		esac || return 1
	done < "$TB_TMP/nexthop"
}

# ---- ttd ----

tb_sock() { echo "$TB_TMP/n$1.sock"; }

# Start one ttd per node (with TB_TTD_ARGS, e.g. --backend xdp); wait until
# each answers on its control socket and its TAPs exist; move every TAP
# into its PE's namespace and address it.
tb_ttd_start() {
	local yaml=$1 tracedir=$2 n ns t pns i tap
	mkdir -p "$tracedir"
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		# shellcheck disable=SC2086  # TB_TTD_ARGS: words on purpose
		ip netns exec "$ns" "$TTD" run -c "$yaml" --node "n$n" --control "$(tb_sock $n)" \
		    --trace-dir "$tracedir" --log-level info ${TB_TTD_ARGS:-} 2> "$TB_TMP/n$n.log" &
		TB_PIDS+=($!)
		eval "TB_TTD_PID_$n=$!"
	done
	for ((n = 0; n < TB_NNODES; n++)); do
		ns=$(tb_node_ns $n)
		for ((i = 0; i < 100; i++)); do
			if [ -S "$(tb_sock $n)" ] && ip -n "$ns" link show "tt$((n * 2))" >/dev/null 2>&1 &&
			    ip -n "$ns" link show "tt$((n * 2 + 1))" >/dev/null 2>&1 &&
			    "$TTD" status --control "$(tb_sock $n)" --json >/dev/null 2>&1; then
				break
			fi
			local p; p=$(tb_ttd_pid $n)
			if ! kill -0 "$p" 2>/dev/null; then
				tb_log "testbed: ttd of node n$n exited; its log:"; sed 's/^/  /' "$TB_TMP/n$n.log" >&2
				return 1
			fi
			sleep 0.1
		done
		[ $i -lt 100 ] || { tb_log "testbed: ttd of node n$n not ready after 10 s"; sed 's/^/  /' "$TB_TMP/n$n.log" >&2; return 1; }
	done
	for ((t = 0; t < TB_NPES; t++)); do
		n=$((t / 2)); tap=tt$t; pns=$(tb_pe_ns $t)
		ip -n "$(tb_node_ns $n)" link set "$tap" netns "$pns" || return 1
		ip netns exec "$pns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		ip -n "$pns" addr add "$(tb_pe_addr $t)/16" dev "$tap" || return 1
		ip -n "$pns" link set "$tap" up || return 1
	done
}

tb_ttd_pid() { eval "echo \${TB_TTD_PID_$1}"; }

# The clock ticks process $1 has used so far, "USER SYSTEM" (/proc/PID/stat
# fields 14 and 15, counted after the name, which may hold spaces; a
# thread's are in its process's).
tb_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12, $13}'; }
# The same, user and system added.
tb_ticks_sum() { tb_ticks "$1" | awk '{print $1 + $2}'; }

tb_status() { "$TTD" status --control "$(tb_sock $1)" --json; }

# SIGTERM every ttd and wait (10 s at most, then SIGKILL); 0 if all
# exited with status 0.
tb_ttd_stop() {
	local n p i rc=0 st
	for ((n = 0; n < TB_NNODES; n++)); do kill -TERM "$(tb_ttd_pid $n)" 2>/dev/null || true; done
	for ((n = 0; n < TB_NNODES; n++)); do
		p=$(tb_ttd_pid $n)
		for ((i = 0; i < 100; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		if [ $i = 100 ]; then
			tb_log "testbed: ttd of n$n still running 10 s after SIGTERM; killed"
			kill -9 "$p" 2>/dev/null
		fi
		wait "$p"; st=$?
		[ $st -eq 0 ] || { tb_log "testbed: ttd of n$n exited with $st"; rc=1; }
	done
	TB_PIDS=()
	return $rc
}

# ---- traffic ----

# tb_ping SRC DST: a few pings from PE SRC's namespace to PE DST; 0 if any
# came back.
tb_ping() {
	ip netns exec "$(tb_pe_ns $1)" ping -n -q -c 3 -i 0.01 -W 1 -w 2 "$(tb_pe_addr $2)" >/dev/null 2>&1
}

# Every ordered pair of distinct PEs, one process per source in parallel;
# prints the pairs that failed, one per line.  The kernel's ARP table is
# one for all namespaces (gc_thresh3, 1024 entries by default, on the
# machine), so the sources go in batches that keep at most about 400
# entries at once (two runs side by side still fit), and each batch's
# entries are flushed after it.
tb_ping_all() {
	local s d b out=$TB_TMP/pingall pids batch
	batch=$((400 / (TB_NPES - 1))); [ $batch -ge 1 ] || batch=1
	rm -rf "$out"; mkdir -p "$out"
	for ((b = 0; b < TB_NPES; b += batch)); do
		pids=()
		for ((s = b; s < b + batch && s < TB_NPES; s++)); do
			(
				for ((d = 0; d < TB_NPES; d++)); do
					[ $s = $d ] && continue
					tb_ping $s $d || echo "$s->$d"
				done > "$out/$s"
			) &
			pids+=($!)
		done
		wait "${pids[@]}"
		for ((s = b; s < b + batch && s < TB_NPES; s++)); do
			ip -n "$(tb_pe_ns $s)" neigh flush all 2>/dev/null
		done
	done
	# A pair that failed gets one more try, alone: on a loaded 2-core
	# machine (other runs side by side) a ping's 2 s deadline can pass.
	# Only pairs that fail twice are reported; the retries are counted.
	cat "$out"/* > "$TB_TMP/pingall.first"
	while IFS='>' read -r s d; do
		s=${s%-}
		tb_ping "$s" "$d" || echo "$s->$d"
	done < "$TB_TMP/pingall.first"
}
