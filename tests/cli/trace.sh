#!/usr/bin/env bash
# ttsim trace synth, trace stat and replay as a user runs them:
#   - synth -> stat: every application (each motif of ttsim app, stencil
#     as halo3d's alias, the patterns) writes the messages its definition
#     gives (counts, bytes, pairs, computed here from the definitions in
#     `ttsim trace synth --help` and the README), and --per-node writes one
#     file per node holding the same messages;
#   - every kind of damaged input is refused (exit 2) by stat and by replay
#     with a message naming the file and the record, except a last record
#     cut short, which is a warning: the records before it are used;
#   - a pcapng copy reads exactly as the pcap;
#   - replay: --compare D,A,2d, the --json keys and the link count, one CSV
#     line per message and network, --speed 2 halves the generation cycles,
#     --speed max, messages conserved on every network, and the watchdog
#     under --deadlock none (replay's golden flag errors, tests/cli/flags/
#     replay-*, run with the others in flags.sh).
# Traces are small (a few thousand messages): the script takes a few seconds.
# Needs jq and od; editcap (wireshark-common) for the pcapng check, which is
# skipped without it.
# shellcheck disable=SC2015,SC2054  # "check && ok || bad": ok cannot fail; commas in flag values
. "$(dirname "$0")/lib.sh"
# js FILTER: jq -r on $out

# ---- writing pcap by hand (little-endian, nanosecond magic) ----
le32() {
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
# pcap_header LINKTYPE [SNAPLEN]
pcap_header() {
	printf '\x4d\x3c\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00'
	printf "%b" "$(le32 "${2:-262144}")$(le32 "$1")"
}
# pcap_record HEX [WIRELEN [SECONDS]]: one record at SECONDS (default
# 2026-01-01T00:00:00Z) and 5 ns
pcap_record() {
	local hex=$1 wire=${2:-0} n=$((${#1} / 2))
	[ "$wire" -ge "$n" ] || wire=$n
	printf "%b" "$(le32 "${3:-1767225600}")$(le32 5)$(le32 "$n")$(le32 "$wire")"
	# shellcheck disable=SC2001  # every byte: a backreference
	printf "%b" "$(sed 's/../\\x&/g' <<<"$hex")"
}
# torus_hex [VER|TYPE] [VC] [FLAGS]: a torus frame, PE 2 -> PE 1, 30 bytes
torus_hex() {
	echo "020000000001020000000002""88b5""${1:-10}${2:-00}00${3:-00}""00000001""00000002""00000007"
}
# records FILE: how many 46-byte records (synth: 16-byte record header,
# 30-byte frame) follow the 24-byte file header
records() { echo $((($(stat -c %s "$1") - 24) / 46)); }

# ======== synth -> stat: what each application's definition gives ========

# the most cubic a x b x c = n (a <= b <= c, c - a smallest): the stencil's
# process grid
stencil_grid() {
	local n=$1 a b c best=-1 g=""
	for ((a = 1; a * a * a <= n; a++)); do
		((n % a)) && continue
		for ((b = a; a * b * b <= n; b++)); do
			(((n / a) % b)) && continue
			c=$((n / a / b))
			if ((best < 0 || c - a < best)); then best=$((c - a)); g="$a $b $c"; fi
		done
	done
	echo "$g"
}

N=16         # 2x2x2 twin torus: 2 * 8 PEs
I=3          # iterations given to every application
if expect synth-stencil 0 "$T" trace synth --dims 2,2,2 --app stencil \
    --iterations $I --bytes 1000 -o "$tmp/stencil.pcap" &&
    expect stat-stencil 0 "$T" trace stat "$tmp/stencil.pcap" --dims 2,2,2 --json --top 100000; then
	# each PE sends to both neighbours in every grid dimension longer than
	# 1 (periodic): 2 per such dimension per iteration; in a dimension of
	# 2 both neighbours are the same PE
	read -r ga gb gc <<<"$(stencil_grid $N)"
	per=0 nb=0
	for g in $ga $gb $gc; do
		((g > 1)) && per=$((per + 2))
		((g == 2)) && nb=$((nb + 1))
		((g > 2)) && nb=$((nb + 2))
	done
	want="$((N * per * I)) $((N * per * I * 1000)) $((N * nb)) $N true"
	got=$(js "[.messages, .bytes, .pairs, (.pes | length),
	    all(.pes[]; .sent_messages == $per * $I and .received_messages == $per * $I)]
	    | map(tostring) | join(\" \")")
	[ "$got" = "$want" ] && ok "stencil-counts (grid ${ga}x${gb}x${gc})" ||
	    bad stencil-counts "messages bytes pairs PEs per-PE: got $got, want $want"
fi

if expect synth-alltoall 0 "$T" trace synth --dims 2,2,2 --app alltoall \
    --iterations $I --bytes 500 -o "$tmp/alltoall.pcap" &&
    expect stat-alltoall 0 "$T" trace stat "$tmp/alltoall.pcap" --dims 2,2,2 --json --top 100000; then
	# every PE to every other PE, once per iteration
	want="$((N * (N - 1) * I)) $((N * (N - 1) * I * 500)) $((N * (N - 1))) true true"
	got=$(js "[.messages, .bytes, .pairs,
	    all(.pes[]; .sent_messages == ($N - 1) * $I and .received_messages == ($N - 1) * $I),
	    all(.top_pairs[]; .messages == $I and .src != .dst)] | map(tostring) | join(\" \")")
	[ "$got" = "$want" ] && ok alltoall-counts ||
	    bad alltoall-counts "messages bytes pairs per-PE per-pair: got $got, want $want"
fi

if expect synth-allreduce 0 "$T" trace synth --dims 2,2,2 --app allreduce \
    --iterations $I --bytes 16000 -o "$tmp/allreduce.pcap" &&
    expect stat-allreduce 0 "$T" trace stat "$tmp/allreduce.pcap" --dims 2,2,2 --json --top 100000; then
	# ring allreduce: 2(N-1) steps per iteration, in each PE p sends a 1/N
	# chunk (rounded up) to p+1
	chunk=$(((16000 + N - 1) / N))
	want="$((N * 2 * (N - 1) * I)) $((N * 2 * (N - 1) * I * chunk)) $N $chunk $chunk true"
	got=$(js "[.messages, .bytes, .pairs, .message_bytes.min, .message_bytes.max,
	    all(.top_pairs[]; .dst == (.src + 1) % $N)] | map(tostring) | join(\" \")")
	[ "$got" = "$want" ] && ok allreduce-counts ||
	    bad allreduce-counts "messages bytes pairs min max ring: got $got, want $want"
fi

# the other motifs (ttsim app's; synth schedules their programs open loop),
# per iteration on N = 16 ranks with --bytes 1000:
#   sweep3d   a 4x4 grid, 8 blocks, each of 12 x-links and 12 y-links
#             downstream; three sweeps use both directions of every link
#   incast    1 client (N / 16), 15 servers: 15 requests of 256 bytes and
#             15 responses
#   pingpong  8 pairs, there and back
# "messages bytes pairs" per motif:
declare -A motif_want=(
	[sweep3d]="$((24 * 8 * I)) $((24 * 8 * I * 1000)) 48"
	[incast]="$((30 * I)) $((15 * I * (256 + 1000))) 30"
	[pingpong]="$((16 * I)) $((16 * I * 1000)) 16"
)
for m in sweep3d incast pingpong; do
	if expect "synth-$m" 0 "$T" trace synth --dims 2,2,2 --app $m \
	    --iterations $I --bytes 1000 -o "$tmp/$m.pcap" &&
	    expect "stat-$m" 0 "$T" trace stat "$tmp/$m.pcap" --dims 2,2,2 --json --top 100000; then
		got=$(js '[.messages, .bytes, .pairs] | map(tostring) | join(" ")')
		[ "$got" = "${motif_want[$m]}" ] && ok "$m-counts" ||
		    bad "$m-counts" "messages bytes pairs: got $got, want ${motif_want[$m]}"
	fi
done
# stencil is halo3d's other name: the same trace, byte for byte
if expect synth-halo3d 0 "$T" trace synth --dims 2,2,2 --app halo3d \
    --iterations $I --bytes 1000 -o "$tmp/halo3d.pcap"; then
	cmp -s "$tmp/stencil.pcap" "$tmp/halo3d.pcap" && ok stencil-is-halo3d ||
	    bad stencil-is-halo3d "--app stencil and --app halo3d write different traces"
fi
# ... and in ttsim app (the JSON without its wall-clock keys)
nowall='walk(if type == "object" then with_entries(select(.key | test("wall") | not)) else . end)'
if "$T" app stencil --dims 2,2,2 --iterations 2 --json 2>/dev/null | jq -S "$nowall" >"$tmp/app-st.json" &&
    "$T" app halo3d --dims 2,2,2 --iterations 2 --json 2>/dev/null | jq -S "$nowall" >"$tmp/app-h3.json" &&
    [ -s "$tmp/app-st.json" ] && cmp -s "$tmp/app-st.json" "$tmp/app-h3.json"; then
	ok app-stencil-is-halo3d
else
	bad app-stencil-is-halo3d "ttsim app stencil and ttsim app halo3d differ or fail"
fi

# Bernoulli injection: in each cycle a PE sends a packet with probability
# load / packet_flits (4), so over C cycles the count is binomial; accept
# the mean +- 5 standard deviations (fails by chance once in ~10^6 runs).
# Messages are one packet: 4 flits of 16 bytes.
bernoulli_ok() {   # COUNT PES CYCLES LOAD
	awk -v n="$1" -v pes="$2" -v c="$3" -v l="$4" 'BEGIN {
		q = l / 4; m = pes * c * q; sd = sqrt(pes * c * q * (1 - q))
		exit !(n >= m - 5 * sd && n <= m + 5 * sd) }'
}
if expect synth-uniform 0 "$T" trace synth --dims 2,2,2 --app uniform \
    --load 0.2 --cycles 5000 -o "$tmp/uniform.pcap" &&
    expect stat-uniform 0 "$T" trace stat "$tmp/uniform.pcap" --dims 2,2,2 --json --top 100000; then
	n=$(js .messages)
	got=$(js '[.message_bytes.min, .message_bytes.max, all(.top_pairs[]; .src != .dst),
	    .pairs <= 16 * 15] | map(tostring) | join(" ")')
	bernoulli_ok "$n" $N 5000 0.2 && [ "$got" = "64 64 true true" ] &&
	    ok "uniform-counts ($n messages, expected 16 * 5000 * 0.05 = 4000)" ||
	    bad uniform-counts "$n messages (expected about 4000); min max no-self pairs: $got"
fi

# tornado moves every coordinate by floor(k/2) - 1: nothing on 2x2x2 (every
# PE maps to itself and sends nothing), +1 in x, y and z on 4x4x4
if expect synth-tornado-2 0 "$T" trace synth --dims 2,2,2 --app tornado \
    --load 0.2 --cycles 2000 -o "$tmp/tornado2.pcap" &&
    expect stat-tornado-2 0 "$T" trace stat "$tmp/tornado2.pcap" --dims 2,2,2 --json; then
	[ "$(js .messages)" = 0 ] && ok tornado-2x2x2-silent || bad tornado-2x2x2-silent "$(js .messages) messages"
fi
if expect synth-tornado-4 0 "$T" trace synth --dims 4,4,4 --app tornado \
    --load 0.2 --cycles 2000 -o "$tmp/tornado4.pcap" &&
    expect stat-tornado-4 0 "$T" trace stat "$tmp/tornado4.pcap" --dims 4,4,4 --json --top 100000; then
	# PE = 2 * node + card, node = x + 4y + 16z; the card is kept
	wrong=$(js '.top_pairs[] | "\(.src) \(.dst)"' | while read -r s d; do
		node=$((s / 2)) card=$((s % 2))
		x=$(((node % 4 + 1) % 4)) y=$(((node / 4 % 4 + 1) % 4)) z=$(((node / 16 + 1) % 4))
		[ "$d" -eq $((2 * (x + 4 * y + 16 * z) + card)) ] || echo "$s->$d"
	done)
	n=$(js .messages)
	[ "$(js .pairs)" = 128 ] && [ -z "$wrong" ] && bernoulli_ok "$n" 128 2000 0.2 &&
	    ok "tornado-4x4x4 (128 pairs, $n messages)" ||
	    bad tornado-4x4x4 "pairs $(js .pairs), $n messages (expected about 12800), off-pattern: $wrong"
fi

# --per-node: one file per node, each with its two PEs' messages, and
# together the same messages as the single file
if expect synth-per-node 0 "$T" trace synth --dims 2,2,2 --app alltoall \
    --iterations $I --bytes 500 --per-node -o "$tmp/nodes"; then
	got=$(cd "$tmp/nodes" && echo *)
	want=$(for i in 0 1 2 3 4 5 6 7; do printf 'node-0000%d.pcap ' $i; done)
	[ "$got" = "${want% }" ] && ok per-node-files || bad per-node-files "$got"
	sum='{records, messages, bytes, first_ns, last_ns, pairs, pes}'
	if expect stat-per-node 0 "$T" trace stat "$tmp/nodes" --dims 2,2,2 --json; then
		a=$(jq -c "$sum" <<<"$out")
		if expect stat-single 0 "$T" trace stat "$tmp/alltoall.pcap" --dims 2,2,2 --json; then
			b=$(jq -c "$sum" <<<"$out")
			[ "$a" = "$b" ] && ok per-node-same-messages ||
			    bad per-node-same-messages "directory: $a"$'\n'"file: $b"
		fi
	fi
	others=""
	for i in 0 1 2 3 4 5 6 7; do
		expect "stat-node-$i" 0 "$T" trace stat "$tmp/nodes/node-0000$i.pcap" --json || continue
		senders=$(js '[.pes[] | select(.sent_messages > 0) | .pe] | map(tostring) | join(",")')
		[ "$senders" = "$((2 * i)),$((2 * i + 1))" ] || others+="node $i: PEs $senders send; "
	done
	[ -z "$others" ] && ok per-node-own-pes || bad per-node-own-pes "$others"
fi

# ======== times from 2038 on: pcap's seconds are unsigned 32 bits ========

# 2^31 s is 2038-01-19T03:14:08Z, 2^32 - 1 s is 2106-02-07T06:28:15Z
{ pcap_header 1; pcap_record "$(torus_hex)" 100 2147483648
  pcap_record "$(torus_hex)" 100 4294967295; } >"$tmp/y2038.pcap"
if expect time-2038 0 "$T" trace stat "$tmp/y2038.pcap" --json; then
	# the digits as printed (jq's doubles would round them)
	got=$(grep -o '"\(first_ns\|last_ns\|out_of_order\)": [0-9]*' <<<"$out" | tail -3 | cut -d' ' -f2 | paste -sd' ')
	[ "$got" = "0 2147483648000000005 4294967295000000005" ] && ok time-2038 ||
	    bad time-2038 "out-of-order first last: $got"
fi
if expect time-2038-text 0 "$T" trace stat "$tmp/y2038.pcap"; then
	grep -q '^  first         2038-01-19T03:14:08.000000005Z$' <<<"$out" && ok time-2038-text ||
	    bad time-2038-text "$out"
fi

# ======== PE ids as large as 32 bits hold ========

# one record from PE 2^31 to PE 2^32 - 2: stat lists both (no array sized
# by the ids); against a network, the id is refused
{ pcap_header 1
  pcap_record "020000000001020000000002""88b5""10000000""fffffffe""80000000""00000007" 100; } >"$tmp/bigpe.pcap"
if expect big-pe-ids 0 timeout 60 "$T" trace stat "$tmp/bigpe.pcap" --json; then
	got=$(js '[.pes[] | "\(.pe):\(.sent_messages)/\(.received_messages)"] | join(" ")')
	[ "$got" = "2147483648:1/0 4294967294:0/1" ] && ok big-pe-ids || bad big-pe-ids "$got"
fi
if expect big-pe-ids-text 0 timeout 60 "$T" trace stat "$tmp/bigpe.pcap"; then
	grep -q '^  PEs           1 send, ids up to 4294967294$' <<<"$out" && ok big-pe-ids-text ||
	    bad big-pe-ids-text "$out"
fi
refused big-pe-ids-network "ttsim trace stat: $tmp/bigpe.pcap: record 1: source PE 2147483648 is outside the network (16 PEs, ids 0..15)" \
    "$T" trace stat "$tmp/bigpe.pcap" --dims 2,2,2

# ======== a plain capture without an address map: its addresses listed ========

ip4() {   # SRC_LAST_BYTE DST_LAST_BYTE: IPv4 (ICMP) between 10.0.0.x, MACs 02:aa:..:0x
	echo "02aa000000$(printf %02x "$2")02aa000000$(printf %02x "$1")0800""4500005400004000400100000a0000$(printf %02x "$1")0a0000$(printf %02x "$2")"
}
{ pcap_header 1
  for i in 1 2 3; do pcap_record "$(ip4 1 2)" 98; done
  for i in 1 2; do pcap_record "$(ip4 2 1)" 98; done
  pcap_record ffffffffffff02aa000000010806000108000604000102aa000000010a0000010000000000000a000002 60
} >"$tmp/plain-only.pcap"
for args in "" "yaml/3dt-4x4x4.yaml"; do
	name=plain-listed${args:+-with-yaml}
	# shellcheck disable=SC2086  # args: no file, or one
	if expect "$name" 0 "$T" trace stat "$tmp/plain-only.pcap" $args --json; then
		got=$(js '"\(.messages) \(.plain_listed) " + ([.addresses[] | "\(.address)=\(.sent_frames)/\(.sent_bytes)/\(.received_frames)/\(.received_bytes)"] | join(" "))')
		# most frames first; ties IPv4 before MAC
		want="0 6 02:aa:00:00:00:01=4/354/2/196 10.0.0.1=3/294/2/196 10.0.0.2=2/196/3/294 02:aa:00:00:00:02=2/196/3/294 ff:ff:ff:ff:ff:ff=0/0/1/60"
		[ "$got" = "$want" ] && ok "$name" || bad "$name" "got  $got"$'\n'"want $want"
	fi
done
if expect plain-listed-text 0 "$T" trace stat "$tmp/plain-only.pcap"; then
	grep -q '^  10\.0\.0\.1  *3  *294  *2  *196$' <<<"$out" &&
	    grep -Fq 'addresses: {"10.0.0.1": PE, "10.0.0.2": PE}' <<<"$out" &&
	    ok plain-listed-text || bad plain-listed-text "$out"
fi

# ======== damaged input: refused with file and record, exit 2 ========

small=$tmp/alltoall.pcap     # 2x2x2, synth above
nrec=$(records "$small")
D=(--dims 2,2,2)

# a last record cut short: a warning, and the records before it are used
for cut in data header; do
	f=$tmp/cut-$cut.pcap
	# 5 bytes short: inside the frame; 39 short: 7 bytes into its header
	if [ $cut = data ]; then by=5; else by=39; fi
	head -c $(($(stat -c %s "$small") - by)) "$small" >"$f"
	warn="$f: record $nrec: truncated (the file ends inside it); using the $((nrec - 1)) records before it"
	if expect "truncated-$cut-stat" 0 "$T" trace stat "$f" "${D[@]}" --json; then
		grep -Fxq "ttsim trace stat: warning: $warn" "$tmp/err" &&
		    [ "$(js .messages)" = $((nrec - 1)) ] && [ "$(js .files[0].truncated_record)" = "$nrec" ] &&
		    ok "truncated-$cut-stat" ||
		    bad "truncated-$cut-stat" "$(js .messages) messages; stderr: $(cat "$tmp/err")"
	fi
	if expect "truncated-$cut-replay" 0 "$T" replay "$f" "${D[@]}" --json; then
		grep -Fxq "ttsim replay: warning: $warn" "$tmp/err" &&
		    [ "$(js '.networks[0].messages_delivered')" = $((nrec - 1)) ] &&
		    ok "truncated-$cut-replay" ||
		    bad "truncated-$cut-replay" "$(js '.networks[0].messages_delivered') delivered; stderr: $(cat "$tmp/err")"
	fi
done

# each bad file, through stat and through replay: FILE WANT (after "FILE: ")
damaged() {
	local name=$1 f=$2 want=$3
	refused "$name-stat" "ttsim trace stat: $f: $want" "$T" trace stat "$f" "${D[@]}"
	refused "$name-replay" "ttsim replay: $f: $want" "$T" replay "$f" "${D[@]}"
}

{ pcap_header 101; pcap_record 4500001c000000004001f7c80a6300010a630002; } >"$tmp/raw.pcap"
damaged link-type-raw "$tmp/raw.pcap" "link type RAW (Raw IP, DLT 12), not Ethernet"
# a link type libpcap has no name for: its number
{ pcap_header 65000; pcap_record "$(torus_hex)"; } >"$tmp/dlt65000.pcap"
damaged link-type-unknown "$tmp/dlt65000.pcap" "link type 65000 (unknown to libpcap), not Ethernet"

# deterministic noise: 4 KiB from a fixed seed
LC_ALL=C awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", int(rand() * 256) }' >"$tmp/garbage.pcap"
damaged garbage "$tmp/garbage.pcap" "not a pcap or pcapng file"

: >"$tmp/empty.pcap"
damaged empty "$tmp/empty.pcap" "empty file (0 bytes), not a pcap or pcapng trace"

printf 'src,dst,bytes\n0,1,4096\n' >"$tmp/messages.csv"
damaged text "$tmp/messages.csv" "not a pcap or pcapng file"

# a file header and no record: stat says 0 messages, replay has nothing
pcap_header 1 >"$tmp/header-only.pcap"
if expect header-only-stat 0 "$T" trace stat "$tmp/header-only.pcap" --json; then
	[ "$(js .records) $(js .messages)" = "0 0" ] && ok header-only-stat || bad header-only-stat "$out"
fi
refused header-only-replay "ttsim replay: the trace holds no messages (0 records read)" \
    "$T" replay "$tmp/header-only.pcap" "${D[@]}"

# an IPv4 frame after a torus frame, without an address map
{ pcap_header 1; pcap_record "$(torus_hex)" 100
  pcap_record 0200000000010200000000020800450000540000400040010000c0a80001c0a80002 98; } >"$tmp/plain.pcap"
refused plain-no-map-replay "ttsim replay: $tmp/plain.pcap: record 2: not a torus frame: EtherType 0x0800 (IPv4); to replay a plain capture, map its addresses to PEs in the YAML file (addresses:)" \
    "$T" replay "$tmp/plain.pcap" "${D[@]}"
# stat lists what it cannot map (below)
if expect plain-no-map-stat 0 "$T" trace stat "$tmp/plain.pcap" "${D[@]}" --json; then
	[ "$(js '"\(.messages) \(.plain_listed) \(.addresses | length)"')" = "1 1 4" ] &&
	    ok plain-no-map-stat || bad plain-no-map-stat "$out"
fi
refused plain-yaml-no-addresses "ttsim replay: $tmp/plain.pcap: record 2: not a torus frame: EtherType 0x0800 (IPv4)" \
    "$T" replay "$tmp/plain.pcap" yaml/3dt-4x4x4.yaml
# below 0x0600 the two bytes are an IEEE 802.3 length, not an EtherType
{ pcap_header 1; pcap_record "$(torus_hex)" 100
  pcap_record 020000000001020000000002002e424203000000000000000000 60; } >"$tmp/llc.pcap"
refused plain-802.3 "ttsim replay: $tmp/llc.pcap: record 2: not a torus frame: an 802.3 frame (length field 46, no EtherType)" \
    "$T" replay "$tmp/llc.pcap" "${D[@]}"

# a message claimed bigger than a trace may describe (a 70-byte file that
# would replay 67 million packets): refused, saying so
{ pcap_header 1; pcap_record "$(torus_hex)" 4294967295; } >"$tmp/huge.pcap"
[ "$(stat -c %s "$tmp/huge.pcap")" = 70 ] || bad huge-setup "$(stat -c %s "$tmp/huge.pcap") bytes"
refused huge-message-replay "ttsim replay: $tmp/huge.pcap: record 1: claims a message of 4294967265 bytes; a record may describe at most 67108864 (64 MiB): the record is damaged" \
    timeout 120 "$T" replay "$tmp/huge.pcap" "${D[@]}"
# longer than ttd carries in one frame, but within the bound: a warning
{ pcap_header 1; pcap_record "$(torus_hex)" 100; pcap_record "$(torus_hex)" 100030; } >"$tmp/long.pcap"
if expect long-frame-warned 0 "$T" replay "$tmp/long.pcap" "${D[@]}" --json; then
	grep -Fxq "ttsim replay: warning: $tmp/long.pcap: 1 record longer than ttd carries in one frame (at most 9216 bytes on the wire; the longest claims 100030): each is taken as one message of its size" "$tmp/err" &&
	    [ "$(js '.networks[0].bytes_delivered')" = $((70 + 100000)) ] && ok long-frame-warned ||
	    bad long-frame-warned "$(js '.networks[0].bytes_delivered') bytes; stderr: $(cat "$tmp/err")"
fi
# the same in several files of one trace: one warning for them all
mkdir -p "$tmp/longdir"
cp "$tmp/long.pcap" "$tmp/longdir/a.pcap"
cp "$tmp/long.pcap" "$tmp/longdir/b.pcap"
if expect long-frame-warned-once 0 "$T" replay "$tmp/longdir" "${D[@]}" --json; then
	[ "$(grep -c 'longer than ttd carries' "$tmp/err")" = 1 ] &&
	    grep -Fq "ttsim replay: warning: 2 records (in 2 files) longer than ttd carries" "$tmp/err" &&
	    ok long-frame-warned-once || bad long-frame-warned-once "$(cat "$tmp/err")"
fi
# records older than an earlier one: counted against the latest time seen,
# and said so (5, 3, 4: two records older than the first, though 4 is
# younger than the 3 before it)
{ pcap_header 1; pcap_record "$(torus_hex)" 100 5; pcap_record "$(torus_hex)" 100 3
  pcap_record "$(torus_hex)" 100 4; } >"$tmp/back.pcap"
if expect backwards-said 0 "$T" trace stat "$tmp/back.pcap" --json; then
	grep -Fxq "ttsim trace stat: warning: $tmp/back.pcap: 2 records older than a record before them, each taken at the latest time before it" "$tmp/err" &&
	    [ "$(js .out_of_order)" = 2 ] && ok backwards-said || bad backwards-said "$(js .out_of_order); $(cat "$tmp/err")"
fi

# PE ids of a 4x4x4 trace on 2x2x2 (16 PEs): the first record naming a PE
# above 15, found here by reading the records' bytes
first_outside() {   # FILE -> "RECORD source|destination PE"
	od -An -tu1 -v -w46 -j24 "$1" | awk '{
		dst = $35 * 16777216 + $36 * 65536 + $37 * 256 + $38
		src = $39 * 16777216 + $40 * 65536 + $41 * 256 + $42
		if (src >= 16) { print NR, "source", src; exit }
		if (dst >= 16) { print NR, "destination", dst; exit } }'
}
if expect synth-4x4x4 0 "$T" trace synth --dims 4,4,4 --app alltoall --iterations 1 \
    --bytes 256 -o "$tmp/a2a-4x4x4.pcap"; then
	read -r r which pe <<<"$(first_outside "$tmp/a2a-4x4x4.pcap")"
	damaged pe-outside-source "$tmp/a2a-4x4x4.pcap" "record $r: $which PE $pe is outside the network (16 PEs, ids 0..15)"
fi
if expect synth-flows 0 "$T" trace synth --dims 4,4,4 --app flows --flow 0:1 \
    --flow 3:2 --flow 5:40 --load 0.5 --cycles 300 -o "$tmp/flows-4x4x4.pcap"; then
	read -r r which pe <<<"$(first_outside "$tmp/flows-4x4x4.pcap")"
	[ "$which" = destination ] || bad pe-outside-destination-setup "first outside: $r $which $pe"
	damaged pe-outside-destination "$tmp/flows-4x4x4.pcap" "record $r: $which PE $pe is outside the network (16 PEs, ids 0..15)"
fi

# torus headers that cannot be read, in record 2 after a good one: the
# version|type byte, the VC, the flags; and a header cut by the snap length
bad_torus() {   # NAME HEX WANT
	{ pcap_header 1; pcap_record "$(torus_hex)" 100; pcap_record "$2" 100; } >"$tmp/$1.pcap"
	damaged "$1" "$tmp/$1.pcap" "record 2: $3"
}
bad_torus torus-version "$(torus_hex 20)" "torus frame version 2 (this build reads version 1)"
bad_torus torus-type "$(torus_hex 15)" "unknown torus frame type 5 (0 data, 1 hello, 2 credit)"
bad_torus torus-vc "$(torus_hex 10 28)" "VC 40 out of range (at most 31)"
bad_torus torus-flags "$(torus_hex 10 00 80)" "unknown flags 0x80"
bad_torus torus-snaplen "$(torus_hex | cut -c1-40)" \
    "torus header cut at 6 of 16 bytes (the capture kept too few bytes of it: use a snap length of at least 34)"
# The snap-length hint belongs only to a header the capture cut.  Records
# are header-only by design (30 of 30 + bytes kept), so a whole header with
# a bad field must not get it.
"$T" trace stat "$tmp/torus-version.pcap" >/dev/null 2>"$tmp/err"
grep -q 'snap length' "$tmp/err" && bad torus-no-snap-hint "$(cat "$tmp/err")" ||
    ok torus-no-snap-hint

# a record header whose length is past the file's snap length
{ pcap_header 1; pcap_record "$(torus_hex)" 100
  printf "%b" "$(le32 1767225600)$(le32 5)$(le32 4000000000)$(le32 4000000000)"; head -c 64 /dev/zero; } >"$tmp/reclen.pcap"
damaged record-length "$tmp/reclen.pcap" "record 2: damaged (libpcap: invalid packet capture length 4000000000"

# one damaged file of a cluster directory: named, with its record
cp -r "$tmp/nodes" "$tmp/nodes-bad"
f=$tmp/nodes-bad/node-00003.pcap
r=$(($(records "$f") + 1))
pcap_record "$(torus_hex 30)" 100 >>"$f"
refused directory-member-stat "ttsim trace stat: $f: record $r: torus frame version 3 (this build reads version 1)" \
    "$T" trace stat "$tmp/nodes-bad" "${D[@]}"
refused directory-member-replay "ttsim replay: $f: record $r: torus frame version 3 (this build reads version 1)" \
    "$T" replay "$tmp/nodes-bad" "${D[@]}"

mkdir "$tmp/no-traces"
printf 'traces go here\n' >"$tmp/no-traces/README"
cp "$small" "$tmp/no-traces/node-00000.pcap.part"
damaged empty-directory "$tmp/no-traces" "no trace files in the directory (names containing .pcap)"
damaged missing "$tmp/no-such.pcap" "cannot open: No such file or directory"

# ======== pcapng reads as pcap ========

if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$small" "$tmp/small.pcapng" 2>"$tmp/err" || bad editcap "$(cat "$tmp/err")"
	if [ "$(head -c 4 "$tmp/small.pcapng" | od -An -tx1 | tr -d ' ')" != 0a0d0d0a ]; then
		bad pcapng-written "editcap did not write pcapng"
	fi
	no_path='del(.files[].path)'
	expect pcapng-stat-a 0 "$T" trace stat "$small" "${D[@]}" --json && a=$(jq -c "$no_path" <<<"$out")
	expect pcapng-stat-b 0 "$T" trace stat "$tmp/small.pcapng" "${D[@]}" --json && b=$(jq -c "$no_path" <<<"$out")
	[ "$a" = "$b" ] && ok pcapng-stat || bad pcapng-stat "pcap:   $a"$'\n'"pcapng: $b"
	same='del(.trace.files) | del(.networks[].wall_s)'
	expect pcapng-replay-a 0 "$T" replay "$small" "${D[@]}" --json && a=$(jq -c "$same" <<<"$out")
	expect pcapng-replay-b 0 "$T" replay "$tmp/small.pcapng" "${D[@]}" --json && b=$(jq -c "$same" <<<"$out")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok pcapng-replay || bad pcapng-replay "pcap:   ${a:0:300}"$'\n'"pcapng: ${b:0:300}"
	# a cluster directory of pcapng files
	mkdir "$tmp/nodes-ng"
	for f in "$tmp"/nodes/*.pcap; do
		editcap -F pcapng "$f" "$tmp/nodes-ng/$(basename "$f" .pcap).pcapng"
	done
	sum='{records, messages, bytes, first_ns, last_ns, pairs, pes}'
	expect pcapng-dir-a 0 "$T" trace stat "$tmp/nodes" "${D[@]}" --json && a=$(jq -c "$sum" <<<"$out")
	expect pcapng-dir-b 0 "$T" trace stat "$tmp/nodes-ng" "${D[@]}" --json && b=$(jq -c "$sum" <<<"$out")
	[ "$a" = "$b" ] && ok pcapng-directory || bad pcapng-directory "pcap:   $a"$'\n'"pcapng: $b"
else
	skip pcapng "editcap not installed (wireshark-common)"
	skipped=$((skipped + 1))
fi

# ======== replay ========

big=$tmp/a2a-4x4x4.pcap      # 4x4x4 alltoall of 256-byte messages
M=$((128 * 127))             # every PE to every other, once
# the plain 2D torus with 128 PEs, a x b, a >= b, as square as can be
for ((b = 11; b >= 2; b--)); do ((128 % b == 0)) && break; done
twod="2D $((128 / b))x$b vc"
if expect compare 0 "$T" replay "$big" --dims 4,4,4 --compare D,A,2d --json; then
	got=$(js '[.networks[].name] | join(", ")')
	want="3DT 4x4x4 D vc, 3DT 4x4x4 A vc, $twod"
	[ "$got" = "$want" ] && ok compare-networks || bad compare-networks "$got, wanted $want"
	got=$(js '[.networks[] | [(.makespan_cycles, .makespan_s, .latency_cycles.mean,
	    .latency_cycles.p50, .latency_cycles.p99, .latency_cycles.max,
	    .internal_link_utilization | type), (.links | type)] | join(" ")] | unique | join("; ")')
	[ "$got" = "number number number number number number number array" ] &&
	    ok compare-json-keys || bad compare-json-keys "$got"
	# 3DT: 128 cards with 3 external ports and the internal link;
	# 2D: 128 nodes with 4 ports
	got=$(js '[.networks[] | .links | length] | map(tostring) | join(" ")')
	[ "$got" = "$((128 * (3 + 1))) $((128 * (3 + 1))) $((128 * 4))" ] && ok compare-links ||
	    bad compare-links "links per network: $got"
	got=$(js '[.networks[] | .links[] | (.link | type) == "string" and (.flits | type) == "number"
	    and .utilization >= 0 and .utilization <= 1] | all')
	[ "$got" = true ] && ok compare-link-entries || bad compare-link-entries "$got"
	got=$(js '[.networks[] | .internal_link_utilization > 0] | map(tostring) | join(" ")')
	[ "$got" = "true true false" ] && ok compare-internal-link || bad compare-internal-link "$got"
	# each message: 256 bytes = 4 packets of 4 16-byte flits
	got=$(js "[.trace.messages, (.networks[] | .messages_delivered, .packets_delivered, .bytes_delivered)]
	    | map(tostring) | join(\" \")")
	want="$M$(for n in 1 2 3; do printf ' %d %d %d' $M $((4 * M)) $((256 * M)); done)"
	[ "$got" = "$want" ] && ok compare-conserved || bad compare-conserved "got $got, want $want"
	got=$(js '[.networks[] | (.makespan_s - .makespan_cycles * 12.8e-9 | fabs) < 1e-9
	    and .latency_cycles.p50 <= .latency_cycles.p99 and .latency_cycles.p99 <= .latency_cycles.max
	    and .latency_cycles.mean <= .latency_cycles.max and .deadlock == false] | all')
	[ "$got" = true ] && ok compare-sane || bad compare-sane "$(js '.networks[] | del(.links)')"
fi

if expect csv 0 "$T" replay "$big" --dims 4,4,4 --compare D,A,2d --csv "$tmp/msgs.csv"; then
	head=$(head -1 "$tmp/msgs.csv")
	[ "$head" = "network,src,dst,bytes,packets,time_ns,gen_cycle,done_cycle,latency_cycles,latency_ns,file,record" ] &&
	    ok csv-header || bad csv-header "$head"
	# lines per network, and any (network, file, record) seen twice
	got=$(awk -F, 'NR > 1 { n[$1]++; if (r[$1 "," $11 "," $12]++) dup++ }
	    END { for (k in n) print k "=" n[k]; print "twice=" dup + 0 }' "$tmp/msgs.csv" | sort | paste -sd';')
	want=$(printf '%s\n' "3DT 4x4x4 D vc=$M" "3DT 4x4x4 A vc=$M" "$twod=$M" twice=0 | sort | paste -sd';')
	[ "$got" = "$want" ] && ok csv-one-line-per-message || bad csv-one-line-per-message "got $got, want $want"
fi

# --speed 2: every message generated at half the cycle (llround of half
# the time, so within one of the exact half)
if expect speed-1 0 "$T" replay "$big" --dims 4,4,4 --csv "$tmp/s1.csv" &&
    expect speed-2 0 "$T" replay "$big" --dims 4,4,4 --csv "$tmp/s2.csv" --speed 2; then
	got=$(awk -F, 'FNR == 1 { next }
	    NR == FNR { g[$11 "," $12] = $7; next }
	    { n++; d = 2 * $7 - g[$11 "," $12]; if (d < -1 || d > 1) bad++ }
	    END { printf "%d %d", n, bad }' "$tmp/s1.csv" "$tmp/s2.csv")
	[ "$got" = "$M 0" ] && ok speed-2-halves || bad speed-2-halves "messages, off by more than one: $got"
	# and speed 1 puts a message at its time in 12.8 ns cycles, counted
	# from the first message (the last 12 digits of the times: awk's
	# doubles cannot hold nanoseconds since 1970)
	got=$(awk -F, 'FNR == 1 { next } { t = substr($6, length($6) - 11) + 0 }
	    NR == FNR { if (t0 == "" || t < t0) t0 = t; next }
	    { d = $7 - (t - t0) / 12.8; if (d < -1 || d > 1) bad++ } END { print bad + 0 }' \
	    "$tmp/s1.csv" "$tmp/s1.csv")
	[ "$got" = 0 ] && ok speed-1-cycles || bad speed-1-cycles "$got messages not at (time - first) / 12.8 ns"
fi
if expect speed-max 0 "$T" replay "$big" --dims 4,4,4 --speed max --json; then
	got=$(js '[.speed, .networks[0].messages_delivered, .networks[0].deadlock] | map(tostring) | join(" ")')
	[ "$got" = "max $M false" ] && ok speed-max || bad speed-max "$got"
fi

# bad flags: the golden errors tests/cli/flags/replay-*.args run with the
# others in tests/cli/flags.sh
# --compare naming only networks of another size than the trace's network:
# each is checked against the network of --dims/YAML, not against the
# first of the list.
refused compare-other-size "ttsim replay: --compare: 2D 8x8 vc has 64 PEs, the trace's network (--dims or the YAML file) has 16;" \
    "$T" replay traces/allreduce-2x2x2.pcap --dims 2,2,2 --compare 8x8:plain

# A trace whose span, in cycles at the speed asked for, is more than a
# replay counts (2^53): 11 s of trace slowed a million times on 0.0008-ns
# cycles.  Refused before anything runs, instead of overflowed times.
if expect synth-long 0 "$T" trace synth --dims 2,2,2 --app allreduce --iterations 2 --bytes 8192 \
    --compute-us 10000000 -o "$tmp/long.pcap"; then
	# about 1.1e10 ns / (0.0008 ns * 1e-6) = 1.4e19 cycles
	refused replay-span-cycles "ttsim replay: the trace's 11.0" \
	    "$T" replay "$tmp/long.pcap" --dims 2,2,2 --speed 0.000001 --link-gbps 10000 --flit-bytes 1 &&
	    { grep -q ' s are 1.[34][0-9]*e+19 cycles of 0.0008 ns at --speed 1e-06, more than the 2^53' "$tmp/err" ||
	    bad replay-span-cycles-message "$(cat "$tmp/err")"; }
fi

# ======== the watchdog: plain DOR on one VC deadlocks under heavy load ========

if expect synth-heavy 0 "$T" trace synth --dims 2,2,2 --app uniform --load 1 \
    --cycles 20000 -o "$tmp/heavy.pcap"; then
	if expect deadlock-none 1 "$T" replay "$tmp/heavy.pcap" --dims 2,2,2 --ports D --deadlock none; then
		line=$(grep 'deadlock: no flit moved' "$tmp/err")
		want=$(sed -n 's/.*in a cycle of \([0-9]*\) channels:$/\1/p' <<<"$line")
		chans=$(grep -cE '^  \([0-9],[0-9],[0-9]\)/c[01] ([XYZ][+-]|int) vc[0-9]+$' "$tmp/err")
		[[ $line == "ttsim replay: 3DT 2x2x2 D none: deadlock: no flit moved for 5000 cycles (cycle "* ]] &&
		    [ -n "$want" ] && [ "$want" -ge 2 ] && [ "$chans" -eq "$want" ] &&
		    ok "deadlock-none (a cycle of $want channels)" || bad deadlock-none "$(cat "$tmp/err")"
	fi
	# the same trace with the VC scheme: no deadlock, every message arrives
	if expect deadlock-vc 0 "$T" replay "$tmp/heavy.pcap" --dims 2,2,2 --ports D --json; then
		got=$(js '[.networks[0].deadlock, .networks[0].messages_delivered == .trace.messages] | map(tostring) | join(" ")')
		[ "$got" = "false true" ] && ok deadlock-vc || bad deadlock-vc "$got"
	fi
fi

# a ttd trace directory with port traces beside the PE traces: the PE
# traces only (a port trace holds each frame again on every hop); a
# directory of other names: every file
mkdir -p "$tmp/ttddir" "$tmp/otherdir"
cp traces/allreduce-2x2x2.pcap "$tmp/ttddir/n0-pe.pcap"
cp traces/allreduce-2x2x2.pcap "$tmp/ttddir/n0-c0-Xp.pcap"
cp traces/allreduce-2x2x2.pcap "$tmp/ttddir/n0-c1-int.pcap"
cp traces/allreduce-2x2x2.pcap "$tmp/otherdir/a.pcap"
cp traces/allreduce-2x2x2.pcap "$tmp/otherdir/b.pcap"
one=$("$T" trace stat traces/allreduce-2x2x2.pcap --json | jq .messages)
dirm=$("$T" trace stat "$tmp/ttddir" --json | jq .messages)
dirf=$("$T" trace stat "$tmp/ttddir" --json | jq '.files | length')
oth=$("$T" trace stat "$tmp/otherdir" --json | jq .messages)
[ -n "$one" ] && [ "$dirm" = "$one" ] && [ "$dirf" = 1 ] && [ "$oth" = $((2 * one)) ] &&
    ok "ttd trace directory: its PE trace only ($dirm messages), not the 2 port traces; other names: every file ($oth)" ||
    bad "ttd trace directory" "one $one, ttd dir $dirm in $dirf files, other dir $oth"

finish
