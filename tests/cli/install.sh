#!/usr/bin/env bash
# The library as a distribution packages it:
#   - `make install` into a DESTDIR with a multiarch LIBDIR writes a
#     pkg-config file that names that LIBDIR;
#   - a C++ program including every public header links against the
#     installed libtwintorus.a with -lyaml -lpcap -lm alone, and against
#     the shared library through pkg-config, and runs;
#   - the shared library exports only what the public headers declare;
#   - a packager's LDFLAGS reach every link and CPPFLAGS every compile,
#     without losing the build's own flags;
#   - `make uninstall` removes every file that install wrote.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

if ! command -v g++ >/dev/null || ! command -v pkg-config >/dev/null; then
	skip_all "g++ or pkg-config missing (make deps installs them)"
fi
root=$tmp/root
multi=/usr/lib/x86_64-linux-gnu
where=(DESTDIR="$root" PREFIX=/usr LIBDIR="$multi" UNITDIR=/usr/lib/systemd/system)
if make -s install "${where[@]}" >"$tmp/install.log" 2>&1; then
	ok "make install into DESTDIR with LIBDIR=$multi"
else
	bad "make install" "$(tail -5 "$tmp/install.log")"
	finish; exit 1
fi

pc=$root$multi/pkgconfig/twintorus.pc
[ "$(sed -n 's/^libdir=//p' "$pc")" = "$multi" ] &&
    [ "$(sed -n 's/^includedir=//p' "$pc")" = /usr/include ] &&
    ok "pkg-config file names libdir $multi" || bad "pkg-config libdir" "$(cat "$pc")"

# Static: the core library's own link dependencies only.
if g++ -std=c++11 -Wall -Wextra -Werror -I"$root/usr/include" \
    tests/cxx/use-headers.cc "$root$multi/libtwintorus.a" -lyaml -lpcap -lm \
    -o "$tmp/cxx-static" 2>"$tmp/err" && "$tmp/cxx-static" >"$tmp/out" &&
    grep -q '^twintorus .*: 128 PEs' "$tmp/out"; then
	ok "C++ program links libtwintorus.a with -lyaml -lpcap -lm and runs"
else
	bad "C++ static link" "$(cat "$tmp/err" "$tmp/out" 2>/dev/null)"
fi
# Shared, through pkg-config as a user's build would ask.
flags=$(PKG_CONFIG_PATH=$root$multi/pkgconfig pkg-config --cflags --libs \
    --define-variable=libdir="$root$multi" \
    --define-variable=includedir="$root/usr/include" twintorus)
# shellcheck disable=SC2086  # flags are words
if g++ -std=c++11 -Wall -Werror tests/cxx/use-headers.cc $flags \
    -o "$tmp/cxx-shared" 2>"$tmp/err" &&
    LD_LIBRARY_PATH=$root$multi "$tmp/cxx-shared" >"$tmp/out2" &&
    cmp -s "$tmp/out" "$tmp/out2"; then
	ok "C++ program links the shared library through pkg-config"
else
	bad "C++ shared link" "$(cat "$tmp/err" "$tmp/out2" 2>/dev/null)"
fi

# Exports: every symbol of the .so is declared in an installed header.
nm -D --defined-only "$root$multi/libtwintorus.so" | awk '{print $3}' | sort >"$tmp/exports"
undeclared=$(while read -r s; do
	grep -qw -- "$s" "$root"/usr/include/twintorus/*.h || echo "$s"
done <"$tmp/exports")
[ -s "$tmp/exports" ] && [ -z "$undeclared" ] &&
    ok "the shared library exports $(wc -l <"$tmp/exports") symbols, each declared in a public header" ||
    bad "private symbols exported" "$undeclared"
# ... and every function a public header declares is exported (a header
# without TT_BEGIN_DECLS would leave its functions hidden).
if command -v ctags >/dev/null; then
	ctags -x --c-kinds=p "$root"/usr/include/twintorus/*.h | awk '{print $1}' |
	    sort -u >"$tmp/protos"
	hidden=$(comm -23 "$tmp/protos" "$tmp/exports")
	[ -s "$tmp/protos" ] && [ -z "$hidden" ] &&
	    ok "all $(wc -l <"$tmp/protos") functions the public headers declare are exported" ||
	    bad "declared but not exported" "$hidden"
else
	skip exports-complete "ctags missing (make deps installs universal-ctags)"
fi

# A packager's flags: make -n shows every link and compile command.  The
# XDP program is BPF code for the kernel's verifier, not for this host: a
# packager's host flags (fortify, hardening) do not apply to it.
make -n -B build/ttsim build/ttd build/libtwintorus.so \
    LDFLAGS=-Wl,-z,relro,-z,now CPPFLAGS=-D_FORTIFY_SOURCE=2 2>&1 |
    grep -v -- '-target bpf' >"$tmp/n"
links=$(grep -cE -- ' -o build/(ttsim|ttd|libtwintorus\.so) ' "$tmp/n")
links_ok=$(grep -E -- ' -o build/(ttsim|ttd|libtwintorus\.so) ' "$tmp/n" | grep -c -- '-Wl,-z,relro,-z,now')
compiles=$(grep -cE -- ' -c (lib|sim|daemon)/' "$tmp/n")
compiles_ok=$(grep -E -- ' -c (lib|sim|daemon)/' "$tmp/n" | grep -- '-D_FORTIFY_SOURCE=2' | grep -c -- '-Iinclude')
[ "$links" -eq 3 ] && [ "$links_ok" -eq 3 ] && [ "$compiles" -gt 0 ] &&
    [ "$compiles_ok" -eq "$compiles" ] &&
    ok "LDFLAGS on all $links links, CPPFLAGS beside -Iinclude on all $compiles compiles" ||
    bad "packager flags" "links $links_ok/$links, compiles $compiles_ok/$compiles"

if make -s uninstall "${where[@]}" >"$tmp/uninstall.log" 2>&1 &&
    left=$(find "$root" ! -type d) && [ -z "$left" ]; then
	ok "make uninstall removes every installed file"
else
	bad "make uninstall" "$(cat "$tmp/uninstall.log"; find "$root" ! -type d)"
fi

finish
