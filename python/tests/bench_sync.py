#!/usr/bin/env python3
"""One rank of tests/bench/python-sync: time the synchronization of a
float32 gradient buffer from Python with each backend of --backends,
alternating them within every iteration so that all see the same
conditions:

  gloo         torch.distributed.all_reduce over TCP, then divide, as DDP
               does (its process group also is the ranks' rendezvous)
  gsync        gsync.Group.all_reduce_(avg) under the kernel's default
               schedule (one multicast clique), pacing_rate --rate (default
               0: none set, the kernel's adaptive rate)
  gsync_sched  the same on a second group (--sched-members, --sched-mcast,
               pacing_rate --sched-rate, default 0: the schedule's clique
               rates, adaptive below them) running, for each size, the
               blob --schedule SIZE=FILE names (gsync-sched export), loaded
               with Group.load_schedule() at the same sequence number on
               every rank (which joins its cliques' multicast groups, if
               the blob has them; the untimed barrier before each timed
               operation gives the network time to learn of the joins)

With --bucket-bytes B the buffer is synchronized as DDP does it, in
buckets of B bytes (the last one shorter) all in flight at once:
asynchronous Gloo all-reduces (then the division), gsync
all_reduce_async() (up to the group's window, --window), each timed
operation ending when every bucket has. Every timed operation starts
after a barrier of its own backend, on the buffer refilled with rank + 1,
and its result must be (n + 1) / 2 at both ends of every bucket. A backend that fails on this rank (setup, an operation, a wrong
result) is reported and not run again here; the others go on (their
peers time out on it: --timeout-s for gloo, --op-timeout-ms for gsync).
Prints, after each size, one line per backend:
    bench rank=R backend=B bytes=N iters=K median_ms=M min_ms=M [buckets=NB]
          [pacing_rate=P send_rate=S retransmits=N drop_clique=N rate_decreases=N
           rate_loss_decreases=N]
(the bracketed counters for gsync groups: the pacing_rate set and the
send_rate reached at the end of the size, GSYNC_INFO's, and what the
size's operations and barriers added to GSYNC_STATS' counters), or, where
it failed or was not run:
    bench rank=R backend=B bytes=N error=TEXT
"""
import argparse
import datetime
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

BACKENDS = ("gloo", "gsync", "gsync_sched")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--members", required=True, help="gsync group: addr:port,... in rank order")
    ap.add_argument("--mcast", required=True, help="gsync group: multicast group:port")
    ap.add_argument("--gloo", required=True, help="rank 0's addr:port for gloo's rendezvous")
    ap.add_argument("--sizes", default="65536,1048576,4194304", help="bytes, comma-separated")
    ap.add_argument("--iters", default="5",
                    help="iterations: one number, or one per size (comma-separated)")
    ap.add_argument("--rate", type=int, default=0,
                    help="gsync's pacing_rate, bytes/s (default 0: none set, the adaptive rate)")
    ap.add_argument("--backends", default="gloo,gsync",
                    help="comma-separated, from " + ",".join(BACKENDS))
    ap.add_argument("--schedule", action="append", default=[], metavar="SIZE=FILE",
                    help="gsync_sched: the schedule blob for operations of SIZE bytes")
    ap.add_argument("--sched-members", help="gsync_sched group's members (other ports)")
    ap.add_argument("--sched-mcast", help="gsync_sched group's multicast group:port")
    ap.add_argument("--sched-rate", type=int, default=0,
                    help="gsync_sched's pacing_rate, bytes/s (default 0: none set, the "
                         "schedule's clique rates)")
    ap.add_argument("--timeout-s", type=float, default=600,
                    help="gloo's timeout (rendezvous and each collective)")
    ap.add_argument("--op-timeout-ms", type=int, default=120000, help="gsync's op_timeout_ms")
    ap.add_argument("--bucket-bytes", type=int, default=0,
                    help="synchronize in buckets of this many bytes, all in flight (0: one "
                         "operation)")
    ap.add_argument("--window", type=int, default=4, help="gsync groups' window")
    a = ap.parse_args(argv)
    if a.rate < 0 or a.sched_rate < 0:
        ap.error("--rate, --sched-rate: bytes/s, 0 for none (the adaptive rate)")
    a.sizes = [int(s) for s in a.sizes.split(",")]
    if any(s <= 0 or s % 4 for s in a.sizes):
        ap.error("--sizes: positive multiples of 4 (float32)")
    iters = [int(s) for s in a.iters.split(",")]
    if len(iters) == 1:
        iters *= len(a.sizes)
    if len(iters) != len(a.sizes) or min(iters) < 1:
        ap.error("--iters: one number >= 1, or one per size")
    a.iters = dict(zip(a.sizes, iters))
    if a.bucket_bytes < 0 or a.bucket_bytes % 4:
        ap.error("--bucket-bytes: a multiple of 4 (float32), 0 for one operation")
    if not 1 <= a.window <= 64:
        ap.error("--window: 1..64")
    a.backends = [b for b in a.backends.split(",") if b]
    if not a.backends or any(b not in BACKENDS for b in a.backends):
        ap.error("--backends: from " + ",".join(BACKENDS))
    a.blobs = {}
    for spec in a.schedule:
        size, sep, path = spec.partition("=")
        if not sep or not size.isdigit() or not path:
            ap.error(f"--schedule {spec!r}: expected SIZE=FILE")
        a.blobs[int(size)] = path
    if "gsync_sched" in a.backends and not (a.sched_members and a.sched_mcast):
        ap.error("gsync_sched needs --sched-members and --sched-mcast")
    return a


def one_line(e):
    text = f"{type(e).__name__}: {e}".replace("\n", " ")
    return text[:300]


COUNTERS = ("retransmits", "drop_clique", "rate_decreases", "rate_loss_decreases")


def counters(g):
    """The group's GSYNC_STATS counters of COUNTERS, or None."""
    try:
        st = g.stats()
        return {c: st[c] for c in COUNTERS}
    except Exception:  # noqa: BLE001: the counters are extra, never fatal
        return None


def rate_fields(g, before):
    """The bench line's " pacing_rate=P send_rate=S" (GSYNC_INFO) and
    COUNTERS since ``before`` (from counters()), or "" if the group cannot
    say."""
    after = counters(g)
    try:
        info = g.info()
        head = f" pacing_rate={info['pacing_rate']} send_rate={info['send_rate']}"
    except Exception:  # noqa: BLE001
        return ""
    if before is None or after is None:
        return head
    return head + "".join(f" {c}={after[c] - before[c]}" for c in COUNTERS)


def main(argv=None):
    a = parse_args(argv)
    import torch
    import torch.distributed as dist
    import gsync

    n = len(a.members.split(","))
    expect = (n + 1) / 2
    torch.set_num_threads(1)
    dead = {}           # backend -> why it no longer runs on this rank
    groups = {}         # "gsync" / "gsync_sched" -> gsync.Group
    maxb = max(a.sizes)
    if a.bucket_bytes:
        maxb = min(maxb, a.bucket_bytes)
    common = dict(ifname="eth0", window=a.window, max_op_bytes=maxb,
                  op_timeout_ms=a.op_timeout_ms)
    for b in a.backends:
        try:
            if b == "gloo":
                dist.init_process_group("gloo", init_method=f"tcp://{a.gloo}", rank=a.rank,
                                        world_size=n,
                                        timeout=datetime.timedelta(seconds=a.timeout_s))
            elif b == "gsync":
                groups[b] = gsync.Group(a.rank, a.members, mcast=a.mcast,
                                        pacing_rate=a.rate, **common)
            else:
                groups[b] = gsync.Group(a.rank, a.sched_members, mcast=a.sched_mcast,
                                        pacing_rate=a.sched_rate, **common)
        except Exception as e:  # noqa: BLE001: any failure takes this backend out
            dead[b] = "setup: " + one_line(e)

    def barrier(b):
        if b == "gloo":
            dist.barrier()
        else:
            groups[b].barrier()

    def reduce(b, x, parts):
        if not parts:
            if b == "gloo":
                dist.all_reduce(x)
                x.div_(n)
            else:
                groups[b].all_reduce_(x, "avg")
            return
        # As DDP's comm hooks do it: each bucket submitted without
        # waiting for the previous one (here all at once, DDP as backward
        # fills them), all waited for at the end.
        if b == "gloo":
            works = [dist.all_reduce(p, async_op=True) for p in parts]
            for w in works:
                w.wait()
            x.div_(n)
        else:
            futs = [groups[b].all_reduce_async(p, "avg") for p in parts]
            for f in futs:
                f.result()

    def result_ok(x, parts):
        return all(p[0].item() == expect and p[-1].item() == expect for p in parts or [x])

    for size in a.sizes:
        t = {b: [] for b in a.backends}
        skip = {}
        if "gsync_sched" in a.backends and "gsync_sched" not in dead:
            g = groups["gsync_sched"]
            if size not in a.blobs:
                skip["gsync_sched"] = "no schedule for this size"
            else:
                try:
                    # Every rank has made the same calls on this group, so
                    # next_seq is the same everywhere: all switch together.
                    g.load_schedule(a.blobs[size], start_seq=g.next_seq)
                except Exception as e:  # noqa: BLE001
                    dead["gsync_sched"] = "load_schedule: " + one_line(e)
        before = {b: counters(g) for b, g in groups.items() if b not in dead}
        x = torch.empty(size // 4, dtype=torch.float32)
        parts = list(x.split(a.bucket_bytes // 4)) if a.bucket_bytes else []
        for _ in range(a.iters[size]):
            for b in a.backends:
                if b in dead or b in skip:
                    continue
                x.fill_(float(a.rank + 1))
                try:
                    barrier(b)
                    t0 = time.monotonic()
                    reduce(b, x, parts)
                    dt = time.monotonic() - t0
                except Exception as e:  # noqa: BLE001
                    dead[b] = f"{size} bytes: " + one_line(e)
                    continue
                if not result_ok(x, parts):
                    dead[b] = (f"{size} bytes: wrong result {x[0].item()}, {x[-1].item()}"
                               f" (expected {expect} in every bucket)")
                    continue
                t[b].append(dt)
        for b in a.backends:
            head = f"bench rank={a.rank} backend={b} bytes={size}"
            why = dead.get(b) or skip.get(b)
            if why or len(t[b]) < a.iters[size]:
                print(f"{head} error={why or 'incomplete'}", flush=True)
            else:
                v = t[b]
                print(f"{head} iters={len(v)} median_ms={statistics.median(v) * 1000:.1f} "
                      f"min_ms={min(v) * 1000:.1f}"
                      + (f" buckets={len(parts)}" if parts else "")
                      + (rate_fields(groups[b], before.get(b)) if b in groups else ""),
                      flush=True)
    for g in groups.values():
        g.close(wait=False)
    if "gloo" in a.backends and "gloo" not in dead:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
