#!/bin/bash
# Frames/s and added latency through ONE node of the testbed, ttd against
# Linux kernel IP forwarding on the same veth set-up.
#
#   bash bench/forward-speed.sh [SECONDS]      (root; builds what it needs)
#
# One node namespace built as the testbed builds it (node n1 of a 4x4x4
# torus, configuration D: its eight ports as veths, the internal link
# inside), its X- port cabled to a sender namespace, its X+ port to a
# receiver namespace, its Z+ port to a second receiver, its other ports
# to a sink namespace.  The sender
# (bench/fwdprobe.c, sendmmsg on a packet socket) floods 128-byte frames as
# fast as it can for SECONDS (5); the figure is the receiver's rx_packets
# per second, i.e. what the node forwarded.  Kernel: IPv4/UDP frames,
# ip_forward, a static neighbour entry.  ttd: torus data frames from PE 0
# to PE 4, which DOR sends from X- straight out of X+ at node (1,0,0);
# then, ttd only, PE 0 to PE 34, which crosses the node's internal link
# (X- on card 0 in, Z+ on card 1 out: both forwarding planes).
# Latency: fwdprobe sends one frame every 2 ms and times it to the
# receiver in one process (one clock); "added" subtracts the same probe
# over a bare veth pair.  Both forwarders share the 2 cores with the
# sender.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-5}
REPS=3
make -C "$ROOT" --no-print-directory -s all build/tests/tbroute build/bench/fwdprobe >/dev/null || exit 1
. "$ROOT/tests/testbed/lib.sh"
PROBE=$ROOT/build/bench/fwdprobe
why=$(tb_why_not); [ -z "$why" ] || { echo "forward-speed: cannot run: $why" >&2; exit 69; }
tb_init

SND=$TB_ID-snd RCV=$TB_ID-rcv RCV2=$TB_ID-rcv2 SINK=$TB_ID-sink NODE=$TB_ID-node DSND=$TB_ID-dsnd DRCV=$TB_ID-drcv
N=1         # node (1,0,0)

mac_of() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
rx_of()  { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }

build_node() {
	local e side name t
	tb_layout 4,4,4 D || exit 1
	for ns in "$SND" "$RCV" "$RCV2" "$SINK" "$NODE" "$DSND" "$DRCV"; do
		ip netns add "$ns" || exit 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$NODE" link add c0int mtu 9000 type veth peer name c1int mtu 9000
	for e in "${TB_PORTS[@]}"; do
		set -- $e; side=$1; name=$2
		[ "$name" = int ] && continue
		case $name in
		Xm) t=$SND ;;
		Xp) t=$RCV ;;
		Zp) t=$RCV2 ;;
		*)  t=$SINK ;;
		esac
		local peer=eth0; [ "$t" = "$SINK" ] && peer=s$name
		ip -n "$NODE" link add "c$side$name" mtu 9000 type veth peer name "$peer" mtu 9000 netns "$t" || exit 1
		ip -n "$t" link set "$peer" up
	done
	for name in $(ip -n "$NODE" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^c[01]'); do
		ip -n "$NODE" link set "$name" up
	done
	# the bare veth pair for the probe's own latency
	ip -n "$DSND" link add eth0 type veth peer name eth0 netns "$DRCV"
	ip -n "$DSND" link set eth0 up; ip -n "$DRCV" link set eth0 up
}

# rate SPEC [RECEIVER]: REPS floods; prints the received and offered
# frames/s of each
rate() {
	local spec=$1 rcv=${2:-$RCV} dmac r0 r1 sent i
	dmac=$(mac_of "$NODE" c0Xm)
	for ((i = 0; i < REPS; i++)); do
		r0=$(rx_of "$rcv" eth0)
		sent=$("$PROBE" flood "$SND" eth0 "$dmac" "$spec" "$SECS") || return 1
		sleep 0.2
		r1=$(rx_of "$rcv" eth0)
		awk -v r=$((r1 - r0)) -v s="$sent" -v d="$SECS" \
		    'BEGIN {printf "%.0f %.0f\n", r / d, s / d}'
	done
}

latency() {
	"$PROBE" latency "$SND" eth0 "${2:-$RCV}" eth0 "$(mac_of "$NODE" c0Xm)" "$1" 2000
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

report() {
	printf '%-8s forwarded frames/s: %s (median of %d runs of %s s: %s; offered %s/s)\n' "$1" \
	    "$(awk '{print $1}' "$2" | median)" "$(wc -l < "$2")" "$SECS" \
	    "$(awk '{print $1}' "$2" | tr '\n' ' ' | sed 's/ $//')" "$(awk '{print $2}' "$2" | median)"
}

build_node
echo "forward-speed: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
echo "frames of 128 bytes, one node (n1 of a 4x4x4 D torus), X- in, X+ out"

base=$("$PROBE" latency "$DSND" eth0 "$DRCV" eth0 "$(mac_of "$DRCV" eth0)" udp 2000) || exit 1
echo "bare veth pair    probe latency: $base"
med() { sed -n 's/.*median \([0-9.]*\).*/\1/p'; }
added() { awk -v a="$(echo "$1" | med)" -v b="$(echo "$base" | med)" 'BEGIN {printf "%.1f", a - b}'; }

# ---- Linux kernel forwarding ----
ip netns exec "$NODE" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
ip -n "$NODE" addr add 10.90.1.1/24 dev c0Xm
ip -n "$NODE" addr add 10.90.2.1/24 dev c0Xp
ip -n "$NODE" neigh replace 10.90.2.2 lladdr "$(mac_of "$RCV" eth0)" dev c0Xp nud permanent
rate udp > "$TB_TMP/kernel.rate" || exit 1
report kernel "$TB_TMP/kernel.rate"
lat=$(latency udp); echo "kernel   latency: $lat"
echo "kernel   added latency (median): $(added "$lat") us"
ip -n "$NODE" addr flush dev c0Xm; ip -n "$NODE" addr flush dev c0Xp
ip netns exec "$NODE" sysctl -qw net.ipv4.ip_forward=0

# ---- ttd ----
if [ ! -x "$TTD" ]; then
	echo "ttd      not built ($TTD): kernel baseline only"
	exit 0
fi
tb_yaml "$TB_TMP/ttd.yaml"
vc=$("$TBROUTE" paths "$TB_TMP/torus.yaml" | awk '$1 == 0 && $2 == 4 {split($3, h, "."); print h[4]}')
# PE 0 -> PE 34 (node (1,0,1)): in on X- of card 0, over the internal
# link, out of Z+ on card 1 -- both forwarding planes of the node
vc2=$("$TBROUTE" paths "$TB_TMP/torus.yaml" | awk '$1 == 0 && $2 == 34 {split($3, h, "."); print h[4]}')
mkdir -p "$TB_TMP/traces"
ip netns exec "$NODE" "$TTD" run -c "$TB_TMP/ttd.yaml" --node n$N --control "$TB_TMP/ttd.sock" \
    --trace-dir "$TB_TMP/traces" --log-level notice 2> "$TB_TMP/ttd.log" &
TB_PIDS+=($!)
for ((i = 0; i < 100; i++)); do
	"$TTD" status --control "$TB_TMP/ttd.sock" --json >/dev/null 2>&1 && break
	sleep 0.1
done
[ $i -lt 100 ] || { echo "ttd did not come up:"; cat "$TB_TMP/ttd.log"; exit 1; }
rate "torus:0:4:$vc:1" > "$TB_TMP/ttd.rate" || exit 1
report ttd "$TB_TMP/ttd.rate"
lat=$(latency "torus:0:4:$vc:1"); echo "ttd      latency: $lat"
echo "ttd      added latency (median): $(added "$lat") us"
rate "torus:0:34:$vc2:1" "$RCV2" > "$TB_TMP/ttd-int.rate" || exit 1
report "ttd X- -> internal link -> Z+" "$TB_TMP/ttd-int.rate"
lat=$(latency "torus:0:34:$vc2:1" "$RCV2"); echo "ttd X- -> internal link -> Z+ latency: $lat"
echo "ttd X- -> internal link -> Z+ added latency (median): $(added "$lat") us"
"$TTD" status --control "$TB_TMP/ttd.sock" --json | jq -c '.counters' 2>/dev/null | sed 's/^/ttd      counters: /'
k=$(awk '{print $1}' "$TB_TMP/kernel.rate" | median)
t=$(awk '{print $1}' "$TB_TMP/ttd.rate" | median)
awk -v k="$k" -v t="$t" 'BEGIN {printf "ttd / kernel (medians): %.2f (target: at least 0.5)\n", t / k}'
