#!/usr/bin/env python3
"""The keyed-group socket options (GSYNC_KEY, GSYNC_KEY_PUSH in
uapi/linux/gsync.h) in one network namespace, as root: two ranks on the
loopback in one process. Every documented error, a key never readable
back, the fingerprint reported, rotations installed and used, the
administrator's push, net.gsync.require_auth. Prints TAP lines.

    keyed_api.py
"""
import errno
import hashlib
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsync_py as g  # noqa: E402
from tap import check, errno_of, exit_status  # noqa: E402

S1, S2, S3 = bytes(range(32)), bytes(range(1, 33)), bytes(range(2, 34))
PUSH_FMT = "=QHHI"    # struct gsync_key_push, struct gsync_key follows
ANY_RANK = 0xFFFF


def fingerprint(secret):
    h = hashlib.blake2s(b"gsync fingerprint v1" + secret).digest()
    return int.from_bytes(h[:8], "big")


def pair(group, port, keys, **kw):
    """Two joined sockets of group on the loopback; keys[r]: (mode, epoch,
    secret) or None."""
    eps = [("127.0.0.1", port), ("127.0.0.1", port + 1)]
    socks = []
    for r in range(2):
        s = g.open_socket()
        if keys[r]:
            g.set_key(s, *keys[r])
        g.join(s, group, r, eps, None, **kw)
        socks.append(s)
    return socks


def run_op(socks, seq, n=3000):
    """One fp32 sum on both sockets: (status, exact) of each."""
    bufs = [g.make_buffer(1, seq, r, g.FP32, n, False) for r in range(2)]
    want = g.reference(bufs, g.FP32, g.SUM)
    for r, s in enumerate(socks):
        g.submit(s, seq, bufs[r], g.FP32, g.SUM)
    out = []
    for s in socks:
        rseq, status, data = g.collect(s, 4 * n)
        out.append((status, rseq == seq and (status != 0 or data == want)))
    return out


def proc_rows():
    with open("/proc/net/gsync") as f:
        lines = f.read().split("\n")
    cols = lines[0].split()
    return [dict(zip(cols, ln.split())) for ln in lines[1:] if ln]


def push(s, group, rank, mode, epoch, secret, start, reserved=0):
    blob = struct.pack(PUSH_FMT, group, rank, reserved, 0) + \
        g.key_blob(mode, epoch, secret, start)
    s.setsockopt(g.SOL_GSYNC, g.GSYNC_KEY_PUSH, blob)


def main():
    # Before the join: what is refused, what replaces.
    s = g.open_socket()
    bad_mode = struct.pack(g.KEY_FMT, 3, 1, 0, S1, bytes(16))
    check("GSYNC_KEY mode 3: EINVAL",
          errno_of(s.setsockopt, g.SOL_GSYNC, g.GSYNC_KEY, bad_mode) == errno.EINVAL)
    none_mode = struct.pack(g.KEY_FMT, 0, 1, 0, S1, bytes(16))
    check("GSYNC_KEY mode NONE: EINVAL",
          errno_of(s.setsockopt, g.SOL_GSYNC, g.GSYNC_KEY, none_mode) == errno.EINVAL)
    resv = struct.pack(g.KEY_FMT, 1, 1, 0, S1, b"\1" + bytes(15))
    check("GSYNC_KEY reserved not 0: EINVAL",
          errno_of(s.setsockopt, g.SOL_GSYNC, g.GSYNC_KEY, resv) == errno.EINVAL)
    check("GSYNC_KEY short optlen: EINVAL",
          errno_of(s.setsockopt, g.SOL_GSYNC, g.GSYNC_KEY,
                   g.key_blob("auth", 1, S1)[:-1]) == errno.EINVAL)
    check("GSYNC_KEY start_seq 5 before the join: EINVAL",
          errno_of(g.set_key, s, "auth", 1, S1, 5) == errno.EINVAL)
    check("GSYNC_KEY is never readable back (getsockopt: ENOPROTOOPT)",
          errno_of(s.getsockopt, g.SOL_GSYNC, g.GSYNC_KEY, 64) == errno.ENOPROTOOPT)
    s.close()

    # A keyed pair: exact, the key reported by fingerprint only.
    a = pair(11, 7800, [("encrypt", 4, S2), ("encrypt", 4, S2)])
    info = g.key_info(a[0])
    check("keyed JOIN: info says encrypt, epoch 4, the fingerprint, none next",
          info == (2, 4, fingerprint(S2), 0), info)
    res = run_op(a, 1)
    check("keyed pair: op 1 exact on both", res == [(0, True)] * 2, res)
    rows = [r for r in proc_rows() if r["group"] == "0xb"]
    check("/proc/net/gsync: key_mode encrypt, key_epoch 4, the fingerprint",
          len(rows) == 2 and all(r["key_mode"] == "encrypt" and r["key_epoch"] == "4"
                                 and r["key_fingerprint"] == "%016x" % fingerprint(S2)
                                 for r in rows), rows)
    with open("/proc/net/gsync") as f:
        text = f.read()
    check("/proc/net/gsync does not show the secret", S2.hex() not in text)

    # Rotations: what is refused, then one installed and used.
    check("rotation, epoch not above the current: EINVAL",
          errno_of(g.set_key, a[0], "encrypt", 4, S3, 5) == errno.EINVAL)
    check("rotation, another mode: EINVAL",
          errno_of(g.set_key, a[0], "auth", 5, S3, 5) == errno.EINVAL)
    check("rotation from an operation already submitted (1): ERANGE",
          errno_of(g.set_key, a[0], "encrypt", 5, S3, 1) == errno.ERANGE)
    for s in a:
        g.set_key(s, "encrypt", 5, S3, 3)
    info = g.key_info(a[0])
    check("rotation installed: epoch 4 still sent with, 5 next",
          info == (2, 4, fingerprint(S2), 5), info)
    check("a second rotation while one is pending: EBUSY",
          errno_of(g.set_key, a[0], "encrypt", 6, S1, 9) == errno.EBUSY)
    ok = True
    for seq in (2, 3, 4):
        res = run_op(a, seq)
        ok = ok and res == [(0, True)] * 2
    check("ops 2-4 across the switch at op 3: exact", ok)
    info = g.key_info(a[0])
    check("after the switch: epoch 5 sent with, its fingerprint",
          info[:3] == (2, 5, fingerprint(S3)), info)

    # The administrator's push rotates every socket of the group.
    adm = g.open_socket()
    check("GSYNC_KEY_PUSH, no such group: ENOENT",
          errno_of(push, adm, 999, ANY_RANK, "encrypt", 9, S1, 100) == errno.ENOENT)
    check("GSYNC_KEY_PUSH, reserved not 0: EINVAL",
          errno_of(push, adm, 11, ANY_RANK, "encrypt", 9, S1, 100, 1) == errno.EINVAL)
    # The old epoch goes once both ranks released ops 1-2 and heard the
    # other in epoch 5: until then a rotation is EBUSY (bounded poll).
    for _ in range(1000):
        err = errno_of(push, adm, 11, ANY_RANK, "encrypt", 6, S1, 7)
        if err != errno.EBUSY:
            break
        time.sleep(0.01)
    check("GSYNC_KEY_PUSH once the old epoch is erased: done", err == 0, err)
    infos = [g.key_info(s) for s in a]
    check("GSYNC_KEY_PUSH installed epoch 6 from op 7 in both ranks",
          all(i[3] == 6 for i in infos), infos)
    ok = True
    for seq in (5, 6, 7, 8):
        res = run_op(a, seq)
        ok = ok and res == [(0, True)] * 2
    check("ops 5-8 across the pushed switch: exact", ok)
    check("after it: epoch 6", [g.key_info(s)[1] for s in a] == [6, 6])
    for s in a:
        s.close()

    # A group without a key cannot become keyed.
    u = pair(12, 7810, [None, None])
    check("GSYNC_KEY after an unkeyed JOIN: EISCONN",
          errno_of(g.set_key, u[0], "auth", 2, S1, 10) == errno.EISCONN)
    check("GSYNC_KEY_PUSH to an unkeyed group: EISCONN",
          errno_of(push, adm, 12, ANY_RANK, "auth", 2, S1, 10) == errno.EISCONN)
    check("unkeyed group: info key_mode 0", g.key_info(u[0]) == (0, 0, 0, 0))
    for s in u:
        s.close()

    # net.gsync.require_auth: no JOIN without a key.
    with open("/proc/sys/net/gsync/require_auth", "w") as f:
        f.write("1\n")
    try:
        s = g.open_socket()
        err = errno_of(g.join, s, 13, 0, [("127.0.0.1", 7820), ("127.0.0.1", 7821)])
        check("require_auth=1: JOIN without a key: ENOKEY", err == errno.ENOKEY, err)
        s.close()
        k = pair(13, 7822, [("auth", 1, S1), ("auth", 1, S1)])
        res = run_op(k, 1)
        check("require_auth=1: a keyed (AUTH) pair runs, exact", res == [(0, True)] * 2, res)
        for s in k:
            s.close()
    finally:
        with open("/proc/sys/net/gsync/require_auth", "w") as f:
            f.write("0\n")
    adm.close()
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
