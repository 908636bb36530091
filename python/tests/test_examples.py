import io
import os
import re
import runpy
import sys
import threading
import unittest

import fakekernel
from test_group import run_ranks

import gsync

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")

try:
    import numpy  # noqa: F401
except ImportError:  # pragma: no cover
    numpy = None
try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

_local = threading.local()


class _Out(io.TextIOBase):
    """sys.stdout that sends each thread's prints to its own buffer."""

    def write(self, s):
        getattr(_local, "buf", sys.__stdout__).write(s)
        return len(s)


def run_example(name, n, args, **group_kw):
    """Run python/examples/NAME as n ranks (threads) over the fake kernel;
    Group.from_env() hands each its rank's group. Returns each rank's
    stdout and exit code."""
    fab, gs = fakekernel.groups(n, **group_kw)
    orig = gsync.Group.from_env
    gsync.Group.from_env = classmethod(lambda cls, env=None, **kw: gs[_local.rank])
    old_stdout, old_argv = sys.stdout, sys.argv
    sys.stdout = _Out()
    sys.argv = [name] + args        # process-wide: set once for all ranks

    def fn(r, g):
        _local.rank, _local.buf = r, io.StringIO()
        code = 0
        try:
            runpy.run_path(os.path.join(EXAMPLES, name), run_name="__main__")
        except SystemExit as e:
            code = e.code or 0
        return _local.buf.getvalue(), code

    try:
        return fab, run_ranks(gs, fn)
    finally:
        sys.stdout, sys.argv = old_stdout, old_argv
        gsync.Group.from_env = orig
        for g in gs:
            g.close(wait=False)


class Examples(unittest.TestCase):
    @unittest.skipIf(numpy is None, "numpy missing")
    def test_allreduce(self):
        """examples/allreduce.py runs on 3 ranks and checks its results"""
        fab, res = run_example("allreduce.py", 3, ["--size", "1000", "--iters", "3"])
        for r, (out, code) in enumerate(res):
            self.assertEqual(code, 0, out)
            self.assertRegex(out, rf"rank {r}/3: ok; 3 async")

    @unittest.skipIf(torch is None, "torch missing")
    def test_ddp_mlp(self):
        """examples/ddp_mlp.py: ranks print the same parameter digests"""
        fab, res = run_example("ddp_mlp.py", 2, ["--steps", "12"], window=8)
        digests = [re.findall(r"params ([0-9a-f]+)", out) for out, _ in res]
        self.assertEqual([c for _, c in res], [0, 0])
        self.assertEqual(len(digests[0]), 3)
        self.assertEqual(digests[0], digests[1])

    @unittest.skipIf(torch is None, "torch missing")
    def test_diloco_mlp(self):
        """examples/diloco_mlp.py: ranks print the same digests after each outer step"""
        fab, res = run_example("diloco_mlp.py", 2, ["--steps", "10", "--every", "5"])
        digests = [re.findall(r"outer step \d+ .* params ([0-9a-f]+)", out) for out, _ in res]
        self.assertEqual(len(digests[0]), 2)
        self.assertEqual(digests[0], digests[1])


if __name__ == "__main__":
    unittest.main()
