#!/usr/bin/env bash
# The systemd unit as `make install` writes it: systemd-analyze verify
# finds nothing to say (the ExecStart binary, ttd(8) and every directive
# check out), and systemd-analyze security rates its exposure at most 2.5
# (systemd's "OK" band; the unit is 2.3 as shipped, the rest being what a
# packet-forwarding daemon needs: packet, AF_XDP and inet sockets,
# CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF with bpf(2) for the XDP program,
# the host's network, /dev/net/tun).
# The install goes under a temporary PREFIX so that ExecStart names a real
# file; MANPATH lets the verifier find ttd(8) there.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip_all "systemd-analyze not installed (make deps installs systemd)"
fi

if ! make -s install PREFIX="$tmp/usr" >"$tmp/install.log" 2>&1; then
	bad install "$(tail -5 "$tmp/install.log")"
	echo "$pass passed, $fail failed"
	exit 1
fi
unit=$tmp/usr/lib/systemd/system/ttd.service
grep -qx "ExecStart=$tmp/usr/sbin/ttd run -c /etc/twintorus/ttd.yaml \$TTD_OPTS" "$unit" &&
    ok "installed unit starts $tmp/usr/sbin/ttd" || bad unit-prefix "$(grep ^Exec "$unit")"

MANPATH=$tmp/usr/share/man systemd-analyze verify "$unit" >"$tmp/verify" 2>&1; st=$?
[ "$st" -eq 0 ] && [ ! -s "$tmp/verify" ] && ok "systemd-analyze verify: no warnings" ||
    bad verify "exit $st: $(cat "$tmp/verify")"

systemd-analyze security --offline=true "$unit" >"$tmp/security" 2>&1
line=$(grep "Overall exposure level" "$tmp/security")
score=$(sed -n 's/.*ttd.service: \([0-9.]*\) .*/\1/p' <<<"$line")
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }'; then
	ok "systemd-analyze security: $score (at most 2.5)"
else
	bad security "${line:-$(tail -3 "$tmp/security")}"
fi
finish
