#!/usr/bin/env bash
# make deps (which make check and make demo run first) on a host that is
# not Debian: with a PATH of links to the few tools make needs and no
# apt-get or dpkg-query, it names the packages it could not check, says
# they are Debian names and how to go on (DEB_PKGS=), and fails (exit 2);
# with a dpkg-query (a stand-in that says two packages are missing) and no
# apt-get it names just those two; with DEB_PKGS= it does nothing and
# succeeds.  Nothing is installed: there is no apt-get or sudo on that PATH.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"

make=$(command -v make) || skip_all "make is not installed"
# a make run from make check must not pass on the outer make's variables
# (make check DEB_PKGS= would make every case below skip the check)
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
mkdir "$tmp/bin"
for t in sed find fold grep id cat; do
	p=$(command -v "$t") || skip_all "$t is not installed"
	ln -s "$p" "$tmp/bin/$t"
done

# deps_run NAME ARGS...: make ARGS deps with that PATH; exit status in st,
# stdout in $tmp/out, stderr in $tmp/err
deps_run() {
	PATH=$tmp/bin "$make" -s --no-print-directory -C "$tt_top" deps "$@" \
	    >"$tmp/out" 2>"$tmp/err"
	st=$?
}

deps_run
if [ "$st" = 2 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^make deps: no dpkg-query here, so these Debian packages could not be checked:" "$tmp/err" &&
    grep -qw libyaml-dev "$tmp/err" && grep -qw libcmocka-dev "$tmp/err" &&
    grep -q "the names are Debian's" "$tmp/err" &&
    grep -q "^make deps: then run make with DEB_PKGS= (empty: no check)" "$tmp/err" &&
    ! grep -q "not found" "$tmp/err"; then
	ok no-dpkg-query-names-them
else
	bad no-dpkg-query-names-them "exit $st: $(cat "$tmp/out" "$tmp/err")"
fi

# a dpkg-query that has every package but jq and gnuplot-nox
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
case $3 in jq|gnuplot-nox) exit 1 ;; esac
printf 'install ok installed'
EOF
chmod +x "$tmp/bin/dpkg-query"
deps_run
if [ "$st" = 2 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^make deps: these Debian packages are missing and there is no apt-get" "$tmp/err" &&
    grep -qx "  jq gnuplot-nox" "$tmp/err" &&
    grep -q "^make deps: then run make with DEB_PKGS= (empty: no check)" "$tmp/err" &&
    ! grep -qw libyaml-dev "$tmp/err" && ! grep -q "not found" "$tmp/err"; then
	ok no-apt-get-names-the-missing
else
	bad no-apt-get-names-the-missing "exit $st: $(cat "$tmp/out" "$tmp/err")"
fi
rm "$tmp/bin/dpkg-query"

# DEB_PKGS= (empty): no check, nothing said
deps_run DEB_PKGS=
[ "$st" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && ok deb-pkgs-empty-skips ||
    bad deb-pkgs-empty-skips "exit $st: $(cat "$tmp/out" "$tmp/err")"

# make check and make demo run deps first (so they stop there too)
for goal in check demo; do
	PATH=$tmp/bin "$make" -C "$tt_top" -p -q "$goal" 2>/dev/null |
	    grep -qE "^$goal: deps\b" && ok "$goal-runs-deps-first" ||
	    bad "$goal-runs-deps-first" "make -p has no '$goal: deps'"
done

finish
