#!/usr/bin/env bash
# Shaped links as ttsim's commands take them (--shape-gbps, --burst-bytes;
# the model keys shape_gbps, burst_bytes; twintorus.yaml(5)):
#   - the JSON model object has shape_gbps and burst_bytes only when links
#     are shaped, burst_bytes in whole flits (a packet by default);
#   - at an offered load of 0.8 to the X+ neighbour (one link a packet) a
#     link shaped to a quarter of the line carries a quarter of a flit a
#     cycle (accepted load 0.24..0.26), an unshaped one what is offered;
#   - a model file, or a cluster file's model:, with the two keys runs as
#     the flags do (the same JSON), and a flag beats the file;
#   - a rate at, above or rounding to the line rate (10 Gb/s here) is no
#     shaping: the run is the unshaped one, without the keys;
#   - bad values exit 2 with one line naming the flag, the file or the
#     key, and a bucket below a packet likewise;
#   - sweep, app and replay take the flags; replay's --compare D@1G is a
#     1 Gb/s bucket on the 10 Gb/s line, D@20G unshaped 20 Gb/s links;
#   - ttsim run --help lists both flags.
# TTSIM names the binary (default build/ttsim).  A few seconds.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip_all "jq not installed (make deps installs it)"

# a neighbour stream on a plain 8x8 torus, far above a quarter of a link
net=(--dims "8,8" --plain --traffic neighbour --load 0.8 --measure 5000)
# nowall FILE: FILE's JSON without wall-clock keys, sorted
nowall() { jq -S 'walk(if type == "object" then with_entries(select(.key | test("wall") | not)) else . end)' "$1"; }
# runj NAME ARGS...: ttsim run ARGS --json into $tmp/NAME.json; its status
runj() {
	local name=$1
	shift
	"$T" run "${net[@]}" "$@" --json >"$tmp/$name.json" 2>"$tmp/$name.err"
}

# ---- unshaped and shaped ----
runj plain
st=$?
[ "$st" -eq 0 ] &&
    jq -e '(.model | has("shape_gbps") or has("burst_bytes")) | not' "$tmp/plain.json" >/dev/null &&
    jq -e '.accepted_load > 0.75' "$tmp/plain.json" >/dev/null &&
    ok "unshaped: no shape keys, accepted as offered" ||
    bad "unshaped (exit $st)" "$(cat "$tmp/plain.err"; jq -c '{accepted_load, model}' "$tmp/plain.json")"

runj quarter --shape-gbps 2.5
st=$?
[ "$st" -eq 0 ] &&
    jq -e '.model.shape_gbps == 2.5 and .model.burst_bytes == 64' "$tmp/quarter.json" >/dev/null &&
    ok "shaped: shape_gbps 2.5, burst_bytes 64 (a packet)" ||
    bad "shaped keys (exit $st)" "$(cat "$tmp/quarter.err"; jq -c .model "$tmp/quarter.json")"
jq -e '.offered_load > 0.75 and .accepted_load >= 0.24 and .accepted_load <= 0.26' \
    "$tmp/quarter.json" >/dev/null &&
    ok "shaped: accepted load capped at a quarter flit a cycle" ||
    bad "shaped accepted load" "$(jq -c '{offered_load, accepted_load}' "$tmp/quarter.json")"

# a deeper bucket: whole flits (100 bytes: 6 flits of 16), the same cap
runj deep --shape-gbps 2.5 --burst-bytes 100
st=$?
[ "$st" -eq 0 ] &&
    jq -e '.model.burst_bytes == 96 and .accepted_load >= 0.24 and .accepted_load <= 0.26' \
    "$tmp/deep.json" >/dev/null &&
    ok "burst-bytes 100: 96 (whole flits)" ||
    bad "burst-bytes 100 (exit $st)" "$(cat "$tmp/deep.err"; jq -c '{accepted_load, model}' "$tmp/deep.json")"

# ---- a model file, a cluster file ----
printf 'model:\n  shape_gbps: 2.5\n  burst_bytes: 4096\n' >"$tmp/shape.yaml"
runj file --model "$tmp/shape.yaml"
st1=$?
runj flags --shape-gbps 2.5 --burst-bytes 4096
st2=$?
[ "$st1" -eq 0 ] && [ "$st2" -eq 0 ] &&
    jq -e '.model.shape_gbps == 2.5 and .model.burst_bytes == 4096' "$tmp/file.json" >/dev/null &&
    [ "$(nowall "$tmp/file.json")" = "$(nowall "$tmp/flags.json")" ] &&
    ok "model file: the run of the flags" ||
    bad "model file (exit $st1, $st2)" "$(cat "$tmp/file.err"; diff <(nowall "$tmp/file.json") <(nowall "$tmp/flags.json"))"
runj over --model "$tmp/shape.yaml" --shape-gbps 5
st=$?
[ "$st" -eq 0 ] &&
    jq -e '.model.shape_gbps == 5 and .model.burst_bytes == 4096 and .accepted_load >= 0.48 and .accepted_load <= 0.52' \
    "$tmp/over.json" >/dev/null &&
    ok "--shape-gbps over the model file" ||
    bad "--shape-gbps over the model file (exit $st)" "$(cat "$tmp/over.err"; jq -c '{accepted_load, model}' "$tmp/over.json")"
printf 'torus:\n  dims: [8, 8]\n  twin: false\nmodel:\n  shape_gbps: 2.5\n  burst_bytes: 4096\n' >"$tmp/cluster.yaml"
"$T" run "$tmp/cluster.yaml" --traffic neighbour --load 0.8 --measure 5000 --json \
    >"$tmp/cluster.json" 2>"$tmp/err"
st=$?
[ "$st" -eq 0 ] &&
    jq -e '.model.shape_gbps == 2.5 and .model.burst_bytes == 4096 and .accepted_load >= 0.24 and .accepted_load <= 0.26' \
    "$tmp/cluster.json" >/dev/null &&
    ok "cluster file model: shaped" ||
    bad "cluster file model (exit $st)" "$(cat "$tmp/err"; jq -c '{accepted_load, model}' "$tmp/cluster.json")"

# ---- at, above and just under the line rate: not shaped ----
# 9.99999 of 10 refills 65535.93/65536 flits a cycle: the line rate
for g in 10 20 9.99999; do
	runj "line$g" --shape-gbps "$g" --burst-bytes 4096
	st=$?
	[ "$st" -eq 0 ] && [ ! -s "$tmp/line$g.err" ] &&
	    [ "$(nowall "$tmp/line$g.json")" = "$(nowall "$tmp/plain.json")" ] &&
	    ok "--shape-gbps $g: the unshaped run" ||
	    bad "--shape-gbps $g (exit $st)" "$(cat "$tmp/line$g.err"; diff <(nowall "$tmp/line$g.json") <(nowall "$tmp/plain.json"))"
done

# ---- refused: exit 2, one line naming the flag, the file or the key ----
# refused NAME WORD ARGS...: ttsim run --dry-run ARGS exits 2 with one line
# on stderr that has WORD in it
refused() {
	local name=$1 word=$2
	shift 2
	"$T" run --dims 4,4 --dry-run "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$word" "$tmp/err" &&
	    ok "refused: $name" ||
	    bad "refused: $name (exit $st, expected 2 and one line with '$word')" "$(cat "$tmp/err")"
}
refused "--shape-gbps 0" "--shape-gbps: '0' is not a rate from 0.001 to 10000 Gb/s" --shape-gbps 0
refused "--burst-bytes without a rate" "--burst-bytes) is a token bucket's depth, but nothing gives its rate" --burst-bytes 4096
refused "--shape-gbps x" "--shape-gbps" --shape-gbps x
refused "--shape-gbps -1" "--shape-gbps" --shape-gbps -1
refused "--shape-gbps nan" "--shape-gbps" --shape-gbps nan
refused "--shape-gbps 1e5" "--shape-gbps" --shape-gbps 1e5
refused "--shape-gbps ''" "--shape-gbps" --shape-gbps ''
refused "--burst-bytes 0" "--burst-bytes" --shape-gbps 2.5 --burst-bytes 0
refused "--burst-bytes x" "--burst-bytes" --shape-gbps 2.5 --burst-bytes x
refused "--burst-bytes 2^31" "--burst-bytes" --shape-gbps 2.5 --burst-bytes 2147483648
refused "--burst-bytes 10 (below a packet)" "--burst-bytes 10 holds 0 flits" --shape-gbps 2.5 --burst-bytes 10
refused "--burst-bytes 63 (below a packet)" "--burst-bytes 63 holds 3 flits" --shape-gbps 2.5 --burst-bytes 63
printf 'model:\n  shape_gbps: 2\n  burst_bytes: 40\n' >"$tmp/small.yaml"
refused "model file burst_bytes 40" "$tmp/small.yaml: model: burst_bytes 40" --model "$tmp/small.yaml"
printf 'torus:\n  dims: [4, 4]\nmodel:\n  shape_gbps: 2\n  burst_bytes: 40\n' >"$tmp/smallc.yaml"
"$T" run "$tmp/smallc.yaml" --dry-run >/dev/null 2>"$tmp/err"
st=$?
[ "$st" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -qF "$tmp/smallc.yaml: model: burst_bytes 40" "$tmp/err" &&
    ok "refused: cluster file burst_bytes 40" ||
    bad "refused: cluster file burst_bytes 40 (exit $st)" "$(cat "$tmp/err")"
printf 'model:\n  shape_gbps: 0\n' >"$tmp/zero.yaml"
refused "model file shape_gbps 0" "model.shape_gbps: 0 is out of range" --model "$tmp/zero.yaml"
# a bucket below a packet is no error where links are not shaped
"$T" run --dims 4,4 --dry-run --shape-gbps 20 --burst-bytes 10 >/dev/null 2>"$tmp/err" &&
    [ ! -s "$tmp/err" ] && ok "--burst-bytes 10 on unshaped links: accepted" ||
    bad "--burst-bytes 10 on unshaped links" "$(cat "$tmp/err")"

# ---- the other commands of the flag group ----
"$T" sweep "${net[@]:0:5}" --loads 0.8 --measure 5000 --refine 0 --jobs 1 \
    --shape-gbps 2.5 --json >"$tmp/sweep.json" 2>"$tmp/err"
st=$?
[ "$st" -eq 0 ] &&
    jq -e 'length == 1 and all(.[]; .model.shape_gbps == 2.5 and .accepted_load >= 0.24 and .accepted_load <= 0.26)' \
    "$tmp/sweep.json" >/dev/null &&
    ok "sweep --shape-gbps" ||
    bad "sweep --shape-gbps (exit $st)" "$(cat "$tmp/err"; head -c 2000 "$tmp/sweep.json")"
"$T" app pingpong --dims 2,2,2 --iterations 4 --json >"$tmp/app0.json" 2>"$tmp/err0" &&
    "$T" app pingpong --dims 2,2,2 --iterations 4 --shape-gbps 1 --json >"$tmp/app1.json" 2>"$tmp/err1"
st=$?
[ "$st" -eq 0 ] &&
    jq -e '.model.shape_gbps == 1' "$tmp/app1.json" >/dev/null &&
    [ "$(jq -n --slurpfile a "$tmp/app0.json" --slurpfile b "$tmp/app1.json" '$b[0].makespan_cycles > $a[0].makespan_cycles')" = true ] &&
    ok "app --shape-gbps: slower than unshaped" ||
    bad "app --shape-gbps (exit $st)" "$(cat "$tmp/err0" "$tmp/err1"; jq -c '{makespan_cycles}' "$tmp/app0.json" "$tmp/app1.json")"
# replay --compare: D@1G under a 2.5 Gb/s bucket on 10 Gb/s links is a
# 1 Gb/s bucket on the same line (no slower than a 1 Gb/s line), D@20G
# (above the line) 20 Gb/s links without a bucket
"$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare D,D@1G,D@20G --jobs 1 --json \
    >"$tmp/rp0.json" 2>/dev/null &&
    "$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare D,D@1G,D@20G --jobs 1 \
    --shape-gbps 2.5 --json >"$tmp/rp1.json" 2>/dev/null
st=$?
[ "$st" -eq 0 ] &&
    jq -e '[.networks[].model | [.link_gbps, .shape_gbps]] == [[10, 2.5], [10, 1], [20, null]] and (.networks[2].model | has("burst_bytes") | not)' \
    "$tmp/rp1.json" >/dev/null &&
    [ "$(jq -n --slurpfile a "$tmp/rp0.json" --slurpfile b "$tmp/rp1.json" \
        '($b[0].networks[0].makespan_s > 3 * $a[0].networks[0].makespan_s) and ($b[0].networks[1].makespan_s <= $a[0].networks[1].makespan_s) and ($b[0].networks[2].makespan_s == $a[0].networks[2].makespan_s)')" = true ] &&
    ok "replay --compare D,D@1G,D@20G --shape-gbps 2.5" ||
    bad "replay --shape-gbps (exit $st)" "$(jq -c '[.networks[] | {name, makespan_s, link: .model.link_gbps, shape: .model.shape_gbps}]' "$tmp/rp0.json" "$tmp/rp1.json")"

# ---- --help ----
"$T" run --help >"$tmp/help" 2>&1 &&
    grep -qE '^  --shape-gbps GBPS ' "$tmp/help" && grep -qE '^  --burst-bytes N ' "$tmp/help" &&
    ok "run --help lists --shape-gbps and --burst-bytes" ||
    bad "run --help" "$(grep -n -A3 'hardware model' "$tmp/help")"

finish
