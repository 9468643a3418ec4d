#!/usr/bin/env bash
# ttd run on one node, for what the testbed does not look at: the systemd
# notify protocol (READY=1 once running, RELOADING=1 then READY=1 on
# SIGHUP, STOPPING=1 on SIGTERM), SIGUSR1's counters in the log, the text
# status, --pcp (hellos leave with an 802.1Q tag) and a refused start
# (an interface missing: exit 78 naming it).  One network namespace holds
# node (0,0) of a 2x2 twin torus: its ports are veth pairs whose far ends
# stay in the namespace (nobody answers; nothing needs to).  Needs root,
# ip, tcpdump and python3 (the NOTIFY_SOCKET listener); otherwise SKIP.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
set -u
cd "$(dirname "$0")/../.." || exit 2
D=${TTD:-build/ttd}
case $D in /*) ;; *) D=$PWD/$D ;; esac
if [ "$(id -u)" -ne 0 ]; then echo "SKIP daemon: not root"; echo "0 passed, 0 failed"; exit 0; fi
for t in ip tcpdump python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP daemon: $t not installed"; echo "0 passed, 0 failed"; exit 0; }
done
[ -c /dev/net/tun ] || { echo "SKIP daemon: no /dev/net/tun"; echo "0 passed, 0 failed"; exit 0; }
pass=0 fail=0
ns=ttdd-$$
tmp=$(mktemp -d /tmp/ttd-daemon.XXXXXX)
pids=""
cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	[ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ok()  { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; fail=$((fail + 1)); }
# wait_for SECS CMD...: poll until CMD succeeds
wait_for() { local n=$(($1 * 10)); shift; while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done; return 1; }

ip netns add "$ns" || { echo "SKIP daemon: ip netns add failed"; echo "0 passed, 0 failed"; exit 0; }
ip -n "$ns" link set lo up
# D on 2 dimensions is not a letter: best puts X on card0, Y on card1
for pair in "c0Xp c0Xm" "c1Yp c1Ym" "c0int c1int"; do
	set -- $pair
	ip -n "$ns" link add "$1" type veth peer name "$2"
	ip -n "$ns" link set "$1" up
	ip -n "$ns" link set "$2" up
done
cat >"$tmp/c.yaml" <<YAML
torus: {dims: [2, 2], ports: best}
nodes:
  - host: a
    coord: [0, 0]
    cards:
      - { ports: { c0Xp: X+, c0Xm: X-, c0int: internal } }
      - { ports: { c1Yp: Y+, c1Ym: Y-, c1int: internal } }
pes: {tap: "ttd$$p%u"}
trace: {dir: $tmp/traces}
YAML
mkdir -p "$tmp/traces"
"$D" check -c "$tmp/c.yaml" && ok "config for the node checks" || bad config

# the notify listener: every datagram, one per line
cat >"$tmp/listen.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(s.recv(4096).decode() + "\n")
PY
python3 "$tmp/listen.py" "$tmp/notify.sock" "$tmp/notify.log" &
pids="$pids $!"
wait_for 5 test -S "$tmp/notify.sock" || bad "notify listener did not start"

# tcpdump on a port: what ttd sends there
ip netns exec "$ns" tcpdump -Z root -i c0Xm -n -U --immediate-mode -w "$tmp/c0Xm.pcap" 2>"$tmp/tcpdump.err" &
tdp=$!
pids="$pids $tdp"
wait_for 5 grep -q listening "$tmp/tcpdump.err"

NOTIFY_SOCKET=$tmp/notify.sock ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a \
    --control "$tmp/ttd.sock" --pcp --log-level info 2>"$tmp/ttd.log" &
ttd=$!
pids="$pids $ttd"
wait_for 10 grep -qx "READY=1" "$tmp/notify.log" && ok "READY=1 sent once running" ||
    bad ready "$(cat "$tmp/ttd.log")"
"$D" status --control "$tmp/ttd.sock" >"$tmp/status.txt" 2>&1
grep -q "^node a" "$tmp/status.txt" && grep -q "X+ (c0Xp)" "$tmp/status.txt" &&
    grep -q "= forwarded 0 + delivered 0 + .*; injected 0;" "$tmp/status.txt" &&
    grep -q "^capture: 0 dropped by the capture ring" "$tmp/status.txt" &&
    ok "text status: node, ports, counters, capture drops" || bad status-text "$(cat "$tmp/status.txt")"

kill -USR1 $ttd
wait_for 5 grep -q "counters: received [0-9]* = forwarded 0 + delivered 0" "$tmp/ttd.log" &&
    ok "SIGUSR1 logs the counters" || bad usr1 "$(cat "$tmp/ttd.log")"
: >"$tmp/notify.log"
kill -HUP $ttd
wait_for 5 grep -qx "READY=1" "$tmp/notify.log" && grep -qx "RELOADING=1" "$tmp/notify.log" &&
    grep -q "config: reloaded; trace files reopened" "$tmp/ttd.log" &&
    ok "SIGHUP: RELOADING=1, reload, READY=1" || bad hup "$(cat "$tmp/notify.log" "$tmp/ttd.log")"
kill -0 $ttd 2>/dev/null && ok "still running after SIGHUP" || bad hup-alive

# hellos leave every second: two on X- by now, tagged (PCP 0: VC 0)
sleep 2.2
kill -TERM $ttd
wait $ttd; st=$?
pids=${pids% $ttd}
[ "$st" -eq 0 ] && grep -qx "STOPPING=1" "$tmp/notify.log" && ok "SIGTERM: STOPPING=1, exit 0" ||
    bad term "exit $st; $(cat "$tmp/notify.log")"
kill -INT $tdp; wait $tdp 2>/dev/null; pids=${pids% $tdp}
n=$(tcpdump -r "$tmp/c0Xm.pcap" -n -e 'vlan and ether proto 0x88b5' 2>/dev/null | wc -l)
untagged=$(tcpdump -r "$tmp/c0Xm.pcap" -n -e 'not vlan and ether proto 0x88b5' 2>/dev/null | wc -l)
[ "$n" -ge 2 ] && [ "$untagged" -eq 0 ] && ok "--pcp: $n hellos on X-, all 802.1Q-tagged" ||
    bad pcp "$n tagged, $untagged untagged"
[ -s "$tmp/traces/a-pe.pcap" ] && tcpdump -r "$tmp/traces/a-pe.pcap" >/dev/null 2>&1 &&
    ok "PE trace written and readable (no messages)" || bad pe-trace "$(ls -la "$tmp/traces")"

# a missing interface: refused before anything is opened
sed 's/c1Ym: Y-/c1Yq: Y-/' "$tmp/c.yaml" >"$tmp/bad.yaml"
ip netns exec "$ns" "$D" run -c "$tmp/bad.yaml" --node a --control "$tmp/ttd2.sock" 2>"$tmp/err"; st=$?
[ "$st" -eq 78 ] && grep -q "c1Yq: no such interface on this machine" "$tmp/err" &&
    ok "missing interface: exit 78 naming it" || bad missing-if "exit $st: $(cat "$tmp/err")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
