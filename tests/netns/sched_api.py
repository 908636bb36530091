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
from tap import check, errno_of, exit_status  # noqa: E402

GSYNC_SCHEDULE_PUSH = 7
ANY_RANK = 0xFFFF


def push_race(push, good, members, mcast, pool_size):
    """GSYNC_SCHEDULE_PUSH racing JOIN and close in the same namespace.

    A push takes one snapshot of the sockets joined to the group and must
    install what it compiled for each into that one. pool_size unjoined
    sockets are opened first, then the push target t (group 79, 9 ranks),
    so the pool lies before t in the namespace's socket list. A child
    process joins the pool sockets one by one to group 79 as a 3-rank group,
    reads each one's schedule and closes it, while this process pushes the
    9-rank grid and the default into group 79 in turn until the child is
    done. A push is all or none: while a 3-rank socket is joined it refuses
    the grid (EINVAL) and changes nothing; otherwise t gets it. No 3-rank
    socket ever holds the grid (a push that re-read the list between
    compiling and installing would hand t's schedule to a socket that
    joined meanwhile)."""
    pool = [g.open_socket() for _ in range(pool_size)]
    t = g.open_socket()
    g.join(t, 79, 0, [(h, p + 50) for h, p in members], (mcast[0], mcast[1] + 50))
    small = [(h, p + 40) for h, p in members[:3]]
    small_mcast = (mcast[0], mcast[1] + 40)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        joins = wrong = errors = 0
        for c in pool:
            try:
                g.join(c, 79, 0, small, small_mcast)
                joins += 1
                wrong += len(c.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) > 0
            except OSError:
                errors += 1
            c.close()
        os.write(wfd, f"{joins} {wrong} {errors}".encode())
        os._exit(0)
    os.close(wfd)
    for c in pool:
        c.close()       # the child holds them now
    push79 = lambda blob: push(79, ANY_RANK, blob)  # noqa: E731
    results = {0: 0, errno.EINVAL: 0}
    unexpected, kept, i = [], True, 0
    while os.waitpid(pid, os.WNOHANG) == (0, 0) and i < 100000:
        blob = good if i % 2 == 0 else b""
        before = t.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)
        e = push79(blob)
        after = t.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)
        if e in results:
            results[e] += 1
        else:
            unexpected.append(e)
        if (e == 0 and after != blob) or (e != 0 and after != before):
            kept = False
        i += 1
    if i >= 100000:     # the cap, not the child, ended the loop
        os.waitpid(pid, 0)
    joins, wrong, errors = (int(x) for x in os.read(rfd, 64).split())
    os.close(rfd)
    check(f"push racing join/close: {i} pushes returned only 0 or EINVAL "
          f"({results[0]} installed, {results[errno.EINVAL]} refused, "
          f"{joins} joins; unexpected: {sorted(set(unexpected))})", not unexpected)
    check("push racing join/close: each push changed all or none "
          "(the 9-rank socket holds what the push returned)", kept)
    check(f"push racing join/close: no 3-rank socket held the 9-rank grid ({wrong} did)",
          wrong == 0)
    check(f"push racing join/close: all {pool_size} joins succeeded ({errors} failed)",
          errors == 0 and joins == pool_size)
    check("push racing join/close: pushes met joined 3-rank sockets (the race ran)",
          results[errno.EINVAL] > 0 and results[0] > 0)
    check("after the race the default is back", push79(b"") == 0 and
          len(t.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) == 0)
    t.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--members", required=True)
    ap.add_argument("--mcast", required=True)
    ap.add_argument("--good", required=True, help="a valid 9-rank blob")
    ap.add_argument("--fuzz", type=int, default=2000)
    ap.add_argument("--race", type=int, default=300,
                    help="sockets that join while pushes run")
    a = ap.parse_args()
    members = [g.parse_endpoint(m) for m in a.members.split(",")]
    with open(a.good, "rb") as f:
        good = f.read()
    setopt = lambda s, b: errno_of(lambda: s.setsockopt(  # noqa: E731
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
          errno_of(lambda: s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 16)) == errno.ERANGE)
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
    push = lambda gid, rank, blob: errno_of(lambda: p.setsockopt(  # noqa: E731
        g.SOL_GSYNC, GSYNC_SCHEDULE_PUSH, struct.pack("=QHHI", gid, rank, 0, 0) + blob))
    check("push to a group with no socket here is ENOENT", push(999, ANY_RANK, good) == errno.ENOENT)
    check("push of a bad blob is EINVAL and changes nothing",
          push(77, ANY_RANK, bad["double counting"]) == errno.EINVAL)
    check("push into group 77 works from an unjoined socket", push(77, ANY_RANK, good) == 0)
    check("the group's socket now has it",
          s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024) == good)
    check("push to another rank than ours is ENOENT", push(77, 3, good) == errno.ENOENT)
    check("push with reserved bits is EINVAL", errno_of(lambda: p.setsockopt(
        g.SOL_GSYNC, GSYNC_SCHEDULE_PUSH, struct.pack("=QHHI", 77, 0, 1, 0) + good)) == errno.EINVAL)
    check("an empty push returns the group to the default", push(77, 0, b"") == 0 and
          len(s.getsockopt(g.SOL_GSYNC, g.GSYNC_SCHEDULE, 1024)) == 0)
    push_race(push, good, members, g.parse_endpoint(a.mcast), a.race)
    p.close()
    s.close()
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
