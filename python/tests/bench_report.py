#!/usr/bin/env python3
"""The table of tests/bench/python-sync, from its ranks' logs in DIR:

    bench_report.py DIR K SIZES ITERS

DIR/py1.R and DIR/py0.R: bench_sync.py's output with Gloo's
tcp_slow_start_after_idle on (alternating with gsync) and off; with
python-sync --apart, py1.R has gsync alone and DIR/py1g.R Gloo's run with
it on;
DIR/c.SIZE.R: userspace/libgsync/examples/allreduce's. K ranks; SIZES and
ITERS comma-separated. A figure is the slowest rank's, and only if all K
ranks reported one; "-" otherwise. In a file of its own (not inline in
the script) so that make check's host stage can run it
(python/tests/test_bench.py).
"""
import glob
import re
import sys


def slowest(pattern, regex, k):
    """The largest value over the ranks, if every rank reported one."""
    vals = []
    for path in glob.glob(pattern):
        with open(path, errors="replace") as f:
            vals += [float(m.group(1)) for m in re.finditer(regex, f.read())]
    return max(vals) if len(vals) == k else None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    tmp, k, sizes, iters = argv[0], int(argv[1]), argv[2].split(","), argv[3].split(",")
    cols = ["bytes", "iters", "gloo_ssai1_ms", "gloo_ssai0_ms", "gsync_py_ms",
            "gsync_py_sched_ms", "gsync_c_ms", "bestgloo/py", "bestgloo/sched", "py/c"]
    print(" ".join(f"{c:>{max(len(c), 9)}}" for c in cols))
    for size, n in zip(sizes, iters):
        def py(label, b):
            return slowest(f"{tmp}/{label}.[0-9]*",
                           rf"backend={b} bytes={size} iters=\d+ median_ms=([0-9.]+)", k)
        g1, g0 = py("py1", "gloo"), py("py0", "gloo")
        if g1 is None:
            g1 = py("py1g", "gloo")
        s, sc = py("py1", "gsync"), py("py1", "gsync_sched")
        c = slowest(f"{tmp}/c.{size}.[0-9]*", r"per_op_us=([0-9.]+) .*result=ok", k)
        c = c / 1000 if c is not None else None
        best = min((x for x in (g1, g0) if x is not None), default=None)

        def ratio(a, b):
            return f"{a / b:.2f}" if a is not None and b else "-"

        def ms(x):
            return f"{x:.1f}" if x is not None else "-"

        row = [size, n, ms(g1), ms(g0), ms(s), ms(sc), ms(c), ratio(best, s), ratio(best, sc),
               ratio(s, c)]
        print(" ".join(f"{v:>{max(len(h), 9)}}" for v, h in zip(row, cols)))


if __name__ == "__main__":
    main()
