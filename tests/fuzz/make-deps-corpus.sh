#!/usr/bin/env bash
# Writes the seed corpora of fuzz_deps and fuzz_causal (tests/fuzz/corpus/
# deps, corpus/causal; the same files in both): dependency files of
# motifs recorded on the 2x2x2 twin torus the causal target replays on
# (16 PEs), each under 4 KiB (libFuzzer's default input size) — true ones
# (ttsim app --deps-out), inferred ones (ttsim trace infer), and one at
# each of the file's limits (4 GiB, a gap of a day, t_ns a day from the
# first, numbers at 2^32 - 1).
#
#   bash tests/fuzz/make-deps-corpus.sh     (after make)
#
# The files are committed; rerun this only to change them.
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TTSIM:-build/ttsim}
[ -x "$T" ] || { echo "make-deps-corpus.sh: build first (make)" >&2; exit 2; }
out=tests/fuzz/corpus
mkdir -p "$out/deps" "$out/causal"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=(--dims 2,2,2)

# MOTIF NAME FLAGS...: NAME.true and NAME.deps (inferred) in $tmp
motif() {
	local m=$1 name=$2; shift 2
	"$T" app "$m" "${N[@]}" --iterations 1 "$@" --record "$tmp/$name" \
	    --deps-out "$tmp/$name.true" >/dev/null
	"$T" trace infer "$tmp/$name" "${N[@]}" -o "$tmp/$name.deps" >/dev/null 2>&1
}
motif pingpong pingpong --compute-ns 1000
motif halo3d halo3d
motif incast incast
motif allreduce allreduce-4 --ranks 0-3
motif alltoall alltoall-4 --ranks 0-3 --compute-ns 500
motif sweep3d sweep3d-4 --ranks 0-3
cp "$tmp/pingpong.true" "$tmp/halo3d.true" "$tmp/allreduce-4.true" \
    "$tmp/alltoall-4.true" "$tmp/sweep3d-4.true" "$out/deps/"
cp "$tmp/incast.deps" "$out/deps/incast.inferred"
cp "$tmp/sweep3d-4.deps" "$out/deps/sweep3d-4.inferred"
# at the limits: pingpong's third line changed in one field (still valid)
at() {   # NAME FIELD VALUE
	awk -v f="$2" -v v="$3" 'NR == 3 { $f = v } 1' "$tmp/pingpong.true" >"$out/deps/$1"
}
at bytes-4gib 4 4294967296
at gap-a-day 6 86400000000000
t0=$(awk 'NR == 3 { print $5 }' "$tmp/pingpong.true")
awk -v t="$((t0 + 86400000000000))" 'NR == 4 { $5 = t } 1' "$tmp/pingpong.true" \
    >"$out/deps/t-a-day-on"
at seq-max 2 4294967295
for f in "$out"/deps/*; do
	[ "$(wc -c <"$f")" -lt 4096 ] || { echo "make-deps-corpus.sh: $f is 4 KiB or more" >&2; exit 1; }
done
cp "$out"/deps/* "$out/causal/"
