#!/usr/bin/env bash
# Writes the seed corpora of fuzz_trace, fuzz_replay and fuzz_infer
# (tests/fuzz/corpus/trace, corpus/replay, corpus/infer): small traces of
# every kind the readers meet, each under 4 KiB (libFuzzer's default input
# size), and of fuzz_netspec (corpus/netspec): the network specs the
# manual and the tests name.
#
#   bash tests/fuzz/make-trace-corpus.sh     (after make; needs editcap
#                                             and mergecap)
#
# The files are committed; rerun this only to change them.
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "make-trace-corpus.sh: build first (make)" >&2; exit 2; }
for c in editcap mergecap; do
	command -v $c >/dev/null || { echo "make-trace-corpus.sh: needs $c (wireshark-common)" >&2; exit 2; }
done
out=tests/fuzz/corpus
mkdir -p "$out/trace" "$out/replay" "$out/infer" "$out/netspec"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- pcap by hand (little-endian, nanosecond magic), as tests/cli/trace.sh ----
le32() {
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
pcap_header() {   # LINKTYPE
	printf '\x4d\x3c\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00'
	printf "%b" "$(le32 262144)$(le32 "$1")"
}
record() {   # SECONDS NANOSECONDS HEX [WIRELEN]
	local n=$((${#3} / 2)) wire=${4:-0}
	[ "$wire" -ge "$n" ] || wire=$n
	printf "%b" "$(le32 "$1")$(le32 "$2")$(le32 "$n")$(le32 "$wire")"
	# shellcheck disable=SC2001
	printf "%b" "$(sed 's/../\\x&/g' <<<"$3")"
}
torus() {   # DST SRC [VER|TYPE] [FLAGS] [SEQ]: a torus frame header, hex
	printf '02000000%04x02000000%04x88b5%s00%s%s%08x%08x%08x' "$1" "$2" \
	    "${3:-10}" 00 "${4:-00}" "$1" "$2" "${5:-1}" | tr -d '\n'
}
ip4() {   # SRC DST (last bytes of 10.0.0.x), MACs 02:00:00:00:00:0x
	printf '0200000000%02x0200000000%02x0800450000540000400040010000' "$2" "$1"
	printf '0a0000%02x0a0000%02x' "$1" "$2"
}
ip6() {   # SRC DST (last bytes of fd00::x)
	printf '0200000000%02x0200000000%02x86dd6000000000083a40' "$2" "$1"
	printf 'fd00%026x%02x' 0 "$1"
	printf 'fd00%026x%02x' 0 "$2"
}
arp='ffffffffffff0200000000010806000108000604000102000000000100000000000000000000'

# ---- made by ttsim ----
"$T" trace synth --dims 2,2,2 --app alltoall --iterations 1 --bytes 100 \
    --messages 40 -o "$tmp/synth.pcap" 2>/dev/null
"$T" trace synth --dims 2,2,2 --app allreduce --bytes 262144 --messages 30 \
    -o "$tmp/allreduce.pcap" 2>/dev/null
editcap -F pcapng "$tmp/synth.pcap" "$tmp/synth.pcapng"

# ---- by hand ----
{ pcap_header 1
  record 1767225600 5 "$(torus 1 2)" 4126
  record 1767225600 9 "$(torus 7 3 11)"        # a hello (no body)
  record 1767225601 0 "$(torus 2 1 10 01)" 96  # a delivery copy
  record 1767225600 7 "$(torus 15 0)" 70000    # older, and longer than ttd carries
} >"$tmp/mixed.pcap"
{ pcap_header 1
  record 1767225600 1 "$(ip4 1 2)" 98
  record 1767225600 2 "$(ip4 2 1)" 98
  record 1767225600 3 "$(ip6 1 2)" 62
  record 1767225600 4 "$arp" 60
  record 1767225600 5 "$(ip4 1 9)" 98          # 10.0.0.9: not mapped
} >"$tmp/plain.pcap"
{ pcap_header 1
  record 2147483648 5 "$(torus 1 2)" 100       # 2038
  record 4294967295 999999999 "$(torus 2 1)" 100
} >"$tmp/y2038.pcap"
{ pcap_header 1; record 1767225600 5 "$(torus 1 2)" 100; record 1767225600 6 "$(torus 2 1)" 100
} >"$tmp/whole.pcap"
head -c 80 "$tmp/whole.pcap" >"$tmp/truncated.pcap"   # inside record 2
editcap -F pcapng "$tmp/plain.pcap" "$tmp/plain.pcapng"

for f in synth.pcap synth.pcapng allreduce.pcap mixed.pcap plain.pcap plain.pcapng \
    y2038.pcap truncated.pcap; do
	cp "$tmp/$f" "$out/trace/$f"
	cp "$tmp/$f" "$out/replay/$f"
done
cp tests/traces/frames.pcap "$out/trace/frames.pcap"

# ---- fuzz_infer: recordings as ttd writes them (sends and delivery
# copies, merged into one file), the first 80 records of each motif on
# 2x2x2; 30 records of the MPI run captured on the testbed (TCP: data,
# ACKs, PSH); a trace without delivery copies and a plain one; and by
# hand, a delivery copy damaged on its way (it names 0:5, sent to PE 2,
# but was delivered to PE 4), the real copy after it ----
for m in pingpong incast halo3d sweep3d allreduce alltoall; do
	"$T" app "$m" --dims 2,2,2 --iterations 1 --bytes 64 \
	    --record "$tmp/rec-$m" >/dev/null 2>&1
	mergecap -F pcap -w "$tmp/rec-$m.pcap" "$tmp/rec-$m"/*.pcap
	editcap -F pcap -r "$tmp/rec-$m.pcap" "$out/infer/app-$m.pcap" 1-80
done
mergecap -F pcap -w "$tmp/mpihalo.pcap" traces/captured/mpihalo-2x2x2/*.pcap
editcap -F pcap -r "$tmp/mpihalo.pcap" "$out/infer/mpihalo-tcp.pcap" 1000-1030
cp "$tmp/synth.pcap" "$out/infer/synth.pcap"
cp "$tmp/plain.pcap" "$out/infer/plain.pcap"
{ pcap_header 1
  record 1767225600 100 "$(torus 2 0 10 00 5)" 130
  record 1767225600 150 "$(torus 4 0 10 01 5)" 130     # damaged: at PE 4
  record 1767225600 200 "$(torus 2 0 10 01 5)" 130     # the real copy
  record 1767225600 300 "$(torus 6 4 10 00 0)" 130
  record 1767225600 400 "$(torus 0 2 10 00 0)" 130
  record 1767225600 450 "$(torus 6 4 10 01 0)" 130
  record 1767225600 500 "$(torus 0 2 10 01 0)" 130
} >"$out/infer/damaged-copy.pcap"

# ---- fuzz_netspec: specs as --topology and topology: take them ----
while read -r s; do
	printf '%s' "$s" >"$out/netspec/$(printf '%s' "$s" | tr -c 'A-Za-z0-9' _)"
done <<'SPECS'
pruned:k=8
pruned:k=4,n=2
msn:k=4,n=2
pruned-msn:k=6
mh3dt:m=3,n=2
mh3dt:m=4,n=4,L=2,q=2,vcs=2
tesh:m=2,L=1,q=0
tesh:L=2,vcs=4
twin:4x4x2
torus:8,8
4x4x4:plain
2x2x2:twin
8x8
pruned:k=8,k=4
tesh:m=2,L=0,q=0
SPECS
ls -l "$out/trace" "$out/replay" "$out/infer" "$out/netspec"
