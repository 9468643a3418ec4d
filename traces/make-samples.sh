#!/bin/sh
# Writes the sample traces of this directory into OUT (default: here).
# tests/cli/trace-samples.sh runs it into a temporary directory and checks
# that the result equals the committed files byte for byte, so this script
# is exactly how they were made.  TTSIM names the binary (build/ttsim).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
ttsim=${TTSIM:-$top/build/ttsim}
out=${1:-$top/traces}
cfg=$top/yaml/3dt-4x4x4.yaml

mkdir -p "$out"
# The sizes, iterations and compute times below were trace synth's
# defaults when these files were written; the motifs' own defaults differ.
"$ttsim" trace synth "$cfg" --app stencil --bytes 8192 --iterations 10 \
    --compute-us 50 --per-node -o "$out/stencil-4x4x4"
"$ttsim" trace synth "$cfg" --app alltoall --bytes 4096 --iterations 1 \
    --compute-us 20 -o "$out/alltoall-4x4x4.pcap"
"$ttsim" trace synth --dims 2,2,2 --app allreduce --bytes 262144 \
    --iterations 4 --compute-us 20 -o "$out/allreduce-2x2x2.pcap"
"$ttsim" trace synth "$cfg" --app uniform --load 0.2 --cycles 5000 -o "$out/uniform-4x4x4.pcap"
