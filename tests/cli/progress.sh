#!/usr/bin/env bash
# Progress on stderr when it is not a terminal: --progress gives each long
# command (run, sweep on one core and with workers, replay, replay
# --compare and --causal, app, analyze, verify) whole lines, newline
# ended and without a carriage return, of the form "LABEL: NN%, S s so
# far, S s left"; without it stderr stays empty, and --no-progress keeps
# a terminal's line away too.  TTSIM_PROGRESS_SECONDS is made small so
# that runs of a fraction of a second show lines; nothing is timed.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

export TTSIM_PROGRESS_SECONDS=0.02
line='^ttsim [a-z]+[^:]*: [0-9]+%, [0-9]+ s so far, [0-9]+ s left$'
warning='^ttsim [a-z]+: warning: '

# lines NAME WANT_LABEL CMD...: CMD with --progress writes at least one
# progress line starting with WANT_LABEL and nothing else on stderr but
# its warnings; without --progress nothing but the warnings
lines() {
	local name=$1 label=$2 st n other
	shift 2
	"$T" "$@" --progress >/dev/null 2>"$tmp/p.err"; st=$?
	n=$(grep -cE "$line" "$tmp/p.err")
	other=$(grep -vE "$line|$warning" "$tmp/p.err")
	if [ "$st" = 0 ] && [ "$n" -ge 1 ] && [ -z "$other" ] &&
	    ! grep -q $'\r' "$tmp/p.err" && grep -q "^$label" "$tmp/p.err"; then
		ok "$name-progress ($n lines)"
	else
		bad "$name-progress" "exit $st, $n lines: $(cat -v "$tmp/p.err" | head -5)"
	fi
	"$T" "$@" >/dev/null 2>"$tmp/q.err"; st=$?
	[ "$st" = 0 ] && ! grep -qvE "$warning" "$tmp/q.err" && ok "$name-quiet" ||
	    bad "$name-quiet" "exit $st: $(cat -v "$tmp/q.err" | head -5)"
}

lines run "ttsim run: " run --dims 4,4,4 --measure 100000
lines sweep "ttsim sweep, " sweep --dims 4,4,4 --loads 0.1,0.2,0.3 --measure 30000 --jobs 1
lines sweep-jobs "ttsim sweep, " sweep --dims 4,4,4 --loads 0.1,0.2,0.3 --measure 30000 --jobs 2
lines replay "ttsim replay: " replay traces/stencil-4x4x4 yaml/3dt-4x4x4.yaml
lines replay-compare "ttsim replay" replay traces/stencil-4x4x4 yaml/3dt-4x4x4.yaml \
    --compare D,2d --jobs 1
lines replay-causal "ttsim replay" replay traces/stencil-4x4x4 yaml/3dt-4x4x4.yaml --causal
lines app "ttsim app" app halo3d --dims 4,4,4 --iterations 6
lines analyze "ttsim analyze, 2DT 16x16: " analyze --dims 16,16
lines verify "ttsim verify, 2DT 16x16: " verify --dims 16,16

# --no-progress after --progress: the last one given wins
"$T" run --dims 4,4,4 --measure 100000 --progress --no-progress >/dev/null 2>"$tmp/err"
st=$?
[ "$st" = 0 ] && [ ! -s "$tmp/err" ] && ok no-progress-wins ||
    bad no-progress-wins "exit $st: $(cat -v "$tmp/err" | head -3)"

# on a terminal (script(1) gives one) the line rewrites itself; with
# --no-progress nothing shows
if command -v script >/dev/null 2>&1; then
	TTSIM_PROGRESS_AFTER=0 script -q -e -c "$T analyze --dims 16,16 --no-progress >/dev/null" \
	    "$tmp/typescript" >/dev/null 2>&1
	! grep -q '%' "$tmp/typescript" && ok no-progress-terminal ||
	    bad no-progress-terminal "$(cat -v "$tmp/typescript" | head -3)"
	TTSIM_PROGRESS_AFTER=0 script -q -e -c "$T analyze --dims 16,16 --progress >/dev/null" \
	    "$tmp/typescript" >/dev/null 2>&1
	grep -q $'\r''ttsim analyze, 2DT 16x16: ' "$tmp/typescript" && ok progress-terminal-rewrites ||
	    bad progress-terminal-rewrites "$(cat -v "$tmp/typescript" | head -3)"
else
	skip no-progress-terminal "script(1) is not installed"
fi

finish
