#!/usr/bin/env python3
"""Stress test, run by hand (not by make check: it takes seconds of both
cores and finds a race only with some probability): threads build size-1
gloo process groups while other threads create and free pybind11
objects, the way the host tests' rank threads and gsync's receiver
thread do around gsync.torch.ddp().

    stress_pg_init.py torch|gsync [SECONDS]

torch: ProcessGroupGloo(HashStore(), 0, 1), torch's timeout constructor;
gsync: gsync.torch.local_process_group(). Prints "survived" and exits 0,
or the process aborts with "pybind11_object_dealloc(): Tried to
deallocate unregistered instance!" (exit 134): the timeout constructor
is a pybind11 factory __init__ run with the GIL released, and pybind11
registers the new object there without a lock (pybind11#5473, fixed by
pybind11#6172). See docs/python.md, "Tests".
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import gsync.torch as gt  # noqa: E402


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("torch", "gsync"):
        sys.exit(__doc__)
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    stop = time.monotonic() + secs

    def make():
        if mode == "torch":
            return dist.ProcessGroupGloo(dist.HashStore(), 0, 1)
        return gt.local_process_group()

    def build():
        while time.monotonic() < stop:
            make()  # dropped at once: the next one races its teardown

    def churn():
        while time.monotonic() < stop:
            # Allocated and dropped at once, to churn the allocator.
            [torch.futures.Future() for _ in range(50)]
            [dist.HashStore() for _ in range(10)]

    ts = [threading.Thread(target=f) for f in (build, build, churn, churn)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print(f"survived: {mode}, {secs:g} s")


if __name__ == "__main__":
    main()
