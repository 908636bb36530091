-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark/tshark dissector for the gsync wire format
-- (uapi/linux/gsync_wire.h): UDP datagrams between the ranks of an
-- AF_GSYNC all-reduce group. Every header field and every payload field of
-- every packet type is a filterable gsync.* field; packets the kernel would
-- drop get expert info naming the drop counter (drop_short, drop_version,
-- drop_type, drop_field, drop_auth), and structurally broken packets are
-- flagged malformed (gsync.malformed). Nothing is read beyond the captured
-- bytes, so no packet can make the dissector fail.
--
-- Keyed groups (gsync_wire.h, "Keyed groups"; docs/security.md): a packet
-- with flag SEALED (gsync.flags.sealed) is header | struct gsync_wire_sec
-- (gsync.sec.epoch, .reserved, .counter) | payload | 16-byte
-- ChaCha20-Poly1305 tag (gsync.tag), payload_len counting the payload
-- only. The header is in clear: it is decoded and checked as any. In AUTH
-- mode (SEALED alone) so is the payload; with ENCRYPTED too
-- (gsync.flags.encrypted) the payload is shown as opaque bytes
-- (gsync.ciphertext), checked only for its size (ChaCha20 keeps it). The
-- tag is shown, not verified (that needs the group's secret). The info
-- column says "[sealed epoch=E counter=C]" or "[encrypted ...]". ENCRYPTED
-- without SEALED is malformed (kernel: drop_auth), so is a sealed packet
-- without room for gsync_wire_sec and the tag, or whose payload_len does
-- not end where the tag starts (drop_short); gsync_wire_sec's reserved must
-- be 0 (drop_field).
--
-- Finding the packets: gsync uses whatever UDP ports the group configures,
-- so the dissector registers a heuristic on UDP (on by default: preference
-- gsync.heuristic) that accepts a datagram whose header is self-consistent
-- (version 3, known type, dtype and op, 2..256 ranks, sender rank below the
-- group size, no reserved flag bits, stamp 0 unless DATA, payload_len equal
-- to the rest of the datagram, less the 32 bytes of gsync_wire_sec and the
-- tag if SEALED). Preference gsync.udp_port (0 = none) also decodes one UDP
-- port unconditionally, which is how malformed packets get shown.
--
-- Older wire versions are refused by the kernel as drop_version (drop_short
-- if shorter than 64 bytes). The heuristic still finds their packets, so
-- that a peer running an old module shows up in a capture, flagged with
-- expert info gsync.version.old:
--   version 2 (before the DATA stamp and REPORT) has the version 3 layout;
--     offset 50 is a reserved field then (gsync.v2.reserved, 0), and the
--     packet is decoded in full by the version 2 rules (types 1..5).
--   version 1 (before the 64-bit schedule tag: a 56-byte header with a
--     16-bit tag at offset 50): the header is decoded with that layout
--     (every other field is where version 3 has it; gsync.v1.sched_tag),
--     the payload is not.
--
--   tshark -X lua_script:gsync.lua -r capture.pcap
--   tshark -X lua_script:gsync.lua -o gsync.udp_port:7100 -Y 'gsync.type == 2'
--   tshark -X lua_script:gsync.lua -r capture.pcap -Y 'gsync.flags.encrypted == 1'
--   cp gsync.lua ~/.local/lib/wireshark/plugins/    (Wireshark GUI)
--
-- Written for Wireshark 4.0 (Lua 5.2) and later.

local gsync = Proto("gsync", "gsync all-reduce transport")

local VERSION = 3
local HDR_LEN = 64
local V1_HDR_LEN = 56
local MAX_RANKS = 256
local MAX_RANGES = 128
local RANGE_ALL = 0xffffffff

local types = { [1] = "DATA", [2] = "NACK", [3] = "STATUS", [4] = "POLL", [5] = "ABORT",
	[6] = "REPORT" }
local MAX_TYPE = { [1] = 5, [2] = 5, [3] = 6 } -- highest packet type of each wire version
local REPORT_LEN = 24
local NO_ECHO = 0xffff -- REPORT hold_ms: no DATA to echo
local dtypes = { [0] = "fp32", [1] = "bf16", [2] = "fp16", [3] = "int32" }
local dtype_size = { [0] = 4, [1] = 2, [2] = 2, [3] = 4 }
local ops = { [0] = "sum", [1] = "avg", [2] = "min", [3] = "max" }
local errnos = { [71] = "EPROTO", [103] = "ECONNABORTED", [104] = "ECONNRESET",
	[110] = "ETIMEDOUT", [125] = "ECANCELED", [129] = "EKEYREJECTED" }

local WF_RETRANSMIT = 0x0001
local WF_PARTIAL = 0x0002
local WF_SEALED = 0x0004
local WF_ENCRYPTED = 0x0008
local WF_SEAL = 0x000c -- the flags of a keyed group's packets
-- flag bits no gsync of the wire version sets (the kernel: drop_field)
local RESERVED_FLAGS = { [1] = 0xfffc, [2] = 0xfffc, [3] = 0xfff0 }
local SEC_LEN = 16 -- struct gsync_wire_sec, after the header of a sealed packet
local TAG_LEN = 16 -- the ChaCha20-Poly1305 tag, after its payload

local f = {
	version = ProtoField.uint8("gsync.version", "Version", base.DEC),
	type = ProtoField.uint8("gsync.type", "Type", base.DEC, types),
	dtype = ProtoField.uint8("gsync.dtype", "Element type", base.DEC, dtypes),
	op = ProtoField.uint8("gsync.op", "Reduction", base.DEC, ops),
	src_rank = ProtoField.uint16("gsync.src_rank", "Sender rank", base.DEC),
	nranks = ProtoField.uint16("gsync.nranks", "Ranks in group", base.DEC),
	group_id = ProtoField.uint64("gsync.group_id", "Group id", base.HEX),
	seq = ProtoField.uint64("gsync.seq", "Sequence number", base.DEC),
	round = ProtoField.uint16("gsync.round", "Step", base.DEC),
	sched_round = ProtoField.uint16("gsync.sched_round", "Schedule round", base.DEC),
	flags = ProtoField.uint16("gsync.flags", "Flags", base.HEX),
	flag_retransmit = ProtoField.bool("gsync.flags.retransmit", "Retransmit", 16, nil, WF_RETRANSMIT),
	flag_partial = ProtoField.bool("gsync.flags.partial", "Partial (covers != 1 rank)", 16, nil, WF_PARTIAL),
	flag_sealed = ProtoField.bool("gsync.flags.sealed", "Sealed (keyed group)", 16, nil, WF_SEALED),
	flag_encrypted = ProtoField.bool("gsync.flags.encrypted", "Encrypted (payload: ENCRYPT mode)", 16, nil, WF_ENCRYPTED),
	flag_reserved = ProtoField.uint16("gsync.flags.reserved", "Reserved flags", base.HEX, nil, 0xfff0),
	chunk = ProtoField.uint32("gsync.chunk", "Chunk", base.DEC),
	nchunks = ProtoField.uint32("gsync.nchunks", "Chunks", base.DEC),
	payload_len = ProtoField.uint32("gsync.payload_len", "Payload length", base.DEC),
	total_len = ProtoField.uint64("gsync.total_len", "Contribution length", base.DEC),
	ncontrib = ProtoField.uint16("gsync.ncontrib", "Contributing ranks", base.DEC),
	stamp = ProtoField.uint16("gsync.stamp", "Stamp (sender's clock, ms mod 2^16)", base.DEC),
	v2_reserved = ProtoField.uint16("gsync.v2.reserved", "Reserved (wire version 2)", base.HEX),
	chunk_bytes = ProtoField.uint32("gsync.chunk_bytes", "Chunk size", base.DEC),
	sched_tag = ProtoField.uint64("gsync.sched_tag", "Schedule tag", base.HEX),
	v1_sched_tag = ProtoField.uint16("gsync.v1.sched_tag", "Schedule tag (wire version 1, 16 bits)", base.HEX),
	v1_payload = ProtoField.bytes("gsync.v1.payload", "Payload (wire version 1, not decoded)"),
	sec = ProtoField.none("gsync.sec", "Seal (struct gsync_wire_sec)"),
	sec_epoch = ProtoField.uint32("gsync.sec.epoch", "Key epoch", base.DEC),
	sec_reserved = ProtoField.uint32("gsync.sec.reserved", "Reserved", base.HEX),
	sec_counter = ProtoField.uint64("gsync.sec.counter", "Counter (the nonce)", base.DEC),
	ciphertext = ProtoField.bytes("gsync.ciphertext", "Encrypted payload"),
	tag = ProtoField.bytes("gsync.tag", "Tag (ChaCha20-Poly1305)"),
	data = ProtoField.bytes("gsync.data", "Data"),
	data_offset = ProtoField.uint64("gsync.data.offset", "Offset in contribution", base.DEC),
	data_elements = ProtoField.uint32("gsync.data.elements", "Elements", base.DEC),
	nack_target = ProtoField.uint16("gsync.nack.target_rank", "Missing contribution of rank", base.DEC),
	nack_nranges = ProtoField.uint16("gsync.nack.nranges", "Ranges", base.DEC),
	nack_reserved = ProtoField.uint32("gsync.nack.reserved", "Reserved", base.HEX),
	nack_range = ProtoField.none("gsync.nack.range", "Range"),
	range_first = ProtoField.uint32("gsync.nack.range.first", "First chunk", base.DEC),
	range_count = ProtoField.uint32("gsync.nack.range.count", "Count", base.DEC),
	status_complete = ProtoField.bytes("gsync.status.complete", "Complete bitmap"),
	status_rank = ProtoField.uint16("gsync.status.rank", "Complete rank", base.DEC),
	status_count = ProtoField.uint16("gsync.status.count", "Complete ranks", base.DEC),
	abort_error = ProtoField.uint32("gsync.abort.error", "Error", base.DEC, errnos),
	abort_reserved = ProtoField.uint32("gsync.abort.reserved", "Reserved", base.HEX),
	report_target = ProtoField.uint16("gsync.report.target_rank", "About the DATA of rank", base.DEC),
	report_echo = ProtoField.uint16("gsync.report.echo_stamp", "Echoed stamp (of the target's latest DATA)", base.DEC),
	report_hold = ProtoField.uint16("gsync.report.hold_ms", "Held (ms)", base.DEC),
	report_reserved = ProtoField.uint16("gsync.report.reserved", "Reserved", base.HEX),
	report_interval = ProtoField.uint32("gsync.report.interval_us", "Interval (us)", base.DEC),
	report_rx_bytes = ProtoField.uint32("gsync.report.rx_bytes", "Bytes received", base.DEC),
	report_rx_chunks = ProtoField.uint32("gsync.report.rx_chunks", "Chunks judged received", base.DEC),
	report_lost = ProtoField.uint32("gsync.report.lost", "Chunks lost", base.DEC),
	trailing = ProtoField.bytes("gsync.trailing", "Bytes beyond payload_len"),
}
local field_order = { "version", "type", "dtype", "op", "src_rank", "nranks", "group_id",
	"seq", "round", "sched_round", "flags", "flag_retransmit", "flag_partial", "flag_sealed",
	"flag_encrypted", "flag_reserved", "chunk", "nchunks", "payload_len", "total_len", "ncontrib",
	"stamp", "v2_reserved", "chunk_bytes", "sched_tag", "v1_sched_tag", "v1_payload",
	"sec", "sec_epoch", "sec_reserved", "sec_counter", "ciphertext", "tag",
	"data", "data_offset", "data_elements", "nack_target", "nack_nranges", "nack_reserved",
	"nack_range", "range_first", "range_count", "status_complete", "status_rank",
	"status_count", "abort_error", "abort_reserved", "report_target", "report_echo",
	"report_hold", "report_reserved", "report_interval", "report_rx_bytes", "report_rx_chunks",
	"report_lost", "trailing" }
local field_list = {}
for _, k in ipairs(field_order) do field_list[#field_list + 1] = assert(f[k], k) end
gsync.fields = field_list

local ex = {
	malformed = ProtoExpert.new("gsync.malformed", "Malformed gsync packet",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("gsync.version.unknown", "Unknown wire version (kernel: drop_version)",
		expert.group.PROTOCOL, expert.severity.WARN),
	version_old = ProtoExpert.new("gsync.version.old", "Old wire version (1 or 2), dropped by gsync with wire version 3 (kernel: drop_version)",
		expert.group.PROTOCOL, expert.severity.WARN),
	type = ProtoExpert.new("gsync.type.unknown", "Unknown packet type (kernel: drop_type)",
		expert.group.PROTOCOL, expert.severity.WARN),
	field = ProtoExpert.new("gsync.field.invalid", "Field out of range (kernel: drop_field)",
		expert.group.PROTOCOL, expert.severity.WARN),
	rank = ProtoExpert.new("gsync.rank.invalid", "Rank out of range (kernel: drop_rank)",
		expert.group.PROTOCOL, expert.severity.WARN),
	retransmit = ProtoExpert.new("gsync.retransmit", "Retransmitted chunk",
		expert.group.SEQUENCE, expert.severity.NOTE),
	abort = ProtoExpert.new("gsync.abort", "Operation aborted",
		expert.group.RESPONSE_CODE, expert.severity.WARN),
}
gsync.experts = { ex.malformed, ex.version, ex.version_old, ex.type, ex.field, ex.rank, ex.retransmit, ex.abort }

gsync.prefs.udp_port = Pref.uint("UDP port", 0,
	"Decode this UDP port (source or destination) as gsync; 0 = none")
gsync.prefs.heuristic = Pref.bool("Heuristic detection", true,
	"Find gsync packets on any UDP port by checking the header")

-- Checks the kernel makes on DATA and POLL (kmod/wire.c): the description of
-- a value, its length and its chunking.
local function check_contrib(t, tvb, sched, dtype)
	local total = tvb(40, 8):uint64()
	local cb = tvb(52, 4):uint()
	local n = UInt64(tvb(32, 4):uint())
	local elem = dtype_size[dtype] or 1
	if total == UInt64(0) or total > UInt64(1073741824) or (total % elem) ~= UInt64(0) then
		t:add_proto_expert_info(ex.field, "total_len is 0, above 1 GiB or not a multiple of the element size")
	end
	if cb < 256 or cb > 65535 or cb % elem ~= 0 then
		t:add_proto_expert_info(ex.field, "chunk_bytes outside 256..65535 or not a multiple of the element size")
	end
	if cb > 0 then
		-- all UInt64: total_len may be anything up to 2^64 - 1 here
		local min = (total / cb) + ((total % cb) ~= UInt64(0) and 1 or 0)
		if not sched and n ~= min then
			t:add_proto_expert_info(ex.field, "nchunks " .. tostring(n) ..
				", expected ceil(total_len / chunk_bytes) = " .. tostring(min))
		elseif sched and (n < min or n > min + 4096) then
			t:add_proto_expert_info(ex.field, "nchunks out of range for total_len and chunk_bytes")
		end
	end
end

local function malformed(t, pinfo, msg)
	t:add_proto_expert_info(ex.malformed, msg)
	pinfo.cols.info:append(" [Malformed]")
end

-- Encrypted (h.encrypted): the data is not shown (dissect_encrypted()
-- shows the ciphertext), the header is checked as usual.
local function dissect_data(tvb, pinfo, t, plen, h)
	if plen == 0 then
		t:add_proto_expert_info(ex.field, "DATA without data")
		return
	end
	if not h.encrypted then
		local d = t:add(f.data, tvb(h.off, plen))
		local elem = dtype_size[h.dtype]
		if elem then
			d:add(f.data_elements, math.floor(plen / elem)):set_generated()
		end
	end
	if not h.sched and h.chunk_bytes > 0 then
		t:add(f.data_offset, UInt64(h.chunk) * h.chunk_bytes):set_generated()
	end
	if plen > h.chunk_bytes then
		t:add_proto_expert_info(ex.field, "more data than chunk_bytes")
	end
	if h.chunk >= h.nchunks then
		t:add_proto_expert_info(ex.field, "chunk index not below nchunks")
	end
	local partial = bit32.band(h.flags, WF_PARTIAL) ~= 0
	if h.ncontrib == 0 or h.ncontrib > h.nranks or (not h.sched and h.ncontrib ~= 1)
		or partial ~= (h.ncontrib ~= 1) then
		t:add_proto_expert_info(ex.field, "ncontrib inconsistent with the PARTIAL flag, the group size or the schedule")
	end
end

local function dissect_nack(tvb, pinfo, t, plen, h)
	local off = h.off
	if plen < 8 then
		malformed(t, pinfo, "NACK payload shorter than 8 bytes")
		return
	end
	t:add(f.nack_target, tvb(off, 2))
	local nr = tvb(off + 2, 2):uint()
	local nri = t:add(f.nack_nranges, tvb(off + 2, 2))
	t:add(f.nack_reserved, tvb(off + 4, 4))
	local have = math.floor((plen - 8) / 8)
	if (plen - 8) % 8 ~= 0 then
		malformed(t, pinfo, "NACK payload is not a whole number of ranges")
	end
	if nr == 0 or nr > MAX_RANGES then
		nri:add_proto_expert_info(ex.field, "nranges outside 1..128")
	end
	if nr ~= have then
		malformed(nri, pinfo, string.format("nranges %d but the payload holds %d", nr, have))
	end
	for i = 0, math.min(have, MAX_RANGES + 1) - 1 do
		local o = off + 8 + i * 8
		local first = tvb(o, 4):uint()
		local count = tvb(o + 4, 4):uint()
		local r = t:add(f.nack_range, tvb(o, 8))
		r:add(f.range_first, tvb(o, 4))
		local ci = r:add(f.range_count, tvb(o + 4, 4))
		if count == RANGE_ALL then
			ci:append_text(" (to the end)")
			r:append_text(string.format(": chunks %d..end", first))
		else
			r:append_text(string.format(": chunks %d..%d", first, first + count - 1))
		end
	end
end

local function dissect_status(tvb, pinfo, t, plen, h)
	local off = h.off
	if plen ~= 32 then
		malformed(t, pinfo, string.format("STATUS payload is %d bytes, not 32", plen))
		return
	end
	local b = t:add(f.status_complete, tvb(off, 32))
	local n = 0
	local list = {}
	for i = 0, 31 do
		local byte = tvb(off + i, 1):uint()
		for bit = 0, 7 do
			if bit32.band(byte, bit32.lshift(1, bit)) ~= 0 then
				b:add(f.status_rank, tvb(off + i, 1), i * 8 + bit):set_generated()
				n = n + 1
				if #list < 16 then table.insert(list, tostring(i * 8 + bit)) end
			end
		end
	end
	t:add(f.status_count, n):set_generated()
	pinfo.cols.info:append(" complete=[" .. table.concat(list, ",") .. (n > 16 and ",..." or "") .. "]")
end

local function dissect_abort(tvb, pinfo, t, plen, h)
	local off = h.off
	if plen ~= 8 then
		malformed(t, pinfo, string.format("ABORT payload is %d bytes, not 8", plen))
		return
	end
	local e = tvb(off, 4):uint()
	t:add(f.abort_error, tvb(off, 4))
	t:add(f.abort_reserved, tvb(off + 4, 4))
	t:add_proto_expert_info(ex.abort, "operation aborted: " .. (errnos[e] or ("errno " .. e)))
	pinfo.cols.info:append(" error=" .. (errnos[e] or tostring(e)))
end

-- A REPORT is about the group, not an operation (kmod/wire.c,
-- gsync_wire_check_report()): the kernel drops it unless every operation
-- field of the header is 0.
local function check_report_hdr(t, tvb, h)
	local set = {}
	local function nz(name, v) if v ~= 0 then set[#set + 1] = name end end
	if h.seq ~= UInt64(0) then set[#set + 1] = "seq" end
	nz("round", h.round)
	-- a keyed group's REPORT is sealed too: the kernel clears these
	-- flags when it has opened it (kmod/seal.c)
	nz("flags", bit32.band(h.flags, bit32.bnot(WF_SEAL)))
	nz("chunk", h.chunk)
	nz("nchunks", h.nchunks)
	if tvb(40, 8):uint64() ~= UInt64(0) then set[#set + 1] = "total_len" end
	nz("ncontrib", h.ncontrib)
	nz("chunk_bytes", h.chunk_bytes)
	if tvb(56, 8):uint64() ~= UInt64(0) then set[#set + 1] = "sched_tag" end
	if #set > 0 then
		t:add_proto_expert_info(ex.field, "REPORT with operation fields not 0: " .. table.concat(set, ", "))
	end
end

-- REPORT payload (kmod/receive.c, gsync_rx_report()): the kernel drops it
-- unless target_rank is the receiving rank and reserved is 0. Which rank
-- receives is not in the packet, but no rank can be a target beyond the
-- group or the reporter itself.
local function dissect_report(tvb, pinfo, t, plen, h)
	local off = h.off
	if plen ~= REPORT_LEN then
		malformed(t, pinfo, string.format("REPORT payload is %d bytes, not %d", plen, REPORT_LEN))
		return
	end
	local target = tvb(off, 2):uint()
	local echo = tvb(off + 2, 2):uint()
	local hold = tvb(off + 4, 2):uint()
	local reserved = tvb(off + 6, 2):uint()
	local ti = t:add(f.report_target, tvb(off, 2))
	t:add(f.report_echo, tvb(off + 2, 2))
	local hi = t:add(f.report_hold, tvb(off + 4, 2))
	local ri = t:add(f.report_reserved, tvb(off + 6, 2))
	t:add(f.report_interval, tvb(off + 8, 4))
	t:add(f.report_rx_bytes, tvb(off + 12, 4))
	t:add(f.report_rx_chunks, tvb(off + 16, 4))
	t:add(f.report_lost, tvb(off + 20, 4))
	if hold == NO_ECHO then
		hi:append_text(" (no DATA to echo)")
	else
		-- the target's round trip, on its own clock (gsync_wire.h)
		hi:append_text(" (round trip = target's clock on receipt - echo_stamp - hold_ms)")
	end
	if target >= h.nranks or target == h.src_rank then
		ti:add_proto_expert_info(ex.field, string.format(
			"target_rank %d is the reporter or not below nranks: no rank takes it", target))
	end
	if reserved ~= 0 then
		ri:add_proto_expert_info(ex.field, string.format("reserved is 0x%04x, not 0", reserved))
	end
	pinfo.cols.info:append(string.format(" to rank %d rx_chunks=%d lost=%d echo=%s", target,
		tvb(off + 16, 4):uint(), tvb(off + 20, 4):uint(),
		hold == NO_ECHO and "none" or string.format("%d hold=%dms", echo, hold)))
end

-- A keyed group's packet (gsync_wire.h, "Keyed groups"): header |
-- gsync_wire_sec | payload | tag. Shows gsync_wire_sec and sets h.off past
-- it; false if the packet cannot be sealed as it claims (then nothing after
-- the header is decoded). Wire version 3 only.
local function dissect_seal(tvb, pinfo, t, h, it)
	if not h.sealed then
		-- a keyed group's packets are SEALED, and ENCRYPTED in ENCRYPT
		-- mode; a group without a key takes neither (kmod/wire.c)
		malformed(it.flags, pinfo, "ENCRYPTED without SEALED: no gsync sends it (kernel: drop_auth)")
		return false
	end
	local avail = h.len - HDR_LEN
	if avail < SEC_LEN + TAG_LEN then
		malformed(it.flags, pinfo, string.format(
			"sealed, but %d bytes follow the header, fewer than gsync_wire_sec and the tag (%d) (kernel: drop_short)",
			avail, SEC_LEN + TAG_LEN))
		return false
	end
	h.off = HDR_LEN + SEC_LEN
	local mode = h.encrypted and "encrypted" or "sealed"
	if h.caplen < HDR_LEN + SEC_LEN then
		-- the caller notes the payload as not captured
		pinfo.cols.info:append(" [" .. mode .. "]")
		t:append_text(", " .. mode)
		return true
	end
	local epoch = tvb(HDR_LEN, 4):uint()
	local reserved = tvb(HDR_LEN + 4, 4):uint()
	local counter = tvb(HDR_LEN + 8, 8):uint64()
	local s = t:add(f.sec, tvb(HDR_LEN, SEC_LEN))
	s:append_text(string.format(": epoch %d, counter %s", epoch, tostring(counter)))
	s:add(f.sec_epoch, tvb(HDR_LEN, 4))
	local ri = s:add(f.sec_reserved, tvb(HDR_LEN + 4, 4))
	s:add(f.sec_counter, tvb(HDR_LEN + 8, 8))
	if reserved ~= 0 then
		ri:add_proto_expert_info(ex.field, string.format("reserved is 0x%08x, not 0 (kernel: drop_field)", reserved))
	end
	pinfo.cols.info:append(string.format(" [%s epoch=%d counter=%s]", mode, epoch, tostring(counter)))
	t:append_text(string.format(", %s, epoch %d", mode, epoch))
	return true
end

-- An encrypted payload is opaque without the group's secret, but
-- ChaCha20 keeps its length: the checks of the payload's size hold, and
-- those of the header (in clear) as usual.
local function dissect_encrypted(tvb, pinfo, t, h, it)
	local plen = h.plen
	if plen > 0 then t:add(f.ciphertext, tvb(h.off, plen)) end
	if h.type == 1 then
		check_contrib(t, tvb, h.sched, h.dtype)
		dissect_data(tvb, pinfo, t, plen, h)
	elseif h.type == 2 then
		if plen < 8 then
			malformed(t, pinfo, "NACK payload shorter than 8 bytes")
		elseif (plen - 8) % 8 ~= 0 then
			malformed(t, pinfo, "NACK payload is not a whole number of ranges")
		end
	elseif h.type == 3 and plen ~= 32 then
		malformed(t, pinfo, string.format("STATUS payload is %d bytes, not 32", plen))
	elseif h.type == 4 then
		if plen ~= 0 then malformed(it.plen, pinfo, "POLL with a payload") end
		check_contrib(t, tvb, h.sched, h.dtype)
	elseif h.type == 5 and plen ~= 8 then
		malformed(t, pinfo, string.format("ABORT payload is %d bytes, not 8", plen))
	elseif h.type == 6 and plen ~= REPORT_LEN then
		malformed(t, pinfo, string.format("REPORT payload is %d bytes, not %d", plen, REPORT_LEN))
	end
end

-- The checks of a header of version 2 or 3 and its payload, as the kernel
-- of that version makes them. it: the header's tree items.
local function dissect_checked(tvb, pinfo, t, h, it)
	local len, caplen = h.len, h.caplen
	if h.type < 1 or h.type > MAX_TYPE[h.version] then
		if h.type == 6 then
			it.type:add_proto_expert_info(ex.type, "REPORT does not exist in wire version 2 (kernel: drop_type)")
		else
			it.type:add_proto_expert_info(ex.type)
		end
		return
	end
	if h.nranks < 2 or h.nranks > MAX_RANKS or h.src_rank >= h.nranks then
		it.rank:add_proto_expert_info(ex.rank, "sender rank not below nranks, or nranks outside 2..256")
	end
	if not dtypes[h.dtype] then it.dtype:add_proto_expert_info(ex.field, "unknown dtype") end
	if not ops[h.op] then it.op:add_proto_expert_info(ex.field, "unknown op") end
	if bit32.band(h.flags, RESERVED_FLAGS[h.version]) ~= 0 then it.flags:add_proto_expert_info(ex.field, "reserved flag bits set") end
	if h.version == 2 then
		if h.stamp ~= 0 then it.stamp:add_proto_expert_info(ex.field, string.format("reserved is 0x%04x, not 0", h.stamp)) end
	elseif h.stamp ~= 0 and h.type ~= 1 then
		it.stamp:add_proto_expert_info(ex.field, string.format("stamp is %d in a %s, not 0 (only DATA has one)",
			h.stamp, types[h.type]))
	end
	if h.type == 6 then
		-- the step is one of the operation fields a REPORT must leave 0
		check_report_hdr(t, tvb, h)
	elseif not h.sched and h.round ~= 0 then
		it.round:add_proto_expert_info(ex.field, "nonzero step without a schedule")
	elseif h.round >= 32 then
		it.round:add_proto_expert_info(ex.field, "step beyond 2 * GSYNC_SCHED_MAX_ROUNDS")
	end

	-- where the payload starts: after gsync_wire_sec if sealed
	h.off = HDR_LEN
	if h.sealed or h.encrypted then
		if not dissect_seal(tvb, pinfo, t, h, it) then return end
	end

	local avail = len - h.off - (h.sealed and TAG_LEN or 0)
	if h.sealed and h.plen ~= avail then
		-- the kernel takes the tag from where payload_len puts it and
		-- wants nothing after it (kmod/seal.c)
		malformed(it.plen, pinfo, string.format("payload_len %d but %d bytes lie between gsync_wire_sec and the %d-byte tag (kernel: drop_short)",
			h.plen, avail, TAG_LEN))
		if h.plen > avail then return end
	elseif h.plen > avail then
		malformed(it.plen, pinfo, string.format("payload_len %d but only %d bytes follow the header (kernel: drop_short)", h.plen, avail))
		return
	elseif h.plen < avail then
		it.plen:add_proto_expert_info(ex.field, string.format("payload_len %d but %d bytes follow the header", h.plen, avail))
		if caplen > HDR_LEN + h.plen then
			t:add(f.trailing, tvb(HDR_LEN + h.plen))
		end
	end
	if caplen < h.off + h.plen then
		-- Cut by the capture's snap length: decode what is there.
		t:add_expert_info(PI_UNDECODED, PI_NOTE, "payload not captured in full")
		if caplen > h.off then
			if h.encrypted then t:add(f.ciphertext, tvb(h.off))
			elseif h.type == 1 then t:add(f.data, tvb(h.off)) end
		end
		return
	end

	if h.encrypted then
		dissect_encrypted(tvb, pinfo, t, h, it)
	elseif h.type == 1 then
		check_contrib(t, tvb, h.sched, h.dtype)
		dissect_data(tvb, pinfo, t, h.plen, h)
	elseif h.type == 2 then
		dissect_nack(tvb, pinfo, t, h.plen, h)
	elseif h.type == 3 then
		dissect_status(tvb, pinfo, t, h.plen, h)
	elseif h.type == 4 then
		if h.plen ~= 0 then malformed(it.plen, pinfo, "POLL with a payload") end
		check_contrib(t, tvb, h.sched, h.dtype)
	elseif h.type == 5 then
		dissect_abort(tvb, pinfo, t, h.plen, h)
	elseif h.type == 6 then
		dissect_report(tvb, pinfo, t, h.plen, h)
	end

	if h.sealed then
		local to = h.off + h.plen -- the tag's offset
		if caplen < to + TAG_LEN then
			t:add_expert_info(PI_UNDECODED, PI_NOTE, "tag not captured in full")
			return
		end
		t:add(f.tag, tvb(to, TAG_LEN)):append_text(" (not verified: that needs the group's secret)")
		if caplen > to + TAG_LEN then t:add(f.trailing, tvb(to + TAG_LEN)) end
	end
end

local function dissect(tvb, pinfo, tree)
	local caplen = tvb:len()
	local len = tvb:reported_length_remaining()
	pinfo.cols.protocol = "GSYNC"
	local t = tree:add(gsync, tvb())
	-- Wire version 1 has a shorter header (see the top of this file).
	local v1 = caplen >= V1_HDR_LEN and len >= V1_HDR_LEN and tvb(0, 1):uint() == 1
	if not v1 and (len < HDR_LEN or caplen < HDR_LEN) then
		pinfo.cols.info = string.format("gsync, %d bytes", len)
		malformed(t, pinfo, string.format("%d bytes, shorter than the %d-byte header (kernel: drop_short)", len, HDR_LEN))
		return caplen
	end

	local h = {
		version = tvb(0, 1):uint(), type = tvb(1, 1):uint(), dtype = tvb(2, 1):uint(),
		op = tvb(3, 1):uint(), src_rank = tvb(4, 2):uint(), nranks = tvb(6, 2):uint(),
		seq = tvb(16, 8):uint64(), round = tvb(24, 2):uint(), flags = tvb(26, 2):uint(),
		chunk = tvb(28, 4):uint(), nchunks = tvb(32, 4):uint(), plen = tvb(36, 4):uint(),
		ncontrib = tvb(48, 2):uint(), chunk_bytes = tvb(52, 4):uint(),
		len = len, caplen = caplen,
	}
	-- Keyed groups' packets exist in wire version 3 only (older ones:
	-- reserved flag bits)
	h.sealed = h.version == VERSION and bit32.band(h.flags, WF_SEALED) ~= 0
	h.encrypted = h.version == VERSION and bit32.band(h.flags, WF_ENCRYPTED) ~= 0
	local tag_hex -- the schedule tag as the info column shows it
	if v1 then
		local tag = tvb(50, 2):uint()
		h.sched = tag ~= 0
		tag_hex = string.format("%04x", tag)
	else
		h.stamp = tvb(50, 2):uint() -- version 2: reserved
		local tag = tvb(56, 8):uint64()
		h.sched = tag ~= UInt64(0) -- UInt64 compares with UInt64 only
		tag_hex = tag:tohex(16)
	end
	local tname = types[h.type] or ("type " .. h.type)
	-- A REPORT is about the group, not an operation: no seq to show.
	local seq_info = h.type == 6 and "" or (" seq=" .. tostring(h.seq))

	local it = {}
	it.version = t:add(f.version, tvb(0, 1))
	it.type = t:add(f.type, tvb(1, 1))
	it.dtype = t:add(f.dtype, tvb(2, 1))
	it.op = t:add(f.op, tvb(3, 1))
	it.rank = t:add(f.src_rank, tvb(4, 2))
	t:add(f.nranks, tvb(6, 2))
	t:add(f.group_id, tvb(8, 8))
	t:add(f.seq, tvb(16, 8))
	it.round = t:add(f.round, tvb(24, 2))
	if h.sched then
		it.round:append_text(string.format(" (round %d, %s)", math.floor(h.round / 2),
			h.round % 2 == 0 and "values in" or "results out"))
		t:add(f.sched_round, math.floor(h.round / 2)):set_generated()
	end
	it.flags = t:add(f.flags, tvb(26, 2))
	it.flags:add(f.flag_retransmit, tvb(26, 2))
	it.flags:add(f.flag_partial, tvb(26, 2))
	it.flags:add(f.flag_sealed, tvb(26, 2))
	it.flags:add(f.flag_encrypted, tvb(26, 2))
	it.flags:add(f.flag_reserved, tvb(26, 2))
	t:add(f.chunk, tvb(28, 4))
	t:add(f.nchunks, tvb(32, 4))
	it.plen = t:add(f.payload_len, tvb(36, 4))
	t:add(f.total_len, tvb(40, 8))
	t:add(f.ncontrib, tvb(48, 2))
	if v1 then
		t:add(f.v1_sched_tag, tvb(50, 2))
		t:add(f.chunk_bytes, tvb(52, 4))
	else
		it.stamp = t:add(h.version == 2 and f.v2_reserved or f.stamp, tvb(50, 2))
		t:add(f.chunk_bytes, tvb(52, 4))
		t:add(f.sched_tag, tvb(56, 8))
	end

	pinfo.cols.info = string.format("%s group=0x%s%s rank %d/%d", tname,
		tvb(8, 8):uint64():tohex():gsub("^0+(.)", "%1"), seq_info, h.src_rank, h.nranks)
	if h.type == 1 then
		pinfo.cols.info:append(string.format(" chunk %d/%d", h.chunk, h.nchunks))
	end
	if h.sched then
		pinfo.cols.info:append(string.format(" step %d tag 0x%s", h.round, tag_hex))
	end
	if bit32.band(h.flags, WF_RETRANSMIT) ~= 0 then
		pinfo.cols.info:append(" [retransmit]")
		t:add_proto_expert_info(ex.retransmit)
	end

	if v1 then
		-- The kernel checks the length first, then the version.
		pinfo.cols.info:append(" [wire version 1, dropped]")
		t:append_text(string.format(", wire version 1 (old %d-byte header), %s, seq %s, rank %d/%d",
			V1_HDR_LEN, tname, tostring(h.seq), h.src_rank, h.nranks))
		t:add_proto_expert_info(ex.version_old, string.format(
			"wire version 1 (the old %d-byte header, 16-bit schedule tag): gsync with wire version %d drops it (kernel: %s)",
			V1_HDR_LEN, VERSION, len < HDR_LEN and
			string.format("drop_short, %d bytes are less than the %d-byte header", len, HDR_LEN) or "drop_version"))
		if caplen > V1_HDR_LEN then t:add(f.v1_payload, tvb(V1_HDR_LEN)) end
		return caplen
	end
	t:append_text(string.format(", %s%s, rank %d/%d", tname,
		h.type == 6 and "" or (", seq " .. tostring(h.seq)), h.src_rank, h.nranks))

	if h.version == 2 then
		-- Decoded in full (the layout is that of version 3) and checked by
		-- the version 2 rules, to show what an old peer sends.
		t:append_text(", wire version 2 (old)")
		-- on the version: the first thing the kernel checks
		it.version:add_proto_expert_info(ex.version_old, string.format(
			"wire version 2 (no DATA stamp, no REPORT): gsync with wire version %d drops it (kernel: drop_version)",
			VERSION))
		dissect_checked(tvb, pinfo, t, h, it)
		pinfo.cols.info:append(" [wire version 2, dropped]")
		return caplen
	end
	if h.version ~= VERSION then
		t:add_proto_expert_info(ex.version, "wire version " .. h.version .. ", this dissector knows " ..
			VERSION .. " (and the old 1 and 2)")
		return caplen
	end
	dissect_checked(tvb, pinfo, t, h, it)
	return caplen
end

function gsync.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree)
end

-- A datagram is gsync if its header is self-consistent: strict enough
-- that other UDP traffic (DNS, QUIC, RTP, ...) is not taken.
local function heuristic(tvb, pinfo, tree)
	if not gsync.prefs.heuristic then return false end
	local len = tvb:reported_length_remaining()
	-- Version 1 and 2 packets are taken too, to show a peer of an old gsync.
	local version = tvb:len() >= 1 and tvb(0, 1):uint() or 0
	local hdr_len = version == 1 and V1_HDR_LEN or HDR_LEN
	if len < hdr_len or tvb:len() < hdr_len then return false end
	if not MAX_TYPE[version] then return false end
	local ty = tvb(1, 1):uint()
	if ty < 1 or ty > MAX_TYPE[version] then return false end
	if tvb(2, 1):uint() > 3 or tvb(3, 1):uint() > 3 then return false end
	local nranks = tvb(6, 2):uint()
	if nranks < 2 or nranks > MAX_RANKS or tvb(4, 2):uint() >= nranks then return false end
	local flags = tvb(26, 2):uint()
	if bit32.band(flags, RESERVED_FLAGS[version]) ~= 0 then return false end
	-- a sealed packet's payload is preceded by gsync_wire_sec and followed
	-- by the tag; ENCRYPTED without SEALED (malformed) is taken laid out
	-- as a plain packet, to show it
	local sealed = version == VERSION and bit32.band(flags, WF_SEALED) ~= 0
	if tvb(36, 4):uint() ~= len - hdr_len - (sealed and SEC_LEN + TAG_LEN or 0) then return false end
	-- offset 50: version 3's stamp (DATA only), version 2's reserved field
	if version ~= 1 and ty ~= 1 and tvb(50, 2):uint() ~= 0 then return false end
	if version == 2 and tvb(50, 2):uint() ~= 0 then return false end
	dissect(tvb, pinfo, tree)
	return true
end
gsync:register_heuristic("udp", heuristic)

local registered_port = 0
function gsync.prefs_changed()
	local udp = DissectorTable.get("udp.port")
	if registered_port ~= 0 then udp:remove(registered_port, gsync) end
	registered_port = gsync.prefs.udp_port
	if registered_port ~= 0 then udp:add(registered_port, gsync) end
end
