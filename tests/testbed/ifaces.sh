#!/bin/bash
# An interface deleted and made again under traffic (a driver reloaded, a
# veth re-made, a card replugged), with each backend: the cable between
# two nodes of a 2x2x2 torus is deleted while pings cross it, and made
# again under the same names.  While it is gone, both of its ports must
# show down with their interface gone, counted once and logged once, ttd
# must not spin (its CPU time over 2 s) nor count frames or credit frames
# sent into it; once it is back, both ports reopen by themselves, the
# credits are granted again and whole at rest, and the pings cross it.
# Then the cable is deleted and made again while both daemons are stopped
# (SIGSTOP): going on, they find the name there with another interface
# behind it, and must do the same.
#
# All of it with libpcap, with AF_XDP, and with libpcap and a thread per
# card.
#
#   tests/testbed/ifaces.sh [--keep]       (root; make testbed runs it)
#   tests/testbed/ifaces.sh --why-not
#
# Prints one line per check and ends with "N passed, N failed".
set -u
args=("$@")
set --
# the helpers of testbed.sh (sourced: it defines, it does not run)
. "$(dirname "${BASH_SOURCE[0]}")/testbed.sh"
for a in "${args[@]}"; do
	case $a in
	--keep) TB_KEEP=1 ;;
	--why-not) why=$(tb_why_not); [ -z "$why" ] && exit 0; echo "$why"; exit 1 ;;
	*) echo "usage: ifaces.sh [--keep] | --why-not" >&2; exit 2 ;;
	esac
done

# A port's field in node $1's status: port by interface name $2, jq path $3.
port_field() {
	tb_status "$1" 2>/dev/null | jq -r --arg i "$2" ".ports[] | select(.ifname == \$i) | $3"
}
port_state() { [ "$(port_field "$1" "$2" '"\(.link) \(.interface)"')" = "$3" ]; }
# Every VC of the port granted and whole: nothing held, all of the
# neighbour's buffer available.
credits_whole() {
	[ "$(port_field "$1" "$2" '[.credits[] | select(.available != .peer_buffer or .held != 0)] | length')" = 0 ] &&
	    [ "$(port_field "$1" "$2" '.credits | length')" -gt 0 ]
}

# scenario_iface BACKEND [ttd arguments]
scenario_iface() {
	local backend=$1 extra=${2:-} label yaml=$TB_TMP/if.yaml
	local c a p b q ai bi nsa nsb pair s d ping before_a before_b got hz t0 t1 cpu
	local tx0 tx1 cs0 cs1 h0 lines fd0 fd1
	label="$backend${extra:+ $extra} 2,2,2 interface deleted and made again"
	TB_MTU=$([ "$backend" = xdp ] && echo 3000 || echo 9000)
	tb_layout 2,2,2 D && tb_build || { tb_fail "$label: build the torus"; tb_stop_all; return; }
	tb_yaml "$yaml"
	"$TBROUTE" paths "$TB_TMP/torus.yaml" > "$TB_TMP/paths"
	TB_TTD_ARGS="--backend $backend $extra"
	if ! tb_ttd_start "$yaml" "$TB_TMP/if-traces"; then
		TB_TTD_ARGS=
		tb_fail "$label: daemons start with --backend $backend"; tb_stop_all; return
	fi
	TB_TTD_ARGS=
	got=$(tb_status 0 | jq -r '"\(.backend) \(.flow)"')
	if [ "$got" != "$backend lossless" ]; then
		tb_fail "$label: daemons run $backend, lossless" "n0 runs: $got"; tb_stop_all; return
	fi
	c=(${TB_CABLES[0]}); a=${c[0]}; p=${c[1]}; b=${c[2]}; q=${c[3]}
	ai=c${TB_SIDE[$p]}$p; bi=c${TB_SIDE[$q]}$q
	nsa=$(tb_node_ns $a); nsb=$(tb_node_ns $b)
	# a PE pair whose route, one way or both, crosses the cable
	pair=$(pairs_by_cable $a $p $b $q use | head -1)
	read -r s d <<< "$pair"
	ip netns exec "$(tb_pe_ns $s)" ping -n -q -i 0.01 "$(tb_pe_addr $d)" >/dev/null 2>&1 &
	ping=$!
	TB_PIDS+=($ping)
	tx0=$(port_field $a $ai .tx_frames)
	if tb_until 10 eval '[ "$(port_field $a $ai .tx_frames)" -gt $((tx0 + 50)) ]' &&
	    tb_until 5 credits_whole $b $bi; then
		tb_ok "$label: PE $s -> PE $d pings cross n$a $ai - n$b $bi, credits granted ($backend)"
	else
		tb_fail "$label: traffic crosses n$a $ai - n$b $bi before ($backend)" \
		    "$(tb_status $a | jq -c --arg i "$ai" '.ports[] | select(.ifname == $i)')"
	fi

	# ---- the cable deleted: both of its veth ends go ----
	fd0=$(ls "/proc/$(tb_ttd_pid $a)/fd" | wc -l)
	before_a=$(wc -l < "$TB_TMP/n$a.log"); before_b=$(wc -l < "$TB_TMP/n$b.log")
	ip -n "$nsa" link del "$ai"
	if tb_until 5 port_state $a $ai "down gone" && tb_until 5 port_state $b $bi "down gone" &&
	    [ "$(port_field $a $ai .interface_lost)" = 1 ] && [ "$(port_field $b $bi .interface_lost)" = 1 ]; then
		tb_ok "$label: deleted: both ports down, interface gone, counted once ($backend)"
	else
		tb_fail "$label: deleted: both ports down, interface gone, counted once ($backend)" \
		    "n$a $ai: $(port_field $a $ai '"\(.link) \(.interface) \(.interface_lost)"')" \
		    "n$b $bi: $(port_field $b $bi '"\(.link) \(.interface) \(.interface_lost)"')"
	fi
	# gone for 2 s: no spinning, nothing counted as sent into it
	sleep 0.5
	hz=$(getconf CLK_TCK)
	tx0=$(port_field $a $ai .tx_frames); cs0=$(port_field $a $ai .credit_frames.sent)
	t0=$(tb_ticks_sum "$(tb_ttd_pid $a)")
	sleep 2
	t1=$(tb_ticks_sum "$(tb_ttd_pid $a)")
	tx1=$(port_field $a $ai .tx_frames); cs1=$(port_field $a $ai .credit_frames.sent)
	cpu=$(( (t1 - t0) * 1000 / hz ))
	# an idle ttd with 100 pings/s through it takes a few ms a second;
	# the spinning loop took 400 (a whole core when not shared)
	if [ "$cpu" -lt 300 ] && [ "$tx1" = "$tx0" ] && [ "$cs1" = "$cs0" ]; then
		tb_ok "$label: while gone, n$a's ttd used $cpu ms of CPU in 2 s, sent nothing into it (frames $tx0, credit frames $cs0) ($backend)"
	else
		tb_fail "$label: while gone: no spinning, nothing counted as sent ($backend)" \
		    "CPU $cpu ms in 2 s; frames sent $tx0 -> $tx1, credit frames $cs0 -> $cs1"
	fi
	lines=$(tail -n +"$((before_a + 1))" "$TB_TMP/n$a.log" | grep -c "interface $ai is gone")
	if [ "$lines" = 1 ] && tail -n +"$((before_b + 1))" "$TB_TMP/n$b.log" | grep -q "interface $bi is gone"; then
		tb_ok "$label: logged once on each end ($backend)"
	else
		tb_fail "$label: logged once on each end ($backend)" "n$a said it $lines times:" \
		    "$(tail -n +"$((before_a + 1))" "$TB_TMP/n$a.log" | head -5)"
	fi

	# ---- made again, the same names, each end in its node ----
	h0=$(port_field $a $ai .credit_frames.heard)
	tx0=$(port_field $a $ai .tx_frames)
	ip -n "$nsa" link add "$ai" mtu "$TB_MTU" type veth peer name "$bi" mtu "$TB_MTU" netns "$nsb" &&
	    ip -n "$nsa" link set "$ai" up && ip -n "$nsb" link set "$bi" up ||
	    { tb_fail "$label: the cable made again"; kill $ping; tb_stop_all; return; }
	if tb_until 10 port_state $a $ai "up open" && tb_until 10 port_state $b $bi "up open"; then
		tb_ok "$label: made again: both ports reopened by themselves, link up ($backend)"
	else
		tb_fail "$label: made again: both ports reopened by themselves, link up ($backend)" \
		    "n$a $ai: $(port_field $a $ai '"\(.link) \(.interface)"'); n$b $bi: $(port_field $b $bi '"\(.link) \(.interface)"')" \
		    "$(tail -n +"$((before_a + 1))" "$TB_TMP/n$a.log" | head -5)"
	fi
	if tb_until 10 eval '[ "$(port_field $a $ai .tx_frames)" -gt $((tx0 + 50)) ]' &&
	    tb_until 5 eval '[ "$(port_field $a $ai .credit_frames.heard)" -gt "$h0" ]' &&
	    tb_ping "$s" "$d" && tb_ping "$d" "$s"; then
		tb_ok "$label: traffic and credit frames cross it again, PE $s <-> PE $d ping ($backend)"
	else
		tb_fail "$label: traffic and credit frames cross it again ($backend)" \
		    "frames sent $tx0 -> $(port_field $a $ai .tx_frames), credit frames heard $h0 -> $(port_field $a $ai .credit_frames.heard)"
	fi
	kill $ping 2>/dev/null; wait $ping 2>/dev/null
	fd1=$(ls "/proc/$(tb_ttd_pid $a)/fd" | wc -l)
	if tb_until 10 credits_whole $a $ai && tb_until 5 credits_whole $b $bi && [ "$fd1" = "$fd0" ]; then
		tb_ok "$label: at rest, the credits of both ends whole; n$a's ttd holds $fd1 descriptors, as before ($backend)"
	else
		tb_fail "$label: at rest, the credits of both ends whole, no descriptor leaked ($backend)" \
		    "n$a: $(port_field $a $ai ".credits | tostring")" "n$b: $(port_field $b $bi ".credits | tostring")" \
		    "n$a's descriptors: $fd0 before, $fd1 after"
	fi
	# ---- deleted and made again while both daemons are stopped: when
	# they go on, the name is there, another interface behind it ----
	before_a=$(wc -l < "$TB_TMP/n$a.log")
	kill -STOP "$(tb_ttd_pid $a)" "$(tb_ttd_pid $b)"
	ip -n "$nsa" link del "$ai" &&
	    ip -n "$nsa" link add "$ai" mtu "$TB_MTU" type veth peer name "$bi" mtu "$TB_MTU" netns "$nsb" &&
	    ip -n "$nsa" link set "$ai" up && ip -n "$nsb" link set "$bi" up
	got=$?
	kill -CONT "$(tb_ttd_pid $a)" "$(tb_ttd_pid $b)"
	[ $got = 0 ] || { tb_fail "$label: the cable made again at once"; tb_stop_all; return; }
	if tb_until 10 eval '[ "$(port_field $a $ai .interface_lost)" = 2 ] && [ "$(port_field $b $bi .interface_lost)" = 2 ]' &&
	    tb_until 10 port_state $a $ai "up open" && tb_until 10 port_state $b $bi "up open" &&
	    tb_until 5 tb_ping "$s" "$d" && tb_until 5 credits_whole $a $ai && tb_until 5 credits_whole $b $bi &&
	    tail -n +"$((before_a + 1))" "$TB_TMP/n$a.log" | grep -q "interface $ai was made again"; then
		tb_ok "$label: deleted and made again while ttd was stopped: seen as another interface, counted, reopened, PE $s -> PE $d pings, credits whole ($backend)"
	else
		tb_fail "$label: deleted and made again while ttd was stopped ($backend)" \
		    "n$a $ai: $(port_field $a $ai '"\(.link) \(.interface) \(.interface_lost)"'); n$b $bi: $(port_field $b $bi '"\(.link) \(.interface) \(.interface_lost)"')" \
		    "$(tail -4 "$TB_TMP/n$a.log")"
	fi
	if tb_ttd_stop; then
		tb_ok "$label: SIGTERM: every ttd exits 0 ($backend)"
	else
		tb_fail "$label: SIGTERM: every ttd exits 0 ($backend)"
	fi
	tb_stop_all
	TB_MTU=9000
}

why=$(tb_why_not)
[ -z "$why" ] || { echo "ifaces: cannot run: $why" >&2; exit 69; }
[ -x "$TTD" ] && [ -x "$TBROUTE" ] || { echo "ifaces: build/ttd and build/tests/tbroute are needed (make testbed)" >&2; exit 69; }
tb_init
scenario_iface pcap
scenario_iface xdp
# a thread per card: the port is closed and reopened by its card's thread
scenario_iface pcap "--threads card"
tb_summary
