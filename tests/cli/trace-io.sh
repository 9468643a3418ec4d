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
#     pipe is called empty.
# Never touches a device node: the FIFOs, links and files are made in a
# temporary directory, removed at the end.  A few seconds.
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

finish
