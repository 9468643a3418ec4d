#!/usr/bin/env bash
# Where ttsim's outputs go and where its traces come from, as a user names
# them (twintorus/outfile.h):
#   - `trace synth -o PATH`: a FIFO is written through and stays a FIFO; a
#     symbolic link (relative, a chain, or to nothing yet) stays a link and
#     the file it names gets the trace; `-o -` writes standard output (and
#     no file named "-"); a file replaced keeps its mode; a directory is
#     refused; a failing write says why ("File too large", never
#     "Success") and leaves neither the target nor a temporary file;
#   - `replay --csv FILE`: a failing write says why and leaves nothing;
#     a symlinked CSV stays a link;
#   - `replay --plot FILE`: no file but the plot is written or removed
#     beside it (a user's FILE.dat survives);
#   - `-` as a TRACE: `trace stat -` and `replay -` read a pcap or pcapng
#     from standard input, through a pipe (read once: replay's passes over
#     the trace need no second read) or redirected from a file; an empty
#     pipe is called empty; a pipe named by path (/dev/stdin, a FIFO,
#     <(...)) is read once the same way;
#   - an output never replaces an input of the same command (by name, hard
#     link, symbolic link or /dev/stdin): exit 2 naming both, the input
#     intact;
#   - SIGINT or SIGTERM during `replay --csv FILE` leaves no .part and FILE
#     as it was; an interrupted `trace synth -o F` leaves F as it was,
#     and one started with SIGINT ignored keeps ignoring it;
#   - `app --record`: stopped by a signal (SIGHUP too) or a full disk, the
#     traces end on a whole record and readers take them without a
#     warning; the full disk fails the command, naming the file; `run
#     --record` killed by SIGINT leaves its traces whole too;
#   - `plot -o` with a newline in the name writes that file; on a full
#     disk it fails and leaves the old plot; a one-point sweep (and
#     replay's CDF of one message) plots without gnuplot warnings; no
#     line of the sweep table ends with a space.
# Never touches a device node: the FIFOs, links and files are made in a
# temporary directory (the full disk is a small tmpfs mounted there, as
# root only), removed at the end.  Half a minute.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
pids=""
cleanup() { stop_pids; }
# a small trace: 16 PEs, every PE to every other once
synth() { "$T" trace synth --dims 2,2,2 --app alltoall --iterations 1 --bytes 100 "$@"; }
# messages TRACE...: what trace stat counts, or "error: ..."
messages() { "$T" trace stat "$@" --json 2>"$tmp/stat.err" | jq -r .messages ||
    echo "error: $(cat "$tmp/stat.err")"; }
# no temporary file left in DIR
no_part() { ! ls "$1" | grep -q '\.part'; }

synth -o "$tmp/ref.pcap" 2>/dev/null || bad setup "trace synth failed"
M=$(messages "$tmp/ref.pcap")
[ "$M" = 240 ] || bad setup "the reference trace has $M messages, not 16 * 15"

# ======== trace synth -o ========

# a FIFO: written through, still a FIFO afterwards
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/from-fifo.pcap" &
reader=$!
pids="$pids $reader"
timeout 20 "$T" trace synth --dims 2,2,2 --app alltoall --iterations 1 --bytes 100 \
    -o "$tmp/fifo" 2>"$tmp/err"
st=$?
wait "$reader"
[ $st -eq 0 ] && [ -p "$tmp/fifo" ] && cmp -s "$tmp/from-fifo.pcap" "$tmp/ref.pcap" &&
    ok synth-fifo-written-through ||
    bad synth-fifo-written-through "exit $st; $(ls -l "$tmp/fifo") $(cat "$tmp/err")"

# a symbolic link to a file, relative, from another directory: the link
# stays, the file it names is replaced
mkdir "$tmp/data" "$tmp/links"
echo old >"$tmp/data/target.pcap"
ln -s ../data/target.pcap "$tmp/links/link.pcap"
ln -s link.pcap "$tmp/links/chain.pcap"
if synth -o "$tmp/links/chain.pcap" 2>"$tmp/err"; then
	[ -L "$tmp/links/chain.pcap" ] && [ -L "$tmp/links/link.pcap" ] &&
	    cmp -s "$tmp/data/target.pcap" "$tmp/ref.pcap" &&
	    ok synth-symlink-kept || bad synth-symlink-kept "$(ls -l "$tmp/links" "$tmp/data")"
	no_part "$tmp/data" && no_part "$tmp/links" && ok synth-symlink-no-part ||
	    bad synth-symlink-no-part "$(ls "$tmp/data" "$tmp/links")"
else
	bad synth-symlink-kept "$(cat "$tmp/err")"
fi
# a file replaced keeps its mode
echo old >"$tmp/mode.pcap"
chmod 640 "$tmp/mode.pcap"
synth -o "$tmp/mode.pcap" 2>"$tmp/err" && cmp -s "$tmp/mode.pcap" "$tmp/ref.pcap" &&
    [ "$(stat -c %a "$tmp/mode.pcap")" = 640 ] && ok synth-mode-kept ||
    bad synth-mode-kept "mode $(stat -c %a "$tmp/mode.pcap"), was 640 $(cat "$tmp/err")"
# a link to a file not there yet: created, the link stays
ln -s ../data/new.pcap "$tmp/links/dangling.pcap"
synth -o "$tmp/links/dangling.pcap" 2>"$tmp/err" && [ -L "$tmp/links/dangling.pcap" ] &&
    cmp -s "$tmp/data/new.pcap" "$tmp/ref.pcap" && ok synth-dangling-link ||
    bad synth-dangling-link "$(ls -l "$tmp/links" "$tmp/data") $(cat "$tmp/err")"

# -o -: standard output, and no file named "-"
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && synth -o - >"$tmp/stdout.pcap" 2>"$tmp/err")
st=$?
[ $st -eq 0 ] && cmp -s "$tmp/stdout.pcap" "$tmp/ref.pcap" && [ -z "$(ls -A "$tmp/cwd")" ] &&
    grep -q 'written to standard output' "$tmp/err" && ok synth-stdout ||
    bad synth-stdout "exit $st; in the directory: $(ls -A "$tmp/cwd"); $(cat "$tmp/err")"

# a directory: refused, saying so
mkdir "$tmp/adir"
synth -o "$tmp/adir" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qx "ttsim trace synth: $tmp/adir: is a directory; give a file name" "$tmp/err" &&
    [ -z "$(ls -A "$tmp/adir")" ] && ok synth-directory-refused ||
    bad synth-directory-refused "exit $st: $(cat "$tmp/err")"

# a write that fails: the reason, and nothing left behind.  RLIMIT_FSIZE
# (ulimit -f, in 1024-byte blocks) with SIGXFSZ ignored makes write() fail
# with EFBIG; the old file stays as it was.
echo old >"$tmp/small.pcap"
(trap '' XFSZ; ulimit -f 4; exec "$T" trace synth --dims 2,2,2 --app alltoall --iterations 4 \
    --bytes 100 -o "$tmp/small.pcap") 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qx "ttsim trace synth: $tmp/small.pcap: write failed: File too large" "$tmp/err" &&
    [ "$(cat "$tmp/small.pcap")" = old ] && no_part "$tmp" && ok synth-write-error-says-why ||
    bad synth-write-error-says-why "exit $st: $(cat "$tmp/err"); left: $(ls "$tmp" | grep -e small -e part)"

# ======== replay --csv and --plot ========

(trap '' XFSZ; ulimit -f 4; exec "$T" replay "$tmp/ref.pcap" --dims 2,2,2 --csv "$tmp/big.csv") \
    >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qx "ttsim replay: --csv $tmp/big.csv: write failed: File too large" "$tmp/err" &&
    [ ! -e "$tmp/big.csv" ] && no_part "$tmp" && ok csv-write-error-says-why ||
    bad csv-write-error-says-why "exit $st: $(cat "$tmp/err"); left: $(ls "$tmp" | grep -e big -e part)"

ln -s data/msgs.csv "$tmp/csv-link"
"$T" replay "$tmp/ref.pcap" --dims 2,2,2 --csv "$tmp/csv-link" >/dev/null 2>"$tmp/err" &&
    [ -L "$tmp/csv-link" ] && [ "$(wc -l <"$tmp/data/msgs.csv")" = $((M + 1)) ] &&
    ok csv-symlink-kept || bad csv-symlink-kept "$(ls -l "$tmp/csv-link") $(cat "$tmp/err")"

if command -v gnuplot >/dev/null 2>&1; then
	mkdir "$tmp/plot"
	echo mine >"$tmp/plot/p.svg.dat"
	"$T" replay "$tmp/ref.pcap" --dims 2,2,2 --plot "$tmp/plot/p.svg" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] && grep -q '<svg' "$tmp/plot/p.svg" && [ "$(cat "$tmp/plot/p.svg.dat")" = mine ] &&
	    [ "$(ls "$tmp/plot" | tr '\n' ' ')" = "p.svg p.svg.dat " ] && ok plot-leaves-others-alone ||
	    bad plot-leaves-others-alone "exit $st: $(ls "$tmp/plot"); p.svg.dat: $(head -c 100 "$tmp/plot/p.svg.dat"); $(cat "$tmp/err")"
else
	skip plot-leaves-others-alone "gnuplot not installed"
fi

# ======== - as a TRACE: standard input ========

got=$(cat "$tmp/ref.pcap" | messages -)
[ "$got" = "$M" ] && ok stat-stdin-pipe || bad stat-stdin-pipe "$got"
got=$(messages - <"$tmp/ref.pcap")
[ "$got" = "$M" ] && ok stat-stdin-file || bad stat-stdin-file "$got"
if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$tmp/ref.pcap" "$tmp/ref.pcapng"
	got=$(cat "$tmp/ref.pcapng" | messages -)
	[ "$got" = "$M" ] && ok stat-stdin-pcapng || bad stat-stdin-pcapng "$got"
else
	skip stat-stdin-pcapng "editcap not installed"
fi
# replay reads its trace more than once (a first pass, then each network):
# from a pipe, once
"$T" replay "$tmp/ref.pcap" --dims 2,2,2 --compare D,A --json >"$tmp/want.json" 2>/dev/null
cat "$tmp/ref.pcap" | "$T" replay - --dims 2,2,2 --compare D,A --json >"$tmp/got.json" 2>"$tmp/err"
st=$?
same='del(.trace.files) | del(.networks[].wall_s)'
[ $st -eq 0 ] && [ "$(jq -c "$same" "$tmp/got.json")" = "$(jq -c "$same" "$tmp/want.json")" ] &&
    ok replay-stdin-pipe || bad replay-stdin-pipe "exit $st: $(cat "$tmp/err")"
: | "$T" trace stat - 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qx "ttsim trace stat: standard input: empty (0 bytes), not a pcap or pcapng trace" \
    "$tmp/err" && ok stat-stdin-empty || bad stat-stdin-empty "exit $st: $(cat "$tmp/err")"

# trace infer reads its trace once too: the same dependencies from a pipe
"$T" trace infer "$tmp/ref.pcap" -o "$tmp/deps-file" 2>"$tmp/err" &&
    cat "$tmp/ref.pcap" | "$T" trace infer - -o "$tmp/deps-pipe" 2>>"$tmp/err" &&
    [ -s "$tmp/deps-file" ] && cmp -s "$tmp/deps-file" "$tmp/deps-pipe" &&
    ok infer-stdin-pipe || bad infer-stdin-pipe "$(cat "$tmp/err")"

# ttsim app --csv, as every other writer: a write error leaves the old
# file as it was, with no partial file beside it; a symlink stays, its
# target is written
echo old >"$tmp/app.csv"
(trap '' XFSZ; ulimit -f 2; exec "$T" app halo3d --dims 4,4,4 --iterations 1 \
    --csv "$tmp/app.csv") >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qx "ttsim app: --csv $tmp/app.csv: write failed: File too large" "$tmp/err" &&
    [ "$(cat "$tmp/app.csv")" = old ] && no_part "$tmp" && ok app-csv-write-error ||
    bad app-csv-write-error "exit $st: $(cat "$tmp/err"); $(head -c 80 "$tmp/app.csv")"
ln -s data/pes.csv "$tmp/app-link"
"$T" app pingpong --dims 2,2,2 --iterations 2 --csv "$tmp/app-link" >/dev/null 2>"$tmp/err" &&
    [ -L "$tmp/app-link" ] && [ "$(head -1 "$tmp/data/pes.csv")" = \
    "pe,rank,finish_cycle,finish_ns,sent,received" ] &&
    ok app-csv-symlink-kept || bad app-csv-symlink-kept "$(ls -l "$tmp/app-link") $(cat "$tmp/err")"

# ======== a pipe named by path: read once, as - ========

for how in pipe fifo subst; do
	case $how in
	pipe) cat "$tmp/ref.pcap" | "$T" replay /dev/stdin --dims 2,2,2 --compare D,A --json \
	    >"$tmp/got.json" 2>"$tmp/err" ;;
	fifo) rm -f "$tmp/in.fifo"; mkfifo "$tmp/in.fifo"
	    (timeout 20 cat "$tmp/ref.pcap" >"$tmp/in.fifo" &)
	    timeout 20 "$T" replay "$tmp/in.fifo" --dims 2,2,2 --compare D,A --json \
	    >"$tmp/got.json" 2>"$tmp/err" ;;
	subst) "$T" replay <(cat "$tmp/ref.pcap") --dims 2,2,2 --compare D,A --json \
	    >"$tmp/got.json" 2>"$tmp/err" ;;
	esac
	st=$?
	[ $st -eq 0 ] && [ "$(jq -c "$same" "$tmp/got.json")" = "$(jq -c "$same" "$tmp/want.json")" ] &&
	    ok "replay-named-pipe-$how" || bad "replay-named-pipe-$how" "exit $st: $(cat "$tmp/err")"
done
got=$(cat "$tmp/ref.pcap" | messages /dev/stdin)
[ "$got" = "$M" ] && ok stat-dev-stdin-pipe || bad stat-dev-stdin-pipe "$got"
# the pipe named twice, and beside -: one stream, each name reads it whole
got=$(cat "$tmp/ref.pcap" | messages /dev/stdin /dev/stdin)
[ "$got" = $((2 * M)) ] && ok stat-dev-stdin-twice || bad stat-dev-stdin-twice "$got"
got=$(cat "$tmp/ref.pcap" | messages - /dev/stdin)
[ "$got" = $((2 * M)) ] && ok stat-dash-and-dev-stdin || bad stat-dash-and-dev-stdin "$got"
cat "$tmp/ref.pcap" | "$T" trace infer /dev/stdin -o "$tmp/deps-devstdin" >/dev/null 2>"$tmp/err" &&
    cmp -s "$tmp/deps-file" "$tmp/deps-devstdin" && ok infer-dev-stdin-pipe ||
    bad infer-dev-stdin-pipe "$(cat "$tmp/err")"

# ======== an output never replaces an input ========

mkdir "$tmp/in"
cp "$tmp/ref.pcap" "$tmp/in/t.pcap"
ln "$tmp/in/t.pcap" "$tmp/in/hard.pcap"
ln -s t.pcap "$tmp/in/sym.pcap"
# refuses NAME INPUT CMD...: CMD exits 2 saying its output is INPUT (the
# name it read the trace by), and t.pcap is as it was
refuses() {
	local name=$1 input=$2 st
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && grep -q "$input.* an input of this command" "$tmp/err" &&
	    cmp -s "$tmp/in/t.pcap" "$tmp/ref.pcap" && no_part "$tmp/in" && ok "$name" ||
	    bad "$name" "exit $st: $(cat "$tmp/err"); $(ls -l "$tmp/in")"
}
refuses replay-csv-over-its-trace "t.pcap: is also" \
    "$T" replay "$tmp/in/t.pcap" --dims 2,2,2 --csv "$tmp/in/t.pcap"
refuses replay-csv-over-hard-link "hard.pcap: is the same file as $tmp/in/t.pcap," \
    "$T" replay "$tmp/in/t.pcap" --dims 2,2,2 --csv "$tmp/in/hard.pcap"
refuses replay-csv-over-symlink "sym.pcap: is the same file as $tmp/in/hard.pcap," \
    "$T" replay "$tmp/in/hard.pcap" --dims 2,2,2 --csv "$tmp/in/sym.pcap"
refuses infer-o-over-its-trace "sym.pcap: is the same file as $tmp/in/t.pcap," \
    "$T" trace infer "$tmp/in/t.pcap" -o "$tmp/in/sym.pcap"
refuses replay-csv-over-dev-stdin "t.pcap: is the same file as /dev/stdin," \
    sh -c '"$1" replay /dev/stdin --dims 2,2,2 --csv "$2" <"$2"' sh "$T" "$tmp/in/t.pcap"
# a trace directory: each of its files is an input
refuses replay-dir-csv-into-it "sym.pcap: is the same file as $tmp/in/hard.pcap," \
    "$T" replay "$tmp/in" --dims 2,2,2 --csv "$tmp/in/sym.pcap"
# the YAML file too
cp yaml/3dt-4x4x2.yaml "$tmp/in/net.yaml"
"$T" trace synth "$tmp/in/net.yaml" --app alltoall --iterations 1 -o "$tmp/in/net.yaml" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && cmp -s yaml/3dt-4x4x2.yaml "$tmp/in/net.yaml" && ok synth-o-over-its-yaml ||
    bad synth-o-over-its-yaml "exit $st: $(cat "$tmp/err")"

# ======== signals ========

# when_part SIG DIR CMD...: CMD in the background (SIG at its default
# action: a script's background jobs ignore SIGINT), SIG sent once a .part
# shows in DIR; the exit status
when_part() {
	local sig=$1 dir=$2 pid i=0
	shift 2
	env --default-signal="$sig" "$@" >/dev/null 2>"$tmp/sig.err" &
	pid=$!
	while ! ls "$dir" | grep -q '\.part$' && [ $i -lt 600 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	kill -"$sig" "$pid"
	wait "$pid"
}
synth --dims 4,4,4 --bytes 1000 --iterations 6 -o "$tmp/long.pcap" 2>/dev/null
mkdir "$tmp/sig"
for sig in INT TERM; do
	echo old >"$tmp/sig/m.csv"
	when_part $sig "$tmp/sig" "$T" replay "$tmp/long.pcap" --dims 4,4,4 --csv "$tmp/sig/m.csv"
	st=$?
	[ $st -eq $((128 + $(kill -l $sig))) ] && [ "$(cat "$tmp/sig/m.csv")" = old ] &&
	    no_part "$tmp/sig" && ok "replay-csv-sig$sig-no-part" ||
	    bad "replay-csv-sig$sig-no-part" "exit $st: $(ls "$tmp/sig"); $(cat "$tmp/sig.err")"
done
# an interrupted synth replaces nothing (--messages bounds it, should the
# signal come late)
cp "$tmp/ref.pcap" "$tmp/sig/good.pcap"
when_part INT "$tmp/sig" "$T" trace synth --dims 8,8,8 --app uniform --load 0.01 \
    --cycles 100000000 --messages 3000000 -o "$tmp/sig/good.pcap"
st=$?
[ $st -eq 130 ] && cmp -s "$tmp/sig/good.pcap" "$tmp/ref.pcap" && no_part "$tmp/sig" &&
    ok synth-interrupted-replaces-nothing ||
    bad synth-interrupted-replaces-nothing "exit $st: $(ls -l "$tmp/sig"); $(cat "$tmp/sig.err")"

# a synth started with SIGINT ignored (a script's background job, as here
# without env --default-signal) keeps ignoring it and writes every message
(trap '' INT; exec "$T" trace synth --dims 4,4,4 --app uniform --load 0.01 --cycles 100000000 \
    --messages 1000000 -o "$tmp/sig/ign.pcap") >/dev/null 2>"$tmp/sig.err" &
pid=$! i=0
while ! ls "$tmp/sig" | grep -q '\.part$' && [ $i -lt 600 ]; do sleep 0.01; i=$((i + 1)); done
kill -INT $pid
wait $pid
st=$?
n=$("$T" trace stat "$tmp/sig/ign.pcap" --json 2>/dev/null | jq .messages)
[ $st -eq 0 ] && [ "$n" = 1000000 ] && ok synth-sigint-ignored-stays-ignored ||
    bad synth-sigint-ignored-stays-ignored "exit $st, $n messages: $(cat "$tmp/sig.err")"
rm -f "$tmp/sig/ign.pcap"

# app --record stopped by SIGHUP mid-run: every trace whole
env --default-signal=HUP "$T" app halo3d --dims 4,4,4 --iterations 200 --record "$tmp/rec-hup" \
    >/dev/null 2>"$tmp/sig.err" &
pid=$!
i=0
while [ "$(cat "$tmp"/rec-hup/*.pcap 2>/dev/null | wc -c)" -lt 100000 ] && [ $i -lt 600 ]; do
	sleep 0.02
	i=$((i + 1))
done
kill -HUP $pid
wait $pid
st=$?
"$T" trace stat "$tmp/rec-hup" >/dev/null 2>"$tmp/err"
st2=$?
[ $st -eq 130 ] && [ $st2 -eq 0 ] && [ ! -s "$tmp/err" ] && ok app-record-sighup-whole ||
    bad app-record-sighup-whole "app exit $st: $(cat "$tmp/sig.err"); stat exit $st2: $(cat "$tmp/err")"

# run --record ended by SIGINT (run has no graceful stop): the handler
# cuts every trace at its last whole record before the signal ends it
env --default-signal=INT "$T" run --dims 8,8,8 --load 0.3 --record "$tmp/rec-int" \
    >/dev/null 2>"$tmp/sig.err" &
pid=$!
i=0
while [ "$(cat "$tmp"/rec-int/*.pcap 2>/dev/null | wc -c)" -lt 300000 ] && [ $i -lt 600 ]; do
	sleep 0.02
	i=$((i + 1))
done
kill -INT $pid
wait $pid
st=$?
"$T" trace stat "$tmp/rec-int" >/dev/null 2>"$tmp/err"
st2=$?
[ $st -eq 130 ] && [ $st2 -eq 0 ] && [ ! -s "$tmp/err" ] && ok run-record-sigint-whole ||
    bad run-record-sigint-whole "run exit $st: $(cat "$tmp/sig.err"); stat exit $st2: $(cat "$tmp/err")"
rm -rf "$tmp/rec-int"

# ======== a full disk ========

have_full=0
if full_disk; then
	have_full=1
	# 32 KiB of room: the traces fill it up mid-run
	rm "$tmp/full/filler"
	head -c $((64 * 1024 - 32768)) /dev/zero >"$tmp/full/filler"
	"$T" app halo3d --dims 2,2,2 --iterations 100 --record "$tmp/full/rec" >/dev/null 2>"$tmp/err"
	st=$?
	"$T" trace stat "$tmp/full/rec" >/dev/null 2>"$tmp/err2"
	st2=$?
	[ $st -eq 2 ] && grep -q "No space left on device; the trace keeps the [0-9]* whole records" "$tmp/err" &&
	    [ $st2 -eq 0 ] && [ ! -s "$tmp/err2" ] && ok app-record-full-disk-whole ||
	    bad app-record-full-disk-whole "app exit $st: $(cat "$tmp/err"); stat exit $st2: $(cat "$tmp/err2")"
	rm -rf "$tmp/full/rec"
else
	skip app-record-full-disk-whole "a tmpfs cannot be mounted (not root)"
fi

# ======== plot ========

if command -v gnuplot >/dev/null 2>&1; then
	"$T" sweep --dims 2,2,2 --loads 0.1 --ports A,D --csv >"$tmp/one.csv" 2>/dev/null
	nl="$tmp/new
line.png"
	"$T" plot "$tmp/one.csv" -o "$nl" 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] && [ "$(head -c 4 "$nl" | tail -c 3)" = PNG ] && no_part "$tmp" &&
	    ok plot-newline-in-name || bad plot-newline-in-name "exit $st: $(ls "$tmp"); $(cat "$tmp/err")"
	# one load: no warning from gnuplot (its stderr is ttsim's)
	[ $st -eq 0 ] && [ ! -s "$tmp/err" ] && ok plot-one-point-no-warning ||
	    bad plot-one-point-no-warning "exit $st: $(cat "$tmp/err")"
	"$T" sweep --dims 2,2,2 --loads 0.1 --plot "$tmp/sweep1.svg" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] && [ ! -s "$tmp/err" ] && ok sweep-plot-one-point-no-warning ||
	    bad sweep-plot-one-point-no-warning "exit $st: $(cat "$tmp/err")"
	# sweep's temporary CSV for gnuplot, in TMPDIR, goes with a signal
	mkdir "$tmp/tmpd"
	TMPDIR=$tmp/tmpd env --default-signal=TERM "$T" sweep --dims 8,8,8 \
	    --loads 0.05,0.1,0.15,0.2,0.25,0.3 --measure 200000 \
	    --plot "$tmp/long.svg" >/dev/null 2>&1 &
	pid=$! i=0
	while [ -z "$(ls "$tmp/tmpd")" ] && [ $i -lt 600 ]; do sleep 0.02; i=$((i + 1)); done
	made=$(ls "$tmp/tmpd")
	kill -TERM $pid
	wait $pid
	st=$?
	[ $st -eq 143 ] && [[ $made == ttsim-sweep-*.csv ]] && [ -z "$(ls "$tmp/tmpd")" ] &&
	    ok sweep-plot-sigTERM-temp-removed ||
	    bad sweep-plot-sigTERM-temp-removed "exit $st; made '$made'; left '$(ls "$tmp/tmpd")'"
	# replay's CDF of a trace of one message: every message equally late
	synth --messages 1 -o "$tmp/one-msg.pcap" 2>/dev/null
	"$T" replay "$tmp/one-msg.pcap" --dims 2,2,2 --plot "$tmp/cdf1.png" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st -eq 0 ] && [ "$(cat "$tmp/err")" = "ttsim replay: wrote $tmp/cdf1.png" ] &&
	    ok replay-plot-one-message-no-warning ||
	    bad replay-plot-one-message-no-warning "exit $st: $(cat "$tmp/err")"
	# the plot's input is not its output
	cp "$tmp/one.csv" "$tmp/data.png"
	"$T" plot "$tmp/data.png" -o "$tmp/data.png" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && cmp -s "$tmp/one.csv" "$tmp/data.png" && ok plot-o-over-its-csv ||
	    bad plot-o-over-its-csv "exit $st: $(cat "$tmp/err")"
	if [ $have_full = 1 ]; then
		echo old >"$tmp/full/p.png"
		yes filler >>"$tmp/full/filler" 2>/dev/null
		"$T" plot "$tmp/one.csv" -o "$tmp/full/p.png" 2>"$tmp/err"
		st=$?
		[ $st -eq 2 ] && grep -q "No space left on device" "$tmp/err" &&
		    [ "$(cat "$tmp/full/p.png")" = old ] && no_part "$tmp/full" &&
		    ok plot-full-disk-keeps-old || bad plot-full-disk-keeps-old "exit $st: $(cat "$tmp/err")"
	else
		skip plot-full-disk-keeps-old "a tmpfs cannot be mounted (not root)"
	fi
else
	skip plot-newline-in-name "gnuplot not installed"
fi
# no table line ends with a space
"$T" sweep --dims 2,2,2 --loads 0.1,0.9 --deadlock none >"$tmp/table" 2>&1
! grep -q ' $' "$tmp/table" && ok sweep-table-no-trailing-space ||
    bad sweep-table-no-trailing-space "$(grep -n ' $' "$tmp/table" | cat -A)"

finish
