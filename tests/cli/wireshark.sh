#!/usr/bin/env bash
# The Wireshark dissector (tools/wireshark/twintorus.lua) as tshark runs it:
# on tests/traces/frames.pcap every field of every record equals what
# make-frames encoded (tests/traces/frames.expected), malformed frames carry
# the expert item naming their problem, hello ports show by name, carried
# frames go on to Wireshark's Ethernet dissector; on a `ttsim trace synth`
# trace (if ttsim has it) every record decodes as a sound data frame and
# the totals per PE equal what `ttsim trace stat` counts; make install puts
# the dissector where tshark looks for Lua plugins.
# Nine tshark runs: about five seconds.  Without tshark: SKIP, exit 0.
# shellcheck disable=SC2015  # "check && ok || bad": ok cannot fail
. "$(dirname "$0")/lib.sh"
MAKE_FRAMES=${MAKE_FRAMES:-build/tests/make-frames}
LUA=tools/wireshark/twintorus.lua
SAMPLE=tests/traces/frames

if ! command -v tshark >/dev/null 2>&1; then
	skip_all "tshark not installed (make deps installs it)"
fi

# tshark reads copies in $tmp, so that it can run as another user (below).
cp "$LUA" "$tmp/twintorus.lua"
cp "$SAMPLE.pcap" "$tmp/frames.pcap"
# tsh ARGS...: tshark with the dissector, in $tmp; stderr to $tmp/err
as=()
tsh() { (cd "$tmp" && "${as[@]}" tshark -X lua_script:twintorus.lua "$@" 2>"$tmp/err"); }
# The dissector is loaded if its fields are registered (-G must come first).
lua_loads() {
	(cd "$tmp" && "${as[@]}" tshark -G fields -X lua_script:twintorus.lua 2>/dev/null) |
	    grep -q $'\ttwintorus\\.hello\\.port\t'
}

# --- root: init.lua's run_user_scripts_when_superuser decides whether root
# runs -X lua_script.  Debian 12's Wireshark 4.0 says true; where it says
# false, tshark skips the script without a word, so run as nobody there. ---
if lua_loads; then
	ok lua-loads
elif [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$tmp"
	chmod 644 "$tmp"/*
	as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$tmp")
	if lua_loads; then
		ok "lua-loads (as nobody: this tshark runs no Lua scripts as root)"
	else
		bad lua-loads "tshark loads $LUA neither as root nor as nobody: is Lua enabled in its init.lua?"
		finish
		exit 1
	fi
else
	bad lua-loads "tshark does not load $LUA: is Lua enabled in its init.lua?"
	finish
	exit 1
fi

# --- the committed sample is what make-frames writes today ---
if [ -x "$MAKE_FRAMES" ]; then
	"$MAKE_FRAMES" "$tmp/fresh.pcap" >"$tmp/fresh.expected" 2>"$tmp/err" &&
	    cmp -s "$tmp/fresh.pcap" "$SAMPLE.pcap" &&
	    diff -u "$SAMPLE.expected" "$tmp/fresh.expected" >/dev/null &&
	    ok sample-fresh ||
	    bad sample-fresh "$SAMPLE.{pcap,expected} differ from $MAKE_FRAMES's output: rerun it (tests/traces/README.md) $(cat "$tmp/err")"
else
	echo "note: $MAKE_FRAMES not built, committed sample not compared with it"
fi

# --- every field of every record, and the expert item of malformed ones ---
fields=(frame.number twintorus.type twintorus.vc twintorus.hops twintorus.flags
	twintorus.dst twintorus.src twintorus.seq twintorus.hello.node
	twintorus.hello.card twintorus.hello.port _ws.expert.message
	_ws.col.Info frame.protocols arp.dst.proto_ipv4)
if tsh -r frames.pcap -T fields -E separator=/t "${fields[@]/#/-e}" >"$tmp/fields"; then
	bars() { printf '%s' "${1//$'\t'/|}"; }	# tabs shown as |
	mapfile -t want < <(grep -v '^#' "$SAMPLE.expected" | cut -f1-11)
	mapfile -t problem < <(grep -v '^#' "$SAMPLE.expected" | cut -f12)
	mapfile -t what < <(grep -v '^#' "$SAMPLE.expected" | cut -f13)
	mapfile -t got < <(cut -f1-11 "$tmp/fields")
	mapfile -t expert < <(cut -f12 "$tmp/fields")
	[ "${#got[@]}" -eq "${#want[@]}" ] && ok record-count ||
	    bad record-count "tshark shows ${#got[@]} records, $SAMPLE.expected lists ${#want[@]}"
	for i in "${!want[@]}"; do
		name="frame-$((i + 1)) (${what[i]})"
		[ "${got[i]-}" = "${want[i]}" ] && ok "$name fields" ||
		    bad "$name fields" "want $(bars "${want[i]}")"$'\n'"got  $(bars "${got[i]-}")"
		case ${problem[i]} in
		-)	[ -z "${expert[i]-}" ] && ok "$name no expert item" ||
			    bad "$name no expert item" "got: ${expert[i]}";;
		*)	[[ ${expert[i]-} == *"${problem[i]}"* ]] && ok "$name expert item" ||
			    bad "$name expert item" "want \"${problem[i]}\" in: ${expert[i]-}";;
		esac
	done

	# --- the Info column; the carried frame reaches eth_withoutfcs (ARP) ---
	# col FRAME N: field N of fields=() in that frame (13 Info, 14 protocols, 15 ARP target)
	col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$tmp/fields"; }
	check_info() {	# check_info FRAME WANT: the Info column, exactly
		[ "$(col "$1" 13)" = "$2" ] && ok "info-$1" || bad "info-$1" "want: $2"$'\n'"got:  $(col "$1" 13)"
	}
	check_info 1 "data 3 -> 17 vc 1 hops 2 seq 5"
	check_info 6 "hello node 4 card 1 port Y-"
	check_info 7 "hello node 2 card 0 port X+"
	check_info 8 "hello node 7 card 1 port d3-"
	check_info 9 "hello node 1 card 0 port d7+"
	check_info 4 "data 4294967294 -> 4294967294 vc 31 hops 255 seq 4294967295 delivered"
	[ "$(col 2 13)" = "data 17 -> 3 vc 0 hops 3 seq 6 | Who has 10.0.0.3? Tell 10.0.0.17" ] &&
	    ok info-carried || bad info-carried "got: $(col 2 13)"
	[ "$(col 2 14)" = eth:ethertype:twintorus:eth:ethertype:arp ] && [ "$(col 2 15)" = 10.0.0.3 ] &&
	    ok carried-frame-dissected || bad carried-frame-dissected "protocols $(col 2 14), ARP target $(col 2 15)"
	[ "$(col 3 14)" = eth:ethertype:vlan:ethertype:twintorus:eth:ethertype:arp ] &&
	    ok tagged-carried-frame || bad tagged-carried-frame "protocols $(col 3 14)"
	# header-only records: nothing handed on
	[ "$(col 1 14)" = eth:ethertype:twintorus ] && ok header-only-not-handed-on ||
	    bad header-only-not-handed-on "protocols $(col 1 14)"
	[ "$(col 10 14)" = eth:ethertype:arp ] && ok other-ethertype-left-alone ||
	    bad other-ethertype-left-alone "protocols $(col 10 14)"
else
	bad fields "tshark failed: $(cat "$tmp/err")"
fi

# --- the detail view as a user reads it: the text shown, not only the
# values (a value_string would show "Unknown (17)" for every data frame's
# destination); hello ports and the broadcast destination by name ---
if tsh -r frames.pcap -V -Y 'frame.number == 6 || frame.number == 8' >"$tmp/detail"; then
	grep -q 'Port: Y- (3)' "$tmp/detail" && grep -q 'Port: d3- (7)' "$tmp/detail" &&
	    ok hello-port-named || bad hello-port-named "$(grep 'Port:' "$tmp/detail")"
	grep -q 'Destination PE: every PE (4294967295)' "$tmp/detail" &&
	    ok hello-dst-named || bad hello-dst-named "$(grep 'Destination PE' "$tmp/detail")"
else
	bad detail "tshark failed: $(cat "$tmp/err")"
fi
# frame 1: data 3 -> 17 vc 1 hops 2 seq 5 (tests/traces/frames.expected)
if tsh -r frames.pcap -V -Y 'frame.number == 1' >"$tmp/detail"; then
	shown=$(sed -n '/^Twin-torus frame/,/^$/p' "$tmp/detail" | grep -E 'PE:|Sequence:|Virtual|Hop' |
	    sed 's/^ *//' | paste -sd'|')
	[ "$shown" = "Virtual channel: 1|Hop count: 2|Destination PE: 17|Source PE: 3|Sequence: 5" ] &&
	    ok data-detail-text || bad data-detail-text "shown: $shown"
	grep -q 'Unknown' "$tmp/detail" && bad data-nothing-unknown "$(grep Unknown "$tmp/detail")" ||
	    ok data-nothing-unknown
else
	bad detail-data "tshark failed: $(cat "$tmp/err")"
fi
# the delivered bit: frames 3 and 4, and 13 (flags 0x05)
shown=$(tsh -r frames.pcap -Y 'twintorus.flags.delivered == 1' -T fields -e frame.number | tr '\n' ' ')
[ "$shown" = "3 4 13 " ] && ok filter-delivered || bad filter-delivered "frames: $shown $(cat "$tmp/err")"
# a tagged frame: the VC in the PCP and in the header
shown=$(tsh -r frames.pcap -Y 'vlan.priority == 2 && twintorus.vc == 2' -T fields -e frame.number |
    tr '\n' ' ')
[ "$shown" = "3 " ] && ok filter-tagged-vc || bad filter-tagged-vc "frames: $shown $(cat "$tmp/err")"

# --- credit frames: every VC's fields, in order; the Info column ---
if tsh -r frames.pcap -Y 'twintorus.type == 2' -T fields -E separator=/t -E aggregator=, \
    -e frame.number -e twintorus.credit.epoch -e twintorus.credit.peer_epoch \
    -e twintorus.credit.vcs -e twintorus.credit.vc.sent -e twintorus.credit.vc.limit \
    -e twintorus.credit.vc.buffer -e _ws.col.Info -e twintorus.credit.least >"$tmp/credit"; then
	c23=$(awk -F'\t' '$1 == 23 { print $2, $3, $4, $5, $6, $7 }' "$tmp/credit")
	[ "$c23" = "4660 43981 2 4096,4294967280 22528,18416 18432,18432" ] &&
	    ok credit-fields || bad credit-fields "frame 23: $c23"
	c24=$(awk -F'\t' '$1 == 24 { print $3, $4, $7 }' "$tmp/credit")
	[ "$c24" = "0 1 65536" ] && ok credit-no-peer-yet || bad credit-no-peer-yet "frame 24: $c24"
	[ "$(col 23 13)" = "credit 9 -> 4294967295 vc 0 hops 0 seq 5: epoch 4660 peer 43981, 2 VCs" ] &&
	    ok info-credit || bad info-credit "got: $(col 23 13)"
	least=$(awk -F'\t' '$1 == 23 || $1 == 28 || $1 == 29 { printf "%s ", $9 }' "$tmp/credit")
	[ "$least" = "0 2048 128 " ] && ok credit-least || bad credit-least "frames 23, 28, 29: $least"
	[ "$(awk -F'\t' '$1 == 27 { print $5 }' "$tmp/credit")" = "" ] &&
	    ok credit-cut-no-vcs-shown || bad credit-cut-no-vcs-shown "$(grep '^27' "$tmp/credit")"
else
	bad credit "tshark failed: $(cat "$tmp/err")"
fi

# --- a ttsim trace: every record a sound header-only data frame ---
if "$T" trace synth --help >/dev/null 2>&1; then
	# 2x2x2 twin torus: 16 PEs
	if "$T" trace synth --dims 2,2,2 --app uniform --load 0.2 --cycles 2000 --seed 1 \
	    -o "$tmp/synth.pcap" 2>"$tmp/err"; then
		chmod 644 "$tmp/synth.pcap"
		if tsh -r synth.pcap -T fields -E separator=/t -e twintorus.version \
		    -e twintorus.type -e twintorus.vc -e twintorus.src -e twintorus.dst \
		    -e eth.src -e frame.cap_len -e frame.len -e _ws.expert.message >"$tmp/synth"; then
			n=$(wc -l <"$tmp/synth")
			odd=$(awk -F'\t' '
			function hex(s,  i, v) {
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v
			}
			{
				split($6, m, ":")	# 02:74:74 then the PE id (tt_pe_mac)
				mac_pe = m[1] m[2] m[3] == "027474" ? hex(m[4] m[5] m[6]) : -1
				if ($1 != 1 || $2 != 0 || $3 >= 32 || $4 >= 16 || $5 >= 16 ||
				    $4 != mac_pe || $7 != 30 || $8 <= 30 || $9 != "")
					print NR ": " $0
			}' "$tmp/synth" | head -5)
			[ "$n" -gt 0 ] && [ -z "$odd" ] && ok "synth-records ($n)" ||
			    bad synth-records "$n records; not sound data frames of PEs 0..15, 30 bytes captured:"$'\n'"$odd"
			# what the dissector read, totalled, against ttsim's own decoder
			if "$T" trace stat "$tmp/synth.pcap" --json >"$tmp/stat" 2>"$tmp/err"; then
				tally=$(awk -F'\t' '{ sent[$4]++; recv[$5]++; bytes += $8 - 30 }
				    END { print NR, bytes; for (p = 0; p < 16; p++)
				        if (sent[p] + recv[p] > 0) print p, sent[p] + 0, recv[p] + 0 }' "$tmp/synth")
				stat=$(jq -r '"\(.records) \(.bytes)", (.pes[] |
				    select(.sent_messages + .received_messages > 0) |
				    "\(.pe) \(.sent_messages) \(.received_messages)")' "$tmp/stat")
				[ "$tally" = "$stat" ] && ok synth-matches-trace-stat ||
				    bad synth-matches-trace-stat "$(diff <(echo "$stat") <(echo "$tally"))"
			else
				bad synth-matches-trace-stat "ttsim trace stat failed: $(cat "$tmp/err")"
			fi
		else
			bad synth-records "tshark failed: $(cat "$tmp/err")"
		fi
	else
		bad synth "ttsim trace synth failed: $(cat "$tmp/err")"
	fi
else
	echo "note: $T has no 'trace synth' yet, only the committed sample is checked"
fi

# --- make install puts the dissector where this Wireshark looks for Lua
# plugins ("Global Lua Plugins" of tshark -G folders) when PREFIX is
# Wireshark's own (/usr on Debian); installed under a DESTDIR in $tmp ---
global=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
prefix=${global%%/lib/*}
if [ -n "$global" ] && [ "$prefix" != "$global" ]; then
	if make -s -C . install-dissector DESTDIR="$tmp/root" PREFIX="$prefix" >"$tmp/make" 2>&1; then
		cmp -s "$tmp/root$global/twintorus.lua" "$LUA" && ok "installed-where-wireshark-looks ($global)" ||
		    bad installed-where-wireshark-looks "not at $tmp/root$global/twintorus.lua: $(cd "$tmp/root" && find . -name twintorus.lua)"
	else
		bad installed-where-wireshark-looks "make install-dissector failed: $(cat "$tmp/make")"
	fi
else
	skip installed-where-wireshark-looks "tshark names no global Lua plugin folder under a lib/ ($global)"
fi

finish
