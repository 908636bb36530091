import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def pyproject():
    """python/pyproject.toml, parsed (tomllib: Python 3.11, Debian 12)."""
    import tomllib
    with open(os.path.join(SRC, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


class Install(unittest.TestCase):
    def test_one_version(self):
        """install: the package, pyproject, libgsync and debian/changelog name one version"""
        import re
        import gsync
        top = os.path.join(SRC, "..")
        py = pyproject()["project"]["version"]
        with open(os.path.join(top, "userspace", "libgsync", "Makefile")) as f:
            lib = re.search(r"^VERSION\s*:=\s*(\S+)", f.read(), re.M).group(1)
        with open(os.path.join(top, "debian", "changelog")) as f:
            deb = re.match(r"gsync \(([^)-]+)", f.readline()).group(1)
        self.assertEqual({py, gsync.__version__, lib, deb}, {deb})

    def test_pip_offline(self):
        """install: pip --no-build-isolation --no-index builds and installs it offline"""
        import importlib.util
        for mod in ("setuptools", "pip", "wheel"):
            if importlib.util.find_spec(mod) is None:
                self.skipTest(f"{mod} missing (Debian: python3-pip, python3-setuptools, python3-wheel)")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            shutil.copytree(SRC, src, ignore=shutil.ignore_patterns(
                "build", "*.egg-info", "__pycache__", "tests"))
            target = os.path.join(d, "site")
            p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                                "--no-index", "--no-deps", "--target", target, src],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertTrue(os.path.exists(os.path.join(target, "gsync", "py.typed")))
            env = dict(os.environ, PYTHONPATH=target)
            p = subprocess.run([sys.executable, "-c",
                                "import gsync, gsync.schedule; print(gsync.__file__)"],
                               capture_output=True, text=True, env=env, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith(target), p.stdout)


if __name__ == "__main__":
    unittest.main()
