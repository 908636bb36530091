#!/usr/bin/env python3
"""What an unprivileged user can make the kernel hold (t-unprivileged.sh).

    unpriv.py exhaust ADDR ROUNDS   JOIN 256 fake peers, submit large
                                    operations until refused, close; repeat.
                                    Prints one "errno NAME COUNT" line each.
    unpriv.py userns-cap            inside unshare -Urn: raise this netns's
                                    net.gsync.sock_mem_max, then check that
                                    the initial namespace's cap still holds
"""
import collections
import errno
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsync_py as g  # noqa: E402


def exhaust(addr, rounds):
    seen = collections.Counter()
    members = [(addr, 7400)] + [("198.18.250.%d" % (i % 250 + 1), 7400 + i // 250)
                                for i in range(255)]
    for _ in range(rounds):
        s = g.open_socket()
        try:
            g.join(s, 41, 0, members, None, window=64, max_op_bytes=1 << 30,
                   op_timeout_ms=3600000)
        except OSError as e:
            seen[errno.errorcode[e.errno]] += 1
            s.close()
            continue
        for seq in range(1, 65):
            try:
                g.submit(s, seq, bytes(2 << 20), g.FP32, g.SUM)
                seen["ok"] += 1
            except OSError as e:
                seen[errno.errorcode[e.errno]] += 1
                break
        s.close()
    for name, n in sorted(seen.items()):
        print(f"errno {name} {n}", flush=True)


def userns_cap():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    path = "/proc/sys/net/gsync/sock_mem_max"
    try:
        with open(path, "w") as f:
            f.write(str(1 << 40))
        wrote = "raised"
    except OSError as e:
        wrote = errno.errorcode[e.errno]
    s = g.open_socket()
    g.join(s, 42, 0, [("127.0.0.1", 7500), ("127.0.0.1", 7501)], None)
    try:
        g.submit(s, 1, bytes(2 << 20), g.FP32, g.SUM)
        res = "accepted"
    except OSError as e:
        res = errno.errorcode[e.errno]
    print(f"sysctl {wrote} submit {res}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "exhaust":
        exhaust(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "userns-cap":
        userns_cap()
    else:
        sys.exit(__doc__)
