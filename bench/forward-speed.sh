#!/bin/bash
# Frames/s through ONE node of the testbed: one card (X- in, X+ out) and
# both cards over the internal link (X- in on card 0, internal link, Z+ out
# on card 1), for 64- and 1500-byte frames, side by side in one run:
#
#   the generator alone into a sink (its own bound),
#   Linux IP forwarding on the same veths,
#   ttd --backend pcap and ttd --backend xdp, each lossless (credits) and
#   --lossy, and lossless with a thread per card (--threads card),
#   bench/xskfwd.c, the ceiling of AF_XDP here: the least an AF_XDP
#   forwarder can do per frame (no routing, no credits, no copy in user
#   space; the sender floods it as it floods ttd --lossy), spinning, and
#   sleeping in poll() when idle as ttd does (on 2 cores a spinning
#   thread takes time from the sender and the kernel's softirqs),
#
# with what each dropped, the added latency of one probe frame, and the
# CPU time each forwarder's process took a frame.
#
#   bash bench/forward-speed.sh [SECONDS] [REPS]    (root; builds what it needs)
#
# ttd runs with buffers of VC_BYTES (default 524288) a VC on every port:
# 256 frames in flight a VC, of any size (a frame holds at least 1/256 of
# a buffer), where the default 64 KiB keeps 43 of 1,500 bytes, too few
# for the round trip of credits on two shared cores.  VC_BYTES=model runs
# ttd's default.
#
# One node namespace built as the testbed builds it (node (1,0,0) of a
# 4x4x4 D torus, configuration D: its eight ports as veths, MTU 3000 so
# that AF_XDP can run, the internal link inside), its X- port cabled to a
# sender namespace, X+ to a receiver, Z+ to a second receiver, the other
# ports to a sink.  bench/fwdprobe.c is the sender (sendmmsg on a packet
# socket, as fast as it goes, for SECONDS; REPS runs, median) and, for
# ttd, the receiving neighbour: it counts the torus data frames that
# arrive and grants the most credit a neighbour may (16 MiB past what the
# node has sent), as a neighbour that is never full.  Both say in hellos
# which card of which node they are (ttd takes credit frames only from
# the neighbour its hellos verified).
# Lossless, the sender is a neighbour too: it sends only what the node's
# credit frames allow, so the node never has to drop; --lossy, it floods
# and the node drops what does not fit.  The kernel forwards IPv4/UDP frames
# (ip_forward, permanent neighbour entries; over the internal link by a
# policy route on the frames coming in on it).  ttd: torus data frames PE
# 0 -> PE 4 (one card) and PE 0 -> PE 34 (over the internal link), on the
# VC tt_route() gives them on the link in.  xskfwd runs ttd's XDP program
# and moves each torus frame's UMEM chunk from the input port's AF_XDP
# socket to the output port's, X- -> X+ (one card) or X- -> c0's internal
# veth and c1's -> Z+ (two pairs in one loop); its rows count at the same
# receiver, which runs the same csink as for ttd, so that the receiving
# side does the same work; "ttd drop" is then what the kernel took from
# its send rings and did not send, "kern drop" what its receiving sockets
# could not take.  It is built only where ttd has AF_XDP (libxdp); without
# it its rows are left out.  Everything shares the 2 cores.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-3}
REPS=${2:-3}
VC_BYTES=${VC_BYTES:-524288}
MTU=3000
make -C "$ROOT" --no-print-directory -s all build/tests/tbroute build/bench/fwdprobe >/dev/null || exit 1
# only where ttd has AF_XDP: no rule for it otherwise
XSKFWD=$ROOT/build/bench/xskfwd STEER=$ROOT/build/daemon/steer.bpf.o
make -C "$ROOT" --no-print-directory -s build/bench/xskfwd >/dev/null 2>&1 || XSKFWD=
. "$ROOT/tests/testbed/lib.sh"
PROBE=$ROOT/build/bench/fwdprobe
why=$(tb_why_not); [ -z "$why" ] || { echo "forward-speed: cannot run: $why" >&2; exit 69; }
tb_init

SND=$TB_ID-snd RCV=$TB_ID-rcv RCV2=$TB_ID-rcv2 SINK=$TB_ID-sink NODE=$TB_ID-node DSND=$TB_ID-dsnd DRCV=$TB_ID-drcv
N=1         # node (1,0,0)

mac_of() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
# Who each neighbour namespace is in the torus (NODE:CARD:PORT, port ids
# X+ 0, X- 1, Z- 5), as fwdprobe says in its hellos: ttd takes credit
# frames only from the neighbour its hellos verified.  The sender is on
# n1's X-: n0's X+; the receivers on n1's X+ and Z+: n2's X-, n17's Z-.
as_of() { case $1 in "$SND") echo 0:0:0 ;; "$RCV") echo 2:0:1 ;; "$RCV2") echo 17:1:5 ;; esac; }
rx_of()  { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }
# cpu_note KEY FRAMES/S "U0 S0" "U1 S1": the forwarder's CPU over a run,
# appended to $TB_TMP/cpu as "KEY frames user-ticks system-ticks"
cpu_note() {
	local u0 s0 u1 s1
	read -r u0 s0 <<< "$3"
	read -r u1 s1 <<< "$4"
	echo "$1 $(( $2 * SECS )) $(( u1 - u0 )) $(( s1 - s0 ))" >> "$TB_TMP/cpu"
}

build_node() {
	local e side name t
	tb_layout 4,4,4 D || exit 1
	for ns in "$SND" "$RCV" "$RCV2" "$SINK" "$NODE" "$DSND" "$DRCV"; do
		ip netns add "$ns" || exit 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$NODE" link add c0int mtu $MTU type veth peer name c1int mtu $MTU
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
		ip -n "$NODE" link add "c$side$name" mtu $MTU type veth peer name "$peer" mtu $MTU netns "$t" || exit 1
		ip -n "$t" link set "$peer" up
	done
	for name in $(ip -n "$NODE" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^c[01]'); do
		ip -n "$NODE" link set "$name" up
	done
	# the bare pair: the generator alone, and the probe's own latency
	ip -n "$DSND" link add eth0 mtu $MTU type veth peer name eth0 mtu $MTU netns "$DRCV"
	ip -n "$DSND" link set eth0 up; ip -n "$DRCV" link set eth0 up
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)] + 0}'; }

# One run of each kind, appended to $TB_TMP/runs as "KEY rate offered
# ttd-drops kernel-drops"; the medians are taken at the end, so that the
# configurations take turns and a change in the machine's load is spread
# over all of them.

# gen LEN: the sender alone into a sink
gen_run() {
	local len=$1 r0 r1
	r0=$(rx_of "$DRCV" eth0)
	"$PROBE" flood "$DSND" eth0 "$(mac_of "$DRCV" eth0)" udp "$SECS" "$len" >/dev/null || return 1
	sleep 0.2
	r1=$(rx_of "$DRCV" eth0)
	echo "gen.$len $(( (r1 - r0) / SECS )) - - -" >> "$TB_TMP/runs"
}

# kernel_run KEY LEN SPEC RECEIVER
kernel_run() {
	local key=$1 len=$2 spec=$3 rcv=$4 r0 r1 sent
	r0=$(rx_of "$rcv" eth0)
	sent=$("$PROBE" flood "$SND" eth0 "$(mac_of "$NODE" c0Xm)" "$spec" "$SECS" "$len") || return 1
	sleep 0.2
	r1=$(rx_of "$rcv" eth0)
	echo "$key $(( (r1 - r0) / SECS )) $(( sent / SECS )) - -" >> "$TB_TMP/runs"
}

ttd_status() { "$TTD" status --control "$TB_TMP/ttd.sock" --json; }

# What the node dropped, from a status: ttd's drops by reason, and the
# kernel's before ttd saw a frame (capture ring, socket ring).
ttd_drops() {
	jq -r '"\([.counters.dropped[]] | add) \(.capture.dropped + .capture.ifdropped)"'
}

# ttd_run KEY LEN SPEC RECEIVER CREDITS: frames/s that reached the
# receiving neighbour (its interface's count; the node's few hellos and
# credit frames among them), offered, and what the node dropped
ttd_run() {
	local key=$1 len=$2 spec=$3 rcv=$4 credits=$5 sent d0 d1 sink r0 r1 c0
	d0=$(ttd_status | ttd_drops)
	"$PROBE" csink "$rcv" eth0 "$((SECS + 1))" "$(as_of "$rcv")" > "$TB_TMP/sink.out" &
	sink=$!
	sleep 0.3
	r0=$(rx_of "$rcv" eth0)
	c0=$(tb_ticks "$TTD_PID")
	sent=$("$PROBE" flood "$SND" eth0 "$(mac_of "$NODE" c0Xm)" "$spec" "$SECS" "$len" $credits) || return 1
	sleep 0.2
	r1=$(rx_of "$rcv" eth0)
	cpu_note "$key" $(( (r1 - r0) / SECS )) "$c0" "$(tb_ticks "$TTD_PID")"
	wait $sink
	d1=$(ttd_status | ttd_drops)
	echo "$key $(( (r1 - r0) / SECS )) $(( sent / SECS )) $(( ${d1% *} - ${d0% *} )) $(( ${d1#* } - ${d0#* } ))" >> "$TB_TMP/runs"
}

# KEY: "rate offered ttd-drops kernel-drops": the medians of the rates,
# the drops summed over the runs
result() {
	awk -v k="$1" '$1 == k {n++; r[n] = $2; o[n] = $3; if ($4 != "-") {d += $4; e += $5; dd = 1}}
	    function med(a, n,  i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) {t = a[i]; a[i] = a[j]; a[j] = t}; return a[int((n + 1) / 2)] }
	    END { if (!n) exit; printf "%s %s %s %s\n", med(r, n), (o[1] == "-" ? "-" : med(o, n)), (dd ? d : "-"), (dd ? e : "-") }' "$TB_TMP/runs"
}

# xsk_run KEY LEN SPEC RECEIVER PAIRS [-p]: xskfwd on PAIRS ("IN OUT
# ..."), started for the run alone (each path has its own pairs), flooded;
# the receiver counts as for ttd.  Its drops: what it printed at the end.
xsk_run() {
	local key=$1 len=$2 spec=$3 rcv=$4 pairs=$5 sent sink r0 r1 pid drop kdrop c0
	# not the last run's "ready"
	rm -f "$TB_TMP/xsk.out" "$TB_TMP/xsk.err"
	# shellcheck disable=SC2086  # pairs and flag as words
	ip netns exec "$NODE" "$XSKFWD" ${6:-} "$STEER" $pairs > "$TB_TMP/xsk.out" 2> "$TB_TMP/xsk.err" &
	pid=$!
	TB_PIDS+=("$pid")
	for ((i = 0; i < 100; i++)); do
		grep -qs ready "$TB_TMP/xsk.err" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	grep -qs ready "$TB_TMP/xsk.err" || { echo "xskfwd did not come up:"; cat "$TB_TMP/xsk.err"; exit 1; }
	"$PROBE" csink "$rcv" eth0 "$((SECS + 1))" "$(as_of "$rcv")" > "$TB_TMP/sink.out" &
	sink=$!
	sleep 0.3
	r0=$(rx_of "$rcv" eth0)
	c0=$(tb_ticks $pid)
	sent=$("$PROBE" flood "$SND" eth0 "$(mac_of "$NODE" c0Xm)" "$spec" "$SECS" "$len") || return 1
	sleep 0.2
	r1=$(rx_of "$rcv" eth0)
	cpu_note "$key" $(( (r1 - r0) / SECS )) "$c0" "$(tb_ticks $pid)"
	wait $sink
	kill -TERM $pid
	wait $pid
	read -r _ drop kdrop < "$TB_TMP/xsk.out"	# forwarded, dropped, kernel-dropped
	echo "$key $(( (r1 - r0) / SECS )) $(( sent / SECS )) $drop $kdrop" >> "$TB_TMP/runs"
}

ttd_start() {
	rm -f "$TB_TMP/ttd.sock"
	# shellcheck disable=SC2086  # flags as words
	ip netns exec "$NODE" "$TTD" run -c "$TB_TMP/ttd.yaml" --node n$N --control "$TB_TMP/ttd.sock" \
	    --trace-dir "$TB_TMP/traces" --log-level notice $1 2> "$TB_TMP/ttd.log" &
	TTD_PID=$!
	TB_PIDS+=($TTD_PID)
	for ((i = 0; i < 100; i++)); do
		ttd_status >/dev/null 2>&1 && break
		sleep 0.1
	done
	[ $i -lt 100 ] || { echo "ttd did not come up:"; cat "$TB_TMP/ttd.log"; exit 1; }
	sleep 0.5	# credits exchanged with the neighbours
}

ttd_stop() { kill -TERM "$TTD_PID"; wait "$TTD_PID" 2>/dev/null; }

fmt() { awk -v v="$1" 'BEGIN {s = sprintf("%d", v); r = ""; while (length(s) > 3) {r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3)}; print s r}'; }

build_node
echo "forward-speed: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r); $REPS runs of $SECS s each, in turns (every other repetition in reverse order), median"
echo "one node (n1 of a 4x4x4 D torus), port MTU $MTU: one card X- -> X+; internal link X- -> c0 -> internal -> c1 -> Z+; ttd buffers $VC_BYTES a VC"

# ---- Linux kernel forwarding: one router; over the internal link, a
# second hop inside the node by a policy route on what c1int receives ----
kernel_setup() {
	ip netns exec "$NODE" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	ip -n "$NODE" addr add 10.90.1.1/24 dev c0Xm
	ip -n "$NODE" addr add 10.90.2.1/24 dev c0Xp
	ip -n "$NODE" neigh replace 10.90.2.2 lladdr "$(mac_of "$RCV" eth0)" dev c0Xp nud permanent
	ip -n "$NODE" addr add 10.90.4.1/24 dev c0int
	ip -n "$NODE" addr add 10.90.5.1/24 dev c1int
	ip -n "$NODE" neigh replace 10.90.4.9 lladdr "$(mac_of "$NODE" c1int)" dev c0int nud permanent
	ip -n "$NODE" route add 10.90.3.2/32 via 10.90.4.9 dev c0int onlink
	ip -n "$NODE" route add 10.90.3.2/32 dev c1Zp table 100
	ip -n "$NODE" rule add iif c1int lookup 100 pref 100
	ip -n "$NODE" neigh replace 10.90.3.2 lladdr "$(mac_of "$RCV2" eth0)" dev c1Zp nud permanent
}
kernel_teardown() {
	ip -n "$NODE" rule del pref 100
	ip -n "$NODE" route flush table 100
	for i in c0Xm c0Xp c0int c1int; do ip -n "$NODE" addr flush dev $i; done
	ip -n "$NODE" route del 10.90.3.2/32 2>/dev/null
	ip netns exec "$NODE" sysctl -qw net.ipv4.ip_forward=0
}

if [ ! -x "$TTD" ]; then
	echo "ttd not built ($TTD)"
	exit 1
fi
tb_yaml "$TB_TMP/ttd.yaml"
# ttd's buffers, a VC: sized for the round trip of credits here, where it
# is the scheduling of three processes on two cores (VC_BYTES=model runs
# ttd's default, 64 KiB: 43 frames of 1,500 bytes in flight)
[ "$VC_BYTES" = model ] ||
	echo "credits: {vc_bytes: $VC_BYTES, internal_vc_bytes: $VC_BYTES}" >> "$TB_TMP/ttd.yaml"
vc=$("$TBROUTE" paths "$TB_TMP/torus.yaml" | awk '$1 == 0 && $2 == 4 {split($3, h, "."); print h[4]}')
vc2=$("$TBROUTE" paths "$TB_TMP/torus.yaml" | awk '$1 == 0 && $2 == 34 {split($3, h, "."); print h[4]}')
mkdir -p "$TB_TMP/traces"

# each ttd: backend, lossless or lossy, one loop or a thread per card
CONFIGS="pcap.lossless pcap.lossy xdp.lossless xdp.lossy pcap.threads xdp.threads"
: > "$TB_TMP/runs"
: > "$TB_TMP/cpu"
for ((rep = 0; rep < REPS; rep++)); do
	for len in 64 1500; do gen_run $len; done
	kernel_setup
	for len in 64 1500; do
		kernel_run kernel.$len.card $len udp "$RCV"
		kernel_run kernel.$len.int $len udp2 "$RCV2"
	done
	[ $rep = 0 ] && lat_kernel=$("$PROBE" latency "$SND" eth0 "$RCV" eth0 "$(mac_of "$NODE" c0Xm)" udp 1000)
	kernel_teardown
	# every other repetition the other way round: whichever forwarder
	# ran first in a repetition ran faster, by up to 18% (RESULTS.md)
	xorder="spin poll" order=$CONFIGS
	if [ $((rep % 2)) = 1 ]; then
		xorder="poll spin"
		order=$(printf '%s\n' $CONFIGS | tac | tr '\n' ' ')
	fi
	if [ -n "$XSKFWD" ]; then
		for len in 64 1500; do
			for x in $xorder; do
				f=; [ $x = poll ] && f=-p
				xsk_run xsk$x.$len.card $len "torus:0:4:$vc:1" "$RCV" "c0Xm c0Xp" $f
				xsk_run xsk$x.$len.int $len "torus:0:34:$vc2:1" "$RCV2" "c0Xm c0int c1int c1Zp" $f
			done
		done
	fi
	for cfg in $order; do
		backend=${cfg%.*} mode=${cfg#*.}
		flags="--backend $backend"; credits=credits:$(as_of "$SND")
		[ $mode = lossy ] && { flags="$flags --lossy"; credits=; }
		[ $mode = threads ] && flags="$flags --threads card"
		ttd_start "$flags"
		for len in 64 1500; do
			ttd_run $cfg.$len.card $len "torus:0:4:$vc:1" "$RCV" "$credits"
			ttd_run $cfg.$len.int $len "torus:0:34:$vc2:1" "$RCV2" "$credits"
		done
		if [ $rep = 0 ] && [ $mode = lossless ]; then
			"$PROBE" csink "$RCV" eth0 5 "$(as_of "$RCV")" >/dev/null &
			sink=$!
			sleep 0.3
			eval "lat_$backend=\$(\"\$PROBE\" latency \"\$SND\" eth0 \"\$RCV\" eth0 \"\$(mac_of \"\$NODE\" c0Xm)\" \"torus:0:4:\$vc:1\" 1000)"
			wait $sink
		fi
		[ $rep = $((REPS - 1)) ] && ttd_status | jq -c '{backend, flow, threads, counters: (.counters | {received, forwarded, delivered, consumed, dropped: ([.dropped[]] | add), queued, credits_sent}), capture}' |
		    sed "s/^/  ttd $backend $mode counters (last run): /" >> "$TB_TMP/counters"
		ttd_stop
	done
done
base=$("$PROBE" latency "$DSND" eth0 "$DRCV" eth0 "$(mac_of "$DRCV" eth0)" udp 1000)
echo "finished $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A R
for k in $(awk '{print $1}' "$TB_TMP/runs" | sort -u); do R[$k]=$(result "$k"); done

# ---- the table ----
row() {	# LABEL KEY: frames/s, offered, drops for both paths
	local label=$1 key=$2 c i
	c=(${R[$key.card]}); i=(${R[$key.int]})
	printf '%-40s %11s %11s %9s %9s   %11s %11s %9s %9s\n' "$label" \
	    "$(fmt "${c[0]}")" "$(fmt "${c[1]}")" "${c[2]:--}" "${c[3]:--}" \
	    "$(fmt "${i[0]}")" "$(fmt "${i[1]}")" "${i[2]:--}" "${i[3]:--}"
}
for len in 64 1500; do
	echo
	printf '%-40s %45s   %45s\n' "$len-byte frames" "one card (X- -> X+)" "internal link (X- -> int -> Z+)"
	printf '%-40s %11s %11s %9s %9s   %11s %11s %9s %9s\n' "" "frames/s" "offered/s" "ttd drop" "kern drop" \
	    "frames/s" "offered/s" "ttd drop" "kern drop"
	g=(${R[gen.$len]})
	printf '%-40s %11s\n' "generator alone" "$(fmt "${g[0]}")"
	row "Linux IP forwarding" "kernel.$len"
	if [ -n "$XSKFWD" ]; then
		row "xsk forwarder (no routing, no credits)" "xskspin.$len"
		row "xsk forwarder, poll() when idle" "xskpoll.$len"
	fi
	for cfg in $CONFIGS; do
		row "ttd ${cfg%.*} ${cfg#*.}" "$cfg.$len"
	done
done
echo
med() { sed -n 's/.*median \([0-9.]*\).*/\1/p'; }
echo "latency, one probe frame of 128 bytes X- -> X+ (one-way, us): bare veth pair: $base"
echo "  Linux IP forwarding: $lat_kernel"
echo "  ttd pcap lossless: $lat_pcap"
echo "  ttd xdp lossless: $lat_xdp"
echo
cat "$TB_TMP/counters"
echo
# ---- what each forwarder's own process spent a frame: steadier than the
# rates on a shared machine; a send also does, in the sender's context,
# the kernel's receive work on the far veth, so the neighbours' share is
# partly counted here ----
hz=$(getconf CLK_TCK)
cpu_cell() {	# KEY: "total (user+sys)" us a frame, over every run
	awk -v k="$1" -v hz="$hz" '$1 == k {f += $2; u += $3; s += $4}
	    END { if (!f) {print "-"; exit}
		printf "%.2f (%.2f+%.2f)", (u + s) * 1e6 / hz / f, u * 1e6 / hz / f, s * 1e6 / hz / f }' "$TB_TMP/cpu"
}
printf '%-40s %18s %18s %18s %18s\n' "CPU a frame, us (user+system)" "64 card" "64 int" "1500 card" "1500 int"
cpu_rows="xskspin xskpoll"; [ -n "$XSKFWD" ] || cpu_rows=
for k in $cpu_rows $CONFIGS; do
	case $k in
	xskspin) label="xsk forwarder (no routing, no credits)" ;;
	xskpoll) label="xsk forwarder, poll() when idle" ;;
	*) label="ttd ${k%.*} ${k#*.}" ;;
	esac
	printf '%-40s %18s %18s %18s %18s\n' "$label" "$(cpu_cell $k.64.card)" "$(cpu_cell $k.64.int)" \
	    "$(cpu_cell $k.1500.card)" "$(cpu_cell $k.1500.int)"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
for len in 64 1500; do
	for path in card int; do
		x=(${R[xdp.lossless.$len.$path]}); p=(${R[pcap.lossless.$len.$path]})
		xl=(${R[xdp.lossy.$len.$path]}); pl=(${R[pcap.lossy.$len.$path]})
		pt=(${R[pcap.threads.$len.$path]}); xt=(${R[xdp.threads.$len.$path]})
		g=(${R[gen.$len]})
		echo "$len bytes, $path: xdp/pcap lossless $(ratio "${x[0]}" "${p[0]}") (target 2, or the generator's $(fmt "${g[0]}")/s);" \
		    "lossless/lossy: pcap $(ratio "${p[0]}" "${pl[0]}"), xdp $(ratio "${x[0]}" "${xl[0]}") (target at least 0.90);" \
		    "a thread per card/one loop: pcap $(ratio "${pt[0]}" "${p[0]}"), xdp $(ratio "${xt[0]}" "${x[0]}")"
		# the ceiling: the better of the two ways of running xskfwd (0
		# where it did not run: the line is printed all the same)
		c=(${R[xskspin.$len.$path]:-0}); cp=(${R[xskpoll.$len.$path]:-0})
		[ "${cp[0]}" -gt "${c[0]}" ] && c=("${cp[@]}")
		echo "$len bytes, $path: AF_XDP ceiling (the better xsk forwarder row) $(fmt "${c[0]}")/s;" \
		    "xdp ceiling/pcap lossless $(ratio "${c[0]}" "${p[0]}"); ttd xdp lossless/ceiling $(ratio "${x[0]}" "${c[0]}")"
	done
done
