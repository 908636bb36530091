#!/usr/bin/env python3
"""Send hostile datagrams at a gsync rank's UDP endpoint.

    fuzz_wire.py DEST_IP DEST_PORT GROUP_ID NRANKS SRC_RANK [COUNT] [SEED] [lies]

With FUZZ_ECHO=PORT in the environment, every 64 packets it waits for a UDP
echo from DEST_IP:PORT (a probe sent after them on the same path, which is
FIFO), so the receiver's backlog never overflows and exactly the packets
sent reach the rank: its drop counters can then be asserted exactly.

Run from the island of SRC_RANK (so some packets pass the source check and
reach deeper validation). Mixes random bytes, truncated headers, and
well-formed headers with one field broken at a time, plus NACK/POLL/STATUS/
ABORT packets for operations that do not exist. With "lies", also
well-formed packets that a misbehaving member could send (an ABORT, data of
the wrong length for a future operation): those are not dropped, they fail
the operations they name. Prints how many packets it sent.
"""
import os
import random
import socket
import struct
import sys

HDR = "!BBBBHHQQHHIIIQHHIQ"   # uapi/linux/gsync_wire.h, 64 bytes
assert struct.calcsize(HDR) == 64


def header(rnd, group_id, nranks_, src_rank, **over):
    f = dict(version=3, type=1, dtype=0, op=0, src=src_rank, nranks=nranks_,
             group=group_id, seq=1, round=0, flags=0, chunk=0, nchunks=1,
             plen=0, total=4, ncontrib=1, stamp=0, cb=1024, tag=0)
    f.update(over)
    return struct.pack(HDR, f["version"], f["type"], f["dtype"], f["op"],
                       f["src"], f["nranks"], f["group"], f["seq"], f["round"],
                       f["flags"], f["chunk"], f["nchunks"], f["plen"],
                       f["total"], f["ncontrib"], f["stamp"], f["cb"],
                       f["tag"])


def cases(rnd, group, nranks, src, lies):
    big = 1 << 40
    yield b""
    yield bytes(1)
    yield bytes(63)
    yield header(rnd, group, nranks, src)[:40]
    yield header(rnd, group, nranks, src, version=1, plen=4, total=4) + bytes(4)
    yield header(rnd, group, nranks, src, version=2, plen=4, total=4) + bytes(4)
    yield header(rnd, group, nranks, src, type=0)
    yield header(rnd, group, nranks, src, type=99)
    yield header(rnd, group, nranks, src, group=group + 1, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, src=nranks, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, src=0xFFFF, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, nranks=nranks + 1, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, plen=100) + bytes(4)       # truncated
    yield header(rnd, group, nranks, src, plen=2) + bytes(4)         # trailing
    yield header(rnd, group, nranks, src, dtype=7, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, op=9, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, chunk=5, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, chunk=0xFFFFFFFF, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, total=big, nchunks=big // 1024, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, total=0, plen=0)
    yield header(rnd, group, nranks, src, total=4, cb=0, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, total=4, cb=3, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, total=6, plen=6) + bytes(6)  # not /4
    yield header(rnd, group, nranks, src, round=3, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, flags=0x8000, plen=4) + bytes(4)
    # Only DATA carries a stamp.
    yield header(rnd, group, nranks, src, type=4, stamp=1, plen=0)
    yield header(rnd, group, nranks, src, ncontrib=0, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, seq=0, plen=4) + bytes(4)
    yield header(rnd, group, nranks, src, seq=(1 << 64) - 1, plen=4) + bytes(4)
    if lies:
        # Well formed but lying: a future operation's data of the wrong
        # length (fails that operation with EPROTO once it is submitted).
        yield header(rnd, group, nranks, src, seq=2, plen=4) + bytes(4)
    # control packets for operations that do not exist or with bad payloads
    nack = struct.pack("!HHI", 0, 1, 0) + struct.pack("!II", 0, 0xFFFFFFFF)
    yield header(rnd, group, nranks, src, type=2, plen=len(nack)) + nack
    yield header(rnd, group, nranks, src, type=2, plen=8) + struct.pack("!HHI", 0, 200, 0)
    yield header(rnd, group, nranks, src, type=2, plen=3) + bytes(3)
    # A STATUS that acknowledges nothing: one saying "complete" would be a
    # forged acknowledgement (t-spoof), and rank 0 could free operation 1
    # before the real rank 1 has it, failing it there (ECONNABORTED).
    yield header(rnd, group, nranks, src, type=3, plen=32) + bytes(32)
    yield header(rnd, group, nranks, src, type=3, plen=31) + b"\xff" * 31
    yield header(rnd, group, nranks, src, type=4, plen=0, total=big)
    if lies:
        yield header(rnd, group, nranks, src, type=5, plen=8) + struct.pack("!II", 71, 0)
    yield header(rnd, group, nranks, src, type=5, plen=7) + bytes(7)
    # REPORTs: about rank 0 (the target) and well formed, they are taken
    # (reports_received, no drop); about another rank, with operation
    # fields, reserved bits or the wrong length, dropped as field.
    def report(target=0, reserved=0, size=24, **over):
        body = struct.pack("!HHHHIIII", target, 5, 0xFFFF, reserved, 1000, 0, 0, 0)
        body = (body + bytes(size))[:size]
        f = dict(type=6, seq=0, nchunks=0, total=0, ncontrib=0, cb=0, plen=size)
        f.update(over)
        return header(rnd, group, nranks, src, **f) + body
    yield report()
    yield report(target=1)
    yield report(reserved=1)
    yield report(size=20)
    yield report(seq=1)
    yield report(stamp=9)
    while True:
        kind = rnd.random()
        if kind < 0.3:
            yield bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 1500)))
        else:
            f = {k: rnd.getrandbits(bits) for k, bits in
                 (("type", 3), ("dtype", 3), ("op", 3), ("chunk", 12),
                  ("nchunks", 12), ("total", 20), ("cb", 12), ("seq", 3))}
            body = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 1200)))
            f["plen"] = len(body) if rnd.random() < 0.7 else rnd.getrandbits(16)
            yield header(rnd, group, nranks, src, **f) + body


def main(a):
    if len(a) < 6:
        sys.exit(__doc__)
    ip, port, group, nranks, src = a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5])
    count = int(a[6]) if len(a) > 6 else 2000
    rnd = random.Random(int(a[7]) if len(a) > 7 else 1)
    lies = len(a) > 8 and a[8] == "lies"
    fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind(("", port))   # the source port of SRC_RANK's endpoint
    echo = None
    if os.environ.get("FUZZ_ECHO"):
        echo = socket.socket(fam, socket.SOCK_DGRAM)
        echo.settimeout(30)
        echo_to = (ip, int(os.environ["FUZZ_ECHO"]))
    n = 0
    for n, pkt in enumerate(cases(rnd, group, nranks, src, lies), 1):
        s.sendto(pkt, (ip, port))
        if echo and (n % 64 == 0 or n >= count):
            echo.sendto(b"probe", echo_to)
            echo.recv(16)   # a bound for a lost probe, not a wait
        if n >= count:
            break
    print(f"sent {n}")


if __name__ == "__main__":
    main(sys.argv)
