#!/bin/bash
# A soak of ttd on the testbed: the 2x2x2 twin torus of tests/testbed/
# (one ttd per node, in network namespaces), run for SECONDS (600) under
#   - mixed traffic: pings between PE pairs at 100/s each, and a 1 MiB TCP
#     stream checked byte for byte (tbstream) every 2 s;
#   - hostile frames into node 1's ports (sent from node 0's side of
#     their cables): malformed, other EtherTypes, longer than ttd's 9,216
#     bytes, for PEs that do not exist, at the hop limit, spoofed hellos
#     naming ports the torus lacks, flapping hellos;
#   - control-socket clients on every node: silent ones that hold a slot,
#     garbage requests, and `ttd status --json` asked in a loop;
#   - a SIGHUP to every daemon every 5 s.
# For each daemon, at the start and at the end: its RSS, its open file
# descriptors and the balance of its counters (received = forwarded +
# delivered + consumed (hellos, ARP, credit frames) + dropped + queued),
# with the capture's own drops and the credit frames it sent and consumed.
# At the end every ttd gets SIGTERM and must exit 0, and every trace must
# read back whole.  Prints a table for bench/RESULTS.md.
#
# The daemons run as ttd runs by default, lossless (credits), with the
# backend BACKEND: pcap (libpcap) or xdp (AF_XDP; the ports' MTU is then
# 3000, as the testbed's xdp runs, so the hostile frames longer than ttd's
# 9,216 bytes are left out: no 4 KiB UMEM chunk could carry them).
# SOAK_TTD_ARGS adds to ttd's arguments (e.g. --lossy, --threads card).
#
#   bash bench/soak.sh [SECONDS [pcap|xdp]]     (root; builds what it needs)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-600}
BACKEND=${2:-pcap}
case $BACKEND in
pcap) ;;
xdp) export TB_MTU=3000 ;;
*) echo "soak: backend '$BACKEND': pcap or xdp" >&2; exit 2 ;;
esac
case $SECS in
''|*[!0-9]*) echo "soak: SECONDS '$SECS': a whole number of seconds" >&2; exit 2 ;;
esac
TB_TTD_ARGS="--backend $BACKEND ${SOAK_TTD_ARGS:-}"
make -C "$ROOT" --no-print-directory -s all build/tests/tbroute build/tests/tbstream \
    build/tests/tbflood >/dev/null || exit 1
. "$ROOT/tests/testbed/lib.sh"
TBFLOOD=$ROOT/build/tests/tbflood
why=$(tb_why_not); [ -z "$why" ] || { echo "soak: cannot run: $why" >&2; exit 69; }
command -v python3 >/dev/null || { echo "soak: python3 is missing" >&2; exit 69; }
tb_init

# one daemon's figures: "rss_kib/anon_kib fds received accounted capture_drops
# credits_sent credits_consumed credits_refused flow backend"; every kind of
# consumed frame (hellos, ARP, credit frames) is in the balance, and credit
# frames refused (every credit_* drop) are in the dropped
figures() {
	local n=$1 pid out
	pid=$(tb_ttd_pid "$n")
	out=$(tb_status "$n" 2>/dev/null) || { echo "- - - - - - - - - -"; return; }
	# RSS as all/anonymous: file pages (the binary, libraries) may be
	# reclaimed under memory pressure; anonymous ones are what a leak
	# would grow
	printf '%s %s %s\n' "$(awk '/^VmRSS/ {r = $2} /^RssAnon/ {a = $2} END {print r "/" a}' "/proc/$pid/status")" \
	    "$(ls "/proc/$pid/fd" | wc -l)" \
	    "$(jq -r '.counters as $c | "\($c.received) \($c.forwarded + $c.delivered +
	        ([$c.consumed[]] | add) + ([$c.dropped[]] | add) + $c.queued)
	        \(.capture.dropped + .capture.ifdropped) \($c.credits_sent)
	        \($c.consumed.credit) \([$c.dropped | to_entries[] |
	        select(.key | startswith("credit_")) | .value] | add // 0) \(.flow) \([.ports[].backend] | unique | join("+") | gsub(" "; "_"))"' \
	        <<<"$out" | tr '\n' ' ')"
}

# ---- the torus and its daemons ----
tb_layout 2,2,2 D && tb_build || { echo "soak: cannot build the torus" >&2; exit 1; }
tb_yaml "$TB_TMP/soak.yaml" "  ports: true
"
# every trace file traced, rotated at 20 MiB: disk use stays bounded
sed -i 's/rotate_mb: 1000/rotate_mb: 20/' "$TB_TMP/soak.yaml"
# the cable from node 0's X+ to node 1's X- takes frames longer than
# ttd's snap length
c=(${TB_CABLES[0]})
LONG=data:0:0:0:1:9300
if [ "$BACKEND" = pcap ]; then
	ip -n "$(tb_node_ns "${c[0]}")" link set "c${TB_SIDE[${c[1]}]}${c[1]}" mtu 9500
	ip -n "$(tb_node_ns "${c[2]}")" link set "c${TB_SIDE[${c[3]}]}${c[3]}" mtu 9500
else
	LONG=		# AF_XDP: a frame must fit a 4 KiB chunk
fi
HOSTILE_NS=$(tb_node_ns "${c[0]}") HOSTILE_IF=c${TB_SIDE[${c[1]}]}${c[1]}
VICTIM=${c[2]}
tb_ttd_start "$TB_TMP/soak.yaml" "$TB_TMP/traces" || { echo "soak: ttd did not start" >&2; exit 1; }
echo "soak: $(date -u '+%Y-%m-%d %H:%M UTC'), $SECS s, backend $BACKEND, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ttd $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)"
# the credits need a few rounds to be granted: the first figures after
# them, so that the start's balance is not taken mid-introduction
sleep 2
for ((n = 0; n < TB_NNODES; n++)); do figures $n > "$TB_TMP/start.$n"; done
read -r _ _ _ _ _ _ _ _ flow0 mode0 < "$TB_TMP/start.0"
echo "soak: ttd runs $flow0, ports $mode0"

# ---- the load ----
end=$((SECONDS + SECS))
for s in 0 5 10 13; do
	d=$(( (s + 7) % TB_NPES ))
	ip netns exec "$(tb_pe_ns $s)" ping -n -q -i 0.01 -w "$SECS" "$(tb_pe_addr $d)" >/dev/null 2>&1 &
	TB_PIDS+=($!)
done
(
	ok=0 bad=0 k=0
	: > "$TB_TMP/bulk.fail"
	while [ $SECONDS -lt $end ]; do
		ip netns exec "$(tb_pe_ns 15)" timeout 30 "$TBSTREAM" recv "$(tb_pe_addr 15)" 5001 \
		    > "$TB_TMP/bulk.out" 2>"$TB_TMP/bulk.rerr" &
		r=$!
		# the receiver listening first (2 s at most): a stream that
		# found nobody there is not one ttd lost
		for ((k = 0; k < 20; k++)); do
			[ -n "$(ip netns exec "$(tb_pe_ns 15)" ss -Hltn 'sport = :5001' 2>/dev/null)" ] && break
			sleep 0.1
		done
		ip netns exec "$(tb_pe_ns 0)" timeout 30 "$TBSTREAM" send "$(tb_pe_addr 15)" 5001 1048576 \
		    2>"$TB_TMP/bulk.serr"
		sst=$?
		wait $r
		rst=$?
		if grep -q '^1048576 ok' "$TB_TMP/bulk.out"; then ok=$((ok + 1)); else
			bad=$((bad + 1))
			echo "at $((SECONDS - end + SECS)) s: send exit $sst ($(head -c 200 "$TB_TMP/bulk.serr")), recv exit $rst ($(head -c 200 "$TB_TMP/bulk.rerr") $(head -c 100 "$TB_TMP/bulk.out"))" >> "$TB_TMP/bulk.fail"
		fi
		sleep 2
	done
	echo "$ok $bad" > "$TB_TMP/bulk.result"
) &
TB_PIDS+=($!)
(
	h() { ip netns exec "$HOSTILE_NS" "$TBFLOOD" "$HOSTILE_IF" "$@" 2000 >/dev/null 2>&1; }
	while [ $SECONDS -lt $end ]; do
		h bad:80 200
		h other:120 200
		[ -z "$LONG" ] || h $LONG 50
		h data:0:99:0:1:200 100
		h data:0:4:0:64:200 100
		h hello:1:0:9 100
		h hello:$((TB_NNODES + 3)):0:0 100
		h flap:0:0:0 400
		sleep 1
	done
) &
TB_PIDS+=($!)
cat > "$TB_TMP/clients.py" <<'PY'
import socket, sys, time
path, until = sys.argv[1], time.time() + float(sys.argv[2])
def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.setblocking(False)
    return s
silent, asked = [connect() for _ in range(3)], 0
while time.time() < until:
    for i, s in enumerate(silent):
        try:
            if s.recv(1) == b"":
                silent[i] = connect()
        except BlockingIOError:
            pass
        except OSError:
            silent[i] = connect()
    for req in (b"status json\n", b"\x1b[2J" * 30 + b"\n", b"stat\x00us\n", b"x" * 200):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(path)
            s.sendall(req)
            while s.recv(65536):
                pass
            asked += 1
        except OSError:
            pass
        s.close()
    time.sleep(0.05)
print(asked)
PY
for ((n = 0; n < TB_NNODES; n++)); do
	python3 "$TB_TMP/clients.py" "$(tb_sock $n)" "$SECS" > "$TB_TMP/clients.$n" 2>&1 &
	TB_PIDS+=($!)
done
hups=0
while [ $SECONDS -lt $end ]; do
	sleep 5
	for ((n = 0; n < TB_NNODES; n++)); do kill -HUP "$(tb_ttd_pid $n)"; done
	hups=$((hups + 1))
done
sleep 2
for ((n = 0; n < TB_NNODES; n++)); do figures $n > "$TB_TMP/end.$n"; done

# ---- the figures ----
echo "SIGHUPs per daemon: $hups; bulk streams ok/failed: $(cat "$TB_TMP/bulk.result" 2>/dev/null || echo '? ?')"
[ -s "$TB_TMP/bulk.fail" ] && sed 's/^/failed stream /' "$TB_TMP/bulk.fail" | head -5
echo "| node | RSS KiB all/anon start -> end | open fds start -> end | received (end) | balance start / end | credit frames sent / consumed / refused (end) | capture drops (end) | hellos suppressed lines | control requests |"
echo "|---|---|---|---|---|---|---|---|---|"
fail=0
for ((n = 0; n < TB_NNODES; n++)); do
	read -r r0 f0 rc0 ac0 cd0 _ _ _ fl0 _ < "$TB_TMP/start.$n"
	read -r r1 f1 rc1 ac1 cd1 cs1 cc1 cr1 fl1 _ < "$TB_TMP/end.$n"
	b0=$([ "$rc0" = "$ac0" ] && echo holds || echo "BROKEN $rc0 != $ac0")
	b1=$([ "$rc1" = "$ac1" ] && echo holds || echo "BROKEN $rc1 != $ac1")
	[ "$rc1" = "$ac1" ] && [ "$rc0" = "$ac0" ] && [ "$rc1" != - ] || fail=1
	[ "$f0" = "$f1" ] || fail=1
	# a lossless daemon (the default) must have had its credits flowing
	if [ "$fl1" != lossy ]; then
		[ "$fl1" = lossless ] && [ "$cc1" -gt 0 ] 2>/dev/null || fail=1
	fi
	printf '| n%d | %s -> %s | %s -> %s | %s | %s / %s | %s / %s / %s | %s | %s | %s |\n' $n "$r0" "$r1" "$f0" "$f1" \
	    "$rc1" "$b0" "$b1" "$cs1" "$cc1" "$cr1" "$cd1" "$(grep -c 'suppressed in' "$TB_TMP/n$n.log")" \
	    "$(tail -1 "$TB_TMP/clients.$n")"
done
kill "${TB_PIDS[@]:$TB_NNODES}" 2>/dev/null
if tb_ttd_stop; then echo "SIGTERM: every ttd exited 0"; else echo "SIGTERM: a ttd did not exit 0"; fail=1; fi
bad=0
for f in "$TB_TMP"/traces/*.pcap*; do
	tcpdump -nr "$f" >/dev/null 2>"$TB_TMP/td.err" && ! grep -qi 'truncated' "$TB_TMP/td.err" || {
		bad=$((bad + 1)); echo "unreadable: $(basename "$f"): $(tail -1 "$TB_TMP/td.err")"; }
done
echo "traces: $(ls "$TB_TMP"/traces | wc -l) files, $bad unreadable, $(du -sh "$TB_TMP/traces" | cut -f1)"
[ $bad -eq 0 ] || fail=1
exit $fail
