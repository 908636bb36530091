#!/usr/bin/env python3
"""All-reduce numpy arrays with gsync, one process per rank.

    GSYNC_RANK=0 GSYNC_MEMBERS=198.18.0.1:7000,198.18.0.2:7000,198.18.0.3:7000 \
    GSYNC_MCAST=239.1.1.1:7100 python3 allreduce.py [--size N] [--iters K]

Every rank contributes rank+1 in every element; after the blocking
average every element is (n+1)/2; then K buffers are reduced
asynchronously with several in flight. Prints one line and the counters.
Exit status 0 on success, 1 if a result is wrong, 3 if an operation
failed (a dead peer: GsyncTimeout).
"""
import argparse
import sys
import time

import numpy as np

import gsync


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1 << 18, help="float32 elements")
    ap.add_argument("--iters", type=int, default=8)
    a = ap.parse_args()
    try:
        g = gsync.Group.from_env(window=8)
    except ValueError as e:
        sys.exit(f"allreduce.py: {e}")
    with g:
        n = g.size
        x = np.full(a.size, g.rank + 1, dtype=np.float32)
        try:
            g.all_reduce_(x, op="avg")
            ok = bool((x == np.float32(sum(range(1, n + 1)) / n)).all())
            bufs = [np.full(a.size, (g.rank + 1) * (i + 1), dtype=np.int32) for i in range(a.iters)]
            t0 = time.monotonic()
            futs = [g.all_reduce_async(b, op="sum") for b in bufs]
            for i, f in enumerate(futs):
                f.result()
                ok &= bool((bufs[i] == (i + 1) * n * (n + 1) // 2).all())
            dt = time.monotonic() - t0
        except gsync.GsyncError as e:
            print(f"rank {g.rank}: operation {e.seq} failed: {e}")
            return 3
        st = g.stats()
    print(f"rank {g.rank}/{n}: {'ok' if ok else 'WRONG'}; {a.iters} async x "
          f"{a.size * 4 / 1e6:.1f} MB in {dt * 1000:.0f} ms; retransmits {st['retransmits']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
