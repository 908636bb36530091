#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write pcap files of gsync packets built from uapi/linux/gsync_wire.h.

    mkpcap.py golden OUT.pcap     every packet type, IPv4 and IPv6, plus
                                  malformed ones, non-gsync UDP and keyed
                                  groups' sealed packets
    mkpcap.py snap OUT.pcap       the golden packets cut at 90 bytes, and
                                  the keyed ones cut in their seal and tag
    mkpcap.py fuzz OUT.pcap [N]   N (default 3000) mutations of valid packets

The header is packed with the layout of struct gsync_wire_hdr (wire
version 3: 64 bytes, big-endian), independently of the dissector. Two
golden packets are of old versions the kernel now drops: version 2 (the
same layout, a reserved field where version 3 has the DATA stamp) and
version 1 (56 bytes, 16-bit schedule tag at offset 50). A keyed group's
packet is header | struct gsync_wire_sec | payload | 16-byte tag
(gsync_wire.h, "Keyed groups"); its ciphertext and tags here are stand-ins
(bytes of SHA-256, not ChaCha20-Poly1305: a dissector cannot tell, having
no key). Timestamps are fixed so the decoded output is reproducible.
"""
import hashlib
import random
import struct
import sys

HDR = struct.Struct(">BBBBHHQQHHIIIQHHIQ")  # ..., ncontrib, stamp, chunk_bytes, sched_tag
assert HDR.size == 64
HDR_V1 = struct.Struct(">BBBBHHQQHHIIIQHHI")  # ..., ncontrib, sched_tag (16 bits), chunk_bytes
assert HDR_V1.size == 56
DATA, NACK, STATUS, POLL, ABORT, REPORT = 1, 2, 3, 4, 5, 6
NO_ECHO = 0xFFFF  # REPORT hold_ms: no DATA to echo
RETRANSMIT, PARTIAL, SEALED, ENCRYPTED = 1, 2, 4, 8
SEC = struct.Struct(">IIQ")  # struct gsync_wire_sec: epoch, reserved, counter
TAG_LEN = 16
CTR0 = 1_700_000_000_000_000_000  # a counter starts at the wall clock in ns


def hdr(type_, payload, *, version=3, dtype=0, op=0, src=0, nranks=3,
        group=0x2A, seq=1, step=0, flags=0, chunk=0, nchunks=0, plen=None,
        total=0, ncontrib=0, stamp=0, tag=0, chunk_bytes=0):
    """A packet of wire version 3 (or 2: then stamp is the reserved field)."""
    if plen is None:
        plen = len(payload)
    return HDR.pack(version, type_, dtype, op, src, nranks, group, seq, step,
                    flags, chunk, nchunks, plen, total, ncontrib, stamp,
                    chunk_bytes, tag) + payload


def stand_in(label, n):
    """n bytes that look random, the same every run."""
    out = b""
    while len(out) < n:
        out += hashlib.sha256(b"%s %d" % (label.encode(), len(out))).digest()
    return out[:n]


def sealed(type_, payload, *, encrypt=False, epoch=1, counter=CTR0,
           reserved=0, flags=0, mac=None, **kw):
    """A keyed group's packet: header | gsync_wire_sec | payload | mac (the
    16-byte tag), payload_len counting the payload only (encrypted: as
    long, opaque). Other keywords as hdr()'s (tag: the schedule's)."""
    if encrypt:
        payload = bytes(a ^ b for a, b in zip(payload, stand_in("key %d" % counter, len(payload))))
    if mac is None:
        mac = stand_in("tag %d" % counter, TAG_LEN)
    flags |= SEALED | (ENCRYPTED if encrypt else 0)
    return (hdr(type_, b"", flags=flags, plen=len(payload), **kw) +
            SEC.pack(epoch, reserved, counter) + payload + mac)


def report(target, *, echo=0, hold=NO_ECHO, reserved=0, interval_us=20000,
           rx_bytes=0, rx_chunks=0, lost=0):
    """struct gsync_wire_report, the payload of a REPORT."""
    return struct.pack(">HHHHIIII", target, echo, hold, reserved, interval_us,
                       rx_bytes, rx_chunks, lost)


def hdr_v1(type_, payload, *, dtype=0, op=0, src=0, nranks=3, group=0x2A,
           seq=1, step=0, flags=0, chunk=0, nchunks=0, total=0, ncontrib=0,
           tag=0, chunk_bytes=0):
    """A packet of wire version 1 (gsync before the 64-bit schedule tag)."""
    return HDR_V1.pack(1, type_, dtype, op, src, nranks, group, seq, step,
                       flags, chunk, nchunks, len(payload), total, ncontrib,
                       tag, chunk_bytes) + payload


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ip6(a):
    import ipaddress
    return ipaddress.IPv6Address(a).packed


def frame(src, dst, sport, dport, payload):
    """Ethernet + IPv4/IPv6 + UDP with correct lengths and checksums."""
    udp_len = 8 + len(payload)
    if ":" in src:
        s, d = ip6(src), ip6(dst)
        pseudo = s + d + struct.pack("!IxxxB", udp_len, 17)
        udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
        c = csum(pseudo + udp) or 0xFFFF
        udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        ip = struct.pack("!IHBB", 6 << 28, udp_len, 17, 64) + s + d
        dmac = (b"\x33\x33" + d[12:]) if d[0] == 0xFF else b"\x02\0\0\0\0\x02"
        return dmac + b"\x02\0\0\0\0\x01" + b"\x86\xdd" + ip + udp
    s, d = ip4(src), ip4(dst)
    pseudo = s + d + struct.pack("!xBH", 17, udp_len)
    udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
    c = csum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    ttl = 1 if 224 <= d[0] < 240 else 64
    ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + udp_len, 1, 0x4000, ttl, 17, 0) + s + d
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    dmac = (b"\x01\x00\x5e" + bytes([d[1] & 0x7F]) + d[2:]) if 224 <= d[0] < 240 else b"\x02\0\0\0\0\x02"
    return dmac + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + udp


def write_pcap(path, frames, snaplen=65535):
    """frames: frames, or (frame, snap length) pairs."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            if isinstance(fr, tuple):
                fr, cut = fr
            else:
                cut = snaplen
            cap = fr[:cut]
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(cap), len(fr)))
            f.write(cap)


V4 = ("198.18.0.1", "198.18.0.2", "198.18.0.3", "239.1.1.1")
V6 = ("2001:2::1", "2001:2::2", "2001:2::3", "ff3e::4747")


def golden():
    fr = []
    data = bytes(i & 0xFF for i in range(256))
    for (a, b, c, m) in (V4, V6):
        # DATA: rank 0's first chunk of a 24-byte fp32 sum, to the group
        fr.append(frame(a, m, 7000, 7100, hdr(DATA, data, src=0, seq=1, chunk=0,
                        nchunks=2, total=400, ncontrib=1, chunk_bytes=256)))
        # DATA under a schedule: a partial value covering 2 ranks, resent,
        # stamped 40000 (ms on the sender's clock)
        fr.append(frame(b, c, 7000, 7000, hdr(DATA, data[:8], dtype=1, op=1, src=1,
                        nranks=4, group=0x1122334455667788, seq=7, step=3,
                        flags=RETRANSMIT | PARTIAL, chunk=5, nchunks=6,
                        total=4104, ncontrib=2, stamp=40000,
                        tag=0x0123456789ABCDEF, chunk_bytes=1024)))
        # NACK: rank 2 misses chunks 3..4 and 9..end of rank 0's contribution
        fr.append(frame(c, a, 7000, 7000, hdr(NACK, struct.pack(">HHI", 0, 2, 0) +
                        struct.pack(">II", 3, 2) + struct.pack(">II", 9, 0xFFFFFFFF),
                        src=2, seq=1)))
        # STATUS: the reporter holds ranks 0, 2 and 9 completely
        bm = bytearray(32)
        for r in (0, 2, 9):
            bm[r // 8] |= 1 << (r % 8)
        fr.append(frame(b, m, 7000, 7100, hdr(STATUS, bytes(bm), src=1, nranks=10, seq=2)))
        # POLL: rank 0 sent all of seq 3
        fr.append(frame(a, m, 7000, 7100, hdr(POLL, b"", dtype=3, op=3, seq=3,
                        nchunks=2, total=400, chunk_bytes=256)))
        # ABORT: EPROTO
        fr.append(frame(c, m, 7000, 7100, hdr(ABORT, struct.pack(">II", 71, 0), src=2, seq=4)))
        # REPORT: rank 2 tells rank 1 how its DATA arrived: echoing the
        # stamp of the DATA above, held 3 ms (over IPv6: nothing to echo)
        echo = dict(echo=40000, hold=3) if a == V4[0] else {}
        fr.append(frame(c, b, 7000, 7000, hdr(REPORT, report(
                        1, rx_bytes=6 * (64 + 1024), rx_chunks=6, lost=1, **echo),
                        src=2, nranks=4, group=0x1122334455667788, seq=0)))
    # Malformed and suspicious (decoded through the port preference 7100)
    a, b, c, m = V4
    fr.append(frame(a, m, 7000, 7100, hdr(DATA, data[:16])[:20]))  # 20 bytes: no header
    fr.append(frame(a, m, 7000, 7100, hdr(DATA, data[:16], plen=100, nchunks=1, total=16,
                    ncontrib=1, chunk_bytes=256)))  # payload_len beyond the datagram
    fr.append(frame(a, m, 7000, 7100, hdr(NACK, struct.pack(">HHI", 1, 3, 0) +
                    struct.pack(">II", 0, 1))))  # nranges 3, one range present
    fr.append(frame(a, m, 7000, 7100, hdr(9, b"")))  # unknown type
    fr.append(frame(a, m, 7000, 7100, hdr(STATUS, bytes(31))))  # 31-byte bitmap
    fr.append(frame(a, m, 7000, 7100, hdr(DATA, data[:16], version=4)))  # unknown version
    fr.append(frame(a, m, 7000, 7100, hdr(DATA, data[:16], chunk=4, nchunks=2, total=400,
                    ncontrib=1, chunk_bytes=256, flags=0x80)))  # chunk >= nchunks, bad flag
    fr.append(frame(a, m, 7000, 7100, hdr(ABORT, bytes(9))))  # 9-byte ABORT
    fr.append(frame(a, m, 7000, 7100, hdr(NACK, struct.pack(">HHI", 0, 1, 0) +
                    struct.pack(">II", 0, 1)) + b"xyz"))  # bytes beyond payload_len
    fr.append(frame(a, m, 7000, 7100, bytes(range(200, 256)) * 2))  # garbage
    # REPORTs the kernel drops (drop_field): 20 payload bytes, not 24
    # (malformed); operation fields set (seq, chunk, chunk_bytes); reserved
    # 1; a target beyond the group (no rank is 3 of 3)
    fr.append(frame(c, b, 7000, 7100, hdr(REPORT, report(1, rx_chunks=1)[:20], src=2, seq=0)))
    fr.append(frame(c, b, 7000, 7100, hdr(REPORT, report(1, rx_chunks=1), src=2,
                    seq=5, chunk=2, chunk_bytes=256)))
    fr.append(frame(c, b, 7000, 7100, hdr(REPORT, report(1, rx_chunks=1, reserved=1),
                    src=2, seq=0)))
    fr.append(frame(c, b, 7000, 7100, hdr(REPORT, report(3, rx_chunks=1), src=2, seq=0)))
    # A valid POLL but for a stamp, which only DATA has (kernel: drop_field)
    fr.append(frame(a, m, 7000, 7100, hdr(POLL, b"", seq=3, nchunks=2, total=400,
                    chunk_bytes=256, stamp=1)))
    # Wire version 2, the same 64-byte header with reserved (0) at offset 50
    # (kernel: drop_version): a valid version 2 NACK from an old peer
    fr.append(frame(c, m, 7000, 7100, hdr(NACK, struct.pack(">HHI", 0, 1, 0) +
                    struct.pack(">II", 4, 1), version=2, src=2, seq=6)))
    # Wire version 1, the 56-byte header (kernel: drop_version): rank 1's
    # DATA under a schedule, as a peer running an old gsync sends it
    fr.append(frame(b, m, 7000, 7100, hdr_v1(DATA, data[:8], dtype=1, op=1, src=1,
                    nranks=4, seq=7, step=2, chunk=5, nchunks=6, total=4104,
                    ncontrib=1, tag=0xBEEF, chunk_bytes=1024)))
    # Not gsync: other UDP the heuristic must leave alone
    fr.append(frame(a, b, 5353, 5353, bytes.fromhex("000084000000000100000000") + bytes(60)))
    fr.append(frame(a, b, 40000, 40001, b"\x01\x01" + bytes(60)))  # starts like gsync
    return fr + keyed()


def keyed():
    """Keyed groups' packets (frames 34..): sealed in AUTH mode (payload in
    clear), in ENCRYPT mode, and ones the kernel drops."""
    fr = []
    a, b, c, m = V4
    a6, b6, c6, m6 = V6
    data = bytes(i & 0xFF for i in range(256))
    bm = bytearray(32)
    for r in (0, 2, 9):
        bm[r // 8] |= 1 << (r % 8)
    nack = struct.pack(">HHI", 0, 2, 0) + struct.pack(">II", 3, 2) + struct.pack(">II", 9, 0xFFFFFFFF)
    # AUTH: DATA, NACK, STATUS
    fr.append(frame(a, m, 7000, 7100, sealed(DATA, data, src=0, seq=1, chunk=0,
                    nchunks=2, total=400, ncontrib=1, chunk_bytes=256, stamp=1234,
                    counter=CTR0 + 1)))
    fr.append(frame(c, a, 7000, 7000, sealed(NACK, nack, src=2, seq=1, counter=CTR0 + 2)))
    fr.append(frame(b6, m6, 7000, 7100, sealed(STATUS, bytes(bm), src=1, nranks=10, seq=2,
                    epoch=2, counter=CTR0 + 3)))
    # ENCRYPT: DATA under a schedule (resent), NACK, POLL (no payload:
    # the tag follows gsync_wire_sec), REPORT (its flags are the sealing)
    fr.append(frame(b6, c6, 7000, 7000, sealed(DATA, data[:8], encrypt=True, dtype=1, op=1,
                    src=1, nranks=4, group=0x1122334455667788, seq=7, step=3,
                    flags=RETRANSMIT | PARTIAL, chunk=5, nchunks=6, total=4104,
                    ncontrib=2, stamp=40000, tag=0x0123456789ABCDEF, chunk_bytes=992,
                    counter=CTR0 + 4)))
    fr.append(frame(c, a, 7000, 7000, sealed(NACK, nack, encrypt=True, src=2, seq=1,
                    counter=CTR0 + 5)))
    fr.append(frame(a, m, 7000, 7100, sealed(POLL, b"", encrypt=True, dtype=3, op=3, seq=3,
                    nchunks=2, total=400, chunk_bytes=256, counter=CTR0 + 6)))
    fr.append(frame(c, b, 7000, 7000, sealed(REPORT, report(1, rx_bytes=6 * (96 + 992),
                    rx_chunks=6, lost=1), encrypt=True, src=2, nranks=4,
                    group=0x1122334455667788, seq=0, counter=CTR0 + 7)))
    # Dropped by the kernel (decoded through the port preference 7100):
    # ENCRYPTED without SEALED, laid out as a plain packet (drop_auth)
    fr.append(frame(a, m, 7000, 7100, hdr(STATUS, bytes(bm), src=1, nranks=10, seq=2,
                    flags=ENCRYPTED)))
    # sealed, but 20 bytes after the header: no room for gsync_wire_sec
    # and the tag (drop_short)
    fr.append(frame(a, m, 7000, 7100, hdr(ABORT, struct.pack(">II", 71, 0), src=2, seq=4,
                    flags=SEALED) + SEC.pack(1, 0, CTR0)[:12]))
    # sealed, but laid out as a plain STATUS: payload_len counts what
    # should be gsync_wire_sec and the tag (drop_short)
    fr.append(frame(a, m, 7000, 7100, hdr(STATUS, bytes(bm), src=1, nranks=10, seq=2,
                    flags=SEALED)))
    # AUTH ABORT (EKEYREJECTED) with gsync_wire_sec's reserved set (drop_field)
    fr.append(frame(c, m, 7000, 7100, sealed(ABORT, struct.pack(">II", 129, 0), src=2, seq=4,
                    reserved=5, counter=CTR0 + 8)))
    # ENCRYPT STATUS of 31 bytes: the ciphertext is as long as the bitmap
    fr.append(frame(b, m, 7000, 7100, sealed(STATUS, bytes(bm)[:31], encrypt=True, src=1,
                    nranks=10, seq=2, counter=CTR0 + 9)))
    return fr


def snap():
    """The golden packets cut at 90 bytes of frame, and each keyed one cut
    around its parts: the header, gsync_wire_sec, the payload, the tag."""
    out = []
    for fr in golden():
        out.append((fr, 90))
    for fr in keyed():
        off = 14 + (40 if fr[12:14] == b"\x86\xdd" else 20) + 8
        n = len(fr) - off
        for r in sorted({63, 64, 65, 72, 79, 80, 81, 95, 96, 97, n - 17, n - 16, n - 15, n - 1}):
            if 0 < r < n:
                out.append((fr, off + r))
    return out


def fuzz(n):
    rnd = random.Random(1)
    base = [f for f in golden()[:14]] + keyed()[:7]
    out = []
    for i in range(n):
        fr = bytearray(base[i % len(base)])
        v6 = fr[12:14] == b"\x86\xdd"
        off = 14 + (40 if v6 else 20) + 8
        payload = bytearray(fr[off:])
        kind = rnd.randrange(4)
        if kind == 0:  # flip bytes
            for _ in range(rnd.randrange(1, 6)):
                payload[rnd.randrange(len(payload))] = rnd.randrange(256)
        elif kind == 1:  # truncate
            payload = payload[:rnd.randrange(len(payload))]
        elif kind == 2:  # extend
            payload += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 300)))
        else:  # random values of header fields: (offset, size)
            # version, nranks, flags, chunk, nchunks, payload_len,
            # total_len, stamp, chunk_bytes, sched_tag, NACK nranges (a
            # sealed packet's epoch), a sealed packet's reserved
            for o, w in ((0, 1), (6, 2), (26, 2), (28, 4), (32, 4), (36, 4), (40, 8),
                         (50, 2), (52, 4), (56, 8), (66, 2), (68, 4)):
                if o + w <= len(payload) and rnd.random() < 0.5:
                    v = rnd.choice((0, 1, (1 << 8 * w) - 1, rnd.getrandbits(8 * w)))
                    payload[o:o + w] = v.to_bytes(w, "big")
        src, dst = (V6[0], V6[3]) if v6 else (V4[0], V4[3])
        out.append(frame(src, dst, 7000, 7100, bytes(payload)))
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("golden", "fuzz", "snap"):
        sys.exit(__doc__)
    if sys.argv[1] == "golden":
        write_pcap(sys.argv[2], golden())
    elif sys.argv[1] == "snap":
        write_pcap(sys.argv[2], snap())
    else:
        write_pcap(sys.argv[2], fuzz(int(sys.argv[3]) if len(sys.argv) > 3 else 3000))
