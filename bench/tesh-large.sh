#!/usr/bin/env bash
# The largest 3D-TESH networks of Faisal's thesis, built and simulated:
# tesh:m=2,L=4,q=0 (262,144 nodes) and tesh:m=2,L=5,q=0 (4,194,304 nodes),
# uniform traffic at 0.02 flits/cycle/node, default buffers (128 flits a
# port, 2 packets a VC), a window of 400 cycles after 400 of warm-up.  Not
# a test: it prints figures for bench/RESULTS.md.
#
#   bash bench/tesh-large.sh [L ...]     (default: 4 5)
#
# For each L: what --dry-run plans (the engine, and the packet pool's most,
# which is mapped and touched only as far as packets are in flight), then
# the run's wall time, peak resident memory and results.  L = 5 takes
# about 3 minutes (two threads) and 8 GiB; it is skipped, saying so,
# when less than 10 GiB is available.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "bench/tesh-large.sh: build $T first (make)" >&2; exit 2; }
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(4 5)
tmp=$(mktemp -d /tmp/tesh-large.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ARGS=(--load 0.02 --warmup 400 --measure 400 --drain 0)

echo "== 3D-TESH, uniform at 0.02, warm-up 400, window 400, default buffers ($(date -u '+%F %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
for L in "${levels[@]}"; do
	spec=tesh:m=2,L=$L,q=0
	echo "-- $spec"
	"$T" run --topology "$spec" --dry-run | sed 's/^/   /'
	avail=$(awk '/^MemAvailable:/ {print int($2 / 1048576)}' /proc/meminfo)
	if [ "$L" -ge 5 ] && [ "$avail" -lt 10 ]; then
		echo "   skipped: ${avail} GiB available, 10 wanted"
		continue
	fi
	echo "   command: ttsim run --topology $spec ${ARGS[*]} --json"
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$T" run --topology "$spec" \
	    "${ARGS[@]}" --json >"$tmp/run.json"
	read -r wall rss <"$tmp/time"
	jq -r --arg w "$wall" --arg r "$rss" '"   \($w) s, peak RSS \($r | tonumber / 1048576 * 100 | round / 100) GiB; \(.cycles) cycles, \(.flit_router_traversals) flit-router traversals (\(.flit_router_traversals / ($w | tonumber) / 1e6 * 100 | round / 100) M/s); offered \(.offered_load), accepted \(.accepted_load), network latency \(.avg_network_latency), hops \(.avg_hops), deadlock \(.deadlock), converged \(.converged)"' "$tmp/run.json"
done
