-- Wireshark dissector for the twintorus torus frame.
--
-- The layout is the one in include/twintorus/frame.h: after
-- the Ethernet header (and any 802.1Q tag, which Wireshark's vlan dissector
-- removes before handing over by EtherType) comes EtherType 0x88B5 and a
-- 16-byte header in network byte order, then the carried frame (data), an
-- 8-byte hello body or a credit body (8 bytes and 12 per VC: the lossless
-- flow control between two cards).  Keep this file and frame.h in step.
--
--   tshark -X lua_script:tools/wireshark/twintorus.lua -r trace.pcap
-- make install puts it where Wireshark looks for Lua plugins (on Debian
-- /usr/lib/<multiarch>/wireshark/plugins with PREFIX=/usr; see the
-- Makefile's WIRESHARK_PLUGINDIR); for one user, copy it to
-- ~/.local/lib/wireshark/plugins/.
--
-- Display filters start with "twintorus.": twintorus.src == 3,
-- twintorus.type == 1 (hellos), twintorus.flags.delivered == 1,
-- twintorus.credit.vc.limit, ...

local TT_ETHERTYPE = 0x88B5
local HEADER_LEN = 16
local HELLO_LEN = 8
local CREDIT_HLEN = 8     -- TT_CREDIT_HLEN
local CREDIT_VC_LEN = 12  -- TT_CREDIT_VC_LEN
local VERSION = 1
local MAX_VCS = 32        -- TT_MAX_VCS in twintorus/topo.h
local MAX_EXT = 16        -- TT_MAX_EXT: 2 ports per dimension, 8 dimensions
local FLAG_DELIVERED = 0x01
local FLAGS_KNOWN = 0x01
local PE_BROADCAST = 0xFFFFFFFF  -- TT_PE_BROADCAST: a hello's destination

local proto = Proto("twintorus", "Twin-torus frame")

local types = { [0] = "data", [1] = "hello", [2] = "credit" }

-- Torus port ids are 2 * dimension + (1 if negative): X+ = 0, X- = 1, ...,
-- Z- = 5, then d3+ = 6, d3- = 7, ...  A hello does not say how many
-- dimensions the torus has, so the first three keep their letters (ttsim
-- names every port dN+/dN- from 4 dimensions up).
local function port_name(port)
	local sign = (port % 2 == 1) and "-" or "+"
	local dim = math.floor(port / 2)
	if dim < 3 then
		return string.char(string.byte("X") + dim) .. sign
	end
	return "d" .. dim .. sign
end

local port_names = {}
for port = 0, MAX_EXT - 1 do
	port_names[port] = port_name(port)
end

local f = {
	version = ProtoField.uint8("twintorus.version", "Version", base.DEC,
	    nil, 0xF0),
	type = ProtoField.uint8("twintorus.type", "Type", base.DEC, types, 0x0F),
	vc = ProtoField.uint8("twintorus.vc", "Virtual channel", base.DEC),
	hops = ProtoField.uint8("twintorus.hops", "Hop count", base.DEC),
	flags = ProtoField.uint8("twintorus.flags", "Flags", base.HEX),
	delivered = ProtoField.bool("twintorus.flags.delivered", "Delivered",
	    8, nil, FLAG_DELIVERED,
	    "Set only in the trace copy recorded at delivery to the PE"),
	-- no value_string: Wireshark would show "Unknown (N)" for every PE
	-- id not in it; the broadcast is named where the field is added
	dst = ProtoField.uint32("twintorus.dst", "Destination PE", base.DEC),
	src = ProtoField.uint32("twintorus.src", "Source PE", base.DEC),
	seq = ProtoField.uint32("twintorus.seq", "Sequence", base.DEC),
	carried_len = ProtoField.uint32("twintorus.carried_len",
	    "Carried frame length", base.DEC),
	node = ProtoField.uint32("twintorus.hello.node", "Node", base.DEC),
	card = ProtoField.uint8("twintorus.hello.card", "Card", base.DEC),
	port = ProtoField.uint8("twintorus.hello.port", "Port", base.DEC,
	    port_names),
	reserved = ProtoField.uint16("twintorus.hello.reserved", "Reserved",
	    base.HEX),
	epoch = ProtoField.uint16("twintorus.credit.epoch", "Epoch", base.DEC),
	peer_epoch = ProtoField.uint16("twintorus.credit.peer_epoch",
	    "Peer epoch", base.DEC, { [0] = "none heard yet" }),
	nvcs = ProtoField.uint8("twintorus.credit.vcs", "VCs", base.DEC),
	least = ProtoField.uint16("twintorus.credit.least",
	    "Least credit a frame holds in the sender's buffers", base.DEC,
	    { [0] = "256" }),
	credit_reserved = ProtoField.uint8("twintorus.credit.reserved",
	    "Reserved", base.HEX),
	credit_vc = ProtoField.uint8("twintorus.credit.vc", "VC", base.DEC),
	sent = ProtoField.uint32("twintorus.credit.vc.sent", "Bytes sent",
	    base.DEC),
	limit = ProtoField.uint32("twintorus.credit.vc.limit",
	    "Send limit (for the receiver of this frame)", base.DEC),
	buffer = ProtoField.uint32("twintorus.credit.vc.buffer",
	    "Input buffer", base.DEC),
}
proto.fields = f

local function malformed(name, text)
	return ProtoExpert.new("twintorus." .. name, text,
	    expert.group.MALFORMED, expert.severity.ERROR)
end

local e = {
	cut = malformed("header_cut", "Torus header cut short"),
	version = malformed("version_unknown", "Unknown torus frame version"),
	type = malformed("type_unknown", "Unknown torus frame type"),
	vc = malformed("vc_range", "VC out of range"),
	flags = malformed("flags_unknown", "Unknown flag bits"),
	hello_cut = malformed("hello.cut", "Hello body cut short"),
	-- not malformed: the capture kept fewer bytes than the wire carried
	snapped = ProtoExpert.new("twintorus.not_captured",
	    "Torus frame not captured in full", expert.group.UNDECODED,
	    expert.severity.NOTE),
	card = malformed("hello.card_range", "Hello card out of range"),
	port = malformed("hello.port_range", "Hello port not external"),
	reserved = ProtoExpert.new("twintorus.hello.reserved_set",
	    "Hello reserved field not 0", expert.group.PROTOCOL,
	    expert.severity.WARN),
	credit_cut = malformed("credit.cut", "Credit body cut short"),
	credit_vcs = malformed("credit.vcs_range", "Credit VC count out of range"),
	credit_epoch = malformed("credit.epoch_zero", "Credit epoch 0"),
	credit_least = malformed("credit.least_range",
	    "Credit least cost under 256"),
	credit_reserved = malformed("credit.reserved_set",
	    "Credit reserved byte not 0"),
}
proto.experts = e

local eth_dissector = Dissector.get("eth_withoutfcs")

-- The hello a card sends on each external port: node u32, card u8,
-- port u8, reserved u16.
local function dissect_hello(tvb, pinfo, tree)
	local body = tvb:reported_length_remaining(HEADER_LEN)
	if body < HELLO_LEN then
		tree:add_proto_expert_info(e.hello_cut, string.format(
		    "hello cut at %d of %d bytes", body, HELLO_LEN))
		pinfo.cols.info:append(" (hello cut short)")
		return
	end
	if tvb:len() < HEADER_LEN + HELLO_LEN then
		tree:add_proto_expert_info(e.snapped, string.format(
		    "hello captured to %d of %d bytes", tvb:len() - HEADER_LEN,
		    HELLO_LEN))
		return
	end
	local sub = tree:add(tvb(HEADER_LEN, HELLO_LEN), "Hello")
	local node = tvb(HEADER_LEN, 4):uint()
	local card = tvb(HEADER_LEN + 4, 1):uint()
	local port = tvb(HEADER_LEN + 5, 1):uint()
	local reserved = tvb(HEADER_LEN + 6, 2):uint()
	sub:add(f.node, tvb(HEADER_LEN, 4))
	local card_item = sub:add(f.card, tvb(HEADER_LEN + 4, 1))
	local port_item = sub:add(f.port, tvb(HEADER_LEN + 5, 1))
	local reserved_item = sub:add(f.reserved, tvb(HEADER_LEN + 6, 2))
	if card > 1 then
		card_item:add_proto_expert_info(e.card, string.format(
		    "hello from card %d (0 or 1)", card))
	end
	if port >= MAX_EXT then
		port_item:add_proto_expert_info(e.port, string.format(
		    "hello from port %d, not an external port", port))
	end
	if reserved ~= 0 then
		reserved_item:add_proto_expert_info(e.reserved)
	end
	pinfo.cols.info:set(string.format("hello node %d card %d port %s",
	    node, card, port < MAX_EXT and port_name(port) or tostring(port)))
end

-- The credit state of a link: epoch, peer epoch, VC count, the least
-- credit a frame holds (0: 256), a reserved byte, then per VC the bytes
-- sent, the limit granted and the buffer behind it.
local function dissect_credit(tvb, pinfo, tree)
	local body = tvb:reported_length_remaining(HEADER_LEN)
	local function cut(want, what)
		tree:add_proto_expert_info(e.credit_cut, string.format(
		    "credit body cut at %d of %d bytes%s", body, want, what))
		pinfo.cols.info:append(" (credit cut short)")
	end
	if body < CREDIT_HLEN then
		return cut(CREDIT_HLEN, "")
	end
	if tvb:len() < HEADER_LEN + CREDIT_HLEN then
		tree:add_proto_expert_info(e.snapped, "credit body not captured")
		return
	end
	local sub = tree:add(tvb(HEADER_LEN), "Credit")
	local epoch = tvb(HEADER_LEN, 2):uint()
	local peer = tvb(HEADER_LEN + 2, 2):uint()
	local n = tvb(HEADER_LEN + 4, 1):uint()
	local eitem = sub:add(f.epoch, tvb(HEADER_LEN, 2))
	sub:add(f.peer_epoch, tvb(HEADER_LEN + 2, 2))
	local nitem = sub:add(f.nvcs, tvb(HEADER_LEN + 4, 1))
	local least = tvb(HEADER_LEN + 5, 2):uint()
	local litem = sub:add(f.least, tvb(HEADER_LEN + 5, 2))
	local ritem = sub:add(f.credit_reserved, tvb(HEADER_LEN + 7, 1))
	if least ~= 0 and least < 256 then
		litem:add_proto_expert_info(e.credit_least, string.format(
		    "credit frame with least cost %d (0 or 256 to 65535)", least))
	end
	if tvb(HEADER_LEN + 7, 1):uint() ~= 0 then
		ritem:add_proto_expert_info(e.credit_reserved,
		    "credit frame with its reserved byte set")
	end
	if epoch == 0 then
		eitem:add_proto_expert_info(e.credit_epoch,
		    "credit frame with epoch 0")
	end
	if n < 1 or n > MAX_VCS then
		nitem:add_proto_expert_info(e.credit_vcs, string.format(
		    "credit frame for %d VCs (1 to %d)", n, MAX_VCS))
		return
	end
	local want = CREDIT_HLEN + n * CREDIT_VC_LEN
	if body < want then
		return cut(want, string.format(" (%d VCs)", n))
	end
	pinfo.cols.info:append(string.format(": epoch %d peer %d, %d VC%s",
	    epoch, peer, n, n == 1 and "" or "s"))
	for v = 0, n - 1 do
		local off = HEADER_LEN + CREDIT_HLEN + v * CREDIT_VC_LEN
		if off + CREDIT_VC_LEN > tvb:len() then
			break
		end
		local vt = sub:add(tvb(off, CREDIT_VC_LEN), string.format(
		    "VC %d: sent %d, limit %d, buffer %d", v, tvb(off, 4):uint(),
		    tvb(off + 4, 4):uint(), tvb(off + 8, 4):uint()))
		vt:add(f.credit_vc, v):set_generated()
		vt:add(f.sent, tvb(off, 4))
		vt:add(f.limit, tvb(off + 4, 4))
		vt:add(f.buffer, tvb(off + 8, 4))
	end
end

-- The carried frame is the PE's own Ethernet frame; traces often hold only
-- the torus header (a header-only capture), so hand over what was captured.
local function dissect_data(tvb, pinfo, tree, root)
	local carried = tvb:reported_length_remaining(HEADER_LEN)
	tree:add(f.carried_len, carried):set_generated()
	if carried > 0 and tvb:len() > HEADER_LEN then
		pinfo.cols.info:append(" | ")
		pinfo.cols.info:fence()
		pinfo.cols.protocol:set("twintorus/")
		pinfo.cols.protocol:fence()
		eth_dissector:call(tvb(HEADER_LEN):tvb(), pinfo, root)
	end
end

function proto.dissector(tvb, pinfo, root)
	pinfo.cols.protocol:set("twintorus")
	-- len: bytes the frame had on the wire; shown: bytes we can show, fewer
	-- if the capture's snapshot length cut the header.
	local len = tvb:reported_length_remaining(0)
	local shown = math.min(len, tvb:len(), HEADER_LEN)
	local tree = root:add(proto, tvb(0, shown))
	-- Fields that fit are shown even in a cut header, to help debugging.
	local function fits(off, size)
		return off + size <= shown
	end

	if len < HEADER_LEN then
		tree:add_proto_expert_info(e.cut, string.format(
		    "torus header cut at %d of %d bytes", len, HEADER_LEN))
		pinfo.cols.info:set(string.format(
		    "torus header cut at %d of %d bytes", len, HEADER_LEN))
	elseif shown < HEADER_LEN then
		tree:add_proto_expert_info(e.snapped, string.format(
		    "torus header captured to %d of %d bytes", shown, HEADER_LEN))
		pinfo.cols.info:set(string.format(
		    "torus header captured to %d of %d bytes", shown, HEADER_LEN))
	end
	if not fits(0, 1) then
		return len
	end
	local version = tvb(0, 1):bitfield(0, 4)
	local ftype = tvb(0, 1):bitfield(4, 4)
	local vitem = tree:add(f.version, tvb(0, 1))
	local titem = tree:add(f.type, tvb(0, 1))
	if version ~= VERSION then
		vitem:add_proto_expert_info(e.version, string.format(
		    "torus frame version %d (this dissector reads version %d)",
		    version, VERSION))
	end
	if types[ftype] == nil then
		titem:add_proto_expert_info(e.type, string.format(
		    "unknown torus frame type %d (0 data, 1 hello, 2 credit)",
		    ftype))
	end
	if fits(1, 1) then
		local vc = tvb(1, 1):uint()
		local item = tree:add(f.vc, tvb(1, 1))
		if vc >= MAX_VCS then
			item:add_proto_expert_info(e.vc, string.format(
			    "VC %d out of range (at most %d)", vc, MAX_VCS - 1))
		end
	end
	if fits(2, 1) then
		tree:add(f.hops, tvb(2, 1))
	end
	if fits(3, 1) then
		local flags = tvb(3, 1):uint()
		local item = tree:add(f.flags, tvb(3, 1))
		item:add(f.delivered, tvb(3, 1))
		if bit.band(flags, bit.bnot(FLAGS_KNOWN)) ~= 0 then
			item:add_proto_expert_info(e.flags, string.format(
			    "unknown flags 0x%02x",
			    bit.band(flags, bit.bnot(FLAGS_KNOWN), 0xFF)))
		end
	end
	if fits(4, 4) then
		local item = tree:add(f.dst, tvb(4, 4))
		if tvb(4, 4):uint() == PE_BROADCAST then
			item:set_text(string.format("Destination PE: every PE (%d)",
			    PE_BROADCAST))
		end
	end
	if fits(8, 4) then tree:add(f.src, tvb(8, 4)) end
	if fits(12, 4) then tree:add(f.seq, tvb(12, 4)) end
	if shown < HEADER_LEN then
		return len
	end

	local vc, hops = tvb(1, 1):uint(), tvb(2, 1):uint()
	local dst, src, seq = tvb(4, 4):uint(), tvb(8, 4):uint(),
	    tvb(12, 4):uint()
	local delivered = bit.band(tvb(3, 1):uint(), FLAG_DELIVERED) ~= 0
	pinfo.cols.info:set(string.format("%s %d -> %d vc %d hops %d seq %d%s",
	    types[ftype] or ("type " .. ftype), src, dst, vc, hops, seq,
	    delivered and " delivered" or ""))
	if version ~= VERSION then
		-- The rest of the frame means nothing we know of.
		return len
	end
	if ftype == 0 then
		dissect_data(tvb, pinfo, tree, root)
	elseif ftype == 1 then
		dissect_hello(tvb, pinfo, tree)
	elseif ftype == 2 then
		dissect_credit(tvb, pinfo, tree)
	end
	return len
end

DissectorTable.get("ethertype"):add(TT_ETHERTYPE, proto)
