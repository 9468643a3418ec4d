#!/usr/bin/env bash
# A real capture replayed through an address map: two network namespaces joined by a veth pair, tcpdump on one
# end while they ping (and, with python3, exchange a short TCP stream), then
#   - `trace stat` and `replay` with a YAML `addresses:` map of the two IPs
#     take exactly the IPv4 frames between them (counted here with tcpdump
#     -r), with their frame bytes, per direction, and report what is not
#     mapped (ARP by EtherType, IPv6 neighbour discovery by address);
#   - with only one IP mapped, the other is reported unmapped, frame count
#     and all, and replay has nothing to replay;
#   - a map of the two MAC addresses takes the frames between those MACs;
#   - a capture on "any" (Linux cooked, not Ethernet) is refused.
# Needs root, `ip netns`, tcpdump and ping; otherwise "SKIP capture: reason", exit 0.
# The namespaces are removed on exit, also after a failure.  About 3 s.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

needs_root ip tcpdump ping jq

na=ttcap-a-$$ nb=ttcap-b-$$          # namespaces
va=ttca$$ vb=ttcb$$                   # veth ends (at most 15 characters)
net=10.99.$(($$ % 250 + 1))
ipa=$net.1 ipb=$net.2
pids=""
cleanup() {
	stop_pids
	ip netns del "$na" 2>/dev/null
	ip netns del "$nb" 2>/dev/null
}
inns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

if ! ip netns add "$na" 2>"$tmp/err"; then
	skip_all "ip netns add failed: $(cat "$tmp/err")"
fi
ip netns add "$nb" &&
    ip link add "$va" netns "$na" type veth peer name "$vb" netns "$nb" &&
    inns "$na" ip addr add "$ipa/24" dev "$va" &&
    inns "$nb" ip addr add "$ipb/24" dev "$vb" &&
    inns "$na" ip link set "$va" up &&
    inns "$nb" ip link set "$vb" up &&
    inns "$na" ip link set lo up &&
    inns "$nb" ip link set lo up || { bad setup "cannot build the namespaces and veth pair"; exit 1; }
maca=$(inns "$na" cat "/sys/class/net/$va/address")
macb=$(inns "$nb" cat "/sys/class/net/$vb/address")

# tcpdump on A's end (Ethernet) and on "any" (Linux cooked), unbuffered and
# in immediate mode (else what sits in the kernel ring when it stops is lost),
# as root (-Z root) so that it can write into $tmp.  Started by ip netns
# exec directly, not through a function, so that $! is tcpdump itself.
ip netns exec "$na" tcpdump -Z root -i "$va" -n -U --immediate-mode -B 8192 -w "$tmp/cap.pcap" 2>"$tmp/tcpdump.err" &
tcpdump_pid=$!
ip netns exec "$na" tcpdump -Z root -i any -n -U --immediate-mode -B 8192 -w "$tmp/any.pcap" 2>"$tmp/tcpdump-any.err" &
any_pid=$!
pids="$tcpdump_pid $any_pid"
for _ in $(seq 50); do
	grep -q listening "$tmp/tcpdump.err" && grep -q listening "$tmp/tcpdump-any.err" && break
	sleep 0.1
done
grep -q listening "$tmp/tcpdump.err" || { bad tcpdump "did not start: $(cat "$tmp/tcpdump.err")"; exit 1; }

inns "$na" ping -c 20 -i 0.05 -W 1 "$ipb" >"$tmp/ping.out" 2>&1 || bad ping "$(cat "$tmp/ping.out")"
# a short TCP stream (larger frames, both directions) if python3 can listen
tcp=no
if command -v python3 >/dev/null 2>&1; then
	ip netns exec "$nb" python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5001))
s.listen(1)
s.settimeout(5)
c, _ = s.accept()
while c.recv(65536):
    pass' "$ipb" &
	server=$!
	pids="$pids $server"
	sleep 0.3
	if inns "$na" bash -c "exec 3<>/dev/tcp/$ipb/5001 && head -c 100000 /dev/zero >&3" 2>"$tmp/tcp.err" &&
	    wait "$server"; then
		tcp=yes
	else
		echo "# no TCP stream: $(cat "$tmp/tcp.err")"
	fi
	pids=${pids% "$server"}
fi
sleep 0.2
kill -INT "$tcpdump_pid" "$any_pid"
wait "$tcpdump_pid"; st=$?
wait "$any_pid"
pids=""
[ "$st" -eq 0 ] || bad tcpdump-stop "tcpdump exit $st: $(cat "$tmp/tcpdump.err")"
echo "# tcpdump: $(grep -e captured -e 'dropped by kernel' "$tmp/tcpdump.err" | paste -sd, - | sed "s/,/, /g"); TCP stream: $tcp"

# What the capture holds, counted with tcpdump: IPv4 frames between the
# two addresses, per direction, their frame lengths, and ARP frames.
count() { tcpdump -r "$tmp/cap.pcap" -n "$@" 2>/dev/null | wc -l; }
n_ab=$(count "ip src $ipa and ip dst $ipb")
n_ba=$(count "ip src $ipb and ip dst $ipa")
n_ip=$((n_ab + n_ba))
n_icmp=$(count "icmp and host $ipa and host $ipb")
n_all=$(count "")
n_arp=$(count arp)
n_mac=$(count "(ether src $maca and ether dst $macb) or (ether src $macb and ether dst $maca)")
# -e prints "..., ethertype IPv4 (0x0800), length 98: ..." per frame
bytes_ip=$(tcpdump -r "$tmp/cap.pcap" -n -e "ip and host $ipa and host $ipb" 2>/dev/null |
    sed -n 's/.*ethertype IPv4 (0x0800), length \([0-9]*\):.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$n_icmp" -ge 40 ] && ok "capture ($n_all frames: $n_icmp ICMP, $n_ip IPv4 between $ipa and $ipb, $n_arp ARP)" ||
    bad capture "$n_icmp ICMP frames, wanted the 20 echo requests and 20 replies"

yaml() {   # FILE, then "ADDRESS": PE lines of addresses:
	local f=$1; shift
	{ echo "torus: {dims: [2, 2, 2]}"; echo "addresses:"; printf '  %s\n' "$@"; } >"$f"
}
yaml "$tmp/ip.yaml" "\"$ipa\": 0" "\"$ipb\": 5"

# --- both IPs mapped: the IPv4 frames between them, nothing else ---
if expect stat-ip 0 "$T" trace stat "$tmp/cap.pcap" "$tmp/ip.yaml" --json; then
	got=$(js '[.records, .messages, .plain_frames, .bytes, .unmapped_frames,
	    ([.pes[] | select(.pe == 0)][0].sent_messages), ([.pes[] | select(.pe == 5)][0].sent_messages),
	    ([.pes[] | select(.sent_messages > 0) | .pe] | length)] | map(tostring) | join(" ")')
	want="$n_all $n_ip $n_ip $bytes_ip $((n_all - n_ip)) $n_ab $n_ba 2"
	[ "$got" = "$want" ] && ok stat-ip-messages ||
	    bad stat-ip-messages "records messages plain bytes unmapped 0->5 5->0 senders: got $got, want $want"
	warn=$(grep "frames skipped: an address is not in addresses:" "$tmp/err")
	if [ "$n_all" -gt "$n_ip" ]; then
		[[ $warn == "ttsim trace stat: warning: $tmp/cap.pcap: $((n_all - n_ip)) frames skipped"* ]] &&
		    { [ "$n_arp" -eq 0 ] || grep -qF "EtherType 0x0806 (ARP) ($n_arp)" <<<"$warn"; } &&
		    ok "stat-ip-unmapped-warning ($n_arp ARP, $((n_all - n_ip - n_arp)) others)" ||
		    bad stat-ip-unmapped-warning "$(cat "$tmp/err")"
	fi
fi
if expect replay-ip 0 "$T" replay "$tmp/cap.pcap" "$tmp/ip.yaml" --json; then
	got=$(js '[.trace.messages, .networks[0].messages_delivered, .networks[0].bytes_delivered,
	    .trace.skipped_unmapped, .networks[0].deadlock] | map(tostring) | join(" ")')
	want="$n_ip $n_ip $bytes_ip $((n_all - n_ip)) false"
	[ "$got" = "$want" ] && grep -q "ttsim replay: warning: $tmp/cap.pcap: .* frames skipped" "$tmp/err" &&
	    ok replay-ip || bad replay-ip "trace delivered bytes unmapped deadlock: got $got, want $want"
fi

# --- only A mapped: B is reported, once per frame that names it ---
yaml "$tmp/one.yaml" "\"$ipa\": 0"
if expect stat-one 0 "$T" trace stat "$tmp/cap.pcap" "$tmp/one.yaml" --json; then
	[ "$(js .messages)" = 0 ] && grep -qF " $ipb ($n_ip)" "$tmp/err" &&
	    ok "stat-one-address ($ipb unmapped in $n_ip frames)" ||
	    bad stat-one-address "$(js .messages) messages; $(cat "$tmp/err")"
fi
if expect replay-one 2 "$T" replay "$tmp/cap.pcap" "$tmp/one.yaml"; then
	grep -qF " $ipb ($n_ip)" "$tmp/err" &&
	    grep -qx "ttsim replay: the trace holds no messages ($n_all records read)" "$tmp/err" &&
	    ok replay-one-address || bad replay-one-address "$(cat "$tmp/err")"
fi

# --- the MAC addresses mapped: every frame between the two MACs ---
yaml "$tmp/mac.yaml" "\"$maca\": \"1,0,0/1\"" "\"$macb\": \"0,1,1/0\""
if expect stat-mac 0 "$T" trace stat "$tmp/cap.pcap" "$tmp/mac.yaml" --json; then
	# 1,0,0/1 is PE 2 * 1 + 1 = 3; 0,1,1/0 is PE 2 * (2 + 4) = 12
	got=$(js '[.messages, ([.pes[] | select(.sent_messages > 0) | .pe] | map(tostring) | join(","))] | join(" ")')
	[ "$got" = "$n_mac 3,12" ] && ok "stat-mac ($n_mac frames)" || bad stat-mac "messages senders: got $got, want $n_mac 3,12"
	if [ "$n_arp" -gt 0 ]; then
		# ARP requests go to the broadcast MAC, which is not mapped
		grep -qF "ff:ff:ff:ff:ff:ff" "$tmp/err" && ok stat-mac-broadcast-unmapped ||
		    bad stat-mac-broadcast-unmapped "$(cat "$tmp/err")"
	fi
fi
if expect replay-mac 0 "$T" replay "$tmp/cap.pcap" "$tmp/mac.yaml" --json; then
	[ "$(js .networks[0].messages_delivered)" = "$n_mac" ] && ok replay-mac ||
	    bad replay-mac "$(js .networks[0].messages_delivered) delivered, want $n_mac"
fi

# --- tcpdump -i any writes Linux cooked frames: refused, saying so ---
if [ -s "$tmp/any.pcap" ]; then
	if expect any-refused 2 "$T" trace stat "$tmp/any.pcap" "$tmp/ip.yaml"; then
		line=$(head -1 "$tmp/err")
		[[ $line == "ttsim trace stat: $tmp/any.pcap: link type LINUX_SLL"*", not Ethernet; "* ]] &&
		    ok any-refused || bad any-refused "$line"
	fi
fi

finish
