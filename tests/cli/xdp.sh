#!/usr/bin/env bash
# ttd's AF_XDP backend on one node, for what the testbed does not look at:
#   - the capabilities the systemd unit gives are enough: CAP_NET_RAW,
#     CAP_NET_ADMIN and CAP_BPF (with CAP_IPC_LOCK standing in for the
#     unit's LimitMEMLOCK, which root here cannot raise); without CAP_BPF
#     ttd runs libpcap and the log says why; without room to pin the UMEM,
#     --backend xdp is refused naming RLIMIT_MEMLOCK;
#   - buffers of 2 MiB a VC start (a frame holds at least 1/256 of one,
#     so the rings stay as they are) and carry frames losslessly;
#   - a PE's frames cross the internal link over AF_XDP, losslessly: what
#     ttd read from the TAP was delivered, the balance holds, and the
#     TAP's own drops show in status as edge drops;
#   - the PE trace is whole after SIGTERM (libpcap's savefile writer);
#   - the XDP program goes with the process, even after SIGKILL (a BPF
#     link, not a program left on the interface).
# One network namespace holds node (0,0) of a 2x2 twin torus, its ports
# veth pairs of MTU 3000 joined to its own other ports (as in daemon.sh).
# Needs root, ip, tcpdump, jq and setpriv; a ttd built with AF_XDP;
# otherwise SKIP.  No bpffs is needed: nothing is pinned.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
FL=$(tt_abs "${TBFLOOD:-build/tests/tbflood}")
needs_root ip tcpdump jq setpriv
[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
[ -x "$FL" ] || skip_all "$FL not built (make build/tests/tbflood)"
ns=ttdx-$$
pids=""
cleanup() {
	stop_pids
	ip netns del "$ns" 2>/dev/null
}
inns() { ip netns exec "$ns" "$@"; }
st() { timeout 10 "$D" status --control "$tmp/ttd.sock" --json; }

ip netns add "$ns" || skip_all "ip netns add failed"
node_2x2 "$ns" "ttx$$p" "$tmp/tr" 3000 3000 3000
tap0=ttx$$p0 tap1=ttx$$p1

# A ttd built without AF_XDP says so: nothing here applies then.
ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/probe.sock" --backend xdp 2>"$tmp/err" &
p=$!
wait_for 5 "$D" status --control "$tmp/probe.sock" >/dev/null 2>&1
kill $p 2>/dev/null; wait $p 2>/dev/null
grep -q "built without AF_XDP" "$tmp/err" && skip_all "$D was built without AF_XDP"

# ttd as uid 0 with exactly the capabilities caps (no others: noroot);
# setpriv execs it, so a job's PID is ttd's
with_caps() {
	local caps=$1; shift
	exec ip netns exec "$ns" setpriv --securebits +noroot,+no_setuid_fixup \
	    --inh-caps=-all,$caps --ambient-caps=-all,$caps --bounding-set=-all,$caps -- "$@"
}
started() { "$D" status --control "$tmp/$1" >/dev/null 2>&1; }

# ---- the unit's capabilities suffice ----
(with_caps +net_raw,+net_admin,+bpf,+ipc_lock "$D" run -c "$tmp/c.yaml" --node a \
    --control "$tmp/cap.sock" --trace-dir "$tmp/tr-cap" 2>"$tmp/cap.log") &
p=$!
if wait_for 10 started cap.sock && out=$("$D" status --control "$tmp/cap.sock" --json) && jq -e '.backend == "xdp"' <<<"$out" >/dev/null &&
    [ "$(grep Cap[EB][fn][fd] /proc/$p/status 2>/dev/null | awk '{print $2}' | sort -u)" = 0000008000007000 ]; then
	ok "CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF (CAP_IPC_LOCK for the UMEM), nothing else: xdp runs"
else
	bad unit-caps "$(grep Cap /proc/$p/status 2>/dev/null; cat "$tmp/cap.log")"
fi
kill $p; wait $p 2>/dev/null
(with_caps +net_raw,+net_admin,+ipc_lock "$D" run -c "$tmp/c.yaml" --node a \
    --control "$tmp/nobpf.sock" --trace-dir "$tmp/tr-nobpf" 2>"$tmp/nobpf.log") &
p=$!
if wait_for 10 started nobpf.sock && grep -q 'backend: pcap: libpcap on each of the 6 ports (AF_XDP unavailable: c0Xp: loading the XDP program: Operation not permitted (it needs CAP_BPF and CAP_NET_ADMIN))' "$tmp/nobpf.log"; then
	ok "without CAP_BPF: libpcap, and the log says why"
else
	bad no-bpf "$(cat "$tmp/nobpf.log")"
fi
kill $p; wait $p 2>/dev/null
(with_caps +net_raw,+net_admin,+bpf "$D" run -c "$tmp/c.yaml" --node a --backend xdp \
    --control "$tmp/lock.sock" --trace-dir "$tmp/tr-lock" 2>"$tmp/lock.log"); rc=$?
if [ $rc -eq 69 ] && grep -q 'start: --backend xdp: c[01][A-Za-z]*: cannot pin a UMEM of [0-9]* KiB: .* (RLIMIT_MEMLOCK: [0-9]* KiB; LimitMEMLOCK= in the unit, or CAP_IPC_LOCK)' "$tmp/lock.log"; then
	ok "no room to pin the UMEM: --backend xdp exits 69 naming RLIMIT_MEMLOCK"
else
	bad memlock "exit $rc: $(cat "$tmp/lock.log")"
fi

# Buffers of 2 MiB a VC: a frame takes at least 1/256 of one (8,192
# bytes), so the receive rings stay as they are and --backend xdp starts;
# each card tells the other that least in its credit frames, and frames
# cross the internal link at that cost without a drop.
{ cat "$tmp/c.yaml"; echo "credits: {vc_bytes: 2097152, internal_vc_bytes: 2097152}"; } > "$tmp/big.yaml"
ip netns exec "$ns" "$D" run -c "$tmp/big.yaml" --node a --backend xdp \
    --control "$tmp/big.sock" --trace-dir "$tmp/tr-big" 2>"$tmp/big.log" &
p=$!
# (jq -e takes no input as true: each check reads a status first)
stb() { timeout 10 "$D" status --control "$tmp/big.sock" --json 2>/dev/null; }
big_granted() { out=$(stb) && jq -e '[.ports[] | select(.port == "internal") | .credits[] | .peer_least] | length > 0 and all(. == 8192)' <<<"$out" >/dev/null; }
if wait_for 10 started big.sock && wait_for 10 big_granted; then
	inns "$FL" "$tap0" pe:0:1:1000 5000 >/dev/null
	big_done() { out=$(stb) && jq -e '.counters.queued == 0' <<<"$out" >/dev/null; }
	wait_for 10 big_done
	out=$(stb)
	if jq -e '[.ports[] | select(.port == "internal") | .credits[] | select(.least != 8192 or .buffer != 2097152 or .held != 0)] | length == 0' <<<"$out" >/dev/null &&
	    jq -e '.counters as $c | $c.injected > 1000 and $c.injected == $c.delivered and
	        ([$c.dropped | to_entries[] | select(.key | startswith("credit_") | not) | .value] | add) == 0' <<<"$out" >/dev/null; then
		ok "2 MiB buffers: --backend xdp starts, a frame holds 8192 bytes of them at both ends, $(jq .counters.delivered <<<"$out") frames cross without a drop"
	else
		bad big-credits "$(jq -c '{counters, credits: [.ports[] | select(.port == "internal") | .credits]}' <<<"$out")"
	fi
else
	bad big-credits "not granted: $(cat "$tmp/big.log"; stb | jq -c '[.ports[] | .credits]')"
fi
kill $p 2>/dev/null; wait $p 2>/dev/null

# ---- a PE's frames over AF_XDP, losslessly ----
ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd.sock" --backend xdp --log-level info 2>"$tmp/ttd.log" &
ttd=$!
pids="$pids $ttd"
wait_for 10 started ttd.sock || bad start "$(cat "$tmp/ttd.log")"
modes=$(st | jq -r '[.ports[].backend] | unique | join(",")')
[ "$modes" = "native XDP, copy mode" ] && grep -q 'backend: xdp: an AF_XDP socket on each of the 6 ports (native XDP, copy mode)' "$tmp/ttd.log" &&
    ok "--backend xdp: every port an AF_XDP socket, copy mode on veth, logged" || bad modes "$modes; $(grep backend "$tmp/ttd.log")"
inns ip link show c0Xp | grep -q 'xdp' && ok "the XDP program is on the ports" || bad prog "$(inns ip link show c0Xp)"
# PE 0 sends 20,000 frames to PE 1 as fast as a packet socket goes: card
# 0 takes what its first hop can take, card 1 delivers it
granted() { out=$(st) && jq -e '[.ports[] | select(.port == "internal") | .credits[0].available] | all(. != null)' <<<"$out" >/dev/null; }
wait_for 10 granted
rx0=$(inns cat "/sys/class/net/$tap1/statistics/rx_packets")
inns "$FL" "$tap0" pe:0:1:1000 20000 >/dev/null
got_all() { out=$(st) && jq -e '.counters.queued == 0' <<<"$out" >/dev/null; }
wait_for 10 got_all
out=$(st)
inj=$(jq .counters.injected <<<"$out")
dlv=$(jq .counters.delivered <<<"$out")
edge=$(jq .edge.tap_dropped <<<"$out")
# the X and Y cables loop back to this card's own ports: what comes back
# on them is its own credit frames, addressed to the neighbour the torus
# puts there, which it refuses (credit_*: no neighbour verified there);
# every other drop counts
drops=$(jq '[.counters.dropped | to_entries[] | select(.key | startswith("credit_") | not) | .value] | add' <<<"$out")
rx1=$(inns cat "/sys/class/net/$tap1/statistics/rx_packets")
if [ "$inj" -gt 1000 ] && [ "$inj" = "$dlv" ] && [ "$drops" = 0 ] && [ $((rx1 - rx0)) -ge "$dlv" ] &&
    [ $((inj + edge)) -ge 20000 ]; then
	ok "20000 frames from PE 0: $inj entered, $dlv delivered to PE 1 over AF_XDP, 0 dropped by ttd; $edge dropped at the edge (the TAP)"
else
	bad lossless "entered $inj, delivered $dlv, dropped $drops, edge $edge, TAP 1 got $((rx1 - rx0)): $(jq -c .counters.dropped <<<"$out")"
fi
jq -e '.counters as $c | $c.received == ($c.forwarded + $c.delivered + $c.consumed.hello
    + $c.consumed.arp + $c.consumed.credit + ([$c.dropped[]] | add) + $c.queued)' <<<"$out" >/dev/null &&
    ok "the balance holds ($(jq .counters.received <<<"$out") received)" || bad balance "$(jq -c .counters <<<"$out")"
# (the looped X and Y ports never get credits: they have no neighbour)
jq -e '[.ports[] | select(.port == "internal") | .credits[] | select(.available != .peer_buffer or .held != 0)] | length == 0' <<<"$out" >/dev/null &&
    ok "at rest, every credit of the internal link is back" || bad credits "$(jq -c '[.ports[] | .credits]' <<<"$out")"
recs=$(jq '.traces[0].records' <<<"$out")

# ---- SIGTERM: the trace whole; SIGKILL: the program gone ----
kill -TERM $ttd; wait $ttd; rc=$?; pids=${pids% $ttd}
got=$(tcpdump -r "$tmp/tr/a-pe.pcap" -n 2>"$tmp/td.err" | grep -c '^[0-9]')
[ $rc -eq 0 ] && [ "$got" -ge "$recs" ] && [ "$got" -ge $((inj + dlv)) ] && ! grep -qi 'truncated\|error' "$tmp/td.err" &&
    ok "SIGTERM: exit 0, the PE trace reads back whole ($got records)" || bad trace "exit $rc, $got records, $recs counted: $(cat "$tmp/td.err")"
! inns ip link show c0Xp | grep -q 'xdp' && ok "after SIGTERM no XDP program is left" || bad prog-left "$(inns ip link show c0Xp)"
ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/kill.sock" --backend xdp --trace-dir "$tmp/tr-kill" 2>"$tmp/kill.log" &
p=$!
wait_for 10 started kill.sock
kill -KILL $p; wait $p 2>/dev/null
wait_for 5 sh -c "! ip netns exec '$ns' ip link show c0Xp | grep -q xdp" &&
    ok "after SIGKILL no XDP program is left (a BPF link goes with its process)" || bad prog-kill "$(inns ip link show c0Xp)"

finish
