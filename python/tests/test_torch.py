import struct
import threading
import unittest

import fakekernel
from fakekernel import gsync_py
from test_group import close_all, run_ranks

try:
    import torch
    import gsync.torch as gt
except ImportError:  # pragma: no cover
    torch = None

from gsync import _abi


_init_lock = threading.Lock()  # the global RNG: ranks are threads here


def mlp(seed):
    with _init_lock:
        torch.manual_seed(seed)
        return _mlp()


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16),
                               torch.nn.Tanh(), torch.nn.Linear(16, 2))


@unittest.skipIf(torch is None, "torch missing (Debian: python3-torch; run with /usr/bin/python3)")
class TorchOps(unittest.TestCase):
    def test_dtypes_exact(self):
        """torch: all_reduce_ of fp32/bf16/fp16/int32 tensors over 3 ranks equals the reference bits"""
        fab, gs = fakekernel.groups(3)
        try:
            dts = [(torch.float32, 0), (torch.bfloat16, 1), (torch.float16, 2), (torch.int32, 3)]

            def fn(r, g):
                out = []
                for seq, (dt, code) in enumerate(dts, 1):
                    raw = gsync_py.make_buffer(3, seq, r, code, 25, True)
                    t = torch.frombuffer(bytearray(raw), dtype=dt).clone().reshape(5, 5)
                    self.assertIs(gt.all_reduce_(t, "sum", group=g), t)
                    out.append(bytes(t.contiguous().view(torch.uint8).numpy()))
                return out

            got = run_ranks(gs, fn)
            for seq, (dt, code) in enumerate(dts, 1):
                want = gsync_py.reference([gsync_py.make_buffer(3, seq, r, code, 25, True)
                                           for r in range(3)], code, 0)
                for r in range(3):
                    self.assertEqual(got[r][seq - 1], want, (dt, r))
            self.assertEqual([x[1] for x in fab.reduced], [0, 1, 2, 3])
        finally:
            close_all(gs)

    def test_zero_copy(self):
        """torch: a contiguous tensor is handed to the socket as its own memory"""
        t = torch.zeros(6, dtype=torch.bfloat16)
        from gsync.buffers import as_buffer
        v, code = as_buffer(t)
        self.assertEqual(code, _abi.DTYPE_BF16)
        v[0:2] = struct.pack("<H", 0x3F80)   # bf16 1.0 written through the view
        self.assertEqual(t[0].item(), 1.0)
        p = torch.nn.Parameter(torch.zeros(3))  # requires_grad is fine
        v, _ = as_buffer(p)
        v[0:4] = struct.pack("<f", 2.5)
        self.assertEqual(p[0].item(), 2.5)

    def test_refused(self):
        """torch: float64, bool and non-contiguous async tensors are refused with clear errors"""
        fab, gs = fakekernel.groups(2)
        try:
            with self.assertRaisesRegex(ValueError, "float64"):
                gt.all_reduce_(torch.zeros(3, dtype=torch.float64), group=gs[0])
            with self.assertRaisesRegex(ValueError, "contiguous"):
                gt.all_reduce_async(torch.zeros(4, 4)[:, 0], group=gs[0])
            with self.assertRaisesRegex(RuntimeError, "no gsync group"):
                gt.all_reduce_(torch.zeros(3))
            with self.assertRaisesRegex(ValueError, "does not match"):
                gs[0].all_reduce_(torch.zeros(2), dtype="int32")
            self.assertEqual(gs[0].next_seq, 1)
        finally:
            close_all(gs)

    def test_non_contiguous(self):
        """torch: a non-contiguous tensor is reduced through a copy and written back"""
        fab, gs = fakekernel.groups(2)
        try:
            ts = [torch.arange(16, dtype=torch.float32).reshape(4, 4) * (r + 1) for r in range(2)]
            run_ranks(gs, lambda r, g: gt.all_reduce_(ts[r][:, 1], "max", group=g))
            for t in ts:
                self.assertEqual(t[:, 1].tolist(), [2.0, 10.0, 18.0, 26.0])
                self.assertEqual(t[:, 0].tolist()[1], 4.0 * (1 if t is ts[0] else 2))
        finally:
            close_all(gs)

    def test_local_group_registered_with_gil(self):
        """torch: the size-1 gloo group is built by the options constructor (no pybind11 race)"""
        # ProcessGroupGloo(store, rank, size[, timeout]) registers its
        # Python object with the GIL released, racing with other threads
        # (pybind11#5473); stress_pg_init.py shows the abort.
        import os
        from unittest import mock
        real = gt._dist.ProcessGroupGloo
        calls = []

        class Spy:
            _Options = real._Options
            create_default_device = staticmethod(real.create_default_device)

            @staticmethod
            def create_device(**kw):
                calls.append(("device", kw))
                return real.create_device(**kw)

            def __new__(cls, *a, **kw):
                calls.append((a, kw))
                return real(*a, **kw)

        with mock.patch.object(gt._dist, "ProcessGroupGloo", Spy):
            with mock.patch.dict(os.environ, {"GLOO_SOCKET_IFNAME": ""}):
                pg = gt.local_process_group()
            with mock.patch.dict(os.environ, {"GLOO_SOCKET_IFNAME": "lo"}):
                gt.local_process_group()
        (args, kw), dev, (args2, _) = calls
        self.assertEqual((len(args), kw), (4, {}))
        self.assertIsInstance(args[3], real._Options)
        self.assertEqual(dev, ("device", {"interface": "lo"}))
        self.assertEqual(len(args2[3]._devices), 1)
        self.assertEqual((pg.rank(), pg.size()), (0, 1))

    def test_state_digest(self):
        """torch: state_digest is equal for equal states, differs for one flipped bit"""
        a, b = mlp(1), mlp(1)
        self.assertEqual(gt.state_digest(a), gt.state_digest(b))
        with torch.no_grad():
            w = b[0].weight.view(-1)
            w.view(torch.int32)[3] ^= 1
        self.assertNotEqual(gt.state_digest(a), gt.state_digest(b))
        self.assertEqual(len(gt.state_digest({"x": torch.zeros(2, dtype=torch.bfloat16)})), 64)

    def test_sync_module_states(self):
        """torch: sync_module_states copies rank 0's parameters bit for bit"""
        fab, gs = fakekernel.groups(3)
        try:
            ms = [mlp(10 + r) for r in range(3)]
            self.assertNotEqual(gt.state_digest(ms[0]), gt.state_digest(ms[1]))
            want = gt.state_digest(ms[0])
            run_ranks(gs, lambda r, g: gt.sync_module_states(ms[r], g))
            self.assertEqual([gt.state_digest(m) for m in ms], [want] * 3)
        finally:
            close_all(gs)


def train_ddp(g, r, steps, wire=None, bucket_cap_mb=0.0005):
    model = mlp(100 + r)             # different init everywhere: ddp() must sync it
    dm = gt.ddp(model, g, wire_dtype=wire, bucket_cap_mb=bucket_cap_mb)
    opt = torch.optim.SGD(dm.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(r)
    digests = []
    for _ in range(steps):
        x = torch.randn(16, 8, generator=gen)
        y = x[:, :2].sin()
        loss = torch.nn.functional.mse_loss(dm(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        digests.append(gt.state_digest(model))
    return digests


@unittest.skipIf(torch is None, "torch missing (Debian: python3-torch; run with /usr/bin/python3)")
class TorchDDP(unittest.TestCase):
    # Small buckets, the first one included, so that a step has several.
    # Process-wide, so set around the test, not inside the rank threads.
    def setUp(self):
        import torch.distributed as dist
        self.old_first = dist._DEFAULT_FIRST_BUCKET_BYTES
        dist._DEFAULT_FIRST_BUCKET_BYTES = 256

    def tearDown(self):
        import torch.distributed as dist
        dist._DEFAULT_FIRST_BUCKET_BYTES = self.old_first

    def test_ddp_identical(self):
        """torch: DDP with the gsync hook keeps 2 ranks bit-identical, several buckets per step"""
        fab, gs = fakekernel.groups(2, window=8)
        try:
            res = run_ranks(gs, lambda r, g: train_ddp(g, r, 6))
            for x in res:
                self.assertNotIsInstance(x, BaseException, x)
            self.assertEqual(res[0], res[1])
            self.assertEqual(len(set(res[0])), 6)  # and it trained
            # 1 broadcast, 1 bucket in step 1, then DDP's rebuilt buckets:
            # at least 2 ops per step
            self.assertGreaterEqual(len(fab.reduced), 1 + 1 + 5 * 2)
            self.assertTrue(all(op == _abi.OP_AVG for _, _, op, _ in fab.reduced[1:]))
        finally:
            close_all(gs)

    def test_ddp_bf16_wire(self):
        """torch: wire_dtype='bf16' or 'fp16' sends 16-bit buckets and stays identical"""
        digests = {}
        for wire, code in (("bf16", _abi.DTYPE_BF16), ("fp16", _abi.DTYPE_FP16), (None, 0)):
            fab, gs = fakekernel.groups(2)
            try:
                res = run_ranks(gs, lambda r, g: train_ddp(g, r, 3, wire=wire))
                self.assertEqual(res[0], res[1])
                self.assertEqual({d for _, d, _, _ in fab.reduced[1:]}, {code})
                digests[wire] = res[0]
            finally:
                close_all(gs)
        self.assertEqual(len({tuple(d) for d in digests.values()}), 3)  # rounding differs
        with self.assertRaisesRegex(ValueError, "fp16"):
            gt.HookState(None, "fp8")

    def test_ddp_split_over_max_op_bytes(self):
        """torch: buckets over max_op_bytes go as several operations, with the same result"""
        runs = {}
        for mob in (0, 64):
            fab, gs = fakekernel.groups(2, window=8, max_op_bytes=mob)
            try:
                runs[mob] = run_ranks(gs, lambda r, g: train_ddp(g, r, 3))
                sizes = [n for _, _, _, n in fab.reduced[1:]]
            finally:
                close_all(gs)
            self.assertEqual(runs[mob][0], runs[mob][1])
            if mob:
                self.assertLessEqual(max(sizes), mob)
        self.assertEqual(runs[64], runs[0])

    def test_ddp_buckets_in_flight(self):
        """torch: DDP's buckets are on the wire together: 2 or more operations outstanding"""
        # Results come 50 ms after the last contribution, as over a WAN: a
        # hook that returned only once its bucket was reduced would leave
        # one operation outstanding at a time.
        fab, gs = fakekernel.groups(2, latency=0.05, window=8)
        try:
            def fn(r, g):
                model = mlp(100 + r)
                dm = gt.ddp(model, g, bucket_cap_mb=0.0005)
                g.reset_inflight_max()     # ddp()'s broadcast is not a bucket
                opt = torch.optim.SGD(dm.parameters(), lr=0.1)
                gen = torch.Generator().manual_seed(r)
                for _ in range(3):
                    x = torch.randn(16, 8, generator=gen)
                    loss = torch.nn.functional.mse_loss(dm(x), x[:, :2].sin())
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                return g.inflight_max, gt.state_digest(model), g.next_seq

            res = run_ranks(gs, fn)
            for x in res:
                self.assertNotIsInstance(x, BaseException, x)
            self.assertEqual(res[0][1:], res[1][1:])
            # the broadcast, 1 bucket in step 1, then DDP's rebuilt ones: 2 a step
            self.assertGreaterEqual(res[0][2] - 1, 1 + 1 + 2 * 2)
            self.assertGreaterEqual(max(x[0] for x in res), 2, res)
        finally:
            close_all(gs)

    def test_hook_failure(self):
        """torch: a failed gsync op surfaces as an exception from backward()"""
        fab, gs = fakekernel.groups(2)
        try:
            model = mlp(1)
            dm = gt.ddp(model, gs[0], sync_states=False)
            fab.kill(1)
            with self.assertRaises(Exception) as cm:
                dm(torch.randn(4, 8)).sum().backward()
            self.assertIn("op_timeout_ms", str(cm.exception))
        finally:
            close_all(gs)


def diloco(g, r, steps, wire=None, every=3):
    """Digests after each OuterSync of a short DiLoCo run on rank r."""
    model = mlp(50 + r)
    outer = gt.OuterSync(model, g, every=every, wire_dtype=wire)
    inner = torch.optim.SGD(model.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(r)
    out = []
    for _ in range(steps):
        loss = model(torch.randn(8, 8, generator=gen)).pow(2).mean()
        inner.zero_grad()
        loss.backward()
        inner.step()
        if outer.step():
            out.append(gt.state_digest(model))
    return out


@unittest.skipIf(torch is None, "torch missing (Debian: python3-torch; run with /usr/bin/python3)")
class TorchDiLoCo(unittest.TestCase):
    def first_steps(self, wire):
        """Two ranks, OuterSync every 3 of 6 inner steps; returns the
        fabric and per rank (digests after each sync, parameters at the
        start, before and after the first sync)."""
        fab, gs = fakekernel.groups(2)
        try:
            def fn(r, g):
                model = mlp(50 + r)
                outer = gt.OuterSync(model, g, every=3, wire_dtype=wire)
                start = [p.detach().clone() for p in model.parameters()]
                inner = torch.optim.SGD(model.parameters(), lr=0.05)
                gen = torch.Generator().manual_seed(r)
                out, before = [], None
                for step in range(1, 7):
                    x = torch.randn(8, 8, generator=gen)
                    loss = model(x).pow(2).mean()
                    inner.zero_grad()
                    loss.backward()
                    inner.step()
                    if step == 3:
                        before = [p.detach().clone() for p in model.parameters()]
                    synced = outer.step()
                    self.assertEqual(synced, step % 3 == 0)
                    if synced:
                        out.append(gt.state_digest(model))
                    if step == 3:
                        after = [p.detach().clone() for p in model.parameters()]
                self.assertEqual(outer.fp16_fallbacks, 0)
                return out, start, before, after

            return fab, run_ranks(gs, fn)
        finally:
            close_all(gs)

    def check_first_step(self, wire, wdt):
        """The first outer step by hand: delta = avg(start - local) as gsync
        computes it on the wire dtype (widened, summed in fp32, divided,
        rounded once); SGD momentum 0.9 nesterov from zero state: update =
        delta + 0.9 * delta. Returns the fabric and how far the result is
        from the float32 wire's."""
        fab, ((d0, s0, b0, a0), (d1, s1, b1, a1)) = self.first_steps(wire)
        self.assertEqual(d0, d1)
        self.assertEqual(len(d0), 2)
        self.assertEqual([torch.equal(x, y) for x, y in zip(s0, s1)], [True] * len(s0))
        off32 = 0.0
        for s, x0, x1, a in zip(s0, b0, b1, a0):
            u, v = s - x0, s - x1
            if wdt is None:
                delta = (u + v) / 2
            else:
                delta = ((u.to(wdt).float() + v.to(wdt).float()) / 2).to(wdt).float()
            want = s - 0.7 * (delta + 0.9 * delta)
            torch.testing.assert_close(a, want, rtol=0, atol=1e-6)
            d32 = (u + v) / 2
            off32 = max(off32, (a - (s - 0.7 * (d32 + 0.9 * d32))).abs().max().item())
        return fab, off32

    def test_outer_sync(self):
        """torch: OuterSync every 3 steps: identical after each sync, Nesterov outer step exact"""
        fab, _ = self.check_first_step(None, None)
        self.assertEqual([d for _, d, _, _ in fab.reduced[1:]], [_abi.DTYPE_FP32] * 2)

    def test_outer_sync_wire(self):
        """torch: OuterSync with bf16 and fp16 on the wire: that dtype sent, identical, exact"""
        for name, wdt, code in (("bf16", torch.bfloat16, _abi.DTYPE_BF16),
                                ("fp16", torch.float16, _abi.DTYPE_FP16)):
            with self.subTest(wire=name):
                fab, off32 = self.check_first_step(name, wdt)
                # op 1 is the broadcast of rank 0's parameters
                self.assertEqual([d for _, d, _, _ in fab.reduced[1:]], [code] * 2)
                self.assertGreater(off32, 1e-6)   # the rounding is visible

    def test_outer_sync_fp16_overflow(self):
        """torch: an fp16 pseudo-gradient out of range is sent again as fp32 by every rank"""
        def run(wire):
            fab, gs = fakekernel.groups(2)
            try:
                def fn(r, g):
                    model = mlp(50 + r)
                    outer = gt.OuterSync(model, g, every=1, wire_dtype=wire)
                    if r == 1:   # its pseudo-gradient there: -1e5, beyond fp16
                        with torch.no_grad():
                            model[0].weight[0, 0] += 1e5
                    outer.step()
                    return (gt.state_digest(model), outer.fp16_fallbacks,
                            all(bool(torch.isfinite(p).all()) for p in model.parameters()))
                return fab, run_ranks(gs, fn)
            finally:
                close_all(gs)

        fab, res = run("fp16")
        _, res32 = run(None)
        self.assertEqual(res[0], res[1])
        self.assertEqual(res[0][1:], (1, True))
        self.assertEqual(res[0][0], res32[0][0])   # the float32 outer step
        self.assertEqual([d for _, d, _, _ in fab.reduced[1:]],
                         [_abi.DTYPE_FP16, _abi.DTYPE_FP32])

    def test_outer_sync_split(self):
        """torch: OuterSync over max_op_bytes sends several operations, with the same result"""
        def run(mob):
            fab, gs = fakekernel.groups(2, max_op_bytes=mob)
            try:
                return fab, run_ranks(gs, lambda r, g: diloco(g, r, 6))
            finally:
                close_all(gs)

        _, whole = run(0)
        fab, split = run(64)
        self.assertEqual(split, whole)
        self.assertEqual(split[0], split[1])
        self.assertLessEqual(max(n for _, _, _, n in fab.reduced), 64)

    def test_args(self):
        """torch: OuterSync refuses every<1 and unknown wire dtypes"""
        fab, gs = fakekernel.groups(2)
        try:
            for kw in (dict(every=0), dict(every=2.0), dict(wire_dtype="fp8"),
                       dict(wire_dtype="float32")):
                with self.assertRaises(ValueError):
                    gt.OuterSync(mlp(1), gs[0], sync_states=False, **kw)
        finally:
            close_all(gs)


if __name__ == "__main__":
    unittest.main()
