# What every shell test in tests/cli shares; each script sources it first:
#
#	. "$(dirname "$0")/lib.sh"
#
# It moves to the top of the repository; sets T (ttsim, from TTSIM) and D
# (ttd, from TTD), absolute, a relative name being taken from where the
# test was started when it is there and else from the top; makes $tmp
# (mktemp -d) and removes it on exit, after calling the script's own
# cleanup function if it defines one (KEEP=1 keeps it and says where);
# and counts the checks.  Every check prints one line: "ok NAME",
# "FAIL NAME" with what went wrong indented below it, or "SKIP NAME:
# REASON"; `finish` prints "N passed, N failed" and is the exit status.
# shellcheck shell=bash disable=SC2034  # pass, T, D, out and st are the scripts'

set -u
TEST_NAME=$(basename "$0" .sh)
tt_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) || exit 2
# tt_abs NAME: NAME as an absolute path
tt_abs() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) if [ -e "$1" ]; then printf '%s\n' "$PWD/$1"; else printf '%s\n' "$tt_top/$1"; fi ;;
	esac
}
T=$(tt_abs "${TTSIM:-build/ttsim}")
D=$(tt_abs "${TTD:-build/ttd}")
cd "$tt_top" || exit 2

pass=0 fail=0 skipped=0
tmp=$(mktemp -d "/tmp/tt-$TEST_NAME.XXXXXX") || exit 2
tt_mounts=
tt_exit() {
	local m
	if declare -F cleanup >/dev/null; then cleanup; fi
	for m in $tt_mounts; do umount "$m" 2>/dev/null; done
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap tt_exit EXIT
trap 'exit 130' INT TERM

ok() { echo "ok $1"; pass=$((pass + 1)); }
# bad NAME [DETAIL]: a failed check; DETAIL is shown indented, at most
# BAD_LINES lines of it (default 200)
bad() {
	echo "FAIL $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | head -n "${BAD_LINES:-200}" | sed 's/^/    /'
	fail=$((fail + 1))
}
# skip NAME REASON: a check that cannot run here
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
# skip_all REASON: the whole script cannot run here; exit 0
skip_all() { echo "SKIP $TEST_NAME: $1"; echo "0 passed, 0 failed"; exit 0; }
# needs_root TOOL...: skip the whole script unless it runs as root with
# every TOOL on the PATH (network namespaces need root)
needs_root() {
	local t
	[ "$(id -u)" -eq 0 ] || skip_all "not root"
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed"
	done
}
# stop_pids: kill the script's background processes listed in $pids and
# reap them (for a cleanup function)
stop_pids() {
	local p
	for p in ${pids:-}; do kill "$p" 2>/dev/null; done
	for p in ${pids:-}; do wait "$p" 2>/dev/null; done
}
# full_disk: $tmp/full, a small tmpfs of the test's own, filled up, so
# that a file created in it takes no byte (ENOSPC), as a full disk does;
# unmounted on exit.  Status 1 when it cannot be mounted (not root).
full_disk() {
	mkdir -p "$tmp/full"
	[ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null ||
	    return 1
	tt_mounts="$tt_mounts $tmp/full"
	yes filler >"$tmp/full/filler" 2>/dev/null
	return 0
}
# json_same NAME A B ERR: whether the JSON files A and B (normalised by the
# caller) are equal; if not, a failed check NAME showing where they differ
# and the first lines of ERR (the stderr of B's run)
json_same() {
	cmp -s "$2" "$3" && return 0
	bad "$1" "$(diff <(jq . "$2") <(jq . "$3") | head -12; head -5 "$4")"
	return 1
}
# finish: the summary line; the status is 0 when nothing failed
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

# expect NAME WANT_STATUS CMD...: run CMD, keep its stdout in $out and its
# stderr in $tmp/err, and report a failed check when its status is not
# WANT_STATUS (nothing when it is: the caller checks what it printed)
expect() {
	local name=$1 want=$2; shift 2
	out=$("$@" 2>"$tmp/err"); st=$?
	if [ "$st" -eq "$want" ]; then return 0; fi
	bad "$name" "exit $st, wanted $want: $* :: $(head -c 2000 "$tmp/err")"
	return 1
}
# refused NAME MESSAGE CMD...: CMD exits 2 and the first line of its stderr
# starts with MESSAGE
refused() {
	local name=$1 want=$2 line; shift 2
	expect "$name" 2 "$@" || return 1
	line=$(head -1 "$tmp/err")
	if [[ $line == "$want"* ]]; then
		ok "$name"
	else
		bad "$name" "said:   $line"$'\n'"wanted: $want..."
	fi
}
# wait_for SECS CMD...: poll every 0.1 s until CMD succeeds, at most SECS
wait_for() {
	local n=$(($1 * 10)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}
# node_2x2 NS TAPS TRACEDIR MTU_X MTU_Y MTU_INT: in the network namespace
# NS (made by the caller), node (0,0) of a 2x2 twin torus under best, its
# ports veth pairs joined to each other (c0Xp-c0Xm, c1Yp-c1Ym,
# c0int-c1int; so a frame sent out of X- arrives on X+) with those MTUs,
# and its cluster file in $tmp/c.yaml: PE TAPs named TAPS%u, traces in
# TRACEDIR
node_2x2() {
	local ns=$1 taps=$2 dir=$3 pair
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	    net.ipv6.conf.default.disable_ipv6=1
	for pair in "c0Xp c0Xm $4" "c1Yp c1Ym $5" "c0int c1int $6"; do
		set -- $pair
		ip -n "$ns" link add "$1" mtu "$3" type veth peer name "$2" mtu "$3"
		ip -n "$ns" link set "$1" up
		ip -n "$ns" link set "$2" up
	done
	cat >"$tmp/c.yaml" <<YAML
torus: {dims: [2, 2], ports: best}
nodes:
  - host: a
    coord: [0, 0]
    cards:
      - { ports: { c0Xp: X+, c0Xm: X-, c0int: internal } }
      - { ports: { c1Yp: Y+, c1Ym: Y-, c1int: internal } }
pes: {tap: "$taps%u"}
trace: {dir: $dir}
YAML
}
# js FILTER: jq -r FILTER on $out
js() { jq -r "$1" <<<"$out"; }
