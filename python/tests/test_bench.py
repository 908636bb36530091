"""Self-check of the Python benchmark (tests/bench/python-sync, its rank
program bench_sync.py and its table, bench_report.py), which needs a VM
and about an hour and so never runs in make check: the script's options
and estimate (--dry-run), and the rank program run for real on this host,
Gloo over loopback and gsync over the stand-in kernel, its output read by
the report as the script reads it."""
import importlib.util
import os
import re
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(REPO, "tests", "bench", "python-sync")
BENCH = os.path.join(HERE, "bench_sync.py")
REPORT = os.path.join(HERE, "bench_report.py")
TORCH = importlib.util.find_spec("torch") is not None


def script(*args):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO)


def report(d, k, sizes, iters):
    p = subprocess.run([sys.executable, REPORT, d, str(k), sizes, iters], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    head, *rows = p.stdout.splitlines()
    cols = head.split()
    return [dict(zip(cols, r.split())) for r in rows]


class Script(unittest.TestCase):
    def test_syntax_and_help(self):
        """bench: python-sync parses (bash -n) and its --help is the header"""
        p = subprocess.run(["bash", "-n", SCRIPT], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = script("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("python-sync: gradient synchronization time", p.stdout)
        self.assertIn("--dry-run", p.stdout)

    def test_dry_run(self):
        """bench: python-sync --dry-run plans the nine-city and three-island runs without a VM"""
        p = script("--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"9 islands, sizes 4194304,67108864, iterations 5,3: "
                                   r"about \d+ minutes in the VM")
        m = re.search(r"would run: tests/vm/run --timeout (\d+) --mem (\d+) -- "
                      r"tests/bench/python-sync --guest (.*)", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        guest = m.group(3).split()
        self.assertEqual(guest, ["topologies/nine-city-private.json", "0", "50",
                                 "4194304,67108864", "5,3", "1", "1", "0"])
        # the guest reads as many arguments as the host passes
        with open(SCRIPT) as f:
            line = next(ln for ln in f if ln.startswith("topology=$1 "))
        self.assertEqual(len(re.findall(r"=\$\d", line)), len(guest), line)
        p = script("--dry-run", "--islands3", "--sizes", "64k,1M", "--iters", "2", "--no-c")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--guest none 10 100 65536,1048576 2,2 1 0 0", p.stdout)
        p = script("--dry-run", "--bucket-mib", "25")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4194304,67108864 5,3 1 1 26214400", p.stdout)

    def test_bad_options(self):
        """bench: python-sync refuses bad sizes, iterations and options with exit 2"""
        for args in (["--sizes", "3"], ["--sizes", "4x"], ["--iters", "0"], ["--bogus"],
                     ["--bucket-mib", "2.5"],
                     ["--topology", "topologies/four-line.json", "--delay-ms", "5"]):
            p = script("--dry-run", *args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))


class RankProgram(unittest.TestCase):
    def test_help_and_args(self):
        """bench: bench_sync.py --help, and its argument errors exit 2"""
        p = subprocess.run([sys.executable, BENCH, "--help"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--backends", p.stdout)
        base = ["--rank", "0", "--members", "a", "--mcast", "b", "--gloo", "c"]
        for extra in (["--sizes", "6"], ["--iters", "1,2"], ["--backends", "nccl"],
                      ["--schedule", "x"], ["--backends", "gsync_sched"],
                      ["--bucket-bytes", "6"], ["--window", "0"]):
            p = subprocess.run([sys.executable, BENCH, *base, *extra], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 2, (extra, p.stderr))

    @unittest.skipUnless(TORCH, "torch missing (Debian: python3-torch; run with /usr/bin/python3)")
    def test_runs_and_reports(self):
        """bench: bench_sync.py, whole and in buckets, times Gloo and gsync here; the report reads it"""
        # One process, so torch is imported once. For each mode (one
        # operation; 16 KiB buckets, so 65536 bytes go as 4 at once): Gloo
        # with a group of this process alone (gsync cannot start with one
        # member and says so), then gsync and gsync_sched for two ranks in
        # threads over the stand-in kernel, results 10 ms after the last
        # contribution.
        ports = []
        for _ in range(2):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                ports.append(s.getsockname()[1])
        code = f"""
import os, sys, threading
sys.path[:0] = [{HERE!r}, {os.path.join(HERE, "..")!r}]
import fakekernel, gsync, bench_sync
from gsync.schedule import build_blob
real, fabs, made = gsync.Group, {{}}, []
def group(rank, members, mcast=None, **kw):
    fab = fabs.setdefault(members, fakekernel.Fabric(2, latency=0.01))
    made.append((members, real(rank, fakekernel.MEMBERS[:2], unicast=True, sock=fab.sock(),
                               window=kw["window"], max_op_bytes=kw["max_op_bytes"])))
    return made[-1][1]
blob = build_blob(2, [[{{"members": [0, 1], "pattern": "unicast"}}]])
open("s.blob", "wb").write(blob)
sizes = ["--sizes", "4096,65536", "--iters", "2"]
for mode, port, extra in (("flat", {ports[0]}, []),
                          ("bucket", {ports[1]}, ["--bucket-bytes", "16384", "--window", "4"])):
    sys.stdout = open(mode + ".gloo", "w")
    bench_sync.main(["--rank", "0", "--members", "127.0.0.1:7000", "--mcast", "239.1.1.1:7100",
                     "--gloo", f"127.0.0.1:{{port}}", "--backends", "gloo,gsync",
                     "--timeout-s", "60"] + sizes + extra)
    sys.stdout.close()
    sys.stdout = open(mode + ".gsync", "w")
    gsync.Group = group
    def rank(r):
        bench_sync.main(["--rank", str(r), "--members", mode + "0,1", "--mcast", "g0",
                         "--sched-members", mode + "s0,1", "--sched-mcast", "g1", "--gloo", "-",
                         "--backends", "gsync,gsync_sched", "--schedule", "4096=s.blob",
                         "--schedule", "65536=s.blob"] + sizes + extra)
    ts = [threading.Thread(target=rank, args=(r,)) for r in range(2)]
    for t in ts: t.start()
    for t in ts: t.join(120)
    gsync.Group = real
    sys.stdout.close()
    sys.stdout = sys.__stdout__
    # per backend: 2 iterations of 2 sizes, each a barrier and the
    # operation (65536 bytes in buckets: 4 operations)
    want = 8 if mode == "flat" else 2 * (1 + 1) + 2 * (1 + 4)
    got = [len(fabs[mode + m].reduced) for m in ("0,1", "s0,1")]
    assert got == [want, want], (mode, got)
    # the schedule was loaded at the group's next sequence number
    sch = fabs[mode + "s0,1"].socks[0].schedule
    assert sch[:8] + sch[16:] == blob[:8] + blob[16:] and sch[8:16] != blob[8:16], sch
    inflight = max(g.inflight_max for m, g in made if m.startswith(mode))
    print(mode, "inflight_max", inflight)
    assert inflight == 1 if mode == "flat" else inflight >= 2, (mode, inflight)
"""
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               timeout=300, cwd=d, env=dict(os.environ, GLOO_SOCKET_IFNAME="lo"))
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            for mode in ("flat", "bucket"):
                with self.subTest(mode=mode):
                    self.check_report(d, mode)

    def check_report(self, d, mode):
        with open(os.path.join(d, mode + ".gloo")) as f:
            gloo = f.read()
        with open(os.path.join(d, mode + ".gsync")) as f:
            gs = f.read()
        self.assertRegex(gloo, r"backend=gsync bytes=65536 error=setup: ")
        if mode == "bucket":
            for text, b in ((gloo, "gloo"), (gs, "gsync"), (gs, "gsync_sched")):
                self.assertRegex(text, rf"backend={b} bytes=65536 iters=2 median_ms=\S+ "
                                       rf"min_ms=\S+ buckets=4")
        # as the script names them: py1.RANK, every backend of a rank (the
        # one Gloo rank stands for both)
        rd = os.path.join(d, "report." + mode)
        os.mkdir(rd)
        for r in range(2):
            with open(os.path.join(rd, f"py1.{r}"), "w") as f:
                f.write(gloo.replace("rank=0 ", f"rank={r} "))
                f.writelines(ln + "\n" for ln in gs.splitlines() if f"rank={r} " in ln)
        rows = report(rd, 2, "4096,65536", "2,2")
        self.assertEqual([r["bytes"] for r in rows], ["4096", "65536"])
        for row in rows:
            for col in ("gloo_ssai1_ms", "gsync_py_ms", "gsync_py_sched_ms", "bestgloo/py",
                        "bestgloo/sched"):
                self.assertRegex(row[col], r"^\d+\.\d+$", (col, row))
            for col in ("gloo_ssai0_ms", "gsync_c_ms", "py/c"):
                self.assertEqual(row[col], "-", (col, row))


if __name__ == "__main__":
    unittest.main()
