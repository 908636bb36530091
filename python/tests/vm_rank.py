#!/usr/bin/env python3
"""One rank of the Python package's VM tests (tests/netns/t-python.sh):
run inside an island namespace against the real gsync module.

    vm_rank.py exact --rank R --members A:P,... (--mcast G:P | --unicast)
        every dtype x op, buffers of every kind (bytearray, memoryview,
        numpy, torch), compared bit for bit with the reference reduction
    vm_rank.py async ... [--gate DIR]
        24 operations submitted without waiting (window 8). With --gate,
        rank 0 asserts that its first 8 are all in flight at once (the
        others hold back until it has submitted them: they block reading
        the fifo DIR/go-<r>, which rank 0 then writes)
    vm_rank.py dead ... --die-after 1
        op 1 succeeds everywhere; the rank given --die-after exits; the
        others must get GsyncTimeout (errno ETIMEDOUT, seq 2), also for an
        async op 3
    vm_rank.py snippet FILE
        run the ```python block of FILE marked <!-- gsync-snippet --> with
        `rank` set, and check its result
Prints "ok"/"not ok" lines prefixed with the rank; exit 1 on any failure.
"""
import argparse
import errno
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "netns"))

import gsched  # noqa: E402  (reference under a schedule)
import gsync  # noqa: E402
import gsync_py  # noqa: E402  (reference reduction and input patterns)

FAILED = 0
RANK = -1


def ok(cond, desc):
    global FAILED
    print(f"{'ok' if cond else 'not ok'} - rank {RANK}: {desc}", flush=True)
    if not cond:
        FAILED = 1
    return cond


def group(a, **kw):
    mode = {"unicast": True} if a.unicast else {"mcast": a.mcast}
    kw.setdefault("op_timeout_ms", a.timeout_ms)
    if a.key:
        kw.setdefault("key", a.key)
    return gsync.Group(a.rank, a.members, ifname="eth0", **mode, **kw)


def wrap(kind, raw, dtype):
    """raw bytes -> a writable buffer object of the given kind."""
    import numpy as np
    name = ["fp32", "bf16", "fp16", "int32"][dtype]
    if kind == "bytearray":
        return bytearray(raw), name
    if kind == "memoryview":
        return memoryview(bytearray(raw)), name
    if kind == "numpy":
        npdt = {0: np.float32, 1: np.uint16, 2: np.float16, 3: np.int32}[dtype]
        arr = np.frombuffer(bytearray(raw), dtype=npdt).copy()
        return arr, ("bf16" if dtype == 1 else None)
    import torch
    tdt = {0: torch.float32, 1: torch.bfloat16, 2: torch.float16, 3: torch.int32}[dtype]
    return torch.frombuffer(bytearray(raw), dtype=tdt).clone(), None


def to_bytes(obj):
    if type(obj).__module__.startswith("torch"):
        import torch
        t = obj.view(torch.int16) if obj.dtype == torch.bfloat16 else obj
        return t.numpy().tobytes()
    return bytes(memoryview(obj).cast("B"))


def cmd_exact(a):
    kinds = ["bytearray", "memoryview", "numpy", "torch"]
    if a.no_torch:
        kinds.remove("torch")
    sizes = [int(x) for x in a.sizes.split(",")]
    seq, n, bad = 0, 0, []
    t0 = time.monotonic()
    nr = len(a.members.split(","))
    ref = lambda bufs, dtype, op: gsync_py.reference(bufs, dtype, op)  # noqa: E731
    with group(a, window=8) as g:
        if a.key:
            info = g.info()
            ok(g.key_mode == "encrypt" and info["key_epoch"] == 1 and
               info["key_fingerprint"] == gsync.key_fingerprint(gsync.key_file_read(a.key)),
               f"keyed from {a.key}: encrypt, epoch 1, the file's fingerprint "
               f"({g.key_mode}, {info['key_epoch']}, {info['key_fingerprint']:016x})")
        if a.schedule:
            import json
            blob = g.load_schedule(json.loads(a.schedule))
            ok(g.schedule() == blob, f"schedule loaded from JSON ({len(blob)}-byte blob), "
               "read back unchanged")
            ref = lambda bufs, dtype, op: gsched.reference(  # noqa: E731
                blob, bufs, dtype, op, gsync_py.reference, 0, 1, 2, 3)
        for dtype in range(4):
            for op in range(4):
                for i, nelem in enumerate(sizes):
                    seq += 1
                    kind = kinds[(seq + i) % len(kinds)]
                    raw = gsync_py.make_buffer(a.seed, seq, a.rank, dtype, nelem, True)
                    obj, dt = wrap(kind, raw, dtype)
                    res = g.all_reduce_(obj, gsync.buffers._abi.OP_NAMES[op], dt)
                    want = ref([gsync_py.make_buffer(a.seed, seq, r, dtype, nelem, True)
                                for r in range(nr)], dtype, op)
                    n += 1
                    if res is not obj or to_bytes(obj) != want:
                        bad.append(f"seq {seq} dtype {dtype} op {op} n={nelem} {kind}")
        st = g.stats()
    ok(not bad, f"{n} all-reduces (fp32/bf16/fp16/int32 x sum/avg/min/max, sizes {a.sizes}, "
       f"{'/'.join(kinds)}) equal the reference bits ({time.monotonic() - t0:.1f}s)"
       + (f": wrong: {bad[:5]}" if bad else ""))
    ok(st["ops_completed"] == n and st["ops_failed"] == 0
       and st["sched_ops"] == (n if a.schedule else 0),
       f"stats: ops_completed={st['ops_completed']} ops_failed={st['ops_failed']} "
       f"sched_ops={st['sched_ops']}")


def cmd_async(a):
    import numpy as np
    nops, window = 24, 8
    nr = len(a.members.split(","))
    with group(a, window=window) as g:
        bufs = [np.frombuffer(bytearray(gsync_py.make_buffer(a.seed, s, a.rank, 0, 5000 + 7 * s, False)),
                              dtype=np.float32).copy() for s in range(1, nops + 1)]
        if a.gate and a.rank != 0:
            with open(os.path.join(a.gate, f"go-{a.rank}")) as f:  # blocks until rank 0 writes
                f.read()
        futs = []
        for s, b in enumerate(bufs, 1):
            futs.append(g.all_reduce_async(b, "sum"))
            if a.gate and a.rank == 0 and s == window:
                inf = g.info()["inflight"]
                ok(inf == window and not any(f.done() for f in futs),
                   f"{window} operations in flight at once (inflight={inf})")
                # let the others start; op 9 can only be submitted once op 1
                # has been collected, which needs them
                for r in range(1, nr):
                    with open(os.path.join(a.gate, f"go-{r}"), "w") as f:
                        f.write("go")
        ok([f.seq for f in futs] == list(range(1, nops + 1)), "sequence numbers 1..24 in order")
        res = [f.result(120) for f in futs]
        good = 0
        for s, (b, r) in enumerate(zip(bufs, res), 1):
            want = gsync_py.reference([gsync_py.make_buffer(a.seed, s, k, 0, 5000 + 7 * s, False)
                                       for k in range(nr)], 0, 0)
            good += r is b and b.tobytes() == want
        ok(good == nops, f"{good}/{nops} async results equal the reference, each in its own buffer")


def cmd_dead(a):
    with group(a) as g:
        buf = bytearray(gsync_py.make_buffer(a.seed, 1, a.rank, 0, 1000, False))
        g.all_reduce_(buf, "sum", "fp32")
        ok(True, "operation 1 succeeded")
        if a.rank == a.die_after_rank:
            print(f"# rank {a.rank}: dying without closing", flush=True)
            os._exit(0)
        t0 = time.monotonic()
        try:
            g.all_reduce_(bytearray(4000), "sum", "fp32")
            ok(False, "operation 2 raised GsyncTimeout (it succeeded)")
        except gsync.GsyncTimeout as e:
            dt = time.monotonic() - t0
            ok(e.errno == errno.ETIMEDOUT and e.seq == 2 and isinstance(e, TimeoutError),
               f"operation 2 raised GsyncTimeout errno={e.errno} seq={e.seq} after {dt:.2f}s")
            ok(a.timeout_ms / 1000 * 0.9 <= dt <= a.timeout_ms / 1000 + 3,
               f"within op_timeout {a.timeout_ms} ms + 3 s slack ({dt:.2f}s)")
        except Exception as e:  # noqa: BLE001
            ok(False, f"operation 2 raised GsyncTimeout (got {type(e).__name__}: {e})")
        f = g.all_reduce_async(bytearray(8), "max", "int32")
        e = f.exception(a.timeout_ms / 1000 + 10)
        ok(isinstance(e, gsync.GsyncTimeout) and e.seq == 3,
           f"async operation 3: future holds GsyncTimeout (got {e!r})")
        st = g.stats()
        ok(st["timeouts"] >= 1 and st["ops_failed"] == 2,
           f"stats count it: timeouts={st['timeouts']} ops_failed={st['ops_failed']}")


SNIPPET = re.compile(r"<!-- gsync-snippet -->\s*```python\n(.*?)```", re.S)


def cmd_snippet(a):
    with open(a.file) as f:
        m = SNIPPET.search(f.read())
    if not ok(m is not None, f"{a.file} has a snippet marked <!-- gsync-snippet -->"):
        return
    timeout = os.environ.get("GSYNC_SNIPPET_OP_TIMEOUT_MS")
    if timeout:
        # The snippet keeps the default op_timeout_ms (10 s); on the debug
        # kernel under TCG a rank can be busy longer than that between two
        # operations. Its own `import gsync` gets this Group.
        plain = gsync.Group

        class Group(plain):
            def __init__(self, *args, **kw):
                kw.setdefault("op_timeout_ms", int(timeout))
                super().__init__(*args, **kw)

        gsync.Group = Group
    ns = {"rank": a.rank, "__name__": "__snippet__"}
    try:
        exec(compile(m.group(1), a.file, "exec"), ns)
    finally:
        if timeout:
            gsync.Group = plain
    import numpy as np
    grads = ns.get("grads")
    ok(isinstance(grads, np.ndarray) and grads.dtype == np.float32 and (grads == 6.0).all(),
       f"the snippet of {os.path.basename(a.file)} ran; grads = "
       f"{grads[:2] if grads is not None else None}... (want 6.0: avg of 1,2,3 then sum)")


def main():
    global RANK
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["exact", "async", "dead", "snippet"])
    ap.add_argument("file", nargs="?")
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--members", default="")
    ap.add_argument("--mcast")
    ap.add_argument("--unicast", action="store_true")
    ap.add_argument("--timeout-ms", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--sizes", default="1,7,1000,6000")
    ap.add_argument("--gate")
    ap.add_argument("--die-after-rank", type=int, default=-1)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--schedule", help="gsync-schedule/1 JSON (ranks as numbers) to load first")
    ap.add_argument("--key", help="a key file: the group is keyed (Group(key=path))")
    a = ap.parse_args()
    RANK = a.rank
    try:
        {"exact": cmd_exact, "async": cmd_async, "dead": cmd_dead, "snippet": cmd_snippet}[a.cmd](a)
    except Exception as e:  # noqa: BLE001
        import traceback
        ok(False, f"{a.cmd} raised {type(e).__name__}: {e}")
        traceback.print_exc(file=sys.stdout)
    sys.exit(FAILED)


if __name__ == "__main__":
    main()
