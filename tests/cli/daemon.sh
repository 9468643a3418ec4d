#!/usr/bin/env bash
# ttd run on one node, for what the testbed does not look at:
#   - the systemd notify protocol (READY=1 once running, RELOADING=1 then
#     READY=1 on SIGHUP, STOPPING=1 on SIGTERM), SIGUSR1's counters in the
#     log, the text status, --pcp (hellos leave with an 802.1Q tag) and a
#     refused start (an interface missing: exit 78 naming it);
#   - silent control-socket clients never stop forwarding;
#   - SIGHUP: the config is loaded beside the loop (status answers while
#     the file cannot be read yet), a change of the TAPs is refused with
#     "restart needed";
#   - a mixed flood (data, hellos good and bad, other EtherTypes, bad and
#     too long frames, from ports and from a TAP): every frame received is
#     counted once, received = forwarded + delivered + consumed + dropped
#     + queued, and the capture's own drops are shown;
#   - flapping hellos: a few log lines, then how many were suppressed;
#   - a full trace disk (a small tmpfs mounted under the test's temp
#     directory): seen, logged once, lost records counted, writing resumes,
#     the file reads back whole after SIGHUP and SIGTERM;
#   - --control and trace paths: only a stale socket is replaced, never a
#     file, a directory, a link or a live daemon's socket; a trace path
#     that is a link or a FIFO is refused; a host with "/" is refused;
#   - cards on two NUMA nodes (hwloc XML): a thread per card, each pinned
#     where its card is, frames across them, the balance held.
# One network namespace holds node (0,0) of a 2x2 twin torus: its ports
# are veth pairs whose far ends are its own other ports (X+ to X-, Y+ to
# Y-), so a frame sent out of c0Xm arrives on ttd's X+ port.  Frames come
# from build/tests/tbflood.  Needs root, ip, tcpdump, jq and python3 (the
# NOTIFY_SOCKET listener, the silent clients); otherwise SKIP.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
FL=$(tt_abs "${TBFLOOD:-build/tests/tbflood}")
needs_root ip tcpdump jq python3 mount
[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
[ -x "$FL" ] || skip_all "$FL not built (make build/tests/tbflood)"
ns=ttdd-$$
pids=""
cleanup() {
	stop_pids
	mountpoint -q "$tmp/small" && umount "$tmp/small"
	ip netns del "$ns" 2>/dev/null
}
inns() { ip netns exec "$ns" "$@"; }
# flood IFACE KIND COUNT: at 5,000 frames/s, well within what ttd keeps
# up with, so that its capture ring (a few hundred frames) never drops
flood() { inns "$FL" "$1" "$2" "$3" 5000 >/dev/null; }
st() { timeout 10 "$D" status --control "$tmp/ttd.sock" --json; }
# counters.KEY (a jq path under .counters) from a fresh status
ctr() { st | jq -r ".counters.$1"; }
# a check on the counters, as a jq expression over .counters
balance='.counters as $c | $c.received == ($c.forwarded + $c.delivered
    + $c.consumed.hello + $c.consumed.arp + $c.consumed.credit
    + ([$c.dropped[]] | add) + $c.queued)'

ip netns add "$ns" || skip_all "ip netns add failed"
# D on 2 dimensions is not a letter: best puts X on card0, Y on card1.
# The X cable takes frames past ttd's 9,216 bytes (too long for it); the
# traces go to a small tmpfs of the test's own, so that it can fill.
node_2x2 "$ns" "ttd$$p" "$tmp/small" 9500 1500 1500
mkdir -p "$tmp/small"
mount -t tmpfs -o size=4m,mode=0755 tmpfs "$tmp/small" || skip_all "cannot mount a tmpfs"
tap0=ttd$$p0 tap1=ttd$$p1
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
# no --backend: AF_XDP is tried, and refused here (c0Xp's MTU of 9,500
# does not fit a 4 KiB UMEM chunk): libpcap runs, and the log says why
grep -q 'backend: pcap: libpcap on each of the 6 ports (AF_XDP unavailable: c0Xp: MTU 9500: its frames would not fit a 4 KiB UMEM chunk' "$tmp/ttd.log" &&
    out=$(st) && jq -e '.backend == "pcap" and .flow == "lossless"' <<<"$out" >/dev/null &&
    ok "no --backend: pcap, and the log says why not xdp" || bad backend-auto "$(grep backend "$tmp/ttd.log")"
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

# ---- silent control clients: forwarding goes on ----
# Five clients connect and say nothing; each one the daemon closes is
# replaced at once.  Meanwhile 2,000 frames for PE 1 go in on X+: card 0
# sends them over the internal link, card 1 delivers them to its TAP.
# They must all reach the TAP while the silent clients are still held
# (a loop that waits on a client would take them 64 at a time, one batch
# per client it waits for).
cat >"$tmp/silent.py" <<'PY'
import socket, sys, time
path, n, flag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def one():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.setblocking(False)
    return s
held = [one() for _ in range(n)]
open(flag, "w").close()
while True:
    for i, s in enumerate(held):
        try:
            if s.recv(1) == b"":
                held[i] = one()
        except BlockingIOError:
            pass
    time.sleep(0.01)
PY
python3 "$tmp/silent.py" "$tmp/ttd.sock" 5 "$tmp/silent.up" &
silent=$!
pids="$pids $silent"
wait_for 5 test -e "$tmp/silent.up" || bad "silent clients did not connect"
rx_tap() { inns cat "/sys/class/net/$tap1/statistics/rx_packets"; }
rx0=$(rx_tap)
flood c0Xm data:2:1:0:1:200 2000
all_arrived() { [ $(($(rx_tap) - rx0)) -ge 2000 ]; }
if wait_for 20 all_arrived && kill -0 $silent 2>/dev/null; then
	ok "5 silent control clients: 2000 frames forwarded and delivered meanwhile"
else
	bad silent-clients "$(($(rx_tap) - rx0)) of 2000 delivered while the silent clients were held"
fi
out=$(st) && jq -e '.counters.delivered >= 2000' <<<"$out" >/dev/null &&
    ok "status answers with the silent clients connected" || bad status-silent "$out"
kill $silent; wait $silent 2>/dev/null; pids=${pids% $silent}

# ---- idle and slow control clients do not hold `ttd status` back ----
# IDLE clients connect and say nothing, SLOW ones send "status json" a
# byte every 0.3 s; each one closed connects again at once.  With them
# pressing, `ttd status` is timed three times: the slowest must answer
# within 1.5 s (a client that waited for the others' 2 s deadlines, slot
# batch after slot batch, took 4 s and more).
cat >"$tmp/press.py" <<'PY'
import socket, subprocess, sys, threading, time
path, idle, slow, ttd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
stop = False
def one():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
        return s
    except OSError:             # backlog full: try again later
        s.close()
        return None
def press():
    held = [None] * (idle + slow)
    sent = [0] * (idle + slow)
    last = time.time()
    while not stop:
        tick = time.time() - last >= 0.3
        if tick:
            last = time.time()
        for i in range(len(held)):
            if held[i] is None:
                held[i], sent[i] = one(), 0
                continue
            try:
                if held[i].recv(4096) == b"":
                    held[i].close()
                    held[i], sent[i] = one(), 0
                    continue
            except BlockingIOError:
                pass
            except OSError:
                held[i].close()
                held[i], sent[i] = one(), 0
                continue
            if i >= idle and tick and sent[i] < 12:
                try:
                    held[i].send(b"status json\n"[sent[i]:sent[i] + 1])
                    sent[i] += 1
                except OSError:
                    pass
        time.sleep(0.01)
t = threading.Thread(target=press)
t.start()
time.sleep(1)
worst = 0.0
for _ in range(3):
    t0 = time.time()
    r = subprocess.run([ttd, "status", "--control", path, "--json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    took = time.time() - t0
    if r.returncode != 0:
        took = 99.0
    worst = max(worst, took)
    time.sleep(0.2)
stop = True
t.join()
print("%.2f" % worst)
PY
for press in "20 5" "120 0"; do
	read -r nidle nslow <<<"$press"
	took=$(python3 "$tmp/press.py" "$tmp/ttd.sock" "$nidle" "$nslow" "$D")
	if awk -v t="$took" 'BEGIN { exit !(t < 1.5) }'; then
		ok "$nidle idle + $nslow slow control clients pressing: ttd status answers within $took s"
	else
		bad "status-pressed-$nidle-$nslow" "$nidle idle + $nslow slow control clients: ttd status took ${took:-?} s (at most 1.5)"
	fi
done

# ---- the mixed flood: every frame counted once ----
inns ip link set "$tap0" mtu 9500
n0=$(st) || bad status
flood c0Xm data:2:1:0:1:200 300           # for PE 1: forwarded, delivered
flood c0Xm data:2:0:0:1:200 300           # for PE 0: delivered
flood c0Xm data:2:99:0:1:200 30           # no such PE: no_route
flood c0Xm hello:1:0:0 40                 # a hello (the wrong neighbour)
flood c0Xm hello:1:0:5 25                 # port Z-: a 2D torus has none
flood c0Xm hello:1:1:0 25                 # X+ on card 1: best has it on card 0
flood c0Xm other:100 50                   # IPv4: another EtherType
flood c0Xm bad:80 60                      # our EtherType, a version from elsewhere
flood c0Xm data:2:0:0:1:9300 20           # cut at 9,216 bytes: too long
flood "$tap0" pe:0:1:300 100              # PE 0 to PE 1 over the internal link
flood "$tap0" arp:0:1 10                  # PE 0 asks for PE 1's address
flood "$tap0" pe:0:1:9300 5               # longer than a frame: too long
sleep 0.5
out=$(st)
d() { jq -r --argjson a "$n0" --argjson b "$out" -n "(\$b.counters.$1) - (\$a.counters.$1)"; }
if jq -e "$balance" <<<"$out" >/dev/null; then
	ok "after the flood: received $(jq .counters.received <<<"$out") = forwarded + delivered + consumed + dropped + queued"
else
	bad balance "$(jq -c .counters <<<"$out")"
fi
[ "$(d dropped.too_long)" = 25 ] && ok "too long (20 from a port, 5 from a TAP): too_long 25" ||
    bad too-long "too_long $(d dropped.too_long)"
[ "$(d dropped.bad_hello)" = 50 ] && [ "$(d consumed.hello)" -ge 40 ] &&
    ok "hellos naming a port the torus lacks: bad_hello 50; good ones consumed" ||
    bad bad-hello "bad_hello $(d dropped.bad_hello), consumed $(d consumed.hello)"
[ "$(d dropped.not_torus)" -ge 50 ] && [ "$(d dropped.bad_frame)" -ge 60 ] &&
    [ "$(d dropped.no_route)" = 30 ] && [ "$(d consumed.arp)" = 10 ] &&
    [ "$(d injected)" = 100 ] && [ "$(d delivered)" -ge 700 ] &&
    ok "other EtherTypes, bad frames, no route, ARP and PE frames each counted" ||
    bad reasons "$(jq -c .counters <<<"$out")"
jq -e '.capture.dropped >= 0 and .capture.ifdropped >= 0 and
    ([.ports[].capture_dropped] | length) == 6' <<<"$out" >/dev/null &&
    ok "status shows the capture ring's own drops (total $(jq .capture.dropped <<<"$out"))" ||
    bad capture-drops "$(jq -c .capture <<<"$out")"

# ---- flapping hellos: a few lines, then a count ----
before=$(grep -c 'cabling: (0,0)/c0 X+' "$tmp/ttd.log")
n0=$(st)
flood c0Xm flap:1:0:0 2000
sleep 0.5
out=$(st)
after=$(grep -c 'cabling: (0,0)/c0 X+' "$tmp/ttd.log")
[ $((after - before)) -le 5 ] && [ $(($(d consumed.hello) + $(jq -n --argjson a "$n0" --argjson b "$out" '$b.capture.dropped - $a.capture.dropped'))) -ge 2000 ] &&
    ok "2000 flapping hellos heard: $((after - before)) log lines" ||
    bad flap "$((after - before)) lines for X+, $(d consumed.hello) hellos heard"
t_flap=$SECONDS

# ---- SIGHUP: loaded beside the loop; a change of TAPs refused ----
cp "$tmp/c.yaml" "$tmp/c.yaml.orig"
rm "$tmp/c.yaml"; mkfifo "$tmp/c.yaml"
: >"$tmp/notify.log"
kill -HUP $ttd
wait_for 5 grep -qx "RELOADING=1" "$tmp/notify.log"
# the file cannot be read until someone writes the FIFO: the loop answers
out=$(st) && jq -e .counters <<<"$out" >/dev/null &&
    ! grep -qx "READY=1" "$tmp/notify.log" &&
    ok "SIGHUP: status answers while the config cannot be read yet" || bad reload-beside "$out"
timeout 10 sh -c 'cat "$1" > "$2"' sh "$tmp/c.yaml.orig" "$tmp/c.yaml"
rm -f "$tmp/c.yaml"; cp "$tmp/c.yaml.orig" "$tmp/c.yaml"
wait_for 10 grep -qx "READY=1" "$tmp/notify.log" && grep -q "config: reloaded" "$tmp/ttd.log" &&
    ok "then it loads: READY=1" || bad reload-ready "$(tail -3 "$tmp/ttd.log")"
sed 's/p%u"/q%u"/' "$tmp/c.yaml.orig" > "$tmp/c.yaml"
: >"$tmp/notify.log"
kill -HUP $ttd
wait_for 10 grep -qx "READY=1" "$tmp/notify.log" &&
    grep -q 'config: .*pes: changed .*: restart needed; not reloaded' "$tmp/ttd.log" &&
    ok "SIGHUP with other TAP names: refused, \"restart needed\"" || bad restart "$(tail -3 "$tmp/ttd.log")"
cp "$tmp/c.yaml.orig" "$tmp/c.yaml"

# ---- a full trace disk ----
pe=$tmp/small/a-pe.pcap
rec() { st | jq -r ".traces[0].$1"; }
r0=$(rec records)
dd if=/dev/zero of="$tmp/small/filler" bs=4k 2>/dev/null   # until full
flood c0Xm data:2:0:0:1:1000 400
sleep 0.5
out=$(st)
lost=$(jq -r '.traces[0].lost' <<<"$out")
[ "$lost" -gt 0 ] && [ "$(jq -r '.traces[0].failing' <<<"$out")" = true ] &&
    [ "$(grep -c 'capture: .*a-pe.pcap: write failed' "$tmp/ttd.log")" = 1 ] &&
    ok "disk full: seen, logged once, $lost records counted lost" ||
    bad full "$(jq -c '.traces[0]' <<<"$out"); $(grep capture: "$tmp/ttd.log" | head -3)"
r1=$(jq -r '.traces[0].records' <<<"$out")
records_in() { tcpdump -r "$1" -n 2>"$tmp/td.err" | grep -c '^[0-9]'; }
got=$(records_in "$pe")
[ "$got" = "$r1" ] && ! grep -qi 'truncated\|error' "$tmp/td.err" &&
    ok "while full the file reads back whole: $got records, as counted" ||
    bad full-file "$got records read, $r1 counted; $(cat "$tmp/td.err")"
rm "$tmp/small/filler"
flood c0Xm data:2:0:0:1:1000 50
sleep 0.5
out=$(st)
[ "$(jq -r '.traces[0].failing' <<<"$out")" = false ] &&
    [ "$(jq -r '.traces[0].records' <<<"$out")" -gt "$r1" ] &&
    grep -q 'capture: .*a-pe.pcap: writing again' "$tmp/ttd.log" &&
    ok "space back: writing resumes ($(jq -r '.traces[0].records' <<<"$out") records)" ||
    bad resume "$(jq -c '.traces[0]' <<<"$out")"
: >"$tmp/notify.log"
kill -HUP $ttd
wait_for 10 grep -qx "READY=1" "$tmp/notify.log"
flood c0Xm data:2:0:0:1:300 20
sleep 0.3
last=$(rec records)

# the suppressed hello lines are counted when their window ends
wait_for $((15 - (SECONDS - t_flap))) grep -q 'cabling: (0,0)/c0 X+ (c0Xp): [0-9]* more lines about its hellos suppressed' "$tmp/ttd.log" &&
    ok "the suppressed hello lines counted: $(grep -o '[0-9]* more lines about its hellos suppressed' "$tmp/ttd.log" | head -1)" ||
    bad flap-count "$(grep cabling "$tmp/ttd.log" | tail -3)"

# ---- --control: a live daemon's socket is not taken over ----
inns "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd.sock" 2>"$tmp/err2"; st2=$?
[ "$st2" -eq 1 ] && grep -q "answers there" "$tmp/err2" && st >/dev/null &&
    ok "a second ttd on the same --control: refused, the first still answers" ||
    bad live-socket "exit $st2: $(cat "$tmp/err2")"

# hellos leave every second: two on X- by now, tagged (PCP 0: VC 0)
kill -TERM $ttd
wait $ttd; st=$?
pids=${pids% $ttd}
[ "$st" -eq 0 ] && grep -qx "STOPPING=1" "$tmp/notify.log" && ok "SIGTERM: STOPPING=1, exit 0" ||
    bad term "exit $st; $(cat "$tmp/notify.log")"
[ ! -e "$tmp/ttd.sock" ] && ok "its own socket removed at exit" || bad sock-left "$(ls -la "$tmp")"
kill -INT $tdp; wait $tdp 2>/dev/null; pids=${pids% $tdp}
# (tbflood's own frames, from 02:00:00:00:00:0x, are not ttd's)
frames() { tcpdump -r "$tmp/c0Xm.pcap" -n "$1" 2>/dev/null | grep -c '^[0-9]'; }
n=$(frames 'vlan and ether proto 0x88b5')
untagged=$(frames 'not vlan and ether proto 0x88b5 and not ether src 02:00:00:00:00:00 and not ether src 02:00:00:00:00:01')
[ "$n" -ge 2 ] && [ "$untagged" -eq 0 ] && ok "--pcp: $n torus frames on X-, all 802.1Q-tagged" ||
    bad pcp "$n tagged, $untagged untagged"
got=$(records_in "$pe")
[ "$got" -ge "$last" ] && [ "$got" -gt "$r1" ] && ! grep -qi 'truncated\|error' "$tmp/td.err" &&
    ok "PE trace whole after full disk, SIGHUP and SIGTERM: $got records" ||
    bad pe-trace "$got records (counted $last): $(cat "$tmp/td.err")"
umount "$tmp/small"

# ---- a thread per card: cards on two NUMA nodes ----
# The hwloc XML of tests/data/hwloc/ puts card 0000:03:00 (ens1f0-3) on
# NUMA node 0, CPUs 0-3, and 0000:81:00 (ens2f0-3) on node 1, CPUs 4-7; a
# node without cards: is mapped from it (D: X+ X- Y+ internal on card 0).
# Interfaces of those names, joined X+ to X-, Y+ to Y-, Z+ to Z-, and the
# internal link.  Each card gets a thread; card 0's is pinned to those of
# CPUs 0-3 this machine has, and card 1's CPUs 4-7 are not here (when it
# has fewer than 5): that is said.
for pair in "ens1f0 ens1f1" "ens1f2 ens2f0" "ens2f1 ens2f2" "ens1f3 ens2f3"; do
	set -- $pair
	ip -n "$ns" link add "$1" type veth peer name "$2"
	ip -n "$ns" link set "$1" up
	ip -n "$ns" link set "$2" up
done
cat >"$tmp/numa.yaml" <<YAML
torus: {dims: [2, 2, 2], ports: D}
nodes:
  - host: b
    coord: [0, 0, 0]
pes: {tap: "ttn$$p%u"}
trace: {dir: $tmp/numa-tr}
YAML
ip netns exec "$ns" "$D" run -c "$tmp/numa.yaml" --node b --control "$tmp/numa.sock" \
    --hwloc-xml tests/data/hwloc/twin-nic-2numa.xml --backend pcap --log-level info 2>"$tmp/numa.log" &
p=$!
pids="$pids $p"
numa_up() { "$D" status --control "$tmp/numa.sock" >/dev/null 2>&1; }
wait_for 10 numa_up
if grep -q 'numa: a thread per card, each pinned to its card.s NUMA node' "$tmp/numa.log" &&
    wait_for 5 grep -q "numa: card 0's thread pinned to CPUs 0-3 (NUMA node 0)" "$tmp/numa.log" &&
    { [ "$(nproc)" -gt 4 ] || wait_for 5 grep -q "numa: card 1's thread not pinned: card 0000:81:00: none of its CPUs 4-7 is on this machine" "$tmp/numa.log"; } &&
    [ "$(ls /proc/$p/task | wc -l)" -ge 3 ]; then
	ok "cards on two NUMA nodes: a thread per card, each pinned where hwloc places its card"
else
	bad numa-threads "$(grep -E 'numa|start' "$tmp/numa.log")"
fi
# PE 0 to PE 1 crosses the internal link from one thread's card to the
# other's; status holds both threads and balances
rx0=$(inns cat "/sys/class/net/ttn$$p1/statistics/rx_packets")
inns "$FL" "ttn$$p0" pe:0:1:300 500 >/dev/null
numa_st() { "$D" status --control "$tmp/numa.sock" --json; }
numa_done() { out=$(numa_st) && jq -e '.counters.queued == 0 and .counters.delivered > 0' <<<"$out" >/dev/null; }
wait_for 5 numa_done
out=$(numa_st)
if jq -e '.threads == 2' <<<"$out" >/dev/null && jq -e "$balance" <<<"$out" >/dev/null &&
    [ "$(jq .counters.delivered <<<"$out")" = "$(jq .counters.injected <<<"$out")" ] &&
    [ $(($(inns cat "/sys/class/net/ttn$$p1/statistics/rx_packets") - rx0)) -ge "$(jq .counters.delivered <<<"$out")" ]; then
	ok "PE 0 to PE 1 across the threads: $(jq .counters.delivered <<<"$out") of $(jq .counters.injected <<<"$out") delivered, the balance holds"
else
	bad numa-forward "$(jq -c '{threads, counters}' <<<"$out")"
fi
kill -TERM $p; wait $p; st=$?; pids=${pids% $p}
[ "$st" -eq 0 ] && ok "a thread per card: SIGTERM, exit 0" || bad numa-term "exit $st"

# ---- refused starts ----
# --backend xdp where AF_XDP cannot run: exit 69 naming the port and why
inns "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd2.sock" --backend xdp 2>"$tmp/err"; st=$?
[ "$st" -eq 69 ] && grep -q -- "--backend xdp: c0Xp: MTU 9500: its frames would not fit a 4 KiB UMEM chunk (an MTU of at most 3822 does)" "$tmp/err" &&
    ok "--backend xdp on a port of MTU 9500: exit 69 naming it" || bad backend-xdp "exit $st: $(cat "$tmp/err")"
"$D" run -c "$tmp/c.yaml" --backend dpdk 2>"$tmp/err"; st=$?
[ "$st" -eq 64 ] && grep -q -- "--backend dpdk: expected xdp or pcap" "$tmp/err" &&
    ok "--backend dpdk: exit 64" || bad backend-flag "exit $st: $(cat "$tmp/err")"

# a missing interface: refused before anything is opened
sed 's/c1Ym: Y-/c1Yq: Y-/' "$tmp/c.yaml" >"$tmp/bad.yaml"
inns "$D" run -c "$tmp/bad.yaml" --node a --control "$tmp/ttd2.sock" 2>"$tmp/err"; st=$?
[ "$st" -eq 78 ] && grep -q "c1Yq: no such interface on this machine" "$tmp/err" &&
    ok "missing interface: exit 78 naming it" || bad missing-if "exit $st: $(cat "$tmp/err")"
# a host that would write outside trace.dir
sed 's/host: a/host: ..\/a/' "$tmp/c.yaml" >"$tmp/host.yaml"
inns "$D" run -c "$tmp/host.yaml" --node ../a --control "$tmp/ttd2.sock" 2>"$tmp/err"; st=$?
[ "$st" -eq 78 ] && grep -q 'host "../a" contains "/" or ".."' "$tmp/err" &&
    ok "host ../a: exit 78 naming it" || bad host "exit $st: $(cat "$tmp/err")"
# --control on what is not a stale socket: refused, left as it was
echo precious >"$tmp/file"
mkdir "$tmp/dir"
ln -s "$tmp/file" "$tmp/link"
for what in file dir link; do
	inns "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/$what" 2>"$tmp/err"; st=$?
	[ "$st" -eq 1 ] && grep -q "control socket $tmp/$what: .* is there; ttd replaces only a stale socket" "$tmp/err" &&
	    [ -e "$tmp/$what" ] && [ "$(cat "$tmp/file")" = precious ] &&
	    ok "--control on a $what: refused, left as it was" || bad "control-$what" "exit $st: $(cat "$tmp/err")"
done
# a trace path that is a link or a FIFO: refused
mkdir "$tmp/t2"
ln -s "$tmp/file" "$tmp/t2/a-pe.pcap"
inns "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd3.sock" --trace-dir "$tmp/t2" 2>"$tmp/err"; st=$?
[ "$st" -eq 1 ] && grep -q "a-pe.pcap: a symbolic link" "$tmp/err" && [ "$(cat "$tmp/file")" = precious ] &&
    [ ! -e "$tmp/ttd3.sock" ] && ok "trace path a link: refused, its target untouched" ||
    bad trace-link "exit $st: $(cat "$tmp/err")"
rm "$tmp/t2/a-pe.pcap"; mkfifo "$tmp/t2/a-pe.pcap"
inns "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/ttd3.sock" --trace-dir "$tmp/t2" 2>"$tmp/err"; st=$?
[ "$st" -eq 1 ] && grep -q "a-pe.pcap: not a regular file" "$tmp/err" &&
    ok "trace path a FIFO: refused" || bad trace-fifo "exit $st: $(cat "$tmp/err")"
# a stale socket (its daemon gone) is replaced; at exit ttd removes only
# the socket it made, not what was put there meanwhile
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$tmp/stale.sock"
ip netns exec "$ns" "$D" run -c "$tmp/c.yaml" --node a --control "$tmp/stale.sock" --trace-dir "$tmp/t3" 2>"$tmp/err" &
p=$!; pids="$pids $p"
wait_for 10 "$D" status --control "$tmp/stale.sock" >/dev/null 2>&1 &&
    ok "a stale socket at --control: replaced" || bad stale "$(cat "$tmp/err")"
rm "$tmp/stale.sock"; echo mine >"$tmp/stale.sock"
kill -TERM $p; wait $p; pids=${pids% $p}
[ "$(cat "$tmp/stale.sock")" = mine ] && ok "at exit, a file put in its socket's place is left alone" ||
    bad not-ours "$(ls -la "$tmp")"

finish
