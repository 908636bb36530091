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
        self.assertIn("--hand-pace", p.stdout)

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
                                 "4194304,67108864", "5,3", "1", "1", "0", "auto", "0", "0"])
        # the guest reads as many arguments as the host passes
        with open(SCRIPT) as f:
            line = next(ln for ln in f if ln.startswith("topology=$1 "))
        self.assertEqual(len(re.findall(r"=\$\{?\d+", line)), len(guest), line)
        p = script("--dry-run", "--islands3", "--sizes", "64k,1M", "--iters", "2", "--no-c")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--guest none 10 100 65536,1048576 2,2 1 0 0 auto 0 0", p.stdout)
        p = script("--dry-run", "--sched-chunk", "262144", "--apart")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4194304,67108864 5,3 1 1 0 auto 262144 1\n", p.stdout)
        p = script("--dry-run", "--bucket-mib", "25")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4194304,67108864 5,3 1 1 26214400 auto 0 0", p.stdout)

    def test_pacing(self):
        """bench: python-sync sets no pacing and plans as a user does; --hand-pace as before"""
        minutes = {}
        for mode, args in (("auto", []), ("hand", ["--hand-pace"])):
            with self.subTest(mode=mode):
                p = script("--dry-run", *args)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertRegex(p.stdout, rf"--guest \S+ 0 50 4194304,67108864 5,3 1 1 0 {mode} 0 0\n")
                minutes[mode] = int(re.search(r"about (\d+) minutes", p.stdout).group(1))
                pacing = re.search(r"^python-sync: pacing: (.*)$", p.stdout, re.M)
                plan = re.search(r"^python-sync: the optimizer's schedules: gsync-sched optimize "
                                 r"TOPOLOGY --size SIZE (.*), then gsync-sched export SCHEDULE "
                                 r"TOPOLOGY(.*)$", p.stdout, re.M)
                self.assertIsNotNone(pacing, p.stdout)
                self.assertIsNotNone(plan, p.stdout)
                opt, exp = plan.group(1).split(), plan.group(2).split()
                self.assertIn("--kernel", opt)
                self.assertEqual(opt[opt.index("--access-gbps") + 1], "0.05")
                if mode == "auto":
                    # the adaptive rate everywhere; the optimizer's
                    # schedule with multicast, its rates from the links
                    # as emulated, export's clique groups left on
                    self.assertIn("none set (the default)", pacing.group(1))
                    self.assertIn("gsync_py and gsync_c at the adaptive rate", pacing.group(1))
                    self.assertNotIn("B/s", pacing.group(1))
                    self.assertNotIn("--multicast", opt)
                    self.assertEqual(exp, ["--access-gbps", "0.05"])
                else:
                    # 50 Mbit/s: 90% / (9 - 1) and 90%, as before
                    self.assertIn("by hand (--hand-pace)", pacing.group(1))
                    self.assertIn("gsync_c at 703125 B/s", pacing.group(1))
                    self.assertIn("gsync_py_sched at 5625000 B/s", pacing.group(1))
                    self.assertEqual(opt[opt.index("--multicast") + 1], "none")
                    self.assertEqual(exp, ["--no-multicast"])
        # hand-set pacing runs a multicast clique at 90% of its bound's rate
        self.assertGreater(minutes["hand"], minutes["auto"])
        # the guest hands rates out (bench_sync.py's --rate and --sched-rate,
        # the C program's --pacing-rate) only under --hand-pace
        with open(SCRIPT) as f:
            text = f.read()
        guest = text[text.index("# In the guest:"):]
        hand = re.search(r'\nif \[ "\$pacing" = hand \]; then\n(.*?)\nfi\n', guest, re.S)
        self.assertIsNotNone(hand)
        for opt in ('--rate "', '--sched-rate "', '--pacing-rate "'):
            self.assertIn(opt, hand.group(1))
            self.assertNotIn(opt, guest.replace(hand.group(1), ""))
        for cmd in ("optimize", "export", "simulate"):
            self.assertRegex(guest, rf'"\$gsched" {cmd} .*"\$\{{(opt|exp|sim)_o\[@\]\}}"')

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
        # operation, no pacing rate given, as python-sync runs it by
        # default; 16 KiB buckets, so 65536 bytes go as 4 at once, with the
        # rates python-sync --hand-pace gives): Gloo with a group of this
        # process alone (gsync cannot start with one member and says so),
        # then gsync and gsync_sched for two ranks in threads over the
        # stand-in kernel, results 10 ms after the last contribution.
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
                               window=kw["window"], max_op_bytes=kw["max_op_bytes"],
                               pacing_rate=kw["pacing_rate"])))
    return made[-1][1]
blob = build_blob(2, [[{{"members": [0, 1], "pattern": "unicast"}}]])
open("s.blob", "wb").write(blob)
sizes = ["--sizes", "4096,65536", "--iters", "2"]
for mode, port, extra in (("flat", {ports[0]}, []),
                          ("bucket", {ports[1]}, ["--bucket-bytes", "16384", "--window", "4",
                                                  "--rate", "703125", "--sched-rate", "5625000"])):
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
    # the pacing_rate each group's ranks joined with (GSYNC_JOIN's field,
    # the 15th the stand-in unpacks): none set unless given
    want = {{"flat": {{"0,1": 0, "s0,1": 0}}, "bucket": {{"0,1": 703125, "s0,1": 5625000}}}}[mode]
    got = {{m: sorted({{s.join[14] for s in fabs[mode + m].socks.values()}}) for m in want}}
    assert got == {{m: [r] for m, r in want.items()}}, (mode, got)
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
        self.assertNotRegex(gloo, r"backend=gloo .*pacing_rate=")
        # gsync's lines say what rate the group runs at (GSYNC_INFO's
        # pacing_rate, which the stand-in reports only when set after the
        # JOIN: 0 here) and what the size's operations cost in repairs and
        # rate decreases
        for b in ("gsync", "gsync_sched"):
            for size in (4096, 65536):
                self.assertRegex(gs, rf"bench rank=0 backend={b} bytes={size} iters=2 .*"
                                     rf"pacing_rate=0 send_rate=\d+ retransmits=0 "
                                     rf"drop_clique=0 rate_decreases=0 "
                                     rf"rate_loss_decreases=0\n")
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
        # --apart: gsync alone in py1.RANK, Gloo's run with slow start
        # after idle on in py1g.RANK; the same figures come out
        ad = os.path.join(d, "apart." + mode)
        os.mkdir(ad)
        for r in range(2):
            with open(os.path.join(ad, f"py1g.{r}"), "w") as f:
                f.write(gloo.replace("rank=0 ", f"rank={r} "))
            with open(os.path.join(ad, f"py1.{r}"), "w") as f:
                f.writelines(ln + "\n" for ln in gs.splitlines() if f"rank={r} " in ln)
        self.assertEqual(report(ad, 2, "4096,65536", "2,2"), rows)


if __name__ == "__main__":
    unittest.main()
