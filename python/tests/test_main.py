import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from gsync import __main__ as cli

PROC = ("id inode uid state group rank nranks next_seq inflight ops_submitted ops_completed "
        "ops_failed timeouts drop_short\n"
        "3 100 0 joined 0x2a 1 3 5 0 4 4 0 0 0\n"
        "4 101 0 unconfigured 0x0 0 0 0 0 0 0 0 0 0\n")


class Info(unittest.TestCase):
    def test_parse(self):
        """python -m gsync info: family and sockets parsed by column name"""
        with tempfile.TemporaryDirectory() as d:
            fam, proc, st = (os.path.join(d, x) for x in ("family", "gsync", "stats"))
            open(fam, "w").write("25\n")
            open(proc, "w").write(PROC)
            open(st, "w").write("sockets_open 2\nsockets_created 7\n")
            info = cli.info(fam, proc, st)
        self.assertTrue(info["module_loaded"])
        self.assertEqual(info["family"], 25)
        self.assertEqual([s["group"] for s in info["sockets"]], ["0x2a", "0x0"])
        self.assertEqual(info["sockets"][0]["next_seq"], "5")
        self.assertEqual(info["namespace_stats"]["sockets_created"], "7")
        out = io.StringIO()
        with redirect_stdout(out):
            cli._print_text(info)
        self.assertIn("sockets: 2; groups: 1", out.getvalue())
        self.assertIn("group 0x2a rank 1/3", out.getvalue())

    def test_malformed_row(self):
        """python -m gsync info: a row with the wrong field count is an error"""
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("a b c\n1 2\n")
        try:
            with self.assertRaisesRegex(ValueError, "2 fields"):
                cli.read_proc(f.name)
        finally:
            os.unlink(f.name)

    def test_not_loaded(self):
        """python -m gsync info: no module -> says so, exit 3"""
        info = cli.info("/nonexistent/family")
        self.assertFalse(info["module_loaded"])
        if os.path.exists("/sys/module/gsync"):
            self.skipTest("gsync is loaded on this host")
        here = os.path.join(os.path.dirname(__file__), "..")
        p = subprocess.run([sys.executable, "-m", "gsync", "info"], cwd=here,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 3)
        self.assertIn("not loaded", p.stdout)

    def test_py_info_program(self):
        """gsync-py-info: info without a subcommand, --json, exit 3 when not loaded"""
        if os.path.exists("/sys/module/gsync"):
            self.skipTest("gsync is loaded on this host")
        here = os.path.join(os.path.dirname(__file__), "..")
        run = [sys.executable, "-c",
               "import sys; from gsync.__main__ import info_main; sys.exit(info_main())"]
        p = subprocess.run(run, cwd=here, capture_output=True, text=True)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("module: not loaded", p.stdout)
        p = subprocess.run(run + ["--json"], cwd=here, capture_output=True, text=True)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIs(json.loads(p.stdout)["module_loaded"], False)
        p = subprocess.run(run + ["info"], cwd=here, capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)

    def test_py_info_entry_point(self):
        """pyproject's gsync-py-info runs info_main, not the subcommand parser"""
        from test_install import pyproject
        self.assertEqual(pyproject()["project"]["scripts"]["gsync-py-info"],
                         "gsync.__main__:info_main")


if __name__ == "__main__":
    unittest.main()
