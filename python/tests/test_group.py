import errno
import struct
import threading
import unittest

import gsync
from gsync import _abi
from gsync.schedule import build_blob

import fakekernel
from fakekernel import gsync_py

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None


def run_ranks(gs, fn):
    """fn(rank, group) on every group in its own thread; returns the
    results (or exceptions) in rank order."""
    out = [None] * len(gs)

    def body(r):
        try:
            out[r] = fn(r, gs[r])
        except BaseException as e:  # noqa: BLE001 (reported to the test)
            out[r] = e

    ts = [threading.Thread(target=body, args=(r,)) for r in range(len(gs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
        assert not t.is_alive(), "a rank hung"
    return out


def close_all(gs):
    for g in gs:
        g.close(wait=False)


class GroupOps(unittest.TestCase):
    def test_every_dtype_op_exact(self):
        """Group (fake kernel): every dtype x op over 3 ranks equals the reference bits"""
        fab, gs = fakekernel.groups(3)
        try:
            cases = [(d, o) for d in range(4) for o in range(4)]

            def fn(r, g):
                res = []
                for seq, (d, o) in enumerate(cases, 1):
                    buf = bytearray(gsync_py.make_buffer(7, seq, r, d, 33, True))
                    self.assertIs(g.all_reduce_(buf, _abi.OP_NAMES[o], _abi.DTYPE_NAMES[d]), buf)
                    res.append(bytes(buf))
                return res

            got = run_ranks(gs, fn)
            for seq, (d, o) in enumerate(cases, 1):
                want = gsync_py.reference([gsync_py.make_buffer(7, seq, r, d, 33, True)
                                           for r in range(3)], d, o)
                for r in range(3):
                    self.assertEqual(got[r][seq - 1], want, (d, o, r))
            self.assertEqual([x[:3] for x in fab.reduced], [(s, d, o) for s, (d, o)
                                                            in enumerate(cases, 1)])
            self.assertEqual(gs[0].next_seq, len(cases) + 1)
        finally:
            close_all(gs)

    @unittest.skipIf(np is None, "numpy missing")
    def test_numpy_in_place(self):
        """Group (fake kernel): numpy arrays are reduced in place, dtype from the array"""
        fab, gs = fakekernel.groups(2)
        try:
            arrs = [np.arange(10, dtype=np.float32) * (r + 1) for r in range(2)]
            run_ranks(gs, lambda r, g: g.all_reduce_(arrs[r], "sum"))
            for a in arrs:
                np.testing.assert_array_equal(a, np.arange(10, dtype=np.float32) * 3)
            self.assertEqual(fab.reduced[0][1:], (_abi.DTYPE_FP32, _abi.OP_SUM, 40))
        finally:
            close_all(gs)

    def test_async_many_in_flight(self):
        """Group (fake kernel): 40 async ops through a window of 4, results in order"""
        fab, gs = fakekernel.groups(3, window=4)
        try:
            def fn(r, g):
                bufs = [bytearray(struct.pack("<4i", i, r, i * r, 1)) for i in range(40)]
                futs = [g.all_reduce_async(b, "sum", "int32") for b in bufs]
                self.assertEqual([f.seq for f in futs], list(range(1, 41)))
                return [f.result(30) for f in futs], bufs

            for r, (res, bufs) in enumerate(run_ranks(gs, fn)):
                for i, (x, b) in enumerate(zip(res, bufs)):
                    self.assertIs(x, b)
                    self.assertEqual(struct.unpack("<4i", b), (3 * i, 3, 3 * i, 3))
            self.assertEqual(len(fab.reduced), 40)
        finally:
            close_all(gs)

    def test_inflight_max(self):
        """Group (fake kernel): inflight_max is the most operations outstanding at once"""
        fab, gs = fakekernel.groups(2, window=8)
        try:
            fab.hold.update({1, 2, 3})
            futs = run_ranks(gs, lambda r, g: [g.all_reduce_async(bytearray(4), "sum", "int32")
                                               for _ in range(3)])
            self.assertEqual([g.inflight_max for g in gs], [3, 3])
            for seq in (1, 2, 3):
                fab.release(seq)
            for fs in futs:
                for f in fs:
                    f.result(30)
            self.assertEqual(gs[0].reset_inflight_max(), 3)
            self.assertEqual(gs[0].inflight_max, 0)
            run_ranks(gs, lambda r, g: [g.all_reduce_(bytearray(4), "sum", "int32")
                                        for _ in range(3)])
            self.assertEqual(gs[0].inflight_max, 1)   # one at a time
            self.assertEqual(gs[1].inflight_max, 3)   # never reset
        finally:
            close_all(gs)

    def test_window_blocks_submission(self):
        """Group (fake kernel): a full window blocks the submitter until results drain"""
        fab, gs = fakekernel.groups(2, window=2)
        try:
            fab.hold.update({1, 2})
            subs = []

            def fn(r, g):
                fs = [g.all_reduce_async(bytearray(4), "sum", "int32") for _ in range(2)]
                subs.append(r)
                fs.append(g.all_reduce_async(bytearray(4), "sum", "int32"))  # blocks
                subs.append(("third", r))
                return [f.result(30) for f in fs]

            t = threading.Thread(target=run_ranks, args=(gs, fn))
            t.start()
            while len(subs) < 2:
                t.join(0.01)
            self.assertEqual(gs[0].info()["inflight"], 2)
            self.assertFalse(any(isinstance(s, tuple) for s in subs))
            fab.release(1)
            fab.release(2)
            t.join(30)
            self.assertFalse(t.is_alive())
            self.assertEqual(sorted(s[1] for s in subs if isinstance(s, tuple)), [0, 1])
        finally:
            close_all(gs)

    def test_timeout_error(self):
        """Group (fake kernel): a dead rank fails the op with GsyncTimeout carrying errno and seq"""
        fab, gs = fakekernel.groups(3)
        try:
            run_ranks(gs, lambda r, g: g.all_reduce_(bytearray(8), "sum", "fp32"))
            fab.kill(2)
            res = run_ranks(gs[:2], lambda r, g: g.all_reduce_(bytearray(8), "sum", "fp32"))
            for e in res:
                self.assertIsInstance(e, gsync.GsyncTimeout)
                self.assertIsInstance(e, TimeoutError)
                self.assertEqual((e.errno, e.seq), (errno.ETIMEDOUT, 2))
            # the group stays usable for the next op (which fails the same way)
            f = gs[0].all_reduce_async(bytearray(4), "max", "int32")
            g1 = gs[1].all_reduce_async(bytearray(4), "max", "int32")
            self.assertEqual(f.exception(10).seq, 3)
            self.assertIsInstance(g1.exception(10), gsync.GsyncTimeout)
        finally:
            close_all(gs)

    def test_mismatch_error(self):
        """Group (fake kernel): ranks disagreeing on length fail with GsyncMismatch (EPROTO)"""
        fab, gs = fakekernel.groups(2)
        try:
            res = run_ranks(gs, lambda r, g: g.all_reduce_(bytearray(8 + 4 * r), "sum", "fp32"))
            for e in res:
                self.assertIsInstance(e, gsync.GsyncMismatch)
                self.assertEqual((e.errno, e.seq), (errno.EPROTO, 1))
        finally:
            close_all(gs)

    def test_refused_submission(self):
        """Group: a buffer over max_op_bytes is refused before the kernel, seq not consumed"""
        fab, gs = fakekernel.groups(2, max_op_bytes=16)
        try:
            with self.assertRaises(gsync.GsyncError) as cm:
                gs[0].all_reduce_async(bytearray(20), "sum", "fp32")
            self.assertEqual(cm.exception.errno, errno.EMSGSIZE)
            self.assertEqual(gs[0].next_seq, 1)
            with self.assertRaises(ValueError):
                gs[0].all_reduce_async(bytearray(16), "prod", "fp32")
            self.assertEqual(gs[0].next_seq, 1)
        finally:
            close_all(gs)

    def test_close(self):
        """Group: close(wait=False) fails ops in flight with GsyncClosed; later calls refused"""
        fab, gs = fakekernel.groups(2)
        fab.hold.add(1)
        f = gs[0].all_reduce_async(bytearray(4), "sum", "int32")
        gs[0].close(wait=False)
        e = f.exception(10)
        self.assertIsInstance(e, gsync.GsyncClosed)
        self.assertEqual(e.seq, 1)
        with self.assertRaises(gsync.GsyncClosed):
            gs[0].all_reduce_(bytearray(4), "sum", "int32")
        self.assertTrue(gs[0].closed)
        gs[0].close()  # idempotent
        gs[1].close(wait=False)

    def test_context_manager_waits(self):
        """Group: leaving the with block waits for ops in flight"""
        fab, gs = fakekernel.groups(2)
        futs = []

        def fn(r, g):
            with g:
                futs.append(g.all_reduce_async(bytearray(struct.pack("<i", r + 1)), "sum", "int32"))
            return g.closed

        self.assertEqual(run_ranks(gs, fn), [True, True])
        self.assertTrue(all(struct.unpack("<i", f.result(0))[0] == 3 for f in futs))

    def test_broadcast(self):
        """Group: broadcast_ copies root's bits exactly (NaN payload, -0.0, odd length)"""
        fab, gs = fakekernel.groups(3)
        try:
            src = struct.pack("<3I", 0x7FC12345, 0x80000000, 0xFFFFFFFF) + b"\x05\x06\x07"
            bufs = [bytearray(src) if r == 1 else bytearray(b"\xaa" * len(src)) for r in range(3)]
            run_ranks(gs, lambda r, g: g.broadcast_(bufs[r], root=1))
            for b in bufs:
                self.assertEqual(bytes(b), src)
            with self.assertRaises(ValueError):
                gs[0].broadcast_(bytearray(4), root=3)
        finally:
            close_all(gs)

    def test_stats_info(self):
        """Group: stats() and info() decode GSYNC_STATS / GSYNC_INFO"""
        fab, gs = fakekernel.groups(2, window=8)
        try:
            run_ranks(gs, lambda r, g: g.all_reduce_(bytearray(4), "sum", "int32"))
            st = gs[0].stats()
            self.assertEqual(len(st), len(_abi.STATS_FIELDS) + len(_abi.DROP_NAMES) +
                             len(_abi.STATS_LATE))
            self.assertEqual((st["ops_submitted"], st["ops_completed"], st["drop_clique"]), (1, 1, 0))
            # the rate control's counters after drops[], then drops_ext[]
            # (the keyed groups' reasons), each at its offset
            late = len(_abi.STATS_FIELDS) + _abi.DROP_BASE
            gs[0]._sock.stats[late:] = [41, 37, 3, 2, 6, 5, 4]
            gs[0]._sock.stats[late - 1] = 9
            st = gs[0].stats()
            self.assertEqual([st[k] for k in ("reports_sent", "reports_received", "rate_decreases",
                                              "rate_loss_decreases")], [41, 37, 3, 2])
            self.assertEqual([st[k] for k in ("drop_ratelimit", "drop_auth", "drop_replay",
                                              "drop_epoch")], [9, 6, 5, 4])
            self.assertEqual(_abi.STATS_SIZE, 280)
            # an older module's shorter struct: what it lacks is 0
            for size, want in ((256, [41, 37, 3, 2, 0, 0, 0]), (248, [41, 37, 3, 0, 0, 0, 0]),
                               (224, [0, 0, 0, 0, 0, 0, 0])):
                with self.subTest(struct_bytes=size):
                    gs[0]._sock.stats_size = size
                    st = gs[0].stats()
                    self.assertEqual(len(st), len(_abi.STATS_FIELDS) + len(_abi.DROP_NAMES) +
                                     len(_abi.STATS_LATE))
                    self.assertEqual([st[k] for k in _abi.STATS_LATE] +
                                     [st["drop_" + k] for k in _abi.DROP_EXT_NAMES], want)
                    self.assertEqual(st["ops_completed"], 1)
            gs[0]._sock.stats_size = None
            inf = gs[0].info()
            self.assertEqual((inf["nranks"], inf["window"], inf["next_seq"]), (2, 8, 2))
            self.assertEqual((inf["key_mode"], inf["key_epoch"], inf["key_fingerprint"],
                              inf["key_next_epoch"]), (0, 0, 0, 0))
            self.assertNotIn("reserved0", inf)
            self.assertEqual(gs[0].key_mode, "none")
            gs[0]._sock.info_size = 72      # a module without keyed groups
            inf = gs[0].info()
            self.assertEqual((inf["next_seq"], inf["key_mode"]), (2, 0))
            gs[0].pacing_rate = 1000
            self.assertEqual(gs[0].pacing_rate, 1000)
            with self.assertRaises(ValueError):
                gs[0].pacing_rate = -1
        finally:
            close_all(gs)

    def test_schedule_load(self):
        """Group: load_schedule passes a blob (start_seq overridden) and None clears"""
        fab, gs = fakekernel.groups(3)
        try:
            blob = build_blob(3, [[{"members": [0, 1, 2], "pattern": "unicast"}]], 4096)
            got = gs[0].load_schedule(blob, start_seq=5)
            self.assertEqual(struct.unpack_from("=Q", got, 8)[0], 5)
            self.assertEqual(gs[0].schedule(), got)
            gs[0].load_schedule(None)
            self.assertEqual(gs[0].schedule(), b"")
            with self.assertRaisesRegex(ValueError, "multicast in a unicast group"):
                gs[0].load_schedule({"rounds": [{"cliques": [{"members": [0, 1, 2],
                                                              "pattern": "multicast"}]}]})
        finally:
            close_all(gs)

    def test_getsockopt_big(self):
        """Group: options over Python's 1024-byte getsockopt limit are read through libc"""
        import socket
        from gsync.group import _getsockopt_big
        with socket.socket() as s:
            want = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
            got = _getsockopt_big(s.fileno(), socket.SOL_SOCKET, socket.SO_RCVBUF)
            self.assertEqual(struct.unpack("=i", got)[0], want)
            with self.assertRaises(OSError):
                _getsockopt_big(s.fileno(), 299, 6)  # not a gsync socket

    def test_from_env(self):
        """Group.from_env builds the group of the environment"""
        fab = fakekernel.Fabric(2)
        env = {"GSYNC_RANK": "1", "GSYNC_MEMBERS": ",".join(fakekernel.MEMBERS[:2]),
               "GSYNC_MCAST": "239.1.1.1:7100", "GSYNC_WINDOW": "6"}
        g = gsync.Group.from_env(env, sock=fab.sock())
        self.assertEqual((g.rank, g.size, g.config.window, g.config.unicast), (1, 2, 6, False))
        self.assertIn("rank 1/2", repr(g))
        g.close()
        g = gsync.Group.from_env(env, sock=fab.sock(), unicast=True)
        self.assertTrue(g.config.unicast)
        g.close()


if __name__ == "__main__":
    unittest.main()
