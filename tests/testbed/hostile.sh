#!/bin/bash
# Hostile credit frames on a lossless torus (tests/testbed/README.md):
# forged credit frames sent into two links that carry a TCP incast, from
# a namespace that is not the neighbour on either, while ttd forwards
# the traffic with credits.  Nothing may be lost inside the torus, and
# every forged frame must be refused under the counter naming why.
#
#   tests/testbed/hostile.sh [--keep]      (root; testbed.sh runs it too)
#
# The torus is 2x2x2 D, the incast of testbed.sh (the card-1 PEs whose
# paths to PE 0 cross node 0's internal link).  Two of its links are
# spliced through a bridge in a namespace of their own (ttbed<PID>-evil):
# node 0's internal link, and the busiest external cable on the paths.
# Each bridge has a third port, where tbflood (credit:VICTIM:HOW) listens
# to both ends and forges, from the namespace's own MAC address, credit
# frames for the end that sends the incast's data (the victim): each one
# the neighbour's latest, numbered as its next, granting a whole buffer
# past what the victim has sent (what overruns the neighbour's full
# buffer), with one thing more: nothing (raise), a buffer of 0, VC 1,
# hops 1, the delivered flag, another destination, a reserved byte,
# another epoch, another peer epoch (a stream of those withdrew the
# victim's credits), a sequence number 10^9 ahead; and the neighbour's
# own first frame replayed, its MAC address too.
#
# Checks: every stream arrives whole (tbstream checks each byte); the
# torus comes to rest with injected = delivered, no drop of any other
# reason than the refusals at any node (no_buffer 0: no buffer overrun),
# none by the kernel; each victim's node counts exactly what was sent at
# it under credit_not_peer (raise, epoch, peerepoch, seq),
# credit_implausible (zero), credit_bad_header (vc, hops, flags, dst),
# credit_malformed (reserved) and credit_stale (replay); the victims'
# credit_frames.lost did not move; the credits are whole at rest; the
# refusals took a few log lines, not one a frame.
set -u

# ---- the hostile namespace and its bridges ----

HOSTILE_COUNT=${HOSTILE_COUNT:-200}	# frames of each kind, at each victim
HOSTILE_RATE=${HOSTILE_RATE:-2000}	# a second
HOSTILE_KINDS="raise zero vc hops flags dst reserved epoch peerepoch seq replay"

hostile_ns() { echo "$TB_ID-evil"; }

# Splice the link between node $1's interface $2 and node $3's $4 through
# bridge br$5 in the hostile namespace, whose third port is the veth pair
# h$5 (on the bridge) and x$5 (where tbflood sends).  The interfaces keep
# their names, so ttd sees the same ports.
hostile_splice() {
	local na=$1 ia=$2 nb=$3 ib=$4 i=$5 ev mtu=$TB_MTU
	ev=$(hostile_ns)
	ip -n "$(tb_node_ns $na)" link del "$ia" || return 1
	ip -n "$ev" link add "br$i" type bridge || return 1
	ip -n "$ev" link add "a$i" mtu "$mtu" type veth peer name "$ia" mtu "$mtu" netns "$(tb_node_ns $na)" || return 1
	ip -n "$ev" link add "b$i" mtu "$mtu" type veth peer name "$ib" mtu "$mtu" netns "$(tb_node_ns $nb)" || return 1
	ip -n "$ev" link add "h$i" mtu "$mtu" type veth peer name "x$i" mtu "$mtu" || return 1
	for p in "a$i" "b$i" "h$i"; do
		ip -n "$ev" link set "$p" master "br$i" || return 1
		ip -n "$ev" link set "$p" up || return 1
	done
	ip -n "$ev" link set "br$i" mtu "$mtu" up || return 1
	ip -n "$ev" link set "x$i" up || return 1
	ip -n "$(tb_node_ns $na)" link set "$ia" up || return 1
	ip -n "$(tb_node_ns $nb)" link set "$ib" up
}

# The namespace, node 0's internal link on br0, the busiest external
# cable on br1.  Sets HOSTILE_VICTIM[0..1] ("node ifname"), the ends that
# send the incast's data.
hostile_build() {
	local ev node card port c
	ev=$(hostile_ns)
	ip netns add "$ev" || return 1
	ip -n "$ev" link set lo up
	ip netns exec "$ev" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	# node 0's internal link: card 1 sends to card 0 (PE 0)
	hostile_splice 0 c0int 0 c1int 0 || return 1
	HOSTILE_VICTIM[0]="0 c1int"
	# the busiest cable: its end in INCAST_CABLE (node.card.port) sends
	node=${INCAST_CABLE%%.*}; card=${INCAST_CABLE#*.}; card=${card%%.*}; port=${INCAST_CABLE##*.}
	for c in "${TB_CABLES[@]}"; do
		set -- $c
		if [ "$1" = "$node" ] && [ "$2" = "$port" ]; then
			hostile_splice "$1" "c${TB_SIDE[$2]}$2" "$3" "c${TB_SIDE[$4]}$4" 1 || return 1
			break
		elif [ "$3" = "$node" ] && [ "$4" = "$port" ]; then
			hostile_splice "$3" "c${TB_SIDE[$4]}$4" "$1" "c${TB_SIDE[$2]}$2" 1 || return 1
			break
		fi
	done
	HOSTILE_VICTIM[1]="$node c$card$port"
	HOSTILE_CABLE_LABEL="n$node $(awk -v p="$port" '$1 == "port" && $3 == p {print $4}' "$TB_TMP/layout")"
}

# Every kind of forged frame at victim $1 ("node ifname") from x$2, one
# kind after another; "kind sent" lines into $TB_TMP/hostile.$2.
hostile_flood() {
	local v=($1) i=$2 mac kind out
	mac=$(tb_mac "$(tb_node_ns ${v[0]})" "${v[1]}")
	: > "$TB_TMP/hostile.$i"
	for kind in $HOSTILE_KINDS; do
		out=$(ip netns exec "$(hostile_ns)" "$TB_ROOT/build/tests/tbflood" "x$i" \
		    "credit:$mac:$kind" "$HOSTILE_COUNT" "$HOSTILE_RATE" 2>> "$TB_TMP/hostile.err")
		echo "$kind ${out#sent }" >> "$TB_TMP/hostile.$i"
	done
}

# Frames of the kinds of reason $2 sent at victim $1.
hostile_sent() {
	local kinds
	case $2 in
	credit_not_peer) kinds="raise epoch peerepoch seq" ;;
	credit_implausible) kinds="zero" ;;
	credit_bad_header) kinds="vc hops flags dst" ;;
	credit_malformed) kinds="reserved" ;;
	credit_stale) kinds="replay" ;;
	esac
	awk -v k=" $kinds " 'index(k, " " $1 " ") {s += $2} END {print s + 0}' "$TB_TMP/hostile.$1"
}

# A port's credit_frames.lost in snapshot $1: node $2, interface $3.
hostile_lost() {
	jq -r --argjson n "$2" --arg i "$3" '.[$n].ports[] | select(.ifname == $i) | .credit_frames.lost // "absent"' "$1"
}

scenario_hostile() {
	local label="hostile credit frames 2,2,2" yaml=$TB_TMP/hostile.yaml tr=$TB_TMP/hostile-traces
	local s i=0 pids=() rpids=() fpids=() bad=0 bytes=${HOSTILE_BYTES:-16777216} d inj dlv drop cap link tap
	local reason n want got other lines v lost0 lost1 line0=()
	TB_MTU=9000
	declare -ga HOSTILE_VICTIM=()
	tb_layout 2,2,2 D && tb_build || { tb_fail "$label: build the torus"; tb_stop_all; return; }
	"$TBROUTE" paths "$TB_TMP/torus.yaml" > "$TB_TMP/paths"
	incast_plan 0
	if ! hostile_build; then
		tb_fail "$label: splice two links through the hostile namespace's bridges"; tb_stop_all; return
	fi
	tb_yaml "$yaml"
	TB_TTD_ARGS="--backend pcap"
	if ! tb_ttd_start "$yaml" "$tr"; then
		TB_TTD_ARGS=
		tb_fail "$label: $TB_NNODES daemons start"; tb_stop_all; return
	fi
	TB_TTD_ARGS=
	if ! tb_until 8 all_cabling_ok; then
		tb_fail "$label: cabling ok through the bridges"; tb_stop_all; return
	fi
	sleep 0.5	# the first credit frames exchanged
	snapshot "$TB_TMP/hsnap.a"
	for ((n = 0; n < TB_NNODES; n++)); do line0[$n]=$(wc -l < "$TB_TMP/n$n.log"); done
	# the incast, every byte checked
	for s in $INCAST_SENDERS; do
		ip netns exec "$(tb_pe_ns 0)" timeout 90 "$TBSTREAM" recv "$(tb_pe_addr 0)" $((6100 + i)) > "$TB_TMP/htcp.$s" 2>&1 &
		rpids+=($!)
		i=$((i + 1))
	done
	sleep 0.3
	i=0
	for s in $INCAST_SENDERS; do
		ip netns exec "$(tb_pe_ns $s)" timeout 90 "$TBSTREAM" send "$(tb_pe_addr 0)" $((6100 + i)) "$bytes" 2>> "$TB_TMP/htcp.err" &
		pids+=($!)
		i=$((i + 1))
	done
	sleep 0.3	# the buffers fill
	for i in 0 1; do
		hostile_flood "${HOSTILE_VICTIM[$i]}" $i &
		fpids+=($!)
	done
	wait "${fpids[@]}"
	wait "${pids[@]}" || bad=1
	wait "${rpids[@]}" || bad=1
	for s in $INCAST_SENDERS; do
		grep -qx "$bytes ok" "$TB_TMP/htcp.$s" || bad=1
	done
	if [ "$(cat "$TB_TMP/hostile.0" "$TB_TMP/hostile.1" | awk '{s += $2} END {print s + 0}')" -eq 0 ]; then
		tb_fail "$label: tbflood forged nothing" "$(head -3 "$TB_TMP/hostile.err")"
		tb_stop_all; return
	fi
	if [ $bad != 0 ]; then
		tb_fail "$label: a stream did not arrive whole while forged credit frames came" "$(tail -3 "$TB_TMP/htcp.err")"
	else
		tb_ok "$label: $(echo $INCAST_SENDERS | wc -w) TCP streams of $((bytes / 1048576)) MiB to PE 0 arrive whole (every byte checked) while $(cat "$TB_TMP/hostile.0" "$TB_TMP/hostile.1" | awk '{s += $2} END {print s}') forged credit frames come into n0's internal link and cable $HOSTILE_CABLE_LABEL"
	fi
	if ! wait_rest "$TB_TMP/hsnap.b"; then
		tb_fail "$label: not at rest 15 s after the streams ended" "$(flow_totals "$TB_TMP/hsnap.b")"
		tb_stop_all; return
	fi
	d=$(flow_delta "$TB_TMP/hsnap.a" "$TB_TMP/hsnap.b")
	read -r inj dlv drop cap link tap <<< "$d"
	# nothing lost inside the torus: every drop is a refused frame
	other=$(grep -v -E ' (credit_[a-z_]*) ' "$TB_TMP/drops" || true)
	if [ "$inj" -gt 1000 ] && [ "$inj" = "$dlv" ] && [ -z "$other" ] && [ "$cap" = 0 ] && [ "$link" = 0 ]; then
		tb_ok "$label: $inj frames entered the torus, $dlv delivered, no_buffer 0 and no other drop at any node but the refusals, none by the kernel"
	else
		tb_fail "$label: lost inside the torus" "entered $inj, delivered $dlv, by the kernel $cap before ttd and $link after" "$(echo "$other" | head -6)"
	fi
	# each refusal under its reason, exactly what was sent
	bad=
	for reason in credit_not_peer credit_implausible credit_bad_header credit_malformed credit_stale; do
		for n in $(for v in "${HOSTILE_VICTIM[@]}"; do echo "${v%% *}"; done | sort -u); do
			want=0
			for i in 0 1; do
				[ "${HOSTILE_VICTIM[$i]%% *}" = "$n" ] && want=$((want + $(hostile_sent $i $reason)))
			done
			got=$(awk -v n="n$n" -v r="$reason" '$1 == n && $2 == r {print $3}' "$TB_TMP/drops")
			[ "${got:-0}" = "$want" ] || bad="$bad n$n $reason ${got:-none} (sent $want);"
		done
	done
	if [ -z "$bad" ]; then
		tb_ok "$label: every forged frame refused and counted by reason: $(awk '{printf "%s%s %s %s", (NR > 1 ? ", " : ""), $1, $2, $3}' "$TB_TMP/drops")"
	else
		tb_fail "$label: refusals counted by reason" "$bad" "$(tr '\n' ' ' < "$TB_TMP/hostile.0")" "$(tr '\n' ' ' < "$TB_TMP/hostile.1")"
	fi
	# credit_frames.lost: forged and replayed numbers count nothing
	bad=
	for v in "${HOSTILE_VICTIM[@]}"; do
		set -- $v
		lost0=$(hostile_lost "$TB_TMP/hsnap.a" "$1" "$2")
		lost1=$(hostile_lost "$TB_TMP/hsnap.b" "$1" "$2")
		[ "$lost0" = "$lost1" ] || bad="$bad n$1 $2 lost $lost0 -> $lost1;"
	done
	[ -z "$bad" ] && tb_ok "$label: the victims' credit_frames.lost did not move" ||
	    tb_fail "$label: credit_frames.lost inflated" "$bad"
	if [ -s "$TB_TMP/credits" ]; then
		tb_fail "$label: credits not whole at rest" "$(head -5 "$TB_TMP/credits")"
	else
		tb_ok "$label: credits whole at rest on every port"
	fi
	# a few log lines, not one a frame
	lines=0
	for ((n = 0; n < TB_NNODES; n++)); do
		lines=$((lines + $(tail -n +"$((line0[$n] + 1))" "$TB_TMP/n$n.log" | grep -c 'credit frame refused')))
	done
	if [ "$lines" -gt 0 ] && [ "$lines" -le 16 ]; then
		tb_ok "$label: $lines log lines for the refusals (at most 4 a port in 10 s)"
	else
		tb_fail "$label: refusals logged a few lines" "$lines lines"
	fi
	tb_ttd_stop || tb_fail "$label: SIGTERM: every ttd exits 0"
	rm -rf "$tr"
	tb_stop_all
}

# Sourced by testbed.sh: define, do not run.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

while [ $# -gt 0 ]; do
	case $1 in
	--keep) TB_KEEP=1 ;;
	*) echo "usage: hostile.sh [--keep]" >&2; exit 64 ;;
	esac
	shift
done
. "$(dirname "${BASH_SOURCE[0]}")/testbed.sh"
why=$(tb_why_not)
[ -z "$why" ] || { echo "hostile: cannot run: $why" >&2; exit 69; }
for t in "$TTD" "$TBROUTE" "$TBSTREAM" "$TB_ROOT/build/tests/tbflood"; do
	[ -x "$t" ] || { echo "hostile: $t is missing (make all $TBROUTE $TBSTREAM build/tests/tbflood)" >&2; exit 69; }
done
tb_init
start=$(date +%s)
scenario_hostile
echo "hostile: $(( $(date +%s) - start )) s"
tb_summary
