#!/usr/bin/env bash
# The Debian packages (debian/), built and installed as a node gets them:
#   - debian/changelog's version is include/twintorus/version.h's;
#   - `dpkg-buildpackage -us -uc -b` builds them from a copy of the
#     working tree as it is (tracked files, changed or not, and new files
#     git does not ignore), without running the tests;
#   - lintian finds no error in them;
#   - installed together inside a private mount namespace whose /usr, /etc
#     and /var (and /lib, /bin, ... where they are not links into /usr)
#     are overlays on a tmpfs, so that the real system is never written:
#     ttsim and ttd print version.h's version, `ttd check` accepts the
#     example config (also as /etc/twintorus/ttd.yaml, the unit's), the
#     example configs and man pages are where they belong, a C++ program
#     built through pkg-config runs on libtwintorus.so.0, and ttd.service
#     is installed but neither enabled nor started: its maintainer scripts
#     run against a systemctl and a deb-systemd-invoke that only record
#     what they are asked (no systemd runs in the namespace), an upgrade
#     only try-restarts, removal stops it; `dpkg -P` removes every file;
#   - afterwards the real system has none of the files and dpkg knows
#     none of the packages (as before the test).
# Under CI=true the package build has CI's -Werror, with the packager's
# flags (_FORTIFY_SOURCE): they must not warn either.
# Needs root (mount namespaces, overlayfs), dpkg-dev, debhelper and
# lintian (make deps); without them it is skipped, except under CI, where
# make deps has installed them.  About 40 s of CPU on 2 cores (25 s the
# package build), 1.5 min on a busy machine.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/../cli/lib.sh"

PKGS=(ttsim ttd libtwintorus0 libtwintorus-dev twintorus-data)
ver=$(sed -n 's/^#define TT_VERSION "\(.*\)"/\1/p' include/twintorus/version.h)
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
# the files whose absence on the real system is checked at the end
FILES=(/usr/bin/ttsim /usr/sbin/ttd /usr/sbin/ttbed /usr/lib/twintorus /lib/systemd/system/ttd.service
       "/usr/lib/$multi/libtwintorus.so.0" "/usr/lib/$multi/pkgconfig/twintorus.pc"
       /usr/include/twintorus /usr/share/twintorus /etc/twintorus)

# inside W: run in the private mount namespace (this script again, with
# --inside W); W is the outer $tmp, holding the .debs in W/build.  Prints
# its checks and exits with the number that failed.
inside() {
	local w=$1 d log exe f st p debs=()
	# upper and work directories on a tmpfs of their own: the root file
	# system may itself be an overlay, which cannot be an upper layer
	# (dpkg runs only once every one of them is mounted)
	mkdir -p "$w/ov" && mount -t tmpfs -o size=1g tt-deb "$w/ov" ||
	    { bad "mount a tmpfs on $w/ov"; return; }
	for d in bin sbin lib lib32 lib64 libx32 usr etc var; do
		[ -d "/$d" ] && [ ! -L "/$d" ] || continue
		mkdir -p "$w/ov/$d/u" "$w/ov/$d/w"
		mount -t overlay overlay \
		    -o "lowerdir=/$d,upperdir=$w/ov/$d/u,workdir=$w/ov/$d/w" "/$d" ||
		    { bad "mount an overlay on /$d"; return; }
	done
	# no systemd here, whatever the host runs: a fresh /run, where the
	# maintainer scripts find /run/systemd/system (so they act as under
	# systemd) and, first on the PATH, a systemctl and a deb-systemd-invoke
	# that append what they are asked to $log
	mount -t tmpfs tt-deb-run /run || { bad "mount a tmpfs on /run"; return; }
	mkdir -p /run/systemd/system "$w/stub"
	log=$w/systemd.log
	: >"$log"
	for f in systemctl deb-systemd-invoke; do
		printf '#!/bin/sh\necho "%s $*" >>%s\n' "$f" "$log" >"$w/stub/$f"
		chmod +x "$w/stub/$f"
	done
	export PATH=$w/stub:$PATH
	# man-db's trigger rebuilds the whole index (slow); the pages are
	# found without it
	rm -f /var/lib/man-db/auto-update

	for p in "${PKGS[@]}"; do debs+=("$w/build/${p}_${ver}_"*.deb); done
	if dpkg -i "${debs[@]}" >"$w/dpkg-i.log" 2>&1; then
		ok "dpkg -i ${PKGS[*]}"
	else
		bad "dpkg -i" "$(tail -20 "$w/dpkg-i.log")"
		return
	fi

	[ "$(command -v ttsim)" = /usr/bin/ttsim ] && [ "$(ttsim --version)" = "ttsim $ver" ] &&
	    ok "/usr/bin/ttsim --version: ttsim $ver" ||
	    bad "ttsim --version" "$(command -v ttsim): $(ttsim --version 2>&1)"
	[ "$(/usr/sbin/ttd --version)" = "ttd $ver" ] && ok "/usr/sbin/ttd --version: ttd $ver" ||
	    bad "ttd --version" "$(/usr/sbin/ttd --version 2>&1)"
	[ -f /usr/lib/twintorus/libttmpitrace.so ] &&
	    ok "/usr/lib/twintorus/libttmpitrace.so (ttsim's MPI-level recorder)" ||
	    bad "libttmpitrace.so" "$(ls /usr/lib/twintorus 2>&1)"
	[ "$(/usr/sbin/ttbed --version)" = "ttbed $ver" ] && [ -x /usr/lib/twintorus/tbroute ] &&
	    [ -f /usr/share/man/man8/ttbed.8.gz ] &&
	    ok "/usr/sbin/ttbed --version: ttbed $ver, its helpers and man page" ||
	    bad "ttbed --version" "$(/usr/sbin/ttbed --version 2>&1); $(ls /usr/lib/twintorus 2>&1)"
	# dpkg-buildflags reached every compile and link (a plain `make` has
	# none of these): fortified calls (CPPFLAGS -D_FORTIFY_SOURCE), the
	# stack protector (CFLAGS), relocations bound at start (LDFLAGS -z now)
	f=$(for exe in /usr/bin/ttsim /usr/sbin/ttd "/usr/lib/$multi/libtwintorus.so.$ver"; do
		nm -D --undefined-only "$exe" | awk '$2 ~ /^__[a-z0-9_]+_chk(@|$)/ { c = 1 } END { exit !c }' ||
		    echo "$exe: no fortified call (__*_chk)"
		nm -D --undefined-only "$exe" | awk '$2 ~ /^__stack_chk_fail(@|$)/ { c = 1 } END { exit !c }' ||
		    echo "$exe: no stack protector (__stack_chk_fail)"
		readelf -dW "$exe" | awk '$2 ~ /FLAGS/ && / BIND_NOW/ { c = 1 } END { exit !c }' ||
		    echo "$exe: not BIND_NOW"
	done)
	[ -z "$f" ] && ok "ttsim, ttd and the library built with dpkg-buildflags' hardening" ||
	    bad "dpkg-buildflags not honoured" "$f"
	expect "ttd check the example" 0 /usr/sbin/ttd check -c /usr/share/twintorus/ttd.yaml.example &&
	    ok "ttd check -c /usr/share/twintorus/ttd.yaml.example"
	mkdir -p /etc/twintorus && cp /usr/share/twintorus/ttd.yaml.example /etc/twintorus/ttd.yaml
	expect "ttd check /etc/twintorus/ttd.yaml" 0 /usr/sbin/ttd check &&
	    ok "ttd check (the unit's /etc/twintorus/ttd.yaml)"
	expect "ttsim verify an installed example" 0 \
	    ttsim verify /usr/share/twintorus/yaml/3dt-4x4x4.yaml &&
	    ok "ttsim verify /usr/share/twintorus/yaml/3dt-4x4x4.yaml"
	[ -f "/usr/lib/$multi/wireshark/plugins/twintorus.lua" ] &&
	    [ -f /usr/share/twintorus/traces/alltoall-4x4x4.pcap ] &&
	    ok "the dissector in Wireshark's plugin folder, the sample traces in /usr/share/twintorus" ||
	    bad "dissector or traces missing"
	expect "man pages" 0 man -w ttsim ttd twintorus.yaml &&
	    [ "$(echo "$out" | tr '\n' ' ')" = "/usr/share/man/man1/ttsim.1.gz /usr/share/man/man8/ttd.8.gz /usr/share/man/man5/twintorus.yaml.5.gz " ] &&
	    ok "man -w ttsim ttd twintorus.yaml: the installed pages" ||
	    bad "man pages" "$out"

	# libtwintorus-dev: pkg-config, headers, and the shared library
	[ "$(pkg-config --modversion twintorus)" = "$ver" ] &&
	    ok "pkg-config --modversion twintorus: $ver" ||
	    bad "pkg-config" "$(pkg-config --modversion twintorus 2>&1)"
	exe=$w/cxx
	# shellcheck disable=SC2046  # pkg-config prints words
	if g++ -std=c++11 -Wall -Werror tests/cxx/use-headers.cc \
	    $(pkg-config --cflags --libs twintorus) -o "$exe" 2>"$w/cxx.err" &&
	    "$exe" >"$w/cxx.out" 2>>"$w/cxx.err" &&
	    f=$(ldd "$exe" | awk '$1 == "libtwintorus.so.0" { print $3 }') && [ -n "$f" ] &&
	    [ "$(realpath "$f")" = "/usr/lib/$multi/libtwintorus.so.$ver" ]; then
		ok "a C++ program built with pkg-config runs on /usr/lib/$multi/libtwintorus.so.$ver"
	else
		bad "C++ program on the installed library" "$(cat "$w/cxx.err"; ldd "$exe" 2>&1)"
	fi

	# ttd.service: installed, not enabled, not started
	# shellcheck disable=SC2016  # $TTD_OPTS is the unit's
	[ -f /lib/systemd/system/ttd.service ] &&
	    grep -qx 'ExecStart=/usr/sbin/ttd run -c /etc/twintorus/ttd.yaml $TTD_OPTS' /lib/systemd/system/ttd.service &&
	    ok "ttd.service installed in /lib/systemd/system, running /usr/sbin/ttd" ||
	    bad "ttd.service" "$(ls -l /lib/systemd/system/ttd.service 2>&1)"
	# enabled: deb-systemd-helper's word (it says "enabled" or "disabled")
	# and the links systemd would follow; checked again after the admin's
	# systemctl enable (offline, --root=/: no systemd is asked), so that
	# the check is seen to tell the two apart
	enabled() {
		st=$(DPKG_MAINTSCRIPT_PACKAGE=ttd deb-systemd-helper is-enabled ttd.service 2>&1)
		echo "$st: $(find /etc/systemd /lib/systemd/system/*.wants -name ttd.service 2>/dev/null)"
	}
	[ "$(enabled)" = "disabled: " ] && ok "ttd.service not enabled (no link to it)" ||
	    bad "ttd.service enabled" "$(enabled)"
	/usr/bin/systemctl --root=/ --quiet enable ttd.service 2>"$w/enable.err" &&
	    [ "$(enabled)" = "enabled: /etc/systemd/system/multi-user.target.wants/ttd.service" ] &&
	    /usr/bin/systemctl --root=/ --quiet disable ttd.service 2>>"$w/enable.err" &&
	    [ "$(enabled)" = "disabled: " ] &&
	    ok "the check says enabled after systemctl enable, disabled after disable" ||
	    bad "systemctl enable and disable" "$(enabled; cat "$w/enable.err")"
	# what the maintainer scripts asked, each line once
	asked() { sort -u "$log" | tr '\n' ';'; }
	[ "$(asked)" = "systemctl --system daemon-reload;" ] &&
	    ok "installing starts nothing (the scripts ask systemctl to daemon-reload, nothing else)" ||
	    bad "installing asked systemd" "$(cat "$log")"
	: >"$log"
	dpkg -i "$w/build/ttd_${ver}_"*.deb >>"$w/dpkg-i.log" 2>&1 &&
	    [ "$(asked)" = "deb-systemd-invoke try-restart ttd.service;systemctl --system daemon-reload;" ] &&
	    ok "an upgrade only try-restarts ttd.service (restarts it if it runs)" ||
	    bad "an upgrade asked systemd" "$(cat "$log")"
	: >"$log"
	dpkg -r ttd >"$w/dpkg-r.log" 2>&1 &&
	    [ "$(asked)" = "deb-systemd-invoke stop ttd.service;systemctl --system daemon-reload;" ] &&
	    ok "removing ttd stops ttd.service" || bad "removal did not stop ttd.service" "$(cat "$log")"

	if dpkg -P "${PKGS[@]}" >"$w/dpkg-P.log" 2>&1; then
		ok "dpkg -P ${PKGS[*]}"
	else
		bad "dpkg -P" "$(tail -20 "$w/dpkg-P.log")"
	fi
	# (/etc/twintorus/ttd.yaml is the admin's file, made above)
	f=$(for d in "${FILES[@]}"; do [ ! -e "$d" ] || [ "$d" = /etc/twintorus ] || echo "$d"; done
	    for p in "${PKGS[@]}"; do
		st=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = not-installed ] || echo "$p: $st"
	    done)
	[ -z "$f" ] && ok "purged: no file left, dpkg knows none of the packages" ||
	    bad "left after dpkg -P" "$f"
}

if [ "${1:-}" = --inside ]; then
	inside "$2"
	echo "$pass passed, $fail failed (in the namespace)"
	exit $((fail + (pass == 0)))
fi

# the changelog's version, without a Debian revision, is version.h's
if command -v dpkg-parsechangelog >/dev/null; then
	chver=$(dpkg-parsechangelog -l debian/changelog -S Version)
else
	chver=$(sed -n '1s/^twintorus (\([^)]*\)).*/\1/p' debian/changelog)
fi
[ -n "$ver" ] && [ "${chver%-*}" = "$ver" ] &&
    ok "debian/changelog's version $chver is version.h's $ver" ||
    bad "debian/changelog's version '$chver' is not version.h's '$ver'" \
	"add a debian/changelog entry (dch -v $ver) when TT_VERSION changes"

missing=
for t in dpkg-buildpackage dh lintian unshare g++ man; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ] || [ "$(id -u)" -ne 0 ]; then
	why="${missing:+missing:$missing (make deps installs them)}"
	[ "$(id -u)" -eq 0 ] || why="not root${why:+; $why}"
	if [ "${CI:-}" = true ]; then
		bad "cannot build and install the packages" "$why"
	else
		skip packages "$why"
	fi
	finish; exit
fi

# the working tree as it is, without build/ or anything git ignores
src=$tmp/build/twintorus-$ver
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
	    while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	    done | tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi
[ -f "$src/debian/rules" ] && [ -f "$src/include/twintorus/version.h" ] &&
    ok "working tree copied to $src" ||
    { bad "copy of the working tree" "$(ls -A "$src")"; finish; exit 1; }

# before: which of the packages and files the real system has (none,
# normally)
state() {
	local p
	for p in "${PKGS[@]}"; do
		printf '%s=%s ' "$p" "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)"
	done
	for p in "${FILES[@]}"; do [ ! -e "$p" ] || printf '%s ' "$p"; done
}
before=$(state)

# A packager's build: its own make, not make check's jobserver, and
# dpkg-buildflags' flags, not the caller's.
if (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    -u CPPFLAGS -u CFLAGS -u CXXFLAGS -u LDFLAGS \
    DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	bad "dpkg-buildpackage" "$(tail -30 "$tmp/build.log")"
	finish; exit 1
fi
built=$(cd "$tmp/build" && for p in "${PKGS[@]}"; do ls "${p}_${ver}_"*.deb; done 2>&1)
[ "$(echo "$built" | wc -l)" -eq ${#PKGS[@]} ] && ok "built: $(echo "$built" | tr '\n' ' ')" ||
    bad "packages built" "$built"

changes=$(ls "$tmp/build/twintorus_${ver}_"*.changes)
if lintian --fail-on error "$changes" >"$tmp/lintian.log" 2>"$tmp/lintian.err"; then
	ok "lintian --fail-on error: no error ($(wc -l <"$tmp/lintian.log") warnings or notes)"
	sed 's/^/    /' "$tmp/lintian.log"
else
	bad "lintian" "$(cat "$tmp/lintian.log" "$tmp/lintian.err")"
fi

# Install, use, remove, in a private mount namespace (see inside()).
if ! unshare --mount --propagation private true 2>"$tmp/unshare.err"; then
	if [ "${CI:-}" = true ]; then
		bad "unshare --mount refused" "$(cat "$tmp/unshare.err")"
	else
		skip install "unshare --mount refused: $(head -1 "$tmp/unshare.err")"
	fi
elif unshare --mount --propagation private bash "$tt_top/tests/pkg/deb.sh" --inside "$tmp"; then
	ok "installed, used and purged in a private mount namespace"
else
	bad "in the private mount namespace (lines above)"
fi
after=$(state)
[ "$after" = "$before" ] && ok "the real system as before: $after" ||
    bad "the real system changed" "before: $before"$'\n'"after:  $after"

finish
