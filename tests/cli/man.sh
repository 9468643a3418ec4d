#!/usr/bin/env bash
# The manual pages (man/) as a user and a packager meet them:
#   - every page's .TH names the version of include/twintorus/version.h;
#   - every page renders without a warning: groff -man -ww prints nothing,
#     man -l shows its NAME, and mandoc -Tlint finds no warning (mandoc is
#     in make deps; without it that check is a SKIP line);
#   - `make install` puts every page in man<section>/ and `make uninstall`
#     removes it (read from make -n, nothing is installed);
#   - twintorus.yaml(5) documents exactly the keys the loader accepts: the
#     keys are found by asking the loader itself (ttsim analyze on a probe
#     file with an unknown key in each mapping; its "unknown key ...
#     (expected ...)" message lists the mapping's keys), recursively, and
#     every top-level section must have a section heading of its name and
#     every other key a .TP entry "key: ..."; a .TP entry for a key the
#     loader does not accept fails too;
#   - every example file in twintorus.yaml(5) loads (ttsim analyze, and
#     ttd check when it has nodes:), and its example of a bad file gives
#     exactly the errors printed beside it, exit 2 from ttsim and 78 from
#     ttd check.
# TTSIM and TTD name the binaries (default build/ttsim, build/ttd).  About
# a second.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
page=man/twintorus.yaml.5

# ---- rendering ----
for m in man/*.[1-9]; do
	name=$(basename "$m")
	groff -man -Tutf8 -ww -z "$m" >"$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ] &&
	    ok "groff-no-warnings $name" || bad "groff-no-warnings $name" "$(cat "$tmp/groff")"
	MANWIDTH=80 man -l "$m" 2>"$tmp/err" | col -b >"$tmp/rendered"
	title=$(sed -n 's/^\.TH \([^ ]*\) .*/\1/p' "$m")
	grep -q '^NAME' "$tmp/rendered" && grep -q "^$title(" "$tmp/rendered" &&
	    [ ! -s "$tmp/err" ] &&
	    ok "man-renders $name" || bad "man-renders $name" "$(cat "$tmp/err"; head -5 "$tmp/rendered")"
	if command -v mandoc >/dev/null 2>&1; then
		mandoc -Tlint -Wwarning "$m" >"$tmp/lint" 2>&1 &&
		    ok "mandoc-lint $name" || bad "mandoc-lint $name" "$(cat "$tmp/lint")"
	else
		skip "mandoc-lint $name" "mandoc not installed (make deps installs it)"
	fi
done

# ---- the version: include/twintorus/version.h's, in every page's .TH ----
# The pages carry it written out, so that man -l reads them from the source
# tree as installed; a new version is written into each page.
version=$(sed -n 's/^#define TT_VERSION "\(.*\)"$/\1/p' include/twintorus/version.h)
for m in man/*.[1-9]; do
	name=$(basename "$m")
	got=$(sed -n 's/^\.TH [^ ]* [^ ]* "[^"]*" "\([^"]*\)".*/\1/p' "$m")
	[ -n "$version" ] && [ "$got" = "twintorus $version" ] &&
	    ok "version $name" ||
	    bad "version $name" "$m: .TH says \"$got\", include/twintorus/version.h says \"$version\": write \"twintorus $version\" in $m's .TH line"
done

# ---- install and uninstall ----
make -s -n install PREFIX=/usr DESTDIR="$tmp/root" >"$tmp/install" 2>&1
make -s -n uninstall PREFIX=/usr DESTDIR="$tmp/root" >"$tmp/uninstall" 2>&1
for m in man/*.[1-9]; do
	name=$(basename "$m")
	dest="$tmp/root/usr/share/man/man${name##*.}/$name"
	grep -qF -- "$m $dest" "$tmp/install" &&
	    ok "installed $name" || bad "installed $name" "make install has no line installing $m to $dest"
	grep -qF -- "$dest" "$tmp/uninstall" &&
	    ok "uninstalled $name" || bad "uninstalled $name" "make uninstall does not remove $dest"
done

if [ ! -x "$T" ] || [ ! -x "$D" ]; then
	bad "binaries" "$T or $D is not built (make)"
	echo "$pass passed, $fail failed"
	exit 1
fi
# absolute, for the checks that run in another directory
T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
D=$(cd "$(dirname "$D")" && pwd)/$(basename "$D")

# ---- the keys the loader accepts ----

# yaml_at PATH LEAF: a flow-style document with LEAF at PATH, components
# separated by dots, "name[]" a list of one element ("nodes[].cards[]").
yaml_at() {
	local path=$1 leaf=$2 first rest
	if [ -z "$path" ]; then
		printf '%s' "$leaf"
		return
	fi
	first=${path%%.*}
	rest=${path#"$first"}
	rest=${rest#.}
	case $first in
	*'[]') printf '{%s: [%s]}' "${first%'[]'}" "$(yaml_at "$rest" "$leaf")" ;;
	*)     printf '{%s: %s}' "$first" "$(yaml_at "$rest" "$leaf")" ;;
	esac
}

# expected_keys PATH: the keys the loader lists for the mapping at PATH,
# one per line; nothing when PATH is not a mapping of fixed keys.
expected_keys() {
	yaml_at "$1" '{zz_probe: 1}' >"$tmp/probe.yaml"
	"$T" analyze "$tmp/probe.yaml" 2>&1 >/dev/null |
	    sed -n 's/.*: unknown \(key\|section\) [^ ]*zz_probe (expected \(.*\))$/\2/p' |
	    sed 's/ or /, /g; s/, /\n/g'
}

# Breadth first from the top level: each key, as a mapping and as a list
# of mappings, at most four levels down.  Top-level keys are sections.
expected_keys "" | sort -u >"$tmp/sections"
: >"$tmp/keys"
queue=()
while read -r k; do queue+=("$k"); done <"$tmp/sections"
i=0
while [ "$i" -lt "${#queue[@]}" ]; do
	here=${queue[$i]}
	i=$((i + 1))
	case $here in *.*) echo "${here##*.}" >>"$tmp/keys" ;; esac
	[ "$(printf '%s' "$here" | tr -cd . | wc -c)" -lt 3 ] || continue
	for sub in "$here" "${here}[]"; do
		while read -r k; do
			queue+=("$sub.$k")
		done < <(expected_keys "$sub")
	done
done
sort -u "$tmp/keys" -o "$tmp/keys"
# The loader must have answered: at least torus: and its dims.
grep -qx torus "$tmp/sections" && grep -qx dims "$tmp/keys" &&
    ok "loader lists $(wc -l <"$tmp/sections") sections and $(wc -l <"$tmp/keys") keys" ||
    bad "loader keys" "sections: $(tr '\n' ' ' <"$tmp/sections"); keys: $(tr '\n' ' ' <"$tmp/keys")"

# Each section has a heading of its name.
while read -r sec; do
	up=$(printf '%s' "$sec" | tr '[:lower:]' '[:upper:]')
	grep -qx "\.SH \"*$up\"*" "$page" &&
	    ok "page-section $sec" || bad "page-section $sec" "$page has no .SH $up"
done <"$tmp/sections"

# The page's .TP entries for keys: the tag line's first word, "name:".
awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$page" |
    sed 's/^\.[A-Z]* *//; s/"//g; s/\\-/-/g' | awk '{ print $1 }' |
    grep -E '^[a-z][a-z0-9_]*:$' | sed 's/:$//' | sort -u >"$tmp/page-keys"
while read -r k; do
	grep -qx "$k" "$tmp/page-keys" &&
	    ok "page-key $k" || bad "page-key $k" "the loader accepts $k but $page has no .TP entry \"$k: ...\""
done <"$tmp/keys"
while read -r k; do
	grep -qx "$k" "$tmp/keys" ||
	    bad "page-key-known $k" "$page documents $k, which the loader does not accept"
done <"$tmp/page-keys"

# ---- the page's examples ----

# block MARK: the .EX block after the line '.\" test: MARK', unescaped.
# With N, the Nth such block.
block() {
	awk -v mark="$1" -v want="${2:-1}" '
	    $0 == ".\\\" test: " mark { n++; armed = (n == want); next }
	    armed && /^\.EX/ { inside = 1; next }
	    inside && /^\.EE/ { exit }
	    inside { print }' "$page" |
	    sed 's/\\-/-/g; s/\\e/\\/g; s/\\(dq/"/g; s/\\&//g'
}

nex=$(grep -c '^\.\\" test: example$' "$page")
[ "$nex" -gt 0 ] && ok "page has $nex examples" || bad "examples" "no '.\\\" test: example' blocks in $page"
for n in $(seq 1 "$nex"); do
	block example "$n" >"$tmp/example-$n.yaml"
	"$T" analyze "$tmp/example-$n.yaml" >/dev/null 2>"$tmp/err" &&
	    ok "example $n loads (ttsim analyze)" ||
	    bad "example $n loads (ttsim analyze)" "$(cat "$tmp/example-$n.yaml" "$tmp/err")"
	grep -q '^nodes:' "$tmp/example-$n.yaml" || continue
	"$D" check -c "$tmp/example-$n.yaml" >/dev/null 2>"$tmp/err" &&
	    ok "example $n loads (ttd check)" ||
	    bad "example $n loads (ttd check)" "$(cat "$tmp/err")"
done

# ---- the pages against the commands ----
# Every flag a command's --help names is described in its page, and every
# ttd and ttbed command has its entry in ttd(8), ttbed(8).
render() { MANWIDTH=200 man -l "$1" 2>/dev/null | col -b; }
render man/ttsim.1 >"$tmp/ttsim.txt"
render man/ttd.8 >"$tmp/ttd.txt"
missing= n=0
for c in analyze verify run sweep plot "trace synth" "trace stat" "trace infer" "trace calibrate" replay app; do
	# shellcheck disable=SC2086  # "trace synth": two words
	for f in $("$T" $c --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		n=$((n + 1))
		grep -qF -- "$f" "$tmp/ttsim.txt" || missing="$missing $c:$f"
	done
done
[ -z "$missing" ] && [ "$n" -gt 50 ] && ok "ttsim(1) describes every flag the commands' --help name ($n)" ||
    bad "ttsim(1) lacks flags" "$missing"
missing= n=0
for f in $("$D" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
	n=$((n + 1))
	grep -qF -- "$f" "$tmp/ttd.txt" || missing="$missing $f"
done
for c in run check routes status discover; do
	n=$((n + 1))
	grep -qE "^ +ttd $c( |$)|^ +$c( |$)" "$tmp/ttd.txt" || missing="$missing command:$c"
done
[ -z "$missing" ] && [ "$n" -gt 10 ] && ok "ttd(8) describes every command and every flag ttd --help names ($n)" ||
    bad "ttd(8) lacks" "$missing"
render man/ttbed.8 >"$tmp/ttbed.txt"
missing= n=0
for f in $(bash tools/ttbed/ttbed --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
	n=$((n + 1))
	grep -qF -- "$f" "$tmp/ttbed.txt" || missing="$missing $f"
done
for c in up mpirun record status down; do
	n=$((n + 1))
	grep -qE "^ +$c( |$)" "$tmp/ttbed.txt" || missing="$missing command:$c"
done
[ -z "$missing" ] && [ "$n" -gt 10 ] && ok "ttbed(8) describes every command and every flag ttbed --help names ($n)" ||
    bad "ttbed(8) lacks" "$missing"

# The bad file, loaded under the name the page gives it.
mkdir "$tmp/bad"
block bad.yaml >"$tmp/bad/bad.yaml"
block "bad.yaml errors" >"$tmp/bad/expected"
(cd "$tmp/bad" && "$T" analyze bad.yaml >/dev/null 2>got; echo $? >status)
[ -s "$tmp/bad/expected" ] && [ "$(cat "$tmp/bad/status")" -eq 2 ] &&
    diff -u "$tmp/bad/expected" "$tmp/bad/got" >"$tmp/diff" &&
    ok "bad example: the errors the page shows, exit 2" ||
    bad "bad example" "exit $(cat "$tmp/bad/status"); $(cat "$tmp/diff")"
(cd "$tmp/bad" && "$D" check -c bad.yaml >/dev/null 2>got; echo $? >status)
[ "$(cat "$tmp/bad/status")" -eq 78 ] && cmp -s "$tmp/bad/expected" "$tmp/bad/got" &&
    ok "bad example: ttd check prints the same, exit 78" ||
    bad "bad example (ttd check)" "exit $(cat "$tmp/bad/status"); $(diff -u "$tmp/bad/expected" "$tmp/bad/got")"

finish
