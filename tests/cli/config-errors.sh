#!/bin/sh
# Golden tests of the YAML loader's error messages (the README's "The YAML
# config"): for every tests/config/bad-*.yaml, "ttsim analyze FILE" must exit
# with status 2 and print exactly the lines of the matching .err file on
# stderr.  The paths in the .err files are relative to the repository root,
# as given on the command line, so the checks run from there.
#
# TTSIM names the binary (default build/ttsim).

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
ttsim=${TTSIM:-build/ttsim}
case $ttsim in
/*) ;;
*)	# relative to where we were started, else to the repository root
	if [ -f "$ttsim" ]; then ttsim=$(pwd)/$ttsim; else ttsim=$top/$ttsim; fi ;;
esac
cd "$top" || exit 1
if [ ! -x "$ttsim" ]; then
	echo "config-errors.sh: $ttsim is not an executable; build it or set TTSIM" >&2
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0

# check NAME FILE EXPECTED_ERR
check() {
	"$ttsim" analyze "$2" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 2 ] && cmp -s "$3" "$tmp/err"; then
		echo "ok $1"
		pass=$((pass + 1))
	else
		if [ "$status" -ne 2 ]; then
			echo "FAIL $1 (exit status $status, expected 2)"
		else
			echo "FAIL $1 (stderr differs)"
		fi
		diff -u "$3" "$tmp/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

for yaml in tests/config/bad-*.yaml; do
	name=$(basename "$yaml" .yaml)
	if [ ! -f "tests/config/$name.err" ]; then
		echo "FAIL $name (no tests/config/$name.err)"
		fail=$((fail + 1))
		continue
	fi
	check "$name" "$yaml" "tests/config/$name.err"
done

# A missing file is a config error too, reported without a position.
missing=tests/config/no-such-file.yaml
printf '%s: cannot open: No such file or directory\n' "$missing" >"$tmp/missing.err"
check no-such-file "$missing" "$tmp/missing.err"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
