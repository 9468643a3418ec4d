#!/usr/bin/env bash
# ttd's offline subcommands as an admin runs them:
#   - `ttd check` accepts every shipped config with a nodes: section
#     (exit 0), prints it normalised with -v, and refuses bad port maps with
#     exit 78 and exactly the messages of tests/ttd/*.err (file:line:col);
#   - `ttd routes --json` lists, for every card of a node and every PE, the
#     first hop of the path build/tests/tbroute walks with tt_route() (the
#     function the simulator and the forwarding plane share);
#   - flags: unknown ones exit 64; `ttd status` with no daemon exits 1
#     naming the socket.
# The daemon itself is tested on real networking by tests/testbed/.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
TB=build/tests/tbroute

# ---- check ----
for f in yaml/*.yaml tests/ttd/ok/*.yaml; do
	grep -q '^nodes:' "$f" || continue
	"$D" check -c "$f" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
	    ok "check-accepts $f" || bad "check-accepts $f" "$(cat "$tmp/err")"
	"$D" check -c "$f" -v >"$tmp/norm" 2>"$tmp/err"
	# the normalised config loads again and says the same
	"$D" check -c "$tmp/norm" -v >"$tmp/norm2" 2>"$tmp/err" &&
	    cmp -s "$tmp/norm" "$tmp/norm2" && grep -q '^nodes:' "$tmp/norm" &&
	    ok "check-normalised $f" || bad "check-normalised $f" "$(cat "$tmp/err")"
done
for y in tests/ttd/*.yaml; do
	name=$(basename "$y" .yaml)
	"$D" check -c "$y" >/dev/null 2>"$tmp/err"; st=$?
	if [ "$st" -eq 78 ] && diff -u "${y%.yaml}.err" "$tmp/err" >"$tmp/diff"; then
		ok "check-refuses $name"
	else
		bad "check-refuses $name" "exit $st; $(cat "$tmp/diff")"
	fi
done
"$D" check -c "$tmp/missing.yaml" 2>"$tmp/err"; st=$?
[ "$st" -eq 78 ] && grep -qF "$tmp/missing.yaml: cannot open" "$tmp/err" &&
    ok check-missing-file || bad check-missing-file "exit $st: $(cat "$tmp/err")"

# ---- routes: every card's first hop is tt_route()'s ----
if [ -x "$TB" ]; then
	cfg=yaml/3dt-4x4x4.yaml
	"$TB" paths "$cfg" >"$tmp/paths"
	for node in n000 n001; do
		if ! "$D" routes -c "$cfg" --node "$node" --json >"$tmp/r.json" 2>"$tmp/err"; then
			bad "routes $node" "$(cat "$tmp/err")"
			continue
		fi
		# "SRC DST PORT VC" from ttd, port named as in the traces
		jq -r '.cards[] | .pe as $s | .routes[] | select(.dst != $s) |
		    "\($s) \(.dst) \(.port | sub("internal"; "int") | sub("\\+$"; "p") | sub("-$"; "m")) \(.vc)"' \
		    "$tmp/r.json" | sort >"$tmp/ttd"
		pes=$(jq -r '[.cards[].pe] | map(tostring) | join("|")' "$tmp/r.json")
		awk -v pes="^($pes)$" '$1 ~ pes { split($3, h, "."); print $1, $2, h[3], h[4] }' \
		    "$tmp/paths" | sort >"$tmp/want"
		n=$(wc -l <"$tmp/want")
		[ "$n" -eq 254 ] && diff -u "$tmp/want" "$tmp/ttd" >"$tmp/diff" &&
		    ok "routes $node ($n first hops equal tt_route's)" ||
		    bad "routes $node" "$n lines; $(head -20 "$tmp/diff")"
	done
	"$D" routes -c "$cfg" --node 9,9,9 >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" -eq 78 ] && grep -q "node 9,9,9 is not in nodes:" "$tmp/err" &&
	    ok routes-unknown-node || bad routes-unknown-node "exit $st: $(cat "$tmp/err")"
else
	skip routes "$TB not built"
fi

# ---- discover: the ports hwloc's XML holds, grouped into cards ----
for x in tests/data/hwloc/*.xml; do
	name=$(basename "$x" .xml)
	if ! "$D" discover --hwloc-xml "$x" --json >"$tmp/d.json" 2>"$tmp/err"; then
		bad "discover $name" "$(cat "$tmp/err")"
		continue
	fi
	# the XML read directly: each network OS device under its PCI function
	awk '/type="PCIDev"/ { match($0, /pci_busid="[^"]*"/); f = substr($0, RSTART + 11, RLENGTH - 12) }
	     /type="OSDev"/ && /osdev_type="2"/ { match($0, /name="[^"]*"/); print f, substr($0, RSTART + 6, RLENGTH - 7) }' \
	    "$x" | sort >"$tmp/want"
	jq -r '.cards[] | .pci as $c | .ports[] | select(.pci | startswith($c)) | "\(.pci) \(.name)"' \
	    "$tmp/d.json" | sort >"$tmp/got"
	# (no network device in the XML: no card at all)
	diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" &&
	    { [ -s "$tmp/want" ] || jq -e '.cards == [] and .use == null' "$tmp/d.json" >/dev/null; } &&
	    ok "discover $name: $(wc -l <"$tmp/want") ports on their cards" ||
	    bad "discover $name" "$(cat "$tmp/diff")"
done
out=$("$D" discover --hwloc-xml tests/data/hwloc/twin-nic-2numa.xml --json)
[ "$(jq -r '.use | join(" ")' <<<"$out")" = "0000:03:00 0000:81:00" ] &&
    [ "$(jq -r '[.cards[].numa] | map(tostring) | join(" ")' <<<"$out")" = "0 0 1" ] &&
    ok "discover picks the two 4-port cards" || bad discover-pick "$out"
out=$("$D" discover --hwloc-xml tests/data/hwloc/32em64t-2n8c2t-pci-wholeio.xml --json)
[ "$(jq -r .use <<<"$out")" = null ] && jq -r .why <<<"$out" | grep -q "would use none" &&
    ok "discover says why it would use no card" || bad discover-none "$out"
"$D" discover --hwloc-xml "$tmp/none.xml" 2>"$tmp/err"; st=$?
[ "$st" -eq 69 ] && grep -qF "$tmp/none.xml: hwloc cannot read this file" "$tmp/err" &&
    ok discover-missing-file || bad discover-missing-file "exit $st: $(cat "$tmp/err")"

# ---- flags and status ----
"$D" check --bogus 2>"$tmp/err"; st=$?
[ "$st" -eq 64 ] && grep -q "unknown option --bogus" "$tmp/err" && ok flag-unknown ||
    bad flag-unknown "exit $st: $(cat "$tmp/err")"
# a misspelt command or flag: the one it most likely meant
# (lib/support/suggest.c), among the flags of that command only
for c in "chek|ttd: unknown command chek (did you mean check?)" \
    "--contrl /x|ttd: unknown option --contrl (did you mean --control?)" \
    "run --trace-dri /x|ttd: unknown option --trace-dri (did you mean --trace-dir?)" \
    "discover --jsn|ttd discover: unknown option --jsn (did you mean --json?)" \
    "check --nod x|ttd: unknown option --nod (see ttd --help)"; do
	read -ra argv <<<"${c%%|*}"
	"$D" "${argv[@]}" >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" -eq 64 ] && [ "$(cat "$tmp/err")" = "${c#*|}" ] && ok "did-you-mean ${c%%|*}" ||
	    bad "did-you-mean ${c%%|*}" "exit $st: $(cat "$tmp/err")"
done
"$D" routes -c yaml/3dt-4x4x4.yaml 2>"$tmp/err"; st=$?
[ "$st" -eq 64 ] && grep -q -- "--node" "$tmp/err" && ok flag-routes-no-node ||
    bad flag-routes-no-node "exit $st: $(cat "$tmp/err")"
"$D" status --pcp 2>"$tmp/err"; st=$?
[ "$st" -eq 64 ] && grep -q "does not apply" "$tmp/err" && ok flag-not-here ||
    bad flag-not-here "exit $st: $(cat "$tmp/err")"
"$D" status --control "$tmp/none.sock" 2>"$tmp/err"; st=$?
[ "$st" -eq 1 ] && grep -qF "cannot reach ttd at $tmp/none.sock" "$tmp/err" &&
    ok status-no-daemon || bad status-no-daemon "exit $st: $(cat "$tmp/err")"
"$D" --help | grep -q "usage: ttd" && ok help || bad help

# ---- standard output that cannot be written ----
# A full disk (lib.sh's full_disk): whatever a command printed must have
# arrived, or it exits 74 saying why.
if full_disk; then
	full() {
		local name=$1
		shift
		"$D" "$@" >"$tmp/full/out-$name" 2>"$tmp/err"; st=$?
		if [ "$st" -eq 74 ] && [ "$(cat "$tmp/err")" = \
		    "ttd: cannot write standard output: No space left on device" ]; then
			ok "full-$name"
		else
			bad "full-$name" "exit $st: $(cat "$tmp/err")"
		fi
	}
	full help --help
	full version --version
	full check-v check -c yaml/3dt-4x4x4.yaml -v
	full routes routes -c yaml/3dt-4x4x4.yaml --node n000 --json
	full discover discover --hwloc-xml tests/data/hwloc/twin-nic-2numa.xml --json
else
	skip full-stdout "not root: cannot mount a tmpfs to fill"
fi

finish
