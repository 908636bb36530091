"""vm_train_check.py, the judge of the VM's training test
(tests/netns/t-python-torch.sh), on made-up outputs of vm_train.py: it
must pass a good run and fail each fault it is there to catch. The VM
test itself cannot run on the host."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "vm_train_check.py")
N, STEPS = 3, 30


def good_run():
    """{rank: [records]} of a run that passes every check (modes gsync,
    gloo, diloco, lossy)."""
    runs = {}
    for r in range(N):
        recs = []
        for mode in ("gsync", "gloo", "lossy"):
            for i in range(STEPS):
                rec = {"mode": mode, "step": i, "loss": 1.0 / (i + 1), "ms": 5.0}
                if mode != "gloo":
                    rec["digest"] = f"d{i}"
                    rec["ops"] = 1 + 3 * (i + 1)
                recs.append(rec)
            summ = {"mode": mode, "eval0": 1.0, "eval": 0.1}
            if mode != "gloo":
                summ["stats"] = {"ops_failed": 0, "tx_bytes": 1000, "retransmits": 5,
                                 "nacks_sent": 3, "drop_stale": 1}
                summ["op_timeout_ms"] = 20000
                summ["op_ms"] = {"n": 91, "median": 10.0, "p90": 20.0, "max": 300.0,
                                 "over_1s": 0}
                summ["inflight_max"] = 3
            recs.append(summ)
        for i in range(40):
            rec = {"mode": "diloco", "step": i, "loss": 0.5, "synced": i % 5 == 4}
            if rec["synced"]:
                rec["digest"] = f"o{i}"
                rec["eval"] = 0.5 / (i + 1)
            recs.append(rec)
        recs.append({"mode": "diloco", "eval0": 1.0, "eval": 0.05, "syncs": 8, "stats": {}})
        runs[r] = recs
    return runs


def judge(runs):
    with tempfile.TemporaryDirectory() as d:
        for r, recs in runs.items():
            with open(os.path.join(d, f"train-{r}.jsonl"), "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in recs)
        p = subprocess.run([sys.executable, CHECK, d, str(N), "--lossy"],
                           capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def summary(runs, r, mode):
    return next(x for x in runs[r] if x["mode"] == mode and "step" not in x)


class VmTrainCheck(unittest.TestCase):
    def failing(self, runs):
        rc, out = judge(runs)
        self.assertEqual(rc, 1, out)
        return [ln for ln in out.splitlines() if ln.startswith("not ok")]

    def test_good_run_passes(self):
        """vm_train_check: a run meeting every requirement passes"""
        rc, out = judge(good_run())
        self.assertEqual(rc, 0, out)
        self.assertNotIn("not ok", out)

    def test_lossy_stall_fails(self):
        """vm_train_check: an operation under loss that waited half of op_timeout_ms fails"""
        runs = good_run()
        summary(runs, 2, "lossy")["op_ms"]["max"] = 19900.0
        bad = self.failing(runs)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("no operation waited for op_timeout_ms", bad[0])

    def test_no_overlap_fails(self):
        """vm_train_check: buckets never in flight together (a blocking hook) fail"""
        runs = good_run()
        for r in range(N):
            summary(runs, r, "gsync")["inflight_max"] = 1
        bad = self.failing(runs)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("several buckets in flight at once", bad[0])
        summary(runs, 1, "gsync")["inflight_max"] = 2     # one rank overlapping is enough
        self.assertEqual(judge(runs)[0], 0)

    def test_digest_differs_fails(self):
        """vm_train_check: a rank whose parameters differ at one step fails"""
        runs = good_run()
        runs[1][7] = dict(runs[1][7], digest="other")
        bad = self.failing(runs)
        self.assertTrue(any("bit-identical" in b for b in bad), bad)


DRIVER = r"""
import argparse, io, json, sys, threading
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/.."]
import fakekernel, vm_train
fab, gs = fakekernel.groups(3, latency=0.02, window=8)
vm_train.new_group = lambda a, off, timeout_ms=0: gs[a.rank]
x, y = vm_train.dataset(3, 4)
outs = [io.StringIO() for _ in range(3)]
def rank(r):
    a = argparse.Namespace(rank=r, steps=4, wire=None)
    vm_train.run_ddp(a, outs[r], "gsync", x, y, 3)
ts = [threading.Thread(target=rank, args=(r,)) for r in range(3)]
for t in ts: t.start()
for t in ts: t.join(120)
print(json.dumps([[json.loads(ln) for ln in o.getvalue().splitlines()] for o in outs]))
"""


@unittest.skipIf(importlib.util.find_spec("torch") is None,
                 "torch missing (Debian: python3-torch; run with /usr/bin/python3)")
class VmTrainOnFake(unittest.TestCase):
    def test_ddp_mode_records(self):
        """vm_train: its DDP mode runs over the fake kernel and records what the check reads"""
        # In a process of its own: vm_train sets torch's process-wide options.
        p = subprocess.run([sys.executable, "-c", DRIVER, HERE], capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        runs = json.loads(p.stdout.splitlines()[-1])
        steps = [[x for x in recs if "step" in x] for recs in runs]
        summ = [next(x for x in recs if "step" not in x) for recs in runs]
        self.assertEqual([len(s) for s in steps], [4] * 3)
        self.assertEqual(len({tuple(x["digest"] for x in s) for s in steps}), 1)
        for sm in summ:
            self.assertEqual(sm["op_timeout_ms"], 20000)
            self.assertEqual(sm["stats"]["ops_submitted"], steps[0][-1]["ops"])
            self.assertGreater(sm["op_ms"]["n"], 4)
        self.assertGreaterEqual(max(sm["inflight_max"] for sm in summ), 2, summ)


if __name__ == "__main__":
    unittest.main()
