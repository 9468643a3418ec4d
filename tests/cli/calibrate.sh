#!/usr/bin/env bash
# ttsim trace calibrate against known hardware: ttsim app pingpong records,
# as ttd would (node clocks offset by up to 0.5 ms), one pair of PEs at a
# time on a 2x2x2 twin torus at 25 Gb/s with router latency 2 and link
# latency 3 cycles (16-byte flits: one cycle 5.12 ns, one hop (R+L) 25.6
# ns), at 1, 2 and 4 hops and four sizes (64 B .. 16 KiB); the model fitted
# from those recordings must give
#   - link_gbps within 1% of 25 and router_ns + link_ns within 2% of 25.6;
#   - latencies from round trips (the clocks differ), a residual under 1%;
#   - a model: fragment with every key, written atomically with -o;
#   - --json with the parameters, their sources and the residual;
#   - store-and-forward: ping-pongs recorded through a store_forward model
#     give back its latency line (link rate, per hop, base) and a model
#     with store_forward: true (and host_ns) that the engine runs;
# and one clear message with exit 2 for: no traces, no frame matched, too
# few frames, one frame size only, a cluster file the trace does not fit
# (a PE out of range), no cluster file, and an -o that cannot be written.
# A few seconds.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = (a - b) / b * 100; exit !(d <= p && d >= -p) }'; }

cat >"$tmp/c.yaml" <<'EOF'
torus: {dims: [2, 2, 2], twin: true, ports: best, deadlock: vc}
network: {link_gbps: 25, flit_bytes: 16, packet_flits: 4}
EOF
mkdir "$tmp/rec"
rec_ok=1
for pair in 0,1 0,9 0,15; do
	for b in 64 1024 4096 16384; do
		"$T" app pingpong --dims 2,2,2 --link-gbps 25 --router-latency 2 \
		    --link-latency 3 --ranks "$pair" --bytes "$b" --iterations 6 \
		    --record "$tmp/rec/p$pair-$b" >/dev/null 2>"$tmp/err" ||
		    { rec_ok=0; bad "record pair $pair, $b bytes" "$(cat "$tmp/err")"; }
	done
done
[ "$rec_ok" = 1 ] && ok "recorded 12 ping-pongs (3 distances x 4 sizes)"

# ---- the fit ----
"$T" trace calibrate "$tmp"/rec/* "$tmp/c.yaml" -o "$tmp/m.yaml" >"$tmp/out" 2>"$tmp/err"
st=$?
[ "$st" -eq 0 ] && ok "calibrate exits 0" || bad "calibrate exit $st" "$(cat "$tmp/err")"
[ -s "$tmp/m.yaml" ] && ok "-o wrote the model" || bad "-o wrote nothing"
val() { sed -n "s/^  $1: //p" "$tmp/m.yaml"; }
for k in link_gbps router_ns link_ns send_ns recv_ns vc_bytes internal_vc_bytes flit_bytes packet_flits; do
	[ -n "$(val $k)" ] || bad "model key $k" "$(cat "$tmp/m.yaml")"
done
grep -q '^model:$' "$tmp/m.yaml" && ok "model: section with every key" ||
    bad "no model: line" "$(cat "$tmp/m.yaml")"
g=$(val link_gbps)
hop=$(awk -v r="$(val router_ns)" -v l="$(val link_ns)" 'BEGIN { print r + l }')
within "$g" 25 1 && ok "link_gbps $g (true 25, within 1%)" ||
    bad "link_gbps $g, true 25" "$(cat "$tmp/out")"
within "$hop" 25.6 2 && ok "per hop $hop ns (true 25.6, within 2%)" ||
    bad "per hop $hop ns, true 25.6" "$(cat "$tmp/out")"
[ "$(val vc_bytes)" = 65536 ] && [ "$(val flit_bytes)" = 16 ] &&
    [ "$(val packet_flits)" = 4 ] && ok "buffers ttd's default, granularity the file's" ||
    bad "buffers or granularity" "$(cat "$tmp/m.yaml")"
grep -q 'round trips, clock-offset free' "$tmp/out" && ok "round trips used (node clocks differ)" ||
    bad "round trips not used" "$(cat "$tmp/out")"

"$T" trace calibrate "$tmp"/rec/* "$tmp/c.yaml" --json >"$tmp/j" 2>"$tmp/err"
st=$?
if [ "$st" -eq 0 ] && jq -e '.parameters.link_gbps.value and .parameters.router_ns.source
    and .residual.median_rel < 0.01 and .residual.p90_rel < 0.01 and .frames_used >= 100
    and .fit.latencies == "round_trip" and (.fit.hop_fitted == true)
    and (.parameters | keys | length == 11) and .parameters.store_forward.value == false
    and .fit.store_forward == false' "$tmp/j" >/dev/null; then
	ok "--json: parameters with sources, residual $(jq -r '.residual.median_rel' "$tmp/j"), $(jq .frames_used "$tmp/j") frames"
else
	bad "--json (exit $st)" "$(cat "$tmp/err" "$tmp/j")"
fi
# no TCP in ttsim's own recordings: no framing keys
grep -q 'segment_bytes\|header_bytes' "$tmp/m.yaml" && bad "framing keys without TCP" "$(cat "$tmp/m.yaml")" ||
    ok "no framing keys where no TCP frame was recorded"
# a real capture (traces/captured/mpihalo-2x2x2: ttd on the testbed, Open
# MPI 4.1 over TCP): each halo message one segment of 1,024 bytes of data
# and Open MPI's 22-byte header, every frame 66 bytes of Ethernet, IPv4
# and TCP (with timestamps) headers (traces/README.md)
printf 'torus: {dims: [2, 2, 2], twin: true, ports: D, deadlock: vc}\n' >"$tmp/c222.yaml"
if "$T" trace calibrate "$tt_top/traces/captured/mpihalo-2x2x2" "$tmp/c222.yaml" --json >"$tmp/j" 2>"$tmp/err" &&
    jq -e '.parameters.segment_bytes.value == 1046 and .parameters.frame_header_bytes.value == 66
    and .parameters.message_header_bytes.value == 22' "$tmp/j" >/dev/null; then
	ok "a real capture's framing: 1046-byte segments, 66-byte frame headers, Open MPI's 22-byte message header"
else
	bad "framing of traces/captured/mpihalo-2x2x2" "$(cat "$tmp/err"; jq -c '.parameters' "$tmp/j" 2>/dev/null)"
fi
"$T" trace calibrate --help >"$tmp/help" 2>&1 && grep -q -- '--quantile' "$tmp/help" &&
    ok "--help exits 0" || bad "--help" "$(cat "$tmp/help")"

# ---- store-and-forward (ttd's switching) closes the loop ----
# ping-pongs recorded through a store-and-forward model (one packet a
# message: 1 KiB packets, messages of 64 B .. 1 KiB, 16-byte flits at 25
# Gb/s: one cycle 5.12 ns; R 2, L 3 cycles; send 10 cycles): the engine's
# latency (H+1)(R+L) + L + f - 1 + H(f - 1) + send cycles is the line
#   base + H * hop + (H + 1) * bytes * 8 / link_gbps
# with hop = R + L - 1 cycles = 20.48 ns and base = R + 2L - 1 cycles +
# send = 35.84 + 51.2 ns, whatever granularity the fit chooses.
cat >"$tmp/saf-truth.yaml" <<'EOF'
model:
  link_gbps: 25
  flit_bytes: 16
  packet_flits: 64
  router_ns: 10.24
  link_ns: 15.36
  send_ns: 51.2
  recv_ns: 0
  store_forward: true
EOF
mkdir "$tmp/saf"
rec_ok=1
for pair in 0,1 0,9 0,15; do
	for b in 64 256 512 1024; do
		"$T" app pingpong --dims 2,2,2 --model "$tmp/saf-truth.yaml" \
		    --ranks "$pair" --bytes "$b" --iterations 6 \
		    --record "$tmp/saf/p$pair-$b" >/dev/null 2>"$tmp/err" ||
		    { rec_ok=0; bad "record SAF pair $pair, $b bytes" "$(cat "$tmp/err")"; }
	done
done
[ "$rec_ok" = 1 ] && ok "recorded 12 store-and-forward ping-pongs"
"$T" trace calibrate "$tmp"/saf/* "$tmp/c.yaml" -o "$tmp/saf.yaml" --json >"$tmp/j" 2>"$tmp/err"
st=$?
if [ "$st" -eq 0 ] && jq -e '.fit.store_forward == true and .parameters.store_forward.value == true
    and .fit.latencies == "round_trip" and .residual.median_rel < 0.01' "$tmp/j" >/dev/null &&
    within "$(jq .fit.link_gbps "$tmp/j")" 25 1 && within "$(jq .fit.hop_ns "$tmp/j")" 20.48 2 &&
    within "$(jq .fit.base_ns "$tmp/j")" 87.04 2; then
	ok "store-and-forward recovered: $(jq -r '"\(.fit.link_gbps) Gb/s, hop \(.fit.hop_ns) ns (20.48), base \(.fit.base_ns) ns (87.04)"' "$tmp/j")"
else
	bad "store-and-forward fit (exit $st)" "$(cat "$tmp/err" "$tmp/j")"
fi
grep -q '^  store_forward: true$' "$tmp/saf.yaml" && grep -q '^  host_ns: ' "$tmp/saf.yaml" &&
    ok "-o: store_forward: true and host_ns (tt_model_write)" ||
    bad "-o store_forward/host_ns" "$(cat "$tmp/saf.yaml")"
# the written model loads and drives the engine
"$T" app pingpong --dims 2,2,2 --model "$tmp/saf.yaml" --ranks 0,9 --bytes 512 \
    --iterations 2 >/dev/null 2>"$tmp/err" && ok "the fitted model runs" ||
    bad "the fitted model does not run" "$(cat "$tmp/err")"
"$T" trace calibrate "$tmp"/saf/* "$tmp/c.yaml" --cut-through --json >"$tmp/j" 2>"$tmp/err"
jq -e '.fit.store_forward == false and .residual.median_rel > 0.01' "$tmp/j" >/dev/null &&
    ok "--cut-through fits worse on a store-and-forward recording" ||
    bad "--cut-through" "$(cat "$tmp/err" "$tmp/j")"

# ---- errors: exit 2, one message ----
# fails NAME PATTERN ARGS...: exit 2 and PATTERN in the message
fails() {
	local name=$1 pat=$2 st
	shift 2
	"$T" trace calibrate "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ "$st" -eq 2 ] && grep -q -- "$pat" "$tmp/e"; then
		ok "error: $name"
	else
		bad "error: $name (exit $st)" "$(cat "$tmp/e" "$tmp/o")"
	fi
}
mkdir "$tmp/empty"
fails "no traces" "no trace files" "$tmp/empty" "$tmp/c.yaml"
fails "no frame matched" "no delivery copy matched its send" \
    "$tmp/rec/p0,9-64/n0-pe.pcap" "$tmp/c.yaml"
"$T" app pingpong --dims 2,2,2 --ranks 0,9 --iterations 2 --record "$tmp/few" >/dev/null 2>&1
fails "too few frames" "too few frames to fit: 4, at least 10 needed" "$tmp/few" "$tmp/c.yaml"
fails "one size" "needs frames of at least two sizes" "$tmp/rec/p0,9-64" "$tmp/c.yaml"
fails "PE out of range" "destination PE 9 is out of range: the cluster file has 8 PEs" \
    "$tmp/rec/p0,9-64" --dims 2,2
fails "no cluster file" "give the recording's cluster file" "$tmp/rec/p0,9-64"
"$T" trace synth --dims 2,2,2 --app stencil -o "$tmp/syn.pcap" >/dev/null 2>&1
fails "sends only" "no delivery copies" "$tmp/syn.pcap" "$tmp/c.yaml"
rm -f "$tmp/m.yaml"
fails "-o unwritable" "cannot create" "$tmp"/rec/* "$tmp/c.yaml" -o "$tmp/nodir/m.yaml"
[ ! -e "$tmp/nodir" ] && ok "nothing written on failure" || bad "a file was left"

finish
