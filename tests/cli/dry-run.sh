#!/usr/bin/env bash
# ttsim run --dry-run [--ranks N]: the memory planner.  The engine's bytes
# (tt_sim_memory(), checked against the heap in tests/unit/test_sim.c), the
# slab cut along the largest dimension (uneven when the ranks do not divide
# it), the per-rank share, and its errors.  Nothing is simulated: seconds.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
set -u
cd "$(dirname "$0")/../.." || exit 2
T=${TTSIM:-build/ttsim}
pass=0 fail=0
ok()  { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; fail=$((fail + 1)); }
field() { jq -r ".$1" <<<"$2"; }

# one rank holds the whole engine
j=$("$T" run --dims 8,8,8 --dry-run --json)
[ -n "$j" ] && [ "$(field bytes_per_rank "$j")" = "$(field bytes_total "$j")" ] &&
    [ "$(field pes "$j")" = 1024 ] && ok one-rank || bad one-rank "$j"

# 64^3 on 2 ranks: two slabs of 32 planes, exactly half each
j=$("$T" run --dims 64,64,64 --dry-run --ranks 2 --json)
t=$(field bytes_total "$j"); r=$(field bytes_per_rank "$j")
[ "$(field pes "$j")" = 524288 ] && [ "$((t / 2))" = "$r" ] &&
    [ "$(field slab_planes "$j")" = 32 ] && ok half || bad half "$j"

# 5x3x4 on 3 ranks: the largest dimension is the first (5 planes); slabs of
# 2, 2, 1 planes, the largest holds 2 * 3 * 4 nodes * 2 cards = 48 switches
j=$("$T" run --dims 5,3,4 --ports G --deadlock bubble --dry-run --ranks 3 --json)
[ "$(field slab_dim "$j")" = 0 ] && [ "$(field slab_planes "$j")" = 2 ] &&
    [ "$(field slab_switches "$j")" = 48 ] && ok uneven || bad uneven "$j"
# the largest dimension need not be the first
j=$("$T" run --dims 3,4,6 --dry-run --ranks 4 --json)
[ "$(field slab_dim "$j")" = 2 ] && [ "$(field slab_planes "$j")" = 2 ] &&
    ok largest-dim || bad largest-dim "$j"

# more ranks never need more per rank
prev=
mono=1
for n in 1 2 3 4 5 6 7 8; do
	r=$("$T" run --dims 8,8,8 --dry-run --ranks "$n" --json | jq -r .bytes_per_rank)
	[ -n "$prev" ] && [ "$r" -gt "$prev" ] && mono=0
	prev=$r
done
[ "$mono" = 1 ] && ok scales-down || bad scales-down

# errors: one message, exit 2
for args in "--dry-run --ranks 0" "--dry-run --ranks 9" "--dry-run --ranks x" \
    "--ranks 2"; do
	# shellcheck disable=SC2086  # the flags are words
	"$T" run --dims 8,8,8 $args >/dev/null 2>/tmp/dry-run.err.$$; st=$?
	[ "$st" = 2 ] && [ "$(wc -l </tmp/dry-run.err.$$)" = 1 ] &&
	    ok "error: $args" || bad "error: $args" "exit $st: $(cat /tmp/dry-run.err.$$)"
done
rm -f /tmp/dry-run.err.$$

echo "dry-run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
