#!/usr/bin/env bash
# The sample traces in traces/ are what traces/make-samples.sh writes: the
# generator is deterministic and the README's account of each is true.
. "$(dirname "$0")/lib.sh"
top=$tt_top
if ! TTSIM=$T sh "$top/traces/make-samples.sh" "$tmp" 2>"$tmp/log"; then
	bad traces/make-samples.sh "$(cat "$tmp/log")"
	finish; exit 1
fi
for f in "$top"/traces/*.pcap "$top"/traces/*/*.pcap; do
	rel=${f#"$top"/traces/}
	if ! cmp -s "$f" "$tmp/$rel"; then
		bad "traces/$rel differs from what make-samples.sh writes"
	fi
done
n=$(cd "$tmp" && find . -name '*.pcap' | wc -l)
m=$(cd "$top/traces" && find . -path ./captured -prune -o -name '*.pcap' -print | wc -l)
if [ "$n" -ne "$m" ]; then
	bad "make-samples.sh writes $n traces, traces/ holds $m"
fi
# Traces recorded on the testbed (traces/captured/, one directory per run)
# cannot be written again byte for byte; each must read whole, with a
# delivery copy for every frame sent, as a complete ttd capture has.
for d in "$top"/traces/captured/*/; do
	[ -d "$d" ] || continue
	rel=${d#"$top"/}
	if ! js=$("$T" trace stat "$d" --json 2>"$tmp/stat.err"); then
		bad "$rel: $(head -1 "$tmp/stat.err")"
	elif [ "$(echo "$js" | jq '.messages > 0 and .messages == .delivery_copies')" != true ]; then
		bad "$rel: $(echo "$js" | jq -r '"\(.messages) messages, \(.delivery_copies) delivery copies"')"
	else
		ok "$rel: $(echo "$js" | jq -r '"\(.messages) messages, each with its delivery copy"')"
	fi
done
[ "$fail" -eq 0 ] && ok "the $m sample traces are reproduced byte for byte"
finish
