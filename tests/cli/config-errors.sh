#!/usr/bin/env bash
# Golden tests of the YAML loader's error messages: for every tests/config/bad-*.yaml, "ttsim analyze FILE" must exit
# with status 2 and print exactly the lines of the matching .err file on
# stderr.  The paths in the .err files are relative to the repository root,
# as given on the command line, so the checks run from there.
#
# TTSIM names the binary (default build/ttsim).

. "$(dirname "$0")/lib.sh"
if [ ! -x "$T" ]; then
	echo "config-errors.sh: $T is not an executable; build it or set TTSIM" >&2
	exit 1
fi

# check NAME FILE EXPECTED_ERR
check() {
	"$T" analyze "$2" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 2 ] && cmp -s "$3" "$tmp/err"; then
		ok "$1"
	elif [ "$status" -ne 2 ]; then
		bad "$1 (exit status $status, expected 2)" "$(diff -u "$3" "$tmp/err")"
	else
		bad "$1 (stderr differs)" "$(diff -u "$3" "$tmp/err")"
	fi
}

for yaml in tests/config/bad-*.yaml; do
	name=$(basename "$yaml" .yaml)
	if [ ! -f "tests/config/$name.err" ]; then
		bad "$name (no tests/config/$name.err)"
		continue
	fi
	check "$name" "$yaml" "tests/config/$name.err"
done

# A missing file is a config error too, reported without a position.
missing=tests/config/no-such-file.yaml
printf '%s: cannot open: No such file or directory\n' "$missing" >"$tmp/missing.err"
check no-such-file "$missing" "$tmp/missing.err"

finish
