#!/usr/bin/env python3
"""Checks of the socket paths that the hardening work fixed, each printed as
TAP lines ("ok - ..." / "not ok - ..."). Run inside the islands by
t-hardening.sh; every check waits on conditions, never on time.

    hardening.py same-seq ADDR            two threads submit one seq
    hardening.py budget ADDR              net.gsync.* memory budgets
    hardening.py pacing ADDR              pacing rate range
    hardening.py member RANK MEMBERS SIZE [kill]
                                          a rank of a 3-rank group
    hardening.py linger ADDR PEER         make a lingering group on ADDR
    hardening.py forge ADDR PEER          rank 1's data, from PEER (linger)
    hardening.py rejoin ADDR PEER         join ADDR again after linger
    hardening.py stale-rank0 ADDR PEER    rank 0 releases operation 1 ...
    hardening.py stale-fake ADDR PEER     ... and its fake peer POLLs it
    hardening.py close-rejoin ADDR ROUNDS SIZE
                                          close with an operation in flight
                                          while a new JOIN on the endpoint
                                          retries
    hardening.py join-fail ADDR ROUNDS    JOINs failing on a taken multicast
                                          port while a peer floods them
"""
import errno
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsync_py as g  # noqa: E402
from fuzz_wire import header  # noqa: E402
from tap import check, errno_of, exit_status  # noqa: E402


def in_syscall(tid, nr):
    """Is thread tid blocked in system call nr? (/proc/PID/task/TID/syscall)"""
    try:
        with open(f"/proc/self/task/{tid}/syscall") as f:
            return f.read().split()[0] == str(nr)
    except OSError:
        return False


def wait_for(cond, what, limit=600000):
    """Poll cond (cheap /proc reads) until true; fail after limit tries."""
    for _ in range(limit):
        if cond():
            return True
        os.sched_yield()
    check(what, False)
    return False


SYS_SENDMSG = 46  # x86_64


def same_seq(addr):
    """Two threads submit the same seq while the window is full: exactly one
    may take it (the other gets EINVAL), and nothing leaks."""
    if not os.path.exists(f"/proc/self/task/{threading.get_native_id()}/syscall"):
        # UML: no /proc/PID/task/TID/syscall, and its wchan reads stale
        # stack words, so nothing tells that both threads wait in sendmsg.
        print("ok - two submitters of one seq # SKIP this kernel cannot "
              "tell where a thread blocks (UML); make check runs it on QEMU")
        return
    s = g.open_socket()
    g.join(s, 31, 0, [(addr, 7300), ("198.18.255.254", 7300)], None,
           window=1, op_timeout_ms=300)
    g.submit(s, 1, bytes(4096), g.FP32, g.SUM)
    results, tids = [None, None], [None, None]

    def worker(i):
        tids[i] = threading.get_native_id()
        results[i] = errno_of(g.submit, s, 2, bytes(4096), g.FP32, g.SUM)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True)
               for i in range(2)]
    for t in threads:
        t.start()
    ok = wait_for(lambda: all(tids) and all(in_syscall(t, SYS_SENDMSG) for t in tids),
                  "both submitters are blocked on the full window")
    # Operation 1 times out (no peer): collecting it frees the window.
    seq, status, _ = g.collect(s, 4096)
    check("operation 1 timed out (no peer)", (seq, status) == (1, errno.ETIMEDOUT))
    for t in threads:
        t.join(timeout=60)   # a bound for a broken kernel, not a wait
    check("neither submitter is left blocked",
          not any(t.is_alive() for t in threads))
    check(f"exactly one submitter of seq 2 won, the other got EINVAL ({results})",
          ok and sorted(results) == [0, errno.EINVAL])
    info = s.getsockopt(g.SOL_GSYNC, 3, 64)
    next_seq = struct.unpack_from("=IHHQQ", info)[4]
    check(f"next_seq is 3 after one submission of seq 2 ({next_seq})", next_seq == 3)
    s.close()


def sysctl(name, value=None):
    path = "/proc/sys/net/gsync/" + name
    if value is not None:
        with open(path, "w") as f:
            f.write(str(value))
    with open(path) as f:
        return int(f.read())


def budget(addr):
    """net.gsync.sock_mem_max bounds what one socket's operations hold:
    an operation that can never fit gets EMSGSIZE, one that does not fit
    beside the ones held gets ENOBUFS, and the namespace total is exact."""
    defaults = {n: sysctl(n) for n in ("sock_mem_max", "mem_max", "stash_max")}
    check(f"net.gsync sysctls exist with defaults {defaults}",
          defaults["sock_mem_max"] == 1 << 30 and defaults["stash_max"] == 32 << 20
          and defaults["mem_max"] >= 1 << 30)
    check("a limit below 64 KiB is refused",
          errno_of(sysctl, "sock_mem_max", 1000) == errno.EINVAL)
    sysctl("sock_mem_max", 1 << 20)
    s = g.open_socket()
    g.join(s, 32, 0, [(addr, 7301), ("198.18.255.254", 7301)], None,
           window=4, op_timeout_ms=60000)
    # Default schedule, 2 ranks: our buffer, the result and one peer stream,
    # plus bitmaps: a bit over 3 x len.
    check("an operation needing more than sock_mem_max alone: EMSGSIZE",
          errno_of(g.submit, s, 1, bytes(400 << 10), g.FP32, g.SUM) == errno.EMSGSIZE)
    check("a fitting operation is accepted",
          errno_of(g.submit, s, 1, bytes(200 << 10), g.FP32, g.SUM) == 0)
    held = stats_value("mem_bytes")
    check(f"the namespace counts what it holds ({held} bytes, > 600 KiB)",
          600 << 10 < held < 1 << 20)
    check("a second one beside it: ENOBUFS",
          errno_of(g.submit, s, 2, bytes(200 << 10), g.FP32, g.SUM) == errno.ENOBUFS)
    s.close()
    check("after close nothing is held", stats_value("mem_bytes") == 0)
    sysctl("sock_mem_max", defaults["sock_mem_max"])


def stats_value(name):
    with open("/proc/net/gsync_stats") as f:
        for line in f:
            k, v = line.split()
            if k == name:
                return int(v)
    raise KeyError(name)


def pacing(addr):
    s = g.open_socket()
    kw = dict(op_timeout_ms=1000)
    members = [(addr, 7302), ("198.18.255.254", 7302)]
    check("JOIN with a pacing rate above GSYNC_MAX_PACING_RATE: ERANGE",
          errno_of(lambda: g.join(s, 33, 0, members, None,
                                  pacing_rate=(1 << 40) + 1, **kw)) == errno.ERANGE)
    g.join(s, 33, 0, [(addr, 7302), ("198.18.255.254", 7302)], None, **kw)
    set_rate = lambda r: s.setsockopt(g.SOL_GSYNC, 2, struct.pack("=Q", r))  # noqa: E731
    check("GSYNC_PACING_RATE above the maximum: ERANGE",
          errno_of(set_rate, (1 << 40) + 1) == errno.ERANGE)
    check("GSYNC_PACING_RATE at the maximum is accepted",
          errno_of(set_rate, 1 << 40) == 0)
    s.close()


def member(rank, members, size, kill):
    """One rank of a 3-rank group: submit operation 1 and report how it
    ended, printing "joined" once joined; with kill, print "submitted" and
    wait to be killed."""
    eps = [g.parse_endpoint(m) for m in members.split(",")]
    s = g.open_socket()
    # Paced slowly so that the operation is still being sent when killed.
    g.join(s, 34, rank, eps, None, op_timeout_ms=20000, pacing_rate=2 << 20)
    if not kill:
        print("joined", flush=True)
    g.submit(s, 1, bytes(size), g.FP32, g.SUM)
    if kill:
        print(f"submitted {os.getpid()}", flush=True)
        sys.stdin.read()
        return
    seq, status, _ = g.collect(s, size)
    print(f"result seq {seq} status {status}", flush=True)


def linger(addr, peer):
    """Rank 0 of a 2-rank group whose rank 1 is a plain UDP socket (forge):
    it completes operation 1 with a DATA packet forged for rank 1, whose
    acknowledgement never comes, so after close rank 0's group lingers."""
    s = g.open_socket()
    g.join(s, 35, 0, [(addr, 7303), (peer, 7303)], None, op_timeout_ms=600000)
    g.submit(s, 1, bytes(64), g.FP32, g.SUM)
    print("submitted", flush=True)
    seq, status, data = g.collect(s, 64)
    check("rank 0 completed operation 1 with the forged rank 1",
          (seq, status, data) == (1, 0, FORGED))
    held = stats_value("mem_bytes")
    s.close()
    check(f"after close the lingering group still holds its operation ({held} bytes)",
          held > 0 and stats_value("mem_bytes") == held)


FORGED = struct.pack("=16f", *range(16))


def forge(addr, peer):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((peer, 7303))
    u.sendto(header(None, 35, 2, 1, seq=1, plen=64, total=64, cb=1024) + FORGED,
             (addr, 7303))
    u.close()


def stale_rank0(addr, peer):
    """Rank 0 with window 1: operation 1 with the fake rank 1 (stale-fake),
    collected and released (operation 2 fits the window only then)."""
    s = g.open_socket()
    g.join(s, 37, 0, [(addr, 7304), (peer, 7304)], None, window=1,
           op_timeout_ms=600000)
    g.submit(s, 1, bytes(64), g.FP32, g.SUM)
    print("submitted", flush=True)
    seq, status, data = g.collect(s, 64)
    check("operation 1 completed with the fake rank 1", (seq, status) == (1, 0))
    # Blocks until the fake's STATUS lets operation 1 go (SO_SNDTIMEO: a
    # bound for a broken kernel, not a wait).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 30, 0))
    try:
        g.submit(s, 2, bytes(64), g.FP32, g.SUM)
        released = True
    except OSError:
        released = False
    check("operation 1 was released (operation 2 fits a window of 1)", released)
    print("released", flush=True)
    sys.stdin.read()   # hold the socket until the fake is done
    s.close()


def stale_fake(addr, peer):
    """Rank 1 of stale-rank0, a plain UDP socket: sends its data, acknowledges
    rank 0's, then (after "go" on stdin) POLLs the released operation 1 and
    expects a STATUS saying rank 0 holds everything."""
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((peer, 7304))
    u.settimeout(30)   # bounds for a broken kernel, not waits
    u.sendto(header(None, 37, 2, 1, seq=1, plen=64, total=64, cb=1024) + FORGED,
             (addr, 7304))
    # Rank 0's DATA, or (if its DATA came before we bound) its POLL.
    while u.recv(2048)[1] not in (1, 4):
        pass
    status = bytes([1]) + bytes(31)   # bit 0: we hold rank 0's value
    u.sendto(header(None, 37, 2, 1, type=3, seq=1, plen=32, total=64, cb=1024)
             + status, (addr, 7304))
    print("acknowledged", flush=True)
    sys.stdin.readline()
    u.sendto(header(None, 37, 2, 1, type=4, seq=1, plen=0, total=64, cb=1024),
             (addr, 7304))
    try:
        while True:
            pkt = u.recv(2048)
            if pkt[1] == 3 and struct.unpack_from("!Q", pkt, 16)[0] == 1:
                break
        ok = pkt[64] & 1 and pkt[64] & 2
    except socket.timeout:
        ok = False
    check("a POLL for a released operation is answered with a full STATUS", ok)


def rejoin(addr, peer):
    before = stats_value("linger_takeovers")
    s = g.open_socket()
    err = errno_of(g.join, s, 36, 0, [(addr, 7303), (peer, 7303)], None)
    check(f"a new JOIN on the lingering group's endpoint succeeds (errno {err})",
          err == 0)
    check("it took over exactly one lingering group",
          stats_value("linger_takeovers") == before + 1)
    check("the old group's memory is released", stats_value("mem_bytes") == 0)
    s.close()


def close_rejoin(addr, rounds, size):
    """Rank 0 of a 2-rank group whose rank 1 (a plain UDP socket) never
    sends: rank 0 closes with an operation of size bytes in flight (its
    buffers take long to free on debug), so close fails
    it, queues an ABORT and frees its buffers while the group may already
    linger, and meanwhile another thread JOINs the same endpoint until the
    endpoint is free or taken over. Round after round: on the debug kernel
    KASAN sees close, the group's own destruction and the takeover race."""
    fake = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fake.bind((addr, 7401))
    members = [(addr, 7400), (addr, 7401)]
    refused = 0
    for i in range(rounds):
        s = g.open_socket()
        g.join(s, 40, 0, members, None, repair_ms=1, op_timeout_ms=600000)
        g.submit(s, 1, bytes(size), g.FP32, g.SUM)
        out = {}

        def rejoin():
            for tries in range(100000):
                s2 = g.open_socket()
                err = errno_of(g.join, s2, 41, 0, members, None)
                s2.close()
                if err != errno.EADDRINUSE:
                    out["err"], out["tries"] = err, tries
                    return
                os.sched_yield()
            out["err"] = errno.EADDRINUSE

        t = threading.Thread(target=rejoin)
        t.start()
        s.close()
        t.join()
        refused += out.get("tries", 0)
        if out["err"] != 0:
            check(f"round {i}: a JOIN on the closed rank's endpoint succeeds "
                  f"(errno {out['err']})", False)
            return
    check(f"{rounds} rounds: every JOIN on the endpoint of a rank closing "
          f"with an operation in flight succeeded ({refused} EADDRINUSE "
          "before)", True)
    if wait_for(lambda: stats_value("mem_bytes") == 0,
                "every group's memory is released", 1000000):
        check("every group's memory is released", True)


def join_fail(addr, rounds):
    """JOINs that fail after their unicast socket is up: the multicast port
    is taken (bound without SO_REUSEADDR), while a fake rank 1, a process of
    its own sending flat out, floods the rank's endpoint with DATA to stash
    and stale POLLs to answer. Each JOIN must fail with EADDRINUSE and leave
    nothing behind: no work item on a freed group, no stashed packet (KASAN
    and kmemleak on debug)."""
    block = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    block.bind(("0.0.0.0", 7410))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((addr, 7401))
        data = header(None, 42, 2, 1, seq=1, plen=64, total=64, cb=1024) + bytes(64)
        poll = header(None, 42, 2, 1, type=4, seq=0, plen=0, total=64, cb=1024)
        os.write(w, b"x")
        while True:     # until the parent kills it
            for pkt in (data, poll):
                try:
                    u.sendto(pkt, (addr, 7400))
                except OSError:
                    pass
    os.close(w)
    os.read(r, 1)       # the flood is on
    errs = {}
    for _ in range(rounds):
        s = g.open_socket()
        err = errno_of(g.join, s, 42, 0, [(addr, 7400), (addr, 7401)],
                       ("239.77.9.9", 7410))
        errs[err] = errs.get(err, 0) + 1
        s.close()
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    check(f"{rounds} JOINs with the multicast port taken fail with "
          f"EADDRINUSE ({errs})", errs == {errno.EADDRINUSE: rounds})
    check("no memory is left charged", stats_value("mem_bytes") == 0)


def main(argv):
    cmd = argv[1]
    if cmd == "same-seq":
        same_seq(argv[2])
    elif cmd == "budget":
        budget(argv[2])
    elif cmd == "pacing":
        pacing(argv[2])
    elif cmd == "member":
        member(int(argv[2]), argv[3], int(argv[4]), len(argv) > 5)
    elif cmd == "linger":
        linger(argv[2], argv[3])
    elif cmd == "stale-rank0":
        stale_rank0(argv[2], argv[3])
    elif cmd == "stale-fake":
        stale_fake(argv[2], argv[3])
    elif cmd == "forge":
        forge(argv[2], argv[3])
    elif cmd == "rejoin":
        rejoin(argv[2], argv[3])
    elif cmd == "close-rejoin":
        close_rejoin(argv[2], int(argv[3]), int(argv[4]))
    elif cmd == "join-fail":
        join_fail(argv[2], int(argv[3]))
    else:
        sys.exit(__doc__)
    sys.exit(exit_status())


if __name__ == "__main__":
    main(sys.argv)
