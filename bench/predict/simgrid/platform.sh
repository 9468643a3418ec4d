#!/bin/bash
# A SimGrid platform (XML, DTD 4.1) of the testbed's 2x2x2 twin torus:
#
#   bench/predict/simgrid/platform.sh GBPS HOP_NS SEND_NS RECV_NS > platform.xml
#
# One host per PE (pe0..pe15, 1 Gflop/s: run.sh tells SMPI the same speed
# for the machine it runs on, so a computation takes the time it measures).
# One link per port and direction, as the testbed has them: every node's
# six cable ends and both ends of its internal link (n<node>-c<card>-<port>:
# what that card sends on that port), each GBPS Gb/s with a latency of
# HOP_NS (link + router, one hop), shared by the flows that cross it.  A
# PE reaches its card through pe<p>-tx (latency SEND_NS) and is reached
# through pe<p>-rx (RECV_NS), both 1000 Gb/s (the TAP is no bottleneck).
# Routes: "Full" routing with, for every ordered PE pair, the links of
# tt_route()'s path (tbroute paths: the same hops ttd forwards on), so
# SimGrid sends each message on the path the testbed does.
set -eu
[ $# = 4 ] || { echo "usage: platform.sh GBPS HOP_NS SEND_NS RECV_NS" >&2; exit 64; }
GBPS=$1 HOP_NS=$2 SEND_NS=$3 RECV_NS=$4
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TBROUTE=${TBROUTE:-$ROOT/build/tests/tbroute}
[ -x "$TBROUTE" ] || { echo "platform.sh: $TBROUTE is not built (make build/tests/tbroute)" >&2; exit 69; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'torus: {dims: [2,2,2], ports: D, deadlock: vc}\n' > "$tmp/torus.yaml"
"$TBROUTE" paths "$tmp/torus.yaml" > "$tmp/paths"
"$TBROUTE" layout "$tmp/torus.yaml" > "$tmp/layout"

awk -v gbps="$GBPS" -v hop="$HOP_NS" -v snd="$SEND_NS" -v rcv="$RECV_NS" '
FNR == NR { if ($1 == "port") ports[$2] = ports[$2] " " $3; if ($1 == "node") nodes++; next }
FNR == 1 {
	print "<?xml version=\"1.0\"?>"
	print "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
	print "<!-- the testbed 2x2x2 twin torus: " gbps " Gb/s per link, " hop " ns a hop, send " snd " ns, receive " rcv " ns (bench/predict/simgrid/platform.sh) -->"
	print "<platform version=\"4.1\">"
	print "  <zone id=\"twintorus\" routing=\"Full\">"
	for (p = 0; p < 2 * nodes; p++) print "    <host id=\"pe" p "\" speed=\"1Gf\"/>"
	for (p = 0; p < 2 * nodes; p++) {
		printf "    <link id=\"pe%d-tx\" bandwidth=\"1000Gbps\" latency=\"%sns\"/>\n", p, snd
		printf "    <link id=\"pe%d-rx\" bandwidth=\"1000Gbps\" latency=\"%sns\"/>\n", p, rcv
	}
	for (n = 0; n < nodes; n++)
		for (c = 0; c < 2; c++) {
			k = split(ports[c], pl, " ")
			for (i = 1; i <= k; i++)
				printf "    <link id=\"n%d-c%d-%s\" bandwidth=\"%sGbps\" latency=\"%sns\"/>\n", n, c, pl[i], gbps, hop
		}
}
{
	printf "    <route src=\"pe%d\" dst=\"pe%d\" symmetrical=\"NO\"><link_ctn id=\"pe%d-tx\"/>", $1, $2, $1
	for (i = 3; i <= NF; i++) { split($i, h, "."); printf "<link_ctn id=\"n%s-c%s-%s\"/>", h[1], h[2], h[3] }
	printf "<link_ctn id=\"pe%d-rx\"/></route>\n", $2
}
END { print "  </zone>"; print "</platform>" }' "$tmp/layout" "$tmp/paths"
