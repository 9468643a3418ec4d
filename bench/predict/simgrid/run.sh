#!/bin/bash
# SimGrid SMPI's prediction of the cases it can express, on the testbed's
# 2x2x2 twin torus with a model file's bandwidth and latencies:
#
#   bench/predict/simgrid/run.sh [--json] MODEL.yaml
#   bench/predict/simgrid/run.sh [--json] --gbps G --hop-ns N [--send-ns S] [--recv-ns R]
#
# MODEL.yaml: the keys of `model: {link_gbps, link_ns, router_ns, send_ns,
# recv_ns, host_ns, shape_gbps}` (ttsim trace calibrate's output; block or
# flow style; shape_gbps, where present, is the links' bandwidth: SimGrid
# has no token bucket); the per-hop latency is link_ns + router_ns, and half of host_ns
# goes to each of send and receive.  platform.sh writes the platform
# (one host per PE, a link per port and direction, tt_route()'s paths).
#
# The cases, each the same program and arguments record.sh runs on the
# testbed (so the numbers compare with OUT/C/APP/run*/measured):
#   pingpong  pingpong.c (ours: sizes 1 B..64 KiB doubling, 5 round trips
#             each) on pe1 and pe14, five hops apart; its "total" line
#   halo      tests/testbed/mpihalo.c on the 16 PEs, -n 16 -i 20 -w 100;
#             its "wall"
# each under two network models: smpi (SimGrid's default for SMPI, with
# its bandwidth and latency factors) and cm02 (the plain links: bandwidth
# and latency as given, no factors).  Computation: SMPI times each block
# between MPI calls on this machine and charges it to the simulated host
# (smpi/host-speed = the hosts' 1 Gflop/s: simulated = measured).
#
# Prints "case model predicted_s" lines (or one JSON object); the
# programs' output and SimGrid's log go to $SG_WORK (default a temporary
# directory, kept with SG_KEEP=1).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
JSON=0 GBPS= HOP= SND=0 RCV=0 MODEL=
while [ $# -gt 0 ]; do
	case $1 in
	--json) JSON=1 ;;
	--gbps) GBPS=$2; shift ;;
	--hop-ns) HOP=$2; shift ;;
	--send-ns) SND=$2; shift ;;
	--recv-ns) RCV=$2; shift ;;
	-*) echo "usage: run.sh [--json] MODEL.yaml | --gbps G --hop-ns N [--send-ns S] [--recv-ns R]" >&2; exit 64 ;;
	*) MODEL=$1 ;;
	esac
	shift
done
for c in smpicc smpirun; do
	command -v $c >/dev/null || { echo "simgrid: $c is missing (simgrid, libsimgrid-dev)" >&2; exit 69; }
done

# key: value from the model file (anywhere: flow or block style)
model_key() {
	grep -v '^ *#' "$MODEL" | grep -o "\b$1 *: *[0-9.eE+-]*" | head -1 | sed 's/.*: *//'
}
if [ -n "$MODEL" ]; then
	[ -r "$MODEL" ] || { echo "simgrid: $MODEL: cannot read" >&2; exit 66; }
	# SimGrid's links have no token bucket: a shaped model's links get
	# the bucket's sustained rate (shape_gbps), their line rate otherwise
	GBPS=$(model_key shape_gbps)
	[ -n "$GBPS" ] || GBPS=$(model_key link_gbps)
	ln=$(model_key link_ns); rn=$(model_key router_ns)
	HOP=$(awk -v a="${ln:-0}" -v b="${rn:-0}" 'BEGIN {print a + b}')
	SND=$(model_key send_ns); SND=${SND:-0}
	RCV=$(model_key recv_ns); RCV=${RCV:-0}
	# the hosts' turnaround (outside a ttd trace), half at each end, as
	# ttsim's engine takes it (twintorus.yaml(5), host_ns)
	hn=$(model_key host_ns)
	SND=$(awk -v a="$SND" -v h="${hn:-0}" 'BEGIN {print a + h / 2}')
	RCV=$(awk -v a="$RCV" -v h="${hn:-0}" 'BEGIN {print a + h / 2}')
fi
[ -n "$GBPS" ] && [ -n "$HOP" ] || { echo "simgrid: no link_gbps / link_ns in the model (give MODEL.yaml or --gbps and --hop-ns)" >&2; exit 65; }

W=${SG_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/simgrid.XXXXXX")}
mkdir -p "$W"
[ -n "${SG_KEEP:-}" ] || [ -n "${SG_WORK:-}" ] || trap 'rm -rf "$W"' EXIT
"$HERE/platform.sh" "$GBPS" "$HOP" "$SND" "$RCV" > "$W/platform.xml" || exit 1
smpicc -O2 -o "$W/pingpong" "$HERE/pingpong.c" > "$W/build.log" 2>&1 &&
    smpicc -O2 -o "$W/mpihalo" "$ROOT/tests/testbed/mpihalo.c" >> "$W/build.log" 2>&1 ||
    { echo "simgrid: smpicc failed:" >&2; tail -5 "$W/build.log" >&2; exit 1; }
for p in $(seq 0 15); do echo "pe$p"; done > "$W/hosts16"
printf 'pe1\npe14\n' > "$W/hosts-pp"

# sg NAME MODEL NP HOSTFILE CMD...: one simulation; prints the output file
sg() {
	local name=$1 net=$2 np=$3 hosts=$4 cfg
	shift 4
	case $net in
	smpi) cfg=() ;;
	cm02) cfg=(--cfg=network/model:CM02) ;;
	esac
	(cd "$W" && timeout 600 smpirun -np "$np" -platform "$W/platform.xml" -hostfile "$hosts" \
	    --cfg=smpi/host-speed:1Gf "${cfg[@]}" --log=root.thres:warning "$@") \
	    > "$W/$name-$net.out" 2> "$W/$name-$net.err"
}

res=()
for net in smpi cm02; do
	sg pingpong $net 2 "$W/hosts-pp" "$W/pingpong" -l 1 -u 65536 -n 5
	t=$(sed -n 's/^pingpong: total \([0-9.e+-]*\) s.*/\1/p' "$W/pingpong-$net.out")
	res+=("pingpong $net ${t:-failed}")
	sg halo $net 16 "$W/hosts16" "$W/mpihalo" -n 16 -i 20 -w 100
	t=$(sed -n 's/^mpihalo: .* wall \([0-9.e+-]*\) s.* ok$/\1/p' "$W/halo-$net.out")
	res+=("halo $net ${t:-failed}")
done
if [ $JSON = 1 ]; then
	printf '%s\n' "${res[@]}" | jq -R -s --arg gbps "$GBPS" --arg hop "$HOP" --arg snd "$SND" --arg rcv "$RCV" '
	    {link_gbps: ($gbps | tonumber), hop_ns: ($hop | tonumber), send_ns: ($snd | tonumber), recv_ns: ($rcv | tonumber),
	     cases: [split("\n")[] | select(length > 0) | split(" ") | {case: .[0], model: .[1], predicted_s: (.[2] | tonumber? // null)}]}'
else
	echo "# SimGrid $(smpirun --version 2>&1 | head -1 | awk '{print $NF}'): $GBPS Gb/s, $HOP ns a hop, send $SND ns, receive $RCV ns"
	printf '%s\n' "${res[@]}"
fi
printf '%s\n' "${res[@]}" | grep -q failed && { echo "simgrid: a case failed; see $W" >&2; exit 1; }
exit 0
