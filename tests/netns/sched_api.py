#!/usr/bin/env python3
"""The schedule socket options (run by t-schedule.sh as rank 0 on island 0):
GSYNC_SCHEDULE set/get, start_seq, the default schedule, refusals of
malformed, inexact and fuzzed blobs, and GSYNC_SCHEDULE_PUSH. Prints one TAP
line per check; exit status 1 if any failed."""
import argparse
import errno
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import gsched  # noqa: E402
import gsync_py as g  # noqa: E402

GSYNC_SCHEDULE_PUSH = 7
ANY_RANK = 0xFFFF
failed = 0


def check(desc, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + desc, flush=True)
    failed |= not cond


def err(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--members", required=True)
    ap.add_argument("--mcast", required=True)
    ap.add_argument("--good", required=True, help="a valid 9-rank blob")
    ap.add_argument("--fuzz", type=int, default=2000)
    a = ap.parse_args()
    members = [g.parse_endpoint(m) for m in a.members.split(",")]
    with open(a.good, "rb") as f:
        good = f.read()
    setopt = lambda s, b: err(lambda: s.setsockopt(  # noqa: E731
        g.SOL_GSYNC, g.GSYNC_SCHEDULE, b) if b else s.setsockopt(
        g.SOL_GSYNC, g.GSYNC_SCHEDULE, None, 0))

    s = g.open_socket()
    check("GSYNC_SCHEDULE before join is ENOTCONN", setopt(s, good) == errno.ENOTCONN)
    g.join(s, 77, 0, members, g.parse_endpoint(a.mcast))
    check("a default group reports no schedule (length 0)",
          len(s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) == 0)
    check("a valid grid loads", setopt(s, good) == 0)
    check("and reads back byte for byte",
          s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024) == good)
    check("a buffer too small for the blob is ERANGE",
          err(lambda: s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 16)) == errno.ERANGE)
    check("an empty blob returns to the default", setopt(s, b"") == 0 and
          len(s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) == 0)

    n, rounds, block, idle, _ = gsched.parse(good)
    later = gsched.build(n, rounds, block, idle, start_seq=5)
    check("a schedule for a later operation is accepted", setopt(s, later) == 0)
    check("and shown as pending", s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024) == later)
    g.submit(s, 1, bytes(8), g.FP32, g.SUM)   # seq 2 is next now
    past = gsched.build(n, rounds, block, idle, start_seq=1)
    check("a start_seq already behind is ERANGE", setopt(s, past) == errno.ERANGE)

    bad = {
        "truncated": good[:-1],
        "trailing bytes": good + b"\0\0",
        "bad magic": b"X" + good[1:],
        "10 ranks": gsched.build(10, rounds, block),
        "double counting": gsched.build(9, [rounds[0], rounds[0]], block),
        "not all-reduce": gsched.build(9, [rounds[0]], block),
        "block 100": gsched.build(9, rounds, 100),
        "rank in two cliques": gsched.build(9, [[{"members": [0, 1], "pattern": "unicast"},
                                                 {"members": [1, 2], "pattern": "unicast"}]]),
    }
    for name, blob in bad.items():
        check(f"refused with EINVAL: {name}", setopt(s, blob) == errno.EINVAL)
    one = gsched.build(9, [[{"members": list(range(9)), "pattern": "multicast"}]])
    u = g.open_socket()
    g.join(u, 78, 0, [(h, p + 1) for h, p in members])   # unicast group
    check("a multicast clique in a unicast group is EOPNOTSUPP",
          setopt(u, one) == errno.EOPNOTSUPP)
    u.close()

    rnd = random.Random(7)
    bad_errno = ok = 0
    for i in range(a.fuzz):
        b = bytearray(good)
        for _ in range(1 + i % 4):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        if i % 5 == 0:
            b = b[:rnd.randrange(len(b) + 8)]
        e = setopt(s, bytes(b))
        ok += e == 0
        bad_errno += e not in (0, errno.EINVAL, errno.EOPNOTSUPP, errno.ERANGE)
    check(f"{a.fuzz} corrupted blobs: only EINVAL/EOPNOTSUPP/ERANGE or accepted "
          f"({ok} accepted)", bad_errno == 0)

    # ---- push into every socket of a group ----
    p = g.open_socket()
    push = lambda gid, rank, blob: err(lambda: p.setsockopt(  # noqa: E731
        g.SOL_GSYNC, GSYNC_SCHEDULE_PUSH, struct.pack("=QHHI", gid, rank, 0, 0) + blob))
    check("push to a group with no socket here is ENOENT", push(999, ANY_RANK, good) == errno.ENOENT)
    check("push of a bad blob is EINVAL and changes nothing",
          push(77, ANY_RANK, bad["double counting"]) == errno.EINVAL)
    check("push into group 77 works from an unjoined socket", push(77, ANY_RANK, good) == 0)
    check("the group's socket now has it",
          s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024) == good)
    check("push to another rank than ours is ENOENT", push(77, 3, good) == errno.ENOENT)
    check("push with reserved bits is EINVAL", err(lambda: p.setsockopt(
        g.SOL_GSYNC, GSYNC_SCHEDULE_PUSH, struct.pack("=QHHI", 77, 0, 1, 0) + good)) == errno.EINVAL)
    check("an empty push returns the group to the default", push(77, 0, b"") == 0 and
          len(s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) == 0)
    p.close()
    s.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
