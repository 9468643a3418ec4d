#!/usr/bin/env bash
# The repository's own limits, checked on every make check, so that they
# hold after each change rather than once:
#   - no .c file outside tests/ over 1,500 lines (bench/ and tools/ count);
#   - no function over 150 lines in lib/, sim/ or daemon/ (Universal Ctags
#     gives each function's first and last line);
#   - README.md at most 500 lines: a tour; the reference is in man/;
#   - the repository stands alone: no file cites a document that is not in
#     it (a design file, a directory beside the checkout);
#   - every source of lib/, sim/ and daemon/ (.c, .h) is named in
#     doc/ARCHITECTURE.md or in its folder's README.md (lib/README.md,
#     sim/README.md, daemon/README.md): by its file name there (a .c file
#     also by its name without .c, as a code span), and in
#     doc/ARCHITECTURE.md by its path below its folder (sim/jobs.c,
#     engine/sim.c) or, when no other source has that name, by its name;
#   - every unit test (tests/unit/test_*.c), CLI script (tests/cli/*.sh) and
#     fuzz target (tests/fuzz/fuzz_*.c) is named in tests/README.md, with
#     or without .c;
#   - the top of the repository holds only the files a reader expects
#     there (directories are not checked);
#   - the engine is below its sources: no lib/engine/ file includes a
#     source's header (doc/ARCHITECTURE.md, "The engine below its sources").
# Files not yet committed count (git ls-files --others, not ignored), so
# that a new file fails here before it is committed.
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

# tt_named FILE NAME...: FILE names one of NAME as a word (a name's
# characters, with . - and /, on neither side).  Each NAME is literal.
tt_named() {
	local file=$1 name re=""
	shift
	for name in "$@"; do
		re="$re${re:+|}$(printf '%s' "$name" | sed 's/[][\\.^$*+?(){}|]/\\&/g')"
	done
	grep -qE "(^|[^A-Za-z0-9_.-])($re)([^A-Za-z0-9_-]|[.]([^A-Za-z0-9_]|$)|$)" "$file"
}
files() { git ls-files --cached --others --exclude-standard -- "$@" | sort -u; }

# ---- every source documented ----
srcs=$(files 'lib/*.[ch]' 'sim/*.[ch]' 'daemon/*.[ch]')
undoc=""
for f in $srcs; do
	base=${f##*/} top=${f%%/*} readme=${f%%/*}/README.md
	stem=${base%.c}
	names=("$base")
	[ "$stem" != "$base" ] && names+=("\`$stem\`")
	[ -f "$readme" ] && tt_named "$readme" "${names[@]}" && continue
	arch=("$f")
	rel=${f#"$top"/}                        # engine/sim.c
	[ "$rel" != "$base" ] && arch+=("$rel")
	[ "$(printf '%s\n' "$srcs" | grep -c "/$base\$")" -eq 1 ] && arch+=("${names[@]}")
	tt_named doc/ARCHITECTURE.md "${arch[@]}" && continue
	undoc="$undoc$f: named in neither doc/ARCHITECTURE.md nor $readme; add it to one of them"$'\n'
done
n=$(printf '%s\n' "$srcs" | grep -c .)
[ "$n" -gt 80 ] || undoc="only $n sources found under lib/, sim/, daemon/ (git ls-files)"
[ -z "$undoc" ] && ok "every source of lib/, sim/, daemon/ documented ($n files)" ||
    bad "sources not documented" "${undoc%$'\n'}"

# ---- every test in the inventory ----
tests=$(files 'tests/unit/test_*.c' 'tests/cli/*.sh' 'tests/fuzz/fuzz_*.c')
untold=""
for f in $tests; do
	base=${f##*/}
	names=("$base")
	[ "${base%.c}" != "$base" ] && names+=("${base%.c}")
	tt_named tests/README.md "${names[@]}" ||
	    untold="$untold$f: not named in tests/README.md; add a row for it"$'\n'
done
n=$(printf '%s\n' "$tests" | grep -c .)
[ "$n" -gt 40 ] || untold="only $n tests found under tests/unit, tests/cli, tests/fuzz (git ls-files)"
[ -z "$untold" ] && ok "every test named in tests/README.md ($n files)" ||
    bad "tests not in tests/README.md" "${untold%$'\n'}"

# ---- the top of the repository ----
allowed=" Makefile README.md twintorus.pc.in .gitignore LICENSE COPYING NEWS CHANGELOG CONTRIBUTING.md .gitattributes .editorconfig .clang-format "
stray=""
for f in $(git ls-files --cached --others --exclude-standard | grep -v / | sort -u); do
	case $allowed in *" $f "*) ;; *) stray="$stray$f: not a file for the top of the repository; move it into a folder (allowed:$allowed)"$'\n' ;; esac
done
[ -z "$stray" ] && ok "only the expected files at the top of the repository" ||
    bad "files at the top of the repository" "${stray%$'\n'}"

up=$(grep -nE '#include "(twintorus/(causal|motif|replay|workload|traffic|mpitrace|infer)\.h|sources/)' \
    lib/engine/*.c lib/engine/*.h || true)
[ -z "$up" ] && ok "no engine file includes a source's header" ||
    bad "engine files including a source's header" "$up"

finish
