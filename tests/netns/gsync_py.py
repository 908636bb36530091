#!/usr/bin/env python3
"""Drive an AF_GSYNC group from Python's standard socket module alone, the
way training code in Python would, and check the results bit for bit.

Library use:
    s = open_socket()
    join(s, group_id=1, rank=0, members=[("198.18.0.1", 7000), ...],
         mcast=("239.77.1.1", 7100))
    seq, status, data = allreduce(s, 1, payload, FP32, SUM)

Command line (one process per rank; see --help):
    gsync_py.py run --rank R --members A:P,B:P,... [--mcast G:P | --unicast]
                    [--dtypes fp32,...] [--ops sum,...] [--sizes 1,7,...]
"""
import argparse
import errno
import hashlib
import math
import os
import random
import socket
import struct
import sys
import subprocess
import time

import gsched

SOL_GSYNC = 299
GSYNC_JOIN, GSYNC_PACING_RATE, GSYNC_INFO, GSYNC_STATS = 1, 2, 3, 4
GSYNC_CMSG_OP, GSYNC_CMSG_RESULT = 1, 2
JOIN_UNICAST, JOIN_MCAST_LOOP = 1, 2
FP32, BF16, FP16, INT32 = 0, 1, 2, 3
SUM, AVG, MIN, MAX = 0, 1, 2, 3
DTYPES = {"fp32": FP32, "bf16": BF16, "fp16": FP16, "int32": INT32}
OPS = {"sum": SUM, "avg": AVG, "min": MIN, "max": MAX}
ELEM = {FP32: 4, BF16: 2, FP16: 2, INT32: 4}
FAMILY_PATH = "/sys/module/gsync/parameters/family"

# struct gsync_join (uapi/linux/gsync.h), little-endian host order, and
# struct gsync_addr {u16 family; be16 port; u32 scope_id; u8 addr[16]}.
JOIN_FMT = "=QHHI24sIB3sIIIIIIQ16s"
ADDR_FMT = "=H2sI16s"
RESULT_FMT = "=QiIQ"
OPDESC_FMT = "=QBBHI"


def family():
    with open(FAMILY_PATH) as f:
        return int(f.read())


def open_socket():
    """An AF_GSYNC socket usable with sendmsg()/recvmsg().

    Python's recvmsg() insists on knowing the size of the family's socket
    address, and it knows no family with gsync's number. The operations have
    no addresses, so the descriptor is wrapped as an AF_UNIX socket object:
    the kernel still sees the AF_GSYNC socket, Python gets an address length.
    """
    raw = socket.socket(family(), socket.SOCK_SEQPACKET, 0)
    return socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, fileno=raw.detach())


def pack_addr(host, port):
    if ":" in host:
        fam, raw = socket.AF_INET6, socket.inet_pton(socket.AF_INET6, host)
    else:
        fam, raw = socket.AF_INET, socket.inet_aton(host) + bytes(12)
    return struct.pack(ADDR_FMT, fam, struct.pack("!H", port), 0, raw)


def join_blob(group_id, rank, members, mcast=None, flags=0, ifindex=0, ttl=0,
              mtu=0, window=0, max_op_bytes=0, op_timeout_ms=0, repair_ms=0,
              pacing_rate=0):
    m = pack_addr(*mcast) if mcast else bytes(24)
    hdr = struct.pack(JOIN_FMT, group_id, rank, len(members), flags, m, ifindex,
                      ttl, bytes(3), mtu, window, max_op_bytes, op_timeout_ms,
                      repair_ms, 0, pacing_rate, bytes(16))
    return hdr + b"".join(pack_addr(h, p) for h, p in members)


def join(s, group_id, rank, members, mcast=None, **kw):
    flags = kw.pop("flags", 0) | (0 if mcast else JOIN_UNICAST)
    s.setsockopt(SOL_GSYNC, GSYNC_JOIN,
                 join_blob(group_id, rank, members, mcast, flags=flags, **kw))


def submit(s, seq, data, dtype, op):
    cmsg = [(SOL_GSYNC, GSYNC_CMSG_OP, struct.pack(OPDESC_FMT, seq, dtype, op, 0, 0))]
    return s.sendmsg([data], cmsg)


def collect(s, maxlen):
    data, anc, flags, _ = s.recvmsg(maxlen, socket.CMSG_SPACE(struct.calcsize(RESULT_FMT)))
    for level, kind, payload in anc:
        if level == SOL_GSYNC and kind == GSYNC_CMSG_RESULT:
            seq, status, _, length = struct.unpack(RESULT_FMT, payload)
            return seq, status, data
    raise RuntimeError("recvmsg returned no GSYNC_CMSG_RESULT")


def allreduce(s, seq, data, dtype, op):
    submit(s, seq, data, dtype, op)
    return collect(s, len(data))


STATS_FIELDS = ("ops_submitted ops_completed ops_failed tx_bytes tx_packets "
                "rx_bytes rx_packets nacks_sent nacks_received retransmits "
                "mcast_retransmits timeouts mismatches sched_ops reduce_jobs").split()
DROP_NAMES = ("short version type group rank source field stale window dup nomem "
              "clique ratelimit").split()
STATS_LATE = "reports_sent reports_received rate_decreases rate_loss_decreases".split()
# drop reasons after GSYNC_DROP_BASE: in drops_ext[], at the struct's end
DROP_EXT = "auth replay epoch".split()
GSYNC_SCHEDULE = 6
GSYNC_KEY, GSYNC_KEY_PUSH = 8, 9
KEY_MODES = {"auth": 1, "encrypt": 2}
KEY_FMT = "=IIQ32s16s"       # struct gsync_key


def key_blob(mode, epoch, secret, start_seq=0):
    """struct gsync_key; mode "auth" or "encrypt", secret 32 bytes."""
    return struct.pack(KEY_FMT, KEY_MODES[mode], epoch, start_seq, secret,
                       bytes(16))


def set_key(s, mode, epoch, secret, start_seq=0):
    s.setsockopt(SOL_GSYNC, GSYNC_KEY, key_blob(mode, epoch, secret, start_seq))


def rotate(s, mode, start, epoch, secret):
    """Install the next epoch; while the previous rotation's old key is
    still held (EBUSY: a peer has not switched yet), poll, bounded."""
    for _ in range(1000):
        try:
            return set_key(s, mode, epoch, secret, start)
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
        time.sleep(0.01)
    set_key(s, mode, epoch, secret, start)


def parse_key(text):
    """MODE:EPOCH:HEX (a test's key argument) -> (mode, epoch, secret)."""
    mode, epoch, hexs = text.split(":")
    return mode, int(epoch), bytes.fromhex(hexs)


def key_info(s):
    """key_mode, key_epoch, key_fingerprint, key_next_epoch of GSYNC_INFO."""
    raw = s.getsockopt(SOL_GSYNC, GSYNC_INFO, 96)
    return struct.unpack_from("=IIQI", raw, 72)


def stats(s):
    n = len(STATS_FIELDS) + len(DROP_NAMES)
    raw = s.getsockopt(SOL_GSYNC, GSYNC_STATS,
                       8 * (n + len(STATS_LATE) + len(DROP_EXT)))
    vals = struct.unpack("=%dQ" % (len(raw) // 8), raw)
    out = dict(zip(STATS_FIELDS, vals))
    out.update({"drop_" + n: v for n, v in zip(DROP_NAMES, vals[len(STATS_FIELDS):])})
    out.update(zip(STATS_LATE, vals[n:]))
    out.update({"drop_" + x: v for x, v in
                zip(DROP_EXT, vals[n + len(STATS_LATE):])})
    return out


def rate_info(s):
    """send_rate (bytes/s) and rtt_ms of GSYNC_INFO: the rate control's state
    (0, 0 from a module older than rate control, whose gsync_info is
    shorter: tests/bench/base-compare runs this script on one)."""
    raw = s.getsockopt(SOL_GSYNC, GSYNC_INFO, 72)
    if len(raw) < 72:
        return 0, 0
    rtt, rate = struct.unpack_from("=IQ", raw, 60)
    return rate, rtt


# ---- reference arithmetic (docs/reduction-semantics.md) -------------------
F32_QNAN = 0x7FC00000


def f32_bits(x):
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0x7F800000 | (0x80000000 if x < 0 else 0)


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f32_round(x):
    """Round a double to fp32 (RNE), canonicalizing NaN."""
    if math.isnan(x):
        return F32_QNAN
    return f32_bits(x)


def bf16_to_f32(h):
    return h << 16


def f32_to_bf16(b):
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FC0
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f16_to_f32(h):
    return f32_bits(struct.unpack("<e", struct.pack("<H", h))[0])


def f32_to_f16(b):
    x = bits_f32(b)
    if math.isnan(x):
        return 0x7E00
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def order_key(b):
    """Total order on fp32 bits with -0 < +0 (NaN handled by the caller)."""
    return -(b & 0x7FFFFFFF) - 1 if b & 0x80000000 else b


def reduce_f32_bits(vals, op, k):
    """vals: fp32 bit patterns of one element, rank order."""
    if op in (MIN, MAX):
        if any((v & 0x7FFFFFFF) > 0x7F800000 for v in vals):
            return None  # canonical NaN of the output type
        pick = min if op == MIN else max
        return vals.index(pick(vals, key=order_key))
    acc = vals[0]
    if (acc & 0x7FFFFFFF) > 0x7F800000:
        acc = F32_QNAN
    for v in vals[1:]:
        acc = f32_round(bits_f32(acc) + bits_f32(v))
    if op == AVG:
        acc = f32_round(bits_f32(acc) / k)
    if (acc & 0x7FFFFFFF) > 0x7F800000:
        acc = F32_QNAN
    return acc


def reference(bufs, dtype, op, divisor=None):
    """The reduced buffer of byte buffers bufs (rank order); AVG divides
    by divisor (default: the number of buffers)."""
    k = divisor or len(bufs)
    if dtype == INT32:
        cols = zip(*(struct.unpack("<%di" % (len(b) // 4), b) for b in bufs))
        out = []
        for c in cols:
            if op == SUM:
                s = sum(c) & 0xFFFFFFFF
                out.append(s - (1 << 32) if s >= 1 << 31 else s)
            elif op == AVG:
                s = sum(c)
                q = abs(s) // k
                out.append(q if s >= 0 else -q)
            else:
                out.append(min(c) if op == MIN else max(c))
        return struct.pack("<%di" % len(out), *out)
    if dtype == FP32:
        cols = zip(*(struct.unpack("<%dI" % (len(b) // 4), b) for b in bufs))
        out = []
        for c in cols:
            r = reduce_f32_bits(list(c), op, k)
            out.append(F32_QNAN if r is None else (c[r] if op in (MIN, MAX) else r))
        return struct.pack("<%dI" % len(out), *out)
    widen, narrow, qnan = ((bf16_to_f32, f32_to_bf16, 0x7FC0) if dtype == BF16
                           else (f16_to_f32, f32_to_f16, 0x7E00))
    cols = zip(*(struct.unpack("<%dH" % (len(b) // 2), b) for b in bufs))
    out = []
    for c in cols:
        wide = [widen(h) for h in c]
        r = reduce_f32_bits(wide, op, k)
        if op in (MIN, MAX):
            out.append(qnan if r is None else c[r])
        else:
            out.append(narrow(r))
    return struct.pack("<%dH" % len(out), *out)


def _high_byte_table(dtype):
    """Map the most significant byte of each element so values stay finite
    and mid-range (sums of a few hundred of them cannot overflow)."""
    if dtype == FP32:      # sign + exponent bits 7..1: exponent 0x70..0x8f
        return bytes((b & 0x80) | (0x38 + (b & 0x0F)) for b in range(256))
    if dtype == BF16:
        return bytes((b & 0x80) | (0x38 + (b & 0x0F)) for b in range(256))
    if dtype == FP16:      # sign, 5 exponent bits, 2 mantissa bits
        return bytes((b & 0x83) | ((0x08 + ((b >> 2) & 0x0F)) << 2) for b in range(256))
    return bytes(range(256))


def make_buffer(seed, seq, rank, dtype, nelem, specials):
    """Deterministic input of one rank: random bits with the exponent kept
    in range, built with C-speed bytes operations (big buffers under TCG)."""
    rnd = random.Random((seed * 1000003 + seq) * 1009 + rank * 31 + dtype)
    e = ELEM[dtype]
    buf = bytearray(rnd.randbytes(nelem * e))
    if dtype != INT32:
        buf[e - 1::e] = bytes(buf[e - 1::e]).translate(_high_byte_table(dtype))
    if specials:
        special32 = [0x7F800000, 0xFF800000, 0x7FC00001, 0x80000000, 0x00000001,
                     0x00800000, 0x7F7FFFFF]
        special16 = {BF16: [0x7F80, 0xFF80, 0x7FC1, 0x8000, 0x0001, 0x7F7F],
                     FP16: [0x7C00, 0xFC00, 0x7E01, 0x8000, 0x0001, 0x7BFF, 0x0400],
                     INT32: [0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0]}
        pool = special32 if dtype == FP32 else special16[dtype]
        fmt = "<I" if e == 4 else "<H"
        for _ in range(max(1, nelem // 50)):
            i = rnd.randrange(nelem)
            buf[i * e:(i + 1) * e] = struct.pack(fmt, rnd.choice(pool))
    return bytes(buf)


def parse_endpoint(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def verify(a, n, check, digest):
    """Compare one operation's result with the reference; 1 if it differs."""
    tag, seq, dtype, op, nelem, blob, data, mylen = check
    bufs = [make_buffer(a.seed, seq, r, dtype, nelem, a.specials)
            for r in range(n)]
    e = ELEM[dtype]
    if nelem <= a.check_sample:
        idx = None
    else:
        rnd = random.Random(seq)
        idx = sorted(set(rnd.randrange(nelem) for _ in range(a.check_sample))
                     | {0, nelem - 1})
    if blob:
        ref = lambda bb: gsched.reference(  # noqa: E731
            blob, bb, dtype, op, reference, SUM, AVG, MIN, MAX)
    else:
        ref = lambda bb: reference(bb, dtype, op)  # noqa: E731
    if idx is None:
        want = ref(bufs)
        got = data
    else:
        want = b"".join(ref([b[i*e:(i+1)*e] for b in bufs]) for i in idx)
        got = b"".join(data[i*e:(i+1)*e] for i in idx)
    digest.update(data)
    if got != want or len(data) != mylen:
        bad = next((i for i in range(0, min(len(got), len(want)), e)
                    if got[i:i+e] != want[i:i+e]), None)
        print(f"# {tag}: result differs from the reference "
              f"(len {len(data)}/{mylen}, first bad byte {bad})")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run all-reduces as one rank and check them")
    run.add_argument("--rank", type=int, required=True)
    run.add_argument("--members", required=True, help="A:P,B:P,... in rank order")
    run.add_argument("--mcast", help="multicast group G:P (default: unicast fan-out)")
    run.add_argument("--group", type=int, default=1)
    run.add_argument("--dtypes", default="fp32,bf16,fp16,int32")
    run.add_argument("--ops", default="sum,avg,min,max")
    run.add_argument("--sizes", default="1,7,100,1000,4099",
                     help="element counts")
    run.add_argument("--iters", type=int, default=1)
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--specials", action="store_true",
                     help="sprinkle NaN/Inf/-0/denormals into the inputs")
    run.add_argument("--timeout-ms", type=int, default=0)
    run.add_argument("--repair-ms", type=int, default=0)
    run.add_argument("--window", type=int, default=0)
    run.add_argument("--rate", type=int, default=0, help="pacing, bytes/s")
    run.add_argument("--ifindex", default="eth0")
    run.add_argument("--check-at-end", action="store_true",
                     help="check results after the last operation, not between "
                     "operations (the check's time does not skew submissions)")
    run.add_argument("--inputs-first", action="store_true",
                     help="make every operation's input before joining, so "
                     "that with --check-at-end a rank does nothing between "
                     "operations (benchmarks: no rank's CPU work delays "
                     "another's submission or competes with the transport)")
    run.add_argument("--check-sample", type=int, default=8192,
                     help="check every element up to this many, else a sample")
    run.add_argument("--expect-status", default="0",
                     help="errno expected from every operation (0 = success), "
                     "or a comma-separated list, one per operation (the last "
                     "repeats); ERRNO/ERRNO accepts either")
    run.add_argument("--schedule", help="schedule blob to load before op 1 "
                     "(tests/netns/gsched.py makes them)")
    run.add_argument("--switch", action="append", default=[], metavar="SEQ:FILE",
                     help="load FILE (or 'default') just before op SEQ")
    run.add_argument("--await-push", type=int, default=0, metavar="SEQ",
                     help="before op SEQ, wait (up to --await-push-s) until a "
                     "schedule has been pushed into this socket "
                     "(GSYNC_SCHEDULE_PUSH), and check the results against it")
    run.add_argument("--await-push-s", type=float, default=60, metavar="S",
                     help="how long --await-push waits (default 60)")
    run.add_argument("--join-fifo", metavar="PATH",
                     help="wait for a line from PATH before joining (a rank "
                     "that must join late, started early so that its start-up "
                     "time does not count)")
    run.add_argument("--ready-fifo", metavar="PATH",
                     help="write 'joined' to PATH once joined")
    run.add_argument("--go-fifo", metavar="PATH",
                     help="once joined (and ready written), wait for a line "
                     "from PATH before the first operation")
    run.add_argument("--exec-before", action="append", default=[],
                     metavar="SEQ:CMD", help="run shell command CMD (and wait "
                     "for it) just before submitting op SEQ")
    run.add_argument("--key", metavar="MODE:EPOCH:HEX",
                     help="key the group (GSYNC_KEY before the join): mode "
                     "auth or encrypt, epoch, the 32-byte secret in hex")
    run.add_argument("--rotate", action="append", default=[],
                     metavar="SEQ:START:EPOCH:HEX",
                     help="before submitting op SEQ, install epoch EPOCH "
                     "(the --key's mode) from operation START on")
    run.add_argument("--stop-after", type=int, default=0,
                     help="exit abruptly after completing this many operations")
    a = ap.parse_args()

    members = [parse_endpoint(m) for m in a.members.split(",")]
    inputs = {}
    if a.inputs_first:
        seq = 1
        for _ in range(a.iters):
            for dname in a.dtypes.split(","):
                for _op in a.ops.split(","):
                    for nelem in (int(x) for x in a.sizes.split(",")):
                        inputs[seq] = make_buffer(a.seed, seq, a.rank, DTYPES[dname],
                                                  nelem, a.specials)
                        seq += 1
    if a.join_fifo:
        with open(a.join_fifo) as f:
            f.readline()
    s = open_socket()
    ifindex = socket.if_nametoindex(a.ifindex) if a.ifindex else 0
    key_mode = None
    if a.key == "none":
        a.key = None
    if a.key:
        key_mode, epoch, secret = parse_key(a.key)
        set_key(s, key_mode, epoch, secret)
    rotations = {}
    for x in a.rotate:
        at, start, epoch, hexs = x.split(":")
        rotations[int(at)] = (int(start), int(epoch), bytes.fromhex(hexs))
    join(s, a.group, a.rank, members,
         parse_endpoint(a.mcast) if a.mcast else None, ifindex=ifindex,
         op_timeout_ms=a.timeout_ms, repair_ms=a.repair_ms, window=a.window,
         pacing_rate=a.rate)
    if a.ready_fifo:
        with open(a.ready_fifo, "w") as f:
            f.write("joined\n")
    if a.go_fifo:
        with open(a.go_fifo) as f:
            f.readline()
    n = len(members)
    blob = None
    switches = {int(x.split(":", 1)[0]): x.split(":", 1)[1] for x in a.switch}
    execs = {int(x.split(":", 1)[0]): x.split(":", 1)[1] for x in a.exec_before}
    if a.schedule:
        switches.setdefault(1, a.schedule)
    seq, failures, digest, checks = 1, 0, hashlib.sha256(), []
    want_list = [{int(y) for y in x.split("/")} for x in a.expect_status.split(",")]
    for it in range(a.iters):
        for dname in a.dtypes.split(","):
            dtype = DTYPES[dname]
            for oname in a.ops.split(","):
                op = OPS[oname]
                for nelem in (int(x) for x in a.sizes.split(",")):
                    mine = inputs.pop(seq, None)
                    if mine is None:
                        mine = make_buffer(a.seed, seq, a.rank, dtype, nelem, a.specials)
                    if a.stop_after and seq > a.stop_after:
                        # Die like a crashed rank: no goodbye, no op 2.
                        os._exit(0)
                    if seq in switches:
                        if switches[seq] == "default":
                            blob = None
                            s.setsockopt(SOL_GSYNC, GSYNC_SCHEDULE, None, 0)
                        else:
                            with open(switches[seq], "rb") as f:
                                blob = f.read()
                            s.setsockopt(SOL_GSYNC, GSYNC_SCHEDULE, blob)
                    if seq in rotations:
                        rotate(s, key_mode, *rotations[seq])
                    if seq == a.await_push:
                        end = time.monotonic() + a.await_push_s
                        while time.monotonic() < end:
                            blob = s.getsockopt(SOL_GSYNC, GSYNC_SCHEDULE, 1024) or None
                            if blob:
                                break
                            time.sleep(0.05)
                        print(f"# rank {a.rank}: pushed schedule {'seen' if blob else 'NOT seen'}")
                    if seq in execs:
                        rc = subprocess.run(execs[seq], shell=True).returncode
                        print(f"# rank {a.rank}: before op {seq}: exit {rc}: {execs[seq]}")
                        failures += rc != 0
                    want_status = want_list[min(seq, len(want_list)) - 1]
                    t0 = time.monotonic()
                    submit(s, seq, mine, dtype, op)
                    rseq, status, data = collect(s, len(mine))
                    dt = time.monotonic() - t0
                    tag = f"rank {a.rank} seq {seq} {dname} {oname} n={nelem}"
                    if rseq != seq:
                        print(f"# {tag}: got result for seq {rseq}")
                        failures += 1
                    elif status not in want_status:
                        print(f"# {tag}: status {status}, want {'/'.join(map(str, sorted(want_status)))}")
                        failures += 1
                    elif status == 0:
                        checks.append((tag, seq, dtype, op, nelem, blob, data, len(mine)))
                        if not a.check_at_end:
                            failures += verify(a, n, checks.pop(), digest)
                    print(f"# {tag}: {dt*1000:.1f} ms status {status}")
                    print("# rate seq %d send_rate %d rtt_ms %d" % ((seq,) + rate_info(s)))
                    seq += 1
    for c in checks:
        failures += verify(a, n, c, digest)
    st = stats(s)
    print("# stats " + " ".join(f"{k}={v}" for k, v in st.items() if v))
    if a.key:
        print("# key mode %d epoch %d fingerprint %016x next %d" % key_info(s))
    print(f"digest {digest.hexdigest()}")
    print(f"failures {failures}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
