#!/usr/bin/env bash
# ttsim's command line, every command: the golden flag errors (each
# tests/cli/flags/NAME.args, one argument a line, must exit 2 with exactly
# NAME.err on stderr), --name=value and --name value alike, every flag a
# command's --help names accepted by it and every flag it accepts named
# in its --help, and standard output that cannot
# be written (a full disk) failing the command with one message.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

# --- golden errors: exit 2 and the expected message, nothing else ---
for args in tests/cli/flags/*.args; do
	name=flag-$(basename "$args" .args)
	mapfile -t argv < "$args"
	"$T" "${argv[@]}" >/dev/null 2>"$tmp/err"; st=$?
	if [ "$st" -eq 2 ] && diff -u "${args%.args}.err" "$tmp/err" >/dev/null; then
		ok "$name"
	else
		bad "$name" "exit $st; $(diff -u "${args%.args}.err" "$tmp/err")"
	fi
done

# --- --name=value is --name value ---
# same CMD... -- ARGS...: the command's output with the flags as given
# and with every "--name value" pair written "--name=value"
same() {
	local name=$1 a=() b=() i
	shift
	a=("$@")
	for ((i = 0; i < ${#a[@]}; i++)); do
		if [[ ${a[i]} == --* && $((i + 1)) -lt ${#a[@]} && ${a[i + 1]} != -* ]] &&
		    [[ ${a[i]} != --json && ${a[i]} != --plain ]]; then
			b+=("${a[i]}=${a[i + 1]}")
			i=$((i + 1))
		else
			b+=("${a[i]}")
		fi
	done
	"$T" "${a[@]}" >"$tmp/a" 2>&1
	"$T" "${b[@]}" >"$tmp/b" 2>&1
	if cmp -s "$tmp/a" "$tmp/b" && [ -s "$tmp/a" ]; then
		ok "equals-$name"
	else
		bad "equals-$name" "$* :: $(diff "$tmp/a" "$tmp/b" | head -5)"
	fi
}
same analyze analyze --dims 4,4,4 --ports D --deadlock bubble --json
same verify verify --dims 4,4,4 --ports D --deadlock none --flow 1,1,1/1:2,1,2/0 --json
same run run --dims 2,2,2 --load 0.2 --seed 3 --warmup 100 --measure 300 --packet-flits 8 --json
same sweep sweep --topo 2x2x2,4x4:plain --loads 0.1,0.2 --warmup 100 --measure 300 --csv
same stat trace stat traces/alltoall-4x4x4.pcap --top 3 --dims 4,4,4 --json
same replay replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --speed 2 --link-gbps 40 --top 2
same replay-causal replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --causal --burst-gap 20000 --compare D,A
same app app pingpong --dims 2,2,2 --iterations 3 --bytes 4096 --compute-ns 1000 --link-gbps 40 --csv -
same infer trace infer traces/allreduce-2x2x2.pcap --dims 2,2,2 --pause 500 --window 1000000 -o /dev/null

# "--" ends the flags: what follows is an argument, even with a dash
if "$T" trace stat --top 2 -- traces/alltoall-4x4x4.pcap >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^1 file, ' "$tmp/out"; then
	ok double-dash
else
	bad double-dash "$(cat "$tmp/err")"
fi

# --- every flag a command's --help names, the command takes ---
# Each flag is given followed by a flag no command has: a taken flag
# (with or without its value) leads to an error about the other one or
# about its value, never to "unknown flag" about itself.
mkdir -p "$tmp/scratch"
Tabs=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
# every flag of every option table in sim/, and every flag any --help names
all_flags=$( {
	grep -ohE 'OPT_(FLAG|VAL|VALDEF)\("[a-z0-9-]+"' sim/*.c | sed 's/.*("/--/; s/"$//'
	for cmd in analyze verify run sweep plot "trace synth" "trace stat" \
	    "trace infer" "trace calibrate" "trace export" replay "app halo3d"; do
		# shellcheck disable=SC2086
		"$T" $cmd --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]'
	done; } | sort -u)
[ "$(wc -w <<<"$all_flags")" -gt 80 ] && ok "flags of sim/'s tables ($(wc -w <<<"$all_flags"))" ||
    bad "flags of sim/'s tables" "only $(wc -w <<<"$all_flags") found: $all_flags"
for cmd in analyze verify run sweep plot "trace synth" "trace stat" \
    "trace infer" "trace calibrate" "trace export" replay "app halo3d"; do
	# shellcheck disable=SC2086  # "trace synth" is two words
	"$T" $cmd --help >"$tmp/help" 2>&1 || { bad "help-${cmd// /-}" "exit $?"; continue; }
	missing=""
	n=0
	# plot's help names sweep's --csv, where its input comes from, and
	# trace infer's, trace export's and replay's name replay --causal and
	# app --deps-out, where theirs goes and comes from
	for f in $(grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/help" | sort -u); do
		[[ $cmd == plot && $f == --csv ]] && continue
		[[ $cmd == "trace infer" && $f == --causal ]] && continue
		[[ $cmd == "trace infer" || $cmd == "trace export" || $cmd == replay ]] &&
		    [[ $f == --deps-out ]] && continue
		n=$((n + 1))
		# Twice: a flag that takes a value takes the first, and the
		# second stops the parse, so that nothing ever runs (run
		# --record or app --csv would write a file of that name); in
		# the scratch directory all the same.
		# shellcheck disable=SC2086
		(cd "$tmp/scratch" && "$Tabs" $cmd "$f" --no-such-flag --no-such-flag) \
		    >/dev/null 2>"$tmp/err"
		grep -q "unknown flag '$f'" "$tmp/err" && missing="$missing $f"
	done
	[ -z "$missing" ] && [ "$n" -gt 0 ] && ok "help-${cmd// /-} ($n flags)" ||
	    bad "help-${cmd// /-}" "named in --help but refused:$missing"
	# The reverse: every flag the command takes is in its --help.  The
	# candidates are every flag any table of sim/ declares (OPT_FLAG,
	# OPT_VAL, OPT_VALDEF) and any command's help names; one the help
	# leaves out must be refused as unknown.
	hidden=""
	m=0
	for f in $all_flags; do
		grep -q -- "$f\([^a-z0-9-]\|\$\)" "$tmp/help" && continue
		m=$((m + 1))
		# shellcheck disable=SC2086
		(cd "$tmp/scratch" && "$Tabs" $cmd "$f" --no-such-flag --no-such-flag) \
		    >/dev/null 2>"$tmp/err"
		grep -q "unknown flag '$f'" "$tmp/err" || hidden="$hidden $f"
	done
	[ -z "$hidden" ] && [ "$m" -gt 0 ] && ok "help-lists-all-${cmd// /-} ($m others refused)" ||
	    bad "help-lists-all-${cmd// /-}" "taken but not in ttsim $cmd --help (give it a help string in its option table):$hidden"
done

# --- standard output that cannot be written ---
# A file on a full disk (lib.sh's full_disk) takes no byte (ENOSPC).  Each
# command must exit 2 with the one message.
if full_disk; then
	# want: the message, when the output is a file the command opens
	# itself (--csv -) rather than its own standard output
	full() {
		local name=$1 want=${want:-"ttsim: cannot write standard output: No space left on device"}
		shift
		"$T" "$@" >"$tmp/full/out-$name" 2>"$tmp/err"; st=$?
		if [ "$st" -eq 2 ] && [ "$(cat "$tmp/err")" = "$want" ]; then
			ok "full-$name"
		else
			bad "full-$name" "exit $st: $(cat "$tmp/err")"
		fi
	}
	full help --help
	full analyze analyze
	full analyze-json analyze --ports all --json
	full verify verify --dims 4,4,4
	full run run --dims 2,2,2 --warmup 100 --measure 300
	full sweep sweep --dims 2,2,2 --loads 0.1,0.2 --warmup 100 --measure 300
	full stat trace stat traces/alltoall-4x4x4.pcap
	full replay replay traces/uniform-4x4x4.pcap --dims 4,4,4 --json
	want="ttsim replay: --csv standard output: write failed: No space left on device" \
	    full replay-csv replay traces/uniform-4x4x4.pcap --dims 4,4,4 --csv -
	full app app pingpong --dims 2,2,2 --iterations 3 --bytes 4096 --record "$tmp/rec"
	full replay-causal replay "$tmp/rec" --dims 2,2,2 --causal
	full infer trace infer "$tmp/rec" --dims 2,2,2 -o "$tmp/rec.deps"
	want="ttsim trace infer: -o standard output: write failed: No space left on device" \
	    full infer-stdout trace infer traces/uniform-4x4x4.pcap --dims 4,4,4 -o -
	for b in 64 1024 4096; do
		"$T" app pingpong --dims 2,2,2 --ranks 0,9 --iterations 4 --bytes "$b" \
		    --record "$tmp/cal$b" >/dev/null 2>&1
	done
	full calibrate trace calibrate "$tmp/cal64" "$tmp/cal1024" "$tmp/cal4096" --dims 2,2,2
	want="ttsim trace calibrate: -o standard output: write failed: No space left on device" \
	    full calibrate-model trace calibrate "$tmp/cal64" "$tmp/cal1024" "$tmp/cal4096" --dims 2,2,2 -o -
else
	skip full "not root: cannot mount a tmpfs to fill"
fi

finish
