"""Schedules written by the real gsync-sched (userspace/sched): the JSON
of `optimize -o` and the blobs of `export`, loaded through the package's
parsing path (compile_schedule, Group.load_schedule over the stand-in
socket). Python's conversion of the JSON must give the exporter's blob
byte for byte (without rates, which Python does not compute; with clique
groups, which export sets by default and Python on request), and both
must refuse the same schedules. The tool is built by make check's host
stage before these tests; run alone, they build it, or skip saying why."""
import json
import os
import subprocess
import tempfile
import unittest

import fakekernel
from gsync.schedule import compile_schedule, parse_blob

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHED_DIR = os.path.join(REPO, "userspace", "sched")
TOOL = os.path.join(SCHED_DIR, "gsync-sched")
TOPOS = os.path.join(REPO, "topologies")

# (topology, --size, optimize options): between them one multicast clique
# of nine, a two-round mix of rs_multicast, unicast and aggregator, an
# rs_multicast clique where the topology has no multicast, and a unicast
# grid.
CASES = [
    ("nine-city-private", 4194304, []),
    ("nine-city-private", 268435456, ["--multicast", "none"]),
    ("six-two-regions", 4194304, []),
    ("four-line", 65536, ["--multicast", "none"]),
    # an aggregator (NYC's rank): the two-round grids that had one no
    # longer win since the model costs rounds on the links they share
    ("nine-city-private", 16777216, ["--access-gbps", "100"]),
]

_why_not = None


def tool():
    """The gsync-sched binary of this tree, built if missing; skips the
    test with the reason if it cannot be built."""
    global _why_not
    if not os.access(TOOL, os.X_OK) and _why_not is None:
        try:
            p = subprocess.run(["make", "-s", "-C", SCHED_DIR, "gsync-sched"],
                               capture_output=True, text=True, timeout=900)
            out, rc = p.stdout + p.stderr, p.returncode
        except (OSError, subprocess.TimeoutExpired) as e:
            out, rc = str(e), 1
        if rc or not os.access(TOOL, os.X_OK):
            tail = " ".join(out.strip().splitlines()[-3:])
            _why_not = ("userspace/sched/gsync-sched is not built and 'make -C userspace/sched "
                        f"gsync-sched' failed: {tail}")
    if _why_not:
        raise unittest.SkipTest(_why_not)
    return TOOL


def run(*args):
    return subprocess.run([tool(), *args], capture_output=True, text=True, timeout=120)


class RealSchedules(unittest.TestCase):
    def setUp(self):
        tool()   # or skip, saying why
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def optimize(self, topo, size, opts):
        topo_path = os.path.join(TOPOS, topo + ".json")
        out = self.path(f"{topo}.{size}.json")
        p = run("optimize", topo_path, "--kernel", "--size", str(size), *opts, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        return topo_path, out

    def export(self, sched, topo_path, *opts):
        """The blob export writes, or None if it refused (stderr kept)."""
        out = self.path("x.gsched")
        if os.path.exists(out):
            os.unlink(out)
        p = run("export", sched, topo_path, *opts, "-o", out)
        self.last_err = p.stderr
        if p.returncode:
            return None
        with open(out, "rb") as f:
            return f.read()

    def test_json_converts_like_export(self):
        """sched tool: JSON from gsync-sched optimize converts to export's blob, byte for byte"""
        seen = set()
        for topo, size, opts in CASES:
            topo_path, sched = self.optimize(topo, size, opts)
            with open(sched) as f:
                seen.update(c["pattern"] for r in json.load(f)["rounds"] for c in r["cliques"])
            for unicast in (False, True):
                with self.subTest(topology=topo, size=size, unicast=unicast):
                    nomc = ["--no-multicast"] if unicast else []
                    want = self.export(sched, topo_path, "--no-rates", *nomc)
                    if want is None:     # refused: Python must refuse it too
                        with self.assertRaises(ValueError, msg=self.last_err):
                            compile_schedule(sched, topology=topo_path, unicast=unicast)
                        continue
                    # export's default: clique groups from the group's address
                    got = compile_schedule(sched, topology=topo_path, unicast=unicast,
                                           clique_groups=True)
                    self.assertEqual(parse_blob(got), parse_blob(want))
                    self.assertEqual(got, want)
                    self.assertEqual(parse_blob(got)["flags"], 1)
                    # Python's default: none, as export --no-clique-groups
                    want = self.export(sched, topo_path, "--no-rates", "--no-clique-groups",
                                       *nomc)
                    self.assertEqual(compile_schedule(sched, topology=topo_path,
                                                      unicast=unicast), want)
                    # and an explicit base
                    want = self.export(sched, topo_path, "--no-rates", "--group-base",
                                       "ff15::79:0", *nomc)
                    self.assertEqual(compile_schedule(sched, topology=topo_path, unicast=unicast,
                                                      clique_groups=True,
                                                      group_base="ff15::79:0"), want)
        # the cases cover every pattern the kernel runs
        self.assertLessEqual({"multicast", "unicast", "rs_multicast", "aggregator"}, seen)

    def test_blobs_load_unchanged(self):
        """sched tool: export's blobs (with rates) load unchanged through Group.load_schedule"""
        for topo, size, opts in CASES:
            with self.subTest(topology=topo, size=size):
                topo_path, sched = self.optimize(topo, size, opts)
                blob = self.export(sched, topo_path)
                self.assertIsNotNone(blob, self.last_err)
                bare = self.export(sched, topo_path, "--no-rates")
                info, info0 = parse_blob(blob), parse_blob(bare)
                for rnd in info["rounds"] + info0["rounds"]:
                    for c in rnd:
                        c.pop("rate_kbit")
                self.assertEqual(info, info0)   # rates are all that differs
                path = self.path("rates.gsched")
                with open(path, "wb") as f:
                    f.write(blob)
                n = info["nranks"]
                fab, gs = fakekernel.groups(n)
                try:
                    g = gs[0]
                    self.assertEqual(g.load_schedule(path), blob)
                    self.assertEqual(g._sock.schedule, blob)
                    self.assertEqual(g.schedule(), blob)
                    moved = g.load_schedule(blob, start_seq=7)
                    self.assertEqual(parse_blob(moved)["start_seq"], 7)
                    self.assertEqual(moved[:8] + moved[16:], blob[:8] + blob[16:])
                    g.load_schedule(None)
                    self.assertEqual(g._sock.schedule, b"")
                finally:
                    fakekernel_close(gs)
                fab, gs = fakekernel.groups(3)
                try:
                    with self.assertRaisesRegex(ValueError, f"schedule for {n} ranks, the group has 3"):
                        gs[0].load_schedule(path)
                finally:
                    fakekernel_close(gs)

    def test_json_loads_into_unicast_group(self):
        """sched tool: a unicast Group loading optimize's JSON sends export --no-multicast's blob"""
        topo_path, sched = self.optimize("nine-city-private", 268435456, ["--multicast", "none"])
        want = self.export(sched, topo_path, "--no-rates", "--no-multicast", "--no-clique-groups")
        self.assertIsNotNone(want, self.last_err)
        cg = self.export(sched, topo_path, "--no-rates", "--no-multicast")
        fab, gs = fakekernel.groups(9)       # unicast groups
        try:
            self.assertEqual(gs[4].load_schedule(sched, topology=topo_path), want)
            self.assertEqual(gs[4]._sock.schedule, want)
            # export's default sets clique groups, which a unicast group ignores
            self.assertEqual(gs[4].load_schedule(sched, topology=topo_path, clique_groups=True),
                             cg)
            self.assertEqual(gs[4].load_schedule(cg), cg)
        finally:
            fakekernel_close(gs)


def fakekernel_close(gs):
    for g in gs:
        g.close(wait=False)


if __name__ == "__main__":
    unittest.main()
