#!/usr/bin/env python3
"""One rank of tests/bench/python-sync: time the synchronization of a
float32 gradient buffer with gloo (torch.distributed.all_reduce, then
divide, as DDP does) and with gsync (Group.all_reduce_ avg), alternating
so both see the same conditions. Prints one line per (backend, size):
    bench rank=R backend=B bytes=N iters=K median_ms=M min_ms=M
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import gsync  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--members", required=True)
    ap.add_argument("--mcast", required=True)
    ap.add_argument("--gloo", required=True)
    ap.add_argument("--sizes", default="65536,1048576,4194304")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--rate", type=int, default=0, help="gsync pacing, bytes/s")
    a = ap.parse_args()
    n = len(a.members.split(","))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://{a.gloo}", rank=a.rank, world_size=n)
    sizes = [int(s) for s in a.sizes.split(",")]
    with gsync.Group(a.rank, a.members, mcast=a.mcast, ifname="eth0", window=4,
                     max_op_bytes=max(sizes), op_timeout_ms=60000, pacing_rate=a.rate) as g:
        for size in sizes:
            t = {"gloo": [], "gsync": []}
            x = torch.full((size // 4,), float(a.rank + 1))
            for _ in range(a.iters):
                dist.barrier()
                t0 = time.monotonic()
                dist.all_reduce(x)
                x.div_(n)
                t["gloo"].append(time.monotonic() - t0)
                g.barrier()
                t0 = time.monotonic()
                g.all_reduce_(x, "avg")
                t["gsync"].append(time.monotonic() - t0)
            for b, v in t.items():
                print(f"bench rank={a.rank} backend={b} bytes={size} iters={a.iters} "
                      f"median_ms={statistics.median(v) * 1000:.1f} min_ms={min(v) * 1000:.1f}",
                      flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
