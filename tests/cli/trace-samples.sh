#!/bin/sh
# The sample traces in traces/ are what traces/make-samples.sh writes: the
# generator is deterministic and the README's account of each is true.
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
ttsim=${TTSIM:-build/ttsim}
case $ttsim in /*) ;; *) ttsim=$(pwd)/$ttsim ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! TTSIM=$ttsim sh "$top/traces/make-samples.sh" "$tmp" 2>"$tmp/log"; then
	cat "$tmp/log"
	echo "FAIL traces/make-samples.sh"
	exit 1
fi
fail=0
for f in "$top"/traces/*.pcap "$top"/traces/*/*.pcap; do
	rel=${f#"$top"/traces/}
	if ! cmp -s "$f" "$tmp/$rel"; then
		echo "FAIL traces/$rel differs from what make-samples.sh writes"
		fail=1
	fi
done
n=$(cd "$tmp" && find . -name '*.pcap' | wc -l)
m=$(cd "$top/traces" && find . -path ./captured -prune -o -name '*.pcap' -print | wc -l)
if [ "$n" -ne "$m" ]; then
	echo "FAIL make-samples.sh writes $n traces, traces/ holds $m"
	fail=1
fi
# Traces recorded on the testbed (traces/captured/, one directory per run)
# cannot be written again byte for byte; each must read whole, with a
# delivery copy for every frame sent, as a complete ttd capture has.
for d in "$top"/traces/captured/*/; do
	[ -d "$d" ] || continue
	rel=${d#"$top"/}
	if ! js=$("$ttsim" trace stat "$d" --json 2>"$tmp/stat.err"); then
		echo "FAIL $rel: $(head -1 "$tmp/stat.err")"
		fail=1
	elif [ "$(echo "$js" | jq '.messages > 0 and .messages == .delivery_copies')" != true ]; then
		echo "FAIL $rel: $(echo "$js" | jq -r '"\(.messages) messages, \(.delivery_copies) delivery copies"')"
		fail=1
	else
		echo "ok $rel: $(echo "$js" | jq -r '"\(.messages) messages, each with its delivery copy"')"
	fi
done
[ "$fail" -eq 0 ] && echo "ok the $m sample traces are reproduced byte for byte"
exit $fail
