#!/usr/bin/env python3
"""Well-formed packets from an attacker that spoofs a member's address
(t-spoof.sh). Two roles:

    spoof.py rank RANK GROUP MEMBERS [MODE:EPOCH:HEX]
        a rank of a 2-rank unicast group (keyed with the key given, see
        gsync_py.parse_key), driven by commands on stdin, one answer line
        each on stdout:
          submit SEQ N        submit an fp32 sum of N elements -> "submitted SEQ"
          collect SEQ N [F]   collect -> "result SEQ STATUS match|differs";
                              the reference is the two ranks' inputs, or with
                              F this rank's input and a peer whose N values
                              are all the float F (what a forger sent)
          wait NAME VALUE     until counter NAME (GSYNC_STATS) is VALUE ->
                              "reached NAME VALUE" (or "stuck NAME AT")
          atleast NAME VALUE  the same, until it is VALUE or more (for a
                              counter a flood keeps moving; tries 4x longer)
          rate BPS            set GSYNC_PACING_RATE -> "rate BPS"
          get NAME            -> "NAME VALUE"
          chunk               -> "chunk_bytes B" (GSYNC_INFO)
          rotate START EPOCH HEX  install the next epoch -> "rotated EPOCH"
                              or "rotate-error ERRNO"
          key EPOCH NEXT      until GSYNC_INFO's key_epoch and key_next_epoch
                              are these -> "key EPOCH NEXT" (or as they are)
    spoof.py forge KIND SRC DST GROUP SEQ N CB [COUNT]
        send COUNT (default 1) packets of KIND (data, poll, nack, status,
        abort, nack-tail, sealed-data, sealed-epoch) about operation SEQ (fp32 sum of N elements,
        chunks of CB bytes) from SRC (ADDR:PORT, a member's endpoint: the
        IP source is forged with a raw socket) to DST (ADDR:PORT); rank 1
        forges to rank 0, so NACK and STATUS name rank 0. nack-tail asks
        for the last chunk only. sealed-data is DATA laid out as a keyed
        group's (ENCRYPT, epoch 1) with a tag of random bytes;
        sealed-epoch the same in epoch 9.
    spoof.py flood KIND SRC DST GROUP SEQ N CB
        the same, packets without end until standard input closes; prints
        "flooded COUNT".
    spoof.py capture IFACE SRC DST FILE
        on IFACE (of the emulated WAN), keep the UDP payloads of every IPv4
        datagram from SRC to DST in FILE until standard input closes;
        prints "capturing" once it listens, then "captured COUNT".
    spoof.py replay SRC DST FILE
        send the payloads kept in FILE again, from SRC (forged) to DST;
        prints "replayed COUNT".

Waits are on counters, bounded by a number of tries (a broken kernel
fails a check, it does not hang the test).
"""
import errno
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsync_py as g  # noqa: E402
from fuzz_wire import header  # noqa: E402

CHUNK_BYTES_OFF = 32   # struct gsync_info.chunk_bytes (uapi/linux/gsync.h)


def buf(seq, rank, n):
    return g.make_buffer(1, seq, rank, g.FP32, n, False)


def rank_main(rank, group, members, key=None):
    eps = [g.parse_endpoint(m) for m in members.split(",")]
    s = g.open_socket()
    mode = None
    if key:
        mode, epoch, secret = g.parse_key(key)
        g.set_key(s, mode, epoch, secret)
    g.join(s, group, rank, eps, None, op_timeout_ms=30000, window=16)
    # A bound for a broken kernel (collect fails), not a wait.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", 90, 0))
    print("joined", flush=True)
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "submit":
            seq, n = int(w[1]), int(w[2])
            g.submit(s, seq, buf(seq, rank, n), g.FP32, g.SUM)
            print(f"submitted {seq}", flush=True)
        elif w[0] == "collect":
            seq, n = int(w[1]), int(w[2])
            try:
                rseq, status, data = g.collect(s, 4 * n)
            except OSError as e:
                print(f"result none {e.errno} none", flush=True)
                continue
            if len(w) > 3:
                peer = struct.pack("<%df" % n, *([float(w[3])] * n))
            else:
                peer = buf(seq, 1 - rank, n)
            mine = buf(seq, rank, n)
            want = g.reference([mine, peer] if rank == 0 else [peer, mine],
                               g.FP32, g.SUM)
            ok = rseq == seq and (status != 0 or data == want)
            print(f"result {rseq} {status} {'match' if ok else 'differs'}",
                  flush=True)
        elif w[0] in ("wait", "atleast"):
            name, want = w[1], int(w[2])
            atleast = w[0] == "atleast"
            for _ in range(12000 if atleast else 3000):
                got = g.stats(s)[name]
                done = got == want or (atleast and got > want)
                if done:
                    break
                time.sleep(0.01)
            print(f"{'reached' if done else 'stuck'} {name} {got}",
                  flush=True)
        elif w[0] == "rate":
            s.setsockopt(g.SOL_GSYNC, g.GSYNC_PACING_RATE,
                         struct.pack("=Q", int(w[1])))
            print(f"rate {w[1]}", flush=True)
        elif w[0] == "get":
            print(f"{w[1]} {g.stats(s)[w[1]]}", flush=True)
        elif w[0] == "chunk":
            raw = s.getsockopt(g.SOL_GSYNC, g.GSYNC_INFO, 64)
            cb = struct.unpack_from("=I", raw, CHUNK_BYTES_OFF)[0]
            print(f"chunk_bytes {cb}", flush=True)
        elif w[0] == "rotate":
            try:
                g.set_key(s, mode, int(w[2]), bytes.fromhex(w[3]), int(w[1]))
                print(f"rotated {w[2]}", flush=True)
            except OSError as e:
                print(f"rotate-error {e.errno}", flush=True)
        elif w[0] == "key":
            want = (int(w[1]), int(w[2]))
            for _ in range(3000):
                mode_, epoch, _fpr, nxt = g.key_info(s)
                if (epoch, nxt) == want:
                    break
                time.sleep(0.01)
            print(f"key {epoch} {nxt}", flush=True)
        else:
            print(f"unknown {w[0]}", flush=True)
    s.close()


def ip_udp(src, dst, payload):
    """An IPv4 header and a UDP header (checksum 0: none) for payload."""
    (sa, sp), (da, dp) = src, dst
    udp = struct.pack("!HHHH", sp, dp, 8 + len(payload), 0) + payload
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64,
                      socket.IPPROTO_UDP, 0, socket.inet_aton(sa),
                      socket.inet_aton(da))
    csum = 0
    for i in range(0, 20, 2):
        csum += (iph[i] << 8) | iph[i + 1]
    while csum >> 16:
        csum = (csum & 0xFFFF) + (csum >> 16)
    iph = iph[:10] + struct.pack("!H", ~csum & 0xFFFF) + iph[12:]
    return iph + udp


def forge_packet(kind, group, seq, n, cb):
    total = 4 * n
    nchunks = (total + cb - 1) // cb
    common = dict(seq=seq, total=total, nchunks=nchunks, cb=cb)
    if kind == "data":
        # Chunk 0, every element the float 1.0.
        plen = min(cb, total)
        pkt = header(None, group, 2, 1, type=1, plen=plen, **common) + \
            struct.pack("<%df" % (plen // 4), *([1.0] * (plen // 4)))
    elif kind == "poll":
        pkt = header(None, group, 2, 1, type=4, plen=0, **common)
    elif kind == "nack":
        # Everything rank 0 sent us, from chunk 0 to the end.
        pl = struct.pack("!HHI", 0, 1, 0) + struct.pack("!II", 0, 0xFFFFFFFF)
        pkt = header(None, group, 2, 1, type=2, plen=len(pl), **common) + pl
    elif kind == "nack-tail":
        # The last chunk only: long unsent by a paced rank 0.
        pl = struct.pack("!HHI", 0, 1, 0) + struct.pack("!II", nchunks - 1, 1)
        pkt = header(None, group, 2, 1, type=2, plen=len(pl), **common) + pl
    elif kind == "status":
        pl = bytes([1]) + bytes(31)        # "rank 1 holds rank 0's value"
        pkt = header(None, group, 2, 1, type=3, plen=len(pl), **common) + pl
    elif kind == "abort":
        pl = struct.pack("!II", 104, 0)     # ECONNRESET
        pkt = header(None, group, 2, 1, type=5, plen=len(pl), **common) + pl
    elif kind in ("sealed-data", "sealed-epoch"):
        # DATA laid out as a keyed group's, sealed and encrypted, in epoch
        # 1 (or 9, one nobody holds), with a tag the forger cannot make.
        plen = min(cb, total)
        hdr = bytearray(header(None, group, 2, 1, type=1, plen=plen, **common))
        flags = struct.unpack_from("!H", hdr, 26)[0] | 0x4 | 0x8
        struct.pack_into("!H", hdr, 26, flags)
        epoch = 9 if kind == "sealed-epoch" else 1
        sec = struct.pack("!IIQ", epoch, 0, 1 << 20)
        pkt = bytes(hdr) + sec + struct.pack("<%df" % (plen // 4),
                                             *([1.0] * (plen // 4))) + \
            os.urandom(16)
    else:
        sys.exit(f"unknown kind {kind}")
    return pkt


def raw_frame(kind, src, dst, group, seq, n, cb):
    """A raw socket, the forged frame, and the address to send it to."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    pkt = forge_packet(kind, group, seq, n, cb)
    to = g.parse_endpoint(dst)
    return raw, ip_udp(g.parse_endpoint(src), to, pkt), (to[0], 0)


def forge_main(kind, src, dst, group, seq, n, cb, count):
    raw, frame, to = raw_frame(kind, src, dst, group, seq, n, cb)
    for _ in range(count):
        raw.sendto(frame, to)
    raw.close()
    print(f"forged {count} {kind}")


def flood_main(kind, src, dst, group, seq, n, cb):
    raw, frame, to = raw_frame(kind, src, dst, group, seq, n, cb)
    count = 0
    while True:
        for _ in range(64):
            try:
                raw.sendto(frame, to)
                count += 1
            except OSError as e:    # a full device queue: go on
                if e.errno != errno.ENOBUFS:
                    raise
        if select.select([sys.stdin], [], [], 0)[0] and \
                not sys.stdin.readline():
            break
    raw.close()
    print(f"flooded {count}", flush=True)


def capture_main(iface, src, dst, path):
    (sa, sp), (da, dp) = g.parse_endpoint(src), g.parse_endpoint(dst)
    want = socket.inet_aton(sa) + socket.inet_aton(da)
    # ETH_P_ALL: a tap sees a bridge port's frames before the bridge
    # takes them (a handler for IPv4 alone would not).
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(0x0003))
    sock.bind((iface, 0))
    print("capturing", flush=True)
    kept = []
    while True:
        r = select.select([sock, sys.stdin], [], [])[0]
        if sys.stdin in r and not sys.stdin.readline():
            break
        if sock not in r:
            continue
        frame, addr = sock.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING:
            continue    # a bridge port's copy the other way: seen once
        ip = frame[14:]
        if frame[12:14] != b"\x08\x00" or len(ip) < 28 or ip[9] != socket.IPPROTO_UDP or ip[12:20] != want:
            continue
        ihl = (ip[0] & 15) * 4
        udp = ip[ihl:]
        if struct.unpack("!HH", udp[:4]) == (sp, dp):
            kept.append(udp[8:struct.unpack("!H", udp[4:6])[0]])
    with open(path, "wb") as f:
        for p in kept:
            f.write(struct.pack("!I", len(p)) + p)
    print(f"captured {len(kept)}", flush=True)


def replay_main(src, dst, path):
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    to = g.parse_endpoint(dst)
    count = 0
    with open(path, "rb") as f:
        data = f.read()
    while data:
        n = struct.unpack("!I", data[:4])[0]
        raw.sendto(ip_udp(g.parse_endpoint(src), to, data[4:4 + n]),
                   (to[0], 0))
        data = data[4 + n:]
        count += 1
    raw.close()
    print(f"replayed {count}")


def main(argv):
    if len(argv) >= 5 and argv[1] == "rank":
        rank_main(int(argv[2]), int(argv[3]), argv[4],
                  argv[5] if len(argv) > 5 else None)
    elif len(argv) == 6 and argv[1] == "capture":
        capture_main(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 5 and argv[1] == "replay":
        replay_main(argv[2], argv[3], argv[4])
    elif len(argv) == 9 and argv[1] == "flood":
        flood_main(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]),
                   int(argv[7]), int(argv[8]))
    elif len(argv) >= 9 and argv[1] == "forge":
        forge_main(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]),
                   int(argv[7]), int(argv[8]),
                   int(argv[9]) if len(argv) > 9 else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
