#!/usr/bin/env bash
# The repository's own limits, checked on every make check, so that they
# hold after each change rather than once:
#   - no .c file outside tests/ over 1,500 lines (bench/ and tools/ count);
#   - no function over 150 lines in lib/, sim/ or daemon/ (Universal Ctags
#     gives each function's first and last line);
#   - README.md at most 500 lines: a tour; the reference is in man/;
#   - the repository stands alone: no file cites a document that is not in
#     it (a design file, a directory beside the checkout);
#   - the engine is below its sources: no lib/engine/ file includes a
#     source's header (doc/ARCHITECTURE.md, "The engine below its sources").
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
git rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git checkout"

big=$(git ls-files '*.c' | grep -v '^tests/' | xargs wc -l | awk '$2 != "total" && $1 > 1500')
[ -z "$big" ] && ok "no .c file outside tests/ over 1,500 lines" ||
    bad "files over 1,500 lines" "$big"

if command -v ctags >/dev/null; then
	long=$(ctags --fields=+ne --c-kinds=f -o - lib/*/*.c sim/*.c daemon/*.c |
	    awk -F'\t' '{ l = e = 0
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^line:/) l = substr($i, 6)
			if ($i ~ /^end:/) e = substr($i, 5)
		}
		if (e - l + 1 > 150) print $2 ": " $1 " " e - l + 1 " lines" }')
	n=$(ctags --c-kinds=f -o - lib/*/*.c sim/*.c daemon/*.c | wc -l)
	[ -z "$long" ] && [ "$n" -gt 100 ] && ok "no function over 150 lines ($n functions)" ||
	    bad "functions over 150 lines" "$long"
else
	skip functions "ctags missing (make deps installs universal-ctags)"
fi

lines=$(wc -l <README.md)
[ "$lines" -le 500 ] && ok "README.md: $lines lines (at most 500)" ||
    bad "README.md: $lines lines, more than 500" "move reference material to man/"

# the pattern is split so that this file does not match itself
cites=$(git grep -nE 'DESIGN''\.md|\.\./sha''red/' -- . ':!*.pcap' ':!*.pcapng' || true)
[ -z "$cites" ] && ok "no file cites a document outside the repository" ||
    bad "files citing a document outside the repository" "$cites"

up=$(grep -nE '#include "(twintorus/(causal|motif|replay|workload|traffic|mpitrace|infer)\.h|sources/)' \
    lib/engine/*.c lib/engine/*.h || true)
[ -z "$up" ] && ok "no engine file includes a source's header" ||
    bad "engine files including a source's header" "$up"

finish
